/**
 * @file rt_module.c
 * @brief The runtime stand-in: registration of fat binaries, kernels and variables; loading.
 *
 * nvcc's static constructors register every fat binary, kernel and device
 * variable before main(). Nothing is loaded then: a module goes to the server
 * the first time one of its kernels or variables is used. Its PTX is the
 * highest architecture <= 90 the fat binary embeds. Kernels are found by
 * their host stub's address, never by name alone, so two modules may each
 * hold a static kernel of the same name.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "proto.h"
#include "rt.h"

void **__cudaRegisterFatBinary(void *fatCubin)
{
    rt_lock();
    struct rt_module *m = emu_calloc(1, sizeof *m);
    m->wrapper = fatCubin;
    m->id = rt.nmodules++;
    m->next = rt.modules;
    rt.modules = m;
    rt_unlock();
    return (void **)m;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;
}

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    (void)fatCubinHandle; /* the server and its modules end with the process */
}

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)deviceName, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    rt_lock();
    struct rt_function *f = emu_calloc(1, sizeof *f);
    f->host = hostFun;
    f->name = emu_strdup(deviceFun);
    f->module = (struct rt_module *)fatCubinHandle;
    f->index = -1;
    f->next = rt.functions;
    rt.functions = f;
    rt_unlock();
}

static void register_var(void **fatCubinHandle, const void *host, const char *deviceAddress,
                         size_t size, int managed)
{
    rt_lock();
    struct rt_var *v = emu_calloc(1, sizeof *v);
    v->host = host;
    v->name = emu_strdup(deviceAddress);
    v->module = (struct rt_module *)fatCubinHandle;
    v->size = size;
    v->managed = managed;
    v->next = rt.vars;
    rt.vars = v;
    rt_unlock();
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global)
{
    (void)deviceName, (void)ext, (void)constant, (void)global;
    register_var(fatCubinHandle, hostVar, deviceAddress, size, 0);
}

/* A __managed__ variable: the host reaches it through *hostVarPtrAddress, which
 * __cudaInitModule() points at the variable's device address, mapped for the host. */
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant,
                              int global)
{
    (void)deviceName, (void)ext, (void)constant, (void)global;
    register_var(fatCubinHandle, hostVarPtrAddress, deviceAddress, size, 1);
}

struct rt_function *rt_function_of(const void *host)
{
    for (struct rt_function *f = rt.functions; f; f = f->next)
        if (f->host == host || (const void *)f == host) /* a cudaKernel_t is the function */
            return f;
    return NULL;
}

/* "program (fat binary N, compute_A)": how messages name a module, its PTX @p ptx (or NULL)
 * naming the architecture's own features where it targets them ("compute_90a"). */
static void origin_of(const struct rt_module *m, int arch, const char *ptx, char *out, size_t size)
{
    Dl_info info;
    char path[4096] = "this program";
    int suffix = 0;
    if (dladdr(m->wrapper, &info) && info.dli_fname && *info.dli_fname)
        snprintf(path, sizeof path, "%s", info.dli_fname);
    if (ptx)
        fatbin_ptx_target(ptx, &suffix);
    const char letter[2] = {(char)suffix, 0};
    snprintf(out, size, "%s (fat binary %u, compute_%d%s)", basename(path), m->id, arch, letter);
}

/* Read a LOADED reply into @p m: mirror the module's variables, keep the kernel table. */
static int read_loaded(struct rt_module *m, const uint8_t *p, const uint8_t *end)
{
    struct proto_loaded head;
    if (end - p < (long)sizeof head)
        return -1;
    memcpy(&head, p, sizeof head), p += sizeof head;
    rt.heap_made |= (int)head.heap;
    for (uint32_t i = 0; i < head.blocks; i++, p += sizeof(struct proto_block)) {
        struct proto_block b;
        if (end - p < (long)sizeof b)
            return -1;
        memcpy(&b, p, sizeof b);
        if (mem_insert(&rt.mem, b.addr, b.size, b.device))
            return -1;
    }
    m->kernels = emu_calloc(head.kernels, sizeof *m->kernels);
    m->nkernels = head.kernels;
    for (uint32_t k = 0; k < head.kernels; k++) {
        struct proto_kernel pk;
        struct rt_kernel *kn = &m->kernels[k];
        if (end - p < (long)sizeof pk)
            return -1;
        memcpy(&pk, p, sizeof pk), p += sizeof pk;
        size_t pbytes = pk.nparams * sizeof(struct proto_param);
        if ((size_t)(end - p) < pbytes + 1 || !memchr(p + pbytes, 0, (size_t)(end - p) - pbytes))
            return -1;
        *kn = (struct rt_kernel){NULL,
                                 pk.nparams,
                                 pk.param_bytes,
                                 pk.static_smem,
                                 pk.local_bytes,
                                 pk.maxntid,
                                 {pk.reqntid[0], pk.reqntid[1], pk.reqntid[2]},
                                 NULL,
                                 {pk.cluster[0], pk.cluster[1], pk.cluster[2]},
                                 pk.explicit_cluster,
                                 pk.max_cluster_rank};
        kn->params = emu_calloc(1, pbytes);
        memcpy(kn->params, p, pbytes), p += pbytes;
        kn->name = emu_strdup((const char *)p), p += strlen(kn->name) + 1;
    }
    return 0;
}

