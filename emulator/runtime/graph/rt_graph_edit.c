/**
 * @file rt_graph_edit.c
 * @brief The runtime stand-in: a graph's shape read and changed after its nodes were added
 *        (nodes taken away, edges removed and listed, a clone's nodes found, child graphs and
 *        memory nodes read back), a graph written as a DOT file, and user objects.
 *
 * A user object is a reference count and a destructor. The program holds references, and so do
 * graphs (cudaGraphRetainUserObject) and, for every reference its graph held, each graph
 * instantiated from it: a clone references its original's objects again, an instantiated graph
 * its graph's. When the last reference goes, the work queued so far runs and then the
 * destructor, on the thread that gave the reference back (CUDA runs it on a thread of its own,
 * once the work that may use the object is done).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_graph.h"

enum { USER_MAGIC = 0x55534552 };

/** A user object. */
struct rt_user {
    uint32_t magic;
    void *ptr;
    cudaHostFn_t destroy;
    unsigned refs;
};

/* --- nodes and edges ------------------------------------------------------------------------ */

/* Take dependency @p i out of node @p n's list. */
static void drop_dep(struct rt_node *n, int i)
{
    memmove(&n->deps[i], &n->deps[i + 1], (size_t)(n->ndeps - i - 1) * sizeof *n->deps);
    n->ndeps--;
}

/* Nodes are numbered in list order: instantiation and clones rely on it. */
static void renumber(struct rt_graph *g)
{
    g->n = 0;
    g->last = NULL;
    for (struct rt_node *n = g->first; n; n = n->next) {
        n->index = g->n++;
        g->last = n;
    }
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    struct rt_node *gone = rt_node_of(node);
    if (!gone)
        return rt_refuse_node("cudaGraphDestroyNode", node, "is not a node of a live graph");
    rt_lock();
    struct rt_graph *g = gone->graph;
    for (struct rt_node **p = &g->first; *p; p = &(*p)->next)
        if (*p == gone) {
            *p = gone->next;
            break;
        }
    for (struct rt_node *n = g->first; n; n = n->next)
        for (int i = n->ndeps - 1; i >= 0; i--)
            if (n->deps[i] == gone)
                drop_dep(n, i);
    renumber(g);
    rt_node_free(gone);
    rt_unlock();
    return cudaSuccess;
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to,
                                        const cudaGraphEdgeData *edgeData, size_t numDependencies)
{
    (void)edgeData; /* edge types matter to programmatic launches only */
    if (!rt_graph_of(graph))
        return rt_error(cudaErrorInvalidValue);
    for (size_t k = 0; k < numDependencies; k++) {
        struct rt_node *t = rt_node_of(to[k]);
        int i = t ? t->ndeps - 1 : -1;
        while (i >= 0 && t->deps[i] != (struct rt_node *)from[k])
            i--;
        if (i < 0)
            return rt_refuse_node("cudaGraphRemoveDependencies", to[k],
                                  "does not depend on the node given beside it");
        drop_dep(t, i);
    }
    return cudaSuccess;
}

/* Put @p node into slot @p k of @p list (and zeros into @p data's) when there is room. */
static void put(cudaGraphNode_t *list, cudaGraphEdgeData *data, size_t k, size_t room,
                const struct rt_node *node)
{
    if (!list || k >= room)
        return;
    list[k] = (cudaGraphNode_t)node;
    if (data)
        memset(&data[k], 0, sizeof *data);
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                           cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes)
{
    const struct rt_node *me = rt_node_of(node);
    if (!me)
        return rt_refuse_node("cudaGraphNodeGetDependentNodes", node,
                              "is not a node of a live graph");
    size_t k = 0;
    for (const struct rt_node *n = me->graph->first; n; n = n->next)
        for (int i = 0; i < n->ndeps; i++)
            if (n->deps[i] == me) {
                put(pDependentNodes, edgeData, k++, *pNumDependentNodes, n);
                break;
            }
    if (!pDependentNodes || k < *pNumDependentNodes)
        *pNumDependentNodes = k;
    return cudaSuccess;
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              cudaGraphEdgeData *edgeData, size_t *numEdges)
{
    const struct rt_graph *g = rt_graph_of(graph);
    if (!g || !from != !to)
        return rt_error(cudaErrorInvalidValue);
    size_t k = 0;
    for (const struct rt_node *n = g->first; n; n = n->next)
        for (int i = 0; i < n->ndeps; i++, k++) {
            put(from, edgeData, k, *numEdges, n->deps[i]);
            put(to, NULL, k, *numEdges, n);
        }
    if (!from || k < *numEdges)
        *numEdges = k;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                     cudaGraph_t clonedGraph)
{
    const struct rt_graph *g = rt_graph_of(clonedGraph);
    if (!g)
        return rt_error(cudaErrorInvalidValue);
    for (const struct rt_node *n = g->first; n; n = n->next)
        if (n->origin == (const struct rt_node *)originalNode) {
            *pNode = (cudaGraphNode_t)n;
            return cudaSuccess;
        }
    return rt_refuse_node("cudaGraphNodeFindInClone", originalNode,
                          "has no clone in the graph given");
}

