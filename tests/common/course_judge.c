/**
 * @file course_judge.c
 * @brief The judge's side of a lesson suite: runners, buffers, calls, student programs.
 */
#define _GNU_SOURCE /* pipe2, closefrom, memfd_create */
#include "course_judge.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "baseline.h"
#include "bench.h"
#include "course_diff.h"
#include "course_sandbox.h"
#include "course_test.h"
#include "emu_prov.h"
#include "ref.h"

#ifndef COURSE_EMULATOR_LIB
/** Where the emulator's libcudart.so.13 and friends are built (CMake defines it). */
#define COURSE_EMULATOR_LIB "emulator/lib"
#endif

int course_judge_budget_s = 60;
static double case_deadline_s; /* when this case's runners and programs are killed, or 0 */

/* What the judge knows of a buffer it made in the runner. */
struct judge_buf {
    int live;
    size_t bytes, data_at, total;
    unsigned char guard_byte;
    enum proto_mem mem;
    uint64_t addr; /* the allocation's address in the runner */
    int addrs;     /* 1: holds addresses in the runner (relocated), which its twin's do not */
};

/* Most launches one call may make on an observed runner (a metric case makes a few). */
enum { MAX_LAUNCHES = 4096 };

/* Most bytes of kernel parameters one call's launches may pass on an observed runner: ample for
 * pointers and sizes, far short of any output the cases check (a host-computed answer smuggled
 * in as parameters). */
#define COURSE_PARAM_BUDGET 4096

/* Lines the device server answers "findings" with (server.c). */
enum { FINDINGS = 6 };

/* The device server of an observed runner, and what its observer has said. */
struct observer {
    pid_t server;    /* course-emu-device, the judge's child, or 0 */
    int fd;          /* read end of its observer pipe, or -1 */
    int mem_fd;      /* the device memory (a memfd the judge made and hands the server), or -1 */
    uint8_t *mem;    /* where the judge maps it, once the server placed it (device_memory()) */
    uint64_t base;   /* the device address of its first byte */
    uint64_t span;   /* its bytes */
    char line[4096]; /* the start of a line not yet complete */
    size_t len;      /* bytes in line */
    int overflow;    /* 1: the call made more than MAX_LAUNCHES launches, or a line was garbage */
    struct course_launch *launches; /* the current call's, MAX_LAUNCHES of room */
    int nlaunches;
    char answer[FINDINGS][600]; /* the answers to the last question (observer_ask()) */
    int nanswers;
    char *record; /* the current call's stream record: its op and footprint lines */
    size_t nrecord, caprecord;
    char call[COURSE_PROTO_NAME]; /* the call being made, for COURSE_DIFF_COUNTS */
};

struct course_runner {
    pid_t pid;         /* the runner, leader of its own process group */
    int to, from;      /* request and reply pipes */
    int out_fd;        /* the runner's stdout and stderr */
    int gpu;           /* 1: buffers on the device, synchronise after calls */
    double deadline_s; /* monotonic time after which the judge kills it */
    struct observer obs;
    struct judge_buf bufs[COURSE_PROTO_BUFS];
    struct course_runner *twin; /* COURSE_DIFF's twin (course_diff.h), or NULL */
    const char *role;           /* "" or what a twin is, for failure messages */
    struct proto_call last;     /* the last call or map, for differential lines */
    char kernels[256];          /* the kernels it launched, comma-separated (observed runners) */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The moment the judge gives up on what the case runs: course_judge_budget_s after the case's
 * first runner or program started (a case runs in a process of its own: Check forks). */
static double deadline(void)
{
    if (case_deadline_s == 0)
        case_deadline_s = now_s() + course_judge_budget_s;
    return case_deadline_s;
}

/* Append @p len bytes of @p line to @p buf (@p *out used of @p size), " | " before all but the
 * first line, control bytes dropped; a line that does not fit is cut. */
static void append_line(char *buf, size_t size, size_t *out, const char *line, size_t len)
{
    if (*out && *out + 4 < size) {
        memcpy(buf + *out, " | ", 3);
        *out += 3;
    }
    for (size_t i = 0; i < len && *out + 1 < size; i++)
        if ((unsigned char)line[i] >= ' ')
            buf[(*out)++] = line[i];
    buf[*out] = '\0';
}

/* Is @p line one the emulator printed about the code (a fault, a check's finding), not one
 * about leaks at exit, which a crash causes and which say nothing of its cause, nor the count of
 * the lines above it that closes the run? */
static int emulator_line(const char *line)
{
    return !strncmp(line, "emulator: ", 10) && !strstr(line, "leak-check") &&
           !strstr(line, "reported during this run");
}

/*
 * What a child printed to @p fd, for a failure message: into @p faults the emulator's lines,
 * whole (a fault names the access, the allocation, the file:line, the block and the thread;
 * the CUDA error the code prints after it only echoes it); into @p tail its last lines not
 * the emulator's (leaks at exit are not worth the room). Each on one line, " | " between lines.
 */
static void output_tail(int fd, char *faults, size_t fsize, char *tail, size_t tsize)
{
    enum { KEEP = 1 << 16, TAIL = 300, FAULTS = 3 };
    char *raw = mat_alloc(KEEP + 1);
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end > KEEP ? end - KEEP : 0;
    ssize_t got = end > 0 ? pread(fd, raw, KEEP, from) : 0;
    raw[got > 0 ? got : 0] = '\0';
    char *first = from > 0 ? raw + strcspn(raw, "\n") : raw; /* a line that began before */
    char *stop = raw + (got > 0 ? got : 0);
    size_t others = 0, seen = 0, nf = 0, nt = 0; /* bytes of lines not the emulator's */
    for (char *l = first; l < stop; l += strlen(l) + 1) {
        l[strcspn(l, "\n")] = '\0';
        others += *l && strncmp(l, "emulator: ", 10) ? strlen(l) + 1 : 0;
    }
    faults[0] = tail[0] = '\0';
    int n = 0;
    for (char *l = first; l < stop; l += strlen(l) + 1) {
        size_t len = strlen(l);
        if (emulator_line(l) && n < FAULTS && !strstr(faults, l + 10)) {
            append_line(faults, fsize, &nf, l + 10, len - 10);
            n++;
        } else if (len && strncmp(l, "emulator: ", 10)) {
            seen += len + 1;
            if (seen + TAIL >= others + len + 1 || seen == others) /* the last TAIL bytes */
                append_line(tail, tsize, &nt, l, len);
        }
    }
    free(raw);
}

/* The emulator's lines a runner printed (see output_tail) and "; then ", or "", into @p buf. */
static const char *faults_first(int out_fd, char *buf, size_t size)
{
    char tail[8];
    output_tail(out_fd, buf, size - 8, tail, sizeof tail);
    if (buf[0])
        strcat(buf, "; then ");
    return buf;
}

/* How a process ended, in words. */
static void describe_status(int st, char *buf, size_t size)
{
    if (WIFSIGNALED(st))
        snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st))
        snprintf(buf, size, "exited with status %d", WEXITSTATUS(st));
    else
        snprintf(buf, size, "stopped");
}

/* ---- runners --------------------------------------------------------------------------- */

static const char *runner_path, *runner_lib;

void course_judge_set_lesson(const char *runner, const char *lib)
{
    runner_path = runner;
    runner_lib = lib;
}

/* A library that calls cuBLAS, the baselines or the CPU references grades nothing; nor does one
 * that defines names of the CUDA runtime (the runner's own calls would reach its code). */
static void assert_own_code(void)
{
    static const char *const yardsticks[] = {"cublas", "baseline_", "ref_"};
    for (int i = 0; runner_lib && i < 3; i++) {
        int n = course_undefined_symbols(runner_lib, yardsticks[i]);
        ck_assert_msg(n == 0, "the lesson library calls %s* (%d symbols): its code must be its own",
                      yardsticks[i], n);
    }
    char first[256] = "";
    int n = runner_lib ? course_runtime_symbols(runner_lib, first, sizeof first) : 0;
    ck_assert_msg(n == 0,
                  "the lesson library defines %s (and %d more names of the CUDA runtime): a "
                  "lesson's code must not replace the runtime",
                  first, n - 1);
}

/* ---- the observer: a device server only the judge talks to ----------------------------------
 *
 * An observed runner reaches its GPU through a socket to a course-emu-device the judge started
 * (COURSE_EMU_FD), which writes one line per launch to a socket only the judge holds, and
 * answers the judge's questions about its provenance record there (the format is in
 * emulator/server/server.c). The server runs as the judge's user, not the sandbox's: the runner can
 * reach neither its memory's record nor that socket.
 */

/* The device server beside the emulator's libraries. */
static const char *server_path(void)
{
    return COURSE_EMULATOR_LIB "/../course-emu-device";
}

/* In the child: the server on socket @p sock, observer pipe @p pipe_fd, device memory @p mem_fd.
 * Never returns. */
