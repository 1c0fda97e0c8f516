/* fs_write.c - write and upload: atomic replacement
 * beneath a base. */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_file.h"
#include "fs_target.h"

static int put_path(pathgate_buf *path, const pathgate__fs_target *t, pathgate_error *err)
{
    if (path && pathgate__buf_set(path, t->alloc, t->address, t->address_len) < 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}

static int write_one(pathgate__fs_target *t, const char *op, pathgate_resolver *r,
                     const char *address, size_t len, const void *content, size_t content_len,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!address)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    if (!content && content_len)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int rc = pathgate__fs_resolve(t, op, r, opts, address, len, err);
    if (rc < 0)
        return rc;
    if ((rc = pathgate__fs_check_writable(t, err)) < 0)
        return rc;
    return pathgate__fs_replace_file(t, content ? content : "", content_len, opts, err);
}

int pathgate_fs_write(pathgate_buf *path, pathgate_resolver *resolver, const char *address,
                      size_t len, const char *content, size_t content_len,
                      const pathgate_fs_options *opts, pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target t;
    int rc = write_one(&t, "write", r, address, len, content, content_len, opts, err);
    if (rc < 0)
        return rc;
    return put_path(path, &t, err);
}

int pathgate_fs_upload(int *codes, pathgate_resolver *resolver, const pathgate_fs_item *items,
                       size_t count, const pathgate_fs_options *opts, pathgate_error *err)
{
    if ((!codes || !items) && count)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    int nomem = 0;
    for (size_t i = 0; i < count; i++) {
        pathgate__fs_target t;
        pathgate_error item_err;
        codes[i] = write_one(&t, "upload", r, items[i].path, items[i].path_len, items[i].data,
                             items[i].size, opts, &item_err);
        nomem |= codes[i] == PATHGATE_ENOMEM;
    }
    /* Running out of memory is not an answer about one file: the call
     * fails (every item was still tried, and codes says which). */
    if (nomem)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}
