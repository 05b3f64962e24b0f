/**
 * @file test_wgmma.c
 * @brief sm_90a's warpgroup MMA on the emulator, against the host: wgmma.mma_async at N = 8, 16,
 *        24, 48, 64, 136, 224 and 256 with A from registers and from shared-memory descriptors,
 *        with no swizzle and the 32-, 64- and 128-byte swizzles, K-major and MN-major (the
 *        transposes), a base offset, f16, bf16, tf32, e4m3 and e5m2 (mixed too) inputs, f16 and
 *        f32 accumulators, s8 and u8 into s32 (wrapping and .satfinite), b1 .and.popc, negation
 *        and scale-d; a small GEMM of plain loads, wgmma and a 2-block cluster, with and without
 *        double buffering; what racecheck reports of its planted bugs; wgmma's counters; and
 *        every refusal.
 *
 * The host writes the operands into a shared-memory image by the PTX ISA's canonical layouts,
 * taken as it states them (CuTe shapes and strides in elements, then Swizzle<s, 4, 3> on the byte
 * offset; "Shared Memory Matrix Layout"; 8-bit elements 16 to a 16-byte row of a core matrix, b1
 * 128, low bit first), and reads the register fragments by its figures for wgmma .m64nNk16,
 * .m64nNk32 and .m64nNk256 (warp w of the warpgroup holds rows 16 w .. 16 w + 15). A 128-byte
 * swizzled tile is also laid out by the CUDA C++ Programming Guide's TMA swizzle instead, and
 * read in four k-steps by advancing the descriptors 32 bytes at a time, as TMA pipelines do.
 * Inputs are small integers (fp8: multiples of 1/8 below 4; s8 and u8 over their range), so
 * every sum is exact and compared with ==, the s32 ones wrapped or clamped as the PTX ISA says.
 *
 * CTest runs it with the emulator's libraries first on LD_LIBRARY_PATH, GPU or not.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "emu.h"
#include "mat.h"
#include "ref.h"
#include "test_wgmma.h"

/* ---- operands ---------------------------------------------------------------------------------
 */

/* A small integer in [-3, 3] for element @p i of operand @p which (non-uniform, exact in every
 * input type). */
static int small(int which, int i)
{
    return (int)((unsigned)(i * 2654435761u + (unsigned)which * 40503u) >> 16) % 7 - 3;
}

/* The raw bits of integer @p v as input type @p in (0 f16, 1 bf16, 2 tf32; tf32 with low bits
 * set that the tensor core must not read). */
static uint32_t raw_of(int in, int v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return in == 0 ? ref_f32_to_f16(f) : in == 1 ? ref_f32_to_bf16(f) : u | (v ? 0x0FFFu : 0);
}

/* The bits of @p v in e4m3 (@p e5m2 0: exponent bias 7, 3 mantissa bits) or e5m2 (bias 15, 2
 * bits): sign, biased exponent, mantissa (PTX ISA, "Alternate Floating Point Data Formats"; the
 * values here are all normal). */
static uint32_t fp8_bits(double v, int e5m2)
{
    int mbits = e5m2 ? 2 : 3, e = 0;
    double a = v < 0 ? -v : v;
    if (a == 0)
        return 0;
    for (; a >= 2; a /= 2)
        e++;
    for (; a < 1; a *= 2)
        e--;
    double man = (a - 1) * (1 << mbits);
    ck_assert_msg(man == (int)man, "%g is not exact in %s", v, e5m2 ? "e5m2" : "e4m3");
    return (v < 0 ? 0x80u : 0) | (uint32_t)(e + (e5m2 ? 15 : 7)) << mbits | (uint32_t)man;
}

/* Bits of an element of each input type (enum wg_in). */
static const int in_bits[] = {16, 16, 32, 8, 8, 8, 8, 1};

/*
 * Element @p i of operand @p which (1 A, 2 B) of input type @p in: its raw bits, its value in *v.
 * 16- and 32-bit types: small(); fp8: a value of the format's in [-3.5, 3.5], some with the
 * last mantissa bit set, or with @p coarse a multiple of 1/2 up to 3, whose sums an f16
 * accumulator holds exactly; s8: any, or of sign @p sg when it is not 0; u8: any; b1: a bit.
 */
static uint32_t elem(int in, int which, int i, int sg, int coarse, double *v)
{
    static const double e4m3[] = {0, 0.5, 0.75, 1, 1.125, 1.5, 1.75, 2, 2.25, 3, 3.5},
                        e5m2[] = {0, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5},
                        halves[] = {0, 0.5, 1, 1.5, 2, 3};
    unsigned h = (unsigned)(i * 2654435761u + (unsigned)which * 40503u) >> 8;
    int x = (int)(h % 256);
    switch (in) {
    case WG_IN_E4M3:
    case WG_IN_E5M2:
        *v = coarse ? halves[h % 6] : in == WG_IN_E4M3 ? e4m3[h % 11] : e5m2[h % 11];
        *v = h & 0x100 ? -*v : *v;
        return fp8_bits(*v, in == WG_IN_E5M2);
    case WG_IN_S8:
        x -= 128;
        x = sg > 0 && x < 0 ? -(x + 1) : sg < 0 && x > 0 ? -x : x;
        *v = x;
        return (uint32_t)x & 0xFF;
    case WG_IN_U8:
        *v = x;
        return (uint32_t)x;
    case WG_IN_B1:
        *v = x & 1;
        return (uint32_t)x & 1;
    default:
        *v = small(which, i);
        return raw_of(in, small(which, i));
    }
}

/* Swizzle modes as the descriptor encodes them, and their widths. */
enum { SW_NONE, SW_32, SW_64, SW_128 };
static const int sw_code[4] = {0, 3, 2, 1}, sw_bits[4] = {0, 1, 2, 3};

/*
 * The byte offset from the layout's start of element (mn, k) of an operand of @p e-byte
 * elements, by the PTX ISA's canonical layouts ("Canonical Layouts", T elements per 16 bytes,
 * w = 2^s 16-byte chunks per swizzled row, LBO and SBO in elements):
 *   K-major, none:      ((8,m),(T,2k)):((1T,SBO),(1,LBO))
 *   K-major, swizzled:  ((8,m),(T,2k)):((wT,SBO),(1,T))
 *   MN-major, none:     ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
 *   MN-major, swizzled: ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))
 * then Swizzle<s, 4, 3> of the byte offset: bits 7 .. 7 + s XORed into bits 4 .. 4 + s.
 */
