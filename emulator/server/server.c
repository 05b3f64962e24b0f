/**
 * @file server.c
 * @brief course-emu-device: the emulated GPUs, a process of their own.
 *
 *   course-emu-device --fd N [--observe FD [--memory FD]] [--checks mem,race,sync,init]
 *                     [--report FILE] [--schedule forward|reverse|seed:N]
 *   course-emu-device --self-test
 *
 * Serves one client (the runtime stand-in, libcudart.so.13) on the connected
 * unix socket N, in the protocol of proto.h: it attaches the client's device
 * memory, mirrors its allocation table, loads PTX modules with vm_load() and
 * runs launches with vm_launch(), answering each launch with its status, its
 * one-line message and the kernel's printf output. It exits when the client
 * hangs up, even in the middle of a launch (a watchdog thread sees the hang-up,
 * so a kernel that never ends dies with the test that timed it out).
 *
 * --observe FD: a socket to a grader, which the client never sees. After every
 * launch, one line goes to it:
 *
 *   launch device=0 kernel=NAME grid=X,Y,Z block=X,Y,Z cluster=X,Y,Z smem=BYTES params=BYTES
 *          status=STATUS counted=1 warp_insts=N thread_insts=N fma32=N fp=N int=N ldg=N stg=N
 *          lds=N sts=N tensor=N control=N other=N gld_requests=N gld_sectors=N
 *          gst_requests=N gst_sectors=N lds_requests=N lds_wavefronts=N
 *          sts_requests=N sts_wavefronts=N unique_read_bytes=N
 *          unique_write_bytes=N barriers=N branches=N divergent_branches=N
 *          flops=N gatom_lanes=N satom_lanes=N gatom_same_addr=N
 *          satom_same_addr=N gatom_addrs=N tensor_flops=N lds_conflicts=N sts_conflicts=N
 *          overlapped_flops=N tma_copies=N tma_ld_bytes=N tma_ld_sectors=N
 *          tma_st_sectors=N wgmma_insts=N wgmma_flops=N wgmma_overlapped_flops=N fp64_insts=N
 *          dmma_flops=N sfu_insts=N wgmma_8bit_flops=N reports=N
 *          module=HASH own=0|1
 *
 * (one line, fields separated by single spaces, values without spaces;
 * STATUS is ok, bad_launch, fault, trap, unsupported or deadlock; HASH names the
 * kernel's module by its PTX, and own says whether that PTX is the lesson's own,
 * server_judge.c). Launches are always counted when an observer is attached, and the
 * device memory keeps the provenance record (mem.h: who wrote each byte, and the value it
 * left). The grader sends lines of its own. Each is served once the client's messages
 * already sent are: the grader speaks when the client has answered it and waits for it, so
 * what the client did before is done, and it waits for the answer before it lets the client
 * go.
 *
 *   mark ADDR TOTAL AT BYTES INPUT  the grader's buffer: [ADDR, ADDR + TOTAL) is its data
 *                         (MEM_JUDGE), of which all but [ADDR + AT, ADDR + AT + BYTES) are
 *                         guard bytes (mem_guard); INPUT 1: those bytes are an input
 *                         (MEM_DERIVED), which the host must not read; answered "ok"
 *   begin                 a graded call starts (mem_new_call; the findings reset); "ok"
 *   end                   it returned; "ok". Device work outside begin ... end (a launch,
 *                         a copy, a fill) is kept as a finding until reported
 *   query ADDR BYTES      answered "prov read=N first_other=OFF other_state=S
 *                         first_unread=OFF" (mem_provenance; OFF -1: none;
 *                         all zero and -1 when no block holds the range)
 *   findings              answered by six lines, five "NAME count=N addr=A state=S where=..."
 *                         (WHERE to the line's end) and "totals launches=N params=BYTES
 *                         stores=N": since "begin", the first kernel read of bytes the host
 *                         or nobody wrote or that changed behind the device's back (handed),
 *                         the first access to a guard byte (guard), the first store of what a
 *                         kernel computed from an input into memory the host reaches
 *                         (exposed), the first host read of an input or of what a kernel
 *                         computed from one (hostread); since the last "findings", the first
 *                         device work outside a call (outside)
 *   memory                answered "memory base=ADDR span=BYTES": where the memory of
 *                         --memory sits in the device's address space
 *   own PATH              the lesson's own PTX is the fat binaries in program PATH; answered
 *                         "own texts=N"
 *
 * --memory FD: a memfd the grader made (and maps itself, to make and read its buffers): the
 * device memory. The client's own memfd then holds only the blocks the host reaches
 * (managed, pinned), which it shows to the server with MAP; every other byte moves through
 * the server (proto.h: WRITE, READ, COPY, FILL), so the graded process never holds the
 * inputs, and the server sees every byte the host reads.
 *
 * The stream record (the client's RECORD messages, rt_record.c) goes to the observer too, one
 * line per operation queued on a stream or wait of the host, in the order the host issued them:
 *
 *   op stream=S seq=N kind=KIND sides=B dst=ADDR dst_bytes=N src=ADDR src_bytes=N graph=0|1
 *      deps=S:N,S:N|- name=NAME site=FILE:LINE (FUNCTION)
 *
 * (S a stream handle in hex, 0 for the legacy default stream, host for the host's waits; KIND
 * kernel, copy, fill, event, wait, host, nop or sync, or mark: a label the program gave what
 * follows, NAME, which is no operation; sides as struct proto_record says; site to the line's
 * end, empty when unknown). Everything the host queues after a sync line follows
 * it. After a launch that ran a recorded operation, its footprint in global memory:
 *
 *   footprint stream=S seq=N overflow=0|1 read=LO-HI,... write=LO-HI,...
 *
 * (hexadecimal, HI one past the last byte; - when none). With the time model
 * (COURSE_EMU_MODEL), the op lines go to its output too, and before each launch's model line a
 * line "ran stream=S seq=N" names the operation it ran (tools/timeline.py reads them).
 *
 * --self-test: load a one-kernel module, run it on 32 threads and check what
 * they wrote; exit 0 silently, or print why the emulator cannot run kernels
 * on stdout and exit 1 (./course asks this before choosing the emulator).
 *
 * --checks: the sanitizer's checks for every launch (vm.h, enum vm_check); with init, the
 * server records which device bytes were written (kernels, and the client's WRITTEN
 * messages for copies, fills and library calls). Each finding is one line on stderr,
 * "emulator: racecheck: ..." (the client's stderr, inherited), and, with --report, appended
 * to FILE as well.
 *
 * --schedule: the order a block's warps take turns in (vm.h, enum vm_schedule). reverse runs the
 * last warp first in every round: code whose result depends on warp order (a race on shared
 * memory a barrier does not order) gives another answer, which the judge's differential mode
 * (COURSE_DIFF=schedule) reports. seed:N (any unsigned N) runs each round's warps in an order
 * drawn from N and the block: another N, another interleaving, and the same one again for the
 * same N whatever COURSE_EMU_THREADS is.
 *
 * Otherwise the server prints nothing itself, except a line starting
 * "course-emu-device: emulator bug:" when the client breaks the protocol.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "mem.h"
#include "model_env.h"
#include "proto.h"
#include "server_judge.h"
#include "vm.h"

/** The server's whole state. */
struct server {
    int sock;                   /**< the client */
    int observe;                /**< the grader's socket (--observe), or -1 */
    int memory;                 /**< the grader's device memory (--memory), or -1 */
    struct judge judge;         /**< what the grader is told (server_judge.h) */
    int silent;                 /**< 1: the grader's descriptor cannot be read (it asks nothing) */
    unsigned checks;            /**< enum vm_check bits for every launch */
    unsigned schedule;          /**< enum vm_schedule for every launch */
    struct model_env *model;    /**< the time model (COURSE_EMU_MODEL), or NULL */
    uint64_t seed;              /**< and its seed (seed:N) */
    FILE *report;               /**< --report: findings appended here too, or NULL */
    struct emu_mem mem;         /**< the client's device memory, attached */
    int attached;               /**< 1 after HELLO */
    struct vm_module **modules; /**< by the client's module number; NULL: not loaded */
    uint32_t nmodules;
    struct vm_heap *heap; /**< device malloc's heap, made with the first module that uses one */
};

