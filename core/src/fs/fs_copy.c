/* fs_copy.c - copy: a regular file to a new name through an atomic handle,
 * sharing the bytes where the filesystem can (pathgate__os_copy_fd). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_entry.h"
#include "fs_file.h"
#include "fs_policy.h"
#include "fs_target.h"
#include "resolver_internal.h"

int pathgate_fs_copy(pathgate_buf *path, pathgate_resolver *resolver, const char *source,
                     size_t source_len, const char *destination, size_t destination_len,
                     unsigned int flags, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!source || !destination)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    if (flags & ~PATHGATE_FS_COPY_REPLACE)
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown copy flags");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    const pathgate_allocator *alloc = pathgate__resolver_allocator(r);
    pathgate__fs_target *src = pathgate__malloc(alloc, 2 * sizeof *src);
    if (!src)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    pathgate__fs_target *dst = src + 1;
    int in = -1, out = -1, rc;
    pathgate_fs_atomic *a = NULL;
    pathgate__os_stat st;
    if ((rc = pathgate__fs_resolve_role(src, "copy", "source", r, opts, source, source_len, err)) <
        0)
        goto done;
    pathgate__fs_audit(src, "allowed", NULL, NULL);
    if ((rc = pathgate__fs_target_for_change(dst, "copy", "destination", r, opts, destination,
                                             destination_len, err)) < 0 ||
        (rc = in = pathgate__fs_open_regular(src, &st, err)) < 0)
        goto done;
    unsigned int of = PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_CREATE | PATHGATE_FS_OPEN_TRUNCATE;
    if (!(flags & PATHGATE_FS_COPY_REPLACE))
        of |= PATHGATE_FS_OPEN_EXCL;
    int existed = 0;
    if ((rc = pathgate__fs_atomic_begin(&a, &out, &existed, dst, of, err)) < 0)
        goto done;
    int e = 0;
    if (!existed)
        e = pathgate__os_fchmod(out, st.mode & 0777);
    if (!e)
        e = pathgate__os_copy_fd(out, in, alloc);
    if (e) {
        pathgate_fs_atomic_abort(a);
        rc = pathgate__fs_fail_errno(err, e, dst, PATHGATE__FS_FILE);
    } else {
        rc = pathgate_fs_atomic_commit(a, out, err);
    }
    a = NULL;
    if (rc == 0 && path && pathgate__buf_set(path, alloc, dst->address, dst->address_len) < 0)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
done:
    if (in >= 0)
        pathgate__os_close(in);
    if (out >= 0)
        pathgate__os_close(out);
    pathgate__free(alloc, src);
    return rc;
}
