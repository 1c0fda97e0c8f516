/*
 * editor.c - the text editor tool (docs/editor.md): the commands of
 * Anthropic's reference implementation (view, create, str_replace, insert,
 * undo_edit) with its output and messages, addresses in place of paths,
 * over pathgate's contained reads and atomic writes; the undo history.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "editor_internal.h"
#include "error.h"
#include "fs_edits.h"
#include "fs_file.h"
#include "fs_policy.h"
#include "fs_target.h"
#include "fs_text.h"
#include "resolver_policy.h"
#include "resolver_internal.h"
#include "text.h"

#define SNIPPET_LINES 4

/* ------------------------------------------------------------- history */

typedef struct version {
    char *addr;
    size_t addr_len;
    char *data;
    size_t len;
} version;

struct pathgate_editor {
    pathgate_allocator alloc;
    pthread_mutex_t lock;
    version *v; /* oldest first */
    size_t n, cap, bytes;
};

int pathgate_editor_new(pathgate_editor **out, const pathgate_allocator *alloc, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    pathgate_editor *ed = pathgate__calloc(&a, 1, sizeof *ed);
    if (!ed)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    ed->alloc = a;
    if (pthread_mutex_init(&ed->lock, NULL) != 0) {
        pathgate__free(&a, ed);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    *out = ed;
    return PATHGATE_OK;
}

static void drop_version(pathgate_editor *ed, size_t i)
{
    pathgate__free(&ed->alloc, ed->v[i].addr);
    pathgate__free(&ed->alloc, ed->v[i].data);
    ed->bytes -= ed->v[i].len;
    memmove(&ed->v[i], &ed->v[i + 1], (ed->n - i - 1) * sizeof *ed->v);
    ed->n--;
}

void pathgate_editor_free(pathgate_editor *ed)
{
    if (!ed)
        return;
    while (ed->n)
        drop_version(ed, ed->n - 1);
    pathgate__free(&ed->alloc, ed->v);
    pthread_mutex_destroy(&ed->lock);
    pathgate_allocator a = ed->alloc;
    pathgate__free(&a, ed);
}

/* Remembers data as the version of addr before an edit (the oldest
 * versions go first when over budget; one bigger than the budget is not
 * kept). 0 or PATHGATE_ENOMEM. */
static int history_push(pathgate_editor *ed, const char *addr, size_t addr_len, const char *data,
                        size_t len)
{
    if (!ed || len > PATHGATE_EDITOR_HISTORY_BYTES)
        return 0;
    version x = {pathgate__strndup(&ed->alloc, addr, addr_len), addr_len,
                 pathgate__strndup(&ed->alloc, data, len), len};
    if (!x.addr || !x.data) {
        pathgate__free(&ed->alloc, x.addr);
        pathgate__free(&ed->alloc, x.data);
        return PATHGATE_ENOMEM;
    }
    pthread_mutex_lock(&ed->lock);
    while (ed->n && ed->bytes + len > PATHGATE_EDITOR_HISTORY_BYTES)
        drop_version(ed, 0);
    int rc = 0;
    if (ed->n == ed->cap) {
        version *nv = pathgate__grow(&ed->alloc, ed->v, &ed->cap, sizeof *nv, 8);
        if (nv)
            ed->v = nv;
        else
            rc = PATHGATE_ENOMEM;
    }
    if (rc == 0) {
        ed->v[ed->n++] = x;
        ed->bytes += len;
    }
    pthread_mutex_unlock(&ed->lock);
    if (rc < 0) {
        pathgate__free(&ed->alloc, x.addr);
        pathgate__free(&ed->alloc, x.data);
    }
    return rc;
}

/* The newest version of addr, taken out of the history: 1 (*data
 * allocated with the editor's allocator), or 0 when there is none. */
static int history_pop(pathgate_editor *ed, const char *addr, size_t addr_len, char **data,
                       size_t *len)
{
    if (!ed)
        return 0;
    int found = 0;
    pthread_mutex_lock(&ed->lock);
    for (size_t i = ed->n; i-- > 0;)
        if (ed->v[i].addr_len == addr_len && !memcmp(ed->v[i].addr, addr, addr_len)) {
            *data = ed->v[i].data;
            *len = ed->v[i].len;
            ed->v[i].data = NULL;
            ed->v[i].len = 0;
            drop_version(ed, i);
            found = 1;
            break;
        }
    pthread_mutex_unlock(&ed->lock);
    return found;
}

/* Puts a popped version back (a failed undo). */
static void history_unpop(pathgate_editor *ed, const char *addr, size_t addr_len, char *data,
                          size_t len)
{
    history_push(ed, addr, addr_len, data, len);
    pathgate__free(&ed->alloc, data);
}

/* ------------------------------------------------------------- a command */

typedef struct cmd {
    pathgate_editor *ed;
    const pathgate_editor_args *args;
    const pathgate_fs_options *opts;
    const pathgate_allocator *a;
    pathgate__fs_target t;
    const char *addr;
    int code; /* PATHGATE__FS_CHANGED: the file changed under an edit */
    pathgate__sb out, msg;
    pathgate__fs_guard read; /* the file as read_text read it (fd -1: none) */
    /* view of a directory under a policy: what it hides, how many */
    const pathgate__walk_policy *wp;
    size_t hidden;
} cmd;

static int failf(cmd *c, int code, const char *fmt, ...) PATHGATE__PRINTF(3, 4);

static int failf(cmd *c, int code, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    char small[1];
    int n = vsnprintf(small, sizeof small, fmt, va);
    va_end(va);
    if (n < 0 || pathgate__sb_reserve(&c->msg, (size_t)n) < 0)
        return c->code = PATHGATE_ENOMEM;
    va_start(va, fmt);
    vsnprintf(c->msg.p + c->msg.len, (size_t)n + 1, fmt, va);
    va_end(va);
    c->msg.len += (size_t)n;
    return c->code = code;
}

/* An error text built in msg by the caller. */
static int fail_built(cmd *c, int code)
{
    return c->code = code;
}

static void forget_read(cmd *c)
{
    if (c->read.fd >= 0)
        pathgate__os_close(c->read.fd);
    c->read.fd = -1;
}

/* The file's bytes (*raw) and its text as Python reads it (*text:
 * universal newlines), both allocated. The file stays open in c->read, so
 * that write_bytes commits only over what was read (its commit lets it go
 * just before the rename). */
static int read_text(cmd *c, char **raw, size_t *raw_len, char **text, size_t *text_len)
{
    *raw = *text = NULL;
    forget_read(c);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate__os_stat st;
    int fd = pathgate__fs_open_regular(&c->t, &st, &err);
    if (fd < 0)
        return failf(c, fd, "Ran into %s while trying to read %s", err.message, c->addr);
    uint64_t cap = pathgate__fs_max_file(c->opts);
    int rc = pathgate__fs_slurp(raw, raw_len, c->a, fd, &st, cap);
    c->read.fd = fd;
    c->read.st = st;
    if (rc == PATHGATE_ETOOLARGE) {
        pathgate__fs_fail_large(&err, &c->t, cap);
        return failf(c, rc, "Ran into %s while trying to read %s", err.message, c->addr);
    }
    if (rc == PATHGATE_ENOMEM)
        return c->code = rc;
    if (rc < 0) {
        pathgate__fs_fail(&err, rc, &c->t, PATHGATE__FS_FILE);
        return failf(c, rc, "Ran into %s while trying to read %s", err.message, c->addr);
    }
    pathgate__sb_puts(&c->msg, "Ran into ");
    if (pathgate__ed_utf8_error(&c->msg, *raw, *raw_len)) {
        pathgate__sb_printf(&c->msg, " while trying to read %s", c->addr);
        pathgate__free(c->a, *raw);
        *raw = NULL;
        return fail_built(c, PATHGATE_EUTF8);
    }
    pathgate__sb_free(&c->msg);
    c->msg.a = c->a;
    if (!(*text = pathgate__strndup(c->a, *raw, *raw_len))) {
        pathgate__free(c->a, *raw);
        *raw = NULL;
        return c->code = PATHGATE_ENOMEM;
    }
    *text_len = *raw_len;
    pathgate__ed_newlines(*text, text_len);
    return 0;
}

/* Writes data atomically (missing parents created); after read_text, only
 * while the file is still what it read (else PATHGATE__FS_CHANGED, nothing
 * written: the edit starts over, see edit_locked). */
static int write_bytes(cmd *c, const char *data, size_t len)
{
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate__fs_check_writable(&c->t, &err);
    if (rc >= 0)
        rc = pathgate__fs_replace_file_if(&c->t, data, len, c->read.fd >= 0 ? &c->read : NULL,
                                          c->opts, &err);
    if (rc == PATHGATE__FS_CHANGED || rc == PATHGATE_ENOMEM)
        return c->code = rc;
    if (rc < 0)
        return failf(c, rc, "Ran into %s while trying to write to %s", err.message, c->addr);
    return 0;
}

/* The line ending of a file's first line break: "\r\n", "\r" or "\n". */
static const char *ending_of(const char *raw, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (raw[i] == '\n')
            return "\n";
        if (raw[i] == '\r')
            return i + 1 < len && raw[i + 1] == '\n' ? "\r\n" : "\r";
    }
    return "\n";
}

