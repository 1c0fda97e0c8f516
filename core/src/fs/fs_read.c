/* fs_read.c - read (a line window, or base64), and download and read_bytes
 * (whole files). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_file.h"
#include "fs_result.h"
#include "fs_target.h"
#include "fs_text.h"
#include "resolver_internal.h"
#include "text.h"

/* Resolves text and reads the whole regular file (at most cap bytes). */
static int slurp_target(char **data, size_t *len, pathgate__os_stat *st, pathgate__fs_target *t,
                        pathgate_resolver *r, const pathgate_fs_options *opts, const char *text,
                        size_t text_len, pathgate_error *err)
{
    int rc = pathgate__fs_target_of(t, "download", r, opts, text, text_len, err);
    if (rc < 0)
        return rc;
    int fd = pathgate__fs_open_regular(t, st, err);
    if (fd < 0)
        return fd;
    uint64_t cap = pathgate__fs_max_file(opts);
    rc = pathgate__fs_slurp(data, len, t->alloc, fd, st, cap);
    pathgate__os_close(fd);
    if (rc == PATHGATE_ETOOLARGE)
        return pathgate__fs_fail_large(err, t, cap);
    if (rc < 0)
        return pathgate__fs_fail(err, rc, t, PATHGATE__FS_FILE);
    return PATHGATE_OK;
}

#define READ_BLOCK 65536

/* Bytes at the end of s[0..n) that start a UTF-8 sequence not finished
 * there (0-3): they wait for the next block. */
static size_t utf8_unfinished(const char *s, size_t n)
{
    for (size_t back = 1; back <= 3 && back <= n; back++) {
        unsigned char c = (unsigned char)s[n - back];
        if ((c & 0xC0) == 0x80)
            continue; /* continuation byte: look further back */
        size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return need > back ? back : 0;
    }
    return 0;
}

/* The streamed scan of one file: a line window, the line count, and
 * whether the file is text. */
typedef struct scan {
    uint64_t offset, end; /* window [offset, end) in 0-based lines */
    uint64_t line;        /* '\n' seen so far */
    int not_text;
    int nonblank;
    int last_nl; /* the last byte seen was '\n' */
    int after;   /* bytes were seen after the window */
    uint64_t bytes;
    pathgate_buf out; /* the window's raw bytes, terminators included */
    size_t out_cap;
    uint64_t cap;
    int keep_crlf; /* PATHGATE_FS_KEEP_CRLF */
} scan;

static int out_append(scan *sc, const pathgate_allocator *a, const char *p, size_t n)
{
    if (!n)
        return 0;
    if ((uint64_t)sc->out.len + n > sc->cap)
        return PATHGATE_ETOOLARGE;
    if (sc->out.len + n + 1 > sc->out_cap) {
        size_t cap = sc->out_cap ? sc->out_cap : 4096;
        while (cap < sc->out.len + n + 1)
            cap *= 2;
        char *nb = pathgate__realloc(a, sc->out.ptr, cap);
        if (!nb)
            return PATHGATE_ENOMEM;
        sc->out.ptr = nb;
        sc->out_cap = cap;
    }
    memcpy(sc->out.ptr + sc->out.len, p, n);
    sc->out.len += n;
    return 0;
}

/* Feeds s[0..n) (whole UTF-8 sequences) to the scan. For a file over the
 * cap (`big`) nothing after the window's end is looked at. */
static int scan_region(scan *sc, const pathgate_allocator *a, const char *s, size_t n, int big)
{
    if (!n)
        return 0;
    sc->bytes += n;
    const char *p = s, *e = s + n, *upto = e;
    while (p < e) {
        if (sc->line >= sc->end) {
            sc->after = 1;
            if (big) {
                upto = p;
                break;
            }
            sc->line += pathgate__fs_count_newlines(p, (size_t)(e - p));
            break;
        }
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        const char *q = nl ? nl + 1 : e;
        if (sc->line >= sc->offset) {
            int rc = out_append(sc, a, p, (size_t)(q - p));
            if (rc < 0)
                return rc;
        }
        if (nl)
            sc->line++;
        p = q;
    }
    size_t m = (size_t)(upto - s);
    if (m) {
        if (!sc->not_text) {
            if (memchr(s, '\0', m))
                sc->not_text = PATHGATE_FS_NOT_TEXT_NUL;
            else if (!pathgate__utf8_valid(s, m))
                sc->not_text = PATHGATE_FS_NOT_TEXT_UTF8;
        }
        if (!sc->nonblank && !pathgate__fs_blank(s, m))
            sc->nonblank = 1;
        sc->last_nl = s[m - 1] == '\n';
    }
    return 0;
}

