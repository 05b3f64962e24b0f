/**
 * @file ops_tex.c
 * @brief Texture fetches (tex), gathers (tld4) and surface loads and stores (suld.b, sust.b)
 *        on texture and surface objects.
 *
 * A handle is the device address of a struct tex_desc (tex.h) the runtime wrote. It is read
 * raw: the runtime's bookkeeping is not the kernel's data, so it is neither checked nor
 * counted; a handle that names no live descriptor of the right kind fails the launch in one
 * line. Texels are read raw too (a fetch is not a global load: no memory request is counted),
 * and a surface store marks its bytes as the kernel's for initcheck and the grader's record.
 *
 * Fetching follows the CUDA Programming Guide's "Texture Fetching" appendix:
 *  - a normalized coordinate is folded into [0, 1] by its address mode (wrap: its fraction;
 *    mirror: the fraction, or 1 minus it in odd periods) and scaled by the size; wrap and
 *    mirror apply to normalized coordinates only, and unnormalized ones clamp instead;
 *  - nearest point: texel floor(x); linear: xB = x - 0.5, i = floor(xB), weight
 *    a = frac(xB) rounded to 8 fractional bits (the 9-bit fixed point of the guide), and
 *    (1 - a) T[i] + a T[i + 1] in fp32, x first, then y, then z;
 *  - indices outside the texture: clamp to the edge, wrap (modulo), mirror, or the border
 *    colour (linear memory always reads 0 outside, as tex1Dfetch does);
 *  - 8- and 16-bit integers read as floats under cudaReadModeNormalizedFloat: unsigned
 *    v / (2^n - 1), signed max(v / (2^(n-1) - 1), -1); half floats widen to fp32; channels a
 *    format lacks read 0, and 1 for w;
 *  - a cubemap direction picks the face of its major axis and the face coordinates of the
 *    guide's table, which clamp at the face's edges (no filtering across faces).
 * Arrays have one mipmap level, so a level or gradient (tex.level, tex.grad) changes nothing.
 * A gather (tld4) returns one component of the four texels linear filtering would blend.
 * Every texel a lane reads, through a fetch, a gather or a surface load, is a read of device
 * memory for the grader's record (prov.c), as a global load is.
 */
#include <math.h>
#include <string.h>

#include "fp.h"
#include "mem.h"
#include "prov.h"
#include "tex.h"
#include "vm_impl.h"

/* ---- the object ------------------------------------------------------------------------- */

/* The descriptor handle @p h names, checked: a live object of kind @p magic whose texels lie
 * in one live allocation. Fails the launch otherwise. */
static enum event object(struct exec *x, struct warp *w, const struct insn *in, int lane,
                         uint64_t h, uint32_t magic, const struct tex_desc **out)
{
    const char *want = magic == TEX_MAGIC ? "texture" : "surface";
    const struct mem_block *b = mem_find(x->mem, h, sizeof(struct tex_desc));
    if (!b || b->addr != h) {
        const struct mem_block *f = mem_find_freed(x->mem, h);
        return vm_fail(x, w, in, lane, VM_FAULT, "%s object 0x%llx %s", want, (unsigned long long)h,
                       f && f->addr == h ? "was destroyed"
                                         : "is not a live object (never created, or not a handle)");
    }
    const struct tex_desc *d = mem_host(x->mem, h);
    if (d->self != h || (d->magic != TEX_MAGIC && d->magic != SURF_MAGIC))
        return vm_fail(x, w, in, lane, VM_FAULT,
                       "0x%llx is not a %s object (a device pointer, or an overwritten one)",
                       (unsigned long long)h, want);
    if (d->magic != magic)
        return vm_fail(x, w, in, lane, VM_FAULT, "0x%llx is a %s object where %s needs a %s object",
                       (unsigned long long)h, magic == TEX_MAGIC ? "surface" : "texture",
                       vm_op_names[in->op], want);
    uint64_t need = (uint64_t)(d->slices - 1) * d->slice_pitch +
                    (uint64_t)(d->height - 1) * d->pitch + (uint64_t)d->width * d->elem_bytes;
    if (!d->width || !d->height || !d->slices || need > d->bytes ||
        !mem_find(x->mem, d->base, d->bytes))
        return vm_fail(x, w, in, lane, VM_FAULT,
                       "the memory of %s object 0x%llx was freed (or its descriptor overwritten)",
                       want, (unsigned long long)h);
    *out = d;
    return EV_NONE;
}

