/**
 * @file fused_attention_main.c
 * @brief Lesson 11's benchmark: softmax in three passes against one, LayerNorm, and attention
 *        unfused against fused, each against the memory roofline; on a GPU also attention as
 *        cuBLAS GEMMs with the course's softmax between them.
 *
 *   ./course bench 11 [--rows=R] [--cols=C] [--ln-mean=M] [--seq=N] [--heads=H]
 *                     [--head-dim=64|128] [--causal] [--bf16] [--reps=10] [--flush-l2]
 *                     [--csv=FILE]
 *   ./course profile 11 [--csv=FILE]     (on the CPU emulator: counters instead of times)
 *
 * Softmax and LayerNorm are memory-bound: their rows show GB/s of the bytes that must move (each
 * input byte read once, each output byte written once) against a device-to-device copy, the
 * memory roofline. Attention's rows show TFLOP/s (4 n_q n_k d per head, the visible pairs
 * only under --causal) and the same roofline for Q, K, V and O; the unfused version moves
 * four n_q x n_k matrices of floats besides. Every result is checked against the CPU in double
 * under the course's bounds (reference/ref.h); attention on its first head (the CPU's share of
 * the time).
 */
#include "fused_attention.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "bench.h"
#include "cuda_check.h"
#include "mat.h"
#include "ref.h"
#include "timer.h"

static const char *const PROG = "11_fused_attention";

/* The 16-bit format's bits of @p x (rounded to nearest even), and their value back. */
static uint16_t bits16(float x, int bf16)
{
    return bf16 ? ref_f32_to_bf16(x) : ref_f32_to_f16(x);
}

static float value16(uint16_t h, int bf16)
{
    return bf16 ? ref_bf16_to_f32(h) : ref_f16_to_f32(h);
}

/* @p n floats uniform in [lo, hi) rounded to the format in place; their bits (malloc'd). */
static uint16_t *fill16(float *x, size_t n, uint64_t seed, float lo, float hi, int bf16)
{
    uint16_t *h = mat_alloc(n * sizeof *h);
    mat_fill_uniform(x, n, seed, lo, hi);
    for (size_t i = 0; i < n; i++) {
        h[i] = bits16(x[i], bf16);
        x[i] = value16(h[i], bf16);
    }
    return h;
}

