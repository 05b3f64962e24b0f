/**
 * @file decode_ctrl.c
 * @brief Decoding warp-level, tensor and control instructions.
 */
#include <string.h>

#include "decode_impl.h"

/* ---- warp level ------------------------------------------------------------------------ */

/* shfl.sync, vote.sync, match.sync, redux.sync, activemask. */
int dec_warp(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    const char *b = m->base;
    if (!strcmp(b, "activemask")) {
        uint32_t d;
        if (n != 1 || dec_dst(c, &o[0], 32, &d))
            return n != 1 ? dec_bad(c, "expected 1 operand") : -1;
        dec_emit(c, OP_ACTIVEMASK)->o[0] = d;
        return 0;
    }
    if (!mn_has(m, "sync"))
        return dec_bad(c, "%s without .sync (pre-Volta) is not emulated", b);
    if (!strcmp(b, "shfl")) {
        static const char *const modes[] = {"up", "down", "bfly", "idx"};
        int mode = mn_which(m, modes, 4);
        uint32_t d, p = NO_REG, a, lane, cl, mask;
        if (mode < 0 || n != 5 || dec_dst(c, &o[0], 32, &d) || dec_src(c, &o[1], 'b', 32, &a) ||
            dec_src(c, &o[2], 'u', 32, &lane) || dec_src(c, &o[3], 'u', 32, &cl) ||
            dec_src(c, &o[4], 'u', 32, &mask))
            return mode < 0 || n != 5 ? dec_bad(c, "this form of shfl is not emulated") : -1;
        if (o[0].reg2)
            p = o[0].reg2->off;
        struct insn *in = dec_emit(c, OP_SHFL_SYNC);
        in->o[0] = d, in->o[1] = p, in->o[2] = a, in->o[3] = lane, in->o[4] = cl, in->o[5] = mask;
        in->mod = (uint32_t)mode;
        return 0;
    }
    if (!strcmp(b, "vote")) {
        static const char *const modes[] = {"all", "any", "uni", "ballot"};
        int mode = mn_which(m, modes, 4);
        uint32_t d, a, mask;
        if (mode < 0 || n != 3 || dec_dst(c, &o[0], mode == 3 ? 32 : 1, &d) ||
            dec_src(c, &o[1], 'p', 1, &a) || dec_src(c, &o[2], 'u', 32, &mask))
            return mode < 0 || n != 3 ? dec_bad(c, "this form of vote is not emulated") : -1;
        struct insn *in = dec_emit(c, OP_VOTE_SYNC);
        in->o[0] = d, in->o[1] = a, in->o[2] = mask;
        in->mod = (uint32_t)mode | (uint32_t)o[1].negated << 4;
        return 0;
    }
    if (!strcmp(b, "match")) {
        int all = mn_has(m, "all"), bits = mn_has(m, "b64") ? 64 : 32;
        uint32_t d, a, mask;
        if ((!all && !mn_has(m, "any")) || n != 3 || dec_dst(c, &o[0], 32, &d) ||
            dec_src(c, &o[1], 'b', bits, &a) || dec_src(c, &o[2], 'u', 32, &mask))
            return n != 3 ? dec_bad(c, "this form of match is not emulated") : -1;
        struct insn *in = dec_emit(c, OP_MATCH_SYNC);
        in->o[0] = d, in->o[1] = o[0].reg2 ? o[0].reg2->off : NO_REG, in->o[2] = a;
        in->o[3] = mask;
        in->mod = (uint32_t)all | (uint32_t)(bits == 64) << 1;
        return 0;
    }
    if (!strcmp(b, "redux")) {
        static const char *const ops[] = {"add", "min", "max", "and", "or", "xor"};
        int op = mn_which(m, ops, 6);
        uint32_t d, a, mask;
        if (op < 0 || mn_has(m, "f32") || n != 3 || dec_dst(c, &o[0], 32, &d) ||
            dec_src(c, &o[1], 'b', 32, &a) || dec_src(c, &o[2], 'u', 32, &mask))
            return op < 0 || n != 3 ? dec_bad(c, "this form of redux is not emulated") : -1;
        struct insn *in = dec_emit(c, OP_REDUX_SYNC);
        in->o[0] = d, in->o[1] = a, in->o[2] = mask;
        in->mod = (uint32_t)op | (uint32_t)mn_has(m, "s32") << 4;
        return 0;
    }
    return dec_bad(c, "%s is not emulated", b);
}

