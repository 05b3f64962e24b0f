/**
 * @file cpu_reference_main.c
 * @brief Lesson 01's benchmark: the three CPU versions, a CPU BLAS and cuBLAS where present.
 *
 *   ./course bench 01 [--size=1024] [--reps=3] [--csv=FILE]
 *
 * Each version runs on the same small-integer inputs and must match the
 * fp64 reference exactly. The OpenBLAS row appears when the build found
 * OpenBLAS; the cuBLAS row when a GPU answers (its time excludes copies).
 */
#include "cpu_reference.h"

#include <stdlib.h>

#include "baseline.h"
#include "bench.h"
#include "cuda_check.h"
#include "mat.h"
#include "ref.h"
#include "timer.h"

static const char *const PROG = "01_cpu_reference";

/* A CPU BLAS behind the lesson's own signature; the table shows it only when linked. */
static void cpu_blas(int M, int N, int K, const float *A, const float *B, float *C)
{
    baseline_cpu_sgemm(M, N, K, A, B, C);
}

/* Time cuBLAS on copies of A and B; the result comes back into @p C for the check. */
static double time_cublas(const struct cli_bench *o, const float *A, const float *B, float *C)
{
    size_t na = (size_t)o->m * o->k, nb = (size_t)o->k * o->n, nc = (size_t)o->m * o->n;
    float *d_A, *d_B, *d_C;
    CUDA_CHECK(cudaMalloc((void **)&d_A, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_B, nb * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_C, nc * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_A, A, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_B, B, nb * sizeof(float), cudaMemcpyHostToDevice));
    struct timer_opts t = {o->warmup, o->reps, 1, o->flush_l2};
    double ms = bench_time_sgemm(baseline_sgemm, o->m, o->n, o->k, d_A, d_B, d_C, &t);
    CUDA_CHECK(cudaMemcpy(C, d_C, nc * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(d_C));
    return ms;
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    cli_bench_defaults(&o, 1024, 3);
    o.warmup = 1;
    o.max_dim = 8192; /* the naive version at 8192 already takes minutes */
    enum cli_status st =
        cli_parse_bench(argc, argv, PROG,
                        "Lesson 01: matrix multiply on the CPU, three loop orders, "
                        "against a CPU BLAS and cuBLAS where present.",
                        &o, NULL);
    if (st != CLI_OK)
        return cli_exit_status(st);

    size_t na = (size_t)o.m * o.k, nb = (size_t)o.k * o.n, nc = (size_t)o.m * o.n;
    float *A = mat_alloc_f32(na), *B = mat_alloc_f32(nb), *C = mat_alloc_f32(nc);
    double *want = mat_alloc(nc * sizeof *want);
    mat_fill_int(A, na, (uint64_t)o.seed);
    mat_fill_int(B, nb, (uint64_t)o.seed + 1);
    ref_matmul_f64(o.m, o.n, o.k, A, B, want);

    struct bench_table t;
    if (bench_begin(&t, PROG, "matmul_naive", &o, NULL))
        return 2;
    const struct {
        const char *name;
        bench_sgemm_fn fn;
    } versions[] = {
        {"matmul_naive", matmul_naive},
        {"matmul_reordered", matmul_reordered},
        {"matmul_blocked", matmul_blocked},
        {baseline_cpu_name(), cpu_blas},
    };
    int count = baseline_cpu_name() ? 4 : 3;
    double flops = 2.0 * o.m * o.n * o.k, naive_ms = 0;
    struct timer_opts topt = {o.warmup, o.reps, 0, 0};

    for (int v = 0; v < count; v++) {
        char check[160];
        mat_poison(C, nc);
        versions[v].fn(o.m, o.n, o.k, A, B, C);
        struct mat_cmp cmp = mat_compare_f64(C, want, o.m, o.n, 0, 0);
        mat_cmp_describe(&cmp, check, sizeof check);
        double ms = bench_time_sgemm(versions[v].fn, o.m, o.n, o.k, A, B, C, &topt);
        naive_ms = v == 0 ? ms : naive_ms;
        struct bench_row row = {.version = versions[v].name,
                                .ms = ms,
                                .flops = flops,
                                .base_ms = naive_ms,
                                .check = check,
                                .ok = cmp.n_bad == 0};
        bench_row(&t, &row);
    }

    struct device_info dev;
    if (device_query(&dev) && !dev.emulated) {
        char check[160];
        mat_poison(C, nc);
        double ms = time_cublas(&o, A, B, C);
        struct mat_cmp cmp = mat_compare_f64(C, want, o.m, o.n, 0, 0);
        mat_cmp_describe(&cmp, check, sizeof check);
        struct bench_row row = {.version = "cublas_sgemm (GPU)",
                                .ms = ms,
                                .flops = flops,
                                .base_ms = naive_ms,
                                .check = check,
                                .ok = cmp.n_bad == 0,
                                .library = 1};
        bench_row(&t, &row);
        printf("cuBLAS ran on %s; its time excludes copying A, B and C.\n", dev.name);
        baseline_release();
        timer_release();
    } else if (dev.ok) {
        printf("no cuBLAS row: %s is not a GPU and gives no GPU time\n", dev.name);
    } else {
        printf("no cuBLAS row: %s\n", dev.why);
    }
    if (!baseline_cpu_name())
        printf("no OpenBLAS row: the build did not find OpenBLAS (apt-get install "
               "libopenblas-dev, then rebuild)\n");

    free(A);
    free(B);
    free(C);
    free(want);
    return bench_end(&t);
}
