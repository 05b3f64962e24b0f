/**
 * @file checks.h
 * @brief The sanitizer's checks (racecheck, synccheck, initcheck), called from the memory
 *        and warp paths when the launch asks for them.
 */
#ifndef EMU_CHECK_H
#define EMU_CHECK_H

#include "vm_impl.h"

/** A global access by lanes @p m (initcheck, and the global racecheck). */
void check_global(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                  uint32_t m, unsigned bytes, int store);
/** A global access by lanes @p m (racecheck for global memory, checks_global.c). */
void check_global_race(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                       uint32_t m, unsigned bytes, int store);
/** Lanes @p m of @p w executed a fence, of @p gpu scope or wider (else the block's only). */
void check_global_fence(struct exec *x, const struct warp *w, uint32_t m, int gpu);
/** The global racecheck's records for a launch: made by its plan (the first call; the contexts
 *  that run its blocks share them) and freed by it. */
void check_global_begin(struct exec *x);
void check_global_end(struct exec *x);
/** The running block's barriers opened so far, with a thread count or not: across blocks, the
 *  global racecheck takes a fence after either as ordering the block's earlier accesses. */
uint32_t check_generation(const struct exec *x);
/** What orders a thread's accesses in its block: the block-wide barriers opened, and its warp's
 *  __syncwarp count and arrivals (at mbarriers and barriers) when it made the access. */
struct check_stamp {
    uint32_t gen, sync, rel;
};
/** Warp @p warp's stamp now. */
struct check_stamp check_stamp_of(const struct exec *x, uint32_t warp);
/** Is an access thread @p tid makes now ordered after the one thread @p other (+ 1) of the
 *  running block made at @p then? A block-wide barrier since, a __syncwarp since in one warp, or
 *  a wait of @p tid's warp past an arrival @p other's warp made after it. */
int check_stamp_ordered(const struct exec *x, uint32_t tid, uint32_t other,
                        struct check_stamp then);
/** A shared access by lanes @p m (racecheck, initcheck). */
enum event check_shared(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                        uint32_t m, unsigned bytes, int store);
/** Warp @p warp arrives on an mbarrier or a barrier (racecheck): its accesses so far, and those
 *  it has waited past, are released into the object's vector @p vec (32 warps' arrival counts). */
void check_release(struct exec *x, uint32_t warp, uint32_t *vec);
/** Warp @p warp's wait saw a phase complete whose arrivals released vector @p vec: its accesses
 *  from now on are ordered after those. */
void check_acquire(struct exec *x, uint32_t warp, const uint32_t *vec);
/** A read of shared memory that warp @p w's warpgroup makes together (a wgmma's operands, spread
 *  over lanes @p m of @p w): ordered after every access of the warpgroup's own threads, and they
 *  after it (they wait for the wgmma before they touch its operands again). */
void check_shared_group(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                        uint32_t m, unsigned bytes);
/** Lane @p lane's cp.async of @p bytes to shared offset @p off lands (its wait): the bytes are
 *  no longer in flight and become its thread's write (racecheck, initcheck). */
void check_async_land(struct exec *x, const struct warp *w, int lane, uint32_t off, unsigned bytes);
/** A warp-synchronous instruction whose mask is @p mask, executed by @p m (synccheck; a
 *  bar.warp.sync also orders the warp's shared accesses for racecheck). */
void check_warp_mask(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                     uint32_t mask);

/** Threads of warp @p warp arrive at barrier @p id through instruction @p in, waiting or not:
 *  racecheck releases their accesses so far into the barrier; synccheck notes the place, unless
 *  threads may meet there from their own places (@p anywhere: a thread count, at which warps of
 *  different roles meet, or a barrier.sync without .aligned). */
void check_barrier_arrive(struct exec *x, const struct insn *in, uint32_t warp, uint32_t id,
                          int anywhere);

/** Warp @p warp's lanes that waited at barrier @p id pass it: their accesses from now on are
 *  ordered after those every arrival at it released. */
void check_barrier_pass(struct exec *x, uint32_t warp, uint32_t id);

/** Barrier @p id opens. When it waited for @p all the block's threads, every access after it is
 *  ordered after every one before (threads that exited instead of arriving are no finding: they
 *  do not hold a barrier up on a GPU); a barrier with a thread count orders only the warps that
 *  passed it, after the arrivals' accesses. check_generation() counts both kinds. */
void check_barrier_open(struct exec *x, uint32_t id, int all);

/** A phase of an mbarrier completes after @p arrivals (the count it began with). When that
 *  covers every thread of the block, racecheck orders across it as across a bar.sync; an
 *  mbarrier only some threads arrive at orders warp by warp (check_release(), check_acquire()). */
