/* fs_edits.c - the one edit of a file: replacements applied in order in
 * memory, one atomic write (none with dry_run) under the edit lock of the
 * file's directory, started over when the file changed meanwhile; and the
 * unified diff. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_edit_lenient.h"
#include "fs_edits.h"
#include "fs_file.h"
#include "fs_policy.h"
#include "fs_target.h"
#include "fs_text.h"

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

/* Most cells of the LCS table of the changed middle; a bigger change is
 * shown as all of its old lines removed, then all new lines added. */
#define LCS_MAX_CELLS ((size_t)1 << 22)

typedef struct op {
    char kind;     /* ' ', '-', '+' */
    size_t oi, ni; /* old and new lines consumed before this one */
} op;

/* The edit script of u -> v: common prefix and suffix, an LCS alignment of
 * the middle (deletions before insertions). NULL on ENOMEM. */
static op *script(const pathgate_allocator *a, const line *u, size_t n, const line *v, size_t m,
                  size_t *count)
{
    op *ops = pathgate__malloc(a, (n + m + 1) * sizeof *ops);
    if (!ops)
        return NULL;
    size_t pre = 0, suf = 0;
    while (pre < n && pre < m && line_eq(&u[pre], &v[pre]))
        pre++;
    while (suf < n - pre && suf < m - pre && line_eq(&u[n - 1 - suf], &v[m - 1 - suf]))
        suf++;
    size_t k = 0, i = 0, j = 0;
    for (; i < pre; i++, j++)
        ops[k++] = (op){' ', i, j};
    size_t on = n - suf, nm = m - suf, w = nm - pre + 1;
    uint32_t *L = NULL;
    if ((on - pre + 1) * w <= LCS_MAX_CELLS)
        L = pathgate__calloc(a, (on - pre + 1) * w, sizeof *L);
    if (L) {
        /* L[(x - pre) * w + (y - pre)]: LCS of u[x..on) and v[y..nm) */
        for (size_t x = on; x-- > pre;)
            for (size_t y = nm; y-- > pre;) {
                size_t c = (x - pre) * w + (y - pre);
                if (line_eq(&u[x], &v[y]))
                    L[c] = L[c + w + 1] + 1;
                else
                    L[c] = L[c + w] > L[c + 1] ? L[c + w] : L[c + 1];
            }
        while (i < on || j < nm) {
            if (i < on && j < nm && line_eq(&u[i], &v[j])) {
                ops[k++] = (op){' ', i++, j++};
            } else if (i < on && (j == nm || L[(i + 1 - pre) * w + (j - pre)] >=
                                                 L[(i - pre) * w + (j + 1 - pre)])) {
                ops[k++] = (op){'-', i++, j};
            } else {
                ops[k++] = (op){'+', i, j++};
            }
        }
        pathgate__free(a, L);
    } else {
        for (; i < on; i++)
            ops[k++] = (op){'-', i, j};
        for (; j < nm; j++)
            ops[k++] = (op){'+', i, j};
    }
    for (; i < n; i++, j++)
        ops[k++] = (op){' ', i, j};
    *count = k;
    return ops;
}

/* The unified diff of x -> y into d (empty when equal): hunks with
 * CONTEXT lines around each change, merged when they would touch. */
static int make_diff(pathgate_buf *d, const pathgate_allocator *a, const char *address,
                     const char *x, size_t xlen, const char *y, size_t ylen)
{
    size_t n = 0, m = 0, nops = 0;
    line *u = split_lines(a, x, xlen, &n);
    line *v = u ? split_lines(a, y, ylen, &m) : NULL;
    op *ops = v ? script(a, u, n, v, m, &nops) : NULL;
    if (!ops) {
        pathgate__free(a, u);
        pathgate__free(a, v);
        return PATHGATE_ENOMEM;
    }
    out o = {NULL, 0, 0, a, 0};
    size_t k = 0;
    int header = 0;
    while (k < nops) {
        while (k < nops && ops[k].kind == ' ')
            k++;
        if (k == nops)
            break;
        size_t first = k > CONTEXT ? k - CONTEXT : 0, last = k; /* last change */
        for (size_t q = k + 1; q < nops && q <= last + 2 * CONTEXT; q++)
            if (ops[q].kind != ' ')
                last = q;
        size_t end = last + CONTEXT + 1 < nops ? last + CONTEXT + 1 : nops;
        size_t oc = 0, nc = 0;
        for (size_t q = first; q < end; q++) {
            oc += ops[q].kind != '+';
            nc += ops[q].kind != '-';
        }
        if (!header) {
            put(&o, "--- ", 4);
            put(&o, address, strlen(address));
            put(&o, "\n+++ ", 5);
            put(&o, address, strlen(address));
            put(&o, "\n", 1);
            header = 1;
        }
        char hdr[160];
        int hl = snprintf(hdr, sizeof hdr, "@@ -%zu,%zu +%zu,%zu @@\n",
                          oc ? ops[first].oi + 1 : ops[first].oi, oc,
                          nc ? ops[first].ni + 1 : ops[first].ni, nc);
        put(&o, hdr, (size_t)hl);
        for (size_t q = first; q < end; q++)
            put_line(&o, ops[q].kind, ops[q].kind == '+' ? &v[ops[q].ni] : &u[ops[q].oi]);
        k = end;
    }
    pathgate__free(a, ops);
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

/* s with every "\n" written "\r\n" (allocated); NULL on ENOMEM. */
static char *to_crlf_all(const pathgate_allocator *a, const char *s, size_t len, size_t *out_len)
{
    size_t n = pathgate__fs_count_newlines(s, len);
    char *buf = pathgate__malloc(a, len + n + 1);
    if (!buf)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\n')
            buf[k++] = '\r';
        buf[k++] = s[i];
    }
    buf[k] = '\0';
    *out_len = k;
    return buf;
}

