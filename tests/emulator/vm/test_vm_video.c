/**
 * @file test_vm_video.c
 * @brief The PTX VM's video instructions (the SIMD vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4,
 *        vmin2/4, vmax2/4, vset2/4 and the scalar vadd, vsub, vabsdiff, vmin, vmax, vset,
 *        vshl, vshr and vmad) against a host reference written from the PTX ISA's pseudo-code,
 *        and CUDA's SIMD intrinsics that nvcc compiles to them.
 *
 * The random forms draw every modifier the ISA gives these instructions: the three types,
 * .sat, .add (.min, .max), vset's compare, the shifts' .clamp or .wrap, vmad's .po, .shr7,
 * .shr15 and negated operands, the destination's mask or merged part and both sources'
 * selectors. Inputs mix random bytes with the edges (0, 1, 0x7f, 0x80, 0x81, 0xfe, 0xff), and
 * a quarter of the b words are shift counts at the edges (0, 1, 31, 32, 33, 63, 255, 2^32-1).
 * The ISA leaves the width of vshl's result open; the reference keeps 34 bits, the video pipe's
 * (NVIDIA's SASS reference for VSHL): not measured on a GPU here.
 * The intrinsics' kernels (between #ifdef VM_CASE_KERNELS and #else) are compared with the
 * CUDA Math API's definition of each, per byte or half-word (__vabsdiffu4 and __vsads4 become
 * vabsdiff4, __vsadu4 its .add form; the others plain integer code), and the intrinsics of the
 * __v family (SIMD_INTRINSICS), compiled for sm_90, where nvcc 13 emits the packed
 * add/min/max.{s,u}16x2 (.relu), min/max.relu.s32 and neg.s16, with the definition of each.
 */
/* The SIMD intrinsics of CUDA's __v family (crt/device_functions.h; all but __vibmax/__vibmin,
 * whose max.s32/u32/s16x2/u16x2 and setp are among these): X(name, sources, elements,
 * signed, reference operation, its argument), in the order of the kernel's outputs. The
 * reference operations (enum simd_ref) are the CUDA Math API's definitions, per element. */