static void exec_server(int sock, int pipe_fd, int mem_fd, int err_fd, pid_t judge)
{
    int s = fcntl(sock, F_DUPFD, 10), o = fcntl(pipe_fd, F_DUPFD, 10);
    int m = fcntl(mem_fd, F_DUPFD, 10);
    int null = open("/dev/null", O_RDWR);
    if (s < 0 || o < 0 || m < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
        dup2(err_fd, 2) < 0 || dup2(s, 3) < 0 || dup2(o, 4) < 0 || dup2(m, 5) < 0)
        _exit(126);
    closefrom(6);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != judge)
        _exit(125);
    /* ./course sanitize's checks reach observed runners too (the judge's environment), and so
     * does a warp schedule. */
    const char *checks = getenv("COURSE_EMU_CHECKS"), *report = getenv("COURSE_EMU_REPORT");
    const char *schedule = getenv("COURSE_EMU_SCHEDULE");
    char *argv[14] = {(char *)server_path(), "--fd", "3", "--observe", "4", "--memory", "5"};
    int argc = 7; /* and a NULL */
    if (schedule && *schedule) {
        argv[argc++] = "--schedule";
        argv[argc++] = (char *)schedule;
    }
    if (checks && *checks) {
        argv[argc++] = "--checks";
        argv[argc++] = (char *)checks;
    }
    if (report && *report) {
        argv[argc++] = "--report";
        argv[argc++] = (char *)report;
    }
    execv(server_path(), argv);
    fprintf(stderr, "cannot run %s: %s\n", server_path(), strerror(errno));
    _exit(127);
}

/* Start @p r's device server; *client is the socket end the runner inherits. */
static void observer_start(struct course_runner *r, int *client)
{
    ck_assert_msg(access(server_path(), X_OK) == 0,
                  "no device server at %s: build the course_emulator target", server_path());
    int sv[2], ob[2];
    ck_assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0 &&
              socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ob) == 0);
    /* The device memory is the judge's: the runner never holds it (emulator/server.c). */
    r->obs.mem_fd = memfd_create("course-judge-device-memory", MFD_CLOEXEC);
    ck_assert_msg(r->obs.mem_fd >= 0, "memfd_create: %s", strerror(errno));
    pid_t judge = getpid();
    r->obs.server = fork();
    ck_assert_msg(r->obs.server >= 0, "fork: %s", strerror(errno));
    if (r->obs.server == 0)
        exec_server(sv[0], ob[1], r->obs.mem_fd, r->out_fd, judge);
    close(sv[0]);
    close(ob[1]);
    r->obs.fd = ob[0];
    fcntl(r->obs.fd, F_SETFL, O_NONBLOCK);
    r->obs.launches = mat_alloc(MAX_LAUNCHES * sizeof *r->obs.launches);
    *client = sv[1];
}

/* Where each observer key goes in struct vm_counters. */
static const struct {
    const char *key;
    size_t at;
} counter_keys[] = {
#define AT(field) offsetof(struct vm_counters, field)
    {"warp_insts", AT(warp_insts)},
    {"thread_insts", AT(thread_insts)},
    {"fma32", AT(class_insts[VM_CLASS_FMA32])},
    {"fp", AT(class_insts[VM_CLASS_FP])},
    {"int", AT(class_insts[VM_CLASS_INT])},
    {"ldg", AT(class_insts[VM_CLASS_LDG])},
    {"stg", AT(class_insts[VM_CLASS_STG])},
    {"lds", AT(class_insts[VM_CLASS_LDS])},
    {"sts", AT(class_insts[VM_CLASS_STS])},
    {"tensor", AT(class_insts[VM_CLASS_TENSOR])},
    {"control", AT(class_insts[VM_CLASS_CONTROL])},
    {"other", AT(class_insts[VM_CLASS_OTHER])},
    {"gld_requests", AT(gld_requests)},
    {"gld_sectors", AT(gld_sectors)},
    {"gst_requests", AT(gst_requests)},
    {"gst_sectors", AT(gst_sectors)},
    {"lds_requests", AT(lds_requests)},
    {"lds_wavefronts", AT(lds_wavefronts)},
    {"sts_requests", AT(sts_requests)},
    {"sts_wavefronts", AT(sts_wavefronts)},
    {"unique_read_bytes", AT(unique_read_bytes)},
    {"unique_write_bytes", AT(unique_write_bytes)},
    {"barriers", AT(barriers)},
    {"branches", AT(branches)},
    {"divergent_branches", AT(divergent_branches)},
    {"flops", AT(flops)},
    {"gatom_lanes", AT(gatom_lanes)},
    {"satom_lanes", AT(satom_lanes)},
    {"gatom_same_addr", AT(gatom_same_addr)},
    {"satom_same_addr", AT(satom_same_addr)},
    {"gatom_addrs", AT(gatom_addrs)},
    {"tensor_flops", AT(tensor_flops)},
    {"lds_conflicts", AT(lds_conflicts)},
    {"sts_conflicts", AT(sts_conflicts)},
    {"overlapped_flops", AT(overlapped_flops)},
    {"tma_copies", AT(tma_copies)},
    {"tma_ld_bytes", AT(tma_ld_bytes)},
    {"tma_ld_sectors", AT(tma_ld_sectors)},
    {"tma_st_sectors", AT(tma_st_sectors)},
    {"wgmma_insts", AT(wgmma_insts)},
    {"wgmma_flops", AT(wgmma_flops)},
    {"wgmma_overlapped_flops", AT(wgmma_overlapped_flops)},
    {"fp64_insts", AT(fp64_insts)},
    {"dmma_flops", AT(dmma_flops)},
    {"sfu_insts", AT(sfu_insts)},
    {"wgmma_8bit_flops", AT(wgmma_8bit_flops)},
#undef AT
};

/* One observer line into @p l; 0, or -1 when it is not one. */
static int parse_launch(char *line, struct course_launch *l)
{
    memset(l, 0, sizeof *l);
    char *save, *tok = strtok_r(line, " ", &save);
    if (!tok || strcmp(tok, "launch"))
        return -1;
    int fields = 0;
    while ((tok = strtok_r(NULL, " ", &save))) {
        char *v = strchr(tok, '=');
        if (!v)
            return -1;
        *v++ = '\0';
        unsigned long long n = strtoull(v, NULL, 10);
        if (!strcmp(tok, "kernel"))
            fields += snprintf(l->kernel, sizeof l->kernel, "%s", v) > 0;
        else if (!strcmp(tok, "status"))
            fields += snprintf(l->status, sizeof l->status, "%s", v) > 0;
        else if (!strcmp(tok, "grid"))
            fields += sscanf(v, "%u,%u,%u", &l->grid[0], &l->grid[1], &l->grid[2]) == 3;
        else if (!strcmp(tok, "block"))
            fields += sscanf(v, "%u,%u,%u", &l->block[0], &l->block[1], &l->block[2]) == 3;
        else if (!strcmp(tok, "cluster"))
            fields += sscanf(v, "%u,%u,%u", &l->cluster[0], &l->cluster[1], &l->cluster[2]) == 3;
        else if (!strcmp(tok, "params"))
            fields += sscanf(v, "%u", &l->params) == 1;
        else if (!strcmp(tok, "module"))
            fields += snprintf(l->module, sizeof l->module, "%s", v) > 0;
        else if (!strcmp(tok, "own"))
            fields += sscanf(v, "%d", &l->own) == 1;
        for (size_t k = 0; k < sizeof counter_keys / sizeof *counter_keys; k++)
            if (!strcmp(tok, counter_keys[k].key)) {
                memcpy((char *)&l->counters + counter_keys[k].at, &(uint64_t){n}, 8);
                fields++;
            }
    }
    return fields == 8 + (int)(sizeof counter_keys / sizeof *counter_keys) ? 0 : -1;
}

/* Append @p line (and a newline) to the call's stream record. */
static void keep_record_line(struct observer *o, const char *line)
{
    size_t n = strlen(line);
    if (o->nrecord + n + 2 > o->caprecord) {
        size_t cap = o->caprecord ? 2 * o->caprecord : 1 << 16;
        while (cap < o->nrecord + n + 2)
            cap *= 2;
        o->record = realloc(o->record, cap);
        ck_assert_msg(o->record != NULL, "out of memory for the stream record");
        o->caprecord = cap;
    }
    memcpy(o->record + o->nrecord, line, n);
    o->nrecord += n;
    o->record[o->nrecord++] = '\n';
    o->record[o->nrecord] = '\0';
}

/* Read what the observer has written so far (never blocking) and parse its complete lines. */
static void observer_drain(struct observer *o)
{
    for (;;) {
        if (o->fd < 0)
            return;
        ssize_t got = read(o->fd, o->line + o->len, sizeof o->line - 1 - o->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got == 0) { /* the server has gone */
                close(o->fd);
                o->fd = -1;
            }
            return;
        }
        o->len += (size_t)got;
        o->line[o->len] = '\0';
        char *nl;
        while ((nl = strchr(o->line, '\n'))) {
            *nl = '\0';
            if (!strncmp(o->line, "launch ", 7))
                course_diff_count_line(o->call, o->line); /* before parse_launch cuts it */
            if (!strncmp(o->line, "op ", 3) || !strncmp(o->line, "footprint ", 10))
                keep_record_line(o, o->line);
            else if (strncmp(o->line, "launch ", 7) && o->nanswers < FINDINGS)
                snprintf(o->answer[o->nanswers++], sizeof o->answer[0], "%.599s", o->line);
            else if (o->nlaunches == MAX_LAUNCHES ||
                     parse_launch(o->line, &o->launches[o->nlaunches]))
                o->overflow = 1;
            else
                o->nlaunches++;
            o->len -= (size_t)(nl + 1 - o->line);
            memmove(o->line, nl + 1, o->len + 1);
        }
        if (o->len == sizeof o->line - 1) { /* no line is this long */
            o->overflow = 1;
            o->len = 0;
        }
    }
}

