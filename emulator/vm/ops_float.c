/**
 * @file ops_float.c
 * @brief Floating-point instructions: fp32 and fp64 arithmetic, the
 *        approximate functions, compares, and the 16-bit formats.
 *
 * Round-to-nearest fp32 runs natively (the host's IEEE arithmetic). Every
 * other rounding mode, .ftz and .sat go through fp_round() from a value that
 * is exact or rounded to odd, so no host rounding mode is ever changed.
 * Approximations (ex2, lg2, sin, ...) use the host's libm, which is well
 * inside the error bounds the PTX ISA gives them.
 */
#include <fenv.h>
#include <math.h>
#if defined __F16C__ || defined __FMA__
#include <immintrin.h>
#endif

#include "fp.h"
#include "vm_impl.h"

#define F32(w, off) RF32(w, off)

/* ---- fp32: the plain round-to-nearest forms ---------------------------------------------- */

enum event h_ADD_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]), *b = F32(w, in->o[2]);
    LANES(m, d[l] = a[l] + b[l]);
    return EV_NONE;
}

enum event h_SUB_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]), *b = F32(w, in->o[2]);
    LANES(m, d[l] = a[l] - b[l]);
    return EV_NONE;
}

enum event h_MUL_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]), *b = F32(w, in->o[2]);
    LANES(m, d[l] = a[l] * b[l]);
    return EV_NONE;
}

enum event h_FMA_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]), *b = F32(w, in->o[2]);
    float *c = F32(w, in->o[3]);
#ifdef __FMA__
    /* a whole warp 8 lanes at a time: its registers are 32-lane arrays, the same or apart */
    if (m == FULL_MASK) {
        for (int l = 0; l < 32; l += 8)
            _mm256_storeu_ps(d + l, _mm256_fmadd_ps(_mm256_loadu_ps(a + l), _mm256_loadu_ps(b + l),
                                                    _mm256_loadu_ps(c + l)));
        return EV_NONE;
    }
#endif
    LANES(m, d[l] = fp_fmaf(a[l], b[l], c[l]));
    return EV_NONE;
}

/* ---- fp32 with a rounding mode, .ftz or .sat ---------------------------------------------------
 */

/* The quotient a / b rounded to odd at double precision (exact remainder through fma). */
static double div_odd(double a, double b)
{
    double q = a / b;
    if (!isfinite(q) || q == 0)
        return q;
    double r = fma(q, b, -a); /* q * b - a, exactly */
    if (r == 0)
        return q;
    uint64_t u = d2u(q);
    /* The true quotient is q - r / b: below q in magnitude when r / b has q's sign. */
    if ((r / b > 0) == (q > 0))
        u -= 1;
    return u2d(u | 1);
}

static double sqrt_odd(double a)
{
    double s = sqrt(a);
    if (!isfinite(s) || s == 0)
        return s;
    double r = fma(s, s, -a);
    if (r == 0)
        return s;
    uint64_t u = d2u(s);
    if (r > 0)
        u -= 1;
    return u2d(u | 1);
}

/* One fp32 result from the exact (or odd-rounded) value v, under the instruction's modifiers:
 * mod = rnd | ftz << 4 | sat << 5. */
static float finish32(double v, uint32_t mod)
{
    float r = u2f(fp_round(v, FMT_F32, (enum rnd)(mod & 15), (mod >> 4) & 1));
    if ((mod >> 5) & 1) /* .sat: into [+0, 1], NaN and -0 to +0 */
        r = isnan(r) || r <= 0 ? 0.0f : r > 1 ? 1.0f : r;
    return r;
}

/* An exact zero sum is +0, but -0 when rounding down (and when both addends are -0); the
 * host's round-to-nearest addition only knows the first rule. */
static double sum_zero_sign(double v, double p, double q, uint32_t mod)
{
    if (v != 0 || (mod & 15) != RND_RM)
        return v;
    return p == 0 && q == 0 && !signbit(p) && !signbit(q) ? 0.0 : -0.0;
}

static float in32(float v, uint32_t mod)
{
    return (mod >> 4) & 1 ? fp_ftz(v) : v;
}

enum event h_ARITH_F32_X(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]), *b = F32(w, in->o[2]);
    float *c = in->width == 3 ? F32(w, in->o[3]) : NULL;
    uint32_t mod = in->mod;
    LANES(m, {
        double p = in32(a[l], mod), q = in32(b[l], mod);
        if (in->width == 1)
            q = -q;
        if (in->width == 3)
            p = p * q, q = in32(c[l], mod);
        double v = in->width == 2 ? p * q : sum_zero_sign(fp_add_odd(p, q), p, q, mod);
        d[l] = finish32(v, mod);
    });
    return EV_NONE;
}

