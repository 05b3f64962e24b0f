/**
 * @file decode_mem.c
 * @brief Decoding loads, stores, atomics and asynchronous copies.
 *
 * Every memory instruction keeps its address as a base register (o[0], or
 * NO_REG) plus a displacement (imm) that already includes a variable's
 * address; the state space is in the opcode, so the handler never asks.
 */
#include <string.h>

#include "decode_impl.h"

static int vec_count(const struct mn *m)
{
    return mn_has(m, "v4") ? 4 : mn_has(m, "v2") ? 2 : mn_has(m, "v8") ? 8 : 1;
}

/* An address operand [base + imm] / [sym + imm] into in->o[0], in->imm and the base32 bit. */
static int address(struct dctx *c, const struct operand *a, struct insn *in, uint32_t *mod)
{
    if (a->kind != OK_ADDR)
        return dec_bad(c, "expected an address in [ ]");
    in->imm = a->imm;
    if (a->reg) {
        if (a->reg->slot == SLOT_PRED)
            return dec_bad(c, "a predicate as an address");
        in->o[0] = a->reg->off;
        if (a->reg->slot == SLOT_32)
            *mod |= MEM_BASE32_BIT;
    } else if (a->sym) {
        in->imm += (int64_t)dec_sym_addr(c, a->sym);
    }
    return 0;
}

/* Which opcode a load or store in space @p s with address @p a uses. */
static enum op mem_op(struct dctx *c, enum space s, const struct operand *a, int store)
{
    if (s == SP_PARAM) {
        if (a->sym && a->sym->is_callparam)
            return store ? OP_ST_CALLPARAM : OP_LD_CALLPARAM;
        return store ? OP_UNSUPPORTED : OP_LD_PARAM;
    }
    static const enum op ld[] = {OP_LD_GENERIC, OP_LD_GLOBAL,   OP_LD_SHARED,
                                 OP_LD_LOCAL,   OP_UNSUPPORTED, OP_LD_GLOBAL};
    static const enum op st[] = {OP_ST_GENERIC, OP_ST_GLOBAL,   OP_ST_SHARED,
                                 OP_ST_LOCAL,   OP_UNSUPPORTED, OP_UNSUPPORTED};
    (void)c;
    return store ? st[s] : ld[s];
}

/* The memory-model qualifiers of @p m as MEM_ORDER flags: .volatile, .relaxed, .acquire and
 * .release are strong (an atom always is); .cta scopes them to the block; .release and .acq_rel
 * order the thread's earlier accesses before this one (the global racecheck's). */
static uint32_t mem_order(const struct mn *m, int atom)
{
    int release = mn_has(m, "release") || mn_has(m, "acq_rel");
    uint32_t o =
        atom || release || mn_has(m, "volatile") || mn_has(m, "relaxed") || mn_has(m, "acquire")
            ? MEM_STRONG
            : 0;
    return o | (mn_has(m, "cta") ? MEM_CTA : 0) | (release ? MEM_RELEASE : 0);
}

