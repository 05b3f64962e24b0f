/**
 * @file decode_impl.h
 * @brief Helpers the decoder's files share: mnemonics, operands, emitting.
 */
#ifndef EMU_DECODE_IMPL_H
#define EMU_DECODE_IMPL_H

#include "decode.h"

/** Most modifiers a mnemonic carries. */
#define MN_MODS 16

/** A mnemonic split at its dots. */
struct mn {
    char buf[192]; /* Hopper's copies run past 100 characters */
    const char *base;
    const char *mods[MN_MODS];
    int nmods;
};

/** A type modifier: kind 'b' bits, 'u', 's', 'f', 'h' f16, 'H' f16x2, 'g' bf16,
 *  'G' bf16x2, 't' tf32, 'p' pred; and width in bits. */
struct mtype {
    char kind;
    int bits;
    const char *name;
};

/** 1 when modifier @p mod (without its dot) is present. */
int mn_has(const struct mn *m, const char *mod);
/** The type modifiers, in order; returns how many. */
int mn_types(const struct mn *m, struct mtype *types, int max);
/** Which of the @p n modifiers @p names is present (the last when several are), or -1. */
int mn_which(const struct mn *m, const char *const *names, int n);
/** The rounding modifier, or RND_NONE. */
enum rnd mn_rounding(const struct mn *m);
/** The state space a mnemonic names (.global, .shared, ...), SP_GENERIC when none. */
enum space mn_space(const struct mn *m);

/** Append a blank instruction (guard and line filled in) and return it. */
struct insn *dec_emit(struct dctx *c, enum op op);
/** Make the instruction being decoded an unsupported one that names @p why; returns -1. */
int dec_unsupported(struct dctx *c, const char *why);
/** dec_unsupported() with a formatted reason; returns -1. */
int dec_bad(struct dctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** A symbol's address in its space (the dynamic shared memory's place resolved). */
uint64_t dec_sym_addr(struct dctx *c, const struct sym *s);
/** The arena offset of source @p o read as a @p kind / @p bits value (immediates become
 *  constant registers). 0, or -1 after dec_unsupported(). */
int dec_src(struct dctx *c, const struct operand *o, char kind, int bits, uint32_t *off);
/** The arena offset of destination @p o, a register of @p bits (or the sink: NO_REG). */
int dec_dst(struct dctx *c, const struct operand *o, int bits, uint32_t *off);
/** dec_src() for @p n operands into in->o[at ..]. */
int dec_srcs(struct dctx *c, struct insn *in, int at, const struct operand *ops, int n, char kind,
             int bits);

/* The decoders, one per family of mnemonics (decode_ops.c, decode_mem.c, decode_ctrl.c,
 * decode_tex.c). */
int dec_arith(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_unary(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_logic(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_bits(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_dp(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_carry(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_shift(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_setp(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_selp(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_mov(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_cvt(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_cvta(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_ld(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_st(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_atom(struct dctx *c, const struct mn *m, struct operand *o, int n);
/** The enum ctype an atom, red or bulk reduction @p op (enum atom_op) on type @p t works in, or
 *  -1 where the PTX ISA has no such atomic: f16 and bf16 (and their pairs, f16x2 and bf16x2,
 *  whose bits are the two halves) for add, min and max; 16 bits for cas and exch only. */
int atom_ctype(const struct mtype *t, int op);
int dec_mbarrier(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_cp(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_bulk(struct dctx *c, const struct mn *m, struct operand *o, int n);      /* decode_bulk.c */
int dec_fence(struct dctx *c, const struct mn *m, struct operand *o, int n);     /* decode_bulk.c */
int dec_tensormap(struct dctx *c, const struct mn *m, struct operand *o, int n); /* decode_bulk.c */
int dec_nop(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_warp(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_wmma(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_mma(struct dctx *c, const struct mn *m, struct operand *o, int n);
/** The enum mma_type a type modifier names (f16, e4m3, s8, b1, ...), or -1 (decode_ctrl.c). */
int mma_type_of(const char *name);
/** Whether a, b, c and d of these types make an mma.sync (decode_ctrl.c), the rule wgmma's
 *  floating-point and integer forms follow too. */
int mma_types_ok(int at, int bt, int ct, int dt);
int dec_ldmatrix(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_movmatrix(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_bar(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_bra(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_call(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_ctrl(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_texture(struct dctx *c, const struct mn *m, struct operand *o, int n); /* decode_tex.c */
int dec_video(struct dctx *c, const struct mn *m, struct operand *o, int n);   /* decode_video.c */
int dec_vmad(struct dctx *c, const struct mn *m, struct operand *o, int n);    /* decode_video.c */
/* decode_hopper.c: sm_90's warpgroup and cluster instructions. */
int dec_wgmma(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_setmaxnreg(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_elect(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_mapa(struct dctx *c, const struct mn *m, struct operand *o, int n);
int dec_bar_cluster(struct dctx *c, const struct mn *m, struct operand *o, int n);

#endif /* EMU_DECODE_IMPL_H */