enum event h_DIV_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]), *b = F32(w, in->o[2]);
    uint32_t mod = in->mod;
    if (mod == RND_RN)
        LANES(m, d[l] = a[l] / b[l]);
    else
        LANES(m, d[l] = finish32(div_odd(in32(a[l], mod), in32(b[l], mod)), mod));
    return EV_NONE;
}

enum event h_RCP_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]);
    uint32_t mod = in->mod;
    if (mod == RND_RN)
        LANES(m, d[l] = 1.0f / a[l]);
    else
        LANES(m, d[l] = finish32(div_odd(1.0, in32(a[l], mod)), mod));
    return EV_NONE;
}

enum event h_SQRT_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]);
    uint32_t mod = in->mod;
    if (mod == RND_RN)
        LANES(m, d[l] = sqrtf(a[l]));
    else
        LANES(m, d[l] = finish32(sqrt_odd(in32(a[l], mod)), mod));
    return EV_NONE;
}

/* ---- approximations ------------------------------------------------------------------------- */

#define APPROX(NAME, EXPR)                                                                         \
    enum event h_##NAME(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)         \
    {                                                                                              \
        (void)x;                                                                                   \
        float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]);                                        \
        int ftz = (in->mod >> 4) & 1;                                                              \
        LANES(m, {                                                                                 \
            double v = ftz ? fp_ftz(a[l]) : a[l];                                                  \
            float r = (float)(EXPR);                                                               \
            d[l] = ftz ? fp_ftz(r) : r;                                                            \
        });                                                                                        \
        return EV_NONE;                                                                            \
    }

APPROX(RSQRT_F32, 1.0 / sqrt(v))
APPROX(SIN_F32, sin(v))
APPROX(COS_F32, cos(v))
APPROX(LG2_F32, log2(v))
APPROX(EX2_F32, exp2(v))
APPROX(TANH_F32, tanh(v))

/* ---- sign, min, max, tests, compares ----------------------------------------------------------
 */

enum event h_ABS_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]);
    int ftz = (in->mod >> 4) & 1;
    LANES(m, d[l] = f2u(ftz ? fp_ftz(u2f(a[l])) : u2f(a[l])) & 0x7FFFFFFFu);
    return EV_NONE;
}

enum event h_NEG_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]);
    int ftz = (in->mod >> 4) & 1;
    LANES(m, d[l] = f2u(ftz ? fp_ftz(u2f(a[l])) : u2f(a[l])) ^ 0x80000000u);
    return EV_NONE;
}

/* min/max, `max` picking which: a NaN loses to a number; two NaNs give the canonical NaN of
 * the caller's width; -0 is below +0. A float widens to double and back exactly. */
static double fminmax(double a, double b, int max)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    if (a == b)
        return (signbit(a) != 0) != max ? a : b;
    return (a < b) != max ? a : b;
}

/* min (@p max 0) or max as PTX defines them, with its modifiers (MINMAX_NAN, MINMAX_XORSIGN in
 * @p mod): a NaN operand yields the other, and NaN when both are or, with .NaN, when either is;
 * with .xorsign.abs the magnitudes are compared and the result's sign is the xor of the
 * operands'. A NaN result is any NaN: the caller writes the canonical one. */
static double fminmax_ptx(double a, double b, int max, uint32_t mod)
{
    int negative = (signbit(a) != 0) != (signbit(b) != 0);
    if (mod & MINMAX_XORSIGN)
        a = fabs(a), b = fabs(b);
    if ((isnan(a) && isnan(b)) || ((mod & MINMAX_NAN) && (isnan(a) || isnan(b))))
        return NAN;
    double r = fminmax(a, b, max);
    return (mod & MINMAX_XORSIGN) && negative ? -r : r;
}

static float fminmax32(float a, float b, uint32_t mod, int max)
{
    if ((mod >> 4) & 1)
        a = fp_ftz(a), b = fp_ftz(b);
    double r = fminmax_ptx(a, b, max, mod);
    return isnan(r) ? u2f(0x7FFFFFFFu) : (float)r;
}

static double fminmax64(double a, double b, int max)
{
    return isnan(a) && isnan(b) ? u2d(0x7FFFFFFFFFFFFFFFull) : fminmax(a, b, max);
}

enum event h_MIN_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]), *b = F32(w, in->o[2]);
    LANES(m, d[l] = fminmax32(a[l], b[l], in->mod, 0));
    return EV_NONE;
}

