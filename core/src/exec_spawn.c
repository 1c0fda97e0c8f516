/* exec_spawn.c - the child's start (raw system calls) and its handover to
 * the supervisor (exec_supervise.c). */
#define _GNU_SOURCE
#include "exec_spawn.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_idmap.h"
#include "exec_landlock.h"
#include "exec_seccomp.h"
#include "exec_supervise.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

#define CHILD_STACK_SIZE (64 * 1024)
/* The kernel's sigset size (64 signals) and the highest signal. */
#define KERNEL_SIGSET_SIZE 8
#define KERNEL_NSIG 64

/* Where the child failed before execve (shared memory: CLONE_VM). */
enum child_stage {
    STAGE_OK = 0,
    STAGE_SIGNALS,
    STAGE_SETSID,
    STAGE_STDIO,
    STAGE_CWD,
    STAGE_VIEW,
    STAGE_LIMITS,
    STAGE_CAPS,
    STAGE_NO_NEW_PRIVS,
    STAGE_LANDLOCK,
    STAGE_SECCOMP,
    STAGE_CLOSE,
    STAGE_EXEC,
    STAGE_INIT,
};

static const char *const stage_names[] = {
    "",
    "signal reset",
    "new session",
    "standard streams",
    "working directory",
    "namespace view",
    "resource limits",
    "capability drop",
    "no_new_privs",
    "Landlock",
    "seccomp",
    "descriptor cleanup",
    "shell start",
    "init",
};

typedef pathgate__clone_func clone_func;

typedef struct child_args {
    const pathgate__exec_spec *spec;
    const struct sock_fprog *filter;
    int devnull;
    int pipe_w;
    int cwd_fd;
    int ruleset_fd;
    volatile int stage;
    volatile int error;
    const char *volatile view_step;
    volatile int pid_limited;
    /* With an init (PG_HAVE_INIT and a view): the first child stays as
     * pid 1 and starts the shell on stack_b. */
    int init;
    clone_func do_clone;
    void *stack_b;
    int sync_w; /* held until the shell has started or failed */
    /* Unprivileged view: the child waits for one byte on map_r (the
     * parent has written its uid and gid maps) or EOF (it could not). */
    int map_r, map_w;
} child_args;

/* The init runs alongside the parent's threads once the shell has
 * started (it is not a vfork child): its system calls must not touch
 * errno, which is the calling thread's. Inline system calls, for the
 * architectures that have them. */
#if defined(__x86_64__)
#define PG_HAVE_INIT 1
__attribute__((no_sanitize("address", "undefined", "thread"))) static inline long pg_sys4(
    long n, long a, long b, long c, long d)
{
    long ret;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return ret;
}
#elif defined(__aarch64__)
#define PG_HAVE_INIT 1
__attribute__((no_sanitize("address", "undefined", "thread"))) static inline long pg_sys4(
    long n, long a, long b, long c, long d)
{
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
}
#else
#define PG_HAVE_INIT 0
#endif

/* Raw system call, -errno on failure. glibc's syscall() writes errno on
 * failure; under CLONE_VM|CLONE_VFORK that is the suspended parent thread's
 * errno slot, which the parent does not read across the clone. */
#define RAW(...) raw_result(syscall(__VA_ARGS__))
__attribute__((no_sanitize("address", "undefined", "thread"))) static inline long raw_result(long r)
{
    return r < 0 ? -(long)errno : r;
}

__attribute__((no_sanitize("address", "undefined", "thread"))) static int move_fd(int from, int to)
{
    if (from == to) /* only possible for to >= 3, never here; keep it correct anyway */
        return (int)RAW(SYS_fcntl, from, F_SETFD, 0);
    return (int)RAW(SYS_dup3, from, to, 0);
}

__attribute__((noreturn, no_sanitize("address", "undefined", "thread"))) static void child_fail(
    child_args *a, int stage, long neg_errno)
{
    a->error = (int)-neg_errno;
    a->stage = stage;
    syscall(SYS_exit_group, 127);
    __builtin_unreachable();
}

__attribute__((noreturn, no_sanitize("address", "undefined", "thread"))) static void
confine_and_exec(child_args *a);

#if PG_HAVE_INIT
__attribute__((no_sanitize("address", "undefined", "thread"))) static int shell_main(void *p)
{
    confine_and_exec(p);
}

