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

static int copy_file(int sdir, const char *sname, int ddir, const char *dname, unsigned int mode,
                     char *buf)
{
    int in = pathgate__os_openat(sdir, sname, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
    if (in < 0)
        return in;
    int out = pathgate__os_openat(ddir, dname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                  mode);
    if (out < 0) {
        pathgate__os_close(in);
        return out;
    }
    int rc = 0;
    for (;;) {
        int64_t r = pathgate__os_read(in, buf, COPYBUF);
        if (r <= 0) {
            rc = (int)r;
            break;
        }
        if ((rc = pathgate__fs_write_all(out, buf, (size_t)r)) != 0)
            break;
    }
    if (!rc)
        rc = pathgate__os_fsync(out);
    pathgate__os_close(in);
    int ce = pathgate__os_close(out);
    if (ce < 0 && !rc)
        rc = ce;
    return rc;
}

/* Copies the entry sname of sdir to dname in ddir, never following a
 * symlink (a link is copied as a link). 0 or -errno. */
static int copy_entry(int sdir, const char *sname, int ddir, const char *dname, char *buf,
                      const pathgate_allocator *a, int depth)
{
    if (depth > PATHGATE_FS_MAX_DEPTH)
        return -ELOOP;
    pathgate__os_stat st;
    int rc = pathgate__os_statat(sdir, sname, PATHGATE__OS_STAT_NOFOLLOW, &st);
    if (rc < 0)
        return rc;
    if (st.type == PATHGATE__OS_T_REG)
        return copy_file(sdir, sname, ddir, dname, st.mode & 07777, buf);
    if (st.type == PATHGATE__OS_T_LNK) {
        char target[PATHGATE_PATH_MAX + 1];
        long n = pathgate__os_readlinkat(sdir, sname, target, sizeof target);
        if (n < 0)
            return (int)n;
        target[n] = '\0';
        return pathgate__os_symlinkat(target, ddir, dname);
    }
    if (st.type != PATHGATE__OS_T_DIR)
        return -EOPNOTSUPP; /* a FIFO, socket or device is not copied */
    if ((rc = pathgate__os_mkdirat(ddir, dname, (st.mode & 07777) | 0700)) < 0)
        return rc;
    int sfd = pathgate__os_openat(sdir, sname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (sfd < 0)
        return sfd;
    int dfd = pathgate__os_openat(ddir, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (dfd < 0) {
        pathgate__os_close(sfd);
        return dfd;
    }
    char *list = NULL;
    size_t cap = 0, used = 0, off = 0;
    rc = pathgate__os_dir_read_all(sfd, a, &list, &cap, &used, COPYBUF);
    pathgate__os_dirent de;
    while (!rc && pathgate__os_dir_next(list, used, &off, &de)) {
        if (!strcmp(de.name, ".") || !strcmp(de.name, ".."))
            continue;
        rc = copy_entry(sfd, de.name, dfd, de.name, buf, a, depth + 1);
    }
    pathgate__free(a, list);
    pathgate__os_close(sfd);
    if (!rc)
        rc = pathgate__os_fchmod(dfd, st.mode & 07777);
    pathgate__os_close(dfd);
    return rc;
}

static int exdev_move(pathgate__fs_target *src, pathgate__fs_target *dst, int sp, const char *sname,
                      int dp, const char *dname, const pathgate_fs_options *opts,
                      pathgate_error *err)
{
    char *buf = pathgate__malloc(src->alloc, COPYBUF);
    if (!buf)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    int e = copy_entry(sp, sname, dp, dname, buf, src->alloc, 0);
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
    pathgate__os_stat st;
    if ((rc = pathgate__os_statat(sp, sname, PATHGATE__OS_STAT_NOFOLLOW, &st)) < 0) {
        rc = pathgate__fs_fail_errno(err, rc, src, PATHGATE__FS_FILE);
        goto done;
    }
    if (st.type == PATHGATE__OS_T_LNK &&
        pathgate__contain_probe(src->base_fd, src->rel, src->force_fallback) == -EXDEV) {
        /* a link that leads out has no address (as delete says); a loop
         * or a dangling link inside moves like any other entry */
        rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, src, PATHGATE__FS_FILE);
        goto done;
    }
    if (st.type == PATHGATE__OS_T_LNK && (rc = pathgate__fs_policy_link_hidden(src, err)) < 0)
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
    } else if (mv == -EINVAL && st.type == PATHGATE__OS_T_DIR) {
        rc =
            pathgate__error_set(err, PATHGATE_EINVAL, "Cannot move '%s' into itself", src->address);
    } else {
        rc = pathgate__fs_fail_errno(err, mv, src, PATHGATE__FS_FILE);
    }
    if (rc == PATHGATE_OK && path && pathgate__buf_set(path, a, dst->address, dst->address_len) < 0)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
done:
    if (sp >= 0)
        pathgate__os_close(sp);
    if (dp >= 0)
        pathgate__os_close(dp);
    pathgate__free(a, src);
    return rc;
}
