/* fs_delete.c - delete: a file, a symlink itself, or a directory tree,
 * beneath the base, never following a symlink. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "os.h"
#include "error.h"
#include "fs_file.h"
#include "fs_policy.h"
#include "fs_target.h"
#include "fs_delete.h"

#define DELBUF 32768

int pathgate__fs_remove_contents(int dirfd, const pathgate_allocator *a, int depth)
{
    if (depth > PATHGATE_FS_MAX_DEPTH)
        return -ELOOP;
    char *buf = NULL;
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        /* read the listing, delete it, read again from the start: entries
         * already deleted are gone, so this terminates */
        if ((rc = pathgate__os_dir_rewind(dirfd)) < 0)
            break;
        size_t used = 0;
        if ((rc = pathgate__os_dir_read_all(dirfd, a, &buf, &cap, &used, DELBUF)) < 0)
            break;
        int removed = 0;
        size_t off = 0;
        pathgate__os_dirent d;
        while (rc == 0 && pathgate__os_dir_next(buf, used, &off, &d)) {
            const char *name = d.name;
            if (!strcmp(name, ".") || !strcmp(name, ".."))
                continue;
            unsigned int type = d.type;
            if (type == PATHGATE__OS_T_UNKNOWN) {
                pathgate__os_stat st;
                int se = pathgate__os_statat(dirfd, name, PATHGATE__OS_STAT_NOFOLLOW, &st);
                if (se < 0) {
                    rc = se == -ENOENT ? 0 : se;
                    continue;
                }
                type = st.type == PATHGATE__OS_T_DIR ? PATHGATE__OS_T_DIR : PATHGATE__OS_T_REG;
            }
            if (type == PATHGATE__OS_T_DIR) {
                int fd = pathgate__os_openat(dirfd, name,
                                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
                if (fd < 0) {
                    rc = fd;
                    break;
                }
                rc = pathgate__fs_remove_contents(fd, a, depth + 1);
                pathgate__os_close(fd);
                if (rc == 0)
                    rc = pathgate__os_unlinkat(dirfd, name, PATHGATE__OS_REMOVE_DIR);
            } else {
                rc = pathgate__os_unlinkat(dirfd, name, 0);
            }
            removed++;
        }
        if (rc || removed == 0)
            break;
    }
    pathgate__free(a, buf);
    return rc;
}

int pathgate_fs_delete(pathgate_buf *path, pathgate_resolver *resolver, const char *address,
                       size_t len, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate__fs_target t;
    int rc = pathgate__fs_target_for_write(&t, "delete", resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    if (t.rel_len == 0) /* never the base itself */
        return pathgate__fs_fail(err, PATHGATE_EACCES, &t, PATHGATE__FS_FILE);

    char rel[PATHGATE_PATH_MAX + 1];
    if (t.rel_len >= sizeof rel)
        return pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, &t, PATHGATE__FS_FILE);
    memcpy(rel, t.rel, t.rel_len + 1);
    char *slash = strrchr(rel, '/');
    const char *name = slash ? slash + 1 : rel;
    if (slash)
        *slash = '\0';
    int dirfd = pathgate__fs_open(&t, slash ? rel : "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    if (dirfd < 0)
        return pathgate__fs_fail_errno(err, dirfd, &t, PATHGATE__FS_FILE);
    if ((rc = pathgate__fs_check_dir_writable(&t, dirfd, err)) < 0) {
        pathgate__os_close(dirfd);
        return rc;
    }

    pathgate__os_stat st;
    int e = pathgate__os_statat(dirfd, name, PATHGATE__OS_STAT_NOFOLLOW, &st);
    if (e < 0) {
        rc = pathgate__fs_fail_errno(err, e, &t, PATHGATE__FS_FILE);
    } else if (st.type == PATHGATE__OS_T_LNK) {
        /* the link itself goes, but not one that leads out: that address
         * is invalid, as the resolver says (a loop or a dangling link
         * inside is an entry like any other) */
        if (pathgate__contain_probe(t.base_fd, t.rel, t.force_fallback) == -EXDEV)
            rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, &t, PATHGATE__FS_FILE);
        else if ((rc = pathgate__fs_policy_link_hidden(&t, err)) < 0)
            ; /* a link to what the policy hides is hidden too */
        else if ((e = pathgate__os_unlinkat(dirfd, name, 0)) < 0)
            rc = pathgate__fs_fail_errno(err, e, &t, PATHGATE__FS_FILE);
    } else if (st.type == PATHGATE__OS_T_DIR) {
        int fd =
            pathgate__os_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        e = fd < 0 ? fd : pathgate__fs_remove_contents(fd, t.alloc, 1);
        if (fd >= 0)
            pathgate__os_close(fd);
        if (e == 0)
            e = pathgate__os_unlinkat(dirfd, name, PATHGATE__OS_REMOVE_DIR);
        if (e)
            rc = pathgate__fs_fail_errno(err, e, &t, PATHGATE__FS_FILE);
    } else if ((e = pathgate__os_unlinkat(dirfd, name, 0)) < 0) {
        rc = pathgate__fs_fail_errno(err, e, &t, PATHGATE__FS_FILE);
    }
    pathgate__os_close(dirfd);
    if (rc < 0)
        return rc;
    if (path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}
