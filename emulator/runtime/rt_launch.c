/**
 * @file rt_launch.c
 * @brief The runtime stand-in: kernel launches and function attributes.
 *
 * nvcc's launch stub calls __cudaPushCallConfiguration (at the <<< >>>),
 * __cudaPopCallConfiguration, __cudaGetKernel once and __cudaLaunchKernel;
 * cudaLaunchKernel is the public path. All of them end in launch(): check
 * the configuration as a GPU would (errors returned, not sticky), pack the
 * arguments by the kernel's .param layout, and queue the grid on its stream
 * (rt_queue.c), which runs it on the server when the host needs it. A fault
 * inside the kernel prints the VM's line then and leaves a sticky error that
 * every later call returns.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "rt.h"

/** One pending <<<grid, block, smem, stream>>>. */
struct config {
    dim3 grid, block;
    size_t smem;
    void *stream;
};

/* Launch configurations pushed and not yet popped, per thread (launches may nest in arguments). */
static _Thread_local struct config configs[16];
static _Thread_local int nconfigs;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream)
{
    if (nconfigs == 16)
        return 1;
    configs[nconfigs++] = (struct config){gridDim, blockDim, sharedMem, stream};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream)
{
    if (nconfigs == 0)
        return rt_error(cudaErrorMissingConfiguration);
    struct config c = configs[--nconfigs];
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.smem;
    *(void **)stream = c.stream;
    return cudaSuccess;
}

/* Grid and block within sm_90's limits (cudaErrorInvalidConfiguration otherwise). */
static int dims_ok(dim3 g, dim3 b)
{
    return g.x && g.y && g.z && b.x && b.y && b.z && g.x <= 0x7fffffffu && g.y <= 65535 &&
           g.z <= 65535 && b.x <= 1024 && b.y <= 1024 && b.z <= 64 &&
           (uint64_t)b.x * b.y * b.z <= 1024;
}

/* The most shared memory (static + dynamic) a launch of @p f may use. */
static uint32_t smem_limit(const struct rt_function *f, const struct rt_kernel *k)
{
    if (!f->max_dyn_smem)
        return RT_SMEM_DEFAULT;
    uint32_t lim = k->static_smem + f->max_dyn_smem;
    return lim > RT_SMEM_OPTIN ? RT_SMEM_OPTIN : lim;
}

/* The cluster dimensions a launch of @p f has: @p given (cudaLaunchKernelEx's attribute; zeros
 * when none), else the kernel's __cluster_dims__, else cudaFuncAttributeRequiredCluster*. */
static const uint32_t *cluster_of(const struct rt_function *f, const struct rt_kernel *k,
                                  const uint32_t *given)
{
    return given[0] ? given : k->cluster[0] ? k->cluster : f->cluster;
}

/* Cluster dimensions @p c (zeros: none) of a launch of @p f on grid @p g, as sm_90 takes them:
 * whole clusters, at most 8 blocks (16 with cudaFuncAttributeNonPortableClusterSizeAllowed), the
 * kernel's own if it has some. cudaErrorInvalidClusterSize and one line otherwise. */
static cudaError_t check_cluster(const struct rt_function *f, const struct rt_kernel *k, dim3 g,
                                 const uint32_t *c)
{
    const uint32_t *own = k->cluster[0] ? k->cluster : f->cluster;
    uint64_t n = (uint64_t)c[0] * c[1] * c[2], most = f->non_portable ? 16 : 8;
    const char *why = NULL;
    if (!c[0] && (k->explicit_cluster || k->max_cluster_rank))
        why = "the kernel must be launched with cluster dimensions (cudaLaunchKernelEx)";
    else if (!c[0])
        return cudaSuccess;
    else if (!n || n > most)
        why = f->non_portable ? "a cluster has at most 16 blocks"
                              : "a cluster has at most 8 blocks (16 with "
                                "cudaFuncAttributeNonPortableClusterSizeAllowed)";
    else if (own[0] && (own[0] != c[0] || own[1] != c[1] || own[2] != c[2]))
        why = "the cluster dimensions differ from the kernel's required ones (__cluster_dims__ or "
              "cudaFuncAttributeRequiredCluster*)";
    else if (g.x % c[0] || g.y % c[1] || g.z % c[2])
        why = "the grid is not a whole number of clusters in every dimension";
    else if (k->max_cluster_rank && n > k->max_cluster_rank)
        why = "the cluster is larger than the kernel's .maxclusterrank";
    if (!why)
        return cudaSuccess;
    emu_say("invalid cluster launch of %s: a grid of %u x %u x %u, clusters of %u x %u x %u: %s "
            "(cudaErrorInvalidClusterSize)",
            k->name, g.x, g.y, g.z, c[0], c[1], c[2], why);
    return cudaErrorInvalidClusterSize;
}