/* ---- tensor cores ------------------------------------------------------------------------ */

int mma_type_of(const char *s)
{
    return !strcmp(s, "f16")    ? MT_F16
           : !strcmp(s, "bf16") ? MT_BF16
           : !strcmp(s, "tf32") ? MT_TF32
           : !strcmp(s, "f32")  ? MT_F32
           : !strcmp(s, "f64")  ? MT_F64
           : !strcmp(s, "s8")   ? MT_S8
           : !strcmp(s, "u8")   ? MT_U8
           : !strcmp(s, "s32")  ? MT_S32
           : !strcmp(s, "e4m3") ? MT_E4M3
           : !strcmp(s, "e5m2") ? MT_E5M2
           : !strcmp(s, "s4")   ? MT_S4
           : !strcmp(s, "u4")   ? MT_U4
           : !strcmp(s, "b1")   ? MT_B1
                                : -1;
}

static int wmma_shape_of(const struct mn *m)
{
    return mn_has(m, "m16n16k16")  ? WS_16_16_16
           : mn_has(m, "m32n8k16") ? WS_32_8_16
           : mn_has(m, "m8n32k16") ? WS_8_32_16
           : mn_has(m, "m16n16k8") ? WS_16_16_8
           : mn_has(m, "m8n8k4")   ? WS_8_8_4
                                   : -1;
}

/* A fragment {r0, r1, ...} of @p want registers of @p slot size, appended to @p words. */
static int fragment_of(struct dctx *c, const struct operand *o, int want, int slot, uint32_t *words,
                       int *nw)
{
    if (o->kind != OK_VEC || o->nvec != want)
        return dec_bad(c, "a fragment of %d registers was expected", want);
    for (int i = 0; i < want; i++) {
        if (!o->vec[i] || o->vec[i]->slot != slot)
            return dec_bad(c, "a fragment register is not %d bits", slot == SLOT_64 ? 64 : 32);
        words[(*nw)++] = o->vec[i]->off;
    }
    return 0;
}

static int fragment(struct dctx *c, const struct operand *o, int want, uint32_t *words, int *nw)
{
    return fragment_of(c, o, want, SLOT_32, words, nw);
}

/* An mma of fragments d, a, b and c (@p o[0..3], of @p regs registers each, all of @p slot): the
 * instruction @p op with their registers in its pool (the counts, then the registers, in o[5]),
 * its mod still to fill; NULL after dec_bad(). */
static struct insn *emit_mma(struct dctx *c, enum op op, const struct operand *o, const int regs[4],
                             int slot)
{
    uint32_t words[4 * VEC_MAX + 4];
    int nw = 4;
    for (int i = 0; i < 4; i++)
        words[i] = (uint32_t)regs[i];
    for (int i = 0; i < 4; i++)
        if (fragment_of(c, &o[i], regs[i], slot, words, &nw))
            return NULL;
    uint32_t pool = decode_pool(c->mod, words, (uint32_t)nw);
    struct insn *in = dec_emit(c, op);
    in->o[5] = pool;
    return in;
}

int mma_elem_bits(int type)
{
    return type == MT_S4 || type == MT_U4 ? 4 : type == MT_B1 ? 1 : 8 * mma_elem_bytes(type);
}

/* Rows and columns of matrix @p matrix (0 a: M x K, 1 b: K x N, 2 c/d: M x N) of a wmma shape. */
void wmma_dims(int shape, int matrix, int *rows, int *cols)
{
    static const int mnk[5][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}, {16, 16, 8}, {8, 8, 4}};
    const int *d = mnk[shape];
    *rows = matrix == 1 ? d[2] : d[0];
    *cols = matrix == 0 ? d[2] : d[1];
}

/* Bytes of one element of a tensor type. */
int mma_elem_bytes(int type)
{
    return type == MT_F16 || type == MT_BF16                                      ? 2
           : type == MT_S8 || type == MT_U8 || type == MT_E4M3 || type == MT_E5M2 ? 1
           : type == MT_F64                                                       ? 8
                                                                                  : 4;
}

/* Registers per lane of a wmma fragment (matrix 0 a, 1 b, 2 c/d): the tile spread over the
 * warp's 32-bit registers (64-bit ones for f64); f16 a and b hold each element twice. */
int wmma_frag_regs(int matrix, int type, int shape)
{
    int rows, cols;
    wmma_dims(shape, matrix, &rows, &cols);
    if (matrix != 2 && type == MT_F16)
        return 8;
    return type == MT_F64 ? rows * cols / 32 : rows * cols * mma_elem_bytes(type) / 128;
}

