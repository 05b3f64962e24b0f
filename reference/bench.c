/**
 * @file bench.c
 * @brief The benchmark table every driver prints, and the SGEMM ladder runner.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "bench.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "cuda_check.h"
#include "emu.h"
#include "mat.h"
#include "ref.h"
#include "timer.h"

/* GPU tables report TFLOP/s, CPU tables GFLOP/s: each keeps its numbers readable. */
static double flop_scale(const struct bench_table *t)
{
    return t->dev ? 1e12 : 1e9;
}

/* The header of a table of counters (the CPU emulator), and its CSV header. */
static void begin_counting(const struct bench_table *t)
{
    if (t->csv && ftell(t->csv) == 0)
        fprintf(t->csv, "lesson,device,version,kernel,launches,grid,block,m,n,k,warp_insts,"
                        "thread_insts,fma32,fp,int,ldg,stg,lds,sts,tensor,control,other,"
                        "gld_requests,gld_sectors,gst_requests,gst_sectors,lds_requests,"
                        "lds_wavefronts,sts_requests,sts_wavefronts,unique_read_bytes,"
                        "unique_write_bytes,barriers,branches,divergent_branches,flops,gatom_lanes,"
                        "satom_lanes,gatom_same_addr,satom_same_addr,gatom_addrs,tensor_flops,"
                        "lds_conflicts,sts_conflicts,overlapped_flops,intensity,check\n");
    printf("%s | %s | M=%d N=%d K=%d | each kernel run once\n", t->lesson, t->dev->name, t->opt->m,
           t->opt->n, t->opt->k);
    printf("Counted exactly on the CPU emulator, in the PTX each kernel ran: not times "
           "(emulator/README.md).\n"
           "lanes: active lanes per warp instruction. s/r: 32-byte sectors per global load (ld) "
           "or store (st)\nrequest: 4 for a warp's coalesced floats, 16 for float4. wf: shared "
           "wavefronts per load or store\nrequest: 1 for a warp's conflict-free floats, 4 for "
           "float4 (2 when lanes load one address in pairs). uniq MB: global bytes touched.\n"
           "FLOP/B: flops per unique byte. bar: "
           "barriers, div: divergent branches (per warp).\n");
    printf("%-26s %8s %5s %6s %6s %6s %6s %8s %7s %7s %6s  %s\n", "version", "warp ins", "lanes",
           "ld s/r", "st s/r", "lds wf", "sts wf", "uniq MB", "FLOP/B", "bar", "div", "check");
}

int bench_begin(struct bench_table *t, const char *lesson, const char *base,
                const struct cli_bench *opt, const struct device_info *dev)
{
    t->lesson = lesson;
    t->opt = opt;
    t->dev = dev;
    t->csv = NULL;
    t->failures = 0;
    t->counting = dev && dev->emulated;
    t->launches = NULL;
    t->nlaunches = 0;
    if (opt->csv) {
        t->csv = fopen(opt->csv, "a");
        if (!t->csv) {
            fprintf(stderr, "%s: cannot open CSV file '%s': %s\n", lesson, opt->csv,
                    strerror(errno));
            return 2;
        }
        if (ftell(t->csv) == 0 && !t->counting)
            fprintf(t->csv, "lesson,device,version,m,n,k,ms,gflops,gbs,pct_baseline,pct_peak,"
                            "check\n");
    }
    if (t->counting) {
        begin_counting(t);
        return 0;
    }
    if (dev)
        printf("%s | %s (sm_%d%d, %d SMs) | M=%d N=%d K=%d | median of %d\n", lesson, dev->name,
               dev->cc_major, dev->cc_minor, dev->sms, opt->m, opt->n, opt->k, opt->reps);
    else
        printf("%s | CPU | M=%d N=%d K=%d | median of %d\n", lesson, opt->m, opt->n, opt->k,
               opt->reps);
    printf("%% base = %% of %s's speed%s\n", base,
           dev ? "; % peakBW = % of the measured copy bandwidth" : "");
    printf("%-24s %10s %10s %9s %9s %9s  %s\n", "version", "ms", dev ? "TFLOP/s" : "GFLOP/s",
           "GB/s", "% base", "% peakBW", "check");
    return 0;
}

