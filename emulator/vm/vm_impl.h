/**
 * @file vm_impl.h
 * @brief The VM's inside: the decoded form, the execution state, the opcode families.
 *
 * Decoding (decode.c) turns every PTX instruction into one `struct insn`: an
 * opcode from opcodes.h, already specialised by type and modifiers, whose
 * operands are byte offsets into a warp's register arena. The arena holds,
 * for every virtual register, one slot per lane side by side (lane l of a
 * 32-bit register is `((uint32_t *)(regs + off))[l]`), so an instruction is
 * a short loop over 32 lanes that the compiler vectorises. Predicates are
 * one 32-bit lane mask each. Immediates and special registers (%tid.x, ...)
 * are registers too, filled before the warp runs: no operand is ever
 * interpreted at run time.
 *
 * Execution (exec.c) runs blocks in launch order, one per host thread at a
 * time (COURSE_EMU_THREADS of them), and, inside a block, one warp at a time
 * until the warp waits at a barrier or exits. A warp whose lanes took
 * different branches keeps one program counter per lane and always runs the
 * group of lanes with the lowest one, so the groups meet again where the
 * branches join.
 */
#ifndef EMU_VM_IMPL_H
#define EMU_VM_IMPL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "fp.h"
#include "vm.h"

/* ---- opcodes ------------------------------------------------------------------- */

#define OP(name, klass, spelling) OP_##name,
/** Every decoded opcode (opcodes.h lists them with their manuals). */
enum op {
#include "opcodes.h"
    OP_COUNT
};
#undef OP

/* ---- the decoded form ------------------------------------------------------------ */

/** Operand slots of an instruction; wider lists (wmma fragments) live in the module's pool. */
#define INSN_OPS 6

/** Marks an absent guard or operand. */
#define NO_REG UINT32_MAX

/** Memory state spaces. */
enum space { SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST };

/** Generic-address windows of shared and local memory (global addresses are the device
 *  addresses of mem.h, which never fall here: the VM checks). */
#define SHARED_WINDOW (1ull << 32)
#define LOCAL_WINDOW (2ull << 32)
#define WINDOW_SIZE (1ull << 32)
/** The generic window of a kernel's parameters (cvta.param: a __grid_constant__ parameter's
 *  address, such as a tensor map's), read-only. */
#define PARAM_WINDOW (3ull << 32)

/** Compare operators of setp / set, in insn.mod's low byte. */
enum cmp {
    CMP_EQ,
    CMP_NE,
    CMP_LT,
    CMP_LE,
    CMP_GT,
    CMP_GE,
    CMP_LO,
    CMP_LS,
    CMP_HI,
    CMP_HS,
    CMP_EQU,
    CMP_NEU,
    CMP_LTU,
    CMP_LEU,
    CMP_GTU,
    CMP_GEU,
    CMP_NUM,
    CMP_NAN
};

/** Types of the general converter (OP_CVT), 5 bits each in insn.mod. */
enum ctype {
    CT_U8,
    CT_U16,
    CT_U32,
    CT_U64,
    CT_S8,
    CT_S16,
    CT_S32,
    CT_S64,
    CT_F16,
    CT_BF16,
    CT_F32,
    CT_F64,
    CT_TF32
};

/** Fields of a memory instruction's insn.mod (ld, st, atom, ...). */
#define MEM_COUNT(mod) ((mod)&15)          /**< vector elements */
#define MEM_SIGNED(mod) (((mod) >> 4) & 1) /**< sign-extend a narrow load */
#define MEM_BASE32(mod) (((mod) >> 6) & 1) /**< the base register is 32 bits */
#define MEM_DST64(mod) (((mod) >> 5) & 1)  /**< the destination registers are 64 bits */
#define MEM_SIGNED_BIT (1u << 4)
#define MEM_DST64_BIT (1u << 5)
#define MEM_BASE32_BIT (1u << 6)
#define MEM_CONST(mod) (((mod) >> 7) & 1) /**< a .const load: the constant cache, no sectors */
#define MEM_CONST_BIT (1u << 7)
/** The memory-model qualifiers of a ld or st (MEM_ORDER) or an atom (ATOM_ORDER), for the global
 *  racecheck: strong (.volatile, .relaxed, .acquire, .release; every atom), only inside the
 *  block (.cta scope), a release (the thread's earlier accesses are ordered before it). */
enum { MEM_STRONG = 1, MEM_CTA = 2, MEM_RELEASE = 4 };
#define MEM_ORDER_SHIFT 8
#define MEM_ORDER(mod) (((mod) >> MEM_ORDER_SHIFT) & 7)

/** The video instructions' operation (OP_VOP1/2/4's mod & 7) and fields: vset's compare
 *  (eq ne lt le gt ge), the signedness of d, a and b, .sat, .add (.min, .max: the scalar
 *  forms' other secondary operations) and the mask of the elements written (the scalar forms:
 *  the part of d merged, VIDEO_PART). The insn's imm holds the selectors, 3 bits per element
 *  from element 0: a's from bit 0, b's from bit 12 (the scalar forms: one VIDEO_PART each). */
