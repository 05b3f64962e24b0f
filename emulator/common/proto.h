/**
 * @file proto.h
 * @brief The wire protocol between the runtime stand-in (client) and the device server.
 *
 * One connected unix stream socket. Every message is a head (operation and
 * payload length) followed by the payload: a fixed struct for the operation,
 * then its variable part. Both ends are built from the same source on the same
 * machine, so structs travel as they are in memory. The client sends; the
 * server answers the requests that need an answer (HELLO, LOAD, SYMBOL,
 * LAUNCH, MAP) with OK, LOADED, SYMBOL_AT, DONE or ERROR, and takes ALLOC, FREE and
 * WRITTEN without a reply (the socket keeps them in order before the next request).
 *
 *   HELLO    proto_hello, and the memfd of the device memory (SCM_RIGHTS)  -> OK | ERROR
 *   ALLOC    proto_block: mirror a block the client allocated               (no reply)
 *   FREE     proto_block: mirror a free (only addr is read)                 (no reply)
 *   WRITTEN  proto_block: the host wrote this range (copy, fill, library)   (no reply)
 *   LOAD     proto_load, origin (NUL-terminated), PTX text                  -> LOADED | ERROR
 *   SYMBOL   proto_symbol, name (NUL-terminated)                            -> SYMBOL_AT
 *   LAUNCH   proto_launch, the parameter buffer                             -> DONE
 *   MAP      proto_block (addr, size; from: offset; how: PROTO_MAP_HOST or 0), and another
 *            process's device memfd (SCM_RIGHTS), or none to show this span's own memory
 *            again (how: PROTO_MAP_SPAN, from offset `from`)              -> OK | ERROR
 *
 * A server that owns the device memory (a grader's: `--memory`) says so in HELLO's OK, whose
 * payload is then one byte, 1. Its client never sees that memory: it keeps its own memfd for
 * the blocks the host reaches (managed, pinned: MAP with PROTO_MAP_HOST shows them to the
 * server) and moves every other byte through the server:
 *
 *   WRITE    proto_block (addr, size), then the bytes: the host wrote them     (no reply)
 *   READ     proto_block (addr, size)                                        -> DATA
 *   COPY     proto_block (addr, size; from: the source): device to device     (no reply)
 *            (how: PROTO_COPY_ANSWER, a side is a pinned block: the host waits -> OK)
 *   FILL     proto_block (addr, size; from: the byte)                         (no reply)
 *   RECORD   proto_record, its proto_dep list, its name and its site: one operation queued
 *            on a stream, or one wait of the host (the stream record, rt_record.c) (no reply)
 *
 * LOADED carries proto_loaded, then the blocks vm_load() allocated for module
 * variables (proto_block each, for the client's table), then per kernel a
 * proto_kernel, its proto_param array and its name (NUL-terminated). DONE carries
 * proto_done, the one-line message, then the kernel's printf output.
 */
#ifndef EMU_PROTO_H
#define EMU_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "emu_counts.h"

/** Operations. */
enum proto_op {
    PROTO_HELLO = 1,
    PROTO_ALLOC,
    PROTO_FREE,
    PROTO_LOAD,
    PROTO_SYMBOL,
    PROTO_LAUNCH,
    PROTO_OK,
    PROTO_ERROR,
    PROTO_LOADED,
    PROTO_SYMBOL_AT,
    PROTO_DONE,
    PROTO_WRITTEN,
    PROTO_MAP,
    PROTO_WRITE,
    PROTO_READ,
    PROTO_COPY,
    PROTO_FILL,
    PROTO_DATA,
    PROTO_RECORD
};

/** MAP's how: the range is memory the host reaches (the client's memfd), not another
 *  process's device memory. */
#define PROTO_MAP_HOST 1u
/** MAP's how: show the device memory's own bytes from offset @ref proto_block::from (no memfd
 *  rides along): a block mapped at a reserved range (the driver's cuMemMap). */
#define PROTO_MAP_SPAN 2u

/** ALLOC's how: the block is a view of memory another block holds (mem_insert_view()). */
#define PROTO_ALLOC_VIEW 1u

/** COPY's how: answer OK once copied (between device memory and a pinned block, which the host
 *  reaches itself). */
#define PROTO_COPY_ANSWER 1u

/** The most bytes one WRITE or DATA message carries (larger moves take several). */
#define PROTO_MAX_MOVE ((size_t)1 << 26)

/** The most payload one message may carry (a PTX module is the largest). */
#define PROTO_MAX_PAYLOAD ((uint32_t)1 << 30)

/** Kernel printf output kept per launch, as a GPU's default printf buffer. */
#define PROTO_MAX_OUTPUT ((size_t)1 << 20)

/** The message head. */
struct proto_head {
    uint32_t op;  /**< enum proto_op */
    uint32_t len; /**< payload bytes that follow */
};

/** HELLO: the device memory the client created (the memfd rides along). */
struct proto_hello {
    uint64_t base, span, heap, capacity; /**< as in struct emu_mem */
    uint32_t gpus;                       /**< emulated GPUs */
};

/** How the host wrote a range it announces (WRITTEN). */
enum proto_wrote {
    PROTO_WROTE_HOST, /**< a copy from host memory, a library stand-in, a host mapping */
    PROTO_WROTE_FILL, /**< a fill with the byte in @ref proto_block::from */
    PROTO_WROTE_COPY, /**< a copy from device memory at @ref proto_block::from */
};

/** ALLOC, FREE, WRITTEN and MAP: one range. */
struct proto_block {
    uint64_t addr, size;
    int32_t device;
    uint32_t how;  /**< WRITTEN: enum proto_wrote; MAP, COPY: flags (above) */
    uint64_t from; /**< WRITTEN: the fill byte, or the copy's source; MAP: the memfd offset */
};

