/**
 * @file test_model_kernels.cu
 * @brief The time model's test kernels (test_model.sh): a copy, whose traffic is known by hand;
 *        a shared-memory round trip in 4-byte pieces that ptxas would merge; four loads in flight
 *        together and the same four loads one after another; fp32 and integer atomics on one
 *        address, and integer ones a warp sums first; a tile
 *        loop that loads each tile before using it, and its twin that copies the next tile
 *        with cp.async while it works on this one; a block whose warps all read one row; blocks
 *        whose work differs; chunks read twice, half a grid apart; loads whose lanes are
 *        far apart.
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

/* The same copy in blocks of one warp: too small for the memory to be the limit. */
static __global__ void model_small_blocks_kernel(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 1.0f * x[i]; /* not the copy's line, which item 6 gives SASS */
}

void model_small_blocks(int n, const float *d_x, float *d_y)
{
    model_small_blocks_kernel<<<(n + 31) / 32, 32>>>(n, d_x, d_y);
}

/* Blocks of one warp that each store 32 floats, held to two an SM on the h100 row by 80 KiB of
 * dynamic shared memory each (228 KiB an SM, 1 KiB reserved a block): each round of two waits
 * their start and end. */
static __global__ void model_held_blocks_kernel(float *y)
{
    y[blockIdx.x * blockDim.x + threadIdx.x] = (float)threadIdx.x;
}

void model_held_blocks(int blocks, float *d_y)
{
    int smem = 80 * 1024;
    cudaFuncSetAttribute(model_held_blocks_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         smem);
    model_held_blocks_kernel<<<blocks, 32, smem>>>(d_y);
}

/* One warp alone on the GPU: y[i] = x[i] * x[i] + x[i], i < 32. Nothing overlaps its pipes. */
static __global__ void model_lone_warp_kernel(const float *x, float *y)
{
    int i = threadIdx.x;
    y[i] = x[i] * x[i] + x[i];
}

void model_lone_warp(const float *d_x, float *d_y)
{
    model_lone_warp_kernel<<<1, 32>>>(d_x, d_y);
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

/* One warp reads a tile's 8 rows of 4 floats a column at a time (k outer, row inner: 32 scalar
 * loads in PTX, written so that their order is exact), every lane the same address: ptxas
 * reads each row as one 16-byte load, 8 of them, each a broadcast. y[t] = the sum, t < 32. */
static __global__ void model_rows_kernel(const float *x, float *y)
{
    __shared__ __align__(16) float s[8][4];
    int t = threadIdx.x;
    s[t / 4][t % 4] = x[t];
    __syncthreads(); /* the tile is whole */
    float acc = 0;
    unsigned base = (unsigned)__cvta_generic_to_shared(&s[0][0]);
#pragma unroll
    for (int k = 0; k < 4; k++)
#pragma unroll
        for (int r = 0; r < 8; r++) {
            float v;
            asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(base + (r * 4 + k) * 4));
            acc += v;
        }
    y[t] = acc;
}

void model_rows(const float *d_x, float *d_y)
{
    model_rows_kernel<<<1, 32>>>(d_x, d_y);
}

/* Four loads of x[t + k n], k = 0..3, written in PTX so that their order is exact: all four
 * issued before the first use (one batch of four in flight), or each address made from the
 * value the previous load returned (x is zero: the same addresses, a chain of four batches of
 * one), or x[t] four times before the first use (one batch: a miss and three hits on what it
 * brought). y[t] = their sum, t < n. */
static __global__ void model_loads_kernel(int n, const float *x, float *y, enum model_loads_how how)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    const float *p = x + t;
    int step = how == MODEL_LOADS_REPEATED ? 0 : n;
    float a, b, c, d;
    if (how == MODEL_LOADS_CHAINED) {
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
                     : "l"(p), "l"(p + step), "l"(p + 2 * step), "l"(p + 3 * step));
    }
    y[t] = a + b + c + d;
}

