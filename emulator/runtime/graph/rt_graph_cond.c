/**
 * @file rt_graph_cond.c
 * @brief The runtime stand-in: conditional graph nodes (IF, IF/ELSE, WHILE, SWITCH) and their
 *        handles.
 *
 * A handle is the device address of a 32-bit value in memory the runtime allocates, in slabs of
 * SLAB_HANDLES kept to the end of the process (an instantiated graph may outlive its graph).
 * Device code sets it with cudaGraphSetConditional(handle, value), which the VM runs as a 32-bit
 * store there (vm/ops_ctrl.c). The node is a host function on the stream: when the stream
 * reaches it, the work it depends on has run, and it reads the value and runs the body it picks,
 * work by work, before the stream goes on:
 *   IF      body 0 when the value is non-zero; otherwise body 1, when the node has two
 *   WHILE   body 0 while the value is non-zero, checked before each time (device code in the body
 *           sets it)
 *   SWITCH  body n when the value is n and n < size; otherwise none
 * A handle created with cudaGraphCondAssignDefault takes its default value when a launch of a
 * graph whose conditional nodes use it starts; without the flag it holds the default from its
 * creation (a GPU leaves it undefined) and then what device code last set, launch after launch.
 * After a fault the device runs nothing, so no body runs and a WHILE ends.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_graph.h"

enum { SLAB_HANDLES = 1024 };

/** A handle: where its value lives, the graph it was made for, its default and flags. */
struct rt_cond_handle {
    uint64_t dev;   /**< the handle itself: its value's device address */
    uint64_t graph; /**< rt_graph_id() of the graph it was created for */
    unsigned value, flags;
    struct rt_cond_handle *next;
};

/** Every handle ever made, and the slab new ones take their value from (runtime lock). */
static struct {
    struct rt_cond_handle *all;
    uint64_t slab;
    int used; /**< values of the slab handed out (SLAB_HANDLES when there is none) */
} handles = {.used = SLAB_HANDLES};

/** A conditional node of a graph. */
struct rt_cond {
    const struct rt_cond_handle *h;
    enum cudaGraphConditionalNodeType type;
    unsigned size;
    struct rt_graph **bodies; /**< size of them, phGraph_out */
};

/** A conditional node instantiated: the data of its host function. */
struct rt_cond_exec {
    const struct rt_cond_handle *h;
    enum cudaGraphConditionalNodeType type;
    unsigned size;
    struct rt_exec **bodies;
};

/* The host address of @p h's value. */
static uint32_t *value_of(const struct rt_cond_handle *h)
{
    return rt_host((const void *)(uintptr_t)h->dev, 4, "a conditional node's handle");
}

static struct rt_cond_handle *handle_find(uint64_t dev)
{
    for (struct rt_cond_handle *h = handles.all; h; h = h->next)
        if (h->dev == dev)
            return h;
    return NULL;
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out,
                                             cudaGraph_t graph, unsigned int defaultLaunchValue,
                                             unsigned int flags)
{
    if (flags & ~(unsigned)cudaGraphCondAssignDefault) {
        emu_say("cudaGraphConditionalHandleCreate: flags 0x%x are not emulated (0 and "
                "cudaGraphCondAssignDefault are) (cudaErrorNotSupported)",
                flags);
        return rt_error(cudaErrorNotSupported);
    }
    rt_lock();
    const struct rt_graph *g = rt_graph_of(graph);
    struct rt_cond_handle *h = g ? emu_calloc(1, sizeof *h) : NULL;
    void *slab = NULL;
    cudaError_t err = !g ? cudaErrorInvalidValue : cudaSuccess;
    if (err == cudaSuccess && handles.used == SLAB_HANDLES &&
        (err = rt.remote ? cudaMallocManaged(&slab, SLAB_HANDLES * 4, 0) /* the host reads it */
                         : rt_malloc_at(&slab, SLAB_HANDLES * 4, NULL)) == cudaSuccess) {
        handles.slab = (uint64_t)(uintptr_t)slab;
        handles.used = 0;
    }
    if (err == cudaSuccess) {
        *h = (struct rt_cond_handle){handles.slab + 4 * (uint64_t)handles.used++, rt_graph_id(g),
                                     defaultLaunchValue, flags, handles.all};
        handles.all = h;
        uint32_t *v = value_of(h);
        if (v)
            *v = defaultLaunchValue;
        *pHandle_out = h->dev;
    } else {
        free(h);
    }
    rt_unlock();
    return rt_error(err);
}

