/**
 * @file test_driver.c
 * @brief The driver-API stand-in (emulator/driver/, libcuda.so.1), checked through cuda.h.
 *
 * Every case is its own process (Check forks), so "before cuInit" means what it says. Kernels
 * come as PTX text written here, as files CMake compiled from test_driver_kernels.cu (.ptx,
 * .fatbin and a .cubin that must be refused) and as NVRTC's output, and run against the host's
 * answer at 1, 33 and 1031 elements with guard elements after them. The mixed case shares one
 * buffer and one stream between a runtime launch and a driver launch. The refusals (a call
 * before cuInit or without a context, a cubin, bad PTX, a name no module has, every rule of
 * cuTensorMapEncodeTiled, a function libcuda exports but the stand-in lacks) each print one
 * line. Two cases read the toolkit at test time: every function its stub libcuda.so exports
 * is defined here, and cuGetProcAddress answers each version cudaTypedefs.h dates. Arrays: a
 * 37 x 13 float image goes in and out through cuMemcpy2D with padded pitches and guard rows,
 * and a kernel samples it through texture objects (point and linear, clamp and wrap) against
 * the Programming Guide's fetch computed here; a 3D array of two 16-bit channels takes an
 * offset box back out through cuMemcpy3D; texture and surface objects give back, field by
 * field, the descriptors they were made from; bad arguments each give one line. Address
 * ranges: each allocation's first and last byte give its base and size, the byte past it none.
 * Virtual memory management: two 2 MiB handles mapped side by side take a copy, a kernel's
 * 2003 elements and a fill across the seam, guards all around; a handle released while mapped
 * keeps its bytes into a second mapping; a handle mapped twice, once from an offset, shows one
 * set of bytes at both; each bad argument and call out of order gives its code and one line; a
 * mapping without access refuses a copy and faults a kernel.
 */
#define _GNU_SOURCE
/* cuDeviceComputeCapability and cudaGetDriverEntryPoint are tested though deprecated. */
#define CUDA_ENABLE_DEPRECATED
#include <cuda.h>
#include <dlfcn.h>
#include <math.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "test_driver.h"

#define CU_OK(call) ck_assert_int_eq((int)(call), CUDA_SUCCESS)

/* Elements past n that no kernel may touch, and what they hold. */
enum { GUARD = 17, POISON = -77 };

/* cuInit, the first device's primary context made current. */
static CUdevice setup(void)
{
    CUdevice dev;
    CUcontext ctx;
    CU_OK(cuInit(0));
    CU_OK(cuDeviceGet(&dev, 0));
    CU_OK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_OK(cuCtxSetCurrent(ctx));
    return dev;
}

/* n ints and GUARD more on the device, holding x[i] = f(i) then POISON. */
static CUdeviceptr upload(int n, int (*f)(int))
{
    int *h = malloc((size_t)(n + GUARD) * sizeof *h);
    for (int i = 0; i < n + GUARD; i++)
        h[i] = i < n ? f(i) : POISON;
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, (size_t)(n + GUARD) * sizeof *h));
    CU_OK(cuMemcpyHtoD(d, h, (size_t)(n + GUARD) * sizeof *h));
    free(h);
    return d;
}

/* Assert that the n ints at @p d are want(i) and the guard is untouched. */
static void expect(CUdeviceptr d, int n, int (*want)(int), const char *what)
{
    int *h = malloc((size_t)(n + GUARD) * sizeof *h);
    CU_OK(cuMemcpyDtoH(h, d, (size_t)(n + GUARD) * sizeof *h));
    for (int i = 0; i < n + GUARD; i++) {
        int w = i < n ? want(i) : POISON;
        ck_assert_msg(h[i] == w, "%s, n = %d: element %d is %d, not %d%s", what, n, i, h[i], w,
                      i < n ? "" : " (a guard element)");
    }
    free(h);
}

static int ramp(int i)
{
    return i % 97 - 40;
}

static int other(int i)
{
    return (i * 7) % 13;
}

/* --- devices, versions, errors ----------------------------------------------------------- */

START_TEST(calls_before_cuInit_refused)
{
    int n = -1;
    EXPECT_REFUSED_WITH(CUDA_ERROR_NOT_INITIALIZED, cuDeviceGetCount(&n), "before cuInit");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuInit(3), "flags must be 0");
    CU_OK(cuInit(0));
    CU_OK(cuDeviceGetCount(&n));
    ck_assert_int_eq(n, 2); /* COURSE_EMU_GPUS's default */
    CUdevice dev;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_DEVICE, cuDeviceGet(&dev, 2), "does not exist");
    CUdeviceptr d;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_CONTEXT, cuMemAlloc(&d, 64), "no current context");
    struct capture c; /* a query whose failure is its answer: no line */
    capture_begin(&c, 2);
    CUresult asked = cuCtxGetDevice(&dev);
    char *said = capture_end(&c);
    ck_assert_int_eq(asked, CUDA_ERROR_INVALID_CONTEXT);
    ck_assert_msg(!said[0], "cuCtxGetDevice with no context said: %s", said);
    free(said);
}
END_TEST

START_TEST(device_queries_match_the_runtime)
{
    CUdevice dev = setup();
    struct cudaDeviceProp p;
    ck_assert_int_eq(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    char name[256];
    int v, major, minor;
    size_t total;
    CUuuid uuid;
    CU_OK(cuDeviceGetName(name, sizeof name, dev));
    ck_assert_str_eq(name, p.name);
    CU_OK(cuDeviceComputeCapability(&major, &minor, dev));
    ck_assert(major == 9 && minor == 0);
    CU_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev));
    ck_assert_int_eq(v, 1024);
    CU_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    ck_assert_int_eq(v, p.multiProcessorCount);
    CU_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev));
    ck_assert_int_eq(v, (int)p.sharedMemPerBlockOptin);
    CU_OK(cuDeviceTotalMem(&total, dev));
    ck_assert_uint_eq(total, p.totalGlobalMem);
    CU_OK(cuDeviceGetUuid(&uuid, dev));
    ck_assert(!memcmp(uuid.bytes, p.uuid.bytes, sizeof uuid.bytes));
    CU_OK(cuDriverGetVersion(&v));
    ck_assert_int_eq(v, CUDA_VERSION);
    /* numbers only the driver defines: answered by the stand-in, not passed to the runtime */
    CU_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED, dev));
    ck_assert_int_eq(v, 1);
    CU_OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, dev));
    ck_assert_int_eq(v, 0);
    CU_OK(cuDeviceCanAccessPeer(&v, dev, dev));
    ck_assert_int_eq(cuDeviceCanAccessPeer(&v, dev, 99), CUDA_ERROR_INVALID_DEVICE);
}
END_TEST

START_TEST(error_names_and_strings)
{
    const char *s = NULL;
    CU_OK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    ck_assert_str_eq(s, "CUDA_ERROR_INVALID_VALUE");
    CU_OK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
    ck_assert_str_eq(s, "CUDA_ERROR_ILLEGAL_ADDRESS");
    CU_OK(cuGetErrorString(CUDA_ERROR_NOT_INITIALIZED, &s));
    ck_assert_str_eq(s, "not initialized");
    CU_OK(cuGetErrorString(CUDA_SUCCESS, &s));
    ck_assert_str_eq(s, "no error");
    ck_assert_int_eq(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    ck_assert_ptr_null(s);
}
END_TEST

/* --- contexts ------------------------------------------------------------------------------ */

START_TEST(contexts_push_pop_and_current)
{
    CUcontext a, b, got;
    CUdevice dev;
    CU_OK(cuInit(0));
    CU_OK(cuCtxGetCurrent(&got));
    ck_assert_ptr_null(got);
    CU_OK(cuCtxCreate(&a, NULL, 0, 0));
    CU_OK(cuCtxGetCurrent(&got));
    ck_assert_ptr_eq(got, a);
    CU_OK(cuCtxCreate(&b, NULL, 0, 1));
    CU_OK(cuCtxGetDevice(&dev));
    ck_assert_int_eq(dev, 1);
    int rt_dev = -1;
    ck_assert_int_eq(cudaGetDevice(&rt_dev), cudaSuccess);
    ck_assert_int_eq(rt_dev, 1); /* the runtime follows the current context */
    CU_OK(cuCtxPopCurrent(&got));
    ck_assert_ptr_eq(got, b);
    CU_OK(cuCtxGetDevice(&dev));
    ck_assert_int_eq(dev, 0);
    CU_OK(cuCtxPushCurrent(b));
    CU_OK(cuCtxSynchronize());
    CU_OK(cuCtxDestroy(b));
    CU_OK(cuCtxGetCurrent(&got));
    ck_assert_ptr_eq(got, a);
    CU_OK(cuCtxDestroy(a));
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_CONTEXT, cuCtxDestroy(a), "not a context");
    unsigned flags;
    int active;
    CUcontext p;
    CU_OK(cuDevicePrimaryCtxRetain(&p, 0));
    CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
    ck_assert_int_eq(active, 1);
    CU_OK(cuDevicePrimaryCtxRelease(0));
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_CONTEXT, cuDevicePrimaryCtxRelease(0), "not retained");
}
END_TEST

/* --- modules from PTX text ------------------------------------------------------------------ */

/* y[i] = x[i] + bias, with bias a module variable (7 until the host changes it). */
static const char add_bias_ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .global .align 4 .u32 bias = 7;\n"
    ".visible .entry add_bias(.param .u64 y, .param .u64 x, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [y];\n  ld.param.u64 %rd2, [x];\n  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.s32 %r5, %r2, %r3, %r4;\n  setp.ge.s32 %p1, %r5, %r1;\n  @%p1 bra DONE;\n"
    "  mul.wide.s32 %rd3, %r5, 4;\n  add.s64 %rd4, %rd2, %rd3;\n  ld.global.u32 %r6, [%rd4];\n"
    "  ld.global.u32 %r7, [bias];\n  add.s32 %r6, %r6, %r7;\n  add.s64 %rd5, %rd1, %rd3;\n"
    "  st.global.u32 [%rd5], %r6;\nDONE:\n  ret;\n}\n";

static int bias_for_case;

static int ramp_plus_bias(int i)
{
    return ramp(i) + bias_for_case;
}