#define SIMD_INTRINSICS(X)                                                                         \
    X(__vabs2, 1, 2, 1, R_ABS, 0);                                                                 \
    X(__vabs4, 1, 4, 1, R_ABS, 0);                                                                 \
    X(__vabsss2, 1, 2, 1, R_ABS, 1);                                                               \
    X(__vabsss4, 1, 4, 1, R_ABS, 1);                                                               \
    X(__vneg2, 1, 2, 1, R_NEG, 0);                                                                 \
    X(__vneg4, 1, 4, 1, R_NEG, 0);                                                                 \
    X(__vnegss2, 1, 2, 1, R_NEG, 1);                                                               \
    X(__vnegss4, 1, 4, 1, R_NEG, 1);                                                               \
    X(__vabsdiffs2, 2, 2, 1, R_ABSDIFF, 0);                                                        \
    X(__vabsdiffs4, 2, 4, 1, R_ABSDIFF, 0);                                                        \
    X(__vabsdiffu2, 2, 2, 0, R_ABSDIFF, 0);                                                        \
    X(__vabsdiffu4, 2, 4, 0, R_ABSDIFF, 0);                                                        \
    X(__vadd2, 2, 2, 0, R_ADD, 0);                                                                 \
    X(__vadd4, 2, 4, 0, R_ADD, 0);                                                                 \
    X(__vaddss2, 2, 2, 1, R_ADD, 1);                                                               \
    X(__vaddss4, 2, 4, 1, R_ADD, 1);                                                               \
    X(__vaddus2, 2, 2, 0, R_ADD, 1);                                                               \
    X(__vaddus4, 2, 4, 0, R_ADD, 1);                                                               \
    X(__vsub2, 2, 2, 0, R_SUB, 0);                                                                 \
    X(__vsub4, 2, 4, 0, R_SUB, 0);                                                                 \
    X(__vsubss2, 2, 2, 1, R_SUB, 1);                                                               \
    X(__vsubss4, 2, 4, 1, R_SUB, 1);                                                               \
    X(__vsubus2, 2, 2, 0, R_SUB, 1);                                                               \
    X(__vsubus4, 2, 4, 0, R_SUB, 1);                                                               \
    X(__vavgs2, 2, 2, 1, R_AVG, 1);                                                                \
    X(__vavgs4, 2, 4, 1, R_AVG, 1);                                                                \
    X(__vavgu2, 2, 2, 0, R_AVG, 1);                                                                \
    X(__vavgu4, 2, 4, 0, R_AVG, 1);                                                                \
    X(__vhaddu2, 2, 2, 0, R_AVG, 0);                                                               \
    X(__vhaddu4, 2, 4, 0, R_AVG, 0);                                                               \
    X(__vmaxs2, 2, 2, 1, R_MAX, 0);                                                                \
    X(__vmaxs4, 2, 4, 1, R_MAX, 0);                                                                \
    X(__vmaxu2, 2, 2, 0, R_MAX, 0);                                                                \
    X(__vmaxu4, 2, 4, 0, R_MAX, 0);                                                                \
    X(__vmins2, 2, 2, 1, R_MIN, 0);                                                                \
    X(__vmins4, 2, 4, 1, R_MIN, 0);                                                                \
    X(__vminu2, 2, 2, 0, R_MIN, 0);                                                                \
    X(__vminu4, 2, 4, 0, R_MIN, 0);                                                                \
    X(__vsads2, 2, 2, 1, R_SAD, 0);                                                                \
    X(__vsads4, 2, 4, 1, R_SAD, 0);                                                                \
    X(__vsadu2, 2, 2, 0, R_SAD, 0);                                                                \
    X(__vsadu4, 2, 4, 0, R_SAD, 0);                                                                \
    X(__vcmpeq2, 2, 2, 0, R_EQ, 1);                                                                \
    X(__vcmpeq4, 2, 4, 0, R_EQ, 1);                                                                \
    X(__vcmpne2, 2, 2, 0, R_NE, 1);                                                                \
    X(__vcmpne4, 2, 4, 0, R_NE, 1);                                                                \
    X(__vcmpges2, 2, 2, 1, R_GE, 1);                                                               \
    X(__vcmpges4, 2, 4, 1, R_GE, 1);                                                               \
    X(__vcmpgeu2, 2, 2, 0, R_GE, 1);                                                               \
    X(__vcmpgeu4, 2, 4, 0, R_GE, 1);                                                               \
    X(__vcmpgts2, 2, 2, 1, R_GT, 1);                                                               \
    X(__vcmpgts4, 2, 4, 1, R_GT, 1);                                                               \
    X(__vcmpgtu2, 2, 2, 0, R_GT, 1);                                                               \
    X(__vcmpgtu4, 2, 4, 0, R_GT, 1);                                                               \
    X(__vcmples2, 2, 2, 1, R_LE, 1);                                                               \
    X(__vcmples4, 2, 4, 1, R_LE, 1);                                                               \
    X(__vcmpleu2, 2, 2, 0, R_LE, 1);                                                               \
    X(__vcmpleu4, 2, 4, 0, R_LE, 1);                                                               \
    X(__vcmplts2, 2, 2, 1, R_LT, 1);                                                               \
    X(__vcmplts4, 2, 4, 1, R_LT, 1);                                                               \
    X(__vcmpltu2, 2, 2, 0, R_LT, 1);                                                               \
    X(__vcmpltu4, 2, 4, 0, R_LT, 1);                                                               \
    X(__vseteq2, 2, 2, 0, R_EQ, 0);                                                                \
    X(__vseteq4, 2, 4, 0, R_EQ, 0);                                                                \
    X(__vsetne2, 2, 2, 0, R_NE, 0);                                                                \
    X(__vsetne4, 2, 4, 0, R_NE, 0);                                                                \
    X(__vsetges2, 2, 2, 1, R_GE, 0);                                                               \
    X(__vsetges4, 2, 4, 1, R_GE, 0);                                                               \
    X(__vsetgeu2, 2, 2, 0, R_GE, 0);                                                               \
    X(__vsetgeu4, 2, 4, 0, R_GE, 0);                                                               \
    X(__vsetgts2, 2, 2, 1, R_GT, 0);                                                               \
    X(__vsetgts4, 2, 4, 1, R_GT, 0);                                                               \
    X(__vsetgtu2, 2, 2, 0, R_GT, 0);                                                               \
    X(__vsetgtu4, 2, 4, 0, R_GT, 0);                                                               \
    X(__vsetles2, 2, 2, 1, R_LE, 0);                                                               \
    X(__vsetles4, 2, 4, 1, R_LE, 0);                                                               \
    X(__vsetleu2, 2, 2, 0, R_LE, 0);                                                               \
    X(__vsetleu4, 2, 4, 0, R_LE, 0);                                                               \
    X(__vsetlts2, 2, 2, 1, R_LT, 0);                                                               \
    X(__vsetlts4, 2, 4, 1, R_LT, 0);                                                               \
    X(__vsetltu2, 2, 2, 0, R_LT, 0);                                                               \
    X(__vsetltu4, 2, 4, 0, R_LT, 0);                                                               \
    X(__vimax_s32_relu, 2, 1, 1, R_MAX, 1);                                                        \
    X(__vimax_s16x2_relu, 2, 2, 1, R_MAX, 1);                                                      \
    X(__vimin_s32_relu, 2, 1, 1, R_MIN, 1);                                                        \
    X(__vimin_s16x2_relu, 2, 2, 1, R_MIN, 1);                                                      \
    X(__vimax3_s32, 3, 1, 1, R_MAX3, 0);                                                           \
    X(__vimax3_s32_relu, 3, 1, 1, R_MAX3, 1);                                                      \
    X(__vimax3_u32, 3, 1, 0, R_MAX3, 0);                                                           \
    X(__vimax3_s16x2, 3, 2, 1, R_MAX3, 0);                                                         \
    X(__vimax3_s16x2_relu, 3, 2, 1, R_MAX3, 1);                                                    \
    X(__vimax3_u16x2, 3, 2, 0, R_MAX3, 0);                                                         \
    X(__vimin3_s32, 3, 1, 1, R_MIN3, 0);                                                           \
    X(__vimin3_s32_relu, 3, 1, 1, R_MIN3, 1);                                                      \
    X(__vimin3_u32, 3, 1, 0, R_MIN3, 0);                                                           \
    X(__vimin3_s16x2, 3, 2, 1, R_MIN3, 0);                                                         \
    X(__vimin3_s16x2_relu, 3, 2, 1, R_MIN3, 1);                                                    \
    X(__vimin3_u16x2, 3, 2, 0, R_MIN3, 0);                                                         \
    X(__viaddmax_s32, 3, 1, 1, R_ADDMAX, 0);                                                       \
    X(__viaddmax_s32_relu, 3, 1, 1, R_ADDMAX, 1);                                                  \
    X(__viaddmax_u32, 3, 1, 0, R_ADDMAX, 0);                                                       \
    X(__viaddmax_s16x2, 3, 2, 1, R_ADDMAX, 0);                                                     \
    X(__viaddmax_s16x2_relu, 3, 2, 1, R_ADDMAX, 1);                                                \
    X(__viaddmax_u16x2, 3, 2, 0, R_ADDMAX, 0);                                                     \
    X(__viaddmin_s32, 3, 1, 1, R_ADDMIN, 0);                                                       \
    X(__viaddmin_s32_relu, 3, 1, 1, R_ADDMIN, 1);                                                  \
    X(__viaddmin_u32, 3, 1, 0, R_ADDMIN, 0);                                                       \
    X(__viaddmin_s16x2, 3, 2, 1, R_ADDMIN, 0);                                                     \
    X(__viaddmin_s16x2_relu, 3, 2, 1, R_ADDMIN, 1);                                                \
    X(__viaddmin_u16x2, 3, 2, 0, R_ADDMIN, 0);

