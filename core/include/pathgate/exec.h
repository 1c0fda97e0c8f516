/*
 * pathgate/exec.h - contained command execution (docs/spec.md section 7b;
 * docs/exec.md).
 *
 * pathgate_exec_run() runs `/bin/sh -c <command>` in a child process that
 * sees a view of the bases, not the host, and is confined by the kernel
 * before the shell starts:
 *
 *  - Namespaces: new user (a root caller's command is uid 0 inside and the
 *    host's 65534 outside, its writable bases idmapped so that what it
 *    creates there is owned by the base's owner; an unprivileged caller's
 *    uid and gid mapped to themselves, nothing else), mount, PID (pathgate's init is pid 1, reaps orphans and
 *    exits with the shell: when the shell ends, every
 *    process it started ends), IPC and UTS namespaces. The root is a
 *    read-only tmpfs holding the bases at `/root:<key>` and `/mod:<Name>`
 *    (the view spelling of their canonical addresses, which the file
 *    operations accept back), read-only bases mounted read-only (also
 *    where one lies inside a writable base), every base nosuid and nodev;
 *    /usr, /bin, /sbin, /lib* and a few /etc entries read-only; /dev with
 *    null, zero, full, random, urandom and a devpts of the command's own
 *    (/dev/pts, /dev/ptmx); a private tmpfs /tmp (HOME and TMPDIR) and
 *    /dev/shm with size limits; the PID namespace's /proc, of which only
 *    the directories and the view's copies of cpuinfo, meminfo, stat,
 *    loadavg and uptime are readable. Nothing else of the host exists
 *    there.
 *  - Landlock (the best ABI the kernel offers, up to 7) on the same files:
 *    read/write beneath the bases (read and execute only for
 *    PATHGATE_BASE_READ_ONLY), read/execute on the system entries, TCP
 *    denied unless allow_network, signal and abstract-socket scoping.
 *  - PR_SET_NO_NEW_PRIVS, every capability dropped, a fresh session
 *    keyring, resource limits (processes, address space, CPU time, file
 *    size), and a seccomp filter (exec_seccomp.h lists it: setuid/setgid
 *    mode bits, keyrings, other processes' limits, nested user
 *    namespaces, process-group escapes, io_uring, sockets unless
 *    allow_network).
 *
 * What ran is reported in every result (`protections`). When a guarantee
 * cannot be given (no user namespaces; no Landlock; a root caller whose
 * writable bases cannot be idmapped; without namespaces a
 * Landlock ABI below 6, which lacks truncate control (3) and signal
 * scoping (6); no seccomp filter for the architecture) the call refuses
 * with PATHGATE_EUNSUPPORTED unless allow_unconfined ("allow weaker
 * protection") is set; it then runs with what the kernel offers.
 *
 * The call is synchronous and reentrant: any number of threads may run
 * commands at once against one resolver. It never changes the process's
 * working directory, signal handlers or environment, and the child is
 * created with CLONE_VM (the calling thread waits until the shell has
 * started) and no exit signal, so a SIGCHLD handler or a `wait(-1)`
 * elsewhere in the process neither sees nor reaps it.
 *
 * When the call returns, every process the command started has been killed
 * and reaped (the PID namespace ends with its first process).
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

/* Test-only bits of pathgate_exec_options.flags (docs/exec.md,
 * "Test-only flags"): they make a command run with less than the kernel
 * offers, so that the suites of pathgate and of its front ends can reach
 * the refusals and fallbacks of an older or more restricted kernel. Never
 * set them in production; they are not covered by any compatibility
 * promise. */
/* Behave as if the kernel had no Landlock. */
#define PATHGATE_EXEC_TEST_NO_LANDLOCK 0x1u
/* Behave as if user namespaces were unavailable. */
#define PATHGATE_EXEC_TEST_NO_NAMESPACES 0x2u
/* Behave as if the bases could not be idmapped (a root caller's command
 * cannot run as an unprivileged uid). */
#define PATHGATE_EXEC_TEST_NO_IDMAP 0x4u
/* Behave as if no control group could be had (the limits are rlimits). */
#define PATHGATE_EXEC_TEST_NO_CGROUP 0x8u
/* Behave as if the kernel's Landlock ABI were at most n (0..15). */
#define PATHGATE_EXEC_TEST_ABI_CAP(n) (((((unsigned int)(n)) & 0xfu) + 1u) << 8)

