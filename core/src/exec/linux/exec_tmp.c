/* exec_tmp.c - the private temporary directory: make and remove. */
#define _GNU_SOURCE
#include "exec_tmp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
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
        return pathgate__error_set(err, PATHGATE_EIO,
                                   "cannot create the private temporary directory: %s",
                                   strerrordesc_np(e));
    }
    tmp->fd = open(tmp->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (tmp->fd < 0) {
        int e = errno;
        rmdir(tmp->path);
        pathgate__free(alloc, tmp->path);
        tmp->path = NULL;
        return pathgate__error_set(err, PATHGATE_EIO,
                                   "cannot open the private temporary directory: %s",
                                   strerrordesc_np(e));
    }
    return PATHGATE_OK;
}

/* Opens the directory `name` in dirfd for reading without following a
 * symlink; an unreadable one (mode 0) is made 0700 first, through the
 * O_PATH descriptor of that very directory (never by a path that could be
 * swapped for a symlink). */
static int open_subdir(int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 || errno != EACCES)
        return fd;
    int p = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (p < 0)
        return -1;
    char proc[40];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", p);
    if (chmod(proc, 0700) == 0) /* the fd is a directory: nothing to follow */
        fd = openat(p, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(p);
    return fd;
}

/* Moves every entry of directory `sub` (an fd) up into `top` under fresh
 * names. Returns how many moved. */
static long hoist(int top, int sub, unsigned long *serial, long *budget)
{
    _Alignas(struct pg_dirent64) char buf[4096];
    long moved = 0, n;
    if (lseek(sub, 0, SEEK_SET) < 0)
        return 0;
    while (*budget > 0 && (n = syscall(SYS_getdents64, sub, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n; (*budget)--) {
            const struct pg_dirent64 *d = (const struct pg_dirent64 *)(buf + off);
            off += d->d_reclen;
            const char *name = d->d_name;
            if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
                continue;
            char fresh[48];
            snprintf(fresh, sizeof fresh, ".pathgate-rm-%lu", (*serial)++);
            if (renameat(sub, name, top, fresh) == 0)
                moved++;
        }
    }
    return moved;
}

/* Empties the directory `top` (an fd it consumes) without following a
 * symlink and without ever climbing through `..`: entries are unlinked; a
 * non-empty subdirectory has its entries moved up into `top` (rename
 * within the tree) and is removed once empty. At most two descriptors are
 * open, whatever the depth. Every process that could change the tree has
 * exited before this runs; the work is bounded. */
static void empty_tree(int top)
{
    _Alignas(struct pg_dirent64) char buf[4096];
    long budget = REMOVE_BUDGET;
    unsigned long serial = 0;
    for (int progress = 1; progress && budget > 0;) {
        progress = 0;
        if (lseek(top, 0, SEEK_SET) < 0)
            break;
        long n;
        while (budget > 0 && (n = syscall(SYS_getdents64, top, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n; budget--) {
                const struct pg_dirent64 *d = (const struct pg_dirent64 *)(buf + off);
                off += d->d_reclen;
                const char *name = d->d_name;
                if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
                    continue;
                if (unlinkat(top, name, 0) == 0 || unlinkat(top, name, AT_REMOVEDIR) == 0) {
                    progress = 1;
                    continue;
                }
                if (errno != ENOTEMPTY && errno != EEXIST)
                    continue;
                int sub = open_subdir(top, name);
                if (sub < 0)
                    continue;
                if (hoist(top, sub, &serial, &budget) > 0)
                    progress = 1;
                close(sub);
            }
        }
    }
    close(top);
}

void pathgate__exec_tmp_remove(pathgate__exec_tmp *tmp, const pathgate_allocator *alloc)
{
    if (tmp->fd >= 0) {
        int top = openat(tmp->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (top < 0 && errno == EACCES) {
            char proc[40]; /* tmp->fd is O_PATH of the directory itself */
            snprintf(proc, sizeof proc, "/proc/self/fd/%d", tmp->fd);
            if (chmod(proc, 0700) == 0)
                top = openat(tmp->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        }
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
