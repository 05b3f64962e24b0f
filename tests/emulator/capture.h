/**
 * @file capture.h
 * @brief What a call prints, for the emulator's suites: a file descriptor redirected into a
 *        temporary file for the length of the call, and the check that a message names the
 *        right source line.
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

/**
 * Assert that @p text says @p what and names the line of @p source (a kernel file) holding
 * @p marker, as the emulator writes it: "folder/file.cu:LINE".
 */
void capture_assert_at(const char *text, const char *source, const char *marker, const char *what);

/** Assert that @p text (a report) counts a finding @p times times, when @p times > 0. */
void capture_assert_times(const char *text, int times);

/**
 * Send what the emulator's checks and device-side launches report (COURSE_EMU_REPORT) to a new
 * empty file of the capture's own, which capture_reports() reads; call before the process's
 * first CUDA call.
 */
void capture_reports_on(void);

/** capture_reports_on(), and every check on for this process. */
void capture_checks_on(void);

/** What the checks reported since the last call (malloc'd); the report file is emptied. */
char *capture_reports(void);

/** Assert that the checks reported nothing since the last call, naming @p what if they did. */
void capture_assert_no_reports(const char *what);

/** Assert that @p call returns @p code and writes exactly one line to stderr, saying @p why. */
#define EXPECT_REFUSED_WITH(code, call, why)                                                       \
    do {                                                                                           \
        struct capture c;                                                                          \
        capture_begin(&c, 2);                                                                      \
        long err = (long)(call);                                                                   \
        char *text = capture_end(&c);                                                              \
        const char *nl = strchr(text, '\n');                                                       \
        ck_assert_msg(err == (long)(code) && strstr(text, why) && nl && !nl[1],                    \
                      "%s:%d: %s returned %ld and printed '%s', not one line saying '%s'",         \
                      __FILE__, __LINE__, #call, err, text, why);                                  \
        free(text);                                                                                \
    } while (0)

#endif /* EMU_TEST_CAPTURE_H */
