/**
 * @file test_cdp.c
 * @brief The emulator's suite for separately compiled device code (-rdc=true, CMake's
 *        CUDA_SEPARABLE_COMPILATION) and dynamic parallelism, on test_cdp_kernels.cu and
 *        test_cdp_linked.cu, each case against the host.
 *
 * Two files, linked: device functions, variables (with an initialiser, and set by the host)
 * and a module-local string of the same name in each, kernels of both launched from the host. Sizes
 * 1, 33 and 1031, inputs small non-uniform integers, so results are exact and compared with ==.
 * Dynamic parallelism: kernels of one file launched from the other's, with a created stream,
 * dynamic shared memory, arguments of mixed alignment, a tail launch, and two children in one
 * stream whose order decides the result; launches the device refuses (nesting deeper than 24,
 * an invalid configuration, more waiting than cudaLimitDevRuntimePendingLaunchCount), each with
 * its device-side error and one line; a faulting child.
 *
 * CTest runs it with the emulator's libraries first on LD_LIBRARY_PATH, GPU or not.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "mat.h"
#include "test_cdp.h"

static const int sizes[] = {1, 33, 1031};

/* n small integers in [-50, 50], drawn from @p seed, on the host (*host) and the device. */
static int *device_ints(int n, uint64_t seed, int **host)
{
    int *v = mat_alloc((size_t)n * sizeof *v), *d;
    for (int i = 0; i < n; i++)
        v[i] = -50 + (int)(mat_rand_next(&seed) % 101);
    CUDA_CHECK(cudaMalloc((void **)&d, (size_t)n * sizeof *d));
    CUDA_CHECK(cudaMemcpy(d, v, (size_t)n * sizeof *d, cudaMemcpyHostToDevice));
    *host = v;
    return d;
}

/* ---- -rdc: two files linked ---------------------------------------------------------------- */

/* A kernel of each file, launched from the host: calls and variables across the two files, and a
 * string literal in each (both named $str in the PTX). */
START_TEST(two_files_linked)
{
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int n = sizes[t], bias = 5 + (int)t, *in, *d_in = device_ints(n, 71 + t, &in), *d_out;
        int *got = mat_alloc((size_t)n * sizeof *got);
        CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * sizeof *d_out));
        CUDA_CHECK(cdp_linked_map(d_in, n, bias, d_out));
        CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)n * sizeof *got, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            int x = in[i], want = 3 * x + 5 + (x & 3) - bias + x + 1 + (x & 3) + 7;
            ck_assert_msg(got[i] == want, "%s:%d n=%d element %d (in %d, bias %d): map %d, want %d",
                          __FILE__, __LINE__, n, i, x, bias, got[i], want);
        }
        CUDA_CHECK(cdp_linked_scale(d_in, n, d_out));
        CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)n * sizeof *got, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++)
            ck_assert_msg(got[i] == 7 * in[i], "%s:%d n=%d element %d (in %d): scale %d, want %d",
                          __FILE__, __LINE__, n, i, in[i], got[i], 7 * in[i]);
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(in), free(got);
    }
}
END_TEST

/* ---- dynamic parallelism ----------------------------------------------------------------------
 */

/* Children, a grandchild by tail launch and a second child in the same stream, launched from
 * device code across the two files: n = 1, 33, 1031 against the host. */
START_TEST(device_launches_against_host)
{
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int n = sizes[t], *in, *d_in = device_ints(n, 83 + t, &in), *d_out;
        int *got = mat_alloc((size_t)n * sizeof *got);
        CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * sizeof *d_out));
        CUDA_CHECK(cudaMemset(d_out, 0xFF, (size_t)n * sizeof *d_out));
        CUDA_CHECK(cdp_tree(d_in, n, d_out));
        CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)n * sizeof *got, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++)
            ck_assert_msg(got[i] == 2 * (3 * in[i] - 3 + 1),
                          "%s:%d n=%d element %d (in %d): %d, want %d", __FILE__, __LINE__, n, i,
                          in[i], got[i], 2 * (3 * in[i] - 3 + 1));
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(in), free(got);
    }
}
END_TEST

/* The reports since the last call (capture_reports_on()) are @p lines lines, one saying @p what. */
static void assert_lines(int lines, const char *what)
{
    char *text = capture_reports();
    int n = 0;
    for (const char *p = text; (p = strchr(p, '\n')); p++)
        n++;
    ck_assert_msg(strstr(text, what) && n == lines,
                  "%s:%d expected %d line(s), one saying \"%s\", got: %s", __FILE__, __LINE__,
                  lines, what, text);
    free(text);
}

