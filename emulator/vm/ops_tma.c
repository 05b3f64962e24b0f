/**
 * @file ops_tma.c
 * @brief Tensor copies (cp.async.bulk.tensor, TMA): loads into shared memory, stores and
 *        reductions to global memory, prefetches, through a tensor map (see ops_bulk.c's
 *        header for the rules both files follow).
 *
 * A copy walks its box a row at a time: a row is the box's innermost dimension, whose
 * in-bounds elements are one contiguous piece of global memory (one checked access) and whose
 * 16-byte chunks each go to their swizzled shared address. Interleaved maps are refused when
 * a copy uses one (cuTensorMapEncodeTiled accepts them, as CUDA does).
 */
#include <stdio.h>
#include <string.h>

#include "bulk.h"
#include "checks.h"
#include "count.h"
#include "hopper.h"
#include "tmap.h"

/** The box of one copy: its extents (elements per dimension) and first coordinates. */
struct box {
    uint64_t n[TMAP_MAX_RANK]; /* elements along each dimension */
    int64_t c[TMAP_MAX_RANK];  /* the coordinates of its first element */
    uint64_t row_bytes;        /* one row: n[0] elements */
    uint64_t rows;             /* rows: n[1] * ... * n[4] */
};

/* Lane @p l's tensor map at generic address @p a, from the kernel's parameters, constant or
 * global memory (read raw: the map is the runtime's bookkeeping, not the kernel's data). */
static enum event tensor_map(struct exec *x, struct warp *w, const struct insn *in, int l,
                             uint64_t a, struct tmap *t)
{
    const uint8_t *p = NULL;
    if (a - PARAM_WINDOW < WINDOW_SIZE && a - PARAM_WINDOW + 128 <= x->fn->info.param_bytes)
        p = x->params + (a - PARAM_WINDOW);
    else if (a - SHARED_WINDOW >= WINDOW_SIZE && a - LOCAL_WINDOW >= WINDOW_SIZE &&
             mem_find(x->mem, a, 128))
        p = mem_host(x->mem, a);
    if (!p || a % 64)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "a tensor map at 0x%llx: it must be 64-byte aligned, in the kernel's "
                       "parameters (__grid_constant__), constant or global memory",
                       (unsigned long long)a);
    memcpy(t, p, sizeof *t);
    if (t->magic != TMAP_MAGIC)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "the 128 bytes at 0x%llx hold no tensor map cuTensorMapEncodeTiled made "
                       "(never encoded, overwritten, or copied wrong)",
                       (unsigned long long)a);
    if (t->interleave)
        return vm_fail(x, w, in, l, VM_UNSUPPORTED,
                       "a copy through an interleaved tensor map is not emulated (interleave %u)",
                       t->interleave);
    return EV_NONE;
}

/* Lane @p l's box of map @p t at the coordinates of @p b, into @p bx. */
static void box_of(const struct tmap *t, const struct warp *w, const struct bulk_ops *b, int l,
                   struct box *bx)
{
    bx->rows = 1;
    for (int i = 0; i < TMAP_MAX_RANK; i++) {
        bx->n[i] = ((uint64_t)t->box[i] + t->estride[i] - 1) / t->estride[i];
        bx->c[i] = i < (int)b->rank ? (int64_t)RS32(w, b->coord[i])[l] : 0;
        bx->rows *= i ? bx->n[i] : 1;
    }
    bx->row_bytes = bx->n[0] * t->elem_bytes;
}

/* Row @p r of box @p bx: 1 with its in-bounds elements [*lo, *hi) starting at global address
 * *addr (of element *lo), or 0 when none of it is inside the tensor. */
static int row_span(const struct tmap *t, const struct box *bx, uint64_t r, uint64_t *lo,
                    uint64_t *hi, uint64_t *addr)
{
    uint64_t a = t->addr;
    for (int i = 1; i < TMAP_MAX_RANK; i++) {
        int64_t g = bx->c[i] + (int64_t)(r % bx->n[i]) * t->estride[i];
        r /= bx->n[i];
        if (g < 0 || (uint64_t)g >= t->dim[i])
            return 0;
        a += (uint64_t)g * t->stride[i];
    }
    int64_t first = bx->c[0] < 0 ? -bx->c[0] : 0, last = (int64_t)t->dim[0] - bx->c[0];
    last = last < (int64_t)bx->n[0] ? last : (int64_t)bx->n[0];
    if (first >= last)
        return 0;
    *lo = (uint64_t)first, *hi = (uint64_t)last;
    *addr = a + (uint64_t)(bx->c[0] + first) * t->elem_bytes;
    return 1;
}

