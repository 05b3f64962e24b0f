/**
 * @file grid.h
 * @brief Lesson 06: the host helpers every stage's launchers share (grid.c, written in the
 *        reduction stage): temporary storage, and the grid from the device's properties.
 */
#ifndef GRID_H
#define GRID_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** cudaMalloc of @p bytes (at least one) for temporary storage; a failure exits, as CUDA_CHECK
 *  does. */
void *temp_alloc(size_t bytes);

/** Blocks of @p kernel (@p threads each, @p smem dynamic shared bytes) that fit on the device
 *  at once: SMs times resident blocks per SM, from the device's properties; at least one. */
int resident_blocks(const void *kernel, int threads, size_t smem);

/** The grid of a grid-stride loop over @p items, @p per_block per block per step: the device's
 *  resident blocks, or fewer when the items need fewer; at least one. */
int stride_grid(const void *kernel, int threads, size_t smem, long long items, int per_block);

#ifdef __cplusplus
}
#endif

#endif /* GRID_H */
