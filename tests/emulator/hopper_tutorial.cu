/**
 * @file hopper_tutorial.cu
 * @brief A Hopper TMA program written the way public tutorials write one, run on the emulator
 *        as the test emulator.hopper.tutorial_program (it exits 0 when its own checks pass).
 *
 * Why one file with main(), against the course's rule that host code lives in .c files: it
 * stands for the programs students bring from blog posts and worklogs, which are written so,
 * and the emulator must run them as they are. Its idioms are theirs:
 *   - cuTensorMapEncodeTiled found through cudaGetDriverEntryPoint (CUDA 12's call, deprecated
 *     in CUDA 13: CUDA_ENABLE_DEPRECATED is defined for this file) as a PFN_ from
 *     cudaTypedefs.h, never linked against libcuda;
 *   - the maps passed as const __grid_constant__ CUtensorMap, their addresses given to PTX;
 *   - inline PTX for mbarrier.init, fence.proxy.async, mbarrier.arrive.expect_tx,
 *     cp.async.bulk.tensor.2d loads and stores, and a mbarrier.try_wait.parity spin loop whose
 *     label is repeated by every inlined copy;
 *   - a two-stage ring, the 128-byte swizzle, and the swizzled tile read back by its formula.
 * The work: for an M x K float matrix A (rows padded to LD floats), sums[m] = the sum over k of
 * (k % 32 + 1) A[m][k], and B[m][k] = 2 A[m][k] + k % 32 written by TMA stores (weights that
 * depend on the column, so that a swizzle read at the wrong place cannot cancel out). M and K are
 * not tile multiples, so the last tiles read zeros past the edges and the stores write only the
 * elements inside; the row padding and a guard after sums must stay untouched.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BM 32 /* rows of a tile: one thread each */
#define BK 32 /* floats of a tile's row: 128 bytes, the 128-byte swizzle's span */
#define STAGES 2

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    cudaGetErrorString(err_));                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static __device__ uint32_t smem(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Element (r, c) of a 1024-byte aligned BM x BK float tile the 128-byte swizzle wrote: the
 * 16-byte chunk c / 4 of row r sits at chunk (c / 4) ^ (r % 8). */
static __device__ float &at(float *tile, int r, int c)
{
    return tile[r * BK + (((c / 4) ^ (r % 8)) * 4) + c % 4];
}

static __device__ void load_tile(const CUtensorMap *map, float *dst, uint64_t *full, int x, int y)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(full)),
                 "r"(BM * BK * 4)
                 : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(smem(full))
                 : "memory");
}

static __device__ void wait_full(uint64_t *full, int phase)
{
    asm volatile("{\n"
                 ".reg .pred ready;\n"
                 "LAB_WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 ready, [%0], %1;\n"
                 "@!ready bra LAB_WAIT;\n"
                 "}\n" ::"r"(smem(full)),
                 "r"(phase)
                 : "memory");
}

static __global__ void row_sums_kernel(const __grid_constant__ CUtensorMap a_map,
                                       const __grid_constant__ CUtensorMap b_map, int M, int K,
                                       float *sums)
{
    __shared__ alignas(1024) float tiles[STAGES][BM * BK];
    __shared__ alignas(8) uint64_t full[STAGES];
    int r = threadIdx.x, row0 = blockIdx.x * BM, ktiles = (K + BK - 1) / BK;
    if (r == 0) {
        for (int s = 0; s < STAGES; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full[s])));
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        load_tile(&a_map, tiles[0], &full[0], 0, row0);
    }
    __syncthreads();
    float acc = 0.0f;
    for (int t = 0; t < ktiles; t++) {
        int s = t % STAGES;
        if (r == 0 && t + 1 < ktiles) /* the next tile, into the stage tile t - 1 left */
            load_tile(&a_map, tiles[(t + 1) % STAGES], &full[(t + 1) % STAGES], (t + 1) * BK, row0);
        wait_full(&full[s], (t / STAGES) % 2);
        for (int c = 0; c < BK; c++) {
            acc += (float)(c + 1) * at(tiles[s], r, c); /* weights that see the position */
            at(tiles[s], r, c) = 2.0f * at(tiles[s], r, c) + (float)c;
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* for the store's reads */
        __syncthreads();
        if (r == 0) {
            asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
                         " [%0, {%1, %2}], [%3];" ::"l"(&b_map),
                         "r"(t * BK), "r"(row0), "r"(smem(tiles[s]))
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        }
        __syncthreads(); /* stage s is free again */
    }
    if (row0 + r < M)
        sums[row0 + r] = acc;
}

