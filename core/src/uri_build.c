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

int pathgate__ub_start(pathgate__uri_builder *b, const pathgate_allocator *a, size_t cap,
                       const char *host, size_t host_len, int encode_host)
{
    memset(b, 0, sizeof *b);
    size_t host_out = host_len;
    if (encode_host)
        host_out += 2 * (host_len - pathgate__pct_count(host, host_len, PATHGATE__PCT_HOST_OK));
    size_t need = PATHGATE__URI_PREFIX_LEN + host_out + 1;
    if (cap < need)
        cap = need;
    /* one spare byte: the '/' finish adds after a bare drive or share */
    b->u = pathgate__uri_alloc(a, cap + 1);
    if (!b->u)
        return PATHGATE_ENOMEM;
    b->cap = cap;
    char *s = b->u->str;
    memcpy(s, PATHGATE__URI_PREFIX, PATHGATE__URI_PREFIX_LEN);
    if (encode_host)
        pathgate__pct_encode(s + PATHGATE__URI_PREFIX_LEN, host, host_len, 0);
    else if (host_len)
        memcpy(s + PATHGATE__URI_PREFIX_LEN, host, host_len);
    b->u->host_end = (uint32_t)(PATHGATE__URI_PREFIX_LEN + host_out);
    s[b->u->host_end] = '/';
    b->len = b->seg_start = b->u->host_end + 1u;
    return PATHGATE_OK;
}

int pathgate__ub_start_from(pathgate__uri_builder *b, const pathgate_uri *base, size_t extra)
{
    memset(b, 0, sizeof *b);
    size_t cap = base->len + extra;
    b->u = pathgate__uri_alloc(&base->alloc, cap + 1); /* + the root '/' as above */
    if (!b->u)
        return PATHGATE_ENOMEM;
    b->cap = cap;
    memcpy(b->u->str, base->str, base->len);
    b->u->host_end = base->host_end;
    b->seg_start = base->host_end + 1u;
    b->len = base->len;
    if (base->root_end > b->seg_start) { /* a drive or a share is the first segment */
        b->floor = 1;
        if (base->root_end == base->len)
            b->len--; /* `file:///C:/` -> `file:///C:` while building */
    }
    if (b->len > b->seg_start) {
        b->count = 1;
        for (size_t i = b->seg_start; i < b->len; i++)
            b->count += b->u->str[i] == '/';
    }
    return PATHGATE_OK;
}

static char *ub_room(pathgate__uri_builder *b, size_t n)
{
    size_t sep = b->count ? 1 : 0;
    if (b->overflow || b->len + sep + n > b->cap) {
        b->overflow = 1;
        return NULL;
    }
    if (sep)
        b->u->str[b->len++] = '/';
    b->count++;
    return b->u->str + b->len;
}

void pathgate__ub_push_raw(pathgate__uri_builder *b, const char *s, size_t n)
{
    char *p = ub_room(b, n);
    if (!p)
        return;
    memcpy(p, s, n);
    b->len += n;
}

void pathgate__ub_push_encoded(pathgate__uri_builder *b, const char *s, size_t n, int cls)
{
    size_t need = n + 2 * pathgate__pct_count(s, n, cls);
    char *p = ub_room(b, need);
    if (!p)
        return;
    b->len += pathgate__pct_encode(p, s, n, cls);
}

int pathgate__ub_pop(pathgate__uri_builder *b)
{
    if (b->count <= b->floor)
        return -1;
    const char *s = b->u->str;
    size_t i = b->len;
    while (i > b->seg_start && s[i - 1] != '/')
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
    const char *s = b->u->str + b->seg_start;
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
}

int pathgate__ub_finish(pathgate__uri_builder *b, pathgate_uri **out, pathgate_error *err)
{
    if (b->overflow) {
        pathgate__ub_abandon(b);
        return pathgate__error_set(err, PATHGATE_EINVAL, "internal error: URI bound exceeded");
    }
    pathgate_uri *u = b->u;
    char *s = u->str;
    int hosted = u->host_end > PATHGATE__URI_PREFIX_LEN;
    size_t first_n = 0;
    const char *first = pathgate__ub_first(b, &first_n);
    int drive = !hosted && first && pathgate__uri_is_drive_seg(first, first_n);
    u->convention = (hosted || drive) ? PATHGATE_CONVENTION_WINDOWS : PATHGATE_CONVENTION_POSIX;
    if (first && (hosted || drive)) {
        if (drive && s[b->seg_start] >= 'a' && s[b->seg_start] <= 'z')
            s[b->seg_start] = (char)(s[b->seg_start] - 'a' + 'A');
        if (b->count == 1)
            s[b->len++] = '/'; /* cap reserved this byte */
        u->root_end = (uint32_t)(b->seg_start + first_n + 1);
    } else {
        u->root_end = (uint32_t)b->seg_start;
    }
    s[b->len] = '\0';
    u->len = (uint32_t)b->len;
    u->opaque = 0;
    *out = u;
    b->u = NULL;
    return PATHGATE_OK;
}

pathgate_convention pathgate__opaque_convention(const unsigned char *p, size_t n)
{
    if (n >= 1 && p[0] == '/')
        return PATHGATE_CONVENTION_POSIX;
    if (n >= 4 && p[1] == 0 && p[3] == 0 &&
        ((pathgate__is_alpha(p[0]) && p[2] == ':') || (p[0] == '\\' && p[2] == '\\')))
        return PATHGATE_CONVENTION_WINDOWS;
    return PATHGATE_CONVENTION_NONE;
}

int pathgate__uri_make_opaque_b64(pathgate_uri **out, const pathgate_allocator *a, const char *b64,
                                  size_t n, pathgate_convention convention, pathgate_error *err)
{
    size_t len = PATHGATE__OPAQUE_PREFIX_LEN + n;
    pathgate_uri *u = pathgate__uri_alloc(a, len);
    if (!u)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(u->str, PATHGATE__OPAQUE_PREFIX, PATHGATE__OPAQUE_PREFIX_LEN);
    memcpy(u->str + PATHGATE__OPAQUE_PREFIX_LEN, b64, n);
    u->str[len] = '\0';
    u->len = (uint32_t)len;
    u->host_end = PATHGATE__URI_PREFIX_LEN;
    u->root_end = (uint32_t)len;
    u->opaque = 1;
    u->convention = (uint8_t)convention;
    *out = u;
    return PATHGATE_OK;
}

int pathgate__uri_make_opaque(pathgate_uri **out, const pathgate_allocator *a,
                              const unsigned char *payload, size_t n, pathgate_error *err)
{
    size_t len = PATHGATE__OPAQUE_PREFIX_LEN + pathgate__b64url_encoded_len(n);
    pathgate_uri *u = pathgate__uri_alloc(a, len);
    if (!u)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(u->str, PATHGATE__OPAQUE_PREFIX, PATHGATE__OPAQUE_PREFIX_LEN);
    pathgate__b64url_encode(u->str + PATHGATE__OPAQUE_PREFIX_LEN, payload, n);
    u->str[len] = '\0';
    u->len = (uint32_t)len;
    u->host_end = PATHGATE__URI_PREFIX_LEN;
    u->root_end = (uint32_t)len;
    u->opaque = 1;
    u->convention = (uint8_t)pathgate__opaque_convention(payload, n);
    *out = u;
    return PATHGATE_OK;
}