/* text (LF line breaks) with the file's ending in place of each "\n" that
 * does not follow a "\r", appended to out. */
static void put_with_ending(pathgate__sb *out, const char *text, size_t len, const char *ending)
{
    if (!strcmp(ending, "\n")) {
        pathgate__sb_put(out, text, len);
        return;
    }
    size_t from = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n' && (i == 0 || text[i - 1] != '\r')) {
            pathgate__sb_put(out, text + from, i - from);
            pathgate__sb_puts(out, ending);
            from = i + 1;
        }
    pathgate__sb_put(out, text + from, len - from);
}

/* The offset in w of the character whose expansion (expandtabs) starts at
 * offset pos of the expanded text, or -1 when pos falls inside a tab's
 * spaces. */
static long long w_offset(const char *w, size_t wlen, size_t pos)
{
    size_t col = 0, eo = 0;
    for (size_t i = 0; i < wlen;) {
        if (eo == pos)
            return (long long)i;
        if (eo > pos)
            return -1;
        unsigned char ch = (unsigned char)w[i];
        if (ch == '\t') {
            size_t k = 8 - col % 8;
            eo += k;
            col += k;
            i++;
        } else if (ch == '\n' || ch == '\r') {
            eo++;
            col = 0;
            i++;
        } else {
            size_t k = 1;
            if (ch >= 0x80) {
                long cp;
                k = pathgate__utf8_next((const unsigned char *)w + i, wlen - i, &cp);
            }
            eo += k;
            col++;
            i += k;
        }
    }
    return eo == pos ? (long long)wlen : -1;
}

