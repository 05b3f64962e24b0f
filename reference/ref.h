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

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** C = A * B with float accumulation (loop order i, k, j for cache-friendly access). */
void ref_matmul(int M, int N, int K, const float *A, const float *B, float *C);

/** C = A * B in loop order i, j, k (B read down columns), float accumulation: lesson 01's naive
 *  loop as the course writes it, the baseline its speed case times in the judge. */
void ref_matmul_naive(int M, int N, int K, const float *A, const float *B, float *C);

/** C = A * B with every product and sum in double: the oracle. */
void ref_matmul_f64(int M, int N, int K, const float *A, const float *B, double *C);

/** C = |A| * |B| in double: sum_k |a_ik| |b_kj|, the scale of each element's rounding error. */
void ref_matmul_abs_f64(int M, int N, int K, const float *A, const float *B, double *C);

/** Unit roundoff of float (binary32): half the gap between 1 and the next value, 2^-24. */
#define REF_U_FP32 0x1p-24
/** Unit roundoff of TF32 (10 stored mantissa bits, as binary16): 2^-11. */
#define REF_U_TF32 0x1p-11
/** Unit roundoff of binary16 (fp16, 10 stored mantissa bits): 2^-11. */
#define REF_U_FP16 0x1p-11
/** Unit roundoff of bfloat16 (7 stored mantissa bits): 2^-8. */
#define REF_U_BF16 0x1p-8
/**
 * The accumulator unit to pass for float accumulation on Tensor Cores: 2^-22. They align the
 * addends of a block of products to the largest and truncate, so each block loses up to one
 * ulp of its largest addend per addend (2^-23 relative, times (b + 1) / b for blocks of b
 * products) instead of rounding once to half an ulp; 2^-22 covers that with room to spare.
 */
#define REF_U_TC_ACC 0x1p-22

/**
 * The course's one tolerance rule for a GEMM that rounds. Every element must satisfy
 *
 *     |got_ij - exact_ij| <= ref_gemm_tolerance(K, u_in, u_acc) * sum_k |a_ik| |b_kj|
 *
 * where exact is the product of the float inputs (ref_matmul_f64()), the sum is
 * ref_matmul_abs_f64(), u_in the unit roundoff of the format A and B are rounded to before
 * the multiply (0 when they are already exact in it) and u_acc that of the accumulation.
 * Returns (1 + u_in)^2 (1 + gamma_K) - 1, with gamma_K = K u_acc / (1 - K u_acc) the classic
 * bound on a K-term dot product (Higham, Accuracy and Stability of Numerical Algorithms,
 * sec. 3.1); each rounded input adds a relative u_in to each product. Infinite when
 * K u_acc >= 1, where the bound says nothing.
 */
double ref_gemm_tolerance(int K, double u_in, double u_acc);

/**
 * Mean softmax cross-entropy of an MLP over @p B samples, every product and sum in double: the
 * oracle of lesson 13's gradient check. @p layers linear layers of widths dims[0] (inputs) ..
 * dims[layers] (classes), ReLU between them; @p params holds, layer after layer, the weights
 * (dims[l + 1] x dims[l], row-major) then the biases. @p x is B x dims[0], @p labels B classes.
 */
double ref_mlp_loss_f64(int layers, const int *dims, const float *params, const float *x,
                        const uint8_t *labels, int B);

/**
 * y[i] = x[i] put through @p rounds rounds of w = (w ^ (w >> 16)) * @p multiplier, in unsigned
 * 32-bit arithmetic, for i < n: lesson 07's per-word work (streams.h), on the CPU.
 */
void ref_mix(const uint32_t *x, uint32_t *y, size_t n, int rounds, uint32_t multiplier);
/* ---- lesson 11: softmax, LayerNorm and attention in double, with their bounds (ref_fused.c) */

/** The relative error ex2.approx.f32 may add to 2^x: 2 ulp from the correctly rounded result
 *  (PTX ISA, "ex2"), plus that rounding's half ulp, in units of 2^-23. */
#define REF_EX2_REL (2.5 * 0x1p-23)

