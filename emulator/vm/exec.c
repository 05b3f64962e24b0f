/**
 * @file exec.c
 * @brief Running a grid: blocks in order on every core, warps until they wait,
 *        and the one dispatch loop.
 *
 * A block runs each of its warps in turn until the warp exits or all its
 * live lanes wait at a barrier; when every warp waits, the barrier opens and
 * the round starts again. No warp is ever preempted, so a block's run is
 * deterministic, and a barrier nobody can complete is reported as a
 * deadlock instead of hanging. Blocks start in launch order on the host's
 * threads (or, in a cooperative launch, are all resident and take turns).
 *
 * Inside a warp, lanes that took different branches keep one pc each
 * (`diverged`), and the group of lanes with the lowest pc runs until it
 * reaches the next group's pc, where the two merge. For the structured code
 * compilers emit, this joins the lanes exactly where the branches meet.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "count.h"
#include "hopper.h"
#include "model.h"
#include "prov.h"
#include "vm_impl.h"

/* The emulated GPU (an H100 or H200): SMs, and what one SM holds at once (the CUDA C++
 * Programming Guide's compute capability 9.0 limits), which bounds the blocks resident together. */
enum {
    SMS = 132,
    SM_THREADS = 2048,
    SM_BLOCKS = 32,
    SM_SMEM = 228 * 1024,
    BLOCK_SMEM_RESERVED = 1024
};

/* ---- lanes and groups ------------------------------------------------------------------- */

/* Give every live lane of a converged warp its own pc. */
static void diverge(struct warp *w)
{
    if (w->diverged)
        return;
    for (int l = 0; l < 32; l++)
        w->lane_pc[l] = w->pc;
    w->diverged = 1;
}

/* Back to one pc when every live lane has the same one and they all run or all wait. */
static void try_converge(struct warp *w)
{
    if (!w->diverged || !w->live)
        return;
    if (w->waiting && w->waiting != w->live)
        return;
    uint32_t pc = w->lane_pc[__builtin_ctz(w->live)];
    for (uint32_t m = w->live; m; m &= m - 1)
        if (w->lane_pc[__builtin_ctz(m)] != pc)
            return;
    w->pc = pc;
    w->diverged = 0;
}

/* The runnable lanes with the lowest pc, and the next higher pc of a runnable lane (where the
 * group must stop to merge). Returns 0 when no lane can run. */
static int pick_group(const struct warp *w, uint32_t *pc, uint32_t *mask, uint32_t *stop)
{
    uint32_t run = w->live & ~w->waiting;
    if (!run)
        return 0;
    if (!w->diverged) {
        *pc = w->pc;
        *mask = run;
        *stop = UINT32_MAX;
        return 1;
    }
    uint32_t lo = UINT32_MAX, next = UINT32_MAX, m = 0;
    for (uint32_t r = run; r; r &= r - 1) {
        int l = __builtin_ctz(r);
        uint32_t p = w->lane_pc[l];
        if (p < lo) {
            next = lo;
            lo = p;
            m = 1u << l;
        } else if (p == lo) {
            m |= 1u << l;
        } else if (p < next) {
            next = p;
        }
    }
    *pc = lo;
    *mask = m;
    *stop = next;
    return 1;
}

/* Park the lanes of @p mask at @p pc (diverged mode). */
static void park(struct warp *w, uint32_t mask, uint32_t pc)
{
    for (; mask; mask &= mask - 1)
        w->lane_pc[__builtin_ctz(mask)] = pc;
}

/* ---- the dispatch loop -------------------------------------------------------------------- */

/*
 * Handle an event from instruction @p pc for the group @p *mask. Returns 1 to keep running
 * the group at *pc, 0 to stop it (its lanes' pcs already saved), -1 on error.
 */
static int on_event(struct exec *x, struct warp *w, enum event ev, uint32_t *pc, uint32_t *mask)
{
    switch (ev) {
    case EV_BRANCH: {
        uint32_t taken = x->branch_taken;
        if (taken == *mask && !w->diverged) {
            *pc = x->branch_target;
            return 1;
        }
        if (taken != *mask && x->cnt)
            count_divergence(x);
        diverge(w);
        park(w, taken, x->branch_target);
        park(w, *mask & ~taken, *pc + 1);
        return 0;
    }
    case EV_EXIT:
        w->live &= ~x->exited;
        *mask &= ~x->exited;
        if (!*mask) {
            try_converge(w);
            return 0;
        }
        ++*pc;
        if (w->diverged) {
            park(w, *mask, *pc);
            try_converge(w);
            return 0;
        }
        return 1;
    case EV_BARRIER:
        w->waiting |= x->bar_arrived;
        for (uint32_t m = x->bar_arrived; m; m &= m - 1)
            w->bar_id[__builtin_ctz(m)] = x->bar_id;
        if (!w->diverged && x->bar_arrived == w->live) {
            w->pc = *pc + 1;
            return 0;
        }
        diverge(w);
        park(w, *mask, *pc + 1);
        try_converge(w);
        return 0;
    case EV_CALL: /* lanes jump into another function: their registers change with it */
        diverge(w);
        park(w, x->branch_taken, x->branch_target);
        park(w, *mask & ~x->branch_taken & ~x->call_again, *pc + 1);
        park(w, x->call_again, *pc); /* an indirect call's lanes bound elsewhere: one more time */
        x->call_again = 0;
        return 0;
    case EV_RET:
        diverge(w);
        for (uint32_t m = x->branch_taken; m; m &= m - 1)
            w->lane_pc[__builtin_ctz(m)] = x->ret_target[__builtin_ctz(m)];
        park(w, *mask & ~x->branch_taken, *pc + 1);
        return 0;
    case EV_WARP_WAIT: /* both kinds stop here: the next pick runs the lanes at *pc as one */
        w->waiting |= x->bar_arrived;
        for (uint32_t m = x->bar_arrived; m; m &= m - 1)
            w->bar_id[__builtin_ctz(m)] = WARP_SYNC_WAIT;
        diverge(w);
        park(w, *mask, *pc);
        return 0;
    case EV_ERROR:
        return -1;
    case EV_NONE:
        break;
    }
    return 1;
}

/* No lane of @p w can run: lanes waiting at a warp-synchronous instruction run it again,
 * to find the lanes they wait for exited (then they go on) or waiting (an error). */
static int wake_warp_sync(struct warp *w)
{
    uint32_t woken = vm_lanes_at(w, WARP_SYNC_WAIT);
    w->waiting &= ~woken;
    return woken != 0;
}

/* Point the warp's registers at function @p f's part of its arena. */
static void use_frame(const struct exec *x, struct warp *w, uint32_t f)
{
    w->regs = w->arena + x->fbase[f];
}

