/**
 * @file course_diff.c
 * @brief The judge's differential mode: comparing a runner's outputs with its twin's.
 */
#include "course_diff.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The documented exceptions: outputs that two correct devices may round differently, compared as
 * fp32 within a bound instead of bit for bit, and measurements, not compared. The bound is
 *
 *     |primary - twin| <= factor * n * 2^-24 * scale
 *
 * with n the call's argument @c terms (how many terms a result sums in an order the device
 * picks) and scale the output's largest finite magnitude. Summing n terms in another order moves
 * a result by at most 2 (n - 1) 2^-24 sum|term| (each order is within (n - 1) 2^-24 sum|term| of
 * the exact sum: Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 4.2);
 * sum|term| is taken as scale, which holds for sums whose terms do not cancel (the cases' inputs
 * are small non-negative integers or probabilities). Every other call must match bit for bit.
 */
static const struct diff_exception {
    const char *call;   /* the launcher, exactly */
    int output;         /* the argument it holds for, or -1: every output of the call */
    const char *reason; /* the line's word for it */
    int terms;          /* the argument that counts the terms of a sum */
    double factor;      /* the bound's factor (above); 0: not compared */
} diff_exceptions[] = {
    /* The milliseconds it timed between two events: never the same twice. */
    {"vector_add_host", 4, "timing", 0, 0},
    /* Tensor cores: C(16 x 16) += A B over K, in an order (and with an accumulator rounding) NVIDIA
     * does not document: twice the reordering bound, for an accumulator that truncates. */
    {"wmma_naive", -1, "tensor-order", 2, 4},
    {"wmma_shared", -1, "tensor-order", 2, 4},
    {"wmma_bf16", -1, "tensor-order", 2, 4},
    {"gemm_wmma_f16", -1, "tensor-order", 2, 4},
    {"gemm_wmma_bf16", -1, "tensor-order", 2, 4},
    {"gemm_wmma_tf32", -1, "tensor-order", 2, 4},
    /* Float atomicAdd of B per-row losses (any order), each a logf within 1 ulp on a GPU (CUDA
     * C++ Programming Guide, "Mathematical Functions"): the reordering's 2, and a margin kept
     * from the fused softmax this call replaced (its __expf and __logf, 32 ulp a row). */
    {"gpu_xent", -1, "atomics+logf", 2, 34},
};

enum course_diff_mode course_diff_mode(void)
{
    const char *mode = getenv("COURSE_DIFF");
    if (!mode || !*mode)
        return COURSE_DIFF_OFF;
    if (!strcmp(mode, "gpu"))
        return COURSE_DIFF_GPU;
    if (!strcmp(mode, "schedule"))
        return COURSE_DIFF_SCHEDULE;
    ck_abort_msg("COURSE_DIFF=%s: the differential modes are gpu and schedule", mode);
    return COURSE_DIFF_OFF;
}

const char *course_diff_twin_schedule(void)
{
    const char *own = getenv("COURSE_EMU_SCHEDULE");
    return own && !strcmp(own, "reverse") ? "forward" : "reverse";
}

/* Append @p line (ending in a newline) to the file @p var names, or to stderr. */
static void append(const char *var, const char *line)
{
    const char *path = getenv(var);
    FILE *f = path && *path ? fopen(path, "a") : stderr;
    ck_assert_msg(f != NULL, "%s=%s cannot be appended to", var, path);
    fputs(line, f);
    if (f != stderr)
        fclose(f);
}

void course_diff_count_line(const char *call, const char *launch)
{
    const char *path = getenv("COURSE_DIFF_COUNTS");
    if (!path || !*path)
        return;
    char line[4200];
    snprintf(line, sizeof line, "case=%s call=%s %s\n", tcase_name(), call, launch);
    append("COURSE_DIFF_COUNTS", line);
}

/* The call's arguments, comma-separated: integers, floats, bN for buffer N (+ its offset). */
static void args_words(const struct course_diff_call *c, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->nargs && n + 1 < size; i++) {
        const struct proto_arg *a = &c->args[i];
        const char *sep = i ? "," : "";
        if (a->kind == PROTO_PTR && a->buf == PROTO_NO_BUF)
            n += (size_t)snprintf(buf + n, size - n, "%snull", sep);
        else if (a->kind == PROTO_PTR)
            n += (size_t)snprintf(buf + n, size - n, "%sb%u+%llu", sep, a->buf,
                                  (unsigned long long)a->off);
        else if (a->kind == PROTO_F32 || a->kind == PROTO_F64)
            n += (size_t)snprintf(buf + n, size - n, "%s%g", sep, a->f);
        else
            n += (size_t)snprintf(buf + n, size - n, "%s%lld", sep, (long long)a->i);
    }
}

/* Append the mismatch line: @p compare says how, @p output the element type and count, @p first
 * the first differing element with @p want and @p got its values, @p differing how many. */
