/**
 * @file test_programs.c
 * @brief The emulator's conformance suite, second part: small CUDA programs of the project's
 *        own (test_programs_kernels.cu), one per PTX family a course program compiles to, each
 *        checked against the host.
 *
 * Atomics of every integer and float type in global, shared and generic space and at every
 * scope; fences with a release/acquire counter; cooperative groups' tiled partitions and
 * coalesced groups; cp.async with two groups in flight; dynamic shared memory above 48 KiB;
 * the math library in fp32 and fp64 within the error bounds the CUDA C++ Programming Guide
 * gives; bmsk and griddepcontrol; and wmma's f64 and 8-bit integer shapes, saturating or not.
 * Printf, assert, ldmatrix and mma.sync are in vm/test_vm_*.c, CUB's device-wide algorithms in
 * test_cub.c. Inputs are small non-uniform integers (or values in [-10, 10)), so every integer and
 * float sum is exact and compared with ==.
 *
 * CTest runs it with the emulator's libraries first on LD_LIBRARY_PATH, GPU or not.
 */
#define _GNU_SOURCE
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "mat.h"
#include "test_programs.h"

/* n small integers in [lo, lo + span), drawn from @p seed. */
static int *small_ints(int n, int lo, int span, uint64_t seed)
{
    int *v = mat_alloc((size_t)n * sizeof *v);
    for (int i = 0; i < n; i++)
        v[i] = lo + (int)(mat_rand_next(&seed) % (uint64_t)span);
    return v;
}

static void *to_device(const void *src, size_t bytes)
{
    void *d;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* ---- atomics ------------------------------------------------------------------------------ */

/* The host's add, min, max, and, or, xor of v into s[0 .. 6), for each integer type. */
#define HOST_OPS(s, v)                                                                             \
    do {                                                                                           \
        (s)[0] += (v);                                                                             \
        (s)[1] = (v) < (s)[1] ? (v) : (s)[1];                                                      \
        (s)[2] = (v) > (s)[2] ? (v) : (s)[2];                                                      \
        (s)[3] &= (v), (s)[4] |= (v), (s)[5] ^= (v);                                               \
    } while (0)

/* The slots before any update: add 0, min @p hi, max @p lo, and all ones, or 0, xor 0. */
#define SLOTS_INIT(s, lo, hi)                                                                      \
    ((s)[0] = 0, (s)[1] = (hi), (s)[2] = (lo), (s)[3] = (s)[0] - 1, (s)[4] = 0, (s)[5] = 0)

/* What the atomics program must leave: global slots over all n threads, shared over block 0's,
 * from the initial state @p want (the global slots as the device got them). */
static void atomics_reference(const int *in, int n, struct prog_atomics *want)
{
    for (int i = 0; i < n; i++) {
        int v = in[i];
        unsigned u = (unsigned)(v + 100) * 40503u;
        long long l = (long long)v * 10000000007ll + i;
        unsigned long long q = (unsigned long long)(v + 100) << 33 | (unsigned)i;
        for (int space = 0; space < 2 && (space == 0 || i < 128); space++) {
            unsigned long long *l64 = (unsigned long long *)want->i64[space];
            HOST_OPS(want->i32[space], v);
            HOST_OPS(want->u32[space], u);
            l64[0] += (unsigned long long)l;
            want->i64[space][1] = l < want->i64[space][1] ? l : want->i64[space][1];
            want->i64[space][2] = l > want->i64[space][2] ? l : want->i64[space][2];
            l64[3] &= (unsigned long long)l, l64[4] |= (unsigned long long)l;
            l64[5] ^= (unsigned long long)l;
            HOST_OPS(want->u64[space], q);
            want->f32[space][0] += (float)v;
            want->f32[space][1] = fmaxf(want->f32[space][1], (float)v * 0.5f);
            want->f64[space][0] += v;
            want->f64[space][1] = fmax(want->f64[space][1], v * 0.25);
        }
        want->inc = want->inc >= 16 ? 0 : want->inc + 1;
        want->dec = want->dec == 0 || want->dec > 16 ? 16 : want->dec - 1;
        want->exch_sum += v; /* the olds plus the last value: the initial value plus every v */
        want->block_scope += v, want->sys_scope += 1, want->generic += v;
    }
}

/* Every type, op and space: n = 1, 127, 1000 and 4099 threads (one partial block or many). */
START_TEST(atomics_every_type_and_space)
{
    static const int sizes[] = {1, 127, 1000, 4099};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        int *in = small_ints(n, -50, 101, 7 + (uint64_t)n);
        struct prog_atomics init, got, want;
        memset(&init, 0, sizeof init);
        SLOTS_INIT(init.i32[0], -5, 5);
        SLOTS_INIT(init.u32[0], 3u, 4000000000u);
        SLOTS_INIT(init.i64[0], -5ll, 5ll);
        SLOTS_INIT(init.u64[0], 3ull, ~0ull >> 1);
        init.f32[0][1] = -1e30f, init.f64[0][1] = -1e300, init.dec = 5, init.exch_slot = 9;
        want = init;
        SLOTS_INIT(want.i32[1], INT_MIN, INT_MAX);
        SLOTS_INIT(want.u32[1], 0u, UINT_MAX);
        SLOTS_INIT(want.i64[1], LLONG_MIN, LLONG_MAX);
        SLOTS_INIT(want.u64[1], 0ull, ULLONG_MAX);
        want.f32[1][1] = -1e30f, want.f64[1][1] = -1e300;
        want.exch_sum = init.exch_slot;
        atomics_reference(in, n, &want);
        int *d_in = to_device(in, (size_t)n * sizeof *in);
        struct prog_atomics *d_out = to_device(&init, sizeof init);
        CUDA_CHECK(prog_atomics(d_in, n, d_out));
        CUDA_CHECK(cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost));
        got.exch_sum += got.exch_slot, got.exch_slot = want.exch_slot = 0;
        for (int sp = 0; sp < 2; sp++)
            for (int k = 0; k < PROG_ATOM_OPS; k++) {
                ck_assert_msg(
                    got.i32[sp][k] == want.i32[sp][k] && got.u32[sp][k] == want.u32[sp][k] &&
                        got.i64[sp][k] == want.i64[sp][k] && got.u64[sp][k] == want.u64[sp][k],
                    "%s:%d n=%d %s op %d: int %d/%d, unsigned %u/%u, long long %lld/%lld, "
                    "unsigned long long %llu/%llu (got/want)",
                    __FILE__, __LINE__, n, sp ? "shared" : "global", k, got.i32[sp][k],
                    want.i32[sp][k], got.u32[sp][k], want.u32[sp][k], got.i64[sp][k],
                    want.i64[sp][k], got.u64[sp][k], want.u64[sp][k]);
                if (k < 2)
                    ck_assert_msg(got.f32[sp][k] == want.f32[sp][k] &&
                                      got.f64[sp][k] == want.f64[sp][k],
                                  "%s:%d n=%d %s float op %d: %g/%g, double %g/%g", __FILE__,
                                  __LINE__, n, sp ? "shared" : "global", k, (double)got.f32[sp][k],
                                  (double)want.f32[sp][k], got.f64[sp][k], want.f64[sp][k]);
            }
        ck_assert_msg(!memcmp(&got.inc, &want.inc, sizeof got - offsetof(struct prog_atomics, inc)),
                      "%s:%d n=%d: inc %u/%u dec %u/%u exch %d/%d block %d/%d system %d/%d "
                      "generic %d/%d (got/want)",
                      __FILE__, __LINE__, n, got.inc, want.inc, got.dec, want.dec, got.exch_sum,
                      want.exch_sum, got.block_scope, want.block_scope, got.sys_scope,
                      want.sys_scope, got.generic, want.generic);
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(in);
    }
}
END_TEST

