/**
 * @file parse.c
 * @brief PTX text to a decoded module, in one pass: statements, registers, operands,
 *        functions, source lines and the module. Tokens come from lex.c, names, labels and
 *        calls are linked in link.c, variables and their device memory are vars.c's;
 *        instructions go to decode.c.
 *
 * The grammar covered is what nvcc emits plus what students write in inline
 * asm: module directives (.version, .target, .address_size, .file, .section
 * skipped), variables (.global, .const, .shared, with initialisers),
 * functions (.entry, .func, prototypes, performance directives), and bodies
 * (.reg with <N> ranges, .shared/.local/.param declarations, { } scopes,
 * labels, guards, .loc, .pragma).
 *
 * A -rdc program's PTX is several texts, one per object, each beginning with
 * its own .version (fatbin.h); they are linked into one module as they are
 * parsed. Each text is a unit: its module-scope names that are not .visible,
 * .weak or .extern (strings such as $str, internal functions and variables)
 * are forgotten at its end, so the next unit may reuse them; a call resolves
 * to a function of its own unit first, else to a .visible or .weak one of any
 * unit; an .extern .global or .const variable is the one a unit defines
 * .visible (placed at the first declaration, so either may come first).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int parse_fail(struct parser *P, const char *fmt, ...)
{
    if (P->dc.err[0])
        return -1;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(P->dc.err, P->dc.err_size, "%s: PTX line %d: %s", P->dc.mod->origin, P->t.line, msg);
    return -1;
}

void parse_next(struct parser *P)
{
    P->t = lex_next(&P->L);
}

int parse_expect(struct parser *P, char ch)
{
    if (!tok_punct(&P->t, ch))
        return parse_fail(P, "expected '%c', found '%.*s'", ch, (int)P->t.len, P->t.s);
    parse_next(P);
    return 0;
}

/* Skip the rest of PTX line @p line (directives end there, without a ';'). */
static void skip_line_of(struct parser *P, int line)
{
    while (P->t.kind != T_END && P->t.line == line)
        parse_next(P);
}

static void skip_line(struct parser *P)
{
    skip_line_of(P, P->t.line);
}

/* Skip tokens through the next ';'. */
void parse_skip_statement(struct parser *P)
{
    while (P->t.kind != T_END && !tok_punct(&P->t, ';'))
        parse_next(P);
    if (tok_punct(&P->t, ';'))
        parse_next(P);
}

