/**
 * @file warp_level.cu
 * @brief Lesson 05: the warp as a unit: shuffle reductions, a warp-per-row GEMV, warp tiles.
 *
 * Row-major float, any sizes (every kernel guards its edges). Versions, in order:
 *   warp_sum         the sum of n floats: per-thread partial sums, then a reduction inside
 *                    each warp with __shfl_down_sync (registers only, no shared memory,
 *                    no barrier), then one more across the block's warps
 *   gemv_warp        y = A x, one warp per row of A: coalesced (float4) reads of the row,
 *                    a shuffle reduction of the 32 partial dot products; memory-bound
 *   matmul_warptile  the FP32 ladder's last step: block tile 128 x 128, warp tile 64 x 32,
 *                    thread tile 8 x 8, with the lanes of a warp laid out so that its
 *                    128-bit shared loads are broadcasts without bank conflicts, and the
 *                    next tile's global loads in flight during the current tile's math
 *
 * Build and check: ./course check 05; measure: ./course bench 05.
 */
#include "warp_level.h"

#include <stdint.h>

#include "cuda_check.h"
/* load_row4, store_row4, rows_aligned16: lesson 04's, one copy for both lessons. */
#include "../../lessons/04_register_tiling/src/row4.cuh"

/* Every lane of a warp takes part in the shuffles. */
#define FULL_MASK 0xffffffffu

enum { WARP = 32 };

/* warp_sum: one block of 1024 threads = 32 warps. gemv_warp: 8 warps (8 rows) per block. */
enum { SUM_THREADS = 1024, GEMV_THREADS = 256, GEMV_ROWS = GEMV_THREADS / WARP };

/*
 * The sum of @p v over the 32 lanes of the calling warp, in lane 0 (the other
 * lanes hold partial sums). All 32 lanes must call it: FULL_MASK says so.
 */
static __device__ float warp_reduce_sum(float v)
{
    // Return the sum of v over the warp's 32 lanes (lane 0 must hold it), with
    // shuffles only: no shared memory, no barrier.
    // BEGIN SOLUTION
#pragma unroll
    for (int offset = WARP / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset); /* lanes >= 32 - offset get their own v */
    // END SOLUTION
    return v;
}

static __global__ void __launch_bounds__(SUM_THREADS)
    warp_sum_kernel(const float *x, int n, float *out)
{
    /* partial[w]: the sum of warp w, one per warp of the block. */
    __shared__ float partial[SUM_THREADS / WARP];
    int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;

    // *out = the sum of x[0 .. n-1], by this one block: each thread a share of x
    // (coalesced reads), each warp's shares combined with shuffles, the warps' sums
    // combined through `partial`. Any n, 0 included.
    // BEGIN SOLUTION
    float v = 0.0f;
    for (int i = threadIdx.x; i < n; i += SUM_THREADS)
        v += x[i];
    v = warp_reduce_sum(v);
    if (lane == 0)
        partial[warp] = v;
    /* Every warp's partial is in shared memory before warp 0 reads them. */
    __syncthreads();
    if (warp == 0) {
        v = warp_reduce_sum(partial[lane]); /* 32 warps, 32 lanes: one partial each */
        if (lane == 0)
            *out = v;
    }
    // END SOLUTION
}

extern "C" void warp_sum(const float *d_x, int n, float *d_out)
{
    warp_sum_kernel<<<1, SUM_THREADS>>>(d_x, n, d_out);
    CUDA_CHECK_LAUNCH();
}

/* vec: K is a multiple of 4 and A and x are 16-byte aligned (see the launcher). */
static __global__ void __launch_bounds__(GEMV_THREADS)
    gemv_warp_kernel(int M, int K, const float *A, const float *x, float *y, int vec)
{
    int lane = threadIdx.x % WARP;
    int row = blockIdx.x * GEMV_ROWS + threadIdx.x / WARP; /* this warp's row, 0 .. M-1 */
    /* The whole warp has the same row, so it leaves together: no lane is
     * missing from the shuffles below, and there is no barrier to miss. */
    if (row >= M)
        return;
    const float *a = A + (size_t)row * K;

    // y[row] = the dot product of row `row` of A (the pointer a) with x, by this warp
    // alone. Goal: the warp's loads coalesced, as float4 when vec allows it.
    // BEGIN SOLUTION
    float sum = 0.0f;
    if (vec) {
        const float4 *a4 = reinterpret_cast<const float4 *>(a);
        const float4 *x4 = reinterpret_cast<const float4 *>(x);
#pragma unroll 4
        for (int c = lane; c < K / 4; c += WARP) {
            float4 av = __ldg(&a4[c]), xv = __ldg(&x4[c]);
            sum += av.x * xv.x + av.y * xv.y + av.z * xv.z + av.w * xv.w;
        }
    } else {
#pragma unroll 4
        for (int c = lane; c < K; c += WARP)
            sum += __ldg(&a[c]) * __ldg(&x[c]);
    }
    sum = warp_reduce_sum(sum);
    if (lane == 0)
        y[row] = sum;
    // END SOLUTION
}

