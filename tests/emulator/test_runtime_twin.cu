/**
 * @file test_runtime_twin.cu
 * @brief A second module with a static kernel named fill_kernel, as in
 *        test_runtime_kernels.cu: the runtime must tell them apart by host stub.
 */
#include "test_runtime.h"

static __global__ void fill_kernel(int *out)
{
    out[0] = 2;
}

cudaError_t rt_test_fill_two(int *d_out)
{
    fill_kernel<<<1, 1>>>(d_out);
    return cudaGetLastError();
}
