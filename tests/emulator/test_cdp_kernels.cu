/**
 * @file test_cdp_kernels.cu
 * @brief The first of test_cdp.c's two separately compiled files (-rdc=true); the second is
 *        test_cdp_linked.cu. Versions, in order:
 *   cdp_linked_map  a kernel calling the other file's device function and reading its variable
 */
#include "test_cdp.h"

__device__ int cdp_bias;            /* set by the host; test_cdp_linked.cu reads it */
extern __device__ int cdp_offset;   /* defined (= 7) in test_cdp_linked.cu */
__device__ int cdp_scale_of(int x); /* in test_cdp_linked.cu */

/* A file-local helper: test_cdp_linked.cu has its own of the same name. */
static __device__ __noinline__ int pick(int x)
{
    return x + "\1\2\3\4"[x & 3]; /* a string literal: $str in the PTX of both files */
}

static __global__ void linked_map_kernel(const int *in, int n, int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; /* one element per thread */
    if (i < n)
        out[i] = cdp_scale_of(in[i]) + pick(in[i]) + cdp_offset;
}

cudaError_t cdp_linked_map(const int *d_in, int n, int bias, int *d_out)
{
    cudaError_t err = cudaMemcpyToSymbol(cdp_bias, &bias, sizeof bias);
    if (err != cudaSuccess)
        return err;
    linked_map_kernel<<<(n + 127) / 128, 128>>>(d_in, n, d_out);
    return cudaDeviceSynchronize();
}
