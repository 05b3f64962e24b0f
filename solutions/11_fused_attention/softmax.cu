/**
 * @file softmax.cu
 * @brief Lesson 11, step 1: softmax over the rows of a matrix, in three passes and in one.
 *
 * Row-major floats, any rows and cols >= 1 (every kernel guards its edges). Versions, in order:
 *   softmax_naive   one block per row, three passes over it: the max, the sum, the output
 *   softmax_online  a running max and a rescaled sum in one pass: a warp per row held in
 *                   registers up to SOFTMAX_WARP_COLS, a block per row beyond
 * A row of -inf (all masked) has no softmax: both write zeros there (fused_attention.h).
 *
 * Build and check: ./course check 11; measure: ./course bench 11.
 */
#include "fused_attention.h"

#include <math.h>

#include "cuda_check.h"

/* Every lane of a warp takes part in the shuffles. */
#define FULL_MASK 0xffffffffu

enum {
    WARP = 32,
    ROW_THREADS = 256,                   /* a block per row: 8 warps */
    ROWS_PER_BLOCK = ROW_THREADS / WARP, /* a warp per row: 8 rows per block */
    PER_LANE = SOFTMAX_WARP_COLS / WARP, /* a warp per row: the row's floats each lane holds */
};

/* ---- block-wide reductions ------------------------------------------------------------------ */

/* The max of @p v over the block (every thread gets it). @p red: ROW_THREADS / 32 floats of
 * shared memory, free again when this returns. */
static __device__ float block_max(float v, float *red)
{
    for (int off = WARP / 2; off > 0; off /= 2) /* butterfly: every lane ends with the max */
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, off));
    int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (lane == 0)
        red[warp] = v;
    __syncthreads(); /* every warp's max is in red[] */
    v = red[0];
    for (int w = 1; w < ROW_THREADS / WARP; w++)
        v = fmaxf(v, red[w]);
    __syncthreads(); /* everyone has read red[] before the next call writes it */
    return v;
}

/* The sum of @p v over the block (every thread gets it), in the same fixed order everywhere. */
static __device__ float block_sum(float v, float *red)
{
    for (int off = WARP / 2; off > 0; off /= 2)
        v += __shfl_xor_sync(FULL_MASK, v, off);
    int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    if (lane == 0)
        red[warp] = v;
    __syncthreads(); /* every warp's sum is in red[] */
    v = 0.0f;
    for (int w = 0; w < ROW_THREADS / WARP; w++)
        v += red[w];
    __syncthreads(); /* everyone has read red[] before the next call writes it */
    return v;
}

/* ---- softmax_naive -------------------------------------------------------------------------- */

static __global__ void __launch_bounds__(ROW_THREADS)
    softmax_naive_kernel(int cols, const float *x, float *y)
{
    __shared__ float red[ROW_THREADS / WARP];
    const float *xr = x + (size_t)blockIdx.x * cols; /* this block's row */
    float *yr = y + (size_t)blockIdx.x * cols;
    // Three passes over xr, each thread striding by ROW_THREADS: the row's max m (block_max),
    // the sum s of expf(x - m) (block_sum), then y = expf(x - m) / s. Subtracting m keeps
    // every exponent <= 0. A row of -inf (m == -INFINITY) gets zeros.
    // BEGIN SOLUTION
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += ROW_THREADS)
        m = fmaxf(m, xr[c]);
    m = block_max(m, red);
    float s = 0.0f;
    if (m != -INFINITY)
        for (int c = threadIdx.x; c < cols; c += ROW_THREADS)
            s += expf(xr[c] - m);
    s = block_sum(s, red);
    float inv = m == -INFINITY ? 0.0f : 1.0f / s; /* s >= 1: the max's own term is 1 */
    for (int c = threadIdx.x; c < cols; c += ROW_THREADS)
        yr[c] = m == -INFINITY ? 0.0f : expf(xr[c] - m) * inv;
    // END SOLUTION
}

extern "C" void softmax_naive(int rows, int cols, const float *d_x, float *d_y)
{
    softmax_naive_kernel<<<rows, ROW_THREADS>>>(cols, d_x, d_y);
    CUDA_CHECK_LAUNCH();
}

/* ---- softmax_online ------------------------------------------------------------------------- */

/*
 * The online normaliser's state over the elements seen so far: m, their max, and s, the sum of
 * exp(x - m) over them. When a new element x raises the max to m' = max(m, x), every term
 * already in s is exp(x_j - m) where it should be exp(x_j - m'): one multiplication by
 * exp(m - m') rescales them all, and the new term is exp(x - m'). Nothing is recomputed, every
 * exponent stays <= 0, and there is no branch for the warp to split on. (m, s) = (-inf, 0) is
 * the empty state. __expf (ex2.approx after a multiplication by log2 e) is exact enough here:
 * its argument is at most 0, and where the result matters, small.
 */
struct online {
    float m, s;
};

