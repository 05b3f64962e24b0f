/**
 * @file bench.h
 * @brief The benchmark table every driver prints, and the SGEMM ladder runner.
 *
 * One fixed-width row per version: median ms, FLOP rate, bandwidth, percent
 * of the baseline (cuBLAS, timed in the same run) and of the measured
 * bandwidth ceiling, and the check result. The header names the device,
 * sizes and repetitions. With --csv the same rows are appended to a file.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdio.h>

#include "cli.h"
#include "device.h"
#include "timer.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A table being printed. */
struct bench_table {
    const char *lesson;            /**< e.g. "02_threads_blocks_grids" */
    const struct cli_bench *opt;   /**< sizes, repetitions, CSV path */
    const struct device_info *dev; /**< the GPU, or NULL for a CPU-only table */
    FILE *csv;                     /**< open CSV file, or NULL */
    int failures;                  /**< rows whose check failed */
};

/** One row. Zero in a number means "not applicable" and prints as "-". */
struct bench_row {
    const char *version; /**< the launcher's name */
    double ms;           /**< median time of one call */
    double flops;        /**< floating-point operations per call */
    double bytes;        /**< bytes read plus written per call */
    double base_ms;      /**< the baseline's median for the same work */
    double peak_gbs;     /**< the measured bandwidth ceiling, GB/s */
    const char *check;   /**< "ok", a failure description, or "-" when not checked */
    int ok;              /**< 0 when the check failed */
};

/**
 * The start of every GPU driver: parse the benchmark options (and @p extra,
 * which may be NULL) into @p opt, then query the GPU into @p dev. Returns -1
 * to go on; otherwise the exit status to return at once: 0 after --help, 2
 * after bad input, 1 without a GPU (after one line on stderr saying why).
 */
int bench_setup(int argc, char **argv, const char *prog, const char *about, struct cli_bench *opt,
                const struct cli_opt *extra, struct device_info *dev);

/**
 * Print the header and open the CSV file (appending; a header line is
 * written when the file is empty). @p base names the version that the
 * "% base" column is measured against (cuBLAS in the GPU lessons). Returns 0, or 2 after a one-line
 * error when the CSV file cannot be opened.
 */
int bench_begin(struct bench_table *t, const char *lesson, const char *base,
                const struct cli_bench *opt, const struct device_info *dev);

/** Print @p r (and append it to the CSV file). */
void bench_row(struct bench_table *t, const struct bench_row *r);

/** Close the table. Returns 0 when every checked row was right, else 1. */
int bench_end(struct bench_table *t);

/**
 * A row-major SGEMM: C = A * B, A M x K, B K x N (device pointers for the GPU
 * launchers, host pointers for lesson 01's CPU versions).
 */
typedef void (*bench_sgemm_fn)(int M, int N, int K, const float *d_A, const float *d_B, float *d_C);

/** A named SGEMM version. */
struct bench_sgemm {
    const char *name;  /**< printed in the table */
    bench_sgemm_fn fn; /**< the launcher */
};

/**
 * Median milliseconds of fn(M, N, K, A, B, C) timed as @p opts says: GPU work
 * on device pointers with CUDA events, or (opts->gpu = 0) a CPU matmul of the
 * same signature on host pointers with the host clock.
 */
double bench_time_sgemm(bench_sgemm_fn fn, int M, int N, int K, const float *A, const float *B,
                        float *C, const struct timer_opts *opts);

/**
 * Time cuBLAS SGEMM and each of @p versions on the same M x K and K x N
 * small-integer inputs (mat_fill_int()), so every version's C must equal
 * cuBLAS's exactly; print a row each. Returns 0, 1 when a check failed, or 2
 * after a one-line error when the matrices do not fit in GPU memory.
 */
int bench_sgemm_table(struct bench_table *t, const struct bench_sgemm *versions, int count);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_H */
