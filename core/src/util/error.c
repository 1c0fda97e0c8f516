/* error.c - the error table (names and texts), conventions, version. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *pathgate_errname(int code)
{
    switch (code) {
    case PATHGATE_OK:
        return "ok";
#define PATHGATE_X_NAME(name, value, kind, text)                                                   \
    case PATHGATE_##name:                                                                          \
        return kind;
        PATHGATE_ERROR_MAP(PATHGATE_X_NAME)
#undef PATHGATE_X_NAME
    default:
        return "unknown_error";
    }
}

const char *pathgate_strerror(int code)
{
    switch (code) {
    case PATHGATE_OK:
        return "success";
#define PATHGATE_X_TEXT(name, value, kind, text)                                                   \
    case PATHGATE_##name:                                                                          \
        return text;
        PATHGATE_ERROR_MAP(PATHGATE_X_TEXT)
#undef PATHGATE_X_TEXT
    default:
        return "unknown error";
    }
}

int pathgate__error_set(pathgate_error *err, int code, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    if (!fmt) {
        snprintf(err->message, sizeof err->message, "%s", pathgate_strerror(code));
        return code;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

void pathgate__error_clear(pathgate_error *err)
{
    if (err) {
        err->code = 0;
        err->message[0] = '\0';
    }
}

const char *pathgate_convention_name(pathgate_convention convention)
{
    switch (convention) {
    case PATHGATE_CONVENTION_POSIX:
        return "posix";
    case PATHGATE_CONVENTION_WINDOWS:
        return "windows";
    default:
        return NULL;
    }
}

int pathgate_convention_parse(pathgate_convention *out, const char *text, size_t len,
                              pathgate_error *err)
{
    if (!out || (!text && len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    if (len == 5 && memcmp(text, "posix", 5) == 0)
        *out = PATHGATE_CONVENTION_POSIX;
    else if (len == 7 && memcmp(text, "windows", 7) == 0)
        *out = PATHGATE_CONVENTION_WINDOWS;
    else
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "convention must be \"posix\" or \"windows\"");
    return PATHGATE_OK;
}

pathgate_convention pathgate_convention_host(void)
{
#ifdef _WIN32
    return PATHGATE_CONVENTION_WINDOWS;
#else
    return PATHGATE_CONVENTION_POSIX;
#endif
}

const char *pathgate_version(void)
{
    return PATHGATE_VERSION_STRING;
}
