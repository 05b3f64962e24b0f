/**
 * @file ops_bulk.c
 * @brief Hopper's asynchronous copies: cp.async.bulk and cp.async.bulk.tensor (TMA) loads,
 *        stores, reductions and prefetches, and fence.proxy.async.
 *
 * A copy runs when a lane issues it (a valid schedule of an asynchronous copy) and completes
 * its bytes on its mbarrier at once, so a phase that waits for them alone completes there.
 * Its global side goes through the global memory path's checks one contiguous piece at a
 * time (bounds, freed memory, initcheck, the grader's record) and is counted as the copy
 * engine's sectors (count_tma()), never as thread requests. Its shared side is checked against
 * the block's shared memory and judged by the async-proxy check (checks_async.c): a thread
 * touches a copy's destination only after waiting for its phase, and a store's source needs
 * a fence.proxy.async after generic writes.
 *
 * A tensor copy reads its tensor map (common/tmap.h, what cuTensorMapEncodeTiled wrote) from
 * the kernel's parameters (a __grid_constant__ parameter), constant or global memory. The box
 * holds ceil(box[i] / estride[i]) elements along each dimension, innermost first, packed into
 * shared memory row after row (a row: the innermost dimension, a multiple of 16 bytes).
 * Element (k0, k1, ...) of the box is the tensor's element (c0 + k0, c1 + k1 * estride1, ...);
 * one outside the tensor reads as 0 (or a NaN, with the NaN fill) and is not written by a
 * store. With a swizzle, each 16-byte chunk lands at its shared address with bits 4 and up (1,
 * 2 or 3 of them for 32, 64 and 128 bytes) XORed with the bits from 7 up: the CUDA C++
 * Programming Guide's TMA swizzle, applied to the address itself, so it repeats every 256, 512
 * or 1024 bytes and a buffer aligned to that sees the documented pattern.
 */
#include <stdio.h>
#include <string.h>

#include "bulk.h"
#include "checks.h"
#include "count.h"
#include "hopper.h"
#include "model.h"
#include "tmap.h"

/* Lane @p l's shared range [off, off + bytes): aligned to @p align and in the block's shared
 * memory, or the launch fails naming @p what. */
static enum event shared_range(struct exec *x, struct warp *w, const struct insn *in, int l,
                               uint64_t off, uint64_t bytes, unsigned align, const char *what)
{
    if (off % align)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "misaligned %s at shared offset %llu (it must be %u-byte aligned)", what,
                       (unsigned long long)off, align);
    if (off >= WINDOW_SIZE || off + bytes > x->smem_bytes)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "invalid %s of %llu bytes at shared offset %llu (the block has %u bytes of "
                       "shared memory)",
                       what, (unsigned long long)bytes, (unsigned long long)off, x->smem_bytes);
    return EV_NONE;
}

enum event bulk_global(struct exec *x, struct warp *w, const struct insn *in, int l, uint64_t a,
                       uint64_t bytes, int store, uint8_t **host)
{
    enum event ev = vm_access(x, w, in, l, SP_GLOBAL, a, (unsigned)bytes, 1, store, host);
    if (ev == EV_NONE && x->cnt)
        count_tma(x, a, bytes, store);
    if (ev == EV_NONE && x->launch->model) {
        struct bulk_ops b = bulk_ops_of(x->mod, in);
        int none = b.mbar.reg == NO_REG && b.mbar.disp == -1;
        model_tma(x->launch->model, w->index, a, bytes, store,
                  store || none ? ~0ull : bulk_addr_of(w, &b.mbar, l));
    }
    return ev;
}

void bulk_reduce(struct exec *x, uint32_t mod, uint8_t *dst, const uint8_t *src, uint64_t n,
                 unsigned width)
{
    vm_atomics_lock(x);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t b = 0;
        memcpy(&b, src + i * width, width);
        vm_atom1(mod, dst + i * width, b, 0, width);
    }
    vm_atomics_unlock(x);
}

/* The mbarrier of lane @p l's copy into shared memory: its shared offset. */
static uint64_t mbar_of(const struct warp *w, const struct bulk_ops *b, int l)
{
    return bulk_addr_of(w, &b->mbar, l);
}

