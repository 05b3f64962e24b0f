/**
 * @file cluster.c
 * @brief Thread-block clusters (sm_90): the cluster's geometry and special registers,
 *        distributed shared memory (mapa, getctarank, shared::cluster addresses) and
 *        barrier.cluster.
 *
 * A launch with cluster dimensions (cudaLaunchKernelEx's attribute, or the kernel's
 * __cluster_dims__, .reqnctapercluster in the PTX) runs each cluster's blocks together, taking
 * turns on one thread as a cooperative launch's blocks do (exec.c), so that they can wait for
 * each other; clusters run one after the other. Every other launch is made of clusters of one
 * block, as on a GPU, so %cluster_ctarank is 0 and barrier.cluster is a barrier of the block.
 *
 * A shared::cluster address is the offset in the block's own shared memory, or (rank + 1) <<
 * CLUSTER_SHIFT | offset for the block of that rank (hopper.h): mapa makes the second kind, and
 * every shared access (ld, st, atom, red, mbarrier.arrive, generic or .shared::cluster) takes
 * either. Racecheck and initcheck see a block's accesses to its own shared memory only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "hopper.h"

/* ---- geometry ------------------------------------------------------------------------------- */

int vm_cluster_dims(const struct vm_launch *L, const struct func *fn, uint32_t dims[3])
{
    const uint32_t *d = L->cluster[0] ? L->cluster : fn->info.cluster;
    for (int i = 0; i < 3; i++)
        dims[i] = d[0] ? d[i] : 1;
    return d[0] != 0;
}

const char *vm_cluster_check(const struct vm_launch *L, const struct func *fn, char *buf,
                             size_t size)
{
    const uint32_t *k = fn->info.cluster, *l = L->cluster;
    uint32_t d[3];
    int given = vm_cluster_dims(L, fn, d);
    uint64_t n = (uint64_t)d[0] * d[1] * d[2];
    if (l[0] && k[0] && (l[0] != k[0] || l[1] != k[1] || l[2] != k[2]))
        snprintf(buf, size,
                 "cluster dimensions %u x %u x %u, where the kernel's __cluster_dims__ are %u x %u "
                 "x %u",
                 l[0], l[1], l[2], k[0], k[1], k[2]);
    else if (fn->info.explicit_cluster && !given)
        snprintf(buf, size, "no cluster dimensions for a kernel compiled with .explicitcluster");
    else if (!d[0] || !d[1] || !d[2] || n > CLUSTER_MAX ||
             (fn->info.max_cluster_rank && n > fn->info.max_cluster_rank))
        snprintf(buf, size,
                 "clusters of %u x %u x %u blocks (at most %u, and the kernel's "
                 ".maxclusterrank)",
                 d[0], d[1], d[2], CLUSTER_MAX);
    else if (L->grid[0] % d[0] || L->grid[1] % d[1] || L->grid[2] % d[2])
        snprintf(buf, size,
                 "a grid of %u x %u x %u blocks is not made of whole %u x %u x %u clusters",
                 L->grid[0], L->grid[1], L->grid[2], d[0], d[1], d[2]);
    else
        return NULL;
    return buf;
}

void vm_cluster_place(const uint32_t *grid, const uint32_t dims[3], uint64_t b, uint32_t ctaid[3])
{
    uint64_t size = (uint64_t)dims[0] * dims[1] * dims[2], c = b / size, r = b % size;
    uint64_t ncx = grid[0] / dims[0], ncy = grid[1] / dims[1];
    uint64_t cid[3] = {c % ncx, c / ncx % ncy, c / (ncx * ncy)};
    uint64_t rid[3] = {r % dims[0], r / dims[0] % dims[1], r / ((uint64_t)dims[0] * dims[1])};
    for (int i = 0; i < 3; i++)
        ctaid[i] = (uint32_t)(cid[i] * dims[i] + rid[i]);
}

void vm_cluster_specials(const struct exec *x, uint32_t *v)
{
    uint32_t dims[3];
    int explicit_dims = vm_cluster_dims(x->launch, x->fn, dims);
    for (int i = 0; i < 3; i++) {
        v[SR_CLUSTER_CTAID_X + i] = x->ctaid[i] % dims[i];
        v[SR_CLUSTER_NCTAID_X + i] = dims[i];
        v[SR_CLUSTERID_X + i] = x->ctaid[i] / dims[i];
        v[SR_NCLUSTERID_X + i] = x->launch->grid[i] / dims[i];
    }
    v[SR_CLUSTER_CTARANK] =
        v[SR_CLUSTER_CTAID_X] + dims[0] * (v[SR_CLUSTER_CTAID_Y] + dims[1] * v[SR_CLUSTER_CTAID_Z]);
    v[SR_CLUSTER_NCTARANK] = dims[0] * dims[1] * dims[2];
    v[SR_IS_EXPLICIT_CLUSTER] = explicit_dims ? FULL_MASK : 0;
}

/* ---- the cluster's blocks ------------------------------------------------------------------- */

struct cluster *vm_cluster_new(const uint32_t dims[3], uint32_t nthreads)
{
    struct cluster *c = emu_calloc(1, sizeof *c);
    memcpy(c->dims, dims, sizeof c->dims);
    c->size = dims[0] * dims[1] * dims[2];
    c->nthreads = nthreads;
    c->arrived = emu_calloc((size_t)c->size * nthreads, sizeof *c->arrived);
    return c;
}

void vm_cluster_reset(struct cluster *c)
{
    c->phase = 0;
    memset(c->arrived, 0, (size_t)c->size * c->nthreads * sizeof *c->arrived);
}

void vm_cluster_free(struct cluster *c)
{
    if (!c)
        return;
    free(c->arrived);
    free(c);
}

