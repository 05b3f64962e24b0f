/**
 * @file drv_module.c
 * @brief The driver stand-in: modules loaded at run time, their functions and variables, and
 *        launches.
 *
 * A module's image is PTX text (what nvcc -ptx and NVRTC write), a fat binary (nvcc -fatbin;
 * its PTX of the highest architecture up to sm_90 is taken, as the runtime takes a program's)
 * or nvcc's wrapper of one. A cubin holds machine code only, which the emulator cannot run:
 * refused in one line. The PTX goes to the device now (the runtime's course_emu_drv_load), so
 * a module that does not parse fails at cuModuleLoadData with CUDA_ERROR_INVALID_PTX, and the
 * JIT error log, when the program gives one, holds the reason.
 *
 * cuLinkCreate/AddData/AddFile/Complete link PTX inputs (or fat binaries holding PTX) as the
 * VM links -rdc objects: the "cubin" cuLinkComplete hands out is their PTX, one text after
 * another, which cuModuleLoadData takes.
 *
 * A CUfunction is the runtime's key for the kernel (rt_driver.h): launches go through
 * cudaLaunchKernel and cudaLaunchKernelExC, so they queue, check and fail as the runtime's do.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "drv.h"
#include "fatbin.h"
#include "rt_driver.h"

/** A loaded module. */
struct CUmod_st {
    unsigned magic;
    void *rt; /**< the runtime's module */
    struct CUmod_st *next;
};

/** The modules loaded and not unloaded (cuFuncGetModule finds a function's among them). */
static struct CUmod_st *modules;

enum { MODULE_MAGIC = 0x30D0130Du };

/* The PTX text of image @p image (NUL-terminated, malloc'd) into *ptx, or the error after one
 * line naming @p who and @p origin. */
static CUresult image_ptx(const void *image, const char *who, const char *origin, char **ptx,
                          size_t *len)
{
    const unsigned char *b = image;
    uint32_t magic;
    char err[256];
    int arch;
    memcpy(&magic, b, sizeof magic);
    if (!memcmp(b, "\177ELF", 4)) {
        emu_say("%s: %s is a cubin, machine code only, which the emulator cannot run; load its "
                "PTX (nvcc -ptx or -fatbin, NVRTC's nvrtcGetPTX) (CUDA_ERROR_NO_BINARY_FOR_GPU)",
                who, origin);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    enum fatbin_status st = FATBIN_PTX;
    if (magic == FATBIN_MAGIC || magic == FATBIN_WRAPPER_MAGIC) {
        st = (magic == FATBIN_MAGIC ? fatbin_ptx_of : fatbin_ptx)(image, ptx, len, &arch, err,
                                                                  sizeof err);
    } else {
        *len = strlen(image);
        *ptx = emu_strndup(image, *len);
    }
    if (st == FATBIN_NO_PTX)
        emu_say("%s: %s holds no PTX for compute_%d or older (CUDA_ERROR_NO_BINARY_FOR_GPU)", who,
                origin, FATBIN_MAX_ARCH);
    else if (st == FATBIN_BAD)
        emu_say("%s: %s: %s (CUDA_ERROR_INVALID_IMAGE)", who, origin, err);
    return st == FATBIN_PTX   ? CUDA_SUCCESS
           : st == FATBIN_BAD ? CUDA_ERROR_INVALID_IMAGE
                              : CUDA_ERROR_NO_BINARY_FOR_GPU;
}

/* Write @p text into the JIT error log the options name, if they name one. */
static void error_log(unsigned n, const CUjit_option *options, void **values, const char *text)
{
    char *buf = NULL;
    size_t size = 0;
    for (unsigned i = 0; options && values && i < n; i++) {
        if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
            buf = values[i];
        else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            size = (size_t)(uintptr_t)values[i];
    }
    if (buf && size)
        snprintf(buf, size, "%s", text);
}

CUresult drv_load(CUmodule *module, const void *image, const char *who, const char *origin,
                  unsigned nopts, CUjit_option *options, void **values)
{
    char *ptx = NULL;
    size_t len = 0;
    CUresult r = drv_args(drv_ready(who), !module || !image);
    if (r == CUDA_SUCCESS)
        r = image_ptx(image, who, origin, &ptx, &len);
    struct CUmod_st *m = r == CUDA_SUCCESS ? emu_calloc(1, sizeof *m) : NULL;
    if (r == CUDA_SUCCESS) {
        int err = 0;
        m->rt = course_emu_drv_load(ptx, len, origin, &err);
        r = drv_result((cudaError_t)err);
        if (r != CUDA_SUCCESS)
            error_log(nopts, options, values,
                      "the emulator could not load the PTX (its line on "
                      "stderr says why)");
    }
    free(ptx);
    if (r != CUDA_SUCCESS) {
        free(m);
        return r;
    }
    m->magic = MODULE_MAGIC;
    m->next = modules;
    modules = m;
    error_log(nopts, options, values, "");
    *module = m;
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                            CUjit_option *options, void **optionValues)
{
    return drv_load(module, image, "cuModuleLoadDataEx", "the image cuModuleLoadDataEx was given",
                    numOptions, options, optionValues);
}

CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    return drv_load(module, image, "cuModuleLoadData", "the image cuModuleLoadData was given", 0,
                    NULL, NULL);
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return drv_load(module, fatCubin, "cuModuleLoadFatBinary", "the fat binary", 0, NULL, NULL);
}

