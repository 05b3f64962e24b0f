/**
 * @file test_cub_kernels.cu
 * @brief CUB's DeviceReduce, DeviceScan, DeviceHistogram, DeviceRadixSort and DeviceSelect
 *        behind C functions, each with the
 *        two-call temporary-storage idiom: what lesson 06 measures its kernels against.
 *
 * The kernels are CUB's own (look-back scan, single-pass-or-two-pass reduction, privatised
 * histogram); this file only calls them.
 */
#include "test_cub.h"
#include "test_cub_calls.cuh"

#include <cub/cub.cuh>

cudaError_t cub_sum_float(const float *d_in, float *d_out, int n)
{
    return two_calls(
        [=](void *t, size_t &b) { return cub::DeviceReduce::Sum(t, b, d_in, d_out, n); });
}

cudaError_t cub_sum_int(const int *d_in, int *d_out, int n)
{
    return two_calls(
        [=](void *t, size_t &b) { return cub::DeviceReduce::Sum(t, b, d_in, d_out, n); });
}

cudaError_t cub_exclusive_sum(const int *d_in, int *d_out, int n)
{
    return two_calls(
        [=](void *t, size_t &b) { return cub::DeviceScan::ExclusiveSum(t, b, d_in, d_out, n); });
}

cudaError_t cub_histogram_256(const unsigned char *d_in, int *d_hist, int n)
{
    /* 257 levels: bin b holds the values in [b, b + 1). */
    return two_calls([=](void *t, size_t &b) {
        return cub::DeviceHistogram::HistogramEven(t, b, d_in, d_hist, 257, 0, 256, n);
    });
}

cudaError_t cub_sort_pairs(const int *d_keys_in, int *d_keys_out, const int *d_values_in,
                           int *d_values_out, int n)
{
    return two_calls([=](void *t, size_t &b) {
        return cub::DeviceRadixSort::SortPairs(t, b, d_keys_in, d_keys_out, d_values_in,
                                               d_values_out, n);
    });
}

/* The predicate DeviceSelect::If keeps. */
struct is_even {
    __device__ bool operator()(int v) const
    {
        return v % 2 == 0;
    }
};

cudaError_t cub_select_even(const int *d_in, int *d_out, int *d_count, int n)
{
    return two_calls([=](void *t, size_t &b) {
        return cub::DeviceSelect::If(t, b, d_in, d_out, d_count, n, is_even());
    });
}

cudaError_t cub_select_flagged(const int *d_in, const char *d_flags, int *d_out, int *d_count,
                               int n)
{
    return two_calls([=](void *t, size_t &b) {
        return cub::DeviceSelect::Flagged(t, b, d_in, d_flags, d_out, d_count, n);
    });
}
