/**
 * @file threads_blocks_grids.h
 * @brief Lesson 02: the first kernels. Launchers take device pointers and do not synchronise.
 */
#ifndef THREADS_BLOCKS_GRIDS_H
#define THREADS_BLOCKS_GRIDS_H

#ifdef __cplusplus
extern "C" {
#endif

/** d_c[i] = d_a[i] + d_b[i] for i < n, with a grid-stride loop. */
void vector_add(const float *d_a, const float *d_b, float *d_c, int n);

/**
 * The host side of c = a + b on @p n elements of host arrays: allocate device arrays, copy
 * @p h_a and @p h_b in, launch one thread per element, copy the result into @p h_c, free, with
 * every call checked. *@p ms receives the kernel's time, measured with CUDA events (0 for
 * n <= 0). Unlike a launcher, it waits for the GPU: its result is on the host.
 */
void vector_add_host(int n, const float *h_a, const float *h_b, float *h_c, float *ms);

/** C = A * B, one thread per element of C, threadIdx.x walking down a column (uncoalesced). */
void matmul_naive(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

/** C = A * B, one thread per element of C, threadIdx.x walking along a row (coalesced). */
void matmul_coalesced(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

#ifdef __cplusplus
}
#endif

#endif /* THREADS_BLOCKS_GRIDS_H */
