/**
 * @file test_streams.c
 * @brief Lesson 07's suite: the kernel and the four pipelines against the CPU at sizes that do
 *        not divide into chunks, what overlaps judged from the emulator's stream record (which
 *        operation waits for which), and on a GPU the overlapped pipeline against the serial one.
 *
 * Every pipeline gets pinned h_x and h_y and device d_x and d_y, each guarded, and must return
 * with y in h_y, a copy of what its kernels left in d_y (the runner's own wait after the call
 * does not count). Its record must hold no race between streams: two operations touching the
 * same bytes, one writing, that nothing orders (a missing event wait). The overlap cases read the
 * chunks off the record itself, so any chunking, any number of streams, events or a graph pass
 * alike: the copy in of each piece of x must not wait for the kernel of the piece before it, and
 * the copy out of a piece, the kernel of the next and the copy in of the one after must not wait
 * for each other.
 */
#include <stdlib.h>
#include <string.h>

#include "course_judge.h"
#include "course_streams.h"
#include "course_test.h"
#include "mat.h"
#include "ref.h"
#include "streams.h"

/* n words from @p seed (malloc'd): every bit pattern likely, so a wrong index shows. */
static uint32_t *words(size_t n, uint64_t seed)
{
    uint32_t *x = mat_alloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (uint32_t)(mat_rand_next(&seed) >> 32);
    return x;
}

/* Assert @p got equals mix of @p x (n words, @p rounds), naming @p what and the first bad word. */
static void assert_mixed(const uint32_t *x, const uint32_t *got, size_t n, int rounds,
                         const char *what)
{
    uint32_t *want = mat_alloc((n ? n : 1) * sizeof *want);
    ref_mix(x, want, n, rounds, MIX_MULTIPLIER);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ == 0)
            first = i;
    if (bad)
        ck_abort_msg("%s: word %zu is 0x%08x, want 0x%08x (%zu of %zu words wrong)", what, first,
                     got[first], want[first], bad, n);
    free(want);
}

/* ---- the kernel ---------------------------------------------------------------------------- */

/* mix_async on device buffers, on the default stream, aligned and one word off. */
START_TEST(mix_async_edges)
{
    static const int sizes[] = {1, 31, 32, 33, 255, 257, 1000, 4099, 65537};
    static const int rounds[] = {0, 1, 7};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k], R = rounds[k % 3];
        size_t bytes = (size_t)n * sizeof(uint32_t), offset = k % 2 ? 4 : 0;
        uint32_t *x = words((size_t)n, 700 + k);
        int d_x = course_buf_in(r, PROTO_DEVICE, x, bytes, offset);
        int d_y = course_buf_out(r, PROTO_DEVICE, bytes, offset);
        COURSE_CALL(r, "mix_async", PROTO_VOID, COURSE_PTR(d_x), COURSE_PTR(d_y), COURSE_I32(n),
                    COURSE_I32(R), COURSE_NULL);
        char what[96];
        snprintf(what, sizeof what, "mix_async at n=%d, rounds=%d", n, R);
        uint32_t *y = course_buf_read(r, d_y, what);
        assert_mixed(x, y, (size_t)n, R, what);
        course_buf_free(r, d_x);
        course_buf_free(r, d_y);
        free(x);
        free(y);
    }
    course_runner_stop(r);
}
END_TEST

/* ---- the pipelines ----------------------------------------------------------------------------
 */

/* Which pipeline, and its chunk and launch arguments. */
struct pipeline {
    const char *name; /* pipeline_serial (no chunks), _overlap, _events or _graph */
    int chunks;
    int launches; /* pipeline_graph's */
};

/* A call of @p p at n words and @p rounds in @p r, checked: y exact, no race between streams,
 * the host waited for every copy into h_y before returning. The record, for the overlap cases:
 * *g (when not NULL), and h_x's data address in *x_at. */
