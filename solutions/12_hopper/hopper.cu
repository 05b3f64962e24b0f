/**
 * @file hopper.cu
 * @brief Lesson 12: C = A * B the Hopper way: TMA, transaction-count mbarriers, wgmma and warp
 *        specialisation.
 *
 * Row-major, A and B bfloat16 (raw bits), C float, any M and N and K that are multiples of 8
 * (hopper.h says why), edges zero-filled by TMA. Every version: K in 64-deep slices; a slice of
 * A is a box of 64-value rows (128 bytes), of B NB 64 x 64 boxes side by side, copied by TMA
 * with the 128-byte swizzle; each consumer warpgroup owns 64 rows x 64 NB columns of C as NB
 * wgmma m64n64k16 accumulators (NB x 32 floats a thread), one per 64 x 64 box of B. Versions,
 * in order:
 *   wgmma_tma               one stage: copy a slice, wait, multiply, repeat; 64 x 128 a block
 *   wgmma_pipelined         STAGES slices in flight, full and empty mbarriers per stage; the
 *                           hidden copies pay for a 64 x 256 tile (one block an SM)
 *   wgmma_warp_specialized  a producer warpgroup (TMA) and two consumer warpgroups (wgmma),
 *                           registers moved to the consumers with setmaxnreg; 128 x 128
 *
 * TMA, mbarrier and wgmma are PTX instructions with no CUDA C++ function of their own here:
 * they are inline assembly, and their operands are laid out as the PTX ISA documents them
 * ("Tensor Copy", "Matrix Descriptor Format", "Register Fragments and Shared Memory Matrix
 * Layouts" for wgmma.mma_async). They exist on sm_90a only, the one architecture this file is
 * built for (add_lesson's ARCHS).
 */
#include "hopper.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdint.h>
#include <stdio.h>

#include "cuda_check.h"
#include "device.h"

enum {
    BK = 64,                     /* depth of a slice: 64 bf16 = 128 bytes, the swizzle's row */
    WG_M = 64,                   /* rows of C per consumer warpgroup: wgmma's M */
    WG_N = 64,                   /* columns per wgmma: one of B's boxes */
    WG_THREADS = 128,            /* a warpgroup: four warps */
    ROW_BYTES = BK * 2,          /* one row of a box */
    B_BOX_BYTES = BK * WG_N * 2, /* B's 64 x 64 box */
    TMA_NB = 2,                  /* B's boxes a slice (columns of C / 64): wgmma_tma ... */
    PIPE_NB = 4,                 /* ... wgmma_pipelined ... */
    WS_NB = 2,                   /* ... wgmma_warp_specialized */
    STAGES = 4,                  /* slices in flight (wgmma_pipelined, _warp_specialized) */
    PRODUCER_REGS = 40,          /* setmaxnreg: what the TMA warpgroup keeps ... */
    CONSUMER_REGS = 232,         /* ... and what each wgmma warpgroup gets */
    ALIGN = 1024,                /* the 128-byte swizzle repeats every 8 rows: 1024 bytes */
};

/* ---- shared memory: stages of tiles, then the mbarriers -------------------------------------- */

/* Stage s of a block whose A boxes are @p rows tall and whose slices of B are @p nb boxes: A's
 * rows x 64 tile, then B's 64 x 64 nb tile (nb boxes, 8192 bytes apart), each starting on a
 * 1024-byte boundary. */
struct stage {
    uint8_t *a, *b;
};

/* The bytes of one slice: A's box and B's @p nb boxes. */
static __host__ __device__ size_t slice_bytes(int rows, int nb)
{
    return (size_t)rows * ROW_BYTES + (size_t)nb * B_BOX_BYTES;
}

/* The block's dynamic shared memory from its first 1024-byte boundary (what the swizzle's
 * pattern is computed from); the launch asks for ALIGN bytes more. */
static __device__ uint8_t *smem_base()
{
    extern __shared__ uint8_t smem_raw[];
    uint32_t at = (uint32_t)__cvta_generic_to_shared(smem_raw);
    return smem_raw + (((at + ALIGN - 1) & ~(ALIGN - 1u)) - at);
}

static __device__ stage stage_of(uint8_t *base, int rows, int nb, int s)
{
    uint8_t *a = base + (size_t)s * slice_bytes(rows, nb);
    return {a, a + rows * ROW_BYTES};
}

/* The 2 @p stages mbarriers past the tiles: full[0 .. stages - 1], then empty[...]. */
static __device__ uint64_t *barriers(uint8_t *base, int rows, int nb, int stages)
{
    return (uint64_t *)(base + (size_t)stages * slice_bytes(rows, nb));
}

