/**
 * @file model_code.h
 * @brief What the time model (model.h) reads from a kernel's decoded code rather than from its
 *        execution: which global loads a warp has in flight together, how many SASS
 *        instructions the GPU issues for each PTX instruction, and which atomics ptxas sums over
 *        a warp before sending one update.
 */
#ifndef EMU_MODEL_CODE_H
#define EMU_MODEL_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "vm_impl.h"

/**
 * The loads in flight together (memory-level parallelism) of kernel @p kernel of @p mod: for
 * each of its instructions (index from the function's first), 0 for anything but a global
 * load, else the size of the load's batch. A batch is the run of global loads a warp issues
 * before an instruction reads (or overwrites) a register one of them loads, or the code
 * branches, joins (a branch target), waits at a barrier or exits: the loads a GPU has in
 * flight at once for that warp, since an SM stalls a warp only at the first use of a load's
 * result (scoreboarding), not at the load. At most 255; the caller frees the array.
 */
uint8_t *model_batches(const struct vm_module *mod, uint32_t kernel);

/** How ptxas issues an atomic (model_warp_sums()): one update a lane, or one a warp. */
enum model_warp_sum {
    WARP_SUM_NONE, /**< every lane's update goes to memory */
    WARP_SUM_ANY,  /**< the warp's values are combined first (REDUX, POPC), one update a warp */
    WARP_SUM_FULL, /**< the same when all 32 lanes take part, else one a lane (a SHFL scan) */
    WARP_SUM_INC   /**< a shared increment by the immediate 1 whose result is unused (ptxas's
                        ATOMS.POPC.INC from sm_80 on; sm_75's is ATOMS.ADD, not told apart):
                        each address's lanes counted and added at once */
};

/**
 * For each instruction of kernel @p kernel (index from the function's first), how ptxas issues it
 * if it is an atomic on global or shared memory: NVIDIA's compiler sums a warp's updates before
 * sending one when it can prove the address the same for every lane (a kernel parameter, the
 * block's index, arithmetic on them: not a thread's index, nor anything loaded but a parameter),
 * for 32-bit integer add, min, max, and, or and xor whose result is unused (REDUX; on sm_75 a
 * butterfly of shuffles, full warps only: not modelled), an add whose value is the same for
 * every lane (POPC, 64-bit too), and a 32-bit add whose result is used, full warps only (a
 * scan of shuffles). Conservative where the code's flow could make a register differ across
 * lanes: a register written more than once when any branch depends on the lane. Seen in ptxas
 * 13.0's SASS for sm_75, sm_80 and sm_90. The caller frees the array.
 */
uint8_t *model_warp_sums(const struct vm_module *mod, uint32_t kernel);

/** The registers load @p in writes (arena offsets), appended to @p dst while fewer than
 *  @p room are there; returns how many @p dst holds then, from @p n before. */
int model_load_regs(const struct insn *in, uint32_t *dst, int n, int room);

/** The SASS instructions ptxas made of one source line of a kernel (tools/sass.py --lines). */
struct model_sass_line {
    const char *file; /**< the source file's name (its last path component is compared) */
    uint32_t line;
    uint32_t count;   /**< SASS instructions */
    uint32_t anchors; /**< of which fp32 arithmetic, global loads, stores and atomics */
    uint32_t imads;   /**< of which plain IMADs (32-bit integer multiply-adds) */
    uint32_t loads;   /**< of which global loads (LDG) */
    double waits;     /**< the waits of those loads: each 1/k, k the most loads in flight when
                           a warp first waits for one of them (tools/sass.py's line_counts()) */
};

/** One SASS instruction in model_sass_weights()'s fixed point: a warp's sums stay integers. */
#define SASS_ONE 65536u

/**
 * What each PTX instruction of kernel @p kernel costs in SASS instructions, in SASS_ONE units
 * (rounded to the nearest; an error under 1e-5 of an instruction). A source line's SASS
 * (from @p sass, @p n entries) is spread evenly over that line's PTX instructions, divided by
 * how much more ptxas unrolled the line than the PTX: the ratio of the line's anchors (fp32
 * add, mul and fma, global loads, stores and atomics, which ptxas neither merges nor splits)
 * in SASS to those in PTX; for a line without anchors, the ratio of its plain IMADs to its PTX
 * 32-bit mul.lo and mad.lo (at least 1), or else the kernel's anchors' ratio over the lines
 * that have them. 0 for a line ptxas left no instruction of. NULL (count PTX instructions) when
 * fewer than 90% of the SASS instructions fall on lines the PTX has (line information missing
 * or not matching). The caller frees the array.
 *
 * The same ratio scales @p batch (model_batches()'s, updated in place): ptxas hoists the loads of
 * the steps it unrolled over their uses, so a load line unrolled u times more in SASS has u
 * times its PTX batch in flight (at most 255).
 */
uint32_t *model_sass_weights(const struct vm_module *mod, uint32_t kernel,
                             const struct model_sass_line *sass, size_t n, uint8_t *batch);

/**
 * What each global load of kernel @p kernel costs a warp in waits, from @p sass (@p n entries):
 * its source line's SASS waits over its SASS loads (1/8 for a load ptxas issues with 7 others
 * before the first use of any, 1 for one that waits alone), or 1 over its batch (@p batch,
 * model_sass_weights()'s) on a line the SASS has no loads for; 0 for other instructions. NULL
 * without SASS. The caller frees the array.
 */
float *model_load_waits(const struct vm_module *mod, uint32_t kernel,
                        const struct model_sass_line *sass, size_t n, const uint8_t *batch);

#endif /* EMU_MODEL_CODE_H */
