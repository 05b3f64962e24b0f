/**
 * @file test_race_global_kernels.cu
 * @brief The races in global memory of test_race_global.h, planted: the lines the global
 *        racecheck must name carry markers.
 */
#include "test_race_global.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

enum { THREADS = 64 };

static __global__ void block_reduce_kernel(int bug, float *x, int n)
{
    int t = threadIdx.x, i = blockIdx.x * THREADS + t;
    for (int s = THREADS / 2; s > 0; s /= 2) {
        if (t < s && i + s < n)
            x[i] += x[i + s]; /* GR_REDUCE */
        if (!bug)
            __syncthreads(); /* step s's sums are read by step s / 2 */
    }
}

cudaError_t gr_block_reduce(int bug, float *x, int n)
{
    block_reduce_kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(bug, x, n);
    return cudaDeviceSynchronize();
}

/* The sum of x over block b's slice, in thread 0. */
static __device__ float slice_sum(const float *x, int n, int b)
{
    __shared__ float s[THREADS];
    int i = b * THREADS + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads(); /* every element loaded */
    float sum = 0.0f;
    if (threadIdx.x == 0)
        for (int k = 0; k < THREADS; k++)
            sum += s[k];
    return sum;
}

static __global__ void chained_prefix_kernel(int bug, const float *x, float *prefix, int *ws, int n)
{
    __shared__ int tile;
    volatile int *flag = ws + 1;
    if (threadIdx.x == 0)
        tile = bug ? (int)blockIdx.x : atomicAdd(ws, 1); /* tiles in the order blocks start */
    __syncthreads();                                     /* tile known to every thread */
    float sum = slice_sum(x, n, tile);
    if (threadIdx.x != 0)
        return;
    if (bug) {
        float before = tile ? prefix[tile - 1] : 0.0f; /* GR_CHAIN_READ */
        prefix[tile] = before + sum;                   /* GR_CHAIN_WRITE */
        return;
    }
    if (tile) {
        while (!flag[tile - 1]) /* the tile before has published its prefix */
            ;
        __threadfence();
        sum += ((volatile float *)prefix)[tile - 1];
    }
    prefix[tile] = sum;
    __threadfence(); /* the prefix is visible before the flag */
    flag[tile] = 1;
}

cudaError_t gr_chained_prefix(int bug, const float *x, float *prefix, int *ws, int n)
{
    chained_prefix_kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(bug, x, prefix, ws, n);
    return cudaDeviceSynchronize();
}

static __global__ void one_word_kernel(int bug, int same, int *out)
{
    if (threadIdx.x != 0)
        return;
    if (bug)
        *out = same ? 7 : (int)blockIdx.x; /* GR_ONE_WORD */
    else
        atomicMax(out, (int)blockIdx.x);
}

cudaError_t gr_one_word(int bug, int same, int *out, int blocks)
{
    one_word_kernel<<<blocks, 32>>>(bug, same, out);
    return cudaDeviceSynchronize();
}

static __global__ void stencil_kernel(float *x, float *y, int n)
{
    int i = blockIdx.x * THREADS + threadIdx.x;
    float v = 0.0f;
    if (i < n)
        v = (i > 0 ? x[i - 1] : 0.0f) + x[i] + (i + 1 < n ? x[i + 1] : 0.0f); /* GR_STENCIL_READ */
    __syncthreads(); /* the block's reads before its writes: y may be x */
    if (i < n)
        y[i] = v; /* GR_STENCIL_WRITE */
}

cudaError_t gr_stencil(int bug, float *x, float *y, int n)
{
    stencil_kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, bug ? x : y, n);
    return cudaDeviceSynchronize();
}

static __global__ void grid_sync_kernel(int bug, int *a, int *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = 3 * i + 1; /* GR_SYNC_WRITE */
    if (!bug)
        grid.sync(); /* every a[] written before any is read */
    if (i < n)
        out[i] = a[n - 1 - i]; /* GR_SYNC_READ */
}

cudaError_t gr_grid_sync(int bug, int *a, int *out, int n)
{
    void *args[] = {&bug, &a, &out, &n};
    cudaError_t err =
        cudaLaunchCooperativeKernel((const void *)grid_sync_kernel, (n + 31) / 32, 32, args, 0, 0);
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

/* Warp 0 of 96 threads stores, and the warp that reads waits for it at a barrier with a thread
 * count or an mbarrier (test_race_global.h, enum gr_handoff). */
static __global__ void handoff_kernel(int how, const float *in, float *staged, float *out)
{
#if __CUDA_ARCH__ >= 900 /* mbarriers: the emulator runs the newest PTX (sm_90's) */
    __shared__ uint64_t bar;
    int warp = threadIdx.x / 32, i = blockIdx.x * 32 + threadIdx.x % 32;
    int mbarrier = how == GR_MBARRIER || how == GR_MBARRIER_EARLY, reader = mbarrier ? 1 : 2;
    uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar), done = 0;
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], 32;" ::"r"(b) : "memory");
    __syncthreads();
    if (warp == 0) {
        if (how == GR_MBARRIER_EARLY)
            asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(b) : "memory");
        staged[i] = 5.0f * in[i]; /* GR_HANDED */
        if (how == GR_MBARRIER)
            asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(b) : "memory");
        else if (how == GR_NAMED_CHAIN)
            asm volatile("bar.arrive 1, 64;" ::: "memory");
        else if (how == GR_NAMED_APART)
            asm volatile("bar.sync 1, 64;" ::: "memory");
    } else if (warp == 1 && !mbarrier) {
        if (how == GR_NAMED_CHAIN) {
            asm volatile("bar.sync 1, 64;" ::: "memory");
            asm volatile("bar.arrive 2, 64;" ::: "memory");
        } else {
            asm volatile("bar.sync 2, 64;" ::: "memory");
            asm volatile("bar.sync 1, 64;" ::: "memory");
        }
    } else if (warp == reader) {
        if (mbarrier)
            while (!done)
                asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], 0;\n"
                             "selp.u32 %0, 1, 0, p; }"
                             : "=r"(done)
                             : "r"(b)
                             : "memory");
        else
            asm volatile("bar.sync 2, 64;" ::: "memory");
        out[i] = staged[i]; /* GR_TAKEN */
    }
#endif
}

cudaError_t gr_handoff(int how, const float *in, float *staged, float *out, int blocks)
{
    handoff_kernel<<<blocks, 96>>>(how, in, staged, out);
    return cudaDeviceSynchronize();
}

static __global__ void quiet_kernel(int *out, unsigned char *bytes, int *part, int *ws, int *total,
                                    int n)
{
    __shared__ int last;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = i + 1;
        out[i] *= 2;                         /* the same thread's word, written again */
        bytes[i] = (unsigned char)(i % 251); /* four threads' bytes of one word */
    }
    if (threadIdx.x == 0) {
        part[blockIdx.x] = min(n - (int)(blockIdx.x * blockDim.x), (int)blockDim.x);
        __threadfence(); /* the part is visible before the count says it is there */
        last = atomicAdd(ws, 1) == (int)gridDim.x - 1;
    }
    __syncthreads(); /* last known to every thread */
    if (last && threadIdx.x == 0) {
        int sum = 0;
        for (int b = 0; b < (int)gridDim.x; b++)
            sum += part[b];
        *total = sum;
        ws[0] = 0; /* ready for the next launch */
    }
}

cudaError_t gr_quiet(int *out, unsigned char *bytes, int *part, int *ws, int *total, int n)
{
    quiet_kernel<<<(n + 31) / 32, 32>>>(out, bytes, part, ws, total, n);
    return cudaDeviceSynchronize();
}