static size_t smem_bytes(int rows, int nb, int stages)
{
    return ALIGN + (size_t)stages * slice_bytes(rows, nb) + 2 * stages * sizeof(uint64_t);
}

static __device__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* ---- mbarriers: arrivals and transaction bytes ------------------------------------------------
 */

/* An mbarrier whose phases complete after @p count arrivals (and the bytes they announce). */
static __device__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
}

/* Make the initialised mbarriers visible to the async proxy (TMA completes on them). */
static __device__ void mbar_fence_init()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* One arrival that also tells the phase to wait for @p bytes of copies. */
static __device__ void mbar_expect_bytes(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
                 "r"(bytes)
                 : "memory");
}

static __device__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}

/* Spin until the phase of parity @p parity of @p bar has completed (its arrivals and bytes). */
static __device__ void mbar_wait(uint64_t *bar, int parity)
{
    uint32_t done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(smem_u32(bar)), "r"(parity)
                     : "memory");
}

/* ---- TMA --------------------------------------------------------------------------------------
 */

/* The box of @p map at element coordinates (x, y) (x the contiguous one) into @p dst, its bytes
 * completing on @p bar. */
static __device__ void tma_load(const CUtensorMap *map, void *dst, uint64_t *bar, int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_u32(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(smem_u32(bar))
                 : "memory");
}

/*
 * Slice @p t of K into stage @p st, its copies counted on @p full: A's @p rows x 64 box at rows
 * row0.., columns 64 t.. and B's NB 64 x 64 boxes at rows 64 t.., columns col0 + 64 j.. (box j at
 * st.b + j B_BOX_BYTES). One thread calls it. The phase expects the boxes' whole bytes: TMA
 * writes every byte of a box, zeros past the matrix's edges.
 */
template <int NB>
static __device__ void load_slice(const CUtensorMap *a_map, const CUtensorMap *b_map, stage st,
                                  uint64_t *full, int rows, int t, int row0, int col0)
{
    // BEGIN SOLUTION
    mbar_expect_bytes(full, (unsigned)slice_bytes(rows, NB));
    tma_load(a_map, st.a, full, t * BK, row0);
    for (int j = 0; j < NB; j++)
        tma_load(b_map, st.b + j * B_BOX_BYTES, full, col0 + j * WG_N, t * BK);
    // END SOLUTION
}

/* ---- wgmma --------------------------------------------------------------------------------------
 */

/*
 * A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format") for a tile the
 * 128-byte swizzle wrote at @p p: start address / 16 (bits 0-13), leading byte offset 1 (unused
 * with this swizzle for a 64-wide tile, bits 16-29), stride byte offset 1024 / 16 (bits 32-45:
 * from one 8-row group to the next), swizzle mode 1 = 128 bytes (bits 62-63).
 */
static __device__ uint64_t desc_128b(const void *p)
{
    uint64_t a = smem_u32(p);
    return (a & 0x3FFFF) >> 4 | 1ull << 16 | (uint64_t)(8 * ROW_BYTES >> 4) << 32 | 1ull << 62;
}

/* The 32 accumulators of an m64n64 wgmma as operands %2 .. %33. */
#define WG_D8(i)                                                                                   \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),    \
        "+f"(d[i + 6]), "+f"(d[i + 7])

/* d += A B: A (64 x 16, K-major) at descriptor @p da, B (16 x 64, N-major: transposed, the
 * immediate 1 after the scales) at @p db. */
static __device__ void wgmma_64x64(float (&d)[32], uint64_t da, uint64_t db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
                 "{%2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, "
                 "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33}, "
                 "%0, %1, 1, 1, 1, 0, 1;"
                 : "+l"(da), "+l"(db), WG_D8(0), WG_D8(8), WG_D8(16), WG_D8(24)
                 :
                 : "memory");
}

/*
 * This warpgroup's 64 rows of a slice times the slice of B, into @p d, as one commit group: per
 * 16 of the slice's 64 k, A's descriptor moves 32 bytes along its rows (the swizzle is applied
 * to the address, so the start moves as if unswizzled) and B's 16 rows (2048 bytes) down.
 */
template <int NB>
static __device__ void mma_slice(float (&d)[NB][32], const uint8_t *a_rows, const uint8_t *b)
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); /* accumulators written before */
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++)
#pragma unroll
        for (int h = 0; h < NB; h++)
            wgmma_64x64(d[h], desc_128b(a_rows + 32 * kk),
                        desc_128b(b + h * B_BOX_BYTES + 16 * ROW_BYTES * kk));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/* Wait until at most @p N of this warpgroup's commit groups are still running. */