/* Run warp @p w until all its live lanes wait or exit. Returns EV_ERROR on failure. */
/* Run warp @p w until its lanes exit, wait at a barrier, or have looped YIELD_BRANCHES times. */
static enum event run_warp(struct exec *x, struct warp *w)
{
    const struct insn *code = x->code;
    uint32_t pc, mask, stop;
    for (;;) {
        try_converge(w); /* groups that met through a taken branch run as one again */
        if (!pick_group(w, &pc, &mask, &stop)) {
            if (wake_warp_sync(w))
                continue;
            break;
        }
        use_frame(x, w, x->mod->func_at[pc]);
        for (;;) {
            const struct insn *in = &code[pc];
            uint32_t m = mask;
            if (in->guard != NO_REG)
                m &= in->neg_guard ? ~PRED(w, in->guard) : PRED(w, in->guard);
            enum event ev = x->wgmma_watch && m ? vm_wgmma_watch(x, w, in, mask) : EV_NONE;
            if (ev == EV_NONE) {
                x->clock++;
                if (x->cnt)
                    count_insn(x, w, in, mask, m);
                ev = m ? vm_ops[in->op](x, w, in, m) : EV_NONE;
            }
            if (ev == EV_NONE) {
                if (++pc == stop)
                    break;
                continue;
            }
            uint32_t from = pc;
            int go = on_event(x, w, ev, &pc, &mask);
            if (go < 0)
                return EV_ERROR;
            if (ev == EV_BRANCH && x->branch_taken && x->branch_target <= from &&
                ++x->back_branches >= YIELD_BRANCHES) {
                /* A long loop lets the block's other warps run: one may be waiting for a
                 * flag this warp sets, or this warp for theirs (multi-warp tiles, spin locks).
                 * A diverged warp's lanes are parked already; a converged one keeps its pc. */
                x->back_branches = 0;
                if (go)
                    w->pc = pc;
                return EV_NONE;
            }
            if (!go)
                goto next_group;
        }
        /* Reached the next group's pc: park here, and the next pick merges the two. */
        park(w, mask, pc);
        try_converge(w);
    next_group:;
    }
    return EV_NONE;
}

/* ---- barriers ------------------------------------------------------------------------------- */

/* Lane @p l of @p w leaves barrier @p b: if it waited at a bar.red, its result (the count of
 * true predicates for .popc, all true for .and, any true for .or) goes to its register. */
static void bar_red_result(const struct exec *x, struct warp *w, int l, int b)
{
    uint32_t pc = (w->diverged ? w->lane_pc[l] : w->pc) - 1;
    const struct insn *in = &x->code[pc];
    if (in->op != OP_BAR_SYNC || in->width != 2)
        return;
    uint8_t *regs = w->arena + x->fbase[x->mod->func_at[pc]];
    uint32_t op = in->mod & 15, bit = 1u << l;
    if (op == 0) {
        ((uint32_t *)(regs + in->o[2]))[l] = x->bar_true[b];
        return;
    }
    int v = op == 1 ? !x->bar_false[b] : x->bar_true[b] != 0;
    uint32_t *d = (uint32_t *)(regs + in->o[2]);
    *d = v ? *d | bit : *d & ~bit;
}

/* Release the lanes @p at of @p w from barrier @p b. A converged warp's lanes all left the
 * same instruction: a plain bar.sync needs no result, so the lanes need no visit. */
static void release(const struct exec *x, struct warp *w, uint32_t at, int b)
{
    if (!at)
        return;
    w->waiting &= ~at;
    const struct insn *in = &x->code[w->pc - 1];
    if (!w->diverged && (in->op != OP_BAR_SYNC || in->width != 2))
        return;
    for (; at; at &= at - 1)
        bar_red_result(x, w, __builtin_ctz(at), b);
}

/* Open every barrier that all the threads it waits for have reached. Returns how many lanes
 * were released; 0 with lanes still waiting is a deadlock. */
static uint32_t open_barriers(struct exec *x, struct warp *warps, uint32_t nwarps)
{
    uint32_t arrived[16] = {0}, live = 0, released = 0;
    for (uint32_t i = 0; i < nwarps; i++) {
        live += (uint32_t)__builtin_popcount(warps[i].live);
        for (uint32_t m = warps[i].waiting; m;) { /* once per barrier the warp's lanes wait at */
            uint32_t b = warps[i].bar_id[__builtin_ctz(m)], at = vm_lanes_at(&warps[i], b);
            if (b != WARP_SYNC_WAIT) /* those wait for their own warp, not for the block */
                arrived[b & 15] += (uint32_t)__builtin_popcount(at);
            m &= ~at;
        }
    }
    for (int b = 0; b < 16; b++) {
        uint32_t want = x->bar_count[b] ? x->bar_count[b] : live;
        if (!arrived[b] || arrived[b] + x->bar_nowait[b] < want)
            continue;
        int all = !x->bar_count[b] || want >= x->nthreads; /* the block, or some of its warps */
        for (uint32_t i = 0; i < nwarps; i++) {
            struct warp *w = &warps[i];
            uint32_t at = w->waiting ? vm_lanes_at(w, (uint32_t)b) : 0;
            release(x, w, at, b);
            if (at && x->launch->checks)
                check_barrier_pass(x, w->index, (uint32_t)b);
            released += (uint32_t)__builtin_popcount(at);
            try_converge(w);
        }
        x->bar_count[b] = 0;
        x->bar_nowait[b] = 0;
        x->bar_true[b] = x->bar_false[b] = 0;
        if (x->launch->checks)
            check_barrier_open(x, (uint32_t)b, all);
    }
    return released;
}

/* A message for a block stuck at barriers: how many threads wait at each, for how many. */
static void deadlock(struct exec *x, struct warp *warps, uint32_t nwarps)
{
    uint32_t live = 0, waiting = 0, at[16] = {0};
    struct warp *w0 = NULL;
    int lane = 0;
    for (uint32_t i = 0; i < nwarps; i++) {
        live += (uint32_t)__builtin_popcount(warps[i].live);
        waiting += (uint32_t)__builtin_popcount(warps[i].waiting);
        for (uint32_t m = warps[i].waiting; m; m &= m - 1)
            at[warps[i].bar_id[__builtin_ctz(m)] & 15]++;
        if (warps[i].waiting && !w0) {
            w0 = &warps[i];
            lane = __builtin_ctz(warps[i].waiting);
        }
    }
    char each[200] = "";
    size_t n = 0;
    for (int b = 0; b < 16 && n < sizeof each; b++)
        if (at[b])
            n +=
                (size_t)snprintf(each + n, sizeof each - n, "%sbarrier %d: %u of %u", n ? ", " : "",
                                 b, at[b], x->bar_count[b] ? x->bar_count[b] : live);
    uint32_t pc = w0 && w0->diverged ? w0->lane_pc[lane] : w0 ? w0->pc : x->fn->first + 1;
    vm_fail(x, w0, &x->code[pc - 1], lane, VM_DEADLOCK,
            "deadlock: %u of the block's %u live threads wait at barriers that cannot open (%s)",
            waiting, live, each);
}

/* ---- spinning forever ------------------------------------------------------------------------ */

/* Mix the @p n bytes at @p p into the fingerprint @p h. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (; n >= 8; n -= 8, b += 8) {
        uint64_t v;
        memcpy(&v, b, 8);
        h = (h ^ v) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    for (; n; n--, b++)
        h = (h ^ *b) * 0x100000001B3ull;
    return h;
}

/*
 * The block's whole state but global memory: every warp's registers, local frames, call
 * parameters, pcs and masks, the shared memory and the barriers, with the count of writes to
 * memory. The schedule depends on nothing else, so a round of the block that ends where the
 * last one ended, having written nothing, will repeat itself forever.
 */
