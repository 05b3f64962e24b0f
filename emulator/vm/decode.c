/**
 * @file decode.c
 * @brief One PTX instruction to one struct insn: the mnemonic table and the
 *        integer, floating-point and conversion families.
 *
 * A mnemonic is split at its dots into a base ("setp") and modifiers
 * ("ge", "s32"). The base picks a decode function from one sorted table;
 * the function reads the modifiers and operands, checks register widths,
 * turns immediates and symbols into constant registers, and emits the
 * specialised opcode. Whatever it cannot map becomes OP_UNSUPPORTED, which
 * fails the launch that reaches it and names the text: never a guess.
 */
#define _GNU_SOURCE
#include "decode_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- mnemonics ----------------------------------------------------------------------- */

static void split(const char *text, struct mn *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->buf, sizeof m->buf, "%s", text);
    char *p = strchr(m->buf, '.');
    m->base = m->buf;
    while (p && m->nmods < MN_MODS) {
        *p++ = '\0';
        m->mods[m->nmods++] = p;
        p = strchr(p, '.');
    }
}

int mn_has(const struct mn *m, const char *mod)
{
    for (int i = 0; i < m->nmods; i++)
        if (!strcmp(m->mods[i], mod))
            return 1;
    return 0;
}

/* Type modifiers, in order: "f32" -> 'f', 32. */
static int type_info(const char *s, char *kind)
{
    static const struct {
        const char *name;
        char kind;
        int bits;
    } t[] = {{"pred", 'p', 1},  {"b8", 'b', 8},      {"b16", 'b', 16}, {"b32", 'b', 32},
             {"b64", 'b', 64},  {"b128", 'b', 128},  {"u8", 'u', 8},   {"u16", 'u', 16},
             {"u32", 'u', 32},  {"u64", 'u', 64},    {"s8", 's', 8},   {"s16", 's', 16},
             {"s32", 's', 32},  {"s64", 's', 64},    {"f16", 'h', 16}, {"f16x2", 'H', 32},
             {"bf16", 'g', 16}, {"bf16x2", 'G', 32}, {"f32", 'f', 32}, {"f64", 'f', 64},
             {"tf32", 't', 32}, {"e4m3", 'e', 8},    {"e5m2", 'e', 8}, {"s4", 's', 4},
             {"u4", 'u', 4},    {"b1", 'b', 1}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(s, t[i].name)) {
            *kind = t[i].kind;
            return t[i].bits;
        }
    return 0;
}

int mn_types(const struct mn *m, struct mtype *types, int max)
{
    int n = 0;
    for (int i = 0; i < m->nmods && n < max; i++) {
        char kind;
        int bits = type_info(m->mods[i], &kind);
        if (bits)
            types[n++] = (struct mtype){kind, bits, m->mods[i]};
    }
    return n;
}

int mn_which(const struct mn *m, const char *const *names, int n)
{
    int which = -1;
    for (int i = 0; i < n; i++)
        if (mn_has(m, names[i]))
            which = i;
    return which;
}

enum rnd mn_rounding(const struct mn *m)
{
    static const char *const names[] = {"",    "rn",  "rz",  "rm",  "rp",
                                        "rna", "rni", "rzi", "rmi", "rpi"};
    for (int r = RND_RN; r <= RND_RPI; r++)
        if (mn_has(m, names[r]))
            return (enum rnd)r;
    return RND_NONE;
}

enum space mn_space(const struct mn *m)
{
    if (mn_has(m, "global"))
        return SP_GLOBAL;
    if (mn_has(m, "shared") || mn_has(m, "shared::cta") || mn_has(m, "shared::cluster"))
        return SP_SHARED;
    if (mn_has(m, "local"))
        return SP_LOCAL;
    if (mn_has(m, "const"))
        return SP_CONST;
    if (mn_has(m, "param"))
        return SP_PARAM;
    return SP_GENERIC;
}

