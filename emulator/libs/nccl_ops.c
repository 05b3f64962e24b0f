/**
 * @file nccl_ops.c
 * @brief The NCCL stand-in's collectives and point-to-point exchanges, run for the ranks of
 *        one process together (a group of several communicators, ncclCommInitAll's).
 *
 * A collective runs in chunks of a slot: every rank copies its part of the chunk into its own
 * slot, all meet, every rank reads the slots it needs into its output, and all meet again
 * before the slots are reused. Floating-point reductions combine in double and round once to
 * the type; integer reductions wrap as the type does (an average divides the wrapped sum).
 * Sends and receives run in rounds: each rank stages up to a slot's share for each peer, all
 * meet, each rank takes what its peers staged for it, and all meet again.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "emu.h"
#include "fp.h"
#include "nccl_impl.h"

size_t nccl_type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8:
    case ncclUint8:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case ncclFloat8e4m3:
    case ncclFloat8e5m2:
#endif
        return 1;
    case ncclFloat16:
    case ncclBfloat16:
        return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
        return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64:
        return 8;
    default:
        return 0;
    }
}

int nccl_reducible(struct ncclComm *c, ncclDataType_t t, ncclRedOp_t op, const char *who)
{
    if (nccl_type_size(t) == 1 && t != ncclInt8 && t != ncclUint8) { /* fp8 */
        nccl_say(c, "%s: reductions of fp8 data are not emulated (copies are)", who);
        return 0;
    }
    int custom = (int)op - (int)ncclNumOps;
    if ((op >= ncclSum && op <= ncclAvg) ||
        (custom >= 0 && custom < MAX_PREMUL && c->premul[custom].used))
        return 1;
    nccl_say(c, "%s: reduction %d is not one this communicator knows", who, (int)op);
    return 0;
}

static int is_float(ncclDataType_t t)
{
    return t == ncclFloat16 || t == ncclBfloat16 || t == ncclFloat32 || t == ncclFloat64;
}

static int is_signed(ncclDataType_t t)
{
    return t == ncclInt8 || t == ncclInt32 || t == ncclInt64;
}

static double load_f(const void *p, ncclDataType_t t)
{
    switch (t) {
    case ncclFloat16:
        return fp_f16_to_f32(*(const uint16_t *)p);
    case ncclBfloat16:
        return fp_bf16_to_f32(*(const uint16_t *)p);
    case ncclFloat32:
        return *(const float *)p;
    default:
        return *(const double *)p;
    }
}

static void store_f(void *p, ncclDataType_t t, double v)
{
    switch (t) {
    case ncclFloat16:
        *(uint16_t *)p = fp_f32_to_f16((float)v);
        break;
    case ncclBfloat16:
        *(uint16_t *)p = fp_f32_to_bf16((float)v);
        break;
    case ncclFloat32:
        *(float *)p = (float)v;
        break;
    default:
        *(double *)p = v;
        break;
    }
}

/* Integers travel as 64-bit two's complement (signed types sign-extended). */
static uint64_t load_i(const void *p, ncclDataType_t t)
{
    switch (t) {
    case ncclInt8:
        return (uint64_t)(int64_t) * (const int8_t *)p;
    case ncclUint8:
        return *(const uint8_t *)p;
    case ncclInt32:
        return (uint64_t)(int64_t) * (const int32_t *)p;
    case ncclUint32:
        return *(const uint32_t *)p;
    default:
        return *(const uint64_t *)p;
    }
}

static void store_i(void *p, ncclDataType_t t, uint64_t v)
{
    memcpy(p, &v, nccl_type_size(t)); /* little endian: the low bytes */
}

/* @p v wrapped to the type, as the type's arithmetic leaves it. */
static uint64_t wrap_i(uint64_t v, ncclDataType_t t)
{
    uint8_t b[8];
    store_i(b, t, v);
    return load_i(b, t);
}

static double combine_f(double a, double b, ncclRedOp_t op)
{
    switch (op) {
    case ncclProd:
        return a * b;
    case ncclMax:
        return a > b ? a : b;
    case ncclMin:
        return a < b ? a : b;
    default:
        return a + b; /* ncclSum, ncclAvg, a PreMulSum */
    }
}

