/**
 * @file test_vm_warp.c
 * @brief The PTX VM's warp-level instructions (shuffles, votes, matches, reductions), block
 *        reductions at a barrier, and a race the seeded warp schedule must change; each kernel
 *        beside the case that runs it.
 *
 * One file holds each case whole. nvcc compiles the part between #ifdef VM_CASE_KERNELS and
 * #else to PTX (CMake: emu_vm_case()); the VM runs that PTX in this process (vm_case.h), and
 * the cases below check what the kernels wrote against the host's reading of the PTX ISA.
 */
#ifdef VM_CASE_KERNELS
#include <cstdint>

/* ---- warp level -------------------------------------------------------------------------------
 */

extern "C" __global__ void shuffles_kernel(const uint32_t *in, uint32_t *out)
{
    int t = threadIdx.x;
    uint32_t v = in[t];
    const int widths[3] = {8, 16, 32};
    for (int w = 0; w < 3; w++) {
        int width = widths[w];
        out[0 * 192 + w * 64 + t] = __shfl_up_sync(0xFFFFFFFFu, v, 3, width);
        out[1 * 192 + w * 64 + t] = __shfl_down_sync(0xFFFFFFFFu, v, 5, width);
        out[2 * 192 + w * 64 + t] = __shfl_xor_sync(0xFFFFFFFFu, v, 6, width);
        out[3 * 192 + w * 64 + t] = __shfl_sync(0xFFFFFFFFu, v, (int)(v % 37), width);
    }
}

extern "C" __global__ void votes_kernel(const uint32_t *in, uint32_t *out)
{
    int t = threadIdx.x;
    uint32_t v = in[t];
    int odd = v & 1;
    uint32_t *o = out + 8 * t;
    o[0] = __all_sync(0xFFFFFFFFu, odd);
    o[1] = __any_sync(0xFFFFFFFFu, odd);
    o[2] = __ballot_sync(0xFFFFFFFFu, odd);
    o[3] = __match_any_sync(0xFFFFFFFFu, v % 5);
    int pred;
    o[4] = __match_all_sync(0xFFFFFFFFu, v % 2, &pred);
    o[5] = (uint32_t)pred;
    o[6] = __reduce_add_sync(0xFFFFFFFFu, v);
    o[7] = __reduce_max_sync(0xFFFFFFFFu, v);
}
extern "C" __global__ void redux_match_kernel(uint32_t *out)
{
    uint32_t l = threadIdx.x, v = l * l - 40, d[8];
    asm volatile("redux.sync.add.s32 %0, %1, -1;" : "=r"(d[0]) : "r"(v));
    asm volatile("redux.sync.min.s32 %0, %1, -1;" : "=r"(d[1]) : "r"(v));
    asm volatile("redux.sync.max.s32 %0, %1, -1;" : "=r"(d[2]) : "r"(v));
    asm volatile("redux.sync.min.u32 %0, %1, -1;" : "=r"(d[3]) : "r"(v));
    asm volatile("redux.sync.max.u32 %0, %1, -1;" : "=r"(d[4]) : "r"(v));
    asm volatile("redux.sync.and.b32 %0, %1, -1;" : "=r"(d[5]) : "r"(v));
    asm volatile("redux.sync.or.b32 %0, %1, -1;" : "=r"(d[6]) : "r"(v));
    asm volatile("redux.sync.xor.b32 %0, %1, -1;" : "=r"(d[7]) : "r"(v));
    if (l == 0)
        for (int k = 0; k < 8; k++)
            out[k] = d[k];
    out[8 + l] = __match_any_sync(0xFFFFFFFFu, (unsigned long long)(l % 3) << 40);
    out[40 + l] = 0;
    if (l & 1)
        out[40 + l] = __ballot_sync(0xAAAAAAAAu, l > 16);
}

/* __syncthreads_count, _and and _or (bar.red) over 96 threads, each result in every thread:
 * out[5 t + k]. */
extern "C" __global__ void bar_red_kernel(uint32_t *out)
{
    int t = threadIdx.x;
    out[5 * t] = (uint32_t)__syncthreads_count(t % 3 == 0);
    out[5 * t + 1] = (uint32_t)__syncthreads_and(t != 40);
    out[5 * t + 2] = (uint32_t)__syncthreads_or(t == 95);
    out[5 * t + 3] = (uint32_t)__syncthreads_and(t < 96);
    out[5 * t + 4] = (uint32_t)__syncthreads_or(t > 95);
}

/* The warps race to one shared word: whichever the schedule runs last before the barrier wins. */
extern "C" __global__ void warp_race_kernel(int *out)
{
    __shared__ int last;
    if (threadIdx.x % 32 == 0)
        last = (int)threadIdx.x / 32; /* the race: no barrier orders these writes */
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = last;
}