/** Kernel printf output of one launch, capped at PROTO_MAX_OUTPUT. */
struct output {
    char *text;
    size_t len, cap;
    int dropped;
};

static _Noreturn void bug(const char *what)
{
    fprintf(stderr, "course-emu-device: emulator bug: %s\n", what);
    exit(3);
}

/* 1 while the main thread runs a launch (which may never end). */
static int launching;

/* Watchdog: exit as soon as the client hangs up in the middle of a launch. Otherwise the main
 * thread serves what the client sent before it left (the stream record's last lines) and exits
 * at the end of the stream. */
static void *watch_client(void *arg)
{
    struct pollfd p = {*(int *)arg, POLLRDHUP, 0};
    for (;;) {
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            _exit(0);
        if (!(p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)))
            continue;
        while (!__atomic_load_n(&launching, __ATOMIC_ACQUIRE)) /* the main loop will see it */
            usleep(10000);
        _exit(0);
    }
    return NULL;
}

static void print_output(void *ctx, const char *text, size_t len)
{
    struct output *o = ctx;
    if (o->len + len > PROTO_MAX_OUTPUT) {
        o->dropped = 1;
        return;
    }
    if (o->len + len > o->cap) {
        size_t cap = o->cap ? o->cap : 4096;
        while (cap < o->len + len)
            cap *= 2;
        o->text = emu_realloc(o->text, cap);
        o->cap = cap;
    }
    memcpy(o->text + o->len, text, len);
    o->len += len;
}

/* A check's finding (one line, ending in a newline): to stderr, and to --report's file. */
static void report_line(void *ctx, const char *text, size_t len)
{
    const struct server *s = ctx;
    fprintf(stderr, "emulator: %.*s", (int)len, text);
    if (s->report) {
        fwrite(text, 1, len, s->report);
        fflush(s->report);
    }
}

static void reply(struct server *s, uint32_t op, const void *a, size_t alen, const void *b,
                  size_t blen)
{
    struct iovec parts[2] = {{(void *)a, alen}, {(void *)b, blen}};
    if (proto_send(s->sock, op, parts, 2, -1))
        exit(0); /* the client is gone */
}

static void reply_error(struct server *s, const char *text)
{
    reply(s, PROTO_ERROR, text, strlen(text), NULL, 0);
}

