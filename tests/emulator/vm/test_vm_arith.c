/**
 * @file test_vm_arith.c
 * @brief The PTX VM's arithmetic, logic and conversion instructions, one at a time, against
 *        what the host computes they should give, on inputs chosen for the edges.
 *
 * One file holds each case whole: the instruction's PTX (the tables below: inline-asm text,
 * %0 the result, %1 to %3 the inputs), its inputs and the host's reference. op_ptx() wraps an
 * instruction in a kernel that applies it to arrays, one element a thread, and the VM runs it
 * in this process (vm_case.h): no nvcc, no server, no GPU.
 *
 * Integer and logic results must match bit for bit; so must fp32 and fp64 arithmetic in every
 * rounding mode (a NaN must be a NaN), and the conversions (f16 and bf16 over every value and
 * every rounding boundary). Approximations must stay inside the error the PTX ISA allows.
 * This file is compiled with -frounding-math: its references change the host's rounding mode.
 *
 * A new instruction is a row of asm32 or asm64 and a row of a reference table (or a case of
 * its own, as prmt_bfe_bfi_by_hand's are).
 */
#define _GNU_SOURCE
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "course_test.h"
#include "fp.h"
#include "ref.h"
#include "vm_case.h"

enum { N = 2048 }; /* inputs per instruction */

/* ---- bits and inputs ------------------------------------------------------------------------ */

/* Kinds of input a test draws. */
enum input { IN_INT, IN_SMALL, IN_POSLEN, IN_NONZERO, IN_FLOAT, IN_HALF, IN_BF16 };

static const uint32_t int_edges[] = {
    0,           1,           2,           3,       0xFFFFFFFFu, 0xFFFFFFFEu,
    0x80000000u, 0x7FFFFFFFu, 0x80000001u, 0xFFFFu, 0x10000u,    0x00FFFFFFu,
    0xFF800000u, 31,          32,          33,      7,           0x12345678u};

static const uint32_t float_edges[] = {
    0x00000000u, 0x80000000u, 0x3F800000u, 0xBF800000u, 0x7F800000u, 0xFF800000u,
    0x7FC00000u, 0x00000001u, 0x807FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x3F000000u,
    0x40490FDBu, 0x4B000001u, 0x33800000u, 0x3F800001u, 0xC0000000u, 0x4EFFFFFFu};

/* One 32-bit input of kind @p k, for slot @p i (the first slots walk every pair of edges). */
static uint32_t input32(enum input k, int i, int operand)
{
    size_t ne = k == IN_FLOAT ? sizeof float_edges / 4 : sizeof int_edges / 4;
    const uint32_t *edges = k == IN_FLOAT ? float_edges : int_edges;
    uint64_t r = vm_case_rand();
    size_t e = operand == 0 ? (size_t)i % ne : (size_t)i / ne % ne;
    switch (k) {
    case IN_SMALL: /* shift amounts, bit positions and lengths: around the width */
        return (uint32_t)(r % 70);
    case IN_POSLEN: /* bfi's position and length, packed as len << 8 | pos */
        return (uint32_t)((r >> 8) % 40) << 8 | (uint32_t)(r % 40);
    case IN_HALF: /* f16 values of moderate size, so sums and products are exact in double */
        return (uint32_t)((r & 0x8000) | (0x2C00 + (r >> 20) % 0x2400));
    case IN_BF16:
        return (uint32_t)((r & 0x8000) | (0x3800 + (r >> 20) % 0xA00));
    case IN_NONZERO: {
        uint32_t v = (size_t)i < ne * ne ? edges[e] : (uint32_t)(r >> 16);
        return v ? v : 7;
    }
    case IN_FLOAT:
        if ((size_t)i < ne * ne)
            return edges[e];
        return (r & 1) ? f2u((float)((int64_t)(r >> 40) - (1 << 23)) / (float)(1 << (r >> 8 & 15)))
                       : (uint32_t)(r >> 16);
    default:
        return (size_t)i < ne * ne ? edges[e] : (uint32_t)(r >> 16);
    }
}

/* ---- running one instruction ---------------------------------------------------------------- */

/* An instruction as inline asm would hold it (%0 the result, %1 to %3 the inputs). */
struct op_asm {
    const char *op, *ptx;
};

/* The instructions, 32-bit and 64-bit. */
static const struct op_asm asm32[] = {
    {"popc.b32", "popc.b32 %0, %1;"},
    {"clz.b32", "clz.b32 %0, %1;"},
    {"brev.b32", "brev.b32 %0, %1;"},
    {"bfind.u32", "bfind.u32 %0, %1;"},
    {"bfind.s32", "bfind.s32 %0, %1;"},
    {"bfind.shiftamt.u32", "bfind.shiftamt.u32 %0, %1;"},
    {"not.b32", "not.b32 %0, %1;"},
    {"cnot.b32", "cnot.b32 %0, %1;"},
    {"abs.s32", "abs.s32 %0, %1;"},
    {"neg.s32", "neg.s32 %0, %1;"},
    {"add.s32", "add.s32 %0, %1, %2;"},
    {"add.sat.s32", "add.sat.s32 %0, %1, %2;"},
    {"sub.s32", "sub.s32 %0, %1, %2;"},
    {"sub.sat.s32", "sub.sat.s32 %0, %1, %2;"},
    {"mul.lo.s32", "mul.lo.s32 %0, %1, %2;"},
    {"mul.hi.s32", "mul.hi.s32 %0, %1, %2;"},
    {"mul.hi.u32", "mul.hi.u32 %0, %1, %2;"},
    {"mul24.lo.s32", "mul24.lo.s32 %0, %1, %2;"},
    {"mul24.lo.u32", "mul24.lo.u32 %0, %1, %2;"},
    {"div.s32", "div.s32 %0, %1, %2;"},
    {"div.u32", "div.u32 %0, %1, %2;"},
    {"rem.s32", "rem.s32 %0, %1, %2;"},
    {"rem.u32", "rem.u32 %0, %1, %2;"},
    {"min.s32", "min.s32 %0, %1, %2;"},
    {"min.u32", "min.u32 %0, %1, %2;"},
    {"max.s32", "max.s32 %0, %1, %2;"},
    {"max.u32", "max.u32 %0, %1, %2;"},
    {"and.b32", "and.b32 %0, %1, %2;"},
    {"or.b32", "or.b32 %0, %1, %2;"},
    {"xor.b32", "xor.b32 %0, %1, %2;"},
    {"shl.b32", "shl.b32 %0, %1, %2;"},
    {"shr.u32", "shr.u32 %0, %1, %2;"},
    {"shr.s32", "shr.s32 %0, %1, %2;"},
    {"setp.lt.s32", "{ .reg .pred p; setp.lt.s32 p, %1, %2; selp.u32 %0, 1, 0, p; }"},
    {"setp.lo.u32", "{ .reg .pred p; setp.lo.u32 p, %1, %2; selp.u32 %0, 1, 0, p; }"},
    {"setp.hs.u32", "{ .reg .pred p; setp.hs.u32 p, %1, %2; selp.u32 %0, 1, 0, p; }"},
    {"mad.lo.s32", "mad.lo.s32 %0, %1, %2, %3;"},
    {"mad.hi.s32", "mad.hi.s32 %0, %1, %2, %3;"},
    {"mad.hi.u32", "mad.hi.u32 %0, %1, %2, %3;"},
    {"mad24.lo.s32", "mad24.lo.s32 %0, %1, %2, %3;"},
    {"sad.u32", "sad.u32 %0, %1, %2, %3;"},
    {"sad.s32", "sad.s32 %0, %1, %2, %3;"},
    {"bfe.u32", "bfe.u32 %0, %1, %2, %3;"},
    {"bfe.s32", "bfe.s32 %0, %1, %2, %3;"},
    {"bfi.b32", "{ .reg .b32 pos, len; and.b32 pos, %3, 255; shr.u32 len, %3, 8; and.b32 len, len, "
                "255; bfi.b32 %0, %1, %2, pos, len; }"},
    {"prmt.b32", "prmt.b32 %0, %1, %2, %3;"},
    {"prmt.b32.f4e", "prmt.b32.f4e %0, %1, %2, %3;"},
    {"prmt.b32.b4e", "prmt.b32.b4e %0, %1, %2, %3;"},
    {"prmt.b32.rc8", "prmt.b32.rc8 %0, %1, %2, %3;"},
    {"prmt.b32.ecl", "prmt.b32.ecl %0, %1, %2, %3;"},
    {"prmt.b32.ecr", "prmt.b32.ecr %0, %1, %2, %3;"},
    {"prmt.b32.rc16", "prmt.b32.rc16 %0, %1, %2, %3;"},
    {"shf.l.wrap.b32", "shf.l.wrap.b32 %0, %1, %2, %3;"},
    {"shf.r.wrap.b32", "shf.r.wrap.b32 %0, %1, %2, %3;"},
    {"shf.l.clamp.b32", "shf.l.clamp.b32 %0, %1, %2, %3;"},
    {"shf.r.clamp.b32", "shf.r.clamp.b32 %0, %1, %2, %3;"},
    {"lop3.b32.xor3", "lop3.b32 %0, %1, %2, %3, 0x96;"},
    {"lop3.b32.maj", "lop3.b32 %0, %1, %2, %3, 0xE8;"},
    /* qualifiers apart from their opcode, as CUTLASS's mixed-input code writes them */
    {"lop3 .b32 spaced", "lop3 .b32 %0, %1, %2, %3, 0x96;"},
    /* a vector register: its elements by name and by colour, the whole as {x, y} */
    {"vector register", "{ .reg .v2 .u32 v; mov.v2.u32 v, {%1, %2}; xor.b32 v.g, v.y, %3;"
                        " add.u32 %0, v.r, v.y; }"},
    {"setp.ge.and.s32",
     "{ .reg .pred c, p, q; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.ge.and.s32 p|q, %1, %2, c; "
     "selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }"},
    {"setp.lt.xor.s32",
     "{ .reg .pred c, p, q; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.lt.xor.s32 p|q, %1, %2, !c; "
     "selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }"},
    {"set.gt.or.u32.s32",
     "{ .reg .pred c; setp.ne.u32 c, %3, 0; set.gt.or.u32.s32 %0, %1, %2, c; }"},
    {"set.lt.and.f32.u32",
     "{ .reg .pred c; setp.ne.u32 c, %3, 0; set.lt.and.f32.u32 %0, %1, %2, !c; }"},
    {"set.lt.f16x2.f16x2", "set.lt.f16x2.f16x2 %0, %1, %2;"},
    {"setp.le.and.f16x2",
     "{ .reg .pred c, p, q; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.le.and.f16x2 p|q, %1, %2, c; "
     "selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }"},
    {"set.geu.u32.f16",
     "{ .reg.b16 x, y; cvt.u16.u32 x, %1; cvt.u16.u32 y, %2; set.geu.u32.f16 %0, x, y; }"},
    {"set.ne.and.bf16x2.bf16x2",
     "{ .reg .pred c; setp.ne.u32 c, %3, 0; set.ne.and.bf16x2.bf16x2 %0, %1, %2, c; }"},
    {"tanh.approx.f16x2", "tanh.approx.f16x2 %0, %1;"},
    {"ex2.approx.ftz.bf16x2", "ex2.approx.ftz.bf16x2 %0, %1;"},
    {"tanh.approx.bf16",
     "{ .reg.b16 x, y; cvt.u16.u32 x, %1; tanh.approx.bf16 y, x; cvt.u32.u16 %0, y; }"},
    {"dp4a.s32.s32", "dp4a.s32.s32 %0, %1, %2, %3;"},
    {"dp4a.u32.s32", "dp4a.u32.s32 %0, %1, %2, %3;"},
    {"dp4a.u32.u32", "dp4a.u32.u32 %0, %1, %2, %3;"},
    {"dp2a.lo.s32.u32", "dp2a.lo.s32.u32 %0, %1, %2, %3;"},
    {"dp2a.hi.s32.s32", "dp2a.hi.s32.s32 %0, %1, %2, %3;"},
    {"fns.b32", "fns.b32 %0, %1, %2, %3;"},
    {"add.cc.u32+addc.u32", "{ .reg .b32 t; add.cc.u32 t, %1, %2; addc.u32 %0, %3, 0; }"},
    {"addc.cc.u32 chain",
     "{ .reg .b32 t, u; add.cc.u32 t, %1, %2; addc.cc.s32 u, %1, %3; addc.u32 %0, 0, 0; }"},
    {"sub.cc.u32+subc.u32", "{ .reg .b32 t; sub.cc.u32 t, %1, %2; subc.u32 %0, %3, 0; }"},
    {"subc.cc.u32 chain",
     "{ .reg .b32 t, u; sub.cc.u32 t, %1, %2; subc.cc.u32 u, %3, %1; subc.u32 %0, 0, 0; }"},
    {"mad.lo.cc.u32+madc.hi.u32",
     "{ .reg .b32 t; mad.lo.cc.u32 t, %1, %2, %3; madc.hi.u32 %0, %1, %2, 0; }"},
    {"madc.hi.cc.s32",
     "{ .reg .b32 t, u; add.cc.u32 t, %3, %3; madc.hi.cc.s32 t, %1, %2, %3; addc.u32 u, 0, 0;"
     " add.u32 %0, t, u; }"},
    {"madc.lo.u32", "{ .reg .b32 t; sub.cc.u32 t, %3, %1; madc.lo.u32 %0, %1, %2, %3; }"},
    {"@p add.cc.u32", "{ .reg .pred p; .reg .b32 t; setp.ne.u32 p, %3, 0; add.cc.u32 t, 1, 1;"
                      " @p add.cc.u32 t, %1, %2; addc.u32 %0, 0, 0; }"},
    {"add.cc.u32+subc.u32", "{ .reg .b32 t; add.cc.u32 t, %3, -1; subc.u32 %0, %1, %2; }"},
    {"sub.cc.u32+addc.u32", "{ .reg .b32 t; sub.cc.u32 t, %1, %2; addc.u32 %0, %3, 0; }"},
    {"add.rn.f32", "add.rn.f32 %0, %1, %2;"},
    {"sub.rn.f32", "sub.rn.f32 %0, %1, %2;"},
    {"mul.rn.f32", "mul.rn.f32 %0, %1, %2;"},
    {"fma.rn.f32", "fma.rn.f32 %0, %1, %2, %3;"},
    {"add.rz.f32", "add.rz.f32 %0, %1, %2;"},
    {"add.rm.f32", "add.rm.f32 %0, %1, %2;"},
    {"add.rp.f32", "add.rp.f32 %0, %1, %2;"},
    {"mul.rz.f32", "mul.rz.f32 %0, %1, %2;"},
    {"mul.rm.f32", "mul.rm.f32 %0, %1, %2;"},
    {"mul.rp.f32", "mul.rp.f32 %0, %1, %2;"},
    {"fma.rz.f32", "fma.rz.f32 %0, %1, %2, %3;"},
    {"fma.rm.f32", "fma.rm.f32 %0, %1, %2, %3;"},
    {"fma.rp.f32", "fma.rp.f32 %0, %1, %2, %3;"},
    {"div.rn.f32", "div.rn.f32 %0, %1, %2;"},
    {"div.rz.f32", "div.rz.f32 %0, %1, %2;"},
    {"sqrt.rn.f32", "sqrt.rn.f32 %0, %1;"},
    {"rcp.rn.f32", "rcp.rn.f32 %0, %1;"},
    {"min.f32", "min.f32 %0, %1, %2;"},
    {"max.f32", "max.f32 %0, %1, %2;"},
    {"min.NaN.f32", "min.NaN.f32 %0, %1, %2;"},
    {"max.NaN.f32", "max.NaN.f32 %0, %1, %2;"},
    {"min.xorsign.abs.f32", "min.xorsign.abs.f32 %0, %1, %2;"},
    {"max.NaN.xorsign.abs.f32", "max.NaN.xorsign.abs.f32 %0, %1, %2;"},
    {"max.NaN.f16x2", "max.NaN.f16x2 %0, %1, %2;"},
    {"cvt.rn.satfinite.e4m3x2.f32",
     "{ .reg .b16 h; cvt.rn.satfinite.e4m3x2.f32 h, %1, %2; cvt.u32.u16 %0, h; }"},
    {"cvt.rn.satfinite.relu.e5m2x2.f32",
     "{ .reg .b16 h; cvt.rn.satfinite.relu.e5m2x2.f32 h, %1, %2; cvt.u32.u16 %0, h; }"},
    {"cvt.rn.satfinite.e4m3x2.f16x2",
     "{ .reg .b16 h; cvt.rn.satfinite.e4m3x2.f16x2 h, %1; cvt.u32.u16 %0, h; }"},
    {"cvt.rn.satfinite.e5m2x2.f16x2",
     "{ .reg .b16 h; cvt.rn.satfinite.e5m2x2.f16x2 h, %1; cvt.u32.u16 %0, h; }"},
    {"cvt.rn.f16x2.e4m3x2", "{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.rn.f16x2.e4m3x2 %0, h; }"},
    {"cvt.rn.relu.f16x2.e5m2x2",
     "{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.rn.relu.f16x2.e5m2x2 %0, h; }"},
    {"min.xorsign.abs.bf16x2", "min.xorsign.abs.bf16x2 %0, %1, %2;"},
    {"abs.f32", "abs.f32 %0, %1;"},
    {"neg.f32", "neg.f32 %0, %1;"},
    {"add.ftz.f32", "add.ftz.f32 %0, %1, %2;"},
    {"mul.sat.f32", "mul.sat.f32 %0, %1, %2;"},
    {"copysign.f32", "copysign.f32 %0, %1, %2;"},
    {"ex2.approx.f32", "ex2.approx.f32 %0, %1;"},
    {"lg2.approx.f32", "lg2.approx.f32 %0, %1;"},
    {"sin.approx.f32", "sin.approx.f32 %0, %1;"},
    {"cos.approx.f32", "cos.approx.f32 %0, %1;"},
    {"rsqrt.approx.f32", "rsqrt.approx.f32 %0, %1;"},
    {"tanh.approx.f32", "tanh.approx.f32 %0, %1;"},
    {"ex2.approx.ftz.f32", "ex2.approx.ftz.f32 %0, %1;"},
    {"rcp.approx.f32", "rcp.approx.f32 %0, %1;"},
    {"rcp.approx.ftz.f32", "rcp.approx.ftz.f32 %0, %1;"},
    {"div.approx.f32", "div.approx.f32 %0, %1, %2;"},
    {"div.approx.ftz.f32", "div.approx.ftz.f32 %0, %1, %2;"},
    {"div.full.f32", "div.full.f32 %0, %1, %2;"},
    {"div.full.ftz.f32", "div.full.ftz.f32 %0, %1, %2;"},
    {"testp.finite.f32", "{ .reg .pred p; testp.finite.f32 p, %1; selp.u32 %0, 1, 0, p; }"},
    {"testp.subnormal.f32", "{ .reg .pred p; testp.subnormal.f32 p, %1; selp.u32 %0, 1, 0, p; }"},
    {"setp.ltu.f32", "{ .reg .pred p; setp.ltu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }"},
    {"setp.nan.f32", "{ .reg .pred p; setp.nan.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }"},
    {"setp.ne.f32", "{ .reg .pred p; setp.ne.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }"},
    {"cvt.rn.f16.f32", "{ .reg .b16 h; cvt.rn.f16.f32 h, %1; cvt.u32.u16 %0, h; }"},
    {"cvt.rz.f16.f32", "{ .reg .b16 h; cvt.rz.f16.f32 h, %1; cvt.u32.u16 %0, h; }"},
    {"cvt.rm.f16.f32", "{ .reg .b16 h; cvt.rm.f16.f32 h, %1; cvt.u32.u16 %0, h; }"},
    {"cvt.rp.f16.f32", "{ .reg .b16 h; cvt.rp.f16.f32 h, %1; cvt.u32.u16 %0, h; }"},
    {"cvt.f32.f16", "{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.f32.f16 %0, h; }"},
    {"cvt.rn.bf16.f32", "{ .reg .b16 h; cvt.rn.bf16.f32 h, %1; cvt.u32.u16 %0, h; }"},
    {"cvt.rn.f16x2.f32", "cvt.rn.f16x2.f32 %0, %1, %2;"},
    {"cvt.rn.bf16x2.f32", "cvt.rn.bf16x2.f32 %0, %1, %2;"},
    {"cvt.rz.bf16.f32", "{ .reg .b16 h; cvt.rz.bf16.f32 h, %1; cvt.u32.u16 %0, h; }"},
    {"cvt.f32.bf16", "{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.f32.bf16 %0, h; }"},
    {"cvt.rna.tf32.f32", "cvt.rna.tf32.f32 %0, %1;"},
    {"cvt.rzi.s32.f32", "cvt.rzi.s32.f32 %0, %1;"},
    {"cvt.rni.s32.f32", "cvt.rni.s32.f32 %0, %1;"},
    {"cvt.rmi.s32.f32", "cvt.rmi.s32.f32 %0, %1;"},
    {"cvt.rpi.s32.f32", "cvt.rpi.s32.f32 %0, %1;"},
    {"cvt.rzi.u32.f32", "cvt.rzi.u32.f32 %0, %1;"},
    {"cvt.rn.f32.s32", "cvt.rn.f32.s32 %0, %1;"},
    {"cvt.rz.f32.u32", "cvt.rz.f32.u32 %0, %1;"},
    {"cvt.rni.f32.f32", "cvt.rni.f32.f32 %0, %1;"},
    {"cvt.sat.s8.s32", "{ .reg .b16 h; cvt.sat.s8.s32 h, %1; cvt.s32.s8 %0, h; }"},
    {"cvt.u16.u32", "{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.u32.u16 %0, h; }"},
    {"add.rn.f16", "{ .reg .b16 x, y, z; cvt.u16.u32 x, %1; cvt.u16.u32 y, %2; add.rn.f16 z, x, y; "
                   "cvt.u32.u16 %0, z; }"},
    {"mul.rn.f16", "{ .reg .b16 x, y, z; cvt.u16.u32 x, %1; cvt.u16.u32 y, %2; mul.rn.f16 z, x, y; "
                   "cvt.u32.u16 %0, z; }"},
    {"fma.rn.f16", "{ .reg .b16 x, y, w, z; cvt.u16.u32 x, %1; cvt.u16.u32 y, %2; cvt.u16.u32 w, "
                   "%3; fma.rn.f16 z, x, y, w; cvt.u32.u16 %0, z; }"},
    {"fma.rn.bf16", "{ .reg .b16 x, y, w, z; cvt.u16.u32 x, %1; cvt.u16.u32 y, %2; cvt.u16.u32 w, "
                    "%3; fma.rn.bf16 z, x, y, w; cvt.u32.u16 %0, z; }"},
    {"add.rn.f16x2", "add.rn.f16x2 %0, %1, %2;"},
};

