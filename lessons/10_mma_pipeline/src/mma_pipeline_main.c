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
    const struct bench_gemm16 *p;
};

static void run_call(void *arg)
{
    struct call16 *c = arg;
    c->fn(c->p->M, c->p->N, c->p->K, c->p->d_A, c->p->d_B, c->p->d_C);
}

/* @p fn on the problem as row @p name against @p base_ms (bench_gemm16_row()). */
static double row(struct bench_table *t, struct bench_gemm16 *p, const char *name, gemm16_fn fn,
                  double base_ms, int reference)
{
    struct call16 c = {fn, p};
    int library = fn == cublas_f16 || fn == cublas_bf16;
    return bench_gemm16_row(t, p, name, base_ms, library, reference, run_call, &c);
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

    struct bench_table t;
    if (bench_begin(&t, PROG, "cuBLAS GemmEx at the same precision", &o, &dev))
        return 2;
    bench_gemm16_upload(&p, 0);
    double f16_ms = row(&t, &p, "cublas_gemm_ex (fp16)", cublas_f16, 0, 1);
    if (dev.cc_major >= 8) {
        static const struct {
            const char *name;
            gemm16_fn fn;
        } steps[] = {{"mma_ldmatrix", mma_ldmatrix},
                     {"mma_swizzled", mma_swizzled},
                     {"mma_pipelined", mma_pipelined}};
        for (size_t s = 0; s < sizeof steps / sizeof *steps; s++)
            row(&t, &p, steps[s].name, steps[s].fn, f16_ms, 0);
        bench_gemm16_upload(&p, 1);
        double bf16_ms = row(&t, &p, "cublas_gemm_ex (bf16)", cublas_bf16, 0, 0);
        row(&t, &p, "mma_bf16", mma_bf16, bf16_ms, 0);
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
