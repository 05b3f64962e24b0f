/**
 * @file test_cdp_kernels.cu
 * @brief The first of test_cdp.c's two separately compiled files (-rdc=true); the second is
 *        test_cdp_linked.cu. Versions, in order:
 *   cdp_linked_map  a kernel calling the other file's device function and reading its variable
 *   cdp_tree        device-side launches of the other file's kernels: streams, dynamic shared
 *                   memory, a tail launch, two children in one stream
 *   cdp_nest, cdp_fanout, cdp_child_fault   launches the device refuses, and a faulting child
 */
#include "test_cdp.h"

__device__ int cdp_bias;            /* set by the host; test_cdp_linked.cu reads it */
extern __device__ int cdp_offset;   /* defined (= 7) in test_cdp_linked.cu */
__device__ int cdp_scale_of(int x); /* in test_cdp_linked.cu */

/* In test_cdp_linked.cu: launched from this file's kernels. */
__global__ void cdp_child_kernel(const int *in, int n, char add, double scale, int *out);
__global__ void cdp_double_kernel(int *out, int n);

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

/* Thread 0 of each block hands its block's elements to two children in one stream. */
static __global__ void tree_kernel(const int *in, int n, int *out)
{
    int base = blockIdx.x * blockDim.x; /* this block's first element */
    if (threadIdx.x != 0)
        return;
    int count = min(n - base, (int)blockDim.x);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cdp_child_kernel<<<(count + 31) / 32, 32, 32 * sizeof(int), s>>>(in + base, count, (char)-3,
                                                                     3.0, out + base);
    cdp_double_kernel<<<1, count, 0, s>>>(out + base, count); /* after the first, same stream */
    cudaStreamDestroy(s);
}

cudaError_t cdp_tree(const int *d_in, int n, int *d_out)
{
    tree_kernel<<<(n + 63) / 64, 64>>>(d_in, n, d_out);
    return cudaDeviceSynchronize();
}

static __global__ void nest_kernel(int depth, int *errs)
{
    nest_kernel<<<1, 1>>>(depth + 1, errs);
    errs[depth] = (int)cudaGetLastError();
}

cudaError_t cdp_nest(int *d_errs)
{
    nest_kernel<<<1, 1>>>(0, d_errs);
    return cudaDeviceSynchronize();
}

static __global__ void fanout_kernel(int *scratch, int *errs)
{
    int t = threadIdx.x;
    if (t == 0)
        cdp_double_kernel<<<1, 2048>>>(scratch, 1); /* more threads than a block may have */
    else
        cdp_double_kernel<<<1, 1>>>(scratch + t, 1);
    errs[t] = (int)cudaGetLastError();
}

cudaError_t cdp_fanout(int nthreads, int *d_scratch, int *d_errs)
{
    fanout_kernel<<<1, nthreads>>>(d_scratch, d_errs);
    return cudaDeviceSynchronize();
}

static __global__ void fault_parent_kernel()
{
    cdp_double_kernel<<<1, 8>>>((int *)64, 8); /* a pointer into no allocation */
}

cudaError_t cdp_child_fault(void)
{
    fault_parent_kernel<<<1, 1>>>();
    return cudaDeviceSynchronize();
}
