/**
 * @file test_race_global.h
 * @brief Races in global memory for the global racecheck (test_race_global_kernels.cu), each
 *        planted bug beside its correct twin, behind C launchers that return the launch's error.
 *
 * Each bug's lines carry marker comments (GR_...) that the suite looks up, so that a report can
 * be asserted to name both of its lines.
 */
#ifndef TEST_RACE_GLOBAL_H
#define TEST_RACE_GLOBAL_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Each block sums its 64-element slice of x[0..n) in place, halving the active threads each
 *  step, into x[64 b]; with @p bug, without the __syncthreads() between steps. */
cudaError_t gr_block_reduce(int bug, float *x, int n);

/** prefix[b] = the sum of x[0 .. 64 (b + 1)) clipped to n, block b adding its slice's sum to
 *  block b - 1's prefix. @p bug 1: reading prefix[b - 1] as if blocks ran in order; 0: a
 *  decoupled look-back (an atomic ticket, volatile flags, __threadfence()). @p ws: n / 64 + 1
 *  ints of flags and one ticket, zeroed by the caller. */
cudaError_t gr_chained_prefix(int bug, const float *x, float *prefix, int *ws, int n);

/** Thread 0 of each block writes its block's number into *out: @p bug 1 a plain store (two
 *  blocks writing one word), 0 atomicMax; @p same 1 (with @p bug) every block writes 7. */
cudaError_t gr_one_word(int bug, int same, int *out, int blocks);

/** y[i] = x[i - 1] + x[i] + x[i + 1] (zero outside 0..n): with @p bug in place (y == x, blocks
 *  reading their neighbours' edges as those blocks write them), else into y. */
cudaError_t gr_stencil(int bug, float *x, float *y, int n);

/** A cooperative launch: a[i] = 3 i + 1, then out[i] = a[n - 1 - i] after grid.sync() (without
 *  it, with @p bug). Launched with blocks of 32 threads covering n. */
cudaError_t gr_grid_sync(int bug, int *a, int *out, int n);

/** How gr_handoff()'s warps hand global memory over without a barrier of the whole block. */
enum gr_handoff {
    GR_NAMED_CHAIN,   /* warp 0 arrives at barrier 1, warp 1 waits there and arrives at 2 */
    GR_NAMED_APART,   /* warp 0 meets warp 1 at barrier 1, warp 2 meets warp 1 at 2 before that */
    GR_MBARRIER,      /* warp 0 arrives at an mbarrier after its stores, warp 1 waits on it */
    GR_MBARRIER_EARLY /* warp 0 arrives before its stores */
};

/** In each of @p blocks blocks, warp 0 stores staged[32 b + lane] = 5 in[32 b + lane] and a warp
 *  of the same block reads it back into out[32 b + lane] after the handoff @p how (an enum
 *  gr_handoff); GR_NAMED_APART and GR_MBARRIER_EARLY do not order the read after the store. */
cudaError_t gr_handoff(int how, const float *in, float *staged, float *out, int blocks);

/** Correct code the check must pass, over n elements in blocks of 32 threads: each thread writes
 *  out[i] twice (i + 1, then doubled); four threads write the four bytes of one word (bytes[i] =
 *  i % 251); each block writes its count of elements to part[b], __threadfence(), an atomicAdd
 *  on ws[0]; the last block to arrive sums every part[] into *total and resets ws[0] to 0. */
cudaError_t gr_quiet(int *out, unsigned char *bytes, int *part, int *ws, int *total, int n);

#ifdef __cplusplus
}
#endif

#endif /* TEST_RACE_GLOBAL_H */