static void on_hello(struct server *s, struct proto_msg *m)
{
    struct proto_hello h;
    char err[256];
    if (s->attached || m->len != sizeof h || m->fd < 0)
        bug("malformed HELLO");
    memcpy(&h, m->data, sizeof h);
    /* With --memory, the device memory is the grader's; the client's memfd only shows the
     * blocks the host reaches (MAP). */
    int fd = s->memory >= 0 ? s->memory : m->fd;
    if (s->memory >= 0)
        close(m->fd);
    err[0] = '\0';
    if ((s->memory >= 0 && ftruncate(s->memory, (off_t)h.span)) ||
        mem_attach(&s->mem, fd, h.base, h.span, h.capacity, err, sizeof err)) {
        if (!err[0])
            snprintf(err, sizeof err, "cannot size the grader's device memory");
        reply_error(s, err);
        return;
    }
    s->attached = 1;
    s->mem.heap = h.heap;
    if ((s->checks & VM_CHECK_INIT) || s->observe >= 0)
        mem_track_writes(&s->mem, s->observe >= 0);
    static const uint8_t remote = 1;
    reply(s, PROTO_OK, &remote, s->memory >= 0 ? 1 : 0, NULL, 0);
}

static void on_block(struct server *s, struct proto_msg *m)
{
    struct proto_block b;
    if (!s->attached || m->len != sizeof b)
        bug("malformed ALLOC, FREE or WRITTEN");
    memcpy(&b, m->data, sizeof b);
    int bad = 0;
    const struct mem_block *host = m->op == PROTO_FREE ? mem_find(&s->mem, b.addr, 0) : NULL;
    if (host && host->host_visible) /* the device's own memory shows there again */
        mem_map(&s->mem, host->addr, host->size, -1, 0);
    if (m->op == PROTO_WRITTEN)
        judge_host_op(&s->judge, &s->mem, m->op, &b);
    if (m->op == PROTO_ALLOC && b.how == PROTO_ALLOC_VIEW)
        bad = mem_insert_view(&s->mem, b.addr, b.size, b.device);
    else if (m->op == PROTO_ALLOC)
        bad = mem_insert(&s->mem, b.addr, b.size, b.device);
    else if (m->op == PROTO_FREE)
        bad = mem_free(&s->mem, b.addr);
    else if (!mem_find(&s->mem, b.addr, b.size))
        bad = 1;
    else if (s->memory >= 0) /* its client writes only what the host reaches: the host's */
        mem_mark_written(&s->mem, b.addr, b.size, MEM_HOST);
    else if (b.how == PROTO_WROTE_FILL)
        mem_mark_filled(&s->mem, b.addr, b.size, (uint8_t)b.from);
    else if (b.how == PROTO_WROTE_COPY)
        mem_mark_copied(&s->mem, b.addr, b.from, b.size);
    else
        mem_mark_written(&s->mem, b.addr, b.size, MEM_HOST);
    if (bad)
        bug("the client's allocation table and the server's disagree");
}

/* MAP: show another process's device memory at a range of ours (CUDA IPC), ours again, or our
 * own memory from another offset (the driver's cuMemMap). */
static void on_map(struct server *s, struct proto_msg *m)
{
    struct proto_block b;
    if (!s->attached || m->len != sizeof b)
        bug("malformed MAP");
    memcpy(&b, m->data, sizeof b);
    struct mem_block *block = (struct mem_block *)mem_find(&s->mem, b.addr, b.size);
    judge_host_op(&s->judge, &s->mem, m->op, &b);
    int fd = m->fd < 0 && (b.how & PROTO_MAP_SPAN) ? s->mem.fd : m->fd;
    int bad = mem_map(&s->mem, b.addr, b.size, fd, b.from) ? errno : 0;
    if (m->fd >= 0)
        close(m->fd);
    if (!bad && block && (b.how & PROTO_MAP_HOST))
        block->host_visible = 1;
    if (!bad) {
        reply(s, PROTO_OK, NULL, 0, NULL, 0);
        return;
    }
    char err[128];
    snprintf(err, sizeof err, "the device server cannot map %llu bytes of %s (%s)",
             (unsigned long long)b.size,
             b.how & PROTO_MAP_SPAN ? "a physical allocation" : "another process", strerror(bad));
    reply_error(s, err);
}

/* WRITE, READ, COPY and FILL: the host moves bytes of the device memory, which the server
 * holds (proto.h); each is recorded as a copy or a fill would be, and a READ is answered. */
static void on_move(struct server *s, struct proto_msg *m)
{
    struct proto_block b;
    if (!s->attached || m->len < sizeof b)
        bug("malformed WRITE, READ, COPY or FILL");
    memcpy(&b, m->data, sizeof b);
    size_t data = m->len - sizeof b;
    if (!mem_find(&s->mem, b.addr, b.size) || (m->op == PROTO_WRITE && data != b.size) ||
        (m->op == PROTO_COPY && !mem_find(&s->mem, b.from, b.size)))
        bug("the client moved bytes outside the allocations it checked");
    judge_host_op(&s->judge, &s->mem, m->op, &b);
    void *at = mem_host(&s->mem, b.addr);
    if (m->op == PROTO_WRITE) {
        memcpy(at, m->data + sizeof b, b.size);
        mem_mark_written(&s->mem, b.addr, b.size, MEM_HOST);
    } else if (m->op == PROTO_COPY) {
        memmove(at, mem_host(&s->mem, b.from), b.size);
        mem_mark_copied(&s->mem, b.addr, b.from, b.size);
        if (b.how & PROTO_COPY_ANSWER) /* a pinned side: the host waits for the copy */
            reply(s, PROTO_OK, NULL, 0, NULL, 0);
    } else if (m->op == PROTO_FILL) {
        memset(at, (int)(uint8_t)b.from, b.size);
        mem_mark_filled(&s->mem, b.addr, b.size, (uint8_t)b.from);
    } else {
        reply(s, PROTO_DATA, at, b.size, NULL, 0);
    }
}