template <int N> static __device__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/*
 * The accumulators into C, guarded: thread @p tid (0 .. 127) of the warpgroup whose tile starts
 * at (row0, col0) holds, in d[h][i], row 16 (tid / 32) + tid % 32 / 4 + 8 (i / 2 % 2) and column
 * 64 h + 8 (i / 4) + 2 (tid % 4) + i % 2 (PTX ISA, "wgmma .m64nNk16 register fragment D").
 */
template <int NB>
static __device__ void store_c(const float (&d)[NB][32], float *C, int M, int N, int row0, int col0,
                               int tid)
{
    int w = tid / 32, l = tid % 32;
#pragma unroll
    for (int h = 0; h < NB; h++)
#pragma unroll
        for (int i = 0; i < 32; i++) {
            int r = row0 + 16 * w + l / 4 + 8 * (i >> 1 & 1);
            int c = col0 + WG_N * h + 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
            if (r < M && c < N)
                C[(size_t)r * N + c] = d[h][i];
        }
}

/* ---- wgmma_tma: one stage
 * ------------------------------------------------------------------------ */

/* One warpgroup per 64 x 128 tile of C (block (x, y): rows 64 y.., columns 128 x..). One stage
 * keeps the tile small: each slice's copy is exposed, and what hides it is the other blocks on
 * the SM (a bigger tile would leave fewer of them). */
static __global__ void __launch_bounds__(WG_THREADS)
    wgmma_tma_kernel(const __grid_constant__ CUtensorMap a_map,
                     const __grid_constant__ CUtensorMap b_map, float *C, int M, int N, int K)
{
    uint8_t *base = smem_base();
    stage st = stage_of(base, WG_M, TMA_NB, 0);
    uint64_t *full = barriers(base, WG_M, TMA_NB, 1);
    int row0 = blockIdx.y * WG_M, col0 = blockIdx.x * TMA_NB * WG_N, slices = (K + BK - 1) / BK;
    float d[TMA_NB][32] = {};
    // BEGIN SOLUTION
    if (threadIdx.x == 0) {
        mbar_init(full, 1); /* thread 0's arrival, with the slice's bytes */
        mbar_fence_init();
    }
    __syncthreads(); /* the mbarrier is initialised before anyone waits on it */
    for (int t = 0; t < slices; t++) {
        if (threadIdx.x == 0)
            load_slice<TMA_NB>(&a_map, &b_map, st, full, WG_M, t, row0, col0);
        mbar_wait(full, t % 2); /* slice t's phase: the t-th, parity t % 2 */
        mma_slice(d, st.a, st.b);
        wgmma_wait<0>(); /* this warp's reads of the tiles are over ... */
        __syncthreads(); /* ... and every warp's, before thread 0 refills them */
    }
    // END SOLUTION
    store_c(d, C, M, N, row0, col0, threadIdx.x);
}

/* ---- wgmma_pipelined: STAGES slices in flight
 * ------------------------------------------------------ */

/*
 * One warpgroup per 64 x 256 tile of C (four boxes of B a slice, 128 accumulators a thread,
 * 160 KiB of stages: one block an SM). Stage s holds slices s, s + STAGES, ...: full[s]
 * completes when a slice's copies land (thread 0's arrival and the bytes), empty[s] when the
 * four warps are done reading it (one arrival each). Warp 0 refills a stage as soon as it is
 * empty, so while slice t is multiplied, slices t + 1 .. t + STAGES - 1 are being copied.
 */
static __global__ void __launch_bounds__(WG_THREADS)
    wgmma_pipelined_kernel(const __grid_constant__ CUtensorMap a_map,
                           const __grid_constant__ CUtensorMap b_map, float *C, int M, int N, int K)
{
    uint8_t *base = smem_base();
    uint64_t *full = barriers(base, WG_M, PIPE_NB, STAGES), *empty = full + STAGES;
    int row0 = blockIdx.y * WG_M, col0 = blockIdx.x * PIPE_NB * WG_N, slices = (K + BK - 1) / BK;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float d[PIPE_NB][32] = {};
    // BEGIN SOLUTION
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], WG_THREADS / 32);
        }
        mbar_fence_init();
        for (int t = 0; t < STAGES && t < slices; t++) /* every stage starts empty */
            load_slice<PIPE_NB>(&a_map, &b_map, stage_of(base, WG_M, PIPE_NB, t), &full[t], WG_M, t,
                                row0, col0);
    }
    __syncthreads(); /* the mbarriers are initialised before anyone waits on them */
    for (int t = 0; t < slices; t++) {
        stage st = stage_of(base, WG_M, PIPE_NB, t % STAGES);
        mbar_wait(&full[t % STAGES], t / STAGES % 2); /* the stage's (t / STAGES)-th phase */
        mma_slice(d, st.a, st.b);
        wgmma_wait<1>(); /* slice t - 1's group is done: its stage may be refilled */
        if (t == 0)
            continue;
        int p = (t - 1) % STAGES, next = t - 1 + STAGES;
        if (lane == 0)
            mbar_arrive(&empty[p]);
        if (warp == 0 && next < slices) {
            mbar_wait(&empty[p], (t - 1) / STAGES % 2); /* all four warps arrived */
            if (lane == 0)
                load_slice<PIPE_NB>(&a_map, &b_map, stage_of(base, WG_M, PIPE_NB, p), &full[p],
                                    WG_M, next, row0, col0);
        }
    }
    wgmma_wait<0>();
    // END SOLUTION
    store_c(d, C, M, N, row0, col0, threadIdx.x);
}

