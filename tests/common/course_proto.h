/**
 * @file course_proto.h
 * @brief The messages between a judge (the Check binary) and its runner (the student's code).
 *
 * The judge writes requests on the runner's fd COURSE_PROTO_IN and reads replies on
 * COURSE_PROTO_OUT; stdout and stderr stay the student's own. Every message is a
 * proto_head followed by `len` bytes. The runner is untrusted: the judge checks every
 * reply's magic, operation and length before it reads a byte of the payload.
 *
 * A buffer lives in the runner, in host or device memory, laid out as
 *
 *     [guard bytes][offset bytes][bytes of data][guard bytes]
 *
 * with the allocation 256-byte aligned and every byte outside the data set to guard_byte.
 * Inputs take 0xFF guards (NaN in every float format), so an over-read poisons the result;
 * outputs take COURSE_GUARD_OUT, which the judge asserts untouched after the call.
 */
#ifndef COURSE_PROTO_H
#define COURSE_PROTO_H

#include <stdint.h>

/** The runner reads requests on this fd. */
#define COURSE_PROTO_IN 3
/** The runner writes replies on this fd. */
#define COURSE_PROTO_OUT 4
/** First word of every message. */
#define COURSE_PROTO_MAGIC 0x4A554447u
/** Longest function name a request may carry (with its NUL). */
#define COURSE_PROTO_NAME 64
/** Most arguments a call may pass. */
#define COURSE_PROTO_ARGS 16
/** Most buffers a runner holds at once (ids 0 .. COURSE_PROTO_BUFS - 1). */
#define COURSE_PROTO_BUFS 64
/** Guard byte of output buffers: not a NaN, and not what any kernel computes by chance. */
#define COURSE_GUARD_OUT 0xA5
/** Guard byte of input buffers: 0xFF is a NaN in fp32, fp16 and bf16. */
#define COURSE_GUARD_IN 0xFF

/** What a request asks for. */
enum proto_op {
    PROTO_BUF_NEW = 1, /**< proto_buf_new, then the data when fill is PROTO_FILL_BYTES; the
                            reply's i is the allocation's address */
    PROTO_BUF_RELOC,   /**< proto_reloc: store a buffer's address inside another buffer */
    PROTO_BUF_READ,    /**< proto_buf_id; the reply carries the whole allocation, guards too */
    PROTO_BUF_FREE,    /**< proto_buf_id */
    PROTO_CALL,        /**< proto_call: call, synchronise, report */
    PROTO_TIME,        /**< proto_call: median ms of repeated calls (timer_measure) */
    PROTO_MAP,         /**< proto_call: a unary function over every element of a host buffer */
    PROTO_PEEK,        /**< proto_peek; the reply carries those bytes of the runner's memory */
    PROTO_QUIT,        /**< no payload: the runner exits 0 */
    PROTO_REPLY = 100, /**< a reply: proto_reply, or the bytes of a PROTO_BUF_READ */
};

/** Where a buffer lives. */
enum proto_mem {
    PROTO_HOST,   /**< malloc'd in the runner */
    PROTO_DEVICE, /**< cudaMalloc'd in the runner */
};

/** How a new buffer's data starts. */
enum proto_fill {
    PROTO_FILL_BYTES,  /**< the bytes that follow the request */
    PROTO_FILL_INT,    /**< mat_fill_int(seed) over bytes / 4 floats */
    PROTO_FILL_POISON, /**< 0xFF bytes (NaN) */
    PROTO_FILL_ZERO,   /**< zero bytes */
    PROTO_FILL_NONE,   /**< nothing: the device memory is allocated, and the judge, who holds
                            the observed device's memory, writes the whole image itself */
};

/** Every message starts with this. */
struct proto_head {
    uint32_t magic; /**< COURSE_PROTO_MAGIC */
    uint32_t op;    /**< a proto_op */
    uint64_t len;   /**< payload bytes that follow */
};

/** PROTO_BUF_NEW. */
struct proto_buf_new {
    uint32_t id;         /**< the judge's name for it, < COURSE_PROTO_BUFS */
    uint32_t mem;        /**< proto_mem */
    uint32_t fill;       /**< proto_fill */
    uint32_t guard_byte; /**< the byte every guard holds */
    uint64_t bytes;      /**< data bytes */
    uint64_t offset;     /**< bytes between the front guard and the data (misalignment) */
    uint64_t guard;      /**< guard bytes before and after, a multiple of 256 */
    uint64_t seed;       /**< PROTO_FILL_INT's seed */
};

/** PROTO_BUF_RELOC: at byte @c at of buffer @c buf, the address of buffer @c target + @c off. */
struct proto_reloc {
    uint32_t buf;    /**< the buffer written */
    uint32_t target; /**< the buffer pointed to */
    uint64_t at;     /**< byte offset in buf's data (8-byte aligned) */
    uint64_t off;    /**< byte offset in target's data */
};

/** PROTO_BUF_READ and PROTO_BUF_FREE. */
struct proto_buf_id {
    uint32_t id; /**< the buffer */
};

/** PROTO_PEEK: memory the student's code allocated (a pointer it returned in a struct). */
struct proto_peek {
    uint64_t addr;  /**< an address in the runner */
    uint64_t bytes; /**< how many bytes, at most 1 GiB */
};

/** Types of arguments and return values. */
enum proto_kind {
    PROTO_VOID, /**< no value (returns only) */
    PROTO_I32,  /**< int, enum */
    PROTO_I64,  /**< long, long long, size_t */
    PROTO_U16,  /**< uint16_t */
    PROTO_F32,  /**< float */
    PROTO_F64,  /**< double */
    PROTO_PTR,  /**< a buffer's data address + off; NULL when buf is PROTO_NO_BUF */
};

/** The buffer of a NULL pointer argument. */
#define PROTO_NO_BUF 0xFFFFFFFFu

/** One argument. */
struct proto_arg {
    uint32_t kind; /**< proto_kind */
    uint32_t buf;  /**< PROTO_PTR: the buffer, or PROTO_NO_BUF */
    uint64_t off;  /**< PROTO_PTR: bytes into its data */
    int64_t i;     /**< integer kinds */
    double f;      /**< float kinds */
};

/** PROTO_CALL, PROTO_TIME and PROTO_MAP. */
struct proto_call {
    char name[COURSE_PROTO_NAME];             /**< the function, NUL-terminated */
    uint32_t ret;                             /**< proto_kind of the return value */
    uint32_t nargs;                           /**< arguments used */
    struct proto_arg args[COURSE_PROTO_ARGS]; /**< MAP: args[0] in, args[1] out (buffers) */
    uint32_t sync;                            /**< 1: cudaDeviceSynchronize after the call */
    uint32_t warmup;                          /**< PROTO_TIME: untimed calls */
    uint32_t reps;                            /**< PROTO_TIME: samples; PROTO_MAP: elements */
    uint32_t gpu;                             /**< PROTO_TIME: CUDA events (1) or host clock */
};

/** The reply to everything but PROTO_BUF_READ. */
struct proto_reply {
    uint32_t ok;    /**< 1 when the request was carried out */
    int32_t cuda;   /**< cudaError_t after the call (0: none) */
    char what[160]; /**< when not ok or cuda != 0: why, NUL-terminated */
    int64_t i;      /**< integer return value */
    double f;       /**< float return value */
    double ms;      /**< PROTO_TIME: the median */
};

#endif /* COURSE_PROTO_H */