/* Append the blocks of @p after that are not in @p before (both sorted by address). */
static size_t new_blocks(const struct mem_block *before, size_t nb, const struct mem_block *after,
                         size_t na, struct proto_block *out)
{
    size_t i = 0, n = 0;
    for (size_t j = 0; j < na; j++) {
        while (i < nb && before[i].addr < after[j].addr)
            i++;
        if (i < nb && before[i].addr == after[j].addr)
            continue;
        out[n++] = (struct proto_block){after[j].addr, after[j].size, after[j].device, 0, 0};
    }
    return n;
}

/* The LOADED payload for module @p vm: new blocks, then every kernel. */
static void send_loaded(struct server *s, const struct vm_module *vm, const struct proto_block *b,
                        size_t nb)
{
    struct proto_loaded head = {(uint32_t)nb, vm_kernel_count(vm), s->heap != NULL};
    size_t len = sizeof head + nb * sizeof *b;
    for (uint32_t k = 0; k < head.kernels; k++) {
        const struct vm_kernel *kn = vm_kernel_info(vm, k);
        len += sizeof(struct proto_kernel) + kn->nparams * sizeof(struct proto_param) +
               strlen(kn->name) + 1;
    }
    char *buf = emu_malloc(len), *p = buf;
    memcpy(p, &head, sizeof head), p += sizeof head;
    memcpy(p, b, nb * sizeof *b), p += nb * sizeof *b;
    for (uint32_t k = 0; k < head.kernels; k++) {
        const struct vm_kernel *kn = vm_kernel_info(vm, k);
        struct proto_kernel pk = {kn->nparams,
                                  kn->param_bytes,
                                  kn->static_smem,
                                  kn->local_bytes,
                                  kn->maxntid,
                                  {kn->reqntid[0], kn->reqntid[1], kn->reqntid[2]},
                                  {kn->cluster[0], kn->cluster[1], kn->cluster[2]},
                                  kn->explicit_cluster,
                                  kn->max_cluster_rank};
        memcpy(p, &pk, sizeof pk), p += sizeof pk;
        for (uint32_t i = 0; i < kn->nparams; i++) {
            struct proto_param pp = {kn->params[i].offset, kn->params[i].size};
            memcpy(p, &pp, sizeof pp), p += sizeof pp;
        }
        memcpy(p, kn->name, strlen(kn->name) + 1), p += strlen(kn->name) + 1;
    }
    reply(s, PROTO_LOADED, buf, len, NULL, 0);
    free(buf);
}

static void on_load(struct server *s, struct proto_msg *m)
{
    struct proto_load l;
    if (!s->attached || m->len < sizeof l + 1)
        bug("malformed LOAD");
    memcpy(&l, m->data, sizeof l);
    const char *origin = (const char *)m->data + sizeof l;
    size_t olen = strnlen(origin, m->len - sizeof l);
    if (olen == m->len - sizeof l || l.module > 100000)
        bug("malformed LOAD");
    const char *ptx = origin + olen + 1;
    size_t ptx_len = m->len - sizeof l - olen - 1;
    if (l.module >= s->nmodules) {
        struct vm_module **more = emu_realloc(s->modules, (l.module + 1) * sizeof *more);
        memset(more + s->nmodules, 0, (l.module + 1 - s->nmodules) * sizeof *more);
        s->modules = more;
        s->nmodules = l.module + 1;
    }
    if (s->modules[l.module])
        bug("a module was loaded twice");

    size_t nbefore = s->mem.nlive;
    struct mem_block *before = emu_malloc((nbefore + 1) * sizeof *before);
    memcpy(before, s->mem.live, nbefore * sizeof *before);
    char err[512];
    struct vm_module *vm = NULL;
    if (vm_load(ptx, ptx_len, origin, &s->mem, &vm, err, sizeof err)) {
        free(before);
        reply_error(s, err);
        return;
    }
    s->modules[l.module] = vm;
    judge_module_loaded(&s->judge, l.module, ptx, ptx_len);
    if (vm_uses_heap(vm) && !s->heap) {
        uint64_t at = mem_alloc(&s->mem, l.heap_bytes ? l.heap_bytes : 1, 0);
        s->heap = at ? vm_heap_create(at, l.heap_bytes) : NULL;
    }
    struct proto_block *added = emu_malloc((s->mem.nlive + 1) * sizeof *added);
    size_t nadded = new_blocks(before, nbefore, s->mem.live, s->mem.nlive, added);
    send_loaded(s, vm, added, nadded);
    free(added);
    free(before);
}

static void on_symbol(struct server *s, struct proto_msg *m)
{
    struct proto_symbol q;
    struct proto_symbol_at at = {0, 0};
    if (m->len < sizeof q + 1 || m->data[m->len - 1] != 0)
        bug("malformed SYMBOL");
    memcpy(&q, m->data, sizeof q);
    if (q.module < s->nmodules && s->modules[q.module])
        at.addr = vm_symbol(s->modules[q.module], (const char *)m->data + sizeof q, &at.size);
    reply(s, PROTO_SYMBOL_AT, &at, sizeof at, NULL, 0);
}

static const char *status_name(enum vm_status st)
{
    switch (st) {
    case VM_OK:
        return "ok";
    case VM_BAD_LAUNCH:
        return "bad_launch";
    case VM_FAULT:
        return "fault";
    case VM_TRAP:
        return "trap";
    case VM_ASSERT:
        return "assert";
    case VM_UNSUPPORTED:
        return "unsupported";
    case VM_DEADLOCK:
        return "deadlock";
    }
    return "unknown";
}