static uint64_t combine_i(uint64_t a, uint64_t b, ncclRedOp_t op, int sign)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (op) {
    case ncclProd:
        return a * b;
    case ncclMax:
        return sign ? (uint64_t)(sa > sb ? sa : sb) : a > b ? a : b;
    case ncclMin:
        return sign ? (uint64_t)(sa < sb ? sa : sb) : a < b ? a : b;
    default:
        return a + b;
    }
}

/* out[i] = op over the ranks of slot r's element at byte @p off + i, for @p n elements. */
static void reduce_slots(const struct ncclComm *c, size_t off, size_t n, ncclDataType_t t,
                         ncclRedOp_t op, uint8_t *out)
{
    size_t es = nccl_type_size(t);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *first = c->slots + off + i * es;
        if (is_float(t)) {
            double acc = load_f(first, t);
            for (int r = 1; r < c->nranks; r++)
                acc = combine_f(acc, load_f(first + r * SLOT_BYTES, t), op);
            store_f(out + i * es, t, op == ncclAvg ? acc / c->nranks : acc);
            continue;
        }
        uint64_t acc = load_i(first, t);
        for (int r = 1; r < c->nranks; r++)
            acc = combine_i(acc, load_i(first + r * SLOT_BYTES, t), op, is_signed(t));
        if (op == ncclAvg) { /* the sum the type holds, divided */
            acc = wrap_i(acc, t);
            acc = is_signed(t) ? (uint64_t)((int64_t)acc / c->nranks) : acc / (uint64_t)c->nranks;
        }
        store_i(out + i * es, t, acc);
    }
}

/* A reduction's input into a slot: @p n elements, each times the rank's scalar for a PreMulSum. */
static void stage(struct ncclComm *c, uint8_t *dst, const uint8_t *src, size_t n, ncclDataType_t t,
                  ncclRedOp_t op)
{
    size_t es = nccl_type_size(t);
    if ((int)op < (int)ncclNumOps) {
        memcpy(dst, src, n * es);
        return;
    }
    const struct premul *p = &c->premul[(int)op - (int)ncclNumOps];
    const uint8_t *s = p->residence == ncclScalarDevice
                           ? course_emu_host(p->scalar, es, "ncclRedOpCreatePreMulSum's scalar")
                           : p->value;
    static const uint8_t zero[8];
    s = s ? s : zero; /* said already */
    for (size_t i = 0; i < n; i++) {
        if (is_float(t))
            store_f(dst + i * es, t, load_f(src + i * es, t) * load_f(s, t));
        else
            store_i(dst + i * es, t, load_i(src + i * es, t) * load_i(s, t));
    }
}

/* Kinds whose chunk holds a piece for every rank in each slot. */
static int spread(enum op_kind k)
{
    return k == OP_REDUCE_SCATTER || k == OP_ALL_TO_ALL || k == OP_SCATTER;
}

static uint8_t *slot(const struct ncclComm *c, int r)
{
    return c->slots + (size_t)r * SLOT_BYTES;
}

/* Op @p o's part of elements [@p done, @p done + @p n) into its rank's slot. */
static void stage_in(const struct op *o, size_t done, size_t n)
{
    struct ncclComm *c = o->comm;
    size_t es = nccl_type_size(o->type), piece = n * es;
    uint8_t *mine = slot(c, c->rank);
    const uint8_t *s = o->send ? o->send + done * es : NULL;
    switch (o->kind) {
    case OP_ALL_REDUCE:
    case OP_REDUCE:
        stage(c, mine, s, n, o->type, o->redop);
        break;
    case OP_BROADCAST:
    case OP_ALL_GATHER:
    case OP_GATHER:
        if (s)
            memcpy(mine, s, piece);
        break;
    case OP_REDUCE_SCATTER:
        for (int q = 0; q < c->nranks; q++)
            stage(c, mine + q * piece, o->send + (q * o->count + done) * es, n, o->type, o->redop);
        break;
    case OP_ALL_TO_ALL:
    case OP_SCATTER:
        for (int q = 0; o->send && q < c->nranks; q++)
            memcpy(mine + q * piece, o->send + (q * o->count + done) * es, piece);
        break;
    default:
        break;
    }
}

