/**
 * @file ops_int.c
 * @brief Integer, logic, compare, select and move instructions.
 *
 * Each handler is one loop over the lanes (LANES); 16-bit values live
 * zero-extended in 32-bit slots, so 16-bit results are masked.
 */
#include "vm_impl.h"

/* d = f(a, b) on one slot type: the shape of most handlers here. */
#define BINARY(NAME, T, REG, EXPR)                                                                 \
    enum event h_##NAME(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)         \
    {                                                                                              \
        (void)x;                                                                                   \
        T *d = (T *)REG(w, in->o[0]);                                                              \
        const T *a = (const T *)REG(w, in->o[1]), *b = (const T *)REG(w, in->o[2]);                \
        LANES(m, d[l] = (EXPR));                                                                   \
        return EV_NONE;                                                                            \
    }

#define UNARY(NAME, T, REG, EXPR)                                                                  \
    enum event h_##NAME(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)         \
    {                                                                                              \
        (void)x;                                                                                   \
        T *d = (T *)REG(w, in->o[0]);                                                              \
        const T *a = (const T *)REG(w, in->o[1]);                                                  \
        LANES(m, d[l] = (EXPR));                                                                   \
        return EV_NONE;                                                                            \
    }

#define TERNARY(NAME, T, REG, EXPR)                                                                \
    enum event h_##NAME(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)         \
    {                                                                                              \
        (void)x;                                                                                   \
        T *d = (T *)REG(w, in->o[0]);                                                              \
        const T *a = (const T *)REG(w, in->o[1]), *b = (const T *)REG(w, in->o[2]);                \
        const T *c = (const T *)REG(w, in->o[3]);                                                  \
        LANES(m, d[l] = (EXPR));                                                                   \
        return EV_NONE;                                                                            \
    }

static inline int32_t sat32(int64_t v)
{
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* ---- arithmetic ------------------------------------------------------------------------- */

BINARY(ADD_I16, uint32_t, R32, (a[l] + b[l]) & 0xFFFF)
BINARY(ADD_I32, uint32_t, R32, a[l] + b[l])
BINARY(ADD_SAT_S32, int32_t, RS32, sat32((int64_t)a[l] + b[l]))
BINARY(ADD_I64, uint64_t, R64, a[l] + b[l])
BINARY(SUB_I16, uint32_t, R32, (a[l] - b[l]) & 0xFFFF)
BINARY(SUB_I32, uint32_t, R32, a[l] - b[l])
BINARY(SUB_SAT_S32, int32_t, RS32, sat32((int64_t)a[l] - b[l]))
BINARY(SUB_I64, uint64_t, R64, a[l] - b[l])
BINARY(MUL_LO_I16, uint32_t, R32, (a[l] * b[l]) & 0xFFFF)
BINARY(MUL_LO_I32, uint32_t, R32, a[l] * b[l])
BINARY(MUL_LO_I64, uint64_t, R64, a[l] * b[l])
BINARY(MUL_HI_S32, int32_t, RS32, (int32_t)(((int64_t)a[l] * b[l]) >> 32))
BINARY(MUL_HI_U32, uint32_t, R32, (uint32_t)(((uint64_t)a[l] * b[l]) >> 32))
BINARY(MUL_HI_S64, int64_t, RS64, (int64_t)(((__int128)a[l] * b[l]) >> 64))
BINARY(MUL_HI_U64, uint64_t, R64, (uint64_t)(((unsigned __int128)a[l] * b[l]) >> 64))
/* The low 24 bits of a and b, sign-extended, multiplied in 64 bits. */
static inline int64_t mul24s(uint32_t a, uint32_t b)
{
    return (int64_t)((int32_t)(a << 8) >> 8) * ((int32_t)(b << 8) >> 8);
}

BINARY(MUL24_LO_S32, uint32_t, R32, (uint32_t)mul24s(a[l], b[l]))
BINARY(MUL24_LO_U32, uint32_t, R32, (a[l] & 0xFFFFFF) * (b[l] & 0xFFFFFF))
TERNARY(MAD24_LO_S32, uint32_t, R32, (uint32_t)mul24s(a[l], b[l]) + c[l])
TERNARY(MAD24_LO_U32, uint32_t, R32, (a[l] & 0xFFFFFF) * (b[l] & 0xFFFFFF) + c[l])
TERNARY(MAD_LO_I32, uint32_t, R32, a[l] * b[l] + c[l])
TERNARY(MAD_LO_I64, uint64_t, R64, a[l] * b[l] + c[l])
TERNARY(MAD_HI_S32, int32_t, RS32,
        (int32_t)((uint32_t)(((int64_t)a[l] * b[l]) >> 32) + (uint32_t)c[l]))
TERNARY(MAD_HI_U32, uint32_t, R32, (uint32_t)(((uint64_t)a[l] * b[l]) >> 32) + c[l])
TERNARY(SAD_S32, int32_t, RS32,
        (int32_t)((uint32_t)(a[l] > b[l] ? (int64_t)a[l] - b[l] : (int64_t)b[l] - a[l]) +
                  (uint32_t)c[l]))
TERNARY(SAD_U32, uint32_t, R32, (a[l] > b[l] ? a[l] - b[l] : b[l] - a[l]) + c[l])

/* One lane of dp4a or dp2a (OP_DP_B32's mod): c plus the products, modulo 2^32. */
static uint32_t dot(uint32_t a, uint32_t b, uint32_t c, uint32_t mod)
{
    int as = mod & 1, bs = mod >> 1 & 1, form = (int)(mod >> 2 & 3), n = form ? 2 : 4;
    uint32_t s = c;
    for (int i = 0; i < n; i++) {
        int k = form == 2 ? i + 2 : i; /* b's byte */
        int64_t x = form ? (as ? (int16_t)(a >> 16 * i) : (uint16_t)(a >> 16 * i))
                         : (as ? (int8_t)(a >> 8 * i) : (uint8_t)(a >> 8 * i));
        int64_t y = bs ? (int8_t)(b >> 8 * k) : (uint8_t)(b >> 8 * k);
        s += (uint32_t)(x * y);
    }
    return s;
}

enum event h_DP_B32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    uint32_t *c = R32(w, in->o[3]);
    LANES(m, d[l] = dot(a[l], b[l], c[l], in->mod));
    return EV_NONE;
}

