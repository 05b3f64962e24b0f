/**
 * @file cdp.c
 * @brief Dynamic parallelism (CUDA 12's "CDP2"): kernels launched from device code.
 *
 * With -rdc, a device-side launch compiles to calls of libcudadevrt's __cudaCDP2* functions;
 * the VM runs them as built-ins (OP_CDP, decoded by dec_call()): a parameter buffer from the
 * device heap, the launch, streams, the last error, device malloc and free, and asynchronous
 * copies. The schedule is one the CUDA Programming Guide allows: a grid's launches and copies
 * wait in one queue, in the order its threads issued them (blocks run one after another, so
 * the order is fixed), and run when the grid's blocks have ended, each child grid with its own
 * children before the next item; launches into cudaStreamTailLaunch run after all of them. The
 * host sees its launch complete when the whole tree has. A fault in a child fails the host's
 * launch with the child kernel's name; an invalid device-side launch (configuration, nesting
 * deeper than CDP_MAX_DEPTH, more waiting launches than cudaLimitDevRuntimePendingLaunchCount)
 * is refused: the thread's cudaGetLastError answers it and the launch's report callback gets
 * one line (the first refusal of each kind in a host launch's tree).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "vm_impl.h"

/** The deepest a device-side launch may nest (the host's grid is depth 0). */
#define CDP_MAX_DEPTH 24

/** cudaStreamTailLaunch's handle (cuda_device_runtime_api.h). */
#define STREAM_TAIL_LAUNCH 3u

/* cudaError_t values device code sees (driver_types.h). */
enum {
    ERR_INVALID_VALUE = 1,
    ERR_MEMORY_ALLOCATION = 2,
    ERR_INVALID_CONFIGURATION = 9,
    ERR_MAX_DEPTH = 65,
    ERR_PENDING_COUNT = 69,
    ERR_INVALID_DEVICE_FUNCTION = 98
};

/* One item of a grid's queue: a child grid, or a copy. */
struct cdp_item {
    uint32_t kernel; /* UINT32_MAX: a copy of bytes from src to dst */
    uint32_t grid[3], block[3], dyn_smem;
    uint8_t *params;
    uint64_t dst, src, bytes;
    int tail; /* launched into cudaStreamTailLaunch */
};

/* A parameter buffer handed out and not yet launched. */
struct cdp_buffer {
    uint64_t addr;
    struct cdp_item launch;
};

/* A grid's device-side work (exec::cdp). */
struct cdp_grid {
    struct cdp_item *items;
    uint32_t nitems, capitems;
    struct cdp_buffer *buffers;
    uint32_t nbuffers, capbuffers;
};

/* What a host launch's whole tree shares (vm_launch::cdp). */
struct vm_cdp {
    uint32_t pending;  /* launched, not started */
    uint64_t streams;  /* handles given out */
    uint64_t refused;  /* refusals reported, by error code % 64 */
    uint64_t text[16]; /* device copies of error strings, by code % 16 */
    int text_code[16];
};

static struct cdp_grid *grid_of(struct exec *x)
{
    if (!x->cdp) {
        x->cdp = emu_calloc(1, sizeof *x->cdp);
    }
    return x->cdp;
}

/* ---- a lane's arguments ---------------------------------------------------------------------- */

/* Argument @p i of the call (its call-frame bytes). */
static uint8_t *arg(const struct exec *x, const struct warp *w, const struct insn *in, int lane,
                    int i)
{
    return w->call_params + (size_t)lane * x->mod->call_total + x->mod->pool[in->o[5] + 1 + i];
}

static uint64_t arg_u64(const struct exec *x, const struct warp *w, const struct insn *in, int lane,
                        int i)
{
    uint64_t v;
    memcpy(&v, arg(x, w, in, lane, i), 8);
    return v;
}

/* The call's return value: @p bytes of @p v, when the call keeps it. */
static void ret(const struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t v,
                unsigned bytes)
{
    uint32_t n = x->mod->pool[in->o[5]], at = x->mod->pool[in->o[5] + 1 + n];
    if (at != NO_REG)
        memcpy(w->call_params + (size_t)lane * x->mod->call_total + at, &v, bytes);
}

/* A lane's error: its cudaGetLastError, and the call's return value. */
static void lane_error(const struct exec *x, struct warp *w, const struct insn *in, int lane,
                       int err)
{
    if (err)
        w->cdp_error[lane] = err;
    ret(x, w, in, lane, (uint64_t)err, 4);
}

