/**
 * @file checks_async.c
 * @brief racecheck's view of the asynchronous proxy: bulk and tensor copies (TMA) and the
 *        mbarriers they complete on, wgmma's shared-memory operands, and fence.proxy.async:
 *        one record per byte of shared memory and one fence record per thread for all three.
 *
 * The VM runs a copy when it is issued, so a kernel that reads a copy's destination too early
 * still gets the right bytes here; on a GPU it may not. Two rules of the PTX memory model
 * (the asynchronous proxy, mbarrier's complete-tx) are checked instead, at the accesses:
 *
 * - **Early access.** The bytes a copy writes into shared memory belong to the phase of its
 *   mbarrier that was current when it was issued. A thread may read or write them only after
 *   it has seen that phase complete: a successful test_wait or try_wait of its own on that
 *   object, one by any thread before a block-wide barrier the thread passed since, or one by a
 *   thread that then arrived on another mbarrier whose phase this thread waited for (what the
 *   arrivers had seen, every object's, passes with each phase to its waiters). Each
 *   object's completed phases are counted from its mbarrier.init; each thread keeps how many
 *   it has seen.
 * - **Unfenced write.** A generic-proxy write (st.shared, stmatrix, an atomic) to bytes that
 *   an async-proxy read then takes needs a fence.proxy.async between, and the write and its
 *   fence must happen before the read is issued. For a bulk or TMA store's source
 *   (check_async_read()), one of: the issuing thread wrote the bytes and fenced since; the
 *   writer fenced after its write and then a block-wide barrier opened (or, in the writer's
 *   own warp, a __syncwarp) before the issue; the writer fenced, then arrived on an mbarrier
 *   whose phase the issuing thread waited for; or the issuing thread fenced after a barrier
 *   that followed the write, or after its wait for a phase the writer arrived in after the
 *   write (the barrier's or the mbarrier's cumulativity carries the write to the issuer). A
 *   writer's fence with nothing ordering it before the issue orders nothing. For a wgmma's
 *   operands (check_async_wgmma_read(), when the operation runs at its wait_group): a fence
 *   after the write by a thread of the writer's warp (which then makes the write visible with
 *   a barrier) or of the reading warpgroup.
 *
 * What is not checked: a copy that overwrites bytes threads still read (the producer of a
 * pipeline must wait for the consumers' "empty" mbarrier; that order is not tracked), and
 * writes to a store's source before its cp.async.bulk.wait_group.read.
 * Each finding is one line, kept once per pair of source lines (checks.c's find rules).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

/* One byte of shared memory: the copy it waits for, and its last generic-proxy writer. */
struct abyte {
    uint32_t block;         /* the block this record belongs to (tag) */
    uint32_t slot;          /* its copy's mbarrier: slot + 1 (0: no copy pending) */
    uint32_t need;          /* phases of that object a thread must have seen */
    uint32_t copy_pc;       /* the copy */
    uint32_t gw_tid, gw_pc; /* the last generic writer: thread + 1 (0: none), where */
    uint32_t gw_gen;        /* the block's barriers opened before that write */
    uint64_t gw_seq;        /* and when (the block's instruction count) */
};

/* One thread's dealings with one mbarrier object. */
struct alane {
    uint32_t seen;         /* phases it has seen completed (its last successful wait) */
    uint32_t arrived;      /* the phase of its last arrival + 1 (0: none) */
    uint64_t arrive_seq;   /* when it arrived (the block's instruction count) */
    uint64_t arrive_fence; /* its last fence.proxy.async before that arrival, when */
    uint64_t wait_seq;     /* when its last successful wait returned */
};

enum { MAX_SLOTS = 64 };

/* One mbarrier object, by its shared offset. What its arrivals release (the arriving warps'
 * accesses for checks.c, the phases the arriving threads had seen of every object) gathers in
 * rel and seen; a phase's completion hands that to the waits that see it (done_*). */
struct aslot {
    uint64_t off;
    uint32_t completed;             /* phases completed since mbarrier.init */
    uint32_t max_seen;              /* the most any thread has seen */
    uint32_t known;                 /* seen by every thread (a barrier passed since one saw them) */
    struct alane *lane;             /* per thread */
    uint32_t rel[32], done_rel[32]; /* check_release()'s vectors */
    uint32_t seen[MAX_SLOTS], done_seen[MAX_SLOTS]; /* phases seen, by object */
};

