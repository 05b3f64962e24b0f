/**
 * @file ref_fused.c
 * @brief CPU references of lesson 11's fused kernels: softmax, LayerNorm and attention in
 *        double, each with the bound a correct fp32 kernel's error stays within (ref.h).
 *
 * Every bound is first-order plus slack, derived from the unit roundoffs involved and the row
 * length, and holds for any order of summation a kernel may choose.
 */
#include "ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* gamma_n = n u / (1 - n u): the relative error bound of an n-term sum of terms of one sign
 * rounded with unit u (Higham, Accuracy and Stability of Numerical Algorithms, sec. 3.1). */
static double gamma_n(double n, double u)
{
    return n * u < 1 ? n * u / (1 - n * u) : INFINITY;
}

static void *alloc_or_abort(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (!p)
        abort();
    return p;
}

void ref_softmax_f64(int rows, int cols, const float *x, double *y, double *bound)
{
    const double u = REF_U_FP32;
    double *e = alloc_or_abort((size_t)cols * sizeof *e);
    for (size_t r = 0; r < (size_t)rows; r++) {
        const float *xr = x + r * cols;
        double *yr = y + r * cols, m = -INFINITY, sum = 0, worst = 0;
        for (int c = 0; c < cols; c++)
            m = xr[c] > m ? xr[c] : m;
        for (int c = 0; c < cols; c++) {
            yr[c] = m == -INFINITY ? 0.0 : exp((double)xr[c] - m);
            sum += yr[c];
            /* one exponential: its argument rounded (a shift x - m, or a scale folded in: 3u of
             * the magnitudes), then the exponential's own 2.5 ulp */
            e[c] = xr[c] == -INFINITY
                       ? 0
                       : exp(3 * u * (fabs(xr[c]) + fabs(m))) * (1 + REF_EX2_REL) - 1;
            worst = e[c] > worst ? e[c] : worst;
        }
        for (int c = 0; c < cols; c++) {
            yr[c] = m == -INFINITY ? 0.0 : yr[c] / sum;
            if (bound) /* the numerator's e_c, the sum's worst e and its rounding, 1 / s and x */
                bound[r * cols + c] =
                    m == -INFINITY
                        ? 0.0
                        : ((1 + e[c]) * (1 + 3 * u) / (1 - worst - gamma_n(cols, u)) - 1) * yr[c] +
                              FLT_MIN;
        }
    }
    free(e);
}

void ref_layernorm_f64(int rows, int cols, const float *x, const float *gamma, const float *beta,
                       float eps, double u_out, const struct ref_layernorm *out)
{
    const double u = REF_U_FP32, g = gamma_n(cols, u);
    for (size_t r = 0; r < (size_t)rows; r++) {
        const float *xr = x + r * cols;
        double mean = 0, var = 0, big = 0, square = 0;
        for (int c = 0; c < cols; c++) {
            mean += xr[c];
            square += (double)xr[c] * xr[c];
            big = fabs(xr[c]) > big ? fabs(xr[c]) : big;
        }
        mean /= cols;
        square /= cols;
        for (int c = 0; c < cols; c++)
            var += ((double)xr[c] - mean) * ((double)xr[c] - mean);
        var /= cols;
        double rstd = 1 / sqrt(var + eps);
        /* The errors of fp32 statistics in any order of summation: the mean's, cols terms of
         * size at most max|x| (twice gamma: Welford's running mean rounds twice a step); the
         * variance's, that of sum(x^2) / cols - mean^2 (gamma mean(x^2) for the squares,
         * 2 |mean| dmean <= 2 gamma mean(x^2) for the mean's square, by Cauchy-Schwarz, and
         * dmean^2), which also covers the stable algorithms (Welford's n kappa u var, with
         * kappa^2 = mean(x^2) / var: Chan, Golub and LeVeque, "Algorithms for computing the
         * sample variance", 1983). So both algorithms pass; which is more accurate when |mean|
         * is large against the spread is measured in the lesson, not graded. */
        double dmean = 2 * g * big, dvar = 3 * g * square + dmean * dmean + 2 * u * var;
        /* rsqrt: half the relative error of var + eps, plus rsqrt.approx's 2^-22 and a rounding */
        double drstd = (dvar / (2 * (var + eps)) + 0x1p-22 + u) * rstd;
        out->mean[r] = mean;
        out->rstd[r] = rstd;
        if (out->mean_bound) {
            out->mean_bound[r] = dmean;
            out->rstd_bound[r] = drstd;
        }
        for (size_t c = 0; c < (size_t)cols; c++) {
            double dev = (double)xr[c] - mean, y = dev * rstd * gamma[c] + beta[c];
            out->y[r * cols + c] = y;
            if (out->y_bound) /* mean's and rstd's errors carried through, 4 roundings, then y's */
                out->y_bound[r * cols + c] =
                    (dmean * rstd + fabs(dev) * drstd) * fabs(gamma[c]) * (1 + 4 * u) +
                    4 * u * (fabs(dev * rstd * gamma[c]) + fabs(beta[c])) +
                    u_out * (fabs(y) + 1e-30) + 0x1p-24;
        }
    }
}