static const struct op_asm asm64[] = {
    {"add.s64", "add.s64 %0, %1, %2;"},
    {"sub.s64", "sub.s64 %0, %1, %2;"},
    {"mul.lo.s64", "mul.lo.s64 %0, %1, %2;"},
    {"mul.hi.u64", "mul.hi.u64 %0, %1, %2;"},
    {"mul.hi.s64", "mul.hi.s64 %0, %1, %2;"},
    {"div.s64", "div.s64 %0, %1, %2;"},
    {"div.u64", "div.u64 %0, %1, %2;"},
    {"rem.s64", "rem.s64 %0, %1, %2;"},
    {"rem.u64", "rem.u64 %0, %1, %2;"},
    {"min.s64", "min.s64 %0, %1, %2;"},
    {"max.u64", "max.u64 %0, %1, %2;"},
    {"shl.b64", "{ .reg .b32 s; cvt.u32.u64 s, %2; shl.b64 %0, %1, s; }"},
    {"shr.s64", "{ .reg .b32 s; cvt.u32.u64 s, %2; shr.s64 %0, %1, s; }"},
    {"shr.u64", "{ .reg .b32 s; cvt.u32.u64 s, %2; shr.u64 %0, %1, s; }"},
    {"brev.b64", "brev.b64 %0, %1;"},
    {"popc.b64", "{ .reg .b32 r; popc.b64 r, %1; cvt.u64.u32 %0, r; }"},
    {"clz.b64", "{ .reg .b32 r; clz.b64 r, %1; cvt.u64.u32 %0, r; }"},
    {"bfe.u64", "{ .reg .b32 p, l; cvt.u32.u64 p, %2; cvt.u32.u64 l, %3; bfe.u64 %0, %1, p, l; }"},
    {"bfe.s64", "{ .reg .b32 p, l; cvt.u32.u64 p, %2; cvt.u32.u64 l, %3; bfe.s64 %0, %1, p, l; }"},
    {"mul.wide.s32",
     "{ .reg .b32 x, y; cvt.u32.u64 x, %1; cvt.u32.u64 y, %2; mul.wide.s32 %0, x, y; }"},
    {"mul.wide.u32",
     "{ .reg .b32 x, y; cvt.u32.u64 x, %1; cvt.u32.u64 y, %2; mul.wide.u32 %0, x, y; }"},
    {"mad.wide.s32",
     "{ .reg .b32 x, y; cvt.u32.u64 x, %1; cvt.u32.u64 y, %2; mad.wide.s32 %0, x, y, %3; }"},
    {"cvt.s64.s32", "{ .reg .b32 x; cvt.u32.u64 x, %1; cvt.s64.s32 %0, x; }"},
    {"add.rn.f64", "add.rn.f64 %0, %1, %2;"},
    {"add.rm.f64", "add.rm.f64 %0, %1, %2;"},
    {"add.rp.f64", "add.rp.f64 %0, %1, %2;"},
    {"add.rz.f64", "add.rz.f64 %0, %1, %2;"},
    {"mul.rm.f64", "mul.rm.f64 %0, %1, %2;"},
    {"fma.rp.f64", "fma.rp.f64 %0, %1, %2, %3;"},
    {"div.rz.f64", "div.rz.f64 %0, %1, %2;"},
    {"sqrt.rm.f64", "sqrt.rm.f64 %0, %1;"},
    {"mul.rn.f64", "mul.rn.f64 %0, %1, %2;"},
    {"fma.rn.f64", "fma.rn.f64 %0, %1, %2, %3;"},
    {"div.rn.f64", "div.rn.f64 %0, %1, %2;"},
    {"sqrt.rn.f64", "sqrt.rn.f64 %0, %1;"},
    {"min.f64", "min.f64 %0, %1, %2;"},
    {"cvt.rn.f32.f64",
     "{ .reg .f32 f; .reg .b32 r; cvt.rn.f32.f64 f, %1; mov.b32 r, f; cvt.u64.u32 %0, r; }"},
    {"cvt.rz.f32.f64",
     "{ .reg .f32 f; .reg .b32 r; cvt.rz.f32.f64 f, %1; mov.b32 r, f; cvt.u64.u32 %0, r; }"},
    {"cvt.f64.f32",
     "{ .reg .f32 f; .reg .b32 r; cvt.u32.u64 r, %1; mov.b32 f, r; cvt.f64.f32 %0, f; }"},
    {"cvt.rzi.s64.f64", "cvt.rzi.s64.f64 %0, %1;"},
    {"cvt.rn.f64.s64", "cvt.rn.f64.s64 %0, %1;"},
    {"add.cc.u64+addc.u64", "{ .reg .b64 t; add.cc.u64 t, %1, %2; addc.u64 %0, %3, 0; }"},
    {"sub.cc.s64+subc.s64", "{ .reg .b64 t; sub.cc.s64 t, %1, %2; subc.s64 %0, %3, 0; }"},
    {"mad.lo.cc.u64+madc.hi.u64",
     "{ .reg .b64 t; mad.lo.cc.u64 t, %1, %2, %3; madc.hi.u64 %0, %1, %2, 0; }"},
    {"mad.hi.cc.s64+addc.u64",
     "{ .reg .b64 t, u; mad.hi.cc.s64 t, %1, %2, %3; addc.u64 u, 0, 0; xor.b64 %0, t, u; }"},
    {"cvt.rz.f64.s64", "cvt.rz.f64.s64 %0, %1;"},
    {"cvt.rm.f64.s64", "cvt.rm.f64.s64 %0, %1;"},
    {"cvt.rp.f64.s64", "cvt.rp.f64.s64 %0, %1;"},
    {"cvt.rz.f64.u64", "cvt.rz.f64.u64 %0, %1;"},
    {"cvt.rm.f64.u64", "cvt.rm.f64.u64 %0, %1;"},
    {"cvt.rp.f64.u64", "cvt.rp.f64.u64 %0, %1;"},
    {"cvt.rn.f32.s64",
     "{ .reg .f32 f; .reg .b32 r; cvt.rn.f32.s64 f, %1; mov.b32 r, f; cvt.u64.u32 %0, r; }"},
};

