/**
 * @file test_model_kernels.cu
 * @brief The time model's test kernels (test_model.sh): a copy, whose traffic is known by hand;
 *        a shared-memory round trip in 4-byte pieces that ptxas would merge; four loads in flight
 *        together and the same four loads one after another; atomics on one address.
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

/* Four loads of x[t + k n], k = 0..3, written in PTX so that their order is exact: all four
 * issued before the first use (one batch of four in flight), or each address made from the
 * value the previous load returned (x is zero: the same addresses, a chain of four batches of
 * one). y[t] = their sum, t < n. */
static __global__ void model_loads_kernel(int n, const float *x, float *y, int chained)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    const float *p = x + t;
    float a, b, c, d;
    if (chained) {
        asm volatile("ld.global.f32 %0, [%1];" : "=f"(a) : "l"(p));
        p += n + (int)a; /* the address waits for the value */
        asm volatile("ld.global.f32 %0, [%1];" : "=f"(b) : "l"(p));
        p += n + (int)b;
        asm volatile("ld.global.f32 %0, [%1];" : "=f"(c) : "l"(p));
        p += n + (int)c;
        asm volatile("ld.global.f32 %0, [%1];" : "=f"(d) : "l"(p));
    } else {
        asm volatile("ld.global.f32 %0, [%4];\n\t"
                     "ld.global.f32 %1, [%5];\n\t"
                     "ld.global.f32 %2, [%6];\n\t"
                     "ld.global.f32 %3, [%7];"
                     : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
                     : "l"(p), "l"(p + n), "l"(p + 2 * n), "l"(p + 3 * n));
    }
    y[t] = a + b + c + d;
}

void model_loads(int n, const float *d_x, float *d_y, int chained)
{
    model_loads_kernel<<<(n + 255) / 256, 256>>>(n, d_x, d_y, chained);
}

/* Every thread adds 1 to *y: n updates of one address. */
static __global__ void model_atomic_kernel(int n, float *y)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        atomicAdd(y, 1.0f);
}

void model_atomic(int n, float *d_y)
{
    model_atomic_kernel<<<(n + 255) / 256, 256>>>(n, d_y);
}
