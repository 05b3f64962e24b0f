/**
 * @file test_conformance.c
 * @brief The emulator's conformance suite: what public CUDA programs call and compile to that
 *        the emulator once refused, misread or lacked, each checked against the host.
 *
 * Device attributes (every one CUDA 13's driver_types.h defines, read at test time, answered
 * as an H100 SXM does), the runtime calls programs die without (stream callbacks, occupancy
 * with flags, cooperative launches, memory pools), and the PTX nvcc emits for correct code:
 * warpSize (WARP_SZ), a 1-byte static __shared__ beside an extern __shared__ array, cvt from a
 * wider register, the reserved shared memory, and initialisers holding function addresses.
 * Every function cuda_runtime_api.h declares must be exported, and every one cuBLAS's and
 * cuBLASLt's headers declare (the headers are read at test time).
 * Last, mbarrier's "::" forms run, and what the VM cannot run (im2col copies, the grid
 * workspace) fails only the launch that reaches it, with the instruction and its line; the
 * module's other kernels run.
 *
 * CTest runs it with the emulator's libraries first on LD_LIBRARY_PATH, GPU or not.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "course_test.h"
#include "cuda_check.h"
#include "test_conformance.h"

/* ---- device attributes ------------------------------------------------------------------- */

/*
 * Every cudaDevAttrName = N in the toolkit's driver_types.h: a named one answers cudaSuccess,
 * a Reserved one cudaErrorInvalidValue; none leaves an error for cudaGetLastError. Returns
 * how many named attributes were answered.
 */
static int check_every_attribute(void)
{
    FILE *f = fopen(CUDA_DRIVER_TYPES_H, "r");
    ck_assert_msg(f != NULL, "cannot read %s", CUDA_DRIVER_TYPES_H);
    char line[512], name[128];
    int n, answered = 0, v;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, " cudaDevAttr%127[A-Za-z0-9] = %d", name, &n) == 2) {
            int reserved = !strncmp(name, "Reserved", 8) && isdigit((unsigned char)name[8]);
            cudaError_t err = cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)n, 0);
            ck_assert_msg(err == (reserved ? cudaErrorInvalidValue : cudaSuccess),
                          "cudaDevAttr%s (%d) answered %s", name, n, cudaGetErrorName(err));
            answered += !reserved;
        }
    fclose(f);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    return answered;
}

/* What an H100 SXM answers, where programs look: clock, compute mode, pools, and the
 * properties that mirror attributes. An unknown number says so in one line and leaves no
 * error that a later, correct kernel's check would see. */
START_TEST(device_attributes_as_an_h100)
{
    struct cudaDeviceProp p;
    int v, *d;
    ck_assert_int_gt(check_every_attribute(), 100);
    CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
    const struct {
        enum cudaDeviceAttr attr;
        long want;
    } spot[] = {
        {cudaDevAttrClockRate, 1980000},
        {cudaDevAttrComputeMode, cudaComputeModeDefault},
        {cudaDevAttrMemoryPoolsSupported, 1},
        {cudaDevAttrMemoryClockRate, 2619000},
        {cudaDevAttrGlobalMemoryBusWidth, 5120},
        {cudaDevAttrL2CacheSize, p.l2CacheSize},
        {cudaDevAttrMaxTexture1DWidth, p.maxTexture1D},
        {cudaDevAttrMaxSharedMemoryPerMultiprocessor, (long)p.sharedMemPerMultiprocessor},
        {cudaDevAttrMaxPitch, (long)p.memPitch},
        {cudaDevAttrClusterLaunch, p.clusterLaunch},
    };
    for (size_t i = 0; i < sizeof spot / sizeof *spot; i++) {
        CUDA_CHECK(cudaDeviceGetAttribute(&v, spot[i].attr, 0));
        ck_assert_msg(v == spot[i].want, "attribute %d is %d, want %ld", (int)spot[i].attr, v,
                      spot[i].want);
    }
    ck_assert_int_eq(p.l2CacheSize, 50 * 1024 * 1024);
    ck_assert_int_eq(p.memPitch, 0x7fffffff);
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)9999, 0);
    char *said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorInvalidValue);
    ck_assert_msg(strstr(said, "9999 is not a device attribute") &&
                      !strchr(strchr(said, '\n') + 1, '\n'),
                  "%s", said);
    free(said);
    CUDA_CHECK(cudaMalloc((void **)&d, 40 * sizeof *d));
    ck_assert_int_eq(conf_warp_size(d, 40), cudaSuccess);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    CUDA_CHECK(cudaFree(d));
}
END_TEST

