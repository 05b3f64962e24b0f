/**
 * @file probes.h
 * @brief `./course probes`: the kernels that measure what the time model assumes of a GPU.
 *
 * Each launcher takes device pointers, runs one kernel on the default stream and does not
 * synchronise. A latency probe is one thread (or one warp) following a chain of dependent
 * loads; it writes its clocks to d_clocks. A rate probe fills the GPU; the FMA, mma and barrier
 * probes also write each block's clocks (clock64 at its end less at its start) to d_clocks, from
 * which, with a CUDA event's time, the host reads the SM clock the others are counted at. Every
 * probe also writes what it computed, which the host checks: a probe that measured the wrong
 * thing says so.
 */
#ifndef PROBES_H
#define PROBES_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * One thread follows d_next from index 0 for @p warm dependent loads and then @p steps more,
 * through the L1 (around_l1 0, ld.global.ca) or around it (1, ld.global.cg): *d_clocks is the
 * clocks the last @p steps took, *d_end the index it stopped at. The warm loads are in the same
 * launch because a launch may start with the L1 empty.
 */
void probe_chase(const unsigned *d_next, int warm, int steps, int around_l1, long long *d_clocks,
                 unsigned *d_end);

/** As probe_chase(), with the @p n entries of d_next first copied into shared memory. */
void probe_chase_shared(const unsigned *d_next, int n, int steps, long long *d_clocks,
                        unsigned *d_end);

/**
 * One warp loads an 8 x 8 tile of 16-bit values with ldmatrix @p steps times, each load's
 * address made from the one before's result (d_tile's first 64 values are zero, so the
 * address stays; its next 64 are not, so a wrong row shows): *d_clocks is the clocks all the
 * loads took, d_out[32] each lane's last result (zero when every load read the tile).
 */
void probe_ldmatrix(const unsigned short *d_tile, int steps, long long *d_clocks, unsigned *d_out);

/**
 * @p blocks blocks of 256 threads, each thread 8 independent chains of @p iters fmaf(x, *a,
 * *b) from 0 (a = b = 1 gives iters exactly): d_out[thread] the sum of its chains,
 * d_clocks[block] its clocks.
 */
void probe_fma(int blocks, int iters, const float *d_ab, float *d_out, long long *d_clocks);

/**
 * @p blocks blocks of 8 warps, each warp 4 independent chains of @p iters fp16 mma.sync of
 * 16 x 8 x 16 (two m16n8k8 before sm_80) with fp32 accumulators, every input element
 * d_ab[0] (A) or d_ab[1] (B): d_out[warp] its first lane's sum of accumulators, d_clocks[block]
 * its clocks.
 */
void probe_mma(int blocks, int iters, const unsigned short *d_ab, float *d_out,
               long long *d_clocks);

/**
 * @p blocks blocks of 256 threads read d_buf's @p n 16-byte vectors @p passes times around the L1
 * (ld.global.cg): d_sum[thread] the wrapping sum of the 32-bit words it read.
 */
void probe_l2_read(int blocks, const unsigned *d_buf, long long n, int passes, unsigned *d_sum);

/**
 * @p blocks blocks of 256 threads each add 1 @p per_thread times (integer, or fp32 when @p f32)
 * to counter (d_idx[thread] + i) & mask, d_idx from the host so that the compiler cannot merge
 * a warp's updates: mask 0 is one address for all.
 */
void probe_atomics(int blocks, int per_thread, const unsigned *d_idx, unsigned mask, int f32,
                   unsigned *d_counts, float *d_fcounts);

/**
 * The stores of a naive transpose alone: d_out[x * n + y] = (y * 31 + x) & 1023 for every x, y
 * below n, consecutive x in a warp, so that each lane writes 4 bytes into a sector of its own.
 */
void probe_column_stores(int n, float *d_out);

/**
 * Blocks of 32 threads, (n + 31) / 32 of them, each storing its floats: d_out[i] = i & 1023,
 * each with @p smem bytes of shared memory (0, or probe_held_blocks()'s). Without it their work
 * is too small for the memory to be the limit: the GPU's start of blocks is.
 */
void probe_small_blocks(int n, int smem, float *d_out);

/**
 * The shared memory that holds probe_small_blocks() to two blocks an SM: half an SM's, less the
 * 1 KiB the driver reserves a block (allowed for the kernel here, once, before it is timed).
 * Then neither the memory nor the start of blocks across the GPU is the limit, but the clocks
 * each round of two takes to start and end. @p resident receives the blocks resident an SM (the
 * occupancy calculator's).
 */
int probe_held_blocks(int *resident);

/**
 * @p blocks blocks of 1024 threads, each round two __syncthreads() around a rotation of a
 * shared array (s[t] = s[t + 1] + 1): d_out[block * 1024 + t] = (t + rounds) % 1024 + rounds,
 * d_clocks[block] its clocks.
 */
void probe_barriers(int blocks, int rounds, unsigned *d_out, long long *d_clocks);

/** How many blocks of probe_barriers() an SM holds at once. */
int probe_barrier_blocks_per_sm(void);

#ifdef __cplusplus
}
#endif

#endif /* PROBES_H */
