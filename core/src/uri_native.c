/* uri_native.c - native path text <-> PathUri: from_native (POSIX and
 * Windows, device aliases, the opaque fallback), to_native, to_host_path,
 * display. No uriparser here: the URI string is written directly. */
#include <string.h>
#include <strings.h>

#include "alloc.h"
#include "error.h"
#include "pct.h"
#include "text.h"
#include "uri_internal.h"

static int is_sep(char c)
{
    return c == '\\' || c == '/';
}

static int is_dot(const char *s, size_t n)
{
    return n == 1 && s[0] == '.';
}

static int is_dotdot(const char *s, size_t n)
{
    return n == 2 && s[0] == '.' && s[1] == '.';
}

/* Pushes the segments of s[0..n) split on '/' (and '\' when win):
 * empty and `.` drop, `..` pops but never below the builder's floor. */
static void push_native_segments(pathgate__uri_builder *b, const char *s, size_t n, int win)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != '/' && !(win && s[j] == '\\'))
            j++;
        const char *seg = s + i;
        size_t len = j - i;
        if (len && !is_dot(seg, len)) {
            if (is_dotdot(seg, len))
                (void)pathgate__ub_pop(b); /* clamps at the root */
            else
                pathgate__ub_push_encoded(b, seg, len, PATHGATE__PCT_SEG);
        }
        i = j + 1;
    }
}

/* Upper bound of the URI for native text s[0..n) plus `extra` bytes. */
static size_t native_bound(const char *s, size_t n, size_t extra)
{
    return PATHGATE__URI_PREFIX_LEN + 1 + n + 2 * pathgate__pct_count(s, n, PATHGATE__PCT_SEG) +
           extra;
}

/* ------------------------------------------------------------------ POSIX */

static int posix_from_native(pathgate_uri **out, const char *s, size_t n,
                             const pathgate_allocator *a, pathgate_error *err)
{
    if (n == 0 || s[0] != '/')
        return pathgate__error_set(err, PATHGATE_ENOTABS, "POSIX path is not absolute");
    if (memchr(s, '\0', n)) /* no honest URI form */
        return pathgate__uri_make_opaque(out, a, (const unsigned char *)s, n, err);
    pathgate__uri_builder b;
    if (pathgate__ub_start(&b, a, native_bound(s, n, 0), "", 0, 0))
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    push_native_segments(&b, s, n, 0);
    size_t first_n;
    const char *first = pathgate__ub_first(&b, &first_n);
    if (first && pathgate__uri_is_drive_seg(first, first_n)) {
        /* `/C:/x` would read back as a Windows drive: no honest URI form */
        pathgate__ub_abandon(&b);
        return pathgate__uri_make_opaque(out, a, (const unsigned char *)s, n, err);
    }
    return pathgate__ub_finish(&b, out, err);
}

/* ---------------------------------------------------------------- Windows */

enum win_kind { WIN_NOTABS, WIN_DRIVE, WIN_UNC, WIN_OPAQUE };

typedef struct win_root {
    enum win_kind kind;
    char letter;        /* WIN_DRIVE */
    const char *server; /* WIN_UNC */
    size_t server_n;
    const char *share;
    size_t share_n;
    size_t rest; /* index of the text after the root */
} win_root;

static int drive_at(const char *s, size_t n, size_t i)
{
    return n - i >= 3 && pathgate__is_alpha((unsigned char)s[i]) && s[i + 1] == ':' &&
           is_sep(s[i + 2]);
}

/* A server name that makes an honest URI host (see uri.c: parse accepts
 * exactly these back). */
static int server_ok(const char *s, size_t n)
{
    if (n == 0 || is_dot(s, n) || is_dotdot(s, n) || (n == 9 && strncasecmp(s, "localhost", 9) == 0))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (pathgate__pct_is((unsigned char)s[i], PATHGATE__PCT_BADHOST))
            return 0;
    return 1;
}

/* `\\server\share[\rest]` from index i (just after the two separators). */
static void split_unc(win_root *r, const char *s, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && !is_sep(s[j]))
        j++;
    r->server = s + i;
    r->server_n = j - i;
    if (j == n) { /* no share */
        r->kind = WIN_OPAQUE;
        return;
    }
    size_t k = ++j;
    while (k < n && !is_sep(s[k]))
        k++;
    r->share = s + j;
    r->share_n = k - j;
    r->rest = k;
    int share_ok = r->share_n && !is_dot(r->share, r->share_n) && !is_dotdot(r->share, r->share_n);
    r->kind = (share_ok && server_ok(r->server, r->server_n)) ? WIN_UNC : WIN_OPAQUE;
}

