/**
 * @file test_driver.h
 * @brief The runtime side of the driver suite's mixed program (test_driver_kernels.cu).
 */
#ifndef TEST_DRIVER_H
#define TEST_DRIVER_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** x[i] = x[i] * 2 + 1 for i < n, launched through the runtime (<<< >>>) on @p s. */
cudaError_t drv_twice_plus_one(int *x, int n, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* TEST_DRIVER_H */
