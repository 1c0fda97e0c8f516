/* exec_spawn.c - the child's start, the parent's output/timeout loop. */
#define _GNU_SOURCE
#include "exec_spawn.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "landlock.h"

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
/* Poll tick when no pidfd is available to learn that the shell exited. */
#define NO_PIDFD_TICK_MS 10

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
};

static const char *const stage_names[] = {
    "", "signal reset", "new session", "standard streams", "working directory",
    "namespace view", "resource limits", "capability drop", "no_new_privs", "Landlock", "seccomp", "descriptor cleanup", "shell start",
};

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
} child_args;

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

__attribute__((noreturn, no_sanitize("address", "undefined", "thread"))) static void
child_fail(child_args *a, int stage, long neg_errno)
{
    a->error = (int)-neg_errno;
    a->stage = stage;
    syscall(SYS_exit_group, 127);
    __builtin_unreachable();
}

/* The child: raw system calls only, on its own stack, sharing the parent's
 * memory until execve. No allocation, no locks, no sanitizer hooks. */
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
    if (a->filter && (rc = RAW(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, a->filter, 0, 0)) < 0)
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

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
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

typedef struct collector {
    const pathgate_allocator *alloc;
    char *buf;
    size_t len, size, cap;
    int truncated;
    int enomem;
} collector;

/* Reads what is available. Returns 1 at EOF, 0 otherwise. */
static int collect(collector *c, int fd)
{
    char scratch[16384];
    for (;;) {
        char *dst = scratch;
        size_t room = sizeof scratch;
        if (!c->enomem && c->len < c->cap) {
            size_t want = c->cap - c->len;
            if (want > sizeof scratch)
                want = sizeof scratch;
            if (c->size - c->len < want + 1) {
                size_t nsize = c->size ? c->size * 2 : 4096;
                while (nsize < c->len + want + 1)
                    nsize *= 2;
                if (nsize > c->cap + 1)
                    nsize = c->cap + 1;
                char *nb = pathgate__realloc(c->alloc, c->buf, nsize);
                if (!nb) {
                    c->enomem = 1;
                    continue; /* keep draining into scratch */
                }
                c->buf = nb;
                c->size = nsize;
            }
            dst = c->buf + c->len;
            room = want;
        }
        ssize_t n = read(fd, dst, room);
        if (n == 0)
            return 1;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno == EAGAIN ? 0 : 1;
        }
        if (dst == scratch) {
            if (!c->enomem)
                c->truncated = 1;
        } else {
            c->len += (size_t)n;
        }
    }
}

/* 1 when the child has exited (not reaped: the zombie keeps the pid and
 * so the process-group id from being reused). */
static int has_exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) < 0)
        return errno == ECHILD; /* reaped elsewhere: treat as gone */
    return si.si_pid == pid;
}

static void kill_group(pid_t pid)
{
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL); /* with a PID namespace: its init, and so all of it */
}

/* Without a PID namespace the group's other members were sent SIGKILL
 * but are not our children: wait (bounded) until none is left, so that
 * nothing runs while the temporary directory is removed. With a PID
 * namespace the init's exit has already waited for all of them. */
static void wait_group_gone(pid_t pgid)
{
    for (int i = 0; i < 2000 && kill(-pgid, 0) == 0; i++) {
        kill(-pgid, SIGKILL);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

static int reap(int *exit_code, pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | __WALL) < 0) {
        if (errno != EINTR)
            return -1;
    }
    if (si.si_code == CLD_EXITED)
        *exit_code = si.si_status;
    else
        *exit_code = 128 + si.si_status;
    return 0;
}

#if defined(__SANITIZE_THREAD__)
#define PG_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PG_TSAN 1
#endif
#endif

typedef int (*clone_func)(int (*)(void *), void *, int, void *, ...);

/* glibc's clone(). ThreadSanitizer interposes clone() and treats every
 * call as a fork (its child-side bookkeeping then runs in our CLONE_VM
 * child, in the parent's memory); under it, take libc's own definition so
 * the sanitizer never sees the child, exactly as in a normal build. */