/* One lane of OP_CARRY_64 (and of OP_CARRY_32, on values below 2^32 with @p bits 32): the
 * result of a op b (or a's and b's product's half) + c + the carry in @p cf, modulo 2^bits, and
 * in @p cf the carry out. The flag is a carry, as a GPU keeps it: a subtraction is a + ~b + the
 * flag (sub.cc: + 1), so after one the flag is 1 when nothing was borrowed. A chain of
 * subtractions computes the ISA's a - (b + borrow); a chain that sets the flag with add.cc and
 * consumes it with subc gets what a GPU computes (CGBN's multi-word negation relies on it). */
static uint64_t carry_op(uint32_t mod, uint64_t a, uint64_t b, uint64_t c, int bits, int *cf)
{
    int sub = CARRY_KIND(mod) == CARRY_SUB;
    uint64_t mask = bits == 64 ? ~0ull : 0xFFFFFFFFull;
    uint64_t cin = mod & CARRY_IN ? (uint64_t)*cf : (uint64_t)sub; /* sub.cc: a + ~b + 1 */
    unsigned __int128 sum;
    if (sub) {
        sum = (unsigned __int128)a + (~b & mask) + cin;
    } else if (CARRY_KIND(mod) == CARRY_ADD) {
        sum = (unsigned __int128)a + b + cin;
    } else {
        int s = (mod & CARRY_SIGNED) != 0;
        __int128 sa = bits == 64 ? (int64_t)a : (int32_t)a,
                 sb = bits == 64 ? (int64_t)b : (int32_t)b;
        unsigned __int128 p = s ? (unsigned __int128)(sa * sb) : (unsigned __int128)a * b;
        uint64_t half =
            CARRY_KIND(mod) == CARRY_MAD_HI ? (uint64_t)(p >> bits) & mask : (uint64_t)p & mask;
        sum = (unsigned __int128)half + c + cin;
    }
    *cf = (int)(sum >> bits & 1);
    return (uint64_t)sum & mask;
}

/* The lanes of @p m through carry_op(), each with its own carry flag (warp::carry). */
#define CARRY_LANES(T, REG, BITS)                                                                  \
    do {                                                                                           \
        T *d = REG(w, in->o[0]), *a = REG(w, in->o[1]), *b = REG(w, in->o[2]);                     \
        T *c = CARRY_KIND(in->mod) >= CARRY_MAD_LO ? REG(w, in->o[3]) : NULL;                      \
        uint32_t out = w->carry;                                                                   \
        LANES(m, {                                                                                 \
            int cf = w->carry >> l & 1;                                                            \
            d[l] = (T)carry_op(in->mod, a[l], b[l], c ? c[l] : 0, BITS, &cf);                      \
            out = (out & ~(1u << l)) | (uint32_t)cf << l;                                          \
        });                                                                                        \
        if (in->mod & CARRY_OUT)                                                                   \
            w->carry = out;                                                                        \
    } while (0)

