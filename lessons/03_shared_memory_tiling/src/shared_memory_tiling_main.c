/**
 * @file shared_memory_tiling_main.c
 * @brief Lesson 03's benchmark: matmul_tiled against cuBLAS, the transposes against a copy.
 *
 *   ./course bench 03 [--size=4096] [--m=M --n=N --k=K] [--reps=10] [--flush-l2] [--csv=FILE]
 *   ./course profile 03 [--csv=FILE]     (on the CPU emulator: counters instead of times)
 *
 * matmul_tiled runs on small-integer inputs and must equal cuBLAS's result
 * exactly. The transposes read and write M x N floats each (8 bytes per
 * element) and are compared with a device-to-device copy of the same matrix:
 * the padded tile should come close to it, the unpadded one should not.
 */
#include "shared_memory_tiling.h"

#include <stdlib.h>

#include "bench.h"
#include "cuda_check.h"
#include "mat.h"
#include "timer.h"

static const char *const PROG = "03_shared_memory_tiling";

typedef void (*transpose_fn)(int M, int N, const float *d_in, float *d_out);

struct transpose_call {
    transpose_fn fn;
    int M, N;
    const float *d_in;
    float *d_out;
};

static void run_transpose(void *arg)
{
    struct transpose_call *c = arg;
    c->fn(c->M, c->N, c->d_in, c->d_out);
}

/* Run both transposes of an M x N matrix, check them, and report a row each (timed on a GPU,
 * with the copy ceiling; counted on the emulator). Returns 0, 1 (a result was wrong) or 2
 * (too big). */
static int bench_transposes(struct bench_table *t, int M, int N)
{
    size_t count = (size_t)M * N, bytes = count * sizeof(float);
    if (!device_fits(PROG, 2 * bytes))
        return 2;
    float *h_in = mat_alloc_f32(count), *h_out = mat_alloc_f32(count);
    mat_fill_int(h_in, count, (uint64_t)t->opt->seed);
    float *d_in;
    struct transpose_call call = {NULL, M, N, NULL, NULL};
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&call.d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    call.d_in = d_in;

    /* The ceiling: copying the matrix also reads and writes every element once. */
    double peak = t->counting ? 0 : device_copy_bandwidth_gbs(bytes, t->opt->reps);
    const struct {
        const char *name;
        transpose_fn fn;
    } versions[] = {{"transpose_shared", transpose_shared},
                    {"transpose_shared_padded", transpose_shared_padded}};
    int rc = 0;
    for (int v = 0; v < 2; v++) {
        call.fn = versions[v].fn;
        mat_poison_device(call.d_out, bytes);
        bench_run(t, run_transpose, &call);
        CUDA_CHECK(cudaMemcpy(h_out, call.d_out, bytes, cudaMemcpyDeviceToHost));
        long long bad = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                bad += !(h_out[(size_t)j * M + i] == h_in[(size_t)i * N + j]);
        char check[64];
        snprintf(check, sizeof check, bad ? "%lld of %zu wrong" : "ok", bad, count);
        struct bench_row row = {.version = versions[v].name,
                                .bytes = 2.0 * bytes,
                                .peak_gbs = peak,
                                .check = check,
                                .ok = bad == 0};
        bench_report(t, &row, run_transpose, &call);
        rc |= bad != 0;
    }
    if (!t->counting)
        printf("%-24s %10s %10s %9.1f  (device-to-device cudaMemcpy, the ceiling)\n",
               "copy bandwidth", "", "", peak);

    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(call.d_out));
    free(h_in);
    free(h_out);
    return rc;
}

int main(int argc, char **argv)
{
    struct cli_bench o;
    cli_bench_defaults(&o, 4096, 10);
    struct device_info dev;

    int status = bench_setup(argc, argv, PROG,
                             "Lesson 03: matmul_tiled against cuBLAS SGEMM; "
                             "transpose_shared(_padded) of M x N against a copy.",
                             &o, NULL, &dev);
    if (status >= 0)
        return status;
    struct bench_table t;
    if (bench_begin(&t, PROG, "cublas_sgemm", &o, &dev))
        return 2;
    const struct bench_sgemm versions[] = {
        {"matmul_tiled", matmul_tiled},
    };
    int rc = bench_sgemm_table(&t, versions, 1);
    if (rc != 2) {
        int tr = bench_transposes(&t, o.m, o.n);
        rc = tr ? tr : rc;
    }
    bench_end(&t);
    timer_release();
    return rc;
}