static clone_func libc_clone(void)
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

static pid_t start_child(int *pidfd, child_args *args)
{
    clone_func do_clone = libc_clone();
    void *stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    /* All signals blocked across the clone: until the child has reset
     * the dispositions, a handler of the parent must not run in it. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* No exit signal (low byte 0): no SIGCHLD for the process's handlers
     * and no auto-reaping when SIGCHLD is ignored; only a __WALL wait
     * sees the child. */
    int flags = CLONE_VM | CLONE_VFORK;
    if (args->spec->view)
        flags |= CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
    *pidfd = -1;
    pid_t pid = do_clone(child_main, (char *)stack + CHILD_STACK_SIZE, flags | CLONE_PIDFD, args,
                         pidfd);
    if (pid < 0 && errno == EINVAL) {
        *pidfd = -1;
        pid = do_clone(child_main, (char *)stack + CHILD_STACK_SIZE, flags, args);
    }
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    munmap(stack, CHILD_STACK_SIZE);
    errno = e;
    return pid;
}

/* errno values of clone(CLONE_NEWUSER|...) that mean "no user namespaces
 * here" (disabled, limit reached, not built in), and of the first steps
 * in one (a security module refusing the mappings or the mounts). */
static int userns_unavailable(int e)
{
    return e == EPERM || e == EACCES || e == ENOSPC || e == EUSERS || e == EINVAL ||
           e == ENOSYS;
}

