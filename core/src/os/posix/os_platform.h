/*
 * os_platform.h (POSIX) - the values of os.h's flags, and the inline
 * listing parser, for the portable POSIX 2008 backend (os/posix/).
 */
#ifndef PATHGATE_OS_PLATFORM_H
#define PATHGATE_OS_PLATFORM_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#include "os_fd_posix.h"
#include "os_names_posix.h"

/* No path-only handle in POSIX: a handle that names an entry is opened for
 * reading, non-blocking (a FIFO does not block). A mode-000 file or a
 * search-only directory therefore cannot be held (-EACCES), and a final
 * symlink under O_NOFOLLOW cannot be opened (-ELOOP): docs/os.md. */
#define PATHGATE__OS_O_PATH (O_RDONLY | O_NONBLOCK)
#define PATHGATE__OS_O_TMPFILE 0
#define PATHGATE__OS_HAS_TMPFILE 0
#define PATHGATE__OS_HAS_LINK_HANDLE 0

/* A listing is what pathgate__os_dir_read_all wrote: records of
 * {uint16 size, uint8 type, name, NUL}, each padded to 8 bytes. */
static inline int pathgate__os_dir_next(const char *buf, size_t used, size_t *off,
                                        pathgate__os_dirent *e)
{
    if (*off >= used)
        return 0;
    const unsigned char *r = (const unsigned char *)buf + *off;
    size_t size = (size_t)r[0] | (size_t)r[1] << 8;
    e->type = r[2];
    e->name = (const char *)r + 3;
    e->len = strlen(e->name);
    *off += size;
    return 1;
}

/* Names are exact here: the stored name is the name (os.h). */
#define PATHGATE__OS_NAMES_FOLD 0
static inline int pathgate__os_stored_name(pathgate__os_fd dirfd, const char *name, char *out,
                                           size_t cap)
{
    (void)dirfd;
    size_t n = strlen(name);
    if (n >= cap)
        return -ENAMETOOLONG;
    memcpy(out, name, n + 1);
    return 0;
}
static inline void pathgate__os_stored_rel(pathgate__os_fd dirfd, char *rel, size_t len)
{
    (void)dirfd;
    (void)rel;
    (void)len;
}

#endif
