/**
 * @file model_code.c
 * @brief The loads a warp has in flight together, the SASS each PTX instruction stands for,
 *        and the atomics ptxas sums over a warp, from a kernel's decoded code (model_code.h).
 *
 * One pass over the kernel's instructions in order. Open batch: the global loads since the
 * batch began and the registers they write. An instruction that names one of those registers
 * in any operand slot (a read, or an overwrite, which waits for the load too), a branch
 * target, or an instruction that ends straight-line code (branch, barrier, exit, call) closes
 * the batch: each of its loads gets the batch's size. Operands held in the module's pool
 * (wmma fragments, call arguments) are not looked at; a call closes the batch anyway.
 *
 * SASS weights: PTX and SASS meet at their source lines (both carry -lineinfo's locations).
 * ptxas moves, merges and splits instructions within and across lines, so a line's SASS is
 * spread over its PTX evenly; and it unrolls loops again (a loop nvcc unrolled 4 times may be 16
 * times unrolled in SASS, its line holding 4 times the instructions, run a quarter as often), so
 * the line's SASS is divided by its unrolling ratio, read from instructions both sides hold one
 * for one. A loop's body is its lines, so its dynamic count comes out as the SASS loop's.
 *
 * Warp sums: which registers may differ across a warp's lanes, to a fixed point from the
 * thread's index (and every other lane-dependent special register), loads from memory, guards
 * and branches that differ; an atomic whose address is none of them is one ptxas can sum over
 * the warp first (model_code.h).
 */
#include "model_code.h"

#include "alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DST 128 /* registers an open batch tracks; more closes it */

/* 1 for a global load (a generic one may reach global memory; most do). */
static int global_load(const struct insn *in)
{
    return in->op == OP_LD_GLOBAL || in->op == OP_LD_GENERIC;
}

/* 1 when @p in ends straight-line code, or waits for the block or the warp. */
static int ends_batch(const struct insn *in)
{
    switch (in->op) {
    case OP_BRA:
    case OP_EXIT:
    case OP_RET:
    case OP_CALL:
    case OP_CALL_IND:
    case OP_BAR_SYNC:
    case OP_BAR_WARP_SYNC:
    case OP_MBAR_WAIT:
        return 1;
    default:
        return 0;
    }
}

/* 1 when @p in names one of the @p n registers @p dst. */
static int names(const struct insn *in, const uint32_t *dst, int n)
{
    for (int k = 0; k < INSN_OPS; k++)
        for (int i = 0; in->o[k] != NO_REG && i < n; i++)
            if (in->o[k] == dst[i])
                return 1;
    return 0;
}

/* The index of the instruction branch @p in jumps to within the kernel's @p count from @p first,
 * or -1 (not a branch, or out of the kernel). */
static long branch_target(const struct insn *in, uint32_t first, uint32_t count)
{
    return in->op == OP_BRA && in->imm >= first && in->imm < first + count ? (long)(in->imm - first)
                                                                           : -1;
}

int model_load_regs(const struct insn *in, uint32_t *dst, int n, int room)
{
    for (unsigned k = 0; k < MEM_COUNT(in->mod) && 1 + k < INSN_OPS; k++)
        if (in->o[1 + k] != NO_REG && n < room)
            dst[n++] = in->o[1 + k];
    return n;
}

/* The open batch: its loads get its size, and it empties. */
struct open_batch {
    uint32_t dst[MAX_DST], first;
    int ndst, nloads;
};

static void close_batch(struct open_batch *b, uint8_t *batch, uint32_t upto)
{
    for (uint32_t i = b->first; i < upto; i++)
        if (batch[i])
            batch[i] = (uint8_t)(b->nloads < 255 ? b->nloads : 255);
    b->ndst = b->nloads = 0;
    b->first = upto;
}

