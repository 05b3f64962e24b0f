/*
 * opcodes.h: every opcode the VM executes, one row each, in families.
 *
 * OP(NAME, CLASS, "ptx spelling"): the handler is h_NAME (in the family's
 * file), CLASS is its vm_class for the counters. The comment above a row is
 * that opcode's manual: operands as decoded into struct insn (o[0] first),
 * what it computes, and the PTX ISA section (numbers of PTX ISA 9.0).
 * Decoding (decode.c) picks the row from the mnemonic, type and modifiers.
 * Included with OP defined; no include guard on purpose.
 */

/* ---- integer and logic (ops_int.c) ------------------------------------------------ */

/* add.{s,u}16 d, a, b: d = (a + b) mod 2^16. [9.7.1.1] */
OP(ADD_I16, VM_CLASS_INT, "add.u16")
/* add.{s,u}32 d, a, b: d = (a + b) mod 2^32. [9.7.1.1] */
OP(ADD_I32, VM_CLASS_INT, "add.u32")
/* add.sat.s32 d, a, b: the sum clamped to [INT32_MIN, INT32_MAX]. [9.7.1.1] */
OP(ADD_SAT_S32, VM_CLASS_INT, "add.sat.s32")
/* add.{s,u}64 d, a, b: d = (a + b) mod 2^64. [9.7.1.1] */
OP(ADD_I64, VM_CLASS_INT, "add.u64")
/* sub.{s,u}16 d, a, b: d = (a - b) mod 2^16. [9.7.1.2] */
OP(SUB_I16, VM_CLASS_INT, "sub.u16")
/* sub.{s,u}32 d, a, b: d = (a - b) mod 2^32. [9.7.1.2] */
OP(SUB_I32, VM_CLASS_INT, "sub.u32")
/* sub.sat.s32 d, a, b: the difference clamped to the s32 range. [9.7.1.2] */
OP(SUB_SAT_S32, VM_CLASS_INT, "sub.sat.s32")
/* sub.{s,u}64 d, a, b: d = (a - b) mod 2^64. [9.7.1.2] */
OP(SUB_I64, VM_CLASS_INT, "sub.u64")
/* mul.lo.{s,u}16 d, a, b: the low 16 bits of a * b. [9.7.1.3] */
OP(MUL_LO_I16, VM_CLASS_INT, "mul.lo.u16")
/* mul.lo.{s,u}32 d, a, b: the low 32 bits of a * b. [9.7.1.3] */
OP(MUL_LO_I32, VM_CLASS_INT, "mul.lo.u32")
/* mul.lo.{s,u}64 d, a, b: the low 64 bits of a * b. [9.7.1.3] */
OP(MUL_LO_I64, VM_CLASS_INT, "mul.lo.u64")
/* mul.hi.s32 d, a, b: the high 32 bits of the signed 64-bit product. [9.7.1.3] */
OP(MUL_HI_S32, VM_CLASS_INT, "mul.hi.s32")
/* mul.hi.u32 d, a, b: the high 32 bits of the unsigned 64-bit product. [9.7.1.3] */
OP(MUL_HI_U32, VM_CLASS_INT, "mul.hi.u32")
/* mul.hi.s64 d, a, b: the high 64 bits of the signed 128-bit product. [9.7.1.3] */
OP(MUL_HI_S64, VM_CLASS_INT, "mul.hi.s64")
/* mul.hi.u64 d, a, b: the high 64 bits of the unsigned 128-bit product. [9.7.1.3] */
OP(MUL_HI_U64, VM_CLASS_INT, "mul.hi.u64")
/* mul.wide.s16 d(32), a, b: the full signed 32-bit product. [9.7.1.3] */
OP(MUL_WIDE_S16, VM_CLASS_INT, "mul.wide.s16")
/* mul.wide.u16 d(32), a, b: the full unsigned 32-bit product. [9.7.1.3] */
OP(MUL_WIDE_U16, VM_CLASS_INT, "mul.wide.u16")
/* mul.wide.s32 d(64), a, b: the full signed 64-bit product. [9.7.1.3] */
OP(MUL_WIDE_S32, VM_CLASS_INT, "mul.wide.s32")
/* mul.wide.u32 d(64), a, b: the full unsigned 64-bit product. [9.7.1.3] */
OP(MUL_WIDE_U32, VM_CLASS_INT, "mul.wide.u32")
/* mad.lo.{s,u}32 d, a, b, c: d = low 32 bits of a * b, plus c. [9.7.1.4] */
OP(MAD_LO_I32, VM_CLASS_INT, "mad.lo.u32")
/* mad.lo.{s,u}64 d, a, b, c: d = low 64 bits of a * b, plus c. [9.7.1.4] */
OP(MAD_LO_I64, VM_CLASS_INT, "mad.lo.u64")
/* mad.hi.s32 d, a, b, c: d = high 32 bits of the signed product, plus c. [9.7.1.4] */
OP(MAD_HI_S32, VM_CLASS_INT, "mad.hi.s32")
/* mad.hi.u32 d, a, b, c: d = high 32 bits of the unsigned product, plus c. [9.7.1.4] */
OP(MAD_HI_U32, VM_CLASS_INT, "mad.hi.u32")
/* mad.wide.s32 d(64), a, b, c(64): d = a * b (signed, full) + c. [9.7.1.4] */
OP(MAD_WIDE_S32, VM_CLASS_INT, "mad.wide.s32")
/* mad.wide.u32 d(64), a, b, c(64): d = a * b (unsigned, full) + c. [9.7.1.4] */
OP(MAD_WIDE_U32, VM_CLASS_INT, "mad.wide.u32")
/* mul24.lo.{s,u}32 d, a, b: low 32 bits of the product of a and b's low 24 bits. [9.7.1.5] */
OP(MUL24_LO_S32, VM_CLASS_INT, "mul24.lo.s32")
OP(MUL24_LO_U32, VM_CLASS_INT, "mul24.lo.u32")
/* mad24.lo.{s,u}32 d, a, b, c: mul24.lo plus c. [9.7.1.6] */
OP(MAD24_LO_S32, VM_CLASS_INT, "mad24.lo.s32")
OP(MAD24_LO_U32, VM_CLASS_INT, "mad24.lo.u32")
/* sad.{s,u}32 d, a, b, c: d = |a - b| + c. [9.7.1.7] */
OP(SAD_S32, VM_CLASS_INT, "sad.s32")
OP(SAD_U32, VM_CLASS_INT, "sad.u32")
/* div.s32 d, a, b: truncating quotient; b == 0 gives -1 (the result is unspecified). [9.7.1.8] */
OP(DIV_S32, VM_CLASS_INT, "div.s32")
/* div.u32 d, a, b: quotient; b == 0 gives 0xFFFFFFFF (unspecified). [9.7.1.8] */
OP(DIV_U32, VM_CLASS_INT, "div.u32")
/* div.s64, div.u64: as the 32-bit forms. [9.7.1.8] */
OP(DIV_S64, VM_CLASS_INT, "div.s64")
OP(DIV_U64, VM_CLASS_INT, "div.u64")
/* rem.s32 d, a, b: remainder with the sign of a; b == 0 gives a (unspecified). [9.7.1.9] */
OP(REM_S32, VM_CLASS_INT, "rem.s32")
/* rem.u32, rem.s64, rem.u64: as rem.s32. [9.7.1.9] */
OP(REM_U32, VM_CLASS_INT, "rem.u32")
OP(REM_S64, VM_CLASS_INT, "rem.s64")
OP(REM_U64, VM_CLASS_INT, "rem.u64")
/* abs.s32 d, a: |a| (INT32_MIN stays INT32_MIN). [9.7.1.10] */
OP(ABS_S32, VM_CLASS_INT, "abs.s32")
OP(ABS_S64, VM_CLASS_INT, "abs.s64")
/* neg.s32 d, a: -a modulo 2^32. [9.7.1.11] */
OP(NEG_S32, VM_CLASS_INT, "neg.s32")
OP(NEG_S64, VM_CLASS_INT, "neg.s64")
/* min/max.{s,u}{32,64} d, a, b: the smaller / larger as signed or unsigned. [9.7.1.12-13] */
OP(MIN_S32, VM_CLASS_INT, "min.s32")
OP(MIN_U32, VM_CLASS_INT, "min.u32")
OP(MIN_S64, VM_CLASS_INT, "min.s64")
OP(MIN_U64, VM_CLASS_INT, "min.u64")
OP(MAX_S32, VM_CLASS_INT, "max.s32")
OP(MAX_U32, VM_CLASS_INT, "max.u32")
OP(MAX_S64, VM_CLASS_INT, "max.s64")
OP(MAX_U64, VM_CLASS_INT, "max.u64")
/* div, rem, min, max on .s16/.u16: as the 32-bit forms on the low 16 bits. [9.7.1.8-13] */
OP(DIV_S16, VM_CLASS_INT, "div.s16")
OP(DIV_U16, VM_CLASS_INT, "div.u16")
OP(REM_S16, VM_CLASS_INT, "rem.s16")
OP(REM_U16, VM_CLASS_INT, "rem.u16")
OP(MIN_S16, VM_CLASS_INT, "min.s16")
OP(MIN_U16, VM_CLASS_INT, "min.u16")
OP(MAX_S16, VM_CLASS_INT, "max.s16")
OP(MAX_U16, VM_CLASS_INT, "max.u16")
/* abs.s16, neg.s16 d, a: as the 32-bit forms on the low 16 bits (-32768 stays). [9.7.1.10-11] */
OP(ABS_S16, VM_CLASS_INT, "abs.s16")
OP(NEG_S16, VM_CLASS_INT, "neg.s16")
/* min/max.relu.s32 d, a, b: min/max.s32, then a negative result is 0. [9.7.1.12-13] */
OP(MIN_RELU_S32, VM_CLASS_INT, "min.relu.s32")
OP(MAX_RELU_S32, VM_CLASS_INT, "max.relu.s32")
/* add.{s,u}16x2 d, a, b: each half-word (a[0:15], a[16:31]) added modulo 2^16. [9.7.1.1] */
OP(ADD_I16X2, VM_CLASS_INT, "add.u16x2")
/* min/max{.relu}.s16x2, min/max.u16x2 d, a, b: the smaller / larger of each pair of half-words,
 * signed or unsigned; .relu (signed only) makes a negative half-word 0. [9.7.1.12-13] */
