/*
 * fs_policy.c - how the file operations apply the policy (docs/policy.md):
 * the name of every operand is judged when it is resolved
 * (fs_target.c), what an open reaches through a symlink when it is opened
 * (pathgate__fs_open), what a listing shows entry by entry (fs_walk.c,
 * and scandir, the walk iterator and the editor's view), what lies below a
 * directory that is deleted, removed or moved (the scan of policy_scan.c),
 * and what the toolkit (fs_toolkit.h) reaches by following a link or makes
 * a link to. Each decision is one audit event.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os.h"
#include "alloc.h"
#include "error.h"
#include "resolver_policy.h"
#include "resolver_internal.h"
#include "text.h"
#include "fs_target.h"
#include "fs_policy.h"

/* --------------------------------------------------------------- listing */

/* dir_rel + "/" + name into buf: its length, or 0 when too long. */
static size_t join(char *buf, size_t cap, const char *dir, size_t dlen, const char *name,
                   size_t nlen)
{
    if (dlen + 1 + nlen >= cap)
        return 0;
    memcpy(buf, dir, dlen);
    size_t n = dlen;
    if (dlen)
        buf[n++] = '/';
    memcpy(buf + n, name, nlen);
    n += nlen;
    buf[n] = '\0';
    return n;
}

int pathgate__fs_policy_hidden(const pathgate__walk_policy *wp, const char *dir_rel,
                               size_t dir_rel_len, const char *name, size_t name_len)
{
    const pathgate__fs_target *t = wp->t;
    char path[PATHGATE_PATH_MAX + 1];
    size_t n = join(path, sizeof path, dir_rel, dir_rel_len, name, name_len);
    if (!n)
        return 0; /* no address can name it: the walk leaves it out anyway */
    if (pathgate__policy_verdict(NULL, t->r, t->base, path, n, PATHGATE__ACCESS_READ))
        return 1;
    if (wp->real_root && dir_rel_len >= t->rel_len) {
        /* where it really is: the root's real path, then the rest */
        const char *below = dir_rel + t->rel_len;
        size_t blen = dir_rel_len - t->rel_len;
        if (blen && *below == '/') {
            below++;
            blen--;
        }
        char dir[PATHGATE_PATH_MAX + 1];
        size_t d = wp->real_len;
        if (blen) {
            if (!(d = join(dir, sizeof dir, wp->real_root, wp->real_len, below, blen)))
                return 1; /* too long to judge: hide it */
        } else {
            memcpy(dir, wp->real_root, d);
            dir[d] = '\0';
        }
        n = join(path, sizeof path, dir, d, name, name_len);
        if (!n || pathgate__policy_verdict(NULL, t->r, t->base, path, n, PATHGATE__ACCESS_READ))
            return 1;
    }
    return 0;
}

int pathgate__fs_policy_real_root(const pathgate__fs_target *t, int rootfd, char *buf, size_t cap)
{
    unsigned int how = PATHGATE__CONTAIN_NO_LINKS;
    if (t->force_fallback)
        how |= PATHGATE__CONTAIN_FALLBACK;
    char rel[PATHGATE_PATH_MAX + 1];
    if (t->rel_len >= sizeof rel)
        return -ENAMETOOLONG;
    memcpy(rel, t->rel, t->rel_len);
    rel[t->rel_len] = '\0';
    int rc = pathgate__contain_probe_how(t->base_fd, rel, how);
    if (rc != -ELOOP)
        return 0;
    if ((rc = pathgate__policy_real_rel(buf, cap, t->r, t->base, rel)) < 0)
        return rc;
    /* the very directory the walk holds */
    int fd = pathgate__contain_open_how(t->base_fd, buf, PATHGATE__OS_O_PATH | O_DIRECTORY, 0,
                                        how & ~PATHGATE__CONTAIN_NO_LINKS);
    if (fd < 0)
        return -EAGAIN;
    pathgate__os_stat a, b;
    int same = pathgate__os_statat(fd, "", 0, &a) == 0 &&
               pathgate__os_statat(rootfd, "", 0, &b) == 0 && a.dev == b.dev && a.ino == b.ino;
    pathgate__os_close(fd);
    return same ? 1 : -EAGAIN;
}

/* ------------------------------------------------------------ the tree */

typedef struct first_hit {
    unsigned int denied;
    pathgate_policy_verdict v;
} first_hit;

static int stop_at_first(void *ctx, const char *sub, size_t sub_len, int is_dir,
                         unsigned int denied, const pathgate_policy_verdict *v)
{
    (void)sub;
    (void)sub_len;
    (void)is_dir;
    first_hit *h = ctx;
    h->denied = denied;
    h->v = *v;
    return 1;
}

