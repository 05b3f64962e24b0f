/**
 * @file heap.c
 * @brief The device heap behind device-side malloc, free, new and delete.
 *
 * One heap per device process, as CUDA keeps one per context: a block of device memory the
 * server allocates when it loads the first module that calls malloc or free, its size the
 * client's cudaLimitMallocHeapSize at that moment. Its bookkeeping lives in host memory: the
 * live blocks, sorted by offset, placed first fit at 16-byte alignment (what CUDA's malloc
 * guarantees). It persists across launches, so a later kernel may free what an earlier one
 * allocated. A lock keeps it whole when blocks run on several host threads (a cooperative
 * launch's resident blocks).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vm_impl.h"

/** One live allocation: [off, off + size) of the heap. */
struct heap_block {
    uint64_t off, size;
};

struct vm_heap {
    uint64_t addr, size;       /**< the heap's device range */
    struct heap_block *blocks; /**< live, sorted by offset */
    uint32_t n, cap;
    pthread_mutex_t lock;
};

struct vm_heap *vm_heap_create(uint64_t addr, uint64_t size)
{
    struct vm_heap *h = emu_calloc(1, sizeof *h);
    h->addr = addr, h->size = size;
    pthread_mutex_init(&h->lock, NULL);
    return h;
}

void vm_heap_destroy(struct vm_heap *h)
{
    if (h) {
        pthread_mutex_destroy(&h->lock);
        free(h->blocks);
    }
    free(h);
}

/* First fit: the offset of a gap of @p need bytes, inserted in the table, or -1. */
static int64_t place(struct vm_heap *h, uint64_t need)
{
    uint64_t at = 0;
    uint32_t i = 0;
    for (; i < h->n && h->blocks[i].off - at < need; i++)
        at = h->blocks[i].off + h->blocks[i].size;
    if (h->size - at < need)
        return -1;
    h->blocks = emu_grow(h->blocks, h->n, &h->cap, sizeof *h->blocks);
    memmove(&h->blocks[i + 1], &h->blocks[i], (h->n - i) * sizeof *h->blocks);
    h->blocks[i] = (struct heap_block){at, need};
    h->n++;
    return (int64_t)at;
}

uint64_t vm_heap_alloc(struct vm_heap *h, uint64_t bytes)
{
    if (!h || bytes > h->size)
        return 0;
    pthread_mutex_lock(&h->lock);
    int64_t at = place(h, ((bytes ? bytes : 1) + 15) & ~(uint64_t)15);
    pthread_mutex_unlock(&h->lock);
    return at < 0 ? 0 : h->addr + (uint64_t)at;
}

/* Remove the block at heap offset @p off: 0, or -1 when none starts there. */
static int unplace(struct vm_heap *h, uint64_t off)
{
    uint32_t lo = 0, hi = h->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (h->blocks[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == h->n || h->blocks[lo].off != off)
        return -1;
    memmove(&h->blocks[lo], &h->blocks[lo + 1], (h->n - lo - 1) * sizeof *h->blocks);
    h->n--;
    return 0;
}

int vm_heap_free(struct vm_heap *h, uint64_t addr)
{
    if (!h || addr < h->addr || addr >= h->addr + h->size)
        return -2;
    pthread_mutex_lock(&h->lock);
    int r = unplace(h, addr - h->addr);
    pthread_mutex_unlock(&h->lock);
    return r;
}
