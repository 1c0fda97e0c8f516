/* text.c - UTF-8 and NUL validation of path text. */
#include "text.h"

#include <string.h>

#include "error.h"

int pathgate__utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n;
        unsigned lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            n = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            n = 2;
            if (c == 0xE0)
                lo = 0xA0; /* overlong */
            else if (c == 0xED)
                hi = 0x9F; /* surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 3;
            if (c == 0xF0)
                lo = 0x90; /* overlong */
            else if (c == 0xF4)
                hi = 0x8F; /* above U+10FFFF */
        } else
            return 0;
        if (len - i - 1 < n)
            return 0;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (size_t k = 2; k <= n; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
        i += n + 1;
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
