/**
 * @file test_vm_model.c
 * @brief What the time model reads from a kernel's code (emulator/vm/model_code.h): the loads a
 *        warp has in flight together, and the SASS instructions each PTX instruction stands
 *        for, given a SASS file's lines, on hand-written PTX whose source lines are known.
 *
 * The kernel: a load and a loop. Line 10 sets up (outside the loop, run once), line 11 is the
 * loop's control, line 12 its body: a global load, then integer mixing with one mul.lo (an
 * integer loop line has no fp32 or memory anchor but line 12's load), line 13 the mixing alone,
 * line 14 the store after the loop. The SASS lines say what ptxas made of them, unrolled 4
 * times where the PTX is not. And what the model reads of the counters: all but the unique
 * bytes, which a launch counted for the model alone does not keep; a GPU file's fields; and
 * which atomics ptxas sums over a warp before sending one update.
 */
#include "gpus.h"
#include "model_code.h"
#include "vm_case.h"

#include "course_test.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ptx[] = ".version 8.0\n"
                          ".target sm_80\n"
                          ".address_size 64\n"
                          ".file 1 \"k.cu\"\n"
                          ".visible .entry k(.param .u64 x, .param .u32 n)\n"
                          "{\n"
                          "  .reg .b32 %r<12>;\n"
                          "  .reg .b64 %rd<4>;\n"
                          "  .reg .pred %p<2>;\n"
                          "  .loc 1 10 0\n"
                          "  ld.param.u64 %rd1, [x];\n" /* 0 */
                          "  ld.param.u32 %r1, [n];\n"  /* 1 */
                          "  mov.u32 %r2, 0;\n"         /* 2 */
                          "  mov.u32 %r3, 7;\n"         /* 3 */
                          "$L_loop:\n"
                          "  .loc 1 12 0\n"
                          "  ld.global.u32 %r4, [%rd1];\n"   /* 4 */
                          "  ld.global.u32 %r5, [%rd1+4];\n" /* 5 */
                          "  xor.b32 %r6, %r4, %r5;\n"       /* 6 */
                          "  .loc 1 13 0\n"
                          "  shr.u32 %r7, %r3, 16;\n"         /* 7 */
                          "  xor.b32 %r8, %r7, %r6;\n"        /* 8 */
                          "  mul.lo.u32 %r3, %r8, 1234567;\n" /* 9 */
                          "  .loc 1 11 0\n"
                          "  add.u32 %r2, %r2, 1;\n"       /* 10 */
                          "  setp.lt.u32 %p1, %r2, %r1;\n" /* 11 */
                          "  @%p1 bra $L_loop;\n"          /* 12 */
                          "  .loc 1 14 0\n"
                          "  st.global.u32 [%rd1], %r3;\n" /* 13 */
                          "  ret;\n"                       /* 14 */
                          "}\n";

/* The SASS lines of kernel k: @p body's and the loop control's as given, setup and store 1:1. */
static uint32_t *weights(struct vm_case *c, const struct model_sass_line *body, size_t n,
                         uint8_t **batch)
{
    int k = vm_find(c->module, "k");
    ck_assert_int_ge(k, 0);
    *batch = model_batches(c->module, (uint32_t)k);
    return model_sass_weights(c->module, (uint32_t)k, body, n, *batch);
}

/* Weight @p got of instruction @p i (SASS_ONE units) against @p want, within their rounding. */
static void weight_is(const uint32_t *got, int i, double want)
{
    double w = (double)got[i] / SASS_ONE;
    ck_assert_msg(fabs(w - want) < 1e-5, "%s:%d: instruction %d: SASS weight %g, want %g", __FILE__,
                  __LINE__, i, w, want);
}

