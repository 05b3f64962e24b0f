/**
 * @file decode_hopper.c
 * @brief Decoding sm_90's warpgroup and cluster instructions: wgmma, setmaxnreg, elect.sync,
 *        mapa, getctarank and barrier.cluster.
 */
#include <stdio.h>
#include <string.h>

#include "decode_impl.h"
#include "hopper.h"

/* The value of immediate operand @p o into *v, or -1 after a one-line refusal naming @p what. */
static int immediate(struct dctx *c, const struct operand *o, const char *what, int64_t *v)
{
    if (o->kind != OK_IMM)
        return dec_bad(c, "%s must be an immediate", what);
    *v = o->imm;
    return 0;
}

/* The N of a .m64nNkK shape modifier whose K is @p k, or 0. */
static int shape_n(const struct mn *m, int k)
{
    for (int i = 0; i < m->nmods; i++) {
        int n = 0, kk = 0;
        char tail;
        const char *s = m->mods[i];
        if (!strncmp(s, "m64n", 4) && sscanf(s + 4, "%dk%d%c", &n, &kk, &tail) == 2 && kk == k)
            return n;
    }
    return 0;
}

/* wgmma.mma_async's register lists into @p words: {d} (32-bit registers), then A's {a} when
 * it comes from registers. */
static int wgmma_regs(struct dctx *c, const struct operand *d, const struct operand *a, int nd,
                      int na, uint32_t *words)
{
    if (d->kind != OK_VEC || d->nvec != nd)
        return dec_bad(c, "wgmma.mma_async's accumulator has %d registers where its shape has %d",
                       d->kind == OK_VEC ? d->nvec : 1, nd);
    for (int i = 0; i < nd; i++) {
        if (!d->vec[i] || d->vec[i]->slot != SLOT_32)
            return dec_bad(c, "an accumulator register is not 32 bits");
        words[2 + i] = d->vec[i]->off;
    }
    if (na && (a->kind != OK_VEC || a->nvec != na))
        return dec_bad(c, "wgmma.mma_async's A fragment is not a vector of %d registers", na);
    for (int i = 0; i < na; i++) {
        if (!a->vec[i] || a->vec[i]->slot != SLOT_32)
            return dec_bad(c, "an A-fragment register is not 32 bits");
        words[2 + nd + i] = a->vec[i]->off;
    }
    words[0] = (uint32_t)nd, words[1] = (uint32_t)na;
    return 0;
}

/* Whether N = @p n is in the PTX ISA's shapes of wgmma.mma_async with inputs of type @p at:
 * 8 .. 256 step 8 for floating point; 8, 16, 24, then multiples of 16 to 224 for s8 and u8, to
 * 256 for b1. */
static int wgmma_n_ok(int at, int n)
{
    int ints = at == MT_S8 || at == MT_U8 || at == MT_B1;
    return n >= 8 && n <= 256 && n % 8 == 0 &&
           (!ints || n <= 24 || (n % 16 == 0 && (n <= 224 || at == MT_B1)));
}

/*
 * wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype{.and.popc} d, a-desc|{a},
 * b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a}{, imm-trans-b}}: K is 32 bytes of a
 * row of A. f16 and bf16 inputs (K 16, with the transposes; f32 accumulators, or f16 ones for
 * f16), tf32 (K 8, f32) and e4m3 and e5m2 in any mix (K 32, f32 or f16) take the scales; s8 and
 * u8 in any mix (K 32, s32, wrapping or .satfinite) and b1 with .and.popc (K 256, s32) take
 * scale-d alone (the PTX ISA's operand lists).
 */
