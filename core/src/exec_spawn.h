/*
 * exec_spawn.h - internal: start a confined child, collect its output,
 * enforce the timeout, kill its process group, reap it.
 *
 * Everything the child needs is prepared by the caller before the call
 * (argv, envp, the cwd fd, the ruleset fd); between clone and execve the
 * child makes raw system calls only (async-signal-safe, no allocation, no
 * lock), so this is safe in a multithreaded process.
 */
#ifndef PATHGATE_EXEC_SPAWN_H
#define PATHGATE_EXEC_SPAWN_H

#include <stddef.h>

#include <linux/filter.h>

#include "exec_view.h"
#include "pathgate/exec.h"

typedef struct pathgate__exec_limits {
    unsigned int nproc;       /* RLIMIT_NPROC */
    unsigned long long as;    /* RLIMIT_AS, bytes */
    unsigned int cpu;         /* RLIMIT_CPU, seconds */
    unsigned long long fsize; /* RLIMIT_FSIZE, bytes */
} pathgate__exec_limits;

typedef struct pathgate__exec_spec {
    char *const *argv; /* argv[0] is the program path */
    char *const *envp;
    int cwd_fd;                      /* directory to fchdir to without a view (O_PATH is fine) */
    int ruleset_fd;                  /* Landlock ruleset to enforce; -1 = none */
    const struct sock_fprog *filter; /* seccomp filter; NULL = none */
    const pathgate__exec_view *view; /* NULL = no namespaces */
    unsigned int timeout_ms;         /* > 0 */
    size_t output_cap;
    const pathgate_allocator *alloc;
    pathgate__exec_limits limits;
} pathgate__exec_spec;

/* pathgate__exec_spawn's answer when a view was asked for and user
 * namespaces are unavailable (nothing ran, no error set). */
#define PATHGATE__EXEC_NO_USERNS 1

/* How long the output may stay open after the shell has exited before the
 * process group is killed, and how long to drain after a kill. */
#define PATHGATE__EXEC_GRACE_MS 200
#define PATHGATE__EXEC_DRAIN_MS 2000

/* glibc's clone() (under ThreadSanitizer, libc's own definition rather
 * than the sanitizer's interceptor, which treats every clone as a fork). */
typedef int (*pathgate__clone_func)(int (*)(void *), void *, int, void *, ...);
pathgate__clone_func pathgate__exec_libc_clone(void);

/* 1 when the parent can write the child's maps (the child is an init
 * that does not suspend the caller): an unprivileged view is possible. */
int pathgate__exec_spawn_can_map(void);

/* Runs the child to completion. Fills out->output, exit_code, truncated
 * and timed_out (landlock_abi is the caller's) and adds to *prot the
 * PATHGATE_EXEC_PROT_* bits it established (namespaces, pid limit,
 * rlimits). Returns 0, PATHGATE__EXEC_NO_USERNS, or ENOMEM / EIO /
 * EUNSUPPORTED with *out left INIT. */
int pathgate__exec_spawn(pathgate_exec_result *out, const pathgate__exec_spec *spec,
                         unsigned int *prot, pathgate_error *err);

#endif
