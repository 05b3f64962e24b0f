/**
 * @file drv_array.c
 * @brief The driver stand-in: CUDA arrays, 2D and 3D copies, texture and surface objects,
 *        through the runtime's.
 *
 * A CUarray is the runtime's cudaArray_t and a CUtexObject a cudaTextureObject_t, so a program
 * may make an array with either API and sample it with either. Each call converts the driver's
 * structs field by field: an array format (CU_AD_FORMAT_*) and channel count become a channel
 * descriptor; a copy's byte offsets into an array become the runtime's element positions; a
 * texture's CU_TRSF_* flags become its read mode and normalised coordinates. What the runtime
 * has no counterpart for (formats other than 8, 16 and 32-bit integers, half and float; an
 * array offset or width that is not whole elements) is refused in one line.
 */
#include <stdint.h>
#include <string.h>

#include "drv.h"

#define DPTR(p) ((void *)(uintptr_t)(p))

/* --- formats ------------------------------------------------------------------------------ */

/* The channel descriptor of @p n channels of format @p f; -1 after one line when the runtime
 * has none. */
static int channel_desc(CUarray_format f, unsigned n, const char *who,
                        struct cudaChannelFormatDesc *d)
{
    int bits = 0;
    enum cudaChannelFormatKind kind = cudaChannelFormatKindNone;
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
        bits = 8, kind = cudaChannelFormatKindUnsigned;
        break;
    case CU_AD_FORMAT_UNSIGNED_INT16:
        bits = 16, kind = cudaChannelFormatKindUnsigned;
        break;
    case CU_AD_FORMAT_UNSIGNED_INT32:
        bits = 32, kind = cudaChannelFormatKindUnsigned;
        break;
    case CU_AD_FORMAT_SIGNED_INT8:
        bits = 8, kind = cudaChannelFormatKindSigned;
        break;
    case CU_AD_FORMAT_SIGNED_INT16:
        bits = 16, kind = cudaChannelFormatKindSigned;
        break;
    case CU_AD_FORMAT_SIGNED_INT32:
        bits = 32, kind = cudaChannelFormatKindSigned;
        break;
    case CU_AD_FORMAT_HALF:
        bits = 16, kind = cudaChannelFormatKindFloat;
        break;
    case CU_AD_FORMAT_FLOAT:
        bits = 32, kind = cudaChannelFormatKindFloat;
        break;
    default:
        break;
    }
    if (!bits || (n != 1 && n != 2 && n != 4)) {
        emu_say("%s: array format 0x%x with %u channels is not emulated (CUDA_ERROR_INVALID_VALUE)",
                who, (unsigned)f, n);
        return -1;
    }
    *d = (struct cudaChannelFormatDesc){bits, n > 1 ? bits : 0, n > 2 ? bits : 0, n > 2 ? bits : 0,
                                        kind};
    return 0;
}

/* The driver's format of channel descriptor @p d (which the runtime made, so it is one of
 * channel_desc's); its channel count into *n. */
static CUarray_format format_of(const struct cudaChannelFormatDesc *d, unsigned *n)
{
    *n = 1 + (d->y != 0) + 2 * (d->z != 0);
    if (d->f == cudaChannelFormatKindFloat)
        return d->x == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
    int s = d->f == cudaChannelFormatKindSigned;
    return d->x == 8    ? (s ? CU_AD_FORMAT_SIGNED_INT8 : CU_AD_FORMAT_UNSIGNED_INT8)
           : d->x == 16 ? (s ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT16)
                        : (s ? CU_AD_FORMAT_SIGNED_INT32 : CU_AD_FORMAT_UNSIGNED_INT32);
}

/* --- arrays ------------------------------------------------------------------------------- */

/* CUDA_ARRAY3D_* flags are cudaArray*'s numbers (layered, surface load/store, cubemap,
 * texture gather). */
/* CUDA_ERROR_INVALID_VALUE after one line saying @p why, where @p who is ready. */
static CUresult refuse(const char *who, const char *why)
{
    CUresult r = drv_ready(who);
    if (r != CUDA_SUCCESS)
        return r;
    emu_say("%s: %s (CUDA_ERROR_INVALID_VALUE)", who, why);
    return CUDA_ERROR_INVALID_VALUE;
}