/* The shared address a 16-byte chunk at @p a lands at under swizzle @p mode (1, 2, 3: 32, 64,
 * 128 bytes): bits 4 up XORed with bits 7 up, @p mode of them. */
static uint64_t swizzled(uint64_t a, unsigned mode)
{
    uint64_t bits = (1u << mode) - 1;
    return a ^ ((a >> 7) & bits) << 4;
}

/* Lane @p l's box of @p total bytes at shared offset @p off of a block with @p smem_bytes
 * (@p dir: "into" for a load, "from" for a store): 128-byte aligned and inside, or the launch
 * fails. */
static enum event box_fits(struct exec *x, struct warp *w, const struct insn *in, int l,
                           uint64_t off, uint64_t total, uint32_t smem_bytes, const char *dir)
{
    if (off % 128 || off >= WINDOW_SIZE || off + total > smem_bytes)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "a tensor copy's box of %llu bytes %s shared offset %llu (it must be "
                       "128-byte aligned, inside the block's %u bytes of shared memory)",
                       (unsigned long long)total, dir, (unsigned long long)off, smem_bytes);
    return EV_NONE;
}

/* The shared offset of chunk @p j of row @p r of box @p bx at @p base, under map @p t's swizzle,
 * into *at: inside @p smem_bytes, or the launch fails. */
static enum event chunk_at(struct exec *x, struct warp *w, const struct insn *in, int l,
                           const struct tmap *t, const struct box *bx, uint64_t base, uint64_t r,
                           uint64_t j, uint32_t smem_bytes, uint64_t *at)
{
    *at = swizzled(base + r * bx->row_bytes + j, t->swizzle);
    if (*at + 16 > smem_bytes)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "a swizzled tensor copy reaches shared offset %llu, past the block's %u "
                       "bytes",
                       (unsigned long long)*at, smem_bytes);
    return EV_NONE;
}

/* An element of the load's out-of-bounds fill into @p row's @p n elements. */
static void fill(const struct tmap *t, uint8_t *row, uint64_t n)
{
    uint64_t nan = t->elem_bytes == 2 ? 0x7FFFu : t->elem_bytes == 4 ? 0x7FFFFFFFu : ~0ull >> 1;
    uint64_t v = t->oob_nan && t->is_float ? nan : 0;
    for (uint64_t i = 0; i < n; i++)
        memcpy(row + i * t->elem_bytes, &v, t->elem_bytes);
}

/* Row @p r of box @p bx (its in-bounds elements from global memory, the fill elsewhere) into
 * @p row. */
static enum event load_row(struct exec *x, struct warp *w, const struct insn *in, int l,
                           const struct tmap *t, const struct box *bx, uint64_t r, uint8_t *row)
{
    uint64_t lo, hi, a;
    uint8_t *from = NULL;
    fill(t, row, bx->n[0]);
    if (!row_span(t, bx, r, &lo, &hi, &a))
        return EV_NONE;
    enum event ev = bulk_global(x, w, in, l, a, (hi - lo) * t->elem_bytes, 0, &from);
    if (ev == EV_NONE)
        memcpy(row + lo * t->elem_bytes, from, (hi - lo) * t->elem_bytes);
    return ev;
}

/* Lane @p l's load: the box into shared memory at the copy's destination, in each block
 * bulk_targets() names (one, or a multicast's), and its bytes completed on each one's mbarrier. */
static enum event load_lane(struct exec *x, struct warp *w, const struct insn *in, int l,
                            const struct bulk_ops *b)
{
    struct tmap t;
    struct box bx;
    struct exec *to[CLUSTER_MAX];
    uint8_t row[256 * 8];
    uint64_t dst, mbar;
    int n = bulk_targets(x, w, in, l, b, &dst, &mbar, to);
    if (n < 0)
        return EV_ERROR;
    enum event ev = tensor_map(x, w, in, l, bulk_addr_of(w, &b->glob, l), &t);
    if (ev != EV_NONE)
        return ev;
    box_of(&t, w, b, l, &bx);
    uint64_t total = bx.rows * bx.row_bytes, at;
    for (int k = 0; k < n; k++)
        if ((ev = box_fits(x, w, in, l, dst, total, to[k]->smem_bytes, "into")))
            return ev;
    for (uint64_t r = 0; r < bx.rows; r++) {
        if ((ev = load_row(x, w, in, l, &t, &bx, r, row)) != EV_NONE)
            return ev;
        for (uint64_t j = 0; j < bx.row_bytes; j += 16) {
            for (int k = 0; k < n; k++) {
                if ((ev = chunk_at(x, w, in, l, &t, &bx, dst, r, j, to[k]->smem_bytes, &at)))
                    return ev;
                memcpy(to[k]->smem + at, row + j, 16);
                if (x->launch->checks)
                    check_async_write(to[k], in, at, 16, mbar);
            }
        }
    }
    if (x->cnt)
        x->cnt->tma_copies++, x->cnt->tma_ld_bytes += total;
    for (int k = 0; k < n && ev == EV_NONE; k++)
        ev = vm_mbar_complete_tx(to[k], w, in, l, mbar, total);
    return ev;
}

