/**
 * @file nccl.c
 * @brief The NCCL stand-in (libnccl.so.2): communicators, groups and the API.
 *
 * A communicator's ranks are processes, or several communicators of one process (one a GPU,
 * ncclCommInitAll's or a group's), on one machine. A communicator is a POSIX shared-memory
 * segment named by the unique id (rank 0 makes the id, the program passes it to the others,
 * e.g. by MPI_Bcast, as with NCCL): a header (ranks, barrier, each rank's device) and one
 * staging slot per rank. A call outside a group runs before it returns (the work queued on the
 * GPU before it first); inside ncclGroupStart/End the calls queue, per thread, and the outermost
 * ncclGroupEnd runs them, the ranks of this process meeting the others together, so that one
 * thread can drive several GPUs. nccl_ops.c runs the collectives and the sends and receives.
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "emu.h"
#include "nccl_impl.h"
#include "say.h"

/** How long a rank waits for the others at a barrier before giving up, seconds. */
#define WAIT_LIMIT_S 300

/* This thread's group: its depth and the calls it queued (their sends and receives in steps,
 * one a nested group, in the order the program ended them). */
static __thread int group_depth;
static __thread struct op *queue;
static __thread size_t nqueue, queue_cap;
static __thread uint32_t groups_ended; /* ncclGroupEnd calls, nested ones too: op::inner */

void nccl_say(struct ncclComm *c, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (c)
        snprintf(c->last_error, sizeof c->last_error, "%s", line);
    emu_say("NCCL rank %d: %s", c ? c->rank : -1, line);
}

static int comm_ok(const struct ncclComm *c)
{
    return c && c->magic == COMM_MAGIC;
}

int nccl_meet(struct ncclComm *c, int k)
{
    struct shared *s = c->sh;
    unsigned gen = atomic_load(&s->generation);
    if (atomic_fetch_add(&s->arrived, (unsigned)k) + (unsigned)k == (unsigned)c->nranks) {
        atomic_store(&s->arrived, 0);
        atomic_fetch_add(&s->generation, 1);
        return 0;
    }
    time_t start = time(NULL);
    for (unsigned spins = 0; atomic_load(&s->generation) == gen; spins++) {
        if (spins < 1000) {
            sched_yield();
            continue;
        }
        nanosleep(&(struct timespec){0, 50000}, NULL);
        if (time(NULL) - start > WAIT_LIMIT_S) {
            atomic_fetch_sub(&s->arrived, (unsigned)k); /* the others must not go on without us */
            nccl_say(c, "waited %d s for the other ranks; did one of them stop?", WAIT_LIMIT_S);
            return -1;
        }
    }
    return 0;
}

ncclResult_t ncclGetVersion(int *version)
{
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    static atomic_uint seq;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    memset(uniqueId, 0, sizeof *uniqueId);
    snprintf(uniqueId->internal, sizeof uniqueId->internal, "/course-emu-nccl.%d.%u.%ld",
             (int)getpid(), atomic_fetch_add(&seq, 1), (long)t.tv_nsec);
    return ncclSuccess;
}

/* ---- communicators --------------------------------------------------------------------------- */

/* Map the segment named @p name, sized for c->nranks. */
static ncclResult_t attach(struct ncclComm *c, const char *name)
{
    if (name[0] != '/' || strchr(name + 1, '/')) {
        nccl_say(c, "the unique id was not made by ncclGetUniqueId");
        return ncclInvalidArgument;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    c->map_bytes = HEADER_BYTES + (size_t)c->nranks * SLOT_BYTES;
    int fd = shm_open(name, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)c->map_bytes)) {
        nccl_say(c, "cannot create the shared segment %s", name);
        if (fd >= 0)
            close(fd);
        return ncclSystemError;
    }
    void *p = mmap(NULL, c->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        nccl_say(c, "cannot map the shared segment %s", name);
        return ncclSystemError;
    }
    c->sh = p;
    c->slots = (uint8_t *)p + HEADER_BYTES;
    return ncclSuccess;
}