/* ---- wgmma_warp_specialized: a producer and two consumers
 * ------------------------------------------ */

enum { WS_CONSUMERS = 2, WS_THREADS = (1 + WS_CONSUMERS) * WG_THREADS, WS_M = WS_CONSUMERS * WG_M };

/* The producer: one thread fills the stages in turn, each once its consumers emptied it. */
static __device__ void produce(const CUtensorMap *a_map, const CUtensorMap *b_map, uint8_t *base,
                               uint64_t *full, uint64_t *empty, int slices, int row0, int col0)
{
    // BEGIN SOLUTION
    for (int t = 0; t < slices; t++) {
        int s = t % STAGES;
        if (t >= STAGES) /* the stage's previous slice, t - STAGES, has been read */
            mbar_wait(&empty[s], (t / STAGES - 1) % 2);
        load_slice<WS_NB>(a_map, b_map, stage_of(base, WS_M, WS_NB, s), &full[s], WS_M, t, row0,
                          col0);
    }
    // END SOLUTION
}

/*
 * Consumer warpgroup @p g (0 or 1): rows 64 g .. 64 g + 63 of every slice of A. Each slice's
 * group is waited for to the end (wait_group 0) before its stage is released: with one group
 * left running (wait_group 1, as wgmma_pipelined does), ptxas (CUDA 13.0) serialises this
 * kernel's wgmma (warning C7515), and here the other consumer's math and the producer's copies
 * fill the wait.
 */
static __device__ void consume(float (&d)[WS_NB][32], uint8_t *base, uint64_t *full,
                               uint64_t *empty, int slices, int g)
{
    // BEGIN SOLUTION
    for (int t = 0; t < slices; t++) {
        stage st = stage_of(base, WS_M, WS_NB, t % STAGES);
        mbar_wait(&full[t % STAGES], t / STAGES % 2);
        mma_slice(d, st.a + g * WG_M * ROW_BYTES, st.b);
        wgmma_wait<0>(); /* slice t is done: this warp releases its stage */
        if (threadIdx.x % 32 == 0)
            mbar_arrive(&empty[t % STAGES]);
    }
    // END SOLUTION
}

/* Warpgroup 0 produces, warpgroups 1 and 2 consume; one 128 x 128 tile of C per block. */
static __global__ void __launch_bounds__(WS_THREADS, 1)
    wgmma_warp_specialized_kernel(const __grid_constant__ CUtensorMap a_map,
                                  const __grid_constant__ CUtensorMap b_map, float *C, int M, int N,
                                  int K)
{
    uint8_t *base = smem_base();
    uint64_t *full = barriers(base, WS_M, WS_NB, STAGES), *empty = full + STAGES;
    int row0 = blockIdx.y * WS_M, col0 = blockIdx.x * WS_NB * WG_N, slices = (K + BK - 1) / BK;
    int wg = threadIdx.x / WG_THREADS;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            mbar_init(&full[s], 1);                               /* the producer's arrival */
            mbar_init(&empty[s], WS_CONSUMERS * WG_THREADS / 32); /* one per consumer warp */
        }
        mbar_fence_init();
    }
    __syncthreads(); /* the mbarriers are initialised before anyone waits on them */
    // BEGIN SOLUTION
    if (wg == 0) {
        /* A thread that only issues copies needs few registers: give them to the consumers. */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"((int)PRODUCER_REGS));
        if (threadIdx.x == 0)
            produce(&a_map, &b_map, base, full, empty, slices, row0, col0);
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"((int)CONSUMER_REGS));
    float d[WS_NB][32] = {};
    consume(d, base, full, empty, slices, wg - 1);
    store_c(d, C, M, N, row0 + (wg - 1) * WG_M, col0, threadIdx.x % WG_THREADS);
    // END SOLUTION
}