enum event h_TMA_LOAD(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return bulk_each_lane(x, w, in, m, load_lane);
}

/* The ATOM_MOD type of a reduction into map @p t's elements, or -1: 32- and 64-bit integers,
 * f16, f32 (and tf32), f64 and bf16. */
static int reduce_type(const struct tmap *t)
{
    static const int types[] = {-1,     -1,     CT_U32,  CT_S32, CT_U64, CT_S64, CT_F16,
                                CT_F32, CT_F64, CT_BF16, CT_F32, CT_F32, CT_F32};
    return t->type < sizeof types / sizeof *types ? types[t->type] : -1;
}

/* Lane @p l's store (or reduction, @p in's mod): the box from shared memory to the tensor's
 * in-bounds elements. */
static enum event store_lane(struct exec *x, struct warp *w, const struct insn *in, int l,
                             const struct bulk_ops *b)
{
    struct tmap t;
    struct box bx;
    uint8_t row[256 * 8];
    uint64_t src = bulk_addr_of(w, &b->smem, l);
    enum event ev = tensor_map(x, w, in, l, bulk_addr_of(w, &b->glob, l), &t);
    if (ev != EV_NONE)
        return ev;
    int ct = reduce_type(&t);
    if (in->mod && (ct < 0 || (ct >= CT_F16 && ATOM_OP(in->mod) > AT_MAX)))
        return vm_fail(x, w, in, l, VM_UNSUPPORTED,
                       "this reduction of a tensor map's type %u is not emulated (32- and 64-bit "
                       "integers, f16, bf16, f32 and f64 add, min and max are)",
                       t.type);
    box_of(&t, w, b, l, &bx);
    if ((ev = box_fits(x, w, in, l, src, bx.rows * bx.row_bytes, x->smem_bytes, "from")))
        return ev;
    for (uint64_t r = 0; r < bx.rows; r++) {
        uint64_t lo = 0, hi = 0, a = 0, at;
        uint8_t *to = NULL;
        int inside = row_span(&t, &bx, r, &lo, &hi, &a);
        for (uint64_t j = 0; j < bx.row_bytes; j += 16) {
            if ((ev = chunk_at(x, w, in, l, &t, &bx, src, r, j, x->smem_bytes, &at)))
                return ev;
            memcpy(row + j, x->smem + at, 16);
            /* the checks see the chunk's bytes of in-bounds elements: the others go nowhere */
            uint64_t b0 = inside && lo * t.elem_bytes > j ? lo * t.elem_bytes : j;
            uint64_t b1 = inside && hi * t.elem_bytes < j + 16 ? hi * t.elem_bytes : j + 16;
            if (x->launch->checks && inside && b0 < b1)
                check_shared_source(x, w, in, l, at + b0 - j, b1 - b0, "cp.async.bulk.tensor");
        }
        if (!inside)
            continue;
        if ((ev = bulk_global(x, w, in, l, a, (hi - lo) * t.elem_bytes, 1, &to)) != EV_NONE)
            return ev;
        if (in->mod)
            bulk_reduce(x, in->mod | ATOM_MOD(0u, (uint32_t)ct, 0u), to, row + lo * t.elem_bytes,
                        hi - lo, t.elem_bytes);
        else
            memcpy(to, row + lo * t.elem_bytes, (hi - lo) * t.elem_bytes);
    }
    if (x->cnt)
        x->cnt->tma_copies++;
    return EV_NONE;
}

enum event h_TMA_STORE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return bulk_each_lane(x, w, in, m, store_lane);
}

/* Lane @p l's prefetch: nothing to fetch here, but its tensor map must be one. */
static enum event prefetch_lane(struct exec *x, struct warp *w, const struct insn *in, int l,
                                const struct bulk_ops *b)
{
    struct tmap t;
    return tensor_map(x, w, in, l, bulk_addr_of(w, &b->glob, l), &t);
}

enum event h_TMA_PREFETCH(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return bulk_each_lane(x, w, in, m, prefetch_lane);
}
