/**
 * @file tensor_cores.cu
 * @brief Lesson 08: C = A * B on Tensor Cores, through the WMMA API.
 *
 * Row-major, A and B 16-bit (fp16 or bf16, passed as raw bits), C float, any M, N, K (edges
 * are guarded: partial tiles are zero-filled), any pointers (off 32-byte alignment, every
 * access goes through the staging path). Versions, in order:
 *   wmma_naive   one warp per 16 x 16 tile of C; fragments straight from global memory
 *   wmma_shared  128 x 128 block tiles, 32-deep slices of A and B double-buffered in padded
 *                shared memory, eight warps each owning 4 x 2 fragments of C
 *   wmma_bf16    wmma_shared with bfloat16 inputs (sm_80 and newer)
 *
 * WMMA is C++ (namespace nvcuda::wmma): a fragment is a warp's share of a 16 x 16 matrix, held
 * in registers spread over its 32 lanes; load_matrix_sync, mma_sync and store_matrix_sync are
 * warp-wide calls that every lane of the warp must make together.
 */
#include "tensor_cores.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "device.h"

using namespace nvcuda;

/* The WMMA shape: one mma_sync is C(16 x 16) += A(16 x 16) * B(16 x 16). */
enum { WMMA_M = 16, WMMA_N = 16, WMMA_K = 16, TILE_ELEMS = 16 * 16 };

/* ---- wmma_naive ------------------------------------------------------------------------- */

/* 2 x 2 warps per block, each owning one 16 x 16 tile of C: a block covers 32 x 32 of C. */
enum { NAIVE_WARPS_M = 2, NAIVE_WARPS_N = 2, NAIVE_WARPS = NAIVE_WARPS_M * NAIVE_WARPS_N };

/* Copy the 16 x 16 tile whose top-left corner is (r0, c0) of the rows x cols matrix src into
 * dst (16 x 16, row-major), with zeros where the tile hangs over the matrix's edge. */
static __device__ void stage_tile(__half *dst, const __half *src, int rows, int cols, int r0,
                                  int c0, int lane)
{
    for (int i = lane; i < TILE_ELEMS; i += 32) { /* each lane copies 8 of the 256 elements */
        int r = r0 + i / 16, c = c0 + i % 16;     /* the element's place in src */
        dst[i] = (r < rows && c < cols) ? src[(size_t)r * cols + c] : __float2half(0.0f);
    }
}

/* Whether A, B and C all start 32-byte aligned: load_matrix_sync and store_matrix_sync need
 * 256-bit aligned addresses, and the 128-bit loads 16 bytes. When not, the kernels stage every
 * tile instead of touching global memory in place: slower, never wrong. */
