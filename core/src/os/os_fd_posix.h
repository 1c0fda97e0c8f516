/*
 * os_fd_posix.h - internal: os.h's calls on a held handle ("handles'
 * bytes") for the POSIX backends (os/linux/, os/posix/), inline over the
 * system calls, included by their os_platform.h.
 */
#ifndef PATHGATE_OS_FD_POSIX_H
#define PATHGATE_OS_FD_POSIX_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

static inline int pathgate__os_close(int fd)
{
    return close(fd) < 0 ? -errno : 0;
}

static inline int64_t pathgate__os_read(int fd, void *buf, size_t n)
{
    for (;;) {
        ssize_t r = read(fd, buf, n);
        if (r >= 0)
            return (int64_t)r;
        if (errno != EINTR)
            return -errno;
    }
}

static inline int64_t pathgate__os_write(int fd, const void *buf, size_t n)
{
    for (;;) {
        ssize_t r = write(fd, buf, n);
        if (r >= 0)
            return (int64_t)r;
        if (errno != EINTR)
            return -errno;
    }
}

static inline int64_t pathgate__os_pread(int fd, void *buf, size_t n, uint64_t off)
{
    for (;;) {
        ssize_t r = pread(fd, buf, n, (off_t)off);
        if (r >= 0)
            return (int64_t)r;
        if (errno != EINTR)
            return -errno;
    }
}

static inline int64_t pathgate__os_seek(int fd, int64_t off, int whence)
{
    off_t r = lseek(fd, (off_t)off, whence);
    return r < 0 ? -errno : (int64_t)r;
}

static inline int pathgate__os_fsync(int fd)
{
    return fsync(fd) < 0 ? -errno : 0;
}

static inline int pathgate__os_truncate(int fd, uint64_t len)
{
    return ftruncate(fd, (off_t)len) < 0 ? -errno : 0;
}

static inline int pathgate__os_dup(int fd)
{
    int r = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    return r < 0 ? -errno : r;
}

static inline int pathgate__os_set_append(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_APPEND) < 0)
        return -errno;
    return 0;
}

static inline int pathgate__os_set_blocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
        return -errno;
    return 0;
}

#endif
