/*
 * os_platform.h (Linux) - the values of os.h's flags, and the inline
 * bodies of its hot calls, for the Linux backend (os/linux/).
 */
#ifndef PATHGATE_OS_PLATFORM_H
#define PATHGATE_OS_PLATFORM_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#include "os_fd_posix.h"
#include "os_names_posix.h"

#define PATHGATE__OS_O_PATH O_PATH
#define PATHGATE__OS_O_TMPFILE O_TMPFILE
#define PATHGATE__OS_HAS_TMPFILE 1
#define PATHGATE__OS_HAS_LINK_HANDLE 1

/* A listing is what getdents64 wrote: struct linux_dirent64 records. */
struct pathgate__os_linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static inline int pathgate__os_dir_next(const char *buf, size_t used, size_t *off,
                                        pathgate__os_dirent *e)
{
    if (*off >= used)
        return 0;
    const struct pathgate__os_linux_dirent64 *d =
        (const struct pathgate__os_linux_dirent64 *)(const void *)(buf + *off);
    *off += d->d_reclen;
    e->name = d->d_name;
    e->len = strlen(d->d_name);
    switch (d->d_type) {
    case 8: /* DT_REG */
        e->type = PATHGATE__OS_T_REG;
        break;
    case 4: /* DT_DIR */
        e->type = PATHGATE__OS_T_DIR;
        break;
    case 10: /* DT_LNK */
        e->type = PATHGATE__OS_T_LNK;
        break;
    case 0: /* DT_UNKNOWN */
        e->type = PATHGATE__OS_T_UNKNOWN;
        break;
    default:
        e->type = PATHGATE__OS_T_OTHER;
    }
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
