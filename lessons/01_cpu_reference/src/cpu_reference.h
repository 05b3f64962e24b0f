/**
 * @file cpu_reference.h
 * @brief Lesson 01: matrix multiply on the CPU, three ways.
 *
 * Row-major float: C (M x N) = A (M x K) * B (K x N), any sizes.
 */
#ifndef CPU_REFERENCE_H
#define CPU_REFERENCE_H

#ifdef __cplusplus
extern "C" {
#endif

/** Textbook loop order i, j, k: walks B down a column, one cache line per element. */
void matmul_naive(int M, int N, int K, const float *A, const float *B, float *C);

/** Loop order i, k, j: the inner loop walks rows of B and C contiguously. */
void matmul_reordered(int M, int N, int K, const float *A, const float *B, float *C);

/** i, k, j over cache-sized tiles, so the tile of B in use stays in cache. */
void matmul_blocked(int M, int N, int K, const float *A, const float *B, float *C);

#ifdef __cplusplus
}
#endif

#endif /* CPU_REFERENCE_H */
