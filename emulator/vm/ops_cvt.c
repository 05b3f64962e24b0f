/**
 * @file ops_cvt.c
 * @brief Conversions between every pair of types, and generic-address conversions.
 *
 * The common conversions (widening, narrowing, f16/bf16 to and from f32,
 * tf32) have opcodes of their own; OP_CVT handles every other pairing,
 * rounding mode, .sat and .ftz through one exact path: read the source as an
 * integer or an exact double, round once to the destination.
 */
#include <math.h>

#include "fp.h"
#include "vm_impl.h"

enum event h_CVT_S64_S32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    int64_t *d = RS64(w, in->o[0]);
    int32_t *a = RS32(w, in->o[1]);
    LANES(m, d[l] = a[l]);
    return EV_NONE;
}

enum event h_CVT_U64_U32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]);
    uint32_t *a = R32(w, in->o[1]);
    LANES(m, d[l] = a[l]);
    return EV_NONE;
}

enum event h_CVT_32_64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    uint64_t *a = R64(w, in->o[1]);
    LANES(m, d[l] = (uint32_t)a[l]);
    return EV_NONE;
}

enum event h_CVT_F32_F16(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = RF32(w, in->o[0]);
    uint32_t *a = R32(w, in->o[1]);
    LANES(m, d[l] = fp_f16_to_f32((uint16_t)a[l]));
    return EV_NONE;
}

enum event h_CVT_F16_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    float *a = RF32(w, in->o[1]);
    LANES(m, d[l] = fp_f32_to_f16(a[l]));
    return EV_NONE;
}

enum event h_CVT_F32_BF16(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    float *d = RF32(w, in->o[0]);
    uint32_t *a = R32(w, in->o[1]);
    LANES(m, d[l] = fp_bf16_to_f32((uint16_t)a[l]));
    return EV_NONE;
}

enum event h_CVT_BF16_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    float *a = RF32(w, in->o[1]);
    LANES(m, d[l] = fp_f32_to_bf16(a[l]));
    return EV_NONE;
}

enum event h_CVT_PACK16_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    float *a = RF32(w, in->o[1]), *b = RF32(w, in->o[2]);
    if (in->width)
        LANES(m, d[l] = (uint32_t)fp_f32_to_bf16(a[l]) << 16 | fp_f32_to_bf16(b[l]));
    else
        LANES(m, d[l] = (uint32_t)fp_f32_to_f16(a[l]) << 16 | fp_f32_to_f16(b[l]));
    return EV_NONE;
}

/* @p x rounded to nearest even in e4m3 or (@p e5m2) e5m2, saturated to the largest finite value
 * (448, 57344) as .satfinite asks, NaN to 0x7F; with @p relu negatives to +0. */
static uint32_t to_fp8(double x, int e5m2, int relu)
{
    if (isnan(x))
        return 0x7Fu;
    if (relu && x < 0)
        x = 0;
    int man = e5m2 ? 2 : 3, emin = e5m2 ? -14 : -6;
    double ax = fabs(x), top = e5m2 ? 57344.0 : 448.0;
    uint32_t sign = signbit(x) ? 0x80u : 0;
    if (ax >= top)
        return sign | (e5m2 ? 0x7Bu : 0x7Eu);
    if (ax == 0)
        return sign;
    int e;
    frexp(ax, &e);
    e = e - 1 < emin ? emin : e - 1;                      /* the binade, or the subnormals' */
    uint32_t q = (uint32_t)nearbyint(ldexp(ax, man - e)); /* quanta of 2^(e - man) */
    if (q < (1u << man))                                  /* subnormal */
        return sign | q;
    return sign | (((uint32_t)(e - emin + 1) << man) + q - (1u << man)); /* a carry moves up */
}

/* One fp8 byte @p v (e4m3, or e5m2 with @p e5m2) as f16 bits, exactly; NaN 0x7FFF; with @p relu
 * negatives +0. */
