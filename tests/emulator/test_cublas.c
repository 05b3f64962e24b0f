/**
 * @file test_cublas.c
 * @brief The cuBLAS stand-in (emulator/libcublas.so.13) against CPU references.
 *
 * Products of small integers are exact in every format and every summation
 * order, so GEMM and GEMV results at odd sizes, with padded leading
 * dimensions, for every transpose pair and compute type, are compared with
 * ==. Operand rounding is checked bit for bit with K = 1 (one product, exact
 * in fp32 once both operands are rounded), against rounding written here from
 * frexp, independently of the emulator's own.
 */
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "course_test.h"
#include "cuda_check.h"
#include "test_cublas.h"

/* --- helpers -------------------------------------------------------------------------------- */

/* The binary16 bits of a small integer (|v| <= 2048), built by hand. */
static uint16_t half_bits_of_int(int v)
{
    if (v == 0)
        return 0;
    unsigned a = (unsigned)abs(v), e = 0;
    while ((a >> (e + 1)) != 0)
        e++;
    uint16_t mant = (uint16_t)((a << (10 - e)) & 0x3ff);
    return (uint16_t)((v < 0 ? 0x8000 : 0) | (e + 15) << 10 | mant);
}

static float float_of_half(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v = e == 0    ? ldexpf((float)m, -24)
              : e == 31 ? (m ? NAN : INFINITY)
                        : ldexpf((float)(m | 0x400), e - 25);
    return h & 0x8000 ? -v : v;
}

static uint16_t bf16_bits_of_int(int v)
{
    float f = (float)v;
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    return (uint16_t)(x >> 16); /* exact: small integers need few mantissa bits */
}

/* @p x rounded to @p bits significant bits, ties to even (@p away = 0) or away from zero. */
static float round_sig(float x, int bits, int away)
{
    int e;
    float m = frexpf(x, &e), scaled = ldexpf(m, bits);
    return ldexpf(away ? roundf(scaled) : nearbyintf(scaled), e - bits);
}