/* One line for the observer (format in the file comment). */
static void observe(const struct server *s, const struct proto_launch *l, const char *name,
                    uint32_t params, const struct vm_result *r)
{
    char module[64];
    judge_module_words(&s->judge, l->module, module, sizeof module);
    const struct vm_counters *c = &r->counters;
    const uint64_t *k = c->class_insts;
    const uint32_t *cl = l->cluster; /* the launch's or the kernel's; zeros: clusters of one */
    dprintf(s->observe,
            "launch device=%u kernel=%s grid=%u,%u,%u block=%u,%u,%u cluster=%u,%u,%u smem=%u "
            "params=%u status=%s counted=1"
            " warp_insts=%llu thread_insts=%llu fma32=%llu fp=%llu int=%llu ldg=%llu stg=%llu"
            " lds=%llu sts=%llu tensor=%llu control=%llu other=%llu",
            l->device, name, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
            l->block[2], cl[0] ? cl[0] : 1, cl[0] ? cl[1] : 1, cl[0] ? cl[2] : 1, l->dyn_smem,
            params, status_name(r->status), (unsigned long long)c->warp_insts,
            (unsigned long long)c->thread_insts, (unsigned long long)k[VM_CLASS_FMA32],
            (unsigned long long)k[VM_CLASS_FP], (unsigned long long)k[VM_CLASS_INT],
            (unsigned long long)k[VM_CLASS_LDG], (unsigned long long)k[VM_CLASS_STG],
            (unsigned long long)k[VM_CLASS_LDS], (unsigned long long)k[VM_CLASS_STS],
            (unsigned long long)k[VM_CLASS_TENSOR], (unsigned long long)k[VM_CLASS_CONTROL],
            (unsigned long long)k[VM_CLASS_OTHER]);
    dprintf(s->observe,
            " gld_requests=%llu gld_sectors=%llu gst_requests=%llu gst_sectors=%llu"
            " lds_requests=%llu lds_wavefronts=%llu sts_requests=%llu sts_wavefronts=%llu"
            " unique_read_bytes=%llu unique_write_bytes=%llu barriers=%llu branches=%llu"
            " divergent_branches=%llu flops=%llu gatom_lanes=%llu satom_lanes=%llu"
            " gatom_same_addr=%llu satom_same_addr=%llu gatom_addrs=%llu tensor_flops=%llu"
            " lds_conflicts=%llu sts_conflicts=%llu overlapped_flops=%llu tma_copies=%llu"
            " tma_ld_bytes=%llu tma_ld_sectors=%llu tma_st_sectors=%llu wgmma_insts=%llu"
            " wgmma_flops=%llu wgmma_overlapped_flops=%llu fp64_insts=%llu dmma_flops=%llu"
            " sfu_insts=%llu wgmma_8bit_flops=%llu reports=%llu%s\n",
            (unsigned long long)c->gld_requests, (unsigned long long)c->gld_sectors,
            (unsigned long long)c->gst_requests, (unsigned long long)c->gst_sectors,
            (unsigned long long)c->lds_requests, (unsigned long long)c->lds_wavefronts,
            (unsigned long long)c->sts_requests, (unsigned long long)c->sts_wavefronts,
            (unsigned long long)c->unique_read_bytes, (unsigned long long)c->unique_write_bytes,
            (unsigned long long)c->barriers, (unsigned long long)c->branches,
            (unsigned long long)c->divergent_branches, (unsigned long long)c->flops,
            (unsigned long long)c->gatom_lanes, (unsigned long long)c->satom_lanes,
            (unsigned long long)c->gatom_same_addr, (unsigned long long)c->satom_same_addr,
            (unsigned long long)c->gatom_addrs, (unsigned long long)c->tensor_flops,
            (unsigned long long)c->lds_conflicts, (unsigned long long)c->sts_conflicts,
            (unsigned long long)c->overlapped_flops, (unsigned long long)c->tma_copies,
            (unsigned long long)c->tma_ld_bytes, (unsigned long long)c->tma_ld_sectors,
            (unsigned long long)c->tma_st_sectors, (unsigned long long)c->wgmma_insts,
            (unsigned long long)c->wgmma_flops, (unsigned long long)c->wgmma_overlapped_flops,
            (unsigned long long)c->fp64_insts, (unsigned long long)c->dmma_flops,
            (unsigned long long)c->sfu_insts, (unsigned long long)c->wgmma_8bit_flops,
            (unsigned long long)r->reports, module);
}

/* A stream handle of the record, as its lines print it. */
static void stream_name(uint64_t stream, char *buf, size_t size)
{
    if (stream == PROTO_RECORD_HOST_STREAM)
        snprintf(buf, size, "host");
    else
        snprintf(buf, size, "%llx", (unsigned long long)stream);
}

/* One "op ..." line of the stream record (format in the file comment) for @p r, whose
 * dependencies, name and site follow it in the message, to @p f. */
static void print_record(FILE *f, const struct proto_record *r, const struct proto_dep *deps,
                         const char *name, const char *site)
{
    static const char *const kinds[] = {"kernel", "copy", "fill", "event", "wait",
                                        "host",   "nop",  "sync", "mark"};
    char st[24];
    stream_name(r->stream, st, sizeof st);
    fprintf(f,
            "op stream=%s seq=%llu kind=%s sides=%u dst=%llx dst_bytes=%llu src=%llx "
            "src_bytes=%llu graph=%u deps=",
            st, (unsigned long long)r->seq, kinds[r->kind], r->sides, (unsigned long long)r->dst,
            (unsigned long long)r->dst_bytes, (unsigned long long)r->src,
            (unsigned long long)r->src_bytes, r->graph);
    for (uint32_t i = 0; i < r->ndeps; i++) {
        stream_name(deps[i].stream, st, sizeof st);
        fprintf(f, "%s%s:%llu", i ? "," : "", st, (unsigned long long)deps[i].seq);
    }
    fprintf(f, "%s name=%.*s site=%.*s\n", r->ndeps ? "" : "-", (int)r->name_len,
            r->name_len ? name : "-", (int)r->site_len, site);
}

