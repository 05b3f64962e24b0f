/**
 * @file rt_graph.c
 * @brief The runtime stand-in: CUDA graphs and stream capture.
 *
 * A graph is a list of nodes, each one queued operation (rt_work: a launch, a copy, a fill, a
 * host function, an event record or wait, or nothing) with the nodes it depends on. Nodes come
 * from the node calls (cudaGraphAddKernelNode, ...) or from stream capture: between
 * cudaStreamBeginCapture and cudaStreamEndCapture, what a program queues on the stream becomes
 * a node after the stream's last one, and an event recorded in the capture lets another stream
 * join it (cudaStreamWaitEvent), as the fork and join of NVIDIA's samples do. Instantiation
 * orders the nodes so that each comes after its dependencies (child graphs inlined); a launch
 * queues that order on the stream, which runs it as any queued work. So the nodes of one
 * launch run one after another, a legal schedule of the graph.
 *
 * A kernel node's parameters can be set, in the graph or in an instantiated one, and an
 * instantiated graph can take the parameters of a graph of the same shape (cudaGraphExecUpdate).
 * Memory nodes (and cudaMallocAsync, cudaFreeAsync captured) are host functions on a block of
 * graph memory (rt_graph_mem.c); conditional nodes are host functions that run a body graph
 * (rt_graph_cond.c). cudaGraphAddNode adds any of these kinds, and cudaStreamBeginCaptureToGraph
 * captures into a graph that exists (a conditional node's body).
 * Nodes' parameters read back and set: rt_graph_params.c; nodes and edges taken away, clones,
 * DOT files and user objects: rt_graph_edit.c. Not emulated (cudaErrorNotSupported with one
 * line): external semaphores.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_graph.h"

struct rt_graph *rt_graph_of(cudaGraph_t g)
{
    struct rt_graph *r = (struct rt_graph *)g;
    return r && r->magic == GRAPH_MAGIC ? r : NULL;
}

struct rt_exec *rt_exec_of(cudaGraphExec_t e)
{
    struct rt_exec *r = (struct rt_exec *)e;
    return r && r->magic == EXEC_MAGIC ? r : NULL;
}

struct rt_node *rt_node_of(cudaGraphNode_t node)
{
    struct rt_node *r = (struct rt_node *)node;
    return r && r->magic == NODE_MAGIC ? r : NULL;
}

struct rt_graph *rt_graph_new(const struct rt_graph *parent)
{
    static uint64_t made;
    struct rt_graph *g = emu_calloc(1, sizeof *g);
    g->magic = GRAPH_MAGIC;
    g->id = ++made;
    g->parent = parent;
    return g;
}

uint64_t rt_graph_id(const struct rt_graph *g)
{
    return g->id;
}

int rt_graph_within(const struct rt_graph *g, uint64_t owner)
{
    while (g && g->id != owner)
        g = g->parent;
    return g != NULL;
}

void rt_node_free(struct rt_node *n)
{
    rt_work_free(&n->w);
    if (n->child)
        rt_graph_free(n->child);
    rt_cond_free(n->cond);
    free(n->deps);
    free(n->args);
    free(n->attrs);
    n->magic = 0;
    free(n);
}

void rt_graph_free(struct rt_graph *g)
{
    for (struct rt_node *n = g->first, *next; n; n = next) {
        next = n->next;
        rt_node_free(n);
    }
    rt_user_refs_release(g->refs, g->nrefs);
    free(g->refs);
    g->magic = 0;
    free(g);
}

/* A new node of @p g doing @p w (whose parts it takes), after @p deps. */
static struct rt_node *add_node(struct rt_graph *g, struct rt_node *const *deps, int ndeps,
                                const struct rt_work *w)
{
    struct rt_node *n = emu_calloc(1, sizeof *n);
    n->deps = ndeps ? emu_malloc((size_t)ndeps * sizeof *n->deps) : NULL;
    n->magic = NODE_MAGIC;
    n->graph = g;
    n->w = *w;
    if (ndeps)
        memcpy(n->deps, deps, (size_t)ndeps * sizeof *deps);
    n->ndeps = ndeps;
    n->index = g->n++;
    if (g->last)
        g->last->next = n;
    else
        g->first = n;
    g->last = n;
    return n;
}

/* Add the node of @p w to graph @p graph under the lock, into *out. */
static cudaError_t add(cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                       size_t ndeps, const struct rt_work *w)
{
    struct rt_graph *g = rt_graph_of(graph);
    if (!g) {
        struct rt_work copy = *w;
        rt_work_free(&copy);
        return rt_error(cudaErrorInvalidValue);
    }
    *out = (cudaGraphNode_t)add_node(g, (struct rt_node *const *)deps, (int)ndeps, w);
    return cudaSuccess;
}

