/**
 * @file ops_ctrl.c
 * @brief Control: branches, exits, barriers, traps and assertions, printf, the clock.
 *
 * Branches, exits and barriers do not move the pc themselves: they report
 * an event (and which lanes) to the dispatch loop in exec.c, which owns the
 * warp's pcs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "fp.h"

enum event h_BRA(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)w;
    x->branch_taken = m;
    x->branch_target = (uint32_t)in->imm;
    return EV_BRANCH;
}

enum event h_EXIT(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    (void)in;
    vm_async_land(x, w, m, -1); /* copies still in flight complete, as a GPU's would */
    x->exited = m;
    return EV_EXIT;
}

/* A lane's call frame: every call's parameters and every device function's, side by side. */
static uint8_t *frame(const struct exec *x, const struct warp *w, int lane)
{
    return w->call_params + (size_t)lane * x->mod->call_total;
}

/* A saved frame's tail on a lane's stack: where the lane returns, the frame's bytes, and what
 * it counts against cudaLimitStackSize. */
struct frame_tail {
    uint32_t ret_pc, ret_dst, bytes, charged;
};

/* What one level of a call counts against the stack limit, besides its local memory: less than
 * ptxas gives any recursive function (24 and 32 bytes for the tests' fib and tree sum, ptxas -v,
 * sm_90), so a recursion fails here only deeper than it can go on a GPU. */
#define FRAME_CHARGE 16u

/* Copy lane @p l's part of function @p f's frame (its registers, call frame and local memory)
 * to @p buf (@p save) or back from it; returns the bytes. NULL @p buf: only count them. */
static uint32_t lane_frame(const struct exec *x, struct warp *w, const struct func *f, int l,
                           uint8_t *buf, int save)
{
    uint32_t n = 0, fb = x->fbase[f - x->mod->funcs];
    for (uint32_t i = 0; i < f->nregs; i++) {
        uint8_t *r = w->arena + fb + f->regs[i].off;
        uint32_t width = f->regs[i].slot / 32, *mask = (uint32_t *)r;
        if (buf && f->regs[i].slot == SLOT_PRED && save)
            buf[n] = (uint8_t)(*mask >> l & 1);
        else if (buf && f->regs[i].slot == SLOT_PRED)
            *mask = (*mask & ~(1u << l)) | (uint32_t)buf[n] << l;
        else if (buf)
            memcpy(save ? buf + n : r + l * width, save ? r + l * width : buf + n, width);
        n += width ? width : 1;
    }
    uint8_t *parts[2] = {frame(x, w, l) + f->call_lo,
                         w->local + (size_t)l * x->local_frame + f->local_lo};
    uint32_t sizes[2] = {f->call_hi - f->call_lo, f->local_hi - f->local_lo};
    for (int i = 0; i < 2; i++, n += sizes[i - 1])
        if (buf)
            memcpy(save ? buf + n : parts[i], save ? parts[i] : buf + n, sizes[i]);
    return n;
}

/* A recursive kernel's call: lane @p l saves callee @p f's frame on its stack, or the launch
 * fails when the levels it is inside would pass x->stack_limit. */
static enum event push_frame(struct exec *x, struct warp *w, const struct insn *in, int l,
                             const struct func *f, uint32_t ret_pc, uint32_t ret_dst)
{
    uint32_t charged = FRAME_CHARGE + f->local_hi - f->local_lo;
    struct frame_tail t = {ret_pc, ret_dst, lane_frame(x, w, f, l, NULL, 0), charged};
    if (w->stack_charged[l] + charged > x->stack_limit)
        return vm_fail(x, w, in, l, VM_FAULT,
                       "stack overflow: the call to %s is %u levels deep and needs more than "
                       "cudaLimitStackSize (%u bytes a thread; the emulator counts %u bytes a "
                       "level plus its local memory)",
                       f->info.name, w->stack_levels[l] + 1, x->stack_limit, FRAME_CHARGE);
    uint32_t need = w->stack_used[l] + t.bytes + (uint32_t)sizeof t;
    if (need > w->stack_cap[l]) {
        w->stack_cap[l] = need * 2;
        w->stack[l] = emu_realloc(w->stack[l], w->stack_cap[l]);
    }
    lane_frame(x, w, f, l, w->stack[l] + w->stack_used[l], 1);
    memcpy(w->stack[l] + need - sizeof t, &t, sizeof t);
    w->stack_used[l] = need;
    w->stack_charged[l] += charged, w->stack_levels[l]++;
    return EV_NONE;
}

/* Where lane @p l returns to, and its return value's place; a recursive kernel's lane restores
 * the frame @p f had before the call. */
