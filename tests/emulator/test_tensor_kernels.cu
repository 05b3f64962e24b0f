/**
 * @file test_tensor_kernels.cu
 * @brief The kernels of test_tensor.c: each instruction under test written in inline PTX, in
 *        the form the test names (test_tensor.h documents each launcher).
 *
 * Lines the checks must name carry a marker comment (TENSOR_...).
 */
#include "test_tensor.h"

#include <stdint.h>

/* The shared-window address of @p p, as ldmatrix, stmatrix and cp.async take it. */
static __device__ unsigned smem(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* ---- mma.sync ----------------------------------------------------------------------------- */

#define D4 "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
#define D2 "=r"(d[0]), "=r"(d[1])
#define A4 "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3])
#define A2 "r"(a[0]), "r"(a[1])
#define B2 "r"(b[0]), "r"(b[1])
#define B1 "r"(b[0])
#define C4 "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])
#define C2 "r"(c[0]), "r"(c[1])

/* Registers d (4 or 2), a (4 or 2), b (2 or 1), c (4 or 2), in that order, as the asm names
 * them. */
#define MMA_4422(shape_types)                                                                      \
    asm volatile("mma.sync.aligned." shape_types " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, " \
                 "{%10, %11, %12, %13};"                                                           \
                 : D4                                                                              \
                 : A4, B2, C4)
/* The same for forms of d 4, a 2, b 1, c 4 registers, and of d 2, a 1, b 1, c 2. */
#define MMA_4214(shape_types)                                                                      \
    asm volatile("mma.sync.aligned." shape_types " {%0, %1, %2, %3}, {%4, %5}, {%6}, "             \
                 "{%7, %8, %9, %10};"                                                              \
                 : D4                                                                              \
                 : A2, B1, C4)
#define MMA_2112(shape_types)                                                                      \
    asm volatile("mma.sync.aligned." shape_types " {%0, %1}, {%2}, {%3}, {%4, %5};"                \
                 : D2                                                                              \
                 : "r"(a[0]), B1, C2)

static __global__ void mma_kernel(int form, const uint32_t *A, const uint32_t *B, const uint32_t *C,
                                  uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a[4], b[2], c[4], d[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        a[i] = A[4 * l + i];
        c[i] = C[4 * l + i];
    }
    b[0] = B[2 * l];
    b[1] = B[2 * l + 1];
    switch (form) {
    case MMA_K16_F32_F16_F32:
        MMA_4422("m16n8k16.row.col.f32.f16.f16.f32");
        break;
    case MMA_K16_F16_F16_F16:
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, "
                     "%5}, {%6, %7}, {%8, %9};"
                     : D2
                     : A4, B2, C2);
        break;
    case MMA_K16_F32_BF16_F32:
        MMA_4422("m16n8k16.row.col.f32.bf16.bf16.f32");
        break;
    case MMA_K8_F32_F16_F32:
        MMA_4214("m16n8k8.row.col.f32.f16.f16.f32");
        break;
    case MMA_K8_F16_F16_F16:
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, "
                     "{%5, %6};"
                     : D2
                     : A2, B1, C2);
        break;
    case MMA_K8_F32_BF16_F32:
        MMA_4214("m16n8k8.row.col.f32.bf16.bf16.f32");
        break;
    case MMA_K32_F32_E4M3_F32:
        MMA_4422("m16n8k32.row.col.f32.e4m3.e4m3.f32");
        break;
    case MMA_K32_F32_E4M3_E5M2:
        MMA_4422("m16n8k32.row.col.f32.e4m3.e5m2.f32");
        break;
    case MMA_K32_F16_E5M2_F16:
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e5m2.f16 {%0, %1}, {%2, %3, %4, "
                     "%5}, {%6, %7}, {%8, %9};"
                     : D2
                     : A4, B2, C2);
        break;
    case MMA_K16_F32_E5M2_F32:
        MMA_4214("m16n8k16.row.col.f32.e5m2.e5m2.f32");
        break;
    case MMA_K32_S32_S8_S32:
        MMA_4422("m16n8k32.row.col.s32.s8.s8.s32");
        break;
    case MMA_K16_S32_U8_S8:
        MMA_4214("m16n8k16.row.col.s32.u8.s8.s32");
        break;
    case MMA_K32_S32_S8_SATF:
        MMA_4422("m16n8k32.row.col.satfinite.s32.s8.s8.s32");
        break;
    case MMA_I4_M8N8K32_S4:
        MMA_2112("m8n8k32.row.col.s32.s4.s4.s32");
        break;
    case MMA_I4_M16N8K32_U4_S4:
        MMA_4214("m16n8k32.row.col.s32.u4.s4.s32");
        break;
    case MMA_I4_M16N8K64_S4_U4:
        MMA_4422("m16n8k64.row.col.satfinite.s32.s4.u4.s32");
        break;
    case MMA_B1_M8N8K128_XOR:
        MMA_2112("m8n8k128.row.col.s32.b1.b1.s32.xor.popc");
        break;
    case MMA_B1_M16N8K128_AND:
        MMA_4214("m16n8k128.row.col.s32.b1.b1.s32.and.popc");
        break;
    case MMA_B1_M16N8K256_XOR:
        MMA_4422("m16n8k256.row.col.s32.b1.b1.s32.xor.popc");
        break;
    }
    for (int i = 0; i < 4; i++)
        D[4 * l + i] = d[i];
}

