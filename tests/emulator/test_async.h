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

/** Built the same way: @p h_in (n <= 2048) into a __device__ table (cudaMemcpyToSymbolAsync on
 *  stream 0), a kernel's 2 * table[i] + 1 through a cudaArray and back (cudaMemcpy2DToArray,
 *  cudaMemcpy2DFromArrayAsync) into @p h_out (cudaMemcpy3D), the table back into @p h_table
 *  (cudaMemcpyFromSymbolAsync), then stream 0's id and cudaStreamPerThread's into @p ids. */
cudaError_t async_symbols_per_thread(const int *h_in, int *h_out, int *h_table, int n,
                                     unsigned long long ids[2]);

#ifdef __cplusplus
}
#endif

#endif /* TEST_ASYNC_H */
