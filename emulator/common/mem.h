/**
 * @file mem.h
 * @brief The emulated device memory: one address space for every emulated GPU.
 *
 * Device memory is a sparse memfd. The process that hands device pointers to
 * host code (the runtime stand-in) reserves an inaccessible range at @ref
 * emu_mem::base, so that a host dereference of a device pointer faults as it
 * would with a real GPU, and maps the same memfd a second time, readable and
 * writable, at @ref emu_mem::alias. Any other process (the device server) maps
 * only the alias. Both translate a device address with mem_host().
 *
 * Allocations are placed next-fit through a span far larger than the capacity,
 * so a freed range is not handed out again until the cursor wraps: a late
 * access through a freed pointer is reported as use after free, never as a
 * read of somebody else's data. The table of live blocks is sorted by
 * address; mem_find() is a binary search behind a one-entry cache. The span
 * may end in address space mem_alloc() leaves alone (@ref emu_mem::heap): the
 * driver's virtual memory management reserves ranges there and shows blocks'
 * memory in them (mem_map(), then mem_insert_view()).
 */
#ifndef EMU_MEM_H
#define EMU_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "emu_prov.h"

/** Allocation granularity and alignment (cudaMalloc guarantees 256 bytes). */
#define MEM_ALIGN 256
/** How many recent frees are remembered, to name a use after free. */
#define MEM_FREED_RING 4096

/** One allocation. */
struct mem_block {
    uint64_t addr;    /**< device address of the first byte */
    uint64_t size;    /**< bytes asked for (the reservation is rounded up to MEM_ALIGN) */
    int device;       /**< the emulated GPU it belongs to */
    uint8_t *state;   /**< per byte: who wrote it last, and flags (mem_track_writes), or NULL */
    uint8_t *shadow;  /**< per byte: the value that writer left (values tracked), or NULL */
    uint32_t fills;   /**< fills of non-zero bytes since mem_new_call() (values tracked) */
    int host_visible; /**< 1: the host reaches its bytes too (managed, pinned: mem_map()) */
    int view;         /**< 1: bytes another block holds, shown here (mem_insert_view()) */
};

/** The address space. Zero-initialise, then mem_create() or mem_attach(). */
struct emu_mem {
    uint64_t base;          /**< device address of the span's first byte */
    uint64_t span;          /**< bytes of address space */
    uint64_t heap;          /**< bytes at the span's start mem_alloc() places in (0: all) */
    uint64_t capacity;      /**< bytes that may be live at once (the reported memory size) */
    uint64_t used;          /**< bytes live now, rounded to MEM_ALIGN */
    uint64_t cursor;        /**< next-fit cursor, an offset into the span */
    uint8_t *alias;         /**< where the span is readable and writable in this process */
    void *reserve;          /**< the inaccessible reservation at base, or NULL (mem_attach) */
    int fd;                 /**< the memfd, -1 when none */
    struct mem_block *live; /**< live blocks sorted by address */
    size_t nlive, cap;
    struct mem_block freed[MEM_FREED_RING]; /**< recent frees, a ring */
    size_t nfreed;                          /**< frees so far (the ring holds the last ones) */
    size_t hint;                            /**< index of the block mem_find() hit last */
    int track; /**< 0, or who writes each byte (1), and the values they left too (2) */
};

/**
 * Create a span of @p span bytes of which @p capacity may be live at once:
 * the memfd, the inaccessible reservation and the alias. Returns 0, or -1
 * with a one-line reason in @p err.
 */
int mem_create(struct emu_mem *m, uint64_t span, uint64_t capacity, char *err, size_t err_size);

/**
 * Map the alias of a span another process created (its memfd @p fd, device
 * base @p base). No reservation is made. Returns 0, or -1 with @p err.
 */
int mem_attach(struct emu_mem *m, int fd, uint64_t base, uint64_t span, uint64_t capacity,
               char *err, size_t err_size);

/**
 * Show, at [@p addr, @p addr + @p bytes) of this process's alias (page-aligned), the memory
 * of another span's memfd @p fd from @p offset on (CUDA IPC: an allocation of another
 * process); with @p fd -1, this span's own memory again. Returns 0, or -1 (errno says why).
 */
int mem_map(struct emu_mem *m, uint64_t addr, uint64_t bytes, int fd, uint64_t offset);

/** Unmap everything and free the tables. */
void mem_destroy(struct emu_mem *m);

/**
 * Allocate @p bytes (at least 1) for @p device. Returns the device address,
 * or 0 when the capacity would be exceeded.
 */
uint64_t mem_alloc(struct emu_mem *m, uint64_t bytes, int device);

/**
 * Record a block another process allocated in the same span (a mirror of its
 * table). Returns 0, or -1 when it overlaps a live block or leaves the span.
 */
int mem_insert(struct emu_mem *m, uint64_t addr, uint64_t bytes, int device);