cudaError_t rt_graph_add(cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                         size_t ndeps, const struct rt_work *w)
{
    rt_lock();
    cudaError_t err = add(out, graph, deps, ndeps, w);
    rt_unlock();
    return err;
}

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    (void)flags;
    *pGraph = (cudaGraph_t)rt_graph_new(NULL);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    struct rt_graph *g = rt_graph_of(graph);
    if (!g)
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    rt_graph_free(g);
    rt_unlock();
    return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaKernelNodeParams *p)
{
    struct rt_work w;
    cudaError_t err = rt_kernel_node_work(p, &w);
    if (err != cudaSuccess)
        return err;
    rt_lock();
    err = add(pGraphNode, graph, pDependencies, numDependencies, &w);
    rt_unlock();
    return err;
}

/* Add the node of @p w when @p made (the check that built it, under the lock) succeeded; then
 * release the lock. */
static cudaError_t add_checked(cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps,
                               size_t ndeps, cudaError_t made, const struct rt_work *w)
{
    cudaError_t err = made == cudaSuccess ? add(out, graph, deps, ndeps, w) : rt_error(made);
    rt_unlock();
    return err;
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     void *dst, const void *src, size_t count,
                                     enum cudaMemcpyKind kind)
{
    struct rt_work w;
    rt_lock();
    cudaError_t err =
        rt_copy_work(dst, count, src, count, count, 1, kind, "cudaGraphAddMemcpyNode1D", &w);
    return add_checked(pGraphNode, graph, pDependencies, numDependencies, err, &w);
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const struct cudaHostNodeParams *p)
{
    struct rt_work w = {.kind = RT_HOST_FN, .what = "cudaGraphAddHostNode"};
    w.u.host.fn = p->fn;
    w.u.host.data = p->userData;
    rt_lock();
    return add_checked(pGraphNode, graph, pDependencies, numDependencies, cudaSuccess, &w);
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
    struct rt_work w = {.kind = RT_NOP, .what = "cudaGraphAddEmptyNode"};
    rt_lock();
    return add_checked(pGraphNode, graph, pDependencies, numDependencies, cudaSuccess, &w);
}

/* An event node: a record (RT_RECORD), or a wait (RT_NOP naming the event). */
static cudaError_t add_event_node(cudaGraphNode_t *out, cudaGraph_t graph,
                                  const cudaGraphNode_t *deps, size_t ndeps, cudaEvent_t event,
                                  enum rt_work_kind kind)
{
    struct rt_work w = {.kind = kind, .what = "an event node", .event = (struct rt_event *)event};
    rt_lock();
    return add_checked(out, graph, deps, ndeps, event ? cudaSuccess : cudaErrorInvalidValue, &w);
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t *pDependencies,
                                        size_t numDependencies, cudaEvent_t event)
{
    return add_event_node(pGraphNode, graph, pDependencies, numDependencies, event, RT_RECORD);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                      cudaEvent_t event)
{
    return add_event_node(pGraphNode, graph, pDependencies, numDependencies, event, RT_NOP);
}

/* A memory node: block @p b put in use (@p fn rt_gm_alloc_run) or out of use (rt_gm_free_run). */
static cudaError_t add_mem_node(cudaGraphNode_t *out, cudaGraph_t graph,
                                const cudaGraphNode_t *deps, size_t ndeps, struct rt_gm_block *b,
                                cudaHostFn_t fn, const char *what)
{
    struct rt_work w = {.kind = RT_HOST_FN, .what = what};
    w.u.host.fn = fn;
    w.u.host.data = b;
    rt_lock();
    return add_checked(out, graph, deps, ndeps, cudaSuccess, &w);
}

/* The block is allocated now and keeps its address for every launch (rt_graph_mem.c). */
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams *nodeParams)
{
    if (!rt_graph_of(graph))
        return rt_error(cudaErrorInvalidValue);
    struct rt_gm_block *b = rt_gm_new(nodeParams->bytesize);
    if (!b)
        return rt_error(cudaErrorMemoryAllocation);
    nodeParams->dptr = rt_gm_address(b);
    return add_mem_node(pGraphNode, graph, pDependencies, numDependencies, b, rt_gm_alloc_run,
                        "cudaGraphAddMemAllocNode");
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                    void *dptr)
{
    rt_lock();
    struct rt_gm_block *b = rt_gm_find(dptr);
    rt_unlock();
    if (!b) {
        emu_say("cudaGraphAddMemFreeNode: %p is not the address of a graph's allocation "
                "(cudaErrorInvalidValue)",
                dptr);
        return rt_error(cudaErrorInvalidValue);
    }
    return add_mem_node(pGraphNode, graph, pDependencies, numDependencies, b, rt_gm_free_run,
                        "cudaGraphAddMemFreeNode");
}