int bench_setup(int argc, char **argv, const char *prog, const char *about, struct cli_bench *opt,
                const struct cli_opt *extra, struct device_info *dev)
{
    if (device_emulated()) /* before parsing: what the command line gives still wins */
        opt->m = opt->n = opt->k = BENCH_EMU_SIZE;
    enum cli_status st = cli_parse_bench(argc, argv, prog, about, opt, extra);
    if (st != CLI_OK)
        return cli_exit_status(st);
    if (!device_query(dev)) {
        fprintf(stderr, "%s: %s\n", prog, dev->why);
        return 1;
    }
    return -1;
}

/* Print @p v with @p prec decimals in @p width columns, or "-" for zero. */
static void cell(double v, int width, int prec)
{
    if (v > 0)
        printf(" %*.*f", width, prec, v);
    else
        printf(" %*s", width, "-");
}

void bench_row(struct bench_table *t, const struct bench_row *r)
{
    double rate = r->flops > 0 ? r->flops / (r->ms * 1e-3) : 0;
    double gbs = r->bytes > 0 ? r->bytes / (r->ms * 1e6) : 0;
    double base_ms = r->base_ms == BENCH_SELF ? r->ms : r->base_ms;
    double pct_base = base_ms > 0 ? 100.0 * base_ms / r->ms : 0;
    double pct_peak = r->peak_gbs > 0 && gbs > 0 ? 100.0 * gbs / r->peak_gbs : 0;

    printf("%-24s", r->version);
    cell(r->ms, 10, 3);
    cell(rate / flop_scale(t), 10, 2);
    cell(gbs, 9, 1);
    cell(pct_base, 9, 1);
    cell(pct_peak, 9, 1);
    printf("  %s\n", r->check);
    fflush(stdout);
    if (!r->ok)
        t->failures++;
    if (t->csv)
        fprintf(t->csv, "%s,\"%s\",%s,%d,%d,%d,%.6f,%.3f,%.3f,%.2f,%.2f,\"%s\"\n", t->lesson,
                t->dev ? t->dev->name : "CPU", r->version, t->opt->m, t->opt->n, t->opt->k, r->ms,
                rate / 1e9, gbs, pct_base, pct_peak, r->ok ? "ok" : "FAIL");
}

int bench_end(struct bench_table *t)
{
    if (t->csv)
        fclose(t->csv);
    t->csv = NULL;
    free(t->launches);
    t->launches = NULL;
    t->nlaunches = 0;
    return t->failures ? 1 : 0;
}

/* ---- counters, on the CPU emulator ------------------------------------------------------- */

/* The emulator's counting functions (emu.h), looked up: a real GPU's runtime has none. */
static void emu_counting(void (**set)(int), int (**take)(struct course_emu_launch *, int))
{
    *set = (void (*)(int))dlsym(RTLD_DEFAULT, "course_emu_set_counting");
    *take =
        (int (*)(struct course_emu_launch *, int))dlsym(RTLD_DEFAULT, "course_emu_take_launches");
    if (!*set || !*take) {
        fprintf(stderr, "bench: the CPU emulator's runtime has no counters (emu.h)\n");
        exit(1);
    }
}

void bench_run(struct bench_table *t, void (*fn)(void *), void *arg)
{
    if (!t->counting) {
        fn(arg);
        CUDA_CHECK(cudaDeviceSynchronize());
        return;
    }
    void (*set_counting)(int);
    int (*take)(struct course_emu_launch *, int);
    emu_counting(&set_counting, &take);
    struct course_emu_launch none;
    take(&none, 0); /* forget launches counted before */
    set_counting(1);
    fn(arg);
    cudaError_t err = cudaDeviceSynchronize();
    set_counting(0);
    CUDA_CHECK(err);
    int n = take(NULL, 0);
    free(t->launches);
    t->launches = mat_alloc((size_t)(n > 0 ? n : 1) * sizeof *t->launches);
    t->nlaunches = take(t->launches, n);
}

void bench_add_counters(struct vm_counters *sum, const struct vm_counters *c)
{
    uint64_t *x = (uint64_t *)sum; /* the struct holds uint64_t counters only */
    const uint64_t *y = (const uint64_t *)c;
    for (size_t i = 0; i < sizeof *sum / sizeof *x; i++)
        x[i] += y[i];
}

