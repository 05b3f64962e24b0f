/**
 * @file parallel_patterns.cu
 * @brief Lesson 06: reduction, scan and histogram across a whole grid, each step measured
 *        against the last and against CUB.
 *
 * Sizes of any n (every kernel guards its edges). Versions, in order:
 *   reduce_atomic        one global atomicAdd per element
 *   reduce_tree          a shared-memory tree per 512-element tile, one atomic per block
 *   reduce_warp          the tile reduced with warp shuffles, one barrier per block
 *   reduce_grid          a fixed grid sized to the device, grid-stride float4 loads
 *   reduce_deterministic two passes, partial sums in a fixed order: the same bits every run
 *   scan_kogge_stone     one block, log n steps, n log n additions
 *   scan_brent_kung      one block, 2 log n steps, about 2n additions
 *   scan_three_phase     scan the tiles, scan the tile totals, add the offsets
 *   scan_lookback        one pass: each tile looks back over its predecessors' totals
 *   histogram_global     one global atomic per byte
 *   histogram_shared     a private histogram per block in shared memory, merged at the end
 *   histogram_aggregated runs of equal bytes added with one shared atomic
 *   histogram_range      private histograms of up to 8192 bins in dynamic shared memory
 * The yardsticks, CUB's device-wide calls, are the course's own (src/cub_yardstick.cu).
 *
 * Build and check: ./course check 06; measure: ./course bench 06.
 */
#include "parallel_patterns.h"

#include <stdint.h>

#include "cuda_check.h"

/* Every lane of a warp takes part in the shuffles. */
#define FULL_MASK 0xffffffffu

enum {
    WARP = 32,
    THREADS = 256,       /* reductions and histograms: 8 warps per block */
    TILE = 2 * THREADS,  /* reduce_tree and reduce_warp: two elements per thread */
    SCAN_THREADS = 1024, /* scans: one block of 1024 threads */
    SCAN_TILE = 2048,    /* two elements per thread */
    BINS = 256,          /* one bin per byte value */
    CHUNK = 16,          /* histogram_aggregated: bytes per thread per step (one uint4) */
    PRIVATE_STEPS = 16,  /* private histograms: the fewest grid-stride steps per thread */
    FLAG_AGGREGATE = 1,  /* scan_lookback: the tile's own total is published */
    FLAG_PREFIX = 2      /* the tile's inclusive prefix (all tiles up to it) is published */
};

/* ---- host helpers -------------------------------------------------------------------------- */

/* cudaMalloc that checks, for temporary storage. */
static void *device_alloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes > 0 ? bytes : 1));
    return p;
}

/* Blocks of @p kernel (@p threads each, @p smem dynamic shared bytes) that fit on the device at
 * once: SMs times resident blocks per SM, from the device's properties. */
static int resident_blocks(const void *kernel, int threads, size_t smem)
{
    // cudaGetDevice, cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount) and
    // cudaOccupancyMaxActiveBlocksPerMultiprocessor; at least one block.
    int blocks = 1;
    // BEGIN SOLUTION
    int dev, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    blocks = sms * per_sm > 1 ? sms * per_sm : 1;
    // END SOLUTION
    return blocks;
}

/* The grid of a grid-stride loop over @p items, @p per_block per block per step: the device's
 * resident blocks, or fewer when the items need fewer; at least one. */
static int stride_grid(const void *kernel, int threads, size_t smem, long long items, int per_block)
{
    long long need = (items + per_block - 1) / per_block;
    int fit = resident_blocks(kernel, threads, smem);
    return need < 1 ? 1 : need < fit ? (int)need : fit;
}

/* ---- reduction ----------------------------------------------------------------------------- */

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
    float *d_partial = (float *)device_alloc(grid * sizeof(float));
    reduce_partials_kernel<<<grid, THREADS>>>(d_x, n, vec, d_partial);
    CUDA_CHECK_LAUNCH();
    reduce_final_kernel<<<1, THREADS>>>(d_partial, grid, d_out);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaFree(d_partial));
    // END SOLUTION
}

/* ---- scan ---------------------------------------------------------------------------------- */

static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_kogge_stone_kernel(const int *in, int n, int *out)
{
    /* s[t]: after the step with offset d, the sum of the (up to) 2d inputs ending at in[t]. */
    __shared__ int s[SCAN_THREADS];
    int t = threadIdx.x;
    // Load s[t] = in[t] (0 past n) and keep it in a register. For d = 1, 2, .., 512: a barrier,
    // read s[t - d] (t >= d), a barrier, add it into s[t]. s[t] is then the inclusive scan;
    // the exclusive one is s[t] minus this thread's own input. Store it for t < n.
    // BEGIN SOLUTION
    int own = t < n ? in[t] : 0;
    s[t] = own;
    for (int d = 1; d < SCAN_THREADS; d *= 2) {
        /* The step before is complete before anyone reads it. */
        __syncthreads();
        int v = t >= d ? s[t - d] : 0;
        /* Every read of this step is done before anyone overwrites what it read. */
        __syncthreads();
        s[t] += v;
    }
    if (t < n)
        out[t] = s[t] - own;
    // END SOLUTION
}

