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
    // TODO
}

extern "C" void reduce_atomic(const float *d_x, int n, float *d_out)
{
    // Zero *d_out with zero_kernel, then one thread per element.
    // TODO
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
    // TODO
}

extern "C" void reduce_tree(const float *d_x, int n, float *d_out)
{
    // Zero *d_out, then one block per TILE elements.
    // TODO
}

/* The sum of @p v over the warp's 32 lanes, in lane 0 (all 32 lanes call it). */
static __device__ float warp_reduce_sum(float v)
{
    // Five shuffles down: 16, 8, 4, 2, 1 lanes.
    // TODO
    return v;
}

/* The sum of @p v over the block (THREADS threads), in thread 0. One barrier. */
static __device__ float block_reduce_sum(float v)
{
    __shared__ float warp_sums[THREADS / WARP]; /* one per warp */
    int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    // Reduce in each warp; lane 0 writes warp_sums[warp]; a barrier; warp 0 reduces the 8 sums.
    // TODO
    return v;
}

static __global__ void __launch_bounds__(THREADS)
    reduce_warp_kernel(const float *x, int n, float *out)
{
    // As reduce_tree_kernel's load, then block_reduce_sum, then thread 0's atomicAdd.
    // TODO
}

extern "C" void reduce_warp(const float *d_x, int n, float *d_out)
{
    // As reduce_tree's launcher, with reduce_warp_kernel.
    // TODO
}

/* This thread's share of x[0 .. n-1] in a grid-stride loop: float4 number v = global thread
 * index, then v + (threads in the grid), ...; the n % 4 last elements (and every element when
 * not @p vec) by scalar loads on the same pattern. */
static __device__ float grid_stride_sum(const float *x, int n, int vec)
{
    int stride = gridDim.x * blockDim.x, g = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    int head = 0; /* elements taken as float4 */
    // TODO
    return v;
}

static __global__ void __launch_bounds__(THREADS)
    reduce_grid_kernel(const float *x, int n, int vec, float *out)
{
    // grid_stride_sum, block_reduce_sum, one atomicAdd per block.
    // TODO
}

extern "C" void reduce_grid(const float *d_x, int n, float *d_out)
{
    // Zero *d_out; vec when d_x is 16-byte aligned; the grid from stride_grid() over the
    // float4 (THREADS per block per step).
    // TODO
}

/* Pass 1 of reduce_deterministic: partial[b] = block b's grid-stride sum. */
static __global__ void __launch_bounds__(THREADS)
    reduce_partials_kernel(const float *x, int n, int vec, float *partial)
{
    // As reduce_grid_kernel, writing partial[blockIdx.x] instead of the atomicAdd.
    // TODO
}

/* Pass 2: one block adds the @p count partials, each thread a strided slice, in a fixed order. */
static __global__ void __launch_bounds__(THREADS)
    reduce_final_kernel(const float *partial, int count, float *out)
{
    // Thread t adds partial[t], partial[t + THREADS], ...; block_reduce_sum; thread 0 writes.
    // TODO
}

extern "C" void reduce_deterministic(const float *d_x, int n, float *d_out)
{
    // The grid as reduce_grid's (at least one block, so that n = 0 writes 0); a buffer of one
    // float per block; pass 1, pass 2; free the buffer.
    // TODO
}
