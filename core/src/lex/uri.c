/*
 * uri.c - PathUri, the type: accessors, equality and hash, and the lexical
 * operations parent, basename, starts_with, relative_to.
 *
 * The rules this module follows (the contract for every uri*.c file), the
 * split of jobs between the files and every place where pathgate answers
 * differently from Codex are in docs/uri.md.
 */
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "pct.h"
#include "text.h"
#include "uri_internal.h"

void pathgate_uri_free(pathgate_uri *uri)
{
    if (uri)
        pathgate__free(&uri->alloc, uri);
}

int pathgate_uri_dup(pathgate_uri **out, const pathgate_uri *uri, pathgate_error *err)
{
    if (!out || !uri)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    pathgate_uri *u = pathgate__malloc(&uri->alloc, sizeof *u + uri->len + 1);
    if (!u)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(u, uri, sizeof *u + uri->len + 1);
    *out = u;
    return PATHGATE_OK;
}

const char *pathgate_uri_string(const pathgate_uri *uri, size_t *len)
{
    if (len)
        *len = uri ? uri->len : 0;
    return uri ? uri->str : NULL;
}

pathgate_convention pathgate_uri_convention(const pathgate_uri *uri)
{
    return uri ? (pathgate_convention)uri->convention : PATHGATE_CONVENTION_NONE;
}

int pathgate_uri_is_opaque(const pathgate_uri *uri)
{
    return uri && uri->opaque;
}

/* ------------------------------------------------------------ segments */

/* Walks the path segments [host_end + 1, len), skipping the empty one a
 * root's trailing '/' leaves. */
typedef struct seg_iter {
    const char *s;
    size_t pos, end;
} seg_iter;

static seg_iter segs_of(const pathgate_uri *u)
{
    seg_iter it = {u->str, u->host_end + 1u, u->len};
    return it;
}

static int seg_next(seg_iter *it, const char **seg, size_t *n)
{
    while (it->pos < it->end) {
        const char *start = it->s + it->pos;
        const char *slash = memchr(start, '/', it->end - it->pos);
        size_t len = slash ? (size_t)(slash - start) : it->end - it->pos;
        it->pos += len + 1;
        if (len) {
            *seg = start;
            *n = len;
            return 1;
        }
    }
    return 0;
}

/* Decoded comparison of two well-formed URI texts. */
static int decoded_equal(const char *a, size_t an, const char *b, size_t bn, int fold)
{
    size_t i = 0, j = 0;
    while (i < an && j < bn) {
        unsigned char x = pathgate__pct_next(a, &i), y = pathgate__pct_next(b, &j);
        if (fold) {
            x = pathgate__ascii_lower(x);
            y = pathgate__ascii_lower(y);
        }
        if (x != y)
            return 0;
    }
    return i == an && j == bn;
}

static int is_windows(const pathgate_uri *u)
{
    return u->convention == PATHGATE_CONVENTION_WINDOWS;
}

static int hosts_equal(const pathgate_uri *a, const pathgate_uri *b)
{
    return decoded_equal(a->str + PATHGATE__URI_PREFIX_LEN, a->host_end - PATHGATE__URI_PREFIX_LEN,
                         b->str + PATHGATE__URI_PREFIX_LEN, b->host_end - PATHGATE__URI_PREFIX_LEN,
                         1);
}

/* 1 when some segment decodes to a separator of the URI's convention. */
static int has_encoded_separator(const pathgate_uri *u)
{
    if (!memchr(u->str + u->host_end, '%', u->len - u->host_end))
        return 0;
    seg_iter it = segs_of(u);
    const char *seg;
    size_t n;
    while (seg_next(&it, &seg, &n)) {
        if (pathgate__pct_has_decoded(seg, n, '/'))
            return 1;
        if (is_windows(u) && pathgate__pct_has_decoded(seg, n, '\\'))
            return 1;
    }
    return 0;
}

/* Compares a's segments with the leading segments of b. Returns 1 when
 * every segment of a matches; *rest (optional) gets b's iterator after
 * them. */
static int segs_prefix(const pathgate_uri *a, const pathgate_uri *b, int fold, seg_iter *rest)
{
    seg_iter ia = segs_of(a), ib = segs_of(b);
    const char *sa, *sb;
    size_t na, nb;
    while (seg_next(&ia, &sa, &na)) {
        if (!seg_next(&ib, &sb, &nb) || !decoded_equal(sa, na, sb, nb, fold))
            return 0;
    }
    if (rest)
        *rest = ib;
    return 1;
}