static CUresult array_create(CUarray *h, const CUDA_ARRAY3D_DESCRIPTOR *p, const char *who)
{
    struct cudaChannelFormatDesc d;
    if (!h || !p || !p->Width)
        return refuse(who, !h ? "no place for the handle" : !p ? "no descriptor" : "a width of 0");
    CUresult r = drv_ready(who);
    if (r == CUDA_SUCCESS && channel_desc(p->Format, p->NumChannels, who, &d))
        r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaMalloc3DArray(
            (cudaArray_t *)h, &d, (struct cudaExtent){p->Width, p->Height, p->Depth}, p->Flags));
    return r;
}

CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *p)
{
    CUDA_ARRAY3D_DESCRIPTOR d3 = {0};
    if (p)
        d3 = (CUDA_ARRAY3D_DESCRIPTOR){.Width = p->Width,
                                       .Height = p->Height,
                                       .Format = p->Format,
                                       .NumChannels = p->NumChannels};
    return array_create(pHandle, p ? &d3 : NULL, "cuArrayCreate");
}

CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *p)
{
    return array_create(pHandle, p, "cuArray3DCreate");
}

CUresult cuArrayDestroy(CUarray hArray)
{
    DRV_FORWARD("cuArrayDestroy", cudaFreeArray((cudaArray_t)hArray));
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *p, CUarray hArray)
{
    struct cudaChannelFormatDesc d;
    struct cudaExtent e;
    unsigned flags = 0, n;
    if (!p)
        return refuse("cuArray3DGetDescriptor", "no place for the descriptor");
    CUresult r = drv_ready("cuArray3DGetDescriptor");
    if (r == CUDA_SUCCESS)
        r = drv_result(cudaArrayGetInfo(&d, &e, &flags, (cudaArray_t)hArray));
    if (r == CUDA_SUCCESS)
        *p = (CUDA_ARRAY3D_DESCRIPTOR){.Width = e.width,
                                       .Height = e.height,
                                       .Depth = e.depth,
                                       .Format = format_of(&d, &n),
                                       .NumChannels = n,
                                       .Flags = flags};
    return r;
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *p, CUarray hArray)
{
    CUDA_ARRAY3D_DESCRIPTOR d3;
    if (!p)
        return refuse("cuArrayGetDescriptor", "no place for the descriptor");
    CUresult r = cuArray3DGetDescriptor_v2(&d3, hArray);
    if (r == CUDA_SUCCESS)
        *p = (CUDA_ARRAY_DESCRIPTOR){.Width = d3.Width,
                                     .Height = d3.Height,
                                     .Format = d3.Format,
                                     .NumChannels = d3.NumChannels};
    return r;
}

/* --- 2D and 3D copies --------------------------------------------------------------------- */

/* One side of a driver copy, in the driver's words. */
struct drv_side {
    CUmemorytype type;
    size_t x, y, z; /* x in bytes */
    const void *host;
    CUdeviceptr dev;
    CUarray array;
    size_t pitch, height;
};

/* Side @p s as a runtime array or pitched pointer and position; its bytes per element (1 for
 * memory) into *elem. -1 after one line. */
static int side_parms(const struct drv_side *s, const char *who, cudaArray_t *array,
                      struct cudaPitchedPtr *ptr, struct cudaPos *pos, size_t *elem)
{
    *elem = 1;
    if (s->type == CU_MEMORYTYPE_ARRAY) {
        struct cudaChannelFormatDesc d;
        if (cudaArrayGetInfo(&d, NULL, NULL, (cudaArray_t)s->array) != cudaSuccess)
            return -1;
        *elem = (size_t)(d.x + d.y + d.z + d.w) / 8;
        *array = (cudaArray_t)s->array;
    } else if (s->type == CU_MEMORYTYPE_HOST) {
        *ptr = (struct cudaPitchedPtr){(void *)s->host, s->pitch, 0, s->height};
    } else if (s->type == CU_MEMORYTYPE_DEVICE || s->type == CU_MEMORYTYPE_UNIFIED) {
        *ptr = (struct cudaPitchedPtr){DPTR(s->dev), s->pitch, 0, s->height};
    } else {
        emu_say("%s: memory type %d is not a CUmemorytype (CUDA_ERROR_INVALID_VALUE)", who,
                (int)s->type);
        return -1;
    }
    if (s->x % *elem) {
        emu_say("%s: array offset %zu bytes is not whole %zu-byte elements "
                "(CUDA_ERROR_INVALID_VALUE)",
                who, s->x, *elem);
        return -1;
    }
    *pos = (struct cudaPos){s->x / *elem, s->y, s->z};
    return 0;
}