/* ---- runtime calls ------------------------------------------------------------------------- */

/* A stream callback's record: how often it ran and with which error. */
struct callback_seen {
    int calls;
    cudaError_t status;
};

static void CUDART_CB on_stream(cudaStream_t stream, cudaError_t status, void *user)
{
    struct callback_seen *seen = user;
    (void)stream;
    seen->calls++;
    seen->status = status;
}

/* The kernel's output out[i] = i + 1 for i < n, checked. */
static void assert_counting(const int *d, int n)
{
    int *h = malloc((size_t)n * sizeof *h);
    CUDA_CHECK(cudaMemcpy(h, d, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        ck_assert_msg(h[i] == i + 1, "out[%d] = %d, want %d", i, h[i], i + 1);
    free(h);
}

/* cudaLaunchKernelEx (its C form) runs kernel @p k on d[0 .. n), alone and in clusters of two
 * blocks, and refuses clusters of three, which do not divide its grid of 4, with one line. */
static void assert_launch_ex(const void *k, int *d, int n)
{
    cudaLaunchAttribute cluster = {.id = cudaLaunchAttributeClusterDimension};
    cudaLaunchConfig_t cfg = {.gridDim = {4, 1, 1}, .blockDim = {256, 1, 1}};
    void *args[] = {&d, &n};
    CUDA_CHECK(cudaMemset(d, 0, (size_t)n * sizeof *d));
    CUDA_CHECK(cudaLaunchKernelExC(&cfg, k, args));
    assert_counting(d, n);
    cluster.val.clusterDim.x = 2, cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    cfg.attrs = &cluster, cfg.numAttrs = 1;
    CUDA_CHECK(cudaMemset(d, 0, (size_t)n * sizeof *d));
    CUDA_CHECK(cudaLaunchKernelExC(&cfg, k, args));
    assert_counting(d, n);
    cluster.val.clusterDim.x = 3;
    EXPECT_REFUSED_WITH(cudaErrorInvalidClusterSize, cudaLaunchKernelExC(&cfg, k, args),
                        "not a whole number of clusters");
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidClusterSize);
}

/* cudaStreamAddCallback, occupancy with flags and per-block dynamic memory, cooperative
 * launches (and one too large to be co-resident), cudaLaunchKernelEx, and stream-ordered
 * pools. */
START_TEST(runtime_calls_programs_make)
{
    enum { N = 1000 };
    struct callback_seen seen = {0, cudaErrorUnknown};
    cudaStream_t s;
    int *d, plain, flagged;
    size_t dyn;
    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaStreamAddCallback(s, on_stream, &seen, 0));
    CUDA_CHECK(cudaStreamSynchronize(s));
    ck_assert_int_eq(seen.calls, 1);
    ck_assert_int_eq(seen.status, cudaSuccess);
    CUDA_CHECK(cudaStreamDestroy(s));

    const void *k = conf_cooperative_kernel();
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plain, k, 256, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        &flagged, k, 256, 0, cudaOccupancyDisableCachingOverride));
    ck_assert_int_eq(plain, 8); /* 64 warps per SM, 8 per block */
    ck_assert_int_eq(flagged, plain);
    CUDA_CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, k, 4, 256));
    ck_assert_uint_eq(dyn, 228 * 1024 / 4 - 1024 < 48 * 1024 ? 228 * 1024 / 4 - 1024 : 48 * 1024);

    cudaMemPool_t pool;
    uint64_t threshold = UINT64_MAX, back = 0;
    struct cudaMemLocation dev0 = {cudaMemLocationTypeDevice, 0};
    enum cudaMemAccessFlags access = cudaMemAccessFlagsProtNone;
    CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