uint8_t *model_batches(const struct vm_module *mod, uint32_t kernel)
{
    const struct func *f = &mod->funcs[kernel];
    const struct insn *code = mod->code + f->first;
    uint8_t *batch = emu_calloc(f->count + 1, 1), *target = emu_calloc(f->count + 1, 1);
    for (uint32_t i = 0; i < f->count; i++) {
        long t = branch_target(&code[i], f->first, f->count);
        if (t >= 0)
            target[t] = 1;
    }
    struct open_batch b = {.first = 0};
    for (uint32_t i = 0; i < f->count; i++) {
        const struct insn *in = &code[i];
        if (b.nloads && (target[i] || names(in, b.dst, b.ndst)))
            close_batch(&b, batch, i);
        if (global_load(in)) {
            unsigned count = MEM_COUNT(in->mod);
            if (b.ndst + (int)count > MAX_DST)
                close_batch(&b, batch, i);
            if (!b.nloads)
                b.first = i;
            b.ndst = model_load_regs(in, b.dst, b.ndst, MAX_DST);
            b.nloads++;
            batch[i] = 1;
        }
        if (ends_batch(in) && b.nloads)
            close_batch(&b, batch, i + 1);
    }
    if (b.nloads)
        close_batch(&b, batch, f->count);
    free(target);
    return batch;
}

/* The last component of @p path. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The entry of @p sass for instruction @p in's source line, or -1. */
static long sass_entry(const struct vm_module *mod, const struct insn *in,
                       const struct model_sass_line *sass, size_t n)
{
    if (in->line >= mod->nlines)
        return -1;
    const struct srcloc *loc = &mod->lines[in->line];
    if (!loc->line || loc->file >= mod->nfiles || !mod->files[loc->file])
        return -1;
    const char *file = base_name(mod->files[loc->file]);
    for (size_t i = 0; i < n; i++)
        if (sass[i].line == loc->line && !strcmp(base_name(sass[i].file), file))
            return (long)i;
    return -1;
}

/* 1 for a PTX instruction ptxas makes exactly one SASS instruction of, wherever the line is
 * unrolled to: fp32 add, mul and fma, global loads, stores and atomics (sass.py's ANCHORS). */
static int anchor(const struct insn *in)
{
    uint8_t c = vm_op_class[in->op];
    return c == VM_CLASS_FMA32 || c == VM_CLASS_STG || in->op == OP_ADD_F32 ||
           in->op == OP_SUB_F32 || in->op == OP_MUL_F32 ||
           (c == VM_CLASS_LDG && in->op != OP_CP_ASYNC);
}

/* 1 for a PTX 32-bit integer mul.lo or mad.lo: one plain IMAD in SASS when ptxas keeps it. */
static int imad(const struct insn *in)
{
    return in->op == OP_MUL_LO_I32 || in->op == OP_MAD_LO_I32;
}

/* The PTX side of one SASS line: its instructions, anchors and 32-bit mul.lo and mad.lo. */
struct ptx_line {
    uint32_t count, anchors, imads;
};

/* How many times more ptxas unrolled SASS line @p s than its PTX @p p, from what both hold one
 * for one: its anchors, or for a line without them its plain IMADs (at least 1: ptxas may turn a
 * multiply into a shift, never roll a loop up); 0 when neither tells. */
static double line_unrolling(const struct model_sass_line *s, const struct ptx_line *p)
{
    if (s->anchors && p->anchors)
        return (double)s->anchors / p->anchors;
    if (s->imads && p->imads)
        return fmax(1, (double)s->imads / p->imads);
    return 0;
}

/* A loop: the body of a backward branch, instructions first to last. */
struct loop {
    uint32_t first, last;
};

static int shorter(const void *a, const void *b)
{
    const struct loop *x = a, *y = b;
    uint32_t lx = x->last - x->first, ly = y->last - y->first;
    return (lx > ly) - (lx < ly);
}

/* Fill in each unknown (0) of the @p count instructions' unrolling ratios @p u: the mean of the
 * known ratios in the innermost loop around it that has any; else, in a loop, @p kernel (the
 * kernel's anchors' ratio); outside loops 1, as code a thread runs once runs once in SASS. */
