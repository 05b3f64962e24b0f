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

#ifdef __cplusplus
}
#endif

#endif /* TEST_CDP_H */
