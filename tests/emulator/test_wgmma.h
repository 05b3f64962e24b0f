/**
 * @file test_wgmma.h
 * @brief sm_90a's warpgroup MMA on the emulator (test_wgmma_kernels.cu): one wgmma.mma_async per
 *        shape and immediates, fed from a shared-memory image the host lays out, and a small
 *        GEMM of plain loads, wgmma and a 2-block cluster; the cluster registers, distributed
 *        shared memory and barrier.cluster (test_cluster_kernels.cu); test_wgmma.c checks them
 *        against the host. Every launcher returns the launch's error after a cudaDeviceSynchronize.
 */
#ifndef TEST_WGMMA_H
#define TEST_WGMMA_H

#include <cuda_runtime.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The wgmma kernels, each one instruction's shape, types and immediates (wg_shape()). */
enum wg_kernel {
    WG_REGS_N8,   /**< A in registers, bf16, N = 8 */
    WG_REGS_N24,  /**< ... N = 24 */
    WG_REGS_N136, /**< ... N = 136 */
    WG_REGS_N256, /**< ... N = 256 */
    WG_REGS_F16,  /**< A in registers, f16, N = 64 */
    WG_DESC_KK,   /**< A and B from descriptors, bf16, N = 64, both K-major */
    WG_DESC_MK,   /**< ... A M-major (imm-trans-a 1) */
    WG_DESC_KM,   /**< ... B N-major (imm-trans-b 1) */
    WG_DESC_MM,   /**< ... both MN-major */
    WG_DESC_N256, /**< f16, N = 256, K-major */
    WG_DESC_N8,   /**< f16, N = 8, both MN-major */
    WG_F16_ACC,   /**< f16 in, f16 accumulators, N = 64, K-major */
    WG_NEGATED,   /**< bf16, N = 32, imm-scale-a and -b = -1 */
    WG_TF32,      /**< tf32, K = 8, N = 32 */
    /* K = 32: fp8 and 8-bit integers; K = 256: b1 */
    WG_E4M3_REGS_N8,     /**< A in registers, e4m3, f32, N = 8 */
    WG_E4M3_DESC_N256,   /**< A from a descriptor, e4m3, f32, N = 256 */
    WG_E5M2_E4M3_DESC,   /**< e5m2 A (negated) by e4m3 B, f32, N = 64 */
    WG_E4M3_E5M2_REGS,   /**< A in registers, e4m3 by e5m2, f32, N = 64 */
    WG_FP8_F16_DESC_N16, /**< e5m2 by e4m3 (B negated), f16 accumulators, N = 16 */
    WG_FP8_F16_REGS,     /**< A in registers, e4m3, f16 accumulators, N = 256 */
    WG_S8_U8_DESC,       /**< s8 by u8, s32 wrapping, N = 64 */
    WG_S8_U8_SAT_DESC,   /**< ... .satfinite (after the shape) */
    WG_U8_S8_SAT_REGS,   /**< A in registers, u8 by s8, .satfinite (last), N = 224 */
    WG_S8_S8_REGS_N8,    /**< A in registers, s8, N = 8 */
    WG_B1_DESC,          /**< b1 .and.popc, N = 48 */
    WG_B1_REGS_N256,     /**< A in registers, b1 .and.popc, N = 256 */
    WG_DESC_KK_OWN,      /**< WG_DESC_KK with no barrier after the warpgroup's stores */
    WG_KERNELS
};

/** Input types of the wgmma kernels. */
enum wg_in {
    WG_IN_F16,
    WG_IN_BF16,
    WG_IN_TF32,
    WG_IN_E4M3,
    WG_IN_E5M2,
    WG_IN_S8,
    WG_IN_U8,
    WG_IN_B1
};
/** Accumulator types: f32 (N / 2 registers), f16 (N / 4), s32 (N / 2) wrapping or saturating. */
enum wg_d { WG_D_F32, WG_D_F16, WG_D_S32, WG_D_S32_SAT };

/** What kernel @p k's wgmma.mma_async is. */
struct wg_shape {
    int n, k;     /**< N and K (M is 64) */
    int in, in_b; /**< A's and B's input types (enum wg_in) */
    int d;        /**< the accumulators' (enum wg_d) */
    int a_regs;   /**< 1: A from registers */
    int neg_a, neg_b;
    int trans_a, trans_b; /**< 1: MN-major */
};
struct wg_shape wg_shape(int kernel);

/** The shared memory every wgmma kernel takes (its image at offset 0, 1024-byte aligned). */
enum { WG_SMEM = 48 * 1024 };

/**
 * One block of 128 threads: shared memory = @p d_image (@p bytes, a multiple of 16); thread t
 * loads its A fragment (4 registers) from d_a[4 t ..] and its accumulators (nd = N / 2 or N / 4
 * registers) from d_d[nd t ..]; runs kernel @p kernel's wgmma @p steps times in one commit group,
 * descriptor i of step s being desc[i] + s * adv[i] (the start fields are offsets into the image:
 * the kernel adds its shared memory's address), scale-d @p scale_d; waits; stores the
 * accumulators back to d_d.
 */
cudaError_t wg_run(int kernel, const void *d_image, int bytes, const uint32_t *d_a, uint32_t *d_d,
                   const uint64_t desc[2], const uint64_t adv[2], int steps, int scale_d);

