/**
 * @file test_parallel_patterns.c
 * @brief Lesson 06's suite: the reduction, scan and histogram host functions against the CPU
 *        at edge sizes and misaligned pointers, what each step does (atomics, traffic, shared
 *        wavefronts, barriers) counted on the emulator, and their speed against CUB's.
 *
 * CUB, the yardstick, runs here in the judge (cub_yardstick.h), never in the graded runner.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "course_judge.h"
#include "course_test.h"
#include "cub_yardstick.h"
#include "cuda_check.h"
#include "mat.h"
#include "parallel_patterns.h"
#include "timer.h"

/* Around a warp, a tile of 512 and of 2048, a prime near 10^6. */
static const int sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 2049, 1000003};
enum { NSIZES = sizeof sizes / sizeof *sizes };

/* n values in {-1, 0, 1} from @p seed (malloc'd): every partial sum is an integer of magnitude
 * at most n, exact in float for n < 2^24 and, with about half the values 0, for the 2^24 + 3
 * case too (sum |x| about 2^23). Any order of addition gives the same, exact, sum. */
static float *signs(int n, uint64_t seed, float *sum)
{
    float *x = mat_alloc_f32(n > 0 ? (size_t)n : 1);
    uint64_t s = seed;
    double total = 0;
    for (int i = 0; i < n; i++) {
        int r = (int)(mat_rand_next(&s) % 4);
        x[i] = r == 0 ? 1.0f : r == 1 ? -1.0f : 0.0f;
        total += x[i];
    }
    *sum = (float)total;
    return x;
}

/* @p name(x, n, out) in the runner on @p x, @p offset bytes past an aligned address; *out. */
static float remote_reduce(struct course_runner *r, const char *name, const float *x, int n,
                           size_t offset)
{
    int d_x = course_buf_in(r, PROTO_DEVICE, x, (size_t)n * sizeof(float), offset);
    int d_out = course_buf_out(r, PROTO_DEVICE, sizeof(float), 0);
    COURSE_CALL(r, name, PROTO_VOID, COURSE_PTR(d_x), COURSE_I32(n), COURSE_PTR(d_out));
    char what[96];
    snprintf(what, sizeof what, "%s at n=%d", name, n);
    float *got = course_buf_read(r, d_out, what), v = *got;
    course_buf_free(r, d_x);
    course_buf_free(r, d_out);
    free(got);
    return v;
}

/* The reduction @p name at every size of `sizes`, exact, aligned and 4 bytes off. */
static void check_reduce_sizes(const char *name)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int k = 0; k < NSIZES; k++) {
        float want, *x = signs(sizes[k], 900 + k, &want);
        for (size_t offset = 0; offset <= 4; offset += 4) {
            float got = remote_reduce(r, name, x, sizes[k], offset);
            ck_assert_msg(got == want,
                          "%s at n=%d (x %zu bytes past 16-byte alignment): got %g, "
                          "want %g (exact: the inputs are -1, 0 and 1)",
                          name, sizes[k], offset, got, want);
        }
        free(x);
    }
    course_runner_stop(r);
}

START_TEST(reduce_atomic_edges)
{
    check_reduce_sizes("reduce_atomic");
}
END_TEST

START_TEST(reduce_tree_edges)
{
    check_reduce_sizes("reduce_tree");
}
END_TEST

START_TEST(reduce_warp_edges)
{
    check_reduce_sizes("reduce_warp");
}
END_TEST

START_TEST(reduce_grid_edges)
{
    check_reduce_sizes("reduce_grid");
}
END_TEST

START_TEST(reduce_deterministic_edges)
{
    check_reduce_sizes("reduce_deterministic");
}
END_TEST

/* Past 2^24 elements (where an int count of threads per element stops being enough for a
 * one-element-per-thread grid on small GPUs, and where a float counter would stop counting):
 * the grid-stride reduction, exact. */
START_TEST(reduce_grid_large)
{
    const int n = (1 << 24) + 3;
    float want, *x = signs(n, 77, &want);
    struct course_runner *r = course_runner_start(COURSE_GPU);
    float got = remote_reduce(r, "reduce_grid", x, n, 0);
    ck_assert_msg(got == want, "reduce_grid at n=%d: got %g, want %g", n, got, want);
    course_runner_stop(r);
    free(x);
}
END_TEST

