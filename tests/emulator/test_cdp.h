/**
 * @file test_cdp.h
 * @brief Separately compiled device code (-rdc) and dynamic parallelism, for the emulator's
 *        suite test_cdp.c. The kernels live in two files compiled with -rdc=true
 *        (test_cdp_kernels.cu and test_cdp_linked.cu), which call each other's device
 *        functions, read each other's device variables and launch each other's kernels.
 *        Every launcher returns the launch's error after a cudaDeviceSynchronize.
 */
#ifndef TEST_CDP_H
#define TEST_CDP_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * out[i] = (3 * x + 5 + (x & 3) - bias) + (x + 1 + (x & 3)) + offset for x = in[i], i < n: a
 * kernel of test_cdp_kernels.cu calls a device function of test_cdp_linked.cu (the first
 * bracket, from that file's string literal "\5\6\7\10") and its own helper (the second, from
 * "\1\2\3\4"), and reads the variable bias (its own, set here) and offset (the other file's,
 * initialised to 7 there).
 */
cudaError_t cdp_linked_map(const int *d_in, int n, int bias, int *d_out);

/** out[i] = in[i] * offset, i < n, by a kernel of test_cdp_linked.cu launched from the host. */
cudaError_t cdp_linked_scale(const int *d_in, int n, int *d_out);

/**
 * out[i] = 2 * (3 * in[i] - 3 + 1), i < n, by device-side launches only: thread 0 of each
 * 64-thread block of a parent launches, into a stream it creates, a child of the other file
 * (32-thread blocks, 128 bytes of dynamic shared memory, arguments int*, int, char, double,
 * int*) that writes 3 * in - 3 and tail-launches a grandchild adding 1, then a second child
 * into the same stream that doubles the block's elements once the first (and its grandchild)
 * is complete.
 */
cudaError_t cdp_tree(const int *d_in, int n, int *d_out);

/**
 * A kernel that launches itself from depth 0 on, without end: errs[d] = the device-side
 * cudaGetLastError after the launch at depth d (32 entries; launches stop where they are
 * refused).
 */
cudaError_t cdp_nest(int *d_errs);

/**
 * One block of @p nthreads threads, each launching one child: thread 0 with 2048 threads per
 * block (an invalid configuration), the others a 1-thread child that doubles scratch[t];
 * errs[t] = each thread's cudaGetLastError after its launch.
 */
cudaError_t cdp_fanout(int nthreads, int *d_scratch, int *d_errs);

/** A parent whose child stores through a pointer into no allocation: the launch's error. */
cudaError_t cdp_child_fault(void);

#ifdef __cplusplus
}
#endif

#endif /* TEST_CDP_H */
