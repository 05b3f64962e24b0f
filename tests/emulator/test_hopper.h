/**
 * @file test_hopper.h
 * @brief The Hopper suite's launchers (test_hopper_kernels.cu, built for sm_90a): TMA loads,
 *        stores and reductions through tensor maps, bulk copies, mbarrier transaction counts,
 *        and the planted async-proxy bugs with their correct twins.
 */
#ifndef TEST_HOPPER_H
#define TEST_HOPPER_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Coordinates of one box: up to five, innermost first. */
struct hop_coords {
    int c[5];
};

/** Block b loads the box at @p coords[b] through @p map (rank @p rank) into 1024-aligned shared
 *  memory and copies its @p box_bytes raw bytes to out + b * box_bytes. @p global_map: the map
 *  is read from a device copy of it instead of the kernel parameter. */
cudaError_t hop_tma_boxes(const CUtensorMap *map, const CUtensorMap *global_map, int rank,
                          const struct hop_coords *coords, int boxes, unsigned box_bytes,
                          uint8_t *out);

/** Block b copies box image @p images + b * box_bytes into shared memory and writes it to the
 *  tensor at @p coords[b] with a TMA store (@p reduce_add: cp.reduce.async.bulk.tensor add);
 *  @p fence: 0 no fence.proxy.async (a planted bug), 1 every writer fences before the barrier,
 *  2 the issuing thread fences after it. */
cudaError_t hop_tma_store(const CUtensorMap *map, int rank, const struct hop_coords *coords,
                          int boxes, unsigned box_bytes, const uint8_t *images, int reduce_add,
                          int fence);

/** How hop_store_source()'s writers hand their tile to the thread that stores it. */
enum hop_order {
    HOP_FENCE_BARRIER,          /**< each fences, then __syncthreads() (correct) */
    HOP_FENCE_NO_BARRIER,       /**< each fences; nothing orders that before the store (a bug) */
    HOP_FENCE_SYNCWARP,         /**< one warp: each fences, then __syncwarp() (correct) */
    HOP_FENCE_THEN_MBARRIER,    /**< each fences, then arrives on an mbarrier the issuer waits
                                     on (correct) */
    HOP_MBARRIER_THEN_FENCE,    /**< each arrives, then fences (a bug: the fence comes after) */
    HOP_MBARRIER_ISSUER_FENCES, /**< each arrives; the issuer waits, then fences (correct) */
};

/** One block writes elements (r, c), r < @p rows, c < @p cols, of a 32 x 32 float tile in shared
 *  memory (element (r, c) = r * 32 + c), and its last thread stores the tile with a TMA store to
 *  @p map (a 32 x 32 box) at (@p x, @p y), the two ordered by @p order (enum hop_order). */
cudaError_t hop_store_source(const CUtensorMap *map, int order, int x, int y, int rows, int cols);

/** One block: the rows x cols u16 box at (0, 0) of @p map (swizzled as the map says) loaded by
 *  TMA, then every element read back at the address the swizzle formula gives into out. */
cudaError_t hop_swizzle_read(const CUtensorMap *map, int rows, int cols, int swizzle_bytes,
                             uint16_t *out);

/** cp.async.bulk of @p bytes (a multiple of 16) from @p src into shared memory, each byte plus
 *  one, then cp.async.bulk back to @p dst; with @p reduce, the u32 words are added to dst's
 *  (cp.reduce.async.bulk.add.u32) instead. */
cudaError_t hop_bulk_round_trip(const uint8_t *src, uint8_t *dst, unsigned bytes, int reduce);

/** One thread steps an mbarrier through arrivals, expect_tx and complete_tx, writing each
 *  test_wait's answer (and the pending count) into out[0..16). */
cudaError_t hop_mbarrier_tx(int *out);

/** A warp-specialised pipeline: warp 0 loads @p ktiles 32 x 32 float tiles of @p map (a 32 x
 *  32 * ktiles matrix) through a 2-stage ring of full and empty mbarriers, warps 1 and 2 sum
 *  each tile's column c into out[c]. */
cudaError_t hop_pipeline(const CUtensorMap *map, int ktiles, float *out);

/** Thread 0 loads the 32 x 32 float box at (0, 0); then the threads read it: @p wait 1 after
 *  waiting on the mbarrier, 0 without waiting (a planted bug), 2 after thread 0 alone waited
 *  and a __syncthreads(). Thread t writes tile[t] to out[t]. */
cudaError_t hop_early_read(const CUtensorMap *map, int wait, float *out);

/** The bytes of hop_multicast()'s bulk copy. */
#define HOP_BULK 256

/** Clusters of @p cluster blocks (@p clusters of them): block rank r of cluster k multicasts the
 *  box at coords[k * cluster + r] (@p box_bytes) to every block of its cluster, and rank 0 the
 *  HOP_BULK bytes at bulk + k * HOP_BULK to the even ranks. Block b writes the boxes it holds,
 *  in rank order, then the bulk bytes (zeros in odd ranks) to out + b * (cluster * box_bytes +
 *  HOP_BULK). Synchronises. */
cudaError_t hop_multicast(const CUtensorMap *map, int cluster, int clusters,
                          const struct hop_coords *coords, unsigned box_bytes, const uint8_t *bulk,
                          uint8_t *out);

/** Forms the VM refuses or faults on, one per @p which: 0 a multicast load to a block past the
 *  cluster, 1 an im2col load, 2 a tensor copy into misaligned shared memory, 3 a bulk copy of 20
 *  bytes, 4 a tx-count past its range, 5 a tensormap.replace of the box's extent, 6 one of a
 *  row stride to 8 bytes. */
cudaError_t hop_refused(const CUtensorMap *map, int which, float *scratch);

/** A 2D tensor a map is pointed at on the device: its address, extents (innermost first) and
 *  row stride in bytes. */
struct hop_retarget {
    const void *addr;
    uint32_t dim[2];
    uint64_t row_bytes;
};

/** Block b copies the 2D @p map into shared memory, points it at @p e's tensor with
 *  tensormap.replace, publishes it to @p maps[b] with tensormap.cp_fenceproxy, and loads the
 *  box at @p coords[b] through it, its @p box_bytes raw bytes to out + b * box_bytes. */
cudaError_t hop_map_edit(const CUtensorMap *map, struct hop_retarget e, CUtensorMap *maps,
                         const struct hop_coords *coords, int boxes, unsigned box_bytes,
                         uint8_t *out);

/** The kernel the CUDA C++ Programming Guide's TMA example is: cuda::barrier, the
 *  cuda::device::experimental copies, a 2D load, each element doubled, and a 2D store back. */
cudaError_t hop_guide_example(const CUtensorMap *map, int x, int y);

/** out[i] = the i-th of 40 ints read through a pointer to a __grid_constant__ parameter. */
struct hop_forty {
    int v[40];
};
cudaError_t hop_param_pointer(struct hop_forty p, int *out);

#ifdef __cplusplus
}
#endif

#endif /* TEST_HOPPER_H */