/* A copy of @p g: nodes, their work and their dependencies. */
struct rt_graph *rt_graph_clone(const struct rt_graph *g)
{
    struct rt_graph *c = rt_graph_new(g->parent);
    struct rt_node **map = emu_malloc((size_t)(g->n + 1) * sizeof *map);
    for (const struct rt_node *n = g->first; n; n = n->next) {
        struct rt_work w;
        struct rt_node **deps = emu_malloc((size_t)(n->ndeps + 1) * sizeof *deps);
        rt_work_clone(&w, &n->w);
        for (int i = 0; i < n->ndeps; i++)
            deps[i] = map[n->deps[i]->index];
        struct rt_node *m = add_node(c, deps, n->ndeps, &w);
        m->child = n->child ? rt_graph_clone(n->child) : NULL;
        m->cond = n->cond ? rt_cond_clone(n->cond) : NULL;
        m->origin = n;
        m->fill = n->fill;
        if (n->attrs) {
            m->attrs = emu_malloc(RT_NODE_ATTRS * sizeof *n->attrs);
            memcpy(m->attrs, n->attrs, RT_NODE_ATTRS * sizeof *n->attrs);
        }
        map[n->index] = m;
        free(deps);
    }
    free(map);
    c->refs = rt_user_refs_copy(g->refs, g->nrefs);
    c->nrefs = g->nrefs;
    return c;
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph)
{
    struct rt_work w = {.kind = RT_NOP, .what = "cudaGraphAddChildGraphNode"};
    rt_lock();
    struct rt_graph *child =
        rt_graph_of(childGraph) ? rt_graph_clone(rt_graph_of(childGraph)) : NULL;
    cudaError_t err = child ? add(pGraphNode, graph, pDependencies, numDependencies, &w)
                            : rt_error(cudaErrorInvalidValue);
    if (err == cudaSuccess)
        ((struct rt_node *)*pGraphNode)->child = child;
    else if (child)
        rt_graph_free(child);
    rt_unlock();
    return err;
}

/* A conditional node: its bodies are created now, and p->phGraph_out names them. */
static cudaError_t add_cond_node(cudaGraphNode_t *out, cudaGraph_t graph,
                                 const cudaGraphNode_t *deps, size_t ndeps,
                                 struct cudaConditionalNodeParams *p)
{
    struct rt_work w = {.kind = RT_NOP, .what = "a conditional node"};
    cudaError_t err = cudaErrorInvalidValue;
    rt_lock();
    const struct rt_graph *g = rt_graph_of(graph);
    struct rt_cond *c = g ? rt_cond_new(g, p, &err) : NULL;
    err = c ? add(out, graph, deps, ndeps, &w) : rt_error(err);
    if (err == cudaSuccess)
        ((struct rt_node *)*out)->cond = c;
    else
        rt_cond_free(c);
    rt_unlock();
    return err;
}

/* The node calls above, chosen by p->type (memory alloc nodes and semaphores are not). */
cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t *pDependencies,
                             const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                             struct cudaGraphNodeParams *p)
{
    (void)dependencyData; /* edge types matter to programmatic launches only */
    cudaGraphNode_t *o = pGraphNode;
    const cudaGraphNode_t *d = pDependencies;
    size_t n = numDependencies;
    const struct cudaKernelNodeParamsV2 *k = &p->kernel;
    const struct cudaMemsetParamsV2 *m = &p->memset;
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return cudaGraphAddKernelNode(o, graph, d, n,
                                      &(struct cudaKernelNodeParams){k->func, k->gridDim,
                                                                     k->blockDim, k->sharedMemBytes,
                                                                     k->kernelParams, k->extra});
    case cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(o, graph, d, n, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset:
        return cudaGraphAddMemsetNode(o, graph, d, n,
                                      &(struct cudaMemsetParams){m->dst, m->pitch, m->value,
                                                                 m->elementSize, m->width,
                                                                 m->height});
    case cudaGraphNodeTypeHost:
        return cudaGraphAddHostNode(o, graph, d, n,
                                    &(struct cudaHostNodeParams){p->host.fn, p->host.userData});
    case cudaGraphNodeTypeGraph:
#if CUDART_VERSION >= 13000 /* CUDA 12 always clones */
        if (p->graph.ownership != cudaGraphChildGraphOwnershipClone)
            return rt_not_supported("cudaGraphAddNode with a child graph moved, not cloned");
#endif
        return cudaGraphAddChildGraphNode(o, graph, d, n, p->graph.graph);
    case cudaGraphNodeTypeEmpty:
        return cudaGraphAddEmptyNode(o, graph, d, n);
    case cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(o, graph, d, n, p->eventRecord.event);
    case cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(o, graph, d, n, p->eventWait.event);
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(o, graph, d, n, p->free.dptr);
    case cudaGraphNodeTypeConditional:
        return add_cond_node(o, graph, d, n, &p->conditional);
    default:
        emu_say("cudaGraphAddNode: node type %d is not emulated (kernel, memcpy, memset, host, "
                "child graph, empty, event, memory free and conditional nodes are) "
                "(cudaErrorNotSupported)",
                (int)p->type);
        return rt_error(cudaErrorNotSupported);
    }
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    if (!rt_graph_of(originalGraph))
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    *pGraphClone = (cudaGraph_t)rt_graph_clone(rt_graph_of(originalGraph));
    rt_unlock();
    return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                     size_t numDependencies)
{
    (void)edgeData; /* edge types matter to programmatic launches only */
    if (!rt_graph_of(graph))
        return rt_error(cudaErrorInvalidValue);
    for (size_t i = 0; i < numDependencies; i++) {
        struct rt_node *t = (struct rt_node *)to[i];
        t->deps = emu_realloc(t->deps, (size_t)(t->ndeps + 1) * sizeof *t->deps);
        t->deps[t->ndeps++] = (struct rt_node *)from[i];
    }
    return cudaSuccess;
}

