/**
 * @file test_fused_attention.c
 * @brief Lesson 11's suite: softmax, LayerNorm and attention against the CPU in double under
 *        bounds derived from the formats and the row lengths (reference/ref.h), at awkward
 *        sizes with guards; the traffic and the Tensor Core work counted on the emulator; and
 *        two timing ratios on a GPU.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "course_judge.h"
#include "course_test.h"
#include "fused_attention.h"
#include "mat.h"
#include "ref.h"

/* The 16-bit format's bits of @p x, and their value back. */
static uint16_t bits16(float x, int bf16)
{
    return bf16 ? ref_f32_to_bf16(x) : ref_f32_to_f16(x);
}

static float value16(uint16_t h, int bf16)
{
    return bf16 ? ref_bf16_to_f32(h) : ref_f16_to_f32(h);
}

/* The bits of @p n floats rounded to the format (malloc'd); @p x takes the rounded values. */
static uint16_t *to16(float *x, size_t n, int bf16)
{
    uint16_t *h = mat_alloc(n * sizeof *h);
    for (size_t i = 0; i < n; i++) {
        h[i] = bits16(x[i], bf16);
        x[i] = value16(h[i], bf16);
    }
    return h;
}

static double *alloc_f64(size_t n)
{
    return mat_alloc(n * sizeof(double));
}

/* Assert @p got within @p bound of @p want (rows x cols), naming @p what and the bound. */
static void assert_within(const float *got, const double *want, const double *bound, int rows,
                          int cols, const char *what)
{
    struct mat_cmp c = mat_compare_scaled(got, want, bound, rows, cols, 1.0);
    char why[160];
    ck_assert_msg(c.n_bad == 0,
                  "%s: %s (bound: reference/ref.h, from the formats and the row "
                  "length)",
                  what, mat_cmp_describe(&c, why, sizeof why));
}

/* ---- softmax -------------------------------------------------------------------------------- */

/* Run @p name on the rows x cols logits @p x (@p offset bytes into their buffer), on @p r, and
 * check it against ref_softmax_f64() under its bound. */
static void check_softmax_on(struct course_runner *r, const char *name, int rows, int cols,
                             const float *x, size_t offset)
{
    size_t n = (size_t)rows * cols;
    double *want = alloc_f64(n), *bound = alloc_f64(n);
    ref_softmax_f64(rows, cols, x, want, bound);
    int bx = course_buf_in(r, PROTO_DEVICE, x, n * 4, offset);
    int by = course_buf_out(r, PROTO_DEVICE, n * 4, offset);
    COURSE_CALL(r, name, PROTO_VOID, COURSE_I32(rows), COURSE_I32(cols), COURSE_PTR(bx),
                COURSE_PTR(by));
    char what[128];
    snprintf(what, sizeof what, "%s at rows=%d cols=%d (pointers %zu bytes in)", name, rows, cols,
             offset);
    float *got = course_buf_read(r, by, what);
    assert_within(got, want, bound, rows, cols, what);
    course_buf_free(r, bx);
    course_buf_free(r, by);
    free(got);
    free(want);
    free(bound);
}

/* Shapes: a row of 1, odd lengths around a warp, 1000 and around SOFTMAX_WARP_COLS (the warp
 * path's end), a prime past it and a row of 100003 (the block path), several rows each. Logits
 * uniform in [-8, 8); the second half of the shapes at pointers 4 bytes off 16-byte alignment. */
static void check_softmax(const char *name)
{
    static const int shapes[][2] = {{1, 1},    {3, 17},   {5, 31},   {2, 32},   {7, 33},
                                    {4, 1000}, {3, 1024}, {3, 1025}, {2, 4099}, {2, 100003}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int s = 0; s < 10; s++) {
        size_t n = (size_t)shapes[s][0] * shapes[s][1];
        float *x = mat_alloc_f32(n);
        mat_fill_uniform(x, n, 1100 + (uint64_t)s, -8, 8);
        check_softmax_on(r, name, shapes[s][0], shapes[s][1], x, s >= 5 ? 4 : 0);
        free(x);
    }
    course_runner_stop(r);
}

