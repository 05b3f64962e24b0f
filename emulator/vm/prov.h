/**
 * @file prov.h
 * @brief The grader's provenance record: which kernel reads touched memory the host wrote
 *        during a graded call, or guard bytes, and which stores carry what a kernel computed
 *        from an input; called from the global memory path, the texture and surface paths,
 *        when the launch keeps the record (vm_launch::prov).
 */
#ifndef EMU_PROV_H
#define EMU_PROV_H

#include "vm_impl.h"

/** A global access by lanes @p m, checked and about to happen. */
void prov_global(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                 uint32_t m, unsigned bytes, int store);

/**
 * A store of @p bytes per lane by lanes @p m to host[l] (prov_global() saw it) is about to be
 * made: into shadow[l], where the record keeps the values of that place, so that the store
 * writes them there too (a lane outside the record gets a place that keeps nothing).
 */
void prov_shadow(struct exec *x, uint32_t m, uint8_t *const *host, unsigned bytes,
                 uint8_t **shadow);

/** Lane @p lane reads @p n texels of @p bytes at addr[0 .. n) (a texture fetch, a gather, a
 *  surface load). */
void prov_texels(struct exec *x, struct warp *w, const struct insn *in, int lane,
                 const uint64_t *addr, int n, unsigned bytes);

/** The launch ends: keep the values of its last stores. */
void prov_end(struct exec *x);

#endif /* EMU_PROV_H */
