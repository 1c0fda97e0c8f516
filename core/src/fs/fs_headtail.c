/* fs_headtail.c - head and tail: the first or last lines of a regular
 * file, read from the start only as far as needed, or backwards from the
 * end, in memory bounded by the size cap (opts->max_file_size): a window
 * larger than the cap is refused (PATHGATE_ETOOLARGE) as soon as the bytes
 * read show it, without reading on. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_file.h"
#include "fs_target.h"

#define CHUNK 65536

static int open_target(pathgate__fs_target *t, const char *op, pathgate__os_stat *st,
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

/* Ends a head or tail: the bytes become content, or the failure is
 * reported (ETOOLARGE with the size cap's message). */
static int finish(pathgate_buf *content, const pathgate__fs_target *t, int fd, char *buf, size_t n,
                  int rc, uint64_t cap, pathgate_error *err)
{
    pathgate__os_close(fd);
    const pathgate_allocator *a = t->alloc;
    if (rc < 0) {
        pathgate__free(a, buf);
        if (rc == PATHGATE_ETOOLARGE)
            return pathgate__fs_fail_large(err, t, cap);
        return pathgate__fs_fail(err, rc, t, PATHGATE__FS_FILE);
    }
    buf[n] = '\0';
    pathgate__buf_adopt(content, a, buf, n);
    return PATHGATE_OK;
}

int pathgate_fs_head(pathgate_buf *content, pathgate_resolver *resolver, const char *address,
                     size_t len, size_t lines, const pathgate_fs_options *opts, pathgate_error *err)
{
    pathgate__fs_target t;
    pathgate__os_stat st;
    int fd = open_target(&t, "head", &st, content, resolver, address, len, opts, err);
    if (fd < 0)
        return fd;
    const pathgate_allocator *a = t.alloc;
    const uint64_t cap = pathgate__fs_max_file(opts);
    if (lines == PATHGATE_FS_NO_LIMIT && st.size > 0 && (uint64_t)st.size > cap)
        return finish(content, &t, fd, NULL, 0, PATHGATE_ETOOLARGE, cap, err);
    /* The buffer never holds more than cap bytes plus one read. It is
     * allocated once for what the file holds (pages are touched only as
     * they are read): growing it by doubling would copy, and hold the old
     * and the new block at once. It grows only if the file does. */
    const size_t most = cap < SIZE_MAX - CHUNK - 1 ? (size_t)cap + CHUNK + 1 : SIZE_MAX;
    uint64_t hint = st.size > 0 ? (uint64_t)st.size : 0;
    size_t bufcap = hint < most - CHUNK - 1 ? (size_t)hint + CHUNK + 1 : most;
    size_t n = 0, seen = 0;
    char *buf = pathgate__malloc(a, bufcap);
    int rc = buf ? PATHGATE_OK : PATHGATE_ENOMEM;
    while (rc == 0 && seen < lines) {
        if (bufcap - n < CHUNK + 1) {
            size_t ncap = bufcap <= most / 2 ? bufcap * 2 : most;
            char *nb = pathgate__realloc(a, buf, ncap);
            if (!nb) {
                rc = PATHGATE_ENOMEM;
                break;
            }
            buf = nb;
            bufcap = ncap;
        }
        int64_t r = pathgate__os_read(fd, buf + n, CHUNK);
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
        if ((uint64_t)n > cap)
            rc = PATHGATE_ETOOLARGE; /* the window is larger than the cap */
    }
    return finish(content, &t, fd, buf, n, rc, cap, err);
}

/* Where the window of the last `lines` lines starts: scans backwards from
 * the end in CHUNK blocks for the lines-th '\n' before the last byte (a
 * final '\n' ends the last line, it does not start another), giving up
 * with ETOOLARGE once the window would hold more than cap bytes. */
static int tail_start(int64_t *start, int fd, int64_t size, size_t lines, uint64_t cap, char *chunk)
{
    *start = 0;
    if (lines == 0) {
        *start = size;
        return 0;
    }
    size_t seen = 0;
    int64_t pos = size > 0 ? size - 1 : 0;
    while (pos > 0) {
        if ((uint64_t)(size - pos) > cap)
            return PATHGATE_ETOOLARGE;
        int64_t from = pos > CHUNK ? pos - CHUNK : 0;
        int64_t r = pathgate__os_pread(fd, chunk, (size_t)(pos - from), (uint64_t)from);
        if (r < 0)
            return PATHGATE_EIO;
        if (r != pos - from)
            break; /* shrunk meanwhile: take what is there from the start */
        for (int64_t i = r - 1; i >= 0; i--) {
            if (chunk[i] == '\n' && ++seen == lines) {
                *start = from + i + 1;
                return (uint64_t)(size - *start) > cap ? PATHGATE_ETOOLARGE : 0;
            }
        }
        pos = from;
    }
    return (uint64_t)size > cap ? PATHGATE_ETOOLARGE : 0;
}

int pathgate_fs_tail(pathgate_buf *content, pathgate_resolver *resolver, const char *address,
                     size_t len, size_t lines, const pathgate_fs_options *opts, pathgate_error *err)
{
    pathgate__fs_target t;
    pathgate__os_stat st;
    int fd = open_target(&t, "tail", &st, content, resolver, address, len, opts, err);
    if (fd < 0)
        return fd;
    const pathgate_allocator *a = t.alloc;
    const uint64_t cap = pathgate__fs_max_file(opts);
    const int64_t size = (int64_t)st.size;
    int64_t start = 0;
    int rc;
    if (lines == PATHGATE_FS_NO_LIMIT) {
        rc = (uint64_t)size > cap ? PATHGATE_ETOOLARGE : 0;
    } else {
        char *chunk = pathgate__malloc(a, CHUNK);
        rc = chunk ? tail_start(&start, fd, size, lines, cap, chunk) : PATHGATE_ENOMEM;
        pathgate__free(a, chunk);
    }
    char *buf = NULL;
    size_t n = 0;
    if (rc == 0) {
        size_t want = (size_t)(size - start);
        buf = pathgate__malloc(a, want + 1);
        if (!buf)
            rc = PATHGATE_ENOMEM;
        while (rc == 0 && n < want) {
            int64_t r = pathgate__os_pread(fd, buf + n, want - n, (uint64_t)start + n);
            if (r < 0)
                rc = PATHGATE_EIO;
            else if (r == 0)
                break;
            else
                n += (size_t)r;
        }
    }
    return finish(content, &t, fd, buf, n, rc, cap, err);
}
