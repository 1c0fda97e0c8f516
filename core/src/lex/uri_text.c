/* uri_text.c - native path text by convention, as Codex splits and
 * classifies it: path segments, the home-relative suffix, Windows device
 * aliases, and the convention of an OS name. Pure text, no URI. */
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "uri_internal.h"

static int is_sep(char c, pathgate_convention conv)
{
    return c == '/' || (conv == PATHGATE_CONVENTION_WINDOWS && c == '\\');
}

int pathgate_path_segment_next(const char **seg, size_t *seg_len, const char *text, size_t len,
                               pathgate_convention convention, size_t *pos)
{
    if (!seg || !seg_len || !pos || (!text && len) || *pos > len ||
        (convention != PATHGATE_CONVENTION_POSIX && convention != PATHGATE_CONVENTION_WINDOWS))
        return 0;
    /* *pos == len + 1 once the last segment was returned: encoded as
     * SIZE_MAX, since len + 1 may not fit */
    size_t i = *pos;
    while (i < len && !is_sep(text[i], convention))
        i++;
    *seg = text ? text + *pos : "";
    *seg_len = i - *pos;
    *pos = i < len ? i + 1 : (size_t)-1;
    return 1;
}

int pathgate_home_relative_suffix(const char **suffix, size_t *suffix_len, const char *text,
                                  size_t len, pathgate_convention convention)
{
    if (!text || len == 0 || text[0] != '~')
        return 0;
    if (len > 1 && !is_sep(text[1], convention))
        return 0; /* `~user/x`: a named user's home, not ours */
    if (convention != PATHGATE_CONVENTION_POSIX && convention != PATHGATE_CONVENTION_WINDOWS)
        return 0;
    if (suffix)
        *suffix = text + 1;
    if (suffix_len)
        *suffix_len = len - 1;
    return 1;
}

/* `X:` and a separator at s[0..n). */
static int drive_absolute(const char *s, size_t n)
{
    return n >= 3 && pathgate__is_alpha((unsigned char)s[0]) && s[1] == ':' &&
           (s[2] == '\\' || s[2] == '/');
}

int pathgate__windows_device_alias(size_t *skip, int *unc, const char *s, size_t n)
{
    if (n >= 8 && (memcmp(s, "\\\\?\\UNC\\", 8) == 0 || memcmp(s, "\\\\.\\UNC\\", 8) == 0)) {
        *skip = 8;
        *unc = 1;
        return 1;
    }
    if (n >= 4 && (memcmp(s, "\\\\?\\", 4) == 0 || memcmp(s, "\\\\.\\", 4) == 0) &&
        drive_absolute(s + 4, n - 4)) {
        *skip = 4;
        *unc = 0;
        return 1;
    }
    return 0;
}

int pathgate_normalize_windows_device_path(pathgate_buf *out, const char *text, size_t len,
                                           pathgate_error *err)
{
    if (!out || (!text && len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    size_t skip;
    int unc;
    if (!text || !pathgate__windows_device_alias(&skip, &unc, text, len))
        return PATHGATE_OK;
    pathgate_allocator a;
    pathgate__alloc_init(&a, NULL);
    size_t head = unc ? 2 : 0, n = head + len - skip;
    char *p = pathgate__malloc(&a, n + 1);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(p, "\\\\", head);
    memcpy(p + head, text + skip, len - skip);
    p[n] = '\0';
    pathgate__buf_adopt(out, &a, p, n);
    return PATHGATE_OK;
}

pathgate_convention pathgate_platform_convention(const char *os_name, size_t len)
{
    if (!os_name)
        return PATHGATE_CONVENTION_NONE;
    if ((len == 5 && memcmp(os_name, "linux", 5) == 0) ||
        (len == 5 && memcmp(os_name, "macos", 5) == 0))
        return PATHGATE_CONVENTION_POSIX;
    if (len == 7 && memcmp(os_name, "windows", 7) == 0)
        return PATHGATE_CONVENTION_WINDOWS;
    return PATHGATE_CONVENTION_NONE;
}
