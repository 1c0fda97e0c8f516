/* exec_view.c - the command's view: the plan (parent) and its execution
 * (child, raw system calls). */
#define _GNU_SOURCE
#include "exec_view.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "alloc.h"
#include "exec_idmap.h"
#include "exec_landlock.h"

#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#define PG_MOVE_MOUNT_F_EMPTY_PATH 0x4
#define PG_MOUNT_ATTR_RDONLY 0x1ULL
#define PG_MOUNT_ATTR_NOSUID 0x2ULL
#define PG_MOUNT_ATTR_NODEV 0x4ULL
#define PG_MOUNT_ATTR_NOEXEC 0x8ULL

struct pg_mount_attr {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

struct pg_ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* The system directories a shell needs, read-only (a symlink, as on
 * merged-/usr systems, is recreated as the same symlink). */
static const char *const system_dirs[] = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"};

/* The /etc entries shown (read-only): loader cache, name service, time
 * zone, certificates, alternatives. Not /etc itself. */
static const char *const etc_entries[] = {
    "alternatives", "gai.conf",  "gitconfig",       "group",    "host.conf", "hosts",
    "ld.so.cache",  "localtime", "nsswitch.conf",   "passwd",   "protocols", "resolv.conf",
    "services",     "ssl/certs", "ssl/openssl.cnf", "timezone",
};

static const char *const dev_nodes[] = {"null", "zero", "full", "random", "urandom"};

/* ------------------------------------------------------------ the plan */

void pathgate__exec_view_init(pathgate__exec_view *v, const pathgate_allocator *alloc)
{
    memset(v, 0, sizeof *v);
    v->alloc = alloc;
}

void pathgate__exec_view_dispose(pathgate__exec_view *v)
{
    for (size_t i = 0; i < v->nops; i++)
        if (v->ops[i].kind == PATHGATE__VOP_MOVE && v->ops[i].fd >= 0)
            close(v->ops[i].fd);
    for (size_t i = 0; i < v->nowners; i++)
        close(v->owners[i].fd);
    for (size_t i = 0; i < v->nstrs; i++)
        pathgate__free(v->alloc, v->strs[i]);
    pathgate__free(v->alloc, v->strs);
    pathgate__free(v->alloc, v->ops);
    pathgate__exec_view_init(v, v->alloc);
}

static int grow(const pathgate_allocator *a, void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    void *n = pathgate__realloc(a, *arr, ncap * elem);
    if (!n)
        return -1;
    *arr = n;
    *cap = ncap;
    return 0;
}

__attribute__((format(printf, 2, 3))) static const char *str(pathgate__exec_view *v,
                                                             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || grow(v->alloc, (void **)&v->strs, &v->strcap, v->nstrs + 1, sizeof *v->strs))
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

static int add_op_id(pathgate__exec_view *v, int kind, const char *dst, const char *src,
                     uint64_t attr, dev_t dev, ino_t ino)
{
    if (!dst || (kind != PATHGATE__VOP_DIR && kind != PATHGATE__VOP_FILE &&
                 kind != PATHGATE__VOP_PROC && !src))
        return PATHGATE_ENOMEM;
    if (grow(v->alloc, (void **)&v->ops, &v->opcap, v->nops + 1, sizeof *v->ops))
        return PATHGATE_ENOMEM;
    v->ops[v->nops++] = (pathgate__exec_view_op){kind, dst, src, attr, dev, ino, -1};
    return PATHGATE_OK;
}

static int add_op(pathgate__exec_view *v, int kind, const char *dst, const char *src, uint64_t attr)
{
    return add_op_id(v, kind, dst, src, attr, 0, 0);
}

/* The bind source of fd: its current host path under the old root, and
 * its identity for the child's check. NULL when it has none. */
static const char *source_of(pathgate__exec_view *v, int fd, dev_t *dev, ino_t *ino, int *is_dir,
                             int *rc)
{
    *rc = PATHGATE_EINVAL;
    struct stat st;
    char link[32], host[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, host, sizeof host - 1);
    if (n <= 0 || host[0] != '/' || fstat(fd, &st) < 0)
        return NULL;
    host[n] = '\0';
    *dev = st.st_dev;
    *ino = st.st_ino;
    *is_dir = S_ISDIR(st.st_mode);
    *rc = PATHGATE_ENOMEM;
    return str(v, PATHGATE__VIEW_OLD "%s", host[1] ? host : "");
}

/* A mount point (directory or file as the source is) and the bind. */
static int bind_fd(pathgate__exec_view *v, int fd, const char *dst, int mkpoint, uint64_t attr)
{
    dev_t dev;
    ino_t ino;
    int is_dir;
    int rc;
    const char *src = source_of(v, fd, &dev, &ino, &is_dir, &rc);
    if (!src)
        return rc;
    rc = PATHGATE_OK;
    if (mkpoint)
        rc = add_op(v, is_dir ? PATHGATE__VOP_DIR : PATHGATE__VOP_FILE, dst, NULL, 0);
    if (!rc)
        rc = add_op_id(v, PATHGATE__VOP_BIND, dst, src, attr, dev, ino);
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

/* Unprivileged view: a detached copy of the base made here (no host path
 * is walked by the child, which no longer has the caller's uid), idmapped
 * when writable; the child moves it onto dst. */
static int tree_op(pathgate__exec_view *v, int fd, const char *dst, int mkpoint, uint64_t attr,
                   int idmap)
{
    struct stat st;
    if (!dst)
        return PATHGATE_ENOMEM;
    if (fstat(fd, &st) < 0)
        return PATHGATE_EINVAL;
    int userns = -1;
    if (idmap && (userns = owner_userns(v, st.st_uid, st.st_gid)) < 0)
        return userns == -ENOMEM ? PATHGATE_ENOMEM : PATHGATE_EUNSUPPORTED;
    int rc = PATHGATE_OK;
    if (mkpoint)
        rc = add_op(v, S_ISDIR(st.st_mode) ? PATHGATE__VOP_DIR : PATHGATE__VOP_FILE, dst, NULL, 0);
    if (rc)
        return rc;
    /* reserve the slot first: a made tree is never lost */
    if (grow(v->alloc, (void **)&v->ops, &v->opcap, v->nops + 1, sizeof *v->ops))
        return PATHGATE_ENOMEM;
    int tree = pathgate__exec_idmap_tree(fd, attr, userns);
    if (tree < 0)
        return tree == -ENOMEM ? PATHGATE_ENOMEM : PATHGATE_EUNSUPPORTED;
    v->ops[v->nops++] =
        (pathgate__exec_view_op){PATHGATE__VOP_MOVE, dst, NULL, 0, st.st_dev, st.st_ino, tree};
    return PATHGATE_OK;
}

int pathgate__exec_view_add_base(pathgate__exec_view *v, int fd, const char *name, int read_only)
{
    if (fd < 0 || !name || !*name || strchr(name, '/'))
        return PATHGATE_EINVAL;
    uint64_t attr = PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV;
    if (read_only)
        attr |= PG_MOUNT_ATTR_RDONLY;
    const char *dst = str(v, PATHGATE__VIEW_STAGE "/%s", name);
    if (v->unpriv)
        return tree_op(v, fd, dst, 1, attr, !read_only);
    return bind_fd(v, fd, dst, 1, attr);
}

int pathgate__exec_view_add_nested(pathgate__exec_view *v, int fd, const char *outer,
                                   const char *rel)
{
    if (fd < 0 || !outer || !rel || !*rel)
        return PATHGATE_EINVAL;
    const char *dst = str(v, PATHGATE__VIEW_STAGE "/%s/%s", outer, rel);
    v->nested_ro++;
    /* the directory exists already (it is the base's own directory) */
    const uint64_t attr = PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV | PG_MOUNT_ATTR_RDONLY;
    if (v->unpriv)
        return tree_op(v, fd, dst, 0, attr, 0);
    return bind_fd(v, fd, dst, 0, attr);
}

/* Small regular /etc files are copied into the view's (read-only) root
 * rather than bound: a write is cheaper than a mount. */
#define COPY_MAX (64 * 1024)

static int add_copy(pathgate__exec_view *v, int fd, const char *dst, size_t size)
{
    char *data = pathgate__malloc(v->alloc, size + 1);
    if (!data)
        return PATHGATE_ENOMEM;
    size_t got = 0;
    ssize_t n;
    while (got < size && (n = pread(fd, data + got, size - got, (off_t)got)) > 0)
        got += (size_t)n;
    if (grow(v->alloc, (void **)&v->strs, &v->strcap, v->nstrs + 1, sizeof *v->strs)) {
        pathgate__free(v->alloc, data);
        return PATHGATE_ENOMEM;
    }
    v->strs[v->nstrs++] = data;
    return add_op(v, PATHGATE__VOP_DATA, dst, data, got);
}

/* An entry of the host shown read-only at the same path: a symlink is
 * recreated (follow = 0, or a link into /usr), a small regular file
 * copied when `copy`, anything else bound. Missing entries are skipped. */
static int add_system(pathgate__exec_view *v, const char *host, uint64_t attr, int follow, int copy)
{
    struct stat st;
    if (lstat(host, &st) < 0)
        return PATHGATE_OK;
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlink(host, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            if (!follow || strncmp(target, "/usr/", 5) == 0 || strncmp(target, "../usr/", 7) == 0)
                return add_op(v, PATHGATE__VOP_LINK, str(v, PATHGATE__VIEW_STAGE "%s", host),
                              str(v, "%s", target), 0);
        }
    }
    if (!follow && S_ISLNK(st.st_mode))
        return PATHGATE_OK; /* unreadable link */
    int fd = open(host, (copy ? O_RDONLY | O_NONBLOCK : O_PATH) | O_CLOEXEC);
    if (fd < 0)
        return PATHGATE_OK;
    if (fstat(fd, &st) < 0 ||
        (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))) {
        close(fd);
        return PATHGATE_OK;
    }
    int rc;
    if (copy && S_ISREG(st.st_mode) && st.st_size <= COPY_MAX)
        rc = add_copy(v, fd, str(v, PATHGATE__VIEW_STAGE "%s", host), (size_t)st.st_size);
    else
        rc = bind_fd(v, fd, str(v, PATHGATE__VIEW_STAGE "%s", host), 1, attr);
    close(fd);
    return rc == PATHGATE_EINVAL ? PATHGATE_OK : rc;
}