/* The judge is done with the observer: its server leaves (the runner, its client, is gone). */
static void observer_stop(struct observer *o)
{
    if (o->server > 0) {
        kill(o->server, SIGKILL);
        waitpid(o->server, NULL, 0);
    }
    if (o->fd >= 0)
        close(o->fd);
    if (o->mem)
        munmap(o->mem, o->span);
    if (o->mem_fd >= 0)
        close(o->mem_fd);
    free(o->launches);
    free(o->record);
    memset(o, 0, sizeof *o);
    o->fd = o->mem_fd = -1;
}

/* 1 when @p r runs on a device server the judge observes. */
static int observed(const struct course_runner *r)
{
    return r->obs.launches != NULL;
}

/* Tell @p r's device server @p command (a line); wait for its @p answers lines of answer. */
static void observer_ask(struct course_runner *r, const char *command, int answers)
{
    struct observer *o = &r->obs;
    size_t n = strlen(command);
    o->nanswers = 0;
    ck_assert_msg(o->fd >= 0 && write(o->fd, command, n) == (ssize_t)n,
                  "the device server has gone (asked: %.20s)", command);
    while (o->nanswers < answers) {
        double left = r->deadline_s - now_s();
        ck_assert_msg(left > 0 && o->fd >= 0, "the device server did not answer (asked: %.20s)",
                      command);
        struct pollfd pf = {o->fd, POLLIN, 0};
        poll(&pf, 1, (int)(left * 1000) + 1);
        observer_drain(o);
    }
}

/* ---- what the device did: the provenance record's verdicts ----------------------------------- */

/* How a byte was last written, from its state (mem.h's bits), in words. */
static const char *writer_words(unsigned st)
{
    if (st & MEM_CHANGED)
        return "changed behind the device's back (by no kernel, copy or fill the runtime saw)";
    switch (st & MEM_WRITER) {
    case MEM_NOBODY:
        return "written by nothing";
    case MEM_HOST:
        return "written by the host (a cudaMemcpy, a library, or a fill past the few that prove "
               "a constant)";
    case MEM_FILL:
        return "only filled (cudaMemset), never computed";
    case MEM_MODULE:
        return "a module variable's initial value";
    case MEM_JUDGE:
        return "as the grader made it";
    default:
        return "written by a kernel";
    }
}

/* Where address @p a lies among the call's pointer arguments, in words. */
static void place_words(const struct course_runner *r, const struct proto_arg *args, int nargs,
                        uint64_t a, char *buf, size_t size)
{
    for (int i = 0; i < nargs; i++) {
        if (args[i].kind != PROTO_PTR || args[i].buf >= COURSE_PROTO_BUFS)
            continue;
        const struct judge_buf *b = &r->bufs[args[i].buf];
        if (!b->live || a < b->addr || a >= b->addr + b->total)
            continue;
        long long at = (long long)(a - b->addr) - (long long)b->data_at;
        long long off = at < 0 ? -at : at - (long long)b->bytes + 1;
        if (at < 0 || at >= (long long)b->bytes)
            snprintf(buf, size, "%lld byte%s %s argument %d's %s byte", off, off == 1 ? "" : "s",
                     at < 0 ? "before" : "past", i + 1, at < 0 ? "first" : "last");
        else
            snprintf(buf, size, "byte %lld of argument %d", at, i + 1);
        return;
    }
    snprintf(buf, size, "memory the call allocated itself");
}

/* Assert the device server's finding @p line ("handed ..." or "guard ...") counts nothing. */
static void assert_no_finding(const struct course_runner *r, const char *name,
                              const struct proto_arg *args, int nargs, const char *line)
{
    char kind[16], place[160];
    unsigned long long count = 0, addr = 0;
    unsigned state = 0;
    int at = 0;
    sscanf(line, "%15s count=%llu addr=%llx state=%u where=%n", kind, &count, &addr, &state, &at);
    ck_assert_msg(at > 0, "the device server's answer is garbled: %.80s", line);
    if (!count)
        return;
    place_words(r, args, nargs, addr, place, sizeof place);
    if (!strcmp(kind, "hostread"))
        ck_abort_msg("%s: an input was copied to the host inside the call (%s, %s, %llu times): "
                     "the host must never see the inputs of a device call",
                     name, line + at, place, count);
    if (!strcmp(kind, "outside"))
        ck_abort_msg("%s: device work outside any graded call (%s: before a call began, after it "
                     "returned, or while the grader read the results back): only a call's own "
                     "work counts",
                     name, line + at);
    if (!strcmp(kind, "exposed"))
        ck_abort_msg("%s: a kernel stored what it computed from an input in memory the host "
                     "reads (managed or pinned, %s), %s: the host must never see the inputs of a "
                     "device call",
                     name, place, line + at);
    if (!strcmp(kind, "guard"))
        ck_abort_msg("%s: a kernel %s %s, outside the data (on a GPU: another allocation, or a "
                     "fault), %s (lanes doing so: %llu)",
                     name, state & MEM_ANSWER ? "read" : "wrote", place, line + at, count);
    ck_abort_msg("%s: a kernel read %s, %s, %s (lanes doing so: %llu): the device must compute "
                 "the answer from the inputs",
                 name, place, writer_words(state), line + at, count);
}

/* The record of [addr, addr + bytes), from the device server. */
static struct mem_prov query_prov(struct course_runner *r, uint64_t addr, size_t bytes)
{
    char cmd[96];
    snprintf(cmd, sizeof cmd, "query %llx %zu\n", (unsigned long long)addr, bytes);
    observer_ask(r, cmd, 1);
    unsigned long long read;
    long long other, unread;
    unsigned state;
    ck_assert_msg(sscanf(r->obs.answer[0],
                         "prov read=%llu first_other=%lld other_state=%u "
                         "first_unread=%lld",
                         &read, &other, &state, &unread) == 4,
                  "the device server's answer is garbled: %.80s", r->obs.answer[0]);
    return (struct mem_prov){read, other, (uint8_t)state, unread};
}

/* Assert the call's kernels read every byte of input argument @p i (buffer @p b). */
static void assert_read(struct course_runner *r, const char *name, int i, const struct judge_buf *b)
{
    struct mem_prov p = query_prov(r, b->addr + b->data_at, b->bytes);
    ck_assert_msg(p.read == b->bytes,
                  "%s: its kernels never read byte %lld of argument %d, an input (%llu of its "
                  "%zu bytes unread): the answer must be computed from every input",
                  name, (long long)p.first_unread, i + 1, (unsigned long long)(b->bytes - p.read),
                  b->bytes);
}

/* The library a kernel named @p k (mangled) belongs to, or NULL when it is the lesson's own:
 * CUB, Thrust and libcu++ put their kernels in their namespaces. */
static const char *library_of(const char *k)
{
    static const char *const libs[][2] = {
        {"_ZN3cub", "CUB"}, {"_ZN6thrust", "Thrust"}, {"_ZN4cuda", "libcu++"}};
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++)
        if (!strncmp(k, libs[i][0], strlen(libs[i][0])))
            return libs[i][1];
    return NULL;
}

/* Assert every launch of the call was the lesson's own: a kernel of its own PTX (the device
 * server compares each module's identity with the runner's), not a library's. */
static void assert_own_launches(const struct course_runner *r, const char *name)
{
    ck_assert_msg(!r->obs.overflow,
                  "%s: more than %d kernel launches in one call, or a line the judge cannot read: "
                  "the grader's record of the call overflowed",
                  name, MAX_LAUNCHES);
    for (int i = 0; i < r->obs.nlaunches; i++) {
        const struct course_launch *l = &r->obs.launches[i];
        ck_assert_msg(l->own,
                      "%s: a kernel launched from a module the lesson did not build (%.80s, "
                      "module %s): PTX made or registered at run time is not the lesson's",
                      name, l->kernel, l->module);
        const char *lib = library_of(l->kernel);
        ck_assert_msg(!lib,
                      "%s: a kernel of %s launched inside the call (%.80s): a library's "
                      "kernels are not the lesson's own work",
                      name, lib, l->kernel);
    }
}

/* The call's totals from the device server's last "findings" answer: launches, parameter bytes
 * and global stores, counted by the server whatever the judge's record kept. */
static void call_totals(const struct course_runner *r, unsigned long long t[3])
{
    const char *line = r->obs.answer[FINDINGS - 1];
    ck_assert_msg(
        sscanf(line, "totals launches=%llu params=%llu stores=%llu", &t[0], &t[1], &t[2]) == 3,
        "the device server's answer is garbled: %.80s", line);
}

