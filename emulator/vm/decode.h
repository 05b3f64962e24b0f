/**
 * @file decode.h
 * @brief What the parser (parse.c) hands the decoder (decode.c): declared
 *        names, parsed operands, and the state of the function being decoded.
 */
#ifndef EMU_DECODE_H
#define EMU_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "vm_impl.h"

/** A declared register (or a special register, or a constant materialised as one). */
struct reg {
    uint32_t off;  /**< arena offset */
    uint16_t slot; /**< SLOT_PRED, SLOT_32 or SLOT_64 */
    uint8_t bits;  /**< declared width: 1 (pred), 8, 16, 32, 64 */
    char kind;     /**< declared type: 'b' bits, 'u', 's', 'f', 'p' pred */
};

/** A named address: a variable, a parameter, a label or a function. */
struct sym {
    enum space space; /**< where it lives; SP_GENERIC for labels and functions */
    uint64_t addr;    /**< device address, window offset, parameter offset, pc or function */
    uint64_t size;    /**< bytes (0 when unknown) */
    int is_label, is_func, is_callparam;
};

/** Operand kinds, as written in the PTX text. */
enum okind {
    OK_REG,  /**< %r1 (also %tid.x) */
    OK_VEC,  /**< {%r1, %r2, ...}; an entry may be NULL for the sink `_` */
    OK_IMM,  /**< an integer literal */
    OK_FIMM, /**< 0fXXXXXXXX or 0dXXXXXXXXXXXXXXXX */
    OK_SYM,  /**< a bare name: label, variable, function */
    OK_ADDR, /**< [reg + disp], [sym + disp], [disp] */
    OK_SINK  /**< _ */
};

/** Most registers a vector operand holds (a wgmma accumulator of m64n256 in f32 has 128). */
#define VEC_MAX 128
/** Operands of one instruction, a call's parenthesised lists flattened among them. */
#define OPS_MAX 32

/** One operand. */
struct operand {
    enum okind kind;
    const struct reg *reg;  /**< OK_REG; OK_ADDR's base register or NULL */
    const struct reg *reg2; /**< the second destination after '|' (setp p|q), or NULL */
    const struct reg *vec[VEC_MAX];
    int nvec;
    int64_t imm;           /**< OK_IMM; OK_ADDR's displacement */
    uint64_t fbits;        /**< OK_FIMM's bits */
    int fsize;             /**< OK_FIMM: 4 or 8 */
    const struct sym *sym; /**< OK_SYM, or OK_ADDR's symbol (NULL when absent) */
    const char *name;      /**< OK_SYM's spelling, for labels not yet defined */
    int negated;           /**< written !p */
    int minus;             /**< a register written -%r (vmad's sources) */
    int paren;             /**< call operands: 1 + index of the ( ) list it was in, else 0 */
    char sel[8];           /**< a video instruction's selector or mask after a register ("b3210" of
                                %r1.b3210, "h10"), or "" */
};

/** The decoder's view of the function being built. */
struct dctx {
    struct vm_module *mod;
    struct func *fn;
    char *err; /**< first error, one line */
    size_t err_size;
    uint32_t loc;     /**< current line-table index */
    const char *text; /**< the instruction's text, for unsupported messages */
    size_t text_len;
    uint32_t guard; /**< the instruction's guard, or NO_REG */
    int neg_guard;
    uint32_t start; /**< index of the instruction being decoded */
    uint32_t cap_code, cap_texts;
    /* Provided by parse.c for the decoder: */
    uint32_t (*constant)(struct dctx *c, uint64_t value, int slot);
    void (*label_ref)(struct dctx *c, uint32_t insn, const char *name);
    void (*callee)(struct dctx *c, uint32_t insn, const char *name);
    uint64_t (*dyn_smem_base)(struct dctx *c);
    void *parser; /**< parse.c's own state */
};

/**
 * Decode one instruction: mnemonic @p mn (e.g. "ld.global.v4.f32"), optional
 * guard @p guard (negated when @p neg_guard), operands @p ops. Appends to the
 * module's code. An instruction it cannot execute becomes OP_UNSUPPORTED
 * (and returns 0); only a malformed one returns -1 with c->err set.
 */
int decode_insn(struct dctx *c, const char *mn, const struct reg *guard, int neg_guard,
                struct operand *ops, int nops);

/** Append @p n words to the module's operand pool; returns the index of the first. */
uint32_t decode_pool(struct vm_module *m, const uint32_t *words, uint32_t n);

#endif /* EMU_DECODE_H */
