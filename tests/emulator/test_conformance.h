/**
 * @file test_conformance.h
 * @brief The kernels of the emulator's conformance suite (test_conformance_kernels.cu), behind C
 *        launchers that return the launch's error (after a cudaDeviceSynchronize).
 */
#ifndef TEST_CONFORMANCE_H
#define TEST_CONFORMANCE_H

#include <cuda_runtime.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** out[i] = warpSize * 1000 + i % warpSize, for @p n threads (warpSize is PTX's WARP_SZ). */
cudaError_t conf_warp_size(int *d_out, int n);

/** A 1-byte static __shared__ flag and an extern __shared__ int sdata[n] (n * 4 dynamic bytes,
 *  one block of n threads): flag = n & 1,
 *  sdata[t] = 3 t + flag, out[t] = sdata[n - 1 - t]. */
cudaError_t conf_static_and_dynamic_smem(int *d_out, int n);

/** out[i] = (long long)(int)in[i]: cvt.s64.s32 reading a 64-bit register, for @p n values. */
cudaError_t conf_cvt_wide_source(const long long *d_in, long long *d_out, int n);

/** Each thread of a 96-thread block writes its id at %reserved_smem_offset_1 + 4 t (CUDA's
 *  reserved shared memory), then out[t] = the word of thread 95 - t; out[96] = _end - _begin. */
cudaError_t conf_reserved_smem(int *d_out);

/** tiled_partition<64> (its scratch is the reserved shared memory): out[t] = the tile's thread
 *  rank 0's t, via tile.shfl, for a 128-thread block. */
cudaError_t conf_multi_warp_tile(int *d_out);

/** out[i] = i * 7 + 1 for a __device__ function-pointer table's module (its initialiser holds
 *  function addresses); out[n] = 1 when the table's entries are set. */
cudaError_t conf_function_table_module(int *d_out, int n);

/** A kernel with mbarrier.init/arrive.shared::cta.b64: its instructions with "::" qualifiers. */
cudaError_t conf_mbarrier(uint64_t *d_out);

/** A kernel with an im2col tensor copy (a form the VM refuses) through the map at @p d_map. */
cudaError_t conf_im2col_copy(const int *d_map, int *d_out);

/** A kernel that reads a driver register the emulator does not have (%envreg3). */
cudaError_t conf_envreg(int *d_out);

/** out[i] = i + 1 for @p n threads of @p blocks blocks: cudaLaunchCooperativeKernel. */
cudaError_t conf_cooperative(int *d_out, int n, int blocks, int threads);

/** The plain kernel conf_cooperative() launches, for the occupancy calls. */
const void *conf_cooperative_kernel(void);

/** Three grid.sync()s between phases that read other blocks' elements of @p d_a (@p n of them):
 *  out[i] = 3 (n - 1 - (i + threads) % n) + 2. Launched cooperatively or (0) plainly. */
cudaError_t conf_grid_sync(int *d_a, int *d_out, int n, int blocks, int threads, int cooperative);

#ifdef __cplusplus
}
#endif

#endif /* TEST_CONFORMANCE_H */
