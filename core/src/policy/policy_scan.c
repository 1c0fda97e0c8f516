/*
 * policy_scan.c - what the policy denies below a directory: the check a
 * delete or a move of a directory needs (nothing hidden or protected may
 * go with it), and the enumeration the command view needs to mask or
 * mount read-only what matches when a command starts.
 *
 * The walk opens every directory relative to its parent with
 * O_NOFOLLOW|O_DIRECTORY (a symlink is an entry, never followed), reads a
 * whole listing before going down (one buffer per level, from the
 * store's allocator), reports a denied directory without entering it,
 * and does not enter a directory under which no rule can match
 * (pathgate__policy_store_may_deny_below). A directory it cannot read fails the
 * scan: what cannot be seen is not known to be allowed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "pathgate/fs.h"
#include "policy_internal.h"

#define SCAN_BUF 16384

typedef struct scan {
    const pathgate__policy_store *store;
    const pathgate_allocator *a;
    size_t base, alt_base;
    int has_alt;
    unsigned int access;
    pathgate__scan_fn fn;
    void *ctx;
    char path[PATHGATE_PATH_MAX + 1]; /* rel of the entry */
    size_t root_len;                  /* of the scanned directory in path */
    char alt[PATHGATE_PATH_MAX + 1];  /* the same entry under alt */
    size_t alt_root_len;
} scan;

/* Appends "/name" to buf at len (len 0: no slash): the new length, or 0
 * when it does not fit. */
static size_t put(char *buf, size_t len, const char *name, size_t nlen)
{
    size_t n = len + (len ? 1 : 0) + nlen;
    if (n > PATHGATE_PATH_MAX)
        return 0;
    if (len)
        buf[len++] = '/';
    memcpy(buf + len, name, nlen);
    buf[n] = '\0';
    return n;
}

static int scan_dir(scan *s, int fd, size_t len, size_t alen, int depth)
{
    if (depth > PATHGATE_FS_MAX_DEPTH)
        return -ELOOP; /* deeper than any walk goes: not known to be allowed */
    size_t cap = SCAN_BUF, used = 0;
    char *buf = pathgate__malloc(s->a, cap);
    if (!buf)
        return -ENOMEM;
    /* the whole listing first: no fd kept while below */
    int rc = pathgate__os_dir_read_all(fd, s->a, &buf, &cap, &used, SCAN_BUF);
    size_t off = 0;
    pathgate__os_dirent d;
    while (rc == 0 && pathgate__os_dir_next(buf, used, &off, &d)) {
        const char *name = d.name;
        size_t nlen = d.len;
        if ((nlen == 1 && name[0] == '.') || (nlen == 2 && name[0] == '.' && name[1] == '.'))
            continue;
        size_t n = put(s->path, len, name, nlen);
        size_t an = s->has_alt ? put(s->alt, alen, name, nlen) : 0;
        if (!n || (s->has_alt && !an)) {
            rc = -ENAMETOOLONG; /* cannot be judged: not known to be allowed */
            break;
        }
        unsigned char type = (unsigned char)d.type;
        if (type == PATHGATE__OS_T_UNKNOWN) {
            pathgate__os_stat st;
            int se = pathgate__os_statat(fd, name, PATHGATE__OS_STAT_NOFOLLOW, &st);
            if (se == -ENOENT)
                continue;
            if (se < 0) {
                rc = se;
                break;
            }
            type = st.type == PATHGATE__OS_T_DIR ? PATHGATE__OS_T_DIR : PATHGATE__OS_T_REG;
        }
        pathgate_policy_verdict v;
        unsigned int denied =
            pathgate__policy_store_verdict(&v, s->store, s->base, s->path, n, s->access);
        if (!denied && s->has_alt)
            denied =
                pathgate__policy_store_verdict(&v, s->store, s->alt_base, s->alt, an, s->access);
        size_t sub = s->root_len ? s->root_len + 1 : 0;
        if (denied) {
            rc = s->fn(s->ctx, s->path + sub, n - sub, type == PATHGATE__OS_T_DIR, denied, &v);
            if (rc)
                break;
            continue;
        }
        if (type != PATHGATE__OS_T_DIR)
            continue;
        if (!pathgate__policy_store_may_deny_below(s->store, s->base, s->path, n, s->access) &&
            !(s->has_alt &&
              pathgate__policy_store_may_deny_below(s->store, s->alt_base, s->alt, an, s->access)))
            continue;
        int cfd = pathgate__os_openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        if (cfd == -ENOENT)
            continue; /* gone since the listing */
        if (cfd < 0) {
            rc = cfd;
            break;
        }
        rc = scan_dir(s, cfd, n, an, depth + 1);
        pathgate__os_close(cfd);
    }
    pathgate__free(s->a, buf);
    return rc;
}

int pathgate__policy_store_scan(const pathgate__policy_store *store, size_t base, const char *rel,
                                int dirfd, size_t alt_base, const char *alt_rel,
                                unsigned int access, pathgate__scan_fn fn, void *ctx)
{
    const pathgate_allocator *a = pathgate__policy_store_allocator(store);
    scan *s = pathgate__malloc(a, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->store = store;
    s->a = a;
    s->base = base;
    s->alt_base = alt_base;
    s->has_alt = alt_rel != NULL;
    s->access = access;
    s->fn = fn;
    s->ctx = ctx;
    size_t len = strlen(rel), alen = alt_rel ? strlen(alt_rel) : 0;
    int rc = -ENAMETOOLONG;
    if (len <= PATHGATE_PATH_MAX && alen <= PATHGATE_PATH_MAX) {
        memcpy(s->path, rel, len + 1);
        s->root_len = len;
        if (alt_rel)
            memcpy(s->alt, alt_rel, alen + 1);
        s->alt_root_len = alen;
        /* a private fd: getdents moves its offset */
        int fd = pathgate__os_openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        rc = fd < 0 ? fd : scan_dir(s, fd, len, alen, 0);
        if (fd >= 0)
            pathgate__os_close(fd);
    }
    pathgate__free(a, s);
    return rc;
}

int pathgate__policy_store_enumerate(const pathgate__policy_store *s, size_t base,
                                     pathgate__scan_fn fn, void *ctx)
{
    if (!pathgate__policy_active(pathgate__policy_store_current(s), base))
        return 0;
    return pathgate__policy_store_scan(s, base, "", pathgate__policy_store_base_fd(s, base), 0,
                                       NULL, PATHGATE__ACCESS_WRITE, fn, ctx);
}
