/**
 * @file ops_warp.c
 * @brief Warp-level instructions: shuffles, votes, matches, reductions, bar.warp.sync.
 *
 * The lanes named in a .sync instruction's mask execute it together. A group of
 * lanes that reaches one while named lanes still run elsewhere (a branch laid out
 * after the join, as nvcc does for loops) waits there, and the others join it when
 * they arrive; each group's issue is counted. A named lane that waits at a block
 * barrier, or at another warp-synchronous instruction, can never join: that is an
 * error the VM reports. A named lane that has exited or does not exist is undefined
 * behaviour that synccheck reports, and its registers are read as they were left.
 */
#include "checks.h"
#include "vm_impl.h"

/* The mask operand: each lane names the lanes it synchronises with, so tiles of one warp
 * (cooperative groups' tiled_partition) pass different masks. *masks gets the lanes' masks.
 * EV_NONE: every named live lane is here. EV_WARP_WAIT: some still run elsewhere, so lanes
 * @p m wait here (x->bar_arrived), or the lanes that waited here join them (0). EV_ERROR:
 * a named lane can never come. */
static enum event sync_mask(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                            uint32_t off, const uint32_t **masks)
{
    const uint32_t *v = R32(w, off);
    uint32_t all = 0;
    LANES(m, all |= v[l]);
    *masks = v;
    uint32_t elsewhere = all & w->live & ~m, pc = (uint32_t)(in - x->code);
    if (elsewhere & ~w->waiting) {
        x->bar_arrived = m;
        return EV_WARP_WAIT;
    }
    uint32_t here = 0; /* the lanes waiting at this instruction */
    for (uint32_t r = vm_lanes_at(w, WARP_SYNC_WAIT); r; r &= r - 1)
        here |= (uint32_t)(w->lane_pc[__builtin_ctz(r)] == pc) << __builtin_ctz(r);
    if (elsewhere && !(elsewhere & ~here)) {
        w->waiting &= ~here;
        x->bar_arrived = 0;
        return EV_WARP_WAIT;
    }
    if (elsewhere) {
        vm_fail(x, w, in, __builtin_ctz(elsewhere), VM_UNSUPPORTED,
                "%s: lanes 0x%08x named in the mask 0x%08x wait at a barrier or at another "
                "warp-synchronous instruction, so they can never execute this one with the "
                "lanes here",
                vm_op_names[in->op], elsewhere, all);
        return EV_ERROR;
    }
    if (x->launch->checks)
        check_warp_mask(x, w, in, m, all);
    return EV_NONE;
}

enum event h_SHFL_SYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const uint32_t *mask;
    enum event ev = sync_mask(x, w, in, m, in->o[5], &mask);
    if (ev != EV_NONE)
        return ev;
    const uint32_t *a = R32(w, in->o[2]), *b = R32(w, in->o[3]), *c = R32(w, in->o[4]);
    uint32_t src[32], out[32], ok = 0;
    for (int l = 0; l < 32; l++)
        src[l] = a[l]; /* read every lane before any lane writes (d may alias a) */
    /* The ISA's rule: c[4:0] clamps, c[12:8] splits the warp into segments. */
    LANES(m, {
        uint32_t bv = b[l] & 31, cv = c[l] & 31, seg = (c[l] >> 8) & 31;
        int maxl = (int)(((uint32_t)l & seg) | (cv & ~seg)), minl = (int)((uint32_t)l & seg);
        int j, p;
        switch (in->mod) {
        case 0:
            j = l - (int)bv, p = j >= maxl;
            break; /* up */
        case 1:
            j = l + (int)bv, p = j <= maxl;
            break; /* down */
        case 2:
            j = l ^ (int)bv, p = j <= maxl;
            break; /* bfly */
        default:
            j = minl | (int)(bv & ~seg), p = j <= maxl;
            break; /* idx */
        }
        out[l] = src[p ? j : l];
        ok |= (uint32_t)p << l;
    });
    uint32_t *d = R32(w, in->o[0]);
    LANES(m, d[l] = out[l]);
    if (in->o[1] != NO_REG)
        PRED(w, in->o[1]) = (PRED(w, in->o[1]) & ~m) | (ok & m);
    return EV_NONE;
}