/* Run add_bias over n elements, through kernelParams or (@p extra) a packed buffer. */
static void run_add_bias(CUfunction f, int n, int extra)
{
    CUdeviceptr x = upload(n, ramp), y = upload(n, other);
    void *args[] = {&y, &x, &n};
    struct {
        CUdeviceptr y, x;
        int n;
    } packed = {y, x, n};
    size_t size = sizeof packed;
    void *buffer[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      CU_LAUNCH_PARAM_END};
    CU_OK(cuLaunchKernel(f, (unsigned)(n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, extra ? NULL : args,
                         extra ? buffer : NULL));
    expect(y, n, ramp_plus_bias, extra ? "add_bias through extra" : "add_bias");
    CU_OK(cuMemFree(x));
    CU_OK(cuMemFree(y));
}

START_TEST(ptx_text_module_runs)
{
    setup();
    CUmodule m;
    CUfunction f;
    CU_OK(cuModuleLoadData(&m, add_bias_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "add_bias"));
    unsigned count;
    CU_OK(cuModuleGetFunctionCount(&count, m));
    ck_assert_uint_eq(count, 1);
    bias_for_case = 7;
    const int sizes[] = {1, 33, 1031};
    for (int s = 0; s < 3; s++)
        run_add_bias(f, sizes[s], s == 1);
    CUdeviceptr bias;
    size_t bytes;
    int value = -1000;
    CU_OK(cuModuleGetGlobal(&bias, &bytes, m, "bias"));
    ck_assert_uint_eq(bytes, 4);
    CU_OK(cuMemcpyHtoD(bias, &value, sizeof value));
    bias_for_case = value;
    run_add_bias(f, 1031, 1);
    EXPECT_REFUSED_WITH(CUDA_ERROR_NOT_FOUND, cuModuleGetFunction(&f, m, "add_biass"),
                        "no kernel named add_biass");
    EXPECT_REFUSED_WITH(CUDA_ERROR_NOT_FOUND, cuModuleGetGlobal(&bias, &bytes, m, "bia"),
                        "no variable named bia");
    CU_OK(cuModuleUnload(m));
    int n = 1;
    void *args[] = {&bias, &bias, &n};
    ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
                     CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* A library (CUDA 12's context-free loading, as cuda.core loads code) of add_bias: its kernel
 * found by name and by enumeration, named, its parameters' places, its variable, its module,
 * and a launch through the CUkernel. */
START_TEST(libraries_and_their_kernels)
{
    CUdevice dev = setup();
    CUlibrary lib, back;
    CUkernel k, listed;
    CUfunction f;
    CUmodule mod, mod2;
    unsigned count = 0;
    size_t offset, size, bytes;
    const char *name;
    CUdeviceptr bias;
    CU_OK(cuLibraryLoadData(&lib, add_bias_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CU_OK(cuLibraryGetKernelCount(&count, lib));
    CU_OK(cuLibraryGetKernel(&k, lib, "add_bias"));
    CU_OK(cuLibraryEnumerateKernels(&listed, 1, lib));
    CU_OK(cuKernelGetFunction(&f, k));
    CU_OK(cuKernelGetLibrary(&back, k));
    CU_OK(cuKernelGetName(&name, k));
    CU_OK(cuKernelGetParamInfo(k, 2, &offset, &size));
    ck_assert(count == 1 && listed == k && back == lib && !strcmp(name, "add_bias"));
    ck_assert(offset == 16 && size == 4);
    CU_OK(cuLibraryGetGlobal(&bias, &bytes, lib, "bias"));
    ck_assert_uint_eq(bytes, 4);
    CU_OK(cuLibraryGetModule(&mod, lib));
    CU_OK(cuFuncGetModule(&mod2, f));
    ck_assert_ptr_eq(mod, mod2);
    CU_OK(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024, k, dev));
    bias_for_case = 7;
    run_add_bias((CUfunction)k, 1031, 0);
    run_add_bias(f, 33, 1);
    EXPECT_REFUSED_WITH(CUDA_ERROR_NOT_FOUND, cuLibraryGetKernel(&k, lib, "add_biass"),
                        "no kernel named add_biass");
    EXPECT_REFUSED_WITH(
        CUDA_ERROR_FILE_NOT_FOUND,
        cuLibraryLoadFromFile(&back, "/nonexistent.ptx", NULL, NULL, 0, NULL, NULL, 0),
        "cannot read /nonexistent.ptx");
    CU_OK(cuLibraryUnload(lib));
}
END_TEST

/* What cuda.core asks of the driver beside launches: a pool's allocation on a stream, the
 * stream's own queries, registered host memory, a copy between two devices' memories, the PCI
 * bus id both ways, occupancy, an event recorded with flags; and a graph kernel node given a
 * library's CUkernel in place of the function. */
START_TEST(pools_streams_and_the_rest)
{
    CUdevice dev = setup();
    enum { N = 1031 };
    CUstream s;
    CUmemoryPool pool;
    CUdeviceptr a, b;
    uint64_t threshold = 1 << 20, back = 0;
    unsigned flags = 9;
    int prio = 9, host[N], round[N];
    unsigned long long id = 0;
    CUcontext ctx, cur;
    CUdevice sdev = -1;
    CU_OK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -1));
    CU_OK(cuStreamGetFlags(s, &flags));
    CU_OK(cuStreamGetPriority(s, &prio));
    CU_OK(cuStreamGetId(s, &id));
    CU_OK(cuStreamGetCtx(s, &ctx));
    CU_OK(cuStreamGetDevice(s, &sdev));
    CU_OK(cuCtxGetCurrent(&cur));
    ck_assert(flags == CU_STREAM_NON_BLOCKING && prio == -1 && id && ctx == cur && sdev == dev);
    CU_OK(cuDeviceGetMemPool(&pool, dev));
    CU_OK(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
    CU_OK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &back));
    ck_assert_uint_eq(back, threshold);
    CU_OK(cuMemAllocAsync(&a, sizeof host, s));
    CU_OK(cuMemAllocFromPoolAsync(&b, sizeof host, pool, s));
    for (int i = 0; i < N; i++)
        host[i] = i * 31 - 7;
    CU_OK(cuMemHostRegister(host, sizeof host, 0));
    CU_OK(cuMemcpyHtoDAsync(a, host, sizeof host, s));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuMemcpyPeer(b, ctx, a, ctx, sizeof host));
    CU_OK(cuMemcpyDtoH(round, b, sizeof round));
    ck_assert(!memcmp(round, host, sizeof host));
    CU_OK(cuMemHostUnregister(host));
    CU_OK(cuMemFreeAsync(a, s));
    CU_OK(cuMemFreeAsync(b, s));
    char bus[32];
    CUdevice again = -1;
    CU_OK(cuDeviceGetPCIBusId(bus, sizeof bus, dev));
    CU_OK(cuDeviceGetByPCIBusId(&again, bus));
    ck_assert_int_eq(again, dev);
    CUmodule m;
    CUlibrary lib;
    CUkernel k;
    CUfunction f;
    size_t smem = 0;
    CU_OK(cuModuleLoadData(&m, add_bias_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "add_bias"));
    CU_OK(cuOccupancyAvailableDynamicSMemPerBlock(&smem, f, 2, 256));
    ck_assert(smem > 0 && smem <= 227 * 1024);
    CUevent e;
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuEventRecordWithFlags(e, s, 0));
    CU_OK(cuEventSynchronize(e));
    CU_OK(cuLibraryLoadData(&lib, add_bias_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CU_OK(cuLibraryGetKernel(&k, lib, "add_bias"));
    CUdeviceptr x = upload(N, ramp), y = upload(N, other);
    int n = N;
    void *args[] = {&y, &x, &n};
    CUDA_KERNEL_NODE_PARAMS kp = {NULL, (N + 63) / 64, 1, 1, 64, 1, 1, 0, args, NULL, k, NULL};
    CUgraph g;
    CUgraphNode node;
    CUgraphExec ge;
    CU_OK(cuGraphCreate(&g, 0));
    CU_OK(cuGraphAddKernelNode(&node, g, NULL, 0, &kp));
    CU_OK(cuGraphInstantiate(&ge, g, 0));
    CU_OK(cuGraphLaunch(ge, s));
    CU_OK(cuStreamSynchronize(s));
    bias_for_case = 7;
    expect(y, N, ramp_plus_bias, "a kernel node of a library's CUkernel");
    CUkernelNodeAttrValue pv = {0}, pb;
    pv.priority = -2;
    CU_OK(cuGraphKernelNodeSetAttribute(node, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &pv));
    CU_OK(cuGraphKernelNodeGetAttribute(node, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &pb));
    ck_assert_int_eq(pb.priority, -2);
    CU_OK(cuGraphExecDestroy(ge));
    CU_OK(cuGraphDestroy(g));
    /* cuGraphAddNode: an IF node whose handle defaults to 1 at every launch, its body a fill of
     * 4-byte elements added by cuGraphAddNode too (cuda.core builds its if_then so) */
    CUgraphConditionalHandle cond;
    CUgraphNodeParams np;
    CU_OK(cuGraphCreate(&g, 0));
    CU_OK(cuGraphConditionalHandleCreate(&cond, g, ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    np.conditional.handle = cond, np.conditional.type = CU_GRAPH_COND_TYPE_IF;
    np.conditional.size = 1, np.conditional.ctx = ctx;
    CU_OK(cuGraphAddNode(&node, g, NULL, NULL, 0, &np));
    CUgraph body = np.conditional.phGraph_out[0];
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_MEMSET;
    np.memset.dst = y, np.memset.value = 0x12345678u, np.memset.elementSize = 4;
    np.memset.width = N, np.memset.height = 1, np.memset.ctx = ctx;
    CU_OK(cuGraphAddNode(&node, body, NULL, NULL, 0, &np));
    CU_OK(cuGraphInstantiate(&ge, g, 0));
    CU_OK(cuGraphLaunch(ge, s));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuMemcpyDtoH(round, y, sizeof round));
    for (int i = 0; i < N; i++)
        ck_assert_msg((uint32_t)round[i] == 0x12345678u, "the IF body's fill: %d is %#x", i,
                      round[i]);
    CU_OK(cuGraphExecDestroy(ge));
    CU_OK(cuGraphDestroy(g));
    CU_OK(cuGraphCreate(&g, 0)); /* a fill's value set in the instantiated graph */
    CU_OK(cuGraphAddNode(&node, g, NULL, NULL, 0, &np));
    CU_OK(cuGraphInstantiate(&ge, g, 0));
    np.memset.value = 0x0BADF00Du;
    CU_OK(cuGraphExecNodeSetParams(ge, node, &np));
    CU_OK(cuGraphLaunch(ge, s));
    CU_OK(cuStreamSynchronize(s));
    CU_OK(cuMemcpyDtoH(round, y, sizeof round));
    for (int i = 0; i < N; i++)
        ck_assert_msg((uint32_t)round[i] == 0x0BADF00Du,
                      "a fill set by cuGraphExecNodeSetParams: "
                      "%d is %#x",
                      i, round[i]);
    CU_OK(cuGraphExecDestroy(ge));
    CU_OK(cuGraphDestroy(g));
    CU_OK(cuEventDestroy(e));
    CU_OK(cuLibraryUnload(lib));
    CU_OK(cuModuleUnload(m));
    CU_OK(cuMemFree(x));
    CU_OK(cuMemFree(y));
    CU_OK(cuStreamDestroy(s));
}
END_TEST

static void count_call(void *p)
{
    ++*(int *)p;
}

/* A graph built with the driver's node calls, as cuda-python's samples build one: a fill, then
 * add_bias (its arguments as kernelParams, later as an extra buffer), then a copy to the host
 * and a host function; and the same launch captured from a stream. */
START_TEST(graphs_through_the_driver)
{
    setup();
    enum { N = 1031 };
    CUmodule m;
    CUfunction f;
    CUstream s;
    CU_OK(cuModuleLoadData(&m, add_bias_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "add_bias"));
    CU_OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    bias_for_case = 7;
    CUdeviceptr x = upload(N, ramp), y = upload(N, other);
    int n = N, calls = 0, *h = malloc(N * sizeof *h);
    CUgraph g;
    CUgraphNode fill, kern, copy, host;
    CU_OK(cuGraphCreate(&g, 0));
    CUDA_MEMSET_NODE_PARAMS mp = {y, 0, 0x01010101u, 4, N, 1};
    CU_OK(cuGraphAddMemsetNode(&fill, g, NULL, 0, &mp, NULL));
    void *args[] = {&y, &x, &n};
    CUDA_KERNEL_NODE_PARAMS kp = {f, (N + 63) / 64, 1, 1, 64, 1, 1, 0, args, NULL, NULL, NULL};
    CU_OK(cuGraphAddKernelNode(&kern, g, &fill, 1, &kp));
    CUDA_MEMCPY3D cp = {0};
    cp.srcMemoryType = CU_MEMORYTYPE_DEVICE, cp.srcDevice = y;
    cp.dstMemoryType = CU_MEMORYTYPE_HOST, cp.dstHost = h;
    cp.WidthInBytes = cp.srcPitch = cp.dstPitch = N * sizeof *h, cp.Height = 1, cp.Depth = 1;
    CU_OK(cuGraphAddMemcpyNode(&copy, g, &kern, 1, &cp, NULL));
    CUDA_HOST_NODE_PARAMS hp = {count_call, &calls};
    CU_OK(cuGraphAddHostNode(&host, g, &copy, 1, &hp));
    size_t nodes = 0;
    CUgraphNodeType type;
    CU_OK(cuGraphGetNodes(g, NULL, &nodes));
    CU_OK(cuGraphNodeGetType(kern, &type));
    ck_assert(nodes == 4 && type == CU_GRAPH_NODE_TYPE_KERNEL);
    CUDA_MEMCPY3D cback;
    CUDA_MEMSET_NODE_PARAMS mback;
    size_t edges = 0;
    CU_OK(cuGraphMemcpyNodeGetParams(copy, &cback));
    CU_OK(cuGraphMemsetNodeGetParams(fill, &mback));
    CU_OK(cuGraphGetEdges(g, NULL, NULL, NULL, &edges));
    ck_assert(cback.dstHost == h && cback.srcDevice == y && cback.WidthInBytes == N * sizeof *h &&
              cback.dstMemoryType == CU_MEMORYTYPE_HOST);
    ck_assert(mback.value == 0x01010101u && mback.elementSize == 4 && edges == 3);
    CUDA_KERNEL_NODE_PARAMS back;
    CU_OK(cuGraphKernelNodeGetParams(kern, &back));
    ck_assert(back.func == f && back.gridDimX == (N + 63) / 64 &&
              *(CUdeviceptr *)back.kernelParams[1] == x);
    CUgraphExec e;
    CU_OK(cuGraphInstantiate(&e, g, 0));
    CU_OK(cuGraphLaunch(e, s));
    CU_OK(cuStreamSynchronize(s));
    expect(y, N, ramp_plus_bias, "a kernel node");
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(h[i], ramp_plus_bias(i));
    ck_assert_int_eq(calls, 1);
    struct {
        CUdeviceptr y, x;
        int n;
    } packed = {y, y, N}; /* y += bias, in place */
    size_t size = sizeof packed;
    void *buffer[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                      CU_LAUNCH_PARAM_END};
    CUDA_KERNEL_NODE_PARAMS kx = {f, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, buffer, NULL, NULL};
    CU_OK(cuGraphExecKernelNodeSetParams(e, kern, &kx));
    CU_OK(cuGraphNodeSetEnabled(e, fill, 0));
    CU_OK(cuGraphLaunch(e, s));
    CU_OK(cuStreamSynchronize(s));
    bias_for_case = 14; /* ramp + 7, plus 7 more */
    expect(y, N, ramp_plus_bias, "a kernel node's arguments set as an extra buffer");
    CUgraph captured;
    CUgraphExec ce;
    CUdeviceptr z;
    uint32_t zh[N];
    CU_OK(cuMemAlloc(&z, sizeof zh));
    CU_OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CU_OK(cuMemsetD32Async(z, 0xDEADBEEFu, N, s)); /* a fill node of 4-byte elements */
    void *again[] = {&y, &x, &n};
    CU_OK(cuLaunchKernel(f, (N + 63) / 64, 1, 1, 64, 1, 1, 0, s, again, NULL));
    CUstreamCaptureStatus status;
    const CUgraphNode *last;
    size_t nlast = 0;
    CU_OK(cuStreamGetCaptureInfo(s, &status, NULL, NULL, &last, NULL, &nlast));
    ck_assert(status == CU_STREAM_CAPTURE_STATUS_ACTIVE && nlast == 1);
    CU_OK(cuLaunchHostFunc(s, count_call, &calls));
    CU_OK(cuStreamEndCapture(s, &captured));
    CU_OK(cuGraphInstantiate(&ce, captured, 0));
    CU_OK(cuGraphLaunch(ce, s));
    CU_OK(cuStreamSynchronize(s));
    bias_for_case = 7;
    expect(y, N, ramp_plus_bias, "a captured launch");
    ck_assert_int_eq(calls, 3);
    CU_OK(cuMemcpyDtoH(zh, z, sizeof zh));
    for (int i = 0; i < N; i++)
        ck_assert_msg(zh[i] == 0xDEADBEEFu, "captured cuMemsetD32Async: z[%d] = %#x", i, zh[i]);
    enum { W = 37, H = 5, PITCH = 96 }; /* a 2D fill of 16-bit elements, the pitch's gaps kept */
    uint16_t pad[PITCH / 2 * H];
    CU_OK(cuMemsetD8(z, 0x11, PITCH * H));
    CU_OK(cuMemsetD2D16(z, PITCH, 0xABCD, W, H));
    CU_OK(cuMemcpyDtoH(pad, z, sizeof pad));
    for (int i = 0; i < PITCH / 2 * H; i++)
        ck_assert_msg(pad[i] == (i % (PITCH / 2) < W ? 0xABCD : 0x1111), "cuMemsetD2D16: %d is %#x",
                      i, pad[i]);
    CU_OK(cuMemFree(z));
    CU_OK(cuGraphExecDestroy(ce));
    CU_OK(cuGraphExecDestroy(e));
    CU_OK(cuGraphDestroy(captured));
    CU_OK(cuGraphDestroy(g));
    CU_OK(cuStreamDestroy(s));
    CU_OK(cuMemFree(x));
    CU_OK(cuMemFree(y));
    CU_OK(cuModuleUnload(m));
    free(h);
}
END_TEST

START_TEST(bad_images_refused)
{
    setup();
    CUmodule m;
    char log[256] = "untouched";
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(size_t)sizeof log};
    EXPECT_REFUSED_WITH(
        CUDA_ERROR_INVALID_PTX,
        cuModuleLoadDataEx(&m, ".version 8.0\n.target sm_90\n.entry k(\n", 2, opts, values),
        "cuModuleLoadDataEx");
    ck_assert_msg(strstr(log, "could not load"), "the JIT error log says '%s'", log);
    EXPECT_REFUSED_WITH(CUDA_ERROR_NO_BINARY_FOR_GPU, cuModuleLoad(&m, DRIVER_KERNELS_CUBIN),
                        "is a cubin");
    EXPECT_REFUSED_WITH(CUDA_ERROR_FILE_NOT_FOUND, cuModuleLoad(&m, "/nonexistent.ptx"),
                        "cannot read");
    int n = 1;
    void *args[] = {&n};
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_HANDLE,
                        cuLaunchKernel((CUfunction)&n, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
                        "not a function");
}
END_TEST

/* --- modules from files: nvcc's PTX and fat binary -------------------------------------------- */

static int scale_add_want(int i)
{
    return 3 * ramp(i) + other(i) + 5;
}

/* drv_scale_add over n elements of module @p path, with a = 3 and drv_offset 5. */
static void run_scale_add(const char *path, int n)
{
    CUmodule m;
    CUfunction f;
    CU_OK(cuModuleLoad(&m, path));
    CU_OK(cuModuleGetFunction(&f, m, "drv_scale_add"));
    CUdeviceptr x = upload(n, ramp), y = upload(n, other);
    int a = 3;
    void *args[] = {&y, &x, &a, &n};
    CU_OK(cuLaunchKernel(f, (unsigned)(n + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    expect(y, n, scale_add_want, path);
    CU_OK(cuModuleUnload(m));
}

START_TEST(ptx_and_fatbin_files_run)
{
    setup();
    const int sizes[] = {1, 33, 1031};
    for (int s = 0; s < 3; s++) {
        run_scale_add(DRIVER_KERNELS_PTX, sizes[s]);
        run_scale_add(DRIVER_KERNELS_FATBIN, sizes[s]);
    }
}
END_TEST

/* Two inputs linked (PTX text, and nvcc's fat binary from a file) load as one module holding
 * both kernels; machine code is refused. */
START_TEST(linked_ptx_runs)
{
    setup();
    CUlinkState link;
    void *image;
    size_t size;
    CU_OK(cuLinkCreate(0, NULL, NULL, &link));
    CU_OK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)add_bias_ptx, sizeof add_bias_ptx,
                        "add_bias", 0, NULL, NULL));
    CU_OK(cuLinkAddFile(link, CU_JIT_INPUT_FATBINARY, DRIVER_KERNELS_FATBIN, 0, NULL, NULL));
    EXPECT_REFUSED_WITH(
        CUDA_ERROR_NOT_SUPPORTED,
        cuLinkAddFile(link, CU_JIT_INPUT_CUBIN, DRIVER_KERNELS_CUBIN, 0, NULL, NULL),
        "only PTX and fat binaries");
    CU_OK(cuLinkComplete(link, &image, &size));
    CUmodule m;
    CUfunction f;
    CU_OK(cuModuleLoadData(&m, image));
    CU_OK(cuLinkDestroy(link));
    CU_OK(cuModuleGetFunction(&f, m, "add_bias"));
    bias_for_case = 7;
    run_add_bias(f, 33, 0);
    CU_OK(cuModuleGetFunction(&f, m, "drv_scale_add"));
    CU_OK(cuModuleUnload(m));
}
END_TEST

/* --- NVRTC ---------------------------------------------------------------------------------- */

static const char nvrtc_source[] =
    "extern \"C\" __global__ void cube_minus(int *y, const int *x, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = x[i] * x[i] * x[i] - i;\n"
    "}\n";

static int cube_minus_want(int i)
{
    return ramp(i) * ramp(i) * ramp(i) - i;
}

START_TEST(nvrtc_output_runs)
{
    nvrtcProgram prog;
    const char *opts[] = {"--gpu-architecture=compute_90"};
    ck_assert_int_eq(nvrtcCreateProgram(&prog, nvrtc_source, "cube.cu", 0, NULL, NULL),
                     NVRTC_SUCCESS);
    struct capture c; /* NVRTC asks the loaded libcuda for its private tables: no line */
    capture_begin(&c, 2);
    nvrtcResult compiled = nvrtcCompileProgram(prog, 1, opts);
    char *said = capture_end(&c);
    ck_assert_int_eq(compiled, NVRTC_SUCCESS);
    ck_assert_msg(!said[0], "NVRTC's compilation printed '%s'", said);
    free(said);
    size_t size;
    ck_assert_int_eq(nvrtcGetPTXSize(prog, &size), NVRTC_SUCCESS);
    char *ptx = malloc(size);
    ck_assert_int_eq(nvrtcGetPTX(prog, ptx), NVRTC_SUCCESS);
    setup();
    CUmodule m;
    CUfunction f;
    CU_OK(cuModuleLoadDataEx(&m, ptx, 0, NULL, NULL));
    CU_OK(cuModuleGetFunction(&f, m, "cube_minus"));
    const int sizes[] = {1, 33, 1031};
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        CUdeviceptr x = upload(n, ramp), y = upload(n, other);
        void *args[] = {&y, &x, &n};
        CU_OK(cuLaunchKernel(f, (unsigned)(n + 31) / 32, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
        expect(y, n, cube_minus_want, "NVRTC's cube_minus");
    }
    free(ptx);
    nvrtcDestroyProgram(&prog);
}
END_TEST

/* --- the runtime and the driver in one program --------------------------------------------------
 */

static int twice_plus_one_then_scaled(int i)
{
    return 3 * other(i) + (2 * ramp(i) + 1) + 5;
}

/* The runtime allocates and launches first (no cuInit: the runtime initialised the driver),
 * then a driver launch on the runtime's stream reads what the runtime's kernel wrote. */
START_TEST(runtime_and_driver_share_one_device)
{
    const int n = 1031;
    int *d_y = NULL;
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d_y, (n + GUARD) * sizeof(int)), cudaSuccess);
    CUdeviceptr x = upload(n, other);
    int *h = malloc((n + GUARD) * sizeof *h);
    for (int i = 0; i < n + GUARD; i++)
        h[i] = i < n ? ramp(i) : POISON;
    ck_assert_int_eq(cudaMemcpy(d_y, h, (n + GUARD) * sizeof *h, cudaMemcpyHostToDevice),
                     cudaSuccess);
    ck_assert_int_eq(drv_twice_plus_one(d_y, n, s), cudaSuccess);
    CUcontext ctx;
    CU_OK(cuCtxGetCurrent(&ctx));
    ck_assert_ptr_nonnull(ctx);
    CUmodule m;
    CUfunction f;
    CU_OK(cuModuleLoad(&m, DRIVER_KERNELS_PTX));
    CU_OK(cuModuleGetFunction(&f, m, "drv_scale_add"));
    CUdeviceptr y = (CUdeviceptr)(uintptr_t)d_y;
    int a = 3, nn = n;
    void *args[] = {&y, &x, &a, &nn};
    CU_OK(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, (CUstream)s, args, NULL));
    CU_OK(cuStreamSynchronize((CUstream)s));
    expect(y, n, twice_plus_one_then_scaled, "a runtime launch, then a driver launch");
    free(h);
}
END_TEST