/* Defaults of the resource limits (options fields left 0). */
#define PATHGATE_EXEC_MAX_PROCESSES_DEFAULT 512u
#define PATHGATE_EXEC_MAX_MEMORY_DEFAULT (4ull << 30)    /* RLIMIT_AS, bytes */
#define PATHGATE_EXEC_MAX_CPU_DEFAULT 600u               /* seconds of CPU time */
#define PATHGATE_EXEC_MAX_FILE_SIZE_DEFAULT (1ull << 30) /* RLIMIT_FSIZE, bytes */
#define PATHGATE_EXEC_TMP_SIZE_DEFAULT (256ull << 20)    /* private /tmp, bytes */

/* Bits of pathgate_exec_result.protections: what confined the command. */
#define PATHGATE_EXEC_PROT_LANDLOCK 0x1u          /* a Landlock ruleset (any ABI) */
#define PATHGATE_EXEC_PROT_LANDLOCK_TRUNCATE 0x2u /* ... that controls truncate (ABI >= 3) */
#define PATHGATE_EXEC_PROT_LANDLOCK_SCOPE 0x4u    /* ... with signal/socket scoping (ABI >= 6) */
#define PATHGATE_EXEC_PROT_SECCOMP 0x8u           /* the seccomp filter */
#define PATHGATE_EXEC_PROT_NAMESPACES 0x10u       /* user, mount (the view), PID, IPC, UTS */
/* The number of processes bounded by a pids control group (max_processes). */
#define PATHGATE_EXEC_PROT_PID_LIMIT 0x20u
#define PATHGATE_EXEC_PROT_RLIMITS 0x40u /* CPU, FSIZE, CORE = 0 (and NPROC, AS without a group) */
/* The command ran as an unprivileged host uid/gid (65534) other than the
 * caller's root, writable bases idmapped (root callers only). */
#define PATHGATE_EXEC_PROT_UNPRIVILEGED_UID 0x80u
/* Memory bounded by a memory control group (max_memory): anonymous and
 * shared memory, tmpfs, page cache, kernel memory. */
#define PATHGATE_EXEC_PROT_MEMORY_LIMIT 0x100u
/* A network namespace of the command's own (loopback only): no host
 * network, no host abstract Unix socket. Absent with allow_network. */
#define PATHGATE_EXEC_PROT_NETWORK_NAMESPACE 0x200u
/* The network allowlist (allow_domains): the proxy and its bridge. */
#define PATHGATE_EXEC_PROT_NETWORK_ALLOWLIST 0x400u
/* A range of ids beside 0 was mapped and the capabilities of ownership
 * changes kept in the command's user namespace (root callers only;
 * docs/exec.md, "Ownership changes inside"): chown, tar as root and
 * Popen(user=) work. A convenience, not a protection: its absence is no
 * reason to refuse a command. */
#define PATHGATE_EXEC_PROT_ID_RANGE 0x800u

