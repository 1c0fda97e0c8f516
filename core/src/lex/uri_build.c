/* uri_build.c - the one-allocation URI block, the segment builder every
 * constructor writes through, and the opaque form. */
#include <string.h>

#include "alloc.h"
#include "base64url.h"
#include "error.h"
#include "pct.h"
#include "uri_internal.h"

int pathgate__uri_is_drive_seg(const char *s, size_t n)
{
    if (n == 2)
        return pathgate__is_alpha((unsigned char)s[0]) && s[1] == ':';
    if (n == 4)
        return pathgate__is_alpha((unsigned char)s[0]) && s[1] == '%' && s[2] == '3' &&
               (s[3] == 'A' || s[3] == 'a');
    return 0;
}

pathgate_uri *pathgate__uri_alloc(const pathgate_allocator *a, size_t cap)
{
    if (cap > UINT32_MAX - 1 - sizeof(pathgate_uri))
        return NULL;
    pathgate_uri *u = pathgate__malloc(a, sizeof *u + cap + 1);
    if (!u)
        return NULL;
    memset(u, 0, sizeof *u);
    u->alloc = *a;
    return u;
}

/* ----------------------------------------------------------------- builder */

void pathgate__ub_init(pathgate__uri_builder *b, const pathgate_allocator *a, char *buf, size_t cap,
                       const char *host, size_t host_len, int encode_host)
{
    memset(b, 0, sizeof *b);
    b->buf = buf;
    b->cap = cap;
    b->alloc = a;
    size_t host_out = host_len;
    if (encode_host)
        host_out += 2 * (host_len - pathgate__pct_count(host, host_len, PATHGATE__PCT_HOST_OK));
    if (PATHGATE__URI_PREFIX_LEN + host_out + 1 > cap) {
        b->overflow = 1;
        return;
    }
    memcpy(buf, PATHGATE__URI_PREFIX, PATHGATE__URI_PREFIX_LEN);
    if (encode_host)
        pathgate__pct_encode(buf + PATHGATE__URI_PREFIX_LEN, host, host_len, 0);
    else if (host_len)
        memcpy(buf + PATHGATE__URI_PREFIX_LEN, host, host_len);
    b->host_end = PATHGATE__URI_PREFIX_LEN + host_out;
    buf[b->host_end] = '/';
    b->len = b->seg_start = b->host_end + 1;
}

int pathgate__ub_start_from(pathgate__uri_builder *b, const pathgate_uri *base, size_t extra)
{
    memset(b, 0, sizeof *b);
    size_t cap = base->len + extra;
    b->u = pathgate__uri_alloc(&base->alloc, cap + 1); /* + the reserved byte */
    if (!b->u)
        return PATHGATE_ENOMEM;
    b->buf = b->u->str;
    b->cap = cap;
    b->alloc = &b->u->alloc;
    memcpy(b->buf, base->str, base->len);
    b->host_end = base->host_end;
    b->seg_start = base->host_end + 1u;
    b->len = base->len;
    if (base->root_end > b->seg_start) /* a drive or a share is the first segment */
        b->floor = 1;
    if (pathgate__uri_trailing(base))
        b->len--; /* `file:///a/` -> `file:///a` while building */
    if (b->len > b->seg_start) {
        b->count = 1;
        for (size_t i = b->seg_start; i < b->len; i++)
            b->count += b->buf[i] == '/';
    }
    return PATHGATE_OK;
}

void pathgate__ub_push_raw(pathgate__uri_builder *b, const char *s, size_t n)
{
    size_t sep = b->count ? 1 : 0;
    if (b->overflow || b->len + sep + n > b->cap) {
        b->overflow = 1;
        return;
    }
    if (sep)
        b->buf[b->len++] = '/';
    memcpy(b->buf + b->len, s, n);
    b->len += n;
    b->count++;
}

