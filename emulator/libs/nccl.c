/**
 * @file nccl.c
 * @brief The NCCL stand-in (libnccl.so.2): collectives between processes on one machine.
 *
 * Each rank is a process with its own emulated GPUs. A communicator is a
 * POSIX shared-memory segment named by the unique id (rank 0 makes the id,
 * the program passes it to the others, e.g. by MPI_Bcast, as with NCCL): a
 * header (ranks, barrier, each rank's device) and one staging slot per rank.
 * A collective runs in chunks of a slot: every rank copies its chunk into its
 * slot, all meet at a barrier, every rank combines the slots into its own
 * output in rank order, and all meet again before the slots are reused.
 * Collectives complete before they return (streams are synchronous), so a
 * group (ncclGroupStart/End) needs no deferral: one communicator per process.
 * Floating-point reductions combine in double and round once to the type;
 * integer reductions wrap as the type does.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <nccl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "emu.h"
#include "fp.h"
#include "say.h"

enum { COMM_MAGIC = 0x4e43434c, MAX_RANKS = 64 };
/** Bytes each rank stages per chunk. */
#define SLOT_BYTES ((size_t)4 << 20)
/** How long a rank waits for the others at a barrier before giving up, seconds. */
#define WAIT_LIMIT_S 300

/** The start of the shared segment. */
struct shared {
    atomic_int nranks;           /**< set by the first rank to arrive */
    atomic_uint arrived;         /**< ranks at the barrier now */
    atomic_uint generation;      /**< barriers completed */
    atomic_uint_fast64_t joined; /**< bit per rank that joined */
    int device[MAX_RANKS];       /**< each rank's current CUDA device */
};

/** What ncclComm_t points at. */
struct ncclComm {
    uint32_t magic;
    int nranks, rank, device;
    struct shared *sh;
    uint8_t *slots; /**< nranks slots of SLOT_BYTES */
    size_t map_bytes;
    char last_error[256];
};

static int group_depth;

static void say(struct ncclComm *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "emulator: NCCL rank R: ..." and keep it for ncclGetLastError. */
static void say(struct ncclComm *c, const char *fmt, ...)
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

/* Wait until every rank has arrived. Returns 0, or -1 after WAIT_LIMIT_S. */
static int barrier(struct ncclComm *c)
{
    struct shared *s = c->sh;
    unsigned gen = atomic_load(&s->generation);
    if (atomic_fetch_add(&s->arrived, 1) == (unsigned)c->nranks - 1) {
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
            say(c, "waited %d s for the other ranks; did one of them stop?", WAIT_LIMIT_S);
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

/* Map the segment named by @p id, sized for @p nranks. */
static ncclResult_t attach(struct ncclComm *c, const ncclUniqueId *id)
{
    char name[NCCL_UNIQUE_ID_BYTES];
    memcpy(name, id->internal, sizeof name);
    name[sizeof name - 1] = 0;
    if (name[0] != '/' || strchr(name + 1, '/')) {
        say(c, "the unique id was not made by ncclGetUniqueId");
        return ncclInvalidArgument;
    }
    c->map_bytes = 4096 + (size_t)c->nranks * SLOT_BYTES;
    int fd = shm_open(name, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)c->map_bytes)) {
        say(c, "cannot create the shared segment %s", name);
        if (fd >= 0)
            close(fd);
        return ncclSystemError;
    }
    void *p = mmap(NULL, c->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        say(c, "cannot map the shared segment %s", name);
        return ncclSystemError;
    }
    c->sh = p;
    c->slots = (uint8_t *)p + 4096;
    return ncclSuccess;
}

/* Join the communicator's segment: one rank number each, the same size everywhere. */
static ncclResult_t join(struct ncclComm *c, const ncclUniqueId *id)
{
    int expected = 0;
    atomic_compare_exchange_strong(&c->sh->nranks, &expected, c->nranks);
    if (expected && expected != c->nranks) {
        say(c, "ranks disagree on the communicator's size (%d and %d)", expected, c->nranks);
        return ncclInvalidArgument;
    }
    uint64_t bit = (uint64_t)1 << c->rank;
    if (atomic_fetch_or(&c->sh->joined, bit) & bit) {
        say(c, "two processes joined the communicator as the same rank");
        return ncclInvalidUsage;
    }
    c->sh->device[c->rank] = c->device;
    if (barrier(c))
        return ncclRemoteError;
    if (c->rank == 0) { /* everybody has it mapped: the name is no longer needed */
        char name[NCCL_UNIQUE_ID_BYTES];
        memcpy(name, id->internal, sizeof name);
        name[sizeof name - 1] = 0;
        shm_unlink(name);
    }
    for (int r = 0; r < c->nranks; r++)
        if (r != c->rank && c->sh->device[r] == c->device) {
            say(c,
                "ranks %d and %d both use GPU %d: NCCL needs one GPU per rank (set "
                "COURSE_EMU_GPUS to at least the number of ranks)",
                r, c->rank, c->device);
            return ncclInvalidUsage;
        }
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    if (nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks) {
        emu_say("NCCL: rank %d of %d: the emulator supports 1 to %d ranks", rank, nranks,
                MAX_RANKS);
        return ncclInvalidArgument;
    }
    struct ncclComm *c = emu_calloc(1, sizeof *c);
    *c = (struct ncclComm){.magic = COMM_MAGIC, .nranks = nranks, .rank = rank};
    if (cudaGetDevice(&c->device) != cudaSuccess) {
        free(c);
        return ncclUnhandledCudaError;
    }
    ncclResult_t res = attach(c, &commId);
    if (res == ncclSuccess)
        res = join(c, &commId);
    if (res != ncclSuccess) {
        if (c->sh)
            munmap(c->sh, c->map_bytes);
        free(c);
        return res;
    }
    *comm = c;
    return ncclSuccess;
}

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

ncclResult_t ncclGroupStart(void)
{
    group_depth++;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    if (group_depth == 0)
        return ncclInvalidUsage;
    group_depth--;
    return ncclSuccess;
}

/* --- element types and reductions ------------------------------------------------------------ */

static size_t type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8:
    case ncclUint8:
        return 1;
    case ncclFloat16:
    case ncclBfloat16:
        return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
        return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64:
        return 8;
    default:
        return 0; /* fp8 and others: not emulated */
    }
}