static uint32_t fp8_to_f16(uint32_t v, int e5m2, int relu)
{
    uint64_t raw = v & 0xFF;
    float f;
    tc_values(e5m2 ? MT_E5M2 : MT_E4M3, &raw, 1, &f);
    if (isnan(f))
        return 0x7FFFu;
    return fp_f32_to_f16(relu && f < 0 ? 0.0f : f);
}

enum event h_CVT_FP8X2(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    int e5m2 = in->mod & 1, relu = (in->mod >> 1) & 1;
    if (in->width) { /* from f16x2 */
        uint32_t *a = R32(w, in->o[1]);
        LANES(m, d[l] = to_fp8(fp_f16_to_f32((uint16_t)(a[l] >> 16)), e5m2, relu) << 8 |
                        to_fp8(fp_f16_to_f32((uint16_t)a[l]), e5m2, relu));
    } else {
        float *a = RF32(w, in->o[1]), *b = RF32(w, in->o[2]);
        LANES(m, d[l] = to_fp8(a[l], e5m2, relu) << 8 | to_fp8(b[l], e5m2, relu));
    }
    return EV_NONE;
}

enum event h_CVT_F16X2_FP8X2(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]);
    int e5m2 = in->mod & 1, relu = (in->mod >> 1) & 1;
    LANES(m, d[l] = fp8_to_f16(a[l] >> 8, e5m2, relu) << 16 | fp8_to_f16(a[l], e5m2, relu));
    return EV_NONE;
}

/* tf32: an f32 with its low 13 mantissa bits cleared after rounding; mod = rounding. */
static uint32_t to_tf32(uint32_t u, uint32_t rnd)
{
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return 0x7FFFE000u;
    if ((u & 0x7F800000u) == 0x7F800000u)
        return u;
    if (rnd == RND_RNA)
        u += 0x1000u;
    else if (rnd == RND_RN)
        u += 0xFFFu + ((u >> 13) & 1);
    return u & ~0x1FFFu;
}

enum event h_CVT_TF32_F32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]);
    LANES(m, d[l] = to_tf32(a[l], in->mod));
    return EV_NONE;
}

/* ---- the general converter ------------------------------------------------------------------- */

static int is_float(int t)
{
    return t >= CT_F16;
}

static int is_signed(int t)
{
    return t >= CT_S8 && t <= CT_S64;
}

static int int_bits(int t)
{
    static const int bits[] = {8, 16, 32, 64, 8, 16, 32, 64};
    return bits[t];
}

/* The source of type @p t from its slot, as an exact double (floats). */
static double read_float(int t, uint64_t raw)
{
    switch (t) {
    case CT_F16:
        return fp_value((uint32_t)raw & 0xFFFF, FMT_F16);
    case CT_BF16:
        return fp_bf16_to_f32((uint16_t)raw);
    case CT_F64:
        return u2d(raw);
    default:
        return u2f((uint32_t)raw); /* f32, tf32 */
    }
}

/* The source of integer type @p t, sign- or zero-extended to 64 bits. */
static int64_t read_int(int t, uint64_t raw)
{
    int bits = int_bits(t);
    if (bits == 64)
        return (int64_t)raw;
    uint64_t v = raw & ((1ull << bits) - 1);
    if (is_signed(t) && (v >> (bits - 1)) & 1)
        v |= ~0ull << bits;
    return (int64_t)v;
}

/* An integer as a double rounded to odd (exact below 2^53). */
static double int_to_odd(int64_t v, int is_unsigned)
{
    long double exact = is_unsigned ? (long double)(uint64_t)v : (long double)v;
    double d = (double)exact;
    long double diff = exact - d;
    if (diff == 0)
        return d;
    uint64_t u = d2u(d);
    if ((diff > 0) != (d > 0))
        u -= 1;
    return u2d(u | 1);
}

/* The sign of @p d - @p v, exactly, for a double @p d rounded from the integer @p v (so integral
 * wherever it differs from it: |v| >= 2^53). */
