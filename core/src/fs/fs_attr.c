/* fs_attr.c - exists, lstat, chmod and utime: what an entry is and its
 * permission bits and times, reached beneath its base. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_entry.h"
#include "fs_policy.h"
#include "fs_stat.h"
#include "fs_target.h"
#include "resolver_policy.h"
#include "resolver_internal.h"

/* -------------------------------------------------------------- exists */

int pathgate_fs_exists(pathgate_fs_type *type, pathgate_resolver *resolver, const char *address,
                       size_t len, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!type || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *type = 0;
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, "exists", resolver, opts, address, len, err);
    if (rc == PATHGATE_EINVALIDPATH || rc == PATHGATE_ECAPACITY) {
        pathgate__error_clear(err);
        return PATHGATE_OK; /* names nothing a caller may reach */
    }
    if (rc < 0)
        return rc;
    int fd = pathgate__fs_open(&t, NULL, PATHGATE__OS_O_PATH, 0);
    if (fd < 0) {
        if (fd == -ENOMEM)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        if (fd == -PATHGATE__POLICY_ENOREAD) { /* leads to what the policy hides */
            pathgate_error ignored;
            pathgate__fs_fail_errno(&ignored, fd, &t, PATHGATE__FS_FILE); /* its event */
        }
        return PATHGATE_OK;
    }
    pathgate__os_stat st;
    if (pathgate__os_statat(fd, "", 0, &st) == 0)
        *type = st.type == PATHGATE__OS_T_REG   ? PATHGATE_FS_TYPE_FILE
                : st.type == PATHGATE__OS_T_DIR ? PATHGATE_FS_TYPE_DIRECTORY
                                                : PATHGATE_FS_TYPE_OTHER;
    pathgate__os_close(fd);
    return PATHGATE_OK;
}

/* --------------------------------------------------------------- lstat */

int pathgate_fs_lstat(pathgate_fs_stat_result *out, pathgate_resolver *resolver,
                      const char *address, size_t len, const pathgate_fs_options *opts,
                      pathgate_error *err)
{
    if (!out || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, "lstat", resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    pathgate__fs_entry e;
    if ((rc = pathgate__fs_entry_find(&e, &t, 0)) < 0)
        return pathgate__fs_fail_errno(err, rc, &t, PATHGATE__FS_FILE);
    pathgate__os_stat sx;
    if (!e.exists)
        rc = pathgate__fs_fail(err, PATHGATE_ENOTFOUND, &t, PATHGATE__FS_FILE);
    else if (e.st.type == PATHGATE__OS_T_LNK && pathgate__fs_leads_out(&t))
        rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, &t, PATHGATE__FS_FILE);
    else if (e.st.type == PATHGATE__OS_T_LNK && (rc = pathgate__fs_policy_link_hidden(&t, err)) < 0)
        ;
    else if ((rc = pathgate__os_statat(
                  e.dirfd, e.name, PATHGATE__OS_STAT_NOFOLLOW | PATHGATE__OS_STAT_BTIME, &sx)) < 0)
        rc = pathgate__fs_fail_errno(err, rc, &t, PATHGATE__FS_FILE);
    else if (pathgate__fs_stat_fill(out, t.alloc, t.address, t.address_len, &sx) < 0)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    pathgate__fs_entry_close(&e);
    return rc;
}

/* ------------------------------------------------------- chmod, utime */

/* The PATHGATE__OS_O_PATH fd of what t leads to, for a change of its attributes: the
 * base writable, the directory it lives in too, and (a directory) holding
 * no read-only base. The fd, or a failure with err set. */