typedef struct pathgate_exec_options {
    unsigned int version; /* PATHGATE_EXEC_OPTIONS_VERSION */
    /* Working directory: a canonical address of an existing directory
     * (`root:<key>/<rel>` or `mod:<Name>/<rel>`). NULL = the first root
     * (pathgate_exec_run) or the session's cwd (pathgate_exec_run_session). */
    const char *cwd;
    size_t cwd_len;
    unsigned int timeout_ms; /* 0 = PATHGATE_EXEC_TIMEOUT_DEFAULT_MS */
    size_t output_cap;       /* bytes kept; 0 = PATHGATE_EXEC_OUTPUT_CAP_DEFAULT */
    /* The host's network: TCP, UDP and Unix sockets of the host's network
     * namespace (otherwise the command has its own, loopback only). */
    int allow_network;
    int allow_unconfined; /* allow weaker protection: run with what the kernel offers */
    /* NULL-terminated "KEY=VALUE" entries merged over the defaults
     * (PATH=/usr/local/bin:/usr/bin:/bin, HOME = the home directory,
     * TMPDIR=/tmp, PWD = the working directory in the view, LANG=C.UTF-8,
     * USER and LOGNAME = the command's user name): an entry replaces the
     * default of the same key, others are added. The host environment is
     * never inherited; pass `environ` to ask for it. NULL = the defaults. */
    const char *const *env;
    unsigned int flags; /* PATHGATE_EXEC_TEST_* */
    /* Version 2: resource limits; 0 = the default above. max_processes is
     * a pids control group where one can be had, else RLIMIT_NPROC;
     * max_memory a memory control group, else RLIMIT_AS. tmp_size also
     * bounds /dev/shm (a quarter of it) and the private home. */
    unsigned int max_processes;
    unsigned int max_cpu_seconds;
    unsigned long long max_memory;
    unsigned long long max_file_size;
    unsigned long long tmp_size;
    /* Version 3: the home directory: a canonical address of a directory
     * in a writable base (caches such as npm's and pip's then last from
     * one command to the next). NULL = a private one, empty for each
     * command. */
    const char *home;
    size_t home_len;
    /* Version 4: the network allowlist (docs/exec.md "Network",
     * docs/policy.md "Network allowlist"): a NULL-terminated list of host
     * patterns (`example.com`, `*.example.com`, IP literals, each with an
     * optional `:port`). Non-NULL (even empty): the command keeps its own
     * network namespace with no route out and reaches the listed names
     * through a proxy on the host (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and
     * NO_PROXY are set), every decision an audit event. NULL = none.
     * PATHGATE_EINVAL with allow_network (contradictory) or a malformed
     * entry; PATHGATE_EUNSUPPORTED without a network namespace of the
     * command's own (even with allow_unconfined). */
    const char *const *allow_domains;
    /* Version 5: toolchains of the host (docs/exec.md "Toolchains of the
     * host"): a NULL-terminated list of absolute host paths of
     * directories (a venv, ~/.pyenv, a node installation), each opened
     * and checked as a root is (it exists, is a directory, is not `/`,
     * not a home directory nor an ancestor of one; no `.` or `..`
     * component) and shown read-only (read and execute, never write;
     * nosuid, nodev) at /pathgate/tool/<its last component>, or, with
     * toolchains_at_host_path, at its own host path (which commands then
     * learn: the operator's explicit choice). Each one's `bin`, where it
     * has one, comes first in the default PATH, in the order given (an
     * `env` PATH replaces it). At most PATHGATE_EXEC_TOOLCHAINS_MAX.
     * PATHGATE_EINVAL for an entry that fails a check (the message names
     * its index, never the path). NULL = none. */
    const char *const *toolchains;
    int toolchains_at_host_path;
    /* Version 6: the host ids a root caller's command may take beside its
     * uid and gid 0 (docs/exec.md "Ownership changes inside"), as an
     * /etc/subuid entry `root:id_range_first:id_range_count` would give
     * them: inside k (1 <= k < count, at most 65533) is the host's
     * first + k, for uids and gids. id_range_count 0 = the default:
     * root's own /etc/subuid and /etc/subgid entries, else the dedicated
     * range PATHGATE_EXEC_ID_RANGE_DEFAULT_FIRST (+1 .. +65533), or none
     * when that range fails the checks below. 1 = none (only 0 is
     * mapped: a change to another id fails with EPERM). A range is
     * refused (PATHGATE_EINVAL) when it holds an id below 65536 (the
     * users' and the system's), a uid of /etc/passwd, a gid of
     * /etc/group, or a range of /etc/subuid or /etc/subgid (but root's).
     * A caller other than root: its own subordinate ids, mapped through
     * /usr/bin/newuidmap and newgidmap (docs/exec.md "Ownership changes
     * inside"): count 0 = its /etc/subuid and /etc/subgid entries (inside
     * 0 is the caller, inside k the entry's first + k - 1) where it has
     * both and the helpers are installed, else none; an explicit range
     * (inside k is first + k) must lie inside one of its subuid entries
     * and one of its subgid entries and pass the checks above, or is
     * refused (PATHGATE_EINVAL). */
    unsigned int id_range_first;
    unsigned int id_range_count;
} pathgate_exec_options;

/* The first host id of the default range (0x7F000000: below 2^31, outside
 * systemd's documented allocations). */
#define PATHGATE_EXEC_ID_RANGE_DEFAULT_FIRST 2130706432u

/* Most toolchains of one command. */
#define PATHGATE_EXEC_TOOLCHAINS_MAX 8

/* Versions 1 (without the limits), 2 (without home), 3 (without
 * allow_domains), 4 (without toolchains) and 5 (without id_range_*) are
 * still accepted. */
#define PATHGATE_EXEC_OPTIONS_VERSION 6
#define PATHGATE_EXEC_OPTIONS_INIT                                                                 \
    {                                                                                              \
        PATHGATE_EXEC_OPTIONS_VERSION, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0, 0, NULL, 0, NULL, \
            NULL, 0, 0, 0                                                                          \
    }
/* Fills opts as PATHGATE_EXEC_OPTIONS_INIT does. 0, or PATHGATE_EINVAL when opts is
 * NULL or version is not PATHGATE_EXEC_OPTIONS_VERSION. For callers without C macros. */