int pathgate_uri_equal(const pathgate_uri *a, const pathgate_uri *b)
{
    if (a == b)
        return 1;
    if (!a || !b || a->opaque != b->opaque || a->convention != b->convention)
        return 0;
    if (a->opaque)
        return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    int fold = is_windows(a);
    if (fold && !hosts_equal(a, b))
        return 0;
    if (pathgate__uri_trailing(a) != pathgate__uri_trailing(b))
        return 0; /* `file:///tmp/` names a directory, `file:///tmp` may not */
    seg_iter rest;
    const char *seg;
    size_t n;
    return segs_prefix(a, b, fold, &rest) && !seg_next(&rest, &seg, &n);
}

/* 64-bit FNV-1a over the comparison form: the convention, then (Windows)
 * the lower-cased decoded host and each lower-cased decoded segment, or
 * (POSIX) each decoded segment, every part followed by a 0 byte (decoded
 * text never holds NUL). Equal URIs hash equally by construction. */
#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

static uint64_t fnv_byte(uint64_t h, unsigned char c)
{
    return (h ^ c) * FNV_PRIME;
}

static uint64_t fnv_decoded(uint64_t h, const char *s, size_t n, int fold)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = pathgate__pct_next(s, &i);
        h = fnv_byte(h, fold ? pathgate__ascii_lower(c) : c);
    }
    return fnv_byte(h, 0);
}

uint64_t pathgate_uri_hash(const pathgate_uri *uri)
{
    if (!uri)
        return 0;
    uint64_t h = fnv_byte(FNV_OFFSET, (unsigned char)(uri->convention | uri->opaque << 4 |
                                                      pathgate__uri_trailing(uri) << 5));
    if (uri->opaque) {
        for (size_t i = 0; i < uri->len; i++)
            h = fnv_byte(h, (unsigned char)uri->str[i]);
        return h;
    }
    int fold = is_windows(uri);
    if (fold)
        h = fnv_decoded(h, uri->str + PATHGATE__URI_PREFIX_LEN,
                        uri->host_end - PATHGATE__URI_PREFIX_LEN, 1);
    seg_iter it = segs_of(uri);
    const char *seg;
    size_t n;
    while (seg_next(&it, &seg, &n))
        h = fnv_decoded(h, seg, n, fold);
    return h;
}

/* ----------------------------------------------------- lexical operations */

int pathgate_uri_parent(pathgate_uri **out, const pathgate_uri *uri, pathgate_error *err)
{
    if (!out || !uri)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (uri->opaque || uri->root_end >= uri->len)
        return PATHGATE_OK; /* `/`, a drive or share root (with or without its '/') */
    /* drop the trailing '/', the last segment and the '/' before it, but
     * keep the POSIX root's '/': `/C:/Users/` -> `/C:`, `/a` -> `/` */
    size_t len = uri->len - (size_t)pathgate__uri_trailing(uri);
    while (uri->str[len - 1] != '/')
        len--;
    if (len - 1 > uri->host_end)
        len--;
    pathgate_uri *p = pathgate__uri_alloc(&uri->alloc, len);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(p->str, uri->str, len);
    p->str[len] = '\0';
    p->len = (uint32_t)len;
    p->host_end = uri->host_end;
    p->root_end = uri->root_end < len ? uri->root_end : (uint32_t)len;
    p->convention = uri->convention;
    *out = p;
    return PATHGATE_OK;
}

/* Hands decoded path text p[0..len) (NUL-terminated, from uri's
 * allocator) to out; a Windows URI's text must be UTF-8 (p is freed and
 * EUTF8 returned otherwise). */
static int adopt_path_text(pathgate_buf *out, const pathgate_uri *uri, char *p, size_t len,
                           pathgate_error *err)
{
    if (is_windows(uri) && !pathgate__utf8_valid(p, len)) {
        pathgate__free(&uri->alloc, p);
        return pathgate__error_set(err, PATHGATE_EUTF8, "Windows path text is not valid UTF-8");
    }
    pathgate__buf_adopt(out, &uri->alloc, p, len);
    return PATHGATE_OK;
}

/* Decodes s[0..n) into a fresh buffer; under Windows the result must be
 * UTF-8 (the OS holds UTF-16). */
