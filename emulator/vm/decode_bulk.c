/**
 * @file decode_bulk.c
 * @brief Decoding Hopper's bulk and tensor copies (cp.async.bulk{.tensor}, cp.reduce.async.bulk
 *        {.tensor}, their prefetches, commit and wait) and the proxy fences.
 *
 * A copy has up to three addresses (its shared side, its global side or tensor map, its
 * mbarrier), each a register plus a displacement, and a size or up to five coordinates: more
 * than struct insn holds, so they go to the module's pool as a struct bulk_ops (bulk.h). The
 * direction is the order of the state spaces in the mnemonic (destination first); a multicast
 * load's ctaMask follows its mbarrier. What the VM does not run decodes to a one-line refusal
 * naming the form: im2col and gather4 loads, sm_100's forms.
 */
#include <string.h>

#include "bulk.h"
#include "decode_impl.h"

/* The state space of the destination (0) or source (1) as the mnemonic orders them: 'g'
 * global, 's' shared (::cta or ::cluster), 0 when absent. */
static char space_at(const struct mn *m, int which)
{
    int seen = 0;
    for (int i = 0; i < m->nmods; i++) {
        const char *s = m->mods[i];
        char sp = !strcmp(s, "global") ? 'g' : !strncmp(s, "shared", 6) ? 's' : 0;
        if (sp && seen++ == which)
            return sp;
    }
    return 0;
}

/* An address operand into @p a. 0, or -1 after dec_bad(). */
static int addr_of(struct dctx *c, const struct operand *o, struct bulk_addr *a, const char *what)
{
    if (o->kind != OK_ADDR)
        return dec_bad(c, "expected an address in [ ] for the %s", what);
    *a = (struct bulk_addr){NO_REG, 0, o->imm};
    if (o->reg) {
        if (o->reg->slot == SLOT_PRED)
            return dec_bad(c, "a predicate as the %s", what);
        a->reg = o->reg->off;
        a->base32 = o->reg->slot == SLOT_32;
    } else if (o->sym) {
        a->disp += (int64_t)dec_sym_addr(c, o->sym);
    }
    return 0;
}

/* The tensor operand [tmap, {c0, ...}] of an Nd copy (@p rank from the mnemonic). */
static int tensor_of(struct dctx *c, const struct operand *o, int rank, struct bulk_ops *b)
{
    if (addr_of(c, o, &b->glob, "tensor map"))
        return -1;
    if (o->nvec != rank)
        return dec_bad(c, "%d coordinates where a %dd copy takes %d", o->nvec, rank, rank);
    b->rank = (uint32_t)rank;
    for (int i = 0; i < rank; i++) {
        if (!o->vec[i] || o->vec[i]->slot != SLOT_32)
            return dec_bad(c, "coordinate %d is not a 32-bit register", i);
        b->coord[i] = o->vec[i]->off;
    }
    return 0;
}

/* The forms of sm_90 the VM does not run, or of later GPUs: refused in one line. */
static int refused(struct dctx *c, const struct mn *m)
{
    static const char *const later[] = {"im2col",        "im2col::w",      "im2col::w::128",
                                        "tile::gather4", "tile::scatter4", "cta_group::1",
                                        "cta_group::2",  "cp_mask",        "ignore_oob"};
    for (size_t i = 0; i < sizeof later / sizeof *later; i++)
        if (mn_has(m, later[i]))
            return dec_bad(c, "the .%s form is not emulated (tiled copies are)", later[i]);
    return 0;
}

