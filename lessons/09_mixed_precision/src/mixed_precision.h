/**
 * @file mixed_precision.h
 * @brief Lesson 09: number formats on the GPU: conversions, GEMMs at three input precisions on
 *        Tensor Cores. Launchers take device pointers and do not synchronise.
 *
 * 16-bit values travel as their bit patterns in `uint16_t` (C has no 16-bit float type), as in
 * lesson 08. The conversions round to nearest, ties to even, exactly as ref_f32_to_f16() and
 * ref_f32_to_bf16() do; one routine serves the host and the device, so the CPU tests that
 * check every case exhaustively test the code the kernels run.
 */
#ifndef MIXED_PRECISION_H
#define MIXED_PRECISION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The binary16 bit pattern nearest to @p x (ties to even), on the host: the kernels' routine. */
uint16_t mp_f32_to_f16(float x);

/** The bfloat16 bit pattern nearest to @p x (ties to even), on the host: the kernels' routine. */
uint16_t mp_f32_to_bf16(float x);

/** d_y[i] = the binary16 bits nearest to d_x[i], for i < n (grid-stride loop). */
void convert_f32_to_f16(const float *d_x, uint16_t *d_y, size_t n);

/** d_y[i] = the bfloat16 bits nearest to d_x[i], for i < n (grid-stride loop). */
void convert_f32_to_bf16(const float *d_x, uint16_t *d_y, size_t n);

/**
 * C = A * B, fp16 A and B (bits), fp32 C, on Tensor Cores with fp32 accumulation: one warp per
 * 16 x 16 tile of C, tiles staged through shared memory with zeros past the edges.
 */
void gemm_wmma_f16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/** gemm_wmma_f16() with bfloat16 A and B. Needs sm_80: elsewhere it prints why and exits. */
void gemm_wmma_bf16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/**
 * C = A * B with float A and B rounded to TF32 (10 mantissa bits, wmma::precision::tf32, round to
 * nearest) inside the kernel, fp32 accumulation. Needs sm_80: elsewhere it prints why and exits.
 */
void gemm_wmma_tf32(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

#ifdef __cplusplus
}
#endif

#endif /* MIXED_PRECISION_H */
