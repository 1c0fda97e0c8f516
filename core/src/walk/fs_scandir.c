/* fs_scandir.c - one directory's entries, read once through its fd and
 * handed out one at a time, with stat on demand; and the listing the walk
 * iterator shares. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "address.h"
#include "alloc.h"
#include "error.h"
#include "fs_entry.h"
#include "fs_policy.h"
#include "fs_scandir.h"
#include "fs_stat.h"
#include "fs_target.h"
#include "resolver_policy.h"
#include "resolver_internal.h"

#define LISTING_BUF_MIN 32768

/* ------------------------------------------------------------ listings */

static int name_cmp(const void *pa, const void *pb)
{
    const pathgate__fs_name *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

int pathgate__fs_listing_read(pathgate__fs_listing *L, int fd, const pathgate_allocator *a)
{
    size_t used = 0;
    L->n = 0;
    L->skipped = 0;
    L->read_error = 0;
    int rc = pathgate__os_dir_read_all(fd, a, &L->buf, &L->cap, &used, LISTING_BUF_MIN);
    if (rc == -ENOMEM)
        return PATHGATE_ENOMEM;
    if (rc < 0)
        L->read_error = 1;
    size_t off = 0;
    pathgate__os_dirent d;
    while (pathgate__os_dir_next(L->buf, used, &off, &d)) {
        const char *name = d.name;
        size_t len = d.len;
        if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
            continue;
        if (!pathgate__address_name_listable(name, len)) {
            L->skipped++;
            continue;
        }
        unsigned char type = (unsigned char)d.type;
        if (type == PATHGATE__OS_T_UNKNOWN) {
            pathgate__os_stat st;
            if (pathgate__os_statat(fd, name, PATHGATE__OS_STAT_NOFOLLOW, &st) < 0)
                continue; /* gone meanwhile */
            type = st.type;
        }
        if (L->n == L->ncap) {
            size_t cap = L->ncap ? L->ncap * 2 : 64;
            pathgate__fs_name *nn = pathgate__realloc(a, L->names, cap * sizeof *nn);
            if (!nn)
                return PATHGATE_ENOMEM;
            L->names = nn;
            L->ncap = cap;
        }
        L->names[L->n].name = name;
        L->names[L->n].len = len;
        L->names[L->n].type = type;
        L->n++;
    }
    if (L->n > 1)
        qsort(L->names, L->n, sizeof *L->names, name_cmp);
    return PATHGATE_OK;
}

void pathgate__fs_listing_free(pathgate__fs_listing *L, const pathgate_allocator *a)
{
    pathgate__free(a, L->buf);
    pathgate__free(a, L->names);
    memset(L, 0, sizeof *L);
}

/* ------------------------------------------------------------- scandir */

struct pathgate_fs_scandir {
    const pathgate_allocator *a; /* the resolver's */
    pathgate__fs_target t;       /* the directory */
    pathgate__fs_target et;      /* the entry last returned (for stat) */
    int fd;
    size_t next;
    size_t skipped;
    size_t denied; /* entries the policy hides */
    pathgate__fs_listing L;
    pathgate_fs_dirent cur;
};

/* et = the entry n of d's directory; 0, or -1 when its rel would be
 * longer than PATHGATE_PATH_MAX. */
static int entry_target(pathgate_fs_scandir *d, pathgate__fs_target *et, const pathgate__fs_name *n)
{
    if (d->t.rel_len + 1 + n->len > PATHGATE_PATH_MAX)
        return -1;
    memcpy(et, &d->t, offsetof(pathgate__fs_target, address));
    memcpy(et->address, d->t.address, d->t.address_len);
    size_t at = d->t.address_len;
    et->address[at++] = '/';
    memcpy(et->address + at, n->name, n->len);
    et->address_len = at + n->len;
    et->address[et->address_len] = '\0';
    et->rel = et->address + d->t.prefix_len + 1;
    et->rel_len = et->address_len - d->t.prefix_len - 1;
    return 0;
}

/* Leaves out of the listing what the policy hides: names it hides (here,
 * or where the directory really is when a symlink led to it), and
 * symlinks leading to what it hides. 0 or a negative pathgate code with
 * err set. */
static int hide_denied(pathgate_fs_scandir *d, pathgate_error *err)
{
    char *real = pathgate__malloc(d->a, PATHGATE_PATH_MAX + 1);
    if (!real)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    int rr = pathgate__fs_policy_real_root(&d->t, d->fd, real, PATHGATE_PATH_MAX + 1);
    if (rr < 0) {
        pathgate__free(d->a, real);
        return pathgate__fs_fail_errno(err, rr, &d->t, PATHGATE__FS_DIRECTORY);
    }
    pathgate__walk_policy wp = {&d->t, rr == 1 ? real : NULL, rr == 1 ? strlen(real) : 0};
    size_t kept = 0;
    for (size_t i = 0; i < d->L.n; i++) {
        const pathgate__fs_name *n = &d->L.names[i];
        int hidden = pathgate__fs_policy_hidden(&wp, d->t.rel, d->t.rel_len, n->name, n->len);
        if (!hidden && n->type == PATHGATE__OS_T_LNK && entry_target(d, &d->et, n) == 0) {
            int fd = pathgate__fs_open(&d->et, NULL, PATHGATE__OS_O_PATH, 0);
            if (fd >= 0)
                pathgate__os_close(fd);
            hidden = fd == -PATHGATE__POLICY_ENOREAD;
        }
        if (hidden)
            d->denied++;
        else
            d->L.names[kept++] = *n;
    }
    d->L.n = kept;
    pathgate__free(d->a, real);
    pathgate__fs_audit_hidden(&d->t, d->denied);
    return PATHGATE_OK;
}

int pathgate_fs_scandir_open(pathgate_fs_scandir **out, pathgate_resolver *resolver,
                             const char *address, size_t len, const pathgate_fs_options *opts,
                             pathgate_error *err)
{
    if (!out || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    const pathgate_allocator *a = pathgate__resolver_allocator(r);
    pathgate_fs_scandir *d = pathgate__calloc(a, 1, sizeof *d);
    if (!d)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    d->a = a;
    d->fd = -1;
    int rc = pathgate__fs_resolve(&d->t, "scandir", r, opts, address, len, err);
    if (rc >= 0)
        pathgate__fs_audit(&d->t, "allowed", NULL, NULL);
    if (rc >= 0 && (rc = d->fd = pathgate__fs_open_dir(&d->t, err)) >= 0) {
        rc = pathgate__fs_listing_read(&d->L, d->fd, a);
        if (rc < 0)
            pathgate__error_set(err, rc, NULL);
        else if (d->t.policy)
            rc = hide_denied(d, err);
    }
    if (rc < 0) {
        pathgate_fs_scandir_free(d);
        return rc;
    }
    d->skipped = d->L.skipped;
    *out = d;
    return PATHGATE_OK;
}

static pathgate_fs_type type_of(unsigned char dt)
{
    return dt == PATHGATE__OS_T_REG   ? PATHGATE_FS_TYPE_FILE
           : dt == PATHGATE__OS_T_DIR ? PATHGATE_FS_TYPE_DIRECTORY
           : dt == PATHGATE__OS_T_LNK ? PATHGATE_FS_TYPE_SYMLINK
                                      : PATHGATE_FS_TYPE_OTHER;
}

int pathgate_fs_scandir_next(const pathgate_fs_dirent **out, pathgate_fs_scandir *d,
                             pathgate_error *err)
{
    if (!out || !d)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    pathgate__fs_target *et = &d->et;
    for (; d->next < d->L.n; d->next++) {
        const pathgate__fs_name *n = &d->L.names[d->next];
        /* "<address>/<name>": its rel must stay within PATHGATE_PATH_MAX */
        if (entry_target(d, et, n) < 0) {
            d->skipped++;
            continue;
        }
        d->cur.name = et->address + et->address_len - n->len;
        d->cur.name_len = n->len;
        d->cur.path = et->address;
        d->cur.path_len = et->address_len;
        d->cur.type = type_of(n->type);
        d->next++;
        *out = &d->cur;
        return 1;
    }
    return 0;
}

int pathgate_fs_scandir_stat(pathgate_fs_stat_result *out, pathgate_fs_scandir *d, int follow,
                             pathgate_error *err)
{
    if (!out || !d || !d->cur.path)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    const pathgate__fs_target *et = &d->et;
    pathgate__os_stat sx;
    int e;
    if (follow && d->cur.type == PATHGATE_FS_TYPE_SYMLINK) {
        int fd = pathgate__fs_open(et, NULL, PATHGATE__OS_O_PATH, 0);
        if (fd < 0)
            return pathgate__fs_fail_errno(err, fd, et, PATHGATE__FS_FILE);
        e = pathgate__os_statat(fd, "", PATHGATE__OS_STAT_BTIME, &sx);
        pathgate__os_close(fd);
    } else {
        e = pathgate__os_statat(d->fd, d->cur.name,
                                PATHGATE__OS_STAT_NOFOLLOW | PATHGATE__OS_STAT_BTIME, &sx);
    }
    if (e < 0)
        return pathgate__fs_fail_errno(err, e, et, PATHGATE__FS_FILE);
    if (pathgate__fs_stat_fill(out, et->alloc, et->address, et->address_len, &sx) < 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    return PATHGATE_OK;
}

size_t pathgate_fs_scandir_skipped(const pathgate_fs_scandir *d)
{
    return d ? d->skipped : 0;
}

size_t pathgate_fs_scandir_skipped_denied(const pathgate_fs_scandir *d)
{
    return d ? d->denied : 0;
}

void pathgate_fs_scandir_free(pathgate_fs_scandir *d)
{
    if (!d)
        return;
    const pathgate_allocator *a = d->a;
    if (d->fd >= 0)
        pathgate__os_close(d->fd);
    pathgate__fs_listing_free(&d->L, a);
    pathgate__free(a, d);
}