/* The runtime's direction for a copy between memory types @p d and @p s (arrays are device
 * memory; unified memory lets the runtime tell). */
static enum cudaMemcpyKind copy_kind(CUmemorytype d, CUmemorytype s)
{
    if (d == CU_MEMORYTYPE_UNIFIED || s == CU_MEMORYTYPE_UNIFIED)
        return cudaMemcpyDefault;
    int dh = d == CU_MEMORYTYPE_HOST, sh = s == CU_MEMORYTYPE_HOST;
    return dh ? (sh ? cudaMemcpyHostToHost : cudaMemcpyDeviceToHost)
              : (sh ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice);
}

/* Every cuMemcpy2D and 3D: @p width bytes by @p height rows by @p depth slices from @p src to
 * @p dst, synchronous (@p sync) or on @p stream. */
/* The runtime's parameters of a copy of @p width bytes by @p height rows by @p depth slices from
 * @p src to @p dst into *@p p; -1 after one line for @p who when they cannot be. */
static int box_parms(const struct drv_side *dst, const struct drv_side *src, size_t width,
                     size_t height, size_t depth, const char *who, struct cudaMemcpy3DParms *p)
{
    size_t de, se;
    *p = (struct cudaMemcpy3DParms){0};
    if (side_parms(dst, who, &p->dstArray, &p->dstPtr, &p->dstPos, &de) ||
        side_parms(src, who, &p->srcArray, &p->srcPtr, &p->srcPos, &se))
        return -1;
    size_t elem = p->srcArray ? se : de;
    if (width % elem) {
        emu_say("%s: a width of %zu bytes is not whole %zu-byte array elements "
                "(CUDA_ERROR_INVALID_VALUE)",
                who, width, elem);
        return -1;
    }
    p->extent =
        (struct cudaExtent){p->srcArray || p->dstArray ? width / elem : width, height, depth};
    p->kind = copy_kind(dst->type, src->type);
    return 0;
}

static CUresult copy_box(const struct drv_side *dst, const struct drv_side *src, size_t width,
                         size_t height, size_t depth, int sync, CUstream stream, int per_thread,
                         const char *who)
{
    struct cudaMemcpy3DParms p;
    if (box_parms(dst, src, width, height, depth, who, &p))
        return CUDA_ERROR_INVALID_VALUE;
    if (sync && !per_thread)
        return drv_result(cudaMemcpy3D(&p));
    cudaStream_t s = drv_stream(stream, per_thread);
    cudaError_t err = cudaMemcpy3DAsync(&p, s);
    return drv_result(err == cudaSuccess && sync ? cudaStreamSynchronize(s) : err);
}

static CUresult copy_2d(const CUDA_MEMCPY2D *c, int sync, CUstream stream, int per_thread,
                        const char *who)
{
    if (!c)
        return refuse(who, "no copy parameters");
    struct drv_side d = {c->dstMemoryType, c->dstXInBytes, c->dstY,     0,        c->dstHost,
                         c->dstDevice,     c->dstArray,    c->dstPitch, c->Height};
    struct drv_side s = {c->srcMemoryType, c->srcXInBytes, c->srcY,     0,        c->srcHost,
                         c->srcDevice,     c->srcArray,    c->srcPitch, c->Height};
    return copy_box(&d, &s, c->WidthInBytes, c->Height, 1, sync, stream, per_thread, who);
}

