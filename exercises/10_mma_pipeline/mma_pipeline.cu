/**
 * @file mma_pipeline.cu
 * @brief Lesson 10: C = A * B on Tensor Cores by hand: ldmatrix, mma.sync, a swizzled shared
 *        layout and a cp.async pipeline.
 *
 * Row-major, A and B 16-bit (raw bits), C float, any M, N, K (slices zero-filled past the
 * edges), any pointers. Every version: 128 x 128 block tiles of C, K in 64-deep slices of A
 * (128 x 64) and B (64 x 128) staged in shared memory, eight warps each owning a 64 x 32 warp
 * tile held as 4 x 4 mma.sync m16n8k16 accumulators whose fragments ldmatrix loads, and the
 * result written through shared memory in whole rows. Versions, in order:
 *   mma_ldmatrix   one slice at a time, in plain row-major shared tiles
 *   mma_swizzled   the same with each row's 16-byte chunks XOR-swizzled by the row
 *   mma_pipelined  swizzled, with STAGES slices in shared memory, copied by cp.async
 *   mma_bf16       mma_pipelined on bfloat16
 *
 * mma.sync, ldmatrix and cp.async are PTX instructions with no CUDA C++ function of their own:
 * they are written here as inline assembly, and the registers they fill are laid out as the PTX
 * ISA documents ("Matrix Fragments for mma.m16n8k16", "ldmatrix"). They need sm_80.
 */
#include "mma_pipeline.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "device.h"

enum {
    BM = 128,    /* rows of C per block */
    BN = 128,    /* columns of C per block */
    BK = 64,     /* depth of a slice: A's is BM x BK, B's BK x BN */
    WARPS_M = 2, /* warps down a block tile ... */
    WARPS_N = 4, /* ... and across: 8 warps */
    THREADS = 32 * WARPS_M * WARPS_N,
    WTM = BM / WARPS_M, /* a warp tile is 64 x 32 of C ... */
    WTN = BN / WARPS_N, /* ... */
    FM = WTM / 16,      /* ... held as 4 x 4 m16n8 accumulator tiles */
    FN = WTN / 8,
    A_CHUNKS = BK / 8,             /* 16-byte chunks per row of the A slice: 8 (128 bytes) */
    B_CHUNKS = BN / 8,             /* per row of the B slice: 16 (256 bytes) */
    LOADS = BM * BK / 8 / THREADS, /* chunks of each slice per thread: 4 */
    SLICE = BM * BK + BK * BN,     /* halves of one stage, A's slice then B's: 32 KB */
    STAGES = 3,                    /* slices in shared memory at once in mma_pipelined */
    EPI_LD = WTN + 8,              /* floats per row of a warp's epilogue staging (epilogue()) */
};

/* What one block needs to know: the problem, and which accesses may be 16 bytes wide. */
struct gemm_args {
    int M, N, K;
    const unsigned short *A, *B; /* 16-bit values as raw bits: the copies do not care which */
    float *C;
    bool vec;   /* K and N multiples of 8, A and B 16-byte aligned: every row of A and B starts
                   16-byte aligned, and a chunk of 8 lies wholly inside or outside the matrix */
    bool vec_c; /* N a multiple of 4, C 16-byte aligned: float4 stores of C */
};

/* mma.sync m16n8k16 and cp.async exist from sm_80 on: the sm_75 build of this file compiles
 * the kernels' bodies to a trap (never launched: the launchers refuse older GPUs) and leaves
 * out the device code below, to the kernels. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800

/* ---- the shared layout ------------------------------------------------------------------- */

/*
 * Where chunk @p chunk (16 bytes, 8 halves) of row @p row of a swizzled shared tile lies,
 * counted in chunks from the row's start. Every row here is a multiple of 128 bytes long, the
 * width of the 32 banks, so in a plain tile chunk c of every row falls in the same 16-byte group
 * of banks: the 8 rows one ldmatrix matrix reads at chunk c would take 8 wavefronts. XORing the
 * chunk index with the row's low 3 bits sends those 8 rows to 8 different groups, and keeps the
 * 8 chunks of one row (a quarter warp's 16-byte stores) in 8 different groups too.
 */
static __device__ int swizzle(int row, int chunk)
{
    int place = chunk; /* a plain tile: where it is */
    // Make place the chunk index XORed with row's low 3 bits: a permutation of each aligned
    // group of 8 chunks in a row, different for each of 8 consecutive rows.
    // TODO
    return place;
}