/* ---- fences ------------------------------------------------------------------------------- */

/* The last block to arrive sums every partial, twice in a row (the counter resets itself). */
START_TEST(fence_and_release_acquire)
{
    static const int sizes[] = {1, 129, 5003};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s], blocks = (n + 127) / 128, want = 0, got, last;
        int *in = small_ints(n, -8, 16, 11 + (uint64_t)n);
        for (int i = 0; i < n; i++)
            want += in[i];
        int *d_in = to_device(in, (size_t)n * 4), *d_partial, *d_out, *d_last;
        unsigned *d_count;
        CUDA_CHECK(cudaMalloc((void **)&d_partial, (size_t)blocks * 4));
        CUDA_CHECK(cudaMalloc((void **)&d_out, 4));
        CUDA_CHECK(cudaMalloc((void **)&d_last, 4));
        CUDA_CHECK(cudaMalloc((void **)&d_count, 4));
        CUDA_CHECK(cudaMemset(d_count, 0, 4));
        for (int round = 0; round < 2; round++) {
            CUDA_CHECK(prog_fence_sum(d_in, n, d_partial, d_count, d_out, d_last));
            CUDA_CHECK(cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost));
            CUDA_CHECK(cudaMemcpy(&last, d_last, 4, cudaMemcpyDeviceToHost));
            ck_assert_msg(got == want && last >= 0 && last < blocks,
                          "%s:%d n=%d round %d: sum %d, want %d (last block %d of %d)", __FILE__,
                          __LINE__, n, round, got, want, last, blocks);
        }
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_partial));
        CUDA_CHECK(cudaFree(d_out));
        CUDA_CHECK(cudaFree(d_last));
        CUDA_CHECK(cudaFree(d_count));
        free(in);
    }
}
END_TEST

/* ---- cooperative groups ------------------------------------------------------------------- */

/* Blocks of whole warps (a tile that runs past the block's last thread is undefined in CUDA):
 * 32, and 160 (five warps, tiles of 32 past the first warp). */
START_TEST(tiled_partitions_and_coalesced_groups)
{
    static const int sizes[] = {32, 160};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        int *in = small_ints(n, -20, 41, 13 + (uint64_t)n);
        int *out = mat_alloc((size_t)5 * n * 4), *co = mat_alloc((size_t)n * 4);
        unsigned *ballot = mat_alloc((size_t)5 * n * 4);
        int *d_in = to_device(in, (size_t)n * 4), *d_out, *d_co;
        unsigned *d_ballot;
        CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)5 * n * 4));
        CUDA_CHECK(cudaMalloc((void **)&d_co, (size_t)n * 4));
        CUDA_CHECK(cudaMalloc((void **)&d_ballot, (size_t)5 * n * 4));
        CUDA_CHECK(prog_tiles(d_in, n, d_out, d_ballot, d_co));
        CUDA_CHECK(cudaMemcpy(out, d_out, (size_t)5 * n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(ballot, d_ballot, (size_t)5 * n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(co, d_co, (size_t)n * 4, cudaMemcpyDeviceToHost));
        for (int k = 0; k < 5; k++)
            for (int t = 0; t < n; t++) {
                int size = 2 << k, base = t / size * size, sum = 0;
                unsigned bits = 0;
                for (int j = 0; j < size; j++) {
                    sum += in[base + j];
                    bits |= (unsigned)(in[base + j] & 1) << j;
                }
                int want = sum + 1000 * (t / size); /* the tile's rank in the block */
                ck_assert_msg(out[k * n + t] == want && ballot[k * n + t] == bits,
                              "%s:%d n=%d tile %d thread %d: reduce %d, want %d; ballot 0x%x, "
                              "want 0x%x",
                              __FILE__, __LINE__, n, size, t, out[k * n + t], want,
                              ballot[k * n + t], bits);
            }
        for (int t = 0; t < n; t++) {
            int want = 0;
            for (int j = t / 32 * 32; in[t] % 2 == 0 && j < t / 32 * 32 + 32; j++)
                want += in[j] % 2 == 0 ? in[j] : 0;
            ck_assert_msg(co[t] == want, "%s:%d n=%d thread %d: coalesced reduce %d, want %d",
                          __FILE__, __LINE__, n, t, co[t], want);
        }
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        CUDA_CHECK(cudaFree(d_co));
        CUDA_CHECK(cudaFree(d_ballot));
        free(in), free(out), free(co), free(ballot);
    }
}
END_TEST

