/**
 * @file decode_tex.c
 * @brief Decoding texture fetches (tex) and surface loads and stores (suld.b, sust.b).
 *
 * Their operand [handle, {c0, c1, ...}] names an object (a 64-bit register holding a
 * cudaTextureObject_t or cudaSurfaceObject_t; texture references are gone from CUDA 12) and
 * its coordinates. The decoded form keeps the handle in o[0] and, in the module's pool at
 * o[5], four destination (or source) registers followed by four coordinate registers, NO_REG
 * where absent. The geometry and types go in insn.mod (TEX_MOD / SURF_MOD, vm_impl.h).
 */
#include <string.h>

#include "decode_impl.h"

/* The geometry a mnemonic names, or -1. */
static int geometry(const struct mn *m)
{
    static const char *const names[] = {"1d", "2d", "3d", "a1d", "a2d", "cube", "acube"};
    for (int g = 0; g < (int)(sizeof names / sizeof *names); g++)
        if (mn_has(m, names[g]))
            return g;
    return -1;
}

/* Coordinates each geometry reads, as PTX writes them (3d, a2d and cubes pad to four). */
static int coords_of(int geom)
{
    static const int n[] = {1, 2, 4, 2, 4, 4, 4};
    return n[geom];
}

/* Up to four registers of @p slot from vector @p regs (n of them) into @p words; a sink
 * entry becomes NO_REG. 0, or -1 after dec_bad(). */
static int regs_of(struct dctx *c, const struct reg *const *regs, int n, int slot, uint32_t *words)
{
    for (int i = 0; i < 4; i++)
        words[i] = NO_REG;
    if (n > 4)
        return dec_bad(c, "more than four registers in a vector");
    for (int i = 0; i < n; i++) {
        if (regs[i] && regs[i]->slot != slot)
            return dec_bad(c, "a %d-bit register where %d bits are expected", regs[i]->bits,
                           slot == SLOT_64 ? 64 : 32);
        words[i] = regs[i] ? regs[i]->off : NO_REG;
    }
    return 0;
}

/* The object operand [handle, {coords}]: the handle into in->o[0], the coordinates into
 * words[4..8). 0, or -1 after dec_bad(). */
static int object(struct dctx *c, const struct operand *a, int geom, uint32_t *words,
                  uint32_t *handle)
{
    if (a->kind != OK_ADDR || (!a->reg && a->sym))
        return dec_bad(c, "texture and surface references are not emulated, only objects");
    if (!a->reg || a->reg->slot != SLOT_64 || a->imm)
        return dec_bad(c, "the object handle is not a 64-bit register");
    if (a->nvec != coords_of(geom))
        return dec_bad(c, "%d coordinates where this geometry takes %d", a->nvec, coords_of(geom));
    *handle = a->reg->off;
    return regs_of(c, a->vec, a->nvec, SLOT_32, words + 4);
}

/* A fetch @p op of four 32-bit destinations o[0] from object operand o[1] of @p geom. */
static int emit_fetch(struct dctx *c, const struct operand *o, int geom, enum op op, uint32_t mod)
{
    uint32_t words[8], handle = NO_REG;
    if (regs_of(c, o[0].vec, o[0].nvec, SLOT_32, words) || object(c, &o[1], geom, words, &handle))
        return -1;
    struct insn *in = dec_emit(c, op);
    in->o[0] = handle;
    in->o[5] = decode_pool(c->mod, words, 8);
    in->mod = mod;
    return 0;
}

/* tex{.level,.grad}.geom.v4.dtype.ctype d, [handle, {c}]{, lod | , dPdx, dPdy}: arrays have
 * one level, so a level or gradient changes nothing and is not kept. */