enum event h_MAX_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = F32(w, in->o[0]), *a = F32(w, in->o[1]), *b = F32(w, in->o[2]);
    LANES(m, d[l] = fminmax32(a[l], b[l], in->mod, 1));
    return EV_NONE;
}

enum event h_COPYSIGN_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    LANES(m, d[l] = (b[l] & 0x7FFFFFFFu) | (a[l] & 0x80000000u));
    return EV_NONE;
}

static int testp(float v, uint32_t mode)
{
    switch (mode) {
    case 0:
        return isfinite(v);
    case 1:
        return isinf(v);
    case 2:
        return !isnan(v);
    case 3:
        return isnan(v);
    case 4:
        return isnormal(v);
    default:
        return fpclassify(v) == FP_SUBNORMAL;
    }
}

enum event h_TESTP_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *a = F32(w, in->o[1]);
    uint32_t r = 0;
    LANES(m, r |= (uint32_t)testp(a[l], in->mod) << l);
    PRED(w, in->o[0]) = (PRED(w, in->o[0]) & ~m) | r;
    return EV_NONE;
}

/* IEEE compares; the u-forms are also true when either side is NaN. */
static int fcmp(double a, double b, uint32_t cmp)
{
    int un = isnan(a) || isnan(b);
    switch (cmp) {
    case CMP_EQ:
        return a == b;
    case CMP_NE:
        return !un && a != b;
    case CMP_LT:
        return a < b;
    case CMP_LE:
        return a <= b;
    case CMP_GT:
        return a > b;
    case CMP_GE:
        return a >= b;
    case CMP_EQU:
        return un || a == b;
    case CMP_NEU:
        return a != b;
    case CMP_LTU:
        return un || a < b;
    case CMP_LEU:
        return un || a <= b;
    case CMP_GTU:
        return un || a > b;
    case CMP_GEU:
        return un || a >= b;
    case CMP_NUM:
        return !un;
    case CMP_NAN:
        return un;
    default:
        return 0; /* lo/ls/hi/hs are integer compares; decode never pairs them with floats */
    }
}

enum event h_SETP_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *a = F32(w, in->o[2]), *b = F32(w, in->o[3]);
    uint32_t cmp = in->mod & 0xFF, r = 0;
    int ftz = (in->mod >> 18) & 1;
    LANES(m, r |= (uint32_t)fcmp(ftz ? fp_ftz(a[l]) : a[l], ftz ? fp_ftz(b[l]) : b[l], cmp) << l);
    vm_setp_store(w, in, m, r, ~r);
    return EV_NONE;
}

enum event h_SET_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *a = F32(w, in->o[2]), *b = F32(w, in->o[3]);
    uint32_t cmp = in->mod & 0xFF, r = 0;
    LANES(m, r |= (uint32_t)fcmp(a[l], b[l], cmp) << l);
    vm_set_store(w, in, m, r, (in->mod >> 17) & 1 ? 0x3F800000u : 0xFFFFFFFFu);
    return EV_NONE;
}

/* ---- fp64 ---------------------------------------------------------------------------------------
 */

/* width: 0 add, 1 sub, 2 mul, 3 fma, 4 div, 5 rcp, 6 sqrt; mod = rnd. Only .rn is emulated:
 * the directed modes on fp64 fail the launch by name. */
/* The host's rounding mode for PTX rounding @p rnd (IEEE 754's four: the host's double
 * arithmetic rounds as the GPU's, this file being built with -frounding-math), or -1. */
static int host_rounding(uint32_t rnd)
{
    switch (rnd) {
    case RND_RN:
        return FE_TONEAREST;
    case RND_RZ:
        return FE_TOWARDZERO;
    case RND_RM:
        return FE_DOWNWARD;
    case RND_RP:
        return FE_UPWARD;
    default:
        return -1;
    }
}

/* d = a OP b (or c) on every lane of @p m, in the host's current rounding mode. */
static void arith_f64(struct warp *w, const struct insn *in, uint32_t m)
{
    double *d = RF64(w, in->o[0]), *a = RF64(w, in->o[1]);
    double *b = in->width <= 4 ? RF64(w, in->o[2]) : NULL;
    double *c = in->width == 3 ? RF64(w, in->o[3]) : NULL;
    switch (in->width) {
    case 0:
        LANES(m, d[l] = a[l] + b[l]);
        break;
    case 1:
        LANES(m, d[l] = a[l] - b[l]);
        break;
    case 2:
        LANES(m, d[l] = a[l] * b[l]);
        break;
    case 3:
        LANES(m, d[l] = fma(a[l], b[l], c[l]));
        break;
    case 4:
        LANES(m, d[l] = a[l] / b[l]);
        break;
    case 5:
        LANES(m, d[l] = 1.0 / a[l]);
        break;
    default:
        LANES(m, d[l] = sqrt(a[l]));
        break;
    }
}

