/**
 * @file test_driver_kernels.cu
 * @brief Kernels of the driver suite (test_driver.c).
 *
 * This file is compiled three ways. Into the suite itself, where drv_twice_plus_one's kernel is
 * the runtime's (registered by nvcc, launched with <<< >>>). And by CMake into
 * test_driver_kernels.ptx, .fatbin and .cubin, which the suite loads at run time with
 * cuModuleLoad: there drv_scale_add, drv_static_shared, drv_dynamic_shared and drv_tex_sample
 * are found by name, so they are extern "C" and not static (the one exception to the house's
 * static kernels), and drv_offset is a __device__ variable cuModuleGetGlobal finds.
 */
#include "test_driver.h"

/** Added by drv_scale_add; the suite sets it through cuModuleGetGlobal. */
__device__ int drv_offset = 5;

/** y[i] = a * x[i] + y[i] + drv_offset for i < n. */
extern "C" __global__ void drv_scale_add(int *y, const int *x, int a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i] + drv_offset;
}

/** out[i] = i * 3 through 2 KiB of static shared memory (blocks of up to 512 threads). */
extern "C" __global__ void drv_static_shared(int *out, int n)
{
    __shared__ int tile[512];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i * 3;
    __syncthreads(); /* each thread reads a neighbour's slot */
    int j = (threadIdx.x + 1) % blockDim.x;
    if (i < n)
        out[i] = tile[j] - 3 * (int)(j - threadIdx.x);
}

/** out[i] = the last of @p words ints of dynamic shared memory, written by thread 0. */
extern "C" __global__ void drv_dynamic_shared(int *out, int words)
{
    extern __shared__ int big[];
    if (threadIdx.x == 0)
        big[words - 1] = words;
    __syncthreads(); /* thread 0's write before every read */
    out[threadIdx.x] = big[words - 1];
}

/** out[i] = the float texture @p tex sampled at (u[i], v[i]) for i < n. */
extern "C" __global__ void drv_tex_sample(float *out, unsigned long long tex, const float *u,
                                          const float *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<float>((cudaTextureObject_t)tex, u[i], v[i]);
}

static __global__ void drv_twice_plus_one_kernel(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = x[i] * 2 + 1;
}

extern "C" cudaError_t drv_twice_plus_one(int *x, int n, cudaStream_t s)
{
    drv_twice_plus_one_kernel<<<(n + 127) / 128, 128, 0, s>>>(x, n);
    return cudaGetLastError();
}