static void fill_unrollings(const struct insn *code, uint32_t count, uint32_t first, double kernel,
                            double *u)
{
    struct loop *loops = emu_malloc((count + 1) * sizeof *loops);
    uint32_t nloops = 0;
    for (uint32_t i = 0; i < count; i++) {
        long t = branch_target(&code[i], first, count);
        if (t >= 0 && t <= i) /* backward */
            loops[nloops++] = (struct loop){(uint32_t)t, i};
    }
    qsort(loops, nloops, sizeof *loops, shorter);
    uint8_t *set = emu_calloc(count + 1, 1), *looped = emu_calloc(count + 1, 1);
    for (uint32_t i = 0; i < count; i++)
        set[i] = u[i] > 0;
    for (uint32_t l = 0; l < nloops; l++) { /* innermost first */
        double sum = 0;
        uint32_t known = 0;
        for (uint32_t i = loops[l].first; i <= loops[l].last; i++)
            if (set[i] == 1) {
                sum += u[i];
                known++;
            }
        for (uint32_t i = loops[l].first; i <= loops[l].last; i++) {
            looped[i] = 1;
            if (!set[i] && known) {
                u[i] = sum / known;
                set[i] = 2; /* from its loop, not its line */
            }
        }
    }
    for (uint32_t i = 0; i < count; i++)
        if (!set[i])
            u[i] = looped[i] ? kernel : 1;
    free(loops);
    free(set);
    free(looped);
}

uint32_t *model_sass_weights(const struct vm_module *mod, uint32_t kernel,
                             const struct model_sass_line *sass, size_t n, uint8_t *batch)
{
    if (!n)
        return NULL;
    const struct func *f = &mod->funcs[kernel];
    const struct insn *code = mod->code + f->first;
    long *entry = emu_malloc((f->count + 1) * sizeof *entry);
    struct ptx_line *ptx = emu_calloc(n, sizeof *ptx);
    for (uint32_t i = 0; i < f->count; i++)
        if ((entry[i] = sass_entry(mod, &code[i], sass, n)) >= 0) {
            ptx[entry[i]].count++;
            ptx[entry[i]].anchors += (uint32_t)anchor(&code[i]);
            ptx[entry[i]].imads += (uint32_t)imad(&code[i]);
        }
    double all = 0, met = 0, sass_a = 0, ptx_a = 0;
    for (size_t k = 0; k < n; k++) {
        all += sass[k].count;
        met += ptx[k].count ? sass[k].count : 0;
        if (sass[k].anchors && ptx[k].anchors) {
            sass_a += sass[k].anchors;
            ptx_a += ptx[k].anchors;
        }
    }
    uint32_t *w = NULL;
    if (met >= 0.9 * all) { /* else line information missing or not matching */
        double *u = emu_calloc(f->count + 1, sizeof *u);
        for (uint32_t i = 0; i < f->count; i++)
            u[i] = entry[i] >= 0 ? line_unrolling(&sass[entry[i]], &ptx[entry[i]]) : 0;
        fill_unrollings(code, f->count, f->first, ptx_a > 0 ? sass_a / ptx_a : 1, u);
        w = emu_calloc(f->count + 1, sizeof *w);
        for (uint32_t i = 0; i < f->count; i++) {
            long k = entry[i];
            if (k < 0)
                continue;
            w[i] = (uint32_t)lround(SASS_ONE * sass[k].count / (u[i] * ptx[k].count));
            if (batch[i] && u[i] > 1) /* ptxas's steps issue their loads together */
                batch[i] = (uint8_t)fmin(255, round(batch[i] * u[i]));
        }
        free(u);
    }
    free(entry);
    free(ptx);
    return w;
}

float *model_load_waits(const struct vm_module *mod, uint32_t kernel,
                        const struct model_sass_line *sass, size_t n, const uint8_t *batch)
{
    if (!n)
        return NULL;
    const struct func *f = &mod->funcs[kernel];
    const struct insn *code = mod->code + f->first;
    float *w = emu_calloc(f->count + 1, sizeof *w);
    for (uint32_t i = 0; i < f->count; i++) {
        if (!batch[i])
            continue;
        long k = sass_entry(mod, &code[i], sass, n);
        w[i] = k >= 0 && sass[k].loads ? (float)(sass[k].waits / sass[k].loads) : 1.0f / batch[i];
    }
    return w;
}

