/**
 * @file test_vm_kernels.cu
 * @brief Kernels for the VM's suite (test_vm.c): one PTX instruction each for the arithmetic,
 *        logic and conversion families, and small programs for memory, atomics, warp-level
 *        instructions, divergence, barriers, failures, printf and the tensor instructions.
 *
 * Inline asm pins the exact instruction; test_vm.c knows what each must give.
 */
#include "test_vm.h"

#undef NDEBUG /* the assert kernel needs assert() in every build type */
#include <cassert>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

/* ---- one instruction, elementwise ------------------------------------------------------- */

#define OP32(FN, ASM)                                                                              \
    static __device__ uint32_t FN(uint32_t a, uint32_t b, uint32_t c)                              \
    {                                                                                              \
        uint32_t d;                                                                                \
        asm volatile(ASM : "=r"(d) : "r"(a), "r"(b), "r"(c));                                      \
        return d;                                                                                  \
    }

#define OP64(FN, ASM)                                                                              \
    static __device__ uint64_t FN(uint64_t a, uint64_t b, uint64_t c)                              \
    {                                                                                              \
        uint64_t d;                                                                                \
        asm volatile(ASM : "=l"(d) : "l"(a), "l"(b), "l"(c));                                      \
        return d;                                                                                  \
    }

/* 32-bit instructions: d = OP(a, b, c) on 32-bit words (float bits for fp32). */
OP32(op_popc_b32, "popc.b32 %0, %1;")
OP32(op_clz_b32, "clz.b32 %0, %1;")
OP32(op_brev_b32, "brev.b32 %0, %1;")
OP32(op_bfind_u32, "bfind.u32 %0, %1;")
OP32(op_bfind_s32, "bfind.s32 %0, %1;")
OP32(op_bfind_shiftamt_u32, "bfind.shiftamt.u32 %0, %1;")
OP32(op_not_b32, "not.b32 %0, %1;")
OP32(op_cnot_b32, "cnot.b32 %0, %1;")
OP32(op_abs_s32, "abs.s32 %0, %1;")
OP32(op_neg_s32, "neg.s32 %0, %1;")
OP32(op_add_s32, "add.s32 %0, %1, %2;")
OP32(op_add_sat_s32, "add.sat.s32 %0, %1, %2;")
OP32(op_sub_s32, "sub.s32 %0, %1, %2;")
OP32(op_sub_sat_s32, "sub.sat.s32 %0, %1, %2;")
OP32(op_mul_lo_s32, "mul.lo.s32 %0, %1, %2;")
OP32(op_mul_hi_s32, "mul.hi.s32 %0, %1, %2;")
OP32(op_mul_hi_u32, "mul.hi.u32 %0, %1, %2;")
OP32(op_mul24_lo_s32, "mul24.lo.s32 %0, %1, %2;")
OP32(op_mul24_lo_u32, "mul24.lo.u32 %0, %1, %2;")
OP32(op_div_s32, "div.s32 %0, %1, %2;")
OP32(op_div_u32, "div.u32 %0, %1, %2;")
OP32(op_rem_s32, "rem.s32 %0, %1, %2;")
OP32(op_rem_u32, "rem.u32 %0, %1, %2;")
OP32(op_min_s32, "min.s32 %0, %1, %2;")
OP32(op_min_u32, "min.u32 %0, %1, %2;")
OP32(op_max_s32, "max.s32 %0, %1, %2;")
OP32(op_max_u32, "max.u32 %0, %1, %2;")
OP32(op_and_b32, "and.b32 %0, %1, %2;")
OP32(op_or_b32, "or.b32 %0, %1, %2;")
OP32(op_xor_b32, "xor.b32 %0, %1, %2;")
OP32(op_shl_b32, "shl.b32 %0, %1, %2;")
OP32(op_shr_u32, "shr.u32 %0, %1, %2;")
OP32(op_shr_s32, "shr.s32 %0, %1, %2;")
OP32(op_setp_lt_s32, "{ .reg .pred p; setp.lt.s32 p, %1, %2; selp.u32 %0, 1, 0, p; }")
OP32(op_setp_lo_u32, "{ .reg .pred p; setp.lo.u32 p, %1, %2; selp.u32 %0, 1, 0, p; }")
OP32(op_setp_hs_u32, "{ .reg .pred p; setp.hs.u32 p, %1, %2; selp.u32 %0, 1, 0, p; }")
OP32(op_mad_lo_s32, "mad.lo.s32 %0, %1, %2, %3;")
OP32(op_mad_hi_s32, "mad.hi.s32 %0, %1, %2, %3;")
OP32(op_mad_hi_u32, "mad.hi.u32 %0, %1, %2, %3;")
OP32(op_mad24_lo_s32, "mad24.lo.s32 %0, %1, %2, %3;")
OP32(op_sad_u32, "sad.u32 %0, %1, %2, %3;")
OP32(op_sad_s32, "sad.s32 %0, %1, %2, %3;")
OP32(op_bfe_u32, "bfe.u32 %0, %1, %2, %3;")
OP32(op_bfe_s32, "bfe.s32 %0, %1, %2, %3;")
OP32(op_bfi_b32, "{ .reg .b32 pos, len; and.b32 pos, %3, 255; shr.u32 len, %3, 8; and.b32 len, "
                 "len, 255; bfi.b32 %0, %1, %2, pos, len; }")
OP32(op_prmt_b32, "prmt.b32 %0, %1, %2, %3;")
OP32(op_prmt_b32_f4e, "prmt.b32.f4e %0, %1, %2, %3;")
OP32(op_prmt_b32_b4e, "prmt.b32.b4e %0, %1, %2, %3;")
OP32(op_prmt_b32_rc8, "prmt.b32.rc8 %0, %1, %2, %3;")
OP32(op_prmt_b32_ecl, "prmt.b32.ecl %0, %1, %2, %3;")
OP32(op_prmt_b32_ecr, "prmt.b32.ecr %0, %1, %2, %3;")
OP32(op_prmt_b32_rc16, "prmt.b32.rc16 %0, %1, %2, %3;")
OP32(op_shf_l_wrap_b32, "shf.l.wrap.b32 %0, %1, %2, %3;")
OP32(op_shf_r_wrap_b32, "shf.r.wrap.b32 %0, %1, %2, %3;")
OP32(op_shf_l_clamp_b32, "shf.l.clamp.b32 %0, %1, %2, %3;")
OP32(op_shf_r_clamp_b32, "shf.r.clamp.b32 %0, %1, %2, %3;")
OP32(op_lop3_b32_xor3, "lop3.b32 %0, %1, %2, %3, 0x96;")
OP32(op_lop3_b32_maj, "lop3.b32 %0, %1, %2, %3, 0xE8;")
OP32(op_setp_ge_and_s32,
     "{ .reg .pred c, p, q; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.ge.and.s32 p|q, %1, %2, c; "
     "selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }")
OP32(op_setp_lt_xor_s32,
     "{ .reg .pred c, p, q; .reg .b32 t; setp.ne.u32 c, %3, 0; setp.lt.xor.s32 p|q, %1, %2, !c; "
     "selp.u32 %0, 1, 0, p; selp.u32 t, 2, 0, q; add.u32 %0, %0, t; }")