char *drv_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        buf = emu_malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    CUresult r = drv_ready("cuModuleLoad");
    if (r != CUDA_SUCCESS || !fname)
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_VALUE;
    char *image = drv_read_file(fname);
    if (!image) {
        emu_say("cuModuleLoad: cannot read %s (CUDA_ERROR_FILE_NOT_FOUND)", fname);
        return CUDA_ERROR_FILE_NOT_FOUND;
    }
    r = drv_load(module, image, "cuModuleLoad", fname, 0, NULL, NULL);
    free(image);
    return r;
}

static int valid_module(CUmodule m)
{
    return m && m->magic == MODULE_MAGIC;
}

CUresult cuModuleUnload(CUmodule hmod)
{
    if (!valid_module(hmod))
        return CUDA_ERROR_INVALID_HANDLE;
    for (struct CUmod_st **p = &modules; *p; p = &(*p)->next)
        if (*p == hmod) {
            *p = hmod->next;
            break;
        }
    course_emu_drv_unload(hmod->rt);
    hmod->magic = 0;
    free(hmod);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    CUresult r = drv_ready("cuModuleGetFunction");
    if (r != CUDA_SUCCESS)
        return r;
    if (!valid_module(hmod) || !hfunc || !name)
        return !valid_module(hmod) ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
    *hfunc = (CUfunction)course_emu_drv_function(hmod->rt, name);
    if (!*hfunc) {
        emu_say("cuModuleGetFunction: the module has no kernel named %s (an extern \"C\" kernel "
                "keeps its name; a C++ one is mangled) (CUDA_ERROR_NOT_FOUND)",
                name);
        return CUDA_ERROR_NOT_FOUND;
    }
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule mod)
{
    if (!valid_module(mod) || !count)
        return !valid_module(mod) ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
    *count = course_emu_drv_kernel_count(mod->rt);
    return CUDA_SUCCESS;
}

CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions, CUmodule mod)
{
    if (!valid_module(mod) || !functions)
        return !valid_module(mod) ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
    unsigned n = course_emu_drv_kernel_count(mod->rt);
    for (unsigned i = 0; i < numFunctions && i < n; i++)
        functions[i] = (CUfunction)course_emu_drv_function_at(mod->rt, i);
    return numFunctions <= n ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    uint64_t addr = 0;
    size_t size = 0;
    CUresult r = drv_ready("cuModuleGetGlobal");
    if (r == CUDA_SUCCESS && (!valid_module(hmod) || !name))
        r = !valid_module(hmod) ? CUDA_ERROR_INVALID_HANDLE : CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        r = drv_result((cudaError_t)course_emu_drv_global(hmod->rt, name, &addr, &size));
    if (r == CUDA_ERROR_NOT_FOUND || r == (CUresult)cudaErrorSymbolNotFound)
        emu_say("cuModuleGetGlobal: the module has no variable named %s (CUDA_ERROR_NOT_FOUND)",
                name);
    if (r == CUDA_SUCCESS && dptr)
        *dptr = addr;
    if (r == CUDA_SUCCESS && bytes)
        *bytes = size;
    return r;
}

/* --- linking ------------------------------------------------------------------------------ */

