/**
 * @file mixed_precision_main.c
 * @brief Lesson 09's study: how accurate is a GEMM in each format, how fast, and loss scaling.
 *
 *   ./course bench 09 [--m=256] [--n=256] [--kmin=64] [--kmax=16384] [--reps=5] [--csv=FILE]
 *   ./course bench 09 --k=4096          (one K instead of the sweep; --size sets M, N and K)
 *   ./course profile 09 [--csv=FILE]    (on the CPU emulator: counters instead of times, one K)
 *
 * For each K from kmin to kmax (times 4 each step): A (M x K) and B (K x N) uniform in [-1, 1),
 * the exact product from ref_matmul_f64(), then every variant: cuBLAS in fp32, TF32, fp16 and
 * bf16 (each compute type of cublasGemmEx) and this lesson's own WMMA kernels, side by side.
 * Per variant: the time, the relative error ||C - exact||_F / ||exact||_F, the largest error
 * in units of sum_k |a_ik||b_kj| (what the course's rule bounds), and the rule's bound
 * ref_gemm_tolerance(K, u_in, u_acc). Then a loss-scaling demonstration on the CPU.
 * --csv appends one row per variant and K; tools/plot_accuracy.py draws error and time against K.
 */
#include "mixed_precision.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "bench.h"
#include "cuda_check.h"
#include "device.h"
#include "loss_scale.h"
#include "mat.h"
#include "ref.h"
#include "timer.h"

static const char *const PROG = "09_mixed_precision";

/** Which GEMM a variant runs. */
enum variant_kind {
    CUBLAS_FP32,      /* float in, CUBLAS_COMPUTE_32F (true fp32) */
    OWN_TF32,         /* gemm_wmma_tf32 */
    CUBLAS_TF32,      /* float in, CUBLAS_COMPUTE_32F_FAST_TF32 */
    OWN_F16,          /* gemm_wmma_f16 on fp16 inputs */
    CUBLAS_F16_IN,    /* fp16 in, CUBLAS_COMPUTE_32F */
    CUBLAS_FAST_16F,  /* float in, CUBLAS_COMPUTE_32F_FAST_16F */
    CUBLAS_16F,       /* fp16 in, fp16 out, CUBLAS_COMPUTE_16F: fp16 accumulation */
    OWN_BF16,         /* gemm_wmma_bf16 on bf16 inputs */
    CUBLAS_BF16_IN,   /* bf16 in, CUBLAS_COMPUTE_32F */
    CUBLAS_FAST_16BF, /* float in, CUBLAS_COMPUTE_32F_FAST_16BF */
};

/** One row of the study. */
struct variant {
    enum variant_kind kind;
    const char *name;   /* printed */
    const char *inputs; /* the format A and B are multiplied in */
    const char *acc;    /* the accumulation */
    double u_in, u_acc; /* for the rule */
    int sm80;           /* needs compute capability 8.0 (bf16 and TF32 Tensor Cores) */
};

static const struct variant variants[] = {
    {CUBLAS_FP32, "cublas 32F", "fp32", "fp32", 0, REF_U_FP32, 0},
    {OWN_TF32, "gemm_wmma_tf32", "tf32", "fp32 TC", REF_U_TF32, REF_U_TC_ACC, 1},
    {CUBLAS_TF32, "cublas 32F_FAST_TF32", "tf32", "fp32 TC", REF_U_TF32, REF_U_TC_ACC, 0},
    {OWN_F16, "gemm_wmma_f16", "fp16", "fp32 TC", REF_U_FP16, REF_U_TC_ACC, 0},
    {CUBLAS_F16_IN, "cublas fp16 in, 32F", "fp16", "fp32 TC", REF_U_FP16, REF_U_TC_ACC, 0},
    {CUBLAS_FAST_16F, "cublas 32F_FAST_16F", "fp16/tf32", "fp32 TC", REF_U_FP16, REF_U_TC_ACC, 0},
    {CUBLAS_16F, "cublas 16F", "fp16", "fp16", REF_U_FP16, REF_U_FP16, 0},
    {OWN_BF16, "gemm_wmma_bf16", "bf16", "fp32 TC", REF_U_BF16, REF_U_TC_ACC, 1},
    {CUBLAS_BF16_IN, "cublas bf16 in, 32F", "bf16", "fp32 TC", REF_U_BF16, REF_U_TC_ACC, 1},
    {CUBLAS_FAST_16BF, "cublas 32F_FAST_16BF", "bf16", "fp32 TC", REF_U_BF16, REF_U_TC_ACC, 1},
};
#define N_VARIANTS (sizeof variants / sizeof *variants)