extern "C" cudaError_t tensor_mma(int form, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                                  uint32_t *d)
{
    mma_kernel<<<1, 32>>>(form, a, b, c, d);
    return cudaDeviceSynchronize();
}

/* mma.sp (@p sp: "sp" or "sp::ordered_metadata") with d, a, b and c of 4, 4, 4 and 4 registers,
 * of 4, 2, 2 and 4, or of 2, 4, 4 and 2, then the metadata e and the selector @p sel. */
#define B4 "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3])
#define MMA_SP_4444(sp, shape_types, sel)                                                          \
    asm volatile("mma." sp ".sync.aligned." shape_types " {%0, %1, %2, %3}, {%4, %5, %6, %7}, "    \
                 "{%8, %9, %10, %11}, {%12, %13, %14, %15}, %16, " sel ";"                         \
                 : D4                                                                              \
                 : A4, B4, C4, "r"(e))
#define MMA_SP_4224(sp, shape_types, sel)                                                          \
    asm volatile("mma." sp ".sync.aligned." shape_types " {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, "  \
                 "{%8, %9, %10, %11}, %12, " sel ";"                                               \
                 : D4                                                                              \
                 : A2, B2, C4, "r"(e))
#define MMA_SP_2442(sp, shape_types, sel)                                                          \
    asm volatile("mma." sp ".sync.aligned." shape_types " {%0, %1}, {%2, %3, %4, %5}, "            \
                 "{%6, %7, %8, %9}, {%10, %11}, %12, " sel ";"                                     \
                 : D2                                                                              \
                 : A4, B4, C2, "r"(e))
#define ORDERED "sp::ordered_metadata"