/* The configuration checks that need the kernel: grid and block limits, shared memory and
 * __launch_bounds__. Each refusal says in one line which kernel, which limit and by how much. */
static void demangle(const char *sym, char *out, size_t size);

static cudaError_t check_kernel(const struct rt_function *f, const struct rt_kernel *k, dim3 g,
                                dim3 b, size_t smem)
{
    uint64_t threads = (uint64_t)b.x * b.y * b.z;
    char name[256];
    demangle(k->name, name, sizeof name);
    if (!dims_ok(g, b)) {
        emu_say("launch of %s refused: a grid of %u x %u x %u blocks of %u x %u x %u threads is "
                "outside sm_90's limits (grid x < 2^31, y, z <= 65535; block x, y <= 1024, z <= "
                "64, at most 1024 threads) (cudaErrorInvalidConfiguration)",
                name, g.x, g.y, g.z, b.x, b.y, b.z);
        return cudaErrorInvalidConfiguration;
    }
    if (k->static_smem + smem > smem_limit(f, k)) {
        emu_say("launch of %s refused: %u bytes of static and %zu of dynamic shared memory exceed "
                "its limit of %u bytes (%s) (cudaErrorInvalidValue)",
                name, k->static_smem, smem, smem_limit(f, k),
                f->max_dyn_smem ? "static + cudaFuncAttributeMaxDynamicSharedMemorySize, at most "
                                  "227 KiB"
                                : "48 KiB without cudaFuncAttributeMaxDynamicSharedMemorySize");
        return cudaErrorInvalidValue;
    }
    if (k->maxntid && threads > k->maxntid) {
        emu_say("launch of %s refused: %llu threads per block, more than its __launch_bounds__ "
                "(.maxntid) of %u (cudaErrorLaunchOutOfResources)",
                name, (unsigned long long)threads, k->maxntid);
        return cudaErrorLaunchOutOfResources;
    }
    if (k->reqntid[0] && (b.x != k->reqntid[0] || b.y != k->reqntid[1] || b.z != k->reqntid[2])) {
        emu_say("launch of %s refused: blocks of %u x %u x %u threads, not its .reqntid %u x %u x "
                "%u (cudaErrorInvalidValue)",
                name, b.x, b.y, b.z, k->reqntid[0], k->reqntid[1], k->reqntid[2]);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* The sticky error a failed launch leaves, from the VM's status and message. */
static cudaError_t fault_error(enum vm_status st, const char *msg)
{
    switch (st) {
    case VM_OK:
        return cudaSuccess;
    case VM_BAD_LAUNCH:
        return cudaErrorInvalidConfiguration;
    case VM_FAULT:
        return strstr(msg, "misaligned") ? cudaErrorMisalignedAddress : cudaErrorIllegalAddress;
    case VM_TRAP:
        return cudaErrorLaunchFailure;
    case VM_ASSERT:
        return cudaErrorAssert;
    case VM_UNSUPPORTED:
        return cudaErrorNotSupported;
    case VM_DEADLOCK:
        return cudaErrorLaunchFailure;
    }
    return cudaErrorUnknown;
}

/* Launches kept between two calls of course_emu_take_launches(); later ones are dropped. */
enum { MAX_RECORDED = 65536 };

/*
 * The name an Itanium-mangled symbol stands for, without its parameters or template
 * arguments, into @p out: "_ZL19matmul_tiled_kerneliiiPKfS1_Pf" is "matmul_tiled_kernel",
 * "_ZN2ns6kernelEv" is "ns::kernel". Anything else (an extern "C" kernel) is copied as it is.
 */
static void demangle(const char *sym, char *out, size_t size)
{
    snprintf(out, size, "%s", sym);
    if (strncmp(sym, "_Z", 2))
        return;
    const char *p = sym + 2;
    int nested = *p == 'N'; /* N <name> <name> ... E: namespaces and classes */
    size_t n = 0;
    for (p += nested; *p && n < size;) {
        if (*p == 'L' && !nested) { /* internal linkage: a static kernel */
            p++;
            continue;
        }
        if (*p == 'I') { /* template arguments: balanced I ... E */
            int depth = 0;
            do
                depth += (*p == 'I') - (*p == 'E');
            while (*++p && depth > 0);
            continue;
        }
        char *end;
        long len = strtol(p, &end, 10); /* a name is its length, then its characters */
        if (end == p || len <= 0 || strnlen(end, (size_t)len) < (size_t)len)
            break;
        n += (size_t)snprintf(out + n, size - n, "%s%.*s", n ? "::" : "", (int)len, end);
        p = end + len;
        if (!nested)
            break;
    }
    if (n == 0)
        snprintf(out, size, "%s", sym);
}

/* Keep the counters of launch @p l of kernel @p name for course_emu_take_launches(). */
static void record(const char *name, const struct proto_launch *l, const struct proto_done *d)
{
    if (rt.nlaunches == MAX_RECORDED)
        return;
    if (rt.nlaunches == rt.launches_cap) {
        int cap = rt.launches_cap ? 2 * rt.launches_cap : 64;
        rt.launches = emu_realloc(rt.launches, (size_t)cap * sizeof *rt.launches);
        rt.launches_cap = cap;
    }
    struct course_emu_launch *e = &rt.launches[rt.nlaunches++];
    demangle(name, e->kernel, sizeof e->kernel);
    memcpy(e->grid, l->grid, sizeof e->grid);
    memcpy(e->block, l->block, sizeof e->block);
    e->status = d->status;
    e->counters = d->counters;
}

/* Read the DONE reply to launch @p l of kernel @p name: print the kernel's output and message,
 * record its counters when counting; the launch's error. */
static cudaError_t finish(const struct proto_msg *reply, const char *name,
                          const struct proto_launch *l)
{
    struct proto_done d;
    if (reply->op != PROTO_DONE || reply->len < sizeof d) {
        emu_say("the device server sent a malformed launch reply (an emulator bug)");
        return rt.sticky = cudaErrorLaunchFailure;
    }
    memcpy(&d, reply->data, sizeof d);
    if ((uint64_t)sizeof d + d.msg_len + d.out_len != reply->len) {
        emu_say("the device server sent a malformed launch reply (an emulator bug)");
        return rt.sticky = cudaErrorLaunchFailure;
    }
    const char *msg = (const char *)reply->data + sizeof d;
    if (d.out_len) {
        fwrite(msg + d.msg_len, 1, d.out_len, stdout);
        fflush(stdout);
    }
    if (l->count && d.counted)
        record(name, l, &d);
    char line[600];
    snprintf(line, sizeof line, "%.*s", (int)d.msg_len, msg);
    cudaError_t err = fault_error((enum vm_status)d.status, line);
    if (d.status != VM_OK)
        emu_say("%s", line[0] ? line : "the kernel failed without a message (an emulator bug)");
    if (d.status != VM_OK && d.status != VM_BAD_LAUNCH) {
        rt.sticky = err;
        rt.faults++;
    }
    rt.findings += d.reports;
    return err;
}

/* Set while cudaLaunchCooperativeKernel launches through cudaLaunchKernel (this thread only):
 * packed into the launch, so it travels with queued work. */
static _Thread_local int cooperative_launch;
/* The same for cudaLaunchKernelEx's cluster dimensions (zeros: none given). */
static _Thread_local uint32_t cluster_launch[3];

/* Limit @p which now (cudaLimitStackSize: the stack a recursive kernel's threads may use;
 * cudaLimitDevRuntimePendingLaunchCount: the device-side launches that may wait). */
static uint32_t limit_now(enum cudaLimit which)
{
    size_t v = rt_limits[which];
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void run_launch(const struct rt_work *w, struct rt_stream *on, uint64_t seq);

/* Pack the arguments of a launch of @p f into @p w; the lock is held. */
static cudaError_t pack(struct rt_function *f, const struct rt_kernel *k, dim3 g, dim3 b,
                        void **args, size_t smem, struct rt_work *w)
{
    struct proto_launch l = {f->module->id,
                             (uint32_t)f->index,
                             {g.x, g.y, g.z},
                             {b.x, b.y, b.z},
                             (uint32_t)smem,
                             smem_limit(f, k),
                             (uint32_t)rt_self()->device,
                             (uint32_t)rt.counting,
                             (uint32_t)cooperative_launch,
                             limit_now(cudaLimitStackSize),
                             limit_now(cudaLimitDevRuntimePendingLaunchCount),
                             0,
                             0,
                             {0, 0, 0}};
    memcpy(l.cluster, cluster_of(f, k, cluster_launch), sizeof l.cluster);
    uint8_t *params = emu_calloc(1, k->param_bytes + 1);
    for (uint32_t i = 0; i < k->nparams; i++)
        memcpy(params + k->params[i].offset, args[i], k->params[i].size);
    *w = (struct rt_work){.kind = RT_KERNEL, .what = k->name, .run = run_launch};
    w->u.kernel.l = l;
    w->u.kernel.params = params;
    w->u.kernel.bytes = k->param_bytes;
    return cudaSuccess;
}

/* What a launch runs (its rt_work's run): the grid, on the server, unless a fault broke the
 * device; a fault in it is sticky, a configuration the server refused this thread's last error.
 * Its parameters are freed either way. */
static void run_launch(const struct rt_work *w, struct rt_stream *on, uint64_t seq)
{
    struct proto_launch l = w->u.kernel.l;
    l.stream = rt_record_stream(on); /* the stream record's name for it */
    l.seq = seq;
    struct iovec parts[2] = {{&l, sizeof l}, {w->u.kernel.params, w->u.kernel.bytes}};
    struct proto_msg reply;
    if (rt.sticky == cudaSuccess && rt_call(PROTO_LAUNCH, parts, 2, &reply) == 0) {
        cudaError_t err = finish(&reply, w->what, &w->u.kernel.l);
        free(reply.data);
        if (err != cudaSuccess && err != rt.sticky)
            rt_self()->last_error = err;
    }
    free(w->u.kernel.params);
}

cudaError_t rt_kernel_work(const void *func, dim3 g, dim3 b, void **args, size_t smem,
                           struct rt_work *w)
{
    rt_lock();
    struct rt_function *f = rt_function_of(func);
    cudaError_t err = f ? rt_device() : cudaErrorInvalidDeviceFunction;
    const struct rt_kernel *k = NULL;
    if (err == cudaSuccess)
        k = rt_kernel_of(f, &err);
    if (err == cudaSuccess)
        err = check_kernel(f, k, g, b, smem);
    if (err == cudaSuccess)
        err = check_cluster(f, k, g, cluster_of(f, k, cluster_launch));
    if (err == cudaSuccess)
        err = pack(f, k, g, b, args, smem, w);
    rt_unlock();
    return err;
}

cudaError_t rt_kernel_args(const struct rt_work *w, const void **func, void ***args)
{
    const struct proto_launch *l = &w->u.kernel.l;
    for (const struct rt_function *f = rt.functions; f; f = f->next)
        if (f->module->id == l->module && f->index == (int)l->kernel) {
            const struct rt_kernel *k = &f->module->kernels[f->index];
            *args = emu_malloc(((size_t)k->nparams + 1) * sizeof **args);
            for (uint32_t i = 0; i < k->nparams; i++)
                (*args)[i] = w->u.kernel.params + k->params[i].offset;
            *func = f->host;
            return cudaSuccess;
        }
    return cudaErrorInvalidDeviceFunction;
}

/* Check and queue a launch of @p func on @p stream. A fault in the grid is sticky, and
 * reported by the calls after it has run, as on a GPU. */
static cudaError_t launch(const void *func, dim3 g, dim3 b, void **args, size_t smem,
                          cudaStream_t stream)
{
    struct rt_work w;
    cudaError_t err = rt_kernel_work(func, g, b, args, smem, &w);
    if (err != cudaSuccess)
        return rt_error(err);
    rt_lock();
    struct rt_stream *s = rt_stream_of(stream);
    if (s)
        rt_enqueue(s, &w, NULL);
    else
        rt_work_free(&w);
    rt_unlock();
    return rt_error(s ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    rt_lock();
    struct rt_function *f = rt_function_of(hostFun);
    rt_unlock();
    *kernel = (cudaKernel_t)f;
    return f ? cudaSuccess : rt_error(cudaErrorInvalidDeviceFunction);
}

/* __cudaGetKernel hands out the registered function itself: its host stub is its key. */
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream)
{
    const struct rt_function *f = (const struct rt_function *)kernel;
    return launch(f ? f->host : NULL, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem,
                              stream ? stream : cudaStreamPerThread);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream)
{
    return launch(func, gridDim, blockDim, args, sharedMem, stream);
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                  size_t sharedMem, cudaStream_t stream)
{
    return launch(func, gridDim, blockDim, args, sharedMem, stream ? stream : cudaStreamPerThread);
}

/* --- function attributes ------------------------------------------------------------------ */

/* The function of host stub @p func with its kernel loaded; NULL with *err. */
static const struct rt_kernel *kernel_for(const void *func, struct rt_function **f,
                                          cudaError_t *err)
{
    *f = rt_function_of(func);
    *err = rt_device();
    if (*err == cudaSuccess && !*f)
        *err = cudaErrorInvalidDeviceFunction;
    return *err == cudaSuccess ? rt_kernel_of(*f, err) : NULL;
}

/* The CUDA function handle of a kernel is its host stub, as the driver's launches take it. */
cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    struct rt_function *f;
    cudaError_t err;
    rt_lock();
    kernel_for(symbolPtr, &f, &err);
    if (err == cudaSuccess)
        *functionPtr = (cudaFunction_t)f->host;
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

cudaError_t cudaFuncGetParamInfo(const void *func, size_t paramIndex, size_t *paramOffset,
                                 size_t *paramSize)
{
    struct rt_function *f;
    cudaError_t err;
    rt_lock();
    const struct rt_kernel *k = kernel_for(func, &f, &err);
    if (k && paramIndex >= k->nparams)
        err = cudaErrorInvalidValue;
    else if (k)
        *paramOffset = k->params[paramIndex].offset, *paramSize = k->params[paramIndex].size;
    rt_unlock();
    return rt_error(err);
}

/* One device's attribute is every emulated device's: a function is the same on each. */
cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                            int value, int device)
{
    if (device < 0 || device >= rt_gpus())
        return rt_error(cudaErrorInvalidDevice);
    return cudaFuncSetAttribute((const void *)kernel, attr, value);
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    struct rt_function *f;
    cudaError_t err;
    rt_lock();
    const struct rt_kernel *k = kernel_for(func, &f, &err);
    if (k && attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || k->static_smem + (uint32_t)value > RT_SMEM_OPTIN) {
            char name[256];
            demangle(k->name, name, sizeof name);
            emu_say("cudaFuncSetAttribute(%s, cudaFuncAttributeMaxDynamicSharedMemorySize, %d): "
                    "%u bytes of static shared memory and %d of dynamic exceed the 227 KiB a "
                    "block may have (cudaErrorInvalidValue)",
                    name, value, k->static_smem, value);
            err = cudaErrorInvalidValue;
        } else
            f->max_dyn_smem = (uint32_t)value;
    } else if (k && attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
        err = value >= -1 && value <= 100 ? cudaSuccess : cudaErrorInvalidValue;
        f->carveout = err == cudaSuccess ? value + 1 : f->carveout;
    } else if (k && attr >= cudaFuncAttributeRequiredClusterWidth &&
               attr <= cudaFuncAttributeRequiredClusterDepth) {
        if (k->cluster[0]) /* CUDA: set at compile time, it cannot be set at run time */
            err = cudaErrorNotPermitted;
        else if (value < 0 || value > 16)
            err = cudaErrorInvalidValue;
        else
            f->cluster[attr - cudaFuncAttributeRequiredClusterWidth] = (uint32_t)value;
    } else if (k && attr == cudaFuncAttributeNonPortableClusterSizeAllowed) {
        err = value == 0 || value == 1 ? cudaSuccess : cudaErrorInvalidValue;
        f->non_portable = err == cudaSuccess ? value : f->non_portable;
    } else if (k && attr == cudaFuncAttributeClusterSchedulingPolicyPreference) {
        err = value >= 0 && value <= 2 ? cudaSuccess : cudaErrorInvalidValue;
        f->cluster_policy = err == cudaSuccess ? value : f->cluster_policy;
    } else if (k) {
        emu_say("cudaFuncSetAttribute: attribute %d is not emulated", (int)attr);
        err = cudaErrorInvalidValue;
    }
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    if (!attr)
        return rt_null("cudaFuncGetAttributes", "attr");
    struct rt_function *f;
    cudaError_t err;
    rt_lock();
    const struct rt_kernel *k = kernel_for(func, &f, &err);
    if (k) {
        uint32_t req = k->reqntid[0] * k->reqntid[1] * k->reqntid[2];
        memset(attr, 0, sizeof *attr);
        attr->sharedSizeBytes = k->static_smem;
        attr->localSizeBytes = k->local_bytes;
        attr->maxThreadsPerBlock = (int)(req ? req : k->maxntid ? k->maxntid : 1024);
        attr->numRegs = 32; /* the VM has no register allocation; a typical count */
        /* the PTX's target (a CUB dispatch picks its tuning by it), run as sm_90 code */
        attr->ptxVersion = f->module->ptx_arch ? f->module->ptx_arch : 90;
        attr->binaryVersion = 90;
        attr->maxDynamicSharedSizeBytes = (int)(smem_limit(f, k) - k->static_smem);
        attr->preferredShmemCarveout = f->carveout - 1; /* a hint: the VM has no carveout */
        const uint32_t *c = k->cluster[0] ? k->cluster : f->cluster;
        attr->clusterDimMustBeSet = (int)k->explicit_cluster;
        attr->requiredClusterWidth = (int)c[0];
        attr->requiredClusterHeight = (int)c[1];
        attr->requiredClusterDepth = (int)c[2];
        attr->clusterSchedulingPolicyPreference = f->cluster_policy;
        attr->nonPortableClusterSizeAllowed = f->non_portable;
    }
    rt_unlock();
    return rt_error(err);
}

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    rt_lock();
    struct rt_function *f = rt_function_of(func);
    rt_unlock();
    if (f)
        *name = f->name;
    return f ? cudaSuccess : rt_error(cudaErrorInvalidDeviceFunction);
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
    (void)func, (void)config;
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    (void)func, (void)cacheConfig;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                  dynamicSMemSize, 0);
}