/** A link in progress: the PTX of every input, one text after another. The VM links PTX units
 *  as one module (as it links -rdc objects), so the linked "cubin" cuLinkComplete hands out is
 *  that text, which cuModuleLoadData takes as PTX. */
struct CUlinkState_st {
    unsigned magic;
    char *ptx;
    size_t len;
};

enum { LINK_MAGIC = 0x11A4C0DEu };

CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options, void **optionValues,
                         CUlinkState *stateOut)
{
    (void)numOptions, (void)options, (void)optionValues; /* JIT options change nothing here */
    CUresult r = drv_args(drv_ready("cuLinkCreate"), !stateOut);
    if (r == CUDA_SUCCESS) {
        struct CUlinkState_st *l = emu_calloc(1, sizeof *l);
        l->magic = LINK_MAGIC, *stateOut = l;
    }
    return r;
}

/* Add @p image (PTX or a fat binary; @p origin names it) to link @p l. */
static CUresult link_add(CUlinkState l, CUjitInputType type, const void *image, const char *origin)
{
    char *ptx = NULL;
    size_t len = 0;
    if (!l || l->magic != LINK_MAGIC || !image)
        return !image ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_HANDLE;
    if (type != CU_JIT_INPUT_PTX && type != CU_JIT_INPUT_FATBINARY) {
        emu_say("cuLinkAddData: %s is input type %d: only PTX and fat binaries holding it can be "
                "linked on the emulator (CUDA_ERROR_NOT_SUPPORTED)",
                origin, (int)type);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    CUresult r = image_ptx(image, "cuLinkAddData", origin, &ptx, &len);
    if (r == CUDA_SUCCESS) {
        char *all = emu_realloc(l->ptx, l->len + len + 2);
        memcpy(all + l->len, ptx, len);
        all[l->len + len] = '\n', all[l->len + len + 1] = 0;
        l->ptx = all, l->len += len + 1;
    }
    free(ptx);
    return r;
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size,
                          const char *name, unsigned int numOptions, CUjit_option *options,
                          void **optionValues)
{
    (void)size, (void)numOptions, (void)options, (void)optionValues;
    return link_add(state, type, data, name ? name : "the data cuLinkAddData was given");
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                          unsigned int numOptions, CUjit_option *options, void **optionValues)
{
    (void)numOptions, (void)options, (void)optionValues;
    char *image = path ? drv_read_file(path) : NULL;
    if (!image) {
        emu_say("cuLinkAddFile: cannot read %s (CUDA_ERROR_FILE_NOT_FOUND)", path ? path : "NULL");
        return CUDA_ERROR_FILE_NOT_FOUND;
    }
    CUresult r = link_add(state, type, image, path);
    free(image);
    return r;
}

CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    if (!state || state->magic != LINK_MAGIC || !state->len || !cubinOut)
        return !state || state->magic != LINK_MAGIC ? CUDA_ERROR_INVALID_HANDLE
                                                    : CUDA_ERROR_INVALID_VALUE;
    *cubinOut = state->ptx;
    if (sizeOut)
        *sizeOut = state->len + 1;
    return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState state)
{
    if (!state || state->magic != LINK_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    state->magic = 0;
    free(state->ptx);
    free(state);
    return CUDA_SUCCESS;
}

/* --- launches ---------------------------------------------------------------------------- */

/* CUDA_SUCCESS when @p f is a function a module handed out (or a registered kernel). */
CUresult drv_valid_function(CUfunction f, const char *who)
{
    if (f && course_emu_drv_function_name(f))
        return CUDA_SUCCESS;
    emu_say("%s: %p is not a function cuModuleGetFunction returned (CUDA_ERROR_INVALID_HANDLE)",
            who, (void *)f);
    return CUDA_ERROR_INVALID_HANDLE;
}

/* The argument pointers of a launch of @p f: @p params as given, or pointers into the buffer
 * @p extra names (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE), in @p out (room for @p room). */
static CUresult arguments(CUfunction f, void **params, void **extra, void ***args, void **out,
                          uint32_t room, const char *who)
{
    uint32_t n = 0, bytes = 0;
    const struct proto_param *layout = NULL;
    if (course_emu_drv_params(f, &n, &layout, &bytes))
        return CUDA_ERROR_INVALID_HANDLE;
    *args = params;
    if (params || !n)
        return params && extra ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    char *buf = NULL;
    size_t size = 0;
    for (int i = 0; extra && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buf = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = *(size_t *)extra[i + 1];
    }
    if (!buf || size < bytes || n > room) {
        emu_say("%s: the kernel takes %u bytes of parameters: pass kernelParams, or extra with "
                "CU_LAUNCH_PARAM_BUFFER_POINTER and a CU_LAUNCH_PARAM_BUFFER_SIZE of at least "
                "that (CUDA_ERROR_INVALID_VALUE)",
                who, bytes);
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (uint32_t i = 0; i < n; i++)
        out[i] = buf + layout[i].offset;
    *args = out;
    return CUDA_SUCCESS;
}

enum { MAX_ARGS = 4096 }; /* more parameters than a launch's 32 KiB can hold at 8 bytes */

CUresult drv_kernel_args(CUfunction f, void **params, void **extra, void ***args, const char *who)
{
    static _Thread_local void *out[MAX_ARGS];
    CUresult r = drv_valid_function(f, who);
    return r != CUDA_SUCCESS ? r : arguments(f, params, extra, args, out, MAX_ARGS, who);
}

/* cuLaunchKernel and its per-thread form. */
static CUresult launch(CUfunction f, dim3 g, dim3 b, unsigned smem, CUstream s, void **params,
                       void **extra, int per_thread)
{
    static _Thread_local void *out[MAX_ARGS];
    void **args;
    CUresult r = drv_ready("cuLaunchKernel");
    if (r == CUDA_SUCCESS)
        r = drv_valid_function(f, "cuLaunchKernel");
    if (r == CUDA_SUCCESS)
        r = arguments(f, params, extra, &args, out, MAX_ARGS, "cuLaunchKernel");
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaLaunchKernel(f, g, b, args, smem, drv_stream(s, per_thread)));
    return r;
}

/* CUlaunchAttribute is laid out as cudaLaunchAttribute, with the same numbers: the runtime's
 * cudaLaunchKernelExC takes them as they are (clusters, cooperative launches, priorities). */
_Static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute),
               "CUlaunchAttribute and cudaLaunchAttribute differ");