#if CUDART_VERSION >= 13000 /* pools by location: CUDA 13's calls */
    cudaMemPool_t by_location, made;
    struct cudaMemPoolProps props = {0};
    props.allocType = cudaMemAllocationTypePinned, props.location = dev0;
    CUDA_CHECK(cudaMemGetDefaultMemPool(&by_location, &dev0, cudaMemAllocationTypePinned));
    ck_assert_ptr_eq(by_location, pool);
    CUDA_CHECK(cudaMemPoolCreate(&made, &props));
    CUDA_CHECK(cudaMemSetMemPool(&dev0, cudaMemAllocationTypePinned, made));
    CUDA_CHECK(cudaMemGetMemPool(&by_location, &dev0, cudaMemAllocationTypePinned));
    ck_assert_ptr_eq(by_location, made);
    CUDA_CHECK(cudaDeviceSetMemPool(0, pool));
    CUDA_CHECK(cudaMemPoolDestroy(made));
#endif
    CUDA_CHECK(cudaMemPoolGetAccess(&access, pool, &dev0));
    ck_assert_int_eq(access, cudaMemAccessFlagsProtReadWrite);
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &back));
    ck_assert_uint_eq(back, UINT64_MAX);
    CUDA_CHECK(cudaMallocAsync((void **)&d, N * sizeof *d, 0));
    ck_assert_int_eq(conf_cooperative(d, N, 7, 160), cudaSuccess);
    assert_counting(d, N);
    ck_assert_int_eq(conf_cooperative(d, N, 132 * plain + 1, 256),
                     cudaErrorCooperativeLaunchTooLarge);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
    ck_assert_int_eq(conf_cooperative(d, N, 4, 256), cudaSuccess); /* not sticky */
    assert_launch_ex(k, d, N);
    CUDA_CHECK(cudaFreeAsync(d, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
}
END_TEST

/* Cooperative groups' grid.sync() in a cooperative launch: every block is resident, so each
 * phase sees every block's writes of the one before. A plain launch has no grid workspace
 * (grid.is_valid() is false), and grid.sync() traps, as on a GPU. */
START_TEST(grid_sync_in_a_cooperative_launch)
{
    enum { BLOCKS = 7, THREADS = 160, N = BLOCKS * THREADS - 13 };
    int *a, *out, h[N];
    CUDA_CHECK(cudaMalloc((void **)&a, N * sizeof *a));
    CUDA_CHECK(cudaMalloc((void **)&out, N * sizeof *out));
    ck_assert_int_eq(conf_grid_sync(a, out, N, BLOCKS, THREADS, 1), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        int want = 3 * (N - 1 - (i + THREADS) % N) + 2;
        ck_assert_msg(h[i] == want, "grid %dx%d, n %d: out[%d] = %d, want %d", BLOCKS, THREADS, N,
                      i, h[i], want);
    }
    ck_assert_int_ne(conf_grid_sync(a, out, N, BLOCKS, THREADS, 0), cudaSuccess);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
}
END_TEST

/* The function line @p line of cuda_runtime_api.h declares into @p name (a CUDARTAPI
 * declaration, or the _ptds or _ptsz form code built with --default-stream per-thread calls);
 * 0 when it declares none. */
static int declared_in(const char *line, char name[160])
{
    static const char *const forms[][2] = {
        {"CUDARTAPI ", ""}, {"__CUDART_API_PTDS(", "_ptds"}, {"__CUDART_API_PTSZ(", "_ptsz"}};
    for (int k = 0; k < 3; k++) {
        const char *at = strstr(line, forms[k][0]);
        if (at && sscanf(at + strlen(forms[k][0]), " %127[A-Za-z0-9_]", name) == 1 &&
            !strncmp(name, "cuda", 4)) {
            strcat(name, forms[k][1]);
            return 1;
        }
    }
    return 0;
}

/* Every cudaXxx the toolkit's cuda_runtime_api.h declares is exported by the stand-in, and its
 * per-thread default stream form where the header names one: done, or a stub that answers
 * cudaErrorNotSupported with one line. No program dies at load. */
START_TEST(every_runtime_function_exported)
{
    void *lib = dlopen(EMU_CUDART, RTLD_LAZY);
    FILE *f = fopen(CUDA_RUNTIME_API_H, "r");
    ck_assert_msg(lib && f, "cannot open %s or %s", EMU_CUDART, CUDA_RUNTIME_API_H);
    char line[1024], name[160], first[160] = "";
    int declared = 0, per_thread = 0, missing = 0;
    while (fgets(line, sizeof line, f)) {
        if (!declared_in(line, name))
            continue;
        declared++;
        per_thread += strstr(line, "__CUDART_API_PT") != NULL;
        if (!dlsym(lib, name) && !missing++)
            snprintf(first, sizeof first, "%s", name);
    }
    fclose(f);
    ck_assert_int_gt(declared, 300);
    ck_assert_int_gt(per_thread, 60);
    ck_assert_msg(missing == 0, "%d functions of cuda_runtime_api.h are missing, the first %s",
                  missing, first);
    struct capture cap;
    cudaMipmappedArray_t mip;
    struct cudaChannelFormatDesc fmt = {32, 0, 0, 0, cudaChannelFormatKindFloat};
    capture_begin(&cap, 2);
    cudaError_t err = cudaMallocMipmappedArray(&mip, &fmt, make_cudaExtent(8, 8, 0), 2, 0);
    char *said = capture_end(&cap);
    ck_assert_int_eq(err, cudaErrorNotSupported);
    ck_assert_str_eq(
        said, "emulator: cudaMallocMipmappedArray is not emulated (cudaErrorNotSupported)\n");
    free(said);
    ck_assert_int_eq(cudaGetLastError(), cudaErrorNotSupported); /* an error, not a sticky one */
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
}
END_TEST

/* Every cublasXxx the toolkit's cuBLAS headers declare (CUBLASWINAPI, then the name: cublas_api.h,
 * cublasXt.h and the legacy cublas.h for libcublas, cublasLt.h for libcublasLt) is exported by
 * the stand-in: emulated, or a stub that answers CUBLAS_STATUS_NOT_SUPPORTED with one line
 * (emulator.cublas.stubs_say_not_emulated). No program dies at load. */
START_TEST(every_cublas_function_exported)
{
    static const struct {
        const char *header, *lib;
        int least; /**< fewer declarations than this: the header was misread */
    } sets[] = {{CUBLAS_API_H, EMU_CUBLAS, 500},
                {CUBLAS_XT_H, EMU_CUBLAS, 40},
                {CUBLAS_LEGACY_H, EMU_CUBLAS, 150},
                {CUBLASLT_H, EMU_CUBLASLT, 40}};
    for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
        void *lib = dlopen(sets[k].lib, RTLD_LAZY);
        char *text = course_read_file(sets[k].header), name[160], first[160] = "";
        ck_assert_msg(lib && text, "cannot open %s or %s", sets[k].lib, sets[k].header);
        int declared = 0, missing = 0;
        for (const char *p = text; (p = strstr(p, "CUBLASWINAPI")) != NULL;) {
            p += strlen("CUBLASWINAPI");
            if (sscanf(p, " %159[A-Za-z0-9_]", name) != 1 || strncmp(name, "cublas", 6) != 0)
                continue; /* the macro's own definition, or a pointer type */
            declared++;
            if (!dlsym(lib, name) && !missing++)
                snprintf(first, sizeof first, "%s", name);
        }
        free(text);
        ck_assert_int_gt(declared, sets[k].least);
        ck_assert_msg(missing == 0, "%d functions of %s are missing from %s, the first %s", missing,
                      sets[k].header, sets[k].lib, first);
    }
}
END_TEST