static void pop_frame(struct exec *x, struct warp *w, int l, const struct func *f, uint32_t *ret_pc,
                      uint32_t *ret_dst)
{
    if (!x->recursive) {
        uint32_t d = --w->depth[l];
        *ret_pc = w->ret_pc[l][d], *ret_dst = w->ret_dst[l][d];
        return;
    }
    struct frame_tail t;
    w->stack_used[l] -= (uint32_t)sizeof t;
    memcpy(&t, w->stack[l] + w->stack_used[l], sizeof t);
    w->stack_used[l] -= t.bytes;
    w->stack_charged[l] -= t.charged, w->stack_levels[l]--;
    lane_frame(x, w, f, l, w->stack[l] + w->stack_used[l], 0);
    *ret_pc = t.ret_pc, *ret_dst = t.ret_dst;
}

/* In a recursive kernel every level of @p f shares f's one local frame (push_frame saves and
 * restores it), so an argument pointing into that frame, as a level's own local array handed to
 * the level below is, would read the callee's data: lane @p l's call fails instead (1). */
static int own_local_argument(struct exec *x, struct warp *w, const struct insn *in, int l,
                              const struct func *f, const uint32_t *pool)
{
    const uint8_t *fr = frame(x, w, l);
    for (uint32_t i = 0; i < pool[0]; i++) {
        uint64_t v = 0;
        if (f->info.params[i].size != 8)
            continue;
        memcpy(&v, fr + pool[1 + i], 8);
        if (v - LOCAL_WINDOW - f->local_lo < (uint64_t)(f->local_hi - f->local_lo)) {
            vm_fail(x, w, in, l, VM_UNSUPPORTED,
                    "a pointer to its own local memory passed to a deeper call of %s (argument "
                    "%u): the emulator keeps one local frame for every level of a recursive "
                    "function, so the levels would share it",
                    f->info.name, i + 1);
            return 1;
        }
    }
    return 0;
}

/* Lanes @p m call @p f: their arguments into its parameters, their way back saved. */
static enum event enter(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                        const struct func *f)
{
    const uint32_t *pool = &x->mod->pool[in->o[5]];
    uint32_t nargs = pool[0], pc = (uint32_t)(in - x->code);
    if (nargs != f->info.nparams)
        return vm_fail(x, w, in, __builtin_ctz(m), VM_FAULT, "call to %s with %u arguments, not %u",
                       f->info.name, nargs, f->info.nparams);
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *fr = frame(x, w, l);
        if (x->recursive && (own_local_argument(x, w, in, l, f, pool) ||
                             push_frame(x, w, in, l, f, pc + 1, pool[1 + nargs]) != EV_NONE))
            return EV_ERROR;
        for (uint32_t i = 0; i < nargs; i++)
            memmove(fr + f->info.params[i].offset, fr + pool[1 + i], f->info.params[i].size);
        if (!x->recursive) { /* the launch refused call chains deeper than CALL_DEPTH */
            w->ret_pc[l][w->depth[l]] = pc + 1;
            w->ret_dst[l][w->depth[l]] = pool[1 + nargs];
            w->depth[l]++;
        }
    }
    x->branch_taken = m;
    x->branch_target = f->first;
    return EV_CALL;
}

enum event h_CALL(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    return enter(x, w, in, m, &x->mod->funcs[in->imm]);
}

/* The lanes bound for the first lane's function call it now; the others come back
 * (exec::call_again). An address no device function of the kernel has fails the launch. */
enum event h_CALL_IND(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const uint64_t *a = R64(w, in->o[0]);
    int first = __builtin_ctz(m);
    uint32_t g = 0, same = 0;
    while (g < x->mod->nfuncs && (x->mod->funcs[g].address != a[first] || x->fbase[g] == NO_REG))
        g++;
    if (g == x->mod->nfuncs)
        return vm_fail(x, w, in, first, VM_FAULT,
                       "indirect call to 0x%" PRIx64 ": no device function has that address",
                       a[first]);
    LANES(m, same |= (uint32_t)(a[l] == a[first]) << l);
    enum event ev = enter(x, w, in, same, &x->mod->funcs[g]);
    x->call_again = ev == EV_CALL ? m & ~same : 0;
    return ev;
}

enum event h_RET(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const struct func *f = &x->mod->funcs[x->mod->func_at[in - x->code]];
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t ret[256];
        uint32_t dst, size = f->ret_size;
        if (size > sizeof ret)
            return vm_fail(x, w, in, l, VM_UNSUPPORTED,
                           "%s returns %u bytes: at most %zu are emulated", f->info.name, size,
                           sizeof ret);
        memcpy(ret, frame(x, w, l) + f->ret_off, size);
        pop_frame(x, w, l, f, &x->ret_target[l], &dst);
        if (dst != NO_REG && size)
            memcpy(frame(x, w, l) + dst, ret, size);
    }
    x->branch_taken = m;
    return EV_RET;
}