/* The offset in halves of chunk @p chunk of row @p row in a tile of @p row_chunks chunks a
 * row, plain or swizzled. */
template <bool SWIZZLE> static __device__ int tile_offset(int row, int chunk, int row_chunks)
{
    return (row * row_chunks + (SWIZZLE ? swizzle(row, chunk) : chunk)) * 8;
}

/* ---- the PTX instructions ------------------------------------------------------------------ */

/* The shared-window address of @p p, as ldmatrix and cp.async take it. */
static __device__ unsigned smem_addr(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* ldmatrix.x4: lanes 8i .. 8i+7 give the addresses of the 8 rows (16 bytes each) of 8 x 8
 * matrix i; r[i] of lane l gets row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of it. */
static __device__ void ldmatrix_x4(uint32_t r[4], const unsigned short *row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(row)));
}

/* The same, each matrix transposed: r[i] of lane l gets column l / 4, rows 2 (l % 4) and
 * 2 (l % 4) + 1. */
static __device__ void ldmatrix_x4_trans(uint32_t r[4], const unsigned short *row)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(row)));
}

/* d += a * b on one m16n8k16 tile: a 16 x 16 (4 registers of two halves), b 16 x 8 (2), d 16 x 8
 * floats (4), each lane's share as the PTX ISA lays it out. */
template <bool BF16>
static __device__ void mma_16816(float d[4], const uint32_t a[4], const uint32_t b[2])
{
    if (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Start copying 16 bytes from global @p src to shared @p dst, or 16 zeros when not @p inside
 * (src-size 0: nothing is read, so @p src need only be some valid address). The copy lands at a
 * later cp.async.wait_group; until then @p dst holds what it held. */
static __device__ void cp_async16(unsigned short *dst, const unsigned short *src, bool inside)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(inside ? 16 : 0)
                 : "memory");
}

/* The copies this thread started since its last commit become one group. */
static __device__ void cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Wait until at most @p N of this thread's groups are still in flight (the newest ones). */
template <int N> static __device__ void cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

/* One 16-byte and one 8-byte store to shared memory, each a single instruction. Written as
 * C++ (a uint4 or float2 stored through a pointer), nvcc 13.0 splits some of them, the ones at
 * a tile's first address, into 4-byte stores in the PTX; ptxas merges them again, but the
 * emulator counts the PTX, where 32 lanes of 4-byte stores into these rows conflict. */
static __device__ void st_shared16(unsigned short *dst, uint4 v)
{
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(smem_addr(dst)), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

static __device__ void st_shared8(float *dst, float x, float y)
{
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(smem_addr(dst)), "f"(x), "f"(y)
                 : "memory");
}

/* ---- slices in, math, results out -------------------------------------------------------- */

/* The 8 halves of row @p r of the rows x cols matrix @p src from column @p c on, zeros past its
 * edges: one 16-byte load when @p vec (the 8 lie wholly inside or outside), else one by one. */
