/**
 * @file hopper.h
 * @brief Lesson 12: GEMM the Hopper way: TMA copies described by tensor maps, transaction-count
 *        mbarriers, wgmma reading swizzled shared memory, and warp specialisation. Launchers
 *        take device pointers and do not synchronise.
 *
 * C (M x N, float) = A (M x K) * B (K x N), both row-major, A and B bfloat16 passed as their raw
 * bits (`const uint16_t *`, as lessons 08 and 10), products accumulated in fp32. B stays
 * row-major (K x N) as in lessons 08 to 10: its tiles reach wgmma "N-major", which wgmma's
 * transpose bit allows for 16-bit types (README.md says why).
 *
 * The shapes the tensor maps allow: M >= 1, N >= 8 and K >= 8 with N and K multiples of 8. A
 * tensor map's row stride must be a multiple of 16 bytes, and the rows of A are K bf16 values
 * (2 K bytes), those of B N values; A and B must start on a 16-byte boundary. Edges in M, N and
 * K need nothing else: TMA fills the part of a box outside the matrix with zeros, and the
 * stores of C are guarded. Every launcher returns 0, or -1 after one line on stderr naming what
 * it refuses (another shape, a misaligned pointer, a GPU that is not sm_90), launching nothing.
 *
 * The kernels are built for sm_90a alone: wgmma, setmaxnreg and TMA are the "a" (architecture-
 * specific) features of Hopper, which run on sm_90 and on no later GPU.
 */
#ifndef HOPPER_H
#define HOPPER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * One warpgroup (128 threads) per 64 x 128 tile of C. For each 64-deep slice of K, one thread
 * asks TMA for A's 64 x 64 box and B's two 64 x 64 boxes (128-byte swizzle) against one
 * mbarrier that counts their bytes; every thread waits for the phase, then 4 x 2 wgmma
 * m64n64k16 multiply the slice out of shared memory. One stage: copy, wait, compute, repeat.
 */
int wgmma_tma(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/** wgmma_tma with STAGES slices in flight: a "full" mbarrier per stage says its copies landed,
 *  an "empty" one that the warpgroup's wgmma finished reading it, so its refill can start. The
 *  stages hide a block's own copies, so one block an SM is enough: 64 x 256 tiles of C (four
 *  boxes of B a slice, 160 KiB of shared memory a block). */
int wgmma_pipelined(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/** wgmma_pipelined split by role: 128 x 128 tiles of C, a producer warpgroup that only issues
 *  TMA copies and two consumer warpgroups (64 rows each) that only issue wgmma; setmaxnreg
 *  moves registers from the producer to the consumers. */
int wgmma_warp_specialized(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                           float *d_C);

#ifdef __cplusplus
}
#endif

#endif /* HOPPER_H */
