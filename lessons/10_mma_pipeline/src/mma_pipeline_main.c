/**
 * @file mma_pipeline_main.c
 * @brief Lesson 10's benchmark: the mma.sync GEMMs, step by step, against cuBLAS GemmEx at the
 *        same precision, in the same run.
 *
 *   ./course bench 10 [--size=4096] [--reps=10] [--flush-l2] [--csv=FILE]
 *   ./course profile 10 [--csv=FILE]     (on the CPU emulator: counters instead of times)
 *   ./course estimate 10 --gpu=a100      (the time model's estimate of each row)
 *
 * cuBLAS GemmEx with fp16 inputs and fp32 accumulation first (the yardstick), then
 * mma_ldmatrix, mma_swizzled and mma_pipelined against it; then GemmEx on bfloat16 and
 * mma_bf16 against that. Inputs are small integers, exact in both formats, so every result must
 * equal cuBLAS's exactly. Every kernel needs sm_80; on an older GPU only cuBLAS runs.
 */
#include "mma_pipeline.h"

#include "baseline.h"
#include "bench.h"
#include "cuda_check.h"
#include "timer.h"

static const char *const PROG = "10_mma_pipeline";

/** A 16-bit GEMM: one of this lesson's launchers, or cuBLAS behind the same signature. */
typedef void (*gemm16_fn)(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                          float *d_C);

static void cublas_f16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C)
{
    baseline_gemm_ex(M, N, K, d_A, d_B, CUDA_R_16F, d_C);
}

static void cublas_bf16(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C)
{
    baseline_gemm_ex(M, N, K, d_A, d_B, CUDA_R_16BF, d_C);
}

/* One GEMM on the problem's device buffers. */
struct call16 {
    gemm16_fn fn;
    int M, N, K;
    uint16_t *d_A, *d_B;
    float *d_C;
};

static void run_call(void *arg)
{
    struct call16 *c = arg;
    c->fn(c->M, c->N, c->K, c->d_A, c->d_B, c->d_C);
}

/*
 * @p c as row @p name of the table: run once into a poisoned C and compared with @p want
 * exactly (with want NULL, C is copied to @p got, the reference), then timed on a GPU against
 * @p base_ms (0: it is the base) or counted on the emulator. Returns its median ms.
 */
static double row(struct bench_table *t, const char *name, struct call16 *c, double base_ms,
                  const float *want, float *got)
{
    struct bench_gemm g = {.version = name,
                           .M = c->M,
                           .N = c->N,
                           .K = c->K,
                           .in_bytes = 2.0,
                           .d_C = c->d_C,
                           .base_ms = base_ms,
                           .library = c->fn == cublas_f16 || c->fn == cublas_bf16};
    return bench_gemm(t, &g, run_call, c, want, got);
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    cli_bench_defaults(&o, 4096, 10);
    struct device_info dev;
    int status = bench_setup(argc, argv, PROG,
                             "Lesson 10: mma.sync GEMMs (ldmatrix, swizzled shared memory, a "
                             "cp.async pipeline) against cuBLAS at the same precision.",
                             &o, NULL, &dev);
    if (status >= 0)
        return status;
    int M = o.m, N = o.n, K = o.k;
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    if (!device_fits(PROG, (na + nb) * 2 + nc * sizeof(float)))
        return 2;

    struct bench_gemm16 p;
    bench_gemm16_new(&p, &o);
    struct call16 c = {cublas_f16, M, N, K, p.d_A, p.d_B, p.d_C};

    struct bench_table t;
    if (bench_begin(&t, PROG, "cuBLAS GemmEx at the same precision", &o, &dev))
        return 2;
    bench_gemm16_upload(&p, 0);
    double f16_ms = row(&t, "cublas_gemm_ex (fp16)", &c, 0, NULL, p.want);
    if (dev.cc_major >= 8) {
        static const struct {
            const char *name;
            gemm16_fn fn;
        } steps[] = {{"mma_ldmatrix", mma_ldmatrix},
                     {"mma_swizzled", mma_swizzled},
                     {"mma_pipelined", mma_pipelined}};
        for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
            c.fn = steps[s].fn;
            row(&t, steps[s].name, &c, f16_ms, p.want, p.got);
        }
        bench_gemm16_upload(&p, 1);
        c.fn = cublas_bf16;
        double bf16_ms = row(&t, "cublas_gemm_ex (bf16)", &c, 0, p.want, p.got);
        c.fn = mma_bf16;
        row(&t, "mma_bf16", &c, bf16_ms, p.want, p.got);
    } else {
        printf("%-24s need sm_80 (mma.sync m16n8k16, cp.async); this GPU is sm_%d%d\n",
               "the mma kernels", dev.cc_major, dev.cc_minor);
    }

    int rc = bench_end(&t);
    bench_gemm16_free(&p);
    baseline_release();
    timer_release();
    return rc;
}