START_TEST(softmax_naive_edges)
{
    check_softmax("softmax_naive");
}
END_TEST

START_TEST(softmax_online_edges)
{
    check_softmax("softmax_online");
}
END_TEST

/*
 * What may not overflow or turn into NaN: logits up to +-1e4 (exp(1e4) is infinite in any
 * format), one huge logit among small ones, rows where some logits are -inf (masked), rows that
 * are all -inf (output 0, the lesson's definition), and rows of one element (output 1), on both
 * paths of softmax_online (rows of 33 and of 2053) and on softmax_naive.
 */
START_TEST(softmax_robust)
{
    const char *names[] = {"softmax_naive", "softmax_online"};
    const int lengths[] = {33, 2053};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < 2; k++) {
            int rows = 5, cols = lengths[k];
            float *x = mat_alloc_f32((size_t)rows * cols);
            mat_fill_uniform(x, (size_t)rows * cols, 1200 + (uint64_t)k, -1e4f, 1e4f); /* row 0 */
            for (int c = 0; c < cols; c++) {
                x[cols + c] = c == cols / 2 ? 9000.0f : x[cols + c] / 1e4f; /* row 1: one huge */
                x[2 * cols + c] = c % 3 ? -INFINITY : x[2 * cols + c];      /* row 2: masked */
                x[3 * cols + c] = -INFINITY;                                /* row 3: all */
                x[4 * cols + c] = x[4 * cols + c] - 2e4f;                   /* row 4: all < 0 */
            }
            check_softmax_on(r, names[v], rows, cols, x, 0);
            check_softmax_on(r, names[v], cols, 1, x, 0); /* cols rows of one element */
            free(x);
        }
    course_runner_stop(r);
}
END_TEST

/*
 * The one-read bound, counted: rows up to SOFTMAX_WARP_COLS fit one warp's registers, so the
 * input is read once and the output written once, every 32-byte sector exactly once (64 rows
 * of 1000 floats, 4000 bytes a row: whole sectors, so no sector is shared by two rows). Longer
 * rows (3 of 50000) cannot stay on the chip: the statistics pass and the output pass read x
 * twice at most (the three-pass version reads it three times), and y is written once.
 */
START_TEST(softmax_online_reads_once)
{
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    const int shapes[][2] = {{64, 1000}, {3, 50000}};
    for (int s = 0; s < 2; s++) {
        int rows = shapes[s][0], cols = shapes[s][1];
        size_t n = (size_t)rows * cols, sectors = n * 4 / 32;
        float *x = mat_alloc_f32(n);
        mat_fill_uniform(x, n, 1300 + (uint64_t)s, -8, 8);
        check_softmax_on(r, "softmax_online", rows, cols, x, 0);
        struct vm_counters c = course_observed(r, "");
        char what[96];
        snprintf(what, sizeof what, "softmax_online at rows=%d cols=%d", rows, cols);
        if (s == 0)
            course_assert_each_sector_once(what, &c, n * 4, n * 4);
        ck_assert_msg(c.gld_sectors <= (s == 0 ? 1 : 2) * sectors && c.gst_sectors == sectors,
                      "%s read %llu sectors and wrote %llu; x is %zu sectors: want x read %s "
                      "and y written once",
                      what, (unsigned long long)c.gld_sectors, (unsigned long long)c.gst_sectors,
                      sectors, s == 0 ? "once (the row fits a warp's registers)" : "twice at most");
        free(x);
    }
    course_runner_stop(r);
}
END_TEST

/* ---- layernorm ------------------------------------------------------------------------------ */

