/**
 * @file test_cub.c
 * @brief CUB's device-wide algorithms on the emulator, each against the host: the kernels
 *        lesson 06 is measured against must run wherever the course runs.
 *
 * cub::DeviceReduce::Sum (float and int), cub::DeviceScan::ExclusiveSum (int),
 * cub::DeviceHistogram::HistogramEven (256 bins over bytes), cub::DeviceRadixSort::SortPairs
 * (stable, on repeated keys) and cub::DeviceSelect::If and ::Flagged (in order), DeviceReduce
 * built for compute_80 too, through
 * test_cub_kernels.cu's two-call functions. Sizes are 1, 33, 1025, the prime 999983 (several
 * tiles and CUB's look-back across hundreds of blocks) and 2^24 + 3; sorting and selection,
 * slower on the emulator, stop at the prime 100003. Inputs are small non-uniform integers in
 * [-8, 7]: they average -0.5, so every partial sum stays an integer well inside float's 2^24
 * and every comparison is ==. Each output sits before a guard of GUARD elements that must keep
 * the bytes it was filled with.
 *
 * CTest runs it with the emulator's libraries first, GPU or not.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "mat.h"
#include "test_cub.h"

enum { GUARD = 64, POISON = 0xAB };

static const int sizes[] = {1, 33, 1025, 999983, (1 << 24) + 3};

/* Small integers in [-8, 7], drawn from @p seed: any sum of a million is exact in float. */
static int small_int(uint64_t *seed)
{
    return (int)(mat_rand_next(seed) % 16) - 8;
}