/* Offset of line `line` (0-based) of s: after `line` "\n"s (len when
 * there are fewer). */
static size_t line_start(const char *s, size_t len, size_t line)
{
    size_t i = 0;
    for (size_t k = 0; k < line && i < len; k++) {
        const char *nl = memchr(s + i, '\n', len - i);
        if (!nl)
            return len;
        i = (size_t)(nl - s) + 1;
    }
    return i;
}

/* Lines [from, to) of s joined with "\n" (Python's slice and join). */
static void put_lines(pathgate__sb *out, const char *s, size_t len, size_t from, size_t to)
{
    size_t n = pathgate__fs_count_newlines(s, len) + 1;
    if (to > n)
        to = n;
    if (from >= to)
        return;
    size_t a = line_start(s, len, from), b = line_start(s, len, to);
    if (to < n)
        b--; /* without the "\n" ending line to - 1 */
    pathgate__sb_put(out, s + a, b - a);
}

static void python_list(pathgate__sb *out, const int64_t *v, size_t n)
{
    pathgate__sb_putc(out, '[');
    for (size_t i = 0; i < n; i++)
        pathgate__sb_printf(out, "%s%lld", i ? ", " : "", (long long)v[i]);
    pathgate__sb_putc(out, ']');
}

/* ---------------------------------------------------------------- view */

/* 1 when the policy hides the entry name of the directory rel (by name,
 * or, a symlink, by what it leads to): counted in c->hidden. */
static int policy_hides(cmd *c, const char *rel, const char *name, size_t nl, unsigned int type)
{
    size_t rl = strlen(rel);
    int hidden = pathgate__fs_policy_hidden(c->wp, rel, rl, name, nl);
    if (!hidden && (type == PATHGATE__OS_T_LNK || type == PATHGATE__OS_T_UNKNOWN) &&
        rl + 1 + nl <= PATHGATE_PATH_MAX) {
        char sub[PATHGATE_PATH_MAX + 1];
        memcpy(sub, rel, rl);
        size_t k = rl;
        if (rl)
            sub[k++] = '/';
        memcpy(sub + k, name, nl);
        sub[k + nl] = '\0';
        int fd = pathgate__fs_open(&c->t, sub, PATHGATE__OS_O_PATH, 0);
        if (fd >= 0)
            pathgate__os_close(fd);
        hidden = fd == -PATHGATE__POLICY_ENOREAD;
    }
    c->hidden += hidden != 0;
    return hidden;
}

/* The listing buffer's first size (glibc's readdir reads 32 KiB too). */
#define LIST_BUF_MIN 32768

/* find <dir> -maxdepth 2 -not -path '*' '/' '.*', sorted by name: the
 * directory, then each entry (and, for a directory, its entries). Under a
 * policy, what it hides is left out (as ls leaves it out). */
static int list_dir(cmd *c, pathgate__sb *o, const char *rel, int depth)
{
    int fd = pathgate__fs_open(&c->t, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0)
        return 0; /* unreadable: left out, as find's error would be */
    /* a read error keeps what was read before it, as readdir would */
    char *buf = NULL;
    size_t bcap = 0, used = 0, off = 0;
    if (pathgate__os_dir_read_all(fd, c->a, &buf, &bcap, &used, LIST_BUF_MIN) == -ENOMEM) {
        pathgate__free(c->a, buf);
        pathgate__os_close(fd);
        return PATHGATE_ENOMEM;
    }
    char **names = NULL;
    unsigned char *dirs = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    pathgate__os_dirent e;
    while (rc == 0 && pathgate__os_dir_next(buf, used, &off, &e)) {
        const char *name = e.name;
        size_t nl = e.len;
        if (name[0] == '.') /* hidden, and . and .. */
            continue;
        /* a name no address can spell is left out (as ls does) */
        if (pathgate__text_check(name, nl, PATHGATE_PATH_MAX, NULL) != 0 ||
            memchr(name, '\\', nl) || pathgate__is_space((unsigned char)name[0]) ||
            pathgate__is_space((unsigned char)name[nl - 1]))
            continue;
        int ctrl = 0;
        for (size_t i = 0; i < nl; i++)
            ctrl |= (unsigned char)name[i] < 0x20 || name[i] == 0x7f;
        if (ctrl)
            continue;
        if (c->wp && policy_hides(c, rel, name, nl, (unsigned char)e.type))
            continue;
        if (n == cap) {
            size_t c2 = cap;
            char **nn = pathgate__grow(c->a, names, &cap, sizeof *nn, 32);
            if (!nn) {
                rc = PATHGATE_ENOMEM;
                break;
            }
            names = nn;
            unsigned char *nd = pathgate__grow(c->a, dirs, &c2, 1, 32);
            if (!nd) {
                rc = PATHGATE_ENOMEM;
                break;
            }
            dirs = nd;
        }
        int is_dir = e.type == PATHGATE__OS_T_DIR;
        if (e.type == PATHGATE__OS_T_UNKNOWN) {
            pathgate__os_stat st;
            is_dir = pathgate__os_statat(fd, name, PATHGATE__OS_STAT_NOFOLLOW, &st) == 0 &&
                     st.type == PATHGATE__OS_T_DIR;
        }
        if (!(names[n] = pathgate__strndup(c->a, name, nl))) {
            rc = PATHGATE_ENOMEM;
            break;
        }
        dirs[n++] = (unsigned char)is_dir;
    }
    pathgate__free(c->a, buf);
    pathgate__os_close(fd);
    /* sort by name (bytewise), carrying the kinds along */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
            unsigned char k = dirs[j];
            dirs[j] = dirs[j - 1];
            dirs[j - 1] = k;
        }
    for (size_t i = 0; i < n && rc == 0; i++) {
        pathgate__sb_put(o, c->t.address, c->t.prefix_len);
        pathgate__sb_putc(o, '/');
        if (*rel) {
            pathgate__sb_puts(o, rel);
            pathgate__sb_putc(o, '/');
        }
        pathgate__sb_puts(o, names[i]);
        pathgate__sb_putc(o, '\n');
        if (dirs[i] && depth < 2) {
            size_t rl = strlen(rel), cl = strlen(names[i]);
            char *sub = pathgate__malloc(c->a, rl + cl + 2);
            if (!sub) {
                rc = PATHGATE_ENOMEM;
                break;
            }
            memcpy(sub, rel, rl);
            size_t k = rl;
            if (rl)
                sub[k++] = '/';
            memcpy(sub + k, names[i], cl + 1);
            rc = list_dir(c, o, sub, depth + 1);
            pathgate__free(c->a, sub);
        }
    }
    for (size_t i = 0; i < n; i++)
        pathgate__free(c->a, names[i]);
    pathgate__free(c->a, names);
    pathgate__free(c->a, dirs);
    return rc;
}

