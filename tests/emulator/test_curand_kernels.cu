/**
 * @file test_curand_kernels.cu
 * @brief Counting the points inside the quarter circle for the Monte Carlo pi of test_curand.c,
 *        and Poisson numbers from the device API's curand_discrete.
 */
#include "test_curand.h"

#include <curand_kernel.h>

enum { THREADS = 256 };

static __global__ void count_inside_circle_kernel(const float *xy, int n, unsigned long long *hits)
{
    __shared__ unsigned partial[THREADS];
    unsigned mine = 0;
    /* point i is (xy[2i], xy[2i+1]); the grid strides over all n points */
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x = xy[2 * i], y = xy[2 * i + 1];
        mine += x * x + y * y <= 1.0f;
    }
    partial[threadIdx.x] = mine;
    __syncthreads(); /* every thread's count is in shared memory before the tree reads it */
    for (int half = THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads(); /* this level's sums are written before the next level reads them */
    }
    if (threadIdx.x == 0)
        atomicAdd(hits, (unsigned long long)partial[0]);
}

extern "C" cudaError_t count_inside_circle(const float *d_xy, int n, unsigned long long *d_hits)
{
    int blocks = (n + THREADS - 1) / THREADS;
    blocks = blocks > 64 ? 64 : blocks > 0 ? blocks : 1; /* the loop strides over the rest */
    count_inside_circle_kernel<<<blocks, THREADS>>>(d_xy, n, d_hits);
    return cudaGetLastError();
}

static __global__ void poisson_draws_kernel(curandDiscreteDistribution_t dist,
                                            unsigned long long seed, int n, unsigned *bits,
                                            unsigned *counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    curandStatePhilox4_32_10_t state, copy;
    curand_init(seed, i, 0, &state); /* subsequence i: the threads' numbers are independent */
    copy = state;
    bits[i] = curand(&copy);
    counts[i] = curand_discrete(&state, dist);
}

extern "C" cudaError_t poisson_draws(curandDiscreteDistribution_t dist, unsigned long long seed,
                                     int n, unsigned *d_bits, unsigned *d_counts)
{
    poisson_draws_kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(dist, seed, n, d_bits, d_counts);
    return cudaGetLastError();
}
