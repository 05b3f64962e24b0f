/**
 * @file attention.cu
 * @brief Lesson 11, step 3: attention's forward pass, O = softmax(Q K^T / sqrt(d)) V, with the
 *        N x N matrix through memory and without.
 *
 * heads x (n_q x d) queries against heads x (n_k x d) keys and values, d = 64 or 128, fp16 or
 * bf16 in and out, fp32 scores and statistics, causal or not, any n_q and n_k (tiles on the
 * edges are zero-filled and masked). Versions, in order:
 *   attention_unfused  lesson 10's GEMM (mma_pipelined, or mma_bf16) head by head for
 *                      S = Q K^T (K transposed first: that GEMM takes B as k x n), S scaled and
 *                      masked, softmax_online (softmax.cu: P to global memory), P rounded to 16
 *                      bits, lesson 10's GEMM again for O = P V
 *   flash_attention    one kernel: 64 queries per block, Q in registers, 64-key tiles of K and V
 *                      through shared memory with cp.async, S and P in registers, an online
 *                      softmax across the tiles
 * Both products of both versions run on the Tensor Cores through mma.sync.m16n8k16. The fused
 * kernel's (PTX, inline) take their operands from shared memory by ldmatrix, as lesson 10
 * teaches; its shared tiles are swizzled (16-byte chunk c of row r stored at chunk c ^ (r % 8)),
 * so that the 8 row addresses of an ldmatrix land in 8 different groups of banks. Needs sm_80
 * (cp.async, m16n8k16).
 *
 * Build and check: ./course check 11; measure: ./course bench 11.
 */
#include "fused_attention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda_check.h"
#include "device.h"
#include "mma_pipeline.h"

enum {
    WARP = 32,
    BM = 64,                /* queries per block: 16 per warp, one mma row block */
    BN = 64,                /* keys per tile */
    WARPS = BM / 16,        /* 4 warps, each owning 16 query rows */
    THREADS = WARPS * WARP, /* 128 */
    NT = BN / 8,            /* a warp's S tile (16 x 64) is 8 mma tiles of 16 x 8 */
    CHUNK = 8,              /* 16-bit elements per 16-byte chunk */
};

/* ---- the PTX this file needs ---------------------------------------------------------------- */

/* The device code from here to the kernels needs sm_80 (cp.async, mma.sync m16n8k16): the sm_75
 * build, which the launchers never start, compiles only the kernels' stubs. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800

/* The shared-memory address of @p p, as ldmatrix and cp.async take it. */
static __device__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Copy 16 bytes from global @p src to shared @p dst without passing through registers; with
 * @p valid false, write 16 zero bytes and read nothing (src-size 0). */
static __device__ void cp_async16(void *dst, const void *src, bool valid)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(valid ? 16 : 0));
}

/* Close the group of copies issued since the last commit (an empty group is fine). */
static __device__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}

/* Wait until at most @p N committed groups, the newest, are still in flight. */
template <int N> static __device__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* Four 8 x 8 matrices of 16-bit elements: lane l gives the address of row l % 8 of matrix
 * l / 8, and gets element pair (l / 4, 2 (l % 4)) of each in r[0..3] (.trans: the transposed
 * matrices). */
static __device__ void ldsm_x4(uint32_t r[4], const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}

static __device__ void ldsm_x4_trans(uint32_t r[4], const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}

/* c (16 x 8, fp32) += a (16 x 16) * b (16 x 8), in the register layouts of the PTX ISA's
 * mma.m16n8k16 (figures in lesson 10); the last argument picks the 16-bit format. */
static __device__ void mma16816(float c[4], const uint32_t a[4], const uint32_t b[2], __half)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

static __device__ void mma16816(float c[4], const uint32_t a[4], const uint32_t b[2], __nv_bfloat16)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Two floats rounded to the 16-bit format, packed: @p lo in the low half (the lower column). */
static __device__ uint32_t pack2(float lo, float hi, __half)
{
    __half2 h = __floats2half2_rn(lo, hi);
    uint32_t u;
    memcpy(&u, &h, sizeof u);
    return u;
}

static __device__ uint32_t pack2(float lo, float hi, __nv_bfloat16)
{
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    uint32_t u;
    memcpy(&u, &h, sizeof u);
    return u;
}