/* Send the PTX to the server; cudaSuccess once the kernel table is in @p m. */
static cudaError_t send_module(struct rt_module *m, const char *ptx, size_t len, const char *origin)
{
    struct proto_load l = {m->id, rt_limits[cudaLimitMallocHeapSize]};
    struct iovec parts[3] = {
        {&l, sizeof l}, {(void *)origin, strlen(origin) + 1}, {(void *)ptx, len}};
    struct proto_msg reply;
    if (rt_call(PROTO_LOAD, parts, 3, &reply))
        return rt.sticky;
    cudaError_t err = cudaSuccess;
    if (reply.op == PROTO_ERROR) {
        if (reply.data) /* the VM's line names the module itself */
            emu_say("%s", (const char *)reply.data);
        else
            emu_say("%s: the PTX was refused", origin);
        err = cudaErrorInvalidPtx;
    } else if (reply.op != PROTO_LOADED || read_loaded(m, reply.data, reply.data + reply.len)) {
        emu_say("%s: the device server sent a malformed kernel table (an emulator bug)", origin);
        err = cudaErrorInvalidKernelImage;
    }
    free(reply.data);
    return err;
}

cudaError_t rt_module_load(struct rt_module *m)
{
    if (m->state)
        return m->state > 0 ? cudaSuccess : m->error;
    char *ptx, err[256], origin[4200];
    size_t len = 0;
    int arch = 0;
    enum fatbin_status st = fatbin_ptx(m->wrapper, &ptx, &len, &arch, err, sizeof err);
    origin_of(m, arch, st == FATBIN_PTX ? ptx : NULL, origin, sizeof origin);
    m->state = -1;
    if (st == FATBIN_NO_PTX) {
        emu_say("%s holds no PTX for compute_%d or older, only machine code for real GPUs; rebuild "
                "keeping PTX: COURSE_CUDA_ARCHS=90 ./course ...",
                origin, FATBIN_MAX_ARCH);
        m->error = cudaErrorNoKernelImageForDevice;
    } else if (st == FATBIN_BAD) {
        emu_say("%s: %s", origin, err);
        m->error = cudaErrorInvalidKernelImage;
    } else {
        m->ptx_arch = fatbin_ptx_target(ptx, NULL);
        m->error = send_module(m, ptx, len, origin);
        m->state = m->error == cudaSuccess ? 1 : -1;
    }
    free(ptx);
    return m->error;
}

struct rt_module *rt_module_from_ptx(const char *ptx, size_t len, const char *origin,
                                     cudaError_t *err)
{
    struct rt_module *m = emu_calloc(1, sizeof *m);
    m->id = rt.nmodules++;
    m->ptx_arch = fatbin_ptx_target(ptx, NULL);
    *err = rt_device();
    if (*err == cudaSuccess)
        *err = send_module(m, ptx, len, origin);
    if (*err != cudaSuccess) {
        free(m);
        return NULL;
    }
    m->state = 1;
    m->next = rt.modules;
    rt.modules = m;
    return m;
}

struct rt_function *rt_function_named(struct rt_module *m, const char *name)
{
    for (struct rt_function *f = rt.functions; f; f = f->next)
        if (f->module == m && f->host == f && !strcmp(f->name, name))
            return f;
    uint32_t k = 0;
    while (k < m->nkernels && strcmp(m->kernels[k].name, name))
        k++;
    if (k == m->nkernels)
        return NULL;
    struct rt_function *f = emu_calloc(1, sizeof *f);
    f->host = f;
    f->name = emu_strdup(name);
    f->module = m;
    f->index = (int)k;
    f->next = rt.functions;
    rt.functions = f;
    return f;
}

const struct rt_kernel *rt_kernel_of(struct rt_function *f, cudaError_t *err)
{
    *err = rt_module_load(f->module);
    if (*err != cudaSuccess)
        return NULL;
    for (uint32_t k = 0; f->index < 0 && k < f->module->nkernels; k++)
        if (!strcmp(f->module->kernels[k].name, f->name))
            f->index = (int)k;
    if (f->index < 0) {
        emu_say("kernel %s is not in the PTX the emulator loaded for it", f->name);
        *err = cudaErrorInvalidDeviceFunction;
        return NULL;
    }
    return &f->module->kernels[f->index];
}

/* --- device variables ------------------------------------------------------------------ */

