/**
 * @file test_race_global.c
 * @brief The global racecheck (COURSE_EMU_CHECKS=race-global): each planted race of
 *        test_race_global_kernels.cu is reported once per pair of lines, naming both; each correct
 *        twin computes the right answer and is reported nothing; and the other checks' behaviour
 *        (synccheck's early returns, the summary at exit) holds with it on.
 *
 * Every case turns every check on for its own process before its first CUDA call, as
 * ./course sanitize does, and reads the findings from the report file (COURSE_EMU_REPORT); the
 * other suites that call capture_checks_on() run with the global racecheck on too.
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
#include "test_race_global.h"

/* Not tile multiples: the last block of 64 threads is partial. */
enum { N = 1000 };

/* The report holds a line saying @p what at @p marker's line and naming @p marker2's line too
 * (the other access), @p times times when @p times > 0; the report is emptied. */
static void assert_race(const char *marker, const char *marker2, const char *what, int times)
{
    char *text = capture_reports();
    capture_assert_at(text, TEST_RACE_GLOBAL_KERNELS, marker, what);
    capture_assert_at(text, TEST_RACE_GLOBAL_KERNELS, marker2, what);
    capture_assert_times(text, times);
    free(text);
}

/* A device copy of x[i] = (7 i) % 13 - 6, small integers (sums exact in float). */
static float *device_ints(float *x, int n)
{
    float *d;
    for (int i = 0; i < n; i++)
        x[i] = (float)((7 * i) % 13 - 6);
    CUDA_CHECK(cudaMalloc((void **)&d, (size_t)n * sizeof *d));
    CUDA_CHECK(cudaMemcpy(d, x, (size_t)n * sizeof *d, cudaMemcpyHostToDevice));
    return d;
}

START_TEST(a_block_reduction_without_barriers_is_named)
{
    capture_checks_on();
    static float x[N], got[N];
    float *d = device_ints(x, N);
    ck_assert_int_eq(gr_block_reduce(0, d, N), cudaSuccess);
    capture_assert_no_reports("the reduction with its barriers");
    CUDA_CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
    for (int b = 0; b < (N + 63) / 64; b++) {
        float want = 0;
        for (int i = 64 * b; i < N && i < 64 * (b + 1); i++)
            want += x[i];
        ck_assert_msg(got[64 * b] == want, "block %d: %g, want %g", b, got[64 * b], want);
    }
    CUDA_CHECK(cudaMemcpy(d, x, sizeof x, cudaMemcpyHostToDevice));
    ck_assert_int_eq(gr_block_reduce(1, d, N), cudaSuccess);
    assert_race("GR_REDUCE", "GR_REDUCE", "racecheck: read-after-write hazard on global 0x", 0);
    cudaFree(d);
}
END_TEST

static void check_prefix(const float *x, const float *got)
{
    float want = 0;
    for (int b = 0; b < (N + 63) / 64; b++) {
        for (int i = 64 * b; i < N && i < 64 * (b + 1); i++)
            want += x[i];
        ck_assert_msg(got[b] == want, "prefix[%d] = %g, want %g", b, got[b], want);
    }
}

START_TEST(a_grid_that_assumes_blocks_run_in_order_is_named)
{
    capture_checks_on();
    enum { B = (N + 63) / 64 };
    static float x[N], got[B];
    float *dx = device_ints(x, N), *dp;
    int *ws;
    CUDA_CHECK(cudaMalloc((void **)&dp, sizeof got));
    CUDA_CHECK(cudaMalloc((void **)&ws, (B + 1) * sizeof *ws));
    CUDA_CHECK(cudaMemset(ws, 0, (B + 1) * sizeof *ws));
    ck_assert_int_eq(gr_chained_prefix(0, dx, dp, ws, N), cudaSuccess);
    capture_assert_no_reports("a decoupled look-back (atomic ticket, fence, volatile flags)");
    CUDA_CHECK(cudaMemcpy(got, dp, sizeof got, cudaMemcpyDeviceToHost));
    check_prefix(x, got);
    /* The VM runs blocks in order, so the racy twin's answer is right here too: only the
     * check shows what a GPU would get wrong. */
    ck_assert_int_eq(gr_chained_prefix(1, dx, dp, ws, N), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(got, dp, sizeof got, cudaMemcpyDeviceToHost));
    check_prefix(x, got);
    assert_race("GR_CHAIN_READ", "GR_CHAIN_WRITE",
                "racecheck: read-after-write hazard on global 0x", B - 1);
    char *text = capture_reports();
    ck_assert_msg(!text[0], "reported twice: %s", text);
    free(text);
    cudaFree(dx), cudaFree(dp), cudaFree(ws);
}
END_TEST

