/**
 * @file bench.c
 * @brief course-emu-bench: how fast the VM runs lesson 03's tiled SGEMM, in thread
 *        instructions per second, on COURSE_EMU_THREADS host threads (default: every core).
 *
 *   course-emu-bench PTX [M N K ...]
 *
 * PTX is lesson 03's solution PTX (build/reports/03_solution.ptx); each M N K triple (default
 * 257 257 257 and 1031 1029 1027) is run once with the counters on, to count the thread
 * instructions, and then timed with them off, as every launch runs unless asked. One table row
 * per size: wall seconds and the process's CPU seconds (every thread's), and thread instructions
 * per second of each (per CPU second: one core's speed, whatever else the machine runs).
 *
 * A second table compares the element types on one loop: a naive GEMM (one thread per element
 * of C, each a chain of K fma instructions fed by two global loads) written once in PTX, here,
 * for f32, f16, bf16, f16x2 and bf16x2 (a pair of k values per instruction), the way nvcc
 * compiles __fmaf_rn, __hfma and __hfma2. Every version runs the same instructions per step,
 * so its time against f32's is the cost of its arithmetic.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "fp.h"
#include "mem.h"
#include "vm.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = emu_malloc((size_t)n + 1);
    if (fread(text, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(text);
        return NULL;
    }
    fclose(f);
    text[n] = '\0';
    *len = (size_t)n;
    return text;
}

/* Seconds on @p clock: CLOCK_MONOTONIC for the wall, CLOCK_PROCESS_CPUTIME_ID for the CPU time
 * of every thread of this process. */
static double seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Launch @p l with the GEMM parameters (M, N, K, A, B, C) = (@p dims, @p abc), timed into
 * @p secs (wall seconds, then CPU seconds: on a machine other jobs share, the CPU time is what
 * the VM itself took); then free A, B and C. */
static int launch_gemm(struct vm_launch *l, const int dims[3], const uint64_t abc[3],
                       struct emu_mem *mem, struct vm_result *r, double secs[2])
{
    uint8_t params[40];
    memcpy(params, dims, 12);
    memcpy(params + 16, abc, 24);
    l->params = params;
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
    vm_launch(l, r);
    secs[0] = seconds(CLOCK_MONOTONIC) - wall;
    secs[1] = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    for (int i = 0; i < 3; i++)
        mem_free(mem, abc[i]);
    return r->status == VM_OK ? 0 : -1;
}

/* One launch of matmul_tiled at M x N x K (32 x 32 tiles, one thread per element of C). */
static int run(struct vm_module *m, int kernel, struct emu_mem *mem, const int mnk[3], int count,
               struct vm_result *r, double secs[2])
{
    int M = mnk[0], N = mnk[1], K = mnk[2];
    uint64_t a = mem_alloc(mem, (uint64_t)M * K * 4, 0), b = mem_alloc(mem, (uint64_t)K * N * 4, 0);
    uint64_t c = mem_alloc(mem, (uint64_t)M * N * 4, 0);
    if (!a || !b || !c)
        return -1;
    float *ha = mem_host(mem, a), *hb = mem_host(mem, b);
    for (long i = 0; i < (long)M * K; i++)
        ha[i] = (float)(i % 7 - 3);
    for (long i = 0; i < (long)K * N; i++)
        hb[i] = (float)(i % 5 - 2);
    struct vm_launch l = {.module = m,
                          .kernel = (uint32_t)kernel,
                          .grid = {(uint32_t)(N + 31) / 32, (uint32_t)(M + 31) / 32, 1},
                          .block = {32, 32, 1},
                          .smem_limit = 48 * 1024,
                          .mem = mem,
                          .count = count};
    return launch_gemm(&l, mnk, (const uint64_t[3]){a, b, c}, mem, r, secs);
}

/* ---- element types ------------------------------------------------------------------------ */

/** One element type of the dot-product loop: its PTX spellings and its storage. */
struct elem {
    const char *name, *reg, *ld, *fma; /* .reg type, ld/st type, fma type */
    int bytes, per_word;               /* storage bytes per load, k values per load */
};

static const struct elem elems[] = {
    {"f32", "f32", "f32", "f32", 4, 1},       {"f16", "b16", "u16", "f16", 2, 1},
    {"bf16", "b16", "u16", "bf16", 2, 1},     {"f16x2", "b32", "u32", "f16x2", 4, 2},
    {"bf16x2", "b32", "u32", "bf16x2", 4, 2},
};

/* The PTX of dot_<name>(M, N, S, A, B, C): C[row][col] = sum over s < S of A[row][s] * B[col][s]
 * (A is M x S and B N x S, row-major, in words of the type), the fma chain in s order. */
