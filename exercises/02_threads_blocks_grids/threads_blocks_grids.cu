/**
 * @file threads_blocks_grids.cu
 * @brief Lesson 02: threads, blocks and grids: a vector add and the first matrix multiplies.
 *
 * Row-major float, any sizes (every kernel guards its edges). Versions, in order:
 *   vector_add        c = a + b with a grid-stride loop: memory-bound, measured in GB/s
 *   matmul_naive      one thread per C element; neighbouring threads take neighbouring
 *                     rows, so a warp's loads of A and stores of C are 32 transactions
 *   matmul_coalesced  the same work; neighbouring threads take neighbouring columns, so
 *                     a warp's loads of B and stores of C are one contiguous 128 bytes
 */
#include "threads_blocks_grids.h"

#include "cuda_check.h"

/* Threads per block of vector_add, and the block shape of both matmuls:
 * 32 x 8 = 256 threads, one warp wide. */
enum { VEC_THREADS = 256, TILE_X = 32, TILE_Y = 8 };

static __global__ void vector_add_kernel(const float *a, const float *b, float *c, int n)
{
    // Start at this thread's global index and step by the number of threads in
    // the whole grid, so any grid size covers any n.
    // TODO
}

extern "C" void vector_add(const float *d_a, const float *d_b, float *d_c, int n)
{
    static int blocks_max; /* enough blocks to fill every SM several times over */
    if (!blocks_max) {
        int dev, sms;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        blocks_max = sms * 32;
    }
    if (n <= 0)
        return;
    int blocks = (n + VEC_THREADS - 1) / VEC_THREADS;
    if (blocks > blocks_max)
        blocks = blocks_max; /* the grid-stride loop covers the rest */
    vector_add_kernel<<<blocks, VEC_THREADS>>>(d_a, d_b, d_c, n);
    CUDA_CHECK_LAUNCH();
}

static __global__ void matmul_naive_kernel(int M, int N, int K, const float *A, const float *B,
                                           float *C)
{
    // row comes from the x dimension, col from y: the 32 threads of a warp
    // share col and take 32 consecutive rows. Guard both against the edges,
    // then accumulate the dot product of row `row` of A and column `col` of B.
    // TODO
}

extern "C" void matmul_naive(int M, int N, int K, const float *d_A, const float *d_B, float *d_C)
{
    dim3 block(TILE_X, TILE_Y);
    dim3 grid((M + TILE_X - 1) / TILE_X, (N + TILE_Y - 1) / TILE_Y); /* x covers rows */
    matmul_naive_kernel<<<grid, block>>>(M, N, K, d_A, d_B, d_C);
    CUDA_CHECK_LAUNCH();
}

static __global__ void matmul_coalesced_kernel(int M, int N, int K, const float *A, const float *B,
                                               float *C)
{
    // Swap the mapping: col from x, row from y. Now a warp shares row (one
    // broadcast load of A per k) and reads 32 consecutive floats of B.
    // TODO
}

extern "C" void matmul_coalesced(int M, int N, int K, const float *d_A, const float *d_B,
                                 float *d_C)
{
    dim3 block(TILE_X, TILE_Y);
    dim3 grid((N + TILE_X - 1) / TILE_X, (M + TILE_Y - 1) / TILE_Y); /* x covers columns */
    matmul_coalesced_kernel<<<grid, block>>>(M, N, K, d_A, d_B, d_C);
    CUDA_CHECK_LAUNCH();
}