/* pid 1 of the PID namespace: starts the shell (pid 2, a vfork child),
 * then reaps every process that ends up its child until the shell has
 * exited, and exits with the shell's status (128 + N after signal N).
 * Its own exit ends every other process of the namespace. It keeps the
 * namespace's capabilities: the confined shell can neither trace it nor
 * read its memory (which is the host's). */
__attribute__((noreturn, no_sanitize("address", "undefined", "thread"))) static void init_main(
    child_args *a)
{
    int shell = a->do_clone(shell_main, a->stack_b, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
    /* From here on the parent runs: inline system calls only. Drop every
     * descriptor but the standard ones (the host's too). */
    pg_sys4(__NR_close_range, 3, ~0U, 0, 0);
    if (shell < 0) {
        a->error = EAGAIN;
        a->stage = STAGE_INIT;
    }
    if (a->stage != STAGE_OK)
        pg_sys4(SYS_exit_group, 127, 0, 0, 0);
    for (;;) {
        int st = 0;
        long r = pg_sys4(SYS_wait4, -1, (long)&st, __WALL, 0);
        if (r == shell)
            pg_sys4(SYS_exit_group, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), 0, 0, 0);
        if (r < 0 && r != -EINTR)
            pg_sys4(SYS_exit_group, 127, 0, 0, 0);
    }
}
#endif

/* The child: raw system calls only, on its own stack, sharing the parent's
 * memory until execve (or, as init, ever after). No allocation, no locks,
 * no sanitizer hooks. */
__attribute__((no_sanitize("address", "undefined", "thread"))) static int child_main(void *p)
{
    child_args *a = p;
    long rc;

    /* 1. Every signal back to its default action (an ignored SIGPIPE
     * would survive execve), while all of them are still blocked. */
    unsigned long dfl[4] = {0, 0, 0, 0}; /* SIG_DFL, no flags, empty mask */
    for (int s = 1; s <= KERNEL_NSIG; s++) {
        if (s == SIGKILL || s == SIGSTOP)
            continue;
        rc = RAW(SYS_rt_sigaction, s, dfl, NULL, KERNEL_SIGSET_SIZE);
        if (rc < 0 && rc != -EINVAL)
            child_fail(a, STAGE_SIGNALS, rc);
    }
    /* 2. New session and process group (pgid = pid), no controlling tty. */
    if ((rc = RAW(SYS_setsid)) < 0)
        child_fail(a, STAGE_SETSID, rc);
    /* 3. stdin </dev/null, stdout and stderr the same pipe (ordered). */
    if ((rc = move_fd(a->devnull, 0)) < 0 || (rc = move_fd(a->pipe_w, 1)) < 0 ||
        (rc = move_fd(a->pipe_w, 2)) < 0)
        child_fail(a, STAGE_STDIO, rc);
    /* 4. A fresh session keyring (the host's keyrings are out of reach;
     * seccomp denies keyctl afterwards anyway). */
    RAW(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, 0);
    /* 5. The view (namespaces) and its working directory, or without it
     * the working directory by fd: no path string is involved. */
    if (a->map_r >= 0) {
        char c;
        RAW(SYS_close, a->map_w);
        rc = RAW(SYS_read, a->map_r, &c, 1);
        RAW(SYS_close, a->map_r);
        if (rc != 1) {
            a->view_step = "uid map";
            child_fail(a, STAGE_VIEW, rc < 0 ? rc : -EPERM);
        }
    }
    if (a->spec->view) {
        const char *step = "";
        rc = pathgate__exec_view_enter(a->spec->view, a->ruleset_fd, &step, &a->pid_limited);
        a->view_step = step;
        if (rc < 0)
            child_fail(a, STAGE_VIEW, rc);
    } else if ((rc = RAW(SYS_fchdir, a->cwd_fd)) < 0) {
        child_fail(a, STAGE_CWD, rc);
    }
    /* 6. Resource limits (soft = hard: the command cannot raise them). */
    const pathgate__exec_limits *l = &a->spec->limits;
    const unsigned long long lims[][2] = {{RLIMIT_NPROC, l->nproc},
                                          {RLIMIT_AS, l->as},
                                          {RLIMIT_CPU, l->cpu},
                                          {RLIMIT_FSIZE, l->fsize}};
    for (int i = 0; i < 4; i++) {
        unsigned long long cur[2], lim[2] = {lims[i][1], lims[i][1]};
        if (!lim[0])
            continue;
        /* never above the hard limit we have (raising it needs privilege) */
        if ((rc = RAW(SYS_prlimit64, 0, (int)lims[i][0], NULL, cur)) < 0)
            child_fail(a, STAGE_LIMITS, rc);
        if (cur[1] < lim[1])
            lim[0] = lim[1] = cur[1];
        if ((rc = RAW(SYS_prlimit64, 0, (int)lims[i][0], lim, NULL)) < 0)
            child_fail(a, STAGE_LIMITS, rc);
    }
#if PG_HAVE_INIT
    if (a->init)
        init_main(a);
#endif
    confine_and_exec(a);
}

