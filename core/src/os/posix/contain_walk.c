/*
 * contain_walk.c - the component walk beneath a directory handle, one
 * name at a time without following links (pathgate__os_openat with
 * O_NOFOLLOW), a symlink followed only while it stays inside. Written over
 * os.h's own calls only (pathgate__os_openat, _stored_name, close, and
 * the backend's _statat and _readlinkat as contain_walk.h's handles hand
 * them in), so that every backend walks with it: os/posix/
 * and os/windows/ (os/posix/contain.c: each name relative to its
 * directory's handle, on Windows a reparse point read as a link), and
 * os/linux/ where the kernel's beneath-lookup is refused (os/linux/contain.c). What differs is
 * the handle the walk may hold (contain_walk.h): Linux enters directories
 * with path-only handles and opens a final symlink as itself; the
 * others enter directories O_SEARCH (else O_RDONLY), and a probe looks at
 * its final component with a stat instead of opening it.
 *
 * The walk keeps a lexical stack of the directories it entered (their
 * fds): `..` pops that stack and is never handed to the kernel, so it can
 * never rise above the base. Symlinks are read with readlinkat on the fd
 * the walk holds; an absolute target is refused (-EXDEV), a relative one
 * is spliced in front of what is left of the path. At most 40 links.
 *
 * Residual (docs/os.md): a directory the walk has already entered that is
 * renamed out of the base during the call, by someone with write access
 * both inside and outside, is not noticed (Linux's beneath-lookup notices it). The walk
 * holds at most PATHGATE__CONTAIN_MAX_DEPTH directory levels (deeper paths
 * answer -ENAMETOOLONG, failing closed).
 */
#include "contain_walk.h"

#include "os.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

/* The longest name, in bytes: the backend's where it says (Windows: 255
 * UTF-16 units are up to 765 bytes of UTF-8), else the system's. */
#if defined(PATHGATE__OS_NAME_MAX)
#define WALK_NAME_MAX PATHGATE__OS_NAME_MAX
#elif defined(NAME_MAX)
#define WALK_NAME_MAX NAME_MAX
#else
#define WALK_NAME_MAX 255
#endif

/* ---------------------------------------------------------- the walk */

/* The names the walk has gone through (real_rel): each level's name, so
 * that `..` can drop it. */
typedef struct names {
    char buf[PATHGATE_PATH_MAX + 1];
    size_t len;
    size_t depth;
    size_t at[PATHGATE_PATH_MAX / 2 + 2]; /* len before each level */
    int overflow;
} names;

static void names_push(names *n, const char *s, size_t len)
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

static void names_pop(names *n)
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
    size_t start;  /* what is left of the path: buf[start .. sizeof buf) */
    int links;     /* symlinks followed so far */
    int probe;     /* probe mode (see walk_run) */
    int missed;    /* probe: something on the way was missing */
    size_t vdepth; /* probe: lexical levels below a missing directory */
    int max_links; /* PATHGATE__CONTAIN_MAX_LINKS, or 0: any link is -ELOOP */
    names *names;  /* real_rel: the names gone through, or NULL */
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

/* Notes the name of an entry that exists in dirfd (real_rel): as the
 * directory stores it, where names are found in any case (os.h,
 * pathgate__os_stored_name), so that one file has one spelling. */
static void names_push_entry(walk *w, int dirfd, const char *name)
{
    if (!w->names)
        return;
#if PATHGATE__OS_NAMES_FOLD
    char stored[4 * WALK_NAME_MAX + 1];
    if (pathgate__os_stored_name(dirfd, name, stored, sizeof stored) == 0) {
        names_push(w->names, stored, strlen(stored));
        return;
    }
#else
    (void)dirfd;
#endif
    names_push(w->names, name, strlen(name));
}