extern "C" int scan_kogge_stone(const int *d_in, int n, int *d_out)
{
    if (n > SCAN_THREADS)
        return -1;
    // One block of SCAN_THREADS threads when n > 0.
    // BEGIN SOLUTION
    if (n > 0) {
        scan_kogge_stone_kernel<<<1, SCAN_THREADS>>>(d_in, n, d_out);
        CUDA_CHECK_LAUNCH();
    }
    // END SOLUTION
    return 0;
}

/*
 * The exclusive scan of s[0 .. SCAN_TILE-1] in place, by all SCAN_THREADS threads; returns the
 * tile's total (to every thread). Up-sweep: for d = 1, 2, .., 1024, s[k] += s[k - d] for
 * k = 2d(t+1) - 1 (a tree of partial sums, the total in s[2047]). Then s[2047] = 0 and the
 * down-sweep: for d = 1024, .., 1, s[k - d] and s[k] become s[k] and s[k] + s[k - d].
 */
static __device__ int block_scan_brent_kung(int *s)
{
    int t = threadIdx.x, total = 0;
    // BEGIN SOLUTION
    for (int d = 1; d < SCAN_TILE; d *= 2) {
        /* The level below is complete before it is summed. */
        __syncthreads();
        int k = 2 * d * (t + 1) - 1;
        if (k < SCAN_TILE)
            s[k] += s[k - d];
    }
    /* s[2047] holds the total before anyone reads it. */
    __syncthreads();
    total = s[SCAN_TILE - 1];
    /* Everyone has read the total before thread 0 clears it. */
    __syncthreads();
    if (t == 0)
        s[SCAN_TILE - 1] = 0;
    for (int d = SCAN_TILE / 2; d >= 1; d /= 2) {
        /* The level above is complete before it is pushed down. */
        __syncthreads();
        int k = 2 * d * (t + 1) - 1;
        if (k < SCAN_TILE) {
            int left = s[k - d];
            s[k - d] = s[k];
            s[k] += left;
        }
    }
    /* The scan is complete before anyone reads it. */
    __syncthreads();
    // END SOLUTION
    return total;
}

/* Tile @p tile of @p in (SCAN_TILE ints from tile * SCAN_TILE; 0 past n) into s. */
static __device__ void load_tile(int *s, const int *in, int n, int tile)
{
    int base = tile * SCAN_TILE;
    for (int k = threadIdx.x; k < SCAN_TILE; k += SCAN_THREADS) /* coalesced: neighbours */
        s[k] = base + k < n ? in[base + k] : 0;
}

/* s + @p offset into tile @p tile of @p out, for the elements below n. */
static __device__ void store_tile(const int *s, int offset, int *out, int n, int tile)
{
    int base = tile * SCAN_TILE;
    for (int k = threadIdx.x; k < SCAN_TILE; k += SCAN_THREADS)
        if (base + k < n)
            out[base + k] = s[k] + offset;
}

static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_brent_kung_kernel(const int *in, int n, int *out)
{
    __shared__ int s[SCAN_TILE];
    // load_tile, block_scan_brent_kung, store_tile, for tile 0.
    // BEGIN SOLUTION
    load_tile(s, in, n, 0);
    block_scan_brent_kung(s);
    store_tile(s, 0, out, n, 0);
    // END SOLUTION
}

extern "C" int scan_brent_kung(const int *d_in, int n, int *d_out)
{
    if (n > SCAN_TILE)
        return -1;
    // One block of SCAN_THREADS threads when n > 0.
    // BEGIN SOLUTION
    if (n > 0) {
        scan_brent_kung_kernel<<<1, SCAN_THREADS>>>(d_in, n, d_out);
        CUDA_CHECK_LAUNCH();
    }
    // END SOLUTION
    return 0;
}

/* Phase 1: block b scans tile b into out and writes the tile's total to sums[b]. */
static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_tiles_kernel(const int *in, int n, int *out, int *sums)
{
    __shared__ int s[SCAN_TILE];
    // As scan_brent_kung_kernel for tile blockIdx.x; thread 0 also writes the total to sums.
    // BEGIN SOLUTION
    load_tile(s, in, n, blockIdx.x);
    int total = block_scan_brent_kung(s);
    store_tile(s, 0, out, n, blockIdx.x);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = total;
    // END SOLUTION
}

/* Phase 3: tile b adds offsets[b] (the scanned tile totals) to its elements. */
static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_add_kernel(int *out, int n, const int *offsets)
{
    // Every element of tile blockIdx.x below n gets offsets[blockIdx.x] added.
    // BEGIN SOLUTION
    int offset = offsets[blockIdx.x];
    for (int k = threadIdx.x; k < SCAN_TILE; k += SCAN_THREADS) {
        int i = blockIdx.x * SCAN_TILE + k;
        if (i < n)
            out[i] += offset;
    }
    // END SOLUTION
}

