/**
 * @file drv_graph_edit.c
 * @brief The driver stand-in: graphs read back and changed after their nodes were added (copy,
 *        fill, event and memory nodes' parameters, edges, clones, child graphs), graph memory,
 *        conditional handles, instantiation with parameters and what a capture is building.
 *
 * As drv_graph.c: each call is the runtime's (runtime/graph/rt_graph_params.c and
 * rt_graph_edit.c) with the driver's structures converted field by field.
 */
#include <string.h>

#include "drv.h"

/* --- what a capture is building ------------------------------------------------------------- */

/* Every form of cuStreamGetCaptureInfo: what the runtime's answers, for the pointers given. */
static CUresult capture_info(cudaStream_t s, CUstreamCaptureStatus *status, cuuint64_t *id,
                             CUgraph *graph, const CUgraphNode **deps,
                             const CUgraphEdgeData **edges, size_t *ndeps)
{
    DRV_FORWARD("cuStreamGetCaptureInfo",
                cudaStreamGetCaptureInfo(s, (enum cudaStreamCaptureStatus *)status,
                                         (unsigned long long *)id, (cudaGraph_t *)graph,
                                         (const cudaGraphNode_t **)deps,
                                         (const cudaGraphEdgeData **)edges, ndeps));
}

CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                cuuint64_t *id_out)
{
    return capture_info((cudaStream_t)hStream, captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}

CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                     cuuint64_t *id_out)
{
    return capture_info(drv_stream(hStream, 1), captureStatus_out, id_out, NULL, NULL, NULL, NULL);
}

CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                   cuuint64_t *id_out, CUgraph *graph_out,
                                   const CUgraphNode **dependencies_out,
                                   size_t *numDependencies_out)
{
    return capture_info((cudaStream_t)hStream, captureStatus_out, id_out, graph_out,
                        dependencies_out, NULL, numDependencies_out);
}

CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out,
                                        size_t *numDependencies_out)
{
    return capture_info(drv_stream(hStream, 1), captureStatus_out, id_out, graph_out,
                        dependencies_out, NULL, numDependencies_out);
}

CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                   cuuint64_t *id_out, CUgraph *graph_out,
                                   const CUgraphNode **dependencies_out,
                                   const CUgraphEdgeData **edgeData_out,
                                   size_t *numDependencies_out)
{
    return capture_info((cudaStream_t)hStream, captureStatus_out, id_out, graph_out,
                        dependencies_out, edgeData_out, numDependencies_out);
}

CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out,
                                        const CUgraphEdgeData **edgeData_out,
                                        size_t *numDependencies_out)
{
    return capture_info(drv_stream(hStream, 1), captureStatus_out, id_out, graph_out,
                        dependencies_out, edgeData_out, numDependencies_out);
}

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    DRV_FORWARD("cuThreadExchangeStreamCaptureMode",
                cudaThreadExchangeStreamCaptureMode((enum cudaStreamCaptureMode *)mode));
}

/* --- edges, clones, child graphs ------------------------------------------------------------ */

CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges)
{
    DRV_FORWARD("cuGraphGetEdges", cudaGraphGetEdges((cudaGraph_t)hGraph, (cudaGraphNode_t *)from,
                                                     (cudaGraphNode_t *)to, NULL, numEdges));
}

CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                            CUgraphEdgeData *edgeData, size_t *numEdges)
{
    DRV_FORWARD("cuGraphGetEdges",
                cudaGraphGetEdges((cudaGraph_t)hGraph, (cudaGraphNode_t *)from,
                                  (cudaGraphNode_t *)to, (cudaGraphEdgeData *)edgeData, numEdges));
}

CUresult cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                   size_t numDependencies)
{
    DRV_FORWARD("cuGraphRemoveDependencies",
                cudaGraphRemoveDependencies((cudaGraph_t)hGraph, (const cudaGraphNode_t *)from,
                                            (const cudaGraphNode_t *)to, NULL, numDependencies));
}

CUresult cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
                                      const CUgraphNode *to, const CUgraphEdgeData *edgeData,
                                      size_t numDependencies)
{
    (void)edgeData; /* edge types matter to programmatic launches only */
    return cuGraphRemoveDependencies(hGraph, from, to, numDependencies);
}

CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                      size_t *numDependentNodes)
{
    DRV_FORWARD("cuGraphNodeGetDependentNodes",
                cudaGraphNodeGetDependentNodes((cudaGraphNode_t)hNode,
                                               (cudaGraphNode_t *)dependentNodes, NULL,
                                               numDependentNodes));
}

CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                         CUgraphEdgeData *edgeData, size_t *numDependentNodes)
{
    DRV_FORWARD("cuGraphNodeGetDependentNodes",
                cudaGraphNodeGetDependentNodes((cudaGraphNode_t)hNode,
                                               (cudaGraphNode_t *)dependentNodes,
                                               (cudaGraphEdgeData *)edgeData, numDependentNodes));
}

CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode,
                                CUgraph hClonedGraph)
{
    DRV_FORWARD("cuGraphNodeFindInClone",
                cudaGraphNodeFindInClone((cudaGraphNode_t *)phNode, (cudaGraphNode_t)hOriginalNode,
                                         (cudaGraph_t)hClonedGraph));
}

CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph)
{
    DRV_FORWARD("cuGraphChildGraphNodeGetGraph",
                cudaGraphChildGraphNodeGetGraph((cudaGraphNode_t)hNode, (cudaGraph_t *)phGraph));
}

/* --- copy, fill and event nodes' parameters ------------------------------------------------- */

CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams)
{
    struct cudaMemcpy3DParms p;
    CUresult r = drv_args(drv_ready("cuGraphMemcpyNodeGetParams"), !nodeParams);
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaGraphMemcpyNodeGetParams((cudaGraphNode_t)hNode, &p));
    if (r != CUDA_SUCCESS)
        return r;
    int src_host = p.kind == cudaMemcpyHostToDevice || p.kind == cudaMemcpyHostToHost;
    int dst_host = p.kind == cudaMemcpyDeviceToHost || p.kind == cudaMemcpyHostToHost;
    memset(nodeParams, 0, sizeof *nodeParams);
    nodeParams->srcMemoryType = src_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    nodeParams->srcHost = p.srcPtr.ptr;
    nodeParams->srcDevice = (CUdeviceptr)(uintptr_t)p.srcPtr.ptr;
    nodeParams->srcPitch = p.srcPtr.pitch, nodeParams->srcHeight = p.srcPtr.ysize;
    nodeParams->dstMemoryType = dst_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    nodeParams->dstHost = p.dstPtr.ptr;
    nodeParams->dstDevice = (CUdeviceptr)(uintptr_t)p.dstPtr.ptr;
    nodeParams->dstPitch = p.dstPtr.pitch, nodeParams->dstHeight = p.dstPtr.ysize;
    nodeParams->WidthInBytes = p.extent.width, nodeParams->Height = p.extent.height;
    nodeParams->Depth = p.extent.depth;
    return CUDA_SUCCESS;
}

/* Copy parameters @p c set in node @p node of a graph, or (@p exec) of an instantiated one. */
static CUresult set_copy(CUgraphExec exec, CUgraphNode node, const CUDA_MEMCPY3D *c,
                         const char *who)
{
    struct cudaMemcpy3DParms p;
    CUresult r = drv_ready(who);
    if (r == CUDA_SUCCESS)
        r = drv_copy_parms(c, &p, who);
    if (r != CUDA_SUCCESS)
        return r;
    return drv_result(
        exec ? cudaGraphExecMemcpyNodeSetParams((cudaGraphExec_t)exec, (cudaGraphNode_t)node, &p)
             : cudaGraphMemcpyNodeSetParams((cudaGraphNode_t)node, &p));
}

CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams)
{
    return set_copy(NULL, hNode, nodeParams, "cuGraphMemcpyNodeSetParams");
}

CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    (void)ctx;
    return set_copy(hGraphExec, hNode, copyParams, "cuGraphExecMemcpyNodeSetParams");
}

CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    struct cudaMemsetParams p;
    CUresult r = drv_args(drv_ready("cuGraphMemsetNodeGetParams"), !nodeParams);
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaGraphMemsetNodeGetParams((cudaGraphNode_t)hNode, &p));
    if (r == CUDA_SUCCESS)
        *nodeParams = (CUDA_MEMSET_NODE_PARAMS){
            (CUdeviceptr)(uintptr_t)p.dst, p.pitch, p.value, p.elementSize, p.width, p.height};
    return r;
}