/* ---- atomics a warp sums first ---------------------------------------------------------- */

/* 1 for a special register that is the same for every lane of a warp: the block's and the
 * grid's shape, the block's index, the shared memory's size. */
static int uniform_special(int sr)
{
    switch (sr) {
    case SR_NTID_X:
    case SR_NTID_Y:
    case SR_NTID_Z:
    case SR_CTAID_X:
    case SR_CTAID_Y:
    case SR_CTAID_Z:
    case SR_NCTAID_X:
    case SR_NCTAID_Y:
    case SR_NCTAID_Z:
    case SR_GRIDID:
    case SR_DYN_SMEM:
    case SR_TOTAL_SMEM:
        return 1;
    default:
        return 0;
    }
}

/* 1 for integer and floating-point arithmetic: a result of its operands alone, in o[0]. */
static int arithmetic(const struct insn *in)
{
    uint8_t c = vm_op_class[in->op];
    return c == VM_CLASS_INT || c == VM_CLASS_FP || c == VM_CLASS_FMA32;
}

/* The operand slots @p in writes, a bit each, or -1 where this file does not tell them from
 * the ones it reads (every slot is then taken as written, its value unknown). */
static int written(const struct insn *in)
{
    switch (in->op) {
    case OP_SETP_S16:
    case OP_SETP_U16:
    case OP_SETP_S32:
    case OP_SETP_U32:
    case OP_SETP_S64:
    case OP_SETP_U64:
    case OP_SETP_F32:
    case OP_SETP_F64:
    case OP_SETP_HALF:
    case OP_UNPACK_32:
    case OP_UNPACK_64:
        return 3;
    case OP_UNPACK_64_16:
        return 15;
    case OP_LD_GLOBAL:
    case OP_LD_SHARED:
    case OP_LD_LOCAL:
    case OP_LD_GENERIC:
    case OP_LD_PARAM:
        return ((1 << MEM_COUNT(in->mod)) - 1) << 1;
    case OP_ATOM:
        return 2;
    case OP_BRA:
    case OP_EXIT:
    case OP_RET:
    case OP_TRAP:
    case OP_BAR_SYNC:
    case OP_BAR_WARP_SYNC:
    case OP_BAR_CLUSTER:
    case OP_ST_GLOBAL:
    case OP_ST_SHARED:
    case OP_ST_GENERIC:
    case OP_ST_LOCAL:
        return 0;
    default:
        return arithmetic(in) ? 1 : -1;
    }
}

/* A kernel's registers (arena offsets): which may differ across a warp's lanes, which are
 * written more than once, which are read. */
struct lanes {
    const struct func *f;
    const struct insn *code;
    uint8_t *differs, *defs, *read;
};

/* 1 when @p r is a register of the kernel that may differ across lanes. */
static int differs(const struct lanes *l, uint32_t r)
{
    return r != NO_REG && r < l->f->arena_bytes && l->differs[r];
}

/* Mark the registers @p in writes that may differ across lanes; 1 when one was not before.
 * A result differs when an operand does, when the instruction reads memory other than the
 * kernel's parameters, when a guard that differs may leave it unwritten in some lanes, or when
 * it is written more than once and a branch that differs may pick which write it holds. */
static int mark_lanes(struct lanes *l, const struct insn *in, int lane_branch)
{
    int wr = written(in), mark = wr < 0 || (in->guard != NO_REG && differs(l, in->guard));
    mark |= in->op != OP_LD_PARAM && !arithmetic(in);
    for (int k = 0; k < INSN_OPS; k++)
        mark |= wr >= 0 && !(wr >> k & 1) && differs(l, in->o[k]);
    int changed = 0;
    for (int k = 0; k < INSN_OPS; k++) {
        uint32_t r = in->o[k];
        if ((wr < 0 || wr >> k & 1) && r != NO_REG && r < l->f->arena_bytes && !l->differs[r] &&
            (mark || (lane_branch && l->defs[r] > 1)))
            changed = l->differs[r] = 1;
    }
    return changed;
}