/* The runtime's form of launch configuration @p c (CUlaunchAttribute is cudaLaunchAttribute). */
static cudaLaunchConfig_t runtime_config(const CUlaunchConfig *c, int per_thread)
{
    return (cudaLaunchConfig_t){.gridDim = {c->gridDimX, c->gridDimY, c->gridDimZ},
                                .blockDim = {c->blockDimX, c->blockDimY, c->blockDimZ},
                                .dynamicSmemBytes = c->sharedMemBytes,
                                .stream = drv_stream(c->hStream, per_thread),
                                .attrs = (cudaLaunchAttribute *)c->attrs,
                                .numAttrs = c->numAttrs};
}

static CUresult launch_ex(const CUlaunchConfig *config, CUfunction f, void **params, void **extra,
                          int per_thread)
{
    static _Thread_local void *out[MAX_ARGS];
    void **args;
    CUresult r = drv_args(drv_ready("cuLaunchKernelEx"), !config);
    if (r == CUDA_SUCCESS)
        r = drv_valid_function(f, "cuLaunchKernelEx");
    if (r == CUDA_SUCCESS)
        r = arguments(f, params, extra, &args, out, MAX_ARGS, "cuLaunchKernelEx");
    if (r != CUDA_SUCCESS)
        return r;
    cudaLaunchConfig_t c = runtime_config(config, per_thread);
    return drv_result(cudaLaunchKernelExC(&c, f, args));
}

static CUresult launch_cooperative(CUfunction f, dim3 g, dim3 b, unsigned smem, CUstream s,
                                   void **params, int per_thread)
{
    CUresult r = drv_ready("cuLaunchCooperativeKernel");
    if (r == CUDA_SUCCESS)
        r = drv_valid_function(f, "cuLaunchCooperativeKernel");
    if (r == CUDA_SUCCESS)
        r = drv_result(
            cudaLaunchCooperativeKernel(f, g, b, params, smem, drv_stream(s, per_thread)));
    return r;
}

/* The three launches, each with its per-thread form (_ptsz, code built with
 * --default-stream per-thread), which differs only in the stream 0 names. */
