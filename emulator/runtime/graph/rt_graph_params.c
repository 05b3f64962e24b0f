/**
 * @file rt_graph_params.c
 * @brief The runtime stand-in: graph nodes' parameters, read back and set, in a graph or in an
 *        instantiated one, and nodes of an instantiated graph turned off and on.
 *
 * A node's parameters are its work (rt_graph.c): setting them in a graph replaces the node's
 * work, which later instantiations copy; setting them in an instantiated graph replaces that
 * graph's copy, which its next launches queue (launches already queued keep what they were
 * queued with, as on a GPU). A kernel, copy, fill, host or event node's parameters can be set,
 * each only with parameters of its own kind, and read back: a kernel node's arguments as
 * pointers into the node's own copy of them (valid until its parameters are set again), a copy
 * node's as one 3D copy between linear memories (cudaGraphAddMemcpyNode1D's too), a fill node's
 * as the program gave them. A disabled node of an instantiated graph (kernels, copies and fills,
 * as CUDA allows) does nothing when the graph is launched until it is enabled again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "rt_graph.h"

cudaError_t rt_refuse_node(const char *call, cudaGraphNode_t node, const char *why)
{
    emu_say("%s: node %p %s (cudaErrorInvalidValue)", call, (void *)node, why);
    return rt_error(cudaErrorInvalidValue);
}

cudaError_t rt_kernel_node_work(const struct cudaKernelNodeParams *p, struct rt_work *w)
{
    if (!p->kernelParams && p->extra)
        return rt_not_supported("a kernel node with arguments in extra");
    cudaError_t err =
        rt_kernel_work(p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes, w);
    return err == cudaSuccess ? err : rt_error(err);
}

int rt_exec_find(const struct rt_exec *x, cudaGraphNode_t node)
{
    for (int i = 0; i < x->n; i++)
        if (x->from[i] == (const struct rt_node *)node)
            return i;
    return -1;
}

/* The kind a node's work must be for setters of @p kind: kernels, copies, fills, host
 * functions (not the host functions of memory and conditional nodes), event records, waits. */
static int node_is(const struct rt_node *n, const struct rt_work *w, enum cudaGraphNodeType kind)
{
    if (n && (n->child || n->cond))
        return 0;
    int host =
        w->kind == RT_HOST_FN && w->u.host.fn != rt_gm_alloc_run && w->u.host.fn != rt_gm_free_run;
    switch (kind) {
    case cudaGraphNodeTypeKernel:
        return w->kind == RT_KERNEL;
    case cudaGraphNodeTypeMemcpy:
        return w->kind == RT_COPY;
    case cudaGraphNodeTypeMemset:
        return w->kind == RT_FILL;
    case cudaGraphNodeTypeHost:
        return host;
    case cudaGraphNodeTypeEventRecord:
        return w->kind == RT_RECORD;
    case cudaGraphNodeTypeWaitEvent:
        return w->kind == RT_NOP && w->event;
    default:
        return 0;
    }
}

static const char *const kind_names[] = {[cudaGraphNodeTypeKernel] = "a kernel node",
                                         [cudaGraphNodeTypeMemcpy] = "a copy node",
                                         [cudaGraphNodeTypeMemset] = "a fill node",
                                         [cudaGraphNodeTypeHost] = "a host node",
                                         [cudaGraphNodeTypeEventRecord] = "an event record node",
                                         [cudaGraphNodeTypeWaitEvent] = "an event wait node"};

/* The node @p node of a graph whose work is of @p kind, or NULL after one line for @p call. */
static struct rt_node *graph_node(const char *call, cudaGraphNode_t node,
                                  enum cudaGraphNodeType kind)
{
    struct rt_node *n = rt_node_of(node);
    if (n && node_is(n, &n->w, kind))
        return n;
    char why[80];
    snprintf(why, sizeof why, "is not %s", kind_names[kind]);
    rt_refuse_node(call, node, n ? why : "is not a node of a live graph");
    return NULL;
}

/* The work of @p x instantiated from @p node, of @p kind, or NULL after one line for @p call. */
static struct rt_work *exec_work(const char *call, cudaGraphExec_t exec, cudaGraphNode_t node,
                                 enum cudaGraphNodeType kind)
{
    struct rt_exec *x = rt_exec_of(exec);
    int i = x ? rt_exec_find(x, node) : -1;
    if (i >= 0 && node_is(rt_node_of(node), &x->works[i], kind))
        return &x->works[i];
    char why[80];
    snprintf(why, sizeof why, "is not %s", kind_names[kind]);
    rt_refuse_node(call, node,
                   !x      ? "names no instantiated graph"
                   : i < 0 ? "is not in the instantiated graph"
                           : why);
    return NULL;
}