/* The reduction of a cp.reduce form (ATOM_MOD's op and type) into *mod and *width. */
static int reduction(struct dctx *c, const struct mn *m, int tensor, uint32_t *mod, uint8_t *width)
{
    static const char *const ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};
    int op = -1;
    for (int i = 0; i < 8; i++)
        if (mn_has(m, ops[i]))
            op = i;
    if (op < 0)
        return dec_bad(c, "a reduction with no operation");
    if (tensor) { /* the element type is the tensor map's */
        *mod = ATOM_MOD((uint32_t)op, 0u, (uint32_t)SP_GLOBAL);
        return 0;
    }
    struct mtype t[2];
    int ct = mn_types(m, t, 2) == 1 ? atom_ctype(&t[0], op) : -1;
    if (ct < 0 || t[0].bits > 64)
        return dec_bad(c, "this reduction's type is not emulated (32- and 64-bit integers, f16, "
                          "bf16, f32 and f64 are)");
    *mod = ATOM_MOD((uint32_t)op, (uint32_t)ct, (uint32_t)SP_GLOBAL);
    *width = (uint8_t)(t[0].bits / 8);
    return 0;
}

/* The rank an Nd mnemonic names, or 0. */
static int rank_of(const struct mn *m)
{
    static const char *const dims[] = {"1d", "2d", "3d", "4d", "5d"};
    for (int r = 0; r < 5; r++)
        if (mn_has(m, dims[r]))
            return r + 1;
    return 0;
}

/* The operands of a copy of direction @p load (into shared memory) or not, into @p b. */
static int operands(struct dctx *c, const struct mn *m, struct operand *o, int n, int tensor,
                    int load, struct bulk_ops *b)
{
    int rank = rank_of(m), at = 0;
    *b = (struct bulk_ops){.mbar = {NO_REG, 0, -1}, .size = NO_REG, .mask = NO_REG};
    for (int i = 0; i < 5; i++)
        b->coord[i] = NO_REG;
    if (tensor && !rank)
        return dec_bad(c, "a tensor copy without a dimension (.1d to .5d)");
    if (load && addr_of(c, &o[at++], &b->smem, "destination"))
        return -1;
    if (tensor ? tensor_of(c, &o[at++], rank, b) : addr_of(c, &o[at++], &b->glob, "address"))
        return -1;
    if (!load && !mn_has(m, "prefetch") && addr_of(c, &o[at++], &b->smem, "source"))
        return -1;
    if (!tensor && dec_src(c, &o[at++], 'u', 32, &b->size))
        return -1;
    if (load && addr_of(c, &o[at++], &b->mbar, "mbarrier"))
        return -1;
    if (mn_has(m, "multicast::cluster")) {
        if (!load || at >= n)
            return dec_bad(c, ".multicast::cluster on a load with its ctaMask operand only");
        if (dec_src(c, &o[at++], 'b', 16, &b->mask))
            return -1;
    }
    /* what may follow (.L2::cache_hint's policy) changes nothing here */
    return at > n ? dec_bad(c, "expected at least %d operands", at) : 0;
}

/* cp.async.bulk{.tensor}, cp.reduce.async.bulk{.tensor}, their prefetches, commit_group and
 * wait_group{.read} (the copies ran when issued: nothing to wait for). */
int dec_bulk(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (mn_has(m, "commit_group") || mn_has(m, "wait_group")) {
        dec_emit(c, OP_NOP);
        return 0;
    }
    if (refused(c, m))
        return -1;
    int tensor = mn_has(m, "tensor"), prefetch = mn_has(m, "prefetch");
    int reduce = mn_has(m, "reduce"), load = !prefetch && space_at(m, 0) == 's';
    uint32_t mod = 0;
    uint8_t width = 0;
    if (!prefetch && !load && space_at(m, 0) != 'g')
        return dec_bad(c, "this direction of cp.async.bulk is not emulated");
    if (load && !mn_has(m, "mbarrier::complete_tx::bytes"))
        return dec_bad(c, "a copy into shared memory without .mbarrier::complete_tx::bytes");
    if (!load && !prefetch && !mn_has(m, "bulk_group"))
        return dec_bad(c, "a copy to global memory without .bulk_group");
    if (reduce && (load || reduction(c, m, tensor, &mod, &width)))
        return load ? dec_bad(c, "reductions into shared memory are not emulated") : -1;
    struct bulk_ops b;
    if (operands(c, m, o, n, tensor, load, &b))
        return -1;
    enum op op = prefetch ? (tensor ? OP_TMA_PREFETCH : OP_BULK_PREFETCH)
                 : load   ? (tensor ? OP_TMA_LOAD : OP_BULK_COPY)
                          : (tensor ? OP_TMA_STORE : OP_BULK_STORE);
    struct insn *in = dec_emit(c, op);
    in->mod = mod;
    in->width = op == OP_BULK_COPY ? (uint8_t)(space_at(m, 1) == 's') : width;
    in->o[5] = decode_pool(c->mod, (const uint32_t *)&b, sizeof b / 4);
    return 0;
}

