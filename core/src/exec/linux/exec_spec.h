/*
 * exec_spec.h - internal: what the host's side of a command
 * (exec_spawn.c) and the processes it starts (exec_child.c) share: the
 * spec of a run, a keeper, a prepared start (exec_spawn.h tells what each
 * is for). Types only: the functions are exec_spawn.h's.
 */
#ifndef PATHGATE_EXEC_SPEC_H
#define PATHGATE_EXEC_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/filter.h>

#include "exec_clone.h"
#include "exec_policy.h"
#include "exec_seccomp.h"
#include "exec_template.h"
#include "exec_view.h"
#include "netproxy.h"
#include "pathgate/exec.h"

typedef struct pathgate__exec_keeper pathgate__exec_keeper;
typedef struct pathgate__exec_prep pathgate__exec_prep;

/* Resource limits set (soft = value, hard = value + grace; never above
 * the caller's hard limit). A grace (RLIMIT_CPU: 1 s) lets the soft
 * limit's signal (SIGXCPU) come first, so the status names the limit. */
#define PATHGATE__EXEC_MAX_RLIMITS 8
typedef struct pathgate__exec_rlimit {
    int resource;
    unsigned long long value;
    unsigned long long grace;
} pathgate__exec_rlimit;

/* A command's network allowlist (docs/exec.md "Network"): what the init
 * needs to start the bridge (netproxy.h) in the command's network
 * namespace before the shell. The proxy's socket is passed by descriptor:
 * socket_fd (O_PATH, the host's) is in the init's table as child_fd (the
 * same number in a copy of the host's table; a prepared init receives
 * it), reached as child_path ("/proc/self/fd/<child_fd>") from the
 * bridge; the socket appears nowhere in the view. stack and mem are the
 * bridge's (it shares the host's memory): freed only after the call. */
typedef struct pathgate__exec_net {
    int socket_fd;
    int child_fd;                     /* set by the host, or by a prepared init */
    char child_path[32];              /* likewise */
    char *stack;                      /* top of PATHGATE__EXEC_STACK bytes */
    void *mem;                        /* PATHGATE__NETPROXY_BRIDGE_MEM bytes */
    pathgate__netproxy_bridge bridge; /* its sockets, set by the init */
} pathgate__exec_net;

/* CAP_CHOWN, CAP_FOWNER, CAP_KILL */
#define PATHGATE__KEEP_CAPS_OWNER 0x1u
/* CAP_SETUID, CAP_SETGID (only with pids and memory groups: the
 * RLIMIT_NPROC and RLIMIT_MSGQUEUE that stand in for them count per uid) */
#define PATHGATE__KEEP_CAPS_SETID 0x2u

typedef struct pathgate__exec_spec {
    char *const *argv; /* argv[0] is the program path */
    char *const *envp;
    int cwd_fd;                      /* without a view: the working directory (O_PATH is fine) */
    int ruleset_fd;                  /* Landlock ruleset to enforce; -1 = none */
    const struct sock_fprog *filter; /* seccomp filter; NULL = none ... */
    unsigned int filter_flags;       /* ... built for these flags */
    /* With a view (tpl != NULL): */
    const pathgate__exec_template *tpl;
    const pathgate__exec_view *cmd; /* the command's own mounts */
    const char *cwd_view;           /* the working directory in the view ... */
    dev_t cwd_dev;                  /* ... and what it must be */
    ino_t cwd_ino;
    int netns_fd;        /* >= 0 join it; PATHGATE__NETNS_NEW make one; _HOST keep the host's */
    int cgroup_procs[2]; /* cgroup.procs to join (-1 = none) */
    /* starts the command in its control group; NULL = the shell joins it */
    pathgate__exec_keeper *keeper;
    /* its start made ahead (ready); NULL = made now */
    pathgate__exec_prep *prep;
    /* the group's out-of-memory events, handled here (exec_supervise.h) */
    int oom_fd;
    void (*oom_kill)(void *ctx, pid_t init);
    void *oom_ctx;
    unsigned int timeout_ms; /* > 0 */
    size_t output_cap;
    const pathgate_allocator *alloc;
    pathgate__exec_rlimit rlimits[PATHGATE__EXEC_MAX_RLIMITS];
    size_t nrlimits;
    /* the network allowlist's bridge (with a view, never prepared
     * ahead); NULL = none */
    pathgate__exec_net *net;
    /* With a view: the policy's masks, made by the first process of the
     * command's mount namespace at the call (exec_policy.h); NULL = none */
    const struct pathgate__exec_masks *masks;
    /* With a view whose uid 0 is not the host's and which maps a range of
     * ids (exec_idmap.h): the capabilities of ownership changes the shell
     * keeps in the view's user namespace (exec_child.c, step 7), as
     * PATHGATE__KEEP_CAPS_* bits; 0 = none */
    unsigned int keep_caps;
    /* With a view, without keep_caps: the filter that answers EPERM to an
     * id change the kernel would refuse with EINVAL (exec_seccomp.h),
     * added by the shell after the main one; NULL = none */
    const struct sock_fprog *ids_filter;
} pathgate__exec_spec;

