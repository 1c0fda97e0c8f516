/*
 * os_posix.c - os.h in POSIX 2008 (macOS, the BSDs; tested on Linux):
 * fstatat, fdopendir(dup()) + readdir, renameat with a link-based
 * no-replace, futimens and fchmod on real handles, read/write copies,
 * /dev/urandom. What POSIX lacks answers -ENOSYS (docs/os.md).
 */
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h> /* flock: not POSIX, on every target */
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "os_common.h"

pathgate__os_fd pathgate__os_open_root(const char *host_path)
{
    int fd = open(host_path, PATHGATE__OS_O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

/* ------------------------------------------------------------------ stat */

int pathgate__os_statat(pathgate__os_fd dirfd, const char *name, unsigned int flags,
                        pathgate__os_stat *out)
{
    struct stat st;
    int rc = *name ? fstatat(dirfd, name, &st,
                             (flags & PATHGATE__OS_STAT_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0)
                   : fstat(dirfd, &st);
    if (rc < 0)
        return -errno;
    pathgate__os_stat_of(out, &st);
    return 0;
}

/* ------------------------------------------------------------ directories */

#define REC_ALIGN 8

int pathgate__os_dir_read_all(pathgate__os_fd fd, const pathgate_allocator *a, char **buf,
                              size_t *cap, size_t *used, size_t min)
{
    *used = 0;
    /* fdopendir takes the fd it is given: a duplicate, sharing fd's
     * position, so the caller's handle stays open */
    int dfd = dup(fd);
    if (dfd < 0)
        return -errno;
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return -e;
    }
    int rc = 0;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (!de) {
            rc = errno ? -errno : 0;
            break;
        }
        size_t len = strlen(de->d_name);
        size_t size = (3 + len + 1 + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1);
        if (*cap - *used < size) {
            size_t ncap = *cap ? *cap : min;
            while (ncap - *used < size || ncap < min)
                ncap *= 2;
            char *nb = pathgate__realloc(a, *buf, ncap);
            if (!nb) {
                rc = -ENOMEM;
                break;
            }
            *buf = nb;
            *cap = ncap;
        }
        unsigned char *r = (unsigned char *)*buf + *used;
        r[0] = (unsigned char)(size & 0xff);
        r[1] = (unsigned char)(size >> 8);
        r[2] = PATHGATE__OS_T_UNKNOWN; /* POSIX's dirent has no type */
        memcpy(r + 3, de->d_name, len + 1);
        *used += size;
    }
    closedir(d);
    return rc;
}

/* ------------------------------------------------------------- changes */

/* (mkdirat, unlinkat, linkat, symlinkat: os/posix/os_common.c) */

int pathgate__os_renameat(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                          const char *newname, unsigned int flags)
{
    if (flags & PATHGATE__OS_RENAME_EXCHANGE)
        return -ENOSYS;
    if (!(flags & PATHGATE__OS_RENAME_NOREPLACE))
        return renameat(olddir, oldname, newdir, newname) < 0 ? -errno : 0;
    /* No-replace: a hard link fails with EEXIST when the new name exists,
     * atomically; then the old name goes. A directory cannot be linked:
     * it is renamed after a check that the new name is free (the residual
     * of docs/os.md: a name created between the two is replaced when it
     * is an empty directory, refused otherwise). */
    struct stat st;
    if (fstatat(olddir, oldname, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -errno;
    if (!S_ISDIR(st.st_mode)) {
        if (linkat(olddir, oldname, newdir, newname, 0) == 0) {
            if (unlinkat(olddir, oldname, 0) < 0) {
                int e = errno;
                unlinkat(newdir, newname, 0);
                return -e;
            }
            return 0;
        }
        if (errno == EEXIST)
            return -EEXIST;
        if (errno != EPERM && errno != ENOTSUP && errno != EXDEV && errno != EMLINK)
            return -errno;
        if (errno == EXDEV)
            return -EXDEV;
        /* no hard links here: fall through to the checked rename */
    }
    struct stat there;
    if (fstatat(newdir, newname, &there, AT_SYMLINK_NOFOLLOW) == 0)
        return -EEXIST;
    if (errno != ENOENT)
        return -errno;
    return renameat(olddir, oldname, newdir, newname) < 0 ? -errno : 0;
}

long pathgate__os_readlinkat(pathgate__os_fd dirfd, const char *name, char *buf, size_t size)
{
    if (!*name)
        return -EINVAL; /* no handle on a link itself here */
    ssize_t n = readlinkat(dirfd, name, buf, size);
    if (n < 0)
        return -errno;
    if ((size_t)n >= size)
        return -ENAMETOOLONG;
    return (long)n;
}

int pathgate__os_fchmod(pathgate__os_fd fd, unsigned int mode)
{
    return fchmod(fd, (mode_t)mode) < 0 ? -errno : 0;
}

int pathgate__os_futimes(pathgate__os_fd fd, const int64_t times[4])
{
    struct timespec ts[2];
    pathgate__os_utime_specs(ts, times);
    return futimens(fd, ts) < 0 ? -errno : 0;
}

/* ------------------------------------------------------ files and bytes */

int pathgate__os_copy_fd(pathgate__os_fd out, pathgate__os_fd in, const pathgate_allocator *a)
{
    return pathgate__os_copy_rw(out, in, 0, a);
}

int pathgate__os_fd_path(pathgate__os_fd fd, char *out, size_t cap)
{
    (void)fd;
    (void)out;
    (void)cap;
    return -ENOSYS; /* POSIX cannot say (macOS F_GETPATH: docs/porting) */
}

int pathgate__os_lock_try(pathgate__os_fd fd)
{
#ifdef LOCK_EX
    /* POSIX record locks need a handle open for writing, and a directory
     * is never one: flock, which macOS, the BSDs and Linux all have */
    int rc;
    while ((rc = flock(fd, LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
        ;
    if (rc == 0)
        return 0;
    return errno == EWOULDBLOCK ? -EAGAIN : -ENOSYS;
#else
    (void)fd;
    return -ENOSYS; /* no lock: edits in one directory are not serialised */
#endif
}

int pathgate__os_sync_fs(pathgate__os_fd fd)
{
    return fsync(fd) < 0 ? -errno : 0;
}

int pathgate__os_random(void *out, size_t n)
{
    return pathgate__os_urandom(out, n);
}

const char *pathgate__os_strerror(int e)
{
    /* strerror's words for the errors of os.h and of a failing write;
     * strerror itself may use a shared buffer (not reentrant) */
    switch (e) {
    case EPERM:
        return "Operation not permitted";
    case ENOENT:
        return "No such file or directory";
    case EINTR:
        return "Interrupted system call";
    case EIO:
        return "Input/output error";
    case EBADF:
        return "Bad file descriptor";
    case EAGAIN:
        return "Resource temporarily unavailable";
    case ENOMEM:
        return "Cannot allocate memory";
    case EACCES:
        return "Permission denied";
    case EBUSY:
        return "Device or resource busy";
    case EEXIST:
        return "File exists";
    case EXDEV:
        return "Invalid cross-device link";
    case ENOTDIR:
        return "Not a directory";
    case EISDIR:
        return "Is a directory";
    case EINVAL:
        return "Invalid argument";
    case EMFILE:
        return "Too many open files";
    case ETXTBSY:
        return "Text file busy";
    case EFBIG:
        return "File too large";
    case ENOSPC:
        return "No space left on device";
    case EROFS:
        return "Read-only file system";
    case EMLINK:
        return "Too many links";
    case ERANGE:
        return "Numerical result out of range";
    case ENAMETOOLONG:
        return "File name too long";
    case ENOSYS:
        return "Function not implemented";
    case ENOTEMPTY:
        return "Directory not empty";
    case ELOOP:
        return "Too many levels of symbolic links";
    case EOVERFLOW:
        return "Value too large for defined data type";
    case EDQUOT:
        return "Disk quota exceeded";
    case ESTALE:
        return "Stale file handle";
    default:
        return NULL;
    }
}
