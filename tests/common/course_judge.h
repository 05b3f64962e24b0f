/**
 * @file course_judge.h
 * @brief The judge's side of a lesson suite: the student's code runs elsewhere.
 *
 * A lesson's Check binary (the judge) never links the lesson library. It starts a runner
 * (course_runner.c, built per lesson side with the library in it), creates buffers there,
 * calls the student's functions by name, reads the outputs back, and compares them with
 * references it computes itself. A runner that crashes, hangs, exits or answers garbage
 * fails the case with one line: the emulator's fault lines first and whole, then what
 * happened and the tail of its output.
 *
 * A COURSE_OBSERVED runner runs on the CPU emulator, GPU or not, through a device server the
 * judge starts and whose observer only the judge reads: every launch's exact counters
 * (course_launches(), course_observed()), for the metric cases that grade what a lesson
 * teaches on any machine, and the device memory's provenance record, with which every call
 * is judged for what the device did (course_call()). Every GPU case but a timing one runs
 * its runners so, on every machine: the grade is the same with a GPU and without, and a
 * submission cannot tell a metric case from any other.
 *
 * Under `./course grade` run as root, runners and student programs run sandboxed
 * (course_sandbox.h). On the observed device the runner never holds device memory: the judge
 * makes the device memory itself (a memfd it hands the device server), writes its buffers
 * there and reads the outputs back there, and the server moves every byte the runner's host
 * code copies, which it records (emulator/server.c).
 */
#ifndef COURSE_JUDGE_H
#define COURSE_JUDGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "course_proto.h"
#include "emu.h"
#include "mat.h"

/** Which device a runner's CUDA calls reach. */
enum course_device {
    COURSE_CPU,      /**< CPU code only: the runner never touches CUDA */
    COURSE_GPU,      /**< a timing case: the GPU where one answers; else COURSE_OBSERVED */
    COURSE_EMULATED, /**< the emulator (build/emulator/lib), even where a GPU answers */
    COURSE_OBSERVED, /**< the emulator, on a device server only the judge hears (metric cases) */
};

/** A running runner. */
struct course_runner;

/** Start this lesson side's runner on @p dev; a failure to start fails the case. */
struct course_runner *course_runner_start(enum course_device dev);

/** Ask the runner to quit, reap it and its process group, and free @p r. */
void course_runner_stop(struct course_runner *r);

/**
 * A new input buffer in the runner holding @p bytes from @p data, @p offset bytes past an
 * aligned address, with NaN guards around it. Returns its id.
 */
int course_buf_in(struct course_runner *r, enum proto_mem mem, const void *data, size_t bytes,
                  size_t offset);

/** An input buffer of @p count floats filled in the runner by mat_fill_int(@p seed). */
int course_buf_ints(struct course_runner *r, enum proto_mem mem, size_t count, uint64_t seed,
                    size_t offset);

/** A buffer the code both reads and writes: @p data, with COURSE_GUARD_OUT guards around it. */
int course_buf_inout(struct course_runner *r, enum proto_mem mem, const void *data, size_t bytes,
                     size_t offset);

/** A new output buffer of @p bytes, NaN-poisoned, with COURSE_GUARD_OUT guards around it. */
int course_buf_out(struct course_runner *r, enum proto_mem mem, size_t bytes, size_t offset);

/** Store the address of buffer @p target (+ @p off bytes) at byte @p at of buffer @p buf. */
void course_buf_reloc(struct course_runner *r, int buf, size_t at, int target, size_t off);

/**
 * Read buffer @p id back (malloc'd, its data bytes only). For an output buffer, first assert
 * that every guard byte is untouched, naming @p what (give the shape: "vector_add at n=1000")
 * and the index of the first stray write, after any fault line the emulator printed; on an
 * observed runner, that every byte of it was written by a kernel or left as the judge made it
 * (the comparison finds those), none by the host, a fill or a library, or changed behind the
 * device's back.
 */
void *course_buf_read(struct course_runner *r, int id, const char *what);

/**
 * @p bytes of the runner's memory at @p addr (malloc'd): memory the student's code allocated
 * and pointed to from a buffer (a struct it filled). A bad address fails the case.
 */
void *course_peek(struct course_runner *r, uint64_t addr, size_t bytes, const char *what);

/** The address of buffer @p id's data in the runner: what the stream record's ranges name
 *  (course_streams.h). */
uint64_t course_buf_address(struct course_runner *r, int id);

/** Free buffer @p id in the runner. */
void course_buf_free(struct course_runner *r, int id);

