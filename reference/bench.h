/**
 * @file bench.h
 * @brief The benchmark table every driver prints, and the SGEMM ladder runner.
 *
 * On a GPU, one fixed-width row per version: median ms, FLOP rate, bandwidth,
 * percent of the baseline (cuBLAS, timed in the same run) and of the measured
 * bandwidth ceiling, and the check result. The header names the device, sizes
 * and repetitions. With --csv the same rows are appended to a file.
 *
 * On the CPU emulator (device_info::emulated) there are no times to show: each
 * version runs once, is checked the same way, and its row shows what the
 * emulator counted in the PTX it ran (emulator/README.md), one row per kernel:
 * warp instructions, the fraction of active lanes, 32-byte sectors per global
 * load and store request, shared-memory wavefronts per load and store request
 * (1 is conflict-free for 32-bit accesses, 2 for 64-bit, 4 for 128-bit),
 * unique global bytes, flops per unique byte, barriers and divergent
 * branches. Library calls (cuBLAS) run on the host and are not counted. The
 * CSV file then has one row per kernel with these columns:
 *
 *     lesson,device,version,kernel,launches,grid,block,m,n,k,
 *     warp_insts,thread_insts,fma32,fp,int,ldg,stg,lds,sts,tensor,control,other,
 *     gld_requests,gld_sectors,gst_requests,gst_sectors,lds_requests,lds_wavefronts,
 *     sts_requests,sts_wavefronts,unique_read_bytes,unique_write_bytes,barriers,branches,
 *     divergent_branches,flops,gatom_lanes,satom_lanes,gatom_same_addr,satom_same_addr,
 *     gatom_addrs,tensor_flops,lds_conflicts,sts_conflicts,overlapped_flops,intensity,check
 *
 * where the counters are summed over the kernel's launches and named as the
 * device server's observer names them (emulator/server/server.c), grid and block are
 * XxYxZ (the first launch's), intensity is flops per unique byte (read and
 * written), check is ok or FAIL, and the gatom_ and satom_ columns count atomics on global and
 * shared memory: lanes, lanes that update an address an earlier lane of the same instruction
 * updates (they serialise), and distinct global addresses updated; tensor_flops are the Tensor
 * Cores' (mma.sync, wmma.mma), the _conflicts columns the shared wavefronts beyond what each
 * request's lanes need (bank conflicts), overlapped_flops the tensor flops issued while the warp
 * had cp.async copies in flight.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "device.h"
#include "timer.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The default M, N and K on the CPU emulator: above 256, a multiple of 16 but of no 32 or 128
 *  tile, and small enough that every lesson's table takes seconds. */
#define BENCH_EMU_SIZE 400
/** The default vector length on the CPU emulator (lesson 02's vector_add): a prime past 10^6. */
#define BENCH_EMU_LEN 1000003

struct course_emu_launch;
struct vm_counters;

/** A table being printed. */
struct bench_table {
    const char *lesson;                 /**< e.g. "02_threads_blocks_grids" */
    const struct cli_bench *opt;        /**< sizes, repetitions, CSV path */
    const struct device_info *dev;      /**< the GPU, or NULL for a CPU-only table */
    FILE *csv;                          /**< open CSV file, or NULL */
    int failures;                       /**< rows whose check failed */
    int counting;                       /**< 1: the CPU emulator: rows show counters, not times */
    struct course_emu_launch *launches; /**< counted by the last bench_run() */
    int nlaunches;                      /**< how many */
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
    int library;         /**< 1: a library call (cuBLAS), which the emulator does not count */
};

/** base_ms of the baseline's own row: 100% of itself. */
#define BENCH_SELF (-1.0)

/**
 * The start of every GPU driver: parse the benchmark options (and @p extra,
 * which may be NULL) into @p opt, then query the GPU into @p dev. On the CPU
 * emulator, sizes the command line does not give are BENCH_EMU_SIZE instead of
 * the driver's defaults. Returns -1 to go on; otherwise the exit status to
 * return at once: 0 after --help, 2 after bad input, 1 without a GPU (after one
 * line on stderr saying why).
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

/**
 * Run @p fn(@p arg) once and wait for the device. On the CPU emulator, count
 * its kernel launches for the next bench_report(). The result is checked
 * after this run, before anything is timed.
 */
void bench_run(struct bench_table *t, void (*fn)(void *), void *arg);