/* The text of instruction @p op in @p table of @p n rows, or NULL. */
static const char *asm_of(const struct op_asm *table, size_t n, const char *op)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(table[i].op, op))
            return table[i].ptx;
    return NULL;
}

/* A kernel "op" that applies instruction @p ptx, on @p bits-bit registers, to out[i] = op(a[i],
 * b[i], c[i]) for i < n, one element a thread: what nvcc makes of a wrapper around asm volatile.
 * Returns the PTX text (malloc'd). */
static char *op_ptx(const char *ptx, int bits)
{
    char insn[1024], *o = insn;
    for (const char *p = ptx; *p && o < insn + sizeof insn - 8; p++)
        if (p[0] == '%' && p[1] >= '0' && p[1] <= '3')
            o += sprintf(o, "%%v%c", *++p);
        else
            *o++ = *p;
    *o = '\0';
    int w = bits / 8;
    char *text = NULL;
    ck_assert(
        asprintf(&text,
                 ".version 8.0\n.target sm_90\n.address_size 64\n"
                 ".visible .entry op(.param .u64 op_a, .param .u64 op_b, .param .u64 op_c,\n"
                 "    .param .u64 op_out, .param .u32 op_n)\n{\n"
                 "  .reg .pred %%p<2>;\n  .reg .b32 %%r<6>;\n  .reg .b64 %%rd<10>;\n"
                 "  .reg .b%d %%v<4>;\n"
                 "  mov.u32 %%r1, %%ctaid.x;\n  mov.u32 %%r2, %%ntid.x;\n  mov.u32 %%r3, %%tid.x;\n"
                 "  mad.lo.s32 %%r4, %%r1, %%r2, %%r3;\n  ld.param.u32 %%r5, [op_n];\n"
                 "  setp.ge.s32 %%p1, %%r4, %%r5;\n  @%%p1 bra DONE;\n"
                 "  mul.wide.s32 %%rd1, %%r4, %d;\n"
                 "  ld.param.u64 %%rd2, [op_a];\n  add.s64 %%rd3, %%rd2, %%rd1;\n"
                 "  ld.global.b%d %%v1, [%%rd3];\n"
                 "  ld.param.u64 %%rd4, [op_b];\n  add.s64 %%rd5, %%rd4, %%rd1;\n"
                 "  ld.global.b%d %%v2, [%%rd5];\n"
                 "  ld.param.u64 %%rd6, [op_c];\n  add.s64 %%rd7, %%rd6, %%rd1;\n"
                 "  ld.global.b%d %%v3, [%%rd7];\n"
                 "  %s\n"
                 "  ld.param.u64 %%rd8, [op_out];\n  add.s64 %%rd9, %%rd8, %%rd1;\n"
                 "  st.global.b%d [%%rd9], %%v0;\n"
                 "DONE:\n  ret;\n}\n",
                 bits, w, bits, bits, bits, insn, bits) > 0);
    return text;
}

/* out = op(a, b, c) for @p n elements of @p bytes each, on the VM. */
static void run_op(const char *op, const char *ptx, int bits, const void *a, const void *b,
                   const void *c, void *out, int n)
{
    ck_assert_msg(ptx != NULL, "%s: no such instruction in this file's tables", op);
    char *text = op_ptx(ptx, bits);
    struct vm_case vc;
    vm_case_open(&vc, text);
    size_t bytes = (size_t)n * (size_t)bits / 8;
    uint64_t d_a = vm_case_buffer(&vc, a, bytes), d_b = vm_case_buffer(&vc, b, bytes);
    uint64_t d_c = vm_case_buffer(&vc, c, bytes), d_out = vm_case_buffer(&vc, NULL, bytes);
    void *args[] = {&d_a, &d_b, &d_c, &d_out, &n};
    ck_assert_msg(vm_case_run(&vc, "op", VM_GRID(((unsigned)n + 127) / 128), VM_BLOCK(128), args) ==
                      VM_OK,
                  "%s: %s", op, vc.result.message);
    vm_case_read(&vc, out, d_out, bytes);
    vm_case_close(&vc);
    free(text);
}

/* out = op(a, b, c) on the VM, for @p n lanes of 32-bit words. */
static void run32(const char *op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                  uint32_t *out, int n)
{
    run_op(op, asm_of(asm32, sizeof asm32 / sizeof *asm32, op), 32, a, b, c, out, n);
}

/* The same for 64-bit words. */
static void run64(const char *op, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                  uint64_t *out, int n)
{
    run_op(op, asm_of(asm64, sizeof asm64 / sizeof *asm64, op), 64, a, b, c, out, n);
}

/* ---- integer references -------------------------------------------------------------------------
 */

typedef uint32_t (*ref32)(uint32_t a, uint32_t b, uint32_t c);

static int32_t s32(uint32_t v)
{
    return (int32_t)v;
}

static uint32_t sat32(int64_t v)
{
    return (uint32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
}

static uint32_t bfe_ref(uint32_t a, uint32_t pos, uint32_t len, int sgn)
{
    pos &= 0xFF, len &= 0xFF;
    uint32_t msb = pos + len - 1 < 31 ? pos + len - 1 : 31;
    uint32_t sbit = sgn && len ? (a >> msb) & 1 : 0, d = 0;
    for (uint32_t i = 0; i < 32; i++)
        d |= (i < len ? (pos + i < 32 ? (a >> (pos + i)) & 1 : sbit) : sbit) << i;
    return d;
}

static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint8_t bytes[8];
    for (int i = 0; i < 4; i++)
        bytes[i] = (uint8_t)(a >> 8 * i), bytes[4 + i] = (uint8_t)(b >> 8 * i);
    uint32_t n = c & 3, d = 0;
    for (uint32_t i = 0; i < 4; i++) {
        uint32_t sel;
        switch (mode) {
        case 1:
            sel = (n + i) & 7;
            break;
        case 2:
            sel = (n + 8 - i) & 7;
            break;
        case 3:
            sel = n;
            break;
        case 4:
            sel = i > n ? i : n;
            break;
        case 5:
            sel = i < n ? i : n;
            break;
        case 6:
            sel = 2 * (c & 1) + (i & 1);
            break;
        default:
            sel = (c >> 4 * i) & 0xF;
        }
        uint8_t v = bytes[sel & 7];
        if (mode == 0 && (sel & 8))
            v = (v & 0x80) ? 0xFF : 0;
        d |= (uint32_t)v << 8 * i;
    }
    return d;
}

static uint32_t bfind_ref(uint32_t a, int sgn, int shiftamt)
{
    if (sgn && (int32_t)a < 0)
        a = ~a;
    if (!a)
        return 0xFFFFFFFFu;
    int pos = 31;
    while (!(a >> pos & 1))
        pos--;
    return shiftamt ? 31 - (uint32_t)pos : (uint32_t)pos;
}

/* b with len bits from pos on replaced by a's lowest bits (pos, len 0 .. 255). */
static uint32_t bfi_ref(uint32_t a, uint32_t b, uint32_t pos, uint32_t len)
{
    if (pos >= 32)
        return b;
    uint32_t field = len >= 32 ? ~0u : (1u << len) - 1, mask = field << pos;
    return (b & ~mask) | ((a << pos) & mask);
}

static uint32_t brev32(uint32_t a)
{
    uint32_t r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((a >> i) & 1) << (31 - i);
    return r;
}

static uint32_t shf_ref(uint32_t lo, uint32_t hi, uint32_t n, int right, int clamp)
{
    n = clamp ? (n > 32 ? 32 : n) : n & 31;
    uint64_t v = (uint64_t)hi << 32 | lo;
    return right ? (uint32_t)(v >> n) : (uint32_t)((v << n) >> 32);
}

/* Generated per name: a small function for each reference below. */
#define R(NAME, EXPR)                                                                              \
    static uint32_t NAME(uint32_t a, uint32_t b, uint32_t c)                                       \
    {                                                                                              \
        (void)a, (void)b, (void)c;                                                                 \
        return (uint32_t)(EXPR);                                                                   \
    }

R(r_popc, __builtin_popcount(a))
R(r_clz, a ? __builtin_clz(a) : 32)
R(r_brev, brev32(a))
R(r_bfind_u, bfind_ref(a, 0, 0))
R(r_bfind_s, bfind_ref(a, 1, 0))
R(r_bfind_sh, bfind_ref(a, 0, 1))
R(r_not, ~a)
R(r_cnot, a == 0)
R(r_abs, s32(a) < 0 ? 0u - a : a)
R(r_neg, 0u - a)
R(r_add, a + b)
R(r_add_sat, sat32((int64_t)s32(a) + s32(b)))
R(r_sub, a - b)
R(r_sub_sat, sat32((int64_t)s32(a) - s32(b)))
R(r_mul_lo, a *b)
R(r_mul_hi_s, (uint64_t)((int64_t)s32(a) * s32(b)) >> 32)
R(r_mul_hi_u, ((uint64_t)a * b) >> 32)
R(r_mul24_s, (int64_t)(s32(a << 8) >> 8) * (s32(b << 8) >> 8))
R(r_mul24_u, (a & 0xFFFFFF) * (b & 0xFFFFFF))
R(r_div_s, b == 0xFFFFFFFFu ? 0u - a : (uint32_t)(s32(a) / s32(b)))
R(r_div_u, a / b)
R(r_rem_s, b == 0xFFFFFFFFu ? 0 : (uint32_t)(s32(a) % s32(b)))
R(r_rem_u, a % b)
R(r_min_s, s32(a) < s32(b) ? a : b)
R(r_min_u, a < b ? a : b)
R(r_max_s, s32(a) > s32(b) ? a : b)
R(r_max_u, a > b ? a : b)
R(r_and, a &b)
R(r_or, a | b)
R(r_xor, a ^ b)
R(r_shl, b >= 32 ? 0 : a << b)
R(r_shr_u, b >= 32 ? 0 : a >> b)
R(r_shr_s, s32(a) >> (b >= 32 ? 31 : b))
R(r_lt_s, s32(a) < s32(b))
R(r_lo_u, a < b)
R(r_hs_u, a >= b)
R(r_mad_lo, a *b + c)
R(r_mad_hi_s, (uint32_t)((uint64_t)((int64_t)s32(a) * s32(b)) >> 32) + c)
R(r_mad_hi_u, (uint32_t)(((uint64_t)a * b) >> 32) + c)
R(r_mad24_s, (uint32_t)((int64_t)(s32(a << 8) >> 8) * (s32(b << 8) >> 8)) + c)
R(r_sad_u, (a > b ? a - b : b - a) + c)
R(r_sad_s, (uint32_t)(s32(a) > s32(b) ? (int64_t)s32(a) - s32(b) : (int64_t)s32(b) - s32(a)) + c)
R(r_bfe_u, bfe_ref(a, b, c, 0))
R(r_bfe_s, bfe_ref(a, b, c, 1))
R(r_bfi, bfi_ref(a, b, c & 0xFF, (c >> 8) & 0xFF))
R(r_prmt, prmt_ref(a, b, c, 0))
R(r_prmt_f4e, prmt_ref(a, b, c, 1))
R(r_prmt_b4e, prmt_ref(a, b, c, 2))
R(r_prmt_rc8, prmt_ref(a, b, c, 3))
R(r_prmt_ecl, prmt_ref(a, b, c, 4))
R(r_prmt_ecr, prmt_ref(a, b, c, 5))
R(r_prmt_rc16, prmt_ref(a, b, c, 6))
R(r_shf_lw, shf_ref(a, b, c, 0, 0))
R(r_shf_rw, shf_ref(a, b, c, 1, 0))
R(r_shf_lc, shf_ref(a, b, c, 0, 1))
R(r_shf_rc, shf_ref(a, b, c, 1, 1))
R(r_xor3, a ^ b ^ c)
R(r_maj, (a & b) | (a & c) | (b & c))
R(r_vector_reg, a + (b ^ c))
R(r_ge_and, (s32(a) >= s32(b) && c) + 2 * (s32(a) < s32(b) && c))
R(r_lt_xor, ((s32(a) < s32(b)) ^ !c) + 2 * ((s32(a) >= s32(b)) ^ !c))
R(r_set_gt_or, s32(a) > s32(b) || c ? 0xFFFFFFFFu : 0)
R(r_set_lt_and, a < b && !c ? 0x3F800000u : 0)

/* dp4a (@p hi < 0) or dp2a (@p hi: b's bytes 2 and 3 rather than 0 and 1), by the PTX ISA's
 * definition: each of a's bytes (dp2a: 16-bit halves) times b's, signed by @p as and @p bs. */
static uint32_t dot_ref(uint32_t a, uint32_t b, uint32_t c, int as, int bs, int hi)
{
    int64_t sum = (int32_t)c;
    for (int i = 0; i < (hi < 0 ? 4 : 2); i++) {
        uint32_t ap = hi < 0 ? a >> 8 * i & 0xFF : a >> 16 * i & 0xFFFF;
        int64_t x = !as ? (int64_t)ap : hi < 0 ? (int64_t)(int8_t)ap : (int64_t)(int16_t)ap;
        uint32_t bp = b >> 8 * (hi > 0 ? i + 2 : i) & 0xFF;
        sum += x * (bs ? (int64_t)(int8_t)bp : (int64_t)bp);
    }
    return (uint32_t)sum;
}

/* fns by the PTX ISA's definition: the (offset)th set bit of mask from base, up or down; a base
 * past 31, which the ISA leaves undefined, finds nothing in the emulator. */
static uint32_t fns_ref(uint32_t mask, uint32_t base, uint32_t off)
{
    int32_t offset = (int32_t)off;
    if (base > 31)
        return 0xFFFFFFFFu;
    if (offset == 0)
        return mask >> base & 1 ? base : 0xFFFFFFFFu;
    int64_t seen = 0, want = offset > 0 ? offset : -(int64_t)offset;
    int step = offset > 0 ? 1 : -1;
    for (int pos = (int)base; pos >= 0 && pos < 32; pos += step)
        if (mask >> pos & 1 && ++seen == want)
            return (uint32_t)pos;
    return 0xFFFFFFFFu;
}

/* Extended precision: chains of one kind by the PTX ISA's definitions (an add's carry out, a
 * subtraction's borrow); mixed chains as a GPU runs them, its flag a carry (a subtraction is
 * a + ~b + the flag, so after sub.cc the flag is 1 when nothing was borrowed): NVlabs' CGBN
 * negates a multi-word number with add.cc then subc.cc and counts on it. */
