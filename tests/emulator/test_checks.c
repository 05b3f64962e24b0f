/**
 * @file test_checks.c
 * @brief The emulator's sanitizer: each planted bug of test_checks_kernels.cu is reported,
 *        once per place with a count, naming the kernel's file and line; each correct twin
 *        computes the right answer and is reported nothing.
 *
 * Every case turns the checks on for its own process before its first CUDA call
 * (COURSE_EMU_CHECKS, as ./course sanitize does) and reads the findings from the report file
 * (COURSE_EMU_REPORT). Faults are memcheck's share and are always on: they fail the launch
 * and print one line, captured from stderr.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "mat.h"
#include "ref.h"
#include "test_checks.h"

/* The report says @p what at @p marker's line, @p times times when @p times > 0. */
static void assert_report(const char *marker, const char *what, int times)
{
    char *text = capture_reports();
    capture_assert_at(text, TEST_CHECKS_KERNELS, marker, what);
    capture_assert_times(text, times);
    free(text);
}

/* A device copy of @p n floats of mat_fill_int(@p seed). */
static float *device_ints(size_t n, uint64_t seed, float *host)
{
    float *d;
    mat_fill_int(host, n, seed);
    CUDA_CHECK(cudaMalloc((void **)&d, n * sizeof *d));
    CUDA_CHECK(cudaMemcpy(d, host, n * sizeof *d, cudaMemcpyHostToDevice));
    return d;
}

/* The tiled matmul at n = 37 (three partial tiles), checked against the CPU reference. */
static cudaError_t matmul(enum check_bug bug, int check_result)
{
    enum { N = 37 };
    static float A[N * N], B[N * N], C[N * N];
    static double want[N * N];
    float *dA = device_ints(N * N, 11, A), *dB = device_ints(N * N, 12, B), *dC;
    CUDA_CHECK(cudaMalloc((void **)&dC, sizeof C));
    cudaError_t err = checks_tiled_matmul(bug, dA, dB, dC, N);
    if (err != cudaSuccess)
        cudaDeviceReset(); /* a fault is sticky until a reset: then the frees work */
    if (check_result) {
        CUDA_CHECK(cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost));
        ref_matmul_f64(N, N, N, A, B, want);
        for (int i = 0; i < N * N; i++)
            ck_assert_msg(C[i] == (float)want[i], "C[%d] = %g, want %g", i, C[i], want[i]);
    }
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
    return err;
}

START_TEST(racecheck_finds_dropped_barriers)
{
    capture_checks_on();
    ck_assert_int_eq(matmul(BUG_NONE, 1), cudaSuccess);
    capture_assert_no_reports("the correct tiled matmul");
    ck_assert_int_eq(matmul(BUG_NO_SYNC_BEFORE, 0), cudaSuccess);
    assert_report("CHECK_USE_TILE", "racecheck: read-after-write hazard", 0);
    ck_assert_int_eq(matmul(BUG_NO_SYNC_AFTER, 0), cudaSuccess);
    assert_report("CHECK_LOAD_A", "racecheck: write-after-read hazard", 0);
}
END_TEST

START_TEST(racecheck_finds_missing_syncwarp)
{
    capture_checks_on();
    float in[32], sum = 0.0f, got;
    float *din = device_ints(32, 21, in), *dout;
    for (int i = 0; i < 32; i++)
        sum += in[i];
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof *dout));
    ck_assert_int_eq(checks_warp_sum(1, din, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(&got, dout, sizeof got, cudaMemcpyDeviceToHost));
    ck_assert_msg(got == sum, "warp sum %g, want %g", got, sum);
    capture_assert_no_reports("the warp sum with __syncwarp()");
    ck_assert_int_eq(checks_warp_sum(0, din, dout), cudaSuccess);
    /* One line however the loop is unrolled: lanes 0..7 read what lanes 8..15 wrote the step
     * before, then 0..3 what 4..7 wrote, and so on: 8 + 4 + 2 + 1 reads. */
    assert_report("CHECK_WARP_SUM", "written by thread (8,0,0)", 15);
    cudaFree(din), cudaFree(dout);
}
END_TEST