/* A kernel launching itself without end: launches succeed to depth 23, and the one that would
 * make a 25th level is refused (cudaErrorLaunchMaxDepthExceeded), with one line; the host's
 * launch succeeds. */
START_TEST(nesting_too_deep_is_refused)
{
    capture_reports_on();
    int errs[32], *d_errs;
    CUDA_CHECK(cudaMalloc((void **)&d_errs, sizeof errs));
    CUDA_CHECK(cudaMemset(d_errs, 0xFF, sizeof errs));
    CUDA_CHECK(cdp_nest(d_errs));
    CUDA_CHECK(cudaMemcpy(errs, d_errs, sizeof errs, cudaMemcpyDeviceToHost));
    for (int d = 0; d < 32; d++) {
        int want = d < 23 ? cudaSuccess : d == 23 ? cudaErrorLaunchMaxDepthExceeded : -1;
        ck_assert_msg(errs[d] == want, "%s:%d depth %d: device cudaGetLastError %d, want %d",
                      __FILE__, __LINE__, d, errs[d], want);
    }
    assert_lines(1, "device-side launch refused (cudaError 65)");
    CUDA_CHECK(cudaFree(d_errs));
}
END_TEST

/* 37 threads each launch a child: an invalid configuration is refused; with
 * cudaLimitDevRuntimePendingLaunchCount set to 4, the fifth waiting launch and later ones are
 * refused (cudaErrorLaunchPendingCountExceeded); at the default, none is. The children that run
 * double their element. One line per kind of refusal. */
START_TEST(invalid_and_too_many_launches_are_refused)
{
    enum { T = 37 };
    capture_reports_on();
    int errs[T], scratch[T], *d_errs, *d_scratch;
    CUDA_CHECK(cudaMalloc((void **)&d_errs, sizeof errs));
    CUDA_CHECK(cudaMalloc((void **)&d_scratch, sizeof scratch));
    for (int limit = 4; limit <= 2048; limit += 2044) {
        int start[T];
        for (int t = 0; t < T; t++)
            start[t] = 5 + t % 7;
        CUDA_CHECK(cudaMemcpy(d_scratch, start, sizeof start, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, (size_t)limit));
        CUDA_CHECK(cdp_fanout(T, d_scratch, d_errs));
        CUDA_CHECK(cudaMemcpy(errs, d_errs, sizeof errs, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(scratch, d_scratch, sizeof scratch, cudaMemcpyDeviceToHost));
        for (int t = 0; t < T; t++) {
            int want = t == 0       ? cudaErrorInvalidConfiguration
                       : t <= limit ? cudaSuccess
                                    : cudaErrorLaunchPendingCountExceeded;
            int value = want == cudaSuccess ? 2 * start[t] : start[t];
            ck_assert_msg(errs[t] == want && scratch[t] == value,
                          "%s:%d limit %d, thread %d: error %d (want %d), element %d (want %d)",
                          __FILE__, __LINE__, limit, t, errs[t], want, scratch[t], value);
        }
        assert_lines(limit == 4 ? 2 : 1, "device-side launch refused (cudaError 9)");
    }
    CUDA_CHECK(cudaFree(d_errs));
    CUDA_CHECK(cudaFree(d_scratch));
}
END_TEST

/* A child that faults fails the host's launch (cudaErrorIllegalAddress) with one line naming the
 * child kernel. */
START_TEST(faulting_child_fails_the_launch)
{
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = cdp_child_fault();
    char *said = capture_end(&cap);
    ck_assert_msg(err == cudaErrorIllegalAddress && strstr(said, "cdp_double_kernel") &&
                      strchr(said, '\n') == strrchr(said, '\n'),
                  "%s:%d a child's store to 0x40: %s, printed: %s (want "
                  "cudaErrorIllegalAddress, one line naming cdp_double_kernel)",
                  __FILE__, __LINE__, cudaGetErrorName(err), said);
    free(said);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"two_files_linked", two_files_linked, CASE_GPU, 60},
        {"device_launches_against_host", device_launches_against_host, CASE_GPU, 60},
        {"nesting_too_deep_is_refused", nesting_too_deep_is_refused, CASE_GPU, 60},
        {"invalid_and_too_many_launches_are_refused", invalid_and_too_many_launches_are_refused,
         CASE_GPU, 60},
        {"faulting_child_fails_the_launch", faulting_child_fails_the_launch, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
