/**
 * @file test_cdp_linked.cu
 * @brief The second of test_cdp.c's two separately compiled files (see test_cdp_kernels.cu):
 *        device code the first one calls, and a kernel of its own.
 */
#include "test_cdp.h"

__device__ int cdp_offset = 7;  /* test_cdp_kernels.cu reads it */
extern __device__ int cdp_bias; /* defined in test_cdp_kernels.cu */

/* A file-local helper: test_cdp_kernels.cu has its own of the same name. */
static __device__ __noinline__ int pick(int x)
{
    return 3 * x + "\5\6\7\10"[x & 3]; /* another $str of the same name */
}

__device__ int cdp_scale_of(int x)
{
    return pick(x) - cdp_bias;
}

static __global__ void linked_scale_kernel(const int *in, int n, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; /* one element per thread */
    if (i < n)
        out[i] = in[i] * cdp_offset;
}

cudaError_t cdp_linked_scale(const int *d_in, int n, int *d_out)
{
    linked_scale_kernel<<<(n + 63) / 64, 64>>>(d_in, n, d_out);
    return cudaDeviceSynchronize();
}
