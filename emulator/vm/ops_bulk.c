/**
 * @file ops_bulk.c
 * @brief Hopper's asynchronous copies: cp.async.bulk and cp.async.bulk.tensor (TMA) loads,
 *        stores, reductions and prefetches, and fence.proxy.async.
 *
 * A copy runs when a lane issues it (a valid schedule of an asynchronous copy) and completes
 * its bytes on its mbarrier at once, so a phase that waits for them alone completes there. A
 * multicast load writes the same bytes into every block its ctaMask names, at the same offset,
 * and completes them on each one's mbarrier (bulk_targets()).
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
    if (ev == EV_NONE && x->model) {
        struct bulk_ops b = bulk_ops_of(x->mod, in);
        int none = b.mbar.reg == NO_REG && b.mbar.disp == -1;
        model_tma(x->model, w->index, a, bytes, store,
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

int bulk_targets(struct exec *x, struct warp *w, const struct insn *in, int l,
                 const struct bulk_ops *b, uint64_t *dst, uint64_t *mbar, struct exec **to)
{
    uint64_t d = bulk_addr_of(w, &b->smem, l);
    uint32_t size = x->cluster ? x->cluster->size : 1, n = 0, bytes;
    uint8_t *smem;
    *mbar = CLUSTER_OFFSET(bulk_addr_of(w, &b->mbar, l)); /* in the destination's block */
    if (b->mask == NO_REG) {
        *dst = d;
        return vm_cluster_resolve(x, w, in, l, dst, &smem, &bytes, to) ? -1 : 1;
    }
    uint32_t mask = R32(w, b->mask)[l] & 0xFFFFu;
    if (mask >> size) {
        vm_fail(x, w, in, l, VM_FAULT,
                "a multicast copy's ctaMask 0x%x names blocks past the cluster's %u", mask, size);
        return -1;
    }
    for (uint32_t r = 0; r < size; r++)
        if (mask >> r & 1)
            to[n++] = x->cluster ? x->cluster->cta[r] : x;
    *dst = CLUSTER_OFFSET(d);
    return (int)n;
}

/* ---- bulk copies ---------------------------------------------------------------------- */

/* Lane @p l's cp.async.bulk into shared memory: from global memory, or (@p in->width) from the
 * block's own shared memory; into each block bulk_targets() names. */
static enum event copy_lane(struct exec *x, struct warp *w, const struct insn *in, int l,
                            const struct bulk_ops *b)
{
    uint64_t dst, mbar, src = bulk_addr_of(w, &b->glob, l), size = R32(w, b->size)[l];
    struct exec *to[CLUSTER_MAX];
    uint8_t *from = NULL;
    int n = bulk_targets(x, w, in, l, b, &dst, &mbar, to);
    if (n < 0)
        return EV_ERROR;
    if (size % 16)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "cp.async.bulk of %llu bytes (a multiple of 16 is required)",
                       (unsigned long long)size);
    enum event ev = EV_NONE;
    for (int k = 0; k < n && ev == EV_NONE; k++)
        ev = shared_range(to[k], w, in, l, dst, size, 16, "cp.async.bulk destination");
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
    if (in->width && x->launch->checks)
        check_shared_source(x, w, in, l, src, size, "cp.async.bulk");
    for (int k = 0; k < n; k++) {
        memmove(to[k]->smem + dst, in->width ? x->smem + src : from, size);
        if (x->launch->checks)
            check_async_write(to[k], in, dst, size, mbar);
    }
    if (x->cnt)
        x->cnt->tma_copies++, x->cnt->tma_ld_bytes += size;
    for (int k = 0; k < n && ev == EV_NONE; k++)
        ev = vm_mbar_complete_tx(to[k], w, in, l, mbar, size);
    return ev;
}

enum event bulk_each_lane(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                          bulk_lane_fn lane)
{
    struct bulk_ops b = bulk_ops_of(x->mod, in);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        enum event ev = lane(x, w, in, __builtin_ctz(mm), &b);
        if (ev != EV_NONE)
            return ev;
    }
    return EV_NONE;
}

enum event h_BULK_COPY(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return bulk_each_lane(x, w, in, m, copy_lane);
}

/* Lane @p l's cp.async.bulk (or cp.reduce.async.bulk, @p in's mod) from shared memory to
 * global memory. */
static enum event store_lane(struct exec *x, struct warp *w, const struct insn *in, int l,
                             const struct bulk_ops *b)
{
    uint64_t src = bulk_addr_of(w, &b->smem, l), dst = bulk_addr_of(w, &b->glob, l);
    uint64_t size = R32(w, b->size)[l];
    uint8_t *to = NULL;
    if (size % 16 || dst % 16)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "cp.async.bulk of %llu bytes to 0x%llx (a multiple of 16 bytes, 16-byte "
                       "aligned, is required)",
                       (unsigned long long)size, (unsigned long long)dst);
    enum event ev = shared_range(x, w, in, l, src, size, 16, "cp.async.bulk source");
    if (ev == EV_NONE)
        ev = bulk_global(x, w, in, l, dst, size, 1, &to);
    if (ev != EV_NONE)
        return ev;
    if (x->launch->checks)
        check_shared_source(x, w, in, l, src, size, "cp.async.bulk");
    if (in->mod)
        bulk_reduce(x, in->mod, to, x->smem + src, size / in->width, in->width);
    else
        memcpy(to, x->smem + src, size);
    if (x->cnt)
        x->cnt->tma_copies++;
    return EV_NONE;
}

enum event h_BULK_STORE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return bulk_each_lane(x, w, in, m, store_lane);
}

/* Lane @p l's cp.async.bulk.prefetch: its range must lie in one live allocation. */
static enum event prefetch_lane(struct exec *x, struct warp *w, const struct insn *in, int l,
                                const struct bulk_ops *b)
{
    uint64_t a = bulk_addr_of(w, &b->glob, l), size = R32(w, b->size)[l];
    if (!mem_find(x->mem, a, size))
        return vm_fail(x, w, in, l, VM_FAULT,
                       "cp.async.bulk.prefetch of %llu bytes at 0x%llx, not inside one live "
                       "allocation",
                       (unsigned long long)size, (unsigned long long)a);
    return EV_NONE;
}

enum event h_BULK_PREFETCH(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return bulk_each_lane(x, w, in, m, prefetch_lane);
}

/* fence.proxy.async: nothing to order in a machine whose accesses complete in order; the
 * async-proxy check notes it (checks_async.c). */
enum event h_FENCE_PROXY_ASYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)in;
    if (!(x->launch->checks & VM_CHECK_RACE))
        return EV_NONE;
    check_async_fence(x, w, m);
    return EV_NONE;
}
