/**
 * @file ops_mbarrier.c
 * @brief mbarrier: the arrive-wait barrier object in shared memory that cuda::barrier,
 *        cooperative groups' arrive/wait and Hopper's TMA copies use (PTX ISA 9.0, 9.7.13.15).
 *
 * The ISA leaves the 64-bit object opaque; this emulator lays it out as: the arrivals still
 * pending in the current phase (bits 0-19), the count each phase starts with (bits 20-39), the
 * tx-count (bits 40-60, signed: the bytes of asynchronous transactions the phase still
 * expects, which a copy's completion may take below zero before its expect-tx), a mark that
 * mbarrier.init wrote it (bits 61-62 hold 01: shared memory starts as 0xFF bytes, so an arrive
 * on an object never initialised fails with one line instead of waiting forever) and the
 * current phase's parity (bit 63). A phase completes when its pending arrivals and its
 * tx-count are both zero: then the parity flips, the arrivals start again and the tx-count is
 * zero. An arrive returns a token: the phase it arrived in and the arrivals still pending after
 * it. A wait on a token is complete once the object's phase differs from the token's. A block's
 * warps run one at a time and a warp's lanes in lane order, so every update is atomic. A wait
 * that finds its phase incomplete lets the block's other warps run at the warp's next
 * backward branch (its retry loop), as a GPU's try_wait suspends the thread.
 * cp.async.mbarrier.arrive lands the thread's asynchronous copies (ops_async.c) and arrives for
 * them.
 *
 * The checks (racecheck, initcheck) do not see these accesses: they are synchronisation, as
 * atomics are. A completed phase that every thread of the block arrived at orders shared
 * accesses for racecheck as a bar.sync does; the async-proxy check (checks_async.c) counts every
 * object's completed phases and which of them each thread waited for.
 */
#include <stdio.h>
#include <string.h>

#include "bulk.h"
#include "checks.h"
#include "count.h"
#include "hopper.h"

#define MB_COUNT 0xFFFFFull /* a 20-bit count: pending (bits 0-19), expected (20-39) */
#define MB_TX_SHIFT 40      /* the tx-count, 21 bits two's complement */
#define MB_TX_MASK 0x1FFFFFull
#define MB_MARK (1ull << 61) /* bits 61-62 hold 01 */
#define MB_MARK_MASK (3ull << 61)
#define MB_PHASE (1ull << 63)
#define MB_TX_MAX ((1 << 20) - 1) /* the tx-count's range is -(2^20 - 1) to 2^20 - 1 */

static uint64_t pending_of(uint64_t v)
{
    return v & MB_COUNT;
}

static uint64_t expected_of(uint64_t v)
{
    return v >> 20 & MB_COUNT;
}

static int64_t tx_of(uint64_t v)
{
    int64_t t = (int64_t)(v >> MB_TX_SHIFT & MB_TX_MASK);
    return t >= 1 << 20 ? t - (1 << 21) : t;
}

/* The object with those fields. */
static uint64_t object(uint64_t phase, uint64_t expected, uint64_t pending, int64_t tx)
{
    return phase | MB_MARK | ((uint64_t)tx & MB_TX_MASK) << MB_TX_SHIFT | expected << 20 | pending;
}

/* The shared-memory offset of lane @p l's mbarrier operand of @p in. */
static uint64_t operand_of(const struct warp *w, const struct insn *in, int l)
{
    uint64_t a = in->o[0] == NO_REG            ? (uint64_t)in->imm
                 : (in->mod & ATOM_BASE32_BIT) ? (uint32_t)(R32(w, in->o[0])[l] + (uint32_t)in->imm)
                                               : R64(w, in->o[0])[l] + (uint64_t)in->imm;
    return ATOM_SPACE(in->mod) == SP_GENERIC ? a - SHARED_WINDOW : a;
}

/* The host address of the mbarrier object at shared address *@p a into *p, *@p a made its offset
 * in the shared memory of block *@p o: this one, or (a shared::cluster address, for an arrive)
 * another of the cluster. Else the launch fails. */