enum video_op {
    VIDEO_ADD,
    VIDEO_SUB,
    VIDEO_AVRG,
    VIDEO_ABSDIFF,
    VIDEO_MIN,
    VIDEO_MAX,
    VIDEO_SET,
    VIDEO_SHIFT
};
#define VIDEO_OP(mod) ((mod)&7)
#define VIDEO_CMP(mod) (((mod) >> 3) & 7)
#define VIDEO_MASK(mod) (((mod) >> 12) & 15)
#define VIDEO_D_SIGNED (1u << 6)
#define VIDEO_A_SIGNED (1u << 7)
#define VIDEO_B_SIGNED (1u << 8)
#define VIDEO_SAT (1u << 9)
#define VIDEO_ACCUMULATE (1u << 10)
#define VIDEO_MIN_C (1u << 16)
#define VIDEO_MAX_C (1u << 17)
/** vshl and vshr (VIDEO_SHIFT, in vset's compare field): right or left, .wrap or .clamp. */
#define VIDEO_SHIFT_RIGHT (1u << 3)
#define VIDEO_SHIFT_WRAP (1u << 4)
/** vmad (OP_VMAD): VIDEO_A_SIGNED, VIDEO_B_SIGNED, VIDEO_SAT, .po, the product or c negated,
 *  and .shr7 (1) or .shr15 (2) in VMAD_SCALE. imm: the selectors, as the scalar forms'. */
#define VMAD_PO (1u << 18)
#define VMAD_NEG_AB (1u << 19)
#define VMAD_NEG_C (1u << 20)
#define VMAD_SCALE(mod) (((mod) >> 21) & 3)
/** A scalar video operand's part: the whole word, bytes 0-3 (1-4), half-words 0-1 (5-6). */
enum video_part { PART_WORD, PART_B0, PART_B1, PART_B2, PART_B3, PART_H0, PART_H1 };

/** Atomic operations (OP_ATOM's mod & 15) and fields. */
enum atom_op { AT_ADD, AT_MIN, AT_MAX, AT_INC, AT_DEC, AT_AND, AT_OR, AT_XOR, AT_EXCH, AT_CAS };
#define ATOM_MOD(op, type, space) ((op) | (type) << 4 | (space) << 9)
#define ATOM_OP(mod) ((mod)&15)
#define ATOM_TYPE(mod) (((mod) >> 4) & 31) /**< enum ctype */
#define ATOM_SPACE(mod) (((mod) >> 9) & 7)
#define ATOM_BASE32_BIT (1u << 12)
#define ATOM_ORDER_SHIFT 13
#define ATOM_ORDER(mod) (((mod) >> ATOM_ORDER_SHIFT) & 7) /**< MEM_CTA, MEM_RELEASE */

/** Element types of the tensor instructions. */
enum mma_type {
    MT_F16,
    MT_BF16,
    MT_TF32,
    MT_F32,
    MT_F64,
    MT_S8,
    MT_U8,
    MT_S32,
    MT_E4M3,
    MT_E5M2,
    MT_S4,
    MT_U4,
    MT_B1
};
/** Tile shapes of wmma: m16n16k16, m32n8k16, m8n32k16, m16n16k8, m8n8k4 (f64). */
enum wmma_shape { WS_16_16_16, WS_32_8_16, WS_8_32_16, WS_16_16_8, WS_8_8_4 };
/** Fields of a wmma.load / wmma.store insn.mod. */
#define WM_MOD(matrix, type, col, shape, space)                                                    \
    ((matrix) | (type) << 2 | (col) << 5 | (shape) << 6 | (space) << 9)
#define WM_MATRIX(mod) ((mod)&3) /**< 0 a, 1 b, 2 c or d */
#define WM_TYPE(mod) (((mod) >> 2) & 7)
#define WM_COL(mod) (((mod) >> 5) & 1)
#define WM_SHAPE(mod) (((mod) >> 6) & 7)
#define WM_SPACE(mod) (((mod) >> 9) & 7)
#define WM_BASE32_BIT (1u << 12)
/** Fields of a wmma.mma / mma.sync insn.mod: shape, the four types, the two layouts. */
#define MMA_MOD(shape, at, bt, ct, dt, acol, bcol)                                                 \
    ((shape) | (at) << 4 | (bt) << 8 | (ct) << 12 | (dt) << 16 | (acol) << 20 | (bcol) << 21)
#define MMA_SHAPE(mod) ((mod)&15)
#define MMA_AT(mod) (((mod) >> 4) & 15)
#define MMA_BT(mod) (((mod) >> 8) & 15)
#define MMA_CT(mod) (((mod) >> 12) & 15)
#define MMA_DT(mod) (((mod) >> 16) & 15)
#define MMA_ACOL(mod) (((mod) >> 20) & 1)
#define MMA_BCOL(mod) (((mod) >> 21) & 1)
/** mma.sync and wmma.mma .satfinite: s32 results clamped, not wrapped. */
/** min and max (f32, and the 16-bit forms of HALF_ARITH): .NaN (a NaN operand gives NaN) and
 *  .xorsign.abs (magnitudes compared, the result signed with the xor of the operands' signs). */
#define MINMAX_NAN (1u << 5)
#define MINMAX_XORSIGN (1u << 6)
/** barrier.sync without .aligned: its threads may reach it from different instructions (bar.sync,
 *  bar.red and bar.arrive are .aligned: every thread the same one). */
