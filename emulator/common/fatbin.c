/**
 * @file fatbin.c
 * @brief The PTX inside an nvcc fat binary (see fatbin.h).
 */
#include "fatbin.h"

#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "alloc.h"

enum {
    WRAPPER_MAGIC = 0x466243b1,
    LINK_VERSION = 2, /* the wrapper of a -rdc link (fatbinary_section.h) */
    FATBIN_MAGIC = 0xBA55ED50,
    KIND_PTX = 1,
    FLAG_LZ4 = 0x2000, /* CUDA 12's fatbinary compresses with LZ4 (block format) */
    FLAG_ZSTD = 0x8000 /* CUDA 13's with zstd */
};

/** The wrapper nvcc emits (__fatBinC_Wrapper_t). */
struct wrapper {
    int32_t magic, version;
    const uint8_t *data;
    const void *filename_or_fatbins; /* version 2: the objects' fat binaries, NULL-terminated */
};

/* Little-endian fields at byte offsets, read without alignment assumptions. */
static uint32_t u32_at(const uint8_t *p, size_t off)
{
    uint32_t v;
    memcpy(&v, p + off, sizeof v);
    return v;
}

static uint64_t u64_at(const uint8_t *p, size_t off)
{
    uint64_t v;
    memcpy(&v, p + off, sizeof v);
    return v;
}

/* The @p size bytes that @p packed compressed bytes at @p data make, by LZ4 or zstd (at most
 * @p size for zstd); the count made, or -1 with the reason in @p err. */
static long decompress(char *t, uint64_t size, const uint8_t *data, uint32_t packed, int lz4,
                       char *err, size_t err_size)
{
    if (lz4) { /* the block format has no checksum: the size must come out exact */
        int got = LZ4_decompress_safe((const char *)data, t, (int)packed, (int)size);
        if (got != (int)size) {
            snprintf(err, err_size, "cannot decompress the PTX (LZ4: corrupt data)");
            return -1;
        }
        return got;
    }
    size_t got = ZSTD_decompress(t, size, data, packed);
    if (ZSTD_isError(got)) {
        snprintf(err, err_size, "cannot decompress the PTX (%s)", ZSTD_getErrorName(got));
        return -1;
    }
    return (long)got;
}

/* The text of one PTX entry (payload @p data), decompressed when it must be; NULL on failure. */
static char *entry_text(const uint8_t *e, const uint8_t *data, size_t *len, char *err,
                        size_t err_size)
{
    uint64_t payload = u64_at(e, 8), flags = u64_at(e, 40);
    if (!(flags & (FLAG_LZ4 | FLAG_ZSTD))) {
        char *t = emu_malloc(payload + 1);
        memcpy(t, data, payload);
        t[payload] = 0;
        *len = strlen(t); /* the payload is padded with NULs */
        return t;
    }
    uint32_t packed = u32_at(e, 16);
    uint64_t size = u64_at(e, 56);
    if (packed > payload || size > ((uint64_t)1 << 30)) {
        snprintf(err, err_size, "a compressed PTX entry has impossible sizes");
        return NULL;
    }
    char *t = emu_malloc(size + 1);
    long got = decompress(t, size, data, packed, !(flags & FLAG_ZSTD), err, err_size);
    if (got < 0) {
        free(t);
        return NULL;
    }
    t[got] = 0;
    *len = strlen(t);
    return t;
}

/* The best PTX entry (highest architecture <= FATBIN_MAX_ARCH) of the fat binary at @p fb: its
 * text (malloc'd) into @p ptx, its length and architecture. */
static enum fatbin_status one_fatbin(const uint8_t *fb, char **ptx, size_t *len, int *arch,
                                     char *err, size_t err_size)
{
    if (u32_at(fb, 0) != FATBIN_MAGIC) {
        snprintf(err, err_size, "not an nvcc fat binary (unknown magic number)");
        return FATBIN_BAD;
    }
    size_t head = u32_at(fb, 4) >> 16, total = u64_at(fb, 8);
    const uint8_t *best = NULL;
    int best_arch = -1;
    for (size_t off = head; off + 64 <= head + total;) {
        const uint8_t *e = fb + off;
        uint32_t kind = u32_at(e, 0) & 0xffff, ehead = u32_at(e, 4), a = u32_at(e, 28);
        uint64_t payload = u64_at(e, 8);
        if (ehead < 64 || off + ehead + payload > head + total) {
            snprintf(err, err_size, "a fat binary entry runs past the end of the fat binary");
            return FATBIN_BAD;
        }
        if (kind == KIND_PTX && (int)a <= FATBIN_MAX_ARCH && (int)a > best_arch) {
            best = e;
            best_arch = (int)a;
        }
        off += ehead + payload;
    }
    if (!best)
        return FATBIN_NO_PTX;
    *ptx = entry_text(best, best + u32_at(best, 4), len, err, err_size);
    *arch = best_arch;
    return *ptx ? FATBIN_PTX : FATBIN_BAD;
}

/* Every linked object's PTX (the fat binaries @p objects lists), one text after another, each
 * ending in a newline; @p arch is the lowest taken. Objects with machine code only are left
 * out: libcudadevrt's (dynamic parallelism's runtime, which the VM answers itself, cdp.c). */
static enum fatbin_status linked_fatbins(const uint8_t *const *objects, char **ptx, size_t *len,
                                         int *arch, char *err, size_t err_size)
{
    enum fatbin_status st = FATBIN_PTX;
    for (size_t i = 0; st != FATBIN_BAD && objects && objects[i]; i++) {
        char *text, *all;
        size_t n;
        int a;
        st = one_fatbin(objects[i], &text, &n, &a, err, err_size);
        if (st != FATBIN_PTX)
            continue;
        all = emu_realloc(*ptx, *len + n + 2);
        memcpy(all + *len, text, n);
        all[*len + n] = '\n', all[*len + n + 1] = 0;
        *ptx = all, *len += n + 1;
        *arch = *arch < 0 || a < *arch ? a : *arch;
        free(text);
    }
    if (st == FATBIN_BAD || !*ptx) {
        free(*ptx);
        *ptx = NULL;
        return st == FATBIN_BAD ? FATBIN_BAD : FATBIN_NO_PTX;
    }
    return FATBIN_PTX;
}

enum fatbin_status fatbin_ptx(const void *wrapper, char **ptx, size_t *len, int *arch, char *err,
                              size_t err_size)
{
    const struct wrapper *w = wrapper;
    *ptx = NULL, *len = 0, *arch = -1;
    if (!w || w->magic != WRAPPER_MAGIC || !w->data) {
        snprintf(err, err_size, "not an nvcc fat binary (unknown magic number)");
        return FATBIN_BAD;
    }
    if (w->version != LINK_VERSION) /* one object: its own fat binary */
        return one_fatbin((const uint8_t *)w->data, ptx, len, arch, err, err_size);
    /* -rdc: the linked fat binary holds machine code only; the objects' own fat binaries,
     * listed (NULL-terminated) behind the wrapper, hold their PTX. */
    return linked_fatbins(w->filename_or_fatbins, ptx, len, arch, err, err_size);
}
