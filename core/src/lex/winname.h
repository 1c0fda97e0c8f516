/*
 * winname.h - internal: the names a Windows filesystem must never be asked
 * for, judged before any call reaches the kernel (docs/windows.md, "Name
 * rules").
 *
 * One component at a time (no separators inside). The rules hold for a
 * base on a Windows filesystem only: on Linux `aux.c` or `a:b` is an
 * ordinary file name and stays one. The Windows OS backend applies them to
 * every component of every address before it opens anything.
 */
#ifndef PATHGATE_WINNAME_H
#define PATHGATE_WINNAME_H

#include <stddef.h>

#include "pathgate/common.h"

typedef enum pathgate__winname {
    PATHGATE__WINNAME_OK = 0,
    PATHGATE__WINNAME_EMPTY,    /* "" */
    PATHGATE__WINNAME_DOTS,     /* "." or "..": navigation, not a name */
    PATHGATE__WINNAME_UTF8,     /* not valid UTF-8: no UTF-16 spelling */
    PATHGATE__WINNAME_CHAR,     /* < > " | ? * \ / or a control character */
    PATHGATE__WINNAME_STREAM,   /* ':' (an alternate data stream, or a drive) */
    PATHGATE__WINNAME_TRAILING, /* ends in '.' or ' ' (Win32 strips them) */
    PATHGATE__WINNAME_DEVICE,   /* CON PRN AUX NUL COM0-9 COM¹²³ LPT0-9 LPT¹²³, any suffix */
    PATHGATE__WINNAME_SHORT,    /* the shape of an 8.3 short name: PROGRA~1, FILE~12.TXT */
} pathgate__winname;

/* The verdict on one component name[0..len). */
pathgate__winname pathgate__winname_check(const char *name, size_t len);

/* PATHGATE_OK for PATHGATE__WINNAME_OK, else PATHGATE_EINVALIDPATH with a
 * message that says which rule (and never echoes the name). */
int pathgate__winname_error(pathgate_error *err, pathgate__winname verdict);

#endif
