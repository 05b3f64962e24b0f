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
        // BEGIN SOLUTION
        int ra = row0 + a_row, ka = k0 + a_col; /* consecutive tid: along a row of A */
        As[a_row][a_col] = (ra < M && ka < K) ? A[(size_t)ra * K + ka] : 0.0f;
        int kb = k0 + b_row, cb = col0 + b_col; /* consecutive tid: along a row of B */
        Bs[b_row][b_col] = (kb < K && cb < N) ? B[(size_t)kb * N + cb] : 0.0f;
        // END SOLUTION
        /* Both tiles are complete before any thread reads them. */
        __syncthreads();
        // Add this step's products to acc[i], the running sum of C[row0 + thread_row * TM + i]
        // [col0 + thread_col]. Goal: each value read from Bs serves all TM results.
        // BEGIN SOLUTION
#pragma unroll
        for (int k = 0; k < T1_BK; k++) {
            float b = Bs[k][thread_col]; /* one shared load, reused TM times */
#pragma unroll
            for (int i = 0; i < T1_TM; i++)
                acc[i] += As[thread_row * T1_TM + i][k] * b; /* the same for the whole warp */
        }
        // END SOLUTION
        /* Every thread is done reading before the next step overwrites the tiles. */
        __syncthreads();
    }
    // Write the thread's TM results to C, none outside it.
    // BEGIN SOLUTION
    int c = col0 + thread_col;
#pragma unroll
    for (int i = 0; i < T1_TM; i++) {
        int r = row0 + thread_row * T1_TM + i;
        if (r < M && c < N)
            C[(size_t)r * N + c] = acc[i];
    }
    // END SOLUTION
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
        // BEGIN SOLUTION
        for (int idx = tid; idx < BM * BK; idx += THREADS) {
            int r = row0 + idx / BK, k = k0 + idx % BK; /* consecutive tid: along a row of A */
            As[idx / BK][idx % BK] = (r < M && k < K) ? A[(size_t)r * K + k] : 0.0f;
        }
        for (int idx = tid; idx < BK * BN; idx += THREADS) {
            int k = k0 + idx / BN, c = col0 + idx % BN; /* consecutive tid: along a row of B */
            Bs[idx / BN][idx % BN] = (k < K && c < N) ? B[(size_t)k * N + c] : 0.0f;
        }
        // END SOLUTION
        /* Both tiles are complete before any thread reads them. */
        __syncthreads();
        // Add this step's products to acc, the thread's TM x TN results (its rows and
        // columns: see the comment above the constants). Goal: TM + TN values read from
        // shared memory per k (ptxas makes them four 128-bit loads: the tiles are 16-byte
        // aligned) feed TM * TN FMAs from registers, and a warp's reads of Bs have no bank
        // conflicts.
        // BEGIN SOLUTION
#pragma unroll
        for (int k = 0; k < BK; k++) {
#pragma unroll
            for (int i = 0; i < TM; i++)
                a[i] = As[thread_row * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; j++)
                b[j] = Bs[k][j / TV * (BN / 2) + thread_col * TV + j % TV];
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j]; /* 64 FMAs for 16 values of shared memory */
        }
        // END SOLUTION
        /* Every thread is done reading before the next step overwrites the tiles. */
        __syncthreads();
    }
    // Write acc to the thread's TM x TN elements of C, none outside it.
    // BEGIN SOLUTION
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = row0 + thread_row * TM + i;
#pragma unroll
        for (int j = 0; j < TN; j++) {
            int c = col0 + j / TV * (BN / 2) + thread_col * TV + j % TV;
            if (r < M && c < N)
                C[(size_t)r * N + c] = acc[i][j];
        }
    }
    // END SOLUTION
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
        // BEGIN SOLUTION
        float4 va = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (row0 + a_row < M)
            va = load_row4(A + (size_t)(row0 + a_row) * K, k0 + a_k, K, vec_a);
        /* Transposed: four scalar stores. Lanes 2i and 2i+1 share a_row and
         * write words 4 rows of As apart, the same bank: a 2-way conflict, paid
         * once per tile, against 8 conflict-free reads per k below. */
        As[a_k + 0][a_row] = va.x;
        As[a_k + 1][a_row] = va.y;
        As[a_k + 2][a_row] = va.z;
        As[a_k + 3][a_row] = va.w;
        float4 vb = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (k0 + b_k < K)
            vb = load_row4(B + (size_t)(k0 + b_k) * N, col0 + b_col, N, vec_b);
        *reinterpret_cast<float4 *>(&Bs[b_k][b_col]) = vb;
        // END SOLUTION
        /* Both tiles are complete before any thread reads them. */
        __syncthreads();
        // As in matmul_2d_tile, four 128-bit shared loads per k, written as float4: the
        // thread's 8 values of A for one k are contiguous in the transposed As, like B's.
        // BEGIN SOLUTION
#pragma unroll
        for (int k = 0; k < BK; k++) {
            float4 a0 = *reinterpret_cast<const float4 *>(&As[k][thread_row * TM]);
            float4 a1 = *reinterpret_cast<const float4 *>(&As[k][thread_row * TM + 4]);
            /* 8 neighbouring lanes read 128 contiguous bytes of B: one wavefront. */
            float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k][thread_col * TV]);
            float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k][BN / 2 + thread_col * TV]);
            a[0] = a0.x, a[1] = a0.y, a[2] = a0.z, a[3] = a0.w;
            a[4] = a1.x, a[5] = a1.y, a[6] = a1.z, a[7] = a1.w;
            b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w;
            b[4] = b1.x, b[5] = b1.y, b[6] = b1.z, b[7] = b1.w;
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += a[i] * b[j];
        }
        // END SOLUTION
        /* Every thread is done reading before the next step overwrites the tiles. */
        __syncthreads();
    }
    // Write acc to the thread's TM x TN elements of C, none outside it, in float4 pieces
    // through store_row4.
    // BEGIN SOLUTION
#pragma unroll
    for (int i = 0; i < TM; i++) {
        int r = row0 + thread_row * TM + i;
        if (r >= M)
            break;
        float *c_row = C + (size_t)r * N;
        int c = col0 + thread_col * TV;
        store_row4(c_row, c, N, vec_c, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
        store_row4(c_row, c + BN / 2, N, vec_c,
                   make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
    }
    // END SOLUTION
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
