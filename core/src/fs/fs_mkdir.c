/* fs_mkdir.c - mkdir: a directory (and, with parents, its missing
 * ancestors) created with mkdirat on contained directory fds. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_file.h"
#include "fs_policy.h"
#include "fs_target.h"

static int exists_error(pathgate_error *err, const pathgate__fs_target *t)
{
    return pathgate__error_set(err, PATHGATE_EEXIST, "'%s' already exists", t->address);
}

/* mkdir -p: every component of rel, each opened beneath the base and
 * created in its parent's fd when missing. */
static int make_parents(const pathgate__fs_target *t, char *rel, pathgate_error *err)
{
    int prev = pathgate__fs_open(t, "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    if (prev < 0)
        return pathgate__fs_fail_errno(err, prev, t, PATHGATE__FS_DIRECTORY);
    char *comp = rel;
    for (;;) {
        char *end = strchr(comp, '/');
        int last = end == NULL;
        if (end)
            *end = '\0';
        int fd = pathgate__fs_open(t, rel, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
        if (fd == -ENOENT) {
            int me = pathgate__os_mkdirat(prev, comp, 0777);
            if (me < 0 && me != -EEXIST)
                fd = me;
            else
                fd = pathgate__fs_open(t, rel, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
        }
        if (end)
            *end = '/';
        pathgate__os_close(prev);
        if (fd < 0) {
            if (fd == -ENOTDIR && last)
                return exists_error(err, t);
            if (fd == -ENOTDIR || fd == -EEXIST)
                return pathgate__error_set(err, PATHGATE_ENOTDIR,
                                           "Cannot create '%s': a parent is not a directory",
                                           t->address);
            return pathgate__fs_fail_errno(err, fd, t, PATHGATE__FS_DIRECTORY);
        }
        if (last) {
            pathgate__os_close(fd);
            return PATHGATE_OK;
        }
        prev = fd;
        comp = end + 1;
    }
}

int pathgate_fs_mkdir(pathgate_buf *path, pathgate_resolver *resolver, const char *address,
                      size_t len, int parents, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate__fs_target t;
    int rc = pathgate__fs_target_for_write(&t, "mkdir", resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    char rel[PATHGATE_PATH_MAX + 1];
    if (t.rel_len >= sizeof rel)
        return pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, &t, PATHGATE__FS_DIRECTORY);
    memcpy(rel, t.rel, t.rel_len + 1);
    if (t.rel_len == 0) {
        if (!parents)
            return exists_error(err, &t);
    } else if (parents) {
        if ((rc = make_parents(&t, rel, err)) < 0)
            return rc;
    } else {
        char *slash = strrchr(rel, '/');
        const char *name = slash ? slash + 1 : rel;
        if (slash)
            *slash = '\0';
        int dirfd = pathgate__fs_open(&t, slash ? rel : "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
        if (dirfd == -ENOENT || dirfd == -ENOTDIR)
            return pathgate__error_set(err, PATHGATE_ENOTFOUND,
                                       "Parent directory of '%s' not found", t.address);
        if (dirfd < 0)
            return pathgate__fs_fail_errno(err, dirfd, &t, PATHGATE__FS_DIRECTORY);
        int e = -pathgate__os_mkdirat(dirfd, name, 0777);
        pathgate__os_close(dirfd);
        if (e == EEXIST)
            return exists_error(err, &t);
        if (e)
            return pathgate__fs_fail_errno(err, -e, &t, PATHGATE__FS_DIRECTORY);
    }
    if (path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}
