/**
 * @file count.h
 * @brief The counters of one launch (struct vm_counters): instructions by class, global
 *        sectors, shared wavefronts and bank conflicts, unique bytes, branches, atomics by space
 *        and the addresses they contend on, Tensor Core flops and the mma instructions issued
 *        with asynchronous copies in flight. Called only when counting.
 */
#ifndef EMU_COUNT_H
#define EMU_COUNT_H

#include "vm_impl.h"

/** Start counting a launch (x->cnt set). */
void count_begin(struct exec *x);
/** Add context @p from's counters and sectors seen to @p x's, and free @p from's. */
void count_merge(struct exec *x, struct exec *from);
/** Finish: unique bytes from the sectors seen; free what counting used. */
void count_end(struct exec *x);
/** One warp-level instruction of warp @p w issued to lanes @p active, of which lanes @p m have
 *  its predicate on (they execute it). */
void count_insn(struct exec *x, const struct warp *w, const struct insn *in, uint32_t active,
                uint32_t m);
/** One global request: lanes of @p m at @p addr, @p bytes each (an atomic's is a store). */
void count_global(struct exec *x, const uint64_t *addr, uint32_t m, unsigned bytes, int store);
/** The wavefronts one shared request of lanes @p m at window offsets @p addr, @p bytes each,
 *  takes (per phase of 32, 16 or 8 lanes, the most distinct words a bank holds); its phases
 *  into *@p phases. */
uint64_t count_wavefronts(const uint64_t *addr, uint32_t m, unsigned bytes, uint64_t *phases);
/** One shared request: window offsets of lanes in @p m, @p bytes each. */
void count_shared(struct exec *x, const uint64_t *addr, uint32_t m, unsigned bytes, int store);
/** The global side of a bulk or tensor copy: [@p addr, @p addr + @p bytes), read (or written,
 *  @p store) by the copy engine; its sectors join the launch's unique bytes too. */
void count_tma(struct exec *x, uint64_t addr, uint64_t bytes, int store);
/** A branch that split the warp. */
void count_divergence(struct exec *x);

#endif /* EMU_COUNT_H */