/* ld / ldu: d or {d...}, [address]. */
int dec_ld(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype types[2];
    if (mn_types(m, types, 2) != 1 || n != 2)
        return dec_bad(c, "this form of ld is not emulated");
    struct mtype t = types[0];
    int count = vec_count(m);
    enum op op = mem_op(c, mn_space(m), &o[1], 0);
    if (op == OP_UNSUPPORTED || t.bits > 64 || count > 4)
        return dec_bad(c, "this form of ld is not emulated");
    const struct reg *d[4] = {o[0].reg};
    if (o[0].kind == OK_VEC) {
        if (o[0].nvec != count)
            return dec_bad(c, "the vector has %d registers, the load %d", o[0].nvec, count);
        memcpy(d, o[0].vec, (size_t)count * sizeof *d);
    } else if (o[0].kind != OK_REG || count != 1) {
        return dec_bad(c, "the destination is not a register");
    }
    int slot = 0;
    for (int i = 0; i < count; i++)
        if (d[i]) {
            if ((slot && d[i]->slot != slot) || d[i]->slot == SLOT_PRED ||
                (d[i]->slot == SLOT_32 && t.bits == 64))
                return dec_bad(c, "a destination register of the wrong width");
            slot = d[i]->slot;
        }
    struct insn *in = dec_emit(c, op);
    uint32_t mod = (uint32_t)count;
    if (t.kind == 's' && t.bits < (slot == SLOT_64 ? 64 : 32)) /* widened to the register */
        mod |= MEM_SIGNED_BIT;
    if (mn_space(m) == SP_CONST) /* read like global memory, counted as no global request */
        mod |= MEM_CONST_BIT;
    if (slot == SLOT_64)
        mod |= MEM_DST64_BIT;
    mod |= mem_order(m, 0) << MEM_ORDER_SHIFT;
    if (address(c, &o[1], in, &mod))
        return -1;
    for (int i = 0; i < count; i++)
        in->o[1 + i] = d[i] ? d[i]->off : NO_REG;
    in->width = (uint8_t)(t.bits / 8);
    in->mod = mod;
    return 0;
}

/* st: [address], a or {a...}. */
int dec_st(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    struct mtype types[2];
    if (mn_types(m, types, 2) != 1 || n != 2)
        return dec_bad(c, "this form of st is not emulated");
    struct mtype t = types[0];
    int count = vec_count(m);
    enum op op = mem_op(c, mn_space(m), &o[0], 1);
    if (op == OP_UNSUPPORTED || t.bits > 64 || count > 4)
        return dec_bad(c, "this form of st is not emulated");
    int bits = t.bits == 64 ? 64 : 32;
    const struct reg *first = o[1].kind == OK_VEC   ? o[1].vec[0]
                              : o[1].kind == OK_REG ? o[1].reg
                                                    : 0;
    if (first && first->slot == SLOT_64) /* a wider register than the type: its low bytes */
        bits = 64;
    uint32_t s[4];
    if (o[1].kind == OK_VEC) {
        if (o[1].nvec != count)
            return dec_bad(c, "the vector has %d registers, the store %d", o[1].nvec, count);
        for (int i = 0; i < count; i++) {
            if (!o[1].vec[i])
                return dec_bad(c, "a store from the sink");
            struct operand one = {.kind = OK_REG, .reg = o[1].vec[i]};
            if (dec_src(c, &one, t.kind, bits, &s[i]))
                return -1;
        }
    } else if (count != 1 || dec_src(c, &o[1], t.kind, bits, &s[0])) {
        return count != 1 ? dec_bad(c, "a vector store needs { }") : -1;
    }
    struct insn *in = dec_emit(c, op);
    uint32_t mod = (uint32_t)count;
    if (bits == 64)
        mod |= MEM_DST64_BIT;
    mod |= mem_order(m, 0) << MEM_ORDER_SHIFT;
    if (address(c, &o[0], in, &mod))
        return -1;
    for (int i = 0; i < count; i++)
        in->o[1 + i] = s[i];
    in->width = (uint8_t)(t.bits / 8);
    in->mod = mod;
    return 0;
}

int atom_ctype(const struct mtype *t, int op)
{
    int arith = op == AT_ADD || op == AT_MIN || op == AT_MAX;
    switch (t->kind) {
    case 'f':
        return t->bits == 16 || (!arith && op != AT_EXCH) ? -1 : t->bits == 32 ? CT_F32 : CT_F64;
    case 'h':
    case 'H':
        return arith ? CT_F16 : -1;
    case 'g':
    case 'G':
        return arith ? CT_BF16 : -1;
    case 's':
        return t->bits == 32 ? CT_S32 : t->bits == 64 ? CT_S64 : -1;
    default: /* u, b: 16 bits for cas and exch only */
        return t->bits == 32                                      ? CT_U32
               : t->bits == 64                                    ? CT_U64
               : t->bits == 16 && (op == AT_CAS || op == AT_EXCH) ? CT_U16
                                                                  : -1;
    }
}