/* ---- cp.async and big shared memory --------------------------------------------------------- */

START_TEST(cp_async_two_groups_in_flight)
{
    static const int sizes[] = {1, 255, 257, 1031};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        int *in = small_ints(n, -1000, 2001, 17 + (uint64_t)n), *out = mat_alloc((size_t)n * 4);
        int *d_in = to_device(in, (size_t)n * 4), *d_out;
        CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * 4));
        CUDA_CHECK(prog_cp_async(d_in, n, d_out));
        CUDA_CHECK(cudaMemcpy(out, d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++)
            ck_assert_msg(out[i] == in[i] * 2 + 1, "%s:%d n=%d: out[%d] = %d, want %d", __FILE__,
                          __LINE__, n, i, out[i], in[i] * 2 + 1);
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(in), free(out);
    }
}
END_TEST

/* 48 KiB + 4 bytes, 100 KiB and the H100's 227 KiB per block, each asked for first. */
START_TEST(dynamic_shared_memory_above_48k)
{
    static const int sizes[] = {48 * 1024 + 4, 100 * 1024, 227 * 1024};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int bytes = sizes[s], words = bytes / 4;
        int *in = small_ints(words, -1000, 2001, 19 + (uint64_t)words);
        int *out = mat_alloc((size_t)bytes), *d_in = to_device(in, (size_t)bytes), *d_out;
        CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)bytes));
        CUDA_CHECK(prog_big_smem(d_in, d_out, bytes));
        CUDA_CHECK(cudaMemcpy(out, d_out, (size_t)bytes, cudaMemcpyDeviceToHost));
        for (int w = 0; w < words; w++)
            ck_assert_msg(out[w] == in[words - 1 - w], "%s:%d %d bytes: out[%d] = %d, want %d",
                          __FILE__, __LINE__, bytes, w, out[w], in[words - 1 - w]);
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(in), free(out);
    }
}
END_TEST

/* ---- math --------------------------------------------------------------------------------- */

/* The functions of prog_math in order, with the maximum error in ulps the CUDA C++
 * Programming Guide's tables give (0: correctly rounded, checked as half an ulp). */
static const struct {
    const char *name;
    double ulps;
} fmath[PROG_MATH_F] = {{"sinf", 2},   {"cosf", 2},  {"tanf", 4},   {"expf", 2},   {"exp2f", 2},
                        {"logf", 1},   {"log2f", 1}, {"log10f", 2}, {"powf", 4},   {"sqrtf", 0},
                        {"rsqrtf", 2}, {"erff", 2},  {"tanhf", 2},  {"atan2f", 3}, {"cbrtf", 1},
                        {"fmodf", 0},  {"erfcf", 4}},
  dmath[PROG_MATH_D] = {{"sin", 2}, {"cos", 2},  {"exp", 1}, {"log", 1},
                        {"pow", 2}, {"sqrt", 0}, {"erf", 2}, {"tanh", 2}};

static double fref(int k, float v)
{
    double x = v, a = fabsf(v) + 0.5f;
    const double r[PROG_MATH_F] = {sin(x),
                                   cos(x),
                                   tan(x),
                                   exp(x),
                                   exp2(x),
                                   log(a),
                                   log2(a),
                                   log10(a),
                                   pow(a, (double)1.7f),
                                   sqrt(a),
                                   1 / sqrt(a),
                                   erf(x),
                                   tanh(x),
                                   atan2(x, 1.5),
                                   cbrt(x),
                                   fmod(x, (double)3.3f),
                                   erfc(x)};
    return r[k];
}

static long double dref(int k, double w)
{
    long double x = w, b = fabs(w) + 0.5;
    const long double r[PROG_MATH_D] = {
        sinl(x), cosl(x), expl(x), logl(b), powl(b, (long double)1.7), sqrtl(b), erfl(x), tanhl(x)};
    return r[k];
}

