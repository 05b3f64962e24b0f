/**
 * @file test_cublas_kernels.cu
 * @brief A WMMA GEMM with fp16 accumulators: what cuBLAS's CUBLAS_COMPUTE_16F is checked
 *        against (test_cublas.c); and cublasHgemm, which only C++ can call through its header.
 */
#include "test_cublas.h"

#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

/* One warp per 16 x 16 tile of C: tile (blockIdx.x, blockIdx.y) covers rows 16 * blockIdx.x
 * and columns 16 * blockIdx.y. The accumulator stays fp16 from the first k step to the last. */
static __global__ void wmma_gemm_f16_acc_kernel(int M, int K, const __half *A, const __half *B,
                                                __half *C)
{
    int row = 16 * blockIdx.x, col = 16 * blockIdx.y;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> fc;
    wmma::fill_fragment(fc, __float2half(0.0f));
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, A + (size_t)k * M + row, M); /* A(row.., k..) */
        wmma::load_matrix_sync(fb, B + (size_t)col * K + k, K); /* B(k.., col..) */
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(C + (size_t)col * M + row, fc, M, wmma::mem_col_major);
}

cudaError_t wmma_gemm_f16_acc(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                              uint16_t *d_C)
{
    wmma_gemm_f16_acc_kernel<<<dim3(M / 16, N / 16), 32>>>(M, K, (const __half *)d_A,
                                                           (const __half *)d_B, (__half *)d_C);
    return cudaGetLastError();
}

cublasStatus_t hgemm_bits(cublasHandle_t h, int form, cublasOperation_t ta, cublasOperation_t tb,
                          int m, int n, int k, const uint16_t *alpha, const uint16_t *A, int lda,
                          const uint16_t *B, int ldb, const uint16_t *beta, uint16_t *C, int ldc)
{
    const __half *al = (const __half *)alpha, *a = (const __half *)A, *b = (const __half *)B;
    const __half *be = (const __half *)beta;
    __half *c = (__half *)C;
    if (form == HGEMM_64)
        return cublasHgemm_64(h, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
    if (form == HGEMM_STRIDED_BATCHED) /* one batch, strides that would reach past it */
        return cublasHgemmStridedBatched(h, ta, tb, m, n, k, al, a, lda, 1LL << 40, b, ldb,
                                         1LL << 40, be, c, ldc, 1LL << 40, 1);
    if (form == HGEMM_BATCHED) { /* one batch, its pointer arrays in device memory */
        const void *host[3] = {a, b, c};
        void **dev;
        if (cudaMalloc((void **)&dev, sizeof host) != cudaSuccess ||
            cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice) != cudaSuccess)
            return CUBLAS_STATUS_ALLOC_FAILED;
        cublasStatus_t st =
            cublasHgemmBatched(h, ta, tb, m, n, k, al, (const __half **)dev, lda,
                               (const __half **)dev + 1, ldb, be, (__half **)dev + 2, ldc, 1);
        cudaFree(dev);
        return st;
    }
    return cublasHgemm(h, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}
