/**
 * @file checks.h
 * @brief The sanitizer's checks (racecheck, synccheck, initcheck), called from the memory
 *        and warp paths when the launch asks for them.
 */
#ifndef EMU_CHECK_H
#define EMU_CHECK_H

#include "vm_impl.h"

/** A global access by lanes @p m (initcheck). */
void check_global(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                  uint32_t m, unsigned bytes, int store);
/** A shared access by lanes @p m (racecheck, initcheck). */
enum event check_shared(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                        uint32_t m, unsigned bytes, int store);
/** A warp-synchronous instruction whose mask is @p mask, executed by @p m (synccheck; a
 *  bar.warp.sync also orders the warp's shared accesses for racecheck). */
void check_warp_mask(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                     uint32_t mask);

/** Threads arrive at barrier @p id through instruction @p in (synccheck notes the place). */
void check_barrier_arrive(struct exec *x, const struct insn *in, uint32_t id);

/** Barrier @p id opens: the accesses after it are ordered after those before; @p exited
 *  threads of the block had exited instead of arriving (a whole-block barrier). */
void check_barrier_open(struct exec *x, uint32_t id, uint32_t exited);

/** A phase of an mbarrier completes after @p arrivals (the count it began with). When that
 *  covers every thread of the block, racecheck orders across it as across a bar.sync; an
 *  mbarrier only some threads arrive at orders nothing for racecheck (emulator/README.md). */
void check_mbarrier_phase(struct exec *x, uint64_t arrivals);

/** A finding of another family (the async-proxy check, wgmma's registers) at instructions @p pc
 *  and @p pc2: one line, kept once per pair of source lines and counted, as every finding. */
void check_report_at(struct exec *x, uint32_t pc, uint32_t pc2, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** A launch with checks starts (x->smem_bytes known) and ends (its findings reported). */
void check_begin(struct exec *x);
void check_end(struct exec *x);

/** A new block starts. */
void check_block(struct exec *x);

#endif /* EMU_CHECK_H */