/* Fill parameters @p f set in node @p node of a graph, or (@p exec) of an instantiated one. */
static CUresult set_fill(CUgraphExec exec, CUgraphNode node, const CUDA_MEMSET_NODE_PARAMS *f,
                         const char *who)
{
    CUresult r = drv_args(drv_ready(who), !f);
    if (r != CUDA_SUCCESS)
        return r;
    struct cudaMemsetParams p = {
        (void *)(uintptr_t)f->dst, f->pitch, f->value, f->elementSize, f->width, f->height};
    return drv_result(
        exec ? cudaGraphExecMemsetNodeSetParams((cudaGraphExec_t)exec, (cudaGraphNode_t)node, &p)
             : cudaGraphMemsetNodeSetParams((cudaGraphNode_t)node, &p));
}

CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
    return set_fill(NULL, hNode, nodeParams, "cuGraphMemsetNodeSetParams");
}

CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    (void)ctx;
    return set_fill(hGraphExec, hNode, memsetParams, "cuGraphExecMemsetNodeSetParams");
}

CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
    DRV_FORWARD("cuGraphEventRecordNodeGetEvent",
                cudaGraphEventRecordNodeGetEvent((cudaGraphNode_t)hNode, (cudaEvent_t *)event_out));
}

CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event)
{
    DRV_FORWARD("cuGraphEventRecordNodeSetEvent",
                cudaGraphEventRecordNodeSetEvent((cudaGraphNode_t)hNode, (cudaEvent_t)event));
}

CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out)
{
    DRV_FORWARD("cuGraphEventWaitNodeGetEvent",
                cudaGraphEventWaitNodeGetEvent((cudaGraphNode_t)hNode, (cudaEvent_t *)event_out));
}

CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event)
{
    DRV_FORWARD("cuGraphEventWaitNodeSetEvent",
                cudaGraphEventWaitNodeSetEvent((cudaGraphNode_t)hNode, (cudaEvent_t)event));
}

CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode,
                                            CUevent event)
{
    DRV_FORWARD("cuGraphExecEventRecordNodeSetEvent",
                cudaGraphExecEventRecordNodeSetEvent((cudaGraphExec_t)hGraphExec,
                                                     (cudaGraphNode_t)hNode, (cudaEvent_t)event));
}

CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event)
{
    DRV_FORWARD("cuGraphExecEventWaitNodeSetEvent",
                cudaGraphExecEventWaitNodeSetEvent((cudaGraphExec_t)hGraphExec,
                                                   (cudaGraphNode_t)hNode, (cudaEvent_t)event));
}

/* --- graph memory, conditional handles, instantiation with parameters ----------------------- */

/* The pool's properties and access descriptions change nothing: graph memory is one block. */
CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                const CUgraphNode *dependencies, size_t numDependencies,
                                CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    CUresult r = drv_args(drv_ready("cuGraphAddMemAllocNode"), !nodeParams);
    struct cudaMemAllocNodeParams p = {0};
    p.bytesize = r == CUDA_SUCCESS ? nodeParams->bytesize : 0;
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaGraphAddMemAllocNode((cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                                (const cudaGraphNode_t *)dependencies,
                                                numDependencies, &p));
    if (r == CUDA_SUCCESS)
        nodeParams->dptr = (CUdeviceptr)(uintptr_t)p.dptr;
    return r;
}

CUresult cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                               const CUgraphNode *dependencies, size_t numDependencies,
                               CUdeviceptr dptr)
{
    DRV_FORWARD("cuGraphAddMemFreeNode",
                cudaGraphAddMemFreeNode((cudaGraphNode_t *)phGraphNode, (cudaGraph_t)hGraph,
                                        (const cudaGraphNode_t *)dependencies, numDependencies,
                                        (void *)(uintptr_t)dptr));
}

CUresult cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out)
{
    struct cudaMemAllocNodeParams p;
    CUresult r = drv_args(drv_ready("cuGraphMemAllocNodeGetParams"), !params_out);
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaGraphMemAllocNodeGetParams((cudaGraphNode_t)hNode, &p));
    if (r == CUDA_SUCCESS) {
        memset(params_out, 0, sizeof *params_out);
        params_out->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        params_out->poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        params_out->bytesize = p.bytesize;
        params_out->dptr = (CUdeviceptr)(uintptr_t)p.dptr;
    }
    return r;
}

CUresult cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out)
{
    void *p = NULL;
    CUresult r = drv_args(drv_ready("cuGraphMemFreeNodeGetParams"), !dptr_out);
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaGraphMemFreeNodeGetParams((cudaGraphNode_t)hNode, &p));
    if (r == CUDA_SUCCESS)
        *dptr_out = (CUdeviceptr)(uintptr_t)p;
    return r;
}

CUresult cuDeviceGraphMemTrim(CUdevice device)
{
    DRV_FORWARD("cuDeviceGraphMemTrim", cudaDeviceGraphMemTrim((int)device));
}