/* layernorm on rows x cols values of format @p bf16 with row means from -4 to 4, checked: y,
 * mean and rstd against ref_layernorm_f64() under its bounds. Pointers @p offset bytes in. */
static void check_layernorm_on(struct course_runner *r, int rows, int cols, int bf16, uint64_t seed,
                               size_t offset)
{
    size_t n = (size_t)rows * cols;
    float *x = mat_alloc_f32(n), *gamma = mat_alloc_f32((size_t)cols);
    float *beta = mat_alloc_f32((size_t)cols);
    mat_fill_uniform(x, n, seed, -2, 2);
    for (size_t i = 0; i < n; i++)
        x[i] += (float)((int)(i / (size_t)cols) % 9 - 4); /* row r's mean near r % 9 - 4 */
    mat_fill_uniform(gamma, (size_t)cols, seed + 1, 0.5f, 1.5f);
    mat_fill_uniform(beta, (size_t)cols, seed + 2, -1, 1);
    uint16_t *h = to16(x, n, bf16);
    struct ref_layernorm want = {alloc_f64(n), alloc_f64((size_t)rows), alloc_f64((size_t)rows),
                                 alloc_f64(n), alloc_f64((size_t)rows), alloc_f64((size_t)rows)};
    ref_layernorm_f64(rows, cols, x, gamma, beta, 1e-5f, bf16 ? REF_U_BF16 : REF_U_FP16, &want);
    int bx = course_buf_in(r, PROTO_DEVICE, h, n * 2, offset);
    int bg = course_buf_in(r, PROTO_DEVICE, gamma, (size_t)cols * 4, 0);
    int bb = course_buf_in(r, PROTO_DEVICE, beta, (size_t)cols * 4, 0);
    int by = course_buf_out(r, PROTO_DEVICE, n * 2, offset);
    int bm = course_buf_out(r, PROTO_DEVICE, (size_t)rows * 4, 0);
    int bs = course_buf_out(r, PROTO_DEVICE, (size_t)rows * 4, 0);
    char what[128];
    snprintf(what, sizeof what, "layernorm at rows=%d cols=%d (%s, x %zu bytes in)", rows, cols,
             bf16 ? "bf16" : "fp16", offset);
    int64_t rc = COURSE_CALL(r, "layernorm", PROTO_I32, COURSE_I32(rows), COURSE_I32(cols),
                             COURSE_PTR(bx), COURSE_PTR(bg), COURSE_PTR(bb), COURSE_F32(1e-5f),
                             COURSE_I32(bf16), COURSE_PTR(by), COURSE_PTR(bm), COURSE_PTR(bs))
                     .i;
    ck_assert_msg(rc == 0, "%s returned %lld, want 0", what, (long long)rc);
    uint16_t *hy = course_buf_read(r, by, what);
    float *mean = course_buf_read(r, bm, what), *rstd = course_buf_read(r, bs, what);
    float *y = mat_alloc_f32(n);
    for (size_t i = 0; i < n; i++)
        y[i] = value16(hy[i], bf16);
    char part[160];
    snprintf(part, sizeof part, "%s, its mean", what);
    assert_within(mean, want.mean, want.mean_bound, rows, 1, part);
    snprintf(part, sizeof part, "%s, its rstd", what);
    assert_within(rstd, want.rstd, want.rstd_bound, rows, 1, part);
    snprintf(part, sizeof part, "%s, y", what);
    assert_within(y, want.y, want.y_bound, rows, cols, part);
    int bufs[] = {bx, bg, bb, by, bm, bs};
    for (int i = 0; i < 6; i++)
        course_buf_free(r, bufs[i]);
    free(x), free(gamma), free(beta), free(h), free(hy), free(mean), free(rstd), free(y);
    free(want.y), free(want.mean), free(want.rstd);
    free(want.y_bound), free(want.mean_bound), free(want.rstd_bound);
}

