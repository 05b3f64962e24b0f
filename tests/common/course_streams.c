/**
 * @file course_streams.c
 * @brief A call's stream record as a graph (see course_streams.h).
 */
#include "course_streams.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stream as the record names it: hex, or "host". */
static uint64_t parse_stream(const char *s)
{
    return strcmp(s, "host") ? strtoull(s, NULL, 16) : UINT64_MAX;
}

/* The operation of @p g named (stream, seq), or -1 (an operation from before the call). */
static int find_op(const struct course_streams *g, uint64_t stream, uint64_t seq)
{
    for (int i = g->n - 1; i >= 0; i--)
        if (g->ops[i].stream == stream && g->ops[i].seq == seq)
            return i;
    return -1;
}

/* The kind of an op line's "kind" and "sides" fields. */
static enum course_op_kind kind_of(const char *kind, unsigned sides)
{
    static const struct {
        const char *name;
        enum course_op_kind kind;
    } kinds[] = {{"kernel", COURSE_OP_KERNEL}, {"fill", COURSE_OP_FILL}, {"event", COURSE_OP_EVENT},
                 {"wait", COURSE_OP_WAIT},     {"host", COURSE_OP_HOST}, {"nop", COURSE_OP_NOP},
                 {"sync", COURSE_OP_SYNC}};
    if (!strcmp(kind, "copy")) {
        static const enum course_op_kind by_sides[] = {COURSE_OP_H2H, COURSE_OP_H2D, COURSE_OP_D2H,
                                                       COURSE_OP_D2D};
        return by_sides[sides & 3];
    }
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strcmp(kind, kinds[i].name))
            return kinds[i].kind;
    ck_abort_msg("the stream record names an unknown kind of operation: %s", kind);
    return COURSE_OP_NOP;
}

/* Add @p dep to @p op's dependencies (once). */
static void add_dep(struct course_op *op, int dep)
{
    for (int i = 0; i < op->ndeps; i++)
        if (op->deps[i] == dep)
            return;
    op->deps = realloc(op->deps, (size_t)(op->ndeps + 1) * sizeof *op->deps);
    ck_assert(op->deps != NULL);
    op->deps[op->ndeps++] = dep;
}

/* One "op" line (cut into words; @p site is the rest of the line) into @p g. */
static void parse_op(struct course_streams *g, char *line, const char *site, int last_sync)
{
    char stream[32] = "", kind[16] = "", deps[65536] = "", name[96] = "";
    unsigned long long seq = 0, dst = 0, dbytes = 0, src = 0, sbytes = 0;
    unsigned sides = 0, graph = 0;
    int got = sscanf(line,
                     "op stream=%31s seq=%llu kind=%15s sides=%u dst=%llx dst_bytes=%llu "
                     "src=%llx src_bytes=%llu graph=%u deps=%65535s name=%95s",
                     stream, &seq, kind, &sides, &dst, &dbytes, &src, &sbytes, &graph, deps, name);
    ck_assert_msg(got == 11, "the stream record holds a line the judge cannot read: %.120s", line);
    g->ops = realloc(g->ops, (size_t)(g->n + 1) * sizeof *g->ops);
    ck_assert(g->ops != NULL);
    struct course_op *op = &g->ops[g->n];
    memset(op, 0, sizeof *op);
    op->kind = kind_of(kind, sides);
    op->stream = parse_stream(stream);
    op->seq = seq;
    op->graph = (int)graph;
    op->pinned = (sides & 12) != 0;
    snprintf(op->name, sizeof op->name, "%s", name);
    snprintf(op->site, sizeof op->site, "%s", site);
    if (op->kind != COURSE_OP_KERNEL && op->kind != COURSE_OP_SYNC && dbytes) {
        op->write[op->nwrite++] = (struct course_range){dst, dst + dbytes};
        if (op->kind != COURSE_OP_FILL)
            op->read[op->nread++] = (struct course_range){src, src + sbytes};
    }
    for (char *save, *d = strtok_r(deps, ",", &save); d && strcmp(d, "-");
         d = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(d, ':');
        ck_assert_msg(colon != NULL, "the stream record's dependency is garbled: %s", d);
        *colon = '\0';
        int at = find_op(g, parse_stream(d), strtoull(colon + 1, NULL, 10));
        if (at >= 0)
            add_dep(op, at);
    }
    if (last_sync >= 0) /* the host issued it after it waited there */
        add_dep(op, last_sync);
    g->n++;
}

