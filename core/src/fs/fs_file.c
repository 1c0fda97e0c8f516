/* fs_file.c - regular-file reads and the atomic write beneath a base. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "resolver_policy.h"
#include "resolver_internal.h"
#include "random.h"
#include "testing.h"
#include "fs_policy.h"
#include "fs_target.h"
#include "fs_file.h"

/* The answer of a where-it-lives check as a result: 1 is EACCES, an
 * errno is an I/O error, 0 passes. */
static int lives_verdict(const pathgate__fs_target *t, int rc, pathgate_error *err)
{
    if (rc == 1)
        return pathgate__fs_fail(err, PATHGATE_EACCES, t, PATHGATE__FS_FILE);
    if (rc < 0)
        return pathgate__fs_fail_errno(err, rc, t, PATHGATE__FS_FILE);
    return PATHGATE_OK;
}

int pathgate__fs_check_dir_writable(const pathgate__fs_target *t, int dirfd, pathgate_error *err)
{
    if (t->base_flags & PATHGATE_BASE_READ_ONLY)
        return pathgate__fs_fail(err, PATHGATE_EACCES, t, PATHGATE__FS_FILE);
    if (!pathgate__resolver_has_read_only(t->r))
        return PATHGATE_OK;
    return lives_verdict(t, pathgate__resolver_dir_read_only(t->r, t->base, dirfd), err);
}