static __device__ uint4 fetch8(const unsigned short *src, int rows, int cols, int r, int c,
                               bool vec)
{
    if (vec)
        return r < rows && c < cols ? *reinterpret_cast<const uint4 *>(src + (size_t)r * cols + c)
                                    : make_uint4(0, 0, 0, 0);
    uint32_t w[4] = {0, 0, 0, 0}; /* two halves a word, the first in the low bits */
#pragma unroll
    for (int e = 0; e < 8; e++) /* unrolled: w stays in registers */
        if (r < rows && c + e < cols)
            w[e / 2] |= (uint32_t)src[(size_t)r * cols + c + e] << (16 * (e % 2));
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Store slice @p k0 of A (rows bm .., BM x BK) and of B (columns bn .., BK x BN) into the
 * stage at @p s with 16-byte loads and stores, zeros past the edges. Chunk q = tid + i *
 * THREADS of the A slice is row q / A_CHUNKS, chunk q % A_CHUNKS (a quarter warp stores one
 * 128-byte row); of the B slice, row q / B_CHUNKS, chunk q % B_CHUNKS (half a 256-byte row). */
template <bool SWIZZLE>
static __device__ void store_slice(unsigned short *s, const gemm_args &g, int bm, int bn, int k0,
                                   int tid)
{
#pragma unroll
    for (int i = 0; i < LOADS; i++) {
        int q = tid + i * THREADS, ar = q / A_CHUNKS, ac = q % A_CHUNKS;
        int br = q / B_CHUNKS, bc = q % B_CHUNKS;
        uint4 a = fetch8(g.A, g.M, g.K, bm + ar, k0 + ac * 8, g.vec);
        uint4 b = fetch8(g.B, g.K, g.N, k0 + br, bn + bc * 8, g.vec);
        st_shared16(s + tile_offset<SWIZZLE>(ar, ac, A_CHUNKS), a);
        st_shared16(s + BM * BK + tile_offset<SWIZZLE>(br, bc, B_CHUNKS), b);
    }
}

/* store_slice<true> through cp.async when the rows are 16-byte aligned: the copies land at a
 * wait, after this thread's commit of them. Unaligned rows are stored at once (a copy that
 * landed early is a schedule cp.async allows too). */
static __device__ void copy_slice(unsigned short *s, const gemm_args &g, int bm, int bn, int k0,
                                  int tid)
{
    if (!g.vec) {
        store_slice<true>(s, g, bm, bn, k0, tid);
        return;
    }
#pragma unroll
    for (int i = 0; i < LOADS; i++) {
        int q = tid + i * THREADS, ar = q / A_CHUNKS, ac = q % A_CHUNKS;
        int br = q / B_CHUNKS, bc = q % B_CHUNKS;
        bool a_in = bm + ar < g.M && k0 + ac * 8 < g.K, b_in = k0 + br < g.K && bn + bc * 8 < g.N;
        cp_async16(s + tile_offset<true>(ar, ac, A_CHUNKS),
                   a_in ? g.A + (size_t)(bm + ar) * g.K + k0 + ac * 8 : g.A, a_in);
        cp_async16(s + BM * BK + tile_offset<true>(br, bc, B_CHUNKS),
                   b_in ? g.B + (size_t)(k0 + br) * g.N + bn + bc * 8 : g.B, b_in);
    }
}

/*
 * The warp's share of the slice in stage @p s: per 16-deep step, its 4 A fragments (16 x 16,
 * rows wm * 64 + 16 i ..) by one ldmatrix.x4 each, its 4 B fragments (16 x 8, columns wn * 32 +
 * 8 n ..) by one ldmatrix.x4.trans per pair, and the 16 mma.sync that multiply them into acc.
 */
template <bool SWIZZLE, bool BF16>
static __device__ void mma_slice(const unsigned short *s, float acc[FM][FN][4], int wm, int wn,
                                 int lane)
{
    const unsigned short *as = s, *bs = s + BM * BK;
    /* The row of a 16 x 16 piece and which of its two 8-half chunks lane l gives ldmatrix.x4, so
     * that matrix 0 is rows 0-7 of chunk 0, matrix 1 rows 8-15 of chunk 0, matrix 2 rows 0-7 of
     * chunk 1, matrix 3 rows 8-15 of chunk 1: for A (rows of C, 16 k) registers a0a1, a2a3,
     * a4a5, a6a7 of the m16n8k16 fragment; for B (16 k, two 8-column blocks, transposed) the
     * b0b1, b2b3 of the first block, then of the second. */
    int a_row = 0, a_chunk = 0, b_row = 0, b_chunk = 0;
    // Give each lane its row (0-15) and chunk (0 or 1) of the piece for A and for B, as the
    // comment above lays out the four matrices.
    // TODO
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) {
        uint32_t a[FM][4], b[FN][2];
#pragma unroll
        for (int i = 0; i < FM; i++) /* rows wm * 64 + 16 i .., k 16 kk .. */
            ldmatrix_x4(a[i], as + tile_offset<SWIZZLE>(wm * WTM + 16 * i + a_row, 2 * kk + a_chunk,
                                                        A_CHUNKS));
#pragma unroll
        for (int n = 0; n < FN; n += 2) { /* k 16 kk .., columns wn * 32 + 8 n .. + 15 */
            uint32_t t[4];
            ldmatrix_x4_trans(t, bs + tile_offset<SWIZZLE>(16 * kk + b_row,
                                                           (wn * WTN + 8 * n) / 8 + b_chunk,
                                                           B_CHUNKS));
            b[n][0] = t[0], b[n][1] = t[1], b[n + 1][0] = t[2], b[n + 1][1] = t[3];
        }
#pragma unroll
        for (int i = 0; i < FM; i++)
#pragma unroll
            for (int n = 0; n < FN; n++)
                mma_16816<BF16>(acc[i][n], a[i], b[n]);
    }
}