#define LAUNCHES(suffix, per_thread)                                                               \
    CUresult cuLaunchKernel##suffix(                                                               \
        CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,         \
        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,                    \
        unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)          \
    {                                                                                              \
        return launch(f, (dim3){gridDimX, gridDimY, gridDimZ},                                     \
                      (dim3){blockDimX, blockDimY, blockDimZ}, sharedMemBytes, hStream,            \
                      kernelParams, extra, per_thread);                                            \
    }                                                                                              \
    CUresult cuLaunchKernelEx##suffix(const CUlaunchConfig *config, CUfunction f,                  \
                                      void **kernelParams, void **extra)                           \
    {                                                                                              \
        return launch_ex(config, f, kernelParams, extra, per_thread);                              \
    }                                                                                              \
    CUresult cuLaunchCooperativeKernel##suffix(                                                    \
        CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,         \
        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,                    \
        unsigned int sharedMemBytes, CUstream hStream, void **kernelParams)                        \
    {                                                                                              \
        return launch_cooperative(f, (dim3){gridDimX, gridDimY, gridDimZ},                         \
                                  (dim3){blockDimX, blockDimY, blockDimZ}, sharedMemBytes,         \
                                  hStream, kernelParams, per_thread);                              \
    }

LAUNCHES(, 0)
LAUNCHES(_ptsz, 1)
#undef LAUNCHES

/* --- function attributes ----------------------------------------------------------------- */

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    struct cudaFuncAttributes a;
    CUresult r = drv_ready("cuFuncGetAttribute");
    if (r == CUDA_SUCCESS)
        r = drv_args(drv_valid_function(hfunc, "cuFuncGetAttribute"), !pi);
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaFuncGetAttributes(&a, hfunc));
    if (r != CUDA_SUCCESS)
        return r;
    const int v[] = {
        [CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK] = a.maxThreadsPerBlock,
        [CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES] = (int)a.sharedSizeBytes,
        [CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES] = (int)a.constSizeBytes,
        [CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES] = (int)a.localSizeBytes,
        [CU_FUNC_ATTRIBUTE_NUM_REGS] = a.numRegs,
        [CU_FUNC_ATTRIBUTE_PTX_VERSION] = a.ptxVersion,
        [CU_FUNC_ATTRIBUTE_BINARY_VERSION] = a.binaryVersion,
        [CU_FUNC_ATTRIBUTE_CACHE_MODE_CA] = a.cacheModeCA,
        [CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES] = a.maxDynamicSharedSizeBytes,
        [CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT] = a.preferredShmemCarveout,
        [CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET] = a.clusterDimMustBeSet,
        [CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = a.requiredClusterWidth,
        [CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT] = a.requiredClusterHeight,
        [CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH] = a.requiredClusterDepth,
        [CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED] = a.nonPortableClusterSizeAllowed,
        [CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE] =
            a.clusterSchedulingPolicyPreference,
    };
    if ((unsigned)attrib >= sizeof v / sizeof *v) {
        emu_say("cuFuncGetAttribute: %d is not a function attribute (CUDA_ERROR_INVALID_VALUE)",
                (int)attrib);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pi = v[attrib];
    return CUDA_SUCCESS;
}

/* CUfunction_attribute's settable numbers are cudaFuncAttribute's. */
CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    CUresult r = drv_ready("cuFuncSetAttribute");
    if (r == CUDA_SUCCESS)
        r = drv_valid_function(hfunc, "cuFuncSetAttribute");
    return r != CUDA_SUCCESS
               ? r
               : drv_result(cudaFuncSetAttribute(hfunc, (enum cudaFuncAttribute)attrib, value));
}

CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    (void)config; /* caches are not modelled */
    return drv_valid_function(hfunc, "cuFuncSetCacheConfig");
}