/* --- fills, streams, events --------------------------------------------------------------------
 */

/* cuMemsetD8/16/32 (synchronous and on a stream) over odd counts, a guard byte pattern after. */
START_TEST(fills_of_every_width)
{
    setup();
    CUstream s;
    CU_OK(cuStreamCreate(&s, CU_STREAM_DEFAULT)); /* blocking: ordered after the legacy fill */
    const size_t counts[] = {1, 33, 1031};
    for (int c = 0; c < 3; c++)
        for (int w = 1; w <= 4; w *= 2) {
            size_t n = counts[c], bytes = n * (size_t)w + 64;
            CUdeviceptr d;
            CU_OK(cuMemAlloc(&d, bytes));
            CU_OK(cuMemsetD8(d, 0xA5, bytes));
            unsigned v = w == 1 ? 0x3C : w == 2 ? 0x1234 : 0x89ABCDEFu;
            if (c == 1)
                CU_OK(w == 1   ? cuMemsetD8Async(d, (unsigned char)v, n, s)
                      : w == 2 ? cuMemsetD16Async(d, (unsigned short)v, n, s)
                               : cuMemsetD32Async(d, v, n, s));
            else
                CU_OK(w == 1   ? cuMemsetD8(d, (unsigned char)v, n)
                      : w == 2 ? cuMemsetD16(d, (unsigned short)v, n)
                               : cuMemsetD32(d, v, n));
            CU_OK(cuStreamSynchronize(s));
            unsigned char *h = malloc(bytes);
            CU_OK(cuMemcpyDtoH(h, d, bytes));
            for (size_t i = 0; i < bytes; i++) {
                unsigned want = i < n * (size_t)w ? (v >> (8 * (i % (size_t)w))) & 0xFF : 0xA5;
                ck_assert_msg(h[i] == want, "cuMemsetD%d of %zu: byte %zu is 0x%02x, not 0x%02x",
                              8 * w, n, i, h[i], want);
            }
            free(h);
            CU_OK(cuMemFree(d));
        }
    CU_OK(cuStreamDestroy(s));
}
END_TEST