#define BAR_UNALIGNED_BIT (1u << 5)
#define MMA_SATFINITE_BIT (1u << 22)
/** 1-bit mma.sync: .xor.popc (else .and.popc). */
#define MMA_XOR_BIT (1u << 23)
/** mma.sp{::ordered_metadata}: A is sparse, half of K in its registers; the metadata register in
 *  insn.o[4], the sparsity selector in insn.imm. */
#define MMA_SPARSE_BIT (1u << 24)
/** mma.sync shapes (MMA_SHAPE when the opcode is OP_MMA_SYNC): m16n8kK, and m8n8k4 (f64, and
 *  Volta's f16), m8n8k16 (s8, u8), m8n8k32 (s4, u4) and m8n8k128 (b1). */
enum mma_shape {
    MS_16_8_16,
    MS_16_8_8,
    MS_16_8_4,
    MS_16_8_32,
    MS_8_8_4,
    MS_8_8_16,
    MS_8_8_32,
    MS_16_8_64,
    MS_8_8_128,
    MS_16_8_128,
    MS_16_8_256
};

/** Geometries of tex, suld and sust (the PTX names 1d, 2d, 3d, a1d, a2d, cube, acube). */
enum tex_geom { TG_1D, TG_2D, TG_3D, TG_A1D, TG_A2D, TG_CUBE, TG_ACUBE };
/** suld/sust's out-of-range modes (.trap, .clamp, .zero). */
enum { SURF_TRAP, SURF_CLAMP, SURF_ZERO };
/** Fields of OP_TEX's insn.mod: geometry, integer coordinates (tex returns a texel's bits
 *  whatever its destination type says: the object's format decides). */
#define TEX_MOD(geom, icoord) ((geom) | (icoord) << 3)
#define TEX_GEOM(mod) ((mod)&7)
#define TEX_ICOORD(mod) (((mod) >> 3) & 1)
/** OP_TLD4's component (r 0, g 1, b 2, a 3), above the TEX_MOD fields. */
#define TEX_COMP(mod) (((mod) >> 4) & 3)
/** Fields of OP_SULD / OP_SUST's insn.mod (insn.width: bytes per element). */
#define SURF_MOD(geom, count, mode) ((geom) | (count) << 3 | (mode) << 6)
#define SURF_GEOM(mod) ((mod)&7)
#define SURF_COUNT(mod) (((mod) >> 3) & 7)
#define SURF_MODE(mod) (((mod) >> 6) & 3)

/** Field helpers of OP_CVT's insn.mod. */
#define CVT_MOD(d, a, rnd, sat, ftz) ((d) | (a) << 5 | (rnd) << 10 | (sat) << 14 | (ftz) << 15)
#define CVT_D(mod) ((mod)&31)
#define CVT_A(mod) (((mod) >> 5) & 31)
#define CVT_RND(mod) (((mod) >> 10) & 15)
#define CVT_SAT(mod) (((mod) >> 14) & 1)
#define CVT_FTZ(mod) (((mod) >> 15) & 1)
/** The source register is 64-bit though the source type is narrower: its low bits convert. */
#define CVT_WIDE (1u << 16)

/** Fields of OP_CARRY_32 / OP_CARRY_64's insn.mod: the operation (add, sub, mad.lo, mad.hi),
 * whether it adds the lane's carry flag in (addc, subc, madc) and sets it (.cc), and whether
 * mad.hi's product is signed. */
enum { CARRY_ADD, CARRY_SUB, CARRY_MAD_LO, CARRY_MAD_HI };
#define CARRY_KIND(mod) ((mod)&3)
#define CARRY_IN (1u << 2)
#define CARRY_OUT (1u << 3)
#define CARRY_SIGNED (1u << 4)

/** One decoded instruction. */
struct insn {
    uint16_t op;          /**< enum op */
    uint8_t neg_guard;    /**< @!p */
    uint8_t width;        /**< access size in bytes (memory), vector count, or a sub-mode */
    uint32_t guard;       /**< arena offset of the guard predicate, or NO_REG */
    uint32_t o[INSN_OPS]; /**< operand arena offsets (d first), NO_REG where absent */
    int64_t imm;          /**< displacement, branch target, bit count, ... */
    uint32_t mod;         /**< opcode-specific modifiers (compare, rounding, shuffle mode, ...) */
    uint32_t line;        /**< index of the source location in the module's line table */
};

/** A source location from `.loc`: where, and where that was inlined (0: not inlined). */
struct srcloc {
    uint16_t file, ifile; /**< indexes into the module's file table */
    uint32_t line, iline; /**< 0: unknown */
    uint32_t up;          /**< the call site's own location, index + 1 (0: unknown) */
};

/** Register classes and their bytes per warp in the arena. */
enum { SLOT_PRED = 4, SLOT_32 = 32 * 4, SLOT_64 = 32 * 8 };

/** A value every lane of a register starts with (immediates, uniform specials). */
struct preset {
    uint32_t off;   /**< arena offset */
    uint32_t bytes; /**< SLOT_32 or SLOT_64 */
    uint64_t value; /**< the same in every lane */
};

