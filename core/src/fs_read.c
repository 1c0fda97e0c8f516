/* fs_read.c - read (a line window, or base64) and download (whole files). */
#define _GNU_SOURCE
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_internal.h"
#include "resolver_internal.h"
#include "text.h"

/* Resolves text and reads the whole regular file. */
static int slurp_target(char **data, size_t *len, struct stat *st, pathgate__fs_target *t,
                        pathgate_resolver *r, const pathgate_fs_options *opts, const char *text,
                        size_t text_len, pathgate_error *err)
{
    int rc = pathgate__fs_resolve(t, r, opts, text, text_len, err);
    if (rc < 0)
        return rc;
    int fd = pathgate__fs_open_regular(t, st, err);
    if (fd < 0)
        return fd;
    rc = pathgate__fs_slurp(data, len, t->alloc, fd, st);
    close(fd);
    if (rc < 0)
        return pathgate__fs_fail(err, rc, t, PATHGATE__FS_FILE);
    return PATHGATE_OK;
}

int pathgate_fs_read(pathgate_fs_read_result *out, pathgate_resolver *resolver,
                     const char *address, size_t len, int64_t offset, int64_t limit,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!out || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target t;
    int rc;
    if (limit <= 0) {
        /* nothing asked for: the file is not inspected */
        if ((rc = pathgate__fs_resolve(&t, r, opts, address, len, err)) < 0)
            return rc;
        if (pathgate__buf_set(&out->path, t.alloc, t.address, t.address_len) < 0)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        out->no_lines_requested = 1;
        return PATHGATE_OK;
    }
    if (offset < 0)
        offset = 0;
    char *data = NULL;
    size_t n = 0;
    struct stat st;
    if ((rc = slurp_target(&data, &n, &st, &t, r, opts, address, len, err)) < 0)
        return rc;
    const pathgate_allocator *a = t.alloc;
    if (pathgate__buf_set(&out->path, a, t.address, t.address_len) < 0) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto fail;
    }
    pathgate__fs_format_time(out->modified_at, (int64_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);

    if (memchr(data, '\0', n) || !pathgate__utf8_valid(data, n)) {
        if ((rc = pathgate__fs_base64(&out->content, a, data, n)) < 0) {
            pathgate__error_set(err, rc, NULL);
            goto fail;
        }
        out->encoding = PATHGATE_FS_BASE64;
        pathgate__free(a, data);
        return PATHGATE_OK;
    }
    if (pathgate__fs_blank(data, n)) {
        if (pathgate__buf_set(&out->content, a, PATHGATE_FS_EMPTY_REMINDER, sizeof PATHGATE_FS_EMPTY_REMINDER - 1) < 0) {
            rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
            goto fail;
        }
        out->empty = 1;
        pathgate__free(a, data);
        return PATHGATE_OK;
    }
    size_t total = 0;
    rc = pathgate__fs_window(&out->content, &total, a, data, n, (uint64_t)offset, (uint64_t)limit);
    if (rc == PATHGATE_ERANGE) {
        pathgate__error_set(err, rc, "Line offset %lld exceeds file length (%zu lines)",
                            (long long)offset, total);
        goto fail;
    }
    if (rc < 0) {
        pathgate__error_set(err, rc, NULL);
        goto fail;
    }
    uint64_t end = (uint64_t)offset + (uint64_t)limit;
    if (end > total || end < (uint64_t)offset)
        end = total;
    out->has_window = 1;
    out->total_lines = total;
    out->start_line = (uint64_t)offset + 1;
    out->end_line = end;
    out->has_next = end < total;
    out->next_offset = end;
    pathgate__free(a, data);
    return PATHGATE_OK;

fail:
    pathgate__free(a, data);
    pathgate_fs_read_result_dispose(out);
    return rc;
}

int pathgate_fs_download(pathgate_fs_blobs *out, pathgate_resolver *resolver,
                         const pathgate_fs_item *items, size_t count,
                         const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!out || (!items && count))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    const pathgate_allocator *a = pathgate__resolver_allocator(r);
    out->alloc = *a;
    out->items = pathgate__calloc(a, count ? count : 1, sizeof *out->items);
    if (!out->items) {
        memset(out, 0, sizeof *out);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    out->count = count;
    int nomem = 0;
    for (size_t i = 0; i < count; i++) {
        pathgate__fs_target t;
        struct stat st;
        char *data = NULL;
        size_t n = 0;
        pathgate_error item_err;
        int rc = items[i].path
                     ? slurp_target(&data, &n, &st, &t, r, opts, items[i].path, items[i].path_len,
                                    &item_err)
                     : pathgate__error_set(&item_err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
        out->items[i].code = rc;
        out->items[i].data = (unsigned char *)data;
        out->items[i].size = n;
        nomem |= rc == PATHGATE_ENOMEM;
    }
    /* Running out of memory is not an answer about one file: the call
     * fails and keeps nothing. */
    if (nomem) {
        pathgate_fs_blobs_dispose(out);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    return PATHGATE_OK;
}