/* Copy @p bytes to a new device buffer. */
static void *upload(const void *h, size_t bytes)
{
    void *d;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* Free up to four device buffers (NULL ones are skipped). */
static void device_free(void *a, void *b, void *c, void *d)
{
    void *all[] = {a, b, c, d};
    for (int i = 0; i < 4; i++)
        if (all[i])
            CUDA_CHECK(cudaFree(all[i]));
}

static cublasHandle_t handle_new(void)
{
    cublasHandle_t h;
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    return h;
}

/** The element formats a GEMM operand may have. */
enum fmt { F32, F16, BF16 };

static const cudaDataType fmt_type[] = {CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF};
static const size_t fmt_size[] = {4, 2, 2};

/* @p n small integers in format @p f at @p out (host). */
static void store_ints(const int *v, size_t n, enum fmt f, void *out)
{
    for (size_t i = 0; i < n; i++) {
        if (f == F32)
            ((float *)out)[i] = (float)v[i];
        else
            ((uint16_t *)out)[i] = f == F16 ? half_bits_of_int(v[i]) : bf16_bits_of_int(v[i]);
    }
}

static float load_fmt(const void *p, size_t i, enum fmt f)
{
    if (f == F32)
        return ((const float *)p)[i];
    uint16_t b = ((const uint16_t *)p)[i];
    if (f == F16)
        return float_of_half(b);
    uint32_t x = (uint32_t)b << 16;
    float v;
    memcpy(&v, &x, sizeof v);
    return v;
}

/** One GEMM case on small integers. */
struct int_gemm {
    cublasOperation_t ta, tb;
    int m, n, k;
    enum fmt ab, c;
    cublasComputeType_t compute;
    int range; /**< inputs in [-range, range] */
};

/* Run @p g through cublasGemmEx with alpha 2, beta -1, padded leading dimensions and a
 * non-zero C, and compare every element (and the padding) with a double reference. */
static void check_int_gemm(cublasHandle_t h, const struct int_gemm *g)
{
    int ar = g->ta == CUBLAS_OP_N ? g->m : g->k, ac = g->ta == CUBLAS_OP_N ? g->k : g->m;
    int br = g->tb == CUBLAS_OP_N ? g->k : g->n, bc = g->tb == CUBLAS_OP_N ? g->n : g->k;
    int lda = ar + 3, ldb = br + 1, ldc = g->m + 2;
    size_t na = (size_t)lda * ac, nb = (size_t)ldb * bc, nc = (size_t)ldc * g->n;
    int *ia = mat_alloc(na * sizeof *ia), *ib = mat_alloc(nb * sizeof *ib);
    int *ic = mat_alloc(nc * sizeof *ic);
    uint64_t s = (uint64_t)g->m * 1000003u + (uint64_t)g->k * 31u + g->ta * 7u + g->tb;
    int span = 2 * g->range + 1;
    for (size_t i = 0; i < na; i++)
        ia[i] = (int)(mat_rand_next(&s) % (uint64_t)span) - g->range;
    for (size_t i = 0; i < nb; i++)
        ib[i] = (int)(mat_rand_next(&s) % (uint64_t)span) - g->range;
    for (size_t i = 0; i < nc; i++)
        ic[i] = (int)(mat_rand_next(&s) % 7) - 3;
    void *ha = mat_alloc(na * 4), *hb = mat_alloc(nb * 4), *hc = mat_alloc(nc * 4);
    store_ints(ia, na, g->ab, ha);
    store_ints(ib, nb, g->ab, hb);
    store_ints(ic, nc, g->c, hc);
    void *da = upload(ha, na * fmt_size[g->ab]), *db = upload(hb, nb * fmt_size[g->ab]);
    void *dc = upload(hc, nc * fmt_size[g->c]);
    int half = g->compute == CUBLAS_COMPUTE_16F;
    const float alpha = 2, beta = -1;
    const uint16_t alpha16 = half_bits_of_int(2), beta16 = half_bits_of_int(-1);
    ck_assert_int_eq(cublasGemmEx(h, g->ta, g->tb, g->m, g->n, g->k,
                                  half ? (const void *)&alpha16 : &alpha, da, fmt_type[g->ab], lda,
                                  db, fmt_type[g->ab], ldb, half ? (const void *)&beta16 : &beta,
                                  dc, fmt_type[g->c], ldc, g->compute, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(hc, dc, nc * fmt_size[g->c], cudaMemcpyDeviceToHost));
    for (int j = 0; j < g->n; j++)
        for (int i = 0; i < ldc; i++) {
            double want = ic[(size_t)j * ldc + i];
            if (i < g->m) {
                double acc = 0;
                for (int p = 0; p < g->k; p++) {
                    int a =
                        g->ta == CUBLAS_OP_N ? ia[(size_t)p * lda + i] : ia[(size_t)i * lda + p];
                    int b =
                        g->tb == CUBLAS_OP_N ? ib[(size_t)j * ldb + p] : ib[(size_t)p * ldb + j];
                    acc += (double)a * b;
                }
                want = 2 * acc - want;
            }
            float got = load_fmt(hc, (size_t)j * ldc + i, g->c);
            ck_assert_msg(got == want, "%c%c m=%d n=%d k=%d compute %d: C(%d,%d) = %g, want %g%s",
                          g->ta == CUBLAS_OP_N ? 'N' : 'T', g->tb == CUBLAS_OP_N ? 'N' : 'T', g->m,
                          g->n, g->k, (int)g->compute, i, j, got, want,
                          i >= g->m ? " (padding)" : "");
        }
    device_free(da, db, dc, NULL);
    free(ia), free(ib), free(ic), free(ha), free(hb), free(hc);
}

static const cublasOperation_t ops[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
static const int odd_shapes[][3] = {{1, 1, 1}, {31, 33, 17}, {67, 13, 129}, {129, 65, 257}};

/* --- GEMM ------------------------------------------------------------------------------------ */

/* SGEMM (through GemmEx's 32F path and cublasSgemm) at odd shapes, every transpose pair. */
START_TEST(sgemm_transposes_odd_shapes)
{
    cublasHandle_t h = handle_new();
    for (size_t s = 0; s < sizeof odd_shapes / sizeof *odd_shapes; s++)
        for (int t = 0; t < 4; t++) {
            struct int_gemm g = {ops[t / 2],
                                 ops[t % 2],
                                 odd_shapes[s][0],
                                 odd_shapes[s][1],
                                 odd_shapes[s][2],
                                 F32,
                                 F32,
                                 CUBLAS_COMPUTE_32F,
                                 4};
            check_int_gemm(h, &g);
        }
    /* cublasSgemm itself, on one shape: C = A B with A 3 x 2 and B 2 x 1. */
    const float A[] = {1, 2, 3, 4, 5, 6}, B[] = {-1, 2}, one = 1, zero = 0;
    float C[3];
    float *dA = upload(A, sizeof A), *dB = upload(B, sizeof B), *dC = upload(C, sizeof C);
    ck_assert_int_eq(
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 3, 1, 2, &one, dA, 3, dB, 2, &zero, dC, 3),
        CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost));
    ck_assert(C[0] == 7 && C[1] == 8 && C[2] == 9);
    device_free(dA, dB, dC, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* Every input format and compute type the course uses, every transpose pair, odd shapes. */
START_TEST(gemm_ex_compute_types)
{
    const struct {
        enum fmt ab, c;
        cublasComputeType_t compute;
        int range;
    } kinds[] = {
        {F32, F32, CUBLAS_COMPUTE_32F_FAST_TF32, 4}, {F32, F32, CUBLAS_COMPUTE_32F_FAST_16F, 4},
        {F32, F32, CUBLAS_COMPUTE_32F_FAST_16BF, 4}, {F16, F32, CUBLAS_COMPUTE_32F, 4},
        {BF16, F32, CUBLAS_COMPUTE_32F, 4},          {F16, F16, CUBLAS_COMPUTE_32F, 2},
        {BF16, BF16, CUBLAS_COMPUTE_32F, 1},         {F16, F16, CUBLAS_COMPUTE_16F, 1},
    };
    cublasHandle_t h = handle_new();
    for (size_t q = 0; q < sizeof kinds / sizeof *kinds; q++)
        for (size_t s = 0; s < 3; s++) /* results stay exact in a 16-bit C up to K = 129 */
            for (int t = 0; t < 4; t++) {
                struct int_gemm g = {ops[t / 2],       ops[t % 2],       odd_shapes[s][0],
                                     odd_shapes[s][1], odd_shapes[s][2], kinds[q].ab,
                                     kinds[q].c,       kinds[q].compute, kinds[q].range};
                check_int_gemm(h, &g);
            }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* With K = 1, C = round(a) * round(b) exactly: the operand rounding of each compute type,
 * bit for bit, including exact ties; and the rounding must change some products. */
START_TEST(operand_rounding_bit_exact)
{
    enum { M = 37, N = 29, TIES = 6 };
    const struct {
        cublasComputeType_t compute;
        cublasMath_t math;
        int bits, away; /* significant bits kept; ties away from zero or to even */
    } kinds[] = {
        {CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, 24, 0},
        {CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_DEFAULT_MATH, 11, 1},
        {CUBLAS_COMPUTE_32F, CUBLAS_TF32_TENSOR_OP_MATH, 11, 1},
        {CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_DEFAULT_MATH, 11, 0},
        {CUBLAS_COMPUTE_32F_FAST_16BF, CUBLAS_DEFAULT_MATH, 8, 0},
    };
    float a[M], b[N], c[M * N];
    mat_fill_uniform(a, M, 11, 0.25f, 2.0f);
    mat_fill_uniform(b, N, 12, -2.0f, -0.25f);
    float *da = upload(a, sizeof a), *db = upload(b, sizeof b), *dc = upload(c, sizeof c);
    cublasHandle_t h = handle_new();
    const float one = 1, zero = 0;
    for (size_t q = 0; q < sizeof kinds / sizeof *kinds; q++) {
        int bits = kinds[q].bits, changed = 0;
        /* The first TIES of a sit exactly half-way between two values of the format. */
        for (int i = 0; i < TIES && bits < 24; i++)
            a[i] = ldexpf(2.0f * (float)(1 << (bits - 1)) + 2.0f * (float)i + 1.0f, -bits);
        CUDA_CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
        ck_assert_int_eq(cublasSetMathMode(h, kinds[q].math), CUBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, 1, &one, da, CUDA_R_32F, M,
                                      db, CUDA_R_32F, 1, &zero, dc, CUDA_R_32F, M, kinds[q].compute,
                                      CUBLAS_GEMM_DEFAULT),
                         CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++) {
                float want =
                    round_sig(a[i], bits, kinds[q].away) * round_sig(b[j], bits, kinds[q].away);
                ck_assert_msg(c[j * M + i] == want, "kind %zu: C(%d,%d) = %a, want %a", q, i, j,
                              c[j * M + i], want);
                changed += want != a[i] * b[j];
            }
        ck_assert_msg(bits == 24 ? changed == 0 : changed > M * N / 2,
                      "kind %zu: %d of %d products changed by rounding", q, changed, M * N);
    }
    device_free(da, db, dc, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* Every binary16 value read exactly (C = A * 1 with 16F inputs and fp32 output). */
START_TEST(every_half_value_exact)
{
    enum { M = 65536 };
    uint16_t *a = mat_alloc(M * sizeof *a), one = half_bits_of_int(1);
    float *c = mat_alloc_f32(M);
    for (int i = 0; i < M; i++)
        a[i] = (uint16_t)i;
    void *da = upload(a, M * sizeof *a), *db = upload(&one, sizeof one), *dc = upload(c, M * 4);
    cublasHandle_t h = handle_new();
    const float alpha = 1, beta = 0;
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, 1, 1, &alpha, da, CUDA_R_16F, M,
                                  db, CUDA_R_16F, 1, &beta, dc, CUDA_R_32F, M, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(c, dc, M * sizeof *c, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++) {
        float want = float_of_half((uint16_t)i);
        ck_assert_msg(isnan(want) ? isnan(c[i]) : c[i] == want, /* -0 sums to +0, as in cuBLAS */
                      "half 0x%04x read as %a, not %a", i, c[i], want);
    }
    device_free(da, db, dc, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(a), free(c);
}
END_TEST

/* CUBLAS_COMPUTE_16F accumulates in fp16 as a tensor core does: each MMA of 16 k steps sums its
 * products in fp32 and rounds to fp16 once. With a = 2048, then three runs of fifteen 1s each
 * (0 in the first k of the later two), the MMAs end at 2063 -> 2064, 2079 -> 2080 and
 * 2095 -> 2096 (ties to even); fp32 accumulation gives the exact 2093, 2092 once rounded to
 * an fp16 C; rounding after every step would stay at 2048. */
START_TEST(compute_16f_rounds_per_mma)
{
    enum { K = 48 };
    uint16_t a[K], b[K], c16 = 0, c16_32 = 0, alpha16 = half_bits_of_int(1), beta16 = 0;
    float c32 = 0, alpha = 1, beta = 0;
    for (int p = 0; p < K; p++) {
        a[p] = half_bits_of_int(p == 0 ? 2048 : p % 16 == 0 ? 0 : 1);
        b[p] = half_bits_of_int(1);
    }
    void *da = upload(a, sizeof a), *db = upload(b, sizeof b);
    void *dc16 = upload(&c16, sizeof c16), *dc32 = upload(&c32, sizeof c32);
    void *dc16_32 = upload(&c16_32, sizeof c16_32);
    cublasHandle_t h = handle_new();
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, K, &alpha16, da, CUDA_R_16F, 1,
                                  db, CUDA_R_16F, K, &beta16, dc16, CUDA_R_16F, 1,
                                  CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, K, &alpha, da, CUDA_R_16F, 1,
                                  db, CUDA_R_16F, K, &beta, dc32, CUDA_R_32F, 1, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, K, &alpha, da, CUDA_R_16F, 1,
                                  db, CUDA_R_16F, K, &beta, dc16_32, CUDA_R_16F, 1,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(&c16, dc16, sizeof c16, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&c32, dc32, sizeof c32, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&c16_32, dc16_32, sizeof c16_32, cudaMemcpyDeviceToHost));
    ck_assert_float_eq(float_of_half(c16), 2096.0f);
    ck_assert_float_eq(c32, 2093.0f);
    ck_assert_float_eq(float_of_half(c16_32), 2092.0f);
    device_free(da, db, dc16, dc32);
    device_free(dc16_32, NULL, NULL, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* @p x rounded to binary16's 11 significant bits (normal range), ties to even. */
static float round_half(float x)
{
    return x == 0 ? 0 : round_sig(x, 11, 0);
}

/* What the stand-in computed before it followed the tensor core: fp16 after every step. */
static float dot_rounded_per_step(const int *a, const int *b, int M, int K, int i, int j)
{
    float acc = 0;
    for (int p = 0; p < K; p++)
        acc = round_half(acc + (float)(a[(size_t)p * M + i] * b[(size_t)j * K + p]));
    return acc;
}

/* Issue 20's case: a WMMA kernel with fp16 accumulators, checked against CUBLAS_COMPUTE_16F at
 * 512^3 on small non-negative integers, must agree with it bit for bit (there, an element the
 * kernel computed as 3120, exact 3118, came back from the stand-in as 3088). Sums reach past
 * 2048, where fp16 drops bits, so fp16 accumulation must change some elements; and rounding
 * after every step must disagree with the kernel somewhere. */
START_TEST(compute_16f_matches_wmma_kernel)
{
    enum { M = 512, N = 512, K = 512 };
    int *ia = mat_alloc((size_t)M * K * sizeof *ia), *ib = mat_alloc((size_t)K * N * sizeof *ib);
    uint16_t *ha = mat_alloc((size_t)M * K * 2), *hb = mat_alloc((size_t)K * N * 2);
    uint16_t *kern = mat_alloc((size_t)M * N * 2), *blas = mat_alloc((size_t)M * N * 2);
    uint64_t s = 20;
    for (size_t i = 0; i < (size_t)M * K; i++)
        ia[i] = (int)(mat_rand_next(&s) % 6); /* 0 .. 5: dot products near 3200 */
    for (size_t i = 0; i < (size_t)K * N; i++)
        ib[i] = (int)(mat_rand_next(&s) % 6);
    store_ints(ia, (size_t)M * K, F16, ha);
    store_ints(ib, (size_t)K * N, F16, hb);
    void *da = upload(ha, (size_t)M * K * 2), *db = upload(hb, (size_t)K * N * 2);
    void *dk = upload(kern, (size_t)M * N * 2), *dc = upload(blas, (size_t)M * N * 2);
    CUDA_CHECK(wmma_gemm_f16_acc(M, N, K, da, db, dk));
    cublasHandle_t h = handle_new();
    const uint16_t one = half_bits_of_int(1), zero = 0;
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, da, CUDA_R_16F, M, db,
                                  CUDA_R_16F, K, &zero, dc, CUDA_R_16F, M, CUBLAS_COMPUTE_16F,
                                  CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(kern, dk, (size_t)M * N * 2, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(blas, dc, (size_t)M * N * 2, cudaMemcpyDeviceToHost));
    int inexact = 0, step_differs = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            long exact = 0;
            for (int p = 0; p < K; p++)
                exact += (long)ia[(size_t)p * M + i] * ib[(size_t)j * K + p];
            float got = float_of_half(blas[(size_t)j * M + i]);
            float want = float_of_half(kern[(size_t)j * M + i]);
            ck_assert_msg(
                got == want,
                "512^3 C(%d,%d): CUBLAS_COMPUTE_16F gives %g, the WMMA kernel %g (exact %ld)", i, j,
                got, want, exact);
            inexact += got != (float)exact;
            step_differs += i == j && dot_rounded_per_step(ia, ib, M, K, i, j) != want;
        }
    ck_assert_msg(inexact > M * N / 2, "fp16 accumulation changed only %d of %d elements", inexact,
                  M * N);
    ck_assert_msg(step_differs > M / 2, "rounding per step agreed with the kernel on %d of %d",
                  M - step_differs, M);
    device_free(da, db, dk, dc);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(ia), free(ib), free(ha), free(hb), free(kern), free(blas);
}
END_TEST

/* --- GEMV ------------------------------------------------------------------------------------ */

/* y = alpha op(A) x + beta y, both transposes, padded lda, strides 1, 2 and -3. */
START_TEST(sgemv_transposes_and_strides)
{
    enum { M = 37, N = 53, LDA = 41 };
    const int incs[] = {1, 2, -3};
    float *A = mat_alloc_f32(LDA * N), x[3 * 53], y0[3 * 53], y[3 * 53];
    mat_fill_int(A, LDA * N, 5);
    mat_fill_int(x, 3 * 53, 6);
    mat_fill_int(y0, 3 * 53, 7);
    float *dA = upload(A, LDA * N * sizeof *A), *dx = upload(x, sizeof x),
          *dy = upload(y0, sizeof y0);
    cublasHandle_t h = handle_new();
    const float alpha = 3, beta = -2;
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 3; s++) {
            int inc = incs[s], xl = t ? M : N, yl = t ? N : M, step = abs(inc);
            CUDA_CHECK(cudaMemcpy(dy, y0, sizeof y0, cudaMemcpyHostToDevice));
            ck_assert_int_eq(cublasSgemv(h, ops[t], M, N, &alpha, dA, LDA, dx, inc, &beta, dy, inc),
                             CUBLAS_STATUS_SUCCESS);
            CUDA_CHECK(cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));
            for (int i = 0; i < yl; i++) {
                double acc = 0;
                for (int j = 0; j < xl; j++) {
                    float aij = t ? A[i * LDA + j] : A[j * LDA + i];
                    acc += aij * x[(inc > 0 ? j : xl - 1 - j) * step];
                }
                int at = (inc > 0 ? i : yl - 1 - i) * step;
                ck_assert_msg(y[at] == 3 * acc - 2 * y0[at], "trans %d inc %d: y[%d]", t, inc, i);
            }
            for (int i = 0; i < 3 * 53; i++) /* elements between the strides are untouched */
                if (i % step || i / step >= yl)
                    ck_assert_float_eq(y[i], y0[i]);
        }
    device_free(dA, dx, dy, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(A);
}
END_TEST

/* --- errors ---------------------------------------------------------------------------------- */

/* Bad dimensions, unsupported type pairs and operands past their allocation are refused. */
START_TEST(bad_calls_refused)
{
    float *d, one = 1, zero = 0;
    CUDA_CHECK(cudaMalloc((void **)&d, 16 * sizeof(float)));
    cublasHandle_t h = handle_new();
    ck_assert_int_eq(
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, d, 3, d, 4, &zero, d, 4),
        CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_16BF, 2, d,
                                  CUDA_R_16BF, 2, &zero, d, CUDA_R_16BF, 2, CUBLAS_COMPUTE_16F,
                                  CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_NOT_SUPPORTED);
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, d, CUDA_R_16F, 2, d,
                                  CUDA_R_16F, 2, &zero, d, CUDA_R_32F, 2,
                                  CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_NOT_SUPPORTED);
    /* A 5 x 5 operand does not fit in 16 floats: refused, with one line, before any access. */
    ck_assert_int_eq(
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 5, 5, 5, &one, d, 5, d, 5, &zero, d, 5),
        CUBLAS_STATUS_EXECUTION_FAILED);
    ck_assert_int_eq(cublasSgemv(h, CUBLAS_OP_N, 4, 4, &one, d, 4, d, 0, &zero, d, 1),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_str_eq(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED),
                     "CUBLAS_STATUS_NOT_SUPPORTED");
    ck_assert_ptr_nonnull(strstr(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE), "invalid"));
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSetStream(h, 0), CUBLAS_STATUS_NOT_INITIALIZED);
    CUDA_CHECK(cudaFree(d));
}
END_TEST

