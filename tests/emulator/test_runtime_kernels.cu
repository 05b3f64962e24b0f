/**
 * @file test_runtime_kernels.cu
 * @brief Kernels for the runtime stand-in's suite: launches, faults, shared memory, symbols,
 *        printf, and one of two static kernels that share a name.
 */
#include "test_runtime.h"

#include <cstdio>

static __global__ void affine_kernel(int *out, int n, int a, int b)
{
    /* One element per thread over a 2D grid of 1D blocks: x then y. */
    long long i = ((long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * (int)i + b;
}

cudaError_t rt_test_affine(int *d_out, int n, int a, int b, dim3 grid, dim3 block)
{
    affine_kernel<<<grid, block>>>(d_out, n, a, b);
    return cudaGetLastError();
}

cudaError_t rt_test_affine_on(int *d_out, int n, int a, int b, cudaStream_t stream)
{
    affine_kernel<<<(n + 127) / 128, 128, 0, stream>>>(d_out, n, a, b);
    return cudaGetLastError();
}

static __global__ void store_at_kernel(int *out, long long index)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[index] = 7;
}

cudaError_t rt_test_store_at(int *d_out, long long index)
{
    store_at_kernel<<<1, 32>>>(d_out, index);
    return cudaGetLastError();
}

static __global__ void dynamic_smem_kernel(int *out, int words)
{
    extern __shared__ int slots[];
    /* Each thread fills a strided share of the words, then reads back its own id. */
    for (int w = threadIdx.x; w < words; w += blockDim.x)
        slots[w] = w;
    __syncthreads(); /* every word is written before any is read */
    out[threadIdx.x] = slots[threadIdx.x];
}

cudaError_t rt_test_dynamic_smem(int *d_out, int threads, size_t dyn_bytes)
{
    dynamic_smem_kernel<<<1, threads, dyn_bytes>>>(d_out, (int)(dyn_bytes / sizeof(int)));
    return cudaGetLastError();
}

const void *rt_test_dynamic_smem_kernel(void)
{
    return (const void *)dynamic_smem_kernel;
}

__device__ int rt_test_table[37];

static __global__ void table_kernel(int *out)
{
    if (threadIdx.x < 37)
        out[threadIdx.x] = rt_test_table[threadIdx.x] + 1;
}

cudaError_t rt_test_table_plus_one(int *d_out)
{
    table_kernel<<<1, 64>>>(d_out);
    return cudaGetLastError();
}

const void *rt_test_table_symbol(void)
{
    return (const void *)&rt_test_table;
}

__managed__ int rt_test_managed_total;
__managed__ int rt_test_managed_vals[37] = {5, -3, 8, 1000003, -77};

static __global__ void managed_kernel(void)
{
    unsigned t = threadIdx.x;
    if (t < 37) {
        atomicAdd(&rt_test_managed_total, rt_test_managed_vals[t]);
        rt_test_managed_vals[t] = 3 * rt_test_managed_vals[t] + (int)t;
    }
}

cudaError_t rt_test_managed_launch(void)
{
    managed_kernel<<<1, 64>>>();
    return cudaGetLastError();
}

int *rt_test_managed_total_ptr(void)
{
    return &rt_test_managed_total;
}

int *rt_test_managed_vals_ptr(void)
{
    return rt_test_managed_vals;
}

static __global__ void printf_kernel(void)
{
    printf("block %d thread %d\n", blockIdx.x, threadIdx.x);
}

cudaError_t rt_test_printf(int threads)
{
    printf_kernel<<<1, threads>>>();
    return cudaGetLastError();
}

static __global__ void fill_kernel(int *out)
{
    out[0] = 1;
}

cudaError_t rt_test_fill_one(int *d_out)
{
    fill_kernel<<<1, 1>>>(d_out);
    return cudaGetLastError();
}
