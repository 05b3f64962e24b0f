/**
 * @file test_model_hopper_kernels.cu
 * @brief The time model's Hopper kernels (test_model_hopper.h): a 64 x 64 tile of C per block
 *        from a loop of 64 x 64 bf16 tiles of A and B, each brought into shared memory by two
 *        bulk copies (the copy engine, completing on the stage's mbarrier) and multiplied by
 *        four wgmma m64n64k16 reading both operands from shared memory. Versions, in order:
 *   one stage        the copies of tile t + 1 issued once tile t is multiplied
 *   STAGES stages    the copies of STAGES tiles in flight, one thread of the warpgroup
 *                    refilling a stage once every warp is done with it
 *   warp-specialised a producer warp issues the copies, the consumer warpgroup only multiplies
 *   fp8              STAGES stages, the same bytes multiplied as e4m3 (wgmma m64n64k32): twice
 *                    the flops, at twice the rate
 * The operands are not laid out as a GEMM's (the model, not the product, is under test).
 * And a copy whose blocks run in resident groups: clusters of two, and a cooperative grid (then
 * the same grid launched plainly).
 */
#include "test_model_hopper.h"

#include <stdint.h>

#define TILE_BYTES (64 * 64 * 2) /* a 64 x 64 bf16 tile, A's or B's */

/* A no-swizzle descriptor of a K-major 64 x 16 operand at @p smem: 8 x 8 core matrices of 128
 * contiguous bytes, the two along K 128 bytes apart (leading byte offset), the eight along M
 * or N 256 bytes apart (stride byte offset). */
static __device__ uint64_t mh_desc(const uint8_t *smem)
{
    uint64_t a = (uint64_t)__cvta_generic_to_shared(smem);
    return (a & 0x3FFFF) >> 4 | (uint64_t)(128 >> 4) << 16 | (uint64_t)(256 >> 4) << 32;
}

#define MH_F8(i)                                                                                   \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),    \
        "+f"(d[i + 6]), "+f"(d[i + 7])

#define MH_D32                                                                                     \
    "{%2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, "     \
    "%21, "                                                                                        \
    "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33}"

/* d += the stage's A (64 x 64 bf16, or with FP8 64 x 128 e4m3) times its B: four k-steps of 32
 * bytes, each 2048 bytes further on. */
template <int FP8>
static __device__ void mh_multiply(const uint8_t *sa, const uint8_t *sb, float (&d)[32])
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int k = 0; k < 4; k++) {
        uint64_t da = mh_desc(sa + 2048 * k), db = mh_desc(sb + 2048 * k);
        if (FP8)
            asm volatile("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 " MH_D32
                         ", %0, %1, 1, 1, 1;"
                         : "+l"(da), "+l"(db), MH_F8(0), MH_F8(8), MH_F8(16), MH_F8(24)
                         :
                         : "memory");
        else
            asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " MH_D32
                         ", %0, %1, 1, 1, 1, 0, 0;"
                         : "+l"(da), "+l"(db), MH_F8(0), MH_F8(8), MH_F8(16), MH_F8(24)
                         :
                         : "memory");
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

static __device__ uint32_t mh_u32(const void *smem)
{
    return (uint32_t)__cvta_generic_to_shared(smem);
}

/* One bulk copy of a tile from @p src into @p dst, completing on @p bar. */
static __device__ void mh_copy(uint8_t *dst, const uint8_t *src, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(mh_u32(dst)),
                 "l"(src), "r"(TILE_BYTES), "r"(mh_u32(bar))
                 : "memory");
}

/* Tile @p t of A and B into stage @p s, completing on @p full (one thread). */
static __device__ void mh_issue(uint8_t *sa, uint8_t *sb, uint64_t *full, const uint8_t *a,
                                const uint8_t *b, int t)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mh_u32(full)),
                 "r"(2 * TILE_BYTES)
                 : "memory");
    mh_copy(sa, a + (size_t)t * TILE_BYTES, full);
    mh_copy(sb, b + (size_t)t * TILE_BYTES, full);
}

/* Until the phase of parity @p parity of @p bar has completed. */
static __device__ void mh_wait(uint64_t *bar, uint32_t parity)
{
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(mh_u32(bar)), "r"(parity)
                     : "memory");
}

/* The accumulators out, so that the work is kept: accumulator i of thread t at c + 128 i + t
 * of its block's 4096 floats (coalesced). */
static __device__ void mh_store(float *c, const float (&d)[32])
{
    for (int i = 0; i < 32; i++)
        c[(blockIdx.x * 32 + i) * 128 + threadIdx.x] = d[i];
}