/** Planted bugs of the GEMM below (test_wgmma.c expects each caught). */
enum wg_bug {
    WG_CORRECT,
    WG_NO_FENCE,   /**< no fence.proxy.async between the tiles' stores and the wgmma */
    WG_NO_BARRIER, /**< no barrier between the tiles' stores (both warpgroups') and the wgmma */
    WG_EARLY_READ, /**< the accumulators stored before the last wgmma.wait_group, and only then */
    WG_LATE_WAIT   /**< wgmma.wait_group 2 where the double buffer needs 1: a buffer refilled
                        while a wgmma that reads it is in flight */
};

/**
 * C = A B for row-major bf16 A (M x K) and B (K x N), fp32 C, any M, N, K >= 1: blocks of two
 * warpgroups compute 128 x 64 tiles of C over 64-deep tiles of K with wgmma m64n64k16 from
 * 128-byte swizzled shared memory, @p stages (1 or 2) buffers; with @p cluster 2, blocks pair
 * up along M in clusters of 2 launched by cudaLaunchKernelEx, and rank 1 takes its B tiles from
 * rank 0's shared memory (distributed shared memory) instead of global memory.
 */
cudaError_t wg_gemm(const uint16_t *d_a, const uint16_t *d_b, float *d_c, int M, int N, int K,
                    int stages, int cluster, int bug);

/** Refusals, each launched alone. */
/** A producer warp (warp 4) copies @p slices 8 KiB slices of @p src (cp.async.bulk, 16-byte
 *  aligned, 8 KiB) into two stages through full and empty mbarriers; warpgroup 0 multiplies each
 *  (four wgmma m64n64k16 from the stage's swizzled bytes, as A and B), waits for them with
 *  wgmma.wait_group 0 and only then releases the stage. One block; synchronises. */
cudaError_t wg_producer_consumer(const uint8_t *src, int slices);

enum wg_refusal {
    WG_PART_OF_WARP,  /**< 16 lanes of each warp execute the wgmma */
    WG_THREE_WARPS,   /**< a block of 96 threads */
    WG_WARP_EXITS,    /**< warp 3 of the warpgroup exits instead */
    WG_OTHER_MMA,     /**< warp 0 issues another wgmma.mma_async than the others */
    WG_PAST_SMEM,     /**< B's descriptor reaches past the block's shared memory */
    WG_SPARSE,        /**< wgmma.mma_async.sp (sparse A with metadata), s8 */
    WG_MAXNREG_MIXED, /**< warp 0 executes another setmaxnreg than warps 1 to 3 */
    WG_MAXNREG_LOWER, /**< setmaxnreg.inc to fewer registers than the warp holds */
    WG_REFUSALS
};

cudaError_t wg_refusal(int which);

/** What each block of a cluster launch records (test_cluster_kernels.cu), in this order:
 *  %cluster_ctarank, %cluster_nctarank, %cluster_ctaid.xyz, %cluster_nctaid.xyz, %clusterid.xyz,
 *  %nclusterid.xyz, %is_explicit_cluster, its counter of ranks + 1 that every thread of the
 *  cluster added, its counter of elected lanes + 1, the next rank's first counter read through
 *  ld.shared::cluster, and getctarank of that address. */
enum { CL_FIELDS = 19 };

/** cl_kernel (no cluster dimensions of its own) on @p grid of @p threads by cudaLaunchKernelEx
 *  with clusters of @p cluster (zeros: none), after cudaFuncAttributeNonPortableClusterSize-
 *  Allowed = @p non_portable; CL_FIELDS words per block into @p d_out, blocks in launch order. */
cudaError_t cl_run(unsigned *d_out, dim3 grid, int threads, const unsigned cluster[3],
                   int non_portable);
/** The same for cl_dims_kernel, whose __cluster_dims__ are 2 x 1 x 1: by <<< >>> when @p cluster
 *  is zeros, else by cudaLaunchKernelEx with those. */
cudaError_t cl_run_dims(unsigned *d_out, dim3 grid, int threads, const unsigned cluster[3]);
/** For cl_kernel (or cl_dims_kernel) with clusters of @p cluster (zeros: no attribute) and
 *  blocks of @p threads: cudaOccupancyMaxActiveClusters into @p clusters,
 *  cudaOccupancyMaxPotentialClusterSize into @p most, and the blocks an SM holds into
 *  @p per_sm. */
cudaError_t cl_occupancy(int dims_kernel, const unsigned cluster[3], int threads, int *clusters,
                         int *most, int *per_sm);
/** cl_coop_kernel on @p blocks blocks of 64 threads, cooperative and in clusters of @p cluster
 *  (x): block b's counter, which the previous rank of its cluster filled with word
 *  blocks - 1 - prev of @p d_scratch (word w = 7w + 3) after grid.sync(), into d_out[b]. */
cudaError_t cl_run_cooperative(unsigned *d_scratch, unsigned *d_out, int blocks, unsigned cluster);
/** cudaFuncGetAttributes of cl_dims_kernel. */
cudaError_t cl_dims_attributes(struct cudaFuncAttributes *attr);

#ifdef __cplusplus
}
#endif

#endif /* TEST_WGMMA_H */
