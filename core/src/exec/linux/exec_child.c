/* exec_child.c - the processes pathgate starts for a command, from
 * clone to execve (exec_child.h; exec_spawn.h describes them). They
 * share the host process's memory: raw system calls only, no errno, no
 * allocation, no lock, no sanitizer. */
#define _GNU_SOURCE
#include "exec_child.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "exec_landlock.h"
#include "exec_raw.h"

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

#define STACK_SIZE PATHGATE__EXEC_STACK
#define PREP_FDS PATHGATE__EXEC_PREP_FDS
/* The kernel's sigset size (64 signals) and the highest signal. */
#define KERNEL_SIGSET_SIZE 8
#define KERNEL_NSIG 64

const char *const pathgate__exec_stage_names[] = {
    "",
    "signal reset",
    "process group",
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
    return pg_raw_strlen(s);
}

/* A keeper runs SCHED_BATCH (exec_spawn.h); what it starts that runs a
 * command goes back to the normal policy. */
PG_NOSAN static void set_policy(int policy)
{
    struct sched_param sp = {0};
    pg_raw(SYS_sched_setscheduler, 0, policy, &sp);
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
    /* 6. Resource limits (hard = soft + grace: the command cannot raise
     * them further), never above the hard limit we have (raising it needs
     * privilege). */
    for (size_t i = 0; i < a->spec->nrlimits; i++) {
        const pathgate__exec_rlimit *l = &a->spec->rlimits[i];
        unsigned long long cur[2], lim[2] = {l->value, l->value + l->grace};
        if ((rc = pg_raw(SYS_prlimit64, 0, l->resource, NULL, cur)) < 0)
            child_fail(a, STAGE_LIMITS, rc);
        if (cur[1] < lim[1])
            lim[1] = cur[1];
        if (lim[1] < lim[0])
            lim[0] = lim[1];
        if ((rc = pg_raw(SYS_prlimit64, 0, l->resource, lim, NULL)) < 0)
            child_fail(a, STAGE_LIMITS, rc);
    }
}