OP(MIN_S16X2, VM_CLASS_INT, "min.s16x2")
OP(MIN_U16X2, VM_CLASS_INT, "min.u16x2")
OP(MAX_S16X2, VM_CLASS_INT, "max.s16x2")
OP(MAX_U16X2, VM_CLASS_INT, "max.u16x2")
OP(MIN_RELU_S16X2, VM_CLASS_INT, "min.relu.s16x2")
OP(MAX_RELU_S16X2, VM_CLASS_INT, "max.relu.s16x2")
/* popc.b32 d(u32), a: number of set bits. popc.b64: of a 64-bit a. [9.7.1.14] */
OP(POPC_B32, VM_CLASS_INT, "popc.b32")
OP(POPC_B64, VM_CLASS_INT, "popc.b64")
/* clz.b32 d(u32), a: leading zeros (32 for 0). clz.b64: of a 64-bit a. [9.7.1.15] */
OP(CLZ_B32, VM_CLASS_INT, "clz.b32")
OP(CLZ_B64, VM_CLASS_INT, "clz.b64")
/* bfind.{u,s}32 d, a: position of the most significant non-sign bit, 0xFFFFFFFF if none;
 * mod 1 = .shiftamt (31 - position). [9.7.1.16] */
OP(BFIND_U32, VM_CLASS_INT, "bfind.u32")
OP(BFIND_S32, VM_CLASS_INT, "bfind.s32")
/* brev.b32 d, a: the bits of a reversed. [9.7.1.18] */
OP(BREV_B32, VM_CLASS_INT, "brev.b32")
OP(BREV_B64, VM_CLASS_INT, "brev.b64")
/* bfe.{u,s}32 d, a, b(pos), c(len): extract c bits of a from b, zero / sign extended. [9.7.1.19] */
OP(BFE_U32, VM_CLASS_INT, "bfe.u32")
OP(BFE_S32, VM_CLASS_INT, "bfe.s32")
OP(BFE_U64, VM_CLASS_INT, "bfe.u64")
OP(BFE_S64, VM_CLASS_INT, "bfe.s64")
/* bfi.b32 d, a, b, c(pos), o3(len): b with len bits at pos replaced by a's low bits. [9.7.1.20] */
OP(BFI_B32, VM_CLASS_INT, "bfi.b32")
OP(BFI_B64, VM_CLASS_INT, "bfi.b64")
/* bmsk.mode.b32 d, a(pos), b(width): a mask of b one bits from bit a; mod 1 = .wrap (a, b mod
 * 32), 0 = .clamp (a past 31 gives 0, b past 31 runs to bit 31). [9.7.1.21] */