static __global__ void mma_sp_kernel(int form, const uint32_t *A, const uint32_t *B,
                                     const uint32_t *C, const uint32_t *E, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a[4], b[4], c[4], d[4] = {0, 0, 0, 0}, e = E[l];
    for (int i = 0; i < 4; i++) {
        a[i] = A[4 * l + i];
        b[i] = B[4 * l + i];
        c[i] = C[4 * l + i];
    }
    switch (form) {
    case MMA_SP_K16_F16_SEL0:
        MMA_SP_4224("sp", "m16n8k16.row.col.f32.f16.f16.f32", "0");
        break;
    case MMA_SP_K16_F16_SEL3:
        MMA_SP_4224(ORDERED, "m16n8k16.row.col.f32.f16.f16.f32", "3");
        break;
    case MMA_SP_K32_F16_F16_SEL1:
        MMA_SP_2442(ORDERED, "m16n8k32.row.col.f16.f16.f16.f16", "1");
        break;
    case MMA_SP_K32_BF16_SEL0:
        MMA_SP_4444("sp", "m16n8k32.row.col.f32.bf16.bf16.f32", "0");
        break;
    case MMA_SP_K32_BF16_SEL1:
        MMA_SP_4444(ORDERED, "m16n8k32.row.col.f32.bf16.bf16.f32", "1");
        break;
    case MMA_SP_K8_TF32_SEL2:
        MMA_SP_4224("sp", "m16n8k8.row.col.f32.tf32.tf32.f32", "2");
        break;
    case MMA_SP_K16_TF32_SEL1:
        MMA_SP_4444(ORDERED, "m16n8k16.row.col.f32.tf32.tf32.f32", "1");
        break;
    case MMA_SP_K32_S8_SEL0:
        MMA_SP_4224("sp", "m16n8k32.row.col.s32.s8.s8.s32", "0");
        break;
    case MMA_SP_K32_U8_S8_SATF_SEL1:
        MMA_SP_4224(ORDERED, "m16n8k32.row.col.satfinite.s32.u8.s8.s32", "1");
        break;
    case MMA_SP_K64_S8_U8:
        MMA_SP_4444(ORDERED, "m16n8k64.row.col.s32.s8.u8.s32", "0");
        break;
    case MMA_SP_K64_E4M3:
        MMA_SP_4444("sp", "m16n8k64.row.col.f32.e4m3.e4m3.f32", "0");
        break;
    case MMA_SP_K64_E5M2_E4M3:
        MMA_SP_4444(ORDERED, "m16n8k64.row.col.f32.e5m2.e4m3.f32", "0");
        break;
    case MMA_SP_K64_S4_SEL1:
        MMA_SP_4224("sp", "m16n8k64.row.col.s32.s4.s4.s32", "1");
        break;
    case MMA_SP_K128_U4_S4_SATF:
        MMA_SP_4444(ORDERED, "m16n8k128.row.col.satfinite.s32.u4.s4.s32", "0");
        break;
    }
    for (int i = 0; i < 4; i++)
        D[4 * l + i] = d[i];
}

extern "C" cudaError_t tensor_mma_sp(int form, const uint32_t *a, const uint32_t *b,
                                     const uint32_t *c, const uint32_t *e, uint32_t *d)
{
    mma_sp_kernel<<<1, 32>>>(form, a, b, c, e, d);
    return cudaDeviceSynchronize();
}

#define F(i) "d"(x[i])
static __global__ void mma_f64_kernel(int shape, const double *A, const double *B, const double *C,
                                      double *D)
{
    int l = threadIdx.x;
    double x[16], d[4] = {0, 0, 0, 0}; /* a in x[0 .. 7], b in x[8 .. 11], c in x[12 .. 15] */
    for (int i = 0; i < 8; i++)
        x[i] = A[8 * l + i];
    for (int i = 0; i < 4; i++) {
        x[8 + i] = B[4 * l + i];
        x[12 + i] = C[4 * l + i];
    }
    switch (shape) {
    case MMA_F64_M8N8K4:
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, "
                     "{%4, %5};"
                     : "=d"(d[0]), "=d"(d[1])
                     : F(0), F(8), F(12), F(13));
        break;
    case MMA_F64_M16N8K4:
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, "
                     "%5}, {%6}, {%7, %8, %9, %10};"
                     : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                     : F(0), F(1), F(8), F(12), F(13), F(14), F(15));
        break;
    case MMA_F64_M16N8K8:
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                     : F(0), F(1), F(2), F(3), F(8), F(9), F(12), F(13), F(14), F(15));
        break;
    case MMA_F64_M16N8K16:
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%16, %17, %18, %19};"
                     : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3])
                     : F(0), F(1), F(2), F(3), F(4), F(5), F(6), F(7), F(8), F(9), F(10), F(11),
                       F(12), F(13), F(14), F(15));
        break;
    }
    for (int i = 0; i < 4; i++)
        D[4 * l + i] = d[i];
}
#undef F

extern "C" cudaError_t tensor_mma_f64(int shape, const double *a, const double *b, const double *c,
                                      double *d)
{
    mma_f64_kernel<<<1, 32>>>(shape, a, b, c, d);
    return cudaDeviceSynchronize();
}

