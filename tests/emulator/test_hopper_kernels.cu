/**
 * @file test_hopper_kernels.cu
 * @brief Kernels of the Hopper suite (test_hopper.c), built for sm_90a.
 *
 * The copies are written as inline PTX, one form per helper, as from-scratch Hopper kernels
 * write them, except hop_guide_example's, which uses the CUDA C++ Programming Guide's
 * cuda::barrier and cuda::device::experimental calls so that nvcc's own PTX for them runs too.
 * Tensor maps come as __grid_constant__ parameters (their address is a generic address of the
 * parameter space) or, in one case, from global memory. Comments in capitals (HOP_...) mark
 * the lines the planted bugs' reports must name; the refusals' lines are found by their code.
 */
#include <cuda/barrier>

#include "test_hopper.h"

/* ---- the PTX forms, one helper each --------------------------------------------------- */

static __device__ uint32_t smem_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

static __device__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
}

/* Arrive once, after adding @p bytes to the phase's transaction count. */
static __device__ void mbar_arrive_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile(
        "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
        "r"(bytes));
}

static __device__ void mbar_arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)));
}

/* Spin until the phase of parity @p parity has completed. */
static __device__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra WAIT;\n"
                 "}" ::"r"(smem_u32(bar)),
                 "r"(parity)
                 : "memory");
}

static __device__ void fence_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* The copies' PTX, a macro each, so that an asm statement the tests name is one line (the line
 * a report names): [%0] shared memory, [%1, {coordinates from %3 or %2}] the tensor map, [%2]
 * a load's mbarrier. */
#define LD(d, c)                                                                                   \
    "cp.async.bulk.tensor." d ".shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], "   \
    "[%1, " c "], [%2];"
#define ST(red, op, d, c)                                                                          \
    "cp" red ".async.bulk.tensor." d ".global.shared::cta" op ".tile.bulk_group [%1, " c "], "     \
    "[%0];"

/* The box at coordinates @p c of the rank-@p rank map @p map into @p dst, completing on @p bar.
 * Coordinates that are 0 where the PTX may hold them as integers (a 2D copy's second, a 5D
 * copy's 1st, 4th and 5th, as nvcc writes constant coordinates) are written as integers. */
static __device__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, const int *c,
                                int rank)
{
    uint32_t d = smem_u32(dst), b = smem_u32(bar);
    uint64_t m = (uint64_t)map;
    if (rank == 1)
        asm volatile(LD("1d", "{%3}")::"r"(d), "l"(m), "r"(b), "r"(c[0]) : "memory");
    if (rank == 2 && c[1] == 0)
        asm volatile(LD("2d", "{%3, 0}")::"r"(d), "l"(m), "r"(b), "r"(c[0]) : "memory");
    if (rank == 5 && c[0] == 0 && c[3] == 0 && c[4] == 0)
        asm volatile(LD("5d", "{0, %3, %4, 0, 0}")::"r"(d), "l"(m), "r"(b), "r"(c[1]), "r"(c[2])
                     : "memory");
    if (rank == 2 && c[1] != 0)
        asm volatile(LD("2d", "{%3, %4}")::"r"(d), "l"(m), "r"(b), "r"(c[0]), "r"(c[1]) : "memory");
    if (rank == 3)
        asm volatile(LD("3d", "{%3, %4, %5}")::"r"(d), "l"(m), "r"(b), "r"(c[0]), "r"(c[1]),
                     "r"(c[2])
                     : "memory");
    if (rank == 4)
        asm volatile(LD("4d", "{%3, %4, %5, %6}")::"r"(d), "l"(m), "r"(b), "r"(c[0]), "r"(c[1]),
                     "r"(c[2]), "r"(c[3])
                     : "memory");
    if (rank == 5 && (c[0] != 0 || c[3] != 0 || c[4] != 0))
        asm volatile(LD("5d", "{%3, %4, %5, %6, %7}")::"r"(d), "l"(m), "r"(b), "r"(c[0]), "r"(c[1]),
                     "r"(c[2]), "r"(c[3]), "r"(c[4])
                     : "memory");
}