static enum event object_at(struct exec *x, struct warp *w, const struct insn *in, int l,
                            uint64_t *a, uint8_t **p, struct exec **o)
{
    uint8_t *smem;
    uint32_t bytes;
    if (vm_cluster_resolve(x, w, in, l, a, &smem, &bytes, o))
        return EV_ERROR;
    if (*a >= WINDOW_SIZE)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "an mbarrier object outside shared memory (it must be a __shared__ "
                       "variable)");
    if (*a % 8 || *a + 8 > bytes)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "an mbarrier object at shared offset %llu (it needs 8 bytes, 8-aligned, of "
                       "the block's %u bytes of shared memory)",
                       (unsigned long long)*a, bytes);
    *p = smem + *a;
    return EV_NONE;
}

/* The object at shared address *@p a into *v (object_at()'s *@p a and *@p o), or the launch
 * fails: it is not one mbarrier.init made. */
static enum event object_read(struct exec *x, struct warp *w, const struct insn *in, int l,
                              uint64_t *a, uint8_t **p, uint64_t *v, struct exec **o)
{
    enum event ev = object_at(x, w, in, l, a, p, o);
    if (ev != EV_NONE)
        return ev;
    memcpy(v, *p, 8);
    if ((*v & MB_MARK_MASK) != MB_MARK || !expected_of(*v) || pending_of(*v) > expected_of(*v))
        return vm_fail(x, w, in, l, VM_FAULT,
                       "an mbarrier object that mbarrier.init has not initialised (or that "
                       "mbarrier.inval made invalid)");
    return EV_NONE;
}

/* Block @p x stores @p v at @p p, completing its phase first when nothing is pending: the checks
 * of block @p o, whose object it is, at offset @p a, hear of a phase begun by @p arrivals
 * arrivals (racecheck). */
static void settle(struct exec *x, struct exec *o, uint8_t *p, uint64_t v, uint64_t a,
                   uint64_t arrivals)
{
    if (!pending_of(v) && !tx_of(v)) {
        if (o->launch->checks) {
            check_mbarrier_phase(o, arrivals);
            check_async_phase(o, a);
        }
        v = object((v & MB_PHASE) ^ MB_PHASE, expected_of(v), expected_of(v), 0);
    }
    memcpy(p, &v, 8);
    x->writes++;
}

enum event h_MBAR_INIT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *p = NULL;
        uint64_t a = operand_of(w, in, l);
        struct exec *o;
        enum event ev = object_at(x, w, in, l, &a, &p, &o);
        if (ev != EV_NONE)
            return ev;
        uint64_t count = in->o[2] == NO_REG ? 0 : R32(w, in->o[2])[l], v = 0;
        if (in->o[2] != NO_REG && (count < 1 || count > MB_COUNT))
            return vm_fail(x, w, in, l, VM_FAULT,
                           "mbarrier.init with a count of %llu (it must be 1 to 2^20 - 1)",
                           (unsigned long long)count);
        if (in->o[2] != NO_REG)
            v = object(0, count, count, 0);
        memcpy(p, &v, 8);
        x->writes++;
        if (x->launch->checks)
            check_async_init(o, a);
    }
    return EV_NONE;
}

/* Add @p delta to the tx-count of @p v, or the launch fails past its range. */
static enum event add_tx(struct exec *x, struct warp *w, const struct insn *in, int l, uint64_t *v,
                         int64_t delta)
{
    int64_t tx = tx_of(*v) + delta;
    if (tx > MB_TX_MAX || tx < -MB_TX_MAX)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "an mbarrier's tx-count would be %lld (its range is -(2^20 - 1) to "
                       "2^20 - 1 bytes)",
                       (long long)tx);
    *v = object(*v & MB_PHASE, expected_of(*v), pending_of(*v), tx);
    return EV_NONE;
}

/* Lane @p l's arrival of @p n on its object (@p drop: arrive_drop; .expect_tx's bytes first),
 * its token to o[1] when there is one; the last arrival of a phase starts the next. */