/* The nodes of @p graph (only those with no dependency when @p roots) into @p nodes, at most
 * *num of them; their count in *num (when @p nodes is NULL, the count only). */
static cudaError_t list_nodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *num, int roots)
{
    const struct rt_graph *g = rt_graph_of(graph);
    if (!g)
        return rt_error(cudaErrorInvalidValue);
    size_t k = 0;
    for (const struct rt_node *n = g->first; n; n = n->next)
        if (!roots || n->ndeps == 0) {
            if (nodes && k < *num)
                nodes[k] = (cudaGraphNode_t)n;
            k++;
        }
    if (!nodes || k < *num)
        *num = k;
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    return list_nodes(graph, nodes, numNodes, 0);
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                  size_t *pNumRootNodes)
{
    return list_nodes(graph, pRootNodes, pNumRootNodes, 1);
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                         cudaGraphEdgeData *edgeData, size_t *pNumDependencies)
{
    const struct rt_node *n = (const struct rt_node *)node;
    if (!n)
        return rt_error(cudaErrorInvalidValue);
    for (int i = 0; pDependencies && i < n->ndeps && (size_t)i < *pNumDependencies; i++) {
        pDependencies[i] = (cudaGraphNode_t)n->deps[i];
        if (edgeData)
            memset(&edgeData[i], 0, sizeof *edgeData);
    }
    if (!pDependencies || (size_t)n->ndeps < *pNumDependencies)
        *pNumDependencies = (size_t)n->ndeps;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    const struct rt_node *n = (const struct rt_node *)node;
    if (!n)
        return rt_error(cudaErrorInvalidValue);
    static const enum cudaGraphNodeType types[] = {
        [RT_NOP] = cudaGraphNodeTypeEmpty,          [RT_KERNEL] = cudaGraphNodeTypeKernel,
        [RT_COPY] = cudaGraphNodeTypeMemcpy,        [RT_FILL] = cudaGraphNodeTypeMemset,
        [RT_RECORD] = cudaGraphNodeTypeEventRecord, [RT_HOST_FN] = cudaGraphNodeTypeHost,
        [RT_CALLBACK] = cudaGraphNodeTypeHost};
    int host = n->w.kind == RT_HOST_FN;
    *pType = n->child                                    ? cudaGraphNodeTypeGraph
             : n->cond                                   ? cudaGraphNodeTypeConditional
             : n->w.kind == RT_NOP && n->w.event         ? cudaGraphNodeTypeWaitEvent
             : host && n->w.u.host.fn == rt_gm_alloc_run ? cudaGraphNodeTypeMemAlloc
             : host && n->w.u.host.fn == rt_gm_free_run  ? cudaGraphNodeTypeMemFree
                                                         : types[n->w.kind];
    return cudaSuccess;
}

/* --- instantiation and launch ------------------------------------------------------------- */

/* Why a conditional node's body cannot hold node @p n (NULL when it can): CUDA allows kernels,
 * copies, fills, empty nodes, child graphs and conditionals there; a copy must stay in device
 * memory here (pinned host memory's hostcheck needs the stream's queue). */
static const char *body_refusal(const struct rt_node *n)
{
    const struct rt_work *w = &n->w;
    if (n->cond || w->kind == RT_KERNEL || w->kind == RT_FILL || (w->kind == RT_NOP && !w->event))
        return NULL;
    if (w->kind == RT_COPY)
        return w->u.copy.sides == 3 ? NULL : "a copy to or from host memory";
    return w->kind == RT_HOST_FN ? "a host or memory node" : "an event node";
}

/* The works of @p x that node @p n depends on, into x->after[x->n] (its next work): the works
 * of its dependencies, or -1 (the work before it) in a child graph or past one. */
static void exec_after(struct rt_exec *x, const struct rt_node *n)
{
    int *after = emu_malloc(((size_t)n->ndeps + 1) * sizeof *after), k = 0;
    for (int d = 0; x->depth == 0 && d < n->ndeps; d++) {
        int j = x->n - 1;
        while (j >= 0 && x->from[j] != n->deps[d])
            j--;
        if (j < 0)
            break;
        after[k++] = j;
    }
    int chain = x->depth > 0 || k < n->ndeps;
    x->after[x->n] = after;
    x->nafter[x->n] = chain ? -1 : k;
}

/* Append work @p w of node @p n (its parts taken) to @p x. */
static void exec_push(struct rt_exec *x, const struct rt_node *n, struct rt_work *w)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 16;
        x->works = emu_realloc(x->works, (size_t)x->cap * sizeof *x->works);
        x->from = emu_realloc(x->from, (size_t)x->cap * sizeof *x->from);
        x->after = emu_realloc(x->after, (size_t)x->cap * sizeof *x->after);
        x->nafter = emu_realloc(x->nafter, (size_t)x->cap * sizeof *x->nafter);
    }
    exec_after(x, n);
    x->works[x->n] = *w;
    x->from[x->n++] = n;
}

/* Append node @p n (not a child graph) to @p x; -1 when a body cannot hold
 * it (after one line). */