/** The operands of one K, on the device, in every format. */
struct operands {
    int M, N, K;
    float *d_A, *d_B;        /* float */
    uint16_t *d_A16, *d_B16; /* fp16 bits */
    uint16_t *d_Abf, *d_Bbf; /* bf16 bits */
    float *d_C;              /* float C */
    uint16_t *d_C16;         /* fp16 C, for CUBLAS_COMPUTE_16F */
    enum variant_kind kind;  /* what run_variant() runs */
};

static void run_variant(void *arg)
{
    struct operands *o = arg;
    int M = o->M, N = o->N, K = o->K;
    switch (o->kind) {
    case CUBLAS_FP32:
        baseline_sgemm(M, N, K, o->d_A, o->d_B, o->d_C);
        break;
    case OWN_TF32:
        gemm_wmma_tf32(M, N, K, o->d_A, o->d_B, o->d_C);
        break;
    case CUBLAS_TF32:
        baseline_gemm_compute(M, N, K, o->d_A, o->d_B, CUDA_R_32F, o->d_C, CUDA_R_32F,
                              CUBLAS_COMPUTE_32F_FAST_TF32);
        break;
    case OWN_F16:
        gemm_wmma_f16(M, N, K, o->d_A16, o->d_B16, o->d_C);
        break;
    case CUBLAS_F16_IN:
        baseline_gemm_ex(M, N, K, o->d_A16, o->d_B16, CUDA_R_16F, o->d_C);
        break;
    case CUBLAS_FAST_16F:
        baseline_gemm_compute(M, N, K, o->d_A, o->d_B, CUDA_R_32F, o->d_C, CUDA_R_32F,
                              CUBLAS_COMPUTE_32F_FAST_16F);
        break;
    case CUBLAS_16F:
        baseline_gemm_compute(M, N, K, o->d_A16, o->d_B16, CUDA_R_16F, o->d_C16, CUDA_R_16F,
                              CUBLAS_COMPUTE_16F);
        break;
    case OWN_BF16:
        gemm_wmma_bf16(M, N, K, o->d_Abf, o->d_Bbf, o->d_C);
        break;
    case CUBLAS_BF16_IN:
        baseline_gemm_ex(M, N, K, o->d_Abf, o->d_Bbf, CUDA_R_16BF, o->d_C);
        break;
    case CUBLAS_FAST_16BF:
        baseline_gemm_compute(M, N, K, o->d_A, o->d_B, CUDA_R_32F, o->d_C, CUDA_R_32F,
                              CUBLAS_COMPUTE_32F_FAST_16BF);
        break;
    }
}

/** What one variant at one K showed. */
struct accuracy {
    double rel_fro;    /* ||C - exact||_F / ||exact||_F */
    double max_scaled; /* max |C - exact| / sum |a||b| */
};

static struct accuracy measure(const float *C, const double *exact, const double *scale, size_t n)
{
    double err2 = 0, ref2 = 0, worst = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)C[i] - exact[i]);
        if (!isfinite(C[i]))
            e = INFINITY;
        err2 += e * e;
        ref2 += exact[i] * exact[i];
        if (scale[i] > 0 && e / scale[i] > worst)
            worst = e / scale[i];
        else if (scale[i] == 0 && e > 0)
            worst = INFINITY;
    }
    struct accuracy a = {ref2 > 0 ? sqrt(err2 / ref2) : sqrt(err2), worst};
    return a;
}

/** One of this lesson's conversion kernels over A and B, for bench_run(). */
struct convert_call {
    void (*fn)(const float *d_x, uint16_t *d_y, size_t n);
    const struct operands *o;
    uint16_t *d_A, *d_B; /* where A and B go */
    uint16_t (*ref)(float x);
};

static void run_convert(void *arg)
{
    const struct convert_call *c = arg;
    c->fn(c->o->d_A, c->d_A, (size_t)c->o->M * c->o->K);
    c->fn(c->o->d_B, c->d_B, (size_t)c->o->K * c->o->N);
}

/*
 * The 16-bit operands, made by this lesson's own conversion kernels from the float ones (@p A,
 * @p B on the host). On the emulator each kernel's row shows its counters, checked against the
 * reference conversion.
 */
