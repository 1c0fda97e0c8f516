/*
 * contain_walk.h - internal to the backends built on POSIX calls
 * (os/posix/, and os/linux/ for its fallback): the component walk of
 * contain_walk.c.
 */
#ifndef PATHGATE_CONTAIN_WALK_H
#define PATHGATE_CONTAIN_WALK_H

#include <stddef.h>

#include "os.h"

/* The handles a backend walks with. */
typedef struct pathgate__contain_handles {
    /* open flags that enter a directory on the way (O_NOFOLLOW and
     * O_CLOEXEC are added) */
    int dir_enter;
    /* the open flag whose handle, with O_NOFOLLOW, is a final symlink
     * itself (Linux's path-only handle): the walk then reads the link through it,
     * and a probe opens its final component with that flag; 0 where the
     * OS has none (a probe then looks with fstatat and opens nothing) */
    int link_flag;
} pathgate__contain_handles;

/* The names the walk has gone through (real_rel): each level's name, so
 * that `..` can drop it. */
typedef struct pathgate__contain_names {
    char buf[PATHGATE_PATH_MAX + 1];
    size_t len;
    size_t depth;
    size_t at[PATHGATE_PATH_MAX / 2 + 2]; /* len before each level */
    int overflow;
} pathgate__contain_names;

void pathgate__contain_names_init(pathgate__contain_names *n);

/*
 * Walks rel (relative, < PATHGATE_PATH_MAX bytes) beneath dirfd one
 * component at a time and opens the last with flags | O_NOFOLLOW |
 * O_CLOEXEC: the fd, or a negative errno (-EXDEV for an escape). probe:
 * a missing directory on the way does not end the walk (the answer is
 * then -ENOENT unless something escapes); without a link_flag a probe
 * opens nothing and answers 0. no_links: any symlink is -ELOOP. nm (may be
 * NULL) gets the real names gone through.
 */
int pathgate__contain_walk(int dirfd, const char *rel, int flags, unsigned int mode, int probe,
                           int no_links, pathgate__contain_names *nm,
                           const pathgate__contain_handles *h);

#endif
