/**
 * @file server_judge.h
 * @brief The device server's side of a grade: what it tells the grader who observes it.
 *
 * A grader (tests/common/course_judge.c) starts the server with `--observe FD` and, to keep
 * the device memory from the graded process, `--memory FD`. It then speaks lines on FD
 * (server.c's file comment lists them): it marks its buffers, opens and closes each graded
 * call (a window), names the program whose PTX is the lesson's own, and asks what the record
 * found. This file keeps what the grader is told: the kernels' findings since the call
 * began, the host's reads of inputs, the device work done outside any call, the call's
 * totals, and each module's identity (a hash of its PTX, and whether it is the lesson's own).
 */
#ifndef EMU_SERVER_JUDGE_H
#define EMU_SERVER_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "proto.h"
#include "vm.h"

/** One loaded module's identity. */
struct judge_module {
    uint64_t hash; /**< FNV-1a of its PTX text */
    char *ptx;     /**< the text (kept to compare with the lesson's own, which may come later) */
    size_t len;
};

/** What the grader is told. Zero-initialise; fd -1 when nobody observes. */
struct judge {
    int fd;                       /**< the grader's socket, or -1 */
    int window;                   /**< 1 between the grader's "begin" and "end" */
    struct vm_prov call;          /**< the kernels' findings since "begin" */
    struct vm_prov_hit hostread;  /**< host reads of inputs (MEM_DERIVED bytes) */
    struct vm_prov_hit outside;   /**< device work outside a window (kept until reported) */
    uint64_t launches, params;    /**< launches since "begin", and their parameter bytes */
    struct judge_module *modules; /**< by the client's module number */
    uint32_t nmodules;
    uint64_t *own_hash; /**< the lesson's own PTX texts ("own PATH"): hash and length */
    size_t *own_len;
    size_t nown;
    int own_known; /**< 1 once "own" was served */
};

/** The client loaded module @p id from @p ptx (@p len bytes): keep its identity. */
void judge_module_loaded(struct judge *j, uint32_t id, const char *ptx, size_t len);

/** " module=HASH own=0|1" for the observer's launch line of module @p id (into @p buf). */
void judge_module_words(const struct judge *j, uint32_t id, char *buf, size_t size);

/** A launch of @p kernel ended with findings @p prov and @p params bytes of parameters. */
void judge_launched(struct judge *j, const char *kernel, const struct vm_prov *prov,
                    uint32_t params);

/** The client asks for host operation @p op (WRITE, READ, COPY, FILL, WRITTEN, MAP) on @p b:
 *  counted when outside a window; a READ of derived bytes is a host read of an input. */
void judge_host_op(struct judge *j, struct emu_mem *m, uint32_t op, const struct proto_block *b);

/** Serve one grader command @p line (server.c's file comment lists them). Returns 0, or -1
 *  when the line is no command. */
int judge_command(struct judge *j, struct emu_mem *m, const char *line);

#endif /* EMU_SERVER_JUDGE_H */