OP32(op_add_rn_f32, "add.rn.f32 %0, %1, %2;")
OP32(op_sub_rn_f32, "sub.rn.f32 %0, %1, %2;")
OP32(op_mul_rn_f32, "mul.rn.f32 %0, %1, %2;")
OP32(op_fma_rn_f32, "fma.rn.f32 %0, %1, %2, %3;")
OP32(op_add_rz_f32, "add.rz.f32 %0, %1, %2;")
OP32(op_add_rm_f32, "add.rm.f32 %0, %1, %2;")
OP32(op_add_rp_f32, "add.rp.f32 %0, %1, %2;")
OP32(op_mul_rz_f32, "mul.rz.f32 %0, %1, %2;")
OP32(op_mul_rm_f32, "mul.rm.f32 %0, %1, %2;")
OP32(op_mul_rp_f32, "mul.rp.f32 %0, %1, %2;")
OP32(op_fma_rz_f32, "fma.rz.f32 %0, %1, %2, %3;")
OP32(op_fma_rm_f32, "fma.rm.f32 %0, %1, %2, %3;")
OP32(op_fma_rp_f32, "fma.rp.f32 %0, %1, %2, %3;")
OP32(op_div_rn_f32, "div.rn.f32 %0, %1, %2;")
OP32(op_div_rz_f32, "div.rz.f32 %0, %1, %2;")
OP32(op_sqrt_rn_f32, "sqrt.rn.f32 %0, %1;")
OP32(op_rcp_rn_f32, "rcp.rn.f32 %0, %1;")
OP32(op_min_f32, "min.f32 %0, %1, %2;")
OP32(op_max_f32, "max.f32 %0, %1, %2;")
OP32(op_abs_f32, "abs.f32 %0, %1;")
OP32(op_neg_f32, "neg.f32 %0, %1;")
OP32(op_add_ftz_f32, "add.ftz.f32 %0, %1, %2;")
OP32(op_mul_sat_f32, "mul.sat.f32 %0, %1, %2;")
OP32(op_copysign_f32, "copysign.f32 %0, %1, %2;")
OP32(op_ex2_approx_f32, "ex2.approx.f32 %0, %1;")
OP32(op_lg2_approx_f32, "lg2.approx.f32 %0, %1;")
OP32(op_sin_approx_f32, "sin.approx.f32 %0, %1;")
OP32(op_cos_approx_f32, "cos.approx.f32 %0, %1;")
OP32(op_rsqrt_approx_f32, "rsqrt.approx.f32 %0, %1;")
OP32(op_tanh_approx_f32, "tanh.approx.f32 %0, %1;")
OP32(op_ex2_approx_ftz_f32, "ex2.approx.ftz.f32 %0, %1;")
OP32(op_rcp_approx_f32, "rcp.approx.f32 %0, %1;")
OP32(op_rcp_approx_ftz_f32, "rcp.approx.ftz.f32 %0, %1;")
OP32(op_div_approx_f32, "div.approx.f32 %0, %1, %2;")
OP32(op_div_approx_ftz_f32, "div.approx.ftz.f32 %0, %1, %2;")
OP32(op_div_full_f32, "div.full.f32 %0, %1, %2;")
OP32(op_div_full_ftz_f32, "div.full.ftz.f32 %0, %1, %2;")
OP32(op_testp_finite_f32, "{ .reg .pred p; testp.finite.f32 p, %1; selp.u32 %0, 1, 0, p; }")
OP32(op_testp_subnormal_f32, "{ .reg .pred p; testp.subnormal.f32 p, %1; selp.u32 %0, 1, 0, p; }")
OP32(op_setp_ltu_f32, "{ .reg .pred p; setp.ltu.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }")
OP32(op_setp_nan_f32, "{ .reg .pred p; setp.nan.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }")
OP32(op_setp_ne_f32, "{ .reg .pred p; setp.ne.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }")
OP32(op_cvt_rn_f16_f32, "{ .reg .b16 h; cvt.rn.f16.f32 h, %1; cvt.u32.u16 %0, h; }")
OP32(op_cvt_rz_f16_f32, "{ .reg .b16 h; cvt.rz.f16.f32 h, %1; cvt.u32.u16 %0, h; }")
OP32(op_cvt_rm_f16_f32, "{ .reg .b16 h; cvt.rm.f16.f32 h, %1; cvt.u32.u16 %0, h; }")
OP32(op_cvt_rp_f16_f32, "{ .reg .b16 h; cvt.rp.f16.f32 h, %1; cvt.u32.u16 %0, h; }")
OP32(op_cvt_f32_f16, "{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.f32.f16 %0, h; }")
OP32(op_cvt_rn_bf16_f32, "{ .reg .b16 h; cvt.rn.bf16.f32 h, %1; cvt.u32.u16 %0, h; }")
OP32(op_cvt_rn_f16x2_f32, "cvt.rn.f16x2.f32 %0, %1, %2;")
OP32(op_cvt_rn_bf16x2_f32, "cvt.rn.bf16x2.f32 %0, %1, %2;")
OP32(op_cvt_rz_bf16_f32, "{ .reg .b16 h; cvt.rz.bf16.f32 h, %1; cvt.u32.u16 %0, h; }")
OP32(op_cvt_f32_bf16, "{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.f32.bf16 %0, h; }")
OP32(op_cvt_rna_tf32_f32, "cvt.rna.tf32.f32 %0, %1;")
OP32(op_cvt_rzi_s32_f32, "cvt.rzi.s32.f32 %0, %1;")
OP32(op_cvt_rni_s32_f32, "cvt.rni.s32.f32 %0, %1;")
OP32(op_cvt_rmi_s32_f32, "cvt.rmi.s32.f32 %0, %1;")
OP32(op_cvt_rpi_s32_f32, "cvt.rpi.s32.f32 %0, %1;")
OP32(op_cvt_rzi_u32_f32, "cvt.rzi.u32.f32 %0, %1;")
OP32(op_cvt_rn_f32_s32, "cvt.rn.f32.s32 %0, %1;")
OP32(op_cvt_rz_f32_u32, "cvt.rz.f32.u32 %0, %1;")
OP32(op_cvt_rni_f32_f32, "cvt.rni.f32.f32 %0, %1;")
OP32(op_cvt_sat_s8_s32, "{ .reg .b16 h; cvt.sat.s8.s32 h, %1; cvt.s32.s8 %0, h; }")
OP32(op_cvt_u16_u32, "{ .reg .b16 h; cvt.u16.u32 h, %1; cvt.u32.u16 %0, h; }")
OP32(op_add_rn_f16, "{ .reg .b16 x, y, z; cvt.u16.u32 x, %1; cvt.u16.u32 y, %2; add.rn.f16 z, x, "
                    "y; cvt.u32.u16 %0, z; }")
OP32(op_mul_rn_f16, "{ .reg .b16 x, y, z; cvt.u16.u32 x, %1; cvt.u16.u32 y, %2; mul.rn.f16 z, x, "
                    "y; cvt.u32.u16 %0, z; }")
OP32(op_fma_rn_f16, "{ .reg .b16 x, y, w, z; cvt.u16.u32 x, %1; cvt.u16.u32 y, %2; cvt.u16.u32 w, "
                    "%3; fma.rn.f16 z, x, y, w; cvt.u32.u16 %0, z; }")
OP32(op_fma_rn_bf16, "{ .reg .b16 x, y, w, z; cvt.u16.u32 x, %1; cvt.u16.u32 y, %2; cvt.u16.u32 w, "
                     "%3; fma.rn.bf16 z, x, y, w; cvt.u32.u16 %0, z; }")
OP32(op_add_rn_f16x2, "add.rn.f16x2 %0, %1, %2;")

/* 64-bit instructions. */
OP64(op_add_s64, "add.s64 %0, %1, %2;")
OP64(op_sub_s64, "sub.s64 %0, %1, %2;")
OP64(op_mul_lo_s64, "mul.lo.s64 %0, %1, %2;")
OP64(op_mul_hi_u64, "mul.hi.u64 %0, %1, %2;")
OP64(op_mul_hi_s64, "mul.hi.s64 %0, %1, %2;")
OP64(op_div_s64, "div.s64 %0, %1, %2;")
OP64(op_div_u64, "div.u64 %0, %1, %2;")
OP64(op_rem_s64, "rem.s64 %0, %1, %2;")
OP64(op_rem_u64, "rem.u64 %0, %1, %2;")
OP64(op_min_s64, "min.s64 %0, %1, %2;")
OP64(op_max_u64, "max.u64 %0, %1, %2;")
OP64(op_shl_b64, "{ .reg .b32 s; cvt.u32.u64 s, %2; shl.b64 %0, %1, s; }")
OP64(op_shr_s64, "{ .reg .b32 s; cvt.u32.u64 s, %2; shr.s64 %0, %1, s; }")
OP64(op_shr_u64, "{ .reg .b32 s; cvt.u32.u64 s, %2; shr.u64 %0, %1, s; }")
OP64(op_brev_b64, "brev.b64 %0, %1;")
OP64(op_popc_b64, "{ .reg .b32 r; popc.b64 r, %1; cvt.u64.u32 %0, r; }")
OP64(op_clz_b64, "{ .reg .b32 r; clz.b64 r, %1; cvt.u64.u32 %0, r; }")
OP64(op_bfe_u64, "{ .reg .b32 p, l; cvt.u32.u64 p, %2; cvt.u32.u64 l, %3; bfe.u64 %0, %1, p, l; }")
OP64(op_bfe_s64, "{ .reg .b32 p, l; cvt.u32.u64 p, %2; cvt.u32.u64 l, %3; bfe.s64 %0, %1, p, l; }")
OP64(op_mul_wide_s32,
     "{ .reg .b32 x, y; cvt.u32.u64 x, %1; cvt.u32.u64 y, %2; mul.wide.s32 %0, x, y; }")
