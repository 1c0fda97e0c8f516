/*
 * contain.c - opening a path beneath a directory fd with the kernel
 * enforcing containment: openat2(RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS),
 * or, where openat2 is unavailable (ENOSYS, or EPERM from a seccomp
 * filter), a component walk with openat(O_NOFOLLOW) that follows a symlink
 * only while it stays inside. The walk is the one every backend has
 * (os/posix/contain_walk.c), here holding path-only handles: directories
 * are entered with O_PATH, and a final symlink is opened as itself with
 * O_PATH | O_NOFOLLOW and read through its handle.
 *
 * Known limit of the fallback (not of openat2): a directory the walk has
 * already entered that is renamed out of the base by someone with write
 * access both inside and outside is not noticed; openat2 detects that.
 * The fallback also holds at most PATHGATE__CONTAIN_MAX_DEPTH directory
 * levels (deeper paths answer -ENAMETOOLONG, failing closed).
 */
#define _GNU_SOURCE
#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../posix/contain_walk.h"

/* Bounded retries of openat2 answering EAGAIN. */
#define PATHGATE__CONTAIN_EAGAIN_RETRIES 32

#ifndef SYS_openat2
#define SYS_openat2 437 /* the same number on every architecture */
#endif

static int openat2_beneath(int dirfd, const char *rel, int flags, unsigned int mode, int no_links)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(unsigned int)(flags | O_CLOEXEC);
    /* openat2 refuses a mode without O_CREAT / O_TMPFILE */
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
        how.mode = mode;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | (no_links ? RESOLVE_NO_SYMLINKS : 0);
    const char *path = *rel ? rel : ".";
    for (int attempt = 0; attempt <= PATHGATE__CONTAIN_EAGAIN_RETRIES; attempt++) {
        long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
        if (fd >= 0)
            return (int)fd;
        /* EAGAIN: a rename somewhere raced a `..` inside a symlink target */
        if (errno != EAGAIN && errno != EINTR)
            return -errno;
    }
    return -EAGAIN;
}

/* The walk's handles: directories on the way and probes' finals O_PATH. */
static const pathgate__contain_handles handles = {O_PATH | O_DIRECTORY, O_PATH, pathgate__os_statat,
                                                  pathgate__os_readlinkat};

/* ------------------------------------------------------------- API */

int pathgate__contain_open_how(int dirfd, const char *rel, int open_flags, unsigned int mode,
                               unsigned int how)
{
    if (!rel || dirfd < 0)
        return -EINVAL;
    if (rel[0] == '/')
        return -EXDEV;
    int no_links = (how & PATHGATE__CONTAIN_NO_LINKS) != 0;
    if (!(how & PATHGATE__CONTAIN_FALLBACK)) {
        int fd = openat2_beneath(dirfd, rel, open_flags, mode, no_links);
        if (fd != -ENOSYS && fd != -EPERM)
            return fd;
    }
    return pathgate__contain_walk_open(&handles, dirfd, rel, open_flags, mode, no_links);
}

int pathgate__contain_open(int dirfd, const char *rel, int open_flags, unsigned int mode,
                           int force_fallback)
{
    return pathgate__contain_open_how(dirfd, rel, open_flags, mode,
                                      force_fallback ? PATHGATE__CONTAIN_FALLBACK : 0);
}

/*
 * The common miss, a new name in an existing directory, without a walk:
 * when the parent resolves beneath dirfd (openat2, links followed) and the
 * last name is not there at all (not even as a dangling symlink), the
 * answer is -ENOENT. Returns 1 when this cannot decide (the parent is
 * missing too, or the last name is a symlink): the caller walks.
 */
static int probe_last_missing(int dirfd, const char *rel)
{
    const char *slash = strrchr(rel, '/');
    const char *name = slash ? slash + 1 : rel;
    int pfd = dirfd;
    if (slash) {
        char parent[PATHGATE_PATH_MAX];
        size_t n = (size_t)(slash - rel);
        if (n >= sizeof parent)
            return 1;
        memcpy(parent, rel, n);
        parent[n] = '\0';
        pfd = openat2_beneath(dirfd, parent, O_PATH | O_DIRECTORY, 0, 0);
        if (pfd == -ENOENT)
            return 1;
        if (pfd < 0)
            return pfd; /* the existing part escapes, or is not a directory */
    }
    char c;
    int rc = readlinkat(pfd, name, &c, 1) < 0 && errno == ENOENT ? -ENOENT : 1;
    if (pfd != dirfd)
        close(pfd);
    return rc;
}

int pathgate__contain_probe_how(int dirfd, const char *rel, unsigned int how)
{
    if (!rel || dirfd < 0)
        return -EINVAL;
    if (rel[0] == '/')
        return -EXDEV;
    int fd;
    if (how & PATHGATE__CONTAIN_NO_LINKS) {
        /* no link on the way: a miss needs no explaining (nothing after
         * it can lead anywhere) */
        fd = -ENOSYS;
        if (!(how & PATHGATE__CONTAIN_FALLBACK))
            fd = openat2_beneath(dirfd, rel, O_PATH, 0, 1);
        if (fd == -ENOSYS || fd == -EPERM)
            return pathgate__contain_walk_probe(&handles, dirfd, rel, 1);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        return fd;
    }
    int force_fallback = (how & PATHGATE__CONTAIN_FALLBACK) != 0;
    if (!force_fallback) {
        fd = openat2_beneath(dirfd, rel, O_PATH, 0, 0);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        if (fd != -ENOENT && fd != -ENOSYS && fd != -EPERM)
            return fd;
        if (fd == -ENOENT) {
            int rc = probe_last_missing(dirfd, rel);
            if (rc != 1)
                return rc;
        }
        /* a miss still has to be explained: walk it */
    }
    return pathgate__contain_walk_probe(&handles, dirfd, rel, 0);
}

int pathgate__contain_probe(int dirfd, const char *rel, int force_fallback)
{
    return pathgate__contain_probe_how(dirfd, rel, force_fallback ? PATHGATE__CONTAIN_FALLBACK : 0);
}

int pathgate__contain_real_rel(char *out, size_t cap, int dirfd, const char *rel,
                               int force_fallback)
{
    (void)force_fallback; /* the walk is the only way to learn the names */
    if (!rel || dirfd < 0 || !out || cap == 0)
        return -EINVAL;
    if (rel[0] == '/')
        return -EXDEV;
    return pathgate__contain_walk_real_rel(&handles, out, cap, dirfd, rel);
}
