/**
 * @file test_fp.c
 * @brief The VM's fast 16-bit rounding and widening (emulator/common/fp.h) against its general
 *        rounding, fp_round(), and exact value, fp_value(), on the host.
 *
 * fp_round_rn_narrow() is what every f16 and bf16 arithmetic result goes through; it takes
 * integer shortcuts for normal results. It must give fp_round()'s bits for every input: here,
 * every value of both formats, the midpoints between neighbours (the ties), the doubles either
 * side of each, and random doubles over the whole exponent range, with and without .ftz.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "course_test.h"
#include "fp.h"

static const struct {
    const char *name;
    struct fp_fmt f;
    unsigned count; /* bit patterns below the first NaN */
} formats[] = {{"f16", {10, 5}, 0x7C01}, {"bf16", {7, 8}, 0x7F81}};

/* How many of the four roundings of @p x (both signs, .ftz on and off) differ between
 * fp_round_rn_narrow and fp_round; the first difference of a case (none before it: @p
 * bad_so_far) gets one line. No assertion per value: that is slow. */
static int check_same(double x, int which, int bad_so_far)
{
    int bad = 0;
    for (int sign = 0; sign < 2; sign++)
        for (int ftz = 0; ftz < 2; ftz++) {
            double v = sign ? -x : x;
            uint32_t fast = fp_round_rn_narrow(v, formats[which].f, ftz);
            uint32_t slow = fp_round(v, formats[which].f, RND_RN, ftz);
            if (fast != slow && bad++ == 0 && bad_so_far == 0)
                fprintf(stderr, "%s: %a (ftz %d) rounds to 0x%04x, fp_round gives 0x%04x\n",
                        formats[which].name, v, ftz, fast, slow);
        }
    return bad;
}

/* Every value, every midpoint and the doubles either side of both, in both formats. */
START_TEST(narrow_rounding_at_every_boundary)
{
    int bad = 0;
    for (int which = 0; which < 2; which++) {
        struct fp_fmt f = formats[which].f;
        for (uint32_t h = 0; h + 1 < formats[which].count; h++) {
            double v = fp_value(h, f), next = fp_value(h + 1, f), mid = v + (next - v) / 2;
            const double points[] = {v, nextafter(v, INFINITY), mid, nextafter(mid, 0),
                                     nextafter(mid, INFINITY)};
            for (size_t p = 0; p < sizeof points / sizeof *points; p++)
                bad += check_same(points[p], which, bad);
        }
        bad += check_same(INFINITY, which, bad);
        bad += check_same(NAN, which, bad);
        bad += check_same(0x1p200, which, bad);
    }
    ck_assert_msg(bad == 0, "%d roundings differ from fp_round (the first on stderr)", bad);
}
END_TEST

/* Random doubles, exponents from far below the subnormals to past the largest value. */
START_TEST(narrow_rounding_random)
{
    uint64_t s = 15;
    int bad = 0;
    for (int i = 0; i < 1000000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double m = 1.0 + (double)(s >> 12) * 0x1p-52; /* 52 random mantissa bits */
        int e = (int)((s >> 3) % 300) - 160;          /* 2^-160 .. 2^139 */
        bad += check_same(ldexp(m, e), i & 1, bad);
    }
    ck_assert_msg(bad == 0, "%d roundings differ from fp_round (the first on stderr)", bad);
}
END_TEST

/* fp_f16_to_f32 is exact on all 65536 patterns (NaN stays NaN). */
START_TEST(f16_widening_exact)
{
    for (uint32_t h = 0; h < 65536; h++) {
        double want = fp_value(h, FMT_F16), got = fp_f16_to_f32((uint16_t)h);
        ck_assert_msg(isnan(want) ? isnan(got) : got == want && signbit(got) == signbit(want),
                      "f16 0x%04x widens to %a, not %a", h, got, want);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"narrow_rounding_at_every_boundary", narrow_rounding_at_every_boundary, CASE_CPU, 60},
        {"narrow_rounding_random", narrow_rounding_random, CASE_CPU, 60},
        {"f16_widening_exact", f16_widening_exact, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
