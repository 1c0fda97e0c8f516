/* fs_open.c - pathgate_fs_open (a descriptor opened beneath the base) and
 * the atomic handles (a temp file that takes its name on commit). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "os.h"
#include "error.h"
#include "fs_entry.h"
#include "fs_file.h"
#include "fs_policy.h"
#include "fs_target.h"

#define OPEN_ALL                                                                                   \
    (PATHGATE_FS_OPEN_READ | PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_APPEND |                    \
     PATHGATE_FS_OPEN_CREATE | PATHGATE_FS_OPEN_EXCL | PATHGATE_FS_OPEN_TRUNCATE)
#define OPEN_WRITING (PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_APPEND)

/* Most times a name that changes kind between the look and the open is
 * looked at again. */
#define RACE_RETRIES 8

static int check_flags(unsigned int flags, pathgate_error *err)
{
    if (flags & ~OPEN_ALL)
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown open flags");
    if (!(flags & (PATHGATE_FS_OPEN_READ | OPEN_WRITING)))
        return pathgate__error_set(err, PATHGATE_EINVAL, "open needs READ or WRITE");
    if ((flags & (PATHGATE_FS_OPEN_CREATE | PATHGATE_FS_OPEN_TRUNCATE)) && !(flags & OPEN_WRITING))
        return pathgate__error_set(err, PATHGATE_EINVAL, "CREATE and TRUNCATE need WRITE");
    if ((flags & PATHGATE_FS_OPEN_EXCL) && !(flags & PATHGATE_FS_OPEN_CREATE))
        return pathgate__error_set(err, PATHGATE_EINVAL, "EXCL needs CREATE");
    return PATHGATE_OK;
}

/* Clears O_NONBLOCK (set to open without blocking on a FIFO). */
static int make_blocking(int fd)
{
    return pathgate__os_set_blocking(fd);
}

/* What may be written at an existing entry: a regular file only. */
static int check_regular(const pathgate__fs_target *t, const pathgate__os_stat *st,
                         pathgate_error *err)
{
    if (st->type == PATHGATE__OS_T_REG)
        return PATHGATE_OK;
    return pathgate__fs_fail(err,
                             st->type == PATHGATE__OS_T_DIR ? PATHGATE_EISDIR : PATHGATE_ENOTREG, t,
                             PATHGATE__FS_FILE);
}

/*
 * The entry a write goes to, with the checks every write open makes: the
 * base and the directory the file lives in writable, an existing entry a
 * regular file (EXCL: no entry at all), a missing one allowed only with
 * CREATE. 0 with e open, or a failure with err set.
 */
static int write_entry(pathgate__fs_entry *e, const pathgate__fs_target *t, unsigned int flags,
                       pathgate_error *err)
{
    if (t->base_flags & PATHGATE_BASE_READ_ONLY)
        return pathgate__fs_fail(err, PATHGATE_EACCES, t, PATHGATE__FS_FILE);
    if (t->rel_len == 0)
        return pathgate__fs_fail(err, PATHGATE_EISDIR, t, PATHGATE__FS_FILE);
    int excl = (flags & PATHGATE_FS_OPEN_EXCL) != 0;
    if (!excl && pathgate__fs_leads_out(t))
        return pathgate__fs_fail(err, PATHGATE_EINVALIDPATH, t, PATHGATE__FS_FILE);
    int rc = pathgate__fs_entry_find(e, t, !excl);
    if (rc < 0)
        return pathgate__fs_fail_parent(err, rc, t);
    if ((rc = pathgate__fs_entry_writable(t, e, err)) < 0)
        goto fail;
    if (e->exists) {
        rc = excl ? pathgate__fs_fail_exists(err, t->address) : check_regular(t, &e->st, err);
        if (rc < 0)
            goto fail;
    } else if (!(flags & PATHGATE_FS_OPEN_CREATE)) {
        rc = pathgate__fs_fail(err, PATHGATE_ENOTFOUND, t, PATHGATE__FS_FILE);
        goto fail;
    }
    return PATHGATE_OK;
fail:
    pathgate__fs_entry_close(e);
    return rc;
}