OP(BMSK_B32, VM_CLASS_INT, "bmsk.b32")
/* and/or/xor.b{16,32,64} d, a, b and not.b* d, a: bitwise. [9.7.8.1-4] */
OP(AND_B32, VM_CLASS_INT, "and.b32")
OP(OR_B32, VM_CLASS_INT, "or.b32")
OP(XOR_B32, VM_CLASS_INT, "xor.b32")
OP(NOT_B32, VM_CLASS_INT, "not.b32")
OP(AND_B64, VM_CLASS_INT, "and.b64")
OP(OR_B64, VM_CLASS_INT, "or.b64")
OP(XOR_B64, VM_CLASS_INT, "xor.b64")
OP(NOT_B64, VM_CLASS_INT, "not.b64")
/* not.b16 d, a: the low 16 bits inverted. [9.7.8.4] */
OP(NOT_B16, VM_CLASS_INT, "not.b16")
/* cnot.b32 d, a: d = (a == 0). [9.7.8.5] */
OP(CNOT_B32, VM_CLASS_INT, "cnot.b32")
/* and/or/xor/not.pred d, a, b: lane masks combined. [9.7.8.1-4] */
OP(AND_PRED, VM_CLASS_INT, "and.pred")
OP(OR_PRED, VM_CLASS_INT, "or.pred")
OP(XOR_PRED, VM_CLASS_INT, "xor.pred")
OP(NOT_PRED, VM_CLASS_INT, "not.pred")
/* lop3.b32 d, a, b, c, imm(lut): any function of three inputs, by truth table. [9.7.8.6] */
OP(LOP3_B32, VM_CLASS_INT, "lop3.b32")
/* shl.b{16,32,64} d, a, b(u32): a << b, 0 when b >= width. [9.7.8.8] */
OP(SHL_B16, VM_CLASS_INT, "shl.b16")
OP(SHL_B32, VM_CLASS_INT, "shl.b32")
OP(SHL_B64, VM_CLASS_INT, "shl.b64")
/* shr.{u,b}{16,32,64} d, a, b: logical shift right (0 when b >= width). [9.7.8.9] */
OP(SHR_U16, VM_CLASS_INT, "shr.u16")
OP(SHR_U32, VM_CLASS_INT, "shr.u32")
OP(SHR_U64, VM_CLASS_INT, "shr.u64")
/* shr.s{16,32,64} d, a, b: arithmetic shift right (sign fill when b >= width). [9.7.8.9] */
OP(SHR_S16, VM_CLASS_INT, "shr.s16")
OP(SHR_S32, VM_CLASS_INT, "shr.s32")
OP(SHR_S64, VM_CLASS_INT, "shr.s64")
/* shf.{l,r}.{wrap,clamp}.b32 d, a(lo), b(hi), c(shift): funnel shift of b:a; mod bit 0 = r,
 * bit 1 = clamp. [9.7.8.7] */
OP(SHF_B32, VM_CLASS_INT, "shf.b32")
/* prmt.b32 d, a, b, c: byte permute of b:a by selector c; mod = mode (0 default,
 * 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16). [9.7.9.7] */
OP(PRMT_B32, VM_CLASS_INT, "prmt.b32")
/* dp4a.atype.btype d, a, b, c: c + the products of a's and b's bytes; dp2a.{lo,hi}: c + a's two
 * 16-bit halves times b's bytes 0 and 1 (lo) or 2 and 3 (hi); each signed or not by its type;
 * mod bit 0 a signed, bit 1 b signed, bits 2-3 0 dp4a, 1 dp2a.lo, 2 dp2a.hi. [9.7.1.23-24] */
OP(DP_B32, VM_CLASS_INT, "dp4a/dp2a")
/* fns.b32 d, mask, base, offset: the position of the offset-th set bit of mask from bit base,
 * upward (offset > 0) or downward (< 0); offset 0: base if its bit is set; else 0xffffffff.
 * [9.7.1.17] */
OP(FNS_B32, VM_CLASS_INT, "fns.b32")
/* Extended-precision arithmetic on the lane's carry flag (CC.CF, warp::carry): add.cc, addc{.cc},
 * sub.cc, subc{.cc} d, a, b and mad{.lo,.hi}.cc, madc{.lo,.hi}{.cc} d, a, b, c on 32-bit
 * ({.u32,.s32}) or 64-bit ({.u64,.s64}) values: d = a + b (+ CF), a + ~b + (subc: CF; sub.cc:
 * 1), or the low or high half of a * b (signed with .s) + c (+ CF), modulo 2^32 or 2^64; with
 * .cc, CF = the carry out (after a subtraction: 1 when nothing was borrowed, so that a chain of
 * them is the ISA's a - (b + borrow)). mod: CARRY_KIND (0 add, 1 sub, 2 mad.lo, 3 mad.hi),
 * CARRY_IN, CARRY_OUT, CARRY_SIGNED. [9.7.2] */
OP(CARRY_32, VM_CLASS_INT, "add.cc.u32")
OP(CARRY_64, VM_CLASS_INT, "add.cc.u64")
/* vop.dtype.atype.btype{.sat}{.add,.min,.max} d{.dsel}, a{.asel}, b{.bsel}{, c} (vop: vadd,
 * vsub, vabsdiff, vmin, vmax; vset.atype.btype.cmp): one word, byte or half-word of each
 * source, extended by its type; .sat clamps to d's type (or to the part .dsel merges); then
 * .add, .min or .max with c (extended by d's type), or the result's low part merged into c at
 * .dsel. mod and imm: VIDEO_* (vm_impl.h). [PTX ISA, scalar video instructions] */
OP(VOP1, VM_CLASS_INT, "vop")
/* vmad.dtype.atype.btype{.po}{.sat}{.shr7,.shr15} d, {-}a{.asel}, {-}b{.bsel}, {-}c: the
 * product of a's and b's parts, negated (-a or -b, not both) as ~p + 1, or plus -c (~c + 1), or
 * plus one (.po), plus c extended by the final sign (signed unless both types are unsigned and
 * nothing is negated), exactly in 128 bits; shifted right by 7 or 15 (arithmetic when signed),
 * clamped to 32 bits of the final sign with .sat. mod: VMAD_* (vm_impl.h).
 * [PTX ISA, scalar video instructions: vmad] */
OP(VMAD, VM_CLASS_INT, "vmad")
/* vop2.dtype.atype.btype{.sat,.add} d{.mask}, a{.asel}, b{.bsel}, c (vop2: vadd2, vsub2,
 * vavrg2, vabsdiff2, vmin2, vmax2; vset2.atype.btype.cmp): two half-words at once, each picked
 * from the four of b:a by its selector and extended by its operand's type; .sat clamps to a
 * half-word of d's type; the elements the mask names replace c's (merge) or, with .add, their
 * sum is added to c. mod and imm: VIDEO_* (vm_impl.h). [PTX ISA, SIMD video instructions] */
OP(VOP2, VM_CLASS_INT, "vop2")
/* vop4 (vadd4, ..., vset4): the same on four bytes, picked from the eight of b:a. [idem] */
OP(VOP4, VM_CLASS_INT, "vop4")
/* setp.cmp.{s,u}{16,32,64} p[|q], a, b[, c]: compare; mod = cmp | boolop << 8 | neg_c << 12;
 * with a boolop, p = cmp OP c and q = !cmp OP c. [9.7.5.2] */
OP(SETP_S16, VM_CLASS_INT, "setp.s16")
OP(SETP_U16, VM_CLASS_INT, "setp.u16")
OP(SETP_S32, VM_CLASS_INT, "setp.s32")
OP(SETP_U32, VM_CLASS_INT, "setp.u32")
OP(SETP_S64, VM_CLASS_INT, "setp.s64")
OP(SETP_U64, VM_CLASS_INT, "setp.u64")
/* set.cmp.u32.{s32,u32,f32} d, a, b: 0xFFFFFFFF when the compare holds, else 0;
 * set.cmp.f32.f32 gives 1.0f / 0.0f (mod bit 16). [9.7.5.1] */
