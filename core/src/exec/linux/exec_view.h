/*
 * exec_view.h - internal: the command's view of the world (docs/exec.md,
 * "The view").
 *
 * A view is a plan: a list of operations (make a directory, a symlink, a
 * file holding given bytes; place a mount; mount a tmpfs or proc), every
 * string and descriptor allocated by the parent before any child runs.
 * Children carry it out with raw system calls only (exec_raw.h).
 *
 * Two plans make a command's view:
 *  - the prepared view (exec_template.h), built once per resolver by a
 *    short-lived child in new user, mount and PID namespaces: a tmpfs root
 *    holding the bases at `/pathgate/root/<key>` and `/pathgate/mod/<Name>`
 *    (with `/root:<key>` and `/mod:<Name>` symlinks to them), read-only
 *    bases nested in writable ones mounted read-only again where they now
 *    lie, the system directories, a small /etc, /dev, the mount points of
 *    the private parts; its mount namespace is then held by a descriptor;
 *  - each command's own part, applied to a copy of that namespace: the
 *    private tmpfs mounts (/tmp, /dev/shm, the home directory).
 * A resolver's policy (masking a path, mounting one read-only) is not in
 * these lists: it is made at each call (exec_policy.h).
 *
 * Every mount is placed by a descriptor, never by a path a command can
 * change: a base is a detached copy of the resolver's own descriptor's
 * mount, or (a caller without privilege) a directory found again by the
 * path its descriptor has now, opened without following symlinks and
 * checked to be the same (device, inode); a nested read-only base is
 * placed over the directory found beneath its writable base's mount the
 * same way.
 */
#ifndef PATHGATE_EXEC_VIEW_H
#define PATHGATE_EXEC_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pathgate/common.h"

/* Where the bases are, in the view: PATHGATE__VIEW_BASES "/root/<key>"
 * and PATHGATE__VIEW_BASES "/mod/<Name>". No `:`, so PATH-like variables
 * can name them. */
#define PATHGATE__VIEW_BASES "/pathgate"
/* While a prepared view is built, the host's tree lies here (detached
 * before the view is used). */
#define PATHGATE__VIEW_OLD "/.pathgate-host"
/* The system information files of the view (copies of the host's, made
 * with the prepared view), each bound over its /proc namesake by a
 * command's init once its /proc is mounted (docs/exec.md "/proc"). */
#define PATHGATE__VIEW_PROC "/var/lib/pathgate/proc"
#define PATHGATE__VIEW_PROC_FILES                                                                  \
    {                                                                                              \
        "cpuinfo", "meminfo", "stat", "loadavg", "uptime"                                          \
    }
#define PATHGATE__VIEW_PROC_NFILES 5

enum pathgate__view_op_kind {
    PATHGATE__VOP_DIR,    /* mkdir dst */
    PATHGATE__VOP_FILE,   /* an empty file dst (a mount point) */
    PATHGATE__VOP_LINK,   /* symlink src at dst */
    PATHGATE__VOP_DATA,   /* a file dst holding src[0..size) */
    PATHGATE__VOP_TREE,   /* move the detached mount fd (made by the parent, flags
                           * set) onto dst; check it is (dev, ino) */
    PATHGATE__VOP_BIND,   /* open src (a host path, beneath the old root, no
                           * symlink followed), check it is (dev, ino), clone its
                           * mount, set attr, move it onto dst */
    PATHGATE__VOP_NESTED, /* find rel beneath the mounted base dst (no symlink
                           * followed), check it is (dev, ino), put the mount of
                           * fd (or, when fd < 0, of host path src as BIND) on it */
    PATHGATE__VOP_PROC,   /* a proc of the current PID namespace on dst */
    PATHGATE__VOP_TMPFS,  /* a tmpfs with options src on dst (rel non-NULL: a
                           * filesystem of that type, devpts); Landlock grants
                           * rights */
};

typedef struct pathgate__exec_view_op {
    int kind;
    const char *dst;
    const char *src;
    const char *rel; /* NESTED */
    uint64_t attr;   /* MOUNT_ATTR_* set (BIND, NESTED by path, TMPFS) */
    size_t size;     /* DATA */
    dev_t dev;       /* TREE, BIND, NESTED: what the mount point must be */
    ino_t ino;
    int fd;          /* TREE, NESTED: the detached mount (owned by the view); -1 */
    uint64_t rights; /* TMPFS: Landlock rights granted on it */
} pathgate__exec_view_op;

/* Distinct owners of writable bases with their idmapping user namespace. */
#define PATHGATE__VIEW_MAX_OWNERS 8

