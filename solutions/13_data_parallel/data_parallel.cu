/**
 * @file data_parallel.cu
 * @brief Lesson 13: the kernels of the trainer's CUDA path.
 *
 * The GEMMs carry the FLOPs; everything else is a memory-bound pass that is
 * fused so each tensor is read and written once. Launchers take a stream and
 * never synchronise. Versions and kernels, in the order a step runs them:
 *   gpu_gather            pixels of a shard (by index) to normalised floats (and 16-bit)
 *   gpu_convert           fp32 master weights to their 16-bit copy (mixed precision)
 *   gpu_gemm_course       C = alpha op(A) op(B) + beta C, 32 x 32 shared-memory tiles
 *   gpu_transpose         x^T through a padded shared tile (lesson 03), for lesson 05's GEMM
 *   gpu_bias_act          fused bias + ReLU (+ the 16-bit copy the next GEMM reads)
 *   gpu_xent              cross-entropy and its gradient from the softmax (lesson 11's
 *                         softmax_online, which the trainer runs first), a warp per row
 *   gpu_bias_act_backward fused ReLU mask + bias gradient (column sums, 8 row groups
 *                         per column meeting in shared memory) + 16-bit copy
 *   gpu_allreduce_mean    the course's all-reduce for replicas sharing one GPU
 *   gpu_scale_check       unscale gradients and flag inf/nan (fp16 loss scaling)
 *   gpu_opt_step          SGD with momentum / AdamW, one thread per parameter
 */
#include "data_parallel.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <float.h>

#include "cuda_check.h"

enum { EW_THREADS = 256, GEMM_TILE = 32, GEMM_ROWS = 8 };

/* Enough blocks of EW_THREADS for @p n elements, capped (the loops are grid-stride). */
static int ew_blocks(size_t n)
{
    size_t b = (n + EW_THREADS - 1) / EW_THREADS;
    return b == 0 ? 1 : (b > 4096 ? 4096 : (int)b);
}

static __device__ __forceinline__ float load_as_f32(const void *p, size_t i, enum gpu_dtype t)
{
    if (t == GPU_BF16)
        return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
    if (t == GPU_F16)
        return __half2float(((const __half *)p)[i]);
    return ((const float *)p)[i];
}

static __device__ __forceinline__ void store_lo(void *p, size_t i, float v, enum gpu_dtype t)
{
    if (t == GPU_BF16)
        ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
    else if (t == GPU_F16)
        ((__half *)p)[i] = __float2half(v);
    else
        ((float *)p)[i] = v;
}

static __global__ void gpu_gather_kernel(const uint8_t *images, const uint8_t *labels,
                                         const int *idx, int B, int px, float mean, float inv_std,
                                         float *x, void *x_lo, enum gpu_dtype lo, uint8_t *y)
{
    size_t n = (size_t)B * px;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t r = i / px, p = i % px; /* sample r of the shard, pixel p */
        float v = images[(size_t)idx[r] * px + p] * (1.0f / 255.0f);
        v = (v - mean) * inv_std;
        x[i] = v;
        if (x_lo)
            store_lo(x_lo, i, v, lo);
        if (p == 0)
            y[r] = labels[idx[r]];
    }
}

extern "C" void gpu_gather(const uint8_t *d_images, const uint8_t *d_labels, const int *d_idx,
                           int B, int px, float mean, float std, float *d_x, void *d_x_lo,
                           enum gpu_dtype lo, uint8_t *d_y, void *stream)
{
    size_t n = (size_t)B * px;
    int blocks = ew_blocks(n);
    gpu_gather_kernel<<<blocks, EW_THREADS, 0, (cudaStream_t)stream>>>(
        d_images, d_labels, d_idx, B, px, mean, 1.0f / std, d_x, d_x_lo, lo, d_y);
    CUDA_CHECK_LAUNCH();
}

static __global__ void gpu_convert_kernel(const float *x, void *y, enum gpu_dtype lo, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        store_lo(y, i, x[i], lo);
}

