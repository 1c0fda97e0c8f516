/*
 * os_platform.h (Windows) - the values of os.h's flags, and the inline
 * bodies of its hot calls, for the Windows backend (os/windows/,
 * docs/windows.md): NT handles behind C runtime descriptors.
 */
#ifndef PATHGATE_OS_PLATFORM_H
#define PATHGATE_OS_PLATFORM_H

#include <fcntl.h>
#include <string.h>

/* No path-only handles or unnamed files on Windows: the NT backend opens
 * with FILE_READ_ATTRIBUTES only where POSIX would take a path-only handle. */
#define PATHGATE__OS_O_PATH 0x40000000
#define PATHGATE__OS_O_TMPFILE 0
#define PATHGATE__OS_HAS_TMPFILE 0
#define PATHGATE__OS_HAS_LINK_HANDLE 0
#ifndef O_DIRECTORY
#define O_DIRECTORY 0x20000000
#endif
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0x10000000
#endif
#ifndef O_CLOEXEC
#define O_CLOEXEC 0 /* NT handles are not inherited unless asked */
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif

/* A listing of the Windows backend: one record per entry, the UTF-8 name
 * converted from the directory's UTF-16 once, when it is read. */
struct pathgate__os_win_dirent {
    uint32_t reclen; /* bytes of the whole record, aligned to 8 */
    uint32_t type;   /* PATHGATE__OS_T_* */
    uint32_t len;    /* bytes of name, without its NUL */
    char name[];
};

static inline int pathgate__os_dir_next(const char *buf, size_t used, size_t *off,
                                        pathgate__os_dirent *e)
{
    if (*off >= used)
        return 0;
    const struct pathgate__os_win_dirent *d =
        (const struct pathgate__os_win_dirent *)(const void *)(buf + *off);
    *off += d->reclen;
    e->name = d->name;
    e->len = d->len;
    e->type = d->type;
    return 1;
}

/* NTFS finds names in any case: the stored spelling is looked up (os.h). */
#define PATHGATE__OS_NAMES_FOLD 1
int pathgate__os_stored_name(pathgate__os_fd dirfd, const char *name, char *out, size_t cap);

#endif
