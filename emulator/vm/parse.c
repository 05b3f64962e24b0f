/**
 * @file parse.c
 * @brief PTX text to a decoded module, in one pass: lexing, declarations,
 *        functions, labels and source lines. Instructions go to decode.c.
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

#include "decode_impl.h"

static uint32_t align_up(uint32_t x, uint32_t a)
{
    return a ? (x + a - 1) / a * a : x;
}

/* ---- lexing ------------------------------------------------------------------------ */

enum tk { T_END, T_WORD, T_NUM, T_STR, T_PUNCT };

struct lexer {
    const char *p, *end;
    int line; /* PTX text line, for parse errors */
};

struct tok {
    enum tk kind;
    const char *s;
    size_t len;
    int line;
    int bol; /* first token on its line */
};

static int word_char(int ch)
{
    return isalnum(ch) || ch == '_' || ch == '$' || ch == '.' || ch == '%';
}

/* The next token; comments and white space are skipped. */
static struct tok lex(struct lexer *L)
{
    int bol = 0;
    for (;;) {
        while (L->p < L->end && isspace((unsigned char)*L->p)) {
            if (*L->p == '\n') {
                L->line++;
                bol = 1;
            }
            L->p++;
        }
        if (L->end - L->p >= 2 && L->p[0] == '/' && L->p[1] == '/') {
            while (L->p < L->end && *L->p != '\n')
                L->p++;
            continue;
        }
        if (L->end - L->p >= 2 && L->p[0] == '/' && L->p[1] == '*') {
            const char *q = L->p + 2;
            while (q + 1 < L->end && !(q[0] == '*' && q[1] == '/')) {
                L->line += *q == '\n';
                q++;
            }
            L->p = q + 2 <= L->end ? q + 2 : L->end;
            continue;
        }
        break;
    }
    struct tok t = {T_END, L->p, 0, L->line, bol};
    if (L->p >= L->end)
        return t;
    const char *s = L->p;
    if (*s == '"') {
        const char *q = s + 1;
        while (q < L->end && *q != '"')
            q++;
        t.kind = T_STR;
        t.s = s + 1;
        t.len = (size_t)(q - s - 1);
        L->p = q < L->end ? q + 1 : q;
    } else if (isdigit((unsigned char)*s)) {
        const char *q = s;
        while (q < L->end && (isalnum((unsigned char)*q) || *q == '.'))
            q++;
        t.kind = T_NUM;
        t.len = (size_t)(q - s);
        L->p = q;
    } else if (word_char((unsigned char)*s) || *s == '%') {
        /* A "::" between word characters belongs to the word: the PTX ISA's qualifiers
         * (.shared::cta, .mbarrier::complete_tx::bytes). */
        const char *q = s;
        while (q < L->end &&
               (word_char((unsigned char)*q) ||
                (L->end - q >= 3 && q[0] == ':' && q[1] == ':' && word_char((unsigned char)q[2]))))
            q += *q == ':' ? 2 : 1;
        t.kind = T_WORD;
        t.len = (size_t)(q - s);
        L->p = q;
    } else {
        t.kind = T_PUNCT;
        t.len = 1;
        L->p++;
    }
    return t;
}

static int is(const struct tok *t, const char *s)
{
    return t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

static int is_punct(const struct tok *t, char ch)
{
    return t->kind == T_PUNCT && t->s[0] == ch;
}

/* ---- names: a hash table of scopes ------------------------------------------------- */

struct entry {
    char *name;
    int depth; /* scope depth it was declared at */
    int is_reg;
    int linked; /* module scope: 1 .visible / .weak / .common (seen by every unit), 2 .extern
                 * and not yet defined (placed; a later .visible definition takes it) */
    struct reg reg;
    struct sym sym;
    struct entry *next;   /* the same bucket */
    struct entry *shadow; /* declared-earlier entry of the same name, restored at scope end */
};

#define NBUCKETS 4096

struct names {
    struct entry *bucket[NBUCKETS];
    struct entry **all; /* every entry, to pop scopes and free */
    uint32_t nall, cap;
};

static uint32_t hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h % NBUCKETS;
}

static struct entry *lookup(struct names *N, const char *s, size_t n)
{
    for (struct entry *e = N->bucket[hash(s, n)]; e; e = e->next)
        if (strlen(e->name) == n && !memcmp(e->name, s, n))
            return e;
    return NULL;
}

static struct entry *declare(struct names *N, const char *s, size_t n, int depth)
{
    struct entry *e = calloc(1, sizeof *e);
    if (!e)
        abort();
    e->name = strndup(s, n);
    e->depth = depth;
    uint32_t h = hash(s, n);
    /* A redeclaration in an inner scope hides the outer one until the scope ends. */
    struct entry **pp = &N->bucket[h];
    for (; *pp; pp = &(*pp)->next)
        if (!strcmp((*pp)->name, e->name)) {
            e->shadow = *pp;
            e->next = (*pp)->next;
            *pp = e;
            goto added;
        }
    e->next = N->bucket[h];
    N->bucket[h] = e;
added:
    N->all = vm_grow(N->all, N->nall, &N->cap, sizeof *N->all);
    N->all[N->nall++] = e;
    return e;
}

/* Forget every name declared at @p depth or deeper (the end of a scope). Labels and
 * special registers are declared at function depth from inside nested blocks, so the
 * entries to drop are not only the newest ones. */
