/*
 * os_common.c - the parts of os.h that the POSIX backend and the Linux
 * backend make with the same POSIX 2008 calls (openat, the changes of one
 * name, a stat from struct stat, read/write copies, /dev/urandom, the
 * processor count, realpath), written once. Compiled in both builds with
 * -std=c11 -D_POSIX_C_SOURCE=200809L.
 */
#define _XOPEN_SOURCE 700 /* realpath: the X/Open System Interfaces of POSIX 2008 */
#include "os_common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"

pathgate__os_fd pathgate__os_openat(pathgate__os_fd dirfd, const char *name, int open_flags,
                                    unsigned int mode)
{
    int fd = openat(dirfd, name, open_flags | O_CLOEXEC, (mode_t)mode);
    return fd >= 0 ? fd : -errno;
}

/* ------------------------------------------------------------------ stat */

unsigned int pathgate__os_type_of(unsigned int m)
{
    return S_ISREG(m)   ? PATHGATE__OS_T_REG
           : S_ISDIR(m) ? PATHGATE__OS_T_DIR
           : S_ISLNK(m) ? PATHGATE__OS_T_LNK
                        : PATHGATE__OS_T_OTHER;
}

void pathgate__os_stat_of(pathgate__os_stat *out, const struct stat *st)
{
    memset(out, 0, sizeof *out);
    out->type = pathgate__os_type_of((unsigned int)st->st_mode);
    out->mode = st->st_mode & 07777;
    out->size = (uint64_t)st->st_size;
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->nlink = (uint64_t)st->st_nlink;
    out->atime_sec = st->st_atim.tv_sec;
    out->atime_nsec = st->st_atim.tv_nsec;
    out->mtime_sec = st->st_mtim.tv_sec;
    out->mtime_nsec = st->st_mtim.tv_nsec;
    out->ctime_sec = st->st_ctim.tv_sec;
    out->ctime_nsec = st->st_ctim.tv_nsec;
    out->has_btime = 0; /* not in POSIX (macOS's st_birthtimespec: docs/porting) */
}

/* ------------------------------------------------------------ directories */

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

int pathgate__os_linkat(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                        const char *newname)
{
    return linkat(olddir, oldname, newdir, newname, 0) < 0 ? -errno : 0;
}

int pathgate__os_symlinkat(const char *target, pathgate__os_fd dirfd, const char *name)
{
    return symlinkat(target, dirfd, name) < 0 ? -errno : 0;
}

void pathgate__os_utime_specs(struct timespec ts[2], const int64_t times[4])
{
    for (int i = 0; i < 2; i++) {
        long ns = times ? (long)times[2 * i + 1] : PATHGATE__OS_UTIME_NOW;
        ts[i].tv_sec = times ? (time_t)times[2 * i] : 0;
        ts[i].tv_nsec = ns == PATHGATE__OS_UTIME_OMIT  ? UTIME_OMIT
                        : ns == PATHGATE__OS_UTIME_NOW ? UTIME_NOW
                                                       : ns;
    }
}

/* ------------------------------------------------------ files and bytes */

#define COPY_BUF 65536

int pathgate__os_copy_rw(int out, int in, off_t off, const pathgate_allocator *a)
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

int pathgate__os_urandom(unsigned char *buf, size_t n)
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

unsigned int pathgate__os_ncpu(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN); /* not POSIX, but on every POSIX system */
    return n < 1 ? 1u : (unsigned int)n;
}

int pathgate__os_realpath(const char *path, char *out, size_t cap)
{
    char buf[PATH_MAX];
    if (!realpath(path, buf))
        return -errno;
    if (strlen(buf) >= cap)
        return -ENAMETOOLONG;
    strcpy(out, buf);
    return 0;
}
