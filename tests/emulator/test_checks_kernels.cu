/**
 * @file test_checks_kernels.cu
 * @brief The bugs of test_checks.h, planted: the lines the checks must name carry markers.
 */
#include "test_checks.h"

#include <cuda/barrier>

enum { TILE = 16 };

static __global__ void tiled_matmul_kernel(enum check_bug bug, const float *A, const float *B,
                                           float *C, int n)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        int a_ok = bug == BUG_NO_ROW_GUARD || row < n;
        As[ty][tx] = a_ok && t + tx < n ? A[(size_t)row * n + t + tx] : 0.0f; /* CHECK_LOAD_A */
        Bs[ty][tx] = t + ty < n && col < n ? B[(size_t)(t + ty) * n + col] : 0.0f;
        if (bug != BUG_NO_SYNC_BEFORE)
            __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx]; /* CHECK_USE_TILE */
        if (bug != BUG_NO_SYNC_AFTER)
            __syncthreads();
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = acc;
}

cudaError_t checks_tiled_matmul(enum check_bug bug, const float *A, const float *B, float *C, int n)
{
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    tiled_matmul_kernel<<<grid, block>>>(bug, A, B, C, n);
    return cudaDeviceSynchronize();
}

static __global__ void scale_kernel(int off_by_one, const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (off_by_one ? i <= n : i < n)
        out[i] = 2.0f * in[i < n ? i : 0]; /* CHECK_STORE_GUARD */
}

cudaError_t checks_scale(int off_by_one, const float *in, float *out, int n)
{
    scale_kernel<<<(n + 127) / 128, 128>>>(off_by_one, in, out, n);
    return cudaDeviceSynchronize();
}

static __global__ void warp_sum_kernel(int syncwarp, const float *in, float *out)
{
    __shared__ float s[32];
    int lane = threadIdx.x;
    s[lane] = in[lane];
    __syncwarp();
    for (int off = 16; off > 0; off /= 2) {
        if (lane < off)
            s[lane] += s[lane + off]; /* CHECK_WARP_SUM */
        if (syncwarp)
            __syncwarp();
    }
    if (lane == 0)
        *out = s[0];
}

cudaError_t checks_warp_sum(int syncwarp, const float *in, float *out)
{
    warp_sum_kernel<<<1, 32>>>(syncwarp, in, out);
    return cudaDeviceSynchronize();
}

static __global__ void barrier_sum_kernel(int barrier, const float *in, float *out)
{
#pragma nv_diag_suppress static_var_with_dynamic_init /* init() below constructs it */
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ float partial[3];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    float v = in[threadIdx.x];
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0)
        partial[warp] = v;
    if (barrier)
        bar.arrive_and_wait();
    if (threadIdx.x == 0)
        *out = partial[0] + partial[1] + partial[2]; /* CHECK_BARRIER_SUM */
}

static __global__ void handoff_kernel(int how, const float *in, float *out)
{
#if __CUDA_ARCH__ >= 900 /* mbarriers and mapa: the emulator runs the newest PTX (sm_90's) */
    __shared__ float handed[32];
    __shared__ uint64_t bar;
    int t = threadIdx.x;
    uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar), own;
    if (t == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], 32;" ::"r"(b) : "memory");
    __syncthreads();
    if (t < 32) {
        if (how == HANDOFF_ARRIVE_FIRST)
            asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(b) : "memory");
        handed[t] = 3.0f * in[t]; /* CHECK_HANDED */
        if (how == HANDOFF_AFTER)
            asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(b) : "memory");
        if (how == HANDOFF_THROUGH_CLUSTER) { /* the block's own object, as a cluster sees it */
            asm volatile("{ .reg .u32 rank; mov.u32 rank, %%cluster_ctarank;\n"
                         "mapa.shared::cluster.u32 %0, %1, rank; }"
                         : "=r"(own)
                         : "r"(b));
            asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(own) : "memory");
        }
        out[t] = in[t];
        return;
    }
    uint32_t done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], 0;\n"
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(b)
                     : "memory");
    out[t] = handed[t - 32];
#endif
}

cudaError_t checks_handoff(int how, const float *in, float *out)
{
    handoff_kernel<<<1, 64>>>(how, in, out);
    return cudaDeviceSynchronize();
}