/**
 * Report @p r, whose check is done, for the work @p fn(@p arg) last run by
 * bench_run(). On a GPU: time it as the options say (warm-up runs, the median
 * of the samples, L2 flushed when asked) into r->ms, then print the row. On the
 * CPU emulator: a row per kernel with the counters bench_run() took (a library
 * row says it is not counted). Returns r->ms, 0 on the emulator.
 */
double bench_report(struct bench_table *t, struct bench_row *r, void (*fn)(void *), void *arg);

/** A GEMM's row of a table (C = A B, C an M x N fp32 matrix on the device). */
struct bench_gemm {
    const char *version; /**< the launcher's name */
    int M;               /**< rows of A and C */
    int N;               /**< columns of B and C */
    int K;               /**< columns of A, rows of B */
    double in_bytes;     /**< bytes per element of A and B */
    float *d_C;          /**< the result on the device */
    double base_ms;      /**< the baseline's median, or 0: the row is its own base */
    int library;         /**< 1: a library call (cuBLAS), which the emulator does not count */
};

/**
 * Run @p fn(@p arg), the GEMM @p g, once into a poisoned C and compare C with @p want exactly
 * (with want NULL, C is copied to @p got as the reference), then report its row (bench_report()).
 * Returns its median ms, 0 on the emulator.
 */
double bench_gemm(struct bench_table *t, const struct bench_gemm *g, void (*fn)(void *), void *arg,
                  const float *want, float *got);

/**
 * A GEMM problem with 16-bit inputs (lessons 08, 10 and 12): A (M x K) and B (K x N) as small
 * integers on the host, exact in fp16 and bfloat16 (mat_fill_int()), so every product must equal
 * the reference exactly; the reference and each result C; A and B in 16 bits and C in fp32 on
 * the device.
 */
struct bench_gemm16 {
    int M;         /**< rows of A and C */
    int N;         /**< columns of B and C */
    int K;         /**< columns of A, rows of B */
    float *A;      /**< A, M x K, as floats */
    float *B;      /**< B, K x N, as floats */
    float *want;   /**< the reference C */
    float *got;    /**< the last row's C */
    uint16_t *h16; /**< room for A or B in 16 bits, on the host */
    uint16_t *d_A; /**< A in 16 bits on the device (bench_gemm16_upload()) */
    uint16_t *d_B; /**< B in 16 bits on the device (bench_gemm16_upload()) */
    float *d_C;    /**< C on the device */
};

/** @p p for the sizes and seed of @p o: the inputs filled, the device buffers allocated. */
void bench_gemm16_new(struct bench_gemm16 *p, const struct cli_bench *o);

/** A and B into d_A and d_B as bfloat16 (@p bf16 1) or fp16 (0). */
void bench_gemm16_upload(struct bench_gemm16 *p, int bf16);

/** Free what bench_gemm16_new() allocated. */
void bench_gemm16_free(struct bench_gemm16 *p);

/**
 * One row of @p p's GEMM (bench_gemm() with p's sizes, 16-bit inputs and C in p->d_C): @p fn(@p
 * arg) as row @p name against @p base_ms (0: the row is its own base); @p library 1 for a cuBLAS
 * call. A @p reference row's C becomes p->want; any other row's C is compared with p->want.
 */
double bench_gemm16_row(struct bench_table *t, struct bench_gemm16 *p, const char *name,
                        double base_ms, int library, int reference, void (*fn)(void *), void *arg);

/** Close the table. Returns 0 when every checked row was right, else 1. */
int bench_end(struct bench_table *t);

/** Add the emulator's counters @p c (emulator/include/emu_counts.h) into @p sum, field by field. */
void bench_add_counters(struct vm_counters *sum, const struct vm_counters *c);

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
 * Run cuBLAS SGEMM and each of @p versions on the same M x K and K x N
 * small-integer inputs (mat_fill_int()), so every version's C must equal
 * cuBLAS's exactly; then time each (or, on the emulator, count its kernels) and
 * print its rows (bench_report()). Returns 0, 1 when a check failed, or 2 after
 * a one-line error when the matrices do not fit in GPU memory.
 */
int bench_sgemm_table(struct bench_table *t, const struct bench_sgemm *versions, int count);

#ifdef __cplusplus
}
#endif

#endif /* BENCH_H */
