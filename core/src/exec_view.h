/*
 * exec_view.h - internal: the command's view of the world (docs/exec.md,
 * "The view").
 *
 * The parent builds a plan (every string and descriptor the child needs,
 * allocated before the clone); the child, as pid 1 of new user, mount,
 * PID, IPC and UTS namespaces, carries it out with raw system calls only:
 * maps its uid/gid, assembles a tmpfs root holding the bases at
 * `/root:<key>` and `/mod:<Name>` (the view spelling of their canonical
 * addresses), the system directories read-only, a private /tmp and
 * /dev/shm, a minimal /dev and /etc, the /proc of its PID namespace, then
 * pivots into it, detaches the host's tree and enters the working
 * directory.
 */
#ifndef PATHGATE_EXEC_VIEW_H
#define PATHGATE_EXEC_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pathgate/common.h"

/* Where the child assembles the view inside its own mount namespace: the
 * view's root tmpfs is mounted on /tmp (the host's /tmp is untouched) and
 * pivoted to; the host's tree then lies under PATHGATE__VIEW_OLD until it
 * is detached. Destinations are absolute paths of the view. */
#define PATHGATE__VIEW_STAGE ""
#define PATHGATE__VIEW_OLD "/.pathgate-host"

enum pathgate__view_op_kind {
    PATHGATE__VOP_DIR,   /* mkdir dst */
    PATHGATE__VOP_FILE,  /* create an empty file dst (a mount point) */
    PATHGATE__VOP_BIND,  /* bind src (PATHGATE__VIEW_OLD + host path) on dst, check
                          * it is (dev, ino), then set attr */
    PATHGATE__VOP_LINK,  /* symlink src at dst */
    PATHGATE__VOP_TMPFS, /* tmpfs with options src on dst (+ Landlock grant) */
    PATHGATE__VOP_PROC,  /* the PID namespace's proc on dst */
    PATHGATE__VOP_DATA,  /* a file dst holding src[0..attr) (a copy of a small /etc file) */
    PATHGATE__VOP_MOVE,  /* move the detached mount fd (made by the parent, flags set)
                          * onto dst and check it is (dev, ino) */
};

typedef struct pathgate__exec_view_op {
    int kind;
    const char *dst;
    const char *src;
    uint64_t attr; /* MOUNT_ATTR_* set after the mount */
    dev_t dev;     /* BIND: what dst must be once mounted */
    ino_t ino;
    int fd; /* MOVE: the detached mount (owned by the view) */
} pathgate__exec_view_op;

/* Distinct owners of writable bases with their idmapping user namespace. */
#define PATHGATE__VIEW_MAX_OWNERS 8

typedef struct pathgate__exec_view {
    const pathgate_allocator *alloc;
    pathgate__exec_view_op *ops;
    size_t nops, opcap;
    char **strs; /* owned strings */
    size_t nstrs, strcap;
    char uid_map[32], gid_map[32];
    char pid_max[24]; /* "" = leave the kernel's */
    const char *cwd;  /* absolute path in the view */
    dev_t cwd_dev;    /* what cwd must be once entered */
    ino_t cwd_ino;
    uint64_t tmp_rights; /* Landlock rights granted on each tmpfs */
    int nested_ro;       /* read-only bases mounted again inside writable ones */
    /* Set by pathgate__exec_view_unprivileged: uid/gid 0 of the command
     * is the host's run_uid/run_gid, maps written by the parent; bases
     * are detached mounts made by the parent, writable ones idmapped. */
    int unpriv;
    unsigned int run_uid, run_gid;
    struct {
        uid_t uid;
        gid_t gid;
        int fd;
    } owners[PATHGATE__VIEW_MAX_OWNERS];
    size_t nowners;
} pathgate__exec_view;

/* Resource settings the view needs (the rest are rlimits). */
typedef struct pathgate__exec_view_limits {
    uint64_t tmp_size;      /* bytes of the private /tmp */
    uint64_t shm_size;      /* bytes of /dev/shm */
    unsigned int max_procs; /* PID namespace cap (pid_max); 0 = none */
} pathgate__exec_view_limits;

void pathgate__exec_view_init(pathgate__exec_view *v, const pathgate_allocator *alloc);
void pathgate__exec_view_dispose(pathgate__exec_view *v);

/* Before any base is added: run the command as host run_uid/run_gid
 * (the caller is privileged; exec_idmap.h). */
void pathgate__exec_view_unprivileged(pathgate__exec_view *v, unsigned int run_uid,
                                      unsigned int run_gid);

/* Mounts the directory fd (its current host path, checked by the child)
 * at "/<name>" (name: `root:<key>` or `mod:<Name>`),
 * read-only or not; always nosuid, nodev. PATHGATE_ENOMEM / EINVAL, or
 * (unprivileged view) PATHGATE_EUNSUPPORTED when the base cannot be
 * idmapped (its filesystem or the kernel does not allow it). */
int pathgate__exec_view_add_base(pathgate__exec_view *v, int fd, const char *name, int read_only);

/* Mounts fd read-only again at "/<outer>/<rel>": a read-only base that
 * lies inside the writable base `outer` stays read-only through it. */
int pathgate__exec_view_add_nested(pathgate__exec_view *v, int fd, const char *outer,
                                   const char *rel);

/* Adds the system part (system directories, /etc entries, /dev, /tmp,
 * /dev/shm, /proc), the uid/gid maps, and the working directory:
 * cwd_view is an absolute view path ("/root:repo/src") whose directory is
 * cwd_fd (checked by the child after chdir). landlock_abi selects the
 * rights granted on the tmpfs mounts. */
int pathgate__exec_view_finish(pathgate__exec_view *v, const pathgate__exec_view_limits *lim,
                               const char *cwd_view, int cwd_fd, int landlock_abi);

/* The child's side (raw system calls, no allocation, no sanitizer):
 * returns 0, or -errno with *failed naming the step (for the message).
 * *pid_limited is set when the PID namespace cap was applied. */
long pathgate__exec_view_enter(const pathgate__exec_view *v, int ruleset_fd, const char **failed,
                               volatile int *pid_limited);

#endif