/* The box at @p c from @p src to the tensor: stored, or (@p add) added element by element. */
static __device__ void tma_store(const CUtensorMap *map, const void *src, const int *c, int rank,
                                 int add)
{
    uint32_t s = smem_u32(src);
    uint64_t m = (uint64_t)map;
    if (add)
        asm volatile(ST(".reduce", ".add", "2d", "{%2, %3}")::"r"(s), "l"(m), "r"(c[0]), "r"(c[1]));
    else if (rank == 2)
        asm volatile(ST("", "", "2d", "{%2, %3}")::"r"(s), "l"(m), "r"(c[0]), "r"(c[1]));
    else
        asm volatile(ST("", "", "3d", "{%2, %3, %4}")::"r"(s), "l"(m), "r"(c[0]), "r"(c[1]),
                     "r"(c[2]));
    asm volatile("cp.async.bulk.commit_group;\n"
                 "cp.async.bulk.wait_group.read 0;" ::
                     : "memory");
}

/* Thread 0 initialises @p bar (one arrival) and, once every thread has passed the barrier that
 * publishes it, loads the box at @p c of the rank-@p rank map @p map into @p dst, announcing
 * its @p bytes on @p bar's phase 0. The block then waits for that phase as it needs to. */
static __device__ void load_box(void *dst, const CUtensorMap *map, uint64_t *bar, const int *c,
                                int rank, unsigned bytes)
{
    if (threadIdx.x == 0) {
        mbar_init(bar, 1);
        fence_async(); /* the initialised object, visible to the copy engine */
    }
    __syncthreads(); /* the mbarrier exists before anyone uses it */
    if (threadIdx.x == 0) {
        tma_load(dst, map, bar, c, rank);
        mbar_arrive_tx(bar, bytes);
    }
}

/* ---- TMA loads of boxes, and stores ---------------------------------------------------- */

static __global__ void hop_tma_boxes_kernel(const __grid_constant__ CUtensorMap map,
                                            const CUtensorMap *global_map, int rank,
                                            const hop_coords *coords, unsigned box_bytes,
                                            uint8_t *out)
{
    extern __shared__ __align__(1024) uint8_t box[];
    __shared__ uint64_t bar;
    load_box(box, global_map ? global_map : &map, &bar, coords[blockIdx.x].c, rank, box_bytes);
    mbar_wait(&bar, 0);
    for (unsigned i = threadIdx.x; i < box_bytes; i += blockDim.x)
        out[(size_t)blockIdx.x * box_bytes + i] = box[i];
}

extern "C" cudaError_t hop_tma_boxes(const CUtensorMap *map, const CUtensorMap *global_map,
                                     int rank, const hop_coords *coords, int boxes,
                                     unsigned box_bytes, uint8_t *out)
{
    hop_tma_boxes_kernel<<<boxes, 128, (box_bytes + 1023) / 1024 * 1024>>>(*map, global_map, rank,
                                                                           coords, box_bytes, out);
    return cudaGetLastError();
}

static __global__ void hop_tma_store_kernel(const __grid_constant__ CUtensorMap map, int rank,
                                            const hop_coords *coords, unsigned box_bytes,
                                            const uint8_t *images, int reduce_add, int fence)
{
    extern __shared__ __align__(1024) uint8_t box[];
    for (unsigned i = threadIdx.x; i < box_bytes; i += blockDim.x)
        box[i] = images[(size_t)blockIdx.x * box_bytes + i]; /* HOP_STORE_WRITE */
    if (fence == 1)
        fence_async(); /* each writer's generic writes, before the async proxy's read */
    __syncthreads();   /* the whole box is written before the store is issued */
    if (threadIdx.x == 0) {
        if (fence == 2)
            fence_async(); /* after the barrier: every thread's writes, ordered before */
        tma_store(&map, box, coords[blockIdx.x].c, rank, reduce_add);
    }
}

extern "C" cudaError_t hop_tma_store(const CUtensorMap *map, int rank, const hop_coords *coords,
                                     int boxes, unsigned box_bytes, const uint8_t *images,
                                     int reduce_add, int fence)
{
    hop_tma_store_kernel<<<boxes, 128, (box_bytes + 1023) / 1024 * 1024>>>(
        *map, rank, coords, box_bytes, images, reduce_add, fence);
    return cudaGetLastError();
}

/* The writers of a 32 x 32 float tile (element (r, c) = r * 32 + c, those with r < @p rows and
 * c < @p cols) and the last thread of the block, which stores it to the tensor at (x, y) with a
 * TMA store, ordered as @p order says (enum hop_order). */
