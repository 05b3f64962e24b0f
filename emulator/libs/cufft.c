/**
 * @file cufft.c
 * @brief The cuFFT stand-in (libcufft.so.12, CUDA 13's cuFFT 12): cufft.h's plans and its six
 *        transforms, computed on the host in double precision.
 *
 * Plans: cufftCreate, cufftMakePlan1d/2d/3d/Many/Many64 and the cufftPlan* that do both,
 * ranks 1 to 3, any size n >= 1 on every axis, batches, cuFFT's advanced layout (inembed,
 * istride, idist, onembed, ostride, odist: element (b, x, y, z) of a side is at
 * b dist + ((x embed[1] + y) embed[2] + z) stride; embed[0] is not read). A NULL inembed or
 * onembed means the basic layout for both sides, every other layout argument ignored, as
 * cuFFT documents. Transforms: C2C and Z2Z in either direction (CUFFT_FORWARD -1,
 * CUFFT_INVERSE +1, unnormalised), R2C and D2Z (n / 2 + 1 complex outputs along the last axis,
 * an implicit forward transform), C2R and Z2D (n / 2 + 1 complex inputs there, an implicit
 * inverse: the real part of the inverse DFT of that half spectrum extended along the last axis
 * by X[-k] = conj(X[k])). In place when idata equals odata: in the basic layout the real side's
 * rows then hold 2 (n / 2 + 1) reals (the padded layout cuFFT and FFTW document), out of place
 * n.
 *
 * Arithmetic: every transform is computed in double (cufft_fft.c: mixed radix for factors up
 * to 64, Bluestein beyond), the inputs widened and the results rounded once to the plan's
 * type. Single-precision results are therefore more accurate than a GPU's (cuFFT's fp32 error
 * grows as log n ulps); they are not bit for bit what cuFFT gives. An out-of-place C2R leaves
 * its input as it was, where cuFFT may overwrite it.
 *
 * Order: an exec runs at the call, after all the work queued before it (course_emu_host runs
 * every stream's queue first), so on the plan's stream it follows what was queued there and
 * what is queued after it sees its results. A stream being captured into a graph is refused.
 * Both sides are checked against the device allocations before anything is read, and the
 * output elements are reported written (initcheck). Each transform of a batch is read whole
 * before its outputs are written, so in place works in any layout (batches that overlap one
 * another are undefined, as in cuFFT).
 *
 * Work areas: the stand-in needs none, so every size it reports (cufftGetSize*,
 * cufftEstimate*, cufftMakePlan*'s workSize) is 0; cufftSetWorkArea and cufftSetAutoAllocation
 * are recorded and change nothing. The plan properties (cufftSetPlanPropertyInt64) are kept and
 * read back. Everything else libcufft exports (the cufftXt calls: multi-GPU descriptors,
 * callbacks, half-precision plans, work-area policies) answers CUFFT_NOT_SUPPORTED with one line
 * naming it (cufft_unsupported.c), and so does every refusal here, with its cufftResult.
 */
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <cufftXt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cufft_fft.h"
#include "cufft_unsupported.h"
#include "emu.h"
#include "say.h"

enum { MAX_RANK = 3 };

/** How one side of a transform (its input or output) lies in memory, counted in elements. */
struct side {
    int rank;
    long long len[MAX_RANK];   /**< elements along each axis (a half spectrum: n / 2 + 1 last) */
    long long pitch[MAX_RANK]; /**< distance between neighbours along each axis */
    long long dist;            /**< distance between the first elements of two batches */
    size_t elem;               /**< bytes per element */
    int real;                  /**< 1: real elements, 0: complex */
    int overflow;              /**< 1: a pitch or the distance overflows 64 bits */
};

/** What a cufftHandle names. */
struct plan {
    int made;       /**< 0: created, not yet made (cufftMakePlan*) */
    cufftType type; /**< C2C, Z2Z, R2C, D2Z, C2R or Z2D */
    int rank;
    long long n[MAX_RANK], batch;
    int advanced; /**< 1: the layout below; 0: the basic layout */
    long long inembed[MAX_RANK], istride, idist, onembed[MAX_RANK], ostride, odist;
    struct fft_plan *axis[MAX_RANK]; /**< the DFT of each axis' full length */
    cudaStream_t stream;
    int auto_allocation;
    void *work_area;
    long long property[3]; /**< cufftSetPlanPropertyInt64's values, by cufftProperty */
};

/** The plans, handle h at plans[h - 1] (NULL once destroyed: a handle is never reused). */
static struct plan **plans;
static uint32_t nplans, capplans;
static pthread_mutex_t plans_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *result_name(cufftResult r)
{
    switch (r) {
    case CUFFT_SUCCESS:
        return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN:
        return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
        return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
        return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
        return "CUFFT_INVALID_VALUE";
    case CUFFT_INVALID_SIZE:
        return "CUFFT_INVALID_SIZE";
    case CUFFT_EXEC_FAILED:
        return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
        return "CUFFT_SETUP_FAILED";
    case CUFFT_NOT_SUPPORTED:
        return "CUFFT_NOT_SUPPORTED";
    default:
        return "a cufftResult";
    }
}

