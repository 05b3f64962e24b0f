/**
 * @file cub_yardstick.cu
 * @brief Lesson 06's yardstick: CUB's device-wide calls (see cub_yardstick.h).
 *
 * Each is CUB's two-call idiom: called with a NULL buffer, it says how much temporary storage
 * it needs; allocate that; call again to do the work; free it.
 */
#include "cub_yardstick.h"

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda_check.h"

/* One bin per byte value. */
enum { BINS = 256 };

/* cudaMalloc that checks, for temporary storage. */
static void *device_alloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes > 0 ? bytes : 1));
    return p;
}

extern "C" void reduce_cub(const float *d_x, int n, float *d_out)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(NULL, bytes, d_x, d_out, n));
    void *d_temp = device_alloc(bytes);
    CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, bytes, d_x, d_out, n));
    CUDA_CHECK(cudaFree(d_temp));
}

extern "C" void scan_cub(const int *d_in, int n, int *d_out)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, d_in, d_out, n));
    void *d_temp = device_alloc(bytes);
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(d_temp, bytes, d_in, d_out, n));
    CUDA_CHECK(cudaFree(d_temp));
}

extern "C" void histogram_cub(const unsigned char *d_data, int n, unsigned int *d_bins)
{
    /* 257 levels from 0 to 256: bin b holds [b, b + 1) */
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(NULL, bytes, d_data, d_bins, BINS + 1, 0,
                                                   (int)BINS, n));
    void *d_temp = device_alloc(bytes);
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(d_temp, bytes, d_data, d_bins, BINS + 1, 0,
                                                   (int)BINS, n));
    CUDA_CHECK(cudaFree(d_temp));
}