/* A communicator of @p nranks on @p device, its segment mapped; NULL after saying why. */
static struct ncclComm *comm_new(int nranks, int rank, const char *name, int device,
                                 ncclResult_t *res)
{
    if (nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks) {
        emu_say("NCCL: rank %d of %d: the emulator supports 1 to %d ranks", rank, nranks,
                MAX_RANKS);
        *res = ncclInvalidArgument;
        return NULL;
    }
    struct ncclComm *c = emu_calloc(1, sizeof *c);
    *c = (struct ncclComm){.magic = COMM_MAGIC, .nranks = nranks, .rank = rank, .device = device};
    *res = attach(c, name);
    if (*res == ncclSuccess)
        return c;
    free(c);
    return NULL;
}

/* Join the segment: one rank number each, the same size everywhere. */
static ncclResult_t join_begin(struct ncclComm *c)
{
    int expected = 0;
    atomic_compare_exchange_strong(&c->sh->nranks, &expected, c->nranks);
    if (expected && expected != c->nranks) {
        nccl_say(c, "ranks disagree on the communicator's size (%d and %d)", expected, c->nranks);
        return ncclInvalidArgument;
    }
    uint64_t bit = (uint64_t)1 << c->rank;
    if (atomic_fetch_or(&c->sh->joined, bit) & bit) {
        nccl_say(c, "two communicators joined as the same rank");
        return ncclInvalidUsage;
    }
    c->sh->device[c->rank] = c->device;
    return ncclSuccess;
}

/* After every rank joined: the name is no longer needed; one GPU a rank. */
static ncclResult_t join_end(struct ncclComm *c)
{
    if (c->rank == 0)
        shm_unlink(c->name);
    for (int r = 0; r < c->nranks; r++)
        if (r != c->rank && c->sh->device[r] == c->device) {
            nccl_say(c,
                     "ranks %d and %d both use GPU %d: NCCL needs one GPU per rank (set "
                     "COURSE_EMU_GPUS to at least the number of ranks)",
                     r, c->rank, c->device);
            return ncclInvalidUsage;
        }
    return ncclSuccess;
}

/* Join the k new communicators comms[] of one segment together. */
static ncclResult_t join_all(struct ncclComm *const *comms, int k)
{
    ncclResult_t res = ncclSuccess;
    for (int j = 0; j < k && res == ncclSuccess; j++)
        res = join_begin(comms[j]);
    if (res != ncclSuccess)
        return res;
    if (nccl_meet(comms[0], k)) {
        shm_unlink(comms[0]->name); /* the ranks that never came will not need it either */
        return ncclRemoteError;
    }
    for (int j = 0; j < k && res == ncclSuccess; j++)
        res = join_end(comms[j]);
    return res;
}

/* ncclCommSplit for this process's ranks ops[0..k) of one communicator: each new communicator
 * holds the ranks of one color, in the order of their keys (then of their ranks). */