START_TEST(math_functions_within_their_bounds)
{
    int n = 1009;
    float *x = mat_alloc((size_t)n * 4), *f = mat_alloc((size_t)n * 4 * PROG_MATH_F);
    double *dx = mat_alloc((size_t)n * 8), *d = mat_alloc((size_t)n * 8 * PROG_MATH_D);
    uint64_t seed = 23;
    for (int i = 0; i < n; i++) {
        x[i] = (float)((double)(mat_rand_next(&seed) % 2000000) / 100000.0 - 10.0);
        dx[i] = (double)(mat_rand_next(&seed) % 2000000001) / 100000000.0 - 10.0;
    }
    float *d_x = to_device(x, (size_t)n * 4), *d_f;
    double *d_dx = to_device(dx, (size_t)n * 8), *d_d;
    CUDA_CHECK(cudaMalloc((void **)&d_f, (size_t)n * 4 * PROG_MATH_F));
    CUDA_CHECK(cudaMalloc((void **)&d_d, (size_t)n * 8 * PROG_MATH_D));
    CUDA_CHECK(prog_math(d_x, d_dx, n, d_f, d_d));
    CUDA_CHECK(cudaMemcpy(f, d_f, (size_t)n * 4 * PROG_MATH_F, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(d, d_d, (size_t)n * 8 * PROG_MATH_D, cudaMemcpyDeviceToHost));
    for (int k = 0; k < PROG_MATH_F; k++)
        for (int i = 0; i < n; i++) {
            double want = fref(k, x[i]), got = f[k * n + i];
            double ulp = nextafterf((float)fabs(want), INFINITY) - (float)fabs(want);
            double bound = fmax(fmath[k].ulps, 0.5) * fmax(ulp, FLT_TRUE_MIN);
            ck_assert_msg(fabs(got - want) <= bound,
                          "%s:%d %s(%.9g) = %.9g, want %.9g (bound %g ulps)", __FILE__, __LINE__,
                          fmath[k].name, (double)x[i], got, want, fmath[k].ulps);
        }
    for (int k = 0; k < PROG_MATH_D; k++)
        for (int i = 0; i < n; i++) {
            long double want = dref(k, dx[i]), got = d[k * n + i];
            double ulp = nextafter(fabs((double)want), INFINITY) - fabs((double)want);
            long double bound = fmax(dmath[k].ulps, 0.5) * fmax(ulp, DBL_TRUE_MIN);
            ck_assert_msg(fabsl(got - want) <= bound,
                          "%s:%d %s(%.17g) = %.17g, want %.17Lg (bound %g ulps)", __FILE__,
                          __LINE__, dmath[k].name, dx[i], (double)got, want, dmath[k].ulps);
        }
    CUDA_CHECK(cudaFree(d_x));
    CUDA_CHECK(cudaFree(d_f));
    CUDA_CHECK(cudaFree(d_dx));
    CUDA_CHECK(cudaFree(d_d));
    free(x), free(f), free(dx), free(d);
}
END_TEST

/* ---- bmsk ------------------------------------------------------------------------------- */

/* Position, width, and the masks the PTX ISA's pseudocode gives for .clamp and .wrap, worked
 * by hand: the ISA's own example (1, 2) is 0x6; a width reaching bit 32 ends at bit 31; .clamp
 * gives 0 for a position past 31 and runs a width past 31 to bit 31, .wrap takes both mod 32.
 * The kernel also waits on griddepcontrol, which must run (and wait for nothing). */
START_TEST(bmsk_and_griddepcontrol)
{
    enum { N = 9 };
    static const unsigned want[N][4] = {
        {1, 2, 0x6, 0x6},
        {0, 32, ~0u, 0},
        {32, 1, 0, 0x1},
        {30, 5, 0xC0000000u, 0xC0000000u},
        {4, 0, 0, 0},
        {33, 1, 0, 0x2},
        {0, 31, 0x7FFFFFFFu, 0x7FFFFFFFu},
        {31, 1, 0x80000000u, 0x80000000u},
        {5, 40, 0xFFFFFFE0u, 0x1FE0u},
    };
    unsigned a[N], b[N], clamp[N], wrap[N];
    for (int i = 0; i < N; i++)
        a[i] = want[i][0], b[i] = want[i][1];
    unsigned *d_a = to_device(a, sizeof a), *d_b = to_device(b, sizeof b);
    unsigned *d_c = to_device(a, sizeof a), *d_w = to_device(a, sizeof a);
    CUDA_CHECK(prog_bmsk(d_a, d_b, d_c, d_w, N));
    CUDA_CHECK(cudaMemcpy(clamp, d_c, sizeof clamp, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(wrap, d_w, sizeof wrap, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        ck_assert_msg(clamp[i] == want[i][2] && wrap[i] == want[i][3],
                      "%s:%d bmsk(%u, %u): clamp 0x%08x, want 0x%08x; wrap 0x%08x, want 0x%08x",
                      __FILE__, __LINE__, a[i], b[i], clamp[i], want[i][2], wrap[i], want[i][3]);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    CUDA_CHECK(cudaFree(d_w));
}
END_TEST

/* ---- 16-bit integers ------------------------------------------------------------------- */

/* Pairs drawn over the whole 16-bit range (b never 0, whose result PTX leaves unspecified),
 * plus -32768 / -1 (wraps to -32768) and the extremes. */
START_TEST(sixteen_bit_div_rem_min_max)
{
    enum { N = 1001 };
    uint16_t a[N], b[N], out[8 * N];
    uint64_t seed = 37;
    for (int i = 0; i < N; i++) {
        a[i] = (uint16_t)mat_rand_next(&seed);
        b[i] = (uint16_t)(mat_rand_next(&seed) % 65535 + 1);
    }
    a[0] = 0x8000, b[0] = 0xFFFF, a[1] = 0x7FFF, b[1] = 0x8000, a[2] = 5, b[2] = 0xFFFD;
    uint16_t *d_a = to_device(a, sizeof a), *d_b = to_device(b, sizeof b), *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_out, sizeof out));
    CUDA_CHECK(prog_int16(d_a, d_b, d_out, N));
    CUDA_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    static const char *const names[8] = {"div.s16", "rem.s16", "min.s16", "max.s16",
                                         "div.u16", "rem.u16", "min.u16", "max.u16"};
    for (int i = 0; i < N; i++) {
        int x = (int16_t)a[i], y = (int16_t)b[i];
        unsigned ux = a[i], uy = b[i];
        const unsigned want[8] = {
            (unsigned)(x / y),         (unsigned)(x % y), (unsigned)(x < y ? x : y),
            (unsigned)(x > y ? x : y), ux / uy,           ux % uy,
            ux < uy ? ux : uy,         ux > uy ? ux : uy};
        for (int k = 0; k < 8; k++)
            ck_assert_msg(out[8 * i + k] == (uint16_t)want[k],
                          "%s:%d %s(0x%04x, 0x%04x) = 0x%04x, want 0x%04x", __FILE__, __LINE__,
                          names[k], a[i], b[i], out[8 * i + k], (uint16_t)want[k]);
    }
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_out));
}
END_TEST

