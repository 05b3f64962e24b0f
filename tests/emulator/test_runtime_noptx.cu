/**
 * @file test_runtime_noptx.cu
 * @brief A kernel built as sm_90 machine code only (CMake: CUDA_ARCHITECTURES 90-real), so
 *        its fat binary holds no PTX for the emulator.
 */
#include "test_runtime.h"

static __global__ void no_ptx_kernel(int *out)
{
    out[threadIdx.x] = 3;
}

cudaError_t rt_test_no_ptx(int *d_out)
{
    no_ptx_kernel<<<1, 1>>>(d_out);
    return cudaGetLastError();
}
