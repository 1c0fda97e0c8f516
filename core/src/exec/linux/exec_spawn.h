/*
 * exec_spawn.h - internal: start a confined command, collect its output,
 * enforce the timeout, end every process of it.
 *
 * Everything the children need is prepared by the caller before the call
 * (argv, envp, descriptors, the prepared view); between clone and execve
 * they make raw system calls only (exec_raw.h: no errno, no allocation,
 * no lock), so this is safe in a multithreaded process.
 *
 * With a view (docs/exec.md, "Starting a command"), three processes, all
 * sharing the host's memory until the shell's execve (their code:
 * exec_child.c):
 *  - the joiner (a vfork child of the calling thread, or of the group's
 *    keeper) enters the prepared view's user and mount namespaces, a
 *    network namespace, and new mount, IPC, UTS and PID namespaces;
 *    mounts the command's private parts; enters the working directory;
 *    starts
 *  - the init (pid 1 of the new PID namespace, a sibling of the joiner
 *    through CLONE_PARENT): mounts its proc, starts the shell, reaps
 *    orphans; when the shell has exited it kills and reaps every other
 *    process of the namespace, records the status, ends the output and
 *    writes a byte on the `done` pipe, then exits (the call does not wait
 *    for its exit nor for its namespaces' teardown);
 *  - the shell (pid 2, its own process group) joins the command's
 *    control group unless born in it and confines itself (limits,
 *    capabilities, no_new_privs, Landlock, seccomp).
 * Usually the joiner's part was done ahead, by a preparer, and the init
 * waits for the command (pathgate__exec_prep below).
 * Without a view (weaker protection allowed) one vfork child confines
 * itself and runs the shell in the host's namespaces.
 */
#ifndef PATHGATE_EXEC_SPAWN_H
#define PATHGATE_EXEC_SPAWN_H

#include <sys/types.h>

#include "exec_spec.h"
#include "pathgate/exec.h"

/* Starts prep (its key fields set; the others are set here). 0 or
 * -errno (then prep is to be released). */
int pathgate__exec_prep_start(pathgate__exec_prep *prep);
/* 1 when its init waits for a command (waits up to wait_ms for that). */
int pathgate__exec_prep_ready(pathgate__exec_prep *prep, int wait_ms);
/* Cancels prep if unused, frees what it holds once its processes have
 * ended (later, by a later call, if they have not yet), and prep. With
 * wait, first waits (up to a second) for them to end. NULL: no-op. */
void pathgate__exec_prep_release(pathgate__exec_prep *prep, int wait);

/* Starts a keeper that joins the groups of the cgroup.procs descriptors
 * procs[0..2) (-1 = none). 0 or -errno (the caller then moves each
 * command's shell in instead). */
int pathgate__exec_keeper_start(pathgate__exec_keeper *k, const int procs[2]);
/* 1 when it is still there. */
int pathgate__exec_keeper_alive(const pathgate__exec_keeper *k);
/* Ends it (it exits on its own) and frees what the host holds of it. */
void pathgate__exec_keeper_stop(pathgate__exec_keeper *k);

/* What a run left for the caller. */
typedef struct pathgate__exec_spawned {
    int netns_fd;  /* a network namespace the command made (owned by the caller), or -1 */
    int net_clean; /* nothing was left in the command's network namespace */
} pathgate__exec_spawned;

/* 1 when this build can start a command in a view (it has the inline
 * system calls the children need: x86_64, aarch64). */
int pathgate__exec_spawn_can_view(void);

/* Runs the command to completion. Fills out->output, exit_code, truncated
 * and timed_out (landlock_abi and protections are the caller's). Returns
 * 0, or ENOMEM / EIO / EUNSUPPORTED with *out left INIT. */
int pathgate__exec_spawn(pathgate_exec_result *out, pathgate__exec_spawned *left,
                         const pathgate__exec_spec *spec, pathgate_error *err);

#endif