static uint32_t canonical(int sw, int mn_major, int e, uint32_t lbo, uint32_t sbo, int mn, int k)
{
    int T = 16 / e, s = sw_bits[sw], w = 1 << s;
    long L = (long)lbo / e, S = (long)sbo / e, off;
    if (!mn_major && sw == SW_NONE)
        off = (mn % 8) * T + (mn / 8) * S + k % T + (k / T) * L;
    else if (!mn_major)
        off = (mn % 8) * (w * T) + (mn / 8) * S + k % T + (k / T) * T;
    else if (sw == SW_NONE)
        off = mn % T + (mn / T) * S + (k % 8) * T + (k / 8) * L;
    else
        off = mn % T + (mn / T % w) * T + (mn / (T * w)) * L + (k % 8) * (w * T) + (k / 8) * S;
    uint32_t b = (uint32_t)(off * e);
    return b ^ ((b >> 7) & ((1u << s) - 1)) << 4;
}

/* One operand in shared memory: its layout and where it starts in the image. */
struct operand {
    int sw, mn_major;
    uint32_t start, lbo, sbo, base;
};

/* Compact (gap 0) or interleaved strides (gap 1: another layout's parts between) for an operand
 * of @p rows along M or N, K 32 bytes deep. */
static struct operand layout(int sw, int mn_major, int e, int rows, uint32_t start, int gap)
{
    int T = 16 / e, W = 16 << sw_bits[sw];
    struct operand o = {sw, mn_major, start, 0, 0, 0};
    if (!mn_major && sw == SW_NONE) /* 128-byte core matrices: k chunks LBO apart, 8 rows SBO */
        o.lbo = gap ? 128 : (uint32_t)(rows / 8 * 128), o.sbo = gap ? 256 : 128;
    else if (!mn_major) /* rows W apart, 8-row atoms SBO apart; LBO unused ("assumed 1") */
        o.lbo = 16, o.sbo = (uint32_t)(gap ? 16 * W : 8 * W);
    else if (sw == SW_NONE) /* core matrices of T along MN by 8 k rows */
        o.sbo = gap ? 256 : 128, o.lbo = gap ? 128 : (uint32_t)((rows + T - 1) / T * 128);
    else { /* rows of W bytes along MN, 8 k rows to an atom; MN blocks LBO apart, k groups SBO */
        int blocks = (rows * e + W - 1) / W;
        o.lbo = (uint32_t)(gap ? 16 * W : 8 * W), o.sbo = (uint32_t)(gap ? 8 * W : blocks * 8 * W);
    }
    return o;
}

static uint64_t descriptor(const struct operand *o)
{
    return (o->start & 0x3FFFFu) >> 4 | (uint64_t)((o->lbo & 0x3FFFFu) >> 4) << 16 |
           (uint64_t)((o->sbo & 0x3FFFFu) >> 4) << 32 | (uint64_t)o->base << 49 |
           (uint64_t)sw_code[o->sw] << 62;
}

/* Write element (mn, k) = raw of an operand of @p bits-bit elements into the image: b1's eight
 * to a byte along K, bit k % 8 (the byte laid out as an 8-bit element's). */
static void place(uint8_t *image, const struct operand *o, int bits, int mn, int k, uint32_t raw)
{
    int e = bits < 8 ? 1 : bits / 8, per = 8 * e / bits;
    uint32_t at = o->start + canonical(o->sw, o->mn_major, e, o->lbo, o->sbo, mn, k / per);
    ck_assert_msg(at + (uint32_t)e <= WG_SMEM, "the image overflows at %u", at);
    if (per > 1)
        image[at] |= (uint8_t)((raw & 1) << (k % per));
    else
        memcpy(image + at, &raw, (size_t)e);
}

/* ---- fragments --------------------------------------------------------------------------------
 */

/* Where element i of thread t's accumulator sits: PTX ISA, "Matrix Fragments for
 * wgmma.mma_async.m64nNk16" (Figure 149), the same for k8. */
static void d_pos(int t, int i, int *row, int *col)
{
    int w = t / 32, l = t % 32;
    *row = 16 * w + l / 4 + 8 * (i / 2 % 2);
    *col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
}

/* Where element i of thread t's A fragment sits, @p per elements to a register: 2 of 16 bits
 * (Figure 148, m64nNk16), 4 of 8 bits (m64nNk32), 32 of b1 (m64nNk256). Register r = i / per
 * holds row l / 4 of the warp's 16, + 8 for odd r, columns per (l % 4) .. per (l % 4) + per - 1,
 * 4 per further on for r = 2 and 3. */
static void a_pos(int t, int i, int per, int *row, int *col)
{
    int w = t / 32, l = t % 32, r = i / per;
    *row = 16 * w + l / 4 + 8 * (r % 2);
    *col = per * (l % 4) + i % per + 4 * per * (r / 2);
}

/* @p bits-bit element i of registers r (32 / bits to a register, low first). */
static void put(uint32_t *r, int bits, int i, uint32_t v)
{
    int per = 32 / bits;
    r[i / per] |= (v & (uint32_t)((1ull << bits) - 1)) << (bits * (i % per));
}

static uint32_t get16(const uint32_t *r, int i)
{
    return (r[i / 2] >> (16 * (i % 2))) & 0xFFFF;
}

/* The sign of the integers of row @p m of A or column m of B of type @p in (0: either): s8 ones
 * are positive, negative or either as m % 4 is 1, 3 or else; u8 and b1 are never negative. D's
 * element (m, n) has products of one sign when both of these are not 0. */
static int line_sign(int in, int m)
{
    return in != WG_IN_S8 ? 1 : m % 4 == 1 ? 1 : m % 4 == 3 ? -1 : 0;
}

/* ---- counters --------------------------------------------------------------------------------
 */

/* Counting on or off for the launches that follow (emu.h's extension, found in the emulator's
 * runtime). */
static void counting(int on)
{
    void (*set_counting)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "course_emu_set_counting");
    ck_assert(set_counting);
    set_counting(on);
}

