/**
 * @file test_fatbin.c
 * @brief The PTX the runtime stand-in finds in a fat binary (emulator/fatbin.h), on the host:
 *        plain, zstd-compressed (CUDA 13's fatbinary) and LZ4-compressed (CUDA 12's).
 *
 * Each case lays out a fat binary as nvcc does (wrapper, header, entries with their own
 * headers) around a PTX text of a few kB that repeats with variations, so that both
 * compressors emit back-references as well as literals, and checks that fatbin_ptx() gives the
 * text back byte for byte, picks the newest architecture it runs, and refuses a corrupt
 * payload in one line.
 */
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "course_test.h"
#include "fatbin.h"

enum { FLAG_LZ4 = 0x2000, FLAG_ZSTD = 0x8000, ENTRY_HEAD = 64, MAX_ENTRIES = 4 };

/* The wrapper nvcc passes to __cudaRegisterFatBinary, and a fat binary of entries. */
struct wrapper {
    int32_t magic, version;
    const uint8_t *data;
    const void *filename;
};
struct fat {
    uint8_t bytes[1 << 16];
    size_t used;
    struct wrapper w;
};

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

/* A PTX text of about 4 kB: a kernel whose body repeats with changing register numbers. */
static char *ptx_text(int arch)
{
    size_t cap = 8192, n = 0;
    char *t = malloc(cap);
    n += (size_t)snprintf(t + n, cap - n,
                          ".version 8.4\n.target sm_%d\n.address_size 64\n\n.visible .entry k("
                          "\n.param .u64 k_param_0\n)\n{\n",
                          arch);
    for (int i = 0; i < 97; i++)
        n += (size_t)snprintf(t + n, cap - n, "add.f32 %%f%d, %%f%d, 0f3F8%05X;\n", i + 1, i,
                              (i * 2654435761u) & 0xFFFFF);
    snprintf(t + n, cap - n, "ret;\n}\n");
    return t;
}

/* Appends a PTX entry of architecture @p arch holding @p text, compressed as @p flags says
 * (0: plain); @p corrupt overwrites the compressed payload's middle with noise. */
static void add_entry(struct fat *f, int arch, const char *text, uint64_t flags, int corrupt)
{
    size_t len = strlen(text) + 1, cap = len + 1024, packed = len;
    uint8_t *payload = malloc(cap);
    if (flags & FLAG_ZSTD)
        packed = ZSTD_compress(payload, cap, text, len, 3);
    else if (flags & FLAG_LZ4)
        packed = (size_t)LZ4_compress_default(text, (char *)payload, (int)len, (int)cap);
    else
        memcpy(payload, text, len);
    ck_assert_msg(packed > 0 && packed < cap, "the test's compressor failed");
    /* Literals alone would not shrink it: a quarter less means back-references were made. */
    ck_assert_msg(!flags || packed < len * 3 / 4, "the text did not compress: no back-references");
    for (size_t i = packed / 3; corrupt && i < packed / 3 + 16; i++)
        payload[i] = (uint8_t)(0xA5 ^ i * 37);
    size_t padded = (packed + 7) & ~(size_t)7;
    uint8_t *e = f->bytes + f->used;
    ck_assert(f->used + ENTRY_HEAD + padded < sizeof f->bytes);
    memset(e, 0, ENTRY_HEAD + padded);
    put32(e, 1); /* PTX */
    put32(e + 4, ENTRY_HEAD);
    put64(e + 8, padded);
    put32(e + 16, (uint32_t)packed);
    put32(e + 28, (uint32_t)arch);
    put64(e + 40, flags);
    put64(e + 56, flags ? len : 0);
    memcpy(e + ENTRY_HEAD, payload, packed);
    f->used += ENTRY_HEAD + padded;
    free(payload);
}

/* The fat binary's header (16 bytes before the entries) and its wrapper. */
static const void *finish(struct fat *f)
{
    put32(f->bytes, 0xBA55ED50);
    put32(f->bytes + 4, 16u << 16 | 1);
    put64(f->bytes + 8, f->used - 16);
    f->w = (struct wrapper){0x466243b1, 1, f->bytes, NULL};
    return &f->w;
}

/* A fat binary of one sm_90 entry holding @p text (as add_entry() makes it), read back: the
 * status, the text in *@p got (NULL if none), its length and architecture, any refusal in @p err.
 */
