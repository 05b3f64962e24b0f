/**
 * @file diff_race.cu
 * @brief The differential harness's proof that it can fail (tools/differential.sh).
 *
 * Versions, in order:
 *   diff_warp_sum   each warp writes a shared slot of its own, then one thread sums them:
 *                   the same answer in any warp order
 *   diff_last_warp  every warp writes the same shared word with no barrier between the
 *                   writes: the answer is the warp that ran last, a shared-memory race that
 *                   COURSE_DIFF=schedule exposes
 */
#include "diff_race.h"

#include "cuda_check.h"

/* Warps per block, the partial last one included. */
enum { WARPS = (DIFF_RACE_THREADS + 31) / 32 };

static __global__ void diff_warp_sum_kernel(int *out)
{
    __shared__ int slot[WARPS]; /* one per warp: no two warps write the same word */
    int warp = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0)
        slot[warp] = (warp + 1) * (blockIdx.x + 1);
    __syncthreads(); /* every slot written before thread 0 reads them */
    if (threadIdx.x == 0) {
        int sum = 0;
        for (int w = 0; w < WARPS; w++)
            sum += slot[w];
        out[blockIdx.x] = sum;
    }
}

void diff_warp_sum(int blocks, int *d_out)
{
    diff_warp_sum_kernel<<<blocks, DIFF_RACE_THREADS>>>(d_out);
    CUDA_CHECK_LAUNCH();
}

static __global__ void diff_last_warp_kernel(int *out)
{
    __shared__ int last; /* every warp's lane 0 writes it: the race */
    if (threadIdx.x % 32 == 0)
        last = threadIdx.x / 32;
    __syncthreads(); /* orders the writes before the read, not the writes among themselves */
    if (threadIdx.x == 0)
        out[blockIdx.x] = last;
}

void diff_last_warp(int blocks, int *d_out)
{
    diff_last_warp_kernel<<<blocks, DIFF_RACE_THREADS>>>(d_out);
    CUDA_CHECK_LAUNCH();
}
