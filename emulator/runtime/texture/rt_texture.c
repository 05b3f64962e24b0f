/**
 * @file rt_texture.c
 * @brief The runtime stand-in: texture and surface objects.
 *
 * cudaCreateTextureObject and cudaCreateSurfaceObject check the resource (an array, linear
 * memory, or pitched 2D memory) and the sampling state, allocate one struct tex_desc
 * (vm/tex.h) in device memory, fill it through this process's alias of the memory, and
 * answer its device address as the handle; the VM reads it when tex, suld or sust names the
 * handle. Destroying an object frees the descriptor (after the queued work, as cudaFree
 * does), so a later fetch through it fails its launch with "was destroyed". What CUDA can
 * describe but the emulator does not model (mipmaps, resource views, sRGB, other channel
 * formats) is refused with one line and cudaErrorNotSupported or the error CUDA gives.
 */
#include "rt_array.h"

#include <stdlib.h>
#include <string.h>

#include "tex.h"

/** A live object: its handle and what it was made from, for the Get*Desc calls. */
struct rt_object {
    uint64_t handle;
    uint32_t magic; /**< TEX_MAGIC or SURF_MAGIC */
    struct cudaResourceDesc res;
    struct cudaTextureDesc tex;
    struct rt_object *next;
};

static struct rt_object *objects;
static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;

/* The geometry and format of @p s, texels of format @p fmt, into @p d. */
static void describe(const struct rt_array_shape *s, const struct cudaChannelFormatDesc *fmt,
                     struct tex_desc *d)
{
    d->base = (uint64_t)(uintptr_t)s->dev;
    d->pitch = s->pitch;
    d->slice_pitch = s->pitch * s->rows;
    d->bytes = (s->slices - 1) * d->slice_pitch + (s->rows - 1) * s->pitch + s->width * s->elem;
    d->width = (uint32_t)s->width;
    d->height = (uint32_t)s->rows;
    d->depth = (uint32_t)s->depth;
    d->slices = (uint32_t)s->slices;
    d->bits = (uint8_t)fmt->x;
    d->elem_bytes = (uint8_t)s->elem;
    d->channels = (uint8_t)(s->elem * 8 / (size_t)fmt->x);
    d->kind = fmt->f == cudaChannelFormatKindFloat    ? TEXK_FLOAT
              : fmt->f == cudaChannelFormatKindSigned ? TEXK_SIGNED
                                                      : TEXK_UNSIGNED;
    d->flags |= (s->layered ? TEXF_LAYERED : 0) | (s->cubemap ? TEXF_CUBEMAP : 0);
}

/* The texels of an array resource into @p d. */
static cudaError_t array_resource(cudaArray_t array, int surface, const char *who,
                                  struct tex_desc *d)
{
    struct rt_array_shape s;
    struct cudaChannelFormatDesc fmt;
    unsigned flags;
    if (rt_array_shape(array, who, &s, &flags))
        return cudaErrorInvalidResourceHandle;
    if (surface && !(flags & cudaArraySurfaceLoadStore)) {
        emu_say("%s: the array was made without cudaArraySurfaceLoadStore (cudaErrorInvalidValue)",
                who);
        return cudaErrorInvalidValue;
    }
    cudaGetChannelDesc(&fmt, array);
    describe(&s, &fmt, d);
    return cudaSuccess;
}

/* The texels of pitched memory (@p rows of @p width elements, @p pitch bytes apart) into @p d. */
static cudaError_t memory_resource(void *p, const struct cudaChannelFormatDesc *fmt, size_t width,
                                   size_t rows, size_t pitch, const char *who, struct tex_desc *d)
{
    int elem = rt_channel_bytes(fmt, who);
    if (!elem)
        return cudaErrorInvalidChannelDescriptor;
    if (!p || width == 0 || rows == 0 || pitch < width * (size_t)elem) {
        emu_say("%s: %zu rows of %zu elements of %d bytes at %p, %zu bytes apart, are not a "
                "resource (cudaErrorInvalidValue)",
                who, rows, width, elem, p, pitch);
        return cudaErrorInvalidValue;
    }
    struct rt_array_shape s = {p, (size_t)elem, width, rows, 1, 1, pitch, 0, 0};
    describe(&s, fmt, d);
    return cudaSuccess;
}

