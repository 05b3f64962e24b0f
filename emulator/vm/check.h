/**
 * @file check.h
 * @brief The sanitizer's checks (racecheck, synccheck, initcheck), called from the memory
 *        and warp paths when the launch asks for them.
 */
#ifndef EMU_CHECK_H
#define EMU_CHECK_H

#include "vm_impl.h"

/** A global access by lanes @p m (initcheck). */
void check_global(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                  uint32_t m, unsigned bytes, int store);
/** A shared access by lanes @p m (racecheck, initcheck). */
enum event check_shared(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                        uint32_t m, unsigned bytes, int store);
/** A warp-synchronous instruction whose mask is @p mask, executed by @p m (synccheck). */
void check_warp_mask(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                     uint32_t mask);

#endif /* EMU_CHECK_H */