static int is_float(ncclDataType_t t)
{
    return t == ncclFloat16 || t == ncclBfloat16 || t == ncclFloat32 || t == ncclFloat64;
}

static double load_f(const void *p, ncclDataType_t t)
{
    switch (t) {
    case ncclFloat16:
        return fp_f16_to_f32(*(const uint16_t *)p);
    case ncclBfloat16:
        return fp_bf16_to_f32(*(const uint16_t *)p);
    case ncclFloat32:
        return *(const float *)p;
    default:
        return *(const double *)p;
    }
}

static void store_f(void *p, ncclDataType_t t, double v)
{
    switch (t) {
    case ncclFloat16:
        *(uint16_t *)p = fp_f32_to_f16((float)v);
        break;
    case ncclBfloat16:
        *(uint16_t *)p = fp_f32_to_bf16((float)v);
        break;
    case ncclFloat32:
        *(float *)p = (float)v;
        break;
    default:
        *(double *)p = v;
        break;
    }
}

/* Integers travel as 64-bit two's complement (signed types sign-extended). */
static uint64_t load_i(const void *p, ncclDataType_t t)
{
    switch (t) {
    case ncclInt8:
        return (uint64_t)(int64_t) * (const int8_t *)p;
    case ncclUint8:
        return *(const uint8_t *)p;
    case ncclInt32:
        return (uint64_t)(int64_t) * (const int32_t *)p;
    case ncclUint32:
        return *(const uint32_t *)p;
    default:
        return *(const uint64_t *)p;
    }
}

static void store_i(void *p, ncclDataType_t t, uint64_t v)
{
    size_t n = type_size(t);
    memcpy(p, &v, n); /* little endian: the low bytes */
}

static int is_signed(ncclDataType_t t)
{
    return t == ncclInt8 || t == ncclInt32 || t == ncclInt64;
}

static double combine_f(double a, double b, ncclRedOp_t op)
{
    switch (op) {
    case ncclProd:
        return a * b;
    case ncclMax:
        return a > b ? a : b;
    case ncclMin:
        return a < b ? a : b;
    default:
        return a + b; /* ncclSum, ncclAvg */
    }
}

static uint64_t combine_i(uint64_t a, uint64_t b, ncclRedOp_t op, int sign)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (op) {
    case ncclProd:
        return a * b;
    case ncclMax:
        return sign ? (uint64_t)(sa > sb ? sa : sb) : a > b ? a : b;
    case ncclMin:
        return sign ? (uint64_t)(sa < sb ? sa : sb) : a < b ? a : b;
    default:
        return a + b;
    }
}

