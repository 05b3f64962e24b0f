/**
 * @file register_tiling.h
 * @brief Lesson 04: register tiling. Launchers take device pointers and do not synchronise.
 *
 * Every launcher computes C = A * B (A M x K, B K x N, C M x N, row-major
 * float) for any sizes and any pointers.
 */
#ifndef REGISTER_TILING_H
#define REGISTER_TILING_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * C = A * B with 64 x 64 block tiles and BK = 8; each of the 512 threads
 * computes a column of TM = 8 results, reusing one value of B from a register
 * for 8 FMAs.
 */
void matmul_1d_tile(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

/**
 * C = A * B with 128 x 128 block tiles and BK = 8; each of the 256 threads
 * computes an 8 x 8 tile of results from 8 values of A and 8 of B held in
 * registers: 64 FMAs per 16 shared-memory loads.
 */
void matmul_2d_tile(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

/**
 * matmul_2d_tile() with 128-bit (float4) global loads and stores, and the A
 * tile stored transposed in shared memory so the inner loop reads it with
 * 128-bit loads too. Where a float4 would cross an edge, or a row is not
 * 16-byte aligned (K or N not a multiple of 4, or a pointer not 16-byte
 * aligned), that access falls back to guarded scalar loads: any size works.
 */
void matmul_vectorized(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

#ifdef __cplusplus
}
#endif

#endif /* REGISTER_TILING_H */