/* The one launch counted since the last call. */
static struct course_emu_launch counted_launch(void)
{
    int (*take)(struct course_emu_launch *, int) =
        (int (*)(struct course_emu_launch *, int))dlsym(RTLD_DEFAULT, "course_emu_take_launches");
    ck_assert(take);
    struct course_emu_launch got;
    ck_assert_int_eq(take(&got, 1), 1);
    return got;
}

/* ---- one wgmma against the host -----------------------------------------------------------------
 */

/* A run of kernel @p kernel: A (when from shared memory) and B laid out as given, @p steps
 * times with the descriptors advancing by @p adv, scale-d @p scale; its D against the host's.
 * An s32 D starts near its limit where every product of the element has one sign (so that it
 * overflows, in whatever order the products are added), with small values elsewhere; it must
 * wrap, or with .satfinite clamp (PTX ISA, wgmma.mma_async's integer forms). Returns how many
 * elements overflowed. */
static int check_run(int kernel, const struct operand *oa, const struct operand *ob, int steps,
                     const uint64_t adv[2], int scale, const char *what)
{
    struct wg_shape s = wg_shape(kernel);
    int N = s.n, K = s.k, nd = s.d == WG_D_F16 ? N / 4 : N / 2, ints = s.d >= WG_D_S32;
    int abits = in_bits[s.in], bbits = in_bits[s.in_b], coarse = s.d == WG_D_F16, over = 0;
    uint8_t *image = calloc(WG_SMEM, 1);
    uint32_t *a = calloc(128 * 4, 4), *d = calloc((size_t)128 * nd, 4);
    uint32_t *rawA = malloc((size_t)64 * K * sizeof *rawA);
    double *A = malloc((size_t)64 * K * sizeof *A), *B = malloc((size_t)K * N * sizeof *B);
    double *want = malloc((size_t)64 * N * sizeof *want);
    ck_assert(image && a && d && rawA && A && B && want);
    for (int m = 0; m < 64; m++)
        for (int k = 0; k < K; k++) {
            rawA[m * K + k] = elem(s.in, 1, m * K + k, line_sign(s.in, m), coarse, &A[m * K + k]);
            if (!s.a_regs)
                place(image, oa, abits, m, k, rawA[m * K + k]);
        }
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++) {
            uint32_t raw = elem(s.in_b, 2, k * N + n, line_sign(s.in_b, n), coarse, &B[k * N + n]);
            place(image, ob, bbits, n, k, raw);
        }
    for (int t = 0; t < 128; t++) {
        for (int i = 0; i < K / 2 && s.a_regs; i++) {
            int r, c;
            a_pos(t, i, 32 / abits, &r, &c);
            put(&a[4 * t], abits, i, rawA[r * K + c]);
        }
        for (int i = 0; i < N / 2; i++) {
            int r, c, v = small(3, t * N + i); /* the accumulator's first value */
            d_pos(t, i, &r, &c);
            int sg = ints ? line_sign(s.in, r) * line_sign(s.in_b, c) : 0;
            int64_t c0 = sg > 0 ? INT32_MAX - 8 * (v + 3) : sg < 0 ? INT32_MIN + 8 * (v + 3) : v;
            want[r * N + c] = scale ? (double)c0 : 0;
            if (s.d == WG_D_F16)
                put(&d[nd * t], 16, i, ref_f32_to_f16((float)v));
            else
                d[nd * t + i] = ints ? (uint32_t)c0 : raw_of(WG_IN_TF32, v) & ~0x0FFFu;
        }
    }
    for (int m = 0; m < 64; m++)
        for (int n = 0; n < N; n++) {
            double *w = &want[m * N + n];
            for (int k = 0; k < K; k++)
                *w += (double)steps * (s.neg_a ? -1 : 1) * A[m * K + k] * (s.neg_b ? -1 : 1) *
                      B[k * N + n];
            over += ints && (*w > INT32_MAX || *w < INT32_MIN);
            if (ints && s.d == WG_D_S32_SAT)
                *w = *w > INT32_MAX ? INT32_MAX : *w < INT32_MIN ? INT32_MIN : *w;
            else if (ints) /* wrapped to 32 bits */
                *w = (double)(int32_t)(uint32_t)(int64_t)*w;
        }
    void *d_image;
    uint32_t *d_a, *d_d;
    CUDA_CHECK(cudaMalloc(&d_image, WG_SMEM));
    CUDA_CHECK(cudaMalloc((void **)&d_a, 128 * 4 * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_d, (size_t)128 * nd * 4));
    CUDA_CHECK(cudaMemcpy(d_image, image, WG_SMEM, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_a, a, 128 * 4 * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_d, d, (size_t)128 * nd * 4, cudaMemcpyHostToDevice));
    uint64_t desc[2] = {s.a_regs ? 0 : descriptor(oa), descriptor(ob)};
    CUDA_CHECK(wg_run(kernel, d_image, WG_SMEM, d_a, d_d, desc, adv, steps, scale));
    CUDA_CHECK(cudaMemcpy(d, d_d, (size_t)128 * nd * 4, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 128; t++)
        for (int i = 0; i < N / 2; i++) {
            int r, c;
            d_pos(t, i, &r, &c);
            float f;
            memcpy(&f, &d[nd * t + i], 4);
            double got = s.d == WG_D_F16 ? (double)ref_f16_to_f32((uint16_t)get16(&d[nd * t], i))
                         : ints          ? (double)(int32_t)d[nd * t + i]
                                         : (double)f;
            ck_assert_msg(got == (ints ? want[r * N + c] : (float)want[r * N + c]),
                          "%s (kernel %d, N = %d): D(%d, %d) = %.9g, want %.9g (thread %d, "
                          "element %d)",
                          what, kernel, N, r, c, got, want[r * N + c], t, i);
        }
    CUDA_CHECK(cudaFree(d_image));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_d));
    free(image), free(a), free(d), free(rawA), free(A), free(B), free(want);
    return over;
}

static const uint64_t no_adv[2] = {0, 0};

/* A from registers at N = 8, 24, 136, 256 (bf16) and 64 (f16); B K-major with no swizzle, its k
 * chunks and row groups interleaved; scale-d 1; two wgmmas chained on the same accumulators. */