/*
 * Floats that are not integers: the order of the additions matters. Every version here adds
 * each element into a chain of at most n / 256 + 32 additions (a thread's grid-stride or tile
 * share, at most n / 256 elements when the grid has one block; then 5 shuffles or 8 tree
 * levels, 3 more across the warps, and the partials of the blocks, one per block, at most
 * n / 256 of them, through atomics or pass 2). Each addition rounds by at most u = 2^-24
 * relative, so |got - sum| <= (n / 256 + 32) u sum |x| (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2002, section 4.2, for a chain of that length). reduce_deterministic
 * must also give the same bits on every run: its order depends on n and the grid only.
 */
START_TEST(reduce_float_rounding)
{
    const int n = 100003;
    float *x = mat_alloc_f32(n);
    mat_fill_uniform(x, n, 31, 0.0f, 1.0f);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += x[i]; /* positive: sum |x| = sum */
    double tol = ((double)n / 256 + 32) * 0x1p-24 * sum;
    static const char *const names[] = {"reduce_atomic", "reduce_tree", "reduce_warp",
                                        "reduce_grid", "reduce_deterministic"};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t v = 0; v < sizeof names / sizeof *names; v++) {
        float got = remote_reduce(r, names[v], x, n, 0);
        ck_assert_msg(fabs(got - sum) <= tol,
                      "%s at n=%d (uniform [0, 1)): got %.9g, want %.9g "
                      "within %.3g",
                      names[v], n, got, sum, tol);
    }
    float first = remote_reduce(r, "reduce_deterministic", x, n, 0);
    for (int run = 1; run < 3; run++) {
        float again = remote_reduce(r, "reduce_deterministic", x, n, 0);
        ck_assert_msg(memcmp(&again, &first, sizeof first) == 0,
                      "reduce_deterministic at n=%d: run %d gave %.9g, run 0 %.9g: the two-pass "
                      "sum must be the same bits every run",
                      n, run, again, first);
    }
    course_runner_stop(r);
    free(x);
}
END_TEST

/* ---- scan ------------------------------------------------------------------------------- */

/* n ints in [-4, 4] from @p seed and their exclusive scan (both malloc'd). */
static int *scan_input(int n, uint64_t seed, int **want)
{
    int *x = mat_alloc((n > 0 ? (size_t)n : 1) * sizeof(int));
    *want = mat_alloc((n > 0 ? (size_t)n : 1) * sizeof(int));
    uint64_t s = seed;
    for (int i = 0, sum = 0; i < n; i++) {
        x[i] = (int)(mat_rand_next(&s) % 9) - 4;
        (*want)[i] = sum;
        sum += x[i];
    }
    return x;
}

/* The scan @p name at n, exact; returns what the call returned (the block scans' status). */
static int64_t check_scan(struct course_runner *r, const char *name, enum proto_kind ret, int n,
                          uint64_t seed)
{
    if (n == 0) { /* nothing to read or write: NULL pointers must do */
        int64_t rc = COURSE_CALL(r, name, ret, COURSE_NULL, COURSE_I32(0), COURSE_NULL).i;
        ck_assert_msg(rc == 0, "%s at n=0 (NULL pointers) returned %lld, want 0", name,
                      (long long)rc);
        int d_in = course_buf_in(r, PROTO_DEVICE, NULL, 0, 0); /* empty, guards only */
        int d_out = course_buf_out(r, PROTO_DEVICE, 0, 0);
        rc = COURSE_CALL(r, name, ret, COURSE_PTR(d_in), COURSE_I32(0), COURSE_PTR(d_out)).i;
        ck_assert_msg(rc == 0, "%s at n=0 returned %lld, want 0", name, (long long)rc);
        free(course_buf_read(r, d_out, "an empty scan's output"));
        return rc;
    }
    int *want, *x = scan_input(n, seed, &want);
    int d_in = course_buf_in(r, PROTO_DEVICE, x, (size_t)n * sizeof(int), 0);
    int d_out = course_buf_out(r, PROTO_DEVICE, (size_t)n * sizeof(int), 0);
    int64_t rc = COURSE_CALL(r, name, ret, COURSE_PTR(d_in), COURSE_I32(n), COURSE_PTR(d_out)).i;
    ck_assert_msg(rc == 0, "%s at n=%d returned %lld, want 0", name, n, (long long)rc);
    char what[96];
    snprintf(what, sizeof what, "%s at n=%d", name, n);
    int *got = course_buf_read(r, d_out, what);
    int bad = 0;
    while (bad < n && got[bad] == want[bad])
        bad++;
    ck_assert_msg(bad == n,
                  "%s at n=%d: out[%d] = %d, want %d (the sum of in[0 .. %d], "
                  "exclusive)",
                  name, n, bad, bad < n ? got[bad] : 0, bad < n ? want[bad] : 0, bad - 1);
    course_buf_free(r, d_in);
    course_buf_free(r, d_out);
    free(x);
    free(want);
    free(got);
    return rc;
}

