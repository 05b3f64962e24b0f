/**
 * @file capture.h
 * @brief What a call prints, for the emulator's suites: a file descriptor redirected into a
 *        temporary file for the length of the call.
 */
#ifndef EMU_TEST_CAPTURE_H
#define EMU_TEST_CAPTURE_H

#include <stdio.h>

/** A redirected descriptor. */
struct capture {
    int fd, saved;
    FILE *file;
};

/** Start sending what is written to @p fd (1 or 2) into a temporary file. */
void capture_begin(struct capture *c, int fd);

/** Stop; the text written meanwhile (malloc'd, NUL-terminated). */
char *capture_end(struct capture *c);

#endif /* EMU_TEST_CAPTURE_H */
