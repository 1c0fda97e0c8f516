/* error.h - internal: filling the caller-owned pathgate_error. */
#ifndef PATHGATE_ERROR_H
#define PATHGATE_ERROR_H

#include "pathgate/common.h"

/* Sets err (if not NULL) to code and a formatted message; returns code, so
 * callers write `return pathgate__error_set(err, PATHGATE_EINVAL, "...")`.
 * fmt NULL uses pathgate_strerror(code). The message must never contain a
 * host path: format only canonical addresses, keys and user-given text. */
/* mingw: `printf` would mean Microsoft's, which knows no %zu; the core is
 * built with mingw's own (GNU) printf there. */
#if defined(__MINGW32__)
#define PATHGATE__PRINTF_FORMAT gnu_printf
#else
#define PATHGATE__PRINTF_FORMAT printf
#endif
int pathgate__error_set(pathgate_error *err, int code, const char *fmt, ...)
    __attribute__((format(PATHGATE__PRINTF_FORMAT, 3, 4)));

/* Resets err (if not NULL) to code 0 and an empty message. */
void pathgate__error_clear(pathgate_error *err);

/* printf-style checking of a function's format (mingw's printf is GNU's:
 * scripts/windows.sh builds with __USE_MINGW_ANSI_STDIO). */
#if defined(__MINGW32__)
#define PATHGATE__PRINTF(fmt, first) __attribute__((format(gnu_printf, fmt, first)))
#else
#define PATHGATE__PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#endif

#endif