OP(SET_S32, VM_CLASS_INT, "set.s32")
OP(SET_U32, VM_CLASS_INT, "set.u32")
OP(SET_F32, VM_CLASS_INT, "set.f32")
/* selp.b{32,64} d, a, b, c(pred): d = c ? a : b. [9.7.5.4] */
OP(SELP_32, VM_CLASS_INT, "selp.b32")
OP(SELP_64, VM_CLASS_INT, "selp.b64")
/* mov.b{16,32} d, a: copy. [9.7.9.1] */
OP(MOV_32, VM_CLASS_INT, "mov.b32")
/* mov.b64 d, a: copy. [9.7.9.1] */
OP(MOV_64, VM_CLASS_INT, "mov.b64")
/* mov.pred d, a: copy a lane mask. [9.7.9.1] */
OP(MOV_PRED, VM_CLASS_INT, "mov.pred")
/* mov.b32 d, {a, b}: d = b << 16 | a (16-bit halves, a lowest). [9.7.9.2] */
OP(PACK_32, VM_CLASS_INT, "mov.b32 {}")
/* mov.b64 d, {a, b}: d = b << 32 | a. [9.7.9.2] */
OP(PACK_64, VM_CLASS_INT, "mov.b64 {}")
/* mov.b32 {d0, d1}, a: d0 = low 16 bits, d1 = high 16 bits. [9.7.9.2] */
OP(UNPACK_32, VM_CLASS_INT, "mov.b32 {},")
/* mov.b64 {d0, d1}, a: d0 = low 32 bits, d1 = high 32 bits. [9.7.9.2] */
OP(UNPACK_64, VM_CLASS_INT, "mov.b64 {},")
/* mov.b64 {d0, d1, d2, d3}, a: four 16-bit pieces of a, lowest first. [9.7.9.2] */
OP(UNPACK_64_16, VM_CLASS_INT, "mov.b64 {,,,},")

/* ---- floating point (ops_float.c) -------------------------------------------------- */

/* add.rn.f32 d, a, b: IEEE sum, round to nearest even. [9.7.3.1] */
OP(ADD_F32, VM_CLASS_FP, "add.f32")
/* sub.rn.f32 d, a, b. [9.7.3.2] */
OP(SUB_F32, VM_CLASS_FP, "sub.f32")
/* mul.rn.f32 d, a, b. [9.7.3.3] */
OP(MUL_F32, VM_CLASS_FP, "mul.f32")
/* fma.rn.f32 d, a, b, c: a * b + c rounded once (mad.rn.f32 is the same). [9.7.3.4] */
OP(FMA_F32, VM_CLASS_FMA32, "fma.rn.f32")
/* add/sub/mul/fma.f32 with .rz/.rm/.rp, .ftz or .sat: mod = rnd | ftz << 4 | sat << 5;
 * width = 0 add, 1 sub, 2 mul, 3 fma. [9.7.3.1-4] */
OP(ARITH_F32_X, VM_CLASS_FP, "arith.f32")
/* div.rn.f32 d, a, b: IEEE quotient (div.full and div.approx compute the same, within
 * their 2-ulp bound); mod as ARITH_F32_X. [9.7.3.6] */
OP(DIV_F32, VM_CLASS_FP, "div.rn.f32")
/* abs.f32 / neg.f32 d, a: clear / flip the sign bit (NaN payloads kept). [9.7.3.7-8] */
OP(ABS_F32, VM_CLASS_FP, "abs.f32")
OP(NEG_F32, VM_CLASS_FP, "neg.f32")
/* min.f32 / max.f32 d, a, b: a NaN operand yields the other; -0 < +0; .NaN: either NaN gives
 * the canonical NaN; .xorsign.abs: the magnitudes compared, the xor of the signs (mod's
 * MINMAX_NAN, MINMAX_XORSIGN; the 16-bit forms' too). [9.7.3.9-10] */
OP(MIN_F32, VM_CLASS_FP, "min.f32")
OP(MAX_F32, VM_CLASS_FP, "max.f32")
/* rcp.rn.f32 d, a: 1 / a rounded (rcp.approx within 1 ulp: the same). [9.7.3.11] */
OP(RCP_F32, VM_CLASS_FP, "rcp.rn.f32")
/* sqrt.rn.f32 d, a: IEEE square root (sqrt.approx: the same). [9.7.3.13] */
OP(SQRT_F32, VM_CLASS_FP, "sqrt.rn.f32")
/* rsqrt.approx.f32 d, a: 1 / sqrt(a), well inside the 2-ulp bound. [9.7.3.14] */
OP(RSQRT_F32, VM_CLASS_FP, "rsqrt.approx.f32")
/* sin/cos.approx.f32 d, a: within the ISA's absolute error bound. [9.7.3.16-17] */
OP(SIN_F32, VM_CLASS_FP, "sin.approx.f32")
OP(COS_F32, VM_CLASS_FP, "cos.approx.f32")
/* lg2.approx.f32 d, a: log2(a). ex2.approx.f32 d, a: 2^a. mod bit 4 = .ftz. [9.7.3.18-19] */
OP(LG2_F32, VM_CLASS_FP, "lg2.approx.f32")
OP(EX2_F32, VM_CLASS_FP, "ex2.approx.f32")
/* tanh.approx.f32 d, a. [9.7.3.20] */
OP(TANH_F32, VM_CLASS_FP, "tanh.approx.f32")
/* ex2.approx and tanh.approx on f16, bf16, f16x2 and bf16x2 (sm_75, sm_90). */
OP(APPROX_HALF, VM_CLASS_FP, "ex2/tanh.approx.f16")
/* copysign.f32 d, a, b: the magnitude of b with the sign of a. [9.7.3.5] */
OP(COPYSIGN_F32, VM_CLASS_FP, "copysign.f32")
/* copysign.f64 d, a, b: the same on 64 bits. [9.7.4.5] */
OP(COPYSIGN_F64, VM_CLASS_FP, "copysign.f64")
/* testp.op.f32 p, a: mod = 0 finite, 1 infinite, 2 number, 3 notanumber, 4 normal,
 * 5 subnormal. [9.7.3.21] */
OP(TESTP_F32, VM_CLASS_FP, "testp.f32")
/* setp.cmp.f32 p[|q], a, b[, c]: IEEE compare, the u-forms true on NaN; mod as SETP_S32. */
OP(SETP_F32, VM_CLASS_FP, "setp.f32")
/* add/sub/mul/fma.f64 and div/rcp/sqrt .rn.f64: IEEE double; width as ARITH_F32_X,
 * 4 div, 5 rcp, 6 sqrt; mod = rnd. [9.7.4] */
OP(ARITH_F64, VM_CLASS_FP, "arith.f64")
/* abs/neg/min/max.f64. [9.7.4] */
OP(ABS_F64, VM_CLASS_FP, "abs.f64")
OP(NEG_F64, VM_CLASS_FP, "neg.f64")
OP(MIN_F64, VM_CLASS_FP, "min.f64")
OP(MAX_F64, VM_CLASS_FP, "max.f64")
/* rsqrt.approx.f64 d, a. [9.7.4.9] */
OP(RSQRT_F64, VM_CLASS_FP, "rsqrt.approx.f64")
/* setp.cmp.f64 p[|q], a, b[, c]. [9.7.5.2] */
OP(SETP_F64, VM_CLASS_FP, "setp.f64")
/* add/sub/mul/fma/min/max/neg/abs on .f16, .f16x2, .bf16, .bf16x2: computed exactly, rounded
 * once to the format (round to nearest even); width = 0 add, 1 sub, 2 mul, 3 fma, 4 min,
 * 5 max, 6 neg, 7 abs; mod bit 0 = bf16, bit 1 = x2 (two halves), bit 2 = .ftz,
 * bit 3 = .sat, bit 4 = .relu. [9.7.4.x half] */
