/**
 * @file histogram.cu
 * @brief Lesson 06, stage 3 of 3: 256-bin histograms of bytes without serialising on atomics.
 *
 * Any n (every kernel guards its edges). Versions, in order:
 *   histogram_global     one global atomic per byte
 *   histogram_shared     a private histogram per block in shared memory, merged at the end
 *   histogram_aggregated runs of equal bytes added with one shared atomic
 *   histogram_range      private histograms of up to 8192 bins in dynamic shared memory
 * The yardstick, CUB's device-wide call, is the course's own (src/cub_yardstick.cu).
 *
 * Build and check this stage: ./course check 06 --stage histogram; measure: ./course bench 06.
 */
#include "parallel_patterns.h"

#include <stdint.h>

#include "cuda_check.h"
#include "grid.h"

enum {
    THREADS = 256,     /* 8 warps per block */
    BINS = 256,        /* one bin per byte value */
    CHUNK = 16,        /* histogram_aggregated: bytes per thread per step (one uint4) */
    PRIVATE_STEPS = 16 /* private histograms: the fewest grid-stride steps per thread */
};

/* bins[0 .. count-1] = 0, a grid-stride loop: the bins are the device's work. */
static __global__ void zero_bins_kernel(unsigned int *bins, int count)
{
    for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < count; b += gridDim.x * blockDim.x)
        bins[b] = 0;
}

/* zero_bins_kernel over @p count bins. */
static void zero_bins(unsigned int *d_bins, int count)
{
    zero_bins_kernel<<<(count + THREADS - 1) / THREADS, THREADS>>>(d_bins, count);
    CUDA_CHECK_LAUNCH();
}

static __global__ void __launch_bounds__(THREADS)
    histogram_global_kernel(const unsigned char *data, int n, unsigned int *bins)
{
    // A grid-stride loop over the bytes, one atomicAdd on bins[byte] each.
    // BEGIN SOLUTION
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS)
        atomicAdd(&bins[data[i]], 1u); /* unsigned char: 0 .. 255, never negative */
    // END SOLUTION
}

extern "C" void histogram_global(const unsigned char *d_data, int n, unsigned int *d_bins)
{
    // Zero the bins, then a grid from stride_grid() (one byte per thread per step).
    // BEGIN SOLUTION
    zero_bins(d_bins, BINS);
    if (n <= 0)
        return;
    int grid = stride_grid((const void *)histogram_global_kernel, THREADS, 0, n, THREADS);
    histogram_global_kernel<<<grid, THREADS>>>(d_data, n, d_bins);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

/* Merge the block's private histogram @p s (@p count bins) into @p bins: one global atomic per
 * non-empty bin. Begins with the barrier that ends the block's counting. */
static __device__ void merge_bins(const unsigned int *s, int count, unsigned int *bins)
{
    // BEGIN SOLUTION
    /* Every shared atomic of the block is done before the bins are read. */
    __syncthreads();
    for (int b = threadIdx.x; b < count; b += blockDim.x)
        if (s[b])
            atomicAdd(&bins[b], s[b]);
    // END SOLUTION
}

/* Zero the block's private histogram @p s (@p count bins), then a barrier. */
static __device__ void clear_bins(unsigned int *s, int count)
{
    for (int b = threadIdx.x; b < count; b += blockDim.x)
        s[b] = 0;
    /* Every bin is zero before any thread counts into it. */
    __syncthreads();
}

static __global__ void __launch_bounds__(THREADS)
    histogram_shared_kernel(const unsigned char *data, int n, unsigned int *bins)
{
    __shared__ unsigned int s[BINS]; /* this block's private histogram */
    // clear_bins; the grid-stride loop with atomicAdd on s; merge_bins.
    // BEGIN SOLUTION
    clear_bins(s, BINS);
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS)
        atomicAdd(&s[data[i]], 1u);
    merge_bins(s, BINS, bins);
    // END SOLUTION
}

