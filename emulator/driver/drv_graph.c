/**
 * @file drv_graph.c
 * @brief The driver stand-in: CUDA graphs and stream capture through the driver API, as
 *        cuda-python's and NVIDIA's driver samples build them.
 *
 * A CUgraph, CUgraphNode, CUgraphExec and CUuserObject are the runtime's own handles, and a
 * CUfunction is a function the runtime launches: every call here is the runtime's graph call
 * (runtime/graph/) with the driver's structures converted field by field. Kernel nodes take
 * their arguments as kernelParams or as an extra buffer, as cuLaunchKernel does; a library's
 * CUkernel may stand for the function, and the context names the one device state. Copy nodes take
 * a CUDA_MEMCPY3D between linear memories, as the runtime's copy nodes do. Each entry point is
 * defined under every name libcuda exports for it: the legacy signature under the plain name, the
 * current one under its versioned name (drv.h).
 */
#include <string.h>

#include "drv.h"

/* --- stream capture ------------------------------------------------------------------------- */

CUresult cuStreamBeginCapture(CUstream hStream)
{
    DRV_FORWARD("cuStreamBeginCapture",
                cudaStreamBeginCapture((cudaStream_t)hStream, cudaStreamCaptureModeGlobal));
}

CUresult cuStreamBeginCapture_ptsz(CUstream hStream)
{
    DRV_FORWARD("cuStreamBeginCapture",
                cudaStreamBeginCapture(drv_stream(hStream, 1), cudaStreamCaptureModeGlobal));
}

CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
    DRV_FORWARD("cuStreamBeginCapture",
                cudaStreamBeginCapture((cudaStream_t)hStream, (enum cudaStreamCaptureMode)mode));
}

CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{
    DRV_FORWARD("cuStreamBeginCapture",
                cudaStreamBeginCapture(drv_stream(hStream, 1), (enum cudaStreamCaptureMode)mode));
}

CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    DRV_FORWARD("cuStreamEndCapture",
                cudaStreamEndCapture((cudaStream_t)hStream, (cudaGraph_t *)phGraph));
}

CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
    DRV_FORWARD("cuStreamEndCapture",
                cudaStreamEndCapture(drv_stream(hStream, 1), (cudaGraph_t *)phGraph));
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    DRV_FORWARD("cuStreamIsCapturing",
                cudaStreamIsCapturing((cudaStream_t)hStream,
                                      (enum cudaStreamCaptureStatus *)captureStatus));
}

CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    DRV_FORWARD("cuStreamIsCapturing",
                cudaStreamIsCapturing(drv_stream(hStream, 1),
                                      (enum cudaStreamCaptureStatus *)captureStatus));
}

CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)
{
    DRV_FORWARD("cuLaunchHostFunc", cudaLaunchHostFunc((cudaStream_t)hStream, fn, userData));
}

CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData)
{
    DRV_FORWARD("cuLaunchHostFunc", cudaLaunchHostFunc(drv_stream(hStream, 1), fn, userData));
}

/* CUstreamCallback and cudaStreamCallback_t take the same stream, status and data. */
CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                             unsigned int flags)
{
    DRV_FORWARD("cuStreamAddCallback",
                cudaStreamAddCallback((cudaStream_t)hStream, (cudaStreamCallback_t)callback,
                                      userData, flags));
}

CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData,
                                  unsigned int flags)
{
    DRV_FORWARD("cuStreamAddCallback",
                cudaStreamAddCallback(drv_stream(hStream, 1), (cudaStreamCallback_t)callback,
                                      userData, flags));
}

/* --- graphs --------------------------------------------------------------------------------- */

CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    DRV_FORWARD("cuGraphCreate", cudaGraphCreate((cudaGraph_t *)phGraph, flags));
}

CUresult cuGraphDestroy(CUgraph hGraph)
{
    DRV_FORWARD("cuGraphDestroy", cudaGraphDestroy((cudaGraph_t)hGraph));
}

CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
    DRV_FORWARD("cuGraphClone",
                cudaGraphClone((cudaGraph_t *)phGraphClone, (cudaGraph_t)originalGraph));
}

CUresult cuGraphDebugDotPrint(CUgraph hGraph, const char *path, unsigned int flags)
{
    DRV_FORWARD("cuGraphDebugDotPrint", cudaGraphDebugDotPrint((cudaGraph_t)hGraph, path, flags));
}