/* ---- emitting --------------------------------------------------------------------------- */

struct insn *dec_emit(struct dctx *c, enum op op)
{
    struct vm_module *m = c->mod;
    m->code = emu_grow(m->code, m->ncode, &c->cap_code, sizeof *m->code);
    struct insn *in = &m->code[m->ncode];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    in->guard = c->guard;
    in->neg_guard = (uint8_t)c->neg_guard;
    in->line = c->loc;
    for (int i = 0; i < INSN_OPS; i++)
        in->o[i] = NO_REG;
    m->texts = emu_grow(m->texts, m->ncode, &c->cap_texts, sizeof *m->texts);
    m->texts[m->ncode] = NULL;
    m->ncode++;
    return in;
}

int dec_unsupported(struct dctx *c, const char *why)
{
    /* Replace whatever this instruction emitted so far: one instruction, unsupported. */
    if (c->mod->ncode > c->start) {
        for (uint32_t i = c->start; i < c->mod->ncode; i++)
            free(c->mod->texts[i]);
        c->mod->ncode = c->start;
    }
    struct insn *in = dec_emit(c, OP_UNSUPPORTED);
    /* a long instruction (wgmma's operand list) is cut, so that the failure's one line keeps
     * the reason */
    int keep = c->text_len > 120 ? 117 : (int)c->text_len;
    char *text = emu_malloc((size_t)keep + strlen(why) + 8);
    sprintf(text, "%.*s%s (%s)", keep, c->text, keep < (int)c->text_len ? "..." : "", why);
    c->mod->texts[in - c->mod->code] = text;
    return -1;
}

int dec_bad(struct dctx *c, const char *fmt, ...)
{
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    /* An operand the VM does not understand fails the launch that reaches it, with the
     * instruction's text, rather than the whole module. */
    return dec_unsupported(c, why);
}

uint32_t decode_pool(struct vm_module *m, const uint32_t *words, uint32_t n)
{
    uint32_t at = m->npool;
    uint32_t *pool = emu_realloc(m->pool, (size_t)(m->npool + n + 1) * sizeof *pool);
    memcpy(pool + at, words, n * sizeof *words);
    m->pool = pool;
    m->npool += n;
    return at;
}

/* ---- operands ------------------------------------------------------------------------ */

uint64_t dec_sym_addr(struct dctx *c, const struct sym *s)
{
    return s->space == SP_SHARED && s->addr == UINT64_MAX ? c->dyn_smem_base(c) : s->addr;
}

/* The value of an immediate operand as the bits of a @p kind / @p bits type. */
static int imm_bits(const struct operand *o, char kind, int bits, uint64_t *out)
{
    if (o->kind == OK_IMM) {
        if (kind == 'f' && bits == 32) {
            float f = (float)o->imm;
            uint32_t u;
            memcpy(&u, &f, 4);
            *out = u;
        } else if (kind == 'f' && bits == 64) {
            double d = (double)o->imm;
            memcpy(out, &d, 8);
        } else {
            *out = bits >= 64 ? (uint64_t)o->imm : (uint64_t)o->imm & ((1ull << bits) - 1);
        }
        return 0;
    }
    if (o->kind == OK_FIMM) {
        if (bits == 32 && o->fsize == 8) {
            double d;
            memcpy(&d, &o->fbits, 8);
            float f = (float)d;
            uint32_t u;
            memcpy(&u, &f, 4);
            *out = u;
        } else if (bits == 64 && o->fsize == 4) {
            uint32_t u = (uint32_t)o->fbits;
            float f;
            memcpy(&f, &u, 4);
            double d = f;
            memcpy(out, &d, 8);
        } else {
            *out = o->fbits;
        }
        return 0;
    }
    return -1;
}