START_TEST(racecheck_orders_across_an_mbarrier)
{
    capture_checks_on();
    float in[96], got;
    float *din = device_ints(96, 22, in), *dout;
    double sum = 0.0;
    for (int i = 0; i < 96; i++)
        sum += in[i];
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof *dout));
    ck_assert_int_eq(checks_barrier_sum(1, din, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(&got, dout, sizeof got, cudaMemcpyDeviceToHost));
    ck_assert_msg(got == (float)sum, "block sum %g, want %g", got, sum);
    capture_assert_no_reports("the block sum after cuda::barrier::arrive_and_wait()");
    ck_assert_int_eq(checks_barrier_sum(0, din, dout), cudaSuccess);
    /* Warp 0 runs first: it reads partial[1] and [2] before warps 1 and 2 write them. */
    assert_report("CHECK_BARRIER_SUM", "racecheck: write-after-read hazard", 2);
    cudaFree(din), cudaFree(dout);
}
END_TEST

/* Warp 0 hands its stores to warp 1 through an mbarrier only it arrives at: ordered when it
 * arrives after them (the arrive releases them, warp 1's wait acquires), through the object's
 * shared::cta or shared::cluster address, a hazard when it arrives before. */
START_TEST(racecheck_follows_an_mbarrier_between_warps)
{
    capture_checks_on();
    float in[32], out[64];
    float *din = device_ints(32, 23, in), *dout;
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    const int after[] = {HANDOFF_AFTER, HANDOFF_THROUGH_CLUSTER};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(checks_handoff(after[i], din, dout), cudaSuccess);
        CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
        for (int t = 0; t < 64; t++)
            ck_assert_msg(out[t] == (t < 32 ? in[t] : 3.0f * in[t - 32]), "out[%d] = %g", t,
                          out[t]);
        capture_assert_no_reports(i ? "an arrival through the block's shared::cluster address"
                                    : "warp 0's stores, then its arrival, then warp 1's wait");
    }
    ck_assert_int_eq(checks_handoff(HANDOFF_ARRIVE_FIRST, din, dout), cudaSuccess);
    assert_report("CHECK_HANDED", "racecheck: read-after-write hazard", 32);
    cudaFree(din), cudaFree(dout);
}
END_TEST

/* Barriers with a thread count order the warps that meet at them, and through them the warps
 * those waited for: warp 2, which meets only warp 1, is not ordered after warp 0's stores
 * unless warp 1 waited for them first. */
START_TEST(racecheck_orders_only_a_named_barriers_warps)
{
    capture_checks_on();
    float in[96], out[96];
    float *din = device_ints(96, 24, in), *dout;
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    ck_assert_int_eq(checks_named(1, din, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 96; t++)
        ck_assert_msg(out[t] == (t < 64 ? in[t] : 5.0f * in[t - 64]), "out[%d] = %g", t, out[t]);
    capture_assert_no_reports("warp 0 to warp 1 to warp 2 through two barriers of 64 threads");
    ck_assert_int_eq(checks_named(0, din, dout), cudaSuccess);
    assert_report("CHECK_NAMED_THIRD", "racecheck: read-after-write hazard", 32);
    cudaFree(din), cudaFree(dout);
}
END_TEST

/* A launch that faults: its error, and the one line it printed. */
static void assert_fault(cudaError_t (*launch)(void), const char *marker, const char *what)
{
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = launch();
    char *said = capture_end(&cap);
    ck_assert_msg(err == cudaErrorIllegalAddress, "got %s, want cudaErrorIllegalAddress",
                  cudaGetErrorName(err));
    capture_assert_at(said, TEST_CHECKS_KERNELS, marker, what);
    free(said);
}

static cudaError_t store_past_end(void)
{
    enum { N = 1000 };
    static float in[N];
    float *din = device_ints(N, 31, in), *dout;
    CUDA_CHECK(cudaMalloc((void **)&dout, N * sizeof *dout));
    cudaError_t err = checks_scale(1, din, dout, N);
    cudaDeviceReset(); /* the fault is sticky until then */
    cudaFree(din), cudaFree(dout);
    return err;
}

static cudaError_t read_past_last_row(void)
{
    return matmul(BUG_NO_ROW_GUARD, 0);
}

START_TEST(memcheck_finds_out_of_bounds)
{
    capture_checks_on();
    assert_fault(store_past_end, "CHECK_STORE_GUARD", "invalid global write of 4 bytes at 0x");
    assert_fault(store_past_end, "CHECK_STORE_GUARD",
                 "4 bytes past the end of a 4000-byte allocation");
    /* Row 47 of a 37 x 37 A, the last one its tile reaches: 10 rows past the end. */
    assert_fault(read_past_last_row, "CHECK_LOAD_A", "invalid global read of 4 bytes");
    capture_assert_no_reports("faults (they fail the launch instead)");
}
END_TEST

START_TEST(initcheck_finds_unwritten_reads)
{
    capture_checks_on();
    float in[64], out[32];
    float *din, *dout;
    mat_fill_int(in, 64, 41);
    CUDA_CHECK(cudaMalloc((void **)&din, sizeof in));
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    CUDA_CHECK(cudaMemcpy(din, in, 32 * sizeof *in, cudaMemcpyHostToDevice)); /* half of it */
    ck_assert_int_eq(checks_uninitialised(0, din, dout), cudaSuccess);
    assert_report("CHECK_GLOBAL_UNWRITTEN", "byte 128 of a 256-byte allocation", 32);
    ck_assert_int_eq(checks_uninitialised(1, din, dout), cudaSuccess);
    assert_report("CHECK_SHARED_UNWRITTEN", "initcheck: read of shared memory nobody wrote", 32);
    CUDA_CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice)); /* now all of it */
    ck_assert_int_eq(checks_uninitialised(0, din, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 32; t++)
        ck_assert_msg(out[t] == in[t + 32], "out[%d] = %g, want %g", t, out[t], in[t + 32]);
    capture_assert_no_reports("reads of written memory");
    cudaFree(din), cudaFree(dout);
}
END_TEST