struct astate {
    struct abyte *sh;
    uint32_t block;                /* the running block's tag */
    uint32_t gen;                  /* block-wide barriers opened */
    uint64_t *fence_seq;           /* per thread: its last fence.proxy.async, when */
    uint32_t *fence_gen;           /* and after how many barriers */
    uint64_t *fence_barrier;       /* its last fence before the last block-wide barrier */
    uint64_t *fence_warp;          /* its last fence before its warp's last __syncwarp */
    struct aslot slots[MAX_SLOTS]; /* the block's mbarriers */
    uint32_t nslots;
};

static struct astate *state(struct exec *x)
{
    return x->async_state;
}

void check_async_begin(struct exec *x)
{
    struct astate *s = emu_calloc(1, sizeof *s);
    s->sh = emu_calloc(x->smem_bytes, sizeof *s->sh);
    s->fence_seq = emu_calloc(x->nthreads, sizeof *s->fence_seq);
    s->fence_gen = emu_calloc(x->nthreads, sizeof *s->fence_gen);
    s->fence_barrier = emu_calloc(x->nthreads, sizeof *s->fence_barrier);
    s->fence_warp = emu_calloc(x->nthreads, sizeof *s->fence_warp);
    for (int i = 0; i < MAX_SLOTS; i++)
        s->slots[i].lane = emu_calloc(x->nthreads, sizeof *s->slots[i].lane);
    x->async_state = s;
}

void check_async_block(struct exec *x)
{
    struct astate *s = state(x);
    s->block++;
    s->gen = 0;
    s->nslots = 0;
    memset(s->fence_seq, 0, x->nthreads * sizeof *s->fence_seq);
    memset(s->fence_gen, 0, x->nthreads * sizeof *s->fence_gen);
    memset(s->fence_barrier, 0, x->nthreads * sizeof *s->fence_barrier);
    memset(s->fence_warp, 0, x->nthreads * sizeof *s->fence_warp);
}

void check_async_end(struct exec *x)
{
    struct astate *s = state(x);
    for (int i = 0; i < MAX_SLOTS; i++)
        free(s->slots[i].lane);
    free(s->fence_seq);
    free(s->fence_gen);
    free(s->fence_barrier);
    free(s->fence_warp);
    free(s->sh);
    free(s);
    x->async_state = NULL;
}

/* The slot of the object at @p off, or NULL (an object made before checks could see it). */
static struct aslot *slot_of(struct astate *s, uint64_t off)
{
    for (uint32_t i = 0; i < s->nslots; i++)
        if (s->slots[i].off == off)
            return &s->slots[i];
    return NULL;
}

void check_async_init(struct exec *x, uint64_t off)
{
    struct astate *s = state(x);
    struct aslot *a = slot_of(s, off);
    if (!a && s->nslots == MAX_SLOTS)
        return; /* more objects than tracked: the later ones are not judged */
    if (!a)
        a = &s->slots[s->nslots++];
    struct alane *lane = a->lane;
    memset(lane, 0, x->nthreads * sizeof *lane);
    *a = (struct aslot){.off = off, .lane = lane};
}

void check_async_phase(struct exec *x, uint64_t off)
{
    struct aslot *a = slot_of(state(x), off);
    if (!a)
        return;
    a->completed++;
    memcpy(a->done_rel, a->rel, sizeof a->rel);
    memcpy(a->done_seen, a->seen, sizeof a->seen);
}

/* Thread @p tid has seen @p n phases of object @p a complete (or more already). */
static void saw(struct aslot *a, uint32_t tid, uint32_t n)
{
    struct alane *t = &a->lane[tid];
    t->seen = n > t->seen ? n : t->seen;
    a->max_seen = n > a->max_seen ? n : a->max_seen;
}

void check_async_wait(struct exec *x, const struct warp *w, int lane, uint64_t off)
{
    struct astate *s = state(x);
    struct aslot *a = slot_of(s, off);
    if (!a)
        return;
    uint32_t tid = w->index * 32 + (uint32_t)lane;
    saw(a, tid, a->completed);
    a->lane[tid].wait_seq = x->clock;
    check_acquire(x, w->index, a->done_rel);
    for (uint32_t i = 0; i < s->nslots; i++) /* what the phase's arrivers had seen */
        saw(&s->slots[i], tid, a->done_seen[i]);
}