/* Print "emulator: cuFFT: WHO: why (RESULT)" and return @p r. */
static cufftResult refuse(cufftResult r, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static cufftResult refuse(cufftResult r, const char *who, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    emu_say("cuFFT: %s: %s (%s)", who, why, result_name(r));
    return r;
}

int fft_not_supported(const char *name)
{
    emu_say("cuFFT: %s is not in the emulator's cuFFT stand-in (CUFFT_NOT_SUPPORTED)", name);
    return CUFFT_NOT_SUPPORTED;
}

/* The plan handle @p h names, or NULL after one line saying it names none. */
static struct plan *plan_of(cufftHandle h, const char *who)
{
    pthread_mutex_lock(&plans_lock);
    struct plan *p = h >= 1 && (uint32_t)h <= nplans ? plans[h - 1] : NULL;
    pthread_mutex_unlock(&plans_lock);
    if (!p)
        refuse(CUFFT_INVALID_PLAN, who, "%d is not a plan (never created, or destroyed)", h);
    return p;
}

/* The plan @p h names, made: NULL (after one line) when it is not a plan or not made. */
static struct plan *made_plan(cufftHandle h, const char *who)
{
    struct plan *p = plan_of(h, who);
    if (p && !p->made) {
        refuse(CUFFT_INVALID_PLAN, who, "plan %d was created but never made (cufftMakePlan*)", h);
        return NULL;
    }
    return p;
}

static int type_known(cufftType t)
{
    return t == CUFFT_C2C || t == CUFFT_Z2Z || t == CUFFT_R2C || t == CUFFT_D2Z || t == CUFFT_C2R ||
           t == CUFFT_Z2D;
}

static const char *type_name(cufftType t)
{
    /* cufftType's low bits are the kind (0x9 complex, 0xa real to complex, 0xc complex to real),
       its bit 0x40 double precision */
    static const char *const single[] = {"C2C", "R2C", "", "C2R"};
    static const char *const twice[] = {"Z2Z", "D2Z", "", "Z2D"};
    return (t & 0x40 ? twice : single)[(t & 0xf) - 9];
}

/* 1: real input, complex output (R2C, D2Z); -1: complex input, real output (C2R, Z2D). */
static int real_kind(cufftType t)
{
    return t == CUFFT_R2C || t == CUFFT_D2Z ? 1 : t == CUFFT_C2R || t == CUFFT_Z2D ? -1 : 0;
}

static size_t precision(cufftType t)
{
    return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D ? sizeof(double) : sizeof(float);
}

/* --- layouts ------------------------------------------------------------------------------- */

/* @p p's input (@p input 1) or output side, for a transform in place or not. */
static struct side side_of(const struct plan *p, int input, int in_place)
{
    int kind = real_kind(p->type), r = p->rank;
    struct side s = {.rank = r, .real = input ? kind > 0 : kind < 0};
    s.elem = precision(p->type) * (s.real ? 1 : 2);
    memcpy(s.len, p->n, sizeof s.len);
    long long half = p->n[r - 1] / 2 + 1;
    if (kind && !s.real)
        s.len[r - 1] = half;
    long long embed[MAX_RANK], stride = 1;
    if (p->advanced) {
        memcpy(embed, input ? p->inembed : p->onembed, sizeof embed);
        stride = input ? p->istride : p->ostride;
    } else {
        memcpy(embed, s.len, sizeof embed);
        if (kind && s.real && in_place) /* the padded rows of an in-place real transform */
            embed[r - 1] = 2 * half;
    }
    s.pitch[r - 1] = stride;
    for (int a = r - 2; a >= 0; a--)
        s.overflow |= __builtin_mul_overflow(s.pitch[a + 1], embed[a + 1], &s.pitch[a]);
    if (p->advanced)
        s.dist = input ? p->idist : p->odist;
    else
        s.overflow |= __builtin_mul_overflow(s.pitch[0], embed[0], &s.dist);
    return s;
}

/* The bytes from a side's first element to the end of its last in @p batch transforms, or -1
   when that overflows. */
static long long side_extent(const struct side *s, long long batch)
{
    long long end = 0, t;
    if (s->overflow)
        return -1;
    for (int a = 0; a < s->rank; a++)
        if (__builtin_mul_overflow(s->len[a] - 1, s->pitch[a], &t) ||
            __builtin_add_overflow(end, t, &end))
            return -1;
    if (__builtin_mul_overflow(batch - 1, s->dist, &t) || __builtin_add_overflow(end, t, &end) ||
        __builtin_add_overflow(end, 1, &end) || __builtin_mul_overflow(end, (long long)s->elem, &t))
        return -1;
    return t;
}

/*
 * Check a plan's description (rank @p rank, sizes @p n, the advanced layout when both embeds
 * are given) and fill @p p with it, building no DFT yet. CUFFT_SUCCESS, or the cufftResult
 * after one line naming @p who and the argument.
 */
static cufftResult describe(struct plan *p, const char *who, int rank, const long long *n,
                            const long long *inembed, long long istride, long long idist,
                            const long long *onembed, long long ostride, long long odist,
                            cufftType type, long long batch)
{
    if (!type_known(type))
        return refuse(CUFFT_INVALID_TYPE, who, "%d is not a cufftType", (int)type);
    if (rank < 1 || rank > MAX_RANK)
        return refuse(CUFFT_INVALID_SIZE, who, "rank %d is not 1, 2 or 3", rank);
    if (!n)
        return refuse(CUFFT_INVALID_VALUE, who, "n is NULL");
    memset(p->n, 0, sizeof p->n);
    for (int a = 0; a < rank; a++) {
        if (n[a] < 1)
            return refuse(CUFFT_INVALID_SIZE, who, "size %lld (axis %d) is not a transform size",
                          n[a], a);
        p->n[a] = n[a];
    }
    if (batch < 1)
        return refuse(CUFFT_INVALID_SIZE, who, "batch %lld is not 1 or more", batch);
    p->type = type, p->rank = rank, p->batch = batch;
    p->advanced = inembed && onembed;
    if (p->advanced) {
        if (istride < 1 || ostride < 1 || idist < 0 || odist < 0)
            return refuse(CUFFT_INVALID_VALUE, who,
                          "istride %lld, ostride %lld, idist %lld, odist %lld: strides must be "
                          "1 or more, distances 0 or more",
                          istride, ostride, idist, odist);
        memcpy(p->inembed, inembed, rank * sizeof *inembed);
        memcpy(p->onembed, onembed, rank * sizeof *onembed);
        p->istride = istride, p->idist = idist, p->ostride = ostride, p->odist = odist;
        for (int input = 1; input >= 0; input--) {
            struct side s = side_of(p, input, 0);
            const long long *embed = input ? inembed : onembed;
            for (int a = 1; a < rank; a++)
                if (embed[a] < s.len[a])
                    return refuse(CUFFT_INVALID_VALUE, who,
                                  "%s[%d] = %lld is less than the %lld elements it holds",
                                  input ? "inembed" : "onembed", a, embed[a], s.len[a]);
        }
    }
    for (int in_place = 0; in_place < 2; in_place++)
        for (int input = 0; input < 2; input++) {
            struct side s = side_of(p, input, in_place);
            if (side_extent(&s, batch) < 0)
                return refuse(CUFFT_INVALID_SIZE, who, "the %s's extent overflows 64 bits",
                              input ? "input" : "output");
        }
    return CUFFT_SUCCESS;
}

/* An int call's sizes or embeds (@p rank of them) as 64-bit ones in @p dst (@p src NULL: NULL). */
static const long long *widen(long long *dst, const int *src, int rank)
{
    if (!src)
        return NULL;
    for (int a = 0; a < rank && a < MAX_RANK; a++)
        dst[a] = src[a];
    return dst;
}

/* --- plans --------------------------------------------------------------------------------- */

cufftResult cufftCreate(cufftHandle *handle)
{
    if (!handle)
        return refuse(CUFFT_INVALID_VALUE, "cufftCreate", "handle is NULL");
    int n;
    if (cudaGetDeviceCount(&n) != cudaSuccess)
        return refuse(CUFFT_SETUP_FAILED, "cufftCreate", "there is no CUDA device");
    struct plan *p = emu_calloc(1, sizeof *p);
    p->auto_allocation = 1;
    pthread_mutex_lock(&plans_lock);
    plans = emu_grow(plans, nplans, &capplans, sizeof *plans);
    plans[nplans++] = p;
    *handle = (cufftHandle)nplans;
    pthread_mutex_unlock(&plans_lock);
    return CUFFT_SUCCESS;
}

cufftResult cufftDestroy(cufftHandle plan)
{
    if (plan == CUFFT_PLAN_NULL) /* cufft.h: safe to destroy */
        return CUFFT_SUCCESS;
    struct plan *p = plan_of(plan, "cufftDestroy");
    if (!p)
        return CUFFT_INVALID_PLAN;
    pthread_mutex_lock(&plans_lock);
    plans[plan - 1] = NULL;
    pthread_mutex_unlock(&plans_lock);
    for (int a = 0; a < MAX_RANK; a++)
        fft_plan_free(p->axis[a]);
    free(p);
    return CUFFT_SUCCESS;
}

/* Make plan @p h from its description (describe()'s arguments): check it, build each axis'
   DFT, and say the work area it needs (none). */
static cufftResult make(cufftHandle h, const char *who, int rank, const long long *n,
                        const long long *inembed, long long istride, long long idist,
                        const long long *onembed, long long ostride, long long odist,
                        cufftType type, long long batch, size_t *workSize)
{
    struct plan *p = plan_of(h, who);
    if (!p)
        return CUFFT_INVALID_PLAN;
    struct plan d = *p;
    cufftResult r =
        describe(&d, who, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
    if (r != CUFFT_SUCCESS)
        return r;
    struct fft_plan *axis[MAX_RANK] = {NULL};
    for (int a = 0; a < rank; a++) {
        axis[a] = fft_plan_new((size_t)d.n[a]);
        if (!axis[a]) {
            for (int b = 0; b < a; b++)
                fft_plan_free(axis[b]);
            return refuse(CUFFT_ALLOC_FAILED, who, "no host memory for a DFT of %lld points",
                          d.n[a]);
        }
    }
    for (int a = 0; a < MAX_RANK; a++) { /* a plan made again replaces what it was */
        fft_plan_free(p->axis[a]);
        d.axis[a] = axis[a];
    }
    d.made = 1;
    *p = d;
    if (workSize)
        *workSize = 0;
    return CUFFT_SUCCESS;
}

/* make() for the int calls: their sizes and embeds widened to 64 bits. */
static cufftResult make_int(cufftHandle h, const char *who, int rank, const int *n,
                            const int *inembed, int istride, int idist, const int *onembed,
                            int ostride, int odist, cufftType type, int batch, size_t *workSize)
{
    long long n64[MAX_RANK], in64[MAX_RANK], on64[MAX_RANK];
    return make(h, who, rank, widen(n64, n, rank), widen(in64, inembed, rank), istride, idist,
                widen(on64, onembed, rank), ostride, odist, type, batch, workSize);
}

cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int *n,
                                long long int *inembed, long long int istride, long long int idist,
                                long long int *onembed, long long int ostride, long long int odist,
                                cufftType type, long long int batch, size_t *workSize)
{
    return make(plan, "cufftMakePlanMany64", rank, n, inembed, istride, idist, onembed, ostride,
                odist, type, batch, workSize);
}

cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride,
                              int idist, int *onembed, int ostride, int odist, cufftType type,
                              int batch, size_t *workSize)
{
    return make_int(plan, "cufftMakePlanMany", rank, n, inembed, istride, idist, onembed, ostride,
                    odist, type, batch, workSize);
}

cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize)
{
    return make_int(plan, "cufftMakePlan1d", 1, (int[]){nx}, NULL, 1, 0, NULL, 1, 0, type, batch,
                    workSize);
}

cufftResult cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t *workSize)
{
    return make_int(plan, "cufftMakePlan2d", 2, (int[]){nx, ny}, NULL, 1, 0, NULL, 1, 0, type, 1,
                    workSize);
}

cufftResult cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type,
                            size_t *workSize)
{
    return make_int(plan, "cufftMakePlan3d", 3, (int[]){nx, ny, nz}, NULL, 1, 0, NULL, 1, 0, type,
                    1, workSize);
}

/*
 * cufftPlan*: a new handle made as cufftMakePlan* makes it (named @p who in what it prints),
 * into *@p plan; when making fails, the handle is destroyed again and *@p plan left alone.
 */
static cufftResult plan_new(cufftHandle *plan, const char *who, int rank, const int *n,
                            const int *inembed, int istride, int idist, const int *onembed,
                            int ostride, int odist, cufftType type, int batch)
{
    cufftHandle h;
    cufftResult r = plan ? cufftCreate(&h) : refuse(CUFFT_INVALID_VALUE, who, "plan is NULL");
    if (r != CUFFT_SUCCESS)
        return r;
    r = make_int(h, who, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                 NULL);
    if (r != CUFFT_SUCCESS)
        cufftDestroy(h);
    else
        *plan = h;
    return r;
}

cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch)
{
    return plan_new(plan, "cufftPlan1d", 1, (int[]){nx}, NULL, 1, 0, NULL, 1, 0, type, batch);
}

cufftResult cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type)
{
    return plan_new(plan, "cufftPlan2d", 2, (int[]){nx, ny}, NULL, 1, 0, NULL, 1, 0, type, 1);
}

cufftResult cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type)
{
    return plan_new(plan, "cufftPlan3d", 3, (int[]){nx, ny, nz}, NULL, 1, 0, NULL, 1, 0, type, 1);
}

cufftResult cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist,
                          int *onembed, int ostride, int odist, cufftType type, int batch)
{
    return plan_new(plan, "cufftPlanMany", rank, n, inembed, istride, idist, onembed, ostride,
                    odist, type, batch);
}

/* --- work areas: the stand-in needs none --------------------------------------------------- */

/* Check a description for a size query (describe()'s arguments); *@p workSize = 0. */
static cufftResult size_of(const char *who, int rank, const long long *n, const long long *inembed,
                           long long istride, long long idist, const long long *onembed,
                           long long ostride, long long odist, cufftType type, long long batch,
                           size_t *workSize)
{
    if (!workSize)
        return refuse(CUFFT_INVALID_VALUE, who, "workSize is NULL");
    struct plan d = {0};
    cufftResult r =
        describe(&d, who, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
    if (r == CUFFT_SUCCESS)
        *workSize = 0;
    return r;
}

/* size_of() for the int calls: their sizes and embeds widened to 64 bits. */
static cufftResult size_int(const char *who, int rank, const int *n, const int *inembed,
                            int istride, int idist, const int *onembed, int ostride, int odist,
                            cufftType type, int batch, size_t *workSize)
{
    long long n64[MAX_RANK], in64[MAX_RANK], on64[MAX_RANK];
    return size_of(who, rank, widen(n64, n, rank), widen(in64, inembed, rank), istride, idist,
                   widen(on64, onembed, rank), ostride, odist, type, batch, workSize);
}

cufftResult cufftEstimate1d(int nx, cufftType type, int batch, size_t *workSize)
{
    return size_int("cufftEstimate1d", 1, (int[]){nx}, NULL, 1, 0, NULL, 1, 0, type, batch,
                    workSize);
}

cufftResult cufftEstimate2d(int nx, int ny, cufftType type, size_t *workSize)
{
    return size_int("cufftEstimate2d", 2, (int[]){nx, ny}, NULL, 1, 0, NULL, 1, 0, type, 1,
                    workSize);
}

cufftResult cufftEstimate3d(int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    return size_int("cufftEstimate3d", 3, (int[]){nx, ny, nz}, NULL, 1, 0, NULL, 1, 0, type, 1,
                    workSize);
}

cufftResult cufftEstimateMany(int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                              int ostride, int odist, cufftType type, int batch, size_t *workSize)
{
    return size_int("cufftEstimateMany", rank, n, inembed, istride, idist, onembed, ostride, odist,
                    type, batch, workSize);
}

cufftResult cufftGetSize1d(cufftHandle handle, int nx, cufftType type, int batch, size_t *workSize)
{
    if (!plan_of(handle, "cufftGetSize1d"))
        return CUFFT_INVALID_PLAN;
    return size_int("cufftGetSize1d", 1, (int[]){nx}, NULL, 1, 0, NULL, 1, 0, type, batch,
                    workSize);
}

cufftResult cufftGetSize2d(cufftHandle handle, int nx, int ny, cufftType type, size_t *workSize)
{
    if (!plan_of(handle, "cufftGetSize2d"))
        return CUFFT_INVALID_PLAN;
    return size_int("cufftGetSize2d", 2, (int[]){nx, ny}, NULL, 1, 0, NULL, 1, 0, type, 1,
                    workSize);
}

cufftResult cufftGetSize3d(cufftHandle handle, int nx, int ny, int nz, cufftType type,
                           size_t *workSize)
{
    if (!plan_of(handle, "cufftGetSize3d"))
        return CUFFT_INVALID_PLAN;
    return size_int("cufftGetSize3d", 3, (int[]){nx, ny, nz}, NULL, 1, 0, NULL, 1, 0, type, 1,
                    workSize);
}

cufftResult cufftGetSizeMany(cufftHandle handle, int rank, int *n, int *inembed, int istride,
                             int idist, int *onembed, int ostride, int odist, cufftType type,
                             int batch, size_t *workArea)
{
    if (!plan_of(handle, "cufftGetSizeMany"))
        return CUFFT_INVALID_PLAN;
    return size_int("cufftGetSizeMany", rank, n, inembed, istride, idist, onembed, ostride, odist,
                    type, batch, workArea);
}

cufftResult cufftGetSizeMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                               long long int istride, long long int idist, long long int *onembed,
                               long long int ostride, long long int odist, cufftType type,
                               long long int batch, size_t *workSize)
{
    if (!plan_of(plan, "cufftGetSizeMany64"))
        return CUFFT_INVALID_PLAN;
    return size_of("cufftGetSizeMany64", rank, n, inembed, istride, idist, onembed, ostride, odist,
                   type, batch, workSize);
}