/* 7. No capabilities, now or after execve. */
PG_NOSAN static void drop_caps(child_args *a)
{
    long rc;
    /* No capabilities, now or after execve (root included): with
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
}

/* 7'. A root caller's command whose user namespace maps a range of ids
 * (exec_idmap.h): only the capabilities of ownership changes, in that
 * namespace, now and after execve (docs/exec.md, "Ownership changes
 * inside"). They act only on inodes whose owner and group the namespace
 * maps (the command's own and the range's) and on its own processes:
 * every other capability leaves the bounding set, so an execve by uid 0
 * gets at most these (no_new_privs also caps it at the permitted set),
 * and one by another uid none. SECBIT_NOROOT stays unset, as on the host,
 * and without CAP_SETPCAP the command cannot change any of this.
 * CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH are not kept: the policy's
 * hidden entries (exec_mask.c) are mode-0 inodes of the view's uid 0,
 * refused only because their owner holds no such capability. CAP_SETUID
 * and CAP_SETGID only with pids and memory groups (exec_spawn.h). */
#define OWNER_CAPS ((1ull << CAP_CHOWN) | (1ull << CAP_FOWNER) | (1ull << CAP_KILL))
#define SETID_CAPS ((1ull << CAP_SETGID) | (1ull << CAP_SETUID))

PG_NOSAN static void keep_ownership_caps(child_args *a)
{
    unsigned long long keep = (a->spec->keep_caps & PATHGATE__KEEP_CAPS_OWNER ? OWNER_CAPS : 0) |
                              (a->spec->keep_caps & PATHGATE__KEEP_CAPS_SETID ? SETID_CAPS : 0);
    long rc = pg_raw(SYS_prctl, PR_SET_SECUREBITS,
                     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, 0, 0, 0);
    if (rc < 0)
        child_fail(a, STAGE_CAPS, rc);
    if ((rc = pg_raw(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)) < 0 &&
        rc != -EINVAL)
        child_fail(a, STAGE_CAPS, rc);
    for (unsigned int c = 0; c < 64; c++) {
        if (keep & (1ull << c))
            continue;
        if ((rc = pg_raw(SYS_prctl, PR_CAPBSET_DROP, c, 0, 0, 0)) == -EINVAL)
            break; /* past the kernel's last capability */
        if (rc < 0)
            child_fail(a, STAGE_CAPS, rc);
    }
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    data[0].effective = data[0].permitted = (uint32_t)keep;
    data[1].effective = data[1].permitted = (uint32_t)(keep >> 32);
    data[0].inheritable = data[1].inheritable = 0;
    if ((rc = pg_raw(SYS_capset, &hdr, data)) < 0)
        child_fail(a, STAGE_CAPS, rc);
}

/* The shell's own confinement, then execve. */
__attribute__((noreturn)) PG_NOSAN static void confine_and_exec(child_args *a)
{
    long rc;
    if (a->spec->keep_caps)
        keep_ownership_caps(a);
    else
        drop_caps(a);
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
    if (a->spec->ids_filter && (rc = pg_raw(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                                            a->spec->ids_filter, 0, 0)) < 0)
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
PG_NOSAN int pathgate__exec_plain_main(void *p)
{
    child_args *a = p;
    if (a->spec->keeper)
        set_policy(SCHED_OTHER);
    shell_prepare(a);
    long rc = pg_raw(SYS_fchdir, a->cwd_fd);
    if (rc < 0)
        child_fail(a, STAGE_CWD, rc);
    confine_and_exec(a);
}

/* ------------------------------------------------------------ the init */

#if PG_RAW_INLINE
/* The position just past the first `w` in buf[0..n), or -1. */
PG_NOSAN static long find(const char *buf, long n, const char *w)
{
    long wl = (long)rlen(w);
    for (long i = 0; i + wl <= n; i++) {
        long j = 0;
        while (j < wl && buf[i + j] == w[j])
            j++;
        if (j == wl)
            return i + wl;
    }
    return -1;
}

/* 1 when no socket is left in the current network namespace, read from
 * its sockstat: "sockets: used 0" and TCP "inuse 0" and "tw 0" (the
 * orphan count between them is the whole system's). */
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
    long at = find(buf, n, "TCP: inuse 0 orphan ");
    if (find(buf, n, "sockets: used 0\n") < 0 || at < 0)
        return 0;
    while (at < n && buf[at] >= '0' && buf[at] <= '9')
        at++;
    const char *tw = " tw 0 ";
    for (long k = 0; tw[k]; k++)
        if (at + k >= n || buf[at + k] != tw[k])
            return 0;
    return 1;
}

/* The bridge of a network allowlist (netproxy.h): a child of the init
 * sharing the host's memory, with a copy of the init's descriptor table
 * of which it keeps its listening sockets and the proxy's socket only.
 * Started before the shell, it is not confined as the shell is: the
 * shell can neither trace it nor signal it (Landlock's domain, its lack
 * of capabilities) and it holds nothing but the way to the proxy. It
 * ends with the namespace (the init kills every process in it). */
PG_NOSAN static int bridge_main(void *p)
{
    pathgate__exec_net *n = p;
    int keep[3] = {n->bridge.listen4, n->bridge.listen6, n->child_fd};
    for (int i = 0; i < 3; i++) /* sorted, -1 first */
        for (int j = i + 1; j < 3; j++)
            if (keep[j] < keep[i]) {
                int t = keep[i];
                keep[i] = keep[j];
                keep[j] = t;
            }
    unsigned int from = 0;
    for (int i = 0; i < 3; i++) {
        if (keep[i] < 0)
            continue;
        if ((unsigned int)keep[i] > from)
            pg_raw(__NR_close_range, from, keep[i] - 1, 0);
        from = (unsigned int)keep[i] + 1;
    }
    pg_raw(__NR_close_range, from, ~0U, 0);
    pathgate__netproxy_bridge_serve(&n->bridge, n->mem);
    pg_raw(SYS_exit, 0);
    __builtin_unreachable();
}

/* Listens in the command's namespace and starts the bridge; the init
 * keeps none of its sockets (nor does the shell, cloned after). */
PG_NOSAN static long start_bridge(child_args *a)
{
    pathgate__exec_net *n = a->spec->net;
    long rc = pathgate__netproxy_bridge_listen(&n->bridge, PATHGATE__NETPROXY_PORT, n->child_path);
    if (rc < 0)
        return rc;
    int pid = a->do_clone(bridge_main, n->stack, CLONE_VM | SIGCHLD, n);
    pg_raw(SYS_close, n->bridge.listen4);
    if (n->bridge.listen6 >= 0)
        pg_raw(SYS_close, n->bridge.listen6);
    return pid < 0 ? -EAGAIN : 0;
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
    if (a->stage == STAGE_OK && sp->net && (rc = start_bridge(a)) < 0)
        stage_fail(a, STAGE_INIT, rc);
    /* The init waits for the shell, so SIGCHLD must not be ignored here:
     * a host that ignores it (inherited when no keeper started this
     * init) would have the kernel reap the shell, and its status lost. */
    unsigned long dfl[4] = {0, 0, 0, 0}; /* SIG_DFL, no flags, empty mask */
    if (a->stage == STAGE_OK &&
        (rc = pg_raw(SYS_rt_sigaction, SIGCHLD, dfl, NULL, KERNEL_SIGSET_SIZE)) < 0)
        stage_fail(a, STAGE_INIT, rc);
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

/* The command's /proc, and the view's system information files over
 * their namesakes there (one that cannot be bound stays procfs's own,
 * which Landlock does not grant: unreadable, never wider). */
PG_NOSAN static long mount_proc(void)
{
    long rc = pg_raw(SYS_mount, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
    static const char *const src[] = {
        PATHGATE__VIEW_PROC "/cpuinfo", PATHGATE__VIEW_PROC "/meminfo", PATHGATE__VIEW_PROC "/stat",
        PATHGATE__VIEW_PROC "/loadavg", PATHGATE__VIEW_PROC "/uptime"};
    static const char *const dst[] = {"/proc/cpuinfo", "/proc/meminfo", "/proc/stat",
                                      "/proc/loadavg", "/proc/uptime"};
    for (size_t i = 0; rc >= 0 && i < sizeof src / sizeof src[0]; i++)
        pg_raw(SYS_mount, src[i], dst[i], 0, MS_BIND, 0);
    return rc;
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

/* "/proc/self/fd/<fd>" into buf (32 bytes). */
PG_NOSAN static void fd_path(char *buf, int fd)
{
    const char *prefix = "/proc/self/fd/";
    size_t k = 0;
    while (prefix[k]) {
        buf[k] = prefix[k];
        k++;
    }
    char digits[12];
    int nd = 0;
    unsigned int v = (unsigned int)fd;
    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && nd < 11);
    while (nd)
        buf[k++] = digits[--nd];
    buf[k] = '\0';
}

/* The policy's masks (exec_policy.h), made at the call in the command's
 * own mount namespace, before the working directory is entered (it may
 * lie below a read-only one) and before the shell exists. Returns only
 * on success. */
PG_NOSAN static void apply_masks(child_args *a)
{
    const char *step = "policy";
    long rc = a->spec->masks ? pathgate__exec_masks_apply(a->spec->masks, &step) : 0;
    if (rc < 0)
        view_fail(a, step, rc);
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
    for (size_t i = 0; i < sizeof m; i++) /* (volatile: never a call to memset) */
        ((volatile char *)&m)[i] = 0;
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
    volatile int fds[PREP_FDS] = {-1, -1, -1, -1, -1}; /* (never memset, memcpy calls) */
    size_t nfds = h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS
                      ? (h->cmsg_len - CMSG_LEN(0)) / sizeof(int)
                      : 0;
    if (nfds > PREP_FDS)
        nfds = PREP_FDS;
    for (size_t i = 0; i < nfds; i++)
        fds[i] = ((int *)CMSG_DATA(h))[i];
    if (nfds < 3)
        child_fail(a, STAGE_INIT, -EBADMSG);
    a->devnull = fds[0];
    a->pipe_w = fds[1];
    a->done_w = fds[2];
    /* then the ruleset when there is one, the proxy's socket last */
    pathgate__exec_net *net = a->spec->net;
    if (net && nfds < 4)
        child_fail(a, STAGE_INIT, -EBADMSG);
    size_t rules = net ? nfds - 1 : nfds;
    a->ruleset_fd = rules > 3 ? fds[3] : -1;
    if (net) {
        net->child_fd = fds[nfds - 1];
        fd_path(net->child_path, net->child_fd);
    }
    for (int fd = 0; fd < 3; fd++)
        pg_raw(SYS_close, fd);
    pg_raw(SYS_close, s);
    if (proc < 0)
        view_fail(a, "proc", proc);
    apply_masks(a);
    enter_cwd(a);
    init_run(a);
}

/* ---------------------------------------------------------- the joiner */

PG_NOSAN static long loopback_up(void)
{
    long s = pg_raw(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return s;
    struct ifreq r;
    for (size_t i = 0; i < sizeof r; i++) /* (volatile: never a call to memset) */
        ((volatile char *)&r)[i] = 0;
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
    apply_masks(a);
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
__attribute__((noreturn)) PG_NOSAN int pathgate__exec_joiner_main(void *p)
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
__attribute__((noreturn)) PG_NOSAN int pathgate__exec_preparer_main(void *p)
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

/* A keeper (exec_spawn.h): in its control group for good, it starts each
 * command's joiner (or preparer), which so is born there. */
__attribute__((noreturn)) PG_NOSAN int pathgate__exec_keeper_main(void *p)
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
            long pp = k->do_clone(pathgate__exec_preparer_main, (char *)prep->stack + STACK_SIZE,
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
        if (req.kind == KEEPER_PLAIN) {
            /* the host's child (CLONE_PARENT), born in the group */
            int pidfd = -1;
            long c = a->do_clone(pathgate__exec_plain_main, a->stack_joiner,
                                 CLONE_VM | CLONE_VFORK | CLONE_PARENT | CLONE_PIDFD, a, &pidfd);
            if (c > 0) {
                a->init_pidfd = pidfd;
                a->init_pid = (int)c;
            } else {
                stage_fail(a, STAGE_INIT, -EAGAIN);
            }
            pg_raw(SYS_write, k->ack_w, "d", 1);
            continue;
        }
        long j = a->do_clone(pathgate__exec_joiner_main, a->stack_joiner,
                             CLONE_VM | CLONE_VFORK | CLONE_FILES, a);
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