/* A device buffer of @p bytes + the guard, every byte POISON, with @p src copied to its start. */
static void *device_with_guard(const void *src, size_t bytes, size_t guard_bytes)
{
    void *d;
    CUDA_CHECK(cudaMalloc(&d, bytes + guard_bytes));
    CUDA_CHECK(cudaMemset(d, POISON, bytes + guard_bytes));
    if (src)
        CUDA_CHECK(cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* Copy @p bytes of @p d_out back into @p host and assert its guard kept every POISON byte. */
static void fetch_checked(void *host, const void *d_out, size_t bytes, size_t guard_bytes,
                          const char *what, int n)
{
    unsigned char *all = mat_alloc(bytes + guard_bytes);
    CUDA_CHECK(cudaMemcpy(all, d_out, bytes + guard_bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < guard_bytes; i++)
        ck_assert_msg(all[bytes + i] == POISON,
                      "%s n=%d: guard byte %zu after the output is 0x%02x", what, n, i,
                      all[bytes + i]);
    memcpy(host, all, bytes);
    free(all);
}

START_TEST(reduce_sum_float_and_int)
{
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        uint64_t seed = 17 + (uint64_t)n;
        float *f = mat_alloc_f32((size_t)n);
        int *v = mat_alloc((size_t)n * sizeof *v);
        long long want = 0;
        for (int i = 0; i < n; i++) {
            v[i] = small_int(&seed);
            f[i] = (float)v[i];
            want += v[i];
        }
        float *d_f = device_with_guard(f, (size_t)n * 4, 0), got_f;
        int *d_v = device_with_guard(v, (size_t)n * 4, 0), got_v;
        float *d_fsum = device_with_guard(NULL, 4, GUARD);
        int *d_vsum = device_with_guard(NULL, 4, GUARD);
        CUDA_CHECK(cub_sum_float(d_f, d_fsum, n));
        CUDA_CHECK(cub_sum_int(d_v, d_vsum, n));
        fetch_checked(&got_f, d_fsum, 4, GUARD, "DeviceReduce::Sum<float>", n);
        fetch_checked(&got_v, d_vsum, 4, GUARD, "DeviceReduce::Sum<int>", n);
        ck_assert_msg(got_f == (float)want, "DeviceReduce::Sum<float> n=%d: %.1f, want %lld", n,
                      (double)got_f, want);
        ck_assert_msg(got_v == want, "DeviceReduce::Sum<int> n=%d: %d, want %lld", n, got_v, want);
        CUDA_CHECK(cudaFree(d_f));
        CUDA_CHECK(cudaFree(d_v));
        CUDA_CHECK(cudaFree(d_fsum));
        CUDA_CHECK(cudaFree(d_vsum));
        free(f);
        free(v);
    }
}
END_TEST

/* Built for compute_80, CUB runs and sums as it does built for compute_90: the PTX version a
 * kernel reports is its PTX's (80), the one CUB's dispatch looks for among those it was built for
 * (where the emulator answered 90 for every kernel, CUB refused with invalid device function). */
START_TEST(reduce_sum_built_for_sm_80)
{
    ck_assert_int_eq(ptx_version_sm80(), 80);
    int n = 999983;
    uint64_t seed = 29;
    int *v = mat_alloc((size_t)n * sizeof *v);
    long long want = 0;
    for (int i = 0; i < n; i++)
        want += v[i] = small_int(&seed);
    int *d_v = device_with_guard(v, (size_t)n * 4, 0), *d_sum = device_with_guard(NULL, 4, GUARD),
        got;
    CUDA_CHECK(cub_sum_int_sm80(d_v, d_sum, n));
    fetch_checked(&got, d_sum, 4, GUARD, "DeviceReduce::Sum<int> (compute_80)", n);
    ck_assert_msg(got == want, "DeviceReduce::Sum<int> (compute_80) n=%d: %d, want %lld", n, got,
                  want);
    CUDA_CHECK(cudaFree(d_v));
    CUDA_CHECK(cudaFree(d_sum));
    free(v);
}
END_TEST

START_TEST(exclusive_sum_int)
{
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        uint64_t seed = 29 + (uint64_t)n;
        int *v = mat_alloc((size_t)n * sizeof *v), *got = mat_alloc((size_t)n * sizeof *got);
        for (int i = 0; i < n; i++)
            v[i] = small_int(&seed);
        int *d_in = device_with_guard(v, (size_t)n * 4, 0);
        int *d_out = device_with_guard(NULL, (size_t)n * 4, GUARD * 4);
        CUDA_CHECK(cub_exclusive_sum(d_in, d_out, n));
        fetch_checked(got, d_out, (size_t)n * 4, GUARD * 4, "DeviceScan::ExclusiveSum", n);
        /* The first wrong element, then one assert (Check marks every assert it passes). */
        int want = 0, i = 0;
        for (; i < n && got[i] == want; i++)
            want += v[i];
        ck_assert_msg(i == n, "DeviceScan::ExclusiveSum n=%d: out[%d] = %d, want %d", n, i,
                      i < n ? got[i] : 0, want);
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(v);
        free(got);
    }
}
END_TEST

/* HistogramEven over n bytes from @p byte_of(i, seed), against the host's count. */
static void check_histogram(int n, int hot, const char *shape)
{
    uint64_t seed = 41 + (uint64_t)n;
    unsigned char *b = mat_alloc((size_t)n);
    int want[256] = {0}, got[256];
    for (int i = 0; i < n; i++) {
        b[i] = hot >= 0 ? (unsigned char)hot : (unsigned char)(mat_rand_next(&seed) >> 24);
        want[b[i]]++;
    }
    unsigned char *d_in = device_with_guard(b, (size_t)n, 0);
    int *d_hist = device_with_guard(NULL, sizeof got, GUARD * 4);
    CUDA_CHECK(cub_histogram_256(d_in, d_hist, n));
    fetch_checked(got, d_hist, sizeof got, GUARD * 4, "DeviceHistogram::HistogramEven", n);
    for (int k = 0; k < 256; k++)
        ck_assert_msg(got[k] == want[k],
                      "DeviceHistogram::HistogramEven %s n=%d: bin %d = %d, want %d", shape, n, k,
                      got[k], want[k]);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_hist));
    free(b);
}

