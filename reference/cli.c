/**
 * @file cli.c
 * @brief Command-line parsing shared by every driver.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CLI_MAX_OPTS = 48 };

static void usage(const char *prog, const char *about, const struct cli_opt *opts)
{
    printf("usage: %s [options]\n%s\n\noptions:\n", prog, about);
    for (const struct cli_opt *o = opts; o->name; o++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s", o->name, o->type == CLI_FLAG ? "" : "=VALUE");
        printf("  %-22s %s\n", left, o->help);
    }
    printf("  %-22s %s\n", "--help", "print this text");
}

/* Store @p text into @p o's destination; 0 on success, else a one-line error. */
static int store(const char *prog, const struct cli_opt *o, const char *text)
{
    char *end;
    errno = 0;
    if (o->type == CLI_STRING) {
        if (!*text) {
            fprintf(stderr, "%s: --%s needs a non-empty value\n", prog, o->name);
            return -1;
        }
        *(const char **)o->dst = text;
        return 0;
    }
    double v = o->type == CLI_DOUBLE ? strtod(text, &end) : (double)strtoll(text, &end, 10);
    if (end == text || *end || errno == ERANGE || isnan(v)) {
        fprintf(stderr, "%s: --%s expects %s, got '%s'\n", prog, o->name,
                o->type == CLI_DOUBLE ? "a number" : "an integer", text);
        return -1;
    }
    if (v < o->lo || v > o->hi) {
        fprintf(stderr, "%s: --%s must be in [%.15g, %.15g], got %s\n", prog, o->name, o->lo, o->hi,
                text);
        return -1;
    }
    if (o->type == CLI_INT)
        *(int *)o->dst = (int)v;
    else if (o->type == CLI_LONG)
        *(long long *)o->dst = strtoll(text, NULL, 10);
    else
        *(double *)o->dst = v;
    return 0;
}

enum cli_status cli_parse(int argc, char **argv, const char *prog, const char *about,
                          const struct cli_opt *opts)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(prog, about, opts);
            return CLI_HELP;
        }
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, arg);
            return CLI_ERROR;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct cli_opt *o = opts;
        while (o->name && !(strlen(o->name) == len && !strncmp(o->name, name, len)))
            o++;
        if (!o->name) {
            fprintf(stderr, "%s: unknown option '%.*s' (see --help)\n", prog, (int)len + 2, arg);
            return CLI_ERROR;
        }
        if (o->type == CLI_FLAG) {
            if (eq) {
                fprintf(stderr, "%s: --%s takes no value\n", prog, o->name);
                return CLI_ERROR;
            }
            *(int *)o->dst = 1;
            continue;
        }
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!value) {
            fprintf(stderr, "%s: --%s needs a value\n", prog, o->name);
            return CLI_ERROR;
        }
        if (store(prog, o, value))
            return CLI_ERROR;
    }
    return CLI_OK;
}

void cli_bench_defaults(struct cli_bench *b, int size, int reps)
{
    b->m = b->n = b->k = size;
    b->reps = reps;
    b->warmup = 2;
    b->flush_l2 = 0;
    b->seed = 1;
    b->csv = NULL;
    b->max_dim = 65536;
}

/* 0 when a rows x cols matrix fits int indexing, else a one-line error. */
static int check_elems(const char *prog, const char *what, long long rows, long long cols)
{
    if (rows * cols <= INT_MAX)
        return 0;
    fprintf(stderr, "%s: %s would be %lld x %lld = %lld elements, more than 2^31 - 1\n", prog, what,
            rows, cols, rows * cols);
    return -1;
}

enum cli_status cli_parse_bench(int argc, char **argv, const char *prog, const char *about,
                                struct cli_bench *b, const struct cli_opt *extra)
{
    int m = 0, n = 0, k = 0, size = 0;
    double dim = b->max_dim;
    struct cli_opt opts[CLI_MAX_OPTS] = {
        {"m", CLI_INT, &m, 1, dim, "rows of A and C"},
        {"n", CLI_INT, &n, 1, dim, "columns of B and C"},
        {"k", CLI_INT, &k, 1, dim, "columns of A, rows of B"},
        {"size", CLI_INT, &size, 1, dim, "set M, N and K at once (--m, --n, --k win)"},
        {"reps", CLI_INT, &b->reps, 1, 10000, "timed samples per version (median reported)"},
        {"warmup", CLI_INT, &b->warmup, 0, 1000, "untimed runs per version"},
        {"seed", CLI_LONG, &b->seed, 0, 9007199254740992.0, "seed of the input fills"},
        {"csv", CLI_STRING, &b->csv, 0, 0, "append the table to this CSV file"},
        {"flush-l2", CLI_FLAG, &b->flush_l2, 0, 0, "flush L2 before each timed sample"},
    };
    size_t n_opts = 9;
    for (const struct cli_opt *o = extra; o && o->name && n_opts + 1 < CLI_MAX_OPTS; o++)
        opts[n_opts++] = *o;
    opts[n_opts].name = NULL;

    enum cli_status st = cli_parse(argc, argv, prog, about, opts);
    if (st != CLI_OK)
        return st;
    if (size)
        b->m = b->n = b->k = size;
    b->m = m ? m : b->m;
    b->n = n ? n : b->n;
    b->k = k ? k : b->k;
    if (check_elems(prog, "A (M x K)", b->m, b->k) || check_elems(prog, "B (K x N)", b->k, b->n) ||
        check_elems(prog, "C (M x N)", b->m, b->n))
        return CLI_ERROR;
    return CLI_OK;
}

int cli_exit_status(enum cli_status status)
{
    return status == CLI_HELP ? 0 : 2;
}