#ifdef VM_CASE_KERNELS
extern "C" __global__ void intrinsics_kernel(const unsigned *a, const unsigned *b, unsigned *out,
                                             int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i];
    out[0 * n + i] = __vabsdiffu4(x, y);
    out[1 * n + i] = __vabsdiffs4(x, y);
    out[2 * n + i] = __vsadu4(x, y);
    out[3 * n + i] = __vsads4(x, y);
    out[4 * n + i] = __vabsdiffu2(x, y);
    out[5 * n + i] = __vavgu4(x, y);
    out[6 * n + i] = __vaddss4(x, y);
    out[7 * n + i] = __vsetgeu2(x, y);
}

/* Every intrinsic of SIMD_INTRINSICS on a, b (and c), one output row each. */
#define SIMD_CALL1(f) f(x)
#define SIMD_CALL2(f) f(x, y)
#define SIMD_CALL3(f) f(x, y, z)
#define SIMD_ROW(f, srcs, elems, sign, ref, arg) out[k++ * n + i] = SIMD_CALL##srcs(f)
extern "C" __global__ void every_intrinsic_kernel(const unsigned *a, const unsigned *b,
                                                  const unsigned *c, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, k = 0;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i], z = c[i];
    SIMD_INTRINSICS(SIMD_ROW);
}

extern "C" __global__ void scalar_video_kernel(unsigned *out)
{
    unsigned d;
    asm volatile("vshl.u32.u32.u32.clamp %0, %1, %2;" : "=r"(d) : "r"(out[0]), "r"(out[1]));
    out[2] = d;
}
#else
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "vm_case.h"

enum { THREADS = 256, FORMS = 24, ROUNDS = 40 };

/* One form of an instruction: what the PTX names, as text the reference reads too. */
struct form {
    int op;         /* 0 vadd, 1 vsub, 2 vavrg, 3 vabsdiff, 4 vmin, 5 vmax, 6 vset, 7 vshl,
                       8 vshr, 9 vmad */
    int width;      /* 1 (scalar), 2 or 4 elements */
    int sign[3];    /* d (not vset), a, b: 1 for .s32 */
    int sat, add;   /* .sat, .add (SIMD: never both) */
    int sec;        /* scalar: 0 none, 1 .add, 2 .min, 3 .max */
    int cmp;        /* vset: 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge */
    char mask[8];   /* d's mask (scalar: its merged part), "" for the default */
    char sel[2][8]; /* a's and b's, "" for the default */
    int wrap;       /* vshl, vshr: .wrap (else .clamp) */
    int po, neg;    /* vmad: .po; the operand negated: 0 none, 1 a, 2 b, 3 c */
    int scale;      /* vmad: 0 none, 1 .shr7, 2 .shr15 */
};

static const char *const op_names[] = {"vadd", "vsub", "vavrg", "vabsdiff", "vmin",
                                       "vmax", "vset", "vshl",  "vshr",     "vmad"};
static const char *const cmp_names[] = {"eq", "ne", "lt", "le", "gt", "ge"};

static const char *const parts[] = {"", "b0", "b1", "b2", "b3", "h0", "h1"};

/* A random scalar form: every modifier drawn, defaults included. */
static struct form random_scalar(void)
{
    static const int ops[] = {0, 1, 3, 4, 5, 6, 7, 8, 9}; /* no scalar vavrg */
    struct form f = {0};
    f.width = 1;
    f.op = ops[vm_case_rand() % 9];
    for (int k = 0; k < 3; k++)
        f.sign[k] = f.op == 6 && k == 0 ? 0 : (int)(vm_case_rand() % 2);
    f.sat = f.op != 6 && vm_case_rand() % 2;
    f.cmp = (int)(vm_case_rand() % 6);
    int kind = (int)(vm_case_rand() % 3); /* 0: d, a, b; 1: a secondary operation; 2: a merge */
    f.sec = kind == 1 ? 1 + (int)(vm_case_rand() % 3) : 0;
    if (kind == 2)
        strcpy(f.mask, parts[1 + vm_case_rand() % 6]);
    for (int s = 0; s < 2; s++)
        strcpy(f.sel[s], parts[vm_case_rand() % 7]);
    f.wrap = (int)(vm_case_rand() % 2);
    if (f.op == 7 || f.op == 8)
        f.sign[2] = 0; /* the count is .u32 */
    if (f.op == 9) {   /* vmad: no secondary operation, no merge */
        f.sec = 0, f.mask[0] = '\0';
        f.po = vm_case_rand() % 3 == 0;
        f.neg = f.po ? 0 : (int)(vm_case_rand() % 4);
        f.scale = (int)(vm_case_rand() % 3);
    }
    return f;
}

/* A random form: every modifier drawn, defaults included. */
static struct form random_form(void)
{
    if (vm_case_rand() % 3 == 0)
        return random_scalar();
    struct form f = {0};
    f.op = (int)(vm_case_rand() % 7);
    f.width = vm_case_rand() % 2 ? 4 : 2;
    for (int k = 0; k < 3; k++)
        f.sign[k] = (int)(vm_case_rand() % 2);
    int mode = (int)(vm_case_rand() % 3);
    f.sat = mode == 1 && f.op != 6;
    f.add = mode == 2;
    f.cmp = (int)(vm_case_rand() % 6);
    char kind = f.width == 4 ? 'b' : 'h';
    int subset = (int)(vm_case_rand() % (1u << f.width));
    if (subset && vm_case_rand() % 2) { /* a mask: its elements, highest first */
        char *p = f.mask;
        *p++ = kind;
        for (int e = f.width - 1; e >= 0; e--)
            if (subset >> e & 1)
                *p++ = (char)('0' + e);
    }
    for (int s = 0; s < 2; s++)
        if (vm_case_rand() % 3) {
            f.sel[s][0] = kind;
            for (int e = 0; e < f.width; e++)
                f.sel[s][1 + e] = (char)('0' + vm_case_rand() % (unsigned)(2 * f.width));
        }
    return f;
}

