/**
 * @file alloc.c
 * @brief The emulator's host allocations, which abort with the size (see alloc.h).
 */
#include "alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* @p p, or one line naming @p bytes on stderr and abort() when it is NULL. */
static void *or_abort(void *p, size_t bytes)
{
    if (!p) {
        fprintf(stderr, "emulator: out of host memory (%zu bytes asked for)\n", bytes);
        abort();
    }
    return p;
}

void *emu_malloc(size_t bytes)
{
    return or_abort(malloc(bytes ? bytes : 1), bytes);
}

void *emu_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return or_abort(NULL, SIZE_MAX);
    return or_abort(calloc(n && size ? n : 1, n && size ? size : 1), n * size);
}

void *emu_realloc(void *p, size_t bytes)
{
    return or_abort(realloc(p, bytes ? bytes : 1), bytes);
}

char *emu_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(emu_malloc(n), s, n);
}

char *emu_strndup(const char *s, size_t n)
{
    char *d = emu_malloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

void *emu_aligned_alloc(size_t align, size_t bytes)
{
    size_t rounded = (bytes + align - 1) / align * align;
    return or_abort(aligned_alloc(align, rounded ? rounded : align), bytes);
}

void *emu_grow(void *arr, uint32_t count, uint32_t *cap, size_t size)
{
    if (count < *cap)
        return arr;
    *cap = *cap ? 2 * *cap : 16;
    return emu_realloc(arr, (size_t)*cap * size);
}
