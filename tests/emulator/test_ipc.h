/**
 * @file test_ipc.h
 * @brief The kernel the IPC suite (test_ipc.c) launches in a child process on memory of its
 *        parent's.
 */
#ifndef TEST_IPC_H
#define TEST_IPC_H

#include <cuda_runtime.h>

#ifdef __CUDACC__
#define IPC_HD __host__ __device__
#else
#define IPC_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The value ipc_pattern writes at @p i with @p seed: small, non-uniform, both signs. */
static inline IPC_HD int ipc_value(int i, int seed)
{
    return (i * 37 + seed) % 211 - 105;
}

/** x[i] = ipc_value(i, seed) for i < n, on stream @p s (128 threads a block, edges guarded);
 *  the launch's own error. */
cudaError_t ipc_pattern(int *d_x, int n, int seed, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* TEST_IPC_H */
