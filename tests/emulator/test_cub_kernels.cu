/**
 * @file test_cub_kernels.cu
 * @brief CUB's DeviceReduce, DeviceScan and DeviceHistogram behind C functions, each with the
 *        two-call temporary-storage idiom: what lesson 09 measures its kernels against.
 *
 * The kernels are CUB's own (look-back scan, single-pass-or-two-pass reduction, privatised
 * histogram); this file only calls them.
 */
#include "test_cub.h"

#include <cub/cub.cuh>

/* Run CUB's call twice: with no storage it says how much it needs; then with that much. */
template <typename Call> static cudaError_t two_calls(Call call)
{
    void *d_temp = nullptr;
    size_t bytes = 0;
    cudaError_t err = call(d_temp, bytes);
    if (err != cudaSuccess)
        return err;
    err = cudaMalloc(&d_temp, bytes);
    if (err != cudaSuccess)
        return err;
    err = call(d_temp, bytes);
    cudaError_t sync = cudaDeviceSynchronize(); /* a fault in CUB's kernels shows here */
    cudaFree(d_temp);
    return err != cudaSuccess ? err : sync;
}

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
