/**
 * @file decode_ops.c
 * @brief Decoding the integer, logic, compare, move, floating-point and
 *        conversion instructions.
 */
#include <string.h>

#include "decode_impl.h"

/* The single type of an instruction that takes one, or 0 (after dec_unsupported()). */
static int one_type(struct dctx *c, const struct mn *m, struct mtype *t)
{
    struct mtype types[4];
    if (mn_types(m, types, 4) != 1)
        return dec_bad(c, "expected exactly one type"), 0;
    *t = types[0];
    return 1;
}

static int is_int(char kind)
{
    return kind == 'b' || kind == 'u' || kind == 's';
}

static int is_half(char kind)
{
    return kind == 'h' || kind == 'H' || kind == 'g' || kind == 'G';
}

/* d, then @p nsrc sources of one kind and width: the common three- and four-operand shape. */
static struct insn *emit_dn(struct dctx *c, enum op op, struct operand *o, int n, int nsrc,
                            char kind, int dbits, int sbits)
{
    uint32_t d, s[INSN_OPS];
    if (n != nsrc + 1)
        return dec_bad(c, "expected %d operands", nsrc + 1), NULL;
    if (dec_dst(c, &o[0], dbits, &d))
        return NULL;
    for (int i = 0; i < nsrc; i++)
        if (dec_src(c, &o[1 + i], kind, sbits, &s[i]))
            return NULL;
    struct insn *in = dec_emit(c, op);
    in->o[0] = d;
    for (int i = 0; i < nsrc; i++)
        in->o[1 + i] = s[i];
    return in;
}

/* ---- arithmetic ------------------------------------------------------------------------ */

/* min's and max's .NaN and .xorsign.abs as MINMAX_NAN | MINMAX_XORSIGN; UINT32_MAX for .abs or
 * .xorsign alone. */
static uint32_t minmax_mods(const struct mn *m)
{
    int xorsign = mn_has(m, "xorsign");
    if (xorsign != mn_has(m, "abs"))
        return UINT32_MAX;
    return (mn_has(m, "NaN") ? MINMAX_NAN : 0) | (xorsign ? MINMAX_XORSIGN : 0);
}

/* Half-precision arithmetic: HALF_ARITH with the operation in width. */
static int half_arith(struct dctx *c, const struct mn *m, struct operand *o, int n, int op,
                      struct mtype t)
{
    int nsrc = op == 3 ? 3 : op >= 6 ? 1 : 2;
    uint32_t mods = op == 4 || op == 5 ? minmax_mods(m) : 0;
    if (mods == UINT32_MAX)
        return dec_bad(c, "this form of %s is not emulated", m->base);
    struct insn *in = emit_dn(c, OP_HALF_ARITH, o, n, nsrc, 'b', 32, 32);
    if (!in)
        return -1;
    in->width = (uint8_t)op;
    in->mod = (t.kind == 'g' || t.kind == 'G') | (t.kind == 'H' || t.kind == 'G') << 1 |
              mn_has(m, "ftz") << 2 | mn_has(m, "sat") << 3 | mn_has(m, "relu") << 4 | mods;
    return 0;
}

/* add, sub, mul, fma, mad on floats: the fast opcode for plain round-to-nearest fp32. */
static int float_arith(struct dctx *c, const struct mn *m, struct operand *o, int n, int op,
                       struct mtype t)
{
    enum rnd r = mn_rounding(m);
    int ftz = mn_has(m, "ftz"), sat = mn_has(m, "sat");
    int nsrc = op == 3 ? 3 : 2;
    if (t.bits == 64) {
        struct insn *in = emit_dn(c, OP_ARITH_F64, o, n, nsrc, 'f', 64, 64);
        if (!in)
            return -1;
        in->width = (uint8_t)op;
        in->mod = r == RND_NONE ? RND_RN : r;
        return 0;
    }
    static const enum op fast[] = {OP_ADD_F32, OP_SUB_F32, OP_MUL_F32, OP_FMA_F32};
    int plain = (r == RND_NONE || r == RND_RN) && !ftz && !sat;
    struct insn *in = emit_dn(c, plain ? fast[op] : OP_ARITH_F32_X, o, n, nsrc, 'f', 32, 32);
    if (!in)
        return -1;
    in->width = (uint8_t)op;
    in->mod = (uint32_t)(r == RND_NONE ? RND_RN : r) | (uint32_t)ftz << 4 | (uint32_t)sat << 5;
    return 0;
}

