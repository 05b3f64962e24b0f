/**
 * @file test_vm_hopper.c
 * @brief The PTX VM's sm_90 forms that need no tensor data: setmaxnreg, elect.sync with a
 *        partial mask, griddepcontrol; and what it refuses at decode, one line each (a register
 *        count setmaxnreg may not take, a wgmma shape or type mix that does not exist, integer
 *        wgmma with fp8's immediates, a wait_group count out of range). The wgmma arithmetic and
 *        clusters are in test_wgmma.c, through nvcc.
 *
 * One file holds each case whole: PTX text, run by the VM in this process (vm_case.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "course_test.h"
#include "vm_case.h"

/* A kernel hop(out) of registers @p decls whose body is @p body, then ret (malloc'd). */
static char *kernel_ptx(const char *decls, const char *body)
{
    char *text = NULL;
    ck_assert(asprintf(&text,
                       ".version 8.0\n.target sm_90a\n.address_size 64\n"
                       ".visible .entry hop(.param .u64 out)\n{\n%s\n%s\n  ret;\n}\n",
                       decls, body) > 0);
    return text;
}

/* Lanes 3 .. 31 of each warp elect one (lane 3) between setmaxnreg.dec and .inc, in a block of
 * 128 threads (one warpgroup) between griddepcontrol.wait and .launch_dependents; each thread
 * writes leader * 2 + (it is the leader), lanes 0 .. 2 write ~0. */
START_TEST(setmaxnreg_elect_sync_and_griddepcontrol)
{
    char *ptx = kernel_ptx(
        "  .reg .pred %p<3>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<5>;",
        "  griddepcontrol.wait;\n"
        "  setmaxnreg.dec.sync.aligned.u32 40;\n"
        "  setmaxnreg.inc.sync.aligned.u32 232;\n"
        "  mov.u32 %r1, %tid.x;\n  and.b32 %r2, %r1, 31;\n  mov.u32 %r3, -1;\n"
        "  setp.lt.u32 %p1, %r2, 3;\n  @%p1 bra SKIP;\n"
        "  elect.sync %r4|%p2, 0xfffffff8;\n  selp.u32 %r5, 1, 0, %p2;\n"
        "  mad.lo.u32 %r3, %r4, 2, %r5;\n"
        "SKIP:\n"
        "  ld.param.u64 %rd1, [out];\n  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
        "  st.global.u32 [%rd3], %r3;\n"
        "  griddepcontrol.launch_dependents;");
    struct vm_case c;
    vm_case_open(&c, ptx);
    uint64_t d_out = vm_case_buffer(&c, NULL, 128 * 4);
    void *args[] = {&d_out};
    ck_assert_int_eq(vm_case_run(&c, "hop", VM_GRID(2), VM_BLOCK(128), args), VM_OK);
    uint32_t out[128];
    vm_case_read(&c, out, d_out, sizeof out);
    for (uint32_t t = 0; t < 128; t++)
        ck_assert_msg(out[t] == (t % 32 < 3 ? ~0u : 3 * 2 + (t % 32 == 3)),
                      "thread %u wrote %u (lanes 3 .. 31 elect lane 3)", t, out[t]);
    vm_case_close(&c);
    free(ptx);
}
END_TEST

/* Each instruction decodes to a refusal that fails the launch reaching it, naming why. */
START_TEST(decode_refusals_name_the_rule)
{
    static const struct {
        const char *insn, *why;
    } cases[] = {
        {"setmaxnreg.inc.sync.aligned.u32 20;", "register count 20 is not a multiple of 8"},
        {"setmaxnreg.dec.sync.aligned.u32 100;", "register count 100 is not a multiple of 8"},
        {"wgmma.mma_async.sync.aligned.m64n12k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4, %f5, %f6}, "
         "%rd1, %rd2, 1, 1, 1, 0, 0;",
         "shape is not m64nNk16 with N = 8, 16, ..., 256"},
        {"wgmma.wait_group.sync.aligned 300;", "wgmma.wait_group 300 is out of range"},
        {"wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.s8 {%f1, %f2, %f3, %f4}, %rd1, %rd2, "
         "1, 1, 1;",
         "with f32.e5m2.s8 is not emulated"},
        {"wgmma.mma_async.sync.aligned.m64n8k32.satfinite.f32.e4m3.e4m3 {%f1, %f2, %f3, %f4}, "
         "%rd1, %rd2, 1, 1, 1;",
         "with satfinite.f32.e4m3.e4m3 is not emulated"},
        {"wgmma.mma_async.sync.aligned.m64n240k32.s32.s8.u8 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1;",
         "shape is not m64nNk32 with N = 8, 16, 24, 32, 48, ..., 224"},
        {"wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.u8 {%f1, %f2, %f3, %f4}, %rd1, %rd2, 1, 1, "
         "1;",
         "with A from a descriptor takes 4 operands"},
        {"wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.xor.popc {%f1, %f2, %f3, %f4}, %rd1, "
         "%rd2, 1;",
         "with s32.b1.b1.xor.popc is not emulated"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char body[400];
        snprintf(body, sizeof body, "  mov.u64 %%rd1, 0;\n  mov.u64 %%rd2, 0;\n  %s",
                 cases[i].insn);
        char *ptx = kernel_ptx("  .reg .f32 %f<8>;\n  .reg .b64 %rd<3>;", body);
        struct vm_case c;
        vm_case_open(&c, ptx);
        uint64_t d_out = vm_case_buffer(&c, NULL, 4);
        void *args[] = {&d_out};
        ck_assert_int_eq(vm_case_run(&c, "hop", VM_GRID(1), VM_BLOCK(128), args), VM_UNSUPPORTED);
        ck_assert_msg(strstr(c.result.message, cases[i].why) && !strchr(c.result.message, '\n'),
                      "%s: %s", cases[i].insn, c.result.message);
        vm_case_close(&c);
        free(ptx);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"setmaxnreg_elect_sync_and_griddepcontrol", setmaxnreg_elect_sync_and_griddepcontrol,
         CASE_CPU, 60},
        {"decode_refusals_name_the_rule", decode_refusals_name_the_rule, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
