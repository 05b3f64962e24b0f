/**
 * @file reduce.cu
 * @brief Lesson 06, stage 1 of 3: the sum of n floats across a whole grid, each step measured
 *        against the last and against CUB.
 *
 * Any n (every kernel guards its edges). Versions, in order:
 *   reduce_atomic        one global atomicAdd per element
 *   reduce_tree          a shared-memory tree per 512-element tile, one atomic per block
 *   reduce_warp          the tile reduced with warp shuffles, one barrier per block
 *   reduce_grid          a fixed grid sized to the device, grid-stride float4 loads
 *   reduce_deterministic two passes, partial sums in a fixed order: the same bits every run
 * The yardstick, CUB's device-wide call, is the course's own (src/cub_yardstick.cu); the grid
 * helpers are grid.c's.
 *
 * Build and check this stage: ./course check 06 --stage reduce; measure: ./course bench 06.
 */
#include "parallel_patterns.h"

#include <stdint.h>

#include "cuda_check.h"
#include "grid.h"

/* Every lane of a warp takes part in the shuffles. */
#define FULL_MASK 0xffffffffu

enum {
    WARP = 32,
    THREADS = 256,     /* 8 warps per block */
    TILE = 2 * THREADS /* reduce_tree and reduce_warp: two elements per thread */
};

/* *out = 0: a kernel, so that the output is the device's work even when n is 0. */
static __global__ void zero_kernel(float *out)
{
    *out = 0.0f;
}

static __global__ void reduce_atomic_kernel(const float *x, int n, float *out)
{
    // One element per thread, added straight into *out.
    // BEGIN SOLUTION
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, x[i]);
    // END SOLUTION
}

extern "C" void reduce_atomic(const float *d_x, int n, float *d_out)
{
    // Zero *d_out with zero_kernel, then one thread per element.
    // BEGIN SOLUTION
    zero_kernel<<<1, 1>>>(d_out);
    CUDA_CHECK_LAUNCH();
    if (n > 0) {
        reduce_atomic_kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(d_x, n, d_out);
        CUDA_CHECK_LAUNCH();
    }
    // END SOLUTION
}

static __global__ void __launch_bounds__(THREADS)
    reduce_tree_kernel(const float *x, int n, float *out)
{
    /* s[t]: thread t's partial sum; after the level with stride d, s[0 .. d-1] hold the tile's
     * sum in d pieces. */
    __shared__ float s[THREADS];
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t; /* this thread's elements: i and i + THREADS */
    // Load s[t] = x[i] + x[i + THREADS] (0 past n). Then halve: for stride d = 128, 64, .., 1,
    // a barrier, then threads t < d add s[t + d] into s[t] (neighbouring threads, neighbouring
    // words: whole warps retire together and no two lanes share a bank). Thread 0 adds s[0]
    // into *out.
    // BEGIN SOLUTION
    s[t] = (i < n ? x[i] : 0.0f) + (i + THREADS < n ? x[i + THREADS] : 0.0f);
    for (int d = THREADS / 2; d > 0; d /= 2) {
        /* The level before is complete before anyone reads it. */
        __syncthreads();
        if (t < d)
            s[t] += s[t + d];
    }
    if (t == 0) /* thread 0 wrote s[0] itself last: no barrier needed */
        atomicAdd(out, s[0]);
    // END SOLUTION
}

extern "C" void reduce_tree(const float *d_x, int n, float *d_out)
{
    // Zero *d_out, then one block per TILE elements.
    // BEGIN SOLUTION
    zero_kernel<<<1, 1>>>(d_out);
    CUDA_CHECK_LAUNCH();
    if (n > 0) {
        reduce_tree_kernel<<<(n + TILE - 1) / TILE, THREADS>>>(d_x, n, d_out);
        CUDA_CHECK_LAUNCH();
    }
    // END SOLUTION
}

