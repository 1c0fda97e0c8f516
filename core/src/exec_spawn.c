/* exec_spawn.c - the command's start (raw system calls) and its handover
 * to the supervisor (exec_supervise.c). exec_spawn.h describes the
 * processes. */
#define _GNU_SOURCE
#include "exec_spawn.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_landlock.h"
#include "exec_raw.h"
#include "exec_supervise.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_setns
#define __NR_setns 308
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

#define STACK_SIZE (64 * 1024)
/* The kernel's sigset size (64 signals) and the highest signal. */
#define KERNEL_SIGSET_SIZE 8
#define KERNEL_NSIG 64

/* Where a child failed before execve (shared memory: CLONE_VM). */
enum child_stage {
    STAGE_OK = 0,
    STAGE_SIGNALS,
    STAGE_SETSID,
    STAGE_STDIO,
    STAGE_CWD,
    STAGE_VIEW,
    STAGE_CGROUP,
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
    "control group",
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
    int devnull;
    int pipe_w;
    int done_w;
    int cwd_fd;
    int ruleset_fd;
    clone_func do_clone;
    char *stack_init, *stack_shell; /* tops */
    volatile int stage;
    volatile int error;
    const char *volatile view_step;
    /* the joiner */
    volatile int init_pid;
    int init_pidfd; /* (in the host's descriptor table) */
    volatile int made_netns;
    char *stack_joiner; /* top; used by a keeper */
    /* the init */
    volatile int done;
    volatile int status;
    volatile int net_clean;
} child_args;

PG_NOSAN static void stage_fail(child_args *a, int stage, long neg_errno)
{
    if (a->stage == STAGE_OK) {
        a->error = (int)-neg_errno;
        a->stage = stage;
    }
}

__attribute__((noreturn)) PG_NOSAN static void child_fail(child_args *a, int stage, long neg_errno)
{
    stage_fail(a, stage, neg_errno);
    pg_raw(SYS_exit_group, 127);
    __builtin_unreachable();
}

__attribute__((noreturn)) PG_NOSAN static void view_fail(child_args *a, const char *step, long rc)
{
    if (a->stage == STAGE_OK)
        a->view_step = step;
    child_fail(a, STAGE_VIEW, rc);
}

PG_NOSAN static int move_fd(int from, int to)
{
    if (from == to) /* only possible for to >= 3, never here; keep it correct anyway */
        return (int)pg_raw(SYS_fcntl, from, F_SETFD, 0);
    return (int)pg_raw(SYS_dup3, from, to, 0);
}

PG_NOSAN static size_t rlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

/* ------------------------------------------------------ the shell's side */

/* Every signal's disposition back to SIG_DFL. 0 or -errno. */
PG_NOSAN static long default_signals(void)
{
    unsigned long dfl[4] = {0, 0, 0, 0}; /* SIG_DFL, no flags, empty mask */
    for (int s = 1; s <= KERNEL_NSIG; s++) {
        if (s == SIGKILL || s == SIGSTOP)
            continue;
        long rc = pg_raw(SYS_rt_sigaction, s, dfl, NULL, KERNEL_SIGSET_SIZE);
        if (rc < 0 && rc != -EINVAL)
            return rc;
    }
    return 0;
}

/* Signals, session, standard streams, keyring, control group, limits:
 * what the shell sets up before confining itself. */
