/**
 * @file rt_server.c
 * @brief The runtime stand-in: starting the device (memory and server) and talking to it.
 *
 * The device starts at the first call that needs it, never at registration
 * (static constructors run in processes that fork() later, such as Check's
 * parent). It creates the device memory here (mem_create: the memfd, the
 * inaccessible reservation, the alias) and then either spawns the server,
 * course-emu-device beside the library's folder (lib/../course-emu-device),
 * or, when COURSE_EMU_FD=N is set (judge mode), uses inherited socket N to a
 * server somebody else started. Either way the memfd goes to the server in
 * HELLO. A spawned server runs the sanitizer's checks named by COURSE_EMU_CHECKS
 * (e.g. mem,race,sync,init) and appends its findings to the file COURSE_EMU_REPORT
 * names, beside printing them (./course sanitize sets both); COURSE_EMU_SCHEDULE=reverse runs
 * each block's warps last first (server.c's --schedule).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto.h"
#include "rt.h"

extern char **environ;

/* Address space for allocations: far more than the capacity, so freed ranges rest long. The
 * span is twice that: its second half is the driver's, for cuMemAddressReserve (drv_vmm.c). */
static uint64_t heap_for(uint64_t capacity)
{
    uint64_t heap = (uint64_t)64 << 30;
    return 4 * capacity > heap ? 4 * capacity : heap;
}

/* The server binary: lib/../course-emu-device next to this library. */
static int server_path(char *path, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)server_path, &info) || !info.dli_fname)
        return -1;
    char lib[4096];
    snprintf(lib, sizeof lib, "%s", info.dli_fname);
    snprintf(path, size, "%s/../course-emu-device", dirname(lib));
    return access(path, X_OK);
}

/* Spawn the server on one end of a socketpair; the other end becomes rt.sock. */
static cudaError_t spawn_server(void)
{
    char path[4200], fdarg[16];
    if (server_path(path, sizeof path)) {
        emu_say("cannot find the device server course-emu-device beside libcudart.so.13 "
                "(build the emulator: cmake --build build --target course-emu-device)");
        return cudaErrorInitializationError;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        emu_say("socketpair failed: %s", strerror(errno));
        return cudaErrorInitializationError;
    }
    snprintf(fdarg, sizeof fdarg, "%d", sv[1]);
    char *argv[10] = {path, "--fd", fdarg};
    int argc = 3;
    static const char *const options[][2] = {{"COURSE_EMU_CHECKS", "--checks"},
                                             {"COURSE_EMU_REPORT", "--report"},
                                             {"COURSE_EMU_SCHEDULE", "--schedule"}};
    for (int i = 0; i < 3; i++) {
        char *value = getenv(options[i][0]);
        if (value && *value) {
            argv[argc++] = (char *)options[i][1];
            argv[argc++] = value;
        }
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], sv[1]); /* same number: clears close-on-exec */
    int rc = posix_spawn(&rt.server, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    if (rc) {
        close(sv[0]);
        emu_say("cannot start %s: %s", path, strerror(rc));
        return cudaErrorInitializationError;
    }
    rt.sock = sv[0];
    return cudaSuccess;
}

/* Judge mode: use the socket inherited as COURSE_EMU_FD. */
static cudaError_t join_server(const char *env)
{
    char *end;
    long fd = strtol(env, &end, 10);
    struct stat st;
    if (*end || fd < 0 || fd > 65535 || fstat((int)fd, &st) || !S_ISSOCK(st.st_mode)) {
        emu_say("COURSE_EMU_FD='%s' is not an open socket to a device server", env);
        return cudaErrorInitializationError;
    }
    rt.sock = (int)fd;
    return cudaSuccess;
}

/* Say how the server ended, once the connection broke. */
static void server_gone(void)
{
    int status = 0;
    if (rt.server > 0 && waitpid(rt.server, &status, 0) != rt.server)
        status = 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
        emu_say("the device server refused its options (the line above says why)");
    else if (WIFSIGNALED(status))
        emu_say("the device server died of signal %d: an emulator bug; please report it with the "
                "kernel that was running",
                WTERMSIG(status));
    else
        emu_say("the device server stopped answering: an emulator bug; please report it");
    rt.server = 0;
    rt.sticky = cudaErrorLaunchFailure;
}

