/**
 * @file course_half.h
 * @brief The judge's check of a 16-bit GEMM launcher (lessons 08 and 10): C (float) = A * B
 *        with A and B passed as fp16 or bfloat16 bits, in the runner, against the host.
 *
 * The launcher's signature is `void name(int M, int N, int K, const uint16_t *A, const
 * uint16_t *B, float *C)`. Inputs are small integers (exact in both formats: the check is
 * equality) or, with uniform, floats in [-1, 1) rounded to the format on the host, so the only
 * rounding left is the accumulation's: the check is the course's rule, ref_gemm_tolerance(K, 0,
 * REF_U_TC_ACC) times sum |a||b|.
 */
#ifndef COURSE_HALF_H
#define COURSE_HALF_H

#include <stddef.h>
#include <stdint.h>

#include "course_judge.h"

/** Round @p x (n floats) to fp16 (or, with @p bf16, bfloat16) in place; return its bits
 *  (malloc'd). */
uint16_t *course_to16(float *x, size_t n, int bf16);

/**
 * Run @p name once at M x N x K into a poisoned, guarded C, each matrix @p offset bytes past an
 * aligned address (C in whole floats), on integers or (@p uniform) under the rounding rule;
 * return the comparison.
 */
struct mat_cmp course_half_gemm(struct course_runner *r, const char *name, int bf16, int M, int N,
                                int K, uint64_t seed, int uniform, size_t offset);

/** course_half_gemm() at each of @p count shapes {M, N, K} (seeds from @p seed on); a Check
 *  assertion names @p name, the shape, the inputs and the first bad element of the first shape
 *  that fails. */
void course_half_gemm_shapes(struct course_runner *r, const char *name, int bf16,
                             const int (*shapes)[3], size_t count, uint64_t seed, int uniform,
                             size_t offset);

/** Median ms of the launcher @p name at n x n x n on fp16 (with @p bf16, bfloat16) integers, in
 *  the runner (5 samples after 2 warm-ups). It must first be right at 128 x 128 x 128: a fast
 *  wrong kernel proves nothing. */
double course_half_time(struct course_runner *r, const char *name, int bf16, int n);

/** Median ms of cuBLAS GemmEx (fp16 in, or bfloat16 with @p bf16; fp32 compute) at n x n x n,
 *  timed in the judge on its own inputs. */
double course_cublas_gemm16_ms(int bf16, int n);

#endif /* COURSE_HALF_H */
