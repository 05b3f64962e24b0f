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
/** The distinct 32-byte sectors of one global request (lanes of @p m at @p addr, @p bytes
 *  each), sorted, into @p sec (room for 64, the most counted); their number. */
unsigned count_sectors(const uint64_t *addr, uint32_t m, unsigned bytes, uint64_t *sec);
/** One global request: lanes of @p m at @p addr (an atomic's is a store), its @p n distinct
 *  sectors @p sec (count_sectors()). */
void count_global(struct exec *x, const uint64_t *addr, uint32_t m, int store, const uint64_t *sec,
                  unsigned n);
/** Sort @p n (at most a request's 64) sector or address numbers @p v in place: an insertion
 *  sort, since a warp's are few and mostly in order already. */
void count_sort(uint64_t *v, unsigned n);
/** The wavefronts one shared request (a load, or a @p store) of lanes @p m at window offsets
 *  @p addr, @p bytes each, takes (per phase of 32, 16 or 8 lanes, the most distinct words a
 *  bank holds; a 16-byte load whose lanes share addresses in pairs, 16); its phases into
 *  *@p phases. */
uint64_t count_wavefronts(const uint64_t *addr, uint32_t m, unsigned bytes, int store,
                          uint64_t *phases);
/** One shared request: window offsets of lanes in @p m, @p bytes each. */
void count_shared(struct exec *x, const uint64_t *addr, uint32_t m, unsigned bytes, int store);
/** The global side of a bulk or tensor copy: [@p addr, @p addr + @p bytes), read (or written,
 *  @p store) by the copy engine; its sectors join the launch's unique bytes too. */
void count_tma(struct exec *x, uint64_t addr, uint64_t bytes, int store);
/** A block starts in this context: no copies are in flight yet. */
void count_block(struct exec *x);
/** A bulk or tensor copy that completes on the mbarrier at shared offset @p mbar was issued. */
void count_copy_issued(struct exec *x, uint64_t mbar);
/** A thread of warp @p warp saw a phase of the mbarrier at @p mbar complete (try_wait,
 *  test_wait): for that warp, the copies issued against it so far have landed. */
void count_copy_waited(struct exec *x, uint32_t warp, uint64_t mbar);
/** One wgmma.mma_async of @p flops (2 M N K), issued by every warp of its warpgroup; @p eight:
 *  its inputs are 8-bit (e4m3, e5m2, s8, u8). */
void count_wgmma(struct exec *x, uint64_t flops, int eight);
/** 1 when the block has a copy in flight for warp @p warp: issued, and its mbarrier phase not
 *  yet seen complete by the warp. */
int count_copies_in_flight(struct exec *x, uint32_t warp);
/** The bulk and tensor copies the running block has issued so far. */
uint64_t count_copies_issued(struct exec *x);
/** A branch that split the warp. */
void count_divergence(struct exec *x);

#endif /* EMU_COUNT_H */
