/**
 * @file grid.c
 * @brief Lesson 06, stage 1 (with reduce.cu): the host helpers every stage's launchers share,
 *        declared in grid.h: temporary storage, and the grid from the device's properties.
 */
#include "grid.h"

#include "cuda_check.h"

void *temp_alloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes > 0 ? bytes : 1));
    return p;
}

int resident_blocks(const void *kernel, int threads, size_t smem)
{
    // cudaGetDevice, cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount) and
    // cudaOccupancyMaxActiveBlocksPerMultiprocessor; at least one block.
    int blocks = 1;
    // BEGIN SOLUTION
    int dev, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    blocks = sms * per_sm > 1 ? sms * per_sm : 1;
    // END SOLUTION
    return blocks;
}

int stride_grid(const void *kernel, int threads, size_t smem, long long items, int per_block)
{
    long long need = (items + per_block - 1) / per_block;
    int fit = resident_blocks(kernel, threads, smem);
    return need < 1 ? 1 : need < fit ? (int)need : fit;
}