#define R8(x) "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(x[4]), "r"(x[5]), "r"(x[6]), "r"(x[7])
#define D8                                                                                         \
    "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]), "=r"(d[4]), "=r"(d[5]), "=r"(d[6]), "=r"(d[7])
static __global__ void mma_quadpair_kernel(int form, const uint32_t *A, const uint32_t *B,
                                           const uint32_t *C, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a[2] = {A[2 * l], A[2 * l + 1]}, b[2] = {B[2 * l], B[2 * l + 1]}, c[8], d[8] = {0};
    for (int i = 0; i < 8; i++)
        c[i] = C[8 * l + i];
    switch (form) {
    case MMA_QP_ROW_COL_F32_F32:
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0, %1, %2, %3, %4, %5, %6, "
                     "%7}, {%8, %9}, {%10, %11}, {%12, %13, %14, %15, %16, %17, %18, %19};"
                     : D8
                     : A2, B2, R8(c));
        break;
    case MMA_QP_COL_ROW_F16_F16:
        asm volatile("mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16 {%0, %1, %2, %3}, {%4, %5}, "
                     "{%6, %7}, {%8, %9, %10, %11};"
                     : D4
                     : A2, B2, C4);
        break;
    case MMA_QP_ROW_ROW_F32_F16:
        asm volatile("mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16 {%0, %1, %2, %3, %4, %5, %6, "
                     "%7}, {%8, %9}, {%10, %11}, {%12, %13, %14, %15};"
                     : D8
                     : A2, B2, C4);
        break;
    case MMA_QP_COL_COL_F32_F32:
        asm volatile("mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f32 {%0, %1, %2, %3, %4, %5, %6, "
                     "%7}, {%8, %9}, {%10, %11}, {%12, %13, %14, %15, %16, %17, %18, %19};"
                     : D8
                     : A2, B2, R8(c));
        break;
    }
    for (int i = 0; i < 8; i++)
        D[8 * l + i] = d[i];
}
#undef R8
#undef D8

extern "C" cudaError_t tensor_mma_quadpair(int form, const uint32_t *a, const uint32_t *b,
                                           const uint32_t *c, uint32_t *d)
{
    mma_quadpair_kernel<<<1, 32>>>(form, a, b, c, d);
    return cudaDeviceSynchronize();
}

static __global__ void mma_m8n8k16_kernel(int unsigned_a, const uint32_t *A, const uint32_t *B,
                                          const uint32_t *C, uint32_t *D)
{
    int l = threadIdx.x;
    uint32_t a = A[l], b = B[l], c0 = C[2 * l], c1 = C[2 * l + 1], d0, d1;
    if (unsigned_a)
        asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32 {%0, %1}, {%2}, {%3}, "
                     "{%4, %5};"
                     : "=r"(d0), "=r"(d1)
                     : "r"(a), "r"(b), "r"(c0), "r"(c1));
    else
        asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, "
                     "{%4, %5};"
                     : "=r"(d0), "=r"(d1)
                     : "r"(a), "r"(b), "r"(c0), "r"(c1));
    D[2 * l] = d0;
    D[2 * l + 1] = d1;
}

extern "C" cudaError_t tensor_mma_m8n8k16(int unsigned_a, const uint32_t *a, const uint32_t *b,
                                          const uint32_t *c, uint32_t *d)
{
    mma_m8n8k16_kernel<<<1, 32>>>(unsigned_a, a, b, c, d);
    return cudaDeviceSynchronize();
}

/* ---- ldmatrix and stmatrix ---------------------------------------------------------------- */

/* The shared address lane @p l gives: row l % 8 of matrix l / 8, kept at row slot
 * 8 (l / 8) + (3 (l % 8)) % 8 of an array of 8-half rows. */
static __device__ unsigned row_address(const uint16_t *s, int l)
{
    return smem(&s[(8 * (l / 8) + 3 * (l % 8) % 8) * 8]);
}

