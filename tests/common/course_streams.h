/**
 * @file course_streams.h
 * @brief The stream record of a graded call, as a graph the judge reads: which operation waits
 *        for which, whatever order the emulator ran them in.
 *
 * The device server of an observed runner writes one line per operation the student's code
 * queued on a stream (a copy, a launch, a fill, an event record or wait) and per wait of the
 * host (a synchronising call that returned), each with the operations it depends on
 * (emulator/rt_record.c; the format is in emulator/server.c), and after each launch the bytes the
 * kernel read and wrote. course_streams_read() turns the last call's lines into a graph in which
 * operation a "happens before" b when a path of dependencies leads from a to b: the program's
 * order, which a GPU keeps and nothing else. So:
 *
 *  - two operations may overlap on a GPU exactly when neither happens before the other
 *    (course_streams_before()), a question the judge answers without a clock;
 *  - two operations that touch the same bytes, one of them writing, and neither happening
 *    before the other, are a race between streams: on a GPU the result depends on timing
 *    (course_assert_no_stream_race()), as a missing event wait or stream synchronisation makes
 *    it.
 *
 * The runner's own synchronisation after the call is its last host wait; it is not the student's
 * (course_streams::runner_wait), so a call that returns before its copies have landed is told.
 */
#ifndef COURSE_STREAMS_H
#define COURSE_STREAMS_H

#include <stdint.h>

#include "course_judge.h"

/** What an operation of the record is. */
enum course_op_kind {
    COURSE_OP_KERNEL, /**< a launch */
    COURSE_OP_H2D,    /**< a copy from host memory to device memory */
    COURSE_OP_D2H,    /**< a copy from device memory to host memory */
    COURSE_OP_D2D,    /**< a copy within device memory */
    COURSE_OP_H2H,    /**< a copy within host memory */
    COURSE_OP_FILL,   /**< a memset */
    COURSE_OP_EVENT,  /**< an event record */
    COURSE_OP_WAIT,   /**< an event wait */
    COURSE_OP_HOST,   /**< a host function */
    COURSE_OP_NOP,    /**< an empty graph node */
    COURSE_OP_SYNC,   /**< the host waited: it follows what it waited for; later work follows it */
};

/** Most ranges one operation reads or writes (a kernel's footprint lists one per allocation). */
enum { COURSE_OP_RANGES = 16 };

/** A range of addresses, [lo, hi). */
struct course_range {
    uint64_t lo; /**< the first address */
    uint64_t hi; /**< one past the last */
};

/** One operation. */
struct course_op {
    enum course_op_kind kind; /**< what it is */
    uint64_t stream; /**< its stream's handle (0: the legacy default stream; UINT64_MAX: host) */
    uint64_t seq;    /**< its number there */
    int graph;       /**< 1: a node of a graph's launch */
    int pinned;      /**< a copy whose host side is pinned memory */
    char name[96];   /**< the call, or the kernel's (mangled) name */
    char site[160];  /**< where the program issued it, or "" */
    int nread;       /**< ranges it reads */
    int nwrite;      /**< ranges it writes */
    struct course_range read[COURSE_OP_RANGES];  /**< what it reads (a kernel: per allocation) */
    struct course_range write[COURSE_OP_RANGES]; /**< what it writes */
    int overflow; /**< a kernel that touched more allocations than its ranges list */
    int ran;      /**< a kernel: 1 once its footprint came (it ran) */
    int *deps;    /**< the earlier operations it follows (indices into course_streams::ops) */
    int ndeps;    /**< how many */
};

/** A call's stream record. */
struct course_streams {
    struct course_op *ops; /**< in the order the host issued them */
    int n;                 /**< how many */
    int runner_wait;       /**< the runner's wait after the call (the last op), or -1 */
    uint64_t *before;      /**< n rows of words bits: bit a of row b when a happens before b */
    int words;             /**< 64-bit words per row */
};

/** The last call's record on observed runner @p r (course_stream_record()): every line parsed,
 *  asserted well formed. Free with course_streams_free(). */
struct course_streams *course_streams_read(struct course_runner *r);

/** Free a record course_streams_read() made (NULL: nothing). */
void course_streams_free(struct course_streams *g);

/** 1 when operation @p a happens before operation @p b: a path of dependencies leads there. */
int course_streams_before(const struct course_streams *g, int a, int b);

/** 1 when neither of @p a and @p b happens before the other: a GPU may run them at once. */
int course_streams_concurrent(const struct course_streams *g, int a, int b);

/**
 * Assert that no two operations race: touch overlapping bytes, at least one of them writing,
 * with neither happening before the other. A failure names @p what (the call and its shape),
 * both operations, their streams and sites, and the bytes. Also asserts that every kernel of
 * the call ran and that its footprint fit.
 */
void course_assert_no_stream_race(const struct course_streams *g, const char *what);

/**
 * Assert that every operation writing [@p lo, @p hi) (an output in pinned host memory) happens
 * before a wait of the host that is the student's, not the runner's: the call returns with its
 * results in place, as a caller that reads them at once needs.
 */
void course_assert_waited(const struct course_streams *g, uint64_t lo, uint64_t hi,
                          const char *what);

/** A short description of operation @p i, for messages: "cudaMemcpyAsync (stream 0x.., at
 *  file.c:12)". */
const char *course_op_words(const struct course_streams *g, int i, char *buf, size_t size);

#endif /* COURSE_STREAMS_H */
