/**
 * @file prov.c
 * @brief The grader's provenance record (see prov.h and mem.h).
 *
 * A kernel's store marks its bytes MEM_KERNEL in the device memory's record at once, and
 * their values are kept at the next global access (or at the launch's end), once the store
 * has happened: so a value that changes later without a store the device saw, through a host
 * mapping, shows as changed. A load (or an atomic, which loads too) asks the record whether
 * every byte came from the device's own work, from the inputs, or from a fill; the first one
 * that did not, and the first access to a guard byte, are kept with the place that made them.
 */
#include "prov.h"

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

void prov_global(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                 uint32_t m, unsigned bytes, int store)
{
    struct vm_prov *r = &x->result->prov;
    keep_values(x);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        if (!store || in->op == OP_ATOM) {
            unsigned st = mem_read_by_kernel(x->mem, addr[l], bytes);
            if (st & MEM_GUARDED)
                note(x, w, in, l, addr[l], st, &r->guard);
            else if (st)
                note(x, w, in, l, addr[l], st, &r->handed);
        }
        if (store) {
            if (mem_mark_written(x->mem, addr[l], bytes, MEM_KERNEL))
                note(x, w, in, l, addr[l], MEM_GUARDED, &r->guard);
            struct prov_pending *p = &x->prov_pending;
            p->addr[p->n] = addr[l];
            p->bytes[p->n++] = bytes;
        }
    }
}

void prov_end(struct exec *x)
{
    keep_values(x);
}