/* This block's rank in its cluster. */
static uint32_t rank_of(const struct exec *x)
{
    uint32_t v[SR_COUNT];
    vm_cluster_specials(x, v);
    return v[SR_CLUSTER_CTARANK];
}

int vm_cluster_resolve(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t *a,
                       uint8_t **smem, uint32_t *bytes, struct exec **owner)
{
    struct exec *o = x;
    if (*a >> CLUSTER_SHIFT) {
        uint64_t rank = (*a >> CLUSTER_SHIFT) - 1;
        uint32_t size = x->cluster ? x->cluster->size : 1;
        if (rank >= size || *a >> 32) {
            vm_fail(x, w, in, lane, VM_FAULT,
                    "invalid shared::cluster address 0x%llx: it names block rank %llu of a cluster "
                    "of %u",
                    (unsigned long long)*a, (unsigned long long)rank, size);
            return -1;
        }
        o = x->cluster ? x->cluster->cta[rank] : x;
        *a = CLUSTER_OFFSET(*a);
    }
    *smem = o->smem;
    *bytes = o->smem_bytes;
    if (owner)
        *owner = o;
    return 0;
}

/* ---- mapa and getctarank ----------------------------------------------------------------------
 */

/* A shared::cluster address (or a generic one in the shared window, width 1), made the address of
 * the same offset in block @p rank: lane by lane. */
static uint64_t map_to(uint64_t a, int generic, uint32_t rank)
{
    uint64_t off = CLUSTER_OFFSET(generic ? a - SHARED_WINDOW : a);
    uint64_t c = (uint64_t)(rank + 1) << CLUSTER_SHIFT | off;
    return generic ? SHARED_WINDOW + c : c;
}

/* mapa{.shared::cluster}.{u32,u64} d, a, b. */
enum event h_MAPA(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    int generic = in->width & 1, wide = (in->width >> 1) & 1;
    uint32_t size = x->cluster ? x->cluster->size : 1;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t rank = R32(w, in->o[2])[l];
        uint64_t a = wide ? R64(w, in->o[1])[l] : R32(w, in->o[1])[l];
        if (rank >= size)
            return vm_fail(x, w, in, l, VM_FAULT, "mapa to block rank %u of a cluster of %u blocks",
                           rank, size);
        if (generic && a - SHARED_WINDOW >= WINDOW_SIZE)
            return vm_fail(x, w, in, l, VM_FAULT,
                           "mapa of generic address 0x%llx, which is not shared memory",
                           (unsigned long long)a);
        uint64_t d = map_to(a, generic, rank);
        if (wide)
            R64(w, in->o[0])[l] = d;
        else
            R32(w, in->o[0])[l] = (uint32_t)d;
    }
    return EV_NONE;
}

/* getctarank{.shared::cluster}.u32 d, a: the rank of the block whose shared memory a is in. */
enum event h_GETCTARANK(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    int generic = in->width & 1, wide = (in->width >> 1) & 1;
    uint32_t own = rank_of(x);
    LANES(m, {
        uint64_t a = wide ? R64(w, in->o[1])[l] : R32(w, in->o[1])[l];
        a = generic ? a - SHARED_WINDOW : a;
        R32(w, in->o[0])[l] = a >> CLUSTER_SHIFT ? (uint32_t)(a >> CLUSTER_SHIFT) - 1 : own;
    });
    return EV_NONE;
}

/* ---- barrier.cluster ---------------------------------------------------------------------------
 */

/* The cluster whose barrier this block uses: the launch's, or one of the block alone. */
static struct cluster *cluster_of(struct exec *x)
{
    return x->cluster ? x->cluster : vm_hopper_own_cluster(x);
}

/* Every thread of the cluster that has not exited has arrived in the current phase: the phase
 * completes, and each block's shared accesses after it are ordered after those before. */
static void try_complete(struct cluster *c)
{
    for (uint32_t r = 0; r < c->size; r++) {
        const struct exec *b = c->cta[r];
        for (uint32_t i = 0; b && i < b->nwarps; i++)
            for (uint32_t m = b->warps[i].live; m; m &= m - 1)
                if (c->arrived[r * c->nthreads + i * 32 + (uint32_t)__builtin_ctz(m)] <= c->phase)
                    return;
    }
    c->phase++;
    for (uint32_t r = 0; r < c->size; r++)
        if (c->cta[r] && c->cta[r]->launch->checks)
            check_mbarrier_phase(c->cta[r], c->cta[r]->nthreads);
}

/* barrier.cluster.arrive{.release,.relaxed}{.aligned} (width 0) and barrier.cluster.wait{.acquire}
 * {.aligned} (width 1). A wait whose phase has not completed keeps its lanes at the instruction and
 * lets the cluster's other warps run (exec.c yields it), until it completes. */
enum event h_BAR_CLUSTER(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    struct cluster *c = cluster_of(x);
    uint32_t *arrived = c->arrived + rank_of(x) * c->nthreads + w->index * 32;
    if (in->width == 0) {
        for (uint32_t mm = m; mm; mm &= mm - 1) {
            int l = __builtin_ctz(mm);
            if (arrived[l] > c->phase)
                return vm_fail(x, w, in, l, VM_UNSUPPORTED,
                               "barrier.cluster.arrive twice with no barrier.cluster.wait between "
                               "(undefined in the PTX ISA)");
            arrived[l] = (uint32_t)c->phase + 1;
        }
        try_complete(c);
        return EV_NONE;
    }
    uint32_t waiting = 0;
    LANES(m, waiting |= (uint32_t)(arrived[l] > c->phase) << l);
    if (waiting)
        try_complete(c);
    LANES(m, waiting &= ~((uint32_t)(arrived[l] <= c->phase) << l));
    if (!waiting)
        return EV_NONE;
    return vm_yield_here(x, in, m);
}