int pathgate__exec_view_finish(pathgate__exec_view *v, const pathgate__exec_view_limits *lim,
                               const char *cwd_view, int cwd_fd, int landlock_abi)
{
    const uint64_t ro = PG_MOUNT_ATTR_RDONLY | PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV;
    int rc = PATHGATE_OK;
    char host[64];
    for (size_t i = 0; !rc && i < sizeof system_dirs / sizeof system_dirs[0]; i++) {
        snprintf(host, sizeof host, "/%s", system_dirs[i]);
        rc = add_system(v, host, ro, 0, 0);
    }
    if (!rc)
        rc = add_op(v, PATHGATE__VOP_DIR, PATHGATE__VIEW_STAGE "/etc", NULL, 0);
    if (!rc)
        rc = add_op(v, PATHGATE__VOP_DIR, PATHGATE__VIEW_STAGE "/etc/ssl", NULL, 0);
    for (size_t i = 0; !rc && i < sizeof etc_entries / sizeof etc_entries[0]; i++) {
        snprintf(host, sizeof host, "/etc/%s", etc_entries[i]);
        rc = add_system(v, host, ro, 1, 1);
    }
    if (!rc)
        rc = add_op(v, PATHGATE__VOP_DIR, PATHGATE__VIEW_STAGE "/dev", NULL, 0);
    for (size_t i = 0; !rc && i < sizeof dev_nodes / sizeof dev_nodes[0]; i++) {
        snprintf(host, sizeof host, "/dev/%s", dev_nodes[i]);
        rc = add_system(v, host, PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NOEXEC, 1, 0);
    }
    static const char *const dev_links[][2] = {{"/proc/self/fd", "/dev/fd"},
                                               {"/proc/self/fd/0", "/dev/stdin"},
                                               {"/proc/self/fd/1", "/dev/stdout"},
                                               {"/proc/self/fd/2", "/dev/stderr"}};
    for (size_t i = 0; !rc && i < 4; i++)
        rc = add_op(v, PATHGATE__VOP_LINK, str(v, PATHGATE__VIEW_STAGE "%s", dev_links[i][1]),
                    dev_links[i][0], 0);
    if (!rc)
        rc = add_op(v, PATHGATE__VOP_DIR, PATHGATE__VIEW_STAGE "/dev/shm", NULL, 0);
    if (!rc)
        rc = add_op(v, PATHGATE__VOP_TMPFS, PATHGATE__VIEW_STAGE "/dev/shm",
                    str(v, "mode=1777,size=%llu", (unsigned long long)lim->shm_size),
                    PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV);
    if (!rc)
        rc = add_op(v, PATHGATE__VOP_DIR, PATHGATE__VIEW_STAGE "/tmp", NULL, 0);
    if (!rc)
        rc = add_op(v, PATHGATE__VOP_TMPFS, PATHGATE__VIEW_STAGE "/tmp",
                    str(v, "mode=1777,size=%llu", (unsigned long long)lim->tmp_size),
                    PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV);
    if (!rc)
        rc = add_op(v, PATHGATE__VOP_DIR, PATHGATE__VIEW_STAGE "/proc", NULL, 0);
    if (!rc)
        rc = add_op(v, PATHGATE__VOP_PROC, PATHGATE__VIEW_STAGE "/proc", NULL, 0);
    if (rc)
        return rc;
    if (v->unpriv) {
        snprintf(v->uid_map, sizeof v->uid_map, "0 %u 1\n", v->run_uid);
        snprintf(v->gid_map, sizeof v->gid_map, "0 %u 1\n", v->run_gid);
    } else {
        snprintf(v->uid_map, sizeof v->uid_map, "%u %u 1\n", (unsigned)geteuid(),
                 (unsigned)geteuid());
        snprintf(v->gid_map, sizeof v->gid_map, "%u %u 1\n", (unsigned)getegid(),
                 (unsigned)getegid());
    }
    if (lim->max_procs) {
        /* Once pids have wrapped around, the kernel hands out only those
         * from 300 (RESERVED_PIDS) to pid_max - 1, in every namespace: so
         * max_procs + 300 caps the namespace at max_procs processes
         * (at most 300 more before the first wraparound). */
        snprintf(v->pid_max, sizeof v->pid_max, "%lu", (unsigned long)lim->max_procs + 300);
    }
    v->tmp_rights = pathgate__landlock_rights(
        landlock_abi, PATHGATE__LL_READ | PATHGATE__LL_WRITE | PATHGATE__LL_EXEC, 1);
    struct stat st;
    if (!cwd_view || cwd_view[0] != '/' || fstat(cwd_fd, &st) < 0)
        return PATHGATE_EINVAL;
    v->cwd = str(v, "%s", cwd_view);
    v->cwd_dev = st.st_dev;
    v->cwd_ino = st.st_ino;
    return v->cwd ? PATHGATE_OK : PATHGATE_ENOMEM;
}

