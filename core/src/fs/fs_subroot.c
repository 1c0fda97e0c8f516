/* fs_subroot.c - subroot: a resolver whose one root is a directory inside
 * a base, as Go's Root.OpenRoot. The directory is opened beneath the base;
 * the new resolver opens it again by its real path and is kept only when
 * that is the very directory (device and inode) the contained open found. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "address.h"
#include "alloc.h"
#include "error.h"
#include "fs_entry.h"
#include "fs_target.h"
#include "resolver_policy.h"
#include "resolver_internal.h"

#define KEY_CAP 64

/* The key derived from a name: lower case, [a-z0-9_] kept, anything else
 * `_`, `d` in front when it does not start with a letter. */
static size_t derive_key(char out[KEY_CAP + 1], const char *name, size_t len)
{
    size_t n = 0;
    if (len == 0 || !((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')))
        out[n++] = 'd';
    for (size_t i = 0; i < len && n < KEY_CAP; i++) {
        char c = name[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        out[n++] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
    }
    out[n] = '\0';
    return n;
}

static int same_dir(int a, int b)
{
    pathgate__os_stat sa, sb;
    return pathgate__os_statat(a, "", 0, &sa) == 0 && pathgate__os_statat(b, "", 0, &sb) == 0 &&
           sa.dev == sb.dev && sa.ino == sb.ino;
}

/* The real path of the directory held as fd, checked to name that very
 * inode. 0 or -errno. */
static int real_path(char *out, size_t size, int fd, const pathgate__fs_target *t)
{
    int rc = pathgate__os_fd_path(fd, out, size);
    if (rc == -ENOSYS) {
        /* the OS cannot say: the base's host path and the real names
         * below it, checked below to be the very directory held */
        const char *hp = pathgate__resolver_base_host_path(t->r, t->base);
        char rel[PATHGATE_PATH_MAX + 1];
        rc = hp ? pathgate__contain_real_rel(rel, sizeof rel, t->base_fd, t->rel, t->force_fallback)
                : -ENOENT;
        if (rc == 0 && (size_t)snprintf(out, size, "%s%s%s", hp, *rel ? "/" : "", rel) >= size)
            rc = -ENAMETOOLONG;
    }
    if (rc < 0 || !out[0])
        return -ENOENT;
    int again = pathgate__os_open_root(out);
    if (again < 0)
        return again;
    int same = same_dir(fd, again);
    pathgate__os_close(again);
    return same ? 0 : -ENOENT;
}

int pathgate_fs_subroot(pathgate_resolver **out, pathgate_resolver *resolver, const char *address,
                        size_t len, const char *key, size_t key_len,
                        const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!out || !address || (!key && key_len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (key && !pathgate__address_key_valid(key, key_len))
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "a subroot's key must match [a-z][a-z0-9_]*");
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, "subroot", resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    int fd = pathgate__fs_open_dir(&t, err);
    if (fd < 0)
        return fd;
    int ro = (t.base_flags & PATHGATE_BASE_READ_ONLY) != 0;
    if (!ro) {
        int a = pathgate__resolver_dir_read_only(t.r, t.base, fd);
        int b = a == 1 ? 0 : pathgate__resolver_dir_holds_read_only(t.r, fd);
        if (a < 0 || b < 0) {
            pathgate__os_close(fd);
            return pathgate__fs_fail_errno(err, a < 0 ? a : b, &t, PATHGATE__FS_DIRECTORY);
        }
        ro = a == 1 || b == 1;
    }
    char host[PATHGATE_PATH_MAX + 1];
    if ((rc = real_path(host, sizeof host, fd, &t)) < 0) {
        pathgate__os_close(fd);
        return pathgate__error_set(err, PATHGATE_EIO,
                                   "The directory of '%s' has no real path to open a root at",
                                   t.address);
    }
    char derived[KEY_CAP + 1];
    if (!key) {
        const char *name = t.rel_len ? strrchr(t.address, '/') + 1 : strchr(t.address, ':') + 1;
        key_len = derive_key(derived, name, strlen(name));
        key = derived;
    }
    pathgate_base_spec spec = {key, key_len, host, strlen(host), ro ? PATHGATE_BASE_READ_ONLY : 0};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = &spec;
    o.nroots = 1;
    o.flags = pathgate__resolver_flags(t.r);
    o.allocator = pathgate__resolver_allocator(t.r);
    /* its events go where the parent's go (docs/policy.md) */
    o.audit_door = pathgate__resolver_audit(t.r, &o.audit, &o.audit_ctx);
    pathgate_resolver *nr = NULL;
    rc = pathgate_resolver_new(&nr, &o, err);
    if (rc == 0 && !same_dir(pathgate__resolver_base_fd(nr, 0), fd)) {
        /* the path led elsewhere by the time it was opened again */
        pathgate_resolver_free(nr);
        nr = NULL;
        rc = pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, &t, PATHGATE__FS_DIRECTORY);
    }
    const char *hp = rc == 0 ? pathgate__resolver_base_host_path(nr, 0) : NULL;
    if (rc == 0 && (rc = pathgate__policy_inherit(nr, t.r, t.base, hp, strlen(hp))) < 0) {
        /* the parent's rules must hold in it, or there is no subroot */
        pathgate_resolver_free(nr);
        nr = NULL;
        rc = rc == PATHGATE_ENOMEM
                 ? pathgate__error_set(err, rc, NULL)
                 : pathgate__error_set(err, PATHGATE_EIO,
                                       "The directory of '%s' has no real path to open a root at",
                                       t.address);
    }
    pathgate__os_close(fd);
    if (rc < 0)
        return rc;
    *out = nr;
    return PATHGATE_OK;
}
