/* fs_move.c - move: a no-replace rename (os.h) between the contained fds
 * of the two parents; across filesystems a contained copy, then delete. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "os.h"
#include "error.h"
#include "resolver_internal.h"
#include "fs_file.h"
#include "fs_policy.h"
#include "fs_target.h"

#define COPYBUF 65536

/* The contained PATHGATE__OS_O_PATH fd of t's parent directory; *name points at the
 * last component inside rel (a copy of t->rel the caller provides). */
static int open_parent(const pathgate__fs_target *t, char *rel, const char **name)
{
    memcpy(rel, t->rel, t->rel_len + 1);
    char *slash = strrchr(rel, '/');
    *name = slash ? slash + 1 : rel;
    if (slash)
        *slash = '\0';
    return pathgate__fs_open(t, slash ? rel : "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
}

static int copy_file(int sdir, const char *sname, int ddir, const char *dname, mode_t mode,
                     char *buf)
{
    int in = openat(sdir, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (in < 0)
        return -errno;
    int out = openat(ddir, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (out < 0) {
        int e = -errno;
        close(in);
        return e;
    }
    int rc = 0;
    for (;;) {
        ssize_t r = read(in, buf, COPYBUF);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rc = r < 0 ? -errno : 0;
            break;
        }
        if ((rc = pathgate__fs_write_all(out, buf, (size_t)r)) != 0)
            break;
    }
    if (!rc && fsync(out) < 0)
        rc = -errno;
    close(in);
    if (close(out) < 0 && !rc)
        rc = -errno;
    return rc;
}

/* Copies the entry sname of sdir to dname in ddir, never following a
 * symlink (a link is copied as a link). 0 or -errno. */
static int copy_entry(int sdir, const char *sname, int ddir, const char *dname, char *buf,
                      int depth)
{
    if (depth > PATHGATE_FS_MAX_DEPTH)
        return -ELOOP;
    struct stat st;
    if (fstatat(sdir, sname, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -errno;
    if (S_ISREG(st.st_mode))
        return copy_file(sdir, sname, ddir, dname, st.st_mode & 07777, buf);
    if (S_ISLNK(st.st_mode)) {
        char target[PATHGATE_PATH_MAX + 1];
        ssize_t n = readlinkat(sdir, sname, target, sizeof target - 1);
        if (n < 0)
            return -errno;
        target[n] = '\0';
        return symlinkat(target, ddir, dname) < 0 ? -errno : 0;
    }
    if (!S_ISDIR(st.st_mode))
        return -EOPNOTSUPP; /* a FIFO, socket or device is not copied */
    if (mkdirat(ddir, dname, (st.st_mode & 07777) | 0700) < 0)
        return -errno;
    int sfd = openat(sdir, sname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0)
        return -errno;
    int dfd = openat(ddir, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        int e = -errno;
        close(sfd);
        return e;
    }
    DIR *d = fdopendir(sfd);
    if (!d) {
        int e = -errno;
        close(sfd);
        close(dfd);
        return e;
    }
    int rc = 0;
    struct dirent *de;
    errno = 0;
    while (!rc && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        rc = copy_entry(sfd, de->d_name, dfd, de->d_name, buf, depth + 1);
    }
    closedir(d);
    if (!rc && fchmod(dfd, st.st_mode & 07777) < 0)
        rc = -errno;
    close(dfd);
    return rc;
}

static int exdev_move(pathgate__fs_target *src, pathgate__fs_target *dst, int sp, const char *sname,
                      int dp, const char *dname, const pathgate_fs_options *opts,
                      pathgate_error *err)
{
    char *buf = pathgate__malloc(src->alloc, COPYBUF);
    if (!buf)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    int e = copy_entry(sp, sname, dp, dname, buf, 0);
    pathgate__free(src->alloc, buf);
    pathgate_error ignored;
    /* the deletes below are this move's own: no events of their own */
    pathgate_fs_options o = PATHGATE_FS_OPTIONS_INIT;
    o.version = PATHGATE__FS_OPTIONS_QUIET_VERSION;
    if (e) {
        /* remove what was copied; the source is untouched */
        if (e != -EEXIST)
            pathgate_fs_delete(NULL, dst->r, dst->address, dst->address_len, &o, &ignored);
        if (e == -EEXIST)
            return pathgate__error_set(err, PATHGATE_EEXIST, "'%s' already exists", dst->address);
        return pathgate__fs_fail_errno(err, e, src, PATHGATE__FS_FILE);
    }
    (void)opts;
    return pathgate_fs_delete(NULL, src->r, src->address, src->address_len, &o, err);
}

int pathgate_fs_move(pathgate_buf *path, pathgate_resolver *resolver, const char *source,
                     size_t source_len, const char *destination, size_t destination_len,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!source || !destination)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target *src = pathgate__malloc(pathgate__resolver_allocator(r), 2 * sizeof *src);
    if (!src)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    pathgate__fs_target *dst = src + 1;
    const pathgate_allocator *a = pathgate__resolver_allocator(r);
    char srel[PATHGATE_PATH_MAX + 1], drel[PATHGATE_PATH_MAX + 1];
    const char *sname, *dname;
    int sp = -1, dp = -1, rc;
    if ((rc = pathgate__fs_resolve_role(src, "move", "source", r, opts, source, source_len, err)) <
            0 ||
        (rc = pathgate__fs_resolve_role(dst, "move", "destination", r, opts, destination,
                                        destination_len, err)) < 0 ||
        (rc = pathgate__fs_check_writable(src, err)) < 0 ||
        (rc = pathgate__fs_check_writable(dst, err)) < 0 ||
        (rc = pathgate__fs_policy_move_tree(src, dst, err)) < 0)
        goto done;
    if (src->rel_len == 0 || dst->rel_len == 0) {
        rc = pathgate__fs_fail(err, PATHGATE_EACCES, src->rel_len ? dst : src, PATHGATE__FS_FILE);
        goto done;
    }
    if (src->rel_len >= sizeof srel || dst->rel_len >= sizeof drel) {
        rc = pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
        goto done;
    }
    if ((sp = open_parent(src, srel, &sname)) < 0) {
        rc = pathgate__fs_fail_errno(err, sp, src, PATHGATE__FS_FILE);
        goto done;
    }
    struct stat st;
    if (fstatat(sp, sname, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        rc = pathgate__fs_fail_errno(err, -errno, src, PATHGATE__FS_FILE);
        goto done;
    }
    if (S_ISLNK(st.st_mode) &&
        pathgate__contain_probe(src->base_fd, src->rel, src->force_fallback) == -EXDEV) {
        /* a link that leads out has no address (as delete says); a loop
         * or a dangling link inside moves like any other entry */
        rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, src, PATHGATE__FS_FILE);
        goto done;
    }
    if (S_ISLNK(st.st_mode) && (rc = pathgate__fs_policy_link_hidden(src, err)) < 0)
        goto done; /* a link to what the policy hides is hidden too */
    if ((dp = open_parent(dst, drel, &dname)) < 0) {
        rc = dp == -ENOENT || dp == -ENOTDIR
                 ? pathgate__error_set(err, PATHGATE_ENOTFOUND,
                                       "Parent directory of '%s' not found", dst->address)
                 : pathgate__fs_fail_errno(err, dp, dst, PATHGATE__FS_DIRECTORY);
        goto done;
    }
    int mv = pathgate__os_renameat(sp, sname, dp, dname, PATHGATE__OS_RENAME_NOREPLACE);
    if (mv == 0) {
        rc = PATHGATE_OK;
    } else if (mv == -EEXIST || mv == -ENOTEMPTY) {
        rc = pathgate__error_set(err, PATHGATE_EEXIST, "'%s' already exists", dst->address);
    } else if (mv == -EXDEV) {
        rc = exdev_move(src, dst, sp, sname, dp, dname, opts, err);
    } else if (mv == -EINVAL && S_ISDIR(st.st_mode)) {
        rc =
            pathgate__error_set(err, PATHGATE_EINVAL, "Cannot move '%s' into itself", src->address);
    } else {
        rc = pathgate__fs_fail_errno(err, mv, src, PATHGATE__FS_FILE);
    }
    if (rc == PATHGATE_OK && path && pathgate__buf_set(path, a, dst->address, dst->address_len) < 0)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
done:
    if (sp >= 0)
        close(sp);
    if (dp >= 0)
        close(dp);
    pathgate__free(a, src);
    return rc;
}
