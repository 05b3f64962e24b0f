/**
 * @file test_graph_cond.h
 * @brief The kernels the conditional-node suite (test_graph_cond.c) puts in graphs, for kernel
 *        nodes (the kernel's address) and for stream capture (launchers that queue and return
 *        the launch's own error).
 */
#ifndef TEST_GRAPH_COND_H
#define TEST_GRAPH_COND_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Threads per block of every launch here (the grids cover n with guarded edges). */
enum { COND_BLOCK = 128 };

/** The kernel (const int *sel, cudaGraphConditionalHandle h): one thread sets h to *sel. */
const void *cond_set_kernel(void);

/** The kernel (int *x, int n, int mul, int add): x[i] = x[i] * mul + add for i < n. */
const void *cond_axpb_kernel(void);

/** The kernel (int *counter, cudaGraphConditionalHandle h): one thread takes 1 off *counter
 *  and sets h to what is left (a WHILE body's last node). */
const void *cond_countdown_kernel(void);

/** cond_set_kernel on stream @p s (for capture). */
cudaError_t cond_set(const int *d_sel, cudaGraphConditionalHandle h, cudaStream_t s);

/** cond_axpb_kernel over @p n on stream @p s (for capture). */
cudaError_t cond_axpb(int *d_x, int n, int mul, int add, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* TEST_GRAPH_COND_H */