/* RECORD: one operation of the stream record, to the observer and the time model's output. */
static void on_record(struct server *s, struct proto_msg *m)
{
    struct proto_record r;
    if (m->len < sizeof r)
        bug("malformed RECORD");
    memcpy(&r, m->data, sizeof r);
    size_t dbytes = (size_t)r.ndeps * sizeof(struct proto_dep);
    if (r.kind > PROTO_RECORD_MARK || r.ndeps > (1u << 20) ||
        m->len != sizeof r + dbytes + r.name_len + r.site_len)
        bug("malformed RECORD");
    struct proto_dep *deps = emu_malloc(dbytes + 1);
    memcpy(deps, m->data + sizeof r, dbytes);
    const char *name = (const char *)m->data + sizeof r + dbytes, *site = name + r.name_len;
    char *line = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&line, &len);
    if (!f)
        bug("out of host memory for the stream record");
    print_record(f, &r, deps, name, site);
    fclose(f);
    if (s->observe >= 0)
        dprintf(s->observe, "%s", line);
    if (s->model)
        fputs(line, model_env_file(s->model));
    free(line);
    free(deps);
}

/* The observer's "footprint ..." line of launch @p l (format in the file comment). */
static void observe_footprint(const struct server *s, const struct proto_launch *l,
                              const struct vm_footprint *f)
{
    char st[24], line[4096];
    stream_name(l->stream, st, sizeof st);
    size_t n = (size_t)snprintf(line, sizeof line, "footprint stream=%s seq=%llu overflow=%u", st,
                                (unsigned long long)l->seq, f->overflow);
    for (int w = 0; w < 2; w++) {
        n += (size_t)snprintf(line + n, sizeof line - n, " %s=", w ? "write" : "read");
        int any = 0;
        for (uint32_t i = 0; i < f->n; i++) {
            uint64_t lo = w ? f->at[i].write_lo : f->at[i].read_lo;
            uint64_t hi = w ? f->at[i].write_hi : f->at[i].read_hi;
            if (lo < hi)
                n += (size_t)snprintf(line + n, sizeof line - n, "%s%llx-%llx", any++ ? "," : "",
                                      (unsigned long long)lo, (unsigned long long)hi);
        }
        if (!any)
            n += (size_t)snprintf(line + n, sizeof line - n, "-");
    }
    dprintf(s->observe, "%s\n", line);
}

static void on_launch(struct server *s, struct proto_msg *m)
{
    struct proto_launch l;
    if (!s->attached || m->len < sizeof l)
        bug("malformed LAUNCH");
    memcpy(&l, m->data, sizeof l);
    const struct vm_module *vm = l.module < s->nmodules ? s->modules[l.module] : NULL;
    if (!vm || l.kernel >= vm_kernel_count(vm) ||
        m->len - sizeof l != vm_kernel_info(vm, l.kernel)->param_bytes)
        bug("LAUNCH names no loaded kernel, or its parameters have the wrong size");

    struct output out = {NULL, 0, 0, 0};
    struct vm_launch vl = {vm,
                           l.kernel,
                           {l.grid[0], l.grid[1], l.grid[2]},
                           {l.block[0], l.block[1], l.block[2]},
                           l.dyn_smem,
                           l.smem_limit,
                           m->data + sizeof l,
                           &s->mem,
                           s->checks,
                           l.count || s->observe >= 0 ? VM_COUNT_ALL : VM_COUNT_NONE,
                           s->observe >= 0,
                           print_output,
                           &out,
                           report_line,
                           s,
                           s->schedule,
                           s->seed,
                           (int)l.cooperative,
                           NULL,
                           s->heap,
                           l.stack_bytes,
                           l.pending_launches,
                           0,
                           NULL,
                           {l.cluster[0], l.cluster[1], l.cluster[2]}};
    static struct vm_result r;
    memset(&r, 0, sizeof r);
    const char *kname = vm_kernel_info(vm, l.kernel)->name;
    if (s->model) {
        char st[24];
        stream_name(l.stream, st, sizeof st);
        if (l.seq)
            fprintf(model_env_file(s->model), "ran stream=%s seq=%llu\n", st,
                    (unsigned long long)l.seq);
        vl.count = vl.count ? VM_COUNT_ALL : VM_COUNT_MODEL;
        vl.model = model_env_begin(s->model, &vl, kname, &r.counters);
    }
    __atomic_store_n(&launching, 1, __ATOMIC_RELEASE);
    vm_launch(&vl, &r);
    __atomic_store_n(&launching, 0, __ATOMIC_RELEASE);
    if (s->model)
        model_env_end(s->model, &vl, kname, &r.counters);
    if (out.dropped) {
        static const char note[] = "emulator: kernel printf output past 1 MiB was dropped (a "
                                   "GPU's printf buffer also holds 1 MiB by default)\n";
        out.dropped = 0;
        out.len =
            out.len + sizeof note > PROTO_MAX_OUTPUT ? PROTO_MAX_OUTPUT - sizeof note : out.len;
        print_output(&out, note, sizeof note - 1);
    }
    if (s->observe >= 0) {
        observe(s, &l, kname, (uint32_t)(m->len - sizeof l), &r);
        judge_launched(&s->judge, kname, &r.prov, (uint32_t)(m->len - sizeof l));
        if (l.seq)
            observe_footprint(s, &l, &r.footprint);
    }

    struct proto_done d = {.status = (int32_t)r.status,
                           .msg_len = (uint32_t)strnlen(r.message, sizeof r.message),
                           .out_len = (uint32_t)out.len,
                           .counted = vl.count != VM_COUNT_NONE,
                           .reports = (uint32_t)r.reports,
                           .counters = r.counters};
    struct iovec parts[3] = {{&d, sizeof d}, {r.message, d.msg_len}, {out.text, out.len}};
    if (proto_send(s->sock, PROTO_DONE, parts, 3, -1))
        exit(0);
    free(out.text);
}