CUresult cuGraphDestroyNode(CUgraphNode hNode)
{
    DRV_FORWARD("cuGraphDestroyNode", cudaGraphDestroyNode((cudaGraphNode_t)hNode));
}

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
    DRV_FORWARD("cuGraphGetNodes",
                cudaGraphGetNodes((cudaGraph_t)hGraph, (cudaGraphNode_t *)nodes, numNodes));
}

CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes)
{
    DRV_FORWARD(
        "cuGraphGetRootNodes",
        cudaGraphGetRootNodes((cudaGraph_t)hGraph, (cudaGraphNode_t *)rootNodes, numRootNodes));
}

/* CUgraphNodeType numbers the kinds as cudaGraphNodeType does. */
CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
    DRV_FORWARD("cuGraphNodeGetType",
                cudaGraphNodeGetType((cudaGraphNode_t)hNode, (enum cudaGraphNodeType *)type));
}

CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                size_t numDependencies)
{
    DRV_FORWARD("cuGraphAddDependencies",
                cudaGraphAddDependencies((cudaGraph_t)hGraph, (const cudaGraphNode_t *)from,
                                         (const cudaGraphNode_t *)to, NULL, numDependencies));
}

CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                   const CUgraphEdgeData *edgeData, size_t numDependencies)
{
    (void)edgeData; /* edge types matter to programmatic launches only */
    return cuGraphAddDependencies(hGraph, from, to, numDependencies);
}

CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies,
                                    size_t *numDependencies)
{
    DRV_FORWARD("cuGraphNodeGetDependencies",
                cudaGraphNodeGetDependencies((cudaGraphNode_t)hNode,
                                             (cudaGraphNode_t *)dependencies, NULL,
                                             numDependencies));
}

CUresult cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies,
                                       CUgraphEdgeData *edgeData, size_t *numDependencies)
{
    if (edgeData && dependencies)
        memset(edgeData, 0, *numDependencies * sizeof *edgeData);
    return cuGraphNodeGetDependencies(hNode, dependencies, numDependencies);
}

/* --- nodes ---------------------------------------------------------------------------------- */

/* The runtime's parameters of a kernel node: the first nine fields of both versions. */
static CUresult kernel_params(const CUDA_KERNEL_NODE_PARAMS_v1 *p, struct cudaKernelNodeParams *k,
                              const char *who)
{
    void **args = NULL;
    CUresult r = drv_ready(who);
    if (r == CUDA_SUCCESS)
        r = drv_args(r, !p);
    if (r == CUDA_SUCCESS)
        r = drv_kernel_args(p->func, p->kernelParams, p->extra, &args, who);
    *k = (struct cudaKernelNodeParams){(void *)p->func,
                                       {p->gridDimX, p->gridDimY, p->gridDimZ},
                                       {p->blockDimX, p->blockDimY, p->blockDimZ},
                                       p->sharedMemBytes,
                                       args,
                                       NULL};
    return r;
}

/* The first nine fields of CUDA_KERNEL_NODE_PARAMS_v2 are v1's, into @p v1; a library's kernel
 * (kern, with no func) is its function here (drv_library.c). */
static const CUDA_KERNEL_NODE_PARAMS_v1 *v1_of(const CUDA_KERNEL_NODE_PARAMS_v2 *p,
                                               CUDA_KERNEL_NODE_PARAMS_v1 *v1)
{
    if (!p)
        return NULL;
    memcpy(v1, p, sizeof *v1);
    if (!v1->func)
        v1->func = (CUfunction)p->kern;
    return v1;
}

CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                              const CUgraphNode *dependencies, size_t numDependencies,
                              const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    struct cudaKernelNodeParams k;
    CUresult r = kernel_params(nodeParams, &k, "cuGraphAddKernelNode");
    return r != CUDA_SUCCESS ? r
                             : drv_result(cudaGraphAddKernelNode(
                                   (cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                   (const cudaGraphNode_t *)dependencies, numDependencies, &k));
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                 const CUgraphNode *dependencies, size_t numDependencies,
                                 const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams)
{
    CUDA_KERNEL_NODE_PARAMS_v1 v1;
    return cuGraphAddKernelNode(phGraphNode, hGraph, dependencies, numDependencies,
                                v1_of(nodeParams, &v1));
}

CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    struct cudaKernelNodeParams k;
    CUresult r = kernel_params(nodeParams, &k, "cuGraphKernelNodeSetParams");
    return r != CUDA_SUCCESS ? r
                             : drv_result(cudaGraphKernelNodeSetParams((cudaGraphNode_t)hNode, &k));
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode,
                                       const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams)
{
    CUDA_KERNEL_NODE_PARAMS_v1 v1;
    return cuGraphKernelNodeSetParams(hNode, v1_of(nodeParams, &v1));
}

CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    struct cudaKernelNodeParams k;
    CUresult r = kernel_params(nodeParams, &k, "cuGraphExecKernelNodeSetParams");
    return r != CUDA_SUCCESS ? r
                             : drv_result(cudaGraphExecKernelNodeSetParams(
                                   (cudaGraphExec_t)hGraphExec, (cudaGraphNode_t)hNode, &k));
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                           const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams)
{
    CUDA_KERNEL_NODE_PARAMS_v1 v1;
    return cuGraphExecKernelNodeSetParams(hGraphExec, hNode, v1_of(nodeParams, &v1));
}

/* A kernel node's parameters: its arguments as kernelParams (never extra). */
static CUresult get_kernel(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
    struct cudaKernelNodeParams k;
    CUresult r = drv_ready("cuGraphKernelNodeGetParams");
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaGraphKernelNodeGetParams((cudaGraphNode_t)hNode, &k));
    if (r == CUDA_SUCCESS)
        *p = (CUDA_KERNEL_NODE_PARAMS_v1){
            (CUfunction)k.func, k.gridDim.x,  k.gridDim.y,      k.gridDim.z,    k.blockDim.x,
            k.blockDim.y,       k.blockDim.z, k.sharedMemBytes, k.kernelParams, NULL};
    return r;
}

CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams)
{
    return get_kernel(hNode, nodeParams);
}

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams)
{
    memset(nodeParams, 0, sizeof *nodeParams);
    return get_kernel(hNode, (CUDA_KERNEL_NODE_PARAMS_v1 *)nodeParams);
}

/* A copy between linear memories; the context names the device, and there is one memory. */
CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                              const CUgraphNode *dependencies, size_t numDependencies,
                              const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    (void)ctx;
    struct cudaMemcpy3DParms p;
    CUresult r = drv_ready("cuGraphAddMemcpyNode");
    if (r == CUDA_SUCCESS)
        r = drv_copy_parms(copyParams, &p, "cuGraphAddMemcpyNode");
    return r != CUDA_SUCCESS ? r
                             : drv_result(cudaGraphAddMemcpyNode(
                                   (cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                   (const cudaGraphNode_t *)dependencies, numDependencies, &p));
}

/* The runtime's fill parameters of @p p. */
static struct cudaMemsetParams fill_params(const CUDA_MEMSET_NODE_PARAMS *p)
{
    return (struct cudaMemsetParams){
        (void *)(uintptr_t)p->dst, p->pitch, p->value, p->elementSize, p->width, p->height};
}

CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                              const CUgraphNode *dependencies, size_t numDependencies,
                              const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    (void)ctx;
    CUresult r = drv_args(drv_ready("cuGraphAddMemsetNode"), !memsetParams);
    struct cudaMemsetParams p =
        r == CUDA_SUCCESS ? fill_params(memsetParams) : (struct cudaMemsetParams){0};
    return r != CUDA_SUCCESS ? r
                             : drv_result(cudaGraphAddMemsetNode(
                                   (cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                   (const cudaGraphNode_t *)dependencies, numDependencies, &p));
}

/* CUDA_HOST_NODE_PARAMS and cudaHostNodeParams hold the same function and data. */
CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                            const CUgraphNode *dependencies, size_t numDependencies,
                            const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    CUresult r = drv_args(drv_ready("cuGraphAddHostNode"), !nodeParams);
    return r != CUDA_SUCCESS
               ? r
               : drv_result(cudaGraphAddHostNode(
                     (cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                     (const cudaGraphNode_t *)dependencies, numDependencies,
                     &(struct cudaHostNodeParams){nodeParams->fn, nodeParams->userData}));
}

CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                             const CUgraphNode *dependencies, size_t numDependencies)
{
    DRV_FORWARD("cuGraphAddEmptyNode",
                cudaGraphAddEmptyNode((cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                      (const cudaGraphNode_t *)dependencies, numDependencies));
}

CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                  const CUgraphNode *dependencies, size_t numDependencies,
                                  CUgraph childGraph)
{
    DRV_FORWARD("cuGraphAddChildGraphNode",
                cudaGraphAddChildGraphNode((cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                           (const cudaGraphNode_t *)dependencies, numDependencies,
                                           (cudaGraph_t)childGraph));
}

CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                   const CUgraphNode *dependencies, size_t numDependencies,
                                   CUevent event)
{
    DRV_FORWARD("cuGraphAddEventRecordNode",
                cudaGraphAddEventRecordNode((cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                            (const cudaGraphNode_t *)dependencies, numDependencies,
                                            (cudaEvent_t)event));
}

CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                 const CUgraphNode *dependencies, size_t numDependencies,
                                 CUevent event)
{
    DRV_FORWARD("cuGraphAddEventWaitNode",
                cudaGraphAddEventWaitNode((cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                          (const cudaGraphNode_t *)dependencies, numDependencies,
                                          (cudaEvent_t)event));
}

CUresult cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS *nodeParams)
{
    DRV_FORWARD("cuGraphHostNodeGetParams",
                cudaGraphHostNodeGetParams((cudaGraphNode_t)hNode,
                                           (struct cudaHostNodeParams *)nodeParams));
}