/* @p name at the sizes up to @p max (and, for a one-block scan, -1 past it). */
static void check_scan_sizes(const char *name, enum proto_kind ret, int max, int extra)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int k = 0; k < NSIZES && sizes[k] <= max; k++)
        check_scan(r, name, ret, sizes[k], 300 + k);
    if (extra)
        check_scan(r, name, ret, extra, 400);
    if (ret == PROTO_I32) {
        int64_t rc = COURSE_CALL(r, name, ret, COURSE_NULL, COURSE_I32(max + 1), COURSE_NULL).i;
        ck_assert_msg(rc == -1, "%s at n=%d (past one block) returned %lld, want -1", name, max + 1,
                      (long long)rc);
    }
    course_runner_stop(r);
}

START_TEST(scan_kogge_stone_edges)
{
    check_scan_sizes("scan_kogge_stone", PROTO_I32, 1024, 1024);
}
END_TEST

START_TEST(scan_brent_kung_edges)
{
    check_scan_sizes("scan_brent_kung", PROTO_I32, 2048, 2048);
}
END_TEST

/* Past 2048 tiles (2048 x 2048 elements) the block sums take a second level of recursion. */
START_TEST(scan_three_phase_edges)
{
    check_scan_sizes("scan_three_phase", PROTO_VOID, 1 << 30, 2048 * 2048 + 13);
}
END_TEST

START_TEST(scan_lookback_edges)
{
    check_scan_sizes("scan_lookback", PROTO_VOID, 1 << 30, 0);
}
END_TEST

/* ---- histogram ---------------------------------------------------------------------------- */

enum data_kind { UNIFORM, SKEWED, ONE_BIN };
static const char *const kind_names[] = {"uniform", "skewed (half in bin 200)", "all in bin 255"};

/* n bytes of @p kind (malloc'd) and their 256 bins. Bytes of 128 and up (negative as a signed
 * char) are in every kind. */
static unsigned char *bytes_of(enum data_kind kind, int n, uint64_t seed, unsigned int want[256])
{
    unsigned char *x = mat_alloc(n > 0 ? (size_t)n : 1);
    uint64_t s = seed;
    memset(want, 0, 256 * sizeof *want);
    for (int i = 0; i < n; i++) {
        unsigned char b = (unsigned char)(mat_rand_next(&s) >> 56);
        x[i] = kind == ONE_BIN ? 255 : kind == SKEWED && b % 2 ? 200 : b;
        want[x[i]]++;
    }
    return x;
}

/* The histogram @p name of @p x (@p offset bytes past alignment) against @p want. */
static void check_histogram(struct course_runner *r, const char *name, const unsigned char *x,
                            int n, size_t offset, const unsigned int want[256], const char *kind)
{
    int d_x = course_buf_in(r, PROTO_DEVICE, x, (size_t)n, offset);
    int d_bins = course_buf_out(r, PROTO_DEVICE, 256 * sizeof(unsigned int), 0);
    COURSE_CALL(r, name, PROTO_VOID, COURSE_PTR(d_x), COURSE_I32(n), COURSE_PTR(d_bins));
    char what[128];
    snprintf(what, sizeof what, "%s of %d %s bytes", name, n, kind);
    unsigned int *got = course_buf_read(r, d_bins, what);
    int b = 0;
    while (b < 256 && got[b] == want[b])
        b++;
    ck_assert_msg(b == 256, "%s (%zu bytes past alignment): bin %d holds %u, want %u", what, offset,
                  b, b < 256 ? got[b] : 0, b < 256 ? want[b] : 0);
    course_buf_free(r, d_x);
    course_buf_free(r, d_bins);
    free(got);
}