/* ---- swizzled tiles in shared memory -------------------------------------------------------- */

/* Element (r, c) of a tile with COLS 16-bit columns: chunk c / 8 of row r is stored at chunk
 * (c / 8) ^ (r % 8) of that row (rows of fewer than 8 chunks XOR with fewer bits of r, so the
 * chunk stays in its row). */
template <int COLS> static __device__ int swz(int r, int c)
{
    constexpr int CH = COLS / CHUNK, MIX = CH < 8 ? CH : 8;
    return (r * CH + ((c / CHUNK) ^ (r % MIX))) * CHUNK + c % CHUNK;
}

/* Issue cp.async copies of the first @p rows rows (the rest zero-filled) of the ROWS x COLS
 * tile at @p src (rows COLS elements apart) into @p tile: consecutive threads copy consecutive
 * 16-byte chunks of a row, so a warp reads 512 contiguous bytes. */
template <int ROWS, int COLS>
static __device__ void load_tile(uint16_t *tile, const uint16_t *src, int rows)
{
    constexpr int CH = COLS / CHUNK;
#pragma unroll
    for (int it = 0; it < ROWS * CH / THREADS; it++) {
        int i = threadIdx.x + it * THREADS, r = i / CH, c = (i % CH) * CHUNK;
        bool ok = r < rows; /* rows past the edge: no read, zeros written */
        cp_async16(tile + swz<COLS>(r, c), src + (size_t)(ok ? r : 0) * COLS + c, ok);
    }
}

/* The warp's A fragments of rows 16 w .. 16 w + 15 of a 64 x COLS tile, one per 16 columns:
 * for the k-th, lane l addresses row l % 8 (+ 8 for l / 8 odd), chunk 2 k + l / 16, which is
 * matrices a0..a3 of mma.m16n8k16 in order. */
template <int COLS>
static __device__ void load_a_frags(uint32_t f[COLS / 16][4], const uint16_t *tile, int warp,
                                    int lane)
{
    int r = warp * 16 + lane % 8 + ((lane / 8) % 2) * 8;
#pragma unroll
    for (int k = 0; k < COLS / 16; k++)
        ldsm_x4(f[k], tile + swz<COLS>(r, (2 * k + lane / 16) * CHUNK));
}

/* ---- the two products, per warp ------------------------------------------------------------- */

/*
 * s (16 x 64) = the warp's queries q (A fragments) times the 64 keys of @p kt (64 x D) turned
 * on their side: mma's B operand is K x N "col", so key j's row of kt is column j of B, and a
 * plain ldmatrix gives its fragment. One x4 load serves two 8-key n-tiles: matrix l / 8 is keys
 * 8 (j + l / 16) .. + 7, chunk 2 k + (l / 8) % 2. s[j][0..1] is row l / 4, keys 8 j + 2 (l % 4)
 * + 0..1; s[j][2..3] the same 8 rows further down.
 */
template <int D, typename T>
static __device__ void warp_scores(float s[NT][4], const uint32_t q[D / 16][4], const uint16_t *kt,
                                   int lane)
{
    // Zero s, then for every 16-deep step k of D and every pair of n-tiles (j, j + 1): one
    // ldsm_x4 of kt (addresses as above), two mma16816 into s[j] and s[j + 1].
    // BEGIN SOLUTION
#pragma unroll
    for (int j = 0; j < NT; j++)
        s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
#pragma unroll
    for (int k = 0; k < D / 16; k++)
#pragma unroll
        for (int j = 0; j < NT; j += 2) {
            uint32_t b[4];
            int key = (j + lane / 16) * 8 + lane % 8;
            ldsm_x4(b, kt + swz<D>(key, (2 * k + (lane / 8) % 2) * CHUNK));
            mma16816(s[j], q[k], &b[0], T());
            mma16816(s[j + 1], q[k], &b[2], T());
        }
    // END SOLUTION
}

/*
 * o (16 x D) += p (16 x 64, A fragments) times the 64 x D tile @p vt. A value row is a row of
 * B ("row" layout in memory), so ldmatrix.trans turns each 8 x 8 block into the "col"
 * fragment: for 16-key step k and n-tiles (j, j + 1), matrix l / 8 is keys 16 k + 8 ((l / 8) % 2)
 * .. + 7, chunk j + l / 16.
 */