START_TEST(histogram_even_uniform_and_one_bin)
{
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        check_histogram(sizes[s], -1, "uniform");
        check_histogram(sizes[s], 200, "all in bin 200");
    }
}
END_TEST

/* Sizes for sorting and selection: every radix pass over several tiles, fast on the emulator. */
static const int sort_sizes[] = {1, 33, 1025, 100003};

/* Order (key, index) pairs: by key, then by index (what a stable sort keeps). */
static int by_key_then_index(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Keys in [-1000, 1000), many repeated, with their indices as values: a stable sort's result is
 * the host's sort by (key, index). */
START_TEST(radix_sort_pairs_stable)
{
    for (size_t s = 0; s < sizeof sort_sizes / sizeof *sort_sizes; s++) {
        int n = sort_sizes[s];
        uint64_t seed = 43 + (uint64_t)n;
        int *keys = mat_alloc((size_t)n * 4), *idx = mat_alloc((size_t)n * 4);
        int *pairs = mat_alloc((size_t)n * 8), *gk = mat_alloc((size_t)n * 4);
        int *gv = mat_alloc((size_t)n * 4);
        for (int i = 0; i < n; i++) {
            keys[i] = (int)(mat_rand_next(&seed) % 2000) - 1000, idx[i] = i;
            pairs[2 * i] = keys[i], pairs[2 * i + 1] = i;
        }
        qsort(pairs, (size_t)n, 8, by_key_then_index);
        int *d_k = device_with_guard(keys, (size_t)n * 4, 0);
        int *d_v = device_with_guard(idx, (size_t)n * 4, 0);
        int *d_ko = device_with_guard(NULL, (size_t)n * 4, GUARD * 4);
        int *d_vo = device_with_guard(NULL, (size_t)n * 4, GUARD * 4);
        CUDA_CHECK(cub_sort_pairs(d_k, d_ko, d_v, d_vo, n));
        fetch_checked(gk, d_ko, (size_t)n * 4, GUARD * 4, "DeviceRadixSort::SortPairs keys", n);
        fetch_checked(gv, d_vo, (size_t)n * 4, GUARD * 4, "DeviceRadixSort::SortPairs values", n);
        int i = 0;
        while (i < n && gk[i] == pairs[2 * i] && gv[i] == pairs[2 * i + 1])
            i++;
        ck_assert_msg(i == n, "DeviceRadixSort::SortPairs n=%d: out[%d] = (%d, %d), want (%d, %d)",
                      n, i, i < n ? gk[i] : 0, i < n ? gv[i] : 0, i < n ? pairs[2 * i] : 0,
                      i < n ? pairs[2 * i + 1] : 0);
        CUDA_CHECK(cudaFree(d_k));
        CUDA_CHECK(cudaFree(d_v));
        CUDA_CHECK(cudaFree(d_ko));
        CUDA_CHECK(cudaFree(d_vo));
        free(keys), free(idx), free(pairs), free(gk), free(gv);
    }
}
END_TEST

/* @p got[0 .. count) against the values of @p v whose @p keep is set, in order. */
static void check_selected(const int *v, const char *keep, int n, const int *got, int count,
                           const char *what)
{
    int want = 0, i = 0;
    for (int j = 0; j < n; j++)
        want += keep[j] != 0;
    ck_assert_msg(count == want, "%s n=%d: %d selected, want %d", what, n, count, want);
    for (int j = 0; j < n; j++)
        if (keep[j]) {
            ck_assert_msg(got[i] == v[j], "%s n=%d: out[%d] = %d, want in[%d] = %d", what, n, i,
                          got[i], j, v[j]);
            i++;
        }
}

/* DeviceSelect::If (the even values) and ::Flagged (a flag drawn per value), in order. */
START_TEST(select_if_and_flagged)
{
    for (size_t s = 0; s < sizeof sort_sizes / sizeof *sort_sizes; s++) {
        int n = sort_sizes[s], count;
        uint64_t seed = 47 + (uint64_t)n;
        int *v = mat_alloc((size_t)n * 4), *got = mat_alloc((size_t)n * 4);
        char *even = mat_alloc((size_t)n), *flags = mat_alloc((size_t)n);
        for (int i = 0; i < n; i++) {
            v[i] = small_int(&seed) * 1000 + i % 1000;
            even[i] = v[i] % 2 == 0, flags[i] = (char)(mat_rand_next(&seed) % 3 == 0);
        }
        int *d_in = device_with_guard(v, (size_t)n * 4, 0);
        char *d_flags = device_with_guard(flags, (size_t)n, 0);
        int *d_out = device_with_guard(NULL, (size_t)n * 4, GUARD * 4);
        int *d_count = device_with_guard(NULL, 4, GUARD);
        CUDA_CHECK(cub_select_even(d_in, d_out, d_count, n));
        fetch_checked(&count, d_count, 4, GUARD, "DeviceSelect::If count", n);
        fetch_checked(got, d_out, (size_t)n * 4, GUARD * 4, "DeviceSelect::If", n);
        check_selected(v, even, n, got, count, "DeviceSelect::If");
        CUDA_CHECK(cub_select_flagged(d_in, d_flags, d_out, d_count, n));
        fetch_checked(&count, d_count, 4, GUARD, "DeviceSelect::Flagged count", n);
        fetch_checked(got, d_out, (size_t)n * 4, GUARD * 4, "DeviceSelect::Flagged", n);
        check_selected(v, flags, n, got, count, "DeviceSelect::Flagged");
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_flags));
        CUDA_CHECK(cudaFree(d_out));
        CUDA_CHECK(cudaFree(d_count));
        free(v), free(got), free(even), free(flags);
    }
}
END_TEST

