/*
 * exec_cgroup.h - internal: a control group per command (docs/exec.md,
 * "Memory and processes").
 *
 * Bounds a command's memory (anonymous, shared memory and tmpfs, page
 * cache, kernel memory) with the memory controller and its processes
 * with the pids controller, wherever this process may create groups:
 *  - cgroup v2: a sibling of the process's own group, in a parent that
 *    is delegated to it (writable, with memory and pids in its
 *    cgroup.subtree_control), as systemd's delegated units are;
 *  - cgroup v1: a child of the process's own group in the memory and
 *    the pids hierarchies (root, or a delegated group).
 * Groups are made once per process (`pathgate-<pid>-<n>`) and reused by
 * later commands: making and removing one waits for the kernel (up to
 * milliseconds), and so does moving a process into one (an RCU grace
 * period, ~10-20 ms here once the kernel has been idle). So, for a root
 * caller, each group has a keeper (exec_spawn.h), moved in once, that
 * starts each command's first process: born in the group, nothing is
 * moved per command. Otherwise the command's shell moves itself in
 * (writes "0" to the descriptors of cgroup.procs, opened here), so that
 * pathgate's init, which shares the host's memory, is not in it. A group
 * is given to one command at a time, after every process of the previous
 * one has been reaped. Groups left by a process that died are removed by
 * the next one that looks.
 */
#ifndef PATHGATE_EXEC_CGROUP_H
#define PATHGATE_EXEC_CGROUP_H

#include <sys/types.h>

typedef struct pathgate__exec_cgroup pathgate__exec_cgroup;

/* What a group bounds (PATHGATE_EXEC_PROT_MEMORY_LIMIT / PID_LIMIT). */
#define PATHGATE__CGROUP_MEMORY 0x1u
#define PATHGATE__CGROUP_PIDS 0x2u

/* A group for one command with these limits (bytes, processes), or NULL
 * when none can be had here. *what gets the PATHGATE__CGROUP_* bits it
 * enforces. */
pathgate__exec_cgroup *pathgate__exec_cgroup_acquire(unsigned long long memory, unsigned int pids,
                                                     unsigned int *what);

/* Gives the group back (every process of the command reaped). */
void pathgate__exec_cgroup_release(pathgate__exec_cgroup *g);

/* The group's keeper (exec_spawn.h), which starts commands in it; NULL
 * when it has none (then the shell moves itself in). */
struct pathgate__exec_keeper *pathgate__exec_cgroup_keeper(pathgate__exec_cgroup *g);

/* Where the group's keeper keeps the next command's start (exec_spawn.h;
 * taken and put with atomic exchanges); NULL without a keeper. */
struct pathgate__exec_prep **pathgate__exec_cgroup_prep(pathgate__exec_cgroup *g);

/* With a keeper (cgroup v1): the kernel's OOM killer is off in the
 * group, and this eventfd (-1: none) is readable when the group is out of
 * memory; then pathgate__exec_cgroup_oom_kill ends the process of the
 * command holding the most memory (as the kernel's killer would choose;
 * never pathgate's own, which share the host's memory), or when there is
 * none the whole command (its init). */
int pathgate__exec_cgroup_oom_fd(const pathgate__exec_cgroup *g);
void pathgate__exec_cgroup_oom_kill(pathgate__exec_cgroup *g, pid_t init);

/* The open cgroup.procs descriptors (-1 for none) to join it by. */
void pathgate__exec_cgroup_procs(const pathgate__exec_cgroup *g, int fds[2]);

/* What this process can have (PATHGATE__CGROUP_* bits; looked up once). */
unsigned int pathgate__exec_cgroup_available(void);

#endif
