/**
 * @file test_wgmma_kernels.cu
 * @brief sm_90a's warpgroup MMA for the emulator's wgmma suite (test_wgmma.c):
 *   wg_run    one wgmma.mma_async per shape, type and immediates (enum wg_kernel), on a
 *             shared-memory image the host lays out, repeated with advancing descriptors
 *   wg_gemm   C = A B from plain loads into 128-byte swizzled tiles, wgmma m64n64k16 on two
 *             warpgroups, one or two buffers (wgmma.wait_group 0 or 1), and a 2-block cluster
 *             whose second block takes B through distributed shared memory
 * The refusals are in test_wgmma_refusals.cu (PTX only).
 */
#include "test_wgmma.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* ---- one wgmma, any shape ------------------------------------------------------------------ */

/* The accumulator operands of a wgmma with NREG registers: "%7, %8, ..." in the template (after
 * A's descriptor, B's, scale-d and A's four fragment registers) and d[0] .. d[NREG - 1] bound
 * with constraint c, four registers a step. */
#define WG_T4 "%7, %8, %9, %10"
#define WG_T8 WG_T4 ", %11, %12, %13, %14"
#define WG_T12 WG_T8 ", %15, %16, %17, %18"
#define WG_T16 WG_T12 ", %19, %20, %21, %22"
#define WG_T20 WG_T16 ", %23, %24, %25, %26"
#define WG_T24 WG_T20 ", %27, %28, %29, %30"
#define WG_T28 WG_T24 ", %31, %32, %33, %34"
#define WG_T32 WG_T28 ", %35, %36, %37, %38"
#define WG_T36 WG_T32 ", %39, %40, %41, %42"
#define WG_T40 WG_T36 ", %43, %44, %45, %46"
#define WG_T44 WG_T40 ", %47, %48, %49, %50"
#define WG_T48 WG_T44 ", %51, %52, %53, %54"
#define WG_T52 WG_T48 ", %55, %56, %57, %58"
#define WG_T56 WG_T52 ", %59, %60, %61, %62"
#define WG_T60 WG_T56 ", %63, %64, %65, %66"
#define WG_T64 WG_T60 ", %67, %68, %69, %70"
#define WG_T68 WG_T64 ", %71, %72, %73, %74"
#define WG_T72 WG_T68 ", %75, %76, %77, %78"
#define WG_T76 WG_T72 ", %79, %80, %81, %82"
#define WG_T80 WG_T76 ", %83, %84, %85, %86"
#define WG_T84 WG_T80 ", %87, %88, %89, %90"
#define WG_T88 WG_T84 ", %91, %92, %93, %94"
#define WG_T92 WG_T88 ", %95, %96, %97, %98"
#define WG_T96 WG_T92 ", %99, %100, %101, %102"
#define WG_T100 WG_T96 ", %103, %104, %105, %106"
#define WG_T104 WG_T100 ", %107, %108, %109, %110"
#define WG_T108 WG_T104 ", %111, %112, %113, %114"
#define WG_T112 WG_T108 ", %115, %116, %117, %118"
#define WG_T116 WG_T112 ", %119, %120, %121, %122"
#define WG_T120 WG_T116 ", %123, %124, %125, %126"
#define WG_T124 WG_T120 ", %127, %128, %129, %130"
#define WG_T128 WG_T124 ", %131, %132, %133, %134"
#define WG_B4(c, d) c(d[0]), c(d[1]), c(d[2]), c(d[3])
#define WG_B8(c, d) WG_B4(c, d), c(d[4]), c(d[5]), c(d[6]), c(d[7])
#define WG_B12(c, d) WG_B8(c, d), c(d[8]), c(d[9]), c(d[10]), c(d[11])
#define WG_B16(c, d) WG_B12(c, d), c(d[12]), c(d[13]), c(d[14]), c(d[15])
#define WG_B20(c, d) WG_B16(c, d), c(d[16]), c(d[17]), c(d[18]), c(d[19])
#define WG_B24(c, d) WG_B20(c, d), c(d[20]), c(d[21]), c(d[22]), c(d[23])
#define WG_B28(c, d) WG_B24(c, d), c(d[24]), c(d[25]), c(d[26]), c(d[27])
#define WG_B32(c, d) WG_B28(c, d), c(d[28]), c(d[29]), c(d[30]), c(d[31])
#define WG_B36(c, d) WG_B32(c, d), c(d[32]), c(d[33]), c(d[34]), c(d[35])
#define WG_B40(c, d) WG_B36(c, d), c(d[36]), c(d[37]), c(d[38]), c(d[39])
#define WG_B44(c, d) WG_B40(c, d), c(d[40]), c(d[41]), c(d[42]), c(d[43])
#define WG_B48(c, d) WG_B44(c, d), c(d[44]), c(d[45]), c(d[46]), c(d[47])
#define WG_B52(c, d) WG_B48(c, d), c(d[48]), c(d[49]), c(d[50]), c(d[51])
#define WG_B56(c, d) WG_B52(c, d), c(d[52]), c(d[53]), c(d[54]), c(d[55])
#define WG_B60(c, d) WG_B56(c, d), c(d[56]), c(d[57]), c(d[58]), c(d[59])
#define WG_B64(c, d) WG_B60(c, d), c(d[60]), c(d[61]), c(d[62]), c(d[63])
#define WG_B68(c, d) WG_B64(c, d), c(d[64]), c(d[65]), c(d[66]), c(d[67])
#define WG_B72(c, d) WG_B68(c, d), c(d[68]), c(d[69]), c(d[70]), c(d[71])
#define WG_B76(c, d) WG_B72(c, d), c(d[72]), c(d[73]), c(d[74]), c(d[75])
#define WG_B80(c, d) WG_B76(c, d), c(d[76]), c(d[77]), c(d[78]), c(d[79])
#define WG_B84(c, d) WG_B80(c, d), c(d[80]), c(d[81]), c(d[82]), c(d[83])
#define WG_B88(c, d) WG_B84(c, d), c(d[84]), c(d[85]), c(d[86]), c(d[87])
#define WG_B92(c, d) WG_B88(c, d), c(d[88]), c(d[89]), c(d[90]), c(d[91])
#define WG_B96(c, d) WG_B92(c, d), c(d[92]), c(d[93]), c(d[94]), c(d[95])
#define WG_B100(c, d) WG_B96(c, d), c(d[96]), c(d[97]), c(d[98]), c(d[99])
#define WG_B104(c, d) WG_B100(c, d), c(d[100]), c(d[101]), c(d[102]), c(d[103])
#define WG_B108(c, d) WG_B104(c, d), c(d[104]), c(d[105]), c(d[106]), c(d[107])
#define WG_B112(c, d) WG_B108(c, d), c(d[108]), c(d[109]), c(d[110]), c(d[111])
#define WG_B116(c, d) WG_B112(c, d), c(d[112]), c(d[113]), c(d[114]), c(d[115])
#define WG_B120(c, d) WG_B116(c, d), c(d[116]), c(d[117]), c(d[118]), c(d[119])
#define WG_B124(c, d) WG_B120(c, d), c(d[120]), c(d[121]), c(d[122]), c(d[123])
#define WG_B128(c, d) WG_B124(c, d), c(d[124]), c(d[125]), c(d[126]), c(d[127])