/* Whether wmma has matrix @p matrix of @p type in @p shape: f16/bf16 and s8/u8 inputs in the
 * k16 shapes (with f16/f32 or s32 accumulators), tf32 in m16n16k8, f64 in m8n8k4. */
static int wmma_has(int matrix, int type, int shape)
{
    int k16 = shape <= WS_8_32_16;
    if (matrix == 2)
        return shape == WS_8_8_4 ? type == MT_F64
                                 : type == MT_F32 || type == MT_F16 || (k16 && type == MT_S32);
    return shape == WS_8_8_4 ? type == MT_F64
           : shape == WS_16_16_8
               ? type == MT_TF32
               : type == MT_F16 || type == MT_BF16 || type == MT_S8 || type == MT_U8;
}

static int wmma_mem(struct dctx *c, const struct mn *m, struct operand *o, int n, int load)
{
    int matrix = mn_has(m, "a") ? 0 : mn_has(m, "b") ? 1 : 2;
    struct mtype types[2];
    int shape = wmma_shape_of(m);
    if (mn_types(m, types, 2) != 1 || shape < 0 || (n != 3 && n != 2))
        return dec_bad(c, "this form of wmma.%s is not emulated", load ? "load" : "store");
    int type = mma_type_of(types[0].name);
    enum space s = mn_has(m, "global") ? SP_GLOBAL : mn_has(m, "shared") ? SP_SHARED : SP_GENERIC;
    if (type < 0 || !wmma_has(matrix, type, shape))
        return dec_bad(c, "this wmma type and shape are not emulated");
    const struct operand *frag = load ? &o[0] : &o[1], *addr = load ? &o[1] : &o[0];
    uint32_t words[VEC_MAX], stride = NO_REG;
    int nw = 0;
    int slot = type == MT_F64 ? SLOT_64 : SLOT_32;
    if (fragment_of(c, frag, wmma_frag_regs(matrix, type, shape), slot, words, &nw))
        return -1;
    if (n == 3 && dec_src(c, &o[2], 'u', 32, &stride))
        return -1;
    if (addr->kind != OK_ADDR)
        return dec_bad(c, "expected an address");
    uint32_t pool = decode_pool(c->mod, words, (uint32_t)nw);
    struct insn *in = dec_emit(c, load ? OP_WMMA_LOAD : OP_WMMA_STORE);
    in->imm = addr->imm + (addr->sym ? (int64_t)dec_sym_addr(c, addr->sym) : 0);
    in->o[0] = addr->reg ? addr->reg->off : NO_REG;
    in->o[1] = stride;
    in->o[5] = pool;
    in->mod = WM_MOD((uint32_t)matrix, (uint32_t)type, (uint32_t)mn_has(m, "col"), (uint32_t)shape,
                     (uint32_t)s) |
              (addr->reg && addr->reg->slot == SLOT_32 ? WM_BASE32_BIT : 0);
    return 0;
}

/* The layouts of a and b among @p m's modifiers, in that order, into @p col (1 for .col, 0 for
 * .row); returns how many were found, at most 2. */
static int mma_layouts(const struct mn *m, int col[2])
{
    int k = 0;
    for (int i = 0; i < m->nmods && k < 2; i++)
        if (!strcmp(m->mods[i], "row") || !strcmp(m->mods[i], "col"))
            col[k++] = m->mods[i][0] == 'c';
    return k;
}

/* wmma.mma.sync.aligned.alayout.blayout.shape.dtype[.atype.btype].ctype{.satfinite} d, a, b, c;
 * .satfinite only for the integer forms (CUDA C++'s mma_sync(..., satf = true)), whose s32 sums
 * it clamps instead of wrapping. */