/* The checked descriptor of lane @p l's handle, reusing *d while the handle is *last's. */
static enum event object_of(struct exec *x, struct warp *w, const struct insn *in, int l,
                            uint32_t magic, const struct tex_desc **d, uint64_t *last)
{
    uint64_t h = R64(w, in->o[0])[l];
    if (*d && h == *last)
        return EV_NONE;
    *last = h;
    return object(x, w, in, l, h, magic, d);
}

/* ---- texels ---------------------------------------------------------------------------- */

/* The device addresses of the texels one lane's fetch read, for the grader's record (at most
 * eight: linear filtering in 3D). */
struct texels {
    uint64_t at[8];
    int n;
};

/* Whether texels read as floats (float formats, and normalized reads of integers). */
static int reads_float(const struct tex_desc *d)
{
    return d->kind == TEXK_FLOAT || (d->flags & TEXF_READ_NORM);
}

/* Channel @p c of the texel at @p p: a float's bits, or the integer (sign-extended). */
static uint32_t channel(const struct tex_desc *d, const uint8_t *p, int c)
{
    uint32_t raw = 0;
    memcpy(&raw, p + c * (d->bits / 8), d->bits / 8);
    if (d->kind == TEXK_FLOAT)
        return d->bits == 16 ? f2u(fp_f16_to_f32((uint16_t)raw)) : raw;
    int sgn = d->kind == TEXK_SIGNED;
    if (sgn && d->bits < 32 && (raw >> (d->bits - 1)) & 1)
        raw |= ~0u << d->bits;
    if (!(d->flags & TEXF_READ_NORM))
        return raw;
    float max = (float)((1u << (d->bits - (unsigned)sgn)) - 1);
    float v = sgn ? (float)(int32_t)raw / max : (float)raw / max;
    return f2u(v < -1.0f ? -1.0f : v);
}

/* Texel (i, j) of slice k into out[4]; an index of -1 reads the border colour. Its address
 * goes into @p seen, when not NULL. */
static void texel(const struct tex_desc *d, const uint8_t *base, int64_t i, int64_t j, int64_t k,
                  uint32_t out[4], struct texels *seen)
{
    int fl = reads_float(d);
    if (i < 0 || j < 0 || k < 0) {
        for (int c = 0; c < 4; c++)
            out[c] = fl ? f2u(d->border[c]) : (uint32_t)(int32_t)d->border[c];
        return;
    }
    uint64_t off =
        (uint64_t)k * d->slice_pitch + (uint64_t)j * d->pitch + (uint64_t)i * d->elem_bytes;
    const uint8_t *p = base + off;
    if (seen && seen->n < 8)
        seen->at[seen->n++] = d->base + off;
    for (int c = 0; c < 4; c++)
        out[c] = c < d->channels ? channel(d, p, c) : c < 3 ? 0 : fl ? f2u(1.0f) : 1;
}

/* ---- addressing and filtering ------------------------------------------------------------ */

/* Index @p i of a dimension of @p n texels under address mode @p mode; -1: the border. */
static int64_t resolve(int64_t i, int64_t n, int mode)
{
    switch (mode) {
    case TEXA_WRAP:
        return ((i % n) + n) % n;
    case TEXA_MIRROR: {
        int64_t r = ((i % (2 * n)) + 2 * n) % (2 * n);
        return r < n ? r : 2 * n - 1 - r;
    }
    case TEXA_BORDER:
        return i < 0 || i >= n ? -1 : i;
    default:
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    }
}

/* The address mode dimension @p t uses: wrap and mirror need normalized coordinates. */
static int mode_of(const struct tex_desc *d, int t, int normalized)
{
    int mode = d->address[t];
    if (d->flags & TEXF_LINEAR_MEM)
        return TEXA_BORDER;
    return !normalized && (mode == TEXA_WRAP || mode == TEXA_MIRROR) ? TEXA_CLAMP : mode;
}

/* Coordinate @p c of a dimension of @p n texels, in texels. */
static float texels_of(float c, uint32_t n, int mode, int normalized)
{
    if (!normalized)
        return c;
    if (mode == TEXA_WRAP) {
        c -= floorf(c);
    } else if (mode == TEXA_MIRROR) {
        float f = floorf(c);
        c = fmodf(f, 2.0f) != 0.0f ? 1.0f - (c - f) : c - f;
    }
    return c * (float)n;
}