cufftResult cufftGetSize(cufftHandle handle, size_t *workSize)
{
    struct plan *p = plan_of(handle, "cufftGetSize");
    if (!p)
        return CUFFT_INVALID_PLAN;
    if (!workSize)
        return refuse(CUFFT_INVALID_VALUE, "cufftGetSize", "workSize is NULL");
    *workSize = 0;
    return CUFFT_SUCCESS;
}

cufftResult cufftSetWorkArea(cufftHandle plan, void *workArea)
{
    struct plan *p = plan_of(plan, "cufftSetWorkArea");
    if (p)
        p->work_area = workArea;
    return p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult cufftSetAutoAllocation(cufftHandle plan, int autoAllocate)
{
    struct plan *p = plan_of(plan, "cufftSetAutoAllocation");
    if (p)
        p->auto_allocation = autoAllocate;
    return p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

/* --- transforms ------------------------------------------------------------------------- */

/* Element @p i of a side's array at @p base, widened to double (a real one: imaginary part 0). */
static struct fft_cplx load(const struct side *s, const void *base, long long i)
{
    if (s->real && s->elem == sizeof(float))
        return (struct fft_cplx){((const float *)base)[i], 0};
    if (s->real)
        return (struct fft_cplx){((const double *)base)[i], 0};
    if (s->elem == 2 * sizeof(float))
        return (struct fft_cplx){((const float *)base)[2 * i], ((const float *)base)[2 * i + 1]};
    return ((const struct fft_cplx *)base)[i];
}

/* Element @p i of a side's array at @p base = @p v, rounded once to the side's type (a real
   one: the real part). */
static void store(const struct side *s, void *base, long long i, struct fft_cplx v)
{
    if (s->real && s->elem == sizeof(float))
        ((float *)base)[i] = (float)v.re;
    else if (s->real)
        ((double *)base)[i] = v.re;
    else if (s->elem == 2 * sizeof(float))
        ((float *)base)[2 * i] = (float)v.re, ((float *)base)[2 * i + 1] = (float)v.im;
    else
        ((struct fft_cplx *)base)[i] = v;
}

/* Where element @p e (counted row-major over the side's lengths) of transform @p b lies. */
static long long offset(const struct side *s, long long b, long long e)
{
    long long at = b * s->dist;
    for (int a = s->rank - 1; a >= 0; a--) {
        at += e % s->len[a] * s->pitch[a];
        e /= s->len[a];
    }
    return at;
}

/* The elements of one transform's side. */
static long long elements(const struct side *s)
{
    long long count = 1;
    for (int a = 0; a < s->rank; a++)
        count *= s->len[a];
    return count;
}

/** A run of output bytes written, told to the emulator (initcheck) when the next one is not
    adjacent. */
struct written {
    const char *start;
    size_t bytes;
};

static void written_add(struct written *w, const char *dev, size_t bytes)
{
    if (w->bytes && dev == w->start + w->bytes) {
        w->bytes += bytes;
        return;
    }
    if (w->bytes)
        course_emu_wrote(w->start, w->bytes);
    *w = (struct written){dev, bytes};
}

static void written_end(struct written *w)
{
    if (w->bytes)
        course_emu_wrote(w->start, w->bytes);
}

/*
 * The DFT @p f (direction @p sign) along axis @p a of @p x, a row-major array of lengths
 * @p len: every line, each through @p line (@p len[a] elements) and @p work.
 */
static void along(struct fft_cplx *x, const long long *len, int rank, int a,
                  const struct fft_plan *f, int sign, struct fft_cplx *line, struct fft_cplx *work)
{
    long long n = len[a], inner = 1, lines = 1;
    for (int b = 0; b < rank; b++) {
        inner *= b > a ? len[b] : 1;
        lines *= b != a ? len[b] : 1;
    }
    if (n == 1)
        return;
    for (long long l = 0; l < lines; l++) {
        struct fft_cplx *first = x + l / inner * n * inner + l % inner; /* the line's element 0 */
        for (long long j = 0; j < n; j++)
            line[j] = first[j * inner];
        fft_run(f, line, sign, work);
        for (long long j = 0; j < n; j++)
            first[j * inner] = line[j];
    }
}

/*
 * One transform of @p p: @p src holds its input side's elements row-major, and its output
 * side's go to @p dst the same way (C2C and Z2Z: in @p src, @p dst unused). R2C: the last
 * axis' DFT of each real row, its first n / 2 + 1 outputs kept, then the other axes. C2R: the
 * other axes first, then each row of n / 2 + 1 extended to n by Hermitian symmetry
 * (X[n - k] = conj(X[k])) and transformed; its real parts are the output.
 */
static void transform(const struct plan *p, struct fft_cplx *src, struct fft_cplx *dst, int sign,
                      struct fft_cplx *line, struct fft_cplx *work)
{
    int r = p->rank, kind = real_kind(p->type);
    long long n = p->n[r - 1], half = n / 2 + 1, rows = 1, halves[MAX_RANK];
    for (int a = 0; a < r; a++) {
        rows *= a < r - 1 ? p->n[a] : 1;
        halves[a] = a < r - 1 ? p->n[a] : half;
    }
    if (kind == 0) {
        for (int a = r - 1; a >= 0; a--)
            along(src, p->n, r, a, p->axis[a], sign, line, work);
    } else if (kind > 0) {
        for (long long row = 0; row < rows; row++) {
            fft_run(p->axis[r - 1], src + row * n, CUFFT_FORWARD, work);
            memcpy(dst + row * half, src + row * n, half * sizeof *dst);
        }
        for (int a = r - 2; a >= 0; a--)
            along(dst, halves, r, a, p->axis[a], CUFFT_FORWARD, line, work);
    } else {
        for (int a = r - 2; a >= 0; a--)
            along(src, halves, r, a, p->axis[a], CUFFT_INVERSE, line, work);
        for (long long row = 0; row < rows; row++) {
            const struct fft_cplx *h = src + row * half;
            for (long long k = 0; k < n; k++)
                line[k] = k < half ? h[k] : (struct fft_cplx){h[n - k].re, -h[n - k].im};
            fft_run(p->axis[r - 1], line, CUFFT_INVERSE, work);
            memcpy(dst + row * n, line, n * sizeof *dst);
        }
    }
}

/*
 * Run plan @p h, which must be of type @p want, from @p idata to @p odata (direction @p sign
 * for C2C and Z2Z) on the host, after the work queued before it: CUFFT_SUCCESS, or the
 * cufftResult after one line naming @p who.
 */
static cufftResult exec(cufftHandle h, const char *who, cufftType want, const void *idata,
                        void *odata, int sign)
{
    struct plan *p = made_plan(h, who);
    if (!p)
        return CUFFT_INVALID_PLAN;
    if (p->type != want)
        return refuse(CUFFT_INVALID_VALUE, who, "plan %d is a %s plan, not a %s one", h,
                      type_name(p->type), type_name(want));
    if (!real_kind(want) && sign != CUFFT_FORWARD && sign != CUFFT_INVERSE)
        return refuse(CUFFT_INVALID_VALUE, who,
                      "direction %d is neither CUFFT_FORWARD (-1) nor CUFFT_INVERSE (1)", sign);
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(p->stream, &capture) == cudaSuccess &&
        capture != cudaStreamCaptureStatusNone)
        return refuse(CUFFT_NOT_SUPPORTED, who,
                      "plan %d's stream is being captured into a graph, which the stand-in "
                      "(it computes at the call) cannot join",
                      h);
    if (course_emu_sticky_error())
        return CUFFT_EXEC_FAILED;
    int in_place = idata == odata;
    struct side in = side_of(p, 1, in_place), out = side_of(p, 0, in_place);
    long long in_bytes = side_extent(&in, p->batch), out_bytes = side_extent(&out, p->batch);
    char in_who[64], out_who[64];
    snprintf(in_who, sizeof in_who, "%s, idata", who);
    snprintf(out_who, sizeof out_who, "%s, odata", who);
    const void *hin = course_emu_host(idata, (size_t)in_bytes, in_who);
    void *hout = hin ? course_emu_host(odata, (size_t)out_bytes, out_who) : NULL;
    if (!hin || !hout)
        return CUFFT_INVALID_VALUE;
    long long ins = elements(&in), outs = elements(&out), longest = 1;
    size_t work_size = 1;
    for (int a = 0; a < p->rank; a++) {
        longest = p->n[a] > longest ? p->n[a] : longest;
        size_t w = fft_work_size(p->axis[a]);
        work_size = w > work_size ? w : work_size;
    }
    struct fft_cplx *src = malloc((size_t)ins * sizeof *src);
    struct fft_cplx *dst = real_kind(want) ? malloc((size_t)outs * sizeof *dst) : src;
    struct fft_cplx *line = malloc((size_t)longest * sizeof *line);
    struct fft_cplx *work = malloc(work_size * sizeof *work);
    cufftResult r = CUFFT_SUCCESS;
    struct written w = {NULL, 0};
    if (!src || !dst || !line || !work) {
        r = refuse(CUFFT_ALLOC_FAILED, who, "no host memory for a transform of %lld elements",
                   ins > outs ? ins : outs);
        goto done;
    }
    /* Transform by transform, each read whole before it is written (in place too). */
    for (long long b = 0; b < p->batch; b++) {
        for (long long e = 0; e < ins; e++)
            src[e] = load(&in, hin, offset(&in, b, e));
        transform(p, src, dst, sign, line, work);
        for (long long e = 0; e < outs; e++) {
            long long at = offset(&out, b, e);
            store(&out, hout, at, dst[e]);
            written_add(&w, (const char *)odata + at * (long long)out.elem, out.elem);
        }
    }
    written_end(&w);
done:
    if (dst != src)
        free(dst);
    free(src);
    free(line);
    free(work);
    return r;
}

cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction)
{
    return exec(plan, "cufftExecC2C", CUFFT_C2C, idata, odata, direction);
}

cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata,
                         int direction)
{
    return exec(plan, "cufftExecZ2Z", CUFFT_Z2Z, idata, odata, direction);
}

cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata)
{
    return exec(plan, "cufftExecR2C", CUFFT_R2C, idata, odata, CUFFT_FORWARD);
}

cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata)
{
    return exec(plan, "cufftExecD2Z", CUFFT_D2Z, idata, odata, CUFFT_FORWARD);
}

cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata)
{
    return exec(plan, "cufftExecC2R", CUFFT_C2R, idata, odata, CUFFT_INVERSE);
}

cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata)
{
    return exec(plan, "cufftExecZ2D", CUFFT_Z2D, idata, odata, CUFFT_INVERSE);
}

/* --- cufftXt.h's single-GPU plan and exec for fp32 and fp64 ------------------------------------
 */

/* The cufftType of cufftXtMakePlanMany's input, output and execution types: the fp32 and fp64
   pairs cufft.h's types name; 0 for any other (half and bf16: no such transforms here). */
static cufftType xt_type(cudaDataType in, cudaDataType out, cudaDataType exec_type)
{
    static const struct {
        cudaDataType in, out, exec;
        cufftType type;
    } pairs[] = {{CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_C2C},
                 {CUDA_R_32F, CUDA_C_32F, CUDA_C_32F, CUFFT_R2C},
                 {CUDA_C_32F, CUDA_R_32F, CUDA_C_32F, CUFFT_C2R},
                 {CUDA_C_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_Z2Z},
                 {CUDA_R_64F, CUDA_C_64F, CUDA_C_64F, CUFFT_D2Z},
                 {CUDA_C_64F, CUDA_R_64F, CUDA_C_64F, CUFFT_Z2D}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if (pairs[i].in == in && pairs[i].out == out && pairs[i].exec == exec_type)
            return pairs[i].type;
    return (cufftType)0;
}

cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long int *n,
                                long long int *inembed, long long int istride, long long int idist,
                                cudaDataType inputtype, long long int *onembed,
                                long long int ostride, long long int odist, cudaDataType outputtype,
                                long long int batch, size_t *workSize, cudaDataType executiontype)
{
    cufftType type = xt_type(inputtype, outputtype, executiontype);
    if (!type)
        return refuse(CUFFT_NOT_SUPPORTED, "cufftXtMakePlanMany",
                      "these data types are not emulated (fp32 and fp64 transforms are; half and "
                      "bf16 are not)");
    return make(plan, "cufftXtMakePlanMany", rank, n, inembed, istride, idist, onembed, ostride,
                odist, type, batch, workSize);
}

