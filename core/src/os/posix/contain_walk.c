/*
 * contain_walk.c - the O_NOFOLLOW component walk beneath a directory fd,
 * in POSIX 2008 only: the POSIX backend's containment (contain.c) and the
 * Linux backend's fallback where the kernel's beneath-lookup is missing
 * (os/linux/contain.c), one walk for both. What differs is the handles
 * (contain_walk.h): Linux enters directories path-only and opens a final
 * symlink itself; POSIX enters them O_SEARCH (else O_RDONLY) and probes
 * with fstatat.
 *
 * The walk keeps a lexical stack of the directories it entered (their
 * fds): `..` pops that stack and is never handed to the kernel, so it can
 * never rise above the base. Symlinks are read with readlinkat on the fd
 * the walk holds; an absolute target is refused (-EXDEV), a relative one
 * is spliced in front of what is left of the path. At most 40 links.
 *
 * Residual (docs/os.md): a directory the walk has already entered that is
 * renamed out of the base during the call, by someone with write access
 * both inside and outside, is not noticed (the kernel's beneath-lookup
 * notices it). The walk holds at most PATHGATE__CONTAIN_MAX_DEPTH
 * directory levels (deeper paths answer -ENAMETOOLONG, failing closed).
 */
#include "contain_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* ---------------------------------------------------------- the walk */

static void names_push(pathgate__contain_names *n, const char *s, size_t len)
{
    if (!n)
        return;
    if (n->depth >= sizeof n->at / sizeof *n->at || n->len + 1 + len >= sizeof n->buf) {
        n->overflow = 1;
        return;
    }
    n->at[n->depth++] = n->len;
    if (n->len)
        n->buf[n->len++] = '/';
    memcpy(n->buf + n->len, s, len);
    n->len += len;
    n->buf[n->len] = '\0';
}

static void names_pop(pathgate__contain_names *n)
{
    if (!n || n->depth == 0)
        return;
    n->len = n->at[--n->depth];
    n->buf[n->len] = '\0';
}

typedef struct walk {
    int base;  /* not owned */
    int depth; /* fds[0..depth) are owned, fds[depth-1] is the current dir */
    int fds[PATHGATE__CONTAIN_MAX_DEPTH];
    size_t start;                   /* what is left of the path: buf[start .. sizeof buf) */
    int links;                      /* symlinks followed so far */
    int probe;                      /* probe mode (see walk_run) */
    int missed;                     /* probe: something on the way was missing */
    size_t vdepth;                  /* probe: lexical levels below a missing directory */
    int max_links;                  /* PATHGATE__CONTAIN_MAX_LINKS, or 0: any link is -ELOOP */
    pathgate__contain_names *names; /* real_rel: the names gone through, or NULL */
    const pathgate__contain_handles *h;
    char buf[3 * PATHGATE_PATH_MAX];
} walk;

