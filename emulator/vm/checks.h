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
/** Lane @p lane's cp.async of @p bytes to shared offset @p off lands (its wait): the bytes are
 *  no longer in flight and become its thread's write (racecheck, initcheck). */
void check_async_land(struct exec *x, const struct warp *w, int lane, uint32_t off, unsigned bytes);
/** A warp-synchronous instruction whose mask is @p mask, executed by @p m (synccheck; a
 *  bar.warp.sync also orders the warp's shared accesses for racecheck). */
void check_warp_mask(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                     uint32_t mask);

/** Threads arrive at barrier @p id through instruction @p in (synccheck notes the place). */
void check_barrier_arrive(struct exec *x, const struct insn *in, uint32_t id);

/** Barrier @p id opens: the accesses after it are ordered after those before (threads that
 *  exited instead of arriving are no finding: they do not hold a barrier up on a GPU). */
void check_barrier_open(struct exec *x, uint32_t id);

/** A phase of an mbarrier completes after @p arrivals (the count it began with). When that
 *  covers every thread of the block, racecheck orders across it as across a bar.sync; an
 *  mbarrier only some threads arrive at orders nothing for racecheck (emulator/README.md). */
void check_mbarrier_phase(struct exec *x, uint64_t arrivals);

/** A launch with checks starts (x->smem_bytes known) and ends (its findings reported). */
void check_begin(struct exec *x);
void check_end(struct exec *x);

/** A new block starts. */
void check_block(struct exec *x);

#endif /* EMU_CHECK_H */
