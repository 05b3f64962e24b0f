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
 *
 * Levels 1 to 3 in fp32 and fp64 likewise, each through the SD() macro's S and D forms: odd
 * sizes, increments of 2 and -3, padded leading dimensions, every side, triangle, transpose and
 * diagonal; the triangle a call must not read and a unit diagonal hold NaN, and every element
 * of an output buffer (strided gaps, padding, a guard past the end) is compared. Triangular
 * solves undo a product made on the host and must give its input back exactly (diagonals of
 * +-1, +-2, +-4). Last, what a stub says and answers.
 */
#include <cublasLt.h>
#include <cublasXt.h>
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
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

/* @p x as bf16 bits, to nearest even (finite values), and back. */
static uint16_t bf16_bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    return (uint16_t)((u + 0x7FFFu + (u >> 16 & 1)) >> 16);
}

static float float_of_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, 4);
    return x;
}

/* With bf16 operands and fp32 accumulation each element is its products summed in k order, one
 * fp32 rounding per addition, as the VM's wgmma does: bit for bit at 37 x 29 x 1999 on values
 * that are not integers; summing the same products from the other end must differ somewhere,
 * or the case could not tell the orders apart. */
START_TEST(compute_32f_half_operands_sum_in_k_order)
{
    enum { M = 37, N = 29, K = 1999 };
    uint16_t *ha = mat_alloc((size_t)M * K * 2), *hb = mat_alloc((size_t)K * N * 2);
    float *c = mat_alloc((size_t)M * N * sizeof *c), alpha = 1, beta = 0;
    uint64_t s = 32;
    for (size_t i = 0; i < (size_t)M * K; i++)
        ha[i] = bf16_bits_of(((float)(mat_rand_next(&s) % 2001) - 1000.0f) / 77.0f);
    for (size_t i = 0; i < (size_t)K * N; i++)
        hb[i] = bf16_bits_of(((float)(mat_rand_next(&s) % 2001) - 1000.0f) / 131.0f);
    void *da = upload(ha, (size_t)M * K * 2), *db = upload(hb, (size_t)K * N * 2);
    void *dc = upload(c, (size_t)M * N * sizeof *c);
    cublasHandle_t h = handle_new();
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, da, CUDA_R_16BF, M,
                                  db, CUDA_R_16BF, K, &beta, dc, CUDA_R_32F, M, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(c, dc, (size_t)M * N * sizeof *c, cudaMemcpyDeviceToHost));
    int reversed_differs = 0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            float fwd = 0, back = 0;
            for (int p = 0; p < K; p++) {
                fwd += float_of_bf16(ha[(size_t)p * M + i]) * float_of_bf16(hb[(size_t)j * K + p]);
                back += float_of_bf16(ha[(size_t)(K - 1 - p) * M + i]) *
                        float_of_bf16(hb[(size_t)j * K + K - 1 - p]);
            }
            ck_assert_msg(c[(size_t)j * M + i] == fwd,
                          "bf16 %d x %d x %d, C(%d,%d) = %.9g, the k-order sum is %.9g", M, N, K, i,
                          j, c[(size_t)j * M + i], fwd);
            reversed_differs += back != fwd;
        }
    ck_assert_msg(reversed_differs > 0, "every reversed sum agreed: the case cannot fail");
    device_free(da, db, dc, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(ha), free(hb), free(c);
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

/* --- batched GEMM and DGEMM ------------------------------------------------------------------- */

/* C = alpha op(A) op(B) + beta C in double, column-major: the reference for the tests below. */
static void gemm_ref(int ta, int tb, int m, int n, int k, double alpha, const double *A, int lda,
                     const double *B, int ldb, double beta, double *C, int ldc)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double acc = 0;
            for (int p = 0; p < k; p++)
                acc += (ta ? A[(size_t)i * lda + p] : A[(size_t)p * lda + i]) *
                       (tb ? B[(size_t)p * ldb + j] : B[(size_t)j * ldb + p]);
            C[(size_t)j * ldc + i] = alpha * acc + beta * C[(size_t)j * ldc + i];
        }
}

/* @p n small integers (in [-4, 4]) as doubles and as floats. */
static void fill_both(double *d, float *f, size_t n, uint64_t seed)
{
    mat_fill_int(f, n, seed);
    for (size_t i = 0; i < n; i++)
        d[i] = f[i];
}

/* Compare @p got (float, ldc) with @p want (double) over m x n; the padding must be @p pad. */
static void check_block(const char *what, int batch, int m, int n, int ldc, const float *got,
                        const double *want)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++)
            ck_assert_msg(got[(size_t)j * ldc + i] == want[(size_t)j * ldc + i],
                          "%s batch %d (%d x %d): C(%d,%d) = %g, want %g%s", what, batch, m, n, i,
                          j, got[(size_t)j * ldc + i], want[(size_t)j * ldc + i],
                          i >= m ? " (padding)" : "");
}

/* SgemmStridedBatched, SgemmBatched (pointer arrays in device memory), GemmStridedBatchedEx and
 * GemmBatchedEx (fp16 in, fp32 out) against the host, three batches of an odd shape, both
 * transposes of A. */
