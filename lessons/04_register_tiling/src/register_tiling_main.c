/**
 * @file register_tiling_main.c
 * @brief Lesson 04's benchmark: the register-tiled matmuls against cuBLAS SGEMM.
 *
 *   ./course bench 04 [--size=4096] [--m=M --n=N --k=K] [--reps=10] [--flush-l2] [--csv=FILE]
 *   ./course profile 04 [--csv=FILE]     (on the CPU emulator: counters instead of times)
 *
 * Every version runs on small-integer inputs and must equal cuBLAS's result
 * exactly. Try odd sizes (--size=4097) to see what the edge paths cost.
 */
#include "register_tiling.h"

#include "bench.h"
#include "timer.h"

static const char *const PROG = "04_register_tiling";

int main(int argc, char **argv)
{
    struct cli_bench o;
    cli_bench_defaults(&o, 4096, 10);
    struct device_info dev;
    int status = bench_setup(
        argc, argv, PROG,
        "Lesson 04: matmul_1d_tile, matmul_2d_tile and matmul_vectorized against cuBLAS SGEMM.", &o,
        NULL, &dev);
    if (status >= 0)
        return status;
    struct bench_table t;
    if (bench_begin(&t, PROG, "cublas_sgemm", &o, &dev))
        return 2;
    const struct bench_sgemm versions[] = {
        {"matmul_1d_tile", matmul_1d_tile},
        {"matmul_2d_tile", matmul_2d_tile},
        {"matmul_vectorized", matmul_vectorized},
    };
    int rc = bench_sgemm_table(&t, versions, 3);
    bench_end(&t);
    timer_release();
    return rc;
}