/* Splices a symlink target in front of what is left of the path (which
 * begins with '/' or is empty), relative to the link's directory. len is
 * read_link's answer: -EXDEV for a link whose target cannot be read
 * (os/windows under wine), taken to lead out as an absolute one does. */
static int walk_follow(walk *w, const char *target, long len)
{
    if (++w->links > w->max_links)
        return -ELOOP;
    if (len == -EXDEV)
        return -EXDEV;
    if (len == 0)
        return -ENOENT; /* an empty symlink, as the kernel says */
    if (target[0] == '/')
        return -EXDEV; /* absolute: leaves the base by definition */
    if ((size_t)len > w->start)
        return -ENAMETOOLONG;
    w->start -= (size_t)len;
    memcpy(w->buf + w->start, target, (size_t)len);
    return 0;
}

/* The target of the link name in dirfd into buf: its length, or -errno
 * (-EINVAL when name is not a symlink, -EXDEV when it is one whose target
 * cannot be read). */
static long read_link(const walk *w, int dirfd, const char *name, char *buf, size_t size)
{
    return w->h->readlinkat(dirfd, name, buf, size);
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
    int fd = pathgate__os_openat(walk_cur(w), name, w->h->dir_enter | O_NOFOLLOW, 0);
    if (fd >= 0) {
        if (w->depth == PATHGATE__CONTAIN_MAX_DEPTH) {
            close(fd);
            return -ENAMETOOLONG;
        }
        names_push_entry(w, walk_cur(w), name);
        w->fds[w->depth++] = fd;
        return 0;
    }
    int err = -fd;
    if (err == ENOTDIR || err == ELOOP || err == EMLINK) { /* a file, or a symlink */
        char target[PATHGATE_PATH_MAX];
        long len = read_link(w, walk_cur(w), name, target, sizeof target);
        if (len == -EINVAL)
            return -ENOTDIR;
        if (len < 0 && len != -EXDEV)
            return (int)len;
        return walk_follow(w, target, len);
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
    if (w->probe && !w->h->path_only) {
        /* a probe needs no handle: what is there, without opening it */
        pathgate__os_stat st;
        int src = w->h->statat(walk_cur(w), name, PATHGATE__OS_STAT_NOFOLLOW, &st);
        if (src == 0) {
            if (st.type == PATHGATE__OS_T_LNK && !c->dot) {
                long len = read_link(w, walk_cur(w), name, target, sizeof target);
                if (len < 0 && len != -EXDEV)
                    return (int)len;
                *again = 1;
                return walk_follow(w, target, len);
            }
            if (c->trail && st.type != PATHGATE__OS_T_DIR)
                return -ENOTDIR;
            return w->missed ? -ENOENT : 0;
        }
        return src;
    }
    int f = flags | O_NOFOLLOW;
    if (c->trail && !(flags & O_CREAT))
        f |= O_DIRECTORY;
    int fd = pathgate__os_openat(walk_cur(w), name, f, mode);
    if (fd >= 0) {
        const int path_only = w->h->path_only;
        if (path_only && (flags & path_only) == path_only && !(flags & O_NOFOLLOW) && !c->dot) {
            /* a path-only handle opened with O_NOFOLLOW holds a symlink
             * itself: read it ("" names the handle's own entry) */
            long len = read_link(w, fd, "", target, sizeof target);
            if (len >= 0 || len == -ENAMETOOLONG) {
                close(fd);
                if (len < 0)
                    return (int)len;
                *again = 1;
                return walk_follow(w, target, len);
            }
        }
        if (w->missed) {
            close(fd);
            return -ENOENT;
        }
        return fd;
    }
    int err = -fd;
    if ((err == ELOOP || err == ENOTDIR || err == EMLINK) && !(flags & O_NOFOLLOW) && !c->dot) {
        long len = read_link(w, walk_cur(w), name, target, sizeof target);
        if (len >= 0 || len == -EXDEV) {
            *again = 1;
            return walk_follow(w, target, len);
        }
        if (len != -EINVAL && len != -ENOENT)
            return (int)len;
    }
    return -err;
}

/*
 * The component walk. In probe mode (no handle is kept) a missing
 * directory does not end the walk: the components after it are counted
 * lexically (`vdepth`), a `..` that climbs back out of them resumes the
 * real walk, and the answer is -ENOENT unless something escapes.
 */
static int walk_run(walk *w, int flags, unsigned int mode)
{
    char name[WALK_NAME_MAX + 1];
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
            if (c.n > WALK_NAME_MAX)
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
        if (!again && !c.dot && rc >= 0)
            names_push_entry(w, walk_cur(w), name);
        else if (!again && !c.dot && rc == -ENOENT)
            names_push(w->names, name, strlen(name));
        if (!again || rc < 0)
            return rc;
    }
}