void model_loads(int n, const float *d_x, float *d_y, enum model_loads_how how)
{
    model_loads_kernel<<<(n + 255) / 256, 256>>>(n, d_x, d_y, how);
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

/* Every thread adds 1 to the counter its bin names: with bins all 0, n updates of one address
 * the compiler cannot know is one (an atomicAdd it does not sum across the warp first). */
static __global__ void model_counter_kernel(int n, const unsigned *bin, unsigned *counts)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        atomicAdd(&counts[bin[t]], 1u);
}

void model_counter(int n, const unsigned *d_bin, unsigned *d_counts)
{
    model_counter_kernel<<<(n + 255) / 256, 256>>>(n, d_bin, d_counts);
}

/* Every odd thread adds 1 to counter 0 and every even one to one of counters 1 to 255 in turn
 * (plus its bin, 0 where bins are zeros): one hot address among 256, updated n / 2 times. */
static __global__ void model_hot_bin_kernel(int n, const unsigned *bin, unsigned *counts)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        atomicAdd(&counts[bin[t] + ((t & 1) ? 0u : 1u + (unsigned)(t >> 1) % 255u)], 1u);
}

void model_hot_bin(int n, const unsigned *d_bin, unsigned *d_counts)
{
    model_hot_bin_kernel<<<(n + 255) / 256, 256>>>(n, d_bin, d_counts);
}

/* Every thread adds its value to *sum: an address the compiler knows is the warp's, so ptxas sums
 * the warp's values first (REDUX) and sends one update a warp. */
static __global__ void model_warp_total_kernel(int n, const unsigned *x, unsigned *sum)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n)
        atomicAdd(sum, x[t]);
}

void model_warp_total(int n, const unsigned *d_x, unsigned *d_sum)
{
    model_warp_total_kernel<<<(n + 255) / 256, 256>>>(n, d_x, d_sum);
}

/* A tile's math: 512 dependent multiply-adds, enough issue slots (8 warps x 512 FMAs over 4
 * schedulers: 1024 clocks) to hide a 1 KiB tile's latency and transfer behind them. */
static __device__ float work(float v)
{
    float a = v;
    for (int i = 0; i < 512; i++)
        a = a * 0.5f + v;
    return a;
}

/* A tile loop: block b sums work(x) over tiles x[(t * gridDim.x + b) * 256 + tid], t < tiles,
 * each tile staged in shared memory and read at a rotated index (so the barrier is needed). Loaded
 * then used (async 0), copied with cp.async and waited for whole before it is used (async 2: one
 * stage), or as a 2-stage pipeline (async 1): tile t + 1 copied with cp.async while tile t is
 * used, wait_group 1 leaving that one copy in flight. y[b * 256 + tid] = the sum. */
static __global__ void model_tiles_kernel(int tiles, const float *x, float *y, int async)
{
    __shared__ float s[2][256];
    int tid = threadIdx.x;
    float acc = 0;
    if (async != 1) {
        for (int t = 0; t < tiles; t++) {
            const float *src = x + ((size_t)t * gridDim.x + blockIdx.x) * 256 + tid;
#if __CUDA_ARCH__ >= 800
            if (async) {
                unsigned dst = (unsigned)__cvta_generic_to_shared(&s[0][tid]);
                asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n\t"
                             "cp.async.commit_group;\n\t"
                             "cp.async.wait_group 0;" ::"r"(dst),
                             "l"(src));
            } else
#endif
                s[0][tid] = *src;
            __syncthreads(); /* the tile is whole */
            acc += work(s[0][(tid + 1) % 256]);
            __syncthreads(); /* every thread read it before the next overwrites it */
        }
    } else {
        for (int t = 0; t <= tiles; t++) {
            if (t < tiles) { /* copy tile t into stage t % 2; it lands before wait_group */
                unsigned dst = (unsigned)__cvta_generic_to_shared(&s[t % 2][tid]);
                const float *src = x + ((size_t)t * gridDim.x + blockIdx.x) * 256 + tid;
#if __CUDA_ARCH__ >= 800
                asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src));
#else
                (void)dst; /* sm_75 has no cp.async: a plain copy (the emulator runs sm_90's) */
                s[t % 2][tid] = *src;
#endif
            }