/* Why @p p cannot be a node of @p g (NULL when it can): the handle, the type and the size. */
static const char *cond_refusal(const struct rt_graph *g, const struct cudaConditionalNodeParams *p,
                                const struct rt_cond_handle *h)
{
    if (!h)
        return "names no handle cudaGraphConditionalHandleCreate made";
    if (!rt_graph_within(g, h->graph))
        return "uses a handle created for another graph (only the node's graph, or a graph "
               "whose body holds it, may own it)";
    if (p->type == cudaGraphCondTypeIf && (p->size == 1 || p->size == 2))
        return NULL;
    if (p->type == cudaGraphCondTypeWhile && p->size == 1)
        return NULL;
    if (p->type == cudaGraphCondTypeSwitch && p->size > 0)
        return NULL;
    return p->type > cudaGraphCondTypeSwitch ? "has a type that is not emulated"
                                             : "has a size its type does not allow (IF 1 or 2, "
                                               "WHILE 1, SWITCH 1 or more)";
}

struct rt_cond *rt_cond_new(const struct rt_graph *g, struct cudaConditionalNodeParams *p,
                            cudaError_t *err)
{
    const struct rt_cond_handle *h = handle_find(p->handle);
    const char *why = cond_refusal(g, p, h);
    if (why) {
        int unsupported = p->type > cudaGraphCondTypeSwitch;
        *err = unsupported ? cudaErrorNotSupported : cudaErrorInvalidValue;
        emu_say("cudaGraphAddNode: the conditional node (type %d, size %u, handle 0x%llx) %s (%s)",
                (int)p->type, p->size, p->handle, why,
                unsupported ? "cudaErrorNotSupported" : "cudaErrorInvalidValue");
        return NULL;
    }
    struct rt_cond *c = emu_calloc(1, sizeof *c);
    *c = (struct rt_cond){h, p->type, p->size, emu_calloc(p->size, sizeof *c->bodies)};
    for (unsigned i = 0; i < p->size; i++)
        c->bodies[i] = rt_graph_new(g);
    p->phGraph_out = (cudaGraph_t *)c->bodies;
    return c;
}

void rt_cond_free(struct rt_cond *c)
{
    for (unsigned i = 0; c && c->bodies && i < c->size; i++)
        if (c->bodies[i])
            rt_graph_free(c->bodies[i]);
    if (c)
        free(c->bodies);
    free(c);
}

struct rt_cond *rt_cond_clone(const struct rt_cond *c)
{
    struct rt_cond *d = emu_calloc(1, sizeof *d);
    *d = (struct rt_cond){c->h, c->type, c->size, emu_calloc(c->size, sizeof *d->bodies)};
    for (unsigned i = 0; i < c->size; i++)
        d->bodies[i] = rt_graph_clone(c->bodies[i]);
    return d;
}

/* The host function of an instantiated conditional node: pick and run its bodies. */
static void cond_run(void *data)
{
    const struct rt_cond_exec *x = data;
    const uint32_t *v = value_of(x->h);
    if (!v)
        return;
    if (x->type == cudaGraphCondTypeWhile) {
        while (*v && rt.sticky == cudaSuccess)
            rt_exec_run(x->bodies[0]);
        return;
    }
    unsigned pick = x->type == cudaGraphCondTypeSwitch ? *v : *v ? 0 : 1;
    if (pick < x->size && rt.sticky == cudaSuccess)
        rt_exec_run(x->bodies[pick]);
}

int rt_cond_is(const struct rt_work *w)
{
    return w->kind == RT_HOST_FN && w->u.host.fn == cond_run;
}

int rt_cond_instantiate(const struct rt_cond *c, struct rt_work *w)
{
    struct rt_cond_exec *x = emu_calloc(1, sizeof *x);
    *x = (struct rt_cond_exec){c->h, c->type, c->size, emu_calloc(c->size, sizeof *x->bodies)};
    for (unsigned i = 0; i < c->size; i++)
        if (!(x->bodies[i] = rt_exec_body(c->bodies[i]))) {
            rt_cond_exec_free(x);
            return -1;
        }
    *w = (struct rt_work){.kind = RT_HOST_FN, .what = "a conditional node"};
    w->u.host.fn = cond_run;
    w->u.host.data = x;
    return 0;
}

void rt_cond_exec_free(void *data)
{
    struct rt_cond_exec *x = data;
    for (unsigned i = 0; i < x->size; i++)
        if (x->bodies[i])
            rt_exec_free(x->bodies[i]);
    free(x->bodies);
    free(x);
}

void rt_cond_exec_reset(void *data)
{
    const struct rt_cond_exec *x = data;
    uint32_t *v = x->h->flags & cudaGraphCondAssignDefault ? value_of(x->h) : NULL;
    if (v)
        *v = x->h->value;
    for (unsigned i = 0; i < x->size; i++)
        rt_exec_reset(x->bodies[i]);
}
