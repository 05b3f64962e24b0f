/**
 * @file mixed_precision.cu
 * @brief Lesson 09: float to fp16 and bf16 by hand, and one WMMA GEMM at three input precisions.
 *
 * Versions, in order:
 *   convert_f32_to_f16   float -> binary16, round to nearest even, with bit manipulation
 *   convert_f32_to_bf16  float -> bfloat16, the same (one add does the rounding)
 *   gemm_wmma_f16        C = A * B, fp16 inputs, fp32 accumulation, one warp per 16 x 16 tile
 *   gemm_wmma_bf16       the same with bf16 inputs (sm_80+)
 *   gemm_wmma_tf32       the same with float inputs rounded to TF32 in the fragments (sm_80+)
 *
 * The conversion routines are __host__ __device__: the kernels call them on the GPU, and
 * mp_f32_to_f16() / mp_f32_to_bf16() call the very same code on the host, which is how the CPU
 * tests check them against the reference on every binary16 and bfloat16 value.
 */
#include "mixed_precision.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "device.h"

using namespace nvcuda;

enum { CONVERT_THREADS = 256 };

/* The bits of a float (memcpy is the portable way, on host and device alike). */
static __host__ __device__ uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/*
 * float -> binary16 (1 sign, 5 exponent bits with bias 15, 10 mantissa bits), round to nearest,
 * ties to even. float has 8 exponent bits (bias 127) and 23 mantissa bits.
 */
static __host__ __device__ uint16_t f32_to_f16_rne(float x)
{
    uint32_t u = bits_of(x);
    uint32_t sign = (u >> 16) & 0x8000u; /* the sign moves from bit 31 to bit 15 */
    uint32_t a = u & 0x7FFFFFFFu;        /* |x| */
    uint32_t mag = 0;                    /* the result's exponent and mantissa bits */
    // Return the fp16 bits of |x| (a, its fp32 bits), rounded to nearest even as IEEE 754
    // says: NaN stays a (quiet) NaN, values from halfway above fp16's largest finite up
    // become infinity, and the subnormal range is rounded too, down to zero (the lesson's
    // "Rounding to nearest, ties to even" has the boundaries).
    // TODO
    return (uint16_t)(sign | mag);
}

/* float -> bfloat16 (float's top 16 bits), round to nearest, ties to even. */
static __host__ __device__ uint16_t f32_to_bf16_rne(float x)
{
    uint32_t u = bits_of(x);
    uint32_t out = 0;
    // Return the bf16 bits of x (u, its fp32 bits): the top 16 bits, rounded to nearest
    // even; a NaN stays a quiet NaN, and a value that rounds past bf16's largest finite
    // becomes infinity.
    // TODO
    return (uint16_t)out;
}

extern "C" uint16_t mp_f32_to_f16(float x)
{
    return f32_to_f16_rne(x);
}

extern "C" uint16_t mp_f32_to_bf16(float x)
{
    return f32_to_bf16_rne(x);
}

static __global__ void convert_f32_to_f16_kernel(const float *x, uint16_t *y, size_t n)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = f32_to_f16_rne(x[i]);
}

static __global__ void convert_f32_to_bf16_kernel(const float *x, uint16_t *y, size_t n)
{
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = f32_to_bf16_rne(x[i]);
}

/* Blocks for a grid-stride loop over n elements: enough to fill the GPU, no more than needed. */
static unsigned convert_blocks(size_t n)
{
    size_t blocks = (n + CONVERT_THREADS - 1) / CONVERT_THREADS;
    return blocks > 4096 ? 4096 : (unsigned)(blocks ? blocks : 1);
}

extern "C" void convert_f32_to_f16(const float *d_x, uint16_t *d_y, size_t n)
{
    unsigned blocks = convert_blocks(n);
    convert_f32_to_f16_kernel<<<blocks, CONVERT_THREADS>>>(d_x, d_y, n);
    CUDA_CHECK_LAUNCH();
}

extern "C" void convert_f32_to_bf16(const float *d_x, uint16_t *d_y, size_t n)
{
    unsigned blocks = convert_blocks(n);
    convert_f32_to_bf16_kernel<<<blocks, CONVERT_THREADS>>>(d_x, d_y, n);
    CUDA_CHECK_LAUNCH();
}

/* ---- one WMMA GEMM, three precisions ----------------------------------------------------- */

/* 2 x 2 warps per block, each owning one 16 x 16 tile of C: a block covers 32 x 32 of C. */
enum { WARPS_M = 2, WARPS_N = 2, WARPS = WARPS_M * WARPS_N, TILE = 16 };

/*
 * The 16 x 16 tile of C at (row, col) for one warp. T is how A and B are stored (__half,
 * __nv_bfloat16 or float), F the fragment's element type (the same, or precision::tf32), KS the
 * fragment depth (16, or 8 for TF32). Each step stages a 16 x KS tile of A and a KS x 16 tile of
 * B in shared memory, zero-filled past the edges, so any M, N, K works.
 */