static uint64_t fingerprint(const struct exec *x, const struct warp *warps, uint32_t nwarps)
{
    uint64_t h = mix(0xCBF29CE484222325ull, warps[0].arena, nwarps * x->warp_bytes);
    for (uint32_t i = 0; i < nwarps; i++) {
        const struct warp *w = &warps[i];
        uint32_t scalars[4] = {w->pc, w->live, w->waiting, w->diverged};
        h = mix(h, scalars, sizeof scalars);
        h = mix(h, w->bar_id, sizeof w->bar_id);
        h = mix(h, w->lane_pc, sizeof w->lane_pc);
        h = mix(h, w->depth, sizeof w->depth);
        h = mix(h, w->ret_pc, sizeof w->ret_pc);
        h = mix(h, w->ret_dst, sizeof w->ret_dst);
    }
    h = mix(h, x->smem, x->smem_bytes);
    h = mix(h, x->bar_count, sizeof x->bar_count);
    h = mix(h, x->bar_nowait, sizeof x->bar_nowait);
    h = mix(h, x->bar_true, sizeof x->bar_true);
    h = mix(h, x->bar_false, sizeof x->bar_false);
    uint64_t counts[2] = {x->writes, x->back_branches};
    return mix(h, counts, sizeof counts) | 1; /* never 0, which means "none yet" */
}

/* The grid's count of rounds that wrote memory, as a round of the block begins. */
static uint64_t round_begin(const struct exec *x);

/* The block moved (or ended): it is not stalled. */
static void round_moved(struct exec *x);

/* End a round that wrote memory (@p writes: x->writes when it began): a stalled block may move. */
static void round_wrote(struct exec *x, uint64_t writes);

/* 1 when no block of the grid can ever move again (exec.c's grid below): @p e0 is the grid's
 * count of rounds that wrote when this block's last round began. */
static int grid_stuck(struct exec *x, uint64_t e0);

/* 1 when blocks of the launch are still to start (exec.c's grid below). */
static int blocks_left(const struct exec *x);

static void spin_deadlock(struct exec *x);

/*
 * After a round in which warps yielded and no barrier opened, begun when the grid had seen @p e0
 * writing rounds: 1 (and the launch failed) when the block is where it was at the end of its
 * last such round, having written nothing, and so is every other running block, with no round
 * anywhere having written since they all began theirs, and no block left that could start.
 * Their loops wait for memory no running thread will write: a wait on a block that never
 * starts (a look-back in the wrong direction on one thread) is a deadlock here, never a hang.
 * While any other block may still move, the block gives up the core instead: it may yet be
 * released, whichever block it waits for and however the host's threads are scheduled.
 */
static int spins_forever(struct exec *x, uint64_t e0)
{
    uint64_t h = fingerprint(x, x->warps, x->nwarps);
    if (h != x->spin_state) {
        x->spin_state = h;
        round_moved(x);
        return 0;
    }
    if (x->grid && !grid_stuck(x, e0)) {
        sched_yield();
        return 0;
    }
    if (x->ahead && blocks_left(x))
        return 2; /* a block not yet started may release it: the caller runs them beside it */
    spin_deadlock(x);
    return 1;
}

/* Fail the launch at the loop block @p x spins in, which nothing will ever release. */
static void spin_deadlock(struct exec *x)
{
    struct warp *w = x->warps;
    while (!(w->live & ~w->waiting))
        w++;
    int lane = __builtin_ctz(w->live & ~w->waiting);
    uint32_t pc = w->diverged ? w->lane_pc[lane] : w->pc;
    uint16_t op = x->code[pc].op;
    vm_fail(x, w, &x->code[pc], lane, VM_DEADLOCK, "deadlock: %s",
            op == OP_BAR_CLUSTER ? "barrier.cluster.wait waits for threads of the cluster that "
                                   "never arrive"
            : op == OP_WGMMA_WAIT
                ? "wgmma.wait_group waits for warps of its warpgroup that never issue the "
                  "wgmma.mma_async it covers"
            : x->cluster
                ? "a loop waits for memory that no thread of its cluster will change"
                : "a loop waits for memory that no running block will change (blocks start in "
                  "order, and a block waits beside at most a wave of the blocks after it, as "
                  "many as the GPU holds at once)");
}

/* ---- blocks and grids ----------------------------------------------------------------------- */

/* 1 when the kernel or a function it calls (x->fbase planned) reads %reserved_smem_offset_*. */
static int asks_reserved_smem(const struct exec *x)
{
    for (uint32_t f = 0; f < x->mod->nfuncs; f++)
        for (int s = SR_RESERVED_BEGIN; s <= SR_RESERVED_1 && x->fbase[f] != NO_REG; s++)
            if (x->mod->funcs[f].special[s] != NO_REG)
                return 1;
    return 0;
}

/*
 * The block's shared memory as ptxas lays it out: the static variables, then the dynamic array
 * at the next multiple of its alignment, then (only when the kernel asks where it is) the part
 * CUDA reserves.
 */
static void layout_smem(struct exec *x)
{
    const struct func *fn = x->fn;
    uint32_t bytes = fn->smem_static, a = fn->smem_align;
    if (x->launch->dyn_smem)
        bytes = (bytes + a - 1) / a * a + x->launch->dyn_smem;
    x->reserved_smem = (bytes + 15) / 16 * 16;
    x->smem_bytes = asks_reserved_smem(x) ? x->reserved_smem + RESERVED_SMEM : bytes;
}

/* Lane values of the special registers that depend on the lane or the warp. */
static void fill_lane_specials(const struct exec *x, const struct func *fn, struct warp *w)
{
    const uint32_t *sp = fn->special;
    for (int l = 0; l < 32; l++) {
        uint32_t tid[3];
        vm_thread_of(x, w, l, tid);
        uint32_t v[SR_COUNT] = {0};
        v[SR_TID_X] = tid[0], v[SR_TID_Y] = tid[1], v[SR_TID_Z] = tid[2];
        v[SR_LANEID] = (uint32_t)l;
        v[SR_WARPID] = w->index;
        v[SR_LANEMASK_EQ] = 1u << l;
        v[SR_LANEMASK_LT] = (1u << l) - 1;
        v[SR_LANEMASK_LE] = (uint32_t)((2ull << l) - 1);
        v[SR_LANEMASK_GT] = ~v[SR_LANEMASK_LE];
        v[SR_LANEMASK_GE] = ~v[SR_LANEMASK_LT];
        for (int s = 0; s < SR_COUNT; s++)
            if (sp[s] != NO_REG && (s <= SR_TID_Z || (s >= SR_LANEID && s <= SR_WARPID) ||
                                    (s >= SR_LANEMASK_EQ && s <= SR_LANEMASK_GE)))
                R32(w, sp[s])[l] = v[s];
    }
}