enum event h_CARRY_32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    CARRY_LANES(uint32_t, R32, 32);
    return EV_NONE;
}

enum event h_CARRY_64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    CARRY_LANES(uint64_t, R64, 64);
    return EV_NONE;
}

/* One lane of fns (OP_FNS_B32). */
static uint32_t nth_set_bit(uint32_t mask, uint32_t base, int32_t offset)
{
    if (base > 31)
        return 0xFFFFFFFFu; /* undefined in the ISA: not found */
    if (offset == 0)
        return mask >> base & 1 ? base : 0xFFFFFFFFu;
    int64_t count = offset > 0 ? (int64_t)offset - 1 : -(int64_t)offset - 1;
    for (int pos = (int)base, inc = offset > 0 ? 1 : -1; pos >= 0 && pos < 32; pos += inc)
        if (mask >> pos & 1 && count-- == 0)
            return (uint32_t)pos;
    return 0xFFFFFFFFu;
}

enum event h_FNS_B32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *mask = R32(w, in->o[1]), *base = R32(w, in->o[2]);
    int32_t *offset = RS32(w, in->o[3]);
    LANES(m, d[l] = nth_set_bit(mask[l], base[l], offset[l]));
    return EV_NONE;
}

/* The widening forms read 16- or 32-bit sources and write a register twice as wide. */
enum event h_MUL_WIDE_S16(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    LANES(m, d[l] = (uint32_t)((int32_t)(int16_t)a[l] * (int16_t)b[l]));
    return EV_NONE;
}

enum event h_MUL_WIDE_U16(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    LANES(m, d[l] = (a[l] & 0xFFFF) * (b[l] & 0xFFFF));
    return EV_NONE;
}

enum event h_MUL_WIDE_S32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    int64_t *d = RS64(w, in->o[0]);
    int32_t *a = RS32(w, in->o[1]), *b = RS32(w, in->o[2]);
    LANES(m, d[l] = (int64_t)a[l] * b[l]);
    return EV_NONE;
}

enum event h_MUL_WIDE_U32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]);
    uint32_t *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    LANES(m, d[l] = (uint64_t)a[l] * b[l]);
    return EV_NONE;
}

enum event h_MAD_WIDE_S32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    int64_t *d = RS64(w, in->o[0]), *c = RS64(w, in->o[3]);
    int32_t *a = RS32(w, in->o[1]), *b = RS32(w, in->o[2]);
    LANES(m, d[l] = (int64_t)((uint64_t)((int64_t)a[l] * b[l]) + (uint64_t)c[l]));
    return EV_NONE;
}

enum event h_MAD_WIDE_U32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *c = R64(w, in->o[3]);
    uint32_t *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    LANES(m, d[l] = (uint64_t)a[l] * b[l] + c[l]);
    return EV_NONE;
}

/* Division by zero gives all ones (and rem the dividend) instead of a host trap: PTX leaves
 * the value unspecified. INT_MIN / -1 wraps. */
BINARY(DIV_U32, uint32_t, R32, b[l] ? a[l] / b[l] : 0xFFFFFFFFu)
BINARY(DIV_U64, uint64_t, R64, b[l] ? a[l] / b[l] : UINT64_MAX)
BINARY(DIV_S32, int32_t, RS32,
       b[l] == 0 ? -1 : (b[l] == -1 ? (int32_t)(0u - (uint32_t)a[l]) : a[l] / b[l]))
BINARY(DIV_S64, int64_t, RS64,
       b[l] == 0 ? -1 : (b[l] == -1 ? (int64_t)(0ull - (uint64_t)a[l]) : a[l] / b[l]))