OP64(op_mul_wide_u32,
     "{ .reg .b32 x, y; cvt.u32.u64 x, %1; cvt.u32.u64 y, %2; mul.wide.u32 %0, x, y; }")
OP64(op_mad_wide_s32,
     "{ .reg .b32 x, y; cvt.u32.u64 x, %1; cvt.u32.u64 y, %2; mad.wide.s32 %0, x, y, %3; }")
OP64(op_cvt_s64_s32, "{ .reg .b32 x; cvt.u32.u64 x, %1; cvt.s64.s32 %0, x; }")
OP64(op_add_rn_f64, "add.rn.f64 %0, %1, %2;")
OP64(op_mul_rn_f64, "mul.rn.f64 %0, %1, %2;")
OP64(op_fma_rn_f64, "fma.rn.f64 %0, %1, %2, %3;")
OP64(op_div_rn_f64, "div.rn.f64 %0, %1, %2;")
OP64(op_sqrt_rn_f64, "sqrt.rn.f64 %0, %1;")
OP64(op_min_f64, "min.f64 %0, %1, %2;")
OP64(op_add_rm_f64, "add.rm.f64 %0, %1, %2;")
OP64(op_add_rp_f64, "add.rp.f64 %0, %1, %2;")
OP64(op_add_rz_f64, "add.rz.f64 %0, %1, %2;")
OP64(op_mul_rm_f64, "mul.rm.f64 %0, %1, %2;")
OP64(op_fma_rp_f64, "fma.rp.f64 %0, %1, %2, %3;")
OP64(op_div_rz_f64, "div.rz.f64 %0, %1, %2;")
OP64(op_sqrt_rm_f64, "sqrt.rm.f64 %0, %1;")
OP64(op_cvt_rn_f32_f64,
     "{ .reg .f32 f; .reg .b32 r; cvt.rn.f32.f64 f, %1; mov.b32 r, f; cvt.u64.u32 %0, r; }")
OP64(op_cvt_rz_f32_f64,
     "{ .reg .f32 f; .reg .b32 r; cvt.rz.f32.f64 f, %1; mov.b32 r, f; cvt.u64.u32 %0, r; }")
OP64(op_cvt_f64_f32,
     "{ .reg .f32 f; .reg .b32 r; cvt.u32.u64 r, %1; mov.b32 f, r; cvt.f64.f32 %0, f; }")
OP64(op_cvt_rzi_s64_f64, "cvt.rzi.s64.f64 %0, %1;")
OP64(op_cvt_rn_f64_s64, "cvt.rn.f64.s64 %0, %1;")
OP64(op_cvt_rn_f32_s64,
     "{ .reg .f32 f; .reg .b32 r; cvt.rn.f32.s64 f, %1; mov.b32 r, f; cvt.u64.u32 %0, r; }")

template <uint32_t (*F)(uint32_t, uint32_t, uint32_t)>
static __global__ void apply32(const uint32_t *a, const uint32_t *b, const uint32_t *c,
                               uint32_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = F(a[i], b[i], c[i]);
}

template <uint64_t (*F)(uint64_t, uint64_t, uint64_t)>
static __global__ void apply64(const uint64_t *a, const uint64_t *b, const uint64_t *c,
                               uint64_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = F(a[i], b[i], c[i]);
}

typedef void (*kernel32)(const uint32_t *, const uint32_t *, const uint32_t *, uint32_t *, int);
typedef void (*kernel64)(const uint64_t *, const uint64_t *, const uint64_t *, uint64_t *, int);