/* The shape of the call being made, for messages (" at M=.. N=.. K=.."), or "". */
static char call_shape[64];

/* Ask the device server what it found; fail on what no call may do: device work outside a
 * call, at any time. */
static void ask_findings(struct course_runner *r, const char *name)
{
    observer_ask(r, "findings\n", FINDINGS);
    assert_no_finding(r, name, NULL, 0, r->obs.answer[4]); /* outside */
}

/* What the device did in the call @p name just made (course_call()'s contract); its findings
 * are in r->obs.answer (ask_findings()). */
static void judge_device_work(struct course_runner *r, const char *name,
                              const struct proto_arg *args, int nargs)
{
    size_t data = 0;
    int pinned = 0;
    for (int i = 0; i < nargs; i++) {
        if (args[i].kind != PROTO_PTR || args[i].buf >= COURSE_PROTO_BUFS)
            continue;
        if (r->bufs[args[i].buf].mem == PROTO_HOST)
            return; /* host code: its copies are the exercise */
        pinned |= r->bufs[args[i].buf].mem == PROTO_PINNED;
        data += r->bufs[args[i].buf].bytes;
    }
    unsigned long long totals[3];
    call_totals(r, totals);
    ck_assert_msg(totals[0] > 0 || data == 0,
                  "%s launched no kernel: the device must compute the answer, not the host", name);
    static const int order[] = {3, 2, 0, 1}; /* hostread, exposed: the cause; handed, guard */
    for (int k = 0; k < 4; k++)
        if (order[k] != 3 || !pinned) /* copies out to pinned buffers are lesson 07's work */
            assert_no_finding(r, name, args, nargs, r->obs.answer[order[k]]);
    assert_own_launches(r, name);
    ck_assert_msg(totals[1] <= COURSE_PARAM_BUDGET,
                  "%s: its %llu kernel launches passed %llu bytes of parameters, more than %d: "
                  "an answer carried in from the host is not computed on the device",
                  name, totals[0], totals[1], COURSE_PARAM_BUDGET);
    /* Kernels that stored nothing (an unfinished exercise) leave the comparison to say so. */
    for (int i = 0; i < nargs && totals[2]; i++) {
        const struct judge_buf *b = args[i].kind == PROTO_PTR && args[i].buf < COURSE_PROTO_BUFS
                                        ? &r->bufs[args[i].buf]
                                        : NULL;
        /* Pinned inputs reach the kernels through copies (course_streams.h judges those). */
        if (b && b->live && args[i].off == 0 && b->guard_byte == COURSE_GUARD_IN &&
            b->mem == PROTO_DEVICE)
            assert_read(r, name, i, b);
    }
}

/* Assert output @p b's bytes were written by kernels, or left as they were made. */
static void assert_computed(struct course_runner *r, const struct judge_buf *b, const char *what)
{
    struct mem_prov p = query_prov(r, b->addr + b->data_at, b->bytes);
    ck_assert_msg(p.first_other < 0,
                  "%s: byte %lld of its output was %s: the device's kernels must write it", what,
                  (long long)p.first_other, writer_words(p.other_state));
}

/* Start a runner on @p dev; @p schedule, when not NULL, is its emulated device's warp order. */
static struct course_runner *runner_spawn(enum course_device dev, const char *schedule)
{
    struct course_runner *r = mat_alloc(sizeof *r);
    memset(r, 0, sizeof *r);
    r->obs.fd = r->obs.mem_fd = -1;
    r->role = "";
    r->gpu = dev != COURSE_CPU;
    r->out_fd = course_capture_file();
    const struct passwd *pw = course_sandbox_user();
    course_sandbox_dir();
    int client = -1;
    if (dev == COURSE_OBSERVED)
        observer_start(r, &client);
    int req[2], rep[2];
    ck_assert(pipe2(req, O_CLOEXEC) == 0 && pipe2(rep, O_CLOEXEC) == 0);
    signal(SIGPIPE, SIG_IGN); /* a dead runner is an EPIPE, not the judge's death */
    pid_t judge = getpid();
    r->pid = fork();
    ck_assert_msg(r->pid >= 0, "fork: %s", strerror(errno));
    if (r->pid == 0) {
        /* Out of the way of fds 3, 4 and 5 first, then into place. */
        int in = fcntl(req[0], F_DUPFD, 10), out = fcntl(rep[1], F_DUPFD, 10);
        int sock = client >= 0 ? fcntl(client, F_DUPFD, 10) : -1;
        if (in < 0 || out < 0 || dup2(in, COURSE_PROTO_IN) < 0 || dup2(out, COURSE_PROTO_OUT) < 0 ||
            (client >= 0 && (sock < 0 || dup2(sock, COURSE_PROTO_OUT + 1) < 0)))
            _exit(126);
        if (client >= 0)
            setenv("COURSE_EMU_FD", "5", 1); /* COURSE_PROTO_OUT + 1 */
        if (schedule)
            setenv("COURSE_EMU_SCHEDULE", schedule, 1);
        char *argv[] = {(char *)runner_path, NULL};
        course_exec_sandboxed(argv, pw, judge, r->out_fd, r->out_fd,
                              COURSE_PROTO_OUT + 1 + (client >= 0),
                              dev == COURSE_GPU || dev == COURSE_CPU ? NULL : COURSE_EMULATOR_LIB);
    }
    course_sandbox_count(1);
    close(req[0]);
    close(rep[1]);
    if (client >= 0)
        close(client); /* only the runner holds it now: the server sees it leave */
    r->to = req[1];
    r->from = rep[0];
    fcntl(r->to, F_SETFL, O_NONBLOCK);
    r->deadline_s = deadline();
    return r;
}

struct course_runner *course_runner_start(enum course_device dev)
{
    ck_assert_msg(runner_path && access(runner_path, X_OK) == 0, "no runner at %s (build it)",
                  runner_path ? runner_path : "(none)");
    assert_own_code();
    if (dev == COURSE_GPU && !course_case_timed)
        dev = COURSE_OBSERVED; /* graded on the emulator, the same on every machine */
    struct course_runner *r = runner_spawn(dev, NULL);
    if (dev == COURSE_OBSERVED) { /* the lesson's own PTX: what the runner was built with */
        char cmd[4200];
        unsigned texts = 0;
        snprintf(cmd, sizeof cmd, "own %s\n", runner_path);
        observer_ask(r, cmd, 1);
        ck_assert_msg(sscanf(r->obs.answer[0], "own texts=%u", &texts) == 1 && texts > 0,
                      "the device server found no PTX in %s: %.80s", runner_path, r->obs.answer[0]);
    }
    /* COURSE_DIFF: a twin that every request reaches too (course_diff.h); timings have none. */
    enum course_diff_mode mode =
        dev == COURSE_CPU || course_case_timed ? COURSE_DIFF_OFF : course_diff_mode();
    ck_assert_msg(mode != COURSE_DIFF_GPU || !course_emulated,
                  "COURSE_DIFF=gpu compares the emulator with a GPU, and this machine has none");
    if (mode == COURSE_DIFF_GPU) {
        r->twin = runner_spawn(COURSE_GPU, NULL);
        r->twin->role = "the differential twin on the GPU: ";
    } else if (mode == COURSE_DIFF_SCHEDULE) {
        r->twin = runner_spawn(COURSE_EMULATED, course_diff_twin_schedule());
        r->twin->role = "the differential twin (the other warp schedule): ";
    }
    return r;
}

