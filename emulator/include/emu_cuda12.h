/**
 * @file emu_cuda12.h
 * @brief Built against a CUDA 12 toolkit: the names CUDA 12 gives to CUDA 13's signatures.
 *
 * The stand-in compiles against the headers of the toolkit the course builds with, so with
 * CUDA 12 its structures have CUDA 12's layouts and CMake names it libcudart.so.12. The entry
 * points below are written with CUDA 13's signatures (edge data, memory locations), which CUDA
 * 12 exports under versioned names (cudaGraphAddNode_v2, cudaStreamGetCaptureInfo_v3, ...)
 * beside older signatures of the plain names: with CUDA 12 the definitions take the versioned
 * names here, and rt_cuda12.c defines the older entry points on top of them. CUDA 12's own
 * headers already rename cudaGetDeviceProperties (to _v2) and the external semaphore calls.
 * Included by rt.h, and by the emulator's tests, which call these entry points with CUDA 13's
 * signatures too; nothing with CUDA 13. It includes the runtime's header first: the names it
 * renames must be declared before they are renamed.
 */
#ifndef EMU_CUDA12_H
#define EMU_CUDA12_H

#include <cuda_runtime_api.h>

#if CUDART_VERSION < 13000
#define cudaGraphAddNode cudaGraphAddNode_v2
#define cudaGraphAddDependencies cudaGraphAddDependencies_v2
#define cudaGraphNodeGetDependencies cudaGraphNodeGetDependencies_v2
#define cudaGraphNodeGetDependentNodes cudaGraphNodeGetDependentNodes_v2
#define cudaGraphRemoveDependencies cudaGraphRemoveDependencies_v2
#define cudaGraphGetEdges cudaGraphGetEdges_v2
#define cudaStreamUpdateCaptureDependencies cudaStreamUpdateCaptureDependencies_v2
#define cudaStreamUpdateCaptureDependencies_ptsz cudaStreamUpdateCaptureDependencies_v2_ptsz
#undef cudaStreamGetCaptureInfo
#define cudaStreamGetCaptureInfo cudaStreamGetCaptureInfo_v3
#define cudaStreamGetCaptureInfo_ptsz cudaStreamGetCaptureInfo_v3_ptsz
#define cudaMemPrefetchAsync cudaMemPrefetchAsync_v2
#define cudaMemPrefetchAsync_ptsz cudaMemPrefetchAsync_v2_ptsz
#define cudaMemAdvise cudaMemAdvise_v2
#if CUDART_VERSION < 12080
/* CUDA 12.8 added SWITCH conditional nodes (the next type after WHILE). */
#define cudaGraphCondTypeSwitch ((enum cudaGraphConditionalNodeType)(cudaGraphCondTypeWhile + 1))
#endif
#endif

#endif
