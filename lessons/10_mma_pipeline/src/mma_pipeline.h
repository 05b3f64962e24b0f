/**
 * @file mma_pipeline.h
 * @brief Lesson 10: GEMM on Tensor Cores by hand: ldmatrix, mma.sync, a swizzled shared layout
 *        and a cp.async pipeline. Launchers take device pointers and do not synchronise.
 *
 * C (M x N, float) = A (M x K) * B (K x N), row-major, any M, N, K >= 1. A and B hold 16-bit
 * floating-point numbers passed as their raw bits (`const uint16_t *`, as lesson 08's): IEEE
 * binary16 for mma_ldmatrix, mma_swizzled and mma_pipelined, bfloat16 for mma_bf16. Products
 * are exact and accumulate in float. Any pointers: rows that are not 16-byte aligned take a
 * slower path, never a wrong one.
 *
 * mma.sync m16n8k16 and cp.async exist from compute capability 8.0 on: on an older GPU every
 * launcher prints "NAME: needs sm_80 ..." and exits, like a failed CUDA_CHECK (asking for it
 * there is a programming error; check device_compute_capability() >= 80 first).
 */
#ifndef MMA_PIPELINE_H
#define MMA_PIPELINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * C = A * B with fp16 A and B: 128 x 128 block tiles of C, one 64-deep slice of A and of B at a
 * time in plain row-major shared tiles, fragments loaded with ldmatrix, eight warps each owning
 * 64 x 32 of C as 4 x 4 mma.sync m16n8k16 tiles; the result leaves through shared memory.
 */
void mma_ldmatrix(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/** mma_ldmatrix with the shared tiles' 16-byte chunks XOR-swizzled by row: ldmatrix reads and
 *  16-byte stores without bank conflicts. */
void mma_swizzled(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/** mma_swizzled with its slices copied by cp.async through a 3-stage pipeline: two slices in
 *  flight while the warps multiply out of the third. */
void mma_pipelined(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/** mma_pipelined with bfloat16 A and B. */
void mma_bf16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

#ifdef __cplusplus
}
#endif

#endif /* MMA_PIPELINE_H */