static win_root win_split_root(const char *s, size_t n)
{
    win_root r = {WIN_NOTABS, 0, NULL, 0, NULL, 0, 0};
    if (drive_at(s, n, 0)) {
        r.kind = WIN_DRIVE;
        r.letter = s[0];
        r.rest = 3;
        return r;
    }
    if (n < 2 || !is_sep(s[0]) || !is_sep(s[1]))
        return r; /* relative, drive-relative `C:x`, root-relative `\x` */
    if (n >= 3 && (s[2] == '?' || s[2] == '.') && (n == 3 || is_sep(s[3]))) {
        /* device namespace `\\?\` or `\\.\` */
        if (drive_at(s, n, 4)) {
            r.kind = WIN_DRIVE;
            r.letter = s[4];
            r.rest = 7;
        } else if (n >= 8 && strncasecmp(s + 4, "UNC", 3) == 0 && is_sep(s[7])) {
            split_unc(&r, s, n, 8);
        } else {
            r.kind = WIN_OPAQUE; /* \\.\COM1, \\?\Volume{...}, \\.\C: (a volume) */
        }
        return r;
    }
    split_unc(&r, s, n, 2);
    return r;
}

/* UTF-8 (valid) to UTF-16LE with '/' turned into '\'. dst: 2 * n bytes. */
static size_t utf8_to_utf16le_backslashed(unsigned char *dst, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, o = 0;
    while (i < n) {
        uint32_t cp;
        unsigned char c = s[i];
        if (c < 0x80) {
            cp = c == '/' ? '\\' : c;
            i += 1;
        } else if (c < 0xE0) {
            cp = (uint32_t)(c & 0x1F) << 6 | (s[i + 1] & 0x3F);
            i += 2;
        } else if (c < 0xF0) {
            cp = (uint32_t)(c & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F);
            i += 3;
        } else {
            cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 |
                 (uint32_t)(s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F);
            i += 4;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            uint32_t hi = 0xD800 | (cp >> 10), lo = 0xDC00 | (cp & 0x3FF);
            dst[o++] = (unsigned char)hi;
            dst[o++] = (unsigned char)(hi >> 8);
            dst[o++] = (unsigned char)lo;
            dst[o++] = (unsigned char)(lo >> 8);
        } else {
            dst[o++] = (unsigned char)cp;
            dst[o++] = (unsigned char)(cp >> 8);
        }
    }
    return o;
}

static int windows_opaque(pathgate_uri **out, const char *s, size_t n,
                          const pathgate_allocator *a, pathgate_error *err)
{
    unsigned char utf16[2 * PATHGATE_PATH_MAX];
    size_t len = utf8_to_utf16le_backslashed(utf16, s, n);
    return pathgate__uri_make_opaque(out, a, utf16, len, err);
}

static int windows_from_native(pathgate_uri **out, const char *s, size_t n,
                               const pathgate_allocator *a, pathgate_error *err)
{
    if (!pathgate__utf8_valid(s, n))
        return pathgate__error_set(err, PATHGATE_EUTF8, "Windows path text is not valid UTF-8");
    win_root r = win_split_root(s, n);
    if (r.kind == WIN_NOTABS)
        return pathgate__error_set(err, PATHGATE_ENOTABS, "Windows path is not absolute");
    if (r.kind == WIN_OPAQUE || memchr(s, '\0', n))
        return windows_opaque(out, s, n, a, err);
    pathgate__uri_builder b;
    int rc;
    if (r.kind == WIN_DRIVE) {
        rc = pathgate__ub_start(&b, a, native_bound(s, n, 2), "", 0, 0);
        if (rc == 0) {
            char drive[2] = {r.letter, ':'};
            pathgate__ub_push_raw(&b, drive, 2);
        }
    } else {
        rc = pathgate__ub_start(&b, a, native_bound(s, n, 2 * r.server_n), r.server, r.server_n, 1);
        if (rc == 0)
            pathgate__ub_push_encoded(&b, r.share, r.share_n, PATHGATE__PCT_SEG);
    }
    if (rc)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    b.floor = 1;
    push_native_segments(&b, s + r.rest, n - r.rest, 1);
    return pathgate__ub_finish(&b, out, err);
}

/* ------------------------------------------------------------ from_native */

static pathgate_convention infer_native(const char *s, size_t n)
{
    if (n >= 1 && s[0] == '/')
        return PATHGATE_CONVENTION_POSIX;
    if (drive_at(s, n, 0) || (n >= 2 && s[0] == '\\' && s[1] == '\\'))
        return PATHGATE_CONVENTION_WINDOWS;
    return PATHGATE_CONVENTION_NONE;
}

int pathgate__uri_from_native(pathgate_uri **out, const char *text, size_t len,
                              pathgate_convention convention, const pathgate_allocator *a,
                              pathgate_error *err)
{
    if (convention == PATHGATE_CONVENTION_NONE) {
        convention = infer_native(text, len);
        if (convention == PATHGATE_CONVENTION_NONE)
            return pathgate__error_set(err, PATHGATE_ENOTABS,
                                       "path is not absolute in either convention");
    }
    if (convention == PATHGATE_CONVENTION_POSIX)
        return posix_from_native(out, text, len, a, err);
    return windows_from_native(out, text, len, a, err);
}

