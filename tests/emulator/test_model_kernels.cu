/**
 * @file test_model_kernels.cu
 * @brief The time model's test kernels (test_model.sh): a copy, whose traffic is known by hand,
 *        and a shared-memory round trip in 4-byte pieces that ptxas would merge.
 */
#include "test_model.h"

/* y[i] = x[i] for i < n: every byte read once and written once, no reuse. */
static __global__ void model_copy_kernel(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; /* one element per thread */
    if (i < n)
        y[i] = x[i];
}

void model_copy(int n, const float *d_x, float *d_y)
{
    model_copy_kernel<<<(n + 255) / 256, 256>>>(n, d_x, d_y);
}

/* Each thread stores 4 floats at s[4t..4t+3] one by one, then reads them back one by one: in
 * PTX, four 4-byte accesses whose lanes are 16 bytes apart (4-way bank conflicts each); merged
 * as ptxas does, one conflict-free 16-byte access. */
static __global__ void model_smem_kernel(const float *x, float *y)
{
    __shared__ float s[4 * 256];
    int t = threadIdx.x;
    for (int i = 0; i < 4; i++)
        s[4 * t + i] = x[4 * t + i];
    __syncthreads(); /* the stores are written before any thread reads */
    float sum = 0;
    for (int i = 0; i < 4; i++)
        sum += s[4 * t + i];
    y[t] = sum;
}

void model_smem(const float *d_x, float *d_y)
{
    model_smem_kernel<<<1, 256>>>(d_x, d_y);
}
