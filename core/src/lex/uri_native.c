/* uri_native.c - native path text <-> PathUri: from_native (POSIX and
 * Windows, device aliases, the opaque fallback), to_native, to_host_path,
 * display. No uriparser here: the URI string is written directly. */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "alloc.h"
#include "error.h"
#include "pct.h"
#include "text.h"
#include "uri_internal.h"
#include "uri_scan.h"

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

/* ------------------------------------------------------------- fast paths */

static int is_dot_or_empty(const char *seg, size_t len)
{
    return len == 0 || (seg[0] == '.' && (len == 1 || (len == 2 && seg[1] == '.')));
}

#define ATTENTION (PATHGATE__PCT_SEG | PATHGATE__PCT_SLASH)

/* The fast path handles text whose segments need only encoding: split by
 * single separators ('/', and '\\' with win), none empty, `.` or `..`, no
 * NUL. It returns the number of bytes to percent-encode, or -1 for text
 * the general path must take; *high is set when a byte is >= 0x80. The
 * empty text qualifies. */
static long fast_segments(const char *str, size_t n, int win, int *high)
{
    long enc = 0;
    size_t seg = 0;
    *high = 0;
    if (n == 0)
        return 0;
    for (size_t base = 0; base < n; base += 64) {
        pathgate__scan m = pathgate__scan64(str, n, base);
        if (m.nul)
            return -1;
        uint64_t sep = m.slash, code = m.bad | m.pct; /* SEG: what gets encoded */
        if (win) {
            sep |= m.bslash;
            code &= ~m.bslash;
        }
        enc += __builtin_popcountll(code);
        *high |= m.high != 0;
        for (; sep; sep &= sep - 1) {
            size_t j = base + (size_t)__builtin_ctzll(sep);
            if (is_dot_or_empty(str + seg, j - seg))
                return -1;
            seg = j + 1;
        }
    }
    return is_dot_or_empty(str + seg, n - seg) ? -1 : enc;
}

/* Allocates the URI `file://` + prefix + the encoded tail (enc bytes of it
 * to encode, separators turned into '/') and sets its offsets. */
static int build_fast(pathgate_uri **out, const pathgate_allocator *a, const char *prefix,
                      size_t prefix_n, const char *tail, size_t tail_n, long enc,
                      pathgate_convention convention, pathgate_error *err)
{
    size_t len = PATHGATE__URI_PREFIX_LEN + prefix_n + tail_n + 2 * (size_t)enc;
    pathgate_uri *u = pathgate__uri_alloc(a, len);
    if (!u)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    char *p = u->str;
    memcpy(p, PATHGATE__URI_PREFIX, PATHGATE__URI_PREFIX_LEN);
    p += PATHGATE__URI_PREFIX_LEN;
    memcpy(p, prefix, prefix_n);
    p += prefix_n;
    size_t i = 0;
    if (enc == 0 && convention == PATHGATE_CONVENTION_POSIX) {
        memcpy(p, tail, tail_n); /* nothing to change */
        i = tail_n;
    }
    int win = convention == PATHGATE_CONVENTION_WINDOWS;
    while (i < tail_n) {
        unsigned char c;
        if (tail_n - i >= 16) {
            /* 16 bytes: stored whole (each remaining input byte writes at
             * least one, so the store stays inside the string), kept up to
             * the first byte to encode */
            pathgate__scan m;
            pathgate__scan16(&m, (const unsigned char *)tail + i);
            uint64_t code = m.bad | m.pct;
            unsigned char blk[16];
            memcpy(blk, tail + i, 16);
            if (win) {
                code &= ~m.bslash;
                for (uint64_t b = m.bslash; b; b &= b - 1)
                    blk[__builtin_ctzll(b)] = '/';
            }
            memcpy(p, blk, 16);
            if (!code) {
                p += 16;
                i += 16;
                continue;
            }
            unsigned k = (unsigned)__builtin_ctzll(code);
            p += k;
            i += k;
        } else {
            c = (unsigned char)tail[i];
            if (!(pathgate__pct_class[c] & ATTENTION) || c == '/') {
                *p++ = (char)c;
                i++;
                continue;
            }
            if (win && c == '\\') {
                *p++ = '/';
                i++;
                continue;
            }
        }
        p = pathgate__pct_put(p, (unsigned char)tail[i++]);
    }
    u->str[len] = '\0';
    u->len = (uint32_t)len;
    u->host_end = PATHGATE__URI_PREFIX_LEN;
    u->root_end = (uint32_t)(PATHGATE__URI_PREFIX_LEN + prefix_n);
    u->convention = (uint8_t)convention;
    *out = u;
    return PATHGATE_OK;
}