/* One grader command (the file comment lists them), answered on the grader's socket. */
static void grader_command(struct server *s, const char *line)
{
    if (judge_command(&s->judge, &s->mem, line))
        bug("the grader sent a command the device does not know");
}

static int serve_client(struct server *s);

/* Read what the grader has sent and serve its complete lines, each after the client's
 * messages already sent. */
static void serve_grader(struct server *s)
{
    static char buf[4096];
    static size_t len;
    ssize_t got = read(s->observe, buf + len, sizeof buf - 1 - len);
    if (got <= 0) {
        if (got == 0 || errno != EINTR)
            exit(0); /* the grader has gone: so has the case */
        return;
    }
    len += (size_t)got;
    buf[len] = '\0';
    char *nl;
    while ((nl = strchr(buf, '\n'))) {
        *nl = '\0';
        struct pollfd p = {s->sock, POLLIN, 0};
        while (poll(&p, 1, 0) > 0 && (p.revents & POLLIN))
            if (serve_client(s))
                exit(0);
        grader_command(s, buf);
        len -= (size_t)(nl + 1 - buf);
        memmove(buf, nl + 1, len + 1);
    }
    if (len == sizeof buf - 1)
        bug("the grader sent a line too long");
}

/* One message from the client, served; -1 when the client has gone. */
static int serve_client(struct server *s)
{
    struct proto_msg m;
    if (proto_recv(s->sock, &m))
        return -1;
    switch ((enum proto_op)m.op) {
    case PROTO_HELLO:
        on_hello(s, &m);
        break;
    case PROTO_ALLOC:
    case PROTO_FREE:
    case PROTO_WRITTEN:
        on_block(s, &m);
        break;
    case PROTO_LOAD:
        on_load(s, &m);
        break;
    case PROTO_SYMBOL:
        on_symbol(s, &m);
        break;
    case PROTO_LAUNCH:
        on_launch(s, &m);
        break;
    case PROTO_MAP:
        on_map(s, &m);
        break;
    case PROTO_RECORD:
        on_record(s, &m);
        break;
    case PROTO_WRITE:
    case PROTO_READ:
    case PROTO_COPY:
    case PROTO_FILL:
        on_move(s, &m);
        break;
    case PROTO_OK:
    case PROTO_ERROR:
    case PROTO_LOADED:
    case PROTO_SYMBOL_AT:
    case PROTO_DONE:
    case PROTO_DATA:
        bug("the client sent a reply");
    default:
        bug("unknown operation");
    }
    free(m.data);
    return 0;
}

/* Parse "mem,race,sync,init,race-global" into enum vm_check bits; -1 on an unknown name. */
static int parse_checks(const char *list)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"mem", VM_CHECK_MEM},
                 {"race", VM_CHECK_RACE},
                 {"sync", VM_CHECK_SYNC},
                 {"init", VM_CHECK_INIT},
                 {"race-global", VM_CHECK_GLOBAL},
                 {"host", 0}}; /* hostcheck: the runtime's (rt_hostcheck.c), not a launch's */
    int bits = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *save, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < sizeof names / sizeof *names && strcmp(names[i].name, t))
            i++;
        if (i == sizeof names / sizeof *names)
            return -1;
        bits |= (int)names[i].bit;
    }
    return bits;
}

/** The self-test's module: each thread t of one warp writes 42 + t to out[t]. */
static const char probe_ptx[] = ".version 8.0\n"
                                ".target sm_90\n"
                                ".address_size 64\n"
                                ".visible .entry course_emu_probe(.param .u64 out)\n"
                                "{\n"
                                "  .reg .b32 %r<3>;\n"
                                "  .reg .b64 %rd<5>;\n"
                                "  ld.param.u64 %rd1, [out];\n"
                                "  cvta.to.global.u64 %rd2, %rd1;\n"
                                "  mov.u32 %r1, %tid.x;\n"
                                "  add.s32 %r2, %r1, 42;\n"
                                "  mul.wide.u32 %rd3, %r1, 4;\n"
                                "  add.s64 %rd4, %rd2, %rd3;\n"
                                "  st.global.u32 [%rd4], %r2;\n"
                                "  ret;\n"
                                "}\n";