/* ---- bulk copies ---------------------------------------------------------------------- */

enum event h_BULK_COPY(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct bulk_ops b = bulk_ops_of(x->mod, in);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t dst = bulk_addr_of(w, &b.smem, l), src = bulk_addr_of(w, &b.glob, l);
        uint64_t size = R32(w, b.size)[l];
        uint8_t *from = NULL;
        if (size % 16)
            return vm_fail(x, w, in, l, VM_FAULT,
                           "cp.async.bulk of %llu bytes (a multiple of 16 is required)",
                           (unsigned long long)size);
        enum event ev = shared_range(x, w, in, l, dst, size, 16, "cp.async.bulk destination");
        if (ev == EV_NONE && in->width) /* from the block's own shared memory */
            ev = shared_range(x, w, in, l, src, size, 16, "cp.async.bulk source");
        else if (ev == EV_NONE && src % 16)
            return vm_fail(x, w, in, l, VM_FAULT,
                           "misaligned cp.async.bulk source at 0x%llx (it must be 16-byte aligned)",
                           (unsigned long long)src);
        else if (ev == EV_NONE)
            ev = bulk_global(x, w, in, l, src, size, 0, &from);
        if (ev != EV_NONE)
            return ev;
        if (in->width && x->launch->checks & VM_CHECK_RACE)
            check_async_read(x, w, in, l, src, size, "cp.async.bulk");
        memmove(x->smem + dst, in->width ? x->smem + src : from, size);
        if (x->launch->checks)
            check_async_write(x, in, dst, size, mbar_of(w, &b, l));
        if (x->cnt)
            x->cnt->tma_copies++, x->cnt->tma_ld_bytes += size;
        ev = vm_mbar_complete_tx(x, w, in, l, mbar_of(w, &b, l), size);
        if (ev != EV_NONE)
            return ev;
    }
    return EV_NONE;
}

enum event h_BULK_STORE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct bulk_ops b = bulk_ops_of(x->mod, in);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t src = bulk_addr_of(w, &b.smem, l), dst = bulk_addr_of(w, &b.glob, l);
        uint64_t size = R32(w, b.size)[l];
        uint8_t *to = NULL;
        if (size % 16 || dst % 16)
            return vm_fail(x, w, in, l, VM_FAULT,
                           "cp.async.bulk of %llu bytes to 0x%llx (a multiple of 16 bytes, "
                           "16-byte aligned, is required)",
                           (unsigned long long)size, (unsigned long long)dst);
        enum event ev = shared_range(x, w, in, l, src, size, 16, "cp.async.bulk source");
        if (ev == EV_NONE)
            ev = bulk_global(x, w, in, l, dst, size, 1, &to);
        if (ev != EV_NONE)
            return ev;
        if (x->launch->checks & VM_CHECK_RACE)
            check_async_read(x, w, in, l, src, size, "cp.async.bulk");
        if (in->mod)
            bulk_reduce(x, in->mod, to, x->smem + src, size / in->width, in->width);
        else
            memcpy(to, x->smem + src, size);
        if (x->cnt)
            x->cnt->tma_copies++;
    }
    return EV_NONE;
}

enum event h_BULK_PREFETCH(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct bulk_ops b = bulk_ops_of(x->mod, in);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t a = bulk_addr_of(w, &b.glob, l), size = R32(w, b.size)[l];
        if (!mem_find(x->mem, a, size))
            return vm_fail(x, w, in, l, VM_FAULT,
                           "cp.async.bulk.prefetch of %llu bytes at 0x%llx, not inside one live "
                           "allocation",
                           (unsigned long long)size, (unsigned long long)a);
    }
    return EV_NONE;
}

/* fence.proxy.async: nothing to order in a machine whose accesses complete in order; both
 * async-proxy checks note it (checks_async.c for copies, checks_proxy.c for wgmma operands). */
enum event h_FENCE_PROXY_ASYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)in;
    if (!(x->launch->checks & VM_CHECK_RACE))
        return EV_NONE;
    check_async_fence(x, w, m);
    if (x->hop)
        check_proxy_fence(x, w, m);
    return EV_NONE;
}
