/*
 * os_names_posix.h - internal: how names and host paths are spelled for
 * the POSIX backends (os/linux/, os/posix/), included by their
 * os_platform.h; os/windows/ has its own.
 */
#ifndef PATHGATE_OS_NAMES_POSIX_H
#define PATHGATE_OS_NAMES_POSIX_H

#include <limits.h>

/* The longest name, in bytes. */
#define PATHGATE__OS_NAME_MAX NAME_MAX

/* Windows name rules (lex/winname.h) do not apply: `aux.c` is a name. */
#define PATHGATE__OS_WINDOWS_NAMES 0

/* Host paths: POSIX spelling. */
#define PATHGATE__OS_HOST_CONVENTION PATHGATE_CONVENTION_POSIX
#define PATHGATE__OS_HOST_SEP '/'
static inline int pathgate__os_host_absolute(const char *p)
{
    return p[0] == '/';
}
/* The filesystem root: a base there would serve the whole host. */
static inline int pathgate__os_host_is_fs_root(const char *p)
{
    return p[0] == '/' && p[1] == '\0';
}

#endif