static __global__ void hop_store_source_kernel(const __grid_constant__ CUtensorMap map, int order,
                                               int x, int y, int rows, int cols)
{
    extern __shared__ __align__(1024) float src[];
    __shared__ uint64_t bar;
    const unsigned issuer = blockDim.x - 1;
    const int c[2] = {x, y};
    if (threadIdx.x == 0) {
        mbar_init(&bar, blockDim.x);
        fence_async();
    }
    __syncthreads(); /* the mbarrier exists before anyone arrives */
    for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x)
        if (i / 32 < rows && i % 32 < cols)
            src[i] = (float)i; /* HOP_SOURCE_WRITE */
    if (order != HOP_MBARRIER_THEN_FENCE && order != HOP_MBARRIER_ISSUER_FENCES)
        fence_async(); /* each writer's generic writes, before the async proxy's read */
    if (order == HOP_FENCE_BARRIER)
        __syncthreads(); /* every write and its fence before the store's issue */
    if (order == HOP_FENCE_SYNCWARP)
        __syncwarp(); /* the one warp's writes and fences before its last lane's store */
    if (order == HOP_FENCE_THEN_MBARRIER || order >= HOP_MBARRIER_THEN_FENCE) {
        mbar_arrive(&bar); /* release: the writes (and fences) so far, to the waiting issuer */
        if (order == HOP_MBARRIER_THEN_FENCE)
            fence_async(); /* after the arrival: it orders nothing before the issue */
        if (threadIdx.x == issuer)
            mbar_wait(&bar, 0);
    }
    if (threadIdx.x != issuer)
        return;
    if (order == HOP_MBARRIER_ISSUER_FENCES)
        fence_async(); /* after the wait: every writer's writes, acquired, to the async proxy */
    tma_store(&map, src, c, 2, 0);
}

extern "C" cudaError_t hop_store_source(const CUtensorMap *map, int order, int x, int y, int rows,
                                        int cols)
{
    hop_store_source_kernel<<<1, order == HOP_FENCE_SYNCWARP ? 32 : 128, 4096>>>(*map, order, x, y,
                                                                                 rows, cols);
    return cudaGetLastError();
}

/* The box at (0, 0), then element (r, c) read where the swizzle put it: its byte offset in the
 * packed box with bits 4 and up XORed with bits 7 and up (1, 2 or 3 of them). */
static __global__ void hop_swizzle_read_kernel(const __grid_constant__ CUtensorMap map, int rows,
                                               int cols, int swizzle_bytes, uint16_t *out)
{
    extern __shared__ __align__(1024) uint8_t tile[];
    __shared__ uint64_t bar;
    const int origin[2] = {0, 0};
    load_box(tile, &map, &bar, origin, 2, (unsigned)(rows * cols * 2));
    mbar_wait(&bar, 0);
    unsigned bits = swizzle_bytes == 32    ? 1
                    : swizzle_bytes == 64  ? 2
                    : swizzle_bytes == 128 ? 3
                                           : 0;
    for (int i = threadIdx.x; i < rows * cols; i += blockDim.x) {
        unsigned off = (unsigned)i * 2; /* element (i / cols, i % cols) of the packed box */
        off ^= ((off >> 7) & ((1u << bits) - 1)) << 4;
        out[i] = *(const uint16_t *)(tile + off);
    }
}

extern "C" cudaError_t hop_swizzle_read(const CUtensorMap *map, int rows, int cols,
                                        int swizzle_bytes, uint16_t *out)
{
    hop_swizzle_read_kernel<<<1, 128, (rows * cols * 2 + 1023) / 1024 * 1024>>>(*map, rows, cols,
                                                                                swizzle_bytes, out);
    return cudaGetLastError();
}

/* ---- bulk copies and mbarrier transaction counts --------------------------------------- */

