/**
 * @file vars.c
 * @brief The PTX parser's variables and the device memory they take: module-scope .global
 *        and .const variables allocated in the device memory and initialised, .extern ones
 *        linked to their definition, .shared ones laid out, body .local/.param/.shared ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Where the dynamic shared memory starts: after the static shared memory, aligned. */
uint64_t vars_dyn_smem_base(struct dctx *c)
{
    struct parser *P = c->parser;
    P->dyn_used = 1;
    return align_up(P->static_smem, P->smem_align ? P->smem_align : 16);
}

/* ".space .align N .type name[count]" up to (not including) '=' or ';'. */
int decl_parse(struct parser *P, struct decl *d)
{
    memset(d, 0, sizeof *d);
    d->count = -1;
    while (P->t.kind == T_WORD && P->t.s[0] == '.') {
        char kind;
        int bits = parse_type_of(&P->t, &kind);
        if (bits) {
            d->bits = bits;
            d->kind = kind;
        } else if (tok_is(&P->t, ".global")) {
            d->space = SP_GLOBAL;
        } else if (tok_is(&P->t, ".const")) {
            d->space = SP_CONST;
        } else if (tok_is(&P->t, ".shared")) {
            d->space = SP_SHARED;
        } else if (tok_is(&P->t, ".local")) {
            d->space = SP_LOCAL;
        } else if (tok_is(&P->t, ".param")) {
            d->space = SP_PARAM;
        } else if (tok_is(&P->t, ".extern")) {
            d->is_extern = 1;
        } else if (tok_is(&P->t, ".visible") || tok_is(&P->t, ".weak") ||
                   tok_is(&P->t, ".common")) {
            d->is_visible = 1;
        } else if (tok_is(&P->t, ".attribute")) { /* (.managed): nothing the VM needs */
            parse_next(P);
            while (P->t.kind != T_END && !tok_punct(&P->t, ')') && !tok_punct(&P->t, ';'))
                parse_next(P);
            if (parse_expect(P, ')'))
                return -1;
            continue;
        } else if (tok_is(&P->t, ".align")) {
            int64_t a;
            parse_next(P);
            if (parse_take_int(P, &a))
                return -1;
            d->align = (int)a;
            continue;
        } /* .ptr, .v2 ... carry nothing the VM needs */
        parse_next(P);
    }
    if (P->t.kind != T_WORD)
        return parse_fail(P, "expected a variable name");
    d->name = P->t;
    parse_next(P);
    if (tok_punct(&P->t, '[')) {
        parse_next(P);
        d->count = 0;
        if (!tok_punct(&P->t, ']') && parse_take_int(P, &d->count))
            return -1;
        if (parse_expect(P, ']'))
            return -1;
    }
    if (!d->bits)
        return parse_fail(P, "declaration of %.*s has no type", (int)d->name.len, d->name.s);
    if (!d->align)
        d->align = d->bits >= 8 ? d->bits / 8 : 1;
    return 0;
}

uint64_t decl_bytes(const struct decl *d)
{
    uint64_t elem = d->bits >= 8 ? (uint64_t)d->bits / 8 : 1;
    return elem * (uint64_t)(d->count < 0 ? 1 : d->count);
}

/* The value of name @p t in an initialiser: a variable's device address, else (a function)
 * FUNCTION_ADDRESS plus the name's hash. */
static uint64_t init_address(struct parser *P, const struct tok *t)
{
    struct entry *e = names_lookup(&P->names, t->s, t->len);
    if (e && !e->is_reg && (e->sym.space == SP_GLOBAL || e->sym.space == SP_CONST))
        return e->sym.addr;
    return link_function_address(t->s, t->len);
}

/* "= {1, 2, ...}", "= 3" or "= {0, _ZN3Foo1fEv, generic(x)}": write the values into @p out
 * (elements of @p d's type). */
static int decl_init(struct parser *P, const struct decl *d, uint8_t *out, uint64_t bytes)
{
    parse_next(P); /* = */
    uint64_t at = 0, elem = d->bits >= 8 ? (uint64_t)d->bits / 8 : 1;
    while (P->t.kind != T_END && !tok_punct(&P->t, ';')) {
        int structure = P->t.kind == T_PUNCT && strchr("{},()", P->t.s[0]);
        if (!structure && !tok_is(&P->t, "generic")) {
            int64_t v = 0;
            uint64_t bits = 0;
            if (P->t.kind == T_WORD) {
                bits = init_address(P, &P->t);
                parse_next(P);
            } else if (P->t.kind == T_NUM && P->t.len > 2 && P->t.s[0] == '0' &&
                       (P->t.s[1] == 'f' || P->t.s[1] == 'd' || P->t.s[1] == 'F' ||
                        P->t.s[1] == 'D')) {
                bits = strtoull(P->t.s + 2, NULL, 16);
                parse_next(P);
            } else if (parse_take_int(P, &v) == 0) {
                bits = (uint64_t)v;
            } else {
                return parse_fail(P, "initialiser of %.*s is not a number", (int)d->name.len,
                                  d->name.s);
            }
            if (at + elem <= bytes)
                memcpy(out + at, &bits, elem);
            at += elem;
            continue;
        }
        parse_next(P); /* { } , ( ) and generic */
    }
    return 0;
}

