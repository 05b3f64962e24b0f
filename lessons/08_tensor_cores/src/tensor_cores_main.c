/**
 * @file tensor_cores_main.c
 * @brief Lesson 08's benchmark: CUDA cores against Tensor Cores, and the WMMA GEMMs against
 *        cuBLAS at their own precision.
 *
 *   ./course bench 08 [--size=4096] [--reps=10] [--flush-l2] [--csv=FILE]
 *   ./course profile 08 [--csv=FILE]     (on the CPU emulator: counters instead of times)
 *
 * First cuBLAS twice on the same problem: SGEMM (fp32, CUDA cores) and GemmEx with fp16 inputs
 * and fp32 accumulation (Tensor Cores): the ratio is the gap this lesson is about. Then each
 * WMMA version, its "% base" measured against cuBLAS at the same precision (fp16 or bf16 in,
 * fp32 accumulation). Inputs are small integers, exact in every format, so every result must
 * equal SGEMM's exactly.
 */
#include "tensor_cores.h"

#include "baseline.h"
#include "bench.h"
#include "cuda_check.h"
#include "timer.h"

static const char *const PROG = "08_tensor_cores";

/** A 16-bit GEMM launcher (this lesson's, or cuBLAS behind the same signature). */
typedef void (*half_gemm_fn)(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                             float *d_C);

static void cublas_hgemm(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C)
{
    baseline_gemm_ex(M, N, K, d_A, d_B, CUDA_R_16F, d_C);
}

static void cublas_bf16gemm(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B,
                            float *d_C)
{
    baseline_gemm_ex(M, N, K, d_A, d_B, CUDA_R_16BF, d_C);
}

/* One timed call: a 16-bit GEMM on (d_A, d_B), or, with fn NULL, SGEMM on (d_fA, d_fB). */
struct gemm_call {
    half_gemm_fn fn;
    int M, N, K;
    const uint16_t *d_A, *d_B;
    const float *d_fA, *d_fB;
    float *d_C;
};

static void run_gemm(void *arg)
{
    struct gemm_call *c = arg;
    if (c->fn)
        c->fn(c->M, c->N, c->K, c->d_A, c->d_B, c->d_C);
    else
        baseline_sgemm(c->M, c->N, c->K, c->d_fA, c->d_fB, c->d_C);
}

/*
 * Run @p c once into a poisoned C and compare with @p want exactly (or, with want NULL, copy
 * the result into @p got as the reference), then report its row against @p base_ms (0: its own
 * time): timed on a GPU, counted on the emulator. Returns the median ms (0 on the emulator).
 */
static double report_gemm(struct bench_table *t, const char *name, struct gemm_call *c,
                          double base_ms, const float *want, float *got)
{
    struct bench_gemm g = {.version = name,
                           .M = c->M,
                           .N = c->N,
                           .K = c->K,
                           .in_bytes = c->fn ? 2.0 : 4.0,
                           .d_C = c->d_C,
                           .base_ms = base_ms,
                           .library = !c->fn || c->fn == cublas_hgemm || c->fn == cublas_bf16gemm};
    return bench_gemm(t, &g, run_gemm, c, want, got);
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    cli_bench_defaults(&o, 4096, 10);
    struct device_info dev;
    int status = bench_setup(argc, argv, PROG,
                             "Lesson 08: SGEMM against Tensor Core GEMM in cuBLAS, then "
                             "the WMMA kernels against cuBLAS at the same precision.",
                             &o, NULL, &dev);
    if (status >= 0)
        return status;
    int M = o.m, N = o.n, K = o.k;
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    /* float A and B, 16-bit A and B, one C */
    if (!device_fits(PROG, (na + nb) * (sizeof(float) + 2) + nc * sizeof(float)))
        return 2;

    struct bench_gemm16 p;
    bench_gemm16_new(&p, &o);
    float *d_fA, *d_fB;
    CUDA_CHECK(cudaMalloc((void **)&d_fA, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_fB, nb * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_fA, p.A, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_fB, p.B, nb * sizeof(float), cudaMemcpyHostToDevice));
    struct gemm_call c = {NULL, M, N, K, p.d_A, p.d_B, d_fA, d_fB, p.d_C};

    struct bench_table t;
    if (bench_begin(&t, PROG, "cuBLAS at the same precision", &o, &dev))
        return 2;

    /* CUDA cores against Tensor Cores: the same product, cuBLAS both times. */
    double sgemm_ms = report_gemm(&t, "cublas_sgemm (fp32)", &c, 0, NULL, p.want);
    bench_gemm16_upload(&p, 0);
    c.fn = cublas_hgemm;
    double h_ms = report_gemm(&t, "cublas_gemm_ex (fp16)", &c, 0, p.want, p.got);
    c.fn = wmma_naive;
    report_gemm(&t, "wmma_naive", &c, h_ms, p.want, p.got);
    c.fn = wmma_shared;
    report_gemm(&t, "wmma_shared", &c, h_ms, p.want, p.got);

    if (dev.cc_major >= 8) {
        bench_gemm16_upload(&p, 1);
        c.fn = cublas_bf16gemm;
        double b_ms = report_gemm(&t, "cublas_gemm_ex (bf16)", &c, 0, p.want, p.got);
        c.fn = wmma_bf16;
        report_gemm(&t, "wmma_bf16", &c, b_ms, p.want, p.got);
    } else {
        printf("%-24s needs sm_80; this GPU is sm_%d%d\n", "wmma_bf16", dev.cc_major, dev.cc_minor);
    }
    if (!t.counting)
        printf("Tensor Cores vs CUDA cores (cuBLAS fp16 in, fp32 accumulate vs cuBLAS SGEMM): "
               "%.1fx the FLOP rate\n",
               sgemm_ms / h_ms);

    int rc = bench_end(&t);
    CUDA_CHECK(cudaFree(d_fA));
    CUDA_CHECK(cudaFree(d_fB));
    bench_gemm16_free(&p);
    baseline_release();
    timer_release();
    return rc;
}