static __global__ void hop_bulk_kernel(const uint8_t *src, uint8_t *dst, unsigned bytes, int reduce)
{
    extern __shared__ __align__(128) uint8_t buf[];
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        fence_async();
    }
    __syncthreads(); /* the mbarrier exists before anyone uses it */
    if (threadIdx.x == 0) {
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
            "%2, [%3];" ::"r"(smem_u32(buf)),
            "l"(src), "r"(bytes), "r"(smem_u32(&bar))
            : "memory");
        mbar_arrive_tx(&bar, bytes);
    }
    mbar_wait(&bar, 0);
    for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x)
        buf[i] += 1;
    fence_async();   /* the generic writes, before the async proxy reads them */
    __syncthreads(); /* every byte updated before the copy back */
    if (threadIdx.x == 0) {
        if (reduce)
            asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], "
                         "%2;" ::"l"(dst),
                         "r"(smem_u32(buf)), "r"(bytes)
                         : "memory");
        else
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
                         "r"(smem_u32(buf)), "r"(bytes)
                         : "memory");
        asm volatile("cp.async.bulk.commit_group;\n"
                     "cp.async.bulk.wait_group 0;" ::
                         : "memory");
    }
}

extern "C" cudaError_t hop_bulk_round_trip(const uint8_t *src, uint8_t *dst, unsigned bytes,
                                           int reduce)
{
    hop_bulk_kernel<<<1, 96, bytes>>>(src, dst, bytes, reduce);
    return cudaGetLastError();
}

static __device__ int test_parity(uint64_t *bar, unsigned parity)
{
    unsigned done;
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n"
                 "}"
                 : "=r"(done)
                 : "r"(smem_u32(bar)), "r"(parity));
    return (int)done;
}

static __device__ void tx(uint64_t *bar, unsigned bytes, int complete)
{
    uint32_t b = smem_u32(bar);
    if (complete)
        asm volatile("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(b),
                     "r"(bytes));
    else
        asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(b),
                     "r"(bytes)); /* HOP_EXPECT_TX */
}

static __device__ uint64_t arrive_token(uint64_t *bar, unsigned bytes)
{
    uint64_t token;
    if (bytes)
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                     : "=l"(token)
                     : "r"(smem_u32(bar)), "r"(bytes));
    else
        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
                     : "=l"(token)
                     : "r"(smem_u32(bar)));
    return token;
}

/* Phase 0: two arrivals and 64 bytes, which complete in halves, the last after the arrivals.
 * Phase 1: 16 bytes completed before they are expected, with one arrival's expect_tx.
 * Phase 2: one arrival of two, and the pending count its token carries. */
static __global__ void hop_mbarrier_tx_kernel(int *out)
{
    __shared__ uint64_t bar;
    int k = 0;
    mbar_init(&bar, 2);
    out[k++] = test_parity(&bar, 0); /* 0 */
    tx(&bar, 64, 0);
    arrive_token(&bar, 0);
    out[k++] = test_parity(&bar, 0); /* 0: one arrival pending, 64 bytes */
    tx(&bar, 32, 1);
    arrive_token(&bar, 0);
    out[k++] = test_parity(&bar, 0); /* 0: no arrival pending, 32 bytes */
    tx(&bar, 32, 1);
    out[k++] = test_parity(&bar, 0); /* 1: phase 0 complete */
    out[k++] = test_parity(&bar, 1); /* 0: phase 1 runs */
    tx(&bar, 16, 1);
    arrive_token(&bar, 16);
    out[k++] = test_parity(&bar, 1); /* 0: one arrival pending, tx-count back at 0 */
    arrive_token(&bar, 0);
    out[k++] = test_parity(&bar, 1); /* 1 */
    uint64_t token = arrive_token(&bar, 0);
    unsigned pending;
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(token));
    out[k++] = (int)pending;         /* 1 */
    out[k++] = test_parity(&bar, 0); /* 0: phase 2 runs */
}

extern "C" cudaError_t hop_mbarrier_tx(int *out)
{
    hop_mbarrier_tx_kernel<<<1, 1>>>(out);
    return cudaGetLastError();
}

/* ---- a warp-specialised pipeline --------------------------------------------------------- */

enum { TILE = 32, STAGES = 2 };

