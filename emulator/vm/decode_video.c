/**
 * @file decode_video.c
 * @brief Decoding the video instructions: the SIMD ones (vadd2/4, vsub2/4, vavrg2/4,
 *        vabsdiff2/4, vmin2/4, vmax2/4, vset2/4) and the scalar vadd, vsub, vabsdiff, vmin,
 *        vmax, vset, vshl, vshr and vmad, with their selectors, masks, .sat, shift modes,
 *        negations and secondary operations.
 *
 * An operand's selector or mask comes from the parser (operand::sel: "b3210" of %r1.b3210),
 * vmad's negations too (operand::minus: -%r1).
 */
#include "decode_impl.h"

static const char *const names[] = {"vadd", "vsub", "vavrg", "vabsdiff", "vmin",
                                    "vmax", "vset", "vshl",  "vshr"};
static const char *const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};

/* Selector @p sel of a SIMD source ("" for @p dflt) into 3 bits per element, element 0 lowest
 * (its digit is the last); -1 when it is not one of a @p width-way instruction ("b" and four
 * digits 0-7, or "h" and two digits 0-3). */
static int64_t selector(const char *sel, const char *dflt, int width)
{
    if (!*sel)
        sel = dflt;
    size_t n = strlen(sel);
    if (n != (size_t)width + 1 || sel[0] != (width == 4 ? 'b' : 'h'))
        return -1;
    int64_t v = 0;
    for (int i = 0; i < width; i++) {
        int digit = sel[n - 1 - (size_t)i] - '0';
        if (digit >= 2 * width)
            return -1;
        v |= (int64_t)digit << (3 * i);
    }
    return v;
}

/* The mask of a SIMD d ("" for every element): one bit per element it names; -1 when it is
 * not one PTX defines (digits of elements, each named once, highest first). */
static int mask_of(const char *sel, int width)
{
    if (!*sel)
        return (1 << width) - 1;
    if (sel[0] != (width == 4 ? 'b' : 'h') || !sel[1])
        return -1;
    int mask = 0, above = width;
    for (const char *p = sel + 1; *p; p++) {
        int digit = *p - '0';
        if (digit >= above)
            return -1;
        mask |= 1 << digit;
        above = digit;
    }
    return mask;
}

/* A scalar operand's part (enum video_part), or -1 when @p sel is not one. */
static int part_of(const char *sel)
{
    static const char *const parts[] = {"", "b0", "b1", "b2", "b3", "h0", "h1"};
    for (int i = 0; i < 7; i++)
        if (!strcmp(sel, parts[i]))
            return i;
    return -1;
}

/* The modifiers after the base into @p mod: the types' signedness (d, a, b; vset has no d),
 * .sat, .add (.min and .max: the scalar forms), vset's compare. 0, or -1 with the error said. */
static int modifiers(struct dctx *c, const struct mn *m, uint32_t op, int width, uint32_t *mod)
{
    static const uint32_t sign_bits[] = {VIDEO_D_SIGNED, VIDEO_A_SIGNED, VIDEO_B_SIGNED};
    int ntypes = op == VIDEO_SET ? 1 : 0, ncmp = 0, nsec = 0, nmode = 0;
    for (int i = 0; i < m->nmods; i++) {
        const char *x = m->mods[i];
        uint32_t k = 0;
        while (k < 6 && strcmp(x, cmps[k]))
            k++;
        if ((!strcmp(x, "u32") || !strcmp(x, "s32")) && ntypes < 3) {
            *mod |= x[0] == 's' ? sign_bits[ntypes] : 0;
            ntypes++;
        } else if (!strcmp(x, "sat") && op != VIDEO_SET)
            *mod |= VIDEO_SAT;
        else if (!strcmp(x, "add") && !nsec++)
            *mod |= VIDEO_ACCUMULATE;
        else if (width == 1 && (!strcmp(x, "min") || !strcmp(x, "max")) && !nsec++)
            *mod |= x[1] == 'i' ? VIDEO_MIN_C : VIDEO_MAX_C;
        else if (k < 6 && op == VIDEO_SET && !ncmp++)
            *mod |= k << 3;
        else if (op == VIDEO_SHIFT && (!strcmp(x, "clamp") || !strcmp(x, "wrap")) && !nmode++)
            *mod |= x[0] == 'w' ? VIDEO_SHIFT_WRAP : 0;
        else
            return dec_bad(c, "%s.%s is not emulated", m->base, x);
    }
    if (ntypes != 3 || (op == VIDEO_SET && !ncmp))
        return dec_bad(c, "%s needs %s", m->base,
                       op == VIDEO_SET ? ".atype.btype.cmp" : ".dtype.atype.btype");
    if (op == VIDEO_SHIFT && (!nmode || (*mod & VIDEO_B_SIGNED)))
        return dec_bad(c, "%s needs .dtype.atype.u32 and .clamp or .wrap", m->base);
    if (width > 1 && (*mod & VIDEO_SAT) && (*mod & VIDEO_ACCUMULATE))
        return dec_bad(c, "%s: .sat cannot go with .add", m->base);
    return 0;
}

/* The selectors and mask of a scalar form (@p n operands) into @p in's imm and mod. */
static int scalar_parts(struct dctx *c, const struct mn *m, const struct operand *o, int n,
                        struct insn *in)
{
    int secondary = !!(in->mod & (VIDEO_ACCUMULATE | VIDEO_MIN_C | VIDEO_MAX_C));
    int asel = part_of(o[1].sel), bsel = part_of(o[2].sel), dsel = part_of(o[0].sel);
    if (asel < 0 || bsel < 0 || dsel < 0 || (n == 4 && o[3].sel[0]))
        return dec_bad(c, "%s: a selector (.%s, .%s, .%s) it does not take", m->base, o[0].sel,
                       o[1].sel, o[2].sel);
    if (n != (secondary || dsel ? 4 : 3) || (secondary && dsel))
        return dec_bad(c, "%s: expected d, a, b (and c with .add, .min, .max or d.dsel)", m->base);
    in->mod |= (uint32_t)dsel << 12;
    in->imm = asel | bsel << 12;
    return 0;
}