static __global__ void ldmatrix_kernel(const uint16_t *m, uint32_t *out)
{
    __shared__ __align__(16) uint16_t s[256];
    int l = threadIdx.x;
    for (int i = l; i < 256; i += 32) { /* row r of matrix q into its slot */
        int q = i / 64, r = i / 8 % 8;
        s[(8 * q + 3 * r % 8) * 8 + i % 8] = m[i];
    }
    __syncwarp();
    unsigned p = row_address(s, l);
    uint32_t r[6][4] = {};
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0][0]) : "r"(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared::cta.b16 {%0, %1}, [%2];"
                 : "=r"(r[1][0]), "=r"(r[1][1])
                 : "r"(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[2][0]), "=r"(r[2][1]), "=r"(r[2][2]), "=r"(r[2][3])
                 : "r"(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];"
                 : "=r"(r[3][0])
                 : "r"(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r[4][0]), "=r"(r[4][1])
                 : "r"(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[5][0]), "=r"(r[5][1]), "=r"(r[5][2]), "=r"(r[5][3])
                 : "r"(p));
    for (int k = 0; k < 6; k++)
        for (int i = 0; i < 4; i++)
            out[128 * k + 4 * l + i] = r[k][i];
}

extern "C" cudaError_t tensor_ldmatrix(const uint16_t *m, uint32_t *out)
{
    ldmatrix_kernel<<<1, 32>>>(m, out);
    return cudaDeviceSynchronize();
}

/* stmatrix variant @p k of registers @p r to the rows lane l names. */
static __device__ void stmatrix(int k, unsigned p, const uint32_t *r)
{
    switch (k) {
    case 0:
        asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(p), "r"(r[0])
                     : "memory");
        break;
    case 1:
        asm volatile("stmatrix.sync.aligned.m8n8.x2.shared::cta.b16 [%0], {%1, %2};" ::"r"(p),
                     "r"(r[0]), "r"(r[1])
                     : "memory");
        break;
    case 2:
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(p),
                     "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
                     : "memory");
        break;
    case 3:
        asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(p),
                     "r"(r[0])
                     : "memory");
        break;
    case 4:
        asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(p),
                     "r"(r[0]), "r"(r[1])
                     : "memory");
        break;
    default:
        asm volatile(
            "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(p),
            "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
            : "memory");
    }
}

static __global__ void stmatrix_kernel(const uint32_t *regs, uint16_t *out)
{
    __shared__ __align__(16) uint16_t s[256];
    int l = threadIdx.x;
    uint32_t r[4];
    for (int i = 0; i < 4; i++)
        r[i] = regs[4 * l + i];
    for (int k = 0; k < 6; k++) {
        for (int i = l; i < 256; i += 32)
            s[i] = 0xFFFF;
        __syncwarp();
        stmatrix(k, row_address(s, l), r);
        __syncwarp();
        for (int i = l; i < 256; i += 32)
            out[256 * k + i] = s[i];
        __syncwarp();
    }
}

extern "C" cudaError_t tensor_stmatrix(const uint32_t *regs, uint16_t *out)
{
    stmatrix_kernel<<<1, 32>>>(regs, out);
    return cudaDeviceSynchronize();
}

/* Lane l's register in[l] through movmatrix into out[l]; with @p half, lanes 0 to 15 alone. */
static __global__ void movmatrix_kernel(int half, const uint32_t *in, uint32_t *out)
{
    int l = threadIdx.x;
    uint32_t d = 0;
    if (!half || l < 16)
        asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;"
                     : "=r"(d)
                     : "r"(in[l])); /* TENSOR_MOVMATRIX (nvcc's line for the statement) */
    out[l] = d;
}

extern "C" cudaError_t tensor_movmatrix(int half, const uint32_t *in, uint32_t *out)
{
    movmatrix_kernel<<<1, 32>>>(half, in, out);
    return cudaDeviceSynchronize();
}

/* ---- cp.async ----------------------------------------------------------------------------- */