PG_NOSAN static void shell_prepare(child_args *a)
{
    long rc;
    /* 1. Every signal back to its default action (an ignored SIGPIPE
     * would survive execve), while all of them are still blocked. (A
     * keeper's children have the keeper's: defaults already.) */
    if (!a->spec->keeper && (rc = default_signals()) < 0)
        child_fail(a, STAGE_SIGNALS, rc);
    /* 2. New session and process group (pgid = pid), no controlling tty. */
    if ((rc = pg_raw(SYS_setsid)) < 0)
        child_fail(a, STAGE_SETSID, rc);
    /* 3. stdin </dev/null, stdout and stderr the same pipe (ordered). */
    if ((rc = move_fd(a->devnull, 0)) < 0 || (rc = move_fd(a->pipe_w, 1)) < 0 ||
        (rc = move_fd(a->pipe_w, 2)) < 0)
        child_fail(a, STAGE_STDIO, rc);
    /* 4. A fresh session keyring (the host's keyrings are out of reach;
     * seccomp denies keyctl afterwards anyway; a keeper's children have
     * the keeper's, anonymous). */
    if (!a->spec->keeper)
        pg_raw(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, 0);
    /* 5. The command's control group: born in it (a keeper's), or it
     * moves itself in, so that everything it starts is counted there
     * (the init is not). */
    if (!a->spec->keeper)
        for (int i = 0; i < 2; i++)
            if (a->spec->cgroup_procs[i] >= 0 &&
                (rc = pg_raw(SYS_write, a->spec->cgroup_procs[i], "0", 1)) < 0)
                child_fail(a, STAGE_CGROUP, rc);
    /* 6. Resource limits (soft = hard: the command cannot raise them),
     * never above the hard limit we have (raising it needs privilege). */
    for (size_t i = 0; i < a->spec->nrlimits; i++) {
        const pathgate__exec_rlimit *l = &a->spec->rlimits[i];
        unsigned long long cur[2], lim[2] = {l->value, l->value};
        if ((rc = pg_raw(SYS_prlimit64, 0, l->resource, NULL, cur)) < 0)
            child_fail(a, STAGE_LIMITS, rc);
        if (cur[1] < lim[1])
            lim[0] = lim[1] = cur[1];
        if ((rc = pg_raw(SYS_prlimit64, 0, l->resource, lim, NULL)) < 0)
            child_fail(a, STAGE_LIMITS, rc);
    }
}

