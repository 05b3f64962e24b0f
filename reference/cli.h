/**
 * @file cli.h
 * @brief Command-line parsing shared by every driver.
 *
 * Options are long only: `--name=value`, `--name value`, or `--name` for a
 * flag; `--help` prints the usage. A bad option, a value that is not a number,
 * or a number out of its range gets one line on stderr and CLI_ERROR, which
 * drivers turn into exit status 2 (cli_exit_status()).
 */
#ifndef CLI_H
#define CLI_H

#ifdef __cplusplus
extern "C" {
#endif

/** What an option's destination holds. */
enum cli_type {
    CLI_INT,    /**< int, checked against [lo, hi] */
    CLI_LONG,   /**< long long, checked against [lo, hi] */
    CLI_DOUBLE, /**< double, checked against [lo, hi] */
    CLI_STRING, /**< const char *, pointing into argv */
    CLI_FLAG    /**< int, set to 1 when the option is given */
};

/** One option. A table of them ends with an entry whose name is NULL. */
struct cli_opt {
    const char *name;   /**< without the dashes: "m" for --m */
    enum cli_type type; /**< what @ref dst points to */
    void *dst;          /**< where the value goes */
    double lo;          /**< smallest value accepted (numbers only) */
    double hi;          /**< largest value accepted (numbers only) */
    const char *help;   /**< one line for --help */
};

/** What parsing found. */
enum cli_status {
    CLI_OK = 0,   /**< go on */
    CLI_HELP = 1, /**< --help was printed: exit 0 */
    CLI_ERROR = 2 /**< a one-line error was printed: exit 2 */
};

/** The options every benchmark driver takes. */
struct cli_bench {
    int m;           /**< rows of A and C */
    int n;           /**< columns of B and C */
    int k;           /**< columns of A, rows of B */
    int reps;        /**< timed samples per version */
    int warmup;      /**< untimed runs per version */
    int flush_l2;    /**< flush L2 before each sample */
    long long seed;  /**< seed of the input fills */
    const char *csv; /**< append the table to this CSV file, or NULL */
    int max_dim;     /**< largest --m, --n, --k accepted (set before parsing) */
};

/** Parse @p argv against @p opts. @p prog and @p about head the usage text. */
enum cli_status cli_parse(int argc, char **argv, const char *prog, const char *about,
                          const struct cli_opt *opts);

/** Defaults: every size @p size, @p reps samples, 2 warm-up runs, seed 1, no CSV, max_dim 65536. */
void cli_bench_defaults(struct cli_bench *b, int size, int reps);

/**
 * Parse the benchmark options (--m --n --k --size --reps --warmup --seed
 * --csv --flush-l2) plus @p extra (may be NULL). Also rejects sizes whose
 * matrices would have more than 2^31 - 1 elements.
 */
enum cli_status cli_parse_bench(int argc, char **argv, const char *prog, const char *about,
                                struct cli_bench *b, const struct cli_opt *extra);

/** The exit status a driver returns for @p status: 0 after --help, 2 after an error. */
int cli_exit_status(enum cli_status status);

#ifdef __cplusplus
}
#endif

#endif /* CLI_H */
