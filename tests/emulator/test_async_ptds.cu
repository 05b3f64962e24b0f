/**
 * @file test_async_ptds.cu
 * @brief Built with --default-stream per-thread: stream 0 here is the calling thread's own
 *        default stream, and cudaMemcpy is cudaMemcpy_ptds (test_async.c's per_thread case).
 */
#include "test_async.h"

static __global__ void affine_ptds_kernel(int *out, int n, int a, int b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * i + b;
}

cudaError_t async_affine_per_thread(int *d_out, int *h_out, int n, int a, int b)
{
    affine_ptds_kernel<<<(n + 127) / 128, 128>>>(d_out, n, a, b);
    cudaError_t err = cudaGetLastError();
    return err ? err : cudaMemcpy(h_out, d_out, (size_t)n * sizeof *h_out, cudaMemcpyDeviceToHost);
}

enum { PTDS_MAX = 2048 };
static __device__ int ptds_table[PTDS_MAX];

static __global__ void table_ptds_kernel(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2 * ptds_table[i] + 1;
}

/* Through an array and back with the array copies' per-thread forms, then a 3D copy to host. */
static cudaError_t via_array(const int *d, int *h_out, int n)
{
    cudaArray_t a;
    cudaChannelFormatDesc fmt = cudaCreateChannelDesc<int>();
    size_t row = (size_t)n * sizeof(int);
    int *back;
    cudaError_t err = cudaMallocArray(&a, &fmt, (size_t)n, 1);
    if (!err)
        err = cudaMalloc((void **)&back, row);
    if (!err)
        err = cudaMemcpy2DToArray(a, 0, 0, d, row, row, 1, cudaMemcpyDeviceToDevice);
    if (!err)
        err = cudaMemcpy2DFromArrayAsync(back, row, a, 0, 0, row, 1, cudaMemcpyDeviceToDevice, 0);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(back, row, row, 1);
    p.dstPtr = make_cudaPitchedPtr(h_out, row, row, 1);
    p.extent = make_cudaExtent(row, 1, 1);
    p.kind = cudaMemcpyDeviceToHost;
    if (!err)
        err = cudaMemcpy3D(&p);
    cudaFree(back);
    cudaFreeArray(a);
    return err;
}

cudaError_t async_symbols_per_thread(const int *h_in, int *h_out, int *h_table, int n,
                                     unsigned long long ids[2])
{
    int *d;
    size_t bytes = (size_t)n * sizeof(int);
    if (n > PTDS_MAX)
        return cudaErrorInvalidValue;
    cudaError_t err = cudaMalloc((void **)&d, bytes);
    if (!err)
        err = cudaMemcpyToSymbolAsync(ptds_table, h_in, bytes, 0, cudaMemcpyHostToDevice, 0);
    if (!err) {
        table_ptds_kernel<<<(n + 127) / 128, 128>>>(d, n);
        err = cudaGetLastError();
    }
    if (!err)
        err = via_array(d, h_out, n);
    if (!err)
        err = cudaMemcpyFromSymbolAsync(h_table, ptds_table, bytes, 0, cudaMemcpyDeviceToHost, 0);
    if (!err)
        err = cudaStreamSynchronize(0);
    if (!err)
        err = cudaStreamGetId(0, &ids[0]);
    if (!err)
        err = cudaStreamGetId(cudaStreamPerThread, &ids[1]);
    cudaFree(d);
    return err;
}