PATHGATE_EXTERN int pathgate_exec_options_init(pathgate_exec_options *opts, unsigned int version);

/* Caller-owned result. output holds the merged stdout and stderr bytes (not
 * necessarily UTF-8), at most output_cap of them; truncated says more were
 * written (and discarded). exit_code is the shell's exit status, 128+N when
 * it died of signal N, and PATHGATE_EXEC_EXIT_TIMEOUT (with timed_out) when
 * the timeout killed it. landlock_abi is the Landlock ABI enforced, 0 when
 * the command ran without Landlock; protections the PATHGATE_EXEC_PROT_*
 * bits of what confined it. When pathgate made the command fail (a limit
 * killed it, a command is not in the view, the network is off, the
 * allowlist refused a host), the output ends with a line beginning
 * "pathgate: " that says so (docs/exec.md "What a result says"). */
typedef struct pathgate_exec_result {
    pathgate_buf output;
    int exit_code;
    int truncated;
    int timed_out;
    int landlock_abi;
    unsigned int protections;
    /* Links the command left at protected names, moved out of the base
     * when it ended (docs/exec.md "Planted links"): their canonical
     * addresses, each NUL-terminated, one after the other. */
    pathgate_buf quarantined;
    size_t nquarantined;
} pathgate_exec_result;

#define PATHGATE_EXEC_RESULT_INIT                                                                  \
    {                                                                                              \
        PATHGATE_BUF_INIT, 0, 0, 0, 0, 0, PATHGATE_BUF_INIT, 0                                     \
    }

/* Frees the output and resets the result. NULL is a no-op. */
PATHGATE_EXTERN void pathgate_exec_result_dispose(pathgate_exec_result *res);

/*
 * Runs command[0..len) (any bytes but NUL; at most
 * PATHGATE_EXEC_COMMAND_MAX). opts NULL = defaults. Returns 0 when the
 * command ran (whatever its exit status) and *out holds the result;
 * otherwise a negative code and *out left INIT: EINVAL (bad options or
 * environment entry), ENUL, ETOOLONG, EINVALIDPATH / ENOTDIR (cwd),
 * EUNSUPPORTED (a guarantee is missing and not allow_unconfined), ENOMEM, EIO (the
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

/*
 * Checks a network allowlist (allow_domains entries, n of them) as a
 * command given it would, without running anything: for a configuration
 * loaded ahead of its first command. 0 when every entry is well-formed;
 * EINVAL naming the first malformed entry (or too many entries), ENOMEM.
 */
PATHGATE_EXTERN int pathgate_exec_check_allow_domains(const char *const *entries, size_t n,
                                                      pathgate_error *err);

/* The Landlock ABI a command would run under now: the kernel's, capped at
 * the highest this build knows (7); 0 when the kernel has none. */
PATHGATE_EXTERN int pathgate_exec_landlock_abi(void);

/* The message of every command call in a build without commands (the
 * POSIX backend, Windows): PATHGATE_EUNSUPPORTED, nothing run. */
#define PATHGATE_EXEC_UNSUPPORTED_MESSAGE                                                          \
    "commands are not supported by this build of pathgate (no contained sandbox for this OS); "    \
    "nothing was run"

/*
 * What this build's commands can get, as PATHGATE_EXEC_PROT_* bits: 0 when
 * the build has no commands (every pathgate_exec_run answers
 * PATHGATE_EUNSUPPORTED, even with allow_unconfined); on Linux every
 * protection the sandbox implements, the Landlock ones limited to what the
 * running kernel has (pathgate_exec_landlock_abi). What one command
 * actually got is its result's `protections`.
 */
PATHGATE_EXTERN unsigned int pathgate_exec_capabilities(void);

/*
 * The checks the `toolchains` option's directories get at every call
 * (docs/exec.md "Toolchains of the host"), alone, for a front end that
 * takes its configuration ahead of the calls: `list` NULL-terminated (NULL
 * = none), at_host_path and base_home as the options' toolchains_at_host_path
 * and a `home` inside a base. 0, or PATHGATE_EINVAL / ETOOLONG / ENOMEM
 * with err set (the message names the entry by its index, never its path);
 * PATHGATE_EUNSUPPORTED in a build without commands.
 */
PATHGATE_EXTERN int pathgate_exec_check_toolchains(const char *const *list, int at_host_path,
                                                   int base_home, pathgate_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_EXEC_H */
