/**
 * @file course_runner.c
 * @brief The runner: a lesson side's code, executing a judge's requests in a process of its own.
 *
 * Built once per lesson side as runner_NN_<side>, linked with the whole lesson library and the
 * reference library, its symbols exported so that dlsym() finds every launcher by name. The
 * judge (test_NN_<side>) starts it with requests on fd COURSE_PROTO_IN and replies on fd
 * COURSE_PROTO_OUT (course_proto.h); stdout and stderr are the student's. It holds buffers,
 * calls functions with arguments marshalled by libffi, synchronises, and answers. Nothing it
 * says is trusted: the judge validates every reply, and decides every verdict.
 *
 * The runner reaches the CUDA runtime through handles it resolves itself in the runtime's own
 * library (COURSE_CUDART, dlopen), never through names the lesson's code could define; the
 * judge also refuses a lesson library that defines runtime names (course_runtime_symbols()).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ffi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "course_proto.h"
#include "mat.h"
#include "timer.h"

#ifndef COURSE_CUDART
/** The CUDA runtime's library, as the runner was linked with it (CMake defines it). */
#define COURSE_CUDART "libcudart.so.13"
#endif

/* The runtime functions the runner calls, from the runtime's own library (resolve_runtime()). */
static struct {
    cudaError_t (*malloc)(void **, size_t);
    cudaError_t (*free)(void *);
    cudaError_t (*memcpy)(void *, const void *, size_t, enum cudaMemcpyKind);
    cudaError_t (*synchronize)(void);
    cudaError_t (*last_error)(void);
    const char *(*error_name)(cudaError_t);
    const char *(*error_string)(cudaError_t);
} cuda;

/* Resolve the runtime's functions in its own library, or exit naming the one missing. */
static void resolve_runtime(void)
{
    void *lib = dlopen(COURSE_CUDART, RTLD_NOW | RTLD_LOCAL);
    struct {
        const char *name;
        void **at;
    } want[] = {{"cudaMalloc", (void **)&cuda.malloc},
                {"cudaFree", (void **)&cuda.free},
                {"cudaMemcpy", (void **)&cuda.memcpy},
                {"cudaDeviceSynchronize", (void **)&cuda.synchronize},
                {"cudaGetLastError", (void **)&cuda.last_error},
                {"cudaGetErrorName", (void **)&cuda.error_name},
                {"cudaGetErrorString", (void **)&cuda.error_string}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        *want[i].at = lib ? dlsym(lib, want[i].name) : NULL;
        if (!*want[i].at) {
            fprintf(stderr, "course_runner: %s has no %s (%s)\n", COURSE_CUDART, want[i].name,
                    dlerror());
            exit(2);
        }
    }
}

/* A runtime call through the runner's own handles; on an error, one line and exit. */
#define RUNTIME(call)                                                                              \
    do {                                                                                           \
        cudaError_t err_ = cuda.call;                                                              \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,              \
                    cuda.error_name(err_), cuda.error_string(err_));                               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* A buffer: the allocation (host, or device) and where its data starts. */
struct buf {
    unsigned char *base;
    size_t total, data_at, bytes;
    uint32_t mem;
    int live;
};

static struct buf bufs[COURSE_PROTO_BUFS];

/* Read exactly @p n bytes of a request, or exit: the judge has gone. */
static void read_all(void *p, size_t n)
{
    for (unsigned char *at = p; n > 0;) {
        ssize_t got = read(COURSE_PROTO_IN, at, n);
        if (got <= 0 && !(got < 0 && errno == EINTR))
            _exit(3);
        if (got > 0) {
            at += got;
            n -= (size_t)got;
        }
    }
}

static void write_all(const void *p, size_t n)
{
    for (const unsigned char *at = p; n > 0;) {
        ssize_t put = write(COURSE_PROTO_OUT, at, n);
        if (put <= 0 && !(put < 0 && errno == EINTR))
            _exit(3);
        if (put > 0) {
            at += put;
            n -= (size_t)put;
        }
    }
}

static void send_reply(const struct proto_reply *r)
{
    struct proto_head h = {COURSE_PROTO_MAGIC, PROTO_REPLY, sizeof *r};
    write_all(&h, sizeof h);
    write_all(r, sizeof *r);
}

/* Refuse the request with a reason. */
static void refuse(const char *fmt, ...)
{
    struct proto_reply r = {0};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.what, sizeof r.what, fmt, ap);
    va_end(ap);
    send_reply(&r);
}

static void send_ok(void)
{
    struct proto_reply r = {0};
    r.ok = 1;
    send_reply(&r);
}