/* mul.{lo,hi,wide} and mad.{lo,hi,wide} on integers. */
static int int_mul(struct dctx *c, const struct mn *m, struct operand *o, int n, int mad,
                   struct mtype t)
{
    int s = t.kind == 's', hi = mn_has(m, "hi"), wide = mn_has(m, "wide");
    enum op op = OP_UNSUPPORTED;
    int dbits = t.bits;
    if (wide) {
        dbits = 2 * t.bits;
        if (t.bits == 32)
            op = mad ? (s ? OP_MAD_WIDE_S32 : OP_MAD_WIDE_U32)
                     : (s ? OP_MUL_WIDE_S32 : OP_MUL_WIDE_U32);
        else if (t.bits == 16 && !mad)
            op = s ? OP_MUL_WIDE_S16 : OP_MUL_WIDE_U16;
    } else if (hi) {
        if (t.bits == 32)
            op = mad ? (s ? OP_MAD_HI_S32 : OP_MAD_HI_U32) : (s ? OP_MUL_HI_S32 : OP_MUL_HI_U32);
        else if (t.bits == 64 && !mad)
            op = s ? OP_MUL_HI_S64 : OP_MUL_HI_U64;
    } else {
        static const enum op lo[2][3] = {{OP_MUL_LO_I16, OP_MUL_LO_I32, OP_MUL_LO_I64},
                                         {OP_UNSUPPORTED, OP_MAD_LO_I32, OP_MAD_LO_I64}};
        op = lo[mad][t.bits == 16 ? 0 : t.bits == 32 ? 1 : 2];
    }
    if (op == OP_UNSUPPORTED || mn_has(m, "sat")) /* .cc: dec_carry() */
        return dec_bad(c, "this form of %s is not emulated", mad ? "mad" : "mul");
    if (!mad)
        return emit_dn(c, op, o, n, 2, t.kind, dbits, t.bits) ? 0 : -1;
    /* mad: d and c have the destination's width, a and b the type's. */
    uint32_t d, a, b, cc;
    if (n != 4 || dec_dst(c, &o[0], dbits, &d) || dec_src(c, &o[1], t.kind, t.bits, &a) ||
        dec_src(c, &o[2], t.kind, t.bits, &b) || dec_src(c, &o[3], t.kind, dbits, &cc))
        return n != 4 ? dec_bad(c, "expected 4 operands") : -1;
    struct insn *in = dec_emit(c, op);
    in->o[0] = d, in->o[1] = a, in->o[2] = b, in->o[3] = cc;
    return 0;
}

/* The integer form of a two-source operation, by width and signedness. */
static enum op int_op(const char *base, struct mtype t, int sat)
{
    int s = t.kind == 's', w = t.bits == 16 ? 0 : t.bits == 32 ? 1 : t.bits == 64 ? 2 : -1;
    if (w < 0)
        return OP_UNSUPPORTED;
    if (!strcmp(base, "add"))
        return sat ? (t.bits == 32 && s ? OP_ADD_SAT_S32 : OP_UNSUPPORTED)
                   : (enum op[]){OP_ADD_I16, OP_ADD_I32, OP_ADD_I64}[w];
    if (!strcmp(base, "sub"))
        return sat ? (t.bits == 32 && s ? OP_SUB_SAT_S32 : OP_UNSUPPORTED)
                   : (enum op[]){OP_SUB_I16, OP_SUB_I32, OP_SUB_I64}[w];
    if (sat)
        return OP_UNSUPPORTED;
    static const struct {
        const char *base;
        enum op s16, u16;
    } narrow[] = {{"div", OP_DIV_S16, OP_DIV_U16},
                  {"rem", OP_REM_S16, OP_REM_U16},
                  {"min", OP_MIN_S16, OP_MIN_U16},
                  {"max", OP_MAX_S16, OP_MAX_U16}};
    for (size_t i = 0; w == 0 && i < sizeof narrow / sizeof *narrow; i++)
        if (!strcmp(base, narrow[i].base))
            return s ? narrow[i].s16 : narrow[i].u16;
    if (w == 0)
        return OP_UNSUPPORTED;
    w--; /* 32, 64 */
    if (!strcmp(base, "div"))
        return s ? (enum op[]){OP_DIV_S32, OP_DIV_S64}[w] : (enum op[]){OP_DIV_U32, OP_DIV_U64}[w];
    if (!strcmp(base, "rem"))
        return s ? (enum op[]){OP_REM_S32, OP_REM_S64}[w] : (enum op[]){OP_REM_U32, OP_REM_U64}[w];
    if (!strcmp(base, "min"))
        return s ? (enum op[]){OP_MIN_S32, OP_MIN_S64}[w] : (enum op[]){OP_MIN_U32, OP_MIN_U64}[w];
    if (!strcmp(base, "max"))
        return s ? (enum op[]){OP_MAX_S32, OP_MAX_S64}[w] : (enum op[]){OP_MAX_U32, OP_MAX_U64}[w];
    return OP_UNSUPPORTED;
}

/* mul24, mad24, sad: 32-bit only. */
static int int_misc(struct dctx *c, const struct mn *m, struct operand *o, int n, struct mtype t)
{
    int s = t.kind == 's';
    enum op op = OP_UNSUPPORTED;
    int nsrc = 2;
    if (t.bits == 32 && !mn_has(m, "hi")) {
        if (!strcmp(m->base, "mul24"))
            op = s ? OP_MUL24_LO_S32 : OP_MUL24_LO_U32;
        else if (!strcmp(m->base, "mad24"))
            op = s ? OP_MAD24_LO_S32 : OP_MAD24_LO_U32, nsrc = 3;
        else if (!strcmp(m->base, "sad"))
            op = s ? OP_SAD_S32 : OP_SAD_U32, nsrc = 3;
    }
    if (op == OP_UNSUPPORTED)
        return dec_bad(c, "this form of %s is not emulated", m->base);
    return emit_dn(c, op, o, n, nsrc, t.kind, 32, 32) ? 0 : -1;
}

/* add, min, max on .u16x2 / .s16x2 (min and max of .s16x2 also .relu); the operands are .b32. */
static int int_x2(struct dctx *c, const struct mn *m, struct operand *o, int n, int is_signed)
{
    const char *b = m->base;
    int relu = mn_has(m, "relu"), add = !strcmp(b, "add"), min = !strcmp(b, "min");
    enum op op = OP_UNSUPPORTED;
    if (add && !relu)
        op = OP_ADD_I16X2;
    else if ((min || !strcmp(b, "max")) && (is_signed || !relu))
        op = relu  ? (min ? OP_MIN_RELU_S16X2 : OP_MAX_RELU_S16X2)
             : min ? (is_signed ? OP_MIN_S16X2 : OP_MIN_U16X2)
                   : (is_signed ? OP_MAX_S16X2 : OP_MAX_U16X2);
    if (op == OP_UNSUPPORTED || mn_has(m, "sat") || mn_has(m, "cc"))
        return dec_bad(c, "this form of %s.%s16x2 is not emulated", b, is_signed ? "s" : "u");
    return emit_dn(c, op, o, n, 2, 'b', 32, 32) ? 0 : -1;
}