static int walk_open_names(const pathgate__contain_handles *h, int dirfd, const char *rel,
                           int flags, unsigned int mode, int probe, int no_links, names *nm)
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

/* ------------------------------------------------------------- API */

int pathgate__contain_walk_open(const pathgate__contain_handles *h, int dirfd, const char *rel,
                                int open_flags, unsigned int mode, int no_links)
{
    return walk_open_names(h, dirfd, rel, open_flags, mode, 0, no_links, NULL);
}

int pathgate__contain_walk_probe(const pathgate__contain_handles *h, int dirfd, const char *rel,
                                 int no_links)
{
    /* with path-only handles the final component is opened (and closed) */
    int rc = walk_open_names(h, dirfd, rel, h->path_only, 0, 1, no_links, NULL);
    if (rc >= 0 && h->path_only)
        close(rc);
    return rc >= 0 ? 0 : rc;
}

int pathgate__contain_walk_real_rel(const pathgate__contain_handles *h, char *out, size_t cap,
                                    int dirfd, const char *rel)
{
    names nm;
    nm.len = 0;
    nm.depth = 0;
    nm.overflow = 0;
    nm.buf[0] = '\0';
    int rc = walk_open_names(h, dirfd, rel, h->path_only, 0, 1, 0, &nm);
    if (rc >= 0 && h->path_only)
        close(rc);
    if (rc < 0 && rc != -ENOENT)
        return rc;
    if (nm.overflow || nm.len >= cap)
        return -ENAMETOOLONG;
    memcpy(out, nm.buf, nm.len + 1);
    return 0;
}

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

#if PATHGATE__OS_NAMES_FOLD
/* One spelling per file for a whole relative path (os.h): each name of
 * rel[0..len) that exists beneath dirfd takes the spelling its directory
 * stores (pathgate__os_stored_name), in place. Each directory on the way
 * is entered from the one before it without following a link, so the walk
 * costs a name's listing and the next directory's open per name; it stops at the first name that is
 * missing, a link, `..`, or stored with another length, and the rest stays
 * as given. Where names are exact, os_platform.h makes this nothing. */
void pathgate__os_stored_rel(pathgate__os_fd dirfd, char *rel, size_t len)
{
    char name[WALK_NAME_MAX + 1], stored[WALK_NAME_MAX + 1];
    int dir = dirfd, owned = 0;
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && rel[j] != '/')
            j++;
        size_t n = j - i;
        if (n == 0 || n > WALK_NAME_MAX)
            break;
        memcpy(name, rel + i, n);
        name[n] = '\0';
        if (pathgate__os_stored_name(dir, name, stored, sizeof stored) != 0 || strlen(stored) != n)
            break;
        memcpy(rel + i, stored, n);
        if (j >= len)
            break;
        int next = pathgate__os_openat(
            dir, stored, PATHGATE__OS_O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        if (owned)
            pathgate__os_close(dir);
        owned = next >= 0;
        if (!owned)
            break;
        dir = next;
        i = j + 1;
    }
    if (owned)
        pathgate__os_close(dir);
}
#endif
