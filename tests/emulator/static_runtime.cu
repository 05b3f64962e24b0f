/**
 * @file static_runtime.cu
 * @brief A program as nvcc builds one by default, NVIDIA's CUDA runtime linked in (-cudart
 *        static): it drives a GPU's driver itself and never loads the emulator's libcudart, so
 *        on the emulator its first call fails, and the emulator's driver stand-in says in one
 *        line which file holds that runtime and how to build it instead (emulator.static_runtime
 *        looks for that line).
 */
#include <cstdio>

int main()
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        fprintf(stderr, "static_runtime: cudaGetDeviceCount: %s\n", cudaGetErrorString(err));
        return 1;
    }
    printf("static_runtime: %d devices\n", n);
    return 0;
}
