/* exec_tmp.c - the private temporary directory: make and remove. */
#define _GNU_SOURCE
#include "exec_tmp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"

#define TMP_TEMPLATE "/tmp/pathgate-exec-XXXXXX"
/* Upper bound on system calls spent removing one tree. */
#define REMOVE_BUDGET (1L << 20)

struct pg_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

int pathgate__exec_tmp_make(pathgate__exec_tmp *tmp, const pathgate_allocator *alloc,
                            pathgate_error *err)
{
    tmp->fd = -1;
    tmp->path = pathgate__strndup(alloc, TMP_TEMPLATE, strlen(TMP_TEMPLATE));
    if (!tmp->path)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (!mkdtemp(tmp->path)) {
        int e = errno;
        pathgate__free(alloc, tmp->path);
        tmp->path = NULL;
        return pathgate__error_set(err, PATHGATE_EIO, "cannot create the private temporary directory: %s",
                                   strerrordesc_np(e));
    }
    tmp->fd = open(tmp->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (tmp->fd < 0) {
        int e = errno;
        rmdir(tmp->path);
        pathgate__free(alloc, tmp->path);
        tmp->path = NULL;
        return pathgate__error_set(err, PATHGATE_EIO, "cannot open the private temporary directory: %s",
                                   strerrordesc_np(e));
    }
    return PATHGATE_OK;
}

static int open_subdir(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == EACCES && fchmodat(dirfd, name, 0700, 0) == 0)
        fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd;
}

/* Empties the directory `top` (an fd it consumes) iteratively with one fd
 * at a time: descend into a non-empty subdirectory, climb back through
 * `..` when a directory has been scanned; so a deep tree costs neither
 * stack nor descriptors. Every process that could change the tree has been
 * killed before this runs. */
static void empty_tree(int top)
{
    _Alignas(struct pg_dirent64) char buf[4096];
    int cur = top;
    long depth = 0;
    long budget = REMOVE_BUDGET;
    while (budget > 0) {
        if (lseek(cur, 0, SEEK_SET) < 0)
            break;
        long removed = 0, left = 0;
        int descended = 0;
        long n;
        while (!descended && (n = syscall(SYS_getdents64, cur, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n && !descended; budget--) {
                const struct pg_dirent64 *d = (const struct pg_dirent64 *)(buf + off);
                off += d->d_reclen;
                const char *name = d->d_name;
                if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
                    continue;
                if (unlinkat(cur, name, 0) == 0 || errno == ENOENT) {
                    removed++;
                    continue;
                }
                if (errno != EISDIR && errno != EPERM) {
                    left++;
                    continue;
                }
                if (unlinkat(cur, name, AT_REMOVEDIR) == 0) {
                    removed++;
                    continue;
                }
                int sub = (errno == ENOTEMPTY || errno == EEXIST) ? open_subdir(cur, name) : -1;
                if (sub < 0) {
                    left++;
                    continue;
                }
                close(cur);
                cur = sub;
                depth++;
                descended = 1;
            }
        }
        if (descended)
            continue;
        if (left && removed)
            continue; /* something moved: scan again */
        if (depth == 0)
            break;
        /* Scanned (emptied, or stuck): back to the parent, which retries
         * the directory (a stuck one uses up the budget, then we stop). */
        int up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(cur);
        if (up < 0)
            return;
        cur = up;
        depth--;
        budget--;
    }
    close(cur);
}

void pathgate__exec_tmp_remove(pathgate__exec_tmp *tmp, const pathgate_allocator *alloc)
{
    if (tmp->fd >= 0) {
        int top = openat(tmp->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (top < 0 && errno == EACCES && tmp->path && chmod(tmp->path, 0700) == 0)
            top = openat(tmp->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (top >= 0)
            empty_tree(top);
        close(tmp->fd);
        tmp->fd = -1;
    }
    if (tmp->path) {
        rmdir(tmp->path);
        pathgate__free(alloc, tmp->path);
        tmp->path = NULL;
    }
}