void check_async_arrive(struct exec *x, const struct warp *w, int lane, uint64_t off)
{
    struct astate *s = state(x);
    struct aslot *a = slot_of(s, off);
    uint32_t tid = w->index * 32 + (uint32_t)lane;
    if (!a)
        return;
    a->lane[tid] = (struct alane){a->lane[tid].seen, a->completed + 1, x->clock, s->fence_seq[tid],
                                  a->lane[tid].wait_seq};
    check_release(x, w->index, a->rel);
    for (uint32_t i = 0; i < s->nslots; i++)
        a->seen[i] =
            s->slots[i].lane[tid].seen > a->seen[i] ? s->slots[i].lane[tid].seen : a->seen[i];
}

void check_async_barrier(struct exec *x)
{
    struct astate *s = state(x);
    s->gen++;
    memcpy(s->fence_barrier, s->fence_seq, x->nthreads * sizeof *s->fence_seq);
    for (uint32_t i = 0; i < s->nslots; i++)
        s->slots[i].known = s->slots[i].max_seen;
}

void check_async_warp_sync(struct exec *x, uint32_t warp)
{
    struct astate *s = state(x);
    for (uint32_t t = warp * 32; t < warp * 32 + 32 && t < x->nthreads; t++)
        s->fence_warp[t] = s->fence_seq[t];
}

void check_async_fence(struct exec *x, const struct warp *w, uint32_t m)
{
    struct astate *s = state(x);
    LANES(m, {
        s->fence_seq[w->index * 32 + (uint32_t)l] = x->clock;
        s->fence_gen[w->index * 32 + (uint32_t)l] = s->gen;
    });
}

/* Byte @p off's record, fresh for this block. */
static struct abyte *byte_of(struct astate *s, uint64_t off)
{
    struct abyte *b = &s->sh[off];
    if (b->block != s->block)
        *b = (struct abyte){.block = s->block};
    return b;
}

void check_async_write(struct exec *x, const struct insn *in, uint64_t off, uint64_t bytes,
                       uint64_t mbar)
{
    struct astate *s = state(x);
    struct aslot *a = slot_of(s, mbar);
    check_shared_async_write(x, off, bytes);
    for (uint64_t i = 0; i < bytes; i++) {
        struct abyte *b = byte_of(s, off + i);
        *b = (struct abyte){.block = s->block};
        if (a) {
            b->slot = (uint32_t)(a - s->slots) + 1;
            b->need = a->completed + 1;
            b->copy_pc = (uint32_t)(in - x->code);
        }
    }
}

/* 1 when thread @p tid has seen the phase byte @p b's copy completes. */
static int landed(const struct astate *s, const struct abyte *b, uint32_t tid)
{
    const struct aslot *a = &s->slots[b->slot - 1];
    return a->lane[tid].seen >= b->need || a->known >= b->need;
}

/* Report lane @p lane's access of @p off, a byte of a copy it has not seen complete. */
static void early(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t off,
                  const struct abyte *b, const char *access)
{
    uint32_t pc = (uint32_t)(in - x->code);
    if (check_seen(x, CHECK_ASYNC_EARLY, check_place(x, pc), check_place(x, b->copy_pc)))
        return;
    struct astate *s = state(x);
    char me[400], copy[300], line[1024];
    vm_where(x->mod, &x->code[b->copy_pc], copy, sizeof copy);
    snprintf(
        line, sizeof line,
        "racecheck: %s of shared 0x%llx %s before the bulk or tensor copy at %s that writes "
        "it completed: the thread has not waited for phase %u of the mbarrier at shared 0x%llx",
        access, (unsigned long long)off, vm_describe(x, w, in, lane, me, sizeof me), copy,
        b->need - 1, (unsigned long long)s->slots[b->slot - 1].off);
    check_add(x, CHECK_ASYNC_EARLY, check_place(x, pc), check_place(x, b->copy_pc), line);
}

void check_async_access(struct exec *x, struct warp *w, const struct insn *in, int lane,
                        uint64_t off, unsigned bytes, int store)
{
    struct astate *s = state(x);
    uint32_t tid = w->index * 32 + (uint32_t)lane;
    for (unsigned i = 0; i < bytes; i++) {
        struct abyte *b = byte_of(s, off + i);
        if (b->slot && !landed(s, b, tid)) {
            early(x, w, in, lane, off + i, b, store ? "write" : "read");
            break;
        }
    }
    if (!store)
        return;
    for (unsigned i = 0; i < bytes; i++) {
        struct abyte *b = byte_of(s, off + i);
        *b = (struct abyte){s->block, 0, 0, 0, tid + 1, (uint32_t)(in - x->code), s->gen, x->clock};
    }
}

/* 1 when an mbarrier orders byte @p b's generic write, and a fence.proxy.async, before
 * async-proxy reader @p tid's issue: the writer arrived after the write (having fenced since,
 * or the reader fenced after its wait) in a phase the reader has seen complete. */