START_TEST(batched_gemms)
{
    enum { BATCH = 3, M = 31, N = 17, K = 33, LDA = 35, LDB = 34, LDC = 32 };
    const size_t sa = (size_t)LDA * K + 5, sb = (size_t)LDB * N + 3, sc = (size_t)LDC * N + 1;
    double *A = mat_alloc(BATCH * sa * 8), *B = mat_alloc(BATCH * sb * 8);
    double *C = mat_alloc(BATCH * sc * 8);
    float *fa = mat_alloc_f32(BATCH * sa), *fb = mat_alloc_f32(BATCH * sb);
    float *fc = mat_alloc_f32(BATCH * sc), *got = mat_alloc_f32(BATCH * sc);
    uint16_t *ha = mat_alloc(BATCH * sa * 2), *hb = mat_alloc(BATCH * sb * 2);
    fill_both(A, fa, BATCH * sa, 1), fill_both(B, fb, BATCH * sb, 2),
        fill_both(C, fc, BATCH * sc, 3);
    int *ia = mat_alloc(BATCH * sa * sizeof *ia), *ib = mat_alloc(BATCH * sb * sizeof *ib);
    for (size_t i = 0; i < BATCH * sa; i++)
        ia[i] = (int)fa[i];
    for (size_t i = 0; i < BATCH * sb; i++)
        ib[i] = (int)fb[i];
    store_ints(ia, BATCH * sa, F16, ha), store_ints(ib, BATCH * sb, F16, hb);
    float *dA = upload(fa, BATCH * sa * 4), *dB = upload(fb, BATCH * sb * 4);
    void *dA16 = upload(ha, BATCH * sa * 2), *dB16 = upload(hb, BATCH * sb * 2);
    float *dC = upload(fc, BATCH * sc * 4);
    cublasHandle_t h = handle_new();
    const float alpha = 2, beta = -1;
    for (int call = 0; call < 4; call++)
        for (int ta = 0; ta < 2; ta++) {
            int lda = ta ? K + 2 : LDA; /* A is M x K, or K x M when transposed */
            CUDA_CHECK(cudaMemcpy(dC, fc, BATCH * sc * 4, cudaMemcpyHostToDevice));
            cublasStatus_t st;
            if (call == 0) {
                st = cublasSgemmStridedBatched(h, ops[ta], CUBLAS_OP_N, M, N, K, &alpha, dA, lda,
                                               (long long)sa, dB, LDB, (long long)sb, &beta, dC,
                                               LDC, (long long)sc, BATCH);
            } else if (call == 1) {
                const float *pa[BATCH], *pb[BATCH];
                float *pc[BATCH];
                for (int b = 0; b < BATCH; b++)
                    pa[b] = dA + b * sa, pb[b] = dB + b * sb, pc[b] = dC + b * sc;
                void *dpa = upload(pa, sizeof pa), *dpb = upload(pb, sizeof pb);
                void *dpc = upload(pc, sizeof pc);
                st = cublasSgemmBatched(h, ops[ta], CUBLAS_OP_N, M, N, K, &alpha, dpa, lda, dpb,
                                        LDB, &beta, dpc, LDC, BATCH);
                device_free(dpa, dpb, dpc, NULL);
            } else if (call == 3) {
                const void *pa[BATCH], *pb[BATCH];
                void *pc[BATCH];
                for (int b = 0; b < BATCH; b++)
                    pa[b] = (uint16_t *)dA16 + b * sa, pb[b] = (uint16_t *)dB16 + b * sb,
                    pc[b] = dC + b * sc;
                void *dpa = upload(pa, sizeof pa), *dpb = upload(pb, sizeof pb);
                void *dpc = upload(pc, sizeof pc);
                st = cublasGemmBatchedEx(h, ops[ta], CUBLAS_OP_N, M, N, K, &alpha, dpa, CUDA_R_16F,
                                         lda, dpb, CUDA_R_16F, LDB, &beta, dpc, CUDA_R_32F, LDC,
                                         BATCH, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
                device_free(dpa, dpb, dpc, NULL);
            } else {
                st = cublasGemmStridedBatchedEx(
                    h, ops[ta], CUBLAS_OP_N, M, N, K, &alpha, dA16, CUDA_R_16F, lda, (long long)sa,
                    dB16, CUDA_R_16F, LDB, (long long)sb, &beta, dC, CUDA_R_32F, LDC, (long long)sc,
                    BATCH, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
            }
            ck_assert_int_eq(st, CUBLAS_STATUS_SUCCESS);
            CUDA_CHECK(cudaMemcpy(got, dC, BATCH * sc * 4, cudaMemcpyDeviceToHost));
            for (int b = 0; b < BATCH; b++) {
                double *want = mat_alloc(sc * 8);
                memcpy(want, C + b * sc, sc * 8);
                gemm_ref(ta, 0, M, N, K, 2, A + b * sa, lda, B + b * sb, LDB, -1, want, LDC);
                check_block(call == 0   ? "SgemmStridedBatched"
                            : call == 1 ? "SgemmBatched"
                            : call == 2 ? "GemmStridedBatchedEx"
                                        : "GemmBatchedEx",
                            b, M, N, LDC, got + b * sc, want);
                free(want);
            }
        }
    device_free(dA, dB, dA16, dB16);
    device_free(dC, NULL, NULL, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(A), free(B), free(C), free(fa), free(fb), free(fc), free(got), free(ha), free(hb);
    free(ia), free(ib);
}
END_TEST

/* DGEMM in fp64, every transpose pair at an odd shape; 1 + 2^-40 survives, as in no float. */
START_TEST(dgemm_transposes_in_double)
{
    enum { M = 37, N = 29, K = 41, LD = 43 };
    double *A = mat_alloc(LD * LD * 8), *B = mat_alloc(LD * LD * 8), *C = mat_alloc(LD * N * 8);
    double *want = mat_alloc(LD * N * 8), *got = mat_alloc(LD * N * 8);
    float *scratch = mat_alloc_f32(LD * LD);
    fill_both(A, scratch, LD * LD, 4), fill_both(B, scratch, LD * LD, 5);
    fill_both(C, scratch, LD * N, 6);
    A[0] += 0x1p-40; /* A(0,0) in both layouts: a change no fp32 path keeps */
    double *dA = upload(A, LD * LD * 8), *dB = upload(B, LD * LD * 8), *dC = upload(C, LD * N * 8);
    cublasHandle_t h = handle_new();
    const double alpha = 3, beta = -2;
    for (int t = 0; t < 4; t++) {
        CUDA_CHECK(cudaMemcpy(dC, C, LD * N * 8, cudaMemcpyHostToDevice));
        ck_assert_int_eq(
            cublasDgemm(h, ops[t / 2], ops[t % 2], M, N, K, &alpha, dA, LD, dB, LD, &beta, dC, LD),
            CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(got, dC, LD * N * 8, cudaMemcpyDeviceToHost));
        memcpy(want, C, LD * N * 8);
        gemm_ref(t / 2, t % 2, M, N, K, 3, A, LD, B, LD, -2, want, LD);
        for (int j = 0; j < N; j++)
            for (int i = 0; i < LD; i++)
                ck_assert_msg(got[j * LD + i] == want[j * LD + i],
                              "Dgemm %c%c %d x %d x %d: C(%d,%d) = %.17g, want %.17g",
                              t / 2 ? 'T' : 'N', t % 2 ? 'T' : 'N', M, N, K, i, j, got[j * LD + i],
                              want[j * LD + i]);
        CUDA_CHECK(cudaMemcpy(dC, C, LD * N * 8, cudaMemcpyHostToDevice)); /* GemmEx in fp64 */
        ck_assert_int_eq(cublasGemmEx(h, ops[t / 2], ops[t % 2], M, N, K, &alpha, dA, CUDA_R_64F,
                                      LD, dB, CUDA_R_64F, LD, &beta, dC, CUDA_R_64F, LD,
                                      CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
                         CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(got, dC, LD * N * 8, cudaMemcpyDeviceToHost));
        ck_assert_msg(!memcmp(got, want, LD * N * 8), "GemmEx 64F %c%c: not Dgemm's C",
                      t / 2 ? 'T' : 'N', t % 2 ? 'T' : 'N');
    }
    device_free(dA, dB, dC, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(A), free(B), free(C), free(want), free(got), free(scratch);
}
END_TEST

/* GemmEx on int8 operands summed in int32 (CUBLAS_COMPUTE_32I), int32 alpha and beta, every
 * transpose pair, odd shape, padded leading dimensions: C against a host sum, the rows past M
 * untouched; an int8 C is not emulated and says so. */
START_TEST(gemm_ex_int8_into_int32)
{
    enum { M = 33, N = 31, K = 37, LD = 41 };
    int8_t A[LD * LD], B[LD * LD];
    int32_t C[LD * N], got[LD * N];
    for (int i = 0; i < LD * LD; i++) {
        A[i] = (int8_t)((i * 37 + 11) % 255 - 127);
        B[i] = (int8_t)((i * 53 + 5) % 251 - 125);
    }
    for (int i = 0; i < LD * N; i++)
        C[i] = i * 7919 - 100000;
    int8_t *dA = upload(A, sizeof A), *dB = upload(B, sizeof B);
    int32_t *dC = upload(C, sizeof C);
    cublasHandle_t h = handle_new();
    const int32_t alpha = 3, beta = -2;
    for (int t = 0; t < 4; t++) {
        CUDA_CHECK(cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice));
        ck_assert_int_eq(cublasGemmEx(h, ops[t / 2], ops[t % 2], M, N, K, &alpha, dA, CUDA_R_8I, LD,
                                      dB, CUDA_R_8I, LD, &beta, dC, CUDA_R_32I, LD,
                                      CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
                         CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(got, dC, sizeof got, cudaMemcpyDeviceToHost));
        for (int j = 0; j < N; j++)
            for (int i = 0; i < LD; i++) {
                int32_t want = C[j * LD + i];
                if (i < M) {
                    int32_t sum = 0;
                    for (int p = 0; p < K; p++)
                        sum +=
                            A[t / 2 ? i * LD + p : p * LD + i] * B[t % 2 ? p * LD + j : j * LD + p];
                    want = alpha * sum + beta * want;
                }
                ck_assert_msg(got[j * LD + i] == want, "GemmEx 8I %c%c: C(%d,%d) = %d, want %d",
                              t / 2 ? 'T' : 'N', t % 2 ? 'T' : 'N', i, j, got[j * LD + i], want);
            }
    }
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, dA, CUDA_R_8I, LD,
                                  dB, CUDA_R_8I, LD, &beta, dA, CUDA_R_8I, LD, CUBLAS_COMPUTE_32I,
                                  CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_NOT_SUPPORTED);
    device_free(dA, dB, dC, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* --- geam, level 1, copies ---------------------------------------------------------------------
 */

/* C = alpha op(A) + beta op(B) for every transpose pair, odd shape, padded leading dimensions;
 * then in place (C = A) and with beta 0 and B NULL (not read). */
START_TEST(sgeam_transposes_and_in_place)
{
    enum { M = 37, N = 53, LD = 59 };
    float *A = mat_alloc_f32(LD * LD), *B = mat_alloc_f32(LD * LD), *C = mat_alloc_f32(LD * N);
    mat_fill_int(A, LD * LD, 7), mat_fill_int(B, LD * LD, 8), mat_fill_int(C, LD * N, 9);
    float *dA = upload(A, LD * LD * 4), *dB = upload(B, LD * LD * 4), *dC = upload(C, LD * N * 4);
    float *got = mat_alloc_f32(LD * N);
    cublasHandle_t h = handle_new();
    const float alpha = 2, beta = -3, zero = 0;
    for (int t = 0; t < 5; t++) {
        int ta = t < 4 ? t / 2 : 0, tb = t % 2;
        CUDA_CHECK(cudaMemcpy(dC, C, LD * N * 4, cudaMemcpyHostToDevice));
        ck_assert_int_eq(cublasSgeam(h, ops[ta], ops[tb], M, N, &alpha, t < 4 ? dA : dC, LD,
                                     t < 4 ? &beta : &zero, t < 4 ? dB : NULL, LD, dC, LD),
                         CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(got, dC, LD * N * 4, cudaMemcpyDeviceToHost));
        for (int j = 0; j < N; j++)
            for (int i = 0; i < LD; i++) {
                float a = ta ? A[i * LD + j] : A[j * LD + i],
                      b = tb ? B[i * LD + j] : B[j * LD + i];
                float want = i >= M ? C[j * LD + i] : t < 4 ? 2 * a - 3 * b : 2 * C[j * LD + i];
                ck_assert_msg(got[j * LD + i] == want,
                              "Sgeam case %d (%c%c): C(%d,%d) = %g, want %g", t, ta ? 'T' : 'N',
                              tb ? 'T' : 'N', i, j, got[j * LD + i], want);
            }
    }
    device_free(dA, dB, dC, NULL);
    /* Dgeam: the same in fp64, on values no float holds (a third), T and N */
    double *Ad = mat_alloc(LD * LD * 8), *Bd = mat_alloc(LD * LD * 8), *Cd = mat_alloc(LD * N * 8);
    for (int i = 0; i < LD * LD; i++)
        Ad[i] = A[i] / 3.0, Bd[i] = B[i] / 7.0;
    for (int i = 0; i < LD * N; i++)
        Cd[i] = C[i];
    double *dAd = upload(Ad, LD * LD * 8), *dBd = upload(Bd, LD * LD * 8);
    double *dCd = upload(Cd, LD * N * 8), *gotd = mat_alloc(LD * N * 8);
    const double alphad = 2, betad = -3;
    ck_assert_int_eq(
        cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, &alphad, dAd, LD, &betad, dBd, LD, dCd, LD),
        CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(gotd, dCd, LD * N * 8, cudaMemcpyDeviceToHost));
    for (int j = 0; j < N; j++)
        for (int i = 0; i < LD; i++) {
            double want = i >= M ? Cd[j * LD + i] : 2 * Ad[i * LD + j] + -3 * Bd[j * LD + i];
            ck_assert_msg(gotd[j * LD + i] == want, "Dgeam TN: C(%d,%d) = %.17g, want %.17g", i, j,
                          gotd[j * LD + i], want);
        }
    device_free(dAd, dBd, dCd, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(A), free(B), free(C), free(got), free(Ad), free(Bd), free(Cd), free(gotd);
}
END_TEST

/* DotEx on fp16, bf16, fp32 and fp64 vectors of 101 elements in {-1, 0, 1}, increments 2 and -3
 * (y walked from its far end): the exact sum, which every type holds; the result on the device in
 * device pointer mode for fp16; mixed types refused in one line. */
START_TEST(dot_ex_every_real_type)
{
    enum { NV = 101, LEN = 3 * NV };
    int xi[LEN], yi[LEN];
    uint64_t s = 77;
    for (int i = 0; i < LEN; i++) {
        xi[i] = (int)(mat_rand_next(&s) % 3) - 1;
        yi[i] = (int)(mat_rand_next(&s) % 3) - 1;
    }
    int want = 0;
    for (int i = 0; i < NV; i++)
        want += xi[2 * i] * yi[3 * (NV - 1 - i)];
    ck_assert_int_ne(want, 0); /* a result that a call doing nothing would not give */
    cublasHandle_t h = handle_new();
    static const cudaDataType types[] = {CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F, CUDA_R_64F};
    for (int t = 0; t < 4; t++) {
        size_t e = t < 2 ? 2 : t == 2 ? 4 : 8;
        unsigned char hx[LEN * 8], hy[LEN * 8], out[8] = {0};
        for (int i = 0; i < LEN; i++) {
            if (t < 2) {
                ((uint16_t *)hx)[i] = t ? bf16_bits_of_int(xi[i]) : half_bits_of_int(xi[i]);
                ((uint16_t *)hy)[i] = t ? bf16_bits_of_int(yi[i]) : half_bits_of_int(yi[i]);
            } else if (t == 2) {
                ((float *)hx)[i] = (float)xi[i], ((float *)hy)[i] = (float)yi[i];
            } else {
                ((double *)hx)[i] = xi[i], ((double *)hy)[i] = yi[i];
            }
        }
        void *dx = upload(hx, LEN * e), *dy = upload(hy, LEN * e), *dr = upload(out, 8);
        cudaDataType exec = t == 3 ? CUDA_R_64F : CUDA_R_32F;
        if (t == 0)
            ck_assert_int_eq(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE),
                             CUBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(cublasDotEx(h, NV, dx, types[t], 2, dy, types[t], -3, t == 0 ? dr : out,
                                     types[t], exec),
                         CUBLAS_STATUS_SUCCESS);
        if (t == 0) {
            CUDA_CHECK(cudaMemcpy(out, dr, 8, cudaMemcpyDeviceToHost));
            ck_assert_int_eq(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST),
                             CUBLAS_STATUS_SUCCESS);
        }
        double got = t < 2    ? load_fmt(out, 0, t ? BF16 : F16)
                     : t == 2 ? ((float *)out)[0]
                              : ((double *)out)[0];
        ck_assert_msg(got == want, "DotEx type %d: %g, want %d", (int)types[t], got, want);
        device_free(dx, dy, dr, NULL);
    }
    float fx = 1, fy = 1;
    double r;
    ck_assert_int_eq(
        cublasDotEx(h, 1, &fx, CUDA_R_32F, 1, &fy, CUDA_R_32F, 1, &r, CUDA_R_64F, CUDA_R_64F),
        CUBLAS_STATUS_NOT_SUPPORTED);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* axpy, dot, nrm2 and scal in fp32 and fp64 at n = 1001 with increments 2 and -3 (a negative
 * one walks its vector from the far end); elements between the strides stay untouched. */
START_TEST(level1_against_host)
{
    enum { NV = 1001, LEN = 3 * NV };
    float *x = mat_alloc_f32(LEN), *y = mat_alloc_f32(LEN), *got = mat_alloc_f32(LEN);
    double *xd = mat_alloc(LEN * 8), *yd = mat_alloc(LEN * 8), *gotd = mat_alloc(LEN * 8);
    fill_both(xd, x, LEN, 10), fill_both(yd, y, LEN, 11);
    float *dx = upload(x, LEN * 4), *dy = upload(y, LEN * 4);
    double *dxd = upload(xd, LEN * 8), *dyd = upload(yd, LEN * 8);
    cublasHandle_t h = handle_new();
    const float alpha = 3;
    const double alphad = 3;
    ck_assert_int_eq(cublasSaxpy(h, NV, &alpha, dx, 2, dy, -3), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDaxpy(h, NV, &alphad, dxd, 2, dyd, -3), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(got, dy, LEN * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gotd, dyd, LEN * 8, cudaMemcpyDeviceToHost));
    double dot = 0, sq = 0;
    for (int i = 0; i < LEN; i++) {
        int k = i % 3 ? -1 : NV - 1 - i / 3; /* y's element i / 3, counted from the far end */
        double want = k >= 0 ? 3.0 * x[2 * k] + y[i] : y[i];
        ck_assert_msg(got[i] == want && gotd[i] == want, "axpy: y[%d] = %g (fp64 %g), want %g", i,
                      got[i], gotd[i], want);
    }
    for (int i = 0; i < NV; i++) {
        dot += (double)x[2 * i] * got[3 * (NV - 1 - i)];
        sq += (double)x[2 * i] * x[2 * i];
    }
    float rdot, rnrm;
    double rdotd, rnrmd;
    ck_assert_int_eq(cublasSdot(h, NV, dx, 2, dy, -3, &rdot), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDdot(h, NV, dxd, 2, dyd, -3, &rdotd), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSnrm2(h, NV, dx, 2, &rnrm), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDnrm2(h, NV, dxd, 2, &rnrmd), CUBLAS_STATUS_SUCCESS);
    ck_assert_msg(rdot == dot && rdotd == dot, "dot = %g (fp64 %g), want %g", rdot, rdotd, dot);
    ck_assert_msg(rnrm == (float)sqrt(sq) && rnrmd == sqrt(sq),
                  "nrm2 = %.9g (fp64 %.17g), want %.17g", rnrm, rnrmd, sqrt(sq));
    const float half = -0.5f;
    const double halfd = -0.5;
    ck_assert_int_eq(cublasSscal(h, NV, &half, dx, 2), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDscal(h, NV, &halfd, dxd, 2), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(got, dx, LEN * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gotd, dxd, LEN * 8, cudaMemcpyDeviceToHost));
    for (int i = 0; i < LEN; i++) {
        double want = i % 2 == 0 && i / 2 < NV ? -0.5 * x[i] : x[i];
        ck_assert_msg(got[i] == want && gotd[i] == want, "scal: x[%d] = %g (fp64 %g), want %g", i,
                      got[i], gotd[i], want);
    }
    ck_assert_int_eq(cublasSaxpy(h, NV, &alpha, dx, 0, dy, 1), CUBLAS_STATUS_INVALID_VALUE);
    device_free(dx, dy, dxd, dyd);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(x), free(y), free(got), free(xd), free(yd), free(gotd);
}
END_TEST

/* Set/GetVector with increments, Set/GetMatrix with leading dimensions: a round trip through
 * the device that leaves the gaps alone; bad arguments and a range past its allocation are
 * refused. */
START_TEST(set_get_vector_and_matrix)
{
    enum { NV = 333, ROWS = 37, COLS = 29, LDA = 41, LDB = 39 };
    float v[2 * NV], back[3 * NV];
    mat_fill_int(v, 2 * NV, 12);
    float *dv = upload(back, sizeof back); /* any bytes: every other one is overwritten */
    for (int i = 0; i < 3 * NV; i++)
        back[i] = 99;
    CUDA_CHECK(cudaMemcpy(dv, back, sizeof back, cudaMemcpyHostToDevice));
    ck_assert_int_eq(cublasSetVector(NV, 4, v, 2, dv, 3), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(back, dv, sizeof back, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 3 * NV; i++)
        ck_assert_msg(back[i] == (i % 3 ? 99 : v[2 * (i / 3)]), "SetVector: y[%d] = %g", i,
                      back[i]);
    float out[NV];
    ck_assert_int_eq(cublasGetVector(NV, 4, dv, 3, out, 1), CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < NV; i++)
        ck_assert_msg(out[i] == v[2 * i], "GetVector: x[%d] = %g, want %g", i, out[i], v[2 * i]);
    float *A = mat_alloc_f32(LDA * COLS), *B = mat_alloc_f32(LDB * COLS);
    mat_fill_int(A, LDA * COLS, 13);
    for (int i = 0; i < LDB * COLS; i++)
        B[i] = 77;
    float *dB = upload(B, LDB * COLS * 4);
    ck_assert_int_eq(cublasSetMatrix(ROWS, COLS, 4, A, LDA, dB, LDB), CUBLAS_STATUS_SUCCESS);
    float *C = mat_alloc_f32(LDA * COLS);
    for (int i = 0; i < LDA * COLS; i++)
        C[i] = -5;
    ck_assert_int_eq(cublasGetMatrix(ROWS, COLS, 4, dB, LDB, C, LDA), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(B, dB, LDB * COLS * 4, cudaMemcpyDeviceToHost));
    for (int j = 0; j < COLS; j++) {
        for (int i = 0; i < LDB; i++)
            ck_assert_msg(B[j * LDB + i] == (i < ROWS ? A[j * LDA + i] : 77),
                          "SetMatrix: B(%d,%d) = %g", i, j, B[j * LDB + i]);
        for (int i = 0; i < LDA; i++)
            ck_assert_msg(C[j * LDA + i] == (i < ROWS ? A[j * LDA + i] : -5),
                          "GetMatrix: C(%d,%d) = %g", i, j, C[j * LDA + i]);
    }
    ck_assert_int_eq(cublasSetMatrix(ROWS, COLS, 4, A, ROWS - 1, dB, LDB),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasSetVector(NV, 4, v, 0, dv, 1), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasSetVector(NV + 1, 4, v, 1, dv, 3), CUBLAS_STATUS_MAPPING_ERROR);
    device_free(dv, dB, NULL, NULL);
    free(A), free(B), free(C);
}
END_TEST

/* --- batched LU and cublasXt ------------------------------------------------------------------
 */

/* Fill @p batch column-major @p n x @p n matrices with leading dimension @p ld, non-uniform
 * (small integers plus a ramp); matrix 1 gets a zero column @p n / 2, so its U is singular. */
static void lu_fill(double *a, int batch, int n, int ld, uint64_t seed)
{
    float *f = mat_alloc_f32((size_t)batch * ld * n);
    mat_fill_int(f, (size_t)batch * ld * n, seed);
    for (size_t i = 0; i < (size_t)batch * ld * n; i++)
        a[i] = f[i] + 0.125 * (double)(i % 7);
    for (int i = 0; i < n && batch > 1; i++)
        a[(size_t)ld * n + (size_t)(n / 2) * ld + i] = 0;
    free(f);
}

/* An array of @p batch device pointers, @p stride elements of @p elem bytes apart from @p base,
 * uploaded to the device (cuBLAS reads it there). */
static void *pointer_array_of(void *base, int batch, size_t stride, size_t elem)
{
    void *p[8];
    for (int b = 0; b < batch; b++)
        p[b] = (char *)base + (size_t)b * stride * elem;
    return upload(p, (size_t)batch * sizeof *p);
}

/* Check that P A = L U (to @p tol relative to |A|'s largest element), |L| <= 1 when pivoting
 * and that the padding rows kept A's values; @p lu holds the factors. */
static void check_lu(const char *what, int b, int n, int ld, const double *a, const double *lu,
                     const int *piv, double tol)
{
    double pa[16 * 16], big = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            pa[j * n + i] = a[j * ld + i], big = fmax(big, fabs(a[j * ld + i]));
    for (int k = 0; k < n && piv; k++) /* P A: the swaps in order */
        for (int j = 0; j < n; j++) {
            double t = pa[j * n + k];
            pa[j * n + k] = pa[j * n + piv[k] - 1], pa[j * n + piv[k] - 1] = t;
        }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ld; i++) {
            double s = 0, want = i < n ? pa[j * n + i] : a[j * ld + i];
            for (int k = 0; k <= (i < j ? i : j) && i < n; k++)
                s += (k == i ? 1 : lu[k * ld + i]) * lu[j * ld + k];
            s = i < n ? s : lu[j * ld + i]; /* the padding: as it was */
            int l_ok = !piv || i <= j || i >= n || fabs(lu[j * ld + i]) <= 1;
            ck_assert_msg(fabs(s - want) <= tol * big && l_ok,
                          "%s matrix %d (%d x %d, ld %d): (LU)(%d,%d) = %.17g, want (PA) %.17g%s",
                          what, b, n, n, ld, i, j, s, want,
                          i >= n ? " (padding)"
                          : l_ok ? ""
                                 : " (|L| > 1: not pivoted)");
        }
}

/* The same matrices made diagonally dominant (no pivoting needed), but for matrix 1's zero
 * column. */
static void lu_dominant(double *a, int batch, int n, int ld)
{
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < n; i++)
            a[(size_t)b * ld * n + (size_t)i * ld + i] += b == 1 && i == n / 2 ? 0 : 8 * n;
}

/* Dgetrf (with and without pivoting), Dgetri and Sgetrf batched on 3 odd-sized matrices with
 * padded rows, against the host: P A = L U, A inv(A) = I, a singular matrix's info names its
 * zero column and its C stays untouched, and so do the padding rows. */
START_TEST(lu_batched_against_host)
{
    enum { B = 3, N = 7, LD = 9, SZ = LD * N, SING = N / 2 + 1 };
    double a[B * SZ], lu[B * SZ], inv[B * SZ];
    float af[B * SZ], luf[B * SZ];
    int piv[B * N], info[B];
    lu_fill(a, B, N, LD, 21);
    for (int i = 0; i < B * SZ; i++)
        af[i] = (float)a[i], inv[i] = -7;
    double *dA = upload(a, sizeof a), *dC = upload(inv, sizeof inv);
    float *dAf = upload(af, sizeof af);
    int *dP = upload(piv, sizeof piv), *dInfo = upload(info, sizeof info);
    void *pa = pointer_array_of(dA, B, SZ, 8), *pc = pointer_array_of(dC, B, SZ, 8);
    void *pf = pointer_array_of(dAf, B, SZ, 4);
    cublasHandle_t h = handle_new();
    for (int pivot = 1; pivot >= 0; pivot--) {
        if (!pivot)
            lu_dominant(a, B, N, LD);
        CUDA_CHECK(cudaMemcpy(dA, a, sizeof a, cudaMemcpyHostToDevice));
        ck_assert_int_eq(cublasDgetrfBatched(h, N, pa, LD, pivot ? dP : NULL, dInfo, B),
                         CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(lu, dA, sizeof lu, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(piv, dP, sizeof piv, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(info, dInfo, sizeof info, cudaMemcpyDeviceToHost));
        for (int b = 0; b < B; b++) {
            ck_assert_msg(info[b] == (b == 1 ? SING : 0), "Dgetrf pivot %d matrix %d: info %d",
                          pivot, b, info[b]);
            if (b != 1)
                check_lu(pivot ? "Dgetrf" : "Dgetrf (no pivoting)", b, N, LD, a + b * SZ,
                         lu + b * SZ, pivot ? piv + b * N : NULL, 1e-13);
        }
    }
    /* dA holds the factors without pivoting: invert from them with P NULL. */
    ck_assert_int_eq(cublasDgetriBatched(h, N, pa, LD, NULL, pc, LD, dInfo, B),
                     CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(inv, dC, sizeof inv, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(info, dInfo, sizeof info, cudaMemcpyDeviceToHost));
    for (int b = 0; b < B; b++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < LD; i++) {
                int kept = b == 1 || i >= N; /* singular, or padding: C untouched */
                double s = kept ? inv[b * SZ + j * LD + i] : 0, want = kept ? -7 : i == j;
                for (int k = 0; k < N && !kept; k++)
                    s += a[b * SZ + k * LD + i] * inv[b * SZ + j * LD + k];
                ck_assert_msg(fabs(s - want) <= 1e-13 && info[b] == (b == 1 ? SING : 0),
                              "Dgetri matrix %d (%d x %d): (A inv(A))(%d,%d) = %.17g, want %g, "
                              "info %d",
                              b, N, N, i, j, s, want, info[b]);
            }
    ck_assert_int_eq(cublasSgetrfBatched(h, N, pf, LD, dP, dInfo, B), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(luf, dAf, sizeof luf, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(piv, dP, sizeof piv, cudaMemcpyDeviceToHost));
    for (int i = 0; i < B * SZ; i++)
        lu[i] = luf[i], a[i] = af[i];
    check_lu("Sgetrf", 0, N, LD, a, lu, piv, 1e-5);
    ck_assert_int_eq(cublasDgetrfBatched(h, N, pa, N - 1, dP, dInfo, B),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasDgetrfBatched(h, N, pa, LD, dP, dInfo, -1), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    device_free(dA, dC, dAf, dP);
    device_free(dInfo, pa, pc, pf);
}
END_TEST

/* cublasXtSgemm on host operands (every transpose pair, odd shape, padded leading dimensions)
 * and on device ones, cublasXtDgemm, and DgemmBatched, against the host: small integers, so
 * ==. */
START_TEST(xt_and_dgemm_batched)
{
    enum { M = 31, N = 33, K = 17, LD = 37, SZ = LD * LD };
    double *A = mat_alloc(SZ * 8), *Bm = mat_alloc(SZ * 8), *C = mat_alloc(SZ * 8);
    double *want = mat_alloc(SZ * 8), *gotd = mat_alloc(SZ * 8);
    float *fa = mat_alloc_f32(SZ), *fb = mat_alloc_f32(SZ), *fc = mat_alloc_f32(SZ);
    float *got = mat_alloc_f32(SZ);
    fill_both(A, fa, SZ, 31), fill_both(Bm, fb, SZ, 32), fill_both(C, fc, SZ, 33);
    cublasXtHandle_t xt;
    int dev = 0, bd;
    ck_assert_int_eq(cublasXtCreate(&xt), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasXtDeviceSelect(xt, 1, &dev), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasXtSetBlockDim(xt, 16), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasXtGetBlockDim(xt, &bd), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(bd, 16);
    const float alpha = 2, beta = -1;
    for (int t = 0; t < 5; t++) { /* t 4: the operands in device memory */
        float *dA = t == 4 ? upload(fa, SZ * 4) : fa, *dB = t == 4 ? upload(fb, SZ * 4) : fb;
        float *dC = t == 4 ? upload(fc, SZ * 4) : got;
        memcpy(got, fc, SZ * 4);
        ck_assert_int_eq(cublasXtSgemm(xt, ops[t / 2 % 2], ops[t % 2], M, N, K, &alpha, dA, LD, dB,
                                       LD, &beta, dC, LD),
                         CUBLAS_STATUS_SUCCESS);
        if (t == 4) {
            CUDA_CHECK(cudaMemcpy(got, dC, SZ * 4, cudaMemcpyDeviceToHost));
            device_free(dA, dB, dC, NULL);
        }
        memcpy(want, C, SZ * 8);
        gemm_ref(t / 2 % 2, t % 2, M, N, K, 2, A, LD, Bm, LD, -1, want, LD);
        check_block(t == 4 ? "XtSgemm (device)" : "XtSgemm (host)", t, M, N, LD, got, want);
    }
    const double a2 = 3, b2 = 0;
    memcpy(gotd, C, SZ * 8);
    ck_assert_int_eq(
        cublasXtDgemm(xt, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &a2, A, LD, Bm, LD, &b2, gotd, LD),
        CUBLAS_STATUS_SUCCESS);
    memcpy(want, C, SZ * 8);
    gemm_ref(1, 0, M, N, K, 3, A, LD, Bm, LD, 0, want, LD);
    for (int i = 0; i < SZ; i++)
        ck_assert_msg(gotd[i] == want[i], "XtDgemm TN %d x %d x %d: C(%d,%d) = %g, want %g", M, N,
                      K, i % LD, i / LD, gotd[i], want[i]);
    ck_assert_int_eq(cublasXtDestroy(xt), CUBLAS_STATUS_SUCCESS);
    cublasHandle_t h = handle_new();
    double *dA = upload(A, SZ * 8), *dB = upload(Bm, SZ * 8), *dC = upload(C, SZ * 8);
    void *pa = pointer_array_of(dA, 2, 5, 8), *pb = pointer_array_of(dB, 2, 0, 8);
    void *pc = pointer_array_of(dC, 2, (size_t)LD * (N / 2), 8); /* two C blocks side by side */
    ck_assert_int_eq(cublasDgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, M, N / 2, K, &a2, pa, LD, pb,
                                        LD, &b2, pc, LD, 2),
                     CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpy(gotd, dC, SZ * 8, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 2; b++) {
        memcpy(want, C, SZ * 8);
        gemm_ref(0, 1, M, N / 2, K, 3, A + 5 * b, LD, Bm, LD, 0, want, LD);
        for (int j = 0; j < N / 2; j++)
            for (int i = 0; i < M; i++)
                ck_assert_msg(gotd[(size_t)b * LD * (N / 2) + j * LD + i] == want[j * LD + i],
                              "DgemmBatched batch %d: C(%d,%d) = %g, want %g", b, i, j,
                              gotd[(size_t)b * LD * (N / 2) + j * LD + i], want[j * LD + i]);
    }
    device_free(dA, dB, dC, pa);
    device_free(pb, pc, NULL, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(A), free(Bm), free(C), free(want), free(gotd), free(fa), free(fb), free(fc), free(got);
}
END_TEST

/* --- cuBLASLt --------------------------------------------------------------------------------- */

/* A column-major layout of @p type, rows x cols, leading dimension @p ld, @p batch batches
 * @p stride elements apart. */
static cublasLtMatrixLayout_t lt_layout(cudaDataType type, int rows, int cols, int ld, int batch,
                                        long long stride)
{
    cublasLtMatrixLayout_t l;
    ck_assert_int_eq(cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                                                      sizeof batch),
                     CUBLAS_STATUS_SUCCESS);
    int64_t s = stride;
    ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(
                         l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s, sizeof s),
                     CUBLAS_STATUS_SUCCESS);
    return l;
}

/* The epilogue as cuBLASLt defines it, on the exact value @p v, in double. */
static double lt_epilogue(cublasLtEpilogue_t e, double v, double bias)
{
    if (e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_RELU_BIAS ||
        e == CUBLASLT_EPILOGUE_GELU_BIAS)
        v += bias;
    if (e == CUBLASLT_EPILOGUE_RELU || e == CUBLASLT_EPILOGUE_RELU_BIAS)
        v = v > 0 ? v : 0;
    if (e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS)
        v = 0.5 * v * (1 + tanh(sqrt(2 / acos(-1.0)) * (v + 0.044715 * v * v * v)));
    return v;
}

/* cublasLtMatmul, D = epilogue(alpha op(A) B + beta C) with C and D apart (their own leading
 * dimensions), every epilogue the course uses, A as is and transposed, fp32 and (two strided
 * batches) fp16; through the handle, descriptor, layouts, preference and heuristic as a
 * tutorial calls them. Sums of small integers are exact in both types, so everything but GELU
 * is compared with ==; GELU within 2^-20 relative in fp32 (tanh is not correctly rounded
 * anywhere) and half an fp16 ulp in fp16. The padding of D stays 0. */
START_TEST(lt_matmul_epilogues)
{
    enum { M = 37, N = 29, K = 33, LDA = 41, LDC = 39, LDD = 40, BATCH = 2 };
    const cublasLtEpilogue_t epis[] = {CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_RELU,
                                       CUBLASLT_EPILOGUE_BIAS,    CUBLASLT_EPILOGUE_RELU_BIAS,
                                       CUBLASLT_EPILOGUE_GELU,    CUBLASLT_EPILOGUE_GELU_BIAS};
    const long long sa = LDA * LDA, sb = LDA * N, sc = LDC * N, sd = LDD * N;
    float *fa = mat_alloc_f32(BATCH * sa), *fb = mat_alloc_f32(BATCH * sb);
    float *fc = mat_alloc_f32(BATCH * sc), *fd = mat_alloc_f32(BATCH * sd), bias[M];
    mat_fill_int(fa, BATCH * sa, 20), mat_fill_int(fb, BATCH * sb, 21);
    mat_fill_int(fc, BATCH * sc, 22), mat_fill_int(bias, M, 23);
    void *h16[5];
    const float *srcs[5] = {fa, fb, fc, bias, fd};
    const size_t counts[5] = {BATCH * sa, BATCH * sb, BATCH * sc, M, BATCH * sd};
    for (int i = 0; i < 5; i++) { /* the same integers in fp16 */
        h16[i] = mat_alloc(counts[i] * 2);
        for (size_t e = 0; e < counts[i]; e++)
            ((uint16_t *)h16[i])[e] = half_bits_of_int(i == 4 ? 0 : (int)srcs[i][e]);
    }
    cublasLtHandle_t lt;
    ck_assert_int_eq(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
    const float alpha = 2, beta = -1;
    for (int half = 0; half < 2; half++) {
        cudaDataType t = half ? CUDA_R_16F : CUDA_R_32F;
        size_t es = half ? 2 : 4;
        int batch = half ? BATCH : 1;
        void *dev[5];
        for (int i = 0; i < 5; i++)
            dev[i] = upload(half ? h16[i] : srcs[i], counts[i] * es);
        for (size_t e = 0; e < sizeof epis / sizeof *epis; e++)
            for (int ta = 0; ta < 2; ta++) {
                cublasLtMatmulDesc_t desc;
                ck_assert_int_eq(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                                 CUBLAS_STATUS_SUCCESS);
                cublasOperation_t op = ops[ta];
                ck_assert_int_eq(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA,
                                                                &op, sizeof op),
                                 CUBLAS_STATUS_SUCCESS);
                ck_assert_int_eq(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                                &epis[e], sizeof epis[e]),
                                 CUBLAS_STATUS_SUCCESS);
                ck_assert_int_eq(cublasLtMatmulDescSetAttribute(desc,
                                                                CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                                &dev[3], sizeof dev[3]),
                                 CUBLAS_STATUS_SUCCESS);
                int lda = ta ? K + 1 : LDA;
                cublasLtMatrixLayout_t la = lt_layout(t, ta ? K : M, ta ? M : K, lda, batch, sa);
                cublasLtMatrixLayout_t lb = lt_layout(t, K, N, LDA, batch, sb);
                cublasLtMatrixLayout_t lc = lt_layout(t, M, N, LDC, batch, sc);
                cublasLtMatrixLayout_t ld = lt_layout(t, M, N, LDD, batch, sd);
                cublasLtMatmulPreference_t pref;
                size_t ws = 1 << 20;
                cublasLtMatmulHeuristicResult_t res;
                int found = 0;
                ck_assert_int_eq(cublasLtMatmulPreferenceCreate(&pref), CUBLAS_STATUS_SUCCESS);
                ck_assert_int_eq(
                    cublasLtMatmulPreferenceSetAttribute(
                        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                    CUBLAS_STATUS_SUCCESS);
                ck_assert_int_eq(
                    cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, ld, pref, 1, &res, &found),
                    CUBLAS_STATUS_SUCCESS);
                ck_assert_int_eq(found, 1);
                CUDA_CHECK(
                    cudaMemcpy(dev[4], half ? h16[4] : fd, counts[4] * es, cudaMemcpyHostToDevice));
                ck_assert_int_eq(cublasLtMatmul(lt, desc, &alpha, dev[0], la, dev[1], lb, &beta,
                                                dev[2], lc, dev[4], ld, &res.algo, NULL, 0, 0),
                                 CUBLAS_STATUS_SUCCESS);
                void *got = mat_alloc(counts[4] * es);
                CUDA_CHECK(cudaMemcpy(got, dev[4], counts[4] * es, cudaMemcpyDeviceToHost));
                for (int b = 0; b < batch; b++)
                    for (int j = 0; j < N; j++)
                        for (int i = 0; i < LDD; i++) {
                            double want = 0;
                            if (i < M) {
                                double acc = 0;
                                for (int p = 0; p < K; p++)
                                    acc += fa[b * sa + (ta ? i * lda + p : p * LDA + i)] *
                                           fb[b * sb + j * LDA + p];
                                want = lt_epilogue(epis[e], 2 * acc - fc[b * sc + j * LDC + i],
                                                   bias[i]);
                            }
                            float v =
                                load_fmt(got, (size_t)(b * sd + j * LDD + i), half ? F16 : F32);
                            int gelu = epis[e] >= CUBLASLT_EPILOGUE_GELU;
                            /* fp16 D: GELU's value rounded once, perhaps to a subnormal */
                            double tol = !gelu  ? 0
                                         : half ? fabs(want) * 0x1p-10 + 0x1p-24
                                                : fabs(want) * 0x1p-20;
                            ck_assert_msg(fabs(v - want) <= tol,
                                          "cublasLtMatmul %s epilogue %d trans %d batch %d: "
                                          "D(%d,%d) = %.9g, want %.9g%s",
                                          half ? "fp16" : "fp32", (int)epis[e], ta, b, i, j, v,
                                          want, i >= M ? " (padding)" : "");
                        }
                free(got);
                cublasLtMatmulPreferenceDestroy(pref);
                cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb);
                cublasLtMatrixLayoutDestroy(lc), cublasLtMatrixLayoutDestroy(ld);
                cublasLtMatmulDescDestroy(desc);
            }
        for (int i = 0; i < 5; i++)
            CUDA_CHECK(cudaFree(dev[i]));
    }
    ck_assert_int_eq(cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < 5; i++)
        free(h16[i]);
    free(fa), free(fb), free(fc), free(fd);
}
END_TEST

/* A row-major layout of @p type, rows x cols, leading dimension (row stride) @p ld. */
static cublasLtMatrixLayout_t lt_row_layout(int rows, int cols, int ld)
{
    cublasLtMatrixLayout_t l = lt_layout(CUDA_R_32F, rows, cols, ld, 1, 0);
    const int32_t row = CUBLASLT_ORDER_ROW;
    ck_assert_int_eq(
        cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof row),
        CUBLAS_STATUS_SUCCESS);
    return l;
}

/* Row-major operands, as a C program lays its matrices out, mixed with column-major ones:
 * D (row-major, padded rows) = op(A) B + C, A row-major as is and transposed, B row-major, C
 * column-major; small integers, so every element is exact. The padding of D stays 0. */
START_TEST(lt_matmul_row_major)
{
    enum { M = 19, N = 23, K = 17, LDA = 29, LDB = 26, LDC = 21, LDD = 25 };
    float *fa = mat_alloc_f32(LDA * LDA), *fb = mat_alloc_f32(K * LDB);
    float *fc = mat_alloc_f32(LDC * N), *got = mat_alloc_f32(M * LDD);
    mat_fill_int(fa, LDA * LDA, 30), mat_fill_int(fb, K * LDB, 31), mat_fill_int(fc, LDC * N, 32);
    cublasLtHandle_t lt;
    ck_assert_int_eq(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
    float *da = upload(fa, LDA * LDA * 4), *db = upload(fb, K * LDB * 4);
    float *dc = upload(fc, LDC * N * 4), *dd;
    CUDA_CHECK(cudaMalloc((void **)&dd, M * LDD * 4));
    const float one = 1;
    for (int ta = 0; ta < 2; ta++) {
        cublasLtMatmulDesc_t desc;
        ck_assert_int_eq(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                         CUBLAS_STATUS_SUCCESS);
        cublasOperation_t op = ops[ta];
        ck_assert_int_eq(
            cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op, sizeof op),
            CUBLAS_STATUS_SUCCESS);
        cublasLtMatrixLayout_t la = lt_row_layout(ta ? K : M, ta ? M : K, LDA);
        cublasLtMatrixLayout_t lb = lt_row_layout(K, N, LDB), ld = lt_row_layout(M, N, LDD);
        cublasLtMatrixLayout_t lc = lt_layout(CUDA_R_32F, M, N, LDC, 1, 0);
        CUDA_CHECK(cudaMemset(dd, 0, M * LDD * 4));
        ck_assert_int_eq(
            cublasLtMatmul(lt, desc, &one, da, la, db, lb, &one, dc, lc, dd, ld, NULL, NULL, 0, 0),
            CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(got, dd, M * LDD * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < M; i++)
            for (int j = 0; j < LDD; j++) {
                double want = 0;
                for (int p = 0; j < N && p < K; p++)
                    want += fa[ta ? p * LDA + i : i * LDA + p] * fb[p * LDB + j];
                want += j < N ? fc[j * LDC + i] : 0;
                ck_assert_msg(got[i * LDD + j] == want,
                              "cublasLtMatmul row-major, trans %d: D(%d,%d) = %g, want %g%s", ta, i,
                              j, got[i * LDD + j], want, j >= N ? " (padding)" : "");
            }
        cublasLtMatrixLayoutDestroy(la), cublasLtMatrixLayoutDestroy(lb);
        cublasLtMatrixLayoutDestroy(lc), cublasLtMatrixLayoutDestroy(ld);
        cublasLtMatmulDescDestroy(desc);
    }
    ck_assert_int_eq(cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaFree(da));
    CUDA_CHECK(cudaFree(db));
    CUDA_CHECK(cudaFree(dc));
    CUDA_CHECK(cudaFree(dd));
    free(fa), free(fb), free(fc), free(got);
}
END_TEST

/* What cuBLASLt does not model fails with CUBLAS_STATUS_NOT_SUPPORTED and one line naming it:
 * a tiled layout (COL32), an epilogue with an auxiliary output. */
START_TEST(lt_refuses_what_it_does_not_model)
{
    float *d;
    CUDA_CHECK(cudaMalloc((void **)&d, 64 * sizeof *d));
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t l;
    ck_assert_int_eq(cublasLtCreate(&lt), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 4, 4, 4), CUBLAS_STATUS_SUCCESS);
    const float one = 1, zero = 0;
    const int32_t col32 = CUBLASLT_ORDER_COL32;
    const cublasLtEpilogue_t aux = CUBLASLT_EPILOGUE_GELU_AUX;
    const char *const said_want[] = {
        "emulator: cuBLASLt: matrix order (cublasLtOrder_t; COL and ROW are) 2 is not emulated "
        "(CUBLAS_STATUS_NOT_SUPPORTED)\n",
        "emulator: cuBLASLt: epilogue 160 is not emulated (CUBLAS_STATUS_NOT_SUPPORTED)\n"};
    for (int c = 0; c < 2; c++) {
        if (c == 0)
            ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER,
                                                              &col32, sizeof col32),
                             CUBLAS_STATUS_SUCCESS);
        else
            ck_assert_int_eq(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                            &aux, sizeof aux),
                             CUBLAS_STATUS_SUCCESS);
        if (c == 1) {
            ck_assert_int_eq(cublasLtMatrixLayoutDestroy(l), CUBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 4, 4, 4),
                             CUBLAS_STATUS_SUCCESS);
        }
        struct capture cap;
        capture_begin(&cap, 2);
        cublasStatus_t st =
            cublasLtMatmul(lt, desc, &one, d, l, d, l, &zero, d, l, d, l, NULL, NULL, 0, 0);
        char *said = capture_end(&cap);
        ck_assert_int_eq(st, CUBLAS_STATUS_NOT_SUPPORTED);
        ck_assert_str_eq(said, said_want[c]);
        free(said);
    }
    cublasLtMatrixLayoutDestroy(l);
    cublasLtMatmulDescDestroy(desc);
    ck_assert_int_eq(cublasLtDestroy(lt), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaFree(d));
}
END_TEST

/* --- level 1, 2 and 3 beside GEMM, fp32 and fp64 -------------------------------------------- */

/* cublasS<fn> or cublasD<fn> by the element size @p elem (4 or 8): their arrays and scalars go
 * as void pointers, which C converts to float * or double * alike. */
#define SD(elem, fn, ...) ((elem) == 4 ? cublasS##fn(__VA_ARGS__) : cublasD##fn(__VA_ARGS__))

static const size_t elems[2] = {4, 8};

/** A scalar argument of either type. */
union scalar {
    float f;
    double d;
};

/* @p v as a scalar argument of @p elem bytes, kept in @p s. */
static void *scalar_as(size_t elem, double v, union scalar *s)
{
    if (elem == 4)
        s->f = (float)v;
    else
        s->d = v;
    return s;
}

/* @p n integers in [-4, 4] from @p seed: every sum and product below is exact in fp32. */
static void fill_small(double *h, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        h[i] = (double)((int)(mat_rand_next(&seed) % 9) - 4);
}

/* The @p n doubles at @p h as elements of @p elem bytes in new device memory. */
static void *upload_as(const double *h, size_t n, size_t elem)
{
    char *buf = mat_alloc(n * elem);
    for (size_t i = 0; i < n; i++)
        if (elem == 4)
            ((float *)buf)[i] = (float)h[i];
        else
            ((double *)buf)[i] = h[i];
    void *d = upload(buf, n * elem);
    free(buf);
    return d;
}

/* Overwrite the @p n elements at device address @p d with the doubles at @p h. */
static void reset_as(void *d, const double *h, size_t n, size_t elem)
{
    void *fresh = upload_as(h, n, elem);
    CUDA_CHECK(cudaMemcpy(d, fresh, n * elem, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaFree(fresh));
}

/* The @p n elements of @p elem bytes at device address @p d, as doubles into @p h. */
static void download_as(const void *d, size_t n, size_t elem, double *h)
{
    char *buf = mat_alloc(n * elem);
    CUDA_CHECK(cudaMemcpy(buf, d, n * elem, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        h[i] = elem == 4 ? ((float *)buf)[i] : ((double *)buf)[i];
    free(buf);
}

/* Element @p i of the device array @p d of @p elem-byte elements. */
static void *elem_at(void *d, size_t elem, size_t i)
{
    return (char *)d + i * elem;
}

/* Download @p n elements from @p d and assert each equals @p want's (NaN where it is NaN): the
 * strided gaps, padding and guards past the end included. */
static void check_as(const char *what, const void *d, size_t elem, const double *want, size_t n)
{
    double *got = mat_alloc(n * sizeof *got);
    download_as(d, n, elem, got);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i] || (isnan(got[i]) && isnan(want[i])),
                      "%s (%s): element %zu is %.17g, want %.17g", what, elem == 4 ? "S" : "D", i,
                      got[i], want[i]);
    free(got);
}

/* Where element @p i of a vector of @p n with increment @p inc is: BLAS walks a negative
 * increment from the far end. */
static size_t at(int i, int n, int inc)
{
    return (size_t)(inc > 0 ? i : n - 1 - i) * (size_t)abs(inc);
}

/* amax, amin and asum (results on the host and on the device), copy, swap and rot in fp32 and
 * fp64 at n = 1, 31 and 257 with increments 1, 2 and -3, against the host: a negative increment
 * walks its vector from the far end, a reduction of one is 0; elements between the strides and
 * past the vectors stay as they were. */
START_TEST(level1_against_host_every_increment)
{
    enum { LEN = 3 * 257 + 5 };
    static const int sizes[] = {1, 31, 257}, incs[][2] = {{1, 1}, {2, -3}, {-3, 2}};
    double *x0 = mat_alloc(LEN * 8), *y0 = mat_alloc(LEN * 8), *wx = mat_alloc(LEN * 8);
    double *wy = mat_alloc(LEN * 8);
    cublasHandle_t h = handle_new();
    for (int e = 0; e < 2; e++)
        for (int s = 0; s < 3; s++)
            for (int c = 0; c < 3; c++) {
                size_t elem = elems[e];
                int n = sizes[s], ix = incs[c][0], iy = incs[c][1], imax, imin;
                fill_small(x0, LEN, 100 + (uint64_t)(s * 3 + c)), fill_small(y0, LEN, 200);
                void *dx = upload_as(x0, LEN, elem), *dy = upload_as(y0, LEN, elem);
                union scalar sum, cs, sn;
                ck_assert_int_eq(elem == 4 ? cublasIsamax(h, n, dx, ix, &imax)
                                           : cublasIdamax(h, n, dx, ix, &imax),
                                 CUBLAS_STATUS_SUCCESS);
                ck_assert_int_eq(elem == 4 ? cublasIsamin(h, n, dx, ix, &imin)
                                           : cublasIdamin(h, n, dx, ix, &imin),
                                 CUBLAS_STATUS_SUCCESS);
                ck_assert_int_eq(SD(elem, asum, h, n, dx, ix, (void *)&sum), CUBLAS_STATUS_SUCCESS);
                int want_max = 0, want_min = 0;
                double want_sum = 0;
                for (int i = 0; i < n && ix > 0; i++) { /* 1-based, the first of equals */
                    double m = fabs(x0[at(i, n, ix)]);
                    want_max =
                        !want_max || m > fabs(x0[at(want_max - 1, n, ix)]) ? i + 1 : want_max;
                    want_min =
                        !want_min || m < fabs(x0[at(want_min - 1, n, ix)]) ? i + 1 : want_min;
                    want_sum += m;
                }
                ck_assert_msg(imax == want_max && imin == want_min &&
                                  (elem == 4 ? sum.f : sum.d) == want_sum,
                              "n %d incx %d: amax %d amin %d asum %g, want %d %d %g", n, ix, imax,
                              imin, elem == 4 ? sum.f : sum.d, want_max, want_min, want_sum);
                for (int op = 0; op < 3; op++) { /* copy, swap, rot (c = 3, s = -2) */
                    reset_as(dx, x0, LEN, elem), reset_as(dy, y0, LEN, elem);
                    memcpy(wx, x0, LEN * 8), memcpy(wy, y0, LEN * 8);
                    for (int i = 0; i < n; i++) {
                        double xi = x0[at(i, n, ix)], yi = y0[at(i, n, iy)];
                        wy[at(i, n, iy)] = op == 0 ? xi : op == 1 ? xi : 3 * yi + 2 * xi;
                        wx[at(i, n, ix)] = op == 0 ? xi : op == 1 ? yi : 3 * xi - 2 * yi;
                    }
                    cublasStatus_t st = op == 0 ? SD(elem, copy, h, n, dx, ix, dy, iy)
                                        : op == 1
                                            ? SD(elem, swap, h, n, dx, ix, dy, iy)
                                            : SD(elem, rot, h, n, dx, ix, dy, iy,
                                                 scalar_as(elem, 3, &cs), scalar_as(elem, -2, &sn));
                    ck_assert_int_eq(st, CUBLAS_STATUS_SUCCESS);
                    const char *what = op == 0 ? "copy" : op == 1 ? "swap" : "rot";
                    check_as(what, dx, elem, wx, LEN);
                    check_as(what, dy, elem, wy, LEN);
                }
                device_free(dx, dy, NULL, NULL);
            }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(x0), free(y0), free(wx), free(wy);
}
END_TEST

/* NaN into the triangle of the n x n matrix @p a (leading dimension @p ld) that a call with
 * @p upper does not read (and its diagonal too with @p unit_diag): reading it shows. */
static void poison_triangle(double *a, int n, int ld, int upper, int unit_diag)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if ((upper ? i > j : i < j) || (unit_diag && i == j))
                a[(size_t)j * ld + i] = NAN;
}

/* Element (i, j) of the symmetric matrix whose @p upper (or lower) triangle @p a holds. */
static double sym_at(const double *a, int ld, int upper, int i, int j)
{
    int stored = upper ? i <= j : i >= j;
    return stored ? a[(size_t)j * ld + i] : a[(size_t)i * ld + j];
}

/* gemv (both transposes; with beta 0 a NaN y is not read), ger, and symv (both triangles, the
 * other one NaN) in fp32 and fp64, A 33 x 31 with lda 36, increments 2 and -3, against the host;
 * what lies between the strides, past the vectors and in A's padding rows stays as it was. */
START_TEST(level2_gemv_ger_symv_against_host)
{
    enum { M = 33, N = 31, LDA = 36, INCX = 2, INCY = -3, LEN = 3 * 33 + 4, SA = LDA * 33 + 3 };
    double *a0 = mat_alloc(SA * 8), *x0 = mat_alloc(LEN * 8), *y0 = mat_alloc(LEN * 8);
    double *want = mat_alloc(SA * 8);
    cublasHandle_t h = handle_new();
    union scalar al, be;
    for (int e = 0; e < 2; e++) {
        size_t elem = elems[e];
        fill_small(a0, SA, 300), fill_small(x0, LEN, 301), fill_small(y0, LEN, 302);
        void *da = upload_as(a0, SA, elem), *dx = upload_as(x0, LEN, elem);
        void *dy = upload_as(y0, LEN, elem);
        for (int c = 0; c < 3; c++) { /* op N, op T, op N with beta 0 over a NaN y */
            int t = c == 1, xl = t ? M : N, yl = t ? N : M;
            double beta = c == 2 ? 0 : -2;
            for (int i = 0; i < LEN; i++)
                want[i] = c == 2 && i % 3 == 0 && i / 3 < yl ? NAN : y0[i];
            reset_as(dy, want, LEN, elem);
            for (int i = 0; i < yl; i++) {
                double acc = 0;
                for (int j = 0; j < xl; j++)
                    acc += (t ? a0[i * LDA + j] : a0[j * LDA + i]) * x0[at(j, xl, INCX)];
                want[at(i, yl, INCY)] = 3 * acc + (c == 2 ? 0 : beta * y0[at(i, yl, INCY)]);
            }
            ck_assert_int_eq(SD(elem, gemv, h, ops[t], M, N, scalar_as(elem, 3, &al), da, LDA, dx,
                                INCX, scalar_as(elem, beta, &be), dy, INCY),
                             CUBLAS_STATUS_SUCCESS);
            check_as(c == 2 ? "gemv, beta 0" : t ? "gemv T" : "gemv N", dy, elem, want, LEN);
        }
        reset_as(dy, y0, LEN, elem);
        memcpy(want, a0, SA * 8);
        for (int j = 0; j < N; j++) /* A = -2 x y^T + A over the 33 x 31 block */
            for (int i = 0; i < M; i++)
                want[j * LDA + i] += -2 * x0[at(i, M, INCX)] * y0[at(j, N, INCY)];
        ck_assert_int_eq(
            SD(elem, ger, h, M, N, scalar_as(elem, -2, &al), dx, INCX, dy, INCY, da, LDA),
            CUBLAS_STATUS_SUCCESS);
        check_as("ger", da, elem, want, SA);
        for (int upper = 0; upper < 2; upper++) { /* symv on the 33 x 33 matrix at a0 */
            double *sa = mat_alloc(SA * 8);
            memcpy(sa, a0, SA * 8);
            poison_triangle(sa, M, LDA, upper, 0);
            reset_as(da, sa, SA, elem), reset_as(dy, y0, LEN, elem);
            memcpy(want, y0, LEN * 8);
            for (int i = 0; i < M; i++) {
                double acc = 0;
                for (int j = 0; j < M; j++)
                    acc += sym_at(sa, LDA, upper, i, j) * x0[at(j, M, INCX)];
                want[at(i, M, INCY)] = 2 * acc - y0[at(i, M, INCY)];
            }
            ck_assert_int_eq(
                SD(elem, symv, h, upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, M,
                   scalar_as(elem, 2, &al), da, LDA, dx, INCX, scalar_as(elem, -1, &be), dy, INCY),
                CUBLAS_STATUS_SUCCESS);
            check_as(upper ? "symv U" : "symv L", dy, elem, want, LEN);
            free(sa);
        }
        device_free(da, dx, dy, NULL);
    }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(a0), free(x0), free(y0), free(want);
}
END_TEST

/* A triangular test matrix of order @p n: small integers off the diagonal and +-1, +-2 or +-4 on
 * it (division by them is exact), the triangle not read and a unit diagonal poisoned. */
static void triangle_fill(double *a, int n, int ld, size_t len, int upper, int unit, uint64_t seed)
{
    fill_small(a, len, seed);
    for (int i = 0; i < n; i++)
        a[(size_t)i * ld + i] = (i % 2 ? -1 : 1) * (double)(1 << (i % 3));
    poison_triangle(a, n, ld, upper, unit);
}

/* Element (i, j) of op(A) for a triangular A as @p upper, @p t and @p unit say (0 outside it). */
static double tri_at(const double *a, int ld, int upper, int t, int unit, int i, int j)
{
    int r = t ? j : i, c = t ? i : j;
    if (r == c)
        return unit ? 1 : a[(size_t)c * ld + r];
    return (upper ? r < c : r > c) ? a[(size_t)c * ld + r] : 0;
}

/* trmv and trsv for each triangle, transpose and diagonal in fp32 and fp64 at n = 1 and 33,
 * lda 37, increment -2: the triangle not read and a unit diagonal hold NaN, so reading either
 * shows; trsv solves op(A) x = b for b = op(A) x0 made on the host and must give x0 exactly. */
START_TEST(level2_trmv_trsv_against_host)
{
    enum { LDA = 37, INC = -2, LEN = 2 * 33 + 3, SA = LDA * 33 };
    static const int sizes[] = {1, 33};
    double *a = mat_alloc(SA * 8), *x0 = mat_alloc(LEN * 8), *want = mat_alloc(LEN * 8);
    cublasHandle_t h = handle_new();
    for (int e = 0; e < 2; e++)
        for (int c = 0; c < 16; c++) {
            size_t elem = elems[e];
            int n = sizes[c / 8], upper = c & 1, t = (c >> 1) & 1, unit = (c >> 2) & 1;
            cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
            cublasDiagType_t diag = unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
            triangle_fill(a, n, LDA, SA, upper, unit, 400 + (uint64_t)c);
            fill_small(x0, LEN, 500 + (uint64_t)c);
            memcpy(want, x0, LEN * 8);
            for (int i = 0; i < n; i++) { /* want = op(A) x0 */
                double acc = 0;
                for (int j = 0; j < n; j++)
                    acc += tri_at(a, LDA, upper, t, unit, i, j) * x0[at(j, n, INC)];
                want[at(i, n, INC)] = acc;
            }
            void *da = upload_as(a, SA, elem), *dx = upload_as(x0, LEN, elem);
            ck_assert_int_eq(SD(elem, trmv, h, uplo, ops[t], diag, n, da, LDA, dx, INC),
                             CUBLAS_STATUS_SUCCESS);
            check_as("trmv", dx, elem, want, LEN);
            /* dx now holds b = op(A) x0: trsv takes it back to x0 */
            ck_assert_int_eq(SD(elem, trsv, h, uplo, ops[t], diag, n, da, LDA, dx, INC),
                             CUBLAS_STATUS_SUCCESS);
            check_as("trsv", dx, elem, x0, LEN);
            device_free(da, dx, NULL, NULL);
        }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(a), free(x0), free(want);
}
END_TEST

/* symm for each side and triangle (the other one NaN), and syrk for each triangle and
 * transpose, in fp32 and fp64: B and C 33 x 31 with padded leading dimensions, against the host;
 * C's padding rows and, for syrk, its other triangle stay as they were. */
START_TEST(level3_symm_syrk_against_host)
{
    enum { M = 33, N = 31, K = 17, LDA = 36, LDB = 35, LDC = 38, SA = LDA * 33, SB = LDB * N };
    enum { SC = LDC * 33 + 5 };
    cublasHandle_t h = handle_new();
    union scalar al, be;
    double *a = mat_alloc(SA * 8), *b = mat_alloc(SB * 8), *c0 = mat_alloc(SC * 8);
    double *want = mat_alloc(SC * 8);
    for (int e = 0; e < 2; e++) {
        size_t elem = elems[e];
        fill_small(b, SB, 601), fill_small(c0, SC, 602);
        void *db = upload_as(b, SB, elem), *dc = upload_as(c0, SC, elem), *da = NULL;
        for (int c = 0; c < 4; c++) { /* symm: side left or right, upper or lower */
            int right = c >> 1, upper = c & 1, ka = right ? N : M;
            fill_small(a, SA, 610 + (uint64_t)c);
            poison_triangle(a, ka, LDA, upper, 0);
            da = upload_as(a, SA, elem);
            reset_as(dc, c0, SC, elem);
            memcpy(want, c0, SC * 8);
            for (int j = 0; j < N; j++)
                for (int i = 0; i < M; i++) {
                    double acc = 0;
                    for (int p = 0; p < ka; p++)
                        acc += right ? b[p * LDB + i] * sym_at(a, LDA, upper, p, j)
                                     : sym_at(a, LDA, upper, i, p) * b[j * LDB + p];
                    want[j * LDC + i] = 2 * acc - c0[j * LDC + i];
                }
            ck_assert_int_eq(SD(elem, symm, h, right ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT,
                                upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, M, N,
                                scalar_as(elem, 2, &al), da, LDA, db, LDB, scalar_as(elem, -1, &be),
                                dc, LDC),
                             CUBLAS_STATUS_SUCCESS);
            check_as(right ? "symm right" : "symm left", dc, elem, want, SC);
            CUDA_CHECK(cudaFree(da));
        }
        fill_small(a, SA, 620);
        da = upload_as(a, SA, elem);
        for (int c = 0; c < 4; c++) { /* syrk: C (M x M) = 2 op(A) op(A)^T - 3 C */
            int upper = c & 1, t = c >> 1;
            reset_as(dc, c0, SC, elem);
            memcpy(want, c0, SC * 8);
            for (int j = 0; j < M; j++)
                for (int i = upper ? 0 : j; i < (upper ? j + 1 : M); i++) {
                    double acc = 0;
                    for (int p = 0; p < K; p++) /* op(A) is M x K: A, or A^T of a K x M A */
                        acc += (t ? a[i * LDA + p] : a[p * LDA + i]) *
                               (t ? a[j * LDA + p] : a[p * LDA + j]);
                    want[j * LDC + i] = 2 * acc - 3 * c0[j * LDC + i];
                }
            ck_assert_int_eq(
                SD(elem, syrk, h, upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, ops[t],
                   M, K, scalar_as(elem, 2, &al), da, LDA, scalar_as(elem, -3, &be), dc, LDC),
                CUBLAS_STATUS_SUCCESS);
            check_as(t ? "syrk T" : "syrk N", dc, elem, want, SC);
        }
        device_free(da, db, dc, NULL);
    }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(a), free(b), free(c0), free(want);
}
END_TEST

/* trmm (out of place, and in place with C = B) and trsm for each side, triangle, transpose and
 * diagonal in fp32 and fp64, B 33 x 31 with padded leading dimensions: the triangle not read and
 * a unit diagonal hold NaN; trsm solves op(A) X = 2 B (or X op(A) = 2 B) for B made from X0 on
 * the host and must give 2 X0 exactly; padding rows stay as they were. */
START_TEST(level3_trmm_trsm_against_host)
{
    enum { M = 33, N = 31, LDA = 35, LDB = 34, LDC = 37, SA = LDA * 33, SB = LDB * N + 3 };
    enum { SC = LDC * N + 3 };
    double *a = mat_alloc(SA * 8), *x0 = mat_alloc(SB * 8), *b = mat_alloc(SB * 8);
    double *c0 = mat_alloc(SC * 8), *want = mat_alloc(SC * 8);
    cublasHandle_t h = handle_new();
    union scalar al;
    fill_small(x0, SB, 700), fill_small(c0, SC, 701);
    for (int e = 0; e < 2; e++)
        for (int c = 0; c < 16; c++) {
            size_t elem = elems[e];
            int right = c >> 3, upper = c & 1, t = (c >> 1) & 1, unit = (c >> 2) & 1;
            int ka = right ? N : M;
            cublasSideMode_t side = right ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
            cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
            cublasDiagType_t diag = unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
            triangle_fill(a, ka, LDA, SA, upper, unit, 710 + (uint64_t)c);
            memcpy(b, x0, SB * 8); /* b = op(A) X0 or X0 op(A), its padding X0's */
            for (int j = 0; j < N; j++)
                for (int i = 0; i < M; i++) {
                    double acc = 0;
                    for (int p = 0; p < ka; p++)
                        acc += right ? x0[p * LDB + i] * tri_at(a, LDA, upper, t, unit, p, j)
                                     : tri_at(a, LDA, upper, t, unit, i, p) * x0[j * LDB + p];
                    b[j * LDB + i] = acc;
                }
            void *da = upload_as(a, SA, elem), *dx = upload_as(x0, SB, elem);
            void *dc = upload_as(c0, SC, elem);
            memcpy(want, c0, SC * 8);
            for (int j = 0; j < N; j++)
                for (int i = 0; i < M; i++)
                    want[j * LDC + i] = -2 * b[j * LDB + i];
            ck_assert_int_eq(SD(elem, trmm, h, side, uplo, ops[t], diag, M, N,
                                scalar_as(elem, -2, &al), da, LDA, dx, LDB, dc, LDC),
                             CUBLAS_STATUS_SUCCESS);
            check_as("trmm", dc, elem, want, SC);
            check_as("trmm's B", dx, elem, x0, SB);
            ck_assert_int_eq(SD(elem, trmm, h, side, uplo, ops[t], diag, M, N,
                                scalar_as(elem, 1, &al), da, LDA, dx, LDB, dx, LDB),
                             CUBLAS_STATUS_SUCCESS);
            check_as("trmm in place", dx, elem, b, SB);
            /* dx now holds b: trsm with alpha 2 gives 2 X0 */
            for (size_t i = 0; i < SB; i++)
                want[i] = i % LDB < M && i < (size_t)LDB * N ? 2 * x0[i] : x0[i];
            ck_assert_int_eq(SD(elem, trsm, h, side, uplo, ops[t], diag, M, N,
                                scalar_as(elem, 2, &al), da, LDA, dx, LDB),
                             CUBLAS_STATUS_SUCCESS);
            check_as("trsm", dx, elem, want, SB);
            device_free(da, dx, dc, NULL);
        }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(a), free(x0), free(b), free(c0), free(want);
}
END_TEST

/* cublasHgemm, as C++ calls it, for every transpose pair at 33 x 31 x 40 with padded leading
 * dimensions: on small integers exactly the host's alpha op(A) op(B) + beta C, C's padding
 * untouched; on values that fp16 sums must round, bit for bit GemmEx's CUBLAS_COMPUTE_16F, and
 * cublasHgemm_64 bit for bit cublasHgemm. */
START_TEST(hgemm_is_gemm_ex_compute_16f)
{
    enum { M = 33, N = 31, K = 40, LD = 43, SZ = LD * 43 };
    int *ia = mat_alloc(SZ * sizeof *ia), *ib = mat_alloc(SZ * sizeof *ib);
    int *ic = mat_alloc(SZ * sizeof *ic);
    uint16_t *ha = mat_alloc(SZ * 2), *hb = mat_alloc(SZ * 2), *hc = mat_alloc(SZ * 2);
    uint16_t *got = mat_alloc(SZ * 2), *ex = mat_alloc(SZ * 2), *wide = mat_alloc(SZ * 2);
    uint64_t s = 800;
    for (int i = 0; i < SZ; i++) {
        ia[i] = (int)(mat_rand_next(&s) % 9) - 4;
        ib[i] = (int)(mat_rand_next(&s) % 9) - 4;
        ic[i] = (int)(mat_rand_next(&s) % 9) - 4;
    }
    store_ints(ia, SZ, F16, ha), store_ints(ib, SZ, F16, hb), store_ints(ic, SZ, F16, hc);
    void *da = upload(ha, SZ * 2), *db = upload(hb, SZ * 2), *dc = upload(hc, SZ * 2);
    cublasHandle_t h = handle_new();
    const uint16_t one = half_bits_of_int(1), two = half_bits_of_int(2);
    const uint16_t minus = half_bits_of_int(-1);
    for (int t = 0; t < 4; t++) {
        int ta = t >> 1, tb = t & 1;
        CUDA_CHECK(cudaMemcpy(dc, hc, SZ * 2, cudaMemcpyHostToDevice));
        ck_assert_int_eq(
            hgemm_bits(h, HGEMM, ops[ta], ops[tb], M, N, K, &two, da, LD, db, LD, &minus, dc, LD),
            CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(got, dc, SZ * 2, cudaMemcpyDeviceToHost));
        for (int j = 0; j < LD; j++)
            for (int i = 0; i < LD; i++) {
                long acc = 0;
                for (int p = 0; p < K && i < M && j < N; p++)
                    acc += (long)(ta ? ia[i * LD + p] : ia[p * LD + i]) *
                           (tb ? ib[p * LD + j] : ib[j * LD + p]);
                float want =
                    i < M && j < N ? (float)(2 * acc - ic[j * LD + i]) : (float)ic[j * LD + i];
                ck_assert_msg(float_of_half(got[j * LD + i]) == want,
                              "Hgemm %c%c: C(%d,%d) = %g, want %g", ta ? 'T' : 'N', tb ? 'T' : 'N',
                              i, j, float_of_half(got[j * LD + i]), want);
            }
    }
    for (int i = 0; i < SZ; i++) { /* [0, 32): sums of 40 products pass 2048, where fp16 rounds */
        ha[i] = half_bits_of_int((int)(mat_rand_next(&s) % 32));
        hb[i] = half_bits_of_int((int)(mat_rand_next(&s) % 32));
    }
    CUDA_CHECK(cudaMemcpy(da, ha, SZ * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, hb, SZ * 2, cudaMemcpyHostToDevice));
    uint16_t *strided = mat_alloc(SZ * 2), *batched = mat_alloc(SZ * 2);
    uint16_t *outs[] = {got, ex, wide, strided, batched};
    const int form[] = {HGEMM, -1, HGEMM_64, HGEMM_STRIDED_BATCHED, HGEMM_BATCHED}; /* 1: GemmEx */
    for (int call = 0; call < 5; call++) {
        CUDA_CHECK(cudaMemcpy(dc, hc, SZ * 2, cudaMemcpyHostToDevice));
        cublasStatus_t st =
            call == 1 ? cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, da, CUDA_R_16F, LD,
                                     db, CUDA_R_16F, LD, &minus, dc, CUDA_R_16F, LD,
                                     CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT)
                      : hgemm_bits(h, form[call], CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, da, LD,
                                   db, LD, &minus, dc, LD);
        ck_assert_int_eq(st, CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(outs[call], dc, SZ * 2, cudaMemcpyDeviceToHost));
    }
    int rounded = 0;
    for (int i = 0; i < SZ; i++) {
        ck_assert_msg(got[i] == ex[i] && got[i] == wide[i] && got[i] == strided[i] &&
                          got[i] == batched[i],
                      "element %d: Hgemm %#x, GemmEx %#x, Hgemm_64 %#x, HgemmStridedBatched %#x, "
                      "HgemmBatched %#x",
                      i, got[i], ex[i], wide[i], strided[i], batched[i]);
        rounded += float_of_half(got[i]) > 2048;
    }
    ck_assert_int_gt(rounded, M * N / 2);
    device_free(da, db, dc, NULL);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(ia), free(ib), free(ic), free(ha), free(hb), free(hc), free(got), free(ex), free(wide);
    free(strided), free(batched);
}
END_TEST

/* The _64 forms give what their int forms give (amax's index an int64_t), on one case each of
 * level 1, 2 and 3 and GEMM; a size past INT_MAX, which the GEMMs do not emulate, is refused in
 * one line before any operand is touched. */
START_TEST(sixty_four_bit_forms_match)
{
    enum { N = 37, LD = 41, SZ = LD * N + 3 };
    double *a = mat_alloc(SZ * 8), *b = mat_alloc(SZ * 8), *g32 = mat_alloc(SZ * 8);
    double *g64 = mat_alloc(SZ * 8);
    fill_small(a, SZ, 900), fill_small(b, SZ, 901);
    for (int i = 0; i < N; i++) /* a triangular solve of A's lower triangle stays exact */
        a[i * LD + i] = i % 2 ? -2 : 1;
    cublasHandle_t h = handle_new();
    union scalar al, be;
    for (int e = 0; e < 2; e++) {
        size_t elem = elems[e];
        void *da = upload_as(a, SZ, elem), *d32 = upload_as(b, SZ, elem);
        void *d64 = upload_as(b, SZ, elem);
        void *al_p = scalar_as(elem, 3, &al), *be_p = scalar_as(elem, -2, &be);
        for (int c = 0; c < 5; c++) {
            reset_as(d32, b, SZ, elem), reset_as(d64, b, SZ, elem);
            cublasStatus_t s32, s64;
            if (c == 0) {
                s32 = SD(elem, axpy, h, N, al_p, da, 3, d32, -2);
                s64 = SD(elem, axpy_64, h, N, al_p, da, 3, d64, -2);
            } else if (c == 1) {
                s32 = SD(elem, gemv, h, CUBLAS_OP_T, N, N - 2, al_p, da, LD, da, 1, be_p, d32, -1);
                s64 =
                    SD(elem, gemv_64, h, CUBLAS_OP_T, N, N - 2, al_p, da, LD, da, 1, be_p, d64, -1);
            } else if (c == 2) {
                s32 = SD(elem, trsm, h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                         CUBLAS_DIAG_NON_UNIT, N - 4, N, al_p, da, LD, d32, LD);
                s64 = SD(elem, trsm_64, h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                         CUBLAS_DIAG_NON_UNIT, N - 4, N, al_p, da, LD, d64, LD);
            } else if (c == 3) {
                s32 = SD(elem, syrk, h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, N, 5, al_p, da, LD,
                         be_p, d32, LD);
                s64 = SD(elem, syrk_64, h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, N, 5, al_p, da, LD,
                         be_p, d64, LD);
            } else {
                s32 = SD(elem, gemm, h, CUBLAS_OP_N, CUBLAS_OP_T, N, N - 1, 7, al_p, da, LD, da, LD,
                         be_p, d32, LD);
                s64 = SD(elem, gemm_64, h, CUBLAS_OP_N, CUBLAS_OP_T, N, N - 1, 7, al_p, da, LD, da,
                         LD, be_p, d64, LD);
            }
            ck_assert_int_eq(s32, CUBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(s64, CUBLAS_STATUS_SUCCESS);
            download_as(d32, SZ, elem, g32), download_as(d64, SZ, elem, g64);
            for (int i = 0; i < SZ; i++)
                ck_assert_msg(g32[i] == g64[i], "case %d (%s): element %d is %g, the _64 form's %g",
                              c, elem == 4 ? "S" : "D", i, g32[i], g64[i]);
            ck_assert_msg(memcmp(g32, b, SZ * 8) != 0, "case %d changed nothing", c);
        }
        int64_t i64 = -1;
        int i32 = -1;
        ck_assert_int_eq(elem == 4 ? cublasIsamax_64(h, N, da, 2, &i64)
                                   : cublasIdamax_64(h, N, da, 2, &i64),
                         CUBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(elem == 4 ? cublasIsamax(h, N, da, 2, &i32)
                                   : cublasIdamax(h, N, da, 2, &i32),
                         CUBLAS_STATUS_SUCCESS);
        ck_assert(i32 > 0 && i64 == i32);
        device_free(da, d32, d64, NULL);
    }
    float one = 1, *d;
    CUDA_CHECK(cudaMalloc((void **)&d, 16));
    struct capture cap;
    capture_begin(&cap, 2);
    cublasStatus_t st = cublasSgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, (int64_t)1 << 31, 1, 1, &one, d,
                                       (int64_t)1 << 31, d, 1, &one, d, (int64_t)1 << 31);
    char *said = capture_end(&cap);
    ck_assert_int_eq(st, CUBLAS_STATUS_NOT_SUPPORTED);
    ck_assert_str_eq(said, "emulator: cublasSgemm_v2_64: a size past INT_MAX is not emulated "
                           "(CUBLAS_STATUS_NOT_SUPPORTED)\n");
    free(said);
    CUDA_CHECK(cudaFree(d));
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(a), free(b), free(g32), free(g64);
}
END_TEST

/* A function the stand-in does not emulate answers CUBLAS_STATUS_NOT_SUPPORTED with one line
 * naming it (cuBLAS's, cuBLASLt's); nothing else happens, and the handle goes on working. */
START_TEST(stubs_say_not_emulated)
{
    float one = 1, *d;
    CUDA_CHECK(cudaMalloc((void **)&d, 64 * sizeof *d));
    cublasHandle_t h = handle_new();
    cublasLtMatrixTransformDesc_t desc;
    struct capture cap;
    capture_begin(&cap, 2);
    cublasStatus_t st =
        cublasSgbmv(h, CUBLAS_OP_N, 4, 4, 1, 1, &one, d, 3, d + 16, 1, &one, d + 32, 1);
    cublasStatus_t lt = cublasLtMatrixTransformDescCreate(&desc, CUDA_R_32F);
    char *said = capture_end(&cap);
    ck_assert_int_eq(st, CUBLAS_STATUS_NOT_SUPPORTED);
    ck_assert_int_eq(lt, CUBLAS_STATUS_NOT_SUPPORTED);
    ck_assert_str_eq(said,
                     "emulator: cublasSgbmv_v2 is not emulated (CUBLAS_STATUS_NOT_SUPPORTED)\n"
                     "emulator: cublasLtMatrixTransformDescCreate is not emulated "
                     "(CUBLAS_STATUS_NOT_SUPPORTED)\n");
    free(said);
    ck_assert_int_eq(cublasSscal(h, 4, &one, d, 1), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaFree(d));
}
END_TEST

/* Level 1's results into device memory and the scalars of levels 1 to 3 from it
 * (CUBLAS_POINTER_MODE_DEVICE) give what the host's give. */
START_TEST(level1_to_3_in_device_pointer_mode)
{
    enum { N = 29, LD = 31, SZ = LD * N };
    double *a = mat_alloc(SZ * 8), *host = mat_alloc(SZ * 8), *dev = mat_alloc(SZ * 8);
    const double scalars[] = {3, -2};
    fill_small(a, SZ, 950);
    for (int i = 0; i < N; i++)
        a[i * LD + i] = 1;
    cublasHandle_t h = handle_new();
    for (int e = 0; e < 2; e++) {
        size_t elem = elems[e];
        void *da = upload_as(a, SZ, elem), *dh = upload_as(a, SZ, elem);
        void *dd = upload_as(a, SZ, elem), *ds = upload_as(scalars, 2, elem);
        union scalar al, be, sum_h;
        void *al_p = scalar_as(elem, 3, &al), *be_p = scalar_as(elem, -2, &be);
        void *ds1 = elem_at(ds, elem, 1);
        int *di, i_h = 0, i_d = 0;
        CUDA_CHECK(cudaMalloc((void **)&di, sizeof *di));
        for (int on_dev = 0; on_dev < 2; on_dev++) { /* host scalars into dh, device's into dd */
            void *d = on_dev ? dd : dh, *s0 = on_dev ? ds : al_p, *s1 = on_dev ? ds1 : be_p;
            ck_assert_int_eq(cublasSetPointerMode(h, on_dev ? CUBLAS_POINTER_MODE_DEVICE
                                                            : CUBLAS_POINTER_MODE_HOST),
                             CUBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(SD(elem, rot, h, N, d, 1, elem_at(d, elem, LD), 2, s0, s1),
                             CUBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(SD(elem, symv, h, CUBLAS_FILL_MODE_LOWER, N, s0, da, LD, da, LD, s1,
                                elem_at(d, elem, 2 * LD), 1),
                             CUBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(SD(elem, trsm, h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER,
                                CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 5, N - 4, s0, da, LD,
                                elem_at(d, elem, 4 * LD), LD),
                             CUBLAS_STATUS_SUCCESS);
            int *imin = on_dev ? di : &i_h;
            ck_assert_int_eq(elem == 4 ? cublasIsamin(h, N, d, 1, imin)
                                       : cublasIdamin(h, N, d, 1, imin),
                             CUBLAS_STATUS_SUCCESS);
            ck_assert_int_eq(
                SD(elem, asum, h, N, d, 1, on_dev ? elem_at(dd, elem, SZ - 1) : (void *)&sum_h),
                CUBLAS_STATUS_SUCCESS);
        }
        ck_assert_int_eq(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST), CUBLAS_STATUS_SUCCESS);
        CUDA_CHECK(cudaMemcpy(&i_d, di, sizeof i_d, cudaMemcpyDeviceToHost));
        download_as(dh, SZ, elem, host), download_as(dd, SZ, elem, dev);
        ck_assert_int_eq(i_d, i_h);
        ck_assert(i_h > 0);
        ck_assert(dev[SZ - 1] == (elem == 4 ? sum_h.f : sum_h.d));
        for (int i = 0; i < SZ - 1; i++)
            ck_assert_msg(host[i] == dev[i],
                          "%s: element %d is %g on the host's scalars, %g on "
                          "the device's",
                          elem == 4 ? "S" : "D", i, host[i], dev[i]);
        ck_assert_msg(memcmp(host, a, (SZ - 1) * 8) != 0, "nothing changed");
        device_free(da, dh, dd, ds);
        CUDA_CHECK(cudaFree(di));
    }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(a), free(host), free(dev);
}
END_TEST

/* A call follows the work queued before it on its handle's stream: asum sees what a queued
 * memset wrote, and its device result is there for a copy queued after it. */
START_TEST(level1_follows_its_stream)
{
    enum { N = 67 };
    float ones[N], *d, sum = -1;
    for (int i = 0; i < N; i++)
        ones[i] = 1;
    d = upload(ones, sizeof ones);
    float *dsum = upload(&sum, sizeof sum);
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    cublasHandle_t h = handle_new();
    ck_assert_int_eq(cublasSetStream(h, s), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemsetAsync(d, 0, 30 * sizeof *d, s));
    ck_assert_int_eq(cublasSasum(h, N, d, 1, &sum), CUBLAS_STATUS_SUCCESS);
    ck_assert_float_eq(sum, N - 30);
    ck_assert_int_eq(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemsetAsync(d, 0, 40 * sizeof *d, s));
    ck_assert_int_eq(cublasSasum(h, N, d, 1, dsum), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaMemcpyAsync(&sum, dsum, sizeof sum, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    ck_assert_float_eq(sum, N - 40);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    CUDA_CHECK(cudaStreamDestroy(s));
    device_free(d, dsum, NULL, NULL);
}
END_TEST

/* Bad arguments to levels 1 to 3 are refused before anything is touched: a fill mode, side or
 * diagonal cuBLAS does not define, a short leading dimension, a zero increment, a dead handle;
 * an operand past its allocation fails the call with one line. */
START_TEST(level1_to_3_refuse_bad_arguments)
{
    float one = 1, *d;
    int i;
    CUDA_CHECK(cudaMalloc((void **)&d, 64 * sizeof *d));
    cublasHandle_t h = handle_new();
    ck_assert_int_eq(cublasSsymv(h, CUBLAS_FILL_MODE_FULL, 4, &one, d, 4, d, 1, &one, d, 1),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 (cublasDiagType_t)7, 4, 4, &one, d, 4, d, 4),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasStrmm(h, (cublasSideMode_t)2, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_UNIT, 4, 4, &one, d, 4, d, 4, d, 4),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(
        cublasSsyrk(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, 4, 5, &one, d, 4, &one, d, 4),
        CUBLAS_STATUS_INVALID_VALUE); /* A^T is 5 x 4: lda 4 < 5 */
    ck_assert_int_eq(cublasSger(h, 5, 2, &one, d, 1, d, 1, d, 4), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasScopy(h, 4, d, 0, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(
        cublasStrsv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, 4, d, 4, d, 0),
        CUBLAS_STATUS_INVALID_VALUE);
    struct capture cap;
    capture_begin(&cap, 2);
    cublasStatus_t st = cublasStrmv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, 9,
                                    d, 9, d, 1); /* 9 x 9 is 81 floats: past the 64 */
    char *said = capture_end(&cap);
    ck_assert_int_eq(st, CUBLAS_STATUS_EXECUTION_FAILED);
    ck_assert_msg(strstr(said, "cuBLAS trmv") && strchr(said, '\n') == said + strlen(said) - 1,
                  "not one line naming the call: %s", said);
    free(said);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasIsamax(h, 4, d, 1, &i), CUBLAS_STATUS_NOT_INITIALIZED);
    ck_assert_int_eq(cublasDsymm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, 1, 1, NULL, NULL, 1,
                                 NULL, 1, NULL, NULL, 1),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    CUDA_CHECK(cudaFree(d));
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
        {"compute_32f_half_operands_sum_in_k_order", compute_32f_half_operands_sum_in_k_order,
         CASE_CPU, 60},
        {"batched_gemms", batched_gemms, CASE_CPU, 60},
        {"dgemm_transposes_in_double", dgemm_transposes_in_double, CASE_CPU, 60},
        {"gemm_ex_int8_into_int32", gemm_ex_int8_into_int32, CASE_CPU, 60},
        {"dot_ex_every_real_type", dot_ex_every_real_type, CASE_CPU, 60},
        {"sgeam_transposes_and_in_place", sgeam_transposes_and_in_place, CASE_CPU, 60},
        {"level1_against_host", level1_against_host, CASE_CPU, 60},
        {"set_get_vector_and_matrix", set_get_vector_and_matrix, CASE_CPU, 60},
        {"lu_batched_against_host", lu_batched_against_host, CASE_CPU, 60},
        {"xt_and_dgemm_batched", xt_and_dgemm_batched, CASE_CPU, 60},
        {"lt_matmul_epilogues", lt_matmul_epilogues, CASE_CPU, 120},
        {"lt_matmul_row_major", lt_matmul_row_major, CASE_CPU, 60},
        {"lt_refuses_what_it_does_not_model", lt_refuses_what_it_does_not_model, CASE_CPU, 60},
        {"sgemv_transposes_and_strides", sgemv_transposes_and_strides, CASE_CPU, 60},
        {"bad_calls_refused", bad_calls_refused, CASE_CPU, 60},
        {"device_pointer_mode", device_pointer_mode, CASE_CPU, 60},
        {"level1_against_host_every_increment", level1_against_host_every_increment, CASE_CPU, 60},
        {"level2_gemv_ger_symv_against_host", level2_gemv_ger_symv_against_host, CASE_CPU, 60},
        {"level2_trmv_trsv_against_host", level2_trmv_trsv_against_host, CASE_CPU, 60},
        {"level3_symm_syrk_against_host", level3_symm_syrk_against_host, CASE_CPU, 60},
        {"level3_trmm_trsm_against_host", level3_trmm_trsm_against_host, CASE_CPU, 60},
        {"hgemm_is_gemm_ex_compute_16f", hgemm_is_gemm_ex_compute_16f, CASE_CPU, 60},
        {"sixty_four_bit_forms_match", sixty_four_bit_forms_match, CASE_CPU, 60},
        {"level1_to_3_in_device_pointer_mode", level1_to_3_in_device_pointer_mode, CASE_CPU, 60},
        {"level1_follows_its_stream", level1_follows_its_stream, CASE_CPU, 60},
        {"level1_to_3_refuse_bad_arguments", level1_to_3_refuse_bad_arguments, CASE_CPU, 60},
        {"stubs_say_not_emulated", stubs_say_not_emulated, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