BINARY(REM_U32, uint32_t, R32, b[l] ? a[l] % b[l] : a[l])
BINARY(REM_U64, uint64_t, R64, b[l] ? a[l] % b[l] : a[l])
BINARY(REM_S32, int32_t, RS32, b[l] == 0 ? a[l] : b[l] == -1 ? 0 : a[l] % b[l])
BINARY(REM_S64, int64_t, RS64, b[l] == 0 ? a[l] : b[l] == -1 ? 0 : a[l] % b[l])
UNARY(ABS_S32, int32_t, RS32, a[l] < 0 ? (int32_t)(0u - (uint32_t)a[l]) : a[l])
UNARY(ABS_S64, int64_t, RS64, a[l] < 0 ? (int64_t)(0ull - (uint64_t)a[l]) : a[l])
UNARY(NEG_S32, uint32_t, R32, 0u - a[l])
UNARY(NEG_S64, uint64_t, R64, 0ull - a[l])
BINARY(MIN_S32, int32_t, RS32, a[l] < b[l] ? a[l] : b[l])
BINARY(MIN_U32, uint32_t, R32, a[l] < b[l] ? a[l] : b[l])
BINARY(MIN_S64, int64_t, RS64, a[l] < b[l] ? a[l] : b[l])
BINARY(MIN_U64, uint64_t, R64, a[l] < b[l] ? a[l] : b[l])
BINARY(MAX_S32, int32_t, RS32, a[l] > b[l] ? a[l] : b[l])
BINARY(MAX_U32, uint32_t, R32, a[l] > b[l] ? a[l] : b[l])
BINARY(MAX_S64, int64_t, RS64, a[l] > b[l] ? a[l] : b[l])
BINARY(MAX_U64, uint64_t, R64, a[l] > b[l] ? a[l] : b[l])
/* 16-bit forms: the slots hold the value zero-extended; signed ones read its low 16 bits. */
#define S16(v) ((int32_t)(int16_t)(v))
BINARY(DIV_U16, uint32_t, R32, (b[l] & 0xFFFF) ? (a[l] & 0xFFFF) / (b[l] & 0xFFFF) : 0xFFFF)
BINARY(DIV_S16, uint32_t, R32,
       (uint32_t)(S16(b[l]) ? S16(a[l]) / S16(b[l]) : -1) & 0xFFFF) /* -32768 / -1 wraps */
BINARY(REM_U16, uint32_t, R32, (b[l] & 0xFFFF) ? (a[l] & 0xFFFF) % (b[l] & 0xFFFF) : a[l] & 0xFFFF)
BINARY(REM_S16, uint32_t, R32, (uint32_t)(S16(b[l]) ? S16(a[l]) % S16(b[l]) : S16(a[l])) & 0xFFFF)
BINARY(MIN_U16, uint32_t, R32, (a[l] & 0xFFFF) < (b[l] & 0xFFFF) ? a[l] & 0xFFFF : b[l] & 0xFFFF)
BINARY(MIN_S16, uint32_t, R32, (uint32_t)(S16(a[l]) < S16(b[l]) ? S16(a[l]) : S16(b[l])) & 0xFFFF)
BINARY(MAX_U16, uint32_t, R32, (a[l] & 0xFFFF) > (b[l] & 0xFFFF) ? a[l] & 0xFFFF : b[l] & 0xFFFF)
BINARY(MAX_S16, uint32_t, R32, (uint32_t)(S16(a[l]) > S16(b[l]) ? S16(a[l]) : S16(b[l])) & 0xFFFF)
UNARY(ABS_S16, uint32_t, R32, (uint32_t)(S16(a[l]) < 0 ? -S16(a[l]) : S16(a[l])) & 0xFFFF)
UNARY(NEG_S16, uint32_t, R32, (0u - a[l]) & 0xFFFF)
#undef S16
static inline int32_t relu(int32_t v)
{
    return v < 0 ? 0 : v;
}
BINARY(MIN_RELU_S32, int32_t, RS32, relu(a[l] < b[l] ? a[l] : b[l]))
BINARY(MAX_RELU_S32, int32_t, RS32, relu(a[l] > b[l] ? a[l] : b[l]))

/* The packed .u16x2 and .s16x2 forms: each half-word of a and b on its own. */
enum { X2_ADD, X2_MIN, X2_MAX };

static uint32_t x2(uint32_t a, uint32_t b, int op, int is_signed, int use_relu)
{
    uint32_t d = 0;
    for (int h = 0; h < 32; h += 16) {
        int32_t u = (int32_t)(a >> h & 0xFFFF), v = (int32_t)(b >> h & 0xFFFF), r;
        if (is_signed)
            u = (int16_t)u, v = (int16_t)v;
        r = op == X2_ADD ? u + v : op == X2_MIN ? (u < v ? u : v) : (u > v ? u : v);
        d |= ((uint32_t)(use_relu ? relu(r) : r) & 0xFFFF) << h;
    }
    return d;
}
BINARY(ADD_I16X2, uint32_t, R32, x2(a[l], b[l], X2_ADD, 0, 0))
BINARY(MIN_S16X2, uint32_t, R32, x2(a[l], b[l], X2_MIN, 1, 0))
BINARY(MIN_U16X2, uint32_t, R32, x2(a[l], b[l], X2_MIN, 0, 0))
BINARY(MAX_S16X2, uint32_t, R32, x2(a[l], b[l], X2_MAX, 1, 0))
BINARY(MAX_U16X2, uint32_t, R32, x2(a[l], b[l], X2_MAX, 0, 0))
BINARY(MIN_RELU_S16X2, uint32_t, R32, x2(a[l], b[l], X2_MIN, 1, 1))
BINARY(MAX_RELU_S16X2, uint32_t, R32, x2(a[l], b[l], X2_MAX, 1, 1))

