/**
 * @file rt_graph_mem.c
 * @brief The runtime stand-in: graph memory (memory nodes, and cudaMallocAsync and cudaFreeAsync
 *        captured into a graph).
 *
 * Each memory node owns one block with its own address, as on a GPU, where a graph's allocation
 * keeps its virtual address from launch to launch. Here the block is allocated when the node is
 * added and stays allocated until the process ends; what a launch changes is whether it is in
 * use: the alloc node's run puts it in use, and the free node's run (or a cudaFree or
 * cudaFreeAsync by the program, which only end its use) takes it out. The emulator does not
 * check that kernels touch a block only while it is in use.
 *
 * The attributes count bytes as CUDA's pool does: in use now; held (the most ever in use since
 * the last cudaDeviceGraphMemTrim, which gives back what is not in use), used and reserved alike;
 * and the high-water marks of both.
 */
#include <stdlib.h>

#include "rt.h"

/** A block of graph memory. */
struct rt_gm_block {
    void *p;
    size_t bytes;
    int live; /**< put in use by a launch and not yet freed */
    struct rt_gm_block *next;
};

/** Every block, and the byte counts behind the attributes (all under the runtime lock). */
static struct {
    struct rt_gm_block *blocks;
    uint64_t held, high;
} gm;

static uint64_t bytes_in_use(void)
{
    uint64_t n = 0;
    for (const struct rt_gm_block *b = gm.blocks; b; b = b->next)
        n += b->live ? b->bytes : 0;
    return n;
}

static int release(const void *p);

struct rt_gm_block *rt_gm_new(size_t bytes)
{
    struct rt_gm_block *b = emu_calloc(1, sizeof *b);
    if (rt_malloc_at(&b->p, bytes ? bytes : 1, NULL) != cudaSuccess) {
        free(b);
        return NULL;
    }
    b->bytes = bytes;
    rt_lock();
    rt_free_hook = release;
    b->next = gm.blocks;
    gm.blocks = b;
    rt_unlock();
    return b;
}

struct rt_gm_block *rt_gm_find(const void *p)
{
    for (struct rt_gm_block *b = gm.blocks; b; b = b->next)
        if (b->p == p)
            return b;
    return NULL;
}

void *rt_gm_address(const struct rt_gm_block *b)
{
    return b->p;
}

size_t rt_gm_size(const struct rt_gm_block *b)
{
    return b->bytes;
}

void rt_gm_alloc_run(void *block)
{
    struct rt_gm_block *b = block;
    b->live = 1;
    uint64_t used = bytes_in_use();
    gm.held = used > gm.held ? used : gm.held;
    gm.high = gm.held > gm.high ? gm.held : gm.high;
}

void rt_gm_free_run(void *block)
{
    ((struct rt_gm_block *)block)->live = 0;
}

/* What cudaFree does first (rt_memory.c's rt_free_hook, set with the first block): graph memory
 * goes out of use, its block kept for the graph's next launch. */
static int release(const void *p)
{
    struct rt_gm_block *b = rt_gm_find(p);
    if (b)
        b->live = 0;
    return b != NULL;
}

/* cudaMallocAsync on captured stream @p s, under the lock: an alloc node. */
static cudaError_t capture_alloc(struct rt_stream *s, void **devPtr, size_t size)
{
    struct rt_gm_block *b = rt_gm_new(size);
    if (!b)
        return cudaErrorMemoryAllocation;
    struct rt_work w = {.kind = RT_HOST_FN, .what = "cudaMallocAsync (captured)"};
    w.u.host.fn = rt_gm_alloc_run;
    w.u.host.data = b;
    *devPtr = b->p;
    return rt_capture_add(s, &w);
}

