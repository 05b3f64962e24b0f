/**
 * @file emu_prov.h
 * @brief The grader's provenance record of device memory, as its judge reads it: who last
 *        wrote each byte, and what kernels read (common/mem.h keeps the record).
 */
#ifndef EMU_PUBLIC_PROV_H
#define EMU_PUBLIC_PROV_H

#include <stdint.h>

/** Who last wrote a byte of device memory: the low bits of its state. */
enum mem_writer {
    MEM_NOBODY = 0, /**< nothing, since it was allocated */
    MEM_HOST,       /**< the host: a copy, a library stand-in, a host-mapped pointer */
    MEM_FILL,       /**< a fill (cudaMemset) */
    MEM_MODULE,     /**< a module variable's initial value */
    MEM_KERNEL,     /**< a kernel's store or atomic */
    MEM_JUDGE,      /**< the grader's own data: the buffers it made (mem_mark_written()) */
};

/** The bits of a byte's state. */
enum {
    MEM_WRITER = 7,   /**< mask of the enum mem_writer */
    MEM_DERIVED = 8,  /**< an input of the grader's, or written by a kernel after it read one:
                           the host must never read it during a graded call */
    MEM_READ = 16,    /**< read by a kernel since mem_new_call() */
    MEM_GUARDED = 32, /**< a guard byte: no kernel should touch it (mem_guard()) */
    MEM_CHANGED = 64, /**< (answers only) the byte no longer holds the value its writer left */
    MEM_ANSWER = 128, /**< (mem_read_by_kernel's answer only) set, so that MEM_NOBODY is not 0 */
    MEM_SAW_DERIVED = 256, /**< (mem_read_by_kernel's answer only) a byte read was MEM_DERIVED */
};

/** Fills of non-zero bytes an allocation may take in a graded call and still count as
 *  constants (MEM_FILL); later ones count as the host's data (MEM_HOST). Zero fills always
 *  count as constants. */
#define MEM_FILL_CONSTANTS 1

/** What the record says of a range (mem_provenance()). */
struct mem_prov {
    uint64_t read;        /**< bytes a kernel read since mem_new_call() */
    int64_t first_other;  /**< first byte neither a kernel's nor the grader's, holding the value
                               its writer left, or -1 */
    uint8_t other_state;  /**< its state, with MEM_CHANGED when its value is not its writer's */
    int64_t first_unread; /**< first byte not read since mem_new_call(), or -1 */
};

#endif /* EMU_PUBLIC_PROV_H */