/* The device address of the variable whose host shadow is @p symbol; 0 with *err. */
static uint64_t var_address(const void *symbol, size_t *size, cudaError_t *err)
{
    struct rt_var *v = rt.vars; /* a __managed__ one also by the address the host uses */
    while (v && v->host != symbol && !(v->managed && *(const void *const *)v->host == symbol))
        v = v->next;
    *err = rt_device();
    if (*err == cudaSuccess && !v)
        *err = cudaErrorInvalidSymbol;
    if (*err == cudaSuccess)
        *err = rt_module_load(v->module);
    if (*err != cudaSuccess)
        return 0;
    if (!v->addr) {
        struct proto_symbol q = {v->module->id};
        struct iovec parts[2] = {{&q, sizeof q}, {v->name, strlen(v->name) + 1}};
        struct proto_msg reply;
        if (rt_call(PROTO_SYMBOL, parts, 2, &reply)) {
            *err = rt.sticky;
            return 0;
        }
        struct proto_symbol_at at = {0, 0};
        if (reply.op == PROTO_SYMBOL_AT && reply.len == sizeof at)
            memcpy(&at, reply.data, sizeof at);
        free(reply.data);
        v->addr = at.addr;
        if (!v->addr) {
            emu_say("device variable %s is not in the PTX the emulator loaded", v->name);
            *err = cudaErrorInvalidSymbol;
            return 0;
        }
    }
    *size = v->size;
    return v->addr;
}

/* nvcc calls it at the host's first use of a __managed__ variable of the module: each such
 * variable's host pointer is set to its device address, which the host can reach. The program
 * would dereference a null pointer next, so a failure ends it, in one line. */
char __cudaInitModule(void **fatCubinHandle)
{
    rt_lock();
    for (struct rt_var *v = rt.vars; v; v = v->next) {
        if (!v->managed || v->module != (struct rt_module *)fatCubinHandle || *(void **)v->host)
            continue;
        size_t size;
        cudaError_t err;
        void *at = (void *)(uintptr_t)var_address(v->host, &size, &err);
        if (!at || rt_show_host(at, size, v->name)) {
            emu_say("__managed__ variable %s: cannot place it in device memory (%s)", v->name,
                    cudaGetErrorString(err == cudaSuccess ? cudaErrorMemoryAllocation : err));
            exit(1);
        }
        *(void **)v->host = at;
    }
    rt_unlock();
    return 1;
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    size_t size;
    cudaError_t err;
    rt_lock();
    *devPtr = (void *)(uintptr_t)var_address(symbol, &size, &err);
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    cudaError_t err;
    rt_lock();
    var_address(symbol, size, &err);
    rt_unlock();
    return rt_error(err);
}

enum cudaMemcpyKind rt_symbol_kind(enum cudaMemcpyKind kind, int to_symbol)
{
    if (kind == cudaMemcpyDefault || kind == cudaMemcpyHostToDevice ||
        kind == cudaMemcpyDeviceToHost)
        return to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    return kind;
}

cudaError_t rt_symbol_range(const void *symbol, size_t count, size_t offset, const char *who,
                            void **dev)
{
    size_t size = 0;
    cudaError_t err;
    rt_lock();
    uint64_t a = var_address(symbol, &size, &err);
    rt_unlock();
    if (err != cudaSuccess)
        return rt_error(err);
    if (offset > size || count > size - offset) {
        emu_say("%s: %zu bytes at offset %zu run past the %zu-byte variable", who, count, offset,
                size);
        return rt_error(cudaErrorInvalidValue);
    }
    *dev = (void *)(uintptr_t)(a + offset);
    return cudaSuccess;
}

/* Copy between a device variable and memory; @p to_symbol picks the direction, @p stream
 * NULL a synchronous copy. */
static cudaError_t symbol_copy(const void *symbol, void *mem, size_t count, size_t offset,
                               enum cudaMemcpyKind kind, int to_symbol, const cudaStream_t *stream)
{
    void *dev;
    cudaError_t err = rt_symbol_range(
        symbol, count, offset, to_symbol ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol", &dev);
    if (err != cudaSuccess)
        return err;
    kind = rt_symbol_kind(kind, to_symbol);
    void *dst = to_symbol ? dev : mem, *src = to_symbol ? mem : dev;
    return stream ? cudaMemcpyAsync(dst, src, count, kind, *stream)
                  : cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    return symbol_copy(symbol, (void *)src, count, offset, kind, 1, NULL);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    return symbol_copy(symbol, dst, count, offset, kind, 0, NULL);
}

/* Queued as cudaMemcpyAsync queues a copy: on the stream, or into its capture. */
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy(symbol, (void *)src, count, offset, kind, 1, &stream);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy(symbol, dst, count, offset, kind, 0, &stream);
}

/* Code built with --default-stream per-thread: the copy goes to this thread's stream. */
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind)
{
    rt_per_thread = 1;
    cudaError_t err = cudaMemcpyToSymbol(symbol, src, count, offset, kind);
    rt_per_thread = 0;
    return err;
}

cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind)
{
    rt_per_thread = 1;
    cudaError_t err = cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
    rt_per_thread = 0;
    return err;
}

cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                         size_t offset, enum cudaMemcpyKind kind,
                                         cudaStream_t stream)
{
    return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, rt_ptsz(stream));
}

cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
                                           size_t offset, enum cudaMemcpyKind kind,
                                           cudaStream_t stream)
{
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, rt_ptsz(stream));
}
