/**
 * @file test_hopper.c
 * @brief Lesson 12's suite: the Hopper GEMMs against the CPU at the shapes the tensor maps
 *        allow (exactly on small integers, within the course's rounding rule on random inputs),
 *        the shapes they refuse, then what each step teaches, counted on the CPU emulator: every
 *        product on wgmma, every byte of A and B brought in by TMA, copies in flight while
 *        wgmma runs; and speed ratios on an sm_90 GPU.
 *
 * Cases are named by the exercise's stages (tma, pipeline, specialize). Every bound is derived
 * from the problem, never from the solution's tiles: another block tile, 2 to 6 stages, one
 * consumer warpgroup or two, all score alike.
 */
#include <stdlib.h>
#include <string.h>

#include "course_half.h"
#include "course_judge.h"
#include "course_test.h"

/* M anything (1, primes, 1000+), N and K multiples of 8 (hopper.h): boxes past every edge, K
 * shorter than one slice and not a multiple of it, N narrower than one box. */
static const int shapes[][3] = {
    {1, 8, 8},        {1, 136, 64},     {17, 24, 40},    {33, 200, 72},
    {64, 128, 64},    {131, 64, 8},     {127, 264, 136}, {200, 136, 1032},
    {1009, 1000, 24}, {17, 1000, 1000}, {256, 384, 512},
};
/* Random floats under the rounding rule: the longest K shows the accumulation's error. */
static const int random_shapes[][3] = {{33, 40, 8}, {129, 72, 4104}};

static void check_edges(const char *name)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_half_gemm_shapes(r, name, 1, shapes, sizeof shapes / sizeof *shapes, 1200, 0, 0);
    course_half_gemm_shapes(r, name, 1, random_shapes, 2, 1300, 1, 0);
    course_runner_stop(r);
}

/* Shapes the tensor maps cannot describe, and A or B off a 16-byte boundary: -1, and C as it
 * was (no launch wrote it). */
static void check_refusals(const char *name)
{
    static const int bad[][3] = {{31, 31, 31}, {32, 33, 32}, {32, 32, 36}, {0, 8, 8},
                                 {8, 0, 8},    {8, 8, 0},    {8, -8, 8}};
    static const size_t offsets[] = {2, 8};
    struct course_runner *r = course_runner_start(COURSE_EMULATED);
    uint16_t in[64 * 64] = {0};
    for (size_t b = 0; b < sizeof bad / sizeof *bad + 2; b++) {
        int M = 64, N = 64, K = 64;
        size_t off = 0;
        if (b < sizeof bad / sizeof *bad)
            M = bad[b][0], N = bad[b][1], K = bad[b][2];
        else
            off = offsets[b - sizeof bad / sizeof *bad];
        int a = course_buf_in(r, PROTO_DEVICE, in, sizeof in, off);
        int c = course_buf_out(r, PROTO_DEVICE, 64 * 64 * sizeof(float), 0);
        int64_t rc = COURSE_CALL(r, name, PROTO_I32, COURSE_I32(M), COURSE_I32(N), COURSE_I32(K),
                                 COURSE_PTR(a), COURSE_PTR(a), COURSE_PTR(c))
                         .i;
        ck_assert_msg(rc == -1,
                      "%s at M=%d N=%d K=%d, A and B %zu bytes past a 16-byte boundary: returned "
                      "%lld, want -1 (refused: N and K multiples of 8, pointers 16-byte aligned)",
                      name, M, N, K, off, (long long)rc);
        course_buf_free(r, a);
        course_buf_free(r, c);
    }
    course_runner_stop(r);
}

/* ---- metric cases: what each step teaches, counted on the CPU emulator --------------------- */

/* @p name at M x N x K on small integers, asserted exact, then its launches' counters. */
static struct vm_counters observed(struct course_runner *r, const char *name, int M, int N, int K)
{
    struct mat_cmp cmp = course_half_gemm(r, name, 1, M, N, K, 1400, 0, 0);
    char why[160];
    ck_assert_msg(cmp.n_bad == 0, "%s at M=%d N=%d K=%d: %s", name, M, N, K,
                  mat_cmp_describe(&cmp, why, sizeof why));
    return course_observed(r, name);
}

/*
 * Every product on wgmma: exactly 2 M N K flops of wgmma.mma_async when the tiles divide the
 * problem (@p exact), at least that otherwise (padding past the edges adds some), and none on
 * mma.sync, wmma or the CUDA cores' fp32 FMA.
 */
static void assert_wgmma(const char *name, const struct vm_counters *c, int M, int N, int K,
                         int exact)
{
    double need = 2.0 * M * N * K, got = (double)c->wgmma_flops;
    ck_assert_msg((exact ? got == need : got >= need) && c->tensor_flops == 0 &&
                      c->class_insts[VM_CLASS_FMA32] == 0,
                  "%s at %d x %d x %d: %.0f flops on wgmma, %llu on mma.sync/wmma and %llu fp32 "
                  "FMAs; the product is %.0f flops, %s on wgmma.mma_async, none elsewhere",
                  name, M, N, K, got, (unsigned long long)c->tensor_flops,
                  (unsigned long long)c->class_insts[VM_CLASS_FMA32], need,
                  exact ? "exactly that" : "at least that");
}

/* Every byte of A and B brought in by TMA: the copies put at least A's and B's bytes in shared
 * memory, and no thread loaded a single sector from global memory (A, B or anything else). */