/* The barrier id and thread count: the same for every lane, or the program is wrong. */
static enum event bar_operands(struct exec *x, struct warp *w, const struct insn *in, uint32_t m,
                               uint32_t *id, uint32_t *count)
{
    int lane = __builtin_ctz(m);
    *id = R32(w, in->o[0])[lane];
    *count = in->o[1] != NO_REG ? R32(w, in->o[1])[lane] : 0;
    if (*id > 15)
        return vm_fail(x, w, in, lane, VM_FAULT, "barrier %u: ids go from 0 to 15", *id);
    if (*count % 32)
        return vm_fail(x, w, in, lane, VM_FAULT,
                       "barrier %u waits for %u threads: the count must be a multiple of 32", *id,
                       *count);
    return EV_NONE;
}

enum event h_BAR_SYNC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    uint32_t id, count;
    enum event ev = bar_operands(x, w, in, m, &id, &count);
    if (ev != EV_NONE)
        return ev;
    if (count)
        x->bar_count[id] = count;
    if (x->launch->checks) /* with a count, warps of each role meet from their places */
        check_barrier_arrive(x, in, w->index, id, count || (in->mod & BAR_UNALIGNED_BIT));
    if (in->width == 1) { /* bar.arrive: counted, does not wait */
        x->bar_nowait[id] += (uint32_t)__builtin_popcount(m);
        return EV_NONE;
    }
    if (in->width == 2) { /* bar.red: count the predicate now; exec.c hands out the result */
        uint32_t p = PRED(w, in->o[3]) ^ ((in->mod >> 4) & 1 ? FULL_MASK : 0);
        x->bar_true[id] += (uint32_t)__builtin_popcount(p & m);
        x->bar_false[id] += (uint32_t)__builtin_popcount(~p & m);
    }
    x->bar_arrived = m;
    x->bar_id = (uint8_t)id;
    return EV_BARRIER;
}

enum event h_CLOCK(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    /* The emulation's own clock: instructions issued so far. Monotonic, deterministic. */
    uint64_t t = x->clock;
    if (in->width) {
        uint64_t *d = R64(w, in->o[0]);
        LANES(m, d[l] = t);
    } else {
        uint32_t *d = R32(w, in->o[0]);
        LANES(m, d[l] = (uint32_t)t);
    }
    return EV_NONE;
}

enum event h_UNSUPPORTED(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    const char *text = x->mod->texts[in - x->code];
    return vm_fail(x, w, in, __builtin_ctz(m), VM_UNSUPPORTED, "the emulator cannot execute '%s'",
                   text ? text : "?");
}

/* ---- device printf and assert -----------------------------------------------------------------
 */

/* A NUL-terminated string of device memory at generic address @p a, or NULL after a fault. */
static const char *device_string(struct exec *x, struct warp *w, const struct insn *in, int lane,
                                 uint64_t a)
{
    uint8_t *p;
    if (vm_access(x, w, in, lane, SP_GENERIC, a, 1, 1, 0, &p) != EV_NONE)
        return NULL;
    /* The string must end inside the same allocation (or window). */
    for (uint64_t n = 1;; n++) {
        if (p[n - 1] == '\0')
            return (const char *)p;
        uint8_t *q;
        if (vm_access(x, w, in, lane, SP_GENERIC, a + n, 1, 1, 0, &q) != EV_NONE)
            return NULL;
    }
}

/* 8 bytes of the lane's call frame at @p off. */
static uint64_t frame_u64(const struct exec *x, const struct warp *w, int lane, uint32_t off)
{
    uint64_t v;
    memcpy(&v, frame(x, w, lane) + off, 8);
    return v;
}

/* Format one argument list like printf: args at generic address @p args, each aligned to its
 * own size, as vprintf lays them out. Returns the text length, or -1 after a fault. */
