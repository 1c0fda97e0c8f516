/* uri_parse.c - pathgate_uri_parse: file: URI text -> PathUri.
 *
 * uriparser checks the RFC 3986 syntax and splits the authority; nothing
 * else of it is used (its normaliser and filename converters are wrong
 * for us, see docs/spec.md section 9). Segments are validated and
 * normalised here. The
 * order of the checks fixes which error wins: text (EINVAL, ETOOLONG,
 * ENUL, EUTF8), scheme (ENOTABS, ESCHEME), query/fragment, syntax,
 * credentials, port, host, path. */
#include <stdalign.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <uriparser/Uri.h>

#include "alloc.h"
#include "base64url.h"
#include "error.h"
#include "pct.h"
#include "text.h"
#include "uri_internal.h"
#include "uri_scan.h"

/* ------------------------------------------- uriparser's memory manager */

/* uriparser allocates one node per path segment. A small arena on the
 * caller's stack serves those; beyond it the handle's allocator takes
 * over (so the leak and failing-allocation tests still see it). Each
 * chunk carries its size in a header so that realloc can copy it. */
#define ARENA_SIZE 2048
#define CHUNK_HEADER 16

typedef struct parse_arena {
    UriMemoryManager mm; /* first: the callbacks cast back to the arena */
    const pathgate_allocator *alloc;
    size_t used;
    alignas(16) unsigned char buf[ARENA_SIZE];
} parse_arena;

static int in_arena(const parse_arena *ar, const void *p)
{
    const unsigned char *c = p;
    return c >= ar->buf && c < ar->buf + ARENA_SIZE;
}

static void *arena_malloc(UriMemoryManager *mm, size_t size)
{
    parse_arena *ar = (parse_arena *)mm;
    size_t need = CHUNK_HEADER + ((size + 15) & ~(size_t)15);
    if (size < ARENA_SIZE && ARENA_SIZE - ar->used >= need) {
        unsigned char *chunk = ar->buf + ar->used;
        ar->used += need;
        memcpy(chunk, &size, sizeof size);
        return chunk + CHUNK_HEADER;
    }
    return pathgate__malloc(ar->alloc, size);
}

static void *arena_calloc(UriMemoryManager *mm, size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size)
        return NULL;
    void *p = arena_malloc(mm, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

static void *arena_realloc(UriMemoryManager *mm, void *ptr, size_t size)
{
    parse_arena *ar = (parse_arena *)mm;
    if (!ptr)
        return arena_malloc(mm, size);
    if (!in_arena(ar, ptr))
        return pathgate__realloc(ar->alloc, ptr, size);
    size_t old;
    memcpy(&old, (unsigned char *)ptr - CHUNK_HEADER, sizeof old);
    void *p = arena_malloc(mm, size);
    if (p)
        memcpy(p, ptr, old < size ? old : size);
    return p;
}

static void *arena_reallocarray(UriMemoryManager *mm, void *ptr, size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size)
        return NULL;
    return arena_realloc(mm, ptr, n * size);
}

static void arena_free(UriMemoryManager *mm, void *ptr)
{
    parse_arena *ar = (parse_arena *)mm;
    if (ptr && !in_arena(ar, ptr))
        pathgate__free(ar->alloc, ptr);
}

/* ---------------------------------------------------------------- checks */