static int exec_node(struct rt_exec *x, const struct rt_node *n)
{
    const char *why = x->body ? body_refusal(n) : NULL;
    if (why) {
        emu_say(
            "cudaGraphInstantiate: a conditional node's body holds %s (%s), which CUDA does not "
            "allow there (cudaErrorInvalidValue)",
            why, n->w.what);
        return -1;
    }
    struct rt_work w;
    if (!n->cond)
        rt_work_clone(&w, &n->w);
    else if (rt_cond_instantiate(n->cond, &w))
        return -1;
    x->conds += n->cond != NULL;
    exec_push(x, n, &w);
    return 0;
}

/* Append @p g's nodes to @p x, each after its dependencies (Kahn's order, lowest index first),
 * child graphs inlined; -1 on a cycle, or a node a body cannot hold. */
static int flatten(struct rt_exec *x, const struct rt_graph *g)
{
    char *done = emu_calloc((size_t)g->n + 1, 1);
    int placed = 0, progress = 1;
    while (placed < g->n && progress) {
        progress = 0;
        for (const struct rt_node *n = g->first; n; n = n->next) {
            int ready = !done[n->index];
            for (int i = 0; ready && i < n->ndeps; i++)
                ready = done[n->deps[i]->index];
            if (!ready)
                continue;
            x->depth += n->child != NULL;
            int bad = n->child ? flatten(x, n->child) : exec_node(x, n);
            x->depth -= n->child != NULL;
            if (bad) {
                free(done);
                return -1;
            }
            done[n->index] = 1;
            placed++;
            progress = 1;
            break; /* the lowest ready index first, every time */
        }
    }
    free(done);
    return placed == g->n ? 0 : -1;
}

/* Free the works of @p x. Launches still queued share its conditional nodes' data: with such
 * nodes, everything queued runs first. */
static void exec_clear(struct rt_exec *x)
{
    if (x->conds)
        rt_run_all();
    for (int i = 0; i < x->n; i++)
        if (rt_cond_is(&x->works[i]))
            rt_cond_exec_free(x->works[i].u.host.data);
        else
            rt_work_free(&x->works[i]);
    for (int i = 0; i < x->n; i++)
        free(x->after[i]);
    free(x->works);
    free(x->from);
    free(x->after);
    free(x->nafter);
}

void rt_exec_free(struct rt_exec *x)
{
    exec_clear(x);
    rt_user_refs_release(x->refs, x->nrefs);
    free(x->refs);
    free(x->off);
    x->magic = 0;
    free(x);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    struct rt_exec *x = rt_exec_of(graphExec);
    if (!x)
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    rt_exec_free(x);
    rt_unlock();
    return cudaSuccess;
}

struct rt_exec *rt_exec_body(const struct rt_graph *g)
{
    struct rt_exec *x = emu_calloc(1, sizeof *x);
    *x = (struct rt_exec){.magic = EXEC_MAGIC, .body = 1};
    if (flatten(x, g) == 0)
        return x;
    rt_exec_free(x);
    return NULL;
}

void rt_exec_run(const struct rt_exec *x)
{
    for (int i = 0; i < x->n; i++) {
        struct rt_work w;
        rt_work_clone(&w, &x->works[i]);
        rt_execute(&w, NULL, 0);
    }
}

void rt_exec_reset(const struct rt_exec *x)
{
    for (int i = 0; x->conds && i < x->n; i++)
        if (rt_cond_is(&x->works[i]))
            rt_cond_exec_reset(x->works[i].u.host.data);
}

/* The host function a launch of a graph with conditional nodes begins with. */
static void launch_reset(void *x)
{
    rt_exec_reset(x);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags)
{
    /* auto-free, upload, device launch and priorities change nothing here */
    const struct rt_graph *g = rt_graph_of(graph);
    if (!g)
        return rt_error(cudaErrorInvalidValue);
    struct rt_exec *x = emu_calloc(1, sizeof *x);
    x->magic = EXEC_MAGIC;
    x->flags = flags;
    rt_lock();
    int bad = flatten(x, g);
    x->refs = rt_user_refs_copy(g->refs, g->nrefs);
    x->nrefs = g->nrefs;
    rt_unlock();
    if (bad) {
        cudaGraphExecDestroy((cudaGraphExec_t)x);
        return rt_error(cudaErrorInvalidValue);
    }
    *pGraphExec = (cudaGraphExec_t)x;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags)
{
    return cudaGraphInstantiate(pGraphExec, graph, flags);
}

/* The upload stream changes nothing here: the device's memory is this machine's. */
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams *p)
{
    cudaError_t err = cudaGraphInstantiate(pGraphExec, graph, p->flags);
    p->errNode_out = NULL;
    p->result_out = err == cudaSuccess ? cudaGraphInstantiateSuccess : cudaGraphInstantiateError;
    return err;
}

cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                cudaGraphInstantiateParams *p)
{
    return cudaGraphInstantiateWithParams(pGraphExec, graph, p);
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags)
{
    const struct rt_exec *x = rt_exec_of(graphExec);
    if (!x)
        return rt_error(cudaErrorInvalidValue);
    *flags = x->flags;
    return cudaSuccess;
}