/* @p name on each kind of data at each size up to 10^6, and 3 bytes off alignment. */
static void check_histogram_sizes(const char *name)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int kind = UNIFORM; kind <= ONE_BIN; kind++)
        for (int k = 0; k < NSIZES; k++) {
            unsigned int want[256];
            unsigned char *x = bytes_of(kind, sizes[k], 500 + k, want);
            check_histogram(r, name, x, sizes[k], 0, want, kind_names[kind]);
            if (kind == UNIFORM && sizes[k] > 1000)
                check_histogram(r, name, x, sizes[k], 3, want, kind_names[kind]);
            free(x);
        }
    course_runner_stop(r);
}

START_TEST(histogram_global_edges)
{
    check_histogram_sizes("histogram_global");
}
END_TEST

START_TEST(histogram_shared_edges)
{
    check_histogram_sizes("histogram_shared");
}
END_TEST

START_TEST(histogram_aggregated_edges)
{
    check_histogram_sizes("histogram_aggregated");
}
END_TEST

/* histogram_range at bin counts from 1 to the most, keys from -3 to num_bins + 2 (the ones
 * outside are not counted). */
START_TEST(histogram_range_edges)
{
    static const int bins[] = {1, 257, 4099, HISTOGRAM_MAX_BINS};
    const int n = 100003;
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t k = 0; k < sizeof bins / sizeof *bins; k++) {
        int nb = bins[k], *keys = mat_alloc((size_t)n * sizeof(int));
        unsigned int *want = calloc((size_t)nb, sizeof *want);
        uint64_t s = 600 + k;
        for (int i = 0; i < n; i++) {
            keys[i] = (int)(mat_rand_next(&s) % (uint64_t)(nb + 6)) - 3;
            if (keys[i] >= 0 && keys[i] < nb)
                want[keys[i]]++;
        }
        int d_keys = course_buf_in(r, PROTO_DEVICE, keys, (size_t)n * sizeof(int), 0);
        int d_bins = course_buf_out(r, PROTO_DEVICE, (size_t)nb * sizeof(unsigned int), 0);
        COURSE_CALL(r, "histogram_range", PROTO_VOID, COURSE_PTR(d_keys), COURSE_I32(n),
                    COURSE_I32(nb), COURSE_PTR(d_bins));
        char what[96];
        snprintf(what, sizeof what, "histogram_range of %d keys into %d bins", n, nb);
        unsigned int *got = course_buf_read(r, d_bins, what);
        int b = 0;
        while (b < nb && got[b] == want[b])
            b++;
        ck_assert_msg(b == nb, "%s: bin %d holds %u, want %u", what, b, b < nb ? got[b] : 0,
                      b < nb ? want[b] : 0);
        course_buf_free(r, d_keys);
        course_buf_free(r, d_bins);
        free(keys);
        free(want);
        free(got);
    }
    course_runner_stop(r);
}
END_TEST

/* ---- metric cases: what each step does, counted on the CPU emulator ----------------------- */

/* The counters of every launch the last call made, summed, once asserted that each ran to its
 * end: what the whole call did (its zeroing and merging kernels included). */
static struct vm_counters call_counters(struct course_runner *r, const char *name)
{
    int n;
    const struct course_launch *l = course_launches(r, &n);
    struct vm_counters sum;
    memset(&sum, 0, sizeof sum);
    ck_assert_msg(n > 0, "%s launched no kernel", name);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(!strcmp(l[i].status, "ok"), "%s: launch %d (%s) ended with status %s", name,
                      i + 1, l[i].kernel, l[i].status);
        bench_add_counters(&sum, &l[i].counters);
    }
    return sum;
}

/* The blocks of the launches of the last call whose kernel name contains @p kernel. */
static uint64_t blocks_of(struct course_runner *r, const char *kernel)
{
    int n;
    const struct course_launch *l = course_launches(r, &n);
    uint64_t blocks = 0;
    for (int i = 0; i < n; i++)
        if (strstr(l[i].kernel, kernel))
            blocks += (uint64_t)l[i].grid[0] * l[i].grid[1] * l[i].grid[2];
    return blocks;
}

/* A reduction at n (a multiple of 4, aligned) on an observed runner, checked; its counters. */
static struct vm_counters observe_reduce(struct course_runner *r, const char *name, int n)
{
    float want, *x = signs(n, 42, &want);
    float got = remote_reduce(r, name, x, n, 0);
    ck_assert_msg(got == want, "%s at n=%d: got %g, want %g", name, n, got, want);
    free(x);
    return call_counters(r, name);
}

