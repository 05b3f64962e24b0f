/**
 * @file emu_counts.h
 * @brief What the emulator counts in a launch, and how a launch ended: the types its public
 *        API (emu.h) hands over and the VM (vm/vm.h) fills.
 */
#ifndef EMU_PUBLIC_COUNTS_H
#define EMU_PUBLIC_COUNTS_H

#include <stdint.h>

/** Instruction classes the counters split thread instructions into. */
enum vm_class {
    VM_CLASS_FMA32,   /**< fp32 fma / mad */
    VM_CLASS_FP,      /**< other floating point (add, mul, div, sqrt, approximations, f64) */
    VM_CLASS_INT,     /**< integer, logic, compare, select, move, convert */
    VM_CLASS_LDG,     /**< global loads (and generic loads that hit global) */
    VM_CLASS_STG,     /**< global stores, atomics */
    VM_CLASS_LDS,     /**< shared loads */
    VM_CLASS_STS,     /**< shared stores */
    VM_CLASS_TENSOR,  /**< wmma / mma / ldmatrix */
    VM_CLASS_CONTROL, /**< branches, barriers, exits, warp-level synchronisation */
    VM_CLASS_OTHER,   /**< local and param memory, shuffles, votes, everything else */
    VM_CLASS_COUNT
};

/**
 * Counters of one launch: what Nsight Compute's instruction and memory
 * sections report, counted exactly. A request is one warp-level memory
 * instruction; a sector is an aligned 32-byte piece of global memory; a
 * wavefront is one pass through the 32 shared-memory banks.
 */
struct vm_counters {
    uint64_t warp_insts;                   /**< warp-level instructions issued */
    uint64_t thread_insts;                 /**< summed over active lanes (predicated-off too) */
    uint64_t class_insts[VM_CLASS_COUNT];  /**< per class, over lanes whose predicate is on */
    uint64_t gld_requests, gld_sectors;    /**< global loads */
    uint64_t gst_requests, gst_sectors;    /**< global stores and atomics */
    uint64_t lds_requests, lds_wavefronts; /**< shared loads */
    uint64_t sts_requests, sts_wavefronts; /**< shared stores */
    uint64_t unique_read_bytes;            /**< distinct global sectors read, times 32 */
    uint64_t unique_write_bytes;           /**< distinct global sectors written, times 32 */
    uint64_t barriers;                     /**< bar.sync executed (per warp) */
    uint64_t branches;                     /**< branch instructions (per warp) */
    uint64_t divergent_branches;           /**< branches that split the warp */
    uint64_t flops;                        /**< floating-point operations (an FMA is 2) */
    uint64_t gatom_lanes;      /**< atomic updates (atom, red) of global memory, per lane */
    uint64_t satom_lanes;      /**< atomic updates of shared memory, per lane */
    uint64_t gatom_same_addr;  /**< global atomic lanes whose address an earlier lane of the same
                                    instruction updates too: the updates that serialise */
    uint64_t satom_same_addr;  /**< the same for shared atomics */
    uint64_t gatom_addrs;      /**< distinct global addresses updated atomically */
    uint64_t tensor_flops;     /**< the flops of Tensor Core instructions (mma.sync, wmma.mma: 2 per
                                    multiply-add of their tile), also counted in flops */
    uint64_t lds_conflicts;    /**< shared-load wavefronts beyond the one each phase of a request
                                    needs (a phase: 32, 16 or 8 lanes for 4-, 8- or 16-byte
                                    accesses): bank conflicts, counted request by request */
    uint64_t sts_conflicts;    /**< the same for shared stores (cp.async's shared side included) */
    uint64_t overlapped_flops; /**< the tensor_flops of mma instructions issued while their warp
                                    had cp.async copies in flight (issued, not landed) */
    uint64_t tma_copies;       /**< bulk and tensor copies issued (cp.async.bulk{.tensor}, their
                                    reductions; per lane that issues one) */
    uint64_t tma_ld_bytes;     /**< bytes copies wrote into shared memory (fill included) */
    uint64_t tma_ld_sectors;   /**< global sectors copies read: the copy engine's traffic, never
                                    counted as thread loads (gld_*) */
    uint64_t tma_st_sectors;   /**< global sectors copies wrote (stores and reductions) */
    uint64_t wgmma_insts; /**< wgmma.mma_async instructions, one per warpgroup that issued one */
    uint64_t wgmma_flops; /**< their work: 2 M N K each (also counted in flops) */
    uint64_t wgmma_overlapped_flops; /**< the wgmma_flops of operations whose life met a bulk or
                                          tensor copy's: a copy of the block in flight for a
                                          warp as it issued the operation (issued, its mbarrier
                                          phase not yet seen complete by that warp), or issued
                                          between the operation's issue and the wait_group that
                                          retires it */
    uint64_t fp64_insts; /**< f64 arithmetic, compares, min and max (add, sub, mul, fma, div, rcp,
                              sqrt, rsqrt, setp, min, max) over lanes whose predicate is on, also
                              in class_insts[VM_CLASS_FP]: the FP64 units' work */
    uint64_t dmma_flops; /**< the tensor_flops of f64 mma.sync and wmma.mma (DMMA) */
    uint64_t sfu_insts;  /**< fp32 special functions (ex2, lg2, sin, cos, tanh, rcp, sqrt, rsqrt,
                              div: one MUFU operation each) over lanes whose predicate is on, also
                              in class_insts[VM_CLASS_FP] */
    uint64_t wgmma_8bit_flops; /**< the wgmma_flops of operations on 8-bit inputs (e4m3, e5m2,
                                    s8, u8), which Hopper runs at twice the 16-bit rate */
};

/** How a launch ended. */
enum vm_status {
    VM_OK = 0,
    VM_BAD_LAUNCH,  /**< invalid configuration: block too large, too much shared memory */
    VM_FAULT,       /**< out of bounds, misaligned, freed memory */
    VM_TRAP,        /**< trap or brkpt */
    VM_ASSERT,      /**< a failed assert() in device code */
    VM_UNSUPPORTED, /**< an instruction or feature the VM lacks */
    VM_DEADLOCK     /**< every live thread waits and no barrier can complete */
};

#endif /* EMU_PUBLIC_COUNTS_H */