/* A function of a module the program loaded (a registered kernel's host stub has none). */
CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
    CUresult r = drv_args(drv_valid_function(hfunc, "cuFuncGetModule"), !hmod);
    void *rt = r == CUDA_SUCCESS ? course_emu_drv_function_module(hfunc) : NULL;
    struct CUmod_st *m = modules;
    while (m && m->rt != rt)
        m = m->next;
    if (r == CUDA_SUCCESS && !m)
        return CUDA_ERROR_NOT_FOUND;
    if (r == CUDA_SUCCESS)
        *hmod = m;
    return r;
}

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                            size_t *paramSize)
{
    uint32_t n = 0, bytes = 0;
    const struct proto_param *layout = NULL;
    CUresult r = drv_valid_function(func, "cuFuncGetParamInfo");
    if (r == CUDA_SUCCESS && course_emu_drv_params(func, &n, &layout, &bytes))
        r = CUDA_ERROR_INVALID_HANDLE;
    if (r == CUDA_SUCCESS && paramIndex >= n)
        r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS && paramOffset)
        *paramOffset = layout[paramIndex].offset;
    if (r == CUDA_SUCCESS && paramSize)
        *paramSize = layout[paramIndex].size;
    return r;
}

/* A module's functions are loaded with it. */
CUresult cuFuncLoad(CUfunction function)
{
    return drv_valid_function(function, "cuFuncLoad");
}

CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
    CUresult r = drv_args(drv_valid_function(function, "cuFuncIsLoaded"), !state);
    if (r == CUDA_SUCCESS)
        *state = CU_FUNCTION_LOADING_STATE_LOADED;
    return r;
}

CUresult cuFuncGetName(const char **name, CUfunction hfunc)
{
    CUresult r = drv_args(drv_valid_function(hfunc, "cuFuncGetName"), !name);
    if (r == CUDA_SUCCESS)
        *name = course_emu_drv_function_name(hfunc);
    return r;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize)
{
    CUresult r = drv_ready("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (r == CUDA_SUCCESS)
        r = drv_valid_function(func, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return r != CUDA_SUCCESS ? r
                             : drv_result(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                   numBlocks, func, blockSize, dynamicSMemSize));
}

/* The block size, a multiple of 32 up to @p blockSizeLimit (1024 when 0), that puts the most
 * threads on an SM by cuOccupancyMaxActiveBlocksPerMultiprocessor's answer (the larger block on
 * a tie), and the grid that fills the GPU's 132 SMs with it. */
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
                                                 int numBlocks, int blockSize)
{
    CUresult r = drv_valid_function(func, "cuOccupancyAvailableDynamicSMemPerBlock");
    return r != CUDA_SUCCESS ? r
                             : drv_result(cudaOccupancyAvailableDynamicSMemPerBlock(
                                   dynamicSmemSize, func, numBlocks, blockSize));
}

CUresult cuOccupancyMaxPotentialClusterSize(int *clusterSize, CUfunction func,
                                            const CUlaunchConfig *config)
{
    CUresult r = drv_args(drv_valid_function(func, "cuOccupancyMaxPotentialClusterSize"), !config);
    cudaLaunchConfig_t c = r == CUDA_SUCCESS ? runtime_config(config, 0) : (cudaLaunchConfig_t){0};
    return r != CUDA_SUCCESS
               ? r
               : drv_result(cudaOccupancyMaxPotentialClusterSize(clusterSize, func, &c));
}

CUresult cuOccupancyMaxActiveClusters(int *numClusters, CUfunction func,
                                      const CUlaunchConfig *config)
{
    CUresult r = drv_args(drv_valid_function(func, "cuOccupancyMaxActiveClusters"), !config);
    cudaLaunchConfig_t c = r == CUDA_SUCCESS ? runtime_config(config, 0) : (cudaLaunchConfig_t){0};
    return r != CUDA_SUCCESS ? r
                             : drv_result(cudaOccupancyMaxActiveClusters(numClusters, func, &c));
}

CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                          size_t dynamicSMemSize, int blockSizeLimit)
{
    CUresult r =
        drv_args(drv_ready("cuOccupancyMaxPotentialBlockSize"), !minGridSize || !blockSize);
    int limit = blockSizeLimit > 0 && blockSizeLimit < 1024 ? blockSizeLimit : 1024, best = 0;
    if (r == CUDA_SUCCESS)
        *blockSize = 0, *minGridSize = 0;
    for (int size = 32; r == CUDA_SUCCESS && size <= limit; size += 32) {
        int blocks = 0;
        size_t smem =
            blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(size) : dynamicSMemSize;
        r = cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, size, smem);
        if (r == CUDA_SUCCESS && blocks * size >= best && blocks > 0) {
            best = blocks * size;
            *blockSize = size, *minGridSize = blocks * 132;
        }
    }
    return r;
}