/* Store @p bytes of @p v through the generic pointer @p p; 0, or -1 after a fault. */
static int store(struct exec *x, struct warp *w, const struct insn *in, int lane, uint64_t p,
                 uint64_t v, unsigned bytes)
{
    uint8_t *host;
    if (vm_access(x, w, in, lane, SP_GENERIC, p, bytes, bytes, 1, &host) != EV_NONE)
        return -1;
    memcpy(host, &v, bytes);
    return 0;
}

/* One line for the first refusal of each kind in a host launch's tree; the lane's error is
 * @p err, which is returned. */
static int refuse(struct exec *x, struct warp *w, const struct insn *in, int lane, int err,
                  const char *why)
{
    const struct vm_launch *L = x->launch;
    if (!(L->cdp->refused & 1ull << (err % 64))) {
        char where[400], line[700];
        L->cdp->refused |= 1ull << (err % 64);
        int n = snprintf(line, sizeof line, "device-side launch refused (cudaError %d): %s %s\n",
                         err, why, vm_describe(x, w, in, lane, where, sizeof where));
        if (L->report)
            L->report(L->report_ctx, line, n > 0 ? (size_t)n : 0);
        else
            fputs(line, stderr);
    }
    w->cdp_error[lane] = err;
    return err;
}

/* ---- launches ----------------------------------------------------------------------------- */

/* The kernel whose address is @p a, or UINT32_MAX. */
static uint32_t kernel_at(const struct vm_module *m, uint64_t a)
{
    for (uint32_t k = 0; k < m->nkernels; k++)
        if (m->funcs[k].address == a)
            return k;
    return UINT32_MAX;
}

/* Why a child of @p fn with this configuration cannot start, or NULL. */
static const char *bad_config(const struct func *fn, const uint32_t *g, const uint32_t *b,
                              uint32_t smem)
{
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    if (!threads || !g[0] || !g[1] || !g[2])
        return "a grid or block dimension is 0";
    if (threads > 1024 || b[2] > 64 || (fn->info.maxntid && threads > fn->info.maxntid))
        return "too many threads per block";
    if (g[1] > 65535 || g[2] > 65535 || g[0] > 0x7FFFFFFFu)
        return "the grid is larger than gridDim allows";
    if ((uint64_t)fn->smem_static + smem > 48 * 1024)
        return "more than 48 KiB of shared memory per block";
    return NULL;
}

/* cudaGetParameterBuffer: check the launch, and hand out a buffer for its arguments (NULL, and
 * the lane's error, when the launch is refused). */
static void get_buffer(struct exec *x, struct warp *w, const struct insn *in, int l)
{
    struct cdp_item it = {.kernel = kernel_at(x->mod, arg_u64(x, w, in, l, 0))};
    memcpy(it.grid, arg(x, w, in, l, 1), 12);
    memcpy(it.block, arg(x, w, in, l, 2), 12);
    memcpy(&it.dyn_smem, arg(x, w, in, l, 3), 4);
    ret(x, w, in, l, 0, 8);
    if (it.kernel == UINT32_MAX)
        return (void)refuse(x, w, in, l, ERR_INVALID_DEVICE_FUNCTION, "no kernel has that address");
    const struct func *fn = &x->mod->funcs[it.kernel];
    const char *why = bad_config(fn, it.grid, it.block, it.dyn_smem);
    if (why)
        return (void)refuse(x, w, in, l, ERR_INVALID_CONFIGURATION, why);
    if (x->launch->depth + 1 >= CDP_MAX_DEPTH)
        return (void)refuse(x, w, in, l, ERR_MAX_DEPTH, "launches nest deeper than 24 grids");
    uint64_t addr = x->launch->heap ? vm_heap_alloc(x->launch->heap, fn->info.param_bytes + 1) : 0;
    if (!addr)
        return (void)refuse(x, w, in, l, ERR_MEMORY_ALLOCATION, "the device heap is full");
    struct cdp_grid *g = grid_of(x);
    g->buffers = emu_grow(g->buffers, g->nbuffers, &g->capbuffers, sizeof *g->buffers);
    g->buffers[g->nbuffers++] = (struct cdp_buffer){addr, it};
    ret(x, w, in, l, addr, 8);
}

/* Queue @p it (its params malloc'd) on the grid. */
static void enqueue(struct exec *x, const struct cdp_item *it)
{
    struct cdp_grid *g = grid_of(x);
    g->items = emu_grow(g->items, g->nitems, &g->capitems, sizeof *g->items);
    g->items[g->nitems++] = *it;
}