typedef struct pathgate__exec_view {
    const pathgate_allocator *alloc;
    pathgate__exec_view_op *ops;
    size_t nops, opcap;
    char **strs; /* owned strings and data */
    size_t nstrs, strcap;
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

void pathgate__exec_view_init(pathgate__exec_view *v, const pathgate_allocator *alloc);
void pathgate__exec_view_dispose(pathgate__exec_view *v);

/* 1 when a and b make the same mounts from paths and options alone (no
 * descriptor in either): what a prepared start (exec_spawn.h) is for. */
int pathgate__exec_view_same(const pathgate__exec_view *a, const pathgate__exec_view *b);

/* Before any base is added: run the command as host run_uid/run_gid
 * (the caller is privileged; exec_idmap.h). */
void pathgate__exec_view_unprivileged(pathgate__exec_view *v, unsigned int run_uid,
                                      unsigned int run_gid);

/* The view directory of a base named `root:<key>` or `mod:<Name>` into
 * buf ("/pathgate/root/<key>"). PATHGATE_EINVAL when the name has another
 * form or cannot be a directory name (`.`, `..`, a `/`), PATHGATE_ETOOLONG. */
int pathgate__exec_view_base_dir(char *buf, size_t cap, const char *name);

/* A copy of the string (owned by the view); NULL on ENOMEM. */
const char *pathgate__exec_view_str(pathgate__exec_view *v, const char *s);

/* Plain entries (dst: an absolute view path; copied). PATHGATE_ENOMEM. */
int pathgate__exec_view_add_dir(pathgate__exec_view *v, const char *dst);
int pathgate__exec_view_add_link(pathgate__exec_view *v, const char *dst, const char *target);
int pathgate__exec_view_add_data(pathgate__exec_view *v, const char *dst, const char *data,
                                 size_t size);
int pathgate__exec_view_add_proc(pathgate__exec_view *v, const char *dst);
/* A tmpfs (options: the mount data) granted `rights` by Landlock. */
int pathgate__exec_view_add_tmpfs(pathgate__exec_view *v, const char *dst, const char *options,
                                  uint64_t rights);

/* A devpts instance of the command's own on dst (its terminals only),
 * granted `rights` by Landlock. */
int pathgate__exec_view_add_devpts(pathgate__exec_view *v, const char *dst, uint64_t rights);

/* The host entry `host` (an absolute path, opened as it is now) shown at
 * the same path, read-only, nosuid, nodev (noexec and read-write for
 * `device`): a directory or device bound, its mount point made. A missing
 * entry is skipped (0). PATHGATE_ENOMEM. */
int pathgate__exec_view_add_host(pathgate__exec_view *v, const char *host, int device);

/* Mounts the directory fd at the base directory of `name` (`root:<key>`
 * or `mod:<Name>`), read-only or not; always nosuid, nodev; and the
 * `/<name>` symlink to it. PATHGATE_ENOMEM / EINVAL, or (unprivileged
 * view) PATHGATE_EUNSUPPORTED when the base cannot be idmapped. */
int pathgate__exec_view_add_base(pathgate__exec_view *v, int fd, const char *name, int read_only);

/* Mounts the directory fd read-only, nosuid, nodev at the absolute view
 * path dst (a toolchain of the host, exec_tool.h), its parent
 * directories made in the view's root. PATHGATE_ENOMEM / EINVAL /
 * ETOOLONG / EUNSUPPORTED. */
int pathgate__exec_view_add_toolchain(pathgate__exec_view *v, int fd, const char *dst);

/* Mounts the directory inner_fd read-only again where it lies now beneath
 * the writable base outer_fd (named outer): found by its descriptor's
 * current path, so a base moved inside its root is found where it went.
 * Nothing is added when it no longer lies beneath (the writable base
 * cannot reach it). PATHGATE_ENOMEM / EINVAL / EUNSUPPORTED. */
int pathgate__exec_view_add_nested(pathgate__exec_view *v, int inner_fd, int outer_fd,
                                   const char *outer);

/* ------------------------------------------------------- child side */

/* Carries out ops[from..to) in the current mount namespace; TMPFS grants
 * go into ruleset_fd (-1: none). 0, or -errno with *failed naming the
 * step (for the message; never a path). */
long pathgate__exec_view_apply(const pathgate__exec_view *v, size_t from, size_t to, int ruleset_fd,
                               const char **failed);

/* The builder of a prepared view (new user, mount and PID namespaces,
 * its ids set): makes a tmpfs root, pivots into it, applies every
 * operation with the host's tree as the source, detaches that tree and
 * makes the root read-only. 0 or -errno with *failed set. */
long pathgate__exec_view_build(const pathgate__exec_view *v, const char **failed);

#endif
