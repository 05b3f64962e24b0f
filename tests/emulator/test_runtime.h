/**
 * @file test_runtime.h
 * @brief The kernels the runtime stand-in's suite launches (test_runtime_kernels.cu and
 *        friends), behind C launchers that return the launch's own error.
 */
#ifndef TEST_RUNTIME_H
#define TEST_RUNTIME_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/** out[i] = a * i + b for i < n, on @p grid blocks of @p block threads. */
cudaError_t rt_test_affine(int *d_out, int n, int a, int b, dim3 grid, dim3 block);

/** The same on @p stream, in blocks of 128 threads enough for n. */
cudaError_t rt_test_affine_on(int *d_out, int n, int a, int b, cudaStream_t stream);

/** Thread 0 of block 0 stores to d_out[index] (out of bounds when index is large). */
cudaError_t rt_test_store_at(int *d_out, long long index);

/** Every thread writes its id into @p dyn_bytes of dynamic shared memory, then out[t] = it. */
cudaError_t rt_test_dynamic_smem(int *d_out, int threads, size_t dyn_bytes);

/** The kernel rt_test_dynamic_smem() launches, for cudaFuncSetAttribute. */
const void *rt_test_dynamic_smem_kernel(void);

/** out[i] = table[i] + 1 for i < 37, where table is a __device__ int[37]. */
cudaError_t rt_test_table_plus_one(int *d_out);

/** The __device__ int[37] table's host shadow, for cudaMemcpyToSymbol. */
const void *rt_test_table_symbol(void);

/** Threads 0 to 36 add __managed__ int vals[37] (initialised {5, -3, 8, 1000003, -77}) into
 *  __managed__ int total, each then setting vals[t] = 3 * vals[t] + t. */
cudaError_t rt_test_managed_launch(void);

/** The host's address of total and of vals[0], as nvcc's host code reaches them. */
int *rt_test_managed_total_ptr(void);
int *rt_test_managed_vals_ptr(void);

/** One thread per @p threads prints "block B thread T" with printf. */
cudaError_t rt_test_printf(int threads);

/** A static kernel named fill_kernel in this file: out[0] = 1. */
cudaError_t rt_test_fill_one(int *d_out);

/** Another static kernel named fill_kernel, in test_runtime_twin.cu: out[0] = 2. */
cudaError_t rt_test_fill_two(int *d_out);

/** A kernel built for sm_90 machine code only (no PTX), in test_runtime_noptx.cu. */
cudaError_t rt_test_no_ptx(int *d_out);

/** *d_out = 901 from a kernel built with -arch=sm_90a when its sm_90a code runs, 900 when the
 *  plain compute_90 PTX beside it does (test_runtime_arch90a.cu). */
cudaError_t rt_test_arch_90a(int *d_out);

#ifdef __cplusplus
}
#endif

#endif /* TEST_RUNTIME_H */
