/**
 * @file footprint.h
 * @brief What a launch touched in global memory, per allocation (struct vm_footprint): called
 *        from the global memory path when the launch keeps the provenance record.
 */
#ifndef EMU_FOOTPRINT_H
#define EMU_FOOTPRINT_H

#include "vm_impl.h"

/** A global access by lanes @p m of @p bytes each at @p addr, checked: it @p writes, it
 *  @p reads (an atomic does both). */
void footprint_global(struct exec *x, const uint64_t *addr, uint32_t m, unsigned bytes, int writes,
                      int reads);

#endif /* EMU_FOOTPRINT_H */
