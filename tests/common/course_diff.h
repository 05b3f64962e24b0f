/**
 * @file course_diff.h
 * @brief The judge's differential mode: each device call made on two devices, outputs compared.
 *
 * Switched on by the judge's environment alone (the runners never see it):
 *
 *   COURSE_DIFF=gpu       each runner of a GPU case (a timing case aside) gets a twin on the GPU:
 *                         the case's own runner is the observed emulator, so the emulator is
 *                         compared with the hardware it stands in for (needs a GPU)
 *   COURSE_DIFF=schedule  the twin runs on the emulator with the other warp schedule
 *                         (COURSE_EMU_SCHEDULE, emulator/README.md): code that depends on the
 *                         order of a block's warps answers differently
 *   COURSE_DIFF_OUT=FILE  where mismatch lines are appended (default: stderr)
 *   COURSE_DIFF_COUNTS=FILE  every observed launch's counters appended, one line each, for the
 *                         comparison with Nsight Compute's counts of the same launch
 *
 * The twin gets every buffer, relocation, call and map the runner gets, in the same order; every
 * buffer read back is compared with the twin's copy byte for byte, and every call's return value
 * and CUDA status with the twin's. The case grades the runner's results alone: a mismatch is a
 * line in the file, not a failure. A buffer holding relocated addresses is not compared (the
 * two processes' addresses differ), nor is course_peek() memory. Formats: tools/differential.sh.
 */
#ifndef COURSE_DIFF_H
#define COURSE_DIFF_H

#include <stddef.h>

#include "course_judge.h"

/** Which twin COURSE_DIFF asks for. */
enum course_diff_mode {
    COURSE_DIFF_OFF,      /**< COURSE_DIFF unset or empty: no twin */
    COURSE_DIFF_GPU,      /**< a twin on the GPU */
    COURSE_DIFF_SCHEDULE, /**< a twin on the emulator with the other warp schedule */
};

/** COURSE_DIFF's mode; an unknown value fails the case, naming the choices. */
enum course_diff_mode course_diff_mode(void);

/** The warp schedule of a COURSE_DIFF=schedule twin: the one COURSE_EMU_SCHEDULE does not set. */
const char *course_diff_twin_schedule(void);

/** A compared call: the launcher, its arguments, and the kernels it launched on the runner. */
struct course_diff_call {
    const char *name;             /**< the function called */
    const struct proto_arg *args; /**< its arguments */
    int nargs;                    /**< how many */
    const char *kernels; /**< the observed launches' kernel names, comma-separated, or "" */
};

/**
 * Compare @p bytes of an output the call @p call wrote (its argument @p arg, or -1 when it is
 * none), @p a from the runner and @p b from its twin, bit for bit, or as a listed exception says;
 * a difference appends one line naming the call, its arguments, @p what (the case's words, with
 * the shape), the first differing element, both values and how many elements differ.
 */
void course_diff_bytes(const struct course_diff_call *call, int arg, const char *what,
                       const unsigned char *a, const unsigned char *b, size_t bytes);

/** Compare the CUDA status and the value of kind @p ret that @p call returned on both. */
void course_diff_reply(const struct course_diff_call *call, enum proto_kind ret,
                       const struct proto_reply *a, const struct proto_reply *b);

/** Append the observer's line @p launch (emulator/server/server.c's format), made by @p call, to
 *  COURSE_DIFF_COUNTS as "case=CASE call=CALL launch ...", when it is set. */
void course_diff_count_line(const char *call, const char *launch);

#endif /* COURSE_DIFF_H */