/* CUgraphMem_attribute numbers the attributes as cudaGraphMemAttributeType does. */
CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    DRV_FORWARD(
        "cuDeviceGetGraphMemAttribute",
        cudaDeviceGetGraphMemAttribute((int)device, (enum cudaGraphMemAttributeType)attr, value));
}

CUresult cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value)
{
    DRV_FORWARD(
        "cuDeviceSetGraphMemAttribute",
        cudaDeviceSetGraphMemAttribute((int)device, (enum cudaGraphMemAttributeType)attr, value));
}

/* The context names the device, and there is one device state. */
CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *pHandle_out, CUgraph hGraph,
                                        CUcontext ctx, unsigned int defaultLaunchValue,
                                        unsigned int flags)
{
    (void)ctx;
    DRV_FORWARD("cuGraphConditionalHandleCreate",
                cudaGraphConditionalHandleCreate((cudaGraphConditionalHandle *)pHandle_out,
                                                 (cudaGraph_t)hGraph, defaultLaunchValue, flags));
}

_Static_assert(sizeof(CUDA_GRAPH_INSTANTIATE_PARAMS) == sizeof(cudaGraphInstantiateParams),
               "CUDA_GRAPH_INSTANTIATE_PARAMS and cudaGraphInstantiateParams differ");

CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    DRV_FORWARD("cuGraphInstantiateWithParams",
                cudaGraphInstantiateWithParams((cudaGraphExec_t *)phGraphExec, (cudaGraph_t)hGraph,
                                               (cudaGraphInstantiateParams *)instantiateParams));
}

CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                           CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
    return cuGraphInstantiateWithParams(phGraphExec, hGraph, instantiateParams);
}

CUresult cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t *flags)
{
    DRV_FORWARD("cuGraphExecGetFlags",
                cudaGraphExecGetFlags((cudaGraphExec_t)hGraphExec, (unsigned long long *)flags));
}

/* --- any node's parameters, and kernel nodes' attributes ------------------------------------ */

CUresult cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *nodeParams)
{
    struct cudaGraphNodeParams q;
    CUresult r = drv_args(drv_ready("cuGraphNodeSetParams"), !nodeParams);
    if (r == CUDA_SUCCESS)
        r = drv_node_params(nodeParams, &q, "cuGraphNodeSetParams");
    return r != CUDA_SUCCESS ? r : drv_result(cudaGraphNodeSetParams((cudaGraphNode_t)hNode, &q));
}

CUresult cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                  CUgraphNodeParams *nodeParams)
{
    struct cudaGraphNodeParams q;
    CUresult r = drv_args(drv_ready("cuGraphExecNodeSetParams"), !nodeParams);
    if (r == CUDA_SUCCESS)
        r = drv_node_params(nodeParams, &q, "cuGraphExecNodeSetParams");
    return r != CUDA_SUCCESS ? r
                             : drv_result(cudaGraphExecNodeSetParams((cudaGraphExec_t)hGraphExec,
                                                                     (cudaGraphNode_t)hNode, &q));
}

CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                            CUgraph childGraph)
{
    DRV_FORWARD("cuGraphExecChildGraphNodeSetParams",
                cudaGraphExecChildGraphNodeSetParams(
                    (cudaGraphExec_t)hGraphExec, (cudaGraphNode_t)hNode, (cudaGraph_t)childGraph));
}

/* CUkernelNodeAttrValue is laid out as cudaKernelNodeAttrValue, numbered the same. */
CUresult cuGraphKernelNodeGetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                       CUkernelNodeAttrValue *value_out)
{
    DRV_FORWARD("cuGraphKernelNodeGetAttribute",
                cudaGraphKernelNodeGetAttribute((cudaGraphNode_t)hNode, (cudaKernelNodeAttrID)attr,
                                                (cudaKernelNodeAttrValue *)value_out));
}

CUresult cuGraphKernelNodeSetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                       const CUkernelNodeAttrValue *value)
{
    DRV_FORWARD("cuGraphKernelNodeSetAttribute",
                cudaGraphKernelNodeSetAttribute((cudaGraphNode_t)hNode, (cudaKernelNodeAttrID)attr,
                                                (const cudaKernelNodeAttrValue *)value));
}

CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src)
{
    DRV_FORWARD("cuGraphKernelNodeCopyAttributes",
                cudaGraphKernelNodeCopyAttributes((cudaGraphNode_t)dst, (cudaGraphNode_t)src));
}