START_TEST(two_blocks_writing_one_word_are_named)
{
    capture_checks_on();
    int *d, got;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof *d));
    CUDA_CHECK(cudaMemset(d, 0, sizeof *d));
    ck_assert_int_eq(gr_one_word(0, 0, d, 37), cudaSuccess);
    capture_assert_no_reports("atomicMax from every block");
    CUDA_CHECK(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
    ck_assert_int_eq(got, 36);
    ck_assert_int_eq(gr_one_word(1, 0, d, 37), cudaSuccess);
    assert_race("GR_ONE_WORD", "GR_ONE_WORD", "racecheck: write-after-write hazard on global 0x",
                36);
    /* The same value from every block is still a data race in PTX's memory model (and
     * undefined): it is reported as any other. */
    ck_assert_int_eq(gr_one_word(1, 1, d, 3), cudaSuccess);
    assert_race("GR_ONE_WORD", "GR_ONE_WORD", "another block, with no atomic", 2);
    cudaFree(d);
}
END_TEST

START_TEST(blocks_reading_what_others_write_are_named)
{
    capture_checks_on();
    static float x[N], y[N];
    float *dx = device_ints(x, N), *dy;
    CUDA_CHECK(cudaMalloc((void **)&dy, sizeof y));
    ck_assert_int_eq(gr_stencil(0, dx, dy, N), cudaSuccess);
    capture_assert_no_reports("the stencil into another array");
    CUDA_CHECK(cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        float want = (i ? x[i - 1] : 0) + x[i] + (i + 1 < N ? x[i + 1] : 0);
        ck_assert_msg(y[i] == want, "y[%d] = %g, want %g", i, y[i], want);
    }
    ck_assert_int_eq(gr_stencil(1, dx, dy, N), cudaSuccess);
    char *text = capture_reports();
    /* Block b's first thread reads what block b - 1 wrote (the VM ran that block first); its
     * last one reads what block b + 1 writes after it. */
    capture_assert_at(text, TEST_RACE_GLOBAL_KERNELS, "GR_STENCIL_READ",
                      "racecheck: read-after-write hazard on global 0x");
    capture_assert_at(text, TEST_RACE_GLOBAL_KERNELS, "GR_STENCIL_WRITE",
                      "racecheck: write-after-read hazard on global 0x");
    ck_assert_msg(strstr(text, "by block (0,0,0) thread (63,0,0) at ") &&
                      strstr(text, ", block (1,0,0), thread (0,0,0): "),
                  "the blocks and threads are not named: %s", text);
    free(text);
    cudaFree(dx), cudaFree(dy);
}
END_TEST

START_TEST(grid_sync_orders_blocks)
{
    capture_checks_on();
    enum { M = 97 };
    int *a, *out, got[M];
    CUDA_CHECK(cudaMalloc((void **)&a, M * sizeof *a));
    CUDA_CHECK(cudaMalloc((void **)&out, M * sizeof *out));
    ck_assert_int_eq(gr_grid_sync(0, a, out, M), cudaSuccess);
    capture_assert_no_reports("grid.sync() between the writes and the reads");
    CUDA_CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++)
        ck_assert_int_eq(got[i], 3 * (M - 1 - i) + 1);
    ck_assert_int_eq(gr_grid_sync(1, a, out, M), cudaSuccess);
    assert_race("GR_SYNC_READ", "GR_SYNC_WRITE", "hazard on global 0x", 0);
    cudaFree(a), cudaFree(out);
}
END_TEST

/* Warps of one block handing global memory over through barriers with a thread count or an
 * mbarrier: the handoffs that order the read are reported nothing and give the stored values;
 * the others are named. */