enum event h_VOTE_SYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const uint32_t *mask;
    enum event ev = sync_mask(x, w, in, m, in->o[2], &mask);
    if (ev != EV_NONE)
        return ev;
    uint32_t p = PRED(w, in->o[1]), out = 0;
    if (in->mod & 16)
        p = ~p;
    uint32_t *d = (in->mod & 15) == 3 ? R32(w, in->o[0]) : NULL;
    LANES(m, {
        uint32_t group = mask[l] & m, set = p & group;
        if (d)
            d[l] = set;
        else if ((in->mod & 15) == 0)
            out |= (uint32_t)(set == group) << l;
        else if ((in->mod & 15) == 1)
            out |= (uint32_t)(set != 0) << l;
        else
            out |= (uint32_t)(set == group || !set) << l;
    });
    if (!d)
        PRED(w, in->o[0]) = (PRED(w, in->o[0]) & ~m) | out;
    return EV_NONE;
}

enum event h_MATCH_SYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const uint32_t *mask;
    enum event ev = sync_mask(x, w, in, m, in->o[3], &mask);
    if (ev != EV_NONE)
        return ev;
    int b64 = (in->mod >> 1) & 1, all = in->mod & 1;
    uint64_t v[32];
    for (int l = 0; l < 32; l++)
        v[l] = b64 ? R64(w, in->o[2])[l] : R32(w, in->o[2])[l];
    uint32_t *d = R32(w, in->o[0]), same = 0;
    LANES(m, {
        uint32_t group = mask[l] & m, eq = 0;
        for (uint32_t g = group; g; g &= g - 1)
            eq |= (uint32_t)(v[__builtin_ctz(g)] == v[l]) << __builtin_ctz(g);
        same |= (uint32_t)(eq == group) << l;
        d[l] = all ? (eq == group ? group : 0) : eq;
    });
    if (in->o[1] != NO_REG)
        PRED(w, in->o[1]) = (PRED(w, in->o[1]) & ~m) | same;
    return EV_NONE;
}

/* redux.sync's op over the lanes of @p group. */
static uint32_t redux(const uint32_t *a, uint32_t group, uint32_t op, uint32_t sgn)
{
    uint32_t r = op == 3   ? FULL_MASK
                 : op == 1 ? (sgn ? 0x7FFFFFFFu : FULL_MASK)
                 : op == 2 ? (sgn ? 0x80000000u : 0)
                           : 0;
    for (uint32_t g = group; g; g &= g - 1) {
        uint32_t v = a[__builtin_ctz(g)];
        switch (op) {
        case 0:
            r += v;
            break;
        case 1:
            r = sgn ? ((int32_t)v < (int32_t)r ? v : r) : (v < r ? v : r);
            break;
        case 2:
            r = sgn ? ((int32_t)v > (int32_t)r ? v : r) : (v > r ? v : r);
            break;
        case 3:
            r &= v;
            break;
        case 4:
            r |= v;
            break;
        default:
            r ^= v;
            break;
        }
    }
    return r;
}

enum event h_REDUX_SYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const uint32_t *mask;
    enum event ev = sync_mask(x, w, in, m, in->o[2], &mask);
    if (ev != EV_NONE)
        return ev;
    const uint32_t *a = R32(w, in->o[1]);
    uint32_t op = in->mod & 15, sgn = (in->mod >> 4) & 1, *d = R32(w, in->o[0]);
    uint32_t last_group = 0, r = 0; /* lanes of one group share its result */
    uint32_t src[32];
    for (int l = 0; l < 32; l++)
        src[l] = a[l]; /* read every lane before any lane writes (d may alias a) */
    LANES(m, {
        uint32_t group = mask[l] & m;
        if (group != last_group || l == __builtin_ctz(m))
            r = redux(src, group, op, sgn), last_group = group;
        d[l] = r;
    });
    return EV_NONE;
}

enum event h_BAR_WARP_SYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const uint32_t *mask;
    return sync_mask(x, w, in, m, in->o[0], &mask);
}

enum event h_ACTIVEMASK(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)x;
    uint32_t *d = R32(w, in->o[0]);
    LANES(m, d[l] = m);
    return EV_NONE;
}

/* elect.sync: each group of lanes a mask names elects its lowest lane that executes this. */
enum event h_ELECT_SYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const uint32_t *mask;
    enum event ev = sync_mask(x, w, in, m, in->o[2], &mask);
    if (ev != EV_NONE)
        return ev;
    uint32_t lead = 0, leader[32];
    LANES(m, {
        uint32_t group = mask[l] & m;
        leader[l] = group ? (uint32_t)__builtin_ctz(group) : (uint32_t)l;
        lead |= (uint32_t)(leader[l] == (uint32_t)l) << l;
    });
    if (in->o[0] != NO_REG)
        LANES(m, R32(w, in->o[0])[l] = leader[l]);
    PRED(w, in->o[1]) = (PRED(w, in->o[1]) & ~m) | (lead & m);
    return EV_NONE;
}