/* ---- wmma --------------------------------------------------------------------------------- */

enum { LD = PROG_WMMA_LD };

/* D = A * B + C on LD-strided row-major tiles, exact in int64 (the inputs keep it in range). */
static void host_mma(int M, int N, int K, const long long *a, const long long *b,
                     const long long *c, long long *d)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            long long acc = c[i * LD + j];
            for (int k = 0; k < K; k++)
                acc += a[i * LD + k] * b[k * LD + j];
            d[i * LD + j] = acc;
        }
}

START_TEST(wmma_f64_and_int8_shapes)
{
    static const int mnk[3][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
    long long a[LD * LD], b[LD * LD], c[LD * LD], want[LD * LD];
    uint64_t seed = 29;
    for (int e = 0; e < LD * LD; e++) {
        a[e] = (long long)(mat_rand_next(&seed) % 256) - 128;
        b[e] = (long long)(mat_rand_next(&seed) % 256) - 128;
        c[e] = (long long)(mat_rand_next(&seed) % 200001) - 100000;
    }
    /* f64: small integers, so every product and sum is exact. */
    double fa[LD * LD], fb[LD * LD], fc[LD * LD], fd[LD * LD];
    for (int e = 0; e < LD * LD; e++)
        fa[e] = (double)a[e], fb[e] = (double)b[e], fc[e] = (double)c[e];
    double *d_fa = to_device(fa, sizeof fa), *d_fb = to_device(fb, sizeof fb);
    double *d_fc = to_device(fc, sizeof fc), *d_fd = to_device(fc, sizeof fc);
    CUDA_CHECK(prog_wmma_f64(d_fa, d_fb, d_fc, d_fd));
    CUDA_CHECK(cudaMemcpy(fd, d_fd, sizeof fd, cudaMemcpyDeviceToHost));
    host_mma(8, 8, 4, a, b, c, want);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            ck_assert_msg(fd[i * LD + j] == (double)want[i * LD + j],
                          "%s:%d wmma m8n8k4 f64: D[%d][%d] = %.1f, want %lld", __FILE__, __LINE__,
                          i, j, fd[i * LD + j], want[i * LD + j]);
    /* 8-bit inputs, signed and unsigned, in each shape. */
    int8_t s8a[LD * LD], s8b[LD * LD];
    int ci[LD * LD], di[LD * LD];
    for (int uns = 0; uns < 2; uns++)
        for (int sh = 0; sh < 3; sh++) {
            long long ha[LD * LD], hb[LD * LD];
            for (int e = 0; e < LD * LD; e++) {
                s8a[e] = (int8_t)a[e], s8b[e] = (int8_t)b[e], ci[e] = (int)c[e];
                ha[e] = uns ? (uint8_t)s8a[e] : s8a[e], hb[e] = uns ? (uint8_t)s8b[e] : s8b[e];
            }
            void *d_a = to_device(s8a, sizeof s8a), *d_b = to_device(s8b, sizeof s8b);
            int *d_c = to_device(ci, sizeof ci), *d_d = to_device(ci, sizeof ci);
            CUDA_CHECK(prog_wmma_int8(sh, d_a, d_b, d_c, d_d, uns));
            CUDA_CHECK(cudaMemcpy(di, d_d, sizeof di, cudaMemcpyDeviceToHost));
            host_mma(mnk[sh][0], mnk[sh][1], mnk[sh][2], ha, hb, c, want);
            for (int i = 0; i < mnk[sh][0]; i++)
                for (int j = 0; j < mnk[sh][1]; j++)
                    ck_assert_msg(di[i * LD + j] == want[i * LD + j],
                                  "%s:%d wmma m%dn%dk16 %s8: D[%d][%d] = %d, want %lld", __FILE__,
                                  __LINE__, mnk[sh][0], mnk[sh][1], uns ? "u" : "s", i, j,
                                  di[i * LD + j], want[i * LD + j]);
            CUDA_CHECK(cudaFree(d_a));
            CUDA_CHECK(cudaFree(d_b));
            CUDA_CHECK(cudaFree(d_c));
            CUDA_CHECK(cudaFree(d_d));
        }
    CUDA_CHECK(cudaFree(d_fa));
    CUDA_CHECK(cudaFree(d_fb));
    CUDA_CHECK(cudaFree(d_fc));
    CUDA_CHECK(cudaFree(d_fd));
}
END_TEST

/* CUDA C++'s saturating wmma::mma_sync (satf = true, PTX .satfinite): an s32 sum past INT32_MAX
 * (C = INT32_MAX - 5, 16 products of 1) or INT32_MIN (C = INT32_MIN + 5, 16 of -1) clamps; the
 * plain one wraps. */
START_TEST(wmma_s32_wraps_or_saturates)
{
    int8_t a[LD * LD], b[LD * LD];
    int c[LD * LD], d[LD * LD];
    for (int neg = 0; neg < 2; neg++) {
        for (int e = 0; e < LD * LD; e++) {
            a[e] = 1, b[e] = (int8_t)(neg ? -1 : 1);
            c[e] = neg ? INT32_MIN + 5 : INT32_MAX - 5;
        }
        for (int satf = 0; satf < 2; satf++) {
            int8_t *d_a = to_device(a, sizeof a), *d_b = to_device(b, sizeof b);
            int *d_c = to_device(c, sizeof c), *d_d = to_device(c, sizeof c);
            CUDA_CHECK(prog_wmma_s8_satf(satf, d_a, d_b, d_c, d_d));
            CUDA_CHECK(cudaMemcpy(d, d_d, sizeof d, cudaMemcpyDeviceToHost));
            uint32_t want = satf  ? (neg ? (uint32_t)INT32_MIN : (uint32_t)INT32_MAX)
                            : neg ? (uint32_t)INT32_MIN + 5 - 16
                                  : (uint32_t)INT32_MAX - 5 + 16;
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 16; j++)
                    ck_assert_msg((uint32_t)d[i * LD + j] == want,
                                  "%s:%d wmma s8 %s, %s: D[%d][%d] = %08x, want %08x", __FILE__,
                                  __LINE__, satf ? "satf" : "plain", neg ? "down" : "up", i, j,
                                  (uint32_t)d[i * LD + j], want);
            CUDA_CHECK(cudaFree(d_a));
            CUDA_CHECK(cudaFree(d_b));
            CUDA_CHECK(cudaFree(d_c));
            CUDA_CHECK(cudaFree(d_d));
        }
    }
}
END_TEST