/* Three warps and two barriers with a thread count of 64. Ordered: warp 0 stores, then arrives
 * at barrier 1, which warp 1 waits at; warp 1 then arrives at barrier 2, which warp 2 waits at
 * before it reads. Not: warp 0 stores and meets warp 1 at barrier 1, while warp 2 meets warp 1
 * at barrier 2 before that and reads. */
static __global__ void named_kernel(int ordered, const float *in, float *out)
{
    __shared__ float staged[32];
    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    float v = in[t];
    if (warp == 0) {
        staged[lane] = 5.0f * v;
        if (ordered)
            asm volatile("bar.arrive 1, 64;" ::: "memory");
        else
            asm volatile("bar.sync 1, 64;" ::: "memory");
    } else if (warp == 1) {
        if (ordered) {
            asm volatile("bar.sync 1, 64;" ::: "memory");
            asm volatile("bar.arrive 2, 64;" ::: "memory");
        } else {
            asm volatile("bar.sync 2, 64;" ::: "memory");
            asm volatile("bar.sync 1, 64;" ::: "memory");
        }
    } else {
        asm volatile("bar.sync 2, 64;" ::: "memory");
        v = staged[lane]; /* CHECK_NAMED_THIRD */
    }
    out[t] = v;
}

cudaError_t checks_named(int ordered, const float *in, float *out)
{
    named_kernel<<<1, 96>>>(ordered, in, out);
    return cudaDeviceSynchronize();
}

cudaError_t checks_barrier_sum(int barrier, const float *in, float *out)
{
    barrier_sum_kernel<<<1, 96>>>(barrier, in, out);
    return cudaDeviceSynchronize();
}

static __global__ void uninitialised_kernel(int shared, const float *in, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    if (shared)
        out[t] = s[t + 32]; /* CHECK_SHARED_UNWRITTEN */
    else
        out[t] = in[t + 32]; /* CHECK_GLOBAL_UNWRITTEN */
}

cudaError_t checks_uninitialised(int shared, const float *in, float *out)
{
    uninitialised_kernel<<<1, 32>>>(shared, in, out);
    return cudaDeviceSynchronize();
}

static __global__ void bad_sync_kernel(int kind, float *out)
{
    int t = threadIdx.x;
    float v = (float)t;
    if (kind == 0) {
        if (t < 48) {
            asm volatile("bar.sync 0;"); /* CHECK_HALF_WARP */
            v += 1.0f;
        }
        asm volatile("bar.sync 0;"); /* threads 48..63 meet the others here first */
    }
    if (kind == 1) {
        if (t % 2) {
            v *= 3.0f;
            asm volatile("bar.sync 0;"); /* CHECK_ODD_BARRIER */
            v += 1.0f;
        } else {
            v *= 5.0f;
            asm volatile("bar.sync 0;"); /* CHECK_EVEN_BARRIER */
            v -= 1.0f;
        }
    }
    if (kind == 2)
        v = __shfl_sync(0x0000ffffu, v, 0); /* CHECK_SHUFFLE_MASK */
    if (kind == 3)
        __syncwarp(0xffffffffu); /* CHECK_ABSENT_LANES */
    if (kind == 4) {
        __shared__ float mirror[64];
        if (t >= 40)
            return; /* exited threads do not hold the barrier up: no finding */
        mirror[t] = v;
        __syncthreads(); /* every store above before the reads below */
        v = mirror[39 - t];
    }
    if (kind == 5) { /* warp roles at a barrier with a thread count, each from its own place */
        __shared__ float staged[32];
        if (t < 32) {
            staged[t] = 2.0f * v;
            asm volatile("bar.sync 1, 64;" ::: "memory"); /* the producer warp's */
        } else {
            asm volatile("bar.sync 1, 64;" ::: "memory"); /* the consumer warp's */
            v = staged[t - 32];
        }
    }
    if (kind == 6) { /* barrier.sync without .aligned: its threads may come from anywhere */
        if (t < 32) {
            v *= 3.0f;
            asm volatile("barrier.sync 0;" ::: "memory");
        } else {
            v *= 5.0f;
            asm volatile("barrier.sync 0;" ::: "memory");
        }
    }
    out[t] = v;
}

cudaError_t checks_bad_sync(int kind, float *out)
{
    bad_sync_kernel<<<1, kind == 3 ? 16 : 64>>>(kind, out);
    return cudaDeviceSynchronize();
}