static int wmma_mma(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t[4];
    int nt = mn_types(m, t, 4), shape = wmma_shape_of(m);
    int rnd = mn_has(m, "rz") || mn_has(m, "rm") || mn_has(m, "rp");
    int satfinite = mn_has(m, "satfinite");
    if ((nt != 2 && nt != 4) || shape < 0 || n != 4 || rnd)
        return dec_bad(c, "this form of wmma.mma is not emulated");
    int dt = mma_type_of(t[0].name), ct = mma_type_of(t[nt - 1].name);
    int at = nt == 4 ? mma_type_of(t[1].name) : MT_F16,
        bt = nt == 4 ? mma_type_of(t[2].name) : MT_F16;
    int ints = at == MT_S8 || at == MT_U8;
    if (dt < 0 || ct < 0 || at < 0 || bt < 0 || (at != bt && !ints) ||
        (ints && bt != MT_S8 && bt != MT_U8) || !wmma_has(0, at, shape) ||
        !wmma_has(2, ct, shape) || !wmma_has(2, dt, shape) || (dt == MT_S32) != ints ||
        (satfinite && !ints))
        return dec_bad(c, "these wmma.mma types are not emulated");
    int col[2];
    if (mma_layouts(m, col) != 2)
        return dec_bad(c, "wmma.mma needs two layouts");
    const int regs[4] = {wmma_frag_regs(2, dt, shape), wmma_frag_regs(0, at, shape),
                         wmma_frag_regs(1, at, shape), wmma_frag_regs(2, ct, shape)};
    struct insn *in = emit_mma(c, OP_WMMA_MMA, o, regs, at == MT_F64 ? SLOT_64 : SLOT_32);
    if (!in)
        return -1;
    in->mod = MMA_MOD((uint32_t)shape, (uint32_t)at, (uint32_t)bt, (uint32_t)ct, (uint32_t)dt,
                      (uint32_t)col[0], (uint32_t)col[1]) |
              (satfinite ? MMA_SATFINITE_BIT : 0);
    return 0;
}

int dec_wmma(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (mn_has(m, "load"))
        return wmma_mem(c, m, o, n, 1);
    if (mn_has(m, "store"))
        return wmma_mem(c, m, o, n, 0);
    if (mn_has(m, "mma"))
        return wmma_mma(c, m, o, n);
    return dec_bad(c, "this wmma is not emulated");
}

/* Registers per lane of an mma.sync fragment (matrix 0 a, 1 b, 2 c/d) of element type @p type
 * in shape @p shape: a holds M x K elements, b K x 8, c and d M x 8, over 32 lanes in 32-bit
 * registers (f16 accumulators two to a register), or f64 elements one to a 64-bit register;
 * Volta's m8n8k4 in f16 is four such products, one a quad pair of lanes. */
int mma_frag_regs(int matrix, int type, int shape)
{
    int M = mma_shape_m(shape), K = mma_shape_k(shape);
    int elems = (matrix == 2 ? M * 8 : K * (matrix == 0 ? M : 8)) * mma_products(shape, type);
    return type == MT_F64 ? elems / 32 : elems * mma_elem_bits(type) / 1024;
}

int mma_sp_unit(int type)
{
    return type == MT_F16 || type == MT_BF16 || type == MT_TF32 ? 16 : 8;
}

/* Rows g and g + 8 of A hold K * bits / (4 unit) chunks each, a 4-bit index pair a chunk: that
 * many 32-bit registers of metadata in all, one a lane. */
int mma_sp_threads(int type, int shape)
{
    return mma_shape_k(shape) * mma_elem_bits(type) / (16 * mma_sp_unit(type));
}

/* Whether mma.sync exists for input type @p at in @p shape (the floating-point forms, f64's
 * m8n8k4 and m16n8k4/k8/k16, Volta's m8n8k4 f16, and the 8-, 4- and 1-bit integer ones). */
static int mma_has(int at, int shape)
{
    int fp8 = at == MT_E4M3 || at == MT_E5M2, half = at == MT_F16 || at == MT_BF16;
    int int8 = at == MT_S8 || at == MT_U8, f64 = at == MT_F64, int4 = at == MT_S4 || at == MT_U4;
    switch (shape) {
    case MS_16_8_16:
        return half || fp8 || int8 || f64;
    case MS_16_8_8:
        return half || at == MT_TF32 || f64;
    case MS_16_8_4:
        return at == MT_TF32 || f64;
    case MS_8_8_4:
        return f64 || at == MT_F16;
    case MS_8_8_16:
        return int8;
    case MS_8_8_32:
    case MS_16_8_64:
        return int4;
    case MS_8_8_128:
    case MS_16_8_128:
    case MS_16_8_256:
        return at == MT_B1;
    default:
        return fp8 || int8 || int4; /* m16n8k32 */
    }
}

/* Whether mma.sp exists for input type @p at in @p shape (the PTX ISA's for sm_80 to sm_90:
 * f16/bf16 in m16n8k16 and m16n8k32, tf32 in m16n8k8 and m16n8k16, s8/u8 in m16n8k32 and
 * m16n8k64, e4m3/e5m2 in m16n8k64, s4/u4 in m16n8k64 and m16n8k128). */