static ncclResult_t split_all(struct op *const *ops, int k)
{
    struct ncclComm *parent = ops[0]->comm, *made[MAX_RANKS];
    struct shared *sh = parent->sh;
    for (int j = 0; j < k; j++)
        sh->color[ops[j]->comm->rank] = ops[j]->color, sh->key[ops[j]->comm->rank] = ops[j]->key;
    if (nccl_meet(parent, k))
        return ncclRemoteError;
    ncclResult_t res = ncclSuccess;
    for (int j = 0; j < k; j++) {
        const struct op *o = ops[j];
        struct ncclComm *c = o->comm;
        int size = 0, rank = 0;
        for (int r = 0; r < c->nranks; r++)
            if (sh->color[r] == o->color) {
                size++;
                rank += sh->key[r] < o->key || (sh->key[r] == o->key && r < c->rank);
            }
        char name[NCCL_UNIQUE_ID_BYTES];
        int len = snprintf(name, sizeof name, "%s.%d.%d", c->name, c->splits, o->color);
        made[j] = NULL;
        if (o->color != NCCL_SPLIT_NOCOLOR && len < (int)sizeof name)
            made[j] = comm_new(size, rank, name, c->device, &res);
        else if (o->color != NCCL_SPLIT_NOCOLOR)
            nccl_say(c, "ncclCommSplit: splits nested too deep for the emulator's names");
        c->splits++;
    }
    if (nccl_meet(parent, k)) /* every rank has read the colors and keys */
        return ncclRemoteError;
    for (int lo = INT32_MIN, done = 0; !done;) { /* the new communicators, color by color */
        int color = INT32_MAX, n = 0;
        struct ncclComm *same[MAX_RANKS];
        for (int j = 0; j < k; j++)
            if (made[j] && ops[j]->color >= lo && ops[j]->color < color)
                color = ops[j]->color;
        for (int j = 0; j < k; j++)
            if (made[j] && ops[j]->color == color)
                same[n++] = made[j], *ops[j]->newcomm = made[j];
        done = n == 0 || color == INT32_MAX;
        if (n && res == ncclSuccess)
            res = join_all(same, n);
        lo = color + 1;
    }
    return res;
}

/* ---- groups ---------------------------------------------------------------------------------- */

/* The ops of @p q[0..n) on the segment named @p seg (each communicator of this process maps it
 * apart) of @p kind (-1: any collective, send or receive), in call order, into @p out; their
 * distinct communicators into @p comms. */
static size_t ops_of(struct op *q, size_t n, const char *seg, int kind, struct op **out,
                     struct ncclComm **comms, int *k)
{
    size_t m = 0;
    *k = 0;
    for (size_t i = 0; i < n; i++) {
        int want = kind < 0 ? q[i].kind > OP_SPLIT : (int)q[i].kind == kind;
        if (strcmp(q[i].comm->name, seg) || !want)
            continue;
        out[m++] = &q[i];
        int seen = 0;
        for (int j = 0; j < *k; j++)
            seen |= comms[j] == q[i].comm;
        if (!seen)
            comms[(*k)++] = q[i].comm;
    }
    return m;
}

static int p2p(const struct op *o)
{
    return o->kind == OP_SEND || o->kind == OP_RECV;
}

/* Communicator @p c's next step among ops[*at..m), into @p out: a collective, or the sends and
 * receives of one group (the innermost a nested ncclGroupStart opened). How many ops it holds. */
static size_t next_step(struct op **ops, size_t m, const struct ncclComm *c, size_t *at,
                        struct op **out)
{
    while (*at < m && ops[*at]->comm != c)
        (*at)++;
    if (*at == m)
        return 0;
    const struct op *first = ops[*at];
    size_t n = 0;
    for (; *at < m && (n == 0 || p2p(first)); (*at)++)
        if (ops[*at]->comm == c) {
            if (n && (!p2p(ops[*at]) || ops[*at]->inner != first->inner))
                break;
            out[n++] = ops[*at];
        }
    return n;
}

/* Run the collectives, sends and receives of the segment named @p seg, step by step: each own
 * rank's j-th step with the others' j-th (the same collective, or each one's sends and receives
 * of one group), in call order. */