/* Four floats of row @p row of C from column @p col on, none outside C. */
static __device__ void store4(const gemm_args &g, int row, int col, float4 v)
{
    if (row >= g.M)
        return;
    float *c = g.C + (size_t)row * g.N + col;
    if (g.vec_c && col < g.N) { /* col is a multiple of 4 and N too: all 4 inside */
        *reinterpret_cast<float4 *>(c) = v;
        return;
    }
    const float f[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int e = 0; e < 4; e++) /* unrolled: f stays in registers */
        if (col + e < g.N)
            c[e] = f[e];
}

/*
 * The warp's accumulators to C through shared memory, 16 rows at a time. Accumulator element
 * pair (c0, c1) of lane l is row l / 4, columns 2 (l % 4) and one more of its m16n8 tile, (c2,
 * c3) the same 8 rows down. The pairs go to @p stage, a 16 x 32 tile whose rows are EPI_LD = 40
 * floats apart (a half warp's float2 stores, 4 rows of 4 pairs, then cover the 32 banks once),
 * and the warp writes its rows as float4, 8 lanes a 128-byte row: whole sectors of C.
 */
static __device__ void epilogue(const gemm_args &g, float acc[FM][FN][4], float *stage, int row0,
                                int col0, int lane)
{
    int pair_row = 0, pair_col = 0; /* where lane's (c0, c1) sits in an m16n8 tile */
    // Set them from lane, as the comment above says.
    // TODO
#pragma unroll
    for (int i = 0; i < FM; i++) {
#pragma unroll
        for (int n = 0; n < FN; n++) { /* tile n's pairs: row pair_row, and 8 rows down */
            float *p = stage + pair_row * EPI_LD + 8 * n + pair_col;
            st_shared8(p, acc[i][n][0], acc[i][n][1]);
            st_shared8(p + 8 * EPI_LD, acc[i][n][2], acc[i][n][3]);
        }
        __syncwarp(); /* the 16 rows are staged before lanes read other lanes' pairs */
        for (int e = lane; e < 16 * WTN / 4; e += 32) { /* float4 e: row e / 8, column 4 (e % 8) */
            int r = e / (WTN / 4), c = 4 * (e % (WTN / 4));
            store4(g, row0 + 16 * i + r, col0 + c,
                   *reinterpret_cast<const float4 *>(stage + r * EPI_LD + c));
        }
        __syncwarp(); /* every lane has read them before the next 16 rows are staged */
    }
}

/* ---- the kernels ------------------------------------------------------------------------- */

/* mma_ldmatrix (plain) and mma_swizzled: one slice at a time in the stage at @p smem. */
template <bool SWIZZLE>
static __device__ void single_stage_tile(const gemm_args &g, unsigned short *smem)
{
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int wm = warp / WARPS_N, wn = warp % WARPS_N;   /* the warp's place in the 2 x 4 grid */
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN; /* the block tile's first row and column */
    float acc[FM][FN][4] = {};
    for (int k0 = 0; k0 < g.K; k0 += BK) {
        store_slice<SWIZZLE>(smem, g, bm, bn, k0, tid);
        __syncthreads(); /* the slice is whole before any warp reads it */
        mma_slice<SWIZZLE, false>(smem, acc, wm, wn, lane);
        __syncthreads(); /* every warp is done with it before the next one overwrites it */
    }
    /* No warp reads the slice any more: the first 20 KB become the warps' staging tiles. */
    epilogue(g, acc, reinterpret_cast<float *>(smem) + warp * 16 * EPI_LD, bm + wm * WTM,
             bn + wn * WTN, lane);
}

/* mma_pipelined and mma_bf16: STAGES stages at @p smem, slice t in stage t % STAGES, and
 * STAGES - 1 slices in flight while the warps multiply out of the oldest. */
