/**
 * @file hgemm_ladder_main.cu
 * @brief One launch of one kernel of Alex Armbruster's HGEMM ladder (mma.sync on Turing), for the
 *        time model's validation (tools/hgemm_ladder.sh builds it against a checkout of
 *        github.com/alexarmbr/matmul-playground, whose code this course does not hold).
 *
 *   hgemm_ladder KERNEL SIZE   runs kernel KERNEL (1-6) once on SIZE x SIZE x SIZE half
 *                              matrices (SIZE a multiple of 256), with the launch
 *                              configuration of the checkout's src/kernelN.cu
 */
#include <cstdio>
#include <cstdlib>

#include "structs_n_stuff.cuh"

/* The checkout's launchers (its src/main.cu declares them the same way). */
void kernel_1_launch(sgemm_params p, KernelLogger &timer, const unsigned int num_runs);
void kernel_2_launch(sgemm_params p, KernelLogger &timer, const unsigned int num_runs);
void kernel_3_launch(sgemm_params p, KernelLogger &timer, const unsigned int num_runs);
void kernel_4_launch(sgemm_params p, KernelLogger &timer, const unsigned int num_runs);
void kernel_5_launch(sgemm_params p, KernelLogger &timer, const unsigned int num_runs);
void kernel_6_launch(sgemm_params p, KernelLogger &timer, const unsigned int num_runs);

int main(int argc, char **argv)
{
    int kernel = argc == 3 ? atoi(argv[1]) : 0, n = argc == 3 ? atoi(argv[2]) : 0;
    if (kernel < 1 || kernel > 6 || n < 256 || n % 256) {
        fprintf(stderr, "usage: hgemm_ladder KERNEL SIZE (KERNEL 1-6, SIZE a multiple of 256)\n");
        return 2;
    }
    size_t bytes = (size_t)n * n * sizeof(half);
    sgemm_params p = {};
    if (cudaMalloc(&p.A, bytes) || cudaMalloc(&p.B, bytes) || cudaMalloc(&p.C, bytes) ||
        cudaMalloc(&p.D, bytes) || cudaMemset(p.A, 0, bytes) || cudaMemset(p.B, 0, bytes) ||
        cudaMemset(p.C, 0, bytes)) {
        fprintf(stderr, "hgemm_ladder: cannot allocate four %d x %d half matrices\n", n, n);
        return 1;
    }
    p.alpha = 0.7f; /* the checkout's sgemm_setup defaults */
    p.beta = 0.3f;
    p.M = p.N = p.K = (unsigned)n;
    void (*launch[])(sgemm_params, KernelLogger &,
                     const unsigned int) = {kernel_1_launch, kernel_2_launch, kernel_3_launch,
                                            kernel_4_launch, kernel_5_launch, kernel_6_launch};
    KernelLogger timer("hgemm_ladder");
    launch[kernel - 1](p, timer, 1);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "hgemm_ladder: kernel %d: %s\n", kernel, cudaGetErrorString(err));
        return 1;
    }
    return 0;
}