/* The shell's own confinement, then execve. */
__attribute__((noreturn)) PG_NOSAN static void confine_and_exec(child_args *a)
{
    long rc;
    /* 7. No capabilities, now or after execve (root included): with
     * SECBIT_NOROOT an execve by uid 0 no longer grants the full set, so
     * clearing ambient, inheritable, permitted and effective sets is final
     * (no_new_privs below rules out setuid and file capabilities). Setting
     * securebits needs CAP_SETPCAP: without it (EPERM) the process is not
     * privileged and exec grants it nothing anyway. */
    rc = pg_raw(SYS_prctl, PR_SET_SECUREBITS,
                SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
                    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
                0, 0, 0);
    if (rc < 0 && rc != -EPERM)
        child_fail(a, STAGE_CAPS, rc);
    rc = pg_raw(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (rc < 0 && rc != -EINVAL)
        child_fail(a, STAGE_CAPS, rc);
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    for (int i = 0; i < 2; i++)
        data[i].effective = data[i].permitted = data[i].inheritable = 0;
    if ((rc = pg_raw(SYS_capset, &hdr, data)) < 0)
        child_fail(a, STAGE_CAPS, rc);
    /* 8. */
    if ((rc = pg_raw(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) < 0)
        child_fail(a, STAGE_NO_NEW_PRIVS, rc);
    /* 9. */
    if (a->ruleset_fd >= 0 &&
        (rc = pg_raw(PATHGATE__SYS_LANDLOCK_RESTRICT_SELF, a->ruleset_fd, 0)) < 0)
        child_fail(a, STAGE_LANDLOCK, rc);
    /* 10. */
    if (a->spec->filter &&
        (rc = pg_raw(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, a->spec->filter, 0, 0)) < 0)
        child_fail(a, STAGE_SECCOMP, rc);
    /* 11. Nothing but 0, 1 and 2 crosses execve, whatever the parent's other
     * threads opened without O_CLOEXEC. */
    rc = pg_raw(__NR_close_range, 3, ~0U, 0);
    if (rc == -ENOSYS) {
        for (int fd = 3; fd < 65536; fd++)
            pg_raw(SYS_close, fd);
    } else if (rc < 0) {
        child_fail(a, STAGE_CLOSE, rc);
    }
    /* 12. Unblock signals last: the dispositions are defaults by now. */
    uint64_t empty = 0;
    if ((rc = pg_raw(SYS_rt_sigprocmask, SIG_SETMASK, &empty, NULL, KERNEL_SIGSET_SIZE)) < 0)
        child_fail(a, STAGE_SIGNALS, rc);
    rc = pg_raw(SYS_execve, a->spec->argv[0], a->spec->argv, a->spec->envp);
    child_fail(a, STAGE_EXEC, rc);
}

/* The shell in a view: pid 2, a vfork child of the init. */
PG_NOSAN static int shell_main(void *p)
{
    child_args *a = p;
    shell_prepare(a);
    confine_and_exec(a);
}

/* Without a view: the one child, a vfork child of the host thread. */
PG_NOSAN static int plain_main(void *p)
{
    child_args *a = p;
    shell_prepare(a);
    long rc = pg_raw(SYS_fchdir, a->cwd_fd);
    if (rc < 0)
        child_fail(a, STAGE_CWD, rc);
    confine_and_exec(a);
}

/* ------------------------------------------------------------ the init */

#if PG_RAW_INLINE
/* 1 when no socket is left in the current network namespace ("sockets:
 * used 0", no TCP socket in use or in TIME_WAIT), read from proc. */
PG_NOSAN static int net_is_clean(void)
{
    char buf[512];
    long fd = pg_raw(SYS_openat, AT_FDCWD, "/proc/self/net/sockstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    long n = pg_raw(SYS_read, fd, buf, sizeof buf - 1);
    pg_raw(SYS_close, fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    static const char *const want[] = {"sockets: used 0\n", "TCP: inuse 0 orphan 0 tw 0 "};
    for (int k = 0; k < 2; k++) {
        const char *w = want[k];
        size_t wl = rlen(w);
        int found = 0;
        for (long i = 0; !found && i + (long)wl <= n; i++) {
            size_t j = 0;
            while (j < wl && buf[i + (long)j] == w[j])
                j++;
            found = j == wl;
        }
        if (!found)
            return 0;
    }
    return 1;
}

/* pid 1 of the command's PID namespace: a child of the host process
 * (CLONE_PARENT) that shares its memory and runs alongside its threads,
 * so inline system calls only. It keeps the namespace's capabilities: the
 * confined shell can neither trace it nor read its memory. */
__attribute__((noreturn)) PG_NOSAN static int init_main(void *p)
{
    child_args *a = p;
    const pathgate__exec_spec *sp = a->spec;
    long rc;
    /* gone with the thread that waits for it */
    pg_raw(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if ((rc = pg_raw(SYS_mount, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0)) <
        0) {
        a->view_step = "proc";
        stage_fail(a, STAGE_VIEW, rc);
    }
    int shell = -1;
    if (a->stage == STAGE_OK) {
        shell = a->do_clone(shell_main, a->stack_shell, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
        if (shell < 0)
            stage_fail(a, STAGE_INIT, -EAGAIN);
    }
    /* Every descriptor but the done pipe goes (the host's too). */
    int d = a->done_w;
    if (d > 3)
        pg_raw(__NR_close_range, 3, d - 1, 0);
    pg_raw(__NR_close_range, d + 1, ~0U, 0);
    int status = 127;
    for (;;) {
        int st = 0;
        if (shell < 0)
            break;
        rc = pg_raw(SYS_wait4, -1, &st, __WALL, 0);
        if (rc == shell) {
            status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            break;
        }
        if (rc < 0 && rc != -EINTR)
            break;
    }
    /* The shell has ended: so does everything it started, before the
     * call returns. */
    pg_raw(SYS_kill, -1, SIGKILL);
    for (;;) {
        rc = pg_raw(SYS_wait4, -1, 0, __WALL, 0);
        if (rc < 0 && rc != -EINTR)
            break;
    }
    if (sp->netns_fd != PATHGATE__NETNS_HOST)
        a->net_clean = net_is_clean();
    a->status = status;
    __atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
    /* exit closes the done pipe before the namespaces are torn down */
    pg_raw(SYS_exit_group, status & 0xff);
    __builtin_unreachable();
}

/* ---------------------------------------------------------- the joiner */

PG_NOSAN static long loopback_up(void)
{
    long s = pg_raw(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return s;
    struct ifreq r;
    for (size_t i = 0; i < sizeof r; i++)
        ((char *)&r)[i] = 0;
    r.ifr_name[0] = 'l';
    r.ifr_name[1] = 'o';
    long rc = pg_raw(SYS_ioctl, s, SIOCGIFFLAGS, &r);
    if (rc == 0) {
        r.ifr_flags |= IFF_UP;
        rc = pg_raw(SYS_ioctl, s, SIOCSIFFLAGS, &r);
    }
    pg_raw(SYS_close, s);
    return rc;
}

/* A vfork child of the host thread sharing its descriptor table: enters
 * the prepared view and starts the init. */
__attribute__((noreturn)) PG_NOSAN static int joiner_main(void *p)
{
    child_args *a = p;
    const pathgate__exec_spec *sp = a->spec;
    const pathgate__exec_template *t = sp->tpl;
    long rc;
    if ((rc = pg_raw(__NR_setns, t->userns_fd, CLONE_NEWUSER)) < 0)
        view_fail(a, "user namespace", rc);
    if (t->unpriv) {
        /* uid and gid 0 of the view (the host's 65534), no supplementary
         * group. A uid change makes the memory (the host process's)
         * non-dumpable: its flag is put back. */
        long dumpable = pg_raw(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
        if ((rc = pg_raw(SYS_setresgid, 0, 0, 0)) < 0 || (rc = pg_raw(SYS_setgroups, 0, 0)) < 0 ||
            (rc = pg_raw(SYS_setresuid, 0, 0, 0)) < 0)
            view_fail(a, "uid map", rc);
        if (dumpable == 0 || dumpable == 1)
            pg_raw(SYS_prctl, PR_SET_DUMPABLE, dumpable, 0, 0, 0);
    }
    if (sp->netns_fd >= 0) {
        if ((rc = pg_raw(__NR_setns, sp->netns_fd, CLONE_NEWNET)) < 0)
            view_fail(a, "network namespace", rc);
    } else if (sp->netns_fd == PATHGATE__NETNS_NEW) {
        if ((rc = pg_raw(SYS_unshare, CLONE_NEWNET)) < 0 || (rc = loopback_up()) < 0)
            view_fail(a, "network namespace", rc);
        /* kept by the caller for later commands (the table is shared) */
        a->made_netns =
            (int)pg_raw(SYS_openat, AT_FDCWD, "/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    }
    if ((rc = pg_raw(__NR_setns, t->mntns_fd, CLONE_NEWNS)) < 0)
        view_fail(a, "mount namespace", rc);
    if ((rc = pg_raw(SYS_unshare, CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID)) < 0)
        view_fail(a, "namespaces", rc);
    if ((rc = pg_raw(SYS_sethostname, "pathgate", 8)) < 0)
        view_fail(a, "hostname", rc);
    const char *step = "";
    if ((rc = pathgate__exec_view_apply(sp->cmd, 0, sp->cmd->nops, a->ruleset_fd, &step)) < 0)
        view_fail(a, step, rc);
    struct stat st;
    if ((rc = pg_raw(SYS_chdir, sp->cwd_view)) < 0 ||
        (rc = pg_raw(SYS_newfstatat, AT_FDCWD, ".", &st, 0)) < 0)
        view_fail(a, "working directory", rc);
    if (st.st_dev != sp->cwd_dev || st.st_ino != sp->cwd_ino)
        view_fail(a, "working directory", -EXDEV); /* renamed meanwhile: fail closed */
    /* the init: this process's parent's child (the host's, or a
     * keeper's), its pidfd in the (shared) descriptor table */
    int pidfd = -1;
    int init =
        a->do_clone(init_main, a->stack_init, CLONE_VM | CLONE_PARENT | CLONE_PIDFD, a, &pidfd);
    if (init < 0)
        child_fail(a, STAGE_INIT, -EAGAIN);
    a->init_pidfd = pidfd;
    a->init_pid = init;
    pg_raw(SYS_exit_group, 0);
    __builtin_unreachable();
}

#ifndef KCMP_VM
#define KCMP_VM 1
#endif

/* A keeper (exec_spawn.h): in its control group for good, it starts each
 * command's joiner, which so is born there. */
__attribute__((noreturn)) PG_NOSAN static int keeper_main(void *p)
{
    pathgate__exec_keeper *k = p;
    long rc = 0;
    for (int i = 0; rc >= 0 && i < 2; i++)
        if (k->procs[i] >= 0)
            rc = pg_raw(SYS_write, k->procs[i], "0", 1);
    /* what its commands share (exec_spawn.h) */
    if (rc >= 0)
        rc = default_signals();
    if (rc >= 0)
        pg_raw(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, 0);
    if (rc >= 0)
        rc = pg_raw(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &k->seccomp.prog, 0, 0);
    if (rc < 0) {
        k->failed = (int)-rc;
        pg_raw(SYS_exit_group, 1);
    }
    pg_raw(SYS_write, k->ack_w, "r", 1);
    long self = pg_raw(SYS_getpid);
    for (;;) {
        struct pollfd pfd = {k->req_r, POLLIN, 0};
        rc = pg_raw(SYS_poll, &pfd, 1, 1000);
        /* Its parent is the host process (whichever of its threads); if
         * that has ended (it was given another parent) or replaced its
         * memory (execve), nobody will ask again. (Not PR_SET_PDEATHSIG:
         * that fires when the one thread that made it ends.) */
        if (rc == 0 && pg_raw(SYS_kcmp, self, pg_raw(SYS_getppid), KCMP_VM, 0, 0) != 0)
            break;
        if (rc <= 0)
            continue;
        child_args *a = NULL;
        if (pg_raw(SYS_read, k->req_r, &a, sizeof a) != (long)sizeof a || !a)
            break; /* EOF: the host let it go */
        /* the inits of earlier commands */
        for (;;) {
            siginfo_t si;
            si.si_pid = 0;
            if (pg_raw(SYS_waitid, P_ALL, 0, &si, WEXITED | WNOHANG | __WALL, 0) < 0 || !si.si_pid)
                break;
        }
        long j = a->do_clone(joiner_main, a->stack_joiner, CLONE_VM | CLONE_VFORK | CLONE_FILES, a);
        if (j > 0) {
            siginfo_t si;
            pg_raw(SYS_waitid, P_PID, j, &si, WEXITED | __WALL, 0);
        } else {
            stage_fail(a, STAGE_INIT, -EAGAIN);
        }
        pg_raw(SYS_write, k->ack_w, "d", 1);
    }
    pg_raw(SYS_exit_group, 0);
    __builtin_unreachable();
}
#endif

/* ------------------------------------------------------------- parent */

int pathgate__exec_spawn_can_view(void)
{
    return PG_RAW_INLINE;
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

/* Inits whose exit is still under way when their call returned: reaped by
 * a later call (they are invisible to the host's other waits: no exit
 * signal). */
static struct {
    pthread_mutex_t mu;
    pid_t pids[256];
    int n;
} pending = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};

static int reap_now(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | __WALL) < 0) {
        if (errno != EINTR)
            return 1; /* gone (reaped elsewhere): nothing to keep */
    }
    return si.si_pid == pid;
}

static void reap_pending(void)
{
    pthread_mutex_lock(&pending.mu);
    for (int i = 0; i < pending.n;)
        if (reap_now(pending.pids[i]))
            pending.pids[i] = pending.pids[--pending.n];
        else
            i++;
    pthread_mutex_unlock(&pending.mu);
}

static void reap_later(pid_t pid)
{
    if (reap_now(pid))
        return;
    pthread_mutex_lock(&pending.mu);
    int full = pending.n == (int)(sizeof pending.pids / sizeof pending.pids[0]);
    if (!full)
        pending.pids[pending.n++] = pid;
    pthread_mutex_unlock(&pending.mu);
    if (full) {
        int ignored;
        pathgate__exec_reap(&ignored, pid);
    }
}

/* ------------------------------------------------------------ keeper */

#if PG_RAW_INLINE
#define KEEPER_STACK (32 * 1024)

static void keeper_close(pathgate__exec_keeper *k)
{
    int *fds[] = {&k->pidfd, &k->req_r, &k->req_w, &k->ack_r, &k->ack_w};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        close_fd(fds[i]);
    if (k->stack)
        munmap(k->stack, KEEPER_STACK);
    k->stack = NULL;
}

int pathgate__exec_keeper_start(pathgate__exec_keeper *k, const int procs[2])
{
    memset(k, 0, sizeof *k);
    k->pid = -1;
    k->pidfd = k->req_r = k->req_w = k->ack_r = k->ack_w = -1;
    k->procs[0] = procs[0];
    k->procs[1] = procs[1];
    k->seccomp_flags = PATHGATE__KEEPER_SECCOMP_FLAGS;
    if (!pathgate__exec_seccomp_build(&k->seccomp,
                                      k->seccomp_flags | PATHGATE__SECCOMP_ALLOW_SETNS))
        return -ENOSYS;
    ssize_t n;
    int req[2], ack[2];
    if (pipe2(req, O_CLOEXEC) < 0)
        return -errno;
    if (pipe2(ack, O_CLOEXEC) < 0) {
        int e = errno;
        close(req[0]);
        close(req[1]);
        return -e;
    }
    k->req_r = req[0];
    k->req_w = req[1];
    k->ack_r = ack[0];
    k->ack_w = ack[1];
    k->stack = mmap(NULL, KEEPER_STACK, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (k->stack == MAP_FAILED) {
        k->stack = NULL;
        keeper_close(k);
        return -ENOMEM;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* its descriptor table is the host's: what its joiners open lands
     * here; no exit signal */
    k->pid = pathgate__exec_libc_clone()(keeper_main, (char *)k->stack + KEEPER_STACK,
                                         CLONE_VM | CLONE_FILES | CLONE_PIDFD, k, &k->pidfd);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (k->pid < 0) {
        keeper_close(k);
        return -e;
    }
    char c = 0;
    while ((n = read(k->ack_r, &c, 1)) < 0 && errno == EINTR) {
    }
    if (n != 1 || c != 'r') {
        int why = k->failed ? k->failed : EIO;
        int ignored;
        pathgate__exec_reap(&ignored, k->pid);
        keeper_close(k);
        return -why;
    }
    return 0;
}

int pathgate__exec_keeper_alive(const pathgate__exec_keeper *k)
{
    struct pollfd p = {k->pidfd, POLLIN, 0};
    return k->pid > 0 && k->pidfd >= 0 && poll(&p, 1, 0) == 0;
}

void pathgate__exec_keeper_stop(pathgate__exec_keeper *k)
{
    if (k->pid > 0) {
        /* EOF on its requests: it exits */
        close_fd(&k->req_w);
        siginfo_t si;
        memset(&si, 0, sizeof si);
        waitid(P_PID, (id_t)k->pid, &si, WEXITED | WNOHANG | __WALL);
    }
    keeper_close(k);
    k->pid = -1;
}
#else
int pathgate__exec_keeper_start(pathgate__exec_keeper *k, const int procs[2])
{
    (void)procs;
    memset(k, 0, sizeof *k);
    return -ENOSYS;
}

int pathgate__exec_keeper_alive(const pathgate__exec_keeper *k)
{
    (void)k;
    return 0;
}

void pathgate__exec_keeper_stop(pathgate__exec_keeper *k)
{
    (void)k;
}
#endif

/* The error of a child that failed before execve: the stage (and view
 * step) is named, never a path. */
static int child_failure(const child_args *a, pathgate_error *err)
{
    int stage = a->stage;
    if (stage == STAGE_VIEW)
        return pathgate__error_set(err, PATHGATE_EIO, "cannot confine the command (%s: %s): %s",
                                   stage_names[stage], a->view_step ? a->view_step : "",
                                   strerrordesc_np(a->error));
    return pathgate__error_set(err, stage == STAGE_LANDLOCK ? PATHGATE_EUNSUPPORTED : PATHGATE_EIO,
                               "cannot confine the command (%s): %s", stage_names[stage],
                               strerrordesc_np(a->error));
}

/* The children's descriptors and stacks. */
typedef struct spawn_res {
    int pipefd[2], done[2], devnull, dups[5], pidfd;
    void *stack;
    size_t stack_size;
} spawn_res;

static void spawn_res_free(spawn_res *r)
{
    close_fd(&r->pipefd[0]);
    close_fd(&r->pipefd[1]);
    close_fd(&r->done[0]);
    close_fd(&r->done[1]);
    close_fd(&r->devnull);
    for (int i = 0; i < 5; i++)
        close_fd(&r->dups[i]);
    close_fd(&r->pidfd);
    if (r->stack) /* the children are gone (or were never started) */
        munmap(r->stack, r->stack_size);
    r->stack = NULL;
}

static int prepare(spawn_res *r, child_args *args, const pathgate__exec_spec *spec, int view,
                   pathgate_error *err)
{
    memset(r, 0, sizeof *r);
    r->pipefd[0] = r->pipefd[1] = r->done[0] = r->done[1] = r->devnull = r->pidfd = -1;
    for (int i = 0; i < 5; i++)
        r->dups[i] = -1;
    memset(args, 0, sizeof *args);
    args->spec = spec;
    args->init_pid = -1;
    args->made_netns = -1;
    args->view_step = "";
    args->do_clone = pathgate__exec_libc_clone();
    r->stack_size = (view ? 3 : 1) * STACK_SIZE;
    r->stack = mmap(NULL, r->stack_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (r->stack == MAP_FAILED) {
        r->stack = NULL;
        return pathgate__error_set(err, PATHGATE_EIO, "cannot prepare the child's stack: %s",
                                   strerrordesc_np(errno));
    }
    args->stack_init = (char *)r->stack + 2 * STACK_SIZE;
    args->stack_shell = (char *)r->stack + 3 * STACK_SIZE;
    if (pipe2(r->pipefd, O_CLOEXEC) < 0 || (view && pipe2(r->done, O_CLOEXEC) < 0))
        return pathgate__error_set(err, PATHGATE_EIO, "cannot create the output pipe: %s",
                                   strerrordesc_np(errno));
    r->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    args->devnull = high_fd(r->devnull, &r->dups[0]);
    args->pipe_w = high_fd(r->pipefd[1], &r->dups[1]);
    args->cwd_fd = high_fd(spec->cwd_fd, &r->dups[2]);
    args->ruleset_fd = high_fd(spec->ruleset_fd, &r->dups[3]);
    args->done_w = view ? high_fd(r->done[1], &r->dups[4]) : -1;
    if (r->devnull < 0 || args->devnull < 0 || args->pipe_w < 0 || (!view && args->cwd_fd < 0) ||
        (spec->ruleset_fd >= 0 && args->ruleset_fd < 0) || (view && args->done_w < 0) ||
        fcntl(r->pipefd[0], F_SETFL, O_NONBLOCK) < 0)
        return pathgate__error_set(err, PATHGATE_EIO, "cannot prepare the child's descriptors: %s",
                                   strerrordesc_np(errno));
    return PATHGATE_OK;
}

/* Collects the output until the end, into *out. */
static int supervise(pathgate_exec_result *out, const pathgate__exec_spec *spec, pid_t pid,
                     int pidfd, int exit_fd, int pipe_r, pathgate__sup_mode mode,
                     pathgate__exec_outcome *oc, pathgate_error *err)
{
    pathgate__sup_oom oom = {spec->oom_kill ? spec->oom_fd : -1, spec->oom_kill, spec->oom_ctx};
    int rc = pathgate__exec_supervise(oc, spec->alloc, pid, pidfd, exit_fd, pipe_r, mode, &oom,
                                      spec->timeout_ms, spec->output_cap, err);
    if (rc)
        return rc;
    pathgate__buf_adopt(&out->output, spec->alloc, oc->output, oc->len);
    out->truncated = oc->truncated;
    out->timed_out = oc->timed_out;
    out->exit_code = oc->exit_code;
    return PATHGATE_OK;
}

#if PG_RAW_INLINE
static int spawn_view(pathgate_exec_result *out, pathgate__exec_spawned *left,
                      const pathgate__exec_spec *spec, pathgate_error *err)
{
    spawn_res r;
    child_args args;
    int rc = prepare(&r, &args, spec, 1, err);
    if (rc) {
        spawn_res_free(&r);
        return rc;
    }
    /* All signals blocked across the clone: until the shell has reset
     * the dispositions, a handler of the parent must not run in a child.
     * The joiner shares the descriptor table (a namespace it makes and the
     * init's pidfd land here); this thread waits until it has exited. No
     * exit signal: only a __WALL wait sees the children. A keeper starts
     * the joiner instead, in its control group. */
    pathgate__exec_keeper *k = spec->keeper;
    args.init_pidfd = -1;
    args.stack_joiner = (char *)r.stack + STACK_SIZE;
    pid_t joiner = -1;
    int start_errno = 0;
    if (k) {
        child_args *ap = &args;
        char c = 0;
        struct pollfd p[2] = {{k->ack_r, POLLIN, 0}, {k->pidfd, POLLIN, 0}};
        if (write(k->req_w, &ap, sizeof ap) != (ssize_t)sizeof ap) {
            start_errno = errno;
        } else {
            while (poll(p, 2, -1) < 0 && errno == EINTR) {
            }
            if (!(p[0].revents & POLLIN) || read(k->ack_r, &c, 1) != 1 || c != 'd')
                start_errno = ECHILD; /* the keeper is gone */
        }
        joiner = start_errno ? -1 : 0;
    } else {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        joiner = args.do_clone(joiner_main, args.stack_joiner, CLONE_VM | CLONE_VFORK | CLONE_FILES,
                               &args);
        start_errno = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    /* the children hold what they need of these */
    close_fd(&r.pipefd[1]);
    close_fd(&r.done[1]);
    close_fd(&r.devnull);
    for (int i = 0; i < 5; i++)
        close_fd(&r.dups[i]);
    if (joiner < 0) {
        spawn_res_free(&r);
        return pathgate__error_set(err, PATHGATE_EIO, "cannot start the command: %s",
                                   strerrordesc_np(start_errno));
    }
    if (joiner > 0) {
        int ignored;
        pathgate__exec_reap(&ignored, joiner);
    }
    left->netns_fd = args.made_netns;
    pid_t init = args.init_pid;
    r.pidfd = args.init_pidfd; /* closed with the rest */
    if (init < 0) {
        spawn_res_free(&r);
        return child_failure(&args, err);
    }
    pathgate__exec_outcome oc;
    rc = supervise(out, spec, init, r.pidfd, r.done[0], r.pipefd[0],
                   k ? PATHGATE__SUP_INIT_KEPT : PATHGATE__SUP_INIT, &oc, err);
    int done = __atomic_load_n(&args.done, __ATOMIC_ACQUIRE);
    if (!oc.reaped && !done) {
        /* it ended some other way (killed from outside): wait for that */
        if (k) {
            struct pollfd p = {r.pidfd, POLLIN, 0};
            poll(&p, 1, 10000);
            out->exit_code = 128 + SIGKILL;
        } else {
            pathgate__exec_reap(&out->exit_code, init);
        }
    } else if (!oc.reaped && !k) {
        /* its namespaces are torn down while we go on */
        reap_later(init);
    }
    left->net_clean = done && args.net_clean && !oc.killed;
    if (!rc && args.stage != STAGE_OK) {
        pathgate_exec_result_dispose(out);
        rc = child_failure(&args, err);
    } else if (!rc && done && !oc.timed_out && !oc.killed) {
        out->exit_code = args.status;
    }
    spawn_res_free(&r);
    return rc;
}
#endif

static int spawn_plain(pathgate_exec_result *out, const pathgate__exec_spec *spec,
                       pathgate_error *err)
{
    spawn_res r;
    child_args args;
    int rc = prepare(&r, &args, spec, 0, err);
    if (rc) {
        spawn_res_free(&r);
        return rc;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    char *top = (char *)r.stack + STACK_SIZE;
    int flags = CLONE_VM | CLONE_VFORK;
    pid_t pid = args.do_clone(plain_main, top, flags | CLONE_PIDFD, &args, &r.pidfd);
    if (pid < 0 && errno == EINVAL) {
        r.pidfd = -1;
        pid = args.do_clone(plain_main, top, flags, &args);
    }
    int start_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close_fd(&r.pipefd[1]);
    close_fd(&r.devnull);
    for (int i = 0; i < 5; i++)
        close_fd(&r.dups[i]);
    if (pid < 0) {
        spawn_res_free(&r);
        return pathgate__error_set(err, PATHGATE_EIO, "cannot start the command: %s",
                                   strerrordesc_np(start_errno));
    }
    if (args.stage != STAGE_OK) {
        int ignored;
        pathgate__exec_reap(&ignored, pid);
        spawn_res_free(&r);
        return child_failure(&args, err);
    }
    pathgate__exec_outcome oc;
    rc = supervise(out, spec, pid, r.pidfd, r.pidfd, r.pipefd[0], PATHGATE__SUP_GROUP, &oc, err);
    spawn_res_free(&r);
    return rc;
}

int pathgate__exec_spawn(pathgate_exec_result *out, pathgate__exec_spawned *left,
                         const pathgate__exec_spec *spec, pathgate_error *err)
{
    left->netns_fd = -1;
    left->net_clean = 0;
    reap_pending();
#if PG_RAW_INLINE
    if (spec->tpl)
        return spawn_view(out, left, spec, err);
#else
    if (spec->tpl)
        return pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                                   "no namespace view on this architecture");
#endif
    return spawn_plain(out, spec, err);
}