/* Rows of 1, odd lengths around a block (256 threads), 1000, a prime, and the longest
 * (LAYERNORM_MAX_COLS), in fp16 and bf16, pointers aligned and 2 bytes off. */
START_TEST(layernorm_edges)
{
    static const int shapes[][2] = {{3, 1},   {5, 17},   {4, 33},   {3, 255}, {3, 256},
                                    {3, 257}, {9, 1000}, {2, 4099}, {2, 8192}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int s = 0; s < 9; s++)
        for (int bf16 = 0; bf16 < 2; bf16++)
            check_layernorm_on(r, shapes[s][0], shapes[s][1], bf16, 1400 + (uint64_t)s,
                               s % 2 ? 2 : 0);
    course_runner_stop(r);
}
END_TEST

/* Sizes layernorm refuses, launching nothing: no column, more than a block holds, no row. */
START_TEST(layernorm_refuses_bad_sizes)
{
    static const int bad[][2] = {{4, 0}, {4, LAYERNORM_MAX_COLS + 1}, {0, 64}};
    struct course_runner *r = course_runner_start(COURSE_EMULATED);
    for (int b = 0; b < 3; b++) {
        int64_t rc =
            COURSE_CALL(r, "layernorm", PROTO_I32, COURSE_I32(bad[b][0]), COURSE_I32(bad[b][1]),
                        COURSE_NULL, COURSE_NULL, COURSE_NULL, COURSE_F32(1e-5f), COURSE_I32(0),
                        COURSE_NULL, COURSE_NULL, COURSE_NULL)
                .i;
        ck_assert_msg(rc == -1, "layernorm at rows=%d cols=%d returned %lld, want -1 (refused)",
                      bad[b][0], bad[b][1], (long long)rc);
    }
    course_runner_stop(r);
}
END_TEST

/* The one-read bound, counted: 16 rows of 4096 fp16 values (8192 bytes a row, whole sectors),
 * x read once, y written once, every sector exactly once. */