START_TEST(synccheck_finds_bad_synchronisation)
{
    static const struct {
        const char *marker, *what;
    } bugs[] = {
        {"CHECK_HALF_WARP", "of bad_sync_kernel met at barrier 0 from different places"},
        {"CHECK_ODD_BARRIER", "met at barrier 0 from different places"},
        {"CHECK_SHUFFLE_MASK", "lanes 0xffff0000 execute shfl.sync but are not in its mask"},
        {"CHECK_ABSENT_LANES", "names lanes 0xffff0000 that have exited or do not exist"},
    };
    capture_checks_on();
    float *dout;
    CUDA_CHECK(cudaMalloc((void **)&dout, 64 * sizeof *dout));
    for (int kind = 0; kind < 4; kind++) {
        cudaError_t err = checks_bad_sync(kind, dout);
        ck_assert_msg(err == cudaSuccess, "kind %d: %s", kind, cudaGetErrorName(err));
        assert_report(bugs[kind].marker, bugs[kind].what, 0);
    }
    cudaFree(dout);
}
END_TEST

/* Exited threads do not hold a barrier up; warps of different roles meet at a barrier with a
 * thread count, each from its own place (warp specialisation), or at a barrier.sync without
 * .aligned: none is a finding. */
START_TEST(synccheck_lets_exited_threads_pass_a_barrier)
{
    capture_checks_on();
    float *dout, out[64];
    CUDA_CHECK(cudaMalloc((void **)&dout, sizeof out));
    ck_assert_int_eq(checks_bad_sync(4, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 40; t++)
        ck_assert_msg(out[t] == (float)(39 - t), "out[%d] = %g, want %d", t, out[t], 39 - t);
    capture_assert_no_reports("an early return before __syncthreads()");
    ck_assert_int_eq(checks_bad_sync(5, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; t++)
        ck_assert_msg(out[t] == (float)(t < 32 ? t : 2 * (t - 32)), "out[%d] = %g", t, out[t]);
    capture_assert_no_reports("two warps' roles meeting at bar.sync 1, 64 from two places");
    ck_assert_int_eq(checks_bad_sync(6, dout), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; t++)
        ck_assert_msg(out[t] == (float)(t < 32 ? 3 * t : 5 * t), "out[%d] = %g", t, out[t]);
    capture_assert_no_reports("two warps meeting at barrier.sync 0 (not .aligned) from two places");
    cudaFree(dout);
}
END_TEST

/* What a child process running @p run and then exit(0) printed on stderr (malloc'd); the
 * child's exit status must be 0: the summary leaves it the program's. */
static char *stderr_of_child(void (*run)(void))
{
    struct capture cap;
    fflush(NULL);
    capture_begin(&cap, 2);
    pid_t child = fork(); /* the summary speaks when a process exits */
    ck_assert(child >= 0);
    if (child == 0) {
        run();
        exit(0); /* exit(), not _exit(): the summary runs at exit */
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    char *text = capture_end(&cap);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's status is %d: %s",
                  status, text);
    return text;
}

static void fault_and_race(void)
{
    store_past_end();
    matmul(BUG_NO_SYNC_BEFORE, 0);
}

static void clean_matmul(void)
{
    matmul(BUG_NONE, 1);
}

START_TEST(exit_summary_counts_faults_and_findings)
{
    capture_checks_on();
    char *text = stderr_of_child(fault_and_race);
    const char *last = strstr(text, "emulator: ");
    for (const char *p = last; p; p = strstr(p + 1, "\nemulator: "))
        last = p[0] == '\n' ? p + 1 : p;
    /* The fault and the read-after-write hazard, each reported above it; the line comes last. */
    ck_assert_msg(last && strstr(text, "invalid global write") && strstr(text, "racecheck: ") &&
                      strncmp(last, "emulator: ", 10) == 0 &&
                      strstr(last, "faults/findings were reported during this run (1 fault, ") &&
                      strstr(last, "); see above\n") && !strchr(last, '\n')[1],
                  "no summary as the last line: %s", text);
    free(text);
    text = stderr_of_child(clean_matmul);
    ck_assert_msg(!strstr(text, "reported during this run"), "a summary after a clean run: %s",
                  text);
    free(text);
    free(capture_reports());
}
END_TEST

START_TEST(leak_check_names_where_it_was_allocated)
{
    capture_checks_on();
    fflush(NULL);
    pid_t child = fork(); /* the leak check speaks when a process exits */
    ck_assert(child >= 0);
    if (child == 0) {
        float *kept, *freed;
        int ok = cudaMalloc((void **)&kept, 1000) == cudaSuccess &&
                 cudaMalloc((void **)&freed, 24) == cudaSuccess && cudaFree(freed) == cudaSuccess;
        exit(ok ? 0 : 1); /* exit(), not _exit(): the check runs at exit */
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    char *text = capture_reports();
    ck_assert_int_eq(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
    /* A static function has no exported name: the object and offset stand in for it. */
    ck_assert_msg(strstr(text, "leak-check: 1000 bytes at 0x") && strstr(text, "allocated from ") &&
                      strstr(text, "test_emulator_checks+0x"),
                  "got: %s", text);
    ck_assert_msg(!strstr(text, "24 bytes"), "a freed block was reported: %s", text);
    free(text);
}
END_TEST

/* Freed by an exit handler registered before the first allocation, as a C++ global's destructor
 * is (at its construction, before main). */
static float *held_to_the_end;

static void free_held(void)
{
    if (cudaFree(held_to_the_end) != cudaSuccess)
        fprintf(stderr, "free_held: cudaFree failed\n");
}

static void hold_to_the_end_and_keep(void)
{
    float *kept;
    if (atexit(free_held) != 0 || cudaMalloc((void **)&held_to_the_end, 512) != cudaSuccess ||
        cudaMalloc((void **)&kept, 1000) != cudaSuccess)
        exit(1);
}

START_TEST(leak_check_runs_after_exit_handlers)
{
    capture_checks_on();
    char *text = stderr_of_child(hold_to_the_end_and_keep);
    ck_assert_msg(strstr(text, "leak-check: 1000 bytes at 0x"), "the kept block unreported: %s",
                  text);
    ck_assert_msg(!strstr(text, "512 bytes"), "a block freed at exit was reported: %s", text);
    /* the exit summary still comes after the leak check's lines */
    const char *summary = strstr(text, "1 fault/finding was reported during this run");
    ck_assert_msg(summary && summary > strstr(text, "leak-check: 1 allocation"),
                  "no summary after the leak check: %s", text);
    free(capture_reports());
    free(text);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"racecheck_finds_dropped_barriers", racecheck_finds_dropped_barriers, CASE_GPU, 60},
        {"racecheck_finds_missing_syncwarp", racecheck_finds_missing_syncwarp, CASE_GPU, 60},
        {"racecheck_orders_across_an_mbarrier", racecheck_orders_across_an_mbarrier, CASE_GPU, 60},
        {"racecheck_follows_an_mbarrier_between_warps", racecheck_follows_an_mbarrier_between_warps,
         CASE_GPU, 60},
        {"racecheck_orders_only_a_named_barriers_warps",
         racecheck_orders_only_a_named_barriers_warps, CASE_GPU, 60},
        {"memcheck_finds_out_of_bounds", memcheck_finds_out_of_bounds, CASE_GPU, 60},
        {"initcheck_finds_unwritten_reads", initcheck_finds_unwritten_reads, CASE_GPU, 60},
        {"synccheck_finds_bad_synchronisation", synccheck_finds_bad_synchronisation, CASE_GPU, 60},
        {"synccheck_lets_exited_threads_pass_a_barrier",
         synccheck_lets_exited_threads_pass_a_barrier, CASE_GPU, 60},
        {"exit_summary_counts_faults_and_findings", exit_summary_counts_faults_and_findings,
         CASE_GPU, 60},
        {"leak_check_names_where_it_was_allocated", leak_check_names_where_it_was_allocated,
         CASE_GPU, 60},
        {"leak_check_runs_after_exit_handlers", leak_check_runs_after_exit_handlers, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
