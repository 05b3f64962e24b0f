/**
 * @file vm.h
 * @brief The PTX virtual machine: load a module once, launch its kernels.
 *
 * vm_load() parses PTX text and decodes every instruction into a compact
 * form; vm_launch() runs a grid on the CPU, one warp at a time, against the
 * device memory of mem.h. Nothing here knows about the CUDA runtime, sockets
 * or processes: the device server (server.c) calls these two and reports.
 *
 * An instruction the VM cannot execute is decoded as "unsupported" and fails
 * the launch that reaches it, naming the opcode and its source line; a
 * module is refused outright only when its text cannot be parsed.
 */
#ifndef EMU_VM_H
#define EMU_VM_H

#include <stddef.h>
#include <stdint.h>

#include "emu_counts.h"
#include "mem.h"

struct vm_module;
struct vm_model;
struct vm_cdp;

/** One kernel parameter: where it sits in the parameter buffer. */
struct vm_param {
    uint32_t offset; /**< byte offset in the buffer */
    uint32_t size;   /**< bytes */
};

/** What the runtime needs to know about a kernel to launch it. */
struct vm_kernel {
    const char *name;              /**< the .entry name (mangled) */
    uint32_t nparams;              /**< parameters */
    const struct vm_param *params; /**< nparams of them, in order */
    uint32_t param_bytes;          /**< size of the parameter buffer */
    uint32_t static_smem;          /**< .shared bytes: its own and the module ones it uses */
    uint32_t local_bytes;          /**< bytes of .local per thread */
    uint32_t maxntid;              /**< .maxntid product, 0 when not given */
    uint32_t reqntid[3];           /**< .reqntid, zeros when not given */
    uint32_t cluster[3];       /**< .reqnctapercluster (__cluster_dims__), zeros when not given */
    uint32_t explicit_cluster; /**< 1: .explicitcluster (a launch must give cluster dims) */
    uint32_t max_cluster_rank; /**< .maxclusterrank, 0 when not given */
};

/** Checks a launch may run (./course sanitize); each costs time. */
enum vm_check {
    VM_CHECK_MEM = 1,    /**< memcheck: shared bounds, misalignment (global is always checked) */
    VM_CHECK_RACE = 2,   /**< racecheck: shared-memory hazards between barriers */
    VM_CHECK_SYNC = 4,   /**< synccheck: barriers and warp-sync masks */
    VM_CHECK_INIT = 8,   /**< initcheck: reads of memory nobody wrote */
    VM_CHECK_GLOBAL = 16 /**< racecheck for global memory: accesses no barrier, fence or atomic
                              orders (checks_global.c) */
};

/** The order a block's warps take turns in, each round (COURSE_EMU_SCHEDULE). Blocks always start
 *  in order: a look-back scan may rely on earlier blocks having started. */
enum vm_schedule {
    VM_SCHEDULE_FORWARD, /**< warp 0 first: the default */
    VM_SCHEDULE_REVERSE, /**< the last warp first: exposes code that depends on warp order */
    VM_SCHEDULE_SEEDED   /**< each round in an order drawn from vm_launch::seed and the block */
};

/** One kind of finding of the grader's provenance record: how many, and the first. */
struct vm_prov_hit {
    uint64_t count;  /**< accesses (lanes) that made it */
    uint64_t addr;   /**< the first one's address */
    unsigned state;  /**< and its byte's state (mem.h: writer and flags) */
    char where[400]; /**< and its place: kernel, file:line, block, thread */
};

/** What the provenance record found in a launch (vm_launch::prov). */
struct vm_prov {
    struct vm_prov_hit handed;  /**< reads of bytes the host wrote during the call (or that
                                     changed behind the device's back, or nobody wrote) */
    struct vm_prov_hit guard;   /**< reads and writes of guard bytes (mem_guard()) */
    struct vm_prov_hit exposed; /**< stores of what a kernel computed from an input into
                                     memory the host reaches (managed, pinned) */
    uint64_t stores;            /**< global stores made (lanes), of every kind: st, fragments,
                                     atomics, surfaces, asynchronous copies */
};

/** Add the findings of @p from (another block, a child grid, a launch) to @p to: counts add,
 *  the first of each kind stays. */
void vm_prov_merge(struct vm_prov *to, const struct vm_prov *from);

/** Allocations a footprint lists at most (struct vm_footprint). */
#define VM_FOOTPRINT_BLOCKS 16

/** The global memory a launch read and wrote, per allocation: the stream record's view of a
 *  kernel (vm_launch::prov), which a grader compares with what copies on other streams touch.
 *  An extent runs from the lowest byte accessed to past the highest, so it may hold bytes the
 *  kernel skipped. */
struct vm_footprint {
    uint32_t n;        /**< allocations in at[] */
    uint32_t overflow; /**< 1: the launch touched more allocations than at[] holds */
    struct vm_extent {
        uint64_t block;              /**< the allocation's first byte */
        uint64_t read_lo, read_hi;   /**< bytes read: [read_lo, read_hi), empty when lo >= hi */
        uint64_t write_lo, write_hi; /**< bytes written (atomics both read and write) */
    } at[VM_FOOTPRINT_BLOCKS];
};