/** An int argument. */
#define COURSE_I32(x) ((struct proto_arg){PROTO_I32, 0, 0, (int64_t)(x), 0})
/** A long, long long or size_t argument. */
#define COURSE_I64(x) ((struct proto_arg){PROTO_I64, 0, 0, (int64_t)(x), 0})
/** A uint16_t argument. */
#define COURSE_U16(x) ((struct proto_arg){PROTO_U16, 0, 0, (int64_t)(x), 0})
/** A float argument. */
#define COURSE_F32(x) ((struct proto_arg){PROTO_F32, 0, 0, 0, (double)(x)})
/** A double argument. */
#define COURSE_F64(x) ((struct proto_arg){PROTO_F64, 0, 0, 0, (double)(x)})
/** A pointer to buffer @p b's data. */
#define COURSE_PTR(b) ((struct proto_arg){PROTO_PTR, (uint32_t)(b), 0, 0, 0})
/** A NULL pointer. */
#define COURSE_NULL ((struct proto_arg){PROTO_PTR, PROTO_NO_BUF, 0, 0, 0})

/** What a call returned. */
struct course_ret {
    int64_t i; /**< integer return value */
    double f;  /**< floating-point return value */
};

/**
 * Call @p name(@p args) in the runner, then (on a GPU runner) synchronise. A CUDA error
 * after the call, a missing function or a failed runner fails the case, naming @p name.
 *
 * On an observed runner the call is judged for what the device did, from the provenance
 * record, when its pointer arguments are all device or pinned buffers (a host-code exercise's
 * are not; a pinned input reaches the kernels through copies, which course_streams.h judges).
 * No input may reach the host during the call (a copy to the host, or a kernel's store into
 * managed or pinned memory, of an input or of what a kernel computed from one). Every launch
 * must come from the lesson's own PTX (the runner's), none from CUB, Thrust or libcu++, and no
 * device work may happen outside a call (before it, after it, or during the judge's
 * read-back). Kernels may read the judge's buffers, what kernels wrote, fills that prove a
 * constant and module variables, and nothing else: not bytes the host wrote (a copy of an
 * answer the host computed), changed behind the device's back or never written. No kernel may
 * touch a guard byte (an over-read the NaN guards would absorb). The kernels must read every
 * byte of each input argument, and the launches may pass 4 KiB of parameters at most (not an
 * answer). course_buf_read() then asserts an output was written by kernels. Each failure is
 * one line that names its channel.
 */
struct course_ret course_call(struct course_runner *r, const char *name, enum proto_kind ret,
                              const struct proto_arg *args, int nargs);

/** course_call() with the arguments listed inline. */
#define COURSE_CALL(r, name, ret, ...)                                                             \
    course_call((r), (name), (ret), (const struct proto_arg[]){__VA_ARGS__},                       \
                (int)(sizeof((const struct proto_arg[]){__VA_ARGS__}) / sizeof(struct proto_arg)))

/** One kernel launch of an observed runner, as its device server's observer reported it. */
struct course_launch {
    char kernel[160];            /**< the kernel's .entry name (mangled) */
    unsigned grid[3];            /**< blocks */
    unsigned block[3];           /**< threads per block */
    unsigned cluster[3];         /**< blocks per thread-block cluster (1,1,1: none) */
    char status[16];             /**< ok, bad_launch, fault, trap, assert, unsupported, deadlock */
    unsigned params;             /**< bytes of kernel parameters it passed */
    char module[20];             /**< its module's identity (a hash of its PTX) */
    int own;                     /**< 1: that PTX is the lesson's own (built from its sources) */
    struct vm_counters counters; /**< what it did, counted exactly (emu_counts.h) */
};

/**
 * The launches the last course_call() on a COURSE_OBSERVED runner made, oldest first (*@p n of
 * them). The judge starts that runner's device server itself and reads its observer, which the
 * student's code can neither see nor write. Valid until the next call.
 */
const struct course_launch *course_launches(struct course_runner *r, int *n);

/**
 * The stream record of the last course_call() on a COURSE_OBSERVED runner: its "op" and
 * "footprint" lines, in the order the device server wrote them (their format is in
 * emulator/server.c; course_streams.h reads them). Valid until the next call.
 */
const char *course_stream_record(struct course_runner *r);

/**
 * The counters of the last call's launches, summed, once asserted that there was at least one,
 * that every one was a kernel whose name contains @p kernel, and that each ran to its end.
 */
struct vm_counters course_observed(struct course_runner *r, const char *kernel);