static const struct {
    const char *name;
    kernel32 kernel;
} ops32[] = {
    {"popc.b32", apply32<op_popc_b32>},
    {"clz.b32", apply32<op_clz_b32>},
    {"brev.b32", apply32<op_brev_b32>},
    {"bfind.u32", apply32<op_bfind_u32>},
    {"bfind.s32", apply32<op_bfind_s32>},
    {"bfind.shiftamt.u32", apply32<op_bfind_shiftamt_u32>},
    {"not.b32", apply32<op_not_b32>},
    {"cnot.b32", apply32<op_cnot_b32>},
    {"abs.s32", apply32<op_abs_s32>},
    {"neg.s32", apply32<op_neg_s32>},
    {"add.s32", apply32<op_add_s32>},
    {"add.sat.s32", apply32<op_add_sat_s32>},
    {"sub.s32", apply32<op_sub_s32>},
    {"sub.sat.s32", apply32<op_sub_sat_s32>},
    {"mul.lo.s32", apply32<op_mul_lo_s32>},
    {"mul.hi.s32", apply32<op_mul_hi_s32>},
    {"mul.hi.u32", apply32<op_mul_hi_u32>},
    {"mul24.lo.s32", apply32<op_mul24_lo_s32>},
    {"mul24.lo.u32", apply32<op_mul24_lo_u32>},
    {"div.s32", apply32<op_div_s32>},
    {"div.u32", apply32<op_div_u32>},
    {"rem.s32", apply32<op_rem_s32>},
    {"rem.u32", apply32<op_rem_u32>},
    {"min.s32", apply32<op_min_s32>},
    {"min.u32", apply32<op_min_u32>},
    {"max.s32", apply32<op_max_s32>},
    {"max.u32", apply32<op_max_u32>},
    {"and.b32", apply32<op_and_b32>},
    {"or.b32", apply32<op_or_b32>},
    {"xor.b32", apply32<op_xor_b32>},
    {"shl.b32", apply32<op_shl_b32>},
    {"shr.u32", apply32<op_shr_u32>},
    {"shr.s32", apply32<op_shr_s32>},
    {"setp.lt.s32", apply32<op_setp_lt_s32>},
    {"setp.lo.u32", apply32<op_setp_lo_u32>},
    {"setp.hs.u32", apply32<op_setp_hs_u32>},
    {"mad.lo.s32", apply32<op_mad_lo_s32>},
    {"mad.hi.s32", apply32<op_mad_hi_s32>},
    {"mad.hi.u32", apply32<op_mad_hi_u32>},
    {"mad24.lo.s32", apply32<op_mad24_lo_s32>},
    {"sad.u32", apply32<op_sad_u32>},
    {"sad.s32", apply32<op_sad_s32>},
    {"bfe.u32", apply32<op_bfe_u32>},
    {"bfe.s32", apply32<op_bfe_s32>},
    {"bfi.b32", apply32<op_bfi_b32>},
    {"prmt.b32", apply32<op_prmt_b32>},
    {"prmt.b32.f4e", apply32<op_prmt_b32_f4e>},
    {"prmt.b32.b4e", apply32<op_prmt_b32_b4e>},
    {"prmt.b32.rc8", apply32<op_prmt_b32_rc8>},
    {"prmt.b32.ecl", apply32<op_prmt_b32_ecl>},
    {"prmt.b32.ecr", apply32<op_prmt_b32_ecr>},
    {"prmt.b32.rc16", apply32<op_prmt_b32_rc16>},
    {"shf.l.wrap.b32", apply32<op_shf_l_wrap_b32>},
    {"shf.r.wrap.b32", apply32<op_shf_r_wrap_b32>},
    {"shf.l.clamp.b32", apply32<op_shf_l_clamp_b32>},
    {"shf.r.clamp.b32", apply32<op_shf_r_clamp_b32>},
    {"lop3.b32.xor3", apply32<op_lop3_b32_xor3>},
    {"lop3.b32.maj", apply32<op_lop3_b32_maj>},
    {"setp.ge.and.s32", apply32<op_setp_ge_and_s32>},
    {"setp.lt.xor.s32", apply32<op_setp_lt_xor_s32>},
    {"add.rn.f32", apply32<op_add_rn_f32>},
    {"sub.rn.f32", apply32<op_sub_rn_f32>},
    {"mul.rn.f32", apply32<op_mul_rn_f32>},
    {"fma.rn.f32", apply32<op_fma_rn_f32>},
    {"add.rz.f32", apply32<op_add_rz_f32>},
    {"add.rm.f32", apply32<op_add_rm_f32>},
    {"add.rp.f32", apply32<op_add_rp_f32>},
    {"mul.rz.f32", apply32<op_mul_rz_f32>},
    {"mul.rm.f32", apply32<op_mul_rm_f32>},
    {"mul.rp.f32", apply32<op_mul_rp_f32>},
    {"fma.rz.f32", apply32<op_fma_rz_f32>},
    {"fma.rm.f32", apply32<op_fma_rm_f32>},
    {"fma.rp.f32", apply32<op_fma_rp_f32>},
    {"div.rn.f32", apply32<op_div_rn_f32>},
    {"div.rz.f32", apply32<op_div_rz_f32>},
    {"sqrt.rn.f32", apply32<op_sqrt_rn_f32>},
    {"rcp.rn.f32", apply32<op_rcp_rn_f32>},
    {"min.f32", apply32<op_min_f32>},
    {"max.f32", apply32<op_max_f32>},
    {"abs.f32", apply32<op_abs_f32>},
    {"neg.f32", apply32<op_neg_f32>},
    {"add.ftz.f32", apply32<op_add_ftz_f32>},
    {"mul.sat.f32", apply32<op_mul_sat_f32>},
    {"copysign.f32", apply32<op_copysign_f32>},
    {"ex2.approx.f32", apply32<op_ex2_approx_f32>},
    {"lg2.approx.f32", apply32<op_lg2_approx_f32>},
    {"sin.approx.f32", apply32<op_sin_approx_f32>},
    {"cos.approx.f32", apply32<op_cos_approx_f32>},
    {"rsqrt.approx.f32", apply32<op_rsqrt_approx_f32>},
    {"tanh.approx.f32", apply32<op_tanh_approx_f32>},
    {"ex2.approx.ftz.f32", apply32<op_ex2_approx_ftz_f32>},
    {"rcp.approx.f32", apply32<op_rcp_approx_f32>},
    {"rcp.approx.ftz.f32", apply32<op_rcp_approx_ftz_f32>},
    {"div.approx.f32", apply32<op_div_approx_f32>},
    {"div.approx.ftz.f32", apply32<op_div_approx_ftz_f32>},
    {"div.full.f32", apply32<op_div_full_f32>},
    {"div.full.ftz.f32", apply32<op_div_full_ftz_f32>},
    {"testp.finite.f32", apply32<op_testp_finite_f32>},
    {"testp.subnormal.f32", apply32<op_testp_subnormal_f32>},
    {"setp.ltu.f32", apply32<op_setp_ltu_f32>},
    {"setp.nan.f32", apply32<op_setp_nan_f32>},
    {"setp.ne.f32", apply32<op_setp_ne_f32>},
    {"cvt.rn.f16.f32", apply32<op_cvt_rn_f16_f32>},
    {"cvt.rz.f16.f32", apply32<op_cvt_rz_f16_f32>},
    {"cvt.rm.f16.f32", apply32<op_cvt_rm_f16_f32>},
    {"cvt.rp.f16.f32", apply32<op_cvt_rp_f16_f32>},
    {"cvt.f32.f16", apply32<op_cvt_f32_f16>},
    {"cvt.rn.bf16.f32", apply32<op_cvt_rn_bf16_f32>},
    {"cvt.rn.f16x2.f32", apply32<op_cvt_rn_f16x2_f32>},
    {"cvt.rn.bf16x2.f32", apply32<op_cvt_rn_bf16x2_f32>},
    {"cvt.rz.bf16.f32", apply32<op_cvt_rz_bf16_f32>},
    {"cvt.f32.bf16", apply32<op_cvt_f32_bf16>},
    {"cvt.rna.tf32.f32", apply32<op_cvt_rna_tf32_f32>},
    {"cvt.rzi.s32.f32", apply32<op_cvt_rzi_s32_f32>},
    {"cvt.rni.s32.f32", apply32<op_cvt_rni_s32_f32>},
    {"cvt.rmi.s32.f32", apply32<op_cvt_rmi_s32_f32>},
    {"cvt.rpi.s32.f32", apply32<op_cvt_rpi_s32_f32>},
    {"cvt.rzi.u32.f32", apply32<op_cvt_rzi_u32_f32>},
    {"cvt.rn.f32.s32", apply32<op_cvt_rn_f32_s32>},
    {"cvt.rz.f32.u32", apply32<op_cvt_rz_f32_u32>},
    {"cvt.rni.f32.f32", apply32<op_cvt_rni_f32_f32>},
    {"cvt.sat.s8.s32", apply32<op_cvt_sat_s8_s32>},
    {"cvt.u16.u32", apply32<op_cvt_u16_u32>},
    {"add.rn.f16", apply32<op_add_rn_f16>},
    {"mul.rn.f16", apply32<op_mul_rn_f16>},
    {"fma.rn.f16", apply32<op_fma_rn_f16>},
    {"fma.rn.bf16", apply32<op_fma_rn_bf16>},
    {"add.rn.f16x2", apply32<op_add_rn_f16x2>},
};