static __global__ void hop_pipeline_kernel(const __grid_constant__ CUtensorMap map, int ktiles,
                                           float *out)
{
    __shared__ __align__(1024) float tile[STAGES][TILE * TILE];
    __shared__ uint64_t full[STAGES], empty[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++)
            mbar_init(&full[s], 1), mbar_init(&empty[s], 64);
        fence_async();
    }
    __syncthreads(); /* the mbarriers exist before anyone uses them */
    if (threadIdx.x < 32) {
        /* warp 0, lane 0: the producer refills a stage once its consumers emptied it */
        for (int k = 0; threadIdx.x == 0 && k < ktiles; k++) {
            int s = k % STAGES, at[2] = {TILE * k, 0};
            if (k >= STAGES)
                mbar_wait(&empty[s], (k / STAGES - 1) & 1);
            tma_load(tile[s], &map, &full[s], at, 2);
            mbar_arrive_tx(&full[s], TILE * TILE * 4);
        }
        return;
    }
    /* warps 1 and 2: thread t sums column t % 32 over rows 16 * (t / 32) to + 16 */
    int t = threadIdx.x - 32, col = t % TILE, row0 = 16 * (t / TILE);
    float acc = 0.0f;
    for (int k = 0; k < ktiles; k++) {
        int s = k % STAGES;
        mbar_wait(&full[s], (k / STAGES) & 1);
        for (int r = row0; r < row0 + 16; r++)
            acc += tile[s][r * TILE + col];
        mbar_arrive(&empty[s]);
    }
    atomicAdd(&out[col], acc); /* integer-valued floats: the sum is exact in any order */
}

extern "C" cudaError_t hop_pipeline(const CUtensorMap *map, int ktiles, float *out)
{
    hop_pipeline_kernel<<<1, 96>>>(*map, ktiles, out);
    return cudaGetLastError();
}

/* ---- the async-proxy checks' planted bugs -------------------------------------------------- */

static __global__ void hop_early_read_kernel(const __grid_constant__ CUtensorMap map, int wait,
                                             float *out)
{
    __shared__ __align__(1024) float tile[TILE * TILE];
    __shared__ uint64_t bar;
    const int origin[2] = {0, 0};
    load_box(tile, &map, &bar, origin, 2, sizeof tile);
    if (wait == 1 || (wait == 2 && threadIdx.x == 0))
        mbar_wait(&bar, 0);
    if (wait == 2)
        __syncthreads(); /* thread 0 saw the copy land: so may everyone after the barrier */
    for (int i = threadIdx.x; i < TILE * TILE; i += blockDim.x)
        out[i] = tile[i]; /* HOP_EARLY_READ */
}

extern "C" cudaError_t hop_early_read(const CUtensorMap *map, int wait, float *out)
{
    hop_early_read_kernel<<<1, 128>>>(*map, wait, out);
    return cudaGetLastError();
}

/* ---- multicast in a cluster ------------------------------------------------------------- */

/* The block's rank in its cluster, and the cluster's size. */
static __device__ unsigned cluster_rank(unsigned *size)
{
    unsigned r, n;
    asm("mov.u32 %0, %%cluster_ctarank;\n"
        "mov.u32 %1, %%cluster_nctarank;"
        : "=r"(r), "=r"(n));
    *size = n;
    return r;
}

static __device__ void cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;" ::
                     : "memory");
}

/* Each block of a cluster of n loads one box (coords[cluster * n + rank]) into slot rank of
 * every block of the cluster (ctaMask: all n), and rank 0 copies HOP_BULK bytes of @p bulk
 * (its cluster's) into the even-ranked blocks only (ctaMask 0b0101...). A block's mbarrier
 * expects the n boxes, and the bulk bytes when its rank is even; then it writes its n boxes
 * (box_bytes each) and its bulk bytes (zeros when odd) to out[block]. */
static __global__ void hop_multicast_kernel(const __grid_constant__ CUtensorMap map,
                                            const hop_coords *coords, unsigned box_bytes,
                                            const uint8_t *bulk, uint8_t *out)
{
    extern __shared__ __align__(1024) uint8_t slots[]; /* n slots of 1 KiB multiples, the bulk */
    __shared__ uint64_t bar;
    unsigned n, r = cluster_rank(&n), slot = (box_bytes + 1023) / 1024 * 1024;
    unsigned cluster = blockIdx.x / n;
    uint8_t *bulk_slot = slots + n * slot;
    uint16_t all = (uint16_t)((1u << n) - 1), even = (uint16_t)(0x5555u & all);
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        mbar_arrive_tx(&bar, n * box_bytes + (r % 2 ? 0 : HOP_BULK));
    }
    cluster_sync(); /* every block's mbarrier expects its bytes before any copy lands */
    if (threadIdx.x == 0) {
        const int *c = coords[cluster * n + r].c;
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::"
                     "bytes.multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(
                         smem_u32(slots + r * slot)),
                     "l"((uint64_t)&map), "r"(smem_u32(&bar)), "r"(c[0]), "r"(c[1]), "h"(all)
                     : "memory");
        if (r == 0)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                         ".multicast::cluster [%0], [%1], %2, [%3], %4;" ::"r"(smem_u32(bulk_slot)),
                         "l"(bulk + cluster * HOP_BULK), "r"(HOP_BULK), "r"(smem_u32(&bar)),
                         "h"(even)
                         : "memory");
    }
    mbar_wait(&bar, 0);
    uint8_t *mine = out + (size_t)blockIdx.x * (n * box_bytes + HOP_BULK);
    for (unsigned i = threadIdx.x; i < n * box_bytes; i += blockDim.x)
        mine[i] = slots[i / box_bytes * slot + i % box_bytes];
    for (unsigned i = threadIdx.x; i < HOP_BULK; i += blockDim.x)
        mine[n * box_bytes + i] = r % 2 ? 0 : bulk_slot[i];
    cluster_sync(); /* no block leaves while a peer may still address its shared memory */
}

