/**
 * @file course_test.h
 * @brief The harness every lesson's Check suite runs under.
 *
 * A suite is a table of cases. Each case becomes its own CTest test
 * (`NN.solution.name`, `NN.exercise.name`), so a crash or a hang fails that
 * case alone. The test binary answers:
 *   --list         one line per case: name, labels, timeout (read by CMake)
 *   --case NAME    run one case under Check (forked, with its timeout)
 *   (nothing)      run every case
 * GPU cases first probe for a device in a child process, so CUDA is never
 * initialised in Check's parent (it does not survive fork()). Without a
 * device they print one line saying why and exit 77, which CTest reports as
 * Skipped; so do CASE_SM80 cases on a GPU older than sm_80, CASE_SM90A cases on a GPU that
 * is not sm_90, and CASE_PERF cases
 * on an emulated device (timing needs a GPU). COURSE_NO_GPU=1 forces the
 * no-device path.
 *
 * A lesson suite is a judge (course_judge.h): the lesson's code runs in a
 * runner process, never in this one.
 */
#ifndef COURSE_TEST_H
#define COURSE_TEST_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "bench.h"
#include "mat.h"

/** Case flags. */
enum course_case_flags {
    CASE_CPU = 0,   /**< runs anywhere */
    CASE_GPU = 1,   /**< needs a CUDA device; skipped (exit 77) without one */
    CASE_PERF = 2,  /**< a performance ratio measured in one run (label perf) */
    CASE_SM80 = 4,  /**< needs compute capability 8.0 or newer (bf16, TF32); skipped below */
    CASE_SM90A = 8, /**< needs compute capability 9.0 exactly (sm_90a code: wgmma, TMA, which
                         run on Hopper alone); skipped on every other GPU, run on the emulator */
};

/** One test case. */
struct course_case {
    const char *name;  /**< CTest name suffix; also the Check test name */
    const TTest *test; /**< the START_TEST function */
    unsigned flags;    /**< course_case_flags */
    int timeout_s;     /**< Check kills the case after this many seconds */
};

/** The exit status CTest reads as Skipped. */
#define COURSE_SKIP 77

/**
 * The built artefacts of the lesson side under test, for the structure
 * checks the harness adds to every lesson suite: "no_cublas_calls" (the
 * library calls neither cuBLAS, the baselines nor the CPU references; a lesson's code is its
 * own) and, on the solution side, "no_register_spills" (ptxas -v for every
 * architecture in the report shows no spill stores or loads).
 */
struct course_lesson {
    const char *lib;    /**< the lesson library (static archive), or NULL */
    const char *runner; /**< the runner built with it (runner_NN_<side>), or NULL */
    const char *ptxas;  /**< the ptxas -v report, or NULL for a lesson without kernels */
    int solution;       /**< 1 on the solution side */
};

#ifndef LESSON_LIB
/** Path of the lesson library under test (CMake defines it; NULL outside a lesson). */
#define LESSON_LIB NULL
#endif
#ifndef LESSON_PTXAS
/** Path of the lesson's ptxas -v report (CMake defines it for lessons with kernels). */
#define LESSON_PTXAS NULL
#endif
#ifndef LESSON_RUNNER
/** Path of the runner of the lesson side under test (CMake defines it; NULL outside a lesson). */
#define LESSON_RUNNER NULL
#endif
#ifndef LESSON_SIDE
/** "solution" or "exercise": the side of the lesson this binary tests. */
#define LESSON_SIDE "solution"
#endif
/** The course_lesson of the binary being compiled (CMake defines the LESSON_ macros). */
#define COURSE_LESSON                                                                              \
    ((struct course_lesson){LESSON_LIB, LESSON_RUNNER, LESSON_PTXAS, LESSON_SIDE[0] == 's'})

/** Run the suite as the command line says (see the file comment). */
int course_test_main(int argc, char **argv, struct course_lesson lesson,
                     const struct course_case *cases, size_t count);

/** How many undefined symbols of the archive @p lib start with @p prefix (nm -u), or -1. */
int course_undefined_symbols(const char *lib, const char *prefix);

/**
 * How many names of the CUDA runtime, driver or libraries (cudaX, __cudaX, cuX, cublas..., nccl...)
 * the archive @p lib defines (nm -g --defined-only), the first into @p first; -1 when nm fails.
 * A lesson's code that defines them would replace the runtime the grader itself calls.
 */
int course_runtime_symbols(const char *lib, char *first, size_t size);

/**
 * The M, N, K triples every GEMM kernel is checked at: 1, 31, 32, 33, primes, odd sizes above
 * 256 in every dimension, and last the odd 1000+ class (course_gemm_edge_count() leaves it out
 * on the emulator).
 */
extern const int course_gemm_shapes[][3];
/** How many triples course_gemm_shapes holds. */
extern const size_t course_gemm_shape_count;
/** 1 when the GPU cases run on the emulator (the device probe says so; set before a case). */
extern int course_emulated;

/** 1 in a CASE_PERF case: its COURSE_GPU runners run on the GPU; every other case's run on
 *  the observed emulator, GPU or not (course_judge.h). Set by the harness. */
extern int course_case_timed;

/**
 * Run the SGEMM launcher @p fn in this process once on small-integer inputs of
 * the given sizes into a poisoned C, each matrix @p offset floats past the start
 * of its allocation, and compare with ref_matmul_f64() exactly. For suites that
 * grade no student code (the reference library's); lesson suites use
 * course_remote_sgemm() (course_judge.h).
 */
struct mat_cmp course_check_sgemm_offset(bench_sgemm_fn fn, int M, int N, int K, uint64_t seed,
                                         int offset);

/**
 * Check @p fn with course_check_sgemm_offset() at each of the @p count shapes
 * {M, N, K} (seeds from @p seed on); a Check assertion names @p name, the
 * shape and the first bad element of the first shape that fails.
 */
void course_assert_sgemm_shapes(bench_sgemm_fn fn, const char *name, const int (*shapes)[3],
                                size_t count, uint64_t seed, int offset);

/** course_assert_sgemm_shapes() at every shape of course_gemm_shapes, aligned. */
void course_assert_sgemm_edges(bench_sgemm_fn fn, const char *name, uint64_t seed);

/** Median milliseconds of @p fn at M x N x K (5 samples after 2 warm-ups). */
double course_time_sgemm(bench_sgemm_fn fn, int M, int N, int K);

/** The whole text file at @p path (malloc'd, NUL-terminated), or NULL. */
char *course_read_file(const char *path);

/**
 * The body of the PTX entry whose name contains @p kernel (from ".entry" to
 * its closing brace), malloc'd, or NULL when there is none.
 */
char *course_ptx_entry(const char *ptx, const char *kernel);

/** How many times @p needle occurs in @p text. */
int course_count(const char *text, const char *needle);

/**
 * The largest "N bytes spill stores" or "N bytes spill loads" that `ptxas -v`
 * reported in @p log for @p arch (e.g. "sm_90"); -1 when no function was
 * compiled for that architecture.
 */
int course_ptxas_max_spill(const char *log, const char *arch);

#endif /* COURSE_TEST_H */