/* A vmad form as PTX: d is %r5, a %r2, b %r3, c %r4, the negated one written -%rN. */
static void vmad_ptx(const struct form *f, char *out, size_t size)
{
    static const char *const types[] = {"u32", "s32"}, *const scales[] = {"", ".shr7", ".shr15"};
    snprintf(out, size, "vmad.%s.%s.%s%s%s%s %%r5, %s%%r2%s%s, %s%%r3%s%s, %s%%r4;",
             types[f->sign[0]], types[f->sign[1]], types[f->sign[2]], f->po ? ".po" : "",
             f->sat ? ".sat" : "", scales[f->scale], f->neg == 1 ? "-" : "", *f->sel[0] ? "." : "",
             f->sel[0], f->neg == 2 ? "-" : "", *f->sel[1] ? "." : "", f->sel[1],
             f->neg == 3 ? "-" : "");
}

/* The form as PTX: d is %r5, a %r2, b %r3, c %r4. */
static void form_ptx(const struct form *f, char *out, size_t size)
{
    static const char *const types[] = {"u32", "s32"};
    static const char *const secs[] = {"", ".add", ".min", ".max"};
    const char *second = f->width == 1 ? secs[f->sec] : f->add ? ".add" : "";
    char mods[64], width[12] = "";
    if (f->width > 1)
        snprintf(width, sizeof width, "%d", f->width);
    if (f->op == 9)
        return vmad_ptx(f, out, size);
    if (f->op == 6)
        snprintf(mods, sizeof mods, ".%s.%s.%s%s", types[f->sign[1]], types[f->sign[2]],
                 cmp_names[f->cmp], second);
    else if (f->op == 7 || f->op == 8)
        snprintf(mods, sizeof mods, ".%s.%s.u32%s.%s%s", types[f->sign[0]], types[f->sign[1]],
                 f->sat ? ".sat" : "", f->wrap ? "wrap" : "clamp", second);
    else
        snprintf(mods, sizeof mods, ".%s.%s.%s%s%s", types[f->sign[0]], types[f->sign[1]],
                 types[f->sign[2]], f->sat ? ".sat" : "", second);
    int with_c = f->width > 1 || f->sec || *f->mask;
    snprintf(out, size, "%s%s%s %%r5%s%s, %%r2%s%s, %%r3%s%s%s;", op_names[f->op], width, mods,
             *f->mask ? "." : "", f->mask, *f->sel[0] ? "." : "", f->sel[0], *f->sel[1] ? "." : "",
             f->sel[1], with_c ? ", %r4" : "");
}

/* ---- the reference: the PTX ISA's pseudo-code, step by step ------------------------------- */

/* extractAndSignExt: element @p e of @p bytes bytes from the 8 bytes of b:a, by the selector
 * digit for element e (the digits name elements highest first). */
static int64_t extract(uint32_t a, uint32_t b, const char *sel, int width, int e, int is_signed)
{
    uint8_t all[8];
    for (int k = 0; k < 4; k++)
        all[k] = (uint8_t)(a >> (8 * k)), all[4 + k] = (uint8_t)(b >> (8 * k));
    int bytes = 4 / width, index = sel[1 + (width - 1 - e)] - '0';
    int64_t v = 0;
    for (int k = bytes - 1; k >= 0; k--)
        v = v * 256 + all[index * bytes + k];
    if (is_signed && v >= (int64_t)1 << (8 * bytes - 1))
        v -= (int64_t)1 << (8 * bytes);
    return v;
}

/* The primary operation on the extended values (vavrg: halves away from zero). */
static int64_t primary(const struct form *f, int64_t va, int64_t vb)
{
    int64_t s = va + vb;
    const int64_t cmp[6] = {va == vb, va != vb, (va < vb), va <= vb, (va > vb), va >= vb};
    if (f->op == 0)
        return s;
    if (f->op == 1)
        return va - vb;
    if (f->op == 2)
        return s >= 0 ? (s + 1) / 2 : (s - 1) / 2; /* floor(s / 2) below zero */
    if (f->op == 3)
        return va > vb ? va - vb : vb - va;
    if (f->op == 4)
        return va < vb ? va : vb;
    if (f->op == 7 || f->op == 8) { /* .clamp: counts above 32 are 32; .wrap: modulo 32 */
        int64_t n = f->wrap ? vb & 31 : vb > 32 ? 32 : vb;
        if (f->op == 8)
            return va >> n; /* the extension of a fills from the left */
        /* tmp = ta << tb, in the 34 bits of the video pipe (NVIDIA's SASS reference, VSHL) */
        int64_t t = (int64_t)((uint64_t)va << n) & (((int64_t)1 << 34) - 1);
        return t >= (int64_t)1 << 33 ? t - ((int64_t)1 << 34) : t;
    }
    return f->op == 5 ? (va > vb ? va : vb) : cmp[f->cmp];
}

/* partSelectSignExtend: the whole word, or the byte or half-word @p sel names, extended. */
static int64_t part_select(uint32_t v, const char *sel, int is_signed)
{
    if (!*sel)
        return is_signed ? (int64_t)(int32_t)v : (int64_t)v;
    int bits = sel[0] == 'b' ? 8 : 16;
    int64_t x = v >> (bits * (sel[1] - '0')) & ((1u << bits) - 1);
    return is_signed && x >= (int64_t)1 << (bits - 1) ? x - ((int64_t)1 << bits) : x;
}

/* vmad as the ISA's pseudo-code writes it: the product in 128 bits, negated as ~tmp + 1 (or c
 * as ~c + 1), plus one with .po, plus c extended by the final sign; scaled; saturated. */