static void pop_scope(struct names *N, int depth, int keep_linked)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < N->nall; i++) {
        struct entry *e = N->all[i];
        if (e->depth < depth || (keep_linked && e->linked)) {
            N->all[kept++] = e;
            continue;
        }
        uint32_t h = hash(e->name, strlen(e->name));
        for (struct entry **pp = &N->bucket[h]; *pp; pp = &(*pp)->next)
            if (*pp == e) {
                if (e->shadow) {
                    e->shadow->next = e->next;
                    *pp = e->shadow;
                } else {
                    *pp = e->next;
                }
                break;
            }
        free(e->name);
        free(e);
    }
    N->nall = kept;
}

/* ---- the parser's state -------------------------------------------------------------- */

struct fixup {
    uint32_t insn; /* instruction whose imm is a label's pc */
    char *label;
    uint32_t line;
};

struct callfix {
    uint32_t insn; /* an OP_CALL whose imm becomes the callee's index */
    char *name;
    uint32_t unit; /* the caller's unit */
};

/* A function defined in the module, as calls find it. */
struct fdef {
    char *name;
    uint32_t unit;
    int linked; /* .visible or .weak: callable from every unit */
};

struct preset_key {
    uint64_t value;
    int slot;
    uint32_t off;
};

struct parser {
    struct lexer L;
    struct tok t; /* the current token */
    struct dctx dc;
    struct names names;
    int depth; /* scope depth: 0 module, 1 function, 2+ blocks */
    struct emu_mem *mem;
    /* per function */
    struct fixup *fix;
    uint32_t nfix, capfix;
    struct preset_key *consts;
    uint32_t nconsts, capconsts;
    uint32_t capfuncs, caplines, capvars;
    uint32_t local_bytes, call_bytes; /* module-wide cursors: every function's local and call
                                       * frames have their own offsets */
    uint32_t local_before;            /* local_bytes when this function began */
    uint32_t static_smem, smem_align;
    int dyn_used; /* the dynamic shared memory's place is fixed */
    /* per module */
    struct callfix *calls;
    uint32_t ncalls, capcalls;
    struct fdef *fdefs;   /* functions in parse order */
    uint32_t module_smem; /* module-scope .shared bytes (shared by every kernel) */
    uint32_t unit;        /* texts begun (each .version begins one) */
    uint32_t file_base;   /* where this unit's .file numbers start in the module's table */
    int linkage;          /* the linkage word before this .entry / .func: 1 .visible, .weak */
};

void *vm_grow(void *arr, uint32_t count, uint32_t *cap, size_t size)
{
    if (count < *cap)
        return arr;
    *cap = *cap ? 2 * *cap : 16;
    void *bigger = realloc(arr, (size_t)*cap * size);
    if (!bigger) {
        fprintf(stderr, "emulator: out of host memory while loading PTX\n");
        abort();
    }
    return bigger;
}

static int fail(struct parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *P, const char *fmt, ...)
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

static void next(struct parser *P)
{
    P->t = lex(&P->L);
}

static int expect(struct parser *P, char ch)
{
    if (!is_punct(&P->t, ch))
        return fail(P, "expected '%c', found '%.*s'", ch, (int)P->t.len, P->t.s);
    next(P);
    return 0;
}

/* Skip the rest of PTX line @p line (directives end there, without a ';'). */
static void skip_line_of(struct parser *P, int line)
{
    while (P->t.kind != T_END && P->t.line == line)
        next(P);
}

static void skip_line(struct parser *P)
{
    skip_line_of(P, P->t.line);
}