int pathgate__ub_push_native(pathgate__uri_builder *b, const char *s, size_t n, int flags,
                             size_t depth, pathgate_error *err)
{
    /* worst case: every byte tripled, one '/' more than the separators */
    if (b->overflow || b->len + 1 + 3 * n > b->cap) {
        b->overflow = 1;
        return PATHGATE_OK;
    }
    const int win = flags & PATHGATE__UB_WIN;
    char *buf = b->buf;
    size_t i = 0;
    while (i < n) {
        /* write the segment after a tentative '/'; keep it only if real */
        size_t start = i;
        size_t w = b->len + (b->count ? 1 : 0);
        while (i < n) {
            unsigned char c = (unsigned char)s[i];
            unsigned cls = pathgate__pct_class[c];
            if (!(cls & (PATHGATE__PCT_SEG | PATHGATE__PCT_SLASH))) {
                buf[w++] = (char)c;
            } else if (c == '/' || (win && c == '\\')) {
                break;
            } else {
                pathgate__pct_put(buf + w, c);
                w += 3;
            }
            i++;
        }
        size_t raw = i - start;
        i++; /* the separator */
        b->trailing = raw == 0;
        if (raw == 0 || (raw == 1 && s[start] == '.'))
            continue;
        if (raw == 2 && s[start] == '.' && s[start + 1] == '.') {
            if ((flags & PATHGATE__UB_DESCENDANT) && b->count <= depth)
                return pathgate__error_set(err, PATHGATE_ENOTDESC, "'..' leaves the base");
            (void)pathgate__ub_pop(b); /* clamps at the root */
            continue;
        }
        if ((flags & PATHGATE__UB_DESCENDANT) && win && memchr(s + start, ':', raw))
            return pathgate__error_set(err, PATHGATE_ENOTDESC,
                                       "a Windows segment holding ':' is not a plain name");
        if (b->count)
            buf[b->len] = '/';
        b->len = w;
        b->count++;
    }
    if (n && (s[n - 1] == '/' || (win && s[n - 1] == '\\')))
        b->trailing = 1; /* the empty piece after the last separator */
    return PATHGATE_OK;
}

int pathgate__ub_pop(pathgate__uri_builder *b)
{
    if (b->count <= b->floor)
        return -1;
    size_t i = b->len;
    while (i > b->seg_start && b->buf[i - 1] != '/')
        i--;
    b->len = i > b->seg_start ? i - 1 : b->seg_start;
    b->count--;
    return 0;
}

const char *pathgate__ub_first(const pathgate__uri_builder *b, size_t *n)
{
    if (!b->count) {
        *n = 0;
        return NULL;
    }
    const char *s = b->buf + b->seg_start;
    const char *slash = memchr(s, '/', b->len - b->seg_start);
    *n = slash ? (size_t)(slash - s) : b->len - b->seg_start;
    return s;
}

void pathgate__ub_to_root(pathgate__uri_builder *b)
{
    size_t n = 0;
    if (b->floor && pathgate__ub_first(b, &n)) {
        b->len = b->seg_start + n;
        b->count = 1;
    } else {
        b->len = b->seg_start;
        b->count = 0;
    }
}

void pathgate__ub_abandon(pathgate__uri_builder *b)
{
    if (b->u)
        pathgate__free(&b->u->alloc, b->u);
    b->u = NULL;
    b->buf = NULL;
}

