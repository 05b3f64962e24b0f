/**
 * @file test_cufft.h
 * @brief Two kernels around a cuFFT transform (test_cufft_kernels.cu): one that makes its input
 *        and one that scales its output, queued on the plan's stream, for the suite in
 *        test_cufft.c.
 */
#ifndef TEST_CUFFT_H
#define TEST_CUFFT_H

#include <cuda_runtime.h>
#include <cufft.h>

#ifdef __cplusplus
extern "C" {
#endif

/** d_x[j] = (j % 7 - 3, j % 5 - 2) for j < @p n, on @p stream. Returns the launch's error. */
cudaError_t fill_signal(cufftComplex *d_x, int n, cudaStream_t stream);

/** d_x[j] *= @p factor for j < @p n, on @p stream. Returns the launch's error. */
cudaError_t scale_signal(cufftComplex *d_x, int n, float factor, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* TEST_CUFFT_H */
