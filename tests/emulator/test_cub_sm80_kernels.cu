/**
 * @file test_cub_sm80_kernels.cu
 * @brief A CUB algorithm built for compute_80, as a program built for an A100 or with
 *        -arch=native on an Ampere card holds it: CUB picks its tuning by the PTX version
 *        cudaFuncGetAttributes reports, and fails (cudaErrorInvalidDeviceFunction) unless it is
 *        one of the architectures it was built for.
 */
#include "test_cub.h"
#include "test_cub_calls.cuh"

#include <cub/cub.cuh>

static __global__ void sm80_marker(void)
{
}

cudaError_t cub_sum_int_sm80(const int *d_in, int *d_out, int n)
{
    return two_calls(
        [=](void *t, size_t &b) { return cub::DeviceReduce::Sum(t, b, d_in, d_out, n); });
}

int ptx_version_sm80(void)
{
    cudaFuncAttributes a;
    return cudaFuncGetAttributes(&a, (const void *)sm80_marker) == cudaSuccess ? a.ptxVersion : -1;
}
