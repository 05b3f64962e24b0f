/**
 * @file test_cub.h
 * @brief CUB's device-wide algorithms behind C functions (test_cub_kernels.cu), for the suite
 *        that runs them on the emulator (test_cub.c).
 *
 * Each function takes device buffers, runs CUB's two-call idiom (ask for the temporary
 * storage, allocate it, run, free it) and returns the first error any of those calls gave.
 */
#ifndef TEST_CUB_H
#define TEST_CUB_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/** *d_out = the sum of d_in[0 .. n) (cub::DeviceReduce::Sum). */
cudaError_t cub_sum_float(const float *d_in, float *d_out, int n);
cudaError_t cub_sum_int(const int *d_in, int *d_out, int n);

/** d_out[i] = d_in[0] + ... + d_in[i - 1], d_out[0] = 0 (cub::DeviceScan::ExclusiveSum). */
cudaError_t cub_exclusive_sum(const int *d_in, int *d_out, int n);

/** d_hist[b] = how many of d_in[0 .. n) equal b, for 256 bins of one byte value each
 *  (cub::DeviceHistogram::HistogramEven over [0, 256)). */
cudaError_t cub_histogram_256(const unsigned char *d_in, int *d_hist, int n);

/** Sort (key, value) pairs by key, ascending (cub::DeviceRadixSort::SortPairs); the sort is
 *  stable, so equal keys keep their values' order. */
cudaError_t cub_sort_pairs(const int *d_keys_in, int *d_keys_out, const int *d_values_in,
                           int *d_values_out, int n);

/** cub_sum_int built for compute_80 (test_cub_sm80_kernels.cu). */
cudaError_t cub_sum_int_sm80(const int *d_in, int *d_out, int n);

/** The ptxVersion cudaFuncGetAttributes gives a kernel of that file (80 on any GPU that runs
 *  it), or -1. */
int ptx_version_sm80(void);

/** d_out = the values of d_in that are even, in order; *d_count = how many
 *  (cub::DeviceSelect::If). */
cudaError_t cub_select_even(const int *d_in, int *d_out, int *d_count, int n);

/** d_out = d_in[i] for the i with d_flags[i] != 0, in order; *d_count = how many
 *  (cub::DeviceSelect::Flagged). */
cudaError_t cub_select_flagged(const int *d_in, const char *d_flags, int *d_out, int *d_count,
                               int n);

#ifdef __cplusplus
}
#endif

#endif /* TEST_CUB_H */