/* ---------------------------------------------------------- the child */

#define NOSAN __attribute__((no_sanitize("address", "undefined", "thread")))
#define VRAW(...) vraw(syscall(__VA_ARGS__))

NOSAN static inline long vraw(long r)
{
    return r < 0 ? -(long)errno : r;
}

NOSAN static size_t vlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

NOSAN static long vwrite_file(const char *path, const char *text)
{
    long fd = VRAW(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return fd;
    long rc = VRAW(SYS_write, fd, text, vlen(text));
    VRAW(SYS_close, fd);
    return rc < 0 ? rc : 0;
}

NOSAN static long vsetattr(const char *path, uint64_t attr)
{
    struct pg_mount_attr ma = {attr, 0, 0, 0};
    return VRAW(__NR_mount_setattr, AT_FDCWD, path, 0, &ma, sizeof ma);
}

NOSAN static long vgrant(int ruleset, const char *path, uint64_t rights)
{
    if (ruleset < 0 || !rights)
        return 0;
    long fd = VRAW(SYS_openat, AT_FDCWD, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return fd;
    struct pg_ll_path_beneath pb = {rights, (int32_t)fd};
    long rc = VRAW(PATHGATE__SYS_LANDLOCK_ADD_RULE, ruleset, 1 /* PATH_BENEATH */, &pb, 0);
    VRAW(SYS_close, fd);
    return rc;
}

NOSAN static long vop(const pathgate__exec_view_op *op, int ruleset, uint64_t rights)
{
    long rc = 0;
    switch (op->kind) {
    case PATHGATE__VOP_DIR:
        rc = VRAW(SYS_mkdirat, AT_FDCWD, op->dst, 0755);
        return rc == -EEXIST ? 0 : rc;
    case PATHGATE__VOP_FILE:
        rc = VRAW(SYS_openat, AT_FDCWD, op->dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (rc >= 0)
            VRAW(SYS_close, rc);
        return rc < 0 ? rc : 0;
    case PATHGATE__VOP_LINK:
        return VRAW(SYS_symlinkat, op->src, AT_FDCWD, op->dst);
    case PATHGATE__VOP_DATA: {
        long fd =
            VRAW(SYS_openat, AT_FDCWD, op->dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0)
            return fd;
        for (uint64_t off = 0; off < op->attr;) {
            rc = VRAW(SYS_write, fd, op->src + off, op->attr - off);
            if (rc <= 0)
                break;
            off += (uint64_t)rc;
            rc = 0;
        }
        VRAW(SYS_close, fd);
        return rc < 0 ? rc : 0;
    }
    case PATHGATE__VOP_BIND: {
        rc = VRAW(SYS_mount, op->src, op->dst, NULL, MS_BIND, NULL);
        struct stat st;
        if (!rc && (rc = VRAW(SYS_newfstatat, AT_FDCWD, op->dst, &st, 0)) == 0 &&
            (st.st_dev != op->dev || st.st_ino != op->ino))
            rc = -EXDEV; /* the host path changed meanwhile: fail closed */
        break;
    }
    case PATHGATE__VOP_MOVE: {
        struct stat st;
        rc = VRAW(__NR_move_mount, op->fd, "", AT_FDCWD, op->dst, PG_MOVE_MOUNT_F_EMPTY_PATH);
        if (!rc && (rc = VRAW(SYS_newfstatat, AT_FDCWD, op->dst, &st, 0)) == 0 &&
            (st.st_dev != op->dev || st.st_ino != op->ino))
            rc = -EXDEV;
        return rc; /* flags set by the parent */
    }
    case PATHGATE__VOP_TMPFS:
        rc = VRAW(SYS_mount, "tmpfs", op->dst, "tmpfs", MS_NOSUID | MS_NODEV, op->src);
        if (!rc)
            rc = vgrant(ruleset, op->dst, rights);
        break;
    case PATHGATE__VOP_PROC:
        return VRAW(SYS_mount, "proc", op->dst, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    default:
        return -EINVAL;
    }
    if (!rc && op->attr)
        rc = vsetattr(op->dst, op->attr);
    return rc;
}

#define FAIL(what)                                                                                 \
    do {                                                                                           \
        *failed = (what);                                                                          \
        return rc;                                                                                 \
    } while (0)

NOSAN long pathgate__exec_view_enter(const pathgate__exec_view *v, int ruleset_fd,
                                     const char **failed, volatile int *pid_limited)
{
    long rc;
    if (v->unpriv) {
        /* The parent has written the maps (0 = the host's run_uid and
         * run_gid); become them, without the caller's supplementary
         * groups. A uid change makes the memory non-dumpable, and the
         * memory is the host process's: its flag is put back. */
        long dumpable = VRAW(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
        if ((rc = VRAW(SYS_setresgid, 0, 0, 0)) < 0)
            FAIL("gid map");
        if ((rc = VRAW(SYS_setgroups, 0, NULL)) < 0)
            FAIL("setgroups");
        if ((rc = VRAW(SYS_setresuid, 0, 0, 0)) < 0)
            FAIL("uid map");
        if (dumpable == 0 || dumpable == 1)
            VRAW(SYS_prctl, PR_SET_DUMPABLE, dumpable, 0, 0, 0);
    } else {
        /* Our own uid and gid only (an unprivileged process may map
         * nothing else); supplementary groups cannot be changed
         * afterwards. */
        if ((rc = vwrite_file("/proc/self/setgroups", "deny")) < 0 && rc != -ENOENT)
            FAIL("setgroups");
        if ((rc = vwrite_file("/proc/self/uid_map", v->uid_map)) < 0)
            FAIL("uid map");
        if ((rc = vwrite_file("/proc/self/gid_map", v->gid_map)) < 0)
            FAIL("gid map");
    }
    if ((rc = VRAW(SYS_sethostname, "pathgate", 8)) < 0)
        FAIL("hostname");
    if ((rc = VRAW(SYS_mount, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) < 0)
        FAIL("mount propagation");
    /* The view's root: a tmpfs on /tmp, pivoted to; the host's tree moves
     * to PATHGATE__VIEW_OLD, the source of the bind mounts, and is
     * detached once the view is complete. */
    if ((rc = VRAW(SYS_mount, "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
                   "mode=0755,size=1m")) < 0 ||
        (rc = VRAW(SYS_mkdirat, AT_FDCWD, "/tmp" PATHGATE__VIEW_OLD, 0700)) < 0 ||
        (rc = VRAW(SYS_chdir, "/tmp")) < 0 ||
        (rc = VRAW(SYS_pivot_root, ".", "." PATHGATE__VIEW_OLD)) < 0 ||
        (rc = VRAW(SYS_chdir, "/")) < 0)
        FAIL("view root");
    for (size_t i = 0; i < v->nops; i++) {
        if ((rc = vop(&v->ops[i], ruleset_fd, v->tmp_rights)) < 0)
            FAIL(v->ops[i].kind == PATHGATE__VOP_BIND || v->ops[i].kind == PATHGATE__VOP_MOVE
                     ? "bind mount"
                     : "view entry");
        if (v->ops[i].kind == PATHGATE__VOP_PROC && v->pid_max[0]) {
            /* the PID namespace's own pid_max (Linux >= 6.14) */
            if (vwrite_file(PATHGATE__VIEW_STAGE "/proc/sys/kernel/pid_max", v->pid_max) == 0)
                *pid_limited = 1;
        }
    }
    /* The host's tree is detached; its mount point goes. */
    if ((rc = VRAW(SYS_umount2, PATHGATE__VIEW_OLD, MNT_DETACH)) < 0 ||
        (rc = VRAW(SYS_unlinkat, AT_FDCWD, PATHGATE__VIEW_OLD, AT_REMOVEDIR)) < 0)
        FAIL("pivot");
    if ((rc = vsetattr("/", PG_MOUNT_ATTR_RDONLY | PG_MOUNT_ATTR_NOSUID | PG_MOUNT_ATTR_NODEV)) < 0)
        FAIL("view root");
    if ((rc = VRAW(SYS_chdir, v->cwd)) < 0)
        FAIL("working directory");
    struct stat st;
    if ((rc = VRAW(SYS_newfstatat, AT_FDCWD, ".", &st, 0)) < 0)
        FAIL("working directory");
    if (st.st_dev != v->cwd_dev || st.st_ino != v->cwd_ino) {
        rc = -EXDEV; /* renamed meanwhile: fail closed */
        FAIL("working directory");
    }
    return 0;
}
