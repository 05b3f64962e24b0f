/**
 * @file test_cluster_kernels.cu
 * @brief Thread-block clusters for the emulator's wgmma suite (test_wgmma.c), in PTX so that
 *        each form is the one named: every block records the cluster's special registers, adds
 *        to a counter in every block of its cluster through mapa and red/atom.shared::cluster
 *        (distributed shared memory) between barrier.cluster arrives and waits, reads its
 *        neighbour's counter with ld.shared::cluster and names its rank with getctarank; one
 *        lane of each warp, chosen by elect.sync, adds its lane number.
 *   cl_run        cl_kernel with the cluster dimensions of cudaLaunchKernelEx (zeros: none)
 *   cl_run_dims   cl_dims_kernel, whose __cluster_dims__ are 2 x 1 x 1, by <<< >>>
 *   cl_run_cooperative  cl_coop_kernel, a cooperative launch in clusters: grid.sync() between
 *                       clusters, distributed shared memory within one
 */
#include <cooperative_groups.h>

#include "test_wgmma.h"

/* A 32-bit special register by name. */
#define SREG(name)                                                                                 \
    ({                                                                                             \
        unsigned v_;                                                                               \
        asm volatile("mov.u32 %0, %%" name ";" : "=r"(v_));                                        \
        v_;                                                                                        \
    })

/* The cluster's barrier: every thread of every block of the cluster arrives, then waits. */
static __device__ __forceinline__ void cluster_barrier(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

/* The block's record (CL_FIELDS words at out + CL_FIELDS * its linear block number). */
static __device__ void cl_body(unsigned *out)
{
    __shared__ unsigned counter[2]; /* [0]: every thread's rank + 1; [1]: elected lanes + 1 */
    __shared__ uint64_t bar;        /* an mbarrier that each block's thread 0 arrives on */
    unsigned rank = SREG("cluster_ctarank"), n = SREG("cluster_nctarank"), lane = threadIdx.x % 32;
    unsigned local = (unsigned)__cvta_generic_to_shared(counter);
    unsigned local_bar = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x < 2)
        counter[threadIdx.x] = 0;
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(local_bar), "r"(n) : "memory");
    cluster_barrier(); /* every block's counters and mbarrier are ready before any block uses them
                        */
    for (unsigned r = 0; threadIdx.x == 0 && r < n; r++) {
        unsigned remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                     : "=r"(remote)
                     : "r"(local_bar), "r"(r));
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                     : "memory");
    }
    for (unsigned r = 0; r < n; r++) {
        unsigned remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(r));
        asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(remote), "r"(rank + 1)
                     : "memory");
        if (lane >= 5) { /* lanes 5 .. 31 that run: elect.sync picks the lowest, lane 5 */
            unsigned leader, old, is_leader;
            asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.u32 %1, 1, 0, p; }"
                         : "=r"(leader), "=r"(is_leader)
                         : "r"(__activemask()));
            if (is_leader)
                asm volatile("atom.shared::cluster.add.u32 %0, [%1], %2;"
                             : "=r"(old)
                             : "r"(remote + 4), "r"(leader + 1)
                             : "memory");
            if (is_leader && old % 6) /* every addition before this one was 5 + 1 */
                asm volatile("trap;");
        }
    }
    unsigned done = 0; /* phase 0 of this block's mbarrier: every block's thread 0 arrived */
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, "
                     "[%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(local_bar)
                     : "memory");
    cluster_barrier(); /* every addition is done */
    unsigned *o =
        out + CL_FIELDS * (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
    if (threadIdx.x == 0) {
        unsigned next, got, owner, explicit_cluster;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                     : "=r"(next)
                     : "r"(local), "r"((rank + 1) % n));
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(got) : "r"(next) : "memory");
        asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(owner) : "r"(next));
        asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }"
                     : "=r"(explicit_cluster));
        unsigned v[CL_FIELDS] = {rank,
                                 n,
                                 SREG("cluster_ctaid.x"),
                                 SREG("cluster_ctaid.y"),
                                 SREG("cluster_ctaid.z"),
                                 SREG("cluster_nctaid.x"),
                                 SREG("cluster_nctaid.y"),
                                 SREG("cluster_nctaid.z"),
                                 SREG("clusterid.x"),
                                 SREG("clusterid.y"),
                                 SREG("clusterid.z"),
                                 SREG("nclusterid.x"),
                                 SREG("nclusterid.y"),
                                 SREG("nclusterid.z"),
                                 explicit_cluster,
                                 counter[0],
                                 counter[1],
                                 got,
                                 owner};
        for (int i = 0; i < CL_FIELDS; i++)
            o[i] = v[i];
    }
    cluster_barrier(); /* the neighbour read this block's counter before the block exits */
}