/* tensormap.replace.tile.FIELD{.global|.shared::cta}.b1024.TYPE [map], {ord,} value:
 * OP_TMAP_REPLACE, the field (TMAP_FIELD_*) in mod, the state space in width (1: shared::cta),
 * the map's address in .glob, ord in .rank and the value's register in .size; the fields
 * CUTLASS's grouped GEMMs change (the address, extents and strides) run, the others are
 * refused in one line. tensormap.cp_fenceproxy...sync.aligned [dst], [src], 128: OP_TMAP_COPY,
 * the operands as cp.async.bulk's store. */
int dec_tensormap(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct bulk_ops b;
    if (mn_has(m, "cp_fenceproxy")) {
        if (operands(c, m, o, n, 0, 0, &b))
            return -1;
        dec_emit(c, OP_TMAP_COPY)->o[5] = decode_pool(c->mod, (const uint32_t *)&b, sizeof b / 4);
        return 0;
    }
    static const char *const fields[] = {[TMAP_FIELD_ADDRESS] = "global_address",
                                         [TMAP_FIELD_DIM] = "global_dim",
                                         [TMAP_FIELD_STRIDE] = "global_stride"};
    int f = -1, ord = !mn_has(m, "global_address");
    for (int i = 0; i < 3; i++)
        f = mn_has(m, fields[i]) ? i : f;
    if (!mn_has(m, "replace") || f < 0)
        return dec_bad(c, "this tensormap form is not emulated (.replace of .global_address, "
                          ".global_dim and .global_stride, and .cp_fenceproxy are)");
    if (n != 2 + ord || (ord && o[1].kind != OK_IMM))
        return dec_bad(c, "expected [map], %svalue", ord ? "an immediate ordinal, " : "");
    b = (struct bulk_ops){
        .mbar = {NO_REG, 0, -1}, .mask = NO_REG, .rank = ord ? (uint32_t)o[1].imm : 0};
    if (addr_of(c, &o[0], &b.glob, "tensor map") ||
        dec_src(c, &o[1 + ord], 'b', f == TMAP_FIELD_DIM ? 32 : 64, &b.size))
        return -1;
    struct insn *in = dec_emit(c, OP_TMAP_REPLACE);
    in->mod = (uint32_t)f;
    in->width = (uint8_t)mn_has(m, "shared::cta");
    in->o[5] = decode_pool(c->mod, (const uint32_t *)&b, sizeof b / 4);
    return 0;
}

/* fence.proxy.async{.space}: OP_FENCE_PROXY_ASYNC, which the async-proxy check notes;
 * fence.{sc,acq_rel}.scope and membar.level: OP_FENCE, which the global racecheck notes (width 1
 * beyond the block); the other proxy fences, mbarrier_init's and sync_restrict's: nothing. */
int dec_fence(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    (void)o, (void)n;
    if (mn_has(m, "proxy") && mn_has(m, "async"))
        dec_emit(c, OP_FENCE_PROXY_ASYNC);
    else if (m->nmods && (!strncmp(m->mods[0], "proxy", 5) || mn_has(m, "mbarrier_init") ||
                          !strncmp(m->mods[m->nmods - 1], "sync_restrict", 13)))
        dec_emit(c, OP_NOP);
    else
        dec_emit(c, OP_FENCE)->width = (uint8_t)!mn_has(m, "cta");
    return 0;
}
