/**
 * @file baseline.c
 * @brief The libraries every kernel is measured against: cuBLAS, and a CPU BLAS where installed.
 */
#include "baseline.h"

#include <cublas_v2.h>
#include <stdint.h>

#include "cuda_check.h"

#ifdef COURSE_HAVE_CBLAS
#include <cblas.h>
#endif

static cublasHandle_t handle;

static cublasHandle_t get_handle(void)
{
    if (!handle) {
        CUBLAS_CHECK(cublasCreate(&handle));
        CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    }
    return handle;
}

void baseline_sgemm(int M, int N, int K, const float *d_A, const float *d_B, float *d_C)
{
    const float one = 1.0f, zero = 0.0f;
    /* Column-major C^T (N x M) = B^T (N x K) * A^T (K x M); leading dimensions are row lengths. */
    CUBLAS_CHECK(cublasSgemm(get_handle(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, d_B, N, d_A, K,
                             &zero, d_C, N));
}

void baseline_gemm_ex(int M, int N, int K, const void *d_A, const void *d_B, cudaDataType_t ab_type,
                      float *d_C)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(get_handle(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, d_B, ab_type,
                              N, d_A, ab_type, K, &zero, d_C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

void baseline_sgemv(int M, int K, const float *d_A, const float *d_x, float *d_y)
{
    const float one = 1.0f, zero = 0.0f;
    /* Column-major A^T is K x M with leading dimension K; y = (A^T)^T x. */
    CUBLAS_CHECK(cublasSgemv(get_handle(), CUBLAS_OP_T, K, M, &one, d_A, K, d_x, 1, &zero, d_y, 1));
}

void baseline_gemm_compute(int M, int N, int K, const void *d_A, const void *d_B,
                           cudaDataType_t ab_type, void *d_C, cudaDataType_t c_type,
                           cublasComputeType_t compute)
{
    const float one = 1.0f, zero = 0.0f;
    const uint16_t one16 = 0x3C00, zero16 = 0; /* 1 and 0 in binary16, for CUBLAS_COMPUTE_16F */
    int half = compute == CUBLAS_COMPUTE_16F || compute == CUBLAS_COMPUTE_16F_PEDANTIC;
    const void *alpha = half ? (const void *)&one16 : (const void *)&one;
    const void *beta = half ? (const void *)&zero16 : (const void *)&zero;
    CUBLAS_CHECK(cublasGemmEx(get_handle(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, alpha, d_B, ab_type,
                              N, d_A, ab_type, K, beta, d_C, c_type, N, compute,
                              CUBLAS_GEMM_DEFAULT));
}

void baseline_gemm_batched(int batch, int M, int N, int K, float alpha, const void *d_A,
                           long long stride_a, const void *d_B, long long stride_b, int b_trans,
                           cudaDataType_t ab_type, void *d_C, long long stride_c,
                           cudaDataType_t c_type, cublasComputeType_t compute)
{
    const float zero = 0.0f;
    /* Column-major C^T (N x M) = op(B)^T (N x K) * A^T (K x M). Stored B is column-major B^T
     * (ld N) or, with b_trans, column-major B (K x N, ld K), which CUBLAS_OP_T turns back. */
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        get_handle(), b_trans ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, d_B,
        ab_type, b_trans ? K : N, stride_b, d_A, ab_type, K, stride_a, &zero, d_C, c_type, N,
        stride_c, batch, compute, CUBLAS_GEMM_DEFAULT));
}

void baseline_release(void)
{
    if (handle)
        CUBLAS_CHECK(cublasDestroy(handle));
    handle = NULL;
}

const char *baseline_cpu_name(void)
{
#ifdef COURSE_HAVE_CBLAS
    return "OpenBLAS";
#else
    return NULL;
#endif
}

int baseline_cpu_sgemm(int M, int N, int K, const float *A, const float *B, float *C)
{
#ifdef COURSE_HAVE_CBLAS
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
    return 1;
#else
    (void)M, (void)N, (void)K, (void)A, (void)B, (void)C;
    return 0;
#endif
}