template <int D, typename T>
static __device__ void warp_pv(float o[D / 8][4], const uint32_t p[BN / 16][4], const uint16_t *vt,
                               int lane)
{
    // For every 16-key step k and every pair of n-tiles (j, j + 1) of D: one ldsm_x4_trans of
    // vt, two mma16816 into o[j] and o[j + 1].
    // BEGIN SOLUTION
#pragma unroll
    for (int k = 0; k < BN / 16; k++)
#pragma unroll
        for (int j = 0; j < D / 8; j += 2) {
            uint32_t b[4];
            int key = 16 * k + ((lane / 8) % 2) * 8 + lane % 8;
            ldsm_x4_trans(b, vt + swz<D>(key, (j + lane / 16) * CHUNK));
            mma16816(o[j], p[k], &b[0], T());
            mma16816(o[j + 1], p[k], &b[2], T());
        }
    // END SOLUTION
}

/* Write the warp's 16 x D output rows o * inv[row] (inv[0] for row l / 4, inv[1] for the row 8
 * further) in 16-bit through its own 16 rows of @p stage (a 64 x D swizzled tile no other warp
 * uses now), then to @p out (rows D apart, the first @p rows of the block's 64 valid) in
 * 16-byte chunks, coalesced. */
template <int D, typename T>
static __device__ void store_o(const float o[D / 8][4], const float inv[2], uint16_t *stage,
                               uint16_t *out, int rows, int warp, int lane)
{
    int r = warp * 16 + lane / 4, c = 2 * (lane % 4);
    __syncwarp(); /* the warp's last reads of these rows (ldmatrix) are done before any write */
#pragma unroll
    for (int j = 0; j < D / 8; j++) {
        *(uint32_t *)&stage[swz<D>(r, 8 * j + c)] = pack2(o[j][0] * inv[0], o[j][1] * inv[0], T());
        *(uint32_t *)&stage[swz<D>(r + 8, 8 * j + c)] =
            pack2(o[j][2] * inv[1], o[j][3] * inv[1], T());
    }
    __syncwarp(); /* the warp's rows are staged before its lanes read each other's */
    constexpr int CH = D / CHUNK;
#pragma unroll
    for (int it = 0; it < 16 * CH / WARP; it++) {
        int i = lane + it * WARP, rr = warp * 16 + i / CH, cc = (i % CH) * CHUNK;
        if (rr < rows)
            *(uint4 *)&out[(size_t)rr * D + cc] = *(const uint4 *)&stage[swz<D>(rr, cc)];
    }
}

/* ---- masks ---------------------------------------------------------------------------------- */

/* Keys of the tiles a block of queries q0 .. q0 + BM - 1 must visit: all n_k, or with @p causal
 * those the block's last query sees (query i sees key j <= i + n_k - n_q); 0 or fewer: none. */
static __device__ int visible_keys(int n_q, int n_k, int q0, int causal)
{
    int last = (q0 + BM < n_q ? q0 + BM : n_q) - 1;
    int keys = causal ? last + n_k - n_q + 1 : n_k;
    return keys < n_k ? keys : n_k;
}

/* Set to -inf the scores of the warp's s (keys k0 ..) that query row q (and q + 8) must not
 * see: keys past n_k, and with @p causal those after the query's diagonal. */
static __device__ void mask_scores(float s[NT][4], int k0, int q, int n_q, int n_k, int causal,
                                   int lane)
{
#pragma unroll
    for (int j = 0; j < NT; j++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            int key = k0 + 8 * j + 2 * (lane % 4) + e % 2, row = q + (e / 2) * 8;
            if (key >= n_k || (causal && key > row + n_k - n_q))
                s[j][e] = -INFINITY;
        }
}

#endif /* sm_80 and newer */

/* ---- attention_unfused: lesson 10's GEMM, softmax_online, lesson 10's GEMM --------------------
 */

/* Kt[h] (cols x rows) = In[h] (rows x cols)^T for every head h (blockIdx.z), 16-bit values. A
 * block moves one 32 x 32 tile through shared memory, 32 x 8 threads each taking 4 rows, so
 * that both the reads of In and the writes of Kt run along rows; edge tiles are guarded. */
