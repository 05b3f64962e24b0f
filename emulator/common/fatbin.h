/**
 * @file fatbin.h
 * @brief The PTX inside an nvcc fat binary.
 *
 * nvcc hands __cudaRegisterFatBinary a wrapper (magic 0x466243b1) that points
 * at the fat binary: a header (magic 0xBA55ED50, header size, payload size)
 * and entries one after another, each with its own header: kind (1 PTX, 2
 * ELF cubin) at offset 0, header size at 4, payload size at 8, compressed
 * size at 16, the architecture (e.g. 90) at 28, flags at 40 (0x8000: the
 * payload is zstd-compressed, as CUDA 13 does; 0x2000: LZ4-compressed, block
 * format, as CUDA 12 does) and the uncompressed size at 56.
 *
 * A program linked with -rdc (nvcc's crt/link.stub) registers one wrapper of
 * version 2 whose fat binary holds the linked machine code only; its second
 * pointer lists the fat binaries of the linked objects (NULL-terminated),
 * each with that object's PTX. fatbin_ptx() then returns every object's PTX,
 * one text after another: each begins with its own .version directive, and
 * the VM links them as one module (vm_load()).
 */
#ifndef EMU_FATBIN_H
#define EMU_FATBIN_H

#include <stddef.h>

/** The first word of nvcc's wrapper, and of a fat binary itself. */
#define FATBIN_WRAPPER_MAGIC 0x466243b1u
#define FATBIN_MAGIC 0xBA55ED50u

/** The newest PTX architecture the emulator runs (sm_90). */
#define FATBIN_MAX_ARCH 90

/** What fatbin_ptx() found. */
enum fatbin_status {
    FATBIN_PTX = 0, /**< *ptx holds the text */
    FATBIN_NO_PTX,  /**< the binary holds machine code only, or PTX newer than FATBIN_MAX_ARCH */
    FATBIN_BAD      /**< not a fat binary we understand, or the text cannot be decompressed */
};

/**
 * The PTX of the highest architecture <= FATBIN_MAX_ARCH in the fat binary
 * behind @p wrapper (of two of it, the one for the architecture's own features,
 * compute_90a over compute_90; for a -rdc link, every object's, one after another):
 * malloc'd NUL-terminated text in @p ptx (length in @p len, the lowest
 * architecture taken in @p arch). On FATBIN_BAD, @p err says why in one line.
 */
enum fatbin_status fatbin_ptx(const void *wrapper, char **ptx, size_t *len, int *arch, char *err,
                              size_t err_size);

/** fatbin_ptx() of a fat binary itself (magic 0xBA55ED50: what `nvcc -fatbin` writes and
 *  cuModuleLoadData is handed), not of nvcc's wrapper around one. */
enum fatbin_status fatbin_ptx_of(const void *fatbin, char **ptx, size_t *len, int *arch, char *err,
                                 size_t err_size);

/** The architecture NUL-terminated PTX text @p ptx targets, 10 * major + minor (".target sm_90a":
 *  90), or 0 without a .target sm_ directive; *@p specific (when not NULL) is the suffix letter of
 *  a target of an architecture's own features ('a' for sm_90a, 'f' for sm_100f), else 0. */
int fatbin_ptx_target(const char *ptx, int *specific);

#endif /* EMU_FATBIN_H */
