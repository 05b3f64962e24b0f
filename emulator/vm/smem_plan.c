/**
 * @file smem_plan.c
 * @brief Where each module-scope .shared variable lies, and how much of them each kernel
 *        takes, planned from the whole PTX text before it is decoded.
 *
 * Why: a module-scope .shared variable (a namespace-scope __shared__ array, or one that several
 * kernels or a .func use) belongs to the kernels that reference it, as ptxas allocates it: a
 * kernel that never touches another's 32 KiB array does not pay for it. Addresses are decoded
 * into the instructions, so each variable keeps one address for the whole module; variables
 * that no kernel uses together may share addresses.
 *
 * How: one pass over the tokens records, per function, the module-scope .shared variables and
 * the functions it names; a kernel uses the variables its functions (transitively) name. The
 * variables are then placed in declaration order, each at the lowest aligned offset clear of
 * every earlier variable some kernel uses with it. A kernel's static shared memory begins with
 * the end of its variables. A .func is decoded once for all its callers, so what a .func declares
 * in its body, and the dynamic shared memory it addresses, lie after every module variable;
 * the kernels that call such a .func begin their own after them too.
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"

struct plan_var {
    struct tok name;
    uint32_t unit, size, align, addr;
    int dynamic; /* .extern [] : the dynamic shared memory, placed per kernel */
};

struct plan_fn {
    struct tok name;
    uint32_t unit, base;
    int is_entry;
    int past_all; /* a .func with body .shared or dynamic shared memory: it and its callers'
                   * shared memory lie after every module variable */
    uint32_t *vars, nvars, capvars;  /* module variables it names */
    uint32_t *calls, ncalls, capcls; /* functions it names */
};

/* Names to variables (index >= 0) and functions (~index), chained by hash. */
#define PLAN_BUCKETS 4096
#define PLAN_NONE INT32_MAX

struct smem_plan {
    struct plan_var *vars;
    uint32_t nvars, capvars;
    struct plan_fn *fns;
    uint32_t nfns, capfns;
    int32_t bucket[PLAN_BUCKETS];
    struct plan_name {
        int32_t what, next;
    } * names;
    uint32_t nnames, capnames;
    uint32_t all_end; /* the end of every module variable */
};

static uint32_t name_hash(const struct tok *t)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < t->len; i++)
        h = (h ^ (uint8_t)t->s[i]) * 16777619u;
    return h % PLAN_BUCKETS;
}

static const struct tok *name_of(const struct smem_plan *S, int32_t what, uint32_t *unit)
{
    if (what >= 0) {
        *unit = S->vars[what].unit;
        return &S->vars[what].name;
    }
    *unit = S->fns[~what].unit;
    return &S->fns[~what].name;
}

/* Variable (>= 0) or function (< 0) named @p t: of unit @p unit, else (a .visible function) of
 * any; PLAN_NONE when none. */
static int32_t plan_find(const struct smem_plan *S, const struct tok *t, uint32_t unit)
{
    int32_t any = PLAN_NONE;
    for (int32_t i = S->bucket[name_hash(t)]; i >= 0; i = S->names[i].next) {
        uint32_t u;
        const struct tok *n = name_of(S, S->names[i].what, &u);
        if (n->len != t->len || memcmp(n->s, t->s, t->len))
            continue;
        if (u == unit)
            return S->names[i].what;
        if (S->names[i].what < 0)
            any = S->names[i].what;
    }
    return any;
}

static void plan_name(struct smem_plan *S, const struct tok *t, int32_t what)
{
    uint32_t h = name_hash(t);
    S->names = emu_grow(S->names, S->nnames, &S->capnames, sizeof *S->names);
    S->names[S->nnames] = (struct plan_name){what, S->bucket[h]};
    S->bucket[h] = (int32_t)S->nnames++;
}

static void push_index(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v)
{
    for (uint32_t i = 0; i < *n; i++)
        if ((*a)[i] == v)
            return;
    *a = emu_grow(*a, *n, cap, sizeof **a);
    (*a)[(*n)++] = v;
}