static const struct {
    const char *name;
    kernel64 kernel;
} ops64[] = {
    {"add.s64", apply64<op_add_s64>},
    {"sub.s64", apply64<op_sub_s64>},
    {"mul.lo.s64", apply64<op_mul_lo_s64>},
    {"mul.hi.u64", apply64<op_mul_hi_u64>},
    {"mul.hi.s64", apply64<op_mul_hi_s64>},
    {"div.s64", apply64<op_div_s64>},
    {"div.u64", apply64<op_div_u64>},
    {"rem.s64", apply64<op_rem_s64>},
    {"rem.u64", apply64<op_rem_u64>},
    {"min.s64", apply64<op_min_s64>},
    {"max.u64", apply64<op_max_u64>},
    {"shl.b64", apply64<op_shl_b64>},
    {"shr.s64", apply64<op_shr_s64>},
    {"shr.u64", apply64<op_shr_u64>},
    {"brev.b64", apply64<op_brev_b64>},
    {"popc.b64", apply64<op_popc_b64>},
    {"clz.b64", apply64<op_clz_b64>},
    {"bfe.u64", apply64<op_bfe_u64>},
    {"bfe.s64", apply64<op_bfe_s64>},
    {"mul.wide.s32", apply64<op_mul_wide_s32>},
    {"mul.wide.u32", apply64<op_mul_wide_u32>},
    {"mad.wide.s32", apply64<op_mad_wide_s32>},
    {"cvt.s64.s32", apply64<op_cvt_s64_s32>},
    {"add.rn.f64", apply64<op_add_rn_f64>},
    {"add.rm.f64", apply64<op_add_rm_f64>},
    {"add.rp.f64", apply64<op_add_rp_f64>},
    {"add.rz.f64", apply64<op_add_rz_f64>},
    {"mul.rm.f64", apply64<op_mul_rm_f64>},
    {"fma.rp.f64", apply64<op_fma_rp_f64>},
    {"div.rz.f64", apply64<op_div_rz_f64>},
    {"sqrt.rm.f64", apply64<op_sqrt_rm_f64>},
    {"mul.rn.f64", apply64<op_mul_rn_f64>},
    {"fma.rn.f64", apply64<op_fma_rn_f64>},
    {"div.rn.f64", apply64<op_div_rn_f64>},
    {"sqrt.rn.f64", apply64<op_sqrt_rn_f64>},
    {"min.f64", apply64<op_min_f64>},
    {"cvt.rn.f32.f64", apply64<op_cvt_rn_f32_f64>},
    {"cvt.rz.f32.f64", apply64<op_cvt_rz_f32_f64>},
    {"cvt.f64.f32", apply64<op_cvt_f64_f32>},
    {"cvt.rzi.s64.f64", apply64<op_cvt_rzi_s64_f64>},
    {"cvt.rn.f64.s64", apply64<op_cvt_rn_f64_s64>},
    {"cvt.rn.f32.s64", apply64<op_cvt_rn_f32_s64>},
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

cudaError_t vm_op32(const char *op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                    uint32_t *out, int n)
{
    for (size_t i = 0; i < COUNT(ops32); i++)
        if (!strcmp(op, ops32[i].name)) {
            ops32[i].kernel<<<(n + 127) / 128, 128>>>(a, b, c, out, n);
            return cudaGetLastError();
        }
    return cudaErrorInvalidValue;
}

cudaError_t vm_op64(const char *op, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                    uint64_t *out, int n)
{
    for (size_t i = 0; i < COUNT(ops64); i++)
        if (!strcmp(op, ops64[i].name)) {
            ops64[i].kernel<<<(n + 127) / 128, 128>>>(a, b, c, out, n);
            return cudaGetLastError();
        }
    return cudaErrorInvalidValue;
}

/* ---- memory ------------------------------------------------------------------------------ */

/* Sums through a generic pointer, so the same code reads shared and global memory. */
static __device__ __noinline__ int sum_generic(const int *p, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += p[i];
    return s;
}

static __global__ void memory_kernel(const int8_t *in8, const float4 *in4, int32_t *out, int n)
{
    __shared__ int tile[64];
    int t = threadIdx.x;
    /* out[t] for t < 16: sign-extended bytes; 16..31: the float4's components, truncated. */
    if (t < 16)
        out[t] = in8[t];
    else if (t < 20) {
        float4 v = in4[t - 16];
        out[4 * (t - 16) + 16] = (int)v.x, out[4 * (t - 16) + 17] = (int)v.y;
        out[4 * (t - 16) + 18] = (int)v.z, out[4 * (t - 16) + 19] = (int)v.w;
    }
    tile[t] = 3 * t + 1;
    __syncthreads();
    /* A local array indexed by data: it lives in local memory. */
    int local[16];
    for (int i = 0; i < 16; i++)
        local[i] = in8[i] * (t + 1);
    if (t == 0) {
        out[32] = sum_generic(tile, 64); /* shared, through a generic pointer */
        out[33] = sum_generic(out, 16);  /* global, through the same code */
        out[34] = local[in8[0] & 15] + local[(in8[1] + 16) & 15];
        uint16_t h = (uint16_t)0xBEEF;
        ((uint16_t *)(out + 35))[0] = h; /* a 16-bit store into out[35]'s low half */
        ((uint16_t *)(out + 35))[1] = (uint16_t)n;
        long long wide; /* ld.s32 into a 64-bit register sign-extends (out[17] is -2); nvcc
                         * stores its low half with st.u32 from the 64-bit register */
        asm volatile("ld.global.s32 %0, [%1];" : "=l"(wide) : "l"(out + 17));
        out[36] = (int)(wide >> 32), out[37] = (int)wide;
    }
}

cudaError_t vm_memory(const int8_t *in8, const float4 *in4, int32_t *out, int n)
{
    memory_kernel<<<1, 64>>>(in8, in4, out, n);
    return cudaGetLastError();
}

/* Shared reads in the patterns the VM takes apart (a row in order, one word for a whole warp,
 * any other addresses, part of a warp, vectors, a vector whose base register is also its first
 * destination): 80 threads, the last warp partial; out[8 * t + k]. A read past the end
 * (@p past > 0) faults. */
static __global__ void shared_reads_kernel(const float *in, float *out, int n, int past)
{
    extern __shared__ float s[];
    int t = threadIdx.x;
    for (int i = t; i < n; i += blockDim.x)
        s[i] = in[i];
    __syncthreads();
    float *o = out + 8 * t;
    o[0] = s[t];                /* a row */
    o[1] = s[t / 32 * 7 + 3];   /* one word for each warp */
    o[2] = s[(t * 13 + 5) % n]; /* scattered */
    float4 v = reinterpret_cast<const float4 *>(s)[(t * 3) % (n / 4)];
    o[3] = v.x + 2 * v.y + 4 * v.z + 8 * v.w;
    if (t % 3)
        o[4] = s[n - 1 - t]; /* part of the warp */
    uint32_t a = (uint32_t)__cvta_generic_to_shared(&s[2 * (t % 16)]), b;
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%0];" : "+r"(a), "=r"(b));
    o[5] = __uint_as_float(a);
    o[6] = __uint_as_float(b);
    if (past)
        o[7] = s[n - 1 + past]; /* FAULT_SMEM_READ */
}

cudaError_t vm_shared_reads(const float *in, float *out, int n, int past)
{
    shared_reads_kernel<<<1, 80, n * sizeof(float)>>>(in, out, n, past);
    return cudaDeviceSynchronize();
}

/* Global accesses a whole warp makes in a row or to one word (the VM's fast path for them) next
 * to the same data through other patterns. Thread t of 64: out[t] = in[t] + in[5] (a row of
 * words, and one word for all), out4[t] = in4[t] reversed (a row of 16-byte vectors), and lanes
 * 0..31 all store their index to out[64] (the last lane's wins). @p past > 0 reads a row that
 * runs @p past words past the end of in's @p n. */
static __global__ void global_rows_kernel(const int *in, const int4 *in4, int *out, int4 *out4,
                                          int n, int past)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (past) {
        out[t] = in[n - 64 + past + t]; /* FAULT_GLOBAL_ROW */
        return;
    }
    out[t] = in[t] + in[5];
    int4 v = in4[t];
    out4[t] = make_int4(v.w, v.z, v.y, v.x);
    if (t < 32)
        out[64] = t;
}

cudaError_t vm_global_rows(const int *in, const int4 *in4, int *out, int4 *out4, int n, int past)
{
    global_rows_kernel<<<2, 32>>>(in, in4, out, out4, n, past);
    return cudaDeviceSynchronize();
}

static __global__ void atomics_kernel(int *out, float *fout)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&out[0], t);
    atomicAdd(&out[1], -2);
    atomicMin(&out[2], 1000 - t);
    atomicMax(&out[3], t * 3);
    atomicInc((unsigned *)&out[4], 99u);
    int seen = out[5], was;
    do { /* a compare-and-swap loop: every thread adds 1 exactly once */
        was = seen;
        seen = atomicCAS(&out[5], was, was + 1);
    } while (seen != was);
    atomicExch(&out[6], t);
    atomicAdd(&fout[0], 0.5f);
}

cudaError_t vm_atomics(int *out, float *fout, int threads)
{
    atomics_kernel<<<(threads + 63) / 64, 64>>>(out, fout);
    return cudaGetLastError();
}

static __global__ void cp_async_kernel(const uint32_t *in, uint32_t *out)
{
    __shared__ __align__(16) uint32_t stage[32 * 4];
    int t = threadIdx.x;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&stage[4 * t]);
    unsigned src_size = (unsigned)(t % 17);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(in + 4 * t),
                 "r"(src_size));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    for (int i = 0; i < 4; i++)
        out[4 * t + i] = stage[4 * t + i];
}

cudaError_t vm_cp_async(const uint32_t *in, uint32_t *out)
{
    cp_async_kernel<<<1, 32>>>(in, out);
    return cudaGetLastError();
}

/* ---- warp level -------------------------------------------------------------------------------
 */

static __global__ void shuffles_kernel(const uint32_t *in, uint32_t *out)
{
    int t = threadIdx.x;
    uint32_t v = in[t];
    const int widths[3] = {8, 16, 32};
    for (int w = 0; w < 3; w++) {
        int width = widths[w];
        out[0 * 192 + w * 64 + t] = __shfl_up_sync(0xFFFFFFFFu, v, 3, width);
        out[1 * 192 + w * 64 + t] = __shfl_down_sync(0xFFFFFFFFu, v, 5, width);
        out[2 * 192 + w * 64 + t] = __shfl_xor_sync(0xFFFFFFFFu, v, 6, width);
        out[3 * 192 + w * 64 + t] = __shfl_sync(0xFFFFFFFFu, v, (int)(v % 37), width);
    }
}

