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
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
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
/* What a prepared init receives: standard input, output, done pipe,
 * ruleset. */
#define PREP_FDS 4
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
    int filter_set;     /* the init has set the seccomp filter */
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
    /* 2. Its own process group (pgid = pid): a signal to its group
     * reaches no process of the caller's. In a view, in the caller's
     * session (a session of its own would be a scheduling group of its
     * own, with autogroup: its creation costs milliseconds on a busy
     * machine); the caller's terminal, if any, is out of its reach (no
     * /dev/tty nor /dev/pts in the view, no descriptor of it). Without a
     * view, a new session (no controlling tty). */
    if ((rc = a->spec->tpl ? pg_raw(SYS_setpgid, 0, 0) : pg_raw(SYS_setsid)) < 0)
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
    if (a->spec->filter && !a->filter_set &&
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
__attribute__((noreturn)) PG_NOSAN static void init_run(child_args *a)
{
    const pathgate__exec_spec *sp = a->spec;
    long rc;
    int shell = -1;
    if (a->stage == STAGE_OK) {
        shell = a->do_clone(shell_main, a->stack_shell, CLONE_VM | CLONE_VFORK | SIGCHLD, a);
        if (shell < 0)
            stage_fail(a, STAGE_INIT, -EAGAIN);
    }
    /* Every descriptor but the done pipe and the output goes (the
     * host's too). Holding the output until its end, the init ends the
     * output and the command at once: the caller wakes once. */
    int lo = a->done_w < a->pipe_w ? a->done_w : a->pipe_w;
    int hi = a->done_w < a->pipe_w ? a->pipe_w : a->done_w;
    if (lo > 3)
        pg_raw(__NR_close_range, 3, lo - 1, 0);
    if (hi > lo + 1)
        pg_raw(__NR_close_range, lo + 1, hi - 1, 0);
    pg_raw(__NR_close_range, hi + 1, ~0U, 0);
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
    /* (a prepared start's network namespace is looked at by the next
     * one's preparer instead, off the caller's way) */
    if (sp->netns_fd != PATHGATE__NETNS_HOST && !sp->prep)
        a->net_clean = net_is_clean();
    /* Done: the output ends, then a byte on the done pipe tells the
     * caller, who may reuse this stack at once (its exit, which costs
     * ~0.1 ms, and its namespaces' teardown are not waited for). */
    long done_w = a->done_w;
    a->status = status;
    __atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
    pg_raw(SYS_close, a->pipe_w);
    pg_raw_write_exit(done_w, "d", 1, status & 0xff);
}

PG_NOSAN static long mount_proc(void)
{
    return pg_raw(SYS_mount, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
}

__attribute__((noreturn)) PG_NOSAN static int init_main(void *p)
{
    child_args *a = p;
    long rc;
    /* gone with the thread that waits for it */
    pg_raw(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if ((rc = mount_proc()) < 0) {
        a->view_step = "proc";
        stage_fail(a, STAGE_VIEW, rc);
    }
    init_run(a);
}

/* Enters the working directory, checked to be what the parent opened.
 * Returns only on success. */
PG_NOSAN static void enter_cwd(child_args *a)
{
    const pathgate__exec_spec *sp = a->spec;
    struct stat st;
    long rc;
    if ((rc = pg_raw(SYS_chdir, sp->cwd_view)) < 0 ||
        (rc = pg_raw(SYS_newfstatat, AT_FDCWD, ".", &st, 0)) < 0)
        view_fail(a, "working directory", rc);
    if (st.st_dev != sp->cwd_dev || st.st_ino != sp->cwd_ino)
        view_fail(a, "working directory", -EXDEV); /* renamed meanwhile: fail closed */
}

/* The init of a prepared start (exec_spawn.h): a copy of the descriptor
 * table of its own; waits for its command on the socket. */
__attribute__((noreturn)) PG_NOSAN static int init_wait_main(void *p)
{
    pathgate__exec_prep *prep = p;
    int s = prep->go[1];
    pg_raw(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    long proc = mount_proc();
    /* the commands' filter, inherited by the shell (allowed: it holds
     * CAP_SYS_ADMIN in the view's user namespace) */
    if (prep->has_filter &&
        pg_raw(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prep->seccomp.prog, 0, 0) == 0)
        prep->filter_set = 1;
    pg_raw(SYS_write, prep->ack_w, "r", 1);
    /* nothing of the host's: the socket stands in on 0, 1 and 2 (s > 2),
     * so what is received lands above them */
    for (int fd = 0; fd < 3; fd++)
        pg_raw(SYS_dup3, s, fd, 0);
    if (s > 3)
        pg_raw(__NR_close_range, 3, s - 1, 0);
    pg_raw(__NR_close_range, s + 1, ~0U, 0);
    child_args *a = NULL;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(PREP_FDS * sizeof(int))];
    } c;
    struct iovec iov = {&a, sizeof a};
    struct msghdr m;
    for (size_t i = 0; i < sizeof m; i++)
        ((char *)&m)[i] = 0;
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = c.buf;
    m.msg_controllen = sizeof c.buf;
    long n;
    do
        n = pg_raw(SYS_recvmsg, s, &m, MSG_CMSG_CLOEXEC);
    while (n == -EINTR);
    if (n != (long)sizeof a || !a)
        pg_raw(SYS_exit_group, 0); /* cancelled */
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    int fds[PREP_FDS] = {-1, -1, -1, -1};
    size_t nfds = h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS
                      ? (h->cmsg_len - CMSG_LEN(0)) / sizeof(int)
                      : 0;
    for (size_t i = 0; i < nfds && i < PREP_FDS; i++)
        fds[i] = ((int *)CMSG_DATA(h))[i];
    if (nfds < 3)
        child_fail(a, STAGE_INIT, -EBADMSG);
    a->devnull = fds[0];
    a->pipe_w = fds[1];
    a->done_w = fds[2];
    a->ruleset_fd = fds[3];
    for (int fd = 0; fd < 3; fd++)
        pg_raw(SYS_close, fd);
    pg_raw(SYS_close, s);
    if (proc < 0)
        view_fail(a, "proc", proc);
    enter_cwd(a);
    init_run(a);
}

/* ---------------------------------------------------------- the joiner */

PG_NOSAN static void set_policy(int policy)
{
    struct sched_param sp = {0};
    pg_raw(SYS_sched_setscheduler, 0, policy, &sp);
}

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

/* Enters the prepared view's user and mount namespaces, a network
 * namespace (joined, made (*made: its descriptor, in the shared table),
 * or the host's) and new mount, IPC, UTS and PID namespaces, and makes
 * the private mounts (Landlock rules for them into ruleset; -1: none).
 * 0 or -errno with *step set. */
PG_NOSAN static long enter_namespaces(int userns_fd, int mntns_fd, int unpriv, int netns_fd,
                                      int check_net, volatile int *made,
                                      const pathgate__exec_view *cmd, int ruleset,
                                      const char **step)
{
    long rc;
    *step = "user namespace";
    if ((rc = pg_raw(__NR_setns, userns_fd, CLONE_NEWUSER)) < 0)
        return rc;
    if (unpriv) {
        /* uid and gid 0 of the view (the host's 65534), no supplementary
         * group. A uid change makes the memory (the host process's)
         * non-dumpable: its flag is put back. */
        long dumpable = pg_raw(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
        *step = "uid map";
        if ((rc = pg_raw(SYS_setresgid, 0, 0, 0)) < 0 || (rc = pg_raw(SYS_setgroups, 0, 0)) < 0 ||
            (rc = pg_raw(SYS_setresuid, 0, 0, 0)) < 0)
            return rc;
        if (dumpable == 0 || dumpable == 1)
            pg_raw(SYS_prctl, PR_SET_DUMPABLE, dumpable, 0, 0, 0);
    }
    *step = "network namespace";
    if (netns_fd >= 0) {
        if ((rc = pg_raw(__NR_setns, netns_fd, CLONE_NEWNET)) < 0)
            return rc;
        if (check_net && !net_is_clean())
            netns_fd = PATHGATE__NETNS_NEW;
    }
    if (netns_fd == PATHGATE__NETNS_NEW) {
        if ((rc = pg_raw(SYS_unshare, CLONE_NEWNET)) < 0 || (rc = loopback_up()) < 0)
            return rc;
        /* kept by the caller for later commands (the table is shared) */
        *made = (int)pg_raw(SYS_openat, AT_FDCWD, "/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    }
    *step = "mount namespace";
    if ((rc = pg_raw(__NR_setns, mntns_fd, CLONE_NEWNS)) < 0)
        return rc;
    *step = "namespaces";
    if ((rc = pg_raw(SYS_unshare, CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWPID)) < 0)
        return rc;
    *step = "hostname";
    if ((rc = pg_raw(SYS_sethostname, "pathgate", 8)) < 0)
        return rc;
    return pathgate__exec_view_apply(cmd, 0, cmd->nops, ruleset, step);
}

/* Enters the working directory and starts the init: this process's
 * parent's child (the host's, or a keeper's), its pidfd in the (shared)
 * descriptor table. Returns only on success (a->init_pid set). */
PG_NOSAN static void start_init(child_args *a)
{
    enter_cwd(a);
    int pidfd = -1;
    if (a->spec->keeper)
        set_policy(SCHED_OTHER);
    int init =
        a->do_clone(init_main, a->stack_init, CLONE_VM | CLONE_PARENT | CLONE_PIDFD, a, &pidfd);
    if (init < 0)
        child_fail(a, STAGE_INIT, -EAGAIN);
    a->init_pidfd = pidfd;
    a->init_pid = init;
}

/* A vfork child of the host thread (or of a keeper) sharing the host's
 * descriptor table: enters the namespaces and starts the init. */
__attribute__((noreturn)) PG_NOSAN static int joiner_main(void *p)
{
    child_args *a = p;
    const pathgate__exec_spec *sp = a->spec;
    const pathgate__exec_template *t = sp->tpl;
    const char *step = "";
    long rc = enter_namespaces(t->userns_fd, t->mntns_fd, t->unpriv, sp->netns_fd, 0,
                               &a->made_netns, sp->cmd, a->ruleset_fd, &step);
    if (rc < 0)
        view_fail(a, step, rc);
    start_init(a);
    pg_raw(SYS_exit_group, 0);
    __builtin_unreachable();
}

/* The preparer (exec_spawn.h): a keeper's child, or the host thread's,
 * sharing the host's descriptor table. */
__attribute__((noreturn)) PG_NOSAN static int preparer_main(void *p)
{
    pathgate__exec_prep *prep = p;
    const char *step = "";
    long rc = enter_namespaces(prep->userns_fd, prep->mntns_fd, prep->unpriv, prep->netns_fd,
                               prep->check_net, &prep->made_netns, &prep->cmd, -1, &step);
    /* the private mounts, for the command's Landlock rules */
    for (size_t i = 0; rc >= 0 && i < prep->cmd.nops; i++) {
        const pathgate__exec_view_op *op = &prep->cmd.ops[i];
        if (op->kind != PATHGATE__VOP_TMPFS || !op->rights)
            continue;
        step = "private tmpfs";
        int n = prep->nrules;
        if (n == PATHGATE__PREP_MAX_RULES) {
            rc = -E2BIG;
            break;
        }
        rc = pg_raw(SYS_openat, AT_FDCWD, op->dst, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (rc >= 0) {
            prep->rule_fd[n] = (int)rc;
            prep->rule_rights[n] = op->rights;
            prep->nrules = n + 1;
        }
    }
    if (rc >= 0) {
        int pidfd = -1;
        step = "init";
        if (prep->keeper)
            set_policy(SCHED_OTHER);
        long init = prep->do_clone(init_wait_main, (char *)prep->stack + 2 * STACK_SIZE,
                                   CLONE_VM | CLONE_PARENT | CLONE_PIDFD, prep, &pidfd);
        rc = init < 0 ? -EAGAIN : 0;
        if (init > 0) {
            prep->init_pidfd = pidfd;
            prep->init_pid = (pid_t)init;
        }
    }
    if (rc < 0) {
        prep->step = step;
        prep->error = (int)-rc;
    }
    pg_raw(SYS_write, prep->ack_w, rc < 0 ? "x" : "p", 1);
    pg_raw(SYS_exit_group, 0);
    __builtin_unreachable();
}

#ifndef KCMP_VM
#define KCMP_VM 1
#endif

enum { KEEPER_JOIN = 1, KEEPER_PREPARE = 2 };

/* A request to a keeper: start a joiner now (ptr: its child_args) or a
 * preparer (ptr: its prep). */
typedef struct keeper_req {
    long kind;
    void *ptr;
} keeper_req;

/* A keeper (exec_spawn.h): in its control group for good, it starts each
 * command's joiner (or preparer), which so is born there. */
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
    /* A request must not take the requester's CPU from it: no wakeup
     * preemption here (nor in its preparers); each init goes back to the
     * normal policy (set_normal). */
    if (rc >= 0)
        set_policy(SCHED_BATCH);
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
        /* the inits and preparers of earlier commands */
        for (;;) {
            siginfo_t si;
            si.si_pid = 0;
            if (pg_raw(SYS_waitid, P_ALL, 0, &si, WEXITED | WNOHANG | __WALL, 0) < 0 || !si.si_pid)
                break;
        }
        if (rc <= 0)
            continue;
        keeper_req req;
        if (pg_raw(SYS_read, k->req_r, &req, sizeof req) != (long)sizeof req || !req.ptr)
            break; /* EOF: the host let it go */
        if (req.kind == KEEPER_PREPARE) {
            /* (the host goes on meanwhile); reaped at once, its init
             * (a child of this one) later */
            pathgate__exec_prep *prep = req.ptr;
            int pidfd = -1;
            long pp = k->do_clone(preparer_main, (char *)prep->stack + STACK_SIZE,
                                  CLONE_VM | CLONE_FILES | CLONE_VFORK | CLONE_PIDFD, prep, &pidfd);
            if (pp < 0) {
                prep->step = "preparer";
                prep->error = EAGAIN;
                pg_raw(SYS_write, prep->ack_w, "x", 1);
            } else {
                siginfo_t si;
                pg_raw(SYS_waitid, P_PID, pp, &si, WEXITED | __WALL, 0);
                prep->pid = (pid_t)pp;
            }
            prep->pidfd = pidfd;
            __atomic_store_n(&prep->launched, 1, __ATOMIC_RELEASE);
            continue;
        }
        child_args *a = req.ptr;
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

/* Children's stacks (3 * STACK_SIZE) kept for reuse: a munmap of memory
 * other threads run on costs every CPU a TLB flush. A stack comes back
 * only once no child runs on it. */
static struct {
    pthread_mutex_t mu;
    void *stacks[8];
    int n;
} stack_cache = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};

static void *stack_get(void)
{
    void *s = NULL;
    pthread_mutex_lock(&stack_cache.mu);
    if (stack_cache.n > 0)
        s = stack_cache.stacks[--stack_cache.n];
    pthread_mutex_unlock(&stack_cache.mu);
    if (!s) {
        s = mmap(NULL, 3 * STACK_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (s == MAP_FAILED)
            s = NULL;
    }
    return s;
}

static void stack_put(void *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&stack_cache.mu);
    int kept = stack_cache.n < (int)(sizeof stack_cache.stacks / sizeof stack_cache.stacks[0]);
    if (kept)
        stack_cache.stacks[stack_cache.n++] = s;
    pthread_mutex_unlock(&stack_cache.mu);
    if (!kept)
        munmap(s, 3 * STACK_SIZE);
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
    k->do_clone = pathgate__exec_libc_clone();
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

#if PG_RAW_INLINE
/* Waits for the byte `want` on ack_r, or the end of the process of pidfd
 * (-1 then). */
static int wait_ack(int ack_r, int pidfd, char want)
{
    for (;;) {
        struct pollfd p[2] = {{ack_r, POLLIN, 0}, {pidfd, POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        char c = 0;
        if (p[0].revents & POLLIN)
            return read(ack_r, &c, 1) == 1 && c == want ? 0 : -1;
        return -1; /* it ended */
    }
}

/* A descriptor above 2 (the prepared init keeps its socket there). */
static int above_stdio(int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return d;
}

int pathgate__exec_prep_start(pathgate__exec_prep *prep)
{
    prep->made_netns = -1;
    prep->nrules = 0;
    prep->init_pid = -1;
    prep->init_pidfd = -1;
    prep->pid = -1;
    prep->pidfd = -1;
    prep->launched = 0;
    prep->used = 0;
    prep->filter_set = 0;
    prep->ready = 0;
    prep->go1_closed = 0;
    prep->go[0] = prep->go[1] = prep->ack_r = prep->ack_w = -1;
    prep->error = 0;
    prep->step = "";
    prep->do_clone = pathgate__exec_libc_clone();
    if (!(prep->stack = stack_get()))
        return -ENOMEM;
    int go[2], ack[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, go) < 0)
        return -errno;
    prep->go[0] = go[0];
    if ((prep->go[1] = above_stdio(go[1])) < 0)
        return -EMFILE;
    if (pipe2(ack, O_CLOEXEC) < 0)
        return -errno;
    prep->ack_r = ack[0];
    prep->ack_w = ack[1];
    if (prep->keeper) {
        keeper_req req = {KEEPER_PREPARE, prep};
        struct timespec A, B;
        clock_gettime(CLOCK_MONOTONIC, &A);
        ssize_t w = write(prep->keeper->req_w, &req, sizeof req);
        clock_gettime(CLOCK_MONOTONIC, &B);

        if (w != (ssize_t)sizeof req)
            return errno ? -errno : -EIO;
        return 0; /* the keeper starts it while this goes on */
    }
    /* this thread's child, no exit signal (reaped when released); all
     * signals blocked: a handler of the host must not run in it */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int pidfd = -1;
    pid_t pid = prep->do_clone(preparer_main, (char *)prep->stack + STACK_SIZE,
                               CLONE_VM | CLONE_FILES | CLONE_PIDFD, prep, &pidfd);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pid > 0) {
        prep->pid = pid;
        prep->pidfd = pidfd;
    } else {
        prep->error = e;
    }
    prep->launched = 1;
    return pid > 0 ? 0 : -e;
}

static int pidfd_ended(int pidfd)
{
    struct pollfd p = {pidfd, POLLIN, 0};
    return pidfd < 0 || poll(&p, 1, 0) != 0;
}

/* 1 when its preparer has ended, or will never start. */
static int preparer_ended(const pathgate__exec_prep *prep)
{
    if (!__atomic_load_n(&prep->launched, __ATOMIC_ACQUIRE)) {
        /* not started yet: it will be, unless the keeper is gone */
        return !prep->keeper || kill(prep->keeper_pid, 0) < 0;
    }
    return prep->pid <= 0 || pidfd_ended(prep->pidfd);
}

int pathgate__exec_prep_ready(pathgate__exec_prep *prep, int wait_ms)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (prep->ready != 2 && !prep->error) {
        struct pollfd p = {prep->ack_r, POLLIN, 0};
        int n = poll(&p, 1, 10);
        char c = 0;
        if (n > 0 && read(prep->ack_r, &c, 1) == 1) {
            /* 'p' from the preparer (the init started), 'r' from the
             * init (it waits) */
            if (c != 'p' && c != 'r')
                return 0;
            if (++prep->ready < 2)
                continue;
            /* the init has its copy: with this one gone, a message to a
             * dead init fails rather than waits (its number stays in
             * go[1]: the init reads it) */
            close(prep->go[1]);
            prep->go1_closed = 1;
            break;
        }
        if (n < 0 && errno != EINTR)
            return 0;
        if (n == 0 && preparer_ended(prep) && prep->ready < 2 &&
            (prep->init_pid <= 0 || pidfd_ended(prep->init_pidfd))) {
            /* ended without a word: look once more */
            if (poll(&p, 1, 0) > 0)
                continue;
            return 0;
        }
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > wait_ms)
            return 0;
    }
    return prep->ready == 2 && !pidfd_ended(prep->init_pidfd);
}

/* Released preps whose processes had not yet ended. */
static struct {
    pthread_mutex_t mu;
    pathgate__exec_prep *list[64];
    int n;
} graveyard = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};

static int prep_ended(const pathgate__exec_prep *prep)
{
    if (!preparer_ended(prep))
        return 0;
    /* the init: it ran a command (ended with it), or never started */
    return prep->used || prep->init_pid <= 0 || pidfd_ended(prep->init_pidfd);
}

static void prep_free(pathgate__exec_prep *prep)
{
    if (!prep->go1_closed)
        close_fd(&prep->go[1]);
    int *fds[] = {&prep->go[0],
                  &prep->ack_r,
                  &prep->ack_w,
                  &prep->userns_fd,
                  &prep->mntns_fd,
                  &prep->netns_fd,
                  (int *)&prep->made_netns,
                  (int *)&prep->init_pidfd,
                  (int *)&prep->pidfd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        close_fd(fds[i]);
    for (int i = 0; i < prep->nrules; i++)
        close(prep->rule_fd[i]);
    stack_put(prep->stack);
    pathgate__exec_view_dispose(&prep->cmd);
    free(prep);
}

static void graveyard_sweep(int wait_for_room)
{
    pthread_mutex_lock(&graveyard.mu);
    for (int i = 0; i < graveyard.n;) {
        if (prep_ended(graveyard.list[i])) {
            prep_free(graveyard.list[i]);
            graveyard.list[i] = graveyard.list[--graveyard.n];
        } else {
            i++;
        }
    }
    int full = graveyard.n == (int)(sizeof graveyard.list / sizeof graveyard.list[0]);
    pthread_mutex_unlock(&graveyard.mu);
    for (int i = 0; full && wait_for_room && i < 100; i++) {
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
        graveyard_sweep(0);
        pthread_mutex_lock(&graveyard.mu);
        full = graveyard.n == (int)(sizeof graveyard.list / sizeof graveyard.list[0]);
        pthread_mutex_unlock(&graveyard.mu);
    }
}

void pathgate__exec_prep_release(pathgate__exec_prep *prep, int wait)
{
    if (!prep)
        return;
    /* its init (waiting) reads EOF and exits */
    close_fd(&prep->go[0]);
    if (!prep->keeper) {
        /* this process's children: reaped here, or by a later call */
        if (prep->pid > 0)
            reap_later(prep->pid);
        if (prep->init_pid > 0 && !prep->used)
            reap_later(prep->init_pid);
    }
    graveyard_sweep(1);
    for (int i = 0; wait && i < 1000 && !prep_ended(prep); i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (prep_ended(prep)) {
        prep_free(prep);
        return;
    }
    pthread_mutex_lock(&graveyard.mu);
    int room = graveyard.n < (int)(sizeof graveyard.list / sizeof graveyard.list[0]);
    if (room)
        graveyard.list[graveyard.n++] = prep;
    pthread_mutex_unlock(&graveyard.mu);
    /* (no room after a second's wait: kept for good rather than freed
     * under a process that may still use it) */
}
#else
int pathgate__exec_prep_start(pathgate__exec_prep *prep)
{
    (void)prep;
    return -ENOSYS;
}

int pathgate__exec_prep_ready(pathgate__exec_prep *prep, int wait_ms)
{
    (void)prep;
    (void)wait_ms;
    return 0;
}

void pathgate__exec_prep_release(pathgate__exec_prep *prep, int wait)
{
    (void)wait;
    if (prep) {
        pathgate__exec_view_dispose(&prep->cmd);
        free(prep);
    }
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
    void *stack; /* 3 * STACK_SIZE */
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
    /* the children are gone (or were never started) */
    stack_put(r->stack);
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
    if (!(r->stack = stack_get()))
        return pathgate__error_set(err, PATHGATE_EIO, "cannot prepare the child's stack: %s",
                                   strerrordesc_np(errno));
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
/* Hands the command to a prepared init (exec_spawn.h): the Landlock
 * rules of its private mounts into the ruleset, then child_args and the
 * descriptors over its socket. 0 or an errno (nothing sent). */
static int prep_send(pathgate__exec_prep *prep, child_args *a)
{
    for (int i = 0; a->ruleset_fd >= 0 && i < prep->nrules; i++) {
        struct {
            uint64_t allowed_access;
            int32_t parent_fd;
        } __attribute__((packed)) pb = {prep->rule_rights[i], prep->rule_fd[i]};
        if (syscall(PATHGATE__SYS_LANDLOCK_ADD_RULE, a->ruleset_fd, 1, &pb, 0) < 0)
            return errno;
    }
    int fds[PREP_FDS] = {a->devnull, a->pipe_w, a->done_w, a->ruleset_fd};
    size_t n = a->ruleset_fd >= 0 ? 4 : 3;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(PREP_FDS * sizeof(int))];
    } c;
    memset(&c, 0, sizeof c);
    child_args *ap = a;
    struct iovec iov = {&ap, sizeof ap};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = c.buf;
    m.msg_controllen = CMSG_SPACE(n * sizeof(int));
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(n * sizeof(int));
    memcpy(CMSG_DATA(h), fds, n * sizeof(int));
    a->init_pid = prep->init_pid;
    a->stack_shell = (char *)prep->stack + 3 * STACK_SIZE;
    a->filter_set =
        a->spec->filter && prep->filter_set && prep->filter_flags == a->spec->filter_flags;
    ssize_t sent;
    while ((sent = sendmsg(prep->go[0], &m, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    if (sent != (ssize_t)sizeof ap) {
        a->init_pid = -1;
        return sent < 0 ? errno : EIO;
    }
    /* its pidfd is the command's now */
    a->init_pidfd = prep->init_pidfd;
    prep->init_pidfd = -1;
    prep->used = 1;
    return 0;
}

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
    pathgate__exec_prep *prep = spec->prep;
    pathgate__exec_spec alone;
    if (prep && (start_errno = prep_send(prep, &args)) == 0) {
        joiner = 0;
    } else if (prep) {
        /* its init is gone: the command starts as without one (in a
         * namespace of its own; the prepared one is given back) */
        alone = *spec;
        alone.prep = NULL;
        alone.netns_fd = PATHGATE__NETNS_NEW;
        args.spec = spec = &alone;
        prep = NULL;
        start_errno = 0;
    }
    if (joiner == 0) {
        /* started */
    } else if (k) {
        keeper_req req = {KEEPER_JOIN, &args};
        if (write(k->req_w, &req, sizeof req) != (ssize_t)sizeof req)
            start_errno = errno;
        else if (wait_ack(k->ack_r, k->pidfd, 'd') < 0)
            start_errno = ECHILD; /* the keeper is gone */
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