int dec_src(struct dctx *c, const struct operand *o, char kind, int bits, uint32_t *off)
{
    int slot = bits == 1 ? SLOT_PRED : bits == 64 ? SLOT_64 : SLOT_32;
    uint64_t v;
    if (o->kind == OK_REG) {
        if (o->reg->slot != slot)
            return dec_bad(c, "operand is a %d-bit register where %d bits are expected",
                           o->reg->bits, bits);
        *off = o->reg->off;
        return 0;
    }
    if (imm_bits(o, kind, bits, &v) == 0) {
        if (slot == SLOT_PRED)
            v = v ? FULL_MASK : 0;
        *off = c->constant(c, v, slot);
        return 0;
    }
    if (o->kind == OK_SYM && o->sym && !o->sym->is_label) {
        /* A variable's name as a value: its address in its own state space. */
        *off = c->constant(c, dec_sym_addr(c, o->sym), slot);
        return 0;
    }
    return dec_bad(c, "unexpected operand");
}

int dec_dst(struct dctx *c, const struct operand *o, int bits, uint32_t *off)
{
    int slot = bits == 1 ? SLOT_PRED : bits == 64 ? SLOT_64 : SLOT_32;
    if (o->kind == OK_SINK || (o->kind == OK_VEC && o->nvec == 1 && !o->vec[0])) {
        *off = NO_REG;
        return 0;
    }
    if (o->kind != OK_REG)
        return dec_bad(c, "the destination is not a register");
    if (o->reg->slot != slot)
        return dec_bad(c, "destination is a %d-bit register where %d bits are expected",
                       o->reg->bits, bits);
    *off = o->reg->off;
    return 0;
}

/* Sources o[first .. first+n) into in->o[at ..]. */
int dec_srcs(struct dctx *c, struct insn *in, int at, const struct operand *ops, int n, char kind,
             int bits)
{
    for (int i = 0; i < n; i++)
        if (dec_src(c, &ops[i], kind, bits, &in->o[at + i]))
            return -1;
    return 0;
}

/* ---- the table ----------------------------------------------------------------------- */

typedef int (*decode_fn)(struct dctx *c, const struct mn *m, struct operand *o, int n);

struct row {
    const char *base;
    decode_fn fn;
};

