/**
 * @file test_vm.c
 * @brief The PTX VM, family by family: each instruction of test_vm_kernels.cu against what the
 *        host computes it should give, on inputs chosen for the edges.
 *
 * Integer and logic results must match bit for bit; so must fp32 and fp64 arithmetic in every
 * rounding mode (a NaN must be a NaN), and the conversions (f16 and bf16 over every value and
 * every rounding boundary). Approximations must stay inside the error the PTX ISA allows; the
 * tensor instructions must compute their tiles exactly on exact inputs, through the fragment
 * layouts the PTX ISA documents for mma.sync and ldmatrix. Then what a student meets when it
 * goes wrong: faults, deadlocks, traps, asserts and unsupported instructions, each one line
 * naming the kernel and the source line.
 *
 * CTest runs it with the emulator's libraries first, GPU or not (this file is compiled with
 * -frounding-math: its references change the host's rounding mode).
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "ref.h"
#include "test_vm.h"

enum { N = 2048 }; /* inputs per instruction */

/* ---- bits and inputs ------------------------------------------------------------------------ */

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Kinds of input a test draws. */
enum input { IN_INT, IN_SMALL, IN_POSLEN, IN_NONZERO, IN_FLOAT, IN_HALF, IN_BF16 };

static const uint32_t int_edges[] = {
    0,           1,           2,           3,       0xFFFFFFFFu, 0xFFFFFFFEu,
    0x80000000u, 0x7FFFFFFFu, 0x80000001u, 0xFFFFu, 0x10000u,    0x00FFFFFFu,
    0xFF800000u, 31,          32,          33,      7,           0x12345678u};

static const uint32_t float_edges[] = {
    0x00000000u, 0x80000000u, 0x3F800000u, 0xBF800000u, 0x7F800000u, 0xFF800000u,
    0x7FC00000u, 0x00000001u, 0x807FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x3F000000u,
    0x40490FDBu, 0x4B000001u, 0x33800000u, 0x3F800001u, 0xC0000000u, 0x4EFFFFFFu};

/* One 32-bit input of kind @p k, for slot @p i (the first slots walk every pair of edges). */
static uint32_t input32(enum input k, int i, int operand)
{
    size_t ne = k == IN_FLOAT ? sizeof float_edges / 4 : sizeof int_edges / 4;
    const uint32_t *edges = k == IN_FLOAT ? float_edges : int_edges;
    uint64_t r = rnd64();
    size_t e = operand == 0 ? (size_t)i % ne : (size_t)i / ne % ne;
    switch (k) {
    case IN_SMALL: /* shift amounts, bit positions and lengths: around the width */
        return (uint32_t)(r % 70);
    case IN_POSLEN: /* bfi's position and length, packed as len << 8 | pos */
        return (uint32_t)((r >> 8) % 40) << 8 | (uint32_t)(r % 40);
    case IN_HALF: /* f16 values of moderate size, so sums and products are exact in double */
        return (uint32_t)((r & 0x8000) | (0x2C00 + (r >> 20) % 0x2400));
    case IN_BF16:
        return (uint32_t)((r & 0x8000) | (0x3800 + (r >> 20) % 0xA00));
    case IN_NONZERO: {
        uint32_t v = (size_t)i < ne * ne ? edges[e] : (uint32_t)(r >> 16);
        return v ? v : 7;
    }
    case IN_FLOAT:
        if ((size_t)i < ne * ne)
            return edges[e];
        return (r & 1)
                   ? fbits((float)((int64_t)(r >> 40) - (1 << 23)) / (float)(1 << (r >> 8 & 15)))
                   : (uint32_t)(r >> 16);
    default:
        return (size_t)i < ne * ne ? edges[e] : (uint32_t)(r >> 16);
    }
}

/* ---- running one instruction ------------------------------------------------------------------
 */

/* out = op(a, b, c) on the device, for @p n lanes. */
static void run32(const char *op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                  uint32_t *out, int n)
{
    uint32_t *d[4];
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaMalloc((void **)&d[i], (size_t)n * 4));
    CUDA_CHECK(cudaMemcpy(d[0], a, (size_t)n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d[1], b, (size_t)n * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d[2], c, (size_t)n * 4, cudaMemcpyHostToDevice));
    ck_assert_msg(vm_op32(op, d[0], d[1], d[2], d[3], n) == cudaSuccess, "%s: launch failed", op);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(out, d[3], (size_t)n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaFree(d[i]));
}

static void run64(const char *op, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                  uint64_t *out, int n)
{
    uint64_t *d[4];
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaMalloc((void **)&d[i], (size_t)n * 8));
    CUDA_CHECK(cudaMemcpy(d[0], a, (size_t)n * 8, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d[1], b, (size_t)n * 8, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d[2], c, (size_t)n * 8, cudaMemcpyHostToDevice));
    ck_assert_msg(vm_op64(op, d[0], d[1], d[2], d[3], n) == cudaSuccess, "%s: launch failed", op);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(out, d[3], (size_t)n * 8, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaFree(d[i]));
}

/* ---- integer references -------------------------------------------------------------------------
 */

typedef uint32_t (*ref32)(uint32_t a, uint32_t b, uint32_t c);

static int32_t s32(uint32_t v)
{
    return (int32_t)v;
}

static uint32_t sat32(int64_t v)
{
    return (uint32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
}

static uint32_t bfe_ref(uint32_t a, uint32_t pos, uint32_t len, int sgn)
{
    pos &= 0xFF, len &= 0xFF;
    uint32_t msb = pos + len - 1 < 31 ? pos + len - 1 : 31;
    uint32_t sbit = sgn && len ? (a >> msb) & 1 : 0, d = 0;
    for (uint32_t i = 0; i < 32; i++)
        d |= (i < len ? (pos + i < 32 ? (a >> (pos + i)) & 1 : sbit) : sbit) << i;
    return d;
}

static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint8_t bytes[8];
    for (int i = 0; i < 4; i++)
        bytes[i] = (uint8_t)(a >> 8 * i), bytes[4 + i] = (uint8_t)(b >> 8 * i);
    uint32_t n = c & 3, d = 0;
    for (uint32_t i = 0; i < 4; i++) {
        uint32_t sel;
        switch (mode) {
        case 1:
            sel = (n + i) & 7;
            break;
        case 2:
            sel = (n + 8 - i) & 7;
            break;
        case 3:
            sel = n;
            break;
        case 4:
            sel = i > n ? i : n;
            break;
        case 5:
            sel = i < n ? i : n;
            break;
        case 6:
            sel = 2 * (c & 1) + (i & 1);
            break;
        default:
            sel = (c >> 4 * i) & 0xF;
        }
        uint8_t v = bytes[sel & 7];
        if (mode == 0 && (sel & 8))
            v = (v & 0x80) ? 0xFF : 0;
        d |= (uint32_t)v << 8 * i;
    }
    return d;
}

static uint32_t bfind_ref(uint32_t a, int sgn, int shiftamt)
{
    if (sgn && (int32_t)a < 0)
        a = ~a;
    if (!a)
        return 0xFFFFFFFFu;
    int pos = 31;
    while (!(a >> pos & 1))
        pos--;
    return shiftamt ? 31 - (uint32_t)pos : (uint32_t)pos;
}

/* b with len bits from pos on replaced by a's lowest bits (pos, len 0 .. 255). */
static uint32_t bfi_ref(uint32_t a, uint32_t b, uint32_t pos, uint32_t len)
{
    if (pos >= 32)
        return b;
    uint32_t field = len >= 32 ? ~0u : (1u << len) - 1, mask = field << pos;
    return (b & ~mask) | ((a << pos) & mask);
}

static uint32_t brev32(uint32_t a)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((a >> i) & 1) << (31 - i);
    return r;
}

static uint32_t shf_ref(uint32_t lo, uint32_t hi, uint32_t n, int right, int clamp)
{
    n = clamp ? (n > 32 ? 32 : n) : n & 31;
    uint64_t v = (uint64_t)hi << 32 | lo;
    return right ? (uint32_t)(v >> n) : (uint32_t)((v << n) >> 32);
}

/* Generated per name: a small function for each reference below. */
#define R(NAME, EXPR)                                                                              \
    static uint32_t NAME(uint32_t a, uint32_t b, uint32_t c)                                       \
    {                                                                                              \
        (void)a, (void)b, (void)c;                                                                 \
        return (uint32_t)(EXPR);                                                                   \
    }

R(r_popc, __builtin_popcount(a))
R(r_clz, a ? __builtin_clz(a) : 32)
R(r_brev, brev32(a))
R(r_bfind_u, bfind_ref(a, 0, 0))
R(r_bfind_s, bfind_ref(a, 1, 0))
R(r_bfind_sh, bfind_ref(a, 0, 1))
R(r_not, ~a)
R(r_cnot, a == 0)
R(r_abs, s32(a) < 0 ? 0u - a : a)
R(r_neg, 0u - a)
R(r_add, a + b)
R(r_add_sat, sat32((int64_t)s32(a) + s32(b)))
R(r_sub, a - b)
R(r_sub_sat, sat32((int64_t)s32(a) - s32(b)))
R(r_mul_lo, a *b)
R(r_mul_hi_s, (uint64_t)((int64_t)s32(a) * s32(b)) >> 32)
R(r_mul_hi_u, ((uint64_t)a * b) >> 32)
R(r_mul24_s, (int64_t)(s32(a << 8) >> 8) * (s32(b << 8) >> 8))
R(r_mul24_u, (a & 0xFFFFFF) * (b & 0xFFFFFF))
R(r_div_s, b == 0xFFFFFFFFu ? 0u - a : (uint32_t)(s32(a) / s32(b)))
R(r_div_u, a / b)
R(r_rem_s, b == 0xFFFFFFFFu ? 0 : (uint32_t)(s32(a) % s32(b)))
R(r_rem_u, a % b)
R(r_min_s, s32(a) < s32(b) ? a : b)
R(r_min_u, a < b ? a : b)
R(r_max_s, s32(a) > s32(b) ? a : b)
R(r_max_u, a > b ? a : b)
R(r_and, a &b)
R(r_or, a | b)
R(r_xor, a ^ b)
R(r_shl, b >= 32 ? 0 : a << b)
R(r_shr_u, b >= 32 ? 0 : a >> b)
R(r_shr_s, s32(a) >> (b >= 32 ? 31 : b))
R(r_lt_s, s32(a) < s32(b))
R(r_lo_u, a < b)
R(r_hs_u, a >= b)
R(r_mad_lo, a *b + c)
R(r_mad_hi_s, (uint32_t)((uint64_t)((int64_t)s32(a) * s32(b)) >> 32) + c)
R(r_mad_hi_u, (uint32_t)(((uint64_t)a * b) >> 32) + c)
R(r_mad24_s, (uint32_t)((int64_t)(s32(a << 8) >> 8) * (s32(b << 8) >> 8)) + c)
R(r_sad_u, (a > b ? a - b : b - a) + c)
R(r_sad_s, (uint32_t)(s32(a) > s32(b) ? (int64_t)s32(a) - s32(b) : (int64_t)s32(b) - s32(a)) + c)
R(r_bfe_u, bfe_ref(a, b, c, 0))
R(r_bfe_s, bfe_ref(a, b, c, 1))
R(r_bfi, bfi_ref(a, b, c & 0xFF, (c >> 8) & 0xFF))
R(r_prmt, prmt_ref(a, b, c, 0))
R(r_prmt_f4e, prmt_ref(a, b, c, 1))
R(r_prmt_b4e, prmt_ref(a, b, c, 2))
R(r_prmt_rc8, prmt_ref(a, b, c, 3))
R(r_prmt_ecl, prmt_ref(a, b, c, 4))
R(r_prmt_ecr, prmt_ref(a, b, c, 5))
R(r_prmt_rc16, prmt_ref(a, b, c, 6))
R(r_shf_lw, shf_ref(a, b, c, 0, 0))
R(r_shf_rw, shf_ref(a, b, c, 1, 0))
R(r_shf_lc, shf_ref(a, b, c, 0, 1))
R(r_shf_rc, shf_ref(a, b, c, 1, 1))
R(r_xor3, a ^ b ^ c)
R(r_maj, (a & b) | (a & c) | (b & c))
R(r_ge_and, (s32(a) >= s32(b) && c) + 2 * (s32(a) < s32(b) && c))
R(r_lt_xor, ((s32(a) < s32(b)) ^ !c) + 2 * ((s32(a) >= s32(b)) ^ !c))

