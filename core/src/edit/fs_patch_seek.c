/* fs_patch_seek.c - where a chunk's lines are in a file (Codex's
 * seek_sequence.rs) and the file's new content (compute_replacements of
 * lib.rs and the line-ending rules of text_file.rs). */
#include <string.h>

#include "alloc.h"
#include "fs_patch_internal.h"
#include "fs_text.h"
#include "strbuf.h"
#include "text.h"

/* ---------------------------------------------------------- whitespace */

int pathgate__rs_space(long cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}

pathgate__span pathgate__rs_trim_start(pathgate__span s)
{
    while (s.len) {
        long cp;
        size_t k = pathgate__utf8_next((const unsigned char *)s.p, s.len, &cp);
        if (!pathgate__rs_space(cp))
            break;
        s.p += k;
        s.len -= k;
    }
    return s;
}

pathgate__span pathgate__rs_trim_end(pathgate__span s)
{
    while (s.len) {
        /* the last character starts at most 3 bytes before the end */
        size_t b = s.len - 1;
        while (b > 0 && s.len - b < 4 && ((unsigned char)s.p[b] & 0xC0) == 0x80)
            b--;
        long cp;
        size_t k = pathgate__utf8_next((const unsigned char *)s.p + b, s.len - b, &cp);
        if (k != s.len - b || !pathgate__rs_space(cp))
            break;
        s.len = b;
    }
    return s;
}

pathgate__span pathgate__rs_trim(pathgate__span s)
{
    return pathgate__rs_trim_end(pathgate__rs_trim_start(s));
}

/* ------------------------------------------------------------- seeking */

/* normalise() of seek_sequence.rs: typographic punctuation and spaces as
 * their ASCII forms. */