/**
 * Record a view: [@p addr, @p addr + @p bytes) shows memory that another block holds (mapped
 * there with mem_map(), as the driver's cuMemMap does). A view counts nothing in
 * emu_mem::used, and freeing it gives no pages back (they are the other block's). Returns as
 * mem_insert().
 */
int mem_insert_view(struct emu_mem *m, uint64_t addr, uint64_t bytes, int device);

/**
 * Free the block that starts at @p addr and give its pages back (a view's are
 * another block's: they stay). Returns 0, or -1 when no live block starts there.
 */
int mem_free(struct emu_mem *m, uint64_t addr);

/** The live block that holds all of [addr, addr + bytes), or NULL. */
const struct mem_block *mem_find(struct emu_mem *m, uint64_t addr, uint64_t bytes);

/** A recently freed block that held @p addr, or NULL. */
const struct mem_block *mem_find_freed(const struct emu_mem *m, uint64_t addr);

/**
 * Start recording who writes each byte of every block allocated from now on: initcheck's
 * record, and with @p values the values each writer left too (the grader's provenance: a
 * value that differs was written behind the device's back, through a host mapping). Every
 * allocation starts MEM_NOBODY; mem_free() forgets the block's record.
 */
void mem_track_writes(struct emu_mem *m, int values);

/**
 * Record that @p who (with MEM_DERIVED, when the bytes come from an input) wrote [addr, addr +
 * bytes); the values kept are those the range holds, except for MEM_KERNEL, whose store has not
 * happened yet: mem_keep_values(), or mem_shadow(), once it has. No-op unless tracking; a range
 * outside every block is ignored. Returns 1 when the range holds a guard byte.
 */
int mem_mark_written(struct emu_mem *m, uint64_t addr, uint64_t bytes, enum mem_writer who);

/** Keep the values [addr, addr + bytes) holds now as its writer's (after a kernel's store). */
void mem_keep_values(struct emu_mem *m, uint64_t addr, uint64_t bytes);

/** Where the record keeps the values of [addr, addr + bytes), which one block holds, or NULL:
 *  a store writes its values there too, as it makes them. */
uint8_t *mem_shadow(struct emu_mem *m, uint64_t addr, uint64_t bytes);

/** Record a fill of [addr, addr + bytes) with byte @p value: a constant (MEM_FILL) when the
 *  byte is zero or the block took at most MEM_FILL_CONSTANTS non-zero fills in this call, else
 *  the host's data (MEM_HOST). */
void mem_mark_filled(struct emu_mem *m, uint64_t addr, uint64_t bytes, uint8_t value);

/** The offset of the first byte of [addr, addr + bytes) that is MEM_DERIVED (the host reads it:
 *  an input, or what a kernel computed from one), or -1. */
int64_t mem_first_derived(struct emu_mem *m, uint64_t addr, uint64_t bytes);

/** Record a device-to-device copy: the destination takes the source's writers and values. */
void mem_mark_copied(struct emu_mem *m, uint64_t dst, uint64_t src, uint64_t bytes);

/** Mark [addr, addr + bytes) as guard bytes: mem_read_by_kernel() answers MEM_GUARDED there. */
void mem_guard(struct emu_mem *m, uint64_t addr, uint64_t bytes);

/** A new graded call starts: clear every byte's MEM_READ, and every block's count of fills. */
void mem_new_call(struct emu_mem *m);

/**
 * A kernel reads [addr, addr + bytes): mark it MEM_READ; return 0 when every byte was written
 * by a kernel, a fill, a module or the grader, and holds its writer's value; else MEM_ANSWER
 * with the state of the first byte that was not (written by the host or nobody; MEM_CHANGED
 * when its value is not its writer's, MEM_GUARDED on a guard byte). MEM_SAW_DERIVED is added
 * when a byte is MEM_DERIVED. 0 unless values are tracked.
 */
unsigned mem_read_by_kernel(struct emu_mem *m, uint64_t addr, uint64_t bytes);

/** What the record says of [addr, addr + bytes), which one block holds, into @p p. */
void mem_provenance(struct emu_mem *m, uint64_t addr, uint64_t bytes, struct mem_prov *p);

/** The offset of the first byte of [addr, addr + bytes) never written, or -1 (and -1 when
 *  not tracking). */
int64_t mem_first_unwritten(struct emu_mem *m, uint64_t addr, uint64_t bytes);

/** Where device address @p addr lives in this process (no check: mem_find() first). */
static inline void *mem_host(const struct emu_mem *m, uint64_t addr)
{
    return m->alias + (addr - m->base);
}

/** 1 when @p addr lies in the span at all. */
static inline int mem_in_span(const struct emu_mem *m, uint64_t addr)
{
    return addr - m->base < m->span;
}

#endif /* EMU_MEM_H */
