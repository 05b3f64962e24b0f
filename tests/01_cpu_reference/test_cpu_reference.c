/**
 * @file test_cpu_reference.c
 * @brief Lesson 01's suite: each CPU version against the fp64 reference, run in the runner.
 */
#include <stdlib.h>

#include "course_judge.h"
#include "course_test.h"
#include "mat.h"
#include "ref.h"

static void check_edges(const char *name, uint64_t seed)
{
    struct course_runner *r = course_runner_start(COURSE_CPU);
    course_judge_sgemm_edges(r, name, seed);
    course_runner_stop(r);
}

START_TEST(naive_matches_reference)
{
    check_edges("matmul_naive", 100);
}
END_TEST

START_TEST(reordered_matches_reference)
{
    check_edges("matmul_reordered", 200);
}
END_TEST

START_TEST(blocked_matches_reference)
{
    check_edges("matmul_blocked", 300);
}
END_TEST

/* On random floats the versions round differently, but each stays within
 * K * 2^-24 of the fp64 answer, relative to sum |a| |b| <= K for |a|,|b| < 1. */
START_TEST(versions_close_on_random_floats)
{
    const int M = 67, N = 45, K = 301;
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = mat_alloc_f32(na), *B = mat_alloc_f32(nb);
    double *want = mat_alloc(nc * sizeof *want);
    mat_fill_uniform(A, na, 5, -1, 1);
    mat_fill_uniform(B, nb, 6, -1, 1);
    ref_matmul_f64(M, N, K, A, B, want);
    struct course_runner *r = course_runner_start(COURSE_CPU);
    int a = course_buf_in(r, PROTO_HOST, A, na * sizeof(float), 0);
    int b = course_buf_in(r, PROTO_HOST, B, nb * sizeof(float), 0);
    const char *versions[] = {"matmul_naive", "matmul_reordered", "matmul_blocked"};
    for (int v = 0; v < 3; v++) {
        int c = course_buf_out(r, PROTO_HOST, nc * sizeof(float), 0);
        COURSE_CALL(r, versions[v], PROTO_VOID, COURSE_I32(M), COURSE_I32(N), COURSE_I32(K),
                    COURSE_PTR(a), COURSE_PTR(b), COURSE_PTR(c));
        float *C = course_buf_read(r, c, versions[v]);
        struct mat_cmp cmp = mat_compare_f64(C, want, M, N, (double)K * K * 0x1p-24, 0);
        char why[160];
        ck_assert_msg(cmp.n_bad == 0, "%s: %s", versions[v],
                      mat_cmp_describe(&cmp, why, sizeof why));
        course_buf_free(r, c);
        free(C);
    }
    course_runner_stop(r);
    free(A);
    free(B);
    free(want);
}
END_TEST

/* A ratio measured in one run: the blocked version must beat the naive one
 * clearly (the benchmark shows 5x or more; the floor here is generous). */
START_TEST(blocked_faster_than_naive)
{
    const int n = 768;
    struct course_runner *r = course_runner_start(COURSE_CPU);
    /* A fast wrong version proves nothing: first the answers, then the times. */
    static const int shape[][3] = {{129, 65, 63}};
    course_judge_sgemm_shapes(r, "matmul_naive", shape, 1, 1, 0);
    course_judge_sgemm_shapes(r, "matmul_blocked", shape, 1, 2, 0);
    double naive_ms = course_judge_time_sgemm(r, "matmul_naive", n, n, n);
    double blocked_ms = course_judge_time_sgemm(r, "matmul_blocked", n, n, n);
    ck_assert_msg(blocked_ms * 2.0 < naive_ms,
                  "matmul_blocked %.1f ms is not 2x faster than matmul_naive %.1f ms at %d",
                  blocked_ms, naive_ms, n);
    course_runner_stop(r);
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