static int parse_int(const char *s, size_t n, int64_t *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    size_t len = n;
    if (len > 1 && (buf[len - 1] == 'U' || buf[len - 1] == 'u'))
        buf[--len] = '\0';
    char *end;
    unsigned long long v = strtoull(buf, &end, 0);
    if (*end)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* An integer token, optionally negative. */
int parse_take_int(struct parser *P, int64_t *out)
{
    int neg = 0;
    if (tok_punct(&P->t, '-')) {
        neg = 1;
        parse_next(P);
    }
    if (P->t.kind != T_NUM || parse_int(P->t.s, P->t.len, out))
        return parse_fail(P, "expected an integer, found '%.*s'", (int)P->t.len, P->t.s);
    if (neg)
        *out = -*out;
    parse_next(P);
    return 0;
}

/* ---- types --------------------------------------------------------------------------- */

/* Width in bits and kind of a type word such as ".f32", ".b64", ".pred"; 0 if not one. */
int parse_type_of(const struct tok *t, char *kind)
{
    static const struct {
        const char *name;
        int bits;
        char kind;
    } types[] = {{".pred", 1, 'p'},  {".b8", 8, 'b'},      {".b16", 16, 'b'}, {".b32", 32, 'b'},
                 {".b64", 64, 'b'},  {".b128", 128, 'b'},  {".u8", 8, 'u'},   {".u16", 16, 'u'},
                 {".u32", 32, 'u'},  {".u64", 64, 'u'},    {".s8", 8, 's'},   {".s16", 16, 's'},
                 {".s32", 32, 's'},  {".s64", 64, 's'},    {".f16", 16, 'f'}, {".f16x2", 32, 'f'},
                 {".bf16", 16, 'f'}, {".bf16x2", 32, 'f'}, {".f32", 32, 'f'}, {".f64", 64, 'f'},
                 {".tf32", 32, 'f'}};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (tok_is(t, types[i].name)) {
            *kind = types[i].kind;
            return types[i].bits;
        }
    return 0;
}

/* ---- registers ------------------------------------------------------------------------ */

static uint32_t arena_take(struct func *fn, int slot)
{
    /* Lane arrays start on a cache line so whole-warp loops vectorise cleanly. */
    uint32_t align = slot == SLOT_PRED ? 4 : 64;
    fn->arena_bytes = (fn->arena_bytes + align - 1) / align * align;
    uint32_t off = fn->arena_bytes;
    fn->arena_bytes += slot;
    return off;
}

static int slot_of_bits(int bits)
{
    return bits == 1 ? SLOT_PRED : bits == 64 ? SLOT_64 : SLOT_32;
}

/* Whether @p t is the directive .reg, alone or with its type in the same word (.reg.b32, as
 * cuda_fp16.hpp's inline assembly writes it). */
static int tok_is_reg(const struct tok *t)
{
    return t->kind == T_WORD && t->len >= 4 && !memcmp(t->s, ".reg", 4) &&
           (t->len == 4 || t->s[4] == '.');
}

/* One qualifier of a .reg declaration (@p t: .b32, .pred, .v2, ...) into @p bits, @p kind and
 * @p lanes (1, or a vector register's 2 or 4). */
static void reg_qualifier(const struct tok *t, int *bits, char *kind, int *lanes)
{
    if (tok_is(t, ".v2") || tok_is(t, ".v4")) {
        *lanes = t->s[2] - '0';
        return;
    }
    int b = parse_type_of(t, kind);
    *bits = b ? b : *bits;
}

/* Declare register @p name (@p n bytes) of @p bits and @p kind. */
static struct entry *declare_reg(struct parser *P, const char *name, size_t n, int bits, char kind)
{
    struct entry *e = names_declare(&P->names, name, n, P->depth);
    e->is_reg = 1;
    e->reg.slot = (uint16_t)slot_of_bits(bits);
    e->reg.bits = (uint8_t)bits;
    e->reg.kind = kind;
    e->reg.off = arena_take(P->dc.fn, e->reg.slot);
    struct func *fn = P->dc.fn;
    fn->regs = emu_grow(fn->regs, fn->nregs, &fn->capregs, sizeof *fn->regs);
    fn->regs[fn->nregs++] = (struct reg_slot){e->reg.off, e->reg.slot};
    return e;
}

/* Declare vector register @p name (@p n bytes) of @p lanes elements: each is a register of its
 * own, NAME.x, .y, .z, .w (and .r, .g, .b, .a, the same ones), and NAME itself stands for
 * {NAME.x, NAME.y, ...} as an operand. */
static void declare_vector(struct parser *P, const char *name, size_t n, int lanes, int bits,
                           char kind)
{
    static const char xyzw[] = "xyzw", rgba[] = "rgba";
    char buf[160];
    for (int i = 0; i < lanes; i++) {
        int m = snprintf(buf, sizeof buf, "%.*s.%c", (int)n, name, xyzw[i]);
        struct reg r = declare_reg(P, buf, (size_t)m, bits, kind)->reg;
        m = snprintf(buf, sizeof buf, "%.*s.%c", (int)n, name, rgba[i]);
        struct entry *alias = names_declare(&P->names, buf, (size_t)m, P->depth);
        alias->is_reg = 1;
        alias->reg = r;
    }
    names_declare(&P->names, name, n, P->depth)->lanes = lanes;
}

/* .reg .type %name<N>, %other;  (or .reg.type, one word) */
static int parse_reg_decl(struct parser *P)
{
    struct tok word = P->t; /* .reg, or .reg.type */
    parse_next(P);
    char kind = 0;
    int bits = 0, lanes = 1;
    for (size_t at = 4, end; at < word.len; at = end) { /* the qualifiers the word holds */
        for (end = at + 1; end < word.len && word.s[end] != '.'; end++)
            ;
        struct tok part = word;
        part.s += at, part.len = end - at;
        reg_qualifier(&part, &bits, &kind, &lanes);
    }
    while (P->t.kind == T_WORD && P->t.s[0] == '.') {
        reg_qualifier(&P->t, &bits, &kind, &lanes);
        parse_next(P);
    }
    if (!bits || bits == 128)
        return parse_fail(P, "a .reg declaration needs a supported type");
    for (;;) {
        if (P->t.kind != T_WORD)
            return parse_fail(P, "expected a register name");
        struct tok name = P->t;
        parse_next(P);
        int64_t count = -1;
        if (tok_punct(&P->t, '<')) {
            parse_next(P);
            if (parse_take_int(P, &count) || parse_expect(P, '>'))
                return -1;
        }
        for (int64_t i = 0; i < (count < 0 ? 1 : count); i++) {
            char buf[128];
            int n = count < 0 ? snprintf(buf, sizeof buf, "%.*s", (int)name.len, name.s)
                              : snprintf(buf, sizeof buf, "%.*s%lld", (int)name.len, name.s,
                                         (long long)i);
            if (lanes > 1)
                declare_vector(P, buf, (size_t)n, lanes, bits, kind);
            else
                declare_reg(P, buf, (size_t)n, bits, kind);
        }
        if (!tok_punct(&P->t, ','))
            break;
        parse_next(P);
    }
    return parse_expect(P, ';');
}

/* The module's grid workspace, where cooperative groups' grid.sync() counts the blocks that
 * arrived (8 bytes: its size and the barrier word), made when a function first reads %envreg1
 * or %envreg2. Without device memory for it they read 0, and grid.sync() traps. */
static void need_grid_workspace(struct parser *P)
{
    struct vm_module *m = P->dc.mod;
    if (m->grid_ws || !(m->grid_ws = mem_alloc(P->mem, 8, 0)))
        return;
    m->vars = emu_grow(m->vars, m->nvars, &P->capvars, sizeof *m->vars);
    m->vars[m->nvars++] = (struct var){emu_strdup("%grid_workspace"), m->grid_ws, 8};
    memset(mem_host(P->mem, m->grid_ws), 0, 8);
    mem_mark_written(P->mem, m->grid_ws, 8, MEM_MODULE);
}

/* The register for special register @p name (%tid.x ...), allocating it on first use. */
static const struct reg *special_reg(struct parser *P, const struct tok *t)
{
    static const char *const names[SR_COUNT] = {"%tid.x",
                                                "%tid.y",
                                                "%tid.z",
                                                "%ntid.x",
                                                "%ntid.y",
                                                "%ntid.z",
                                                "%ctaid.x",
                                                "%ctaid.y",
                                                "%ctaid.z",
                                                "%nctaid.x",
                                                "%nctaid.y",
                                                "%nctaid.z",
                                                "%laneid",
                                                "%warpid",
                                                "%nwarpid",
                                                "%smid",
                                                "%nsmid",
                                                "%gridid",
                                                "%lanemask_eq",
                                                "%lanemask_lt",
                                                "%lanemask_le",
                                                "%lanemask_gt",
                                                "%lanemask_ge",
                                                "%dynamic_smem_size",
                                                "%total_smem_size",
                                                "%reserved_smem_offset_begin",
                                                "%reserved_smem_offset_end",
                                                "%reserved_smem_offset_cap",
                                                "%reserved_smem_offset_0",
                                                "%reserved_smem_offset_1",
                                                "%envreg1",
                                                "%envreg2",
                                                "%cluster_ctarank",
                                                "%cluster_nctarank",
                                                "%cluster_ctaid.x",
                                                "%cluster_ctaid.y",
                                                "%cluster_ctaid.z",
                                                "%cluster_nctaid.x",
                                                "%cluster_nctaid.y",
                                                "%cluster_nctaid.z",
                                                "%clusterid.x",
                                                "%clusterid.y",
                                                "%clusterid.z",
                                                "%nclusterid.x",
                                                "%nclusterid.y",
                                                "%nclusterid.z",
                                                "%is_explicit_cluster"};
    for (int i = 0; i < SR_COUNT; i++) {
        if (!tok_is(t, names[i]))
            continue;
        struct entry *e = names_lookup(&P->names, t->s, t->len);
        if (!e) {
            e = names_declare(&P->names, t->s, t->len, 1);
            int pred = i == SR_IS_EXPLICIT_CLUSTER;
            e->is_reg = 1;
            e->reg.slot = pred ? SLOT_PRED : SLOT_32;
            e->reg.bits = pred ? 1 : 32;
            e->reg.kind = pred ? 'p' : 'u';
            e->reg.off = arena_take(P->dc.fn, e->reg.slot);
            P->dc.fn->special[i] = e->reg.off;
        }
        if (i == SR_ENVREG1 || i == SR_ENVREG2)
            need_grid_workspace(P);
        return &e->reg;
    }
    return NULL;
}

/* The arena offset of a constant register holding @p value in every lane (one per value). */
static uint32_t constant_reg(struct dctx *c, uint64_t value, int slot)
{
    struct parser *P = c->parser;
    for (uint32_t i = 0; i < P->nconsts; i++)
        if (P->consts[i].value == value && P->consts[i].slot == slot)
            return P->consts[i].off;
    P->consts = emu_grow(P->consts, P->nconsts, &P->capconsts, sizeof *P->consts);
    struct preset_key *k = &P->consts[P->nconsts++];
    k->value = value;
    k->slot = slot;
    k->off = arena_take(c->fn, slot);
    return k->off;
}

/* ---- operands ------------------------------------------------------------------------- */

static int parse_reg_name(struct parser *P, const struct reg **out)
{
    if (tok_is(&P->t, "_")) {
        *out = NULL;
        parse_next(P);
        return 0;
    }
    const struct reg *sr = special_reg(P, &P->t);
    struct entry *e = sr ? NULL : names_lookup(&P->names, P->t.s, P->t.len);
    if (!sr && (!e || !e->is_reg))
        return parse_fail(P, "unknown register %.*s", (int)P->t.len, P->t.s);
    *out = sr ? sr : &e->reg;
    parse_next(P);
    return 0;
}

/* A float literal 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX, or an integer. */
static int parse_number(struct parser *P, struct operand *o, int neg)
{
    const char *s = P->t.s;
    if (P->t.len > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
        o->kind = OK_FIMM;
        o->fsize = (s[1] == 'f' || s[1] == 'F') ? 4 : 8;
        o->fbits = strtoull(s + 2, NULL, 16);
        if (neg)
            o->fbits ^= o->fsize == 4 ? 0x80000000ull : 0x8000000000000000ull;
        parse_next(P);
        return 0;
    }
    int64_t v;
    if (parse_int(s, P->t.len, &v)) {
        /* A decimal float such as 1.5: keep it as a double; the decoder narrows it. */
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)P->t.len, s);
        double d = strtod(buf, NULL);
        if (neg)
            d = -d;
        o->kind = OK_FIMM;
        o->fsize = 8;
        memcpy(&o->fbits, &d, 8);
        parse_next(P);
        return 0;
    }
    o->kind = OK_IMM;
    o->imm = neg ? -v : v;
    parse_next(P);
    return 0;
}