/* Whether the vector form .v@p count of an atom or red on @p ct (@p bits a element) is one the
 * PTX ISA has: add of f32 in 2 or 4, add, min and max of f16 and bf16 in 2, 4 or 8, of their
 * pairs in 2 or 4; global memory only. */
static int atom_vector_ok(int ct, int bits, int op, int count, enum space s)
{
    if (s == SP_SHARED)
        return 0;
    if (ct == CT_F32)
        return op == AT_ADD && count <= 4;
    return (ct == CT_F16 || ct == CT_BF16) && (bits == 16 || count <= 4);
}

/* Register @p i of operand @p o (a vector of @p count, or one register when @p count is 1). */
static const struct operand *atom_part(const struct operand *o, int i, int count,
                                       struct operand *one)
{
    if (count == 1)
        return o;
    *one = o->vec[i] ? (struct operand){.kind = OK_REG, .reg = o->vec[i]}
                     : (struct operand){.kind = OK_SINK};
    return one;
}

/* atom.op.type d, [a], b[, c] and red.op.type [a], b. A vector form (.v2, .v4, .v8) is one
 * atomic access per element, at consecutive addresses: the PTX ISA makes each element atomic on
 * its own, not the vector as a whole. */
int dec_atom(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    static const char *const ops[] = {"add", "min", "max", "inc",  "dec",
                                      "and", "or",  "xor", "exch", "cas"};
    int op = mn_which(m, ops, 10), red = !strcmp(m->base, "red"), count = vec_count(m);
    struct mtype types[2];
    enum space s = mn_space(m);
    if (op < 0 || mn_types(m, types, 2) != 1 ||
        (s != SP_GLOBAL && s != SP_SHARED && s != SP_GENERIC))
        return dec_bad(c, "this form of %s is not emulated", m->base);
    struct mtype t = types[0];
    int ct = atom_ctype(&t, op);
    if (ct < 0 || t.bits > 64)
        return dec_bad(c, "%s.%s on %s is not emulated", m->base, ops[op], t.name);
    if (count > 1 && (op == AT_CAS || !atom_vector_ok(ct, t.bits, op, count, s)))
        return dec_bad(c, "%s.%s.v%d.%s is not a vector atomic the PTX ISA has", m->base, ops[op],
                       count, t.name);
    int need = (red ? 2 : 3) + (op == AT_CAS);
    if (n != need)
        return dec_bad(c, "expected %d operands", need);
    const struct operand *addr = red ? &o[0] : &o[1];
    if (count > 1 && ((!red && (o[0].kind != OK_VEC || o[0].nvec != count)) ||
                      addr[1].kind != OK_VEC || addr[1].nvec != count))
        return dec_bad(c, "a .v%d %s takes vectors of %d registers in { }", count, m->base, count);
    int bits = t.bits == 16 ? 32 : t.bits; /* a 16-bit value lives in a 32-bit slot */
    for (int i = 0; i < count; i++) {
        struct operand one_d, one_b;
        uint32_t d = NO_REG, b, cc = NO_REG;
        if ((!red && dec_dst(c, atom_part(&o[0], i, count, &one_d), bits, &d)) ||
            dec_src(c, atom_part(addr + 1, i, count, &one_b), t.kind, bits, &b) ||
            (op == AT_CAS && dec_src(c, addr + 2, t.kind, bits, &cc)))
            return -1;
        struct insn *in = dec_emit(c, OP_ATOM);
        uint32_t mod = 0;
        if (address(c, addr, in, &mod))
            return -1;
        in->imm += (int64_t)i * (t.bits / 8);
        in->o[1] = d, in->o[2] = b, in->o[3] = cc;
        in->width = (uint8_t)(t.bits / 8);
        in->mod = ATOM_MOD((uint32_t)op, (uint32_t)ct, (uint32_t)s) |
                  ((mod & MEM_BASE32_BIT) ? ATOM_BASE32_BIT : 0) |
                  (mem_order(m, 1) & ~(uint32_t)MEM_STRONG) << ATOM_ORDER_SHIFT;
    }
    return 0;
}

/* cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr] */
static int cp_async_mbarrier(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    enum space s = mn_space(m);
    if (n != 1 || (s != SP_SHARED && s != SP_GENERIC) || mn_has(m, "shared::cluster"))
        return dec_bad(c, "this form of cp.async.mbarrier.arrive is not emulated");
    struct insn *in = dec_emit(c, OP_CP_ASYNC_MBAR);
    uint32_t mod = 0;
    if (address(c, &o[0], in, &mod))
        return -1;
    in->width = (uint8_t)mn_has(m, "noinc");
    in->mod = ATOM_MOD(0u, 0u, (uint32_t)s) | ((mod & MEM_BASE32_BIT) ? ATOM_BASE32_BIT : 0);
    return 0;
}

/* cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all. */
static int cp_async_group(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (mn_has(m, "commit_group")) {
        if (n)
            return dec_bad(c, "cp.async.commit_group takes no operands");
        dec_emit(c, OP_CP_ASYNC_COMMIT);
        return 0;
    }
    int all = mn_has(m, "wait_all");
    if (all ? n != 0 : n != 1 || o[0].kind != OK_IMM || o[0].imm < 0 || o[0].imm > 255)
        return dec_bad(c, "cp.async.wait_group takes one constant (0 to 255), wait_all none");
    struct insn *in = dec_emit(c, OP_CP_ASYNC_WAIT);
    in->width = (uint8_t)all;
    in->imm = all ? 0 : o[0].imm;
    return 0;
}

/*
 * cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::64B|128B|256B} [d], [a], size
 * {, src_size | , ignore_src}{, cache_policy}; the groups and cp.async.mbarrier.arrive; the
 * bulk and tensor copies (dec_bulk).
 */
int dec_cp(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    if (mn_has(m, "bulk"))
        return dec_bulk(c, m, o, n);
    if (!mn_has(m, "async") || mn_has(m, "tensor"))
        return dec_bad(c, "this form of cp is not emulated");
    if (mn_has(m, "mbarrier"))
        return cp_async_mbarrier(c, m, o, n);
    if (mn_has(m, "commit_group") || mn_has(m, "wait_group") || mn_has(m, "wait_all"))
        return cp_async_group(c, m, o, n);
    int hint = mn_has(m, "L2::cache_hint"), cg = mn_has(m, "cg");
    int extra = n - 3 - hint; /* src_size or ignore_src */
    int spaces = (mn_has(m, "shared") || mn_has(m, "shared::cta")) && mn_has(m, "global");
    if ((!cg && !mn_has(m, "ca")) || !spaces || extra < 0 || extra > 1 || o[2].kind != OK_IMM ||
        (o[2].imm != 4 && o[2].imm != 8 && o[2].imm != 16) || (cg && o[2].imm != 16))
        return dec_bad(c, "this form of cp.async is not emulated");
    if (o[1].kind != OK_ADDR || !o[1].reg || o[1].reg->slot != SLOT_64 || o[1].imm || o[1].sym)
        return dec_bad(c, "cp.async's source must be [64-bit register]");
    uint32_t size_reg = NO_REG, ignore = NO_REG;
    if (extra && o[3].kind == OK_REG && o[3].reg->slot == SLOT_PRED) {
        if (o[3].negated)
            return dec_bad(c, "a negated ignore-src predicate is not emulated");
        ignore = o[3].reg->off;
    } else if (extra && dec_src(c, &o[3], 'u', 32, &size_reg)) {
        return -1;
    }
    struct insn *in = dec_emit(c, OP_CP_ASYNC);
    uint32_t mod = 0;
    if (address(c, &o[0], in, &mod))
        return -1;
    in->o[1] = o[1].reg->off;
    in->o[2] = size_reg;
    in->o[3] = ignore;
    in->width = (uint8_t)o[2].imm;
    in->mod = mod;
    return 0;
}

