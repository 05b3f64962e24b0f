/**
 * @file shared_memory_tiling.cu
 * @brief Lesson 03: shared memory: a tiled matrix multiply and a transpose through a tile.
 *
 * Row-major float, any sizes (every kernel guards its edges). Versions, in order:
 *   matmul_tiled             C = A * B; each block loads 32 x 32 tiles of A and B into
 *                            shared memory once and reads each element 32 times from there
 *   transpose_shared         out = in^T through a 32 x 32 shared tile: coalesced global loads
 *                            and stores, but the column reads of the tile conflict 32-way
 *   transpose_shared_padded  the same through a shared tile laid out so that its column reads
 *                            do not conflict (the layout is the exercise's open design task)
 *
 * Build and check: ./course check 03; measure: ./course bench 03.
 */
#include "shared_memory_tiling.h"

#include "cuda_check.h"

/* TILE: the side of every shared tile (one warp wide, so a tile row is one
 * 128-byte line). TRANSPOSE_ROWS: the transposes use TILE x TRANSPOSE_ROWS
 * threads, each moving TILE / TRANSPOSE_ROWS = 4 elements of the tile. */
enum { TILE = 32, TRANSPOSE_ROWS = 8 };

static __global__ void matmul_tiled_kernel(int M, int N, int K, const float *A, const float *B,
                                           float *C)
{
    /* As: rows blockIdx.y * TILE .. +31 of A, columns k0 .. k0+31.
     * Bs: rows k0 .. k0+31 of B, columns blockIdx.x * TILE .. +31. */
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty; /* row of C this thread computes, 0 .. M-1 plus overhang */
    int col = blockIdx.x * TILE + tx; /* column of C, 0 .. N-1 plus overhang */

    // C[row][col] = the dot product of row `row` of A and column `col` of B, with K walked
    // a TILE-wide slice at a time through As and Bs: the block loads each slice from global
    // memory once, coalesced, and every thread then reads it from shared memory. Any M, N, K
    // (a slice past an edge must add nothing), and no thread may read a tile another thread
    // is still writing, or overwrite one that is still being read.
    // BEGIN SOLUTION
    float sum = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        /* Neighbouring tx read neighbouring addresses in both loads: coalesced. */
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        /* Barrier 1: both tiles are complete before any thread reads them, since
         * each thread reads elements that 62 other threads wrote (31 in its row
         * of As, 31 in its column of Bs). */
        __syncthreads();
        /* As[ty][k] is the same address for the whole warp (a broadcast);
         * Bs[k][tx] is 32 consecutive floats, one per bank: no conflicts. */
        for (int k = 0; k < TILE; k++)
            sum += As[ty][k] * Bs[k][tx];
        /* Barrier 2: every thread has finished reading this step's tiles before
         * the next iteration's stores overwrite them. */
        __syncthreads();
    }
    if (row < M && col < N)
        C[(size_t)row * N + col] = sum;
    // END SOLUTION
}

extern "C" void matmul_tiled(int M, int N, int K, const float *d_A, const float *d_B, float *d_C)
{
    dim3 block(TILE, TILE);                                  /* 1024 threads */
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE); /* x covers columns of C */
    matmul_tiled_kernel<<<grid, block>>>(M, N, K, d_A, d_B, d_C);
    CUDA_CHECK_LAUNCH();
}

static __global__ void transpose_shared_kernel(int M, int N, const float *in, float *out)
{
    /* tile[r][c] = in[blockIdx.y * TILE + r][blockIdx.x * TILE + c]. Row r starts
     * at word 32 r, so column c of every row is in bank c: a column read hits
     * one bank 32 times. */
    __shared__ float tile[TILE][TILE];

    // out (N x M) = the transpose of in (M x N), one TILE x TILE tile per block, with
    // TILE x TRANSPOSE_ROWS threads. Goal: both the reads of in and the writes of out
    // coalesced (consecutive threads, consecutive addresses), the turn done in `tile`.
    // BEGIN SOLUTION
    int col = blockIdx.x * TILE + threadIdx.x; /* column of in, 0 .. N-1 plus overhang */
    for (int j = 0; j < TILE; j += TRANSPOSE_ROWS) {
        int row = blockIdx.y * TILE + threadIdx.y + j; /* row of in, 0 .. M-1 plus overhang */
        if (row < M && col < N)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)row * N + col];
    }
    /* The tile is complete before any thread reads an element another thread loaded. */
    __syncthreads();
    int out_col = blockIdx.y * TILE + threadIdx.x; /* column of out = row of in, 0 .. M-1 */
    for (int j = 0; j < TILE; j += TRANSPOSE_ROWS) {
        int out_row = blockIdx.x * TILE + threadIdx.y + j; /* row of out = column of in */
        /* tile[x][y + j]: the warp's 32 threads read a column, 32 words that
         * are 32 words apart: all in bank (y + j) % 32, served one at a time. */
        if (out_row < N && out_col < M)
            out[(size_t)out_row * M + out_col] = tile[threadIdx.x][threadIdx.y + j];
    }
    // END SOLUTION
}

extern "C" void transpose_shared(int M, int N, const float *d_in, float *d_out)
{
    dim3 block(TILE, TRANSPOSE_ROWS);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE); /* x covers columns of in */
    transpose_shared_kernel<<<grid, block>>>(M, N, d_in, d_out);
    CUDA_CHECK_LAUNCH();
}

static __global__ void transpose_shared_padded_kernel(int M, int N, const float *in, float *out)
{
    // Your design: declare the shared tile and lay it out so that both the row stores and the
    // column reads take one wavefront per request (padding, a swizzle: the lesson's "Your
    // design" section), then transpose as transpose_shared_kernel does.
    // BEGIN SOLUTION
    /* One unused column: row r now starts at word 33 r, so element [r][c] is in
     * bank (r + c) % 32 and a column's 32 elements fall in 32 different banks. */
    __shared__ float tile[TILE][TILE + 1];
    int col = blockIdx.x * TILE + threadIdx.x; /* column of in, 0 .. N-1 plus overhang */
    for (int j = 0; j < TILE; j += TRANSPOSE_ROWS) {
        int row = blockIdx.y * TILE + threadIdx.y + j; /* row of in, 0 .. M-1 plus overhang */
        if (row < M && col < N)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)row * N + col];
    }
    /* The tile is complete before any thread reads an element another thread loaded. */
    __syncthreads();
    int out_col = blockIdx.y * TILE + threadIdx.x; /* column of out = row of in, 0 .. M-1 */
    for (int j = 0; j < TILE; j += TRANSPOSE_ROWS) {
        int out_row = blockIdx.x * TILE + threadIdx.y + j; /* row of out = column of in */
        /* tile[x][y + j] is in bank (x + y + j) % 32: one per thread, no conflict. */
        if (out_row < N && out_col < M)
            out[(size_t)out_row * M + out_col] = tile[threadIdx.x][threadIdx.y + j];
    }
    // END SOLUTION
}

extern "C" void transpose_shared_padded(int M, int N, const float *d_in, float *d_out)
{
    dim3 block(TILE, TRANSPOSE_ROWS);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE); /* x covers columns of in */
    transpose_shared_padded_kernel<<<grid, block>>>(M, N, d_in, d_out);
    CUDA_CHECK_LAUNCH();
}