static int wgmma_mma(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t[3];
    if (mn_has(m, "sp"))
        return dec_bad(c, "wgmma.mma_async.sp (sparse A) is not emulated");
    if (!mn_has(m, "sync") || !mn_has(m, "aligned"))
        return dec_bad(c, "this form of wgmma.mma_async is not emulated");
    int nt = mn_types(m, t, 3);
    int dt = nt == 3 ? mma_type_of(t[0].name) : -1, at = nt == 3 ? mma_type_of(t[1].name) : -1;
    int bt = nt == 3 ? mma_type_of(t[2].name) : -1, ints = dt == MT_S32;
    int sat = mn_has(m, "satfinite"), b1 = at == MT_B1;
    int popc = mn_has(m, "and") && mn_has(m, "popc") && !mn_has(m, "xor");
    if (at < 0 || bt < 0 || dt < 0 || at == MT_F64 || at == MT_S4 || at == MT_U4 ||
        !mma_types_ok(at, bt, dt, dt) || (sat && (!ints || b1)) || popc != b1) {
        char types[64] = ""; /* the modifiers after mma_async.sync.aligned.shape */
        for (int i = 4, n = 0; i < m->nmods && n < (int)sizeof types; i++)
            n += snprintf(types + n, sizeof types - (size_t)n, "%s%s", n ? "." : "", m->mods[i]);
        return dec_bad(c,
                       "wgmma.mma_async with %s is not emulated (f16 and bf16 inputs with f32 "
                       "accumulators, f16 with f16, tf32 with f32, e4m3/e5m2 with f32 or f16, "
                       "s8/u8 with s32, b1 .and.popc with s32)",
                       types);
    }
    int k = 256 / mma_elem_bits(at), N = shape_n(m, k);
    if (!wgmma_n_ok(at, N))
        return dec_bad(c, "wgmma.mma_async's shape is not m64nNk%d with N = %s", k,
                       !ints ? "8, 16, ..., 256"
                       : b1  ? "8, 16, 24, 32, 48, ..., 256"
                             : "8, 16, 24, 32, 48, ..., 224");
    int adesc = o[1].kind == OK_REG, trans = at == MT_F16 || at == MT_BF16;
    int want = 4 + 2 * !ints + trans * (1 + adesc);
    if (n != want)
        return dec_bad(c, "wgmma.mma_async with A from %s takes %d operands",
                       adesc ? "a descriptor" : "registers", want);
    int64_t sa = 1, sb = 1, ta = 0, tb = 0;
    if ((!ints &&
         (immediate(c, &o[4], "imm-scale-a", &sa) || immediate(c, &o[5], "imm-scale-b", &sb))) ||
        (trans && adesc && immediate(c, &o[6], "imm-trans-a", &ta)) ||
        (trans && immediate(c, &o[n - 1], "imm-trans-b", &tb)))
        return -1;
    if ((sa != 1 && sa != -1) || (sb != 1 && sb != -1) || (ta & ~1) || (tb & ~1))
        return dec_bad(c, "imm-scale-a and imm-scale-b must be 1 or -1, imm-trans-a and -b 0 or 1");
    uint32_t words[2 + 128 + 4], bdesc, scale, a = NO_REG;
    int nd = dt == MT_F16 ? N / 4 : N / 2, na = adesc ? 0 : 4;
    if (wgmma_regs(c, &o[0], &o[1], nd, na, words) || dec_src(c, &o[2], 'b', 64, &bdesc) ||
        dec_src(c, &o[3], 'p', 1, &scale) || (adesc && dec_src(c, &o[1], 'b', 64, &a)))
        return -1;
    if (o[3].negated)
        return dec_bad(c, "a negated scale-d is not emulated");
    uint32_t pool = decode_pool(c->mod, words, (uint32_t)(2 + nd + na));
    struct insn *in = dec_emit(c, OP_WGMMA_MMA);
    in->o[0] = a, in->o[1] = bdesc, in->o[2] = scale, in->o[5] = pool;
    in->mod = WG_MOD((uint32_t)N, (uint32_t)at, (uint32_t)bt, (uint32_t)dt, (uint32_t)(sa < 0),
                     (uint32_t)(sb < 0), (uint32_t)ta, (uint32_t)tb) |
              (sat ? MMA_SATFINITE_BIT : 0);
    return 0;
}