/* The live buffer @p id, or NULL. */
static struct buf *find(uint32_t id)
{
    return id < COURSE_PROTO_BUFS && bufs[id].live ? &bufs[id] : NULL;
}

static void buf_new(const struct proto_buf_new *q)
{
    if (q->id >= COURSE_PROTO_BUFS || bufs[q->id].live || q->mem > PROTO_DEVICE ||
        q->fill > PROTO_FILL_NONE || (q->fill == PROTO_FILL_NONE && q->mem != PROTO_DEVICE) ||
        q->guard % 256 || q->guard > (1ull << 32) || q->offset > 4096 || q->bytes > (1ull << 40)) {
        if (q->fill == PROTO_FILL_BYTES)
            _exit(3); /* the data that follows cannot be skipped safely */
        refuse("bad buffer request (id %u)", q->id);
        return;
    }
    struct buf *b = &bufs[q->id];
    b->data_at = q->guard + q->offset;
    b->bytes = q->bytes;
    b->total = (b->data_at + q->bytes + q->guard + 255) / 256 * 256;
    b->mem = q->mem;
    if (q->fill == PROTO_FILL_NONE) { /* the judge writes it, on the device it observes */
        RUNTIME(malloc((void **)&b->base, b->total));
        b->live = 1;
        struct proto_reply r = {.ok = 1, .i = (int64_t)(uintptr_t)b->base};
        send_reply(&r);
        return;
    }
    /* The whole image is made on the host, then copied to the device when it lives there. */
    unsigned char *img = aligned_alloc(256, b->total);
    if (!img) {
        fprintf(stderr, "course_runner: cannot allocate %zu bytes\n", b->total);
        exit(1);
    }
    memset(img, (int)(q->guard_byte & 0xFF), b->total);
    unsigned char *data = img + b->data_at;
    if (q->fill == PROTO_FILL_BYTES)
        read_all(data, q->bytes);
    else if (q->fill == PROTO_FILL_INT)
        mat_fill_int((float *)data, q->bytes / sizeof(float), q->seed);
    else
        memset(data, q->fill == PROTO_FILL_POISON ? 0xFF : 0, q->bytes);
    if (q->mem == PROTO_DEVICE) {
        RUNTIME(malloc((void **)&b->base, b->total));
        RUNTIME(memcpy(b->base, img, b->total, cudaMemcpyHostToDevice));
        free(img);
    } else {
        b->base = img;
    }
    b->live = 1;
    struct proto_reply r = {0};
    r.ok = 1;
    r.i = (int64_t)(uintptr_t)b->base; /* the judge's provenance queries name it */
    send_reply(&r);
}

static void buf_reloc(const struct proto_reloc *q)
{
    struct buf *b = find(q->buf), *t = find(q->target);
    if (!b || !t || q->at % 8 || q->at > b->bytes || b->bytes - q->at < 8 || q->off > t->bytes) {
        refuse("bad relocation");
        return;
    }
    void *addr = t->base + t->data_at + q->off;
    if (b->mem == PROTO_DEVICE)
        RUNTIME(memcpy(b->base + b->data_at + q->at, &addr, sizeof addr, cudaMemcpyHostToDevice));
    else
        memcpy(b->base + b->data_at + q->at, &addr, sizeof addr);
    send_ok();
}

static void buf_read(uint32_t id)
{
    struct buf *b = find(id);
    if (!b) {
        struct proto_head h = {COURSE_PROTO_MAGIC, PROTO_REPLY, 0};
        write_all(&h, sizeof h);
        return;
    }
    unsigned char *img = b->base;
    if (b->mem == PROTO_DEVICE) {
        img = mat_alloc(b->total);
        RUNTIME(memcpy(img, b->base, b->total, cudaMemcpyDeviceToHost));
    }
    struct proto_head h = {COURSE_PROTO_MAGIC, PROTO_REPLY, b->total};
    write_all(&h, sizeof h);
    write_all(img, b->total);
    if (img != b->base)
        free(img);
}

static void buf_free(uint32_t id)
{
    struct buf *b = find(id);
    if (!b) {
        refuse("no buffer %u", id);
        return;
    }
    if (b->mem == PROTO_DEVICE)
        RUNTIME(free(b->base));
    else
        free(b->base);
    b->live = 0;
    send_ok();
}

/* A call made ready for libffi. */
struct prepared {
    void *fn;
    ffi_cif cif;
    ffi_type *types[COURSE_PROTO_ARGS];
    void *values[COURSE_PROTO_ARGS];
    union {
        int32_t i32;
        int64_t i64;
        uint16_t u16;
        float f32;
        double f64;
        void *ptr;
    } store[COURSE_PROTO_ARGS];
    union {
        ffi_arg a;
        int64_t i64;
        float f32;
        double f64;
    } ret;
    uint32_t ret_kind;
};