/* One wgmma.mma_async of SHAPE and TYPES: %0 A's descriptor, %1 B's, %2 scale-d (non-zero: 1),
 * %3 .. %6 A's fragment, then the accumulators d; OPS is the text after them (A, B, scale-d,
 * the immediates). */
#define WG_ASM(NREG, C, SHAPE, TYPES, OPS)                                                         \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\nwgmma.mma_async.sync.aligned." SHAPE    \
                 "." TYPES " {" WG_T##NREG "}, " OPS ";\n}"                                        \
                 : "+l"(da), "+l"(db), "+r"(scale), "+r"(a[0]), "+r"(a[1]), "+r"(a[2]),            \
                   "+r"(a[3]), WG_B##NREG(C, d)                                                    \
                 :                                                                                 \
                 : "memory")

static __device__ __forceinline__ void wg_fence_commit_wait0(int commit_and_wait)
{
    if (!commit_and_wait) {
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        return;
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

/* The image into shared memory (fenced for the async proxy; with @p BARRIER, then a barrier), the
 * fragments into registers, and the descriptors' start fields made addresses of this block's
 * shared memory. */
template <int NREG, bool BARRIER>
static __device__ __forceinline__ void
wg_prologue(uint4 *smem, const uint4 *image, int words, const uint32_t *ga, const uint32_t *gd,
            uint32_t (&a)[4], uint32_t (&d)[NREG], uint64_t *da, uint64_t *db)
{
    for (int i = threadIdx.x; i < words; i += blockDim.x)
        smem[i] = image[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (BARRIER)
        __syncthreads();
    uint64_t base = (uint64_t)__cvta_generic_to_shared(smem) >> 4; /* the descriptors' unit */
    *da += base, *db += base;
#pragma unroll
    for (int i = 0; i < 4; i++)
        a[i] = ga[threadIdx.x * 4 + i];
#pragma unroll
    for (int i = 0; i < NREG; i++)
        d[i] = gd[threadIdx.x * NREG + i];
}

/* A kernel per wgmma: the prologue, the wgmma @p steps times with descriptors advancing by
 * ada and adb, one commit group, the wait, the accumulators back to global memory. */
#define WG_KERNEL(NAME, NREG, SHAPE, TYPES, OPS) WG_KERNEL_AT(NAME, NREG, SHAPE, TYPES, OPS, true)
#define WG_KERNEL_AT(NAME, NREG, SHAPE, TYPES, OPS, BARRIER)                                       \
    static __global__ void NAME##_kernel(const uint4 *image, int words, const uint32_t *ga,        \
                                         uint32_t *gd, uint64_t da, uint64_t db, uint64_t ada,     \
                                         uint64_t adb, int steps, int scale)                       \
    {                                                                                              \
        extern __shared__ __align__(1024) uint4 wg_smem[];                                         \
        uint32_t a[4], d[NREG];                                                                    \
        wg_prologue<NREG, BARRIER>(wg_smem, image, words, ga, gd, a, d, &da, &db);                 \
        wg_fence_commit_wait0(0);                                                                  \
        for (int s = 0; s < steps; s++, da += ada, db += adb)                                      \
            WG_ASM(NREG, "+r", SHAPE, TYPES, OPS);                                                 \
        wg_fence_commit_wait0(1);                                                                  \
        _Pragma("unroll") for (int i = 0; i < NREG; i++) gd[threadIdx.x * NREG + i] = d[i];        \
    }

#define WG_A_REGS "{%3, %4, %5, %6}, %1, p, 1, 1, 0"
WG_KERNEL(wg_regs_n8, 4, "m64n8k16", "f32.bf16.bf16", WG_A_REGS)
WG_KERNEL(wg_regs_n24, 12, "m64n24k16", "f32.bf16.bf16", WG_A_REGS)
WG_KERNEL(wg_regs_n136, 68, "m64n136k16", "f32.bf16.bf16", WG_A_REGS)
WG_KERNEL(wg_regs_n256, 128, "m64n256k16", "f32.bf16.bf16", WG_A_REGS)
WG_KERNEL(wg_regs_f16, 32, "m64n64k16", "f32.f16.f16", WG_A_REGS)
WG_KERNEL(wg_desc_kk, 32, "m64n64k16", "f32.bf16.bf16", "%0, %1, p, 1, 1, 0, 0")
WG_KERNEL(wg_desc_mk, 32, "m64n64k16", "f32.bf16.bf16", "%0, %1, p, 1, 1, 1, 0")
WG_KERNEL(wg_desc_km, 32, "m64n64k16", "f32.bf16.bf16", "%0, %1, p, 1, 1, 0, 1")
WG_KERNEL(wg_desc_mm, 32, "m64n64k16", "f32.bf16.bf16", "%0, %1, p, 1, 1, 1, 1")
WG_KERNEL(wg_desc_n256, 128, "m64n256k16", "f32.f16.f16", "%0, %1, p, 1, 1, 0, 0")
WG_KERNEL(wg_desc_n8, 4, "m64n8k16", "f32.f16.f16", "%0, %1, p, 1, 1, 1, 1")
WG_KERNEL(wg_f16_acc, 16, "m64n64k16", "f16.f16.f16", "%0, %1, p, 1, 1, 0, 0")
WG_KERNEL(wg_negated, 16, "m64n32k16", "f32.bf16.bf16", "%0, %1, p, -1, -1, 0, 0")
WG_KERNEL(wg_tf32, 16, "m64n32k8", "f32.tf32.tf32", "%0, %1, p, 1, 1")
/* K = 32 bytes of a row: fp8 (scales, no transposes), 8-bit integers and b1 (scale-d alone) */
#define WG_A8_REGS "{%3, %4, %5, %6}, %1, p, 1, 1"
#define WG_INT_REGS "{%3, %4, %5, %6}, %1, p"
WG_KERNEL(wg_e4m3_regs_n8, 4, "m64n8k32", "f32.e4m3.e4m3", WG_A8_REGS)
WG_KERNEL(wg_e4m3_desc_n256, 128, "m64n256k32", "f32.e4m3.e4m3", "%0, %1, p, 1, 1")
WG_KERNEL(wg_e5m2_e4m3_desc, 32, "m64n64k32", "f32.e5m2.e4m3", "%0, %1, p, -1, 1")
WG_KERNEL(wg_e4m3_e5m2_regs, 32, "m64n64k32", "f32.e4m3.e5m2", WG_A8_REGS)
WG_KERNEL(wg_fp8_f16_desc_n16, 4, "m64n16k32", "f16.e5m2.e4m3", "%0, %1, p, 1, -1")
WG_KERNEL(wg_fp8_f16_regs, 64, "m64n256k32", "f16.e4m3.e4m3", WG_A8_REGS)
WG_KERNEL(wg_s8_u8_desc, 32, "m64n64k32", "s32.s8.u8", "%0, %1, p")
WG_KERNEL(wg_s8_u8_sat_desc, 32, "m64n64k32.satfinite", "s32.s8.u8", "%0, %1, p")
WG_KERNEL(wg_u8_s8_sat_regs, 112, "m64n224k32", "s32.u8.s8.satfinite", WG_INT_REGS)
WG_KERNEL(wg_s8_s8_regs_n8, 4, "m64n8k32", "s32.s8.s8", WG_INT_REGS)
WG_KERNEL(wg_b1_desc, 24, "m64n48k256", "s32.b1.b1.and.popc", "%0, %1, p")
WG_KERNEL(wg_b1_regs_n256, 128, "m64n256k256", "s32.b1.b1.and.popc", WG_INT_REGS)
/* wg_desc_kk with no barrier: the warpgroup multiplies what its own threads stored and fenced */
WG_KERNEL_AT(wg_desc_kk_own, 32, "m64n64k16", "f32.bf16.bf16", "%0, %1, p, 1, 1, 0, 0", false)

typedef void (*wg_fn)(const uint4 *, int, const uint32_t *, uint32_t *, uint64_t, uint64_t,
                      uint64_t, uint64_t, int, int);

/* Every kernel of enum wg_kernel, in order, with its shape. */
static const struct {
    wg_fn fn;
    struct wg_shape shape; /* n, k, in, in_b, d, a_regs, neg_a, neg_b, trans_a, trans_b */
} wg_table[WG_KERNELS] = {
    {wg_regs_n8_kernel, {8, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 1, 0, 0, 0, 0}},
    {wg_regs_n24_kernel, {24, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 1, 0, 0, 0, 0}},
    {wg_regs_n136_kernel, {136, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 1, 0, 0, 0, 0}},
    {wg_regs_n256_kernel, {256, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 1, 0, 0, 0, 0}},
    {wg_regs_f16_kernel, {64, 16, WG_IN_F16, WG_IN_F16, WG_D_F32, 1, 0, 0, 0, 0}},
    {wg_desc_kk_kernel, {64, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 0, 0, 0, 0, 0}},
    {wg_desc_mk_kernel, {64, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 0, 0, 0, 1, 0}},
    {wg_desc_km_kernel, {64, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 0, 0, 0, 0, 1}},
    {wg_desc_mm_kernel, {64, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 0, 0, 0, 1, 1}},
    {wg_desc_n256_kernel, {256, 16, WG_IN_F16, WG_IN_F16, WG_D_F32, 0, 0, 0, 0, 0}},
    {wg_desc_n8_kernel, {8, 16, WG_IN_F16, WG_IN_F16, WG_D_F32, 0, 0, 0, 1, 1}},
    {wg_f16_acc_kernel, {64, 16, WG_IN_F16, WG_IN_F16, WG_D_F16, 0, 0, 0, 0, 0}},
    {wg_negated_kernel, {32, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 0, 1, 1, 0, 0}},
    {wg_tf32_kernel, {32, 8, WG_IN_TF32, WG_IN_TF32, WG_D_F32, 0, 0, 0, 0, 0}},
    {wg_e4m3_regs_n8_kernel, {8, 32, WG_IN_E4M3, WG_IN_E4M3, WG_D_F32, 1, 0, 0, 0, 0}},
    {wg_e4m3_desc_n256_kernel, {256, 32, WG_IN_E4M3, WG_IN_E4M3, WG_D_F32, 0, 0, 0, 0, 0}},
    {wg_e5m2_e4m3_desc_kernel, {64, 32, WG_IN_E5M2, WG_IN_E4M3, WG_D_F32, 0, 1, 0, 0, 0}},
    {wg_e4m3_e5m2_regs_kernel, {64, 32, WG_IN_E4M3, WG_IN_E5M2, WG_D_F32, 1, 0, 0, 0, 0}},
    {wg_fp8_f16_desc_n16_kernel, {16, 32, WG_IN_E5M2, WG_IN_E4M3, WG_D_F16, 0, 0, 1, 0, 0}},
    {wg_fp8_f16_regs_kernel, {256, 32, WG_IN_E4M3, WG_IN_E4M3, WG_D_F16, 1, 0, 0, 0, 0}},
    {wg_s8_u8_desc_kernel, {64, 32, WG_IN_S8, WG_IN_U8, WG_D_S32, 0, 0, 0, 0, 0}},
    {wg_s8_u8_sat_desc_kernel, {64, 32, WG_IN_S8, WG_IN_U8, WG_D_S32_SAT, 0, 0, 0, 0, 0}},
    {wg_u8_s8_sat_regs_kernel, {224, 32, WG_IN_U8, WG_IN_S8, WG_D_S32_SAT, 1, 0, 0, 0, 0}},
    {wg_s8_s8_regs_n8_kernel, {8, 32, WG_IN_S8, WG_IN_S8, WG_D_S32, 1, 0, 0, 0, 0}},
    {wg_b1_desc_kernel, {48, 256, WG_IN_B1, WG_IN_B1, WG_D_S32, 0, 0, 0, 0, 0}},
    {wg_b1_regs_n256_kernel, {256, 256, WG_IN_B1, WG_IN_B1, WG_D_S32, 1, 0, 0, 0, 0}},
    {wg_desc_kk_own_kernel, {64, 16, WG_IN_BF16, WG_IN_BF16, WG_D_F32, 0, 0, 0, 0, 0}},
};

extern "C" struct wg_shape wg_shape(int kernel)
{
    return wg_table[kernel].shape;
}

extern "C" cudaError_t wg_run(int kernel, const void *d_image, int bytes, const uint32_t *d_a,
                              uint32_t *d_d, const uint64_t desc[2], const uint64_t adv[2],
                              int steps, int scale_d)
{
    wg_table[kernel].fn<<<1, 128, WG_SMEM>>>((const uint4 *)d_image, bytes / 16, d_a, d_d, desc[0],
                                             desc[1], adv[0], adv[1], steps, scale_d);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

/* ---- a small GEMM: plain loads, wgmma, a 2-block cluster ---------------------------------------
 */

enum {
    GM_BM = 128,
    GM_BN = 64,
    GM_BK = 64,
    GM_A_BYTES = GM_BM * GM_BK * 2,
    GM_B_BYTES = GM_BK * GM_BN * 2
};

/* The byte of a 128-byte swizzled tile (rows of 64 bf16, 8 rows to a 1024-byte atom) holding
 * element (r, c): its 16-byte chunk c / 8 XORed with r % 8, as a 128-byte swizzled TMA copy
 * leaves it. A's tile is K-major (r = m, c = k), B's N-major (r = k, c = n). */
static __device__ __forceinline__ int swizzled(int r, int c)
{
    return r * 128 + ((c / 8 ^ r % 8) * 16) + c % 8 * 2;
}

/* A descriptor with 128-byte swizzle: start @p smem, stride byte offset 1024 (8-row atoms), the
 * leading byte offset unused (an N-major tile of 64 columns is one row of atoms). */
static __device__ __forceinline__ uint64_t gm_desc(const void *smem)
{
    uint64_t a = (uint64_t)__cvta_generic_to_shared(smem);
    return (a & 0x3FFFF) >> 4 | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 | 1ull << 62;
}

/* Rows x cols of a row-major matrix (leading dimension ld) at (r0, c0) into a swizzled tile,
 * zero outside the matrix; the block's 256 threads each a part. */
static __device__ void gm_load(uint8_t *tile, const uint16_t *g, int ld, int rows, int cols, int r0,
                               int c0, int tile_rows)
{
    for (int e = threadIdx.x; e < tile_rows * 64; e += blockDim.x) {
        int r = e / 64, c = e % 64;
        uint16_t v = r0 + r < rows && c0 + c < cols ? g[(size_t)(r0 + r) * ld + c0 + c] : 0;
        *(uint16_t *)(tile + swizzled(r, c)) = v; /* wg_load_store_marker */
    }
}

/* Blocks of two warpgroups, warpgroup g computing rows 64 g .. 64 g + 63 of the block's 128 x 64
 * tile of C (see test_wgmma.h). */
template <int STAGES, int CLUSTER>
static __global__ void __launch_bounds__(256)
    wg_gemm_kernel(const uint16_t *A, const uint16_t *B, float *C, int M, int N, int K, int bug)
{
    extern __shared__ __align__(1024) uint8_t gm_smem[];
    uint8_t *sA = gm_smem, *sB = gm_smem + STAGES * GM_A_BYTES;
    int wg = threadIdx.x / 128, row0 = blockIdx.y * GM_BM, col0 = blockIdx.x * GM_BN;
    unsigned rank = CLUSTER > 1 ? cg::this_cluster().block_rank() : 0;
    float d[32] = {0};
    uint32_t a[4] = {0, 0, 0, 0}, scale = 1;
    for (int t = 0; t < (K + GM_BK - 1) / GM_BK; t++) {
        uint8_t *tA = sA + t % STAGES * GM_A_BYTES, *tB = sB + t % STAGES * GM_B_BYTES;
        gm_load(tA, A, K, M, K, row0, t * GM_BK, GM_BM);
        if (rank == 0) /* in a cluster, rank 1 takes rank 0's B tile */
            gm_load(tB, B, N, K, N, t * GM_BK, col0, GM_BK);
        if (CLUSTER > 1) {
            cg::this_cluster().sync(); /* rank 0's tile is complete */
            const uint4 *from = cg::this_cluster().map_shared_rank((const uint4 *)tB, 0);
            for (int i = threadIdx.x; rank == 1 && i < GM_B_BYTES / 16; i += blockDim.x)
                ((uint4 *)tB)[i] = from[i];
        }
        if (bug != WG_NO_FENCE) /* the tiles' generic stores, before the async proxy reads them */
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        if (bug != WG_NO_BARRIER) /* each warpgroup reads tiles the other's threads stored */
            __syncthreads();
        wg_fence_commit_wait0(0);
        for (int kk = 0; kk < GM_BK / 16; kk++) {
            /* A: 32 bytes further along each row; B: 16 rows of k (two atoms) further on */
            uint64_t da = gm_desc(tA + wg * 64 * 128 + 32 * kk), db = gm_desc(tB + 2048 * kk);
            WG_ASM(32, "+f", "m64n64k16", "f32.bf16.bf16", "%0, %1, p, 1, 1, 0, 1");
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        if (bug == WG_LATE_WAIT)
            asm volatile("wgmma.wait_group.sync.aligned 2;" ::: "memory");
        else if (STAGES == 2) /* the group before this one is done: its buffer may be refilled */
            asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        else
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        __syncthreads(); /* every warpgroup's wait, before a buffer is refilled */
        if (CLUSTER > 1)
            cg::this_cluster().sync(); /* rank 1 copied rank 0's tile before rank 0 refills it */
    }
    int w = threadIdx.x / 32 % 4, l = threadIdx.x % 32;
    /* WG_EARLY_READ stores the accumulators with the last wgmmas still in flight, and only then
     * (pass 0): ptxas waits for them there, and so must the VM. */
    int early = bug == WG_EARLY_READ;
    for (int pass = early ? 0 : 1; pass < 2 - early; pass++) {
        if (pass == 1)
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
        for (int i = 0; i < 32; i++) { /* the accumulator's fragment: PTX ISA, Figure "WGMMA D" */
            int r = row0 + 64 * wg + 16 * w + l / 4 + 8 * (i >> 1 & 1);
            int c = col0 + 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
            if (r < M && c < N)
                C[(size_t)r * N + c] = d[i]; /* wg_early_read_marker */
        }
    }
}

/* ---- a producer warp and a consumer warpgroup ---------------------------------------------- */

static __device__ uint32_t pc_u32(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* 1 once the phase of parity @p parity of @p bar has completed (callers spin on it). */
static __device__ int pc_done(uint64_t *bar, int parity)
{
    uint32_t done;
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(pc_u32(bar)), "r"(parity)
                 : "memory");
    return (int)done;
}

/* Two stages of 8 KiB: the producer refills a stage once the consumers' four warps released it
 * (empty), the consumers multiply a stage once its copy landed (full). */
static __global__ void __launch_bounds__(160)
    wg_producer_consumer_kernel(const uint8_t *src, int slices)
{
    __shared__ __align__(1024) uint8_t stage[2][8192];
    __shared__ uint64_t full[2], empty[2];
    if (threadIdx.x == 0) {
        for (int s = 0; s < 2; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n"
                         "mbarrier.init.shared::cta.b64 [%1], 4;" ::"r"(pc_u32(&full[s])),
                         "r"(pc_u32(&empty[s])));
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads(); /* the mbarriers exist before anyone uses them */
    if (threadIdx.x / 32 == 4) {
        for (int t = 0; threadIdx.x == 128 && t < slices; t++) {
            /* from the third slice on: the stage's slice t - 2 has been multiplied */
            while (t >= 2 && !pc_done(&empty[t % 2], (t / 2 - 1) % 2)) {
            }
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 8192;\n"
                         "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%1], "
                         "[%2], 8192, [%0];" ::"r"(pc_u32(&full[t % 2])),
                         "r"(pc_u32(stage[t % 2])), "l"(src + (size_t)t * 8192)
                         : "memory");
        }
        return;
    }
    float d[32] = {0};
    uint32_t a[4] = {0, 0, 0, 0}, scale = 1;
    for (int t = 0; t < slices; t++) {
        while (!pc_done(&full[t % 2], t / 2 % 2)) { /* slice t has landed */
        }
        wg_fence_commit_wait0(0);
        for (int kk = 0; kk < 4; kk++) {
            uint64_t da = gm_desc(stage[t % 2] + 32 * kk), db = gm_desc(stage[t % 2] + 2048 * kk);
            WG_ASM(32, "+f", "m64n64k16", "f32.bf16.bf16", "%0, %1, p, 1, 1, 0, 1");
        }
        asm volatile("wgmma.commit_group.sync.aligned;\n"
                     "wgmma.wait_group.sync.aligned 0;" ::
                         : "memory");
        if (threadIdx.x % 32 == 0) /* this warp is done reading the stage */
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(pc_u32(&empty[t % 2]))
                         : "memory");
    }
}

extern "C" cudaError_t wg_producer_consumer(const uint8_t *src, int slices)
{
    wg_producer_consumer_kernel<<<1, 160>>>(src, slices);
    cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

template <int STAGES, int CLUSTER>
static cudaError_t gemm_launch(const uint16_t *A, const uint16_t *B, float *C, int M, int N, int K,
                               int bug)
{
    cudaLaunchAttribute pair = {};
    pair.id = cudaLaunchAttributeClusterDimension;
    pair.val.clusterDim.x = 1, pair.val.clusterDim.y = CLUSTER, pair.val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    int tiles_m = (M + GM_BM - 1) / GM_BM;
    cfg.gridDim = dim3((N + GM_BN - 1) / GM_BN, (tiles_m + CLUSTER - 1) / CLUSTER * CLUSTER);
    cfg.blockDim = dim3(256);
    cfg.dynamicSmemBytes = STAGES * (GM_A_BYTES + GM_B_BYTES);
    cfg.attrs = &pair, cfg.numAttrs = 1;
    cudaError_t err =
        cudaLaunchKernelEx(&cfg, wg_gemm_kernel<STAGES, CLUSTER>, A, B, C, M, N, K, bug);
    return err != cudaSuccess ? err : cudaDeviceSynchronize();
}

extern "C" cudaError_t wg_gemm(const uint16_t *d_a, const uint16_t *d_b, float *d_c, int M, int N,
                               int K, int stages, int cluster, int bug)
{
    if (stages == 1)
        return cluster == 1 ? gemm_launch<1, 1>(d_a, d_b, d_c, M, N, K, bug)
                            : gemm_launch<1, 2>(d_a, d_b, d_c, M, N, K, bug);
    return cluster == 1 ? gemm_launch<2, 1>(d_a, d_b, d_c, M, N, K, bug)
                        : gemm_launch<2, 2>(d_a, d_b, d_c, M, N, K, bug);
}
