/**
 * @file course_half.c
 * @brief The judge's check of a 16-bit GEMM launcher (course_half.h).
 */
#include "course_half.h"

#include <check.h>
#include <stdlib.h>

#include "baseline.h"
#include "cuda_check.h"
#include "mat.h"
#include "ref.h"
#include "timer.h"

uint16_t *course_to16(float *x, size_t n, int bf16)
{
    uint16_t *h = mat_alloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++) {
        h[i] = bf16 ? ref_f32_to_bf16(x[i]) : ref_f32_to_f16(x[i]);
        x[i] = bf16 ? ref_bf16_to_f32(h[i]) : ref_f16_to_f32(h[i]);
    }
    return h;
}

struct mat_cmp course_half_gemm(struct course_runner *r, const char *name, int bf16, int M, int N,
                                int K, uint64_t seed, int uniform, size_t offset)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A, *B;
    course_gemm_inputs(na, nb, seed, uniform, &A, &B);
    double *want = mat_alloc(nc * sizeof *want), *scale = mat_alloc(nc * sizeof *scale);
    uint16_t *hA = course_to16(A, na, bf16), *hB = course_to16(B, nb, bf16);
    ref_matmul_f64(M, N, K, A, B, want);
    int a = course_buf_in(r, PROTO_DEVICE, hA, na * 2, offset);
    int b = course_buf_in(r, PROTO_DEVICE, hB, nb * 2, offset);
    /* C holds floats: a float a GPU can store is 4-byte aligned, so C moves in whole floats. */
    int c = course_buf_out(r, PROTO_DEVICE, nc * sizeof(float), (offset + 3) / 4 * 4);
    float *C = course_gemm_call(r, name, M, N, K, a, b, c);
    struct mat_cmp cmp;
    if (uniform) {
        ref_matmul_abs_f64(M, N, K, A, B, scale);
        cmp = mat_compare_scaled(C, want, scale, M, N, ref_gemm_tolerance(K, 0, REF_U_TC_ACC));
    } else {
        cmp = mat_compare_f64(C, want, M, N, 0, 0);
    }
    free(A);
    free(B);
    free(C);
    free(hA);
    free(hB);
    free(want);
    free(scale);
    return cmp;
}

void course_half_gemm_shapes(struct course_runner *r, const char *name, int bf16,
                             const int (*shapes)[3], size_t count, uint64_t seed, int uniform,
                             size_t offset)
{
    char why[160];
    for (size_t s = 0; s < count; s++) {
        const int *d = shapes[s];
        struct mat_cmp c =
            course_half_gemm(r, name, bf16, d[0], d[1], d[2], seed + s, uniform, offset);
        ck_assert_msg(c.n_bad == 0, "%s at M=%d N=%d K=%d (%s, pointers %zu bytes in): %s", name,
                      d[0], d[1], d[2], uniform ? "random, rounding rule" : "integers", offset,
                      mat_cmp_describe(&c, why, sizeof why));
    }
}

/* cuBLAS GemmEx at n x n x n, for the timer. */
struct timed_half {
    int n, bf16;
    const uint16_t *d_A, *d_B;
    float *d_C;
};

static void run_cublas_hgemm(void *arg)
{
    struct timed_half *t = arg;
    baseline_gemm_ex(t->n, t->n, t->n, t->d_A, t->d_B, t->bf16 ? CUDA_R_16BF : CUDA_R_16F, t->d_C);
}

double course_cublas_gemm16_ms(int bf16, int n)
{
    size_t elems = (size_t)n * n;
    struct timed_half t = {n, bf16, NULL, NULL, NULL};
    uint16_t *dA, *dB;
    CUDA_CHECK(cudaMalloc((void **)&dA, elems * 2));
    CUDA_CHECK(cudaMalloc((void **)&dB, elems * 2));
    CUDA_CHECK(cudaMalloc((void **)&t.d_C, elems * sizeof(float)));
    CUDA_CHECK(
        cudaMemset(dA, 0x3C, elems * 2)); /* 0x3C3C: finite, 1.06 in fp16 and 0.0115 in bf16 */
    CUDA_CHECK(cudaMemset(dB, 0x3C, elems * 2));
    t.d_A = dA;
    t.d_B = dB;
    struct timer_opts o = {2, 5, 1, 0};
    double ms = timer_measure(run_cublas_hgemm, &t, &o).median_ms;
    baseline_release();
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(t.d_C));
    return ms;
}

double course_half_time(struct course_runner *r, const char *name, int bf16, int n)
{
    static const int shape[][3] = {{128, 128, 128}};
    course_half_gemm_shapes(r, name, bf16, shape, 1, 900, 0, 0);
    size_t elems = (size_t)n * n;
    float *f = mat_alloc_f32(elems);
    mat_fill_int(f, elems, 5);
    uint16_t *h = course_to16(f, elems, bf16);
    int a = course_buf_in(r, PROTO_DEVICE, h, elems * 2, 0);
    int c = course_buf_out(r, PROTO_DEVICE, elems * sizeof(float), 0);
    const struct proto_arg args[] = {COURSE_I32(n), COURSE_I32(n), COURSE_I32(n),
                                     COURSE_PTR(a), COURSE_PTR(a), COURSE_PTR(c)};
    double ms = course_time(r, name, args, 6, 2, 5);
    course_buf_free(r, a);
    course_buf_free(r, c);
    free(f);
    free(h);
    return ms;
}
