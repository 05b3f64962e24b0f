/**
 * @file nccl_impl.h
 * @brief The NCCL stand-in's pieces: a communicator's shared segment, the operations a group
 *        queues, and the collectives nccl_ops.c runs for the ranks of one process together.
 */
#ifndef EMU_NCCL_IMPL_H
#define EMU_NCCL_IMPL_H

#include <nccl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum { COMM_MAGIC = 0x4e43434c, MAX_RANKS = 64, MAX_PREMUL = 16 };
/** Bytes each rank stages per chunk. */
#define SLOT_BYTES ((size_t)4 << 20)

/** The start of the shared segment (HEADER_BYTES, then one slot a rank). */
struct shared {
    atomic_int nranks;                     /**< set by the first rank to arrive */
    atomic_uint arrived;                   /**< arrivals at the barrier now */
    atomic_uint generation;                /**< barriers completed */
    atomic_uint_fast64_t joined;           /**< bit per rank that joined */
    int device[MAX_RANKS];                 /**< each rank's current CUDA device */
    int color[MAX_RANKS], key[MAX_RANKS];  /**< ncclCommSplit's arguments */
    uint32_t rounds[MAX_RANKS];            /**< point-to-point rounds each rank needs */
    uint64_t posted[MAX_RANKS][MAX_RANKS]; /**< bytes rank s staged for rank d this round */
};
#define HEADER_BYTES ((size_t)64 << 10)

/** A reduction ncclRedOpCreatePreMulSum made: each rank's input times its scalar, summed. */
struct premul {
    int used;
    ncclDataType_t type;
    ncclScalarResidence_t residence;
    const void *scalar; /**< the device's copy (ncclScalarDevice), read at the collective */
    uint8_t value[8];   /**< the host's value, copied at creation (ncclScalarHostImmediate) */
};

/** What ncclComm_t points at. */
struct ncclComm {
    uint32_t magic;
    int nranks, rank, device;
    int splits; /**< ncclCommSplit calls so far (the same on every rank) */
    char name[NCCL_UNIQUE_ID_BYTES];
    struct shared *sh;
    uint8_t *slots; /**< nranks slots of SLOT_BYTES */
    size_t map_bytes;
    struct premul premul[MAX_PREMUL];
    char last_error[256];
};

/** What a group queues: one call's kind, communicator and host views of its buffers. */
enum op_kind {
    OP_INIT,
    OP_SPLIT,
    OP_ALL_REDUCE,
    OP_REDUCE,
    OP_BROADCAST,
    OP_ALL_GATHER,
    OP_GATHER,
    OP_REDUCE_SCATTER,
    OP_ALL_TO_ALL,
    OP_SCATTER,
    OP_SEND,
    OP_RECV
};

struct op {
    enum op_kind kind;
    struct ncclComm *comm;
    const uint8_t *send;
    uint8_t *recv;
    size_t count; /**< elements: per rank for gathers, scatters and all-to-all */
    ncclDataType_t type;
    ncclRedOp_t redop;
    int root;                  /**< or the peer of a send or receive */
    int color, key;            /**< OP_SPLIT */
    struct ncclComm **newcomm; /**< OP_SPLIT */
    uint32_t inner;            /**< the group it was called in (sends in one run together) */
};

/** Print "emulator: NCCL rank R: ..." and keep it for ncclGetLastError. */
void nccl_say(struct ncclComm *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** Meet the other ranks of @p c's segment, @p k ranks of this process arriving together (the
 *  first of them @p c). 0, or -1 after waiting too long (said). */
int nccl_meet(struct ncclComm *c, int k);

/** Bytes of one element of @p t (0: not a type). */
size_t nccl_type_size(ncclDataType_t t);

/** Whether @p c can reduce @p t with @p op (else said, naming @p who). */
int nccl_reducible(struct ncclComm *c, ncclDataType_t t, ncclRedOp_t op, const char *who);

/** Run collective ops[0..k) of one kind, one an own rank of one segment, in chunks. */
ncclResult_t nccl_collective(struct op *const *ops, int k);

/** Run the sends and receives ops[0..n) of the ranks comms[0..k) of one segment. */
ncclResult_t nccl_exchange(struct ncclComm *const *comms, int k, struct op *const *ops, size_t n);

#endif
