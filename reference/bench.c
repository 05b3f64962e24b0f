/**
 * @file bench.c
 * @brief The benchmark table every driver prints, and the SGEMM ladder runner.
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "cuda_check.h"
#include "mat.h"
#include "timer.h"

/* GPU tables report TFLOP/s, CPU tables GFLOP/s: each keeps its numbers readable. */
static double flop_scale(const struct bench_table *t)
{
    return t->dev ? 1e12 : 1e9;
}

int bench_begin(struct bench_table *t, const char *lesson, const char *base,
                const struct cli_bench *opt, const struct device_info *dev)
{
    t->lesson = lesson;
    t->opt = opt;
    t->dev = dev;
    t->csv = NULL;
    t->failures = 0;
    if (opt->csv) {
        t->csv = fopen(opt->csv, "a");
        if (!t->csv) {
            fprintf(stderr, "%s: cannot open CSV file '%s': %s\n", lesson, opt->csv,
                    strerror(errno));
            return 2;
        }
        if (ftell(t->csv) == 0)
            fprintf(t->csv, "lesson,device,version,m,n,k,ms,gflops,gbs,pct_baseline,pct_peak,"
                            "check\n");
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
    double pct_base = r->base_ms > 0 ? 100.0 * r->base_ms / r->ms : 0;
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
    return t->failures ? 1 : 0;
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

    float *d_A, *d_B, *d_C;
    CUDA_CHECK(cudaMalloc((void **)&d_A, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_B, nb * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_C, nc * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_A, h_A, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_B, h_B, nb * sizeof(float), cudaMemcpyHostToDevice));

    struct timer_opts topt = {o->warmup, o->reps, 1, o->flush_l2};
    double flops = 2.0 * o->m * o->n * o->k;

    /* The baseline's C is the expected answer: on integer inputs it is exact. */
    baseline_sgemm(o->m, o->n, o->k, d_A, d_B, d_C);
    CUDA_CHECK(cudaMemcpy(h_want, d_C, nc * sizeof(float), cudaMemcpyDeviceToHost));
    double base_ms = bench_time_sgemm(baseline_sgemm, o->m, o->n, o->k, d_A, d_B, d_C, &topt);
    struct bench_row base = {"cublas_sgemm", base_ms, flops, 0, base_ms, 0, "(reference)", 1};
    bench_row(t, &base);

    for (int v = 0; v < count; v++) {
        char check[160];
        bench_sgemm_fn fn = versions[v].fn;
        mat_poison_device(d_C, nc * sizeof(float));
        fn(o->m, o->n, o->k, d_A, d_B, d_C);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(h_got, d_C, nc * sizeof(float), cudaMemcpyDeviceToHost));
        struct mat_cmp cmp = mat_compare(h_got, h_want, o->m, o->n, 0, 0);
        mat_cmp_describe(&cmp, check, sizeof check);
        double ms = bench_time_sgemm(fn, o->m, o->n, o->k, d_A, d_B, d_C, &topt);
        struct bench_row row = {versions[v].name, ms, flops, 0, base_ms, 0, check, cmp.n_bad == 0};
        bench_row(t, &row);
    }

    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(d_C));
    free(h_A);
    free(h_B);
    free(h_want);
    free(h_got);
    return t->failures ? 1 : 0;
}