int pathgate_uri_from_native(pathgate_uri **out, const char *text, size_t len,
                             pathgate_convention convention, const pathgate_allocator *alloc,
                             pathgate_error *err)
{
    if (!out || (!text && len) || (unsigned)convention > PATHGATE_CONVENTION_WINDOWS)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (len > PATHGATE_PATH_MAX)
        return pathgate__error_set(err, PATHGATE_ETOOLONG, "text is longer than %d bytes",
                                   PATHGATE_PATH_MAX);
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    return pathgate__uri_from_native(out, text ? text : "", len, convention, &a, err);
}

/* -------------------------------------------------------------- to_native */

/* Appends the decoded s[0..n) at p; fails when it decodes to a separator. */
static int put_decoded(char *p, size_t *len, const char *s, size_t n, int win)
{
    size_t start = *len;
    *len += pathgate__pct_decode(p + start, s, n);
    if (memchr(p + start, '/', *len - start) || (win && memchr(p + start, '\\', *len - start)))
        return -1;
    return 0;
}

int pathgate_uri_to_native(pathgate_buf *out, const pathgate_uri *uri,
                           pathgate_convention convention, pathgate_error *err)
{
    if (!out || !uri || (unsigned)convention > PATHGATE_CONVENTION_WINDOWS)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    if (uri->opaque)
        return pathgate__error_set(err, PATHGATE_EOPAQUE, NULL);
    if (convention == PATHGATE_CONVENTION_NONE)
        convention = (pathgate_convention)uri->convention;
    int win = convention == PATHGATE_CONVENTION_WINDOWS;
    int hosted = uri->host_end > PATHGATE__URI_PREFIX_LEN;
    int drive = !hosted && uri->root_end > uri->host_end + 1u;
    if (!win && hosted)
        return pathgate__error_set(err, PATHGATE_ECONVENTION, "a UNC URI has no POSIX form");
    if (win && !hosted && !drive)
        return pathgate__error_set(err, PATHGATE_ECONVENTION,
                                   "a URI without host or drive has no Windows form");

    char *p = pathgate__malloc(&uri->alloc, uri->len + 1);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    size_t len = 0;
    int bad = 0;
    char sep = win ? '\\' : '/';
    if (hosted) {
        p[len++] = '\\';
        p[len++] = '\\';
        bad |= put_decoded(p, &len, uri->str + PATHGATE__URI_PREFIX_LEN,
                           uri->host_end - PATHGATE__URI_PREFIX_LEN, 1);
        p[len++] = '\\';
    } else if (!win) {
        p[len++] = '/';
    }
    /* segments after the host; a drive or share is the first of them */
    const char *s = uri->str;
    size_t i = uri->host_end + 1u, end = uri->len, nseg = 0;
    while (i < end) {
        const char *slash = memchr(s + i, '/', end - i);
        size_t j = slash ? (size_t)(slash - s) : end;
        if (j > i) {
            if (nseg++)
                p[len++] = sep;
            bad |= put_decoded(p, &len, s + i, j - i, win);
        }
        i = j + 1;
    }
    if (win && nseg == 1)
        p[len++] = '\\'; /* `C:\`, `\\server\share\` */
    p[len] = '\0';
    if (bad) {
        pathgate__free(&uri->alloc, p);
        return pathgate__error_set(err, PATHGATE_ESYNTAX, "URI segment holds an encoded separator");
    }
    if (win && !pathgate__utf8_valid(p, len)) {
        pathgate__free(&uri->alloc, p);
        return pathgate__error_set(err, PATHGATE_EUTF8, "Windows path text is not valid UTF-8");
    }
    pathgate__buf_adopt(out, &uri->alloc, p, len);
    return PATHGATE_OK;
}

int pathgate_uri_to_host_path(pathgate_buf *out, const pathgate_uri *uri, pathgate_error *err)
{
    if (!out || !uri)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    if (uri->opaque)
        return pathgate__error_set(err, PATHGATE_EOPAQUE, NULL);
    pathgate_convention host = pathgate_convention_host();
    if (uri->convention != host)
        return pathgate__error_set(err, PATHGATE_ECONVENTION,
                                   "URI is not a %s path (fail-closed)",
                                   pathgate_convention_name(host));
    return pathgate_uri_to_native(out, uri, host, err);
}

int pathgate_uri_display(pathgate_buf *out, const pathgate_uri *uri)
{
    if (!out || !uri)
        return PATHGATE_EINVAL;
    int rc = pathgate_uri_to_native(out, uri, PATHGATE_CONVENTION_NONE, NULL);
    if (rc == PATHGATE_ENOMEM)
        return rc;
    if (rc == 0 && pathgate__utf8_valid(out->ptr, out->len))
        return PATHGATE_OK;
    return pathgate__buf_set(out, &uri->alloc, uri->str, uri->len);
}
