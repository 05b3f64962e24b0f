/**
 * @file capture.c
 * @brief What a call prints (see capture.h).
 */
#include "capture.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "course_judge.h"
#include "course_test.h"
#include "mat.h"

void capture_begin(struct capture *c, int fd)
{
    fflush(NULL);
    c->fd = fd;
    c->file = tmpfile();
    ck_assert(c->file != NULL);
    c->saved = dup(fd);
    dup2(fileno(c->file), fd);
}

char *capture_end(struct capture *c)
{
    fflush(NULL);
    dup2(c->saved, c->fd);
    close(c->saved);
    long len = ftell(c->file);
    char *text = mat_alloc((size_t)(len > 0 ? len : 0) + 1);
    rewind(c->file);
    size_t got = fread(text, 1, (size_t)(len > 0 ? len : 0), c->file);
    text[got] = 0;
    fclose(c->file);
    return text;
}

/* The line of @p source holding @p marker (0 if none). */
static int line_of(const char *source, const char *marker)
{
    char *text = course_read_file(source);
    ck_assert_msg(text != NULL, "cannot read %s", source);
    const char *at = strstr(text, marker);
    int line = 1;
    for (const char *p = text; at && p < at; p++)
        line += *p == '\n';
    free(text);
    return at ? line : 0;
}

void capture_assert_at(const char *text, const char *source, const char *marker, const char *what)
{
    const char *name = source + strlen(source);
    for (int slashes = 0; name > source && slashes < 2; name--)
        slashes += name[-1] == '/';
    char where[256];
    snprintf(where, sizeof where, "%s:%d", name + (*name == '/'), line_of(source, marker));
    ck_assert_msg(strstr(text, where) && strstr(text, what),
                  "expected a line naming %s and saying '%s', got: %s", where, what, text);
}

void capture_assert_times(const char *text, int times)
{
    if (times <= 0)
        return;
    char count[32];
    snprintf(count, sizeof count, "(%d time%s)", times, times == 1 ? "" : "s");
    ck_assert_msg(strstr(text, count), "expected '%s' in: %s", count, text);
}

static char report_path[4096];

void capture_reports_on(void)
{
    /* in the case's own directory, removed with it */
    snprintf(report_path, sizeof report_path, "%s/emu-report", course_sandbox_dir());
    int fd = open(report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ck_assert_msg(fd >= 0, "cannot create %s", report_path);
    close(fd);
    setenv("COURSE_EMU_REPORT", report_path, 1);
}

void capture_checks_on(void)
{
    capture_reports_on();
    setenv("COURSE_EMU_CHECKS", "mem,race,sync,init,race-global", 1);
}

char *capture_reports(void)
{
    char *text = course_read_file(report_path);
    ck_assert_msg(text != NULL, "cannot read %s", report_path);
    ck_assert_int_eq(truncate(report_path, 0), 0);
    return text;
}

void capture_assert_no_reports(const char *what)
{
    char *text = capture_reports();
    ck_assert_msg(text[0] == 0, "%s: expected no reports, got: %s", what, text);
    free(text);
}
