/**
 * @file course_sandbox.c
 * @brief The C side of the grader's sandbox (see course_sandbox.h).
 */
#define _GNU_SOURCE /* setgroups, closefrom, unshare */
#include "course_sandbox.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "course_judge.h"
#include "course_test.h"

/* 1 unless the grader's sandbox said namespaces are refused here (COURSE_SANDBOX_NAMESPACES=0). */
static int namespaces(void)
{
    const char *v = getenv("COURSE_SANDBOX_NAMESPACES");
    return !v || strcmp(v, "0");
}

static char sandbox_path[512]; /* this case's directory */
static char cases_path[480];   /* the test program's: every case's directory is made in it */
/* The processes that made them, the only ones to remove them (a child a case forks inherits the
 * atexit() handlers, and may exit() while the case still uses its directory). */
static pid_t sandbox_owner, cases_owner;

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path) && errno != ENOENT;
}

/* A case that passes removes its directory as it exits; one that fails ends in Check's _exit(),
 * which runs no atexit() handler, so the test program removes what its cases left. */
static void sandbox_remove(void)
{
    if (sandbox_path[0] && getpid() == sandbox_owner)
        nftw(sandbox_path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void cases_remove(void)
{
    if (cases_path[0] && getpid() == cases_owner)
        nftw(cases_path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* $TMPDIR, or /tmp. */
static const char *tmp_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

void course_sandbox_begin(void)
{
    snprintf(cases_path, sizeof cases_path, "%s/course-cases-XXXXXX", tmp_dir());
    /* traversable by the sandbox user, listable by no one else; without it, cases use $TMPDIR */
    if (!mkdtemp(cases_path) || chmod(cases_path, 0711)) {
        cases_path[0] = '\0';
        return;
    }
    cases_owner = getpid();
    atexit(cases_remove);
}

/* The user sandboxed processes become, when the judge runs as root and one is named. */
const struct passwd *course_sandbox_user(void)
{
    const char *name = getenv("COURSE_SANDBOX_USER");
    if (geteuid() != 0 || !name || !*name)
        return NULL;
    const struct passwd *pw = getpwnam(name);
    ck_assert_msg(pw != NULL, "COURSE_SANDBOX_USER=%s names no user", name);
    return pw;
}

const char *course_sandbox_dir(void)
{
    if (sandbox_path[0])
        return sandbox_path;
    snprintf(sandbox_path, sizeof sandbox_path, "%s/course-case-XXXXXX",
             cases_path[0] ? cases_path : tmp_dir());
    ck_assert_msg(mkdtemp(sandbox_path) != NULL, "mkdtemp: %s", strerror(errno));
    sandbox_owner = getpid();
    atexit(sandbox_remove);
    const struct passwd *pw = course_sandbox_user();
    if (pw)
        ck_assert_msg(chown(sandbox_path, pw->pw_uid, pw->pw_gid) == 0, "chown %s: %s",
                      sandbox_path, strerror(errno));
    return sandbox_path;
}

/* An unlinked file for a child's stdout and stderr. */
int course_capture_file(void)
{
    FILE *f = tmpfile();
    ck_assert_msg(f != NULL, "tmpfile: %s", strerror(errno));
    int fd = fcntl(fileno(f), F_DUPFD_CLOEXEC, 5);
    fclose(f);
    ck_assert(fd >= 0);
    return fd;
}

/* Set a limit to @p v, soft and hard. */
static void limit(int resource, rlim_t v)
{
    struct rlimit l = {v, v};
    setrlimit(resource, &l);
}

/* Keep @p fd as fd 0 and close every other from 3 on: the runner's pipes stay with the runner,
 * so the judge still reads its end as soon as it ends. Returns 0. */
static int keep_only(int fd)
{
    if (dup2(fd, 0) < 0)
        _exit(126);
    closefrom(3);
    return 0;
}

static pid_t forward_pid; /* where a process of contain() passes a signal on */

static void forward_signal(int sig)
{
    kill(forward_pid, sig);
}

/* Pass on to @p pid the signals a judge sends a program (SIGTERM to stop it, ...), in place of
 * the handlers inherited from the judge. */
static void forward_signals_to(pid_t pid)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward_signal;
    forward_pid = pid;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* Outside the namespace: wait for its pid 1 (@p init), then end as the sandboxed process ended
 * (its wait status, which pid 1 sends on @p fd), so that the judge sees that ending. */
static void relay_ending(pid_t init, int fd)
{
    int st = 0, child = 0;
    fd = keep_only(fd);
    forward_signals_to(init);
    while (waitpid(init, &st, 0) < 0 && errno == EINTR)
        ;
    if (read(fd, &child, sizeof child) == (ssize_t)sizeof child)
        st = child;
    if (WIFSIGNALED(st)) {
        signal(WTERMSIG(st), SIG_DFL);
        kill(getpid(), WTERMSIG(st));
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
}

/* Pid 1 of the namespace: reap every orphan until @p child ends, send its wait status on
 * @p fd; then leave, and the kernel kills whatever is left in the namespace. */
static void reap_until(pid_t child, int fd)
{
    int st = 0;
    pid_t w;
    fd = keep_only(fd);
    forward_signals_to(child);
    while ((w = wait(&st)) != child)
        if (w < 0 && errno != EINTR)
            _exit(127);
    ssize_t put = write(fd, &st, sizeof st);
    _exit(put == (ssize_t)sizeof st ? 0 : 127);
}

/*
 * Contain what the sandboxed process starts. From here on it runs as the only child of pid 1
 * in a PID namespace of its own, so whatever it forks (double-forked, setsid() or not) dies
 * with the namespace: when it ends, or when the judge kills its process group (which holds the
 * two root processes outside its reach that stand between them: one here, that passes signals
 * in and the ending out, and pid 1). Returns in the process that goes on, with the parent it must
 * see: 1, or @p judge where no namespace can be made (then nothing is contained).
 */
static pid_t contain(pid_t judge)
{
    int sv[2];
    if (!namespaces() || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) ||
        unshare(CLONE_NEWPID))
        return judge;
    pid_t init = fork();
    if (init < 0)
        _exit(126);
    if (init > 0) {
        close(sv[1]);
        relay_ending(init, sv[0]);
    }
    close(sv[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct pollfd alive = {sv[1], POLLIN, 0};
    if (poll(&alive, 1, 0) != 0) /* the process outside left before pid 1 could follow it */
        _exit(125);
    pid_t child = fork();
    if (child < 0)
        _exit(126);
    if (child > 0)
        reap_until(child, sv[1]);
    close(sv[1]);
    return 1;
}

/* The limits of a sandboxed process (the user's): files, processes, CPU time and data memory. The
 * CPU emulator's device memory is a sparse memfd of 64 GiB or more, which a file-size limit counts
 * (ftruncate past it is SIGXFSZ), and mapped shared, which no data limit counts: on the emulator,
 * the CPU-time limit is what bounds the bytes a process writes. */
static void limits(int emulated)
{
    limit(RLIMIT_FSIZE, emulated ? RLIM_INFINITY : (rlim_t)1 << 30);
    limit(RLIMIT_NPROC, 512);
    limit(RLIMIT_CPU, (rlim_t)course_judge_budget_s + 30);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        limit(RLIMIT_DATA, (rlim_t)pages * (rlim_t)page / 2);
}

_Noreturn void course_exec_sandboxed(char *const argv[], const struct passwd *pw, pid_t judge,
                                     int out_fd, int err_fd, int first_closed, const char *ld_path)
{
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(126);
    closefrom(first_closed);
    setpgid(0, 0);
    limit(RLIMIT_CORE, 0);
    if (pw) {
        limits(ld_path || course_emulated);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != judge)
            _exit(125);
        judge = contain(judge);
        if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid)) {
            fprintf(stderr, "cannot become %s: %s\n", pw->pw_name, strerror(errno));
            _exit(126);
        }
    }
    /* After the credential change, which clears it; then make sure the parent still lives. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != judge)
        _exit(125);
    const char *dir = sandbox_path;
    if (chdir(dir))
        _exit(126);
    setenv("HOME", dir, 1);
    setenv("TMPDIR", dir, 1);
    if (ld_path) {
        const char *old = getenv("LD_LIBRARY_PATH");
        char path[4096];
        snprintf(path, sizeof path, "%s%s%s", ld_path, old ? ":" : "", old ? old : "");
        setenv("LD_LIBRARY_PATH", path, 1);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Kill every process of user @p pw: from a child that becomes that user and signals all it may
 * (kill(-1) spares the caller and pid 1). */
static void kill_user(const struct passwd *pw)
{
    pid_t p = fork();
    if (p == 0) {
        if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid))
            _exit(1);
        kill(-1, SIGKILL);
        _exit(0);
    }
    if (p > 0)
        waitpid(p, NULL, 0);
}

void course_sandbox_count(int change)
{
    static int running;
    running += change;
    const struct passwd *pw = running == 0 ? course_sandbox_user() : NULL;
    if (pw && !namespaces()) /* nothing holds what they forked: nothing of theirs may stay */
        kill_user(pw);
}