START_TEST(a_in_registers_at_several_n)
{
    static const int kernels[] = {WG_REGS_N8, WG_REGS_N24, WG_REGS_N136, WG_REGS_N256, WG_REGS_F16};
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++) {
        struct wg_shape s = wg_shape(kernels[i]);
        struct operand ob = layout(SW_NONE, 0, 2, s.n, 16384, 1);
        check_run(kernels[i], NULL, &ob, 1, no_adv, 1, "A in registers");
        if (i == 1)
            check_run(kernels[i], NULL, &ob, 2, no_adv, 1, "two wgmmas on one accumulator");
    }
}
END_TEST

/* A and B from descriptors, K-major and MN-major each (the transposes), with no swizzle and the
 * 32-, 64- and 128-byte swizzles, compact and interleaved strides. */
START_TEST(descriptors_every_swizzle_and_major)
{
    static const int kernels[] = {WG_DESC_KK, WG_DESC_MK, WG_DESC_KM, WG_DESC_MM};
    for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++)
        for (int sw = SW_NONE; sw <= SW_128; sw++) {
            struct wg_shape s = wg_shape(kernels[i]);
            struct operand oa = layout(sw, s.trans_a, 2, 64, 0, 0);
            struct operand ob = layout(sw, s.trans_b, 2, s.n, 16384, 1);
            char what[80];
            snprintf(what, sizeof what, "swizzle %d bytes", sw == SW_NONE ? 0 : 16 << sw_bits[sw]);
            check_run(kernels[i], &oa, &ob, 1, no_adv, 1, what);
        }
    struct operand oa = layout(SW_128, 0, 2, 64, 0, 0), ob = layout(SW_128, 0, 2, 256, 16384, 0);
    check_run(WG_DESC_N256, &oa, &ob, 1, no_adv, 1, "f16, N = 256, 128-byte swizzle");
    oa = layout(SW_64, 1, 2, 64, 0, 0), ob = layout(SW_64, 1, 2, 8, 16384, 1);
    check_run(WG_DESC_N8, &oa, &ob, 1, no_adv, 1, "f16, N = 8, MN-major, 64-byte swizzle");
}
END_TEST

/* A 64 x 64 tile of A and B each, laid out as the CUDA C++ Programming Guide's 128-byte TMA
 * swizzle leaves it (element (r, c) in 16-byte chunk c / 8 XOR r % 8 of its 128-byte row), read
 * in four k-steps of 16 by advancing both descriptors' start addresses by 32 bytes; and B moved
 * to a pattern that starts 384 bytes past a 1024-byte boundary, with base offset 3. */