/* An s8 m16n16k16 A tile that starts 16 bytes into its rows (as cuda-samples' immaTensorCoreGemm
 * loads it): the PTX ISA's rule (rows aligned to the 8-byte fragment) holds, CUDA C++'s
 * 32-byte one does not. It runs, against the host; under memcheck the same load is reported. */
START_TEST(wmma_int8_tile_16_bytes_into_a_row)
{
    enum { OFF = 16 };
    long long a[LD * LD], b[LD * LD], c[LD * LD], want[LD * LD];
    int8_t s8a[LD * LD], s8b[LD * LD];
    int ci[LD * LD], di[LD * LD];
    uint64_t seed = 37;
    for (int e = 0; e < LD * LD; e++) {
        s8a[e] = (int8_t)(mat_rand_next(&seed) % 256), s8b[e] = (int8_t)(mat_rand_next(&seed) % 9);
        a[e] = s8a[e], b[e] = s8b[e], c[e] = ci[e] = (int)(mat_rand_next(&seed) % 2001) - 1000;
    }
    int8_t *d_a = to_device(s8a, sizeof s8a), *d_b = to_device(s8b, sizeof s8b);
    int *d_c = to_device(ci, sizeof ci), *d_d = to_device(ci, sizeof ci);
    CUDA_CHECK(prog_wmma_int8(0, d_a + OFF, d_b, d_c, d_d, 0));
    CUDA_CHECK(cudaMemcpy(di, d_d, sizeof di, cudaMemcpyDeviceToHost));
    host_mma(16, 16, 16, a + OFF, b, c, want);
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++)
            ck_assert_msg(di[i * LD + j] == want[i * LD + j],
                          "%s:%d wmma m16n16k16 s8, A at +%d bytes: D[%d][%d] = %d, want %lld",
                          __FILE__, __LINE__, OFF, i, j, di[i * LD + j], want[i * LD + j]);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    CUDA_CHECK(cudaFree(d_d));
}
END_TEST

/* The same load under memcheck fails with the rule it breaks (this case's own process). */
START_TEST(wmma_int8_misaligned_tile_under_memcheck)
{
    setenv("COURSE_EMU_CHECKS", "mem", 1);
    int8_t *d_a;
    int *d_c;
    CUDA_CHECK(cudaMalloc((void **)&d_a, LD * LD));
    CUDA_CHECK(cudaMalloc((void **)&d_c, LD * LD * sizeof(int)));
    CUDA_CHECK(cudaMemset(d_a, 1, LD * LD));
    CUDA_CHECK(cudaMemset(d_c, 0, LD * LD * sizeof(int)));
    cudaError_t err = prog_wmma_int8(0, d_a + 16, d_a, d_c, d_c, 0);
    ck_assert_msg(err == cudaErrorMisalignedAddress,
                  "%s:%d wmma m16n16k16 s8 at +16 bytes under memcheck: %s, want "
                  "cudaErrorMisalignedAddress",
                  __FILE__, __LINE__, cudaGetErrorName(err));
}
END_TEST

/* The sanitizer's checks report nothing on correct programs: tiles of one warp pass different
 * masks to one vote (no synccheck finding), cp.async and the fence program have no hazard.
 * Turned on before this process's first CUDA call. */
START_TEST(clean_under_every_check)
{
    capture_checks_on();
    int n = 160, *in = small_ints(n, -20, 41, 31), *d_in = to_device(in, (size_t)n * 4);
    int *d_out, *d_co, *d_partial, *d_sum, *d_last;
    unsigned *d_ballot, *d_count;
    CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)5 * n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_ballot, (size_t)5 * n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_co, (size_t)n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_partial, 8));
    CUDA_CHECK(cudaMalloc((void **)&d_sum, 4));
    CUDA_CHECK(cudaMalloc((void **)&d_last, 4));
    CUDA_CHECK(cudaMalloc((void **)&d_count, 4));
    CUDA_CHECK(cudaMemset(d_count, 0, 4));
    CUDA_CHECK(prog_tiles(d_in, n, d_out, d_ballot, d_co));
    CUDA_CHECK(prog_cp_async(d_in, n, d_out));
    CUDA_CHECK(prog_fence_sum(d_in, n, d_partial, d_count, d_sum, d_last));
    capture_assert_no_reports("test_programs.c: tiles, cp.async and the fence sum, n=160");
    void *bufs[] = {d_in, d_out, d_ballot, d_co, d_partial, d_sum, d_last, d_count};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        CUDA_CHECK(cudaFree(bufs[i]));
    free(in);
}
END_TEST

/* Blocks from device malloc (new[]) in one launch, read and freed (delete[]) by a later one:
 * n = 1, 31, 1031 threads. A 1 TiB malloc returns NULL, and free(NULL) does nothing. The heap's
 * size is set before its first use, and refused after it. */