static int open_write(const pathgate__fs_target *t, unsigned int flags, unsigned int mode,
                      pathgate_error *err)
{
    int oflags = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    oflags |= (flags & PATHGATE_FS_OPEN_READ) ? O_RDWR : O_WRONLY;
    if (flags & PATHGATE_FS_OPEN_APPEND)
        oflags |= O_APPEND;
    if (flags & PATHGATE_FS_OPEN_TRUNCATE)
        oflags |= O_TRUNC;
    for (int attempt = 0;; attempt++) {
        pathgate__fs_entry e;
        int rc = write_entry(&e, t, flags, err);
        if (rc < 0)
            return rc;
        int f = oflags;
        if (!e.exists) /* the entry decides: create only what is missing */
            f |= O_CREAT | O_EXCL;
        int fd = pathgate__os_openat(e.dirfd, e.name, f, mode);
        int oerr = fd < 0 ? -fd : 0;
        pathgate__fs_entry_close(&e);
        if (fd < 0) {
            /* changed kind since the look (now a symlink, or created or
             * removed by someone else): look again */
            if ((oerr == ELOOP || oerr == EEXIST || oerr == ENOENT) &&
                !(flags & PATHGATE_FS_OPEN_EXCL) && attempt < RACE_RETRIES)
                continue;
            if (oerr == EEXIST)
                return pathgate__fs_fail_exists(err, t->address);
            if (oerr == ENXIO) /* a FIFO without a reader swapped in */
                return pathgate__fs_fail(err, PATHGATE_ENOTREG, t, PATHGATE__FS_FILE);
            return pathgate__fs_fail_errno(err, -oerr, t, PATHGATE__FS_FILE);
        }
        pathgate__os_stat st;
        if ((rc = pathgate__os_statat(fd, "", 0, &st)) < 0) {
            rc = pathgate__fs_fail_errno(err, rc, t, PATHGATE__FS_FILE);
        } else if ((rc = check_regular(t, &st, err)) >= 0 && (rc = make_blocking(fd)) < 0) {
            rc = pathgate__fs_fail_errno(err, rc, t, PATHGATE__FS_FILE);
        }
        if (rc < 0) {
            pathgate__os_close(fd);
            return rc;
        }
        return fd;
    }
}

int pathgate_fs_open(int *fd, pathgate_buf *path, pathgate_resolver *resolver, const char *address,
                     size_t len, unsigned int flags, unsigned int mode,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!fd || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *fd = -1;
    int rc = check_flags(flags, err);
    if (rc < 0)
        return rc;
    if (mode & ~0777u)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "mode may hold permission bits only (0777): never setuid, "
                                   "setgid or sticky");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target t;
    rc = flags & OPEN_WRITING
             ? pathgate__fs_target_for_change(&t, "open", NULL, r, opts, address, len, err)
             : pathgate__fs_target_of(&t, "open", r, opts, address, len, err);
    if (rc < 0)
        return rc;
    int f;
    if (flags & OPEN_WRITING) {
        f = open_write(&t, flags, mode ? (unsigned int)mode : 0666, err);
    } else {
        pathgate__os_stat st;
        f = pathgate__fs_open_regular(&t, &st, err);
        if (f >= 0 && (rc = make_blocking(f)) < 0) {
            pathgate__os_close(f);
            f = pathgate__fs_fail_errno(err, rc, &t, PATHGATE__FS_FILE);
        }
    }
    if (f < 0)
        return f;
    if (path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0) {
        pathgate__os_close(f);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    *fd = f;
    return PATHGATE_OK;
}

/* ------------------------------------------------------ atomic handles */

struct pathgate_fs_atomic {
    pathgate_allocator alloc;
    int dirfd; /* the directory the file lives in (PATHGATE__OS_O_PATH) */
    int excl;
    char tmp[PATHGATE__FS_TEMP_NAME_CAP];
    char name[PATHGATE__OS_NAME_MAX + 1];
    size_t address_len;
    char address[]; /* for messages */
};

/* The temp file's content and bits: a copy of the existing file (without
 * TRUNCATE), its permission bits, then the position. 0 or -errno. */