/* An integer in a vector of sources ({%r1, 0, %r2}: a tensor copy's coordinates) as a 32-bit
 * constant register, kept for the instruction being parsed. */
static int parse_vec_int(struct parser *P, const struct reg **out)
{
    int64_t v;
    if (P->nvec_imm == sizeof P->vec_imm / sizeof *P->vec_imm || parse_int(P->t.s, P->t.len, &v))
        return parse_fail(P, "a vector element that is not a register or an integer");
    struct reg *r = &P->vec_imm[P->nvec_imm++];
    *r = (struct reg){constant_reg(&P->dc, (uint32_t)v, SLOT_32), SLOT_32, 32, 'b'};
    *out = r;
    parse_next(P);
    return 0;
}

/* {r0, r1, ...} into o->vec (the sink _ as NULL; an integer as a constant register). */
static int parse_vec(struct parser *P, struct operand *o)
{
    parse_next(P); /* { */
    while (!tok_punct(&P->t, '}')) {
        if (o->nvec == VEC_MAX)
            return parse_fail(P, "vector operand longer than %d", VEC_MAX);
        if (P->t.kind == T_NUM ? parse_vec_int(P, &o->vec[o->nvec++])
                               : parse_reg_name(P, &o->vec[o->nvec++]))
            return -1;
        if (tok_punct(&P->t, ','))
            parse_next(P);
    }
    parse_next(P);
    return 0;
}