extern "C" cudaError_t hop_multicast(const CUtensorMap *map, int cluster, int clusters,
                                     const hop_coords *coords, unsigned box_bytes,
                                     const uint8_t *bulk, uint8_t *out)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute dims;
    dims.id = cudaLaunchAttributeClusterDimension;
    dims.val.clusterDim.x = (unsigned)cluster, dims.val.clusterDim.y = 1;
    dims.val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)(cluster * clusters));
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = (size_t)cluster * ((box_bytes + 1023) / 1024 * 1024) + HOP_BULK;
    cfg.attrs = &dims;
    cfg.numAttrs = 1;
    cudaError_t err =
        cudaLaunchKernelEx(&cfg, hop_multicast_kernel, *map, coords, box_bytes, bulk, out);
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

/* ---- tensor maps changed on the device, as CUTLASS's grouped GEMMs change them ------------ */

/* Point the map at @p s to @p e's tensor: its address, both extents and its row stride. */
static __device__ void replace_map(CUtensorMap *s, const hop_retarget &e)
{
    uint32_t a = smem_u32(s);
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(a),
                 "l"((uint64_t)e.addr)
                 : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(a),
                 "r"(e.dim[0])
                 : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(a),
                 "r"(e.dim[1])
                 : "memory");
    asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;" ::"r"(a),
                 "l"(e.row_bytes)
                 : "memory");
    /* past the rank, as CUTLASS writes all five extents and four strides: nothing changes */
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 4, 1;" ::"r"(a)
                 : "memory");
    asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 3, 0;" ::"r"(a)
                 : "memory");
}

static __global__ void hop_map_edit_kernel(const __grid_constant__ CUtensorMap map, hop_retarget e,
                                           CUtensorMap *maps, const hop_coords *coords,
                                           unsigned box_bytes, uint8_t *out)
{
    extern __shared__ __align__(1024) uint8_t box[];
    __shared__ alignas(128) CUtensorMap s;
    __shared__ uint64_t bar;
    CUtensorMap *g = maps + blockIdx.x; /* each block's own, in global memory */
    if (threadIdx.x < 32) {             /* warp 0 edits a copy and publishes it */
        if (threadIdx.x < 16)
            ((uint64_t *)&s)[threadIdx.x] = ((const uint64_t *)&map)[threadIdx.x];
        __syncwarp();
        if (threadIdx.x == 0)
            replace_map(&s, e);
        __syncwarp();
        asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu"
                     ".sync.aligned [%0], [%1], 128;" ::"l"((uint64_t)g),
                     "r"(smem_u32(&s))
                     : "memory");
        asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"((uint64_t)g)
                     : "memory");
    }
    load_box(box, g, &bar, coords[blockIdx.x].c, 2, box_bytes);
    mbar_wait(&bar, 0);
    for (unsigned i = threadIdx.x; i < box_bytes; i += blockDim.x)
        out[(size_t)blockIdx.x * box_bytes + i] = box[i];
}

extern "C" cudaError_t hop_map_edit(const CUtensorMap *map, hop_retarget e, CUtensorMap *maps,
                                    const hop_coords *coords, int boxes, unsigned box_bytes,
                                    uint8_t *out)
{
    hop_map_edit_kernel<<<boxes, 128, (box_bytes + 1023) / 1024 * 1024>>>(*map, e, maps, coords,
                                                                          box_bytes, out);
    return cudaGetLastError();
}