/* The two sides of 3D copy @p c. */
static void sides_3d(const CUDA_MEMCPY3D *c, struct drv_side *d, struct drv_side *s)
{
    *d = (struct drv_side){c->dstMemoryType, c->dstXInBytes, c->dstY,     c->dstZ,     c->dstHost,
                           c->dstDevice,     c->dstArray,    c->dstPitch, c->dstHeight};
    *s = (struct drv_side){c->srcMemoryType, c->srcXInBytes, c->srcY,     c->srcZ,     c->srcHost,
                           c->srcDevice,     c->srcArray,    c->srcPitch, c->srcHeight};
}

static CUresult copy_3d(const CUDA_MEMCPY3D *c, int sync, CUstream stream, int per_thread,
                        const char *who)
{
    if (!c)
        return refuse(who, "no copy parameters");
    struct drv_side d, s;
    sides_3d(c, &d, &s);
    return copy_box(&d, &s, c->WidthInBytes, c->Height, c->Depth, sync, stream, per_thread, who);
}

CUresult drv_copy_parms(const CUDA_MEMCPY3D *c, struct cudaMemcpy3DParms *p, const char *who)
{
    if (!c)
        return refuse(who, "no copy parameters");
    struct drv_side d, s;
    sides_3d(c, &d, &s);
    return box_parms(&d, &s, c->WidthInBytes, c->Height, c->Depth, who, p)
               ? CUDA_ERROR_INVALID_VALUE
               : CUDA_SUCCESS;
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy)
{
    return copy_2d(pCopy, 1, 0, 0, "cuMemcpy2D");
}

CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy)
{
    return copy_2d(pCopy, 1, 0, 1, "cuMemcpy2D");
}

CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy)
{
    return copy_2d(pCopy, 1, 0, 0, "cuMemcpy2DUnaligned");
}

CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *pCopy)
{
    return copy_2d(pCopy, 1, 0, 1, "cuMemcpy2DUnaligned");
}

CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
    return copy_2d(pCopy, 0, hStream, 0, "cuMemcpy2DAsync");
}

CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
    return copy_2d(pCopy, 0, hStream, 1, "cuMemcpy2DAsync");
}

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy)
{
    return copy_3d(pCopy, 1, 0, 0, "cuMemcpy3D");
}

CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy)
{
    return copy_3d(pCopy, 1, 0, 1, "cuMemcpy3D");
}

CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    return copy_3d(pCopy, 0, hStream, 0, "cuMemcpy3DAsync");
}

CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    return copy_3d(pCopy, 0, hStream, 1, "cuMemcpy3DAsync");
}

/* --- texture and surface objects ---------------------------------------------------------- */

/* Resource @p r in the runtime's words (CU_RESOURCE_TYPE_* are cudaResourceType*'s numbers);
 * -1 after one line. */
static int resource_desc(const CUDA_RESOURCE_DESC *r, const char *who, struct cudaResourceDesc *o)
{
    memset(o, 0, sizeof *o);
    o->resType = (enum cudaResourceType)r->resType;
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY:
        o->res.array.array = (cudaArray_t)r->res.array.hArray;
        return 0;
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        o->res.mipmap.mipmap = (cudaMipmappedArray_t)r->res.mipmap.hMipmappedArray;
        return 0;
    case CU_RESOURCE_TYPE_LINEAR:
        o->res.linear.devPtr = DPTR(r->res.linear.devPtr);
        o->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
        return channel_desc(r->res.linear.format, r->res.linear.numChannels, who,
                            &o->res.linear.desc);
    case CU_RESOURCE_TYPE_PITCH2D:
        o->res.pitch2D.devPtr = DPTR(r->res.pitch2D.devPtr);
        o->res.pitch2D.width = r->res.pitch2D.width;
        o->res.pitch2D.height = r->res.pitch2D.height;
        o->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
        return channel_desc(r->res.pitch2D.format, r->res.pitch2D.numChannels, who,
                            &o->res.pitch2D.desc);
    default:
        emu_say("%s: resource type %d is not a CUresourcetype (CUDA_ERROR_INVALID_VALUE)", who,
                (int)r->resType);
        return -1;
    }
}

/* Sampling @p t in the runtime's words: CU_TR_ADDRESS_MODE_* and CU_TR_FILTER_MODE_* are the
 * runtime's numbers; without CU_TRSF_READ_AS_INTEGER integer texels read as normalised floats. */