/* Fail the case: the runner did not do what @p doing needed. Kills it first. */
static void runner_failed(struct course_runner *r, const char *doing, int timed_out)
{
    int st = 0;
    pid_t w = 0;
    for (int i = 0; i < 50 && !timed_out && w == 0; i++) {
        w = waitpid(r->pid, &st, WNOHANG); /* a runner that closed its pipe is dying: wait */
        if (w == 0)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    kill(-r->pid, SIGKILL);
    if (w == 0)
        waitpid(r->pid, &st, 0);
    course_sandbox_count(-1);
    observer_stop(&r->obs);
    char how[160], faults[2048], tail[400];
    if (timed_out)
        snprintf(how, sizeof how, "timed out after %d s (the judge killed it)",
                 course_judge_budget_s);
    else if (w == 0)
        snprintf(how, sizeof how, "answered garbage (the judge killed it)");
    else
        describe_status(st, how, sizeof how);
    output_tail(r->out_fd, faults, sizeof faults, tail, sizeof tail);
    ck_abort_msg("%s%s: %s%sthe student's code %s%s%s", r->role, doing, faults,
                 faults[0] ? "; then " : "", how, tail[0] ? "; its output ends: " : "", tail);
}

/* Wait until @p fd is ready for @p events, or fail the case at the deadline. */
static void await(struct course_runner *r, int fd, short events, const char *doing)
{
    for (;;) {
        double left = r->deadline_s - now_s();
        if (left <= 0)
            runner_failed(r, doing, 1);
        /* The observer is read as it writes: a full pipe would stall the server's launches. */
        struct pollfd p[2] = {{fd, events, 0}, {r->obs.fd, POLLIN, 0}};
        int n = poll(p, r->obs.fd >= 0 ? 2 : 1, (int)(left * 1000) + 1);
        if (n > 0 && r->obs.fd >= 0 && p[1].revents)
            observer_drain(&r->obs);
        if (n > 0 && p[0].revents)
            return;
        if (n < 0 && errno != EINTR)
            runner_failed(r, doing, 0);
    }
}

static void send_bytes(struct course_runner *r, const void *p, size_t n, const char *doing)
{
    for (const unsigned char *at = p; n > 0;) {
        await(r, r->to, POLLOUT, doing);
        ssize_t put = write(r->to, at, n);
        if (put < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (put <= 0)
            runner_failed(r, doing, 0);
        at += put;
        n -= (size_t)put;
    }
}

static void recv_bytes(struct course_runner *r, void *p, size_t n, const char *doing)
{
    for (unsigned char *at = p; n > 0;) {
        await(r, r->from, POLLIN, doing);
        ssize_t got = read(r->from, at, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            runner_failed(r, doing, 0);
        at += got;
        n -= (size_t)got;
    }
}

static void send_request(struct course_runner *r, uint32_t op, const void *p, size_t n,
                         const void *extra, size_t extra_n, const char *doing)
{
    struct proto_head h = {COURSE_PROTO_MAGIC, op, n + extra_n};
    send_bytes(r, &h, sizeof h, doing);
    send_bytes(r, p, n, doing);
    if (extra_n)
        send_bytes(r, extra, extra_n, doing);
}

/* Read a reply head and check it announces exactly @p len bytes. */
static void recv_head(struct course_runner *r, uint64_t len, const char *doing)
{
    struct proto_head h;
    recv_bytes(r, &h, sizeof h, doing);
    if (h.magic != COURSE_PROTO_MAGIC || h.op != PROTO_REPLY || h.len != len)
        runner_failed(r, doing, 0);
}

/* A proto_reply; a refused request fails the case with the runner's reason. */
static struct proto_reply recv_reply(struct course_runner *r, const char *doing)
{
    struct proto_reply rep;
    recv_head(r, sizeof rep, doing);
    recv_bytes(r, &rep, sizeof rep, doing);
    rep.what[sizeof rep.what - 1] = '\0';
    if (!rep.ok)
        ck_abort_msg("%s%s: the runner refused: %s", r->role, doing, rep.what);
    return rep;
}

void course_runner_stop(struct course_runner *r)
{
    if (observed(r))
        ask_findings(r, "after the last call"); /* work the device did since fails the case */
    struct proto_head h = {COURSE_PROTO_MAGIC, PROTO_QUIT, 0};
    send_bytes(r, &h, sizeof h, "stopping the runner");
    int st;
    for (int i = 0; i < 200 && waitpid(r->pid, &st, WNOHANG) == 0; i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    kill(-r->pid, SIGKILL);
    waitpid(r->pid, &st, WNOHANG);
    course_sandbox_count(-1);
    observer_stop(&r->obs);
    close(r->to);
    close(r->from);
    close(r->out_fd);
    if (r->twin)
        course_runner_stop(r->twin);
    free(r);
}

/* ---- buffers ---------------------------------------------------------------------------- */

/* A free buffer id of @p r. */
static int free_id(struct course_runner *r)
{
    for (int id = 0; id < COURSE_PROTO_BUFS; id++)
        if (!r->bufs[id].live)
            return id;
    ck_abort_msg("the judge holds more than %d buffers in one runner", COURSE_PROTO_BUFS);
    return -1;
}

/* Guards as long as the data (one row past any matrix, at least), from 256 bytes to 1 MiB. */
static size_t guard_for(size_t bytes)
{
    size_t g = bytes < 256 ? 256 : bytes;
    if (g > (1u << 20))
        g = 1u << 20;
    return (g + 255) / 256 * 256;
}

/* 1 when buffer @p b of @p r lives on the device the judge observes: its memory is the judge's
 * (the runner never holds it), made and read back here. */
static int judged_memory(const struct course_runner *r, const struct judge_buf *b)
{
    return observed(r) && b->mem == PROTO_DEVICE;
}

/* Where device address @p addr (@p bytes of one allocation) is in the judge's map of the
 * observed device's memory, mapped once the server has placed it. */
static uint8_t *device_memory(struct course_runner *r, uint64_t addr, size_t bytes)
{
    struct observer *o = &r->obs;
    if (!o->mem) {
        unsigned long long base, span;
        observer_ask(r, "memory\n", 1);
        ck_assert_msg(sscanf(o->answer[0], "memory base=%llx span=%llu", &base, &span) == 2,
                      "the device server's answer is garbled: %.80s", o->answer[0]);
        void *m =
            mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, o->mem_fd, 0);
        ck_assert_msg(m != MAP_FAILED, "cannot map the device memory: %s", strerror(errno));
        o->mem = m, o->base = base, o->span = span;
    }
    ck_assert_msg(
        addr >= o->base && addr - o->base <= o->span && bytes <= o->span - (addr - o->base),
        "the runner named device memory outside the device (0x%llx)", (unsigned long long)addr);
    return o->mem + (addr - o->base);
}

/* Tell the device server buffer @p b is the judge's, as it is now: @p input 1 when its data is
 * an input (the host must not read it back). */
static void mark_judged(struct course_runner *r, const struct judge_buf *b, int input)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "mark %llx %zu %zu %zu %d\n", (unsigned long long)b->addr, b->total,
             b->data_at, b->bytes, input);
    observer_ask(r, cmd, 1);
}

/* Write buffer @p b's image as request @p q asks (guards, then its data) into the device. */
static void write_image(struct course_runner *r, const struct judge_buf *b,
                        const struct proto_buf_new *q, const void *data)
{
    uint8_t *img = device_memory(r, b->addr, b->total), *at = img + b->data_at;
    memset(img, (int)(q->guard_byte & 0xFF), b->total);
    if (q->fill == PROTO_FILL_BYTES)
        memcpy(at, data, q->bytes);
    else if (q->fill == PROTO_FILL_INT)
        mat_fill_int((float *)at, q->bytes / sizeof(float), q->seed);
    else
        memset(at, q->fill == PROTO_FILL_POISON ? 0xFF : 0, q->bytes);
    mark_judged(r, b, q->fill == PROTO_FILL_BYTES || q->fill == PROTO_FILL_INT);
}

/* Make buffer @p q in @p r and in its twin (@p data: its bytes, for PROTO_FILL_BYTES). On the
 * observed device the runner only allocates it: the judge writes its bytes itself. */
static void buf_make(struct course_runner *r, const struct proto_buf_new *q, const void *data)
{
    struct proto_buf_new bare = *q;
    int judged = observed(r) && q->mem == PROTO_DEVICE;
    if (judged)
        bare.fill = PROTO_FILL_NONE;
    send_request(r, PROTO_BUF_NEW, &bare, sizeof bare, data,
                 bare.fill == PROTO_FILL_BYTES ? q->bytes : 0, "creating a buffer");
    struct proto_reply rep = recv_reply(r, "creating a buffer");
    struct judge_buf *b = &r->bufs[q->id];
    *b = (struct judge_buf){
        1, q->bytes, q->guard + q->offset, 0, (unsigned char)q->guard_byte, q->mem, (uint64_t)rep.i,
        0};
    b->total = (b->data_at + q->bytes + q->guard + 255) / 256 * 256;
    if (judged)
        write_image(r, b, q, data);
    else if (observed(r) && q->mem == PROTO_PINNED) /* the runner wrote it, as the judge's */
        mark_judged(r, b, q->fill == PROTO_FILL_BYTES || q->fill == PROTO_FILL_INT);
    if (r->twin)
        buf_make(r->twin, q, data);
}

static int buf_new(struct course_runner *r, enum proto_mem mem, enum proto_fill fill,
                   const void *data, size_t bytes, size_t offset, unsigned char guard_byte,
                   uint64_t seed)
{
    ck_assert_msg(mem == PROTO_HOST || r->gpu, "device buffer in a CPU runner");
    int id = free_id(r);
    struct proto_buf_new q = {(uint32_t)id,     mem, fill, guard_byte, bytes, offset,
                              guard_for(bytes), seed};
    buf_make(r, &q, data);
    return id;
}

int course_buf_in(struct course_runner *r, enum proto_mem mem, const void *data, size_t bytes,
                  size_t offset)
{
    return buf_new(r, mem, PROTO_FILL_BYTES, data, bytes, offset, COURSE_GUARD_IN, 0);
}

int course_buf_ints(struct course_runner *r, enum proto_mem mem, size_t count, uint64_t seed,
                    size_t offset)
{
    if (observed(r) && mem == PROTO_DEVICE) /* the judge fills it: mat_fill_int() as it does */
        return buf_new(r, mem, PROTO_FILL_INT, NULL, count * sizeof(float), offset, COURSE_GUARD_IN,
                       seed);
    float *x = mat_alloc_f32(count); /* made here, with the grade's salt, and sent */
    mat_fill_int(x, count, seed);
    int id =
        buf_new(r, mem, PROTO_FILL_BYTES, x, count * sizeof(float), offset, COURSE_GUARD_IN, 0);
    free(x);
    return id;
}

int course_buf_inout(struct course_runner *r, enum proto_mem mem, const void *data, size_t bytes,
                     size_t offset)
{
    return buf_new(r, mem, PROTO_FILL_BYTES, data, bytes, offset, COURSE_GUARD_OUT, 0);
}

int course_buf_out(struct course_runner *r, enum proto_mem mem, size_t bytes, size_t offset)
{
    return buf_new(r, mem, PROTO_FILL_POISON, NULL, bytes, offset, COURSE_GUARD_OUT, 0);
}

static struct judge_buf *judge_buf(struct course_runner *r, int id)
{
    ck_assert_msg(id >= 0 && id < COURSE_PROTO_BUFS && r->bufs[id].live, "no buffer %d", id);
    return &r->bufs[id];
}

void course_buf_reloc(struct course_runner *r, int buf, size_t at, int target, size_t off)
{
    struct judge_buf *b = judge_buf(r, buf), *t = judge_buf(r, target);
    if (judged_memory(r, b)) {
        ck_assert_msg(at % 8 == 0 && at + 8 <= b->bytes && off <= t->bytes, "bad relocation");
        uint64_t addr = t->addr + t->data_at + off;
        memcpy(device_memory(r, b->addr + b->data_at + at, 8), &addr, 8);
        mark_judged(r, b, 1); /* the address is the judge's too */
    } else {
        struct proto_reloc q = {(uint32_t)buf, (uint32_t)target, at, off};
        send_request(r, PROTO_BUF_RELOC, &q, sizeof q, NULL, 0, "relocating a buffer");
        recv_reply(r, "relocating a buffer");
    }
    b->addrs = 1;
    if (r->twin)
        course_buf_reloc(r->twin, buf, at, target, off);
}

/*
 * Assert every byte of @p img outside the data equals the guard byte; else fail naming @p what
 * (the caller puts the shape in it), how many bytes changed and the first as an index of the
 * output: [n] is the element just past the last, [-1] the one before the first.
 */
static void assert_guards(const struct judge_buf *b, const unsigned char *img, const char *what,
                          int out_fd)
{
    size_t changed = 0, first = 0;
    for (size_t i = 0; i < b->total; i++) {
        if (i == b->data_at && b->bytes > 0) { /* an empty output has only guards */
            i += b->bytes - 1;
            continue;
        }
        if (img[i] != b->guard_byte && changed++ == 0)
            first = i;
    }
    if (!changed)
        return;
    long long at = (long long)first - (long long)b->data_at; /* from the output's first byte */
    const char *side = at < 0 ? "before the first" : "past the last";
    char where[128], faults[2048];
    if (b->bytes % 4 == 0)
        snprintf(where, sizeof where, "element [%lld], %s of %zu (4-byte elements)",
                 at < 0 ? -((-at + 3) / 4) : at / 4, side, b->bytes / 4);
    else
        snprintf(where, sizeof where, "byte [%lld], %s of %zu", at, side, b->bytes);
    ck_abort_msg("%s%s wrote outside its output: %zu guard bytes changed, the first at %s",
                 faults_first(out_fd, faults, sizeof faults), what, changed, where);
}

/* Buffer @p id's whole allocation, guards too, as the runner holds it (malloc'd): on the
 * observed device, read by the judge itself, once the device did nothing since the call. */
static unsigned char *buf_image(struct course_runner *r, int id, const char *what)
{
    struct judge_buf *b = judge_buf(r, id);
    if (judged_memory(r, b)) {
        ask_findings(r, what);
        unsigned char *img = mat_alloc(b->total);
        memcpy(img, device_memory(r, b->addr, b->total), b->total);
        return img;
    }
    struct proto_buf_id q = {(uint32_t)id};
    send_request(r, PROTO_BUF_READ, &q, sizeof q, NULL, 0, what);
    recv_head(r, b->total, what);
    unsigned char *img = mat_alloc(b->total);
    recv_bytes(r, img, b->total, what);
    return img;
}

/* Compare buffer @p id's data bytes @p data with @p r's twin's, naming the last call. */
static void twin_compare(struct course_runner *r, int id, const unsigned char *data,
                         const char *what)
{
    const struct judge_buf *b = judge_buf(r, id);
    if (b->addrs)
        return; /* addresses in one process are not the other's */
    unsigned char *img = buf_image(r->twin, id, what);
    const struct course_diff_call call = {r->last.name[0] ? r->last.name : "-", r->last.args,
                                          (int)r->last.nargs, r->kernels};
    int arg = (int)r->last.nargs - 1;
    while (arg >= 0 &&
           !(r->last.args[arg].kind == PROTO_PTR && r->last.args[arg].buf == (uint32_t)id))
        arg--;
    course_diff_bytes(&call, arg, what, data, img + b->data_at, b->bytes);
    free(img);
}

void *course_buf_read(struct course_runner *r, int id, const char *what)
{
    struct judge_buf *b = judge_buf(r, id);
    unsigned char *img = buf_image(r, id, what);
    if (b->guard_byte == COURSE_GUARD_OUT)
        assert_guards(b, img, what, r->out_fd);
    if (b->guard_byte == COURSE_GUARD_OUT && observed(r) && b->mem != PROTO_HOST)
        assert_computed(r, b, what);
    unsigned char *data = mat_alloc(b->bytes);
    memcpy(data, img + b->data_at, b->bytes);
    free(img);
    if (r->twin)
        twin_compare(r, id, data, what);
    return data;
}

uint64_t course_buf_address(struct course_runner *r, int id)
{
    const struct judge_buf *b = judge_buf(r, id);
    return b->addr + b->data_at;
}

void course_buf_free(struct course_runner *r, int id)
{
    struct judge_buf *b = judge_buf(r, id);
    struct proto_buf_id q = {(uint32_t)id};
    send_request(r, PROTO_BUF_FREE, &q, sizeof q, NULL, 0, "freeing a buffer");
    recv_reply(r, "freeing a buffer");
    b->live = 0;
    if (r->twin)
        course_buf_free(r->twin, id);
}

void *course_peek(struct course_runner *r, uint64_t addr, size_t bytes, const char *what)
{
    ck_assert_msg(bytes <= (1u << 30), "%s: %zu bytes is too much to read", what, bytes);
    struct proto_peek q = {addr, bytes};
    send_request(r, PROTO_PEEK, &q, sizeof q, NULL, 0, what);
    recv_head(r, bytes, what);
    void *data = mat_alloc(bytes);
    recv_bytes(r, data, bytes, what);
    return data;
}

/* ---- calls ------------------------------------------------------------------------------ */

static struct proto_call make_call(const char *name, enum proto_kind ret,
                                   const struct proto_arg *args, int nargs)
{
    struct proto_call q;
    memset(&q, 0, sizeof q);
    ck_assert_msg(strlen(name) < sizeof q.name && nargs >= 0 && nargs <= COURSE_PROTO_ARGS,
                  "bad call of %s", name);
    strcpy(q.name, name);
    q.ret = ret;
    q.nargs = (uint32_t)nargs;
    memcpy(q.args, args, (size_t)nargs * sizeof *args);
    return q;
}

/* The kernels @p r's last call launched, each once, comma-separated, into r->kernels. */
static void kernel_names(struct course_runner *r)
{
    size_t n = 0;
    r->kernels[0] = '\0';
    for (int i = 0; i < r->obs.nlaunches && n + 1 < sizeof r->kernels; i++) {
        const char *k = r->obs.launches[i].kernel;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(r->obs.launches[j].kernel, k);
        if (!seen)
            n += (size_t)snprintf(r->kernels + n, sizeof r->kernels - n, "%s%s", n ? "," : "", k);
    }
}

/* Make call @p q, which @p r answered with @p rep, on @p r's twin; compare what it returned. */
static void twin_call(struct course_runner *r, const struct proto_call *q,
                      const struct proto_reply *rep)
{
    send_request(r->twin, PROTO_CALL, q, sizeof *q, NULL, 0, q->name);
    struct proto_reply twin = recv_reply(r->twin, q->name);
    r->last = *q;
    kernel_names(r);
    const struct course_diff_call call = {q->name, q->args, (int)q->nargs, r->kernels};
    course_diff_reply(&call, (enum proto_kind)q->ret, rep, &twin);
}

struct course_ret course_call(struct course_runner *r, const char *name, enum proto_kind ret,
                              const struct proto_arg *args, int nargs)
{
    struct proto_call q = make_call(name, ret, args, nargs);
    q.sync = (uint32_t)r->gpu;
    observer_drain(&r->obs); /* what earlier requests launched is not this call's */
    r->obs.nlaunches = r->obs.overflow = 0;
    snprintf(r->obs.call, sizeof r->obs.call, "%s", name);
    char who[COURSE_PROTO_NAME + sizeof call_shape];
    snprintf(who, sizeof who, "%s%s", name, call_shape);
    if (observed(r)) {
        ask_findings(r, who); /* nothing the device did before the call is the call's */
        observer_ask(r, "begin\n", 1);
    }
    r->obs.nrecord = 0; /* the records of the requests before, served before "begin" */
    send_request(r, PROTO_CALL, &q, sizeof q, NULL, 0, name);
    struct proto_reply rep = recv_reply(r, name);
    if (observed(r))
        observer_ask(r, "end\n", 1);
    /* The server writes a launch's line before it answers the launch: all of them are in. */
    observer_drain(&r->obs);
    char faults[2048];
    ck_assert_msg(rep.cuda == 0, "%s: %sCUDA error after the call: %s", name,
                  faults_first(r->out_fd, faults, sizeof faults), rep.what);
    if (observed(r)) {
        ask_findings(r, who);
        judge_device_work(r, who, args, nargs);
    }
    if (r->twin)
        twin_call(r, &q, &rep);
    return (struct course_ret){rep.i, rep.f};
}

const char *course_stream_record(struct course_runner *r)
{
    ck_assert_msg(observed(r), "course_stream_record() needs a COURSE_OBSERVED runner");
    ask_findings(r, "the stream record"); /* answered once the client's records are all in */
    return r->obs.record ? r->obs.record : "";
}

const struct course_launch *course_launches(struct course_runner *r, int *n)
{
    ck_assert_msg(r->obs.launches != NULL, "course_launches() needs a COURSE_OBSERVED runner");
    ck_assert_msg(!r->obs.overflow,
                  "the call made more than %d kernel launches, or the device server's observer "
                  "wrote a line the judge cannot read",
                  MAX_LAUNCHES);
    *n = r->obs.nlaunches;
    return r->obs.launches;
}

struct vm_counters course_observed(struct course_runner *r, const char *kernel)
{
    int n;
    const struct course_launch *l = course_launches(r, &n);
    struct vm_counters sum;
    memset(&sum, 0, sizeof sum);
    ck_assert_msg(n > 0, "the device saw no kernel launch in that call (expected %s)", kernel);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(strstr(l[i].kernel, kernel) != NULL,
                      "launch %d of %d was %s, not %s: the lesson's kernel must do the work", i + 1,
                      n, l[i].kernel, kernel);
        ck_assert_msg(!strcmp(l[i].status, "ok"), "%s's launch %d ended with status %s", kernel,
                      i + 1, l[i].status);
        bench_add_counters(&sum, &l[i].counters);
    }
    return sum;
}

