/**
 * @file test_runtime_arch90a.cu
 * @brief A kernel built with nvcc's -arch=sm_90a (CMake: compile options, no architectures), so
 *        its fat binary holds compute_90 and compute_90a PTX beside the sm_90a machine code: a
 *        GPU runs the sm_90a code, and so must the emulator, whose GPU has sm_90a's features.
 */
#include "test_runtime.h"

static __global__ void arch_kernel(int *out)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    *out = 901; /* compiled for sm_90a: wgmma, setmaxnreg and the rest */
#else
    *out = 900;
#endif
}

cudaError_t rt_test_arch_90a(int *d_out)
{
    arch_kernel<<<1, 1>>>(d_out);
    return cudaGetLastError();
}