cudaError_t vm_shuffles(const uint32_t *in, uint32_t *out)
{
    shuffles_kernel<<<1, 64>>>(in, out);
    return cudaGetLastError();
}

static __global__ void votes_kernel(const uint32_t *in, uint32_t *out)
{
    int t = threadIdx.x;
    uint32_t v = in[t];
    int odd = v & 1;
    uint32_t *o = out + 8 * t;
    o[0] = __all_sync(0xFFFFFFFFu, odd);
    o[1] = __any_sync(0xFFFFFFFFu, odd);
    o[2] = __ballot_sync(0xFFFFFFFFu, odd);
    o[3] = __match_any_sync(0xFFFFFFFFu, v % 5);
    int pred;
    o[4] = __match_all_sync(0xFFFFFFFFu, v % 2, &pred);
    o[5] = (uint32_t)pred;
    o[6] = __reduce_add_sync(0xFFFFFFFFu, v);
    o[7] = __reduce_max_sync(0xFFFFFFFFu, v);
}

cudaError_t vm_votes(const uint32_t *in, uint32_t *out)
{
    votes_kernel<<<1, 64>>>(in, out);
    return cudaGetLastError();
}

/* ---- control ------------------------------------------------------------------------------- */

static __global__ void divergence_kernel(const int *trips, int *out)
{
    int t = threadIdx.x, acc = 0;
    for (int i = 0; i < trips[t]; i++) { /* a different trip count per lane */
        if (i % 3 == 1)
            continue;
        if (acc > 40 + t)
            break;
        acc += (t & 1) ? i : 2 * i;
    }
    if (t % 4 == 0) {
        acc *= 3;
        if (t % 8 == 0)
            acc -= 7;
    } else if (t % 4 == 1) {
        acc += 11;
    }
    /* Every lane is back together here, or the shuffles would read stale lanes. */
    for (int off = 16; off > 0; off /= 2)
        acc += __shfl_down_sync(0xFFFFFFFFu, acc, off);
    out[t] = __shfl_sync(0xFFFFFFFFu, acc, 0) + t;
}

cudaError_t vm_divergence(const int *trips, int *out)
{
    divergence_kernel<<<1, 96>>>(trips, out);
    return cudaGetLastError();
}

static __global__ void warp_sync_waits_kernel(const float *in, int n, int *count)
{
    int total = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; __any_sync(0xFFFFFFFFu, i < n);
         i += blockDim.x * gridDim.x) {
        bool active = i < n;
        float v = active ? in[i] : 0.0f;
        unsigned above = __ballot_sync(0xFFFFFFFFu, active && v > 0.5f);
        total += __shfl_sync(0xFFFFFFFFu, __popc(above), 0);
    }
    if (threadIdx.x % 32 == 0)
        atomicAdd(count, total);
}

cudaError_t vm_warp_sync_waits(const float *in, int n, int *count)
{
    warp_sync_waits_kernel<<<3, 64>>>(in, n, count);
    return cudaDeviceSynchronize();
}

static __global__ void clocks_kernel(unsigned long long *out)
{
    long long s64 = clock64();
    unsigned s32 = (unsigned)clock();
    volatile int sink = 0;
    for (int i = 0; i < 100; i++)
        sink = sink + i;
    unsigned long long *o = out + 4 * threadIdx.x;
    o[0] = (unsigned long long)s64, o[1] = (unsigned long long)clock64();
    o[2] = s32, o[3] = (unsigned)clock();
}

static __global__ void spin_kernel(long long cycles)
{
    unsigned start = (unsigned)clock();
    long long waited = 0;
    while (waited < cycles)
        waited = (long long)((unsigned)clock() - start);
}

cudaError_t vm_clocks(unsigned long long *out)
{
    clocks_kernel<<<1, 64>>>(out);
    spin_kernel<<<3, 256>>>(99);
    return cudaDeviceSynchronize();
}

static __global__ void warp_sync_never_met_kernel(int *out)
{
    int v = threadIdx.x;
    if (threadIdx.x < 16)
        __syncthreads();
    else
        v = __shfl_sync(0xFFFFFFFFu, v, 0); /* WARP_SYNC_NEVER_MET */
    out[threadIdx.x] = v;
}

cudaError_t vm_warp_sync_never_met(int *out)
{
    warp_sync_never_met_kernel<<<1, 32>>>(out);
    return cudaDeviceSynchronize();
}

static __global__ void barriers_kernel(int *out)
{
    __shared__ int ring[128];
    int t = threadIdx.x, v = t;
    for (int step = 0; step < 5; step++) { /* pass values around a ring, a barrier per step */
        ring[t] = v;
        __syncthreads();
        v = ring[(t + 1) % 128] + step;
        __syncthreads();
    }
    /* Two halves synchronise apart on named barriers 1 and 2, 64 threads each. */
    ring[t] = v;
    if (t < 64)
        asm volatile("bar.sync 1, 64;");
    else
        asm volatile("bar.sync 2, 64;");
    out[t] = v + ring[t < 64 ? 63 - t : 191 - t];
}

cudaError_t vm_barriers(int *out)
{
    barriers_kernel<<<1, 128>>>(out);
    return cudaGetLastError();
}

/* Each warp waits at its own named barrier for 64 threads: neither barrier can open. */
static __global__ void deadlock_kernel(void)
{
    if (threadIdx.x < 32)
        asm volatile("bar.sync 1, 64;");
    else
        asm volatile("bar.sync 2, 64;");
}

cudaError_t vm_deadlock(void)
{
    deadlock_kernel<<<1, 64>>>();
    return cudaDeviceSynchronize();
}

static __global__ void trap_kernel(void)
{
    if (threadIdx.x == 3)
        __trap();
}

cudaError_t vm_trap(void)
{
    trap_kernel<<<1, 32>>>();
    return cudaDeviceSynchronize();
}

static __global__ void assert_kernel(void)
{
    assert(threadIdx.x < 40);
}

cudaError_t vm_assert(void)
{
    assert_kernel<<<1, 64>>>();
    return cudaDeviceSynchronize();
}

static __global__ void printf_kernel(void)
{
    if (threadIdx.x == 1)
        printf("int %d uint %u hex %x ll %lld float %.3f str %s char %c pct %%\n", -42, 42u, 255,
               -1234567890123ll, 2.5f, "ok", 'Z');
}

cudaError_t vm_printf(void)
{
    printf_kernel<<<1, 32>>>();
    return cudaDeviceSynchronize();
}

/* The faults a student meets first; each statement carries a FAULT marker test_vm.c finds. */
static __global__ void fault_kernel(int kind, float *buf, int n)
{
    extern __shared__ float dyn[];
    int t = threadIdx.x;
    if (kind == 0 && t == 0)
        buf[n] = 1.0f; /* FAULT_PAST_END */
    if (kind == 1 && t == 0) {
        float4 v = *(const float4 *)(buf + 1); /* FAULT_MISALIGNED */
        buf[0] = v.x + v.y + v.z + v.w;
    }
    if (kind == 2)
        dyn[t + n] = 1.0f; /* FAULT_SHARED */
    if (kind == 3 && t == 0)
        buf[0] = 2.0f; /* FAULT_FREED */
}

cudaError_t vm_fault(int kind, float *buf, int n)
{
    fault_kernel<<<1, 32, 32 * sizeof(float)>>>(kind, buf, n);
    return cudaDeviceSynchronize();
}