/* How long an edit waits for other edits in the same directory (the
 * lock); how often it starts over is PATHGATE__FS_EDIT_ATTEMPTS. */
#define LOCK_WAIT_NS (10LL * 1000000000LL)

/*
 * The edit lock: an exclusive whole-file lock (pathgate__os_lock_try) on
 * the directory holding the file's name, the
 * one thing an edit does not replace (a lock on the file itself would be
 * left behind on the old inode by every edit's rename). Every edit takes
 * it, so edits in one directory, by any thread or process, run one after
 * another. Polled, so that a lock held forever by another program cannot
 * hang an edit: the directory fd (close it to unlock), -1 when there is no
 * lock to take (the directory cannot be opened: the edit then reports why;
 * or the file system has no locks), or PATHGATE_ETIMEOUT (< -1) with err
 * filled.
 */
static int lock_dir_of(const pathgate__fs_target *t)
{
    char rel[PATHGATE_PATH_MAX + 1];
    if (t->rel_len >= sizeof rel)
        return -1;
    memcpy(rel, t->rel, t->rel_len + 1);
    char *slash = strrchr(rel, '/');
    if (slash)
        *slash = '\0';
    else
        rel[0] = '\0';
    int fd = pathgate__fs_open(t, rel, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0)
        return -1;
    long long waited = 0, step = 200000; /* 0.2 ms, doubling to 20 ms */
    for (;;) {
        int lk = pathgate__os_lock_try(fd);
        if (lk == 0)
            return fd;
        if (lk != -EAGAIN || waited >= LOCK_WAIT_NS) {
            int timed_out = lk == -EAGAIN;
            pathgate__os_close(fd);
            return timed_out ? PATHGATE_ETIMEOUT : -1;
        }
        struct timespec d = {0, (long)step};
        nanosleep(&d, NULL);
        waited += step;
        step = step * 2 > 20000000 ? 20000000 : step * 2;
    }
}

int pathgate__fs_edit_lock(const pathgate__fs_target *t, pathgate_error *err)
{
    int lock = lock_dir_of(t);
    if (lock < -1)
        return pathgate__error_set(err, lock,
                                   "'%s' is being edited by another program (the lock was still "
                                   "held after 10 s); nothing was changed",
                                   t->address);
    return lock;
}

int pathgate__fs_edit_gave_up(const pathgate__fs_target *t, pathgate_error *err)
{
    return pathgate__error_set(err, PATHGATE_ETIMEOUT,
                               "'%s' kept changing while it was being edited; nothing was changed",
                               t->address);
}

/* One attempt: reads the file, applies the ops, commits (unless dry_run)
 * when the file is still what was read. With PATHGATE_FS_EDIT_LENIENT the
 * ops apply to the file read with LF line breaks, by the reference
 * server's matching, and a file whose first line ends in CRLF is written
 * back with CRLF. 0, PATHGATE__FS_CHANGED, or a negative code with err
 * filled. */