/* Replace *@p old by @p w (made by @p err's call) when @p err is cudaSuccess. */
static cudaError_t replace(struct rt_work *old, struct rt_work *w, cudaError_t err)
{
    if (err != cudaSuccess)
        return rt_error(err);
    rt_lock();
    rt_work_free(old);
    *old = *w;
    rt_unlock();
    return cudaSuccess;
}

/* --- kernels ------------------------------------------------------------------------------- */

static cudaError_t set_kernel(struct rt_work *old, const struct cudaKernelNodeParams *p)
{
    struct rt_work w;
    cudaError_t err = rt_kernel_node_work(p, &w);
    return err != cudaSuccess ? err : replace(old, &w, err);
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaKernelNodeParams *pNodeParams)
{
    struct rt_node *n = graph_node("cudaGraphKernelNodeSetParams", node, cudaGraphNodeTypeKernel);
    return n ? set_kernel(&n->w, pNodeParams) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *pNodeParams)
{
    struct rt_work *w =
        exec_work("cudaGraphExecKernelNodeSetParams", hGraphExec, node, cudaGraphNodeTypeKernel);
    return w ? set_kernel(w, pNodeParams) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                         struct cudaKernelNodeParams *pNodeParams)
{
    struct rt_node *n = graph_node("cudaGraphKernelNodeGetParams", node, cudaGraphNodeTypeKernel);
    if (!n)
        return cudaErrorInvalidValue;
    const struct proto_launch *l = &n->w.u.kernel.l;
    const void *func = NULL;
    rt_lock();
    free(n->args);
    n->args = NULL;
    cudaError_t err = rt_kernel_args(&n->w, &func, &n->args);
    rt_unlock();
    if (err != cudaSuccess)
        return rt_error(err);
    *pNodeParams = (struct cudaKernelNodeParams){(void *)func,
                                                 {l->grid[0], l->grid[1], l->grid[2]},
                                                 {l->block[0], l->block[1], l->block[2]},
                                                 l->dyn_smem,
                                                 n->args,
                                                 NULL};
    return cudaSuccess;
}

/* A kernel node's attributes: cluster dimensions and a cooperative launch are its launch's (set
 * them and the launch is checked again, as cudaLaunchKernelEx checks one); the others (access
 * policy, priority, scheduling and memory synchronisation hints) change nothing here and are
 * kept to be read back. */
static int attr_ok(cudaKernelNodeAttrID attr)
{
    return attr > cudaLaunchAttributeIgnore && (int)attr < RT_NODE_ATTRS;
}

cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                            const cudaKernelNodeAttrValue *value)
{
    struct rt_node *n =
        graph_node("cudaGraphKernelNodeSetAttribute", hNode, cudaGraphNodeTypeKernel);
    if (!n || !value || !attr_ok(attr))
        return n ? rt_error(cudaErrorInvalidValue) : cudaErrorInvalidValue;
    const struct proto_launch *l = &n->w.u.kernel.l;
    if (attr == cudaLaunchAttributeClusterDimension || attr == cudaLaunchAttributeCooperative) {
        uint32_t c[3] = {l->cluster[0], l->cluster[1], l->cluster[2]};
        int coop =
            attr == cudaLaunchAttributeCooperative ? value->cooperative != 0 : (int)l->cooperative;
        if (attr == cudaLaunchAttributeClusterDimension)
            c[0] = value->clusterDim.x, c[1] = value->clusterDim.y, c[2] = value->clusterDim.z;
        struct rt_work w;
        cudaError_t err = rt_kernel_rework(&n->w, c, coop, &w);
        if (err != cudaSuccess)
            return rt_error(err);
        replace(&n->w, &w, err);
    }
    rt_lock();
    if (!n->attrs)
        n->attrs = emu_calloc(RT_NODE_ATTRS, sizeof *n->attrs);
    n->attrs[attr] = *value;
    rt_unlock();
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                            cudaKernelNodeAttrValue *value_out)
{
    struct rt_node *n =
        graph_node("cudaGraphKernelNodeGetAttribute", hNode, cudaGraphNodeTypeKernel);
    if (!n || !value_out || !attr_ok(attr))
        return n ? rt_error(cudaErrorInvalidValue) : cudaErrorInvalidValue;
    const struct proto_launch *l = &n->w.u.kernel.l;
    memset(value_out, 0, sizeof *value_out);
    if (n->attrs)
        *value_out = n->attrs[attr];
    if (attr == cudaLaunchAttributeClusterDimension) {
        value_out->clusterDim.x = l->cluster[0], value_out->clusterDim.y = l->cluster[1];
        value_out->clusterDim.z = l->cluster[2];
    } else if (attr == cudaLaunchAttributeCooperative) {
        value_out->cooperative = (int)l->cooperative;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc)
{
    const char *call = "cudaGraphKernelNodeCopyAttributes";
    struct rt_node *d = graph_node(call, hDst, cudaGraphNodeTypeKernel);
    struct rt_node *s = d ? graph_node(call, hSrc, cudaGraphNodeTypeKernel) : NULL;
    cudaError_t err = s ? cudaSuccess : cudaErrorInvalidValue;
    for (int a = 1; err == cudaSuccess && a < RT_NODE_ATTRS; a++) {
        cudaKernelNodeAttrValue v;
        cudaGraphKernelNodeGetAttribute(hSrc, (cudaKernelNodeAttrID)a, &v);
        err = cudaGraphKernelNodeSetAttribute(hDst, (cudaKernelNodeAttrID)a, &v);
    }
    return err;
}

/* --- copies -------------------------------------------------------------------------------- */

/* The copy @p p describes (between linear memories, one slice deep), as @p call. */
static cudaError_t copy_work(const struct cudaMemcpy3DParms *p, const char *call, struct rt_work *w)
{
    if (p->srcArray || p->dstArray || p->extent.depth > 1 || p->srcPos.z || p->dstPos.z)
        return rt_not_supported("a graph's copy node with arrays or several slices");
    const struct cudaPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
    char *dst = (char *)d->ptr + p->dstPos.y * d->pitch + p->dstPos.x;
    const char *src = (const char *)s->ptr + p->srcPos.y * s->pitch + p->srcPos.x;
    size_t rows = p->extent.height ? p->extent.height : 1;
    rt_lock();
    cudaError_t err =
        rt_copy_work(dst, d->pitch, src, s->pitch, p->extent.width, rows, p->kind, call, w);
    rt_unlock();
    return err;
}

/* The 3D copy parameters of cudaMemcpy1D-like arguments. */
static struct cudaMemcpy3DParms copy_1d(void *dst, const void *src, size_t count,
                                        enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p = {0};
    p.srcPtr = (struct cudaPitchedPtr){(void *)src, count, count, 1};
    p.dstPtr = (struct cudaPitchedPtr){dst, count, count, 1};
    p.extent = (struct cudaExtent){count, 1, 1};
    p.kind = kind;
    return p;
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemcpy3DParms *p)
{
    struct rt_work w;
    cudaError_t err = copy_work(p, "cudaGraphAddMemcpyNode", &w);
    if (err != cudaSuccess)
        return rt_error(err);
    return rt_graph_add(pGraphNode, graph, pDependencies, numDependencies, &w);
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaMemcpy3DParms *pNodeParams)
{
    const char *call = "cudaGraphMemcpyNodeSetParams";
    struct rt_node *n = graph_node(call, node, cudaGraphNodeTypeMemcpy);
    struct rt_work w;
    return n ? replace(&n->w, &w, copy_work(pNodeParams, call, &w)) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src,
                                           size_t count, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p = copy_1d(dst, src, count, kind);
    return cudaGraphMemcpyNodeSetParams(node, &p);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms *pNodeParams)
{
    const char *call = "cudaGraphExecMemcpyNodeSetParams";
    struct rt_work *old = exec_work(call, hGraphExec, node, cudaGraphNodeTypeMemcpy), w;
    return old ? replace(old, &w, copy_work(pNodeParams, call, &w)) : cudaErrorInvalidValue;
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                               void *dst, const void *src, size_t count,
                                               enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p = copy_1d(dst, src, count, kind);
    return cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, &p);
}

/* The copy to (@p to) or from @p count bytes at @p offset of device variable @p symbol, from or
 * to @p mem, into *@p p, for @p call. */