extern "C" void gpu_convert(const float *x, void *y, enum gpu_dtype lo, size_t n, void *stream)
{
    int blocks = ew_blocks(n);
    gpu_convert_kernel<<<blocks, EW_THREADS, 0, (cudaStream_t)stream>>>(x, y, lo, n);
    CUDA_CHECK_LAUNCH();
}

/*
 * Block (32 x 8 threads) computes a 32 x 32 tile of C; each thread 4 outputs,
 * rows ty, ty + 8, ty + 16, ty + 24 of the tile, column tx. op(A)(m, k) is
 * A[m * lda + k], or A[k * lda + m] when transposed; the same for B. The tiles
 * are loaded along the operand's rows in memory, whichever way it is stored:
 * a transposed operand is written into its tile column by column, so that a
 * warp always reads 32 neighbouring elements (coalesced) and the padded tile
 * takes the column writes without bank conflicts.
 */
static __global__ void gpu_gemm_course_kernel(int ta, int tb, int M, int N, int K, float alpha,
                                              const void *A, int lda, const void *B, int ldb,
                                              float beta, float *C, int ldc, enum gpu_dtype ab)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE + 1]; /* op(A) tile, [m][k]; +1 against conflicts */
    __shared__ float Bs[GEMM_TILE][GEMM_TILE + 1]; /* op(B) tile, [k][n] */
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * GEMM_TILE, col0 = blockIdx.x * GEMM_TILE; /* the tile's corner */
    float acc[GEMM_TILE / GEMM_ROWS] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += GEMM_TILE) {
        // Goal: As = op(A)'s tile at (row0, k0) and Bs = op(B)'s at (k0, col0), 0 outside
        // the matrices, each warp reading 32 consecutive addresses whether or not the
        // operand is transposed (gemm_course_coalesced counts it). load_as_f32 reads any dtype.
        // BEGIN SOLUTION
        for (int i = ty; i < GEMM_TILE; i += GEMM_ROWS) {
            int ar = ta ? tx : i, ac = ta ? i : tx; /* this thread's As[ar][ac] */
            int m = row0 + ar, k = k0 + ac;         /* = op(A)(m, k) */
            size_t ia = ta ? (size_t)k * lda + m : (size_t)m * lda + k; /* tx: +1 either way */
            As[ar][ac] = m < M && k < K ? load_as_f32(A, ia, ab) : 0.0f;
            int br = tb ? tx : i, bc = tb ? i : tx; /* this thread's Bs[br][bc] */
            int kb = k0 + br, n = col0 + bc;        /* = op(B)(kb, n) */
            size_t ib = tb ? (size_t)n * ldb + kb : (size_t)kb * ldb + n; /* tx: +1 either way */
            Bs[br][bc] = kb < K && n < N ? load_as_f32(B, ib, ab) : 0.0f;
        }
        // END SOLUTION
        __syncthreads(); /* both tiles are loaded before anyone reads them */
        // Goal: add this pair of tiles' share to acc[j] = C(row0 + ty + 8 j, col0 + tx).
        // BEGIN SOLUTION
        for (int k = 0; k < GEMM_TILE; k++)
            for (int j = 0; j < GEMM_TILE / GEMM_ROWS; j++)
                acc[j] += As[ty + j * GEMM_ROWS][k] * Bs[k][tx];
        // END SOLUTION
        __syncthreads(); /* everyone is done reading before the next tiles overwrite them */
    }
    // Goal: C = alpha acc + beta C at this thread's outputs inside C; with beta == 0, C is
    // not read (it may hold NaN).
    // BEGIN SOLUTION
    for (int j = 0; j < GEMM_TILE / GEMM_ROWS; j++) {
        int m = row0 + ty + j * GEMM_ROWS, n = col0 + tx; /* this thread's C(m, n) */
        if (m < M && n < N) {
            float *c = &C[(size_t)m * ldc + n];
            *c = alpha * acc[j] + (beta == 0.0f ? 0.0f : beta * *c);
        }
    }
    // END SOLUTION
}