/* ptxas unrolled the loop 4 times: line 12's two loads are 8 LDG (anchors), line 13's mul.lo
 * 4 plain IMADs (its only 1:1 instruction), line 11 the control once per 4 steps (3 SASS, no
 * anchor, no IMAD). Each line's SASS over its PTX, divided by the unrolling: line 12 (8 + 4
 * LOP3) / (4 * 3) = 1, line 13 12 / (4 * 3) = 1, line 11 3 / (4 * 3) = 0.25 from its loop's
 * lines; setup and store, outside the loop, 1 per PTX instruction as run once. The loads, one
 * batch of 2 in the PTX (the xor reads both), are 8 in flight in SASS. */
START_TEST(integer_loop_lines_unrolled_like_their_loop)
{
    struct vm_case c;
    vm_case_open(&c, ptx);
    const struct model_sass_line sass[] = {
        {"k.cu", 10, 4, 0, 0, 0, 0}, {"k.cu", 12, 12, 8, 0, 0, 0}, {"k.cu", 13, 12, 0, 4, 0, 0},
        {"k.cu", 11, 3, 0, 0, 0, 0}, {"k.cu", 14, 2, 1, 0, 0, 0},
    };
    uint8_t *batch;
    uint32_t *w = weights(&c, sass, sizeof sass / sizeof *sass, &batch);
    ck_assert_ptr_nonnull(w);
    for (int i = 0; i <= 3; i++)
        weight_is(w, i, 1.0);
    for (int i = 4; i <= 9; i++)
        weight_is(w, i, 1.0);
    for (int i = 10; i <= 12; i++)
        weight_is(w, i, 0.25);
    weight_is(w, 13, 1.0);
    ck_assert_int_eq(batch[4], 8);
    ck_assert_int_eq(batch[5], 8);
    ck_assert_int_eq(batch[6], 0);
    free(w);
    free(batch);
    vm_case_close(&c);
}
END_TEST

/* With too few of the SASS instructions on the PTX's lines, PTX is counted (NULL) and the
 * batches stay the PTX's. Line 12's loads not unrolled (2 LDG, 1 LOP3): a loop line with
 * neither anchors nor IMADs takes that ratio, 1 (line 13's 6 SASS over its 3 PTX: 2 each), one
 * with IMADs its own (4 IMADs for 1 mul.lo: 12 SASS over 4 x 3 PTX, 1 each). */
START_TEST(unmatched_and_integer_lines)
{
    struct vm_case c;
    vm_case_open(&c, ptx);
    const struct model_sass_line elsewhere[] = {{"other.cu", 12, 12, 8, 0, 0, 0}};
    uint8_t *batch;
    ck_assert_ptr_null(weights(&c, elsewhere, 1, &batch));
    ck_assert_int_eq(batch[4], 2);
    free(batch);
    const struct model_sass_line plain[] = {{"k.cu", 13, 6, 0, 0, 0, 0},
                                            {"k.cu", 12, 3, 2, 0, 0, 0}};
    uint32_t *w = weights(&c, plain, 2, &batch);
    ck_assert_ptr_nonnull(w);
    weight_is(w, 7, 2.0);
    free(w);
    free(batch);
    const struct model_sass_line imads[] = {{"k.cu", 13, 12, 0, 4, 0, 0},
                                            {"k.cu", 12, 3, 2, 0, 0, 0}};
    w = weights(&c, imads, 2, &batch);
    ck_assert_ptr_nonnull(w);
    weight_is(w, 7, 1.0);
    ck_assert_int_eq(batch[4], 2);
    free(w);
    free(batch);
    vm_case_close(&c);
}
END_TEST

/* A load's waits: its line's SASS waits over its SASS loads where the SASS has loads on the
 * line (line 12 unrolled 4 times: 8 LDG; issued together, 1/8 of a wait each; waited for one
 * at a time, 1 each), else 1 over its batch (8 in flight once unrolled); other instructions 0;
 * NULL without SASS. */