/* cudaLaunchDevice: the buffer's launch joins the grid's queue. */
static void launch(struct exec *x, struct warp *w, const struct insn *in, int l)
{
    uint64_t addr = arg_u64(x, w, in, l, 0), stream = arg_u64(x, w, in, l, 1);
    struct cdp_grid *g = grid_of(x);
    uint32_t i = 0;
    while (i < g->nbuffers && g->buffers[i].addr != addr)
        i++;
    if (i == g->nbuffers)
        return lane_error(
            x, w, in, l,
            refuse(x, w, in, l, ERR_INVALID_VALUE, "not a buffer cudaGetParameterBuffer gave"));
    struct cdp_item it = g->buffers[i].launch;
    g->buffers[i] = g->buffers[--g->nbuffers];
    uint32_t bytes = x->mod->funcs[it.kernel].info.param_bytes;
    it.params = emu_malloc(bytes + 1);
    memcpy(it.params, mem_host(x->mem, addr), bytes);
    vm_heap_free(x->launch->heap, addr);
    if (x->launch->cdp->pending >= (x->launch->pending_limit ? x->launch->pending_limit : 2048)) {
        free(it.params);
        return lane_error(x, w, in, l,
                          refuse(x, w, in, l, ERR_PENDING_COUNT,
                                 "more launches wait than cudaLimitDevRuntimePendingLaunchCount"));
    }
    x->launch->cdp->pending++;
    it.tail = stream == STREAM_TAIL_LAUNCH;
    enqueue(x, &it);
    lane_error(x, w, in, l, 0);
}

/* cudaMemcpyAsync: queued like a launch, so that it follows the stream's earlier work. */
static void copy(struct exec *x, struct warp *w, const struct insn *in, int l)
{
    struct cdp_item it = {.kernel = UINT32_MAX,
                          .dst = arg_u64(x, w, in, l, 0),
                          .src = arg_u64(x, w, in, l, 1),
                          .bytes = arg_u64(x, w, in, l, 2)};
    enqueue(x, &it);
    lane_error(x, w, in, l, 0);
}

/* ---- the rest ------------------------------------------------------------------------------- */

/* The device address of a string naming error @p err (kept in the heap, one per code). */
static uint64_t error_string(struct exec *x, int err)
{
    struct vm_cdp *c = x->launch->cdp;
    int slot = err % 16;
    if (c->text[slot] && c->text_code[slot] == err)
        return c->text[slot];
    char text[64];
    int n = snprintf(text, sizeof text, "cudaError %d (device-side, CPU emulator)", err) + 1;
    uint64_t a = x->launch->heap ? vm_heap_alloc(x->launch->heap, (uint64_t)n) : 0;
    if (a) {
        memcpy(mem_host(x->mem, a), text, (size_t)n);
        mem_mark_written(x->mem, a, (uint64_t)n, MEM_MODULE);
        c->text[slot] = a, c->text_code[slot] = err;
    }
    return a;
}

/* cudaMalloc and cudaFree from the device heap. */
static void heap_call(struct exec *x, struct warp *w, const struct insn *in, int l, int fn)
{
    struct vm_heap *h = x->launch->heap;
    if (fn == CDP_FREE) {
        uint64_t p = arg_u64(x, w, in, l, 0);
        return lane_error(x, w, in, l, p && (!h || vm_heap_free(h, p)) ? ERR_INVALID_VALUE : 0);
    }
    uint64_t p = h ? vm_heap_alloc(h, arg_u64(x, w, in, l, 1)) : 0;
    if (store(x, w, in, l, arg_u64(x, w, in, l, 0), p, 8) == 0)
        lane_error(x, w, in, l, p ? 0 : ERR_MEMORY_ALLOCATION);
}

