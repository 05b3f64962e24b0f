/**
 * @file test_ipc_kernels.cu
 * @brief The kernel of the IPC suite (test_ipc.c).
 */
#include "test_ipc.h"

static __global__ void ipc_pattern_kernel(int *x, int n, int seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) /* the last block runs past n when n is not a multiple of 128 */
        x[i] = ipc_value(i, seed);
}

cudaError_t ipc_pattern(int *d_x, int n, int seed, cudaStream_t s)
{
    ipc_pattern_kernel<<<(n + 127) / 128, 128, 0, s>>>(d_x, n, seed);
    return cudaGetLastError();
}
