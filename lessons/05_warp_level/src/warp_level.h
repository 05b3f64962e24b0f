/**
 * @file warp_level.h
 * @brief Lesson 05: the warp as a unit. Launchers take device pointers and do not synchronise.
 */
#ifndef WARP_LEVEL_H
#define WARP_LEVEL_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * *d_out = d_x[0] + ... + d_x[n-1] (n >= 0; 0 when n is 0). One block of 1024
 * threads: each thread sums a strided slice, each warp reduces its 32 partial
 * sums with __shfl_down_sync, and the first warp reduces the 32 warp sums.
 * d_out is written, not accumulated into, so it needs no clearing first. The
 * order of the additions is fixed: the result is the same on every run.
 */
void warp_sum(const float *d_x, int n, float *d_out);

/**
 * y = A x, with A M x K row-major, x of K floats, y of M floats. One warp per
 * row: the 32 lanes read the row together (float4 loads when K is a multiple
 * of 4 and A and x are 16-byte aligned, else scalar loads), then reduce their
 * partial dot products with __shfl_down_sync.
 */
void gemv_warp(int M, int K, const float *d_A, const float *d_x, float *d_y);

/**
 * C = A * B (A M x K, B K x N, C M x N, row-major), any sizes: 128 x 128 block
 * tiles, BK = 16, 8 warps each owning a 64 x 32 warp tile, each thread an 8 x 8
 * thread tile (four 4 x 4 pieces), float4 global loads prefetched into
 * registers during the previous tile's math, A stored transposed in shared
 * memory. Unaligned or edge accesses fall back to guarded scalar loads.
 */
void matmul_warptile(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

#ifdef __cplusplus
}
#endif

#endif /* WARP_LEVEL_H */