static cudaError_t symbol_params(const char *call, const void *symbol, void *mem, size_t count,
                                 size_t offset, enum cudaMemcpyKind kind, int to,
                                 struct cudaMemcpy3DParms *p)
{
    void *dev = NULL;
    cudaError_t err = rt_symbol_range(symbol, count, offset, call, &dev);
    kind = rt_symbol_kind(kind, to);
    *p = to ? copy_1d(dev, mem, count, kind) : copy_1d(mem, dev, count, kind);
    return err;
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           size_t numDependencies, const void *symbol,
                                           const void *src, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    cudaError_t err = symbol_params("cudaGraphAddMemcpyNodeToSymbol", symbol, (void *)src, count,
                                    offset, kind, 1, &p);
    return err != cudaSuccess
               ? err
               : cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &p);
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies, void *dst, const void *symbol,
                                             size_t count, size_t offset, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    cudaError_t err =
        symbol_params("cudaGraphAddMemcpyNodeFromSymbol", symbol, dst, count, offset, kind, 0, &p);
    return err != cudaSuccess
               ? err
               : cudaGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &p);
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
                                                 const void *src, size_t count, size_t offset,
                                                 enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    cudaError_t err = symbol_params("cudaGraphMemcpyNodeSetParamsToSymbol", symbol, (void *)src,
                                    count, offset, kind, 1, &p);
    return err != cudaSuccess ? err : cudaGraphMemcpyNodeSetParams(node, &p);
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
                                                   const void *symbol, size_t count, size_t offset,
                                                   enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    cudaError_t err = symbol_params("cudaGraphMemcpyNodeSetParamsFromSymbol", symbol, dst, count,
                                    offset, kind, 0, &p);
    return err != cudaSuccess ? err : cudaGraphMemcpyNodeSetParams(node, &p);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
                                                     cudaGraphNode_t node, const void *symbol,
                                                     const void *src, size_t count, size_t offset,
                                                     enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    cudaError_t err = symbol_params("cudaGraphExecMemcpyNodeSetParamsToSymbol", symbol, (void *)src,
                                    count, offset, kind, 1, &p);
    return err != cudaSuccess ? err : cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, &p);
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
                                                       cudaGraphNode_t node, void *dst,
                                                       const void *symbol, size_t count,
                                                       size_t offset, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms p;
    cudaError_t err = symbol_params("cudaGraphExecMemcpyNodeSetParamsFromSymbol", symbol, dst,
                                    count, offset, kind, 0, &p);
    return err != cudaSuccess ? err : cudaGraphExecMemcpyNodeSetParams(hGraphExec, node, &p);
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
                                         struct cudaMemcpy3DParms *pNodeParams)
{
    struct rt_node *n = graph_node("cudaGraphMemcpyNodeGetParams", node, cudaGraphNodeTypeMemcpy);
    if (!n)
        return cudaErrorInvalidValue;
    static const enum cudaMemcpyKind kinds[] = {cudaMemcpyHostToHost, cudaMemcpyHostToDevice,
                                                cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice};
    const struct rt_work *w = &n->w;
    struct cudaMemcpy3DParms p = {0};
    p.srcPtr = (struct cudaPitchedPtr){(void *)w->u.copy.src, w->u.copy.spitch, w->u.copy.width,
                                       w->u.copy.height};
    p.dstPtr = (struct cudaPitchedPtr){(void *)w->u.copy.dst, w->u.copy.dpitch, w->u.copy.width,
                                       w->u.copy.height};
    p.extent = (struct cudaExtent){w->u.copy.width, w->u.copy.height, 1};
    p.kind = kinds[w->u.copy.sides & 3];
    *pNodeParams = p;
    return cudaSuccess;
}

/* --- fills --------------------------------------------------------------------------------- */

/* The fill @p p describes: elements of 1, 2 or 4 bytes. */
static cudaError_t fill_work(const struct cudaMemsetParams *p, const char *call, struct rt_work *w)
{
    unsigned e = p->elementSize;
    if (e != 1 && e != 2 && e != 4)
        return cudaErrorInvalidValue;
    uint32_t v = e == 4 ? p->value : p->value & (e == 2 ? 0xffffu : 0xffu);
    size_t rows = p->height ? p->height : 1;
    rt_lock();
    cudaError_t err = rt_fill_elems(p->dst, rows > 1 ? p->pitch : p->width * e, v, e, p->width * e,
                                    rows, call, w);
    rt_unlock();
    return err;
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const struct cudaMemsetParams *p)
{
    struct rt_work w;
    cudaError_t err = fill_work(p, "cudaGraphAddMemsetNode", &w);
    if (err == cudaSuccess)
        err = rt_graph_add(pGraphNode, graph, pDependencies, numDependencies, &w);
    if (err != cudaSuccess)
        return rt_error(err);
    ((struct rt_node *)*pGraphNode)->fill = *p;
    return cudaSuccess;
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
                                         const struct cudaMemsetParams *pNodeParams)
{
    const char *call = "cudaGraphMemsetNodeSetParams";
    struct rt_node *n = graph_node(call, node, cudaGraphNodeTypeMemset);
    struct rt_work w;
    cudaError_t err =
        n ? replace(&n->w, &w, fill_work(pNodeParams, call, &w)) : cudaErrorInvalidValue;
    if (err == cudaSuccess)
        n->fill = *pNodeParams;
    return err;
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams *pNodeParams)
{
    const char *call = "cudaGraphExecMemsetNodeSetParams";
    struct rt_work *old = exec_work(call, hGraphExec, node, cudaGraphNodeTypeMemset), w;
    return old ? replace(old, &w, fill_work(pNodeParams, call, &w)) : cudaErrorInvalidValue;
}