static int mma_sp_has(int at, int shape)
{
    int half = at == MT_F16 || at == MT_BF16, int8 = at == MT_S8 || at == MT_U8;
    int fp8 = at == MT_E4M3 || at == MT_E5M2, int4 = at == MT_S4 || at == MT_U4;
    switch (shape) {
    case MS_16_8_8:
        return at == MT_TF32;
    case MS_16_8_16:
        return half || at == MT_TF32;
    case MS_16_8_32:
        return half || int8;
    case MS_16_8_64:
        return int8 || fp8 || int4;
    case MS_16_8_128:
        return int4;
    default:
        return 0;
    }
}

/* mma.sp's metadata e (@p o[4], a 32-bit register or constant) into in->o[4] and its sparsity
 * selector f (@p o[5], an immediate below 4 / mma_sp_threads()) into in->imm. */
static int mma_sp_operands(struct dctx *c, const struct operand *o, int at, int shape,
                           struct insn *in)
{
    int choices = 4 / mma_sp_threads(at, shape);
    if (o[5].kind != OK_IMM || o[5].imm < 0 || o[5].imm >= choices)
        return dec_bad(c, "the sparsity selector of this mma.sp is an immediate from 0 to %d",
                       choices - 1);
    in->imm = o[5].imm;
    in->mod |= MMA_SPARSE_BIT;
    return dec_src(c, &o[4], 'b', 32, &in->o[4]);
}

/* Whether a, b, c and d of these types make an mma.sync: f32 accumulators for every
 * floating-point input type, f16 ones for f16 and fp8 inputs (dtype = ctype, as ptxas
 * requires); fp8 a and b may differ (e4m3, e5m2), and s8 and u8 too, and s4 and u4, with s32
 * accumulators, as b1's are; f64 is f64 throughout. */
int mma_types_ok(int at, int bt, int ct, int dt)
{
    int fp8 = at == MT_E4M3 || at == MT_E5M2, int8 = at == MT_S8 || at == MT_U8;
    if (at == MT_F64)
        return bt == MT_F64 && ct == MT_F64 && dt == MT_F64;
    if (int8)
        return (bt == MT_S8 || bt == MT_U8) && ct == MT_S32 && dt == MT_S32;
    if (at == MT_S4 || at == MT_U4)
        return (bt == MT_S4 || bt == MT_U4) && ct == MT_S32 && dt == MT_S32;
    if (at == MT_B1)
        return bt == MT_B1 && ct == MT_S32 && dt == MT_S32;
    int f16_acc = at == MT_F16 || fp8;
    return (fp8 ? bt == MT_E4M3 || bt == MT_E5M2 : bt == at) && dt == ct &&
           (dt == MT_F32 || (dt == MT_F16 && f16_acc));
}

/* Volta's m8n8k4: f16 inputs, f16 or f32 accumulators, an f32 d for an f32 c (ptxas's rule). */
static int mma_quadpair_types_ok(int at, int bt, int ct, int dt)
{
    return at == MT_F16 && bt == MT_F16 && (dt == MT_F32 || (dt == MT_F16 && ct == MT_F16)) &&
           (ct == MT_F16 || ct == MT_F32);
}

/* mma{.sp{::ordered_metadata}}.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype
 * {.bitop.popc} d, a, b, c{, e, f}; .satfinite only for the 8- and 4-bit integer forms, whose
 * s32 sums it clamps instead of wrapping; .and.popc or .xor.popc for the 1-bit ones, whose
 * products are the bits' and or xor; the sparse forms (.sp) with half of A's K in a, their
 * metadata e and sparsity selector f. */