/* ---- bits ----------------------------------------------------------------------------------- */

UNARY(POPC_B32, uint32_t, R32, (uint32_t)__builtin_popcount(a[l]))
UNARY(CLZ_B32, uint32_t, R32, a[l] ? (uint32_t)__builtin_clz(a[l]) : 32)
static uint64_t brev(uint64_t v, int width)
{
    uint64_t r = 0;
    for (int i = 0; i < width; i++)
        r |= ((v >> i) & 1) << (width - 1 - i);
    return r;
}

UNARY(BREV_B32, uint32_t, R32, (uint32_t)brev(a[l], 32))
UNARY(BREV_B64, uint64_t, R64, brev(a[l], 64))

enum event h_POPC_B64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    uint64_t *a = R64(w, in->o[1]);
    LANES(m, d[l] = (uint32_t)__builtin_popcountll(a[l]));
    return EV_NONE;
}

enum event h_CLZ_B64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    uint64_t *a = R64(w, in->o[1]);
    LANES(m, d[l] = a[l] ? (uint32_t)__builtin_clzll(a[l]) : 64);
    return EV_NONE;
}

/* bfind: the most significant bit that differs from the sign (unsigned: the top set bit). */
static uint32_t bfind(uint32_t v, int is_signed, int shiftamt)
{
    if (is_signed && (int32_t)v < 0)
        v = ~v;
    if (!v)
        return 0xFFFFFFFFu;
    uint32_t pos = 31 - (uint32_t)__builtin_clz(v);
    return shiftamt ? 31 - pos : pos;
}

UNARY(BFIND_U32, uint32_t, R32, bfind(a[l], 0, (int)in->mod))
UNARY(BFIND_S32, uint32_t, R32, bfind(a[l], 1, (int)in->mod))

/* bfe: pos and len are taken modulo 256 and clamped to the width, as the ISA says. */
static uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, int width, int is_signed)
{
    pos &= 0xFF, len &= 0xFF;
    int sbit =
        is_signed
            ? (int)((a >> (pos + len - 1 < (uint32_t)width ? pos + len - 1 : (uint32_t)width - 1)) &
                    1)
            : 0;
    if (len == 0)
        return 0;
    uint64_t out = 0;
    for (uint32_t i = 0; i < len && i < (uint32_t)width; i++) {
        uint32_t bit = pos + i;
        uint64_t v = bit < (uint32_t)width ? (a >> bit) & 1 : (uint64_t)sbit;
        out |= v << i;
    }
    if (is_signed && len < (uint32_t)width && sbit)
        out |= ~0ull << len;
    return width == 64 ? out : out & 0xFFFFFFFFu;
}

enum event h_BFE_U32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *p = R32(w, in->o[2]);
    uint32_t *n = R32(w, in->o[3]);
    LANES(m, d[l] = (uint32_t)bfe(a[l], p[l], n[l], 32, 0));
    return EV_NONE;
}

enum event h_BFE_S32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *p = R32(w, in->o[2]);
    uint32_t *n = R32(w, in->o[3]);
    LANES(m, d[l] = (uint32_t)bfe(a[l], p[l], n[l], 32, 1));
    return EV_NONE;
}

enum event h_BFE_U64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]);
    uint32_t *p = R32(w, in->o[2]), *n = R32(w, in->o[3]);
    LANES(m, d[l] = bfe(a[l], p[l], n[l], 64, 0));
    return EV_NONE;
}

enum event h_BFE_S64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]);
    uint32_t *p = R32(w, in->o[2]), *n = R32(w, in->o[3]);
    LANES(m, d[l] = bfe(a[l], p[l], n[l], 64, 1));
    return EV_NONE;
}

static uint64_t bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int width)
{
    pos &= 0xFF, len &= 0xFF;
    for (uint32_t i = 0; i < len && pos + i < (uint32_t)width; i++)
        b = (b & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
    return b;
}

enum event h_BFI_B32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    uint32_t *p = R32(w, in->o[3]), *n = R32(w, in->o[4]);
    LANES(m, d[l] = (uint32_t)bfi(a[l], b[l], p[l], n[l], 32));
    return EV_NONE;
}

enum event h_BFI_B64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]), *b = R64(w, in->o[2]);
    uint32_t *p = R32(w, in->o[3]), *n = R32(w, in->o[4]);
    LANES(m, d[l] = bfi(a[l], b[l], p[l], n[l], 64));
    return EV_NONE;
}

/* ---- logic and shifts ------------------------------------------------------------------------ */

