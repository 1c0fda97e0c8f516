/* exec_supervise.c - the parent's side of a running command: output,
 * timeout, lifetime, as the state machine exec_supervise.h draws. */
#define _GNU_SOURCE
#include "exec_supervise.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "pathgate/exec.h"
#include "error.h"

/* Poll tick when no pidfd is available to learn that the shell exited. */
#define NO_PIDFD_TICK_MS 10
/* Longest single poll (its timeout is an int). */
#define MAX_WAIT_MS 3600000u

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---------------------------------------------------------- output */

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

/* --------------------------------------------------------- processes */

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

#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif

static void kill_all(pid_t pid, int pidfd, pathgate__sup_mode mode)
{
    if (mode == PATHGATE__SUP_GROUP)
        kill(-pid, SIGKILL);
    /* with a PID namespace: its init, and so all of it */
    if (pidfd >= 0)
        syscall(__NR_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
    else
        kill(pid, SIGKILL);
}

/* Waits (bounded) until the process behind pidfd has exited. */
static void wait_exited(int pidfd)
{
    struct pollfd p = {pidfd, POLLIN, 0};
    for (int i = 0; i < 100 && poll(&p, 1, 100) == 0; i++) {
    }
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

int pathgate__exec_reap(int *exit_code, pid_t pid)
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

/* ----------------------------------------------------- state machine */

typedef enum sup_state {
    SUP_RUNNING, /* the shell runs; until the deadline */
    SUP_GRACE,   /* the shell exited, the output is still open; until grace ends */
    SUP_KILLED,  /* everything was sent SIGKILL; drain until the drain ends */
    SUP_DONE,
} sup_state;

typedef struct supervisor {
    sup_state state;
    pid_t pid;
    int pidfd, exit_fd, pipe_fd;
    pathgate__sup_mode mode;
    const pathgate__sup_oom *oom;
    int exited, eof, timed_out, killed;
    uint64_t until; /* the current state's deadline */
    collector col;
} supervisor;

static void settle(supervisor *s)
{
    if (s->exited && s->eof)
        s->state = SUP_DONE;
}

static void to_killed(supervisor *s, uint64_t now)
{
    kill_all(s->pid, s->pidfd, s->mode);
    s->killed = 1;
    s->state = SUP_KILLED;
    s->until = now + PATHGATE__EXEC_DRAIN_MS;
    settle(s);
}

static void on_shell_exit(supervisor *s, uint64_t now)
{
    s->exited = 1;
    if (s->state == SUP_RUNNING) {
        s->state = SUP_GRACE;
        s->until = now + PATHGATE__EXEC_GRACE_MS;
    }
    settle(s);
}

static void on_eof(supervisor *s)
{
    s->eof = 1;
    settle(s);
}

/* 1 when the command has ended: exit_fd (the init's done pipe, or the
 * pidfd) is readable, or without one the child has exited. */
static int ended_now(const supervisor *s)
{
    if (s->exit_fd >= 0) {
        struct pollfd p = {s->exit_fd, POLLIN, 0};
        return poll(&p, 1, 0) > 0 && p.revents;
    }
    return has_exited(s->pid);
}

/* The current state's deadline has passed. */
static void on_deadline(supervisor *s, uint64_t now)
{
    switch (s->state) {
    case SUP_RUNNING:
        if (ended_now(s)) {
            on_shell_exit(s, now);
        } else {
            s->timed_out = 1;
            to_killed(s, now);
        }
        break;
    case SUP_GRACE: /* something still holds the output: end it all */
        to_killed(s, now);
        break;
    case SUP_KILLED: /* something unkillable holds the pipe: give up on it */
        on_eof(s);
        s->until = UINT64_MAX;
        break;
    case SUP_DONE:
        break;
    }
}

static int wait_ms(const supervisor *s, uint64_t now)
{
    int ms = -1;
    if (s->until != UINT64_MAX) {
        uint64_t left = s->until > now ? s->until - now : 0;
        ms = (int)(left > MAX_WAIT_MS ? MAX_WAIT_MS : left);
    }
    if (!s->exited && s->exit_fd < 0 && (ms < 0 || ms > NO_PIDFD_TICK_MS))
        ms = NO_PIDFD_TICK_MS;
    return ms;
}

/* One poll and the events it brings. */
static void step(supervisor *s)
{
    uint64_t now = now_ms();
    if (now >= s->until) {
        on_deadline(s, now);
        return;
    }
    struct pollfd pfd[3];
    nfds_t n = 0;
    int pipe_slot = -1, exit_slot = -1, oom_slot = -1;
    if (!s->eof) {
        pipe_slot = (int)n;
        pfd[n++] = (struct pollfd){s->pipe_fd, POLLIN, 0};
    }
    if (!s->exited && s->exit_fd >= 0) {
        exit_slot = (int)n;
        pfd[n++] = (struct pollfd){s->exit_fd, POLLIN, 0};
    }
    if (!s->exited && s->oom && s->oom->fd >= 0) {
        oom_slot = (int)n;
        pfd[n++] = (struct pollfd){s->oom->fd, POLLIN, 0};
    }
    int pr = poll(pfd, n, wait_ms(s, now));
    if (pr < 0 && errno != EINTR && s->state != SUP_KILLED) {
        to_killed(s, now_ms()); /* should not happen: end rather than spin */
        return;
    }
    if (pr > 0 && oom_slot >= 0 && pfd[oom_slot].revents)
        s->oom->kill(s->oom->ctx, s->pid); /* out of memory: a process ends */
    if (pr > 0 && pipe_slot >= 0 && pfd[pipe_slot].revents && collect(&s->col, s->pipe_fd))
        on_eof(s);
    if (s->col.enomem && (s->state == SUP_RUNNING || s->state == SUP_GRACE))
        to_killed(s, now_ms());
    if (!s->exited && ((pr > 0 && exit_slot >= 0 && pfd[exit_slot].revents) ||
                       (s->exit_fd < 0 && has_exited(s->pid))))
        on_shell_exit(s, now_ms());
}

int pathgate__exec_supervise(pathgate__exec_outcome *out, const pathgate_allocator *alloc,
                             pid_t pid, int pidfd, int exit_fd, int pipe_fd,
                             pathgate__sup_mode mode, const pathgate__sup_oom *oom,
                             unsigned int timeout_ms, size_t output_cap, pathgate_error *err)
{
    memset(out, 0, sizeof *out);
    supervisor s = {SUP_RUNNING,
                    pid,
                    pidfd,
                    exit_fd,
                    pipe_fd,
                    mode,
                    oom,
                    0,
                    0,
                    0,
                    0,
                    now_ms() + timeout_ms,
                    {alloc, NULL, 0, 0, output_cap, 0, 0}};
    while (s.state != SUP_DONE)
        step(&s);
    int exit_code = 0, reaped = 0;
    if (mode == PATHGATE__SUP_GROUP || s.killed) {
        /* Nothing outlives the call. Without a PID namespace the zombie
         * shell still holds the group id, so this cannot hit a
         * stranger's group; with one, the init's end ends the rest, and
         * its exit waits for that. */
        kill_all(pid, pidfd, mode);
        if (mode == PATHGATE__SUP_INIT_KEPT) {
            wait_exited(pidfd);
            exit_code = 128 + SIGKILL;
            reaped = 1;
        } else {
            reaped = pathgate__exec_reap(&exit_code, pid) == 0 ? 1 : -1;
        }
        if (mode == PATHGATE__SUP_GROUP)
            wait_group_gone(pid);
    }
    int rc = PATHGATE_OK;
    if (s.col.enomem)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    else if (reaped < 0)
        rc = pathgate__error_set(err, PATHGATE_EIO, "lost the command's exit status");
    else if (!s.col.buf && !(s.col.buf = pathgate__malloc(alloc, 1)))
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    out->reaped = reaped > 0;
    out->killed = s.killed;
    if (rc) {
        pathgate__free(alloc, s.col.buf);
        return rc;
    }
    s.col.buf[s.col.len] = '\0';
    out->output = s.col.buf;
    out->len = s.col.len;
    out->truncated = s.col.truncated;
    out->timed_out = s.timed_out;
    out->exit_code = s.timed_out ? PATHGATE_EXEC_EXIT_TIMEOUT : exit_code;
    return PATHGATE_OK;
}