/* The flags (cudaOccupancyDisableCachingOverride) change nothing: caches are not modelled. */
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int flags)
{
    if (!numBlocks)
        return rt_null("cudaOccupancyMaxActiveBlocksPerMultiprocessor", "numBlocks");
    (void)flags;
    struct rt_function *f;
    cudaError_t err;
    rt_lock();
    const struct rt_kernel *k = kernel_for(func, &f, &err);
    *numBlocks = 0;
    if (k && blockSize > 0 && blockSize <= 1024) {
        /* sm_90: 64 warps, 32 blocks and 228 KiB of shared memory (1 KiB reserved per block). */
        int warps = (blockSize + 31) / 32, blocks = 64 / warps;
        size_t smem = k->static_smem + dynamicSMemSize + 1024;
        if (k->static_smem + dynamicSMemSize <= smem_limit(f, k))
            *numBlocks = blocks < 32 ? blocks : 32;
        if ((size_t)*numBlocks * smem > 228 * 1024)
            *numBlocks = (int)(228 * 1024 / smem);
    }
    rt_unlock();
    return rt_error(err);
}

/* The dynamic shared memory each of @p numBlocks blocks of @p blockSize threads may have on one
 * SM at once: the SM's 228 KiB shared, less 1 KiB reserved and the static part per block. */
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                      int numBlocks, int blockSize)
{
    struct rt_function *f;
    cudaError_t err;
    rt_lock();
    const struct rt_kernel *k = kernel_for(func, &f, &err);
    if (k && (numBlocks < 1 || blockSize < 1 || blockSize > 1024 ||
              numBlocks * ((blockSize + 31) / 32) > 64))
        err = cudaErrorInvalidValue;
    if (err == cudaSuccess) {
        size_t per = 228 * 1024 / (size_t)numBlocks, used = k->static_smem + 1024;
        size_t lim = smem_limit(f, k) - k->static_smem;
        *dynamicSmemSize = per > used ? (per - used < lim ? per - used : lim) : 0;
    }
    rt_unlock();
    return rt_error(err);
}