BINARY(AND_B32, uint32_t, R32, a[l] & b[l])
BINARY(OR_B32, uint32_t, R32, a[l] | b[l])
BINARY(XOR_B32, uint32_t, R32, a[l] ^ b[l])
UNARY(NOT_B32, uint32_t, R32, ~a[l])
UNARY(NOT_B16, uint32_t, R32, ~a[l] & 0xFFFF)
UNARY(CNOT_B32, uint32_t, R32, a[l] == 0)
BINARY(AND_B64, uint64_t, R64, a[l] & b[l])
BINARY(OR_B64, uint64_t, R64, a[l] | b[l])
BINARY(XOR_B64, uint64_t, R64, a[l] ^ b[l])
UNARY(NOT_B64, uint64_t, R64, ~a[l])

/* Predicates are whole lane masks: only the lanes in m change. */
#define PRED_OP(NAME, EXPR)                                                                        \
    enum event h_##NAME(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)         \
    {                                                                                              \
        (void)x;                                                                                   \
        uint32_t a = PRED(w, in->o[1]);                                                            \
        uint32_t b = in->o[2] != NO_REG ? PRED(w, in->o[2]) : 0;                                   \
        (void)b;                                                                                   \
        PRED(w, in->o[0]) = (PRED(w, in->o[0]) & ~m) | ((EXPR)&m);                                 \
        return EV_NONE;                                                                            \
    }

PRED_OP(AND_PRED, a &b)
PRED_OP(OR_PRED, a | b)
PRED_OP(XOR_PRED, a ^ b)
PRED_OP(NOT_PRED, ~a)
PRED_OP(MOV_PRED, a)

/* lop3: bit i of the result is bit (a_i << 2 | b_i << 1 | c_i) of the lookup table, which is
 * what F(0xF0, 0xCC, 0xAA) computes for the function F the table encodes. */
static uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
    uint32_t r = 0;
    for (int k = 0; k < 8; k++)
        if (lut >> k & 1)
            r |= (k & 4 ? a : ~a) & (k & 2 ? b : ~b) & (k & 1 ? c : ~c);
    return r;
}

TERNARY(LOP3_B32, uint32_t, R32, lop3(a[l], b[l], c[l], in->mod))

/* Shift amounts are unsigned 32-bit values; anything at or past the width shifts all out. */
BINARY(SHL_B16, uint32_t, R32, b[l] >= 16 ? 0 : (a[l] << b[l]) & 0xFFFF)
BINARY(SHL_B32, uint32_t, R32, b[l] >= 32 ? 0 : a[l] << b[l])
BINARY(SHR_U16, uint32_t, R32, b[l] >= 16 ? 0 : (a[l] & 0xFFFF) >> b[l])
BINARY(SHR_U32, uint32_t, R32, b[l] >= 32 ? 0 : a[l] >> b[l])
BINARY(SHR_S16, uint32_t, R32,
       (uint32_t)(int32_t)((int16_t)a[l] >> (b[l] >= 16 ? 15 : b[l])) & 0xFFFF)
BINARY(SHR_S32, int32_t, RS32, a[l] >> ((uint32_t)b[l] >= 32 ? 31 : b[l]))

enum event h_SHL_B64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]);
    uint32_t *b = R32(w, in->o[2]);
    LANES(m, d[l] = b[l] >= 64 ? 0 : a[l] << b[l]);
    return EV_NONE;
}

enum event h_SHR_U64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]);
    uint32_t *b = R32(w, in->o[2]);
    LANES(m, d[l] = b[l] >= 64 ? 0 : a[l] >> b[l]);
    return EV_NONE;
}

enum event h_SHR_S64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    int64_t *d = RS64(w, in->o[0]), *a = RS64(w, in->o[1]);
    uint32_t *b = R32(w, in->o[2]);
    LANES(m, d[l] = a[l] >> (b[l] >= 64 ? 63 : b[l]));
    return EV_NONE;
}

/* shf: shift the 64-bit b:a left or right, keep 32 bits; wrap takes the amount mod 32, clamp
 * caps it at 32. */
static uint32_t shf(uint32_t lo, uint32_t hi, uint32_t n, uint32_t mode)
{
    n = (mode & 2) ? (n > 32 ? 32 : n) : n & 31;
    uint64_t v = (uint64_t)hi << 32 | lo;
    return (mode & 1) ? (uint32_t)(v >> n) : (uint32_t)((v << n) >> 32);
}

TERNARY(SHF_B32, uint32_t, R32, shf(a[l], b[l], c[l], in->mod))