static uint32_t reference_vmad(const struct form *f, uint32_t a, uint32_t b, uint32_t c)
{
    int64_t ta = part_select(a, f->sel[0], f->sign[1]), tb = part_select(b, f->sel[1], f->sign[2]);
    int neg_ab = f->neg == 1 || f->neg == 2, neg_c = f->neg == 3;
    int signed_final = f->sign[1] || f->sign[2] || neg_ab || neg_c, lsb = 0;
    __int128 tmp = (__int128)ta * tb;
    if (f->po)
        lsb = 1;
    else if (neg_ab)
        tmp = ~tmp, lsb = 1;
    else if (neg_c)
        c = ~c, lsb = 1;
    tmp = tmp + (signed_final ? (__int128)(int32_t)c : (__int128)c) + lsb;
    int shift = f->scale == 1 ? 7 : f->scale == 2 ? 15 : 0;
    int64_t r = signed_final ? (int64_t)(tmp >> shift) : (int64_t)((unsigned __int128)tmp >> shift);
    if (f->sat) {
        int64_t hi = signed_final ? INT32_MAX : UINT32_MAX, lo = signed_final ? INT32_MIN : 0;
        r = r > hi ? hi : r < lo ? lo : r;
    }
    return (uint32_t)r;
}

/* A scalar form: optSaturate, optSecOp and optMerge as the ISA's pseudo-code writes them. */
static uint32_t reference_scalar(const struct form *f, uint32_t a, uint32_t b, uint32_t c)
{
    if (f->op == 9)
        return reference_vmad(f, a, b, c);
    int64_t t =
        primary(f, part_select(a, f->sel[0], f->sign[1]), part_select(b, f->sel[1], f->sign[2]));
    if (f->sat) {
        int bits = f->mask[0] == 'b' ? 8 : f->mask[0] == 'h' ? 16 : 32;
        int64_t hi = f->sign[0] ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
        int64_t lo = f->sign[0] ? -((int64_t)1 << (bits - 1)) : 0;
        t = t > hi ? hi : t < lo ? lo : t;
    }
    int64_t cx = f->sign[0] ? (int64_t)(int32_t)c : (int64_t)c;
    if (f->sec == 1)
        t = t + cx;
    else if (f->sec == 2)
        t = t < cx ? t : cx;
    else if (f->sec == 3)
        t = t > cx ? t : cx;
    if (!*f->mask)
        return (uint32_t)t;
    int bits = f->mask[0] == 'b' ? 8 : 16, at = bits * (f->mask[1] - '0');
    uint32_t keep = (bits == 8 ? 0xFFu : 0xFFFFu) << at;
    return (((uint32_t)t << at) & keep) | (c & ~keep);
}

static uint32_t reference(const struct form *f, uint32_t a, uint32_t b, uint32_t c)
{
    if (f->width == 1)
        return reference_scalar(f, a, b, c);
    const char *asel = *f->sel[0] ? f->sel[0] : f->width == 4 ? "b3210" : "h10";
    const char *bsel = *f->sel[1] ? f->sel[1] : f->width == 4 ? "b7654" : "h32";
    int bits = 32 / f->width, mask[4] = {0};
    for (const char *p = *f->mask ? f->mask + 1 : ""; *p; p++)
        mask[*p - '0'] = 1;
    if (!*f->mask)
        mask[0] = mask[1] = mask[2] = mask[3] = 1;
    uint32_t d = f->add ? c : 0, keep = bits == 8 ? 0xFFu : 0xFFFFu;
    for (int i = 0; i < f->width; i++) {
        int64_t va = extract(a, b, asel, f->width, i, f->sign[1]);
        int64_t vb = extract(a, b, bsel, f->width, i, f->sign[2]), t = primary(f, va, vb);
        if (f->sat) {
            int64_t hi = f->sign[0] ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
            int64_t lo = f->sign[0] ? -((int64_t)1 << (bits - 1)) : 0;
            t = t > hi ? hi : t < lo ? lo : t;
        }
        if (f->add)
            d += mask[i] ? (uint32_t)t : 0;
        else
            d |= (mask[i] ? (uint32_t)t & keep : (c >> (i * bits)) & keep) << (i * bits);
    }
    return d;
}

/* ---- the cases ------------------------------------------------------------------------------ */

/* A word whose bytes are random or edges. */
static uint32_t input_word(void)
{
    static const uint8_t edges[] = {0x00, 0x01, 0x7F, 0x80, 0x81, 0xFE, 0xFF};
    uint32_t w = 0;
    for (int k = 0; k < 4; k++) {
        uint64_t r = vm_case_rand();
        uint32_t byte = r % 2 ? (uint32_t)(r >> 8) & 0xFF : edges[(r >> 8) % sizeof edges];
        w |= byte << (8 * k);
    }
    return w;
}

/* A word that is a shift count at an edge (0, 1, 31, 32, 33, 63, 255, 2^32 - 1) in each of its
 * parts that a selector can pick at 0: the word, byte 0, half-word 0. */
static uint32_t shift_count(void)
{
    static const uint32_t counts[] = {0, 1, 31, 32, 33, 63, 255, 0xFFFFFFFFu};
    return counts[vm_case_rand() % (sizeof counts / sizeof *counts)];
}

/* A kernel applying @p n forms to a, b and c, one thread an element; form k's results at
 * out[k * THREADS ...] (malloc'd text). */