static int open_for_change(const pathgate__fs_target *t, pathgate_error *err)
{
    if (t->base_flags & PATHGATE_BASE_READ_ONLY)
        return pathgate__fs_fail(err, PATHGATE_EACCES, t, PATHGATE__FS_FILE);
    if (pathgate__fs_leads_out(t))
        return pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, t, PATHGATE__FS_FILE);
    pathgate__fs_entry e;
    int rc = pathgate__fs_entry_find(&e, t, 1);
    if (rc < 0)
        return pathgate__fs_fail_errno(err, rc, t, PATHGATE__FS_FILE);
    if (!e.exists)
        rc = pathgate__fs_fail(err, PATHGATE_ENOTFOUND, t, PATHGATE__FS_FILE);
    else
        rc = pathgate__fs_entry_writable(t, &e, err);
    int fd = -1;
    if (rc >= 0) {
        fd = pathgate__os_openat(e.dirfd, e.name, PATHGATE__OS_O_PATH | O_NOFOLLOW | O_CLOEXEC, 0);
        pathgate__os_stat st;
        int se = 0;
        if (fd < 0)
            rc = pathgate__fs_fail_errno(err, fd, t, PATHGATE__FS_FILE);
        else if ((se = pathgate__os_statat(fd, "", 0, &st)) < 0)
            rc = pathgate__fs_fail_errno(err, se, t, PATHGATE__FS_FILE);
        else if (st.type == PATHGATE__OS_T_LNK) /* replaced by a link since the look */
            rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, t, PATHGATE__FS_FILE);
        else if (st.type == PATHGATE__OS_T_DIR) {
            int holds = pathgate__resolver_dir_holds_read_only(t->r, fd);
            if (holds == 1)
                rc = pathgate__fs_fail(err, PATHGATE_EACCES, t, PATHGATE__FS_FILE);
            else if (holds < 0)
                rc = pathgate__fs_fail_errno(err, holds, t, PATHGATE__FS_FILE);
        }
    }
    pathgate__fs_entry_close(&e);
    if (rc < 0) {
        if (fd >= 0)
            pathgate__os_close(fd);
        return rc;
    }
    return fd;
}

int pathgate_fs_chmod(pathgate_buf *path, pathgate_resolver *resolver, const char *address,
                      size_t len, unsigned int mode, const pathgate_fs_options *opts,
                      pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    if (mode & ~0777u)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "mode may hold permission bits only (0777): never setuid, "
                                   "setgid or sticky");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target t;
    int rc = pathgate__fs_target_for_change(&t, "chmod", NULL, r, opts, address, len, err);
    if (rc < 0)
        return rc;
    int fd = open_for_change(&t, err);
    if (fd < 0)
        return fd;
    int e = pathgate__os_fchmod(fd, mode);
    pathgate__os_close(fd);
    if (e)
        return pathgate__fs_fail_errno(err, e, &t, PATHGATE__FS_FILE);
    if (path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}

int pathgate_fs_utime(pathgate_buf *path, pathgate_resolver *resolver, const char *address,
                      size_t len, const pathgate_fs_time *times, const pathgate_fs_options *opts,
                      pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int64_t ts[4];
    for (int i = 0; i < 2; i++) {
        if (!times) {
            ts[2 * i] = 0;
            ts[2 * i + 1] = PATHGATE__OS_UTIME_NOW;
            continue;
        }
        long ns = times[i].nsec;
        if (ns != PATHGATE_FS_TIME_NOW && ns != PATHGATE_FS_TIME_OMIT &&
            (ns < 0 || ns > 999999999L))
            return pathgate__error_set(err, PATHGATE_EINVAL,
                                       "nanoseconds must be between 0 and 999999999");
        ts[2 * i] = times[i].sec;
        ts[2 * i + 1] = ns == PATHGATE_FS_TIME_NOW    ? PATHGATE__OS_UTIME_NOW
                        : ns == PATHGATE_FS_TIME_OMIT ? PATHGATE__OS_UTIME_OMIT
                                                      : ns;
    }
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target t;
    int rc = pathgate__fs_target_for_change(&t, "utime", NULL, r, opts, address, len, err);
    if (rc < 0)
        return rc;
    int fd = open_for_change(&t, err);
    if (fd < 0)
        return fd;
    int e = pathgate__os_futimes(fd, ts);
    pathgate__os_close(fd);
    if (e)
        return pathgate__fs_fail_errno(err, e, &t, PATHGATE__FS_FILE);
    if (path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}