/* prmt: each selector nibble picks a byte of b:a (bit 3: replicate its sign). */
static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, uint32_t mode)
{
    uint64_t bytes = (uint64_t)b << 32 | a;
    uint32_t sel[4];
    uint32_t n = c & 3;
    for (uint32_t i = 0; i < 4; i++) {
        switch (mode) {
        case 1:
            sel[i] = (n + i) & 7;
            break; /* f4e: forward from byte n */
        case 2:
            sel[i] = (n - i) & 7;
            break; /* b4e: backward from byte n */
        case 3:
            sel[i] = n;
            break; /* rc8: byte n everywhere */
        case 4:
            sel[i] = i > n ? i : n;
            break; /* ecl: clamp on the left */
        case 5:
            sel[i] = i < n ? i : n;
            break; /* ecr: clamp on the right */
        case 6:
            sel[i] = (c & 1) * 2 + (i & 1);
            break; /* rc16: half c[0] twice */
        default:
            sel[i] = (c >> (4 * i)) & 0xF; /* nibble i selects byte i */
        }
    }
    uint32_t out = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t byte = (uint32_t)(bytes >> (8 * (sel[i] & 7))) & 0xFF;
        if (mode == 0 && (sel[i] & 8))
            byte = (byte & 0x80) ? 0xFF : 0;
        out |= byte << (8 * i);
    }
    return out;
}

TERNARY(PRMT_B32, uint32_t, R32, prmt(a[l], b[l], c[l], in->mod))

/* ---- compare and select -------------------------------------------------------------------------
 */

/* The integer compares; unsigned ones (lo, ls, hi, hs) on signed types compare as unsigned. */
#define ICMP(T, U, A, B, CMP)                                                                      \
    ((CMP) == CMP_EQ   ? (A) == (B)                                                                \
     : (CMP) == CMP_NE ? (A) != (B)                                                                \
     : (CMP) == CMP_LT ? (A) < (B)                                                                 \
     : (CMP) == CMP_LE ? (A) <= (B)                                                                \
     : (CMP) == CMP_GT ? (A) > (B)                                                                 \
     : (CMP) == CMP_GE ? (A) >= (B)                                                                \
     : (CMP) == CMP_LO ? (U)(A) < (U)(B)                                                           \
     : (CMP) == CMP_LS ? (U)(A) <= (U)(B)                                                          \
     : (CMP) == CMP_HI ? (U)(A) > (U)(B)                                                           \
                       : (U)(A) >= (U)(B))

/* The compare bits of every lane for one constant CMP: a loop with no branch in it. */
#define SETP_BITS(T, U, NARROW, CMP)                                                               \
    for (int l = 0; l < 32; l++)                                                                   \
    r |= (uint32_t)(ICMP(T, U, (T)NARROW(a[l]), (T)NARROW(b[l]), CMP) != 0) << l

/* One case of setp's switch: the loop for a constant CMP. */
#define SETP_CASE(T, U, NARROW, CMP)                                                               \
    case CMP:                                                                                      \
        SETP_BITS(T, U, NARROW, CMP);                                                              \
        break

/* setp on integers: the compare is chosen once per instruction, not once per lane. */
#define SETP_INT(NAME, T, U, REG, NARROW)                                                          \
    enum event h_##NAME(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)         \
    {                                                                                              \
        (void)x;                                                                                   \
        const T *a = (const T *)REG(w, in->o[2]), *b = (const T *)REG(w, in->o[3]);                \
        uint32_t r = 0;                                                                            \
        switch (in->mod & 0xFF) {                                                                  \
            SETP_CASE(T, U, NARROW, CMP_EQ);                                                       \
            SETP_CASE(T, U, NARROW, CMP_NE);                                                       \
            SETP_CASE(T, U, NARROW, CMP_LT);                                                       \
            SETP_CASE(T, U, NARROW, CMP_LE);                                                       \
            SETP_CASE(T, U, NARROW, CMP_GT);                                                       \
            SETP_CASE(T, U, NARROW, CMP_GE);                                                       \
            SETP_CASE(T, U, NARROW, CMP_LO);                                                       \
            SETP_CASE(T, U, NARROW, CMP_LS);                                                       \
            SETP_CASE(T, U, NARROW, CMP_HI);                                                       \
        default:                                                                                   \
            SETP_BITS(T, U, NARROW, CMP_HS);                                                       \
        }                                                                                          \
        vm_setp_store(w, in, m, r, ~r);                                                            \
        return EV_NONE;                                                                            \
    }