START_TEST(tma_tile_in_k_steps_and_base_offset)
{
    for (int shift = 0; shift <= 384; shift += 384) {
        uint8_t *image = calloc(WG_SMEM, 1);
        uint32_t *a = calloc(128 * 4, 4), *d = calloc(128 * 32, 4);
        ck_assert(image && a && d);
        uint32_t bstart = 16384 + (uint32_t)shift;
        for (int r = 0; r < 64; r++)
            for (int c = 0; c < 64; c++) {
                uint16_t va = (uint16_t)raw_of(1, small(1, r * 64 + c));
                uint16_t vb = (uint16_t)raw_of(1, small(2, r * 64 + c)); /* B(k = c, n = r) */
                uint32_t at = (uint32_t)(r * 128 + ((c / 8) ^ (r % 8)) * 16 + c % 8 * 2);
                memcpy(image + at, &va, 2);
                memcpy(image + bstart + at, &vb, 2);
            }
        struct operand oa = {SW_128, 0, 0, 16, 1024, 0}, ob = {SW_128, 0, bstart, 16, 1024, 0};
        ob.base = (bstart >> 7) & 7;
        void *d_image;
        uint32_t *d_a, *d_d;
        CUDA_CHECK(cudaMalloc(&d_image, WG_SMEM));
        CUDA_CHECK(cudaMalloc((void **)&d_a, 128 * 4 * 4));
        CUDA_CHECK(cudaMalloc((void **)&d_d, 128 * 32 * 4));
        CUDA_CHECK(cudaMemcpy(d_image, image, WG_SMEM, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemset(d_a, 0, 128 * 4 * 4));
        CUDA_CHECK(cudaMemset(d_d, 0, 128 * 32 * 4));
        uint64_t desc[2] = {descriptor(&oa), descriptor(&ob)}, adv[2] = {32 >> 4, 32 >> 4};
        CUDA_CHECK(wg_run(WG_DESC_KK, d_image, WG_SMEM, d_a, d_d, desc, adv, 4, 1));
        CUDA_CHECK(cudaMemcpy(d, d_d, 128 * 32 * 4, cudaMemcpyDeviceToHost));
        for (int t = 0; t < 128; t++)
            for (int i = 0; i < 32; i++) {
                int r, c;
                d_pos(t, i, &r, &c);
                double want = 0;
                for (int k = 0; k < 64; k++)
                    want += (double)small(1, r * 64 + k) * small(2, c * 64 + k);
                float got;
                memcpy(&got, &d[32 * t + i], 4);
                ck_assert_msg(got == (float)want, "base offset %u: D(%d, %d) = %g, want %g",
                              ob.base, r, c, got, want);
            }
        CUDA_CHECK(cudaFree(d_image));
        CUDA_CHECK(cudaFree(d_a));
        CUDA_CHECK(cudaFree(d_d));
        free(image), free(a), free(d);
    }
}
END_TEST

/* f16 accumulators; A and B negated (imm-scale -1) with scale-d 0, so D's first value is dropped;
 * tf32 inputs whose low 13 bits are set and must not be read. */
START_TEST(f16_accumulators_negation_scale_d_and_tf32)
{
    struct operand oa = layout(SW_32, 0, 2, 64, 0, 0), ob = layout(SW_64, 0, 2, 64, 16384, 1);
    check_run(WG_F16_ACC, &oa, &ob, 1, no_adv, 1, "f16 accumulators");
    ob = layout(SW_128, 0, 2, 32, 16384, 1);
    check_run(WG_NEGATED, &oa, &ob, 1, no_adv, 0, "negated, scale-d 0");
    oa = layout(SW_NONE, 0, 4, 64, 0, 1), ob = layout(SW_32, 0, 4, 32, 16384, 0);
    check_run(WG_TF32, &oa, &ob, 1, no_adv, 1, "tf32");
}
END_TEST

/* fp8 (PTX ISA, wgmma.mma_async's FP8 forms: K 32, no transposes): e4m3 with A in registers at
 * N = 8 (B K-major, no swizzle, interleaved) and from a descriptor at N = 256 (both 128-byte
 * swizzled); e5m2 A (negated) by e4m3 B and e4m3 A in registers by e5m2 B at N = 64 (64- and
 * 32-byte swizzles; two on one accumulator); f16 accumulators at N = 16 (B negated) and 256. Values
 * of both formats' exponents and mantissas: a conversion taken for the other format's, or an
 * element taken from another k, changes the sums. */
START_TEST(fp8_inputs_against_the_isa)
{
    struct operand ob = layout(SW_NONE, 0, 1, 8, 16384, 1);
    counting(1);
    check_run(WG_E4M3_REGS_N8, NULL, &ob, 1, no_adv, 1, "e4m3, A in registers, N = 8");
    counting(0);
    struct course_emu_launch got = counted_launch(); /* 2 M N K flops, all of 8-bit inputs */
    ck_assert_uint_eq(got.counters.wgmma_insts, 1);
    ck_assert_uint_eq(got.counters.wgmma_flops, 2 * 64 * 8 * 32);
    ck_assert_uint_eq(got.counters.wgmma_8bit_flops, 2 * 64 * 8 * 32);
    struct operand oa = layout(SW_128, 0, 1, 64, 0, 0);
    ob = layout(SW_128, 0, 1, 256, 16384, 0);
    check_run(WG_E4M3_DESC_N256, &oa, &ob, 1, no_adv, 1, "e4m3, N = 256, 128-byte swizzle");
    oa = layout(SW_64, 0, 1, 64, 0, 1), ob = layout(SW_64, 0, 1, 64, 16384, 0);
    check_run(WG_E5M2_E4M3_DESC, &oa, &ob, 1, no_adv, 1, "-e5m2 x e4m3, 64-byte swizzle");
    ob = layout(SW_32, 0, 1, 64, 16384, 1);
    check_run(WG_E4M3_E5M2_REGS, NULL, &ob, 2, no_adv, 1, "e4m3 x e5m2, two wgmmas");
    oa = layout(SW_NONE, 0, 1, 64, 0, 0), ob = layout(SW_32, 0, 1, 16, 16384, 0);
    check_run(WG_FP8_F16_DESC_N16, &oa, &ob, 1, no_adv, 1, "e5m2 x -e4m3 into f16");
    ob = layout(SW_128, 0, 1, 256, 16384, 0);
    check_run(WG_FP8_F16_REGS, NULL, &ob, 1, no_adv, 0, "e4m3 into f16, N = 256, scale-d 0");
}
END_TEST

/* s8 and u8 into s32 (K 32, scale-d alone): s8 by u8 at N = 64 from descriptors, wrapping and
 * with .satfinite; u8 A in registers by s8 B at N = 224 (the largest integer N) with
 * .satfinite; s8 by s8 at N = 8. Accumulators that start near the limits overflow (so that
 * wrapping and clamping differ), and the elements' signs matter (a u8 read as s8 changes them). */
START_TEST(int8_inputs_wrap_or_saturate)
{
    struct operand oa = layout(SW_128, 0, 1, 64, 0, 0), ob = layout(SW_128, 0, 1, 64, 16384, 1);
    ck_assert_int_gt(check_run(WG_S8_U8_DESC, &oa, &ob, 1, no_adv, 1, "s8 x u8, wrapping"), 0);
    ck_assert_int_gt(check_run(WG_S8_U8_SAT_DESC, &oa, &ob, 1, no_adv, 1, "s8 x u8, satfinite"), 0);
    ob = layout(SW_64, 0, 1, 224, 16384, 0);
    ck_assert_int_gt(check_run(WG_U8_S8_SAT_REGS, NULL, &ob, 1, no_adv, 1, "u8 x s8, N = 224"), 0);
    ob = layout(SW_NONE, 0, 1, 8, 16384, 1);
    check_run(WG_S8_S8_REGS_N8, NULL, &ob, 1, no_adv, 1, "s8 x s8, N = 8");
    check_run(WG_S8_S8_REGS_N8, NULL, &ob, 1, no_adv, 0, "s8 x s8, N = 8, scale-d 0");
}
END_TEST

/* b1 .and.popc (K 256): each element of D adds the count of k where A's and B's bits are both
 * 1; from descriptors at N = 48 (no swizzle, and 32-byte swizzle), A in registers at N = 256
 * (128-byte swizzle). Bits are read low first, eight to a byte along K. */
START_TEST(b1_and_popc_against_the_isa)
{
    struct operand oa = layout(SW_NONE, 0, 1, 64, 0, 1), ob = layout(SW_NONE, 0, 1, 48, 16384, 0);
    counting(1);
    check_run(WG_B1_DESC, &oa, &ob, 1, no_adv, 1, "b1, N = 48, no swizzle");
    counting(0);
    struct course_emu_launch got = counted_launch(); /* 1-bit: not 8-bit work */
    ck_assert_uint_eq(got.counters.wgmma_flops, 2 * 64 * 48 * 256);
    ck_assert_uint_eq(got.counters.wgmma_8bit_flops, 0);
    oa = layout(SW_32, 0, 1, 64, 0, 0), ob = layout(SW_32, 0, 1, 48, 16384, 1);
    check_run(WG_B1_DESC, &oa, &ob, 1, no_adv, 1, "b1, N = 48, 32-byte swizzle");
    ob = layout(SW_128, 0, 1, 256, 16384, 0);
    check_run(WG_B1_REGS_N256, NULL, &ob, 1, no_adv, 1, "b1, A in registers, N = 256");
}
END_TEST

/* ---- the GEMM -----------------------------------------------------------------------------------
 */

/* C = A B by wg_gemm() at M x N x K, against the host exactly; returns the number of wrong
 * elements (0 asserted unless @p may_differ). */
static int gemm_case(int M, int N, int K, int stages, int cluster, int bug, int may_differ)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    uint16_t *A = malloc(na * 2), *B = malloc(nb * 2);
    float *C = malloc(nc * 4);
    ck_assert(A && B && C);
    for (size_t i = 0; i < na; i++)
        A[i] = (uint16_t)raw_of(1, small(4, (int)i));
    for (size_t i = 0; i < nb; i++)
        B[i] = (uint16_t)raw_of(1, small(5, (int)i));
    uint16_t *d_a, *d_b;
    float *d_c;
    CUDA_CHECK(cudaMalloc((void **)&d_a, na * 2));
    CUDA_CHECK(cudaMalloc((void **)&d_b, nb * 2));
    CUDA_CHECK(cudaMalloc((void **)&d_c, nc * 4));
    CUDA_CHECK(cudaMemcpy(d_a, A, na * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, B, nb * 2, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_c, 0xFF, nc * 4));
    CUDA_CHECK(wg_gemm(d_a, d_b, d_c, M, N, K, stages, cluster, bug));
    CUDA_CHECK(cudaMemcpy(C, d_c, nc * 4, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double want = 0;
            for (int k = 0; k < K; k++)
                want += (double)small(4, m * K + k) * small(5, k * N + n);
            wrong += C[(size_t)m * N + n] != (float)want;
            ck_assert_msg(may_differ || C[(size_t)m * N + n] == (float)want,
                          "GEMM %d x %d x %d, %d stages, cluster %d: C(%d, %d) = %g, want %g", M, N,
                          K, stages, cluster, m, n, C[(size_t)m * N + n], want);
        }
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(A), free(B), free(C);
    return wrong;
}

/* One and two buffers, alone and in 2-block clusters, at sizes that are no tile multiples. */
START_TEST(gemm_plain_loads_wgmma_and_a_cluster)
{
    static const int sizes[][3] = {{1, 1, 1}, {200, 100, 129}, {128, 64, 64}, {257, 65, 200}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int stages = 1; stages <= 2; stages++)
            for (int cluster = 1; cluster <= 2; cluster++)
                gemm_case(sizes[i][0], sizes[i][1], sizes[i][2], stages, cluster, WG_CORRECT, 0);
}
END_TEST

/* Counted (emu.h's extension, found in the emulator's runtime): one wgmma instruction per
 * warpgroup per k-step, 2 x 64 x 64 x 16 flops each, none with copies in flight. */
START_TEST(gemm_counters)
{
    counting(1);
    gemm_case(200, 100, 129, 2, 2, WG_CORRECT, 0);
    counting(0);
    struct course_emu_launch got = counted_launch();
    /* 2 x 2 blocks (M tiles rounded up to the cluster), 2 warpgroups, 3 K tiles of 4 steps */
    uint64_t insts = 2 * 2 * 2 * 3 * 4;
    ck_assert_uint_eq(got.counters.wgmma_insts, insts);
    ck_assert_uint_eq(got.counters.wgmma_flops, insts * 2 * 64 * 64 * 16);
    ck_assert_uint_ge(got.counters.flops, got.counters.wgmma_flops);
    ck_assert_uint_eq(got.counters.wgmma_8bit_flops, 0); /* bf16 */
    /* plain loads, no bulk or tensor copy: nothing issued with copies in flight (lesson 12's
     * suite counts the TMA pipelines that have some) */
    ck_assert_uint_eq(got.counters.wgmma_overlapped_flops, 0);
}
END_TEST

/* A producer warp's copies meet the consumers' math: the consumer warpgroup waits for each slice's
 * wgmma to the end (wait_group 0) before it releases the stage, and the producer, woken by that
 * release, issues the next copy while the next slice's math runs (on a GPU, and here: a
 * wait_group lets the block's other warps run once before its operations run). Every slice but
 * the last counts as overlapped; before that rule, only the first did. */
START_TEST(producer_copies_overlap_a_wait_group_0)
{
    enum { SLICES = 7 };
    uint8_t *src;
    CUDA_CHECK(cudaMalloc((void **)&src, SLICES * 8192));
    CUDA_CHECK(cudaMemset(src, 0x3c, SLICES * 8192));
    counting(1);
    CUDA_CHECK(wg_producer_consumer(src, SLICES));
    counting(0);
    struct course_emu_launch got = counted_launch();
    uint64_t per_slice = 4 * 2 * 64 * 64 * 16;
    ck_assert_uint_eq(got.counters.wgmma_flops, SLICES * per_slice);
    ck_assert_msg(got.counters.wgmma_overlapped_flops == (SLICES - 1) * per_slice,
                  "%llu of %llu wgmma flops overlapped a copy; want every slice's but the last",
                  (unsigned long long)got.counters.wgmma_overlapped_flops,
                  (unsigned long long)got.counters.wgmma_flops);
    CUDA_CHECK(cudaFree(src));
}
END_TEST

/* Under every check: the correct GEMM reports nothing, nor does a warpgroup whose wgmma reads
 * what its own threads stored and fenced with no barrier (the warpgroup issues it together,
 * after them); without fence.proxy.async, racecheck names the tiles' stores and the wgmma;
 * without the barrier, the other warpgroup's stores; the accumulators read before the last
 * wait are named (and read too early); a wait one group short refills a buffer under a wgmma in
 * flight, which the answer shows. */
START_TEST(gemm_planted_bugs_under_checks)
{
    capture_checks_on();
    gemm_case(200, 100, 129, 2, 2, WG_CORRECT, 0);
    char *text = capture_reports();
    ck_assert_msg(!text[0], "the correct GEMM: expected no reports, got: %s", text);
    free(text);
    struct operand oa = layout(SW_128, 0, 2, 64, 0, 0), ob = layout(SW_128, 0, 2, 64, 16384, 1);
    check_run(WG_DESC_KK_OWN, &oa, &ob, 1, no_adv, 1, "a warpgroup's own stores, no barrier");
    text = capture_reports();
    ck_assert_msg(!text[0],
                  "a warpgroup's wgmma of its own fenced stores: expected no reports, "
                  "got: %s",
                  text);
    free(text);
    gemm_case(200, 100, 129, 2, 1, WG_NO_BARRIER, 1);
    text = capture_reports();
    capture_assert_at(text, TEST_WGMMA_KERNELS, "wg_load_store_marker", "no barrier between");
    free(text);
    gemm_case(200, 100, 129, 2, 2, WG_NO_FENCE, 0);
    text = capture_reports();
    capture_assert_at(text, TEST_WGMMA_KERNELS, "wg_load_store_marker",
                      "through the generic proxy by warp");
    ck_assert_msg(strstr(text, "with no fence.proxy.async between"), "%s", text);
    free(text);
    gemm_case(200, 100, 129, 2, 1, WG_EARLY_READ, 0); /* right: the VM waits where ptxas does */
    text = capture_reports();
    capture_assert_at(text, TEST_WGMMA_KERNELS, "wg_early_read_marker",
                      "before a wgmma.wait_group covers it");
    free(text);
    ck_assert_int_gt(gemm_case(200, 100, 200, 2, 1, WG_LATE_WAIT, 1), 0);
}
END_TEST

/* ---- refusals
 * ------------------------------------------------------------------------------------ */

/* Each refusal fails its launch with one line (cudaErrorNotSupported, or cudaErrorIllegalAddress
 * outside shared memory); a reset clears the sticky error. */
START_TEST(refusals)
{
    static const struct {
        int which;
        cudaError_t code;
        const char *why;
    } cases[] = {
        {WG_PART_OF_WARP, cudaErrorNotSupported,
         "wgmma.mma_async with part of the warp (lanes 0x0000ffff)"},
        {WG_THREE_WARPS, cudaErrorNotSupported, "is not whole: the block has 96 threads"},
        {WG_WARP_EXITS, cudaErrorNotSupported,
         "warp 3 of warpgroup 0 exited without issuing the wgmma.mma_async"},
        {WG_OTHER_MMA, cudaErrorNotSupported,
         "warps of warpgroup 0 issued different wgmma operations"},
        {WG_PAST_SMEM, cudaErrorIllegalAddress, "past the block's 4096 bytes of shared memory"},
        {WG_SPARSE, cudaErrorNotSupported, "wgmma.mma_async.sp (sparse A) is not emulated"},
        {WG_MAXNREG_MIXED, cudaErrorNotSupported, "executed different setmaxnreg instructions"},
        {WG_MAXNREG_LOWER, cudaErrorNotSupported,
         "setmaxnreg.inc to 40 registers, fewer than the 64"},
    };
    ck_assert_int_eq(sizeof cases / sizeof *cases, WG_REFUSALS);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        EXPECT_REFUSED_WITH(cases[i].code, wg_refusal(cases[i].which), cases[i].why);
        CUDA_CHECK(cudaDeviceReset());
    }
}
END_TEST