static void report(const struct course_diff_call *c, const char *compare, const char *output,
                   size_t first, const char *want, const char *got, size_t differing,
                   const char *what)
{
    char args[400], line[1400];
    args_words(c, args, sizeof args);
    snprintf(line, sizeof line,
             "mismatch case=%s call=%s args=%s kernels=%s compare=%s output=%s first=%zu "
             "primary=%s twin=%s differing=%zu what=%s\n",
             tcase_name(), c->name, args, c->kernels[0] ? c->kernels : "-", compare, output, first,
             want, got, differing, what);
    append("COURSE_DIFF_OUT", line);
}

/* Element @p i of width @p w at @p p, in words: its bits, and as an int and a float when 4 bytes
 * wide (the comparison does not know which it is). */
static void element_words(const unsigned char *p, size_t i, size_t w, char *buf, size_t size)
{
    uint32_t bits = 0;
    memcpy(&bits, p + i * w, w);
    float f;
    memcpy(&f, &bits, sizeof f);
    if (w == 4)
        snprintf(buf, size, "0x%08x(i32=%d,f32=%.9g)", bits, (int32_t)bits, f);
    else
        snprintf(buf, size, "0x%0*x", (int)(2 * w), bits);
}

/* The exception listed for output argument @p arg of @p name, or NULL. */
static const struct diff_exception *exception_for(const char *name, int arg)
{
    for (size_t i = 0; i < sizeof diff_exceptions / sizeof *diff_exceptions; i++) {
        const struct diff_exception *e = &diff_exceptions[i];
        if (!strcmp(e->call, name) && (e->output < 0 || e->output == arg))
            return e;
    }
    return NULL;
}

/* Compare @p n floats within exception @p e's bound; report when one lies outside it. */
static void compare_within(const struct course_diff_call *c, const struct diff_exception *e,
                           const char *what, const float *a, const float *b, size_t n)
{
    double scale = 0;
    for (size_t i = 0; i < n; i++)
        scale = isfinite(a[i]) && fabs(a[i]) > scale ? fabs(a[i]) : scale;
    long long terms = e->terms < c->nargs ? (long long)c->args[e->terms].i : 1;
    double bound = e->factor * (double)(terms > 1 ? terms : 1) * ldexp(scale, -24);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        int same = memcmp(&a[i], &b[i], sizeof *a) == 0 || (isnan(a[i]) && isnan(b[i]));
        if (!same && !(fabs((double)a[i] - (double)b[i]) <= bound) && bad++ == 0)
            first = i;
    }
    if (!bad)
        return;
    char compare[96], output[32], want[48], got[48];
    snprintf(compare, sizeof compare, "within:%.3g(%s)", bound, e->reason);
    snprintf(output, sizeof output, "f32:%zu", n);
    element_words((const unsigned char *)a, first, 4, want, sizeof want);
    element_words((const unsigned char *)b, first, 4, got, sizeof got);
    report(c, compare, output, first, want, got, bad, what);
}

void course_diff_bytes(const struct course_diff_call *c, int arg, const char *what,
                       const unsigned char *a, const unsigned char *b, size_t bytes)
{
    if (!memcmp(a, b, bytes))
        return;
    const struct diff_exception *e = exception_for(c->name, arg);
    if (e && e->factor == 0)
        return;
    if (e && bytes % 4 == 0) {
        compare_within(c, e, what, (const float *)a, (const float *)b, bytes / 4);
        return;
    }
    size_t w = bytes % 4 == 0 ? 4 : bytes % 2 == 0 ? 2 : 1, bad = 0, first = 0;
    for (size_t i = 0; i < bytes / w; i++)
        if (memcmp(a + i * w, b + i * w, w) && bad++ == 0)
            first = i;
    char output[32], want[48], got[48];
    snprintf(output, sizeof output, "%s:%zu", w == 4 ? "b32" : w == 2 ? "b16" : "b8", bytes / w);
    element_words(a, first, w, want, sizeof want);
    element_words(b, first, w, got, sizeof got);
    report(c, "bitwise", output, first, want, got, bad, what);
}

void course_diff_reply(const struct course_diff_call *c, enum proto_kind ret,
                       const struct proto_reply *a, const struct proto_reply *b)
{
    char want[64], got[64];
    if (a->cuda != b->cuda) {
        snprintf(want, sizeof want, "cuda:%d", a->cuda);
        snprintf(got, sizeof got, "cuda:%d", b->cuda);
        report(c, "bitwise", "status", 0, want, got, 1, c->name);
    } else if ((ret == PROTO_F32 || ret == PROTO_F64) && memcmp(&a->f, &b->f, sizeof a->f)) {
        snprintf(want, sizeof want, "%.17g", a->f);
        snprintf(got, sizeof got, "%.17g", b->f);
        report(c, "bitwise", "return", 0, want, got, 1, c->name);
    } else if (ret != PROTO_VOID && ret != PROTO_F32 && ret != PROTO_F64 && a->i != b->i) {
        snprintf(want, sizeof want, "%lld", (long long)a->i);
        snprintf(got, sizeof got, "%lld", (long long)b->i);
        report(c, "bitwise", "return", 0, want, got, 1, c->name);
    }
}