/* The read-only part of pathgate__fs_check_writable. */
static int check_read_only(const pathgate__fs_target *t, pathgate_error *err)
{
    if (t->base_flags & PATHGATE_BASE_READ_ONLY)
        return pathgate__fs_fail(err, PATHGATE_EACCES, t, PATHGATE__FS_FILE);
    if (!pathgate__resolver_has_read_only(t->r) || t->rel_len == 0)
        return PATHGATE_OK;
    /* Where the entry lives: the deepest directory of its parents that
     * exists (a write creates the rest beneath it). Open failures other
     * than ENOENT are left to the operation, which reports them. */
    char rel[PATHGATE_PATH_MAX + 1];
    if (t->rel_len >= sizeof rel)
        return PATHGATE_OK;
    memcpy(rel, t->rel, t->rel_len + 1);
    int fd = -ENOENT;
    for (char *slash = strrchr(rel, '/'); fd == -ENOENT; slash = strrchr(rel, '/')) {
        if (!slash) {
            fd = pathgate__fs_open(t, "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
            break;
        }
        *slash = '\0';
        fd = pathgate__fs_open(t, rel, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    }
    if (fd < 0)
        return PATHGATE_OK;
    int rc = lives_verdict(t, pathgate__resolver_dir_read_only(t->r, t->base, fd), err);
    pathgate__os_close(fd);
    if (rc < 0)
        return rc;
    /* A directory (never a symlink: it is not followed here) that is or
     * holds a read-only base: deleting it would delete read-only files. */
    fd = pathgate__fs_open(t, NULL, PATHGATE__OS_O_PATH | O_DIRECTORY | O_NOFOLLOW, 0);
    if (fd < 0)
        return PATHGATE_OK;
    rc = pathgate__resolver_dir_holds_read_only(t->r, fd);
    pathgate__os_close(fd);
    return lives_verdict(t, rc, err);
}

int pathgate__fs_check_writable(pathgate__fs_target *t, pathgate_error *err)
{
    t->access = PATHGATE__ACCESS_WRITE;
    int rc = pathgate__fs_policy_writable(t, err);
    if (rc < 0)
        return rc;
    if ((rc = check_read_only(t, err)) < 0) {
        if (rc == PATHGATE_EACCES)
            pathgate__fs_audit(t, "denied", "read_only", NULL);
        return rc;
    }
    if ((rc = pathgate__fs_policy_tree(t, err)) < 0)
        return rc;
    pathgate__fs_audit(t, "allowed", NULL, NULL);
    return PATHGATE_OK;
}

int pathgate__fs_open_regular(const pathgate__fs_target *t, pathgate__os_stat *st,
                              pathgate_error *err)
{
    int fd = pathgate__fs_open(t, NULL, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
    if (fd < 0)
        return pathgate__fs_fail_errno(err, fd, t, PATHGATE__FS_FILE);
    int se = pathgate__os_statat(fd, "", 0, st);
    if (se < 0) {
        pathgate__os_close(fd);
        return pathgate__fs_fail_errno(err, se, t, PATHGATE__FS_FILE);
    }
    if (st->type != PATHGATE__OS_T_REG) {
        pathgate__os_close(fd);
        return pathgate__fs_fail(
            err, st->type == PATHGATE__OS_T_DIR ? PATHGATE_EISDIR : PATHGATE_ENOTREG, t,
            PATHGATE__FS_FILE);
    }
    return fd;
}

uint64_t pathgate__fs_max_file(const pathgate_fs_options *opts)
{
    return opts && opts->max_file_size ? opts->max_file_size : PATHGATE_FS_MAX_FILE_DEFAULT;
}

uint64_t pathgate__fs_grep_max_file(const pathgate_fs_search_options *opts)
{
    return opts && opts->max_file_size ? opts->max_file_size : PATHGATE_FS_GREP_MAX_FILE_DEFAULT;
}

unsigned int pathgate__fs_threads(const pathgate_fs_search_options *opts)
{
    if (opts && opts->threads)
        return opts->threads;
    unsigned int n = pathgate__os_ncpu();
    return n < 1 ? 1 : n > 64 ? 64 : n;
}

int pathgate__fs_fail_large(pathgate_error *err, const pathgate__fs_target *t, uint64_t cap)
{
    return pathgate__error_set(err, PATHGATE_ETOOLARGE,
                               "File '%s' is larger than the %llu-byte size cap", t->address,
                               (unsigned long long)cap);
}

int pathgate__fs_slurp(char **data, size_t *len, const pathgate_allocator *a, int fd,
                       const pathgate__os_stat *st, uint64_t max)
{
    if (st->size > 0 && (uint64_t)st->size > max)
        return PATHGATE_ETOOLARGE;
    /* room for the size fstat gave, plus one byte to see EOF in one read */
    size_t cap = (st->size > 0 ? (size_t)st->size : 0) + 2;
    size_t n = 0;
    char *buf = pathgate__malloc(a, cap);
    if (!buf)
        return PATHGATE_ENOMEM;
    for (;;) {
        if (cap - n < 2) {
            size_t ncap = cap * 2;
            char *nb = pathgate__realloc(a, buf, ncap);
            if (!nb) {
                pathgate__free(a, buf);
                return PATHGATE_ENOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        int64_t r = pathgate__os_read(fd, buf + n, cap - n - 1);
        if (r < 0) {
            pathgate__free(a, buf);
            return PATHGATE_EIO;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if ((uint64_t)n > max) { /* grew since the fstat */
            pathgate__free(a, buf);
            return PATHGATE_ETOOLARGE;
        }
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return PATHGATE_OK;
}

/* ---------------------------------------------------------- atomic write */

/* Opens (creating what is missing) the parent directory of rel, whose last
 * '/' is at `slash` (or none: the base). An PATHGATE__OS_O_PATH directory fd or -errno. */
static int open_parent(const pathgate__fs_target *t, char *rel, char *slash)
{
    if (!slash)
        return pathgate__fs_open(t, "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    *slash = '\0';
    int fd = pathgate__fs_open(t, rel, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    *slash = '/';
    if (fd != -ENOENT)
        return fd;
    /* create the missing directories one component at a time, each with
     * mkdirat on the contained fd of its parent */
    int prev = pathgate__fs_open(t, "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    if (prev < 0)
        return prev;
    char *comp = rel;
    for (;;) {
        char *end = strchr(comp, '/');
        if (!end || end > slash)
            break;
        *end = '\0';
        fd = pathgate__fs_open(t, rel, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
        if (fd == -ENOENT) {
            int me = pathgate__os_mkdirat(prev, comp, 0777);
            if (me < 0 && me != -EEXIST) {
                fd = me;
            } else
                fd = pathgate__fs_open(t, rel, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
        }
        *end = '/';
        pathgate__os_close(prev);
        if (fd < 0)
            return fd;
        prev = fd;
        if (end == slash)
            break;
        comp = end + 1;
    }
    return prev;
}

int pathgate__fs_write_all(int fd, const char *p, size_t len)
{
    while (len) {
        int64_t w = pathgate__os_write(fd, p, len);
        if (w < 0)
            return (int)w;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static int hook(const pathgate_fs_options *opts, pathgate_fs_hook_point point)
{
    const pathgate__fs_test_options *t = pathgate__fs_test_options_of(opts);
    if (t && t->hook) {
        int rc = t->hook(point, t->hook_ctx);
        return rc < 0 ? rc : 0;
    }
    return 0;
}

/* What is at the target's name in dirfd now, and whether a write may
 * replace it: nothing (0), a symlink the new file replaces (0: unless it
 * leads to a directory), or a regular file (1, its permission bits in
 * *mode: never setuid, setgid or sticky, so a write never makes a
 * privileged file). A directory, anything else, or an I/O error fails
 * with err filled. */
static int inspect_target(const pathgate__fs_target *t, int dirfd, const char *name,
                          unsigned int *mode, pathgate_error *err)
{
    pathgate__os_stat st;
    int se = pathgate__os_statat(dirfd, name, PATHGATE__OS_STAT_NOFOLLOW, &st);
    if (se < 0)
        return se == -ENOENT ? 0 : pathgate__fs_fail_errno(err, se, t, PATHGATE__FS_FILE);
    if (st.type == PATHGATE__OS_T_DIR)
        return pathgate__fs_fail(err, PATHGATE_EISDIR, t, PATHGATE__FS_FILE);
    if (st.type == PATHGATE__OS_T_REG) {
        *mode = st.mode & 0777;
        return 1;
    }
    if (st.type != PATHGATE__OS_T_LNK)
        return pathgate__fs_fail(err, PATHGATE_ENOTREG, t, PATHGATE__FS_FILE);
    /* replaced by the new file, unless it leads out or to a dir */
    int fd = pathgate__fs_open(t, NULL, PATHGATE__OS_O_PATH, 0);
    if (fd < 0)
        return fd == -ENOENT ? 0 : pathgate__fs_fail_errno(err, fd, t, PATHGATE__FS_FILE);
    pathgate__os_stat ts;
    int rc = 0;
    if (pathgate__os_statat(fd, "", 0, &ts) == 0 && ts.type == PATHGATE__OS_T_DIR)
        rc = pathgate__fs_fail(err, PATHGATE_EISDIR, t, PATHGATE__FS_FILE);
    pathgate__os_close(fd);
    return rc;
}

int pathgate__fs_create_temp(int dirfd, char tmp[PATHGATE__FS_TEMP_NAME_CAP], int access)
{
    int fd = -EEXIST;
    for (int attempt = 0; attempt < 16 && fd == -EEXIST; attempt++) {
        unsigned char rnd[8];
        if (pathgate__random_bytes(rnd, sizeof rnd) != 0)
            return -EIO;
        snprintf(tmp, PATHGATE__FS_TEMP_NAME_CAP, ".pathgate-%02x%02x%02x%02x%02x%02x%02x%02x.tmp",
                 rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
        fd = pathgate__os_openat(dirfd, tmp, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                 0666);
    }
    return fd;
}

/* Fills the temp file fd and closes it: the kept permission bits (mode,
 * when not NULL), the content, fsync. 0, or a failure with err filled. */
static int fill_temp(const pathgate__fs_target *t, int fd, const void *content, size_t len,
                     const unsigned int *mode, const pathgate_fs_options *opts, pathgate_error *err)
{
    int e = 0;
    if (mode)
        e = pathgate__os_fchmod(fd, *mode);
    if (!e) {
        int rc = hook(opts, PATHGATE_FS_HOOK_TEMP_CREATED);
        if (rc < 0) {
            pathgate__os_close(fd);
            return pathgate__fs_fail(err, rc, t, PATHGATE__FS_FILE);
        }
        e = pathgate__fs_write_all(fd, content, len);
    }
    if (!e)
        e = pathgate__os_fsync(fd);
    int ce = pathgate__os_close(fd);
    if (ce < 0 && !e)
        e = ce;
    return e ? pathgate__fs_fail_errno(err, e, t, PATHGATE__FS_FILE) : 0;
}

/* 1 when the file an edit read is no longer what it read: changed in place
 * since (size, modification or change time of the open file differ), or
 * no longer the file the name leads to (replaced, moved, deleted). */
static int changed_since(const pathgate__fs_target *t, const pathgate__fs_guard *g)
{
    pathgate__os_stat now;
    if (pathgate__os_statat(g->fd, "", 0, &now) < 0 || now.size != g->st.size ||
        now.mtime_sec != g->st.mtime_sec || now.mtime_nsec != g->st.mtime_nsec ||
        now.ctime_sec != g->st.ctime_sec || now.ctime_nsec != g->st.ctime_nsec)
        return 1;
    int fd = pathgate__fs_open(t, NULL, PATHGATE__OS_O_PATH, 0);
    if (fd < 0)
        return 1;
    int same =
        pathgate__os_statat(fd, "", 0, &now) == 0 && now.dev == g->st.dev && now.ino == g->st.ino;
    pathgate__os_close(fd);
    return !same;
}

/* Renames the filled temp file over the name: the commit. 0,
 * PATHGATE__FS_CHANGED when the guarded file changed (nothing renamed), or
 * a failure with err filled (the temp file is the caller's to remove).
 * The guarded file is let go after the check and before the rename, so
 * that the rename never replaces a file pathgate holds open: Windows
 * refuses that without POSIX semantics (FAT, exFAT, network shares, wine),
 * and with them too unless every handle shares deletion. */
static int commit_temp(const pathgate__fs_target *t, int dirfd, const char *tmp, const char *name,
                       pathgate__fs_guard *g, const pathgate_fs_options *opts, pathgate_error *err)
{
    int rc = hook(opts, PATHGATE_FS_HOOK_BEFORE_RENAME);
    if (rc < 0)
        return pathgate__fs_fail(err, rc, t, PATHGATE__FS_FILE);
    if (g && changed_since(t, g))
        return PATHGATE__FS_CHANGED;
    if (g) {
        pathgate__os_close(g->fd);
        g->fd = -1;
    }
    int e = pathgate__os_renameat(dirfd, tmp, dirfd, name, 0);
    if (e == 0)
        return 0;
    return e == -EISDIR ? pathgate__fs_fail(err, PATHGATE_EISDIR, t, PATHGATE__FS_FILE)
                        : pathgate__fs_fail_errno(err, e, t, PATHGATE__FS_FILE);
}

/* The atomic write: inspect the target, create the temp file beside it,
 * fill it, commit it by rename. On any failure (and on
 * PATHGATE__FS_CHANGED) the temp file is removed and the target is as it
 * was. */
int pathgate__fs_replace_file_if(const pathgate__fs_target *t, const void *content, size_t len,
                                 pathgate__fs_guard *g, const pathgate_fs_options *opts,
                                 pathgate_error *err)
{
    if (t->rel_len == 0)
        return pathgate__fs_fail(err, PATHGATE_EISDIR, t, PATHGATE__FS_FILE);
    char rel[PATHGATE_PATH_MAX + 1];
    if (t->rel_len >= sizeof rel)
        return pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, t, PATHGATE__FS_FILE);
    memcpy(rel, t->rel, t->rel_len + 1);
    char *slash = strrchr(rel, '/');
    const char *name = slash ? slash + 1 : rel;

    int dirfd = open_parent(t, rel, slash);
    if (dirfd < 0) {
        if (dirfd == -ENOTDIR || dirfd == -EEXIST)
            return pathgate__error_set(err, PATHGATE_ENOTDIR,
                                       "Cannot write '%s': a parent is not a directory",
                                       t->address);
        return pathgate__fs_fail_errno(err, dirfd, t, PATHGATE__FS_FILE);
    }
    /* where the file lives, checked on the very directory written */
    unsigned int mode = 0;
    int rc = pathgate__fs_check_dir_writable(t, dirfd, err);
    if (rc >= 0)
        rc = inspect_target(t, dirfd, name, &mode, err);
    if (rc < 0) {
        pathgate__os_close(dirfd);
        return rc;
    }
    const int keep_mode = rc;
    char tmp[PATHGATE__FS_TEMP_NAME_CAP];
    int fd = pathgate__fs_create_temp(dirfd, tmp, O_WRONLY);
    if (fd < 0) {
        pathgate__os_close(dirfd);
        return pathgate__fs_fail_errno(err, fd, t, PATHGATE__FS_FILE);
    }
    rc = fill_temp(t, fd, content, len, keep_mode ? &mode : NULL, opts, err);
    if (rc >= 0)
        rc = commit_temp(t, dirfd, tmp, name, g, opts, err);
    if (rc != 0)
        pathgate__os_unlinkat(dirfd, tmp, 0);
    pathgate__os_close(dirfd);
    return rc;
}

int pathgate__fs_replace_file(const pathgate__fs_target *t, const void *content, size_t len,
                              const pathgate_fs_options *opts, pathgate_error *err)
{
    return pathgate__fs_replace_file_if(t, content, len, NULL, opts, err);
}

int pathgate__fs_target_for_write(pathgate__fs_target *t, const char *op,
                                  pathgate_resolver *resolver, const pathgate_fs_options *opts,
                                  const char *text, size_t len, pathgate_error *err)
{
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    int rc = pathgate__fs_resolve(t, op, r, opts, text, len, err);
    return rc < 0 ? rc : pathgate__fs_check_writable(t, err);
}
