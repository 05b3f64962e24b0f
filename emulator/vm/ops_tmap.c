/**
 * @file ops_tmap.c
 * @brief Changing a tensor map on the device: tensormap.replace writes one field of a map in
 *        global or shared memory, tensormap.cp_fenceproxy copies a map from shared to global
 *        memory (what CUTLASS's grouped and pointer-array GEMMs do before each group's copies).
 *
 * The map is the emulator's layout (common/tmap.h), so a replace writes that layout's field:
 * the global address (16-byte aligned), extent ord (at least 1) or the byte stride of
 * dimension ord + 1 (a multiple of 16); those past the map's rank may be written too, as CUTLASS
 * writes all five, and change nothing a copy reads. Both are generic-proxy accesses here, with
 * the checks any load or store gets; the tensormap proxy's fences order nothing in a machine
 * whose accesses complete in order.
 */
#include <string.h>

#include "bulk.h"
#include "tmap.h"

/* What a replace of @p field with @p v at ordinal @p ord does to @p t; NULL, or why it may not. */
static const char *replaced(struct tmap *t, unsigned field, uint32_t ord, uint64_t v)
{
    switch (field) {
    case TMAP_FIELD_ADDRESS:
        t->addr = v;
        return v % 16 ? "a global address must be 16-byte aligned" : NULL;
    case TMAP_FIELD_DIM:
        if (ord >= TMAP_MAX_RANK || !v)
            return v ? "a map has 5 extents (ordinals 0 to 4)" : "an extent of 0";
        t->dim[ord] = v;
        return NULL;
    default:
        if (ord + 1 >= TMAP_MAX_RANK || v % 16)
            return v % 16 ? "a stride must be a multiple of 16 bytes"
                          : "a map has 4 strides (ordinals 0 to 3)";
        t->stride[ord + 1] = v;
        return NULL;
    }
}

/* Lane @p l's tensormap.replace. */
static enum event replace_lane(struct exec *x, struct warp *w, const struct insn *in, int l,
                               const struct bulk_ops *b)
{
    uint64_t a = bulk_addr_of(w, &b->glob, l);
    uint8_t *p;
    enum event ev = vm_access(x, w, in, l, in->width ? SP_SHARED : SP_GLOBAL, a, 128, 64, 1, &p);
    if (ev != EV_NONE)
        return ev;
    struct tmap t;
    memcpy(&t, p, sizeof t);
    if (t.magic != TMAP_MAGIC)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "tensormap.replace on 128 bytes at 0x%llx that hold no tensor map "
                       "cuTensorMapEncodeTiled made (never copied there, or copied wrong)",
                       (unsigned long long)a);
    uint64_t v = in->mod == TMAP_FIELD_DIM ? R32(w, b->size)[l] : R64(w, b->size)[l];
    const char *why = replaced(&t, in->mod, b->rank, v);
    if (why)
        return vm_fail(x, w, in, l, VM_FAULT, "tensormap.replace with %llu at ordinal %u: %s",
                       (unsigned long long)v, b->rank, why);
    memcpy(p, &t, sizeof t);
    return EV_NONE;
}

enum event h_TMAP_REPLACE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return bulk_each_lane(x, w, in, m, replace_lane);
}

/* Lane @p l's copy of a map, 128 bytes from shared to global memory. */
static enum event copy_lane(struct exec *x, struct warp *w, const struct insn *in, int l,
                            const struct bulk_ops *b)
{
    uint64_t src = bulk_addr_of(w, &b->smem, l), dst = bulk_addr_of(w, &b->glob, l);
    uint32_t size = R32(w, b->size)[l];
    uint8_t *from, *to;
    if (size != 128)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "tensormap.cp_fenceproxy of %u bytes (a tensor map's 128 are required)",
                       size);
    enum event ev = vm_access(x, w, in, l, SP_SHARED, src, 128, 64, 0, &from);
    if (ev == EV_NONE)
        ev = vm_access(x, w, in, l, SP_GLOBAL, dst, 128, 64, 1, &to);
    if (ev == EV_NONE)
        memcpy(to, from, 128);
    return ev;
}

/* The warp's copy: each lane names the same map (.aligned), so the first lane copies it and a
 * lane that names another one copies that too. */
enum event h_TMAP_COPY(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct bulk_ops b = bulk_ops_of(x->mod, in);
    uint64_t done_src = ~0ull, done_dst = ~0ull;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t src = bulk_addr_of(w, &b.smem, l), dst = bulk_addr_of(w, &b.glob, l);
        if (src == done_src && dst == done_dst)
            continue;
        enum event ev = copy_lane(x, w, in, l, &b);
        if (ev != EV_NONE)
            return ev;
        done_src = src, done_dst = dst;
    }
    return EV_NONE;
}