/* A module-scope ".shared ..." declaration at @p P's token. */
static void plan_declare(struct parser *P, struct smem_plan *S, uint32_t unit)
{
    struct decl d;
    if (decl_parse(P, &d) || plan_find(S, &d.name, unit) != PLAN_NONE)
        return; /* the real parse reports errors; a second declaration is the same variable */
    S->vars = emu_grow(S->vars, S->nvars, &S->capvars, sizeof *S->vars);
    S->vars[S->nvars] = (struct plan_var){
        d.name, unit, (uint32_t)decl_bytes(&d), (uint32_t)d.align, 0, d.count == 0};
    plan_name(S, &d.name, (int32_t)S->nvars++);
}

/* ".entry name" or ".func (ret) name" at @p P's token: the function's index. */
static uint32_t plan_header(struct parser *P, struct smem_plan *S, uint32_t unit)
{
    int is_entry = tok_is(&P->t, ".entry");
    parse_next(P);
    if (tok_punct(&P->t, '('))
        while (P->t.kind != T_END && !tok_punct(&P->t, ')'))
            parse_next(P);
    if (tok_punct(&P->t, ')'))
        parse_next(P);
    int32_t f = plan_find(S, &P->t, unit);
    if (f < 0 && S->fns[~f].unit == unit)
        return (uint32_t)~f; /* a prototype before */
    S->fns = emu_grow(S->fns, S->nfns, &S->capfns, sizeof *S->fns);
    S->fns[S->nfns] = (struct plan_fn){.name = P->t, .unit = unit, .is_entry = is_entry};
    plan_name(S, &P->t, ~(int32_t)S->nfns);
    return S->nfns++;
}

/* A word inside function @p f's body: a module variable or a function it names. */
static void plan_word(struct smem_plan *S, struct plan_fn *f, const struct tok *t, uint32_t unit)
{
    if (t->s[0] == '%' || t->s[0] == '$' || t->s[0] == '.') {
        f->past_all |= !f->is_entry && tok_is(t, ".shared") && t->bol;
        return;
    }
    int32_t w = plan_find(S, t, unit);
    if (w == PLAN_NONE)
        return;
    if (w >= 0) {
        push_index(&f->vars, &f->nvars, &f->capvars, (uint32_t)w);
        f->past_all |= !f->is_entry && S->vars[w].dynamic;
    } else {
        push_index(&f->calls, &f->ncalls, &f->capcls, (uint32_t)~w);
    }
}

/* Record the module's variables and what each function names. */
static void plan_scan(struct parser *P, struct smem_plan *S)
{
    uint32_t unit = 0, depth = 0;
    int64_t pending = -1, cur = -1;
    parse_next(P);
    while (P->t.kind != T_END) {
        struct tok *t = &P->t;
        if (depth == 0 && tok_is(t, ".version")) {
            unit++;
        } else if (depth == 0 && tok_is(t, ".shared")) {
            plan_declare(P, S, unit);
            continue;
        } else if (depth == 0 && (tok_is(t, ".entry") || tok_is(t, ".func"))) {
            pending = plan_header(P, S, unit);
        } else if (tok_punct(t, '{')) {
            cur = depth++ == 0 ? pending : cur;
        } else if (tok_punct(t, '}') && depth) {
            cur = --depth == 0 ? -1 : cur;
        } else if (depth == 0 && tok_punct(t, ';')) {
            pending = -1;
        } else if (cur >= 0 && t->kind == T_WORD) {
            plan_word(S, &S->fns[cur], t, unit);
        }
        parse_next(P);
    }
}

/* Mark in @p used the variables kernel @p f reaches; returns whether it reaches a .func whose
 * shared memory lies after every variable. */
static int plan_reach(const struct smem_plan *S, uint32_t f, uint8_t *seen, uint8_t *used)
{
    if (seen[f])
        return 0;
    seen[f] = 1;
    int past = S->fns[f].past_all;
    for (uint32_t i = 0; i < S->fns[f].nvars; i++)
        used[S->fns[f].vars[i]] = 1;
    for (uint32_t i = 0; i < S->fns[f].ncalls; i++)
        past |= plan_reach(S, S->fns[f].calls[i], seen, used);
    return past;
}