/* cuMemGetAddressRange: each allocation's first and last byte give its base and the size
 * asked for, an address just past it or on the host none, and either answer may be left out. */
START_TEST(address_ranges_of_allocations)
{
    setup();
    const size_t sizes[] = {1, 33, 1031};
    CUdeviceptr d[3];
    for (int i = 0; i < 3; i++)
        CU_OK(cuMemAlloc(&d[i], sizes[i]));
    for (int i = 0; i < 3; i++) {
        CUdeviceptr ends[2] = {d[i], d[i] + sizes[i] - 1};
        for (int e = 0; e < 2; e++) {
            CUdeviceptr base = 0;
            size_t size = 0;
            CU_OK(cuMemGetAddressRange(&base, &size, ends[e]));
            ck_assert_msg(base == d[i] && size == sizes[i],
                          "allocation %d (%zu bytes), byte %d: base %llx size %zu, want %llx %zu",
                          i, sizes[i], e, (unsigned long long)base, size, (unsigned long long)d[i],
                          sizes[i]);
        }
        CU_OK(cuMemGetAddressRange(NULL, NULL, d[i]));
        ck_assert_int_eq(cuMemGetAddressRange(NULL, NULL, d[i] + sizes[i]), CUDA_ERROR_NOT_FOUND);
    }
    int host = 0;
    ck_assert_int_eq(cuMemGetAddressRange(NULL, NULL, (CUdeviceptr)(uintptr_t)&host),
                     CUDA_ERROR_NOT_FOUND);
    for (int i = 0; i < 3; i++)
        CU_OK(cuMemFree(d[i]));
    ck_assert_int_eq(cuMemGetAddressRange(NULL, NULL, d[2]), CUDA_ERROR_NOT_FOUND);
}
END_TEST

/* cuPointerGetAttribute(s): a device allocation's type, device pointer, ordinal, range and
 * context from any byte of it; pinned host memory's host and device pointers; managed memory
 * flagged; host memory CUDA does not know is CUDA_ERROR_INVALID_VALUE. */
START_TEST(pointer_attributes)
{
    setup();
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, 1031));
    unsigned type = 0;
    CUdeviceptr start = 0, dp = 0;
    size_t size = 0;
    int managed = -1, ordinal = -1;
    CUcontext ctx = NULL, cur = NULL;
    CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    void *out[] = {&type, &start, &size, &managed, &ordinal};
    CU_OK(cuPointerGetAttributes(5, which, out, d + 1030));
    ck_assert_msg(type == CU_MEMORYTYPE_DEVICE && start == d && size == 1031 && managed == 0 &&
                      ordinal == 0,
                  "device byte 1030: type %u start %llx size %zu managed %d ordinal %d, want %d "
                  "%llx 1031 0 0",
                  type, (unsigned long long)start, size, managed, ordinal, CU_MEMORYTYPE_DEVICE,
                  (unsigned long long)d);
    CU_OK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 7));
    ck_assert(dp == d + 7);
    CU_OK(cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, d));
    CU_OK(cuCtxGetCurrent(&cur));
    ck_assert(ctx == cur);
    void *h = NULL, *hp = NULL;
    CU_OK(cuMemAllocHost(&h, 64));
    CU_OK(
        cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)h));
    CU_OK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, (CUdeviceptr)(uintptr_t)h));
    ck_assert_msg(type == CU_MEMORYTYPE_HOST && hp == h, "pinned: type %u host %p, want %d %p",
                  type, hp, CU_MEMORYTYPE_HOST, h);
    CUdeviceptr m;
    CU_OK(cuMemAllocManaged(&m, 256, CU_MEM_ATTACH_GLOBAL));
    CU_OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m));
    ck_assert_int_eq(managed, 1);
    int host = 0;
    ck_assert_int_eq(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                           (CUdeviceptr)(uintptr_t)&host),
                     CUDA_ERROR_INVALID_VALUE);
    ck_assert_int_eq(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d),
                     CUDA_ERROR_INVALID_VALUE);
    CU_OK(cuMemFree(m));
    CU_OK(cuMemFreeHost(h));
    CU_OK(cuMemFree(d));
}
END_TEST

START_TEST(streams_events_and_async_copies)
{
    setup();
    const int n = 1031;
    CUstream s;
    CUevent start, stop;
    CU_OK(cuStreamCreate(&s, 0));
    CU_OK(cuEventCreate(&start, CU_EVENT_DEFAULT));
    CU_OK(cuEventCreate(&stop, CU_EVENT_DEFAULT));
    int *h = NULL;
    CU_OK(cuMemAllocHost((void **)&h, (n + GUARD) * sizeof *h));
    for (int i = 0; i < n + GUARD; i++)
        h[i] = i < n ? ramp(i) : POISON;
    CUdeviceptr a, b;
    CU_OK(cuMemAlloc(&a, (n + GUARD) * sizeof *h));
    CU_OK(cuMemAlloc(&b, (n + GUARD) * sizeof *h));
    CU_OK(cuEventRecord(start, s));
    CU_OK(cuMemcpyHtoDAsync(a, h, (n + GUARD) * sizeof *h, s));
    CU_OK(cuMemcpyDtoDAsync(b, a, (n + GUARD) * sizeof *h, s));
    CU_OK(cuEventRecord(stop, s));
    ck_assert_int_eq(cuStreamQuery(s), CUDA_ERROR_NOT_READY); /* queued: nothing asked for it */
    CU_OK(cuEventSynchronize(stop));
    float ms = -1;
    CU_OK(cuEventElapsedTime(&ms, start, stop));
    ck_assert(ms >= 0);
    expect(b, n, ramp, "copies on a stream");
    CU_OK(cuEventDestroy(start));
    CU_OK(cuEventDestroy(stop));
    CU_OK(cuStreamDestroy(s));
    CU_OK(cuMemFreeHost(h));
}
END_TEST

/* --- launches with a config, function attributes, faults -----------------------------------------
 */

static int times_three(int i)
{
    return 3 * i;
}

START_TEST(launch_ex_and_function_attributes)
{
    setup();
    CUmodule m;
    CUfunction st, dyn;
    CU_OK(cuModuleLoad(&m, DRIVER_KERNELS_FATBIN));
    CU_OK(cuModuleGetFunction(&st, m, "drv_static_shared"));
    CU_OK(cuModuleGetFunction(&dyn, m, "drv_dynamic_shared"));
    int v;
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, st));
    ck_assert_int_eq(v, 2048);
    CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, st));
    ck_assert_int_eq(v, 1024);
    const char *name;
    CU_OK(cuFuncGetName(&name, st));
    ck_assert_str_eq(name, "drv_static_shared");
    int grid = 0, block = 0; /* 2 KiB of shared memory a block limits nothing below 1024 threads */
    CU_OK(cuOccupancyMaxPotentialBlockSize(&grid, &block, st, NULL, 0, 992));
    ck_assert(block > 0 && block <= 992 && block % 32 == 0 && grid >= 132);
    ck_assert_int_eq(cuOccupancyMaxPotentialBlockSize(NULL, &block, st, NULL, 0, 0),
                     CUDA_ERROR_INVALID_VALUE);
    int n = 1031;
    CUdeviceptr out = upload(n, other);
    void *args[] = {&out, &n};
    CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
    attr.value.clusterDim.x = attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg = {(n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, &attr, 1};
    CU_OK(cuLaunchKernelEx(&cfg, st, args, NULL));
    expect(out, n, times_three, "drv_static_shared through cuLaunchKernelEx");
    /* 100 KiB of dynamic shared memory: refused until the function opts in, as on a GPU */
    int words = 100 * 1024 / 4;
    void *dargs[] = {&out, &words};
    ck_assert_int_ne(cuLaunchKernel(dyn, 1, 1, 1, 32, 1, 1, 100 * 1024, NULL, dargs, NULL),
                     CUDA_SUCCESS);
    CU_OK(cuFuncSetAttribute(dyn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024));
    CU_OK(cuLaunchKernel(dyn, 1, 1, 1, 32, 1, 1, 100 * 1024, NULL, dargs, NULL));
    int h[32];
    CU_OK(cuMemcpyDtoH(h, out, sizeof h));
    for (int i = 0; i < 32; i++)
        ck_assert_int_eq(h[i], words);
}
END_TEST

/* add_bias from add_bias_ptx, loaded as a module of its own. */
static CUfunction add_bias_function(void)
{
    CUmodule m;
    CUfunction f;
    CU_OK(cuModuleLoadData(&m, add_bias_ptx));
    CU_OK(cuModuleGetFunction(&f, m, "add_bias"));
    return f;
}

/* add_bias over @p n elements of @p y from @p x, one block: the launch is queued (success) and
 * the synchronisation reports the illegal address (its line captured). */
static void add_bias_faults(CUfunction f, CUdeviceptr y, CUdeviceptr x, int n)
{
    void *args[] = {&y, &x, &n};
    CU_OK(cuLaunchKernel(f, 1, 1, 1, (unsigned)n, 1, 1, 0, NULL, args, NULL));
    struct capture c;
    capture_begin(&c, 2);
    CUresult r = cuCtxSynchronize();
    free(capture_end(&c));
    ck_assert_int_eq(r, CUDA_ERROR_ILLEGAL_ADDRESS);
}

/* An out-of-bounds store: the launch is queued (success), the synchronisation reports it and
 * every call after it returns it, as on a GPU. */
START_TEST(kernel_fault_is_sticky)
{
    setup();
    CUfunction f = add_bias_function();
    CUdeviceptr x = upload(1, ramp), y;
    CU_OK(cuMemAlloc(&y, 4));
    add_bias_faults(f, y, x, 64); /* 64 elements of a 4-byte buffer */
    int n;
    ck_assert_int_eq(cuMemcpyDtoH(&n, x, 4), CUDA_ERROR_ILLEGAL_ADDRESS);
}
END_TEST

/* --- cuGetProcAddress ------------------------------------------------------------------------ */

static void *own(const char *name)
{
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    return lib ? dlsym(lib, name) : NULL;
}

/* cuGetProcAddress(@p symbol, @p version, @p flags) is the exported @p want. */
static void expect_proc(const char *symbol, int version, cuuint64_t flags, const char *want)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult status;
    CU_OK(cuGetProcAddress(symbol, &fn, version, flags, &status));
    ck_assert_msg(fn && fn == own(want), "cuGetProcAddress(%s, %d, %llu) is not %s", symbol,
                  version, (unsigned long long)flags, want);
    ck_assert_int_eq(status, CU_GET_PROC_ADDRESS_SUCCESS);
}

