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
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* Linux 6.6; the same number on every architecture */
#endif

pathgate__os_fd pathgate__os_open_root(const char *host_path)
{
    int fd = open(host_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

pathgate__os_fd pathgate__os_openat(pathgate__os_fd dirfd, const char *name, int open_flags,
                                    unsigned int mode)
{
    int fd = openat(dirfd, name, open_flags | O_CLOEXEC, (mode_t)mode);
    return fd >= 0 ? fd : -errno;
}

/* ------------------------------------------------------------------ stat */

static unsigned int type_of(unsigned int m)
{
    return S_ISREG(m)   ? PATHGATE__OS_T_REG
           : S_ISDIR(m) ? PATHGATE__OS_T_DIR
           : S_ISLNK(m) ? PATHGATE__OS_T_LNK
                        : PATHGATE__OS_T_OTHER;
}

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
        out->type = type_of(st.st_mode);
        out->mode = st.st_mode & 07777;
        out->size = (uint64_t)st.st_size;
        out->dev = st.st_dev;
        out->ino = st.st_ino;
        out->nlink = st.st_nlink;
        out->atime_sec = st.st_atim.tv_sec;
        out->atime_nsec = st.st_atim.tv_nsec;
        out->mtime_sec = st.st_mtim.tv_sec;
        out->mtime_nsec = st.st_mtim.tv_nsec;
        out->ctime_sec = st.st_ctim.tv_sec;
        out->ctime_nsec = st.st_ctim.tv_nsec;
        out->btime_sec = 0;
        out->btime_nsec = 0;
        out->has_btime = 0;
        return 0;
    }
    out->type = type_of(sx.stx_mode);
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

int pathgate__os_dir_rewind(pathgate__os_fd fd)
{
    return lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0;
}

/* ------------------------------------------------------------- changes */

int pathgate__os_mkdirat(pathgate__os_fd dirfd, const char *name, unsigned int mode)
{
    return mkdirat(dirfd, name, (mode_t)mode) < 0 ? -errno : 0;
}

int pathgate__os_unlinkat(pathgate__os_fd dirfd, const char *name, unsigned int flags)
{
    return unlinkat(dirfd, name, (flags & PATHGATE__OS_REMOVE_DIR) ? AT_REMOVEDIR : 0) < 0 ? -errno
                                                                                           : 0;
}

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

int pathgate__os_linkat(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                        const char *newname)
{
    return linkat(olddir, oldname, newdir, newname, 0) < 0 ? -errno : 0;
}

int pathgate__os_symlinkat(const char *target, pathgate__os_fd dirfd, const char *name)
{
    return symlinkat(target, dirfd, name) < 0 ? -errno : 0;
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
    for (int i = 0; i < 2; i++) {
        if (!times) {
            ts[i].tv_sec = 0;
            ts[i].tv_nsec = UTIME_NOW;
            continue;
        }
        ts[i].tv_sec = (time_t)times[2 * i];
        long ns = (long)times[2 * i + 1];
        ts[i].tv_nsec = ns == PATHGATE__OS_UTIME_OMIT  ? UTIME_OMIT
                        : ns == PATHGATE__OS_UTIME_NOW ? UTIME_NOW
                                                       : ns;
    }
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
#define COPY_BUF 65536

static int copy_read_write(int out, int in, loff_t off, const pathgate_allocator *a)
{
    char *buf = pathgate__malloc(a, COPY_BUF);
    if (!buf)
        return -ENOMEM;
    int rc = 0;
    for (;;) {
        ssize_t r = pread(in, buf, COPY_BUF, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rc = r < 0 ? -errno : 0;
            break;
        }
        off += r;
        for (ssize_t done = 0; done < r;) {
            ssize_t w = write(out, buf + done, (size_t)(r - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                rc = -errno;
                break;
            }
            done += w;
        }
        if (rc)
            break;
    }
    pathgate__free(a, buf);
    return rc;
}

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
            return copy_read_write(out, in, off, a);
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

/* Reads from /dev/urandom where getrandom(2) does not exist. */
static int urandom_fill(unsigned char *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    return got == n ? 0 : -EIO;
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
                return urandom_fill(buf + got, n - got);
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