/*
 * What work @p i of @p x follows in the stream record, when the launch's first work is number
 * @p base + 1 of @p s: the works of the nodes it depends on, or (a root) what came before the
 * launch. A work of a child graph follows the work before it: its graph's edges are not kept,
 * and an order stricter than the graph's is never wrong to record. Returns how many, into
 * @p order (room for every node).
 */
static int node_order(const struct rt_exec *x, int i, struct rt_stream *s, uint64_t base,
                      struct rt_dep *order)
{
    int k = 0;
    for (int d = 0; d < x->nafter[i]; d++)
        order[k++] = (struct rt_dep){s, base + 1 + (uint64_t)x->after[i][d]};
    uint64_t before = x->nafter[i] < 0 ? base + (uint64_t)i : base; /* chained, or a root */
    if (k == 0 && before > 0)
        order[k++] = (struct rt_dep){s, before};
    return k;
}

/* Queue one node's work on @p s, after @p order in the stream record (norder of them): an
 * event record or wait does what its call does. */
static void launch_work(struct rt_stream *s, struct rt_work *w, const struct rt_dep *order,
                        int norder)
{
    struct rt_event *e = w->event;
    if (w->kind == RT_RECORD)
        rt_event_will_record(e, s);
    if (w->kind == RT_NOP && e && e->recorded && !e->complete)
        rt_enqueue_node(s, w, &(struct rt_dep){e->s, e->seq}, order, norder);
    else
        rt_enqueue_node(s, w, NULL, order, norder);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    struct rt_exec *x = rt_exec_of(graphExec);
    if (!x)
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    struct rt_stream *s = rt_stream_of(stream);
    cudaError_t err = s ? rt_device() : cudaErrorInvalidResourceHandle;
    if (err == cudaSuccess && x->conds) {
        struct rt_work w = {.kind = RT_HOST_FN, .what = "cudaGraphLaunch"};
        w.u.host.fn = launch_reset;
        w.u.host.data = x;
        rt_enqueue(s, &w, NULL);
    }
    uint64_t base = s ? s->issued : 0;
    struct rt_dep *order = emu_malloc(((size_t)x->n + 1) * sizeof *order);
    for (int i = 0; err == cudaSuccess && i < x->n; i++) {
        struct rt_work w = {.kind = RT_NOP, .what = "a disabled node"};
        if (!x->off || !x->off[i])
            rt_work_clone(&w, &x->works[i]);
        launch_work(s, &w, order, node_order(x, i, s, base, order));
    }
    if (err == cudaSuccess && x->n > 0) {
        /* The launch's end: what follows on the stream follows every node (stream record). */
        for (int i = 0; i < x->n; i++)
            order[i] = (struct rt_dep){s, base + 1 + (uint64_t)i};
        struct rt_work end = {.kind = RT_NOP, .what = "cudaGraphLaunch"};
        rt_enqueue_node(s, &end, NULL, order, x->n);
    }
    free(order);
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return cudaGraphLaunch(graphExec, stream ? stream : cudaStreamPerThread);
}

/* Nothing to upload: the device's memory is this machine's. */
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    (void)stream;
    return rt_exec_of(graphExec) ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    return cudaGraphUpload(graphExec, stream);
}

/* --- updates ------------------------------------------------------------------------------ */

/* Why @p b's work @p i cannot take the place of @p a's: cudaGraphExecUpdateSuccess when it can. */
static enum cudaGraphExecUpdateResult update_check(const struct rt_work *u, const struct rt_work *v)
{
    if (u->kind != v->kind || u->event != v->event || rt_cond_is(u) != rt_cond_is(v))
        return cudaGraphExecUpdateErrorNodeTypeChanged;
    if (u->kind == RT_KERNEL && (u->u.kernel.l.module != v->u.kernel.l.module ||
                                 u->u.kernel.l.kernel != v->u.kernel.l.kernel))
        return cudaGraphExecUpdateErrorFunctionChanged;
    return cudaGraphExecUpdateSuccess;
}

/* The parameters of @p hGraph's nodes replace those of @p hGraphExec's when the two graphs have
 * the same operations in the same order (same kinds, same kernels, same events); the node
 * handles of the graph first instantiated keep naming them. */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo)
{
    struct rt_exec *x = rt_exec_of(hGraphExec), y = {.magic = EXEC_MAGIC};
    const struct rt_graph *g = rt_graph_of(hGraph);
    if (!x || !g)
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    enum cudaGraphExecUpdateResult r = flatten(&y, g) ? cudaGraphExecUpdateError
                                       : y.n != x->n  ? cudaGraphExecUpdateErrorTopologyChanged
                                                      : cudaGraphExecUpdateSuccess;
    int i = 0;
    for (; r == cudaGraphExecUpdateSuccess && i < y.n; i++)
        r = update_check(&x->works[i], &y.works[i]);
    struct rt_work *swap = x->works;
    if (r == cudaGraphExecUpdateSuccess) {
        x->works = y.works;
        y.works = swap;
    }
    if (resultInfo)
        *resultInfo = (cudaGraphExecUpdateResultInfo){
            r, r == cudaGraphExecUpdateSuccess || i == 0 ? NULL : (cudaGraphNode_t)y.from[i - 1],
            NULL};
    exec_clear(&y);
    rt_unlock();
    return r == cudaGraphExecUpdateSuccess ? cudaSuccess
                                           : rt_error(cudaErrorGraphExecUpdateFailure);
}