double course_time(struct course_runner *r, const char *name, const struct proto_arg *args,
                   int nargs, int warmup, int reps)
{
    struct proto_call q = make_call(name, PROTO_VOID, args, nargs);
    q.sync = (uint32_t)r->gpu;
    q.gpu = (uint32_t)r->gpu;
    q.warmup = (uint32_t)warmup;
    q.reps = (uint32_t)reps;
    send_request(r, PROTO_TIME, &q, sizeof q, NULL, 0, name);
    struct proto_reply rep = recv_reply(r, name);
    char faults[2048];
    ck_assert_msg(rep.cuda == 0, "%s: %sCUDA error while timing: %s", name,
                  faults_first(r->out_fd, faults, sizeof faults), rep.what);
    ck_assert_msg(rep.ms > 0 && rep.ms < 1e9, "%s: the runner reported %g ms", name, rep.ms);
    return rep.ms;
}

void course_map(struct course_runner *r, const char *name, enum proto_kind ret, enum proto_kind arg,
                int in, int out, size_t count)
{
    struct proto_arg args[2] = {{arg, (uint32_t)in, 0, 0, 0}, {PROTO_PTR, (uint32_t)out, 0, 0, 0}};
    struct proto_call q = make_call(name, ret, args, 2);
    q.reps = (uint32_t)count;
    ck_assert(count == q.reps);
    send_request(r, PROTO_MAP, &q, sizeof q, NULL, 0, name);
    recv_reply(r, name);
    r->last = q;
    r->kernels[0] = '\0';
    if (r->twin)
        course_map(r->twin, name, ret, arg, in, out, count);
}