/* The texels resource @p r names into @p d; a surface needs an array made for it. */
static cudaError_t resource(const struct cudaResourceDesc *r, int surface, const char *who,
                            struct tex_desc *d)
{
    if (r->resType == cudaResourceTypeArray)
        return array_resource(r->res.array.array, surface, who, d);
    if (surface) {
        emu_say("%s: a surface object needs an array resource (cudaErrorInvalidValue)", who);
        return cudaErrorInvalidValue;
    }
    if (r->resType == cudaResourceTypeLinear) {
        const struct cudaChannelFormatDesc *f = &r->res.linear.desc;
        size_t elem = (size_t)rt_channel_bytes(f, who);
        d->flags |= TEXF_LINEAR_MEM;
        return elem ? memory_resource(r->res.linear.devPtr, f, r->res.linear.sizeInBytes / elem, 1,
                                      r->res.linear.sizeInBytes, who, d)
                    : cudaErrorInvalidChannelDescriptor;
    }
    if (r->resType == cudaResourceTypePitch2D)
        return memory_resource(r->res.pitch2D.devPtr, &r->res.pitch2D.desc, r->res.pitch2D.width,
                               r->res.pitch2D.height, r->res.pitch2D.pitchInBytes, who, d);
    emu_say("%s: resource type %d (a mipmapped array) is not emulated (cudaErrorNotSupported)", who,
            (int)r->resType);
    return cudaErrorNotSupported;
}

