/* exec_spawn.c - the host's side of a command's start (the children's
 * code is exec_child.c), and its handover to the supervisor
 * (exec_supervise.c). exec_spawn.h describes the processes. */
#define _GNU_SOURCE
#include "exec_spawn.h"

#include "exec_child.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

#define STACK_SIZE PATHGATE__EXEC_STACK
#define PREP_FDS PATHGATE__EXEC_PREP_FDS

typedef pathgate__clone_func clone_func;

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
    k->pid =
        pathgate__exec_libc_clone()(pathgate__exec_keeper_main, (char *)k->stack + KEEPER_STACK,
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
    prep->launched = 1; /* (nothing started before the request) */
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
        prep->launched = 0; /* until the keeper has started it */
        if (write(prep->keeper->req_w, &req, sizeof req) != (ssize_t)sizeof req) {
            prep->launched = 1; /* never will */
            return errno ? -errno : -EIO;
        }
        return 0; /* the keeper starts it while this goes on */
    }
    /* this thread's child, no exit signal (reaped when released); all
     * signals blocked: a handler of the host must not run in it */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int pidfd = -1;
    pid_t pid = prep->do_clone(pathgate__exec_preparer_main, (char *)prep->stack + STACK_SIZE,
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
        pathgate__exec_prep *p = graveyard.list[i];
        int foreign = p->owner != getpid(); /* a fork's copy: left alone */
        if (foreign || prep_ended(p)) {
            if (!foreign)
                prep_free(p);
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
    /* (a fork's copy of its parent's: the processes are the parent's) */
    if (!prep || prep->owner != getpid())
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
                                   pathgate__exec_stage_names[stage],
                                   a->view_step ? a->view_step : "", strerrordesc_np(a->error));
    return pathgate__error_set(err, stage == STAGE_LANDLOCK ? PATHGATE_EUNSUPPORTED : PATHGATE_EIO,
                               "cannot confine the command (%s): %s",
                               pathgate__exec_stage_names[stage], strerrordesc_np(a->error));
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
    int fds[PREP_FDS] = {a->devnull, a->pipe_w, a->done_w, -1, -1};
    size_t n = 3;
    if (a->ruleset_fd >= 0)
        fds[n++] = a->ruleset_fd;
    if (a->spec->net)
        fds[n++] = a->spec->net->socket_fd;
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
        joiner = args.do_clone(pathgate__exec_joiner_main, args.stack_joiner,
                               CLONE_VM | CLONE_VFORK | CLONE_FILES, &args);
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
        pathgate_buf_dispose(&out->output); /* back to INIT */
        *out = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
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
    char *top = (char *)r.stack + STACK_SIZE;
    pid_t pid = -1;
    int start_errno = 0;
#if PG_RAW_INLINE
    pathgate__exec_keeper *k = spec->keeper;
    if (k) {
        /* the group's keeper starts it: born in the group, no move */
        args.stack_joiner = top;
        args.init_pidfd = -1;
        keeper_req req = {KEEPER_PLAIN, &args};
        if (write(k->req_w, &req, sizeof req) != (ssize_t)sizeof req)
            start_errno = errno;
        else if (wait_ack(k->ack_r, k->pidfd, 'd') < 0)
            start_errno = ECHILD; /* the keeper is gone */
        else if ((pid = args.init_pid) <= 0)
            start_errno = EAGAIN;
        r.pidfd = args.init_pidfd;
    }
#else
    void *k = NULL;
#endif
    if (!k) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        int flags = CLONE_VM | CLONE_VFORK;
        pid = args.do_clone(pathgate__exec_plain_main, top, flags | CLONE_PIDFD, &args, &r.pidfd);
        if (pid < 0 && errno == EINVAL) {
            r.pidfd = -1;
            pid = args.do_clone(pathgate__exec_plain_main, top, flags, &args);
        }
        start_errno = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
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
