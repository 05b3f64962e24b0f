/**
 * @file ref.h
 * @brief CPU references: the yardsticks every kernel is checked against.
 *
 * All matrices are row-major: A is M x K, B is K x N, C is M x N.
 * ref_matmul() accumulates in float, like the kernels; ref_matmul_f64()
 * accumulates in double and is the oracle. The conversions round to nearest,
 * ties to even, as the hardware's default conversion instructions do.
 */
#ifndef REF_H
#define REF_H

#include <stdint.h>

/** C = A * B with float accumulation (loop order i, k, j for cache-friendly access). */
void ref_matmul(int M, int N, int K, const float *A, const float *B, float *C);

/** C = A * B with every product and sum in double: the oracle. */
void ref_matmul_f64(int M, int N, int K, const float *A, const float *B, double *C);

/** The IEEE binary16 bit pattern nearest to @p x (ties to even; NaN stays NaN, quiet). */
uint16_t ref_f32_to_f16(float x);

/** The float equal to the binary16 bit pattern @p h (every binary16 value is exact in float). */
float ref_f16_to_f32(uint16_t h);

/** The bfloat16 bit pattern nearest to @p x (ties to even; NaN stays NaN, quiet). */
uint16_t ref_f32_to_bf16(float x);

/** The float equal to the bfloat16 bit pattern @p b. */
float ref_bf16_to_f32(uint16_t b);

#endif /* REF_H */