int dec_video(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    size_t len = strlen(m->base);
    int width = m->base[len - 1] == '2' || m->base[len - 1] == '4' ? m->base[len - 1] - '0' : 1;
    size_t name_len = width == 1 ? len : len - 1;
    uint32_t op = 0, mod = 0;
    while (op < 9 && (strlen(names[op]) != name_len || strncmp(m->base, names[op], name_len)))
        op++;
    if (op == 9 || (width == 1 && op == VIDEO_AVRG) || (width > 1 && op >= VIDEO_SHIFT))
        return dec_bad(c, "%s is not emulated", m->base);
    mod = op >= VIDEO_SHIFT ? VIDEO_SHIFT | (op == 8 ? VIDEO_SHIFT_RIGHT : 0) : op;
    op = op >= VIDEO_SHIFT ? VIDEO_SHIFT : op;
    if (modifiers(c, m, op, width, &mod))
        return -1;
    if (n < 3 || n > 4 || (width > 1 && n != 4))
        return dec_bad(c, "expected %s operands", width > 1 ? "4" : "3 or 4");
    uint32_t d, a, b, cc = NO_REG;
    if (dec_dst(c, &o[0], 32, &d) || dec_src(c, &o[1], 'u', 32, &a) ||
        dec_src(c, &o[2], 'u', 32, &b) || (n == 4 && dec_src(c, &o[3], 'u', 32, &cc)))
        return -1;
    struct insn *in = dec_emit(c, width == 4 ? OP_VOP4 : width == 2 ? OP_VOP2 : OP_VOP1);
    in->o[0] = d, in->o[1] = a, in->o[2] = b, in->o[3] = cc;
    in->mod = mod;
    if (width == 1)
        return scalar_parts(c, m, o, n, in);
    int64_t asel = selector(o[1].sel, width == 4 ? "b3210" : "h10", width);
    int64_t bsel = selector(o[2].sel, width == 4 ? "b7654" : "h32", width);
    int mask = mask_of(o[0].sel, width);
    if (asel < 0 || bsel < 0 || mask < 0 || o[3].sel[0])
        return dec_bad(c, "%s: a selector or mask (.%s, .%s, .%s, .%s) it does not take", m->base,
                       o[0].sel, o[1].sel, o[2].sel, o[3].sel);
    in->mod |= (uint32_t)mask << 12;
    in->imm = asel | bsel << 12;
    return 0;
}

/* vmad.dtype.atype.btype{.po}{.sat}{.shr7,.shr15} d, {-}a{.asel}, {-}b{.bsel}, {-}c: the types
   (u32, s32), the modifiers and the negations into mod, the selectors into imm. */
int dec_vmad(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    static const uint32_t sign_bits[] = {0, VIDEO_A_SIGNED, VIDEO_B_SIGNED}; /* d's: unused */
    uint32_t mod = 0;
    int ntypes = 0, nscale = 0;
    for (int i = 0; i < m->nmods; i++) {
        const char *x = m->mods[i];
        if ((!strcmp(x, "u32") || !strcmp(x, "s32")) && ntypes < 3) {
            mod |= x[0] == 's' ? sign_bits[ntypes] : 0;
            ntypes++;
        } else if (!strcmp(x, "sat"))
            mod |= VIDEO_SAT;
        else if (!strcmp(x, "po"))
            mod |= VMAD_PO;
        else if ((!strcmp(x, "shr7") || !strcmp(x, "shr15")) && !nscale++)
            mod |= (x[3] == '7' ? 1u : 2u) << 21;
        else
            return dec_bad(c, "vmad.%s is not emulated", x);
    }
    if (ntypes != 3 || n != 4)
        return dec_bad(c, "vmad needs .dtype.atype.btype and d, a, b, c");
    struct operand s[3] = {o[1], o[2], o[3]};
    int neg_ab = s[0].minus ^ s[1].minus;
    if ((s[0].minus || s[1].minus || s[2].minus) && (mod & VMAD_PO))
        return dec_bad(c, "vmad.po takes no negated operand");
    if (neg_ab && s[2].minus)
        return dec_bad(c, "vmad negates the product or c, not both");
    mod |= (neg_ab ? VMAD_NEG_AB : 0) | (s[2].minus ? VMAD_NEG_C : 0);
    for (int i = 0; i < 3; i++)
        s[i].minus = 0;
    int asel = part_of(o[1].sel), bsel = part_of(o[2].sel);
    if (asel < 0 || bsel < 0 || o[0].sel[0] || o[3].sel[0])
        return dec_bad(c, "vmad: a selector (.%s, .%s) it does not take", o[1].sel, o[2].sel);
    uint32_t d, a, b, cc;
    if (dec_dst(c, &o[0], 32, &d) || dec_src(c, &s[0], 'u', 32, &a) ||
        dec_src(c, &s[1], 'u', 32, &b) || dec_src(c, &s[2], 'u', 32, &cc))
        return -1;
    struct insn *in = dec_emit(c, OP_VMAD);
    in->o[0] = d, in->o[1] = a, in->o[2] = b, in->o[3] = cc;
    in->mod = mod;
    in->imm = asel | bsel << 12;
    return 0;
}