START_TEST(load_waits_from_the_sass_order)
{
    struct vm_case c;
    vm_case_open(&c, ptx);
    int k = vm_find(c.module, "k");
    const struct model_sass_line together[] = {{"k.cu", 12, 12, 8, 0, 8, 1.0}},
                                 alone[] = {{"k.cu", 12, 12, 8, 0, 8, 8.0}},
                                 none[] = {{"k.cu", 12, 12, 8, 0, 0, 0.0}};
    const struct model_sass_line *cases[] = {together, alone, none};
    const double want[] = {0.125, 1.0, 0.125};
    for (int i = 0; i < 3; i++) {
        uint8_t *batch;
        uint32_t *w = weights(&c, cases[i], 1, &batch);
        float *waits = model_load_waits(c.module, (uint32_t)k, cases[i], 1, batch);
        ck_assert_ptr_nonnull(waits);
        for (int j = 4; j <= 5; j++)
            ck_assert_msg(fabs(waits[j] - want[i]) < 1e-6,
                          "%s:%d: case %d load %d: %g waits, want %g", __FILE__, __LINE__, i, j,
                          waits[j], want[i]);
        ck_assert_msg(waits[6] == 0 && waits[13] == 0, "%s:%d: a non-load has waits", __FILE__,
                      __LINE__);
        free(waits);
        free(w);
        free(batch);
    }
    ck_assert_ptr_null(model_load_waits(c.module, (uint32_t)k, together, 0, NULL));
    vm_case_close(&c);
}
END_TEST

/* Kernel k on 32 threads, 3 rounds, counted as @p how asks. */
static struct vm_counters counted(enum vm_count how)
{
    struct vm_case c;
    vm_case_open(&c, ptx);
    c.count = how;
    uint32_t in[2] = {5, 9}, n = 3;
    uint64_t x = vm_case_buffer(&c, in, sizeof in);
    void *args[] = {&x, &n};
    ck_assert_int_eq(vm_case_run(&c, "k", VM_GRID(1), VM_BLOCK(32), args), VM_OK);
    struct vm_counters got = c.result.counters;
    vm_case_close(&c);
    return got;
}

/* Counted for the model alone, a launch keeps every counter but the unique bytes (the set of
 * every sector it touched): 6 load requests of one sector each, 1 store, the same both ways;
 * one distinct sector read and one written when all is counted, none kept for the model. */
START_TEST(model_counting_leaves_out_unique_bytes)
{
    struct vm_counters all = counted(VM_COUNT_ALL), model = counted(VM_COUNT_MODEL);
    ck_assert_uint_eq(all.gld_requests, 6);
    ck_assert_uint_eq(all.gld_sectors, 6);
    ck_assert_uint_eq(all.gst_sectors, 1);
    ck_assert_uint_eq(all.unique_read_bytes, 32);
    ck_assert_uint_eq(all.unique_write_bytes, 32);
    ck_assert_uint_eq(model.unique_read_bytes, 0);
    ck_assert_uint_eq(model.unique_write_bytes, 0);
    all.unique_read_bytes = all.unique_write_bytes = 0;
    ck_assert_msg(!memcmp(&all, &model, sizeof all),
                  "%s:%d: a counter other than the unique bytes differs when counted for the model",
                  __FILE__, __LINE__);
}
END_TEST

/* Atomics as ptxas issues them (model_warp_sums()): instruction by instruction, what its SASS for
 * sm_80 showed for the same forms. */
