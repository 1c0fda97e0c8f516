/* exec_view.c - the command's view: the plan (parent) and its execution
 * (children, raw system calls). exec_view.h describes both. */
#define _GNU_SOURCE
#include "exec_view.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "alloc.h"
#include "exec_idmap.h"
#include "exec_landlock.h"
#include "exec_raw.h"

#define PG_MOVE_MOUNT_F_EMPTY_PATH 0x4
#define PG_MOVE_MOUNT_T_EMPTY_PATH 0x40
#define PG_OPEN_TREE_CLONE 1u
#define PG_AT_RECURSIVE 0x8000
#define PG_RESOLVE_NO_MAGICLINKS 0x02
#define PG_RESOLVE_NO_SYMLINKS 0x04
#define PG_RESOLVE_BENEATH 0x08
#define PG_MOUNT_ATTR_RDONLY 0x1ULL
#define PG_MOUNT_ATTR_NOSUID 0x2ULL
#define PG_MOUNT_ATTR_NODEV 0x4ULL
#define PG_MOUNT_ATTR_NOEXEC 0x8ULL

struct pg_mount_attr {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

struct pg_open_how {
    uint64_t flags, mode, resolve;
};

struct pg_ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* Regular files up to this size are copied into the prepared view's root
 * rather than bound (one mount fewer per entry, and their own inodes,
 * which the view's Landlock rule on /etc covers). */
#define COPY_MAX (1024 * 1024)

/* ------------------------------------------------------------ the plan */

void pathgate__exec_view_init(pathgate__exec_view *v, const pathgate_allocator *alloc)
{
    memset(v, 0, sizeof *v);
    v->alloc = alloc;
}

void pathgate__exec_view_dispose(pathgate__exec_view *v)
{
    for (size_t i = 0; i < v->nops; i++)
        if (v->ops[i].fd >= 0)
            close(v->ops[i].fd);
    for (size_t i = 0; i < v->nowners; i++)
        close(v->owners[i].fd);
    for (size_t i = 0; i < v->nstrs; i++)
        pathgate__free(v->alloc, v->strs[i]);
    pathgate__free(v->alloc, v->strs);
    pathgate__free(v->alloc, v->ops);
    pathgate__exec_view_init(v, v->alloc);
}

static int same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

int pathgate__exec_view_same(const pathgate__exec_view *a, const pathgate__exec_view *b)
{
    if (a->nops != b->nops || a->unpriv || b->unpriv)
        return 0;
    for (size_t i = 0; i < a->nops; i++) {
        const pathgate__exec_view_op *x = &a->ops[i], *y = &b->ops[i];
        if (x->fd >= 0 || y->fd >= 0 || x->kind != y->kind || !same_str(x->dst, y->dst) ||
            (x->kind != PATHGATE__VOP_DATA && !same_str(x->src, y->src)) ||
            !same_str(x->rel, y->rel) || x->attr != y->attr || x->size != y->size ||
            x->dev != y->dev || x->ino != y->ino || x->rights != y->rights)
            return 0;
        if (x->kind == PATHGATE__VOP_DATA && x->size &&
            (!x->src || !y->src || memcmp(x->src, y->src, x->size) != 0))
            return 0;
    }
    return 1;
}

static int reserve_str(pathgate__exec_view *v)
{
    if (v->nstrs < v->strcap)
        return 0;
    char **n = pathgate__grow(v->alloc, v->strs, &v->strcap, sizeof *v->strs, 32);
    if (!n)
        return -1;
    v->strs = n;
    return 0;
}

__attribute__((format(printf, 2, 3))) static const char *strf(pathgate__exec_view *v,
                                                              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve_str(v))
        return NULL;
    char *s = pathgate__malloc(v->alloc, (size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    v->strs[v->nstrs++] = s;
    return s;
}

const char *pathgate__exec_view_str(pathgate__exec_view *v, const char *s)
{
    return strf(v, "%s", s);
}

static int reserve_op(pathgate__exec_view *v)
{
    if (v->nops < v->opcap)
        return 0;
    pathgate__exec_view_op *n = pathgate__grow(v->alloc, v->ops, &v->opcap, sizeof *v->ops, 32);
    if (!n)
        return -1;
    v->ops = n;
    return 0;
}

/* Appends op (its strings already owned by the view). */
static int add(pathgate__exec_view *v, pathgate__exec_view_op op)
{
    if (!op.dst || reserve_op(v))
        return PATHGATE_ENOMEM;
    v->ops[v->nops++] = op;
    return PATHGATE_OK;
}

static pathgate__exec_view_op op_of(int kind, const char *dst)
{
    pathgate__exec_view_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.dst = dst;
    op.fd = -1;
    return op;
}

int pathgate__exec_view_add_dir(pathgate__exec_view *v, const char *dst)
{
    return add(v, op_of(PATHGATE__VOP_DIR, strf(v, "%s", dst)));
}

int pathgate__exec_view_add_link(pathgate__exec_view *v, const char *dst, const char *target)
{
    pathgate__exec_view_op op = op_of(PATHGATE__VOP_LINK, strf(v, "%s", dst));
    if (!(op.src = strf(v, "%s", target)))
        return PATHGATE_ENOMEM;
    return add(v, op);
}

int pathgate__exec_view_add_data(pathgate__exec_view *v, const char *dst, const char *data,
                                 size_t size)
{
    if (reserve_str(v))
        return PATHGATE_ENOMEM;
    char *copy = pathgate__malloc(v->alloc, size + 1);
    if (!copy)
        return PATHGATE_ENOMEM;
    memcpy(copy, data, size);
    copy[size] = '\0';
    v->strs[v->nstrs++] = copy;
    pathgate__exec_view_op op = op_of(PATHGATE__VOP_DATA, strf(v, "%s", dst));
    op.src = copy;
    op.size = size;
    return add(v, op);
}

int pathgate__exec_view_add_proc(pathgate__exec_view *v, const char *dst)
{
    return add(v, op_of(PATHGATE__VOP_PROC, strf(v, "%s", dst)));
}

int pathgate__exec_view_add_tmpfs(pathgate__exec_view *v, const char *dst, const char *options,
                                  uint64_t rights)
{
    pathgate__exec_view_op op = op_of(PATHGATE__VOP_TMPFS, strf(v, "%s", dst));
    if (!(op.src = strf(v, "%s", options)))
        return PATHGATE_ENOMEM;
    op.attr = PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV;
    op.rights = rights;
    return add(v, op);
}

int pathgate__exec_view_add_devpts(pathgate__exec_view *v, const char *dst, uint64_t rights)
{
    pathgate__exec_view_op op = op_of(PATHGATE__VOP_TMPFS, strf(v, "%s", dst));
    /* its own instance: only the command's terminals, /dev/pts/ptmx
     * usable by everyone (the view's /dev/ptmx links to it) */
    if (!(op.src = strf(v, "%s", "newinstance,ptmxmode=0666,mode=0620")) ||
        !(op.rel = strf(v, "%s", "devpts")))
        return PATHGATE_ENOMEM;
    op.attr = PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NOEXEC;
    op.rights = rights;
    return add(v, op);
}

int pathgate__exec_view_base_dir(char *buf, size_t cap, const char *name)
{
    const char *kind, *rest;
    if (strncmp(name, "root:", 5) == 0) {
        kind = "root";
        rest = name + 5;
    } else if (strncmp(name, "mod:", 4) == 0) {
        kind = "mod";
        rest = name + 4;
    } else {
        return PATHGATE_EINVAL;
    }
    if (!*rest || strchr(rest, '/') || strcmp(rest, ".") == 0 || strcmp(rest, "..") == 0)
        return PATHGATE_EINVAL;
    int n = snprintf(buf, cap, PATHGATE__VIEW_BASES "/%s/%s", kind, rest);
    return n < 0 || (size_t)n >= cap ? PATHGATE_ETOOLONG : PATHGATE_OK;
}

/* The current host path of fd (what the kernel's d_path says now: after a
 * rename, the new name). -1 when it has none (deleted, not reachable
 * from this process's root). */
static int current_path(int fd, char *buf, size_t cap)
{
    char link[32];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, cap - 1);
    if (n <= 0 || (size_t)n >= cap - 1 || buf[0] != '/')
        return -1;
    buf[n] = '\0';
    static const char deleted[] = " (deleted)";
    size_t dl = sizeof deleted - 1;
    if ((size_t)n > dl && strcmp(buf + n - dl, deleted) == 0)
        return -1;
    return 0;
}

/* A mount point of the kind of st, then the mount from host path `host`
 * (as it is now) with attr, checked against st. */
static int bind_host(pathgate__exec_view *v, const char *host, const char *dst,
                     const struct stat *st, uint64_t attr)
{
    int rc = add(v, op_of(S_ISDIR(st->st_mode) ? PATHGATE__VOP_DIR : PATHGATE__VOP_FILE,
                          strf(v, "%s", dst)));
    if (rc)
        return rc;
    pathgate__exec_view_op op = op_of(PATHGATE__VOP_BIND, strf(v, "%s", dst));
    if (!(op.src = strf(v, PATHGATE__VIEW_OLD "%s", host)))
        return PATHGATE_ENOMEM;
    op.attr = attr;
    op.dev = st->st_dev;
    op.ino = st->st_ino;
    return add(v, op);
}

/* A regular file copied into the view (at most COPY_MAX bytes). */
static int copy_file(pathgate__exec_view *v, int fd, const char *dst, size_t size)
{
    char *data = pathgate__malloc(v->alloc, size + 1);
    if (!data)
        return PATHGATE_ENOMEM;
    size_t got = 0;
    ssize_t n;
    while (got < size && (n = pread(fd, data + got, size - got, (off_t)got)) > 0)
        got += (size_t)n;
    int rc = pathgate__exec_view_add_data(v, dst, data, got);
    pathgate__free(v->alloc, data);
    return rc;
}

int pathgate__exec_view_add_host(pathgate__exec_view *v, const char *host, int device)
{
    struct stat st;
    if (lstat(host, &st) < 0)
        return PATHGATE_OK;
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlink(host, target, sizeof target - 1);
        if (n <= 0)
            return PATHGATE_OK;
        target[n] = '\0';
        return pathgate__exec_view_add_link(v, host, target);
    }
    int fd = open(host, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        fd = open(host, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return PATHGATE_OK;
    int rc = PATHGATE_OK;
    char path[4096];
    if (fstat(fd, &st) == 0 && current_path(fd, path, sizeof path) == 0) {
        uint64_t ro = PG_MOUNT_ATTR_RDONLY | PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV;
        if (S_ISREG(st.st_mode) && st.st_size <= COPY_MAX && !device)
            rc = copy_file(v, fd, host, (size_t)st.st_size);
        else if (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))
            rc = bind_host(v, path, host, &st, ro);
        else if (S_ISCHR(st.st_mode) && device)
            rc = bind_host(v, path, host, &st, PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NOEXEC);
    }
    close(fd);
    return rc;
}

void pathgate__exec_view_unprivileged(pathgate__exec_view *v, unsigned int run_uid,
                                      unsigned int run_gid)
{
    v->unpriv = 1;
    v->run_uid = run_uid;
    v->run_gid = run_gid;
}

/* The idmapping user namespace for files owned by (uid, gid). */
static int owner_userns(pathgate__exec_view *v, uid_t uid, gid_t gid)
{
    for (size_t i = 0; i < v->nowners; i++)
        if (v->owners[i].uid == uid && v->owners[i].gid == gid)
            return v->owners[i].fd;
    if (v->nowners == PATHGATE__VIEW_MAX_OWNERS)
        return -ENOSPC;
    int fd = pathgate__exec_idmap_userns(uid, gid, v->run_uid, v->run_gid);
    if (fd >= 0) {
        v->owners[v->nowners].uid = uid;
        v->owners[v->nowners].gid = gid;
        v->owners[v->nowners++].fd = fd;
    }
    return fd;
}

/* Privileged caller: a detached copy of fd's mount made here (no host
 * path is walked by the builder, which no longer has the caller's uid),
 * idmapped when asked. */
static int tree_of(pathgate__exec_view *v, int fd, const struct stat *st, uint64_t attr, int idmap)
{
    int userns = -1;
    if (idmap && (userns = owner_userns(v, st->st_uid, st->st_gid)) < 0)
        return userns == -ENOMEM ? PATHGATE_ENOMEM : PATHGATE_EUNSUPPORTED;
    int tree = pathgate__exec_idmap_tree(fd, attr, userns);
    if (tree < 0)
        return tree == -ENOMEM ? PATHGATE_ENOMEM : PATHGATE_EUNSUPPORTED;
    return tree;
}

/* The directory fd (st: its fstat) mounted at dir with attr: found again
 * by its current host path (a caller without privilege), or a detached
 * copy of its mount made here, idmapped when asked. */
static int mount_dir(pathgate__exec_view *v, int fd, const struct stat *st, const char *dir,
                     uint64_t attr, int idmap)
{
    int rc;
    if (!v->unpriv) {
        char path[4096];
        if (current_path(fd, path, sizeof path) != 0)
            return PATHGATE_EINVAL;
        return bind_host(v, path, dir, st, attr);
    }
    if ((rc = pathgate__exec_view_add_dir(v, dir)) != 0 || reserve_op(v))
        return rc ? rc : PATHGATE_ENOMEM;
    const char *dst = strf(v, "%s", dir);
    if (!dst)
        return PATHGATE_ENOMEM;
    int tree = tree_of(v, fd, st, attr, idmap);
    if (tree < 0)
        return tree;
    pathgate__exec_view_op op = op_of(PATHGATE__VOP_TREE, dst);
    op.fd = tree;
    op.dev = st->st_dev;
    op.ino = st->st_ino;
    v->ops[v->nops++] = op; /* reserved above: the tree is never lost */
    return PATHGATE_OK;
}

int pathgate__exec_view_add_base(pathgate__exec_view *v, int fd, const char *name, int read_only)
{
    char dir[4200];
    struct stat st;
    if (fd < 0 || !name || pathgate__exec_view_base_dir(dir, sizeof dir, name) != 0)
        return PATHGATE_EINVAL;
    if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))
        return PATHGATE_EINVAL;
    uint64_t attr = PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV;
    if (read_only)
        attr |= PG_MOUNT_ATTR_RDONLY;
    int rc = pathgate__exec_view_add_dir(v, PATHGATE__VIEW_BASES);
    if (!rc) {
        /* the kind directory: everything up to the last `/` */
        char kind[64];
        size_t klen = (size_t)(strrchr(dir, '/') - dir);
        snprintf(kind, sizeof kind, "%.*s", (int)klen, dir);
        rc = pathgate__exec_view_add_dir(v, kind);
    }
    /* `/root:<key>` -> pathgate/root/<key>: the agent's spelling names
     * the same files inside a command */
    if (!rc) {
        char link[4200];
        snprintf(link, sizeof link, "/%s", name);
        rc = pathgate__exec_view_add_link(v, link, dir + 1);
    }
    if (rc)
        return rc;
    return mount_dir(v, fd, &st, dir, attr, !read_only);
}

