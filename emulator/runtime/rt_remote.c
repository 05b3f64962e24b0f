/**
 * @file rt_remote.c
 * @brief The runtime stand-in on a device whose memory it does not hold (a grader's).
 *
 * A grader's device server owns the device memory (server.c, `--memory`), as a GPU owns its
 * own: this process never maps it. Copies and fills that touch it are done by the server,
 * which sees every byte the host moves: bytes written (WRITE), read back (READ: the server
 * records what the host read, and answers with the bytes), copied device to device (COPY) and
 * filled (FILL). Memory the host reaches itself (managed, pinned) stays this process's own
 * memfd, shown to the server at the same addresses (MAP with PROTO_MAP_HOST).
 */
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "rt.h"

/* One range message (no reply) with @p data after it when not NULL. */
static int post_range(uint32_t op, uint64_t addr, uint64_t size, uint64_t from, const void *data)
{
    struct proto_block b = {addr, size, 0, 0, from};
    struct iovec parts[2] = {{&b, sizeof b}, {(void *)data, data ? size : 0}};
    return rt_post_parts(op, parts, data ? 2 : 1);
}

int rt_remote_write(const void *dev, const void *src, size_t bytes)
{
    uint64_t a = (uint64_t)(uintptr_t)dev;
    for (size_t at = 0; at < bytes; at += PROTO_MAX_MOVE) {
        size_t n = bytes - at < PROTO_MAX_MOVE ? bytes - at : PROTO_MAX_MOVE;
        if (post_range(PROTO_WRITE, a + at, n, 0, (const char *)src + at))
            return -1;
    }
    return 0;
}

int rt_remote_read(void *dst, const void *dev, size_t bytes)
{
    uint64_t a = (uint64_t)(uintptr_t)dev;
    for (size_t at = 0; at < bytes; at += PROTO_MAX_MOVE) {
        size_t n = bytes - at < PROTO_MAX_MOVE ? bytes - at : PROTO_MAX_MOVE;
        struct proto_block b = {a + at, n, 0, 0, 0};
        struct iovec part = {&b, sizeof b};
        struct proto_msg reply;
        if (rt_call(PROTO_READ, &part, 1, &reply))
            return -1;
        int ok = reply.op == PROTO_DATA && reply.len == n;
        if (ok)
            memcpy((char *)dst + at, reply.data, n);
        free(reply.data);
        if (!ok) {
            emu_say("the device server answered a read of %zu bytes with something else (an "
                    "emulator bug)",
                    n);
            return -1;
        }
    }
    return 0;
}

int rt_remote_copy(const void *dst, const void *src, size_t bytes)
{
    return post_range(PROTO_COPY, (uint64_t)(uintptr_t)dst, bytes, (uint64_t)(uintptr_t)src, NULL);
}

int rt_remote_copy_pinned(const void *dst, const void *src, size_t bytes)
{
    struct proto_block b = {(uint64_t)(uintptr_t)dst, bytes, 0, PROTO_COPY_ANSWER,
                            (uint64_t)(uintptr_t)src};
    struct iovec part = {&b, sizeof b};
    struct proto_msg reply;
    if (rt_call(PROTO_COPY, &part, 1, &reply))
        return -1;
    free(reply.data);
    if (reply.op != PROTO_OK) {
        emu_say("the device server answered a copy of %zu bytes with something else (an emulator "
                "bug)",
                bytes);
        return -1;
    }
    return 0;
}

int rt_remote_fill(const void *dev, int value, size_t bytes)
{
    return post_range(PROTO_FILL, (uint64_t)(uintptr_t)dev, bytes, (uint8_t)value, NULL);
}

int rt_remote_show_host(const void *dev, size_t bytes)
{
    struct proto_block b = {(uint64_t)(uintptr_t)dev, bytes, 0, PROTO_MAP_HOST,
                            (uint64_t)(uintptr_t)dev - rt.mem.base};
    struct iovec part = {&b, sizeof b};
    struct proto_msg reply;
    if (rt_call_fd(PROTO_MAP, &part, 1, rt.mem.fd, &reply))
        return -1;
    int ok = reply.op == PROTO_OK;
    if (!ok)
        emu_say("%s", reply.data ? (const char *)reply.data : "the device server cannot map it");
    free(reply.data);
    return ok ? 0 : -1;
}