START_TEST(proc_address_and_driver_entry_points)
{
    expect_proc("cuMemAlloc", 12000, 0, "cuMemAlloc_v2");
    expect_proc("cuMemAlloc", 3000, 0, "cuMemAlloc");
    expect_proc("cuCtxCreate", 11040, 0, "cuCtxCreate_v3");
    expect_proc("cuCtxCreate", 13000, 0, "cuCtxCreate_v4");
    expect_proc("cuTensorMapEncodeTiled", 12000, 0, "cuTensorMapEncodeTiled");
    expect_proc("cuMemcpyHtoD", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                "cuMemcpyHtoD_v2_ptds");
    expect_proc("cuLaunchKernel", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                "cuLaunchKernel_ptsz");
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult status;
    ck_assert_int_eq(cuGetProcAddress("cuNoSuchThing", &fn, 12000, 0, &status),
                     CUDA_ERROR_NOT_FOUND);
    ck_assert(!fn && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    /* the runtime's way in, which CUTLASS and most Hopper kernels take */
    enum cudaDriverEntryPointQueryResult q;
    ck_assert_int_eq(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault, &q),
                     cudaSuccess);
    ck_assert(fn == own("cuTensorMapEncodeTiled") && q == cudaDriverEntryPointSuccess);
    ck_assert_int_eq(
        cudaGetDriverEntryPointByVersion("cuCtxCreate", &fn, 12000, cudaEnableDefault, &q),
        cudaSuccess);
    ck_assert(fn == own("cuCtxCreate_v3"));
}
END_TEST

/* Every PFN_cuNAME_vVERSION cudaTypedefs.h declares: asked for NAME at VERSION, the answer is
 * the version's export (NAME, NAME_v2, ... in the order of the versions). */
START_TEST(proc_address_versions)
{
    char *text = course_read_file(CUDA_TYPEDEFS_H);
    ck_assert_ptr_nonnull(text);
    char names[1024][64];
    int versions[1024], n = 0, checked = 0;
    for (char *p = text; (p = strstr(p, "(CUDAAPI *PFN_cu")) && n < 1024; p++) {
        char name[64];
        int v;
        char *close = strchr(p, ')');
        if (sscanf(p, "(CUDAAPI *PFN_%63[A-Za-z0-9]_v%d", name, &v) != 2 || !close ||
            close[-1] == 's' || close[-1] == 'z')
            continue; /* a _ptds or _ptsz form */
        snprintf(names[n], sizeof names[n], "%s", name);
        versions[n++] = v;
    }
    for (int i = 0; i < n; i++) {
        int rank = 1; /* how many versions of the name are as old or older */
        for (int j = 0; j < n; j++)
            rank += j != i && !strcmp(names[i], names[j]) && versions[j] < versions[i];
        char want[80];
        if (rank == 1)
            snprintf(want, sizeof want, "%s", names[i]);
        else
            snprintf(want, sizeof want, "%s_v%d", names[i], rank);
        expect_proc(names[i], versions[i], 0, want);
        checked++;
    }
    ck_assert_int_gt(checked, 400);
    free(text);
}
END_TEST

/* Every function the toolkit's stub libcuda.so exports is defined by the stand-in; the ones it
 * lacks answer CUDA_ERROR_NOT_SUPPORTED in one line. */
START_TEST(every_export_is_defined)
{
    char cmd[4200], sym[256];
    snprintf(cmd, sizeof cmd, "nm -D --defined-only %s", CUDA_STUB_LIBCUDA);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    int total = 0, missing = 0;
    char line[512], first[256] = "";
    while (fgets(line, sizeof line, p)) {
        char kind;
        if (sscanf(line, "%*s %c %255s", &kind, sym) != 2 || kind != 'T')
            continue;
        total++;
        if (!own(sym) && !missing++)
            snprintf(first, sizeof first, "%s", sym);
    }
    pclose(p);
    ck_assert_int_gt(total, 500);
    ck_assert_msg(!missing, "%d of %d functions of libcuda.so are missing, %s first", missing,
                  total, first);
    typedef CUresult (*mipmap_create)(CUmipmappedArray *, const CUDA_ARRAY3D_DESCRIPTOR *,
                                      unsigned);
    CUmipmappedArray a;
    CUDA_ARRAY3D_DESCRIPTOR d = {16, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    EXPECT_REFUSED_WITH(CUDA_ERROR_NOT_SUPPORTED,
                        ((mipmap_create)own("cuMipmappedArrayCreate"))(&a, &d, 2),
                        "cuMipmappedArrayCreate is not emulated");
}
END_TEST

/* --- cuTensorMapEncodeTiled --------------------------------------------------------------------
 */

/** The arguments of one cuTensorMapEncodeTiled call. */
struct encode {
    CUtensorMapDataType type;
    unsigned rank;
    long addr_offset; /* bytes past the allocation's start */
    cuuint64_t dim[5], stride[4];
    cuuint32_t box[5], estride[5];
    CUtensorMapInterleave interleave;
    CUtensorMapSwizzle swizzle;
    CUtensorMapL2promotion l2;
    CUtensorMapFloatOOBfill oob;
    long map_offset; /* bytes past an aligned CUtensorMap */
};

/* A valid 2D map: 100 x 37 floats with rows of 400 bytes, a 32 x 8 box, 128-byte swizzle. */
static struct encode valid(void)
{
    return (struct encode){CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                           2,
                           0,
                           {100, 37, 1, 1, 1},
                           {400, 14800, 14800, 14800},
                           {32, 8, 1, 1, 1},
                           {1, 1, 1, 1, 1},
                           CU_TENSOR_MAP_INTERLEAVE_NONE,
                           CU_TENSOR_MAP_SWIZZLE_128B,
                           CU_TENSOR_MAP_L2_PROMOTION_NONE,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
                           0};
}

static CUresult encode(const struct encode *e, CUdeviceptr base)
{
    static CUtensorMap maps[2];
    CUtensorMap *map = (CUtensorMap *)((char *)&maps[0] + e->map_offset);
    return cuTensorMapEncodeTiled(map, e->type, e->rank, (void *)(uintptr_t)(base + e->addr_offset),
                                  e->dim, e->stride, e->box, e->estride, e->interleave, e->swizzle,
                                  e->l2, e->oob);
}

START_TEST(tensor_map_rules)
{
    setup();
    CUdeviceptr base;
    CU_OK(cuMemAlloc(&base, 1 << 20));
    struct encode e = valid();
    CU_OK(encode(&e, base));
    for (unsigned rank = 1; rank <= 5; rank++) {
        e = valid();
        e.rank = rank;
        e.swizzle = rank % 4;
        e.box[0] = rank == 1 ? 8 : 4 << e.swizzle; /* floats: 16, 32, 64 or 128 bytes */
        CU_OK(encode(&e, base));
    }
    static const struct {
        const char *what;
        int field, value;
        CUresult code;
        const char *says;
    } bad[] = {
        {"map alignment", 0, 8, CUDA_ERROR_INVALID_VALUE, "64-byte aligned"},
        {"type", 1, 20, CUDA_ERROR_INVALID_VALUE, "not a CUtensorMapDataType"},
        {"sub-byte type", 1, CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, CUDA_ERROR_NOT_SUPPORTED,
         "sm_100"},
        {"rank 0", 2, 0, CUDA_ERROR_INVALID_VALUE, "1 to 5"},
        {"rank 6", 2, 6, CUDA_ERROR_INVALID_VALUE, "1 to 5"},
        {"address", 3, 8, CUDA_ERROR_INVALID_VALUE, "16-byte aligned"},
        {"extent 0", 4, 0, CUDA_ERROR_INVALID_VALUE, "1 to 2^32"},
        {"stride", 5, 404, CUDA_ERROR_INVALID_VALUE, "multiple of 16"},
        {"box 257", 6, 257, CUDA_ERROR_INVALID_VALUE, "1 to 256"},
        {"box 0", 6, 0, CUDA_ERROR_INVALID_VALUE, "1 to 256"},
        {"inner box 12 bytes", 7, 3, CUDA_ERROR_INVALID_VALUE, "multiple of 16 bytes"},
        {"inner box past the swizzle", 7, 64, CUDA_ERROR_INVALID_VALUE, "allows at most 128"},
        {"traversal stride 9", 8, 9, CUDA_ERROR_INVALID_VALUE, "1 to 8"},
        {"traversal stride 0", 8, 0, CUDA_ERROR_INVALID_VALUE, "1 to 8"},
        {"interleave 3", 9, 3, CUDA_ERROR_INVALID_VALUE, "not a CUtensorMapInterleave"},
        {"interleave in 2D", 9, CU_TENSOR_MAP_INTERLEAVE_16B, CUDA_ERROR_INVALID_VALUE,
         "needs 3 to 5"},
        {"swizzle 7", 10, 7, CUDA_ERROR_INVALID_VALUE, "not a CUtensorMapSwizzle"},
        {"atom swizzle", 10, CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B, CUDA_ERROR_NOT_SUPPORTED,
         "sm_100"},
        {"32-byte interleave, 64-byte swizzle", 11, 0, CUDA_ERROR_INVALID_VALUE,
         "needs the 32-byte swizzle"},
        {"L2 promotion", 12, 4, CUDA_ERROR_INVALID_VALUE, "not a CUtensorMapL2promotion"},
        {"fill", 13, 2, CUDA_ERROR_INVALID_VALUE, "not a CUtensorMapFloatOOBfill"},
        {"NaN fill of integers", 14, 0, CUDA_ERROR_INVALID_VALUE, "needs a floating-point"},
        {"extent 2^32 + 1", 15, 0, CUDA_ERROR_INVALID_VALUE, "1 to 2^32"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        e = valid();
        int v = bad[i].value;
        switch (bad[i].field) {
        case 0:
            e.map_offset = v;
            break;
        case 1:
            e.type = (CUtensorMapDataType)v;
            break;
        case 2:
            e.rank = (unsigned)v;
            break;
        case 3:
            e.addr_offset = v;
            break;
        case 4:
            e.dim[1] = (cuuint64_t)v;
            break;
        case 5:
            e.stride[0] = (cuuint64_t)v;
            break;
        case 6:
            e.box[1] = (cuuint32_t)v;
            break;
        case 7:
            e.box[0] = (cuuint32_t)v, e.swizzle = v == 3 ? 0 : e.swizzle;
            break;
        case 8:
            e.estride[1] = (cuuint32_t)v;
            break;
        case 9:
            e.interleave = (CUtensorMapInterleave)v;
            break;
        case 10:
            e.swizzle = (CUtensorMapSwizzle)v;
            break;
        case 11:
            e.rank = 3, e.interleave = CU_TENSOR_MAP_INTERLEAVE_32B;
            e.swizzle = CU_TENSOR_MAP_SWIZZLE_64B, e.stride[0] = 416, e.stride[1] = 416 * 37;
            break;
        case 12:
            e.l2 = (CUtensorMapL2promotion)v;
            break;
        case 13:
            e.oob = (CUtensorMapFloatOOBfill)v;
            break;
        case 14:
            e.type = CU_TENSOR_MAP_DATA_TYPE_UINT32;
            e.oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
            break;
        default:
            e.dim[0] = (1ull << 32) + 1;
            break;
        }
        struct capture c;
        capture_begin(&c, 2);
        CUresult r = encode(&e, base);
        char *text = capture_end(&c);
        const char *nl = strchr(text, '\n');
        ck_assert_msg(r == bad[i].code && strstr(text, bad[i].says) && nl && !nl[1],
                      "%s: cuTensorMapEncodeTiled returned %d and printed '%s', not one line "
                      "saying '%s'",
                      bad[i].what, (int)r, text, bad[i].says);
        free(text);
    }
    EXPECT_REFUSED_WITH(CUDA_ERROR_NOT_SUPPORTED,
                        cuTensorMapEncodeIm2col(
                            NULL, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, NULL, NULL, NULL, NULL, NULL,
                            1, 1, NULL, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                        "cuTensorMapEncodeIm2col");
}
END_TEST

/* --- arrays, 2D and 3D copies, texture objects ------------------------------------------------
 */

/* A 37 x 13 float image whose neighbours differ unevenly. */
enum { IMG_W = 37, IMG_H = 13, SAMPLES = 211 };

static float texel_value(int x, int y)
{
    return 0.5f * (float)x + 3.0f * (float)y + 0.25f * (float)((x * 7 + y * 13) % 5);
}

/* Texel index @p i of an axis of @p n texels: clamped to the edge or (@p wrap) modulo n. */
static int texel_index(int i, int n, int wrap)
{
    if (wrap)
        return ((i % n) + n) % n;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* The Programming Guide's texture fetch of the image at (x, y): normalized coordinates scaled
 * by the size (their fraction first under wrap), nearest texel or the bilinear blend of the
 * four around (x - 0.5, y - 0.5). The guide keeps the blend's weights to 8 fractional bits,
 * so *tol is 1/256 of the spread of the four texels (0 for the nearest). */
static float fetch_reference(float x, float y, int linear, int wrap, int normalized, float *tol)
{
    *tol = 0;
    if (normalized) {
        x = (wrap ? x - floorf(x) : x) * IMG_W;
        y = (wrap ? y - floorf(y) : y) * IMG_H;
    }
    if (!linear)
        return texel_value(texel_index((int)floorf(x), IMG_W, wrap),
                           texel_index((int)floorf(y), IMG_H, wrap));
    float xb = x - 0.5f, yb = y - 0.5f, a = xb - floorf(xb), b = yb - floorf(yb);
    int i = (int)floorf(xb), j = (int)floorf(yb);
    int i0 = texel_index(i, IMG_W, wrap), i1 = texel_index(i + 1, IMG_W, wrap);
    int j0 = texel_index(j, IMG_H, wrap), j1 = texel_index(j + 1, IMG_H, wrap);
    float t[4] = {texel_value(i0, j0), texel_value(i1, j0), texel_value(i0, j1),
                  texel_value(i1, j1)};
    float lo = fminf(fminf(t[0], t[1]), fminf(t[2], t[3]));
    *tol = (fmaxf(fmaxf(t[0], t[1]), fmaxf(t[2], t[3])) - lo) / 256.0f + 1e-4f;
    return (1 - b) * ((1 - a) * t[0] + a * t[1]) + b * ((1 - a) * t[2] + a * t[3]);
}

/* A CUDA_MEMCPY2D of the whole image between host memory of @p pitch bytes and @p array. */
static CUDA_MEMCPY2D image_copy(CUarray array, void *host, size_t pitch, int to_array)
{
    CUDA_MEMCPY2D c = {0};
    c.WidthInBytes = IMG_W * sizeof(float);
    c.Height = IMG_H;
    if (to_array) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = host, c.srcPitch = pitch;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY, c.dstArray = array;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY, c.srcArray = array;
        c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = host, c.dstPitch = pitch;
    }
    return c;
}

/* The image in a new array through a pitched host buffer (rows padded to 41 floats). */
static CUarray image_array(void)
{
    CUDA_ARRAY_DESCRIPTOR d = {IMG_W, IMG_H, CU_AD_FORMAT_FLOAT, 1};
    CUarray a;
    CU_OK(cuArrayCreate(&a, &d));
    enum { PITCH = 41 };
    float host[PITCH * IMG_H];
    for (int y = 0; y < IMG_H; y++)
        for (int x = 0; x < PITCH; x++)
            host[y * PITCH + x] = x < IMG_W ? texel_value(x, y) : NAN;
    CUDA_MEMCPY2D c = image_copy(a, host, PITCH * sizeof(float), 1);
    CU_OK(cuMemcpy2D(&c));
    return a;
}

/* Sample the texture over a path that leaves the image on every side; check each sample. */
static void check_sampling(CUfunction f, CUtexObject tex, int linear, int wrap, int normalized)
{
    float u[SAMPLES], v[SAMPLES], out[SAMPLES + GUARD];
    for (int i = 0; i < SAMPLES; i++) {
        u[i] = 0.211f * (float)i - 2.9f, v[i] = 0.083f * (float)(i % 97) - 1.3f;
        if (normalized)
            u[i] /= IMG_W, v[i] /= IMG_H;
    }
    for (int i = 0; i < SAMPLES + GUARD; i++)
        out[i] = (float)POISON;
    CUdeviceptr du, dv, dout;
    CU_OK(cuMemAlloc(&du, sizeof u));
    CU_OK(cuMemAlloc(&dv, sizeof v));
    CU_OK(cuMemAlloc(&dout, sizeof out));
    CU_OK(cuMemcpyHtoD(du, u, sizeof u));
    CU_OK(cuMemcpyHtoD(dv, v, sizeof v));
    CU_OK(cuMemcpyHtoD(dout, out, sizeof out));
    int n = SAMPLES;
    unsigned long long t = tex;
    void *args[] = {&dout, &t, &du, &dv, &n};
    CU_OK(cuLaunchKernel(f, (SAMPLES + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    CU_OK(cuMemcpyDtoH(out, dout, sizeof out));
    for (int i = 0; i < SAMPLES; i++) {
        float tol, want = fetch_reference(u[i], v[i], linear, wrap, normalized, &tol);
        ck_assert_msg(fabsf(out[i] - want) <= tol, "%s %s%s: sample %d at (%g, %g) is %g, not %g",
                      linear ? "linear" : "point", wrap ? "wrap" : "clamp",
                      normalized ? " normalized" : "", i, u[i], v[i], out[i], want);
    }
    for (int i = SAMPLES; i < SAMPLES + GUARD; i++)
        ck_assert_msg(out[i] == (float)POISON, "sample kernel wrote past %d at %d", SAMPLES, i);
    CU_OK(cuMemFree(du));
    CU_OK(cuMemFree(dv));
    CU_OK(cuMemFree(dout));
}

START_TEST(texture_object_samples_a_2d_array)
{
    setup();
    CUarray a = image_array();
    CUDA_ARRAY_DESCRIPTOR got;
    CU_OK(cuArrayGetDescriptor(&got, a));
    ck_assert_msg(got.Width == IMG_W && got.Height == IMG_H && got.Format == CU_AD_FORMAT_FLOAT &&
                      got.NumChannels == 1,
                  "cuArrayGetDescriptor: %zu x %zu, format %d, %u channels", got.Width, got.Height,
                  (int)got.Format, got.NumChannels);
    CUmodule m;
    CUfunction f;
    CU_OK(cuModuleLoad(&m, DRIVER_KERNELS_PTX));
    CU_OK(cuModuleGetFunction(&f, m, "drv_tex_sample"));
    const struct {
        int linear, wrap, normalized;
    } modes[] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 1}, {1, 1, 1}, {1, 0, 1}};
    for (unsigned k = 0; k < sizeof modes / sizeof *modes; k++) {
        CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY, .res.array.hArray = a};
        CUDA_TEXTURE_DESC t = {0};
        CUaddress_mode am = modes[k].wrap ? CU_TR_ADDRESS_MODE_WRAP : CU_TR_ADDRESS_MODE_CLAMP;
        t.addressMode[0] = t.addressMode[1] = am;
        t.filterMode = modes[k].linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
        t.flags = modes[k].normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0;
        CUtexObject tex;
        CU_OK(cuTexObjectCreate(&tex, &r, &t, NULL));
        check_sampling(f, tex, modes[k].linear, modes[k].wrap, modes[k].normalized);
        CU_OK(cuTexObjectDestroy(tex));
    }
    CU_OK(cuModuleUnload(m));
    /* back into rows of 40 floats, with guard rows below */
    enum { PITCH = 40, ROWS = IMG_H + 2 };
    float back[PITCH * ROWS];
    for (int i = 0; i < PITCH * ROWS; i++)
        back[i] = (float)POISON;
    CUDA_MEMCPY2D c = image_copy(a, back, PITCH * sizeof(float), 0);
    CU_OK(cuMemcpy2D(&c));
    for (int y = 0; y < ROWS; y++)
        for (int x = 0; x < PITCH; x++) {
            float want = x < IMG_W && y < IMG_H ? texel_value(x, y) : (float)POISON;
            ck_assert_msg(back[y * PITCH + x] == want,
                          "cuMemcpy2D from the array: (%d, %d) is %g, not %g", x, y,
                          back[y * PITCH + x], want);
        }
    /* a 9 x 4 window at (5, 7) of the array into pitched device memory and back */
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, 16 * 4 * sizeof(float)));
    CU_OK(cuMemsetD32(d, 0, 16 * 4));
    CUDA_MEMCPY2D w = {.srcXInBytes = 5 * sizeof(float),
                       .srcY = 7,
                       .srcMemoryType = CU_MEMORYTYPE_ARRAY,
                       .srcArray = a,
                       .dstMemoryType = CU_MEMORYTYPE_DEVICE,
                       .dstDevice = d,
                       .dstPitch = 16 * sizeof(float),
                       .WidthInBytes = 9 * sizeof(float),
                       .Height = 4};
    CU_OK(cuMemcpy2DAsync(&w, NULL));
    float win[16 * 4];
    CU_OK(cuMemcpyDtoH(win, d, sizeof win));
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 16; x++) {
            float want = x < 9 ? texel_value(5 + x, 7 + y) : 0.0f;
            ck_assert_msg(win[y * 16 + x] == want, "window (%d, %d) is %g, not %g", x, y,
                          win[y * 16 + x], want);
        }
    CU_OK(cuMemFree(d));
    CU_OK(cuArrayDestroy(a));
}
END_TEST

