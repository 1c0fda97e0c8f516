/* winname.c - the Windows name rules (winname.h, docs/windows.md). */
#include "winname.h"

#include <string.h>

#include "error.h"
#include "text.h"

static char upper(char c)
{
    return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* s[0..n) equals the ASCII word w, ignoring case. */
static int word_is(const char *s, size_t n, const char *w)
{
    if (n != strlen(w))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (upper(s[i]) != w[i])
            return 0;
    return 1;
}

/* The device stems: CON PRN AUX NUL CONIN$ CONOUT$, and COM or LPT
 * followed by one digit or by a superscript one, two or three (U+00B9,
 * U+00B2, U+00B3: Win32 maps them to COM1-3). */
static int is_device_stem(const char *s, size_t n)
{
    static const char *const plain[] = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (word_is(s, n, plain[i]))
            return 1;
    if (n < 4 || !(word_is(s, 3, "COM") || word_is(s, 3, "LPT")))
        return 0;
    if (n == 4)
        return s[3] >= '0' && s[3] <= '9';
    return n == 5 && (unsigned char)s[3] == 0xC2 &&
           ((unsigned char)s[4] == 0xB9 || (unsigned char)s[4] == 0xB2 ||
            (unsigned char)s[4] == 0xB3);
}

/* Win32 reads a device name off the part before the first dot, trailing
 * spaces ignored: `CON`, `con.txt`, `CON .x.y`, `COM1.` all open the
 * device. */
static int is_device(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    size_t stem = dot ? (size_t)(dot - s) : n;
    while (stem > 0 && s[stem - 1] == ' ')
        stem--;
    return is_device_stem(s, stem);
}

/* The shape of an 8.3 alias: a base of at most 8 bytes ending in `~` and
 * digits after at least one other byte, then optionally `.` and an
 * extension of 1 to 3 bytes without a dot (any case). */
static int is_short_name_shape(const char *s, size_t n)
{
    const char *dot = memchr(s, '.', n);
    size_t base = dot ? (size_t)(dot - s) : n;
    if (dot) {
        size_t ext = n - base - 1;
        if (ext < 1 || ext > 3 || memchr(dot + 1, '.', ext))
            return 0;
    }
    if (base < 3 || base > 8)
        return 0;
    size_t i = base;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    return i < base && i >= 2 && s[i - 1] == '~';
}

pathgate__winname pathgate__winname_check(const char *name, size_t len)
{
    if (len == 0)
        return PATHGATE__WINNAME_EMPTY;
    if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
        return PATHGATE__WINNAME_DOTS;
    if (!pathgate__utf8_valid(name, len))
        return PATHGATE__WINNAME_UTF8;
    int colon = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x20 || memchr("<>\"|?*\\/", c, 8))
            return PATHGATE__WINNAME_CHAR;
        colon |= c == ':';
    }
    if (colon)
        return PATHGATE__WINNAME_STREAM;
    if (is_device(name, len))
        return PATHGATE__WINNAME_DEVICE;
    if (name[len - 1] == '.' || name[len - 1] == ' ')
        return PATHGATE__WINNAME_TRAILING;
    if (is_short_name_shape(name, len))
        return PATHGATE__WINNAME_SHORT;
    return PATHGATE__WINNAME_OK;
}

int pathgate__winname_error(pathgate_error *err, pathgate__winname verdict)
{
    static const char *const why[] = {
        [PATHGATE__WINNAME_EMPTY] = "an empty name",
        [PATHGATE__WINNAME_DOTS] = "'.' or '..' where a name is needed",
        [PATHGATE__WINNAME_UTF8] = "a name that is not valid UTF-8",
        [PATHGATE__WINNAME_CHAR] = "a name with one of < > \" | ? * \\ / or a control character",
        [PATHGATE__WINNAME_STREAM] = "a name with ':' (an alternate data stream)",
        [PATHGATE__WINNAME_TRAILING] = "a name ending in a dot or a space",
        [PATHGATE__WINNAME_DEVICE] =
            "a device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with any extension)",
        [PATHGATE__WINNAME_SHORT] = "a name shaped like an 8.3 short name (NAME~1.EXT)",
    };
    if (verdict == PATHGATE__WINNAME_OK)
        return PATHGATE_OK;
    return pathgate__error_set(err, PATHGATE_EINVALIDPATH, "Windows refuses %s", why[verdict]);
}
