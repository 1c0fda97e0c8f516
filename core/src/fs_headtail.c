/* fs_headtail.c - head and tail: the first or last lines of a regular
 * file, read from the start only as far as needed, or backwards from the
 * end. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_internal.h"

#define CHUNK 65536

static int open_target(pathgate__fs_target *t, const char *op, struct stat *st,
                       pathgate_buf *content, pathgate_resolver *resolver, const char *address,
                       size_t len, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (content)
        pathgate_buf_dispose(content);
    if (!content || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int rc = pathgate__fs_target_of(t, op, resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    return pathgate__fs_open_regular(t, st, err);
}

int pathgate_fs_head(pathgate_buf *content, pathgate_resolver *resolver, const char *address,
                     size_t len, size_t lines, const pathgate_fs_options *opts, pathgate_error *err)
{
    pathgate__fs_target t;
    struct stat st;
    int fd = open_target(&t, "head", &st, content, resolver, address, len, opts, err);
    if (fd < 0)
        return fd;
    const pathgate_allocator *a = t.alloc;
    size_t cap = CHUNK + 1, n = 0, seen = 0;
    char *buf = pathgate__malloc(a, cap);
    int rc = buf ? PATHGATE_OK : PATHGATE_ENOMEM;
    while (rc == 0 && seen < lines) {
        if (cap - n < CHUNK + 1) {
            char *nb = pathgate__realloc(a, buf, cap * 2);
            if (!nb) {
                rc = PATHGATE_ENOMEM;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, CHUNK);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = PATHGATE_EIO;
            break;
        }
        if (r == 0)
            break;
        /* cut after the lines-th '\n' */
        char *p = buf + n, *end = buf + n + r;
        while (seen < lines) {
            char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl)
                break;
            p = nl + 1;
            if (++seen == lines)
                end = p;
        }
        n = (size_t)(end - buf);
    }
    close(fd);
    if (rc < 0) {
        pathgate__free(a, buf);
        return pathgate__fs_fail(err, rc, &t, PATHGATE__FS_FILE);
    }
    buf[n] = '\0';
    pathgate__buf_adopt(content, a, buf, n);
    return PATHGATE_OK;
}

int pathgate_fs_tail(pathgate_buf *content, pathgate_resolver *resolver, const char *address,
                     size_t len, size_t lines, const pathgate_fs_options *opts, pathgate_error *err)
{
    pathgate__fs_target t;
    struct stat st;
    int fd = open_target(&t, "tail", &st, content, resolver, address, len, opts, err);
    if (fd < 0)
        return fd;
    const pathgate_allocator *a = t.alloc;
    off_t size = st.st_size, start = 0;
    char *chunk = pathgate__malloc(a, CHUNK);
    int rc = chunk ? PATHGATE_OK : PATHGATE_ENOMEM;
    if (lines == 0)
        start = size;
    /* scan backwards for the lines-th '\n' before the last byte (a final
     * '\n' ends the last line, it does not start another) */
    size_t seen = 0;
    off_t pos = size > 0 ? size - 1 : 0;
    int found = lines == 0;
    while (rc == 0 && !found && pos > 0) {
        off_t from = pos > CHUNK ? pos - CHUNK : 0;
        ssize_t r = pread(fd, chunk, (size_t)(pos - from), from);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)(pos - from)) {
            if (r < 0) {
                rc = PATHGATE_EIO;
                break;
            }
            /* shrunk meanwhile: take what is there from the start */
            break;
        }
        for (ssize_t i = r - 1; i >= 0; i--) {
            if (chunk[i] == '\n' && ++seen == lines) {
                start = from + i + 1;
                found = 1;
                break;
            }
        }
        pos = from;
    }
    pathgate__free(a, chunk);
    char *buf = NULL;
    size_t n = 0;
    if (rc == 0) {
        size_t want = (size_t)(size - start);
        buf = pathgate__malloc(a, want + 1);
        if (!buf)
            rc = PATHGATE_ENOMEM;
        while (rc == 0 && n < want) {
            ssize_t r = pread(fd, buf + n, want - n, start + (off_t)n);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                rc = PATHGATE_EIO;
            else if (r == 0)
                break;
            else
                n += (size_t)r;
        }
    }
    close(fd);
    if (rc < 0) {
        pathgate__free(a, buf);
        return pathgate__fs_fail(err, rc, &t, PATHGATE__FS_FILE);
    }
    buf[n] = '\0';
    pathgate__buf_adopt(content, a, buf, n);
    return PATHGATE_OK;
}