template <typename T, typename F, int KS>
static __device__ void wmma_tile(int M, int N, int K, const T *A, const T *B, float *C)
{
    __shared__ __align__(32) T stage_a[WARPS][TILE * KS]; /* 16 x KS, row-major */
    __shared__ __align__(32) T stage_b[WARPS][KS * TILE]; /* KS x 16, row-major */
    __shared__ __align__(32) float stage_c[WARPS][TILE * TILE];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row = (blockIdx.y * WARPS_M + warp / WARPS_N) * TILE; /* the tile's first row of C */
    int col = (blockIdx.x * WARPS_N + warp % WARPS_N) * TILE; /* and first column */
    if (row >= M || col >= N)
        return; /* the whole warp leaves together */

    wmma::fragment<wmma::accumulator, TILE, TILE, KS, float> acc;
    wmma::fragment<wmma::matrix_a, TILE, TILE, KS, F, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, TILE, TILE, KS, F, wmma::row_major> b;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += KS) {
        for (int i = lane; i < TILE * KS; i += 32) {
            int r = row + i / KS, c = k + i % KS; /* element i of the A tile is A[r][c] */
            stage_a[warp][i] = r < M && c < K ? A[(size_t)r * K + c] : T(0.0f);
            int rb = k + i / TILE, cb = col + i % TILE; /* element i of the B tile is B[rb][cb] */
            stage_b[warp][i] = rb < K && cb < N ? B[(size_t)rb * N + cb] : T(0.0f);
        }
        __syncwarp(); /* the tiles are complete before the warp loads them */
        wmma::load_matrix_sync(a, stage_a[warp], KS);
        wmma::load_matrix_sync(b, stage_b[warp], TILE);
        if constexpr (KS == 8) {
            /* __float_to_tf32 exists from sm_80 on; the sm_75 pass never instantiates this
             * branch but still parses it. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
            // TF32 fragments hold floats as loaded: round every element of a and b to TF32
            // with wmma::__float_to_tf32 (round to nearest). Left as they are, the Tensor Core
            // would simply ignore their low 13 mantissa bits (truncation).
            // TODO
#endif
        }
        wmma::mma_sync(acc, a, b, acc);
        __syncwarp(); /* every lane has loaded before the tiles are overwritten */
    }
    wmma::store_matrix_sync(stage_c[warp], acc, TILE, wmma::mem_row_major);
    __syncwarp(); /* the whole tile is staged before lanes copy other lanes' parts */
    for (int i = lane; i < TILE * TILE; i += 32) {
        int r = row + i / TILE, c = col + i % TILE; /* the element's place in C */
        if (r < M && c < N)
            C[(size_t)r * N + c] = stage_c[warp][i];
    }
}

static __global__ void gemm_wmma_f16_kernel(int M, int N, int K, const __half *A, const __half *B,
                                            float *C)
{
    wmma_tile<__half, __half, 16>(M, N, K, A, B, C);
}

/* bf16 and TF32 fragments exist from sm_80 on; older builds get empty kernels, which the
 * launchers never start there. */
static __global__ void gemm_wmma_bf16_kernel(int M, int N, int K, const __nv_bfloat16 *A,
                                             const __nv_bfloat16 *B, float *C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    wmma_tile<__nv_bfloat16, __nv_bfloat16, 16>(M, N, K, A, B, C);
#elif defined(__CUDA_ARCH__)
    __trap(); /* built for an older GPU only: fail loudly, never leave C unwritten */
#endif
}

static __global__ void gemm_wmma_tf32_kernel(int M, int N, int K, const float *A, const float *B,
                                             float *C)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    wmma_tile<float, wmma::precision::tf32, 8>(M, N, K, A, B, C);
#elif defined(__CUDA_ARCH__)
    __trap(); /* built for an older GPU only: fail loudly, never leave C unwritten */
#endif
}

/* Refuse to launch an sm_80 kernel on an older GPU: one line, then exit (a programming error). */
static void require_sm80(const char *who)
{
    if (device_compute_capability() < 80) {
        fprintf(stderr, "%s: needs sm_80 or newer (bf16 and TF32 Tensor Core instructions)\n", who);
        exit(EXIT_FAILURE);
    }
}

extern "C" void gemm_wmma_f16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                              float *d_C)
{
    dim3 grid((N + 31) / 32, (M + 31) / 32); /* a block covers 32 x 32 of C */
    gemm_wmma_f16_kernel<<<grid, 32 * WARPS>>>(M, N, K, (const __half *)d_A, (const __half *)d_B,
                                               d_C);
    CUDA_CHECK_LAUNCH();
}

extern "C" void gemm_wmma_bf16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                               float *d_C)
{
    require_sm80("gemm_wmma_bf16");
    dim3 grid((N + 31) / 32, (M + 31) / 32); /* a block covers 32 x 32 of C */
    gemm_wmma_bf16_kernel<<<grid, 32 * WARPS>>>(M, N, K, (const __nv_bfloat16 *)d_A,
                                                (const __nv_bfloat16 *)d_B, d_C);
    CUDA_CHECK_LAUNCH();
}

extern "C" void gemm_wmma_tf32(int M, int N, int K, const float *d_A, const float *d_B, float *d_C)
{
    require_sm80("gemm_wmma_tf32");
    dim3 grid((N + 31) / 32, (M + 31) / 32); /* a block covers 32 x 32 of C */
    gemm_wmma_tf32_kernel<<<grid, 32 * WARPS>>>(M, N, K, d_A, d_B, d_C);
    CUDA_CHECK_LAUNCH();
}