extern "C" void scan_three_phase(const int *d_in, int n, int *d_out)
{
    // Tiles = ceil(n / SCAN_TILE); a block-sums buffer of one int per tile; phase 1; with
    // more than one tile, scan the buffer in place (this function) and phase 3; free.
    // BEGIN SOLUTION
    if (n <= 0)
        return;
    int tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    int *d_sums = (int *)device_alloc(tiles * sizeof(int));
    scan_tiles_kernel<<<tiles, SCAN_THREADS>>>(d_in, n, d_out, d_sums);
    CUDA_CHECK_LAUNCH();
    if (tiles > 1) {
        scan_three_phase(d_sums, tiles, d_sums); /* in place: each tile is in shared first */
        scan_add_kernel<<<tiles, SCAN_THREADS>>>(d_out, n, d_sums);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaFree(d_sums));
    // END SOLUTION
}

/*
 * The look-back's shared state, in one allocation: next (the next tile to hand out), then per
 * tile its flag (0, FLAG_AGGREGATE or FLAG_PREFIX), its aggregate (its own total) and its
 * prefix (the total of it and every tile before it). Written once each; volatile, so that
 * every read goes to memory (the L2 every SM shares), not to a register or the SM's L1.
 */
struct lookback {
    int *next;
    volatile int *flag, *aggregate, *prefix;
};

/* Publish @p value as tile @p tile's aggregate or prefix (@p flag). The value first, a fence,
 * then the flag: a block that sees the flag sees the value (release). */
static __device__ void publish(struct lookback lb, int tile, int flag, int value)
{
    // BEGIN SOLUTION
    if (flag == FLAG_PREFIX)
        lb.prefix[tile] = value;
    else
        lb.aggregate[tile] = value;
    __threadfence(); /* the value is visible to the whole device before the flag is */
    lb.flag[tile] = flag;
    // END SOLUTION
}

/* The total of the tiles before @p tile, by one thread: walk back from tile - 1, adding
 * aggregates, until a tile with its prefix published. Each read of a flag waits while it is
 * 0; a fence after it orders the read of the value behind it (acquire). */
static __device__ int look_back(struct lookback lb, int tile)
{
    int sum = 0;
    // BEGIN SOLUTION
    for (int j = tile - 1; j >= 0; j--) {
        int f;
        while ((f = lb.flag[j]) == 0) /* tile j has started (its id is lower): it will publish */
            ;
        __threadfence(); /* the flag is read before the value it guards */
        if (f == FLAG_PREFIX)
            return sum + lb.prefix[j];
        sum += lb.aggregate[j];
    }
    // END SOLUTION
    return sum;
}

static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_lookback_kernel(const int *in, int n, int *out, struct lookback lb)
{
    __shared__ int s[SCAN_TILE];
    __shared__ int tile_s, offset_s; /* this block's tile, and the total of the tiles before */
    // Thread 0 takes the next tile id (atomicAdd on lb.next: tiles start in id order, so a
    // tile only waits on tiles that have started). Barrier. Scan the tile. Thread 0 publishes
    // the aggregate (tile 0 its prefix), looks back, publishes its prefix and writes offset_s.
    // Barrier. Store the tile plus offset_s.
    // BEGIN SOLUTION
    if (threadIdx.x == 0)
        tile_s = atomicAdd(lb.next, 1);
    /* tile_s is set before anyone reads it. */
    __syncthreads();
    int tile = tile_s;
    load_tile(s, in, n, tile);
    int total = block_scan_brent_kung(s);
    if (threadIdx.x == 0) {
        int before = 0;
        if (tile == 0) {
            publish(lb, 0, FLAG_PREFIX, total);
        } else {
            publish(lb, tile, FLAG_AGGREGATE, total);
            before = look_back(lb, tile);
            publish(lb, tile, FLAG_PREFIX, before + total);
        }
        offset_s = before;
    }
    /* offset_s is set before anyone reads it. */
    __syncthreads();
    store_tile(s, offset_s, out, n, tile);
    // END SOLUTION
}

extern "C" void scan_lookback(const int *d_in, int n, int *d_out)
{
    // One allocation of 1 + 3 * tiles ints, zeroed (cudaMemset: every flag 0, next 0); point
    // the struct's arrays into it; one launch of `tiles` blocks; free.
    // BEGIN SOLUTION
    if (n <= 0)
        return;
    int tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    int *d_state = (int *)device_alloc((1 + 3 * (size_t)tiles) * sizeof(int));
    CUDA_CHECK(cudaMemset(d_state, 0, (1 + 3 * (size_t)tiles) * sizeof(int)));
    struct lookback lb = {d_state, d_state + 1, d_state + 1 + tiles, d_state + 1 + 2 * tiles};
    scan_lookback_kernel<<<tiles, SCAN_THREADS>>>(d_in, n, d_out, lb);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaFree(d_state));
    // END SOLUTION
}

/* ---- histogram ----------------------------------------------------------------------------- */

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