static long ascii_form(long cp)
{
    if ((cp >= 0x2010 && cp <= 0x2015) || cp == 0x2212)
        return '-';
    if (cp >= 0x2018 && cp <= 0x201B)
        return '\'';
    if (cp >= 0x201C && cp <= 0x201F)
        return '"';
    if (cp == 0xA0 || (cp >= 0x2002 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F ||
        cp == 0x3000)
        return ' ';
    return cp;
}

static int span_eq(pathgate__span a, pathgate__span b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

static int normalised_eq(pathgate__span a, pathgate__span b)
{
    a = pathgate__rs_trim(a);
    b = pathgate__rs_trim(b);
    const unsigned char *x = (const unsigned char *)a.p, *y = (const unsigned char *)b.p;
    size_t i = 0, j = 0;
    while (i < a.len && j < b.len) {
        long c, d;
        i += pathgate__utf8_next(x + i, a.len - i, &c);
        j += pathgate__utf8_next(y + j, b.len - j, &d);
        if (ascii_form(c) != ascii_form(d))
            return 0;
    }
    return i == a.len && j == b.len;
}

/* Line equality of each pass: exact, trim_end, trim, normalised. */
static int line_eq(int pass, const pathgate__src_line *l, pathgate__span pat)
{
    pathgate__span s = {l->p, l->len};
    switch (pass) {
    case 0:
        return span_eq(s, pat);
    case 1:
        return span_eq(pathgate__rs_trim_end(s), pathgate__rs_trim_end(pat));
    case 2:
        return span_eq(pathgate__rs_trim(s), pathgate__rs_trim(pat));
    default:
        return normalised_eq(s, pat);
    }
}

int pathgate__patch_seek(size_t *at, const pathgate__src_line *lines, size_t n,
                         const pathgate__span *pat, size_t m, size_t start, int eof)
{
    if (m == 0) {
        *at = start;
        return 1;
    }
    if (m > n)
        return 0;
    size_t from = eof ? n - m : start;
    for (int pass = 0; pass < 4; pass++) {
        for (size_t i = from; i <= n - m; i++) {
            size_t j = 0;
            while (j < m && line_eq(pass, &lines[i + j], pat[j]))
                j++;
            if (j == m) {
                *at = i;
                return 1;
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------- the update */

/* One replacement: lines [start, start + old_len) of the file become
 * news[new_first .. new_first + new_count) of the patch. */
typedef struct repl {
    size_t start, old_len, new_first, new_count;
} repl;

typedef struct update {
    const pathgate_allocator *a;
    repl *r;
    size_t n, cap;
} update;

static int push_repl(update *u, size_t start, size_t old_len, size_t new_first, size_t new_count)
{
    if (u->n == u->cap) {
        repl *nr = pathgate__grow(u->a, u->r, &u->cap, sizeof *nr, 16);
        if (!nr)
            return PATHGATE_ENOMEM;
        u->r = nr;
    }
    u->r[u->n++] = (repl){start, old_len, new_first, new_count};
    return 0;
}

/* The file's lines, with their endings (text_file.rs SourceFile::parse). */
static pathgate__src_line *split(const pathgate_allocator *a, const char *s, size_t len, size_t *n)
{
    size_t count = pathgate__fs_count_lines(s, len);
    pathgate__src_line *v = pathgate__malloc(a, (count ? count : 1) * sizeof *v);
    if (!v)
        return NULL;
    const char *q = s, *end = s + len;
    for (size_t i = 0; i < count; i++) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        v[i].p = q;
        if (!nl) {
            v[i].len = (size_t)(end - q);
            v[i].ending = 0;
            q = end;
        } else if (nl > q && nl[-1] == '\r') {
            v[i].len = (size_t)(nl - 1 - q);
            v[i].ending = 2;
            q = nl + 1;
        } else {
            v[i].len = (size_t)(nl - q);
            v[i].ending = 1;
            q = nl + 1;
        }
    }
    *n = count;
    return v;
}

static int fail_context(pathgate__sb *msg, pathgate__span ctx, const char *address)
{
    pathgate__sb_puts(msg, "Failed to find context '");
    pathgate__sb_put(msg, ctx.p, ctx.len);
    pathgate__sb_printf(msg, "' in %s", address);
    return PATHGATE_ECONFLICT;
}

static int fail_lines(pathgate__sb *msg, const pathgate__patch *p, const pathgate__patch_chunk *c,
                      const char *address)
{
    pathgate__sb_printf(msg, "Failed to find expected lines in %s:\n", address);
    for (size_t i = 0; i < c->old_count; i++) {
        if (i)
            pathgate__sb_putc(msg, '\n');
        pathgate__sb_put(msg, p->olds[c->old_first + i].p, p->olds[c->old_first + i].len);
    }
    return PATHGATE_ECONFLICT;
}

/* compute_replacements of lib.rs: the replacements of every chunk, in
 * file order, keeping context lines (those on both sides) in place. */
static int replacements(update *u, pathgate__sb *msg, const pathgate__patch *p,
                        const pathgate__patch_hunk *h, const pathgate__src_line *lines, size_t n,
                        const char *address)
{
    size_t line_index = 0;
    for (size_t k = 0; k < h->chunk_count; k++) {
        const pathgate__patch_chunk *c = &p->chunks[h->chunk_first + k];
        size_t at;
        if (c->has_context) {
            if (!pathgate__patch_seek(&at, lines, n, &c->context, 1, line_index, 0))
                return fail_context(msg, c->context, address);
            line_index = at + 1;
        }
        if (c->old_count == 0) { /* a pure addition: at the end of the file */
            if (push_repl(u, n, 0, c->new_first, c->new_count) < 0)
                return PATHGATE_ENOMEM;
            continue;
        }
        const pathgate__span *pat = p->olds + c->old_first;
        size_t plen = c->old_count, nlen = c->new_count;
        int found = pathgate__patch_seek(&at, lines, n, pat, plen, line_index, c->eof);
        if (!found && pat[plen - 1].len == 0) {
            /* a final empty line stands for the file's last line break */
            plen--;
            if (nlen && p->news[c->new_first + nlen - 1].len == 0)
                nlen--;
            found = pathgate__patch_seek(&at, lines, n, pat, plen, line_index, c->eof);
        }
        if (!found)
            return fail_lines(msg, p, c, address);
        size_t old_start = 0, new_start = 0;
        for (size_t x = 0; x < c->ctx_count; x++) {
            size_t oc = p->ctx[2 * (c->ctx_first + x)], nc = p->ctx[2 * (c->ctx_first + x) + 1];
            if (oc >= plen || nc >= nlen)
                break;
            if ((old_start != oc || new_start != nc) &&
                push_repl(u, at + old_start, oc - old_start, c->new_first + new_start,
                          nc - new_start) < 0)
                return PATHGATE_ENOMEM;
            old_start = oc + 1;
            new_start = nc + 1;
        }
        if ((old_start != plen || new_start != nlen) &&
            push_repl(u, at + old_start, plen - old_start, c->new_first + new_start,
                      nlen - new_start) < 0)
            return PATHGATE_ENOMEM;
        line_index = at + plen;
    }
    /* a stable sort by start (insertion: they come nearly sorted) */
    for (size_t i = 1; i < u->n; i++) {
        repl x = u->r[i];
        size_t j = i;
        while (j > 0 && u->r[j - 1].start > x.start) {
            u->r[j] = u->r[j - 1];
            j--;
        }
        u->r[j] = x;
    }
    return 0;
}

static void put_line(pathgate__sb *o, const char *s, size_t len, int ending)
{
    pathgate__sb_put(o, s, len);
    pathgate__sb_put(o, ending == 2 ? "\r\n" : "\n", ending == 2 ? 2 : 1);
}

int pathgate__patch_update(char **out, size_t *out_len, char **msg, size_t *msg_len,
                           const pathgate__patch *p, const pathgate__patch_hunk *h,
                           const char *address, const char *content, size_t len,
                           const pathgate_allocator *a)
{
    *out = NULL;
    *out_len = 0;
    *msg = NULL;
    *msg_len = 0;
    size_t n = 0;
    pathgate__src_line *lines = split(a, content, len, &n);
    if (!lines)
        return PATHGATE_ENOMEM;
    /* the ending of the first line is the file's (text_file.rs) */
    int preferred = 1;
    for (size_t i = 0; i < n; i++)
        if (lines[i].ending) {
            preferred = lines[i].ending;
            break;
        }
    update u = {a, NULL, 0, 0};
    pathgate__sb m = PATHGATE__SB_INIT(a);
    int rc = replacements(&u, &m, p, h, lines, n, address);
    if (rc == 0) {
        pathgate__sb o = PATHGATE__SB_INIT(a);
        pathgate__sb_reserve(&o, len + len / 8 + 64);
        size_t src = 0;
        for (size_t i = 0; i < u.n; i++) {
            const repl *r = &u.r[i];
            size_t start = r->start < src ? src : r->start > n ? n : r->start;
            for (; src < start; src++)
                put_line(&o, lines[src].p, lines[src].len,
                         lines[src].ending ? lines[src].ending : preferred);
            src = start + r->old_len > n ? n : start + r->old_len;
            for (size_t j = 0; j < r->new_count; j++)
                put_line(&o, p->news[r->new_first + j].p, p->news[r->new_first + j].len, preferred);
        }
        for (; src < n; src++) /* every line ends with a break now */
            put_line(&o, lines[src].p, lines[src].len,
                     lines[src].ending ? lines[src].ending : preferred);
        if (o.oom) {
            pathgate__sb_free(&o);
            rc = PATHGATE_ENOMEM;
        } else if (!o.p) {
            *out = pathgate__strndup(a, "", 0);
            rc = *out ? 0 : PATHGATE_ENOMEM;
        } else {
            *out = o.p;
            *out_len = o.len;
        }
    } else if (rc == PATHGATE_ECONFLICT) {
        if (m.oom) {
            rc = PATHGATE_ENOMEM;
        } else {
            *msg = m.p;
            *msg_len = m.len;
            m.p = NULL;
        }
    }
    pathgate__sb_free(&m);
    pathgate__free(a, u.r);
    pathgate__free(a, lines);
    return rc;
}
