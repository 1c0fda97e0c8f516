/* fs_write.c - write, edit and upload: atomic replacement beneath a base. */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_internal.h"

static int put_path(pathgate_buf *path, const pathgate__fs_target *t, pathgate_error *err)
{
    if (path && pathgate__buf_set(path, t->alloc, t->address, t->address_len) < 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}

static int write_one(pathgate__fs_target *t, pathgate_resolver *r, const char *address, size_t len,
                     const void *content, size_t content_len, const pathgate_fs_options *opts,
                     pathgate_error *err)
{
    if (!address)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    if (!content && content_len)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int rc = pathgate__fs_resolve(t, r, opts, address, len, err);
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
    int rc = write_one(&t, r, address, len, content, content_len, opts, err);
    if (rc < 0)
        return rc;
    return put_path(path, &t, err);
}

int pathgate_fs_edit(pathgate_buf *path, size_t *occurrences, pathgate_resolver *resolver,
                     const char *address, size_t len, const pathgate_fs_edit_op *edit,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (occurrences)
        *occurrences = 0;
    if (!address || !edit || (!edit->old_text && edit->old_len) ||
        (!edit->new_text && edit->new_len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    const int dry_run = opts && (opts->flags & PATHGATE_FS_DRY_RUN);
    pathgate__fs_target t;
    int rc = dry_run ? pathgate__fs_target_of(&t, resolver, opts, address, len, err)
                     : pathgate__fs_target_for_write(&t, resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    if (edit->old_len == 0)
        return pathgate__error_set(err, PATHGATE_EEDIT, "old_string must not be empty");
    struct stat st;
    int fd = pathgate__fs_open_regular(&t, &st, err);
    if (fd < 0)
        return fd;
    char *data = NULL;
    size_t n = 0;
    rc = pathgate__fs_slurp(&data, &n, t.alloc, fd, &st, pathgate__fs_max_file(opts));
    close(fd);
    if (rc == PATHGATE_ETOOLARGE)
        return pathgate__fs_fail_large(err, &t, pathgate__fs_max_file(opts));
    if (rc < 0)
        return pathgate__fs_fail(err, rc, &t, PATHGATE__FS_FILE);
    char *edited = NULL;
    size_t edited_len = 0, count = 0;
    rc = pathgate__fs_replace(&edited, &edited_len, &count, t.alloc, data, n, edit->old_text,
                              edit->old_len, edit->new_text, edit->new_len, edit->replace_all, err);
    pathgate__free(t.alloc, data);
    if (rc < 0)
        return rc;
    if (!dry_run)
        rc = pathgate__fs_replace_file(&t, edited, edited_len, opts, err);
    pathgate__free(t.alloc, edited);
    if (rc < 0)
        return rc;
    if ((rc = put_path(path, &t, err)) < 0)
        return rc;
    if (occurrences)
        *occurrences = count;
    return PATHGATE_OK;
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
        codes[i] = write_one(&t, r, items[i].path, items[i].path_len, items[i].data, items[i].size,
                             opts, &item_err);
        nomem |= codes[i] == PATHGATE_ENOMEM;
    }
    /* Running out of memory is not an answer about one file: the call
     * fails (every item was still tried, and codes says which). */
    if (nomem)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}
