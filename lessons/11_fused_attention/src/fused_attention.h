/**
 * @file fused_attention.h
 * @brief Lesson 11: fused kernels. Softmax over rows, LayerNorm, and attention's forward pass,
 *        unfused (the N x N matrix through memory) and fused (FlashAttention: it never leaves
 *        the chip). Launchers take device pointers and do not synchronise.
 *
 * Matrices are row-major. 16-bit data is passed as `uint16_t *`, the raw bits of IEEE binary16
 * (fp16) or bfloat16 as ref_f32_to_f16() and ref_f32_to_bf16() make them (lesson 08 says why);
 * @p bf16 picks the format (0: fp16, 1: bfloat16). Statistics are fp32 whatever the format.
 * Functions that return int return 0, or -1 after one line on stderr naming what they refuse,
 * launching nothing.
 */
#ifndef FUSED_ATTENTION_H
#define FUSED_ATTENTION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- softmax over rows: y[r][c] = exp(x[r][c] - m_r) / sum_c exp(x[r][c] - m_r) ------------ */

/* rows >= 1 rows of cols >= 1 floats, m_r the row's largest. Finite logits of any size (1e4 and
 * beyond) give no overflow: every exponent is at most 0 and the sum at least 1. A row whose
 * entries are all -inf (every key masked) has no softmax: the lesson defines its output as 0. */

/** The longest row one warp holds in registers (32 floats a lane); longer rows get a block. */
#define SOFTMAX_WARP_COLS 1024

/** Three passes over each row, one block per row: the max, the sum of exponentials, the
 *  output. Reads x three times. */
void softmax_naive(int rows, int cols, const float *d_x, float *d_y);

/** One pass for the statistics: a running max and a sum rescaled whenever the max grows (the
 *  online normaliser), merged across lanes and warps. Rows up to SOFTMAX_WARP_COLS: one warp a
 *  row, held in registers, x read once; longer rows: one block a row, x read twice (the
 *  statistics, then the output). */
void softmax_online(int rows, int cols, const float *d_x, float *d_y);

/* ---- LayerNorm: y = (x - mean) / sqrt(var + eps) * gamma + beta, per row -------------------- */

/** The longest row layernorm() takes: what one block of 256 threads holds in registers. */
#define LAYERNORM_MAX_COLS 8192

/**
 * LayerNorm forward over rows >= 1 rows of 1 <= cols <= LAYERNORM_MAX_COLS 16-bit values
 * (fp16, or bfloat16 with @p bf16), one block a row, the row read once into registers. mean and
 * var (the population variance, divided by cols) are computed in fp32 in one pass (Welford's
 * update per thread, Chan's merge across threads); gamma and beta (cols floats) scale and shift
 * in the same pass. y is written in the input's format; d_mean and d_rstd (rows floats each:
 * mean and 1 / sqrt(var + eps), what a backward pass needs) are written too. eps > 0.
 */
int layernorm(int rows, int cols, const uint16_t *d_x, const float *d_gamma, const float *d_beta,
              float eps, int bf16, uint16_t *d_y, float *d_mean, float *d_rstd);

/* ---- attention forward: O = softmax(Q K^T / sqrt(d)) V, per head ---------------------------- */

/*
 * heads >= 1 independent heads (batch x heads, flattened), each Q (n_q x d), K and V (n_k x d)
 * and O (n_q x d), heads one after another: Q[h][i][c] at d_Q[(h * n_q + i) * d + c]. Head
 * dimension d is 64 or 128; n_q, n_k >= 1; 16-bit inputs and output (@p bf16), fp32 scores and
 * softmax statistics. Pointers 16-byte aligned (cudaMalloc's are). Needs sm_80 (mma.sync
 * m16n8k16 and cp.async): on an older GPU the call is refused.
 *
 * With @p causal, query i sees key j when j <= i + (n_k - n_q): the mask's diagonal ends at the
 * last query and the last key (queries are the newest positions, as when decoding with a
 * cache). When n_q > n_k the first n_q - n_k queries see no key: their output is 0 (the
 * lesson's definition, as for a softmax row of -inf).
 */

/** The unfused ladder: S = Q K^T / sqrt(d) (fp32, masked entries -inf) by a Tensor Core GEMM,
 *  P = softmax_online(S) (fp32), O = P V by another. S and P, heads x n_q x n_k floats each,
 *  go through global memory (temporary buffers this call allocates). */
int attention_unfused(int heads, int n_q, int n_k, int d, int causal, int bf16, const uint16_t *d_Q,
                      const uint16_t *d_K, const uint16_t *d_V, uint16_t *d_O);

/** FlashAttention's forward pass: a block owns 64 queries, its warps hold Q in registers and
 *  stream 64-key tiles of K and V through shared memory (cp.async), S and P stay in registers
 *  (mma.sync for both products), and an online softmax rescales the output as the max grows.
 *  Global traffic: Q, K, V read and O written, nothing of size n_q x n_k. */
int flash_attention(int heads, int n_q, int n_k, int d, int causal, int bf16, const uint16_t *d_Q,
                    const uint16_t *d_K, const uint16_t *d_V, uint16_t *d_O);

#ifdef __cplusplus
}
#endif

#endif /* FUSED_ATTENTION_H */