/* Every name in [@p at, @p end) that follows @p prefix (with it when @p keep), each between
 * newlines in a malloc'd string that begins with one. */
static char *names_after(const char *at, const char *end, const char *prefix, int keep)
{
    static const char ident[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
    size_t size = 2 * (size_t)(end - at) + 2, n = 1;
    char *out = calloc(1, size);
    ck_assert(out);
    out[0] = '\n';
    for (const char *p = at; (p = strstr(p, prefix)) && p < end;) {
        const char *name = keep ? p : p + strlen(prefix);
        size_t len = strspn(name, ident);
        n += (size_t)snprintf(out + n, size - n, "%.*s\n", (int)len, name);
        p = name + len + 1;
    }
    return out;
}

/* The first name of list @p a (names_after's) that list @p b lacks, or 0 (@p first: room). */
static int first_missing(const char *a, const char *b, char *first, size_t size)
{
    char key[160];
    for (const char *p = a + 1; *p; p = strchr(p, '\n') + 1) {
        int len = (int)(strchr(p, '\n') - p);
        snprintf(key, sizeof key, "\n%.*s\n", len, p);
        if (!strstr(b, key)) {
            snprintf(first, size, "%.*s", len, p);
            return 1;
        }
    }
    return 0;
}

/* emulator/runtime/README.md's list of the calls not emulated names every stub rt_unsupported.c
 * exports and nothing else: a call emulated since (cudaDeviceGetP2PAttribute once) leaves both. */
START_TEST(readme_lists_every_call_not_emulated)
{
    char *readme = course_read_file(EMU_RT_README), *file = course_read_file(EMU_RT_UNSUPPORTED_C);
    ck_assert_msg(readme && file, "cannot read %s or %s", EMU_RT_README, EMU_RT_UNSUPPORTED_C);
    const char *from = strstr(readme, "By what they are for:");
    const char *to = from ? strstr(from, "A CUDA 12 build") : NULL;
    ck_assert_msg(from && to, "%s has no list of the calls not emulated", EMU_RT_README);
    char *listed = names_after(from, to, "cuda", 1);
    char *stubs = names_after(file, file + strlen(file), "\nUNSUPPORTED(", 0);
    char name[160];
    ck_assert_int_gt((int)strlen(stubs), 1000);
    ck_assert_msg(!first_missing(stubs, listed, name, sizeof name),
                  "%s is not emulated (rt_unsupported.c) but the README does not list it", name);
    ck_assert_msg(!first_missing(listed, stubs, name, sizeof name),
                  "the README lists %s as not emulated, but rt_unsupported.c has no stub for it",
                  name);
    free(listed), free(stubs), free(readme), free(file);
}
END_TEST

/* ---- PTX nvcc emits for correct code -------------------------------------------------------- */

/* warpSize compiles to mov.u32 %r, WARP_SZ. */
START_TEST(warp_size_in_device_code)
{
    enum { N = 300 };
    int h[N], *d;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof h));
    ck_assert_int_eq(conf_warp_size(d, N), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        ck_assert_msg(h[i] == 32000 + i % 32, "out[%d] = %d", i, h[i]);
    CUDA_CHECK(cudaFree(d));
}
END_TEST