static ncclResult_t run_steps(struct op *q, size_t n, const char *seg)
{
    struct op **ops = emu_calloc(n, sizeof *ops), **step = emu_calloc(n, sizeof *step);
    struct op *first[MAX_RANKS];
    struct ncclComm *comms[MAX_RANKS];
    size_t at[MAX_RANKS] = {0};
    int k;
    size_t m = ops_of(q, n, seg, -1, ops, comms, &k);
    ncclResult_t res = ncclSuccess;
    while (res == ncclSuccess) {
        size_t total = 0, sends = 0;
        for (int j = 0; j < k; j++) {
            size_t got = next_step(ops, m, comms[j], &at[j], step + total);
            first[j] = got ? step[total] : NULL;
            sends += got && p2p(first[j]);
            total += got;
        }
        if (!total)
            break;
        for (int j = 0; j < k && !sends; j++)
            if (!first[j] || !first[0] || first[j]->kind != first[0]->kind ||
                first[j]->count != first[0]->count || first[j]->type != first[0]->type) {
                nccl_say(comms[j], "this process's ranks of one communicator called different "
                                   "collectives (or counts, or types) at the same step");
                res = ncclInvalidUsage;
            }
        for (int j = 0; j < k && sends; j++)
            if (first[j] && !p2p(first[j])) {
                nccl_say(comms[j], "this process's ranks of one communicator called a collective "
                                   "where another sent or received");
                res = ncclInvalidUsage;
            }
        if (res == ncclSuccess)
            res = sends ? nccl_exchange(comms, k, step, total) : nccl_collective(first, k);
    }
    free(ops);
    free(step);
    return res;
}

/* Everything queued for the segment named @p seg: joins, splits, then the calls in order. */
static ncclResult_t run_segment(struct op *q, size_t n, const char *seg)
{
    struct op **ops = emu_calloc(n, sizeof *ops);
    struct ncclComm *comms[MAX_RANKS];
    int k;
    ncclResult_t res = ncclSuccess;
    if (ops_of(q, n, seg, OP_INIT, ops, comms, &k))
        res = join_all(comms, k);
    size_t m = ops_of(q, n, seg, OP_SPLIT, ops, comms, &k);
    if (res == ncclSuccess && m)
        res = split_all(ops, (int)m);
    if (res == ncclSuccess)
        res = run_steps(q, n, seg);
    free(ops);
    return res;
}

/* Run this thread's queue: segment by segment in the order of their names (the same in every
 * process, so that processes sharing two segments never wait for each other crosswise). */
static ncclResult_t run_group(void)
{
    struct op *q = queue;
    size_t n = nqueue;
    queue = NULL, nqueue = queue_cap = 0;
    /* the work queued on the GPUs before the group ended runs first (and must not have failed) */
    ncclResult_t res = course_emu_sticky_error() ? ncclUnhandledCudaError : ncclSuccess;
    if (res != ncclSuccess)
        n = 0;
    for (const char *last = "", *name;; last = name) {
        name = NULL;
        for (size_t i = 0; i < n; i++)
            if (strcmp(q[i].comm->name, last) > 0 && (!name || strcmp(q[i].comm->name, name) < 0))
                name = q[i].comm->name;
        if (!name)
            break;
        ncclResult_t r = run_segment(q, n, name);
        res = res == ncclSuccess ? r : res;
    }
    free(q);
    return res;
}

/* Queue @p o; outside a group, run it now. */
static ncclResult_t enqueue(const struct op *o)
{
    if (nqueue == queue_cap) {
        queue_cap = queue_cap ? 2 * queue_cap : 16;
        queue = emu_realloc(queue, queue_cap * sizeof *queue);
    }
    queue[nqueue] = *o;
    queue[nqueue++].inner = groups_ended;
    return group_depth ? ncclSuccess : run_group();
}

ncclResult_t ncclGroupStart(void)
{
    group_depth++;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    if (group_depth == 0)
        return ncclInvalidUsage;
    groups_ended++;
    return --group_depth ? ncclSuccess : run_group();
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 22, 0)
ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t *simInfo)
{
    (void)simInfo;
    emu_say("NCCL: ncclGroupSimulateEnd is not emulated (the emulator estimates no NCCL times)");
    return ncclInvalidUsage;
}
#endif

/* ---- communicators: the API ------------------------------------------------------------------ */

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    char name[NCCL_UNIQUE_ID_BYTES];
    memcpy(name, commId.internal, sizeof name);
    name[sizeof name - 1] = 0;
    int device;
    if (cudaGetDevice(&device) != cudaSuccess)
        return ncclUnhandledCudaError;
    ncclResult_t res;
    struct ncclComm *c = comm_new(nranks, rank, name, device, &res);
    if (!c)
        return res;
    *comm = c;
    res = enqueue(&(struct op){.kind = OP_INIT, .comm = c});
    if (res != ncclSuccess && !group_depth) {
        ncclCommDestroy(c);
        *comm = NULL;
    }
    return res;
}