static __global__ void cl_kernel(unsigned *out)
{
    cl_body(out);
}

static __global__ void __cluster_dims__(2, 1, 1) cl_dims_kernel(unsigned *out)
{
    cl_body(out);
}

/* Kernel @p k on @p grid by cudaLaunchKernelEx, with cluster dimensions @p cluster (zeros: no
 * attribute). */
static cudaError_t launch_ex(void (*k)(unsigned *), unsigned *d_out, dim3 grid, int threads,
                             const unsigned cluster[3])
{
    cudaLaunchAttribute dims = {};
    dims.id = cudaLaunchAttributeClusterDimension;
    dims.val.clusterDim.x = cluster[0], dims.val.clusterDim.y = cluster[1];
    dims.val.clusterDim.z = cluster[2];
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid, cfg.blockDim = dim3(threads);
    cfg.attrs = &dims, cfg.numAttrs = cluster[0] ? 1 : 0;
    cudaError_t err = cudaLaunchKernelEx(&cfg, k, d_out);
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

extern "C" cudaError_t cl_run(unsigned *d_out, dim3 grid, int threads, const unsigned cluster[3],
                              int non_portable)
{
    cudaError_t err = cudaFuncSetAttribute(
        cl_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, non_portable);
    return err != cudaSuccess ? err : launch_ex(cl_kernel, d_out, grid, threads, cluster);
}

extern "C" cudaError_t cl_run_dims(unsigned *d_out, dim3 grid, int threads,
                                   const unsigned cluster[3])
{
    if (cluster[0])
        return launch_ex(cl_dims_kernel, d_out, grid, threads, cluster);
    cl_dims_kernel<<<grid, threads>>>(d_out);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

extern "C" cudaError_t cl_dims_attributes(struct cudaFuncAttributes *attr)
{
    return cudaFuncGetAttributes(attr, cl_dims_kernel);
}

extern "C" cudaError_t cl_occupancy(int dims_kernel, const unsigned cluster[3], int threads,
                                    int *clusters, int *most, int *per_sm)
{
    void (*k)(unsigned *) = dims_kernel ? cl_dims_kernel : cl_kernel;
    cudaLaunchAttribute dims = {};
    dims.id = cudaLaunchAttributeClusterDimension;
    dims.val.clusterDim.x = cluster[0], dims.val.clusterDim.y = cluster[1];
    dims.val.clusterDim.z = cluster[2];
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(cluster[0] ? cluster[0] : 2), cfg.blockDim = dim3(threads);
    cfg.attrs = &dims, cfg.numAttrs = cluster[0] ? 1 : 0;
    cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, k, threads, 0);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxPotentialClusterSize(most, k, &cfg);
    return err != cudaSuccess ? err : cudaOccupancyMaxActiveClusters(clusters, k, &cfg);
}

/* Block b writes its word to @p scratch; after grid.sync() (every word written, in every
 * cluster) thread 0 adds the word of block nblocks - 1 - b into the counter of the next rank of
 * its cluster through mapa and red.shared::cluster; after the cluster's barrier each block's
 * counter goes to out[b]. */
static __global__ void cl_coop_kernel(unsigned *scratch, unsigned *out)
{
    __shared__ unsigned got;
    unsigned rank = SREG("cluster_ctarank"), n = SREG("cluster_nctarank"), b = blockIdx.x;
    if (threadIdx.x == 0) {
        scratch[b] = b * 7 + 3;
        got = 0;
    }
    cooperative_groups::this_grid().sync(); /* every block's word is written */
    cluster_barrier();                      /* every counter is 0 before a peer adds to it */
    if (threadIdx.x == 0) {
        unsigned peer, own = (unsigned)__cvta_generic_to_shared(&got);
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                     : "=r"(peer)
                     : "r"(own), "r"((rank + 1) % n));
        asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(peer),
                     "r"(scratch[gridDim.x - 1 - b])
                     : "memory");
    }
    cluster_barrier(); /* every peer's addition has landed */
    if (threadIdx.x == 0)
        out[b] = got;
}

extern "C" cudaError_t cl_run_cooperative(unsigned *d_scratch, unsigned *d_out, int blocks,
                                          unsigned cluster)
{
    cudaLaunchAttribute attrs[2] = {};
    attrs[0].id = cudaLaunchAttributeClusterDimension;
    attrs[0].val.clusterDim.x = cluster, attrs[0].val.clusterDim.y = 1;
    attrs[0].val.clusterDim.z = 1;
    attrs[1].id = cudaLaunchAttributeCooperative;
    attrs[1].val.cooperative = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)blocks), cfg.blockDim = dim3(64);
    cfg.attrs = attrs, cfg.numAttrs = 2;
    cudaError_t err = cudaLaunchKernelEx(&cfg, cl_coop_kernel, d_scratch, d_out);
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}