static __global__ void unsupported_kernel(uint32_t *out)
{
    uint32_t d;
    asm volatile("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(out[0]), "r"(out[1]), "r"(out[2]));
    out[3] = d;
}

cudaError_t vm_unsupported(uint32_t *out)
{
    unsupported_kernel<<<1, 32>>>(out);
    return cudaDeviceSynchronize();
}

/* ---- what CUB's device-wide algorithms compile to ------------------------------------------ */

/* Block !waiter publishes two words and then a flag, with release semantics; block waiter spins
 * on the flag with acquire loads and a back-off sleep (CUB's decoupled look-back), then reads the
 * words: out[t] = 11 + 22 t + 1 for each of its 64 threads. With waiter == 0 the flag's setter
 * is a later block, which never runs while block 0 waits. */
static __global__ void look_back_kernel(uint32_t *flag, uint32_t *data, uint32_t *out, int waiter)
{
    int t = threadIdx.x;
    if ((int)blockIdx.x != waiter) {
        if (t == 0) {
            asm volatile("st.relaxed.gpu.v2.u32 [%0], {%1, %2};" ::"l"(data), "r"(11u), "r"(22u)
                         : "memory");
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
            asm volatile("membar.gl;" ::: "memory");
            asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(flag), "r"(1u) : "memory");
        }
        return;
    }
    uint32_t seen, lo, hi;
    do {
        __nanosleep(100);
        asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(seen) : "l"(flag) : "memory"); // wait
    } while (!seen);
    asm volatile("fence.sc.gpu;" ::: "memory");
    asm volatile("ld.relaxed.gpu.v2.u32 {%0, %1}, [%2];"
                 : "=r"(lo), "=r"(hi)
                 : "l"(data)
                 : "memory");
    out[t] = lo + hi * (uint32_t)t + seen;
}

cudaError_t vm_look_back(uint32_t *flag, uint32_t *data, uint32_t *out, int waiter)
{
    look_back_kernel<<<2, 64>>>(flag, data, out, waiter);
    return cudaDeviceSynchronize();
}

/* Block 0's 64 threads wait for a flag block 1 sets only after a loop of @p work trips, and
 * write out[t] = flag + t; block 1's thread 0 sets flag = 1 + the sum of i % 7 over the trips
 * (the order CUB's onesweep sort may give two running blocks: tiles taken by atomicAdd). With
 * @p work < 0 block 1 waits too: both running blocks wait for each other, a deadlock. */
static __global__ void late_release_kernel(uint32_t *flag, uint32_t *out, int work)
{
    int t = threadIdx.x;
    if (blockIdx.x == 1 && work >= 0) {
        uint32_t sum = 1;
        for (int i = 0; i < work; i++) /* a register that changes: block 1 keeps moving */
            sum += (uint32_t)(i % 7);
        if (t == 0)
            asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(flag), "r"(sum) : "memory");
        return;
    }
    uint32_t got;
    do /* until block 1 sets the flag, if it ever does */
        asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(got) : "l"(flag) : "memory");
    while (!got);
    out[t] = got + (uint32_t)t;
}

cudaError_t vm_late_release(uint32_t *flag, uint32_t *out, int work)
{
    late_release_kernel<<<2, 64>>>(flag, out, work);
    return cudaDeviceSynchronize();
}

/* mbarrier wait loops: until the phase of token @p state (or of parity @p parity) is done. */
static __device__ void mbar_wait(unsigned bar, uint64_t state)
{
    unsigned done;
    do
        asm volatile("{ .reg .pred p; mbarrier.try_wait.shared::cta.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(bar), "l"(state)
                     : "memory");
    while (!done);
}

static __device__ void mbar_wait_parity(unsigned bar, unsigned parity)
{
    unsigned done;
    do
        asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    while (!done);
}

/*
 * Each block's n threads pass `phases` rounds through one mbarrier: thread t writes
 * in[b][p][t] to shared memory, all arrive and wait (phase 2p, by token), t adds its
 * neighbour's (t + 1 + p) % n, all arrive and wait again (phase 2p + 1, by parity) before the
 * next write. pend[b][t] = the pending count left by t's first arrive. Then the odd warps
 * leave with arrive_drop, and the even ones complete that phase and one more without them, by
 * a generic address: out[b][t] = the sum in even warps, -(sum) in odd ones. With @p init 0
 * nobody initialises the object.
 */
static __global__ void mbarrier_kernel(const int *in, int *out, unsigned *pend, int phases,
                                       int init)
{
    __shared__ uint64_t bar;
    __shared__ int buf[1024];
    int n = blockDim.x, t = threadIdx.x;
    const int *mine = in + (size_t)blockIdx.x * phases * n;
    unsigned a = (unsigned)__cvta_generic_to_shared(&bar);
    uint64_t state;
    if (t == 0 && init)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(a), "r"(n) : "memory");
    __syncthreads(); /* the object is initialised before anyone arrives */
    int sum = 0;
    for (int p = 0; p < phases; p++) {
        buf[t] = mine[p * n + t];
        asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(a) : "memory");
        if (p == 0)
            asm volatile("mbarrier.pending_count.b64 %0, %1;"
                         : "=r"(pend[blockIdx.x * n + t])
                         : "l"(state));
        mbar_wait(a, state); /* every buf[] of this round is written */
        sum += buf[(t + 1 + p) % n];
        asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0], 1;" ::"r"(a) : "memory");
        mbar_wait_parity(a, 1); /* every read of this round is done */
    }
    if (t / 32 & 1) { /* whole warps: a diverged warp's lanes do not wait for each other */
        asm volatile("mbarrier.arrive_drop.shared.b64 _, [%0];" ::"r"(a) : "memory");
        out[blockIdx.x * n + t] = -sum;
        return;
    }
    for (int k = 0; k < 2; k++) { /* the odd threads' last phase, then one without them */
        asm volatile("mbarrier.arrive.b64 %0, [%1];" : "=l"(state) : "l"(&bar) : "memory");
        mbar_wait(a, state);
    }
    out[blockIdx.x * n + t] = sum;
}

cudaError_t vm_mbarrier(const int *in, int *out, unsigned *pend, int blocks, int threads,
                        int phases, int init)
{
    mbarrier_kernel<<<blocks, threads>>>(in, out, pend, phases, init);
    return cudaDeviceSynchronize();
}

/* The warps race to one shared word: whichever the schedule runs last before the barrier wins. */
static __global__ void warp_race_kernel(int *out)
{
    __shared__ int last;
    if (threadIdx.x % 32 == 0)
        last = (int)threadIdx.x / 32; /* the race: no barrier orders these writes */
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = last;
}

cudaError_t vm_warp_race(int *out, int blocks)
{
    warp_race_kernel<<<blocks, 256>>>(out);
    return cudaDeviceSynchronize();
}

/* The atomics CUB and lesson 06 use beyond atomics_kernel's: 64-bit ones under contention from
 * 64 threads, red (no result), and compare-and-swap failing then succeeding (thread 0); some
 * with the memory-order qualifiers cuda::atomic_ref emits. */
static __global__ void atomics_wide_kernel(unsigned long long *u, uint32_t *w,
                                           unsigned long long *r)
{
    __shared__ uint32_t s[2];
    unsigned long long t = threadIdx.x;
    if (t < 2)
        s[t] = 40;
    __syncthreads();
    atomicAdd(&u[0], 1ull); /* carries out of the low 32 bits */
    unsigned long long old;
    asm volatile("atom.global.min.s64 %0, [%1], %2;" : "=l"(old) : "l"(&u[1]), "l"(-(long long)t));
    asm volatile("red.global.max.u64 [%0], %1;" ::"l"(&u[2]), "l"(t << 40) : "memory");
    asm volatile("red.global.add.u64 [%0], %1;" ::"l"(&u[4]), "l"(1ull << 33) : "memory");
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(&w[1]), "r"(3u) : "memory");
    asm volatile(
        "red.relaxed.cta.shared.add.u32 [%0], %1;" ::"r"((uint32_t)__cvta_generic_to_shared(&s[0])),
        "r"(2u)
        : "memory");
    __syncthreads();
    if (t)
        return;
    uint32_t f, g, h;
    asm volatile("atom.global.cas.b32 %0, [%1], 5, 9;" : "=r"(f) : "l"(&w[0]) : "memory");
    asm volatile("atom.acq_rel.gpu.global.cas.b32 %0, [%1], 7, 9;"
                 : "=r"(g)
                 : "l"(&w[0])
                 : "memory");
    asm volatile("atom.shared.cas.b32 %0, [%1], 41, 0;"
                 : "=r"(h)
                 : "r"((uint32_t)__cvta_generic_to_shared(&s[1]))
                 : "memory");
    r[0] = f, r[1] = g, r[2] = h, r[3] = s[0], r[4] = s[1], r[8] = old;
    asm volatile("atom.global.cas.b64 %0, [%1], 7, 1;" : "=l"(r[5]) : "l"(&u[3]) : "memory");
    asm volatile("atom.global.cas.b64 %0, [%1], %2, %3;"
                 : "=l"(r[6])
                 : "l"(&u[3]), "l"(0x100000007ull), "l"(0xFFFFFFFF00000000ull)
                 : "memory");
    asm volatile("atom.relaxed.sys.global.exch.b64 %0, [%1], %2;"
                 : "=l"(r[7])
                 : "l"(&u[5]), "l"(~0ull)
                 : "memory");
}