/* Every integer instruction: its name, its reference and the inputs it takes. */
static const struct {
    const char *op;
    ref32 ref;
    enum input in[3];
} int_ops[] = {
    {"popc.b32", r_popc, {IN_INT}},
    {"clz.b32", r_clz, {IN_INT}},
    {"brev.b32", r_brev, {IN_INT}},
    {"bfind.u32", r_bfind_u, {IN_INT}},
    {"bfind.s32", r_bfind_s, {IN_INT}},
    {"bfind.shiftamt.u32", r_bfind_sh, {IN_INT}},
    {"not.b32", r_not, {IN_INT}},
    {"cnot.b32", r_cnot, {IN_INT}},
    {"abs.s32", r_abs, {IN_INT}},
    {"neg.s32", r_neg, {IN_INT}},
    {"add.s32", r_add, {IN_INT, IN_INT}},
    {"add.sat.s32", r_add_sat, {IN_INT, IN_INT}},
    {"sub.s32", r_sub, {IN_INT, IN_INT}},
    {"sub.sat.s32", r_sub_sat, {IN_INT, IN_INT}},
    {"mul.lo.s32", r_mul_lo, {IN_INT, IN_INT}},
    {"mul.hi.s32", r_mul_hi_s, {IN_INT, IN_INT}},
    {"mul.hi.u32", r_mul_hi_u, {IN_INT, IN_INT}},
    {"mul24.lo.s32", r_mul24_s, {IN_INT, IN_INT}},
    {"mul24.lo.u32", r_mul24_u, {IN_INT, IN_INT}},
    {"div.s32", r_div_s, {IN_INT, IN_NONZERO}},
    {"div.u32", r_div_u, {IN_INT, IN_NONZERO}},
    {"rem.s32", r_rem_s, {IN_INT, IN_NONZERO}},
    {"rem.u32", r_rem_u, {IN_INT, IN_NONZERO}},
    {"min.s32", r_min_s, {IN_INT, IN_INT}},
    {"min.u32", r_min_u, {IN_INT, IN_INT}},
    {"max.s32", r_max_s, {IN_INT, IN_INT}},
    {"max.u32", r_max_u, {IN_INT, IN_INT}},
    {"and.b32", r_and, {IN_INT, IN_INT}},
    {"or.b32", r_or, {IN_INT, IN_INT}},
    {"xor.b32", r_xor, {IN_INT, IN_INT}},
    {"shl.b32", r_shl, {IN_INT, IN_SMALL}},
    {"shr.u32", r_shr_u, {IN_INT, IN_SMALL}},
    {"shr.s32", r_shr_s, {IN_INT, IN_SMALL}},
    {"setp.lt.s32", r_lt_s, {IN_INT, IN_INT}},
    {"setp.lo.u32", r_lo_u, {IN_INT, IN_INT}},
    {"setp.hs.u32", r_hs_u, {IN_INT, IN_INT}},
    {"mad.lo.s32", r_mad_lo, {IN_INT, IN_INT, IN_INT}},
    {"mad.hi.s32", r_mad_hi_s, {IN_INT, IN_INT, IN_INT}},
    {"mad.hi.u32", r_mad_hi_u, {IN_INT, IN_INT, IN_INT}},
    {"mad24.lo.s32", r_mad24_s, {IN_INT, IN_INT, IN_INT}},
    {"sad.u32", r_sad_u, {IN_INT, IN_INT, IN_INT}},
    {"sad.s32", r_sad_s, {IN_INT, IN_INT, IN_INT}},
    {"bfe.u32", r_bfe_u, {IN_INT, IN_SMALL, IN_SMALL}},
    {"bfe.s32", r_bfe_s, {IN_INT, IN_SMALL, IN_SMALL}},
    {"bfi.b32", r_bfi, {IN_INT, IN_INT, IN_POSLEN}},
    {"prmt.b32", r_prmt, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.f4e", r_prmt_f4e, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.b4e", r_prmt_b4e, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.rc8", r_prmt_rc8, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.ecl", r_prmt_ecl, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.ecr", r_prmt_ecr, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.rc16", r_prmt_rc16, {IN_INT, IN_INT, IN_INT}},
    {"shf.l.wrap.b32", r_shf_lw, {IN_INT, IN_INT, IN_SMALL}},
    {"shf.r.wrap.b32", r_shf_rw, {IN_INT, IN_INT, IN_SMALL}},
    {"shf.l.clamp.b32", r_shf_lc, {IN_INT, IN_INT, IN_SMALL}},
    {"shf.r.clamp.b32", r_shf_rc, {IN_INT, IN_INT, IN_SMALL}},
    {"lop3.b32.xor3", r_xor3, {IN_INT, IN_INT, IN_INT}},
    {"lop3.b32.maj", r_maj, {IN_INT, IN_INT, IN_INT}},
    {"setp.ge.and.s32", r_ge_and, {IN_INT, IN_INT, IN_SMALL}},
    {"setp.lt.xor.s32", r_lt_xor, {IN_INT, IN_INT, IN_SMALL}},
};

/* Run every instruction of a table on its inputs; @p same says when two results agree. */
#define RUN_TABLE(TABLE, SAME)                                                                     \
    do {                                                                                           \
        uint32_t *a = mat_alloc(3 * N * 4), *out = mat_alloc(N * 4);                               \
        for (size_t t = 0; t < sizeof TABLE / sizeof *TABLE; t++) {                                \
            for (int k = 0; k < 3; k++)                                                            \
                for (int i = 0; i < N; i++)                                                        \
                    a[k * N + i] = input32(TABLE[t].in[k], i, k);                                  \
            run32(TABLE[t].op, a, a + N, a + 2 * N, out, N);                                       \
            for (int i = 0; i < N; i++) {                                                          \
                uint32_t want = TABLE[t].ref(a[i], a[N + i], a[2 * N + i]);                        \
                ck_assert_msg(SAME(out[i], want),                                                  \
                              "%s(0x%08x, 0x%08x, 0x%08x) = 0x%08x, want "                         \
                              "0x%08x",                                                            \
                              TABLE[t].op, a[i], a[N + i], a[2 * N + i], out[i], want);            \
            }                                                                                      \
        }                                                                                          \
        free(a);                                                                                   \
        free(out);                                                                                 \
    } while (0)

#define BITS_EQUAL(x, y) ((x) == (y))

START_TEST(integer_instructions)
{
    RUN_TABLE(int_ops, BITS_EQUAL);
}
END_TEST

/* ---- fp32 -------------------------------------------------------------------------------------
 */

/* The host's fp32 arithmetic in rounding mode @p mode (this file is built with -frounding-math). */
static uint32_t fenv_op(int mode, int op, uint32_t a, uint32_t b, uint32_t c)
{
    fesetround(mode);
    volatile float x = bitsf(a), y = bitsf(b), z = bitsf(c), r;
    switch (op) {
    case 0:
        r = x + y;
        break;
    case 1:
        r = x - y;
        break;
    case 2:
        r = x * y;
        break;
    case 3:
        r = fmaf(x, y, z);
        break;
    case 4:
        r = x / y;
        break;
    case 5:
        r = sqrtf(x);
        break;
    default:
        r = 1.0f / x;
        break;
    }
    fesetround(FE_TONEAREST);
    return fbits(r);
}

static uint32_t fmin_ref(uint32_t a, uint32_t b, int max)
{
    float x = bitsf(a), y = bitsf(b);
    if (isnan(x))
        return isnan(y) ? 0x7FFFFFFFu : b;
    if (isnan(y))
        return a;
    if (x == y) /* -0 is below +0 */
        return ((int)(a >> 31) != max) ? a : b;
    return (x < y) != max ? a : b;
}

static uint32_t ftz_in(uint32_t a)
{
    return (a & 0x7F800000u) ? a : a & 0x80000000u;
}

R(r_fadd, fenv_op(FE_TONEAREST, 0, a, b, c))
R(r_fsub, fenv_op(FE_TONEAREST, 1, a, b, c))
R(r_fmul, fenv_op(FE_TONEAREST, 2, a, b, c))
R(r_ffma, fenv_op(FE_TONEAREST, 3, a, b, c))
R(r_fadd_rz, fenv_op(FE_TOWARDZERO, 0, a, b, c))
R(r_fadd_rm, fenv_op(FE_DOWNWARD, 0, a, b, c))
R(r_fadd_rp, fenv_op(FE_UPWARD, 0, a, b, c))
R(r_fmul_rz, fenv_op(FE_TOWARDZERO, 2, a, b, c))
R(r_fmul_rm, fenv_op(FE_DOWNWARD, 2, a, b, c))
R(r_fmul_rp, fenv_op(FE_UPWARD, 2, a, b, c))
R(r_ffma_rz, fenv_op(FE_TOWARDZERO, 3, a, b, c))
R(r_ffma_rm, fenv_op(FE_DOWNWARD, 3, a, b, c))
R(r_ffma_rp, fenv_op(FE_UPWARD, 3, a, b, c))
R(r_fdiv, fenv_op(FE_TONEAREST, 4, a, b, c))
R(r_fdiv_rz, fenv_op(FE_TOWARDZERO, 4, a, b, c))
R(r_fsqrt, fenv_op(FE_TONEAREST, 5, a, b, c))
R(r_frcp, fenv_op(FE_TONEAREST, 6, a, b, c))
R(r_fmin, fmin_ref(a, b, 0))
R(r_fmax, fmin_ref(a, b, 1))
R(r_fabs, a & 0x7FFFFFFFu)
R(r_fneg, a ^ 0x80000000u)
R(r_fadd_ftz, ftz_in(fenv_op(FE_TONEAREST, 0, ftz_in(a), ftz_in(b), 0)))
R(r_fmul_sat, isnan(bitsf(fenv_op(FE_TONEAREST, 2, a, b, 0)))
                  ? 0
                  : fbits(fminf(fmaxf(bitsf(fenv_op(FE_TONEAREST, 2, a, b, 0)), 0.0f), 1.0f)))
R(r_copysign, (b & 0x7FFFFFFFu) | (a & 0x80000000u))
R(r_finite, isfinite(bitsf(a)) != 0)
R(r_subnormal, fpclassify(bitsf(a)) == FP_SUBNORMAL)
R(r_ltu, isnan(bitsf(a)) || isnan(bitsf(b)) || bitsf(a) < bitsf(b))
R(r_isnan, isnan(bitsf(a)) || isnan(bitsf(b)))
R(r_fne, !isnan(bitsf(a)) && !isnan(bitsf(b)) && bitsf(a) != bitsf(b))

static const struct {
    const char *op;
    ref32 ref;
    enum input in[3];
} float_ops[] = {
    {"add.rn.f32", r_fadd, {IN_FLOAT, IN_FLOAT}},
    {"sub.rn.f32", r_fsub, {IN_FLOAT, IN_FLOAT}},
    {"mul.rn.f32", r_fmul, {IN_FLOAT, IN_FLOAT}},
    {"fma.rn.f32", r_ffma, {IN_FLOAT, IN_FLOAT, IN_FLOAT}},
    {"add.rz.f32", r_fadd_rz, {IN_FLOAT, IN_FLOAT}},
    {"add.rm.f32", r_fadd_rm, {IN_FLOAT, IN_FLOAT}},
    {"add.rp.f32", r_fadd_rp, {IN_FLOAT, IN_FLOAT}},
    {"mul.rz.f32", r_fmul_rz, {IN_FLOAT, IN_FLOAT}},
    {"mul.rm.f32", r_fmul_rm, {IN_FLOAT, IN_FLOAT}},
    {"mul.rp.f32", r_fmul_rp, {IN_FLOAT, IN_FLOAT}},
    {"fma.rz.f32", r_ffma_rz, {IN_FLOAT, IN_FLOAT, IN_FLOAT}},
    {"fma.rm.f32", r_ffma_rm, {IN_FLOAT, IN_FLOAT, IN_FLOAT}},
    {"fma.rp.f32", r_ffma_rp, {IN_FLOAT, IN_FLOAT, IN_FLOAT}},
    {"div.rn.f32", r_fdiv, {IN_FLOAT, IN_FLOAT}},
    {"div.rz.f32", r_fdiv_rz, {IN_FLOAT, IN_FLOAT}},
    {"sqrt.rn.f32", r_fsqrt, {IN_FLOAT}},
    {"rcp.rn.f32", r_frcp, {IN_FLOAT}},
    {"min.f32", r_fmin, {IN_FLOAT, IN_FLOAT}},
    {"max.f32", r_fmax, {IN_FLOAT, IN_FLOAT}},
    {"abs.f32", r_fabs, {IN_FLOAT}},
    {"neg.f32", r_fneg, {IN_FLOAT}},
    {"add.ftz.f32", r_fadd_ftz, {IN_FLOAT, IN_FLOAT}},
    {"mul.sat.f32", r_fmul_sat, {IN_FLOAT, IN_FLOAT}},
    {"copysign.f32", r_copysign, {IN_FLOAT, IN_FLOAT}},
    {"testp.finite.f32", r_finite, {IN_FLOAT}},
    {"testp.subnormal.f32", r_subnormal, {IN_FLOAT}},
    {"setp.ltu.f32", r_ltu, {IN_FLOAT, IN_FLOAT}},
    {"setp.nan.f32", r_isnan, {IN_FLOAT, IN_FLOAT}},
    {"setp.ne.f32", r_fne, {IN_FLOAT, IN_FLOAT}},
};

/* Equal bits, or both NaN (the payload of a computed NaN is not part of the contract). */
#define FLOAT_EQUAL(x, y)                                                                          \
    ((x) == (y) || (isnan(bitsf(x)) && isnan(bitsf(y)) && ((x) >> 23 & 0xFF) == 0xFF))

START_TEST(fp32_instructions_every_rounding_mode)
{
    RUN_TABLE(float_ops, FLOAT_EQUAL);
}
END_TEST