/* [reg], [reg+imm], [sym], [sym+imm], [imm], and [handle, {coordinates}] */
static int parse_address(struct parser *P, struct operand *o)
{
    parse_next(P); /* [ */
    o->kind = OK_ADDR;
    if (P->t.kind == T_WORD) {
        struct entry *e = names_lookup(&P->names, P->t.s, P->t.len);
        const struct reg *sr = special_reg(P, &P->t);
        if (sr) {
            o->reg = sr;
            parse_next(P);
        } else if (e && e->is_reg) {
            o->reg = &e->reg;
            parse_next(P);
        } else if (e) {
            o->sym = &e->sym;
            parse_next(P);
        } else {
            return parse_fail(P, "unknown name %.*s in an address", (int)P->t.len, P->t.s);
        }
    }
    while (tok_punct(&P->t, '+') || tok_punct(&P->t, '-') || P->t.kind == T_NUM) {
        int neg = 0;
        while (tok_punct(&P->t, '+') || tok_punct(&P->t, '-')) {
            neg ^= tok_punct(&P->t, '-');
            parse_next(P);
        }
        int64_t v;
        if (P->t.kind != T_NUM || parse_int(P->t.s, P->t.len, &v))
            return parse_fail(P, "bad address displacement");
        o->imm += neg ? -v : v;
        parse_next(P);
    }
    /* [handle, {c0, c1, ...}]: a texture or surface instruction's coordinates */
    if (tok_punct(&P->t, ',')) {
        parse_next(P);
        if (!tok_punct(&P->t, '{'))
            return parse_fail(P, "expected '{' after the handle in an address");
        if (parse_vec(P, o))
            return -1;
    }
    return parse_expect(P, ']');
}

/* A register with a video instruction's byte or half-word selector (%r1.b3210, %r2.h10): 1 with
 * it in @p o, or 0 (nothing consumed) when the word is something else. */
static int parse_selector(struct parser *P, struct operand *o)
{
    const char *dot = memrchr(P->t.s, '.', P->t.len);
    size_t rest = dot ? P->t.len - (size_t)(dot - P->t.s) - 1 : 0;
    if (!dot || rest < 2 || rest >= sizeof o->sel || (dot[1] != 'b' && dot[1] != 'h') ||
        strspn(dot + 2, "01234567") < rest - 1)
        return 0;
    struct entry *e = names_lookup(&P->names, P->t.s, (size_t)(dot - P->t.s));
    if (!e || !e->is_reg)
        return 0;
    o->kind = OK_REG;
    o->reg = &e->reg;
    memcpy(o->sel, dot + 1, rest);
    o->sel[rest] = '\0';
    parse_next(P);
    return 1;
}

/* A vector register named whole: the vector operand of its elements. */
static int parse_vector_reg(struct parser *P, struct operand *o, int lanes)
{
    char buf[160];
    o->kind = OK_VEC;
    for (int i = 0; i < lanes; i++) {
        int n = snprintf(buf, sizeof buf, "%.*s.%c", (int)P->t.len, P->t.s, "xyzw"[i]);
        o->vec[o->nvec++] = &names_lookup(&P->names, buf, (size_t)n)->reg;
    }
    parse_next(P);
    return 0;
}

