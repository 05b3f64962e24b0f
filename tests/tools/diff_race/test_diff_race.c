/**
 * @file test_diff_race.c
 * @brief The judge of diff_race.cu: each case passes on its own; under COURSE_DIFF=schedule the
 *        racy one leaves a mismatch line and the other none (tests/tools/differential_smoke.sh).
 */
#include <stdlib.h>

#include "course_judge.h"
#include "course_test.h"
#include "diff_race.h"

/* Blocks per launch: a prime, so no block count divides it. */
enum { BLOCKS = 7 };

/* Call @p name on BLOCKS blocks; its output (malloc'd). */
static int *launch(const char *name)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    int out = course_buf_out(r, PROTO_DEVICE, BLOCKS * sizeof(int), 0);
    COURSE_CALL(r, name, PROTO_VOID, COURSE_I32(BLOCKS), COURSE_PTR(out));
    char what[64];
    snprintf(what, sizeof what, "%s at blocks=%d", name, BLOCKS);
    int *got = course_buf_read(r, out, what);
    course_runner_stop(r);
    return got;
}

START_TEST(warp_sum_any_order)
{
    const int warps = (DIFF_RACE_THREADS + 31) / 32;
    int *got = launch("diff_warp_sum");
    for (int b = 0; b < BLOCKS; b++)
        ck_assert_msg(got[b] == (b + 1) * warps * (warps + 1) / 2,
                      "diff_warp_sum at blocks=%d: block %d gave %d, want %d", BLOCKS, b, got[b],
                      (b + 1) * warps * (warps + 1) / 2);
    free(got);
}
END_TEST

START_TEST(last_warp_is_a_race)
{
    const int warps = (DIFF_RACE_THREADS + 31) / 32;
    int *got = launch("diff_last_warp");
    for (int b = 0; b < BLOCKS; b++)
        ck_assert_msg(got[b] >= 0 && got[b] < warps,
                      "diff_last_warp at blocks=%d: block %d gave %d, not a warp of %d", BLOCKS, b,
                      got[b], warps);
    free(got);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"warp_sum_any_order", warp_sum_any_order, CASE_GPU, 60},
        {"last_warp_is_a_race", last_warp_is_a_race, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