/* A child graph node's graph is its own copy: changing it changes the node. */
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph)
{
    const struct rt_node *n = rt_node_of(node);
    if (!n || !n->child)
        return rt_refuse_node("cudaGraphChildGraphNodeGetGraph", node,
                              n ? "is not a child graph node" : "is not a node of a live graph");
    *pGraph = (cudaGraph_t)n->child;
    return cudaSuccess;
}

/* The graph memory block of a memory node of kind @p fn, or NULL after one line for @p call. */
static struct rt_gm_block *mem_node(const char *call, cudaGraphNode_t node, cudaHostFn_t fn)
{
    const struct rt_node *n = rt_node_of(node);
    if (n && !n->cond && n->w.kind == RT_HOST_FN && n->w.u.host.fn == fn)
        return n->w.u.host.data;
    rt_refuse_node(call, node,
                   !n                      ? "is not a node of a live graph"
                   : fn == rt_gm_alloc_run ? "is not a memory allocation node"
                                           : "is not a memory free node");
    return NULL;
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                           struct cudaMemAllocNodeParams *params_out)
{
    struct rt_gm_block *b = mem_node("cudaGraphMemAllocNodeGetParams", node, rt_gm_alloc_run);
    if (!b)
        return cudaErrorInvalidValue;
    memset(params_out, 0, sizeof *params_out);
    params_out->poolProps.allocType = cudaMemAllocationTypePinned;
    params_out->poolProps.location.type = cudaMemLocationTypeDevice;
    params_out->bytesize = rt_gm_size(b);
    params_out->dptr = rt_gm_address(b);
    return cudaSuccess;
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    struct rt_gm_block *b = mem_node("cudaGraphMemFreeNodeGetParams", node, rt_gm_free_run);
    if (!b)
        return cudaErrorInvalidValue;
    *(void **)dptr_out = rt_gm_address(b);
    return cudaSuccess;
}

/* --- DOT ------------------------------------------------------------------------------------ */

/* Node @p n's label: its kind and what issued it (a kernel's name). */
static const char *label(const struct rt_node *n)
{
    enum cudaGraphNodeType t;
    static const char *const names[] = {[cudaGraphNodeTypeKernel] = "kernel",
                                        [cudaGraphNodeTypeMemcpy] = "memcpy",
                                        [cudaGraphNodeTypeMemset] = "memset",
                                        [cudaGraphNodeTypeHost] = "host",
                                        [cudaGraphNodeTypeGraph] = "child graph",
                                        [cudaGraphNodeTypeEmpty] = "empty",
                                        [cudaGraphNodeTypeWaitEvent] = "event wait",
                                        [cudaGraphNodeTypeEventRecord] = "event record",
                                        [cudaGraphNodeTypeMemAlloc] = "memory alloc",
                                        [cudaGraphNodeTypeMemFree] = "memory free",
                                        [cudaGraphNodeTypeConditional] = "conditional"};
    cudaGraphNodeGetType((cudaGraphNode_t)n, &t);
    return (size_t)t < sizeof names / sizeof *names && names[t] ? names[t] : "node";
}

/* Write @p g's nodes and edges into @p f as a cluster named @p name (child graphs nested). */
static void dot_graph(FILE *f, const struct rt_graph *g, const char *name, unsigned flags)
{
    fprintf(f, "subgraph \"cluster_%s\" {\nlabel=\"%s\";\n", name, name);
    for (const struct rt_node *n = g->first; n; n = n->next) {
        fprintf(f, "\"%s_%d\" [label=\"%d: %s\\n%s", name, n->index, n->index, label(n),
                n->w.what ? n->w.what : "");
        if (flags & cudaGraphDebugDotFlagsHandles)
            fprintf(f, "\\nnode %p", (const void *)n);
        fprintf(f, "\"];\n");
        for (int i = 0; i < n->ndeps; i++)
            fprintf(f, "\"%s_%d\" -> \"%s_%d\";\n", name, n->deps[i]->index, name, n->index);
        if (n->child) {
            char inner[256];
            snprintf(inner, sizeof inner, "%s_%d", name, n->index);
            dot_graph(f, n->child, inner, flags);
        }
    }
    fprintf(f, "}\n");
}

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags)
{
    const struct rt_graph *g = rt_graph_of(graph);
    if (!g || !path)
        return rt_error(cudaErrorInvalidValue);
    FILE *f = fopen(path, "w");
    if (!f) {
        emu_say("cudaGraphDebugDotPrint: cannot write %s (cudaErrorOperatingSystem)", path);
        return rt_error(cudaErrorOperatingSystem);
    }
    rt_lock();
    fprintf(f, "digraph graph_%llu {\ncompound=true;\n", (unsigned long long)rt_graph_id(g));
    char name[32];
    snprintf(name, sizeof name, "graph_%llu", (unsigned long long)rt_graph_id(g));
    dot_graph(f, g, name, flags);
    fprintf(f, "}\n");
    rt_unlock();
    return fclose(f) == 0 ? cudaSuccess : rt_error(cudaErrorOperatingSystem);
}

