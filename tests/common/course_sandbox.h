/**
 * @file course_sandbox.h
 * @brief The C side of the grader's sandbox (tools/grade/sandbox.py is the rest): how the judge
 *        starts each runner and student program.
 *
 * Under `./course grade` run as root, COURSE_SANDBOX_USER names the user runners and student
 * programs run as (nobody): each in its own process group, in a private temporary directory it
 * owns (course_sandbox_dir()), with no core dumps and limits on file size, processes, CPU time
 * and data memory; it dies with the judge (PR_SET_PDEATHSIG). Where namespaces work, it runs as
 * the only child of pid 1 in a PID namespace of its own, so whatever it forks dies with it;
 * where they do not (COURSE_SANDBOX_NAMESPACES=0, set by the grader's sandbox.py, or unshare
 * refused), the judge kills every process of that user once none of the case's sandboxed
 * processes is running any more. Without COURSE_SANDBOX_USER (not root) nothing is contained.
 */
#ifndef COURSE_SANDBOX_H
#define COURSE_SANDBOX_H

#include <pwd.h>
#include <sys/types.h>

/** Before the cases run, in the test program's own process: the directory each case's directory
 *  is made in, removed with whatever its cases left when the program exits. */
void course_sandbox_begin(void);

/** The user sandboxed processes become (COURSE_SANDBOX_USER, when the judge is root), or NULL. */
const struct passwd *course_sandbox_user(void);

/** An unlinked file for a child's stdout or stderr (close-on-exec, from fd 5 up). */
int course_capture_file(void);

/**
 * In a child of the judge (pid @p judge): stdout to @p out_fd and stderr to @p err_fd, every
 * other fd from @p first_closed on closed, then contained as the file comment says (the user
 * @p pw, when not NULL) in course_sandbox_dir(), with @p ld_path first on LD_LIBRARY_PATH when
 * not NULL; then exec @p argv. Never returns.
 */
_Noreturn void course_exec_sandboxed(char *const argv[], const struct passwd *pw, pid_t judge,
                                     int out_fd, int err_fd, int first_closed, const char *ld_path);

/** A sandboxed process was started (+1) or reaped (-1); at 0, where no PID namespace holds what
 *  they forked, every process of the sandbox user is killed. */
void course_sandbox_count(int change);

#endif /* COURSE_SANDBOX_H */