/** Special registers whose value depends on the lane, the warp or the block. */
enum special {
    SR_TID_X,
    SR_TID_Y,
    SR_TID_Z,
    SR_NTID_X,
    SR_NTID_Y,
    SR_NTID_Z,
    SR_CTAID_X,
    SR_CTAID_Y,
    SR_CTAID_Z,
    SR_NCTAID_X,
    SR_NCTAID_Y,
    SR_NCTAID_Z,
    SR_LANEID,
    SR_WARPID,
    SR_NWARPID,
    SR_SMID,
    SR_NSMID,
    SR_GRIDID,
    SR_LANEMASK_EQ,
    SR_LANEMASK_LT,
    SR_LANEMASK_LE,
    SR_LANEMASK_GT,
    SR_LANEMASK_GE,
    SR_DYN_SMEM,
    SR_TOTAL_SMEM,
    SR_RESERVED_BEGIN, /* %reserved_smem_offset_begin, _end, _cap, _0, _1: the shared memory */
    SR_RESERVED_END,   /* CUDA reserves per block (cooperative groups' scratch at _1) */
    SR_RESERVED_CAP,
    SR_RESERVED_0,
    SR_RESERVED_1,
    SR_ENVREG1, /* %envreg1, %envreg2: the high and low halves of the grid workspace's address */
    SR_ENVREG2, /* (cooperative groups' grid.sync()), 0 unless the launch is cooperative */
    SR_CLUSTER_CTARANK,  /* the thread-block cluster's registers (vm/cluster.c): this block's */
    SR_CLUSTER_NCTARANK, /* rank in its cluster and the cluster's size */
    SR_CLUSTER_CTAID_X,
    SR_CLUSTER_CTAID_Y,
    SR_CLUSTER_CTAID_Z,
    SR_CLUSTER_NCTAID_X,
    SR_CLUSTER_NCTAID_Y,
    SR_CLUSTER_NCTAID_Z,
    SR_CLUSTERID_X,
    SR_CLUSTERID_Y,
    SR_CLUSTERID_Z,
    SR_NCLUSTERID_X,
    SR_NCLUSTERID_Y,
    SR_NCLUSTERID_Z,
    SR_IS_EXPLICIT_CLUSTER, /* a predicate: the launch gave cluster dimensions */
    SR_COUNT
};

/** One kernel or device function, decoded. */
struct func {
    struct vm_kernel info;      /**< what vm.h publishes */
    int is_entry;               /**< .entry (1) or .func (0) */
    uint32_t first, count;      /**< its instructions: module code[first .. first + count) */
    uint32_t arena_bytes;       /**< register arena per warp */
    uint32_t special[SR_COUNT]; /**< arena offset of each special register used, or NO_REG */
    struct preset *presets;     /**< constant registers */
    uint32_t npresets;
    uint32_t smem_static;       /**< bytes of static shared memory (module + kernel) */
    uint32_t smem_align;        /**< alignment of the dynamic shared memory that follows */
    uint32_t ret_off, ret_size; /**< a device function's return value in the call frame */
    struct reg_slot *regs;      /**< the .reg registers, saved and restored around a call when
                                     the kernel recurses */
    uint32_t nregs, capregs;
    uint32_t call_lo, call_hi;   /**< its parameters and its calls' in the call frame */
    uint32_t local_lo, local_hi; /**< its local memory in a lane's local frame */
    uint64_t address;            /**< what a vtable or function pointer holds for it */
};

/** A declared register: arena offset and SLOT_PRED, SLOT_32 or SLOT_64. */
struct reg_slot {
    uint32_t off, slot;
};

/** A module-scope variable (.global, .const) placed in device memory. */
struct var {
    char *name;
    uint64_t addr; /**< device address */
    uint64_t size;
};

/** A loaded module. */
struct vm_module {
    char *origin;      /**< for messages */
    struct insn *code; /**< every function's instructions, back to back */
    uint32_t ncode;
    struct func *funcs; /**< kernels first, then device functions */
    uint32_t nkernels, nfuncs;
    uint32_t *pool; /**< long operand lists (wmma fragments, call arguments) */
    uint32_t npool;
    struct srcloc *lines; /**< line table */
    uint32_t nlines;
    char **files; /**< .file names, indexed by PTX file number */
    uint32_t nfiles;
    char **texts; /**< instruction texts, for "unsupported" messages (by insn index) */
    struct var *vars;
    uint32_t nvars;
    uint16_t *func_at;    /**< the function each pc belongs to */
    uint32_t local_total; /**< bytes of every function's .local, per thread */
    uint32_t call_total;  /**< bytes of every call's parameters, per thread */
    int uses_heap;        /**< 1: a function calls malloc or free (vm_uses_heap()) */
    uint64_t grid_ws;     /**< the grid workspace %envreg1/2 point to (0: no kernel reads them) */
};

/** The shared memory CUDA reserves per block on sm_90 (cudaDevAttrReservedSharedMemoryPerBlock),
 *  placed after the program's own when a kernel asks where it is. */
#define RESERVED_SMEM 1024u

/* ---- execution state ------------------------------------------------------------- */

struct exec;

/** warp::bar_id of a lane waiting at a warp-synchronous instruction (ops_warp.c). */
#define WARP_SYNC_WAIT 255

/** Taken backward branches after which a warp yields to the block's other warps (exec.c); a
 *  handler that sets exec::back_branches to one less makes the warp's next one yield. */
#define YIELD_BRANCHES 4096

/** Backward branches after a strong load of global memory (.volatile, .relaxed, .acquire) before
 *  the warp yields: such a load is how a thread waits for a flag another block sets (a
 *  cooperative grid's grid.sync(), a look-back), and the blocks it waits for run sooner. */
#define SPIN_BRANCHES 64