#define PATHGATE__NETNS_NEW (-1)
#define PATHGATE__NETNS_HOST (-2)

/*
 * A keeper: a process that lives in a command control group and starts
 * each command's first process there, so that no process of a command is
 * ever moved into it (a move, cgroup.procs written, waits for an RCU grace
 * period once the kernel has been idle: ~10-20 ms a command here). It
 * shares the host's memory and descriptor table, makes raw system calls
 * only, ends within a second of the host process (its end, or an execve
 * that replaced its memory), and reaps the inits of its commands (they
 * are its children). Since it (and each init) shares
 * the host's memory, the kernel's OOM killer must never pick it (it would
 * end every process of that memory, the host's too): its groups have the
 * killer disabled and the supervisor picks the victim (exec_cgroup.h).
 */
struct pathgate__exec_keeper {
    pid_t pid;
    int pidfd;        /* the host's, to see it die */
    int req_r, req_w; /* a command: the address of its child_args */
    int ack_r, ack_w; /* 'r' once ready, 'd' when the command's init runs */
    int procs[2];     /* the groups' cgroup.procs it joins (-1 = none) */
    void *stack;
    pathgate__clone_func do_clone;
    /* What every command it starts shares, set up once in it: signal
     * dispositions back to default, an anonymous session keyring, and the
     * seccomp filter of these flags but setns (its joiners need it; each
     * shell adds a filter refusing setns). */
    pathgate__exec_seccomp seccomp;
    unsigned int seccomp_flags;
    volatile int failed; /* errno of its set-up */
};

/*
 * A command's start made ahead ("prepared"): once a command of a prepared
 * view has ended, the next one's namespaces are made while the caller
 * goes on. A preparer (a keeper's child, or the host thread's without a
 * keeper; sharing the host's memory and descriptor table) joins the
 * prepared view's user and mount namespaces and a network namespace,
 * makes new mount, IPC, UTS and PID namespaces and the private mounts,
 * opens the private mounts for their Landlock rules, starts the init
 * (pid 1, its own copy of the descriptor table) and exits. The init
 * mounts its proc, keeps nothing but its end of a socket pair, says
 * ready, and waits. A command for the same view, private mounts and
 * parent sends it its child_args and its descriptors (standard input,
 * output, done pipe, ruleset) over the socket: the init enters the
 * working directory and goes on as any init. Closing the socket
 * cancels it. The call then costs about what starting a process costs.
 */
#define PATHGATE__PREP_MAX_RULES 4
struct pathgate__exec_prep {
    /* what it is for (set before pathgate__exec_prep_start) */
    unsigned long long serial; /* the prepared view's (exec_template.h) */
    int userns_fd, mntns_fd;   /* dups, owned */
    int unpriv;
    int netns_fd;  /* to join (owned), or PATHGATE__NETNS_NEW ... */
    int check_net; /* ... unless something is left in it: then a new one */
    /* the seccomp filter the init sets (the commands' shells then need
     * not), the commands' of these flags */
    int has_filter;
    unsigned int filter_flags;
    pathgate__exec_seccomp seccomp;
    volatile int filter_set;
    pathgate_allocator alloc;      /* libc's: cmd's */
    pathgate__exec_view cmd;       /* the private mounts (owned) */
    pathgate__exec_keeper *keeper; /* its parent; NULL: the calling thread */
    pid_t keeper_pid;
    pid_t owner; /* the process it was made for (not a fork of it) */
    /* what it made (descriptors in the shared table, owned) */
    volatile int made_netns;
    int rule_fd[PATHGATE__PREP_MAX_RULES];
    uint64_t rule_rights[PATHGATE__PREP_MAX_RULES];
    volatile int nrules;
    volatile pid_t init_pid;
    volatile int init_pidfd;
    /* the preparer */
    pathgate__clone_func do_clone;
    volatile pid_t pid;
    volatile int pidfd;    /* set by whoever started it ... */
    volatile int launched; /* ... before this: 1 (started, or failed to: error set) */
    int used;              /* its init ran a command */
    int go[2];             /* socket pair: [0] the host's end, [1] the init's ... */
    int go1_closed;        /* ... closed here once the init has its own copy */
    int ack_r, ack_w;      /* 'p' (the preparer is done), 'r' (the init waits), or 'x'
                         * (failed: error, step) */
    int ready;             /* how many of 'p' and 'r' were read */
    void *stack;           /* the preparer's, the init's, the shell's */
    volatile int error;
    const char *volatile step;
};

/* The seccomp flags of the commands a keeper starts (a view, a memory
 * cgroup). */
#define PATHGATE__KEEPER_SECCOMP_FLAGS                                                             \
    (PATHGATE__SECCOMP_NETWORK | PATHGATE__SECCOMP_OWN_PIDNS | PATHGATE__SECCOMP_OWN_IPC)

#endif