/* A captured fill reads back as the elements it was made of. */
cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams)
{
    struct rt_node *n = graph_node("cudaGraphMemsetNodeGetParams", node, cudaGraphNodeTypeMemset);
    if (!n)
        return cudaErrorInvalidValue;
    const struct rt_work *w = &n->w;
    *pNodeParams = n->fill.elementSize ? n->fill
                                       : (struct cudaMemsetParams){(void *)w->u.fill.p,
                                                                   w->u.fill.pitch,
                                                                   w->u.fill.value,
                                                                   w->u.fill.elem,
                                                                   w->u.fill.width / w->u.fill.elem,
                                                                   w->u.fill.height};
    return cudaSuccess;
}

/* --- host functions and events ------------------------------------------------------------- */

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams)
{
    struct rt_node *n = graph_node("cudaGraphHostNodeGetParams", node, cudaGraphNodeTypeHost);
    if (!n)
        return cudaErrorInvalidValue;
    *pNodeParams = (struct cudaHostNodeParams){n->w.u.host.fn, n->w.u.host.data};
    return cudaSuccess;
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
                                       const struct cudaHostNodeParams *pNodeParams)
{
    struct rt_node *n = graph_node("cudaGraphHostNodeSetParams", node, cudaGraphNodeTypeHost);
    if (!n)
        return cudaErrorInvalidValue;
    n->w.u.host.fn = pNodeParams->fn;
    n->w.u.host.data = pNodeParams->userData;
    return cudaSuccess;
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams *pNodeParams)
{
    struct rt_work *w =
        exec_work("cudaGraphExecHostNodeSetParams", hGraphExec, node, cudaGraphNodeTypeHost);
    if (!w)
        return cudaErrorInvalidValue;
    w->u.host.fn = pNodeParams->fn;
    w->u.host.data = pNodeParams->userData;
    return cudaSuccess;
}

/* The event of event node @p node of @p kind, into *@p out, for @p call. */
static cudaError_t get_event(const char *call, cudaGraphNode_t node, enum cudaGraphNodeType kind,
                             cudaEvent_t *out)
{
    struct rt_node *n = graph_node(call, node, kind);
    if (n)
        *out = (cudaEvent_t)n->w.event;
    return n ? cudaSuccess : cudaErrorInvalidValue;
}

/* Event node @p node's (or, with @p exec, its instantiated work's) event becomes @p e. */
static cudaError_t set_event(const char *call, cudaGraphExec_t exec, cudaGraphNode_t node,
                             enum cudaGraphNodeType kind, cudaEvent_t e)
{
    struct rt_node *n = exec ? NULL : graph_node(call, node, kind);
    struct rt_work *w = exec ? exec_work(call, exec, node, kind) : n ? &n->w : NULL;
    if (!w)
        return cudaErrorInvalidValue;
    if (!rt_event_of(e))
        return rt_refuse_node(call, node, "is given no live event");
    w->event = (struct rt_event *)e;
    return cudaSuccess;
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    return get_event("cudaGraphEventRecordNodeGetEvent", node, cudaGraphNodeTypeEventRecord,
                     event_out);
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out)
{
    return get_event("cudaGraphEventWaitNodeGetEvent", node, cudaGraphNodeTypeWaitEvent, event_out);
}

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    return set_event("cudaGraphEventRecordNodeSetEvent", NULL, node, cudaGraphNodeTypeEventRecord,
                     event);
}

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event)
{
    return set_event("cudaGraphEventWaitNodeSetEvent", NULL, node, cudaGraphNodeTypeWaitEvent,
                     event);
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                 cudaEvent_t event)
{
    return set_event("cudaGraphExecEventRecordNodeSetEvent", hGraphExec, hNode,
                     cudaGraphNodeTypeEventRecord, event);
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                               cudaEvent_t event)
{
    return set_event("cudaGraphExecEventWaitNodeSetEvent", hGraphExec, hNode,
                     cudaGraphNodeTypeWaitEvent, event);
}