template <bool BF16> static __device__ void pipelined_tile(const gemm_args &g, unsigned short *smem)
{
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int wm = warp / WARPS_N, wn = warp % WARPS_N;
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    int slices = (g.K + BK - 1) / BK;
    float acc[FM][FN][4] = {};
    // The pipeline: first start slices 0 .. STAGES - 2 (copy_slice, then cp_async_commit, one
    // group per slice). Then, for each slice t: wait until slice t has landed
    // (cp_async_wait<STAGES - 2>), __syncthreads(), start slice t + STAGES - 1 into the stage
    // slice t - 1 used and commit its group (an empty one past the last slice keeps the count),
    // then mma_slice<true, BF16> on slice t's stage.
    // TODO
    cp_async_wait<0>();
    __syncthreads(); /* no copy lands and no warp reads the stages any more: the staging may */
    epilogue(g, acc, reinterpret_cast<float *>(smem) + warp * 16 * EPI_LD, bm + wm * WTM,
             bn + wn * WTN, lane);
}

#endif /* !__CUDA_ARCH__ || __CUDA_ARCH__ >= 800 */

static __global__ void __launch_bounds__(THREADS) mma_ldmatrix_kernel(gemm_args g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __shared__ __align__(128) unsigned short smem[SLICE];
    single_stage_tile<false>(g, smem);
#elif defined(__CUDA_ARCH__)
    __trap(); /* built for an older GPU only: fail loudly, never leave C unwritten */
#endif
}

static __global__ void __launch_bounds__(THREADS) mma_swizzled_kernel(gemm_args g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __shared__ __align__(128) unsigned short smem[SLICE];
    single_stage_tile<true>(g, smem);
#elif defined(__CUDA_ARCH__)
    __trap();
#endif
}

/* The stages' shared memory, beyond the 48 KB a kernel gets without asking: 96 KB. */
static const int PIPELINE_SMEM = STAGES * SLICE * 2;

static __global__ void __launch_bounds__(THREADS) mma_pipelined_kernel(gemm_args g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(128) unsigned short stages[];
    pipelined_tile<false>(g, stages);
#elif defined(__CUDA_ARCH__)
    __trap();
#endif
}

static __global__ void __launch_bounds__(THREADS) mma_bf16_kernel(gemm_args g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ __align__(128) unsigned short stages[];
    pipelined_tile<true>(g, stages);
#elif defined(__CUDA_ARCH__)
    __trap();
#endif
}

/* ---- the launchers ----------------------------------------------------------------------- */

/* The kernels' arguments, after checking that the GPU has what they need (one line and exit,
 * like a failed CUDA_CHECK, when it does not). */
static gemm_args args_for(const char *name, int M, int N, int K, const uint16_t *A,
                          const uint16_t *B, float *C)
{
    if (device_compute_capability() < 80) {
        fprintf(stderr, "%s: needs sm_80 or newer (mma.sync m16n8k16 and cp.async)\n", name);
        exit(EXIT_FAILURE);
    }
    gemm_args g = {M, N, K, (const unsigned short *)A, (const unsigned short *)B, C, false, false};
    g.vec = K % 8 == 0 && N % 8 == 0 && ((uintptr_t)A | (uintptr_t)B) % 16 == 0;
    g.vec_c = N % 4 == 0 && (uintptr_t)C % 16 == 0;
    return g;
}

/* A block per 128 x 128 tile of C; x walks the columns. */
static dim3 grid_for(int M, int N)
{
    return dim3((N + BN - 1) / BN, (M + BM - 1) / BM);
}

extern "C" void mma_ldmatrix(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                             float *d_C)
{
    gemm_args g = args_for("mma_ldmatrix", M, N, K, d_A, d_B, d_C);
    mma_ldmatrix_kernel<<<grid_for(M, N), THREADS>>>(g);
    CUDA_CHECK_LAUNCH();
}

extern "C" void mma_swizzled(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                             float *d_C)
{
    gemm_args g = args_for("mma_swizzled", M, N, K, d_A, d_B, d_C);
    mma_swizzled_kernel<<<grid_for(M, N), THREADS>>>(g);
    CUDA_CHECK_LAUNCH();
}

/* A pipelined kernel, with the shared memory its stages need. */
static void launch_pipelined(void (*kernel)(gemm_args), const gemm_args &g)
{
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, PIPELINE_SMEM));
    kernel<<<grid_for(g.M, g.N), THREADS, PIPELINE_SMEM>>>(g);
    CUDA_CHECK_LAUNCH();
}

extern "C" void mma_pipelined(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                              float *d_C)
{
    launch_pipelined(mma_pipelined_kernel, args_for("mma_pipelined", M, N, K, d_A, d_B, d_C));
}

extern "C" void mma_bf16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C)
{
    launch_pipelined(mma_bf16_kernel, args_for("mma_bf16", M, N, K, d_A, d_B, d_C));
}
