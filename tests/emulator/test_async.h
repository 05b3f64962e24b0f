/**
 * @file test_async.h
 * @brief The kernels the asynchrony suite (test_async.c) queues, behind C launchers that
 *        return the launch's own error and do not synchronise.
 */
#ifndef TEST_ASYNC_H
#define TEST_ASYNC_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/** out[i] = a * i + b for i < n, on stream @p s. */
cudaError_t async_affine(int *d_out, int n, int a, int b, cudaStream_t s);

/** out[i] = in[i] * mul + add for i < n, on stream @p s. */
cudaError_t async_scale(const int *d_in, int *d_out, int n, int mul, int add, cudaStream_t s);

/** The kernel async_scale() launches, for a graph's kernel node (the same parameters, no
 *  stream). */
const void *async_scale_kernel(void);

/** async_affine() on the per-thread default stream, then a cudaMemcpy of the result into
 *  @p h_out: built with --default-stream per-thread (test_async_ptds.cu). */
cudaError_t async_affine_per_thread(int *d_out, int *h_out, int n, int a, int b);

#ifdef __cplusplus
}
#endif

#endif /* TEST_ASYNC_H */