/* "LO-HI,LO-HI" or "-" into @p out (at most COURSE_OP_RANGES); how many. */
static int parse_ranges(char *list, struct course_range *out)
{
    int n = 0;
    for (char *save, *r = strtok_r(list, ",", &save); r && strcmp(r, "-") && n < COURSE_OP_RANGES;
         r = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(r, '-');
        ck_assert_msg(dash != NULL, "the stream record's footprint is garbled: %s", r);
        out[n++] = (struct course_range){strtoull(r, NULL, 16), strtoull(dash + 1, NULL, 16)};
    }
    return n;
}

/* One "footprint" line: the ranges of the kernel it names. */
static void parse_footprint(struct course_streams *g, const char *line)
{
    char stream[32], reads[4096], writes[4096];
    unsigned long long seq;
    int overflow;
    ck_assert_msg(sscanf(line,
                         "footprint stream=%31s seq=%llu overflow=%d read=%4095s write=%4095s",
                         stream, &seq, &overflow, reads, writes) == 5,
                  "the stream record holds a line the judge cannot read: %.120s", line);
    int at = find_op(g, parse_stream(stream), seq);
    if (at < 0 || g->ops[at].kind != COURSE_OP_KERNEL)
        return; /* a launch queued before the call */
    struct course_op *op = &g->ops[at];
    op->nread = parse_ranges(reads, op->read);
    op->nwrite = parse_ranges(writes, op->write);
    op->overflow = overflow;
    op->ran = 1;
}

/* Fill g->before: row b holds a for every a that happens before b (dependencies point back). */
static void close_paths(struct course_streams *g)
{
    g->words = (g->n + 63) / 64;
    g->before = calloc((size_t)g->n * (size_t)g->words + 1, sizeof *g->before);
    ck_assert(g->before != NULL);
    for (int b = 0; b < g->n; b++) {
        uint64_t *row = g->before + (size_t)b * g->words;
        for (int k = 0; k < g->ops[b].ndeps; k++) {
            int a = g->ops[b].deps[k];
            const uint64_t *from = g->before + (size_t)a * g->words;
            for (int w = 0; w < g->words; w++)
                row[w] |= from[w];
            row[a / 64] |= 1ull << (a % 64);
        }
    }
}

struct course_streams *course_streams_read(struct course_runner *r)
{
    char *text = strdup(course_stream_record(r));
    ck_assert(text != NULL);
    struct course_streams *g = calloc(1, sizeof *g);
    ck_assert(g != NULL);
    int last_sync = -1;
    for (char *save, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "footprint ", 10)) {
            parse_footprint(g, line);
            continue;
        }
        if (strstr(line, " kind=mark ")) /* a label the program gave, no operation */
            continue;
        char *site = strstr(line, " site=");
        ck_assert_msg(site != NULL, "the stream record holds a line the judge cannot read: %.120s",
                      line);
        *site = '\0';
        parse_op(g, line, site + 6, last_sync);
        if (g->ops[g->n - 1].kind == COURSE_OP_SYNC)
            last_sync = g->n - 1;
    }
    free(text);
    g->runner_wait = g->n > 0 && g->ops[g->n - 1].kind == COURSE_OP_SYNC ? g->n - 1 : -1;
    close_paths(g);
    return g;
}

void course_streams_free(struct course_streams *g)
{
    if (!g)
        return;
    for (int i = 0; i < g->n; i++)
        free(g->ops[i].deps);
    free(g->ops);
    free(g->before);
    free(g);
}

int course_streams_before(const struct course_streams *g, int a, int b)
{
    return (g->before[(size_t)b * g->words + a / 64] >> (a % 64)) & 1;
}