/** Output callback: kernel printf text (print), or check reports (report), in order. */
typedef void (*vm_print_fn)(void *ctx, const char *text, size_t len);

/** The counters a launch fills. */
enum vm_count {
    VM_COUNT_NONE,
    VM_COUNT_ALL,
    VM_COUNT_MODEL /**< all but the unique bytes: the time model reads none of them, and the
                        set of every sector a launch touched costs it a sixth of its time */
};

/** One launch. */
struct vm_launch {
    const struct vm_module *module;
    uint32_t kernel;     /**< index from vm_find() */
    uint32_t grid[3];    /**< blocks */
    uint32_t block[3];   /**< threads per block */
    uint32_t dyn_smem;   /**< dynamic shared memory bytes */
    uint32_t smem_limit; /**< the most shared memory this launch may use */
    const void *params;  /**< param_bytes of arguments */
    struct emu_mem *mem; /**< device memory */
    unsigned checks;     /**< enum vm_check bits */
    int count;           /**< enum vm_count: which @ref vm_result::counters to fill */
    int prov;            /**< 1: keep the provenance record (mem values tracked), fill
                              @ref vm_result::prov */
    vm_print_fn print;   /**< printf output; NULL: stdout */
    void *print_ctx;
    vm_print_fn report; /**< check reports, one line each with a count; NULL: stderr */
    void *report_ctx;
    unsigned schedule; /**< enum vm_schedule */
    uint64_t seed;     /**< VM_SCHEDULE_SEEDED's seed */
    int cooperative;   /**< 1: cudaLaunchCooperativeKernel (every block resident, grid.sync()) */
    struct vm_model *model; /**< the time model (vm/model.h): it sees every block and global
                                 request and may skip blocks (sampling); NULL: off */
    struct vm_heap *heap;   /**< device malloc's heap; NULL: malloc returns NULL */
    uint32_t stack_bytes;   /**< cudaLimitStackSize: what recursion may use a thread; 0: 1 KiB */
    uint32_t pending_limit; /**< cudaLimitDevRuntimePendingLaunchCount: device-side launches that
                                 may wait at once (vm/cdp.c); 0: 2048 */
    uint32_t depth;         /**< 0 from the host; a device-side launch's grid: its parent's + 1 */
    struct vm_cdp *cdp;     /**< the launch tree's shared state (vm/cdp.c); NULL from the host */
    uint32_t cluster[3];    /**< blocks per thread-block cluster (vm/cluster.c); zeros: the kernel's
                                 .reqnctapercluster, or clusters of one block */
};

/** What a launch did. */
struct vm_result {
    enum vm_status status;
    char message[512];             /**< one line: what, kernel, file:line, block, thread */
    struct vm_counters counters;   /**< when asked */
    uint64_t reports;              /**< check findings, counted (leaks are the runtime's) */
    struct vm_prov prov;           /**< when asked */
    struct vm_footprint footprint; /**< with prov: what the launch touched in global memory */
};

/**
 * Parse and decode @p len bytes of PTX. Module-scope .global and .const
 * variables are allocated in @p mem and initialised. @p origin names the
 * module in messages. Returns 0, or -1 with one line in @p err.
 */
int vm_load(const char *ptx, size_t len, const char *origin, struct emu_mem *mem,
            struct vm_module **out, char *err, size_t err_size);

/** Free a module and its variables in @p mem. */
void vm_unload(struct vm_module *m, struct emu_mem *mem);

/** How many kernels (.entry) the module holds. */
uint32_t vm_kernel_count(const struct vm_module *m);

/** Kernel @p i. */
const struct vm_kernel *vm_kernel_info(const struct vm_module *m, uint32_t i);

/** Index of the kernel named @p name, or -1. */
int vm_find(const struct vm_module *m, const char *name);

/** Device address of module variable @p name (and its size in @p size), or 0. */
uint64_t vm_symbol(const struct vm_module *m, const char *name, uint64_t *size);

/** The host threads a launch's blocks may run on: COURSE_EMU_THREADS, or else the cores this
 *  process may run on. */
uint32_t vm_threads(void);

/** 1 when a function of @p m calls malloc or free (new and delete too): it needs a heap. */
int vm_uses_heap(const struct vm_module *m);

/** The device heap (vm/heap.c): its bookkeeping over the device range [addr, addr + size). */
struct vm_heap *vm_heap_create(uint64_t addr, uint64_t size);

/** Forget the bookkeeping (the device range is the caller's to free). */
void vm_heap_destroy(struct vm_heap *h);

/** Device malloc: a 16-byte aligned block of @p bytes, or 0 when the heap has no room. */
uint64_t vm_heap_alloc(struct vm_heap *h, uint64_t bytes);

/** Device free of @p addr: 0, -1 when no live block starts there inside the heap, -2 when the
 *  address is outside the heap. */
int vm_heap_free(struct vm_heap *h, uint64_t addr);

/** Run one grid to completion. Returns @ref vm_result::status. */
enum vm_status vm_launch(const struct vm_launch *l, struct vm_result *r);

#endif /* EMU_VM_H */