static void run_pipeline(struct course_runner *r, const struct pipeline *p, int n, int rounds,
                         size_t offset, struct course_streams **g, uint64_t *x_at)
{
    size_t bytes = (size_t)n * sizeof(uint32_t);
    uint32_t *x = words((size_t)n, 900 + (uint64_t)n);
    int h_x = course_buf_in(r, PROTO_PINNED, x, bytes, offset);
    int h_y = course_buf_out(r, PROTO_PINNED, bytes, offset);
    int d_x = course_buf_out(r, PROTO_DEVICE, bytes, 0);
    int d_y = course_buf_out(r, PROTO_DEVICE, bytes, 0);
    struct proto_arg args[8] = {COURSE_PTR(h_x), COURSE_PTR(h_y), COURSE_PTR(d_x),
                                COURSE_PTR(d_y), COURSE_I32(n),   COURSE_I32(rounds)};
    int nargs = 6;
    if (p->chunks)
        args[nargs++] = COURSE_I32(p->chunks);
    if (p->launches)
        args[nargs++] = COURSE_I32(p->launches);
    char what[128];
    snprintf(what, sizeof what, "%s at n=%d, rounds=%d, chunks=%d%s", p->name, n, rounds, p->chunks,
             p->launches > 1 ? ", 3 launches" : "");
    course_call(r, p->name, PROTO_VOID, args, nargs);
    struct course_streams *rec = course_streams_read(r);
    course_assert_no_stream_race(rec, what);
    uint64_t y_at = course_buf_address(r, h_y);
    course_assert_waited(rec, y_at, y_at + bytes, what);
    if (x_at)
        *x_at = course_buf_address(r, h_x);
    uint32_t *y = course_buf_read(r, h_y, what);
    assert_mixed(x, y, (size_t)n, rounds, what);
    /* And y where the kernels left it: h_y is a copy of d_y, not the host's own answer. */
    char where[160];
    snprintf(where, sizeof where, "%s, d_y", what);
    uint32_t *dy = course_buf_read(r, d_y, where);
    ck_assert_msg(n == 0 || !memcmp(dy, y, bytes), "%s: h_y is not a copy of d_y", what);
    free(dy);
    if (g)
        *g = rec;
    else
        course_streams_free(rec);
    free(x);
    free(y);
    course_buf_free(r, h_x);
    course_buf_free(r, h_y);
    course_buf_free(r, d_x);
    course_buf_free(r, d_y);
}

/* @p p at sizes that do not divide into its chunks: more chunks than words, primes, a chunk
 * count that leaves a remainder, pinned buffers one word past alignment. */
static void check_edges(struct pipeline p, int chunked)
{
    static const int cases[][2] = {{1, 1},    {1, 3},    {31, 2},     {33, 4},
                                   {1000, 7}, {4099, 8}, {100003, 5}, {65536, 16}};
    struct course_runner *r = course_runner_start(COURSE_GPU);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        if (!chunked && k % 2)
            continue; /* the serial pipeline takes no chunks: half the sizes do */
        if (chunked)
            p.chunks = cases[k][1];
        run_pipeline(r, &p, cases[k][0], (int)(k % 4), k % 3 ? 0 : 4, NULL, NULL);
    }
    course_runner_stop(r);
}

START_TEST(serial_edges)
{
    check_edges((struct pipeline){"pipeline_serial", 0, 0}, 0);
}
END_TEST

START_TEST(overlap_edges)
{
    check_edges((struct pipeline){"pipeline_overlap", 0, 0}, 1);
}
END_TEST

START_TEST(events_edges)
{
    check_edges((struct pipeline){"pipeline_events", 0, 0}, 1);
}
END_TEST

/* pipeline_graph launched once and three times (the same y each time). */
START_TEST(graph_edges)
{
    check_edges((struct pipeline){"pipeline_graph", 0, 1}, 1);
    struct course_runner *r = course_runner_start(COURSE_GPU);
    run_pipeline(r, &(struct pipeline){"pipeline_graph", 6, 3}, 20011, 3, 0, NULL, NULL);
    course_runner_stop(r);
}
END_TEST

/* ---- what overlaps: the chunks, read off the record -------------------------------------- */

/* The chunks of one call: its copies of pieces of x in, in the order of x; each piece's kernels
 * (those that read what the copy wrote) and copies out (those that read what they wrote). */
struct chunk {
    int in;
    int kernels[8], nkernels;
    int outs[8], nouts;
};

/* 1 when operation @p a writes bytes operation @p b reads. */
static int feeds(const struct course_op *a, const struct course_op *b)
{
    for (int i = 0; i < a->nwrite; i++)
        for (int j = 0; j < b->nread; j++)
            if (a->write[i].lo < b->read[j].hi && b->read[j].lo < a->write[i].hi)
                return 1;
    return 0;
}