int course_streams_concurrent(const struct course_streams *g, int a, int b)
{
    return a != b && !course_streams_before(g, a, b) && !course_streams_before(g, b, a);
}

const char *course_op_words(const struct course_streams *g, int i, char *buf, size_t size)
{
    const struct course_op *op = &g->ops[i];
    static const char *const kinds[] = {"kernel",
                                        "host-to-device copy",
                                        "device-to-host copy",
                                        "device-to-device copy",
                                        "host-to-host copy",
                                        "fill",
                                        "event record",
                                        "event wait",
                                        "host function",
                                        "empty node",
                                        "host wait"};
    char stream[48];
    if (op->stream == UINT64_MAX)
        snprintf(stream, sizeof stream, "the host");
    else if (op->stream == 0)
        snprintf(stream, sizeof stream, "the legacy default stream");
    else
        snprintf(stream, sizeof stream, "stream 0x%" PRIx64, op->stream);
    snprintf(buf, size, "%s %s%s on %s%s%s", kinds[op->kind], op->name, op->graph ? " (graph)" : "",
             stream, op->site[0] ? " at " : "", op->site);
    return buf;
}

/* The first byte two range lists share, or 0 when they share none. */
static uint64_t overlap(const struct course_range *a, int na, const struct course_range *b, int nb)
{
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            uint64_t lo = a[i].lo > b[j].lo ? a[i].lo : b[j].lo;
            uint64_t hi = a[i].hi < b[j].hi ? a[i].hi : b[j].hi;
            if (lo < hi)
                return lo;
        }
    return 0;
}

void course_assert_no_stream_race(const struct course_streams *g, const char *what)
{
    char wa[320], wb[320];
    for (int b = 0; b < g->n; b++) {
        const struct course_op *ob = &g->ops[b];
        if (ob->kind == COURSE_OP_KERNEL)
            ck_assert_msg(ob->ran && !ob->overflow,
                          "%s: %s %s (the emulator could not follow its footprint)", what,
                          course_op_words(g, b, wb, sizeof wb),
                          ob->ran ? "touched too many allocations" : "never ran");
        for (int a = 0; a < b; a++) {
            const struct course_op *oa = &g->ops[a];
            if (course_streams_before(g, a, b))
                continue;
            uint64_t ww = overlap(oa->write, oa->nwrite, ob->write, ob->nwrite);
            uint64_t wr = overlap(oa->write, oa->nwrite, ob->read, ob->nread);
            uint64_t rw = overlap(oa->read, oa->nread, ob->write, ob->nwrite);
            uint64_t at = ww ? ww : wr ? wr : rw;
            if (!at)
                continue;
            ck_abort_msg("%s: %s %s address 0x%" PRIx64 " that %s %s, and nothing orders them "
                         "(no stream order, event wait or host synchronisation between them): on "
                         "a GPU they may run at once, and the result depends on which is first",
                         what, course_op_words(g, b, wb, sizeof wb), ww || rw ? "writes" : "reads",
                         at, course_op_words(g, a, wa, sizeof wa), ww || wr ? "writes" : "reads");
        }
    }
}

void course_assert_waited(const struct course_streams *g, uint64_t lo, uint64_t hi,
                          const char *what)
{
    int last = -1;
    for (int i = 0; i < g->n; i++)
        if (g->ops[i].kind == COURSE_OP_SYNC && i != g->runner_wait)
            last = i;
    struct course_range out = {lo, hi};
    char w[320];
    for (int i = 0; i < g->n; i++) {
        const struct course_op *op = &g->ops[i];
        if (op->kind == COURSE_OP_SYNC || !overlap(op->write, op->nwrite, &out, 1))
            continue;
        ck_assert_msg(last > i && course_streams_before(g, i, last),
                      "%s: it returned before the host waited for the %s, which writes its "
                      "output: a caller that reads the output then reads what was there before "
                      "(wait for the streams, or their last events, before returning)",
                      what, course_op_words(g, i, w, sizeof w));
    }
}
