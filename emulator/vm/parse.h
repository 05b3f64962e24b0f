/**
 * @file parse.h
 * @brief Inside the PTX parser: its state, and what its files (parse.c: statements,
 *        functions and the module; link.c: names, labels, calls and units; vars.c: variables
 *        and the device memory they take; smem_plan.c: the module's .shared layout) share.
 */
#ifndef EMU_VM_PARSE_H
#define EMU_VM_PARSE_H

#include <stdint.h>

#include "decode_impl.h"
#include "lex.h"

/* What a module variable's initialiser holds for a function's address (a C++ vtable's entries):
 * a value no allocation has, and the one an indirect call looks for (func::address). */
#define FUNCTION_ADDRESS 0xF00C000000000000ull

/* ---- names: a hash table of scopes ---------------------------------------------------- */

struct entry {
    char *name;
    int depth; /* scope depth it was declared at */
    int is_reg;
    int lanes;  /* a vector register (.v2, .v4): its elements are the registers NAME.x, .y, ... */
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
    struct reg vec_imm[2 * VEC_MAX]; /* the instruction's integers in vectors, as registers */
    uint32_t nvec_imm;
    int dyn_used; /* the dynamic shared memory's place is fixed */
    /* per module */
    struct callfix *calls;
    uint32_t ncalls, capcalls;
    struct fdef *fdefs;     /* functions in parse order */
    struct smem_plan *plan; /* module-scope .shared variables' places (smem_plan.c) */
    uint32_t module_smem;   /* after the planned ones: a variable the plan missed */
    uint32_t unit;          /* texts begun (each .version begins one) */
    uint32_t file_base;     /* where this unit's .file numbers start in the module's table */
    int linkage;            /* the linkage word before this .entry / .func: 1 .visible, .weak */
};

/** A variable's declaration: ".space .align N .type name[count]". */
struct decl {
    enum space space;
    int align, bits;
    char kind;
    struct tok name;
    int64_t count; /* array elements, -1 scalar, 0 for [] (extern, unsized) */
    int is_extern;
    int is_visible; /* .visible, .weak or .common */
};

static inline uint32_t align_up(uint32_t x, uint32_t a)
{
    return a ? (x + a - 1) / a * a : x;
}

/* ---- parse.c ------------------------------------------------------------------------- */

/** Fail the parse with "ORIGIN: PTX line N: " and the message (the first failure stays);
 *  returns -1. */
int parse_fail(struct parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Move to the next token. */
void parse_next(struct parser *P);
/** Take punctuation @p ch, or fail. */
int parse_expect(struct parser *P, char ch);
/** Skip to the end of the statement (past its ';'). */
void parse_skip_statement(struct parser *P);
/** Take an integer token into *@p out, or fail. */
int parse_take_int(struct parser *P, int64_t *out);
/** The bits of a type directive (.u32, .f16, ...), its kind letter in *@p kind; 0 for none. */
int parse_type_of(const struct tok *t, char *kind);

/* ---- link.c: names, labels, calls and units ------------------------------------------- */

/** The entry named [@p s, @p s + @p n), or NULL. */
struct entry *names_lookup(struct names *N, const char *s, size_t n);
/** A new entry named [@p s, @p s + @p n) at scope @p depth, shadowing any of the same name. */
struct entry *names_declare(struct names *N, const char *s, size_t n, int depth);
/** Forget every name declared at @p depth or deeper (but linked ones with @p keep_linked). */
void names_pop_scope(struct names *N, int depth, int keep_linked);
/** Instruction @p insn branches to label @p name (dctx::link_label_ref). */
void link_label_ref(struct dctx *c, uint32_t insn, const char *name);
/** Instruction @p insn calls function @p name (dctx::callee). */
void link_callee_ref(struct dctx *c, uint32_t insn, const char *name);
/** The end of a { } block at depth P->depth whose branches are the fixups from @p first on:
 *  those that name a label of the block itself take its pc now (a label is visible in its
 *  block only: inline PTX repeats its labels, one per inlined copy, each in braces of its own);
 *  the others wait for an enclosing scope. */
void link_resolve_block_labels(struct parser *P, uint32_t first);
/** Fill in the function's branches to its labels; -1 after naming an undefined one. */
int link_resolve_labels(struct parser *P);
/** The address a function's name stands for as a value (FUNCTION_ADDRESS plus its hash). */
uint64_t link_function_address(const char *s, size_t n);
/** A new text (unit) begins: forget the last one's names that are not linked. */
void link_begin_unit(struct parser *P);
/** Kernels first, device functions after; calls name their callees by index. */
void link_order_functions(struct parser *P);

/* ---- vars.c: variables and their device memory ----------------------------------------- */

/** Plan the module-scope .shared variables of PTX text @p ptx (smem_plan.c) into P->plan. */
void smem_plan_make(struct parser *P, const char *ptx, size_t len);

/** 1 and the shared-memory offset planned for module-scope variable @p name of the current unit
 * in @p addr, or 0 when the plan has no such variable. */
int smem_plan_var(const struct parser *P, const struct tok *name, uint32_t *addr);

/** Where function @p name's own static shared memory begins: after the module variables it
 * uses (a kernel), after all of them (a .func). */
uint32_t smem_plan_base(const struct parser *P, const char *name);

void smem_plan_free(struct smem_plan *S);

/** Where the dynamic shared memory starts (dctx::vars_dyn_smem_base). */
uint64_t vars_dyn_smem_base(struct dctx *c);
/** Parse a declaration up to '=' or ';' into @p d. */
int decl_parse(struct parser *P, struct decl *d);
/** The bytes a declaration takes. */
uint64_t decl_bytes(const struct decl *d);
/** A module-scope .global, .const or .shared variable (allocated, initialised). */
int vars_module(struct parser *P);
/** A .shared, .local or .param variable inside a function body. */
int vars_body(struct parser *P);

#endif /* EMU_VM_PARSE_H */