static int prepare_temp(int fd, const pathgate__fs_entry *e, unsigned int flags,
                        const pathgate_allocator *a)
{
    if (!e->exists)
        return 0;
    int rc = pathgate__os_fchmod(fd, e->st.mode & 0777);
    if (rc < 0)
        return rc;
    if (flags & PATHGATE_FS_OPEN_TRUNCATE)
        return 0;
    int in = pathgate__os_openat(e->dirfd, e->name,
                                 O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
    if (in < 0)
        return in;
    pathgate__os_stat st;
    rc = pathgate__os_statat(in, "", 0, &st);
    if (rc == 0 && st.type != PATHGATE__OS_T_REG)
        rc = -EINVAL;
    if (rc == 0)
        rc = pathgate__os_copy_fd(fd, in, a);
    pathgate__os_close(in);
    if (rc == 0 && !(flags & PATHGATE_FS_OPEN_APPEND)) {
        int64_t pos = pathgate__os_seek(fd, 0, SEEK_SET);
        rc = pos < 0 ? (int)pos : 0;
    }
    return rc;
}

int pathgate__fs_atomic_begin(pathgate_fs_atomic **out, int *fd, int *existed,
                              const pathgate__fs_target *t, unsigned int flags, pathgate_error *err)
{
    pathgate__fs_entry e;
    int rc = write_entry(&e, t, flags, err);
    if (rc < 0)
        return rc;
    pathgate_fs_atomic *a = pathgate__malloc(t->alloc, sizeof *a + t->address_len + 1);
    if (!a) {
        pathgate__fs_entry_close(&e);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    a->alloc = *t->alloc;
    a->excl = (flags & PATHGATE_FS_OPEN_EXCL) != 0;
    a->address_len = t->address_len;
    memcpy(a->address, t->address, t->address_len + 1);
    strcpy(a->name, e.name);
    int tmp_access = O_RDWR;
#ifdef PATHGATE__OS_APPEND_AT_OPEN
    /* Windows: set_append cannot make the descriptor append; opened
     * appending, the copy of the old content (written in order from the
     * start of the empty temp file) lands where it would anyway */
    if (flags & PATHGATE_FS_OPEN_APPEND)
        tmp_access |= O_APPEND;
#endif
    int tfd = pathgate__fs_create_temp(e.dirfd, a->tmp, tmp_access);
    if (tfd < 0) {
        rc = pathgate__fs_fail_errno(err, tfd, t, PATHGATE__FS_FILE);
        pathgate__fs_entry_close(&e);
        pathgate__free(t->alloc, a);
        return rc;
    }
    int e2 = prepare_temp(tfd, &e, flags, t->alloc);
    if (e2 == 0 && (flags & PATHGATE_FS_OPEN_APPEND)) {
        e2 = pathgate__os_set_append(tfd);
    }
    a->dirfd = e.dirfd; /* the handle keeps the directory */
    if (e2 < 0) {
        pathgate__os_close(tfd);
        pathgate_fs_atomic_abort(a);
        return pathgate__fs_fail_errno(err, e2, t, PATHGATE__FS_FILE);
    }
    if (existed)
        *existed = e.exists;
    *out = a;
    *fd = tfd;
    return PATHGATE_OK;
}

int pathgate_fs_atomic_open(pathgate_fs_atomic **out, int *fd, pathgate_buf *path,
                            pathgate_resolver *resolver, const char *address, size_t len,
                            unsigned int flags, const pathgate_fs_options *opts,
                            pathgate_error *err)
{
    if (path)
        pathgate_buf_dispose(path);
    if (!out || !fd || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    *fd = -1;
    int rc = check_flags(flags, err);
    if (rc < 0)
        return rc;
    if (!(flags & OPEN_WRITING))
        return pathgate__error_set(err, PATHGATE_EINVAL, "an atomic handle needs WRITE");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    pathgate__fs_target t;
    if ((rc = pathgate__fs_target_for_change(&t, "atomic_open", NULL, r, opts, address, len, err)) <
        0)
        return rc;
    pathgate_fs_atomic *a;
    int tfd;
    if ((rc = pathgate__fs_atomic_begin(&a, &tfd, NULL, &t, flags, err)) < 0)
        return rc;
    if (path && pathgate__buf_set(path, t.alloc, t.address, t.address_len) < 0) {
        pathgate__os_close(tfd);
        pathgate_fs_atomic_abort(a);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    *out = a;
    *fd = tfd;
    return PATHGATE_OK;
}

static void atomic_free(pathgate_fs_atomic *a)
{
    pathgate_allocator alloc = a->alloc;
    pathgate__os_close(a->dirfd);
    pathgate__free(&alloc, a);
}

int pathgate_fs_atomic_commit(pathgate_fs_atomic *a, int fd, pathgate_error *err)
{
    if (!a)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int e = 0;
    if (fd >= 0)
        e = -pathgate__os_fsync(fd);
    if (!e) {
        e = -pathgate__os_renameat(a->dirfd, a->tmp, a->dirfd, a->name,
                                   a->excl ? PATHGATE__OS_RENAME_NOREPLACE : 0);
    }
    int rc = PATHGATE_OK;
    if (e) {
        pathgate__os_unlinkat(a->dirfd, a->tmp, 0);
        if (e == EEXIST || e == ENOTEMPTY)
            rc = pathgate__fs_fail_exists(err, a->address);
        else if (e == EISDIR)
            rc = pathgate__error_set(err, PATHGATE_EISDIR, "'%s' is a directory", a->address);
        else {
            int code = pathgate__errno_to_code(-e);
            const char *why = pathgate__os_strerror(e);
            rc = code == PATHGATE_EIO || code == PATHGATE_EINVALIDPATH
                     ? pathgate__error_set(err, PATHGATE_EIO, "I/O error on '%s': %s", a->address,
                                           why ? why : "unknown")
                     : pathgate__error_set(err, code, "Cannot replace '%s': %s", a->address,
                                           why ? why : "unknown");
        }
    }
    atomic_free(a);
    return rc;
}

void pathgate_fs_atomic_abort(pathgate_fs_atomic *a)
{
    if (!a)
        return;
    pathgate__os_unlinkat(a->dirfd, a->tmp, 0);
    atomic_free(a);
}