R(r_add_addc, c + ((uint64_t)a + b > 0xFFFFFFFFu))
R(r_addc_chain, (uint64_t)a + c + ((uint64_t)a + b > 0xFFFFFFFFu) > 0xFFFFFFFFu)
R(r_sub_subc, c - (a < b))
R(r_subc_chain, 0u - ((uint64_t)a + (a < b) > c))
R(r_mad_madc, ((uint64_t)a * b + c) >> 32)
/* add.cc t, c, c; madc.hi.cc.s32 t, a, b, c; addc u, 0, 0; d = t + u. */
static uint32_t madc_hi_s_ref(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t hi = (uint32_t)((uint64_t)((int64_t)s32(a) * s32(b)) >> 32);
    uint64_t sum = (uint64_t)hi + c + ((uint64_t)c + c > 0xFFFFFFFFu);
    return (uint32_t)sum + (uint32_t)(sum >> 32);
}

R(r_madc_hi_s, madc_hi_s_ref(a, b, c))
R(r_madc_lo, a *b + c + (c >= a))
R(r_pred_carry, c != 0 && (uint64_t)a + b > 0xFFFFFFFFu)
R(r_add_then_subc, a - b - (c == 0))
R(r_sub_then_addc, c + (a >= b))
R(r_dp4a_ss, dot_ref(a, b, c, 1, 1, -1))
R(r_dp4a_us, dot_ref(a, b, c, 0, 1, -1))
R(r_dp4a_uu, dot_ref(a, b, c, 0, 0, -1))
R(r_dp2a_lo_su, dot_ref(a, b, c, 1, 0, 0))
R(r_dp2a_hi_ss, dot_ref(a, b, c, 1, 1, 1))
R(r_fns, fns_ref(a, b, c))

