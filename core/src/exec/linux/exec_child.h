/*
 * exec_child.h - internal: the processes pathgate starts for a command
 * (exec_spawn.h tells which and why) as the host's side (exec_spawn.c)
 * sees them: their arguments, where one failed, the requests a keeper
 * takes, their entry points. Their code (exec_child.c) runs in memory
 * shared with the host process, so it makes raw system calls only
 * (exec_raw.h).
 */
#ifndef PATHGATE_EXEC_CHILD_H
#define PATHGATE_EXEC_CHILD_H

#include "exec_spec.h"

/* A child's stack; a region of three of them (the joiner's or
 * preparer's, the init's, the shell's) serves one command. */
#define PATHGATE__EXEC_STACK (64 * 1024)
/* What a prepared init receives: standard input, output, done pipe,
 * ruleset (when there is one), the network proxy's socket (when
 * spec->net). */
#define PATHGATE__EXEC_PREP_FDS 5

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

/* (exec_child.c) */
extern const char *const pathgate__exec_stage_names[];

typedef struct child_args {
    const pathgate__exec_spec *spec;
    int devnull;
    int pipe_w;
    int done_w;
    int cwd_fd;
    int ruleset_fd;
    pathgate__clone_func do_clone;
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

enum { KEEPER_JOIN = 1, KEEPER_PREPARE = 2, KEEPER_PLAIN = 3 };

/* A request to a keeper: start a joiner now (ptr: its child_args), a
 * preparer (ptr: its prep), or a command without a view (ptr: its
 * child_args; the child is the host's, its pid and pidfd in init_pid and
 * init_pidfd). */
typedef struct keeper_req {
    long kind;
    void *ptr;
} keeper_req;

/* Entry points (clone(2) functions; arguments: child_args, or for the
 * keeper its pathgate__exec_keeper, for a preparer its
 * pathgate__exec_prep). The first three only where PG_RAW_INLINE. */
int pathgate__exec_keeper_main(void *keeper);
int pathgate__exec_joiner_main(void *args);
int pathgate__exec_preparer_main(void *prep);
int pathgate__exec_plain_main(void *args);

#endif
