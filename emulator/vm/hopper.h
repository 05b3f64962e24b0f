/**
 * @file hopper.h
 * @brief sm_90's warpgroup and cluster machinery: what the family files of wgmma
 *        (ops_wgmma.c) and thread-block clusters (cluster.c) share with exec.c and the memory
 *        paths.
 *
 * A warpgroup is four consecutive warps of a block, warp 4g to 4g + 3. Its wgmma.mma_async
 * instructions wait in a queue until a wgmma.wait_group covers them, and run then: every warp
 * of the warpgroup must have issued one, and they read shared memory as it is at the wait (the
 * latest a GPU may read it). A cluster is a group of blocks that run together, each the others'
 * neighbour through distributed shared memory and barrier.cluster.
 */
#ifndef EMU_HOPPER_H
#define EMU_HOPPER_H

#include "vm_impl.h"

/** A shared::cluster address names block (rank + 1) << CLUSTER_SHIFT | offset; an address below
 *  1 << CLUSTER_SHIFT is the block's own shared memory (a shared::cta address is a valid
 *  shared::cluster one). Generic addresses are SHARED_WINDOW plus these. */
#define CLUSTER_SHIFT 24
#define CLUSTER_OFFSET(a) ((a) & ((1ull << CLUSTER_SHIFT) - 1))
/** The most blocks a cluster holds (16 with cudaFuncAttributeNonPortableClusterSizeAllowed). */
#define CLUSTER_MAX 16

/** The blocks of one cluster, running together (exec.c's resident contexts), and its barrier. */
struct cluster {
    uint32_t dims[3];              /**< blocks per cluster in x, y, z */
    uint32_t size;                 /**< their product */
    struct exec *cta[CLUSTER_MAX]; /**< each rank's context */
    uint64_t phase;                /**< barrier.cluster phases completed */
    uint32_t *arrived; /**< arrivals each thread of each rank made: [rank * nthreads + tid] */
    uint32_t nthreads; /**< threads per block */
};

/** A block's state for sm_90's warpgroup instructions (ops_wgmma.c). */
struct hopper;

/** Fields of OP_WGMMA_MMA's insn.mod: N (8 .. 256), A's, B's and D's types (enum mma_type), A
 *  and B negated (imm-scale -1), A and B MN-major (imm-trans 1); and .satfinite as
 *  MMA_SATFINITE_BIT (vm_impl.h), the bit mma.sync's tile arithmetic reads. */
#define WG_MOD(n, at, bt, dt, na, nb, ta, tb)                                                      \
    ((n) / 8 | (at) << 6 | (bt) << 10 | (dt) << 14 | (na) << 18 | (nb) << 19 | (ta) << 20 |        \
     (tb) << 21)
#define WG_N(mod) (((mod)&63) * 8)
#define WG_AT(mod) (((mod) >> 6) & 15)
#define WG_BT(mod) (((mod) >> 10) & 15)
#define WG_DT(mod) (((mod) >> 14) & 15)
#define WG_NA(mod) (((mod) >> 18) & 1)
#define WG_NB(mod) (((mod) >> 19) & 1)
#define WG_TA(mod) (((mod) >> 20) & 1)
#define WG_TB(mod) (((mod) >> 21) & 1)

/** A handler whose lanes @p m must wait at @p in (a barrier.cluster.wait, a wgmma.wait_group):
 *  they stay there and the warp yields to the others (exec.c), which run meanwhile. */
static inline enum event vm_yield_here(struct exec *x, const struct insn *in, uint32_t m)
{
    x->branch_taken = m;
    x->branch_target = (uint32_t)(in - x->code);
    x->back_branches = YIELD_BRANCHES - 1;
    return EV_BRANCH;
}

/* ---- cluster.c ------------------------------------------------------------------------------ */

/** The cluster's special registers for block x->ctaid into @p v (enum special's slots). */
void vm_cluster_specials(const struct exec *x, uint32_t *v);

/** The blocks per cluster of launch @p L: its own dimensions, else the kernel's
 *  .reqnctapercluster, else 1 x 1 x 1 (into @p dims); 1 when the launch is a cluster one. */
int vm_cluster_dims(const struct vm_launch *L, const struct func *fn, uint32_t dims[3]);

/** Why launch @p L of @p fn has cluster dimensions no launch may have (into @p buf), or NULL. */
const char *vm_cluster_check(const struct vm_launch *L, const struct func *fn, char *buf,
                             size_t size);

/** Block number @p b of a launch in clusters of @p dims: cluster after cluster, each cluster's
 *  blocks in rank order (x fastest). Its ctaid into @p ctaid. */
void vm_cluster_place(const uint32_t *grid, const uint32_t dims[3], uint64_t b, uint32_t ctaid[3]);

/** A cluster for @p n blocks of @p nthreads threads (each rank's context set by the caller). */
struct cluster *vm_cluster_new(const uint32_t dims[3], uint32_t nthreads);
/** A new cluster's barrier state (its blocks start). */
void vm_cluster_reset(struct cluster *c);
void vm_cluster_free(struct cluster *c);

/**
 * Shared-memory offset @p a of lane @p lane (SP_SHARED: a shared::cluster address, which may
 * name another block of the cluster) into the block that holds it: its shared memory and size
 * into @p smem and @p bytes, and the offset in it into @p a. 0, or -1 when @p a names no block
 * of the cluster (the launch failed then).
 */
int vm_cluster_resolve(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t *a,
                       uint8_t **smem, uint32_t *bytes, struct exec **owner);

/* ---- ops_wgmma.c -------------------------------------------------------------------------- */

/** A context's state (x->hop), when a function the kernel reaches executes a warpgroup or
 *  cluster instruction; NULL otherwise. Its block starts (the queues empty); its context ends. */
void vm_hopper_make(struct exec *x);
void vm_hopper_block_start(struct exec *x);
void vm_hopper_free(struct exec *x);
/** The cluster of this block alone, for barrier.cluster in a launch without clusters. */
struct cluster *vm_hopper_own_cluster(struct exec *x);

/** Before lanes @p m of warp @p w run @p in while x->wgmma_watch is set: an access to a register
 *  that a wgmma.mma_async in flight owns (its accumulators, its A fragment) first waits for it,
 *  as ptxas makes the code do (EV_BRANCH: the warp waits at @p in for the warpgroup's other
 *  warps to issue it), and racecheck reports it. */
enum event vm_wgmma_watch(struct exec *x, struct warp *w, const struct insn *in, uint32_t m);

#endif /* EMU_HOPPER_H */