static int is_scheme_char(unsigned char c)
{
    return pathgate__is_alpha(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

/* 1 for a segment decoding to ".", 2 for "..", 0 otherwise. */
static int dot_segment(const char *s, size_t n)
{
    if (n > 6 || (s[0] != '.' && s[0] != '%'))
        return 0;
    char d[6];
    size_t len = pathgate__pct_decode(d, s, n);
    if (len == 1 && d[0] == '.')
        return 1;
    if (len == 2 && d[0] == '.' && d[1] == '.')
        return 2;
    return 0;
}

/* Runs uriparser over s[0..len) with the path's lenient bytes replaced by
 * a plain letter (same length, so positions agree), and applies what only
 * it knows: credentials, port, IP-literal hosts. */
static int check_syntax(const char *s, size_t len, size_t path_start, const pathgate_allocator *a,
                        pathgate_error *err)
{
    char scratch[PATHGATE_URI_MAX];
    memcpy(scratch, s, len);
    for (size_t i = path_start; i < len; i++)
        if (pathgate__pct_is((unsigned char)scratch[i], PATHGATE__PCT_LENIENT))
            scratch[i] = 'x';
    parse_arena ar;
    ar.mm = (UriMemoryManager){arena_malloc,       arena_calloc, arena_realloc,
                               arena_reallocarray, arena_free,   NULL};
    ar.alloc = a;
    ar.used = 0;
    UriUriA u;
    const char *error_pos = NULL;
    int urc = uriParseSingleUriExMmA(&u, scratch, scratch + len, &error_pos, &ar.mm);
    if (urc == URI_ERROR_MALLOC)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (urc != URI_SUCCESS) {
        if (urc == URI_ERROR_SYNTAX && error_pos)
            return pathgate__error_set(err, PATHGATE_ESYNTAX, "malformed URI at byte %zu",
                                       (size_t)(error_pos - scratch));
        return pathgate__error_set(err, PATHGATE_ESYNTAX, "malformed URI");
    }
    int rc = PATHGATE_OK;
    if (u.userInfo.first)
        rc = pathgate__error_set(err, PATHGATE_ECREDENTIALS, NULL);
    else if (u.portText.first)
        rc = pathgate__error_set(err, PATHGATE_EPORT, NULL);
    else if (u.hostData.ip6 || u.hostData.ipFuture.first)
        rc = pathgate__error_set(err, PATHGATE_ESYNTAX, "IP-literal hosts are not supported");
    uriFreeUriMembersMmA(&u, &ar.mm);
    return rc;
}

/* Validates the (non-empty) host s[0..n); *drop is set for localhost. */
static int check_host(const char *s, size_t n, int *drop, pathgate_error *err)
{
    char d[PATHGATE_URI_MAX];
    size_t len = pathgate__pct_decode(d, s, n);
    *drop = len == 9 && strncasecmp(d, "localhost", 9) == 0;
    if (*drop)
        return PATHGATE_OK;
    if (memchr(d, '\0', len))
        return pathgate__error_set(err, PATHGATE_EENCODEDNUL, NULL);
    int bad = (len == 1 && d[0] == '.') || (len == 2 && d[0] == '.' && d[1] == '.') ||
              !pathgate__utf8_valid(d, len);
    for (size_t i = 0; i < len && !bad; i++)
        bad = pathgate__pct_is((unsigned char)d[i], PATHGATE__PCT_BADHOST);
    if (bad)
        return pathgate__error_set(err, PATHGATE_ESYNTAX, "host '%.*s' names no UNC server",
                                   (int)(n > 64 ? 64 : n), s);
    return PATHGATE_OK;
}

/* The opaque form: `/%00/bad/path/<canonical non-empty base64url>`. */
static int parse_opaque(pathgate_uri **out, const char *path, size_t n, const pathgate_allocator *a,
                        pathgate_error *err)
{
    static const char prefix[] = "/%00/bad/path/";
    const size_t plen = sizeof prefix - 1;
    const char *b64 = path + plen;
    size_t b64_n = n - plen;
    if (b64_n == 0 || !pathgate__b64url_canonical(b64, b64_n))
        return pathgate__error_set(err, PATHGATE_ESYNTAX,
                                   "opaque URI payload is not canonical base64url");
    unsigned char head[6];
    size_t head_n = pathgate__b64url_decode(head, b64, b64_n < 8 ? b64_n : 8);
    return pathgate__uri_make_opaque_b64(out, a, b64, b64_n,
                                         pathgate__opaque_convention(head, head_n), err);
}

static int is_opaque_path(const char *path, size_t n)
{
    return n >= 14 && memcmp(path, "/%00/bad/path/", 14) == 0;
}

/* 1 when uriparser has nothing to add for a host-less URI: the path holds
 * only RFC 3986 pchar, '/', well-formed %XX and the lenient bytes. */
static int path_is_plain(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (pathgate__pct_is(c, PATHGATE__PCT_PATH_OK))
            continue;
        if (c != '%' || n - i < 3 || pathgate__pct_hexval((unsigned char)s[i + 1]) < 0 ||
            pathgate__pct_hexval((unsigned char)s[i + 2]) < 0)
            return 0;
        i += 2;
    }
    return 1;
}

/* Appends the (syntax-checked) path: empty segments drop, dot segments
 * (also spelled %2E) resolve, a `..` above the root is ESYNTAX, %00 is
 * EENCODEDNUL, %XX stays as written, lenient bytes get encoded. The first
 * segment becomes the root when it is a share (hosted) or a drive. */
static int build_path(pathgate__uri_builder *b, const char *path, size_t n, int hosted,
                      pathgate_error *err)
{
    /* the exact room the path may take: lenient bytes grow by two */
    size_t room = n + 2 * pathgate__pct_count(path, n, PATHGATE__PCT_LENIENT_ENC);
    if (b->overflow || b->len + room > PATHGATE_URI_MAX)
        return pathgate__error_set(err, PATHGATE_ETOOLONG, "the URI would be longer than %d bytes",
                                   PATHGATE_URI_MAX);
    if (b->len + room > b->cap) {
        b->overflow = 1;
        return PATHGATE_OK;
    }
    char *buf = b->buf;
    size_t i = 0;
    while (i < n) {
        /* write the segment after a tentative '/'; keep it only if real */
        size_t start = i;
        size_t seg_o = b->len + (b->count ? 1 : 0), w = seg_o;
        while (i < n && path[i] != '/') {
            unsigned char c = (unsigned char)path[i];
            if (c == '%') {
                if (path[i + 1] == '0' && path[i + 2] == '0')
                    return pathgate__error_set(err, PATHGATE_EENCODEDNUL, NULL);
                memcpy(buf + w, path + i, 3);
                w += 3;
                i += 3;
            } else if (pathgate__pct_is(c, PATHGATE__PCT_LENIENT_ENC)) {
                pathgate__pct_put(buf + w, c);
                w += 3;
                i++;
            } else {
                buf[w++] = (char)c;
                i++;
            }
        }
        size_t raw = i - start;
        i++; /* the '/' */
        if (raw == 0)
            continue;
        int dots = dot_segment(path + start, raw);
        b->trailing = dots != 0; /* `/a/..` is `/a/` as URL parsers read it */
        if (dots == 1)
            continue;
        if (dots == 2) {
            if (pathgate__ub_pop(b) == 0)
                continue;
            return pathgate__error_set(err, PATHGATE_ESYNTAX, "'..' climbs above the root");
        }
        if (b->count)
            buf[b->len] = '/';
        if (!b->count && !hosted && pathgate__uri_is_pipe_drive_seg(buf + seg_o, w - seg_o))
            buf[seg_o + 1] = ':'; /* `C|` is the drive `C:` (as WHATWG reads it) */
        b->len = w;
        if (++b->count == 1 && (hosted || pathgate__uri_is_drive_seg(buf + seg_o, w - seg_o)))
            b->floor = 1; /* a share or a drive: the root */
    }
    if (n > 1 && path[n - 1] == '/')
        b->trailing = 1; /* one trailing '/' is kept, however many were written */
    return PATHGATE_OK;
}

/* -------------------------------------------------------------- fast path */

#define NOT_PLAIN 1

/* 1 for a hex digit: two unsigned compares, no table. */
static inline int is_hex(unsigned char c)
{
    return (unsigned)(c - '0') < 10u || (unsigned)((c | 0x20) - 'a') < 6u;
}

/* 1 when s[i..i+3) is a well-formed %XX (s[i] == '%' is known). */
static inline int pct_ok_at(const char *s, size_t n, size_t i)
{
    return n - i >= 3 && is_hex((unsigned char)s[i + 1]) && is_hex((unsigned char)s[i + 2]);
}

/* 1 when path[start..end) is a segment the fast path keeps as written:
 * not empty, not a dot segment (also spelled %2E). */
static inline int plain_segment(const char *path, size_t start, size_t end)
{
    return end != start &&
           !((path[start] == '.' || path[start] == '%') && dot_segment(path + start, end - start));
}

/* Scans the path path[0..n) (path[0] == '/', n > 1) 64 bytes at a time:
 * 1 when every byte is plain, every '%' starts a well-formed escape other
 * than %00 and every segment is plain; *first is then the first segment's
 * length. */
static int plain_path(const char *path, size_t n, size_t *first)
{
    size_t start = 1;
    uint64_t carry = 0; /* escape digits due past the previous 64 bytes */
    *first = n - 1;
    for (size_t base = 0; base < n; base += 64) {
        pathgate__scan m = pathgate__scan64(path, n, base);
        if (m.bad)
            return 0;
        /* each '%' is followed by two hex digits (none exist past the
         * text's end, so a cut escape fails) and is no %00 */
        uint64_t digits = m.pct << 1 | m.pct << 2 | carry;
        if (digits & ~m.hex)
            return 0;
        carry = m.pct >> 63 | m.pct >> 62;
        if (m.pct & m.zero >> 1 & m.zero >> 2)
            return 0;
        for (uint64_t edge = m.pct & (uint64_t)3 << 62; edge; edge &= edge - 1) {
            size_t j = base + (size_t)__builtin_ctzll(edge); /* its digits lie beyond */
            if (n - j >= 3 && path[j + 1] == '0' && path[j + 2] == '0')
                return 0;
        }
        uint64_t slash = base == 0 ? m.slash & ~(uint64_t)1 : m.slash; /* not the leading '/' */
        for (; slash; slash &= slash - 1) {
            size_t j = base + (size_t)__builtin_ctzll(slash);
            if (!plain_segment(path, start, j))
                return 0;
            if (start == 1)
                *first = j - 1;
            start = j + 1;
        }
    }
    return !carry && plain_segment(path, start, n); /* the last one (empty after a trailing '/') */
}

/* The common case, `file:///seg/seg`, `file:/seg/seg` or
 * `file://host/share/seg` whose host is a plain reg-name (RFC 3986
 * unreserved and well-formed %XX: no userinfo, port or IP literal, so
 * uriparser has nothing to add) and whose segments are plain (RFC 3986
 * pchar or our literal `[]|^`, well-formed %XX other than %00, none empty
 * or a dot segment, no trailing '/'), is already canonical but for a
 * drive letter's case, a bare root's '/' and a dropped localhost. It
 * passes the full parse's syntax checks, which it skips; the host gets
 * the same check_host. Returns NOT_PLAIN for anything else, which the
 * full parse then takes. */
static int parse_plain(pathgate_uri **out, const char *s, size_t len,
                       const pathgate_allocator *alloc, pathgate_error *err)
{
    if (len < 6 || (s[0] | 0x20) != 'f' || (s[1] | 0x20) != 'i' || (s[2] | 0x20) != 'l' ||
        (s[3] | 0x20) != 'e' || s[4] != ':' || s[5] != '/')
        return NOT_PLAIN;
    size_t p = 5;
    const char *host = s + 7;
    size_t host_n = 0;
    if (len > 6 && s[6] == '/') {
        if (len < 8)
            return NOT_PLAIN; /* `file://` */
        p = 7;
        while (p < len && s[p] != '/') {
            unsigned char c = (unsigned char)s[p];
            if (pathgate__pct_is(c, PATHGATE__PCT_UNRESERVED))
                p++;
            else if (c == '%' && pct_ok_at(s, len, p))
                p += 3;
            else
                return NOT_PLAIN; /* userinfo, port, IP literal, anything odd */
        }
        if (p == len)
            return NOT_PLAIN; /* `file://host`: no path */
        host_n = p - 7;
    }
    const char *path = s + p; /* `/...` */
    size_t n = len - p;
    /* `file:///` alone is plain; otherwise every segment is checked */
    size_t first = 0; /* the first segment's length */
    if (n > 1 && !plain_path(path, n, &first))
        return NOT_PLAIN;
    /* the host: exactly the full parse's check (localhost drops) */
    if (host_n) {
        int drop;
        int rc = check_host(host, host_n, &drop, err);
        if (rc)
            return rc;
        if (drop)
            host_n = 0;
        else if (n == 1)
            return NOT_PLAIN; /* no share: the full parse builds it */
    }
    int hosted = host_n > 0;
    int drive = 0;
    if (!hosted) {
        if (pathgate__uri_is_pipe_drive_seg(path + 1, first))
            return NOT_PLAIN; /* `C|`: the full path rewrites it */
        drive = pathgate__uri_is_drive_seg(path + 1, first);
    }
    /* a drive is upper-cased; everything else is kept as written */
    size_t head = PATHGATE__URI_PREFIX_LEN + host_n;
    size_t out_len = head + n;
    if (p > 7 && head + n + 2 > PATHGATE_URI_MAX)
        return NOT_PLAIN; /* an authority's URI near the bound: the full parse
                             decides there, as it always did */
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    pathgate_uri *u = pathgate__uri_alloc(&a, out_len);
    if (!u)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(u->str, PATHGATE__URI_PREFIX, PATHGATE__URI_PREFIX_LEN);
    memcpy(u->str + PATHGATE__URI_PREFIX_LEN, host, host_n);
    memcpy(u->str + head, path, n);
    u->str[out_len] = '\0';
    u->len = (uint32_t)out_len;
    u->host_end = (uint32_t)head;
    u->root_end = (uint32_t)(head + 1);
    u->convention = PATHGATE_CONVENTION_POSIX;
    if (hosted || drive) {
        char *letter = u->str + head + 1;
        if (drive && *letter >= 'a' && *letter <= 'z')
            *letter = (char)(*letter - 'a' + 'A');
        u->root_end = (uint32_t)(first == n - 1 ? out_len : head + 1 + first + 1);
        u->convention = PATHGATE_CONVENTION_WINDOWS;
    }
    *out = u;
    return PATHGATE_OK;
}

/* ----------------------------------------------------------------- parse */

int pathgate_uri_parse(pathgate_uri **out, const char *text, size_t len,
                       const pathgate_allocator *alloc, pathgate_error *err)
{
    return pathgate__uri_parse_ex(out, text, len, alloc, err, 0);
}

int pathgate__uri_parse_ex(pathgate_uri **out, const char *text, size_t len,
                           const pathgate_allocator *alloc, pathgate_error *err, int slow)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (!slow && text && len <= PATHGATE_URI_MAX) {
        int rc = parse_plain(out, text, len, alloc, err);
        if (rc != NOT_PLAIN)
            return rc;
    }
    int rc = pathgate__text_check(text, len, PATHGATE_URI_MAX, err);
    if (rc)
        return rc;
    const char *s = text;

    /* scheme: `file`, any case; no scheme at all is a relative reference */
    size_t i = 0;
    if (len && pathgate__is_alpha((unsigned char)s[0]))
        while (i < len && is_scheme_char((unsigned char)s[i]))
            i++;
    if (i == 0 || i == len || s[i] != ':')
        return pathgate__error_set(err, PATHGATE_ENOTABS,
                                   "invalid URI: relative URL without a base"); /* Codex's words */
    if (i != 4 || strncasecmp(s, "file", 4) != 0)
        return pathgate__error_set(err, PATHGATE_ESCHEME, "unsupported path URI scheme `%.*s`",
                                   (int)(i > 32 ? 32 : i), s);

    /* '?' and '#' are never data here: the first one names the error */
    for (size_t k = 5; k < len; k++) {
        if (s[k] == '?')
            return pathgate__error_set(err, PATHGATE_EQUERY, NULL);
        if (s[k] == '#')
            return pathgate__error_set(err, PATHGATE_EFRAGMENT, NULL);
    }

    /* authority and path */
    size_t host_start = 5, host_end = 5, path_start = 5;
    int has_authority = len - 5 >= 2 && s[5] == '/' && s[6] == '/';
    if (has_authority) {
        host_start = 7;
        const char *slash = memchr(s + 7, '/', len - 7);
        host_end = path_start = slash ? (size_t)(slash - s) : len;
    } else if (path_start == len || s[path_start] != '/') {
        return pathgate__error_set(err, PATHGATE_ENOTABS, "file: URI has no absolute path");
    }
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    if (slow || host_end > host_start || !path_is_plain(s + path_start, len - path_start)) {
        rc = check_syntax(s, len, path_start, &a, err);
        if (rc)
            return rc;
    }

    const char *host = s + host_start;
    size_t host_n = host_end - host_start;
    if (host_n) {
        int drop;
        rc = check_host(host, host_n, &drop, err);
        if (rc)
            return rc;
        if (drop)
            host_n = 0;
    }
    const char *path = s + path_start;
    size_t path_n = len - path_start;
    if (!host_n && is_opaque_path(path, path_n))
        return parse_opaque(out, path, path_n, &a, err);

    char buf[PATHGATE__URI_STACK];
    pathgate__uri_builder b;
    pathgate__ub_init(&b, &a, buf, sizeof buf - 1, host, host_n, 0);
    rc = build_path(&b, path, path_n, host_n > 0, err);
    if (rc)
        return rc;
    return pathgate__ub_finish(&b, out, err); /* `file://server/` (no share) is kept */
}