static const struct row table[] = {
    /* sorted by base, for bsearch */
    {"abs", dec_unary},
    {"activemask", dec_warp},
    {"add", dec_arith},
    {"addc", dec_carry},
    {"and", dec_logic},
    {"atom", dec_atom},
    {"bar", dec_bar},
    {"barrier", dec_bar},
    {"bfe", dec_bits},
    {"bfi", dec_bits},
    {"bfind", dec_bits},
    {"bmsk", dec_bits},
    {"bra", dec_bra},
    {"brev", dec_bits},
    {"brkpt", dec_ctrl},
    {"call", dec_call},
    {"clz", dec_bits},
    {"cnot", dec_logic},
    {"copysign", dec_arith},
    {"cos", dec_unary},
    {"cp", dec_cp},
    {"cvt", dec_cvt},
    {"cvta", dec_cvta},
    {"discard", dec_nop},
    {"div", dec_arith},
    {"dp2a", dec_dp},
    {"dp4a", dec_dp},
    {"elect", dec_elect},
    {"ex2", dec_unary},
    {"exit", dec_ctrl},
    {"fence", dec_fence},
    {"fma", dec_arith},
    {"fns", dec_bits},
    {"getctarank", dec_mapa},
    {"griddepcontrol", dec_nop},
    {"isspacep", dec_cvta},
    {"ld", dec_ld},
    {"ldmatrix", dec_ldmatrix},
    {"ldu", dec_ld},
    {"lg2", dec_unary},
    {"lop3", dec_logic},
    {"mad", dec_arith},
    {"mad24", dec_arith},
    {"madc", dec_carry},
    {"mapa", dec_mapa},
    {"match", dec_warp},
    {"max", dec_arith},
    {"mbarrier", dec_mbarrier},
    {"membar", dec_fence},
    {"min", dec_arith},
    {"mma", dec_mma},
    {"mov", dec_mov},
    {"movmatrix", dec_movmatrix},
    {"mul", dec_arith},
    {"mul24", dec_arith},
    {"nanosleep", dec_nop},
    {"neg", dec_unary},
    {"not", dec_logic},
    {"or", dec_logic},
    {"pmevent", dec_nop},
    {"popc", dec_bits},
    {"prefetch", dec_nop},
    {"prefetchu", dec_nop},
    {"prmt", dec_bits},
    {"rcp", dec_unary},
    {"red", dec_atom},
    {"redux", dec_warp},
    {"rem", dec_arith},
    {"ret", dec_ctrl},
    {"rsqrt", dec_unary},
    {"sad", dec_arith},
    {"selp", dec_selp},
    {"set", dec_setp},
    {"setmaxnreg", dec_setmaxnreg},
    {"setp", dec_setp},
    {"shf", dec_shift},
    {"shfl", dec_warp},
    {"shl", dec_shift},
    {"shr", dec_shift},
    {"sin", dec_unary},
    {"sqrt", dec_unary},
    {"st", dec_st},
    {"stmatrix", dec_ldmatrix},
    {"sub", dec_arith},
    {"subc", dec_carry},
    {"suld", dec_texture},
    {"suq", dec_texture},
    {"sust", dec_texture},
    {"tanh", dec_unary},
    {"tensormap", dec_tensormap},
    {"testp", dec_unary},
    {"tex", dec_texture},
    {"tld4", dec_texture},
    {"trap", dec_ctrl},
    {"txq", dec_texture},
    {"vabsdiff", dec_video},
    {"vabsdiff2", dec_video},
    {"vabsdiff4", dec_video},
    {"vadd", dec_video},
    {"vadd2", dec_video},
    {"vadd4", dec_video},
    {"vavrg2", dec_video},
    {"vavrg4", dec_video},
    {"vmad", dec_vmad},
    {"vmax", dec_video},
    {"vmax2", dec_video},
    {"vmax4", dec_video},
    {"vmin", dec_video},
    {"vmin2", dec_video},
    {"vmin4", dec_video},
    {"vote", dec_warp},
    {"vset", dec_video},
    {"vset2", dec_video},
    {"vset4", dec_video},
    {"vshl", dec_video},
    {"vshr", dec_video},
    {"vsub", dec_video},
    {"vsub2", dec_video},
    {"vsub4", dec_video},
    {"wgmma", dec_wgmma},
    {"wmma", dec_wmma},
    {"xor", dec_logic},
};

static int cmp_base(const void *key, const void *row)
{
    return strcmp(key, *(const char *const *)row);
}

int decode_insn(struct dctx *c, const char *mn, const struct reg *guard, int neg_guard,
                struct operand *ops, int nops)
{
    struct mn m;
    split(mn, &m);
    c->guard = NO_REG;
    c->neg_guard = neg_guard;
    if (guard) {
        if (guard->slot != SLOT_PRED)
            return dec_bad(c, "the guard is not a predicate");
        c->guard = guard->off;
    }
    c->start = c->mod->ncode;
    if (strlen(mn) >= sizeof m.buf) { /* never read a truncated mnemonic as another one */
        dec_unsupported(c, "a mnemonic longer than the emulator reads");
        return 0;
    }
    const struct row *row =
        bsearch(m.base, table, sizeof table / sizeof *table, sizeof *table, cmp_base);
    if (!row) {
        dec_unsupported(c, "not an instruction the emulator knows");
        return 0;
    }
    for (int i = 0; i < nops && row->fn != dec_vmad; i++)
        if (ops[i].minus) {
            dec_bad(c, "a negated register (-%%r) is only vmad's");
            return 0;
        }
    /* A decoder that gives up has already turned the instruction into OP_UNSUPPORTED. */
    row->fn(c, &m, ops, nops);
    return 0;
}