/*
 * A cooperative launch: the grid must fit on the GPU at once (every block resident), or
 * cudaErrorCooperativeLaunchTooLarge. Its blocks are all resident at once on the device (they
 * take turns), and %envreg1/2 give cooperative groups their grid workspace: grid.sync() works.
 */
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                        size_t sharedMem, cudaStream_t stream)
{
    int per_sm = 0;
    cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, func, (int)(blockDim.x * blockDim.y * blockDim.z), sharedMem);
    if (err == cudaSuccess && (uint64_t)gridDim.x * gridDim.y * gridDim.z > (uint64_t)per_sm * 132)
        return rt_error(cudaErrorCooperativeLaunchTooLarge);
    if (err != cudaSuccess)
        return err;
    cooperative_launch = 1;
    err = cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream);
    cooperative_launch = 0;
    return err;
}

cudaError_t rt_kernel_rework(const struct rt_work *old, const uint32_t cluster[3], int cooperative,
                             struct rt_work *w)
{
    const struct proto_launch *l = &old->u.kernel.l;
    dim3 g = {l->grid[0], l->grid[1], l->grid[2]}, b = {l->block[0], l->block[1], l->block[2]};
    const void *func = NULL;
    void **args = NULL;
    rt_lock();
    cudaError_t err = rt_kernel_args(old, &func, &args);
    rt_unlock();
    int per_sm = 0;
    if (err == cudaSuccess && cooperative)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)(b.x * b.y * b.z),
                                                            l->dyn_smem);
    if (err == cudaSuccess && cooperative && (uint64_t)g.x * g.y * g.z > (uint64_t)per_sm * 132)
        err = cudaErrorCooperativeLaunchTooLarge;
    if (err == cudaSuccess) {
        memcpy(cluster_launch, cluster, sizeof cluster_launch);
        cooperative_launch = cooperative;
        err = rt_kernel_work(func, g, b, args, l->dyn_smem, w);
        memset(cluster_launch, 0, sizeof cluster_launch);
        cooperative_launch = 0;
    }
    free(args);
    return err;
}

