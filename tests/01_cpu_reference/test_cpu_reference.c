/**
 * @file test_cpu_reference.c
 * @brief Lesson 01's suite: each CPU version against the fp64 reference.
 */
#include <stdlib.h>

#include "course_test.h"
#include "cpu_reference.h"
#include "mat.h"
#include "ref.h"
#include "timer.h"

/* Run @p fn at every edge shape on small integers into a poisoned C; require equality. */
static void check_edges(bench_sgemm_fn fn, const char *name)
{
    for (size_t s = 0; s < course_gemm_shape_count; s++) {
        int M = course_gemm_shapes[s][0], N = course_gemm_shapes[s][1];
        int K = course_gemm_shapes[s][2];
        size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
        float *A = mat_alloc_f32(na), *B = mat_alloc_f32(nb), *C = mat_alloc_f32(nc);
        double *want = mat_alloc(nc * sizeof *want);
        mat_fill_int(A, na, 100 + s);
        mat_fill_int(B, nb, 200 + s);
        mat_poison(C, nc);
        ref_matmul_f64(M, N, K, A, B, want);
        fn(M, N, K, A, B, C);
        struct mat_cmp cmp = mat_compare_f64(C, want, M, N, 0, 0);
        char why[160];
        ck_assert_msg(cmp.n_bad == 0, "%s at M=%d N=%d K=%d: %s", name, M, N, K,
                      mat_cmp_describe(&cmp, why, sizeof why));
        free(A);
        free(B);
        free(C);
        free(want);
    }
}

START_TEST(naive_matches_reference)
{
    check_edges(matmul_naive, "matmul_naive");
}
END_TEST

START_TEST(reordered_matches_reference)
{
    check_edges(matmul_reordered, "matmul_reordered");
}
END_TEST

START_TEST(blocked_matches_reference)
{
    check_edges(matmul_blocked, "matmul_blocked");
}
END_TEST

/* On random floats the versions round differently, but each stays within
 * K * 2^-24 of the fp64 answer, relative to sum |a| |b| <= K for |a|,|b| < 1. */
START_TEST(versions_close_on_random_floats)
{
    const int M = 67, N = 45, K = 301;
    float *A = mat_alloc_f32((size_t)M * K), *B = mat_alloc_f32((size_t)K * N);
    float *C = mat_alloc_f32((size_t)M * N);
    double *want = mat_alloc((size_t)M * N * sizeof *want);
    mat_fill_uniform(A, (size_t)M * K, 5, -1, 1);
    mat_fill_uniform(B, (size_t)K * N, 6, -1, 1);
    ref_matmul_f64(M, N, K, A, B, want);
    bench_sgemm_fn fns[] = {matmul_naive, matmul_reordered, matmul_blocked};
    for (int v = 0; v < 3; v++) {
        mat_poison(C, (size_t)M * N);
        fns[v](M, N, K, A, B, C);
        struct mat_cmp cmp = mat_compare_f64(C, want, M, N, (double)K * K * 0x1p-24, 0);
        char why[160];
        ck_assert_msg(cmp.n_bad == 0, "version %d: %s", v, mat_cmp_describe(&cmp, why, sizeof why));
    }
    free(A);
    free(B);
    free(C);
    free(want);
}
END_TEST

/* A ratio measured in one run: the blocked version must beat the naive one
 * clearly (the benchmark shows 5x or more; the floor here is generous). */
START_TEST(blocked_faster_than_naive)
{
    const int n = 768;
    float *A = mat_alloc_f32((size_t)n * n), *B = mat_alloc_f32((size_t)n * n);
    float *C = mat_alloc_f32((size_t)n * n);
    mat_fill_int(A, (size_t)n * n, 1);
    mat_fill_int(B, (size_t)n * n, 2);
    struct timer_opts o = {1, 3, 0, 0};
    double naive_ms = bench_time_sgemm(matmul_naive, n, n, n, A, B, C, &o);
    double blocked_ms = bench_time_sgemm(matmul_blocked, n, n, n, A, B, C, &o);
    ck_assert_msg(blocked_ms * 2.0 < naive_ms,
                  "matmul_blocked %.1f ms is not 2x faster than matmul_naive %.1f ms at %d",
                  blocked_ms, naive_ms, n);
    free(A);
    free(B);
    free(C);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"naive_matches_reference", naive_matches_reference, CASE_CPU, 60},
        {"reordered_matches_reference", reordered_matches_reference, CASE_CPU, 60},
        {"blocked_matches_reference", blocked_matches_reference, CASE_CPU, 60},
        {"versions_close_on_random_floats", versions_close_on_random_floats, CASE_CPU, 30},
        {"blocked_faster_than_naive", blocked_faster_than_naive, CASE_CPU | CASE_PERF, 120},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
