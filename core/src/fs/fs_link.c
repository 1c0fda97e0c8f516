/* fs_link.c - link (a hard link), symlink (a relative target that stays
 * inside) and readlink (a target only when it stays inside). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_entry.h"
#include "fs_policy.h"
#include "fs_target.h"
#include "fs_text.h"
#include "resolver_internal.h"
#include "text.h"

/* The entry of a new name: its directory must exist and be writable, the
 * name must be free. 0 with e open, or a failure with err set. */
static int new_name(pathgate__fs_entry *e, const pathgate__fs_target *t, pathgate_error *err)
{
    if (t->base_flags & PATHGATE_BASE_READ_ONLY)
        return pathgate__fs_fail(err, PATHGATE_EACCES, t, PATHGATE__FS_FILE);
    if (t->rel_len == 0)
        return pathgate__fs_fail_exists(err, t->address);
    int rc = pathgate__fs_entry_find(e, t, 0);
    if (rc < 0)
        return pathgate__fs_fail_parent(err, rc, t);
    if ((rc = pathgate__fs_entry_writable(t, e, err)) >= 0 && e->exists &&
        (e->st.type != PATHGATE__OS_T_LNK || (rc = pathgate__fs_policy_link_hidden(t, err)) >= 0))
        rc = pathgate__fs_fail_exists(err, t->address); /* (a link to what is hidden is too) */
    if (rc < 0)
        pathgate__fs_entry_close(e);
    return rc;
}

/* ---------------------------------------------------------------- link */

int pathgate_fs_link(pathgate_buf *path, pathgate_resolver *resolver, const char *source,
                     size_t source_len, const char *destination, size_t destination_len,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!source || !destination)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    const pathgate_allocator *alloc = pathgate__resolver_allocator(r);
    pathgate__fs_target *src = pathgate__malloc(alloc, 2 * sizeof *src);
    if (!src)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    pathgate__fs_target *dst = src + 1;
    pathgate__fs_entry se = {-1, 0, {0}, {0}}, de = {-1, 0, {0}, {0}};
    int rc;
    /* the source too is judged for writing: a second name for a protected
     * file would be a way to change it */
    if ((rc = pathgate__fs_target_for_change(src, "link", "source", r, opts, source, source_len,
                                             err)) < 0 ||
        (rc = pathgate__fs_target_for_change(dst, "link", "destination", r, opts, destination,
                                             destination_len, err)) < 0)
        goto done;
    if (src->base_flags & PATHGATE_BASE_READ_ONLY) {
        rc = pathgate__fs_fail(err, PATHGATE_EACCES, src, PATHGATE__FS_FILE);
        goto done;
    }
    if (src->rel_len == 0) {
        rc = pathgate__fs_fail(err, PATHGATE_EISDIR, src, PATHGATE__FS_FILE);
        goto done;
    }
    if ((rc = pathgate__fs_entry_find(&se, src, 0)) < 0) {
        rc = pathgate__fs_fail_errno(err, rc, src, PATHGATE__FS_FILE);
        goto done;
    }
    if (!se.exists) {
        rc = pathgate__fs_fail(err, PATHGATE_ENOTFOUND, src, PATHGATE__FS_FILE);
        goto done;
    }
    if (se.st.type == PATHGATE__OS_T_DIR) {
        rc = pathgate__fs_fail(err, PATHGATE_EISDIR, src, PATHGATE__FS_FILE);
        goto done;
    }
    if (se.st.type == PATHGATE__OS_T_LNK && pathgate__fs_leads_out(src)) {
        rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, src, PATHGATE__FS_FILE);
        goto done;
    }
    if (se.st.type == PATHGATE__OS_T_LNK && (rc = pathgate__fs_policy_link_hidden(src, err)) < 0)
        goto done; /* a link to what the policy hides is hidden too */
    /* a second name for a file of a read-only base would make it writable */
    if ((rc = pathgate__fs_entry_writable(src, &se, err)) < 0 || (rc = new_name(&de, dst, err)) < 0)
        goto done;
    int e = -pathgate__os_linkat(se.dirfd, se.name, de.dirfd, de.name);
    if (e) {
        if (e == EEXIST)
            rc = pathgate__fs_fail_exists(err, dst->address);
        else if (e == EXDEV)
            rc = pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                                     "Cannot link '%s' to '%s': they are on different filesystems",
                                     dst->address, src->address);
        else
            rc = pathgate__fs_fail_errno(err, -e, dst, PATHGATE__FS_FILE);
        goto done;
    }
    if (path && pathgate__buf_set(path, alloc, dst->address, dst->address_len) < 0)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