static __global__ void cp_async_kernel(const uint32_t *in, uint32_t *out, uint64_t policy)
{
    __shared__ __align__(16) uint32_t x[64 * 4], y[64 * 4];
    int t = threadIdx.x;
    for (int i = 0; i < 4; i++)
        x[4 * t + i] = y[4 * t + i] = 0xA5A5A5A5u;
    unsigned xs = smem(&x[4 * t]), ys = smem(&y[4 * t]);
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(xs), "l"(in + 4 * t)
                 : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(ys), "l"(in + 256 + 2 * t),
                 "r"(t % 9)
                 : "memory");
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %2, 0;\n"
                 "cp.async.ca.shared.global [%0], [%1], 4, p; }" ::"r"(ys + 8),
                 "l"(in + 512 + t), "r"(t & 1)
                 : "memory");
    asm volatile("cp.async.ca.shared::cta.global.L2::cache_hint [%0], [%1], 4, %2;" ::"r"(ys + 12),
                 "l"(in + 576 + t), "l"(policy)
                 : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    uint32_t *o = out + 16 * t;
    for (int i = 0; i < 4; i++)
        o[i] = x[4 * t + i]; /* nothing has landed yet */
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    for (int i = 0; i < 4; i++) {
        o[4 + i] = x[4 * t + i]; /* group 0 has landed */
        o[8 + i] = y[4 * t + i]; /* group 1 may not have */
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    for (int i = 0; i < 4; i++)
        o[12 + i] = y[4 * t + i];
}

extern "C" cudaError_t tensor_cp_async(const uint32_t *in, uint32_t *out)
{
    cp_async_kernel<<<1, 64>>>(in, out, 0x10E0000000000000ull);
    return cudaDeviceSynchronize();
}

static __global__ void cp_async_mbarrier_kernel(int noinc, const uint32_t *in, uint32_t *out)
{
    __shared__ __align__(16) uint32_t buf[64 * 4];
    __shared__ uint64_t bar;
    int t = threadIdx.x;
    unsigned b = smem(&bar);
    if (t == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"(64) : "memory");
    __syncthreads(); /* the object is initialised before any thread arrives */
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(&buf[4 * t])),
                 "l"(in + 4 * t)
                 : "memory");
    if (noinc) {
        asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(b) : "memory");
    } else {
        asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" ::"r"(b) : "memory");
        asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(b) : "memory");
    }
    uint32_t done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], 0;\n"
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(b)
                     : "memory");
    int u = (t + 1) % 64;
    for (int i = 0; i < 4; i++)
        out[4 * t + i] = buf[4 * u + i];
}

extern "C" cudaError_t tensor_cp_async_mbarrier(int noinc, const uint32_t *in, uint32_t *out)
{
    cp_async_mbarrier_kernel<<<1, 64>>>(noinc, in, out);
    return cudaDeviceSynchronize();
}

/* ---- a cp.async pipeline ------------------------------------------------------------------ */

static __device__ void copy16(float *dst, const float *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(dst)), "l"(src) : "memory");
}