static int view_dir(cmd *c)
{
    const pathgate_editor_args *g = c->args;
    if (g->view_range_len || g->view_range_invalid)
        return failf(
            c, PATHGATE_EINVAL,
            "The `view_range` parameter is not allowed when `path` points to a directory.");
    pathgate__sb listing = PATHGATE__SB_INIT(c->a);
    int rc = 0;
    /* every listed path starts with the directory's: none passes the
     * hidden filter when it holds "/." */
    if (!strstr(c->addr, "/.")) {
        pathgate__sb_puts(&listing, c->addr);
        pathgate__sb_putc(&listing, '\n');
        char rel[PATHGATE_PATH_MAX + 1];
        memcpy(rel, c->t.rel, c->t.rel_len);
        rel[c->t.rel_len] = '\0';
        char real[PATHGATE_PATH_MAX + 1];
        pathgate__walk_policy wp = {&c->t, NULL, 0};
        if (c->t.policy) { /* where the directory really is, when a link led there */
            int fd = pathgate__fs_open(&c->t, NULL, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
            int rr = fd < 0 ? 0 : pathgate__fs_policy_real_root(&c->t, fd, real, sizeof real);
            if (fd >= 0)
                pathgate__os_close(fd);
            if (rr == 1) {
                wp.real_root = real;
                wp.real_len = strlen(real);
            }
            c->wp = &wp;
        }
        rc = list_dir(c, &listing, rel, 1);
        c->wp = NULL;
        if (rc == 0)
            pathgate__fs_audit_hidden(&c->t, c->hidden);
    }
    if (rc < 0 || listing.oom) {
        pathgate__sb_free(&listing);
        return c->code = PATHGATE_ENOMEM;
    }
    pathgate__sb_printf(
        &c->out,
        "Here's the files and directories up to 2 levels deep in %s, excluding hidden "
        "items:\n",
        c->addr);
    pathgate__sb_put(&c->out, listing.p ? listing.p : "", listing.len);
    pathgate__sb_putc(&c->out, '\n');
    pathgate__sb_free(&listing);
    return 0;
}

static int view_file(cmd *c)
{
    const pathgate_editor_args *g = c->args;
    char *raw, *text;
    size_t raw_len, text_len;
    if (read_text(c, &raw, &raw_len, &text, &text_len) < 0)
        return c->code;
    pathgate__free(c->a, raw);
    const char *content = text;
    size_t content_len = text_len;
    int64_t init_line = 1;
    int rc = 0;
    if (g->view_range_len || g->view_range_invalid) {
        if (g->view_range_invalid || g->view_range_len != 2) {
            rc = failf(c, PATHGATE_EINVAL,
                       "Invalid `view_range`. It should be a list of two integers.");
            goto done;
        }
        int64_t n = (int64_t)pathgate__fs_count_newlines(text, text_len) + 1;
        int64_t first = g->view_range[0], final = g->view_range[1];
        if (first < 1 || first > n) {
            pathgate__sb_puts(&c->msg, "Invalid `view_range`: ");
            python_list(&c->msg, g->view_range, 2);
            pathgate__sb_printf(&c->msg,
                                ". Its first element `%lld` should be within the range of lines of "
                                "the file: [1, %lld]",
                                (long long)first, (long long)n);
            rc = fail_built(c, PATHGATE_ERANGE);
            goto done;
        }
        if (final > n) {
            pathgate__sb_puts(&c->msg, "Invalid `view_range`: ");
            python_list(&c->msg, g->view_range, 2);
            pathgate__sb_printf(&c->msg,
                                ". Its second element `%lld` should be smaller than the number of "
                                "lines in the file: `%lld`",
                                (long long) final, (long long)n);
            rc = fail_built(c, PATHGATE_ERANGE);
            goto done;
        }
        if (final != -1 && final < first) {
            pathgate__sb_puts(&c->msg, "Invalid `view_range`: ");
            python_list(&c->msg, g->view_range, 2);
            pathgate__sb_printf(&c->msg,
                                ". Its second element `%lld` should be larger or equal than its "
                                "first `%lld`",
                                (long long) final, (long long)first);
            rc = fail_built(c, PATHGATE_ERANGE);
            goto done;
        }
        size_t a = line_start(text, text_len, (size_t)(first - 1));
        size_t b = text_len;
        if (final != -1 && final < n)
            b = line_start(text, text_len, (size_t) final) - 1;
        content = text + a;
        content_len = b - a;
        init_line = first;
    }
    size_t max = g->max_characters > 0 ? (size_t)g->max_characters : PATHGATE_EDITOR_MAX_RESPONSE;
    pathgate__ed_cat_n(&c->out, content, content_len, c->addr, init_line, max);
done:
    pathgate__free(c->a, text);
    return rc;
}

/* -------------------------------------------------------------- create */

static int create(cmd *c)
{
    const pathgate_editor_args *g = c->args;
    if (!g->file_text)
        return failf(c, PATHGATE_EINVAL, "Parameter `file_text` is required for command: create");
    if (write_bytes(c, g->file_text, g->file_text_len) < 0)
        return c->code;
    if (history_push(c->ed, c->t.address, c->t.address_len, g->file_text, g->file_text_len) < 0)
        return c->code = PATHGATE_ENOMEM;
    pathgate__sb_printf(&c->out, "File created successfully at: %s", c->addr);
    return 0;
}

/* --------------------------------------------------------- str_replace */

static int str_replace(cmd *c)
{
    const pathgate_editor_args *g = c->args;
    if (!g->old_str)
        return failf(c, PATHGATE_EINVAL,
                     "Parameter `old_str` is required for command: str_replace");
    char *raw, *w;
    size_t raw_len, wlen;
    if (read_text(c, &raw, &raw_len, &w, &wlen) < 0)
        return c->code;
    pathgate__sb e = PATHGATE__SB_INIT(c->a), old = PATHGATE__SB_INIT(c->a),
                 neu = PATHGATE__SB_INIT(c->a), ref = PATHGATE__SB_INIT(c->a),
                 out = PATHGATE__SB_INIT(c->a);
    pathgate__ed_expandtabs(&e, w, wlen);
    pathgate__ed_expandtabs(&old, g->old_str, g->old_str_len);
    pathgate__ed_expandtabs(&neu, g->new_str ? g->new_str : "", g->new_str ? g->new_str_len : 0);
    int rc = 0;
    if (e.oom || old.oom || neu.oom) {
        rc = c->code = PATHGATE_ENOMEM;
        goto done;
    }
    const char *E = e.p ? e.p : "", *O = old.p ? old.p : "", *N = neu.p ? neu.p : "";
    size_t count = pathgate__ed_count(E, e.len, O, old.len);
    if (count == 0) {
        pathgate__sb_puts(&c->msg, "No replacement was performed, old_str `");
        pathgate__sb_put(&c->msg, O, old.len);
        pathgate__sb_printf(&c->msg, "` did not appear verbatim in %s.", c->addr);
        rc = fail_built(c, PATHGATE_EEDIT);
        goto done;
    }
    if (count > 1 || old.len == 0) {
        pathgate__sb_puts(&c->msg,
                          "No replacement was performed. Multiple occurrences of old_str `");
        pathgate__sb_put(&c->msg, O, old.len);
        pathgate__sb_puts(&c->msg, "` in lines [");
        size_t line = 1, listed = 0;
        for (const char *p = E, *end = E + e.len;; line++) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *le = nl ? nl : end;
            if (old.len == 0 || pathgate__memmem(p, (size_t)(le - p), O, old.len))
                pathgate__sb_printf(&c->msg, "%s%zu", listed++ ? ", " : "", line);
            if (!nl)
                break;
            p = nl + 1;
        }
        pathgate__sb_puts(&c->msg, "]. Please ensure it is unique");
        rc = fail_built(c, PATHGATE_EAMBIGUOUS);
        goto done;
    }
    size_t s = (size_t)((const char *)pathgate__memmem(E, e.len, O, old.len) - E),
           end = s + old.len;
    /* what the reference writes: the expanded text with the replacement */
    pathgate__sb_put(&ref, E, s);
    pathgate__sb_put(&ref, N, neu.len);
    pathgate__sb_put(&ref, E + end, e.len - end);
    /* what pathgate writes: the file's own text (tabs kept) with new_str */
    long long ws = w_offset(w, wlen, s), we = w_offset(w, wlen, end);
    pathgate__sb body = PATHGATE__SB_INIT(c->a);
    if (ws >= 0 && we >= 0) {
        pathgate__sb_put(&body, w, (size_t)ws);
        pathgate__sb_put(&body, g->new_str ? g->new_str : "", g->new_str ? g->new_str_len : 0);
        pathgate__sb_put(&body, w + we, wlen - (size_t)we);
    } else { /* the match cuts a tab: the reference's expanded text */
        pathgate__sb_put(&body, ref.p ? ref.p : "", ref.len);
    }
    put_with_ending(&out, body.p ? body.p : "", body.len, ending_of(raw, raw_len));
    pathgate__sb_free(&body);
    if (ref.oom || body.oom || out.oom) {
        rc = c->code = PATHGATE_ENOMEM;
        goto done;
    }
    if (write_bytes(c, out.p ? out.p : "", out.len) != 0) {
        rc = c->code;
        goto done;
    }
    if (history_push(c->ed, c->t.address, c->t.address_len, raw, raw_len) < 0) {
        rc = c->code = PATHGATE_ENOMEM;
        goto done;
    }
    /* the snippet: SNIPPET_LINES lines around the edit, of the reference's text */
    size_t replacement_line = pathgate__fs_count_newlines(E, s);
    size_t start_line = replacement_line > SNIPPET_LINES ? replacement_line - SNIPPET_LINES : 0;
    size_t end_line = replacement_line + SNIPPET_LINES + pathgate__fs_count_newlines(N, neu.len);
    pathgate__sb snippet = PATHGATE__SB_INIT(c->a);
    put_lines(&snippet, ref.p ? ref.p : "", ref.len, start_line, end_line + 1);
    char descriptor[2 * PATHGATE_PATH_MAX + 32];
    snprintf(descriptor, sizeof descriptor, "a snippet of %s", c->addr);
    pathgate__sb_printf(&c->out, "The file %s has been edited. ", c->addr);
    pathgate__ed_cat_n(&c->out, snippet.p ? snippet.p : "", snippet.len, descriptor,
                       (int64_t)start_line + 1, PATHGATE_EDITOR_MAX_RESPONSE);
    pathgate__sb_puts(&c->out, "Review the changes and make sure they are as expected. Edit the "
                               "file again if necessary.");
    if (snippet.oom)
        rc = c->code = PATHGATE_ENOMEM;
    pathgate__sb_free(&snippet);
done:
    pathgate__sb_free(&e);
    pathgate__sb_free(&old);
    pathgate__sb_free(&neu);
    pathgate__sb_free(&ref);
    pathgate__sb_free(&out);
    pathgate__free(c->a, raw);
    pathgate__free(c->a, w);
    return rc;
}