/* The value at texel coordinates xs[0 .. dims) (slice k unless dims is 3), filtered. */
static void sample(const struct tex_desc *d, const uint8_t *base, const float *xs, int dims,
                   int64_t k, const int *mode, uint32_t out[4], struct texels *seen)
{
    int64_t lo[3] = {0, 0, k}, hi[3] = {0, 0, k}, n[3] = {d->width, d->height, d->depth};
    float a[3] = {0, 0, 0};
    int linear = (d->flags & TEXF_LINEAR) != 0;
    for (int t = 0; t < dims; t++) {
        /* NaN and huge coordinates land on the edges rather than overflow an index */
        float c = fminf(fmaxf(xs[t], -1e9f), 1e9f) - (linear ? 0.5f : 0.0f);
        float f = floorf(c);
        lo[t] = resolve((int64_t)f, n[t], mode[t]);
        hi[t] = resolve((int64_t)f + 1, n[t], mode[t]);
        a[t] = roundf((c - f) * 256.0f) / 256.0f;
    }
    if (!linear) {
        texel(d, base, lo[0], lo[1], lo[2], out, seen);
        return;
    }
    float v[8][4];
    int corners = 1 << dims;
    for (int c = 0; c < corners; c++) {
        uint32_t t4[4];
        texel(d, base, c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2], t4,
              seen);
        for (int ch = 0; ch < 4; ch++)
            v[c][ch] = u2f(t4[ch]);
    }
    /* corners 2c and 2c + 1 differ in dimension t: x first, then y, then z */
    for (int t = 0; t < dims; t++, corners >>= 1)
        for (int c = 0; c < corners / 2; c++)
            for (int ch = 0; ch < 4; ch++)
                v[c][ch] = (1.0f - a[t]) * v[2 * c][ch] + a[t] * v[2 * c + 1][ch];
    for (int ch = 0; ch < 4; ch++)
        out[ch] = f2u(v[0][ch]);
}

/* Cubemap direction (x, y, z) to its face (the major axis: +x 0, -x 1, +y 2, -y 3, +z 4,
 * -z 5; ties go to x, then y) and the normalized coordinates (s, t) on that face. */
static int cube_face(float x, float y, float z, float *s, float *t)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, sc, tc;
    int face;
    if (ax >= ay && ax >= az)
        face = x >= 0 ? 0 : 1, m = ax, sc = x >= 0 ? -z : z, tc = -y;
    else if (ay >= az)
        face = y >= 0 ? 2 : 3, m = ay, sc = x, tc = y >= 0 ? z : -z;
    else
        face = z >= 0 ? 4 : 5, m = az, sc = z >= 0 ? x : -x, tc = -y;
    m = m > 0 ? m : 1.0f;
    *s = (sc / m + 1.0f) * 0.5f;
    *t = (tc / m + 1.0f) * 0.5f;
    return face;
}

/* One lane's fetch: coordinates @p c as the geometry lays them out, into out[4]. */
static void fetch(const struct tex_desc *d, const uint8_t *base, int geom, int icoord,
                  const uint32_t c[4], uint32_t out[4], struct texels *seen)
{
    int normalized = (d->flags & TEXF_NORMALIZED) && !icoord;
    int mode[3] = {mode_of(d, 0, normalized), mode_of(d, 1, normalized), mode_of(d, 2, normalized)};
    int layered = geom == TG_A1D || geom == TG_A2D || geom == TG_ACUBE;
    int cube = geom == TG_CUBE || geom == TG_ACUBE;
    int64_t layers = cube ? d->slices / 6 : d->slices, k = 0;
    if (layered)
        k = resolve((int32_t)c[0], layers, TEXA_CLAMP), c++;
    int dims = geom == TG_1D || geom == TG_A1D ? 1 : geom == TG_3D ? 3 : 2;
    float xs[3];
    if (cube) {
        float s, t;
        k = k * 6 + cube_face(u2f(c[0]), u2f(c[1]), u2f(c[2]), &s, &t);
        mode[0] = mode[1] = TEXA_CLAMP;
        xs[0] = s * (float)d->width, xs[1] = t * (float)d->height;
    } else {
        for (int t = 0; t < dims; t++)
            xs[t] = icoord ? (float)(int32_t)c[t]
                           : texels_of(u2f(c[t]),
                                       t == 0   ? d->width
                                       : t == 1 ? d->height
                                                : d->depth,
                                       mode[t], normalized);
    }
    if (icoord) { /* integer coordinates address texels directly, with no filtering */
        int64_t n[3] = {d->width, d->height, d->depth}, ix[3] = {0, 0, k};
        for (int t = 0; t < dims; t++)
            ix[t] = resolve((int32_t)c[t], n[t], mode[t]);
        texel(d, base, ix[0], ix[1], ix[2], out, seen);
        return;
    }
    sample(d, base, xs, dims, k, mode, out, seen);
}