static int decode_to_buf(pathgate_buf *out, const pathgate_uri *uri, const char *s, size_t n,
                         pathgate_error *err)
{
    char *p = pathgate__malloc(&uri->alloc, n + 1);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    size_t len = pathgate__pct_decode(p, s, n);
    p[len] = '\0';
    return adopt_path_text(out, uri, p, len, err);
}

int pathgate_uri_basename(pathgate_buf *out, const pathgate_uri *uri, pathgate_error *err)
{
    if (!out || !uri)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    size_t end = uri->len - (size_t)pathgate__uri_trailing(uri);
    if (uri->opaque || end <= uri->host_end + 1u)
        return PATHGATE_OK; /* `file:///`, `file://server/`, opaque */
    /* the last segment, the root's included: `file:///C:/` -> `C:` */
    size_t start = end;
    while (uri->str[start - 1] != '/')
        start--;
    return decode_to_buf(out, uri, uri->str + start, end - start, err);
}

int pathgate_uri_starts_with(const pathgate_uri *uri, const pathgate_uri *base)
{
    if (!uri || !base)
        return 0;
    if (uri->opaque || base->opaque)
        return pathgate_uri_equal(uri, base);
    if (uri->convention != base->convention)
        return 0;
    int fold = is_windows(uri);
    if (fold && !hosts_equal(uri, base))
        return 0;
    if (has_encoded_separator(uri) || has_encoded_separator(base))
        return 0;
    return segs_prefix(base, uri, fold, NULL);
}

int pathgate_uri_relative_to(pathgate_buf *out, const pathgate_uri *uri, const pathgate_uri *base,
                             pathgate_error *err)
{
    if (!out || !uri || !base)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    if (!pathgate_uri_starts_with(uri, base))
        return PATHGATE_OK;
    seg_iter rest;
    segs_prefix(base, uri, is_windows(uri), &rest);
    char sep = is_windows(uri) ? '\\' : '/';
    char *p = pathgate__malloc(&uri->alloc, uri->len + 1);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    size_t len = 0;
    const char *seg;
    size_t n;
    while (seg_next(&rest, &seg, &n)) {
        if (len)
            p[len++] = sep;
        len += pathgate__pct_decode(p + len, seg, n);
    }
    p[len] = '\0';
    return adopt_path_text(out, uri, p, len, err);
}

/* -------------------------------------------- Codex's further operations */

int pathgate_uri_ancestor(pathgate_uri **out, const pathgate_uri *uri, size_t n,
                          pathgate_error *err)
{
    if (!out || !uri)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    pathgate_uri *cur = NULL;
    int rc = pathgate_uri_dup(&cur, uri, err);
    for (size_t i = 0; rc == 0 && cur && i < n; i++) {
        pathgate_uri *up = NULL;
        rc = pathgate_uri_parent(&up, cur, err);
        pathgate_uri_free(cur);
        cur = up;
    }
    if (rc)
        return rc;
    *out = cur;
    return PATHGATE_OK;
}

const char *pathgate_uri_encoded_path(const pathgate_uri *uri, size_t *len)
{
    if (len)
        *len = uri ? uri->len - uri->host_end : 0;
    return uri ? uri->str + uri->host_end : NULL;
}

int pathgate_uri_decoded_path(pathgate_buf *out, const pathgate_uri *uri, pathgate_error *err)
{
    if (!out || !uri)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    size_t n = uri->len - uri->host_end;
    char *p = pathgate__malloc(&uri->alloc, n + 1);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    size_t len = pathgate__pct_decode(p, uri->str + uri->host_end, n);
    p[len] = '\0';
    pathgate__buf_adopt(out, &uri->alloc, p, len);
    return PATHGATE_OK;
}

int pathgate_uri_lexical_depth(size_t *depth, const pathgate_uri *uri)
{
    if (!uri || uri->opaque || has_encoded_separator(uri))
        return 0;
    seg_iter it = segs_of(uri);
    const char *seg;
    size_t n, count = 0;
    while (seg_next(&it, &seg, &n))
        count++;
    if (depth)
        *depth = count;
    return 1;
}

int pathgate_uri_overlaps(const pathgate_uri *a, const pathgate_uri *b)
{
    if (!a || !b)
        return -1;
    if (pathgate_uri_equal(a, b))
        return 1;
    if (!pathgate_uri_lexical_depth(NULL, a) || !pathgate_uri_lexical_depth(NULL, b))
        return -1;
    return pathgate_uri_starts_with(a, b) || pathgate_uri_starts_with(b, a);
}
