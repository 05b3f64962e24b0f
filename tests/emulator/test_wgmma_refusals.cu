/**
 * @file test_wgmma_refusals.cu
 * @brief Warpgroup instructions the emulator refuses in one line (test_wgmma.c), one kernel each
 *        (enum wg_refusal): PTX that ptxas takes but whose run the PTX ISA leaves undefined, or
 *        that the emulator does not execute.
 */
#include "test_wgmma.h"

/* An m64n8k16 wgmma with both operands at the start of shared memory, its accumulators in d,
 * imm-scale-b @p sb (1, or -1: another instruction). */
#define WG_N8(d, da, db, sb)                                                                       \
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, "  \
                 "1, 1, " #sb ", 0, 0;"                                                            \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                  \
                 : "l"(da), "l"(db)                                                                \
                 : "memory")

/* The descriptor of @p smem + @p offset, K-major, no swizzle. */
static __device__ uint64_t ref_desc(const void *smem, unsigned offset)
{
    return ((uint64_t)__cvta_generic_to_shared(smem) + offset) >> 4 | 8ull << 16 | 8ull << 32;
}

#define SPARSE_D                                                                                   \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, "   \
    "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define SPARSE_ACC                                                                                 \
    "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3]), "+r"(acc[4]), "+r"(acc[5]),            \
        "+r"(acc[6]), "+r"(acc[7]), "+r"(acc[8]), "+r"(acc[9]), "+r"(acc[10]), "+r"(acc[11]),      \
        "+r"(acc[12]), "+r"(acc[13]), "+r"(acc[14]), "+r"(acc[15]), "+r"(acc[16]), "+r"(acc[17]),  \
        "+r"(acc[18]), "+r"(acc[19]), "+r"(acc[20]), "+r"(acc[21]), "+r"(acc[22]), "+r"(acc[23]),  \
        "+r"(acc[24]), "+r"(acc[25]), "+r"(acc[26]), "+r"(acc[27]), "+r"(acc[28]), "+r"(acc[29]),  \
        "+r"(acc[30]), "+r"(acc[31])

static __global__ void wg_refusal_kernel(int which, float *out)
{
    __shared__ __align__(128) uint4 smem[256]; /* 4 KiB */
    float d[4] = {0, 0, 0, 0};
    uint32_t acc[32] = {0};
    int warp = threadIdx.x / 32;
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        smem[i] = make_uint4(0, 0, 0, 0);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    uint64_t da = ref_desc(smem, 0), db = ref_desc(smem, 2048);
    if (which == WG_PAST_SMEM)
        db = ref_desc(smem, 40000);
    if (which == WG_MAXNREG_MIXED && warp == 0)
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    else if (which == WG_MAXNREG_MIXED)
        asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
    if (which == WG_MAXNREG_LOWER) {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 64;");
        asm volatile("setmaxnreg.inc.sync.aligned.u32 40;");
    }
    if (which == WG_WARP_EXITS && warp == 3)
        return;
    if (which == WG_SPARSE) /* s8 A of 64 x 64 stored as 64 x 32, its metadata 0; its text is
                               longer than a failure's line holds, so the line cuts it */
        asm volatile("wgmma.mma_async.sp.sync.aligned.m64n64k64.s32.s8.s8 {" SPARSE_D "}, %32, "
                     "%33, %34, 0, 1;"
                     : SPARSE_ACC
                     : "l"(da), "l"(db), "r"(0u));
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    if (which == WG_PART_OF_WARP && threadIdx.x % 32 < 16)
        WG_N8(d, da, db, 1);
    else if (which == WG_OTHER_MMA && warp == 0)
        WG_N8(d, da, db, -1);
    else if (which != WG_PART_OF_WARP)
        WG_N8(d, da, db, 1);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    out[threadIdx.x] =
        d[0] + d[1] + d[2] + d[3] + (float)(acc[0] + acc[1] + acc[2] + acc[3] + acc[4]);
}

extern "C" cudaError_t wg_refusal(int which)
{
    float *out;
    cudaError_t err = cudaMalloc(&out, 128 * sizeof *out);
    if (err != cudaSuccess)
        return err;
    wg_refusal_kernel<<<1, which == WG_THREE_WARPS ? 96 : 128>>>(which, out);
    err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    cudaFree(out);
    return err;
}