/* ---- SGEMM checks ------------------------------------------------------------------------- */

void course_gemm_inputs(size_t na, size_t nb, uint64_t seed, int uniform, float **A, float **B)
{
    *A = mat_alloc_f32(na);
    *B = mat_alloc_f32(nb);
    if (uniform) {
        mat_fill_uniform(*A, na, seed, -1, 1);
        mat_fill_uniform(*B, nb, seed + 1, -1, 1);
    } else {
        mat_fill_int(*A, na, seed);
        mat_fill_int(*B, nb, seed + 1);
    }
}

float *course_gemm_call(struct course_runner *r, const char *name, int M, int N, int K, int a,
                        int b, int c)
{
    snprintf(call_shape, sizeof call_shape, " at M=%d N=%d K=%d", M, N, K);
    COURSE_CALL(r, name, PROTO_VOID, COURSE_I32(M), COURSE_I32(N), COURSE_I32(K), COURSE_PTR(a),
                COURSE_PTR(b), COURSE_PTR(c));
    char what[COURSE_PROTO_NAME + sizeof call_shape];
    snprintf(what, sizeof what, "%s%s", name, call_shape);
    call_shape[0] = '\0';
    float *C = course_buf_read(r, c, what);
    course_buf_free(r, a);
    course_buf_free(r, b);
    course_buf_free(r, c);
    return C;
}

struct mat_cmp course_remote_sgemm(struct course_runner *r, const char *name, int M, int N, int K,
                                   uint64_t seed, size_t offset)
{
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    float *A, *B;
    course_gemm_inputs(na, nb, seed, 0, &A, &B);
    double *want = mat_alloc(nc * sizeof *want);
    ref_matmul_f64(M, N, K, A, B, want);
    enum proto_mem mem = r->gpu ? PROTO_DEVICE : PROTO_HOST;
    int a = course_buf_ints(r, mem, na, seed, offset);
    int b = course_buf_ints(r, mem, nb, seed + 1, offset);
    int c = course_buf_out(r, mem, nc * sizeof(float), offset);
    float *C = course_gemm_call(r, name, M, N, K, a, b, c);
    struct mat_cmp cmp = mat_compare_f64(C, want, M, N, 0, 0);
    free(A);
    free(B);
    free(C);
    free(want);
    return cmp;
}

void course_judge_sgemm_shapes(struct course_runner *r, const char *name, const int (*shapes)[3],
                               size_t count, uint64_t seed, size_t offset)
{
    for (size_t s = 0; s < count; s++) {
        const int *d = shapes[s];
        struct mat_cmp cmp = course_remote_sgemm(r, name, d[0], d[1], d[2], seed + 2 * s, offset);
        char why[160];
        ck_assert_msg(cmp.n_bad == 0, "%s at M=%d N=%d K=%d%s: %s", name, d[0], d[1], d[2],
                      offset % 16 ? " (pointers not 16-byte aligned)" : "",
                      mat_cmp_describe(&cmp, why, sizeof why));
    }
}

struct vm_counters course_observed_sgemm(struct course_runner *r, const char *name,
                                         const char *kernel, int M, int N, int K)
{
    struct mat_cmp cmp = course_remote_sgemm(r, name, M, N, K, 11, 0);
    char why[160];
    ck_assert_msg(cmp.n_bad == 0, "%s at M=%d N=%d K=%d: %s", name, M, N, K,
                  mat_cmp_describe(&cmp, why, sizeof why));
    struct vm_counters c = course_observed(r, kernel);
    /* The product was computed on the device, by these launches: a wrong answer failed above. */
    ck_assert_msg((double)c.flops >= 2.0 * M * N * K && c.unique_write_bytes >= 4ull * M * N,
                  "%s's kernels did %llu flops and wrote %llu bytes: C = A B at M=%d N=%d K=%d "
                  "needs %.0f and %d",
                  name, (unsigned long long)c.flops, (unsigned long long)c.unique_write_bytes, M, N,
                  K, 2.0 * M * N * K, 4 * M * N);
    return c;
}

void course_assert_per_request(const char *what, const char *unit, uint64_t count,
                               uint64_t requests, double lo, double hi)
{
    ck_assert_msg(requests > 0, "%s: not one request", what);
    char want[64];
    if (lo == hi)
        snprintf(want, sizeof want, "exactly %g", lo);
    else if (lo <= 0)
        snprintf(want, sizeof want, "at most %g", hi);
    else if (hi >= 1e9)
        snprintf(want, sizeof want, "at least %g", lo);
    else
        snprintf(want, sizeof want, "%g to %g", lo, hi);
    double per = (double)count / (double)requests;
    ck_assert_msg(per >= lo && per <= hi,
                  "%s: %.2f %s per request (%llu in %llu requests), want %s", what, per, unit,
                  (unsigned long long)count, (unsigned long long)requests, want);
}

void course_assert_float4_tiles(const char *name, const struct vm_counters *c, uint64_t max_loads)
{
    double fma = (double)c->class_insts[VM_CLASS_FMA32], lds = (double)c->class_insts[VM_CLASS_LDS];
    ck_assert_msg(fma >= 16 * lds,
                  "%s: %.2f FMAs per shared load, want 16: read a[] and b[] as two float4 each, "
                  "and unroll the k loop fully",
                  name, fma / lds);
    ck_assert_msg(c->lds_conflicts == 0,
                  "%s's 128-bit shared loads: %llu wavefronts in %llu requests, %llu of them bank "
                  "conflicts, want none: a quarter warp's 8 float4 in 8 distinct groups of 4 banks",
                  name, (unsigned long long)c->lds_wavefronts, (unsigned long long)c->lds_requests,
                  (unsigned long long)c->lds_conflicts);
    char what[96];
    ck_assert_msg(c->gld_requests <= max_loads,
                  "%s made %llu global load requests, float4 loads make %llu", name,
                  (unsigned long long)c->gld_requests, (unsigned long long)max_loads);
    snprintf(what, sizeof what, "%s's global loads", name);
    course_assert_per_request(what, "sectors", c->gld_sectors, c->gld_requests, 0, 16);
}

