/**
 * @file capture.c
 * @brief What a call prints (see capture.h).
 */
#include "capture.h"

#include <check.h>
#include <stdlib.h>
#include <unistd.h>

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
