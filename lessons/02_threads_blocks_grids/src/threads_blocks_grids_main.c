/**
 * @file threads_blocks_grids_main.c
 * @brief Lesson 02's benchmark: vector_add against the copy bandwidth, the matmuls against cuBLAS.
 *
 *   ./course bench 02 [--size=4096] [--len=67108864] [--reps=10] [--flush-l2] [--csv=FILE]
 *   ./course profile 02 [--csv=FILE]     (on the CPU emulator: counters instead of times)
 *
 * vector_add moves 12 bytes per element (two loads, one store), and is
 * compared with a device-to-device copy of the same footprint; the matmuls
 * run on small-integer inputs and must equal cuBLAS's result exactly.
 */
#include "threads_blocks_grids.h"

#include <stdlib.h>

#include "bench.h"
#include "cuda_check.h"
#include "mat.h"
#include "timer.h"

static const char *const PROG = "02_threads_blocks_grids";

struct vec_call {
    const float *d_a, *d_b;
    float *d_c;
    int n;
};

static void run_vector_add(void *arg)
{
    struct vec_call *v = arg;
    vector_add(v->d_a, v->d_b, v->d_c, v->n);
}

/* Run vector_add on @p n elements, check it, and report its row (timed on a GPU, with the copy
 * ceiling; counted on the emulator). Returns 0, 1 (wrong) or 2 (too big). */
static int bench_vector_add(struct bench_table *t, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    if (!device_fits(PROG, 3 * bytes))
        return 2;
    float *h_a = mat_alloc_f32(n), *h_b = mat_alloc_f32(n), *h_c = mat_alloc_f32(n);
    mat_fill_int(h_a, n, (uint64_t)t->opt->seed);
    mat_fill_int(h_b, n, (uint64_t)t->opt->seed + 1);
    struct vec_call v = {NULL, NULL, NULL, n};
    float *d_a, *d_b;
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&v.d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
    v.d_a = d_a;
    v.d_b = d_b;

    mat_poison_device(v.d_c, bytes);
    bench_run(t, run_vector_add, &v);
    CUDA_CHECK(cudaMemcpy(h_c, v.d_c, bytes, cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (int i = 0; i < n; i++)
        bad += !(h_c[i] == h_a[i] + h_b[i]);
    char check[64];
    snprintf(check, sizeof check, bad ? "%lld of %d wrong" : "ok", bad, n);

    /* The ceiling: a copy moving the same 12 bytes per element (6 read + 6 written). */
    double peak = t->counting ? 0 : device_copy_bandwidth_gbs(bytes * 3 / 2, t->opt->reps);
    struct bench_row row = {.version = "vector_add",
                            .bytes = 3.0 * bytes,
                            .peak_gbs = peak,
                            .check = check,
                            .ok = bad == 0};
    bench_report(t, &row, run_vector_add, &v);
    if (!t->counting)
        printf("%-24s %10s %10s %9.1f  (device-to-device cudaMemcpy, the ceiling)\n",
               "copy bandwidth", "", "", peak);

    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(v.d_c));
    free(h_a);
    free(h_b);
    free(h_c);
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    int len = device_emulated() ? BENCH_EMU_LEN : 1 << 26; /* a GPU's, or seconds on the CPU */
    cli_bench_defaults(&o, 4096, 10);
    const struct cli_opt extra[] = {
        {"len", CLI_INT, &len, 1, 1 << 30, "elements of each vector_add vector"},
        {NULL, CLI_INT, NULL, 0, 0, NULL},
    };
    struct device_info dev;

    int status = bench_setup(argc, argv, PROG,
                             "Lesson 02: vector_add against the copy bandwidth; "
                             "naive and coalesced matmul against cuBLAS SGEMM.",
                             &o, extra, &dev);
    if (status >= 0)
        return status;
    struct bench_table t;
    if (bench_begin(&t, PROG, "cublas_sgemm", &o, &dev))
        return 2;
    int rc = bench_vector_add(&t, len);
    const struct bench_sgemm versions[] = {
        {"matmul_naive", matmul_naive},
        {"matmul_coalesced", matmul_coalesced},
    };
    if (rc != 2) {
        int gemm = bench_sgemm_table(&t, versions, 2);
        rc = gemm ? gemm : rc;
    }
    bench_end(&t);
    timer_release();
    return rc;
}
