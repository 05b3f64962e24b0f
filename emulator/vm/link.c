/**
 * @file link.c
 * @brief The PTX parser's names and links: a hash table of scopes, labels resolved at a
 *        function's end, calls at the module's end (their unit's function first, else a
 *        linked one), units (each .version of a -rdc program's text) and the functions' order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static uint32_t hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h % NBUCKETS;
}

struct entry *names_lookup(struct names *N, const char *s, size_t n)
{
    for (struct entry *e = N->bucket[hash(s, n)]; e; e = e->next)
        if (strlen(e->name) == n && !memcmp(e->name, s, n))
            return e;
    return NULL;
}

struct entry *names_declare(struct names *N, const char *s, size_t n, int depth)
{
    struct entry *e = emu_calloc(1, sizeof *e);
    e->name = emu_strndup(s, n);
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
    N->all = emu_grow(N->all, N->nall, &N->cap, sizeof *N->all);
    N->all[N->nall++] = e;
    return e;
}

/* Forget every name declared at @p depth or deeper (the end of a scope). Labels and
 * special registers are declared at function depth from inside nested blocks, so the
 * entries to drop are not only the newest ones. */
void names_pop_scope(struct names *N, int depth, int keep_linked)
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

/* Instruction @p insn branches to label @p name: its pc is filled in at the function's end. */
void link_label_ref(struct dctx *c, uint32_t insn, const char *name)
{
    struct parser *P = c->parser;
    P->fix = emu_grow(P->fix, P->nfix, &P->capfix, sizeof *P->fix);
    P->fix[P->nfix++] = (struct fixup){insn, emu_strdup(name), (uint32_t)P->t.line};
}

/* Instruction @p insn calls function @p name: its index is filled in at the module's end. */
void link_callee_ref(struct dctx *c, uint32_t insn, const char *name)
{
    struct parser *P = c->parser;
    P->calls = emu_grow(P->calls, P->ncalls, &P->capcalls, sizeof *P->calls);
    P->calls[P->ncalls++] = (struct callfix){insn, emu_strdup(name), P->unit};
}

int link_resolve_labels(struct parser *P)
{
    for (uint32_t i = 0; i < P->nfix; i++) {
        struct entry *e = names_lookup(&P->names, P->fix[i].label, strlen(P->fix[i].label));
        if (!e || !e->sym.is_label) {
            P->t.line = (int)P->fix[i].line;
            parse_fail(P, "branch to undefined label %s", P->fix[i].label);
        } else {
            P->dc.mod->code[P->fix[i].insn].imm = (int64_t)e->sym.addr;
        }
        free(P->fix[i].label);
    }
    P->nfix = 0;
    return P->dc.err[0] ? -1 : 0;
}

/* Function @p s's address: FUNCTION_ADDRESS plus a 32-bit hash of its name (the same in every
 * unit, so a kernel launched from device code is found by it). */
uint64_t link_function_address(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return FUNCTION_ADDRESS | h;
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
void link_order_functions(struct parser *P)
{
    struct vm_module *m = P->dc.mod;
    uint32_t n = m->nfuncs ? m->nfuncs : 1, *index = emu_malloc(n * sizeof *index);
    struct func *sorted = emu_malloc(n * sizeof *sorted);
    m->func_at = emu_malloc((m->ncode ? m->ncode : 1) * sizeof *m->func_at);
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
            char *text = emu_malloc(strlen(P->calls[c].name) + 64);
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

/* A .version: the text of the next object of a -rdc link begins. The last one's module-local
 * names are forgotten, and its .file numbers kept apart. */
void link_begin_unit(struct parser *P)
{
    if (P->unit++ == 0)
        return;
    names_pop_scope(&P->names, 0, 1);
    P->file_base = P->dc.mod->nfiles;
}