static ffi_type *ffi_of(uint32_t kind)
{
    switch (kind) {
    case PROTO_VOID:
        return &ffi_type_void;
    case PROTO_I32:
        return &ffi_type_sint32;
    case PROTO_I64:
        return &ffi_type_sint64;
    case PROTO_U16:
        return &ffi_type_uint16;
    case PROTO_F32:
        return &ffi_type_float;
    case PROTO_F64:
        return &ffi_type_double;
    case PROTO_PTR:
        return &ffi_type_pointer;
    default:
        return NULL;
    }
}

/* Fill @p p from request @p q; 0, or -1 after refusing it. */
static int prepare(struct prepared *p, const struct proto_call *q)
{
    if (!memchr(q->name, '\0', sizeof q->name) || q->nargs > COURSE_PROTO_ARGS || !ffi_of(q->ret) ||
        q->ret == PROTO_PTR) {
        refuse("bad call request");
        return -1;
    }
    p->fn = dlsym(RTLD_DEFAULT, q->name);
    if (!p->fn) {
        refuse("no function named %s in this lesson's library", q->name);
        return -1;
    }
    for (uint32_t a = 0; a < q->nargs; a++) {
        const struct proto_arg *g = &q->args[a];
        p->types[a] = ffi_of(g->kind);
        if (!p->types[a] || g->kind == PROTO_VOID) {
            refuse("bad argument %u", a);
            return -1;
        }
        if (g->kind == PROTO_PTR && g->buf == PROTO_NO_BUF) {
            p->store[a].ptr = NULL;
        } else if (g->kind == PROTO_PTR) {
            struct buf *b = find(g->buf);
            if (!b || g->off > b->bytes) {
                refuse("argument %u names no buffer", a);
                return -1;
            }
            p->store[a].ptr = b->base + b->data_at + g->off;
        } else if (g->kind == PROTO_I32) {
            p->store[a].i32 = (int32_t)g->i;
        } else if (g->kind == PROTO_I64) {
            p->store[a].i64 = g->i;
        } else if (g->kind == PROTO_U16) {
            p->store[a].u16 = (uint16_t)g->i;
        } else if (g->kind == PROTO_F32) {
            p->store[a].f32 = (float)g->f;
        } else {
            p->store[a].f64 = g->f;
        }
        p->values[a] = &p->store[a];
    }
    p->ret_kind = q->ret;
    if (ffi_prep_cif(&p->cif, FFI_DEFAULT_ABI, q->nargs, ffi_of(q->ret), p->types) != FFI_OK) {
        refuse("libffi cannot make this call");
        return -1;
    }
    return 0;
}

static void invoke(void *arg)
{
    struct prepared *p = arg;
    ffi_call(&p->cif, FFI_FN(p->fn), &p->ret, p->values);
}

/* The return value into @p r, widened. */
static void take_return(const struct prepared *p, struct proto_reply *r)
{
    if (p->ret_kind == PROTO_I32)
        r->i = (int32_t)p->ret.a;
    else if (p->ret_kind == PROTO_U16)
        r->i = (uint16_t)p->ret.a;
    else if (p->ret_kind == PROTO_I64)
        r->i = p->ret.i64;
    else if (p->ret_kind == PROTO_F32)
        r->f = p->ret.f32;
    else if (p->ret_kind == PROTO_F64)
        r->f = p->ret.f64;
}

/* After GPU work: wait for it, and report the first error of the call. */
static void sync_into(struct proto_reply *r)
{
    cudaError_t e = cuda.synchronize();
    if (e == cudaSuccess)
        e = cuda.last_error();
    r->cuda = (int32_t)e;
    if (e != cudaSuccess)
        snprintf(r->what, sizeof r->what, "%s (%s)", cuda.error_name(e), cuda.error_string(e));
}

static void call(const struct proto_call *q, int timed)
{
    struct prepared p;
    if (prepare(&p, q))
        return;
    struct proto_reply r = {0};
    r.ok = 1;
    if (timed) {
        struct timer_opts o = {(int)q->warmup, (int)q->reps, q->gpu != 0, 0};
        r.ms = timer_measure(invoke, &p, &o).median_ms;
    } else {
        invoke(&p);
    }
    take_return(&p, &r);
    if (q->sync)
        sync_into(&r);
    send_reply(&r);
}

/* Size of one element of @p kind, for PROTO_MAP. */
static size_t size_of(uint32_t kind)
{
    return kind == PROTO_I32 || kind == PROTO_F32 ? 4 : kind == PROTO_U16 ? 2 : 8;
}