/* cudaFreeAsync on captured stream @p s, under the lock: a free node (of graph memory only). */
static cudaError_t capture_free(struct rt_stream *s, void *devPtr)
{
    struct rt_gm_block *b = rt_gm_find(devPtr);
    if (!b)
        return cudaSuccess; /* other memory: kept for the graph's launches, no node */
    struct rt_work w = {.kind = RT_HOST_FN, .what = "cudaFreeAsync (captured)"};
    w.u.host.fn = rt_gm_free_run;
    w.u.host.data = b;
    return rt_capture_add(s, &w);
}

/* --- stream-ordered allocation, captured or not -------------------------------------------- */

/* Captured into a graph, the allocation is a memory node of the graph (rt_graph_mem.c). */
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    rt_lock();
    struct rt_stream *st = rt_stream_of(hStream);
    cudaError_t err = st && st->capture ? capture_alloc(st, devPtr, size) : cudaErrorNotReady;
    rt_unlock();
    return err == cudaErrorNotReady ? rt_malloc_at(devPtr, size, __builtin_return_address(0))
                                    : rt_error(err);
}

/* Captured into a graph, the free of graph memory is a memory node of the graph; of other memory,
 * it is no node, and the graph's launches use the block: it stays allocated. */
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    rt_lock();
    struct rt_stream *st = rt_stream_of(hStream);
    cudaError_t err = st && st->capture ? capture_free(st, devPtr) : cudaErrorNotReady;
    rt_unlock();
    return err == cudaErrorNotReady ? cudaFree(devPtr) : rt_error(err);
}

cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    (void)hStream;
    return rt_malloc_at(devPtr, size, __builtin_return_address(0));
}

cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream)
{
    return cudaFreeAsync(devPtr, hStream);
}

/* Device @p device is one the emulator has; otherwise one line and cudaErrorInvalidDevice. */
static cudaError_t device_ok(const char *call, int device)
{
    int n = rt_gpus();
    if (device >= 0 && device < n)
        return cudaSuccess;
    emu_say("%s: device %d is not one of the %d emulated devices (cudaErrorInvalidDevice)", call,
            device, n);
    return rt_error(cudaErrorInvalidDevice);
}

/* What is not in use is given back: the blocks keep their addresses (see the file's comment). */
cudaError_t cudaDeviceGraphMemTrim(int device)
{
    cudaError_t err = device_ok("cudaDeviceGraphMemTrim", device);
    if (err != cudaSuccess)
        return err;
    rt_lock();
    gm.held = bytes_in_use();
    rt_unlock();
    return cudaSuccess;
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                           void *value)
{
    cudaError_t err = device_ok("cudaDeviceGetGraphMemAttribute", device);
    if (err != cudaSuccess)
        return err;
    if (attr < cudaGraphMemAttrUsedMemCurrent || attr > cudaGraphMemAttrReservedMemHigh) {
        emu_say("cudaDeviceGetGraphMemAttribute: %d is not a graph memory attribute "
                "(cudaErrorInvalidValue)",
                (int)attr);
        return rt_error(cudaErrorInvalidValue);
    }
    rt_lock();
    int current =
        attr == cudaGraphMemAttrUsedMemCurrent || attr == cudaGraphMemAttrReservedMemCurrent;
    *(uint64_t *)value = current ? gm.held : gm.high;
    rt_unlock();
    return cudaSuccess;
}

/* Only the high-water marks can be set, and only to 0: they restart from what is held now. */
cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                           void *value)
{
    cudaError_t err = device_ok("cudaDeviceSetGraphMemAttribute", device);
    if (err != cudaSuccess)
        return err;
    if ((attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh) ||
        *(const uint64_t *)value != 0) {
        emu_say("cudaDeviceSetGraphMemAttribute: attribute %d can not be set to %llu (only the "
                "high-water marks, to 0) (cudaErrorInvalidValue)",
                (int)attr, (unsigned long long)*(const uint64_t *)value);
        return rt_error(cudaErrorInvalidValue);
    }
    rt_lock();
    gm.high = gm.held;
    rt_unlock();
    return cudaSuccess;
}
