/*
 * contain.c - opening a path beneath a directory fd with the kernel
 * enforcing containment: openat2(RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS),
 * or, where openat2 is unavailable (ENOSYS, or EPERM from a seccomp
 * filter), a component walk with openat(O_NOFOLLOW) that follows a symlink
 * only while it stays inside.
 *
 * The walk keeps a lexical stack of the directories it entered (their
 * fds): `..` pops that stack and is never handed to the kernel, so it can
 * never rise above the base. Symlinks are read with readlinkat on the fd
 * the walk holds; an absolute target is refused (-EXDEV), a relative one
 * is spliced in front of what is left of the path. At most 40 links.
 *
 * Known limit of the fallback (not of openat2): a directory the walk has
 * already entered that is renamed out of the base by someone with write
 * access both inside and outside is not noticed; openat2 detects that.
 * The fallback also holds at most PATHGATE__CONTAIN_MAX_DEPTH directory
 * levels (deeper paths answer -ENAMETOOLONG, failing closed).
 */
#define _GNU_SOURCE
#include "contain.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437 /* the same number on every architecture */
#endif

static int openat2_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(unsigned int)(flags | O_CLOEXEC);
    /* openat2 refuses a mode without O_CREAT / O_TMPFILE */
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
        how.mode = mode;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
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

/* ---------------------------------------------------------- the walk */

typedef struct walk {
    int base;  /* not owned */
    int depth; /* fds[0..depth) are owned, fds[depth-1] is the current dir */
    int fds[PATHGATE__CONTAIN_MAX_DEPTH];
    size_t start; /* what is left of the path: buf[start .. sizeof buf) */
    char buf[3 * PATHGATE_PATH_MAX];
} walk;

static int walk_cur(const walk *w)
{
    return w->depth ? w->fds[w->depth - 1] : w->base;
}

static void walk_close(walk *w)
{
    while (w->depth > 0)
        close(w->fds[--w->depth]);
}

/* Splices a symlink target in front of what is left of the path (which
 * begins with '/' or is empty), relative to the link's directory. */
static int walk_follow(walk *w, const char *target, size_t len, int *links)
{
    if (++*links > PATHGATE__CONTAIN_MAX_LINKS)
        return -ELOOP;
    if (len == 0)
        return -ENOENT; /* an empty symlink, as the kernel says */
    if (target[0] == '/')
        return -EXDEV; /* absolute: leaves the base by definition */
    if (len > w->start)
        return -ENAMETOOLONG;
    w->start -= len;
    memcpy(w->buf + w->start, target, len);
    return 0;
}

/* readlinkat(dirfd, name) into buf: its length, or -errno (-EINVAL when
 * name is not a symlink). */
static ssize_t read_link(int dirfd, const char *name, char *buf, size_t size)
{
    ssize_t n = readlinkat(dirfd, name, buf, size);
    if (n < 0)
        return -errno;
    if ((size_t)n >= size)
        return -ENAMETOOLONG;
    return n;
}

/*
 * The component walk. In probe mode (flags must be O_PATH) a missing
 * directory does not end the walk: the components after it are counted
 * lexically (`vdepth`), a `..` that climbs back out of them resumes the
 * real walk, and the answer is -ENOENT unless something escapes.
 */