OP(HALF_ARITH, VM_CLASS_FP, "arith.f16")
/* setp.cmp.{f16,bf16} p, a, b: compare as floats; mod as SETP_S32, bit 16 = bf16. */
OP(SETP_HALF, VM_CLASS_FP, "setp.f16")
OP(SET_HALF, VM_CLASS_FP, "set.f16")

/* ---- conversions (ops_cvt.c) -------------------------------------------------------- */

/* cvt.s64.s32 d, a: sign extension. [9.7.9.21] */
OP(CVT_S64_S32, VM_CLASS_INT, "cvt.s64.s32")
/* cvt.u64.u32 d, a: zero extension. [9.7.9.21] */
OP(CVT_U64_U32, VM_CLASS_INT, "cvt.u64.u32")
/* cvt.{u,s}32.{u,s}64 d, a: the low 32 bits. [9.7.9.21] */
OP(CVT_32_64, VM_CLASS_INT, "cvt.u32.u64")
/* cvt.f32.f16 d, a: exact widening of binary16. [9.7.9.21] */
OP(CVT_F32_F16, VM_CLASS_INT, "cvt.f32.f16")
/* cvt.rn.f16.f32 d, a: binary16, round to nearest even; NaN gives 0x7FFF. [9.7.9.21] */
OP(CVT_F16_F32, VM_CLASS_INT, "cvt.rn.f16.f32")
/* cvt.f32.bf16 d, a: exact widening of bfloat16. [9.7.9.21] */
OP(CVT_F32_BF16, VM_CLASS_INT, "cvt.f32.bf16")
/* cvt.rn.bf16.f32 d, a: bfloat16, round to nearest even; NaN gives 0x7FFF. [9.7.9.21] */
OP(CVT_BF16_F32, VM_CLASS_INT, "cvt.rn.bf16.f32")
/* cvt.rn.{f16x2,bf16x2}.f32 d, a, b: a and b rounded to nearest even and packed, a in the upper
 * half and b in the lower (__floats2half2_rn(lo, hi) passes hi as a); NaN gives 0x7FFF. width
 * = 1 for bf16x2. [9.7.9.21] */
OP(CVT_PACK16_F32, VM_CLASS_INT, "cvt.rn.f16x2.f32")
/* cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b and .f16x2 d, a (width 1): a (or a's
 * upper half) in d's upper byte, rounded to nearest even, beyond the largest finite value (448,
 * 57344) saturated to it, NaN to 0x7F, with .relu negatives to +0; mod = e5m2 | relu << 1.
 * [9.7.9.21] */
OP(CVT_FP8X2, VM_CLASS_INT, "cvt.rn.satfinite.e4m3x2.f32")
/* cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a: both bytes of a widened exactly to f16, the upper
 * byte to d's upper half; NaN gives 0x7FFF; mod as CVT_FP8X2. [9.7.9.21] */
OP(CVT_F16X2_FP8X2, VM_CLASS_INT, "cvt.rn.f16x2.e4m3x2")
/* cvt.rna.tf32.f32 d, a: a float whose low 13 mantissa bits are zero, rounded to nearest
 * with ties away (mod = rnd: .rn ties to even, .rz truncates). [9.7.9.21] */
OP(CVT_TF32_F32, VM_CLASS_INT, "cvt.rna.tf32.f32")
/* cvt.frnd.f32.{s,u}{32,64} and cvt.irnd.{s,u}{32,64}.f32 and every other pairing: the
 * general converter; mod = dtype | atype << 5 | rnd << 10 | sat << 14 | ftz << 15. [9.7.9.21] */
OP(CVT, VM_CLASS_INT, "cvt")
/* cvta.{shared,local,param}.u64 d, a: a window offset (for param, a kernel parameter's offset)
 * made a generic address; mod = space. The .to forms undo it; global and const are the
 * identity. [9.7.9.22] */
OP(CVTA_TO_GENERIC, VM_CLASS_INT, "cvta")
OP(CVTA_FROM_GENERIC, VM_CLASS_INT, "cvta.to")
/* isspacep.space p, a: is generic address a in that window. [9.7.9.23] */
OP(ISSPACEP, VM_CLASS_INT, "isspacep")

/* ---- memory (ops_mem.c) ------------------------------------------------------------ */

/* ld.global{.nc}{.v2,.v4}.type d, [a+imm]: o[1..4] the destinations, width = bytes per
 * element, mod = count | signed << 4 | dst64 << 5. Every lane's address must lie in a live
 * allocation and be aligned to width * count. [9.7.9.8] */
OP(LD_GLOBAL, VM_CLASS_LDG, "ld.global")
/* st.global{.v2,.v4}.type [a+imm], o[1..4]. [9.7.9.10] */
OP(ST_GLOBAL, VM_CLASS_STG, "st.global")
/* ld.shared / st.shared: a window offset checked against the block's shared memory. */
OP(LD_SHARED, VM_CLASS_LDS, "ld.shared")
OP(ST_SHARED, VM_CLASS_STS, "st.shared")
/* ld.local / st.local: an offset into the lane's own frame. */
OP(LD_LOCAL, VM_CLASS_OTHER, "ld.local")
OP(ST_LOCAL, VM_CLASS_OTHER, "st.local")
/* ld / st without a space: generic addresses, routed to global, shared or local. Every ld and
 * st may carry .relaxed, .acquire, .release or .volatile and a scope: the schedule is
 * sequentially consistent, so they are the plain ones. [9.7.9.8-10] */
OP(LD_GENERIC, VM_CLASS_LDG, "ld")
OP(ST_GENERIC, VM_CLASS_STG, "st")
/* ld.param d, [param+imm]: the kernel's argument buffer (the same for every lane). */
OP(LD_PARAM, VM_CLASS_OTHER, "ld.param")
/* ld.param / st.param on a call's parameters: the lane's own call frame. [9.7.9.8] */
OP(LD_CALLPARAM, VM_CLASS_OTHER, "ld.param (call)")
OP(ST_CALLPARAM, VM_CLASS_OTHER, "st.param (call)")
/* atom.space.op.type d, [a+imm], b[, c]: one lane at a time, in lane order; mod = op | type
 * << 4 | space << 9. red: the same with no d. 32- and 64-bit types; a cas whose compare fails
 * leaves memory as it was. [9.7.13.5-6] */
OP(ATOM, VM_CLASS_STG, "atom")
/* prefetch, nanosleep, discard, pmevent: nothing to do in a machine that runs one thread at a
 * time, each access complete when it returns. [9.7.13] */
OP(NOP, VM_CLASS_OTHER, "nop")
/* fence.{sc,acq_rel}.scope, membar.level: nothing to order here either, each access complete
 * when it returns; the global racecheck notes it (width 1: gpu or sys scope, 0: cta).
 * [9.7.13.4] */