/* A linked variable @p e seen again: an .extern declaration takes it as it is; a definition
 * fills the place an earlier unit's .extern declaration made. */
static int vars_link(struct parser *P, const struct decl *d, struct entry *e)
{
    if (!d->is_extern) {
        if (decl_bytes(d) > e->sym.size)
            return parse_fail(P,
                              "%.*s is defined with %llu bytes, more than the %llu its .extern "
                              "declaration in an earlier PTX unit gave it",
                              (int)d->name.len, d->name.s, (unsigned long long)decl_bytes(d),
                              (unsigned long long)e->sym.size);
        e->linked = 1;
        if (tok_punct(&P->t, '=') && decl_init(P, d, mem_host(P->mem, e->sym.addr), e->sym.size))
            return -1;
        mem_mark_written(P->mem, e->sym.addr, e->sym.size, MEM_MODULE); /* its initial values */
    }
    parse_skip_statement(P);
    return 0;
}

/* A module-scope variable: placed in device memory (global, const) or in the shared memory
 * of the kernels that use it, where smem_plan.c planned it (shared). */
int vars_module(struct parser *P)
{
    struct decl d;
    if (decl_parse(P, &d))
        return -1;
    int in_memory = d.space == SP_GLOBAL || d.space == SP_CONST;
    struct entry *e = names_lookup(&P->names, d.name.s, d.name.len);
    if (in_memory && e && e->linked && (d.is_extern || d.is_visible))
        return vars_link(P, &d, e);
    e = names_declare(&P->names, d.name.s, d.name.len, 0);
    e->sym.space = d.space;
    e->sym.size = decl_bytes(&d);
    uint32_t addr;
    if (d.space == SP_SHARED) {
        if (d.count == 0) { /* extern [] : the dynamic shared memory, placed per kernel */
            e->sym.addr = UINT64_MAX;
            P->smem_align = (uint32_t)d.align > P->smem_align ? (uint32_t)d.align : P->smem_align;
        } else if (!smem_plan_var(P, &d.name, &addr)) { /* every one is planned: a guard */
            P->module_smem = align_up(P->module_smem, (uint32_t)d.align);
            e->sym.addr = P->module_smem;
            P->module_smem += (uint32_t)e->sym.size;
        } else {
            e->sym.addr = addr;
        }
    } else if (in_memory) {
        uint64_t bytes = e->sym.size ? e->sym.size : 1;
        e->linked = d.is_extern ? 2 : d.is_visible;
        uint64_t addr = mem_alloc(P->mem, bytes, 0);
        if (!addr)
            return parse_fail(P, "no device memory for %.*s", (int)d.name.len, d.name.s);
        e->sym.addr = addr;
        struct vm_module *m = P->dc.mod;
        m->vars = emu_grow(m->vars, m->nvars, &P->capvars, sizeof *m->vars);
        m->vars[m->nvars++] = (struct var){emu_strndup(d.name.s, d.name.len), addr, bytes};
        memset(mem_host(P->mem, addr), 0, bytes);
        if (tok_punct(&P->t, '=') && decl_init(P, &d, mem_host(P->mem, addr), bytes))
            return -1;
        /* After the initial values: the record keeps the values its writer left. */
        mem_mark_written(P->mem, addr, bytes, MEM_MODULE);
    } else {
        return parse_fail(P, "module-scope %.*s in an unsupported state space", (int)d.name.len,
                          d.name.s);
    }
    parse_skip_statement(P);
    return 0;
}

/* A declaration inside a function body: .shared, .local, or a call's .param. */
int vars_body(struct parser *P)
{
    struct decl d;
    if (decl_parse(P, &d))
        return -1;
    struct entry *e = names_declare(&P->names, d.name.s, d.name.len, P->depth);
    e->sym.space = d.space;
    e->sym.size = decl_bytes(&d);
    uint32_t size = (uint32_t)e->sym.size, align = (uint32_t)d.align;
    if (d.space == SP_SHARED) {
        if (P->dyn_used)
            return parse_fail(P,
                              "static .shared declared after the dynamic shared memory was used");
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
        return parse_fail(P, "a declaration in an unsupported state space");
    }
    parse_skip_statement(P);
    return 0;
}