extern "C" void gemv_warp(int M, int K, const float *d_A, const float *d_x, float *d_y)
{
    if (M <= 0)
        return;
    int vec = K % 4 == 0 && (uintptr_t)d_A % 16 == 0 && (uintptr_t)d_x % 16 == 0;
    int blocks = (M + GEMV_ROWS - 1) / GEMV_ROWS; /* one warp per row */
    gemv_warp_kernel<<<blocks, GEMV_THREADS>>>(M, K, d_A, d_x, d_y, vec);
    CUDA_CHECK_LAUNCH();
}

/*
 * matmul_warptile's shapes. The block tile is BM x BN; its 8 warps form a 2 x 4
 * grid of WM x WN warp tiles. A warp tile is computed in 2 x 2 passes over a
 * 32 x 16 piece, in which lane l owns the 4 x 4 block at row 4 (l / 4), column
 * 4 (l % 4): each thread ends with 2 x 2 blocks of 4 x 4 = an 8 x 8 thread tile.
 */
enum {
    WT_BM = 128,
    WT_BN = 128,
    WT_BK = 16,
    WT_WM = 64,
    WT_WN = 32,
    WT_THREADS = (WT_BM / WT_WM) * (WT_BN / WT_WN) * WARP, /* 8 warps, 256 threads */
    WT_PIECE_M = 32,                                       /* 8 lanes x 4 rows */
    WT_PIECE_N = 16,                                       /* 4 lanes x 4 columns */
    WT_PASS_M = WT_WM / WT_PIECE_M,                        /* 2 */
    WT_PASS_N = WT_WN / WT_PIECE_N,                        /* 2 */
    WT_PAD = 4, /* As row padding: keeps 16-byte alignment, spreads the transposed stores */
    WT_LOADS = WT_BM * WT_BK / 4 / WT_THREADS /* float4 per thread per tile: 2 of A, 2 of B */
};

/*
 * Load the A and B tiles at k0 from global memory into registers: float4
 * number p of this thread is A tile row idx / 4, columns (idx % 4) * 4 .. + 3,
 * and B tile row idx / 32, columns (idx % 32) * 4 .. + 3, with
 * idx = threadIdx.x + p * 256. Zeros outside the matrices.
 */
static __device__ void warptile_load(int M, int N, int K, const float *A, const float *B, int row0,
                                     int col0, int k0, int vec_a, int vec_b, float4 ra[WT_LOADS],
                                     float4 rb[WT_LOADS])
{
#pragma unroll
    for (int p = 0; p < WT_LOADS; p++) {
        int idx = threadIdx.x + p * WT_THREADS;
        int a_row = idx / (WT_BK / 4), a_k = idx % (WT_BK / 4) * 4; /* 4 lanes per 64-byte row */
        ra[p] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (row0 + a_row < M)
            ra[p] = load_row4(A + (size_t)(row0 + a_row) * K, k0 + a_k, K, vec_a);
        int b_k = idx / (WT_BN / 4), b_col = idx % (WT_BN / 4) * 4; /* 32 lanes per 512 bytes */
        rb[p] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (k0 + b_k < K)
            rb[p] = load_row4(B + (size_t)(k0 + b_k) * N, col0 + b_col, N, vec_b);
    }
}

/* Store the registers of warptile_load() into the tiles: A transposed, B as it is. */
static __device__ void warptile_store(float (*As)[WT_BM + WT_PAD], float (*Bs)[WT_BN],
                                      const float4 ra[WT_LOADS], const float4 rb[WT_LOADS])
{
#pragma unroll
    for (int p = 0; p < WT_LOADS; p++) {
        int idx = threadIdx.x + p * WT_THREADS;
        int a_row = idx / (WT_BK / 4), a_k = idx % (WT_BK / 4) * 4;
        As[a_k + 0][a_row] = ra[p].x;
        As[a_k + 1][a_row] = ra[p].y;
        As[a_k + 2][a_row] = ra[p].z;
        As[a_k + 3][a_row] = ra[p].w;
        int b_k = idx / (WT_BN / 4), b_col = idx % (WT_BN / 4) * 4;
        *reinterpret_cast<float4 *>(&Bs[b_k][b_col]) = rb[p];
    }
}

/* vec_a, vec_b, vec_c: the rows of A, B and C may be read or written as float4.
 * __launch_bounds__(256, 2): at most 128 registers per thread, so that two
 * blocks (16 warps) fit on an SM (ptxas -v: 128 registers, no spills). */
