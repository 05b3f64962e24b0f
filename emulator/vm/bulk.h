/**
 * @file bulk.h
 * @brief The decoded operands of a bulk or tensor copy (decode_bulk.c writes them into the
 *        module's pool, ops_bulk.c reads them), and the mbarrier's side of a copy
 *        (ops_mbarrier.c).
 */
#ifndef EMU_BULK_H
#define EMU_BULK_H

#include <string.h>

#include "vm_impl.h"

/** One address operand: [reg + disp], or [disp] when reg is NO_REG. */
struct bulk_addr {
    uint32_t reg;    /**< arena offset of the base register, or NO_REG */
    uint32_t base32; /**< 1: the base register is 32 bits */
    int64_t disp;    /**< displacement, a variable's address included */
};

/** Every operand of a copy: kept in the module's pool at insn.o[5]. */
struct bulk_ops {
    struct bulk_addr smem; /**< the shared-memory side: a load's destination, a store's source */
    struct bulk_addr glob; /**< the other side: global memory, the tensor map, or shared (S2S) */
    struct bulk_addr mbar; /**< the mbarrier (loads), reg NO_REG and disp -1 when absent */
    uint32_t size;         /**< a bulk copy's byte count: a register (immediates become one) */
    uint32_t rank;         /**< a tensor copy's coordinates */
    uint32_t coord[5];     /**< their registers (signed 32-bit) */
    uint32_t mask;         /**< .multicast::cluster's ctaMask register (16-bit), else NO_REG */
};

/** The fields tensormap.replace writes (OP_TMAP_REPLACE's mod). */
enum tmap_field { TMAP_FIELD_ADDRESS, TMAP_FIELD_DIM, TMAP_FIELD_STRIDE };

_Static_assert(sizeof(struct bulk_ops) % 4 == 0, "the pool holds 32-bit words");

/** @p in's operands (a copy out of the module's pool). */
static inline struct bulk_ops bulk_ops_of(const struct vm_module *m, const struct insn *in)
{
    struct bulk_ops b;
    memcpy(&b, m->pool + in->o[5], sizeof b);
    return b;
}

/** Lane @p l's address of operand @p a. */
static inline uint64_t bulk_addr_of(const struct warp *w, const struct bulk_addr *a, int l)
{
    if (a->reg == NO_REG)
        return (uint64_t)a->disp;
    if (a->base32)
        return (uint32_t)(R32(w, a->reg)[l] + (uint32_t)a->disp);
    return R64(w, a->reg)[l] + (uint64_t)a->disp;
}

/** Lane @p lane's global range [@p a, @p a + @p bytes) of copy @p in, checked and recorded as
 *  any global access is (vm_access(): bounds, initcheck, the grader's record) and counted as
 *  the copy engine's (count_tma()); its host address into *host. */
enum event bulk_global(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t a,
                       uint64_t bytes, int store, uint8_t **host);

/** One lane's part of a copy: lane @p l of @p w executing @p in, whose operands are @p b. */
typedef enum event (*bulk_lane_fn)(struct exec *x, struct warp *w, const struct insn *in, int l,
                                   const struct bulk_ops *b);

/** Run @p lane for each lane of @p m in order, with @p in's operands; the first event that is
 *  not EV_NONE ends it and is returned (a bulk or tensor copy's handler). */
enum event bulk_each_lane(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                          bulk_lane_fn lane);

/**
 * The blocks lane @p l's copy into shared memory lands in, into @p to: with .multicast::cluster,
 * each block of the cluster whose bit is set in the ctaMask; else the block the shared::cluster
 * destination names (this one, or a peer's through mapa). The destination's and the mbarrier's
 * offsets in each of those blocks into *dst and *mbar. Their count, or -1 after vm_fail().
 */
int bulk_targets(struct exec *x, struct warp *w, const struct insn *in, int l,
                 const struct bulk_ops *b, uint64_t *dst, uint64_t *mbar, struct exec **to);

/** Combine @p n elements of @p width bytes from @p src into global memory at @p dst as red would
 *  (the ATOM_MOD fields of @p mod), under the atomics lock. */
void bulk_reduce(struct exec *x, uint32_t mod, uint8_t *dst, const uint8_t *src, uint64_t n,
                 unsigned width);

/**
 * A copy completes @p bytes on the mbarrier at shared offset @p off (complete_tx), for lane
 * @p lane of @p w issuing @p in: the phase completes when it was waiting for them alone.
 * Fails the launch (returning EV_ERROR) when there is no initialised mbarrier there.
 */
enum event vm_mbar_complete_tx(struct exec *x, struct warp *w, const struct insn *in, int lane,
                               uint64_t off, uint64_t bytes);

#endif /* EMU_BULK_H */