static __device__ void commit(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* cp.async.wait_group takes a constant: one per count the pipeline uses. */
static __device__ void wait_groups(int n)
{
    switch (n) {
    case 0:
        asm volatile("cp.async.wait_group 0;" ::: "memory");
        break;
    case 1:
        asm volatile("cp.async.wait_group 1;" ::: "memory");
        break;
    case 2:
        asm volatile("cp.async.wait_group 2;" ::: "memory");
        break;
    default:
        asm volatile("cp.async.wait_group 3;" ::: "memory");
    }
}

static __global__ void pipeline_sum_kernel(int stages, int bug, const float *in, int n, float *out)
{
    __shared__ __align__(16) float buf[4][512]; /* up to 4 stages of 512 values */
    int t = threadIdx.x;
    float acc = 0.0f;
    for (int s = 0; s < stages - 1; s++) { /* the first stages - 1 in flight */
        if (s < n)
            copy16(&buf[s][4 * t], in + 512 * s + 4 * t);
        commit();
    }
    for (int step = 0; step < n; step++) {
        wait_groups(stages - 2 + bug); /* step's group has landed (not with the bug) */
        __syncthreads(); /* every thread's copy of it, and every read of step - 1's stage */
        int next = step + stages - 1;
        if (next < n) /* into the stage read at step - 1 */
            copy16(&buf[next % stages][4 * t], in + 512 * next + 4 * t);
        commit();
        const float *st = buf[step % stages];
        int u = (t + 32) % 128; /* another warp's chunk */
        for (int i = 0; i < 4; i++)
            acc += st[4 * u + i]; /* TENSOR_PIPELINE_READ */
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    atomicAdd(out, acc);
}

extern "C" cudaError_t tensor_pipeline_sum(int stages, int bug, const float *in, int n, float *out)
{
    pipeline_sum_kernel<<<1, 128>>>(stages, bug, in, n, out);
    return cudaDeviceSynchronize();
}

/* ---- counters ----------------------------------------------------------------------------- */

static __global__ void shared_pattern_kernel(int kind, uint32_t *out)
{
    __shared__ __align__(128) uint8_t s[32 * 1024];
    int l = threadIdx.x, r = l % 8, i = l / 8;
    uint32_t v[4] = {0, 0, 0, 0};
    unsigned p = kind == 0    ? smem(&s[r * 64 + i * 16])
                 : kind == 1  ? smem(&s[r * 256 + i * 16])
                 : kind == 2  ? smem(&s[r * 128 + ((i ^ r) & 7) * 16])
                 : kind == 3  ? smem(&s[l * 128])
                 : kind == 4  ? smem(&s[l * 16])
                 : kind == 5  ? smem(&s[0])                            /* one address */
                 : kind == 6  ? smem(&s[l / 16 * 32])                  /* one per half warp */
                 : kind == 7  ? smem(&s[(l >> 2) * 32 + (l & 1) * 16]) /* lanes n, n ^ 2 */
                 : kind == 8  ? smem(&s[l % 16 * 32])                  /* lanes n, n + 16 */
                 : kind == 9  ? smem(&s[l * 1024])                     /* 4 bytes, bank 0 */
                 : kind == 10 ? smem(&s[l * 132])                      /* 33 words apart */
                              : smem(&s[l * 8]);                       /* 2 words apart */
    if (kind > 8)
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[0]) : "r"(p));
    else if (kind < 3)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                     : "r"(p));
    else if (kind > 4)
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                     : "r"(p));
    else
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(p), "r"(l), "r"(l), "r"(l),
                     "r"(l)
                     : "memory");
    out[l] = v[0] ^ v[1] ^ v[2] ^ v[3];
}

extern "C" cudaError_t tensor_shared_pattern(int kind, uint32_t *out)
{
    shared_pattern_kernel<<<1, 32>>>(kind, out);
    return cudaDeviceSynchronize();
}

static __global__ void mma_overlap_kernel(int n, const uint32_t *in, uint32_t *out)
{
    __shared__ __align__(16) uint32_t buf[32 * 4];
    int l = threadIdx.x;
    uint32_t a[4] = {in[l], in[l], in[l], in[l]}, b[2] = {in[l], in[l]}, c[4] = {0, 0, 0, 0};
    uint32_t *d = c;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem(&buf[4 * l])),
                 "l"(in + 4 * l)
                 : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    for (int k = 0; k < n; k++) /* the copy is in flight */
        MMA_4422("m16n8k16.row.col.f32.f16.f16.f32");
    asm volatile("cp.async.wait_all;" ::: "memory");
    for (int k = 0; k < n; k++) /* it has landed */
        MMA_4422("m16n8k16.row.col.f32.f16.f16.f32");
    out[l] = d[0] ^ buf[4 * l];
}

extern "C" cudaError_t tensor_mma_overlap(int n, const uint32_t *in, uint32_t *out)
{
    mma_overlap_kernel<<<1, 32>>>(n, in, out);
    return cudaDeviceSynchronize();
}

static __global__ void unsupported_kernel(uint32_t *out)
{
    uint32_t a = threadIdx.x, b = 0x12345678u, c[2] = {1, 2}, d[2];
    asm volatile("wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 {%0, %1}, {%2}, {%3}, "
                 "{%4, %5};"
                 : D2
                 : "r"(a), "r"(b), C2); /* TENSOR_UNSUPPORTED (nvcc's line for the statement) */
    out[threadIdx.x] = d[0] ^ d[1];
}

extern "C" cudaError_t tensor_unsupported(uint32_t *out)
{
    unsupported_kernel<<<1, 32>>>(out);
    return cudaDeviceSynchronize();
}