static __global__ void transpose16_kernel(int rows, int cols, const uint16_t *in, uint16_t *kt)
{
    /* [row of In][column of In], two halves of padding: a row is 17 words, an odd number, so
     * the 32 halves of a column lie in 32 different banks */
    __shared__ uint16_t tile[32][34];
    const uint16_t *src = in + (size_t)blockIdx.z * rows * cols;
    uint16_t *dst = kt + (size_t)blockIdx.z * rows * cols;
    int r0 = blockIdx.y * 32, c0 = blockIdx.x * 32, x = threadIdx.x;
    for (int i = threadIdx.y; i < 32; i += blockDim.y) /* In's rows r0 + i, column c0 + x */
        if (r0 + i < rows && c0 + x < cols)
            tile[i][x] = src[(size_t)(r0 + i) * cols + c0 + x];
    __syncthreads(); /* the whole tile is in before any thread reads another's element */
    for (int i = threadIdx.y; i < 32; i += blockDim.y) /* Kt's rows c0 + i, column r0 + x */
        if (c0 + i < cols && r0 + x < rows)
            dst[(size_t)(c0 + i) * rows + r0 + x] = tile[x][i];
}

/* S = scale * S over heads x n_q x n_k scores, and -inf where query i must not see key j
 * (causal: j > i + n_k - n_q); a grid-stride loop, a thread per score. */
static __global__ void scale_mask_kernel(size_t n, int n_q, int n_k, int causal, float scale,
                                         float *S)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        int j = (int)(e % n_k), i = (int)(e / n_k % n_q); /* key j of query i, of some head */
        S[e] = causal && j > i + n_k - n_q ? -INFINITY : S[e] * scale;
    }
}

/* y = x rounded to the 16-bit format (to nearest even; bfloat16 with @p bf16), n values; a
 * grid-stride loop. */
static __global__ void round16_kernel(size_t n, int bf16, const float *x, uint16_t *y)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x)
        y[e] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x[e]))
                    : __half_as_ushort(__float2half_rn(x[e]));
}

/* ---- flash_attention ------------------------------------------------------------------------ */

/*
 * The online softmax over one tile of the warp's scores s (raw, -inf where masked), for rows
 * l / 4 (r = 0: s[j][0..1]) and l / 4 + 8 (r = 1: s[j][2..3]). m[r]: the row's running max in
 * units of log2 (score * scale_log2); l[r]: this lane's share of the row's sum of 2^(x - m).
 * Leaves p = 2^(s * scale_log2 - m) in s, and rescales o and l by 2^(m_old - m_new).
 */
template <int D>
static __device__ void online_softmax(float s[NT][4], float o[D / 8][4], float m[2], float l[2],
                                      float scale_log2)
{
    // Per row r: the tile's max over s[j][2r], s[j][2r + 1] and the 4 lanes of the row (shuffle
    // xor 1 and 2); the new max; alpha = exp2f(m_old - new max) (a row that has seen no key yet
    // keeps max -inf: use 0 in its place, or the exponents are NaN); p = exp2f(x * scale_log2 -
    // max) in place (one fma each); l = l * alpha + this lane's sum of p; o *= alpha.
    // BEGIN SOLUTION
#pragma unroll
    for (int r = 0; r < 2; r++) {
        float mx = -INFINITY;
#pragma unroll
        for (int j = 0; j < NT; j++)
            mx = fmaxf(mx, fmaxf(s[j][2 * r], s[j][2 * r + 1]));
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1)); /* the 4 lanes of the row */
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
        float m_new = fmaxf(m[r], mx * scale_log2);
        float shift = m_new == -INFINITY ? 0.0f : m_new; /* no key seen: every p is 0 */
        float alpha = exp2f(m[r] - shift);
        m[r] = m_new;
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int e = 2 * r; e < 2 * r + 2; e++) {
                s[j][e] = exp2f(fmaf(s[j][e], scale_log2, -shift));
                sum += s[j][e];
            }
        l[r] = l[r] * alpha + sum;
#pragma unroll
        for (int j = 0; j < D / 8; j++) {
            o[j][2 * r] *= alpha;
            o[j][2 * r + 1] *= alpha;
        }
    }
    // END SOLUTION
}