/* The plan's own transform; @p direction counts for C2C and Z2Z only, as cuFFT documents. */
cufftResult cufftXtExec(cufftHandle plan, void *input, void *output, int direction)
{
    struct plan *p = made_plan(plan, "cufftXtExec");
    if (!p)
        return CUFFT_INVALID_PLAN;
    int sign = p->type == CUFFT_R2C || p->type == CUFFT_D2Z   ? CUFFT_FORWARD
               : p->type == CUFFT_C2R || p->type == CUFFT_Z2D ? CUFFT_INVERSE
                                                              : direction;
    return exec(plan, "cufftXtExec", p->type, input, output, sign);
}

/* --- the rest of cufft.h --------------------------------------------------------------------- */

cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream)
{
    struct plan *p = plan_of(plan, "cufftSetStream");
    if (p)
        p->stream = stream;
    return p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult cufftGetVersion(int *version)
{
    if (!version)
        return refuse(CUFFT_INVALID_VALUE, "cufftGetVersion", "version is NULL");
    *version = CUFFT_VERSION;
    return CUFFT_SUCCESS;
}

cufftResult cufftGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return refuse(CUFFT_INVALID_VALUE, "cufftGetProperty", "value is NULL");
    switch (type) {
    case MAJOR_VERSION:
        *value = CUFFT_VER_MAJOR;
        return CUFFT_SUCCESS;
    case MINOR_VERSION:
        *value = CUFFT_VER_MINOR;
        return CUFFT_SUCCESS;
    case PATCH_LEVEL:
        *value = CUFFT_VER_PATCH;
        return CUFFT_SUCCESS;
    default:
        return refuse(CUFFT_INVALID_TYPE, "cufftGetProperty", "%d is not a libraryPropertyType",
                      (int)type);
    }
}