#else
#include <stdint.h>
#include <stdlib.h>

#include "course_test.h"
#include "vm_case.h"

/* Run kernel @p name of this file on one block of @p threads with @p nargs buffers @p d. */
static void run(struct vm_case *c, const char *name, unsigned blocks, unsigned threads, uint64_t *d,
                int nargs)
{
    void *args[4];
    for (int i = 0; i < nargs; i++)
        args[i] = &d[i];
    ck_assert_msg(vm_case_run(c, name, VM_GRID(blocks), VM_BLOCK(threads), args) == VM_OK, "%s: %s",
                  name, c->result.message);
}

/* What shfl.sync gives lane @p l of a warp holding @p v[], by the ISA's rule (mode 0 up by 3,
 * 1 down by 5, 2 xor 6, 3 idx v % 37), for width @p width as the CUDA intrinsics encode it. */
static uint32_t shfl_ref(const uint32_t *v, int l, int mode, int width)
{
    uint32_t seg = (uint32_t)(32 - width), c = mode == 0 ? 0 : 31;
    int base = (int)((uint32_t)l & seg), max = (int)(((uint32_t)l & seg) | (c & ~seg)), j;
    switch (mode) {
    case 0:
        j = l - 3;
        return j >= max ? v[j] : v[l];
    case 1:
        j = l + 5;
        return j <= max ? v[j] : v[l];
    case 2:
        j = l ^ 6;
        return j <= max ? v[j] : v[l];
    default:
        j = base | (int)((v[l] % 37) & 31 & ~seg);
        return j <= max ? v[j] : v[l];
    }
}

START_TEST(shuffles_every_mode_and_width)
{
    uint32_t in[64], out[4 * 192];
    for (int i = 0; i < 64; i++)
        in[i] = (uint32_t)(vm_case_rand() >> 33);
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t d[2] = {vm_case_buffer(&c, in, sizeof in), vm_case_buffer(&c, NULL, sizeof out)};
    run(&c, "shuffles_kernel", 1, 64, d, 2);
    vm_case_read(&c, out, d[1], sizeof out);
    static const int widths[3] = {8, 16, 32};
    for (int mode = 0; mode < 4; mode++)
        for (int w = 0; w < 3; w++)
            for (int t = 0; t < 64; t++) {
                uint32_t want = shfl_ref(in + (t & ~31), t & 31, mode, widths[w]);
                ck_assert_msg(out[mode * 192 + w * 64 + t] == want,
                              "shuffle mode %d width %d thread %d: %u, want %u", mode, widths[w], t,
                              out[mode * 192 + w * 64 + t], want);
            }
    vm_case_close(&c);
}
END_TEST

START_TEST(votes_matches_reductions)
{
    uint32_t in[64], out[8 * 64];
    for (int i = 0; i < 64; i++)
        in[i] = i < 32 ? (uint32_t)(vm_case_rand() >> 40)
                       : (uint32_t)(2 * (i % 3) + 1); /* warp 1: odd */
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t d[2] = {vm_case_buffer(&c, in, sizeof in), vm_case_buffer(&c, NULL, sizeof out)};
    run(&c, "votes_kernel", 1, 64, d, 2);
    vm_case_read(&c, out, d[1], sizeof out);
    for (int t = 0; t < 64; t++) {
        const uint32_t *v = in + (t & ~31), *o = out + 8 * t;
        uint32_t ballot = 0, same5 = 0, sum = 0, max = 0;
        int same2 = 1;
        for (int l = 0; l < 32; l++) {
            ballot |= (v[l] & 1) << l;
            same5 |= (uint32_t)(v[l] % 5 == v[t & 31] % 5) << l;
            same2 &= v[l] % 2 == v[0] % 2;
            sum += v[l];
            max = v[l] > max ? v[l] : max;
        }
        uint32_t want[8] = {ballot == 0xFFFFFFFFu,   ballot != 0,     ballot, same5,
                            same2 ? 0xFFFFFFFFu : 0, (uint32_t)same2, sum,    max};
        for (int k = 0; k < 8; k++)
            ck_assert_msg(o[k] == want[k], "thread %d result %d: 0x%08x, want 0x%08x", t, k, o[k],
                          want[k]);
    }
    vm_case_close(&c);
}
END_TEST