/* Approximations: the error the PTX ISA allows (abs: absolute; else relative to the value). */
START_TEST(approximations_within_their_bounds)
{
    static const struct {
        const char *op;
        double (*exact)(double);
        double lo, hi, bound;
        int absolute; /* 0 relative, 1 absolute, 2 absolute within [1/2, 2], relative beyond */
    } approx[] = {
        {"ex2.approx.f32", exp2, -120, 120, 0x1p-22, 0},
        {"lg2.approx.f32", log2, 0x1p-100, 0x1p100, 0x1p-22, 2},
        {"sin.approx.f32", sin, -100, 100, 0x1p-20, 1},
        {"cos.approx.f32", cos, -100, 100, 0x1p-20, 1},
        {"rsqrt.approx.f32", NULL, 0x1p-100, 0x1p100, 0x1p-22, 0},
        {"tanh.approx.f32", tanh, -20, 20, 0x1p-10, 0},
    };
    uint32_t *a = mat_alloc(N * 4), *out = mat_alloc(N * 4);
    for (size_t t = 0; t < sizeof approx / sizeof *approx; t++) {
        for (int i = 0; i < N; i++) {
            double f = (double)i / (N - 1);
            double v = approx[t].lo > 0 ? approx[t].lo * pow(approx[t].hi / approx[t].lo, f)
                                        : approx[t].lo + (approx[t].hi - approx[t].lo) * f;
            a[i] = fbits((float)v);
        }
        run32(approx[t].op, a, a, a, out, N);
        for (int i = 0; i < N; i++) {
            double x = bitsf(a[i]), got = bitsf(out[i]);
            double want = approx[t].exact ? approx[t].exact(x) : 1.0 / sqrt(x);
            int absolute =
                approx[t].absolute == 1 || (approx[t].absolute == 2 && x >= 0.5 && x <= 2);
            double err = fabs(got - want) / (absolute ? 1.0 : fabs(want));
            ck_assert_msg(err <= approx[t].bound, "%s(%a) = %a, want %a: error %g over %g",
                          approx[t].op, x, got, want, err, approx[t].bound);
        }
    }
    free(a);
    free(out);
}
END_TEST

/* Ulps between float @p got and the float nearest to @p exact (both finite, same sign). */
static double ulps_from_nearest(float got, double exact)
{
    float want = (float)exact;
    int64_t g = (int64_t)fbits(fabsf(got)), w = (int64_t)fbits(fabsf(want));
    return signbit(got) != signbit(want) ? INFINITY : (double)llabs(g - w);
}

/*
 * The fast-math forms (what -use_fast_math, __expf and __fdividef emit, and what lesson 11's
 * softmax and attention run), in ulps of the correctly rounded result, within the PTX ISA's
 * bounds: ex2.approx.ftz 2 ulp; rcp.approx 1 ulp; div.approx 2 ulp for |b| in [2^-126, 2^126];
 * div.full 2 ulp. Inputs keep the results normal (the .ftz forms flush the rest); then the
 * ISA's tables of special values, and what .ftz flushes.
 */
START_TEST(fast_math_forms_within_their_bounds)
{
    uint32_t *a = mat_alloc(N * 4), *b = mat_alloc(N * 4), *out = mat_alloc(N * 4);
    for (int i = 0; i < N; i++) {
        double f = (double)i / (N - 1), sign = i % 2 ? -1.0 : 1.0;
        a[i] = fbits((float)(sign * pow(2.0, -60 + 120 * f) * (1 + 0.37 * f)));
        b[i] = fbits((float)(-sign * pow(2.0, 55 - 110 * f) * (1.3 - 0.29 * f)));
    }
    static const char *const rcps[] = {"rcp.approx.f32", "rcp.approx.ftz.f32"};
    for (int k = 0; k < 2; k++) {
        run32(rcps[k], a, a, a, out, N);
        for (int i = 0; i < N; i++) {
            double e = ulps_from_nearest(bitsf(out[i]), 1.0 / bitsf(a[i]));
            ck_assert_msg(e <= 1, "%s(%a) = %a: %g ulp, the ISA allows 1", rcps[k], bitsf(a[i]),
                          bitsf(out[i]), e);
        }
    }
    static const char *const divs[] = {"div.approx.f32", "div.approx.ftz.f32", "div.full.f32",
                                       "div.full.ftz.f32"};
    for (int k = 0; k < 4; k++) {
        run32(divs[k], a, b, a, out, N);
        for (int i = 0; i < N; i++) {
            double e = ulps_from_nearest(bitsf(out[i]), (double)bitsf(a[i]) / bitsf(b[i]));
            ck_assert_msg(e <= 2, "%s(%a, %a) = %a: %g ulp, the ISA allows 2", divs[k], bitsf(a[i]),
                          bitsf(b[i]), bitsf(out[i]), e);
        }
    }
    for (int i = 0; i < N; i++)
        a[i] = fbits((float)(-125.0 + 252.0 * i / (N - 1)));
    run32("ex2.approx.ftz.f32", a, a, a, out, N);
    for (int i = 0; i < N; i++) {
        double e = ulps_from_nearest(bitsf(out[i]), exp2(bitsf(a[i])));
        ck_assert_msg(e <= 2, "ex2.approx.ftz.f32(%a) = %a: %g ulp, the ISA allows 2", bitsf(a[i]),
                      bitsf(out[i]), e);
    }
    /* The tables: ex2 of -inf, -0, +inf, NaN and, flushed, of a subnormal input (2^0) and to a
     * subnormal result (+0); rcp of +-0, +-inf, NaN and, flushed, of a subnormal (+inf). */
    static const struct {
        const char *op;
        float in, want;
    } special[] = {
        {"ex2.approx.f32", -INFINITY, 0.0f},         {"ex2.approx.f32", -0.0f, 1.0f},
        {"ex2.approx.f32", INFINITY, INFINITY},      {"ex2.approx.f32", NAN, NAN},
        {"ex2.approx.f32", -130.0f, 0x1p-130f},      {"ex2.approx.ftz.f32", -130.0f, 0.0f},
        {"ex2.approx.ftz.f32", 0x1p-140f, 1.0f},     {"rcp.approx.f32", 0.0f, INFINITY},
        {"rcp.approx.f32", -0.0f, -INFINITY},        {"rcp.approx.f32", INFINITY, 0.0f},
        {"rcp.approx.f32", -INFINITY, -0.0f},        {"rcp.approx.f32", NAN, NAN},
        {"rcp.approx.ftz.f32", 0x1p-130f, INFINITY},
    };
    for (size_t k = 0; k < sizeof special / sizeof *special; k++) {
        uint32_t in = fbits(special[k].in), got;
        run32(special[k].op, &in, &in, &in, &got, 1);
        float g = bitsf(got), w = special[k].want;
        ck_assert_msg(isnan(w) ? isnan(g) : got == fbits(w), "%s(%a) = %a, the ISA gives %a",
                      special[k].op, special[k].in, g, w);
    }
    free(a);
    free(b);
    free(out);
}
END_TEST

/* ---- 64-bit -------------------------------------------------------------------------------------
 */

typedef uint64_t (*ref64)(uint64_t a, uint64_t b, uint64_t c);

static uint64_t brev64(uint64_t a)
{
    return (uint64_t)brev32((uint32_t)a) << 32 | brev32((uint32_t)(a >> 32));
}

static uint64_t bfe64(uint64_t a, uint32_t pos, uint32_t len, int sgn)
{
    pos &= 0xFF, len &= 0xFF;
    uint32_t msb = pos + len - 1 < 63 ? pos + len - 1 : 63;
    uint64_t sbit = sgn && len ? (a >> msb) & 1 : 0, d = 0;
    for (uint32_t i = 0; i < 64; i++)
        d |= (i < len ? (pos + i < 64 ? (a >> (pos + i)) & 1 : sbit) : sbit) << i;
    return d;
}

static uint64_t to_s64(double v)
{
    return isnan(v)       ? 0
           : v >= 0x1p63  ? (uint64_t)INT64_MAX
           : v <= -0x1p63 ? (uint64_t)INT64_MIN
                          : (uint64_t)(int64_t)v;
}

static uint64_t f32_from_f64(double v, int mode)
{
    fesetround(mode);
    volatile float f = (float)v;
    fesetround(FE_TONEAREST);
    return fbits(f);
}

#define R64(NAME, EXPR)                                                                            \
    static uint64_t NAME(uint64_t a, uint64_t b, uint64_t c)                                       \
    {                                                                                              \
        (void)a, (void)b, (void)c;                                                                 \
        return (uint64_t)(EXPR);                                                                   \
    }

R64(q_add, a + b)
R64(q_sub, a - b)
R64(q_mul, a *b)
R64(q_mulhi_u, (uint64_t)(((unsigned __int128)a * b) >> 64))
R64(q_mulhi_s, (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64))
R64(q_div_s, b == UINT64_MAX ? 0 - a : (uint64_t)((int64_t)a / (int64_t)b))
R64(q_div_u, a / b)
R64(q_rem_s, b == UINT64_MAX ? 0 : (uint64_t)((int64_t)a % (int64_t)b))
R64(q_rem_u, a % b)
R64(q_min_s, (int64_t)a < (int64_t)b ? a : b)
R64(q_max_u, a > b ? a : b)
R64(q_shl, (uint32_t)b >= 64 ? 0 : a << (uint32_t)b)
R64(q_shr_s, (uint64_t)((int64_t)a >> ((uint32_t)b >= 64 ? 63 : (uint32_t)b)))
R64(q_shr_u, (uint32_t)b >= 64 ? 0 : a >> (uint32_t)b)
R64(q_brev, brev64(a))
R64(q_popc, __builtin_popcountll(a))
R64(q_clz, a ? __builtin_clzll(a) : 64)
R64(q_bfe_u, bfe64(a, (uint32_t)b, (uint32_t)c, 0))
R64(q_bfe_s, bfe64(a, (uint32_t)b, (uint32_t)c, 1))
R64(q_wide_s, (int64_t)(int32_t)a *(int32_t)b)
R64(q_wide_u, (uint64_t)(uint32_t)a *(uint32_t)b)
R64(q_mad_wide_s, (uint64_t)((int64_t)(int32_t)a *(int32_t)b) + c)
R64(q_sext, (int64_t)(int32_t)a)
R64(q_dadd, dbits(bitsd(a) + bitsd(b)))
R64(q_dmul, dbits(bitsd(a) * bitsd(b)))
R64(q_dfma, dbits(fma(bitsd(a), bitsd(b), bitsd(c))))
R64(q_ddiv, dbits(bitsd(a) / bitsd(b)))
R64(q_dsqrt, dbits(sqrt(bitsd(a))))

/* The host's fp64 @p op (0 add, 1 mul, 2 fma, 3 div, 4 sqrt) in rounding mode @p mode. */
static uint64_t fenv_op64(int mode, int op, uint64_t a, uint64_t b, uint64_t c)
{
    fesetround(mode);
    volatile double x = bitsd(a), y = bitsd(b), z = bitsd(c), r;
    r = op == 0 ? x + y : op == 1 ? x * y : op == 2 ? fma(x, y, z) : op == 3 ? x / y : sqrt(x);
    fesetround(FE_TONEAREST);
    return dbits(r);
}

R64(q_dadd_rm, fenv_op64(FE_DOWNWARD, 0, a, b, c))
R64(q_dadd_rp, fenv_op64(FE_UPWARD, 0, a, b, c))
R64(q_dadd_rz, fenv_op64(FE_TOWARDZERO, 0, a, b, c))
R64(q_dmul_rm, fenv_op64(FE_DOWNWARD, 1, a, b, c))
R64(q_dfma_rp, fenv_op64(FE_UPWARD, 2, a, b, c))
R64(q_ddiv_rz, fenv_op64(FE_TOWARDZERO, 3, a, b, c))
R64(q_dsqrt_rm, fenv_op64(FE_DOWNWARD, 4, a, b, c))
R64(q_dmin, isnan(bitsd(a))        ? (isnan(bitsd(b)) ? 0x7FFFFFFFFFFFFFFFull : b)
            : isnan(bitsd(b))      ? a
            : bitsd(a) == bitsd(b) ? ((a >> 63) ? a : b)
            : bitsd(a) < bitsd(b)  ? a
                                   : b)
R64(q_d2f, f32_from_f64(bitsd(a), FE_TONEAREST))
R64(q_d2f_rz, f32_from_f64(bitsd(a), FE_TOWARDZERO))
R64(q_f2d, dbits((double)bitsf((uint32_t)a)))
R64(q_d2s64, to_s64(trunc(bitsd(a))))
R64(q_s642d, dbits((double)(int64_t)a))
R64(q_s642f, fbits((float)(int64_t)a))

