/**
 * @file test_curand.h
 * @brief A Monte Carlo estimate of pi from cuRAND's uniforms (test_curand_kernels.cu), the
 *        program a student writes with the host API, for the suite in test_curand.c.
 */
#ifndef TEST_CURAND_H
#define TEST_CURAND_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * *d_hits += how many of the @p n points (d_xy[2i], d_xy[2i+1]) lie inside the quarter circle
 * x^2 + y^2 <= 1: a grid-stride loop, one count per block reduced in shared memory, one
 * atomicAdd per block. Returns the launch's error.
 */
cudaError_t count_inside_circle(const float *d_xy, int n, unsigned long long *d_hits);

#ifdef __cplusplus
}
#endif

#endif /* TEST_CURAND_H */
