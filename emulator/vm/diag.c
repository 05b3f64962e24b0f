/**
 * @file diag.c
 * @brief The VM's messages: where an instruction is in the source, which thread a lane is,
 *        and a launch's first failure, in one line each.
 *
 * Below the rest of the VM: the dispatch loop, the instruction families, the checks and the
 * provenance record all describe what they find through these, and these call none of them.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm_impl.h"

/* The module's file @p file by its last two components (the lesson folder and the file). */
static const char *file_tail(const struct vm_module *m, uint32_t file)
{
    const char *path = file < m->nfiles && m->files[file] ? m->files[file] : "?";
    const char *tail = path + strlen(path);
    for (int slashes = 0; tail > path; tail--)
        if (tail[-1] == '/' && ++slashes == 2)
            break;
    return tail;
}

/* Is the module's file @p file a header of an include directory (CUDA's, a library's)? */
static int in_header(const struct vm_module *m, uint32_t file)
{
    return file < m->nfiles && m->files[file] && strstr(m->files[file], "/include/");
}

/*
 * Where instruction @p in came from: the innermost position, following the calls it was inlined
 * through out, that is not in a header (the program's own line: a header's, CUDA's wmma or a
 * library's layers, is not where the bug is), and the outermost call site when that is another
 * ("a.cu:12 (inlined at a.cu:40)").
 */
const char *vm_where(const struct vm_module *m, const struct insn *in, char *buf, size_t size)
{
    if (!m->nlines) {
        snprintf(buf, size, "(no line information: build with -lineinfo)");
        return buf;
    }
    const struct srcloc *e = &m->lines[in->line];
    uint32_t file = e->file, line = e->line, ufile = UINT32_MAX, uline = 0;
    for (int depth = 0; depth < 64; depth++) {
        if (ufile == UINT32_MAX && !in_header(m, file))
            ufile = file, uline = line;
        if (!e || !e->iline)
            break;
        file = e->ifile, line = e->iline;
        e = e->up ? &m->lines[e->up - 1] : NULL;
    }
    if (ufile == UINT32_MAX || (ufile == file && uline == line))
        snprintf(buf, size, "%s:%u", file_tail(m, file), line);
    else
        snprintf(buf, size, "%s:%u (inlined at %s:%u)", file_tail(m, ufile), uline,
                 file_tail(m, file), line);
    return buf;
}

/* "matmul_tiled_kernel" from "_Z19matmul_tiled_kerneliiiPKfS0_Pf"; nested names joined by ::. */
static const char *plain_name(const char *mangled, char *buf, size_t size)
{
    const char *p = mangled;
    if (strncmp(p, "_Z", 2)) {
        snprintf(buf, size, "%s", mangled);
        return buf;
    }
    p += 2;
    int nested = *p == 'N';
    p += nested;
    size_t used = 0;
    buf[0] = '\0';
    while (*p >= '0' && *p <= '9') {
        char *end;
        long len = strtol(p, &end, 10);
        if (len <= 0 || (size_t)len > strlen(end))
            break;
        if (strncmp(end, "_INTERNAL", 9)) /* skip the anonymous-namespace tag */
            used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%.*s",
                                     used ? "::" : "", (int)len, end);
        p = end + len;
        if (!nested)
            break;
    }
    if (!buf[0])
        snprintf(buf, size, "%s", mangled);
    return buf;
}

void vm_thread_of(const struct exec *x, const struct warp *w, int lane, uint32_t tid[3])
{
    const uint32_t *b = x->launch->block;
    uint32_t linear = w->index * 32 + (uint32_t)lane;
    tid[0] = linear % b[0];
    tid[1] = linear / b[0] % b[1];
    tid[2] = linear / (b[0] * b[1]);
}

const char *vm_kernel_name(const struct exec *x, char *buf, size_t size)
{
    return plain_name(x->fn->info.name, buf, size);
}

const char *vm_describe(const struct exec *x, const struct warp *w, const struct insn *in, int lane,
                        char *buf, size_t size)
{
    char where[200], name[160];
    uint32_t tid[3] = {0, 0, 0};
    if (w)
        vm_thread_of(x, w, lane, tid);
    snprintf(buf, size, "in %s at %s, block (%u,%u,%u), thread (%u,%u,%u)",
             plain_name(x->fn->info.name, name, sizeof name),
             in ? vm_where(x->mod, in, where, sizeof where) : "launch", x->ctaid[0], x->ctaid[1],
             x->ctaid[2], tid[0], tid[1], tid[2]);
    return buf;
}

enum event vm_fail(struct exec *x, const struct warp *w, const struct insn *in, int lane,
                   enum vm_status status, const char *fmt, ...)
{
    if (x->result->status != VM_OK)
        return EV_ERROR; /* the first failure is the one reported */
    char what[300], where[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(x->result->message, sizeof x->result->message, "%s %s", what,
             vm_describe(x, w, in, lane, where, sizeof where));
    x->result->status = status;
    return EV_ERROR;
}