static int dec_tex(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype t[2];
    int geom = geometry(m);
    if (geom < 0 || !mn_has(m, "v4") || mn_types(m, t, 2) != 2 || n < 2 || o[0].kind != OK_VEC)
        return dec_bad(c, "this form of tex is not emulated");
    int dtype_ok = t[0].bits == 32 && strchr("fsu", t[0].kind);
    int icoord = !strcmp(t[1].name, "s32");
    if (!dtype_ok || (!icoord && strcmp(t[1].name, "f32")))
        return dec_bad(c, "tex with these types is not emulated");
    if (icoord && geom >= TG_CUBE)
        return dec_bad(c, "integer cubemap coordinates");
    return emit_fetch(c, o, geom, OP_TEX, TEX_MOD((uint32_t)geom, (uint32_t)icoord));
}

/* tld4.comp.2d.v4.dtype.f32 d, [handle, {x, y}] */
static int dec_tld4(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    static const char *const comps[] = {"r", "g", "b", "a"};
    struct mtype t[2];
    int comp = mn_which(m, comps, 4);
    if (comp < 0 || geometry(m) != TG_2D || !mn_has(m, "v4") || mn_types(m, t, 2) != 2 ||
        t[0].bits != 32 || strcmp(t[1].name, "f32") || n != 2 || o[0].kind != OK_VEC)
        return dec_bad(c, "this form of tld4 is not emulated (tex2Dgather on 2D textures is)");
    return emit_fetch(c, o, TG_2D, OP_TLD4, TEX_MOD((uint32_t)TG_2D, 0u) | (uint32_t)comp << 4);
}

/* suld.b.geom{.v2,.v4}.bN.mode d, [handle, {x, y, z}] and
 * sust.b.geom{.v2,.v4}.bN.mode [handle, {x, y, z}], a. */
static int dec_surf(struct dctx *c, const struct mn *m, struct operand *o, int n, int store)
{
    struct mtype t[1];
    int geom = geometry(m);
    int mode = mn_has(m, "trap")    ? SURF_TRAP
               : mn_has(m, "clamp") ? SURF_CLAMP
               : mn_has(m, "zero")  ? SURF_ZERO
                                    : -1;
    int count = mn_has(m, "v4") ? 4 : mn_has(m, "v2") ? 2 : 1;
    if (!mn_has(m, "b"))
        return dec_bad(c, "formatted surface stores (sust.p) are not emulated");
    if (geom < 0 || geom >= TG_CUBE || mode < 0 || mn_types(m, t, 1) != 1 || t[0].kind != 'b' ||
        t[0].bits > 64 || n != 2)
        return dec_bad(c, "this form of %s is not emulated", store ? "sust" : "suld");
    const struct operand *vals = store ? &o[1] : &o[0], *addr = store ? &o[0] : &o[1];
    if (vals->kind != OK_VEC || vals->nvec != count)
        return dec_bad(c, "expected a vector of %d registers", count);
    uint32_t words[8], handle = NO_REG;
    if (regs_of(c, vals->vec, count, t[0].bits == 64 ? SLOT_64 : SLOT_32, words) ||
        object(c, addr, geom, words, &handle))
        return -1;
    for (int i = 0; store && i < count; i++)
        if (words[i] == NO_REG)
            return dec_bad(c, "sust stores a register, not _");
    struct insn *in = dec_emit(c, store ? OP_SUST : OP_SULD);
    in->o[0] = handle;
    in->o[5] = decode_pool(c->mod, words, 8);
    in->width = (uint8_t)(t[0].bits / 8);
    in->mod = SURF_MOD((uint32_t)geom, (uint32_t)count, (uint32_t)mode);
    return 0;
}

int dec_texture(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (!strcmp(m->base, "tex"))
        return dec_tex(c, m, o, n);
    if (!strcmp(m->base, "tld4"))
        return dec_tld4(c, m, o, n);
    if (!strcmp(m->base, "suld") || !strcmp(m->base, "sust"))
        return dec_surf(c, m, o, n, m->base[2] == 's');
    return dec_bad(c, "%s is not emulated (tex, tld4, suld.b and sust.b are)", m->base);
}