static struct cudaTextureDesc texture_desc(const CUDA_TEXTURE_DESC *t)
{
    struct cudaTextureDesc o = {0};
    for (int i = 0; i < 3; i++)
        o.addressMode[i] = (enum cudaTextureAddressMode)t->addressMode[i];
    o.filterMode = (enum cudaTextureFilterMode)t->filterMode;
    o.readMode =
        t->flags & CU_TRSF_READ_AS_INTEGER ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
    o.sRGB = !!(t->flags & CU_TRSF_SRGB);
    memcpy(o.borderColor, t->borderColor, sizeof o.borderColor);
    o.normalizedCoords = !!(t->flags & CU_TRSF_NORMALIZED_COORDINATES);
    o.maxAnisotropy = t->maxAnisotropy;
    o.mipmapFilterMode = (enum cudaTextureFilterMode)t->mipmapFilterMode;
    o.mipmapLevelBias = t->mipmapLevelBias;
    o.minMipmapLevelClamp = t->minMipmapLevelClamp;
    o.maxMipmapLevelClamp = t->maxMipmapLevelClamp;
    o.disableTrilinearOptimization = !!(t->flags & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION);
    o.seamlessCubemap = !!(t->flags & CU_TRSF_SEAMLESS_CUBEMAP);
    return o;
}

/* Resource @p o (the runtime's, which resource_desc made) in the driver's words. */
static CUDA_RESOURCE_DESC driver_resource(const struct cudaResourceDesc *o)
{
    CUDA_RESOURCE_DESC r;
    memset(&r, 0, sizeof r);
    r.resType = (CUresourcetype)o->resType;
    switch (o->resType) {
    case cudaResourceTypeArray:
        r.res.array.hArray = (CUarray)o->res.array.array;
        break;
    case cudaResourceTypeMipmappedArray:
        r.res.mipmap.hMipmappedArray = (CUmipmappedArray)o->res.mipmap.mipmap;
        break;
    case cudaResourceTypeLinear:
        r.res.linear.devPtr = (CUdeviceptr)(uintptr_t)o->res.linear.devPtr;
        r.res.linear.format = format_of(&o->res.linear.desc, &r.res.linear.numChannels);
        r.res.linear.sizeInBytes = o->res.linear.sizeInBytes;
        break;
    case cudaResourceTypePitch2D:
        r.res.pitch2D.devPtr = (CUdeviceptr)(uintptr_t)o->res.pitch2D.devPtr;
        r.res.pitch2D.format = format_of(&o->res.pitch2D.desc, &r.res.pitch2D.numChannels);
        r.res.pitch2D.width = o->res.pitch2D.width;
        r.res.pitch2D.height = o->res.pitch2D.height;
        r.res.pitch2D.pitchInBytes = o->res.pitch2D.pitchInBytes;
        break;
    }
    return r;
}