void check_mbarrier_phase(struct exec *x, uint64_t arrivals);

/** A bulk or tensor copy wrote shared bytes [@p addr, @p addr + @p bytes): written for
 *  initcheck, and ordered by its mbarrier (checks_async.c), not by barriers, for racecheck. */
void check_shared_async_write(struct exec *x, uint64_t addr, uint64_t bytes);

/** Lane @p lane's copy @p in (@p what names it) reads shared [@p off, @p off + @p bytes)
 *  through the async proxy, to global memory or shared memory: initcheck reports a byte the
 *  block never wrote, racecheck a write the async proxy may not see (check_async_read()). */
void check_shared_source(struct exec *x, struct warp *w, const struct insn *in, int lane,
                         uint64_t off, uint64_t bytes, const char *what);

/* ---- what other files' checks report through (checks_async.c) ---- */

/** Count a finding of @p kind at places @p at, @p at2; 1 when it was found before (then
 *  counted and done), 0 when the caller must check_add() its line. */
int check_seen(struct exec *x, int kind, uint64_t at, uint64_t at2);
/** Keep a new finding's one line (check_seen() counted it). */
void check_add(struct exec *x, int kind, uint64_t at, uint64_t at2, const char *line);
/** Where instruction @p pc comes from, as a finding's key: its source line, or the
 *  instruction itself without line information. */
uint64_t check_place(const struct exec *x, uint32_t pc);
/** "thread (x,y,z) at FILE:LINE" of thread @p tid at instruction @p pc, for a message. */
const char *check_thread_at(const struct exec *x, uint32_t tid, uint32_t pc, char *buf,
                            size_t size);

/* ---- the asynchronous proxy (checks_async.c), under racecheck ---- */

/** Kinds of its findings, apart from checks.c's own. */
enum { CHECK_ASYNC_EARLY = 100, CHECK_ASYNC_UNFENCED };

/** The async-proxy check's state for a launch, a block, and its end. */
void check_async_begin(struct exec *x);
void check_async_block(struct exec *x);
void check_async_end(struct exec *x);

/** mbarrier.init at shared offset @p off; a phase of it completes; lane @p lane of @p w saw
 *  a wait on it succeed (it has waited for every phase completed so far). */
void check_async_init(struct exec *x, uint64_t off);
void check_async_phase(struct exec *x, uint64_t off);
void check_async_wait(struct exec *x, const struct warp *w, int lane, uint64_t off);

/** Lane @p lane of @p w arrived on the mbarrier at shared offset @p off (in its current
 *  phase, before any completion that arrival brings). */
void check_async_arrive(struct exec *x, const struct warp *w, int lane, uint64_t off);

/** A block-wide barrier opened: what any thread waited for, every thread may rely on, and
 *  each thread's fences so far are ordered before every thread's later accesses. */
void check_async_barrier(struct exec *x);

/** Warp @p warp executed a __syncwarp: its threads' fences so far are ordered before the
 *  warp's later accesses. */
void check_async_warp_sync(struct exec *x, uint32_t warp);

/** Lanes @p m of @p w executed fence.proxy.async. */
void check_async_fence(struct exec *x, const struct warp *w, uint32_t m);

/** Copy @p in writes shared [@p off, @p off + @p bytes) through the async proxy, completing on
 *  the mbarrier at shared offset @p mbar's current phase: a thread may touch those bytes only
 *  after it waited for that phase. */
void check_async_write(struct exec *x, const struct insn *in, uint64_t off, uint64_t bytes,
                       uint64_t mbar);

/** Lane @p lane's @p in reads shared [@p off, @p off + @p bytes) through the async proxy (a
 *  bulk or TMA store's source, a wgmma operand; @p what names it): a generic-proxy write
 *  there needs a fence.proxy.async between (by its writer, or by this thread after a
 *  barrier), and a copy's bytes the thread has not waited for are not there yet. */
void check_async_read(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t off,
                      uint64_t bytes, const char *what);

/** wgmma @p in, issued by warp @p w's warpgroup, reads shared [@p off, @p off + @p bytes)
 *  through the async proxy as it runs: a generic-proxy write there with no fence.proxy.async
 *  since, by a thread of the writer's warp or of the reading warpgroup, is reported. */
void check_async_wgmma_read(struct exec *x, const struct warp *w, const struct insn *in,
                            uint64_t off, unsigned bytes);

/** A generic-proxy access of lane @p lane (checks.c's check_shared()). */
void check_async_access(struct exec *x, struct warp *w, const struct insn *in, int lane,
                        uint64_t off, unsigned bytes, int store);

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