OP(FENCE, VM_CLASS_OTHER, "fence")
/* cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB} [o0+imm], [o1], width{, o2 =
 * src_size | o3 = ignore-src}{, cache-policy}: the global bytes are read now (src_size of them,
 * none where ignore-src is true; the rest are zeros), the shared ones written when a wait lands
 * the copy (ops_async.c). Counted as a global load and a shared store. [PTX ISA: cp.async] */
OP(CP_ASYNC, VM_CLASS_LDG, "cp.async")

/* ---- asynchronous copies' groups (ops_async.c) --------------------------------------- */

/* cp.async.commit_group: each lane's copies since its last commit become a group.
 * [PTX ISA: cp.async.commit_group] */
OP(CP_ASYNC_COMMIT, VM_CLASS_OTHER, "cp.async.commit_group")
/* cp.async.wait_group imm: the lane's committed groups but the newest imm land; width 1:
 * cp.async.wait_all, every copy lands. [PTX ISA: cp.async.wait_group] */
OP(CP_ASYNC_WAIT, VM_CLASS_OTHER, "cp.async.wait_group")

/* ---- mbarrier (ops_mbarrier.c) ------------------------------------------------------- */

/* mbarrier.init [o0+imm], o2: a fresh object, phase 0, o2 arrivals expected each phase;
 * mbarrier.inval [o0+imm] (o2 = NO_REG): no longer an object. mod = space << 9 as atom's.
 * [9.7.13.15.9-10] */
OP(MBAR_INIT, VM_CLASS_OTHER, "mbarrier.init")
/* mbarrier.arrive{_drop}{.expect_tx} o1, [o0+imm]{, o2}: o2 (or 1) arrivals, after adding o3
 * bytes (.expect_tx's operand; NO_REG: none) to the tx-count; the last of a phase starts the
 * next once its tx-count is zero too; o1 (or the sink, NO_REG) = the token. width 1: _drop,
 * also fewer expected in later phases. [9.7.13.15.12-13] */
OP(MBAR_ARRIVE, VM_CLASS_OTHER, "mbarrier.arrive")
/* mbarrier.{test,try}_wait{.parity} o1, [o0+imm], o2: predicate o1 = the phase of token o2
 * (width 1: of parity o2) is complete; never blocks (a false try_wait is a valid
 * answer). [9.7.13.15.16] */
OP(MBAR_WAIT, VM_CLASS_OTHER, "mbarrier.test_wait")
/* mbarrier.pending_count.b64 o1, o2: the arrivals token o2's arrive left pending. [9.7.13.15.17]
 */
OP(MBAR_PENDING, VM_CLASS_OTHER, "mbarrier.pending_count")
/* cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [o0+imm]: the lane's copies issued so far
 * land, then the object gets an arrival (width 1, .noinc); without .noinc the ISA adds one
 * pending arrival first, so the count is unchanged. mod as mbarrier's.
 * [PTX ISA: cp.async.mbarrier.arrive] */
OP(CP_ASYNC_MBAR, VM_CLASS_OTHER, "cp.async.mbarrier.arrive")
/* mbarrier.{expect,complete}_tx{.relaxed}{.scope}{.shared{::cta}}.b64 [o0+imm], o2: the
 * object's tx-count grows (expect, width 0) or shrinks (complete, width 1) by o2 bytes; a
 * phase completes when its pending arrivals and its tx-count are both zero. mod as
 * MBAR_INIT's. [PTX ISA: mbarrier.expect_tx, mbarrier.complete_tx] */
OP(MBAR_TX, VM_CLASS_OTHER, "mbarrier.expect_tx")

/* ---- bulk and tensor copies: the asynchronous proxy (ops_bulk.c) --------------------- */

/* Every copy runs when it is issued (a valid schedule), by each lane that executes it; its
 * operands are a struct bulk_ops (bulk.h) in the module's pool at o[5]. A copy into shared
 * memory completes its bytes on the mbarrier at once (complete_tx); the async-proxy checks
 * (checks_async.c) see its writes as landing only for threads that waited for that phase. */
/* cp.async.bulk.shared::cluster.{global,shared::cta}.mbarrier::complete_tx::bytes [dst],
 * [src], size, [mbar]: size bytes (a multiple of 16, both addresses 16-byte aligned) into the
 * block's shared memory; width 1: the source is shared memory too. [PTX ISA: cp.async.bulk] */
OP(BULK_COPY, VM_CLASS_OTHER, "cp.async.bulk")
/* cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size: shared to global; with
 * .op.type (cp.reduce.async.bulk, width = bytes per element, mod as ATOM_MOD) each element
 * is combined into global memory as red would. [PTX ISA: cp.async.bulk, cp.reduce.async.bulk] */
OP(BULK_STORE, VM_CLASS_OTHER, "cp.async.bulk.global")
/* cp.async.bulk.prefetch.L2.global [src], size: nothing to fetch into; the range must lie in
 * an allocation. [PTX ISA: cp.async.bulk.prefetch] */
OP(BULK_PREFETCH, VM_CLASS_OTHER, "cp.async.bulk.prefetch")
/* cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst],
 * [tmap, {c0..}], [mbar]: the box of the tensor map (common/tmap.h) whose first element is at
 * the signed coordinates, out-of-bounds elements 0 (or NaN), packed innermost first, every
 * 16-byte chunk at its address with bits 4.. XORed with bits 7.. (the swizzle's 1, 2 or 3
 * bits); completes the box's bytes on the mbarrier. [PTX ISA: cp.async.bulk.tensor, Tensor
 * Access Modes: tile, Tensor-map swizzling] */
OP(TMA_LOAD, VM_CLASS_OTHER, "cp.async.bulk.tensor")
/* cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group [tmap, {c0..}], [src]: the box
 * from shared memory (unswizzled as the load swizzles) to its in-bounds elements; mod != 0:
 * cp.reduce.async.bulk.tensor, ATOM_MOD's op combining each element (the map's type).
 * [PTX ISA: cp.async.bulk.tensor, cp.reduce.async.bulk.tensor] */
OP(TMA_STORE, VM_CLASS_OTHER, "cp.async.bulk.tensor.global")
/* cp.async.bulk.prefetch.tensor.Nd.L2.global.tile [tmap, {c0..}]: the map is checked, nothing
 * fetched. [PTX ISA: cp.async.bulk.prefetch.tensor] */
OP(TMA_PREFETCH, VM_CLASS_OTHER, "cp.async.bulk.prefetch.tensor")
/* fence.proxy.async{.shared::cta,.shared::cluster,.global}: orders the thread's generic-proxy
 * accesses before its (and, after a barrier, others') async-proxy ones; executes as nothing,
 * but the async-proxy check notes it. [PTX ISA: membar / fence, proxy fences] */
OP(FENCE_PROXY_ASYNC, VM_CLASS_OTHER, "fence.proxy.async")
/* tensormap.replace.tile.FIELD{.space}.b1024.TYPE [map], {ord,} value: one field of the
 * tensor map (common/tmap.h) in global (width 0) or shared (width 1) memory, written as a
 * generic store would: mod TMAP_FIELD_ADDRESS (the global address), TMAP_FIELD_DIM (extent ord)
 * or TMAP_FIELD_STRIDE (the byte stride of dimension ord + 1); operands a struct bulk_ops at
 * o[5]. [PTX ISA: tensormap.replace] */