/* 11 x 7 x 5 elements of two 16-bit signed channels. */
enum { VOL_W = 11, VOL_H = 7, VOL_D = 5 };

static short vol_value(int x, int y, int z, int ch)
{
    return (short)((x * 31 + y * 17 + z * 101 + ch * 7) % 2003 - 1000);
}

START_TEST(array_3d_round_trip)
{
    setup();
    CUDA_ARRAY3D_DESCRIPTOR d = {VOL_W, VOL_H, VOL_D, CU_AD_FORMAT_SIGNED_INT16, 2, 0}, got;
    CUarray a;
    CU_OK(cuArray3DCreate(&a, &d));
    CU_OK(cuArray3DGetDescriptor(&got, a));
    ck_assert_msg(got.Width == VOL_W && got.Height == VOL_H && got.Depth == VOL_D &&
                      got.Format == CU_AD_FORMAT_SIGNED_INT16 && got.NumChannels == 2 && !got.Flags,
                  "cuArray3DGetDescriptor: %zu x %zu x %zu, format %d, %u channels", got.Width,
                  got.Height, got.Depth, (int)got.Format, got.NumChannels);
    /* rows of 13 elements, slices of 9 rows */
    enum { SP = 13, SH = 9, BIG = 2 * SP * SH * VOL_D };
    static short src[BIG], back[BIG + GUARD];
    for (int i = 0; i < BIG; i++)
        src[i] = (short)POISON;
    for (int z = 0; z < VOL_D; z++)
        for (int y = 0; y < VOL_H; y++)
            for (int x = 0; x < VOL_W; x++)
                for (int ch = 0; ch < 2; ch++)
                    src[((z * SH + y) * SP + x) * 2 + ch] = vol_value(x, y, z, ch);
    CUDA_MEMCPY3D c = {.srcMemoryType = CU_MEMORYTYPE_HOST,
                       .srcHost = src,
                       .srcPitch = SP * 4,
                       .srcHeight = SH,
                       .dstMemoryType = CU_MEMORYTYPE_ARRAY,
                       .dstArray = a,
                       .WidthInBytes = VOL_W * 4,
                       .Height = VOL_H,
                       .Depth = VOL_D};
    CU_OK(cuMemcpy3D(&c));
    /* a 5 x 4 x 3 box at (2, 1, 1) back into a packed guarded buffer */
    for (int i = 0; i < BIG + GUARD; i++)
        back[i] = (short)POISON;
    CUDA_MEMCPY3D b = {.srcXInBytes = 2 * 4,
                       .srcY = 1,
                       .srcZ = 1,
                       .srcMemoryType = CU_MEMORYTYPE_ARRAY,
                       .srcArray = a,
                       .dstMemoryType = CU_MEMORYTYPE_HOST,
                       .dstHost = back,
                       .dstPitch = 5 * 4,
                       .dstHeight = 4,
                       .WidthInBytes = 5 * 4,
                       .Height = 4,
                       .Depth = 3};
    CU_OK(cuMemcpy3DAsync(&b, NULL));
    CU_OK(cuStreamSynchronize(NULL));
    for (int i = 0; i < 5 * 4 * 3 * 2 + GUARD; i++) {
        int ch = i % 2, x = i / 2 % 5, y = i / 10 % 4, z = i / 40;
        short want = i < 120 ? vol_value(2 + x, 1 + y, 1 + z, ch) : (short)POISON;
        ck_assert_msg(back[i] == want, "cuMemcpy3D box: short %d is %d, not %d", i, back[i], want);
    }
    CU_OK(cuArrayDestroy(a));
}
END_TEST

