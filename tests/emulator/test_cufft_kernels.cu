/**
 * @file test_cufft_kernels.cu
 * @brief A kernel that makes a transform's input and one that scales its output, for the stream
 *        order case of test_cufft.c.
 */
#include "test_cufft.h"

enum { THREADS = 128 };

static __global__ void fill_signal_kernel(cufftComplex *x, int n)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        x[j] = make_float2((float)(j % 7 - 3), (float)(j % 5 - 2));
}

extern "C" cudaError_t fill_signal(cufftComplex *d_x, int n, cudaStream_t stream)
{
    fill_signal_kernel<<<(n + THREADS - 1) / THREADS, THREADS, 0, stream>>>(d_x, n);
    return cudaGetLastError();
}

static __global__ void scale_signal_kernel(cufftComplex *x, int n, float factor)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n)
        x[j] = make_float2(x[j].x * factor, x[j].y * factor);
}

extern "C" cudaError_t scale_signal(cufftComplex *d_x, int n, float factor, cudaStream_t stream)
{
    scale_signal_kernel<<<(n + THREADS - 1) / THREADS, THREADS, 0, stream>>>(d_x, n, factor);
    return cudaGetLastError();
}