OP(TMAP_REPLACE, VM_CLASS_OTHER, "tensormap.replace")
/* tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned
 * [dst], [src], 128: the warp copies a tensor map from shared to global memory, as generic
 * loads and stores would (the tensormap proxy's fence orders nothing in an in-order machine);
 * operands a struct bulk_ops at o[5]. [PTX ISA: tensormap.cp_fenceproxy] */
OP(TMAP_COPY, VM_CLASS_OTHER, "tensormap.cp_fenceproxy")

/* ---- textures and surfaces (ops_tex.c) --------------------------------------------- */

/* tex.geom.v4.dtype.ctype {d0..d3}, [handle, {c}]: a texture object's fetch (its descriptor,
 * vm/tex.h), pool at o[5] = d0..d3 then c0..c3; nearest or linear filtering (8 fractional
 * bits of weight), the four address modes, normalized coordinates and reads, layers and
 * cubemap faces. [PTX ISA, Texture Instructions: tex] */
OP(TEX, VM_CLASS_OTHER, "tex")
/* tld4.comp.2d.v4.dtype.f32 {d0..d3}, [handle, {x, y}]: tex2Dgather, component TEX_COMP of the
 * four texels linear filtering would blend, (i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j),
 * under the object's address modes. [PTX ISA, Texture Instructions: tld4] */
OP(TLD4, VM_CLASS_OTHER, "tld4")
/* suld.b.geom{.v2,.v4}.bN.{trap,clamp,zero} d, [handle, {x, y, z}]: x in bytes; width =
 * bytes per element; .trap faults out of range, .clamp reads the nearest element, .zero
 * reads 0. [Surface Instructions: suld] */
OP(SULD, VM_CLASS_OTHER, "suld.b")
/* sust.b.geom{.v2,.v4}.bN.{trap,clamp,zero} [handle, {x, y, z}], a: as suld; .zero drops an
 * out-of-range store. [Surface Instructions: sust] */
OP(SUST, VM_CLASS_OTHER, "sust.b")

/* ---- warp level (ops_warp.c) ----------------------------------------------------- */

/* shfl.sync.mode.b32 d[|p], a, b, c, mask: mod = 0 up, 1 down, 2 bfly, 3 idx. [9.7.9.6] */
OP(SHFL_SYNC, VM_CLASS_OTHER, "shfl.sync")
/* vote.sync.{all,any,uni}.pred d, a, mask and vote.sync.ballot.b32 d, a, mask: mod = mode.
 * [9.7.13.12] */
OP(VOTE_SYNC, VM_CLASS_OTHER, "vote.sync")
/* match.sync.{any,all}.b{32,64} d[|p], a, mask. [9.7.13.13] */
OP(MATCH_SYNC, VM_CLASS_OTHER, "match.sync")
/* redux.sync.op.{u32,s32,b32} d, a, mask: add, min, max, and, or, xor. [9.7.13.14] */
OP(REDUX_SYNC, VM_CLASS_OTHER, "redux.sync")
/* bar.warp.sync mask: the named lanes must all be here. [9.7.13.3] */
OP(BAR_WARP_SYNC, VM_CLASS_CONTROL, "bar.warp.sync")
/* activemask.b32 d: the lanes executing this instruction. [9.7.13.11] */
OP(ACTIVEMASK, VM_CLASS_OTHER, "activemask.b32")
/* elect.sync d|p, membermask: o0 (or NO_REG, the sink) = the lowest lane of the mask that
 * executes it, predicate o1 = 1 in that lane alone; o2 = the mask. [PTX ISA: elect.sync] */
OP(ELECT_SYNC, VM_CLASS_OTHER, "elect.sync")

/* ---- tensor cores (ops_tensor.c) ------------------------------------------------- */

/* wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type {frag}, [a], stride: the whole
 * warp loads a tile. Fragment layout (the emulator's own, self-consistent): element e of
 * the row-major m x k (a), k x n (b) or m x n (c) tile sits in lane e / per_lane, register
 * e % per_lane, packed two to a register for 16-bit types; f16 fragments repeat the tile
 * twice over the warp as on hardware. width = matrix | type << 2, mod = layout | shape << 1
 * | space << 4; the fragment registers are in the pool at imm. Alignment: the PTX ISA aligns
 * each row or column to one thread's fragment size (8 bytes for an s8 A tile, 32 for f16),
 * CUDA C++'s load_matrix_sync asks a 32-byte address and a 16-byte stride; GPUs run code
 * that keeps either, so the load (and wmma.store) faults only when it breaks both, and under
 * memcheck when it breaks the C++ rule. [9.7.14.4] */
OP(WMMA_LOAD, VM_CLASS_TENSOR, "wmma.load")
/* wmma.store.d.sync.aligned.layout.shape{.space}.type [a], {frag}, stride. [9.7.14.4] */
OP(WMMA_STORE, VM_CLASS_TENSOR, "wmma.store")
/* wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c: D = A * B + C with
 * exact products accumulated in fp32 in k order (tf32 inputs truncated to 10 mantissa
 * bits, as the hardware reads them); an f16 accumulator is rounded once per instruction, as
 * the cuBLAS stand-in's CUBLAS_COMPUTE_16F rounds once per 16 k values, so the two agree bit
 * for bit. [9.7.14.5] */
OP(WMMA_MMA, VM_CLASS_TENSOR, "wmma.mma")
/* mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype d, a, b, c: m16n8k16 and m16n8k8
 * with f16 (f16 or f32 accumulators) or bf16 inputs, m16n8k8 and m16n8k4 tf32, m16n8k32 and
 * m16n8k16 e4m3/e5m2 (f16 or f32 accumulators), in the register layouts the PTX ISA documents;
 * exact products summed in fp32 in k order, f16 results rounded once. Also
 * mma.sp{::ordered_metadata} d, a, b, c, e, f (mod's MMA_SPARSE_BIT): A sparse, its kept half
 * in a, the metadata register e in o[4], the selector f in imm. [PTX ISA: Matrix Fragments for
 * mma.m16n8k*; mma.sp] */
OP(MMA_SYNC, VM_CLASS_TENSOR, "mma.sync")
/* ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}{.shared{::cta}}.b16 {d}, [a]: lanes 8i .. 8i+7
 * supply the row addresses of matrix i (mod bit 1: generic addresses, which must point into
 * shared memory); each register gets the fragment the PTX ISA documents.
 * Counted as shared loads of 16-byte rows, 8 lanes a phase. [PTX ISA: ldmatrix] */
OP(LDMATRIX, VM_CLASS_TENSOR, "ldmatrix")
/* stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared{::cta}.b16 [a], {r}: ldmatrix's inverse
 * (sm_90). [PTX ISA: stmatrix] */
OP(STMATRIX, VM_CLASS_TENSOR, "stmatrix")
/* movmatrix.sync.aligned.m8n8.trans.b16 d, a: the 8 x 8 matrix of 16-bit elements the warp holds
 * in ldmatrix's fragment (lane l: row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1), transposed in
 * its registers. [PTX ISA: movmatrix] */
OP(MOVMATRIX, VM_CLASS_TENSOR, "movmatrix")