size_t course_gemm_edge_count(void)
{
    /* The emulator runs a kernel some 10^4 times slower than a GPU: it skips the 1031^3 class,
     * the one place where it changes the sizes a case checks. */
    return course_gemm_shape_count - (course_emulated ? 1 : 0);
}

void course_judge_sgemm_edges(struct course_runner *r, const char *name, uint64_t seed)
{
    course_judge_sgemm_shapes(r, name, course_gemm_shapes, course_gemm_edge_count(), seed, 0);
}

double course_judge_time_sgemm(struct course_runner *r, const char *name, int M, int N, int K)
{
    enum proto_mem mem = r->gpu ? PROTO_DEVICE : PROTO_HOST;
    int a = course_buf_ints(r, mem, (size_t)M * K, 7, 0);
    int b = course_buf_ints(r, mem, (size_t)K * N, 8, 0);
    int c = course_buf_out(r, mem, (size_t)M * N * sizeof(float), 0);
    const struct proto_arg args[] = {COURSE_I32(M), COURSE_I32(N), COURSE_I32(K),
                                     COURSE_PTR(a), COURSE_PTR(b), COURSE_PTR(c)};
    double ms = course_time(r, name, args, 6, r->gpu ? 2 : 1, r->gpu ? 5 : 3);
    course_buf_free(r, a);
    course_buf_free(r, b);
    course_buf_free(r, c);
    return ms;
}

void course_assert_each_sector_once(const char *what, const struct vm_counters *c,
                                    uint64_t read_bytes, uint64_t write_bytes)
{
    ck_assert_msg(c->unique_read_bytes >= read_bytes && c->unique_write_bytes >= write_bytes,
                  "%s reached %llu bytes of its inputs and %llu of its outputs, of %llu and %llu",
                  what, (unsigned long long)c->unique_read_bytes,
                  (unsigned long long)c->unique_write_bytes, (unsigned long long)read_bytes,
                  (unsigned long long)write_bytes);
    ck_assert_msg((!read_bytes || 32 * c->gld_sectors == c->unique_read_bytes) &&
                      32 * c->gst_sectors == c->unique_write_bytes,
                  "%s moved %llu sectors of its inputs and %llu of its outputs for %llu and %llu "
                  "distinct ones: does the loop step by the whole grid?",
                  what, (unsigned long long)c->gld_sectors, (unsigned long long)c->gst_sectors,
                  (unsigned long long)c->unique_read_bytes / 32,
                  (unsigned long long)c->unique_write_bytes / 32);
}

/* ---- student programs ----------------------------------------------------------------------- */

/* The last 16 MiB at most of what a child wrote to @p fd (malloc'd, NUL-terminated); closes it. */
static char *slurp_fd(int fd)
{
    off_t size = lseek(fd, 0, SEEK_END);
    size_t keep = size > (16 << 20) ? (16 << 20) : (size_t)(size > 0 ? size : 0);
    char *text = mat_alloc(keep + 1);
    ssize_t got = pread(fd, text, keep, size - (off_t)keep);
    text[got > 0 ? got : 0] = '\0';
    close(fd);
    return text;
}

struct course_program course_program_start(char *const argv[])
{
    struct course_program p = {0,   course_capture_file(), course_capture_file(), 0, 0, 0, NULL,
                               NULL};
    const struct passwd *pw = course_sandbox_user();
    course_sandbox_dir();
    pid_t judge = getpid();
    p.pid = fork();
    ck_assert_msg(p.pid >= 0, "fork: %s", strerror(errno));
    if (p.pid == 0)
        course_exec_sandboxed(argv, pw, judge, p.out_fd, p.err_fd, COURSE_PROTO_IN, NULL);
    course_sandbox_count(1);
    return p;
}

void course_program_wait(struct course_program *p, int timeout_s)
{
    double until = now_s() + timeout_s < deadline() ? now_s() + timeout_s : deadline();
    int st = 0;
    pid_t w;
    while ((w = waitpid(p->pid, &st, WNOHANG)) == 0 && now_s() < until)
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    p->timed_out = w == 0;
    kill(-p->pid, SIGKILL); /* the rest of its group too (mpirun's ranks) */
    if (w == 0)
        waitpid(p->pid, &st, 0);
    course_sandbox_count(-1);
    p->status = WIFEXITED(st) && !p->timed_out ? WEXITSTATUS(st) : -1;
    p->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    p->output = slurp_fd(p->out_fd);
    p->errors = slurp_fd(p->err_fd);
}

struct course_program course_program_run(char *const argv[], int timeout_s)
{
    struct course_program p = course_program_start(argv);
    course_program_wait(&p, timeout_s);
    return p;
}

void course_judge_sgemm_right(struct course_runner *r, const char *name)
{
    static const int shape[][3] = {{129, 65, 63}};
    course_judge_sgemm_shapes(r, name, shape, 1, 1, 0);
}

void course_judge_vs_cublas(const char *name, const char *key)
{
    struct course_runner *r = course_runner_start(COURSE_GPU);
    course_judge_sgemm_right(r, name);
    double ms = course_judge_time_sgemm(r, name, 4096, 4096, 4096);
    course_runner_stop(r);
    double cublas = course_time_sgemm(baseline_sgemm, 4096, 4096, 4096);
    baseline_release();
    course_assert_bar(key, cublas / ms, "%s %.3f ms, cuBLAS %.3f ms at 4096^3", name, ms, cublas);
}

/* ---- absolute bounds: what a kernel moved against what the problem needs ------------------- */

void course_assert_sector_efficiency(const char *what, uint64_t sectors, double need_bytes,
                                     double min_efficiency)
{
    ck_assert_msg(sectors > 0, "%s: not one sector moved", what);
    double moved = 32.0 * (double)sectors, efficiency = need_bytes / moved;
    ck_assert_msg(efficiency >= min_efficiency,
                  "%s moved %.0f bytes in %llu sectors for the %.0f the problem needs: %.0f%% "
                  "efficient, want at least %.0f%%: let neighbouring lanes touch neighbouring "
                  "addresses",
                  what, moved, (unsigned long long)sectors, need_bytes, 100 * efficiency,
                  100 * min_efficiency);
}

void course_assert_shared_wavefronts(const char *what, uint64_t wavefronts, uint64_t requests,
                                     double ideal, double max_total, const char *hint)
{
    ck_assert_msg(requests > 0, "%s: not one request", what);
    double per = (double)wavefronts / (double)requests;
    ck_assert_msg(per <= ideal,
                  "%s: %.2f wavefronts per request (%llu in %llu requests), want at most %g: bank "
                  "conflicts; %s",
                  what, per, (unsigned long long)wavefronts, (unsigned long long)requests, ideal,
                  hint);
    ck_assert_msg((double)wavefronts <= max_total,
                  "%s took %llu wavefronts, conflict-free accesses take %.0f: %s", what,
                  (unsigned long long)wavefronts, max_total, hint);
}

void course_assert_in_registers(const char *ptxas_path, const char *kernel, const char *hint)
{
    char *log = course_read_file(ptxas_path);
    ck_assert_msg(log != NULL, "cannot read %s", ptxas_path);
    /* ptxas -v, per function: "Compiling entry function 'NAME' for 'sm_90'", then
     * "N bytes stack frame, N bytes spill stores, N bytes spill loads". */
    int found = 0;
    for (const char *p = strstr(log, "Compiling entry function '"); p;
         p = strstr(p + 1, "Compiling entry function '")) {
        const char *name = p + strlen("Compiling entry function '"), *end = strchr(name, '\'');
        const char *frame = strstr(p, "bytes stack frame");
        if (!end || !frame || strncmp(end, "' for 'sm_90'", 13) != 0)
            continue;
        char entry[256];
        snprintf(entry, sizeof entry, "%.*s", (int)(end - name), name);
        if (!strstr(entry, kernel))
            continue;
        const char *num = frame - 1;
        while (num > p && num[-1] >= '0' && num[-1] <= '9')
            num--;
        int stack = atoi(num), stores = 0, loads = 0;
        sscanf(frame, "bytes stack frame, %d bytes spill stores, %d bytes spill loads", &stores,
               &loads);
        found = 1;
        ck_assert_msg(stack == 0 && stores == 0 && loads == 0,
                      "%s: ptxas gives it %d bytes of local memory (stack frame) and %d + %d bytes "
                      "of spills on sm_90, where its register tile belongs in registers: %s",
                      kernel, stack, stores, loads, hint);
    }
    free(log);
    ck_assert_msg(found, "%s: no such kernel in the ptxas -v report %s", kernel, ptxas_path);
}