extern "C" void gpu_gemm_course(int ta, int tb, int M, int N, int K, float alpha, const void *A,
                                int lda, const void *B, int ldb, float beta, float *C, int ldc,
                                enum gpu_dtype ab, void *stream)
{
    dim3 block(GEMM_TILE, GEMM_ROWS);
    dim3 grid((N + GEMM_TILE - 1) / GEMM_TILE, (M + GEMM_TILE - 1) / GEMM_TILE);
    gpu_gemm_course_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(ta, tb, M, N, K, alpha, A, lda,
                                                                     B, ldb, beta, C, ldc, ab);
    CUDA_CHECK_LAUNCH();
}

/*
 * Block (32 x 8 threads) moves a 32 x 32 tile: it reads rows of x (a warp reads 32
 * neighbouring floats), and writes rows of y, so both sides are coalesced; the tile's
 * padding column keeps the column reads of shared memory free of bank conflicts.
 */
static __global__ void gpu_transpose_kernel(const float *x, float *y, int rows, int cols)
{
    __shared__ float tile[GEMM_TILE][GEMM_TILE + 1]; /* [row of x][column of x] in the tile */
    int tx = threadIdx.x, ty = threadIdx.y;
    int r0 = blockIdx.y * GEMM_TILE, c0 = blockIdx.x * GEMM_TILE; /* the tile's corner in x */
    for (int i = ty; i < GEMM_TILE; i += GEMM_ROWS)
        if (r0 + i < rows && c0 + tx < cols)
            tile[i][tx] = x[(size_t)(r0 + i) * cols + c0 + tx];
    __syncthreads(); /* the whole tile is in before any thread reads a column of it */
    for (int i = ty; i < GEMM_TILE; i += GEMM_ROWS)
        if (c0 + i < cols && r0 + tx < rows) /* y(c0 + i, r0 + tx) = x(r0 + tx, c0 + i) */
            y[(size_t)(c0 + i) * rows + r0 + tx] = tile[tx][i];
}

extern "C" void gpu_transpose(const float *x, float *y, int rows, int cols, void *stream)
{
    dim3 block(GEMM_TILE, GEMM_ROWS);
    dim3 grid((cols + GEMM_TILE - 1) / GEMM_TILE, (rows + GEMM_TILE - 1) / GEMM_TILE);
    gpu_transpose_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(x, y, rows, cols);
    CUDA_CHECK_LAUNCH();
}

static __global__ void gpu_bias_act_kernel(float *y, const float *b, int B, int N, int relu,
                                           void *y_lo, enum gpu_dtype lo)
{
    size_t n = (size_t)B * N;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        // Contract: gpu_bias_act in data_parallel.h, for element i of the B x N y.
        // BEGIN SOLUTION
        float v = y[i] + b[i % N]; /* element (i / N, i % N): column i % N's bias */
        v = relu && v < 0.0f ? 0.0f : v;
        y[i] = v;
        if (y_lo)
            store_lo(y_lo, i, v, lo);
        // END SOLUTION
    }
}

extern "C" void gpu_bias_act(float *y, const float *b, int B, int N, int relu, void *y_lo,
                             enum gpu_dtype lo, void *stream)
{
    int blocks = ew_blocks((size_t)B * N);
    gpu_bias_act_kernel<<<blocks, EW_THREADS, 0, (cudaStream_t)stream>>>(y, b, B, N, relu, y_lo,
                                                                         lo);
    CUDA_CHECK_LAUNCH();
}

/*
 * One warp per row: lanes stride over the row's C probabilities, and butterfly shuffles give
 * every lane the row's first largest (the prediction); each lane writes its columns' gradient,
 * and lane 0 adds the row's loss and whether the prediction is right.
 */
