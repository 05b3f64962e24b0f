/**
 * @file test_conformance_kernels.cu
 * @brief Kernels for the emulator's conformance suite (test_conformance.c): constructs public
 *        CUDA programs use that the emulator once refused or misread, one kernel each.
 *
 * They share one module on purpose: a kernel the VM cannot run (im2col copies, the grid
 * workspace) must fail only its own launch, never its neighbours'.
 */
#include "test_conformance.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

static __global__ void warp_size_kernel(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = warpSize * 1000 + i % warpSize; /* warpSize is PTX's WARP_SZ */
}

cudaError_t conf_warp_size(int *d_out, int n)
{
    warp_size_kernel<<<(n + 127) / 128, 128>>>(d_out, n);
    return cudaDeviceSynchronize();
}

static __global__ void static_and_dynamic_smem_kernel(int *out, int n)
{
    __shared__ bool flag; /* 1 static byte: the dynamic array starts 16 bytes in */
    extern __shared__ int sdata[];
    int t = threadIdx.x;
    if (t == 0)
        flag = n & 1;
    __syncthreads(); /* flag is set before anyone reads it */
    sdata[t] = 3 * t + (flag ? 1 : 0);
    __syncthreads(); /* every sdata word is written before the reversed read */
    out[t] = sdata[n - 1 - t];
}

cudaError_t conf_static_and_dynamic_smem(int *d_out, int n)
{
    static_and_dynamic_smem_kernel<<<1, n, n * sizeof(int)>>>(d_out, n);
    return cudaDeviceSynchronize();
}

static __global__ void cvt_wide_source_kernel(const long long *in, long long *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long d;
        asm("cvt.s64.s32 %0, %1;" : "=l"(d) : "l"(in[i])); /* the source register is 64-bit */
        out[i] = d;
    }
}

cudaError_t conf_cvt_wide_source(const long long *d_in, long long *d_out, int n)
{
    cvt_wide_source_kernel<<<(n + 63) / 64, 64>>>(d_in, d_out, n);
    return cudaDeviceSynchronize();
}

static __global__ void reserved_smem_kernel(int *out)
{
    unsigned begin, end, at;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(begin));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(end));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(at));
    int t = threadIdx.x, v;
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(at + 4 * t), "r"(t) : "memory");
    __syncthreads(); /* every word is written before the reversed read */
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(at + 4 * (95 - t)) : "memory");
    out[t] = v;
    if (t == 0)
        out[96] = (int)(end - begin);
}

cudaError_t conf_reserved_smem(int *d_out)
{
    reserved_smem_kernel<<<1, 96>>>(d_out);
    return cudaDeviceSynchronize();
}

static __global__ void multi_warp_tile_kernel(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    int t = threadIdx.x;
    out[t] = tile.shfl(t, 0); /* rank 0 of each 64-thread tile: 0 or 64 */
}

cudaError_t conf_multi_warp_tile(int *d_out)
{
    multi_warp_tile_kernel<<<1, 128>>>(d_out);
    return cudaDeviceSynchronize();
}

static __device__ int twice(int x)
{
    return 2 * x;
}

static __device__ int square(int x)
{
    return x * x;
}

/* Its initialiser holds function addresses, as a C++ vtable's does. */
__device__ int (*function_table[2])(int) = {twice, square};

static __global__ void function_table_module_kernel(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i * 7 + 1;
    if (i == 0)
        out[n] = function_table[0] != nullptr && function_table[1] != nullptr;
}

cudaError_t conf_function_table_module(int *d_out, int n)
{
    function_table_module_kernel<<<(n + 127) / 128, 128>>>(d_out, n);
    return cudaDeviceSynchronize();
}

static __global__ void mbarrier_kernel(uint64_t *out)
{
    __shared__ uint64_t bar;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&bar);
    uint64_t state;
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(addr), "r"(blockDim.x));
    __syncthreads(); /* the barrier is initialised before anyone arrives */
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(addr));
    out[threadIdx.x] = state;
}

cudaError_t conf_mbarrier(uint64_t *d_out)
{
    mbarrier_kernel<<<1, 32>>>(d_out);
    return cudaDeviceSynchronize();
}

/* An im2col tensor copy (sm_90), a form of cp.async.bulk.tensor the VM does not run. */
#define IM2COL_COPY                                                                                \
    "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], "    \
    "[%1, {%3, %3, %3}], [%2], {%4};"

static __global__ void im2col_copy_kernel(const int *map, int *out)
{
    __shared__ alignas(128) int buf[32];
    __shared__ uint64_t bar;
    unsigned b = (unsigned)__cvta_generic_to_shared(buf);
    unsigned m = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned short offset = 0;
    if (threadIdx.x == 0)
        asm volatile(IM2COL_COPY ::"r"(b), "l"(map), "r"(m), "r"(0), "h"(offset) : "memory");
    __syncthreads(); /* (a real program waits on the mbarrier) */
    out[threadIdx.x] = buf[threadIdx.x];
}

cudaError_t conf_im2col_copy(const int *d_map, int *d_out)
{
    im2col_copy_kernel<<<1, 32>>>(d_map, d_out);
    return cudaDeviceSynchronize();
}

static __global__ void envreg_kernel(int *out)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%envreg3;" : "=r"(r));
    out[threadIdx.x] = (int)r;
}

cudaError_t conf_envreg(int *d_out)
{
    envreg_kernel<<<1, 32>>>(d_out);
    return cudaDeviceSynchronize();
}

static __global__ void cooperative_kernel(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = i + 1;
}

cudaError_t conf_cooperative(int *d_out, int n, int blocks, int threads)
{
    void *args[] = {&d_out, &n};
    cudaError_t err =
        cudaLaunchCooperativeKernel((const void *)cooperative_kernel, blocks, threads, args, 0, 0);
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

const void *conf_cooperative_kernel(void)
{
    return (const void *)cooperative_kernel;
}

/* a[i] = 3i + 1; after grid.sync() each thread reads the element a thread of another block
 * wrote, a[n - 1 - i], and after a second one writes it back plus 1; after a third, out[i] is
 * a[(i + blockDim.x) % n], the next block's. Every barrier word flip is used. */
static __global__ void grid_sync_kernel(int *a, int *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = 3 * i + 1;
    grid.sync(); /* every a[] written */
    int v = i < n ? a[n - 1 - i] : 0;
    grid.sync(); /* every a[] read before any is overwritten */
    if (i < n)
        a[i] = v + 1;
    grid.sync();
    if (i < n)
        out[i] = a[(i + (int)blockDim.x) % n];
}

cudaError_t conf_grid_sync(int *d_a, int *d_out, int n, int blocks, int threads, int cooperative)
{
    void *args[] = {&d_a, &d_out, &n};
    const void *k = (const void *)grid_sync_kernel;
    cudaError_t err = cooperative ? cudaLaunchCooperativeKernel(k, blocks, threads, args, 0, 0)
                                  : cudaLaunchKernel(k, blocks, threads, args, 0, 0);
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}