/* call __cudaCDP2*: see opcodes.h. Lanes call one after another, in lane order. */
enum event h_CDP(struct exec *x, struct warp *w, const struct insn *in, uint32_t m)
{
    for (uint32_t mm = m; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm), err = w->cdp_error[l];
        switch ((enum cdp_fn)in->mod) {
        case CDP_GET_PARAMETER_BUFFER:
            get_buffer(x, w, in, l);
            break;
        case CDP_LAUNCH:
            launch(x, w, in, l);
            break;
        case CDP_MEMCPY_ASYNC:
            copy(x, w, in, l);
            break;
        case CDP_STREAM_CREATE:
            if (store(x, w, in, l, arg_u64(x, w, in, l, 0), 16 + x->launch->cdp->streams++, 8))
                return EV_ERROR;
            lane_error(x, w, in, l, 0);
            break;
        case CDP_STREAM_DESTROY:
            lane_error(x, w, in, l, 0);
            break;
        case CDP_GET_LAST_ERROR:
            w->cdp_error[l] = 0;
            ret(x, w, in, l, (uint64_t)err, 4);
            break;
        case CDP_PEEK_LAST_ERROR:
            ret(x, w, in, l, (uint64_t)err, 4);
            break;
        case CDP_GET_ERROR_STRING:
            ret(x, w, in, l, error_string(x, *(int32_t *)arg(x, w, in, l, 0)), 8);
            break;
        case CDP_MALLOC:
        case CDP_FREE:
            heap_call(x, w, in, l, (int)in->mod);
            break;
        case CDP_GET_DEVICE:
            if (store(x, w, in, l, arg_u64(x, w, in, l, 0), 0, 4))
                return EV_ERROR;
            lane_error(x, w, in, l, 0);
            break;
        case CDP_COUNT:
            break;
        }
        if (x->result->status != VM_OK)
            return EV_ERROR;
    }
    return EV_NONE;
}

/* ---- running the queue ------------------------------------------------------------------------
 */

/* Add child result @p c to @p r: counters, findings, provenance; the first failure. */
static void merge(struct vm_result *r, const struct vm_result *c)
{
    uint64_t *to = (uint64_t *)&r->counters;
    const uint64_t *from = (const uint64_t *)&c->counters;
    for (size_t i = 0; i < sizeof r->counters / sizeof *to; i++)
        to[i] += from[i];
    r->reports += c->reports;
    vm_prov_merge(&r->prov, &c->prov);
    if (r->status == VM_OK && c->status != VM_OK) {
        r->status = c->status == VM_BAD_LAUNCH ? VM_FAULT : c->status;
        memcpy(r->message, c->message, sizeof r->message);
    }
}

/* Run queue item @p it of a grid of launch @p L, a child grid through @p launch. */
static void run_item(const struct vm_launch *L, struct cdp_item *it, struct vm_result *r,
                     vm_launch_fn launch)
{
    if (it->kernel == UINT32_MAX) {
        if (!mem_find(L->mem, it->dst, it->bytes) || !mem_find(L->mem, it->src, it->bytes)) {
            snprintf(r->message, sizeof r->message,
                     "device-side cudaMemcpyAsync of %" PRIu64 " bytes from 0x%" PRIx64
                     " to 0x%" PRIx64 ": not device memory",
                     it->bytes, it->src, it->dst);
            r->status = VM_FAULT;
            return;
        }
        memmove(mem_host(L->mem, it->dst), mem_host(L->mem, it->src), it->bytes);
        mem_mark_copied(L->mem, it->dst, it->src, it->bytes);
        return;
    }
    struct vm_launch child = *L;
    child.kernel = it->kernel;
    memcpy(child.grid, it->grid, sizeof child.grid);
    memcpy(child.block, it->block, sizeof child.block);
    child.dyn_smem = it->dyn_smem;
    child.smem_limit = 48 * 1024;
    child.params = it->params;
    child.cooperative = 0;
    child.depth = L->depth + 1;
    L->cdp->pending--;
    struct vm_result *c = emu_malloc(sizeof *c);
    launch(&child, c);
    merge(r, c);
    free(c);
}

void vm_cdp_finish(const struct vm_launch *L, struct cdp_grid *g, struct vm_result *r,
                   vm_launch_fn launch)
{
    if (!g)
        return;
    for (int tail = 0; tail < 2; tail++)
        for (uint32_t i = 0; i < g->nitems; i++) {
            if (g->items[i].tail != tail)
                continue;
            if (r->status == VM_OK)
                run_item(L, &g->items[i], r, launch);
            else if (g->items[i].kernel != UINT32_MAX)
                L->cdp->pending--;
            free(g->items[i].params);
        }
    for (uint32_t i = 0; i < g->nbuffers; i++)
        vm_heap_free(L->heap, g->buffers[i].addr);
    free(g->items);
    free(g->buffers);
    free(g);
}

struct vm_cdp *vm_cdp_begin(void)
{
    struct vm_cdp *c = emu_calloc(1, sizeof *c);
    return c;
}

void vm_cdp_end(struct vm_cdp *c, struct vm_heap *heap)
{
    for (int i = 0; i < 16; i++)
        if (c->text[i])
            vm_heap_free(heap, c->text[i]);
    free(c);
}