/* 64-bit inputs: integers from two 32-bit draws, doubles from random bits or moderate values. */
static uint64_t input64(int kind, int i, int operand)
{
    uint64_t r = rnd64();
    if (kind == 1) /* small: shift counts, positions */
        return r % 140;
    if (kind == 2) { /* doubles */
        static const uint64_t edges[] = {0,
                                         0x8000000000000000ull,
                                         0x3FF0000000000000ull,
                                         0x7FF0000000000000ull,
                                         0x7FF8000000000000ull,
                                         1,
                                         0x43E0000000000000ull,
                                         0xC3E0000000000001ull};
        if (i < 64)
            return edges[(operand ? i / 8 : i) % 8];
        return (r & 1) ? dbits((double)(int64_t)(r >> 12) / (double)(1ull << (r >> 4 & 31))) : r;
    }
    uint64_t v = (uint64_t)input32(IN_INT, i, operand) << 32 | input32(IN_INT, i + 7, operand);
    return kind == 3 && v == 0 ? 9 : v; /* 3: nonzero divisors */
}

START_TEST(sixty_four_bit_instructions)
{
    static const struct {
        const char *op;
        ref64 ref;
        int in[3]; /* 0 integer, 1 small, 2 double, 3 nonzero */
    } ops[] = {
        {"add.s64", q_add, {0, 0}},
        {"sub.s64", q_sub, {0, 0}},
        {"mul.lo.s64", q_mul, {0, 0}},
        {"mul.hi.u64", q_mulhi_u, {0, 0}},
        {"mul.hi.s64", q_mulhi_s, {0, 0}},
        {"div.s64", q_div_s, {0, 3}},
        {"div.u64", q_div_u, {0, 3}},
        {"rem.s64", q_rem_s, {0, 3}},
        {"rem.u64", q_rem_u, {0, 3}},
        {"min.s64", q_min_s, {0, 0}},
        {"max.u64", q_max_u, {0, 0}},
        {"shl.b64", q_shl, {0, 1}},
        {"shr.s64", q_shr_s, {0, 1}},
        {"shr.u64", q_shr_u, {0, 1}},
        {"brev.b64", q_brev, {0}},
        {"popc.b64", q_popc, {0}},
        {"clz.b64", q_clz, {0}},
        {"bfe.u64", q_bfe_u, {0, 1, 1}},
        {"bfe.s64", q_bfe_s, {0, 1, 1}},
        {"mul.wide.s32", q_wide_s, {0, 0}},
        {"mul.wide.u32", q_wide_u, {0, 0}},
        {"mad.wide.s32", q_mad_wide_s, {0, 0, 0}},
        {"cvt.s64.s32", q_sext, {0}},
        {"add.rn.f64", q_dadd, {2, 2}},
        {"mul.rn.f64", q_dmul, {2, 2}},
        {"fma.rn.f64", q_dfma, {2, 2, 2}},
        {"div.rn.f64", q_ddiv, {2, 2}},
        {"sqrt.rn.f64", q_dsqrt, {2}},
        {"add.rm.f64", q_dadd_rm, {2, 2}},
        {"add.rp.f64", q_dadd_rp, {2, 2}},
        {"add.rz.f64", q_dadd_rz, {2, 2}},
        {"mul.rm.f64", q_dmul_rm, {2, 2}},
        {"fma.rp.f64", q_dfma_rp, {2, 2, 2}},
        {"div.rz.f64", q_ddiv_rz, {2, 2}},
        {"sqrt.rm.f64", q_dsqrt_rm, {2}},
        {"min.f64", q_dmin, {2, 2}},
        {"cvt.rn.f32.f64", q_d2f, {2}},
        {"cvt.rz.f32.f64", q_d2f_rz, {2}},
        {"cvt.f64.f32", q_f2d, {0}},
        {"cvt.rzi.s64.f64", q_d2s64, {2}},
        {"cvt.rn.f64.s64", q_s642d, {0}},
        {"cvt.rn.f32.s64", q_s642f, {0}},
    };
    uint64_t *a = mat_alloc(3 * N * 8), *out = mat_alloc(N * 8);
    for (size_t t = 0; t < sizeof ops / sizeof *ops; t++) {
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < N; i++)
                a[k * N + i] = input64(ops[t].in[k], i, k);
        run64(ops[t].op, a, a + N, a + 2 * N, out, N);
        for (int i = 0; i < N; i++) {
            uint64_t want = ops[t].ref(a[i], a[N + i], a[2 * N + i]);
            int nan = ops[t].in[0] == 2 && isnan(bitsd(out[i])) && isnan(bitsd(want));
            int fnan = !strncmp(ops[t].op, "cvt.r", 5) && strstr(ops[t].op, "f32.f64") &&
                       isnan(bitsf((uint32_t)out[i])) && isnan(bitsf((uint32_t)want));
            ck_assert_msg(out[i] == want || nan || fnan,
                          "%s(0x%016llx, 0x%016llx, 0x%016llx) = 0x%016llx, want 0x%016llx",
                          ops[t].op, (unsigned long long)a[i], (unsigned long long)a[N + i],
                          (unsigned long long)a[2 * N + i], (unsigned long long)out[i],
                          (unsigned long long)want);
        }
    }
    free(a);
    free(out);
}
END_TEST

/* ---- conversions
 * --------------------------------------------------------------------------------- */

/* Every f16 value, the midpoints between neighbours, and the floats either side of each: every
 * rounding boundary of f32 -> f16, and (fp_to_f16 of the first 65536) the exact widening. */
static uint32_t *f16_boundaries(int *count)
{
    uint32_t *v = mat_alloc(65536 * 4 * 4);
    int n = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float x = ref_f16_to_f32((uint16_t)h);
        v[n++] = fbits(x);
        if ((h & 0x7C00) == 0x7C00 || (h & 0x7FFF) == 0x7BFF)
            continue;
        float next = ref_f16_to_f32((uint16_t)(h + 1)), mid = x + (next - x) / 2;
        v[n++] = fbits(mid);
        v[n++] = fbits(nextafterf(mid, -INFINITY));
        v[n++] = fbits(nextafterf(mid, INFINITY));
    }
    *count = n;
    return v;
}

/* The f16 value of @p h as a double (NaN for NaNs). */
static double f16v(uint32_t h)
{
    return ref_f16_to_f32((uint16_t)h);
}

/* Is @p h the directed rounding of @p x: toward zero (dir 0), down (-1) or up (1)? Checked by
 * what it means, not by computing it again: no f16 lies strictly between h and x. */