static int format(struct exec *x, struct warp *w, const struct insn *in, int lane, const char *fmt,
                  uint64_t args, char *out, size_t size)
{
    size_t n = 0;
    uint64_t at = args;
    for (const char *p = fmt; *p && n + 1 < size;) {
        if (*p != '%' || p[1] == '%') {
            out[n++] = *p;
            p += *p == '%' ? 2 : 1;
            continue;
        }
        char spec[32];
        size_t k = 0;
        spec[k++] = *p++;
        int longs = 0;
        while (*p && !strchr("diouxXcsfFeEgGaAp", *p) && k < sizeof spec - 3) {
            longs += *p == 'l';
            if (*p != 'l' && *p != 'h')
                spec[k++] = *p;
            p++;
        }
        char conv = *p ? *p++ : 's';
        int wide = longs || strchr("fFeEgGaAsp", conv);
        unsigned bytes = wide ? 8 : 4;
        at = (at + bytes - 1) / bytes * bytes;
        uint8_t *q;
        if (vm_access(x, w, in, lane, SP_GENERIC, at, bytes, bytes, 0, &q) != EV_NONE)
            return -1;
        uint64_t raw = 0;
        memcpy(&raw, q, bytes);
        at += bytes;
        int wrote;
        if (conv == 'c') {
            spec[k++] = 'c', spec[k] = '\0';
            wrote = snprintf(out + n, size - n, spec, (int)raw);
        } else if (conv == 's') {
            spec[k++] = 's', spec[k] = '\0';
            const char *s = device_string(x, w, in, lane, raw);
            if (!s)
                return -1;
            wrote = snprintf(out + n, size - n, spec, s);
        } else if (strchr("fFeEgGaA", conv)) {
            spec[k++] = conv, spec[k] = '\0';
            wrote = snprintf(out + n, size - n, spec, u2d(raw));
        } else if (conv == 'p') {
            wrote = snprintf(out + n, size - n, "0x%" PRIx64, raw);
        } else {
            spec[k++] = 'l', spec[k++] = 'l', spec[k++] = conv, spec[k] = '\0';
            long long v = wide                 ? (long long)raw
                          : strchr("di", conv) ? (long long)(int32_t)raw
                                               : (long long)(uint32_t)raw;
            wrote = snprintf(out + n, size - n, spec, v);
        }
        n += wrote > 0 ? (size_t)wrote : 0;
        if (n >= size)
            n = size - 1;
    }
    out[n] = '\0';
    return (int)n;
}

static void print(struct exec *x, const char *text, size_t len)
{
    if (x->launch->print)
        x->launch->print(x->launch->print_ctx, text, len);
    else
        fwrite(text, 1, len, stdout);
}

enum event h_VPRINTF(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        const char *fmt = device_string(x, w, in, l, frame_u64(x, w, l, (uint32_t)in->imm));
        char text[4096];
        int n = fmt ? format(x, w, in, l, fmt, frame_u64(x, w, l, in->mod), text, sizeof text) : -1;
        if (n < 0)
            return EV_ERROR;
        print(x, text, (size_t)n);
        if (in->o[0] != NO_REG) {
            int32_t ret = n;
            memcpy(frame(x, w, l) + in->o[0], &ret, 4);
        }
    }
    return EV_NONE;
}

enum event h_MALLOC(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t p = vm_heap_alloc(x->launch->heap, frame_u64(x, w, l, (uint32_t)in->imm));
        memcpy(frame(x, w, l) + in->o[0], &p, 8);
    }
    return EV_NONE;
}

enum event h_FREE(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint64_t p = frame_u64(x, w, l, (uint32_t)in->imm);
        int r = p ? vm_heap_free(x->launch->heap, p) : 0;
        if (r)
            return vm_fail(x, w, in, l, VM_FAULT,
                           r == -1 ? "free(0x%" PRIx64 "): no live malloc block starts there (a "
                                     "double free, or a pointer into a block)"
                                   : "free(0x%" PRIx64 "): not a pointer device malloc returned",
                           p);
    }
    return EV_NONE;
}

/* Each lane stores its value at its handle, checked as any global store (a handle that is no
 * live allocation faults with its address); lanes in order, so the highest lane's value stays
 * when they share a handle. */
enum event h_SET_COND(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint8_t *q;
        uint64_t handle = frame_u64(x, w, l, (uint32_t)in->imm);
        enum event ev = vm_access(x, w, in, l, SP_GLOBAL, handle, 4, 4, 1, &q);
        if (ev != EV_NONE)
            return ev;
        memcpy(q, frame(x, w, l) + in->mod, 4);
    }
    return EV_NONE;
}

/* trap, or (width 1) a failed assert: CUDA's message for each failing thread, then the launch
 * fails. */
enum event h_TRAP(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    int lane = __builtin_ctz(m);
    if (in->width != 1)
        return vm_fail(x, w, in, lane, VM_TRAP, "trap (__trap() or brkpt)");
    const uint32_t *off = &x->mod->pool[in->o[5]];
    const char *msg = device_string(x, w, in, lane, frame_u64(x, w, lane, off[0]));
    const char *file = msg ? device_string(x, w, in, lane, frame_u64(x, w, lane, off[1])) : NULL;
    const char *func = file ? device_string(x, w, in, lane, frame_u64(x, w, lane, off[3])) : NULL;
    if (!func)
        return EV_ERROR;
    uint32_t line;
    memcpy(&line, frame(x, w, lane) + off[2], 4);
    char text[1024];
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        uint32_t tid[3];
        vm_thread_of(x, w, __builtin_ctz(mm), tid);
        int n = snprintf(
            text, sizeof text,
            "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line,
            func, x->ctaid[0], x->ctaid[1], x->ctaid[2], tid[0], tid[1], tid[2], msg);
        print(x, text, n > 0 ? (size_t)n : 0);
    }
    return vm_fail(x, w, in, lane, VM_ASSERT, "assertion `%s` failed", msg);
}