static const char atom_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry a(.param .u64 out, .param .u64 in)\n"
    "{\n"
    "  .reg .b32 %r<12>;\n"
    "  .reg .f32 %f<2>;\n"
    "  .reg .b64 %rd<12>;\n"
    "  .reg .pred %p<2>;\n"
    "  .shared .u32 s;\n"
    "  ld.param.u64 %rd1, [out];\n"             /* 0 */
    "  cvta.to.global.u64 %rd2, %rd1;\n"        /* 1 */
    "  ld.param.u64 %rd3, [in];\n"              /* 2 */
    "  cvta.to.global.u64 %rd4, %rd3;\n"        /* 3 */
    "  mov.u32 %r1, %tid.x;\n"                  /* 4 */
    "  mul.wide.u32 %rd5, %r1, 4;\n"            /* 5 */
    "  add.s64 %rd6, %rd4, %rd5;\n"             /* 6 */
    "  ld.global.u32 %r2, [%rd6];\n"            /* 7: a lane's value */
    "  red.global.add.u32 [%rd2], %r2;\n"       /* 8: REDUX.SUM */
    "  atom.global.add.u32 %r3, [%rd2], %r2;\n" /* 9: result used: a scan, full warps */
    "  atom.global.add.u32 %r4, [%rd2], 1;\n"   /* 10: POPC */
    "  red.global.add.u64 [%rd2], 1;\n"         /* 11: POPC */
    "  cvt.u64.u32 %rd7, %r2;\n"                /* 12 */
    "  red.global.add.u64 [%rd2], %rd7;\n"      /* 13: 64-bit lane values: one a lane */
    "  red.global.add.f32 [%rd2], %f1;\n"       /* 14: fp32: one a lane */
    "  red.global.inc.u32 [%rd2], 9;\n"         /* 15: inc: one a lane */
    "  red.global.max.s32 [%rd2], %r2;\n"       /* 16: REDUX.MAX */
    "  atom.global.max.s32 %r5, [%rd2], %r2;\n" /* 17: result used: one a lane */
    "  red.global.add.u32 [%rd6], %r2;\n"       /* 18: a lane's own address */
    "  shr.u32 %r6, %r1, 5;\n"                  /* 19 */
    "  mul.wide.u32 %rd8, %r6, 4;\n"            /* 20 */
    "  add.s64 %rd9, %rd2, %rd8;\n"             /* 21 */
    "  red.global.add.u32 [%rd9], %r2;\n"       /* 22: tid / 32: not known the warp's */
    "  red.shared.add.u32 [s], %r2;\n"          /* 23: shared, REDUX.SUM */
    "  add.u32 %r7, %r3, %r4;\n"                /* 24: reads 9's and 10's results */
    "  st.global.u32 [%rd6], %r7;\n"            /* 25 */
    "  st.global.u32 [%rd6+4], %r5;\n"          /* 26 */
    "  mov.u64 %rd10, %rd2;\n"                  /* 27 */
    "  setp.eq.u32 %p1, %r1, 0;\n"              /* 28: a lane's own branch */
    "  @%p1 bra $L_lane;\n"                     /* 29 */
    "  add.s64 %rd10, %rd2, 4;\n"               /* 30: a second write, its lanes chosen */
    "$L_lane:\n"
    "  red.global.add.u32 [%rd10], %r2;\n" /* 31: after a branch on the lane */
    "  ret;\n"                             /* 32 */
    "}\n";

/* Each atomic's warp sum: a parameter's address summed (REDUX, POPC, a scan of full warps),
 * every other case one update a lane. */
START_TEST(atomics_a_warp_sums_first)
{
    struct vm_case c;
    vm_case_open(&c, atom_ptx);
    int k = vm_find(c.module, "a");
    ck_assert_int_ge(k, 0);
    uint8_t *sum = model_warp_sums(c.module, (uint32_t)k);
    static const struct {
        int i;
        uint8_t want;
    } cases[] = {{8, WARP_SUM_ANY},   {9, WARP_SUM_FULL},  {10, WARP_SUM_ANY},  {11, WARP_SUM_ANY},
                 {13, WARP_SUM_NONE}, {14, WARP_SUM_NONE}, {15, WARP_SUM_NONE}, {16, WARP_SUM_ANY},
                 {17, WARP_SUM_NONE}, {18, WARP_SUM_NONE}, {22, WARP_SUM_NONE}, {23, WARP_SUM_ANY},
                 {31, WARP_SUM_NONE}, {7, WARP_SUM_NONE}};
    for (size_t n = 0; n < sizeof cases / sizeof *cases; n++)
        ck_assert_msg(sum[cases[n].i] == cases[n].want,
                      "%s:%d: instruction %d: warp sum %d, want %d", __FILE__, __LINE__, cases[n].i,
                      sum[cases[n].i], cases[n].want);
    free(sum);
    vm_case_close(&c);
}
END_TEST