/* ---- clusters ----------------------------------------------------------------------------------
 */

/* cl_run (or cl_run_dims with @p dims_kernel) on @p grid of @p threads in clusters of @p c (zeros:
 * none given; @p d the clusters the launch has, 1 x 1 x 1 when none): each block's record against
 * the host's. */
static void check_clusters(int dims_kernel, dim3 grid, int threads, const unsigned c[3],
                           const unsigned d[3], int non_portable)
{
    size_t nblocks = (size_t)grid.x * grid.y * grid.z;
    unsigned *got = malloc(nblocks * CL_FIELDS * sizeof *got), *d_out;
    ck_assert(got != NULL);
    CUDA_CHECK(cudaMalloc((void **)&d_out, nblocks * CL_FIELDS * sizeof *got));
    CUDA_CHECK(cudaMemset(d_out, 0xFF, nblocks * CL_FIELDS * sizeof *got));
    CUDA_CHECK(dims_kernel ? cl_run_dims(d_out, grid, threads, c)
                           : cl_run(d_out, grid, threads, c, non_portable));
    CUDA_CHECK(cudaMemcpy(got, d_out, nblocks * CL_FIELDS * sizeof *got, cudaMemcpyDeviceToHost));
    unsigned n = d[0] * d[1] * d[2], g[3] = {grid.x, grid.y, grid.z}, electing = 0;
    for (int w = 0; w * 32 < threads; w++)
        electing += threads - 32 * w > 5; /* warps with lanes 5 .. : lane 5 is elected */
    for (size_t b = 0; b < nblocks; b++) {
        unsigned id[3] = {(unsigned)(b % g[0]), (unsigned)(b / g[0] % g[1]),
                          (unsigned)(b / ((size_t)g[0] * g[1]))};
        unsigned want[CL_FIELDS], *v = want;
        unsigned rank = id[0] % d[0] + d[0] * (id[1] % d[1] + d[1] * (id[2] % d[2]));
        *v++ = rank, *v++ = n;
        for (int i = 0; i < 3; i++)
            v[i] = id[i] % d[i], v[3 + i] = d[i], v[6 + i] = id[i] / d[i], v[9 + i] = g[i] / d[i];
        v += 12;
        *v++ = c[0] || dims_kernel;
        *v++ = (unsigned)threads * n * (n + 1) / 2, *v++ = n * electing * 6;
        *v++ = (unsigned)threads * n * (n + 1) / 2, *v++ = (rank + 1) % n;
        for (int i = 0; i < CL_FIELDS; i++)
            ck_assert_msg(got[b * CL_FIELDS + i] == want[i],
                          "grid %u x %u x %u in clusters of %u x %u x %u: block (%u, %u, %u), "
                          "field %d = %u, want %u",
                          g[0], g[1], g[2], d[0], d[1], d[2], id[0], id[1], id[2], i,
                          got[b * CL_FIELDS + i], want[i]);
    }
    CUDA_CHECK(cudaFree(d_out));
    free(got);
}