static int parse_operand(struct parser *P, struct operand *o)
{
    memset(o, 0, sizeof *o);
    if (tok_punct(&P->t, '!')) {
        o->negated = 1;
        parse_next(P);
    }
    if (tok_punct(&P->t, '[')) {
        return parse_address(P, o);
    } else if (tok_punct(&P->t, '{')) {
        o->kind = OK_VEC;
        return parse_vec(P, o);
    } else if (tok_punct(&P->t, '-') || P->t.kind == T_NUM) {
        int neg = tok_punct(&P->t, '-');
        if (neg)
            parse_next(P);
        if (neg && P->t.kind == T_WORD) { /* -%r: a negated register (vmad) */
            int rc = parse_operand(P, o);
            o->minus = 1;
            return rc;
        }
        return parse_number(P, o, neg);
    } else if (tok_is(&P->t, "_")) {
        o->kind = OK_SINK;
        parse_next(P);
        if (tok_punct(&P->t, '|')) { /* _|p: elect.sync's leader predicate alone */
            parse_next(P);
            return parse_reg_name(P, &o->reg2);
        }
        return 0;
    } else if (tok_is(&P->t, "WARP_SZ")) { /* the warp size, a constant of the PTX ISA */
        o->kind = OK_IMM;
        o->imm = 32;
        parse_next(P);
        return 0;
    } else if (P->t.kind == T_WORD) {
        struct entry *e = names_lookup(&P->names, P->t.s, P->t.len);
        if (e && e->lanes)
            return parse_vector_reg(P, o, e->lanes);
        if (!e && parse_selector(P, o))
            return 0;
        if ((e && e->is_reg) || special_reg(P, &P->t)) {
            o->kind = OK_REG;
            if (parse_reg_name(P, &o->reg))
                return -1;
            if (tok_punct(&P->t, '|')) {
                parse_next(P);
                if (parse_reg_name(P, &o->reg2))
                    return -1;
            }
            return 0;
        }
        /* %clock, %clock64 and %globaltimer are decode_ops.c's; %envreg<n>, %pm<n>, ... none's */
        if (!e && P->t.s[0] == '%' && strncmp(P->t.s, "%clock", 6) &&
            strncmp(P->t.s, "%globaltimer", 12))
            return parse_fail(P, "%.*s is a special register the emulator does not have",
                              (int)P->t.len, P->t.s);
        o->kind = OK_SYM;
        o->sym = e ? &e->sym : NULL;
        o->name = emu_strndup(P->t.s, P->t.len);
        parse_next(P);
        return 0;
    }
    return parse_fail(P, "unexpected '%.*s' in an operand", (int)P->t.len, P->t.s);
}

/* ---- statements ------------------------------------------------------------------------ */

/* An integer token, or -1 (without an error: .loc is best effort). */
static int64_t loc_int(struct parser *P)
{
    int64_t v;
    if (P->t.kind != T_NUM || parse_int(P->t.s, P->t.len, &v))
        return -1;
    parse_next(P);
    return v;
}

/* How many of the last .loc positions a call site is looked for in (parse_loc()). */
enum { LOC_LOOKBACK = 256 };

/* .loc file line col[, function_name ..., inlined_at file line col]: both positions are kept,
 * and the call site's own .loc, so that messages can follow the calls out (vm_where()). */
static void parse_loc(struct parser *P)
{
    struct vm_module *m = P->dc.mod;
    int at = P->t.line;
    parse_next(P);
    int64_t file = loc_int(P), line = loc_int(P);
    struct srcloc loc = {.file = (uint16_t)(P->file_base + (file < 0 ? 0 : file)),
                         .line = (uint32_t)(line < 0 ? 0 : line)};
    while (P->t.kind != T_END && P->t.line == at) {
        if (tok_is(&P->t, "inlined_at")) {
            parse_next(P);
            int64_t f2 = loc_int(P), l2 = loc_int(P);
            if (f2 >= 0 && l2 > 0)
                loc.ifile = (uint16_t)(P->file_base + f2), loc.iline = (uint32_t)l2;
            continue;
        }
        parse_next(P);
    }
    if (loc.line == 0)
        return; /* "line 0": no position; keep the previous one */
    /* A function inlined into one that was itself inlined (a library's layers, tex2D's helpers):
     * the call site's own location is a recent .loc (nvcc writes each level's before the next). */
    for (uint32_t i = m->nlines; loc.iline && i > 0 && i + LOC_LOOKBACK > m->nlines; i--)
        if (m->lines[i - 1].file == loc.ifile && m->lines[i - 1].line == loc.iline) {
            loc.up = i;
            break;
        }
    m->lines = emu_grow(m->lines, m->nlines, &P->caplines, sizeof *m->lines);
    m->lines[m->nlines] = loc;
    P->dc.loc = m->nlines++;
}

/*
 * An instruction starting at @p start that the parser could not read (P->dc.err says why):
 * it becomes one OP_UNSUPPORTED naming its text and PTX line, so only a launch that reaches
 * it fails, never the module's other kernels. Skips through its ';'.
 */
static int unreadable(struct parser *P, const char *start)
{
    char why[300];
    const char *at = strstr(P->dc.err, "PTX line");
    snprintf(why, sizeof why, "%s", at ? at : P->dc.err);
    P->dc.err[0] = 0;
    parse_skip_statement(P);
    P->dc.text = start;
    P->dc.text_len = strcspn(start, ";");
    P->dc.guard = NO_REG;
    P->dc.start = P->dc.mod->ncode;
    dec_unsupported(&P->dc, why);
    return 0;
}

/* mov.v2 or mov.v4 between two vectors ({a, b} and a vector register): one mov an element. */
static int vector_mov(const char *mn, const struct operand *ops, int nops)
{
    if ((strncmp(mn, "mov.v2.", 7) && strncmp(mn, "mov.v4.", 7)) || nops != 2 ||
        ops[0].kind != OK_VEC || ops[1].kind != OK_VEC || ops[0].nvec != ops[1].nvec)
        return 0;
    for (int i = 0; i < ops[0].nvec; i++)
        if (!ops[0].vec[i] || !ops[1].vec[i])
            return 0; /* a sink: decode_insn() refuses it */
    return 1;
}

static int decode_vector_mov(struct parser *P, const char *mn, const struct reg *guard,
                             int neg_guard, const struct operand *ops)
{
    char one[64];
    snprintf(one, sizeof one, "mov.%.50s", mn + 7);
    for (int i = 0; i < ops[0].nvec; i++) {
        struct operand pair[2] = {{.kind = OK_REG, .reg = ops[0].vec[i]},
                                  {.kind = OK_REG, .reg = ops[1].vec[i]}};
        if (decode_insn(&P->dc, one, guard, neg_guard, pair, 2))
            return -1;
    }
    return 0;
}