template <int STAGES, int SPECIALISED, int FP8>
static __global__ void __launch_bounds__(SPECIALISED ? 160 : 128)
    model_tma_gemm_kernel(const uint8_t *a, const uint8_t *b, float *c, int tiles)
{
    extern __shared__ __align__(1024) uint8_t mh_smem[];
    __shared__ uint64_t full[STAGES], empty[STAGES];
    uint8_t *sa = mh_smem, *sb = mh_smem + STAGES * TILE_BYTES;
    float d[32] = {0};
    if (threadIdx.x == 0)
        for (int s = 0; s < STAGES; s++) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mh_u32(&full[s])));
            /* one arrival per consumer warp */
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 4;" ::"r"(mh_u32(&empty[s])));
        }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();                         /* the mbarriers exist before anyone uses them */
    if (SPECIALISED && threadIdx.x >= 128) { /* the producer warp: lane 0 issues */
        for (int t = 0; threadIdx.x == 128 && t < tiles; t++) {
            int s = t % STAGES;
            if (t >= STAGES) /* the consumers are done with the stage's previous tile */
                mh_wait(&empty[s], (uint32_t)(t / STAGES - 1) & 1);
            mh_issue(sa + s * TILE_BYTES, sb + s * TILE_BYTES, &full[s], a, b, t);
        }
        return;
    }
    for (int t = 0; !SPECIALISED && threadIdx.x == 0 && t < STAGES && t < tiles; t++)
        mh_issue(sa + t * TILE_BYTES, sb + t * TILE_BYTES, &full[t], a, b, t);
    for (int t = 0; t < tiles; t++) {
        int s = t % STAGES;
        mh_wait(&full[s], (uint32_t)(t / STAGES) & 1);
        mh_multiply<FP8>(sa + s * TILE_BYTES, sb + s * TILE_BYTES, d);
        if (SPECIALISED) {
            if (threadIdx.x % 32 == 0)
                asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(mh_u32(&empty[s]))
                             : "memory");
            continue;
        }
        __syncthreads(); /* every warp's wgmma done with stage s before it is refilled */
        if (threadIdx.x == 0 && t + STAGES < tiles)
            mh_issue(sa + s * TILE_BYTES, sb + s * TILE_BYTES, &full[s], a, b, t + STAGES);
    }
    mh_store(c, d);
}

template <int STAGES, int SPECIALISED, int FP8>
static void launch(int blocks, int tiles, const uint8_t *a, const uint8_t *b, float *c)
{
    size_t smem = 2 * STAGES * TILE_BYTES;
    cudaFuncSetAttribute(model_tma_gemm_kernel<STAGES, SPECIALISED, FP8>,
                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    model_tma_gemm_kernel<STAGES, SPECIALISED, FP8>
        <<<blocks, SPECIALISED ? 160 : 128, smem>>>(a, b, c, tiles);
}

extern "C" void model_tma_gemm(int version, int blocks, int tiles, const void *d_a, const void *d_b,
                               float *d_c)
{
    const uint8_t *a = (const uint8_t *)d_a, *b = (const uint8_t *)d_b;
    if (version == MODEL_TMA_ONE_STAGE)
        launch<1, 0, 0>(blocks, tiles, a, b, d_c);
    else if (version == MODEL_TMA_STAGES)
        launch<MODEL_TMA_DEPTH, 0, 0>(blocks, tiles, a, b, d_c);
    else if (version == MODEL_TMA_SPECIALISED)
        launch<MODEL_TMA_DEPTH, 1, 0>(blocks, tiles, a, b, d_c);
    else
        launch<MODEL_TMA_DEPTH, 0, 1>(blocks, tiles, a, b, d_c);
}

/* y = x, one float a thread, in clusters of two blocks. */
static __global__ void __cluster_dims__(2, 1, 1)
    model_cluster_copy_kernel(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

/* y = x, a grid-stride loop. */
static __global__ void model_cooperative_copy_kernel(int n, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = x[i];
}

extern "C" void model_resident_copies(int n, const float *d_x, float *d_y)
{
    model_cluster_copy_kernel<<<(n + 511) / 512 * 2, 256>>>(n, d_x, d_y);
    void *args[] = {&n, &d_x, &d_y};
    cudaLaunchCooperativeKernel((const void *)model_cooperative_copy_kernel, dim3(264), dim3(256),
                                args, 0, 0);
    model_cooperative_copy_kernel<<<264, 256>>>(n, d_x, d_y);
}
