/**
 * @file baseline.h
 * @brief The libraries every kernel is measured against: cuBLAS, and a CPU BLAS where installed.
 *
 * Matrices are row-major, as in the lessons. cuBLAS is column-major, and a
 * row-major matrix is the column-major view of its transpose, so
 * C = A * B is computed as C^T = B^T * A^T: the operands are swapped and no
 * data moves. SGEMM runs with the default math mode, which is true FP32 (no
 * TF32); half-precision GEMMs use FP32 compute, so every kernel is compared
 * with cuBLAS at its own precision. Calls are enqueued on the default stream
 * and do not synchronise.
 */
#ifndef BASELINE_H
#define BASELINE_H

#include <cublas_v2.h>
#include <library_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** C = A * B in FP32 on the device (cublasSgemm, default math). */
void baseline_sgemm(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

/**
 * C = A * B on the device with A and B of type @p ab_type (CUDA_R_16F or
 * CUDA_R_16BF), FP32 accumulation and an FP32 C (cublasGemmEx, CUBLAS_COMPUTE_32F).
 */
void baseline_gemm_ex(int M, int N, int K, const void *d_A, const void *d_B, cudaDataType_t ab_type,
                      float *d_C);

/**
 * y = A x in FP32 on the device (cublasSgemv), A M x K row-major, x K floats,
 * y M floats. Row-major A is the column-major K x M matrix A^T, so this is
 * cuBLAS's y = (A^T)^T x: CUBLAS_OP_T with m = K, n = M, lda = K.
 */
void baseline_sgemv(int M, int K, const float *d_A, const float *d_x, float *d_y);

/**
 * C = A * B on the device with any cuBLAS compute type (cublasGemmEx): A and B of type
 * @p ab_type, C of type @p c_type, arithmetic as @p compute says, e.g.
 * CUBLAS_COMPUTE_32F_FAST_TF32 (float in and out, TF32 Tensor Cores inside) or
 * CUBLAS_COMPUTE_16F (fp16 in and out, fp16 accumulation). alpha = 1 and beta = 0 are passed
 * in the compute type's scalar type. Lesson 09's accuracy study runs every type through it.
 */
void baseline_gemm_compute(int M, int N, int K, const void *d_A, const void *d_B,
                           cudaDataType_t ab_type, void *d_C, cudaDataType_t c_type,
                           cublasComputeType_t compute);

/** Destroy the cuBLAS handle, if one was made. */
void baseline_release(void);

/** The CPU BLAS this build links ("OpenBLAS"), or NULL when none was found at configure time. */
const char *baseline_cpu_name(void);

/** C = A * B on the host with the CPU BLAS (cblas_sgemm). Returns 0 when there is none. */
int baseline_cpu_sgemm(int M, int N, int K, const float *A, const float *B, float *C);

#ifdef __cplusplus
}
#endif

#endif /* BASELINE_H */
