/**
 * @file warp_level_main.c
 * @brief Lesson 05's benchmark: gemv_warp against cublasSgemv and the copy bandwidth,
 *        matmul_warptile against cuBLAS SGEMM.
 *
 *   ./course bench 05 [--size=4096] [--m=M --n=N --k=K] [--reps=10] [--flush-l2] [--csv=FILE]
 *   ./course profile 05 [--csv=FILE]     (on the CPU emulator: counters instead of times)
 *
 * The GEMV is y = A x with A M x K: it reads 4 (M K + K + M) bytes and does
 * 2 M K FLOPs, so it is memory-bound and measured in GB/s against a copy of
 * the same footprint. Both it and the GEMM run on small-integer inputs and
 * must equal cuBLAS's results exactly.
 */
#include "warp_level.h"

#include <stdlib.h>

#include "baseline.h"
#include "bench.h"
#include "cuda_check.h"
#include "mat.h"
#include "timer.h"

static const char *const PROG = "05_warp_level";

typedef void (*gemv_fn)(int M, int K, const float *d_A, const float *d_x, float *d_y);

struct gemv_call {
    gemv_fn fn;
    int M, K;
    const float *d_A, *d_x;
    float *d_y;
};

static void run_gemv(void *arg)
{
    struct gemv_call *c = arg;
    c->fn(c->M, c->K, c->d_A, c->d_x, c->d_y);
}

/* Run cublasSgemv and gemv_warp at M x K, check gemv_warp against it, and report a row each
 * (timed on a GPU, with the copy ceiling; counted on the emulator). Returns 0, 1 (gemv_warp
 * was wrong) or 2 (too big). */
static int bench_gemv(struct bench_table *t, int M, int K)
{
    size_t na = (size_t)M * K;
    double bytes = 4.0 * ((double)na + K + M), flops = 2.0 * na;
    if (!device_fits(PROG, (na + K + M) * sizeof(float)))
        return 2;
    float *h_A = mat_alloc_f32(na), *h_x = mat_alloc_f32(K);
    float *h_want = mat_alloc_f32(M), *h_got = mat_alloc_f32(M);
    mat_fill_int(h_A, na, (uint64_t)t->opt->seed);
    mat_fill_int(h_x, K, (uint64_t)t->opt->seed + 1);
    float *d_A, *d_x;
    struct gemv_call call = {baseline_sgemv, M, K, NULL, NULL, NULL};
    CUDA_CHECK(cudaMalloc((void **)&d_A, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_x, K * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&call.d_y, M * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_A, h_A, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_x, h_x, K * sizeof(float), cudaMemcpyHostToDevice));
    call.d_A = d_A;
    call.d_x = d_x;

    /* The ceiling: a copy that reads and writes the same number of bytes in all. */
    double peak = t->counting ? 0 : device_copy_bandwidth_gbs((size_t)(bytes / 2), t->opt->reps);
    bench_run(t, run_gemv, &call);
    CUDA_CHECK(cudaMemcpy(h_want, call.d_y, M * sizeof(float), cudaMemcpyDeviceToHost));
    struct bench_row base = {.version = "cublas_sgemv",
                             .flops = flops,
                             .bytes = bytes,
                             .base_ms = BENCH_SELF,
                             .peak_gbs = peak,
                             .check = "(reference)",
                             .ok = 1,
                             .library = 1};
    double base_ms = bench_report(t, &base, run_gemv, &call);

    call.fn = gemv_warp;
    mat_poison_device(call.d_y, M * sizeof(float));
    bench_run(t, run_gemv, &call);
    CUDA_CHECK(cudaMemcpy(h_got, call.d_y, M * sizeof(float), cudaMemcpyDeviceToHost));
    struct mat_cmp cmp = mat_compare(h_got, h_want, M, 1, 0, 0);
    char check[160];
    mat_cmp_describe(&cmp, check, sizeof check);
    struct bench_row row = {.version = "gemv_warp",
                            .flops = flops,
                            .bytes = bytes,
                            .base_ms = base_ms,
                            .peak_gbs = peak,
                            .check = check,
                            .ok = cmp.n_bad == 0};
    bench_report(t, &row, run_gemv, &call);
    if (!t->counting)
        printf("%-24s %10s %10s %9.1f  (device-to-device cudaMemcpy, the ceiling)\n",
               "copy bandwidth", "", "", peak);

    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(call.d_y));
    free(h_A);
    free(h_x);
    free(h_want);
    free(h_got);
    return cmp.n_bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    cli_bench_defaults(&o, 4096, 10);
    struct device_info dev;

    int status = bench_setup(argc, argv, PROG,
                             "Lesson 05: gemv_warp (M x K) against cublasSgemv and "
                             "the copy bandwidth; matmul_warptile against cuBLAS.",
                             &o, NULL, &dev);
    if (status >= 0)
        return status;
    struct bench_table t;
    if (bench_begin(&t, PROG, "cuBLAS (cublas_sgemv, cublas_sgemm)", &o, &dev))
        return 2;
    int rc = bench_gemv(&t, o.m, o.k);
    const struct bench_sgemm versions[] = {
        {"matmul_warptile", matmul_warptile},
    };
    if (rc != 2) {
        int gemm = bench_sgemm_table(&t, versions, 1);
        rc = gemm ? gemm : rc;
    }
    bench_end(&t);
    baseline_release();
    timer_release();
    return rc;
}