/* The uniform specials (sizes, block index) into every lane of @p w. */
static void fill_uniform_specials(const struct exec *x, const struct func *fn, struct warp *w)
{
    const struct vm_launch *L = x->launch;
    const uint32_t *sp = fn->special;
    uint32_t v[SR_COUNT] = {0};
    for (int i = 0; i < 3; i++) {
        v[SR_NTID_X + i] = L->block[i];
        v[SR_CTAID_X + i] = x->ctaid[i];
        v[SR_NCTAID_X + i] = L->grid[i];
    }
    v[SR_NWARPID] = 64;
    v[SR_NSMID] = SMS;
    v[SR_SMID] = (x->ctaid[0] + x->ctaid[1] * L->grid[0]) % SMS;
    v[SR_DYN_SMEM] = L->dyn_smem;
    v[SR_TOTAL_SMEM] = x->smem_bytes;
    v[SR_RESERVED_BEGIN] = v[SR_RESERVED_0] = x->reserved_smem;
    v[SR_RESERVED_END] = x->reserved_smem + RESERVED_SMEM;
    v[SR_RESERVED_CAP] = RESERVED_SMEM;
    v[SR_RESERVED_1] = x->reserved_smem + RESERVED_SMEM / 2;
    uint64_t ws = L->cooperative ? x->mod->grid_ws : 0;
    v[SR_ENVREG1] = (uint32_t)(ws >> 32);
    v[SR_ENVREG2] = (uint32_t)ws;
    vm_cluster_specials(x, v);
    for (int s = SR_NTID_X; s < SR_COUNT; s++)
        if (s == SR_IS_EXPLICIT_CLUSTER && sp[s] != NO_REG)
            PRED(w, sp[s]) = v[s];
        else if (sp[s] != NO_REG && !(s >= SR_LANEID && s <= SR_WARPID) &&
                 !(s >= SR_LANEMASK_EQ && s <= SR_LANEMASK_GE))
            for (int l = 0; l < 32; l++)
                R32(w, sp[s])[l] = v[s];
}

static void fill_presets(const struct exec *x, const struct func *fn, struct warp *w)
{
    (void)x;
    for (uint32_t i = 0; i < fn->npresets; i++) {
        const struct preset *p = &fn->presets[i];
        if (p->bytes == SLOT_64)
            for (int l = 0; l < 32; l++)
                R64(w, p->off)[l] = p->value;
        else if (p->bytes == SLOT_32)
            for (int l = 0; l < 32; l++)
                R32(w, p->off)[l] = (uint32_t)p->value;
        else
            PRED(w, p->off) = (uint32_t)p->value;
    }
}

/* Call @p fill for every function the kernel can reach, in its part of the arena. */
static void each_function(const struct exec *x, struct warp *w,
                          void (*fill)(const struct exec *x, const struct func *fn, struct warp *w))
{
    for (uint32_t f = 0; f < x->mod->nfuncs; f++)
        if (x->fbase[f] != NO_REG) {
            use_frame(x, w, f);
            fill(x, &x->mod->funcs[f], w);
        }
}

/* A 64-bit mix of @p v (splitmix64's finaliser). */
static uint64_t scramble(uint64_t v)
{
    v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
    v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
    return v ^ (v >> 31);
}

/* The order the block's warps take their turns in this round: forward, reverse, or a
 * permutation drawn from the seed and the block alone, so that it is the same on any thread. */