enum event h_ARITH_F64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    int mode = host_rounding(in->mod);
    if (mode < 0)
        return vm_fail(x, w, in, __builtin_ctz(m), VM_UNSUPPORTED,
                       "fp64 arithmetic with this rounding mode is not emulated");
    if (mode != FE_TONEAREST)
        fesetround(mode);
    arith_f64(w, in, m);
    if (mode != FE_TONEAREST)
        fesetround(FE_TONEAREST);
    return EV_NONE;
}

enum event h_ABS_F64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]);
    LANES(m, d[l] = a[l] & 0x7FFFFFFFFFFFFFFFull);
    return EV_NONE;
}

enum event h_NEG_F64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]);
    LANES(m, d[l] = a[l] ^ 0x8000000000000000ull);
    return EV_NONE;
}

enum event h_MIN_F64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    double *d = RF64(w, in->o[0]), *a = RF64(w, in->o[1]), *b = RF64(w, in->o[2]);
    LANES(m, d[l] = fminmax64(a[l], b[l], 0));
    return EV_NONE;
}

enum event h_MAX_F64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    double *d = RF64(w, in->o[0]), *a = RF64(w, in->o[1]), *b = RF64(w, in->o[2]);
    LANES(m, d[l] = fminmax64(a[l], b[l], 1));
    return EV_NONE;
}

enum event h_RSQRT_F64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    double *d = RF64(w, in->o[0]), *a = RF64(w, in->o[1]);
    LANES(m, d[l] = 1.0 / sqrt(a[l]));
    return EV_NONE;
}

enum event h_SETP_F64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    double *a = RF64(w, in->o[2]), *b = RF64(w, in->o[3]);
    uint32_t cmp = in->mod & 0xFF, r = 0;
    LANES(m, r |= (uint32_t)fcmp(a[l], b[l], cmp) << l);
    vm_setp_store(w, in, m, r, ~r);
    return EV_NONE;
}

/* ---- f16 and bf16 -------------------------------------------------------------------------------
 */

/* A 16-bit value (bfloat16 when @p bf) as a double, exactly. */
static inline double half_value(uint32_t h, int bf)
{
#ifdef __F16C__
    if (!bf) /* the CPU's own exact widening (x86-64-v3) */
        return _cvtsh_ss((unsigned short)h);
#endif
    return bf ? fp_bf16_to_f32((uint16_t)h) : fp_f16_to_f32((uint16_t)h);
}

/* One 16-bit result of op (0 add, 1 sub, 2 mul, 3 fma, 4 min, 5 max, 6 neg, 7 abs) on the
 * 16-bit values a, b, c; flags = bf16 | x2 << 1 | ftz << 2 | sat << 3 | relu << 4, and min's
 * and max's MINMAX_NAN and MINMAX_XORSIGN. The exact
 * result (products of 16-bit values are exact in double; sums are rounded to odd, which a
 * second rounding to 16 bits keeps correct) is rounded once. Inlined with a constant op, so
 * that each op's loop over the lanes is its own. */
static inline uint32_t half_op(int op, uint32_t a, uint32_t b, uint32_t c, uint32_t flags)
{
    int bf = flags & 1;
    if (op == 6)
        return a ^ 0x8000u;
    if (op == 7)
        return a & 0x7FFFu;
    if (flags & 4) { /* .ftz: subnormal inputs are signed zeros */
        uint32_t sub = bf ? 0x80u : 0x400u;
        a = (a & 0x7FFF) < sub ? a & 0x8000u : a;
        b = (b & 0x7FFF) < sub ? b & 0x8000u : b;
        c = (c & 0x7FFF) < sub ? c & 0x8000u : c;
    }
    double va = half_value(a, bf), vb = half_value(b, bf), v;
    switch (op) {
    case 0:
        v = fp_add_odd(va, vb);
        break;
    case 1:
        v = fp_add_odd(va, -vb);
        break;
    case 2:
        v = va * vb;
        break;
    case 3:
        v = fp_add_odd(va * vb, half_value(c, bf));
        break;
    case 4:
        v = fminmax_ptx(va, vb, 0, flags);
        break;
    default:
        v = fminmax_ptx(va, vb, 1, flags);
        break;
    }
    if (flags & 24) { /* .sat clamps to [0, 1] (NaN to 0), .relu negatives to 0 */
        if ((flags & 8) && !isnan(v))
            v = v < 0 ? 0 : v > 1 ? 1 : v;
        if ((flags & 16) && !isnan(v) && v < 0)
            v = 0;
        if ((flags & 8) && isnan(v))
            v = 0;
    }
    return fp_round_rn_narrow(v, bf ? FMT_BF16 : FMT_F16, (flags >> 2) & 1);
}

