/**
 * @file probes.cu
 * @brief The probes' kernels: what the time model assumes of a GPU, each measured by one kernel.
 *
 * Latencies, one thread (or warp) and a chain of dependent loads each:
 *   probe_chase         global memory through the L1 or around it (L1, L2 or DRAM by the size)
 *   probe_chase_shared  shared memory
 *   probe_ldmatrix      ldmatrix, its next address made from its result
 * Rates, the whole GPU:
 *   probe_fma           fp32 FMAs (and the SM clock they run at)
 *   probe_mma           fp16 mma.sync with fp32 accumulators (and the SM clock under it)
 *   probe_l2_read       reads that hit the L2
 *   probe_atomics       atomic adds to one address or to a few
 *   probe_column_stores 4-byte stores, each lane to its own sector (a naive transpose's)
 *   probe_small_blocks  blocks of one warp that each store 32 floats (blocks started a second)
 *   probe_held_blocks   the shared memory that holds them to two an SM (a block's start and end)
 *   probe_barriers      __syncthreads() in blocks of 1024 threads
 */
#include "probes.h"

#include <cuda_fp16.h>

#include "cuda_check.h"

#define RATE_THREADS 256

/* clock64() at a block's start and end: thread 0 writes the difference for its block. */
static __device__ void block_clocks(long long t0, long long *clocks)
{
    __syncthreads(); /* every thread of the block has done its work */
    if (threadIdx.x == 0)
        clocks[blockIdx.x] = clock64() - t0;
}

static __global__ void chase_kernel(const unsigned *next, int warm, int steps, int around_l1,
                                    long long *clocks, unsigned *end)
{
    unsigned p = 0;
    for (int i = 0; i < warm; i++)
        p = __ldca(next + p); /* untimed: the lines the timed loads find in the L1 */
    long long t0 = clock64();
    if (around_l1) {
        for (int i = 0; i < steps; i++)
            p = __ldcg(next + p); /* the next index is the load's own result */
    } else {
        for (int i = 0; i < steps; i++)
            p = __ldca(next + p);
    }
    *clocks = clock64() - t0;
    *end = p;
}

void probe_chase(const unsigned *d_next, int warm, int steps, int around_l1, long long *d_clocks,
                 unsigned *d_end)
{
    chase_kernel<<<1, 1>>>(d_next, warm, steps, around_l1, d_clocks, d_end);
    CUDA_CHECK_LAUNCH();
}

static __global__ void chase_shared_kernel(const unsigned *next, int n, int steps,
                                           long long *clocks, unsigned *end)
{
    extern __shared__ unsigned table[]; /* n entries: the chain */
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        table[i] = next[i];
    __syncthreads(); /* the whole chain is in shared memory before thread 0 follows it */
    if (threadIdx.x != 0)
        return;
    unsigned p = 0;
    long long t0 = clock64();
    for (int i = 0; i < steps; i++)
        p = table[p];
    *clocks = clock64() - t0;
    *end = p;
}

void probe_chase_shared(const unsigned *d_next, int n, int steps, long long *d_clocks,
                        unsigned *d_end)
{
    chase_shared_kernel<<<1, 256, n * sizeof(unsigned)>>>(d_next, n, steps, d_clocks, d_end);
    CUDA_CHECK_LAUNCH();
}

static __global__ void ldmatrix_kernel(const unsigned short *tile, int steps, long long *clocks,
                                       unsigned *out)
{
    __shared__ __align__(16) unsigned short s[128]; /* the 8 x 8 tile of zeros, then 64 others */
    for (int i = threadIdx.x; i < 128; i += 32)
        s[i] = tile[i];
    __syncwarp(); /* the tile is in shared memory before any lane's row address reads it */
    unsigned lane = threadIdx.x, r = 0;
    /* Lanes 0 to 7 give the 8 rows' addresses (16 bytes a row); the others' are ignored. */
    unsigned row = (unsigned)__cvta_generic_to_shared(s) + (lane & 7) * 16;
    long long t0 = clock64();
    for (int i = 0; i < steps; i++)
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
                     : "=r"(r)
                     : "r"(row + r)); /* r is zero: the address waits for the load before */
    long long t1 = clock64();
    out[lane] = r;
    if (lane == 0)
        *clocks = t1 - t0;
}

void probe_ldmatrix(const unsigned short *d_tile, int steps, long long *d_clocks, unsigned *d_out)
{
    ldmatrix_kernel<<<1, 32>>>(d_tile, steps, d_clocks, d_out);
    CUDA_CHECK_LAUNCH();
}

static __global__ void fma_kernel(int iters, const float *ab, float *out, long long *clocks)
{
    long long t0 = clock64();
    float a = ab[0], b = ab[1], x[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < 8; c++)
            x[c] = fmaf(x[c], a, b); /* 8 chains: 8 FMAs in flight a thread */
    float sum = 0;
    for (int c = 0; c < 8; c++)
        sum += x[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    block_clocks(t0, clocks);
}

void probe_fma(int blocks, int iters, const float *d_ab, float *d_out, long long *d_clocks)
{
    fma_kernel<<<blocks, RATE_THREADS>>>(iters, d_ab, d_out, d_clocks);
    CUDA_CHECK_LAUNCH();
}

/* d += a * b for one 16 x 8 x 16 product: A four registers, B two, C and D four (fp32). */
static __device__ void mma_16816(float *d, const unsigned *a, const unsigned *b)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else /* sm_75: two m16n8k8, the first and second halves of k */
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5}, {%6}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[2]), "r"(a[3]), "r"(b[1]));
#endif
}