static bool aligned32(const void *A, const void *B, const void *C)
{
    return ((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) % 32 == 0;
}

static __global__ void wmma_naive_kernel(int M, int N, int K, const __half *A, const __half *B,
                                         float *C, bool aligned)
{
    /* Per-warp staging for tiles the fragment loads cannot read in place: 16 x 16 of A, of B
     * and of C. 32-byte alignment is what load_matrix_sync and store_matrix_sync require. */
    __shared__ __align__(32) __half stage_a[NAIVE_WARPS][TILE_ELEMS];
    __shared__ __align__(32) __half stage_b[NAIVE_WARPS][TILE_ELEMS];
    __shared__ __align__(32) float stage_c[NAIVE_WARPS][TILE_ELEMS];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int row = (blockIdx.y * NAIVE_WARPS_M + warp / NAIVE_WARPS_N) * WMMA_M; /* tile's first row */
    int col = (blockIdx.x * NAIVE_WARPS_N + warp % NAIVE_WARPS_N) * WMMA_N; /* and column */
    if (row >= M || col >= N)
        return; /* the whole warp leaves together: its tile lies outside C */

    /* A fragment load reads 16 rows ldm elements apart from a 32-byte-aligned address: straight
     * from global memory that needs aligned pointers, K and N multiples of 16 and a tile wholly
     * inside. The test is the same for every lane, so the warp never splits between the paths. */
    bool direct = aligned && K % 16 == 0 && N % 16 == 0 && row + WMMA_M <= M && col + WMMA_N <= N;

    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc;
    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, __half, wmma::row_major> b;
    wmma::fill_fragment(acc, 0.0f);
    // acc = the 16 x 16 tile of A * B at (row, col), K in steps of 16. A fragment may be
    // loaded in place only when `direct` allows it; otherwise go through stage_tile() and
    // this warp's staging buffers, which no lane may read before they are written or
    // overwrite while another lane still reads them.
    // BEGIN SOLUTION
    for (int k = 0; k < K; k += WMMA_K) {
        if (direct) {
            wmma::load_matrix_sync(a, A + (size_t)row * K + k, K); /* A[row.., k..] */
            wmma::load_matrix_sync(b, B + (size_t)k * N + col, N); /* B[k.., col..] */
        } else {
            stage_tile(stage_a[warp], A, M, K, row, k, lane);
            stage_tile(stage_b[warp], B, K, N, k, col, lane);
            __syncwarp(); /* every lane's copy is in before the warp reads the tiles */
            wmma::load_matrix_sync(a, stage_a[warp], WMMA_K);
            wmma::load_matrix_sync(b, stage_b[warp], WMMA_N);
            __syncwarp(); /* every lane has read the tiles before the next copy */
        }
        wmma::mma_sync(acc, a, b, acc);
    }
    // END SOLUTION

    // Write acc to its tile of C, none of it outside C: in place where store_matrix_sync's
    // rules allow (alignment, ldm a multiple of 4), else through stage_c.
    // BEGIN SOLUTION
    if (aligned && row + WMMA_M <= M && col + WMMA_N <= N && N % 4 == 0) {
        wmma::store_matrix_sync(C + (size_t)row * N + col, acc, N, wmma::mem_row_major);
    } else {
        wmma::store_matrix_sync(stage_c[warp], acc, WMMA_N, wmma::mem_row_major);
        __syncwarp(); /* the whole tile is in stage_c before lanes read other lanes' parts */
        for (int i = lane; i < TILE_ELEMS; i += 32) {
            int r = row + i / 16, c = col + i % 16; /* the element's place in C */
            if (r < M && c < N)
                C[(size_t)r * N + c] = stage_c[warp][i];
        }
    }
    // END SOLUTION
}

extern "C" void wmma_naive(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                           float *d_C)
{
    dim3 block(32 * NAIVE_WARPS);
    dim3 grid((N + 32 - 1) / 32, (M + 32 - 1) / 32); /* a block covers 32 x 32 of C */
    wmma_naive_kernel<<<grid, block>>>(M, N, K, (const __half *)d_A, (const __half *)d_B, d_C,
                                       aligned32(d_A, d_B, d_C));
    CUDA_CHECK_LAUNCH();
}

/* ---- wmma_shared and wmma_bf16 ------------------------------------------------------------ */

enum {
    BM = 128,    /* rows of C per block */
    BN = 128,    /* columns of C per block */
    BK = 32,     /* depth of one slice of A (BM x BK) and of B (BK x BN) */
    WARPS_M = 2, /* warps down a block tile */
    WARPS_N = 4, /* warps across: 8 warps, 256 threads */
    THREADS = 32 * WARPS_M * WARPS_N,
    WTM = BM / WARPS_M, /* a warp tile is 64 x 32 of C ... */
    WTN = BN / WARPS_N, /* ... */
    FM = WTM / WMMA_M,  /* ... held as 4 x 2 accumulator fragments */
    FN = WTN / WMMA_N,
    PAD = 8,          /* 16 bytes of padding per shared row, against bank conflicts */
    AS_LD = BK + PAD, /* row length of the A slice in shared memory: 40 (80 bytes) */
    BS_LD = BN + PAD, /* row length of the B slice: 136 (272 bytes) */
    MIN_BLOCKS = 2,   /* blocks per SM the register budget must allow: 128 a thread */
    CHUNKS = (BM * BK / 8) / THREADS, /* 8-element chunks of each slice per thread: 2 */
};

/* 8 consecutive 16-bit elements of row r of the rows x cols matrix src, from column c on, zero
 * where they lie outside. vec: cols is a multiple of 8, so a chunk is wholly inside or outside
 * and 16-byte aligned, and one 128-bit load fetches it. */
static __device__ uint4 load_chunk(const unsigned short *src, int rows, int cols, int r, int c,
                                   bool vec)
{
    uint4 v = make_uint4(0, 0, 0, 0);
    if (r >= rows || c >= cols)
        return v;
    const unsigned short *p = src + (size_t)r * cols + c;
    if (vec)
        return *reinterpret_cast<const uint4 *>(p);
    unsigned h[8];
#pragma unroll
    for (int i = 0; i < 8; i++)
        h[i] = c + i < cols ? p[i] : 0; /* never read past the end of the row */
    v.x = h[0] | h[1] << 16;
    v.y = h[2] | h[3] << 16;
    v.z = h[4] | h[5] << 16;
    v.w = h[6] | h[7] << 16;
    return v;
}

/* The block tile of C at (blockIdx.y * BM, blockIdx.x * BN), for A and B of element type T
 * (__half or __nv_bfloat16; the loads move bits and do not care which). */
template <typename T>
static __device__ void wmma_block_tile(int M, int N, int K, const unsigned short *A,
                                       const unsigned short *B, float *C, bool aligned)
{
    /* Two buffers per slice (double buffering): while the warps multiply out of one, the next
     * slice goes into the other. Rows are padded by PAD: 8 consecutive rows start 80 (A) or
     * 272 (B) bytes apart, which lands them in 8 different 16-byte groups of banks. */
    __shared__ __align__(128) unsigned short As[2][BM * AS_LD];
    __shared__ __align__(128) unsigned short Bs[2][BK * BS_LD];

    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    int wm = warp / WARPS_N, wn = warp % WARPS_N;   /* the warp's place in the 2 x 4 warp grid */
    int bm = blockIdx.y * BM, bn = blockIdx.x * BN; /* the block tile's first row and column */
    bool vec = aligned && K % 8 == 0 && N % 8 == 0; /* 128-bit loads of A and B rows are aligned */

    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);

    /* The next slice, in registers on its way to shared memory. Chunk q = tid + s * THREADS of
     * the A slice is row q / 4, columns (q % 4) * 8 .. + 7 (4 chunks per 32-wide row); of the B
     * slice, row q / 16, columns (q % 16) * 8 .. + 7 (16 chunks per 128-wide row). */
    uint4 ra[CHUNKS], rb[CHUNKS];
    int nslices = (K + BK - 1) / BK;
    // Accumulate the block's tile of A * B into acc, K a slice at a time, through the two
    // shared buffers: while the warps multiply out of one, the next slice's global loads
    // (load_chunk) are in flight and then land in the other. Goal: one barrier per slice,
    // 128-bit loads and stores, and no buffer overwritten while a warp still reads it.
    // BEGIN SOLUTION
#pragma unroll
    for (int s = 0; s < CHUNKS; s++) {
        int q = tid + s * THREADS;
        ra[s] = load_chunk(A, M, K, bm + q / 4, (q % 4) * 8, vec);
        rb[s] = load_chunk(B, K, N, q / 16, bn + (q % 16) * 8, vec);
        *reinterpret_cast<uint4 *>(&As[0][(q / 4) * AS_LD + (q % 4) * 8]) = ra[s];
        *reinterpret_cast<uint4 *>(&Bs[0][(q / 16) * BS_LD + (q % 16) * 8]) = rb[s];
    }
    __syncthreads(); /* slice 0 is in buffer 0 before any warp reads it */

    for (int t = 0; t < nslices; t++) {
        int cur = t & 1;
        if (t + 1 < nslices) { /* issue the next slice's global loads; they land during the math */
            int k0 = (t + 1) * BK;
#pragma unroll
            for (int s = 0; s < CHUNKS; s++) {
                int q = tid + s * THREADS;
                ra[s] = load_chunk(A, M, K, bm + q / 4, k0 + (q % 4) * 8, vec);
                rb[s] = load_chunk(B, K, N, k0 + q / 16, bn + (q % 16) * 8, vec);
            }
        }
        const T *as = reinterpret_cast<const T *>(As[cur]);
        const T *bs = reinterpret_cast<const T *>(Bs[cur]);
#pragma unroll
        for (int kk = 0; kk < BK; kk += WMMA_K) {
            wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, T, wmma::row_major> a;
            wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, T, wmma::row_major> b[FN];
#pragma unroll
            for (int j = 0; j < FN; j++) /* columns wn * 32 + j * 16 .. + 15 of the slice */
                wmma::load_matrix_sync(b[j], bs + kk * BS_LD + wn * WTN + j * WMMA_N, BS_LD);
#pragma unroll
            for (int i = 0; i < FM; i++) { /* one A fragment live at a time saves registers */
                /* rows wm * 64 + i * 16 .. + 15 of the slice */
                wmma::load_matrix_sync(a, as + (wm * WTM + i * WMMA_M) * AS_LD + kk, AS_LD);
#pragma unroll
                for (int j = 0; j < FN; j++)
                    wmma::mma_sync(acc[i][j], a, b[j], acc[i][j]);
            }
        }
        if (t + 1 < nslices) {
#pragma unroll
            for (int s = 0; s < CHUNKS; s++) {
                int q = tid + s * THREADS;
                *reinterpret_cast<uint4 *>(&As[cur ^ 1][(q / 4) * AS_LD + (q % 4) * 8]) = ra[s];
                *reinterpret_cast<uint4 *>(&Bs[cur ^ 1][(q / 16) * BS_LD + (q % 16) * 8]) = rb[s];
            }
        }
        /* Slice t + 1 is in place before anyone reads it, and every warp is done with buffer
         * cur before the next iteration overwrites it. */
        __syncthreads();
    }
    // END SOLUTION

    /* The epilogue. After the loop's last barrier no warp reads the slices any more, so each
     * warp may use 256 floats of As as a staging tile for fragments on C's edge. */
    float *stage = reinterpret_cast<float *>(As[0]) + warp * TILE_ELEMS;
#pragma unroll
    for (int i = 0; i < FM; i++)
#pragma unroll
        for (int j = 0; j < FN; j++) {
            int row = bm + wm * WTM + i * WMMA_M; /* the fragment's first row of C */
            int col = bn + wn * WTN + j * WMMA_N; /* and first column */
            if (row >= M || col >= N)
                continue; /* warp-uniform: the fragment lies outside C */
            if (aligned && row + WMMA_M <= M && col + WMMA_N <= N && N % 4 == 0) {
                wmma::store_matrix_sync(C + (size_t)row * N + col, acc[i][j], N,
                                        wmma::mem_row_major);
            } else {
                wmma::store_matrix_sync(stage, acc[i][j], WMMA_N, wmma::mem_row_major);
                __syncwarp(); /* the whole fragment is staged before lanes read it */
                for (int e = lane; e < TILE_ELEMS; e += 32) {
                    int r = row + e / 16, c = col + e % 16; /* the element's place in C */
                    if (r < M && c < N)
                        C[(size_t)r * N + c] = stage[e];
                }
                __syncwarp(); /* every lane has read it before the next fragment is staged */
            }
        }
}