/* --- any node's parameters, by type --------------------------------------------------------- */

/* Set node @p node's parameters @p p, in instantiated graph @p exec or (NULL) in its graph. */
static cudaError_t set_params(cudaGraphExec_t exec, cudaGraphNode_t node,
                              const struct cudaGraphNodeParams *p)
{
    const struct cudaKernelNodeParamsV2 *k = &p->kernel;
    const struct cudaMemsetParamsV2 *m = &p->memset;
    struct cudaKernelNodeParams kp = {k->func,           k->gridDim,      k->blockDim,
                                      k->sharedMemBytes, k->kernelParams, k->extra};
    struct cudaMemsetParams mp = {m->dst, m->pitch, m->value, m->elementSize, m->width, m->height};
    struct cudaHostNodeParams hp = {p->host.fn, p->host.userData};
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return exec ? cudaGraphExecKernelNodeSetParams(exec, node, &kp)
                    : cudaGraphKernelNodeSetParams(node, &kp);
    case cudaGraphNodeTypeMemcpy:
        return exec ? cudaGraphExecMemcpyNodeSetParams(exec, node, &p->memcpy.copyParams)
                    : cudaGraphMemcpyNodeSetParams(node, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset:
        return exec ? cudaGraphExecMemsetNodeSetParams(exec, node, &mp)
                    : cudaGraphMemsetNodeSetParams(node, &mp);
    case cudaGraphNodeTypeHost:
        return exec ? cudaGraphExecHostNodeSetParams(exec, node, &hp)
                    : cudaGraphHostNodeSetParams(node, &hp);
    case cudaGraphNodeTypeEventRecord:
        return set_event("cudaGraphNodeSetParams", exec, node, p->type, p->eventRecord.event);
    case cudaGraphNodeTypeWaitEvent:
        return set_event("cudaGraphNodeSetParams", exec, node, p->type, p->eventWait.event);
    default:
        emu_say("cudaGraphNodeSetParams: setting the parameters of node type %d is not emulated "
                "(kernel, copy, fill, host and event nodes' are) (cudaErrorNotSupported)",
                (int)p->type);
        return rt_error(cudaErrorNotSupported);
    }
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams)
{
    return set_params(NULL, node, nodeParams);
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                       struct cudaGraphNodeParams *nodeParams)
{
    if (!rt_exec_of(graphExec))
        return rt_refuse_node("cudaGraphExecNodeSetParams", node, "names no instantiated graph");
    return set_params(graphExec, node, nodeParams);
}

/* --- nodes turned off ----------------------------------------------------------------------- */

/* The work of @p x from @p node that may be turned off (a kernel, copy or fill), or -1. */
static int switchable(const char *call, const struct rt_exec *x, cudaGraphNode_t node)
{
    int i = x ? rt_exec_find(x, node) : -1;
    enum rt_work_kind k = i >= 0 ? x->works[i].kind : RT_NOP;
    if (i >= 0 && (k == RT_KERNEL || k == RT_COPY || k == RT_FILL))
        return i;
    rt_refuse_node(call, node,
                   !x      ? "names no instantiated graph"
                   : i < 0 ? "is not in the instantiated graph"
                           : "is not a kernel, copy or fill node (only those can be disabled)");
    return -1;
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                    unsigned int isEnabled)
{
    struct rt_exec *x = rt_exec_of(hGraphExec);
    int i = switchable("cudaGraphNodeSetEnabled", x, hNode);
    if (i < 0)
        return cudaErrorInvalidValue;
    rt_lock();
    if (!x->off)
        x->off = emu_calloc((size_t)x->cap, 1);
    x->off[i] = !isEnabled;
    rt_unlock();
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                    unsigned int *isEnabled)
{
    const struct rt_exec *x = rt_exec_of(hGraphExec);
    int i = switchable("cudaGraphNodeGetEnabled", x, hNode);
    if (i < 0)
        return cudaErrorInvalidValue;
    *isEnabled = !x->off || !x->off[i];
    return cudaSuccess;
}