/* @p n in at most 8 characters: 123, 12.3k, 1.23M, 12.3G. */
static const char *short_count(double n, char buf[16])
{
    static const char units[] = " kMG";
    int u = 0;
    while (n >= 1000 && u < 3)
        n /= 1000, u++;
    if (u == 0)
        snprintf(buf, 16, "%.0f", n);
    else
        snprintf(buf, 16, n < 10 ? "%.2f%c" : n < 100 ? "%.1f%c" : "%.0f%c", n, units[u]);
    return buf;
}

/* A ratio in @p width columns, or "-" when nothing was counted. */
static void ratio_cell(uint64_t num, uint64_t den, int width)
{
    if (den)
        printf(" %*.2f", width, (double)num / (double)den);
    else
        printf(" %*s", width, "-");
}

/* One row of counters: the terminal's, then the CSV file's. */
static void counter_row(struct bench_table *t, const char *version, const char *label,
                        const char *kernel, int launches, const struct course_emu_launch *first,
                        const struct vm_counters *c, const char *check, int ok)
{
    char warp[16], bar[16], div[16];
    uint64_t bytes = c->unique_read_bytes + c->unique_write_bytes;
    printf("%-26.26s %8s", label, short_count((double)c->warp_insts, warp));
    if (c->warp_insts)
        printf(" %4.0f%%", 100.0 * (double)c->thread_insts / (32.0 * (double)c->warp_insts));
    else
        printf(" %5s", "-");
    ratio_cell(c->gld_sectors, c->gld_requests, 6);
    ratio_cell(c->gst_sectors, c->gst_requests, 6);
    ratio_cell(c->lds_wavefronts, c->lds_requests, 6);
    ratio_cell(c->sts_wavefronts, c->sts_requests, 6);
    printf(" %8.2f", (double)bytes / 1e6);
    ratio_cell(c->flops, bytes, 7);
    printf(" %7s %6s  %s\n", short_count((double)c->barriers, bar),
           short_count((double)c->divergent_branches, div), check);
    if (!t->csv)
        return;
    const uint64_t *k = c->class_insts;
    fprintf(t->csv, "%s,\"%s\",%s,%s,%d,%ux%ux%u,%ux%ux%u,%d,%d,%d", t->lesson, t->dev->name,
            version, kernel, launches, first->grid[0], first->grid[1], first->grid[2],
            first->block[0], first->block[1], first->block[2], t->opt->m, t->opt->n, t->opt->k);
    const uint64_t v[] = {c->warp_insts,         c->thread_insts,
                          k[VM_CLASS_FMA32],     k[VM_CLASS_FP],
                          k[VM_CLASS_INT],       k[VM_CLASS_LDG],
                          k[VM_CLASS_STG],       k[VM_CLASS_LDS],
                          k[VM_CLASS_STS],       k[VM_CLASS_TENSOR],
                          k[VM_CLASS_CONTROL],   k[VM_CLASS_OTHER],
                          c->gld_requests,       c->gld_sectors,
                          c->gst_requests,       c->gst_sectors,
                          c->lds_requests,       c->lds_wavefronts,
                          c->sts_requests,       c->sts_wavefronts,
                          c->unique_read_bytes,  c->unique_write_bytes,
                          c->barriers,           c->branches,
                          c->divergent_branches, c->flops,
                          c->gatom_lanes,        c->satom_lanes,
                          c->gatom_same_addr,    c->satom_same_addr,
                          c->gatom_addrs,        c->tensor_flops,
                          c->lds_conflicts,      c->sts_conflicts,
                          c->overlapped_flops};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        fprintf(t->csv, ",%llu", (unsigned long long)v[i]);
    fprintf(t->csv, ",%.4g,%s\n", bytes ? (double)c->flops / (double)bytes : 0.0,
            ok ? "ok" : "FAIL");
}

/* 1 when launch @p i is the first of its kernel among those bench_run() counted. */
static int first_of_kernel(const struct bench_table *t, int i)
{
    for (int j = 0; j < i; j++)
        if (!strcmp(t->launches[j].kernel, t->launches[i].kernel))
            return 0;
    return 1;
}

