/* fs_entry.c - the entry an address names, found beneath its base one
 * symlink at a time, and the messages the toolkit operations share. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "os.h"
#include "error.h"
#include "fs_entry.h"
#include "resolver_internal.h"
#include "fs_file.h"
#include "fs_policy.h"
#include "fs_target.h"

/* rel buffers: a rel, plus one spliced target, plus "/." */
#define REL_CAP (2 * PATHGATE_PATH_MAX + 4)

void pathgate__fs_entry_close(pathgate__fs_entry *e)
{
    if (e->dirfd >= 0)
        pathgate__os_close(e->dirfd);
    e->dirfd = -1;
}

static int is_dots(const char *name)
{
    return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* Opens the directory of buf (the rel of the entry, "" for the base) and
 * sets e->name; *dlen gets the length of buf's directory part (0: the
 * base). buf may gain a "." after a trailing '/'. */
static int open_dir_of(pathgate__fs_entry *e, const pathgate__fs_target *t, char *buf, size_t *dlen)
{
    size_t n = strlen(buf);
    *dlen = 0;
    e->name[0] = '.';
    e->name[1] = '\0';
    if (n == 0)
        return pathgate__fs_open(t, "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    if (buf[n - 1] == '/') { /* a target ending in '/': a directory */
        if (n + 2 >= REL_CAP)
            return -ENAMETOOLONG;
        buf[n++] = '.';
        buf[n] = '\0';
    }
    char *slash = strrchr(buf, '/');
    const char *name = slash ? slash + 1 : buf;
    if (strlen(name) > PATHGATE__OS_NAME_MAX)
        return -ENAMETOOLONG;
    if (is_dots(name)) { /* the entry is the directory buf names */
        *dlen = n;
        return pathgate__fs_open(t, buf, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    }
    strcpy(e->name, name);
    if (!slash)
        return pathgate__fs_open(t, "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    *slash = '\0';
    int fd = pathgate__fs_open(t, buf, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    *slash = '/';
    *dlen = (size_t)(slash - buf);
    return fd;
}

/* The entry a symlink led to, judged by the policy where it really is
 * (what the name was judged for, by resolve and the opens on the way, is
 * not where it is now). 0, or -errno with e closed. */
static int judge_followed(pathgate__fs_entry *e, const pathgate__fs_target *t, const char *buf,
                          size_t dlen)
{
    int rc = pathgate__fs_policy_entry(t, buf, dlen, e->dirfd, e->name);
    if (rc < 0) {
        pathgate__fs_entry_close(e);
        e->exists = 0;
    }
    return rc;
}

int pathgate__fs_entry_find(pathgate__fs_entry *e, const pathgate__fs_target *t, int follow)
{
    char buf[REL_CAP];
    char target[PATHGATE_PATH_MAX + 1];
    e->dirfd = -1;
    e->exists = 0;
    memset(&e->st, 0, sizeof e->st);
    if (t->rel_len >= PATHGATE_PATH_MAX + 1)
        return -ENAMETOOLONG;
    memcpy(buf, t->rel, t->rel_len);
    buf[t->rel_len] = '\0';
    for (int links = 0;;) {
        size_t dlen;
        int fd = open_dir_of(e, t, buf, &dlen);
        if (fd < 0)
            return fd;
        e->dirfd = fd;
        int err = -pathgate__os_statat(fd, e->name, PATHGATE__OS_STAT_NOFOLLOW, &e->st);
        if (err > 0) {
            if (err == ENOENT) {
                memset(&e->st, 0, sizeof e->st);
                return links ? judge_followed(e, t, buf, dlen) : 0;
            }
            pathgate__fs_entry_close(e);
            return -err;
        }
        e->exists = 1;
        if (!follow || e->st.type != PATHGATE__OS_T_LNK)
            return links ? judge_followed(e, t, buf, dlen) : 0;
        /* a symlink: splice its target in place of the name */
        if (++links > PATHGATE__CONTAIN_MAX_LINKS) {
            pathgate__fs_entry_close(e);
            return -ELOOP;
        }
        long len = pathgate__os_readlinkat(fd, e->name, target, sizeof target);
        pathgate__fs_entry_close(e);
        e->exists = 0;
        if (len < 0)
            return len == -EINVAL ? -EAGAIN : (int)len; /* EINVAL: replaced meanwhile */
        if (len == 0)
            return -ENOENT; /* an empty symlink, as the kernel says */
        if (target[0] == '/')
            return -EXDEV; /* absolute: leaves the base by definition */
        if (dlen + 1 + (size_t)len + 3 >= REL_CAP)
            return -ENAMETOOLONG;
        if (dlen)
            buf[dlen++] = '/';
        memcpy(buf + dlen, target, (size_t)len);
        buf[dlen + (size_t)len] = '\0';
    }
}

int pathgate__fs_leads_out(const pathgate__fs_target *t)
{
    return pathgate__contain_probe(t->base_fd, t->rel, t->force_fallback) == -EXDEV;
}

int pathgate__fs_fail_parent(pathgate_error *err, int neg_errno, const pathgate__fs_target *t)
{
    if (neg_errno == -ENOENT || neg_errno == -ENOTDIR)
        return pathgate__error_set(err, PATHGATE_ENOTFOUND, "Parent directory of '%s' not found",
                                   t->address);
    return pathgate__fs_fail_errno(err, neg_errno, t, PATHGATE__FS_FILE);
}

int pathgate__fs_fail_exists(pathgate_error *err, const char *address)
{
    return pathgate__error_set(err, PATHGATE_EEXIST, "'%s' already exists", address);
}

int pathgate__fs_entry_writable(const pathgate__fs_target *t, const pathgate__fs_entry *e,
                                pathgate_error *err)
{
    return pathgate__fs_check_dir_writable(t, e->dirfd, err);
}

int pathgate__fs_open_dir(const pathgate__fs_target *t, pathgate_error *err)
{
    int fd = pathgate__fs_open(t, NULL, O_RDONLY | O_DIRECTORY, 0);
    if (fd >= 0)
        return fd;
    if (fd == -ENOTDIR) { /* the last component, or a directory on the way? */
        int p = pathgate__fs_open(t, NULL, PATHGATE__OS_O_PATH, 0);
        if (p >= 0) {
            pathgate__os_close(p);
            return pathgate__fs_fail(err, PATHGATE_ENOTDIR, t, PATHGATE__FS_DIRECTORY);
        }
    }
    return pathgate__fs_fail_errno(err, fd, t, PATHGATE__FS_DIRECTORY);
}