/*
 * Atomics per element, step by step, at n = 100000: reduce_atomic makes one global atomic per
 * element, all on one address (each waits on the last); a tile of 512 per block makes one per
 * block, ceil(n / 512) = 196; the grid-stride form one per block of its fixed grid, at most
 * ceil(n / 1024) (256 threads x one float4 per step); the two-pass form none. None uses a
 * shared atomic.
 */
START_TEST(reduce_atomics_per_element)
{
    enum { N = 100000 };
    static const struct {
        const char *name;
        uint64_t most;
    } steps[] = {{"reduce_atomic", N},
                 {"reduce_tree", (N + 511) / 512},
                 {"reduce_warp", (N + 511) / 512},
                 {"reduce_grid", (N + 1023) / 1024},
                 {"reduce_deterministic", 0}};
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        struct vm_counters c = observe_reduce(r, steps[s].name, N);
        ck_assert_msg(c.gatom_lanes <= steps[s].most && c.satom_lanes == 0,
                      "%s at n=%d made %llu global and %llu shared atomics, want at most %llu "
                      "global (%.4f per element) and no shared",
                      steps[s].name, N, (unsigned long long)c.gatom_lanes,
                      (unsigned long long)c.satom_lanes, (unsigned long long)steps[s].most,
                      (double)steps[s].most / N);
        ck_assert_msg(c.gatom_addrs <= 1, "%s: atomics on %llu addresses, want all on *out",
                      steps[s].name, (unsigned long long)c.gatom_addrs);
    }
    course_runner_stop(r);
}
END_TEST

/*
 * Global traffic against the compulsory 4n bytes: the grid-stride forms read each sector of x
 * once (float4: 16 sectors per request) and little else (the zeroing, the block partials of
 * pass 2: 4 bytes per block). At most 1.1 x 4n in all, loads and stores.
 */
static const double max_traffic_over_compulsory = 1.1;

START_TEST(reduce_traffic)
{
    enum { N = 100000 };
    static const char *const names[] = {"reduce_grid", "reduce_deterministic"};
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (size_t v = 0; v < 2; v++) {
        struct vm_counters c = observe_reduce(r, names[v], N);
        double moved = 32.0 * (double)(c.gld_sectors + c.gst_sectors);
        ck_assert_msg(moved <= max_traffic_over_compulsory * 4 * N,
                      "%s at n=%d moved %.0f bytes of global memory, %.2f x the 4n = %d it "
                      "must read: want at most %g x (one float4 load per 16 bytes, no re-reads)",
                      names[v], N, moved, moved / (4.0 * N), 4 * N, max_traffic_over_compulsory);
    }
    course_runner_stop(r);
}
END_TEST

/*
 * The tree's shared accesses, at n = 5120 (10 blocks): with sequential addressing (threads
 * t < d add s[t + d] into s[t]) neighbouring lanes touch neighbouring words, one wavefront per
 * request. Per block: stores, 8 warps for the load then 4 + 2 + 1 + 5 warp-steps of the 8
 * levels (d = 128 .. 1): 20; loads, two per warp-step, 24, and thread 0's read of s[0]: 25. The
 * interleaved form (s[2 d t] += s[2 d t + d]) puts 2, 4, .. 16 lanes on one bank.
 */