/* -------------------------------------------------------------- insert */

/* The lines of s with text inserted as lines before line `at` (Python's
 * "\n".join(lines[:at] + text.split("\n") + lines[at:])), appended to out. */
static void put_inserted(pathgate__sb *out, const char *s, size_t len, size_t n, size_t at,
                         const char *text, size_t text_len)
{
    if (at < n) {
        size_t a = line_start(s, len, at);
        pathgate__sb_put(out, s, a);
        pathgate__sb_put(out, text, text_len);
        pathgate__sb_putc(out, '\n');
        pathgate__sb_put(out, s + a, len - a);
    } else {
        pathgate__sb_put(out, s, len);
        pathgate__sb_putc(out, '\n');
        pathgate__sb_put(out, text, text_len);
    }
}

static int insert(cmd *c)
{
    const pathgate_editor_args *g = c->args;
    if (!g->has_insert_line)
        return failf(c, PATHGATE_EINVAL, "Parameter `insert_line` is required for command: insert");
    if (!g->new_str)
        return failf(c, PATHGATE_EINVAL, "Parameter `new_str` is required for command: insert");
    char *raw, *w;
    size_t raw_len, wlen;
    if (read_text(c, &raw, &raw_len, &w, &wlen) < 0)
        return c->code;
    size_t n = pathgate__fs_count_newlines(w, wlen) + 1;
    int rc = 0;
    pathgate__sb e = PATHGATE__SB_INIT(c->a), neu = PATHGATE__SB_INIT(c->a),
                 body = PATHGATE__SB_INIT(c->a), out = PATHGATE__SB_INIT(c->a),
                 snippet = PATHGATE__SB_INIT(c->a);
    if (g->insert_line < 0 || (uint64_t)g->insert_line > n) {
        rc = failf(c, PATHGATE_ERANGE,
                   "Invalid `insert_line` parameter: %lld. It should be within the range of lines "
                   "of the file: [0, %zu]",
                   (long long)g->insert_line, n);
        goto done;
    }
    size_t at = (size_t)g->insert_line;
    put_inserted(&body, w, wlen, n, at, g->new_str, g->new_str_len);
    put_with_ending(&out, body.p ? body.p : "", body.len, ending_of(raw, raw_len));
    pathgate__ed_expandtabs(&e, w, wlen);
    pathgate__ed_expandtabs(&neu, g->new_str, g->new_str_len);
    if (body.oom || out.oom || e.oom || neu.oom) {
        rc = c->code = PATHGATE_ENOMEM;
        goto done;
    }
    if (write_bytes(c, out.p ? out.p : "", out.len) != 0) {
        rc = c->code;
        goto done;
    }
    if (history_push(c->ed, c->t.address, c->t.address_len, raw, raw_len) < 0) {
        rc = c->code = PATHGATE_ENOMEM;
        goto done;
    }
    /* the snippet: lines [at - 4, at), the new lines, lines [at, at + 4) */
    const char *E = e.p ? e.p : "";
    size_t from = at > SNIPPET_LINES ? at - SNIPPET_LINES : 0;
    put_lines(&snippet, E, e.len, from, at);
    if (at > from)
        pathgate__sb_putc(&snippet, '\n');
    pathgate__sb_put(&snippet, neu.p ? neu.p : "", neu.len);
    if (at < n) {
        pathgate__sb_putc(&snippet, '\n');
        put_lines(&snippet, E, e.len, at, at + SNIPPET_LINES);
    }
    pathgate__sb_printf(&c->out, "The file %s has been edited. ", c->addr);
    int64_t init = (int64_t)at - SNIPPET_LINES + 1;
    pathgate__ed_cat_n(&c->out, snippet.p ? snippet.p : "", snippet.len,
                       "a snippet of the edited file", init < 1 ? 1 : init,
                       PATHGATE_EDITOR_MAX_RESPONSE);
    pathgate__sb_puts(&c->out, "Review the changes and make sure they are as expected (correct "
                               "indentation, no duplicate lines, etc). Edit the file again if "
                               "necessary.");
    if (snippet.oom)
        rc = c->code = PATHGATE_ENOMEM;
done:
    pathgate__sb_free(&e);
    pathgate__sb_free(&neu);
    pathgate__sb_free(&body);
    pathgate__sb_free(&out);
    pathgate__sb_free(&snippet);
    pathgate__free(c->a, raw);
    pathgate__free(c->a, w);
    return rc;
}