START_TEST(array_arguments_refused)
{
    setup();
    CUarray a;
    CUDA_ARRAY_DESCRIPTOR d = {37, 13, CU_AD_FORMAT_FLOAT, 1};
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuArrayCreate(NULL, &d), "no place");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuArrayCreate(&a, NULL), "no descriptor");
    d.Width = 0;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuArrayCreate(&a, &d), "a width of 0");
    d.Width = 37, d.Format = (CUarray_format)0x77;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuArrayCreate(&a, &d), "format 0x77");
    d.Format = CU_AD_FORMAT_FLOAT, d.NumChannels = 3;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuArrayCreate(&a, &d), "3 channels");
    d.NumChannels = 1;
    CU_OK(cuArrayCreate(&a, &d));
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuArrayGetDescriptor(NULL, a), "no place");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(NULL), "no copy parameters");
    float host[4 * 37];
    CUDA_MEMCPY2D cp = image_copy(a, host, 37 * sizeof(float), 0);
    cp.srcXInBytes = 2, cp.WidthInBytes = 4, cp.Height = 1;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&cp), "not whole 4-byte elements");
    cp.srcXInBytes = 0, cp.WidthInBytes = 6;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemcpy2D(&cp), "not whole 4-byte");
    CUDA_RESOURCE_DESC r = {.resType = CU_RESOURCE_TYPE_ARRAY, .res.array.hArray = a};
    CUtexObject tex;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuTexObjectCreate(&tex, &r, NULL, NULL),
                        "texture descriptor");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuSurfObjectCreate(NULL, &r),
                        "resource descriptor");
    CUDA_ARRAY3D_DESCRIPTOR ld = {
        5, 3, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_SURFACE_LDST};
    CUarray surf_array;
    CU_OK(cuArray3DCreate(&surf_array, &ld));
    CUDA_RESOURCE_DESC sr = {.resType = CU_RESOURCE_TYPE_ARRAY, .res.array.hArray = surf_array};
    CUsurfObject surf;
    CU_OK(cuSurfObjectCreate(&surf, &sr));
    CU_OK(cuSurfObjectDestroy(surf));
    CU_OK(cuArrayDestroy(surf_array));
    CU_OK(cuArrayDestroy(a));
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_HANDLE, cuArrayDestroy(a), "not a live CUDA array");
}
END_TEST

/* Texture and surface objects give back what they were made from, field by field: an array of
 * two 16-bit channels, linear and pitched memory of other formats, each with wrap, clamp and
 * border modes, integer reads and normalised coordinates; the array again with normalised
 * reads and linear filtering; a surface's array. */
START_TEST(texture_objects_read_back)
{
    setup();
    CUDA_ARRAY3D_DESCRIPTOR ad = {5, 3, 0, CU_AD_FORMAT_SIGNED_INT16, 2, CUDA_ARRAY3D_SURFACE_LDST};
    CUarray a;
    CU_OK(cuArray3DCreate(&a, &ad));
    CUdeviceptr d;
    CU_OK(cuMemAlloc(&d, 4096));
    CUDA_RESOURCE_DESC res[3] = {{.resType = CU_RESOURCE_TYPE_ARRAY},
                                 {.resType = CU_RESOURCE_TYPE_LINEAR},
                                 {.resType = CU_RESOURCE_TYPE_PITCH2D}};
    res[0].res.array.hArray = a;
    res[1].res.linear.devPtr = d + 256;
    res[1].res.linear.format = CU_AD_FORMAT_HALF;
    res[1].res.linear.numChannels = 4;
    res[1].res.linear.sizeInBytes = 1000;
    res[2].res.pitch2D.devPtr = d;
    res[2].res.pitch2D.format = CU_AD_FORMAT_UNSIGNED_INT8;
    res[2].res.pitch2D.numChannels = 1;
    res[2].res.pitch2D.width = 31, res[2].res.pitch2D.height = 7;
    res[2].res.pitch2D.pitchInBytes = 512;
    CUDA_TEXTURE_DESC td = {.addressMode = {CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_CLAMP,
                                            CU_TR_ADDRESS_MODE_BORDER},
                            .filterMode = CU_TR_FILTER_MODE_POINT,
                            .flags = CU_TRSF_READ_AS_INTEGER | CU_TRSF_NORMALIZED_COORDINATES,
                            .maxAnisotropy = 3,
                            .borderColor = {0.25f, -1.5f, 2.0f, 7.0f}};
    for (int k = 0; k < 3; k++) {
        CUtexObject tex;
        CU_OK(cuTexObjectCreate(&tex, &res[k], &td, NULL));
        CUDA_RESOURCE_DESC r;
        CUDA_TEXTURE_DESC t;
        CUDA_RESOURCE_VIEW_DESC v;
        memset(&r, 0x5a, sizeof r), memset(&t, 0x5a, sizeof t), memset(&v, 0x5a, sizeof v);
        CU_OK(cuTexObjectGetResourceDesc(&r, tex));
        CU_OK(cuTexObjectGetTextureDesc(&t, tex));
        CU_OK(cuTexObjectGetResourceViewDesc(&v, tex));
        ck_assert_int_eq(r.resType, res[k].resType);
        ck_assert_uint_eq(r.flags, 0);
        if (k == 0)
            ck_assert_ptr_eq(r.res.array.hArray, a);
        if (k == 1) {
            ck_assert_uint_eq(r.res.linear.devPtr, d + 256);
            ck_assert_int_eq(r.res.linear.format, CU_AD_FORMAT_HALF);
            ck_assert_uint_eq(r.res.linear.numChannels, 4);
            ck_assert_uint_eq(r.res.linear.sizeInBytes, 1000);
        }
        if (k == 2) {
            ck_assert_uint_eq(r.res.pitch2D.devPtr, d);
            ck_assert_int_eq(r.res.pitch2D.format, CU_AD_FORMAT_UNSIGNED_INT8);
            ck_assert_uint_eq(r.res.pitch2D.numChannels, 1);
            ck_assert_uint_eq(r.res.pitch2D.width, 31);
            ck_assert_uint_eq(r.res.pitch2D.height, 7);
            ck_assert_uint_eq(r.res.pitch2D.pitchInBytes, 512);
        }
        for (int i = 0; i < 3; i++)
            ck_assert_int_eq(t.addressMode[i], td.addressMode[i]);
        ck_assert_int_eq(t.filterMode, td.filterMode);
        ck_assert_uint_eq(t.flags, td.flags);
        ck_assert_uint_eq(t.maxAnisotropy, 3);
        ck_assert_int_eq(t.mipmapFilterMode, CU_TR_FILTER_MODE_POINT);
        ck_assert(t.mipmapLevelBias == 0 && t.minMipmapLevelClamp == 0 &&
                  t.maxMipmapLevelClamp == 0);
        ck_assert(!memcmp(t.borderColor, td.borderColor, sizeof t.borderColor));
        ck_assert_int_eq(v.format, CU_RES_VIEW_FORMAT_NONE);
        ck_assert(v.width == 0 && v.height == 0 && v.depth == 0 && v.lastLayer == 0);
        CU_OK(cuTexObjectDestroy(tex));
        EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuTexObjectGetResourceDesc(&r, tex),
                            "not a live texture object");
    }
    td.flags = 0; /* integer texels read as normalised floats (the driver's default): filtered */
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    CUtexObject tex;
    CU_OK(cuTexObjectCreate(&tex, &res[0], &td, NULL));
    CUDA_TEXTURE_DESC t;
    CU_OK(cuTexObjectGetTextureDesc(&t, tex));
    ck_assert_uint_eq(t.flags, 0);
    ck_assert_int_eq(t.filterMode, CU_TR_FILTER_MODE_LINEAR);
    CUsurfObject surf;
    CU_OK(cuSurfObjectCreate(&surf, &res[0]));
    CUDA_RESOURCE_DESC r;
    memset(&r, 0x5a, sizeof r);
    CU_OK(cuSurfObjectGetResourceDesc(&r, surf));
    ck_assert_int_eq(r.resType, CU_RESOURCE_TYPE_ARRAY);
    ck_assert_ptr_eq(r.res.array.hArray, a);
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuSurfObjectGetResourceDesc(NULL, surf),
                        "no place for the descriptor");
    CU_OK(cuSurfObjectDestroy(surf));
    CU_OK(cuTexObjectDestroy(tex));
    CU_OK(cuArrayDestroy(a));
    CU_OK(cuMemFree(d));
}
END_TEST

/* --- virtual memory management --------------------------------------------------------------- */

/* The granularity the stand-in reports, as NVIDIA's GPUs do. */
#define GRAIN ((size_t)2 << 20)

/* Pinned device memory on device @p dev. */
static CUmemAllocationProp device_memory(int dev)
{
    CUmemAllocationProp p = {.type = CU_MEM_ALLOCATION_TYPE_PINNED};
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = dev;
    return p;
}