int pathgate__exec_view_add_toolchain(pathgate__exec_view *v, int fd, const char *dst)
{
    struct stat st;
    if (fd < 0 || !dst || dst[0] != '/' || fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))
        return PATHGATE_EINVAL;
    /* its parents, in the view's root (the caller checked that none is
     * one of the view's own entries) */
    char dir[4200];
    int n = snprintf(dir, sizeof dir, "%s", dst);
    if (n < 0 || (size_t)n >= sizeof dir)
        return PATHGATE_ETOOLONG;
    int rc = PATHGATE_OK;
    for (char *c = dir + 1; !rc && (c = strchr(c, '/')) != NULL; c++) {
        *c = '\0';
        rc = pathgate__exec_view_add_dir(v, dir);
        *c = '/';
    }
    if (rc)
        return rc;
    return mount_dir(v, fd, &st, dst,
                     PG_MOUNT_ATTR_RDONLY | PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV, 0);
}

int pathgate__exec_view_add_nested(pathgate__exec_view *v, int inner_fd, int outer_fd,
                                   const char *outer)
{
    char dir[4200], inner[4096], outer_path[4096];
    struct stat st;
    if (inner_fd < 0 || outer_fd < 0 || pathgate__exec_view_base_dir(dir, sizeof dir, outer) != 0)
        return PATHGATE_EINVAL;
    if (fstat(inner_fd, &st) < 0)
        return PATHGATE_EINVAL;
    /* Where it is now, from the descriptors (renames followed): a base
     * that left its writable base is not reachable through it. */
    if (current_path(inner_fd, inner, sizeof inner) != 0 ||
        current_path(outer_fd, outer_path, sizeof outer_path) != 0)
        return PATHGATE_OK;
    size_t n = strlen(outer_path);
    const char *rel;
    if (n == 1) /* a base at the host's / */
        rel = inner + 1;
    else if (strncmp(inner, outer_path, n) == 0 && inner[n] == '/')
        rel = inner + n + 1;
    else
        return PATHGATE_OK;
    if (!*rel)
        return PATHGATE_OK;
    const uint64_t attr = PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV | PG_MOUNT_ATTR_RDONLY;
    if (reserve_op(v))
        return PATHGATE_ENOMEM;
    pathgate__exec_view_op op = op_of(PATHGATE__VOP_NESTED, strf(v, "%s", dir));
    op.rel = strf(v, "%s", rel);
    op.attr = attr;
    op.dev = st.st_dev;
    op.ino = st.st_ino;
    if (!op.dst || !op.rel)
        return PATHGATE_ENOMEM;
    if (v->unpriv) {
        int tree = tree_of(v, inner_fd, &st, attr, 0);
        if (tree < 0)
            return tree;
        op.fd = tree;
    } else if (!(op.src = strf(v, PATHGATE__VIEW_OLD "%s", inner))) {
        return PATHGATE_ENOMEM;
    }
    v->ops[v->nops++] = op;
    return PATHGATE_OK;
}