/* The configuration's fields are hints the emulator needs none of: it initialises now. */
ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
                                    ncclConfig_t *config)
{
    (void)config;
    return ncclCommInitRank(comm, nranks, commId, rank);
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 23, 0)
ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId,
                                      ncclUniqueId *commIds, ncclConfig_t *config)
{
    (void)config;
    if (nId < 1 || !commIds)
        return ncclInvalidArgument;
    return ncclCommInitRank(newcomm, nranks, commIds[0], myrank);
}
#endif

/* One communicator of @p ndev ranks in this process, rank i on devlist[i] (or GPU i). */
ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    ncclUniqueId id;
    int device;
    if (ndev < 1 || cudaGetDevice(&device) != cudaSuccess)
        return ndev < 1 ? ncclInvalidArgument : ncclUnhandledCudaError;
    ncclGetUniqueId(&id);
    ncclGroupStart();
    ncclResult_t res = ncclSuccess;
    for (int i = 0; i < ndev && res == ncclSuccess; i++)
        res = cudaSetDevice(devlist ? devlist[i] : i) == cudaSuccess
                  ? ncclCommInitRank(&comms[i], ndev, id, i)
                  : ncclUnhandledCudaError;
    ncclResult_t end = ncclGroupEnd();
    cudaSetDevice(device);
    return res != ncclSuccess ? res : end;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                           ncclConfig_t *config)
{
    (void)config;
    if (!comm_ok(comm) || !newcomm || (color < 0 && color != NCCL_SPLIT_NOCOLOR))
        return ncclInvalidArgument;
    *newcomm = NULL;
    return enqueue(&(struct op){
        .kind = OP_SPLIT, .comm = comm, .color = color, .key = key, .newcomm = newcomm});
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
/* Say that @p what is not emulated, for @p comm. */
static ncclResult_t not_emulated(struct ncclComm *comm, const char *what)
{
    nccl_say(comm_ok(comm) ? comm : NULL, "%s is not emulated", what);
    return ncclInvalidUsage;
}

ncclResult_t ncclCommShrink(ncclComm_t comm, int *excludeRanksList, int excludeRanksCount,
                            ncclComm_t *newcomm, ncclConfig_t *config, int shrinkFlags)
{
    (void)excludeRanksList, (void)excludeRanksCount, (void)newcomm, (void)config;
    (void)shrinkFlags;
    return not_emulated(comm, "ncclCommShrink (ranks that failed)");
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags)
{
    (void)revokeFlags;
    return not_emulated(comm, "ncclCommRevoke (ranks that failed)");
}
#endif
#endif

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm_ok(comm))
        return ncclInvalidArgument;
    munmap(comm->sh, comm->map_bytes);
    comm->magic = 0;
    free(comm);
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    return ncclCommDestroy(comm);
}

ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    return comm_ok(comm) ? ncclSuccess : ncclInvalidArgument;
}

/* Every call has finished when it returns, or when its group ended. */
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    if (!comm_ok(comm))
        return ncclInvalidArgument;
    *asyncError = ncclSuccess;
    return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (!comm_ok(comm))
        return ncclInvalidArgument;
    *count = comm->nranks;
    return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!comm_ok(comm))
        return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (!comm_ok(comm))
        return ncclInvalidArgument;
    *device = comm->device;
    return ncclSuccess;
}