extern "C" void histogram_shared(const unsigned char *d_data, int n, unsigned int *d_bins)
{
    // As histogram_global's launcher; ask stride_grid for THREADS * PRIVATE_STEPS bytes per block.
    // BEGIN SOLUTION
    zero_bins(d_bins, BINS);
    if (n <= 0)
        return;
    /* At least PRIVATE_STEPS bytes per thread: a block merges up to 256 bins, once. */
    int grid =
        stride_grid((const void *)histogram_shared_kernel, THREADS, 0, n, THREADS * PRIVATE_STEPS);
    histogram_shared_kernel<<<grid, THREADS>>>(d_data, n, d_bins);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

/* The 16 bytes of chunk @p c (bytes 16c .. 16c+15 of data) into @p b; how many are below n.
 * One 16-byte load when @p vec (data 16-byte aligned) and the chunk is whole. */
static __device__ int load_chunk(const unsigned char *data, int n, int c, int vec,
                                 unsigned char b[CHUNK])
{
    int base = c * CHUNK, count = n - base < CHUNK ? n - base : CHUNK;
    if (vec && count == CHUNK) {
        uint4 q = reinterpret_cast<const uint4 *>(data)[c]; /* a warp reads 512 bytes */
        const unsigned int w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
        for (int k = 0; k < CHUNK; k++)
            b[k] = (unsigned char)(w[k / 4] >> (8 * (k % 4))); /* little-endian */
        return CHUNK;
    }
    for (int k = 0; k < count; k++)
        b[k] = data[base + k];
    return count;
}

static __global__ void __launch_bounds__(THREADS)
    histogram_aggregated_kernel(const unsigned char *data, int n, int vec, unsigned int *bins)
{
    __shared__ unsigned int s[BINS];
    // clear_bins. A grid-stride loop over the 16-byte chunks: keep the current run (a bin and
    // its length) in registers; a byte equal to the run's bin lengthens it, another adds the
    // run to s with one atomicAdd and starts a new one. Add the last run; merge_bins.
    // BEGIN SOLUTION
    clear_bins(s, BINS);
    int run_bin = -1;
    unsigned int run = 0;
    for (int c = blockIdx.x * THREADS + threadIdx.x; c * CHUNK < n; c += gridDim.x * THREADS) {
        unsigned char b[CHUNK];
        int count = load_chunk(data, n, c, vec, b);
        for (int k = 0; k < count; k++) {
            if (b[k] == run_bin) {
                run++;
                continue;
            }
            if (run)
                atomicAdd(&s[run_bin], run);
            run_bin = b[k];
            run = 1;
        }
    }
    if (run)
        atomicAdd(&s[run_bin], run);
    merge_bins(s, BINS, bins);
    // END SOLUTION
}

extern "C" void histogram_aggregated(const unsigned char *d_data, int n, unsigned int *d_bins)
{
    // vec when d_data is 16-byte aligned; the grid over the chunks.
    // BEGIN SOLUTION
    zero_bins(d_bins, BINS);
    if (n <= 0)
        return;
    int vec = (uintptr_t)d_data % 16 == 0;
    int chunks = (n + CHUNK - 1) / CHUNK;
    int grid = stride_grid((const void *)histogram_aggregated_kernel, THREADS, 0, chunks, THREADS);
    histogram_aggregated_kernel<<<grid, THREADS>>>(d_data, n, vec, d_bins);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

static __global__ void __launch_bounds__(THREADS)
    histogram_range_kernel(const int *keys, int n, int num_bins, unsigned int *bins)
{
    extern __shared__ unsigned int s_range[]; /* num_bins private bins */
    // As histogram_shared_kernel, over num_bins bins, skipping keys outside [0, num_bins).
    // BEGIN SOLUTION
    clear_bins(s_range, num_bins);
    for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS) {
        int k = keys[i];
        if (k >= 0 && k < num_bins)
            atomicAdd(&s_range[k], 1u);
    }
    merge_bins(s_range, num_bins, bins);
    // END SOLUTION
}

extern "C" void histogram_range(const int *d_keys, int n, int num_bins, unsigned int *d_bins)
{
    // num_bins * 4 bytes of dynamic shared memory (the occupancy query takes it too).
    if (num_bins < 1 || num_bins > HISTOGRAM_MAX_BINS)
        return;
    // BEGIN SOLUTION
    zero_bins(d_bins, num_bins);
    if (n <= 0)
        return;
    size_t smem = (size_t)num_bins * sizeof(unsigned int);
    int grid = stride_grid((const void *)histogram_range_kernel, THREADS, smem, n,
                           THREADS * PRIVATE_STEPS);
    histogram_range_kernel<<<grid, THREADS, smem>>>(d_keys, n, num_bins, d_bins);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}