static __global__ void mma_kernel(int iters, const unsigned short *ab, float *out,
                                  long long *clocks)
{
    long long t0 = clock64();
    unsigned pa = ab[0] | (unsigned)ab[0] << 16, pb = ab[1] | (unsigned)ab[1] << 16;
    unsigned a[4] = {pa, pa, pa, pa}, b[2] = {pb, pb};
    float d[4][4] = {{0}};
    for (int i = 0; i < iters; i++)
#pragma unroll
        for (int c = 0; c < 4; c++)
            mma_16816(d[c], a, b); /* 4 chains: 4 products in flight a warp */
    float sum = 0;
    for (int c = 0; c < 4; c++)
        sum += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    if (threadIdx.x % 32 == 0)
        out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = sum;
    block_clocks(t0, clocks);
}

void probe_mma(int blocks, int iters, const unsigned short *d_ab, float *d_out, long long *d_clocks)
{
    mma_kernel<<<blocks, RATE_THREADS>>>(iters, d_ab, d_out, d_clocks);
    CUDA_CHECK_LAUNCH();
}

static __global__ void l2_read_kernel(const uint4 *buf, long long n, int passes, unsigned *sum)
{
    long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    unsigned acc = 0;
    for (int p = 0; p < passes; p++) {
        long long i = first;
        for (; i + 3 * stride < n; i += 4 * stride) { /* 4 loads in flight a thread */
            uint4 v[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
                v[k] = __ldcg(buf + i + k * stride); /* around the L1: the L2's bytes */
#pragma unroll
            for (int k = 0; k < 4; k++)
                acc += v[k].x + v[k].y + v[k].z + v[k].w;
        }
        for (; i < n; i += stride) {
            uint4 v = __ldcg(buf + i);
            acc += v.x + v.y + v.z + v.w;
        }
    }
    sum[first] = acc;
}

void probe_l2_read(int blocks, const unsigned *d_buf, long long n, int passes, unsigned *d_sum)
{
    l2_read_kernel<<<blocks, RATE_THREADS>>>((const uint4 *)d_buf, n, passes, d_sum);
    CUDA_CHECK_LAUNCH();
}

static __global__ void atomics_kernel(int per_thread, const unsigned *idx, unsigned mask, int f32,
                                      unsigned *counts, float *fcounts)
{
    unsigned base = idx[blockIdx.x * blockDim.x + threadIdx.x];
    for (int i = 0; i < per_thread; i++) {
        unsigned at = (base + i) & mask; /* from data: ptxas cannot sum a warp's updates first */
        if (f32)
            atomicAdd(fcounts + at, 1.0f);
        else
            atomicAdd(counts + at, 1u);
    }
}

void probe_atomics(int blocks, int per_thread, const unsigned *d_idx, unsigned mask, int f32,
                   unsigned *d_counts, float *d_fcounts)
{
    atomics_kernel<<<blocks, RATE_THREADS>>>(per_thread, d_idx, mask, f32, d_counts, d_fcounts);
    CUDA_CHECK_LAUNCH();
}

static __global__ void column_stores_kernel(int n, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x; /* a column of out: out's row x */
    int y = blockIdx.y * blockDim.y + threadIdx.y; /* out's column y */
    if (x < n && y < n)
        out[(size_t)x * n + y] = (float)((y * 31 + x) & 1023); /* a warp's 32 lanes: 32 rows */
}

void probe_column_stores(int n, float *d_out)
{
    dim3 block(32, 8), grid((n + 31) / 32, (n + 7) / 8);
    column_stores_kernel<<<grid, block>>>(n, d_out);
    CUDA_CHECK_LAUNCH();
}

static __global__ void small_blocks_kernel(int n, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (float)(i & 1023);
}

void probe_small_blocks(int n, int smem, float *d_out)
{
    small_blocks_kernel<<<(n + 31) / 32, 32, smem>>>(n, d_out);
    CUDA_CHECK_LAUNCH();
}

int probe_held_blocks(int *resident)
{
    int dev, per_sm;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    int smem = per_sm / 2 - 1024; /* the driver reserves 1 KiB a block */
    CUDA_CHECK(cudaFuncSetAttribute(small_blocks_kernel,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    *resident = 0;
    CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(resident, small_blocks_kernel, 32, smem));
    return smem;
}

#define BARRIER_THREADS 1024

static __global__ void barriers_kernel(int rounds, unsigned *out, long long *clocks)
{
    __shared__ unsigned s[BARRIER_THREADS];
    long long t0 = clock64();
    unsigned t = threadIdx.x;
    s[t] = t;
    for (int r = 0; r < rounds; r++) {
        __syncthreads(); /* every s[] of the round before is written */
        unsigned v = s[(t + 1) % BARRIER_THREADS];
        __syncthreads(); /* every thread has read its neighbour before any writes */
        s[t] = v + 1;
    }
    out[blockIdx.x * BARRIER_THREADS + t] = s[t];
    block_clocks(t0, clocks);
}

void probe_barriers(int blocks, int rounds, unsigned *d_out, long long *d_clocks)
{
    barriers_kernel<<<blocks, BARRIER_THREADS>>>(rounds, d_out, d_clocks);
    CUDA_CHECK_LAUNCH();
}

int probe_barrier_blocks_per_sm(void)
{
    int n = 0;
    CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, barriers_kernel, BARRIER_THREADS, 0));
    return n;
}