/* ----------------------------------------------------------- undo_edit */

static int undo_edit(cmd *c)
{
    char *data = NULL;
    size_t len = 0;
    if (!history_pop(c->ed, c->t.address, c->t.address_len, &data, &len))
        return failf(c, PATHGATE_EEDIT, "No edit history found for %s.", c->addr);
    if (write_bytes(c, data, len) != 0) {
        history_unpop(c->ed, c->t.address, c->t.address_len, data, len);
        return c->code;
    }
    /* shown as the reference shows it: the text as read back */
    char *text = pathgate__strndup(c->a, data, len);
    pathgate__free(&c->ed->alloc, data);
    if (!text)
        return c->code = PATHGATE_ENOMEM;
    size_t tl = len;
    pathgate__ed_newlines(text, &tl);
    pathgate__sb_printf(&c->out, "Last edit to %s undone successfully. ", c->addr);
    pathgate__ed_cat_n(&c->out, text, tl, c->addr, 1, PATHGATE_EDITOR_MAX_RESPONSE);
    pathgate__free(c->a, text);
    return 0;
}

/* ------------------------------------------------------------- the run */

/* str_replace or insert as every edit of a file runs (docs/fs.md, "An edit
 * never overwrites a change made while it runs"): under the edit lock of
 * the file's directory, committed only over the content it read, started
 * over when anyone changed the file meanwhile. */