START_TEST(device_heap_across_launches)
{
    const int sizes[] = {1, 31, 1031};
    size_t heap = 0;
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)3 << 20));
    CUDA_CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    ck_assert_msg(heap == (size_t)3 << 20, "%s:%d heap limit %zu after setting 3 MiB", __FILE__,
                  __LINE__, heap);
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int n = sizes[t], *in = small_ints(n, -50, 101, 41 + t), *d_in = to_device(in, n * 4ul);
        int **d_slots, *d_null, *d_out, *got = mat_alloc(2 * (size_t)n * sizeof *got);
        CUDA_CHECK(cudaMalloc((void **)&d_slots, (size_t)n * sizeof *d_slots));
        CUDA_CHECK(cudaMalloc((void **)&d_null, (size_t)n * 4));
        CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * 4));
        CUDA_CHECK(prog_heap_fill(d_in, n, d_slots, d_null));
        CUDA_CHECK(prog_heap_sum(d_slots, n, d_in, d_out));
        CUDA_CHECK(cudaMemcpy(got, d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(got + n, d_null, (size_t)n * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            int k = 1 + abs(in[i]) % 7, want = in[i] * k * (k + 1) / 2;
            ck_assert_msg(got[i] == want && got[n + i] == 1,
                          "%s:%d n=%d thread %d: sum %d (want %d), 1 TiB malloc NULL: %d (want 1)",
                          __FILE__, __LINE__, n, i, got[i], want, got[n + i]);
        }
        void *bufs[] = {d_in, d_slots, d_null, d_out};
        for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
            CUDA_CHECK(cudaFree(bufs[i]));
        free(in), free(got);
    }
    cudaError_t err = cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)1 << 20);
    ck_assert_msg(err == cudaErrorInvalidValue,
                  "%s:%d cudaLimitMallocHeapSize set after a kernel used malloc: %s, want "
                  "cudaErrorInvalidValue",
                  __FILE__, __LINE__, cudaGetErrorName(err));
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidValue);
}
END_TEST

/* Freeing the same blocks again (a later launch) fails the launch with one line. */
START_TEST(device_heap_double_free_fails)
{
    int n = 33, *in = small_ints(n, -50, 101, 43), *d_in = to_device(in, n * 4ul);
    int **d_slots, *d_null, *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_slots, (size_t)n * sizeof *d_slots));
    CUDA_CHECK(cudaMalloc((void **)&d_null, (size_t)n * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * 4));
    CUDA_CHECK(prog_heap_fill(d_in, n, d_slots, d_null));
    CUDA_CHECK(prog_heap_sum(d_slots, n, d_in, d_out));
    cudaError_t err = prog_heap_sum(d_slots, n, d_in, d_out);
    ck_assert_msg(err == cudaErrorIllegalAddress,
                  "%s:%d n=%d, delete[] of freed blocks: %s, want cudaErrorIllegalAddress",
                  __FILE__, __LINE__, n, cudaGetErrorName(err));
    free(in);
}
END_TEST

/* fib and a sum by halves, recursive, each lane at its own depth: n = 1, 33, 1031 threads. */
START_TEST(recursive_device_functions)
{
    const int sizes[] = {1, 33, 1031};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int n = sizes[t], *in = small_ints(n, -60, 121, 53 + t), *d_in = to_device(in, n * 4ul);
        int *d_fibs, *fibs = mat_alloc((size_t)n * sizeof *fibs);
        long long *d_sums, *sums = mat_alloc((size_t)n * sizeof *sums);
        CUDA_CHECK(cudaMalloc((void **)&d_fibs, (size_t)n * sizeof *fibs));
        CUDA_CHECK(cudaMalloc((void **)&d_sums, (size_t)n * sizeof *sums));
        CUDA_CHECK(prog_recursion(d_in, n, d_fibs, d_sums));
        CUDA_CHECK(cudaMemcpy(fibs, d_fibs, (size_t)n * sizeof *fibs, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(sums, d_sums, (size_t)n * sizeof *sums, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            int a = 0, b = 1, k = abs(in[i]) % 13, hi = i + 1 + abs(in[i]) % (n - i);
            for (int j = 0; j < k; j++)
                b += a, a = b - a;
            long long want = 0;
            for (int j = i; j < hi; j++)
                want += in[j];
            ck_assert_msg(fibs[i] == a && sums[i] == want,
                          "%s:%d n=%d thread %d: fib(%d) = %d (want %d), sum of [%d, %d) = %lld "
                          "(want %lld)",
                          __FILE__, __LINE__, n, i, k, fibs[i], a, i, hi, sums[i], want);
        }
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_fibs));
        CUDA_CHECK(cudaFree(d_sums));
        free(in), free(fibs), free(sums);
    }
}
END_TEST

/* A device function of ten arguments, as a __noinline__ helper or a -G build calls one: the call
 * parsed (more than six arguments did not) and every argument arrives in its place. */
START_TEST(call_with_ten_arguments)
{
    const int sizes[] = {1, 31, 1031};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s], *in = small_ints(n, -500, 1001, 17 + s), *d_in = to_device(in, n * 4ul);
        long long *d_out, *out = mat_alloc((size_t)n * sizeof *out);
        CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * sizeof *out));
        CUDA_CHECK(prog_ten_args(d_in, n, d_out));
        CUDA_CHECK(cudaMemcpy(out, d_out, (size_t)n * sizeof *out, cudaMemcpyDeviceToHost));
        for (int t = 0; t < n; t++) {
            long long want = 10 * ((long long)in[(t + 9) % n] << 20);
            for (int k = 0; k < 9; k++)
                want += (k + 1) * (long long)in[(t + k) % n];
            ck_assert_msg(out[t] == want, "%s:%d n=%d thread %d: %lld, want %lld", __FILE__,
                          __LINE__, n, t, out[t], want);
        }
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(in), free(out);
    }
}
END_TEST