/* The sanitizer's four checks (./course sanitize's) report nothing on CUB's kernels: shared
 * atomics on one histogram bin are no race. Turned on before this process's first CUDA call. */
START_TEST(clean_under_every_check)
{
    capture_checks_on();
    int n = 1025;
    unsigned char *d_bytes = device_with_guard(NULL, (size_t)n, 0);
    int *d_in = device_with_guard(NULL, (size_t)n * 4, 0), *d_out, *d_sum, *d_hist;
    CUDA_CHECK(cudaMemset(d_bytes, 7, (size_t)n));
    CUDA_CHECK(cudaMemset(d_in, 1, (size_t)n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_sum, 4));
    CUDA_CHECK(cudaMalloc((void **)&d_hist, 256 * 4));
    CUDA_CHECK(cub_sum_int(d_in, d_sum, n));
    CUDA_CHECK(cub_exclusive_sum(d_in, d_out, n));
    CUDA_CHECK(cub_histogram_256(d_bytes, d_hist, n));
    capture_assert_no_reports("test_cub.c: CUB's sum, scan and histogram kernels, n=1025");
    CUDA_CHECK(cudaFree(d_bytes));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_sum));
    CUDA_CHECK(cudaFree(d_hist));
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"reduce_sum_float_and_int", reduce_sum_float_and_int, CASE_GPU, 120},
        {"reduce_sum_built_for_sm_80", reduce_sum_built_for_sm_80, CASE_GPU, 120},
        {"exclusive_sum_int", exclusive_sum_int, CASE_GPU, 120},
        {"histogram_even_uniform_and_one_bin", histogram_even_uniform_and_one_bin, CASE_GPU, 120},
        {"radix_sort_pairs_stable", radix_sort_pairs_stable, CASE_GPU, 120},
        {"select_if_and_flagged", select_if_and_flagged, CASE_GPU, 120},
        {"clean_under_every_check", clean_under_every_check, CASE_GPU, 120},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