#if __CUDA_ARCH__ >= 800
            asm volatile("cp.async.commit_group;");
#endif
            if (t == 0)
                continue; /* the prologue: one tile in flight before the loop's first use */
#if __CUDA_ARCH__ >= 800
            asm volatile("cp.async.wait_group 1;"); /* tile t - 1 landed, tile t may not */
#endif
            __syncthreads(); /* tile t - 1 is whole */
            acc += work(s[(t - 1) % 2][(tid + 1) % 256]);
            __syncthreads(); /* read before stage (t - 1) % 2 is copied into again */
        }
    }
    y[blockIdx.x * 256 + tid] = acc;
}

void model_tiles(int blocks, int tiles, const float *d_x, float *d_y, int async)
{
    model_tiles_kernel<<<blocks, 256>>>(tiles, d_x, d_y, async);
}

/* A tile loop whose tiles take longer to arrive than their latency: block b stages tiles of 32
 * KiB (1024 threads, two float4 each; tile t at x4[(t * gridDim.x + b) * 2048]) in shared memory
 * and sums work() of a rotated element of each. Loaded just before it is stored (prefetch 0), or
 * loaded into registers while the tile before it is worked on (prefetch 1: its bytes arrive
 * meanwhile). y[b * 1024 + tid] = the sum. */
static __global__ void model_big_tiles_kernel(int tiles, const float4 *x, float *y, int prefetch)
{
    __shared__ float4 s[2048];
    int tid = threadIdx.x;
    float acc = 0;
    float4 a = x[(size_t)blockIdx.x * 2048 + tid], b = x[(size_t)blockIdx.x * 2048 + tid + 1024];
    for (int t = 0; t < tiles; t++) {
        const float4 *tile = x + ((size_t)t * gridDim.x + blockIdx.x) * 2048;
        if (!prefetch && t > 0) {
            a = tile[tid];
            b = tile[tid + 1024];
        }
        s[tid] = a;
        s[tid + 1024] = b;
        __syncthreads(); /* the tile is whole */
        if (prefetch && t + 1 < tiles) {
            a = tile[2048 * gridDim.x + tid]; /* tile t + 1 */
            b = tile[2048 * gridDim.x + tid + 1024];
        }
        acc += work(s[(tid + 1) % 2048].x);
        __syncthreads(); /* every thread read it before the next overwrites it */
    }
    y[blockIdx.x * 1024 + tid] = acc;
}

void model_big_tiles(int blocks, int tiles, const float *d_x, float *d_y, int prefetch)
{
    model_big_tiles_kernel<<<blocks, 1024>>>(tiles, (const float4 *)d_x, d_y, prefetch);
}

/* Every warp of a block of 32 reads the same 32 floats of x at each step (as the coalesced
 * naive GEMM's warps read a row of B), so one warp's miss fetches what all of them wait for:
 * y[b * 1024 + t] = the steps' values, each halving the sum before. */