/* Clusters of 2 x 2 x 1, 3 x 1 x 1 and (non-portable) 3 x 3 x 1 by cudaLaunchKernelEx; none
 * (clusters of one block); and __cluster_dims__(2, 1, 1) by <<< >>>; blocks of 80 threads, so the
 * last warp is partial. */
START_TEST(cluster_registers_dsmem_and_barriers)
{
    static const unsigned none[3] = {0, 0, 0}, one[3] = {1, 1, 1}, pair[3] = {2, 1, 1};
    static const unsigned quad[3] = {2, 2, 1}, three[3] = {3, 1, 1}, nine[3] = {3, 3, 1};
    check_clusters(0, (dim3){4, 2, 3}, 80, quad, quad, 0);
    check_clusters(0, (dim3){6, 1, 1}, 80, three, three, 0);
    check_clusters(0, (dim3){3, 3, 1}, 80, nine, nine, 1);
    check_clusters(0, (dim3){5, 1, 1}, 80, none, one, 0);
    check_clusters(1, (dim3){4, 1, 1}, 80, none, pair, 0);
    struct cudaFuncAttributes attr;
    CUDA_CHECK(cl_dims_attributes(&attr));
    ck_assert_int_eq(attr.requiredClusterWidth, 2);
    ck_assert_int_eq(attr.requiredClusterHeight * attr.requiredClusterDepth, 1);
}
END_TEST

