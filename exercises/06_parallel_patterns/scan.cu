/**
 * @file scan.cu
 * @brief Lesson 06, stage 2 of 3: the exclusive scan of n ints, in one block and across a grid.
 *
 * Any n for the multi-block scans (every kernel guards its edges). Versions, in order:
 *   scan_kogge_stone     one block, log n steps, n log n additions
 *   scan_brent_kung      one block, 2 log n steps, about 2n additions
 *   scan_three_phase     scan the tiles, scan the tile totals, add the offsets
 *   scan_lookback        one pass: each tile looks back over its predecessors' totals
 * The yardstick, CUB's device-wide call, is the course's own (src/cub_yardstick.cu).
 *
 * Build and check this stage: ./course check 06 --stage scan; measure: ./course bench 06.
 */
#include "parallel_patterns.h"

#include "cuda_check.h"
#include "grid.h"

enum {
    SCAN_THREADS = 1024, /* one block of 1024 threads */
    SCAN_TILE = 2048,    /* two elements per thread */
    FLAG_AGGREGATE = 1,  /* scan_lookback: the tile's own total is published */
    FLAG_PREFIX = 2      /* the tile's inclusive prefix (all tiles up to it) is published */
};

static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_kogge_stone_kernel(const int *in, int n, int *out)
{
    /* s[t]: after the step with offset d, the sum of the (up to) 2d inputs ending at in[t]. */
    __shared__ int s[SCAN_THREADS];
    int t = threadIdx.x;
    // Load s[t] = in[t] (0 past n) and keep it in a register. For d = 1, 2, .., 512: a barrier,
    // read s[t - d] (t >= d), a barrier, add it into s[t]. s[t] is then the inclusive scan;
    // the exclusive one is s[t] minus this thread's own input. Store it for t < n.
    // TODO
}

extern "C" int scan_kogge_stone(const int *d_in, int n, int *d_out)
{
    if (n > SCAN_THREADS)
        return -1;
    // One block of SCAN_THREADS threads when n > 0.
    // TODO
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
    // TODO
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
    // TODO
}

extern "C" int scan_brent_kung(const int *d_in, int n, int *d_out)
{
    if (n > SCAN_TILE)
        return -1;
    // One block of SCAN_THREADS threads when n > 0.
    // TODO
    return 0;
}

/* Phase 1: block b scans tile b into out and writes the tile's total to sums[b]. */
static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_tiles_kernel(const int *in, int n, int *out, int *sums)
{
    __shared__ int s[SCAN_TILE];
    // As scan_brent_kung_kernel for tile blockIdx.x; thread 0 also writes the total to sums.
    // TODO
}

/* Phase 3: tile b adds offsets[b] (the scanned tile totals) to its elements. */
static __global__ void __launch_bounds__(SCAN_THREADS)
    scan_add_kernel(int *out, int n, const int *offsets)
{
    // Every element of tile blockIdx.x below n gets offsets[blockIdx.x] added.
    // TODO
}

extern "C" void scan_three_phase(const int *d_in, int n, int *d_out)
{
    // Tiles = ceil(n / SCAN_TILE); a block-sums buffer of one int per tile; phase 1; with
    // more than one tile, scan the buffer in place (this function) and phase 3; free.
    // TODO
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
    // TODO
}

/* The total of the tiles before @p tile, by one thread: walk back from tile - 1, adding
 * aggregates, until a tile with its prefix published. Each read of a flag waits while it is
 * 0; a fence after it orders the read of the value behind it (acquire). */
static __device__ int look_back(struct lookback lb, int tile)
{
    int sum = 0;
    // TODO
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
    // TODO
}

extern "C" void scan_lookback(const int *d_in, int n, int *d_out)
{
    // One allocation of 1 + 3 * tiles ints, zeroed (cudaMemset: every flag 0, next 0); point
    // the struct's arrays into it; one launch of `tiles` blocks; free.
    // TODO
}