static __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    wmma_shared_kernel(int M, int N, int K, const unsigned short *A, const unsigned short *B,
                       float *C, bool aligned)
{
    wmma_block_tile<__half>(M, N, K, A, B, C, aligned);
}

extern "C" void wmma_shared(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                            float *d_C)
{
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM); /* x walks the columns of C */
    wmma_shared_kernel<<<grid, THREADS>>>(M, N, K, d_A, d_B, d_C, aligned32(d_A, d_B, d_C));
    CUDA_CHECK_LAUNCH();
}

static __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    wmma_bf16_kernel(int M, int N, int K, const unsigned short *A, const unsigned short *B,
                     float *C, bool aligned)
{
    /* bfloat16 fragments exist from sm_80 on; the sm_75 build gets an empty kernel, which the
     * launcher never starts there. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    wmma_block_tile<__nv_bfloat16>(M, N, K, A, B, C, aligned);
#elif defined(__CUDA_ARCH__)
    __trap(); /* built for an older GPU only: fail loudly, never leave C unwritten */
#endif
}

extern "C" void wmma_bf16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C)
{
    if (device_compute_capability() < 80) {
        fprintf(stderr, "wmma_bf16: needs sm_80 or newer (bfloat16 Tensor Core instructions)\n");
        exit(EXIT_FAILURE);
    }
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM); /* x walks the columns of C */
    wmma_bf16_kernel<<<grid, THREADS>>>(M, N, K, d_A, d_B, d_C, aligned32(d_A, d_B, d_C));
    CUDA_CHECK_LAUNCH();
}