static int int_cmp(double d, int64_t v, int is_unsigned)
{
    if (is_unsigned)
        return d >= 0x1p64 ? 1 : (uint64_t)d > (uint64_t)v ? 1 : (uint64_t)d < (uint64_t)v ? -1 : 0;
    return d >= 0x1p63 ? 1 : (int64_t)d > v ? 1 : (int64_t)d < v ? -1 : 0;
}

/* A 64-bit integer as a double rounded by @p rnd: the nearest double (ties to even), stepped one
 * unit in the last place when it lies on the wrong side of the value for .rz, .rm or .rp. */
static double int_to_f64(int64_t v, int is_unsigned, int rnd)
{
    double d = is_unsigned ? (double)(uint64_t)v : (double)v;
    int above = int_cmp(d, v, is_unsigned);
    int away = d > 0 ? above > 0 : above < 0; /* |d| > |v| */
    if ((rnd == RND_RZ && away) || (rnd == RND_RM && above > 0))
        return nextafter(d, rnd == RND_RZ ? 0.0 : -INFINITY);
    if (rnd == RND_RP && above < 0)
        return nextafter(d, INFINITY);
    return d;
}

/* A float value rounded to an integral value by an integer rounding mode. */
static double round_int(double v, int rnd)
{
    switch (rnd) {
    case RND_RZI:
        return trunc(v);
    case RND_RMI:
        return floor(v);
    case RND_RPI:
        return ceil(v);
    default:
        return nearbyint(v); /* rni: ties to even */
    }
}

/* A double clamped into integer type @p t (NaN gives 0), as raw bits. */
static uint64_t clamp_int(double v, int t)
{
    if (isnan(v))
        return 0;
    int bits = int_bits(t);
    if (is_signed(t)) {
        double lo = -ldexp(1.0, bits - 1), hi = ldexp(1.0, bits - 1);
        int64_t r = v <= lo   ? (int64_t)lo
                    : v >= hi ? (bits == 64 ? INT64_MAX : (int64_t)hi - 1)
                              : (int64_t)v;
        return bits == 64 ? (uint64_t)r : (uint64_t)r & ((1ull << bits) - 1);
    }
    double hi = ldexp(1.0, bits);
    if (v <= 0)
        return 0;
    if (v >= hi)
        return bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    return (uint64_t)v;
}

/* Integer to integer: extend or truncate; with sat, clamp to the destination's range. */
static uint64_t int_to_int(int64_t v, int from, int to, int sat)
{
    int bits = int_bits(to);
    if (sat) {
        double dv = is_signed(from) ? (double)v : (double)(uint64_t)v;
        if (int_bits(from) == 64 && !is_signed(from) && (uint64_t)v > (1ull << 62))
            dv = ldexp(1.0, 64);
        return clamp_int(dv, to);
    }
    return bits == 64 ? (uint64_t)v : (uint64_t)v & ((1ull << bits) - 1);
}

/*
 * The two conversions index arithmetic is made of, without the general path's doubles: a 32-bit
 * integer to f32 to nearest (the host's own rounding, ties to even) and f32 to s32 toward zero
 * (C's cast, clamped as PTX clamps; NaN gives 0). Returns 0 when @p mod is neither.
 */
static int convert_fast(uint32_t mod, uint64_t raw, uint64_t *out)
{
    int d = (int)CVT_D(mod), a = (int)CVT_A(mod), rnd = (int)CVT_RND(mod);
    if (CVT_SAT(mod))
        return 0;
    if (d == CT_F32 && (a == CT_S32 || a == CT_U32) && (rnd == RND_NONE || rnd == RND_RN)) {
        *out = f2u(a == CT_S32 ? (float)(int32_t)raw : (float)(uint32_t)raw);
        return 1;
    }
    if (d == CT_S32 && a == CT_F32 && rnd == RND_RZI) { /* ftz changes nothing toward zero */
        float f = u2f((uint32_t)raw);
        int32_t v = isnan(f) ? 0 : f >= 0x1p31f ? INT32_MAX : f < -0x1p31f ? INT32_MIN : (int32_t)f;
        *out = (uint32_t)v;
        return 1;
    }
    return 0;
}

