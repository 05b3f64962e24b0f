/**
 * @file test_curand.h
 * @brief A Monte Carlo estimate of pi from cuRAND's uniforms (test_curand_kernels.cu), the
 *        program a student writes with the host API, and Poisson numbers drawn in a kernel
 *        with the device API, for the suite in test_curand.c.
 */
#ifndef TEST_CURAND_H
#define TEST_CURAND_H

#include <cuda_runtime.h>
#include <curand.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * *d_hits += how many of the @p n points (d_xy[2i], d_xy[2i+1]) lie inside the quarter circle
 * x^2 + y^2 <= 1: a grid-stride loop, one count per block reduced in shared memory, one
 * atomicAdd per block. Returns the launch's error.
 */
cudaError_t count_inside_circle(const float *d_xy, int n, unsigned long long *d_hits);

/**
 * Thread i < @p n of a Philox state at subsequence i of @p seed: d_bits[i] = its first 32-bit
 * value (curand), d_counts[i] = its first Poisson number from @p dist (curand_discrete, which
 * draws that same value). Returns the launch's error.
 */
cudaError_t poisson_draws(curandDiscreteDistribution_t dist, unsigned long long seed, int n,
                          unsigned *d_bits, unsigned *d_counts);

#ifdef __cplusplus
}
#endif

#endif /* TEST_CURAND_H */