static enum fatbin_status read_one(const char *text, uint64_t flags, int corrupt, char **got,
                                   size_t *len, int *arch, char *err, size_t err_size)
{
    static struct fat f;
    f.used = 16;
    add_entry(&f, 90, text, flags, corrupt);
    *got = NULL, *len = 0, *arch = 0;
    return fatbin_ptx(finish(&f), got, len, arch, err, err_size);
}

/* A fat binary of one entry, compressed per @p flags, gives its text back exactly. */
static void check_round_trip(uint64_t flags)
{
    char *want = ptx_text(90), *got, err[256] = "";
    size_t len;
    int arch;
    enum fatbin_status st = read_one(want, flags, 0, &got, &len, &arch, err, sizeof err);
    ck_assert_msg(st == FATBIN_PTX, "flags 0x%llx: status %d (%s)", (unsigned long long)flags,
                  (int)st, err);
    ck_assert_msg(len == strlen(want) && strcmp(got, want) == 0,
                  "flags 0x%llx: %zu bytes back, not the %zu of the text",
                  (unsigned long long)flags, len, strlen(want));
    ck_assert_int_eq(arch, 90);
    free(got);
    free(want);
}

START_TEST(plain_ptx)
{
    check_round_trip(0);
}
END_TEST

START_TEST(zstd_ptx_of_cuda13)
{
    check_round_trip(FLAG_ZSTD);
}
END_TEST

START_TEST(lz4_ptx_of_cuda12)
{
    check_round_trip(FLAG_LZ4);
}
END_TEST

/* Entries for sm_75 (LZ4), sm_90 (zstd) and sm_100 (plain): sm_90's is taken, the newest the
 * VM runs, whatever the order and the compression. */
START_TEST(newest_runnable_architecture_taken)
{
    static struct fat f;
    f.used = 16;
    char *t75 = ptx_text(75), *t90 = ptx_text(90), *t100 = ptx_text(100), *got = NULL, err[256];
    add_entry(&f, 75, t75, FLAG_LZ4, 0);
    add_entry(&f, 100, t100, 0, 0);
    add_entry(&f, 90, t90, FLAG_ZSTD, 0);
    size_t len = 0;
    int arch = 0;
    ck_assert_int_eq(fatbin_ptx(finish(&f), &got, &len, &arch, err, sizeof err), FATBIN_PTX);
    ck_assert_int_eq(arch, 90);
    ck_assert_str_eq(got, t90);
    free(got), free(t75), free(t90), free(t100);
}
END_TEST

/* A corrupt LZ4 payload is refused in one line naming LZ4, not handed to the parser. */
START_TEST(corrupt_lz4_refused)
{
    char *t = ptx_text(90), *got, err[256] = "";
    size_t len;
    int arch;
    enum fatbin_status st = read_one(t, FLAG_LZ4, 1, &got, &len, &arch, err, sizeof err);
    ck_assert_msg(st == FATBIN_BAD, "a corrupt payload gave status %d", (int)st);
    ck_assert_ptr_null(got);
    ck_assert_msg(strstr(err, "LZ4") && !strchr(err, '\n'), "the refusal says: %s", err);
    free(t);
}
END_TEST

/* A PTX text's target: its architecture, and the letter of a target of that architecture's own
 * features, which the runtime's messages name ("compute_90a"). */
START_TEST(ptx_target_and_its_letter)
{
    static const struct {
        const char *text;
        int arch, letter;
    } cases[] = {{".version 8.0\n.target sm_90a\n", 90, 'a'},
                 {".version 8.7\n.target sm_100f, texmode_independent\n", 100, 'f'},
                 {".version 8.0\n.target sm_90\n", 90, 0},
                 {".version 7.0\n.target\tsm_80\n", 80, 0},
                 {".version 8.0\n", 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int letter = -1, arch = fatbin_ptx_target(cases[i].text, &letter);
        ck_assert_msg(arch == cases[i].arch && letter == cases[i].letter,
                      "case %zu: architecture %d and letter %d, want %d and %d", i, arch, letter,
                      cases[i].arch, cases[i].letter);
    }
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"plain_ptx", plain_ptx, CASE_CPU, 30},
        {"zstd_ptx_of_cuda13", zstd_ptx_of_cuda13, CASE_CPU, 30},
        {"lz4_ptx_of_cuda12", lz4_ptx_of_cuda12, CASE_CPU, 30},
        {"newest_runnable_architecture_taken", newest_runnable_architecture_taken, CASE_CPU, 30},
        {"corrupt_lz4_refused", corrupt_lz4_refused, CASE_CPU, 30},
        {"ptx_target_and_its_letter", ptx_target_and_its_letter, CASE_CPU, 30},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
