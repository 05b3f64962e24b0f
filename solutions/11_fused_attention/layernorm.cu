/**
 * @file layernorm.cu
 * @brief Lesson 11, step 2: LayerNorm's forward pass, statistics and all, in one read of x.
 *
 * Row-major 16-bit rows (fp16 or bf16), fp32 statistics, cols up to LAYERNORM_MAX_COLS. One
 * version:
 *   layernorm  one block per row, the row in registers; Welford's update per thread, Chan's
 *              merge across threads, then normalise, scale and shift from the registers
 *
 * Build and check: ./course check 11; measure: ./course bench 11.
 */
#include "fused_attention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdio.h>

#include "cuda_check.h"

/* Every lane of a warp takes part in the shuffles. */
#define FULL_MASK 0xffffffffu

enum {
    WARP = 32,
    LN_THREADS = 256,                                /* one block per row: 8 warps */
    LN_PER_THREAD = LAYERNORM_MAX_COLS / LN_THREADS, /* elements a thread holds: 32 */
};

/* The 16-bit formats, as floats and back (round to nearest even). */
static __device__ float to_f32(__half h)
{
    return __half2float(h);
}

static __device__ float to_f32(__nv_bfloat16 b)
{
    return __bfloat162float(b);
}

template <typename T> static __device__ T from_f32(float x);

template <> __device__ __half from_f32<__half>(float x)
{
    return __float2half_rn(x);
}

template <> __device__ __nv_bfloat16 from_f32<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}

/*
 * Welford's running statistics of the values seen so far: n of them, their mean, and m2, the
 * sum of squared deviations from that mean (var = m2 / n). Each update moves the mean by
 * (x - mean) / n and adds a product of two deviations, so no term is ever the square of a large
 * value: the cancellation of sum(x^2) - n mean^2 never happens.
 */
struct welford {
    float n, mean, m2;
};

/* Add @p x to @p w, whose count becomes @p n (passed: after unrolling it is a constant, and
 * @p inv_n = 1 / n is folded, so the update needs no division). */
static __device__ void welford_add(struct welford *w, float x, float n, float inv_n)
{
    // Move the mean by (x - mean) / n, then add (x - old mean) * (x - new mean) to m2.
    // BEGIN SOLUTION
    float d = x - w->mean;
    w->n = n;
    w->mean += d * inv_n;
    w->m2 += d * (x - w->mean);
    // END SOLUTION
}

/* The statistics of two disjoint sets from theirs (Chan, Golub and LeVeque's pairwise update). */
static __device__ struct welford welford_merge(struct welford a, struct welford b)
{
    struct welford w = a;
    // With d = b.mean - a.mean and n = a.n + b.n: mean = a.mean + d * b.n / n, and
    // m2 = a.m2 + b.m2 + d^2 * a.n * b.n / n. An empty side (n = 0) leaves the other as it is.
    // BEGIN SOLUTION
    if (a.n == 0.0f)
        w = b;
    else if (b.n > 0.0f) {
        float d = b.mean - a.mean, fb = b.n / (a.n + b.n);
        w = (struct welford){a.n + b.n, a.mean + d * fb, a.m2 + b.m2 + d * d * a.n * fb};
    }
    // END SOLUTION
    return w;
}

template <typename T>
static __global__ void __launch_bounds__(LN_THREADS)
    layernorm_kernel(int cols, const T *x, const float *gamma, const float *beta, float eps, T *y,
                     float *mean_out, float *rstd_out)
{
    __shared__ struct welford part[LN_THREADS / WARP];
    int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    const T *xr = x + (size_t)blockIdx.x * cols; /* this block's row */
    T *yr = y + (size_t)blockIdx.x * cols;
    float v[LN_PER_THREAD]; /* columns threadIdx.x + k * LN_THREADS: in registers (unrolled) */
    struct welford w = {0.0f, 0.0f, 0.0f};
    // Load the thread's elements into v, adding each to w (the k-th valid one makes n = k + 1:
    // a thread's valid columns are its first ones); merge w over the warp with shuffles, then
    // the 8 warp states through part[] (every thread merges them in the same order).
    // BEGIN SOLUTION
#pragma unroll
    for (int k = 0; k < LN_PER_THREAD; k++) {
        int c = threadIdx.x + k * LN_THREADS; /* consecutive threads, consecutive columns */
        v[k] = c < cols ? to_f32(xr[c]) : 0.0f;
        if (c < cols)
            welford_add(&w, v[k], (float)(k + 1), 1.0f / (float)(k + 1));
    }
    for (int off = WARP / 2; off > 0; off /= 2) {
        struct welford other = {__shfl_xor_sync(FULL_MASK, w.n, off),
                                __shfl_xor_sync(FULL_MASK, w.mean, off),
                                __shfl_xor_sync(FULL_MASK, w.m2, off)};
        w = welford_merge(w, other);
    }
    if (lane == 0)
        part[warp] = w;
    __syncthreads(); /* every warp's statistics are in part[] */
    w = part[0];
    for (int p = 1; p < LN_THREADS / WARP; p++)
        w = welford_merge(w, part[p]);
    // END SOLUTION
    float rstd = rsqrtf(w.m2 / (float)cols + eps); /* the population variance */
    // y = (v - mean) * rstd * gamma + beta for the thread's columns, in T; thread 0 also
    // writes the row's mean and rstd.
    // BEGIN SOLUTION
#pragma unroll
    for (int k = 0; k < LN_PER_THREAD; k++) {
        int c = threadIdx.x + k * LN_THREADS;
        if (c < cols)
            yr[c] = from_f32<T>((v[k] - w.mean) * rstd * gamma[c] + beta[c]);
    }
    if (threadIdx.x == 0) {
        mean_out[blockIdx.x] = w.mean;
        rstd_out[blockIdx.x] = rstd;
    }
    // END SOLUTION
}

extern "C" int layernorm(int rows, int cols, const uint16_t *d_x, const float *d_gamma,
                         const float *d_beta, float eps, int bf16, uint16_t *d_y, float *d_mean,
                         float *d_rstd)
{
    if (cols < 1 || cols > LAYERNORM_MAX_COLS || rows < 1 || !(eps > 0.0f)) {
        fprintf(stderr,
                "layernorm: rows = %d, cols = %d, eps = %g: want rows >= 1, 1 <= cols <= %d "
                "(what a block holds in registers) and eps > 0\n",
                rows, cols, (double)eps, LAYERNORM_MAX_COLS);
        return -1;
    }
    if (bf16)
        layernorm_kernel<<<rows, LN_THREADS>>>(cols, (const __nv_bfloat16 *)d_x, d_gamma, d_beta,
                                               eps, (__nv_bfloat16 *)d_y, d_mean, d_rstd);
    else
        layernorm_kernel<<<rows, LN_THREADS>>>(cols, (const __half *)d_x, d_gamma, d_beta, eps,
                                               (__half *)d_y, d_mean, d_rstd);
    CUDA_CHECK_LAUNCH();
    return 0;
}