static int directed_ok(uint32_t h, float x, int dir)
{
    if (isnan(x))
        return (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
    double v = f16v(h), ax = fabs(x);
    int toward_zero = dir == 0 || (dir < 0) == (x > 0);
    if (toward_zero) {
        if (fabs(v) > ax || !signbit(v) != !signbit(x))
            return 0;
        /* The next f16 away from zero is past x (or x overflows: then v is the largest). */
        uint32_t up = h + 1;
        return (h & 0x7FFF) == 0x7BFF || fabs(f16v(up)) > ax || (h & 0x7FFF) == 0x7C00;
    }
    if (fabs(v) < ax || !signbit(v) != !signbit(x))
        return 0;
    if ((h & 0x7FFF) == 0)
        return ax == 0;
    return fabs(f16v(h - 1)) < ax || v == x;
}

START_TEST(f16_conversions_at_every_boundary)
{
    int n;
    uint32_t *x = f16_boundaries(&n), *out = mat_alloc((size_t)n * 4);
    run32("cvt.rn.f16.f32", x, x, x, out, n);
    for (int i = 0; i < n; i++) {
        uint32_t want = isnan(bitsf(x[i])) ? 0x7FFF : ref_f32_to_f16(bitsf(x[i]));
        ck_assert_msg(out[i] == want, "cvt.rn.f16.f32(%a) = 0x%04x, want 0x%04x", bitsf(x[i]),
                      out[i], want);
    }
    static const char *const directed[] = {"cvt.rz.f16.f32", "cvt.rm.f16.f32", "cvt.rp.f16.f32"};
    for (int d = 0; d < 3; d++) {
        run32(directed[d], x, x, x, out, n);
        for (int i = 0; i < n; i++)
            ck_assert_msg(directed_ok(out[i], bitsf(x[i]),
                                      d == 0   ? 0
                                      : d == 1 ? -1
                                               : 1),
                          "%s(%a) = 0x%04x", directed[d], bitsf(x[i]), out[i]);
    }
    /* The packed form rounds two at once: its first source to the upper half. */
    uint32_t *y = mat_alloc((size_t)n * 4);
    for (int i = 0; i < n; i++)
        y[i] = x[(7 * (size_t)i + 3) % (size_t)n];
    run32("cvt.rn.f16x2.f32", x, y, x, out, n);
    for (int i = 0; i < n; i++) {
        uint32_t hi = isnan(bitsf(x[i])) ? 0x7FFF : ref_f32_to_f16(bitsf(x[i]));
        uint32_t lo = isnan(bitsf(y[i])) ? 0x7FFF : ref_f32_to_f16(bitsf(y[i]));
        ck_assert_msg(out[i] == (hi << 16 | lo), "cvt.rn.f16x2.f32(%a, %a) = 0x%08x, want 0x%08x",
                      bitsf(x[i]), bitsf(y[i]), out[i], hi << 16 | lo);
    }
    free(y);
    uint32_t *h = mat_alloc(65536 * 4);
    for (uint32_t i = 0; i < 65536; i++)
        h[i] = i;
    run32("cvt.f32.f16", h, h, h, out, 65536);
    for (uint32_t i = 0; i < 65536; i++)
        ck_assert_msg(out[i] == fbits(ref_f16_to_f32((uint16_t)i)), "cvt.f32.f16(0x%04x) = 0x%08x",
                      i, out[i]);
    free(h);
    free(x);
    free(out);
}
END_TEST

START_TEST(bf16_and_tf32_conversions)
{
    /* Every bf16 value widened, and rounded back from it and from both its neighbours. */
    uint32_t *x = mat_alloc(65536 * 3 * 4), *out = mat_alloc(65536 * 3 * 4);
    for (uint32_t b = 0; b < 65536; b++) {
        x[3 * b] = b << 16;
        x[3 * b + 1] = (b << 16) | 0x8000u;            /* a tie */
        x[3 * b + 2] = (b << 16) | (0x8000u + b % 97); /* just above it */
    }
    run32("cvt.rn.bf16.f32", x, x, x, out, 3 * 65536);
    for (int i = 0; i < 3 * 65536; i++) {
        uint32_t want = isnan(bitsf(x[i])) ? 0x7FFF : ref_f32_to_bf16(bitsf(x[i]));
        ck_assert_msg(out[i] == want, "cvt.rn.bf16.f32(0x%08x) = 0x%04x, want 0x%04x", x[i], out[i],
                      want);
    }
    uint32_t *y = mat_alloc(65536 * 3 * 4);
    for (int i = 0; i < 3 * 65536; i++)
        y[i] = x[(5 * (size_t)i + 1) % (3 * 65536)];
    run32("cvt.rn.bf16x2.f32", x, y, x, out, 3 * 65536);
    for (int i = 0; i < 3 * 65536; i++) {
        uint32_t hi = isnan(bitsf(x[i])) ? 0x7FFF : ref_f32_to_bf16(bitsf(x[i]));
        uint32_t lo = isnan(bitsf(y[i])) ? 0x7FFF : ref_f32_to_bf16(bitsf(y[i]));
        ck_assert_msg(out[i] == (hi << 16 | lo), "cvt.rn.bf16x2.f32(0x%08x, 0x%08x) = 0x%08x", x[i],
                      y[i], out[i]);
    }
    free(y);
    run32("cvt.rz.bf16.f32", x, x, x, out, 3 * 65536);
    for (int i = 0; i < 3 * 65536; i++)
        ck_assert_msg(out[i] == (isnan(bitsf(x[i])) ? 0x7FFF : x[i] >> 16),
                      "cvt.rz.bf16.f32(0x%08x) = 0x%04x", x[i], out[i]);
    for (uint32_t b = 0; b < 65536; b++)
        x[b] = b;
    run32("cvt.f32.bf16", x, x, x, out, 65536);
    for (uint32_t b = 0; b < 65536; b++)
        ck_assert_msg(out[b] == b << 16, "cvt.f32.bf16(0x%04x) = 0x%08x", b, out[b]);
    /* tf32, ties away: 10 mantissa bits kept; the first dropped bit rounds the magnitude up. */
    for (int i = 0; i < N; i++)
        x[i] = input32(IN_FLOAT, i, 0) ^ (uint32_t)(i & 0x1FFF);
    run32("cvt.rna.tf32.f32", x, x, x, out, N);
    for (int i = 0; i < N; i++) {
        uint32_t want = isnan(bitsf(x[i]))                    ? 0x7FFFE000u
                        : (x[i] & 0x7F800000u) == 0x7F800000u ? x[i]
                                                              : (x[i] + 0x1000u) & ~0x1FFFu;
        ck_assert_msg(out[i] == want, "cvt.rna.tf32.f32(0x%08x) = 0x%08x, want 0x%08x", x[i],
                      out[i], want);
    }
    free(x);
    free(out);
}
END_TEST

/* Float to integer: round as asked, saturate, NaN gives 0. */
static uint32_t f2i(uint32_t a, double (*round)(double), int is_signed)
{
    double v = bitsf(a);
    if (isnan(v))
        return 0;
    v = round(v);
    if (is_signed)
        return (uint32_t)(v >= 0x1p31 ? INT32_MAX : v <= -0x1p31 ? INT32_MIN : (int32_t)v);
    return v >= 0x1p32 ? UINT32_MAX : v <= 0 ? 0 : (uint32_t)v;
}

static uint32_t i2f_rz(uint32_t a)
{
    fesetround(FE_TOWARDZERO);
    volatile float f = (float)a;
    fesetround(FE_TONEAREST);
    return fbits(f);
}

R(r_rzi, f2i(a, trunc, 1))
R(r_rni, f2i(a, nearbyint, 1))
R(r_rmi, f2i(a, floor, 1))
R(r_rpi, f2i(a, ceil, 1))
R(r_rzi_u, f2i(a, trunc, 0))
R(r_s2f, fbits((float)s32(a)))
R(r_u2f_rz, i2f_rz(a))
R(r_rni_f, isnan(bitsf(a)) ? a : fbits(nearbyintf(bitsf(a))))
R(r_sat_s8, (uint32_t)(s32(a) > 127 ? 127 : s32(a) < -128 ? -128 : s32(a)))
R(r_u16, a & 0xFFFF)

START_TEST(integer_float_conversions)
{
    static const struct {
        const char *op;
        ref32 ref;
        enum input in[3];
    } ops[] = {
        {"cvt.rzi.s32.f32", r_rzi, {IN_FLOAT}},   {"cvt.rni.s32.f32", r_rni, {IN_FLOAT}},
        {"cvt.rmi.s32.f32", r_rmi, {IN_FLOAT}},   {"cvt.rpi.s32.f32", r_rpi, {IN_FLOAT}},
        {"cvt.rzi.u32.f32", r_rzi_u, {IN_FLOAT}}, {"cvt.rn.f32.s32", r_s2f, {IN_INT}},
        {"cvt.rz.f32.u32", r_u2f_rz, {IN_INT}},   {"cvt.rni.f32.f32", r_rni_f, {IN_FLOAT}},
        {"cvt.sat.s8.s32", r_sat_s8, {IN_INT}},   {"cvt.u16.u32", r_u16, {IN_INT}},
    };
    RUN_TABLE(ops, FLOAT_EQUAL);
}
END_TEST

/* ---- f16 and bf16 arithmetic ------------------------------------------------------------------
 */

static double bf16v(uint32_t h)
{
    return ref_bf16_to_f32((uint16_t)h);
}

/* Is @p h (bf16 when @p bf, else f16) the value nearest to the exact @p v, ties to even? */
static int nearest_ok(uint32_t h, double v, int bf)
{
    double (*val)(uint32_t) = bf ? bf16v : f16v;
    double e = fabs(val(h) - v), up = fabs(val(h + 1) - v), down = fabs(val(h - 1) - v);
    if (e > up || e > down)
        return 0;
    return (e != up && e != down) || !(h & 1);
}

START_TEST(half_and_bfloat_arithmetic)
{
    static const struct {
        const char *op;
        int kind; /* 0 add, 1 mul, 2 fma */
        int bf;
    } ops[] = {
        {"add.rn.f16", 0, 0}, {"mul.rn.f16", 1, 0}, {"fma.rn.f16", 2, 0}, {"fma.rn.bf16", 2, 1}};
    uint32_t *a = mat_alloc(3 * N * 4), *out = mat_alloc(N * 4);
    for (size_t t = 0; t < sizeof ops / sizeof *ops; t++) {
        for (int i = 0; i < 3 * N; i++)
            a[i] = input32(ops[t].bf ? IN_BF16 : IN_HALF, i, 0);
        run32(ops[t].op, a, a + N, a + 2 * N, out, N);
        double (*v)(uint32_t) = ops[t].bf ? bf16v : f16v;
        for (int i = 0; i < N; i++) {
            double x = v(a[i]), y = v(a[N + i]), z = v(a[2 * N + i]);
            double exact = ops[t].kind == 0 ? x + y : ops[t].kind == 1 ? x * y : x * y + z;
            ck_assert_msg(nearest_ok(out[i] & 0xFFFF, exact, ops[t].bf),
                          "%s(0x%04x, 0x%04x, 0x%04x) = 0x%04x, not the nearest to %a", ops[t].op,
                          a[i], a[N + i], a[2 * N + i], out[i], exact);
        }
    }
    /* f16x2: both halves, independently. */
    for (int i = 0; i < 2 * N; i++)
        a[i] = input32(IN_HALF, i, 0) | input32(IN_HALF, i, 1) << 16;
    run32("add.rn.f16x2", a, a + N, a, out, N);
    for (int i = 0; i < N; i++)
        for (int s = 0; s < 32; s += 16)
            ck_assert_msg(nearest_ok(out[i] >> s & 0xFFFF,
                                     f16v(a[i] >> s & 0xFFFF) + f16v(a[N + i] >> s & 0xFFFF), 0),
                          "add.rn.f16x2 half %d of 0x%08x + 0x%08x = 0x%08x", s / 16, a[i],
                          a[N + i], out[i]);
    free(a);
    free(out);
}
END_TEST

/* ---- memory --------------------------------------------------------------------------------- */

START_TEST(memory_spaces_and_widths)
{
    int8_t in8[16];
    float4 in4[4];
    for (int i = 0; i < 16; i++)
        in8[i] = (int8_t)(i * 37 - 100); /* both signs */
    for (int i = 0; i < 4; i++)
        in4[i] = (float4){(float)(i * 4 + 1), (float)-(i * 4 + 2), (float)(i * 4 + 3), 7.5f};
    int8_t *d8;
    float4 *d4;
    int32_t *dout, out[64];
    CUDA_CHECK(cudaMalloc((void **)&d8, sizeof in8));
    CUDA_CHECK(cudaMalloc((void **)&d4, sizeof in4));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemcpy(d8, in8, sizeof in8, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d4, in4, sizeof in4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dout, 0, sizeof out));
    ck_assert_int_eq(vm_memory(d8, d4, dout, 0x4321), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    int sum = 0;
    for (int i = 0; i < 16; i++) {
        ck_assert_msg(out[i] == in8[i], "ld.s8 at %d: %d, want %d", i, out[i], in8[i]);
        sum += in8[i];
    }
    for (int i = 0; i < 16; i++) {
        const float *v = &in4[i / 4].x;
        ck_assert_msg(out[16 + i] == (int)v[i % 4], "ld.v4.f32 component %d: %d", i, out[16 + i]);
    }
    ck_assert_int_eq(out[32], 6112); /* sum of 3t + 1, t < 64, through a generic pointer */
    ck_assert_int_eq(out[33], sum);  /* the same code reading global memory */
    ck_assert_int_eq(out[34], in8[in8[0] & 15] + in8[(in8[1] + 16) & 15]);
    ck_assert_uint_eq((uint32_t)out[35], 0x4321BEEFu);
    ck_assert_msg(out[36] == -1 && out[37] == -2,
                  "ld.global.s32 of -2 into a 64-bit register gave high word %d, low %d: it must "
                  "sign-extend",
                  out[36], out[37]);
    CUDA_CHECK(cudaFree(d8));
    CUDA_CHECK(cudaFree(d4));
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

/* Every shared-read pattern against the host, and a read past the end named as a fault. */
START_TEST(shared_reads_in_every_pattern)
{
    enum { N = 100, T = 80 };
    float in[N], out[8 * T], *din, *dout;
    for (int i = 0; i < N; i++)
        in[i] = (float)((i * 37) % 101 - 50);
    CUDA_CHECK(cudaMalloc((void **)&din, sizeof in));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dout, 0, sizeof out));
    ck_assert_int_eq(vm_shared_reads(din, dout, N, 0), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < T; t++) {
        const float *v = &in[4 * ((t * 3) % (N / 4))];
        float want[5] = {in[t], in[t / 32 * 7 + 3], in[(t * 13 + 5) % N],
                         v[0] + 2 * v[1] + 4 * v[2] + 8 * v[3], t % 3 ? in[N - 1 - t] : 0};
        for (int k = 0; k < 5; k++)
            ck_assert_msg(out[8 * t + k] == want[k], "thread %d, pattern %d: %g, want %g", t, k,
                          (double)out[8 * t + k], (double)want[k]);
        ck_assert_msg(!memcmp(&out[8 * t + 5], &in[2 * (t % 16)], 8),
                      "thread %d, ld.shared.v2 onto its own base: %g %g, want %g %g", t,
                      (double)out[8 * t + 5], (double)out[8 * t + 6], (double)in[2 * (t % 16)],
                      (double)in[2 * (t % 16) + 1]);
    }
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = vm_shared_reads(din, dout, N, 3);
    char *said = capture_end(&cap);
    ck_assert_msg(err == cudaErrorIllegalAddress, "read past the end: %s", cudaGetErrorName(err));
    capture_assert_at(said, TEST_VM_KERNELS, "FAULT_SMEM_READ",
                      "invalid shared read of 4 bytes at 0x198 (the block has 400 bytes");
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess); /* the fault is sticky until then */
    CUDA_CHECK(cudaFree(din));
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

/* A warp's global row, one word for all, and a row of vectors, against the host; a row that
 * runs past the end of its allocation is named as a fault at its first lane outside. */
START_TEST(global_rows_and_broadcasts)
{
    enum { N = 67, T = 64 };
    int in[N], in4[4 * T], out[T + 1], out4[4 * T], *din, *dout;
    int4 *din4, *dout4;
    for (int i = 0; i < N; i++)
        in[i] = (i * 37) % 101 - 50;
    for (int i = 0; i < 4 * T; i++)
        in4[i] = (i * 53) % 97 - 40;
    CUDA_CHECK(cudaMalloc((void **)&din, sizeof in));
    CUDA_CHECK(cudaMalloc((void **)&din4, sizeof in4));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMalloc((void **)&dout4, sizeof out4));
    CUDA_CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(din4, in4, sizeof in4, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_global_rows(din, din4, dout, dout4, N, 0), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(out4, dout4, sizeof out4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < T; t++) {
        ck_assert_msg(out[t] == in[t] + in[5], "thread %d: row plus one word %d, want %d", t,
                      out[t], in[t] + in[5]);
        for (int k = 0; k < 4; k++)
            ck_assert_msg(out4[4 * t + k] == in4[4 * t + 3 - k],
                          "thread %d, element %d of a vector row: %d, want %d", t, k,
                          out4[4 * t + k], in4[4 * t + 3 - k]);
    }
    ck_assert_msg(out[T] == 31, "one word stored by a warp: %d, want the last lane's, 31", out[T]);
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = vm_global_rows(din, din4, dout, dout4, N, 3);
    char *said = capture_end(&cap);
    ck_assert_msg(err == cudaErrorIllegalAddress, "row past the end: %s", cudaGetErrorName(err));
    capture_assert_at(said, TEST_VM_KERNELS, "FAULT_GLOBAL_ROW",
                      "invalid global read of 4 bytes at");
    ck_assert_msg(strstr(said, "(4 bytes past the end of a 268-byte allocation)"),
                  "the first lane outside, lane 29 of warp 1: %s", said);
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess); /* the fault is sticky until then */
    CUDA_CHECK(cudaFree(din));
    CUDA_CHECK(cudaFree(din4));
    CUDA_CHECK(cudaFree(dout));
    CUDA_CHECK(cudaFree(dout4));
}
END_TEST

START_TEST(atomics_under_contention)
{
    enum { T = 1024 };
    int init[7] = {0, 0, INT32_MAX, INT32_MIN, 0, 0, -1}, out[7], *d;
    float zero = 0.0f, f, *df;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof init));
    CUDA_CHECK(cudaMalloc((void **)&df, sizeof f));
    CUDA_CHECK(cudaMemcpy(d, init, sizeof init, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(df, &zero, sizeof f, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_atomics(d, df, T), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&f, df, sizeof f, cudaMemcpyDeviceToHost));
    ck_assert_int_eq(out[0], T * (T - 1) / 2);
    ck_assert_int_eq(out[1], -2 * T);
    ck_assert_int_eq(out[2], 1000 - (T - 1));
    ck_assert_int_eq(out[3], 3 * (T - 1));
    ck_assert_int_eq(out[4], T % 100); /* atomicInc wraps to 0 after 99 */
    ck_assert_int_eq(out[5], T);       /* every compare-and-swap retried until it won */
    ck_assert(out[6] >= 0 && out[6] < T);
    ck_assert(f == 0.5f * T);
    CUDA_CHECK(cudaFree(d));
    CUDA_CHECK(cudaFree(df));
}
END_TEST