/* One component of what is left of the path: buf[s .. s + n). */
typedef struct component {
    size_t s, n;
    int final; /* nothing but slashes after it */
    int trail; /* final, with a trailing '/': must be a directory */
    int dot;   /* names the current directory: "", ".", or an applied ".." */
} component;

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
static int walk_follow(walk *w, const char *target, size_t len)
{
    if (++w->links > w->max_links)
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

/* Takes the next component off what is left of the path. */
static void walk_next(walk *w, component *c)
{
    const size_t end = sizeof w->buf;
    while (w->start < end && w->buf[w->start] == '/')
        w->start++;
    size_t s = w->start, e = s;
    while (e < end && w->buf[e] != '/')
        e++;
    size_t r = e;
    while (r < end && w->buf[r] == '/')
        r++;
    c->s = s;
    c->n = e - s;
    c->final = r == end;
    c->trail = c->final && e < end;
    c->dot = c->n == 0 || (c->n == 1 && w->buf[s] == '.');
    w->start = e;
}

/* What needs no lookup: `..` (one level up, never above the base), and in
 * probe mode the levels below a missing directory. Returns 1 when the
 * component is done with, 0 when it must be looked up, or -errno. */
static int walk_lexical(walk *w, component *c)
{
    if (c->n == 2 && w->buf[c->s] == '.' && w->buf[c->s + 1] == '.') {
        if (w->vdepth)
            w->vdepth--;
        else if (w->depth == 0)
            return -EXDEV; /* above the base */
        else
            close(w->fds[--w->depth]);
        names_pop(w->names);
        c->dot = 1;
    } else if (w->vdepth) {
        if (!c->dot) {
            w->vdepth++;
            names_push(w->names, w->buf + c->s, c->n);
        }
    }
    if (w->vdepth)
        return c->final ? -ENOENT : 1;
    return c->dot && !c->final;
}

/* A directory on the way: enters it, splices the symlink it is, or (probe
 * mode) notes it missing. 0 or -errno. */
static int walk_enter(walk *w, const char *name)
{
    int fd = openat(walk_cur(w), name, w->h->dir_enter | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        if (w->depth == PATHGATE__CONTAIN_MAX_DEPTH) {
            close(fd);
            return -ENAMETOOLONG;
        }
        w->fds[w->depth++] = fd;
        names_push(w->names, name, strlen(name));
        return 0;
    }
    int err = errno;
    if (err == ENOTDIR || err == ELOOP || err == EMLINK) { /* a file, or a symlink */
        char target[PATHGATE_PATH_MAX];
        ssize_t len = read_link(walk_cur(w), name, target, sizeof target);
        if (len == -EINVAL)
            return -ENOTDIR;
        if (len < 0)
            return (int)len;
        return walk_follow(w, target, (size_t)len);
    }
    if (err == ENOENT && w->probe) {
        w->missed = 1;
        w->vdepth = 1;
        names_push(w->names, name, strlen(name));
        return 0;
    }
    return -err;
}

/* The final component, opened with the caller's flags. Returns the fd or
 * -errno; *again is set when it was a symlink, now spliced into the path
 * (then 0 or walk_follow's -errno). */
static int walk_final(walk *w, const char *name, const component *c, int flags, unsigned int mode,
                      int *again)
{
    char target[PATHGATE_PATH_MAX];
    *again = 0;
    if (w->probe && !w->h->link_flag) {
        /* a probe needs no handle: what is there, without opening it */
        struct stat st;
        if (fstatat(walk_cur(w), name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            if (S_ISLNK(st.st_mode) && !c->dot) {
                ssize_t len = read_link(walk_cur(w), name, target, sizeof target);
                if (len < 0)
                    return (int)len;
                *again = 1;
                return walk_follow(w, target, (size_t)len);
            }
            if (c->trail && !S_ISDIR(st.st_mode))
                return -ENOTDIR;
            return w->missed ? -ENOENT : 0;
        }
        return -errno;
    }
    int f = flags | O_NOFOLLOW | O_CLOEXEC;
    if (c->trail && !(flags & O_CREAT))
        f |= O_DIRECTORY;
    int fd = openat(walk_cur(w), name, f, (mode_t)mode);
    if (fd >= 0) {
        if ((flags & w->h->link_flag) && !(flags & O_NOFOLLOW) && !c->dot) {
            /* the handle may be the symlink itself (Linux's path-only
             * handle with O_NOFOLLOW): read it through the handle */
            ssize_t len = readlinkat(fd, "", target, sizeof target);
            if (len >= 0) {
                close(fd);
                if ((size_t)len >= sizeof target)
                    return -ENAMETOOLONG;
                *again = 1;
                return walk_follow(w, target, (size_t)len);
            }
        }
        if (w->missed) {
            close(fd);
            return -ENOENT;
        }
        return fd;
    }
    int err = errno;
    if ((err == ELOOP || err == ENOTDIR || err == EMLINK) && !(flags & O_NOFOLLOW) && !c->dot) {
        ssize_t len = read_link(walk_cur(w), name, target, sizeof target);
        if (len >= 0) {
            *again = 1;
            return walk_follow(w, target, (size_t)len);
        }
        if (len != -EINVAL && len != -ENOENT)
            return (int)len;
    }
    return -err;
}

/*
 * The component walk. In probe mode (no handle is opened, unless the
 * backend has link handles: then flags are that flag) a missing
 * directory does not end the walk: the components after it are counted
 * lexically (`vdepth`), a `..` that climbs back out of them resumes the
 * real walk, and the answer is -ENOENT unless something escapes.
 */
static int walk_run(walk *w, int flags, unsigned int mode)
{
    char name[NAME_MAX + 1];
    for (;;) {
        component c;
        walk_next(w, &c);
        int rc = walk_lexical(w, &c);
        if (rc < 0)
            return rc;
        if (rc > 0)
            continue;
        if (c.dot) {
            name[0] = '.';
            name[1] = '\0';
        } else {
            if (c.n > NAME_MAX)
                return -ENAMETOOLONG;
            memcpy(name, w->buf + c.s, c.n);
            name[c.n] = '\0';
        }
        if (!c.final) {
            if ((rc = walk_enter(w, name)) < 0)
                return rc;
            continue;
        }
        int again;
        rc = walk_final(w, name, &c, flags, mode, &again);
        if (!again && !c.dot && (rc >= 0 || rc == -ENOENT))
            names_push(w->names, name, strlen(name));
        if (!again || rc < 0)
            return rc;
    }
}

void pathgate__contain_names_init(pathgate__contain_names *n)
{
    n->len = 0;
    n->depth = 0;
    n->overflow = 0;
    n->buf[0] = '\0';
}

int pathgate__contain_walk(int dirfd, const char *rel, int flags, unsigned int mode, int probe,
                           int no_links, pathgate__contain_names *nm,
                           const pathgate__contain_handles *h)
{
    size_t len = strlen(rel);
    if (len >= PATHGATE_PATH_MAX)
        return -ENAMETOOLONG;
    walk w;
    w.base = dirfd;
    w.depth = 0;
    w.links = 0;
    w.probe = probe;
    w.missed = 0;
    w.vdepth = 0;
    w.max_links = no_links ? 0 : PATHGATE__CONTAIN_MAX_LINKS;
    w.names = nm;
    w.h = h;
    w.start = sizeof w.buf - len;
    memcpy(w.buf + w.start, rel, len);
    int rc = walk_run(&w, flags, mode);
    walk_close(&w);
    return rc;
}

/* -------------------------------------------------------------- errors */

int pathgate__errno_to_code(int neg_errno)
{
    int e = neg_errno < 0 ? -neg_errno : neg_errno;
    switch (e) {
    case 0:
        return PATHGATE_OK;
    case EXDEV: /* an escape */
    case ELOOP: /* too many links, or a symlink where none may be */
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
    case -PATHGATE__OS_EHIDDEN: /* the policy hides it (policy_internal.h) */
        return PATHGATE_EINVALIDPATH;
    case -PATHGATE__OS_EPROTECTED: /* the policy protects it */
        return PATHGATE_EPOLICY;
    case ENOMEM:
        return PATHGATE_ENOMEM;
    case EINVAL:
        return PATHGATE_EINVAL;
    default:
        return PATHGATE_EIO;
    }
}
