/**
 * @file check.c
 * @brief The sanitizer's checks (see check.h).
 */
#include "check.h"

void check_global(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                  uint32_t m, unsigned bytes, int store)
{
    (void)x, (void)w, (void)in, (void)addr, (void)m, (void)bytes, (void)store;
}

enum event check_shared(struct exec *x, struct warp *w, const struct insn *in, const uint64_t *addr,
                        uint32_t m, unsigned bytes, int store)
{
    (void)x, (void)w, (void)in, (void)addr, (void)m, (void)bytes, (void)store;
    return EV_NONE;
}

void check_warp_mask(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                     uint32_t mask)
{
    (void)x, (void)w, (void)in, (void)m, (void)mask;
}
