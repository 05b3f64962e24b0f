/* Attack: no Tensor Core of the device does the work. mma_ldmatrix and mma_pipelined copy A and
 * B to the host, multiply there and copy C back; mma_swizzled and mma_bf16 reach cuBLAS through
 * dlopen, so that no cuBLAS symbol is left in the library for nm to see. Every answer is right. */
#include "mma_pipeline.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <dlfcn.h>
#include <stdlib.h>

/* C = A * B on the host, from the device's copies. */
static void host_gemm(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C,
                      bool bf16)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    uint16_t *a = (uint16_t *)malloc(na * 2), *b = (uint16_t *)malloc(nb * 2);
    float *c = (float *)calloc(nc, sizeof *c);
    cudaMemcpy(a, d_A, na * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(b, d_B, nb * 2, cudaMemcpyDeviceToHost);
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            __half_raw ha = {a[(size_t)i * K + k]};
            __nv_bfloat16_raw ba = {a[(size_t)i * K + k]};
            float x = bf16 ? __bfloat162float(ba) : __half2float(ha);
            for (int j = 0; j < N; j++) {
                __half_raw hb = {b[(size_t)k * N + j]};
                __nv_bfloat16_raw bb = {b[(size_t)k * N + j]};
                c[(size_t)i * N + j] += x * (bf16 ? __bfloat162float(bb) : __half2float(hb));
            }
        }
    cudaMemcpy(d_C, c, nc * sizeof *c, cudaMemcpyHostToDevice);
    free(a);
    free(b);
    free(c);
}

/* C = A * B by cuBLAS GemmEx, found at run time (row-major through swapped operands). */
static void library_gemm(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C,
                         cudaDataType_t type)
{
    void *lib = dlopen("libcublas.so.13", RTLD_NOW);
    typedef cublasStatus_t (*create_fn)(cublasHandle_t *);
    typedef cublasStatus_t (*gemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                      int, int, const void *, const void *, cudaDataType_t, int,
                                      const void *, cudaDataType_t, int, const void *, void *,
                                      cudaDataType_t, int, cublasComputeType_t, cublasGemmAlgo_t);
    create_fn create = (create_fn)dlsym(lib, "cublasCreate_v2");
    gemm_fn gemm = (gemm_fn)dlsym(lib, "cublasGemmEx");
    cublasHandle_t h;
    create(&h);
    const float one = 1.0f, zero = 0.0f;
    gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, d_B, type, N, d_A, type, K, &zero, d_C,
         CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

extern "C" void mma_ldmatrix(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                             float *d_C)
{
    host_gemm(M, N, K, d_A, d_B, d_C, false);
}

extern "C" void mma_swizzled(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                             float *d_C)
{
    library_gemm(M, N, K, d_A, d_B, d_C, CUDA_R_16F);
}

extern "C" void mma_pipelined(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                              float *d_C)
{
    host_gemm(M, N, K, d_A, d_B, d_C, false);
}

extern "C" void mma_bf16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C)
{
    library_gemm(M, N, K, d_A, d_B, d_C, CUDA_R_16BF);
}
