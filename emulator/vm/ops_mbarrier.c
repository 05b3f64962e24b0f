/**
 * @file ops_mbarrier.c
 * @brief mbarrier: the arrive-wait barrier object in shared memory that cuda::barrier and
 *        cooperative groups' arrive/wait compile to (PTX ISA 9.0, 9.7.13.15).
 *
 * The ISA leaves the 64-bit object opaque; this emulator lays it out as: the arrivals still
 * pending in the current phase (bits 0-20), the count each phase starts with (bits 21-41), a
 * mark that mbarrier.init wrote it (bits 42-61: shared memory starts as 0xFF bytes, so an
 * arrive on an object never initialised fails with one line instead of waiting forever) and
 * the current phase's parity (bit 63). An arrive returns a token: the phase it arrived in and
 * the arrivals still pending after it. A wait on a token is complete once the object's phase
 * differs from the token's. A block's warps run one at a time and a warp's lanes in lane
 * order, so every update is atomic. The checks (racecheck, initcheck) do not see these
 * accesses: they are synchronisation, as atomics are. A completed phase that every thread of
 * the block arrived at orders shared accesses for racecheck as a bar.sync does.
 */
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "hopper.h"

#define MB_COUNT 0x1FFFFFull /* a 21-bit count: pending (bits 0-20), expected (21-41) */
#define MB_MARK (0xB4A7Eull << 42)
#define MB_MARK_MASK (0xFFFFFull << 42 | 1ull << 62)
#define MB_PHASE (1ull << 63)

/* The host address of lane @p l's mbarrier object into *p, or the launch fails. */
static enum event object_at(struct exec *x, struct warp *w, const struct insn *in, int l,
                            uint8_t **p)
{
    uint64_t a = in->o[0] == NO_REG            ? (uint64_t)in->imm
                 : (in->mod & ATOM_BASE32_BIT) ? (uint32_t)(R32(w, in->o[0])[l] + (uint32_t)in->imm)
                                               : R64(w, in->o[0])[l] + (uint64_t)in->imm;
    if (ATOM_SPACE(in->mod) == SP_GENERIC) {
        if (a - SHARED_WINDOW >= WINDOW_SIZE)
            return vm_fail(x, w, in, l, VM_FAULT,
                           "an mbarrier object at 0x%llx, outside shared memory (it must be a "
                           "__shared__ variable)",
                           (unsigned long long)a);
        a -= SHARED_WINDOW;
    }
    uint8_t *smem = x->smem; /* or, for an arrive, another block's of the cluster */
    uint32_t bytes = x->smem_bytes;
    if (a >> CLUSTER_SHIFT && vm_cluster_resolve(x, w, in, l, &a, &smem, &bytes, NULL))
        return EV_ERROR;
    if (a % 8 || a + 8 > bytes)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "an mbarrier object at shared offset %llu (it needs 8 bytes, 8-aligned, of "
                       "the block's %u bytes of shared memory)",
                       (unsigned long long)a, bytes);
    *p = smem + a;
    return EV_NONE;
}

/* Lane @p l's object into *v, or the launch fails: it is not one mbarrier.init made. */
static enum event object_read(struct exec *x, struct warp *w, const struct insn *in, int l,
                              uint8_t **p, uint64_t *v)
{
    enum event ev = object_at(x, w, in, l, p);
    if (ev != EV_NONE)
        return ev;
    memcpy(v, *p, 8);
    if ((*v & MB_MARK_MASK) != MB_MARK)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "an mbarrier object that mbarrier.init has not initialised (or that "
                       "mbarrier.inval made invalid)");
    return EV_NONE;
}

enum event h_MBAR_INIT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *p = NULL;
        enum event ev = object_at(x, w, in, l, &p);
        if (ev != EV_NONE)
            return ev;
        uint64_t count = in->o[2] == NO_REG ? 0 : R32(w, in->o[2])[l], v = 0;
        if (in->o[2] != NO_REG && (count < 1 || count > MB_COUNT))
            return vm_fail(x, w, in, l, VM_FAULT,
                           "mbarrier.init with a count of %llu (it must be 1 to 2^20 - 1)",
                           (unsigned long long)count);
        if (in->o[2] != NO_REG)
            v = MB_MARK | count << 21 | count;
        memcpy(p, &v, 8);
        x->writes++;
    }
    return EV_NONE;
}

enum event h_MBAR_ARRIVE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *p = NULL;
        uint64_t v;
        enum event ev = object_read(x, w, in, l, &p, &v);
        if (ev != EV_NONE)
            return ev;
        uint64_t n = in->o[2] == NO_REG ? 1 : R32(w, in->o[2])[l];
        uint64_t pending = v & MB_COUNT, expected = v >> 21 & MB_COUNT;
        if (n < 1 || n > pending || (in->width && n > expected))
            return vm_fail(x, w, in, l, VM_FAULT,
                           "mbarrier.arrive%s of %llu where %llu arrivals are pending (of %llu)",
                           in->width ? "_drop" : "", (unsigned long long)n,
                           (unsigned long long)pending, (unsigned long long)expected);
        expected -= in->width ? n : 0; /* arrive_drop: fewer arrivals in the phases after */
        pending -= n;
        if (in->o[1] != NO_REG)
            R64(w, in->o[1])[l] = (v & MB_PHASE) | MB_MARK | pending;
        uint64_t phase = pending ? v & MB_PHASE : (v & MB_PHASE) ^ MB_PHASE;
        if (!pending && x->launch->checks)
            check_mbarrier_phase(x, expected + (in->width ? n : 0));
        v = phase | MB_MARK | expected << 21 | (pending ? pending : expected);
        memcpy(p, &v, 8);
        x->writes++;
    }
    return EV_NONE;
}

enum event h_MBAR_WAIT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint32_t done = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *p = NULL;
        uint64_t v;
        enum event ev = object_read(x, w, in, l, &p, &v);
        if (ev != EV_NONE)
            return ev;
        /* .parity: the phase of that parity is complete once the current one differs. */
        uint64_t phase =
            in->width ? (uint64_t)(R32(w, in->o[2])[l] & 1) << 63 : R64(w, in->o[2])[l] & MB_PHASE;
        done |= (uint32_t)((v & MB_PHASE) != phase) << l;
    }
    PRED(w, in->o[1]) = (PRED(w, in->o[1]) & ~m) | done;
    return EV_NONE;
}

enum event h_MBAR_PENDING(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    LANES(m, R32(w, in->o[1])[l] = (uint32_t)(R64(w, in->o[2])[l] & MB_COUNT));
    return EV_NONE;
}
