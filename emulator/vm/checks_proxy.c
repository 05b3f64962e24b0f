/**
 * @file checks_proxy.c
 * @brief Racecheck's async-proxy rule for wgmma: shared memory written through the generic
 *        proxy (st.shared, cp.async, atomics) must be fenced with fence.proxy.async before a
 *        wgmma.mma_async reads it through the async proxy (PTX ISA, "Async Proxy").
 *
 * Per byte of the block's shared memory: the warp that last wrote it through the generic proxy,
 * where, and the block's count of fences at that moment. A fence.proxy.async advances the count
 * and stamps the warp that executed it. A wgmma's read of a byte is fenced when the writer's warp
 * (which then makes the write visible with a barrier) or a warp of the reading warpgroup (after
 * a barrier that ordered the write before it) executed a fence since the write; otherwise it is
 * reported, once per pair of lines.
 */
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "hopper.h"

/* One byte's last generic write: warp + 1 (0: none since the async proxy or the block began),
 * the instruction, and the block's fence count then. */
struct proxy_byte {
    uint32_t warp, pc, fences;
};

struct proxy {
    struct proxy_byte *b; /* per byte of shared memory */
    uint32_t bytes;
    uint32_t fences;  /* fence.proxy.async executed in the block so far */
    uint32_t *fenced; /* per warp: the fence count its latest fence made (0: none) */
};

void check_proxy_block(struct exec *x)
{
    struct proxy *p = x->proxy;
    if (!p) {
        p = emu_calloc(1, sizeof *p);
        p->bytes = x->smem_bytes;
        p->b = emu_calloc(p->bytes ? p->bytes : 1, sizeof *p->b);
        p->fenced = emu_calloc(x->nwarps, sizeof *p->fenced);
        x->proxy = p;
        return;
    }
    memset(p->b, 0, p->bytes * sizeof *p->b);
    memset(p->fenced, 0, x->nwarps * sizeof *p->fenced);
    p->fences = 0;
}

void check_proxy_free(struct exec *x)
{
    struct proxy *p = x->proxy;
    if (!p)
        return;
    free(p->b);
    free(p->fenced);
    free(p);
    x->proxy = NULL;
}

void check_proxy_store(struct exec *x, const struct warp *w, const struct insn *in,
                       const uint64_t *addr, uint32_t m, unsigned bytes)
{
    struct proxy *p = x->proxy;
    if (!p)
        return;
    struct proxy_byte now = {w->index + 1, (uint32_t)(in - x->code), p->fences};
    for (uint32_t mm = m; mm; mm &= mm - 1)
        for (unsigned i = 0; i < bytes && addr[__builtin_ctz(mm)] + i < p->bytes; i++)
            p->b[addr[__builtin_ctz(mm)] + i] = now;
}

void check_proxy_fence(struct exec *x, const struct warp *w, uint32_t m)
{
    struct proxy *p = x->proxy;
    if (p && m)
        p->fenced[w->index] = ++p->fences;
}

void check_proxy_read(struct exec *x, const struct warp *w, const struct insn *in, uint64_t addr,
                      unsigned bytes)
{
    struct proxy *p = x->proxy;
    uint32_t g = w->index / 4 * 4;
    for (unsigned i = 0; p && i < bytes && addr + i < p->bytes; i++) {
        const struct proxy_byte *b = &p->b[addr + i];
        if (!b->warp || p->fenced[b->warp - 1] > b->fences)
            continue;
        uint32_t reader = 0;
        for (uint32_t j = g; j < g + 4 && j < x->nwarps; j++)
            reader |= p->fenced[j] > b->fences;
        if (reader)
            continue;
        char me[400], at[200];
        check_report_at(x, (uint32_t)(in - x->code), b->pc,
                        "racecheck: wgmma.mma_async reads shared 0x%llx through the async proxy, "
                        "written through the generic proxy by warp %u at %s with no "
                        "fence.proxy.async between, %s",
                        (unsigned long long)(addr + i), b->warp - 1,
                        vm_where(x->mod, &x->code[b->pc], at, sizeof at),
                        vm_describe(x, w, in, 0, me, sizeof me));
        return;
    }
}