/* The A fragments of P (16 x 64) from the scores' accumulators: the m16n8k16 C layout of two
 * neighbouring n-tiles is the A layout of one 16-deep step, so P never leaves the registers. */
template <typename T> static __device__ void pack_p(uint32_t p[BN / 16][4], const float s[NT][4])
{
#pragma unroll
    for (int k = 0; k < BN / 16; k++) {
        p[k][0] = pack2(s[2 * k][0], s[2 * k][1], T());         /* row l / 4, keys 2 (l % 4) */
        p[k][1] = pack2(s[2 * k][2], s[2 * k][3], T());         /* row + 8 */
        p[k][2] = pack2(s[2 * k + 1][0], s[2 * k + 1][1], T()); /* row, keys + 8 */
        p[k][3] = pack2(s[2 * k + 1][2], s[2 * k + 1][3], T()); /* row + 8, keys + 8 */
    }
}

/*
 * One block per 64 queries of one head (blockIdx.y). Shared memory holds the Q tile (moved to
 * registers at the start, reused to stage the output at the end), one K tile and one V tile,
 * each refilled by cp.async while the warps work on the other: K t + 1 is copied while the
 * softmax and P V of tile t run, V t + 1 while the next scores do. Committed groups, in order:
 * {Q, K 0}, {V 0}, then {K t + 1}, {V t + 1} per tile (empty past the last).
 */
template <int D, typename T>
static __global__ void __launch_bounds__(THREADS)
    flash_attention_kernel(int n_q, int n_k, int causal, float scale_log2, const uint16_t *Q,
                           const uint16_t *K, const uint16_t *V, uint16_t *O)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __shared__ __align__(128) uint16_t qs[BM * D], ks[BN * D], vs[BN * D];
    int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    int q0 = blockIdx.x * BM, h = blockIdx.y;
    const uint16_t *Kh = K + (size_t)h * n_k * D, *Vh = V + (size_t)h * n_k * D;
    int keys = visible_keys(n_q, n_k, q0, causal);
    int tiles = keys > 0 ? (keys + BN - 1) / BN : 0;
    int row = q0 + warp * 16 + lane / 4; /* this lane's first query row */
    bool edge = causal || n_k % BN != 0; /* whether some tiles need masking at all */

    load_tile<BM, D>(qs, Q + ((size_t)h * n_q + q0) * D, n_q - q0);
    if (tiles > 0)
        load_tile<BN, D>(ks, Kh, n_k);
    cp_async_commit();
    if (tiles > 0)
        load_tile<BN, D>(vs, Vh, n_k);
    cp_async_commit();
    cp_async_wait<1>(); /* Q and K 0 have landed (V 0 may still be in flight) */
    __syncthreads();    /* ... every thread's copies of them */

    uint32_t q[D / 16][4];
    load_a_frags<D>(q, qs, warp, lane);
    float o[D / 8][4] = {}, m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
    // The tile loop. Per tile t (keys 64 t ..): the scores (warp_scores); a barrier (every warp
    // is done with K t), then copy K t + 1 (load_tile, commit: an empty group past the last
    // tile); mask (mask_scores) where a tile can need it; online_softmax; wait for V t
    // (cp_async_wait<1>: K t + 1 may still fly) and a barrier; pack_p and warp_pv; a barrier
    // (every warp is done with V t), copy V t + 1, commit; wait for K t + 1 and a barrier.
    // BEGIN SOLUTION
    for (int t = 0; t < tiles; t++) {
        int k0 = t * BN;
        float s[NT][4];
        warp_scores<D, T>(s, q, ks, lane);
        __syncthreads(); /* every warp is done reading K t */
        if (t + 1 < tiles)
            load_tile<BN, D>(ks, Kh + (size_t)(k0 + BN) * D, n_k - k0 - BN);
        cp_async_commit();
        if (edge && (k0 + BN > n_k || (causal && k0 + BN - 1 > q0 + n_k - n_q)))
            mask_scores(s, k0, row, n_q, n_k, causal, lane);
        online_softmax<D>(s, o, m, l, scale_log2);
        cp_async_wait<1>(); /* V t has landed; K t + 1 may still be in flight */
        __syncthreads();    /* ... every thread's copies of V t */
        uint32_t p[BN / 16][4];
        pack_p<T>(p, s);
        warp_pv<D, T>(o, p, vs, lane);
        __syncthreads(); /* every warp is done reading V t */
        if (t + 1 < tiles)
            load_tile<BN, D>(vs, Vh + (size_t)(k0 + BN) * D, n_k - k0 - BN);
        cp_async_commit();
        cp_async_wait<1>(); /* K t + 1 has landed; V t + 1 may still be in flight */
        __syncthreads();    /* ... every thread's copies of K t + 1 */
    }
    // END SOLUTION

    /* The row sums: each lane holds a quarter of its two rows' terms. A row that saw no key
     * (l = 0) is written as 0. */
    float inv[2];
    for (int r = 0; r < 2; r++) {
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
        l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
        inv[r] = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
    }
    store_o<D, T>(o, inv, qs, O + ((size_t)h * n_q + q0) * D, n_q - q0, warp, lane);
