/**
 * @file test_async_ptds.cu
 * @brief Built with --default-stream per-thread: stream 0 here is the calling thread's own
 *        default stream, and cudaMemcpy is cudaMemcpy_ptds (test_async.c's per_thread case).
 */
#include "test_async.h"

static __global__ void affine_ptds_kernel(int *out, int n, int a, int b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * i + b;
}

cudaError_t async_affine_per_thread(int *d_out, int *h_out, int n, int a, int b)
{
    affine_ptds_kernel<<<(n + 127) / 128, 128>>>(d_out, n, a, b);
    cudaError_t err = cudaGetLastError();
    return err ? err : cudaMemcpy(h_out, d_out, (size_t)n * sizeof *h_out, cudaMemcpyDeviceToHost);
}