/* --- user objects ---------------------------------------------------------------------------- */

static struct rt_user *user_of(cudaUserObject_t o)
{
    struct rt_user *u = (struct rt_user *)o;
    return u && u->magic == USER_MAGIC ? u : NULL;
}

/* Give back @p count of @p u's references; the last one destroys it. */
static void user_release(struct rt_user *u, unsigned count)
{
    u->refs -= count < u->refs ? count : u->refs;
    if (u->refs)
        return;
    rt_run_all(); /* the work that may still use it */
    u->magic = 0;
    if (u->destroy)
        u->destroy(u->ptr);
    free(u);
}

void rt_user_refs_release(struct rt_user_ref *refs, int n)
{
    for (int i = 0; i < n; i++)
        if (refs[i].count) /* none: the object may be gone */
            user_release(refs[i].obj, refs[i].count);
}

struct rt_user_ref *rt_user_refs_copy(const struct rt_user_ref *refs, int n)
{
    if (!n)
        return NULL;
    struct rt_user_ref *c = emu_malloc((size_t)n * sizeof *c);
    memcpy(c, refs, (size_t)n * sizeof *c);
    for (int i = 0; i < n; i++)
        if (c[i].count)
            c[i].obj->refs += c[i].count;
    return c;
}

cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr, cudaHostFn_t destroy,
                                 unsigned int initialRefcount, unsigned int flags)
{
    if (!object_out || !initialRefcount || flags != cudaUserObjectNoDestructorSync)
        return rt_error(cudaErrorInvalidValue); /* CUDA asks for that flag */
    struct rt_user *u = emu_calloc(1, sizeof *u);
    *u = (struct rt_user){USER_MAGIC, ptr, destroy, initialRefcount};
    *object_out = (cudaUserObject_t)u;
    return cudaSuccess;
}

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count)
{
    struct rt_user *u = user_of(object);
    if (!u || !count)
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    u->refs += count;
    rt_unlock();
    return cudaSuccess;
}

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count)
{
    struct rt_user *u = user_of(object);
    if (!u || !count)
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    user_release(u, count);
    rt_unlock();
    return cudaSuccess;
}

/* The entry of @p g's references for @p u, made (with no count) when it has none. */
static struct rt_user_ref *ref_in(struct rt_graph *g, struct rt_user *u)
{
    for (int i = 0; i < g->nrefs; i++)
        if (g->refs[i].obj == u)
            return &g->refs[i];
    g->refs = emu_realloc(g->refs, (size_t)(g->nrefs + 1) * sizeof *g->refs);
    g->refs[g->nrefs] = (struct rt_user_ref){u, 0};
    return &g->refs[g->nrefs++];
}

/* With cudaGraphUserObjectMove the caller's references pass to the graph. */
cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                      unsigned int count, unsigned int flags)
{
    struct rt_graph *g = rt_graph_of(graph);
    struct rt_user *u = user_of(object);
    if (!g || !u || !count || (flags & ~(unsigned)cudaGraphUserObjectMove))
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    ref_in(g, u)->count += count;
    if (!(flags & cudaGraphUserObjectMove))
        u->refs += count;
    rt_unlock();
    return cudaSuccess;
}

cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object,
                                       unsigned int count)
{
    struct rt_graph *g = rt_graph_of(graph);
    struct rt_user *u = user_of(object);
    if (!g || !u || !count)
        return rt_error(cudaErrorInvalidValue);
    rt_lock();
    struct rt_user_ref *r = ref_in(g, u);
    cudaError_t err = r->count >= count ? cudaSuccess : cudaErrorInvalidValue;
    if (err == cudaSuccess) {
        r->count -= count;
        user_release(u, count);
    } else {
        emu_say("cudaGraphReleaseUserObject: the graph holds %u references to the object, "
                "fewer than the %u given back (cudaErrorInvalidValue)",
                r->count, count);
    }
    rt_unlock();
    return rt_error(err);
}
