/**
 * @file diff_race.h
 * @brief Two kernels for the differential harness's own test: one whose answer depends on the
 *        order of a block's warps, and one whose answer does not.
 */
#ifndef DIFF_RACE_H
#define DIFF_RACE_H

#ifdef __cplusplus
extern "C" {
#endif

/** Threads per block of both launchers: 7 warps and a partial eighth. */
#define DIFF_RACE_THREADS 250

/**
 * d_out[b] = the warp of block b that stored last into one shared word (a race no barrier
 * orders: the answer is whichever warp the device ran last), for @p blocks blocks.
 */
void diff_last_warp(int blocks, int *d_out);

/** d_out[b] = sum over block b's warps w of (w + 1) * (b + 1), each warp in a slot of its own. */
void diff_warp_sum(int blocks, int *d_out);

#ifdef __cplusplus
}
#endif

#endif /* DIFF_RACE_H */