/* Count each register's writes (up to 2) and note the ones read. */
static void count_defs(struct lanes *l)
{
    for (uint32_t i = 0; i < l->f->count; i++) {
        const struct insn *in = &l->code[i];
        int wr = written(in);
        for (int k = 0; k < INSN_OPS; k++) {
            uint32_t r = in->o[k];
            if (r == NO_REG || r >= l->f->arena_bytes)
                continue;
            if (wr < 0 || wr >> k & 1)
                l->defs[r] += l->defs[r] < 2;
            if (wr < 0 || !(wr >> k & 1))
                l->read[r] = 1;
        }
        if (in->guard != NO_REG && in->guard < l->f->arena_bytes)
            l->read[in->guard] = 1;
    }
}

/* Which registers may differ across lanes, to a fixed point. */
static void find_lanes(struct lanes *l)
{
    for (int sr = 0; sr < SR_COUNT; sr++)
        if (l->f->special[sr] != NO_REG && !uniform_special(sr))
            l->differs[l->f->special[sr]] = 1;
    for (int changed = 1; changed;) {
        int lane_branch = 0;
        for (uint32_t i = 0; i < l->f->count; i++)
            lane_branch |= l->code[i].op == OP_BRA && differs(l, l->code[i].guard);
        changed = 0;
        for (uint32_t i = 0; i < l->f->count; i++)
            changed |= mark_lanes(l, &l->code[i], lane_branch);
    }
}

/* 1 when register @p r is an immediate 1 of the PTX (a constant register nothing writes). */
static int immediate_one(const struct lanes *l, uint32_t r)
{
    if (r == NO_REG || r >= l->f->arena_bytes || l->defs[r])
        return 0;
    for (uint32_t k = 0; k < l->f->npresets; k++)
        if (l->f->presets[k].off == r)
            return l->f->presets[k].value == 1;
    return 0;
}

/* How ptxas issues atomic @p in (model_warp_sum), given the kernel's registers @p l. */
static uint8_t warp_sum(const struct lanes *l, const struct insn *in)
{
    int space = (int)ATOM_SPACE(in->mod), op = (int)ATOM_OP(in->mod), t = (int)ATOM_TYPE(in->mod);
    if (in->op != OP_ATOM || (space != SP_GLOBAL && space != SP_SHARED))
        return WARP_SUM_NONE;
    int i32 = t == CT_U32 || t == CT_S32, i64 = t == CT_U64 || t == CT_S64;
    int used = in->o[1] != NO_REG && in->o[1] < l->f->arena_bytes && l->read[in->o[1]];
    if (differs(l, in->o[0])) /* lanes at addresses of their own */
        return space == SP_SHARED && op == AT_ADD && i32 && !used && immediate_one(l, in->o[2])
                   ? WARP_SUM_INC
                   : WARP_SUM_NONE;
    if (op == AT_ADD && (i32 || i64) && !differs(l, in->o[2]))
        return WARP_SUM_ANY; /* the value times the lanes taking part (POPC) */
    if (i32 && !used &&
        (op == AT_ADD || op == AT_MIN || op == AT_MAX || op == AT_AND || op == AT_OR ||
         op == AT_XOR))
        return WARP_SUM_ANY; /* REDUX */
    return i32 && op == AT_ADD ? WARP_SUM_FULL : WARP_SUM_NONE;
}

uint8_t *model_warp_sums(const struct vm_module *mod, uint32_t kernel)
{
    const struct func *f = &mod->funcs[kernel];
    uint8_t *sum = emu_calloc(f->count + 1, 1);
    uint32_t i = 0;
    while (i < f->count && mod->code[f->first + i].op != OP_ATOM)
        i++;
    if (i == f->count) /* no atomic: nothing to prove (most kernels, every launch) */
        return sum;
    struct lanes l = {f, mod->code + f->first, emu_calloc(f->arena_bytes + 1, 1),
                      emu_calloc(f->arena_bytes + 1, 1), emu_calloc(f->arena_bytes + 1, 1)};
    count_defs(&l);
    find_lanes(&l);
    for (; i < f->count; i++)
        sum[i] = warp_sum(&l, &l.code[i]);
    free(l.differs);
    free(l.defs);
    free(l.read);
    return sum;
}
