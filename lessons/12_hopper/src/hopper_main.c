/**
 * @file hopper_main.c
 * @brief Lesson 12's benchmark: the Hopper GEMMs, step by step, against cuBLAS GemmEx on
 *        bfloat16 (fp32 accumulation), in the same run.
 *
 *   ./course bench 12 [--size=4096] [--reps=10] [--flush-l2] [--csv=FILE]
 *   ./course profile 12 [--csv=FILE]     (on the CPU emulator: counters instead of times)
 *   ./course estimate 12 --gpu=h100      (the time model's estimate of each row)
 *
 * cuBLAS GemmEx first (the yardstick), then wgmma_tma, wgmma_pipelined and
 * wgmma_warp_specialized against it. Inputs are small integers, exact in bfloat16, so every
 * result must equal cuBLAS's exactly. The kernels need an sm_90 GPU (Hopper); elsewhere only
 * cuBLAS runs. N and K must be multiples of 8 (hopper.h): other sizes are refused in one line.
 */
#include "hopper.h"

#include <stdlib.h>

#include "baseline.h"
#include "bench.h"
#include "cuda_check.h"
#include "timer.h"

static const char *const PROG = "12_hopper";

/** A bf16 GEMM: one of this lesson's launchers (0, or -1 when it refuses). */
typedef int (*gemm_fn)(int M, int N, int K, const uint16_t *d_A, const uint16_t *d_B, float *d_C);

/* One GEMM on the problem's device buffers; fn NULL: cuBLAS. */
struct call {
    gemm_fn fn;
    const struct bench_gemm16 *p;
};

static void run_call(void *arg)
{
    struct call *c = arg;
    const struct bench_gemm16 *p = c->p;
    if (!c->fn)
        baseline_gemm_ex(p->M, p->N, p->K, p->d_A, p->d_B, CUDA_R_16BF, p->d_C);
    else if (c->fn(p->M, p->N, p->K, p->d_A, p->d_B, p->d_C) != 0)
        exit(2); /* refused: the launcher said why */
}

/* @p fn on the problem as row @p name against @p base_ms (bench_gemm16_row()); fn NULL: cuBLAS,
 * the reference. */
static double row(struct bench_table *t, struct bench_gemm16 *p, const char *name, gemm_fn fn,
                  double base_ms)
{
    struct call c = {fn, p};
    return bench_gemm16_row(t, p, name, base_ms, fn == NULL, fn == NULL, run_call, &c);
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    cli_bench_defaults(&o, 4096, 10);
    struct device_info dev;
    int status = bench_setup(argc, argv, PROG,
                             "Lesson 12: Hopper GEMMs (TMA, mbarriers, wgmma, warp "
                             "specialisation) against cuBLAS on bfloat16.",
                             &o, NULL, &dev);
    if (status >= 0)
        return status;
    int M = o.m, N = o.n, K = o.k;
    if (N % 8 || K % 8) {
        fprintf(stderr, "%s: N = %d, K = %d: the tensor maps need N and K multiples of 8\n", PROG,
                N, K);
        return 2;
    }
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    if (!device_fits(PROG, (na + nb) * 2 + nc * sizeof(float)))
        return 2;

    struct bench_gemm16 p;
    bench_gemm16_new(&p, &o);
    bench_gemm16_upload(&p, 1);

    struct bench_table t;
    if (bench_begin(&t, PROG, "cuBLAS GemmEx on bfloat16", &o, &dev))
        return 2;
    double base_ms = row(&t, &p, "cublas_gemm_ex (bf16)", NULL, 0);
    if (dev.cc_major == 9 && dev.cc_minor == 0) {
        static const struct {
            const char *name;
            gemm_fn fn;
        } steps[] = {{"wgmma_tma", wgmma_tma},
                     {"wgmma_pipelined", wgmma_pipelined},
                     {"wgmma_warp_specialized", wgmma_warp_specialized}};
        for (size_t s = 0; s < sizeof steps / sizeof *steps; s++)
            row(&t, &p, steps[s].name, steps[s].fn, base_ms);
    } else {
        printf("%-24s need sm_90 (Hopper: TMA, wgmma, setmaxnreg); this GPU is sm_%d%d\n",
               "the wgmma kernels", dev.cc_major, dev.cc_minor);
    }

    int rc = bench_end(&t);
    bench_gemm16_free(&p);
    baseline_release();
    timer_release();
    return rc;
}