/* min.relu.s32, max.relu.s32. */
static int int_relu(struct dctx *c, const struct mn *m, struct operand *o, int n, struct mtype t)
{
    const char *b = m->base;
    if (t.kind != 's' || t.bits != 32 || (strcmp(b, "min") && strcmp(b, "max")))
        return dec_bad(c, "%s.relu.%s is not emulated", b, t.name);
    return emit_dn(c, b[1] == 'i' ? OP_MIN_RELU_S32 : OP_MAX_RELU_S32, o, n, 2, 's', 32, 32) ? 0
                                                                                             : -1;
}

int dec_arith(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (mn_has(m, "s16x2") || mn_has(m, "u16x2"))
        return int_x2(c, m, o, n, mn_has(m, "s16x2"));
    struct mtype t;
    if (!one_type(c, m, &t))
        return -1;
    const char *b = m->base;
    if (mn_has(m, "cc"))
        return dec_carry(c, m, o, n);
    static const char *const fops[] = {"add", "sub", "mul", "fma", "min", "max"};
    int fop = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(b, fops[i]))
            fop = i;
    if (!strcmp(b, "mad") && !is_int(t.kind))
        fop = 3; /* mad.rn.f32 is fma */
    if (is_half(t.kind)) {
        if (fop < 0)
            return dec_bad(c, "%s on a 16-bit float type is not emulated", b);
        return half_arith(c, m, o, n, fop, t);
    }
    if (t.kind == 'f') {
        if (fop >= 0 && fop <= 3)
            return float_arith(c, m, o, n, fop, t);
        if (!strcmp(b, "div")) {
            if (t.bits == 64) {
                struct insn *in = emit_dn(c, OP_ARITH_F64, o, n, 2, 'f', 64, 64);
                if (in)
                    in->width = 4, in->mod = mn_rounding(m) ? mn_rounding(m) : RND_RN;
                return in ? 0 : -1;
            }
            struct insn *in = emit_dn(c, OP_DIV_F32, o, n, 2, 'f', 32, 32);
            if (in) {
                enum rnd r = mn_rounding(m);
                in->mod = (uint32_t)(r == RND_NONE ? RND_RN : r) | (uint32_t)mn_has(m, "ftz") << 4;
            }
            return in ? 0 : -1;
        }
        if (fop == 4 || fop == 5) {
            uint32_t mods = minmax_mods(m);
            if (mods == UINT32_MAX || (t.bits == 64 && mods))
                return dec_bad(c, "this form of %s is not emulated", b);
            enum op op = t.bits == 32 ? (fop == 4 ? OP_MIN_F32 : OP_MAX_F32)
                                      : (fop == 4 ? OP_MIN_F64 : OP_MAX_F64);
            struct insn *in = emit_dn(c, op, o, n, 2, 'f', t.bits, t.bits);
            if (in)
                in->mod = (uint32_t)mn_has(m, "ftz") << 4 | mods;
            return in ? 0 : -1;
        }
        if (!strcmp(b, "copysign") && (t.bits == 32 || t.bits == 64))
            return emit_dn(c, t.bits == 32 ? OP_COPYSIGN_F32 : OP_COPYSIGN_F64, o, n, 2, 'f',
                           t.bits, t.bits)
                       ? 0
                       : -1;
        return dec_bad(c, "%s.f%d is not emulated", b, t.bits);
    }
    if (!strcmp(b, "mul") || !strcmp(b, "mad"))
        return int_mul(c, m, o, n, b[1] == 'a', t);
    if (!strcmp(b, "mul24") || !strcmp(b, "mad24") || !strcmp(b, "sad"))
        return int_misc(c, m, o, n, t);
    if (mn_has(m, "relu"))
        return int_relu(c, m, o, n, t);
    enum op op = int_op(b, t, mn_has(m, "sat"));
    if (op == OP_UNSUPPORTED)
        return dec_bad(c, "%s.%s is not emulated", b, t.name);
    return emit_dn(c, op, o, n, 2, t.kind, t.bits, t.bits) ? 0 : -1;
}