static __global__ void gpu_xent_kernel(const float *probs, const uint8_t *labels, int B, int C,
                                       float scale, float *dlogits, float *loss_acc)
{
    // Your design (lesson 13, "The open task"): any mapping of rows to threads that meets
    // gpu_xent's contract in data_parallel.h for every C >= 1, with a finite loss for a label
    // whose probability underflowed to 0.
    // BEGIN SOLUTION
    int lane = threadIdx.x % 32;
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; /* this warp's row */
    if (row >= B)
        return; /* the whole warp leaves together: row is uniform across it */
    const float *p = probs + (size_t)row * C;
    float pmax = -1.0f; /* below every probability */
    int best = C;
    for (int c = lane; c < C; c += 32)
        if (p[c] > pmax || (p[c] == pmax && c < best)) {
            pmax = p[c];
            best = c;
        }
    for (int off = 16; off > 0; off /= 2) { /* butterfly: every lane ends with the row's max */
        float om = __shfl_xor_sync(0xffffffffu, pmax, off);
        int ob = __shfl_xor_sync(0xffffffffu, best, off);
        if (om > pmax || (om == pmax && ob < best)) {
            pmax = om;
            best = ob;
        }
    }
    int label = labels[row];
    for (int c = lane; c < C; c += 32)
        dlogits[(size_t)row * C + c] = (p[c] - (c == label ? 1.0f : 0.0f)) * scale / (float)B;
    if (lane == 0) {
        atomicAdd(&loss_acc[0], -logf(fmaxf(p[label], FLT_MIN))); /* -log softmax_label */
        atomicAdd(&loss_acc[1], best == label ? 1.0f : 0.0f);
    }
    // END SOLUTION
}

extern "C" void gpu_xent(const float *probs, const uint8_t *labels, int B, int C, float scale,
                         float *dlogits, float *loss_acc, void *stream)
{
    // Launch your design on @p stream, then CUDA_CHECK_LAUNCH().
    // BEGIN SOLUTION
    int rows_per_block = EW_THREADS / 32;
    int blocks = (B + rows_per_block - 1) / rows_per_block;
    gpu_xent_kernel<<<blocks, EW_THREADS, 0, (cudaStream_t)stream>>>(probs, labels, B, C, scale,
                                                                     dlogits, loss_acc);
    CUDA_CHECK_LAUNCH();
    // END SOLUTION
}

/*
 * Block (32 x 8 threads) owns 32 columns. Thread (tx, ty) takes column
 * n = 32 blockIdx.x + tx and rows ty, ty + 8, ...: a warp (one ty) reads 32
 * neighbouring floats of a row, coalesced. Each thread masks, converts and
 * sums its rows; the 8 partial sums of a column meet in shared memory and are
 * added in a fixed order, so db is the same bit for bit on every run.
 */
static __global__ void gpu_bias_act_backward_kernel(float *dy, const float *y, int B, int N,
                                                    int relu, float *db, void *dy_lo,
                                                    enum gpu_dtype lo)
{
    __shared__ float part[GEMM_ROWS][GEMM_TILE + 1]; /* [row group][column in the block] */
    int tx = threadIdx.x, ty = threadIdx.y;
    int n = blockIdx.x * GEMM_TILE + tx; /* column 0 .. N-1, plus overhang */
    float sum = 0.0f;
    // Goal: this thread's rows of column n through ReLU's derivative (the README's backprop
    // says where it is 0, from the output y alone), written back with their 16-bit copy,
    // and summed into sum.
    // BEGIN SOLUTION
    if (n < N) {
        for (int r = ty; r < B; r += GEMM_ROWS) {
            size_t i = (size_t)r * N + n; /* element (r, n) */
            float v = dy[i];
            if (relu && y[i] <= 0.0f)
                v = 0.0f; /* ReLU passes no gradient where it output 0 */
            dy[i] = v;
            if (dy_lo)
                store_lo(dy_lo, i, v, lo);
            sum += v;
        }
    }
    // END SOLUTION
    part[ty][tx] = sum;
    __syncthreads(); /* all 8 partial sums of each column are in shared memory */
    // Goal: db[n] = the column's total, the same bit for bit on every run.
    // BEGIN SOLUTION
    if (ty == 0 && n < N) {
        float total = 0.0f;
        for (int k = 0; k < GEMM_ROWS; k++)
            total += part[k][tx];
        db[n] = total;
    }
    // END SOLUTION
}

