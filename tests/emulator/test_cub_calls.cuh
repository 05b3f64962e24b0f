/**
 * @file test_cub_calls.cuh
 * @brief CUB's two-call temporary-storage idiom, for the files that call CUB's device-wide
 *        algorithms (test_cub_kernels.cu, test_cub_sm80_kernels.cu).
 */
#ifndef TEST_CUB_CALLS_CUH
#define TEST_CUB_CALLS_CUH

#include <cuda_runtime.h>

/* Run CUB's call twice: with no storage it says how much it needs; then with that much. */
template <typename Call> static inline cudaError_t two_calls(Call call)
{
    void *d_temp = nullptr;
    size_t bytes = 0;
    cudaError_t err = call(d_temp, bytes);
    if (err != cudaSuccess)
        return err;
    err = cudaMalloc(&d_temp, bytes);
    if (err != cudaSuccess)
        return err;
    err = call(d_temp, bytes);
    cudaError_t sync = cudaDeviceSynchronize(); /* a fault in CUB's kernels shows here */
    cudaFree(d_temp);
    return err != cudaSuccess ? err : sync;
}

#endif /* TEST_CUB_CALLS_CUH */