/* The operations of @p g of kind @p kind that @p from feeds, into @p out (at most 8). */
static int fed_by(const struct course_streams *g, int from, enum course_op_kind kind, int *out)
{
    int n = 0;
    for (int i = 0; i < g->n && n < 8; i++)
        if (g->ops[i].kind == kind && feeds(&g->ops[from], &g->ops[i]))
            out[n++] = i;
    return n;
}

/* The chunks of @p g whose copies in read from x (@p x_at, n words), sorted along x: how many. */
static int chunks_of(const struct course_streams *g, uint64_t x_at, int n, struct chunk *c, int max)
{
    int ins[1024], m = 0;
    for (int i = 0; i < g->n && m < 1024; i++) {
        const struct course_op *op = &g->ops[i];
        if (op->kind == COURSE_OP_H2D && op->read[0].lo >= x_at &&
            op->read[0].hi <= x_at + (uint64_t)n * 4)
            ins[m++] = i;
    }
    for (int k = 1; k < m; k++) /* along x: by the first byte each copy reads */
        for (int j = k; j > 0 && g->ops[ins[j]].read[0].lo < g->ops[ins[j - 1]].read[0].lo; j--) {
            int t = ins[j];
            ins[j] = ins[j - 1];
            ins[j - 1] = t;
        }
    m = m < max ? m : max;
    for (int k = 0; k < m; k++) {
        c[k].in = ins[k];
        c[k].nkernels = fed_by(g, ins[k], COURSE_OP_KERNEL, c[k].kernels);
        c[k].nouts = 0;
        for (int j = 0; j < c[k].nkernels && c[k].nouts < 8; j++)
            c[k].nouts += fed_by(g, c[k].kernels[j], COURSE_OP_D2H, c[k].outs + c[k].nouts);
    }
    return m;
}

/* Assert no operation of @p a (na of them) and none of @p b wait for each other, when @p both;
 * else that none of @p a happens before any of @p b. */
static void assert_free(const struct course_streams *g, const int *a, int na, const int *b, int nb,
                        int both, const char *what, const char *why)
{
    char wa[320], wb[320];
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            int ordered = course_streams_before(g, a[i], b[j]) ||
                          (both && course_streams_before(g, b[j], a[i]));
            ck_assert_msg(!ordered,
                          "%s: the %s waits for the %s (through stream order, an event or a host "
                          "wait), so %s",
                          what, course_op_words(g, b[j], wb, sizeof wb),
                          course_op_words(g, a[i], wa, sizeof wa), why);
        }
}

/* @p p at 2^20 + 7 words in 8 chunks: its chunks, read off the record, at least @p least of
 * them; then the copy in of each waits for no kernel of the chunk before it, and (@p three) the
 * copy out of chunk k, the kernels of chunk k + 1 and the copy in of chunk k + 2 wait for
 * nothing of each other. */
static void check_overlap(struct pipeline p, int three)
{
    const int n = (1 << 20) + 7;
    p.chunks = 8;
    struct course_runner *r = course_runner_start(COURSE_OBSERVED);
    struct course_streams *g;
    uint64_t x_at;
    run_pipeline(r, &p, n, 2, 0, &g, &x_at);
    struct chunk c[64];
    int m = chunks_of(g, x_at, n, c, 64), least = three ? 3 : 2;
    char what[128];
    snprintf(what, sizeof what, "%s at n=%d, chunks=8", p.name, n);
    ck_assert_msg(m >= least,
                  "%s: x went to the device in %d cop%s: cut it into chunks (at least %d), each "
                  "copied in by a cudaMemcpyAsync of its own",
                  what, m, m == 1 ? "y" : "ies", least);
    char op[320];
    for (int k = 0; k < m; k++)
        ck_assert_msg(c[k].nkernels > 0 && c[k].nouts > 0,
                      "%s: no kernel reads what the %s wrote, or no copy out reads what they "
                      "wrote: each chunk's kernel must read its own copy in",
                      what, course_op_words(g, c[k].in, op, sizeof op));
    for (int k = 0; k + 1 < m; k++)
        assert_free(g, c[k].kernels, c[k].nkernels, &c[k + 1].in, 1, 1, what,
                    "a chunk cannot be copied in while the chunk before it computes");
    for (int k = 0; three && k + 2 < m; k++) {
        assert_free(g, c[k].outs, c[k].nouts, c[k + 1].kernels, c[k + 1].nkernels, 1, what,
                    "a chunk's copy out cannot overlap the next chunk's kernel");
        assert_free(g, c[k].outs, c[k].nouts, &c[k + 2].in, 1, 1, what,
                    "the copies out and in of chunks two apart cannot overlap (three-way "
                    "overlap needs them on different streams, or events between them)");
    }
    if (!strcmp(p.name, "pipeline_graph"))
        for (int i = 0; i < g->n; i++)
            ck_assert_msg(g->ops[i].kind == COURSE_OP_SYNC || g->ops[i].graph,
                          "%s: its %s was not launched as a node of a graph: capture the chunks' "
                          "copies and kernels, then launch the graph",
                          what, course_op_words(g, i, op, sizeof op));
    course_streams_free(g);
    course_runner_stop(r);
}