/* One query row of one head: the scores against every key it sees (s[j], -inf for the rest),
 * their max, and the weights p[j] = exp(s[j] - max). Returns the number of keys it sees. */
static int attention_row(int n_q, int n_k, int d, int causal, int i, const float *q,
                         const float *Kh, double scale, double *s, double *a, double *p,
                         double *max)
{
    int seen = causal ? i + n_k - n_q + 1 : n_k; /* keys 0 .. seen - 1 */
    seen = seen < 0 ? 0 : seen > n_k ? n_k : seen;
    *max = -INFINITY;
    for (int j = 0; j < seen; j++) {
        double dot = 0, mag = 0;
        for (int c = 0; c < d; c++) {
            dot += (double)q[c] * Kh[(size_t)j * d + c];
            mag += fabs((double)q[c] * Kh[(size_t)j * d + c]);
        }
        s[j] = scale * dot;
        /* the score's error: Tensor Core accumulation of d products, then the scaling */
        a[j] = gamma_n(d, REF_U_TC_ACC) * scale * mag + 2 * REF_U_FP32 * fabs(s[j]);
        *max = s[j] > *max ? s[j] : *max;
    }
    for (int j = 0; j < seen; j++)
        p[j] = exp(s[j] - *max);
    return seen;
}

void ref_attention_f64(int heads, int n_q, int n_k, int d, int causal, const float *Q,
                       const float *K, const float *V, double u16, double *O, double *bound)
{
    const double u = REF_U_FP32, scale = 1 / sqrt((double)d);
    double *s = alloc_or_abort((size_t)n_k * sizeof *s),
           *a = alloc_or_abort((size_t)n_k * sizeof *a);
    double *p = alloc_or_abort((size_t)n_k * sizeof *p);
    /* The online softmax's rescalings: at most one per tile of 16 keys or more (the depth of
     * one mma), each an exponential and two products. */
    double rescale = ceil(n_k / 16.0) * (REF_EX2_REL + 3 * u);
    double acc = gamma_n(n_k, REF_U_TC_ACC), sum_err = gamma_n(n_k, u);
    for (size_t h = 0; h < (size_t)heads; h++) {
        const float *Kh = K + h * n_k * d, *Vh = V + h * n_k * d;
        for (int i = 0; i < n_q; i++) {
            const float *q = Q + (h * n_q + i) * d;
            double *o = O + (h * n_q + i) * d, *b = bound ? bound + (h * n_q + i) * d : NULL, max;
            int seen = attention_row(n_q, n_k, d, causal, i, q, Kh, scale, s, a, p, &max);
            double l = 0, worst = 0;
            for (int j = 0; j < seen; j++) {
                l += p[j];
                double e = exp(a[j] + 3 * u * (fabs(s[j]) + fabs(max))) * (1 + REF_EX2_REL) - 1;
                worst = e > worst ? e : worst;
            }
            double E = worst + rescale;
            double rel = (1 + E) * (1 + u16) * (1 + acc) * (1 + 2 * u) / (1 - E - sum_err) - 1;
            for (int c = 0; c < d; c++) {
                double num = 0, mag = 0;
                for (int j = 0; j < seen; j++) {
                    num += p[j] * Vh[(size_t)j * d + c];
                    mag += p[j] * fabs((double)Vh[(size_t)j * d + c]);
                }
                o[c] = seen ? num / l : 0.0; /* a query that sees no key: 0 by definition */
                if (b) /* P's errors times |V|, then O's rounding to 16 bits (subnormals too) */
                    b[c] = seen ? rel * (mag / l) * (1 + u16) + u16 * fabs(o[c]) + 0x1p-24 : 0.0;
            }
        }
    }
    free(s);
    free(a);
    free(p);
}