int dec_mma(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t[4];
    int sparse = mn_has(m, "sp") || mn_has(m, "sp::ordered_metadata");
    int shape = mn_has(m, "m16n8k16")    ? MS_16_8_16
                : mn_has(m, "m16n8k8")   ? MS_16_8_8
                : mn_has(m, "m16n8k4")   ? MS_16_8_4
                : mn_has(m, "m16n8k32")  ? MS_16_8_32
                : mn_has(m, "m8n8k4")    ? MS_8_8_4
                : mn_has(m, "m8n8k16")   ? MS_8_8_16
                : mn_has(m, "m8n8k32")   ? MS_8_8_32
                : mn_has(m, "m16n8k64")  ? MS_16_8_64
                : mn_has(m, "m8n8k128")  ? MS_8_8_128
                : mn_has(m, "m16n8k128") ? MS_16_8_128
                : mn_has(m, "m16n8k256") ? MS_16_8_256
                                         : -1;
    if (mn_types(m, t, 4) != 4 || shape < 0 || n != (sparse ? 6 : 4))
        return dec_bad(c, "this form of mma is not emulated");
    int dt = mma_type_of(t[0].name), at = mma_type_of(t[1].name), bt = mma_type_of(t[2].name),
        ct = mma_type_of(t[3].name);
    int satfinite = mn_has(m, "satfinite"), quadpair = mma_products(shape, at) == 4;
    int col[2]; /* a's and b's: row.col, or any two for m8n8k4 f16 */
    if (mma_layouts(m, col) != 2 || (!quadpair && (col[0] || !col[1])))
        return dec_bad(c, "this form of mma is not emulated");
    int bits = mn_has(m, "popc") && (mn_has(m, "and") ^ mn_has(m, "xor")); /* b1's bit op */
    if (!(sparse ? mma_sp_has : mma_has)(at, shape) ||
        !(quadpair ? mma_quadpair_types_ok : mma_types_ok)(at, bt, ct, dt) ||
        (satfinite && (dt != MT_S32 || at == MT_B1)) || bits != (at == MT_B1))
        return dec_bad(c,
                       "these mma types are not emulated (f16/bf16/tf32/e4m3/e5m2 inputs with f32 "
                       "or f16 accumulators, s8/u8, s4/u4 and b1 (.and or .xor .popc) with s32, "
                       "f64)");
    const int regs[4] = {mma_frag_regs(2, dt, shape), mma_frag_regs(0, at, shape) >> sparse,
                         mma_frag_regs(1, bt, shape), mma_frag_regs(2, ct, shape)};
    struct insn *in = emit_mma(c, OP_MMA_SYNC, o, regs, at == MT_F64 ? SLOT_64 : SLOT_32);
    if (!in)
        return -1;
    in->mod = MMA_MOD((uint32_t)shape, (uint32_t)at, (uint32_t)bt, (uint32_t)ct, (uint32_t)dt,
                      (uint32_t)col[0], (uint32_t)col[1]) |
              (satfinite ? MMA_SATFINITE_BIT : 0) | (mn_has(m, "xor") ? MMA_XOR_BIT : 0);
    return sparse ? mma_sp_operands(c, o, at, shape, in) : 0;
}

/* ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared{::cta}.b16 {d...}, [a] and
 * stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared{::cta}.b16 [a], {r...} */