/* Registration makes NCCL faster on a GPU; the emulator's collectives need none. */
ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle)
{
    (void)size;
    if (!comm_ok(comm) || !handle)
        return ncclInvalidArgument;
    *handle = buff;
    return ncclSuccess;
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle)
{
    (void)handle;
    return comm_ok(comm) ? ncclSuccess : ncclInvalidArgument;
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buff, size_t size, ncclWindow_t *win,
                                    int winFlags)
{
    (void)size, (void)winFlags;
    if (!comm_ok(comm) || !win)
        return ncclInvalidArgument;
    *win = (ncclWindow_t)buff;
    return ncclSuccess;
}
#endif

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win)
{
    (void)win;
    return comm_ok(comm) ? ncclSuccess : ncclInvalidArgument;
}
#endif

ncclResult_t ncclMemAlloc(void **ptr, size_t size)
{
    return cudaMalloc(ptr, size) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

ncclResult_t ncclMemFree(void *ptr)
{
    return cudaFree(ptr) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm)
{
    size_t es = nccl_type_size(datatype);
    if (!comm_ok(comm) || !op || !scalar || !es)
        return ncclInvalidArgument;
    for (int i = 0; i < MAX_PREMUL; i++)
        if (!comm->premul[i].used) {
            struct premul *p = &comm->premul[i];
            *p = (struct premul){
                .used = 1, .type = datatype, .residence = residence, .scalar = scalar};
            if (residence == ncclScalarHostImmediate)
                memcpy(p->value, scalar, es);
            *op = (ncclRedOp_t)((int)ncclNumOps + i);
            return ncclSuccess;
        }
    nccl_say(comm, "ncclRedOpCreatePreMulSum: more than %d reductions at once", MAX_PREMUL);
    return ncclInvalidUsage;
}

ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm)
{
    int i = (int)op - (int)ncclNumOps;
    if (!comm_ok(comm) || i < 0 || i >= MAX_PREMUL || !comm->premul[i].used)
        return ncclInvalidArgument;
    comm->premul[i].used = 0;
    return ncclSuccess;
}

/* ---- collectives and sends: the API ---------------------------------------------------------- */

/* Whether @p k reduces, and which ranks hand in (send) or take out (recv) nothing. */
static int reduces(enum op_kind k)
{
    return k == OP_ALL_REDUCE || k == OP_REDUCE || k == OP_REDUCE_SCATTER;
}

/* The elements op @p o sends and receives (0: none, its buffer unused). */
static void extents(const struct op *o, size_t *sends, size_t *recvs)
{
    size_t n = o->count, all = n * (size_t)o->comm->nranks;
    int root = o->comm->rank == o->root;
    switch (o->kind) {
    case OP_REDUCE:
        *sends = n, *recvs = root ? n : 0;
        break;
    case OP_BROADCAST:
        *sends = root ? n : 0, *recvs = n;
        break;
    case OP_ALL_GATHER:
        *sends = n, *recvs = all;
        break;
    case OP_GATHER:
        *sends = n, *recvs = root ? all : 0;
        break;
    case OP_REDUCE_SCATTER:
    case OP_ALL_TO_ALL:
        *sends = all, *recvs = o->kind == OP_ALL_TO_ALL ? all : n;
        break;
    case OP_SCATTER:
        *sends = root ? all : 0, *recvs = n;
        break;
    case OP_SEND:
        *sends = n, *recvs = 0;
        break;
    case OP_RECV:
        *sends = 0, *recvs = n;
        break;
    default:
        *sends = n, *recvs = n;
        break;
    }
}

