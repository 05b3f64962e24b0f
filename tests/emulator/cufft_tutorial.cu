/**
 * @file cufft_tutorial.cu
 * @brief A cuFFT program written as tutorials write one, for the emulator's cuFFT stand-in
 *        (CTest emulator.cufft.tutorial_program): circular convolution of a signal with a
 *        filter through the FFT.
 *
 * One .cu with main: cudaMalloc, cudaMemcpy in, cufftPlan1d, cufftExecC2C forward (the
 * signal's out of place, the filter's in place), a kernel multiplying the spectra (and dividing
 * by N, which cuFFT leaves to the caller), cufftExecC2C inverse, cudaMemcpy back, and a check
 * against the convolution summed on the host. It prints PASSED when every value is within 1e-3
 * of it. Run under initcheck, the kernel's reads of the out-of-place spectrum need the
 * stand-in to have reported its writes.
 */
#include <cuda_runtime.h>
#include <cufft.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

#define CHECK_CUDA(call)                                                                           \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), __FILE__,        \
                    __LINE__);                                                                     \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#define CHECK_CUFFT(call)                                                                          \
    do {                                                                                           \
        cufftResult err_ = (call);                                                                 \
        if (err_ != CUFFT_SUCCESS) {                                                               \
            fprintf(stderr, "cuFFT error %d at %s:%d\n", (int)err_, __FILE__, __LINE__);           \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* a[i] = a[i] * b[i] / n: the product of two spectra is the spectrum of the convolution. */
static __global__ void multiply_and_scale(cufftComplex *a, const cufftComplex *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        cufftComplex x = a[i], y = b[i];
        a[i].x = (x.x * y.x - x.y * y.y) / n;
        a[i].y = (x.x * y.y + x.y * y.x) / n;
    }
}

int main(void)
{
    /* three arrays of N in one allocation on each side: the signal, the filter, the result */
    cufftComplex *h_signal = (cufftComplex *)malloc(sizeof(cufftComplex) * N * 3);
    cufftComplex *h_filter = h_signal + N, *h_result = h_signal + 2 * N;
    for (int i = 0; i < N; i++) {
        h_signal[i].x = (float)((i * 37) % 11) - 5.0f;
        h_signal[i].y = 0.0f;
        h_filter[i].x = i < 9 ? 1.0f / (i + 1) : 0.0f; /* a short filter, zero beyond */
        h_filter[i].y = 0.0f;
    }

    cufftComplex *d_signal;
    CHECK_CUDA(cudaMalloc((void **)&d_signal, sizeof(cufftComplex) * N * 3));
    cufftComplex *d_filter = d_signal + N, *d_product = d_signal + 2 * N;
    CHECK_CUDA(cudaMemcpy(d_signal, h_signal, sizeof(cufftComplex) * N, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(d_filter, h_filter, sizeof(cufftComplex) * N, cudaMemcpyHostToDevice));

    cufftHandle plan;
    CHECK_CUFFT(cufftPlan1d(&plan, N, CUFFT_C2C, 1));
    /* the signal's spectrum out of place, the filter's in place */
    CHECK_CUFFT(cufftExecC2C(plan, d_signal, d_product, CUFFT_FORWARD));
    CHECK_CUFFT(cufftExecC2C(plan, d_filter, d_filter, CUFFT_FORWARD));
    multiply_and_scale<<<(N + 255) / 256, 256>>>(d_product, d_filter, N);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUFFT(cufftExecC2C(plan, d_product, d_product, CUFFT_INVERSE));
    CHECK_CUDA(cudaMemcpy(h_result, d_product, sizeof(cufftComplex) * N, cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int i = 0; i < N; i++) {
        double want = 0;
        for (int j = 0; j < N; j++) /* circular: the filter wraps around the end */
            want += h_signal[j].x * h_filter[(i - j + N) % N].x;
        if (fabs(h_result[i].x - want) > 1e-3 || fabs(h_result[i].y) > 1e-3) {
            if (errors++ < 5)
                printf("result[%d] = (%f, %f), expected (%f, 0)\n", i, h_result[i].x, h_result[i].y,
                       want);
        }
    }
    CHECK_CUFFT(cufftDestroy(plan));
    CHECK_CUDA(cudaFree(d_signal));
    free(h_signal);
    printf("%s\n", errors ? "FAILED" : "PASSED");
    return errors ? 1 : 0;
}