/* d = op(a, b, c) on one or both halves of every lane, for a constant @p OP. */
#define HALF_LANES(OP)                                                                             \
    LANES(m, {                                                                                     \
        uint32_t r = half_op(OP, a[l] & 0xFFFF, b[l] & 0xFFFF, c[l] & 0xFFFF, in->mod);            \
        if (halves == 2)                                                                           \
            r |= half_op(OP, a[l] >> 16, b[l] >> 16, c[l] >> 16, in->mod) << 16;                   \
        d[l] = r;                                                                                  \
    })

enum event h_HALF_ARITH(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]);
    uint32_t *b = in->o[2] != NO_REG ? R32(w, in->o[2]) : a;
    uint32_t *c = in->o[3] != NO_REG ? R32(w, in->o[3]) : a;
    int halves = (in->mod & 2) ? 2 : 1;
    switch (in->width) {
    case 0:
        HALF_LANES(0);
        break;
    case 1:
        HALF_LANES(1);
        break;
    case 2:
        HALF_LANES(2);
        break;
    case 3:
        HALF_LANES(3);
        break;
    case 4:
        HALF_LANES(4);
        break;
    case 5:
        HALF_LANES(5);
        break;
    case 6:
        HALF_LANES(6);
        break;
    default:
        HALF_LANES(7);
        break;
    }
    return EV_NONE;
}

/* The compare bits (a bit a lane of @p m) of half @p h (0 low, 1 high) of a setp or set on f16 or
 * bf16 (mod bit 16). */
static uint32_t half_compare(const struct warp *w, const struct insn *in, uint32_t m, int h)
{
    uint32_t *a = R32(w, in->o[2]), *b = R32(w, in->o[3]), cmp = in->mod & 0xFF, r = 0;
    int bf = (in->mod >> 16) & 1;
    LANES(m, r |= (uint32_t)fcmp(half_value(a[l] >> 16 * h & 0xFFFF, bf),
                                 half_value(b[l] >> 16 * h & 0xFFFF, bf), cmp)
                  << l);
    return r;
}

/* set on f16, bf16 and their pairs: each half compared, and where the compare (combined with c)
 * holds, the destination's one (in->imm: 1.0 in f16 or bf16, or all ones) in that half's place,
 * or in the whole register for one half (in->width 0) and a 32-bit integer destination. */
enum event h_SET_HALF(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), one = (uint32_t)in->imm, r[2] = {0, 0};
    for (int h = 0; h <= in->width; h++)
        r[h] = vm_cmp_combine(w, in, half_compare(w, in, m, h));
    LANES(m, d[l] = ((r[0] >> l & 1) ? one : 0) | ((r[1] >> l & 1) ? one << 16 : 0));
    return EV_NONE;
}

/* ex2 (in->width 0) or tanh (1) of each half (mod bit 0: bf16; bit 1: a pair), as the exact
 * function rounded once to nearest even: within the ISA's error bounds for .approx. */
enum event h_APPROX_HALF(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]);
    int bf = in->mod & 1, pieces = (int)(in->mod >> 1 & 1) + 1;
    struct fp_fmt f = bf ? FMT_BF16 : FMT_F16;
    LANES(m, {
        uint32_t r = 0;
        for (int h = 0; h < pieces; h++) {
            double v = half_value(a[l] >> 16 * h & 0xFFFF, bf);
            r |= fp_round(in->width ? tanh(v) : exp2(v), f, RND_RN, 0) << 16 * h;
        }
        d[l] = r;
    });
    return EV_NONE;
}

/* setp on f16 or bf16: p (and q, its compare negated) as for any setp; on a pair (in->width),
 * p from the low halves and q from the high ones, each combined with c. */
enum event h_SETP_HALF(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t lo = half_compare(w, in, m, 0);
    vm_setp_store(w, in, m, lo, in->width ? half_compare(w, in, m, 1) : ~lo);
    return EV_NONE;
}
