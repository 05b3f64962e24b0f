/**
 * @file alloc.h
 * @brief The emulator's host allocations: each one aborts the process, naming the size, when
 *        the host has no memory left.
 *
 * The emulator's own bookkeeping (tables, queues, decoded code, messages) cannot go on without
 * its memory, and a half-made table is worse than a clear stop. What a program asks for on
 * its own account (cudaMallocHost, cudaHostAlloc, a host-side copy's staging) is not this
 * bookkeeping: those calls keep their CUDA error (cudaErrorMemoryAllocation).
 */
#ifndef EMU_ALLOC_H
#define EMU_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/** malloc(@p bytes) (at least one byte), or abort. */
void *emu_malloc(size_t bytes);

/** calloc(@p n, @p size) (at least one byte), or abort. */
void *emu_calloc(size_t n, size_t size);

/** realloc(@p p, @p bytes) (at least one byte), or abort. */
void *emu_realloc(void *p, size_t bytes);

/** A copy of string @p s, or abort. */
char *emu_strdup(const char *s);

/** A copy of the @p n bytes at @p s, NUL-terminated, or abort. */
char *emu_strndup(const char *s, size_t n);

/** @p bytes aligned to @p align (a power of two), or abort. */
void *emu_aligned_alloc(size_t align, size_t bytes);

/**
 * Room for one more element of @p size bytes in array @p arr, which holds @p count of *@p cap:
 * when full, *@p cap doubles (16 at first) and the array moves. Returns the array, or aborts.
 */
void *emu_grow(void *arr, uint32_t count, uint32_t *cap, size_t size);

#endif /* EMU_ALLOC_H */