/* The cluster dimensions among @p config's attributes into @p dims (zeros: none); 1 when
 * cooperative. */
static int launch_attrs(const cudaLaunchConfig_t *config, uint32_t dims[3])
{
    int cooperative = 0;
    dims[0] = dims[1] = dims[2] = 0;
    for (unsigned i = 0; i < config->numAttrs; i++) {
        const cudaLaunchAttribute *a = &config->attrs[i];
        if (a->id == cudaLaunchAttributeClusterDimension) {
            dims[0] = a->val.clusterDim.x, dims[1] = a->val.clusterDim.y;
            dims[2] = a->val.clusterDim.z;
        }
        cooperative |= a->id == cudaLaunchAttributeCooperative && a->val.cooperative;
    }
    return cooperative;
}

/*
 * cudaLaunchKernelEx's C form: a plain, cooperative or cluster launch with its attributes. A
 * cluster's blocks run together (emulator/vm/cluster.c); cluster dimensions no sm_90 launch may
 * have answer cudaErrorInvalidClusterSize with one line. Other attributes (priorities, access
 * policies, programmatic serialisation) change nothing here.
 */
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    uint32_t dims[3];
    int cooperative = launch_attrs(config, dims);
    if ((dims[0] || dims[1] || dims[2]) && (!dims[0] || !dims[1] || !dims[2])) {
        emu_say("cudaLaunchKernelEx: cluster dimensions %u x %u x %u (each must be at least 1) "
                "(cudaErrorInvalidClusterSize)",
                dims[0], dims[1], dims[2]);
        return rt_error(cudaErrorInvalidClusterSize);
    }
    memcpy(cluster_launch, dims, sizeof dims);
    cudaError_t err = (cooperative ? cudaLaunchCooperativeKernel : cudaLaunchKernel)(
        func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream);
    memset(cluster_launch, 0, sizeof cluster_launch);
    return err;
}