/** LOAD: the client's number for the module (index into the server's table). */
struct proto_load {
    uint32_t module;
    uint64_t heap_bytes; /**< cudaLimitMallocHeapSize now: the heap's size if this module
                              is the first to use one */
};

/** LOADED: counts of what follows. */
struct proto_loaded {
    uint32_t blocks;  /**< proto_block records */
    uint32_t kernels; /**< proto_kernel records */
    uint32_t heap;    /**< 1: the device heap exists (this module or an earlier one uses it) */
};

/** LOADED: one kernel parameter, where it sits in the parameter buffer (the VM's vm_param). */
struct proto_param {
    uint32_t offset; /**< byte offset in the buffer */
    uint32_t size;   /**< bytes */
};

/** LOADED: one kernel (followed by nparams proto_param and the name). */
struct proto_kernel {
    uint32_t nparams, param_bytes, static_smem, local_bytes, maxntid, reqntid[3];
    uint32_t cluster[3], explicit_cluster, max_cluster_rank; /**< vm_kernel's cluster fields */
};

/** SYMBOL: which module to ask. */
struct proto_symbol {
    uint32_t module;
};

/** SYMBOL_AT: the answer; addr 0 when there is no such variable. */
struct proto_symbol_at {
    uint64_t addr, size;
};

/** LAUNCH: one grid (the parameter buffer follows). */
struct proto_launch {
    uint32_t module, kernel;
    uint32_t grid[3], block[3];
    uint32_t dyn_smem, smem_limit;
    uint32_t device;      /**< the emulated GPU, for the observer's record */
    uint32_t count;       /**< 1: fill the counters in the reply */
    uint32_t cooperative; /**< 1: cudaLaunchCooperativeKernel (vm_launch::cooperative) */
    uint32_t stack_bytes; /**< cudaLimitStackSize (vm_launch::stack_bytes) */
    uint32_t
        pending_launches; /**< cudaLimitDevRuntimePendingLaunchCount (vm_launch::pending_limit) */
    uint64_t stream;     /**< the stream record's name for the operation that runs it (its stream */
    uint64_t seq;        /**< and number, proto_record), or seq 0 when it has none */
    uint32_t cluster[3]; /**< blocks per cluster (vm_launch::cluster); zeros: none given */
};

/** DONE: how the launch ended (the message and the printf output follow). */
struct proto_done {
    int32_t status;   /**< enum vm_status */
    uint32_t msg_len; /**< bytes of message (no NUL) */
    uint32_t out_len; /**< bytes of printf output */
    uint32_t counted; /**< 1: counters hold this launch's counts */
    uint32_t reports; /**< the checks' findings this launch printed (vm_result::reports) */
    struct vm_counters counters;
};

/** RECORD: what an operation is (the first seven are operations queued on a stream). */
enum proto_record_kind {
    PROTO_RECORD_KERNEL, /**< a launch */
    PROTO_RECORD_COPY,   /**< a copy: proto_record::sides says which sides are device memory */
    PROTO_RECORD_FILL,   /**< a fill of device memory */
    PROTO_RECORD_EVENT,  /**< an event record */
    PROTO_RECORD_WAIT,   /**< a wait for an event (cudaStreamWaitEvent, an event wait node) */
    PROTO_RECORD_HOST,   /**< a host function or callback */
    PROTO_RECORD_NOP,    /**< nothing (an empty graph node) */
    PROTO_RECORD_SYNC,   /**< the host waited (stream PROTO_RECORD_HOST_STREAM): what it waited
                              for are its dependencies; everything the host queues after it
                              follows it */
    PROTO_RECORD_MARK,   /**< a label for what follows (course_emu_mark()): no operation */
};

/** The stream of the host's waits in the stream record. */
#define PROTO_RECORD_HOST_STREAM UINT64_MAX

/** RECORD: one operation, named by its stream and its number there (followed by ndeps proto_dep,
 *  name_len bytes of name and site_len bytes of site, neither NUL-terminated). */
struct proto_record {
    uint64_t stream;         /**< the stream's handle; 0: the legacy default stream */
    uint64_t seq;            /**< its number in the stream, from 1 */
    uint32_t kind;           /**< enum proto_record_kind */
    uint32_t sides;          /**< copies: bit 0 the destination is device memory, bit 1 the
                                  source; bits 2 and 3: that side is pinned host memory */
    uint64_t dst, dst_bytes; /**< copies and fills: the range written (first to last byte) */
    uint64_t src, src_bytes; /**< copies: the range read */
    uint32_t graph;          /**< 1: a node of a graph's launch */
    uint32_t ndeps;          /**< how many proto_dep follow: the operations it follows */
    uint32_t name_len;       /**< the call, or the kernel's name */
    uint32_t site_len;       /**< where the program issued it (file:line (function)) */
};

/** RECORD: one dependency, "after operation seq of stream stream". */
struct proto_dep {
    uint64_t stream, seq;
};

/** A received message: the payload is malloc'd and owned by the caller. */
struct proto_msg {
    uint32_t op;
    uint32_t len;
    uint8_t *data; /**< len bytes (plus a NUL after them), or NULL when len is 0 */
    int fd;        /**< a descriptor that came with it, or -1 */
};

/**
 * Send one message made of @p nparts pieces, with descriptor @p pass_fd
 * attached when it is >= 0. Never raises SIGPIPE. Returns 0, or -1 when the
 * peer is gone.
 */
int proto_send(int sock, uint32_t op, const struct iovec *parts, int nparts, int pass_fd);

/** Receive one message into @p msg. Returns 0, or -1 at end of stream or on error. */
int proto_recv(int sock, struct proto_msg *msg);

#endif /* EMU_PROTO_H */