static void convert_operands(struct bench_table *t, struct operands *o, const float *A,
                             const float *B)
{
    size_t na = (size_t)o->M * o->K, nb = (size_t)o->K * o->N;
    const struct convert_call calls[2] = {
        {convert_f32_to_f16, o, o->d_A16, o->d_B16, ref_f32_to_f16},
        {convert_f32_to_bf16, o, o->d_Abf, o->d_Bbf, ref_f32_to_bf16}};
    const char *names[2] = {"convert_f32_to_f16", "convert_f32_to_bf16"};
    uint16_t *h = mat_alloc((na > nb ? na : nb) * 2);
    for (int i = 0; i < 2; i++) {
        bench_run(t, run_convert, (void *)&calls[i]);
        if (!t->counting)
            continue;
        size_t bad = 0;
        CUDA_CHECK(cudaMemcpy(h, calls[i].d_A, na * 2, cudaMemcpyDeviceToHost));
        for (size_t e = 0; e < na; e++)
            bad += h[e] != calls[i].ref(A[e]);
        CUDA_CHECK(cudaMemcpy(h, calls[i].d_B, nb * 2, cudaMemcpyDeviceToHost));
        for (size_t e = 0; e < nb; e++)
            bad += h[e] != calls[i].ref(B[e]);
        char check[64];
        snprintf(check, sizeof check, bad ? "%zu of %zu wrong" : "ok", bad, na + nb);
        struct bench_row row = {.version = names[i], .check = check, .ok = bad == 0};
        bench_report(t, &row, run_convert, (void *)&calls[i]);
    }
    free(h);
}

/* Report variant @p var at one K: on a GPU, time it and print (and write) the study's row; on
 * the emulator, its counters with the accuracy as the check. */
static void report_variant(struct bench_table *t, const struct variant *var, struct operands *o,
                           const struct accuracy *acc, double rule, FILE *csv, const char *dev)
{
    int ok = acc->max_scaled <= rule;
    if (t->counting) {
        char check[96];
        snprintf(check, sizeof check, "%s: err/|A||B| %.2e, rule %.2e", ok ? "ok" : "BROKEN",
                 acc->max_scaled, rule);
        struct bench_row row = {.version = var->name,
                                .check = check,
                                .ok = ok,
                                .library = var->kind != OWN_TF32 && var->kind != OWN_F16 &&
                                           var->kind != OWN_BF16};
        bench_report(t, &row, run_variant, o);
        return;
    }
    struct timer_opts topt = {t->opt->warmup, t->opt->reps, 1, t->opt->flush_l2};
    double ms = timer_measure(run_variant, o, &topt).median_ms;
    double tflops = 2.0 * o->M * o->N * o->K / (ms * 1e9);
    printf("%6d  %-22s %-9s %-8s %9.4f %8.2f %10.2e %10.2e %10.2e  %s\n", o->K, var->name,
           var->inputs, var->acc, ms, tflops, acc->rel_fro, acc->max_scaled, rule,
           ok ? "ok" : "BROKEN");
    if (csv)
        fprintf(csv, "%s,\"%s\",\"%s\",%s,%s,%d,%d,%d,%.6f,%.4f,%.6e,%.6e,%.6e,%s\n", PROG, dev,
                var->name, var->inputs, var->acc, o->M, o->N, o->K, ms, tflops, acc->rel_fro,
                acc->max_scaled, rule, ok ? "ok" : "BROKEN");
}

