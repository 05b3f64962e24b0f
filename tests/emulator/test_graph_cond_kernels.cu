/**
 * @file test_graph_cond_kernels.cu
 * @brief Kernels for the conditional-node suite (test_graph_cond.c). Built with -rdc, as CUDA
 *        requires for cudaGraphSetConditional (libcudadevrt's device function).
 */
#include "test_graph_cond.h"

static __global__ void set_kernel(const int *sel, cudaGraphConditionalHandle h)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        cudaGraphSetConditional(h, (unsigned)*sel);
}

static __global__ void axpb_kernel(int *x, int n, int mul, int add)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * mul + add;
}

static __global__ void countdown_kernel(int *counter, cudaGraphConditionalHandle h)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        cudaGraphSetConditional(h, (unsigned)--*counter);
}

const void *cond_set_kernel(void)
{
    return (const void *)set_kernel;
}

const void *cond_axpb_kernel(void)
{
    return (const void *)axpb_kernel;
}

const void *cond_countdown_kernel(void)
{
    return (const void *)countdown_kernel;
}

cudaError_t cond_set(const int *d_sel, cudaGraphConditionalHandle h, cudaStream_t s)
{
    set_kernel<<<1, 1, 0, s>>>(d_sel, h);
    return cudaGetLastError();
}

cudaError_t cond_axpb(int *d_x, int n, int mul, int add, cudaStream_t s)
{
    axpb_kernel<<<(n + COND_BLOCK - 1) / COND_BLOCK, COND_BLOCK, 0, s>>>(d_x, n, mul, add);
    return cudaGetLastError();
}