/* Child graph node @p node's works in @p x begin at *@p base, as many as @p old (the child as
 * instantiated now) has; 0, or -1 when they are not there. */
static int child_works(const struct rt_exec *x, const struct rt_exec *old, int *base)
{
    *base = old->n ? rt_exec_find(x, (cudaGraphNode_t)old->from[0]) : 0;
    for (int i = 0; *base >= 0 && i < old->n; i++)
        if (*base + i >= x->n || x->from[*base + i] != old->from[i])
            return -1;
    return *base >= 0 ? 0 : -1;
}

/* The instantiated child graph node's works take the parameters of @p childGraph's, which must
 * have the same operations in the same order (cudaGraphExecUpdate's rule). */
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                 cudaGraph_t childGraph)
{
    struct rt_exec *x = rt_exec_of(hGraphExec), old = {.magic = EXEC_MAGIC}, y = old;
    const struct rt_node *n = rt_node_of(node);
    const struct rt_graph *g = rt_graph_of(childGraph);
    if (!x || !n || !n->child || !g)
        return rt_refuse_node("cudaGraphExecChildGraphNodeSetParams", node,
                              !x || !g ? "is given no instantiated graph or no child graph"
                                       : "is not a child graph node");
    rt_lock();
    int base = 0, bad = flatten(&old, n->child) || flatten(&y, g) || old.n != y.n ||
                        child_works(x, &old, &base);
    for (int i = 0; !bad && i < y.n; i++)
        bad = update_check(&x->works[base + i], &y.works[i]) != cudaGraphExecUpdateSuccess;
    for (int i = 0; !bad && i < y.n; i++) {
        struct rt_work w = x->works[base + i];
        x->works[base + i] = y.works[i];
        y.works[i] = w;
    }
    exec_clear(&old);
    exec_clear(&y);
    rt_unlock();
    if (bad)
        return rt_refuse_node("cudaGraphExecChildGraphNodeSetParams", node,
                              "is given a graph of other operations than its own");
    return cudaSuccess;
}

/* --- stream capture ----------------------------------------------------------------------- */

/* Room for @p n nodes in stream @p s's list of what its next node comes after. */
static void grow_after(struct rt_stream *s, int n)
{
    if (n <= s->capafter)
        return;
    s->after = emu_realloc(s->after, (size_t)n * sizeof *s->after);
    s->capafter = n;
}

/* @p s joins capture @p c (its streams are let go together at the end). */
static void join(struct rt_capture *c, struct rt_stream *s)
{
    c->streams = emu_realloc(c->streams, (size_t)(c->nstreams + 1) * sizeof *c->streams);
    c->streams[c->nstreams++] = s;
    s->capture = c;
    rt_capture_hook = rt_capture_add;
    s->nafter = 0;
}

cudaError_t rt_capture_add(struct rt_stream *s, const struct rt_work *w)
{
    struct rt_node *n = add_node(s->capture->g, s->after, s->nafter, w);
    grow_after(s, 1);
    s->after[0] = n;
    s->nafter = 1;
    return cudaSuccess;
}

cudaError_t rt_capture_record(struct rt_stream *s, struct rt_event *e)
{
    struct rt_node **after = emu_malloc((size_t)(s->nafter + 1) * sizeof *after);
    if (s->nafter)
        memcpy(after, s->after, (size_t)s->nafter * sizeof *after);
    free(e->after);
    e->after = after;
    e->nafter = s->nafter;
    e->capture = s->capture;
    return cudaSuccess;
}

cudaError_t rt_capture_wait(struct rt_stream *s, struct rt_event *e)
{
    struct rt_capture *c = e->capture;
    if (c->ended)
        return cudaSuccess; /* that capture's nodes are a graph now: nothing to wait for */
    if (s->capture && s->capture != c)
        return cudaErrorStreamCaptureIsolation;
    if (!s->capture)
        join(c, s);
    grow_after(s, s->nafter + e->nafter);
    if (e->nafter)
        memcpy(s->after + s->nafter, e->after, (size_t)e->nafter * sizeof *e->after);
    s->nafter += e->nafter;
    return cudaSuccess;
}

/* Set (or, when @p add, extend) what stream @p s's next captured node comes after. */
static void set_after(struct rt_stream *s, const cudaGraphNode_t *deps, size_t n, int add)
{
    int first = add ? s->nafter : 0;
    grow_after(s, first + (int)n);
    for (size_t i = 0; i < n; i++)
        s->after[first + (int)i] = (struct rt_node *)deps[i];
    s->nafter = first + (int)n;
}

