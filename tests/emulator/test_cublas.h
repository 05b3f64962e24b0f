/**
 * @file test_cublas.h
 * @brief A WMMA GEMM with fp16 accumulators (test_cublas_kernels.cu), the kernel a student
 *        checks against cuBLAS's CUBLAS_COMPUTE_16F, and cublasHgemm called as C++ calls it, for
 *        the suite in test_cublas.c.
 */
#ifndef TEST_CUBLAS_H
#define TEST_CUBLAS_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * d_C = d_A d_B, all fp16 (binary16 bits) and column-major: A is M x K (leading dimension M),
 * B is K x N (K), C is M x N (M). One warp per 16 x 16 tile of C, its fp16 accumulator
 * fragment carried through K / 16 wmma.mma instructions in k order. M, N and K must be
 * multiples of 16. Returns the launch's error.
 */
cudaError_t wmma_gemm_f16_acc(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                              uint16_t *d_C);

/** The forms of cublasHgemm hgemm_bits() calls. */
enum { HGEMM, HGEMM_64, HGEMM_STRIDED_BATCHED, HGEMM_BATCHED };

/**
 * cublasHgemm in @p form (HGEMM_64: cublasHgemm_64; the batched forms with one batch) on
 * binary16 bits, as a C++ program calls it: cublas_api.h declares it for C++ alone, with __half
 * operands.
 */
cublasStatus_t hgemm_bits(cublasHandle_t h, int form, cublasOperation_t ta, cublasOperation_t tb,
                          int m, int n, int k, const uint16_t *alpha, const uint16_t *A, int lda,
                          const uint16_t *B, int ldb, const uint16_t *beta, uint16_t *C, int ldc);

#ifdef __cplusplus
}
#endif

#endif /* TEST_CUBLAS_H */