static char *dot_ptx(const struct elem *e)
{
    static const char fmt[] =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry dot_%s(.param .u32 pm, .param .u32 pn, .param .u32 ps,\n"
        "    .param .u64 pa, .param .u64 pb, .param .u64 pc)\n{\n"
        "  .reg .pred %%p<4>; .reg .b32 %%r<12>; .reg .b64 %%rd<8>; .reg .%s %%v<4>;\n"
        "  ld.param.u32 %%r1, [pm]; ld.param.u32 %%r2, [pn]; ld.param.u32 %%r3, [ps];\n"
        "  ld.param.u64 %%rd1, [pa]; ld.param.u64 %%rd2, [pb]; ld.param.u64 %%rd3, [pc];\n"
        "  mov.u32 %%r4, %%ctaid.y; mov.u32 %%r5, %%ntid.y; mov.u32 %%r6, %%tid.y;\n"
        "  mad.lo.s32 %%r7, %%r4, %%r5, %%r6;\n" /* row */
        "  mov.u32 %%r4, %%ctaid.x; mov.u32 %%r5, %%ntid.x; mov.u32 %%r6, %%tid.x;\n"
        "  mad.lo.s32 %%r8, %%r4, %%r5, %%r6;\n" /* col */
        "  setp.ge.s32 %%p1, %%r7, %%r1; setp.ge.s32 %%p2, %%r8, %%r2; or.pred %%p3, %%p1, %%p2;\n"
        "  @%%p3 bra DONE;\n"
        "  mul.lo.s32 %%r9, %%r7, %%r3; mul.wide.s32 %%rd4, %%r9, %d; add.s64 %%rd5, %%rd1, "
        "%%rd4;\n"
        "  mul.lo.s32 %%r9, %%r8, %%r3; mul.wide.s32 %%rd4, %%r9, %d; add.s64 %%rd6, %%rd2, "
        "%%rd4;\n"
        "  mov.b%d %%v1, 0; mov.u32 %%r10, %%r3;\n"
        "LOOP:\n"
        "  ld.global.%s %%v2, [%%rd5]; ld.global.%s %%v3, [%%rd6];\n"
        "  fma.rn.%s %%v1, %%v2, %%v3, %%v1;\n"
        "  add.s64 %%rd5, %%rd5, %d; add.s64 %%rd6, %%rd6, %d;\n"
        "  add.s32 %%r10, %%r10, -1; setp.ne.s32 %%p1, %%r10, 0; @%%p1 bra LOOP;\n"
        "  mad.lo.s32 %%r9, %%r7, %%r2, %%r8; mul.wide.s32 %%rd4, %%r9, %d;\n"
        "  add.s64 %%rd7, %%rd3, %%rd4; st.global.%s [%%rd7], %%v1;\n"
        "DONE:\n  ret;\n}\n";
    char *text = NULL;
    if (asprintf(&text, fmt, e->name, e->reg, e->bytes, e->bytes, 8 * e->bytes, e->ld, e->ld,
                 e->fma, e->bytes, e->bytes, e->bytes, e->ld) < 0)
        return NULL;
    return text;
}

/* @p n words of type @p e at @p out: values in [-1, 1] on a fixed non-uniform pattern. */
static void fill_words(const struct elem *e, void *out, long n, long salt)
{
    for (long i = 0; i < n * e->per_word; i++) {
        float v = (float)((i * 7919 + salt) % 2001 - 1000) / 1000.0f;
        if (e->bytes == 4 && e->per_word == 1)
            ((float *)out)[i] = v;
        else
            ((uint16_t *)out)[i] = e->name[0] == 'b' ? fp_f32_to_bf16(v) : fp_f32_to_f16(v);
    }
}

/* One launch of dot_<type> at M x N x K (K / per_word steps), 32 x 8 threads a block. */
static int run_dot(struct vm_module *m, const struct elem *e, struct emu_mem *mem, const int mnk[3],
                   int count, struct vm_result *r, double secs[2])
{
    int M = mnk[0], N = mnk[1], S = mnk[2] / e->per_word;
    int kernel = -1;
    for (uint32_t i = 0; i < vm_kernel_count(m); i++)
        if (!strcmp(vm_kernel_info(m, i)->name + 4, e->name))
            kernel = (int)i;
    uint64_t a = mem_alloc(mem, (uint64_t)M * S * e->bytes, 0);
    uint64_t b = mem_alloc(mem, (uint64_t)N * S * e->bytes, 0);
    uint64_t c = mem_alloc(mem, (uint64_t)M * N * e->bytes, 0);
    if (!a || !b || !c || kernel < 0)
        return -1;
    fill_words(e, mem_host(mem, a), (long)M * S, 0);
    fill_words(e, mem_host(mem, b), (long)N * S, 1);
    struct vm_launch l = {.module = m,
                          .kernel = (uint32_t)kernel,
                          .grid = {(uint32_t)(N + 31) / 32, (uint32_t)(M + 7) / 8, 1},
                          .block = {32, 8, 1},
                          .smem_limit = 48 * 1024,
                          .mem = mem,
                          .count = count};
    return launch_gemm(&l, (const int[3]){M, N, S}, (const uint64_t[3]){a, b, c}, mem, r, secs);
}

/* The element-type table: each type's loop, best of three timed runs, against f32. */
static int bench_types(struct emu_mem *mem)
{
    static const int mnk[3] = {128, 128, 512};
    printf("\nnaive GEMM %d x %d x %d, one fma chain per thread (best of 3 runs)\n", mnk[0], mnk[1],
           mnk[2]);
    printf("%-8s %14s %10s %16s %12s\n", "type", "thread insts", "seconds", "M mul-adds/s",
           "time / f32");
    double f32_secs = 0;
    for (size_t t = 0; t < sizeof elems / sizeof *elems; t++) {
        char *ptx = dot_ptx(&elems[t]), err[512];
        struct vm_module *m;
        if (!ptx || vm_load(ptx, strlen(ptx), elems[t].name, mem, &m, err, sizeof err)) {
            fprintf(stderr, "course-emu-bench: %s\n", ptx ? err : "out of memory");
            free(ptx);
            return -1;
        }
        struct vm_result counted, timed;
        double secs = 1e30, s[2];
        int rc = run_dot(m, &elems[t], mem, mnk, 1, &counted, s);
        for (int rep = 0; rep < 3 && !rc; rep++) {
            rc = run_dot(m, &elems[t], mem, mnk, 0, &timed, s);
            secs = s[0] < secs ? s[0] : secs;
        }
        vm_unload(m, mem);
        free(ptx);
        if (rc) {
            fprintf(stderr, "course-emu-bench: %s: %s\n", elems[t].name, counted.message);
            return -1;
        }
        f32_secs = t == 0 ? secs : f32_secs;
        printf("%-8s %14llu %10.3f %16.0f %12.2f\n", elems[t].name,
               (unsigned long long)counted.counters.thread_insts, secs,
               (double)mnk[0] * mnk[1] * mnk[2] / secs / 1e6, secs / f32_secs);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (argc - 2) % 3) {
        fprintf(stderr, "usage: %s PTX [M N K ...] (lesson 03's solution PTX)\n", argv[0]);
        return 2;
    }
    size_t len;
    char *ptx = slurp(argv[1], &len), err[512];
    struct emu_mem mem;
    struct vm_module *m;
    if (!ptx || mem_create(&mem, 1ull << 38, 8ull << 30, err, sizeof err) ||
        vm_load(ptx, len, argv[1], &mem, &m, err, sizeof err)) {
        fprintf(stderr, "course-emu-bench: %s\n", ptx ? err : "cannot read the PTX");
        return 1;
    }
    int kernel = -1;
    for (uint32_t i = 0; i < vm_kernel_count(m); i++)
        if (strstr(vm_kernel_info(m, i)->name, "matmul_tiled_kernel"))
            kernel = (int)i;
    if (kernel < 0) {
        fprintf(stderr, "course-emu-bench: no matmul_tiled_kernel in %s\n", argv[1]);
        return 1;
    }
    static const int defaults[][3] = {{257, 257, 257}, {1031, 1029, 1027}};
    int nsizes = argc > 2 ? (argc - 2) / 3 : 2;
    printf("%u host threads (COURSE_EMU_THREADS)\n", vm_threads());
    printf("%-18s %16s %10s %10s %14s %14s\n", "M x N x K", "thread insts", "seconds", "cpu s",
           "M insts/s", "M insts/cpu s");
    for (int s = 0; s < nsizes; s++) {
        int mnk[3];
        for (int i = 0; i < 3; i++)
            mnk[i] = argc > 2 ? atoi(argv[2 + 3 * s + i]) : defaults[s][i];
        struct vm_result counted, timed;
        double ignored[2], secs[2] = {0, 0};
        int rc = run(m, kernel, &mem, mnk, 1, &counted, ignored);
        if (!rc)
            rc = run(m, kernel, &mem, mnk, 0, &timed, secs);
        if (rc) {
            fprintf(stderr, "course-emu-bench: %s\n", counted.message);
            return 1;
        }
        char shape[32];
        snprintf(shape, sizeof shape, "%d x %d x %d", mnk[0], mnk[1], mnk[2]);
        double insts = (double)counted.counters.thread_insts;
        printf("%-18s %16.0f %10.3f %10.3f %14.0f %14.0f\n", shape, insts, secs[0], secs[1],
               insts / secs[0] / 1e6, insts / secs[1] / 1e6);
    }
    vm_unload(m, &mem);
    int rc = bench_types(&mem);
    mem_destroy(&mem);
    free(ptx);
    return rc ? 1 : 0;
}
