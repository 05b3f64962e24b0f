/**
 * @file fatbin.c
 * @brief The PTX inside an nvcc fat binary (see fatbin.h).
 */
#include "fatbin.h"

#include <ctype.h>
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "alloc.h"

enum {
    LINK_VERSION = 2, /* the wrapper of a -rdc link (fatbinary_section.h) */
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

/* The fat binary's entry at *@p off (then moved past it), NULL at @p end; NULL and *@p bad set
 * when the entry runs past @p end. */
static const uint8_t *next_entry(const uint8_t *fb, size_t end, size_t *off, int *bad)
{
    if (*off + 64 > end)
        return NULL;
    const uint8_t *e = fb + *off;
    uint32_t ehead = u32_at(e, 4);
    uint64_t payload = u64_at(e, 8);
    *bad = ehead < 64 || *off + ehead + payload > end;
    *off += ehead + payload;
    return *bad ? NULL : e;
}

int fatbin_ptx_target(const char *ptx, int *specific)
{
    const char *p = strstr(ptx, ".target");
    if (specific)
        *specific = 0;
    if (!p)
        return 0;
    for (p += 7; *p == ' ' || *p == '\t'; p++)
        ;
    if (strncmp(p, "sm_", 3))
        return 0;
    int arch = atoi(p + 3);
    for (p += 3; isdigit((unsigned char)*p); p++)
        ;
    if (specific)
        *specific = *p == 'a' || *p == 'f' ? *p : 0;
    return arch;
}

/* Nonzero when PTX text @p t targets an architecture's own features (fatbin_ptx_target()). */
static int arch_specific(const char *t)
{
    int specific;
    fatbin_ptx_target(t, &specific);
    return specific;
}

/* The best PTX entry of the fat binary at @p fb: of the highest architecture <= FATBIN_MAX_ARCH,
 * and of two entries of it (nvcc -arch=sm_90a embeds compute_90 and compute_90a PTX), the one
 * that targets the architecture's own features, which the emulated GPU has. Its text (malloc'd)
 * into @p ptx, its length and architecture. */
static enum fatbin_status one_fatbin(const uint8_t *fb, char **ptx, size_t *len, int *arch,
                                     char *err, size_t err_size)
{
    if (u32_at(fb, 0) != FATBIN_MAGIC) {
        snprintf(err, err_size, "not an nvcc fat binary (unknown magic number)");
        return FATBIN_BAD;
    }
    size_t head = u32_at(fb, 4) >> 16, end = head + u64_at(fb, 8), off = head;
    int best_arch = -1, bad = 0;
    for (const uint8_t *e; (e = next_entry(fb, end, &off, &bad));)
        if ((u32_at(e, 0) & 0xffff) == KIND_PTX && (int)u32_at(e, 28) <= FATBIN_MAX_ARCH)
            best_arch = (int)u32_at(e, 28) > best_arch ? (int)u32_at(e, 28) : best_arch;
    if (bad) {
        snprintf(err, err_size, "a fat binary entry runs past the end of the fat binary");
        return FATBIN_BAD;
    }
    if (best_arch < 0)
        return FATBIN_NO_PTX;
    off = head;
    *ptx = NULL;
    *arch = best_arch;
    for (const uint8_t *e; (e = next_entry(fb, end, &off, &bad));) {
        if ((u32_at(e, 0) & 0xffff) != KIND_PTX || (int)u32_at(e, 28) != best_arch)
            continue;
        size_t n;
        char *t = entry_text(e, e + u32_at(e, 4), &n, err, err_size);
        if (!t) {
            free(*ptx);
            *ptx = NULL;
            return FATBIN_BAD;
        }
        int specific = arch_specific(t);
        if (*ptx && !specific) { /* the first of the architecture's stays */
            free(t);
            continue;
        }
        free(*ptx);
        *ptx = t, *len = n;
        if (specific)
            break;
    }
    return FATBIN_PTX;
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
    if (!w || (uint32_t)w->magic != FATBIN_WRAPPER_MAGIC || !w->data) {
        snprintf(err, err_size, "not an nvcc fat binary (unknown magic number)");
        return FATBIN_BAD;
    }
    if (w->version != LINK_VERSION) /* one object: its own fat binary */
        return one_fatbin((const uint8_t *)w->data, ptx, len, arch, err, err_size);
    /* -rdc: the linked fat binary holds machine code only; the objects' own fat binaries,
     * listed (NULL-terminated) behind the wrapper, hold their PTX. */
    return linked_fatbins(w->filename_or_fatbins, ptx, len, arch, err, err_size);
}

enum fatbin_status fatbin_ptx_of(const void *fatbin, char **ptx, size_t *len, int *arch, char *err,
                                 size_t err_size)
{
    *ptx = NULL, *len = 0, *arch = -1;
    return one_fatbin(fatbin, ptx, len, arch, err, err_size);
}
