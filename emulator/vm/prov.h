/**
 * @file prov.h
 * @brief The grader's provenance record: which kernel reads touched memory the host wrote
 *        during a graded call, or guard bytes; called from the global memory path when the
 *        launch keeps the record (vm_launch::prov).
 */
#ifndef EMU_PROV_H
#define EMU_PROV_H

#include "vm_impl.h"

/** A global access by lanes @p m, checked and about to happen. */
void prov_global(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                 uint32_t m, unsigned bytes, int store);

/** The launch ends: keep the values of its last stores. */
void prov_end(struct exec *x);

#endif /* EMU_PROV_H */