done:
    pathgate__fs_entry_close(&se);
    pathgate__fs_entry_close(&de);
    pathgate__free(alloc, src);
    return rc;
}

/* ------------------------------------------------------------- symlink */

/* How many directory levels dirfd lies below the base (walking up through
 * `..` to the base's own directory): >= 0, or -EXDEV when the filesystem
 * root comes first, or -errno. */
static int depth_below(int dirfd, int base_fd)
{
    pathgate__os_stat base, st;
    int se = pathgate__os_statat(base_fd, "", 0, &base);
    if (se < 0 || (se = pathgate__os_statat(dirfd, "", 0, &st)) < 0)
        return se;
    int cur = -1, depth = 0, rc = -ELOOP;
    for (; depth <= PATHGATE_PATH_MAX / 2; depth++) {
        if (st.dev == base.dev && st.ino == base.ino) {
            rc = depth;
            break;
        }
        int up = pathgate__os_openat(cur >= 0 ? cur : dirfd, "..",
                                     PATHGATE__OS_O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
        if (up < 0) {
            rc = up;
            break;
        }
        pathgate__os_stat us;
        if (pathgate__os_statat(up, "", 0, &us) < 0 || (us.dev == st.dev && us.ino == st.ino)) {
            rc = -EXDEV; /* `..` of the filesystem root is itself */
            pathgate__os_close(up);
            break;
        }
        if (cur >= 0)
            pathgate__os_close(cur);
        cur = up;
        st = us;
    }
    if (cur >= 0)
        pathgate__os_close(cur);
    return rc;
}

/* The same depth where depth_below meets -EXDEV, as on a backend whose
 * `..` cannot be opened (Windows: its walk applies `..` lexically): from
 * the real relative path of the new name's directory beneath the base
 * (every link on the way followed), checked to name the very directory
 * held as dirfd. >= 0, or -errno. */
static int depth_of_real_rel(int dirfd, const pathgate__fs_target *t)
{
    char parent[PATHGATE_PATH_MAX + 1], real[PATHGATE_PATH_MAX + 1];
    size_t n = t->rel_len;
    while (n > 0 && t->rel[n - 1] != '/')
        n--;
    n = n > 0 ? n - 1 : 0;
    memcpy(parent, t->rel, n);
    parent[n] = '\0';
    int rc = pathgate__contain_real_rel(real, sizeof real, t->base_fd, parent, t->force_fallback);
    if (rc < 0)
        return rc;
    int again = pathgate__contain_open(
        t->base_fd, real, PATHGATE__OS_O_PATH | O_DIRECTORY | O_CLOEXEC, 0, t->force_fallback);
    if (again < 0)
        return again;
    pathgate__os_stat a, b;
    rc = pathgate__os_statat(again, "", 0, &a);
    if (rc == 0)
        rc = pathgate__os_statat(dirfd, "", 0, &b);
    pathgate__os_close(again);
    if (rc < 0)
        return rc;
    if (a.dev != b.dev || a.ino != b.ino)
        return -EXDEV; /* moved meanwhile: no depth to trust */
    int depth = real[0] != '\0';
    for (const char *c = real; *c; c++)
        depth += *c == '/';
    return depth;
}

/* 1 when target, read from a directory `depth` levels below the base,
 * never climbs above it. */
static int stays_inside(const char *target, size_t len, long depth)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && target[j] != '/')
            j++;
        size_t n = j - i;
        if (n == 2 && target[i] == '.' && target[i + 1] == '.') {
            if (--depth < 0)
                return 0;
        } else if (n > 0 && !(n == 1 && target[i] == '.')) {
            depth++;
        }
        i = j + 1;
    }
    return 1;
}

