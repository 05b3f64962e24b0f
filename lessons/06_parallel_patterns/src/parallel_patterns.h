/**
 * @file parallel_patterns.h
 * @brief Lesson 06: reduction, scan and histogram across a whole grid (CUB, the yardstick, is the
 *        course's: cub_yardstick.h).
 *
 * Every function here is host code: it allocates the temporary storage it needs, picks the grid
 * (from the device's properties where the grid is fixed), launches its kernels in sequence,
 * checks each launch and frees what it allocated. Pointers named d_ are device memory. The
 * outputs are written by kernels, never accumulated into: they need no clearing first.
 */
#ifndef PARALLEL_PATTERNS_H
#define PARALLEL_PATTERNS_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reduction: *d_out = d_x[0] + ... + d_x[n-1] (n >= 0; 0 when n is 0) ------------------- */

/** Step 1: one global atomicAdd per element. The order of the additions varies run to run. */
void reduce_atomic(const float *d_x, int n, float *d_out);

/** Step 2: a shared-memory tree per block of 512 elements (sequential addressing: no divergent
 *  warps, no bank conflicts), then one atomicAdd per block. */
void reduce_tree(const float *d_x, int n, float *d_out);

/** Step 3: the same tiles reduced with warp shuffles (one barrier per block), one atomicAdd per
 *  block. */
void reduce_warp(const float *d_x, int n, float *d_out);

/** Step 4: a fixed grid sized to the device (SMs x resident blocks per SM), each thread a
 *  grid-stride loop of float4 loads (scalar loads when d_x is not 16-byte aligned), one
 *  atomicAdd per block. */
void reduce_grid(const float *d_x, int n, float *d_out);

/** Step 5: step 4's first pass writes one partial sum per block to a temporary buffer; a second
 *  kernel of one block adds them in a fixed order. The same bits on every run. */
void reduce_deterministic(const float *d_x, int n, float *d_out);

/* ---- scan: d_out[i] = d_in[0] + ... + d_in[i-1] (exclusive; d_out[0] = 0), ints, exact ---- */

/** Kogge-Stone in one block of 1024 threads: log2(1024) steps, n log n additions. Returns 0, or
 *  -1 (launching nothing) when n > 1024. */
int scan_kogge_stone(const int *d_in, int n, int *d_out);

/** Brent-Kung (an up-sweep and a down-sweep tree) in one block of 1024 threads, two elements
 *  each: 2 log2(2048) steps, about 2n additions. Returns 0, or -1 when n > 2048. */
int scan_brent_kung(const int *d_in, int n, int *d_out);

/** Any n: each block scans a 2048-element tile and writes its total to a block-sums buffer;
 *  the block sums are scanned (by this function, recursively); each tile adds its offset. */
void scan_three_phase(const int *d_in, int n, int *d_out);

/** Any n, one pass: each tile publishes its total, then looks back over its predecessors'
 *  published totals for its offset (the decoupled look-back CUB uses), ordered by fences. */
void scan_lookback(const int *d_in, int n, int *d_out);

/* ---- histogram: d_bins[b] = how many of the n bytes of d_data equal b (256 bins) --------- */

/** Step 1: one global atomicAdd per byte. */
void histogram_global(const unsigned char *d_data, int n, unsigned int *d_bins);

/** Step 2: a private histogram per block in shared memory (shared atomics), merged into d_bins
 *  with one global atomicAdd per non-empty bin per block. */
void histogram_shared(const unsigned char *d_data, int n, unsigned int *d_bins);

/** Step 3: step 2 with each thread reading 16 neighbouring bytes and adding a run of equal
 *  bytes with one shared atomic: few atomics, little contention, on skewed data. */
void histogram_aggregated(const unsigned char *d_data, int n, unsigned int *d_bins);

/** A larger key range: d_bins[b] = how many of the n keys equal b, for 0 <= b < num_bins
 *  (1 <= num_bins <= HISTOGRAM_MAX_BINS); keys outside [0, num_bins) are not counted. Private
 *  histograms in dynamic shared memory, merged as in step 2. */
void histogram_range(const int *d_keys, int n, int num_bins, unsigned int *d_bins);

/** The most bins histogram_range() takes: 32 KiB of shared memory, within the 48 KiB a block
 *  gets without opting in, with room for the static shared memory of the module's kernels. */
#define HISTOGRAM_MAX_BINS 8192

#ifdef __cplusplus
}
#endif

#endif /* PARALLEL_PATTERNS_H */