/* Start capturing @p stream into @p into (NULL: a new graph), its first nodes after @p deps. */
static cudaError_t begin_capture(cudaStream_t stream, struct rt_graph *into,
                                 const cudaGraphNode_t *deps, size_t ndeps)
{
    rt_lock();
    struct rt_stream *s = rt_stream_of(stream);
    struct rt_capture *c;
    cudaError_t err = !s || s == rt_stream_of(cudaStreamLegacy) ? cudaErrorStreamCaptureUnsupported
                      : s->capture                              ? cudaErrorIllegalState
                                                                : cudaSuccess;
    if (err == cudaSuccess) {
        c = emu_calloc(1, sizeof *c);
        c->g = into ? into : rt_graph_new(NULL);
        join(c, s);
        set_after(s, deps, ndeps, 0);
    }
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    (void)mode; /* which other threads' calls a capture forbids: none is checked here */
    return begin_capture(stream, NULL, NULL, 0);
}

/* Capture into a graph that exists (a conditional node's body, most often). */
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t *dependencies,
                                          const cudaGraphEdgeData *dependencyData,
                                          size_t numDependencies, enum cudaStreamCaptureMode mode)
{
    (void)dependencyData, (void)mode; /* as in cudaGraphAddDependencies, cudaStreamBeginCapture */
    struct rt_graph *g = rt_graph_of(graph);
    return g ? begin_capture(stream, g, dependencies, numDependencies)
             : rt_error(cudaErrorInvalidValue);
}

cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                               const cudaGraphNode_t *dependencies,
                                               const cudaGraphEdgeData *dependencyData,
                                               size_t numDependencies,
                                               enum cudaStreamCaptureMode mode)
{
    return cudaStreamBeginCaptureToGraph(stream ? stream : cudaStreamPerThread, graph, dependencies,
                                         dependencyData, numDependencies, mode);
}

/* A node added by hand to the graph being captured joins the stream's order this way. */
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                const cudaGraphEdgeData *dependencyData,
                                                size_t numDependencies, unsigned int flags)
{
    (void)dependencyData;
    if (flags > cudaStreamSetCaptureDependencies)
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    struct rt_stream *s = rt_stream_of(stream);
    cudaError_t err = !s            ? cudaErrorInvalidResourceHandle
                      : !s->capture ? cudaErrorIllegalState
                                    : cudaSuccess;
    if (err == cudaSuccess)
        set_after(s, dependencies, numDependencies, flags == cudaStreamAddCaptureDependencies);
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
                                                     cudaGraphNode_t *dependencies,
                                                     const cudaGraphEdgeData *dependencyData,
                                                     size_t numDependencies, unsigned int flags)
{
    return cudaStreamUpdateCaptureDependencies(stream ? stream : cudaStreamPerThread, dependencies,
                                               dependencyData, numDependencies, flags);
}

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    return cudaStreamBeginCapture(stream ? stream : cudaStreamPerThread, mode);
}

/* The capture becomes a graph; every stream that joined it queues work again. */
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    rt_lock();
    struct rt_stream *s = rt_stream_of(stream);
    struct rt_capture *c = s ? s->capture : NULL;
    if (c) {
        for (int i = 0; i < c->nstreams; i++) {
            c->streams[i]->capture = NULL;
            c->streams[i]->nafter = 0;
        }
        free(c->streams);
        c->streams = NULL;
        c->nstreams = 0;
        c->ended = 1;
        if (pGraph) /* NULL after cudaStreamBeginCaptureToGraph, whose caller holds the graph */
            *pGraph = (cudaGraph_t)c->g;
    }
    rt_unlock();
    return c ? cudaSuccess : rt_error(cudaErrorIllegalState);
}

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    return cudaStreamEndCapture(stream ? stream : cudaStreamPerThread, pGraph);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    rt_lock();
    struct rt_stream *s = rt_stream_of(stream);
    if (s)
        *pCaptureStatus = s->capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    rt_unlock();
    return s ? cudaSuccess : rt_error(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                       enum cudaStreamCaptureStatus *pCaptureStatus)
{
    return cudaStreamIsCapturing(stream ? stream : cudaStreamPerThread, pCaptureStatus);
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    rt_lock();
    struct rt_stream *s = rt_stream_of(stream);
    struct rt_capture *c = s ? s->capture : NULL;
    if (s && captureStatus_out)
        *captureStatus_out = c ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (c && id_out)
        *id_out = (unsigned long long)(uintptr_t)c;
    if (c && graph_out)
        *graph_out = (cudaGraph_t)c->g;
    if (c && dependencies_out)
        *dependencies_out = (const cudaGraphNode_t *)s->after;
    if (c && edgeData_out)
        *edgeData_out = NULL;
    if (c && numDependencies_out)
        *numDependencies_out = (size_t)s->nafter;
    rt_unlock();
    return s ? cudaSuccess : rt_error(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                          enum cudaStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, cudaGraph_t *graph_out,
                                          const cudaGraphNode_t **dependencies_out,
                                          const cudaGraphEdgeData **edgeData_out,
                                          size_t *numDependencies_out)
{
    return cudaStreamGetCaptureInfo(stream ? stream : cudaStreamPerThread, captureStatus_out,
                                    id_out, graph_out, dependencies_out, edgeData_out,
                                    numDependencies_out);
}