/* alpha and beta may live in device memory (CUBLAS_POINTER_MODE_DEVICE). */
START_TEST(device_pointer_mode)
{
    const float A[] = {1, 2, 3, 4}, x[] = {5, 6}, ab[] = {2, 0};
    float y[2];
    float *dA = upload(A, sizeof A), *dx = upload(x, sizeof x), *dab = upload(ab, sizeof ab);
    float *dy = upload(y, sizeof y);
    cublasHandle_t h = handle_new();
    ck_assert_int_eq(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSgemv(h, CUBLAS_OP_N, 2, 2, dab, dA, 2, dx, 1, dab + 1, dy, 1),
                     CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));
    ck_assert(y[0] == 2 * (1 * 5 + 3 * 6) && y[1] == 2 * (2 * 5 + 4 * 6));
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    device_free(dA, dx, dab, dy);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"sgemm_transposes_odd_shapes", sgemm_transposes_odd_shapes, CASE_CPU, 120},
        {"gemm_ex_compute_types", gemm_ex_compute_types, CASE_CPU, 120},
        {"operand_rounding_bit_exact", operand_rounding_bit_exact, CASE_CPU, 60},
        {"every_half_value_exact", every_half_value_exact, CASE_CPU, 60},
        {"compute_16f_rounds_per_mma", compute_16f_rounds_per_mma, CASE_CPU, 60},
        {"compute_16f_matches_wmma_kernel", compute_16f_matches_wmma_kernel, CASE_CPU, 120},
        {"sgemv_transposes_and_strides", sgemv_transposes_and_strides, CASE_CPU, 60},
        {"bad_calls_refused", bad_calls_refused, CASE_CPU, 60},
        {"device_pointer_mode", device_pointer_mode, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
