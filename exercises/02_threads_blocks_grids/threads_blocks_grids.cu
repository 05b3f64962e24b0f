/**
 * @file threads_blocks_grids.cu
 * @brief Lesson 02: threads, blocks and grids: a vector add and the first matrix multiplies.
 *
 * Row-major float, any sizes (every kernel guards its edges). Versions, in order:
 *   vector_add        c = a + b with a grid-stride loop: memory-bound, measured in GB/s
 *   vector_add_host   the host side of a whole GPU computation: allocate, copy in, launch
 *                     one thread per element, time it with events, copy out, free
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

/* __restrict__: c never overlaps a or b (three separate allocations), and saying so lets
 * the compiler read a and b through the read-only path (ld.global.nc) and issue the
 * next loads before the previous store has gone out. */
static __global__ void vector_add_kernel(const float *__restrict__ a, const float *__restrict__ b,
                                         float *__restrict__ c, int n)
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

extern "C" void vector_add_host(int n, const float *h_a, const float *h_b, float *h_c, float *ms)
{
    *ms = 0.0f;
    if (n <= 0)
        return;
    size_t bytes = (size_t)n * sizeof(float);
    float *d_a = NULL, *d_b = NULL, *d_c = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    // Allocate d_a, d_b and d_c (n floats each) with cudaMalloc, copy h_a and h_b to the device
    // with cudaMemcpy (cudaMemcpyHostToDevice), and create two events: every call in CUDA_CHECK.
    // TODO
    // One thread per element: enough blocks of VEC_THREADS to cover all n (round up). Record
    // start, launch vector_add_kernel, check the launch (CUDA_CHECK_LAUNCH), record stop.
    // TODO
    // Copy d_c back into h_c (cudaMemcpy waits for the kernel), wait for the stop event, put
    // the milliseconds between the events in *ms, then free the arrays and destroy the events.
    // TODO
}

static __global__ void matmul_naive_kernel(int M, int N, int K, const float *A, const float *B,
                                           float *C)
{
    // One thread per element of C: C[row][col] = row `row` of A times column `col` of B,
    // with row taken from the x coordinates (so a warp's 32 threads take 32 consecutive
    // rows) and col from y. Threads past the edge of C write nothing.
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
    // The same result as matmul_naive_kernel with the mapping swapped: col from x, row
    // from y, so that a warp's loads of B and stores of C are consecutive floats.
    // TODO
}

extern "C" void matmul_coalesced(int M, int N, int K, const float *d_A, const float *d_B,
                                 float *d_C)
{
    dim3 block(1, 1), grid(1, 1);
    // Your design: the block shape (x along the columns of C, y along its rows, 1024 threads
    // at most) and a grid that covers all of C. Any shape whose loads and stores stay
    // coalesced scores: how narrow can x be? (the lesson's "Your design" section).
    // TODO
    matmul_coalesced_kernel<<<grid, block>>>(M, N, K, d_A, d_B, d_C);
    CUDA_CHECK_LAUNCH();
}