static __global__ void model_convoy_kernel(int steps, const float *x, float *y)
{
    float acc = 0;
    for (int k = 0; k < steps; k++)
        acc = acc * 0.5f + x[k * 32 + threadIdx.x % 32];
    y[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

void model_convoy(int blocks, int steps, const float *d_x, float *d_y)
{
    model_convoy_kernel<<<blocks, 1024>>>(steps, d_x, d_y);
}

/* Block b adds its 256 floats b % 7 times: the blocks' work differs (a first wave of unlike
 * blocks, for sampling). */
static __global__ void model_ragged_kernel(const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0;
    for (int k = 0; k < (int)(blockIdx.x % 7); k++)
        acc += x[i];
    y[i] = acc;
}

void model_ragged(int blocks, const float *d_x, float *d_y)
{
    model_ragged_kernel<<<blocks, 256>>>(d_x, d_y);
}

/* Block b sums its chunk b % chunks of per_block floats, 256 threads a block: block b reads again
 * what block b - chunks read, nothing else twice. */
static __global__ void model_reread_kernel(int chunks, int per_block, const float *x, float *y)
{
    const float *chunk = x + (size_t)(blockIdx.x % chunks) * per_block;
    float acc = 0;
    for (int i = threadIdx.x; i < per_block; i += blockDim.x)
        acc += chunk[i];
    y[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

void model_reread(int blocks, int chunks, int per_block, const float *d_x, float *d_y)
{
    model_reread_kernel<<<blocks, 256>>>(chunks, per_block, d_x, d_y);
}

/* Thread t's 512 f64 multiply-adds, 8 a step of a loop, on a value of its own. */
static __global__ void model_f64_kernel(double *y)
{
    double v = threadIdx.x, m = 0.999, c = 0.5;
    for (int k = 0; k < 64; k++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(v) : "d"(m), "d"(c));
    y[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

/* One warp's 64 mma.sync m8n8k4 in f64, each accumulating into the last (sm_80 on: the PTX the
 * emulator reads). */
static __global__ void model_dmma_kernel(double *y)
{
#if __CUDA_ARCH__ >= 800
    double a = threadIdx.x, b = 0.5, d0 = 0, d1 = 0;
    for (int k = 0; k < 64; k++)
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "
                     "{%0, %1};"
                     : "+d"(d0), "+d"(d1)
                     : "d"(a), "d"(b));
    y[blockIdx.x * 32 + threadIdx.x] = d0 + d1;
#endif
}

/* Thread t's 512 ex2.approx.f32, 8 a step of a loop, on a value of its own. */
static __global__ void model_sfu_kernel(float *y)
{
    float v = threadIdx.x; /* a conversion, not fp32 arithmetic */
    for (int k = 0; k < 64; k++)
#pragma unroll
        for (int j = 0; j < 8; j++)
            asm volatile("ex2.approx.f32 %0, %0;" : "+f"(v));
    y[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

/* 64 barriers a thread and nothing else to wait for: the SM's barrier sets the time. */
static __global__ void model_barrier_kernel(float *y)
{
    float v = threadIdx.x;
    for (int k = 0; k < 64; k++) {
        __syncthreads();
        v += 1.0f;
    }
    y[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

/* Each warp's 64 mma.sync m16n8k16 in fp16 with fp32 accumulators, each accumulating into the
 * last, on fragments of its own registers (sm_80 on). */
static __global__ void model_mma_kernel(float *y)
{
#if __CUDA_ARCH__ >= 800
    unsigned a = threadIdx.x * 0x00010001u, b = 0x3c003c00u; /* fp16 pairs: (t, t) and (1, 1) */
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (int k = 0; k < 64; k++)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                     "{%4, %4, %4, %4}, {%5, %5}, {%0, %1, %2, %3};"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a), "r"(b));
    y[blockIdx.x * blockDim.x + threadIdx.x] = d0 + d1 + d2 + d3;
#endif
}

/* One warp's ldmatrix of four 8 x 8 tiles of 16-bit elements from shared memory (sm_75 on): the
 * model counts its shared pieces, which come with no instruction of their own. */
static __global__ void model_ldmatrix_kernel(float *y)
{
#if __CUDA_ARCH__ >= 750
    __shared__ unsigned short tile[32 * 8];
    for (int i = threadIdx.x; i < 32 * 8; i += 32)
        tile[i] = (unsigned short)i;
    __syncwarp(); /* the tile is written */
    unsigned r0, r1, r2, r3, row = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(row));
    y[threadIdx.x] = (float)(r0 ^ r1 ^ r2 ^ r3);
#endif
}

void model_units(void)
{
    double *y;
    if (cudaMalloc((void **)&y, 132 * 1024 * sizeof(float)) != cudaSuccess)
        return;
    model_f64_kernel<<<132, 256>>>(y);
    model_dmma_kernel<<<132, 32>>>(y);
    model_sfu_kernel<<<132, 256>>>((float *)y);
    model_barrier_kernel<<<132, 1024>>>((float *)y);
    model_mma_kernel<<<132, 32>>>((float *)y);  /* one warp an SM */
    model_mma_kernel<<<132, 512>>>((float *)y); /* 16: 4 on each sub-partition */
    model_ldmatrix_kernel<<<1, 32>>>((float *)y);
    cudaDeviceSynchronize();
    cudaFree(y);
}

/* Each block loads one float a thread into shared memory, waits at the barrier for the whole
 * tile and stores its neighbour's, then exits: a round of an SM's blocks is their loads'
 * latency, a barrier and their transfer. */
static __global__ void model_rounds_kernel(const float *x, float *y)
{
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = x[i];
    __syncthreads(); /* the tile is whole */
    y[i] = tile[(threadIdx.x + 1) % blockDim.x];
}

void model_rounds(int n, int threads, const float *d_x, float *d_y)
{
    model_rounds_kernel<<<n / threads, threads, threads * sizeof(float)>>>(d_x, d_y);
}

static __global__ void model_tree_kernel(const float *x, float *y)
{
    __shared__ float sum[256];
    int t = threadIdx.x;
    sum[t] = x[blockIdx.x * 256 + t];
    for (int s = 128; s > 0; s /= 2) {
        __syncthreads(); /* the step before has written every sum this one reads */
        if (t < s)
            sum[t] += sum[t + s];
    }
    if (t == 0)
        y[blockIdx.x] = sum[0];
}

void model_tree(int n, const float *d_x, float *d_y)
{
    model_tree_kernel<<<n / 256, 256>>>(d_x, d_y);
}

/* Each block normalises its 256 floats: the sum of their squares by warp shuffles and one
 * barrier, then each float (its neighbour's) read again and scaled. Two load phases of different
 * code, a row read twice as an RMSNorm reads it: not a tile loop's phases. */
static __global__ void model_norm_kernel(const float *x, float *y)
{
    __shared__ float part[8];
    int t = threadIdx.x, i = blockIdx.x * 256 + t;
    float v = x[i], sq = v * v, sum = 0;
    for (int s = 16; s > 0; s /= 2)
        sq += __shfl_xor_sync(0xffffffffu, sq, s);
    if (t % 32 == 0)
        part[t / 32] = sq;
    __syncthreads(); /* every warp's part is written */
    for (int w = 0; w < 8; w++)
        sum += part[w];
    y[i] = x[i ^ 1] * rsqrtf(sum / 256 + 1e-5f);
}

void model_norm(int n, const float *d_x, float *d_y)
{
    model_norm_kernel<<<n / 256, 256>>>(d_x, d_y);
}

static __global__ void model_shared_atomics_kernel(int stride, int loaded, const float *x, float *y)
{
    __shared__ int bins[1024];
    int t = threadIdx.x, i = blockIdx.x * 256 + t;
    for (int b = t; b < 1024; b += 256)
        bins[b] = 0;
    __syncthreads(); /* every bin is zero */
    /* x holds zeros: the address comes from a load, so ptxas cannot sum the warp's lanes first */
    int base = (int)x[i] + t % 32 * stride, inc = 1 + (int)x[i];
    if (loaded) /* an increment ptxas cannot see is 1: ATOMS.ADD */
        for (int k = 0; k < 64; k++)
            atomicAdd(&bins[(base + k) & 1023], inc);
    else /* the immediate 1, its result unused: ATOMS.POPC.INC */
        for (int k = 0; k < 64; k++)
            atomicAdd(&bins[(base + k) & 1023], 1);
    __syncthreads(); /* every update is in */
    y[i] = (float)bins[t];
}

void model_shared_atomics(int threads, int stride, int loaded, const float *d_x, float *d_y)
{
    model_shared_atomics_kernel<<<threads / 256, 256>>>(stride, loaded, d_x, d_y);
}

static __global__ void model_strided_kernel(int lane, int step, int reads, const float *x, float *y)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0;
    for (int j = 0; j < reads; j++)
        sum += x[t * lane + j * step];
    y[t] = sum;
}

void model_strided(int threads, int lane, int step, int reads, const float *d_x, float *d_y)
{
    model_strided_kernel<<<threads / 256, 256>>>(lane, step, reads, d_x, d_y);
}