/* Place variable @p v clear of every earlier one some kernel uses with it (@p together). */
static void plan_place(struct smem_plan *S, uint32_t v, const uint8_t *together)
{
    struct plan_var *x = &S->vars[v];
    int moved = 1;
    while (moved) {
        moved = 0;
        for (uint32_t u = 0; u < v; u++) {
            const struct plan_var *y = &S->vars[u];
            if (together[u] && !y->dynamic && x->addr < y->addr + y->size &&
                y->addr < x->addr + x->size) {
                x->addr = align_up(y->addr + y->size, x->align);
                moved = 1;
            }
        }
    }
    if (x->addr + x->size > S->all_end)
        S->all_end = x->addr + x->size;
}

/* Lay the variables out, and each kernel's shared memory's start. */
static void plan_layout(struct smem_plan *S)
{
    uint32_t nv = S->nvars, nf = S->nfns;
    uint8_t *used = emu_calloc((size_t)nf * (nv ? nv : 1), 1), *seen = emu_calloc(nf + 1, 1);
    uint8_t *past = emu_calloc(nf + 1, 1), *together = emu_calloc(nv + 1, 1);
    for (uint32_t f = 0; f < nf; f++) {
        memset(seen, 0, nf);
        past[f] = S->fns[f].is_entry && plan_reach(S, f, seen, used + (size_t)f * nv);
    }
    for (uint32_t v = 0; v < nv; v++) {
        if (S->vars[v].dynamic)
            continue;
        memset(together, 0, nv);
        for (uint32_t f = 0; f < nf; f++)
            for (uint32_t u = 0; u < v && S->fns[f].is_entry && used[(size_t)f * nv + v]; u++)
                together[u] |= used[(size_t)f * nv + u];
        plan_place(S, v, together);
    }
    for (uint32_t f = 0; f < nf; f++) {
        uint32_t end = 0;
        for (uint32_t v = 0; v < nv && S->fns[f].is_entry; v++)
            if (used[(size_t)f * nv + v] && !S->vars[v].dynamic &&
                S->vars[v].addr + S->vars[v].size > end)
                end = S->vars[v].addr + S->vars[v].size;
        S->fns[f].base = !S->fns[f].is_entry || past[f] ? S->all_end : end;
    }
    free(used);
    free(seen);
    free(past);
    free(together);
}

void smem_plan_make(struct parser *P, const char *ptx, size_t len)
{
    struct smem_plan *S = emu_calloc(1, sizeof *S);
    memset(S->bucket, 0xff, sizeof S->bucket);
    struct parser scan = {.L = {ptx, ptx + len, 1}};
    char err[64];
    scan.dc.err = err;
    scan.dc.err_size = sizeof err;
    plan_scan(&scan, S);
    plan_layout(S);
    P->plan = S;
    P->module_smem = S->all_end;
}

int smem_plan_var(const struct parser *P, const struct tok *name, uint32_t *addr)
{
    int32_t v = plan_find(P->plan, name, P->unit);
    if (v < 0 || v == PLAN_NONE)
        return 0;
    *addr = P->plan->vars[v].addr;
    return 1;
}

uint32_t smem_plan_base(const struct parser *P, const char *name)
{
    struct tok t = {.kind = T_WORD, .s = name, .len = strlen(name)};
    int32_t f = plan_find(P->plan, &t, P->unit);
    return f < 0 ? P->plan->fns[~f].base : P->plan->all_end;
}

void smem_plan_free(struct smem_plan *S)
{
    if (!S)
        return;
    for (uint32_t f = 0; f < S->nfns; f++) {
        free(S->fns[f].vars);
        free(S->fns[f].calls);
    }
    free(S->fns);
    free(S->vars);
    free(S->names);
    free(S);
}
