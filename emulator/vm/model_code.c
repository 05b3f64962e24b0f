/**
 * @file model_code.c
 * @brief The loads a warp has in flight together, and the SASS each PTX instruction stands
 *        for, from a kernel's decoded code (model_code.h).
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
    for (uint32_t i = 0; i < f->count; i++)
        if (code[i].op == OP_BRA && code[i].imm >= f->first && code[i].imm < f->first + f->count)
            target[code[i].imm - f->first] = 1;
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
            for (unsigned k = 0; k < count && 1 + k < INSN_OPS; k++)
                if (in->o[1 + k] != NO_REG)
                    b.dst[b.ndst++] = in->o[1 + k];
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

float *model_sass_weights(const struct vm_module *mod, uint32_t kernel,
                          const struct model_sass_line *sass, size_t n, uint8_t *batch)
{
    if (!n)
        return NULL;
    const struct func *f = &mod->funcs[kernel];
    const struct insn *code = mod->code + f->first;
    long *entry = emu_malloc((f->count + 1) * sizeof *entry);
    uint32_t *ptx = emu_calloc(2 * n, sizeof *ptx), *ptx_anchors = ptx + n;
    float *w = emu_calloc(f->count + 1, sizeof *w);
    for (uint32_t i = 0; i < f->count; i++)
        if ((entry[i] = sass_entry(mod, &code[i], sass, n)) >= 0) {
            ptx[entry[i]]++;
            ptx_anchors[entry[i]] += (uint32_t)anchor(&code[i]);
        }
    double all = 0, met = 0, sass_a = 0, ptx_a = 0;
    for (size_t k = 0; k < n; k++) {
        all += sass[k].count;
        met += ptx[k] ? sass[k].count : 0;
        if (sass[k].anchors && ptx_anchors[k]) {
            sass_a += sass[k].anchors;
            ptx_a += ptx_anchors[k];
        }
    }
    if (met < 0.9 * all) { /* line information missing or not matching */
        free(entry);
        free(ptx);
        free(w);
        return NULL;
    }
    double unroll = ptx_a > 0 ? sass_a / ptx_a : 1; /* the kernel's, for lines without anchors */
    for (uint32_t i = 0; i < f->count; i++) {
        long k = entry[i];
        if (k < 0)
            continue;
        double u =
            sass[k].anchors && ptx_anchors[k] ? (double)sass[k].anchors / ptx_anchors[k] : unroll;
        w[i] = (float)(sass[k].count / (u * ptx[k]));
        if (batch[i] && u > 1) /* ptxas's steps issue their loads together */
            batch[i] = (uint8_t)fmin(255, round(batch[i] * u));
    }
    free(entry);
    free(ptx);
    return w;
}
