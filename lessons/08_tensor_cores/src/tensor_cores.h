/**
 * @file tensor_cores.h
 * @brief Lesson 08: GEMM on Tensor Cores through WMMA. Launchers take device pointers and do not
 *        synchronise.
 *
 * C (M x N, float) = A (M x K) * B (K x N), row-major, any M, N, K >= 1. A and B hold 16-bit
 * floating-point numbers: IEEE binary16 (fp16) for wmma_naive and wmma_shared, bfloat16 for
 * wmma_bf16. C has no 16-bit type, so they are passed as `const uint16_t *`: the raw bit
 * patterns, as ref_f32_to_f16() and ref_f32_to_bf16() make them on the host. The kernels read
 * the same bytes as `__half` or `__nv_bfloat16`, which have the same size and alignment.
 * Products are exact and accumulate in float.
 */
#ifndef TENSOR_CORES_H
#define TENSOR_CORES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * C = A * B with fp16 A and B, one warp per 16 x 16 tile of C, fragments loaded straight from
 * global memory (edge tiles, and sizes the fragment loads cannot address, go through a
 * zero-filled per-warp staging buffer in shared memory).
 */
void wmma_naive(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/**
 * C = A * B with fp16 A and B: 128 x 128 block tiles of C, 32-deep slices of A and B
 * double-buffered in padded shared memory, eight warps each owning a 64 x 32 warp tile
 * (4 x 2 accumulator fragments).
 */
void wmma_shared(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/**
 * wmma_shared() with bfloat16 A and B. Needs compute capability 8.0 or newer: on an older
 * device it prints "wmma_bf16: needs sm_80 ..." and exits, like a failed CUDA_CHECK (asking for
 * it there is a programming error; check device_compute_capability() >= 80 first).
 */
void wmma_bf16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

#ifdef __cplusplus
}
#endif

#endif /* TENSOR_CORES_H */