/**
 * Median milliseconds of @p name(@p args) over @p reps calls after @p warmup, timed in the
 * runner by timer_measure() (CUDA events on a GPU runner, the host clock on a CPU one).
 */
double course_time(struct course_runner *r, const char *name, const struct proto_arg *args,
                   int nargs, int warmup, int reps);

/**
 * out[i] = @p name(in[i]) for @p count elements of two host buffers, in the runner: a unary
 * function of kind @p arg returning @p ret (e.g. a conversion), at the cost of one request.
 */
void course_map(struct course_runner *r, const char *name, enum proto_kind ret, enum proto_kind arg,
                int in, int out, size_t count);

/**
 * A and B of a GEMM check (@p na and @p nb floats, malloc'd): small integers from @p seed and
 * seed + 1 (exact in every format), or with @p uniform, uniform in [-1, 1).
 */
void course_gemm_inputs(size_t na, size_t nb, uint64_t seed, int uniform, float **A, float **B);

/**
 * Call the GEMM launcher @p name(M, N, K, A, B, C) on the runner's buffers @p a, @p b and @p c,
 * its failures naming the shape; returns C (M x N floats, malloc'd) and frees the three buffers.
 */
float *course_gemm_call(struct course_runner *r, const char *name, int M, int N, int K, int a,
                        int b, int c);

/**
 * The SGEMM launcher @p name (C = A * B, row-major floats) at M x N x K on small integers,
 * each matrix @p offset bytes past an aligned address with guards around it, against
 * ref_matmul_f64() exactly. Asserts C's guards untouched; returns the comparison.
 */
struct mat_cmp course_remote_sgemm(struct course_runner *r, const char *name, int M, int N, int K,
                                   uint64_t seed, size_t offset);

/**
 * course_remote_sgemm() at each of @p count shapes {M, N, K} (seeds from @p seed on); a Check
 * assertion names @p name, the shape and the first bad element of the first shape that fails.
 */
void course_judge_sgemm_shapes(struct course_runner *r, const char *name, const int (*shapes)[3],
                               size_t count, uint64_t seed, size_t offset);

/**
 * The SGEMM launcher @p name at M x N x K on a COURSE_OBSERVED runner, asserted exact
 * (course_remote_sgemm()), then course_observed(@p kernel), asserted to have done the product's
 * flops and written C on the device: the counters of the kernels that computed it.
 */
struct vm_counters course_observed_sgemm(struct course_runner *r, const char *name,
                                         const char *kernel, int M, int N, int K);

/**
 * Assert that @p what made @p lo to @p hi @p unit per request on average: @p count of them
 * (sectors, wavefronts) in @p requests requests, from course_observed(). Not one request fails.
 * @p lo == @p hi asks for exactly that; @p hi of 1e9 or more means no upper bound.
 */
void course_assert_per_request(const char *what, const char *unit, uint64_t count,
                               uint64_t requests, double lo, double hi);

/**
 * Assert that the GEMM kernels of @p name (counters @p c) read their tiles as lessons 04 and 05
 * teach: 16 FMAs per shared-load instruction (two float4 of A and two of B per k for an 8 x 8
 * thread tile, the k loop unrolled), 128-bit shared loads without bank conflicts (one wavefront
 * per phase: 4 a request, one per quarter warp, or 2 when lanes read the same address in pairs),
 * and float4 global loads, at most @p max_loads requests of at most 16 sectors (a warp's 512
 * bytes).
 */
void course_assert_float4_tiles(const char *name, const struct vm_counters *c, uint64_t max_loads);

/** How many of course_gemm_shapes a GEMM check runs here: all but the last on the emulator. */
size_t course_gemm_edge_count(void);

/** course_judge_sgemm_shapes() at the first course_gemm_edge_count() shapes, aligned. */
void course_judge_sgemm_edges(struct course_runner *r, const char *name, uint64_t seed);

/** Median ms of the SGEMM launcher @p name at M x N x K (5 samples after 2 warm-ups). */
double course_judge_time_sgemm(struct course_runner *r, const char *name, int M, int N, int K);

/** Before a timing: the SGEMM launcher @p name exact at 129 x 65 x 63 (a fast wrong kernel
 *  proves nothing). */
void course_judge_sgemm_right(struct course_runner *r, const char *name);

/**
 * Timing feedback: the SGEMM launcher @p name (checked first) and cuBLAS SGEMM at 4096^3 in one
 * run; assert the kernel's fraction of cuBLAS's speed meets the bar @p key (course_assert_bar).
 */
