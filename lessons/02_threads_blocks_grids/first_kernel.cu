/**
 * @file first_kernel.cu
 * @brief Lesson 02: a whole CUDA program in one file: c = a + b on the GPU, checked on the CPU.
 *
 * Build it by hand from the course's root (lesson 02's README explains every part):
 *   nvcc -cudart shared -lineinfo -I reference -o build/first_kernel \
 *        lessons/02_threads_blocks_grids/first_kernel.cu
 * Run it on a GPU as build/first_kernel; without one, on the course's CPU emulator (built by
 * ./course check 02): LD_LIBRARY_PATH=$PWD/build/emulator/lib build/first_kernel
 * Flags: --n=N elements (default 100003); --block=T threads per block (default 256; try 2048);
 * --fault hands the kernel a null pointer for c, to show where a fault appears.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"

/* One thread per element: thread i of the whole grid adds element i. */
__global__ void add_kernel(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; /* this thread's place in the grid */
    if (i < n) /* the last block overhangs n: its extra threads do nothing */
        c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
    int n = 100003, threads = 256, fault = 0;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--n=", 4) && atoi(argv[i] + 4) > 0)
            n = atoi(argv[i] + 4);
        else if (!strncmp(argv[i], "--block=", 8) && atoi(argv[i] + 8) > 0)
            threads = atoi(argv[i] + 8);
        else if (!strcmp(argv[i], "--fault"))
            fault = 1;
        else {
            fprintf(stderr, "usage: %s [--n=N] [--block=T] [--fault]\n", argv[0]);
            return 2;
        }
    }

    /* Host arrays, filled with small integers: every sum is exact in float. */
    size_t bytes = (size_t)n * sizeof(float);
    float *h_a = (float *)malloc(bytes), *h_b = (float *)malloc(bytes);
    float *h_c = (float *)malloc(bytes);
    if (!h_a || !h_b || !h_c) {
        fprintf(stderr, "first_kernel: out of host memory (3 x %zu bytes)\n", bytes);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        h_a[i] = (float)(i % 17);
        h_b[i] = (float)(i % 5 * 100);
    }

    /* Device arrays: a separate memory, reached only through the runtime. */
    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc(&d_a, bytes));
    CUDA_CHECK(cudaMalloc(&d_b, bytes));
    CUDA_CHECK(cudaMalloc(&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));

    /* Enough blocks of `threads` to give every element a thread (n / threads, rounded up). */
    dim3 block(threads);
    dim3 grid((n + threads - 1) / threads);
    add_kernel<<<grid, block>>>(d_a, d_b, fault ? NULL : d_c, n);
    CUDA_CHECK_LAUNCH();                 /* a launch that could not start fails here */
    CUDA_CHECK(cudaDeviceSynchronize()); /* a kernel that faulted while running fails here */

    CUDA_CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++)
        wrong += h_c[i] != h_a[i] + h_b[i];
    printf("first_kernel: n = %d, %u blocks of %u threads, %d wrong\n", n, grid.x, block.x, wrong);

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(h_a);
    free(h_b);
    free(h_c);
    return wrong ? 1 : 0;
}