/* redux.sync in every op over v = lane^2 - 40, match.any.sync.b64 and a ballot of half a warp. */
START_TEST(redux_match_ballot_by_hand)
{
    uint32_t out[72];
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t d[1] = {vm_case_buffer(&c, NULL, sizeof out)};
    run(&c, "redux_match_kernel", 1, 32, d, 1);
    vm_case_read(&c, out, d[0], sizeof out);
    /* sum of l^2 for l < 32 is 10416, less 32 * 40; lane 0 is the least signed (-40), lane 31 the
     * largest (921); as unsigned, lane 7's 9 is the least and lane 6's -4 the largest. and, or
     * and xor of the 32 words, worked out once on paper and checked in Python. */
    const uint32_t want[8] = {9136, (uint32_t)-40, 921,        9, 0xFFFFFFFCu,
                              0,    0xFFFFFFFDu,   0xFFFFFE00u};
    static const char *const ops[8] = {"add.s32", "min.s32", "max.s32", "min.u32",
                                       "max.u32", "and.b32", "or.b32",  "xor.b32"};
    for (int k = 0; k < 8; k++)
        ck_assert_msg(out[k] == want[k], "redux.sync.%s = 0x%08x, want 0x%08x", ops[k], out[k],
                      want[k]);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t same = 0x49249249u << (l % 3); /* lanes 0, 3, 6, ... shifted by l % 3 */
        ck_assert_msg(out[8 + l] == same, "match.any.sync.b64 lane %u: 0x%08x, want 0x%08x", l,
                      out[8 + l], same);
        uint32_t ballot = l & 1 ? 0xAAAA0000u : 0; /* odd lanes above 16 */
        ck_assert_msg(out[40 + l] == ballot, "vote.ballot lane %u: 0x%08x, want 0x%08x", l,
                      out[40 + l], ballot);
    }
    vm_case_close(&c);
}
END_TEST

/* bar.red: every thread of three warps gets the block's count, and, or. */
START_TEST(barrier_reductions)
{
    uint32_t out[5 * 96];
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    uint64_t d[1] = {vm_case_buffer(&c, NULL, sizeof out)};
    run(&c, "bar_red_kernel", 1, 96, d, 1);
    vm_case_read(&c, out, d[0], sizeof out);
    /* 32 of 96 threads have t % 3 == 0; thread 40 breaks the first and; thread 95 makes the
     * first or; every thread has t < 96 and none t > 95. */
    static const uint32_t want[5] = {32, 0, 1, 1, 0};
    static const char *const what[5] = {"count(t %% 3 == 0)", "and(t != 40)", "or(t == 95)",
                                        "and(t < 96)", "or(t > 95)"};
    for (int t = 0; t < 96; t++)
        for (int k = 0; k < 5; k++)
            ck_assert_msg(out[5 * t + k] == want[k], "__syncthreads_%s in thread %d: %u, want %u",
                          what[k], t, out[5 * t + k], want[k]);
    vm_case_close(&c);
}
END_TEST

/* The seeded schedule (COURSE_EMU_SCHEDULE=seed:N, vm_launch::seed): each block's warps take
 * their turns in an order drawn from N and the block, so a race on shared memory changes the
 * answer from block to block (the forward schedule's is always the last warp), and the same seed
 * gives the same answers again, on any number of threads. */
START_TEST(seeded_schedule_changes_a_race)
{
    enum { BLOCKS = 61 };
    setenv("COURSE_EMU_THREADS", "2", 1);
    int first[BLOCKS], again[BLOCKS], last = 0;
    struct vm_case c;
    vm_case_open(&c, VM_CASE_PTX);
    c.schedule = VM_SCHEDULE_SEEDED;
    c.seed = 7;
    uint64_t d[1] = {vm_case_buffer(&c, NULL, sizeof first)};
    run(&c, "warp_race_kernel", BLOCKS, 256, d, 1);
    vm_case_read(&c, first, d[0], sizeof first);
    run(&c, "warp_race_kernel", BLOCKS, 256, d, 1);
    vm_case_read(&c, again, d[0], sizeof again);
    for (int b = 0; b < BLOCKS; b++) {
        ck_assert_msg(first[b] >= 0 && first[b] < 8 && first[b] == again[b],
                      "block %d of %d: winners %d then %d under seed:7", b, BLOCKS, first[b],
                      again[b]);
        last += first[b] == 7;
    }
    ck_assert_msg(last < BLOCKS / 2, "%d of %d blocks' races were won by the last warp", last,
                  BLOCKS);
    vm_case_close(&c);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"shuffles_every_mode_and_width", shuffles_every_mode_and_width, CASE_CPU, 60},
        {"votes_matches_reductions", votes_matches_reductions, CASE_CPU, 60},
        {"redux_match_ballot_by_hand", redux_match_ballot_by_hand, CASE_CPU, 60},
        {"barrier_reductions", barrier_reductions, CASE_CPU, 60},
        {"seeded_schedule_changes_a_race", seeded_schedule_changes_a_race, CASE_CPU, 20},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
#endif