/* mbarrier.{expect_tx,complete_tx} [addr], txCount: OP_MBAR_TX. */
static int dec_mbar_tx(struct dctx *c, const struct mn *m, struct operand *o, int n, enum space s)
{
    uint32_t v, mod = 0;
    if (n != 2 || dec_src(c, &o[1], 'u', 32, &v))
        return n != 2 ? dec_bad(c, "expected 2 operands") : -1;
    struct insn *in = dec_emit(c, OP_MBAR_TX);
    if (address(c, &o[0], in, &mod))
        return -1;
    in->o[2] = v;
    in->width = (uint8_t)mn_has(m, "complete_tx");
    in->mod = ATOM_MOD(0u, 0u, (uint32_t)s) | ((mod & MEM_BASE32_BIT) ? ATOM_BASE32_BIT : 0);
    return 0;
}

/* mbarrier.{init,inval,arrive{.expect_tx},arrive_drop,test_wait,try_wait}{.parity}{.sem}{.scope}
 * {.shared{::cta}}.b64, mbarrier.{expect,complete}_tx and mbarrier.pending_count.b64: the object
 * in the block's own shared memory (ops_mbarrier.c); other blocks' objects (.shared::cluster)
 * are not emulated. */
int dec_mbarrier(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    uint32_t d = NO_REG, v = NO_REG, tx = NO_REG, mod = 0;
    int wait = mn_has(m, "test_wait") || mn_has(m, "try_wait");
    int arrive = mn_has(m, "arrive") || mn_has(m, "arrive_drop"), expect = mn_has(m, "expect_tx");
    if (mn_has(m, "pending_count")) {
        if (n != 2 || dec_dst(c, &o[0], 32, &d) || dec_src(c, &o[1], 'u', 64, &v))
            return n != 2 ? dec_bad(c, "expected 2 operands") : -1;
        struct insn *in = dec_emit(c, OP_MBAR_PENDING);
        in->o[1] = d, in->o[2] = v;
        return 0;
    }
    enum space s = mn_space(m);
    if ((s != SP_SHARED && s != SP_GENERIC) || (mn_has(m, "shared::cluster") && !arrive) ||
        !(wait || arrive || expect || mn_has(m, "complete_tx") || mn_has(m, "init") ||
          mn_has(m, "inval")))
        return dec_bad(c, "this form of mbarrier is not emulated");
    if (!arrive && !wait && (expect || mn_has(m, "complete_tx")))
        return dec_mbar_tx(c, m, o, n, s);
    int parity = mn_has(m, "parity");
    int first = wait || arrive; /* the predicate or token before the address */
    int least = first ? 2 + wait + expect : 1 + mn_has(m, "init");
    int most = first ? 3 + wait : least;
    if (n < least || n > most) /* try_wait's last, a suspend-time hint, changes nothing here */
        return dec_bad(c, "expected %d to %d operands", least, most);
    if ((first && dec_dst(c, &o[0], wait ? 1 : 64, &d)) ||
        (expect && dec_src(c, &o[2], 'u', 32, &tx)) ||
        (!expect && n > 1 + first && dec_src(c, &o[1 + first], 'u', wait && !parity ? 64 : 32, &v)))
        return -1;
    struct insn *in = dec_emit(c, wait ? OP_MBAR_WAIT : arrive ? OP_MBAR_ARRIVE : OP_MBAR_INIT);
    if (address(c, &o[first], in, &mod))
        return -1;
    in->o[1] = d, in->o[2] = v, in->o[3] = tx;
    in->width = (uint8_t)(wait ? parity : mn_has(m, "arrive_drop"));
    in->mod = ATOM_MOD(0u, 0u, (uint32_t)s) | ((mod & MEM_BASE32_BIT) ? ATOM_BASE32_BIT : 0);
    return 0;
}

/* fence, membar, nanosleep, prefetch, ... and griddepcontrol (programmatic dependent launch:
 * a grid starts only once the grids before it in its stream have ended, so .wait has nothing
 * to wait for and .launch_dependents nothing to allow early). */
int dec_nop(struct dctx *c, const struct mn *m, struct operand *o, int n)
{
    (void)m, (void)o, (void)n;
    dec_emit(c, OP_NOP);
    return 0;
}