/* abs, neg, rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh, testp. */
int dec_unary(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t;
    if (!one_type(c, m, &t))
        return -1;
    const char *b = m->base;
    int ftz = mn_has(m, "ftz");
    if (!strcmp(b, "abs") || !strcmp(b, "neg")) {
        int neg = b[0] == 'n';
        if (is_half(t.kind))
            return half_arith(c, m, o, n, neg ? 6 : 7, t);
        enum op op = t.kind == 'f'  ? (t.bits == 32 ? (neg ? OP_NEG_F32 : OP_ABS_F32)
                                                    : (neg ? OP_NEG_F64 : OP_ABS_F64))
                     : t.bits == 32 ? (neg ? OP_NEG_S32 : OP_ABS_S32)
                     : t.bits == 64 ? (neg ? OP_NEG_S64 : OP_ABS_S64)
                     : t.bits == 16 && t.kind == 's' ? (neg ? OP_NEG_S16 : OP_ABS_S16)
                                                     : OP_UNSUPPORTED;
        if (op == OP_UNSUPPORTED)
            return dec_bad(c, "%s.%s is not emulated", b, t.name);
        struct insn *in = emit_dn(c, op, o, n, 1, t.kind, t.bits, t.bits);
        if (in)
            in->mod = (uint32_t)ftz << 4;
        return in ? 0 : -1;
    }
    if (!strcmp(b, "testp")) {
        static const char *const modes[] = {"finite",     "infinite", "number",
                                            "notanumber", "normal",   "subnormal"};
        int mode = mn_which(m, modes, 6);
        if (mode < 0 || t.bits != 32)
            return dec_bad(c, "this testp is not emulated");
        struct insn *in = emit_dn(c, OP_TESTP_F32, o, n, 1, 'f', 1, 32);
        if (in)
            in->mod = (uint32_t)mode;
        return in ? 0 : -1;
    }
    if (is_half(t.kind) && (!strcmp(b, "ex2") || !strcmp(b, "tanh"))) {
        struct insn *in = emit_dn(c, OP_APPROX_HALF, o, n, 1, t.kind, 32, 32);
        if (in)
            in->width = (uint8_t)(b[0] == 't'),
            in->mod = (uint32_t)(t.kind == 'g' || t.kind == 'G') | (uint32_t)(t.bits == 32) << 1;
        return in ? 0 : -1;
    }
    if (t.kind != 'f')
        return dec_bad(c, "%s.%s is not emulated", b, t.name);
    if (t.bits == 64) {
        if (!strcmp(b, "rsqrt"))
            return emit_dn(c, OP_RSQRT_F64, o, n, 1, 'f', 64, 64) ? 0 : -1;
        int op = !strcmp(b, "rcp") ? 5 : !strcmp(b, "sqrt") ? 6 : -1;
        if (op < 0)
            return dec_bad(c, "%s.f64 is not emulated", b);
        struct insn *in = emit_dn(c, OP_ARITH_F64, o, n, 1, 'f', 64, 64);
        if (in)
            in->width = (uint8_t)op, in->mod = mn_rounding(m) ? mn_rounding(m) : RND_RN;
        return in ? 0 : -1;
    }
    static const struct {
        const char *name;
        enum op op;
    } ops[] = {{"rcp", OP_RCP_F32}, {"sqrt", OP_SQRT_F32}, {"rsqrt", OP_RSQRT_F32},
               {"sin", OP_SIN_F32}, {"cos", OP_COS_F32},   {"lg2", OP_LG2_F32},
               {"ex2", OP_EX2_F32}, {"tanh", OP_TANH_F32}};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(b, ops[i].name)) {
            struct insn *in = emit_dn(c, ops[i].op, o, n, 1, 'f', 32, 32);
            if (in) {
                enum rnd r = mn_rounding(m);
                in->mod = (uint32_t)(r == RND_NONE ? RND_RN : r) | (uint32_t)ftz << 4;
            }
            return in ? 0 : -1;
        }
    return dec_bad(c, "%s.f32 is not emulated", b);
}

/* ---- logic, bits and shifts -------------------------------------------------------------- */

int dec_logic(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t;
    if (!one_type(c, m, &t))
        return -1;
    const char *b = m->base;
    if (!strcmp(b, "lop3")) {
        if (t.bits != 32 || n != 5 || o[4].kind != OK_IMM)
            return dec_bad(c, "this lop3 is not emulated");
        struct insn *in = emit_dn(c, OP_LOP3_B32, o, 4, 3, 'b', 32, 32);
        if (in)
            in->mod = (uint32_t)o[4].imm & 0xFF;
        return in ? 0 : -1;
    }
    if (!strcmp(b, "cnot"))
        return t.bits == 32 ? (emit_dn(c, OP_CNOT_B32, o, n, 1, 'b', 32, 32) ? 0 : -1)
                            : dec_bad(c, "cnot.%s is not emulated", t.name);
    int which = !strcmp(b, "and") ? 0 : !strcmp(b, "or") ? 1 : !strcmp(b, "xor") ? 2 : 3;
    static const enum op table[4][4] = {{OP_AND_PRED, OP_OR_PRED, OP_XOR_PRED, OP_NOT_PRED},
                                        {OP_AND_B32, OP_OR_B32, OP_XOR_B32, OP_NOT_B16},
                                        {OP_AND_B32, OP_OR_B32, OP_XOR_B32, OP_NOT_B32},
                                        {OP_AND_B64, OP_OR_B64, OP_XOR_B64, OP_NOT_B64}};
    int w = t.bits == 1 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 3 : -1;
    if (w < 0)
        return dec_bad(c, "%s.%s is not emulated", b, t.name);
    int bits = t.bits == 16 ? 32 : t.bits; /* 16-bit values live zero-extended in 32-bit slots */
    return emit_dn(c, table[w][which], o, n, which == 3 ? 1 : 2, 'b', bits, bits) ? 0 : -1;
}

/* Extended-precision arithmetic (OP_CARRY_32, OP_CARRY_64): add.cc, addc{.cc}, sub.cc, subc{.cc}
 * d, a, b and mad{.lo,.hi}.cc, madc{.lo,.hi}{.cc} d, a, b, c, on .u32, .s32, .u64 or .s64. */