static void round_order(struct exec *x, uint32_t *order)
{
    uint32_t n = x->nwarps;
    unsigned sched = x->launch->schedule;
    for (uint32_t i = 0; i < n; i++)
        order[i] = sched == VM_SCHEDULE_REVERSE ? n - 1 - i : i;
    if (sched != VM_SCHEDULE_SEEDED)
        return;
    for (uint32_t i = n - 1; i > 0 && i < n; i--) { /* Fisher-Yates */
        x->rng = scramble(x->rng + 0x9E3779B97F4A7C15ull);
        uint32_t j = (uint32_t)(x->rng % (i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* Prepare block x->block (at x->ctaid) to run: warps at the kernel's first instruction. */
static void block_start(struct exec *x)
{
    uint32_t nthreads = x->nthreads;
    /* Shared and local memory start as 0xFF bytes (NaN, -1): a read of something never
     * written shows. */
    memset(x->smem, 0xFF, x->smem_bytes);
    if (x->cnt)
        count_block(x);
    for (uint32_t i = 0; i < x->nwarps; i++) {
        struct warp *w = &x->warps[i];
        uint32_t lanes = nthreads - 32 * i;
        w->live = lanes >= 32 ? FULL_MASK : (1u << lanes) - 1;
        w->waiting = 0;
        w->diverged = 0;
        w->carry = 0;
        w->pc = x->fn->first;
        memset(w->depth, 0, sizeof w->depth);
        memset(w->stack_used, 0, sizeof w->stack_used);
        memset(w->stack_charged, 0, sizeof w->stack_charged);
        memset(w->stack_levels, 0, sizeof w->stack_levels);
        memset(w->cdp_error, 0, sizeof w->cdp_error);
        vm_async_reset(w);
        each_function(x, w, fill_uniform_specials);
        if (x->local_frame)
            memset(w->local, 0xFF, 32 * (size_t)x->local_frame);
    }
    memset(x->bar_count, 0, sizeof x->bar_count);
    memset(x->bar_nowait, 0, sizeof x->bar_nowait);
    memset(x->bar_true, 0, sizeof x->bar_true);
    memset(x->bar_false, 0, sizeof x->bar_false);
    x->spin_state = 0;
    x->rng = scramble(x->launch->seed ^ scramble(x->block));
    if (x->launch->checks)
        check_block(x);
    if (x->hop)
        vm_hopper_block_start(x);
}

/*
 * Run the block's warps in rounds until it ends (1) or fails (-1). A block @p resident among
 * others (a cooperative launch's) also returns 0 after a round in which warps yielded in a loop,
 * with x->stalled set when it is where it was when it last yielded: the others run meanwhile.
 * One that may run beside later blocks (x->ahead) returns 2 when only they can release it.
 */
static int block_run(struct exec *x, int resident)
{
    struct warp *warps = x->warps;
    uint32_t nwarps = x->nwarps, order[32];
    for (;;) {
        int any = 0;
        uint64_t e0 = round_begin(x), writes = x->writes;
        round_order(x, order);
        for (uint32_t n = 0; n < nwarps; n++) {
            struct warp *w = &warps[order[n]];
            if (!(w->live & ~w->waiting))
                continue;
            any = 1;
            if (run_warp(x, w) == EV_ERROR)
                return -1;
        }
        round_wrote(x, writes);
        uint32_t waiting = 0, running = 0;
        for (uint32_t i = 0; i < nwarps; i++) {
            waiting |= warps[i].waiting;
            running |= warps[i].live & ~warps[i].waiting; /* a warp that yielded */
        }
        if (!waiting && !running) {
            round_moved(x);
            return 1;
        }
        uint32_t opened = open_barriers(x, warps, nwarps);
        if (!opened && !any) {
            deadlock(x, warps, nwarps);
            return -1;
        }
        if (opened || !running) {
            round_moved(x);
            continue;
        }
        if (resident) {
            uint64_t h = fingerprint(x, warps, nwarps);
            x->stalled = h == x->spin_state;
            x->spin_state = h;
            return 0;
        }
        int s = spins_forever(x, e0);
        if (s)
            return s == 1 ? -1 : 2;
    }
}

/* Block number @p b of the launch, in launch order (x fastest; in a cluster launch, cluster after
 * cluster), into x->block and x->ctaid. */
static void place_block(struct exec *x, uint64_t b)
{
    const uint32_t *g = x->launch->grid;
    x->block = b;
    if (x->cluster) {
        vm_cluster_place(g, x->cluster->dims, b, x->ctaid);
        return;
    }
    x->ctaid[0] = (uint32_t)(b % g[0]);
    x->ctaid[1] = (uint32_t)(b / g[0] % g[1]);
    x->ctaid[2] = (uint32_t)(b / ((uint64_t)g[0] * g[1]));
}

/* The launch's configuration checks; fills the result and returns VM_BAD_LAUNCH. */
static enum vm_status check_launch(const struct vm_launch *L, const struct func *fn,
                                   struct vm_result *r)
{
    uint64_t threads = (uint64_t)L->block[0] * L->block[1] * L->block[2];
    uint64_t smem = (uint64_t)fn->smem_static + L->dyn_smem;
    const char *why = NULL;
    char buf[200];
    if (!threads || !L->grid[0] || !L->grid[1] || !L->grid[2])
        why = "a grid or block dimension is 0";
    else if (threads > 1024 || L->block[2] > 64)
        why = "more than 1024 threads per block (or blockDim.z > 64)";
    else if (L->grid[1] > 65535 || L->grid[2] > 65535 || L->grid[0] > 0x7FFFFFFFu)
        why = "the grid is larger than gridDim allows";
    else if (fn->info.maxntid && threads > fn->info.maxntid)
        why = "more threads per block than the kernel's __launch_bounds__";
    else if (smem > L->smem_limit) {
        snprintf(buf, sizeof buf,
                 "%llu bytes of shared memory per block, over the limit of %u (dynamic shared "
                 "memory above 48 KiB needs cudaFuncSetAttribute)",
                 (unsigned long long)smem, L->smem_limit);
        why = buf;
    } else {
        why = vm_cluster_check(L, fn, buf, sizeof buf);
    }
    if (!why)
        return VM_OK;
    snprintf(r->message, sizeof r->message, "invalid launch of %s: %s", fn->info.name, why);
    r->status = VM_BAD_LAUNCH;
    return VM_BAD_LAUNCH;
}

/* Depth first from @p root: each function is placed in the arena (x->fbase, @p arena) when the
 * last of its callees is; @p state: 0 unseen, 1 on the stack, 2 placed. Returns 1 when a
 * function reached makes an indirect call. */
static int place_calls(struct exec *x, uint32_t *fbase, uint8_t *state, uint32_t *next_pc,
                       uint32_t root, uint32_t *arena)
{
    const struct vm_module *m = x->mod;
    uint32_t stack[CALL_DEPTH + 1], depth = 0;
    int indirect = 0;
    stack[depth++] = root;
    state[root] = 1;
    while (depth) {
        uint32_t f = stack[depth - 1];
        const struct func *fn = &m->funcs[f];
        uint32_t pc = fn->first + next_pc[f];
        if (next_pc[f] < fn->count) {
            next_pc[f]++;
            indirect |= m->code[pc].op == OP_CALL_IND;
            if (m->code[pc].op != OP_CALL)
                continue;
            uint32_t g = (uint32_t)m->code[pc].imm;
            x->recursive |= state[g] == 1;
            if (depth > CALL_DEPTH) {
                vm_fail(x, NULL, &m->code[pc], 0, VM_UNSUPPORTED,
                        "device functions nested more than %d deep", CALL_DEPTH);
                break;
            }
            if (state[g] == 0) {
                state[g] = 1;
                stack[depth++] = g;
            }
            continue;
        }
        fbase[f] = *arena;
        *arena += fn->arena_bytes;
        state[f] = 2;
        depth--;
    }
    return indirect;
}

/*
 * Lay out the registers of the kernel and of every device function it can call in one arena:
 * x->fbase[f] for each function reached, NO_REG for the rest. Returns the arena's size; sets
 * x->recursive when a function calls one of its callers (or itself), or makes an indirect call
 * (every device function is then reached); fails the launch on other call chains nested deeper
 * than CALL_DEPTH.
 */
static uint32_t plan_frames(struct exec *x, uint32_t *fbase)
{
    const struct vm_module *m = x->mod;
    uint32_t arena = 0;
    uint8_t *state = emu_calloc(m->nfuncs, 1);
    uint32_t *next_pc = emu_calloc(m->nfuncs, sizeof *next_pc);
    for (uint32_t f = 0; f < m->nfuncs; f++)
        fbase[f] = NO_REG;
    int indirect = place_calls(x, fbase, state, next_pc, (uint32_t)(x->fn - m->funcs), &arena);
    x->recursive |= indirect;
    for (uint32_t g = 0; indirect && g < m->nfuncs && x->result->status == VM_OK; g++)
        if (!state[g] && !m->funcs[g].is_entry)
            place_calls(x, fbase, state, next_pc, g, &arena);
    free(state);
    free(next_pc);
    return arena ? arena : 64;
}

/* The warps of one block, with their arenas and local frames, ready for any block: x->warps,
 * x->nwarps, x->arena, and the block's shared memory x->smem. */
static void make_warps(struct exec *x, uint32_t nwarps, uint32_t per)
{
    size_t local = 32 * (size_t)x->local_frame, callp = 32 * (size_t)x->mod->call_total;
    size_t each = per + local + callp;
    x->warp_bytes = each;
    x->nwarps = nwarps;
    x->warps = emu_calloc(nwarps, sizeof *x->warps);
    x->arena = emu_aligned_alloc(64, nwarps * each + 64);
    x->smem = emu_malloc(x->smem_bytes ? x->smem_bytes : 1);
    memset(x->arena, 0, nwarps * each);
    for (uint32_t i = 0; i < nwarps; i++) {
        struct warp *w = &x->warps[i];
        w->arena = x->arena + i * each;
        w->local = w->arena + per;
        w->call_params = w->local + local;
        w->index = i;
        each_function(x, w, fill_presets);
        each_function(x, w, fill_lane_specials);
    }
    vm_hopper_make(x);
}

static void free_warps(struct exec *x)
{
    vm_hopper_free(x);
    for (uint32_t i = 0; i < x->nwarps; i++) {
        for (int l = 0; l < 32; l++)
            free(x->warps[i].stack[l]);
        vm_async_free(&x->warps[i]);
    }
    free(x->smem);
    free(x->arena);
    free(x->warps);
}

/* ---- threads and resident blocks --------------------------------------------------------------
 *
 * A launch runs its blocks one at a time on one thread (the plan x itself), or on several
 * contexts at once: a copy of the plan with warps, shared memory, counters and a result of its
 * own, one per thread (blocks handed out in launch order) or one per block (a cooperative
 * launch, every block resident, taking turns on one thread). Counters and findings add up in
 * the plan at the end; a failure is the one of the lowest block that failed.
 */

/* What the contexts of one launch share. */
struct grid {
    pthread_mutex_t lock;    /* handing out blocks */
    pthread_mutex_t atomics; /* global atomics (vm_atomics_lock()) */
    uint64_t nblocks;
    uint64_t next;     /* the next block to start (under lock) */
    uint64_t failed;   /* the lowest block that failed (nblocks: none; under lock) */
    uint64_t *running; /* each thread's block (UINT64_MAX: none), set under lock */
    uint32_t nthreads;
    uint32_t up;       /* the threads started (0 until all are: atomic) */
    uint64_t epoch;    /* rounds, of any block, that wrote memory (atomic) */
    uint64_t *stalled; /* each thread's epoch when its block's round began, set when the round
                          ended where the last ended (UINT64_MAX: moving; atomic) */
};

static uint64_t round_begin(const struct exec *x)
{
    return x->grid ? __atomic_load_n(&x->grid->epoch, __ATOMIC_ACQUIRE) : 0;
}

static void round_moved(struct exec *x)
{
    if (x->grid)
        __atomic_store_n(&x->grid->stalled[x->worker], UINT64_MAX, __ATOMIC_RELEASE);
}

static void round_wrote(struct exec *x, uint64_t writes)
{
    if (x->grid && x->writes != writes)
        __atomic_add_fetch(&x->grid->epoch, 1, __ATOMIC_RELEASE);
}

/*
 * Every running block's last round began after the grid's last writing round, wrote nothing
 * and ended where its previous round ended (so it repeats while memory stays as it is), and no
 * block is left to start on a free thread: nothing will ever write again. Taken under the lock
 * that hands out blocks, so no block starts meanwhile.
 */
static int grid_stuck(struct exec *x, uint64_t e0)
{
    struct grid *g = x->grid;
    if (__atomic_load_n(&g->epoch, __ATOMIC_ACQUIRE) != e0)
        return 0;
    __atomic_store_n(&g->stalled[x->worker], e0, __ATOMIC_RELEASE);
    pthread_mutex_lock(&g->lock);
    uint32_t busy = 0, up = __atomic_load_n(&g->up, __ATOMIC_ACQUIRE);
    int stuck = up != 0;
    for (uint32_t t = 0; t < g->nthreads && stuck; t++) {
        if (g->running[t] == UINT64_MAX)
            continue;
        busy++;
        stuck = __atomic_load_n(&g->stalled[t], __ATOMIC_ACQUIRE) == e0;
    }
    stuck = stuck && __atomic_load_n(&g->epoch, __ATOMIC_ACQUIRE) == e0 &&
            (busy == up || g->next >= g->nblocks || g->next >= g->failed);
    pthread_mutex_unlock(&g->lock);
    return stuck;
}

/* A context for plan @p x: its own warps, shared memory, counters and result @p r. With the time
 * model on, only the context that @p follows feeds it, counting into the plan's counters, which
 * the model reads as they grow (run_resident()); the others count nothing. */
static void context_open(struct exec *c, const struct exec *x, struct grid *g, struct vm_result *r,
                         uint32_t per, int follows)
{
    *c = *x;
    memset(r, 0, sizeof *r);
    c->result = r;
    c->model = follows ? x->model : NULL;
    c->cnt = follows ? x->cnt : x->cnt && !x->model ? &r->counters : NULL;
    c->count_state = follows ? x->count_state : NULL;
    c->grid = g;
    make_warps(c, x->nwarps, per);
    if (!follows)
        count_begin(c);
    if (x->launch->checks)
        check_begin(c);
}

/* Fold context @p c into plan @p x (its failure only if it is the grid's first) and free it. */
static void context_close(struct exec *x, struct exec *c)
{
    struct vm_result *r = x->result, *cr = c->result;
    if (cr->status != VM_OK && c->block == c->grid->failed && r->status == VM_OK) {
        r->status = cr->status;
        memcpy(r->message, cr->message, sizeof r->message);
    }
    if (c->cnt != x->cnt) /* a context that follows counted into the plan's counters */
        count_merge(x, c);
    if (x->launch->checks)
        check_end(c);
    if (x->launch->prov)
        prov_end(c);
    r->reports += cr->reports;
    vm_prov_merge(&r->prov, &cr->prov);
    free_warps(c);
}

/* Mark block @p b failed; the contexts stop taking blocks after it. */
static void grid_failed(struct grid *g, uint64_t b)
{
    pthread_mutex_lock(&g->lock);
    if (b < g->failed)
        g->failed = b;
    pthread_mutex_unlock(&g->lock);
}

/* The next block in launch order from @p x's queue, or UINT64_MAX when none is left (or one
 * failed before it). A block taken is the thread's, and the thread moves: grid_stuck() counts no
 * stall of its from before. None taken leaves the thread running what it runs (the blocks it
 * runs beside one another, run_beside()) until it leaves the grid (leave_grid()). */
static uint64_t take_block(const struct exec *x)
{
    struct grid *g = x->queue;
    if (x->grid)
        pthread_mutex_lock(&g->lock);
    uint64_t b = g->next < g->nblocks && g->next < g->failed ? g->next++ : UINT64_MAX;
    if (x->grid) {
        if (b != UINT64_MAX) {
            __atomic_store_n(&g->running[x->worker], b, __ATOMIC_RELEASE);
            __atomic_store_n(&g->stalled[x->worker], UINT64_MAX, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&g->lock);
    }
    return b;
}

/* Thread @p x runs no block of the grid any more: grid_stuck() leaves it out. */
static void leave_grid(const struct exec *x)
{
    pthread_mutex_lock(&x->grid->lock);
    __atomic_store_n(&x->grid->running[x->worker], UINT64_MAX, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&x->grid->lock);
}

static int blocks_left(const struct exec *x)
{
    struct grid *g = x->queue;
    if (!g)
        return 0;
    if (x->grid)
        pthread_mutex_lock(&g->lock);
    int left = g->next < g->nblocks && g->next < g->failed;
    if (x->grid)
        pthread_mutex_unlock(&g->lock);
    return left;
}

/* How many blocks of the launch one GPU holds at once (registers aside): each SM's share by
 * threads, shared memory and its block limit, on every SM. */
static uint32_t wave_blocks(const struct exec *x)
{
    uint32_t warps = (x->nthreads + 31) / 32, by_threads = SM_THREADS / (32 * (warps ? warps : 1));
    uint32_t by_smem = SM_SMEM / (x->smem_bytes + BLOCK_SMEM_RESERVED), per = SM_BLOCKS;
    per = by_threads < per ? by_threads : per;
    per = by_smem < per ? by_smem : per;
    return SMS * (per ? per : 1);
}

/* A slot of @p c (@p n made, room for @p cap) for one more block: an ended block's, or a new
 * one while fewer than @p cap blocks are running (@p live); -1 when the wave is full. */
static int free_slot(const int *ended, uint32_t n, uint32_t cap, uint32_t live)
{
    if (live >= cap)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (ended[i])
            return (int)i;
    return n < cap ? (int)n : -1;
}

/*
 * Block x->block waits in a loop for memory only a block not yet started will write (a stream-K
 * tile's partial sums, a persistent kernel's work queue): on a GPU the blocks of a wave are
 * resident together, so here it takes turns with the blocks after it, on this thread, as many
 * more started as the wave holds each time every running one is stalled, until all of them end;
 * then the caller goes on with the next block. At most a wave of blocks run at once
 * (wave_blocks()), a block that ends making room for the next, as on a GPU: a block that waits for
 * one past them, or for one that never writes, is a deadlock, reported at its loop. Returns 1 when
 * they ended, -1 when one failed (its failure, naming its block, in x's result: the launch fails at
 * x's block).
 */
static int run_beside(struct exec *x)
{
    uint32_t cap = wave_blocks(x), n = 0, live = 1;
    uint32_t per = (uint32_t)(x->warp_bytes - 32 * (size_t)x->local_frame -
                              32 * (size_t)x->mod->call_total); /* make_warps()' registers */
    struct exec *c = emu_calloc(cap, sizeof *c);
    struct vm_result *r = emu_calloc(cap, sizeof *r);
    int *ended = emu_calloc(cap + 1, sizeof *ended), failed = 0; /* ended[cap]: x's block */
    while (!failed && live) {
        int moved = 0;
        uint64_t e0 = round_begin(x);
        for (uint32_t i = 0; i <= n && !failed; i++) {
            struct exec *b = i < n ? &c[i] : x;
            int *e = i < n ? &ended[i] : &ended[cap];
            if (*e)
                continue;
            int st = block_run(b, 1);
            if (x->launch->prov)
                prov_end(b); /* its stores' values, before another block reads them */
            failed = st < 0 ? (int)i + 1 : 0;
            *e = st > 0, live -= st > 0, moved |= st > 0 || !b->stalled;
        }
        int started = 0, slot;
        uint64_t next;
        while (!moved && !failed && (slot = free_slot(ended, n, cap, live)) >= 0 &&
               (next = take_block(x)) != UINT64_MAX) { /* the wave fills up at once */
            if ((uint32_t)slot == n)
                context_open(&c[n++], x, x->grid, &r[slot], per, 0);
            place_block(&c[slot], next);
            block_start(&c[slot]);
            ended[slot] = 0, live++, started = 1;
        }
        if (!moved && !failed && live && !started && x->grid && !grid_stuck(x, e0)) {
            sched_yield(); /* another thread's block may yet release one of these */
        } else if (!moved && !failed && live && !started) {
            uint32_t i = 0;
            while (i < n && ended[i])
                i++;
            spin_deadlock(ended[cap] ? &c[i] : x); /* a block still waiting */
            failed = ended[cap] ? (int)i + 1 : (int)n + 1;
        }
    }
    if (failed && failed <= (int)n && x->result->status == VM_OK) { /* x's block stands for it */
        x->result->status = r[failed - 1].status;
        memcpy(x->result->message, r[failed - 1].message, sizeof x->result->message);
    }
    struct grid g = {.failed = UINT64_MAX}; /* the failure is x's now */
    for (uint32_t i = 0; i < n; i++) {
        c[i].grid = &g;
        context_close(x, &c[i]);
    }
    free(ended);
    free(r);
    free(c);
    return failed ? -1 : 1;
}

/* One thread: take the next block in launch order and run it, until none is left. */
static void *worker(void *arg)
{
    struct exec *c = arg;
    struct grid *g = c->grid;
    for (;;) {
        uint64_t b = take_block(c);
        if (b == UINT64_MAX) {
            leave_grid(c);
            return NULL;
        }
        place_block(c, b);
        block_start(c);
        int st = block_run(c, 0);
        if (st == 2)
            st = run_beside(c);
        if (st < 0) {
            grid_failed(g, b);
            leave_grid(c);
            return NULL;
        }
    }
}

/* Run plan @p x's @p nblocks blocks on @p nthreads threads. */
static void run_threads(struct exec *x, uint64_t nblocks, uint32_t nthreads, uint32_t per)
{
    struct grid g = {.nblocks = nblocks, .failed = nblocks, .nthreads = nthreads};
    struct exec *c = emu_calloc(nthreads, sizeof *c);
    struct vm_result *r = emu_calloc(nthreads, sizeof *r);
    pthread_t *tid = emu_calloc(nthreads, sizeof *tid);
    g.running = emu_malloc(nthreads * sizeof *g.running);
    g.stalled = emu_malloc(nthreads * sizeof *g.stalled);
    pthread_mutex_init(&g.lock, NULL);
    pthread_mutex_init(&g.atomics, NULL);
    for (uint32_t t = 0; t < nthreads; t++) {
        g.running[t] = g.stalled[t] = UINT64_MAX;
        context_open(&c[t], x, &g, &r[t], per, 0);
        c[t].worker = t;
        c[t].atomics = &g.atomics;
        c[t].queue = &g;
        c[t].ahead = 1;
    }
    uint32_t started = 1;
    for (; started < nthreads; started++)
        if (pthread_create(&tid[started], NULL, worker, &c[started]))
            break; /* fewer threads: the ones started take every block */
    __atomic_store_n(&g.up, started, __ATOMIC_RELEASE);
    worker(&c[0]);
    for (uint32_t t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    for (uint32_t t = 0; t < nthreads; t++)
        context_close(x, &c[t]);
    pthread_mutex_destroy(&g.lock);
    pthread_mutex_destroy(&g.atomics);
    free(g.running);
    free(g.stalled);
    free(tid);
    free(r);
    free(c);
}

/* Run resident blocks c[0 .. n) in turns, each until it ends or yields in a loop, until all end
 * or one fails (g->failed then names it). When a whole pass finds every block where it yielded
 * last, having written nothing, none can ever move: a deadlock, reported at the first block's
 * loop. */
static void resident_turns(struct exec *x, struct exec *c, int *ended, uint32_t n, struct grid *g)
{
    for (uint32_t left = n; left && g->failed == g->nblocks;) {
        int moved = 0;
        for (uint32_t i = 0; i < n && g->failed == g->nblocks; i++) {
            if (ended[i])
                continue;
            int s = block_run(&c[i], 1);
            if (x->launch->prov)
                prov_end(&c[i]); /* its stores' values, before another block reads them */
            if (s < 0)
                g->failed = c[i].block;
            ended[i] = s > 0;
            left -= s > 0;
            moved |= s > 0 || !c[i].stalled;
        }
        for (uint32_t i = 0; !moved && left && i < n && g->failed == g->nblocks; i++)
            if (!ended[i] && spins_forever(&c[i], 0))
                g->failed = c[i].block;
    }
}

/*
 * Blocks that are resident together, as the GPU guarantees: every block of a cooperative launch
 * (@p group = @p nblocks), or the blocks of each thread-block cluster in turn (@p group = the
 * cluster's). With cluster dimensions @p dims (NULL: none), each run of that many consecutive
 * blocks shares a cluster: distributed shared memory, barrier.cluster. They take turns on one
 * thread (resident_turns()), so that each may wait for the others (at a grid-wide barrier, say).
 * With the time model on, each group's first block feeds it and stands for the group: the
 * model follows one block at a time (model_resident()).
 */
static void run_resident(struct exec *x, uint64_t nblocks, uint32_t group, const uint32_t *dims,
                         uint32_t per)
{
    struct grid g = {.nblocks = nblocks, .failed = nblocks};
    struct exec *c = emu_calloc(group, sizeof *c);
    struct vm_result *r = emu_calloc(group, sizeof *r);
    int *ended = emu_calloc(group, sizeof *ended);
    uint32_t csize = dims ? dims[0] * dims[1] * dims[2] : 1, ncl = dims ? group / csize : 0;
    struct cluster **cl = emu_calloc(ncl + 1, sizeof *cl);
    for (uint32_t k = 0; k < ncl; k++)
        cl[k] = vm_cluster_new(dims, x->nthreads);
    if (x->model)
        model_resident(x->model, group);
    for (uint32_t i = 0; i < group; i++) {
        context_open(&c[i], x, &g, &r[i], per, x->model && i == 0);
        c[i].grid = NULL; /* one thread: no block waits for another thread's */
        c[i].cluster = dims ? cl[i / csize] : NULL;
        if (dims)
            cl[i / csize]->cta[i % csize] = &c[i];
    }
    for (uint64_t first = 0; first < nblocks && g.failed == nblocks; first += group) {
        for (uint32_t k = 0; k < ncl; k++)
            vm_cluster_reset(cl[k]);
        if (x->model && !model_block(x->model, x->smem_bytes, first))
            continue; /* the group is not in the time model's sample */
        for (uint32_t i = 0; i < group; i++) {
            place_block(&c[i], first + i);
            block_start(&c[i]);
            ended[i] = 0;
        }
        resident_turns(x, c, ended, group, &g);
    }
    for (uint32_t i = 0; i < group; i++) {
        c[i].grid = &g;
        context_close(x, &c[i]);
    }
    for (uint32_t k = 0; k < ncl; k++)
        vm_cluster_free(cl[k]);
    free(cl);
    free(ended);
    free(r);
    free(c);
}

uint32_t vm_threads(void)
{
    static uint32_t budget;
    if (__atomic_load_n(&budget, __ATOMIC_RELAXED))
        return budget;
    const char *env = getenv("COURSE_EMU_THREADS");
    long n = env && *env ? strtol(env, NULL, 10) : 0;
    cpu_set_t set;
    if (n <= 0)
        n = sched_getaffinity(0, sizeof set, &set) ? 1 : CPU_COUNT(&set);
    __atomic_store_n(&budget, (uint32_t)(n < 1 ? 1 : n > 256 ? 256 : n), __ATOMIC_RELAXED);
    return budget;
}

/* 1 when the kernel or a function it calls prints (printf, assert's message), uses the device
 * heap or launches kernels: its output, the addresses malloc returns and the order of its
 * child grids come in block order only when the blocks run in order. */
static int prints(const struct exec *x)
{
    for (uint32_t f = 0; f < x->mod->nfuncs; f++) {
        const struct func *fn = &x->mod->funcs[f];
        for (uint32_t pc = fn->first; x->fbase[f] != NO_REG && pc < fn->first + fn->count; pc++)
            if (x->code[pc].op == OP_VPRINTF || x->code[pc].op == OP_TRAP ||
                x->code[pc].op == OP_MALLOC || x->code[pc].op == OP_FREE ||
                x->code[pc].op == OP_CDP)
                return 1;
    }
    return 0;
}

/* How many threads the launch's blocks run on: one when their order shows (the counters: a
 * block spinning for another counts its loop; the checks and the grader's record; printf). */
static uint32_t threads_for(const struct exec *x, uint64_t nblocks)
{
    const struct vm_launch *L = x->launch;
    uint32_t n = vm_threads();
    if (n == 1 || nblocks < 2 || L->count || L->checks || L->prov || L->model || prints(x))
        return 1;
    return nblocks < n ? (uint32_t)nblocks : n;
}

/* Every block of plan @p x, one at a time, in order, on this thread (a block waiting for later
 * ones beside them: run_beside(), but not in the time model's sample, which skips blocks). */
static void run_in_order(struct exec *x, uint64_t nblocks)
{
    struct grid q = {.nblocks = nblocks, .failed = nblocks};
    x->queue = &q;
    x->ahead = !x->model;
    for (uint64_t b; x->result->status == VM_OK && (b = take_block(x)) != UINT64_MAX;) {
        if (x->model && !model_block(x->model, x->smem_bytes, b))
            continue; /* not in the time model's sample */
        place_block(x, b);
        block_start(x);
        if (block_run(x, 0) == 2)
            run_beside(x);
    }
    x->queue = NULL;
}

enum vm_status vm_exec_grid(const struct vm_launch *L, struct vm_result *r,
                            struct cdp_grid **queued)
{
    *queued = NULL;
    memset(r, 0, sizeof *r);
    const struct vm_module *mod = L->module;
    if (L->kernel >= mod->nkernels) {
        snprintf(r->message, sizeof r->message, "no kernel %u in %s", L->kernel, mod->origin);
        return r->status = VM_BAD_LAUNCH;
    }
    const struct func *fn = &mod->funcs[L->kernel];
    if (check_launch(L, fn, r) != VM_OK)
        return r->status;
    struct exec x = {.launch = L,
                     .mod = mod,
                     .fn = fn,
                     .code = mod->code,
                     .result = r,
                     .mem = L->mem,
                     .params = L->params};
    x.nthreads = L->block[0] * L->block[1] * L->block[2];
    x.local_frame = mod->local_total;
    x.stack_limit = L->stack_bytes ? L->stack_bytes : 1024;
    x.cnt = L->count ? &r->counters : NULL;
    x.model = L->model;
    uint32_t nwarps = (x.nthreads + 31) / 32;
    uint32_t *fbase = emu_malloc((mod->nfuncs ? mod->nfuncs : 1) * sizeof *fbase);
    x.fbase = fbase;
    uint32_t per = plan_frames(&x, fbase);
    if (r->status != VM_OK) {
        free(fbase);
        return r->status;
    }
    layout_smem(&x);
    if (L->cooperative && mod->grid_ws)
        memset(mem_host(L->mem, mod->grid_ws), 0, 8);
    uint64_t nblocks = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2];
    uint32_t threads = threads_for(&x, nblocks);
    make_warps(&x, nwarps, per);
    count_begin(&x);
    if (L->checks)
        check_begin(&x);
    uint32_t dims[3];
    vm_cluster_dims(L, fn, dims);
    uint32_t csize = dims[0] * dims[1] * dims[2];
    if (L->cooperative && nblocks > 1)
        run_resident(&x, nblocks, (uint32_t)nblocks, csize > 1 ? dims : NULL, per);
    else if (csize > 1)
        run_resident(&x, nblocks, csize, dims, per);
    else if (threads > 1)
        run_threads(&x, nblocks, threads, per);
    else
        run_in_order(&x, nblocks);
    count_end(&x);
    if (L->checks)
        check_end(&x);
    if (L->prov)
        prov_end(&x);
    free_warps(&x);
    free(fbase);
    *queued = x.cdp;
    return r->status;
}
