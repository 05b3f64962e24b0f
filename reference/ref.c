/**
 * @file ref.c
 * @brief CPU references: the yardsticks every kernel is checked against.
 */
#include "ref.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void ref_matmul(int M, int N, int K, const float *A, const float *B, float *C)
{
    for (size_t i = 0; i < (size_t)M; i++) {
        float *c = C + i * N; /* row i of C */
        for (int j = 0; j < N; j++)
            c[j] = 0.0f;
        for (size_t k = 0; k < (size_t)K; k++) {
            float a = A[i * K + k];
            const float *b = B + k * N; /* row k of B, read contiguously */
            for (int j = 0; j < N; j++)
                c[j] += a * b[j];
        }
    }
}

void ref_matmul_naive(int M, int N, int K, const float *A, const float *B, float *C)
{
    for (size_t i = 0; i < (size_t)M; i++)
        for (size_t j = 0; j < (size_t)N; j++) {
            float sum = 0.0f;
            for (size_t k = 0; k < (size_t)K; k++)
                sum += A[i * K + k] * B[k * N + j]; /* a new cache line of B every k */
            C[i * N + j] = sum;
        }
}

void ref_matmul_f64(int M, int N, int K, const float *A, const float *B, double *C)
{
    for (size_t i = 0; i < (size_t)M; i++) {
        double *c = C + i * N;
        for (int j = 0; j < N; j++)
            c[j] = 0.0;
        for (size_t k = 0; k < (size_t)K; k++) {
            double a = A[i * K + k];
            const float *b = B + k * N;
            for (int j = 0; j < N; j++)
                c[j] += a * (double)b[j];
        }
    }
}

void ref_matmul_abs_f64(int M, int N, int K, const float *A, const float *B, double *C)
{
    for (size_t i = 0; i < (size_t)M; i++) {
        double *c = C + i * N;
        for (int j = 0; j < N; j++)
            c[j] = 0.0;
        for (size_t k = 0; k < (size_t)K; k++) {
            double a = fabs((double)A[i * K + k]);
            const float *b = B + k * N;
            for (int j = 0; j < N; j++)
                c[j] += a * fabs((double)b[j]);
        }
    }
}

double ref_gemm_tolerance(int K, double u_in, double u_acc)
{
    double ku = K * u_acc;
    if (ku >= 1)
        return INFINITY;
    double gamma = ku / (1 - ku);
    double in = 2 * u_in + u_in * u_in; /* (1 + u_in)^2 - 1, without cancelling against 1 */
    return in + gamma + in * gamma;
}

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Shift @p man right by @p shift (1..31), rounding to nearest, ties to even. */
static uint32_t shift_round_even(uint32_t man, int shift)
{
    uint32_t kept = man >> shift;
    uint32_t rest = man & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (kept & 1)))
        kept++;
    return kept;
}

uint16_t ref_f32_to_f16(float x)
{
    uint32_t u = bits_of(x);
    uint32_t sign = (u >> 16) & 0x8000u;
    int exp = (int)((u >> 23) & 0xFF);
    uint32_t man = u & 0x7FFFFFu;

    if (exp == 0xFF) /* infinity, or NaN with the quiet bit set */
        return (uint16_t)(sign | 0x7C00u | (man ? 0x200u | (man >> 13) : 0));
    int e = exp - 127 + 15; /* the binary16 biased exponent */
    if (e >= 31)
        return (uint16_t)(sign | 0x7C00u); /* beyond the largest finite: infinity */
    if (e <= 0) {
        /* binary16 subnormal (or zero): units of 2^-24. Below 2^-25 everything
         * rounds to zero; a carry out of the mantissa gives the smallest normal. */
        if (e < -10)
            return (uint16_t)sign;
        return (uint16_t)(sign | shift_round_even(man | 0x800000u, 14 - e));
    }
    /* Normal: a carry out of the mantissa bumps the exponent, and from the top
     * exponent gives 0x7C00, infinity, as it should. */
    return (uint16_t)(sign | shift_round_even(((uint32_t)e << 23) | man, 13));
}

float ref_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1F;
    uint32_t man = h & 0x3FFu;

    if (exp == 0) { /* zero or subnormal: man * 2^-24, exact in float */
        float mag = (float)man * 0x1p-24f;
        return sign ? -mag : mag;
    }
    if (exp == 31)
        return float_of(sign | 0x7F800000u | (man << 13));
    return float_of(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t ref_f32_to_bf16(float x)
{
    uint32_t u = bits_of(x);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) /* NaN: keep the sign, make it quiet */
        return (uint16_t)((u >> 16) | 0x40u);
    /* Adding 0x7FFF plus the lowest kept bit rounds to nearest, ties to even;
     * a carry past the largest finite value gives infinity, as it should. */
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1)) >> 16);
}

float ref_bf16_to_f32(uint16_t b)
{
    return float_of((uint32_t)b << 16);
}

/* One sample through the layers in double: @p cur (dims[0] values) becomes the logits. */
static void mlp_forward_f64(int layers, const int *dims, const float *params, double *cur,
                            double *next)
{
    const float *W = params; /* layer l's weights (out x in), then its biases */
    for (int l = 0; l < layers; l++) {
        int in = dims[l], out = dims[l + 1];
        const float *bias = W + (size_t)out * in;
        for (int o = 0; o < out; o++) {
            double v = bias[o];
            for (int i = 0; i < in; i++)
                v += (double)W[(size_t)o * in + i] * cur[i];
            next[o] = l + 1 < layers && v < 0.0 ? 0.0 : v; /* ReLU on hidden layers */
        }
        memcpy(cur, next, (size_t)out * sizeof *cur);
        W = bias + out;
    }
}

double ref_mlp_loss_f64(int layers, const int *dims, const float *params, const float *x,
                        const uint8_t *labels, int B)
{
    int w = 0;
    for (int l = 0; l <= layers; l++)
        w = dims[l] > w ? dims[l] : w;
    double *cur = malloc((size_t)w * sizeof *cur), *next = malloc((size_t)w * sizeof *next);
    if (!cur || !next)
        abort();
    double loss = 0.0;
    for (int r = 0; r < B; r++) {
        for (int i = 0; i < dims[0]; i++)
            cur[i] = x[(size_t)r * dims[0] + i];
        mlp_forward_f64(layers, dims, params, cur, next);
        int C = dims[layers];
        double zmax = cur[0], sum = 0.0;
        for (int c = 1; c < C; c++)
            zmax = cur[c] > zmax ? cur[c] : zmax;
        for (int c = 0; c < C; c++)
            sum += exp(cur[c] - zmax);
        loss += log(sum) - (cur[labels[r]] - zmax);
    }
    free(cur);
    free(next);
    return loss / B;
}

void ref_mix(const uint32_t *x, uint32_t *y, size_t n, int rounds, uint32_t multiplier)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t w = x[i];
        for (int r = 0; r < rounds; r++)
            w = (w ^ (w >> 16)) * multiplier;
        y[i] = w;
    }
}