cudaError_t vm_atomics_wide(unsigned long long *u, uint32_t *w, unsigned long long *r)
{
    atomics_wide_kernel<<<1, 64>>>(u, w, r);
    return cudaGetLastError();
}

/* redux.sync over v = lane * lane - 40 in every op (out[k]), then match.any.sync.b64 on
 * (lane % 3) << 40 (out[8 + lane]) and a ballot among the odd lanes only (out[40 + lane]). */
static __global__ void redux_match_kernel(uint32_t *out)
{
    uint32_t l = threadIdx.x, v = l * l - 40, d[8];
    asm volatile("redux.sync.add.s32 %0, %1, -1;" : "=r"(d[0]) : "r"(v));
    asm volatile("redux.sync.min.s32 %0, %1, -1;" : "=r"(d[1]) : "r"(v));
    asm volatile("redux.sync.max.s32 %0, %1, -1;" : "=r"(d[2]) : "r"(v));
    asm volatile("redux.sync.min.u32 %0, %1, -1;" : "=r"(d[3]) : "r"(v));
    asm volatile("redux.sync.max.u32 %0, %1, -1;" : "=r"(d[4]) : "r"(v));
    asm volatile("redux.sync.and.b32 %0, %1, -1;" : "=r"(d[5]) : "r"(v));
    asm volatile("redux.sync.or.b32 %0, %1, -1;" : "=r"(d[6]) : "r"(v));
    asm volatile("redux.sync.xor.b32 %0, %1, -1;" : "=r"(d[7]) : "r"(v));
    if (l == 0)
        for (int k = 0; k < 8; k++)
            out[k] = d[k];
    out[8 + l] = __match_any_sync(0xFFFFFFFFu, (unsigned long long)(l % 3) << 40);
    out[40 + l] = 0;
    if (l & 1)
        out[40 + l] = __ballot_sync(0xAAAAAAAAu, l > 16);
}

cudaError_t vm_redux_match(uint32_t *out)
{
    redux_match_kernel<<<1, 32>>>(out);
    return cudaGetLastError();
}

/* __syncthreads_count, _and and _or (bar.red) over 96 threads, each result in every thread:
 * out[5 t + k]. */
static __global__ void bar_red_kernel(uint32_t *out)
{
    int t = threadIdx.x;
    out[5 * t] = (uint32_t)__syncthreads_count(t % 3 == 0);
    out[5 * t + 1] = (uint32_t)__syncthreads_and(t != 40);
    out[5 * t + 2] = (uint32_t)__syncthreads_or(t == 95);
    out[5 * t + 3] = (uint32_t)__syncthreads_and(t < 96);
    out[5 * t + 4] = (uint32_t)__syncthreads_or(t > 95);
}

cudaError_t vm_bar_red(uint32_t *out)
{
    bar_red_kernel<<<1, 96>>>(out);
    return cudaGetLastError();
}

/* ---- tensor cores -------------------------------------------------------------------------- */

using namespace nvcuda;

/* One 16 x 16 x K tile through wmma, the inputs converted to the storage type on the device
 * (tf32 fragments are loaded from floats). */
template <typename In, typename Store, typename Acc, int K, typename BLayout>
static __global__ void wmma_kernel(const float *A, const float *B, const float *C, float *D)
{
    __shared__ Store a[16 * 16], b[16 * 16];
    __shared__ Acc c[16 * 16];
    for (int i = threadIdx.x; i < 16 * K; i += 32) {
        a[i] = (Store)A[i];
        b[i] = (Store)B[i];
    }
    for (int i = threadIdx.x; i < 256; i += 32)
        c[i] = (Acc)C[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, K, In, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, K, In, BLayout> fb;
    wmma::fragment<wmma::accumulator, 16, 16, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, std::is_same<BLayout, wmma::row_major>::value ? 16 : K);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x; i < 256; i += 32)
        D[i] = (float)c[i];
}

cudaError_t vm_wmma(int type, int b_col, int half_acc, const float *A, const float *B,
                    const float *C, float *D)
{
    if (type == 0 && half_acc)
        wmma_kernel<__half, __half, __half, 16, wmma::row_major><<<1, 32>>>(A, B, C, D);
    else if (type == 0 && b_col)
        wmma_kernel<__half, __half, float, 16, wmma::col_major><<<1, 32>>>(A, B, C, D);
    else if (type == 0)
        wmma_kernel<__half, __half, float, 16, wmma::row_major><<<1, 32>>>(A, B, C, D);
    else if (type == 1)
        wmma_kernel<__nv_bfloat16, __nv_bfloat16, float, 16, wmma::row_major>
            <<<1, 32>>>(A, B, C, D);
    else
        wmma_kernel<wmma::precision::tf32, float, float, 8, wmma::row_major><<<1, 32>>>(A, B, C, D);
    return cudaDeviceSynchronize();
}

/* D = A A^T through wmma, A loaded from @p A with row stride @p ldm (f16 elements). */
static __global__ void wmma_stride_kernel(const __half *A, int ldm, float *D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(a, A, ldm); /* WMMA_ALIGNMENT */
    wmma::load_matrix_sync(b, A, ldm);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

cudaError_t vm_wmma_stride(const void *A, int ldm, float *D)
{
    wmma_stride_kernel<<<1, 32>>>((const __half *)A, ldm, D);
    return cudaDeviceSynchronize();
}

/* mma.sync with the registers exactly as the caller laid them out. */
static __global__ void mma_kernel(int shape, int type, const uint32_t *a, const uint32_t *b,
                                  const uint32_t *c, uint32_t *d)
{
    int l = threadIdx.x;
    const uint32_t *A = a + 4 * l, *B = b + 2 * l;
    float C[4], D[4];
    for (int i = 0; i < 4; i++)
        C[i] = __uint_as_float(c[4 * l + i]);
    if (shape == 0 && type == 0)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
                     : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(C[0]),
                       "f"(C[1]), "f"(C[2]), "f"(C[3]));
    else if (shape == 0)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
                     : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(C[0]),
                       "f"(C[1]), "f"(C[2]), "f"(C[3]));
    else if (shape == 1)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, "
                     "%5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                     : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
                     : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]), "f"(C[0]),
                       "f"(C[1]), "f"(C[2]), "f"(C[3]));
    else
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, "
                     "%5}, {%6}, {%7, %8, %9, %10};"
                     : "=f"(D[0]), "=f"(D[1]), "=f"(D[2]), "=f"(D[3])
                     : "r"(A[0]), "r"(A[1]), "r"(B[0]), "f"(C[0]), "f"(C[1]), "f"(C[2]), "f"(C[3]));
    for (int i = 0; i < 4; i++)
        d[4 * l + i] = __float_as_uint(D[i]);
}

cudaError_t vm_mma(int shape, int type, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                   uint32_t *d)
{
    mma_kernel<<<1, 32>>>(shape, type, a, b, c, d);
    return cudaDeviceSynchronize();
}

/* Lane l names row l % 8 of matrix l / 8; each lane gets its four registers, twice. */
static __global__ void ldmatrix_kernel(const uint16_t *m, uint32_t *out)
{
    __shared__ __align__(16) uint16_t s[4 * 64];
    for (int i = threadIdx.x; i < 4 * 64; i += 32)
        s[i] = m[i];
    __syncwarp();
    int l = threadIdx.x;
    unsigned row = (unsigned)__cvta_generic_to_shared(&s[(l / 8) * 64 + (l % 8) * 8]);
    uint32_t r[8];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                 : "r"(row));
    for (int i = 0; i < 4; i++) {
        out[4 * l + i] = r[i];
        out[128 + 4 * l + i] = r[4 + i];
    }
}

cudaError_t vm_ldmatrix(const uint16_t *m, uint32_t *out)
{
    ldmatrix_kernel<<<1, 32>>>(m, out);
    return cudaDeviceSynchronize();
}