/* --self-test (see the file comment). Returns the exit status. */
static int self_test(void)
{
    static struct emu_mem mem;
    static struct vm_result r;
    struct vm_module *m = NULL;
    char err[512] = "";
    if (mem_create(&mem, (uint64_t)1 << 30, (uint64_t)1 << 24, err, sizeof err) ||
        vm_load(probe_ptx, sizeof probe_ptx - 1, "the self-test", &mem, &m, err, sizeof err)) {
        printf("%s\n", err);
        return 1;
    }
    int k = vm_find(m, "course_emu_probe");
    if (k < 0) {
        printf("the PTX VM found no kernel in its one-kernel self-test module\n");
        return 1;
    }
    uint64_t out = mem_alloc(&mem, 32 * sizeof(uint32_t), 0);
    struct vm_launch l = {.module = m,
                          .kernel = (uint32_t)k,
                          .grid = {1, 1, 1},
                          .block = {32, 1, 1},
                          .smem_limit = 48 * 1024,
                          .params = &out,
                          .mem = &mem};
    if (vm_launch(&l, &r) != VM_OK) {
        printf("the self-test kernel failed: %s\n", r.message);
        return 1;
    }
    const uint32_t *got = mem_host(&mem, out);
    for (uint32_t t = 0; t < 32; t++)
        if (got[t] != 42 + t) {
            printf("the self-test kernel wrote %u for thread %u, not %u\n", got[t], t, 42 + t);
            return 1;
        }
    vm_unload(m, &mem);
    mem_destroy(&mem);
    return 0;
}

/* --checks' bits; exit 2 naming the list when it holds an unknown check. */
static unsigned checks_or_exit(const char *list)
{
    int bits = parse_checks(list);
    if (bits < 0) {
        fprintf(stderr,
                "course-emu-device: unknown check in '%s' (COURSE_EMU_CHECKS): the checks "
                "are mem, race, race-global, sync, init and host, separated by commas\n",
                list);
        exit(2);
    }
    return (unsigned)bits;
}

/* --schedule's order (and *seed); exit 2 naming the choices when it is none of them. */
static unsigned schedule_or_exit(const char *name, uint64_t *seed)
{
    char *end;
    if (!strncmp(name, "seed:", 5) && name[5] && (*seed = strtoull(name + 5, &end, 0), !*end))
        return VM_SCHEDULE_SEEDED;
    if (!strcmp(name, "forward"))
        return VM_SCHEDULE_FORWARD;
    if (!strcmp(name, "reverse"))
        return VM_SCHEDULE_REVERSE;
    fprintf(stderr,
            "course-emu-device: unknown schedule '%s' (COURSE_EMU_SCHEDULE): forward, reverse or "
            "seed:N\n",
            name);
    exit(2);
}

/* --report's file, opened for appending; exit 2 when it cannot be. */
static FILE *open_report(const char *path)
{
    FILE *f = fopen(path, "a");
    if (!f) {
        fprintf(stderr, "course-emu-device: cannot append to %s: %s\n", path, strerror(errno));
        exit(2);
    }
    return f;
}

static void usage(void)
{
    fprintf(stderr, "usage: course-emu-device --fd N [--observe FD [--memory FD]]"
                    " [--checks mem,race,sync,init]"
                    " [--report FILE] [--schedule forward|reverse|seed:N]\n"
                    "       course-emu-device --self-test\n"
                    "  (started by the CPU emulator's libcudart.so.13; see emulator/README.md)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    struct server s = {.sock = -1, .observe = -1, .memory = -1};
    if (argc == 2 && !strcmp(argv[1], "--self-test"))
        return self_test();
    for (int i = 1; i + 1 < argc; i += 2) {
        char *end;
        long v = strtol(argv[i + 1], &end, 10);
        if (!strcmp(argv[i], "--fd") && !*end && v >= 0)
            s.sock = (int)v;
        else if (!strcmp(argv[i], "--observe") && !*end && v >= 0)
            s.observe = (int)v;
        else if (!strcmp(argv[i], "--memory") && !*end && v >= 0)
            s.memory = (int)v;
        else if (!strcmp(argv[i], "--checks"))
            s.checks = checks_or_exit(argv[i + 1]);
        else if (!strcmp(argv[i], "--report") && !s.report)
            s.report = open_report(argv[i + 1]);
        else if (!strcmp(argv[i], "--schedule"))
            s.schedule = schedule_or_exit(argv[i + 1], &s.seed);
        else
            usage();
    }
    if (s.sock < 0 || argc % 2 == 0 || (s.memory >= 0 && s.observe < 0))
        usage();
    s.judge.fd = s.observe;
    char err[512] = "";
    if (!(s.model = model_env_open(err, sizeof err)) && *err) {
        fprintf(stderr, "course-emu-device: COURSE_EMU_MODEL: %s\n", err);
        exit(2);
    }
    signal(SIGPIPE, SIG_IGN); /* an observer that stops reading must not kill the device */
    pthread_t watchdog;
    if (pthread_create(&watchdog, NULL, watch_client, &s.sock))
        bug("cannot start the watchdog thread");

    for (;;) {
        /* The grader's commands first: one sent before the client's message applies to it. */
        struct pollfd p[2] = {{s.sock, POLLIN, 0}, {s.observe, POLLIN, 0}};
        int ready = poll(p, s.observe >= 0 && !s.silent ? 2 : 1, -1);
        if (ready < 0 && errno != EINTR)
            break;
        if (ready > 0 && p[1].revents && !(p[1].revents & POLLIN))
            s.silent = 1; /* a pipe's write end: a grader that only listens */
        else if (ready > 0 && (p[1].revents & POLLIN))
            serve_grader(&s); /* it may serve the client too: poll again */
        else if (ready > 0 && (p[0].revents & (POLLIN | POLLHUP)) && serve_client(&s))
            break;
    }
    vm_heap_destroy(s.heap);
    return 0;
}