/* One lane of OP_CVT: raw source bits to raw destination bits. */
static uint64_t convert(uint32_t mod, uint64_t raw)
{
    uint64_t fast;
    if (convert_fast(mod, raw, &fast))
        return fast;
    int d = (int)CVT_D(mod), a = (int)CVT_A(mod), rnd = (int)CVT_RND(mod);
    int sat = (int)CVT_SAT(mod), ftz = (int)CVT_FTZ(mod);
    if (!is_float(d)) {
        if (!is_float(a))
            return int_to_int(read_int(a, raw), a, d, sat);
        double v = read_float(a, raw);
        if (ftz && a == CT_F32)
            v = fp_ftz((float)v);
        return clamp_int(round_int(v, rnd), d);
    }
    if (d == CT_F64 && !is_float(a))
        return d2u(int_to_f64(read_int(a, raw), !is_signed(a), rnd));
    double v = is_float(a) ? read_float(a, raw) : int_to_odd(read_int(a, raw), !is_signed(a));
    if (ftz && a == CT_F32)
        v = fp_ftz((float)v);
    if (rnd >= RND_RNI) /* an integral value in a float format */
        v = round_int(v, rnd);
    if (sat)
        v = isnan(v) ? 0 : v < 0 ? 0 : v > 1 ? 1 : v;
    enum rnd r = rnd == RND_NONE || rnd >= RND_RNI ? RND_RN : (enum rnd)rnd;
    switch (d) {
    case CT_F16:
        return fp_round(v, FMT_F16, r, 0);
    case CT_BF16:
        return fp_round(v, FMT_BF16, r, 0);
    case CT_F32:
        return fp_round(v, FMT_F32, r, ftz);
    case CT_TF32:
        return to_tf32(f2u((float)v), r);
    default:
        return d2u(v); /* f64 from a float: exact */
    }
}

enum event h_CVT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    int d64 = CVT_D(in->mod) == CT_U64 || CVT_D(in->mod) == CT_S64 || CVT_D(in->mod) == CT_F64;
    int a64 = CVT_A(in->mod) == CT_U64 || CVT_A(in->mod) == CT_S64 || CVT_A(in->mod) == CT_F64 ||
              (in->mod & CVT_WIDE);
    LANES(m, {
        uint64_t raw = a64 ? R64(w, in->o[1])[l] : R32(w, in->o[1])[l];
        uint64_t out = convert(in->mod, raw);
        if (d64)
            R64(w, in->o[0])[l] = out;
        else
            R32(w, in->o[0])[l] = (uint32_t)out;
    });
    return EV_NONE;
}

/* ---- generic addresses -------------------------------------------------------------------------
 */

static uint64_t window(uint32_t space)
{
    return space == SP_SHARED ? SHARED_WINDOW : space == SP_PARAM ? PARAM_WINDOW : LOCAL_WINDOW;
}

enum event h_CVTA_TO_GENERIC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]), base = window(in->mod);
    LANES(m, d[l] = base + (uint32_t)a[l]);
    return EV_NONE;
}

enum event h_CVTA_FROM_GENERIC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]), base = window(in->mod);
    LANES(m, d[l] = a[l] - base);
    return EV_NONE;
}

enum event h_ISSPACEP(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint64_t *a = R64(w, in->o[1]);
    uint32_t r = 0;
    LANES(m, {
        uint64_t v = a[l];
        int sh = v - SHARED_WINDOW < WINDOW_SIZE, lo = v - LOCAL_WINDOW < WINDOW_SIZE;
        int hit = in->mod == SP_SHARED   ? sh
                  : in->mod == SP_LOCAL  ? lo
                  : in->mod == SP_PARAM  ? v - PARAM_WINDOW < WINDOW_SIZE
                  : in->mod == SP_GLOBAL ? mem_in_span(x->mem, v)
                                         : 0;
        r |= (uint32_t)hit << l;
    });
    PRED(w, in->o[0]) = (PRED(w, in->o[0]) & ~m) | r;
    return EV_NONE;
}
