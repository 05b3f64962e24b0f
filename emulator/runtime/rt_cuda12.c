/**
 * @file rt_cuda12.c
 * @brief The runtime stand-in as libcudart.so.12: CUDA 12's older signatures of the entry
 * points whose CUDA 13 signature it exports under a versioned name (emu_cuda12.h).
 *
 * Built only with a CUDA 12 toolkit. A program built with CUDA 12 calls these names by
 * default: each is the versioned call with no edge data, or with a memory location for a
 * device number (cudaCpuDeviceId for the host), as CUDA 12 documents the pairs. Then the
 * cudaThread* calls CUDA 12 still declares. Not rt.h: here the plain names must stay plain.
 * What CUDA 12 declares and this does not emulate is in rt_cuda12_unsupported.c.
 */
#include <cuda_runtime_api.h>

cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                             const cudaGraphNode_t *pDependencies, size_t numDependencies,
                             struct cudaGraphNodeParams *nodeParams)
{
    return cudaGraphAddNode_v2(pGraphNode, graph, pDependencies, NULL, numDependencies, nodeParams);
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, size_t numDependencies)
{
    return cudaGraphAddDependencies_v2(graph, from, to, NULL, numDependencies);
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                         size_t *pNumDependencies)
{
    return cudaGraphNodeGetDependencies_v2(node, pDependencies, NULL, pNumDependencies);
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                           size_t *pNumDependentNodes)
{
    return cudaGraphNodeGetDependentNodes_v2(node, pDependentNodes, NULL, pNumDependentNodes);
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                        const cudaGraphNode_t *to, size_t numDependencies)
{
    return cudaGraphRemoveDependencies_v2(graph, from, to, NULL, numDependencies);
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                              size_t *numEdges)
{
    return cudaGraphGetEdges_v2(graph, from, to, NULL, numEdges);
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                size_t numDependencies, unsigned int flags)
{
    return cudaStreamUpdateCaptureDependencies_v2(stream, dependencies, NULL, numDependencies,
                                                  flags);
}

cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t stream,
                                        enum cudaStreamCaptureStatus *captureStatus_out,
                                        unsigned long long *id_out, cudaGraph_t *graph_out,
                                        const cudaGraphNode_t **dependencies_out,
                                        size_t *numDependencies_out)
{
    return cudaStreamGetCaptureInfo_v3(stream, captureStatus_out, id_out, graph_out,
                                       dependencies_out, NULL, numDependencies_out);
}

/* A device number as a memory location: cudaCpuDeviceId is the host. */
static struct cudaMemLocation location_of(int device)
{
    if (device == cudaCpuDeviceId)
        return (struct cudaMemLocation){.type = cudaMemLocationTypeHost};
    return (struct cudaMemLocation){.type = cudaMemLocationTypeDevice, .id = device};
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                 cudaStream_t stream)
{
    return cudaMemPrefetchAsync_v2(devPtr, count, location_of(dstDevice), 0, stream);
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          int device)
{
    return cudaMemAdvise_v2(devPtr, count, advice, location_of(device));
}

/* Their per-thread default stream forms (nvcc --default-stream per-thread), over the versioned
 * calls' own, which CUDA 12's header names only through its renaming macros. */
cudaError_t cudaStreamUpdateCaptureDependencies_v2_ptsz(cudaStream_t, cudaGraphNode_t *,
                                                        const cudaGraphEdgeData *, size_t,
                                                        unsigned int);
cudaError_t cudaStreamGetCaptureInfo_v3_ptsz(cudaStream_t, enum cudaStreamCaptureStatus *,
                                             unsigned long long *, cudaGraph_t *,
                                             const cudaGraphNode_t **, const cudaGraphEdgeData **,
                                             size_t *);
cudaError_t cudaMemPrefetchAsync_v2_ptsz(const void *, size_t, struct cudaMemLocation, unsigned int,
                                         cudaStream_t);

cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
                                                     cudaGraphNode_t *dependencies,
                                                     size_t numDependencies, unsigned int flags)
{
    return cudaStreamUpdateCaptureDependencies_v2_ptsz(stream, dependencies, NULL, numDependencies,
                                                       flags);
}

cudaError_t cudaStreamGetCaptureInfo_v2_ptsz(cudaStream_t stream,
                                             enum cudaStreamCaptureStatus *captureStatus_out,
                                             unsigned long long *id_out, cudaGraph_t *graph_out,
                                             const cudaGraphNode_t **dependencies_out,
                                             size_t *numDependencies_out)
{
    return cudaStreamGetCaptureInfo_v3_ptsz(stream, captureStatus_out, id_out, graph_out,
                                            dependencies_out, NULL, numDependencies_out);
}

cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, int dstDevice,
                                      cudaStream_t stream)
{
    return cudaMemPrefetchAsync_v2_ptsz(devPtr, count, location_of(dstDevice), 0, stream);
}

/* CUDA 12 still declares the cudaThread* calls that the cudaDevice* ones replaced. */
cudaError_t cudaThreadExit(void)
{
    return cudaDeviceReset();
}

cudaError_t cudaThreadSynchronize(void)
{
    return cudaDeviceSynchronize();
}

cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value)
{
    return cudaDeviceSetLimit(limit, value);
}

cudaError_t cudaThreadGetLimit(size_t *pValue, enum cudaLimit limit)
{
    return cudaDeviceGetLimit(pValue, limit);
}

cudaError_t cudaThreadGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    return cudaDeviceGetCacheConfig(pCacheConfig);
}

cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    return cudaDeviceSetCacheConfig(cacheConfig);
}