/* out[i] = op over ranks of slot[r][i], for @p n elements of type @p t. */
static void reduce_slots(const struct ncclComm *c, size_t n, ncclDataType_t t, ncclRedOp_t op,
                         uint8_t *out)
{
    size_t es = type_size(t);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *first = c->slots + i * es;
        if (is_float(t)) {
            double acc = load_f(first, t);
            for (int r = 1; r < c->nranks; r++)
                acc = combine_f(acc, load_f(c->slots + r * SLOT_BYTES + i * es, t), op);
            store_f(out + i * es, t, op == ncclAvg ? acc / c->nranks : acc);
        } else {
            uint64_t acc = load_i(first, t);
            for (int r = 1; r < c->nranks; r++)
                acc =
                    combine_i(acc, load_i(c->slots + r * SLOT_BYTES + i * es, t), op, is_signed(t));
            if (op == ncclAvg)
                acc =
                    is_signed(t) ? (uint64_t)((int64_t)acc / c->nranks) : acc / (uint64_t)c->nranks;
            store_i(out + i * es, t, acc);
        }
    }
}

/* Check a collective's arguments and map its buffers; NULL buffers mean failure (said). */
static ncclResult_t buffers(struct ncclComm *c, const void *send, void *recv, size_t count,
                            ncclDataType_t t, const char *who, const uint8_t **s, uint8_t **r)
{
    if (!comm_ok(c))
        return ncclInvalidArgument;
    if (type_size(t) == 0) {
        say(c, "%s: data type %d is not emulated", who, (int)t);
        return ncclInvalidArgument;
    }
    if (course_emu_sticky_error())
        return ncclUnhandledCudaError;
    size_t bytes = count * type_size(t);
    *s = send ? course_emu_host(send, bytes, who) : NULL;
    *r = course_emu_host(recv, bytes, who);
    if (*r)
        course_emu_wrote(recv, bytes); /* the collective fills it (initcheck) */
    return (*s || !send) && *r ? ncclSuccess : ncclInvalidArgument;
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream)
{
    (void)stream;
    const uint8_t *s;
    uint8_t *r;
    if (count == 0)
        return comm_ok(comm) ? ncclSuccess : ncclInvalidArgument;
    ncclResult_t res = buffers(comm, sendbuff, recvbuff, count, datatype, "ncclAllReduce", &s, &r);
    if (res == ncclSuccess && (op < ncclSum || op > ncclAvg)) {
        say(comm, "ncclAllReduce: reduction %d is not emulated", (int)op);
        res = ncclInvalidArgument;
    }
    size_t es = type_size(datatype), per = SLOT_BYTES / (es ? es : 1);
    for (size_t done = 0; res == ncclSuccess && done < count; done += per) {
        size_t n = count - done < per ? count - done : per;
        memcpy(comm->slots + comm->rank * SLOT_BYTES, s + done * es, n * es);
        if (barrier(comm))
            return ncclRemoteError;
        reduce_slots(comm, n, datatype, op, r + done * es);
        if (barrier(comm))
            return ncclRemoteError;
    }
    return res;
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream)
{
    (void)stream;
    const uint8_t *s = NULL;
    uint8_t *r;
    if (!comm_ok(comm) || root < 0 || root >= comm->nranks)
        return ncclInvalidArgument;
    if (count == 0)
        return ncclSuccess;
    ncclResult_t res = buffers(comm, comm->rank == root ? sendbuff : NULL, recvbuff, count,
                               datatype, "ncclBroadcast", &s, &r);
    size_t es = type_size(datatype), per = SLOT_BYTES / (es ? es : 1);
    for (size_t done = 0; res == ncclSuccess && done < count; done += per) {
        size_t n = count - done < per ? count - done : per;
        if (comm->rank == root)
            memcpy(comm->slots + root * SLOT_BYTES, s + done * es, n * es);
        if (barrier(comm))
            return ncclRemoteError;
        memmove(r + done * es, comm->slots + root * SLOT_BYTES, n * es);
        if (barrier(comm))
            return ncclRemoteError;
    }
    return res;
}

ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                       cudaStream_t stream)
{
    return ncclBroadcast(buff, buff, count, datatype, root, comm, stream);
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