/* *@p slot = where plan @p h keeps @p property; CUFFT_SUCCESS or why not (one line). */
static cufftResult property_of(cufftHandle h, cufftProperty property, const char *who,
                               long long **slot)
{
    struct plan *p = plan_of(h, who);
    if (!p)
        return CUFFT_INVALID_PLAN;
    if (property != NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT &&
        property != NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS)
        return refuse(CUFFT_INVALID_VALUE, who, "%d is not a cufftProperty", (int)property);
    *slot = &p->property[property];
    return CUFFT_SUCCESS;
}

cufftResult cufftSetPlanPropertyInt64(cufftHandle plan, cufftProperty property,
                                      const long long int inputValueInt)
{
    long long *v = NULL;
    cufftResult r = property_of(plan, property, "cufftSetPlanPropertyInt64", &v);
    if (r == CUFFT_SUCCESS)
        *v = inputValueInt;
    return r;
}

cufftResult cufftGetPlanPropertyInt64(cufftHandle plan, cufftProperty property,
                                      long long int *returnPtrValue)
{
    long long *v = NULL;
    cufftResult r = property_of(plan, property, "cufftGetPlanPropertyInt64", &v);
    if (r == CUFFT_SUCCESS && !returnPtrValue)
        r = refuse(CUFFT_INVALID_VALUE, "cufftGetPlanPropertyInt64", "returnPtrValue is NULL");
    if (r == CUFFT_SUCCESS)
        *returnPtrValue = *v;
    return r;
}

cufftResult cufftResetPlanProperty(cufftHandle plan, cufftProperty property)
{
    long long *v = NULL;
    cufftResult r = property_of(plan, property, "cufftResetPlanProperty", &v);
    if (r == CUFFT_SUCCESS)
        *v = 0;
    return r;
}
