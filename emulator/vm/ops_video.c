/**
 * @file ops_video.c
 * @brief The video instructions: the SIMD ones (vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4,
 *        vmin2/4, vmax2/4, vset2/4), two half-words or four bytes of each operand at once,
 *        and the scalar vadd, vsub, vabsdiff, vmin, vmax, vset, vshl, vshr and vmad.
 *
 * As the PTX ISA defines them: each element of a and of b is picked by its selector from the
 * eight bytes (four half-words) of b:a and sign- or zero-extended by its operand's type; the
 * operation runs on the extended values, exactly; .sat clamps the result to an element of d's
 * type; then the elements the mask names replace those of c (merge), or, with .add, their sum
 * is added to c. vset's results are 1 or 0. A scalar form takes a whole word, a byte or a
 * half-word of each source; .sat clamps to d's type, or to the part .dsel names; then .add,
 * .min or .max combine the result with c (extended by d's type), or its low part is merged
 * into c at .dsel. vshl and vshr shift a's part by b's (.clamp at 32, .wrap modulo 32) in the
 * 34 bits NVIDIA's SASS reference gives the video pipe (the ISA leaves the width open); vmad is
 * OP_VMAD's manual. decode_video.c packs the modifiers (VIDEO_*, VMAD_*).
 */
#include "vm_impl.h"

/* Element @p index (of 8 bytes or 4 half-words of b:a) of @p bits, extended. */
static int64_t element(uint32_t a, uint32_t b, uint32_t index, int bits, int is_signed)
{
    uint64_t v = ((uint64_t)b << 32 | a) >> (index * (uint32_t)bits) & ((1ull << bits) - 1);
    return is_signed && v >> (bits - 1) ? (int64_t)v - (1ll << bits) : (int64_t)v;
}

/* The operation on two extended elements. */
static int64_t operate(uint32_t mod, int64_t x, int64_t y)
{
    switch (VIDEO_OP(mod)) {
    case VIDEO_ADD:
        return x + y;
    case VIDEO_SUB:
        return x - y;
    case VIDEO_AVRG: /* (x + y + 1) >> 1 when the sum is >= 0, else (x + y) >> 1 (a floor) */
        return x + y >= 0 ? (x + y + 1) / 2 : -((-(x + y) + 1) / 2);
    case VIDEO_ABSDIFF:
        return x > y ? x - y : y - x;
    case VIDEO_MIN:
        return x < y ? x : y;
    case VIDEO_MAX:
        return x > y ? x : y;
    case VIDEO_SHIFT: { /* y is b's part, unsigned: .clamp at 32, .wrap modulo 32 */
        int n = (int)((mod & VIDEO_SHIFT_WRAP) ? (y & 31) : y > 32 ? 32 : y);
        if (mod & VIDEO_SHIFT_RIGHT)
            return x >> n; /* x is extended by a's type: the sign fills, or zeros */
        /* the shift runs in 34 bits, as the video pipe's other operations (its overflow lost) */
        return (int64_t)(((uint64_t)x << n) << 30) >> 30;
    }
    }
    switch (VIDEO_CMP(mod)) { /* vset */
    case 0:
        return x == y;
    case 1:
        return x != y;
    case 2:
        return x < y;
    case 3:
        return x <= y;
    case 4:
        return x > y;
    default:
        return x >= y;
    }
}

/* d of one lane, for elements of 32 / @p width bits. */
static uint32_t simd(uint32_t a, uint32_t b, uint32_t c, uint32_t mod, uint64_t sel, int width)
{
    int bits = 32 / width;
    int64_t top = (mod & VIDEO_D_SIGNED) ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
    int64_t bottom = (mod & VIDEO_D_SIGNED) ? -(1ll << (bits - 1)) : 0;
    uint32_t ones = (uint32_t)((1ull << bits) - 1), d = (mod & VIDEO_ACCUMULATE) ? c : 0;
    for (int i = 0; i < width; i++) {
        int64_t x = element(a, b, sel >> (3 * i) & 7, bits, !!(mod & VIDEO_A_SIGNED));
        int64_t y = element(a, b, sel >> (12 + 3 * i) & 7, bits, !!(mod & VIDEO_B_SIGNED));
        int64_t t = operate(mod, x, y);
        if (mod & VIDEO_SAT)
            t = t > top ? top : t < bottom ? bottom : t;
        int on = VIDEO_MASK(mod) >> i & 1;
        if (mod & VIDEO_ACCUMULATE)
            d += on ? (uint32_t)t : 0;
        else
            d |= ((on ? (uint32_t)t : c >> (i * bits)) & ones) << (i * bits);
    }
    return d;
}