int dec_carry(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t;
    if (!one_type(c, m, &t))
        return -1;
    const char *b = m->base;
    int in_c = b[strlen(b) - 1] == 'c', out_c = mn_has(m, "cc");
    int mad = !strncmp(b, "mad", 3), hi = mn_has(m, "hi");
    if ((t.kind != 'u' && t.kind != 's') || (t.bits != 32 && t.bits != 64) ||
        (mad && !hi && !mn_has(m, "lo")) || (!in_c && !out_c))
        return dec_bad(c, "this form of %s is not emulated", b);
    int kind = mad ? (hi ? CARRY_MAD_HI : CARRY_MAD_LO) : b[0] == 's' ? CARRY_SUB : CARRY_ADD;
    struct insn *in = emit_dn(c, t.bits == 32 ? OP_CARRY_32 : OP_CARRY_64, o, n, mad ? 3 : 2,
                              t.kind, t.bits, t.bits);
    if (in)
        in->mod = (uint32_t)kind | (in_c ? CARRY_IN : 0) | (out_c ? CARRY_OUT : 0) |
                  (t.kind == 's' ? CARRY_SIGNED : 0);
    return in ? 0 : -1;
}

/* dp4a.atype.btype d, a, b, c and dp2a.{lo,hi}.atype.btype d, a, b, c (.u32 or .s32 each). */
int dec_dp(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t[3];
    int two = !strcmp(m->base, "dp2a"), half = mn_has(m, "hi") ? 2 : 1;
    if (mn_types(m, t, 3) != 2 || t[0].bits != 32 || t[1].bits != 32 ||
        (two && !mn_has(m, "lo") && !mn_has(m, "hi")))
        return dec_bad(c, "this form of %s is not emulated", m->base);
    struct insn *in = emit_dn(c, OP_DP_B32, o, n, 3, 'b', 32, 32);
    if (in)
        in->mod = (uint32_t)(t[0].kind == 's') | (uint32_t)(t[1].kind == 's') << 1 |
                  (uint32_t)(two ? half : 0) << 2;
    return in ? 0 : -1;
}