/* Check call @p o (its device buffers @p send and @p recv, on @p stream), map them and queue it. */
static ncclResult_t submit(struct op o, const void *send, void *recv, cudaStream_t stream,
                           const char *who)
{
    struct ncclComm *c = o.comm;
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (!comm_ok(c) || o.root < 0 || o.root >= c->nranks)
        return ncclInvalidArgument;
    size_t es = nccl_type_size(o.type), sends, recvs;
    if (!es) {
        nccl_say(c, "%s: data type %d is not one NCCL has", who, (int)o.type);
        return ncclInvalidArgument;
    }
    if (reduces(o.kind) && !nccl_reducible(c, o.type, o.redop, who))
        return ncclInvalidArgument;
    if (cudaStreamIsCapturing(stream, &capture) == cudaSuccess &&
        capture != cudaStreamCaptureStatusNone) {
        nccl_say(c,
                 "%s in a stream capture (a CUDA graph) is not emulated: it would run now, "
                 "not when the graph is launched",
                 who);
        return ncclInvalidUsage;
    }
    if (course_emu_sticky_error())
        return ncclUnhandledCudaError;
    if (o.count == 0)
        return ncclSuccess;
    extents(&o, &sends, &recvs);
    o.send = sends ? course_emu_host(send, sends * es, who) : NULL;
    o.recv = recvs ? course_emu_host(recv, recvs * es, who) : NULL;
    if ((sends && !o.send) || (recvs && !o.recv))
        return ncclInvalidArgument;
    if (recvs)
        course_emu_wrote(recv, recvs * es); /* the call fills it (initcheck) */
    return enqueue(&o);
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream)
{
    struct op o = {
        .kind = OP_ALL_REDUCE, .comm = comm, .count = count, .type = datatype, .redop = op};
    return submit(o, sendbuff, recvbuff, stream, "ncclAllReduce");
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)
{
    struct op o = {.kind = OP_REDUCE,
                   .comm = comm,
                   .count = count,
                   .type = datatype,
                   .redop = op,
                   .root = root};
    return submit(o, sendbuff, recvbuff, stream, "ncclReduce");
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
    struct op o = {
        .kind = OP_BROADCAST, .comm = comm, .count = count, .type = datatype, .root = root};
    return submit(o, sendbuff, recvbuff, stream, "ncclBroadcast");
}

ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                       cudaStream_t stream)
{
    return ncclBroadcast(buff, buff, count, datatype, root, comm, stream);
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    struct op o = {.kind = OP_ALL_GATHER, .comm = comm, .count = sendcount, .type = datatype};
    return submit(o, sendbuff, recvbuff, stream, "ncclAllGather");
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                        int root, ncclComm_t comm, cudaStream_t stream)
{
    struct op o = {.kind = OP_GATHER, .comm = comm, .count = count, .type = datatype, .root = root};
    return submit(o, sendbuff, recvbuff, stream, "ncclGather");
}
#endif

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream)
{
    struct op o = {
        .kind = OP_REDUCE_SCATTER, .comm = comm, .count = recvcount, .type = datatype, .redop = op};
    return submit(o, sendbuff, recvbuff, stream, "ncclReduceScatter");
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
                          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    struct op o = {.kind = OP_ALL_TO_ALL, .comm = comm, .count = count, .type = datatype};
    return submit(o, sendbuff, recvbuff, stream, "ncclAlltoAll");
}
#endif

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count,
                         ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
    struct op o = {
        .kind = OP_SCATTER, .comm = comm, .count = count, .type = datatype, .root = root};
    return submit(o, sendbuff, recvbuff, stream, "ncclScatter");
}
#endif

ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    struct op o = {.kind = OP_SEND, .comm = comm, .count = count, .type = datatype, .root = peer};
    return submit(o, sendbuff, NULL, stream, "ncclSend");
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    struct op o = {.kind = OP_RECV, .comm = comm, .count = count, .type = datatype, .root = peer};
    return submit(o, NULL, recvbuff, stream, "ncclRecv");
}

const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess:
        return "no error";
    case ncclUnhandledCudaError:
        return "a CUDA call failed";
    case ncclSystemError:
        return "a system call failed";
    case ncclInternalError:
        return "internal error (an emulator bug)";
    case ncclInvalidArgument:
        return "invalid argument";
    case ncclInvalidUsage:
        return "invalid usage";
    case ncclRemoteError:
        return "another rank stopped or did not answer";
    case ncclInProgress:
        return "operation in progress";
    default:
        return "unknown result code";
    }
}

const char *ncclGetLastError(ncclComm_t comm)
{
    return comm_ok(comm) ? comm->last_error : "";
}