/* Every integer instruction: its name, its reference and the inputs it takes. */
static const struct {
    const char *op;
    ref32 ref;
    enum input in[3];
} int_ops[] = {
    {"popc.b32", r_popc, {IN_INT}},
    {"clz.b32", r_clz, {IN_INT}},
    {"brev.b32", r_brev, {IN_INT}},
    {"bfind.u32", r_bfind_u, {IN_INT}},
    {"bfind.s32", r_bfind_s, {IN_INT}},
    {"bfind.shiftamt.u32", r_bfind_sh, {IN_INT}},
    {"not.b32", r_not, {IN_INT}},
    {"cnot.b32", r_cnot, {IN_INT}},
    {"abs.s32", r_abs, {IN_INT}},
    {"neg.s32", r_neg, {IN_INT}},
    {"add.s32", r_add, {IN_INT, IN_INT}},
    {"add.sat.s32", r_add_sat, {IN_INT, IN_INT}},
    {"sub.s32", r_sub, {IN_INT, IN_INT}},
    {"sub.sat.s32", r_sub_sat, {IN_INT, IN_INT}},
    {"mul.lo.s32", r_mul_lo, {IN_INT, IN_INT}},
    {"mul.hi.s32", r_mul_hi_s, {IN_INT, IN_INT}},
    {"mul.hi.u32", r_mul_hi_u, {IN_INT, IN_INT}},
    {"mul24.lo.s32", r_mul24_s, {IN_INT, IN_INT}},
    {"mul24.lo.u32", r_mul24_u, {IN_INT, IN_INT}},
    {"div.s32", r_div_s, {IN_INT, IN_NONZERO}},
    {"div.u32", r_div_u, {IN_INT, IN_NONZERO}},
    {"rem.s32", r_rem_s, {IN_INT, IN_NONZERO}},
    {"rem.u32", r_rem_u, {IN_INT, IN_NONZERO}},
    {"min.s32", r_min_s, {IN_INT, IN_INT}},
    {"min.u32", r_min_u, {IN_INT, IN_INT}},
    {"max.s32", r_max_s, {IN_INT, IN_INT}},
    {"max.u32", r_max_u, {IN_INT, IN_INT}},
    {"and.b32", r_and, {IN_INT, IN_INT}},
    {"or.b32", r_or, {IN_INT, IN_INT}},
    {"xor.b32", r_xor, {IN_INT, IN_INT}},
    {"shl.b32", r_shl, {IN_INT, IN_SMALL}},
    {"shr.u32", r_shr_u, {IN_INT, IN_SMALL}},
    {"shr.s32", r_shr_s, {IN_INT, IN_SMALL}},
    {"setp.lt.s32", r_lt_s, {IN_INT, IN_INT}},
    {"setp.lo.u32", r_lo_u, {IN_INT, IN_INT}},
    {"setp.hs.u32", r_hs_u, {IN_INT, IN_INT}},
    {"mad.lo.s32", r_mad_lo, {IN_INT, IN_INT, IN_INT}},
    {"mad.hi.s32", r_mad_hi_s, {IN_INT, IN_INT, IN_INT}},
    {"mad.hi.u32", r_mad_hi_u, {IN_INT, IN_INT, IN_INT}},
    {"mad24.lo.s32", r_mad24_s, {IN_INT, IN_INT, IN_INT}},
    {"sad.u32", r_sad_u, {IN_INT, IN_INT, IN_INT}},
    {"sad.s32", r_sad_s, {IN_INT, IN_INT, IN_INT}},
    {"bfe.u32", r_bfe_u, {IN_INT, IN_SMALL, IN_SMALL}},
    {"bfe.s32", r_bfe_s, {IN_INT, IN_SMALL, IN_SMALL}},
    {"bfi.b32", r_bfi, {IN_INT, IN_INT, IN_POSLEN}},
    {"prmt.b32", r_prmt, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.f4e", r_prmt_f4e, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.b4e", r_prmt_b4e, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.rc8", r_prmt_rc8, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.ecl", r_prmt_ecl, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.ecr", r_prmt_ecr, {IN_INT, IN_INT, IN_INT}},
    {"prmt.b32.rc16", r_prmt_rc16, {IN_INT, IN_INT, IN_INT}},
    {"shf.l.wrap.b32", r_shf_lw, {IN_INT, IN_INT, IN_SMALL}},
    {"shf.r.wrap.b32", r_shf_rw, {IN_INT, IN_INT, IN_SMALL}},
    {"shf.l.clamp.b32", r_shf_lc, {IN_INT, IN_INT, IN_SMALL}},
    {"shf.r.clamp.b32", r_shf_rc, {IN_INT, IN_INT, IN_SMALL}},
    {"lop3.b32.xor3", r_xor3, {IN_INT, IN_INT, IN_INT}},
    {"lop3.b32.maj", r_maj, {IN_INT, IN_INT, IN_INT}},
    {"lop3 .b32 spaced", r_xor3, {IN_INT, IN_INT, IN_INT}},
    {"vector register", r_vector_reg, {IN_INT, IN_INT, IN_INT}},
    {"setp.ge.and.s32", r_ge_and, {IN_INT, IN_INT, IN_SMALL}},
    {"setp.lt.xor.s32", r_lt_xor, {IN_INT, IN_INT, IN_SMALL}},
    {"set.gt.or.u32.s32", r_set_gt_or, {IN_INT, IN_INT, IN_SMALL}},
    {"set.lt.and.f32.u32", r_set_lt_and, {IN_INT, IN_INT, IN_SMALL}},
    {"dp4a.s32.s32", r_dp4a_ss, {IN_INT, IN_INT, IN_INT}},
    {"dp4a.u32.s32", r_dp4a_us, {IN_INT, IN_INT, IN_INT}},
    {"dp4a.u32.u32", r_dp4a_uu, {IN_INT, IN_INT, IN_INT}},
    {"dp2a.lo.s32.u32", r_dp2a_lo_su, {IN_INT, IN_INT, IN_INT}},
    {"dp2a.hi.s32.s32", r_dp2a_hi_ss, {IN_INT, IN_INT, IN_INT}},
    {"fns.b32", r_fns, {IN_INT, IN_SMALL, IN_INT}},
    {"add.cc.u32+addc.u32", r_add_addc, {IN_INT, IN_INT, IN_INT}},
    {"addc.cc.u32 chain", r_addc_chain, {IN_INT, IN_INT, IN_INT}},
    {"sub.cc.u32+subc.u32", r_sub_subc, {IN_INT, IN_INT, IN_INT}},
    {"subc.cc.u32 chain", r_subc_chain, {IN_INT, IN_INT, IN_INT}},
    {"mad.lo.cc.u32+madc.hi.u32", r_mad_madc, {IN_INT, IN_INT, IN_INT}},
    {"madc.hi.cc.s32", r_madc_hi_s, {IN_INT, IN_INT, IN_INT}},
    {"madc.lo.u32", r_madc_lo, {IN_INT, IN_INT, IN_INT}},
    {"@p add.cc.u32", r_pred_carry, {IN_INT, IN_INT, IN_SMALL}},
    {"add.cc.u32+subc.u32", r_add_then_subc, {IN_INT, IN_INT, IN_SMALL}},
    {"sub.cc.u32+addc.u32", r_sub_then_addc, {IN_INT, IN_INT, IN_INT}},
};

/* Run every instruction of a table on its inputs; @p same says when two results agree. */
#define RUN_TABLE(TABLE, SAME)                                                                     \
    do {                                                                                           \
        uint32_t *a = mat_alloc(3 * N * 4), *out = mat_alloc(N * 4);                               \
        for (size_t t = 0; t < sizeof TABLE / sizeof *TABLE; t++) {                                \
            for (int k = 0; k < 3; k++)                                                            \
                for (int i = 0; i < N; i++)                                                        \
                    a[k * N + i] = input32(TABLE[t].in[k], i, k);                                  \
            run32(TABLE[t].op, a, a + N, a + 2 * N, out, N);                                       \
            for (int i = 0; i < N; i++) {                                                          \
                uint32_t want = TABLE[t].ref(a[i], a[N + i], a[2 * N + i]);                        \
                ck_assert_msg(SAME(out[i], want),                                                  \
                              "%s(0x%08x, 0x%08x, 0x%08x) = 0x%08x, want "                         \
                              "0x%08x",                                                            \
                              TABLE[t].op, a[i], a[N + i], a[2 * N + i], out[i], want);            \
            }                                                                                      \
        }                                                                                          \
        free(a);                                                                                   \
        free(out);                                                                                 \
    } while (0)

#define BITS_EQUAL(x, y) ((x) == (y))

START_TEST(integer_instructions)
{
    RUN_TABLE(int_ops, BITS_EQUAL);
}
END_TEST

/* ---- fp32 -------------------------------------------------------------------------------------
 */

/* The host's fp32 arithmetic in rounding mode @p mode (this file is built with -frounding-math). */
static uint32_t fenv_op(int mode, int op, uint32_t a, uint32_t b, uint32_t c)
{
    fesetround(mode);
    volatile float x = u2f(a), y = u2f(b), z = u2f(c), r;
    switch (op) {
    case 0:
        r = x + y;
        break;
    case 1:
        r = x - y;
        break;
    case 2:
        r = x * y;
        break;
    case 3:
        r = fmaf(x, y, z);
        break;
    case 4:
        r = x / y;
        break;
    case 5:
        r = sqrtf(x);
        break;
    default:
        r = 1.0f / x;
        break;
    }
    fesetround(FE_TONEAREST);
    return f2u(r);
}

static uint32_t fmin_ref(uint32_t a, uint32_t b, int max)
{
    float x = u2f(a), y = u2f(b);
    if (isnan(x))
        return isnan(y) ? 0x7FFFFFFFu : b;
    if (isnan(y))
        return a;
    if (x == y) /* -0 is below +0 */
        return ((int)(a >> 31) != max) ? a : b;
    return (x < y) != max ? a : b;
}

/* min (@p max 0) or max with .NaN (@p nan: a NaN operand gives the canonical NaN) and
 * .xorsign.abs (@p xs: the smaller or larger magnitude, signed with the xor of the signs), as
 * the PTX ISA defines them, on f32 bit patterns. */
static uint32_t fminmax_mod_ref(uint32_t a, uint32_t b, int max, int nan, int xs)
{
    uint32_t sign = (a ^ b) & 0x80000000u;
    if (xs)
        a &= 0x7FFFFFFFu, b &= 0x7FFFFFFFu;
    if (nan && (isnan(u2f(a)) || isnan(u2f(b))))
        return 0x7FFFFFFFu;
    uint32_t r = fmin_ref(a, b, max);
    return xs && !isnan(u2f(r)) ? r | sign : r;
}

static uint32_t ftz_in(uint32_t a)
{
    return (a & 0x7F800000u) ? a : a & 0x80000000u;
}

R(r_fadd, fenv_op(FE_TONEAREST, 0, a, b, c))
R(r_fsub, fenv_op(FE_TONEAREST, 1, a, b, c))
R(r_fmul, fenv_op(FE_TONEAREST, 2, a, b, c))
R(r_ffma, fenv_op(FE_TONEAREST, 3, a, b, c))
R(r_fadd_rz, fenv_op(FE_TOWARDZERO, 0, a, b, c))
R(r_fadd_rm, fenv_op(FE_DOWNWARD, 0, a, b, c))
R(r_fadd_rp, fenv_op(FE_UPWARD, 0, a, b, c))
R(r_fmul_rz, fenv_op(FE_TOWARDZERO, 2, a, b, c))
R(r_fmul_rm, fenv_op(FE_DOWNWARD, 2, a, b, c))
R(r_fmul_rp, fenv_op(FE_UPWARD, 2, a, b, c))
R(r_ffma_rz, fenv_op(FE_TOWARDZERO, 3, a, b, c))
R(r_ffma_rm, fenv_op(FE_DOWNWARD, 3, a, b, c))
R(r_ffma_rp, fenv_op(FE_UPWARD, 3, a, b, c))
R(r_fdiv, fenv_op(FE_TONEAREST, 4, a, b, c))
R(r_fdiv_rz, fenv_op(FE_TOWARDZERO, 4, a, b, c))
R(r_fsqrt, fenv_op(FE_TONEAREST, 5, a, b, c))
R(r_frcp, fenv_op(FE_TONEAREST, 6, a, b, c))
R(r_fmin, fmin_ref(a, b, 0))
R(r_fmax, fmin_ref(a, b, 1))
R(r_fmin_nan, fminmax_mod_ref(a, b, 0, 1, 0))
R(r_fmax_nan, fminmax_mod_ref(a, b, 1, 1, 0))
R(r_fmin_xs, fminmax_mod_ref(a, b, 0, 0, 1))
R(r_fmax_nan_xs, fminmax_mod_ref(a, b, 1, 1, 1))
R(r_fabs, a & 0x7FFFFFFFu)
R(r_fneg, a ^ 0x80000000u)
R(r_fadd_ftz, ftz_in(fenv_op(FE_TONEAREST, 0, ftz_in(a), ftz_in(b), 0)))
R(r_fmul_sat, isnan(u2f(fenv_op(FE_TONEAREST, 2, a, b, 0)))
                  ? 0
                  : f2u(fminf(fmaxf(u2f(fenv_op(FE_TONEAREST, 2, a, b, 0)), 0.0f), 1.0f)))
R(r_copysign, (b & 0x7FFFFFFFu) | (a & 0x80000000u))
R(r_finite, isfinite(u2f(a)) != 0)
R(r_subnormal, fpclassify(u2f(a)) == FP_SUBNORMAL)
R(r_ltu, isnan(u2f(a)) || isnan(u2f(b)) || u2f(a) < u2f(b))
R(r_isnan, isnan(u2f(a)) || isnan(u2f(b)))
R(r_fne, !isnan(u2f(a)) && !isnan(u2f(b)) && u2f(a) != u2f(b))

static const struct {
    const char *op;
    ref32 ref;
    enum input in[3];
} float_ops[] = {
    {"add.rn.f32", r_fadd, {IN_FLOAT, IN_FLOAT}},
    {"sub.rn.f32", r_fsub, {IN_FLOAT, IN_FLOAT}},
    {"mul.rn.f32", r_fmul, {IN_FLOAT, IN_FLOAT}},
    {"fma.rn.f32", r_ffma, {IN_FLOAT, IN_FLOAT, IN_FLOAT}},
    {"add.rz.f32", r_fadd_rz, {IN_FLOAT, IN_FLOAT}},
    {"add.rm.f32", r_fadd_rm, {IN_FLOAT, IN_FLOAT}},
    {"add.rp.f32", r_fadd_rp, {IN_FLOAT, IN_FLOAT}},
    {"mul.rz.f32", r_fmul_rz, {IN_FLOAT, IN_FLOAT}},
    {"mul.rm.f32", r_fmul_rm, {IN_FLOAT, IN_FLOAT}},
    {"mul.rp.f32", r_fmul_rp, {IN_FLOAT, IN_FLOAT}},
    {"fma.rz.f32", r_ffma_rz, {IN_FLOAT, IN_FLOAT, IN_FLOAT}},
    {"fma.rm.f32", r_ffma_rm, {IN_FLOAT, IN_FLOAT, IN_FLOAT}},
    {"fma.rp.f32", r_ffma_rp, {IN_FLOAT, IN_FLOAT, IN_FLOAT}},
    {"div.rn.f32", r_fdiv, {IN_FLOAT, IN_FLOAT}},
    {"div.rz.f32", r_fdiv_rz, {IN_FLOAT, IN_FLOAT}},
    {"sqrt.rn.f32", r_fsqrt, {IN_FLOAT}},
    {"rcp.rn.f32", r_frcp, {IN_FLOAT}},
    {"min.f32", r_fmin, {IN_FLOAT, IN_FLOAT}},
    {"max.f32", r_fmax, {IN_FLOAT, IN_FLOAT}},
    {"min.NaN.f32", r_fmin_nan, {IN_FLOAT, IN_FLOAT}},
    {"max.NaN.f32", r_fmax_nan, {IN_FLOAT, IN_FLOAT}},
    {"min.xorsign.abs.f32", r_fmin_xs, {IN_FLOAT, IN_FLOAT}},
    {"max.NaN.xorsign.abs.f32", r_fmax_nan_xs, {IN_FLOAT, IN_FLOAT}},
    {"abs.f32", r_fabs, {IN_FLOAT}},
    {"neg.f32", r_fneg, {IN_FLOAT}},
    {"add.ftz.f32", r_fadd_ftz, {IN_FLOAT, IN_FLOAT}},
    {"mul.sat.f32", r_fmul_sat, {IN_FLOAT, IN_FLOAT}},
    {"copysign.f32", r_copysign, {IN_FLOAT, IN_FLOAT}},
    {"testp.finite.f32", r_finite, {IN_FLOAT}},
    {"testp.subnormal.f32", r_subnormal, {IN_FLOAT}},
    {"setp.ltu.f32", r_ltu, {IN_FLOAT, IN_FLOAT}},
    {"setp.nan.f32", r_isnan, {IN_FLOAT, IN_FLOAT}},
    {"setp.ne.f32", r_fne, {IN_FLOAT, IN_FLOAT}},
};

/* Equal bits, or both NaN (the payload of a computed NaN is not part of the contract). */
#define FLOAT_EQUAL(x, y)                                                                          \
    ((x) == (y) || (isnan(u2f(x)) && isnan(u2f(y)) && ((x) >> 23 & 0xFF) == 0xFF))

START_TEST(fp32_instructions_every_rounding_mode)
{
    RUN_TABLE(float_ops, FLOAT_EQUAL);
}
END_TEST

/* Approximations: the error the PTX ISA allows (abs: absolute; else relative to the value). */
START_TEST(approximations_within_their_bounds)
{
    static const struct {
        const char *op;
        double (*exact)(double);
        double lo, hi, bound;
        int absolute; /* 0 relative, 1 absolute, 2 absolute within [1/2, 2], relative beyond */
    } approx[] = {
        {"ex2.approx.f32", exp2, -120, 120, 0x1p-22, 0},
        {"lg2.approx.f32", log2, 0x1p-100, 0x1p100, 0x1p-22, 2},
        {"sin.approx.f32", sin, -100, 100, 0x1p-20, 1},
        {"cos.approx.f32", cos, -100, 100, 0x1p-20, 1},
        {"rsqrt.approx.f32", NULL, 0x1p-100, 0x1p100, 0x1p-22, 0},
        {"tanh.approx.f32", tanh, -20, 20, 0x1p-10, 0},
    };
    uint32_t *a = mat_alloc(N * 4), *out = mat_alloc(N * 4);
    for (size_t t = 0; t < sizeof approx / sizeof *approx; t++) {
        for (int i = 0; i < N; i++) {
            double f = (double)i / (N - 1);
            double v = approx[t].lo > 0 ? approx[t].lo * pow(approx[t].hi / approx[t].lo, f)
                                        : approx[t].lo + (approx[t].hi - approx[t].lo) * f;
            a[i] = f2u((float)v);
        }
        run32(approx[t].op, a, a, a, out, N);
        for (int i = 0; i < N; i++) {
            double x = u2f(a[i]), got = u2f(out[i]);
            double want = approx[t].exact ? approx[t].exact(x) : 1.0 / sqrt(x);
            int absolute =
                approx[t].absolute == 1 || (approx[t].absolute == 2 && x >= 0.5 && x <= 2);
            double err = fabs(got - want) / (absolute ? 1.0 : fabs(want));
            ck_assert_msg(err <= approx[t].bound, "%s(%a) = %a, want %a: error %g over %g",
                          approx[t].op, x, got, want, err, approx[t].bound);
        }
    }
    free(a);
    free(out);
}
END_TEST

/* Ulps between float @p got and the float nearest to @p exact (both finite, same sign). */
static double ulps_from_nearest(float got, double exact)
{
    float want = (float)exact;
    int64_t g = (int64_t)f2u(fabsf(got)), w = (int64_t)f2u(fabsf(want));
    return signbit(got) != signbit(want) ? INFINITY : (double)llabs(g - w);
}

/*
 * The fast-math forms (what -use_fast_math, __expf and __fdividef emit, and what lesson 11's
 * softmax and attention run), in ulps of the correctly rounded result, within the PTX ISA's
 * bounds: ex2.approx.ftz 2 ulp; rcp.approx 1 ulp; div.approx 2 ulp for |b| in [2^-126, 2^126];
 * div.full 2 ulp. Inputs keep the results normal (the .ftz forms flush the rest); then the
 * ISA's tables of special values, and what .ftz flushes.
 */
START_TEST(fast_math_forms_within_their_bounds)
{
    uint32_t *a = mat_alloc(N * 4), *b = mat_alloc(N * 4), *out = mat_alloc(N * 4);
    for (int i = 0; i < N; i++) {
        double f = (double)i / (N - 1), sign = i % 2 ? -1.0 : 1.0;
        a[i] = f2u((float)(sign * pow(2.0, -60 + 120 * f) * (1 + 0.37 * f)));
        b[i] = f2u((float)(-sign * pow(2.0, 55 - 110 * f) * (1.3 - 0.29 * f)));
    }
    static const char *const rcps[] = {"rcp.approx.f32", "rcp.approx.ftz.f32"};
    for (int k = 0; k < 2; k++) {
        run32(rcps[k], a, a, a, out, N);
        for (int i = 0; i < N; i++) {
            double e = ulps_from_nearest(u2f(out[i]), 1.0 / u2f(a[i]));
            ck_assert_msg(e <= 1, "%s(%a) = %a: %g ulp, the ISA allows 1", rcps[k], u2f(a[i]),
                          u2f(out[i]), e);
        }
    }
    static const char *const divs[] = {"div.approx.f32", "div.approx.ftz.f32", "div.full.f32",
                                       "div.full.ftz.f32"};
    for (int k = 0; k < 4; k++) {
        run32(divs[k], a, b, a, out, N);
        for (int i = 0; i < N; i++) {
            double e = ulps_from_nearest(u2f(out[i]), (double)u2f(a[i]) / u2f(b[i]));
            ck_assert_msg(e <= 2, "%s(%a, %a) = %a: %g ulp, the ISA allows 2", divs[k], u2f(a[i]),
                          u2f(b[i]), u2f(out[i]), e);
        }
    }
    for (int i = 0; i < N; i++)
        a[i] = f2u((float)(-125.0 + 252.0 * i / (N - 1)));
    run32("ex2.approx.ftz.f32", a, a, a, out, N);
    for (int i = 0; i < N; i++) {
        double e = ulps_from_nearest(u2f(out[i]), exp2(u2f(a[i])));
        ck_assert_msg(e <= 2, "ex2.approx.ftz.f32(%a) = %a: %g ulp, the ISA allows 2", u2f(a[i]),
                      u2f(out[i]), e);
    }
    /* The tables: ex2 of -inf, -0, +inf, NaN and, flushed, of a subnormal input (2^0) and to a
     * subnormal result (+0); rcp of +-0, +-inf, NaN and, flushed, of a subnormal (+inf). */
    static const struct {
        const char *op;
        float in, want;
    } special[] = {
        {"ex2.approx.f32", -INFINITY, 0.0f},         {"ex2.approx.f32", -0.0f, 1.0f},
        {"ex2.approx.f32", INFINITY, INFINITY},      {"ex2.approx.f32", NAN, NAN},
        {"ex2.approx.f32", -130.0f, 0x1p-130f},      {"ex2.approx.ftz.f32", -130.0f, 0.0f},
        {"ex2.approx.ftz.f32", 0x1p-140f, 1.0f},     {"rcp.approx.f32", 0.0f, INFINITY},
        {"rcp.approx.f32", -0.0f, -INFINITY},        {"rcp.approx.f32", INFINITY, 0.0f},
        {"rcp.approx.f32", -INFINITY, -0.0f},        {"rcp.approx.f32", NAN, NAN},
        {"rcp.approx.ftz.f32", 0x1p-130f, INFINITY},
    };
    for (size_t k = 0; k < sizeof special / sizeof *special; k++) {
        uint32_t in = f2u(special[k].in), got;
        run32(special[k].op, &in, &in, &in, &got, 1);
        float g = u2f(got), w = special[k].want;
        ck_assert_msg(isnan(w) ? isnan(g) : got == f2u(w), "%s(%a) = %a, the ISA gives %a",
                      special[k].op, special[k].in, g, w);
    }
    free(a);
    free(b);
    free(out);
}
END_TEST

/* ---- 64-bit -------------------------------------------------------------------------------------
 */

typedef uint64_t (*ref64)(uint64_t a, uint64_t b, uint64_t c);

static uint64_t brev64(uint64_t a)
{
    return (uint64_t)brev32((uint32_t)a) << 32 | brev32((uint32_t)(a >> 32));
}

static uint64_t bfe64(uint64_t a, uint32_t pos, uint32_t len, int sgn)
{
    pos &= 0xFF, len &= 0xFF;
    uint32_t msb = pos + len - 1 < 63 ? pos + len - 1 : 63;
    uint64_t sbit = sgn && len ? (a >> msb) & 1 : 0, d = 0;
    for (uint32_t i = 0; i < 64; i++)
        d |= (i < len ? (pos + i < 64 ? (a >> (pos + i)) & 1 : sbit) : sbit) << i;
    return d;
}

static uint64_t to_s64(double v)
{
    return isnan(v)       ? 0
           : v >= 0x1p63  ? (uint64_t)INT64_MAX
           : v <= -0x1p63 ? (uint64_t)INT64_MIN
                          : (uint64_t)(int64_t)v;
}

static uint64_t f32_from_f64(double v, int mode)
{
    fesetround(mode);
    volatile float f = (float)v;
    fesetround(FE_TONEAREST);
    return f2u(f);
}

#define R64(NAME, EXPR)                                                                            \
    static uint64_t NAME(uint64_t a, uint64_t b, uint64_t c)                                       \
    {                                                                                              \
        (void)a, (void)b, (void)c;                                                                 \
        return (uint64_t)(EXPR);                                                                   \
    }

R64(q_add, a + b)
R64(q_sub, a - b)
R64(q_mul, a *b)
R64(q_mulhi_u, (uint64_t)(((unsigned __int128)a * b) >> 64))
R64(q_mulhi_s, (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64))
R64(q_div_s, b == UINT64_MAX ? 0 - a : (uint64_t)((int64_t)a / (int64_t)b))
R64(q_div_u, a / b)
R64(q_rem_s, b == UINT64_MAX ? 0 : (uint64_t)((int64_t)a % (int64_t)b))
R64(q_rem_u, a % b)
R64(q_min_s, (int64_t)a < (int64_t)b ? a : b)
R64(q_max_u, a > b ? a : b)
R64(q_shl, (uint32_t)b >= 64 ? 0 : a << (uint32_t)b)
R64(q_shr_s, (uint64_t)((int64_t)a >> ((uint32_t)b >= 64 ? 63 : (uint32_t)b)))
R64(q_shr_u, (uint32_t)b >= 64 ? 0 : a >> (uint32_t)b)
R64(q_brev, brev64(a))
R64(q_popc, __builtin_popcountll(a))
R64(q_clz, a ? __builtin_clzll(a) : 64)
R64(q_bfe_u, bfe64(a, (uint32_t)b, (uint32_t)c, 0))
R64(q_bfe_s, bfe64(a, (uint32_t)b, (uint32_t)c, 1))
R64(q_wide_s, (int64_t)(int32_t)a *(int32_t)b)
R64(q_wide_u, (uint64_t)(uint32_t)a *(uint32_t)b)
R64(q_mad_wide_s, (uint64_t)((int64_t)(int32_t)a *(int32_t)b) + c)
R64(q_sext, (int64_t)(int32_t)a)
R64(q_dadd, d2u(u2d(a) + u2d(b)))
R64(q_dmul, d2u(u2d(a) * u2d(b)))
R64(q_dfma, d2u(fma(u2d(a), u2d(b), u2d(c))))
R64(q_ddiv, d2u(u2d(a) / u2d(b)))
R64(q_dsqrt, d2u(sqrt(u2d(a))))

/* The host's fp64 @p op (0 add, 1 mul, 2 fma, 3 div, 4 sqrt) in rounding mode @p mode. */
static uint64_t fenv_op64(int mode, int op, uint64_t a, uint64_t b, uint64_t c)
{
    fesetround(mode);
    volatile double x = u2d(a), y = u2d(b), z = u2d(c), r;
    r = op == 0 ? x + y : op == 1 ? x * y : op == 2 ? fma(x, y, z) : op == 3 ? x / y : sqrt(x);
    fesetround(FE_TONEAREST);
    return d2u(r);
}

R64(q_dadd_rm, fenv_op64(FE_DOWNWARD, 0, a, b, c))
R64(q_dadd_rp, fenv_op64(FE_UPWARD, 0, a, b, c))
R64(q_dadd_rz, fenv_op64(FE_TOWARDZERO, 0, a, b, c))
R64(q_dmul_rm, fenv_op64(FE_DOWNWARD, 1, a, b, c))
R64(q_dfma_rp, fenv_op64(FE_UPWARD, 2, a, b, c))
R64(q_ddiv_rz, fenv_op64(FE_TOWARDZERO, 3, a, b, c))
R64(q_dsqrt_rm, fenv_op64(FE_DOWNWARD, 4, a, b, c))
R64(q_dmin, isnan(u2d(a))      ? (isnan(u2d(b)) ? 0x7FFFFFFFFFFFFFFFull : b)
            : isnan(u2d(b))    ? a
            : u2d(a) == u2d(b) ? ((a >> 63) ? a : b)
            : u2d(a) < u2d(b)  ? a
                               : b)
R64(q_d2f, f32_from_f64(u2d(a), FE_TONEAREST))
R64(q_d2f_rz, f32_from_f64(u2d(a), FE_TOWARDZERO))
R64(q_f2d, d2u((double)u2f((uint32_t)a)))
R64(q_d2s64, to_s64(trunc(u2d(a))))
R64(q_s642d, d2u((double)(int64_t)a))
R64(q_add_addc, c + (((unsigned __int128)a + b) >> 64))
R64(q_sub_subc, c - (a < b))
R64(q_mad_madc, ((unsigned __int128)a * b + c) >> 64)

/* mad.hi.cc.s64 t, a, b, c; addc.u64 u, 0, 0; d = t ^ u. */
static uint64_t mad_hi_s64_ref(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t hi = (uint64_t)((__int128)(int64_t)a * (int64_t)b >> 64);
    unsigned __int128 sum = (unsigned __int128)hi + c;
    return (uint64_t)sum ^ (uint64_t)(sum >> 64);
}

R64(q_mad_hi_s, mad_hi_s64_ref(a, b, c))

/* A 64-bit integer (@p is_unsigned: unsigned) converted by the host in rounding mode @p mode. */
static uint64_t fenv_i2d(int mode, uint64_t a, int is_unsigned)
{
    fesetround(mode);
    volatile uint64_t u = a;
    volatile double r = is_unsigned ? (double)u : (double)(int64_t)u;
    fesetround(FE_TONEAREST);
    return d2u(r);
}

R64(q_s642d_rz, fenv_i2d(FE_TOWARDZERO, a, 0))
R64(q_s642d_rm, fenv_i2d(FE_DOWNWARD, a, 0))
R64(q_s642d_rp, fenv_i2d(FE_UPWARD, a, 0))
R64(q_u642d_rz, fenv_i2d(FE_TOWARDZERO, a, 1))
R64(q_u642d_rm, fenv_i2d(FE_DOWNWARD, a, 1))
R64(q_u642d_rp, fenv_i2d(FE_UPWARD, a, 1))
R64(q_s642f, f2u((float)(int64_t)a))

/* 64-bit inputs: integers from two 32-bit draws, doubles from random bits or moderate values. */
static uint64_t input64(int kind, int i, int operand)
{
    uint64_t r = vm_case_rand();
    if (kind == 1) /* small: shift counts, positions */
        return r % 140;
    if (kind == 2) { /* doubles */
        static const uint64_t edges[] = {0,
                                         0x8000000000000000ull,
                                         0x3FF0000000000000ull,
                                         0x7FF0000000000000ull,
                                         0x7FF8000000000000ull,
                                         1,
                                         0x43E0000000000000ull,
                                         0xC3E0000000000001ull};
        if (i < 64)
            return edges[(operand ? i / 8 : i) % 8];
        return (r & 1) ? d2u((double)(int64_t)(r >> 12) / (double)(1ull << (r >> 4 & 31))) : r;
    }
    uint64_t v = (uint64_t)input32(IN_INT, i, operand) << 32 | input32(IN_INT, i + 7, operand);
    return kind == 3 && v == 0 ? 9 : v; /* 3: nonzero divisors */
}

START_TEST(sixty_four_bit_instructions)
{
    static const struct {
        const char *op;
        ref64 ref;
        int in[3]; /* 0 integer, 1 small, 2 double, 3 nonzero */
    } ops[] = {
        {"add.s64", q_add, {0, 0}},
        {"sub.s64", q_sub, {0, 0}},
        {"mul.lo.s64", q_mul, {0, 0}},
        {"mul.hi.u64", q_mulhi_u, {0, 0}},
        {"mul.hi.s64", q_mulhi_s, {0, 0}},
        {"div.s64", q_div_s, {0, 3}},
        {"div.u64", q_div_u, {0, 3}},
        {"rem.s64", q_rem_s, {0, 3}},
        {"rem.u64", q_rem_u, {0, 3}},
        {"min.s64", q_min_s, {0, 0}},
        {"max.u64", q_max_u, {0, 0}},
        {"shl.b64", q_shl, {0, 1}},
        {"shr.s64", q_shr_s, {0, 1}},
        {"shr.u64", q_shr_u, {0, 1}},
        {"brev.b64", q_brev, {0}},
        {"popc.b64", q_popc, {0}},
        {"clz.b64", q_clz, {0}},
        {"bfe.u64", q_bfe_u, {0, 1, 1}},
        {"bfe.s64", q_bfe_s, {0, 1, 1}},
        {"mul.wide.s32", q_wide_s, {0, 0}},
        {"mul.wide.u32", q_wide_u, {0, 0}},
        {"mad.wide.s32", q_mad_wide_s, {0, 0, 0}},
        {"cvt.s64.s32", q_sext, {0}},
        {"add.rn.f64", q_dadd, {2, 2}},
        {"mul.rn.f64", q_dmul, {2, 2}},
        {"fma.rn.f64", q_dfma, {2, 2, 2}},
        {"div.rn.f64", q_ddiv, {2, 2}},
        {"sqrt.rn.f64", q_dsqrt, {2}},
        {"add.rm.f64", q_dadd_rm, {2, 2}},
        {"add.rp.f64", q_dadd_rp, {2, 2}},
        {"add.rz.f64", q_dadd_rz, {2, 2}},
        {"mul.rm.f64", q_dmul_rm, {2, 2}},
        {"fma.rp.f64", q_dfma_rp, {2, 2, 2}},
        {"div.rz.f64", q_ddiv_rz, {2, 2}},
        {"sqrt.rm.f64", q_dsqrt_rm, {2}},
        {"min.f64", q_dmin, {2, 2}},
        {"cvt.rn.f32.f64", q_d2f, {2}},
        {"cvt.rz.f32.f64", q_d2f_rz, {2}},
        {"cvt.f64.f32", q_f2d, {0}},
        {"cvt.rzi.s64.f64", q_d2s64, {2}},
        {"cvt.rn.f64.s64", q_s642d, {0}},
        {"add.cc.u64+addc.u64", q_add_addc, {0, 0, 0}},
        {"sub.cc.s64+subc.s64", q_sub_subc, {0, 0, 0}},
        {"mad.lo.cc.u64+madc.hi.u64", q_mad_madc, {0, 0, 0}},
        {"mad.hi.cc.s64+addc.u64", q_mad_hi_s, {0, 0, 0}},
        {"cvt.rz.f64.s64", q_s642d_rz, {0}},
        {"cvt.rm.f64.s64", q_s642d_rm, {0}},
        {"cvt.rp.f64.s64", q_s642d_rp, {0}},
        {"cvt.rz.f64.u64", q_u642d_rz, {0}},
        {"cvt.rm.f64.u64", q_u642d_rm, {0}},
        {"cvt.rp.f64.u64", q_u642d_rp, {0}},
        {"cvt.rn.f32.s64", q_s642f, {0}},
    };
    uint64_t *a = mat_alloc(3 * N * 8), *out = mat_alloc(N * 8);
    for (size_t t = 0; t < sizeof ops / sizeof *ops; t++) {
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < N; i++)
                a[k * N + i] = input64(ops[t].in[k], i, k);
        run64(ops[t].op, a, a + N, a + 2 * N, out, N);
        for (int i = 0; i < N; i++) {
            uint64_t want = ops[t].ref(a[i], a[N + i], a[2 * N + i]);
            int nan = ops[t].in[0] == 2 && isnan(u2d(out[i])) && isnan(u2d(want));
            int fnan = !strncmp(ops[t].op, "cvt.r", 5) && strstr(ops[t].op, "f32.f64") &&
                       isnan(u2f((uint32_t)out[i])) && isnan(u2f((uint32_t)want));
            ck_assert_msg(out[i] == want || nan || fnan,
                          "%s(0x%016llx, 0x%016llx, 0x%016llx) = 0x%016llx, want 0x%016llx",
                          ops[t].op, (unsigned long long)a[i], (unsigned long long)a[N + i],
                          (unsigned long long)a[2 * N + i], (unsigned long long)out[i],
                          (unsigned long long)want);
        }
    }
    free(a);
    free(out);
}
END_TEST

