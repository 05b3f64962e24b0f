/**
 * @file test_cdp.c
 * @brief The emulator's suite for separately compiled device code (-rdc=true, CMake's
 *        CUDA_SEPARABLE_COMPILATION) and dynamic parallelism, on test_cdp_kernels.cu and
 *        test_cdp_linked.cu, each case against the host.
 *
 * Two files, linked: device functions, variables (with an initialiser, and set by the host)
 * and a module-local string of the same name in each, kernels of both launched from the host. Sizes
 * 1, 33 and 1031, inputs small non-uniform integers, so results are exact and compared with ==.
 *
 * CTest runs it with the emulator's libraries first on LD_LIBRARY_PATH, GPU or not.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"two_files_linked", two_files_linked, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