/* Sampling @p o (the runtime's, which texture_desc made) in the driver's words. */
static CUDA_TEXTURE_DESC driver_texture(const struct cudaTextureDesc *o)
{
    CUDA_TEXTURE_DESC t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < 3; i++)
        t.addressMode[i] = (CUaddress_mode)o->addressMode[i];
    t.filterMode = (CUfilter_mode)o->filterMode;
    t.flags = (o->readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
              (o->sRGB ? CU_TRSF_SRGB : 0) |
              (o->normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
              (o->disableTrilinearOptimization ? CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION : 0) |
              (o->seamlessCubemap ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
    memcpy(t.borderColor, o->borderColor, sizeof t.borderColor);
    t.maxAnisotropy = o->maxAnisotropy;
    t.mipmapFilterMode = (CUfilter_mode)o->mipmapFilterMode;
    t.mipmapLevelBias = o->mipmapLevelBias;
    t.minMipmapLevelClamp = o->minMipmapLevelClamp;
    t.maxMipmapLevelClamp = o->maxMipmapLevelClamp;
    return t;
}

CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                           const CUDA_TEXTURE_DESC *pTexDesc,
                           const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
    const char *who = "cuTexObjectCreate";
    struct cudaResourceDesc r;
    if (!pTexObject || !pResDesc || !pTexDesc)
        return refuse(who, "a NULL handle, resource or texture descriptor");
    CUresult res = drv_ready(who);
    if (res == CUDA_SUCCESS && resource_desc(pResDesc, who, &r))
        res = CUDA_ERROR_INVALID_VALUE;
    if (res != CUDA_SUCCESS)
        return res;
    struct cudaTextureDesc t = texture_desc(pTexDesc);
    struct cudaResourceViewDesc v = {0}, *view = NULL;
    if (pResViewDesc) {
        v.format = (enum cudaResourceViewFormat)pResViewDesc->format;
        v.width = pResViewDesc->width, v.height = pResViewDesc->height;
        v.depth = pResViewDesc->depth;
        v.firstMipmapLevel = pResViewDesc->firstMipmapLevel;
        v.lastMipmapLevel = pResViewDesc->lastMipmapLevel;
        v.firstLayer = pResViewDesc->firstLayer, v.lastLayer = pResViewDesc->lastLayer;
        view = &v;
    }
    return drv_result(cudaCreateTextureObject(pTexObject, &r, &t, view));
}

CUresult cuTexObjectDestroy(CUtexObject texObject)
{
    DRV_FORWARD("cuTexObjectDestroy", cudaDestroyTextureObject(texObject));
}

CUresult cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc)
{
    const char *who = "cuSurfObjectCreate";
    struct cudaResourceDesc r;
    if (!pSurfObject || !pResDesc)
        return refuse(who, "a NULL handle or resource descriptor");
    CUresult res = drv_ready(who);
    if (res == CUDA_SUCCESS && resource_desc(pResDesc, who, &r))
        res = CUDA_ERROR_INVALID_VALUE;
    return res == CUDA_SUCCESS ? drv_result(cudaCreateSurfaceObject(pSurfObject, &r)) : res;
}

CUresult cuSurfObjectDestroy(CUsurfObject surfObject)
{
    DRV_FORWARD("cuSurfObjectDestroy", cudaDestroySurfaceObject(surfObject));
}

/* The resource live object @p h was made from, asked of the runtime's @p get, into *@p out in
 * the driver's words (with @p out NULL, only whether @p h is live). */
static CUresult resource_of(CUDA_RESOURCE_DESC *out,
                            cudaError_t (*get)(struct cudaResourceDesc *, unsigned long long),
                            unsigned long long h, const char *who)
{
    struct cudaResourceDesc r;
    CUresult res = drv_ready(who);
    if (res == CUDA_SUCCESS)
        res = drv_result(get(&r, h));
    if (res == CUDA_SUCCESS && out)
        *out = driver_resource(&r);
    return res;
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject)
{
    const char *who = "cuTexObjectGetResourceDesc";
    return !pResDesc ? refuse(who, "no place for the descriptor")
                     : resource_of(pResDesc, cudaGetTextureObjectResourceDesc, texObject, who);
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject)
{
    struct cudaTextureDesc t;
    if (!pTexDesc)
        return refuse("cuTexObjectGetTextureDesc", "no place for the descriptor");
    CUresult res = drv_ready("cuTexObjectGetTextureDesc");
    if (res == CUDA_SUCCESS)
        res = drv_result(cudaGetTextureObjectTextureDesc(&t, texObject));
    if (res == CUDA_SUCCESS)
        *pTexDesc = driver_texture(&t);
    return res;
}

/* No object has a view (cuTexObjectCreate refuses one with a format, as the runtime does): a
 * live object's view is CU_RES_VIEW_FORMAT_NONE, all zeros. */
CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *pResViewDesc,
                                        CUtexObject texObject)
{
    const char *who = "cuTexObjectGetResourceViewDesc";
    if (!pResViewDesc)
        return refuse(who, "no place for the descriptor");
    CUresult res = resource_of(NULL, cudaGetTextureObjectResourceDesc, texObject, who);
    if (res == CUDA_SUCCESS)
        memset(pResViewDesc, 0, sizeof *pResViewDesc);
    return res;
}

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUsurfObject surfObject)
{
    const char *who = "cuSurfObjectGetResourceDesc";
    return !pResDesc ? refuse(who, "no place for the descriptor")
                     : resource_of(pResDesc, cudaGetSurfaceObjectResourceDesc, surfObject, who);
}