/* ---- conversions
 * --------------------------------------------------------------------------------- */

/* Every f16 value, the midpoints between neighbours, and the floats either side of each: every
 * rounding boundary of f32 -> f16, and (fp_to_f16 of the first 65536) the exact widening. */
static uint32_t *f16_boundaries(int *count)
{
    uint32_t *v = mat_alloc(65536 * 4 * 4);
    int n = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float x = ref_f16_to_f32((uint16_t)h);
        v[n++] = f2u(x);
        if ((h & 0x7C00) == 0x7C00 || (h & 0x7FFF) == 0x7BFF)
            continue;
        float next = ref_f16_to_f32((uint16_t)(h + 1)), mid = x + (next - x) / 2;
        v[n++] = f2u(mid);
        v[n++] = f2u(nextafterf(mid, -INFINITY));
        v[n++] = f2u(nextafterf(mid, INFINITY));
    }
    *count = n;
    return v;
}

/* The f16 value of @p h as a double (NaN for NaNs). */
static double f16v(uint32_t h)
{
    return ref_f16_to_f32((uint16_t)h);
}

/* Is @p h the directed rounding of @p x: toward zero (dir 0), down (-1) or up (1)? Checked by
 * what it means, not by computing it again: no f16 lies strictly between h and x. */
static int directed_ok(uint32_t h, float x, int dir)
{
    if (isnan(x))
        return (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
    double v = f16v(h), ax = fabs(x);
    int toward_zero = dir == 0 || (dir < 0) == (x > 0);
    if (toward_zero) {
        if (fabs(v) > ax || !signbit(v) != !signbit(x))
            return 0;
        /* The next f16 away from zero is past x (or x overflows: then v is the largest). */
        uint32_t up = h + 1;
        return (h & 0x7FFF) == 0x7BFF || fabs(f16v(up)) > ax || (h & 0x7FFF) == 0x7C00;
    }
    if (fabs(v) < ax || !signbit(v) != !signbit(x))
        return 0;
    if ((h & 0x7FFF) == 0)
        return ax == 0;
    return fabs(f16v(h - 1)) < ax || v == x;
}

START_TEST(f16_conversions_at_every_boundary)
{
    int n;
    uint32_t *x = f16_boundaries(&n), *out = mat_alloc((size_t)n * 4);
    run32("cvt.rn.f16.f32", x, x, x, out, n);
    for (int i = 0; i < n; i++) {
        uint32_t want = isnan(u2f(x[i])) ? 0x7FFF : ref_f32_to_f16(u2f(x[i]));
        ck_assert_msg(out[i] == want, "cvt.rn.f16.f32(%a) = 0x%04x, want 0x%04x", u2f(x[i]), out[i],
                      want);
    }
    static const char *const directed[] = {"cvt.rz.f16.f32", "cvt.rm.f16.f32", "cvt.rp.f16.f32"};
    for (int d = 0; d < 3; d++) {
        run32(directed[d], x, x, x, out, n);
        for (int i = 0; i < n; i++)
            ck_assert_msg(directed_ok(out[i], u2f(x[i]),
                                      d == 0   ? 0
                                      : d == 1 ? -1
                                               : 1),
                          "%s(%a) = 0x%04x", directed[d], u2f(x[i]), out[i]);
    }
    /* The packed form rounds two at once: its first source to the upper half. */
    uint32_t *y = mat_alloc((size_t)n * 4);
    for (int i = 0; i < n; i++)
        y[i] = x[(7 * (size_t)i + 3) % (size_t)n];
    run32("cvt.rn.f16x2.f32", x, y, x, out, n);
    for (int i = 0; i < n; i++) {
        uint32_t hi = isnan(u2f(x[i])) ? 0x7FFF : ref_f32_to_f16(u2f(x[i]));
        uint32_t lo = isnan(u2f(y[i])) ? 0x7FFF : ref_f32_to_f16(u2f(y[i]));
        ck_assert_msg(out[i] == (hi << 16 | lo), "cvt.rn.f16x2.f32(%a, %a) = 0x%08x, want 0x%08x",
                      u2f(x[i]), u2f(y[i]), out[i], hi << 16 | lo);
    }
    free(y);
    uint32_t *h = mat_alloc(65536 * 4);
    for (uint32_t i = 0; i < 65536; i++)
        h[i] = i;
    run32("cvt.f32.f16", h, h, h, out, 65536);
    for (uint32_t i = 0; i < 65536; i++)
        ck_assert_msg(out[i] == f2u(ref_f16_to_f32((uint16_t)i)), "cvt.f32.f16(0x%04x) = 0x%08x", i,
                      out[i]);
    free(h);
    free(x);
    free(out);
}
END_TEST

START_TEST(bf16_and_tf32_conversions)
{
    /* Every bf16 value widened, and rounded back from it and from both its neighbours. */
    uint32_t *x = mat_alloc(65536 * 3 * 4), *out = mat_alloc(65536 * 3 * 4);
    for (uint32_t b = 0; b < 65536; b++) {
        x[3 * b] = b << 16;
        x[3 * b + 1] = (b << 16) | 0x8000u;            /* a tie */
        x[3 * b + 2] = (b << 16) | (0x8000u + b % 97); /* just above it */
    }
    run32("cvt.rn.bf16.f32", x, x, x, out, 3 * 65536);
    for (int i = 0; i < 3 * 65536; i++) {
        uint32_t want = isnan(u2f(x[i])) ? 0x7FFF : ref_f32_to_bf16(u2f(x[i]));
        ck_assert_msg(out[i] == want, "cvt.rn.bf16.f32(0x%08x) = 0x%04x, want 0x%04x", x[i], out[i],
                      want);
    }
    uint32_t *y = mat_alloc(65536 * 3 * 4);
    for (int i = 0; i < 3 * 65536; i++)
        y[i] = x[(5 * (size_t)i + 1) % (3 * 65536)];
    run32("cvt.rn.bf16x2.f32", x, y, x, out, 3 * 65536);
    for (int i = 0; i < 3 * 65536; i++) {
        uint32_t hi = isnan(u2f(x[i])) ? 0x7FFF : ref_f32_to_bf16(u2f(x[i]));
        uint32_t lo = isnan(u2f(y[i])) ? 0x7FFF : ref_f32_to_bf16(u2f(y[i]));
        ck_assert_msg(out[i] == (hi << 16 | lo), "cvt.rn.bf16x2.f32(0x%08x, 0x%08x) = 0x%08x", x[i],
                      y[i], out[i]);
    }
    free(y);
    run32("cvt.rz.bf16.f32", x, x, x, out, 3 * 65536);
    for (int i = 0; i < 3 * 65536; i++)
        ck_assert_msg(out[i] == (isnan(u2f(x[i])) ? 0x7FFF : x[i] >> 16),
                      "cvt.rz.bf16.f32(0x%08x) = 0x%04x", x[i], out[i]);
    for (uint32_t b = 0; b < 65536; b++)
        x[b] = b;
    run32("cvt.f32.bf16", x, x, x, out, 65536);
    for (uint32_t b = 0; b < 65536; b++)
        ck_assert_msg(out[b] == b << 16, "cvt.f32.bf16(0x%04x) = 0x%08x", b, out[b]);
    /* tf32, ties away: 10 mantissa bits kept; the first dropped bit rounds the magnitude up. */
    for (int i = 0; i < N; i++)
        x[i] = input32(IN_FLOAT, i, 0) ^ (uint32_t)(i & 0x1FFF);
    run32("cvt.rna.tf32.f32", x, x, x, out, N);
    for (int i = 0; i < N; i++) {
        uint32_t want = isnan(u2f(x[i]))                      ? 0x7FFFE000u
                        : (x[i] & 0x7F800000u) == 0x7F800000u ? x[i]
                                                              : (x[i] + 0x1000u) & ~0x1FFFu;
        ck_assert_msg(out[i] == want, "cvt.rna.tf32.f32(0x%08x) = 0x%08x, want 0x%08x", x[i],
                      out[i], want);
    }
    free(x);
    free(out);
}
END_TEST

/* Float to integer: round as asked, saturate, NaN gives 0. */
static uint32_t f2i(uint32_t a, double (*round)(double), int is_signed)
{
    double v = u2f(a);
    if (isnan(v))
        return 0;
    v = round(v);
    if (is_signed)
        return (uint32_t)(v >= 0x1p31 ? INT32_MAX : v <= -0x1p31 ? INT32_MIN : (int32_t)v);
    return v >= 0x1p32 ? UINT32_MAX : v <= 0 ? 0 : (uint32_t)v;
}

static uint32_t i2f_rz(uint32_t a)
{
    fesetround(FE_TOWARDZERO);
    volatile float f = (float)a;
    fesetround(FE_TONEAREST);
    return f2u(f);
}

R(r_rzi, f2i(a, trunc, 1))
R(r_rni, f2i(a, nearbyint, 1))
R(r_rmi, f2i(a, floor, 1))
R(r_rpi, f2i(a, ceil, 1))
R(r_rzi_u, f2i(a, trunc, 0))
R(r_s2f, f2u((float)s32(a)))
R(r_u2f_rz, i2f_rz(a))
R(r_rni_f, isnan(u2f(a)) ? a : f2u(nearbyintf(u2f(a))))
R(r_sat_s8, (uint32_t)(s32(a) > 127 ? 127 : s32(a) < -128 ? -128 : s32(a)))
R(r_u16, a & 0xFFFF)

START_TEST(integer_float_conversions)
{
    static const struct {
        const char *op;
        ref32 ref;
        enum input in[3];
    } ops[] = {
        {"cvt.rzi.s32.f32", r_rzi, {IN_FLOAT}},   {"cvt.rni.s32.f32", r_rni, {IN_FLOAT}},
        {"cvt.rmi.s32.f32", r_rmi, {IN_FLOAT}},   {"cvt.rpi.s32.f32", r_rpi, {IN_FLOAT}},
        {"cvt.rzi.u32.f32", r_rzi_u, {IN_FLOAT}}, {"cvt.rn.f32.s32", r_s2f, {IN_INT}},
        {"cvt.rz.f32.u32", r_u2f_rz, {IN_INT}},   {"cvt.rni.f32.f32", r_rni_f, {IN_FLOAT}},
        {"cvt.sat.s8.s32", r_sat_s8, {IN_INT}},   {"cvt.u16.u32", r_u16, {IN_INT}},
    };
    RUN_TABLE(ops, FLOAT_EQUAL);
}
END_TEST

/* ---- f16 and bf16 arithmetic ------------------------------------------------------------------
 */

static double bf16v(uint32_t h)
{
    return ref_bf16_to_f32((uint16_t)h);
}

/* Is @p h (bf16 when @p bf, else f16) the value nearest to the exact @p v, ties to even? */
static int nearest_ok(uint32_t h, double v, int bf)
{
    double (*val)(uint32_t) = bf ? bf16v : f16v;
    double e = fabs(val(h) - v), up = fabs(val(h + 1) - v), down = fabs(val(h - 1) - v);
    if (e > up || e > down)
        return 0;
    return (e != up && e != down) || !(h & 1);
}

START_TEST(half_and_bfloat_arithmetic)
{
    static const struct {
        const char *op;
        int kind; /* 0 add, 1 mul, 2 fma */
        int bf;
    } ops[] = {
        {"add.rn.f16", 0, 0}, {"mul.rn.f16", 1, 0}, {"fma.rn.f16", 2, 0}, {"fma.rn.bf16", 2, 1}};
    uint32_t *a = mat_alloc(3 * N * 4), *out = mat_alloc(N * 4);
    for (size_t t = 0; t < sizeof ops / sizeof *ops; t++) {
        for (int i = 0; i < 3 * N; i++)
            a[i] = input32(ops[t].bf ? IN_BF16 : IN_HALF, i, 0);
        run32(ops[t].op, a, a + N, a + 2 * N, out, N);
        double (*v)(uint32_t) = ops[t].bf ? bf16v : f16v;
        for (int i = 0; i < N; i++) {
            double x = v(a[i]), y = v(a[N + i]), z = v(a[2 * N + i]);
            double exact = ops[t].kind == 0 ? x + y : ops[t].kind == 1 ? x * y : x * y + z;
            ck_assert_msg(nearest_ok(out[i] & 0xFFFF, exact, ops[t].bf),
                          "%s(0x%04x, 0x%04x, 0x%04x) = 0x%04x, not the nearest to %a", ops[t].op,
                          a[i], a[N + i], a[2 * N + i], out[i], exact);
        }
    }
    /* f16x2: both halves, independently. */
    for (int i = 0; i < 2 * N; i++)
        a[i] = input32(IN_HALF, i, 0) | input32(IN_HALF, i, 1) << 16;
    run32("add.rn.f16x2", a, a + N, a, out, N);
    for (int i = 0; i < N; i++)
        for (int s = 0; s < 32; s += 16)
            ck_assert_msg(nearest_ok(out[i] >> s & 0xFFFF,
                                     f16v(a[i] >> s & 0xFFFF) + f16v(a[N + i] >> s & 0xFFFF), 0),
                          "add.rn.f16x2 half %d of 0x%08x + 0x%08x = 0x%08x", s / 16, a[i],
                          a[N + i], out[i]);
    free(a);
    free(out);
}
END_TEST

/* set on f16, bf16 and their pairs (1.0 or all ones where the compare, with the predicate's .and,
 * holds; .reg.b16 written as one word, as cuda_fp16.hpp writes it), setp on a pair (p the low
 * halves' compare, q the high ones'), and tanh and ex2 on them,
 * each half the exact function rounded once to nearest even. */
START_TEST(half_set_tanh_and_ex2)
{
    uint32_t *a = mat_alloc(3 * N * 4), *out = mat_alloc(N * 4);
    for (int i = 0; i < N; i++) {
        a[i] = input32(IN_HALF, i, 0) | input32(IN_HALF, i, 1) << 16;
        a[N + i] = i % 5 ? input32(IN_HALF, i, 2) | input32(IN_HALF, i, 0) << 16 : a[i];
        a[2 * N + i] = (uint32_t)(i % 3);
    }
    run32("set.lt.f16x2.f16x2", a, a + N, a + 2 * N, out, N);
    for (int i = 0; i < N; i++)
        for (int h = 0; h < 32; h += 16) {
            uint32_t want = f16v(a[i] >> h & 0xFFFF) < f16v(a[N + i] >> h & 0xFFFF) ? 0x3C00u : 0;
            ck_assert_msg((out[i] >> h & 0xFFFF) == want, "set.lt.f16x2(0x%08x, 0x%08x) = 0x%08x",
                          a[i], a[N + i], out[i]);
        }
    run32("setp.le.and.f16x2", a, a + N, a + 2 * N, out, N); /* p: the low halves, q: the high */
    for (int i = 0; i < N; i++) {
        uint32_t want = 0;
        for (int h = 0; h < 2; h++)
            want |= (uint32_t)(f16v(a[i] >> 16 * h & 0xFFFF) <= f16v(a[N + i] >> 16 * h & 0xFFFF) &&
                               a[2 * N + i])
                    << h;
        ck_assert_msg(out[i] == want,
                      "setp.le.and.f16x2(0x%08x, 0x%08x, c %u): p + 2q = %u, want %u", a[i],
                      a[N + i], a[2 * N + i], out[i], want);
    }
    run32("set.geu.u32.f16", a, a + N, a + 2 * N, out, N);
    for (int i = 0; i < N; i++) {
        double x = f16v(a[i] & 0xFFFF), y = f16v(a[N + i] & 0xFFFF);
        uint32_t want = isnan(x) || isnan(y) || x >= y ? 0xFFFFFFFFu : 0;
        ck_assert_msg(out[i] == want, "set.geu.u32.f16(0x%04x, 0x%04x) = 0x%08x, want 0x%08x",
                      a[i] & 0xFFFF, a[N + i] & 0xFFFF, out[i], want);
    }
    run32("set.ne.and.bf16x2.bf16x2", a, a + N, a + 2 * N, out, N);
    for (int i = 0; i < N; i++)
        for (int h = 0; h < 32; h += 16) {
            uint32_t want =
                bf16v(a[i] >> h & 0xFFFF) != bf16v(a[N + i] >> h & 0xFFFF) && a[2 * N + i] ? 0x3F80u
                                                                                           : 0;
            ck_assert_msg((out[i] >> h & 0xFFFF) == want,
                          "set.ne.and.bf16x2(0x%08x, 0x%08x, c %u) = 0x%08x", a[i], a[N + i],
                          a[2 * N + i], out[i]);
        }
    static const struct {
        const char *op;
        int bf, tanh_, halves;
    } fns[] = {{"tanh.approx.f16x2", 0, 1, 2},
               {"ex2.approx.ftz.bf16x2", 1, 0, 2},
               {"tanh.approx.bf16", 1, 1, 1}};
    for (size_t f = 0; f < sizeof fns / sizeof *fns; f++) {
        enum input k = fns[f].bf ? IN_BF16 : IN_HALF; /* values whose results stay finite */
        for (int i = 0; i < N; i++)
            a[i] = input32(k, i, 0) | input32(k, i, 1) << 16;
        run32(fns[f].op, a, a + N, a + 2 * N, out, N);
        double (*v)(uint32_t) = fns[f].bf ? bf16v : f16v;
        for (int i = 0; i < N; i++)
            for (int h = 0; h < 16 * fns[f].halves; h += 16) {
                double x = v(a[i] >> h & 0xFFFF), exact = fns[f].tanh_ ? tanh(x) : exp2(x);
                ck_assert_msg(nearest_ok(out[i] >> h & 0xFFFF, exact, fns[f].bf),
                              "%s(0x%08x) half %d = 0x%08x, not the nearest to %a", fns[f].op, a[i],
                              h / 16, out[i], exact);
            }
    }
    free(a);
    free(out);
}
END_TEST

/* One 16-bit min (@p max 0) or max with .NaN (@p nan) and .xorsign.abs (@p xs), on f16 or bf16
 * (@p bf) bit patterns: one of the operands, its magnitude signed with the xor of the signs
 * under .xorsign.abs, and the canonical NaN 0x7FFF for both NaN, or either with .NaN. */
static uint32_t hminmax_ref(uint32_t a, uint32_t b, int bf, int max, int nan, int xs)
{
    double (*v)(uint32_t) = bf ? bf16v : f16v;
    uint32_t sign = (a ^ b) & 0x8000u;
    if (xs)
        a &= 0x7FFFu, b &= 0x7FFFu;
    double x = v(a), y = v(b);
    if ((isnan(x) && isnan(y)) || (nan && (isnan(x) || isnan(y))))
        return 0x7FFFu;
    uint32_t r = isnan(x)         ? b
                 : isnan(y)       ? a
                 : x == y         ? ((a >> 15) != (uint32_t)max ? a : b)
                 : (x < y) != max ? a
                                  : b;
    return xs ? r | sign : r;
}

/* max.NaN.f16x2 and min.xorsign.abs.bf16x2, both halves, on values with NaNs and signed zeros
 * among them (max.NaN in a CUTLASS FP8 GEMM's epilogue was refused; the 16-bit forms dropped
 * their modifiers). */
START_TEST(min_max_nan_and_xorsign_16bit)
{
    static const uint32_t special[2][6] = {
        {0x7E00u, 0xFE01u, 0x8000u, 0x0000u, 0x3C00u, 0xBC00u},  /* f16: NaNs, zeros, +-1 */
        {0x7FC0u, 0xFFC1u, 0x8000u, 0x0000u, 0x3F80u, 0xBF80u}}; /* bf16 */
    uint32_t *a = mat_alloc(2 * N * 4), *out = mat_alloc(N * 4);
    for (int bf = 0; bf < 2; bf++) {
        for (int i = 0; i < 2 * N; i++) {
            uint32_t lo = input32(IN_HALF, i, 0), hi = input32(IN_HALF, i, 1);
            if (i % 5 == 0)
                lo = special[bf][(i / 5) % 6];
            if (i % 7 == 3)
                hi = special[bf][(i / 7) % 6];
            a[i] = lo | hi << 16;
        }
        const char *op = bf ? "min.xorsign.abs.bf16x2" : "max.NaN.f16x2";
        run32(op, a, a + N, a, out, N);
        for (int i = 0; i < N; i++)
            for (int h = 0; h < 32; h += 16) {
                uint32_t x = a[i] >> h & 0xFFFF, y = a[N + i] >> h & 0xFFFF;
                uint32_t want = hminmax_ref(x, y, bf, !bf, !bf, bf);
                ck_assert_msg((out[i] >> h & 0xFFFF) == want,
                              "%s half %d of (0x%04x, 0x%04x) = 0x%04x, want 0x%04x", op, h / 16, x,
                              y, out[i] >> h & 0xFFFF, want);
            }
    }
    free(a);
    free(out);
}
END_TEST

/* The value of fp8 byte @p v, from the formats' definitions: e4m3 (bias 7, no infinities,
 * S.1111.111 NaN) or e5m2 (IEEE-style, bias 15). */
static double fp8v(uint32_t v, int e5m2)
{
    int man_bits = e5m2 ? 2 : 3, e = (int)(v & 0x7F) >> man_bits,
        man = (int)v & ((1 << man_bits) - 1);
    int bias = e5m2 ? 15 : 7, top = e5m2 ? 31 : 15;
    double mag = e == 0 ? ldexp(man, 1 - bias - man_bits)
                        : ldexp((1 << man_bits) + man, e - bias - man_bits);
    if (e == top && (e5m2 || man == (1 << man_bits) - 1))
        mag = e5m2 && man == 0 ? INFINITY : NAN;
    return v & 0x80 ? -mag : mag;
}

/* What cvt.rn.satfinite{.relu} makes of @p x in fp8: the largest finite byte of x's sign beyond
 * the largest finite value (infinities too), else the nearest finite value found by trying
 * every byte of x's sign (ties to the even one); 0x7F for NaN; with @p relu negatives +0. */
static uint32_t fp8_ref(double x, int e5m2, int relu)
{
    if (isnan(x))
        return 0x7F;
    if (relu && x < 0)
        x = 0;
    uint32_t best = 0, top = 0, sign = signbit(x) ? 0x80 : 0;
    double err = INFINITY;
    for (uint32_t v = sign; v < sign + 128; v++) {
        double y = fp8v(v, e5m2), d = fabs(y - x);
        if (!isfinite(y))
            continue;
        top = fabs(y) > fabs(fp8v(top, e5m2)) ? v : top;
        if (d < err || (d == err && !(v & 1)))
            best = v, err = d;
    }
    return fabs(x) > fabs(fp8v(top, e5m2)) ? top : best;
}

/* sm_89's fp8 conversions (CUDA's __nv_cvt_float2_to_fp8x2 and friends; a CUTLASS FP8 GEMM's
 * epilogue): f32 pairs at the formats' edges and at random, every f16 through the f16x2 form,
 * and every fp8 pair back to f16x2, each against the formats' definitions above. */
START_TEST(fp8_conversions_against_the_formats)
{
    static const float edges[] = {
        0.0f,    -0.0f,    1.0f,       -1.5f,    448.0f,   449.0f,     464.0f,         465.0f,
        -480.0f, 57344.0f, 61439.0f,   61440.0f, 1e30f,    -INFINITY,  INFINITY,       NAN,
        0x1p-9f, 0x1p-10f, 0x1.8p-10f, 0x1p-16f, 0x1p-17f, 0x1.1p-17f, 3.0f * 0x1p-8f, 0.3f,
        -17.25f, 240.0f};
    enum { E = sizeof edges / sizeof *edges, M = 65536 };
    uint32_t *a = mat_alloc(3 * M * 4), *out = mat_alloc(M * 4);
    for (int i = 0; i < M; i++) { /* every pair of edges, then random values */
        float x = i < E * E ? edges[i % E] : u2f((uint32_t)vm_case_rand() & 0xC7FFFFFFu);
        float y = i < E * E ? edges[i / E] : ldexpf((float)(vm_case_rand() % 2001) - 1000, -4);
        a[i] = f2u(x), a[M + i] = f2u(y);
    }
    for (int e5m2 = 0; e5m2 < 2; e5m2++) {
        const char *op = e5m2 ? "cvt.rn.satfinite.relu.e5m2x2.f32" : "cvt.rn.satfinite.e4m3x2.f32";
        run32(op, a, a + M, a, out, M);
        for (int i = 0; i < M; i++) {
            uint32_t want =
                fp8_ref(u2f(a[i]), e5m2, e5m2) << 8 | fp8_ref(u2f(a[M + i]), e5m2, e5m2);
            ck_assert_msg((out[i] & 0xFFFF) == want, "%s(%a, %a) = 0x%04x, want 0x%04x", op,
                          (double)u2f(a[i]), (double)u2f(a[M + i]), out[i] & 0xFFFF, want);
        }
    }
    for (int i = 0; i < M; i++) /* every f16 in the upper half, its complement in the lower */
        a[i] = (uint32_t)i << 16 | (uint32_t)(0xFFFF - i);
    for (int e5m2 = 0; e5m2 < 2; e5m2++) {
        const char *op = e5m2 ? "cvt.rn.satfinite.e5m2x2.f16x2" : "cvt.rn.satfinite.e4m3x2.f16x2";
        run32(op, a, a, a, out, M);
        for (int i = 0; i < M; i++) {
            uint32_t want =
                fp8_ref(f16v(a[i] >> 16), e5m2, 0) << 8 | fp8_ref(f16v(a[i] & 0xFFFF), e5m2, 0);
            ck_assert_msg((out[i] & 0xFFFF) == want, "%s(0x%08x) = 0x%04x, want 0x%04x", op, a[i],
                          out[i] & 0xFFFF, want);
        }
    }
    for (int e5m2 = 0; e5m2 < 2; e5m2++) { /* every fp8 pair back to f16x2 */
        const char *op = e5m2 ? "cvt.rn.relu.f16x2.e5m2x2" : "cvt.rn.f16x2.e4m3x2";
        run32(op, a, a, a, out, M);
        for (int i = 0; i < M; i++)
            for (int h = 0; h < 2; h++) {
                double v = fp8v(a[i] >> (8 * h) & 0xFF, e5m2); /* the low 16 bits */
                v = e5m2 && v < 0 ? 0 : v;
                uint32_t got = out[i] >> (16 * h) & 0xFFFF;
                ck_assert_msg(isnan(v) ? got == 0x7FFF
                                       : f16v(got) == v && signbit(f16v(got)) == signbit(v),
                              "%s(0x%04x) half %d = 0x%04x, want %a", op, a[i] & 0xFFFF, h, got, v);
            }
    }
    free(a);
    free(out);
}
END_TEST

/* prmt in every mode, bfe's sign extension and bfi at the edges: values worked out by hand from
 * the PTX ISA's tables (a's bytes are 00 11 22 33, b's 44 55 66 77, lowest first); fns, dp4a and
 * dp2a likewise. */
START_TEST(prmt_bfe_bfi_by_hand)
{
    static const struct {
        const char *op;
        uint32_t a, b, c, want;
    } cases[] = {
        {"prmt.b32", 0x03020100u, 0x07060504u, 0x5140u, 0x05010400u},
        {"prmt.b32", 0x00007F80u, 0, 0x3218u, 0x00007FFFu}, /* selector 8: byte 0's sign */
        {"prmt.b32", 0x00007F80u, 0, 0x3299u, 0x00000000u}, /* selector 9: byte 1's sign */
        {"prmt.b32.f4e", 0x33221100u, 0x77665544u, 1, 0x44332211u},
        {"prmt.b32.b4e", 0x33221100u, 0x77665544u, 0, 0x55667700u},
        {"prmt.b32.b4e", 0x33221100u, 0x77665544u, 3, 0x00112233u},
        {"prmt.b32.rc8", 0x33221100u, 0x77665544u, 2, 0x22222222u},
        {"prmt.b32.ecl", 0x33221100u, 0x77665544u, 1, 0x33221111u},
        {"prmt.b32.ecr", 0x33221100u, 0x77665544u, 2, 0x22221100u},
        {"prmt.b32.rc16", 0x33221100u, 0x77665544u, 1, 0x33223322u},
        {"bfe.s32", 0x00000080u, 4, 4, 0xFFFFFFF8u}, /* the field's top bit is set */
        {"bfe.u32", 0x00000080u, 4, 4, 0x00000008u},
        {"bfe.s32", 0x80000000u, 28, 8, 0xFFFFFFF8u}, /* past bit 31: bit 31 is the sign */
        {"bfe.s32", 0x12345678u, 0, 0, 0},            /* no bits */
        {"bfe.s32", 0x80000000u, 40, 4, 0xFFFFFFFFu}, /* start past the word: all sign */
        {"bfe.u32", 0x80000000u, 40, 4, 0},
        {"bfe.s32", 0x00000040u, 6, 1, 0xFFFFFFFFu}, /* one bit, set */
        {"bfi.b32", 0x0000000Fu, 0xFFFF0000u, 8 << 8 | 4, 0xFFFF00F0u},
        {"bfi.b32", 0x000000FFu, 0, 8 << 8 | 28, 0xF0000000u},          /* cut at bit 31 */
        {"bfi.b32", 0x000000FFu, 0x12345678u, 0 << 8 | 4, 0x12345678u}, /* no bits */
        {"fns.b32", 0xAAAAAAAAu, 3, 1, 3}, /* the PTX ISA's four examples */
        {"fns.b32", 0xAAAAAAAAu, 3, (uint32_t)-1, 3},
        {"fns.b32", 0xAAAAAAAAu, 2, 1, 3},
        {"fns.b32", 0xAAAAAAAAu, 2, (uint32_t)-1, 1},
        {"dp4a.s32.s32", 0x01FF7F80u, 0xFF0102FEu, 5, 5 + -128 * -2 + 127 * 2 + -1 * 1 + 1 * -1},
        {"dp2a.hi.s32.s32", 0xFFFF8000u, 0x02FE0000u, 0, (uint32_t)(-32768 * -2 + -1 * 2)},
    };
    enum { K = sizeof cases / sizeof *cases };
    for (int i = 0; i < K; i++) {
        uint32_t out;
        run32(cases[i].op, &cases[i].a, &cases[i].b, &cases[i].c, &out, 1);
        ck_assert_msg(out == cases[i].want, "%s(0x%08x, 0x%08x, 0x%x) = 0x%08x, want 0x%08x",
                      cases[i].op, cases[i].a, cases[i].b, cases[i].c, out, cases[i].want);
    }
}
END_TEST

/* ---- a case by hand ------------------------------------------------------------------------ */

/* The shape of a new case, as emulator/README.md shows it: PTX text, inputs, expectation. */
static const char twice_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                ".visible .entry twice(.param .u64 out)\n{\n"
                                "  .reg .b32 %r<3>;\n  .reg .b64 %rd<4>;\n"
                                "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n"
                                "  shl.b32 %r2, %r1, 1;\n  mul.wide.u32 %rd2, %r1, 4;\n"
                                "  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r2;\n"
                                "  ret;\n}\n";

START_TEST(twice_per_thread)
{
    struct vm_case c;
    vm_case_open(&c, twice_ptx);
    uint64_t d_out = vm_case_buffer(&c, NULL, 33 * 4);
    void *args[] = {&d_out};
    ck_assert_int_eq(vm_case_run(&c, "twice", VM_GRID(1), VM_BLOCK(33), args), VM_OK);
    uint32_t out[33];
    vm_case_read(&c, out, d_out, sizeof out);
    for (uint32_t t = 0; t < 33; t++)
        ck_assert_uint_eq(out[t], 2 * t);
    vm_case_close(&c);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"integer_instructions", integer_instructions, CASE_CPU, 120},
        {"fp32_instructions_every_rounding_mode", fp32_instructions_every_rounding_mode, CASE_CPU,
         120},
        {"approximations_within_their_bounds", approximations_within_their_bounds, CASE_CPU, 60},
        {"fast_math_forms_within_their_bounds", fast_math_forms_within_their_bounds, CASE_CPU, 60},
        {"sixty_four_bit_instructions", sixty_four_bit_instructions, CASE_CPU, 120},
        {"f16_conversions_at_every_boundary", f16_conversions_at_every_boundary, CASE_CPU, 120},
        {"bf16_and_tf32_conversions", bf16_and_tf32_conversions, CASE_CPU, 120},
        {"integer_float_conversions", integer_float_conversions, CASE_CPU, 60},
        {"half_and_bfloat_arithmetic", half_and_bfloat_arithmetic, CASE_CPU, 60},
        {"half_set_tanh_and_ex2", half_set_tanh_and_ex2, CASE_CPU, 60},
        {"min_max_nan_and_xorsign_16bit", min_max_nan_and_xorsign_16bit, CASE_CPU, 60},
        {"fp8_conversions_against_the_formats", fp8_conversions_against_the_formats, CASE_CPU, 60},
        {"prmt_bfe_bfi_by_hand", prmt_bfe_bfi_by_hand, CASE_CPU, 60},
        {"twice_per_thread", twice_per_thread, CASE_CPU, 20},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