static int walk_run(walk *w, int flags, mode_t mode, int probe)
{
    const size_t end = sizeof w->buf;
    char name[NAME_MAX + 1];
    char target[PATHGATE_PATH_MAX];
    int links = 0;
    size_t vdepth = 0; /* probe: lexical levels below a missing directory */
    int missed = 0;    /* probe: something on the way was missing */

    for (;;) {
        while (w->start < end && w->buf[w->start] == '/')
            w->start++;
        size_t s = w->start, e = s;
        while (e < end && w->buf[e] != '/')
            e++;
        size_t r = e;
        while (r < end && w->buf[r] == '/')
            r++;
        const int final = r == end;
        const int trail = final && e < end; /* `dir/` must be a directory */
        const size_t n = e - s;
        w->start = e;

        int dot = n == 0 || (n == 1 && w->buf[s] == '.');
        if (n == 2 && w->buf[s] == '.' && w->buf[s + 1] == '.') {
            if (vdepth)
                vdepth--;
            else if (w->depth == 0)
                return -EXDEV; /* above the base */
            else
                close(w->fds[--w->depth]);
            dot = 1;
        } else if (vdepth) {
            if (!dot)
                vdepth++;
        }
        if (vdepth) {
            if (final)
                return -ENOENT;
            continue;
        }
        if (dot && !final)
            continue;
        if (dot) {
            name[0] = '.';
            name[1] = '\0';
        } else {
            if (n > NAME_MAX)
                return -ENAMETOOLONG;
            memcpy(name, w->buf + s, n);
            name[n] = '\0';
        }

        if (!final) {
            int fd = openat(walk_cur(w), name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd >= 0) {
                if (w->depth == PATHGATE__CONTAIN_MAX_DEPTH) {
                    close(fd);
                    return -ENAMETOOLONG;
                }
                w->fds[w->depth++] = fd;
                continue;
            }
            int err = errno;
            if (err == ENOTDIR) { /* a file, or a symlink (not followed) */
                ssize_t len = read_link(walk_cur(w), name, target, sizeof target);
                if (len == -EINVAL)
                    return -ENOTDIR;
                if (len < 0)
                    return (int)len;
                int rc = walk_follow(w, target, (size_t)len, &links);
                if (rc < 0)
                    return rc;
                continue;
            }
            if (err == ENOENT && probe) {
                missed = 1;
                vdepth = 1;
                continue;
            }
            return -err;
        }

        /* the final component, with the caller's flags */
        int f = flags | O_NOFOLLOW | O_CLOEXEC;
        if (trail && !(flags & O_CREAT))
            f |= O_DIRECTORY;
        int fd = openat(walk_cur(w), name, f, mode);
        if (fd >= 0) {
            if ((flags & O_PATH) && !(flags & O_NOFOLLOW) && !dot) {
                /* O_PATH|O_NOFOLLOW opens a symlink itself: read it */
                ssize_t len = readlinkat(fd, "", target, sizeof target);
                if (len >= 0) {
                    close(fd);
                    if ((size_t)len >= sizeof target)
                        return -ENAMETOOLONG;
                    int rc = walk_follow(w, target, (size_t)len, &links);
                    if (rc < 0)
                        return rc;
                    continue;
                }
            }
            if (missed) {
                close(fd);
                return -ENOENT;
            }
            return fd;
        }
        int err = errno;
        if ((err == ELOOP || err == ENOTDIR) && !(flags & O_NOFOLLOW) && !dot) {
            ssize_t len = read_link(walk_cur(w), name, target, sizeof target);
            if (len >= 0) {
                int rc = walk_follow(w, target, (size_t)len, &links);
                if (rc < 0)
                    return rc;
                continue;
            }
            if (len != -EINVAL && len != -ENOENT)
                return (int)len;
        }
        return -err;
    }
}

static int walk_open(int dirfd, const char *rel, int flags, mode_t mode, int probe)
{
    size_t len = strlen(rel);
    if (len >= PATHGATE_PATH_MAX)
        return -ENAMETOOLONG;
    walk w;
    w.base = dirfd;
    w.depth = 0;
    w.start = sizeof w.buf - len;
    memcpy(w.buf + w.start, rel, len);
    int rc = walk_run(&w, flags, mode, probe);
    walk_close(&w);
    return rc;
}

/* ------------------------------------------------------------- API */

int pathgate__contain_open(int dirfd, const char *rel, int open_flags, mode_t mode,
                           int force_fallback)
{
    if (!rel || dirfd < 0)
        return -EINVAL;
    if (rel[0] == '/')
        return -EXDEV;
    if (!force_fallback) {
        int fd = openat2_beneath(dirfd, rel, open_flags, mode);
        if (fd != -ENOSYS && fd != -EPERM)
            return fd;
    }
    return walk_open(dirfd, rel, open_flags, mode, 0);
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
        pfd = openat2_beneath(dirfd, parent, O_PATH | O_DIRECTORY, 0);
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

int pathgate__contain_probe(int dirfd, const char *rel, int force_fallback)
{
    if (!rel || dirfd < 0)
        return -EINVAL;
    if (rel[0] == '/')
        return -EXDEV;
    int fd;
    if (!force_fallback) {
        fd = openat2_beneath(dirfd, rel, O_PATH, 0);
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
    fd = walk_open(dirfd, rel, O_PATH, 0, 1);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    return fd;
}

int pathgate__errno_to_code(int neg_errno)
{
    int e = neg_errno < 0 ? -neg_errno : neg_errno;
    switch (e) {
    case 0:
        return PATHGATE_OK;
    case EXDEV:        /* an escape */
    case ELOOP:        /* too many links, or a symlink where none may be */
    case ENAMETOOLONG:
        return PATHGATE_EINVALIDPATH;
    case ENOENT:
        return PATHGATE_ENOTFOUND;
    case ENOTDIR:
        return PATHGATE_ENOTDIR;
    case EISDIR:
        return PATHGATE_EISDIR;
    case EACCES:
    case EPERM:
    case EROFS:
        return PATHGATE_EACCES;
    case EEXIST:
        return PATHGATE_EEXIST;
    case ENOMEM:
        return PATHGATE_ENOMEM;
    case EINVAL:
        return PATHGATE_EINVAL;
    default:
        return PATHGATE_EIO;
    }
}