/* Scans the directory t names (when it is one) for what the policy hides
 * or protects, here and (alt not NULL) under alt. 0 clean or not a
 * directory, 1 (*h filled) found, or a negative pathgate code. */
static int scan_tree(const pathgate__fs_target *t, const pathgate__fs_target *alt, first_hit *h)
{
    if (!t->rel_len && !alt)
        return 0; /* the base itself is never deleted */
    if (!pathgate__policy_may_deny_below(t->r, t->base, t->rel, t->rel_len,
                                         PATHGATE__ACCESS_WRITE) &&
        !(alt && pathgate__policy_may_deny_below(alt->r, alt->base, alt->rel, alt->rel_len,
                                                 PATHGATE__ACCESS_WRITE)))
        return 0;
    int fd = pathgate__fs_open(t, NULL, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
    if (fd < 0)
        return 0; /* not a directory (or gone): nothing below it */
    char rel[PATHGATE_PATH_MAX + 1], arel[PATHGATE_PATH_MAX + 1];
    memcpy(rel, t->rel, t->rel_len);
    rel[t->rel_len] = '\0';
    if (alt) {
        memcpy(arel, alt->rel, alt->rel_len);
        arel[alt->rel_len] = '\0';
    }
    int rc = pathgate__policy_scan(t->r, t->base, rel, fd, alt ? alt->base : 0, alt ? arel : NULL,
                                   PATHGATE__ACCESS_WRITE, stop_at_first, h);
    pathgate__os_close(fd);
    if (rc < 0)
        return pathgate__errno_to_code(rc);
    return rc;
}

static int tree_refused(pathgate_error *err, const pathgate__fs_target *t, const first_hit *h)
{
    pathgate__fs_audit(t, "denied",
                       h->denied & PATHGATE_POLICY_DENY_READ ? "deny_read" : "deny_write", &h->v);
    return pathgate__error_set(err, PATHGATE_EPOLICY,
                               "Protected by policy: '%s' holds protected entries", t->address);
}

int pathgate__fs_policy_move_tree(const pathgate__fs_target *src, const pathgate__fs_target *dst,
                                  pathgate_error *err)
{
    if (!src->policy && !dst->policy)
        return PATHGATE_OK;
    first_hit h;
    memset(&h, 0, sizeof h);
    int rc = scan_tree(src, dst, &h);
    if (rc < 0)
        return pathgate__fs_fail(err, rc, src, PATHGATE__FS_DIRECTORY);
    return rc ? tree_refused(err, src, &h) : PATHGATE_OK;
}

/* A change to t judged d (pathgate__policy_verdict): a deny_read is the
 * one agent-visible "not found", a deny_write a policy refusal; each
 * audited. */
static int refuse_change(const pathgate__fs_target *t, unsigned int d,
                         const pathgate_policy_verdict *v, pathgate_error *err)
{
    if (d & PATHGATE_POLICY_DENY_READ) {
        pathgate__fs_audit(t, "denied", "deny_read", v);
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    }
    if (d) {
        pathgate__fs_audit(t, "denied", "deny_write", v);
        return pathgate__fs_fail(err, PATHGATE_EPOLICY, t, PATHGATE__FS_FILE);
    }
    return PATHGATE_OK;
}

/* The policy part of pathgate__fs_check_writable (fs_file.c), before the
 * read-only checks: deny_write by name. */
int pathgate__fs_policy_writable(const pathgate__fs_target *t, pathgate_error *err)
{
    if (!t->policy)
        return PATHGATE_OK;
    pathgate_policy_verdict v;
    unsigned int d =
        pathgate__policy_verdict(&v, t->r, t->base, t->rel, t->rel_len, PATHGATE__ACCESS_WRITE);
    /* (a deny_read here: resolve judged it already; be sure) */
    return refuse_change(t, d, &v, err);
}

/* ...and after them: what a directory holds. */
int pathgate__fs_policy_tree(const pathgate__fs_target *t, pathgate_error *err)
{
    /* only a delete, a remove_tree or a move takes what is below with it
     * (a write, edit or upload of a directory fails as one; mkdir makes it
     * empty) */
    if (!t->policy || !t->op ||
        (strcmp(t->op, "delete") != 0 && strcmp(t->op, "move") != 0 &&
         strcmp(t->op, "remove_tree") != 0))
        return PATHGATE_OK;
    first_hit h;
    memset(&h, 0, sizeof h);
    int rc = scan_tree(t, NULL, &h);
    if (rc < 0)
        return pathgate__fs_fail(err, rc, t, PATHGATE__FS_DIRECTORY);
    return rc ? tree_refused(err, t, &h) : PATHGATE_OK;
}

/* --------------------------------------------------------------- opens */

/* pathgate__fs_open when t->policy is set. */
static int policy_open(const pathgate__fs_target *t, const char *rel, int flags, unsigned int mode)
{
    unsigned int how = t->force_fallback ? PATHGATE__CONTAIN_FALLBACK : 0;
    int fd =
        pathgate__contain_open_how(t->base_fd, rel, flags, mode, how | PATHGATE__CONTAIN_NO_LINKS);
    if (fd != -ELOOP)
        return fd; /* no symlink on the way: the name was judged */
    fd = pathgate__contain_open_how(t->base_fd, rel, flags, mode, how);
    if (fd < 0)
        return fd;
    /* a symlink led here: judge what it reached, with the rest of t's rel
     * when this is one of its directories */
    const char *tail = "";
    size_t rl = strlen(rel), tail_len = 0;
    if (rl < t->rel_len && (rl == 0 || (memcmp(t->rel, rel, rl) == 0 && t->rel[rl] == '/'))) {
        tail = t->rel + (rl ? rl + 1 : 0);
        tail_len = t->rel_len - (size_t)(tail - t->rel);
    }
    pathgate_policy_verdict v;
    int rc = pathgate__policy_check_fd(&v, t->r, t->base, rel, fd, !(flags & O_NOFOLLOW), tail,
                                       tail_len, t->access);
    if (rc < 0) {
        pathgate__os_close(fd);
        return rc;
    }
    return fd;
}

/* ------------------------------------------------------------ the toolkit */

int pathgate__fs_policy_change(pathgate__fs_target *t, pathgate_error *err)
{
    t->access = PATHGATE__ACCESS_WRITE;
    int rc = pathgate__fs_policy_writable(t, err);
    if (rc < 0)
        return rc;
    pathgate__fs_audit(t, "allowed", NULL, NULL);
    return PATHGATE_OK;
}

int pathgate__fs_policy_entry(const pathgate__fs_target *t, const char *dir, size_t dlen, int dirfd,
                              const char *name)
{
    if (!t->policy)
        return 0;
    char text[PATHGATE_PATH_MAX + 1], real[PATHGATE_PATH_MAX + 1];
    if (dlen >= sizeof text)
        return -ENAMETOOLONG;
    memcpy(text, dir, dlen);
    text[dlen] = '\0';
    /* where the directory really is (every link on the way followed, `..`
     * applied as the kernel does), checked to be the one held */
    int rc = pathgate__policy_real_rel(real, sizeof real, t->r, t->base, text);
    if (rc < 0)
        return rc;
    unsigned int how = PATHGATE__CONTAIN_NO_LINKS;
    if (t->force_fallback)
        how |= PATHGATE__CONTAIN_FALLBACK;
    int fd =
        pathgate__contain_open_how(t->base_fd, real, PATHGATE__OS_O_PATH | O_DIRECTORY, 0, how);
    if (fd < 0)
        return fd == -ENOENT || fd == -ELOOP || fd == -ENOTDIR ? -EAGAIN : fd;
    pathgate__os_stat a, b;
    int same = pathgate__os_statat(fd, "", 0, &a) == 0 &&
               pathgate__os_statat(dirfd, "", 0, &b) == 0 && a.dev == b.dev && a.ino == b.ino;
    pathgate__os_close(fd);
    if (!same)
        return -EAGAIN;
    size_t n = strlen(real);
    if (!(name[0] == '.' && name[1] == '\0')) {
        size_t nl = strlen(name);
        if (n + 1 + nl >= sizeof real)
            return -ENAMETOOLONG;
        if (n)
            real[n++] = '/';
        memcpy(real + n, name, nl + 1);
        n += nl;
    }
    unsigned int denied = pathgate__policy_verdict(NULL, t->r, t->base, real, n, t->access);
    if (denied & PATHGATE_POLICY_DENY_READ)
        return -PATHGATE__POLICY_ENOREAD;
    if (denied & PATHGATE_POLICY_DENY_WRITE)
        return -PATHGATE__POLICY_ENOWRITE;
    return 0;
}

/* The event of a hidden path `real` of t's base (what a link leads to):
 * "denied", deny_read, as the operand `role` of t's operation. */
static void audit_hidden_at(const pathgate__fs_target *t, const char *role, const char *real,
                            const pathgate_policy_verdict *v)
{
    if (t->quiet || !pathgate__audit_enabled(t->r))
        return;
    pathgate__fs_target *at = pathgate__malloc(t->alloc, sizeof *at);
    if (!at)
        return;
    memcpy(at, t, offsetof(pathgate__fs_target, address));
    size_t rl = strlen(real);
    if (t->prefix_len + 1 + rl < sizeof at->address) {
        memcpy(at->address, t->address, t->prefix_len);
        size_t n = t->prefix_len;
        if (rl)
            at->address[n++] = '/';
        memcpy(at->address + n, real, rl + 1);
        at->address_len = n + rl;
        at->rel = at->address + (rl ? t->prefix_len + 1 : t->prefix_len);
        at->rel_len = rl;
        at->role = role;
        pathgate__fs_audit(at, "denied", "deny_read", v);
    }
    pathgate__free(t->alloc, at);
}

int pathgate__fs_policy_link_hidden(const pathgate__fs_target *t, pathgate_error *err)
{
    if (!t->policy)
        return PATHGATE_OK;
    char real[PATHGATE_PATH_MAX + 1];
    if (pathgate__policy_real_rel(real, sizeof real, t->r, t->base, t->rel) < 0)
        return PATHGATE_OK; /* leads out, loops: the operation's own checks say so */
    pathgate_policy_verdict v;
    if (!pathgate__policy_verdict(&v, t->r, t->base, real, strlen(real), PATHGATE__ACCESS_READ))
        return PATHGATE_OK;
    pathgate__fs_audit(t, "denied", "deny_read", &v);
    return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
}

int pathgate__fs_policy_link_target(const pathgate__fs_target *t, const char *target, size_t len,
                                    pathgate_error *err)
{
    if (!t->policy)
        return PATHGATE_OK;
    /* the target read from the link's directory, as the kernel will */
    char text[2 * PATHGATE_PATH_MAX + 2], real[PATHGATE_PATH_MAX + 1];
    const char *slash = pathgate__memrchr(t->rel, '/', t->rel_len);
    size_t dlen = slash ? (size_t)(slash - t->rel) : 0;
    if (dlen + 1 + len >= sizeof text)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    memcpy(text, t->rel, dlen);
    size_t n = dlen;
    if (dlen)
        text[n++] = '/';
    memcpy(text + n, target, len);
    text[n + len] = '\0';
    int rc = pathgate__policy_real_rel(real, sizeof real, t->r, t->base, text);
    if (rc == -ENAMETOOLONG)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    if (rc < 0)
        return PATHGATE_OK; /* leads out, loops: nothing there to judge */
    pathgate_policy_verdict v;
    if (!pathgate__policy_verdict(&v, t->r, t->base, real, strlen(real), PATHGATE__ACCESS_READ))
        return PATHGATE_OK;
    audit_hidden_at(t, "target", real, &v);
    return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
}

int pathgate__fs_policy_where(const pathgate__fs_target *t, pathgate_error *err)
{
    if (!t->policy || t->rel_len == 0)
        return PATHGATE_OK;
    char dir[PATHGATE_PATH_MAX + 1], real[PATHGATE_PATH_MAX + 1];
    const char *slash = pathgate__memrchr(t->rel, '/', t->rel_len);
    if (!slash)
        return PATHGATE_OK; /* in the base's own directory: the name says it all */
    size_t dlen = (size_t)(slash - t->rel), nlen = t->rel_len - dlen - 1;
    memcpy(dir, t->rel, dlen);
    dir[dlen] = '\0';
    if (pathgate__policy_real_rel(real, sizeof real, t->r, t->base, dir) < 0)
        return PATHGATE_OK; /* leads out, loops: the operation says so */
    size_t n = strlen(real);
    if (n == dlen && memcmp(real, dir, n) == 0)
        return PATHGATE_OK; /* no link on the way: the name was judged */
    if (n + 1 + nlen >= sizeof real)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    if (n)
        real[n++] = '/';
    memcpy(real + n, slash + 1, nlen);
    n += nlen;
    real[n] = '\0';
    pathgate_policy_verdict v;
    unsigned int d = pathgate__policy_verdict(&v, t->r, t->base, real, n, t->access);
    return refuse_change(t, d, &v, err);
}

int pathgate__fs_open(const pathgate__fs_target *t, const char *rel, int flags, unsigned int mode)
{
    if (t->policy)
        return policy_open(t, rel ? rel : t->rel, flags, mode);
    return pathgate__contain_open(t->base_fd, rel ? rel : t->rel, flags, mode, t->force_fallback);
}

int pathgate__fs_target_for_change(pathgate__fs_target *t, const char *op, const char *role,
                                   pathgate_resolver *r, const pathgate_fs_options *opts,
                                   const char *text, size_t len, pathgate_error *err)
{
    int rc = pathgate__fs_resolve_role(t, op, role, r, opts, text, len, err);
    return rc < 0 ? rc : pathgate__fs_policy_change(t, err);
}