/* tld4: component @p comp of the four texels linear filtering at 2D coordinates @p c would
 * blend, in the order (i, j + 1), (i + 1, j + 1), (i + 1, j), (i, j). */
static void gather(const struct tex_desc *d, const uint8_t *base, int comp, const uint32_t c[4],
                   uint32_t out[4], struct texels *seen)
{
    static const int corner[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    int normalized = (d->flags & TEXF_NORMALIZED) != 0;
    int64_t at[2][2], n[2] = {d->width, d->height};
    for (int t = 0; t < 2; t++) {
        int mode = mode_of(d, t, normalized);
        float xs = texels_of(u2f(c[t]), (uint32_t)n[t], mode, normalized);
        float f = floorf(fminf(fmaxf(xs, -1e9f), 1e9f) - 0.5f);
        at[t][0] = resolve((int64_t)f, n[t], mode);
        at[t][1] = resolve((int64_t)f + 1, n[t], mode);
    }
    for (int k = 0; k < 4; k++) {
        uint32_t t4[4];
        texel(d, base, at[0][corner[k][0]], at[1][corner[k][1]], 0, t4, seen);
        out[k] = t4[comp];
    }
}

/* tex (or, with @p tld4, tld4) for the lanes in @p m. */
static enum event tex_lanes(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                            int tld4)
{
    const uint32_t *p = x->mod->pool + in->o[5];
    const struct tex_desc *d = NULL;
    uint64_t last = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        enum event ev = object_of(x, w, in, l, TEX_MAGIC, &d, &last);
        if (ev != EV_NONE)
            return ev;
        uint32_t c[4] = {0, 0, 0, 0}, out[4];
        for (int i = 0; i < 4; i++)
            if (p[4 + i] != NO_REG)
                c[i] = R32(w, p[4 + i])[l];
        const uint8_t *base = mem_host(x->mem, d->base);
        struct texels seen = {.n = 0}, *rec = x->launch->prov ? &seen : NULL;
        if (tld4)
            gather(d, base, TEX_COMP(in->mod), c, out, rec);
        else
            fetch(d, base, TEX_GEOM(in->mod), TEX_ICOORD(in->mod), c, out, rec);
        if (seen.n)
            prov_texels(x, w, in, l, seen.at, seen.n, d->elem_bytes);
        for (int i = 0; i < 4; i++)
            if (p[i] != NO_REG)
                R32(w, p[i])[l] = out[i];
    }
    return EV_NONE;
}

/* tex: see opcodes.h. */
enum event h_TEX(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return tex_lanes(x, w, in, m, 0);
}

/* tld4: see opcodes.h. */
enum event h_TLD4(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return tex_lanes(x, w, in, m, 1);
}

/* ---- surfaces ---------------------------------------------------------------------------- */

/* Where lane @p l's surface access of @p bytes goes, as a byte offset from the texels' base
 * into *off: -1 when it is out of range under .zero; clamped under .clamp; a fault under
 * .trap. Coordinates: x in bytes, then y and z, the layer first for a1d and a2d. */
static enum event surf_place(struct exec *x, struct warp *w, const struct insn *in, int l,
                             const struct tex_desc *d, const uint32_t *c, unsigned bytes,
                             int64_t *off)
{
    int geom = SURF_GEOM(in->mod), mode = SURF_MODE(in->mod);
    int layered = geom == TG_A1D || geom == TG_A2D;
    const uint32_t *cc = c + layered;
    int64_t xb = (int32_t)cc[0], y = geom == TG_1D || geom == TG_A1D ? 0 : (int32_t)cc[1];
    int64_t k = layered ? (int32_t)c[0] : geom == TG_3D ? (int32_t)cc[2] : 0;
    int64_t row = (int64_t)d->width * d->elem_bytes;
    if (xb % bytes)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "misaligned surface access of %u bytes at x = %lld bytes (it must be a "
                       "multiple of %u)",
                       bytes, (long long)xb, bytes);
    int out = xb < 0 || xb + bytes > row || y < 0 || y >= d->height || k < 0 || k >= d->slices;
    if (out && mode == SURF_TRAP)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "%s of %u bytes outside the surface at x = %lld bytes, y = %lld, %s = %lld "
                       "(the surface is %lld bytes x %u rows x %u %s)",
                       vm_op_names[in->op], bytes, (long long)xb, (long long)y,
                       layered ? "layer" : "z", (long long)k, (long long)row, d->height, d->slices,
                       layered ? "layers" : "planes");
    if (out && (mode == SURF_ZERO || row < bytes)) {
        *off = -1;
        return EV_NONE;
    }
    xb = xb < 0 ? 0 : xb + bytes > row ? (row - bytes) / bytes * bytes : xb;
    y = resolve(y, d->height, TEXA_CLAMP);
    k = resolve(k, d->slices, TEXA_CLAMP);
    *off = k * (int64_t)d->slice_pitch + y * (int64_t)d->pitch + xb;
    return EV_NONE;
}