/* The dynamic array starts at 16 (its alignment) after a 1-byte static: a block of n threads
 * needs 16 + 4 n bytes, and the last word is in bounds. Both parities of n set the flag. */
START_TEST(static_and_dynamic_shared_layout)
{
    const int sizes[] = {129, 128, 1};
    int h[129], *d;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof h));
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        ck_assert_int_eq(conf_static_and_dynamic_smem(d, n), cudaSuccess);
        CUDA_CHECK(cudaMemcpy(h, d, (size_t)n * sizeof *h, cudaMemcpyDeviceToHost));
        for (int t = 0; t < n; t++)
            ck_assert_msg(h[t] == 3 * (n - 1 - t) + (n & 1), "n=%d: out[%d] = %d", n, t, h[t]);
    }
    CUDA_CHECK(cudaFree(d));
}
END_TEST

/* cvt.s64.s32 %rd, %rd: the low 32 bits of the source, sign-extended. */
START_TEST(cvt_from_a_wider_register)
{
    enum { N = 70 };
    long long in[N], out[N], *d_in, *d_out;
    for (int i = 0; i < N; i++)
        in[i] = (long long)((0x9E3779B97F4A7C15ull * (unsigned long long)(i + 1)) ^
                            (i % 2 ? 0x80000000ull : 0));
    CUDA_CHECK(cudaMalloc((void **)&d_in, sizeof in));
    CUDA_CHECK(cudaMalloc((void **)&d_out, sizeof out));
    CUDA_CHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
    ck_assert_int_eq(conf_cvt_wide_source(d_in, d_out, N), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        ck_assert_msg(out[i] == (long long)(int)(unsigned)in[i], "cvt of %llx gave %llx",
                      (unsigned long long)in[i], (unsigned long long)out[i]);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
}
END_TEST

/* %reserved_smem_offset_*: 1 KiB a block may use, and cooperative groups' 64-thread tiles,
 * whose shuffles go through it. */
START_TEST(reserved_shared_memory)
{
    int h[128], *d;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof h));
    ck_assert_int_eq(conf_reserved_smem(d), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(h, d, 97 * sizeof *h, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 96; t++)
        ck_assert_msg(h[t] == 95 - t, "out[%d] = %d", t, h[t]);
    ck_assert_int_eq(h[96], 1024);
    ck_assert_int_eq(conf_multi_warp_tile(d), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 128; t++)
        ck_assert_msg(h[t] == t / 64 * 64, "tile shfl: out[%d] = %d", t, h[t]);
    CUDA_CHECK(cudaFree(d));
}
END_TEST