/**
 * y = the softmax of each of @p rows rows of @p cols floats of @p x, in double: exp(x - m) /
 * sum exp(x - m), m the row's max, and 0 on a row of -inf. With @p bound not NULL, also the
 * most a float kernel may err on each element (the course's softmax rule):
 *
 *     |got - y_c| <= ((1 + e_c) (1 + 3u) / (1 - E - gamma_cols(u)) - 1) y_c + FLT_MIN
 *
 * with u = 2^-24, e_c = exp(3u (|x_c| + |m|)) (1 + REF_EX2_REL) - 1 the relative error of one
 * exponential (its argument rounded: the shift x - m, or a scale folded into it; then the
 * exponential's 2.5 ulp), E the row's largest e_c, gamma_cols(u) the sum's rounding, 3u the
 * reciprocal and the product, and FLT_MIN what flushing a result below float's smallest normal
 * loses.
 */
void ref_softmax_f64(int rows, int cols, const float *x, double *y, double *bound);

/** ref_layernorm_f64()'s outputs, each rows (mean, rstd) or rows x cols (y) doubles; the
 *  bounds may be NULL (all three, or none). */
struct ref_layernorm {
    double *y;          /**< rows x cols outputs */
    double *mean;       /**< rows means */
    double *rstd;       /**< rows values of 1 / sqrt(var + eps) */
    double *y_bound;    /**< the most each y may err, or NULL */
    double *mean_bound; /**< the most each mean may err, or NULL */
    double *rstd_bound; /**< the most each rstd may err, or NULL */
};

/**
 * LayerNorm of @p rows rows of @p cols floats of @p x in double: mean, var (population),
 * rstd = 1 / sqrt(var + eps), y = (x - mean) rstd gamma + beta. The bounds are the most a
 * kernel may err that computes the statistics in fp32 in any order, by Welford's update or by
 * sum(x^2) / n - mean^2 (the derivation is beside the code), uses rsqrt.approx, and rounds y
 * to a format of unit @p u_out.
 */
void ref_layernorm_f64(int rows, int cols, const float *x, const float *gamma, const float *beta,
                       float eps, double u_out, const struct ref_layernorm *out);

/**
 * O = softmax(Q K^T / sqrt(d), masked) V for @p heads heads in double, with
 * fused_attention.h's layout and causal mask (a query that sees no key gets 0), from the
 * values in @p Q, @p K and @p V (the 16-bit inputs as floats). With @p bound not NULL, the most
 * a kernel may err on each element that computes both products on Tensor Cores
 * (REF_U_TC_ACC), the softmax in fp32 with ex2.approx (online, in tiles of 16 keys or more, or
 * not), rounds P to a 16-bit format of unit @p u16 before P V, and O to that format. Per query
 * row, with s_j its scores, m their max, p_j = exp(s_j - m), l = sum p_j, and
 * a_j = gamma_d(REF_U_TC_ACC) sum_c |q_c k_jc| / sqrt(d) + 2u |s_j| each score's error:
 *
 *     e_j  = exp(a_j + 3u (|s_j| + |m|)) (1 + REF_EX2_REL) - 1       one weight's error
 *     E    = max_j e_j + ceil(n_k / 16) (REF_EX2_REL + 3u)            and the rescalings'
 *     rel  = (1 + E)(1 + u16)(1 + gamma_nk(REF_U_TC_ACC))(1 + 2u) / (1 - E - gamma_nk(u)) - 1
 *     |got - O_c| <= rel (sum_j p_j |v_jc| / l) (1 + u16) + u16 |O_c| + 2^-24
 */
void ref_attention_f64(int heads, int n_q, int n_k, int d, int causal, const float *Q,
                       const float *K, const float *V, double u16, double *O, double *bound);

/** The IEEE binary16 bit pattern nearest to @p x (ties to even; NaN stays NaN, quiet). */
uint16_t ref_f32_to_f16(float x);

/** The float equal to the binary16 bit pattern @p h (every binary16 value is exact in float). */
float ref_f16_to_f32(uint16_t h);

/** The bfloat16 bit pattern nearest to @p x (ties to even; NaN stays NaN, quiet). */
uint16_t ref_f32_to_bf16(float x);

/** The float equal to the bfloat16 bit pattern @p b. */
float ref_bf16_to_f32(uint16_t b);

#ifdef __cplusplus
}
#endif

#endif /* REF_H */
