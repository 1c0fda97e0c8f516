/* fs_rmtree.c - remove_tree: the entry itself (never what a symlink leads
 * to) and, for a directory, everything below it, through descriptors; a
 * missing entry is success (Go's RemoveAll). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_delete.h"
#include "fs_entry.h"
#include "fs_policy.h"
#include "fs_target.h"
#include "resolver_internal.h"

/* Removes the directory name of e->dirfd with everything below it. 0, or
 * a failure with err set. */
static int remove_dir(const pathgate__fs_target *t, const pathgate__fs_entry *e,
                      pathgate_error *err)
{
    int fd =
        pathgate__os_openat(e->dirfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (fd < 0)
        return fd == -ENOENT ? PATHGATE_OK
                             : pathgate__fs_fail_errno(err, fd, t, PATHGATE__FS_DIRECTORY);
    int holds = pathgate__resolver_dir_holds_read_only(t->r, fd);
    int rc = 0;
    if (holds == 1)
        rc = pathgate__fs_fail(err, PATHGATE_EACCES, t, PATHGATE__FS_DIRECTORY);
    else if (holds < 0)
        rc = pathgate__fs_fail_errno(err, holds, t, PATHGATE__FS_DIRECTORY);
    else {
        int e2 = pathgate__fs_remove_contents(fd, t->alloc, 1);
        /* closed before the directory is removed: Windows refuses to
         * remove a directory a handle holds (-EBUSY) */
        pathgate__os_close(fd);
        fd = -1;
        if (e2 == 0 &&
            (e2 = pathgate__os_unlinkat(e->dirfd, e->name, PATHGATE__OS_REMOVE_DIR)) == -ENOENT)
            e2 = 0;
        if (e2)
            rc = pathgate__fs_fail_errno(err, e2, t, PATHGATE__FS_DIRECTORY);
    }
    if (fd >= 0)
        pathgate__os_close(fd);
    return rc;
}

int pathgate_fs_remove_tree(pathgate_buf *path, int *removed, pathgate_resolver *resolver,
                            const char *address, size_t len, const pathgate_fs_options *opts,
                            pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (removed)
        *removed = 0;
    if (!address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target t;
    int rc = pathgate__fs_target_for_change(&t, "remove_tree", NULL, r, opts, address, len, err);
    if (rc < 0)
        return rc;
    if (t.base_flags & PATHGATE_BASE_READ_ONLY || t.rel_len == 0) /* never the base itself */
        return pathgate__fs_fail(err, PATHGATE_EACCES, &t, PATHGATE__FS_FILE);
    pathgate__fs_entry e;
    if ((rc = pathgate__fs_entry_find(&e, &t, 0)) < 0) {
        if (rc == -ENOENT || rc == -ENOTDIR)
            goto done; /* nothing there */
        return pathgate__fs_fail_errno(err, rc, &t, PATHGATE__FS_FILE);
    }
    if (!e.exists) {
        pathgate__fs_entry_close(&e);
        goto done;
    }
    if (e.st.type == PATHGATE__OS_T_LNK && pathgate__fs_leads_out(&t))
        rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, &t, PATHGATE__FS_FILE);
    else if (e.st.type == PATHGATE__OS_T_LNK && (rc = pathgate__fs_policy_link_hidden(&t, err)) < 0)
        ; /* a link to what the policy hides is hidden too */
    else if ((rc = pathgate__fs_entry_writable(&t, &e, err)) < 0)
        ;
    else if (e.st.type == PATHGATE__OS_T_DIR && (rc = pathgate__fs_policy_tree(&t, err)) < 0)
        ; /* holds what the policy hides or protects: nothing removed */
    else if (e.st.type == PATHGATE__OS_T_DIR)
        rc = remove_dir(&t, &e, err);
    else if ((rc = pathgate__os_unlinkat(e.dirfd, e.name, 0)) == -ENOENT)
        rc = 0;
    else if (rc < 0)
        rc = pathgate__fs_fail_errno(err, rc, &t, PATHGATE__FS_FILE);
    pathgate__fs_entry_close(&e);
    if (rc < 0)
        return rc;
    if (removed)
        *removed = 1;
done:
    if (path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}
