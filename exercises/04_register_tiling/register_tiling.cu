/**
 * @file register_tiling.cu
 * @brief Lesson 04: register tiling: more results per thread, fewer shared loads per FMA.
 *
 * Row-major float, any M, N, K (every kernel guards its edges). Versions, in order:
 *   matmul_1d_tile     64 x 64 block tile, BK = 8; each thread computes TM = 8 results in a
 *                      column, so one B value loaded from shared memory feeds 8 FMAs
 *   matmul_2d_tile     128 x 128 block tile, BK = 8; each thread computes TM x TN = 8 x 8
 *                      results from 8 + 8 values in registers: 64 FMAs per 16 shared loads;
 *                      its 8 columns are two groups of 4, 64 apart, so that the shared
 *                      reads of B have no bank conflicts; at most 128 registers, so that
 *                      two blocks fit on an SM
 *   matmul_vectorized  matmul_2d_tile with float4 global loads and stores, and A stored
 *                      transposed in shared memory so the inner loop reads both tiles
 *                      with 128-bit loads; unaligned or edge accesses fall back to scalars
 *
 * Build and check: ./course check 04; measure: ./course bench 04; see the register
 * count of each kernel in the ptxas -v report (reports/04_solution.ptxas.txt in the build).
 */
#include "register_tiling.h"

#include "cuda_check.h"
#include "row4.cuh"

/* matmul_1d_tile: a 64 x 64 tile of C per block, K in steps of 8, 8 results per
 * thread: 64 * 64 / 8 = 512 threads. */
enum { T1_BM = 64, T1_BN = 64, T1_BK = 8, T1_TM = 8, T1_THREADS = T1_BM * T1_BN / T1_TM };

/* matmul_2d_tile and matmul_vectorized: a 128 x 128 tile of C per block, K in
 * steps of 8, 8 x 8 results per thread: (128 / 8) * (128 / 8) = 256 threads.
 * A thread's 8 columns are two groups of TV = 4 (one 16-byte piece of a Bs row
 * each), BN / 2 = 64 apart: thread_col * 4 .. + 3 and 64 + thread_col * 4 .. + 3.
 * A 128-bit shared load is served 8 lanes (128 bytes) at a time; lanes 0 .. 7
 * of a warp (thread_col 0 .. 7) then read 128 contiguous bytes, one wavefront.
 * With 8 adjacent columns per thread they would read pieces 32 bytes apart,
 * lanes t and t + 4 in the same banks: 2 wavefronts. */
enum { BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, TV = 4, THREADS = (BM / TM) * (BN / TN) };

static __global__ void __launch_bounds__(T1_THREADS)
    matmul_1d_tile_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    /* As: rows row0 .. row0+63 of A, columns k0 .. k0+7. Bs: rows k0 .. k0+7 of B,
     * columns col0 .. col0+63. */
    __shared__ float As[T1_BM][T1_BK];
    __shared__ float Bs[T1_BK][T1_BN];
    int tid = threadIdx.x;
    int row0 = blockIdx.y * T1_BM, col0 = blockIdx.x * T1_BN; /* the block's corner of C */
    int thread_col = tid % T1_BN; /* column of the block tile this thread computes, 0 .. 63 */
    int thread_row = tid / T1_BN; /* its rows are thread_row * 8 .. + 7, thread_row 0 .. 7 */
    int a_row = tid / T1_BK, a_col = tid % T1_BK; /* the A tile element it loads: 64 x 8 */
    int b_row = tid / T1_BN, b_col = tid % T1_BN; /* the B tile element it loads: 8 x 64 */
    float acc[T1_TM] = {0.0f};

    for (int k0 = 0; k0 < K; k0 += T1_BK) {
        // Fill the tiles for this step: As[r][k] = A[row0 + r][k0 + k] and
        // Bs[k][c] = B[k0 + k][col0 + c], 0 outside the matrix, each thread a share of
        // both, with consecutive threads on consecutive addresses (coalesced).
        // TODO
        /* Both tiles are complete before any thread reads them. */
        __syncthreads();
        // Add this step's products to acc[i], the running sum of C[row0 + thread_row * TM + i]
        // [col0 + thread_col]. Goal: each value read from Bs serves all TM results.
        // TODO
        /* Every thread is done reading before the next step overwrites the tiles. */
        __syncthreads();
    }
    // Write the thread's TM results to C, none outside it.
    // TODO
}

extern "C" void matmul_1d_tile(int M, int N, int K, const float *d_A, const float *d_B, float *d_C)
{
    dim3 grid((N + T1_BN - 1) / T1_BN, (M + T1_BM - 1) / T1_BM); /* x covers columns of C */
    matmul_1d_tile_kernel<<<grid, T1_THREADS>>>(M, N, K, d_A, d_B, d_C);
    CUDA_CHECK_LAUNCH();
}

/* __launch_bounds__(256, 2): at most 128 registers per thread, so that two
 * blocks (16 warps) fit on an SM; without it ptxas takes 146 on sm_90 and one
 * block fits (ptxas -v: 128 registers, no spills). */
