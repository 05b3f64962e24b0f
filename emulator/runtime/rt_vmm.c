/**
 * @file rt_vmm.c
 * @brief The runtime stand-in's side of the driver's virtual memory management (cuMemMap and
 *        the rest, driver/drv_vmm.c): the address space it reserves in, and showing a block's
 *        memory at a reserved range in both processes.
 *
 * The device span's second half is address space mem_alloc() leaves alone (rt_server.c); the
 * driver hands out reservations there. A physical allocation is an ordinary device block
 * (course_emu_drv_malloc). Mapping it at a reserved address maps the block's pages of the
 * memfd there, in this process's alias and in the server's; publishing a mapped range enters
 * it in both allocation tables as a view (mem_insert_view), so kernels, copies, fills and the
 * sanitizer's checks take it as they take any allocation. Each change first runs the work
 * still queued, which was issued against the mappings as they were.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "rt.h"
#include "rt_driver.h"

int course_emu_vmm_area(uint64_t *lo, uint64_t *hi)
{
    rt_lock();
    cudaError_t err = rt_device();
    *lo = rt.mem.base + rt.mem.heap;
    *hi = rt.mem.base + rt.mem.span;
    rt_unlock();
    return (int)err;
}

int course_emu_vmm_map(uint64_t addr, uint64_t size, uint64_t backing)
{
    rt_lock();
    rt_run_all();
    uint64_t offset = backing - rt.mem.base;
    cudaError_t err = rt_device();
    if (err == cudaSuccess && mem_map(&rt.mem, addr, size, rt.mem.fd, offset)) {
        emu_say("cuMemMap: cannot map %llu bytes at %p (%s)", (unsigned long long)size,
                (void *)(uintptr_t)addr, strerror(errno));
        err = cudaErrorMemoryAllocation;
    }
    if (err == cudaSuccess)
        err = rt_server_map(addr, size, -1, offset, PROTO_MAP_SPAN);
    rt_unlock();
    return (int)err;
}

int course_emu_vmm_unmap(uint64_t addr, uint64_t size)
{
    rt_lock();
    rt_run_all();
    mem_map(&rt.mem, addr, size, -1, 0);
    cudaError_t err = rt_device();
    if (err == cudaSuccess)
        err = rt_server_map(addr, size, -1, 0, 0);
    rt_unlock();
    return (int)err;
}

int course_emu_vmm_publish(uint64_t addr, uint64_t size, int device, int on)
{
    struct proto_block b = {addr, size, (uint32_t)device, PROTO_ALLOC_VIEW, 0};
    rt_lock();
    rt_run_all();
    cudaError_t err = rt_device();
    if (err == cudaSuccess && on && mem_insert_view(&rt.mem, addr, size, device) == 0) {
        rt_post(PROTO_ALLOC, &b, sizeof b);
        /* initcheck cannot follow bytes from one mapping to the next: they count as written */
        rt_wrote((const void *)(uintptr_t)addr, size, PROTO_WROTE_HOST, 0);
    } else if (err == cudaSuccess && !on && mem_free(&rt.mem, addr) == 0) {
        rt_post(PROTO_FREE, &b, sizeof b);
    } else if (err == cudaSuccess) {
        emu_say("virtual memory management: the allocation table disagrees with the driver's "
                "mappings at %p (an emulator bug; please report it)",
                (void *)(uintptr_t)addr);
        err = cudaErrorUnknown;
    }
    rt_unlock();
    return err == cudaSuccess ? (int)rt.sticky : (int)err;
}