static void assert_tma(const char *name, const struct vm_counters *c, int M, int N, int K)
{
    uint64_t need = 2ull * ((uint64_t)M * K + (uint64_t)K * N);
    ck_assert_msg(c->tma_ld_bytes >= need && c->gld_sectors == 0,
                  "%s at %d x %d x %d: TMA copies wrote %llu bytes into shared memory (A and B "
                  "hold %llu) and threads loaded %llu global sectors; every byte of A and B "
                  "comes in by cp.async.bulk.tensor, none by a thread's load",
                  name, M, N, K, (unsigned long long)c->tma_ld_bytes, (unsigned long long)need,
                  (unsigned long long)c->gld_sectors);
}

/*
 * The copies of the next slices in flight while wgmma runs: at K = 1024 (16 slices of 64, 32 of
 * 32), at least half of the wgmma flops belong to operations whose life met a TMA copy's (the
 * emulator's record, wgmma_overlapped_flops: a copy in flight for a warp as it issued the
 * operation, or a copy issued before the wait_group that retired it). With 2 or more stages
 * every slice but the last finds the next one on its way; one stage that waits for each copy
 * before its math, and for its math before the next copy, finds none.
 */
static void assert_overlap(const char *name, const struct vm_counters *c, int M, int N, int K)
{
    ck_assert_msg(2 * c->wgmma_overlapped_flops >= c->wgmma_flops && c->wgmma_flops > 0,
                  "%s at %d x %d x %d: %llu of %llu wgmma flops issued while TMA copies were in "
                  "flight, fewer than half: issue the copies of the next slices before waiting "
                  "for this one (a ring of stages, full and empty mbarriers)",
                  name, M, N, K, (unsigned long long)c->wgmma_overlapped_flops,
                  (unsigned long long)c->wgmma_flops);
}

/* @p name's counts at 256 x 256 x 1024 (tile multiples) and 200 x 136 x 72 (partial tiles); the
 * overlap when @p pipelined. */
static void check_counts(const char *name, int pipelined)
{
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c = observed(r, name, 256, 256, 1024);
    assert_wgmma(name, &c, 256, 256, 1024, 1);
    assert_tma(name, &c, 256, 256, 1024);
    if (pipelined)
        assert_overlap(name, &c, 256, 256, 1024);
    c = observed(r, name, 200, 136, 72);
    assert_wgmma(name, &c, 200, 136, 72, 0);
    assert_tma(name, &c, 200, 136, 72);
    course_runner_stop(r);
}

START_TEST(tma_edges)
{
    check_edges("wgmma_tma");
}
END_TEST

START_TEST(tma_refuses_bad_shapes)
{
    check_refusals("wgmma_tma");
}
END_TEST

START_TEST(tma_counts)
{
    check_counts("wgmma_tma", 0);
}
END_TEST

START_TEST(pipeline_edges)
{
    check_edges("wgmma_pipelined");
}
END_TEST

START_TEST(pipeline_refuses_bad_shapes)
{
    check_refusals("wgmma_pipelined");
}
END_TEST

START_TEST(pipeline_counts)
{
    check_counts("wgmma_pipelined", 1);
}
END_TEST

START_TEST(specialize_edges)
{
    check_edges("wgmma_warp_specialized");
}
END_TEST

START_TEST(specialize_refuses_bad_shapes)
{
    check_refusals("wgmma_warp_specialized");
}
END_TEST

START_TEST(specialize_counts)
{
    check_counts("wgmma_warp_specialized", 1);
}
END_TEST

/* ---- timing cases, on an sm_90 GPU ------------------------------------------------------------
 */

/* Same run, same data: each step faster than the one before. */
START_TEST(ladder_in_order)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double one = course_half_time(r, "wgmma_tma", 1, 4096);
    double pipe = course_half_time(r, "wgmma_pipelined", 1, 4096);
    double spec = course_half_time(r, "wgmma_warp_specialized", 1, 4096);
    course_runner_stop(r);
    course_assert_bar("wgmma_pipelined_over_tma", one / pipe,
                      "wgmma_pipelined %.3f ms, wgmma_tma %.3f ms", pipe, one);
    course_assert_bar("wgmma_specialized_over_pipelined", pipe / spec,
                      "wgmma_warp_specialized %.3f ms, wgmma_pipelined %.3f ms", spec, pipe);
}
END_TEST

/* wgmma_warp_specialized against cuBLAS GemmEx on bfloat16, against the bar for this GPU. */
START_TEST(specialized_near_cublas)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double spec = course_half_time(r, "wgmma_warp_specialized", 1, 4096);
    course_runner_stop(r);
    double cublas = course_cublas_gemm16_ms(1, 4096);
    course_assert_bar("wgmma_specialized_vs_cublas", cublas / spec,
                      "wgmma_warp_specialized %.3f ms, cuBLAS GemmEx bf16 %.3f ms", spec, cublas);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"tma_edges", tma_edges, CASE_GPU, 300},
        {"tma_refuses_bad_shapes", tma_refuses_bad_shapes, CASE_GPU, 60},
        {"tma_counts", tma_counts, CASE_GPU, 120},
        {"pipeline_edges", pipeline_edges, CASE_GPU, 300},
        {"pipeline_refuses_bad_shapes", pipeline_refuses_bad_shapes, CASE_GPU, 60},
        {"pipeline_counts", pipeline_counts, CASE_GPU, 120},
        {"specialize_edges", specialize_edges, CASE_GPU, 300},
        {"specialize_refuses_bad_shapes", specialize_refuses_bad_shapes, CASE_GPU, 60},
        {"specialize_counts", specialize_counts, CASE_GPU, 120},
        {"ladder_in_order", ladder_in_order, CASE_SM90A | CASE_PERF, 120},
        {"specialized_near_cublas", specialized_near_cublas, CASE_SM90A | CASE_PERF, 120},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
