/**
 * @file test_async_kernels.cu
 * @brief Kernels for the asynchrony suite (test_async.c): each launcher queues and returns.
 */
#include "test_async.h"

static __global__ void affine_kernel(int *out, int n, int a, int b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * i + b;
}

static __global__ void scale_kernel(const int *in, int *out, int n, int mul, int add)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * mul + add;
}

/* Blocks of 128 threads covering @p n. */
static unsigned blocks_for(int n)
{
    return (unsigned)((n + 127) / 128);
}

cudaError_t async_affine(int *d_out, int n, int a, int b, cudaStream_t s)
{
    affine_kernel<<<blocks_for(n), 128, 0, s>>>(d_out, n, a, b);
    return cudaGetLastError();
}

cudaError_t async_scale(const int *d_in, int *d_out, int n, int mul, int add, cudaStream_t s)
{
    scale_kernel<<<blocks_for(n), 128, 0, s>>>(d_in, d_out, n, mul, add);
    return cudaGetLastError();
}

const void *async_scale_kernel(void)
{
    return (const void *)scale_kernel;
}