/* ---- warpgroups (ops_wgmma.c) and clusters (cluster.c): sm_90 ------------------------- */

/* wgmma.fence.sync.aligned: orders the warpgroup's register accesses before its wgmma; every
 * thread of the warpgroup executes it, as every instruction below. [PTX ISA: wgmma.fence] */
OP(WGMMA_FENCE, VM_CLASS_TENSOR, "wgmma.fence")
/* wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype{.and.popc} d, a, b-desc,
 * scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a}{, imm-trans-b}}: D = A B + D (o2, scale-d,
 * false: D = A B) for a 64 x N x K tile (f16, bf16, tf32, e4m3/e5m2, s8/u8, b1), queued until a
 * wgmma.wait_group covers it; o0 = A's descriptor (NO_REG: A in registers), o1 = B's, pool at
 * o5 = {nd, na, d regs, a regs}; mod = WG_MOD (hopper.h).
 * [PTX ISA: wgmma.mma_async, Register Fragments and Shared Memory Matrix Layouts] */
OP(WGMMA_MMA, VM_CLASS_TENSOR, "wgmma.mma_async")
/* wgmma.commit_group.sync.aligned: the warp's uncommitted wgmma.mma_async become one group.
 * [PTX ISA: wgmma.commit_group] */
OP(WGMMA_COMMIT, VM_CLASS_TENSOR, "wgmma.commit_group")
/* wgmma.wait_group.sync.aligned imm: every group but the imm latest runs (ops_wgmma.c); a warp
 * that needs another warp's wgmma.mma_async waits here for it. [PTX ISA: wgmma.wait_group] */
OP(WGMMA_WAIT, VM_CLASS_TENSOR, "wgmma.wait_group")
/* setmaxnreg.{inc (width 1),dec}.sync.aligned.u32 imm: nothing to reallocate here; checks that
 * the warpgroup executes the same one and the count moves the named way. [PTX ISA: setmaxnreg] */
OP(SETMAXNREG, VM_CLASS_OTHER, "setmaxnreg")
/* barrier.cluster.arrive (width 0) / .wait (width 1){.sem}{.aligned}: the cluster's barrier
 * (every thread of its blocks that has not exited arrives; a wait keeps its lanes until their
 * phase completes). [PTX ISA: barrier.cluster] */
OP(BAR_CLUSTER, VM_CLASS_CONTROL, "barrier.cluster")
/* mapa{.shared::cluster}.{u32,u64} o0, o1, o2: the address in block rank o2 of the cluster of
 * shared address o1; width bit 0 = generic addresses, bit 1 = 64 bits. [PTX ISA: mapa] */
OP(MAPA, VM_CLASS_INT, "mapa")
/* getctarank{.shared::cluster}.u32 o0, o1: the rank of the block holding shared address o1;
 * width as MAPA's. [PTX ISA: getctarank] */
OP(GETCTARANK, VM_CLASS_INT, "getctarank")

/* ---- control (ops_ctrl.c) -------------------------------------------------------- */

/* bra{.uni} target: jump for the guarded lanes; imm = target pc. [9.7.12.2] */
OP(BRA, VM_CLASS_CONTROL, "bra")
/* exit, and ret from a kernel: the lanes finish. [9.7.12.8] */
OP(EXIT, VM_CLASS_CONTROL, "exit")
/* call{.uni} (ret), func, (args): copies each argument from the caller's call parameters to
 * the callee's, and jumps; imm = the callee; the pool at o[5] holds nargs, the arguments'
 * frame offsets, then the return value's (or NO_REG). Recursion runs: in a kernel that can
 * reach a function from itself (or makes an indirect call), every call saves the callee's
 * registers, call frame and local memory on the lane's stack and the return restores them;
 * each level counts 16 bytes plus the callee's local memory against cudaLimitStackSize, and a
 * deeper level fails the launch (stack overflow). A level's pointer to its own local memory
 * passed to a deeper level of the same function fails the call: every level shares one local
 * frame. [9.7.12.6] */
OP(CALL, VM_CLASS_CONTROL, "call")
/* ret from a device function: its return value copied to the caller's, back to the
 * instruction after the call. [9.7.12.7] */
OP(RET, VM_CLASS_CONTROL, "ret")
/* call (ret), %rd, (args), prototype: the call above through a function's address (a C++
 * virtual call); o[0] holds it, the pool at o[5] is the call's. Lanes bound for different
 * functions call them one after another. */
OP(CALL_IND, VM_CLASS_CONTROL, "call (indirect)")
/* call vprintf(fmt, args): formats like the device printf and hands the text to the
 * launch's print callback, lane by lane; imm and mod are the call-frame offsets of the two
 * arguments, o[0] the return value's (or NO_REG). */
OP(VPRINTF, VM_CLASS_CONTROL, "call vprintf")
/* call malloc(size) (new too): a block of the launch's device heap, or NULL when it is full;
 * imm is the call-frame offset of the size, o[0] the result's. */
OP(MALLOC, VM_CLASS_CONTROL, "call malloc")
/* call free(ptr) (delete too): NULL is a no-op; a pointer malloc did not return, or one freed
 * already, fails the launch. imm is the call-frame offset of the pointer. */
OP(FREE, VM_CLASS_CONTROL, "call free")
/* call __cudaCDP2*(args): a function of libcudadevrt that dynamic parallelism calls (cdp.c:
 * parameter buffer, device-side launch, streams, last error, malloc, free, memcpy); mod is
 * which, the pool at o[5] the call's (argument offsets, then the return value's). [CUDA
 * Programming Guide, "CUDA Dynamic Parallelism"] */
OP(CDP, VM_CLASS_CONTROL, "call __cudaCDP2")
/* call cudaGraphSetConditional(handle, value): a 32-bit store of value at the handle, which is
 * the device address where the runtime keeps the conditional node's value
 * (rt_graph_cond.c). imm and mod are the call-frame offsets of the handle and the value. */
OP(SET_COND, VM_CLASS_CONTROL, "call cudaGraphSetConditional")
/* trap / brkpt: the launch fails (__trap()). width 1: call __assertfail, whose message, file,
 * line and function are at the call-frame offsets in the pool at o[5]. [9.7.12.9] */
OP(TRAP, VM_CLASS_CONTROL, "trap")
/* bar.sync / barrier.sync a{, b}: wait until every live thread (or b threads) of the block
 * arrives at barrier a; bar.arrive arrives without waiting (width 1); bar.red.op: width 2,
 * mod = 0 popc, 1 and, 2 or (bit 4: c negated), reducing predicate c over the threads that
 * arrive into every one's d when the barrier opens (__syncthreads_count/and/or); mod's
 * BAR_UNALIGNED_BIT: barrier.* without .aligned. [9.7.13.1] */
OP(BAR_SYNC, VM_CLASS_CONTROL, "bar.sync")
/* mov d, %clock / %clock64 / %globaltimer: instructions issued so far in this launch (width
 * 1: a 64-bit d). */
OP(CLOCK, VM_CLASS_OTHER, "mov %clock")
/* An instruction the VM cannot run: executing it fails the launch naming it (imm = index
 * of its text). */
OP(UNSUPPORTED, VM_CLASS_OTHER, "unsupported")