/* The occupancy of clusters: the most blocks a cluster may have (8, or the kernel's 2), and the
 * clusters that fit at once by the model (blocks per SM x 132 SMs / the cluster's blocks);
 * without cluster dimensions anywhere, cudaErrorInvalidClusterSize and one line. */
/* A cooperative launch in clusters runs: grid.sync() orders every cluster's writes before any
 * block reads another's, and each cluster's blocks share distributed shared memory; clusters of
 * 4 over 8 blocks and of 2 over 6, against the host. */
START_TEST(cooperative_launch_in_clusters)
{
    const int shapes[][2] = {{8, 4}, {6, 2}}; /* blocks, blocks per cluster */
    for (int s = 0; s < 2; s++) {
        int blocks = shapes[s][0], n = shapes[s][1];
        unsigned got[8], *d_scratch, *d_out;
        CUDA_CHECK(cudaMalloc((void **)&d_scratch, sizeof got));
        CUDA_CHECK(cudaMalloc((void **)&d_out, sizeof got));
        CUDA_CHECK(cl_run_cooperative(d_scratch, d_out, blocks, (unsigned)n));
        CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)blocks * sizeof *got, cudaMemcpyDeviceToHost));
        for (int b = 0; b < blocks; b++) {
            int rank = b % n, prev = b - rank + (rank + n - 1) % n;
            unsigned want = (unsigned)(blocks - 1 - prev) * 7 + 3;
            ck_assert_msg(got[b] == want,
                          "%d blocks in clusters of %d: block %d's counter is %u, not %u (block "
                          "%d's word, added by rank %d)",
                          blocks, n, b, got[b], want, blocks - 1 - prev, prev % n);
        }
        cudaFree(d_scratch), cudaFree(d_out);
    }
}
END_TEST

START_TEST(cluster_occupancy)
{
    static const unsigned quad[3] = {2, 2, 1}, none[3] = {0, 0, 0};
    int clusters = -1, most = -1, per_sm = -1;
    CUDA_CHECK(cl_occupancy(0, quad, 96, &clusters, &most, &per_sm));
    ck_assert_int_gt(per_sm, 0);
    ck_assert_int_eq(most, 8);
    ck_assert_int_eq(clusters, per_sm * 132 / 4);
    CUDA_CHECK(cl_occupancy(1, none, 96, &clusters, &most, &per_sm));
    ck_assert_int_eq(most, 2);
    ck_assert_int_eq(clusters, per_sm * 132 / 2);
    EXPECT_REFUSED_WITH(cudaErrorInvalidClusterSize,
                        cl_occupancy(0, none, 96, &clusters, &most, &per_sm),
                        "no cluster size in the configuration or the kernel");
}
END_TEST

/* Cluster shapes no launch may have (a grid not made of whole clusters, by the launch's or the
 * kernel's dimensions; 9 blocks without cudaFuncAttributeNonPortableClusterSizeAllowed; other
 * dimensions than __cluster_dims__): one line each and cudaErrorInvalidClusterSize. */
START_TEST(cluster_refusals)
{
    static const unsigned three[3] = {3, 1, 1}, nine[3] = {3, 3, 1}, four[3] = {4, 1, 1};
    static const unsigned none[3] = {0, 0, 0};
    unsigned *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_out, 16 * CL_FIELDS * sizeof *d_out));
    EXPECT_REFUSED_WITH(cudaErrorInvalidClusterSize, cl_run(d_out, (dim3){4, 1, 1}, 32, three, 0),
                        "not a whole number of clusters");
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidClusterSize);
    EXPECT_REFUSED_WITH(cudaErrorInvalidClusterSize, cl_run(d_out, (dim3){3, 3, 1}, 32, nine, 0),
                        "a cluster has at most 8 blocks");
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidClusterSize);
    EXPECT_REFUSED_WITH(cudaErrorInvalidClusterSize, cl_run_dims(d_out, (dim3){4, 1, 1}, 32, four),
                        "differ from the kernel's required ones");
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidClusterSize);
    EXPECT_REFUSED_WITH(cudaErrorInvalidClusterSize, cl_run_dims(d_out, (dim3){3, 1, 1}, 32, none),
                        "not a whole number of clusters"); /* <<< >>>: the launcher took it */
    CUDA_CHECK(cudaFree(d_out));
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"a_in_registers_at_several_n", a_in_registers_at_several_n, CASE_GPU, 120},
        {"descriptors_every_swizzle_and_major", descriptors_every_swizzle_and_major, CASE_GPU, 120},
        {"tma_tile_in_k_steps_and_base_offset", tma_tile_in_k_steps_and_base_offset, CASE_GPU, 60},
        {"f16_accumulators_negation_scale_d_and_tf32", f16_accumulators_negation_scale_d_and_tf32,
         CASE_GPU, 60},
        {"fp8_inputs_against_the_isa", fp8_inputs_against_the_isa, CASE_GPU, 60},
        {"int8_inputs_wrap_or_saturate", int8_inputs_wrap_or_saturate, CASE_GPU, 60},
        {"b1_and_popc_against_the_isa", b1_and_popc_against_the_isa, CASE_GPU, 60},
        {"gemm_plain_loads_wgmma_and_a_cluster", gemm_plain_loads_wgmma_and_a_cluster, CASE_GPU,
         240},
        {"gemm_counters", gemm_counters, CASE_GPU, 60},
        {"producer_copies_overlap_a_wait_group_0", producer_copies_overlap_a_wait_group_0, CASE_GPU,
         60},
        {"gemm_planted_bugs_under_checks", gemm_planted_bugs_under_checks, CASE_GPU, 240},
        {"refusals", refusals, CASE_GPU, 60},
        {"cluster_registers_dsmem_and_barriers", cluster_registers_dsmem_and_barriers, CASE_GPU,
         120},
        {"cluster_refusals", cluster_refusals, CASE_GPU, 60},
        {"cluster_occupancy", cluster_occupancy, CASE_GPU, 60},
        {"cooperative_launch_in_clusters", cooperative_launch_in_clusters, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