START_TEST(warps_handing_over_without_a_block_barrier)
{
    capture_checks_on();
    enum { BLOCKS = 3, M = 32 * BLOCKS };
    static float x[M], got[M];
    float *dx = device_ints(x, M), *staged, *out;
    CUDA_CHECK(cudaMalloc((void **)&staged, sizeof got));
    CUDA_CHECK(cudaMalloc((void **)&out, sizeof got));
    const int ordered[] = {GR_NAMED_CHAIN, GR_MBARRIER},
              racy[] = {GR_NAMED_APART, GR_MBARRIER_EARLY};
    for (int k = 0; k < 2; k++) {
        CUDA_CHECK(cudaMemset(out, 0, sizeof got));
        ck_assert_int_eq(gr_handoff(ordered[k], dx, staged, out, BLOCKS), cudaSuccess);
        capture_assert_no_reports(k ? "an mbarrier's handoff" : "a chain of named barriers");
        CUDA_CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
        for (int i = 0; i < M; i++)
            ck_assert_msg(got[i] == 5.0f * x[i], "handoff %d: out[%d] = %g, want %g", k, i, got[i],
                          5.0f * x[i]);
        ck_assert_int_eq(gr_handoff(racy[k], dx, staged, out, BLOCKS), cudaSuccess);
        assert_race("GR_TAKEN", "GR_HANDED", "racecheck: read-after-write hazard on global 0x", M);
    }
    cudaFree(dx), cudaFree(staged), cudaFree(out);
}
END_TEST

START_TEST(correct_programs_are_reported_nothing)
{
    capture_checks_on();
    enum { M = 1003, B = (M + 31) / 32 };
    int *out, *part, *ws, *total, got[M], sum;
    unsigned char *bytes, gotb[M];
    CUDA_CHECK(cudaMalloc((void **)&out, sizeof got));
    CUDA_CHECK(cudaMalloc((void **)&bytes, sizeof gotb));
    CUDA_CHECK(cudaMalloc((void **)&part, B * sizeof *part));
    CUDA_CHECK(cudaMalloc((void **)&ws, sizeof *ws));
    CUDA_CHECK(cudaMalloc((void **)&total, sizeof *total));
    CUDA_CHECK(cudaMemset(ws, 0, sizeof *ws));
    for (int rep = 0; rep < 2; rep++) { /* the last block's reset serves the second launch */
        ck_assert_int_eq(gr_quiet(out, bytes, part, ws, total, M), cudaSuccess);
        capture_assert_no_reports("rewrites, bytes of one word, a last-block reduction");
        CUDA_CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(gotb, bytes, sizeof gotb, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&sum, total, sizeof sum, cudaMemcpyDeviceToHost));
        for (int i = 0; i < M; i++)
            ck_assert(got[i] == 2 * (i + 1) && gotb[i] == i % 251);
        ck_assert_int_eq(sum, M);
    }
    cudaFree(out), cudaFree(bytes), cudaFree(part), cudaFree(ws), cudaFree(total);
}
END_TEST

/* Two blocks writing one word, then exit(0): a child's whole run. */
static void race_then_exit(void)
{
    int *d;
    int ok = cudaMalloc((void **)&d, sizeof *d) == cudaSuccess &&
             gr_one_word(1, 0, d, 2) == cudaSuccess && cudaFree(d) == cudaSuccess;
    exit(ok ? 0 : 1); /* exit(), not _exit(): the summary runs at exit */
}

START_TEST(the_exit_summary_counts_its_findings)
{
    capture_checks_on();
    struct capture cap;
    fflush(NULL);
    capture_begin(&cap, 2);
    pid_t child = fork();
    ck_assert(child >= 0);
    if (child == 0)
        race_then_exit();
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    char *text = capture_end(&cap);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status, text);
    ck_assert_msg(strstr(text, "write-after-write hazard on global") &&
                      strstr(text, "was reported during this run (0 faults, 1 finding); see above"),
                  "no summary naming the finding: %s", text);
    free(text);
    free(capture_reports());
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"a_block_reduction_without_barriers_is_named", a_block_reduction_without_barriers_is_named,
         CASE_GPU, 60},
        {"a_grid_that_assumes_blocks_run_in_order_is_named",
         a_grid_that_assumes_blocks_run_in_order_is_named, CASE_GPU, 60},
        {"two_blocks_writing_one_word_are_named", two_blocks_writing_one_word_are_named, CASE_GPU,
         60},
        {"blocks_reading_what_others_write_are_named", blocks_reading_what_others_write_are_named,
         CASE_GPU, 60},
        {"grid_sync_orders_blocks", grid_sync_orders_blocks, CASE_GPU, 60},
        {"warps_handing_over_without_a_block_barrier", warps_handing_over_without_a_block_barrier,
         CASE_GPU, 60},
        {"correct_programs_are_reported_nothing", correct_programs_are_reported_nothing, CASE_GPU,
         60},
        {"the_exit_summary_counts_its_findings", the_exit_summary_counts_its_findings, CASE_GPU,
         60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
