/* fs_edits.c - multi-edit: replacements applied in order in memory, one
 * atomic write (none with dry_run), and the unified diff of the change. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_internal.h"

#define CONTEXT 3

typedef struct line {
    const char *p;
    size_t len; /* with its '\n' when it has one */
} line;

static line *split_lines(const pathgate_allocator *a, const char *s, size_t len, size_t *n)
{
    size_t count = pathgate__fs_count_lines(s, len);
    line *v = pathgate__malloc(a, (count ? count : 1) * sizeof *v);
    if (!v)
        return NULL;
    const char *p = s, *end = s + len;
    for (size_t i = 0; i < count; i++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl + 1 : end;
        v[i].p = p;
        v[i].len = (size_t)(e - p);
        p = e;
    }
    *n = count;
    return v;
}

static int line_eq(const line *x, const line *y)
{
    return x->len == y->len && memcmp(x->p, y->p, x->len) == 0;
}

typedef struct out {
    char *p;
    size_t len, cap;
    const pathgate_allocator *a;
    int oom;
} out;

static void put(out *o, const char *s, size_t n)
{
    if (o->oom)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = (o->len + n + 1) * 2;
        char *np = pathgate__realloc(o->a, o->p, cap);
        if (!np) {
            o->oom = 1;
            return;
        }
        o->p = np;
        o->cap = cap;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

static void put_line(out *o, char mark, const line *l)
{
    put(o, &mark, 1);
    put(o, l->p, l->len);
    if (!l->len || l->p[l->len - 1] != '\n')
        put(o, "\n\\ No newline at end of file\n", 30);
}

/* The one-hunk unified diff of a -> b into d (empty when equal). */
static int make_diff(pathgate_buf *d, const pathgate_allocator *a, const char *address,
                     const char *x, size_t xlen, const char *y, size_t ylen)
{
    size_t n = 0, m = 0;
    line *u = split_lines(a, x, xlen, &n);
    line *v = u ? split_lines(a, y, ylen, &m) : NULL;
    if (!v) {
        pathgate__free(a, u);
        return PATHGATE_ENOMEM;
    }
    size_t pre = 0;
    while (pre < n && pre < m && line_eq(&u[pre], &v[pre]))
        pre++;
    size_t suf = 0;
    while (suf < n - pre && suf < m - pre && line_eq(&u[n - 1 - suf], &v[m - 1 - suf]))
        suf++;
    out o = {NULL, 0, 0, a, 0};
    if (pre < n || pre < m) {
        size_t start = pre > CONTEXT ? pre - CONTEXT : 0;
        size_t tail = suf > CONTEXT ? CONTEXT : suf;
        size_t ocount = n - suf + tail - start, ncount = m - suf + tail - start;
        char hdr[160];
        put(&o, "--- ", 4);
        put(&o, address, strlen(address));
        put(&o, "\n+++ ", 5);
        put(&o, address, strlen(address));
        put(&o, "\n", 1);
        int k = snprintf(hdr, sizeof hdr, "@@ -%zu,%zu +%zu,%zu @@\n",
                         ocount ? start + 1 : start, ocount, ncount ? start + 1 : start, ncount);
        put(&o, hdr, (size_t)k);
        for (size_t i = start; i < pre; i++)
            put_line(&o, ' ', &u[i]);
        for (size_t i = pre; i < n - suf; i++)
            put_line(&o, '-', &u[i]);
        for (size_t i = pre; i < m - suf; i++)
            put_line(&o, '+', &v[i]);
        for (size_t i = n - suf; i < n - suf + tail; i++)
            put_line(&o, ' ', &u[i]);
    }
    pathgate__free(a, u);
    pathgate__free(a, v);
    if (o.oom) {
        pathgate__free(a, o.p);
        return PATHGATE_ENOMEM;
    }
    if (!o.p)
        return pathgate__buf_set(d, a, "", 0) < 0 ? PATHGATE_ENOMEM : PATHGATE_OK;
    pathgate__buf_adopt(d, a, o.p, o.len);
    return PATHGATE_OK;
}

int pathgate_fs_edits(pathgate_buf *path, pathgate_buf *diff, pathgate_resolver *resolver,
                      const char *address, size_t len, const pathgate_fs_edit_op *edits,
                      size_t count, int dry_run, const pathgate_fs_options *opts,
                      pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (diff)
        pathgate_buf_dispose(diff);
    if (!address || (!edits && count))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    for (size_t i = 0; i < count; i++)
        if ((!edits[i].old_text && edits[i].old_len) || (!edits[i].new_text && edits[i].new_len))
            return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    if (!dry_run && (rc = pathgate__fs_check_writable(&t, err)) < 0)
        return rc;
    struct stat st;
    int fd = pathgate__fs_open_regular(&t, &st, err);
    if (fd < 0)
        return fd;
    char *orig = NULL;
    size_t orig_len = 0;
    rc = pathgate__fs_slurp(&orig, &orig_len, t.alloc, fd, &st);
    close(fd);
    if (rc < 0)
        return pathgate__fs_fail(err, rc, &t, PATHGATE__FS_FILE);
    char *cur = orig;
    size_t cur_len = orig_len;
    for (size_t i = 0; i < count && rc == 0; i++) {
        char *next = NULL;
        size_t next_len = 0, n = 0;
        rc = pathgate__fs_replace(&next, &next_len, &n, t.alloc, cur, cur_len, edits[i].old_text,
                                  edits[i].old_len, edits[i].new_text, edits[i].new_len,
                                  edits[i].replace_all, err);
        if (rc == 0) {
            if (cur != orig)
                pathgate__free(t.alloc, cur);
            cur = next;
            cur_len = next_len;
        }
    }
    if (rc == 0 && diff) {
        rc = make_diff(diff, t.alloc, t.address, orig, orig_len, cur, cur_len);
        if (rc < 0)
            pathgate__error_set(err, rc, NULL);
    }
    if (rc == 0 && !dry_run)
        rc = pathgate__fs_replace_file(&t, cur, cur_len, opts, err);
    if (rc == 0 && path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (cur != orig)
        pathgate__free(t.alloc, cur);
    pathgate__free(t.alloc, orig);
    if (rc < 0 && diff)
        pathgate_buf_dispose(diff);
    return rc;
}