static void edit_locked(cmd *c, int (*command)(cmd *))
{
    pathgate_error err = PATHGATE_ERROR_INIT;
    int lock = pathgate__fs_edit_lock(&c->t, &err);
    if (lock < -1) {
        failf(c, lock, "Ran into %s while trying to write to %s", err.message, c->addr);
        return;
    }
    for (int attempt = 1;; attempt++) {
        command(c);
        forget_read(c);
        if (c->code != PATHGATE__FS_CHANGED)
            break;
        c->code = 0;
        pathgate__sb_free(&c->out);
        pathgate__sb_free(&c->msg);
        if (attempt == PATHGATE__FS_EDIT_ATTEMPTS) {
            pathgate__fs_edit_gave_up(&c->t, &err);
            failf(c, PATHGATE_ETIMEOUT, "Ran into %s while trying to write to %s", err.message,
                  c->addr);
            break;
        }
    }
    if (lock >= 0)
        pathgate__os_close(lock); /* and with it the lock */
}

typedef enum kind { NONE, FILE_, DIR_ } kind;

/* What the address names (following symlinks inside the base). */
static int probe(cmd *c, kind *k)
{
    *k = NONE;
    int fd = c->t.rel_len ? pathgate__fs_open(&c->t, NULL, PATHGATE__OS_O_PATH, 0)
                          : pathgate__fs_open(&c->t, "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    if (fd == -ENOENT || fd == -ENOTDIR)
        return 0;
    if (fd < 0) {
        pathgate_error err = PATHGATE_ERROR_INIT;
        int code = pathgate__fs_fail_errno(&err, fd, &c->t, PATHGATE__FS_FILE);
        return failf(c, code, "%s", err.message);
    }
    pathgate__os_stat st;
    int rc = pathgate__os_statat(fd, "", 0, &st);
    pathgate__os_close(fd);
    if (rc == 0)
        *k = st.type == PATHGATE__OS_T_DIR ? DIR_ : FILE_;
    return 0;
}

static int is(const char *s, size_t len, const char *word)
{
    return len == strlen(word) && !memcmp(s, word, len);
}

/* The operation of a command in audit events (docs/policy.md). */
static const char *audit_op(const char *command, size_t len)
{
    static const char *const ops[][2] = {{"view", "editor_view"},
                                         {"create", "editor_create"},
                                         {"str_replace", "editor_str_replace"},
                                         {"insert", "editor_insert"},
                                         {"undo_edit", "editor_undo_edit"}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (command && is(command, len, ops[i][0]))
            return ops[i][1];
    return "editor";
}

void pathgate_editor_result_dispose(pathgate_editor_result *res)
{
    if (!res)
        return;
    pathgate_buf_dispose(&res->output);
    pathgate_buf_dispose(&res->error);
    res->code = 0;
}

int pathgate_editor_run(pathgate_editor_result *out, pathgate_editor *editor,
                        pathgate_resolver *resolver, const char *command, size_t command_len,
                        const char *path, size_t path_len, const pathgate_editor_args *args,
                        const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_editor_result_dispose(out);
    pathgate_editor_args none = PATHGATE_EDITOR_ARGS_INIT;
    if (!args)
        args = &none;
    if (args->version != PATHGATE_EDITOR_ARGS_VERSION || (!command && command_len) ||
        (!path && path_len) || (!args->view_range && args->view_range_len) ||
        (args->tool != PATHGATE_EDITOR_20250728 && args->tool != PATHGATE_EDITOR_20250124))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int trc = pathgate__text_check(command ? command : "", command_len, PATHGATE_PATH_MAX, err);
    if (trc < 0)
        return trc;
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    cmd *c = pathgate__calloc(pathgate__resolver_allocator(r), 1, sizeof *c);
    if (!c)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    c->ed = editor;
    c->args = args;
    c->opts = opts;
    c->a = pathgate__resolver_allocator(r);
    c->out.a = c->msg.a = c->a;
    c->read.fd = -1;
    pathgate_error perr = PATHGATE_ERROR_INIT;
    int view_cmd = is(command, command_len, "view");
    int rc = pathgate__fs_resolve(&c->t, audit_op(command, command_len), r, opts, path ? path : "",
                                  path_len, &perr);
    kind k = NONE;
    if (rc < 0) {
        failf(c, rc, "%s", perr.message);
    } else {
        c->addr = c->t.address;
        /* the policy first: a change of what it protects fails before
         * anything is read (write_bytes makes the operation's event) */
        if (!view_cmd && c->t.policy) {
            c->t.access = PATHGATE__ACCESS_WRITE;
            if ((rc = pathgate__fs_policy_writable(&c->t, &perr)) < 0 ||
                (rc = pathgate__fs_policy_where(&c->t, &perr)) < 0)
                failf(c, rc, "Ran into %s while trying to write to %s", perr.message, c->addr);
        } else if (view_cmd) {
            pathgate__fs_audit(&c->t, "allowed", NULL, NULL);
        }
        if (!c->code)
            probe(c, &k);
    }
    int create_cmd = is(command, command_len, "create");
    if (c->code) {
        /* resolution failed: the message is set */
    } else if (k == NONE && !create_cmd) {
        failf(c, PATHGATE_ENOTFOUND, "The path %s does not exist. Please provide a valid path.",
              c->addr);
    } else if (k != NONE && create_cmd) {
        failf(c, PATHGATE_EEXIST,
              "File already exists at: %s. Cannot overwrite files using command `create`.",
              c->addr);
    } else if (k == DIR_ && !is(command, command_len, "view")) {
        failf(c, PATHGATE_EISDIR,
              "The path %s is a directory and only the `view` command can be used on directories",
              c->addr);
    } else if (view_cmd) {
        if (k == DIR_)
            view_dir(c);
        else
            view_file(c);
    } else if (create_cmd) {
        create(c);
    } else if (is(command, command_len, "str_replace")) {
        edit_locked(c, str_replace);
    } else if (is(command, command_len, "insert")) {
        edit_locked(c, insert);
    } else if (is(command, command_len, "undo_edit") && args->tool == PATHGATE_EDITOR_20250124) {
        undo_edit(c);
    } else {
        int old = args->tool == PATHGATE_EDITOR_20250124;
        pathgate__sb_puts(&c->msg, "Unrecognized command ");
        pathgate__sb_put(&c->msg, command, command_len);
        pathgate__sb_printf(&c->msg,
                            ". The allowed commands for the %s tool are: view, create, "
                            "str_replace, insert%s",
                            old ? "str_replace_editor" : "str_replace_based_edit_tool",
                            old ? ", undo_edit" : "");
        fail_built(c, PATHGATE_EINVAL);
    }
    rc = 0;
    if (c->code == PATHGATE_ENOMEM || c->out.oom || c->msg.oom) {
        rc = PATHGATE_ENOMEM;
    } else if (c->code) {
        out->code = c->code;
        rc = pathgate__sb_to_buf(&c->msg, &out->error);
    } else {
        rc = pathgate__sb_to_buf(&c->out, &out->output);
    }
    forget_read(c);
    pathgate__sb_free(&c->out);
    pathgate__sb_free(&c->msg);
    pathgate__free(c->a, c);
    if (rc < 0) {
        pathgate_editor_result_dispose(out);
        return pathgate__error_set(err, rc, NULL);
    }
    return 0;
}