/* 1 when s[0..n) is all ASCII (8 bytes at a time). */
static int ascii_only(const char *s, size_t n)
{
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        acc |= w;
    }
    for (; i < n; i++)
        acc |= (unsigned char)s[i];
    return !(acc & 0x8080808080808080ULL);
}

/* ------------------------------------------------------------------ POSIX */

static int posix_from_native(pathgate_uri **out, const char *s, size_t n,
                             const pathgate_allocator *a, int slow, pathgate_error *err)
{
    if (n == 0 || s[0] != '/')
        return pathgate__error_set(err, PATHGATE_ENOTABS, "POSIX path is not absolute");
    /* the common case: no dot or empty segment, no NUL, not drive-like */
    int drive_like = n >= 3 && pathgate__is_alpha((unsigned char)s[1]) &&
                     (s[2] == ':' || s[2] == '|') && (n == 3 || s[3] == '/');
    int high;
    long enc;
    if (!slow && !drive_like && (enc = fast_segments(s + 1, n - 1, 0, &high)) >= 0)
        return build_fast(out, a, "/", 1, s + 1, n - 1, enc, PATHGATE_CONVENTION_POSIX, err);
    if (memchr(s, '\0', n)) /* no honest URI form */
        return pathgate__uri_make_opaque(out, a, (const unsigned char *)s, n, err);
    char buf[PATHGATE__URI_STACK];
    pathgate__uri_builder b;
    pathgate__ub_init(&b, a, buf, sizeof buf - 1, "", 0, 0);
    (void)pathgate__ub_push_native(&b, s, n, 0, 0, err);
    size_t first_n;
    const char *first = pathgate__ub_first(&b, &first_n);
    if (first && (pathgate__uri_is_drive_seg(first, first_n) ||
                  pathgate__uri_is_pipe_drive_seg(first, first_n))) {
        /* `/C:/x` (or `/C|/x`) would read back as a Windows drive: no
         * honest URI form */
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
    return i <= n && n - i >= 3 && pathgate__is_alpha((unsigned char)s[i]) && s[i + 1] == ':' &&
           is_sep(s[i + 2]);
}

/* A server name that makes an honest URI host (see uri.c: parse accepts
 * exactly these back). */
static int server_ok(const char *s, size_t n)
{
    if (n == 0 || is_dot(s, n) || is_dotdot(s, n) ||
        (n == 9 && strncasecmp(s, "localhost", 9) == 0))
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
        r.rest = 2; /* the separator is read too: `C:\` keeps its trailing flag */
        return r;
    }
    if (n < 2 || !is_sep(s[0]) || !is_sep(s[1]))
        return r; /* relative, drive-relative `C:x`, root-relative `\x` */
    if (n >= 3 && (s[2] == '?' || s[2] == '.') && (n == 3 || is_sep(s[3]))) {
        /* device namespace `\\?\` or `\\.\` */
        if (drive_at(s, n, 4)) {
            r.kind = WIN_DRIVE;
            r.letter = s[4];
            r.rest = 6;
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

static int windows_opaque(pathgate_uri **out, const char *s, size_t n, const pathgate_allocator *a,
                          pathgate_error *err)
{
    unsigned char utf16[2 * PATHGATE_PATH_MAX];
    size_t len = utf8_to_utf16le_backslashed(utf16, s, n);
    return pathgate__uri_make_opaque(out, a, utf16, len, err);
}

static int windows_from_native(pathgate_uri **out, const char *s, size_t n,
                               const pathgate_allocator *a, int slow, pathgate_error *err)
{
    /* the common case: `X:\\` and segments that need only encoding */
    int high;
    long enc;
    if (!slow && drive_at(s, n, 0) && (enc = fast_segments(s + 3, n - 3, 1, &high)) >= 0) {
        if (high && !pathgate__utf8_valid(s, n))
            return pathgate__error_set(err, PATHGATE_EUTF8, "Windows path text is not valid UTF-8");
        char prefix[4] = {'/', (char)(s[0] & ~0x20), ':', '/'}; /* upper-cased letter */
        return build_fast(out, a, prefix, 4, s + 3, n - 3, enc, PATHGATE_CONVENTION_WINDOWS, err);
    }
    if (!ascii_only(s, n) && !pathgate__utf8_valid(s, n))
        return pathgate__error_set(err, PATHGATE_EUTF8, "Windows path text is not valid UTF-8");
    win_root r = win_split_root(s, n);
    if (r.kind == WIN_NOTABS)
        return pathgate__error_set(err, PATHGATE_ENOTABS, "Windows path is not absolute");
    if (r.kind == WIN_OPAQUE || memchr(s, '\0', n))
        return windows_opaque(out, s, n, a, err);
    char buf[PATHGATE__URI_STACK];
    pathgate__uri_builder b;
    if (r.kind == WIN_DRIVE) {
        pathgate__ub_init(&b, a, buf, sizeof buf - 1, "", 0, 0);
        char drive[2] = {r.letter, ':'};
        pathgate__ub_push_raw(&b, drive, 2);
    } else {
        pathgate__ub_init(&b, a, buf, sizeof buf - 1, r.server, r.server_n, 1);
        (void)pathgate__ub_push_native(&b, r.share, r.share_n, PATHGATE__UB_WIN, 0, err);
    }
    b.floor = 1;
    (void)pathgate__ub_push_native(&b, s + r.rest, n - r.rest, PATHGATE__UB_WIN, 0, err);
    if (r.kind == WIN_DRIVE && b.count == 1)
        b.trailing = 1; /* native text names a drive's root `C:\`, never `C:` (as Codex) */
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
    return pathgate__uri_from_native_ex(out, text, len, convention, a, err, 0);
}

int pathgate__uri_from_native_ex(pathgate_uri **out, const char *text, size_t len,
                                 pathgate_convention convention, const pathgate_allocator *a,
                                 pathgate_error *err, int slow)
{
    if (convention == PATHGATE_CONVENTION_NONE) {
        convention = infer_native(text, len);
        if (convention == PATHGATE_CONVENTION_NONE)
            return pathgate__error_set(err, PATHGATE_ENOTABS,
                                       "path is not absolute in either convention");
    }
    if (convention == PATHGATE_CONVENTION_POSIX)
        return posix_from_native(out, text, len, a, slow, err);
    return windows_from_native(out, text, len, a, slow, err);
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

/* The value of a hex digit already known to be one (a URI's %XX is
 * validated when it is built): branch-free, '0'-'9' 'A'-'F' 'a'-'f'. */
static inline unsigned hex_digit(unsigned char c)
{
    return (c & 0xFu) + 9u * (c >> 6);
}

/* Word-at-a-time helpers for put_decoded (portable C, no intrinsics). */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* 0x80 in each byte of w equal to c, 0 elsewhere: exact (no borrow runs
 * between bytes, unlike the classic has-zero test). */
static inline uint64_t bytes_eq(uint64_t w, unsigned char c)
{
    uint64_t t = w ^ (ONES * c);
    return ~(((t & ~HIGHS) + ~HIGHS) | t) & HIGHS;
}

/* The index (0-7) of the lowest byte flagged 0x80 in m (m != 0), in
 * memory order. */
static inline unsigned first_flagged(uint64_t m)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (unsigned)__builtin_clzll(m) >> 3;
#else
    return (unsigned)__builtin_ctzll(m) >> 3;
#endif
}

/* Decodes the URI text s[0..n) to p + *len, turning each '/' into sep.
 * Returns a bit set: 1 when an escape decoded to a separator ('/', or '\'
 * under Windows), 2 when one decoded to a non-ASCII byte. *high is set
 * (once: the caller starts it at SIZE_MAX) to the output index of the
 * first non-ASCII byte, raw or decoded (all before it is ASCII).
 *
 * Sixteen (then eight) bytes at a time: a block without '%' or a byte
 * >= 0x80 is copied whole (its '/' turned into sep); a block with one is
 * copied up to it and the escapes there are taken alone. Each block store
 * lands in p below the input's own offset in the URI string (decoding
 * never lengthens, and the output starts no later than the text), so it
 * stays inside the len + 2 bytes native_decode allocates; bytes written
 * past the advance are overwritten by what follows. */
static int put_decoded(char *p, size_t *len, const char *s, size_t n, char sep, int win,
                       size_t *high)
{
    size_t o = *len;
    int flags = 0;
    const uint64_t swap = (unsigned char)('/' ^ sep); /* times 0x01 per byte */
    size_t i = 0;
    while (i < n) {
        unsigned char c;
        if (n - i >= 16) {
            pathgate__scan m;
            pathgate__scan16(&m, (const unsigned char *)s + i);
            uint64_t special = m.pct | m.high;
            unsigned char blk[16];
            memcpy(blk, s + i, 16);
            if (sep != '/')
                for (uint64_t b = m.slash; b; b &= b - 1)
                    blk[__builtin_ctzll(b)] = (unsigned char)sep;
            memcpy(p + o, blk, 16);
            if (!special) {
                o += 16;
                i += 16;
                continue;
            }
            unsigned k = (unsigned)__builtin_ctzll(special);
            o += k;
            i += k;
        } else if (n - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            uint64_t special = (w & HIGHS) | bytes_eq(w, '%');
            w ^= (bytes_eq(w, '/') >> 7) * swap; /* '/' -> sep (no-op for '/') */
            memcpy(p + o, &w, 8);
            if (!special) {
                o += 8;
                i += 8;
                continue;
            }
            unsigned k = first_flagged(special);
            o += k;
            i += k;
        } else {
            c = (unsigned char)s[i];
            if (c != '%' && c < 0x80) {
                p[o++] = c == '/' ? sep : (char)c;
                i++;
                continue;
            }
        }
        /* s[i] is '%' or a byte >= 0x80: take it and those that follow
         * it directly (a non-ASCII character is a run of escapes) */
        do {
            c = (unsigned char)s[i];
            if (c == '%') {
                c = (unsigned char)(hex_digit((unsigned char)s[i + 1]) << 4 |
                                    hex_digit((unsigned char)s[i + 2]));
                i += 3;
                if (c == '/' || (win && c == '\\'))
                    flags |= 1;
                flags |= c >= 0x80 ? 2 : 0;
            } else {
                i++; /* a raw non-ASCII byte: kept */
            }
            if (c >= 0x80 && *high == SIZE_MAX)
                *high = o;
            p[o++] = (char)c;
        } while (i < n && (s[i] == '%' || (unsigned char)s[i] >= 0x80));
    }
    *len = o;
    return flags;
}

static int native_decode(pathgate_buf *out, const pathgate_uri *uri, pathgate_convention convention,
                         int strict, pathgate_error *err);

int pathgate_uri_to_native(pathgate_buf *out, const pathgate_uri *uri,
                           pathgate_convention convention, pathgate_error *err)
{
    if (!out || !uri || (unsigned)convention > PATHGATE_CONVENTION_WINDOWS)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    if (uri->opaque)
        return pathgate__error_set(err, PATHGATE_EOPAQUE, NULL);
    return native_decode(out, uri, convention, 1, err);
}

int pathgate__uri_native_raw(pathgate_buf *out, const pathgate_uri *uri,
                             pathgate_convention convention, pathgate_error *err)
{
    pathgate_buf_dispose(out);
    if (uri->opaque)
        return pathgate__error_set(err, PATHGATE_EOPAQUE, NULL);
    return native_decode(out, uri, convention, 0, err);
}

/* to_native's body; strict 0 (display) lets an encoded separator decode
 * into the text and skips the Windows UTF-8 check. */
static int native_decode(pathgate_buf *out, const pathgate_uri *uri, pathgate_convention convention,
                         int strict, pathgate_error *err)
{
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
    if (hosted && uri->len == uri->host_end + 1u)
        return pathgate__error_set(err, PATHGATE_ECONVENTION,
                                   "a UNC URI without a share has no native form");

    /* The canonical path is `/seg/seg` (maybe with one trailing '/'), so
     * decoding it with '/' turned into the separator is the whole job:
     *   POSIX   file:///a/b -> /a/b     file:///a/ -> /a/
     *   Windows file:///C:/a -> C:\a    file://h/s/a -> \\h\s\a
     * but for a bare drive, which gets its separator: file:///C: -> C:\ */
    char *p = pathgate__malloc(&uri->alloc, uri->len + 2);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    size_t len = 0, high = SIZE_MAX;
    int flags = 0;
    const char *path = uri->str + uri->host_end;
    size_t path_n = uri->len - uri->host_end;
    if (hosted) {
        p[len++] = '\\';
        p[len++] = '\\';
        flags |= put_decoded(p, &len, uri->str + PATHGATE__URI_PREFIX_LEN,
                             uri->host_end - PATHGATE__URI_PREFIX_LEN, '\\', 1, &high);
    } else if (win) {
        path++; /* drop the '/' before the drive */
        path_n--;
    }
    flags |= put_decoded(p, &len, path, path_n, win ? '\\' : '/', win, &high);
    if (win && drive && uri->root_end == uri->len && p[len - 1] != '\\')
        p[len++] = '\\'; /* `C:` alone is drive-relative: the root is `C:\` */
    p[len] = '\0';
    if (strict && (flags & 1)) {
        pathgate__free(&uri->alloc, p);
        return pathgate__error_set(err, PATHGATE_ESYNTAX, "URI segment holds an encoded separator");
    }
    /* what precedes the first non-ASCII byte is ASCII (whole characters):
     * validating from it is validating the whole */
    if (strict && win && (flags & 2) && !pathgate__utf8_valid(p + high, len - high)) {
        pathgate__free(&uri->alloc, p);
        return pathgate__error_set(err, PATHGATE_EUTF8, "Windows path text is not valid UTF-8");
    }
    /* both callers disposed of out: no second dispose (buf_adopt's) */
    out->ptr = p;
    out->len = len;
    out->alloc = uri->alloc;
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
        return pathgate__error_set(err, PATHGATE_ECONVENTION, "URI is not a %s path (fail-closed)",
                                   pathgate_convention_name(host));
    return pathgate_uri_to_native(out, uri, host, err);
}