/* The window's raw bytes as read shows them: "\r\n" -> "\n" (unless
 * keep_crlf), no final terminator. 1 when there was one. */
static int window_finish(pathgate_buf *b, int keep_crlf)
{
    char *s = b->ptr;
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (!keep_crlf && s[i] == '\r' && i + 1 < b->len && s[i + 1] == '\n')
            continue;
        s[n++] = s[i];
    }
    int ended = n && s[n - 1] == '\n';
    if (ended)
        n -= keep_crlf && n > 1 && s[n - 2] == '\r' ? 2 : 1;
    s[n] = '\0';
    b->len = n;
    return ended;
}

/*
 * Streams fd in fixed blocks: collects the window, counts lines, checks the
 * text. A file larger than the cap is read only up to the end of the
 * window (*partial). 0, or a negative code (message not set).
 */
static int scan_fd(scan *sc, int *partial, const pathgate_allocator *a, int fd, uint64_t size)
{
    char *buf = pathgate__malloc(a, READ_BLOCK + 4);
    if (!buf)
        return PATHGATE_ENOMEM;
    const int big = size > sc->cap;
    size_t carry = 0;
    int rc = 0;
    *partial = 0;
    for (;;) {
        int64_t r = pathgate__os_read(fd, buf + carry, READ_BLOCK);
        if (r < 0) {
            rc = PATHGATE_EIO;
            break;
        }
        size_t n = carry + (size_t)r;
        size_t keep = r == 0 ? 0 : utf8_unfinished(buf, n);
        if ((rc = scan_region(sc, a, buf, n - keep, big)) < 0)
            break;
        if (r == 0)
            break;
        memmove(buf, buf + n - keep, keep);
        carry = keep;
        if (big && sc->line >= sc->end) {
            *partial = 1; /* the window is complete: the rest is not read */
            break;
        }
        if (big && sc->not_text)
            break; /* no whole-file answer is possible */
    }
    pathgate__free(a, buf);
    return rc;
}

/* Scans fd for the window (scan_fd); a file that is not text is read
 * again whole, as base64, if it fits the cap. 0 or a PATHGATE_ code. */
static int read_scan(scan *sc, int *partial, pathgate_fs_read_result *out,
                     const pathgate_allocator *a, int fd, const pathgate__os_stat *st)
{
    int rc = scan_fd(sc, partial, a, fd, st->size > 0 ? (uint64_t)st->size : 0);
    if (rc != 0 || !sc->not_text)
        return rc;
    pathgate__free(a, sc->out.ptr);
    sc->out.ptr = NULL;
    char *data = NULL;
    size_t n = 0;
    if (pathgate__os_seek(fd, 0, SEEK_SET) < 0)
        return PATHGATE_EIO;
    rc = pathgate__fs_slurp(&data, &n, a, fd, st, sc->cap);
    if (rc == 0) {
        rc = pathgate__fs_base64(&out->content, a, data, n);
        pathgate__free(a, data);
        out->encoding = PATHGATE_FS_BASE64;
        out->not_text = sc->not_text;
    }
    return rc;
}

/* The text answer from a scan: the empty-file reminder, or the window of
 * lines and where it stands in the file. sc->out moves into out; on a
 * failure out is disposed of and err filled. */