/* Skip tokens through the next ';'. */
static void skip_statement(struct parser *P)
{
    while (P->t.kind != T_END && !is_punct(&P->t, ';'))
        next(P);
    if (is_punct(&P->t, ';'))
        next(P);
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
static int take_int(struct parser *P, int64_t *out)
{
    int neg = 0;
    if (is_punct(&P->t, '-')) {
        neg = 1;
        next(P);
    }
    if (P->t.kind != T_NUM || parse_int(P->t.s, P->t.len, out))
        return fail(P, "expected an integer, found '%.*s'", (int)P->t.len, P->t.s);
    if (neg)
        *out = -*out;
    next(P);
    return 0;
}

/* ---- types --------------------------------------------------------------------------- */

/* Width in bits and kind of a type word such as ".f32", ".b64", ".pred"; 0 if not one. */
static int type_of(const struct tok *t, char *kind)
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
        if (is(t, types[i].name)) {
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

/* .reg .type %name<N>, %other;  */
static int parse_reg_decl(struct parser *P)
{
    next(P); /* .reg */
    char kind = 0;
    int bits = 0;
    while (P->t.kind == T_WORD && P->t.s[0] == '.') {
        int b = type_of(&P->t, &kind);
        if (is(&P->t, ".v2") || is(&P->t, ".v4"))
            return fail(P, "vector registers are not supported");
        if (b)
            bits = b;
        next(P);
    }
    if (!bits || bits == 128)
        return fail(P, "a .reg declaration needs a supported type");
    for (;;) {
        if (P->t.kind != T_WORD)
            return fail(P, "expected a register name");
        struct tok name = P->t;
        next(P);
        int64_t count = -1;
        if (is_punct(&P->t, '<')) {
            next(P);
            if (take_int(P, &count) || expect(P, '>'))
                return -1;
        }
        for (int64_t i = 0; i < (count < 0 ? 1 : count); i++) {
            char buf[128];
            int n = count < 0 ? snprintf(buf, sizeof buf, "%.*s", (int)name.len, name.s)
                              : snprintf(buf, sizeof buf, "%.*s%lld", (int)name.len, name.s,
                                         (long long)i);
            struct entry *e = declare(&P->names, buf, (size_t)n, P->depth);
            e->is_reg = 1;
            e->reg.slot = (uint16_t)slot_of_bits(bits);
            e->reg.bits = (uint8_t)bits;
            e->reg.kind = kind;
            e->reg.off = arena_take(P->dc.fn, e->reg.slot);
            struct func *fn = P->dc.fn;
            fn->regs = vm_grow(fn->regs, fn->nregs, &fn->capregs, sizeof *fn->regs);
            fn->regs[fn->nregs++] = (struct reg_slot){e->reg.off, e->reg.slot};
        }
        if (!is_punct(&P->t, ','))
            break;
        next(P);
    }
    return expect(P, ';');
}

/* The module's grid workspace, where cooperative groups' grid.sync() counts the blocks that
 * arrived (8 bytes: its size and the barrier word), made when a function first reads %envreg1
 * or %envreg2. Without device memory for it they read 0, and grid.sync() traps. */
static void need_grid_workspace(struct parser *P)
{
    struct vm_module *m = P->dc.mod;
    if (m->grid_ws || !(m->grid_ws = mem_alloc(P->mem, 8, 0)))
        return;
    m->vars = vm_grow(m->vars, m->nvars, &P->capvars, sizeof *m->vars);
    m->vars[m->nvars++] = (struct var){strdup("%grid_workspace"), m->grid_ws, 8};
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
        if (!is(t, names[i]))
            continue;
        struct entry *e = lookup(&P->names, t->s, t->len);
        if (!e) {
            e = declare(&P->names, t->s, t->len, 1);
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
    P->consts = vm_grow(P->consts, P->nconsts, &P->capconsts, sizeof *P->consts);
    struct preset_key *k = &P->consts[P->nconsts++];
    k->value = value;
    k->slot = slot;
    k->off = arena_take(c->fn, slot);
    return k->off;
}

/* ---- labels and shared memory ------------------------------------------------------------------
 */

/* Instruction @p insn branches to label @p name: its pc is filled in at the function's end. */
static void label_ref(struct dctx *c, uint32_t insn, const char *name)
{
    struct parser *P = c->parser;
    P->fix = vm_grow(P->fix, P->nfix, &P->capfix, sizeof *P->fix);
    P->fix[P->nfix++] = (struct fixup){insn, strdup(name), (uint32_t)P->t.line};
}

/* Instruction @p insn calls function @p name: its index is filled in at the module's end. */
static void callee_ref(struct dctx *c, uint32_t insn, const char *name)
{
    struct parser *P = c->parser;
    P->calls = vm_grow(P->calls, P->ncalls, &P->capcalls, sizeof *P->calls);
    P->calls[P->ncalls++] = (struct callfix){insn, strdup(name), P->unit};
}

/* Where the dynamic shared memory starts: after the static shared memory, aligned. */
static uint64_t dyn_smem_base(struct dctx *c)
{
    struct parser *P = c->parser;
    P->dyn_used = 1;
    return align_up(P->static_smem, P->smem_align ? P->smem_align : 16);
}

static int resolve_labels(struct parser *P)
{
    for (uint32_t i = 0; i < P->nfix; i++) {
        struct entry *e = lookup(&P->names, P->fix[i].label, strlen(P->fix[i].label));
        if (!e || !e->sym.is_label) {
            P->t.line = (int)P->fix[i].line;
            fail(P, "branch to undefined label %s", P->fix[i].label);
        } else {
            P->dc.mod->code[P->fix[i].insn].imm = (int64_t)e->sym.addr;
        }
        free(P->fix[i].label);
    }
    P->nfix = 0;
    return P->dc.err[0] ? -1 : 0;
}

/* ---- variables ------------------------------------------------------------------------ */

struct decl {
    enum space space;
    int align, bits;
    char kind;
    struct tok name;
    int64_t count; /* array elements, -1 scalar, 0 for [] (extern, unsized) */
    int is_extern;
    int is_visible; /* .visible, .weak or .common */
};

/* ".space .align N .type name[count]" up to (not including) '=' or ';'. */
static int parse_decl(struct parser *P, struct decl *d)
{
    memset(d, 0, sizeof *d);
    d->count = -1;
    while (P->t.kind == T_WORD && P->t.s[0] == '.') {
        char kind;
        int bits = type_of(&P->t, &kind);
        if (bits) {
            d->bits = bits;
            d->kind = kind;
        } else if (is(&P->t, ".global")) {
            d->space = SP_GLOBAL;
        } else if (is(&P->t, ".const")) {
            d->space = SP_CONST;
        } else if (is(&P->t, ".shared")) {
            d->space = SP_SHARED;
        } else if (is(&P->t, ".local")) {
            d->space = SP_LOCAL;
        } else if (is(&P->t, ".param")) {
            d->space = SP_PARAM;
        } else if (is(&P->t, ".extern")) {
            d->is_extern = 1;
        } else if (is(&P->t, ".visible") || is(&P->t, ".weak") || is(&P->t, ".common")) {
            d->is_visible = 1;
        } else if (is(&P->t, ".align")) {
            int64_t a;
            next(P);
            if (take_int(P, &a))
                return -1;
            d->align = (int)a;
            continue;
        } /* .ptr, .v2 ... carry nothing the VM needs */
        next(P);
    }
    if (P->t.kind != T_WORD)
        return fail(P, "expected a variable name");
    d->name = P->t;
    next(P);
    if (is_punct(&P->t, '[')) {
        next(P);
        d->count = 0;
        if (!is_punct(&P->t, ']') && take_int(P, &d->count))
            return -1;
        if (expect(P, ']'))
            return -1;
    }
    if (!d->bits)
        return fail(P, "declaration of %.*s has no type", (int)d->name.len, d->name.s);
    if (!d->align)
        d->align = d->bits >= 8 ? d->bits / 8 : 1;
    return 0;
}

static uint64_t decl_bytes(const struct decl *d)
{
    uint64_t elem = d->bits >= 8 ? (uint64_t)d->bits / 8 : 1;
    return elem * (uint64_t)(d->count < 0 ? 1 : d->count);
}

/* What a module variable's initialiser holds for a function's address (a C++ vtable's entries):
 * a value no allocation has, and the one an indirect call looks for (func::address). */
#define FUNCTION_ADDRESS 0xF00C000000000000ull

/* Function @p s's address: FUNCTION_ADDRESS plus a 32-bit hash of its name (the same in every
 * unit, so a kernel launched from device code is found by it). */
static uint64_t function_address(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return FUNCTION_ADDRESS | h;
}

/* The value of name @p t in an initialiser: a variable's device address, else (a function)
 * FUNCTION_ADDRESS plus the name's hash. */
static uint64_t init_address(struct parser *P, const struct tok *t)
{
    struct entry *e = lookup(&P->names, t->s, t->len);
    if (e && !e->is_reg && (e->sym.space == SP_GLOBAL || e->sym.space == SP_CONST))
        return e->sym.addr;
    return function_address(t->s, t->len);
}

/* "= {1, 2, ...}", "= 3" or "= {0, _ZN3Foo1fEv, generic(x)}": write the values into @p out
 * (elements of @p d's type). */
static int parse_init(struct parser *P, const struct decl *d, uint8_t *out, uint64_t bytes)
{
    next(P); /* = */
    uint64_t at = 0, elem = d->bits >= 8 ? (uint64_t)d->bits / 8 : 1;
    while (P->t.kind != T_END && !is_punct(&P->t, ';')) {
        int structure = P->t.kind == T_PUNCT && strchr("{},()", P->t.s[0]);
        if (!structure && !is(&P->t, "generic")) {
            int64_t v = 0;
            uint64_t bits = 0;
            if (P->t.kind == T_WORD) {
                bits = init_address(P, &P->t);
                next(P);
            } else if (P->t.kind == T_NUM && P->t.len > 2 && P->t.s[0] == '0' &&
                       (P->t.s[1] == 'f' || P->t.s[1] == 'd' || P->t.s[1] == 'F' ||
                        P->t.s[1] == 'D')) {
                bits = strtoull(P->t.s + 2, NULL, 16);
                next(P);
            } else if (take_int(P, &v) == 0) {
                bits = (uint64_t)v;
            } else {
                return fail(P, "initialiser of %.*s is not a number", (int)d->name.len, d->name.s);
            }
            if (at + elem <= bytes)
                memcpy(out + at, &bits, elem);
            at += elem;
            continue;
        }
        next(P); /* { } , ( ) and generic */
    }
    return 0;
}

/* A linked variable @p e seen again: an .extern declaration takes it as it is; a definition
 * fills the place an earlier unit's .extern declaration made. */
static int link_var(struct parser *P, const struct decl *d, struct entry *e)
{
    if (!d->is_extern) {
        if (decl_bytes(d) > e->sym.size)
            return fail(P,
                        "%.*s is defined with %llu bytes, more than the %llu its .extern "
                        "declaration in an earlier PTX unit gave it",
                        (int)d->name.len, d->name.s, (unsigned long long)decl_bytes(d),
                        (unsigned long long)e->sym.size);
        e->linked = 1;
        if (is_punct(&P->t, '=') && parse_init(P, d, mem_host(P->mem, e->sym.addr), e->sym.size))
            return -1;
    }
    skip_statement(P);
    return 0;
}

/* A module-scope variable: placed in device memory (global, const) or in every block's
 * shared memory (shared). */
static int module_var(struct parser *P)
{
    struct decl d;
    if (parse_decl(P, &d))
        return -1;
    int in_memory = d.space == SP_GLOBAL || d.space == SP_CONST;
    struct entry *e = lookup(&P->names, d.name.s, d.name.len);
    if (in_memory && e && e->linked && (d.is_extern || d.is_visible))
        return link_var(P, &d, e);
    e = declare(&P->names, d.name.s, d.name.len, 0);
    e->sym.space = d.space;
    e->sym.size = decl_bytes(&d);
    if (d.space == SP_SHARED) {
        if (d.count == 0) { /* extern [] : the dynamic shared memory, placed per kernel */
            e->sym.addr = UINT64_MAX;
            P->smem_align = (uint32_t)d.align > P->smem_align ? (uint32_t)d.align : P->smem_align;
        } else {
            P->module_smem = align_up(P->module_smem, (uint32_t)d.align);
            e->sym.addr = P->module_smem;
            P->module_smem += (uint32_t)e->sym.size;
        }
    } else if (in_memory) {
        uint64_t bytes = e->sym.size ? e->sym.size : 1;
        e->linked = d.is_extern ? 2 : d.is_visible;
        uint64_t addr = mem_alloc(P->mem, bytes, 0);
        if (!addr)
            return fail(P, "no device memory for %.*s", (int)d.name.len, d.name.s);
        e->sym.addr = addr;
        struct vm_module *m = P->dc.mod;
        m->vars = vm_grow(m->vars, m->nvars, &P->capvars, sizeof *m->vars);
        m->vars[m->nvars++] = (struct var){strndup(d.name.s, d.name.len), addr, bytes};
        memset(mem_host(P->mem, addr), 0, bytes);
        mem_mark_written(P->mem, addr, bytes, MEM_MODULE);
        if (is_punct(&P->t, '=') && parse_init(P, &d, mem_host(P->mem, addr), bytes))
            return -1;
    } else {
        return fail(P, "module-scope %.*s in an unsupported state space", (int)d.name.len,
                    d.name.s);
    }
    skip_statement(P);
    return 0;
}

/* A declaration inside a function body: .shared, .local, or a call's .param. */
static int body_var(struct parser *P)
{
    struct decl d;
    if (parse_decl(P, &d))
        return -1;
    struct entry *e = declare(&P->names, d.name.s, d.name.len, P->depth);
    e->sym.space = d.space;
    e->sym.size = decl_bytes(&d);
    uint32_t size = (uint32_t)e->sym.size, align = (uint32_t)d.align;
    if (d.space == SP_SHARED) {
        if (P->dyn_used)
            return fail(P, "static .shared declared after the dynamic shared memory was used");
        P->static_smem = align_up(P->static_smem, align);
        e->sym.addr = P->static_smem;
        P->static_smem += size;
    } else if (d.space == SP_LOCAL) {
        P->local_bytes = align_up(P->local_bytes, align);
        e->sym.addr = P->local_bytes;
        P->local_bytes += size;
    } else if (d.space == SP_PARAM) {
        /* A call's argument or return value: per-thread, in the lane's call frame. */
        P->call_bytes = align_up(P->call_bytes, align);
        e->sym.addr = P->call_bytes;
        e->sym.is_callparam = 1;
        P->call_bytes += size;
    } else {
        return fail(P, "a declaration in an unsupported state space");
    }
    skip_statement(P);
    return 0;
}

/* ---- operands ------------------------------------------------------------------------- */

static int parse_reg_name(struct parser *P, const struct reg **out)
{
    if (is(&P->t, "_")) {
        *out = NULL;
        next(P);
        return 0;
    }
    const struct reg *sr = special_reg(P, &P->t);
    struct entry *e = sr ? NULL : lookup(&P->names, P->t.s, P->t.len);
    if (!sr && (!e || !e->is_reg))
        return fail(P, "unknown register %.*s", (int)P->t.len, P->t.s);
    *out = sr ? sr : &e->reg;
    next(P);
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
        next(P);
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
        next(P);
        return 0;
    }
    o->kind = OK_IMM;
    o->imm = neg ? -v : v;
    next(P);
    return 0;
}

/* {r0, r1, ...} into o->vec (the sink _ as NULL). */
static int parse_vec(struct parser *P, struct operand *o)
{
    next(P); /* { */
    while (!is_punct(&P->t, '}')) {
        if (o->nvec == VEC_MAX)
            return fail(P, "vector operand longer than %d", VEC_MAX);
        if (parse_reg_name(P, &o->vec[o->nvec++]))
            return -1;
        if (is_punct(&P->t, ','))
            next(P);
    }
    next(P);
    return 0;
}

/* [reg], [reg+imm], [sym], [sym+imm], [imm], and [handle, {coordinates}] */
static int parse_address(struct parser *P, struct operand *o)
{
    next(P); /* [ */
    o->kind = OK_ADDR;
    if (P->t.kind == T_WORD) {
        struct entry *e = lookup(&P->names, P->t.s, P->t.len);
        const struct reg *sr = special_reg(P, &P->t);
        if (sr) {
            o->reg = sr;
            next(P);
        } else if (e && e->is_reg) {
            o->reg = &e->reg;
            next(P);
        } else if (e) {
            o->sym = &e->sym;
            next(P);
        } else {
            return fail(P, "unknown name %.*s in an address", (int)P->t.len, P->t.s);
        }
    }
    while (is_punct(&P->t, '+') || is_punct(&P->t, '-') || P->t.kind == T_NUM) {
        int neg = 0;
        while (is_punct(&P->t, '+') || is_punct(&P->t, '-')) {
            neg ^= is_punct(&P->t, '-');
            next(P);
        }
        int64_t v;
        if (P->t.kind != T_NUM || parse_int(P->t.s, P->t.len, &v))
            return fail(P, "bad address displacement");
        o->imm += neg ? -v : v;
        next(P);
    }
    /* [handle, {c0, c1, ...}]: a texture or surface instruction's coordinates */
    if (is_punct(&P->t, ',')) {
        next(P);
        if (!is_punct(&P->t, '{'))
            return fail(P, "expected '{' after the handle in an address");
        if (parse_vec(P, o))
            return -1;
    }
    return expect(P, ']');
}

static int parse_operand(struct parser *P, struct operand *o)
{
    memset(o, 0, sizeof *o);
    if (is_punct(&P->t, '!')) {
        o->negated = 1;
        next(P);
    }
    if (is_punct(&P->t, '[')) {
        return parse_address(P, o);
    } else if (is_punct(&P->t, '{')) {
        o->kind = OK_VEC;
        return parse_vec(P, o);
    } else if (is_punct(&P->t, '-') || P->t.kind == T_NUM) {
        int neg = is_punct(&P->t, '-');
        if (neg)
            next(P);
        return parse_number(P, o, neg);
    } else if (is(&P->t, "_")) {
        o->kind = OK_SINK;
        next(P);
        if (is_punct(&P->t, '|')) { /* _|p: elect.sync's leader predicate alone */
            next(P);
            return parse_reg_name(P, &o->reg2);
        }
        return 0;
    } else if (is(&P->t, "WARP_SZ")) { /* the warp size, a constant of the PTX ISA */
        o->kind = OK_IMM;
        o->imm = 32;
        next(P);
        return 0;
    } else if (P->t.kind == T_WORD) {
        struct entry *e = lookup(&P->names, P->t.s, P->t.len);
        if ((e && e->is_reg) || special_reg(P, &P->t)) {
            o->kind = OK_REG;
            if (parse_reg_name(P, &o->reg))
                return -1;
            if (is_punct(&P->t, '|')) {
                next(P);
                if (parse_reg_name(P, &o->reg2))
                    return -1;
            }
            return 0;
        }
        /* %clock, %clock64 and %globaltimer are decode_ops.c's; %envreg<n>, %pm<n>, ... none's */
        if (!e && P->t.s[0] == '%' && strncmp(P->t.s, "%clock", 6) &&
            strncmp(P->t.s, "%globaltimer", 12))
            return fail(P, "%.*s is a special register the emulator does not have", (int)P->t.len,
                        P->t.s);
        o->kind = OK_SYM;
        o->sym = e ? &e->sym : NULL;
        o->name = strndup(P->t.s, P->t.len);
        next(P);
        return 0;
    }
    return fail(P, "unexpected '%.*s' in an operand", (int)P->t.len, P->t.s);
}

/* ---- statements ------------------------------------------------------------------------ */

/* An integer token, or -1 (without an error: .loc is best effort). */
static int64_t loc_int(struct parser *P)
{
    int64_t v;
    if (P->t.kind != T_NUM || parse_int(P->t.s, P->t.len, &v))
        return -1;
    next(P);
    return v;
}

/* .loc file line col[, function_name ..., inlined_at file line col]: both positions are
 * kept; messages name the inlined_at one when the first is in a CUDA header. */
static void parse_loc(struct parser *P)
{
    struct vm_module *m = P->dc.mod;
    int at = P->t.line;
    next(P);
    int64_t file = loc_int(P), line = loc_int(P);
    struct srcloc loc = {.file = (uint16_t)(P->file_base + (file < 0 ? 0 : file)),
                         .line = (uint32_t)(line < 0 ? 0 : line)};
    while (P->t.kind != T_END && P->t.line == at) {
        if (is(&P->t, "inlined_at")) {
            next(P);
            int64_t f2 = loc_int(P), l2 = loc_int(P);
            if (f2 >= 0 && l2 > 0)
                loc.ifile = (uint16_t)(P->file_base + f2), loc.iline = (uint32_t)l2;
            continue;
        }
        next(P);
    }
    if (loc.line == 0)
        return; /* "line 0": no position; keep the previous one */
    /* A header function inlined into another of the same header (tex2D's helpers): name where
     * the outer one was inlined, which the .loc just before says. */
    if (loc.iline && loc.ifile == loc.file && m->nlines) {
        const struct srcloc *outer = &m->lines[P->dc.loc];
        if (outer->file == loc.ifile && outer->line == loc.iline && outer->iline)
            loc.ifile = outer->ifile, loc.iline = outer->iline;
    }
    m->lines = vm_grow(m->lines, m->nlines, &P->caplines, sizeof *m->lines);
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
    skip_statement(P);
    P->dc.text = start;
    P->dc.text_len = strcspn(start, ";");
    P->dc.guard = NO_REG;
    P->dc.start = P->dc.mod->ncode;
    unsupported(&P->dc, why);
    return 0;
}

static int parse_instruction(struct parser *P)
{
    const char *start = P->t.s;
    const struct reg *guard = NULL;
    int neg_guard = 0;
    if (is_punct(&P->t, '@')) {
        next(P);
        if (is_punct(&P->t, '!')) {
            neg_guard = 1;
            next(P);
        }
        if (parse_reg_name(P, &guard))
            return unreadable(P, start);
    }
    if (P->t.kind != T_WORD) {
        fail(P, "expected an instruction, found '%.*s'", (int)P->t.len, P->t.s);
        return unreadable(P, start);
    }
    char mn[96];
    snprintf(mn, sizeof mn, "%.*s", (int)P->t.len, P->t.s);
    next(P);
    struct operand ops[8];
    int nops = 0, failed = 0, group = 0, in_group = 0;
    while (!is_punct(&P->t, ';') && P->t.kind != T_END) {
        if (nops == 8) {
            fail(P, "%s: too many operands", mn);
            failed = 1;
            break;
        }
        if (is_punct(&P->t, '(') || is_punct(&P->t, ')') || is_punct(&P->t, ',')) {
            /* call's parenthesised lists flatten into the operand list, numbered */
            if (is_punct(&P->t, '('))
                in_group = ++group;
            else if (is_punct(&P->t, ')'))
                in_group = 0;
            next(P);
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
    int rc = failed ? -1 : decode_insn(&P->dc, mn, guard, neg_guard, ops, nops);
    for (int i = 0; i < nops; i++)
        free((void *)ops[i].name);
    if (failed)
        return unreadable(P, start);
    if (rc)
        return -1;
    return expect(P, ';');
}

static int parse_body_statement(struct parser *P);

/* { statements } as a scope of its own. */
static int parse_block(struct parser *P)
{
    next(P); /* { */
    P->depth++;
    while (!is_punct(&P->t, '}')) {
        if (P->t.kind == T_END)
            return fail(P, "a block is never closed");
        if (parse_body_statement(P))
            return -1;
    }
    next(P);
    pop_scope(&P->names, P->depth, 0);
    P->depth--;
    return 0;
}

static int parse_body_statement(struct parser *P)
{
    struct tok *t = &P->t;
    if (is_punct(t, '{'))
        return parse_block(P);
    if (is(t, ".reg"))
        return parse_reg_decl(P);
    if (is(t, ".loc")) {
        parse_loc(P);
        return 0;
    }
    if (is(t, ".pragma") || is(t, ".callprototype")) {
        skip_statement(P);
        return 0;
    }
    if (is(t, ".shared") || is(t, ".local") || is(t, ".param"))
        return body_var(P);
    if (t->kind == T_WORD && t->s[0] != '.') {
        /* A label is a word followed by ':'. */
        struct lexer save = P->L;
        struct tok word = *t;
        next(P);
        if (is_punct(&P->t, ':')) {
            struct entry *e = declare(&P->names, word.s, word.len, 1);
            e->sym.is_label = 1;
            e->sym.addr = P->dc.mod->ncode;
            next(P);
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
    next(P); /* ( */
    uint32_t offset = fn->is_entry ? fn->info.param_bytes : P->call_bytes;
    while (!is_punct(&P->t, ')')) {
        struct decl d;
        if (parse_decl(P, &d))
            return -1;
        uint32_t size = (uint32_t)decl_bytes(&d);
        offset = align_up(offset, (uint32_t)d.align);
        struct entry *e = declare(&P->names, d.name.s, d.name.len, 1);
        e->sym.space = SP_PARAM;
        e->sym.addr = offset;
        e->sym.size = size;
        e->sym.is_callparam = !fn->is_entry;
        if (is_return) {
            fn->ret_off = offset;
            fn->ret_size = size;
        } else {
            struct vm_param *p = (struct vm_param *)fn->info.params;
            p = realloc(p, (fn->info.nparams + 1) * sizeof *p);
            if (!p)
                abort();
            p[fn->info.nparams++] = (struct vm_param){offset, size};
            fn->info.params = p;
        }
        offset += size;
        if (is_punct(&P->t, ','))
            next(P);
    }
    next(P);
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
        int maxntid = is(&P->t, ".maxntid"), reqntid = is(&P->t, ".reqntid");
        int cluster = is(&P->t, ".reqnctapercluster"), maxrank = is(&P->t, ".maxclusterrank");
        fn->info.explicit_cluster |= is(&P->t, ".explicitcluster");
        if (is(&P->t, ".pragma")) {
            skip_statement(P);
            continue;
        }
        int line = P->t.line;
        next(P);
        int64_t v[3] = {1, 1, 1};
        for (int i = 0; i < 3 && P->t.kind == T_NUM && P->t.line == line; i++) {
            if (take_int(P, &v[i]))
                return -1;
            if (is_punct(&P->t, ','))
                next(P);
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
    fn->presets = calloc(P->nconsts ? P->nconsts : 1, sizeof *fn->presets);
    if (!fn->presets)
        abort();
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
    if (lookup(&P->names, t->s, t->len))
        return;
    struct entry *e = declare(&P->names, t->s, t->len, 0);
    e->sym =
        (struct sym){.space = SP_GENERIC, .addr = function_address(t->s, t->len), .is_func = 1};
    e->linked = 1;
}

static int parse_function(struct parser *P, int is_entry)
{
    struct vm_module *m = P->dc.mod;
    next(P); /* .entry / .func */
    m->funcs = vm_grow(m->funcs, m->nfuncs, &P->capfuncs, sizeof *m->funcs);
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
    P->static_smem = P->module_smem;
    if (!is_entry && is_punct(&P->t, '(') && parse_params(P, fn, 1))
        return -1;
    if (P->t.kind != T_WORD)
        return fail(P, "expected a function name");
    char *name = strndup(P->t.s, P->t.len);
    function_name(P, &P->t);
    next(P);
    if (is_punct(&P->t, '(') && parse_params(P, fn, 0)) {
        free(name);
        return -1;
    }
    if (parse_perf_directives(P, fn)) {
        free(name);
        return -1;
    }
    if (is_punct(&P->t, ';')) { /* a prototype: .extern .func vprintf(...); */
        next(P);
        free(name);
        free((void *)fn->info.params);
        pop_scope(&P->names, 1, 0);
        return 0;
    }
    fn->info.name = name;
    fn->address = function_address(name, strlen(name));
    fn->first = m->ncode;
    P->fdefs = realloc(P->fdefs, (m->nfuncs + 1) * sizeof *P->fdefs);
    if (!P->fdefs)
        abort();
    P->fdefs[m->nfuncs] = (struct fdef){name, P->unit, linkage};
    m->nfuncs++;
    P->depth = 0; /* the body's block opens scope 1 */
    if (!is_punct(&P->t, '{'))
        return fail(P, "expected the body of %s", name);
    next(P);
    P->depth = 1;
    while (!is_punct(&P->t, '}')) {
        if (P->t.kind == T_END)
            return fail(P, "the body of %s is never closed", name);
        if (parse_body_statement(P))
            return -1;
    }
    next(P);
    if (resolve_labels(P))
        return -1;
    finish_function(P, fn);
    pop_scope(&P->names, 1, 0);
    P->depth = 0;
    return 0;
}

/* ---- the module ------------------------------------------------------------------------- */

/* .file N "name"[, stamp, size] */
static int parse_file(struct parser *P)
{
    struct vm_module *m = P->dc.mod;
    next(P);
    int64_t n;
    if (take_int(P, &n) || P->t.kind != T_STR || n < 0 || n + P->file_base > 65535)
        return fail(P, "bad .file directive");
    n += P->file_base;
    if ((uint64_t)n >= m->nfiles) {
        char **files = realloc(m->files, (size_t)(n + 1) * sizeof *files);
        if (!files)
            abort();
        for (uint32_t i = m->nfiles; i <= (uint32_t)n; i++)
            files[i] = NULL;
        m->files = files;
        m->nfiles = (uint32_t)n + 1;
    }
    free(m->files[n]);
    m->files[n] = strndup(P->t.s, P->t.len);
    skip_line(P);
    return 0;
}

/* .section name { ... }: debug sections carry nothing the VM runs. */
static void skip_section(struct parser *P)
{
    while (P->t.kind != T_END && !is_punct(&P->t, '{'))
        next(P);
    int depth = 0;
    do {
        depth += is_punct(&P->t, '{') - is_punct(&P->t, '}');
        next(P);
    } while (P->t.kind != T_END && depth > 0);
}

/* A .version: the text of the next object of a -rdc link begins. The last one's module-local
 * names are forgotten, and its .file numbers kept apart. */
static void begin_unit(struct parser *P)
{
    if (P->unit++ == 0)
        return;
    pop_scope(&P->names, 0, 1);
    P->file_base = P->dc.mod->nfiles;
}

static int parse_module_statement(struct parser *P)
{
    struct tok *t = &P->t;
    if (is(t, ".version")) {
        begin_unit(P);
        skip_line(P);
    } else if (is(t, ".target") || is(t, ".address_size")) {
        skip_line(P);
    } else if (is(t, ".file")) {
        return parse_file(P);
    } else if (is(t, ".section")) {
        skip_section(P);
    } else if (is(t, ".visible") || is(t, ".weak") || is(t, ".extern") || is(t, ".common")) {
        /* Linkage words: look at what follows. A .extern .shared array is a variable. */
        struct lexer save = P->L;
        struct tok word = *t;
        next(P);
        if (is(&P->t, ".global") || is(&P->t, ".const") || is(&P->t, ".shared")) {
            P->L = save;
            P->t = word;
            return module_var(P);
        }
        P->linkage = !is(&word, ".extern");
    } else if (is(t, ".entry")) {
        return parse_function(P, 1);
    } else if (is(t, ".func")) {
        return parse_function(P, 0);
    } else if (is(t, ".global") || is(t, ".const") || is(t, ".shared")) {
        return module_var(P);
    } else if (is(t, ".pragma")) {
        skip_statement(P);
    } else {
        return fail(P, "unexpected '%.*s' at module scope", (int)t->len, t->s);
    }
    return 0;
}

/* The function call @p c names: its own unit's, else a linked one; nfuncs when none. */
static uint32_t callee_of(const struct parser *P, const struct callfix *c)
{
    uint32_t n = P->dc.mod->nfuncs, found = n;
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(P->fdefs[i].name, c->name)) {
            if (P->fdefs[i].unit == c->unit)
                return i;
            if (P->fdefs[i].linked && found == n)
                found = i;
        }
    return found;
}

/* Kernels first (their indexes are what vm_find() returns), device functions after; calls
 * then name their callee by its new index, and every pc knows its function. */
static void order_functions(struct parser *P)
{
    struct vm_module *m = P->dc.mod;
    uint32_t n = m->nfuncs ? m->nfuncs : 1, *index = malloc(n * sizeof *index);
    struct func *sorted = malloc(n * sizeof *sorted);
    m->func_at = malloc((m->ncode ? m->ncode : 1) * sizeof *m->func_at);
    if (!index || !sorted || !m->func_at)
        abort();
    uint32_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < m->nfuncs; i++)
            if (m->funcs[i].is_entry == !pass) {
                index[i] = k;
                sorted[k++] = m->funcs[i];
            }
    m->nkernels = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        m->nkernels += sorted[i].is_entry;
        for (uint32_t pc = sorted[i].first; pc < sorted[i].first + sorted[i].count; pc++)
            m->func_at[pc] = (uint16_t)i;
    }
    for (uint32_t c = 0; c < P->ncalls; c++) {
        uint32_t i = callee_of(P, &P->calls[c]);
        struct insn *in = &m->code[P->calls[c].insn];
        if (i < m->nfuncs) {
            in->imm = index[i];
        } else { /* an external function the module only declares */
            in->op = OP_UNSUPPORTED;
            char *text = malloc(strlen(P->calls[c].name) + 64);
            if (!text)
                abort();
            sprintf(text, "call %s (not defined in this module)", P->calls[c].name);
            free(m->texts[P->calls[c].insn]);
            m->texts[P->calls[c].insn] = text;
        }
        free(P->calls[c].name);
    }
    m->local_total = align_up(P->local_bytes, 16);
    m->call_total = align_up(P->call_bytes, 16);
    free(m->funcs);
    m->funcs = sorted;
    free(index);
}

static void free_parser(struct parser *P)
{
    pop_scope(&P->names, 0, 0);
    free(P->names.all);
    free(P->fix);
    free(P->consts);
    free(P->calls);
    free(P->fdefs);
}

int vm_load(const char *ptx, size_t len, const char *origin, struct emu_mem *mem,
            struct vm_module **out, char *err, size_t err_size)
{
    struct parser *P = calloc(1, sizeof *P);
    struct vm_module *m = calloc(1, sizeof *m);
    if (!P || !m)
        abort();
    m->origin = strdup(origin ? origin : "PTX");
    err[0] = '\0';
    P->L = (struct lexer){ptx, ptx + len, 1};
    P->mem = mem;
    P->dc = (struct dctx){.mod = m, .err = err, .err_size = err_size};
    P->dc.constant = constant_reg;
    P->dc.label_ref = label_ref;
    P->dc.callee = callee_ref;
    P->dc.dyn_smem_base = dyn_smem_base;
    P->dc.parser = P;
    next(P);
    int rc = 0;
    while (P->t.kind != T_END && rc == 0)
        rc = parse_module_statement(P);
    if (rc == 0)
        order_functions(P);
    free_parser(P);
    free(P);
    if (rc) {
        vm_unload(m, mem);
        return -1;
    }
    *out = m;
    return 0;
}