extern "C" void gpu_bias_act_backward(float *dy, const float *y, int B, int N, int relu, float *db,
                                      void *dy_lo, enum gpu_dtype lo, void *stream)
{
    dim3 block(GEMM_TILE, GEMM_ROWS);
    int blocks = (N + GEMM_TILE - 1) / GEMM_TILE;
    gpu_bias_act_backward_kernel<<<blocks, block, 0, (cudaStream_t)stream>>>(dy, y, B, N, relu, db,
                                                                             dy_lo, lo);
    CUDA_CHECK_LAUNCH();
}

/* Element i of every replica's buffer: one read of each, one write of each. */
static __global__ void gpu_allreduce_mean_kernel(float *const *bufs, int nrep, size_t n, int sum)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float acc = 0.0f;
        for (int r = 0; r < nrep; r++) /* replicas in a fixed order: deterministic */
            acc += bufs[r][i];
        // Contract: gpu_allreduce_mean in data_parallel.h, for element i.
        // BEGIN SOLUTION
        if (!sum)
            acc /= (float)nrep;
        for (int r = 0; r < nrep; r++)
            bufs[r][i] = acc;
        // END SOLUTION
    }
}

extern "C" void gpu_allreduce_mean(float *const *d_bufs, int nrep, size_t n, int sum, void *stream)
{
    int blocks = ew_blocks(n);
    gpu_allreduce_mean_kernel<<<blocks, EW_THREADS, 0, (cudaStream_t)stream>>>(d_bufs, nrep, n,
                                                                               sum);
    CUDA_CHECK_LAUNCH();
}

static __global__ void gpu_scale_check_kernel(float *x, size_t n, float s, int *flag)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float v = x[i] * s;
        x[i] = v;
        if (flag && !isfinite(v))
            *flag = 1; /* a benign race: every writer writes 1 */
    }
}

extern "C" void gpu_scale_check(float *x, size_t n, float s, int *d_flag, void *stream)
{
    int blocks = ew_blocks(n);
    gpu_scale_check_kernel<<<blocks, EW_THREADS, 0, (cudaStream_t)stream>>>(x, n, s, d_flag);
    CUDA_CHECK_LAUNCH();
}

static __global__ void gpu_sgd_kernel(float *p, const float *g, float *v, size_t n, float lr,
                                      float mu, float wd)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        // Goal: parameter i's update, the same arithmetic as opt_step() in mlp.c.
        // BEGIN SOLUTION
        float gi = g[i] + wd * p[i];
        v[i] = mu * v[i] + gi;
        p[i] -= lr * v[i];
        // END SOLUTION
    }
}

static __global__ void gpu_adamw_kernel(float *p, const float *g, float *m, float *v, size_t n,
                                        float lr, float b1, float b2, float eps, float wd, float c1,
                                        float c2)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        // Goal: parameter i's update, the same arithmetic as opt_step() in mlp.c
        // (c1 and c2 are the bias corrections 1 - beta^step).
        // BEGIN SOLUTION
        float gi = g[i];
        p[i] -= lr * wd * p[i];
        m[i] = b1 * m[i] + (1.0f - b1) * gi;
        v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
        p[i] -= lr * (m[i] / c1) / (sqrtf(v[i] / c2) + eps);
        // END SOLUTION
    }
}

extern "C" void gpu_opt_step(const struct opt_config *o, float *params, const float *grads,
                             float *state, size_t n, long long step, void *stream)
{
    int blocks = ew_blocks(n);
    cudaStream_t s = (cudaStream_t)stream;
    if (o->kind == OPT_SGD) {
        gpu_sgd_kernel<<<blocks, EW_THREADS, 0, s>>>(params, grads, state, n, o->lr, o->momentum,
                                                     o->weight_decay);
    } else {
        float c1 = 1.0f - powf(o->beta1, (float)step), c2 = 1.0f - powf(o->beta2, (float)step);
        gpu_adamw_kernel<<<blocks, EW_THREADS, 0, s>>>(params, grads, state, state + n, n, o->lr,
                                                       o->beta1, o->beta2, o->eps, o->weight_decay,
                                                       c1, c2);
    }
    CUDA_CHECK_LAUNCH();
}