int pathgate__exec_spawn(pathgate_exec_result *out, const pathgate__exec_spec *spec,
                         unsigned int *prot, pathgate_error *err)
{
    int rc = PATHGATE_OK;
    int pipefd[2] = {-1, -1};
    int devnull = -1, dups[4] = {-1, -1, -1, -1}, pidfd = -1;
    collector col = {spec->alloc, NULL, 0, 0, spec->output_cap, 0, 0};

    if (pipe2(pipefd, O_CLOEXEC) < 0) {
        rc = pathgate__error_set(err, PATHGATE_EIO, "cannot create the output pipe: %s",
                                 strerrordesc_np(errno));
        goto done;
    }
    devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    child_args args = {spec, spec->filter, -1, -1, -1, -1, 0, 0, "", 0};
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

    pid_t pid = start_child(&pidfd, &args);
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
        reap(&ignored, pid);
        int stage = args.stage;
        const char *step = args.view_step;
        if (stage == STAGE_VIEW && (args.error == EPERM || args.error == EACCES) &&
            (!strcmp(step, "setgroups") || !strcmp(step, "uid map") || !strcmp(step, "gid map") ||
             !strcmp(step, "mount propagation"))) {
            rc = PATHGATE__EXEC_NO_USERNS;
            goto done;
        }
        if (stage == STAGE_VIEW)
            rc = pathgate__error_set(err, PATHGATE_EIO, "cannot confine the command (%s: %s): %s",
                                     stage_names[stage], step, strerrordesc_np(args.error));
        else
            rc = pathgate__error_set(err,
                                     stage == STAGE_LANDLOCK ? PATHGATE_EUNSUPPORTED : PATHGATE_EIO,
                                     "cannot confine the command (%s): %s", stage_names[stage],
                                     strerrordesc_np(args.error));
        goto done;
    }
    if (spec->view)
        *prot |= PATHGATE_EXEC_PROT_NAMESPACES;
    if (args.pid_limited)
        *prot |= PATHGATE_EXEC_PROT_PID_LIMIT;
    *prot |= PATHGATE_EXEC_PROT_RLIMITS;

    /* The child runs. Collect until EOF and exit, within the deadlines. */
    uint64_t start = now_ms();
    uint64_t deadline = start + spec->timeout_ms;
    uint64_t grace_end = 0, drain_end = 0;
    int exited = 0, eof = 0, killed = 0, timed_out = 0;
    for (;;) {
        uint64_t now = now_ms();
        if (!exited && !timed_out && now >= deadline) {
            if (has_exited(pid)) {
                exited = 1;
                grace_end = now + PATHGATE__EXEC_GRACE_MS;
            } else {
                kill_group(pid);
                killed = timed_out = 1;
                drain_end = now + PATHGATE__EXEC_DRAIN_MS;
            }
        }
        if (exited && !eof && !killed && now >= grace_end) {
            /* The shell is gone but something still holds the output:
             * end the group rather than wait for it. */
            kill_group(pid);
            killed = 1;
            drain_end = now + PATHGATE__EXEC_DRAIN_MS;
        }
        if (col.enomem && !killed) {
            kill_group(pid);
            killed = 1;
            drain_end = now + PATHGATE__EXEC_DRAIN_MS;
        }
        if (killed && !eof && now >= drain_end)
            eof = 1; /* something unkillable holds the pipe: give up on it */
        if (exited && eof)
            break;

        struct pollfd pfd[2];
        nfds_t nfd = 0;
        int pipe_slot = -1, pidfd_slot = -1;
        if (!eof) {
            pipe_slot = (int)nfd;
            pfd[nfd++] = (struct pollfd){pipefd[0], POLLIN, 0};
        }
        if (!exited && pidfd >= 0) {
            pidfd_slot = (int)nfd;
            pfd[nfd++] = (struct pollfd){pidfd, POLLIN, 0};
        }
        uint64_t until = UINT64_MAX;
        if (!exited && !timed_out)
            until = deadline;
        if (exited && !killed)
            until = grace_end;
        if (killed && !eof && drain_end < until)
            until = drain_end;
        /* (a wait longer than an hour is cut into hours: the int of poll) */
        uint64_t left = until > now ? until - now : 0;
        int wait_ms = until == UINT64_MAX ? -1 : (int)(left > 3600000u ? 3600000u : left);
        if (!exited && pidfd < 0 && (wait_ms < 0 || wait_ms > NO_PIDFD_TICK_MS))
            wait_ms = NO_PIDFD_TICK_MS;
        int pr = poll(pfd, nfd, wait_ms);
        if (pr < 0 && errno != EINTR) {
            /* Should not happen; end the command rather than spin. */
            if (!killed) {
                kill_group(pid);
                killed = 1;
                drain_end = now_ms() + PATHGATE__EXEC_DRAIN_MS;
            }
            if (!exited && pidfd < 0)
                usleep(1000);
        }
        if (pr > 0 && pipe_slot >= 0 && pfd[pipe_slot].revents)
            eof = collect(&col, pipefd[0]);
        if (!exited && ((pr > 0 && pidfd_slot >= 0 && pfd[pidfd_slot].revents) ||
                        (pidfd < 0 && has_exited(pid)))) {
            exited = 1;
            grace_end = now_ms() + PATHGATE__EXEC_GRACE_MS;
        }
    }
    /* Background jobs never outlive the call. The zombie shell still holds
     * the group id, so this cannot hit a stranger's group. */
    kill_group(pid);
    int exit_code = 0;
    int reaped = reap(&exit_code, pid);
    if (!spec->view)
        wait_group_gone(pid);
    if (reaped < 0 && !col.enomem) {
        rc = pathgate__error_set(err, PATHGATE_EIO, "lost the command's exit status");
        goto done;
    }
    if (col.enomem) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto done;
    }
    if (!col.buf) {
        col.buf = pathgate__malloc(spec->alloc, 1);
        if (!col.buf) {
            rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
            goto done;
        }
    }
    col.buf[col.len] = '\0';
    pathgate__buf_adopt(&out->output, spec->alloc, col.buf, col.len);
    col.buf = NULL;
    out->truncated = col.truncated;
    out->timed_out = timed_out;
    out->exit_code = timed_out ? PATHGATE_EXEC_EXIT_TIMEOUT : exit_code;

done:
    pathgate__free(spec->alloc, col.buf);
    close_fd(&pipefd[0]);
    close_fd(&pipefd[1]);
    close_fd(&devnull);
    for (int i = 0; i < 4; i++)
        close_fd(&dups[i]);
    close_fd(&pidfd);
    return rc;
}