static int parse_instruction(struct parser *P)
{
    const char *start = P->t.s;
    const struct reg *guard = NULL;
    int neg_guard = 0;
    if (tok_punct(&P->t, '@')) {
        parse_next(P);
        if (tok_punct(&P->t, '!')) {
            neg_guard = 1;
            parse_next(P);
        }
        if (parse_reg_name(P, &guard))
            return unreadable(P, start);
    }
    if (P->t.kind != T_WORD) {
        parse_fail(P, "expected an instruction, found '%.*s'", (int)P->t.len, P->t.s);
        return unreadable(P, start);
    }
    char mn[256]; /* longer than decode.c reads: a longer one is refused there */
    size_t len = (size_t)snprintf(mn, sizeof mn, "%.*s", (int)P->t.len, P->t.s);
    parse_next(P);
    while (P->t.kind == T_WORD && P->t.s[0] == '.' && len < sizeof mn) { /* "lop3 .b32" */
        len += (size_t)snprintf(mn + len, sizeof mn - len, "%.*s", (int)P->t.len, P->t.s);
        parse_next(P);
    }
    struct operand ops[OPS_MAX];
    int nops = 0, failed = 0, group = 0, in_group = 0;
    P->nvec_imm = 0;
    while (!tok_punct(&P->t, ';') && P->t.kind != T_END) {
        if (nops == OPS_MAX) {
            parse_fail(P, "%s: more than %d operands", mn, OPS_MAX);
            failed = 1;
            break;
        }
        if (tok_punct(&P->t, '(') || tok_punct(&P->t, ')') || tok_punct(&P->t, ',')) {
            /* call's parenthesised lists flatten into the operand list, numbered */
            if (tok_punct(&P->t, '('))
                in_group = ++group;
            else if (tok_punct(&P->t, ')'))
                in_group = 0;
            parse_next(P);
            continue;
        }
        if (parse_operand(P, &ops[nops])) {
            failed = 1;
            break;
        }
        ops[nops++].paren = in_group;
    }
    P->dc.text = start;
    P->dc.text_len = (size_t)(P->t.s - start);
    int rc = failed                      ? -1
             : vector_mov(mn, ops, nops) ? decode_vector_mov(P, mn, guard, neg_guard, ops)
                                         : decode_insn(&P->dc, mn, guard, neg_guard, ops, nops);
    for (int i = 0; i < nops; i++)
        free((void *)ops[i].name);
    if (failed)
        return unreadable(P, start);
    if (rc)
        return -1;
    return parse_expect(P, ';');
}

static int parse_body_statement(struct parser *P);

/* { statements } as a scope of its own. */
static int parse_block(struct parser *P)
{
    uint32_t first_fix = P->nfix;
    parse_next(P); /* { */
    P->depth++;
    while (!tok_punct(&P->t, '}')) {
        if (P->t.kind == T_END)
            return parse_fail(P, "a block is never closed");
        if (parse_body_statement(P))
            return -1;
    }
    parse_next(P);
    link_resolve_block_labels(P, first_fix);
    names_pop_scope(&P->names, P->depth, 0);
    P->depth--;
    return 0;
}

static int parse_body_statement(struct parser *P)
{
    struct tok *t = &P->t;
    if (tok_punct(t, '{'))
        return parse_block(P);
    if (tok_is_reg(t))
        return parse_reg_decl(P);
    if (tok_is(t, ".loc")) {
        parse_loc(P);
        return 0;
    }
    if (tok_is(t, ".pragma") || tok_is(t, ".callprototype")) {
        parse_skip_statement(P);
        return 0;
    }
    if (tok_is(t, ".shared") || tok_is(t, ".local") || tok_is(t, ".param"))
        return vars_body(P);
    if (t->kind == T_WORD && t->s[0] != '.') {
        /* A label is a word followed by ':'. */
        struct lexer save = P->L;
        struct tok word = *t;
        parse_next(P);
        if (tok_punct(&P->t, ':')) {
            struct entry *e = names_declare(&P->names, word.s, word.len, P->depth);
            e->sym.is_label = 1;
            e->sym.addr = P->dc.mod->ncode;
            parse_next(P);
            return 0;
        }
        P->L = save;
        P->t = word;
    }
    return parse_instruction(P);
}

/* ---- functions -------------------------------------------------------------------------- */

/* (.param ... , .param ...): declare each as a parameter of the function. */
/*
 * (.param ... , .param ...): a kernel's parameters sit in its argument buffer; a device
 * function's, and its return value, in the module-wide call frame every lane has (where its
 * callers copy their arguments).
 */
