/* text.c - UTF-8 and NUL validation of path text; memmem and memrchr. */
#define _GNU_SOURCE /* memmem, memrchr */
#include "text.h"

#include <string.h>

#include "error.h"

int pathgate__utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        long cp;
        i += pathgate__utf8_next(s + i, len - i, &cp);
        if (cp < 0)
            return 0;
    }
    return 1;
}

int pathgate__text_check(const char *s, size_t len, size_t max, pathgate_error *err)
{
    if (!s && len)
        return pathgate__error_set(err, PATHGATE_EINVAL, "text is NULL");
    if (len > max)
        return pathgate__error_set(err, PATHGATE_ETOOLONG, "text is longer than %zu bytes", max);
    if (len && memchr(s, '\0', len))
        return pathgate__error_set(err, PATHGATE_ENUL, "text contains a NUL byte");
    if (!pathgate__utf8_valid(s, len))
        return pathgate__error_set(err, PATHGATE_EUTF8, "text is not valid UTF-8");
    return PATHGATE_OK;
}

const void *pathgate__memmem(const void *hay, size_t n, const void *needle, size_t m)
{
#if defined(__GLIBC__) || defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) ||    \
    defined(__NetBSD__)
    return memmem(hay, n, needle, m);
#else
    const unsigned char *h = hay, *nd = needle;
    if (m == 0)
        return hay;
    if (m > n)
        return NULL;
    const unsigned char *last = h + (n - m);
    for (const unsigned char *p = h; p <= last; p++) {
        p = memchr(p, nd[0], (size_t)(last - p) + 1);
        if (!p)
            return NULL;
        if (!memcmp(p, nd, m))
            return p;
    }
    return NULL;
#endif
}

const void *pathgate__memrchr(const void *s, int c, size_t n)
{
#if defined(__GLIBC__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
    return memrchr(s, c, n);
#else
    const unsigned char *p = s;
    while (n--)
        if (p[n] == (unsigned char)c)
            return p + n;
    return NULL;
#endif
}
