/*
 * exec_supervise.h - internal: the parent's side of a running command as a
 * small state machine (exec_supervise.c): collect the output, enforce the
 * timeout, end every process of the command, reap the shell.
 *
 *   RUNNING  --shell exits-->          GRACE (output still open: wait
 *                                       PATHGATE__EXEC_GRACE_MS for EOF)
 *   RUNNING  --deadline / no memory--> KILLED (timed out / ENOMEM)
 *   GRACE    --grace over / no memory-> KILLED
 *   KILLED   --drain over-->           the pipe is given up
 *   any      --exited and EOF-->       DONE
 *
 * A state names what is waited for; each event is one function; the loop
 * only polls and dispatches.
 */
#ifndef PATHGATE_EXEC_SUPERVISE_H
#define PATHGATE_EXEC_SUPERVISE_H

#include <stddef.h>
#include <sys/types.h>

#include "pathgate/common.h"

/* How long the output may stay open after the shell has exited before the
 * process group is killed, and how long to drain after a kill. */
#define PATHGATE__EXEC_GRACE_MS 200
#define PATHGATE__EXEC_DRAIN_MS 2000

typedef struct pathgate__exec_outcome {
    char *output; /* NUL-terminated, allocated with the allocator (NULL on ENOMEM) */
    size_t len;
    int truncated;
    int timed_out;
    int killed;    /* the supervisor killed it (timeout, grace over, no memory) */
    int reaped;    /* pid was reaped here; exit_code is its status */
    int exit_code; /* status, 128 + signal, or PATHGATE_EXEC_EXIT_TIMEOUT */
} pathgate__exec_outcome;

/* Who the supervised process is. */
typedef enum pathgate__sup_mode {
    PATHGATE__SUP_GROUP,     /* our child, leader of the command's process group (no PID
                              * namespace): exit_fd is its pidfd (-1: a tick) */
    PATHGATE__SUP_INIT,      /* our child, the init of the command's PID namespace */
    PATHGATE__SUP_INIT_KEPT, /* a keeper's child, the init of the command's PID namespace:
                              * killed and waited for by its pidfd, never reaped here */
} pathgate__sup_mode;

/* Out-of-memory events of the command's group (fd readable: kill(ctx,
 * the init) picks and ends a process). fd -1: none. */
typedef struct pathgate__sup_oom {
    int fd;
    void (*kill)(void *ctx, pid_t init);
    void *ctx;
} pathgate__sup_oom;

/* Supervises the started process `pid` (pidfd: its pidfd, -1 = none) to
 * the end; pipe_fd is the read end of its output (non-blocking). For an
 * init, exit_fd is the pipe it holds until every other process of the
 * namespace has been reaped: its EOF ends the command, and the init is
 * then left alone (unless it had to be killed: then its exit, which waits
 * for the namespace to empty, is waited for here, and an init of ours
 * reaped). Otherwise the process group is waited for. Returns 0, ENOMEM
 * or EIO (the exit status was lost). */
int pathgate__exec_supervise(pathgate__exec_outcome *out, const pathgate_allocator *alloc,
                             pid_t pid, int pidfd, int exit_fd, int pipe_fd,
                             pathgate__sup_mode mode, const pathgate__sup_oom *oom,
                             unsigned int timeout_ms, size_t output_cap, pathgate_error *err);

/* Waits for the child (also one that failed before execve). 0 or -1. */
int pathgate__exec_reap(int *exit_code, pid_t pid);

#endif
