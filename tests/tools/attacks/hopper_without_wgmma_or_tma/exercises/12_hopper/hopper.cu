/* Attack: right answers without Hopper's machinery. Kernels named as the lesson's, each fp32
 * FMAs with A and B loaded by its threads, behind the three launchers, which refuse the shapes
 * the lesson refuses. */
#include "hopper.h"

#include <cuda_bf16.h>

static __device__ void fma_gemm(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C)
{
    int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
    if (r >= M || c >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) {
        __nv_bfloat16_raw a = {A[(size_t)r * K + k]}, b = {B[(size_t)k * N + c]};
        acc += __bfloat162float(a) * __bfloat162float(b);
    }
    C[(size_t)r * N + c] = acc;
}

#define FMA_KERNEL(NAME)                                                                           \
    static __global__ void NAME##_kernel(int M, int N, int K, const uint16_t *A,                   \
                                         const uint16_t *B, float *C)                              \
    {                                                                                              \
        fma_gemm(M, N, K, A, B, C);                                                                \
    }                                                                                              \
    extern "C" int NAME(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C)       \
    {                                                                                              \
        if (M < 1 || N < 8 || K < 8 || N % 8 || K % 8 || (uintptr_t)A % 16 || (uintptr_t)B % 16)   \
            return -1;                                                                             \
        NAME##_kernel<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(M, N, K, A, B, C);     \
        return 0;                                                                                  \
    }

FMA_KERNEL(wgmma_tma)
FMA_KERNEL(wgmma_pipelined)
FMA_KERNEL(wgmma_warp_specialized)
