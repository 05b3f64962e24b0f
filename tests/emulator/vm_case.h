/**
 * @file vm_case.h
 * @brief In-process cases of the PTX VM: a test file holds its PTX (as text, or as CUDA
 *        kernels nvcc compiles to PTX for it), its inputs and its expectation together, and
 *        runs the VM in its own process through vm_load() and vm_launch(): no server, no
 *        runtime stand-in, no GPU.
 *
 * A case opens a device on some PTX, puts its inputs in device buffers, launches a kernel by
 * name with its arguments as cudaLaunchKernel takes them (an array of pointers to each
 * argument), and reads its outputs back:
 *
 *     struct vm_case c;
 *     vm_case_open(&c, ptx);                         // text, or VM_CASE_PTX: the file's kernels
 *     uint64_t d_in = vm_case_buffer(&c, in, sizeof in), d_out = vm_case_buffer(&c, NULL, 128);
 *     void *args[] = {&d_in, &d_out};
 *     ck_assert_int_eq(vm_case_run(&c, "kernel", VM_GRID(1), VM_BLOCK(32), args), VM_OK);
 *     vm_case_read(&c, out, d_out, 128);
 *     vm_case_close(&c);
 *
 * A launch's printf output and its check reports are kept in the case (vm_case::printed,
 * vm_case::reports), its failure in vm_case::result.message.
 */
#ifndef VM_CASE_H
#define VM_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "vm.h"

/** Grid or block dimensions. */
struct vm_dim {
    uint32_t x, y, z;
};

/** One-dimensional shapes, for the common case. */
#define VM_GRID(n) ((struct vm_dim){(n), 1, 1})
#define VM_BLOCK(n) ((struct vm_dim){(n), 1, 1})

/** The printf output or reports a case keeps of its last launch (the rest is dropped). */
enum { VM_CASE_TEXT = 1 << 16 };

/** One device, one module. */
struct vm_case {
    struct emu_mem mem;
    struct vm_module *module;
    struct vm_heap *heap;       /**< device malloc's, made when the module needs one */
    unsigned checks;            /**< enum vm_check bits the next launches run */
    int count;                  /**< enum vm_count: which of result.counters to fill */
    uint32_t dyn_smem;          /**< dynamic shared memory of the next launches */
    uint32_t smem_limit;        /**< the shared memory they may use; 0: 48 KiB (no opt-in) */
    int cooperative;            /**< 1: the next launches are cooperative */
    unsigned schedule;          /**< enum vm_schedule of the next launches (0: forward) */
    uint64_t seed;              /**< VM_SCHEDULE_SEEDED's seed */
    struct vm_result result;    /**< the last launch's */
    char printed[VM_CASE_TEXT]; /**< its printf output, NUL-terminated */
    char reports[VM_CASE_TEXT]; /**< its check reports, one line each */
    size_t nprinted, nreports;
};

/**
 * Open a device of 256 MiB on PTX text @p ptx (NUL-terminated). A module the VM refuses
 * fails the test, with the loader's line.
 */
void vm_case_open(struct vm_case *c, const char *ptx);

/** The PTX nvcc made of the kernels of file @p path, read whole (malloc'd, NUL-terminated);
 *  fails the test when it cannot be read. */
char *vm_case_ptx_file(const char *path);

#ifdef VM_CASE_PTX_FILE
/** The PTX of this file's own kernels (CMake's emu_vm_case() defines VM_CASE_PTX_FILE). */
#define VM_CASE_PTX vm_case_ptx_file(VM_CASE_PTX_FILE)
#endif

/** Load @p ptx on a scratch device and return 0 when the VM takes it; else 1, with the
 *  loader's one line in @p why. */
int vm_case_refuses(const char *ptx, char *why, size_t size);

/** Free the module and the device. */
void vm_case_close(struct vm_case *c);

/** A device buffer of @p bytes holding @p host's bytes, written by the host as initcheck sees
 *  it; with @p host NULL, zeros that nobody wrote (a fresh cudaMalloc's). Its address. */
uint64_t vm_case_buffer(struct vm_case *c, const void *host, size_t bytes);

/** Free the buffer at @p dev (a later access is a use after free). */
void vm_case_free(struct vm_case *c, uint64_t dev);

/** Copy @p bytes at device address @p dev to @p host. */
void vm_case_read(struct vm_case *c, void *host, uint64_t dev, size_t bytes);

/** The host address of device address @p dev (to read or write a buffer in place). */
void *vm_case_host(struct vm_case *c, uint64_t dev);

/**
 * Launch kernel @p name (its .entry name) on @p grid x @p block threads, its parameters
 * read from @p args (one pointer per parameter, to a value of the parameter's size), and run
 * it to the end. Returns its status; vm_case::result holds its message and counters. A name
 * the module lacks fails the test.
 */
enum vm_status vm_case_run(struct vm_case *c, const char *name, struct vm_dim grid,
                           struct vm_dim block, void **args);

/** The next of a fixed sequence of pseudo-random numbers (xorshift64, the same in every run):
 *  the non-uniform inputs of a case. */
uint64_t vm_case_rand(void);

#endif /* VM_CASE_H */