/* ---- the launchers ------------------------------------------------------------------------------
 */

/* 0 when the launch can go ahead; else one line on stderr naming what is refused, and 1. */
static int refuses(const char *name, int M, int N, int K, const uint16_t *A, const uint16_t *B)
{
    if (M < 1 || N < 8 || K < 8 || N % 8 || K % 8) {
        fprintf(stderr,
                "%s: M = %d, N = %d, K = %d: N and K must be positive multiples of 8 (a tensor "
                "map's rows, N and K bf16 values, are multiples of 16 bytes) and M at least 1\n",
                name, M, N, K);
        return 1;
    }
    if ((uintptr_t)A % 16 || (uintptr_t)B % 16) {
        fprintf(stderr, "%s: A and B must start on a 16-byte boundary (a tensor map's base)\n",
                name);
        return 1;
    }
    int cc = device_compute_capability();
    if (cc != 90) {
        fprintf(stderr,
                "%s: needs an sm_90 GPU (wgmma, TMA and setmaxnreg are sm_90a features); this "
                "one is sm_%d\n",
                name, cc);
        return 1;
    }
    return 0;
}

/* cuTensorMapEncodeTiled from the driver, through the runtime (no -lcuda). */
static PFN_cuTensorMapEncodeTiled_v12000 encoder(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = NULL;
    if (!fn) {
        cudaDriverEntryPointQueryResult q;
        CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&fn, 12000,
                                                    cudaEnableDefault, &q));
        if (q != cudaDriverEntryPointSuccess || !fn) {
            fprintf(stderr, "cuTensorMapEncodeTiled: not found in the CUDA driver\n");
            exit(EXIT_FAILURE);
        }
    }
    return fn;
}

/*
 * The tensor map of a row-major rows x cols bf16 matrix at @p p, read in boxes of @p box_rows
 * rows x 64 columns (128 bytes) with the 128-byte swizzle; elements past the edges read as 0.
 */
static CUtensorMap make_map(const uint16_t *p, int rows, int cols, int box_rows)
{
    CUtensorMap map = {};
    // BEGIN SOLUTION
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows}; /* the contiguous one first */
    cuuint64_t strides[1] = {(cuuint64_t)cols * 2};            /* bytes from row to row */
    cuuint32_t box[2] = {BK, (cuuint32_t)box_rows}, steps[2] = {1, 1};
    CUresult res = encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)p, dims, strides,
                             box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (res != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled: error %d for a %d x %d matrix\n", (int)res, rows,
                cols);
        exit(EXIT_FAILURE);
    }
    // END SOLUTION
    return map;
}

typedef void (*gemm_kernel)(CUtensorMap, CUtensorMap, float *, int, int, int);

/* @p kernel on blocks of @p threads, one per @p rows x 64 @p nb tile of C, with @p stages stages.
 */
static int launch(gemm_kernel kernel, int rows, int nb, int stages, int threads, int M, int N,
                  int K, const uint16_t *A, const uint16_t *B, float *C)
{
    CUtensorMap a_map = make_map(A, M, K, rows), b_map = make_map(B, K, N, BK);
    size_t smem = smem_bytes(rows, nb, stages);
    CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    dim3 grid((N + nb * WG_N - 1) / (nb * WG_N), (M + rows - 1) / rows);
    kernel<<<grid, threads, smem>>>(a_map, b_map, C, M, N, K);
    CUDA_CHECK_LAUNCH();
    return 0;
}

extern "C" int wgmma_tma(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C)
{
    if (refuses("wgmma_tma", M, N, K, d_A, d_B))
        return -1;
    return launch(wgmma_tma_kernel, WG_M, TMA_NB, 1, WG_THREADS, M, N, K, d_A, d_B, d_C);
}

extern "C" int wgmma_pipelined(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                               float *d_C)
{
    if (refuses("wgmma_pipelined", M, N, K, d_A, d_B))
        return -1;
    return launch(wgmma_pipelined_kernel, WG_M, PIPE_NB, STAGES, WG_THREADS, M, N, K, d_A, d_B,
                  d_C);
}

extern "C" int wgmma_warp_specialized(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                                      float *d_C)
{
    if (refuses("wgmma_warp_specialized", M, N, K, d_A, d_B))
        return -1;
    return launch(wgmma_warp_specialized_kernel, WS_M, WS_NB, STAGES, WS_THREADS, M, N, K, d_A, d_B,
                  d_C);
}
