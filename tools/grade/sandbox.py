"""Where the student's code is built and run when ./course grade runs as root.

Three ways, the first that this machine allows:
  namespaces    every build and test runs in a private mount and PID namespace whose root holds
                only what they need: the system's programs and libraries (/usr, /etc; of
                /usr/local and /opt only the CUDA toolkit and the course's packages), the grade
                tree, the folders the grade writes, a private /tmp and /dev/shm, and the device
                files. No other copy of the course is there, whatever its path.
  permissions   the container refuses namespaces: the course's checkout is made unreadable to
                the sandbox user for the grade (graders of one checkout take turns), and the C
                side runs each runner and student program as that user, limited, and kills
                every process it left behind.
  none          not root: one line says the student's code runs as you, not contained.
The C side (tests/common/course_sandbox.c) reads COURSE_SANDBOX_USER, and
COURSE_SANDBOX_NAMESPACES=0 in the permissions way. COURSE_SANDBOX_NO_NAMESPACES=1 in the grader's
own environment makes it take the permissions way where namespaces work (tools.attacks tests both
ways so); the student's code runs long after it is read and cannot change it.
"""
import contextlib
import fcntl
import os
import pathlib
import secrets
import shutil
import subprocess
import tempfile

# What the root holds of the system, read-only: the top folders (links recreated as links).
SYSTEM = ("usr", "etc", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
# Of /usr/local, what holds programs and libraries (no sources, no checkouts).
USR_LOCAL = ("bin", "lib", "lib64", "include", "share", "etc", "sbin")
DEVICES = ("null", "zero", "full", "random", "urandom", "tty", "nvidiactl", "nvidia-uvm",
           "nvidia-uvm-tools", "nvidia-modeset")


def namespaces_work():
    """'' when private mount and PID namespaces can be made here, else why not."""
    if os.environ.get("COURSE_SANDBOX_NO_NAMESPACES") == "1":
        return "refused for this grade (COURSE_SANDBOX_NO_NAMESPACES=1)"
    run = subprocess.run(["unshare", "--mount", "--pid", "--fork", "--mount-proc", "true"],
                         capture_output=True, text=True)
    return "" if run.returncode == 0 else (run.stderr.strip() or "unshare failed")


def tool_prefixes():
    """The install folders of the tools a build and its tests run that lie outside /usr's
    programs: the CUDA toolkit (nvcc's folder's parent) and the course's packages."""
    found = set()
    for tool in ("nvcc", "cmake", "ninja", "ctest", "mpirun"):
        path = shutil.which(tool)
        if path:
            real = pathlib.Path(path).resolve()
            found.add(str(real.parent.parent if real.parent.name == "bin" else real.parent))
    for env in ("COURSE_DEPS_PREFIX", "CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            found.add(os.environ[env])
    if os.path.isdir("/opt/course-deps"):
        found.add("/opt/course-deps")
    return sorted(found)


def quote(s):
    return "'" + str(s).replace("'", "'\\''") + "'"


def root_script(root, writable, readable):
    """The shell lines that build the private root at @p root and enter it: @p writable and
    @p readable folders at their own paths."""
    lines = [f"R={quote(root)}", "set -e",
             'mount -t tmpfs -o mode=0755 course-root "$R"']
    for top in SYSTEM:
        src = pathlib.Path("/") / top
        if src.is_symlink():
            lines.append(f'ln -s {quote(os.readlink(src))} "$R/{top}"')
        elif src.is_dir():
            lines += [f'mkdir "$R/{top}"', f'mount --rbind /{top} "$R/{top}"',
                      f'mount -o remount,bind,ro "$R/{top}"']
    lines += ['mkdir -p "$R/dev" "$R/proc" "$R/sys" "$R/tmp"',
              'mount -t tmpfs -o mode=0755 course-dev "$R/dev"',
              'mount -t tmpfs -o mode=1777 course-tmp "$R/tmp"',
              'mkdir "$R/dev/shm" && mount -t tmpfs -o mode=1777 course-shm "$R/dev/shm"',
              'ln -s /proc/self/fd "$R/dev/fd"',
              'mount -t proc proc "$R/proc"',
              'mount --rbind /sys "$R/sys" && mount -o remount,bind,ro "$R/sys"',
              'mount -t tmpfs -o mode=0755 course-local "$R/usr/local"']
    shown = [f"/usr/local/{d}" for d in USR_LOCAL if os.path.isdir(f"/usr/local/{d}")]
    for path in shown + tool_prefixes():
        lines += expose(path, ro=True)
    for path in writable:
        lines += expose(path, ro=False)
    for path in readable:
        lines += expose(path, ro=True)
    for dev in DEVICES + tuple(f"nvidia{i}" for i in range(16)):
        if os.path.exists(f"/dev/{dev}"):
            lines += [f'touch "$R/dev/{dev}"', f'mount --bind /dev/{dev} "$R/dev/{dev}"']
    return lines


def expose(path, ro):
    """Lines that show @p path in the root at the same path: its real folder bound there, and
    the link when @p path is one (/usr/local/cuda, say)."""
    real = os.path.realpath(path)
    shown = (real in ("/", "/usr", "/etc") or real.startswith(("/usr/", "/etc/"))) and not \
        real.startswith("/usr/local")
    if not os.path.isdir(real) or (shown and ro):
        return []  # missing, or in the root already
    lines = [f'mkdir -p "$R"{quote(real)}', f'mount --rbind {quote(real)} "$R"{quote(real)}']
    if ro:
        lines.append(f'mount -o remount,bind,ro "$R"{quote(real)}')
    if os.path.abspath(path) != real:
        link = os.path.abspath(path)
        lines += [f'mkdir -p "$R"{quote(os.path.dirname(link))}',
                  f'[ -e "$R"{quote(link)} ] || ln -s {quote(real)} "$R"{quote(link)}']
    return lines


class Sandbox:
    """The way student code is contained for one grade (see the file comment)."""

    def __init__(self, course, say=print):
        self.course = pathlib.Path(course)
        self.root = None
        self.lock = None
        self.salt = secrets.token_hex(8)
        self.mode = None
        if os.geteuid() != 0:
            self.way = "none"
            say(f"course: not root: the student's code builds and runs as you, can read "
                f"{course} (the solutions) and is not contained; grade as root to sandbox it")
            return
        why = namespaces_work()
        self.way = "namespaces" if not why else "permissions"
        if why:
            say(f"course: no namespaces here ({why}): the student's code runs as "
                f"{self.user()}, limited, unable to read {course}")

    @staticmethod
    def user():
        return os.environ.get("COURSE_GRADE_USER", "nobody")

    def env(self, judge=False):
        """What the judges must know: their sandbox (course_sandbox.c) and, for the tests
        (@p judge), a salt for the inputs they make, which no student code sees (course_test.c
        takes it out of the environment before any runs)."""
        env = {"COURSE_JUDGE_SALT": self.salt} if judge else {}
        if self.way != "none":
            env["COURSE_SANDBOX_USER"] = self.user()
        if self.way == "permissions":
            env["COURSE_SANDBOX_NAMESPACES"] = "0"
        return env

    def __enter__(self):
        if self.way == "namespaces":
            self.root = tempfile.mkdtemp(prefix="course-root.")
        elif self.way == "permissions":
            # One grader of this checkout at a time hides it, and shows it again at the end.
            self.lock = open(os.path.join(tempfile.gettempdir(),
                                          f"course-grade-{os.stat(self.course).st_ino}.lock"), "w")
            fcntl.flock(self.lock, fcntl.LOCK_EX)
            self.mode = os.stat(self.course).st_mode & 0o7777
            os.chmod(self.course, 0o700)
        return self

    def __exit__(self, *exc):
        if self.root:
            with contextlib.suppress(OSError):
                os.rmdir(self.root)
        if self.mode is not None:
            os.chmod(self.course, self.mode)
            self.lock.close()
        return False

    def build(self, argv, tree, build, **kw):
        """Run the build command @p argv of the grade tree @p tree: compilers read the student's
        sources, so they see only what the tests do; without namespaces they run as the sandbox
        user, who then owns the build folder @p build only while it builds."""
        if self.way != "permissions":
            return self.run(argv, writable=[tree], **kw)
        subprocess.run(["chown", "-R", self.user(), str(build)], check=True)
        try:
            return self.run(["runuser", "-u", self.user(), "--", *argv], **kw)
        finally:
            subprocess.run(["chown", "-R", "root:root", str(build)], check=True)

    def run(self, argv, writable=(), readable=(), cwd="/", judge=False, **kw):
        """Run @p argv (as the grader) where the student's code is contained: in the private root
        with @p writable and @p readable folders shown, or as it is; @p judge: the tests, which
        get the salt. subprocess.run's kwargs."""
        env = dict(kw.pop("env", os.environ), **self.env(judge))
        if self.way != "namespaces":
            return subprocess.run(argv, cwd=cwd, env=env, **kw)
        env.update(TMPDIR="/tmp", HOME="/tmp")
        script = "\n".join(root_script(self.root, writable, readable) + [
            f'cd "$R" && exec chroot "$R" sh -c \'cd "$0" && exec "$@"\' {quote(cwd)} "$@"'])
        return subprocess.run(["unshare", "--mount", "--pid", "--fork", "--mount-proc",
                               "--propagation", "private", "sh", "-c", script, "sh", *argv],
                              env=env, **kw)
