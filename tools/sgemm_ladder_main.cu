/**
 * @file sgemm_ladder_main.cu
 * @brief One launch of one kernel of Simon Boehm's SGEMM_CUDA ladder, for the time model's
 *        validation (tools/sgemm_ladder.sh builds it against a checkout of that repository,
 *        whose code this course does not hold).
 *
 *   sgemm_ladder KERNEL SIZE   runs kernel KERNEL (1-12) once on SIZE x SIZE x SIZE, with
 *                              the launch configuration of the checkout's src/runner.cu
 */
#include <cstdio>
#include <cstdlib>

#include "runner.cuh"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: sgemm_ladder KERNEL SIZE\n");
        return 2;
    }
    int kernel = atoi(argv[1]), n = atoi(argv[2]);
    size_t bytes = (size_t)n * n * sizeof(float);
    float *a, *b, *c;
    if (cudaMalloc(&a, bytes) || cudaMalloc(&b, bytes) || cudaMalloc(&c, bytes) ||
        cudaMemset(a, 0, bytes) || cudaMemset(b, 0, bytes) || cudaMemset(c, 0, bytes)) {
        fprintf(stderr, "sgemm_ladder: cannot allocate three %d x %d matrices\n", n, n);
        return 1;
    }
    run_kernel(kernel, n, n, n, 1.0f, a, b, 0.0f, c, nullptr);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "sgemm_ladder: kernel %d: %s\n", kernel, cudaGetErrorString(err));
        return 1;
    }
    return 0;
}