static int fenced_by_mbarrier(const struct astate *s, const struct abyte *b, uint32_t writer,
                              uint32_t tid)
{
    for (uint32_t i = 0; i < s->nslots; i++) {
        const struct aslot *a = &s->slots[i];
        const struct alane *wl = &a->lane[writer], *rl = &a->lane[tid];
        int seen = rl->seen >= wl->arrived;
        if (!wl->arrived || wl->arrive_seq < b->gw_seq || (!seen && a->known < wl->arrived))
            continue; /* no arrival after the write in a phase the reader knows complete */
        if (wl->arrive_fence > b->gw_seq || (seen && s->fence_seq[tid] > rl->wait_seq))
            return 1;
    }
    return 0;
}

/* 1 when byte @p b's generic write is fenced for async-proxy reader @p tid, and the write and
 * the fence are ordered before the read's issue (the rules in the file's header). */
static int fenced(const struct astate *s, const struct abyte *b, uint32_t tid)
{
    uint32_t writer = b->gw_tid - 1;
    if (writer == tid && s->fence_seq[tid] > b->gw_seq)
        return 1;
    if (s->fence_barrier[writer] > b->gw_seq ||
        (writer / 32 == tid / 32 && s->fence_warp[writer] > b->gw_seq))
        return 1;
    if (s->fence_seq[tid] > b->gw_seq && s->fence_gen[tid] > b->gw_gen)
        return 1;
    return fenced_by_mbarrier(s, b, writer, tid);
}

void check_async_read(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t off,
                      uint64_t bytes, const char *what)
{
    struct astate *s = state(x);
    uint32_t tid = w->index * 32 + (uint32_t)lane, pc = (uint32_t)(in - x->code);
    for (uint64_t i = 0; i < bytes; i++) {
        struct abyte *b = byte_of(s, off + i);
        if (b->slot && !landed(s, b, tid)) {
            early(x, w, in, lane, off + i, b, what);
            return;
        }
        if (!b->gw_tid || fenced(s, b, tid))
            continue;
        if (check_seen(x, CHECK_ASYNC_UNFENCED, check_place(x, pc), check_place(x, b->gw_pc)))
            return;
        char me[400], them[300], line[1200];
        snprintf(line, sizeof line,
                 "racecheck: %s reads shared 0x%llx %s, which %s wrote through the generic proxy "
                 "with no fence.proxy.async between that is ordered before this issue (the "
                 "writer's fence, then a barrier or an mbarrier the issuer waited on): the async "
                 "proxy may not see the write",
                 what, (unsigned long long)(off + i), vm_describe(x, w, in, lane, me, sizeof me),
                 check_thread_at(x, b->gw_tid - 1, b->gw_pc, them, sizeof them));
        check_add(x, CHECK_ASYNC_UNFENCED, check_place(x, pc), check_place(x, b->gw_pc), line);
        return;
    }
}

/* 1 when a thread of warps [@p first, @p first + @p n) executed fence.proxy.async after
 * instruction count @p seq. */
static int warps_fenced(const struct exec *x, const struct astate *s, uint32_t first, uint32_t n,
                        uint64_t seq)
{
    for (uint32_t t = first * 32; t < (first + n) * 32 && t < x->nwarps * 32; t++)
        if (t < x->nthreads && s->fence_seq[t] > seq)
            return 1;
    return 0;
}

void check_async_wgmma_read(struct exec *x, const struct warp *w, const struct insn *in,
                            uint64_t off, unsigned bytes)
{
    struct astate *s = state(x);
    for (unsigned i = 0; i < bytes; i++) {
        const struct abyte *b = byte_of(s, off + i);
        uint32_t writer = (b->gw_tid - 1) / 32;
        if (!b->gw_tid || warps_fenced(x, s, writer, 1, b->gw_seq) ||
            warps_fenced(x, s, w->index / 4 * 4, 4, b->gw_seq))
            continue;
        char me[400], at[200];
        check_report_at(x, (uint32_t)(in - x->code), b->gw_pc,
                        "racecheck: wgmma.mma_async reads shared 0x%llx through the async proxy, "
                        "written through the generic proxy by warp %u at %s with no "
                        "fence.proxy.async between, %s",
                        (unsigned long long)(off + i), writer,
                        vm_where(x->mod, &x->code[b->gw_pc], at, sizeof at),
                        vm_describe(x, w, in, 0, me, sizeof me));
        return;
    }
}