static __global__ void __launch_bounds__(WT_THREADS, 2)
    matmul_warptile_kernel(int M, int N, int K, const float *A, const float *B, float *C, int vec_a,
                           int vec_b, int vec_c)
{
    /* As[k][m] = A[row0 + m][k0 + k] (transposed, rows padded by 4 floats);
     * Bs[k][n] = B[k0 + k][col0 + n]. 16.6 KB in all. */
    __shared__ __align__(16) float As[WT_BK][WT_BM + WT_PAD];
    __shared__ __align__(16) float Bs[WT_BK][WT_BN];
    int row0 = blockIdx.y * WT_BM, col0 = blockIdx.x * WT_BN; /* the block's corner of C */
    int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    int wm0 = warp / (WT_BN / WT_WN) * WT_WM; /* the warp tile's first row in the block: 0, 64 */
    int wn0 = warp % (WT_BN / WT_WN) * WT_WN; /* its first column: 0, 32, 64, 96 */
    int lm = lane / 4 * 4;                    /* the lane's first row in a 32 x 16 piece */
    int ln = lane % 4 * 4;                    /* its first column in the piece */
    float acc[WT_PASS_M * 4][WT_PASS_N * 4] = {{0.0f}}; /* the 8 x 8 thread tile */
    float a[WT_PASS_M * 4], b[WT_PASS_N * 4];
    float4 ra[WT_LOADS], rb[WT_LOADS]; /* the next tiles, on their way from global memory */

    // Prologue: the first tiles, loaded and stored, then a barrier.
    // BEGIN SOLUTION
    warptile_load(M, N, K, A, B, row0, col0, 0, vec_a, vec_b, ra, rb);
    warptile_store(As, Bs, ra, rb);
    // END SOLUTION
    /* The first tiles are complete before anyone reads them. */
    __syncthreads();
    for (int k0 = 0; k0 < K; k0 += WT_BK) {
        int more = k0 + WT_BK < K; /* the same for every thread: no divergence */
        // If there is a next tile, start its global loads into ra, rb now:
        // they travel while this tile's math runs.
        // BEGIN SOLUTION
        if (more) {
            warptile_load(M, N, K, A, B, row0, col0, k0 + WT_BK, vec_a, vec_b, ra, rb);
        }
        // END SOLUTION
        // Add this tile's products to acc, the lane's 8 x 8 results (its rows and columns
        // in the warp tile: wm0, wn0, lm, ln and the WT_ constants). Goal: float4 shared
        // loads with no bank conflicts, 64 FMAs for every 4 of them.
        // BEGIN SOLUTION
#pragma unroll
        for (int k = 0; k < WT_BK; k++) {
            /* The 8 distinct float4 of a warp's A read are 128 contiguous bytes
             * (4 lanes share each one: a broadcast); the 4 of its B read are
             * 64 contiguous bytes. No bank conflicts. */
#pragma unroll
            for (int i = 0; i < WT_PASS_M; i++) {
                float4 v = *reinterpret_cast<const float4 *>(&As[k][wm0 + i * WT_PIECE_M + lm]);
                a[4 * i + 0] = v.x, a[4 * i + 1] = v.y, a[4 * i + 2] = v.z, a[4 * i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < WT_PASS_N; j++) {
                float4 v = *reinterpret_cast<const float4 *>(&Bs[k][wn0 + j * WT_PIECE_N + ln]);
                b[4 * j + 0] = v.x, b[4 * j + 1] = v.y, b[4 * j + 2] = v.z, b[4 * j + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < WT_PASS_M * 4; i++)
#pragma unroll
                for (int j = 0; j < WT_PASS_N * 4; j++)
                    acc[i][j] += a[i] * b[j]; /* 64 FMAs per 4 shared loads */
        }
        // END SOLUTION
        /* Every warp is done reading this tile before it is overwritten. */
        __syncthreads();
        // If there is a next tile, store ra, rb into As, Bs.
        // BEGIN SOLUTION
        if (more) {
            warptile_store(As, Bs, ra, rb);
        }
        // END SOLUTION
        /* The next tile is complete before anyone reads it. */
        __syncthreads();
    }
    // Write acc to the lane's elements of C (the same mapping as the loads of As and Bs
    // above), none outside C, in float4 pieces through store_row4.
    // BEGIN SOLUTION
#pragma unroll
    for (int i = 0; i < WT_PASS_M * 4; i++) {
        int r = row0 + wm0 + i / 4 * WT_PIECE_M + lm + i % 4;
        if (r >= M)
            continue;
        float *c_row = C + (size_t)r * N;
#pragma unroll
        for (int j = 0; j < WT_PASS_N; j++) {
            int c = col0 + wn0 + j * WT_PIECE_N + ln;
            store_row4(c_row, c, N, vec_c,
                       make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2],
                                   acc[i][4 * j + 3]));
        }
    }
    // END SOLUTION
}

extern "C" void matmul_warptile(int M, int N, int K, const float *d_A, const float *d_B, float *d_C)
{
    dim3 grid((N + WT_BN - 1) / WT_BN, (M + WT_BM - 1) / WT_BM); /* x covers columns of C */
    int vec_a = rows_aligned16(d_A, K), vec_b = rows_aligned16(d_B, N);
    int vec_c = rows_aligned16(d_C, N);
    matmul_warptile_kernel<<<grid, WT_THREADS>>>(M, N, K, d_A, d_B, d_C, vec_a, vec_b, vec_c);
    CUDA_CHECK_LAUNCH();
}