/* Op @p o's output for elements [@p done, @p done + @p n) from the slots. */
static void stage_out(const struct op *o, size_t done, size_t n)
{
    const struct ncclComm *c = o->comm;
    size_t es = nccl_type_size(o->type), piece = n * es;
    uint8_t *r = o->recv ? o->recv + done * es : NULL;
    switch (o->kind) {
    case OP_ALL_REDUCE:
    case OP_REDUCE:
        if (r)
            reduce_slots(c, 0, n, o->type, o->redop, r);
        break;
    case OP_BROADCAST:
        memmove(r, slot(c, o->root), piece);
        break;
    case OP_ALL_GATHER:
    case OP_GATHER:
    case OP_ALL_TO_ALL:
        for (int q = 0; o->recv && q < c->nranks; q++)
            memmove(o->recv + (q * o->count + done) * es,
                    slot(c, q) + (o->kind == OP_ALL_TO_ALL ? (size_t)c->rank * piece : 0), piece);
        break;
    case OP_REDUCE_SCATTER:
        reduce_slots(c, (size_t)c->rank * piece, n, o->type, o->redop, r);
        break;
    case OP_SCATTER:
        memmove(r, slot(c, o->root) + (size_t)c->rank * piece, piece);
        break;
    default:
        break;
    }
}

ncclResult_t nccl_collective(struct op *const *ops, int k)
{
    struct ncclComm *c = ops[0]->comm;
    size_t count = ops[0]->count;
    size_t per =
        SLOT_BYTES / nccl_type_size(ops[0]->type) / (spread(ops[0]->kind) ? (size_t)c->nranks : 1);
    for (size_t done = 0; done < count; done += per) {
        size_t n = count - done < per ? count - done : per;
        for (int j = 0; j < k; j++)
            stage_in(ops[j], done, n);
        if (nccl_meet(c, k))
            return ncclRemoteError;
        for (int j = 0; j < k; j++)
            stage_out(ops[j], done, n);
        if (nccl_meet(c, k))
            return ncclRemoteError;
    }
    return ncclSuccess;
}

/* ---- sends and receives ---------------------------------------------------------------------- */

/* The bytes the ops of @p kind that @p comm has with @p peer make, in call order. */
static uint64_t stream_bytes(struct op *const *ops, size_t n, const struct ncclComm *comm,
                             enum op_kind kind, int peer)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        if (ops[i]->comm == comm && ops[i]->kind == kind && ops[i]->root == peer)
            bytes += ops[i]->count * nccl_type_size(ops[i]->type);
    return bytes;
}

/* Bytes [@p pos, @p pos + @p bytes) of that stream out of @p buf (a receive's) or into it (a
 * send's). */
static void stream_copy(struct op *const *ops, size_t n, const struct ncclComm *comm,
                        enum op_kind kind, int peer, uint64_t pos, uint8_t *buf, uint64_t bytes)
{
    for (size_t i = 0; i < n && bytes; i++) {
        const struct op *o = ops[i];
        if (o->comm != comm || o->kind != kind || o->root != peer)
            continue;
        uint64_t len = o->count * nccl_type_size(o->type);
        if (pos >= len) {
            pos -= len;
            continue;
        }
        uint64_t m = len - pos < bytes ? len - pos : bytes;
        if (kind == OP_SEND)
            memcpy(buf, o->send + pos, m);
        else
            memcpy(o->recv + pos, buf, m);
        buf += m, bytes -= m, pos = 0;
    }
}

/* Where rank j of comms[] stands with each peer: bytes to send and receive, and done. */
struct pair {
    uint64_t to_send, sent, to_recv, got;
};

