/*
 * pathgate/exec.h - contained command execution (docs/spec.md section 7b).
 *
 * pathgate_exec_run() runs `/bin/sh -c <command>` in a child process whose
 * working directory is a directory inside the resolver's bases and which is
 * confined by the kernel before the shell starts:
 *
 *  - Landlock (the best ABI the kernel offers, up to 7): read, write and
 *    create beneath every root and mod (read and execute only for a base
 *    with PATHGATE_BASE_READ_ONLY), read and execute on the system
 *    directories a shell needs (/usr, /bin, /sbin, /lib, /lib32, /lib64,
 *    /libx32), read-only access to a short list of /etc entries, a few /dev
 *    nodes (null, zero, full, random, urandom), and read/write on a private
 *    temporary directory (HOME and TMPDIR of the command, removed after the
 *    run). Nothing else: no /proc, no /sys, no /tmp outside the private
 *    directory, no /dev/shm, no /dev/tty. TCP bind and connect are denied
 *    unless allow_network (ABI >= 4); abstract Unix sockets and signals to
 *    processes outside the sandbox are scoped (ABI >= 6).
 *  - PR_SET_NO_NEW_PRIVS, every capability dropped (bounding, ambient,
 *    effective, permitted, inheritable), and a seccomp filter that refuses
 *    setsid/setpgid (so the whole command stays in its process group and is
 *    killed with it), io_uring, and socket() unless allow_network.
 *  - A new session and process group, stdin from /dev/null, stdout and
 *    stderr merged into one pipe, every other descriptor closed, the signal
 *    mask and dispositions reset, and an environment built from scratch.
 *
 * Without Landlock (ENOSYS/EOPNOTSUPP) the call refuses with
 * PATHGATE_EUNSUPPORTED unless allow_unconfined is set; it then runs with
 * everything above except Landlock and reports landlock_abi = 0.
 *
 * The call is synchronous and reentrant: any number of threads may run
 * commands at once against one resolver. It never changes the process's
 * working directory, signal handlers or environment, and the child is
 * created with CLONE_VM|CLONE_VFORK and no exit signal, so a SIGCHLD handler
 * or a `wait(-1)` elsewhere in the process neither sees nor reaps it.
 *
 * When the call returns, every process the command started has been killed
 * (SIGKILL to the process group): background jobs do not outlive the call.
 */
#ifndef PATHGATE_EXEC_H
#define PATHGATE_EXEC_H

#include "common.h"
#include "resolver.h"
#include "session.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PATHGATE_EXEC_TIMEOUT_DEFAULT_MS 120000u
#define PATHGATE_EXEC_OUTPUT_CAP_DEFAULT 100000u
/* The exit code reported for a command killed by the timeout. */
#define PATHGATE_EXEC_EXIT_TIMEOUT 124
/* Longest command accepted (the kernel's limit for one argument, minus the
 * terminator). */
#define PATHGATE_EXEC_COMMAND_MAX 131071u

/* Test-only: behave as if the kernel had no Landlock. */
#define PATHGATE_EXEC_TEST_NO_LANDLOCK 0x1u

typedef struct pathgate_exec_options {
    unsigned int version; /* PATHGATE_EXEC_OPTIONS_VERSION */
    /* Working directory: a canonical address of an existing directory
     * (`root:<key>/<rel>` or `mod:<Name>/<rel>`). NULL = the first root
     * (pathgate_exec_run) or the session's cwd (pathgate_exec_run_session). */
    const char *cwd;
    size_t cwd_len;
    unsigned int timeout_ms; /* 0 = PATHGATE_EXEC_TIMEOUT_DEFAULT_MS */
    size_t output_cap;       /* bytes kept; 0 = PATHGATE_EXEC_OUTPUT_CAP_DEFAULT */
    int allow_network;       /* TCP, socket() and Unix sockets by path allowed */
    int allow_unconfined;    /* run without Landlock when the kernel has none */
    /* NULL-terminated "KEY=VALUE" entries merged over the defaults
     * (PATH=/usr/local/bin:/usr/bin:/bin, HOME and TMPDIR = the private
     * temporary directory, LANG=C.UTF-8): an entry replaces the default of
     * the same key, others are added. The host environment is never
     * inherited; pass `environ` to ask for it. NULL = the defaults. */
    const char *const *env;
    unsigned int flags; /* PATHGATE_EXEC_TEST_* */
} pathgate_exec_options;

#define PATHGATE_EXEC_OPTIONS_VERSION 1
#define PATHGATE_EXEC_OPTIONS_INIT {PATHGATE_EXEC_OPTIONS_VERSION, NULL, 0, 0, 0, 0, 0, NULL, 0}
/* Fills opts as PATHGATE_EXEC_OPTIONS_INIT does. 0, or PATHGATE_EINVAL when opts is
 * NULL or version is not PATHGATE_EXEC_OPTIONS_VERSION. For callers without C macros. */
PATHGATE_EXTERN int pathgate_exec_options_init(pathgate_exec_options *opts, unsigned int version);

/* Caller-owned result. output holds the merged stdout and stderr bytes (not
 * necessarily UTF-8), at most output_cap of them; truncated says more were
 * written (and discarded). exit_code is the shell's exit status, 128+N when
 * it died of signal N, and PATHGATE_EXEC_EXIT_TIMEOUT (with timed_out) when
 * the timeout killed it. landlock_abi is the Landlock ABI enforced, 0 when
 * the command ran unconfined. */
typedef struct pathgate_exec_result {
    pathgate_buf output;
    int exit_code;
    int truncated;
    int timed_out;
    int landlock_abi;
} pathgate_exec_result;

#define PATHGATE_EXEC_RESULT_INIT {PATHGATE_BUF_INIT, 0, 0, 0, 0}

/* Frees the output and resets the result. NULL is a no-op. */
PATHGATE_EXTERN void pathgate_exec_result_dispose(pathgate_exec_result *res);

/*
 * Runs command[0..len) (any bytes but NUL; at most
 * PATHGATE_EXEC_COMMAND_MAX). opts NULL = defaults. Returns 0 when the
 * command ran (whatever its exit status) and *out holds the result;
 * otherwise a negative code and *out left INIT: EINVAL (bad options or
 * environment entry), ENUL, ETOOLONG, EINVALIDPATH / ENOTDIR (cwd),
 * EUNSUPPORTED (no Landlock and not allow_unconfined), ENOMEM, EIO (the
 * sandbox or the child could not be set up). Uses the resolver's
 * allocator. Messages never name a host path.
 */
PATHGATE_EXTERN int pathgate_exec_run(pathgate_exec_result *out, pathgate_resolver *resolver,
                                      const char *command, size_t len,
                                      const pathgate_exec_options *opts, pathgate_error *err);

/* The same with the session's cwd as default working directory. */
PATHGATE_EXTERN int pathgate_exec_run_session(pathgate_exec_result *out, pathgate_session *session,
                                              const char *command, size_t len,
                                              const pathgate_exec_options *opts,
                                              pathgate_error *err);

/* The Landlock ABI a command would run under now: the kernel's, capped at
 * the highest this build knows (7); 0 when the kernel has none. */
PATHGATE_EXTERN int pathgate_exec_landlock_abi(void);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_EXEC_H */