/* The sampling state of @p t into @p d, whose format is known. */
static cudaError_t sampling(const struct cudaTextureDesc *t, const char *who, struct tex_desc *d)
{
    int bad = t->filterMode != cudaFilterModePoint && t->filterMode != cudaFilterModeLinear;
    for (int i = 0; i < 3; i++) {
        bad |= (unsigned)t->addressMode[i] > cudaAddressModeBorder;
        d->address[i] = (uint8_t)t->addressMode[i];
    }
    if (bad ||
        (t->readMode != cudaReadModeElementType && t->readMode != cudaReadModeNormalizedFloat)) {
        emu_say("%s: an address, filter or read mode CUDA does not define (cudaErrorInvalidValue)",
                who);
        return cudaErrorInvalidValue;
    }
    if (t->sRGB) {
        emu_say("%s: sRGB textures are not emulated (cudaErrorNotSupported)", who);
        return cudaErrorNotSupported;
    }
    int norm_read =
        t->readMode == cudaReadModeNormalizedFloat && d->kind != TEXK_FLOAT && d->bits < 32;
    d->flags |= (norm_read ? TEXF_READ_NORM : 0) | (t->normalizedCoords ? TEXF_NORMALIZED : 0) |
                (t->filterMode == cudaFilterModeLinear ? TEXF_LINEAR : 0);
    memcpy(d->border, t->borderColor, sizeof d->border);
    if ((d->flags & TEXF_LINEAR) && d->kind != TEXK_FLOAT && !norm_read) {
        emu_say("%s: linear filtering needs float texels: %d-bit integers filter only with "
                "cudaReadModeNormalizedFloat (cudaErrorInvalidValue)",
                who, d->bits);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* Put descriptor @p d in device memory and remember the object; its handle into *handle. */
static cudaError_t publish(struct tex_desc *d, const struct cudaResourceDesc *r,
                           const struct cudaTextureDesc *t, unsigned long long *handle,
                           const char *who)
{
    void *p;
    cudaError_t err = rt_malloc_at(&p, sizeof *d, NULL); /* no leak to report: CUDA's bookkeeping */
    if (err != cudaSuccess)
        return err;
    d->self = (uint64_t)(uintptr_t)p;
    rt_lock();
    void *at = rt.remote ? NULL : rt_host(p, sizeof *d, who);
    if (at)
        memcpy(at, d, sizeof *d);
    else if (rt.remote)
        rt_remote_write(p, d, sizeof *d);
    rt_unlock();
    struct rt_object *o = emu_calloc(1, sizeof *o);
    *o = (struct rt_object){.handle = d->self, .magic = d->magic, .res = *r};
    if (t)
        o->tex = *t;
    pthread_mutex_lock(&objects_lock);
    o->next = objects;
    objects = o;
    pthread_mutex_unlock(&objects_lock);
    *handle = d->self;
    return cudaSuccess;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                    const struct cudaResourceDesc *pResDesc,
                                    const struct cudaTextureDesc *pTexDesc,
                                    const struct cudaResourceViewDesc *pResViewDesc)
{
    const char *who = "cudaCreateTextureObject";
    if (!pTexObject || !pResDesc || !pTexDesc)
        return rt_error(cudaErrorInvalidValue);
    if (pResViewDesc && pResViewDesc->format != cudaResViewFormatNone) {
        emu_say("%s: resource views are not emulated (cudaErrorNotSupported)", who);
        return rt_error(cudaErrorNotSupported);
    }
    struct tex_desc d = {.magic = TEX_MAGIC};
    cudaError_t err = resource(pResDesc, 0, who, &d);
    if (err == cudaSuccess)
        err = sampling(pTexDesc, who, &d);
    if (err == cudaSuccess)
        err = publish(&d, pResDesc, pTexDesc, pTexObject, who);
    return rt_error(err);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                    const struct cudaResourceDesc *pResDesc)
{
    const char *who = "cudaCreateSurfaceObject";
    if (!pSurfObject || !pResDesc)
        return rt_error(cudaErrorInvalidValue);
    struct tex_desc d = {.magic = SURF_MAGIC};
    cudaError_t err = resource(pResDesc, 1, who, &d);
    if (err == cudaSuccess)
        err = publish(&d, pResDesc, NULL, pSurfObject, who);
    return rt_error(err);
}

/* The live object @p h of kind @p magic (removed from the list when @p take), or NULL after
 * one line. */
static struct rt_object *object_of(uint64_t h, uint32_t magic, int take, const char *who)
{
    pthread_mutex_lock(&objects_lock);
    struct rt_object **p = &objects;
    while (*p && ((*p)->handle != h || (*p)->magic != magic))
        p = &(*p)->next;
    struct rt_object *o = *p;
    if (o && take)
        *p = o->next;
    pthread_mutex_unlock(&objects_lock);
    if (!o)
        emu_say("%s: 0x%llx is not a live %s object (cudaErrorInvalidValue)", who,
                (unsigned long long)h, magic == TEX_MAGIC ? "texture" : "surface");
    return o;
}

/* Destroy object @p h: its descriptor is freed once queued work has run. */
static cudaError_t destroy(uint64_t h, uint32_t magic, const char *who)
{
    if (!h)
        return cudaSuccess;
    struct rt_object *o = object_of(h, magic, 1, who);
    if (!o)
        return rt_error(cudaErrorInvalidValue);
    free(o);
    return cudaFree((void *)(uintptr_t)h);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    return destroy(texObject, TEX_MAGIC, "cudaDestroyTextureObject");
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    return destroy(surfObject, SURF_MAGIC, "cudaDestroySurfaceObject");
}

/* What live object @p h of kind @p magic was made from: its resource into @p res, its texture
 * description into @p tex (either may be NULL when not asked). */
static cudaError_t made_from(uint64_t h, uint32_t magic, struct cudaResourceDesc *res,
                             struct cudaTextureDesc *tex, const char *who)
{
    struct rt_object *o = object_of(h, magic, 0, who);
    if (!o || (!res && !tex))
        return rt_error(cudaErrorInvalidValue);
    if (res)
        *res = o->res;
    if (tex)
        *tex = o->tex;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                             cudaTextureObject_t texObject)
{
    return made_from(texObject, TEX_MAGIC, pResDesc, NULL, "cudaGetTextureObjectResourceDesc");
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                            cudaTextureObject_t texObject)
{
    return made_from(texObject, TEX_MAGIC, NULL, pTexDesc, "cudaGetTextureObjectTextureDesc");
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                             cudaSurfaceObject_t surfObject)
{
    return made_from(surfObject, SURF_MAGIC, pResDesc, NULL, "cudaGetSurfaceObjectResourceDesc");
}