CUresult cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    DRV_FORWARD("cuGraphHostNodeSetParams",
                cudaGraphHostNodeSetParams((cudaGraphNode_t)hNode,
                                           (const struct cudaHostNodeParams *)nodeParams));
}

/* --- instantiated graphs -------------------------------------------------------------------- */

CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                     unsigned long long flags)
{
    DRV_FORWARD("cuGraphInstantiate",
                cudaGraphInstantiate((cudaGraphExec_t *)phGraphExec, (cudaGraph_t)hGraph, flags));
}

/* The legacy form: no node is named and the log stays empty (the emulator said why). */
CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                            char *logBuffer, size_t bufferSize)
{
    if (phErrorNode)
        *phErrorNode = NULL;
    if (logBuffer && bufferSize)
        logBuffer[0] = 0;
    return cuGraphInstantiateWithFlags(phGraphExec, hGraph, 0);
}

CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                               char *logBuffer, size_t bufferSize)
{
    return cuGraphInstantiate(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}

CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    DRV_FORWARD("cuGraphExecDestroy", cudaGraphExecDestroy((cudaGraphExec_t)hGraphExec));
}

CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    DRV_FORWARD("cuGraphLaunch",
                cudaGraphLaunch((cudaGraphExec_t)hGraphExec, (cudaStream_t)hStream));
}

CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    DRV_FORWARD("cuGraphLaunch",
                cudaGraphLaunch((cudaGraphExec_t)hGraphExec, drv_stream(hStream, 1)));
}

CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream)
{
    DRV_FORWARD("cuGraphUpload",
                cudaGraphUpload((cudaGraphExec_t)hGraphExec, (cudaStream_t)hStream));
}

CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    DRV_FORWARD("cuGraphUpload",
                cudaGraphUpload((cudaGraphExec_t)hGraphExec, drv_stream(hStream, 1)));
}

CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                              CUgraphExecUpdateResultInfo *resultInfo)
{
    cudaGraphExecUpdateResultInfo info = {0};
    CUresult r = drv_ready("cuGraphExecUpdate");
    if (r == CUDA_SUCCESS)
        r = drv_result(
            cudaGraphExecUpdate((cudaGraphExec_t)hGraphExec, (cudaGraph_t)hGraph, &info));
    if (resultInfo)
        *resultInfo = (CUgraphExecUpdateResultInfo){(CUgraphExecUpdateResult)info.result,
                                                    (CUgraphNode)info.errorNode,
                                                    (CUgraphNode)info.errorFromNode};
    return r;
}

CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                           CUgraphExecUpdateResult *updateResult_out)
{
    CUgraphExecUpdateResultInfo info = {0};
    CUresult r = cuGraphExecUpdate_v2(hGraphExec, hGraph, &info);
    if (hErrorNode_out)
        *hErrorNode_out = info.errorNode;
    if (updateResult_out)
        *updateResult_out = info.result;
    return r;
}

CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled)
{
    DRV_FORWARD(
        "cuGraphNodeSetEnabled",
        cudaGraphNodeSetEnabled((cudaGraphExec_t)hGraphExec, (cudaGraphNode_t)hNode, isEnabled));
}

CUresult cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled)
{
    DRV_FORWARD(
        "cuGraphNodeGetEnabled",
        cudaGraphNodeGetEnabled((cudaGraphExec_t)hGraphExec, (cudaGraphNode_t)hNode, isEnabled));
}

CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                      const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    DRV_FORWARD("cuGraphExecHostNodeSetParams",
                cudaGraphExecHostNodeSetParams((cudaGraphExec_t)hGraphExec, (cudaGraphNode_t)hNode,
                                               (const struct cudaHostNodeParams *)nodeParams));
}

/* --- user objects --------------------------------------------------------------------------- */