/* out[i] = fn(in[i]) over q->reps elements of two host buffers. */
static void map(const struct proto_call *q)
{
    const struct proto_arg *in = &q->args[0], *out = &q->args[1];
    struct buf *bi = find(in->buf), *bo = find(out->buf);
    size_t n = q->reps;
    if (q->nargs != 2 || !bi || !bo || bi->mem != PROTO_HOST || bo->mem != PROTO_HOST ||
        in->kind == PROTO_PTR || q->ret == PROTO_VOID || bi->bytes / size_of(in->kind) < n ||
        bo->bytes / size_of(q->ret) < n) {
        refuse("bad map request");
        return;
    }
    struct proto_call one = *q;
    one.nargs = 1;
    struct prepared p;
    if (prepare(&p, &one))
        return;
    const unsigned char *src = bi->base + bi->data_at;
    unsigned char *dst = bo->base + bo->data_at;
    for (size_t i = 0; i < n; i++) {
        memcpy(&p.store[0], src + i * size_of(in->kind), size_of(in->kind));
        invoke(&p);
        struct proto_reply r = {0};
        take_return(&p, &r);
        uint16_t u16 = (uint16_t)r.i;
        int32_t i32 = (int32_t)r.i;
        float f32 = (float)r.f;
        const void *v = q->ret == PROTO_U16   ? (const void *)&u16
                        : q->ret == PROTO_I32 ? (const void *)&i32
                        : q->ret == PROTO_F32 ? (const void *)&f32
                        : q->ret == PROTO_I64 ? (const void *)&r.i
                                              : (const void *)&r.f;
        memcpy(dst + i * size_of(q->ret), v, size_of(q->ret));
    }
    send_ok();
}

/* Bytes of the runner's memory at an address the judge read out of a buffer. */
static void peek(const struct proto_peek *q)
{
    if (q->bytes > (1ull << 30))
        _exit(3);
    struct proto_head h = {COURSE_PROTO_MAGIC, PROTO_REPLY, q->bytes};
    write_all(&h, sizeof h);
    write_all((const void *)(uintptr_t)q->addr, q->bytes);
}

/* At quit, free the device buffers left, so that a leak check sees only the student's leaks
 * (errors ignored: a kernel that faulted leaves the device unusable). */
static void free_all(void)
{
    for (uint32_t id = 0; id < COURSE_PROTO_BUFS; id++)
        if (bufs[id].live && bufs[id].mem == PROTO_DEVICE)
            cuda.free(bufs[id].base);
}

/* Read a fixed-size request payload, or exit when its length is not that size. */
static void read_payload(const struct proto_head *h, void *p, size_t size)
{
    if (h->len != size)
        _exit(3);
    read_all(p, size);
}

int main(void)
{
    if (fcntl(COURSE_PROTO_IN, F_GETFD) < 0 || fcntl(COURSE_PROTO_OUT, F_GETFD) < 0) {
        fprintf(stderr, "course_runner: started by a judge only (test_NN_<side>)\n");
        return 2;
    }
    resolve_runtime();
    for (;;) {
        struct proto_head h;
        read_all(&h, sizeof h);
        if (h.magic != COURSE_PROTO_MAGIC)
            _exit(3);
        union {
            struct proto_buf_new bn;
            struct proto_reloc rel;
            struct proto_buf_id id;
            struct proto_call call;
            struct proto_peek peek;
        } q;
        switch (h.op) {
        case PROTO_BUF_NEW:
            if (h.len < sizeof q.bn)
                _exit(3);
            read_all(&q.bn, sizeof q.bn);
            if (h.len != sizeof q.bn + (q.bn.fill == PROTO_FILL_BYTES ? q.bn.bytes : 0))
                _exit(3);
            buf_new(&q.bn);
            break;
        case PROTO_BUF_RELOC:
            read_payload(&h, &q.rel, sizeof q.rel);
            buf_reloc(&q.rel);
            break;
        case PROTO_BUF_READ:
            read_payload(&h, &q.id, sizeof q.id);
            buf_read(q.id.id);
            break;
        case PROTO_BUF_FREE:
            read_payload(&h, &q.id, sizeof q.id);
            buf_free(q.id.id);
            break;
        case PROTO_CALL:
        case PROTO_TIME:
            read_payload(&h, &q.call, sizeof q.call);
            call(&q.call, h.op == PROTO_TIME);
            break;
        case PROTO_MAP:
            read_payload(&h, &q.call, sizeof q.call);
            map(&q.call);
            break;
        case PROTO_PEEK:
            read_payload(&h, &q.peek, sizeof q.peek);
            peek(&q.peek);
            break;
        case PROTO_QUIT:
            free_all();
            return 0;
        default:
            _exit(3);
        }
    }
}