/* The rows of the launches bench_run() counted: one per kernel, in order of first launch. */
static void counted_rows(struct bench_table *t, const struct bench_row *r)
{
    int kernels = 0, failed = 0;
    for (int i = 0; i < t->nlaunches; i++) {
        kernels += first_of_kernel(t, i);
        failed |= t->launches[i].status != 0;
    }
    const char *check = failed ? "a launch failed (see above)" : r->check;
    for (int i = 0; i < t->nlaunches; i++) {
        const struct course_emu_launch *e = &t->launches[i];
        if (!first_of_kernel(t, i))
            continue;
        struct vm_counters sum = {0};
        int launches = 0;
        for (int j = i; j < t->nlaunches; j++)
            if (!strcmp(t->launches[j].kernel, e->kernel)) {
                bench_add_counters(&sum, &t->launches[j].counters);
                launches++;
            }
        /* Several kernels: a row each, named as its launcher (the kernel less "_kernel"). */
        char label[sizeof e->kernel];
        snprintf(label, sizeof label, "%s", kernels > 1 ? e->kernel : r->version);
        size_t len = strlen(label);
        if (kernels > 1 && len > 7 && !strcmp(label + len - 7, "_kernel"))
            label[len - 7] = '\0';
        counter_row(t, r->version, label, e->kernel, launches, e, &sum, check, r->ok && !failed);
    }
    if (r->library || t->nlaunches == 0)
        printf("%-26.26s %s  %s\n", r->version,
               r->library ? "not counted: a library (cuBLAS), run on the host" : "no kernel ran",
               r->check);
    if (!r->ok || failed)
        t->failures++;
}

double bench_report(struct bench_table *t, struct bench_row *r, void (*fn)(void *), void *arg)
{
    if (t->counting) {
        counted_rows(t, r);
        fflush(stdout);
        r->ms = 0;
        return 0;
    }
    struct timer_opts o = {t->opt->warmup, t->opt->reps, t->dev != NULL, t->opt->flush_l2};
    r->ms = timer_measure(fn, arg, &o).median_ms;
    bench_row(t, r);
    return r->ms;
}

double bench_gemm(struct bench_table *t, const struct bench_gemm *g, void (*fn)(void *), void *arg,
                  const float *want, float *got)
{
    size_t nc = (size_t)g->M * g->N;
    mat_poison_device(g->d_C, nc * sizeof(float));
    bench_run(t, fn, arg);
    CUDA_CHECK(cudaMemcpy(got, g->d_C, nc * sizeof(float), cudaMemcpyDeviceToHost));
    char check[160] = "reference";
    int ok = 1;
    if (want) {
        struct mat_cmp cmp = mat_compare(got, want, g->M, g->N, 0, 0);
        mat_cmp_describe(&cmp, check, sizeof check);
        ok = cmp.n_bad == 0;
    }
    struct bench_row r = {.version = g->version,
                          .flops = 2.0 * g->M * g->N * g->K,
                          .bytes =
                              g->in_bytes * ((double)g->M * g->K + (double)g->K * g->N) + 4.0 * nc,
                          .base_ms = g->base_ms > 0 ? g->base_ms : BENCH_SELF,
                          .check = check,
                          .ok = ok,
                          .library = g->library};
    return bench_report(t, &r, fn, arg);
}

void bench_gemm16_new(struct bench_gemm16 *p, const struct cli_bench *o)
{
    size_t na = (size_t)o->m * o->k, nb = (size_t)o->k * o->n, nc = (size_t)o->m * o->n;
    *p = (struct bench_gemm16){.M = o->m, .N = o->n, .K = o->k};
    p->A = mat_alloc_f32(na);
    p->B = mat_alloc_f32(nb);
    p->want = mat_alloc_f32(nc);
    p->got = mat_alloc_f32(nc);
    p->h16 = mat_alloc((na > nb ? na : nb) * 2);
    mat_fill_int(p->A, na, (uint64_t)o->seed);
    mat_fill_int(p->B, nb, (uint64_t)o->seed + 1);
    CUDA_CHECK(cudaMalloc((void **)&p->d_A, na * 2));
    CUDA_CHECK(cudaMalloc((void **)&p->d_B, nb * 2));
    CUDA_CHECK(cudaMalloc((void **)&p->d_C, nc * sizeof(float)));
}

/* @p n floats @p x (small integers) into @p d in 16 bits, through @p h. */
static void upload16(const float *x, size_t n, uint16_t *d, uint16_t *h, int bf16)
{
    for (size_t i = 0; i < n; i++)
        h[i] = bf16 ? ref_f32_to_bf16(x[i]) : ref_f32_to_f16(x[i]);
    CUDA_CHECK(cudaMemcpy(d, h, n * 2, cudaMemcpyHostToDevice));
}