static int edit_once(pathgate_buf *diff, size_t *occurrences, const pathgate__fs_target *t,
                     const pathgate_fs_edit_op *ops, size_t count, int dry_run,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    const int lenient = opts && (opts->flags & PATHGATE_FS_EDIT_LENIENT);
    pathgate__fs_guard g;
    g.fd = pathgate__fs_open_regular(t, &g.st, err);
    if (g.fd < 0)
        return g.fd;
    char *orig = NULL;
    size_t orig_len = 0, total = 0;
    int rc =
        pathgate__fs_slurp(&orig, &orig_len, t->alloc, g.fd, &g.st, pathgate__fs_max_file(opts));
    if (rc == PATHGATE_ETOOLARGE)
        rc = pathgate__fs_fail_large(err, t, pathgate__fs_max_file(opts));
    else if (rc < 0)
        rc = pathgate__fs_fail(err, rc, t, PATHGATE__FS_FILE);
    const char *first_nl = rc == 0 ? memchr(orig, '\n', orig_len) : NULL;
    const int crlf = lenient && first_nl && first_nl > orig && first_nl[-1] == '\r';
    char *base = orig; /* what the ops apply to: LF line breaks when lenient */
    size_t base_len = orig_len;
    if (rc == 0 && lenient &&
        !(base = pathgate__fs_crlf_to_lf(t->alloc, orig, orig_len, &base_len))) {
        base = orig;
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    char *cur = base;
    size_t cur_len = base_len;
    for (size_t i = 0; i < count && rc == 0; i++) {
        char *next = NULL;
        size_t next_len = 0, n = 1;
        if (lenient)
            rc = pathgate__fs_replace_lenient(&next, &next_len, t->alloc, cur, cur_len,
                                              ops[i].old_text, ops[i].old_len, ops[i].new_text,
                                              ops[i].new_len, err);
        else
            rc = pathgate__fs_replace(&next, &next_len, &n, t->alloc, cur, cur_len, ops[i].old_text,
                                      ops[i].old_len, ops[i].new_text, ops[i].new_len,
                                      ops[i].replace_all, err);
        if (rc == 0) {
            if (cur != base)
                pathgate__free(t->alloc, cur);
            cur = next;
            cur_len = next_len;
            total += n;
        }
    }
    if (rc == 0 && diff) {
        pathgate_buf_dispose(diff);
        rc = make_diff(diff, t->alloc, t->address, base, base_len, cur, cur_len);
        if (rc < 0)
            pathgate__error_set(err, rc, NULL);
    }
    if (rc == 0 && crlf) { /* written with the file's CRLF */
        size_t w_len = 0;
        char *w = to_crlf_all(t->alloc, cur, cur_len, &w_len);
        if (!w) {
            rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        } else {
            if (cur != base)
                pathgate__free(t->alloc, cur);
            cur = w;
            cur_len = w_len;
        }
    }
    if (rc == 0 && !dry_run)
        rc = pathgate__fs_replace_file_if(t, cur, cur_len, &g, opts, err);
    if (g.fd >= 0) /* (a commit lets it go before its rename) */
        pathgate__os_close(g.fd);
    if (cur != base)
        pathgate__free(t->alloc, cur);
    if (base != orig)
        pathgate__free(t->alloc, base);
    pathgate__free(t->alloc, orig);
    if (rc == 0 && occurrences)
        *occurrences = total;
    return rc;
}

int pathgate__fs_edit_file(pathgate_buf *path, pathgate_buf *diff, size_t *occurrences,
                           pathgate_resolver *resolver, const char *address, size_t len,
                           const pathgate_fs_edit_op *ops, size_t count,
                           const pathgate_fs_options *opts, pathgate_error *err)
{
    const int dry_run = opts && (opts->flags & PATHGATE_FS_DRY_RUN);
    if (path)
        pathgate_buf_dispose(path);
    if (diff)
        pathgate_buf_dispose(diff);
    if (occurrences)
        *occurrences = 0;
    if (!address || (!ops && count))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    for (size_t i = 0; i < count; i++)
        if ((!ops[i].old_text && ops[i].old_len) || (!ops[i].new_text && ops[i].new_len))
            return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate__fs_target t;
    int rc = dry_run ? pathgate__fs_target_of(&t, "edit", resolver, opts, address, len, err)
                     : pathgate__fs_target_for_write(&t, "edit", resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    const int lenient = opts && (opts->flags & PATHGATE_FS_EDIT_LENIENT);
    for (size_t i = 0; i < count && !lenient; i++) /* lenient: "" is the file's start */
        if (ops[i].old_len == 0)
            return pathgate__error_set(err, PATHGATE_EEDIT, "old_string must not be empty");
    int lock = dry_run ? -1 : pathgate__fs_edit_lock(&t, err);
    if (lock < -1)
        return lock;
    for (int attempt = 1;; attempt++) {
        rc = edit_once(diff, occurrences, &t, ops, count, dry_run, opts, err);
        if (rc != PATHGATE__FS_CHANGED)
            break;
        if (attempt == PATHGATE__FS_EDIT_ATTEMPTS) {
            rc = pathgate__fs_edit_gave_up(&t, err);
            break;
        }
    }
    if (lock >= 0)
        pathgate__os_close(lock); /* and with it the lock */
    if (rc == 0 && path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (rc < 0 && diff)
        pathgate_buf_dispose(diff);
    if (rc < 0 && occurrences)
        *occurrences = 0;
    return rc;
}

int pathgate_fs_edits(pathgate_buf *path, pathgate_buf *diff, pathgate_resolver *resolver,
                      const char *address, size_t len, const pathgate_fs_edit_op *edits,
                      size_t count, const pathgate_fs_options *opts, pathgate_error *err)
{
    return pathgate__fs_edit_file(path, diff, NULL, resolver, address, len, edits, count, opts,
                                  err);
}

int pathgate_fs_edit(pathgate_buf *path, size_t *occurrences, pathgate_resolver *resolver,
                     const char *address, size_t len, const pathgate_fs_edit_op *edit,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    /* one op of the one edit (fs_edits.c) */
    if (!edit)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    return pathgate__fs_edit_file(path, NULL, occurrences, resolver, address, len, edit, 1, opts,
                                  err);
}