/* Part @p part (enum video_part) of @p v, extended. */
static int64_t part(uint32_t v, uint32_t part, int is_signed)
{
    if (part == PART_WORD)
        return is_signed ? (int64_t)(int32_t)v : (int64_t)v;
    int bits = part <= PART_B3 ? 8 : 16;
    uint32_t at = part <= PART_B3 ? part - PART_B0 : part - PART_H0;
    return element(v, 0, at, bits, is_signed);
}

/* d of one lane of a scalar form; @p c is read only with a secondary operation or a merge. */
static uint32_t scalar(uint32_t a, uint32_t b, uint32_t c, uint32_t mod, uint64_t sel)
{
    int d_signed = !!(mod & VIDEO_D_SIGNED);
    uint32_t dsel = VIDEO_MASK(mod);
    int64_t t = operate(mod, part(a, sel & 7, !!(mod & VIDEO_A_SIGNED)),
                        part(b, sel >> 12 & 7, !!(mod & VIDEO_B_SIGNED)));
    if (mod & VIDEO_SAT) {
        int bits = dsel == PART_WORD ? 32 : dsel <= PART_B3 ? 8 : 16;
        int64_t top = d_signed ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
        int64_t bottom = d_signed ? -(1ll << (bits - 1)) : 0;
        t = t > top ? top : t < bottom ? bottom : t;
    }
    int64_t cx = d_signed ? (int64_t)(int32_t)c : (int64_t)c;
    if (mod & VIDEO_ACCUMULATE)
        t += cx;
    else if (mod & VIDEO_MIN_C)
        t = t < cx ? t : cx;
    else if (mod & VIDEO_MAX_C)
        t = t > cx ? t : cx;
    if (dsel == PART_WORD)
        return (uint32_t)t;
    int bits = dsel <= PART_B3 ? 8 : 16;
    uint32_t shift = (dsel <= PART_B3 ? dsel - PART_B0 : dsel - PART_H0) * (uint32_t)bits;
    uint32_t keep = (uint32_t)((1ull << bits) - 1) << shift;
    return ((uint32_t)t << shift & keep) | (c & ~keep);
}

enum event h_VOP1(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    const uint32_t *a = R32(w, in->o[1]), *b = R32(w, in->o[2]);
    const uint32_t *c = in->o[3] == NO_REG ? a : R32(w, in->o[3]); /* unread without c */
    LANES(m, d[l] = scalar(a[l], b[l], c[l], in->mod, (uint64_t)in->imm));
    return EV_NONE;
}

enum event h_VOP2(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    const uint32_t *a = R32(w, in->o[1]), *b = R32(w, in->o[2]), *c = R32(w, in->o[3]);
    LANES(m, d[l] = simd(a[l], b[l], c[l], in->mod, (uint64_t)in->imm, 2));
    return EV_NONE;
}

enum event h_VOP4(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    const uint32_t *a = R32(w, in->o[1]), *b = R32(w, in->o[2]), *c = R32(w, in->o[3]);
    LANES(m, d[l] = simd(a[l], b[l], c[l], in->mod, (uint64_t)in->imm, 4));
    return EV_NONE;
}

/* vmad of one lane (OP_VMAD's manual in opcodes.h). */
static uint32_t vmad(uint32_t a, uint32_t b, uint32_t c, uint32_t mod, uint64_t sel)
{
    int a_signed = !!(mod & VIDEO_A_SIGNED), b_signed = !!(mod & VIDEO_B_SIGNED);
    int signed_final = a_signed || b_signed || (mod & (VMAD_NEG_AB | VMAD_NEG_C));
    __int128 t = (__int128)part(a, sel & 7, a_signed) * part(b, sel >> 12 & 7, b_signed);
    int lsb = 0;
    if (mod & VMAD_PO)
        lsb = 1;
    else if (mod & VMAD_NEG_AB)
        t = ~t, lsb = 1;
    else if (mod & VMAD_NEG_C)
        c = ~c, lsb = 1;
    t += (signed_final ? (int64_t)(int32_t)c : (int64_t)c) + lsb;
    int shift = VMAD_SCALE(mod) == 1 ? 7 : VMAD_SCALE(mod) == 2 ? 15 : 0;
    int64_t r = signed_final ? (int64_t)(t >> shift) : (int64_t)((unsigned __int128)t >> shift);
    if (mod & VIDEO_SAT) {
        int64_t top = signed_final ? INT32_MAX : UINT32_MAX, bottom = signed_final ? INT32_MIN : 0;
        r = r > top ? top : r < bottom ? bottom : r;
    }
    return (uint32_t)r;
}

enum event h_VMAD(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    const uint32_t *a = R32(w, in->o[1]), *b = R32(w, in->o[2]), *c = R32(w, in->o[3]);
    LANES(m, d[l] = vmad(a[l], b[l], c[l], in->mod, (uint64_t)in->imm));
    return EV_NONE;
}