static char *forms_kernel(const struct form *forms, int n)
{
    size_t size = 4096 + (size_t)n * 200, used = 0;
    char *text = malloc(size), line[160];
    ck_assert(text);
    used += (size_t)snprintf(
        text, size,
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry forms(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po)\n{\n"
        "  .reg .b32 %%r<6>;\n  .reg .b64 %%rd<10>;\n"
        "  mov.u32 %%r1, %%tid.x;\n  mul.wide.u32 %%rd1, %%r1, 4;\n"
        "  ld.param.u64 %%rd2, [pa];\n  add.s64 %%rd3, %%rd2, %%rd1;\n  ld.global.u32 %%r2, "
        "[%%rd3];\n"
        "  ld.param.u64 %%rd4, [pb];\n  add.s64 %%rd5, %%rd4, %%rd1;\n  ld.global.u32 %%r3, "
        "[%%rd5];\n"
        "  ld.param.u64 %%rd6, [pc];\n  add.s64 %%rd7, %%rd6, %%rd1;\n  ld.global.u32 %%r4, "
        "[%%rd7];\n"
        "  ld.param.u64 %%rd8, [po];\n  add.s64 %%rd9, %%rd8, %%rd1;\n");
    for (int k = 0; k < n; k++) {
        form_ptx(&forms[k], line, sizeof line);
        used +=
            (size_t)snprintf(text + used, size - used, "  %s\n  st.global.u32 [%%rd9+%d], %%r5;\n",
                             line, k * THREADS * 4);
    }
    snprintf(text + used, size - used, "  ret;\n}\n");
    return text;
}

START_TEST(simd_forms_match_the_isa)
{
    static uint32_t a[THREADS], b[THREADS], c[THREADS], out[FORMS * THREADS];
    for (int round = 0; round < ROUNDS; round++) {
        struct form forms[FORMS];
        for (int k = 0; k < FORMS; k++)
            forms[k] = random_form();
        for (int t = 0; t < THREADS; t++)
            a[t] = input_word(), b[t] = t % 4 ? input_word() : shift_count(), c[t] = input_word();
        char *text = forms_kernel(forms, FORMS);
        struct vm_case vc;
        vm_case_open(&vc, text);
        uint64_t da = vm_case_buffer(&vc, a, sizeof a), db = vm_case_buffer(&vc, b, sizeof b);
        uint64_t dc = vm_case_buffer(&vc, c, sizeof c),
                 dout = vm_case_buffer(&vc, NULL, sizeof out);
        ck_assert_msg(vm_case_run(&vc, "forms", VM_GRID(1), VM_BLOCK(THREADS),
                                  (void *[]){&da, &db, &dc, &dout}) == VM_OK,
                      "%s", vc.result.message);
        vm_case_read(&vc, out, dout, sizeof out);
        vm_case_close(&vc);
        for (int k = 0; k < FORMS; k++)
            for (int t = 0; t < THREADS; t++) {
                uint32_t want = reference(&forms[k], a[t], b[t], c[t]);
                char ptx[160];
                form_ptx(&forms[k], ptx, sizeof ptx);
                ck_assert_msg(out[k * THREADS + t] == want,
                              "%s with a=0x%08x b=0x%08x c=0x%08x: 0x%08x, want 0x%08x", ptx, a[t],
                              b[t], c[t], out[k * THREADS + t], want);
            }
        free(text);
    }
}
END_TEST

/* Bad forms are refused at the launch that reaches them, in one line naming them. */
START_TEST(bad_forms_fail_loudly)
{
    static const char *const bad[] = {
        "vadd4.u32.u32.u32.sat.add %r5, %r2, %r3, %r4;", /* .sat with .add */
        "vadd4.u32.u32 %r5, %r2, %r3, %r4;",             /* a type missing */
        "vset2.u32.u32 %r5, %r2, %r3, %r4;",             /* no compare */
        "vmin4.u32.u32.u32 %r5.b01, %r2, %r3, %r4;",     /* mask digits rising */
        "vmax2.s32.s32.s32 %r5, %r2.h4, %r3, %r4;",      /* a selector too short */
        "vsub4.s32.s32.s32 %r5, %r2.b3218, %r3, %r4;",   /* a byte past b:a */
        "vadd.u32.u32.u32.add %r5, %r2, %r3;",           /* .add without c */
        "vmax.s32.s32.s32 %r5.b0, %r2.b4, %r3, %r4;",    /* a byte past the word */
        "vmin.u32.u32.u32.max %r5.h1, %r2, %r3, %r4;",   /* a secondary operation and a merge */
        "vavrg.u32.u32.u32 %r5, %r2, %r3;",              /* vavrg has no scalar form */
        "vshl.u32.u32.s32.clamp %r5, %r2, %r3;",         /* a signed shift count */
        "vshr.u32.u32.u32 %r5, %r2, %r3;",               /* no .clamp or .wrap */
        "vmad.s32.s32.s32 %r5, -%r2, %r3, -%r4;",        /* the product and c negated */
        "vmad.u32.u32.u32.po %r5, %r2, -%r3, %r4;",      /* .po with a negation */
        "add.u32 %r5, -%r2, %r3;",                       /* a negated register outside vmad */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *text = NULL;
        ck_assert(asprintf(&text,
                           ".version 8.0\n.target sm_90\n.address_size 64\n"
                           ".visible .entry bad()\n{\n  .reg .b32 %%r<6>;\n  mov.u32 %%r2, 1;\n"
                           "  mov.u32 %%r3, 2;\n  mov.u32 %%r4, 3;\n  %s\n  ret;\n}\n",
                           bad[i]) > 0);
        struct vm_case vc;
        vm_case_open(&vc, text);
        enum vm_status s = vm_case_run(&vc, "bad", VM_GRID(1), VM_BLOCK(32), NULL);
        char base[16];
        snprintf(base, sizeof base, "%.5s", bad[i]);
        ck_assert_msg(s == VM_UNSUPPORTED && strstr(vc.result.message, base) &&
                          !strchr(vc.result.message, '\n'),
                      "%s: status %d, '%s'", bad[i], s, vc.result.message);
        vm_case_close(&vc);
        free(text);
    }
}
END_TEST

/* The CUDA Math API's definitions, per element. */
static uint32_t per_element(uint32_t x, uint32_t y, int width, int64_t (*f)(int64_t, int64_t),
                            int is_signed)
{
    int bits = 32 / width;
    uint32_t d = 0, keep = bits == 8 ? 0xFFu : 0xFFFFu;
    for (int i = 0; i < width; i++) {
        int64_t u = x >> (i * bits) & keep, v = y >> (i * bits) & keep;
        if (is_signed) {
            u -= u > keep / 2 ? (int64_t)keep + 1 : 0;
            v -= v > keep / 2 ? (int64_t)keep + 1 : 0;
        }
        d |= ((uint32_t)f(u, v) & keep) << (i * bits);
    }
    return d;
}

static int64_t absdiff(int64_t u, int64_t v)
{
    return u > v ? u - v : v - u;
}

static int64_t rounded_mean(int64_t u, int64_t v)
{
    return (u + v + 1) / 2;
}

static int64_t add_sat8(int64_t u, int64_t v)
{
    return u + v > 127 ? 127 : u + v < -128 ? -128 : u + v;
}

static int64_t at_least(int64_t u, int64_t v)
{
    return u >= v;
}

/* The sum over the elements of |x - y|, as __vsadu4 and __vsads4 define it. */
static uint32_t sad4(uint32_t x, uint32_t y, int is_signed)
{
    uint32_t d = per_element(x, y, 4, absdiff, is_signed), sum = 0;
    for (int i = 0; i < 4; i++)
        sum += d >> (8 * i) & 0xFF;
    return sum;
}

enum simd_ref {
    R_ABS,
    R_NEG,
    R_ABSDIFF,
    R_ADD,
    R_SUB,
    R_AVG,
    R_MAX,
    R_MIN,
    R_SAD,
    R_EQ,
    R_NE,
    R_GE,
    R_GT,
    R_LE,
    R_LT,
    R_MAX3,
    R_MIN3,
    R_ADDMAX,
    R_ADDMIN
};

/* @p v as an element of @p bits bits, signed or not (wrapped). */
static int64_t element(int64_t v, int bits, int is_signed)
{
    uint64_t keep = bits == 32 ? 0xFFFFFFFFull : (1ull << bits) - 1, u = (uint64_t)v & keep;
    return is_signed && u > keep / 2 ? (int64_t)u - (int64_t)keep - 1 : (int64_t)u;
}

/* @p v clamped to an element's range (saturation). */
static int64_t clamp(int64_t v, int bits, int is_signed)
{
    int64_t lo = is_signed ? -(1ll << (bits - 1)) : 0;
    int64_t hi = is_signed ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
    return v < lo ? lo : v > hi ? hi : v;
}

/* One element of operation @p ref (argument @p arg: saturation, rounding, a mask or .relu). */
static int64_t simd_one(enum simd_ref ref, int arg, int bits, int is_signed, int64_t u, int64_t v,
                        int64_t w)
{
    int64_t r, ones = bits == 32 ? 0xFFFFFFFFll : (1ll << bits) - 1;
    switch (ref) {
    case R_ABS:
    case R_NEG:
        r = ref == R_ABS && u >= 0 ? u : -u;
        return arg ? clamp(r, bits, 1) : r;
    case R_ABSDIFF:
    case R_SAD:
        return u > v ? u - v : v - u;
    case R_ADD:
    case R_SUB:
        r = ref == R_ADD ? u + v : u - v;
        return arg ? clamp(r, bits, is_signed) : r;
    case R_AVG: /* rounded half away from zero (arg), or truncated (unsigned only) */
        r = u + v;
        return r >= 0 ? (r + arg) >> 1 : -((-r + arg) >> 1);
    case R_MAX3:
    case R_MIN3:
        r = ref == R_MAX3 ? (u > v ? u : v) : (u < v ? u : v);
        u = r, v = w;
        ref = ref == R_MAX3 ? R_MAX : R_MIN;
        break;
    case R_ADDMAX:
    case R_ADDMIN:
        u = element(u + v, bits, is_signed), v = w;
        ref = ref == R_ADDMAX ? R_MAX : R_MIN;
        break;
    default:
        break;
    }
    switch (ref) {
    case R_MAX:
    case R_MIN:
        r = ref == R_MAX ? (u > v ? u : v) : (u < v ? u : v);
        return arg && r < 0 ? 0 : r;
    case R_EQ:
        return (u == v) * (arg ? ones : 1);
    case R_NE:
        return (u != v) * (arg ? ones : 1);
    case R_GE:
        return (u >= v) * (arg ? ones : 1);
    case R_GT:
        return (u > v) * (arg ? ones : 1);
    case R_LE:
        return (u <= v) * (arg ? ones : 1);
    default:
        return (u < v) * (arg ? ones : 1);
    }
}

/* An intrinsic of SIMD_INTRINSICS on words x, y, z: element by element (the sums of absolute
   differences over the word). */
static uint32_t simd_ref(enum simd_ref ref, int arg, int elems, int is_signed, uint32_t x,
                         uint32_t y, uint32_t z)
{
    int bits = 32 / elems;
    uint32_t d = 0, sad = 0;
    for (int e = 0; e < elems; e++) {
        int sh = e * bits;
        int64_t r = simd_one(ref, arg, bits, is_signed, element(x >> sh, bits, is_signed),
                             element(y >> sh, bits, is_signed), element(z >> sh, bits, is_signed));
        sad += (uint32_t)r;
        d |= (uint32_t)((uint64_t)r & (bits == 32 ? 0xFFFFFFFFull : (1ull << bits) - 1)) << sh;
    }
    return ref == R_SAD ? sad : d;
}

struct simd_spec {
    const char *name;
    int elems, is_signed;
    enum simd_ref ref;
    int arg;
};

/* One intrinsic's spec, for SIMD_SPEC (which a compound literal would leave to clang-format
 * versions that disagree on where its #f goes). */
static struct simd_spec simd_spec_of(const char *name, int elems, int is_signed, enum simd_ref ref,
                                     int arg)
{
    return (struct simd_spec){name, elems, is_signed, ref, arg};
}
#define SIMD_SPEC(f, srcs, elems, sign, ref, arg)                                                  \
    spec[k++] = simd_spec_of(#f, elems, sign, ref, arg)

/* Every intrinsic, compiled by nvcc 13 for sm_90 (packed .s16x2/.u16x2 add, min and max, their
   .relu, min/max.relu.s32, neg.s16 and the video instructions among what it emits), against the
   CUDA Math API's definition on words of edge and random bytes. */
START_TEST(every_simd_intrinsic_matches_its_definition)
{
    enum { N = 600, MAX_K = 128 };
    static struct simd_spec spec[MAX_K];
    static uint32_t a[N], b[N], c[N], out[MAX_K * N];
    int k = 0, K;
    SIMD_INTRINSICS(SIMD_SPEC);
    K = k;
    char *ptx = VM_CASE_PTX;
    /* nvcc 12's headers write the intrinsics without the packed forms: checked all the same. */
    int by_nvcc_12 = strstr(ptx, "Cuda compilation tools, release 12.") != NULL;
    ck_assert_msg(by_nvcc_12 || (strstr(ptx, "max.s16x2") && strstr(ptx, "neg.s16")),
                  "nvcc no longer emits max.s16x2 or neg.s16 for these intrinsics");
    for (int i = 0; i < N; i++)
        a[i] = input_word(), b[i] = input_word(), c[i] = input_word();
    struct vm_case vc;
    vm_case_open(&vc, ptx);
    uint64_t da = vm_case_buffer(&vc, a, sizeof a), db = vm_case_buffer(&vc, b, sizeof b);
    uint64_t dc = vm_case_buffer(&vc, c, sizeof c), dout = vm_case_buffer(&vc, NULL, sizeof out);
    int n = N;
    ck_assert_msg(vm_case_run(&vc, "every_intrinsic_kernel", VM_GRID((N + 127) / 128),
                              VM_BLOCK(128), (void *[]){&da, &db, &dc, &dout, &n}) == VM_OK,
                  "%s", vc.result.message);
    vm_case_read(&vc, out, dout, sizeof out);
    for (k = 0; k < K; k++)
        for (int i = 0; i < N; i++) {
            uint32_t want = simd_ref(spec[k].ref, spec[k].arg, spec[k].elems, spec[k].is_signed,
                                     a[i], b[i], c[i]);
            ck_assert_msg(out[k * N + i] == want,
                          "%s(0x%08x, 0x%08x, 0x%08x) = 0x%08x, want 0x%08x", spec[k].name, a[i],
                          b[i], c[i], out[k * N + i], want);
        }
    vm_case_close(&vc);
    free(ptx);
}
END_TEST

START_TEST(intrinsics_compile_to_what_the_vm_runs)
{
    enum { N = 1000, KINDS = 8 };
    static uint32_t a[N], b[N], out[KINDS * N];
    char *ptx = VM_CASE_PTX;
    ck_assert_msg(
        strstr(ptx, "vabsdiff4.u32.u32.u32"),
        "nvcc no longer emits vabsdiff4 for these intrinsics: the case tests nothing new");
    for (int i = 0; i < N; i++)
        a[i] = input_word(), b[i] = input_word();
    struct vm_case vc;
    vm_case_open(&vc, ptx);
    uint64_t da = vm_case_buffer(&vc, a, sizeof a), db = vm_case_buffer(&vc, b, sizeof b);
    uint64_t dout = vm_case_buffer(&vc, NULL, sizeof out);
    int n = N;
    ck_assert_msg(vm_case_run(&vc, "intrinsics_kernel", VM_GRID((N + 127) / 128), VM_BLOCK(128),
                              (void *[]){&da, &db, &dout, &n}) == VM_OK,
                  "%s", vc.result.message);
    vm_case_read(&vc, out, dout, sizeof out);
    static const char *const names[KINDS] = {"__vabsdiffu4", "__vabsdiffs4", "__vsadu4",
                                             "__vsads4",     "__vabsdiffu2", "__vavgu4",
                                             "__vaddss4",    "__vsetgeu2"};
    for (int i = 0; i < N; i++) {
        uint32_t x = a[i], y = b[i];
        const uint32_t want[KINDS] = {per_element(x, y, 4, absdiff, 0),
                                      per_element(x, y, 4, absdiff, 1),
                                      sad4(x, y, 0),
                                      sad4(x, y, 1),
                                      per_element(x, y, 2, absdiff, 0),
                                      per_element(x, y, 4, rounded_mean, 0),
                                      per_element(x, y, 4, add_sat8, 1),
                                      per_element(x, y, 2, at_least, 0)};
        for (int k = 0; k < KINDS; k++)
            ck_assert_msg(out[k * N + i] == want[k], "%s(0x%08x, 0x%08x) = 0x%08x, want 0x%08x",
                          names[k], x, y, out[k * N + i], want[k]);
    }
    uint32_t words[3] = {5, 7, 0}; /* 5 << 7 through inline PTX's vshl */
    uint64_t dw = vm_case_buffer(&vc, words, sizeof words);
    ck_assert_int_eq(
        vm_case_run(&vc, "scalar_video_kernel", VM_GRID(1), VM_BLOCK(1), (void *[]){&dw}), VM_OK);
    vm_case_read(&vc, words, dw, sizeof words);
    ck_assert_uint_eq(words[2], 5u << 7);
    vm_case_close(&vc);
    free(ptx);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"simd_forms_match_the_isa", simd_forms_match_the_isa, CASE_CPU, 60},
        {"bad_forms_fail_loudly", bad_forms_fail_loudly, CASE_CPU, 60},
        {"intrinsics_compile_to_what_the_vm_runs", intrinsics_compile_to_what_the_vm_runs, CASE_CPU,
         60},
        {"every_simd_intrinsic_matches_its_definition", every_simd_intrinsic_matches_its_definition,
         CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
#endif