void bench_gemm16_upload(struct bench_gemm16 *p, int bf16)
{
    upload16(p->A, (size_t)p->M * p->K, p->d_A, p->h16, bf16);
    upload16(p->B, (size_t)p->K * p->N, p->d_B, p->h16, bf16);
}

void bench_gemm16_free(struct bench_gemm16 *p)
{
    CUDA_CHECK(cudaFree(p->d_A));
    CUDA_CHECK(cudaFree(p->d_B));
    CUDA_CHECK(cudaFree(p->d_C));
    free(p->A);
    free(p->B);
    free(p->want);
    free(p->got);
    free(p->h16);
}

double bench_gemm16_row(struct bench_table *t, struct bench_gemm16 *p, const char *name,
                        double base_ms, int library, int reference, void (*fn)(void *), void *arg)
{
    struct bench_gemm g = {.version = name,
                           .M = p->M,
                           .N = p->N,
                           .K = p->K,
                           .in_bytes = 2.0,
                           .d_C = p->d_C,
                           .base_ms = base_ms,
                           .library = library};
    return bench_gemm(t, &g, fn, arg, reference ? NULL : p->want, reference ? p->want : p->got);
}

struct sgemm_call {
    bench_sgemm_fn fn;
    int M, N, K;
    const float *A, *B;
    float *C;
};

static void call_sgemm(void *arg)
{
    struct sgemm_call *c = arg;
    c->fn(c->M, c->N, c->K, c->A, c->B, c->C);
}

double bench_time_sgemm(bench_sgemm_fn fn, int M, int N, int K, const float *A, const float *B,
                        float *C, const struct timer_opts *opts)
{
    struct sgemm_call call = {fn, M, N, K, A, B, C};
    return timer_measure(call_sgemm, &call, opts).median_ms;
}

int bench_sgemm_table(struct bench_table *t, const struct bench_sgemm *versions, int count)
{
    const struct cli_bench *o = t->opt;
    size_t na = (size_t)o->m * o->k, nb = (size_t)o->k * o->n, nc = (size_t)o->m * o->n;
    if (!device_fits(t->lesson, (na + nb + 2 * nc) * sizeof(float)))
        return 2;

    float *h_A = mat_alloc_f32(na), *h_B = mat_alloc_f32(nb);
    float *h_want = mat_alloc_f32(nc), *h_got = mat_alloc_f32(nc);
    mat_fill_int(h_A, na, (uint64_t)o->seed);
    mat_fill_int(h_B, nb, (uint64_t)o->seed + 1);

    float *d_A, *d_B;
    struct sgemm_call call = {baseline_sgemm, o->m, o->n, o->k, NULL, NULL, NULL};
    CUDA_CHECK(cudaMalloc((void **)&d_A, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_B, nb * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&call.C, nc * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_A, h_A, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_B, h_B, nb * sizeof(float), cudaMemcpyHostToDevice));
    call.A = d_A;
    call.B = d_B;
    double flops = 2.0 * o->m * o->n * o->k;

    /* The baseline's C is the expected answer: on integer inputs it is exact. */
    bench_run(t, call_sgemm, &call);
    CUDA_CHECK(cudaMemcpy(h_want, call.C, nc * sizeof(float), cudaMemcpyDeviceToHost));
    struct bench_row base = {.version = "cublas_sgemm",
                             .flops = flops,
                             .base_ms = BENCH_SELF,
                             .check = "(reference)",
                             .ok = 1,
                             .library = 1};
    double base_ms = bench_report(t, &base, call_sgemm, &call);

    for (int v = 0; v < count; v++) {
        char check[160];
        call.fn = versions[v].fn;
        mat_poison_device(call.C, nc * sizeof(float));
        bench_run(t, call_sgemm, &call);
        CUDA_CHECK(cudaMemcpy(h_got, call.C, nc * sizeof(float), cudaMemcpyDeviceToHost));
        struct mat_cmp cmp = mat_compare(h_got, h_want, o->m, o->n, 0, 0);
        mat_cmp_describe(&cmp, check, sizeof check);
        struct bench_row row = {.version = versions[v].name,
                                .flops = flops,
                                .base_ms = base_ms,
                                .check = check,
                                .ok = cmp.n_bad == 0};
        bench_report(t, &row, call_sgemm, &call);
    }

    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(call.C));
    free(h_A);
    free(h_B);
    free(h_want);
    free(h_got);
    return t->failures ? 1 : 0;
}