int dec_bits(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t;
    if (!one_type(c, m, &t))
        return -1;
    const char *b = m->base;
    int w64 = t.bits == 64;
    if (t.bits != 32 && t.bits != 64)
        return dec_bad(c, "%s.%s is not emulated", b, t.name);
    if (!strcmp(b, "popc") || !strcmp(b, "clz")) {
        enum op op =
            b[0] == 'p' ? (w64 ? OP_POPC_B64 : OP_POPC_B32) : (w64 ? OP_CLZ_B64 : OP_CLZ_B32);
        return emit_dn(c, op, o, n, 1, 'b', 32, t.bits) ? 0 : -1;
    }
    if (!strcmp(b, "brev"))
        return emit_dn(c, w64 ? OP_BREV_B64 : OP_BREV_B32, o, n, 1, 'b', t.bits, t.bits) ? 0 : -1;
    if (!strcmp(b, "bfind")) {
        if (w64)
            return dec_bad(c, "bfind.%s is not emulated", t.name);
        struct insn *in =
            emit_dn(c, t.kind == 's' ? OP_BFIND_S32 : OP_BFIND_U32, o, n, 1, t.kind, 32, 32);
        if (in)
            in->mod = (uint32_t)mn_has(m, "shiftamt");
        return in ? 0 : -1;
    }
    if (!strcmp(b, "bfe")) {
        enum op op =
            t.kind == 's' ? (w64 ? OP_BFE_S64 : OP_BFE_S32) : (w64 ? OP_BFE_U64 : OP_BFE_U32);
        uint32_t d, a, pos, len;
        if (n != 4 || dec_dst(c, &o[0], t.bits, &d) || dec_src(c, &o[1], t.kind, t.bits, &a) ||
            dec_src(c, &o[2], 'u', 32, &pos) || dec_src(c, &o[3], 'u', 32, &len))
            return n != 4 ? dec_bad(c, "expected 4 operands") : -1;
        struct insn *in = dec_emit(c, op);
        in->o[0] = d, in->o[1] = a, in->o[2] = pos, in->o[3] = len;
        return 0;
    }
    if (!strcmp(b, "bfi")) {
        uint32_t d, a, bb, pos, len;
        if (n != 5 || dec_dst(c, &o[0], t.bits, &d) || dec_src(c, &o[1], 'b', t.bits, &a) ||
            dec_src(c, &o[2], 'b', t.bits, &bb) || dec_src(c, &o[3], 'u', 32, &pos) ||
            dec_src(c, &o[4], 'u', 32, &len))
            return n != 5 ? dec_bad(c, "expected 5 operands") : -1;
        struct insn *in = dec_emit(c, w64 ? OP_BFI_B64 : OP_BFI_B32);
        in->o[0] = d, in->o[1] = a, in->o[2] = bb, in->o[3] = pos, in->o[4] = len;
        return 0;
    }
    if (!strcmp(b, "fns") && !w64) /* d, mask, base, offset */
        return emit_dn(c, OP_FNS_B32, o, n, 3, 'b', 32, 32) ? 0 : -1;
    if (!strcmp(b, "bmsk") && !w64) {
        struct insn *in = emit_dn(c, OP_BMSK_B32, o, n, 2, 'u', 32, 32);
        if (in)
            in->mod = (uint32_t)mn_has(m, "wrap");
        return in ? 0 : -1;
    }
    if (!strcmp(b, "prmt") && !w64) {
        static const char *const modes[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
        uint32_t mode = 0;
        for (uint32_t i = 1; i < 7; i++)
            if (mn_has(m, modes[i]))
                mode = i;
        struct insn *in = emit_dn(c, OP_PRMT_B32, o, n, 3, 'b', 32, 32);
        if (in)
            in->mod = mode;
        return in ? 0 : -1;
    }
    return dec_bad(c, "%s.%s is not emulated", b, t.name);
}

int dec_shift(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t;
    if (!one_type(c, m, &t))
        return -1;
    if (!strcmp(m->base, "shf")) {
        if (t.bits != 32)
            return dec_bad(c, "shf.%s is not emulated", t.name);
        struct insn *in = emit_dn(c, OP_SHF_B32, o, n, 3, 'b', 32, 32);
        if (in)
            in->mod = (uint32_t)mn_has(m, "r") | (uint32_t)mn_has(m, "clamp") << 1;
        return in ? 0 : -1;
    }
    int w = t.bits == 16 ? 0 : t.bits == 32 ? 1 : t.bits == 64 ? 2 : -1;
    if (w < 0)
        return dec_bad(c, "%s.%s is not emulated", m->base, t.name);
    enum op op;
    if (!strcmp(m->base, "shl"))
        op = (enum op[]){OP_SHL_B16, OP_SHL_B32, OP_SHL_B64}[w];
    else if (t.kind == 's')
        op = (enum op[]){OP_SHR_S16, OP_SHR_S32, OP_SHR_S64}[w];
    else
        op = (enum op[]){OP_SHR_U16, OP_SHR_U32, OP_SHR_U64}[w];
    int bits = t.bits == 16 ? 32 : t.bits;
    uint32_t d, a, s;
    if (n != 3 || dec_dst(c, &o[0], bits, &d) || dec_src(c, &o[1], t.kind, bits, &a) ||
        dec_src(c, &o[2], 'u', 32, &s))
        return n != 3 ? dec_bad(c, "expected 3 operands") : -1;
    struct insn *in = dec_emit(c, op);
    in->o[0] = d, in->o[1] = a, in->o[2] = s;
    return 0;
}

/* ---- compare, select, move ----------------------------------------------------------------- */

static int cmp_of(const struct mn *m)
{
    static const char *const names[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",
                                        "lo",  "ls",  "hi",  "hs",  "equ", "neu",
                                        "ltu", "leu", "gtu", "geu", "num", "nan"};
    for (int i = 0; i < 18; i++)
        if (mn_has(m, names[i]))
            return i;
    return -1;
}

/* setp.cmp[.bool].type p[|q], a, b[, c] and set.cmp[.bool].dtype.stype d, a, b[, c]. */
int dec_setp(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype types[3];
    int nt = mn_types(m, types, 3);
    int is_set = !strcmp(m->base, "set");
    struct mtype t = types[nt - 1];
    int cmp = cmp_of(m);
    int boolop = mn_has(m, "and") ? 1 : mn_has(m, "or") ? 2 : mn_has(m, "xor") ? 3 : 0;
    if (nt != (is_set ? 2 : 1) || cmp < 0 || n != (boolop ? 4 : 3))
        return dec_bad(c, "this form of %s is not emulated", m->base);
    enum op op;
    if (t.kind == 'f')
        op = is_set ? OP_UNSUPPORTED : t.bits == 32 ? OP_SETP_F32 : OP_SETP_F64;
    else if (is_half(t.kind))
        op = is_set ? OP_SET_HALF : OP_SETP_HALF;
    else if (t.bits == 16)
        op = is_set ? OP_UNSUPPORTED : t.kind == 's' ? OP_SETP_S16 : OP_SETP_U16;
    else if (t.bits == 32)
        op = is_set          ? (t.kind == 's' ? OP_SET_S32 : OP_SET_U32)
             : t.kind == 's' ? OP_SETP_S32
                             : OP_SETP_U32;
    else
        op = is_set ? OP_UNSUPPORTED : t.kind == 's' ? OP_SETP_S64 : OP_SETP_U64;
    if (is_set && t.kind == 'f' && t.bits == 32)
        op = OP_SET_F32;
    if (op == OP_UNSUPPORTED)
        return dec_bad(c, "%s on %s is not emulated", m->base, t.name);
    int sbits = t.bits == 16 ? 32 : t.bits;
    uint32_t p, q = NO_REG, a, b, cc = NO_REG;
    if (is_set ? dec_dst(c, &o[0], 32, &p) : dec_dst(c, &o[0], 1, &p))
        return -1;
    if (o[0].reg2 && (q = o[0].reg2->off, o[0].reg2->slot != SLOT_PRED))
        return dec_bad(c, "the second destination is not a predicate");
    if (dec_src(c, &o[1], t.kind, sbits, &a) || dec_src(c, &o[2], t.kind, sbits, &b) ||
        (boolop && dec_src(c, &o[3], 'p', 1, &cc)))
        return -1;
    struct insn *in = dec_emit(c, op);
    in->o[0] = p, in->o[1] = q, in->o[2] = a, in->o[3] = b, in->o[4] = cc;
    in->mod = (uint32_t)cmp | (uint32_t)boolop << 8 | (uint32_t)(boolop && o[3].negated) << 12 |
              (uint32_t)(t.kind == 'g' || t.kind == 'G') << 16 |
              (uint32_t)(is_set && types[0].kind == 'f') << 17 | (uint32_t)mn_has(m, "ftz") << 18;
    in->width = (uint8_t)(is_half(t.kind) && t.bits == 32); /* a pair: each half compared */
    if (op == OP_SET_HALF) { /* what a half that compares true holds: 1.0 or all ones */
        char dk = types[0].kind;
        in->imm = dk == 'h' || dk == 'H'                ? 0x3C00
                  : dk == 'g' || dk == 'G'              ? 0x3F80
                  : dk == 'f'                           ? 0x3F800000
                  : t.bits == 32 || types[0].bits == 16 ? 0xFFFF
                                                        : 0xFFFFFFFF;
    }
    return 0;
}

int dec_selp(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t;
    if (!one_type(c, m, &t))
        return -1;
    int bits = t.bits == 64 ? 64 : 32;
    uint32_t d, a, b, p;
    if (n != 4 || dec_dst(c, &o[0], bits, &d) || dec_src(c, &o[1], t.kind, bits, &a) ||
        dec_src(c, &o[2], t.kind, bits, &b) || dec_src(c, &o[3], 'p', 1, &p))
        return n != 4 ? dec_bad(c, "expected 4 operands") : -1;
    struct insn *in = dec_emit(c, bits == 64 ? OP_SELP_64 : OP_SELP_32);
    in->o[0] = d, in->o[1] = a, in->o[2] = b, in->o[3] = p;
    return 0;
}

/* mov {d0, d1, ...}, a and mov d, {a0, a1, ...}: pieces of equal width. */
static int mov_vector(struct dctx *c, struct mtype t, struct operand *o)
{
    int to_vec = o[0].kind == OK_VEC;
    const struct operand *v = to_vec ? &o[0] : &o[1];
    int piece = v->nvec ? t.bits / v->nvec : 0;
    enum op op = OP_UNSUPPORTED;
    if (t.bits == 32 && v->nvec == 2)
        op = to_vec ? OP_UNPACK_32 : OP_PACK_32;
    else if (t.bits == 64 && v->nvec == 2)
        op = to_vec ? OP_UNPACK_64 : OP_PACK_64;
    else if (t.bits == 64 && v->nvec == 4 && to_vec)
        op = OP_UNPACK_64_16;
    if (op == OP_UNSUPPORTED)
        return dec_bad(c, "this vector mov is not emulated");
    int pbits = piece == 64 ? 64 : 32;
    for (int i = 0; i < v->nvec; i++)
        if (v->vec[i] && v->vec[i]->slot != (pbits == 64 ? SLOT_64 : SLOT_32))
            return dec_bad(c, "a vector piece has the wrong width");
    uint32_t whole;
    if (to_vec ? dec_src(c, &o[1], 'b', t.bits, &whole) : dec_dst(c, &o[0], t.bits, &whole))
        return -1;
    struct insn *in = dec_emit(c, op);
    in->o[0] = whole;
    for (int i = 0; i < v->nvec; i++)
        in->o[1 + i] = v->vec[i] ? v->vec[i]->off : NO_REG;
    return 0;
}

int dec_mov(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t;
    if (!one_type(c, m, &t) || n != 2)
        return n != 2 ? dec_bad(c, "expected 2 operands") : -1;
    if (o[0].kind == OK_VEC || o[1].kind == OK_VEC)
        return mov_vector(c, t, o);
    if (o[1].kind == OK_SYM && o[1].name &&
        (!strcmp(o[1].name, "%clock") || !strcmp(o[1].name, "%clock64") ||
         !strncmp(o[1].name, "%globaltimer", 12))) {
        uint32_t d;
        if (dec_dst(c, &o[0], t.bits == 64 ? 64 : 32, &d))
            return -1;
        struct insn *in = dec_emit(c, OP_CLOCK);
        in->o[0] = d;
        in->width = t.bits == 64; /* clock64(): every lane's register is 64 bits wide */
        return 0;
    }
    if (t.bits == 1)
        return emit_dn(c, OP_MOV_PRED, o, n, 1, 'p', 1, 1) ? 0 : -1;
    int bits = t.bits == 64 ? 64 : 32;
    return emit_dn(c, bits == 64 ? OP_MOV_64 : OP_MOV_32, o, n, 1, t.kind, bits, bits) ? 0 : -1;
}

/* ---- conversions ----------------------------------------------------------------------- */

static int ctype_of(struct mtype t)
{
    switch (t.kind) {
    case 'u':
    case 'b':
        return t.bits == 8 ? CT_U8 : t.bits == 16 ? CT_U16 : t.bits == 32 ? CT_U32 : CT_U64;
    case 's':
        return t.bits == 8 ? CT_S8 : t.bits == 16 ? CT_S16 : t.bits == 32 ? CT_S32 : CT_S64;
    case 'h':
        return CT_F16;
    case 'g':
        return CT_BF16;
    case 't':
        return CT_TF32;
    case 'f':
        return t.bits == 32 ? CT_F32 : CT_F64;
    default:
        return -1;
    }
}

/* The specialised opcode for a common conversion, or OP_CVT. */
static enum op cvt_fast(int d, int a, enum rnd r, int sat, int ftz)
{
    if (sat || ftz)
        return OP_CVT;
    if (r == RND_NONE) {
        if (d == CT_S64 && a == CT_S32)
            return OP_CVT_S64_S32;
        if ((d == CT_U64 || d == CT_S64) && a == CT_U32)
            return OP_CVT_U64_U32;
        if ((d == CT_U32 || d == CT_S32) && (a == CT_U64 || a == CT_S64))
            return OP_CVT_32_64;
        if (d == CT_F32 && a == CT_F16)
            return OP_CVT_F32_F16;
        if (d == CT_F32 && a == CT_BF16)
            return OP_CVT_F32_BF16;
    }
    if (r == RND_RN && d == CT_F16 && a == CT_F32)
        return OP_CVT_F16_F32;
    if (r == RND_RN && d == CT_BF16 && a == CT_F32)
        return OP_CVT_BF16_F32;
    if (d == CT_TF32 && a == CT_F32)
        return OP_CVT_TF32_F32;
    return OP_CVT;
}

/* cvt.rn.{f16x2,bf16x2}.f32 d, a, b: two floats rounded and packed (CVT_PACK16_F32). */
static int dec_cvt_pack(struct dctx *c, const struct mn *m, struct operand *o, int n,
                        struct mtype to)
{
    if (mn_rounding(m) != RND_RN || mn_has(m, "relu") || mn_has(m, "satfinite"))
        return dec_bad(c, "cvt.%s.f32 is emulated with .rn only", to.name);
    struct insn *in = emit_dn(c, OP_CVT_PACK16_F32, o, n, 2, 'f', 32, 32);
    if (!in)
        return -1;
    in->width = to.kind == 'G';
    return 0;
}

/* The fp8 conversions of sm_89 (CVT_FP8X2, CVT_F16X2_FP8X2): cvt.rn.satfinite{.relu}.f8x2.f32 d,
 * a, b; cvt.rn.satfinite{.relu}.f8x2.f16x2 d, a; cvt.rn{.relu}.f16x2.f8x2 d, a; f8x2 e4m3x2 or
 * e5m2x2 (@p e5m2). */
static int dec_cvt_fp8(struct dctx *c, const struct mn *m, struct operand *o, int n, int e5m2)
{
    const char *f8 = e5m2 ? "e5m2x2" : "e4m3x2";
    int to_f8 = 0, from_f32 = mn_has(m, "f32"), from_f16 = 0;
    for (int i = 0; i < m->nmods; i++) { /* the destination type comes first */
        if (!strcmp(m->mods[i], "f16x2") || !strcmp(m->mods[i], "f32"))
            break;
        to_f8 |= !strcmp(m->mods[i], f8);
    }
    from_f16 = to_f8 && mn_has(m, "f16x2");
    if (mn_rounding(m) != RND_RN || (to_f8 && !mn_has(m, "satfinite")) ||
        (!to_f8 && (mn_has(m, "satfinite") || !mn_has(m, "f16x2"))) ||
        (to_f8 && !from_f32 && !from_f16))
        return dec_bad(c, "this fp8 cvt is not emulated (cvt.rn.satfinite{.relu} to e4m3x2 or "
                          "e5m2x2 from f32 or f16x2, cvt.rn{.relu}.f16x2 from them)");
    struct insn *in = to_f8 ? emit_dn(c, OP_CVT_FP8X2, o, n, from_f32 ? 2 : 1, 'b', 32, 32)
                            : emit_dn(c, OP_CVT_F16X2_FP8X2, o, n, 1, 'b', 32, 32);
    if (!in)
        return -1;
    in->width = (uint8_t)from_f16;
    in->mod = (uint32_t)e5m2 | (uint32_t)mn_has(m, "relu") << 1;
    return 0;
}

int dec_cvt(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (mn_has(m, "e4m3x2") || mn_has(m, "e5m2x2"))
        return dec_cvt_fp8(c, m, o, n, mn_has(m, "e5m2x2"));
    struct mtype types[3];
    int count = mn_types(m, types, 3);
    if (count == 2 && n == 3 && (types[0].kind == 'H' || types[0].kind == 'G') &&
        types[1].kind == 'f' && types[1].bits == 32)
        return dec_cvt_pack(c, m, o, n, types[0]);
    if (count != 2 || n != 2)
        return dec_bad(c, "this form of cvt is not emulated");
    int d = ctype_of(types[0]), a = ctype_of(types[1]);
    if (d < 0 || a < 0 || mn_has(m, "relu") || mn_has(m, "satfinite"))
        return dec_bad(c, "cvt.%s.%s is not emulated", types[0].name, types[1].name);
    enum rnd r = mn_rounding(m);
    int sat = mn_has(m, "sat"), ftz = mn_has(m, "ftz");
    /* An integer source may sit in a register wider than its type (cvt.s64.s32 %rd2, %rd1, as
     * cooperative groups emit): its low bits are the value. */
    int wide = o[1].kind == OK_REG && o[1].reg && o[1].reg->slot == SLOT_64 && types[1].bits < 64 &&
               strchr("usb", types[1].kind);
    enum op op = wide ? OP_CVT : cvt_fast(d, a, r, sat, ftz);
    int dbits = types[0].bits == 64 ? 64 : 32, abits = types[1].bits == 64 || wide ? 64 : 32;
    struct insn *in = emit_dn(c, op, o, n, 1, types[1].kind, dbits, abits);
    if (!in)
        return -1;
    in->mod = op == OP_CVT_TF32_F32
                  ? (uint32_t)r
                  : CVT_MOD((uint32_t)d, (uint32_t)a, (uint32_t)r, (uint32_t)sat, (uint32_t)ftz);
    in->mod |= wide ? CVT_WIDE : 0;
    return 0;
}

/* cvta.space.size d, a; cvta.to.space.size d, a; isspacep.space p, a. */
int dec_cvta(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    enum space s = mn_space(m);
    if (!strcmp(m->base, "isspacep")) {
        struct insn *in = emit_dn(c, OP_ISSPACEP, o, n, 1, 'u', 1, 64);
        if (in)
            in->mod = s;
        return in ? 0 : -1;
    }
    struct mtype t;
    if (!one_type(c, m, &t))
        return -1;
    if (t.bits != 64 || s == SP_GENERIC)
        return dec_bad(c, "32-bit generic addressing is not emulated");
    if (s != SP_SHARED && s != SP_LOCAL && s != SP_PARAM) /* global, const: the same address */
        return emit_dn(c, OP_MOV_64, o, n, 1, 'u', 64, 64) ? 0 : -1;
    struct insn *in = emit_dn(c, mn_has(m, "to") ? OP_CVTA_FROM_GENERIC : OP_CVTA_TO_GENERIC, o, n,
                              1, 'u', 64, 64);
    if (in)
        in->mod = s;
    return in ? 0 : -1;
}
