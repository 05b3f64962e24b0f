/**
 * @file shared_memory_tiling.h
 * @brief Lesson 03: shared-memory tiles. Launchers take device pointers and do not synchronise.
 */
#ifndef SHARED_MEMORY_TILING_H
#define SHARED_MEMORY_TILING_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * C = A * B (A M x K, B K x N, C M x N, row-major), any sizes. Each 32 x 32 block
 * stages 32 x 32 tiles of A and B in shared memory and computes one 32 x 32 tile
 * of C, one element per thread.
 */
void matmul_tiled(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

/**
 * d_out = d_in^T: d_in is M x N, d_out is N x M (row-major, any sizes,
 * out of place). Goes through a 32 x 32 shared tile so that both the global
 * loads and the global stores are coalesced; reading the tile by column makes
 * all 32 threads of a warp hit the same shared-memory bank (a 32-way conflict).
 */
void transpose_shared(int M, int N, const float *d_in, float *d_out);

/** As transpose_shared(), with a tile of 32 x 33 floats: the extra column removes the conflicts. */
void transpose_shared_padded(int M, int N, const float *d_in, float *d_out);

#ifdef __cplusplus
}
#endif

#endif /* SHARED_MEMORY_TILING_H */
