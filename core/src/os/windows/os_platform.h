/*
 * os_platform.h (Windows) - the values of os.h's flags, and the inline
 * bodies of its hot calls, for the Windows backend (os/windows/,
 * docs/windows.md): NT handles behind C runtime descriptors.
 */
#ifndef PATHGATE_OS_PLATFORM_H
#define PATHGATE_OS_PLATFORM_H

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdio.h>
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
#ifndef O_NOCTTY
#define O_NOCTTY 0 /* no controlling terminals */
#endif

/* The longest name, in UTF-8 bytes: NTFS's 255 UTF-16 units, each at most
 * three bytes of UTF-8 (a unit of a surrogate pair: two units, four bytes). */
#define PATHGATE__OS_NAME_MAX 765

/* Every name of an address is judged by the Windows name rules
 * (lex/winname.h) when it is resolved: devices, streams, trailing dots and
 * spaces, reserved characters, 8.3 shapes are refused lexically. */
#define PATHGATE__OS_WINDOWS_NAMES 1

/* Host paths: Windows spelling (drive, UNC and \\?\ paths; '/' read as
 * '\'). */
#define PATHGATE__OS_HOST_CONVENTION PATHGATE_CONVENTION_WINDOWS
#define PATHGATE__OS_HOST_SEP '\\'
static inline int pathgate__os_win_sep(char c)
{
    return c == '\\' || c == '/';
}
static inline int pathgate__os_host_absolute(const char *p)
{
    int letter = (p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z');
    return (letter && p[1] == ':' && pathgate__os_win_sep(p[2])) ||
           (pathgate__os_win_sep(p[0]) && pathgate__os_win_sep(p[1]));
}
/* The root of a volume (`C:\`, `\\?\C:\`, `\\server\share`): a base there
 * would serve the whole volume. */
static inline int pathgate__os_win_drive_root(const char *p)
{
    return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
           (p[2] == '\0' || (pathgate__os_win_sep(p[2]) && p[3] == '\0'));
}
static inline int pathgate__os_host_is_fs_root(const char *p)
{
    if (pathgate__os_win_sep(p[0]) && pathgate__os_win_sep(p[1]) && (p[2] == '?' || p[2] == '.') &&
        pathgate__os_win_sep(p[3])) {
        p += 4;
        if (!((p[0] == 'U' || p[0] == 'u') && (p[1] == 'N' || p[1] == 'n') &&
              (p[2] == 'C' || p[2] == 'c') && pathgate__os_win_sep(p[3])))
            return pathgate__os_win_drive_root(p);
        p += 4; /* \\?\UNC\server\share */
    } else if (pathgate__os_win_sep(p[0]) && pathgate__os_win_sep(p[1])) {
        p += 2; /* \\server\share */
    } else {
        return pathgate__os_win_drive_root(p);
    }
    int parts = 0; /* server and share, with at most a trailing separator */
    while (*p) {
        while (pathgate__os_win_sep(*p))
            p++;
        if (!*p)
            break;
        parts++;
        while (*p && !pathgate__os_win_sep(*p))
            p++;
    }
    return parts <= 2;
}

/* os.h's calls on a held handle: a C runtime descriptor over the NT
 * HANDLE (_open_osfhandle), so these are the runtime's own calls. */
static inline int pathgate__os_close(int fd)
{
    return _close(fd) < 0 ? -errno : 0;
}

/* The runtime reads and writes at most INT_MAX bytes at a time. */
static inline int64_t pathgate__os_read(int fd, void *buf, size_t n)
{
    int r = _read(fd, buf, n > 0x40000000u ? 0x40000000u : (unsigned int)n);
    return r < 0 ? -errno : r;
}

static inline int64_t pathgate__os_write(int fd, const void *buf, size_t n)
{
    int r = _write(fd, buf, n > 0x40000000u ? 0x40000000u : (unsigned int)n);
    return r < 0 ? -errno : r;
}

static inline int64_t pathgate__os_seek(int fd, int64_t off, int whence)
{
    int64_t r = _lseeki64(fd, off, whence);
    return r < 0 ? -errno : r;
}

/* No pread in the runtime: a read at off, the position put back (the
 * core's handles are its own: no other thread moves them meanwhile). */
static inline int64_t pathgate__os_pread(int fd, void *buf, size_t n, uint64_t off)
{
    int64_t pos = _lseeki64(fd, 0, SEEK_CUR);
    if (pos < 0 || _lseeki64(fd, (int64_t)off, SEEK_SET) < 0)
        return -errno;
    int64_t r = pathgate__os_read(fd, buf, n);
    if (_lseeki64(fd, pos, SEEK_SET) < 0 && r >= 0)
        return -errno;
    return r;
}

static inline int pathgate__os_fsync(int fd)
{
    return _commit(fd) < 0 ? -errno : 0;
}

static inline int pathgate__os_truncate(int fd, uint64_t len)
{
    int e = _chsize_s(fd, (int64_t)len);
    return e ? -e : 0;
}

static inline int pathgate__os_dup(int fd)
{
    int r = _dup(fd);
    return r < 0 ? -errno : r;
}

/* The runtime cannot turn O_APPEND on for an open descriptor: the
 * position goes to the end instead, and a caller that needs every write
 * at the end (an atomic handle's temp file, seeked by its user) opens with
 * O_APPEND from the start (PATHGATE__OS_APPEND_AT_OPEN). */
#define PATHGATE__OS_APPEND_AT_OPEN 1
static inline int pathgate__os_set_append(int fd)
{
    return _lseeki64(fd, 0, SEEK_END) < 0 ? -errno : 0;
}

/* No O_NONBLOCK opens on Windows: nothing to turn off. */
static inline int pathgate__os_set_blocking(int fd)
{
    (void)fd;
    return 0;
}

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
void pathgate__os_stored_rel(pathgate__os_fd dirfd, char *rel, size_t len);

#endif