/* wgmma.fence / commit_group / wait_group N / mma_async, all .sync.aligned. */
int dec_wgmma(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (mn_has(m, "mma_async"))
        return wgmma_mma(c, m, o, n);
    if (!mn_has(m, "sync") || !mn_has(m, "aligned"))
        return dec_bad(c, "wgmma without .sync.aligned is not a PTX instruction");
    if (mn_has(m, "fence") && n == 0) {
        dec_emit(c, OP_WGMMA_FENCE);
        return 0;
    }
    if (mn_has(m, "commit_group") && n == 0) {
        dec_emit(c, OP_WGMMA_COMMIT);
        return 0;
    }
    int64_t v = 0;
    if (mn_has(m, "wait_group") && n == 1) {
        if (immediate(c, &o[0], "wgmma.wait_group's count", &v))
            return -1;
        if (v < 0 || v > 255)
            return dec_bad(c, "wgmma.wait_group %lld is out of range", (long long)v);
        dec_emit(c, OP_WGMMA_WAIT)->imm = v;
        return 0;
    }
    return dec_bad(c, "this form of wgmma is not emulated");
}

/* setmaxnreg.{inc,dec}.sync.aligned.u32 count: count a multiple of 8 in 24 .. 256. */
int dec_setmaxnreg(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    int inc = mn_has(m, "inc");
    int64_t v = 0;
    if ((!inc && !mn_has(m, "dec")) || !mn_has(m, "sync") || !mn_has(m, "aligned") || n != 1)
        return dec_bad(c, "this form of setmaxnreg is not emulated");
    if (immediate(c, &o[0], "setmaxnreg's register count", &v))
        return -1;
    if (v < 24 || v > 256 || v % 8)
        return dec_bad(c, "setmaxnreg's register count %lld is not a multiple of 8 in 24 .. 256",
                       (long long)v);
    struct insn *in = dec_emit(c, OP_SETMAXNREG);
    in->imm = v;
    in->width = (uint8_t)inc;
    return 0;
}

/* mapa{.shared::cluster}.{u32,u64} d, a, b and getctarank{.shared::cluster}.{u32,u64} d, a:
 * width bit 0 = generic addresses, bit 1 = 64-bit a (and d for mapa). */
int dec_mapa(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    int rank = !strcmp(m->base, "getctarank"), wide = mn_has(m, "u64") || mn_has(m, "b64");
    int generic = !mn_has(m, "shared::cluster");
    uint32_t d, a, b = NO_REG;
    if (n != 3 - rank || (generic && !wide))
        return dec_bad(c, "this form of %s is not emulated", m->base);
    if (dec_dst(c, &o[0], rank || !wide ? 32 : 64, &d) ||
        dec_src(c, &o[1], 'u', wide ? 64 : 32, &a) || (!rank && dec_src(c, &o[2], 'u', 32, &b)))
        return -1;
    struct insn *in = dec_emit(c, rank ? OP_GETCTARANK : OP_MAPA);
    in->o[0] = d, in->o[1] = a, in->o[2] = b;
    in->width = (uint8_t)(generic | wide << 1);
    return 0;
}

/* barrier.cluster.arrive{.release,.relaxed}{.aligned} and barrier.cluster.wait{.acquire}
 * {.aligned}. */
int dec_bar_cluster(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    (void)o;
    int wait = mn_has(m, "wait");
    if (n != 0 || (!wait && !mn_has(m, "arrive")))
        return dec_bad(c, "this form of barrier.cluster is not emulated");
    dec_emit(c, OP_BAR_CLUSTER)->width = (uint8_t)wait;
    return 0;
}

/* elect.sync d|p, membermask: d (or the sink) = the leader's lane, p = 1 in the leader alone. */
int dec_elect(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    uint32_t d = NO_REG, mask;
    if (!mn_has(m, "sync") || n != 2 || !o[0].reg2)
        return dec_bad(c, "this form of elect is not emulated");
    if ((o[0].kind != OK_SINK && dec_dst(c, &o[0], 32, &d)) || dec_src(c, &o[1], 'u', 32, &mask))
        return -1;
    if (o[0].reg2->slot != SLOT_PRED)
        return dec_bad(c, "elect.sync's second destination is not a predicate");
    struct insn *in = dec_emit(c, OP_ELECT_SYNC);
    in->o[0] = d, in->o[1] = o[0].reg2->off, in->o[2] = mask;
    return 0;
}