int pathgate_fs_symlink(pathgate_buf *path, pathgate_resolver *resolver, const char *target,
                        size_t target_len, const char *address, size_t len,
                        const pathgate_fs_options *opts, pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!target || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int rc = pathgate__text_check(target, target_len, PATHGATE_PATH_MAX, err);
    if (rc < 0)
        return rc;
    char quoted[96];
    pathgate__fs_quote(quoted, sizeof quoted - 1, target, target_len);
    if (target_len == 0)
        return pathgate__error_set(err, PATHGATE_EINVAL, "A symlink target must not be empty");
    if (target[0] == '/')
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "Symlink target '%s' is absolute: it must be relative and stay "
                                   "inside the base",
                                   quoted);
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target t;
    if ((rc = pathgate__fs_target_for_change(&t, "symlink", NULL, r, opts, address, len, err)) <
            0 ||
        (rc = pathgate__fs_policy_link_target(&t, target, target_len, err)) < 0)
        return rc;
    pathgate__fs_entry e;
    if ((rc = new_name(&e, &t, err)) < 0)
        return rc;
    int depth = depth_below(e.dirfd, t.base_fd);
    if (depth == -EXDEV) /* `..` refused (Windows), or out of the base: ask the walk */
        depth = depth_of_real_rel(e.dirfd, &t);
    if (depth < 0) {
        rc = pathgate__fs_fail_errno(err, depth, &t, PATHGATE__FS_FILE);
    } else if (!stays_inside(target, target_len, depth)) {
        rc = pathgate__error_set(err, PATHGATE_EINVAL,
                                 "Symlink target '%s' leads out of the base of '%s'", quoted,
                                 t.address);
    } else {
        char buf[PATHGATE_PATH_MAX + 1];
        memcpy(buf, target, target_len);
        buf[target_len] = '\0';
        int le = pathgate__os_symlinkat(buf, e.dirfd, e.name);
        if (le == -ENOSYS) /* Windows: pathgate makes no links there (docs/windows.md) */
            rc = pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                                     "Cannot make symlink '%s': this system makes no links",
                                     t.address);
        else if (le < 0)
            rc = le == -EEXIST ? pathgate__fs_fail_exists(err, t.address)
                               : pathgate__fs_fail_errno(err, le, &t, PATHGATE__FS_FILE);
    }
    pathgate__fs_entry_close(&e);
    if (rc == 0 && path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return rc;
}

/* ------------------------------------------------------------ readlink */

int pathgate_fs_readlink(pathgate_buf *target, pathgate_resolver *resolver, const char *address,
                         size_t len, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!target || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(target);
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, "readlink", resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    pathgate__fs_entry e;
    if ((rc = pathgate__fs_entry_find(&e, &t, 0)) < 0)
        return pathgate__fs_fail_errno(err, rc, &t, PATHGATE__FS_FILE);
    char buf[PATHGATE_PATH_MAX + 1];
    long n = -1;
    if (!e.exists)
        rc = pathgate__fs_fail(err, PATHGATE_ENOTFOUND, &t, PATHGATE__FS_FILE);
    else if (e.st.type != PATHGATE__OS_T_LNK)
        rc = pathgate__error_set(err, PATHGATE_ENOTLINK, "'%s' is not a symbolic link", t.address);
    else if (pathgate__fs_leads_out(&t))
        rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, &t, PATHGATE__FS_FILE);
    else if ((rc = pathgate__fs_policy_link_hidden(&t, err)) < 0)
        ;
    else if ((n = pathgate__os_readlinkat(e.dirfd, e.name, buf, sizeof buf)) == -ENAMETOOLONG)
        rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, &t, PATHGATE__FS_FILE);
    else if (n < 0)
        rc = pathgate__fs_fail_errno(err, n == -EINVAL ? -ENOENT : (int)n, &t, PATHGATE__FS_FILE);
    pathgate__fs_entry_close(&e);
    if (rc == 0 && pathgate__buf_set(target, t.alloc, buf, (size_t)n) < 0)
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return rc;
}