static int parse_params(struct parser *P, struct func *fn, int is_return)
{
    parse_next(P); /* ( */
    uint32_t offset = fn->is_entry ? fn->info.param_bytes : P->call_bytes;
    while (!tok_punct(&P->t, ')')) {
        struct decl d;
        if (decl_parse(P, &d))
            return -1;
        uint32_t size = (uint32_t)decl_bytes(&d);
        offset = align_up(offset, (uint32_t)d.align);
        struct entry *e = names_declare(&P->names, d.name.s, d.name.len, 1);
        e->sym.space = SP_PARAM;
        e->sym.addr = offset;
        e->sym.size = size;
        e->sym.is_callparam = !fn->is_entry;
        if (is_return) {
            fn->ret_off = offset;
            fn->ret_size = size;
        } else {
            struct vm_param *p = (struct vm_param *)fn->info.params;
            p = emu_realloc(p, (fn->info.nparams + 1) * sizeof *p);
            p[fn->info.nparams++] = (struct vm_param){offset, size};
            fn->info.params = p;
        }
        offset += size;
        if (tok_punct(&P->t, ','))
            parse_next(P);
    }
    parse_next(P);
    if (fn->is_entry)
        fn->info.param_bytes = offset;
    else
        P->call_bytes = offset;
    return 0;
}

/* .maxntid x, y, z and friends, before the body. */
static int parse_perf_directives(struct parser *P, struct func *fn)
{
    while (P->t.kind == T_WORD && P->t.s[0] == '.') {
        int maxntid = tok_is(&P->t, ".maxntid"), reqntid = tok_is(&P->t, ".reqntid");
        int cluster = tok_is(&P->t, ".reqnctapercluster");
        int maxrank = tok_is(&P->t, ".maxclusterrank");
        fn->info.explicit_cluster |= tok_is(&P->t, ".explicitcluster");
        if (tok_is(&P->t, ".pragma")) {
            parse_skip_statement(P);
            continue;
        }
        int line = P->t.line;
        parse_next(P);
        int64_t v[3] = {1, 1, 1};
        for (int i = 0; i < 3 && P->t.kind == T_NUM && P->t.line == line; i++) {
            if (parse_take_int(P, &v[i]))
                return -1;
            if (tok_punct(&P->t, ','))
                parse_next(P);
        }
        if (maxntid)
            fn->info.maxntid = (uint32_t)(v[0] * v[1] * v[2]);
        for (int i = 0; i < 3 && (reqntid || cluster); i++)
            *(cluster ? &fn->info.cluster[i] : &fn->info.reqntid[i]) = (uint32_t)v[i];
        if (maxrank)
            fn->info.max_cluster_rank = (uint32_t)v[0];
        skip_line_of(P, line); /* anything else on the line: .minnctapersm's value, ... */
    }
    return 0;
}

/* Finish a decoded function: its presets, sizes and shared-memory layout. */
static void finish_function(struct parser *P, struct func *fn)
{
    fn->count = P->dc.mod->ncode - fn->first;
    fn->presets = emu_calloc(P->nconsts ? P->nconsts : 1, sizeof *fn->presets);
    for (uint32_t i = 0; i < P->nconsts; i++)
        fn->presets[i] =
            (struct preset){P->consts[i].off, (uint32_t)P->consts[i].slot, P->consts[i].value};
    fn->npresets = P->nconsts;
    fn->smem_static = P->static_smem;
    fn->smem_align = P->smem_align ? P->smem_align : 16;
    fn->info.static_smem = P->static_smem;
    fn->info.local_bytes = P->local_bytes - P->local_before;
    fn->local_lo = P->local_before, fn->local_hi = P->local_bytes;
    fn->call_hi = P->call_bytes;
    fn->arena_bytes = align_up(fn->arena_bytes, 64);
}

/* A function's name @p t as a value (mov.u64 %rd, kernel: a device-side launch, a function
 * pointer): its address, for every unit. */
static void function_name(struct parser *P, const struct tok *t)
{
    if (names_lookup(&P->names, t->s, t->len))
        return;
    struct entry *e = names_declare(&P->names, t->s, t->len, 0);
    e->sym = (struct sym){
        .space = SP_GENERIC, .addr = link_function_address(t->s, t->len), .is_func = 1};
    e->linked = 1;
}

static int parse_function(struct parser *P, int is_entry)
{
    struct vm_module *m = P->dc.mod;
    parse_next(P); /* .entry / .func */
    m->funcs = emu_grow(m->funcs, m->nfuncs, &P->capfuncs, sizeof *m->funcs);
    struct func *fn = &m->funcs[m->nfuncs];
    memset(fn, 0, sizeof *fn);
    fn->is_entry = is_entry;
    for (int i = 0; i < SR_COUNT; i++)
        fn->special[i] = NO_REG;
    P->dc.fn = fn;
    int linkage = P->linkage;
    P->linkage = 0;
    P->depth = 1;
    P->nconsts = 0;
    P->local_before = P->local_bytes;
    fn->call_lo = P->call_bytes;
    P->dyn_used = 0;
    if (!is_entry && tok_punct(&P->t, '(') && parse_params(P, fn, 1))
        return -1;
    if (P->t.kind != T_WORD)
        return parse_fail(P, "expected a function name");
    char *name = emu_strndup(P->t.s, P->t.len);
    function_name(P, &P->t);
    parse_next(P);
    if (tok_punct(&P->t, '(') && parse_params(P, fn, 0)) {
        free(name);
        return -1;
    }
    if (parse_perf_directives(P, fn)) {
        free(name);
        return -1;
    }
    if (tok_punct(&P->t, ';')) { /* a prototype: .extern .func vprintf(...); */
        parse_next(P);
        free(name);
        free((void *)fn->info.params);
        names_pop_scope(&P->names, 1, 0);
        return 0;
    }
    fn->info.name = name;
    P->static_smem = smem_plan_base(P, name);
    fn->address = link_function_address(name, strlen(name));
    fn->first = m->ncode;
    P->fdefs = emu_realloc(P->fdefs, (m->nfuncs + 1) * sizeof *P->fdefs);
    P->fdefs[m->nfuncs] = (struct fdef){name, P->unit, linkage};
    m->nfuncs++;
    P->depth = 0; /* the body's block opens scope 1 */
    if (!tok_punct(&P->t, '{'))
        return parse_fail(P, "expected the body of %s", name);
    parse_next(P);
    P->depth = 1;
    while (!tok_punct(&P->t, '}')) {
        if (P->t.kind == T_END)
            return parse_fail(P, "the body of %s is never closed", name);
        if (parse_body_statement(P))
            return -1;
    }
    parse_next(P);
    if (link_resolve_labels(P))
        return -1;
    finish_function(P, fn);
    names_pop_scope(&P->names, 1, 0);
    P->depth = 0;
    return 0;
}