CUresult cuUserObjectCreate(CUuserObject *object_out, void *ptr, CUhostFn destroy,
                            unsigned int initialRefcount, unsigned int flags)
{
    DRV_FORWARD("cuUserObjectCreate", cudaUserObjectCreate((cudaUserObject_t *)object_out, ptr,
                                                           destroy, initialRefcount, flags));
}

CUresult cuUserObjectRetain(CUuserObject object, unsigned int count)
{
    DRV_FORWARD("cuUserObjectRetain", cudaUserObjectRetain((cudaUserObject_t)object, count));
}

CUresult cuUserObjectRelease(CUuserObject object, unsigned int count)
{
    DRV_FORWARD("cuUserObjectRelease", cudaUserObjectRelease((cudaUserObject_t)object, count));
}

CUresult cuGraphRetainUserObject(CUgraph graph, CUuserObject object, unsigned int count,
                                 unsigned int flags)
{
    DRV_FORWARD(
        "cuGraphRetainUserObject",
        cudaGraphRetainUserObject((cudaGraph_t)graph, (cudaUserObject_t)object, count, flags));
}

CUresult cuGraphReleaseUserObject(CUgraph graph, CUuserObject object, unsigned int count)
{
    DRV_FORWARD("cuGraphReleaseUserObject",
                cudaGraphReleaseUserObject((cudaGraph_t)graph, (cudaUserObject_t)object, count));
}

/* --- any node by its parameters ------------------------------------------------------------- */

CUresult drv_node_params(const CUgraphNodeParams *p, struct cudaGraphNodeParams *q, const char *who)
{
    memset(q, 0, sizeof *q);
    q->type = (enum cudaGraphNodeType)p->type;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        const CUDA_KERNEL_NODE_PARAMS_v3 *k = &p->kernel;
        void **args = NULL;
        CUfunction f = k->func ? k->func : (CUfunction)k->kern;
        CUresult r = drv_kernel_args(f, k->kernelParams, k->extra, &args, who);
        q->kernel =
            (struct cudaKernelNodeParamsV2){.func = (void *)f,
                                            .gridDim = {k->gridDimX, k->gridDimY, k->gridDimZ},
                                            .blockDim = {k->blockDimX, k->blockDimY, k->blockDimZ},
                                            .sharedMemBytes = k->sharedMemBytes,
                                            .kernelParams = args};
        return r;
    }
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return drv_copy_parms(&p->memcpy.copyParams, &q->memcpy.copyParams, who);
    case CU_GRAPH_NODE_TYPE_MEMSET:
        q->memset = (struct cudaMemsetParamsV2){(void *)(uintptr_t)p->memset.dst,
                                                p->memset.pitch,
                                                p->memset.value,
                                                p->memset.elementSize,
                                                p->memset.width,
                                                p->memset.height};
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_HOST:
        q->host.fn = p->host.fn, q->host.userData = p->host.userData;
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_GRAPH:
        q->graph.graph = (cudaGraph_t)p->graph.graph;
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        q->eventRecord.event = (cudaEvent_t)p->eventRecord.event;
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        q->eventWait.event = (cudaEvent_t)p->eventWait.event;
        return CUDA_SUCCESS;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        q->conditional = (struct cudaConditionalNodeParams){
            .handle = p->conditional.handle,
            .type = (enum cudaGraphConditionalNodeType)p->conditional.type,
            .size = p->conditional.size,
            .phGraph_out = (cudaGraph_t *)p->conditional.phGraph_out};
        return CUDA_SUCCESS;
    default:
        return (CUresult)drv_not_supported("cuGraphAddNode of this node type (memory alloc and "
                                           "free, batch memory and semaphore nodes)");
    }
}

CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                           const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData,
                           size_t numDependencies, CUgraphNodeParams *nodeParams)
{
    struct cudaGraphNodeParams q;
    CUresult r = drv_args(drv_ready("cuGraphAddNode"), !nodeParams);
    if (r == CUDA_SUCCESS)
        r = drv_node_params(nodeParams, &q, "cuGraphAddNode");
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaGraphAddNode((cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                        (const cudaGraphNode_t *)dependencies,
                                        (const cudaGraphEdgeData *)dependencyData, numDependencies,
                                        &q));
    if (r == CUDA_SUCCESS && nodeParams->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
        nodeParams->conditional.phGraph_out = (CUgraph *)q.conditional.phGraph_out;
    return r;
}

CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                        size_t numDependencies, CUgraphNodeParams *nodeParams)
{
    return cuGraphAddNode_v2(phGraphNode, hGraph, dependencies, NULL, numDependencies, nodeParams);
}