/* The rounds the slowest rank of the segment needs, each rank having posted its own. */
static int rounds_needed(struct ncclComm *const *comms, int k, const struct pair *pairs,
                         uint64_t box, uint32_t *rounds)
{
    struct ncclComm *c = comms[0];
    for (int j = 0; j < k; j++) {
        uint64_t most = 0;
        for (int p = 0; p < c->nranks; p++) {
            const struct pair *e = &pairs[j * c->nranks + p];
            uint64_t r = (e->to_send + box - 1) / box, s = (e->to_recv + box - 1) / box;
            most = r > most ? r : most;
            most = s > most ? s : most;
        }
        c->sh->rounds[comms[j]->rank] = (uint32_t)most;
    }
    if (nccl_meet(c, k))
        return -1;
    *rounds = 0;
    for (int r = 0; r < c->nranks; r++)
        *rounds = c->sh->rounds[r] > *rounds ? c->sh->rounds[r] : *rounds;
    return nccl_meet(c, k); /* all have read them before any rank posts again */
}

/* One round: every rank stages what it can for each peer, then takes what was staged for it. */
static int round_trip(struct ncclComm *const *comms, int k, struct op *const *ops, size_t n,
                      struct pair *pairs, uint64_t box, ncclResult_t *res)
{
    struct ncclComm *c = comms[0];
    int nr = c->nranks;
    for (int j = 0; j < k; j++)
        for (int p = 0; p < nr; p++) {
            struct pair *e = &pairs[j * nr + p];
            uint64_t m = e->to_send - e->sent < box ? e->to_send - e->sent : box;
            uint8_t *box_at = slot(comms[j], comms[j]->rank) + (size_t)p * box;
            stream_copy(ops, n, comms[j], OP_SEND, p, e->sent, box_at, m);
            c->sh->posted[comms[j]->rank][p] = m;
            e->sent += m;
        }
    if (nccl_meet(c, k))
        return -1;
    for (int j = 0; j < k; j++)
        for (int p = 0; p < nr; p++) {
            struct pair *e = &pairs[j * nr + p];
            uint64_t m = c->sh->posted[p][comms[j]->rank];
            if (m > e->to_recv - e->got) {
                nccl_say(comms[j], "rank %d sent more bytes than rank %d receives from it", p,
                         comms[j]->rank);
                *res = ncclInvalidUsage;
                m = e->to_recv - e->got;
            }
            stream_copy(ops, n, comms[j], OP_RECV, p, e->got,
                        slot(comms[j], p) + (size_t)comms[j]->rank * box, m);
            e->got += m;
        }
    return nccl_meet(c, k);
}

ncclResult_t nccl_exchange(struct ncclComm *const *comms, int k, struct op *const *ops, size_t n)
{
    int nr = comms[0]->nranks;
    uint64_t box = SLOT_BYTES / (uint64_t)nr;
    struct pair *pairs = emu_calloc((size_t)k * (size_t)nr, sizeof *pairs);
    for (int j = 0; j < k; j++)
        for (int p = 0; p < nr; p++)
            pairs[j * nr + p] =
                (struct pair){.to_send = stream_bytes(ops, n, comms[j], OP_SEND, p),
                              .to_recv = stream_bytes(ops, n, comms[j], OP_RECV, p)};
    ncclResult_t res = ncclSuccess;
    uint32_t rounds = 0;
    if (rounds_needed(comms, k, pairs, box, &rounds))
        res = ncclRemoteError;
    for (uint32_t r = 0; res != ncclRemoteError && r < rounds; r++)
        if (round_trip(comms, k, ops, n, pairs, box, &res))
            res = ncclRemoteError;
    for (int j = 0; res == ncclSuccess && j < k; j++)
        for (int p = 0; p < nr; p++)
            if (pairs[j * nr + p].got != pairs[j * nr + p].to_recv) {
                nccl_say(comms[j],
                         "rank %d received %llu of the %llu bytes it expected from rank %d",
                         comms[j]->rank, (unsigned long long)pairs[j * nr + p].got,
                         (unsigned long long)pairs[j * nr + p].to_recv, p);
                res = ncclInvalidUsage;
            }
    free(pairs);
    return res;
}