static __global__ void __launch_bounds__(THREADS, 2)
    matmul_2d_tile_kernel(int M, int N, int K, const float *A, const float *B, float *C)
{
    /* As: rows row0 .. row0+127 of A, columns k0 .. k0+7. Bs: rows k0 .. k0+7 of B,
     * columns col0 .. col0+127. 8 KB in all, 16-byte aligned, so that the compiler
     * reads 4 neighbouring floats with one 128-bit load (ld.shared.v4.f32). */
    __shared__ __align__(16) float As[BM][BK];
    __shared__ __align__(16) float Bs[BK][BN];
    int tid = threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN; /* the block's corner of C */
    int thread_row = tid / (BN / TN); /* rows thread_row * 8 .. + 7 of the tile, 0 .. 15 */
    int thread_col = tid % (BN / TN); /* columns thread_col * 4 .. + 3 and + 64, 0 .. 15 */
    float acc[TM][TN] = {{0.0f}};     /* 64 results, in registers */
    float a[TM], b[TN];               /* a column of the A tile, a row of the B tile */

    for (int k0 = 0; k0 < K; k0 += BK) {
        // Fill the tiles for this step: As[r][k] = A[row0 + r][k0 + k] and
        // Bs[k][c] = B[k0 + k][col0 + c], 0 outside the matrix. There are more elements
        // than threads: share them evenly, consecutive threads on consecutive addresses.
        // TODO
        /* Both tiles are complete before any thread reads them. */
        __syncthreads();
        // Add this step's products to acc, the thread's TM x TN results (its rows and
        // columns: see the comment above the constants). Goal: TM + TN values read from
        // shared memory per k (ptxas makes them four 128-bit loads: the tiles are 16-byte
        // aligned) feed TM * TN FMAs from registers, and a warp's reads of Bs have no bank
        // conflicts.
        // TODO
        /* Every thread is done reading before the next step overwrites the tiles. */
        __syncthreads();
    }
    // Write acc to the thread's TM x TN elements of C, none outside it.
    // TODO
}

extern "C" void matmul_2d_tile(int M, int N, int K, const float *d_A, const float *d_B, float *d_C)
{
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM); /* x covers columns of C */
    matmul_2d_tile_kernel<<<grid, THREADS>>>(M, N, K, d_A, d_B, d_C);
    CUDA_CHECK_LAUNCH();
}

/* vec_a, vec_b, vec_c: the rows of A, B and C may be read or written as float4 (see the launcher).
 */
static __global__ void __launch_bounds__(THREADS)
    matmul_vectorized_kernel(int M, int N, int K, const float *A, const float *B, float *C,
                             int vec_a, int vec_b, int vec_c)
{
    /* As is the A tile transposed: As[k][m] = A[row0 + m][k0 + k], so that a
     * thread's 8 values of A for one k are contiguous (two float4 reads). Bs:
     * rows k0 .. k0+7 of B, columns col0 .. col0+127. Both 16-byte aligned. */
    __shared__ __align__(16) float As[BK][BM];
    __shared__ __align__(16) float Bs[BK][BN];
    int tid = threadIdx.x;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN; /* the block's corner of C */
    int thread_row = tid / (BN / TN); /* rows thread_row * 8 .. + 7 of the tile, 0 .. 15 */
    int thread_col = tid % (BN / TN); /* columns thread_col * 4 .. + 3 and + 64, 0 .. 15 */
    /* The A tile is 128 rows of 2 float4 and the B tile 8 rows of 32 float4:
     * 256 float4 each, one per thread. */
    int a_row = tid / (BK / 4), a_k = tid % (BK / 4) * 4; /* A tile row 0..127, k 0 or 4 */
    int b_k = tid / (BN / 4), b_col = tid % (BN / 4) * 4; /* B tile row 0..7, column 0..124 */
    float acc[TM][TN] = {{0.0f}};
    float a[TM], b[TN];

    for (int k0 = 0; k0 < K; k0 += BK) {
        // Fill the tiles for this step, As transposed: As[k][r] = A[row0 + r][k0 + k],
        // Bs[k][c] = B[k0 + k][col0 + c], 0 outside the matrix. Goal: one float4 of each
        // per thread through load_row4 (a_row, a_k, b_k, b_col say which).
        // TODO
        /* Both tiles are complete before any thread reads them. */
        __syncthreads();
        // As in matmul_2d_tile, four 128-bit shared loads per k, written as float4: the
        // thread's 8 values of A for one k are contiguous in the transposed As, like B's.
        // TODO
        /* Every thread is done reading before the next step overwrites the tiles. */
        __syncthreads();
    }
    // Write acc to the thread's TM x TN elements of C, none outside it, in float4 pieces
    // through store_row4.
    // TODO
}

extern "C" void matmul_vectorized(int M, int N, int K, const float *d_A, const float *d_B,
                                  float *d_C)
{
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM); /* x covers columns of C */
    int vec_a = rows_aligned16(d_A, K), vec_b = rows_aligned16(d_B, N);
    int vec_c = rows_aligned16(d_C, N);
    matmul_vectorized_kernel<<<grid, THREADS>>>(M, N, K, d_A, d_B, d_C, vec_a, vec_b, vec_c);
    CUDA_CHECK_LAUNCH();
}