#define AS_IS(v) (v)
#define S16(v) ((int16_t)(v))
#define U16(v) ((uint16_t)(v))
SETP_INT(SETP_S16, int32_t, uint16_t, RS32, S16)
SETP_INT(SETP_U16, uint32_t, uint16_t, R32, U16)
SETP_INT(SETP_S32, int32_t, uint32_t, RS32, AS_IS)
SETP_INT(SETP_U32, uint32_t, uint32_t, R32, AS_IS)
SETP_INT(SETP_S64, int64_t, uint64_t, RS64, AS_IS)
SETP_INT(SETP_U64, uint64_t, uint64_t, R64, AS_IS)

/* set: all ones (or 1.0f) where the compare holds. */
#define SET_INT(NAME, T, U, REG)                                                                   \
    enum event h_##NAME(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)         \
    {                                                                                              \
        (void)x;                                                                                   \
        const T *a = (const T *)REG(w, in->o[2]), *b = (const T *)REG(w, in->o[3]);                \
        uint32_t cmp = in->mod & 0xFF, r = 0;                                                      \
        LANES(m, r |= (uint32_t)ICMP(T, U, a[l], b[l], cmp) << l);                                 \
        vm_set_store(w, in, m, r, (in->mod >> 17) & 1 ? 0x3F800000u : 0xFFFFFFFFu);                \
        return EV_NONE;                                                                            \
    }

SET_INT(SET_S32, int32_t, uint32_t, RS32)
SET_INT(SET_U32, uint32_t, uint32_t, R32)

enum event h_SELP_32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    uint32_t p = PRED(w, in->o[3]);
    LANES(m, d[l] = (p >> l & 1) ? a[l] : b[l]);
    return EV_NONE;
}

enum event h_SELP_64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]), *b = R64(w, in->o[2]);
    uint32_t p = PRED(w, in->o[3]);
    LANES(m, d[l] = (p >> l & 1) ? a[l] : b[l]);
    return EV_NONE;
}

/* ---- moves ----------------------------------------------------------------------------------- */

UNARY(MOV_32, uint32_t, R32, a[l])
UNARY(MOV_64, uint64_t, R64, a[l])

enum event h_PACK_32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    LANES(m, d[l] = (a[l] & 0xFFFF) | b[l] << 16);
    return EV_NONE;
}

enum event h_PACK_64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]);
    uint32_t *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    LANES(m, d[l] = a[l] | (uint64_t)b[l] << 32);
    return EV_NONE;
}

/* The unpacking moves may name the sink `_` for a piece (NO_REG): it is skipped. */
enum event h_UNPACK_32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *s = R32(w, in->o[0]);
    for (int i = 0; i < 2; i++)
        if (in->o[1 + i] != NO_REG) {
            uint32_t *d = R32(w, in->o[1 + i]);
            int shift = 16 * i;
            LANES(m, d[l] = (s[l] >> shift) & 0xFFFF);
        }
    return EV_NONE;
}

enum event h_UNPACK_64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *s = R64(w, in->o[0]);
    for (int i = 0; i < 2; i++)
        if (in->o[1 + i] != NO_REG) {
            uint32_t *d = R32(w, in->o[1 + i]);
            int shift = 32 * i;
            LANES(m, d[l] = (uint32_t)(s[l] >> shift));
        }
    return EV_NONE;
}

enum event h_UNPACK_64_16(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *s = R64(w, in->o[0]);
    for (int i = 0; i < 4; i++)
        if (in->o[1 + i] != NO_REG) {
            uint32_t *d = R32(w, in->o[1 + i]);
            int shift = 16 * i;
            LANES(m, d[l] = (uint32_t)(s[l] >> shift) & 0xFFFF);
        }
    return EV_NONE;
}

/* copysign.f64 is a bit operation: the magnitude of b with a's sign bit. */
enum event h_COPYSIGN_F64(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint64_t *d = R64(w, in->o[0]), *a = R64(w, in->o[1]), *b = R64(w, in->o[2]);
    LANES(m, d[l] = (b[l] & ~(1ull << 63)) | (a[l] & 1ull << 63));
    return EV_NONE;
}

/* bmsk: the PTX ISA's mask0 & ~mask1, mask0 = ones from the position, mask1 = ones from the
 * position plus the width (none when that reaches bit 32 or, in .clamp, either operand does). */
static uint32_t bmsk(uint32_t a, uint32_t b, int wrap)
{
    uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
    int clamped = !wrap && (a >= 32 || b >= 32);
    uint32_t mask0 = !wrap && a >= 32 ? 0 : ~0u << a1;
    uint32_t mask1 = sum >= 32 || clamped ? 0 : b1 == 0 ? ~0u : ~0u << sum;
    return mask0 & ~mask1;
}

enum event h_BMSK_B32(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]), *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    int wrap = (int)in->mod;
    LANES(m, d[l] = bmsk(a[l], b[l], wrap));
    return EV_NONE;
}