static enum event arrive(struct exec *x, struct warp *w, const struct insn *in, int l, uint64_t n,
                         int drop)
{
    uint8_t *p = NULL;
    uint64_t v, a = operand_of(w, in, l);
    struct exec *o;
    enum event ev = object_read(x, w, in, l, &a, &p, &v, &o);
    if (ev == EV_NONE && in->op == OP_MBAR_ARRIVE && in->o[3] != NO_REG)
        ev = add_tx(x, w, in, l, &v, R32(w, in->o[3])[l]);
    if (ev != EV_NONE)
        return ev;
    uint64_t pending = pending_of(v), expected = expected_of(v);
    if (n < 1 || n > pending || (drop && n > expected))
        return vm_fail(x, w, in, l, VM_FAULT,
                       "mbarrier.arrive%s of %llu where %llu arrivals are pending (of %llu)",
                       drop ? "_drop" : "", (unsigned long long)n, (unsigned long long)pending,
                       (unsigned long long)expected);
    uint64_t began = expected;
    expected -= drop ? n : 0; /* arrive_drop: fewer arrivals in the phases after */
    pending -= n;
    if (in->op == OP_MBAR_ARRIVE && in->o[1] != NO_REG)
        R64(w, in->o[1])[l] = (v & MB_PHASE) | MB_MARK | pending;
    if (x->launch->checks && o == x) /* another block's object orders none of its accesses */
        check_async_arrive(x, w, l, a);
    settle(x, o, p, object(v & MB_PHASE, expected, pending, tx_of(v)), a, began);
    return EV_NONE;
}

enum event h_MBAR_ARRIVE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t n = in->o[2] == NO_REG ? 1 : R32(w, in->o[2])[l];
        enum event ev = arrive(x, w, in, l, n, in->width);
        if (ev != EV_NONE)
            return ev;
    }
    return EV_NONE;
}

/* cp.async.mbarrier.arrive: the lanes' copies complete (they land now), then the arrive-on the
 * ISA triggers at their completion. Without .noinc it first adds the pending arrival it then
 * takes, so only the object's being initialised is checked. */
enum event h_CP_ASYNC_MBAR(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    vm_async_land(x, w, m, -1);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *p = NULL;
        uint64_t v, a = operand_of(w, in, l);
        struct exec *o;
        enum event ev =
            in->width ? arrive(x, w, in, l, 1, 0) : object_read(x, w, in, l, &a, &p, &v, &o);
        if (ev != EV_NONE)
            return ev;
    }
    return EV_NONE;
}

enum event h_MBAR_TX(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *p = NULL;
        uint64_t v, a = operand_of(w, in, l), bytes = R32(w, in->o[2])[l];
        struct exec *o;
        enum event ev = object_read(x, w, in, l, &a, &p, &v, &o);
        if (ev == EV_NONE)
            ev = add_tx(x, w, in, l, &v, in->width ? -(int64_t)bytes : (int64_t)bytes);
        if (ev != EV_NONE)
            return ev;
        settle(x, o, p, v, a, expected_of(v));
    }
    return EV_NONE;
}

enum event vm_mbar_complete_tx(struct exec *x, struct warp *w, const struct insn *in, int lane,
                               uint64_t off, uint64_t bytes)
{
    uint8_t *p = NULL;
    uint64_t v;
    struct exec *o;
    enum event ev = object_read(x, w, in, lane, &off, &p, &v, &o);
    if (ev == EV_NONE)
        ev = add_tx(x, w, in, lane, &v, -(int64_t)bytes);
    if (ev == EV_NONE && x->cnt)
        count_copy_issued(x, off);
    if (ev == EV_NONE)
        settle(x, o, p, v, off, expected_of(v));
    return ev;
}

enum event h_MBAR_WAIT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint32_t done = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *p = NULL;
        uint64_t v, a = operand_of(w, in, l);
        struct exec *o;
        enum event ev = object_read(x, w, in, l, &a, &p, &v, &o);
        if (ev != EV_NONE)
            return ev;
        /* .parity: the phase of that parity is complete once the current one differs. */
        uint64_t phase =
            in->width ? (uint64_t)(R32(w, in->o[2])[l] & 1) << 63 : R64(w, in->o[2])[l] & MB_PHASE;
        int complete = (v & MB_PHASE) != phase;
        done |= (uint32_t)complete << l;
        if (complete && x->launch->checks && o == x)
            check_async_wait(x, w, l, a);
        if (complete && x->cnt)
            count_copy_waited(x, w->index, a);
    }
    PRED(w, in->o[1]) = (PRED(w, in->o[1]) & ~m) | done;
    if (done != m) /* the retry loop's next backward branch lets the other warps run */
        x->back_branches = YIELD_BRANCHES - 1;
    return EV_NONE;
}

enum event h_MBAR_PENDING(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    LANES(m, R32(w, in->o[1])[l] = (uint32_t)(R64(w, in->o[2])[l] & MB_COUNT));
    return EV_NONE;
}