#elif defined(__CUDA_ARCH__)
    __trap();
#endif
}

/* ---- launchers ------------------------------------------------------------------------------ */

/* Whether the arguments are ones the kernels take; if not, one line naming what is wrong. */
static int attention_args_ok(const char *name, int heads, int n_q, int n_k, int d, const void *Q,
                             const void *K, const void *V, const void *O)
{
    const char *why = NULL;
    if (heads < 1 || n_q < 1 || n_k < 1)
        why = "want heads, n_q and n_k >= 1";
    else if (d != 64 && d != 128)
        why = "the head dimension d must be 64 or 128";
    else if (heads > 65535)
        why = "at most 65535 heads (the grid's y dimension)";
    else if (((uintptr_t)Q | (uintptr_t)K | (uintptr_t)V | (uintptr_t)O) % 16 != 0)
        why = "Q, K, V and O must be 16-byte aligned (cudaMalloc's are): cp.async copies 16 bytes";
    else if (device_compute_capability() < 80)
        why = "needs sm_80 or newer (cp.async and mma.sync m16n8k16)";
    if (why)
        fprintf(stderr, "%s: heads = %d, n_q = %d, n_k = %d, d = %d: %s\n", name, heads, n_q, n_k,
                d, why);
    return why == NULL;
}

/* Blocks for a grid-stride loop over @p n elements, 256 threads each: as many as the elements
 * need, at most 4096 (enough to fill any GPU of the course several times over). */
static unsigned stride_blocks(size_t n)
{
    size_t blocks = (n + 255) / 256;
    return blocks < 4096 ? (unsigned)blocks : 4096;
}

/*
 * The unfused ladder, in the buffers of attention_unfused: Kt = K^T a head (lesson 10's GEMM
 * takes its B row-major, k x n); per head S = Q Kt by lesson 10's GEMM (fp32); S scaled and
 * masked; P = softmax_online(S); P rounded to 16 bits into S's buffer (S is spent); per head
 * Of = P V by lesson 10's GEMM (fp32); O = Of rounded to 16 bits.
 */
static void run_unfused(int heads, int n_q, int n_k, int d, int causal, int bf16, const uint16_t *Q,
                        const uint16_t *K, const uint16_t *V, uint16_t *O, uint16_t *Kt, float *S,
                        float *P, float *Of)
{
    /* lesson 10's GEMM: C (M x N, fp32) = A (M x K) B (K x N), 16-bit row-major, any sizes */
    void (*gemm)(int, int, int, const uint16_t *, const uint16_t *, float *) =
        bf16 ? mma_bf16 : mma_pipelined;
    size_t scores = (size_t)heads * n_q * n_k, outs = (size_t)heads * n_q * d;
    transpose16_kernel<<<dim3((d + 31) / 32, (n_k + 31) / 32, heads), dim3(32, 8)>>>(n_k, d, K, Kt);
    CUDA_CHECK_LAUNCH();
    for (int h = 0; h < heads; h++) /* S[h] (n_q x n_k) = Q[h] (n_q x d) Kt[h] (d x n_k) */
        gemm(n_q, n_k, d, Q + (size_t)h * n_q * d, Kt + (size_t)h * d * n_k,
             S + (size_t)h * n_q * n_k);
    scale_mask_kernel<<<stride_blocks(scores), 256>>>(scores, n_q, n_k, causal,
                                                      (float)(1.0 / sqrt((double)d)), S);
    CUDA_CHECK_LAUNCH();
    softmax_online(heads * n_q, n_k, S, P);
    uint16_t *P16 = (uint16_t *)S;
    round16_kernel<<<stride_blocks(scores), 256>>>(scores, bf16, P, P16);
    CUDA_CHECK_LAUNCH();
    for (int h = 0; h < heads; h++) /* Of[h] (n_q x d) = P[h] (n_q x n_k) V[h] (n_k x d) */
        gemm(n_q, d, n_k, P16 + (size_t)h * n_q * n_k, V + (size_t)h * n_k * d,
             Of + (size_t)h * n_q * d);
    round16_kernel<<<stride_blocks(outs), 256>>>(outs, bf16, Of, O);
    CUDA_CHECK_LAUNCH();
}