int rt_call(uint32_t op, const struct iovec *parts, int nparts, struct proto_msg *reply)
{
    return rt_call_fd(op, parts, nparts, -1, reply);
}

int rt_call_fd(uint32_t op, const struct iovec *parts, int nparts, int fd, struct proto_msg *reply)
{
    if (rt.sock < 0)
        return -1;
    if (proto_send(rt.sock, op, parts, nparts, fd) == 0 && proto_recv(rt.sock, reply) == 0)
        return 0;
    server_gone();
    close(rt.sock);
    rt.sock = -1;
    return -1;
}

int rt_post(uint32_t op, const void *data, size_t len)
{
    struct iovec part = {(void *)data, len};
    return rt_post_parts(op, &part, 1);
}

int rt_post_parts(uint32_t op, const struct iovec *parts, int nparts)
{
    if (rt.sock >= 0 && proto_send(rt.sock, op, parts, nparts, -1) == 0)
        return 0;
    if (rt.sock >= 0) {
        server_gone();
        close(rt.sock);
        rt.sock = -1;
    }
    return -1;
}

cudaError_t rt_server_map(uint64_t addr, uint64_t size, int fd, uint64_t offset, uint32_t how)
{
    struct proto_block b = {addr, size, 0, how, offset};
    struct iovec part = {&b, sizeof b};
    struct proto_msg reply;
    if (rt_call_fd(PROTO_MAP, &part, 1, fd, &reply))
        return rt.sticky;
    cudaError_t err = cudaSuccess;
    if (reply.op != PROTO_OK) {
        emu_say("%s", reply.data ? (const char *)reply.data : "the device server cannot map");
        err = cudaErrorMapBufferObjectFailed;
    }
    free(reply.data);
    return err;
}

/* HELLO: hand the memory to the server and wait for its answer. */
static cudaError_t hello(void)
{
    struct proto_hello h = {rt.mem.base, rt.mem.span, rt.mem.heap, rt.mem.capacity,
                            (uint32_t)rt.gpus};
    struct iovec part = {&h, sizeof h};
    struct proto_msg reply;
    if (proto_send(rt.sock, PROTO_HELLO, &part, 1, rt.mem.fd) || proto_recv(rt.sock, &reply)) {
        server_gone();
        return cudaErrorInitializationError;
    }
    cudaError_t err = cudaSuccess;
    if (reply.op != PROTO_OK) {
        emu_say("the device server refused the memory: %s",
                reply.data ? (const char *)reply.data : "no reason given");
        err = cudaErrorInitializationError;
    }
    rt.remote = reply.op == PROTO_OK && reply.len == 1 && reply.data[0] == 1; /* rt_remote.c */
    free(reply.data);
    return err;
}

cudaError_t rt_start(void)
{
    char err[256];
    if (!rt_gpus())
        return cudaErrorNoDevice;
    uint64_t heap = heap_for(rt.capacity);
    if (mem_create(&rt.mem, 2 * heap, rt.capacity, err, sizeof err)) {
        emu_say("%s", err);
        return cudaErrorInitializationError;
    }
    rt.mem.heap = heap;
    const char *judge = getenv("COURSE_EMU_FD");
    cudaError_t e = judge && *judge ? join_server(judge) : spawn_server();
    if (e == cudaSuccess)
        e = hello();
    if (e != cudaSuccess) {
        mem_destroy(&rt.mem);
        if (rt.sock >= 0)
            close(rt.sock);
        rt.sock = -1;
        return e;
    }
    rt.started = 1;
    rt.pid = getpid();
    const char *checks = getenv("COURSE_EMU_CHECKS");
    rt.leak_check = checks && strstr(checks, "mem");
    if (checks && strstr(checks, "host"))
        rt_hostcheck_start();
    return cudaSuccess;
}

cudaError_t rt_device(void)
{
    static cudaError_t start_failed; /* said once; every later call returns it */
    if (start_failed != cudaSuccess)
        return start_failed;
    if (rt.started && rt.pid != getpid()) {
        emu_say("this process was forked after it used the device; as with a GPU, the child "
                "cannot use it (use CUDA only after fork(), or exec a new program)");
        return start_failed = cudaErrorInitializationError;
    }
    if (!rt.started && (start_failed = rt_start()) != cudaSuccess)
        return start_failed;
    return rt.sticky;
}