START_TEST(overlap_copies_during_kernels)
{
    check_overlap((struct pipeline){"pipeline_overlap", 0, 0}, 0);
}
END_TEST

START_TEST(overlap_three_way)
{
    check_overlap((struct pipeline){"pipeline_overlap", 0, 0}, 1);
}
END_TEST

START_TEST(events_overlap)
{
    check_overlap((struct pipeline){"pipeline_events", 0, 0}, 1);
}
END_TEST

START_TEST(graph_overlap)
{
    check_overlap((struct pipeline){"pipeline_graph", 0, 1}, 1);
}
END_TEST

/* ---- on a GPU: the overlapped pipeline against the serial one ------------------------------ */

/* Median ms of pipeline @p p at n words and @p rounds on pinned buffers. */
static double time_pipeline(struct course_runner *r, const struct pipeline *p, int n, int rounds)
{
    size_t bytes = (size_t)n * sizeof(uint32_t);
    int h_x = course_buf_out(r, PROTO_PINNED, bytes, 0);
    int h_y = course_buf_out(r, PROTO_PINNED, bytes, 0);
    int d_x = course_buf_out(r, PROTO_DEVICE, bytes, 0);
    int d_y = course_buf_out(r, PROTO_DEVICE, bytes, 0);
    struct proto_arg args[7] = {COURSE_PTR(h_x),      COURSE_PTR(h_y), COURSE_PTR(d_x),
                                COURSE_PTR(d_y),      COURSE_I32(n),   COURSE_I32(rounds),
                                COURSE_I32(p->chunks)};
    double ms = course_time(r, p->name, args, p->chunks ? 7 : 6, 2, 5);
    course_buf_free(r, h_x);
    course_buf_free(r, h_y);
    course_buf_free(r, d_x);
    course_buf_free(r, d_y);
    return ms;
}

/* 2^24 words (64 MiB each way) at 400 rounds, where on the GPUs of course_bars.c the kernel takes
 * about as long as each copy; 8 chunks. */
START_TEST(overlap_vs_serial)
{
    const int n = 1 << 24, rounds = 400;
    struct course_runner *r = course_runner_start(COURSE_GPU);
    double serial = time_pipeline(r, &(struct pipeline){"pipeline_serial", 0, 0}, n, rounds);
    double overlap = time_pipeline(r, &(struct pipeline){"pipeline_overlap", 8, 0}, n, rounds);
    course_runner_stop(r);
    course_assert_bar("overlap_over_serial", serial / overlap,
                      "pipeline_overlap %.3f ms, pipeline_serial %.3f ms at n=%d, rounds=%d, 8 "
                      "chunks",
                      overlap, serial, n, rounds);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"mix_async_edges", mix_async_edges, CASE_GPU, 120},
        {"serial_edges", serial_edges, CASE_GPU, 120},
        {"overlap_edges", overlap_edges, CASE_GPU, 120},
        {"events_edges", events_edges, CASE_GPU, 120},
        {"graph_edges", graph_edges, CASE_GPU, 120},
        {"overlap_copies_during_kernels", overlap_copies_during_kernels, CASE_GPU, 120},
        {"overlap_three_way", overlap_three_way, CASE_GPU, 120},
        {"events_overlap", events_overlap, CASE_GPU, 120},
        {"graph_overlap", graph_overlap, CASE_GPU, 120},
        {"overlap_vs_serial", overlap_vs_serial, CASE_GPU | CASE_PERF, 120},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