static int read_text(pathgate_fs_read_result *out, scan *sc, int partial, int64_t offset,
                     const pathgate__os_stat *st, const pathgate_allocator *a, pathgate_error *err)
{
    if (!partial && !sc->nonblank) {
        pathgate__free(a, sc->out.ptr);
        if (pathgate__buf_set(&out->content, a, PATHGATE_FS_EMPTY_REMINDER,
                              sizeof PATHGATE_FS_EMPTY_REMINDER - 1) < 0) {
            pathgate_fs_read_result_dispose(out);
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        }
        out->empty = 1;
        return PATHGATE_OK;
    }
    /* lines: every '\n', and a last line without one */
    uint64_t total = sc->line + (!partial && sc->bytes && !sc->last_nl);
    if (!partial && sc->offset >= total) {
        pathgate__free(a, sc->out.ptr);
        pathgate_fs_read_result_dispose(out);
        return pathgate__error_set(err, PATHGATE_ERANGE,
                                   "Line offset %lld exceeds file length (%llu lines)",
                                   (long long)offset, (unsigned long long)total);
    }
    if (!sc->out.ptr && !(sc->out.ptr = pathgate__malloc(a, 1))) {
        pathgate_fs_read_result_dispose(out);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    sc->out.ptr[sc->out.len] = '\0';
    out->final_newline = window_finish(&sc->out, sc->keep_crlf);
    pathgate__buf_adopt(&out->content, a, sc->out.ptr, sc->out.len);
    uint64_t end = sc->end;
    if (partial)
        total = end; /* lines counted so far: the window's end */
    if (end > total)
        end = total;
    out->has_window = 1;
    out->partial = partial;
    out->total_lines = total;
    out->start_line = sc->offset + 1;
    out->end_line = end;
    out->has_next = partial ? sc->after || sc->bytes < (uint64_t)st->size : end < total;
    out->next_offset = end;
    return PATHGATE_OK;
}

int pathgate_fs_read(pathgate_fs_read_result *out, pathgate_resolver *resolver, const char *address,
                     size_t len, int64_t offset, int64_t limit, const pathgate_fs_options *opts,
                     pathgate_error *err)
{
    if (!out || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    pathgate__fs_target t;
    int rc;
    if ((rc = pathgate__fs_target_of(&t, "read", resolver, opts, address, len, err)) < 0)
        return rc;
    const pathgate_allocator *a = t.alloc;
    if (limit <= 0) {
        /* nothing asked for: the file is not inspected */
        if (pathgate__buf_set(&out->path, a, t.address, t.address_len) < 0)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        out->no_lines_requested = 1;
        return PATHGATE_OK;
    }
    if (offset < 0)
        offset = 0;
    pathgate__os_stat st;
    int fd = pathgate__fs_open_regular(&t, &st, err);
    if (fd < 0)
        return fd;
    const uint64_t cap = pathgate__fs_max_file(opts);
    scan sc;
    memset(&sc, 0, sizeof sc);
    sc.offset = (uint64_t)offset;
    sc.end = sc.offset + (uint64_t)limit;
    if (sc.end < sc.offset)
        sc.end = UINT64_MAX;
    sc.cap = cap;
    sc.keep_crlf = opts && (opts->flags & PATHGATE_FS_KEEP_CRLF);
    int partial = 0;
    rc = read_scan(&sc, &partial, out, a, fd, &st);
    pathgate__os_close(fd);
    if (rc < 0) {
        pathgate__free(a, sc.out.ptr);
        pathgate_fs_read_result_dispose(out);
        if (rc == PATHGATE_ETOOLARGE)
            return pathgate__fs_fail_large(err, &t, cap);
        if (rc == PATHGATE_ENOMEM)
            return pathgate__error_set(err, rc, NULL);
        return pathgate__fs_fail(err, rc, &t, PATHGATE__FS_FILE);
    }
    if (pathgate__buf_set(&out->path, a, t.address, t.address_len) < 0) {
        pathgate__free(a, sc.out.ptr);
        pathgate_fs_read_result_dispose(out);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    pathgate__fs_format_time(out->modified_at, (int64_t)st.mtime_sec, st.mtime_nsec);
    if (out->encoding == PATHGATE_FS_BASE64)
        return PATHGATE_OK;
    return read_text(out, &sc, partial, offset, &st, a, err);
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
        pathgate__os_stat st;
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

int pathgate_fs_read_bytes(pathgate_buf *content, pathgate_resolver *resolver, const char *address,
                           size_t len, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (content)
        pathgate_buf_dispose(content);
    if (!content || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target t;
    pathgate__os_stat st;
    char *data = NULL;
    size_t n = 0;
    int rc = slurp_target(&data, &n, &st, &t, r, opts, address, len, err);
    if (rc < 0)
        return rc;
    pathgate__buf_adopt(content, t.alloc, data, n);
    return PATHGATE_OK;
}