/* ---- the module ------------------------------------------------------------------------- */

/* .file N "name"[, stamp, size] */
static int parse_file(struct parser *P)
{
    struct vm_module *m = P->dc.mod;
    parse_next(P);
    int64_t n;
    if (parse_take_int(P, &n) || P->t.kind != T_STR || n < 0 || n + P->file_base > 65535)
        return parse_fail(P, "bad .file directive");
    n += P->file_base;
    if ((uint64_t)n >= m->nfiles) {
        char **files = emu_realloc(m->files, (size_t)(n + 1) * sizeof *files);
        for (uint32_t i = m->nfiles; i <= (uint32_t)n; i++)
            files[i] = NULL;
        m->files = files;
        m->nfiles = (uint32_t)n + 1;
    }
    free(m->files[n]);
    m->files[n] = emu_strndup(P->t.s, P->t.len);
    skip_line(P);
    return 0;
}

/* .section name { ... }: debug sections carry nothing the VM runs. */
static void skip_section(struct parser *P)
{
    while (P->t.kind != T_END && !tok_punct(&P->t, '{'))
        parse_next(P);
    int depth = 0;
    do {
        depth += tok_punct(&P->t, '{') - tok_punct(&P->t, '}');
        parse_next(P);
    } while (P->t.kind != T_END && depth > 0);
}

static int parse_module_statement(struct parser *P)
{
    struct tok *t = &P->t;
    if (tok_is(t, ".version")) {
        link_begin_unit(P);
        skip_line(P);
    } else if (tok_is(t, ".target") || tok_is(t, ".address_size")) {
        skip_line(P);
    } else if (tok_is(t, ".file")) {
        return parse_file(P);
    } else if (tok_is(t, ".section")) {
        skip_section(P);
    } else if (tok_is(t, ".visible") || tok_is(t, ".weak") || tok_is(t, ".extern") ||
               tok_is(t, ".common")) {
        /* Linkage words: look at what follows. A .extern .shared array is a variable. */
        struct lexer save = P->L;
        struct tok word = *t;
        parse_next(P);
        if (tok_is(&P->t, ".global") || tok_is(&P->t, ".const") || tok_is(&P->t, ".shared")) {
            P->L = save;
            P->t = word;
            return vars_module(P);
        }
        P->linkage = !tok_is(&word, ".extern");
    } else if (tok_is(t, ".entry")) {
        return parse_function(P, 1);
    } else if (tok_is(t, ".func")) {
        return parse_function(P, 0);
    } else if (tok_is(t, ".global") || tok_is(t, ".const") || tok_is(t, ".shared")) {
        return vars_module(P);
    } else if (tok_is(t, ".pragma")) {
        parse_skip_statement(P);
    } else {
        return parse_fail(P, "unexpected '%.*s' at module scope", (int)t->len, t->s);
    }
    return 0;
}

static void free_parser(struct parser *P)
{
    names_pop_scope(&P->names, 0, 0);
    free(P->names.all);
    free(P->fix);
    free(P->consts);
    free(P->calls);
    free(P->fdefs);
    smem_plan_free(P->plan);
}

int vm_load(const char *ptx, size_t len, const char *origin, struct emu_mem *mem,
            struct vm_module **out, char *err, size_t err_size)
{
    struct parser *P = emu_calloc(1, sizeof *P);
    struct vm_module *m = emu_calloc(1, sizeof *m);
    m->origin = emu_strdup(origin ? origin : "PTX");
    err[0] = '\0';
    P->L = (struct lexer){ptx, ptx + len, 1};
    P->mem = mem;
    P->dc = (struct dctx){.mod = m, .err = err, .err_size = err_size};
    P->dc.constant = constant_reg;
    P->dc.label_ref = link_label_ref;
    P->dc.callee = link_callee_ref;
    P->dc.dyn_smem_base = vars_dyn_smem_base;
    P->dc.parser = P;
    smem_plan_make(P, ptx, len);
    parse_next(P);
    int rc = 0;
    while (P->t.kind != T_END && rc == 0)
        rc = parse_module_statement(P);
    if (rc == 0)
        link_order_functions(P);
    free_parser(P);
    free(P);
    if (rc) {
        vm_unload(m, mem);
        return -1;
    }
    *out = m;
    return 0;
}