/** How deep device-function calls may nest. */
#define CALL_DEPTH 16

/** One warp's state. */
struct warp {
    uint8_t *arena;       /**< every register of the kernel and of the functions it calls */
    uint8_t *regs;        /**< the running function's registers, in the arena */
    uint32_t pc;          /**< program counter of every live lane while converged */
    uint32_t live;        /**< lanes that exist and have not exited */
    uint32_t waiting;     /**< lanes stopped at a barrier */
    uint8_t diverged;     /**< lanes are at different pcs: lane_pc holds them */
    uint8_t bar_id[32];   /**< the barrier each waiting lane waits at */
    uint32_t lane_pc[32]; /**< per-lane pcs while diverged */
    uint32_t index;       /**< warp index in the block */
    uint8_t *local;       /**< local memory: lane l's frame at local + l * frame */
    uint8_t *call_params; /**< .param space of calls: lane l's at call_params + l * call_total */
    uint8_t depth[32];    /**< calls each lane is inside */
    uint32_t ret_pc[32][CALL_DEPTH];  /**< where each lane returns to */
    uint32_t ret_dst[32][CALL_DEPTH]; /**< where its return value goes (NO_REG: nowhere) */
    uint8_t *stack[32]; /**< a recursive kernel's saved frames, per lane (exec::recursive) */
    uint32_t stack_used[32], stack_cap[32];
    uint32_t stack_charged[32], stack_levels[32]; /**< against cudaLimitStackSize; levels deep */
    int32_t cdp_error[32];     /**< each lane's device-side cudaGetLastError (cdp.c) */
    struct async_queue *async; /**< its cp.async copies in flight (ops_async.c), or NULL */
    uint32_t carry; /**< each lane's carry flag (CC.CF: add.cc, addc, sub.cc, ...), bit l lane l */
};

/** Why the dispatch loop stopped running a group of lanes. */
enum event {
    EV_NONE = 0,  /**< fall through to pc + 1 */
    EV_BRANCH,    /**< the handler set a branch outcome */
    EV_EXIT,      /**< lanes exited */
    EV_BARRIER,   /**< lanes arrived at a barrier */
    EV_CALL,      /**< lanes entered a device function (branch_taken, branch_target) */
    EV_RET,       /**< lanes returned (branch_taken; each to ret_target) */
    EV_WARP_WAIT, /**< lanes x->bar_arrived wait at a warp-synchronous instruction for named
                       lanes elsewhere (0: the lanes waiting there joined the group instead) */
    EV_ERROR      /**< the launch failed: exec.result says why */
};

/** Per-launch execution context. */
struct exec {
    const struct vm_launch *launch;
    const struct vm_module *mod;
    const struct func *fn;
    const struct insn *code; /**< module code (pcs index it) */
    struct vm_result *result;
    struct emu_mem *mem;
    uint8_t *smem;           /**< this block's shared memory */
    uint32_t smem_bytes;     /**< the block's shared memory, reserved part included */
    uint32_t ctaid[3];       /**< this block */
    uint32_t nthreads;       /**< threads per block */
    uint32_t local_frame;    /**< local bytes per thread (every function's) */
    int recursive;           /**< 1: a function the kernel reaches calls itself, directly or not:
                                  every call saves the callee's frame on the lane's stack */
    uint32_t stack_limit;    /**< bytes of that stack a thread may use (cudaLimitStackSize) */
    const uint8_t *params;   /**< kernel parameter buffer */
    uint32_t branch_taken;   /**< set by a branch handler: lanes that jump */
    uint32_t branch_target;  /**< and where */
    uint32_t exited;         /**< set by an exit handler */
    uint32_t ret_target[32]; /**< set by a return handler: where each returning lane goes */
    uint32_t call_again;     /**< an indirect call's lanes bound for another function */
    const uint32_t *fbase;   /**< each function's registers in the warp arena (NO_REG: unused) */
    uint32_t bar_arrived;    /**< set by a barrier handler: lanes that now wait */
    uint8_t bar_id;          /**< and at which barrier */
    uint32_t bar_count[16];  /**< threads a barrier waits for (0: the whole block) */
    uint32_t bar_nowait[16]; /**< threads that arrived without waiting (bar.arrive) */
    uint64_t clock;          /**< instructions issued, the %clock of this emulation */
    struct vm_counters *cnt; /**< counters, or NULL */
    struct vm_model *model;  /**< the time model this block feeds, or NULL (exec.c) */
    void *count_state;       /**< count.c's sets of sectors seen */
    void *check_state;       /**< checks.c's records, when the launch runs checks */
    void *async_state;       /**< checks_async.c's records (the asynchronous proxy's) */
    void *grace;             /**< checks_global.c's records, the launch's plan's (one per launch) */
    struct prov_pending {    /**< prov.c's stores whose values are not kept yet */
        uint64_t addr[32];
        unsigned bytes[32];
        int n;
    } prov_pending;
    int prov_derived;       /**< prov.c: the block read an input, or what was computed from one */
    uint8_t prov_sink[64];  /**< prov.c: where stores outside the record keep their values */
    uint32_t reserved_smem; /**< where the reserved shared memory begins */
    uint32_t back_branches; /**< taken backward branches since a warp last yielded */
    uint64_t writes;        /**< stores, and atomics that changed memory: a block's progress */
    size_t warp_bytes;      /**< each warp's arena, local frames and call parameters */
    uint64_t spin_state;    /**< the block's fingerprint when its warps last yielded (0: none) */
    uint32_t bar_true[16];  /**< bar.red: threads that arrived with the predicate true */
    uint32_t bar_false[16]; /**< and false */
    struct warp *warps;     /**< this context's block's warps */
    uint32_t nwarps;
    uint8_t *arena;           /**< their registers, local frames and call parameters */
    struct grid *grid;        /**< what contexts running at once share (exec.c); NULL: one */
    pthread_mutex_t *atomics; /**< held by a global atomic while several contexts run, or NULL */
    uint64_t block;           /**< this block's place in launch order (x fastest) */
    uint64_t rng;             /**< the seeded schedule's state */
    uint32_t worker;          /**< which thread of the launch runs this context */
    int stalled;              /**< a resident block yielded where it yielded last time */
    int ahead;                /**< a stalled block may run beside later ones (run_beside()) */
    struct grid *queue;       /**< where the launch's blocks are handed out (exec.c), or NULL */
    struct cdp_grid *cdp;     /**< the grid's device-side launches and copies (cdp.c), or NULL */
    struct cluster *cluster;  /**< the blocks this one runs beside (cluster.c); NULL: none yet */
    struct hopper *hop;       /**< warpgroups' wgmma queues and the like (hopper.h), made on first
                                   use; NULL in a kernel with no sm_90 warpgroup instruction */
    uint32_t wgmma_watch;     /**< registers wgmmas in flight own, watched for accesses
                                   (ops_wgmma.c); 0 outside warpgroup MMA kernels */
};

