/* text.c - UTF-8 and NUL validation of path text. */
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