int pathgate__ub_finish(pathgate__uri_builder *b, pathgate_uri **out, pathgate_error *err)
{
    if (b->overflow) {
        pathgate__ub_abandon(b);
        return pathgate__error_set(err, PATHGATE_EINVAL, "internal error: URI bound exceeded");
    }
    char *s = b->buf;
    size_t reserved = 0;
    int hosted = b->host_end > PATHGATE__URI_PREFIX_LEN;
    size_t first_n = 0;
    const char *first = pathgate__ub_first(b, &first_n);
    int drive = !hosted && first && pathgate__uri_is_drive_seg(first, first_n);
    size_t root_end = b->seg_start;
    if (first && (hosted || drive)) {
        if (drive && s[b->seg_start] >= 'a' && s[b->seg_start] <= 'z')
            s[b->seg_start] = (char)(s[b->seg_start] - 'a' + 'A');
        root_end = b->seg_start + first_n + 1;
    }
    if (b->trailing && b->count)
        reserved = 1; /* the trailing '/': the reserved byte */
    if (root_end > b->len + reserved)
        root_end = b->len + reserved; /* a bare `file:///C:` */
    if (b->len + reserved > PATHGATE_URI_MAX) {
        /* join and parse can grow a URI; none may outgrow what parse reads */
        pathgate__ub_abandon(b);
        return pathgate__error_set(err, PATHGATE_ETOOLONG, "the URI would be longer than %d bytes",
                                   PATHGATE_URI_MAX);
    }
    if (reserved)
        s[b->len++] = '/';
    pathgate_uri *u = b->u;
    if (!u) {
        u = pathgate__uri_alloc(b->alloc, b->len);
        if (!u)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        memcpy(u->str, s, b->len);
    }
    u->str[b->len] = '\0';
    u->len = (uint32_t)b->len;
    u->host_end = (uint32_t)b->host_end;
    u->root_end = (uint32_t)root_end;
    u->convention = (hosted || drive) ? PATHGATE_CONVENTION_WINDOWS : PATHGATE_CONVENTION_POSIX;
    u->opaque = 0;
    *out = u;
    b->u = NULL;
    b->buf = NULL;
    return PATHGATE_OK;
}

/* ------------------------------------------------------------ opaque form */

pathgate_convention pathgate__opaque_convention(const unsigned char *p, size_t n)
{
    if (n >= 1 && p[0] == '/')
        return PATHGATE_CONVENTION_POSIX;
    if (n >= 4 && p[1] == 0 && p[3] == 0 &&
        ((pathgate__is_alpha(p[0]) && p[2] == ':') || (p[0] == '\\' && p[2] == '\\')))
        return PATHGATE_CONVENTION_WINDOWS;
    return PATHGATE_CONVENTION_NONE;
}

static pathgate_uri *opaque_alloc(const pathgate_allocator *a, size_t b64_len,
                                  pathgate_convention convention)
{
    size_t len = PATHGATE__OPAQUE_PREFIX_LEN + b64_len;
    pathgate_uri *u = pathgate__uri_alloc(a, len);
    if (!u)
        return NULL;
    memcpy(u->str, PATHGATE__OPAQUE_PREFIX, PATHGATE__OPAQUE_PREFIX_LEN);
    u->str[len] = '\0';
    u->len = (uint32_t)len;
    u->host_end = PATHGATE__URI_PREFIX_LEN;
    u->root_end = (uint32_t)len;
    u->opaque = 1;
    u->convention = (uint8_t)convention;
    return u;
}

int pathgate__uri_make_opaque(pathgate_uri **out, const pathgate_allocator *a,
                              const unsigned char *payload, size_t n, pathgate_error *err)
{
    if (PATHGATE__OPAQUE_PREFIX_LEN + pathgate__b64url_encoded_len(n) > PATHGATE_URI_MAX)
        return pathgate__error_set(err, PATHGATE_ETOOLONG, "the URI would be longer than %d bytes",
                                   PATHGATE_URI_MAX);
    pathgate_uri *u =
        opaque_alloc(a, pathgate__b64url_encoded_len(n), pathgate__opaque_convention(payload, n));
    if (!u)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    pathgate__b64url_encode(u->str + PATHGATE__OPAQUE_PREFIX_LEN, payload, n);
    *out = u;
    return PATHGATE_OK;
}

int pathgate__uri_make_opaque_b64(pathgate_uri **out, const pathgate_allocator *a, const char *b64,
                                  size_t n, pathgate_convention convention, pathgate_error *err)
{
    pathgate_uri *u = opaque_alloc(a, n, convention);
    if (!u)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(u->str + PATHGATE__OPAQUE_PREFIX_LEN, b64, n);
    *out = u;
    return PATHGATE_OK;
}

size_t pathgate__uri_opaque_payload(unsigned char *dst, const pathgate_uri *u)
{
    return pathgate__b64url_decode(dst, u->str + PATHGATE__OPAQUE_PREFIX_LEN,
                                   u->len - PATHGATE__OPAQUE_PREFIX_LEN);
}