/** Bracket a global atomic's read-modify-writes: no other thread's atomic comes between. */
static inline void vm_atomics_lock(struct exec *x)
{
    if (x->atomics)
        pthread_mutex_lock(x->atomics);
}

static inline void vm_atomics_unlock(struct exec *x)
{
    if (x->atomics)
        pthread_mutex_unlock(x->atomics);
}

/** A handler executes one instruction for the lanes in @p mask. */
typedef enum event (*op_fn)(struct exec *x, struct warp *w, const struct insn *in, uint32_t mask);

/** The handler of every opcode (vm_ops.c joins the families' tables). */
extern const op_fn vm_ops[OP_COUNT];
/** The instruction class of every opcode, for the counters. */
extern const uint8_t vm_op_class[OP_COUNT];
/** The PTX spelling of every opcode, for messages. */
extern const char *const vm_op_names[OP_COUNT];

/* ---- helpers shared by the families ---------------------------------------------- */

#define FULL_MASK 0xFFFFFFFFu

/** Lane l's slot of the 32-bit register at arena offset @p off. */
#define R32(w, off) ((uint32_t *)((w)->regs + (off)))
#define RF32(w, off) ((float *)((w)->regs + (off)))
#define RS32(w, off) ((int32_t *)((w)->regs + (off)))
#define R64(w, off) ((uint64_t *)((w)->regs + (off)))
#define RF64(w, off) ((double *)((w)->regs + (off)))
#define RS64(w, off) ((int64_t *)((w)->regs + (off)))
/** The predicate (a lane mask) at arena offset @p off. */
#define PRED(w, off) (*(uint32_t *)((w)->regs + (off)))

/**
 * Run the body (the arguments after M) for every lane l in mask M: a branch-free loop the
 * compiler can vectorise when all 32 lanes run, a walk over the set bits otherwise.
 */