/* The coordinates of lane @p l (pool words 4 .. 8). */
static void coords_of(const struct warp *w, const uint32_t *p, int l, uint32_t c[4])
{
    for (int i = 0; i < 4; i++)
        c[i] = p[4 + i] != NO_REG ? ((const uint32_t *)(w->regs + p[4 + i]))[l] : 0;
}

/* Lane @p l's surface access: its checked object into *d (reusing it while the handle is
 * *last's) and its offset as surf_place() gives it. */
static enum event surf_lane(struct exec *x, struct warp *w, const struct insn *in, int l,
                            const struct tex_desc **d, uint64_t *last, int64_t *off)
{
    const uint32_t *p = x->mod->pool + in->o[5];
    uint32_t c[4];
    enum event ev = object_of(x, w, in, l, SURF_MAGIC, d, last);
    coords_of(w, p, l, c);
    return ev != EV_NONE ? ev
                         : surf_place(x, w, in, l, *d, c, in->width * SURF_COUNT(in->mod), off);
}

/* Lane @p l's surface access of [addr, addr + bytes): a store is the block's progress and the
 * kernel's bytes for initcheck; for the grader's record, a store or a load as a global one is. */
static void surf_recorded(struct exec *x, struct warp *w, const struct insn *in, int l,
                          uint64_t addr, unsigned bytes, int store)
{
    x->writes += (unsigned)store;
    uint64_t addrs[32];
    addrs[l] = addr;
    if (x->launch->prov)
        prov_global(x, w, in, addrs, 1u << l, bytes, store);
    else if (store && (x->launch->checks & VM_CHECK_INIT))
        mem_mark_written(x->mem, addr, bytes, MEM_KERNEL);
}

/* Lane @p l's elements between its registers (pool words 0 .. count) and @p at (NULL: out of
 * range under .zero, which reads 0 and drops a store). */
static void surf_move(struct warp *w, const uint32_t *p, int l, uint8_t *at, unsigned width,
                      unsigned count, int store)
{
    for (unsigned i = 0; i < count; i++) {
        uint64_t v = 0;
        if (store) {
            v = width == 8 ? R64(w, p[i])[l] : R32(w, p[i])[l];
            memcpy(at + i * width, &v, width);
            continue;
        }
        if (at)
            memcpy(&v, at + i * width, width);
        if (p[i] != NO_REG && width == 8)
            R64(w, p[i])[l] = v;
        else if (p[i] != NO_REG)
            R32(w, p[i])[l] = (uint32_t)v;
    }
}

/* suld.b (@p store 0) and sust.b (1) for the lanes in @p m. */
static enum event surf_access(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                              int store)
{
    const uint32_t *p = x->mod->pool + in->o[5];
    unsigned width = in->width, count = SURF_COUNT(in->mod);
    const struct tex_desc *d = NULL;
    uint64_t last = 0;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        int64_t off;
        enum event ev = surf_lane(x, w, in, l, &d, &last, &off);
        if (ev != EV_NONE)
            return ev;
        if (off < 0 && store)
            continue;
        uint8_t *at = off < 0 ? NULL : (uint8_t *)mem_host(x->mem, d->base) + off;
        if (at)
            surf_recorded(x, w, in, l, d->base + (uint64_t)off, width * count, store);
        surf_move(w, p, l, at, width, count, store);
    }
    return EV_NONE;
}

/* suld.b: see opcodes.h. */
enum event h_SULD(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return surf_access(x, w, in, m, 0);
}

/* sust.b: see opcodes.h. */
enum event h_SUST(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return surf_access(x, w, in, m, 1);
}
