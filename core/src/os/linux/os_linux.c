/*
 * os_linux.c - os.h on Linux: statx, getdents64, renameat2,
 * copy_file_range and FICLONE, fchmodat2, utimensat(AT_EMPTY_PATH),
 * /proc/self/fd and getrandom, each with the fallback older kernels need
 * (the containment walk itself is contain.c).
 */
#define _GNU_SOURCE
#include "os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
/* the calls made the POSIX way, shared with os/posix (whose folder is not
 * on this backend's include path) */
#include "../posix/os_common.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* Linux 6.6; the same number on every architecture */
#endif

pathgate__os_fd pathgate__os_open_root(const char *host_path)
{
    int fd = open(host_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

/* ------------------------------------------------------------------ stat */

int pathgate__os_statat(pathgate__os_fd dirfd, const char *name, unsigned int flags,
                        pathgate__os_stat *out)
{
    struct statx sx;
    int at = AT_STATX_SYNC_AS_STAT;
    if (!*name)
        at |= AT_EMPTY_PATH;
    if (flags & PATHGATE__OS_STAT_NOFOLLOW)
        at |= AT_SYMLINK_NOFOLLOW;
    unsigned int mask = STATX_BASIC_STATS | ((flags & PATHGATE__OS_STAT_BTIME) ? STATX_BTIME : 0);
    if (statx(dirfd, name, at, mask, &sx) < 0) {
        if (errno != ENOSYS)
            return -errno;
        /* no statx (before 4.11, or a filter): fstatat, no birth time */
        struct stat st;
        int f = (*name ? 0 : AT_EMPTY_PATH) |
                ((flags & PATHGATE__OS_STAT_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0);
        if (fstatat(dirfd, name, &st, f) < 0)
            return -errno;
        pathgate__os_stat_of(out, &st);
        return 0;
    }
    out->type = pathgate__os_type_of(sx.stx_mode);
    out->mode = sx.stx_mode & 07777;
    out->size = sx.stx_size;
    out->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    out->ino = sx.stx_ino;
    out->nlink = sx.stx_nlink;
    out->atime_sec = sx.stx_atime.tv_sec;
    out->atime_nsec = sx.stx_atime.tv_nsec;
    out->mtime_sec = sx.stx_mtime.tv_sec;
    out->mtime_nsec = sx.stx_mtime.tv_nsec;
    out->ctime_sec = sx.stx_ctime.tv_sec;
    out->ctime_nsec = sx.stx_ctime.tv_nsec;
    out->has_btime = (sx.stx_mask & STATX_BTIME) != 0;
    out->btime_sec = out->has_btime ? sx.stx_btime.tv_sec : 0;
    out->btime_nsec = out->has_btime ? sx.stx_btime.tv_nsec : 0;
    return 0;
}

/* ------------------------------------------------------------ directories */

int pathgate__os_dir_read_all(pathgate__os_fd fd, const pathgate_allocator *a, char **buf,
                              size_t *cap, size_t *used, size_t min)
{
    *used = 0;
    for (;;) {
        if (*cap - *used < min / 2) {
            size_t ncap = *cap ? *cap * 2 : min;
            char *nb = pathgate__realloc(a, *buf, ncap);
            if (!nb)
                return -ENOMEM;
            *buf = nb;
            *cap = ncap;
        }
        ssize_t r = getdents64(fd, *buf + *used, *cap - *used);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            return 0;
        *used += (size_t)r;
    }
}

/* ------------------------------------------------------------- changes */

/* (mkdirat, unlinkat, linkat, symlinkat: os/posix/os_common.c) */

int pathgate__os_renameat(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                          const char *newname, unsigned int flags)
{
    unsigned int f = 0;
    if (flags & PATHGATE__OS_RENAME_NOREPLACE)
        f |= RENAME_NOREPLACE;
    if (flags & PATHGATE__OS_RENAME_EXCHANGE)
        f |= RENAME_EXCHANGE;
    int rc = f ? renameat2(olddir, oldname, newdir, newname, f)
               : renameat(olddir, oldname, newdir, newname);
    return rc < 0 ? -errno : 0;
}

long pathgate__os_readlinkat(pathgate__os_fd dirfd, const char *name, char *buf, size_t size)
{
    ssize_t n = readlinkat(dirfd, name, buf, size);
    if (n < 0)
        return -errno;
    if ((size_t)n >= size)
        return -ENAMETOOLONG;
    return (long)n;
}

/* "/proc/self/fd/N": the inode an O_PATH fd holds, for the calls that
 * take no AT_EMPTY_PATH on older kernels. */
static void proc_path(char *out, size_t size, int fd)
{
    snprintf(out, size, "/proc/self/fd/%d", fd);
}

int pathgate__os_fchmod(pathgate__os_fd fd, unsigned int mode)
{
    int e = 0;
    if (syscall(SYS_fchmodat2, fd, "", (mode_t)mode, AT_EMPTY_PATH) < 0) {
        e = errno;
        if (e == ENOSYS || e == EINVAL || e == EOPNOTSUPP) {
            char p[64];
            proc_path(p, sizeof p, fd);
            e = chmod(p, (mode_t)mode) < 0 ? errno : 0;
        }
    }
    return -e;
}

int pathgate__os_futimes(pathgate__os_fd fd, const int64_t times[4])
{
    struct timespec ts[2];
    pathgate__os_utime_specs(ts, times);
    int e = utimensat(fd, "", ts, AT_EMPTY_PATH) < 0 ? errno : 0;
    if (e == EINVAL || e == ENOENT) { /* no AT_EMPTY_PATH here */
        char p[64];
        proc_path(p, sizeof p, fd);
        e = utimensat(AT_FDCWD, p, ts, 0) < 0 ? errno : 0;
    }
    return -e;
}

/* ------------------------------------------------------ files and bytes */

#define COPY_CHUNK ((size_t)1 << 30)

int pathgate__os_copy_fd(pathgate__os_fd out, pathgate__os_fd in, const pathgate_allocator *a)
{
    struct stat so;
    if (fstat(out, &so) == 0 && so.st_size == 0 && ioctl(out, FICLONE, in) == 0) {
        /* FICLONE shares the extents but leaves out's offset: the copy
         * continues after it, as a read/write copy would */
        return lseek(out, 0, SEEK_END) < 0 ? -errno : 0;
    }
    loff_t off = 0;
    for (;;) {
        ssize_t n = copy_file_range(in, &off, out, NULL, COPY_CHUNK, 0);
        if (n > 0)
            continue;
        if (n == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
            errno == EPERM)
            return pathgate__os_copy_rw(out, in, off, a);
        return -errno;
    }
}

int pathgate__os_fd_path(pathgate__os_fd fd, char *out, size_t cap)
{
    char link[64];
    proc_path(link, sizeof link, fd);
    if (cap < 2)
        return -ENAMETOOLONG;
    ssize_t n = readlink(link, out, cap - 1);
    if (n < 0)
        return errno == ENOENT ? -ENOSYS : -errno; /* no /proc mounted */
    if ((size_t)n >= cap - 1)
        return -ENAMETOOLONG;
    out[n] = '\0';
    return 0;
}

int pathgate__os_lock_try(pathgate__os_fd fd)
{
    int rc;
    while ((rc = flock(fd, LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
        ;
    if (rc == 0)
        return 0;
    return errno == EWOULDBLOCK ? -EAGAIN : errno == ENOLCK || errno == EINVAL ? -ENOSYS : -errno;
}

int pathgate__os_sync_fs(pathgate__os_fd fd)
{
    return syncfs(fd) < 0 ? -errno : 0;
}

int pathgate__os_random(void *out, size_t n)
{
    unsigned char *buf = out;
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(buf + got, n - got, 0);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (errno == ENOSYS)
                return pathgate__os_urandom(buf + got, n - got);
            return -errno;
        }
        got += (size_t)k;
    }
    return 0;
}

const char *pathgate__os_strerror(int e)
{
    return strerrordesc_np(e); /* glibc's table: no locale, no buffer */
}