/* Read and write access for device 0 to [ptr, ptr + size). */
static CUresult give_access(CUdeviceptr ptr, size_t size)
{
    CUmemAccessDesc a = {.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.location.id = 0;
    return cuMemSetAccess(ptr, size, &a, 1);
}

/* A reservation of @p handles granules with one 2 MiB handle mapped at each, made accessible. */
static CUdeviceptr mapped_range(int handles, CUmemGenericAllocationHandle *h)
{
    CUdeviceptr base;
    CUmemAllocationProp p = device_memory(0);
    CU_OK(cuMemAddressReserve(&base, handles * GRAIN, 0, 0, 0));
    for (int k = 0; k < handles; k++) {
        CU_OK(cuMemCreate(&h[k], GRAIN, &p, 0));
        CU_OK(cuMemMap(base + k * GRAIN, GRAIN, 0, h[k], 0));
    }
    CU_OK(give_access(base, handles * GRAIN));
    return base;
}

/* The ints of [d, d + count) equal want(i - first) for first <= i < first + n, POISON around. */
static void expect_window(CUdeviceptr d, size_t count, size_t first, int n, int (*want)(int),
                          const char *what)
{
    int *h = malloc(count * sizeof *h);
    CU_OK(cuMemcpyDtoH(h, d, count * sizeof *h));
    for (size_t i = 0; i < count; i++) {
        int in = i >= first && i < first + (size_t)n;
        int w = in ? want((int)(i - first)) : POISON;
        ck_assert_msg(h[i] == w, "%s: element %zu is %d, not %d%s", what, i, h[i], w,
                      in ? "" : " (a guard element)");
    }
    free(h);
}

static int seven(int i)
{
    (void)i;
    return 7;
}

/* Two 2 MiB handles side by side in one reservation: a copy of POISON fills both, a kernel
 * writes a prime count of elements across the seam, and the whole range reads back. */
START_TEST(vmm_two_handles_form_one_range)
{
    CUdevice dev = setup();
    int vmm = 0;
    CU_OK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
    ck_assert_int_eq(vmm, 1);
    size_t grain[2], free0, free1, total;
    CUfunction f = add_bias_function();
    CUmemAllocationProp p = device_memory(0);
    CU_OK(cuMemGetAllocationGranularity(&grain[0], &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CU_OK(cuMemGetAllocationGranularity(&grain[1], &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    ck_assert_uint_eq(grain[0], GRAIN);
    ck_assert_uint_eq(grain[1], GRAIN);
    CU_OK(cuMemGetInfo(&free0, &total));
    CUmemGenericAllocationHandle h[2];
    CUdeviceptr base = mapped_range(2, h);
    CU_OK(cuMemGetInfo(&free1, &total));
    ck_assert_uint_eq(free0 - free1, 2 * GRAIN); /* the handles, not the mappings, hold memory */
    const size_t count = 2 * GRAIN / sizeof(int), first = GRAIN / sizeof(int) - 1000;
    int *poison = malloc(count * sizeof *poison);
    for (size_t i = 0; i < count; i++)
        poison[i] = POISON;
    CU_OK(cuMemcpyHtoD(base, poison, count * sizeof *poison));
    int n = 2003; /* prime; elements first .. first + 2002 cross the seam at 524288 */
    CUdeviceptr x = upload(n, ramp), y = base + first * sizeof(int);
    void *args[] = {&y, &x, &n};
    CU_OK(cuLaunchKernel(f, (unsigned)(n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    bias_for_case = 7;
    expect_window(base, count, first, n, ramp_plus_bias, "add_bias across two handles");
    CU_OK(cuMemsetD32(base + (GRAIN - 64), 7, 32)); /* a fill across the seam */
    CU_OK(cuMemcpyDtoH(poison, base + (GRAIN - 64), 128));
    for (int i = 0; i < 32; i++)
        ck_assert_int_eq(poison[i], seven(i));
    CU_OK(cuMemUnmap(base, 2 * GRAIN));
    CU_OK(cuMemRelease(h[0]));
    CU_OK(cuMemRelease(h[1]));
    CU_OK(cuMemAddressFree(base, 2 * GRAIN));
    CU_OK(cuMemFree(x));
    CU_OK(cuMemGetInfo(&free1, &total));
    ck_assert_uint_eq(free1, free0);
    free(poison);
}
END_TEST

/* A handle released while mapped lives on until it is unmapped; retained again from its
 * address, it is the same handle, and mapped elsewhere it shows the bytes it kept. */
START_TEST(vmm_handle_outlives_release)
{
    setup();
    CUmemGenericAllocationHandle h, again;
    CUdeviceptr base = mapped_range(1, &h);
    CU_OK(cuMemRelease(h)); /* legal: the mapping holds the memory */
    int *x = malloc(GRAIN), *back = malloc(GRAIN);
    const int n = (int)(GRAIN / sizeof *x);
    for (int i = 0; i < n; i++)
        x[i] = ramp(i);
    CU_OK(cuMemcpyHtoD(base, x, GRAIN));
    CU_OK(cuMemRetainAllocationHandle(&again, (void *)(uintptr_t)(base + 4096)));
    ck_assert_uint_eq(again, h);
    CUmemAllocationProp p;
    CU_OK(cuMemGetAllocationPropertiesFromHandle(&p, again));
    ck_assert_int_eq(p.type, CU_MEM_ALLOCATION_TYPE_PINNED);
    ck_assert_int_eq(p.location.type, CU_MEM_LOCATION_TYPE_DEVICE);
    ck_assert_int_eq(p.location.id, 0);
    unsigned long long flags = 99;
    CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    CU_OK(cuMemGetAccess(&flags, &loc, base));
    ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    loc.id = 1;
    CU_OK(cuMemGetAccess(&flags, &loc, base));
    ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
    CU_OK(cuMemUnmap(base, GRAIN));
    CUdeviceptr other_place;
    CU_OK(cuMemAddressReserve(&other_place, 3 * GRAIN, 0, 0, 0));
    CU_OK(cuMemMap(other_place + GRAIN, GRAIN, 0, again, 0));
    CU_OK(give_access(other_place + GRAIN, GRAIN));
    CU_OK(cuMemcpyDtoH(back, other_place + GRAIN, GRAIN));
    for (int i = 0; i < n; i++)
        ck_assert_msg(back[i] == x[i], "element %d is %d after the remap, not %d", i, back[i],
                      x[i]);
    CU_OK(cuMemUnmap(other_place + GRAIN, GRAIN));
    CU_OK(cuMemRelease(again));
    CU_OK(cuMemAddressFree(other_place, 3 * GRAIN));
    CU_OK(cuMemAddressFree(base, GRAIN));
    free(x);
    free(back);
}
END_TEST

/* One 4 MiB handle mapped twice, the second time its upper half only (offset 2 MiB): a copy
 * into one mapping is read back through the other, both ways. */
START_TEST(vmm_handle_mapped_twice_from_an_offset)
{
    setup();
    CUmemGenericAllocationHandle h;
    CUmemAllocationProp p = device_memory(0);
    CUdeviceptr whole, upper;
    CU_OK(cuMemCreate(&h, 2 * GRAIN, &p, 0));
    CU_OK(cuMemAddressReserve(&whole, 2 * GRAIN, 0, 0, 0));
    CU_OK(cuMemAddressReserve(&upper, GRAIN, 0, 0, 0));
    CU_OK(cuMemMap(whole, 2 * GRAIN, 0, h, 0));
    CU_OK(cuMemMap(upper, GRAIN, GRAIN, h, 0));
    CU_OK(give_access(whole, 2 * GRAIN));
    CU_OK(give_access(upper, GRAIN));
    const int n = 1031;
    int x[1031], back[1031];
    for (int i = 0; i < n; i++)
        x[i] = ramp(i);
    CU_OK(cuMemcpyHtoD(whole + GRAIN + 4 * 4099, x, sizeof x));
    CU_OK(cuMemcpyDtoH(back, upper + 4 * 4099, sizeof back));
    for (int i = 0; i < n; i++)
        ck_assert_msg(back[i] == x[i], "through the second mapping, element %d is %d, not %d", i,
                      back[i], x[i]);
    for (int i = 0; i < n; i++)
        x[i] = other(i);
    CU_OK(cuMemcpyHtoD(upper, x, sizeof x));
    CU_OK(cuMemcpyDtoH(back, whole + GRAIN, sizeof back));
    for (int i = 0; i < n; i++)
        ck_assert_msg(back[i] == x[i], "through the first mapping, element %d is %d, not %d", i,
                      back[i], x[i]);
    CU_OK(cuMemUnmap(upper, GRAIN));
    CU_OK(cuMemUnmap(whole, 2 * GRAIN));
    CU_OK(cuMemRelease(h));
    CU_OK(cuMemAddressFree(upper, GRAIN));
    CU_OK(cuMemAddressFree(whole, 2 * GRAIN));
}
END_TEST

/* Each bad argument and each call out of order: the code NVIDIA documents, and one line. */
START_TEST(vmm_arguments_refused)
{
    setup();
    CUmemGenericAllocationHandle h, h2;
    CUmemAllocationProp p = device_memory(0);
    CUdeviceptr base, r2;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAIN + 4096, &p, 0),
                        "not a multiple of the granularity");
    p.type = CU_MEM_ALLOCATION_TYPE_MANAGED;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemCreate(&h, GRAIN, &p, 0),
                        "not CU_MEM_ALLOCATION_TYPE_PINNED");
    p = device_memory(5);
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_DEVICE, cuMemCreate(&h, GRAIN, &p, 0),
                        "device 5 does not exist");
    p = device_memory(0);
    p.location.type = CU_MEM_LOCATION_TYPE_HOST;
    EXPECT_REFUSED_WITH(CUDA_ERROR_NOT_SUPPORTED, cuMemCreate(&h, GRAIN, &p, 0),
                        "only device memory");
    p = device_memory(0);
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemAddressReserve(&base, 100, 0, 0, 0),
                        "whole pages");
    CU_OK(cuMemAddressReserve(&base, 2 * GRAIN, 0, 0, 0));
    CU_OK(cuMemAddressReserve(&r2, GRAIN, 0, 0, 0));
    CU_OK(cuMemCreate(&h, GRAIN, &p, 0));
    CU_OK(cuMemCreate(&h2, 2 * GRAIN, &p, 0));
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemMap(base + 2 * GRAIN, GRAIN, 0, h, 0),
                        "outside every reservation");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemMap(base + GRAIN, 2 * GRAIN, 0, h2, 0),
                        "outside every reservation");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemMap(base + 4096, GRAIN, 0, h, 0),
                        "multiples of the granularity");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemMap(base, 2 * GRAIN, 0, h, 0),
                        "past the end of the allocation");
    CU_OK(cuMemMap(base, GRAIN, 0, h, 0));
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemMap(base, GRAIN, 0, h, 0), "mapped already");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, give_access(base, 2 * GRAIN),
                        "not whole mappings");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(base, GRAIN / 2),
                        "not whole mappings");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(base, 2 * GRAIN),
                        "still mapped");
    CU_OK(give_access(base, GRAIN));
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemFree(base), "mapped with cuMemMap");
    cudaIpcMemHandle_t ipc;
    EXPECT_REFUSED_WITH(cudaErrorInvalidValue, cudaIpcGetMemHandle(&ipc, (void *)(uintptr_t)base),
                        "not the start of a live cudaMalloc allocation");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemAddressFree(base, GRAIN),
                        "not a reservation");
    CU_OK(cuMemRelease(h2));
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemRelease(h2), "not a live allocation");
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemMap(r2, GRAIN, 0, h2, 0),
                        "not a live allocation");
    int fd;
    EXPECT_REFUSED_WITH(
        CUDA_ERROR_NOT_SUPPORTED,
        cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
        "cuMemExportToShareableHandle is not emulated");
    CU_OK(cuMemUnmap(base, GRAIN));
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemUnmap(base, GRAIN), "not whole mappings");
    CU_OK(cuMemRelease(h));
    CU_OK(cuMemAddressFree(base, 2 * GRAIN));
    CU_OK(cuMemAddressFree(r2, GRAIN));
}
END_TEST

/* A mapping without access is no memory to copies; a kernel that touches it faults. */
START_TEST(vmm_access_is_enforced)
{
    setup();
    CUmemGenericAllocationHandle h;
    CUmemAllocationProp p = device_memory(0);
    CUdeviceptr base;
    CU_OK(cuMemAddressReserve(&base, GRAIN, 0, 0, 0));
    CU_OK(cuMemCreate(&h, GRAIN, &p, 0));
    CU_OK(cuMemMap(base, GRAIN, 0, h, 0));
    int v = 5;
    EXPECT_REFUSED_WITH(CUDA_ERROR_INVALID_VALUE, cuMemcpyHtoD(base, &v, sizeof v),
                        "not inside any device allocation");
    CU_OK(give_access(base, GRAIN));
    CU_OK(cuMemcpyHtoD(base, &v, sizeof v));
    CUmemAccessDesc none = {.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE};
    none.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CU_OK(cuMemSetAccess(base, GRAIN, &none, 1));
    add_bias_faults(add_bias_function(), base, upload(1, ramp), 1);
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"calls_before_cuInit_refused", calls_before_cuInit_refused, CASE_CPU, 60},
        {"graphs_through_the_driver", graphs_through_the_driver, CASE_CPU, 60},
        {"libraries_and_their_kernels", libraries_and_their_kernels, CASE_CPU, 60},
        {"pools_streams_and_the_rest", pools_streams_and_the_rest, CASE_CPU, 60},
        {"device_queries_match_the_runtime", device_queries_match_the_runtime, CASE_CPU, 60},
        {"error_names_and_strings", error_names_and_strings, CASE_CPU, 60},
        {"contexts_push_pop_and_current", contexts_push_pop_and_current, CASE_CPU, 60},
        {"ptx_text_module_runs", ptx_text_module_runs, CASE_CPU, 120},
        {"bad_images_refused", bad_images_refused, CASE_CPU, 60},
        {"ptx_and_fatbin_files_run", ptx_and_fatbin_files_run, CASE_CPU, 120},
        {"linked_ptx_runs", linked_ptx_runs, CASE_CPU, 120},
        {"nvrtc_output_runs", nvrtc_output_runs, CASE_CPU, 120},
        {"runtime_and_driver_share_one_device", runtime_and_driver_share_one_device, CASE_CPU, 120},
        {"fills_of_every_width", fills_of_every_width, CASE_CPU, 120},
        {"address_ranges_of_allocations", address_ranges_of_allocations, CASE_CPU, 60},
        {"pointer_attributes", pointer_attributes, CASE_CPU, 60},
        {"streams_events_and_async_copies", streams_events_and_async_copies, CASE_CPU, 60},
        {"launch_ex_and_function_attributes", launch_ex_and_function_attributes, CASE_CPU, 120},
        {"kernel_fault_is_sticky", kernel_fault_is_sticky, CASE_CPU, 60},
        {"proc_address_and_driver_entry_points", proc_address_and_driver_entry_points, CASE_CPU,
         60},
        {"proc_address_versions", proc_address_versions, CASE_CPU, 60},
        {"every_export_is_defined", every_export_is_defined, CASE_CPU, 60},
        {"tensor_map_rules", tensor_map_rules, CASE_CPU, 60},
        {"texture_object_samples_a_2d_array", texture_object_samples_a_2d_array, CASE_CPU, 120},
        {"array_3d_round_trip", array_3d_round_trip, CASE_CPU, 60},
        {"array_arguments_refused", array_arguments_refused, CASE_CPU, 60},
        {"texture_objects_read_back", texture_objects_read_back, CASE_CPU, 60},
        {"vmm_two_handles_form_one_range", vmm_two_handles_form_one_range, CASE_CPU, 120},
        {"vmm_handle_outlives_release", vmm_handle_outlives_release, CASE_CPU, 60},
        {"vmm_handle_mapped_twice_from_an_offset", vmm_handle_mapped_twice_from_an_offset, CASE_CPU,
         60},
        {"vmm_arguments_refused", vmm_arguments_refused, CASE_CPU, 60},
        {"vmm_access_is_enforced", vmm_access_is_enforced, CASE_CPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