/* A device copy of @p bytes at @p host. */
static void *upload(const void *host, size_t bytes)
{
    void *d;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* One timed call: which launcher, and its arguments. */
struct call {
    void (*softmax)(int, int, const float *, float *);
    int (*attention)(int, int, int, int, int, int, const uint16_t *, const uint16_t *,
                     const uint16_t *, uint16_t *);
    int layer, baseline;
    int rows, cols, heads, n, d, causal, bf16;
    const void *x, *q, *k, *v, *vf, *gamma, *beta;
    void *y, *mean, *rstd, *s, *p;
};

/* Attention as cuBLAS does it, with the course's softmax between the products: the scores of
 * every head in one batched GEMM (16-bit in, fp32 out), softmax_online, then P V in TF32 on
 * Tensor Cores (P is fp32; V's float copy). No mask: cuBLAS has none. */
static void cublas_attention(const struct call *c)
{
    long long nn = (long long)c->n * c->n, nd = (long long)c->n * c->d;
    cudaDataType_t t16 = c->bf16 ? CUDA_R_16BF : CUDA_R_16F;
    baseline_gemm_batched(c->heads, c->n, c->n, c->d, (float)(1 / sqrt((double)c->d)), c->q, nd,
                          c->k, nd, 1, t16, c->s, nn, CUDA_R_32F, CUBLAS_COMPUTE_32F);
    softmax_online(c->heads * c->n, c->n, c->s, c->p);
    baseline_gemm_batched(c->heads, c->n, c->d, c->n, 1.0f, c->p, nn, c->vf, nd, 0, CUDA_R_32F,
                          c->y, nd, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32);
}

static void run_call(void *arg)
{
    struct call *c = arg;
    if (c->softmax)
        c->softmax(c->rows, c->cols, c->x, c->y);
    else if (c->layer)
        layernorm(c->rows, c->cols, c->x, c->gamma, c->beta, 1e-5f, c->bf16, c->y, c->mean,
                  c->rstd);
    else if (c->baseline)
        cublas_attention(c);
    else
        c->attention(c->heads, c->n, c->n, c->d, c->causal, c->bf16, c->q, c->k, c->v, c->y);
}

/* Report @p c's row (run by bench_run() and checked: @p check, @p ok) against @p base_ms. */
static double report(struct bench_table *t, const char *name, struct call *c, double flops,
                     double bytes, double base_ms, double peak, const char *check, int ok)
{
    struct bench_row row = {.version = name,
                            .flops = flops,
                            .bytes = bytes,
                            .base_ms = base_ms,
                            .peak_gbs = peak,
                            .check = check,
                            .ok = ok,
                            .library = c->baseline};
    return bench_report(t, &row, run_call, c);
}

/* ---- softmax -------------------------------------------------------------------------------- */

static void bench_softmax(struct bench_table *t, int rows, int cols)
{
    size_t n = (size_t)rows * cols;
    float *x = mat_alloc_f32(n), *got = mat_alloc_f32(n);
    double *want = mat_alloc(n * sizeof *want), *bound = mat_alloc(n * sizeof *bound);
    mat_fill_uniform(x, n, (uint64_t)t->opt->seed, -8, 8); /* logits of a trained model's size */
    ref_softmax_f64(rows, cols, x, want, bound);
    struct call c = {.rows = rows, .cols = cols, .x = upload(x, n * 4)};
    CUDA_CHECK(cudaMalloc(&c.y, n * 4));
    double bytes = 8.0 * n; /* x read once, y written once */
    double peak = t->counting ? 0 : device_copy_bandwidth_gbs((size_t)bytes, t->opt->reps);
    printf("softmax of %d rows of %d floats (fp32)\n", rows, cols);
    void (*fns[])(int, int, const float *, float *) = {softmax_naive, softmax_online};
    const char *names[] = {"softmax_naive", "softmax_online"};
    double base = 0;
    for (int v = 0; v < 2; v++) {
        c.softmax = fns[v];
        mat_poison_device(c.y, n * 4);
        bench_run(t, run_call, &c);
        CUDA_CHECK(cudaMemcpy(got, c.y, n * 4, cudaMemcpyDeviceToHost));
        struct mat_cmp cmp = mat_compare_scaled(got, want, bound, rows, cols, 1.0);
        char check[160];
        mat_cmp_describe(&cmp, check, sizeof check);
        double ms =
            report(t, names[v], &c, 0, bytes, v ? base : BENCH_SELF, peak, check, cmp.n_bad == 0);
        base = v ? base : ms;
    }
    CUDA_CHECK(cudaFree((void *)c.x));
    CUDA_CHECK(cudaFree(c.y));
    free(x);
    free(got);
    free(want);
    free(bound);
}

/* ---- layernorm ------------------------------------------------------------------------------ */

/* LayerNorm of rows x cols values uniform in [mean - 2, mean + 2), in the 16-bit format. */
static void bench_layernorm(struct bench_table *t, int rows, int cols, int bf16, double mean)
{
    size_t n = (size_t)rows * cols;
    float *x = mat_alloc_f32(n), *gamma = mat_alloc_f32((size_t)cols);
    float *beta = mat_alloc_f32((size_t)cols), *got = mat_alloc_f32(n);
    uint16_t *h = fill16(x, n, (uint64_t)t->opt->seed, (float)mean - 2, (float)mean + 2, bf16);
    uint16_t *hy = mat_alloc(n * 2);
    mat_fill_uniform(gamma, (size_t)cols, (uint64_t)t->opt->seed + 1, 0.5f, 1.5f);
    mat_fill_uniform(beta, (size_t)cols, (uint64_t)t->opt->seed + 2, -1, 1);
    struct ref_layernorm want = {mat_alloc(n * 8), mat_alloc(rows * 8), mat_alloc(rows * 8),
                                 mat_alloc(n * 8), mat_alloc(rows * 8), mat_alloc(rows * 8)};
    ref_layernorm_f64(rows, cols, x, gamma, beta, 1e-5f, bf16 ? REF_U_BF16 : REF_U_FP16, &want);
    struct call c = {.layer = 1,
                     .rows = rows,
                     .cols = cols,
                     .bf16 = bf16,
                     .x = upload(h, n * 2),
                     .gamma = upload(gamma, cols * 4),
                     .beta = upload(beta, cols * 4)};
    CUDA_CHECK(cudaMalloc(&c.y, n * 2));
    CUDA_CHECK(cudaMalloc(&c.mean, rows * 4));
    CUDA_CHECK(cudaMalloc(&c.rstd, rows * 4));
    double bytes = 4.0 * n + 8.0 * cols + 8.0 * rows; /* x and y, gamma and beta, the stats */
    double peak = t->counting ? 0 : device_copy_bandwidth_gbs((size_t)bytes, t->opt->reps);
    printf("layernorm of %d rows of %d values in [%g, %g) (%s in and out, fp32 statistics)\n", rows,
           cols, mean - 2, mean + 2, bf16 ? "bf16" : "fp16");
    mat_poison_device(c.y, n * 2);
    bench_run(t, run_call, &c);
    CUDA_CHECK(cudaMemcpy(hy, c.y, n * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        got[i] = value16(hy[i], bf16);
    struct mat_cmp cmp = mat_compare_scaled(got, want.y, want.y_bound, rows, cols, 1.0);
    char check[160];
    mat_cmp_describe(&cmp, check, sizeof check);
    report(t, "layernorm", &c, 0, bytes, BENCH_SELF, peak, check, cmp.n_bad == 0);
    CUDA_CHECK(cudaFree((void *)c.x));
    CUDA_CHECK(cudaFree((void *)c.gamma));
    CUDA_CHECK(cudaFree((void *)c.beta));
    CUDA_CHECK(cudaFree(c.y));
    CUDA_CHECK(cudaFree(c.mean));
    CUDA_CHECK(cudaFree(c.rstd));
    free(x), free(gamma), free(beta), free(got), free(h), free(hy);
    free(want.y), free(want.mean), free(want.rstd);
    free(want.y_bound), free(want.mean_bound), free(want.rstd_bound);
}

/* ---- attention ------------------------------------------------------------------------------ */

/* The inputs and head 0's answer, for the versions to be checked against. */
struct attention_data {
    float *q, *k, *v;     /* the inputs' values (heads x n x d each) */
    double *want, *bound; /* head 0's O and its bounds (n x d) */
};

/* Compare head 0 of @p c's output (16-bit, or float for the baseline) with the CPU's. */
static int check_attention(const struct call *c, const struct attention_data *a, char *check,
                           size_t size)
{
    size_t nd = (size_t)c->n * c->d;
    float *got = mat_alloc_f32(nd);
    if (c->baseline) {
        CUDA_CHECK(cudaMemcpy(got, c->y, nd * 4, cudaMemcpyDeviceToHost));
    } else {
        uint16_t *h = mat_alloc(nd * 2);
        CUDA_CHECK(cudaMemcpy(h, c->y, nd * 2, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < nd; i++)
            got[i] = value16(h[i], c->bf16);
        free(h);
    }
    struct mat_cmp cmp = mat_compare_scaled(got, a->want, a->bound, c->n, c->d, 1.0);
    mat_cmp_describe(&cmp, check, size);
    free(got);
    return cmp.n_bad == 0;
}

static void bench_attention(struct bench_table *t, int heads, int n, int d, int causal, int bf16)
{
    size_t all = (size_t)heads * n * d;
    struct attention_data a = {mat_alloc_f32(all), mat_alloc_f32(all), mat_alloc_f32(all),
                               mat_alloc((size_t)n * d * 8), mat_alloc((size_t)n * d * 8)};
    uint64_t seed = (uint64_t)t->opt->seed;
    uint16_t *hq = fill16(a.q, all, seed, -1, 1, bf16),
             *hk = fill16(a.k, all, seed + 1, -1, 1, bf16);
    uint16_t *hv = fill16(a.v, all, seed + 2, -1, 1, bf16);
    ref_attention_f64(1, n, n, d, causal, a.q, a.k, a.v, bf16 ? REF_U_BF16 : REF_U_FP16, a.want,
                      a.bound);
    struct call c = {.heads = heads,
                     .n = n,
                     .d = d,
                     .causal = causal,
                     .bf16 = bf16,
                     .q = upload(hq, all * 2),
                     .k = upload(hk, all * 2),
                     .v = upload(hv, all * 2)};
    CUDA_CHECK(cudaMalloc(&c.y, all * 4)); /* room for the baseline's float O */
    double pairs = 0;                      /* (query, key) pairs the mask lets through */
    for (int i = 0; i < n; i++)
        pairs += causal ? i + 1 : n;
    double flops = 4.0 * heads * pairs * d, bytes = 8.0 * all; /* Q, K, V read, O written */
    double peak = t->counting ? 0 : device_copy_bandwidth_gbs((size_t)bytes, t->opt->reps);
    printf("attention: %d heads, n_q = n_k = %d, d = %d, %s, %s in and out, fp32 statistics\n",
           heads, n, d, causal ? "causal" : "not causal", bf16 ? "bf16" : "fp16");
    char check[160];
    double base = BENCH_SELF;
    if (!t->counting && !causal) {
        size_t nn = (size_t)heads * n * n;
        c.baseline = 1;
        c.vf = upload(a.v, all * 4);
        CUDA_CHECK(cudaMalloc(&c.s, nn * 4));
        CUDA_CHECK(cudaMalloc(&c.p, nn * 4));
        mat_poison_device(c.y, all * 4);
        bench_run(t, run_call, &c);
        int ok = check_attention(&c, &a, check, sizeof check);
        base = report(t, "cublas+softmax_online", &c, flops, bytes, BENCH_SELF, peak, check, ok);
        CUDA_CHECK(cudaFree((void *)c.vf));
        CUDA_CHECK(cudaFree(c.s));
        CUDA_CHECK(cudaFree(c.p));
        c.baseline = 0;
    } else {
        printf("%-24s %s\n", "cublas+softmax_online",
               causal ? "not run (cuBLAS cannot mask)" : "not run (on a GPU only)");
    }
    int (*fns[])(int, int, int, int, int, int, const uint16_t *, const uint16_t *, const uint16_t *,
                 uint16_t *) = {attention_unfused, flash_attention};
    const char *names[] = {"attention_unfused", "flash_attention"};
    for (int v = 0; v < 2; v++) {
        c.attention = fns[v];
        mat_poison_device(c.y, all * 2);
        bench_run(t, run_call, &c);
        int ok = check_attention(&c, &a, check, sizeof check);
        double ms = report(t, names[v], &c, flops, bytes, base, peak, check, ok);
        if (base == BENCH_SELF)
            base = ms;
    }
    CUDA_CHECK(cudaFree((void *)c.q));
    CUDA_CHECK(cudaFree((void *)c.k));
    CUDA_CHECK(cudaFree((void *)c.v));
    CUDA_CHECK(cudaFree(c.y));
    free(a.q), free(a.k), free(a.v), free(a.want), free(a.bound);
    free(hq), free(hk), free(hv);
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    cli_bench_defaults(&o, 4096, 10);
    int emu = device_emulated();
    /* A GPU's sizes, or seconds on the CPU emulator. */
    int rows = emu ? 64 : 4096, cols = emu ? 1000 : 4096, seq = emu ? 256 : 4096;
    int heads = emu ? 2 : 16, head_dim = 64, causal = 0, bf16 = 0;
    double ln_mean = 0;
    const struct cli_opt extra[] = {
        {"rows", CLI_INT, &rows, 1, 1 << 20, "softmax and LayerNorm rows"},
        {"cols", CLI_INT, &cols, 1, 1 << 20, "softmax row length (LayerNorm: at most 8192)"},
        {"seq", CLI_INT, &seq, 1, 1 << 16, "attention's sequence length (n_q = n_k)"},
        {"heads", CLI_INT, &heads, 1, 65535, "attention heads (batch x heads)"},
        {"ln-mean", CLI_DOUBLE, &ln_mean, -30000, 30000,
         "centre of LayerNorm's inputs (spread +-2): large against the spread, E[x^2] - mean^2 "
         "cancels"},
        {"head-dim", CLI_INT, &head_dim, 64, 128, "attention's head dimension: 64 or 128"},
        {"causal", CLI_FLAG, &causal, 0, 1, "causal attention (and no cuBLAS row)"},
        {"bf16", CLI_FLAG, &bf16, 0, 1, "bfloat16 in and out (default fp16)"},
        {NULL, CLI_INT, NULL, 0, 0, NULL},
    };
    struct device_info dev;
    int status = bench_setup(argc, argv, PROG,
                             "Lesson 11: softmax in three passes and in one, LayerNorm, and "
                             "attention unfused against FlashAttention's fused forward pass.",
                             &o, extra, &dev);
    if (status >= 0)
        return status;
    if (head_dim != 64 && head_dim != 128) {
        fprintf(stderr, "%s: --head-dim must be 64 or 128, not %d\n", PROG, head_dim);
        return 2;
    }
    if ((long long)rows * cols > (1LL << 28) || (long long)heads * seq * seq > (1LL << 31)) {
        fprintf(stderr, "%s: rows x cols is at most 2^28 and heads x seq^2 at most 2^31\n", PROG);
        return 2;
    }
    size_t attn = (size_t)heads * seq * seq * 8 + (size_t)heads * seq * head_dim * 20;
    if (!device_fits(PROG, attn > (size_t)rows * cols * 8 ? attn : (size_t)rows * cols * 8))
        return 2;
    struct bench_table t;
    if (bench_begin(&t, PROG, "the first row of each part", &o, &dev))
        return 2;
    bench_softmax(&t, rows, cols);
    bench_layernorm(&t, rows, cols < LAYERNORM_MAX_COLS ? cols : LAYERNORM_MAX_COLS, bf16, ln_mean);
    bench_attention(&t, heads, seq, head_dim, causal, bf16);
    int rc = bench_end(&t);
    baseline_release();
    timer_release();
    return rc;
}