/* Add element @p x to the state @p o. */
static __device__ void online_add(struct online *o, float x)
{
    // The new max m'; s = s * exp(m - m') + exp(x - m'). While every element so far is -inf,
    // m' is -inf too and both exponents would be NaN (-inf - -inf): add nothing then.
    // BEGIN SOLUTION
    float m = fmaxf(o->m, x);
    if (m == -INFINITY)
        return;
    o->s = o->s * __expf(o->m - m) + __expf(x - m); /* exp(-inf) = 0 rescales the empty state */
    o->m = m;
    // END SOLUTION
}

/* The state of the union of two disjoint sets of elements, from theirs. */
static __device__ struct online online_merge(struct online a, struct online b)
{
    struct online o = a;
    // The new max is the larger one; each sum is rescaled to it. Two empty states stay empty.
    // BEGIN SOLUTION
    o.m = fmaxf(a.m, b.m);
    if (o.m != -INFINITY)
        o.s = a.s * __expf(a.m - o.m) + b.s * __expf(b.m - o.m);
    // END SOLUTION
    return o;
}

/* Merge @p o over the warp: every lane ends with the state of all 32 lanes' elements. */
static __device__ struct online warp_merge(struct online o)
{
    for (int off = WARP / 2; off > 0; off /= 2) {
        struct online other = {__shfl_xor_sync(FULL_MASK, o.m, off),
                               __shfl_xor_sync(FULL_MASK, o.s, off)};
        o = online_merge(o, other);
    }
    return o;
}

/* The output of an element @p x of a row whose state is @p o, given @p inv = 1 / o.s (one
 * division a row, not one an element): exp(x - m) / s, and 0 on a row of -inf. */
static __device__ float online_output(struct online o, float inv, float x)
{
    return o.m == -INFINITY ? 0.0f : __expf(x - o.m) * inv;
}

/*
 * One warp per row, for rows of at most SOFTMAX_WARP_COLS: lane l holds elements l, l + 32,
 * ... in v[] (a fully unrolled loop, so v stays in registers), so the row is read from global
 * memory once and written once.
 */
static __global__ void __launch_bounds__(ROW_THREADS)
    softmax_warp_kernel(int rows, int cols, const float *x, float *y)
{
    int lane = threadIdx.x % WARP;
    int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP; /* this warp's row */
    if (row >= rows)
        return; /* the whole warp leaves together: row is uniform across it */
    const float *xr = x + (size_t)row * cols;
    float *yr = y + (size_t)row * cols;
    float v[PER_LANE];
    // Load the row into v (element lane + 32 k in v[k], -inf past the end) while adding each
    // to this lane's state, merge the lanes' states, then write every element from v.
    // BEGIN SOLUTION
    struct online o = {-INFINITY, 0.0f};
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + k * WARP; /* consecutive lanes, consecutive columns: coalesced */
        v[k] = c < cols ? xr[c] : -INFINITY;
        online_add(&o, v[k]);
    }
    o = warp_merge(o);
    float inv = 1.0f / o.s; /* s >= 1 unless the row is all -inf (then unused) */
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + k * WARP;
        if (c < cols)
            yr[c] = online_output(o, inv, v[k]);
    }
    // END SOLUTION
}

/*
 * One block per row, for rows longer than a warp holds: each thread runs the online state over
 * its strided elements (one read), the block merges the 256 states (shuffles in each warp, then
 * the 8 warp states through shared memory), and a second pass writes the output, reading x
 * again: a row of 100k floats does not fit on the chip.
 */
static __global__ void __launch_bounds__(ROW_THREADS)
    softmax_block_kernel(int cols, const float *x, float *y)
{
    __shared__ struct online part[ROW_THREADS / WARP];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;
    int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    // The thread's state over columns threadIdx.x, + ROW_THREADS, ...; warp_merge; lane 0 of
    // each warp stores its warp's state in part[]; after a barrier every thread merges the
    // 8 states in the same order; then the output pass.
    // BEGIN SOLUTION
    struct online o = {-INFINITY, 0.0f};
    for (int c = threadIdx.x; c < cols; c += ROW_THREADS)
        online_add(&o, xr[c]);
    o = warp_merge(o);
    if (lane == 0)
        part[warp] = o;
    __syncthreads(); /* every warp's state is in part[] */
    o = part[0];
    for (int w = 1; w < ROW_THREADS / WARP; w++)
        o = online_merge(o, part[w]);
    float inv = 1.0f / o.s;
    for (int c = threadIdx.x; c < cols; c += ROW_THREADS)
        yr[c] = online_output(o, inv, xr[c]);
    // END SOLUTION
}

extern "C" void softmax_online(int rows, int cols, const float *d_x, float *d_y)
{
    if (cols <= SOFTMAX_WARP_COLS) {
        int blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
        softmax_warp_kernel<<<blocks, ROW_THREADS>>>(rows, cols, d_x, d_y);
    } else {
        softmax_block_kernel<<<rows, ROW_THREADS>>>(cols, d_x, d_y);
    }
    CUDA_CHECK_LAUNCH();
}