/* Run the study at one K; returns how many variants broke the rule. */
static int study_k(struct bench_table *t, int K, int sm80, FILE *csv, const char *dev)
{
    const struct cli_bench *opt = t->opt;
    int M = opt->m, N = opt->n;
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A = mat_alloc_f32(na), *B = mat_alloc_f32(nb), *C = mat_alloc_f32(nc);
    uint16_t *C16 = mat_alloc(nc * 2);
    double *exact = mat_alloc(nc * sizeof *exact), *scale = mat_alloc(nc * sizeof *scale);
    mat_fill_uniform(A, na, (uint64_t)opt->seed + K, -1, 1);
    mat_fill_uniform(B, nb, (uint64_t)opt->seed + K + 1, -1, 1);
    ref_matmul_f64(M, N, K, A, B, exact);
    ref_matmul_abs_f64(M, N, K, A, B, scale);

    struct operands o = {M, N, K, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, CUBLAS_FP32};
    CUDA_CHECK(cudaMalloc((void **)&o.d_A, na * 4));
    CUDA_CHECK(cudaMalloc((void **)&o.d_B, nb * 4));
    CUDA_CHECK(cudaMalloc((void **)&o.d_A16, na * 2));
    CUDA_CHECK(cudaMalloc((void **)&o.d_B16, nb * 2));
    CUDA_CHECK(cudaMalloc((void **)&o.d_Abf, na * 2));
    CUDA_CHECK(cudaMalloc((void **)&o.d_Bbf, nb * 2));
    CUDA_CHECK(cudaMalloc((void **)&o.d_C, nc * 4));
    CUDA_CHECK(cudaMalloc((void **)&o.d_C16, nc * 2));
    CUDA_CHECK(cudaMemcpy(o.d_A, A, na * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(o.d_B, B, nb * 4, cudaMemcpyHostToDevice));
    convert_operands(t, &o, A, B);

    int broken = 0;
    for (size_t v = 0; v < N_VARIANTS; v++) {
        const struct variant *var = &variants[v];
        if (var->sm80 && !sm80) {
            printf("%6d  %-22s needs sm_80\n", K, var->name);
            continue;
        }
        o.kind = var->kind;
        mat_poison_device(o.d_C, nc * 4);
        mat_poison_device(o.d_C16, nc * 2);
        bench_run(t, run_variant, &o);
        if (var->kind == CUBLAS_16F) {
            CUDA_CHECK(cudaMemcpy(C16, o.d_C16, nc * 2, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < nc; i++)
                C[i] = ref_f16_to_f32(C16[i]);
        } else {
            CUDA_CHECK(cudaMemcpy(C, o.d_C, nc * 4, cudaMemcpyDeviceToHost));
        }
        struct accuracy acc = measure(C, exact, scale, nc);
        double rule = ref_gemm_tolerance(K, var->u_in, var->u_acc);
        broken += !(acc.max_scaled <= rule);
        report_variant(t, var, &o, &acc, rule, csv, dev);
    }
    fflush(stdout);

    CUDA_CHECK(cudaFree(o.d_A));
    CUDA_CHECK(cudaFree(o.d_B));
    CUDA_CHECK(cudaFree(o.d_A16));
    CUDA_CHECK(cudaFree(o.d_B16));
    CUDA_CHECK(cudaFree(o.d_Abf));
    CUDA_CHECK(cudaFree(o.d_Bbf));
    CUDA_CHECK(cudaFree(o.d_C));
    CUDA_CHECK(cudaFree(o.d_C16));
    free(A);
    free(B);
    free(C);
    free(C16);
    free(exact);
    free(scale);
    return broken;
}

/* Loss scaling on the CPU: small gradients in fp16 with and without a scale, then the dynamic
 * scaler through a run whose gradients grow until they overflow now and then. */
static void loss_scaling_demo(uint64_t seed)
{
    enum { COUNT = 100000 };
    float *g = mat_alloc_f32(COUNT);
    uint64_t state = seed;
    for (int i = 0; i < COUNT; i++) /* log-uniform magnitudes 2^-34 .. 2^-4, random signs */
        g[i] = ldexpf(1.0f + (mat_rand_next(&state) >> 40) * 0x1p-24f,
                      -34 + (int)(mat_rand_next(&state) % 30)) *
               (mat_rand_next(&state) & 1 ? -1.0f : 1.0f);
    const float scales[] = {1.0f, 1024.0f, 65536.0f};
    printf("\nLoss scaling: %d gradients, |g| log-uniform in [2^-34, 2^-4], stored in fp16\n",
           COUNT);
    for (int s = 0; s < 3; s++) {
        int zero = 0, inf = 0;
        double worst = 0;
        for (int i = 0; i < COUNT; i++) {
            float h = ref_f16_to_f32(mp_f32_to_f16(g[i] * scales[s]));
            zero += h == 0.0f;
            inf += isinf(h);
            if (h != 0.0f && !isinf(h)) {
                double rel = fabs(h / scales[s] - g[i]) / fabs(g[i]);
                worst = rel > worst ? rel : worst;
            }
        }
        printf("  scale %8.0f: %5.1f%% flushed to zero, %d overflowed, worst relative error of "
               "the rest %.1e\n",
               scales[s], 100.0 * zero / COUNT, inf, worst);
    }
    /* Dynamic scaling: the largest gradient drifts up over the run; whenever scale * largest
     * passes fp16's maximum, the step overflows, is skipped, and the scale halves. */
    struct loss_scale ls;
    loss_scale_init(&ls, 65536.0f, 100);
    for (int step = 0; step < 2000; step++) {
        float largest = ldexpf(1.0f, -12 + step / 200); /* 2^-12 .. 2^-3 */
        int finite = !isinf(ref_f16_to_f32(mp_f32_to_f16(largest * ls.scale)));
        loss_scale_update(&ls, finite);
    }
    printf("  dynamic scaler, 2000 steps, largest gradient 2^-12 .. 2^-3: final scale %.0f, "
           "%lld steps skipped\n",
           ls.scale, ls.skipped);
    free(g);
}

/* The study's CSV file (appending, or NULL without --csv) and header. Returns 0, or 2 after a
 * one-line error when the file cannot be opened. */
static int begin_study(const struct cli_bench *o, const struct device_info *dev, int kmin, int kmax,
                       FILE **csv)
{
    *csv = NULL;
    if (o->csv) {
        *csv = fopen(o->csv, "a");
        if (!*csv) {
            fprintf(stderr, "%s: cannot open CSV file '%s': %s\n", PROG, o->csv, strerror(errno));
            return 2;
        }
        if (ftell(*csv) == 0)
            fprintf(*csv, "lesson,device,variant,inputs,accumulate,m,n,k,ms,tflops,rel_err,"
                          "max_err_scaled,rule,check\n");
    }
    printf("%s | %s (sm_%d%d) | M=%d N=%d, K=%d..%d, A and B uniform in [-1, 1) | median of %d\n",
           PROG, dev->name, dev->cc_major, dev->cc_minor, o->m, o->n, kmin, kmax, o->reps);
    printf("rel err = ||C - exact||_F / ||exact||_F; err/|A||B| = max |C - exact| / sum |a||b|, "
           "which the rule bounds\n");
    printf("%6s  %-22s %-9s %-8s %9s %8s %10s %10s %10s  %s\n", "K", "variant", "inputs", "acc",
           "ms", "TFLOP/s", "rel err", "err/|A||B|", "rule", "check");
    return 0;
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    int kmin = 64, kmax = 16384;
    cli_bench_defaults(&o, 256, 5);
    o.k = 0;               /* no --k or --size: sweep K */
    if (device_emulated()) /* one K of seconds on the CPU; the command line still wins */
        o.m = o.n = kmin = kmax = BENCH_EMU_SIZE;
    const struct cli_opt extra[] = {
        {"kmin", CLI_INT, &kmin, 1, 1 << 20, "smallest K of the sweep"},
        {"kmax", CLI_INT, &kmax, 1, 1 << 20, "largest K of the sweep (K grows 4x per step)"},
        {NULL, CLI_INT, NULL, 0, 0, NULL},
    };
    enum cli_status st = cli_parse_bench(argc, argv, PROG,
                                         "Lesson 09: GEMM accuracy and speed in fp32, TF32, fp16 "
                                         "and bf16 as K grows; loss scaling.",
                                         &o, extra);
    if (st != CLI_OK)
        return cli_exit_status(st);
    if (o.k) /* one K */
        kmin = kmax = o.k;
    if (kmin > kmax) {
        fprintf(stderr, "%s: --kmin=%d is larger than --kmax=%d\n", PROG, kmin, kmax);
        return 2;
    }
    if ((long long)o.m * kmax > 2147483647LL || (long long)kmax * o.n > 2147483647LL) {
        fprintf(stderr, "%s: A or B would have more than 2^31 - 1 elements at K=%d\n", PROG, kmax);
        return 2;
    }

    struct device_info dev;
    if (!device_query(&dev)) {
        fprintf(stderr, "%s: %s\n", PROG, dev.why);
        return 1;
    }
    size_t bytes = ((size_t)o.m * kmax + (size_t)kmax * o.n) * 8 + (size_t)o.m * o.n * 6;
    if (!device_fits(PROG, bytes))
        return 2;
    /* On the emulator, the study's rows show counters (bench.h) instead of times. */
    struct bench_table t = {.opt = &o};
    FILE *csv = NULL;
    o.k = kmin;
    if (dev.emulated ? bench_begin(&t, PROG, "", &o, &dev)
                     : begin_study(&o, &dev, kmin, kmax, &csv))
        return 2;
    int broken = 0;
    for (long long K = kmin; K <= kmax; K *= 4)
        broken += study_k(&t, (int)K, dev.cc_major >= 8, csv, dev.name);
    if (csv)
        fclose(csv);
    bench_end(&t);
    loss_scaling_demo((uint64_t)o.seed);
    baseline_release();
    timer_release();
    return broken ? 1 : 0;
}