START_TEST(cp_async_fills_with_zeros)
{
    uint32_t in[128], out[128], *din, *dout;
    for (int i = 0; i < 128; i++)
        in[i] = 0x01010101u * (uint32_t)(i + 1);
    CUDA_CHECK(cudaMalloc((void **)&din, sizeof in));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_cp_async(din, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 32; t++) {
        const uint8_t *got = (const uint8_t *)&out[4 * t], *src = (const uint8_t *)&in[4 * t];
        for (int b = 0; b < 16; b++)
            ck_assert_msg(got[b] == (b < t % 17 ? src[b] : 0),
                          "thread %d byte %d: %u (src_size %d)", t, b, got[b], t % 17);
    }
    CUDA_CHECK(cudaFree(din));
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

/* ---- warp level -------------------------------------------------------------------------------
 */

/* What shfl.sync gives lane @p l of a warp holding @p v[], by the ISA's rule (mode 0 up by 3,
 * 1 down by 5, 2 xor 6, 3 idx v % 37), for width @p width as the CUDA intrinsics encode it. */
static uint32_t shfl_ref(const uint32_t *v, int l, int mode, int width)
{
    uint32_t seg = (uint32_t)(32 - width), c = mode == 0 ? 0 : 31;
    int base = (int)((uint32_t)l & seg), max = (int)(((uint32_t)l & seg) | (c & ~seg)), j;
    switch (mode) {
    case 0:
        j = l - 3;
        return j >= max ? v[j] : v[l];
    case 1:
        j = l + 5;
        return j <= max ? v[j] : v[l];
    case 2:
        j = l ^ 6;
        return j <= max ? v[j] : v[l];
    default:
        j = base | (int)((v[l] % 37) & 31 & ~seg);
        return j <= max ? v[j] : v[l];
    }
}

START_TEST(shuffles_every_mode_and_width)
{
    uint32_t in[64], out[4 * 192], *din, *dout;
    for (int i = 0; i < 64; i++)
        in[i] = (uint32_t)(rnd64() >> 33);
    CUDA_CHECK(cudaMalloc((void **)&din, sizeof in));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_shuffles(din, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    static const int widths[3] = {8, 16, 32};
    for (int mode = 0; mode < 4; mode++)
        for (int w = 0; w < 3; w++)
            for (int t = 0; t < 64; t++) {
                uint32_t want = shfl_ref(in + (t & ~31), t & 31, mode, widths[w]);
                ck_assert_msg(out[mode * 192 + w * 64 + t] == want,
                              "shuffle mode %d width %d thread %d: %u, want %u", mode, widths[w], t,
                              out[mode * 192 + w * 64 + t], want);
            }
    CUDA_CHECK(cudaFree(din));
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

START_TEST(votes_matches_reductions)
{
    uint32_t in[64], out[8 * 64], *din, *dout;
    for (int i = 0; i < 64; i++)
        in[i] = i < 32 ? (uint32_t)(rnd64() >> 40) : (uint32_t)(2 * (i % 3) + 1); /* warp 1: odd */
    CUDA_CHECK(cudaMalloc((void **)&din, sizeof in));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_votes(din, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; t++) {
        const uint32_t *v = in + (t & ~31), *o = out + 8 * t;
        uint32_t ballot = 0, same5 = 0, sum = 0, max = 0;
        int same2 = 1;
        for (int l = 0; l < 32; l++) {
            ballot |= (v[l] & 1) << l;
            same5 |= (uint32_t)(v[l] % 5 == v[t & 31] % 5) << l;
            same2 &= v[l] % 2 == v[0] % 2;
            sum += v[l];
            max = v[l] > max ? v[l] : max;
        }
        uint32_t want[8] = {ballot == 0xFFFFFFFFu,   ballot != 0,     ballot, same5,
                            same2 ? 0xFFFFFFFFu : 0, (uint32_t)same2, sum,    max};
        for (int k = 0; k < 8; k++)
            ck_assert_msg(o[k] == want[k], "thread %d result %d: 0x%08x, want 0x%08x", t, k, o[k],
                          want[k]);
    }
    CUDA_CHECK(cudaFree(din));
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

/* ---- what CUB's device-wide algorithms compile to ---------------------------------------------
 */

/* prmt in every mode, bfe's sign extension and bfi at the edges: values worked out by hand from
 * the PTX ISA's tables (a's bytes are 00 11 22 33, b's 44 55 66 77, lowest first). */
START_TEST(prmt_bfe_bfi_by_hand)
{
    static const struct {
        const char *op;
        uint32_t a, b, c, want;
    } cases[] = {
        {"prmt.b32", 0x03020100u, 0x07060504u, 0x5140u, 0x05010400u},
        {"prmt.b32", 0x00007F80u, 0, 0x3218u, 0x00007FFFu}, /* selector 8: byte 0's sign */
        {"prmt.b32", 0x00007F80u, 0, 0x3299u, 0x00000000u}, /* selector 9: byte 1's sign */
        {"prmt.b32.f4e", 0x33221100u, 0x77665544u, 1, 0x44332211u},
        {"prmt.b32.b4e", 0x33221100u, 0x77665544u, 0, 0x55667700u},
        {"prmt.b32.b4e", 0x33221100u, 0x77665544u, 3, 0x00112233u},
        {"prmt.b32.rc8", 0x33221100u, 0x77665544u, 2, 0x22222222u},
        {"prmt.b32.ecl", 0x33221100u, 0x77665544u, 1, 0x33221111u},
        {"prmt.b32.ecr", 0x33221100u, 0x77665544u, 2, 0x22221100u},
        {"prmt.b32.rc16", 0x33221100u, 0x77665544u, 1, 0x33223322u},
        {"bfe.s32", 0x00000080u, 4, 4, 0xFFFFFFF8u}, /* the field's top bit is set */
        {"bfe.u32", 0x00000080u, 4, 4, 0x00000008u},
        {"bfe.s32", 0x80000000u, 28, 8, 0xFFFFFFF8u}, /* past bit 31: bit 31 is the sign */
        {"bfe.s32", 0x12345678u, 0, 0, 0},            /* no bits */
        {"bfe.s32", 0x80000000u, 40, 4, 0xFFFFFFFFu}, /* start past the word: all sign */
        {"bfe.u32", 0x80000000u, 40, 4, 0},
        {"bfe.s32", 0x00000040u, 6, 1, 0xFFFFFFFFu}, /* one bit, set */
        {"bfi.b32", 0x0000000Fu, 0xFFFF0000u, 8 << 8 | 4, 0xFFFF00F0u},
        {"bfi.b32", 0x000000FFu, 0, 8 << 8 | 28, 0xF0000000u},          /* cut at bit 31 */
        {"bfi.b32", 0x000000FFu, 0x12345678u, 0 << 8 | 4, 0x12345678u}, /* no bits */
    };
    enum { K = sizeof cases / sizeof *cases };
    for (int i = 0; i < K; i++) {
        uint32_t out;
        run32(cases[i].op, &cases[i].a, &cases[i].b, &cases[i].c, &out, 1);
        ck_assert_msg(out == cases[i].want, "%s(0x%08x, 0x%08x, 0x%x) = 0x%08x, want 0x%08x",
                      cases[i].op, cases[i].a, cases[i].b, cases[i].c, out, cases[i].want);
    }
}
END_TEST

/* 64-bit atomics and red from 64 threads, and compare-and-swap failing (nothing changes, the old
 * value comes back) before it succeeds, in global and shared memory. */
START_TEST(wide_atomics_red_and_failed_cas)
{
    unsigned long long u[6] = {0xFFFFFFFFull, 0, 5, 0x100000007ull, 1, 0x123456789ABCDEF0ull};
    uint32_t w[2] = {7, 100};
    unsigned long long r[9], *du, *dr;
    uint32_t *dw;
    CUDA_CHECK(cudaMalloc((void **)&du, sizeof u));
    CUDA_CHECK(cudaMalloc((void **)&dw, sizeof w));
    CUDA_CHECK(cudaMalloc((void **)&dr, sizeof r));
    CUDA_CHECK(cudaMemcpy(du, u, sizeof u, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dw, w, sizeof w, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_atomics_wide(du, dw, dr), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(u, du, sizeof u, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(w, dw, sizeof w, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(r, dr, sizeof r, cudaMemcpyDeviceToHost));
    const unsigned long long want_u[6] = {
        0x10000003Full,          /* 0xFFFFFFFF + 64: the carry reaches bit 32 */
        (unsigned long long)-63, /* min.s64 of 0, -1, ..., -63 */
        63ull << 40,             /* max.u64 of 5 and t << 40 */
        0xFFFFFFFF00000000ull,   /* the second cas.b64 swapped it in */
        1 + (64ull << 33),       /* red.add.u64 */
        ~0ull};                  /* exch.b64 */
    for (int i = 0; i < 6; i++)
        ck_assert_msg(u[i] == want_u[i], "u[%d] = 0x%llx, want 0x%llx", i, u[i], want_u[i]);
    ck_assert_msg(w[0] == 9 && w[1] == 292, "w = {%u, %u}, want {9, 292} (cas, red.add.u32)", w[0],
                  w[1]);
    /* cas.b32 fails (7 != 5), then swaps; the shared cas fails; red.shared adds 64 * 2; cas.b64
     * fails on the high word, then swaps; exch returns the old value; thread 0's atom.min came
     * first (the emulator runs atomics in lane order). */
    const unsigned long long want_r[9] = {
        7, 7, 40, 168, 40, 0x100000007ull, 0x100000007ull, 0x123456789ABCDEF0ull, 0};
    for (int i = 0; i < 9; i++)
        ck_assert_msg(r[i] == want_r[i], "result %d = 0x%llx, want 0x%llx", i, r[i], want_r[i]);
    CUDA_CHECK(cudaFree(du));
    CUDA_CHECK(cudaFree(dw));
    CUDA_CHECK(cudaFree(dr));
}
END_TEST

/* redux.sync in every op over v = lane^2 - 40, match.any.sync.b64 and a ballot of half a warp. */
START_TEST(redux_match_ballot_by_hand)
{
    uint32_t out[72], *dout;
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    ck_assert_int_eq(vm_redux_match(dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    /* sum of l^2 for l < 32 is 10416, less 32 * 40; lane 0 is the least signed (-40), lane 31 the
     * largest (921); as unsigned, lane 7's 9 is the least and lane 6's -4 the largest. and, or
     * and xor of the 32 words, worked out once on paper and checked in Python. */
    const uint32_t want[8] = {9136, (uint32_t)-40, 921,        9, 0xFFFFFFFCu,
                              0,    0xFFFFFFFDu,   0xFFFFFE00u};
    static const char *const ops[8] = {"add.s32", "min.s32", "max.s32", "min.u32",
                                       "max.u32", "and.b32", "or.b32",  "xor.b32"};
    for (int k = 0; k < 8; k++)
        ck_assert_msg(out[k] == want[k], "redux.sync.%s = 0x%08x, want 0x%08x", ops[k], out[k],
                      want[k]);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t same = 0x49249249u << (l % 3); /* lanes 0, 3, 6, ... shifted by l % 3 */
        ck_assert_msg(out[8 + l] == same, "match.any.sync.b64 lane %u: 0x%08x, want 0x%08x", l,
                      out[8 + l], same);
        uint32_t ballot = l & 1 ? 0xAAAA0000u : 0; /* odd lanes above 16 */
        ck_assert_msg(out[40 + l] == ballot, "vote.ballot lane %u: 0x%08x, want 0x%08x", l,
                      out[40 + l], ballot);
    }
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

/* bar.red: every thread of three warps gets the block's count, and, or. */
START_TEST(barrier_reductions)
{
    uint32_t out[5 * 96], *dout;
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    ck_assert_int_eq(vm_bar_red(dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    /* 32 of 96 threads have t % 3 == 0; thread 40 breaks the first and; thread 95 makes the
     * first or; every thread has t < 96 and none t > 95. */
    static const uint32_t want[5] = {32, 0, 1, 1, 0};
    static const char *const what[5] = {"count(t %% 3 == 0)", "and(t != 40)", "or(t == 95)",
                                        "and(t < 96)", "or(t > 95)"};
    for (int t = 0; t < 96; t++)
        for (int k = 0; k < 5; k++)
            ck_assert_msg(out[5 * t + k] == want[k], "__syncthreads_%s in thread %d: %u, want %u",
                          what[k], t, out[5 * t + k], want[k]);
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

/* CUB's look-back: a block waits, with acquire loads and __nanosleep, for a flag an earlier block
 * released after its data. Waiting for a later block instead is a deadlock, reported at the
 * loop, never a hang. The verdict is one thread's (blocks one at a time, in order): with more,
 * the later block may release the waiter first, as it may on a GPU where both are resident. */
START_TEST(look_back_waits_only_for_earlier_blocks)
{
    setenv("COURSE_EMU_THREADS", "1", 1); /* before the first call starts the device */
    uint32_t *flag, *data, *dout, out[64];
    CUDA_CHECK(cudaMalloc((void **)&flag, 4));
    CUDA_CHECK(cudaMalloc((void **)&data, 8));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemset(flag, 0, 4));
    ck_assert_int_eq(vm_look_back(flag, data, dout, 1), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (uint32_t t = 0; t < 64; t++)
        ck_assert_msg(out[t] == 12 + 22 * t, "block 1 thread %u read %u, want %u", t, out[t],
                      12 + 22 * t);
    CUDA_CHECK(cudaMemset(flag, 0, 4));
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = vm_look_back(flag, data, dout, 0);
    char *said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorLaunchFailure);
    capture_assert_at(said, TEST_VM_KERNELS, "__nanosleep(100);", "deadlock");
    const char *nl = strchr(said, '\n');
    ck_assert_msg(strstr(said, "look_back_kernel") && strstr(said, "block (0,0,0)") &&
                      strstr(said, "blocks before it") && nl && !nl[1],
                  "not one line naming the kernel, block 0 and why: %s", said);
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
}
END_TEST

/* A block may wait for a later block that runs on another thread, however long that block
 * takes and however the host schedules the threads (CUB's onesweep sort hands tiles out by
 * atomicAdd, so block 1 may hold the tile block 0 waits for): no deadlock while a block moves.
 * Before the grid-wide test, block 0 was reported within a few thousand trips of its loop. */
START_TEST(wait_for_a_running_later_block)
{
    enum { WORK = 200003 };
    setenv("COURSE_EMU_THREADS", "2", 1); /* before the first call starts the device */
    uint32_t *flag, *dout, out[64], want = 1;
    for (int i = 0; i < WORK; i++)
        want += (uint32_t)(i % 7);
    CUDA_CHECK(cudaMalloc((void **)&flag, 4));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    for (int run = 0; run < 3; run++) {
        CUDA_CHECK(cudaMemset(flag, 0, 4));
        ck_assert_int_eq(vm_late_release(flag, dout, WORK), cudaSuccess);
        CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
        for (uint32_t t = 0; t < 64; t++)
            ck_assert_msg(out[t] == want + t, "run %d: block 0 thread %u read %u, want %u", run, t,
                          out[t], want + t);
    }
    CUDA_CHECK(cudaMemset(flag, 0, 4));
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = vm_late_release(flag, dout, -1);
    char *said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorLaunchFailure);
    capture_assert_at(said, TEST_VM_KERNELS, "\"=r\"(got)", "deadlock");
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
}
END_TEST

/* mbarrier_kernel's sums for block @p b, thread @p t, against which the GPU's are checked. */
static int mbarrier_sum(const int *in, int b, int t, int n, int phases)
{
    int sum = 0;
    for (int p = 0; p < phases; p++)
        sum += in[((size_t)b * phases + p) * n + (t + 1 + p) % n];
    return sum;
}

/* cuda::barrier's arrive-wait (mbarrier): 3 blocks of 97 threads pass 12 phases by token and
 * by parity, then the odd warps leave with arrive_drop and the even ones pass two more;
 * each thread's sums equal the CPU's and the first arrive's pending counts are 0 .. 96 once
 * each. An arrive on an object never initialised fails with one line, never a hang. */
START_TEST(mbarrier_phases)
{
    enum { B = 3, N = 97, P = 5 };
    int in[B * P * N], out[B * N], *din, *dout;
    unsigned pend[B * N], *dpend;
    for (int i = 0; i < B * P * N; i++)
        in[i] = (int)(rnd64() % 2001) - 1000;
    CUDA_CHECK(cudaMalloc((void **)&din, sizeof in));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMalloc((void **)&dpend, sizeof pend));
    CUDA_CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_mbarrier(din, dout, dpend, B, N, P, 1), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(pend, dpend, sizeof pend, cudaMemcpyDeviceToHost));
    for (int b = 0; b < B; b++) {
        unsigned seen[N] = {0};
        for (int t = 0; t < N; t++) {
            int want = mbarrier_sum(in, b, t, N, P) * (t / 32 & 1 ? -1 : 1);
            ck_assert_msg(out[b * N + t] == want,
                          "%s:%d: block %d thread %d of %d: sum %d, want %d", __FILE__, __LINE__, b,
                          t, N, out[b * N + t], want);
            ck_assert_msg(pend[b * N + t] < N && !seen[pend[b * N + t]]++,
                          "%s:%d: block %d thread %d: pending count %u twice or past %d", __FILE__,
                          __LINE__, b, t, pend[b * N + t], N - 1);
        }
    }
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = vm_mbarrier(din, dout, dpend, 1, 33, 1, 0);
    char *said = capture_end(&cap);
    ck_assert_int_ne(err, cudaSuccess);
    capture_assert_at(said, TEST_VM_KERNELS, "mbarrier.arrive.shared::cta.b64 %0, [%1];",
                      "mbarrier.init has not initialised");
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
}
END_TEST

/* COURSE_EMU_SCHEDULE=seed:N: each block's warps take their turns in an order drawn from N and
 * the block, so a race on shared memory changes the answer from block to block (the forward
 * schedule's is always the last warp), and the same seed gives the same answers again, on any
 * number of threads. */
START_TEST(seeded_schedule_changes_a_race)
{
    enum { BLOCKS = 61 };
    setenv("COURSE_EMU_SCHEDULE", "seed:7", 1); /* before the first call starts the device */
    setenv("COURSE_EMU_THREADS", "2", 1);
    int *d, first[BLOCKS], again[BLOCKS], last = 0;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof first));
    ck_assert_int_eq(vm_warp_race(d, BLOCKS), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(first, d, sizeof first, cudaMemcpyDeviceToHost));
    ck_assert_int_eq(vm_warp_race(d, BLOCKS), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(again, d, sizeof again, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++) {
        ck_assert_msg(first[b] >= 0 && first[b] < 8 && first[b] == again[b],
                      "block %d of %d: winners %d then %d under seed:7", b, BLOCKS, first[b],
                      again[b]);
        last += first[b] == 7;
    }
    ck_assert_msg(last < BLOCKS / 2, "%d of %d blocks' races were won by the last warp", last,
                  BLOCKS);
    CUDA_CHECK(cudaFree(d));
}
END_TEST

/* ---- control ----------------------------------------------------------------------------------
 */

START_TEST(divergent_lanes_reconverge)
{
    enum { T = 96 };
    int trips[T], out[T], acc[T], *dt, *dout;
    for (int t = 0; t < T; t++) {
        trips[t] = (int)(rnd64() % 61);
        int a = 0;
        for (int i = 0; i < trips[t]; i++) {
            if (i % 3 == 1)
                continue;
            if (a > 40 + t)
                break;
            a += (t & 1) ? i : 2 * i;
        }
        if (t % 4 == 0)
            a = 3 * a - (t % 8 == 0 ? 7 : 0);
        else if (t % 4 == 1)
            a += 11;
        acc[t] = a;
    }
    CUDA_CHECK(cudaMalloc((void **)&dt, sizeof trips));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemcpy(dt, trips, sizeof trips, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_divergence(dt, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < T; t++) {
        int sum = 0;
        for (int l = 0; l < 32; l++)
            sum += acc[(t & ~31) + l];
        ck_assert_msg(out[t] == sum + t, "thread %d: %d, want %d", t, out[t], sum + t);
    }
    CUDA_CHECK(cudaFree(dt));
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

START_TEST(warp_sync_waits_for_lanes_elsewhere)
{
    enum { N = 1031 };
    static float in[N];
    float *din;
    int *dcount;
    for (int i = 0; i < N; i++)
        in[i] = (float)(rnd64() % 1000) / 1000.0f;
    CUDA_CHECK(cudaMalloc((void **)&din, sizeof in));
    CUDA_CHECK(cudaMalloc((void **)&dcount, sizeof(int)));
    CUDA_CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
    const int sizes[] = {1, 31, 33, 193, N};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int want = 0, got = -1;
        for (int i = 0; i < sizes[k]; i++)
            want += in[i] > 0.5f;
        CUDA_CHECK(cudaMemset(dcount, 0, sizeof(int)));
        ck_assert_int_eq(vm_warp_sync_waits(din, sizes[k], dcount), cudaSuccess);
        CUDA_CHECK(cudaMemcpy(&got, dcount, sizeof got, cudaMemcpyDeviceToHost));
        ck_assert_msg(got == want, "n = %d: counted %d above 0.5, want %d", sizes[k], got, want);
    }
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = vm_warp_sync_never_met(dcount);
    char *said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorNotSupported);
    capture_assert_at(said, TEST_VM_KERNELS, "WARP_SYNC_NEVER_MET",
                      "lanes 0x0000ffff named in the mask 0xffffffff wait at a barrier");
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
    cudaFree(din), cudaFree(dcount);
}
END_TEST

START_TEST(clocks_advance_in_every_lane)
{
    unsigned long long out[4 * 64], *dout;
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemset(dout, 0xA5, sizeof out)); /* a lane never written shows */
    ck_assert_int_eq(vm_clocks(dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; t++) {
        const unsigned long long *o = out + 4 * t;
        /* 100 trips of a loop of a few instructions: the emulation's clock counts issues */
        ck_assert_msg(o[1] > o[0] && o[1] - o[0] >= 100 && o[1] - o[0] < 100000,
                      "thread %d: clock64() went from %llu to %llu", t, o[0], o[1]);
        /* clock() is read just after clock64() each time: a few issues apart */
        ck_assert_msg(o[3] - o[2] + 16 > o[1] - o[0] && o[3] - o[2] < o[1] - o[0] + 16,
                      "thread %d: clock() advanced by %llu, clock64() by %llu", t, o[3] - o[2],
                      o[1] - o[0]);
    }
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

START_TEST(barriers_in_loops_and_named)
{
    int v[128], ring[128], out[128], *dout;
    for (int t = 0; t < 128; t++)
        v[t] = t;
    for (int step = 0; step < 5; step++) {
        memcpy(ring, v, sizeof v);
        for (int t = 0; t < 128; t++)
            v[t] = ring[(t + 1) % 128] + step;
    }
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    ck_assert_int_eq(vm_barriers(dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 128; t++) {
        int want = v[t] + v[t < 64 ? 63 - t : 191 - t];
        ck_assert_msg(out[t] == want, "thread %d: %d, want %d", t, out[t], want);
    }
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

START_TEST(faults_name_kernel_and_line)
{
    static const struct {
        const char *marker, *what;
        cudaError_t err;
    } faults[] = {
        {"FAULT_PAST_END", "4 bytes past the end of a 64-byte allocation", cudaErrorIllegalAddress},
        {"FAULT_MISALIGNED", "misaligned global read of 16 bytes", cudaErrorMisalignedAddress},
        {"FAULT_SHARED", "the block has 128 bytes of shared memory", cudaErrorIllegalAddress},
        {"FAULT_FREED", "freed", cudaErrorIllegalAddress},
    };
    for (int k = 0; k < 4; k++) {
        float *buf;
        CUDA_CHECK(cudaMalloc((void **)&buf, 16 * sizeof(float)));
        if (k == 3)
            CUDA_CHECK(cudaFree(buf));
        struct capture cap;
        capture_begin(&cap, 2);
        cudaError_t err = vm_fault(k, buf, 16);
        char *said = capture_end(&cap);
        ck_assert_msg(err == faults[k].err, "fault %d: %s, want %s", k, cudaGetErrorName(err),
                      cudaGetErrorName(faults[k].err));
        capture_assert_at(said, TEST_VM_KERNELS, faults[k].marker, faults[k].what);
        ck_assert_msg(strstr(said, "fault_kernel"), "the kernel is not named: %s", said);
        free(said);
        ck_assert_int_eq(cudaDeviceReset(), cudaSuccess); /* the fault is sticky until then */
        if (k != 3)
            CUDA_CHECK(cudaFree(buf));
    }
}
END_TEST

START_TEST(deadlock_trap_assert_unsupported)
{
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = vm_deadlock();
    char *said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorLaunchFailure);
    ck_assert_msg(strstr(said, "deadlock") && strstr(said, "barrier 1: 32 of 64"), "%s", said);
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
    capture_begin(&cap, 2);
    err = vm_trap();
    said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorLaunchFailure);
    ck_assert_msg(strstr(said, "trap") && strstr(said, "thread (3,0,0)"), "%s", said);
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
    capture_begin(&cap, 1);
    err = vm_assert();
    said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorAssert);
    ck_assert_msg(strstr(said, "thread: [40,0,0] Assertion `threadIdx.x < 40` failed."), "%s",
                  said);
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
    uint32_t *d;
    CUDA_CHECK(cudaMalloc((void **)&d, 4 * sizeof *d));
    CUDA_CHECK(cudaMemset(d, 0, 4 * sizeof *d));
    capture_begin(&cap, 2);
    err = vm_unsupported(d);
    said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorNotSupported);
    capture_assert_at(said, TEST_VM_KERNELS, "dp4a.u32.u32", "dp4a.u32.u32");
    free(said);
}
END_TEST

START_TEST(printf_formats)
{
    struct capture cap;
    capture_begin(&cap, 1);
    cudaError_t err = vm_printf();
    char *said = capture_end(&cap);
    ck_assert_int_eq(err, cudaSuccess);
    ck_assert_msg(strstr(said, "int -42 uint 42 hex ff ll -1234567890123 float 2.500 str ok "
                               "char Z pct %\n"),
                  "printed: %s", said);
    free(said);
}
END_TEST

/* ---- tensor cores ------------------------------------------------------------------------------
 */

/* D = A * B + C in fp32, k in order (the products of these inputs are exact). */
static void gemm_ref(int M, int N_, int K, const float *A, const float *B, const float *C, float *D)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N_; j++) {
            float acc = C[i * N_ + j];
            for (int k = 0; k < K; k++)
                acc += A[i * K + k] * B[k * N_ + j];
            D[i * N_ + j] = acc;
        }
}

START_TEST(wmma_tiles)
{
    /* type 0 f16 (B row-major, B column-major, f16 accumulator), 1 bf16, 2 tf32 */
    static const int cases[][3] = {{0, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {2, 0, 0}};
    float A[256], B[256], Bmem[256], C[256], D[256], want[256], *d[4];
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaMalloc((void **)&d[i], sizeof A));
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int type = cases[c][0], b_col = cases[c][1], half = cases[c][2], K = type == 2 ? 8 : 16;
        for (int i = 0; i < 256; i++) {
            /* tf32 inputs carry a 2^-11 part the tensor core's 10-bit mantissa drops */
            float tail = type == 2 && (i % 3) ? 0x1p-11f : 0.0f;
            A[i] = (float)(i * 7 % 11) - 5.0f + tail;
            B[i] = (float)(i * 5 % 7) * 0.5f - 1.5f + tail;
            C[i] = (float)(i % 9) - 4.0f;
        }
        float At[256], Bt[256];
        for (int i = 0; i < 256; i++) { /* what the tensor core reads */
            At[i] = type == 2 ? bitsf(fbits(A[i]) & ~0x1FFFu) : A[i];
            Bt[i] = type == 2 ? bitsf(fbits(B[i]) & ~0x1FFFu) : B[i];
        }
        gemm_ref(16, 16, K, At, Bt, C, want);
        for (int k = 0; k < K; k++) /* B as the kernel loads it */
            for (int n = 0; n < 16; n++)
                Bmem[b_col ? n * K + k : k * 16 + n] = B[k * 16 + n];
        CUDA_CHECK(cudaMemcpy(d[0], A, sizeof A, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d[1], Bmem, sizeof Bmem, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d[2], C, sizeof C, cudaMemcpyHostToDevice));
        ck_assert_int_eq(vm_wmma(type, b_col, half, d[0], d[1], d[2], d[3]), cudaSuccess);
        CUDA_CHECK(cudaMemcpy(D, d[3], sizeof D, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 256; i++)
            ck_assert_msg(D[i] == want[i], "wmma case %zu: D[%d][%d] = %g, want %g", c, i / 16,
                          i % 16, D[i], want[i]);
    }
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaFree(d[i]));
}
END_TEST

START_TEST(wmma_alignment_rules)
{
    /* 24 rows of 32 f16 values 0..7: a tile at (row 0 or 1, element 0 or 8), any ldm <= 32. */
    uint16_t A[24 * 32];
    for (int i = 0; i < 24 * 32; i++)
        A[i] = ref_f32_to_f16((float)(i % 8));
    uint16_t *dA;
    float *dD;
    CUDA_CHECK(cudaMalloc((void **)&dA, sizeof A));
    CUDA_CHECK(cudaMalloc((void **)&dD, 256 * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_wmma_stride(dA + 16, 24, dD), cudaSuccess); /* 32 bytes in, 48-byte rows */
    static const struct {
        int offset, ldm;
        const char *what;
    } bad[] = {{8, 24, "the address 0x"}, {0, 20, "row stride (20 elements, 40 bytes)"}};
    for (int k = 0; k < 2; k++) {
        struct capture cap;
        capture_begin(&cap, 2);
        cudaError_t err = vm_wmma_stride(dA + bad[k].offset, bad[k].ldm, dD);
        char *said = capture_end(&cap);
        ck_assert_msg(err == cudaErrorMisalignedAddress, "case %d: %s", k, cudaGetErrorName(err));
        capture_assert_at(said, TEST_VM_KERNELS, "WMMA_ALIGNMENT", bad[k].what);
        free(said);
        ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
    }
    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dD));
}
END_TEST

/*
 * The register layouts of mma.sync's m16n8k* fragments, as the PTX ISA tabulates them
 * ("Matrix Fragments for mma.m16n8k16 / k8 / k4"): element i of lane l, with
 * g = l / 4 (groupID) and t = l % 4 (threadID_in_group).
 */
static void frag_a(int shape, int i, int l, int *row, int *col)
{
    int g = l / 4, t = l % 4;
    if (shape == 0) { /* f16/bf16 k16: a0..a7 */
        *row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
        *col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    } else { /* tf32 k8: a0..a3; k4: a0, a1 */
        *row = (i == 0 || i == 2) ? g : g + 8;
        *col = i < 2 ? t : t + 4;
    }
}

static void frag_b(int shape, int i, int l, int *row, int *col)
{
    int g = l / 4, t = l % 4;
    *row = shape == 0 ? t * 2 + (i & 1) + (i >= 2 ? 8 : 0) : (i == 0 ? t : t + 4);
    *col = g;
}

static void frag_c(int i, int l, int *row, int *col)
{
    *row = i < 2 ? l / 4 : l / 4 + 8;
    *col = (l % 4) * 2 + (i & 1);
}

START_TEST(mma_sync_documented_layouts)
{
    /* shape 0 m16n8k16 (f16, then bf16), 1 m16n8k8 tf32, 2 m16n8k4 tf32 */
    static const int cases[][2] = {{0, 0}, {0, 1}, {1, 2}, {2, 2}};
    uint32_t a[128], b[64], c[128], d[128], *dev[4];
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaMalloc((void **)&dev[i], sizeof a));
    for (size_t cs = 0; cs < sizeof cases / sizeof *cases; cs++) {
        int shape = cases[cs][0], type = cases[cs][1], K = shape == 0 ? 16 : shape == 1 ? 8 : 4;
        int per_a = shape == 0   ? 8
                    : shape == 1 ? 4
                                 : 2,
            per_b = shape == 0   ? 4
                    : shape == 1 ? 2
                                 : 1;
        float A[16 * 16], B[16 * 8], C[16 * 8], want[16 * 8];
        for (int i = 0; i < 16 * K; i++)
            A[i] = (float)(i * 7 % 13) - 6.0f;
        for (int i = 0; i < K * 8; i++)
            B[i] = (float)(i * 3 % 5) - 2.0f;
        for (int i = 0; i < 128; i++)
            C[i] = (float)(i % 7);
        gemm_ref(16, 8, K, A, B, C, want);
        memset(a, 0, sizeof a);
        memset(b, 0, sizeof b);
        for (int l = 0; l < 32; l++) {
            for (int i = 0; i < per_a; i++) {
                int r, col;
                frag_a(shape, i, l, &r, &col);
                float v = A[r * K + col];
                if (shape == 0) /* two 16-bit elements a register, the first in the low half */
                    a[4 * l + i / 2] |= (uint32_t)(type ? ref_f32_to_bf16(v) : ref_f32_to_f16(v))
                                        << (16 * (i & 1));
                else
                    a[4 * l + i] = fbits(v);
            }
            for (int i = 0; i < per_b; i++) {
                int r, col;
                frag_b(shape, i, l, &r, &col);
                float v = B[r * 8 + col];
                if (shape == 0)
                    b[2 * l + i / 2] |= (uint32_t)(type ? ref_f32_to_bf16(v) : ref_f32_to_f16(v))
                                        << (16 * (i & 1));
                else
                    b[2 * l + i] = fbits(v);
            }
            for (int i = 0; i < 4; i++) {
                int r, col;
                frag_c(i, l, &r, &col);
                c[4 * l + i] = fbits(C[r * 8 + col]);
            }
        }
        CUDA_CHECK(cudaMemcpy(dev[0], a, sizeof a, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dev[1], b, sizeof b, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(dev[2], c, sizeof c, cudaMemcpyHostToDevice));
        ck_assert_int_eq(vm_mma(shape, type, dev[0], dev[1], dev[2], dev[3]), cudaSuccess);
        CUDA_CHECK(cudaMemcpy(d, dev[3], sizeof d, cudaMemcpyDeviceToHost));
        for (int l = 0; l < 32; l++)
            for (int i = 0; i < 4; i++) {
                int r, col;
                frag_c(i, l, &r, &col);
                ck_assert_msg(bitsf(d[4 * l + i]) == want[r * 8 + col],
                              "mma case %zu: lane %d d%d (row %d col %d) = %g, want %g", cs, l, i,
                              r, col, bitsf(d[4 * l + i]), want[r * 8 + col]);
            }
    }
    for (int i = 0; i < 4; i++)
        CUDA_CHECK(cudaFree(dev[i]));
}
END_TEST

START_TEST(ldmatrix_documented_layout)
{
    uint16_t m[4 * 64], *dm;
    uint32_t out[256], *dout;
    for (int i = 0; i < 256; i++)
        m[i] = (uint16_t)(i * 41 + 3);
    CUDA_CHECK(cudaMalloc((void **)&dm, sizeof m));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemcpy(dm, m, sizeof m, cudaMemcpyHostToDevice));
    ck_assert_int_eq(vm_ldmatrix(dm, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 32; l++)
        for (int i = 0; i < 4; i++) {
            /* Register i of lane l: row l / 4, columns 2 (l % 4) and one more, of matrix i. */
            const uint16_t *mi = m + 64 * i;
            int r = l / 4, c = 2 * (l % 4);
            uint32_t plain = mi[r * 8 + c] | (uint32_t)mi[r * 8 + c + 1] << 16;
            uint32_t trans = mi[c * 8 + r] | (uint32_t)mi[(c + 1) * 8 + r] << 16;
            ck_assert_msg(out[4 * l + i] == plain, "ldmatrix lane %d reg %d: 0x%08x, want 0x%08x",
                          l, i, out[4 * l + i], plain);
            ck_assert_msg(out[128 + 4 * l + i] == trans,
                          "ldmatrix.trans lane %d reg %d: 0x%08x, want 0x%08x", l, i,
                          out[128 + 4 * l + i], trans);
        }
    CUDA_CHECK(cudaFree(dm));
    CUDA_CHECK(cudaFree(dout));
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"integer_instructions", integer_instructions, CASE_GPU, 120},
        {"fp32_instructions_every_rounding_mode", fp32_instructions_every_rounding_mode, CASE_GPU,
         120},
        {"approximations_within_their_bounds", approximations_within_their_bounds, CASE_GPU, 60},
        {"fast_math_forms_within_their_bounds", fast_math_forms_within_their_bounds, CASE_GPU, 60},
        {"sixty_four_bit_instructions", sixty_four_bit_instructions, CASE_GPU, 120},
        {"f16_conversions_at_every_boundary", f16_conversions_at_every_boundary, CASE_GPU, 120},
        {"bf16_and_tf32_conversions", bf16_and_tf32_conversions, CASE_GPU, 120},
        {"integer_float_conversions", integer_float_conversions, CASE_GPU, 60},
        {"half_and_bfloat_arithmetic", half_and_bfloat_arithmetic, CASE_GPU, 60},
        {"memory_spaces_and_widths", memory_spaces_and_widths, CASE_GPU, 60},
        {"shared_reads_in_every_pattern", shared_reads_in_every_pattern, CASE_GPU, 60},
        {"global_rows_and_broadcasts", global_rows_and_broadcasts, CASE_GPU, 60},
        {"atomics_under_contention", atomics_under_contention, CASE_GPU, 60},
        {"cp_async_fills_with_zeros", cp_async_fills_with_zeros, CASE_GPU, 60},
        {"shuffles_every_mode_and_width", shuffles_every_mode_and_width, CASE_GPU, 60},
        {"votes_matches_reductions", votes_matches_reductions, CASE_GPU, 60},
        {"prmt_bfe_bfi_by_hand", prmt_bfe_bfi_by_hand, CASE_GPU, 60},
        {"wide_atomics_red_and_failed_cas", wide_atomics_red_and_failed_cas, CASE_GPU, 60},
        {"redux_match_ballot_by_hand", redux_match_ballot_by_hand, CASE_GPU, 60},
        {"barrier_reductions", barrier_reductions, CASE_GPU, 60},
        {"look_back_waits_only_for_earlier_blocks", look_back_waits_only_for_earlier_blocks,
         CASE_GPU, 20},
        {"wait_for_a_running_later_block", wait_for_a_running_later_block, CASE_GPU, 60},
        {"mbarrier_phases", mbarrier_phases, CASE_GPU, 60},
        {"seeded_schedule_changes_a_race", seeded_schedule_changes_a_race, CASE_GPU, 20},
        {"divergent_lanes_reconverge", divergent_lanes_reconverge, CASE_GPU, 60},
        {"warp_sync_waits_for_lanes_elsewhere", warp_sync_waits_for_lanes_elsewhere, CASE_GPU, 60},
        {"clocks_advance_in_every_lane", clocks_advance_in_every_lane, CASE_GPU, 60},
        {"barriers_in_loops_and_named", barriers_in_loops_and_named, CASE_GPU, 60},
        {"faults_name_kernel_and_line", faults_name_kernel_and_line, CASE_GPU, 60},
        {"deadlock_trap_assert_unsupported", deadlock_trap_assert_unsupported, CASE_GPU, 60},
        {"printf_formats", printf_formats, CASE_GPU, 60},
        {"wmma_tiles", wmma_tiles, CASE_GPU | CASE_SM80, 60},
        {"wmma_alignment_rules", wmma_alignment_rules, CASE_GPU | CASE_SM80, 60},
        {"mma_sync_documented_layouts", mma_sync_documented_layouts, CASE_GPU | CASE_SM80, 60},
        {"ldmatrix_documented_layout", ldmatrix_documented_layout, CASE_GPU | CASE_SM80, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
