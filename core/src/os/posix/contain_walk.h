/*
 * contain_walk.h - the component walk beneath a directory handle, written
 * once over os.h's own calls (os/posix/contain_walk.c): the POSIX and the
 * Windows backends open with it (os/posix/contain.c), the Linux backend
 * falls back to it where the kernel's beneath-lookup is refused (os/linux/contain.c). What
 * differs between them is the handle a walk may hold.
 */
#ifndef PATHGATE_OS_CONTAIN_WALK_H
#define PATHGATE_OS_CONTAIN_WALK_H

#include <stddef.h>

#include "os.h"

typedef struct pathgate__contain_handles {
    /* the open flags a directory on the way is entered with (O_NOFOLLOW
     * is added): O_SEARCH | O_DIRECTORY, or a path-only handle's flag */
    int dir_enter;
    /* the backend's flag for a handle that only names its entry and, with
     * O_NOFOLLOW, opens a symlink as itself (os/linux/: its path-only open flag), or 0. With
     * it a probe opens its final component (one open and a readlink of
     * the handle), and a final symlink opened with it is read through
     * its handle and followed; without it a probe stats the final
     * component and opens nothing. */
    int path_only;
    /* the backend's own stat and readlink (pathgate__os_statat and
     * pathgate__os_readlinkat), handed in by the backend: the walk lives
     * in os/posix/ and calls into no backend's folder by itself, so the
     * Linux backend using it makes no circle of folders */
    int (*statat)(pathgate__os_fd dirfd, const char *name, unsigned int flags,
                  pathgate__os_stat *out);
    long (*readlinkat)(pathgate__os_fd dirfd, const char *name, char *buf, size_t size);
} pathgate__contain_handles;

/* Opens rel beneath dirfd with open_flags and mode, one component at a
 * time (docs/os.md): a handle or -errno (-EXDEV: an escape; -ELOOP: a
 * link where no_links forbids one, or too many). */
int pathgate__contain_walk_open(const pathgate__contain_handles *h, int dirfd, const char *rel,
                                int open_flags, unsigned int mode, int no_links);

/* Whether rel stays beneath dirfd, opening no handle it keeps: 0 (it
 * exists), -ENOENT (a miss that escapes nowhere), or another -errno. */
int pathgate__contain_walk_probe(const pathgate__contain_handles *h, int dirfd, const char *rel,
                                 int no_links);

/* The names the walk goes through, `..` and links applied, as the
 * directories store them (pathgate__contain_real_rel). 0 or -errno. */
int pathgate__contain_walk_real_rel(const pathgate__contain_handles *h, char *out, size_t cap,
                                    int dirfd, const char *rel);

#endif