static PFN_cuTensorMapEncodeTiled_v12000 get_encode(void)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !fn) {
        fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
        exit(1);
    }
    return (PFN_cuTensorMapEncodeTiled_v12000)fn;
}

static CUtensorMap make_map(float *d, int rows, int cols, int ld)
{
    CUtensorMap map;
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)ld * sizeof(float)};
    cuuint32_t box[2] = {BK, BM}, estrides[2] = {1, 1};
    CUresult res =
        get_encode()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, strides, box, estrides,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (res != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", (int)res);
        exit(1);
    }
    return map;
}

int main(void)
{
    const int M = 67, K = 1031, LD = 1032, GUARD = 8;
    const float PAD = 1000.0f, SENTINEL = -7.0f;
    size_t n = (size_t)M * LD;
    float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float));
    float *sums = (float *)malloc((M + GUARD) * sizeof(float));
    for (int m = 0; m < M; m++)
        for (int k = 0; k < LD; k++)
            a[(size_t)m * LD + k] = k < K ? (float)((m * 31 + k * 17) % 23 - 11) : PAD;
    float *d_a, *d_b, *d_sums;
    CHECK(cudaMalloc(&d_a, n * sizeof(float)));
    CHECK(cudaMalloc(&d_b, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, (M + GUARD) * sizeof(float)));
    CHECK(cudaMemcpy(d_a, a, n * sizeof(float), cudaMemcpyHostToDevice));
    for (size_t i = 0; i < n; i++)
        b[i] = SENTINEL;
    for (int i = 0; i < M + GUARD; i++)
        sums[i] = SENTINEL;
    CHECK(cudaMemcpy(d_b, b, n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_sums, sums, (M + GUARD) * sizeof(float), cudaMemcpyHostToDevice));

    CUtensorMap a_map = make_map(d_a, M, K, LD), b_map = make_map(d_b, M, K, LD);
    row_sums_kernel<<<(M + BM - 1) / BM, BM>>>(a_map, b_map, M, K, d_sums);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(b, d_b, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums, d_sums, (M + GUARD) * sizeof(float), cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int m = 0; m < M + GUARD; m++) {
        float want = SENTINEL;
        if (m < M) {
            want = 0.0f;
            for (int k = 0; k < K; k++)
                want += (float)(k % BK + 1) * a[(size_t)m * LD + k];
        }
        if (sums[m] != want && errors++ < 5)
            fprintf(stderr, "sums[%d] = %g, expected %g\n", m, sums[m], want);
    }
    for (int m = 0; m < M; m++)
        for (int k = 0; k < LD; k++) {
            float want = k < K ? 2.0f * a[(size_t)m * LD + k] + (float)(k % BK) : SENTINEL;
            if (b[(size_t)m * LD + k] != want && errors++ < 5)
                fprintf(stderr, "B[%d][%d] = %g, expected %g\n", m, k, b[(size_t)m * LD + k], want);
        }
    printf("%s: %d x %d, %d mismatches\n", errors ? "FAILED" : "PASSED", M, K, errors);
    cudaFree(d_a), cudaFree(d_b), cudaFree(d_sums);
    free(a), free(b), free(sums);
    return errors ? 1 : 0;
}