/* The sum of @p v over the warp's 32 lanes, in lane 0 (all 32 lanes call it). */
static __device__ float warp_reduce_sum(float v)
{
    // Five shuffles down: 16, 8, 4, 2, 1 lanes.
    // BEGIN SOLUTION
#pragma unroll
    for (int offset = WARP / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    // END SOLUTION
    return v;
}

/* The sum of @p v over the block (THREADS threads), in thread 0. One barrier. */
static __device__ float block_reduce_sum(float v)
{
    __shared__ float warp_sums[THREADS / WARP]; /* one per warp */
    int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    // Reduce in each warp; lane 0 writes warp_sums[warp]; a barrier; warp 0 reduces the 8 sums.
    // BEGIN SOLUTION
    v = warp_reduce_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    /* Every warp's sum is in shared memory before warp 0 reads them. */
    __syncthreads();
    if (warp == 0)
        v = warp_reduce_sum(lane < THREADS / WARP ? warp_sums[lane] : 0.0f);
    // END SOLUTION
    return v;
}

static __global__ void __launch_bounds__(THREADS)
    reduce_warp_kernel(const float *x, int n, float *out)
{
    // As reduce_tree_kernel's load, then block_reduce_sum, then thread 0's atomicAdd.
    // BEGIN SOLUTION
    int i = blockIdx.x * TILE + threadIdx.x;
    float v = (i < n ? x[i] : 0.0f) + (i + THREADS < n ? x[i + THREADS] : 0.0f);
    v = block_reduce_sum(v);
    if (threadIdx.x == 0)
        atomicAdd(out, v);
    // END SOLUTION
}

extern "C" void reduce_warp(const float *d_x, int n, float *d_out)
{
    // As reduce_tree's launcher, with reduce_warp_kernel.
    // BEGIN SOLUTION
    zero_kernel<<<1, 1>>>(d_out);
    CUDA_CHECK_LAUNCH();
    if (n > 0) {
        reduce_warp_kernel<<<(n + TILE - 1) / TILE, THREADS>>>(d_x, n, d_out);
        CUDA_CHECK_LAUNCH();
    }
    // END SOLUTION
}

/* This thread's share of x[0 .. n-1] in a grid-stride loop: float4 number v = global thread
 * index, then v + (threads in the grid), ...; the n % 4 last elements (and every element when
 * not @p vec) by scalar loads on the same pattern. */
static __device__ float grid_stride_sum(const float *x, int n, int vec)
{
    int stride = gridDim.x * blockDim.x, g = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    int head = 0; /* elements taken as float4 */
    // BEGIN SOLUTION
    if (vec) {
        const float4 *x4 = reinterpret_cast<const float4 *>(x);
        head = n / 4 * 4;
        for (int k = g; k < n / 4; k += stride) {
            float4 q = x4[k]; /* a warp reads 512 contiguous bytes */
            v += (q.x + q.y) + (q.z + q.w);
        }
    }
    for (int i = head + g; i < n; i += stride)
        v += x[i];
    // END SOLUTION
    return v;
}

static __global__ void __launch_bounds__(THREADS)
    reduce_grid_kernel(const float *x, int n, int vec, float *out)
{
    // grid_stride_sum, block_reduce_sum, one atomicAdd per block.
    // BEGIN SOLUTION
    float v = block_reduce_sum(grid_stride_sum(x, n, vec));
    if (threadIdx.x == 0)
        atomicAdd(out, v);
    // END SOLUTION
}

extern "C" void reduce_grid(const float *d_x, int n, float *d_out)
{
    // Zero *d_out; vec when d_x is 16-byte aligned; the grid from stride_grid() over the
    // float4 (THREADS per block per step).
    // BEGIN SOLUTION
    zero_kernel<<<1, 1>>>(d_out);
    CUDA_CHECK_LAUNCH();
    if (n <= 0)
        return;
    int vec = (uintptr_t)d_x % 16 == 0;
    int grid = stride_grid((const void *)reduce_grid_kernel, THREADS, 0, (n + 3) / 4, THREADS);
    reduce_grid_kernel<<<grid, THREADS>>>(d_x, n, vec, d_out);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

/* Pass 1 of reduce_deterministic: partial[b] = block b's grid-stride sum. */
static __global__ void __launch_bounds__(THREADS)
    reduce_partials_kernel(const float *x, int n, int vec, float *partial)
{
    // As reduce_grid_kernel, writing partial[blockIdx.x] instead of the atomicAdd.
    // BEGIN SOLUTION
    float v = block_reduce_sum(grid_stride_sum(x, n, vec));
    if (threadIdx.x == 0)
        partial[blockIdx.x] = v;
    // END SOLUTION
}

/* Pass 2: one block adds the @p count partials, each thread a strided slice, in a fixed order. */
static __global__ void __launch_bounds__(THREADS)
    reduce_final_kernel(const float *partial, int count, float *out)
{
    // Thread t adds partial[t], partial[t + THREADS], ...; block_reduce_sum; thread 0 writes.
    // BEGIN SOLUTION
    float v = 0.0f;
    for (int i = threadIdx.x; i < count; i += THREADS)
        v += partial[i];
    v = block_reduce_sum(v);
    if (threadIdx.x == 0)
        *out = v;
    // END SOLUTION
}

extern "C" void reduce_deterministic(const float *d_x, int n, float *d_out)
{
    // The grid as reduce_grid's (at least one block, so that n = 0 writes 0); a buffer of one
    // float per block; pass 1, pass 2; free the buffer.
    // BEGIN SOLUTION
    int vec = (uintptr_t)d_x % 16 == 0;
    int grid = stride_grid((const void *)reduce_partials_kernel, THREADS, 0, (n + 3) / 4, THREADS);
    float *d_partial = (float *)temp_alloc(grid * sizeof(float));
    reduce_partials_kernel<<<grid, THREADS>>>(d_x, n, vec, d_partial);
    CUDA_CHECK_LAUNCH();
    reduce_final_kernel<<<1, THREADS>>>(d_partial, grid, d_out);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaFree(d_partial));
    // END SOLUTION
}