void course_judge_vs_cublas(const char *name, const char *key);

/**
 * Assert that a timing case's ratio @p ratio (higher is better: a speedup, or a fraction of
 * cuBLAS's or of a device copy's speed) meets the bar named @p key for this GPU's architecture
 * family (course_bars.c: sm_75 to sm_90, each with its source; the loosest bar where the course
 * has no data). Prints one "course-perf:" line, and appends a row to the file COURSE_PERF_OUT
 * names, for ./course gpu-report. A miss says the ratio, the band expected on this GPU and its
 * source, the times behind the ratio (@p fmt, printf-style) and the likely causes.
 */
void course_assert_bar(const char *key, double ratio, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * Assert that the kernels whose counters are @p c touched each global sector once and all the
 * bytes of the problem: @p read_bytes read, @p write_bytes written (0: reads are not judged).
 * A grid-stride loop that steps by a block, not by the whole grid, gives right values but makes
 * every block redo the rest of the array: @p what names the call and its size.
 */
void course_assert_each_sector_once(const char *what, const struct vm_counters *c,
                                    uint64_t read_bytes, uint64_t write_bytes);

/** This case's private temporary directory (made on first use, removed when the case ends, or
 *  when the test program does if the case failed). */
const char *course_sandbox_dir(void);

/** A student program started by course_program_start(). */
struct course_program {
    pid_t pid;     /**< its process (the leader of its own group) */
    int out_fd;    /**< its stdout, in an unlinked file */
    int err_fd;    /**< its stderr, in another */
    int status;    /**< exit status once done, -1 when killed by a signal or the deadline */
    int signal;    /**< the signal that ended it, or 0 */
    int timed_out; /**< 1 when the judge killed it at its deadline */
    char *output;  /**< what it printed on stdout (malloc'd, NUL-terminated) once done */
    char *errors;  /**< what it printed on stderr (malloc'd, NUL-terminated) once done */
};

/**
 * Start @p argv (argv[0] a path or a name on PATH) sandboxed like a runner, in
 * course_sandbox_dir(), with stdout and stderr captured apart.
 */
struct course_program course_program_start(char *const argv[]);

/**
 * Wait for @p p for @p timeout_s at most (and never past the case's deadline), killing its
 * group then; fills status, output and errors.
 */
void course_program_wait(struct course_program *p, int timeout_s);

/** course_program_start() then course_program_wait(); the caller frees output and errors. */
struct course_program course_program_run(char *const argv[], int timeout_s);

/**
 * Set by the harness: the runner built for this judge's lesson side (runner_NN_<side>) and
 * the lesson library in it. Every runner start first checks that the library calls neither
 * cuBLAS, the baselines nor the CPU references (nm -u): such a library grades nothing.
 */
void course_judge_set_lesson(const char *runner, const char *lib);

/**
 * Seconds the judge gives a case's runners and programs, all told, counted from the first one
 * started: a little less than the case's timeout, so that the judge reports a hang before
 * Check kills it (set by the harness).
 */
extern int course_judge_budget_s;

/* ---- absolute bounds: what a kernel moved against what the problem needs ------------------- */

/**
 * Assert that global accesses moving @p sectors 32-byte sectors served @p need_bytes, the bytes
 * the problem needs (rounded to whole sectors where a warp's lanes share one): an efficiency of
 * need_bytes / (32 sectors) of at least @p min_efficiency. Loads of any width pass alike (a
 * warp's float4 are 16 sectors for 512 bytes); extra requests only lower it, so it cannot be
 * diluted the way a per-request ratio can.
 */
void course_assert_sector_efficiency(const char *what, uint64_t sectors, double need_bytes,
                                     double min_efficiency);

/**
 * Assert that shared accesses of @p what took at most @p ideal wavefronts per request (the
 * conflict-free count for their width: 1 for 32-bit, 4 for 128-bit) and at most @p max_total
 * in all (what the kernel's conflict-free accesses need), from course_observed(); @p hint says
 * what to do when it took more.
 */
void course_assert_shared_wavefronts(const char *what, uint64_t wavefronts, uint64_t requests,
                                     double ideal, double max_total, const char *hint);

/**
 * Assert that ptxas (report @p ptxas_path, for sm_90) kept every kernel whose name contains
 * @p kernel in registers: no stack frame and no spills. A register array indexed by a loop
 * counter the compiler could not unroll lives in local memory; @p hint says what to do.
 */
void course_assert_in_registers(const char *ptxas_path, const char *kernel, const char *hint);

#endif /* COURSE_JUDGE_H */
