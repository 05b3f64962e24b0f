/**
 * @file test_checks.h
 * @brief Kernels with the bugs the emulator's checks must find (test_checks_kernels.cu), each
 *        beside its correct twin, behind C launchers that return the launch's own error.
 *
 * Each bug's line carries a marker comment (CHECK_...) that the suite looks up, so a report
 * can be asserted to name the right file and line.
 */
#ifndef TEST_CHECKS_H
#define TEST_CHECKS_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Which bug a kernel carries. */
enum check_bug {
    BUG_NONE,           /**< the correct kernel */
    BUG_NO_SYNC_BEFORE, /**< tiled matmul: no __syncthreads() between loading and using a tile */
    BUG_NO_SYNC_AFTER,  /**< tiled matmul: none between using a tile and loading the next */
    BUG_NO_ROW_GUARD,   /**< tiled matmul: A's tile loaded without the row guard */
};

/** C = A B (n x n, row-major) with 16 x 16 tiles, carrying @p bug. */
cudaError_t checks_tiled_matmul(enum check_bug bug, const float *A, const float *B, float *C,
                                int n);

/** out[i] = 2 in[i] for i < n, with the guard written `i <= n` when @p off_by_one. */
cudaError_t checks_scale(int off_by_one, const float *in, float *out, int n);

/** One warp sums in[0..31] through shared memory into *out, with or without __syncwarp(). */
cudaError_t checks_warp_sum(int syncwarp, const float *in, float *out);

/** Three warps sum in[0..95] into *out: each warp's lane 0 writes its share to shared memory,
 *  then warp 0 adds the three, after a block-wide cuda::barrier when @p barrier, else none. */
cudaError_t checks_barrier_sum(int barrier, const float *in, float *out);

/** How warp 0 arrives at the mbarrier of checks_handoff(). */
enum handoff { HANDOFF_AFTER, HANDOFF_ARRIVE_FIRST, HANDOFF_THROUGH_CLUSTER };

/** Warp 0 stores 3 in[t] for warp 1, which reads it into out[t + 32] after waiting on an
 *  mbarrier only warp 0 arrives at (32 arrivals): after its stores (HANDOFF_AFTER), or after them
 *  through the object's shared::cluster address (HANDOFF_THROUGH_CLUSTER), or before them
 *  (HANDOFF_ARRIVE_FIRST), when they are not handed over. out[t] = in[t] for warp 0. */
cudaError_t checks_handoff(int how, const float *in, float *out);

/** Warp 2 reads into out[t] the 5 in[t - 64] warp 0 stored, after a barrier with a count of
 *  64 that it meets warp 1 at: @p ordered, after warp 1 waited for warp 0 at another (each
 *  producer arriving without waiting), or else not ordered after warp 0's stores at all.
 *  out[t] = in[t] for warps 0 and 1. */
cudaError_t checks_named(int ordered, const float *in, float *out);

/** Reads of memory nobody wrote: @p shared 1: a shared array half filled; 0: in[0..63]. */
cudaError_t checks_uninitialised(int shared, const float *in, float *out);

/**
 * Wrong synchronisation: @p kind 0 a barrier half a warp skips (meeting the others at the next
 * one), 1 the block meeting at two different __syncthreads(), 2 a shuffle whose mask leaves out
 * lanes that run it, 3 __syncwarp() naming lanes a 16-thread block does not have. Kind 4 is
 * right: threads 40..63 return before a __syncthreads(), and out[t] = 39 - t for t < 40. Kind 5
 * is right too: warp 0 stores 2 t and meets warp 1 at bar.sync 1, 64, which warp 1 reaches from
 * another place and then reads (out[t] = t for t < 32, 2 (t - 32) after); so is kind 6, the two
 * warps meeting at a barrier.sync without .aligned from two places (out[t] = 3 t, then 5 t).
 */
cudaError_t checks_bad_sync(int kind, float *out);

#ifdef __cplusplus
}
#endif

#endif /* TEST_CHECKS_H */