/* The shell's own confinement, then execve. */
__attribute__((noreturn, no_sanitize("address", "undefined", "thread"))) static void
confine_and_exec(child_args *a)
{
    long rc;
    /* 7. No capabilities, now or after execve (root included): with
     * SECBIT_NOROOT an execve by uid 0 no longer grants the full set, so
     * clearing ambient, inheritable, permitted and effective sets is final
     * (no_new_privs below rules out setuid and file capabilities). Setting
     * securebits needs CAP_SETPCAP: without it (EPERM) the process is not
     * privileged and exec grants it nothing anyway. */
    rc = RAW(SYS_prctl, PR_SET_SECUREBITS,
             SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
                 SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
             0, 0, 0);
    if (rc < 0 && rc != -EPERM)
        child_fail(a, STAGE_CAPS, rc);
    rc = RAW(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (rc < 0 && rc != -EINVAL)
        child_fail(a, STAGE_CAPS, rc);
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    for (int i = 0; i < 2; i++)
        data[i].effective = data[i].permitted = data[i].inheritable = 0;
    if ((rc = RAW(SYS_capset, &hdr, data)) < 0)
        child_fail(a, STAGE_CAPS, rc);
    /* 8. */
    if ((rc = RAW(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) < 0)
        child_fail(a, STAGE_NO_NEW_PRIVS, rc);
    /* 9. */
    if (a->ruleset_fd >= 0 &&
        (rc = RAW(PATHGATE__SYS_LANDLOCK_RESTRICT_SELF, a->ruleset_fd, 0)) < 0)
        child_fail(a, STAGE_LANDLOCK, rc);
    /* 10. */
    if (a->filter &&
        (rc = RAW(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, a->filter, 0, 0)) < 0)
        child_fail(a, STAGE_SECCOMP, rc);
    /* 11. Nothing but 0, 1 and 2 crosses execve, whatever the parent's other
     * threads opened without O_CLOEXEC. */
    rc = RAW(__NR_close_range, 3, ~0U, 0);
    if (rc == -ENOSYS) {
        for (int fd = 3; fd < 65536; fd++)
            RAW(SYS_close, fd);
    } else if (rc < 0) {
        child_fail(a, STAGE_CLOSE, rc);
    }
    /* 12. Unblock signals last: the dispositions are defaults by now. */
    uint64_t empty = 0;
    if ((rc = RAW(SYS_rt_sigprocmask, SIG_SETMASK, &empty, NULL, KERNEL_SIGSET_SIZE)) < 0)
        child_fail(a, STAGE_SIGNALS, rc);
    rc = RAW(SYS_execve, a->spec->argv[0], a->spec->argv, a->spec->envp);
    child_fail(a, STAGE_EXEC, rc);
}

/* ------------------------------------------------------------- parent */

int pathgate__exec_spawn_can_map(void)
{
    return PG_HAVE_INIT;
}

/* A descriptor the child can move onto 0/1/2 without clobbering another:
 * fds below 3 (a parent with closed stdio) are duplicated upwards. Returns
 * the fd to use (owned: *dup_out set when a duplicate was made) or -1. */
static int high_fd(int fd, int *dup_out)
{
    *dup_out = -1;
    if (fd < 0 || fd >= 3)
        return fd;
    *dup_out = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    return *dup_out;
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

#if defined(__SANITIZE_THREAD__)
#define PG_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PG_TSAN 1
#endif
#endif

/* glibc's clone(). ThreadSanitizer interposes clone() and treats every
 * call as a fork (its child-side bookkeeping then runs in our CLONE_VM
 * child, in the parent's memory); under it, take libc's own definition so
 * the sanitizer never sees the child, exactly as in a normal build. */
clone_func pathgate__exec_libc_clone(void)
{
#ifdef PG_TSAN
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    clone_func fn = NULL;
    if (libc) {
        *(void **)&fn = dlsym(libc, "clone");
        dlclose(libc);
    }
    if (fn)
        return fn;
#endif
    return clone;
}

/* Starts the child. Without an init the clone is a vfork (the calling
 * thread waits until the shell has started or failed); with one, the
 * calling thread waits the same way on a pipe the init and the shell hold
 * until then. *stack is the mapping to unmap once the child is reaped. */
static pid_t start_child(int *pidfd, child_args *args, void **stack, size_t *stack_size)
{
    args->do_clone = pathgate__exec_libc_clone();
    args->init = PG_HAVE_INIT && args->spec->view;
    *stack_size = args->init ? 2 * CHILD_STACK_SIZE : CHILD_STACK_SIZE;
    *stack = mmap(NULL, *stack_size, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (*stack == MAP_FAILED) {
        *stack = NULL;
        return -1;
    }
    args->stack_b = (char *)*stack + 2 * CHILD_STACK_SIZE;
    int sync[2] = {-1, -1}, map[2] = {-1, -1}, dup_map[2] = {-1, -1};
    if (args->init && args->spec->view->unpriv) {
        if (pipe2(map, O_CLOEXEC) < 0 || (args->map_r = high_fd(map[0], &dup_map[0])) < 0 ||
            (args->map_w = high_fd(map[1], &dup_map[1])) < 0) {
            int e = errno;
            for (int i = 0; i < 2; i++) {
                close_fd(&map[i]);
                close_fd(&dup_map[i]);
            }
            errno = e;
            return -1;
        }
    }
    if (args->init) {
        int dup_w;
        if (pipe2(sync, O_CLOEXEC) < 0 || (args->sync_w = high_fd(sync[1], &dup_w)) < 0) {
            int e = errno;
            close_fd(&sync[0]);
            close_fd(&sync[1]);
            for (int i = 0; i < 2; i++) {
                close_fd(&map[i]);
                close_fd(&dup_map[i]);
            }
            errno = e;
            return -1;
        }
        if (dup_w >= 0) {
            close(sync[1]);
            sync[1] = dup_w;
        }
    }
    /* All signals blocked across the clone: until the child has reset
     * the dispositions, a handler of the parent must not run in it. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* No exit signal (low byte 0): no SIGCHLD for the process's handlers
     * and no auto-reaping when SIGCHLD is ignored; only a __WALL wait
     * sees the child. */
    int flags = CLONE_VM | (args->init ? 0 : CLONE_VFORK);
    if (args->spec->view)
        flags |= CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
    *pidfd = -1;
    char *top = (char *)*stack + CHILD_STACK_SIZE;
    pid_t pid = args->do_clone(child_main, top, flags | CLONE_PIDFD, args, pidfd);
    if (pid < 0 && errno == EINVAL) {
        *pidfd = -1;
        pid = args->do_clone(child_main, top, flags, args);
    }
    int e = errno;
    if (args->map_w >= 0) {
        /* The child waits for its maps (privileged: only a process
         * outside its namespace may write them). */
        if (pid >= 0 && pathgate__exec_idmap_write(pid, args->spec->view->uid_map,
                                                   args->spec->view->gid_map) == 0) {
            while (write(args->map_w, "1", 1) < 0 && errno == EINTR) {
            }
        }
        for (int i = 0; i < 2; i++) {
            close_fd(&map[i]);
            close_fd(&dup_map[i]);
        }
    }
    if (args->init) {
        close_fd(&sync[1]);
        char c;
        if (pid >= 0)
            while (read(sync[0], &c, 1) < 0 && errno == EINTR) {
            }
        close_fd(&sync[0]);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return pid;
}

/* errno values of clone(CLONE_NEWUSER|...) that mean "no user namespaces
 * here" (disabled, limit reached, not built in), and of the first steps
 * in one (a security module refusing the mappings or the mounts). */
static int userns_unavailable(int e)
{
    return e == EPERM || e == EACCES || e == ENOSPC || e == EUSERS || e == EINVAL || e == ENOSYS;
}

/* The error of a child that failed before execve: a refused uid map or
 * mount propagation means no usable user namespace (the caller may fall
 * back); otherwise the stage (and view step) is named, never a path. */
static int child_failure(const child_args *a, pathgate_error *err)
{
    int stage = a->stage;
    const char *step = a->view_step;
    if (stage == STAGE_VIEW && (a->error == EPERM || a->error == EACCES) &&
        (!strcmp(step, "setgroups") || !strcmp(step, "uid map") || !strcmp(step, "gid map") ||
         !strcmp(step, "mount propagation")))
        return PATHGATE__EXEC_NO_USERNS;
    if (stage == STAGE_VIEW)
        return pathgate__error_set(err, PATHGATE_EIO, "cannot confine the command (%s: %s): %s",
                                   stage_names[stage], step, strerrordesc_np(a->error));
    return pathgate__error_set(err, stage == STAGE_LANDLOCK ? PATHGATE_EUNSUPPORTED : PATHGATE_EIO,
                               "cannot confine the command (%s): %s", stage_names[stage],
                               strerrordesc_np(a->error));
}

int pathgate__exec_spawn(pathgate_exec_result *out, const pathgate__exec_spec *spec,
                         unsigned int *prot, pathgate_error *err)
{
    int rc = PATHGATE_OK;
    int pipefd[2] = {-1, -1};
    int devnull = -1, dups[4] = {-1, -1, -1, -1}, pidfd = -1;
    void *stack = NULL;
    size_t stack_size = 0;

    if (pipe2(pipefd, O_CLOEXEC) < 0) {
        rc = pathgate__error_set(err, PATHGATE_EIO, "cannot create the output pipe: %s",
                                 strerrordesc_np(errno));
        goto done;
    }
    devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    child_args args = {spec, spec->filter, -1, -1, -1, -1, 0, 0, "", 0, 0, NULL, NULL, -1, -1, -1};
    args.devnull = high_fd(devnull, &dups[0]);
    args.pipe_w = high_fd(pipefd[1], &dups[1]);
    args.cwd_fd = high_fd(spec->cwd_fd, &dups[2]);
    args.ruleset_fd = high_fd(spec->ruleset_fd, &dups[3]);
    if (devnull < 0 || args.devnull < 0 || args.pipe_w < 0 || args.cwd_fd < 0 ||
        (spec->ruleset_fd >= 0 && args.ruleset_fd < 0) ||
        fcntl(pipefd[0], F_SETFL, O_NONBLOCK) < 0) {
        rc = pathgate__error_set(err, PATHGATE_EIO, "cannot prepare the child's descriptors: %s",
                                 strerrordesc_np(errno));
        goto done;
    }

    pid_t pid = start_child(&pidfd, &args, &stack, &stack_size);
    int start_errno = errno;
    close_fd(&pipefd[1]);
    close_fd(&devnull);
    for (int i = 0; i < 4; i++)
        close_fd(&dups[i]);
    if (pid < 0) {
        if (spec->view && userns_unavailable(start_errno)) {
            rc = PATHGATE__EXEC_NO_USERNS;
            goto done;
        }
        rc = pathgate__error_set(err, PATHGATE_EIO, "cannot start the command: %s",
                                 strerrordesc_np(start_errno));
        goto done;
    }
    if (args.stage != STAGE_OK) {
        int ignored;
        pathgate__exec_reap(&ignored, pid);
        rc = child_failure(&args, err);
        goto done;
    }
    if (spec->view)
        *prot |= PATHGATE_EXEC_PROT_NAMESPACES;
    if (spec->view && spec->view->unpriv)
        *prot |= PATHGATE_EXEC_PROT_UNPRIVILEGED_UID;
    if (args.pid_limited)
        *prot |= PATHGATE_EXEC_PROT_PID_LIMIT;
    *prot |= PATHGATE_EXEC_PROT_RLIMITS;

    /* The child runs: the supervisor takes it to the end. */
    pathgate__exec_outcome oc;
    rc = pathgate__exec_supervise(&oc, spec->alloc, pid, pidfd, pipefd[0], spec->view != NULL,
                                  spec->timeout_ms, spec->output_cap, err);
    if (rc)
        goto done;
    pathgate__buf_adopt(&out->output, spec->alloc, oc.output, oc.len);
    out->truncated = oc.truncated;
    out->timed_out = oc.timed_out;
    out->exit_code = oc.exit_code;

done:
    close_fd(&pipefd[0]);
    close_fd(&pipefd[1]);
    close_fd(&devnull);
    for (int i = 0; i < 4; i++)
        close_fd(&dups[i]);
    close_fd(&pidfd);
    if (stack) /* the child is reaped (or was never started) */
        munmap(stack, stack_size);
    return rc;
}