/* ---------------------------------------------------------- the child */

PG_NOSAN static long vstat_is(int dirfd, const char *path, int flags, dev_t dev, ino_t ino)
{
    struct stat st;
    long rc = pg_raw(SYS_newfstatat, dirfd, path, &st, flags);
    if (rc < 0)
        return rc;
    return st.st_dev == dev && st.st_ino == ino ? 0 : -EXDEV;
}

PG_NOSAN static long vopen_how(int dirfd, const char *path, uint64_t flags, uint64_t resolve)
{
    struct pg_open_how how = {flags | O_CLOEXEC, 0, resolve};
    return pg_raw(__NR_openat2, dirfd, path, &how, sizeof how);
}

PG_NOSAN static long vsetattr(int dirfd, const char *path, unsigned int flags, uint64_t attr)
{
    struct pg_mount_attr ma = {attr, 0, 0, 0};
    return pg_raw(__NR_mount_setattr, dirfd, path, flags, &ma, sizeof ma);
}

PG_NOSAN static long vgrant(int ruleset, const char *path, uint64_t rights)
{
    if (ruleset < 0 || !rights)
        return 0;
    long fd = pg_raw(SYS_openat, AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return fd;
    struct pg_ll_path_beneath pb = {rights, (int32_t)fd};
    long rc = pg_raw(PATHGATE__SYS_LANDLOCK_ADD_RULE, ruleset, 1 /* PATH_BENEATH */, &pb, 0);
    pg_raw(SYS_close, fd);
    return rc;
}

/* A detached copy of the mount of host path src (beneath the old root, no
 * symlink followed), checked to be (dev, ino), with attr set. Returns the
 * tree's fd or -errno. */
PG_NOSAN static long vclone_source(const char *src, dev_t dev, ino_t ino, uint64_t attr)
{
    long fd = vopen_how(AT_FDCWD, src, O_PATH | O_NOFOLLOW,
                        PG_RESOLVE_NO_SYMLINKS | PG_RESOLVE_NO_MAGICLINKS);
    if (fd < 0)
        return fd;
    long rc = vstat_is((int)fd, "", AT_EMPTY_PATH, dev, ino);
    unsigned int rec = 0;
    long tree = rc;
    if (!rc) {
        tree = pg_raw(__NR_open_tree, fd, "", PG_OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH);
        if (tree == -EINVAL) { /* locked mounts beneath it: take them along */
            rec = PG_AT_RECURSIVE;
            tree = pg_raw(__NR_open_tree, fd, "",
                          PG_OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | PG_AT_RECURSIVE);
        }
    }
    pg_raw(SYS_close, fd);
    if (tree < 0)
        return tree;
    if ((rc = vsetattr((int)tree, "", AT_EMPTY_PATH | rec, attr)) < 0) {
        pg_raw(SYS_close, tree);
        return rc;
    }
    return tree;
}

/* Moves tree onto dst (dirfd-relative, "" = dirfd itself). */
PG_NOSAN static long vmove(long tree, int dirfd, const char *dst)
{
    unsigned int flags = PG_MOVE_MOUNT_F_EMPTY_PATH | (*dst ? 0 : PG_MOVE_MOUNT_T_EMPTY_PATH);
    return pg_raw(__NR_move_mount, tree, "", dirfd, dst, flags);
}

PG_NOSAN static long vnested(const pathgate__exec_view_op *op)
{
    long outer = vopen_how(AT_FDCWD, op->dst, O_PATH | O_DIRECTORY,
                           PG_RESOLVE_NO_SYMLINKS | PG_RESOLVE_NO_MAGICLINKS);
    if (outer < 0)
        return outer;
    long target = vopen_how((int)outer, op->rel, O_PATH | O_DIRECTORY,
                            PG_RESOLVE_BENEATH | PG_RESOLVE_NO_SYMLINKS | PG_RESOLVE_NO_MAGICLINKS);
    pg_raw(SYS_close, outer);
    if (target < 0)
        return target == -ENOENT || target == -ENOTDIR || target == -ELOOP ? -EXDEV : target;
    long rc = vstat_is((int)target, "", AT_EMPTY_PATH, op->dev, op->ino);
    if (!rc) {
        long tree = op->fd >= 0 ? op->fd : vclone_source(op->src, op->dev, op->ino, op->attr);
        rc = tree < 0 ? tree : vmove(tree, (int)target, "");
        if (op->fd < 0 && tree >= 0)
            pg_raw(SYS_close, tree);
    }
    pg_raw(SYS_close, target);
    return rc;
}

PG_NOSAN static long vop(const pathgate__exec_view_op *op, int ruleset)
{
    long rc = 0;
    switch (op->kind) {
    case PATHGATE__VOP_DIR:
        rc = pg_raw(SYS_mkdirat, AT_FDCWD, op->dst, 0755);
        return rc == -EEXIST ? 0 : rc;
    case PATHGATE__VOP_FILE:
        rc = pg_raw(SYS_openat, AT_FDCWD, op->dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (rc >= 0)
            pg_raw(SYS_close, rc);
        return rc < 0 ? rc : 0;
    case PATHGATE__VOP_LINK:
        rc = pg_raw(SYS_symlinkat, op->src, AT_FDCWD, op->dst);
        return rc == -EEXIST ? 0 : rc;
    case PATHGATE__VOP_DATA: {
        long fd =
            pg_raw(SYS_openat, AT_FDCWD, op->dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
            return fd;
        for (size_t off = 0; off < op->size;) {
            rc = pg_raw(SYS_write, fd, op->src + off, op->size - off);
            if (rc <= 0)
                break;
            off += (size_t)rc;
            rc = 0;
        }
        pg_raw(SYS_close, fd);
        return rc < 0 ? rc : 0;
    }
    case PATHGATE__VOP_TREE:
        rc = vmove(op->fd, AT_FDCWD, op->dst);
        return rc ? rc : vstat_is(AT_FDCWD, op->dst, 0, op->dev, op->ino);
    case PATHGATE__VOP_BIND: {
        long tree = vclone_source(op->src, op->dev, op->ino, op->attr);
        if (tree < 0)
            return tree;
        rc = vmove(tree, AT_FDCWD, op->dst);
        pg_raw(SYS_close, tree);
        return rc;
    }
    case PATHGATE__VOP_NESTED:
        return vnested(op);
    case PATHGATE__VOP_PROC:
        return pg_raw(SYS_mount, "proc", op->dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    case PATHGATE__VOP_TMPFS:
        if (op->rel) /* devpts: device nodes, nothing executable */
            rc = pg_raw(SYS_mount, op->rel, op->dst, op->rel, MS_NOSUID | MS_NOEXEC, op->src);
        else
            rc = pg_raw(SYS_mount, "tmpfs", op->dst, "tmpfs", MS_NOSUID | MS_NODEV, op->src);
        return rc ? rc : vgrant(ruleset, op->dst, op->rights);
    default:
        return -EINVAL;
    }
}

PG_NOSAN long pathgate__exec_view_apply(const pathgate__exec_view *v, size_t from, size_t to,
                                        int ruleset_fd, const char **failed)
{
    for (size_t i = from; i < to && i < v->nops; i++) {
        long rc = vop(&v->ops[i], ruleset_fd);
        if (rc < 0) {
            int k = v->ops[i].kind;
            *failed = k == PATHGATE__VOP_TREE || k == PATHGATE__VOP_BIND ? "bind mount"
                      : k == PATHGATE__VOP_NESTED                        ? "nested read-only base"
                      : k == PATHGATE__VOP_TMPFS                         ? "private tmpfs"
                                                                         : "view entry";
            return rc;
        }
    }
    return 0;
}

#define FAIL(what)                                                                                 \
    do {                                                                                           \
        *failed = (what);                                                                          \
        return rc;                                                                                 \
    } while (0)

PG_NOSAN long pathgate__exec_view_build(const pathgate__exec_view *v, const char **failed)
{
    long rc;
    if ((rc = pg_raw(SYS_mount, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) < 0)
        FAIL("mount propagation");
    /* The view's root: a tmpfs on /tmp (of this mount namespace), pivoted
     * to; the host's tree moves to PATHGATE__VIEW_OLD, the source of the
     * mounts, and is detached once the view is complete. */
    if ((rc = pg_raw(SYS_mount, "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
                     "mode=0755,size=16m,nr_inodes=4096")) < 0 ||
        (rc = pg_raw(SYS_mkdirat, AT_FDCWD, "/tmp" PATHGATE__VIEW_OLD, 0700)) < 0 ||
        (rc = pg_raw(SYS_chdir, "/tmp")) < 0 ||
        (rc = pg_raw(SYS_pivot_root, ".", "." PATHGATE__VIEW_OLD)) < 0 ||
        (rc = pg_raw(SYS_chdir, "/")) < 0)
        FAIL("view root");
    if ((rc = pathgate__exec_view_apply(v, 0, v->nops, -1, failed)) < 0)
        return rc;
    if ((rc = pg_raw(SYS_umount2, PATHGATE__VIEW_OLD, MNT_DETACH)) < 0 ||
        (rc = pg_raw(SYS_unlinkat, AT_FDCWD, PATHGATE__VIEW_OLD, AT_REMOVEDIR)) < 0)
        FAIL("pivot");
    if ((rc = vsetattr(AT_FDCWD, "/", 0,
                       PG_MOUNT_ATTR_RDONLY | PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV)) < 0)
        FAIL("view root");
    return 0;
}