/* The most blocks of a cluster of @p func with @p config: its required size, else 8 (16 when it
 * allows non-portable sizes), 0 when a block of it does not fit on an SM. */
cudaError_t cudaOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func,
                                                 const cudaLaunchConfig_t *config)
{
    struct rt_function *f;
    cudaError_t err;
    int per_sm = 0;
    rt_lock();
    const struct rt_kernel *k = kernel_for(func, &f, &err);
    rt_unlock();
    if (k && config)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, func, (int)(config->blockDim.x * config->blockDim.y * config->blockDim.z),
            config->dynamicSmemBytes);
    if (err == cudaSuccess && !config)
        err = cudaErrorInvalidValue;
    if (err != cudaSuccess)
        return rt_error(err);
    const uint32_t *c = k->cluster[0] ? k->cluster : f->cluster;
    *clusterSize = !per_sm ? 0 : c[0] ? (int)(c[0] * c[1] * c[2]) : f->non_portable ? 16 : 8;
    return cudaSuccess;
}

/*
 * The clusters of @p config's size that fit on the GPU at once, a model: the blocks an SM holds
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor) times its 132 SMs, divided by the cluster's
 * blocks. A GPU also places each cluster inside one GPC, so it may answer fewer.
 */
cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func,
                                           const cudaLaunchConfig_t *config)
{
    struct rt_function *f;
    cudaError_t err;
    uint32_t dims[3] = {0, 0, 0};
    rt_lock();
    const struct rt_kernel *k = kernel_for(func, &f, &err);
    rt_unlock();
    if (err == cudaSuccess && !config)
        err = cudaErrorInvalidValue;
    if (err != cudaSuccess)
        return rt_error(err);
    launch_attrs(config, dims);
    const uint32_t *c = cluster_of(f, k, dims);
    dim3 g = {c[0] ? c[0] : 1, c[1] ? c[1] : 1, c[2] ? c[2] : 1};
    if (!c[0]) {
        emu_say("cudaOccupancyMaxActiveClusters: no cluster size in the configuration or the "
                "kernel (cudaErrorInvalidClusterSize)");
        return rt_error(cudaErrorInvalidClusterSize);
    }
    rt_lock();
    err = check_cluster(f, k, g, c);
    rt_unlock();
    int per_sm = 0;
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, func, (int)(config->blockDim.x * config->blockDim.y * config->blockDim.z),
            config->dynamicSmemBytes);
    if (err != cudaSuccess)
        return rt_error(err);
    *numClusters = per_sm * 132 / (int)(c[0] * c[1] * c[2]);
    return cudaSuccess;
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                             void **args, size_t sharedMem, cudaStream_t stream)
{
    return cudaLaunchCooperativeKernel(func, gridDim, blockDim, args, sharedMem,
                                       stream ? stream : cudaStreamPerThread);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                     void **args)
{
    cudaLaunchConfig_t c = *config;
    c.stream = c.stream ? c.stream : cudaStreamPerThread;
    return cudaLaunchKernelExC(&c, func, args);
}
