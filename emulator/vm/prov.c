/**
 * @file prov.c
 * @brief The grader's provenance record (see prov.h and mem.h).
 *
 * A kernel's store marks its bytes MEM_KERNEL in the device memory's record at once, and
 * writes the values it stores into the record as it stores them (prov_shadow()): so a value
 * that changes later without a store the device saw, through a host mapping, shows as
 * changed. Stores that take another path (fragments, asynchronous copies, atomics) have their
 * values kept at the warp's next global access, or at the launch's end. A load (or an atomic,
 * which loads too, or a texel or surface read) asks the record whether every byte came from
 * the device's own work, from the inputs, or from a fill; the first one that did not, and the
 * first access to a guard byte, are kept with the place that made them.
 *
 * What a kernel computes from the grader's inputs is derived (MEM_DERIVED): once a block has
 * read a derived byte, everything it stores is derived too (a store can only depend on what
 * was read before it). A derived store into memory the host reaches (managed or pinned) is
 * kept as a finding: the host could read an input there.
 */
#include "prov.h"

#include <string.h>

/* Keep the values of the stores made since the last access (a warp instruction's lanes). */
static void keep_values(struct exec *x)
{
    struct prov_pending *p = &x->prov_pending;
    for (int i = 0; i < p->n; i++)
        mem_keep_values(x->mem, p->addr[i], p->bytes[i]);
    p->n = 0;
}

/* Keep the first finding of its kind: the address, the byte's state and the place. */
static void note(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t a,
                 unsigned state, struct vm_prov_hit *hit)
{
    hit->count++;
    if (hit->count > 1)
        return;
    hit->addr = a;
    hit->state = state;
    vm_describe(x, w, in, lane, hit->where, sizeof hit->where);
}

/* Lane @p l reads [a, a + bytes): its bytes' writers, guards, and whether they are derived. */
static void read_lane(struct exec *x, struct warp *w, const struct insn *in, int l, uint64_t a,
                      unsigned bytes)
{
    struct vm_prov *r = &x->result->prov;
    unsigned st = mem_read_by_kernel(x->mem, a, bytes);
    x->prov_derived |= (st & MEM_SAW_DERIVED) != 0;
    st &= ~(unsigned)MEM_SAW_DERIVED;
    if (st & MEM_GUARDED)
        note(x, w, in, l, a, st, &r->guard);
    else if (st)
        note(x, w, in, l, a, st, &r->handed);
}

/* Lane @p l stores [a, a + bytes): the kernel's bytes (derived when the block read an input). */
static void store_lane(struct exec *x, struct warp *w, const struct insn *in, int l, uint64_t a,
                       unsigned bytes)
{
    struct vm_prov *r = &x->result->prov;
    unsigned who = MEM_KERNEL | (x->prov_derived ? MEM_DERIVED : 0);
    if (mem_mark_written(x->mem, a, bytes, (enum mem_writer)who))
        note(x, w, in, l, a, MEM_GUARDED, &r->guard);
    r->stores++;
    const struct mem_block *b = x->prov_derived ? mem_find(x->mem, a, bytes) : NULL;
    if (b && b->host_visible)
        note(x, w, in, l, a, who, &r->exposed);
}

void prov_global(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                 uint32_t m, unsigned bytes, int store)
{
    keep_values(x);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (!store || in->op == OP_ATOM)
            read_lane(x, w, in, l, addr[l], bytes);
        if (store) {
            store_lane(x, w, in, l, addr[l], bytes);
            struct prov_pending *p = &x->prov_pending;
            p->addr[p->n] = addr[l];
            p->bytes[p->n++] = bytes;
        }
    }
}

void prov_shadow(struct exec *x, uint32_t m, uint8_t *const *host, unsigned bytes, uint8_t **shadow)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t a = x->mem->base + (uint64_t)(host[l] - x->mem->alias);
        uint8_t *at = host[l] >= x->mem->alias && mem_in_span(x->mem, a)
                          ? mem_shadow(x->mem, a, bytes)
                          : NULL;
        shadow[l] = at ? at : x->prov_sink; /* outside the record: stored nowhere */
    }
    x->prov_pending.n = 0; /* their values are the registers', kept as they were stored */
}

void prov_texels(struct exec *x, struct warp *w, const struct insn *in, int lane,
                 const uint64_t *addr, int n, unsigned bytes)
{
    keep_values(x);
    for (int i = 0; i < n; i++)
        read_lane(x, w, in, lane, addr[i], bytes);
}

void vm_prov_merge(struct vm_prov *to, const struct vm_prov *from)
{
    struct vm_prov_hit *hits[3] = {&to->handed, &to->guard, &to->exposed};
    const struct vm_prov_hit *more[3] = {&from->handed, &from->guard, &from->exposed};
    for (int i = 0; i < 3; i++) {
        if (!hits[i]->count)
            *hits[i] = *more[i];
        else
            hits[i]->count += more[i]->count;
    }
    to->stores += from->stores;
}

void prov_end(struct exec *x)
{
    keep_values(x);
}