int dec_ldmatrix(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    int store = !strcmp(m->base, "stmatrix");
    int num = mn_has(m, "x4") ? 4 : mn_has(m, "x2") ? 2 : mn_has(m, "x1") ? 1 : 0;
    const struct operand *addr = &o[store ? 0 : 1], *frag = &o[store ? 1 : 0];
    enum space sp = mn_space(m); /* .shared, or none: a generic address into shared memory */
    if (!num || !mn_has(m, "m8n8") || !mn_has(m, "b16") || n != 2 || addr->kind != OK_ADDR ||
        (sp != SP_SHARED && sp != SP_GENERIC))
        return dec_bad(c, "this form of %s is not emulated", m->base);
    uint32_t words[4];
    int nw = 0;
    if (fragment(c, frag, num, words, &nw))
        return -1;
    uint32_t pool = decode_pool(c->mod, words, (uint32_t)nw);
    struct insn *in = dec_emit(c, store ? OP_STMATRIX : OP_LDMATRIX);
    in->imm = addr->imm + (addr->sym ? (int64_t)dec_sym_addr(c, addr->sym) : 0);
    in->o[0] = addr->reg ? addr->reg->off : NO_REG;
    in->o[5] = pool;
    in->width = (uint8_t)num;
    in->mod = (uint32_t)mn_has(m, "trans") | (uint32_t)(sp == SP_GENERIC) << 1 |
              (addr->reg && addr->reg->slot == SLOT_32 ? MEM_BASE32_BIT : 0);
    return 0;
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a */
int dec_movmatrix(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    uint32_t d, a;
    if (!mn_has(m, "m8n8") || !mn_has(m, "trans") || !mn_has(m, "b16"))
        return dec_bad(c, "this form of movmatrix is not emulated");
    if (n != 2 || dec_dst(c, &o[0], 32, &d) || dec_src(c, &o[1], 'b', 32, &a))
        return n != 2 ? dec_bad(c, "expected 2 operands") : -1;
    struct insn *in = dec_emit(c, OP_MOVMATRIX);
    in->o[0] = d, in->o[1] = a;
    return 0;
}

/* ---- control ------------------------------------------------------------------------------ */

/* bar.sync / barrier.sync a{, b}; bar.arrive a, b; bar.red.op.type d, a{, b}, {!}c;
 * bar.warp.sync mask. */
int dec_bar(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (mn_has(m, "cluster"))
        return dec_bar_cluster(c, m, o, n);
    if (mn_has(m, "warp")) {
        uint32_t mask;
        if (n != 1 || dec_src(c, &o[0], 'u', 32, &mask))
            return n != 1 ? dec_bad(c, "expected 1 operand") : -1;
        dec_emit(c, OP_BAR_WARP_SYNC)->o[0] = mask;
        return 0;
    }
    int red = mn_has(m, "red"), arrive = mn_has(m, "arrive");
    if (!red && !arrive && !mn_has(m, "sync") && strcmp(m->base, "bar"))
        return dec_bad(c, "this barrier is not emulated");
    int first = red ? 1 : 0, nsrc = n - first - red;
    uint32_t id, count = NO_REG, d = NO_REG, p = NO_REG;
    if (nsrc < 1 || nsrc > 2 || dec_src(c, &o[first], 'u', 32, &id) ||
        (nsrc == 2 && dec_src(c, &o[first + 1], 'u', 32, &count)))
        return nsrc < 1 || nsrc > 2 ? dec_bad(c, "this barrier's operands are not emulated") : -1;
    int redop = mn_has(m, "popc") ? 0 : mn_has(m, "and") ? 1 : 2;
    if (red && (dec_dst(c, &o[0], redop ? 1 : 32, &d) || dec_src(c, &o[n - 1], 'p', 1, &p)))
        return -1;
    struct insn *in = dec_emit(c, OP_BAR_SYNC);
    in->o[0] = id, in->o[1] = count, in->o[2] = d, in->o[3] = p;
    in->width = (uint8_t)(red ? 2 : arrive ? 1 : 0);
    in->mod = (uint32_t)redop | (uint32_t)(red && o[n - 1].negated) << 4 |
              (strcmp(m->base, "bar") && !mn_has(m, "aligned") ? BAR_UNALIGNED_BIT : 0);
    return 0;
}

int dec_bra(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (n != 1 || o[0].kind != OK_SYM || !o[0].name)
        return dec_bad(c, "%s needs a label (indirect branches are not emulated)", m->base);
    struct insn *in = dec_emit(c, OP_BRA);
    in->mod = (uint32_t)mn_has(m, "uni");
    c->label_ref(c, (uint32_t)(in - c->mod->code), o[0].name);
    return 0;
}

/* The call frame offset of a call's argument @p o, or -1. */
static int64_t callparam(const struct operand *o)
{
    return o->kind == OK_SYM && o->sym && o->sym->is_callparam ? (int64_t)o->sym->addr : -1;
}

/* call (ret), vprintf, (fmt, args), call (ret), malloc, (size), call free, (ptr), call
 * __assertfail, (msg, file, line, func, size) and call cudaGraphSetConditional, (handle, value):
 * the library functions device code calls; anything else is a real call. */
int dec_call(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    (void)m;
    int callee = -1, target = -1;
    for (int i = 0; i < n; i++)
        if (o[i].paren == 0 && o[i].kind == OK_REG && target < 0)
            target = callee = i; /* call (ret), %rd, (args), prototype */
        else if (o[i].paren == 0 && target < 0)
            callee = i;
    if (callee < 0 || (target < 0 && (o[callee].kind != OK_SYM || !o[callee].name)))
        return dec_bad(c, "this form of call is not emulated");
    const char *name = target < 0 ? o[callee].name : "(indirect)";
    int nret = callee, nargs = n - callee - 1 - (target >= 0);
    if (!strcmp(name, "vprintf") && nargs == 2 && callparam(&o[callee + 1]) >= 0 &&
        callparam(&o[callee + 2]) >= 0) {
        struct insn *in = dec_emit(c, OP_VPRINTF);
        in->imm = callparam(&o[callee + 1]);
        in->mod = (uint32_t)callparam(&o[callee + 2]);
        in->o[0] = nret == 1 && callparam(&o[0]) >= 0 ? (uint32_t)callparam(&o[0]) : NO_REG;
        return 0;
    }
    if ((!strcmp(name, "malloc") && nret == 1) || (!strcmp(name, "free") && nret == 0)) {
        if (nargs != 1 || callparam(&o[callee + 1]) < 0 || (nret && callparam(&o[0]) < 0))
            return dec_bad(c, "a call to %s whose operands are not .params", name);
        struct insn *in = dec_emit(c, nret ? OP_MALLOC : OP_FREE);
        in->imm = callparam(&o[callee + 1]);
        in->o[0] = nret ? (uint32_t)callparam(&o[0]) : NO_REG;
        c->mod->uses_heap = 1;
        return 0;
    }
    if (!strcmp(name, "cudaGraphSetConditional")) {
        if (nargs != 2 || nret || callparam(&o[callee + 1]) < 0 || callparam(&o[callee + 2]) < 0)
            return dec_bad(c, "a call to cudaGraphSetConditional whose operands are not 2 .params");
        struct insn *in = dec_emit(c, OP_SET_COND);
        in->imm = callparam(&o[callee + 1]);
        in->mod = (uint32_t)callparam(&o[callee + 2]);
        return 0;
    }
    if (!strcmp(name, "__assertfail") && nargs >= 4) {
        uint32_t words[4];
        for (int i = 0; i < 4; i++) {
            if (callparam(&o[callee + 1 + i]) < 0)
                return dec_bad(c, "an __assertfail argument is not a parameter");
            words[i] = (uint32_t)callparam(&o[callee + 1 + i]);
        }
        struct insn *in = dec_emit(c, OP_TRAP);
        in->width = 1; /* an assertion: message, file, line, function in the call frame */
        in->o[5] = decode_pool(c->mod, words, 4);
        return 0;
    }
    uint32_t words[2 + OPS_MAX];
    words[0] = (uint32_t)nargs;
    for (int i = 0; i < nargs; i++) {
        if (callparam(&o[callee + 1 + i]) < 0)
            return dec_bad(c, "a call argument is not a .param the emulator can pass");
        words[1 + i] = (uint32_t)callparam(&o[callee + 1 + i]);
    }
    if (nret > 1 || (nret == 1 && callparam(&o[0]) < 0))
        return dec_bad(c, "a call's return value is not a .param the emulator can pass");
    words[1 + nargs] = nret ? (uint32_t)callparam(&o[0]) : NO_REG;
    uint32_t pool = decode_pool(c->mod, words, (uint32_t)nargs + 2), reg = NO_REG;
    if (target >= 0 && dec_src(c, &o[target], 'u', 64, &reg))
        return -1;
    int cdp = target < 0 ? vm_cdp_builtin(name) : -1; /* dynamic parallelism's runtime */
    struct insn *in = dec_emit(c, cdp >= 0 ? OP_CDP : target >= 0 ? OP_CALL_IND : OP_CALL);
    in->o[5] = pool;
    if (cdp >= 0) {
        in->mod = (uint32_t)cdp;
        c->mod->uses_heap = 1; /* parameter buffers come from the device heap */
        return 0;
    }
    in->o[0] = reg;
    if (target < 0)
        c->callee(c, (uint32_t)(in - c->mod->code), name);
    return 0;
}

/* exit, ret, trap, brkpt. */
int dec_ctrl(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    (void)o;
    if (n != 0)
        return dec_bad(c, "%s takes no operands", m->base);
    if (!strcmp(m->base, "trap") || !strcmp(m->base, "brkpt")) {
        dec_emit(c, OP_TRAP);
        return 0;
    }
    dec_emit(c, !strcmp(m->base, "ret") && !c->fn->is_entry ? OP_RET : OP_EXIT);
    return 0;
}

/* ---- dynamic parallelism's built-ins ---------------------------------------------------- */

static const char *const cdp_names[CDP_COUNT] = {
    "__cudaCDP2GetParameterBufferV2", "__cudaCDP2LaunchDeviceV2", "__cudaCDP2StreamCreateWithFlags",
    "__cudaCDP2StreamDestroy",        "__cudaCDP2GetLastError",   "__cudaCDP2PeekAtLastError",
    "__cudaCDP2GetErrorString",       "__cudaCDP2Malloc",         "__cudaCDP2Free",
    "__cudaCDP2MemcpyAsync",          "__cudaCDP2GetDevice"};

int vm_cdp_builtin(const char *name)
{
    for (int i = 0; i < CDP_COUNT; i++)
        if (!strcmp(name, cdp_names[i]))
            return i;
    return -1;
}
