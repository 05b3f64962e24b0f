/**
 * @file footprint.c
 * @brief A launch's footprint: per allocation, the lowest and highest bytes it read and wrote
 *        (see vm.h, struct vm_footprint).
 *
 * The device server sends it with the stream record (server.c), so that a grader can tell
 * whether a kernel and a copy on another stream touch the same bytes with no dependency between
 * them. A warp's request usually lies in one allocation and is one update; otherwise each lane
 * is looked up. A launch that keeps the record runs its blocks in order on one thread.
 */
#include "footprint.h"

/* The extent of allocation @p block in @p f, added when new; NULL when f is full. */
static struct vm_extent *extent(struct vm_footprint *f, uint64_t block)
{
    for (uint32_t i = 0; i < f->n; i++)
        if (f->at[i].block == block)
            return &f->at[i];
    if (f->n == VM_FOOTPRINT_BLOCKS) {
        f->overflow = 1;
        return NULL;
    }
    struct vm_extent *e = &f->at[f->n++];
    *e = (struct vm_extent){block, UINT64_MAX, 0, UINT64_MAX, 0};
    return e;
}

/* Widen allocation @p block's extents by [lo, hi). */
static void widen(struct vm_footprint *f, uint64_t block, uint64_t lo, uint64_t hi, int writes,
                  int reads)
{
    struct vm_extent *e = extent(f, block);
    if (!e)
        return;
    if (reads) {
        e->read_lo = lo < e->read_lo ? lo : e->read_lo;
        e->read_hi = hi > e->read_hi ? hi : e->read_hi;
    }
    if (writes) {
        e->write_lo = lo < e->write_lo ? lo : e->write_lo;
        e->write_hi = hi > e->write_hi ? hi : e->write_hi;
    }
}

void footprint_global(struct exec *x, const uint64_t *addr, uint32_t m, unsigned bytes, int writes,
                      int reads)
{
    struct vm_footprint *f = &x->result->footprint;
    uint64_t lo = UINT64_MAX, hi = 0;
    LANES(m, {
        lo = addr[l] < lo ? addr[l] : lo;
        hi = addr[l] > hi ? addr[l] : hi;
    });
    const struct mem_block *b = m ? mem_find(x->mem, lo, hi - lo + bytes) : NULL;
    if (b) {
        widen(f, b->addr, lo, hi + bytes, writes, reads);
        return;
    }
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        b = mem_find(x->mem, addr[l], bytes);
        if (b)
            widen(f, b->addr, addr[l], addr[l] + bytes, writes, reads);
    }
}