#define LANES(M, ...)                                                                              \
    do {                                                                                           \
        uint32_t lanes_m_ = (M);                                                                   \
        if (lanes_m_ == FULL_MASK) {                                                               \
            for (int l = 0; l < 32; l++) {                                                         \
                __VA_ARGS__;                                                                       \
            }                                                                                      \
        } else {                                                                                   \
            for (; lanes_m_; lanes_m_ &= lanes_m_ - 1) {                                           \
                int l = __builtin_ctz(lanes_m_);                                                   \
                __VA_ARGS__;                                                                       \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/** The lanes of @p w that wait at barrier @p b (WARP_SYNC_WAIT: at a warp-synchronous
 *  instruction): one branch-free pass over the lanes. */
static inline uint32_t vm_lanes_at(const struct warp *w, uint32_t b)
{
    uint32_t at = 0;
    for (int l = 0; l < 32; l++)
        at |= (uint32_t)(w->bar_id[l] == b) << l;
    return at & w->waiting;
}

/** Compare bits @p r (a bit a lane) of a setp or set combined with its optional predicate c by
 *  its boolean op (mod bits 8-9: none, .and, .or, .xor; c negated by bit 12). */
static inline uint32_t vm_cmp_combine(const struct warp *w, const struct insn *in, uint32_t r)
{
    uint32_t op = (in->mod >> 8) & 3;
    uint32_t c = in->o[4] != NO_REG ? PRED(w, in->o[4]) : 0;
    if ((in->mod >> 12) & 1)
        c = ~c;
    return op == 1 ? r & c : op == 2 ? r | c : op == 3 ? r ^ c : r;
}

/** setp's predicates, for lanes @p m: p from compare bits @p rp and q from @p rq (the same
 *  compare negated; a pair's high halves for f16x2 and bf16x2), each combined with c
 *  (vm_cmp_combine()). */
static inline void vm_setp_store(struct warp *w, const struct insn *in, uint32_t m, uint32_t rp,
                                 uint32_t rq)
{
    uint32_t p = vm_cmp_combine(w, in, rp), q = vm_cmp_combine(w, in, rq);
    PRED(w, in->o[0]) = (PRED(w, in->o[0]) & ~m) | (p & m);
    if (in->o[1] != NO_REG)
        PRED(w, in->o[1]) = (PRED(w, in->o[1]) & ~m) | (q & m);
}

/** set's destination, for lanes @p m: @p one where compare bits @p r, combined with c
 *  (vm_cmp_combine()), hold, else 0. */
static inline void vm_set_store(struct warp *w, const struct insn *in, uint32_t m, uint32_t r,
                                uint32_t one)
{
    uint32_t *d = R32(w, in->o[0]);
    r = vm_cmp_combine(w, in, r);
    LANES(m, d[l] = (r >> l & 1) ? one : 0);
}

/* ---- messages (diag.c) ---------------------------------------------------------------------- */

/**
 * Fail the launch: fill x->result with @p status and a message naming the
 * kernel, the source line of @p in, the block and lane @p lane's thread.
 * Returns EV_ERROR so handlers can `return vm_fail(...)`.
 */
enum event vm_fail(struct exec *x, const struct warp *w, const struct insn *in, int lane,
                   enum vm_status status, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/** The running kernel's name, demangled, into @p buf (diag.c). */
const char *vm_kernel_name(const struct exec *x, char *buf, size_t size);

/** "in KERNEL at FILE:LINE, block (..), thread (..)" for lane @p lane of @p w at @p in. */
const char *vm_describe(const struct exec *x, const struct warp *w, const struct insn *in, int lane,
                        char *buf, size_t size);

/** "file:line" of instruction @p in, into @p buf. */
const char *vm_where(const struct vm_module *m, const struct insn *in, char *buf, size_t size);

/** The thread index (x, y, z) of lane @p lane of warp @p w, in the current block. */
void vm_thread_of(const struct exec *x, const struct warp *w, int lane, uint32_t tid[3]);

/* ---- dynamic parallelism (cdp.c) ------------------------------------------------------------ */

/** The libcudadevrt functions the VM answers (OP_CDP's insn.mod; decode_ctrl.c names them). */
enum cdp_fn {
    CDP_GET_PARAMETER_BUFFER, /* (func, gridDim, blockDim, smem) -> buffer or NULL */
    CDP_LAUNCH,               /* (buffer, stream) -> error */
    CDP_STREAM_CREATE,        /* (cudaStream_t *, flags) -> error */
    CDP_STREAM_DESTROY,       /* (stream) -> error */
    CDP_GET_LAST_ERROR,       /* () -> the thread's last error, which is reset */
    CDP_PEEK_LAST_ERROR,      /* () -> the same, kept */
    CDP_GET_ERROR_STRING,     /* (error) -> a device string */
    CDP_MALLOC,               /* (void **, bytes) -> error */
    CDP_FREE,                 /* (ptr) -> error */
    CDP_MEMCPY_ASYNC,         /* (dst, src, bytes, kind, stream) -> error */
    CDP_GET_DEVICE,           /* (int *) -> error */
    CDP_COUNT
};

/** The __cudaCDP2* function @p name is (dynamic parallelism, cdp.c: OP_CDP's mod), or -1. */
int vm_cdp_builtin(const char *name);
/** The launch tree's shared state, made by a host launch's vm_launch(), and its end. */
struct vm_cdp *vm_cdp_begin(void);
void vm_cdp_end(struct vm_cdp *c, struct vm_heap *heap);
/** Run a grid. */
typedef enum vm_status (*vm_launch_fn)(const struct vm_launch *l, struct vm_result *r);
/** After the blocks of a grid of launch @p L: run the device-side work @p g it queued (children
 *  first, then tail launches; each child grid through @p launch, which runs its own), merging
 *  their results into @p r; then free @p g (NULL: nothing queued). */
void vm_cdp_finish(const struct vm_launch *L, struct cdp_grid *g, struct vm_result *r,
                   vm_launch_fn launch);

/* ---- running a grid (exec.c) ---------------------------------------------------------------- */

/** Run one grid of launch @p L to its end, into @p r; the device-side work it queued (cdp.c)
 *  goes to *queued, for the caller to run (launch.c). */
enum vm_status vm_exec_grid(const struct vm_launch *L, struct vm_result *r,
                            struct cdp_grid **queued);

/**
 * One lane's access of @p bytes at address @p a (aligned to @p align) in space @p sp
 * (generic addresses are sorted into their window), checked like any load or store: sets
 * *host, or fails the launch.
 */
enum event vm_access(struct exec *x, struct warp *w, const struct insn *in, int lane, enum space sp,
                     uint64_t a, unsigned bytes, unsigned align, int store, uint8_t **host);

/**
 * Count (and feed the time model) @p n accesses of @p bytes each at @p addr, made by one
 * instruction that the VM executes a lane at a time (wmma.load/store, ldmatrix), as the
 * requests of up to 32 lanes a GPU's SASS issues for it. @p sp is the space vm_access() sorted
 * the first address into (SP_GLOBAL, or SP_SHARED with window offsets); nothing for local.
 */
void vm_count_pieces(struct exec *x, const struct warp *w, enum space sp, const uint64_t *addr,
                     int n, unsigned bytes, int store);

/* ---- asynchronous copies (ops_async.c) ---------------------------------------------- */

/** Lane @p lane of @p w issues a cp.async of @p bytes (@p data, read from global memory now)
 *  to shared offset @p dst, by the instruction at @p pc: it lands at a wait. */
void vm_async_issue(struct warp *w, int lane, uint32_t dst, const uint8_t *data, unsigned bytes,
                    uint32_t pc);
/** Lanes @p m commit their copies since their last commit as a group. */
void vm_async_commit(struct warp *w, uint32_t m);
/** Land lanes @p m's copies of every committed group but the newest @p keep (keep < 0: every
 *  copy, committed or not) into shared memory, as their waits complete them. */
void vm_async_land(struct exec *x, struct warp *w, uint32_t m, int keep);
/** A warp's cp.async copies in flight, oldest first (ops_async.c keeps it). */
struct async_queue {
    struct async_copy *copy; /**< in issue order */
    uint32_t n, cap;
    uint32_t committed[32]; /**< groups each lane has committed */
};

/** The copies @p w has in flight (issued, not landed). */
static inline uint32_t vm_async_pending(const struct warp *w)
{
    return w->async ? w->async->n : 0;
}
/** A new block: no copies, no groups. And the end of the warp: its queue freed. */
void vm_async_reset(struct warp *w);
void vm_async_free(struct warp *w);

/** One atomic read-modify-write (enum atom_op and ctype in @p mod's ATOM_MOD fields) of the
 *  @p width-byte word at @p p with operands @p b (and @p c for cas); returns the old value. */
uint64_t vm_atom1(uint32_t mod, uint8_t *p, uint64_t b, uint64_t c, unsigned width);

/** Registers per lane of a wmma fragment (matrix 0 a, 1 b, 2 c/d) and of an mma.sync one. */
int wmma_frag_regs(int matrix, int type, int shape);
void wmma_dims(int shape, int matrix, int *rows, int *cols);
int mma_elem_bytes(int type);
/** Bits of an element of mma type @p type (4 for s4 and u4, 1 for b1, which mma_elem_bytes()
 *  has not). */
int mma_elem_bits(int type);
int mma_frag_regs(int matrix, int type, int shape);
/** A sparse mma's unit in bits: what one 2-bit index of its metadata places, four to a chunk of
 *  A's row, two of them kept (an f16 or bf16 element, half a tf32 one, an 8-bit element, a pair
 *  of 4-bit ones: the PTX ISA's "Sparse matrix storage"). */
int mma_sp_unit(int type);
/** How many lanes of each group of four hold the metadata of a sparse mma of input @p type in
 *  @p shape: 1, 2 or 4 (in group g, those from lane 4 g + selector * that many on). */
int mma_sp_threads(int type, int shape);
/* ops_tensor.c's tile arithmetic, which wgmma.mma_async (ops_wgmma.c) shares with mma.sync. */
/** Where element @p i of lane @p lane's mma.sync fragment of @p matrix (0 a, 1 b, 2 c/d: its
 *  elements 0 to 3) sits in the row-major tile of @p cols columns, 1 << @p log_per elements to
 *  a register: the PTX ISA's one rule for every shape. */
int mma_pos(int matrix, int log_per, int cols, int lane, int i);
/** @p n raw elements of type @p t as the fp32 values the Tensor Cores multiply (f32 as itself). */
void tc_values(int t, const uint64_t *raw, int n, float *out);
/** D = A * B + C on row-major fp32 tiles, N a multiple of 8, in the arithmetic of input type @p at
 *  and accumulator type @p dt: f16 or bf16 into fp32 as Hopper's Tensor Cores add them (each
 *  element's K products and its accumulator in one sum, cut toward zero: ops_tensor.c), the others
 *  each element's K products in k order, one rounding per addition. C and D may be one array. */
void mma_tile_as(int M, int N, int K, int at, int dt, const float *A, const float *B,
                 const float *C, float *D);
/** D = A * B + C on raw row-major tiles of f64 or of integers into s32 (@p types: a's, b's, c's,
 *  d's), exact, the s32 sums wrapped or clamped (MMA_SATFINITE_BIT in @p flags), 1-bit products
 *  the bits' and (xor with MMA_XOR_BIT). C and D may be one array. */
void mma_tile_exact(int M, int N, int K, const int *types, const uint64_t *A, const uint64_t *B,
                    const uint64_t *C, uint64_t *D, uint32_t flags);
/** M and K of an mma.sync shape (N is 8 in every one): for the decoder, the VM and the counters. */
static inline int mma_shape_m(int shape)
{
    return shape == MS_8_8_4 || shape == MS_8_8_16 || shape == MS_8_8_32 || shape == MS_8_8_128
               ? 8
               : 16;
}

static inline int mma_shape_k(int shape)
{
    static const int ks[] = {16, 8, 4, 32, 4, 16, 32, 64, 128, 128, 256};
    return ks[shape];
}

/** The products one mma.sync of @p shape and input @p type computes: 4 for Volta's m8n8k4 in
 *  f16 (one a quad pair of lanes), else 1. */
static inline int mma_products(int shape, int type)
{
    return shape == MS_8_8_4 && type != MT_F64 ? 4 : 1;
}

#endif /* EMU_VM_IMPL_H */