START_TEST(layernorm_reads_once)
{
    enum { ROWS = 16, COLS = 4096 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_layernorm_on(r, ROWS, COLS, 0, 1500, 0);
    struct vm_counters c = course_observed(r, "");
    /* gamma and beta (read by every row: cached, counted once per request) and the statistics
     * are small beside x and y: the bound is on x and y's sectors plus theirs. */
    uint64_t x_sectors = ROWS * COLS * 2 / 32, params = 2 * COLS * 4 / 32, stats = 2 * ROWS;
    ck_assert_msg(c.gld_sectors <= x_sectors + ROWS * params,
                  "layernorm at rows=%d cols=%d read %llu sectors: x is %llu, gamma and beta %llu "
                  "a row: x must be read once (the row stays in registers)",
                  ROWS, COLS, (unsigned long long)c.gld_sectors, (unsigned long long)x_sectors,
                  (unsigned long long)params);
    ck_assert_msg(c.gst_sectors <= x_sectors + stats,
                  "layernorm at rows=%d cols=%d wrote %llu sectors for y's %llu and %d of "
                  "statistics: y must be written once",
                  ROWS, COLS, (unsigned long long)c.gst_sectors, (unsigned long long)x_sectors,
                  (int)stats);
    course_runner_stop(r);
}
END_TEST

/* ---- attention ------------------------------------------------------------------------------ */

/* One attention problem: heads x (n_q x d) against heads x (n_k x d). */
struct attn {
    int heads, n_q, n_k, d, causal, bf16;
    float scale_qk; /* Q and K uniform in [-scale_qk, scale_qk): 1, or large for huge logits */
};

/* Run @p name on @p a (inputs from @p seed) and check O against ref_attention_f64(). */
static void check_attention_on(struct course_runner *r, const char *name, struct attn a,
                               uint64_t seed)
{
    size_t nq = (size_t)a.heads * a.n_q * a.d, nk = (size_t)a.heads * a.n_k * a.d;
    float *q = mat_alloc_f32(nq), *k = mat_alloc_f32(nk), *v = mat_alloc_f32(nk);
    mat_fill_uniform(q, nq, seed, -a.scale_qk, a.scale_qk);
    mat_fill_uniform(k, nk, seed + 1, -a.scale_qk, a.scale_qk);
    mat_fill_uniform(v, nk, seed + 2, -1, 1);
    uint16_t *hq = to16(q, nq, a.bf16), *hk = to16(k, nk, a.bf16), *hv = to16(v, nk, a.bf16);
    double *want = alloc_f64(nq), *bound = alloc_f64(nq);
    ref_attention_f64(a.heads, a.n_q, a.n_k, a.d, a.causal, q, k, v,
                      a.bf16 ? REF_U_BF16 : REF_U_FP16, want, bound);
    int bq = course_buf_in(r, PROTO_DEVICE, hq, nq * 2, 0);
    int bk = course_buf_in(r, PROTO_DEVICE, hk, nk * 2, 0);
    int bv = course_buf_in(r, PROTO_DEVICE, hv, nk * 2, 0);
    int bo = course_buf_out(r, PROTO_DEVICE, nq * 2, 0);
    char what[160];
    snprintf(what, sizeof what, "%s at heads=%d n_q=%d n_k=%d d=%d%s (%s%s)", name, a.heads, a.n_q,
             a.n_k, a.d, a.causal ? " causal" : "", a.bf16 ? "bf16" : "fp16",
             a.scale_qk > 1 ? ", logits to 1e4" : "");
    int64_t rc =
        COURSE_CALL(r, name, PROTO_I32, COURSE_I32(a.heads), COURSE_I32(a.n_q), COURSE_I32(a.n_k),
                    COURSE_I32(a.d), COURSE_I32(a.causal), COURSE_I32(a.bf16), COURSE_PTR(bq),
                    COURSE_PTR(bk), COURSE_PTR(bv), COURSE_PTR(bo))
            .i;
    ck_assert_msg(rc == 0, "%s returned %lld, want 0", what, (long long)rc);
    uint16_t *ho = course_buf_read(r, bo, what);
    float *o = mat_alloc_f32(nq);
    for (size_t i = 0; i < nq; i++)
        o[i] = value16(ho[i], a.bf16);
    assert_within(o, want, bound, a.heads * a.n_q, a.d, what);
    int bufs[] = {bq, bk, bv, bo};
    for (int i = 0; i < 4; i++)
        course_buf_free(r, bufs[i]);
    free(q), free(k), free(v), free(hq), free(hk), free(hv), free(ho), free(o);
    free(want), free(bound);
}

/* Sequences of 1 and 17, tiles' edges (63, 65), n_q != n_k both ways, 1031 (past 1000 and no
 * tile multiple); d 64 and 128, causal and not, fp16 and bf16, several heads. */
static void check_attention(const char *name)
{
    static const struct attn cases[] = {
        {1, 1, 1, 64, 0, 0, 1},     {3, 17, 17, 64, 1, 0, 1},     {2, 17, 17, 128, 0, 1, 1},
        {2, 63, 65, 64, 0, 1, 1},   {2, 65, 63, 128, 1, 0, 1},    {3, 33, 130, 64, 1, 1, 1},
        {2, 130, 33, 128, 0, 0, 1}, {1, 1031, 1031, 64, 1, 0, 1}, {1, 1031, 1031, 128, 0, 1, 1},
    };
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        check_attention_on(r, name, cases[c], 1600 + 10 * c);
    course_runner_stop(r);
}

START_TEST(attention_unfused_edges)
{
    check_attention("attention_unfused");
}
END_TEST

START_TEST(flash_attention_edges)
{
    check_attention("flash_attention");
}
END_TEST

/*
 * Rows no key reaches: causal with n_q > n_k, where the first n_q - n_k queries see nothing,
 * every score of theirs -inf; their output must be exactly 0 (fused_attention.h), not NaN. A
 * whole 64-query tile of them (n_q = 200, n_k = 70) and a partial one (n_q = 40, n_k = 9).
 */
START_TEST(attention_masked_rows)
{
    const char *names[] = {"attention_unfused", "flash_attention"};
    const struct attn cases[] = {{2, 200, 70, 64, 1, 0, 1}, {1, 40, 9, 128, 1, 1, 1}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int v = 0; v < 2; v++)
        for (int c = 0; c < 2; c++)
            check_attention_on(r, names[v], cases[c], 1700 + 10 * (uint64_t)c);
    course_runner_stop(r);
}
END_TEST

/* Logits up to about 1e4 (Q and K entries to +-48: a dot product of 64 of them, over 8): every
 * exponential must be of a score minus the running max, or it overflows. */
START_TEST(attention_huge_logits)
{
    const char *names[] = {"attention_unfused", "flash_attention"};
    const struct attn a = {2, 150, 150, 64, 0, 0, 48};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (int v = 0; v < 2; v++)
        check_attention_on(r, names[v], a, 1800);
    course_runner_stop(r);
}
END_TEST

/* Arguments both launchers refuse with -1, launching nothing: d = 96, no heads, and pointers
 * 2 bytes off the 16-byte alignment cp.async needs. */
START_TEST(attention_refuses_bad_args)
{
    const char *names[] = {"attention_unfused", "flash_attention"};
    struct course_runner *r = course_runner_start(COURSE_EMULATED);
    int q = course_buf_ints(r, PROTO_DEVICE, 64 * 64, 1, 2),
        o = course_buf_out(r, PROTO_DEVICE, 64 * 128, 0);
    for (int v = 0; v < 2; v++) {
        const int dims[][3] = {{1, 96, 0}, {0, 64, 0}, {1, 64, 1}}; /* heads, d, misaligned */
        for (int b = 0; b < 3; b++) {
            struct proto_arg p = dims[b][2] ? COURSE_PTR(q) : COURSE_NULL;
            struct proto_arg out = dims[b][2] ? COURSE_PTR(o) : COURSE_NULL;
            int64_t rc = COURSE_CALL(r, names[v], PROTO_I32, COURSE_I32(dims[b][0]), COURSE_I32(16),
                                     COURSE_I32(16), COURSE_I32(dims[b][1]), COURSE_I32(0),
                                     COURSE_I32(0), p, p, p, out)
                             .i;
            ck_assert_msg(rc == -1, "%s with heads=%d d=%d%s returned %lld, want -1 (refused)",
                          names[v], dims[b][0], dims[b][1],
                          dims[b][2] ? " and Q 2 bytes off alignment" : "", (long long)rc);
        }
    }
    course_runner_stop(r);
}
END_TEST

/*
 * Fusion, counted: flash_attention at heads=2, n_q = n_k = 1024, d = 64 may move to and from
 * global memory only what the problem must: Q, K and V read (their distinct bytes, rounded to
 * sectors), O written. Any n_q x n_k matrix in global memory, S or P, even in scratch space
 * the call allocates or in O's own buffer, breaks one of these bounds:
 *   distinct bytes read    <= Q + K + V   (3 x 256 KiB)
 *   distinct bytes written <= O           (256 KiB; S would be 8 MiB)
 *   sectors written        <= 2 x O's     (each O element stored once; 32-bit stores from
 *                                          the mma layout touch each sector twice)
 *   sectors read           <= Q's + (n_q / 16) x (K's + V's): K and V read again by every
 *                          block of queries, no block smaller than one mma's 16 rows.
 */
START_TEST(flash_attention_stays_on_chip)
{
    enum { HEADS = 2, N = 1024, D = 64 };
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    check_attention_on(r, "flash_attention", (struct attn){HEADS, N, N, D, 0, 0, 1}, 1900);
    struct vm_counters c = course_observed(r, "");
    uint64_t one = (uint64_t)HEADS * N * D * 2; /* bytes of Q, of K, of V, of O */
    ck_assert_msg(c.unique_write_bytes <= one,
                  "flash_attention at heads=%d n=%d d=%d wrote %llu distinct bytes; O is %llu: "
                  "S and P must stay on the chip (registers and shared memory)",
                  HEADS, N, D, (unsigned long long)c.unique_write_bytes, (unsigned long long)one);
    ck_assert_msg(c.unique_read_bytes <= 3 * one,
                  "flash_attention at heads=%d n=%d d=%d read %llu distinct bytes; Q, K and V "
                  "are %llu: nothing else may be read back",
                  HEADS, N, D, (unsigned long long)c.unique_read_bytes,
                  (unsigned long long)(3 * one));
    ck_assert_msg(32 * c.gst_sectors <= 2 * one,
                  "flash_attention at heads=%d n=%d d=%d stored %llu sectors, more than twice "
                  "O's %llu: something other than O went to global memory",
                  HEADS, N, D, (unsigned long long)c.gst_sectors, (unsigned long long)(one / 32));
    ck_assert_msg(32 * c.gld_sectors <= one + (N / 16) * 2 * one,
                  "flash_attention at heads=%d n=%d d=%d loaded %llu sectors, more than Q once and "
                  "K and V once per 16 queries (%llu)",
                  HEADS, N, D, (unsigned long long)c.gld_sectors,
                  (unsigned long long)((one + (N / 16) * 2 * one) / 32));
    course_runner_stop(r);
}
END_TEST

/*
 * Both products on the Tensor Cores, counted, for both versions at heads=1, n_q = n_k = 256,
 * d = 128 (tile multiples: no padding). The products are 4 n^2 d = 33.6 MFLOP, and mma.sync
 * counts its flops. On the CUDA cores one product alone would take at least d / 2 = 64
 * floating-point lane instructions per score (d fp32 FMAs, or d / 2 packed half2 ones doing two
 * each); the softmax, masks, conversions and rescaling take fewer (the solution's: 7.1 per
 * score fused, 47.4 unfused, with an accurate expf per element). So fp32 FMA and other
 * floating-point lane instructions together must stay under d / 2 per score.
 */
START_TEST(attention_products_on_tensor_cores)
{
    enum { N = 256, D = 128 };
    const char *names[] = {"attention_unfused", "flash_attention"};
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    for (int v = 0; v < 2; v++) {
        check_attention_on(r, names[v], (struct attn){1, N, N, D, 0, 0, 1}, 2000);
        struct vm_counters c = course_observed(r, "");
        double products = 4.0 * N * N * D, scores = (double)N * N;
        uint64_t scalar = c.class_insts[VM_CLASS_FMA32] + c.class_insts[VM_CLASS_FP];
        ck_assert_msg((double)c.flops >= products && c.class_insts[VM_CLASS_TENSOR] > 0,
                      "%s at n=%d d=%d: %llu flops counted, %.0f needed by the two products "
                      "(mma.sync counts its own)",
                      names[v], N, D, (unsigned long long)c.flops, products);
        ck_assert_msg((double)scalar < scores * D / 2,
                      "%s at n=%d d=%d: %llu floating-point lane instructions on the CUDA cores, "
                      "%.1f per score, d / 2 = %d or more: a product is not on the Tensor Cores",
                      names[v], N, D, (unsigned long long)scalar, (double)scalar / scores, D / 2);
    }
    course_runner_stop(r);
}
END_TEST

/* The PTX of the fused kernel streams its tiles with cp.async (what lesson 10 teaches), and
 * multiplies with mma.sync in fp32 accumulation. */
START_TEST(ptx_flash_uses_cp_async_and_mma)
{
    char *ptx = course_read_file(LESSON_PTX);
    ck_assert_msg(ptx != NULL, "cannot read %s", LESSON_PTX);
    char *body = course_ptx_entry(ptx, "flash_attention");
    ck_assert_msg(body != NULL, "no kernel named flash_attention... in the PTX");
    ck_assert_msg(strstr(body, "cp.async.") && strstr(body, "cp.async.wait_group"),
                  "flash_attention's kernel copies no tile with cp.async (and waits for none)");
    ck_assert_msg(strstr(body, "mma.sync.aligned.m16n8k16.row.col.f32."),
                  "flash_attention's kernel has no mma.sync m16n8k16 with fp32 accumulation");
    free(body);
    free(ptx);
}
END_TEST

/* ---- timing, on a GPU ----------------------------------------------------------------------- */

/* Median ms of attention launcher @p name at 16 heads, n = 4096, d = 64 (not causal, fp16). */
static double time_attention(struct course_runner *r, const char *name)
{
    check_attention_on(r, name, (struct attn){2, 130, 130, 64, 0, 0, 1}, 2100); /* right first */
    enum { HEADS = 16, N = 4096, D = 64 };
    size_t n = (size_t)HEADS * N * D;
    int q = course_buf_ints(r, PROTO_DEVICE, n / 2, 5, 0); /* n 16-bit values: small ints */
    int o = course_buf_out(r, PROTO_DEVICE, n * 2, 0);
    const struct proto_arg args[] = {COURSE_I32(HEADS), COURSE_I32(N), COURSE_I32(N), COURSE_I32(D),
                                     COURSE_I32(0),     COURSE_I32(0), COURSE_PTR(q), COURSE_PTR(q),
                                     COURSE_PTR(q),     COURSE_PTR(o)};
    double ms = course_time(r, name, args, 10, 2, 5);
    course_buf_free(r, q);
    course_buf_free(r, o);
    return ms;
}

/* Same run, same data: the fused kernel against the unfused ladder. */
START_TEST(flash_faster_than_unfused)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double unfused = time_attention(r, "attention_unfused");
    double flash = time_attention(r, "flash_attention");
    course_runner_stop(r);
    course_assert_bar("flash_over_unfused", unfused / flash,
                      "flash_attention %.3f ms, attention_unfused %.3f ms (16 heads, n = 4096, "
                      "d = 64)",
                      flash, unfused);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"softmax_naive_edges", softmax_naive_edges, CASE_GPU, 120},
        {"softmax_online_edges", softmax_online_edges, CASE_GPU, 120},
        {"softmax_robust", softmax_robust, CASE_GPU, 120},
        {"softmax_online_reads_once", softmax_online_reads_once, CASE_GPU, 60},
        {"layernorm_edges", layernorm_edges, CASE_GPU, 120},
        {"layernorm_refuses_bad_sizes", layernorm_refuses_bad_sizes, CASE_GPU, 30},
        {"layernorm_reads_once", layernorm_reads_once, CASE_GPU, 60},
        {"attention_unfused_edges", attention_unfused_edges, CASE_SM80, 300},
        {"flash_attention_edges", flash_attention_edges, CASE_SM80, 300},
        {"attention_masked_rows", attention_masked_rows, CASE_SM80, 120},
        {"attention_huge_logits", attention_huge_logits, CASE_SM80, 120},
        {"attention_refuses_bad_args", attention_refuses_bad_args, CASE_GPU, 30},
        {"flash_attention_stays_on_chip", flash_attention_stays_on_chip, CASE_SM80, 300},
        {"attention_products_on_tensor_cores", attention_products_on_tensor_cores, CASE_SM80, 120},
        {"ptx_flash_uses_cp_async_and_mma", ptx_flash_uses_cp_async_and_mma, CASE_CPU, 30},
        {"flash_faster_than_unfused", flash_faster_than_unfused, CASE_SM80 | CASE_PERF, 300},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