extern "C" int attention_unfused(int heads, int n_q, int n_k, int d, int causal, int bf16,
                                 const uint16_t *d_Q, const uint16_t *d_K, const uint16_t *d_V,
                                 uint16_t *d_O)
{
    if (!attention_args_ok("attention_unfused", heads, n_q, n_k, d, d_Q, d_K, d_V, d_O))
        return -1;
    if ((long long)heads * n_q > INT_MAX) { /* the softmax's rows are an int */
        fprintf(stderr, "attention_unfused: heads x n_q = %lld rows of S, more than %d\n",
                (long long)heads * n_q, INT_MAX);
        return -1;
    }
    size_t scores = (size_t)heads * n_q * n_k * sizeof(float); /* S, and P: n_q x n_k a head */
    uint16_t *Kt;
    float *S, *P, *Of;
    CUDA_CHECK(cudaMalloc((void **)&Kt, (size_t)heads * n_k * d * sizeof(uint16_t)));
    CUDA_CHECK(cudaMalloc((void **)&S, scores));
    CUDA_CHECK(cudaMalloc((void **)&P, scores));
    CUDA_CHECK(cudaMalloc((void **)&Of, (size_t)heads * n_q * d * sizeof(float)));
    run_unfused(heads, n_q, n_k, d, causal, bf16, d_Q, d_K, d_V, d_O, Kt, S, P, Of);
    CUDA_CHECK(cudaFree(Kt));
    CUDA_CHECK(cudaFree(S));
    CUDA_CHECK(cudaFree(P));
    CUDA_CHECK(cudaFree(Of));
    return 0;
}

template <int D, typename T>
static void launch_flash(int heads, int n_q, int n_k, int causal, const uint16_t *Q,
                         const uint16_t *K, const uint16_t *V, uint16_t *O)
{
    dim3 grid((n_q + BM - 1) / BM, heads);
    /* softmax's e^x computed as 2^(x log2 e): 1 / sqrt(d) and log2 e folded into one factor */
    float scale_log2 = (float)(1.4426950408889634 / sqrt((double)D));
    flash_attention_kernel<D, T><<<grid, THREADS>>>(n_q, n_k, causal, scale_log2, Q, K, V, O);
    CUDA_CHECK_LAUNCH();
}

extern "C" int flash_attention(int heads, int n_q, int n_k, int d, int causal, int bf16,
                               const uint16_t *d_Q, const uint16_t *d_K, const uint16_t *d_V,
                               uint16_t *d_O)
{
    if (!attention_args_ok("flash_attention", heads, n_q, n_k, d, d_Q, d_K, d_V, d_O))
        return -1;
    if (d == 64 && !bf16)
        launch_flash<64, __half>(heads, n_q, n_k, causal, d_Q, d_K, d_V, d_O);
    else if (d == 64)
        launch_flash<64, __nv_bfloat16>(heads, n_q, n_k, causal, d_Q, d_K, d_V, d_O);
    else if (!bf16)
        launch_flash<128, __half>(heads, n_q, n_k, causal, d_Q, d_K, d_V, d_O);
    else
        launch_flash<128, __nv_bfloat16>(heads, n_q, n_k, causal, d_Q, d_K, d_V, d_O);
    return 0;
}