/* 300 levels pass with a 64 KiB stack (cudaLimitStackSize) and overflow the default 1 KiB:
 * the launch fails with one line, and no crash. */
START_TEST(recursion_past_the_stack_limit_fails)
{
    enum { K = 300, T = 37 };
    int *d_levels, *d_out, out[T];
    CUDA_CHECK(cudaMalloc((void **)&d_levels, (size_t)T * (K + 1) * 4));
    CUDA_CHECK(cudaMalloc((void **)&d_out, sizeof out));
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 64 << 10));
    CUDA_CHECK(prog_deep_recursion(d_levels, K, T, d_out));
    CUDA_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (int t = 0; t < T; t++)
        ck_assert_msg(out[t] == K, "%s:%d %d levels, thread %d of %d: %d, want %d", __FILE__,
                      __LINE__, K, t, T, out[t], K);
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 1024));
    cudaError_t err = prog_deep_recursion(d_levels, K, T, d_out);
    ck_assert_msg(err == cudaErrorIllegalAddress,
                  "%s:%d %d levels in a 1 KiB stack: %s, want cudaErrorIllegalAddress", __FILE__,
                  __LINE__, K, cudaGetErrorName(err));
}
END_TEST

/* Both levels of a recursion would share one local frame: a pointer to it passed down is
 * refused in one line naming the call, never a wrong sum. */
START_TEST(local_pointer_passed_down_a_recursion_is_refused)
{
    int v[8] = {3, -1, 4, 1, -5, 9, 2, -6}, *d_out;
    int *d_v = to_device(v, sizeof v);
    CUDA_CHECK(cudaMalloc((void **)&d_out, 32 * sizeof(int)));
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = prog_local_pointer_recursion(d_v, 7, d_out);
    char *said = capture_end(&cap);
    ck_assert_msg(err == cudaErrorNotSupported, "%s:%d got %s, want cudaErrorNotSupported",
                  __FILE__, __LINE__, cudaGetErrorName(err));
    capture_assert_at(said, TEST_PROGRAMS_KERNELS, "LOCAL_POINTER_DOWN",
                      "a pointer to its own local memory");
    free(said);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
}
END_TEST

/* Virtual functions (indirect calls through vtables), lanes of one warp bound for different
 * functions, on objects from device new: n = 1, 31, 1031 threads. */
START_TEST(virtual_calls_through_vtables)
{
    const int sizes[] = {1, 31, 1031};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        int n = sizes[t], *in = small_ints(n, -90, 181, 61 + t), *d_in = to_device(in, n * 4ul);
        int *d_out, *out = mat_alloc((size_t)n * sizeof *out);
        CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * 4));
        CUDA_CHECK(prog_virtual_calls(d_in, n, d_out));
        CUDA_CHECK(cudaMemcpy(out, d_out, (size_t)n * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            int v = in[i], a = abs(v) % 17 + 1, b = abs(v) % 5 + 2;
            int want = v % 3 == 0 ? a * b : v % 3 == 1 || v % 3 == -1 ? a * b / 2 : a * a + 1;
            ck_assert_msg(out[i] == want, "%s:%d n=%d thread %d (in %d): area %d, want %d",
                          __FILE__, __LINE__, n, i, v, out[i], want);
        }
        CUDA_CHECK(cudaFree(d_in));
        CUDA_CHECK(cudaFree(d_out));
        free(in), free(out);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"atomics_every_type_and_space", atomics_every_type_and_space, CASE_GPU, 120},
        {"fence_and_release_acquire", fence_and_release_acquire, CASE_GPU, 60},
        {"tiled_partitions_and_coalesced_groups", tiled_partitions_and_coalesced_groups, CASE_GPU,
         60},
        {"cp_async_two_groups_in_flight", cp_async_two_groups_in_flight, CASE_GPU, 60},
        {"dynamic_shared_memory_above_48k", dynamic_shared_memory_above_48k, CASE_GPU, 60},
        {"math_functions_within_their_bounds", math_functions_within_their_bounds, CASE_GPU, 120},
        {"bmsk_and_griddepcontrol", bmsk_and_griddepcontrol, CASE_GPU, 60},
        {"sixteen_bit_div_rem_min_max", sixteen_bit_div_rem_min_max, CASE_GPU, 60},
        {"wmma_f64_and_int8_shapes", wmma_f64_and_int8_shapes, CASE_GPU, 60},
        {"wmma_s32_wraps_or_saturates", wmma_s32_wraps_or_saturates, CASE_GPU, 60},
        {"wmma_int8_tile_16_bytes_into_a_row", wmma_int8_tile_16_bytes_into_a_row, CASE_GPU, 60},
        {"wmma_int8_misaligned_tile_under_memcheck", wmma_int8_misaligned_tile_under_memcheck,
         CASE_GPU, 60},
        {"clean_under_every_check", clean_under_every_check, CASE_GPU, 60},
        {"device_heap_across_launches", device_heap_across_launches, CASE_GPU, 60},
        {"device_heap_double_free_fails", device_heap_double_free_fails, CASE_GPU, 60},
        {"call_with_ten_arguments", call_with_ten_arguments, CASE_GPU, 60},
        {"recursive_device_functions", recursive_device_functions, CASE_GPU, 60},
        {"local_pointer_passed_down_a_recursion_is_refused",
         local_pointer_passed_down_a_recursion_is_refused, CASE_GPU, 60},
        {"recursion_past_the_stack_limit_fails", recursion_past_the_stack_limit_fails, CASE_GPU,
         60},
        {"virtual_calls_through_vtables", virtual_calls_through_vtables, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