/* A module whose __device__ table holds function addresses (as a vtable does) loads, and the
 * table's entries are set. */
START_TEST(function_addresses_in_initialisers)
{
    enum { N = 200 };
    int h[N + 1], *d;
    CUDA_CHECK(cudaMalloc((void **)&d, sizeof h));
    ck_assert_int_eq(conf_function_table_module(d, N), cudaSuccess);
    CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        ck_assert_msg(h[i] == i * 7 + 1, "out[%d] = %d", i, h[i]);
    ck_assert_int_eq(h[N], 1);
    CUDA_CHECK(cudaFree(d));
}
END_TEST

/* Launch @p launch (its error must be cudaErrorNotSupported), check its one line names @p what
 * at the source line holding @p marker, then reset and run a neighbour kernel of its module. */
static void assert_fails_alone(cudaError_t (*launch)(int *), int *d, const char *marker,
                               const char *what)
{
    struct capture cap;
    capture_begin(&cap, 2);
    cudaError_t err = launch(d);
    char *said = capture_end(&cap);
    ck_assert_msg(err == cudaErrorNotSupported, "%s: %s", cudaGetErrorName(err), said);
    capture_assert_at(said, TEST_CONFORMANCE_KERNELS, marker, what);
    free(said);
    CUDA_CHECK(cudaDeviceReset());
    ck_assert_int_eq(conf_warp_size(d, 32), cudaSuccess);
}

static cudaError_t launch_im2col_copy(int *d)
{
    return conf_im2col_copy(d + 64, d);
}

/* "::" qualifiers parse; what the VM cannot run fails only its launch, naming the instruction
 * (and, for what the parser could not read, the PTX line). */
START_TEST(unsupported_fails_only_its_launch)
{
    int *d;
    CUDA_CHECK(cudaMalloc((void **)&d, 128 * sizeof *d));
    CUDA_CHECK(cudaMemset(d, 0, 128 * sizeof *d));
    ck_assert_int_eq(conf_warp_size(d, 32), cudaSuccess);
    /* it runs here; vm/test_vm_control.c checks what mbarrier computes */
    ck_assert_int_eq(conf_mbarrier((uint64_t *)d), cudaSuccess);
    assert_fails_alone(launch_im2col_copy, d, "asm volatile(IM2COL_COPY",
                       "the .im2col form is not emulated (tiled copies are)");
    assert_fails_alone(conf_envreg, d, "%%envreg3", "%envreg3 is a special register the emulator");
    CUDA_CHECK(cudaFree(d));
}
END_TEST

int main(int argc, char **argv)
{
    const struct course_case cases[] = {
        {"device_attributes_as_an_h100", device_attributes_as_an_h100, CASE_GPU, 60},
        {"grid_sync_in_a_cooperative_launch", grid_sync_in_a_cooperative_launch, CASE_GPU, 60},
        {"runtime_calls_programs_make", runtime_calls_programs_make, CASE_GPU, 60},
        {"every_runtime_function_exported", every_runtime_function_exported, CASE_GPU, 60},
        {"every_cublas_function_exported", every_cublas_function_exported, CASE_CPU, 60},
        {"readme_lists_every_call_not_emulated", readme_lists_every_call_not_emulated, CASE_CPU,
         60},
        {"warp_size_in_device_code", warp_size_in_device_code, CASE_GPU, 60},
        {"static_and_dynamic_shared_layout", static_and_dynamic_shared_layout, CASE_GPU, 60},
        {"cvt_from_a_wider_register", cvt_from_a_wider_register, CASE_GPU, 60},
        {"reserved_shared_memory", reserved_shared_memory, CASE_GPU, 60},
        {"function_addresses_in_initialisers", function_addresses_in_initialisers, CASE_GPU, 60},
        {"unsupported_fails_only_its_launch", unsupported_fails_only_its_launch, CASE_GPU, 60},
    };
    return course_test_main(argc, argv, COURSE_LESSON, cases, sizeof cases / sizeof *cases);
}