/* A GPU file (./course estimate --gpu=FILE): the T4 row's numbers as "field = value" lines, the
 * optional ones left out, then @p extra. */
static int load_gpu(const char *extra, struct model_gpu *g, char *err, size_t size)
{
    char path[] = "/tmp/course-gpu-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    ck_assert_msg(f != NULL, "%s:%d: cannot write a temporary GPU file", __FILE__, __LINE__);
    fprintf(f,
            "name = mine # a comment\nsms = 40\nclock_mhz = 1590\nfp32_lanes = 64\n"
            "tensor_tflops = 65\nschedulers = 4\nregs_per_sm = 65536\nsmem_per_sm = 65536\n"
            "l1_per_sm = 98304\nl2_bytes = 4194304\nl2_bytes_per_clk = 1896\n"
            "max_warps = 32\nmax_blocks = 16\nlat_l1 = 32\nlat_l2 = 190\nlat_dram = 450\n"
            "launch_us = 3\n%s",
            extra);
    fclose(f);
    int r = gpus_load(path, g, err, size);
    remove(path);
    return r;
}

/* The optional fields take their defaults (the dense Tensor rate, gpus.c's 3 clocks an fp32
 * atomic add, 2 FP64 units an SM, 16 special functions a clock and no f64 Tensor Cores), or the
 * file's value; a missing field or
 * a line the table does not know is one line that names it. */
START_TEST(gpu_file_fields)
{
    struct model_gpu g;
    char err[256];
    ck_assert_msg(!load_gpu("dram_gbs = 320\n", &g, err, sizeof err), "%s:%d: %s", __FILE__,
                  __LINE__, err);
    ck_assert_str_eq(g.name, "mine");
    ck_assert_double_eq(g.mma_tflops, 65);
    ck_assert_double_eq(g.wgmma_tflops, 65);
    ck_assert_double_eq(g.atom_f32_clk, 3.0);
    ck_assert_uint_eq(g.fp64_lanes, 2);
    ck_assert_uint_eq(g.sfu_lanes, 16);
    ck_assert_double_eq(g.dmma_tflops, 0);
    ck_assert_msg(!load_gpu("dram_gbs = 320\natom_f32_clk = 1.5\nfp64_lanes = 32\n"
                            "dmma_tflops = 19.5\n",
                            &g, err, sizeof err),
                  "%s:%d: %s", __FILE__, __LINE__, err);
    ck_assert_double_eq(g.atom_f32_clk, 1.5);
    ck_assert_uint_eq(g.fp64_lanes, 32);
    ck_assert_double_eq(g.dmma_tflops, 19.5);
    ck_assert_int_eq(load_gpu("", &g, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no value for 'dram_gbs'"), "%s:%d: %s", __FILE__, __LINE__, err);
    ck_assert_int_eq(load_gpu("dram_gbs = 320\nwarp_size = 32\n", &g, err, sizeof err), -1);
    ck_assert_msg(strstr(err, ":19: not a 'field = value' line"), "%s:%d: %s", __FILE__, __LINE__,
                  err);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"integer_loop_lines_unrolled_like_their_loop", integer_loop_lines_unrolled_like_their_loop,
         CASE_CPU, 20},
        {"unmatched_and_integer_lines", unmatched_and_integer_lines, CASE_CPU, 20},
        {"load_waits_from_the_sass_order", load_waits_from_the_sass_order, CASE_CPU, 20},
        {"model_counting_leaves_out_unique_bytes", model_counting_leaves_out_unique_bytes, CASE_CPU,
         20},
        {"gpu_file_fields", gpu_file_fields, CASE_CPU, 20},
        {"atomics_a_warp_sums_first", atomics_a_warp_sums_first, CASE_CPU, 20},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