/* ---- refusals and faults ------------------------------------------------------------------- */

#define MULTICAST                                                                                  \
    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"             \
    ".multicast::cluster [%0], [%1, {%3, %3}], [%2], %4;"
#define IM2COL                                                                                     \
    "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], "    \
    "[%1, {%3, %3, %3}], [%2], {%4};"
#define BULK                                                                                       \
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %3, [%2];"

#define BOX_DIM "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0, 8;"
#define STRIDE_8 "tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, 8;"

/* Replaces the emulator refuses (5: a field it does not change) or that fail (6: a row
 * stride of 8 bytes), on a copy of @p map in shared memory. */
static __device__ void refused_replace(const CUtensorMap *map, int which)
{
    __shared__ alignas(128) CUtensorMap s;
    s = *map;
    uint32_t a = smem_u32(&s);
    if (which == 5)
        asm volatile(BOX_DIM ::"r"(a) : "memory");
    else
        asm volatile(STRIDE_8 ::"r"(a) : "memory");
}

static __global__ void hop_refused_kernel(const __grid_constant__ CUtensorMap map, int which,
                                          float *scratch)
{
    __shared__ __align__(1024) float tile[TILE * TILE + 4];
    __shared__ uint64_t bar;
    const int origin[3] = {0, 0, 0};
    uint32_t d = smem_u32(tile), b = smem_u32(&bar);
    uint16_t mask = 2, offset = 0; /* a multicast to rank 1 of a launch without clusters */
    mbar_init(&bar, 1);
    if (which == 0)
        asm volatile(MULTICAST ::"r"(d), "l"((uint64_t)&map), "r"(b), "r"(0), "h"(mask));
    if (which == 1)
        asm volatile(IM2COL ::"r"(d), "l"((uint64_t)&map), "r"(b), "r"(0), "h"(offset));
    if (which == 2)
        tma_load(tile + 4, &map, &bar, origin, 2); /* reported at tma_load's 2D line */
    if (which == 3)
        asm volatile(BULK ::"r"(d), "l"(scratch), "r"(b), "r"(which * 5 + 5)); /* 20 bytes */
    if (which == 4)
        tx(&bar, 1u << 20, 0); /* reported at tx's expect_tx line */
    if (which >= 5)
        refused_replace(&map, which);
}

extern "C" cudaError_t hop_refused(const CUtensorMap *map, int which, float *scratch)
{
    hop_refused_kernel<<<1, 1>>>(*map, which, scratch);
    return cudaDeviceSynchronize();
}

/* ---- the Programming Guide's way, and parameters read through a pointer -------------------- */

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

static __global__ void hop_guide_kernel(const __grid_constant__ CUtensorMap map, int x, int y)
{
    __shared__ alignas(128) float tile[TILE * TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta(); /* the barrier, visible to the copy engine */
    }
    __syncthreads(); /* the barrier exists before anyone arrives */
    block_barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(tile, &map, x, y, bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof tile);
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    for (int i = threadIdx.x; i < TILE * TILE; i += blockDim.x)
        tile[i] *= 2.0f;
    cde::fence_proxy_async_shared_cta(); /* the generic writes, before the store reads them */
    __syncthreads();                     /* the whole tile doubled before the store */
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_shared_to_global(&map, x, y, tile);
        cde::cp_async_bulk_commit_group();
        cde::cp_async_bulk_wait_group_read<0>();
    }
}

extern "C" cudaError_t hop_guide_example(const CUtensorMap *map, int x, int y)
{
    hop_guide_kernel<<<1, 128>>>(*map, x, y);
    return cudaGetLastError();
}

/* Element @p i through a generic pointer (a call: the compiler cannot see which space). */
static __device__ __noinline__ int pick(const int *v, int i)
{
    return v[i];
}

static __global__ void hop_param_pointer_kernel(const __grid_constant__ hop_forty p, int *out)
{
    out[threadIdx.x] = pick(p.v, (threadIdx.x * 7) % 40); /* the parameter's own address */
}

extern "C" cudaError_t hop_param_pointer(hop_forty p, int *out)
{
    hop_param_pointer_kernel<<<1, 40>>>(p, out);
    return cudaGetLastError();
}