START_TEST(reduce_tree_conflict_free)
{
    enum { N = 5120, BLOCKS = N / 512 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c = observe_reduce(r, "reduce_tree", N);
    course_assert_shared_wavefronts("reduce_tree's shared loads", c.lds_wavefronts, c.lds_requests,
                                    1, 25.0 * BLOCKS,
                                    "index the tree sequentially: threads t < d add s[t + d]");
    course_assert_shared_wavefronts("reduce_tree's shared stores", c.sts_wavefronts, c.sts_requests,
                                    1, 20.0 * BLOCKS,
                                    "index the tree sequentially: threads t < d add s[t + d]");
    course_runner_stop(r);
}
END_TEST

/*
 * Barriers per block of the reduction (counted per warp: a block of 8 warps passing one barrier
 * counts 8). The tree has one per level, 8 (256 -> 1) x 8 warps = 64; the shuffle form one, 8.
 */
START_TEST(reduce_barriers_per_block)
{
    enum { N = 5120 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    static const struct {
        const char *name;
        uint64_t per_block;
    } steps[] = {{"reduce_tree", 64}, {"reduce_warp", 8}};
    for (size_t s = 0; s < 2; s++) {
        struct vm_counters c = observe_reduce(r, steps[s].name, N);
        uint64_t blocks = blocks_of(r, steps[s].name);
        ck_assert_msg(c.barriers <= steps[s].per_block * blocks,
                      "%s at n=%d: %llu barriers (per warp) in %llu blocks, want at most %llu per "
                      "block",
                      steps[s].name, N, (unsigned long long)c.barriers, (unsigned long long)blocks,
                      (unsigned long long)steps[s].per_block);
    }
    course_runner_stop(r);
}
END_TEST

/*
 * Barriers of the Brent-Kung tile scan (counted per warp): 11 levels up, 2 around the total, 11
 * down, 1 after: 25 x 32 warps = 800 for one tile of 2048.
 */
START_TEST(scan_barriers_per_block)
{
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_scan(r, "scan_brent_kung", PROTO_I32, 2048, 7);
    struct vm_counters c = call_counters(r, "scan_brent_kung");
    ck_assert_msg(c.barriers <= 800,
                  "scan_brent_kung at n=2048: %llu barriers (per warp), want at most 25 per "
                  "warp, 800 (2 log2(2048) + 3 levels)",
                  (unsigned long long)c.barriers);
    course_runner_stop(r);
}
END_TEST

/*
 * The look-back scan reads and writes each element once: one pass, 8n bytes and the tiles'
 * flags; the three-phase scan reads and writes it twice, the second time to add the offsets
 * (about 16n). At n = 100003: at most 1.1 x 8n for the look-back.
 */
START_TEST(scan_lookback_one_pass)
{
    const int n = 100003;
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_scan(r, "scan_lookback", PROTO_VOID, n, 11);
    struct vm_counters c = call_counters(r, "scan_lookback");
    double moved = 32.0 * (double)(c.gld_sectors + c.gst_sectors);
    ck_assert_msg(moved <= max_traffic_over_compulsory * 8 * n,
                  "scan_lookback at n=%d moved %.0f bytes, %.2f x the 8n it must read and write: "
                  "want one pass, at most %g x",
                  n, moved, moved / (8.0 * n), max_traffic_over_compulsory);
    course_runner_stop(r);
}
END_TEST

/* A histogram of @p kind data at n on an observed runner, checked; its counters. */
static struct vm_counters observe_histogram(struct course_runner *r, const char *name,
                                            enum data_kind kind, int n)
{
    unsigned int want[256];
    unsigned char *x = bytes_of(kind, n, 99, want);
    check_histogram(r, name, x, n, 0, want, kind_names[kind]);
    free(x);
    return call_counters(r, name);
}

/*
 * Atomics by space, at n = 65536: the global form makes n global atomics; the private
 * histograms n shared ones and at most 256 global per block (the merge), and so that the merge
 * is cheap, each block sees at least 16 bytes per thread: at most n / 16; the run-aggregated
 * form, on data all in one bin, one shared atomic per thread that read any (a run spans its
 * 16-byte chunks): at most n / 16.
 */
START_TEST(histogram_atomics_by_space)
{
    enum { N = 65536 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters c = observe_histogram(r, "histogram_global", UNIFORM, N);
    ck_assert_msg(c.gatom_lanes == N && c.satom_lanes == 0,
                  "histogram_global of %d bytes: %llu global and %llu shared atomics, want %d "
                  "and 0",
                  N, (unsigned long long)c.gatom_lanes, (unsigned long long)c.satom_lanes, N);
    c = observe_histogram(r, "histogram_shared", UNIFORM, N);
    uint64_t blocks = blocks_of(r, "histogram_shared");
    ck_assert_msg(c.satom_lanes == N && c.gatom_lanes <= 256 * blocks && c.gatom_lanes <= N / 16,
                  "histogram_shared of %d bytes: %llu shared and %llu global atomics in %llu "
                  "blocks, want %d and at most 256 per block, n / 16 in all (a block that sees "
                  "few bytes merges nearly as many bins as it counted)",
                  N, (unsigned long long)c.satom_lanes, (unsigned long long)c.gatom_lanes,
                  (unsigned long long)blocks, N);
    c = observe_histogram(r, "histogram_aggregated", ONE_BIN, N);
    ck_assert_msg(c.satom_lanes <= N / 16,
                  "histogram_aggregated of %d bytes all in one bin: %llu shared atomics, want at "
                  "most n / 16 = %d (one per run of equal bytes)",
                  N, (unsigned long long)c.satom_lanes, N / 16);
    course_runner_stop(r);
}
END_TEST

/*
 * Contention: the lanes of one atomic instruction that update an address an earlier lane of
 * it updates too wait on each other. Uniform bytes: a warp's 32 lanes fall in 256 bins, about
 * 1.8 repeats per instruction, under 10% of n; half the bytes in one bin, about half of n. On
 * data all in one bin the shared form has 31 of every 32 lanes contend (31n / 32); the
 * run-aggregated form adds each thread's 16 bytes (or more) with one atomic: at most n / 16
 * lanes, 16 times fewer.
 */
START_TEST(histogram_contention)
{
    enum { N = 65536 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct vm_counters uni = observe_histogram(r, "histogram_global", UNIFORM, N);
    struct vm_counters hot = observe_histogram(r, "histogram_global", SKEWED, N);
    ck_assert_msg(uni.gatom_same_addr < N / 10 && hot.gatom_same_addr > N / 3,
                  "histogram_global of %d bytes: %llu lanes contended on uniform data, %llu on "
                  "skewed (half in one bin): want under n / 10 and over n / 3",
                  N, (unsigned long long)uni.gatom_same_addr,
                  (unsigned long long)hot.gatom_same_addr);
    struct vm_counters shared = observe_histogram(r, "histogram_shared", ONE_BIN, N);
    struct vm_counters agg = observe_histogram(r, "histogram_aggregated", ONE_BIN, N);
    ck_assert_msg(agg.satom_same_addr * 8 < shared.satom_same_addr,
                  "histogram_aggregated on data all in one bin: %llu shared atomic lanes "
                  "contended, histogram_shared %llu: want under an eighth (add runs of equal "
                  "bytes at once)",
                  (unsigned long long)agg.satom_same_addr,
                  (unsigned long long)shared.satom_same_addr);
    course_runner_stop(r);
}
END_TEST

/* ---- timing on a GPU: each step against CUB in one run ------------------------------------ */

/* Median ms of @p name on @p n elements of @p elem bytes in, @p out_bytes out. */
static double time_call(struct course_runner *r, const char *name, int n, size_t elem,
                        size_t out_bytes)
{
    int d_in = course_buf_out(r, PROTO_DEVICE, (size_t)n * elem, 0);
    int d_out = course_buf_out(r, PROTO_DEVICE, out_bytes, 0);
    const struct proto_arg args[] = {COURSE_PTR(d_in), COURSE_I32(n), COURSE_PTR(d_out)};
    double ms = course_time(r, name, args, 3, 2, 10);
    course_buf_free(r, d_in);
    course_buf_free(r, d_out);
    return ms;
}

/* The course's CUB call (cub_yardstick.h) of one pattern, on device buffers of the judge's. */
struct yardstick {
    void (*reduce)(const float *, int, float *);
    void (*scan)(const int *, int, int *);
    void (*histogram)(const unsigned char *, int, unsigned int *);
    void *in, *out;
    int n;
};

static void run_yardstick(void *arg)
{
    const struct yardstick *y = arg;
    if (y->reduce)
        y->reduce(y->in, y->n, y->out);
    else if (y->scan)
        y->scan(y->in, y->n, y->out);
    else
        y->histogram(y->in, y->n, y->out);
}

/* Median ms of @p y at its n elements of @p elem bytes in and @p out_bytes out, in the judge's
 * own process: the yardstick never runs in the graded runner. */
static double time_yardstick(struct yardstick y, size_t elem, size_t out_bytes)
{
    CUDA_CHECK(cudaMalloc(&y.in, (size_t)y.n * elem));
    CUDA_CHECK(cudaMalloc(&y.out, out_bytes));
    CUDA_CHECK(cudaMemset(y.in, 0, (size_t)y.n * elem));
    struct timer_opts o = {2, 10, 1, 0};
    double ms = timer_measure(run_yardstick, &y, &o).median_ms;
    CUDA_CHECK(cudaFree(y.in));
    CUDA_CHECK(cudaFree(y.out));
    return ms;
}

/* @p name against CUB's speed (@p cub, timed by the judge) at 2^26 elements, after its
 * correctness cases, at the bar @p key for this GPU (course_bars.c). */
static void assert_vs_cub(const char *name, struct yardstick cub, size_t elem, size_t out_per_elem,
                          size_t out_fixed, const char *key)
{
    const int n = 1 << 26;
    size_t out = out_fixed + (size_t)n * out_per_elem;
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double ms = time_call(r, name, n, elem, out);
    course_runner_stop(r);
    cub.n = n;
    double base = time_yardstick(cub, elem, out);
    course_assert_bar(key, base / ms, "%s %.3f ms, CUB %.3f ms at n=%d", name, ms, base, n);
}

START_TEST(reduce_vs_cub)
{
    assert_vs_cub("reduce_grid", (struct yardstick){.reduce = reduce_cub}, sizeof(float), 0,
                  sizeof(float), "reduce_vs_cub");
}
END_TEST

START_TEST(scan_three_phase_vs_cub)
{
    assert_vs_cub("scan_three_phase", (struct yardstick){.scan = scan_cub}, sizeof(int),
                  sizeof(int), 0, "scan_three_phase_vs_cub");
}
END_TEST

START_TEST(scan_lookback_vs_cub)
{
    assert_vs_cub("scan_lookback", (struct yardstick){.scan = scan_cub}, sizeof(int), sizeof(int),
                  0, "scan_lookback_vs_cub");
}
END_TEST

START_TEST(histogram_vs_cub)
{
    assert_vs_cub("histogram_shared", (struct yardstick){.histogram = histogram_cub}, 1, 0,
                  256 * sizeof(unsigned int), "histogram_vs_cub");
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"reduce_atomic_edges", reduce_atomic_edges, CASE_GPU, 120},
        {"reduce_tree_edges", reduce_tree_edges, CASE_GPU, 120},
        {"reduce_warp_edges", reduce_warp_edges, CASE_GPU, 120},
        {"reduce_grid_edges", reduce_grid_edges, CASE_GPU, 120},
        {"reduce_deterministic_edges", reduce_deterministic_edges, CASE_GPU, 120},
        {"reduce_grid_large", reduce_grid_large, CASE_GPU, 180},
        {"reduce_float_rounding", reduce_float_rounding, CASE_GPU, 120},
        {"reduce_atomics_per_element", reduce_atomics_per_element, CASE_GPU, 60},
        {"reduce_traffic", reduce_traffic, CASE_GPU, 60},
        {"reduce_tree_conflict_free", reduce_tree_conflict_free, CASE_GPU, 60},
        {"reduce_barriers_per_block", reduce_barriers_per_block, CASE_GPU, 60},
        {"reduce_vs_cub", reduce_vs_cub, CASE_GPU | CASE_PERF, 120},
        {"scan_kogge_stone_edges", scan_kogge_stone_edges, CASE_GPU, 60},
        {"scan_brent_kung_edges", scan_brent_kung_edges, CASE_GPU, 60},
        {"scan_three_phase_edges", scan_three_phase_edges, CASE_GPU, 180},
        {"scan_lookback_edges", scan_lookback_edges, CASE_GPU, 120},
        {"scan_barriers_per_block", scan_barriers_per_block, CASE_GPU, 60},
        {"scan_lookback_one_pass", scan_lookback_one_pass, CASE_GPU, 60},
        {"scan_three_phase_vs_cub", scan_three_phase_vs_cub, CASE_GPU | CASE_PERF, 120},
        {"scan_lookback_vs_cub", scan_lookback_vs_cub, CASE_GPU | CASE_PERF, 120},
        {"histogram_global_edges", histogram_global_edges, CASE_GPU, 120},
        {"histogram_shared_edges", histogram_shared_edges, CASE_GPU, 120},
        {"histogram_aggregated_edges", histogram_aggregated_edges, CASE_GPU, 120},
        {"histogram_range_edges", histogram_range_edges, CASE_GPU, 120},
        {"histogram_atomics_by_space", histogram_atomics_by_space, CASE_GPU, 60},
        {"histogram_contention", histogram_contention, CASE_GPU, 60},
        {"histogram_vs_cub", histogram_vs_cub, CASE_GPU | CASE_PERF, 120},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
