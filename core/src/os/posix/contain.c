/*
 * contain.c (POSIX, and Windows) - opening a path beneath a directory fd:
 * the component walk (contain_walk.c) is the only way here. No path-only
 * handles, so directories are entered O_SEARCH where the system has it
 * (else O_RDONLY), and a probe looks at its final component with a stat
 * instead of opening it.
 */
#include "os.h"

#include <errno.h>
#include <fcntl.h>

#include "contain_walk.h"

#ifdef O_SEARCH
#define DIR_ENTER (O_SEARCH | O_DIRECTORY)
#else
#define DIR_ENTER (O_RDONLY | O_DIRECTORY)
#endif

static const pathgate__contain_handles handles = {DIR_ENTER, 0, pathgate__os_statat,
                                                  pathgate__os_readlinkat};

int pathgate__contain_open_how(int dirfd, const char *rel, int open_flags, unsigned int mode,
                               unsigned int how)
{
    if (!rel || dirfd < 0)
        return -EINVAL;
    if (rel[0] == '/')
        return -EXDEV;
    int no_links = (how & PATHGATE__CONTAIN_NO_LINKS) != 0;
    return pathgate__contain_walk_open(&handles, dirfd, rel, open_flags, mode, no_links);
}

int pathgate__contain_open(int dirfd, const char *rel, int open_flags, unsigned int mode,
                           int force_fallback)
{
    (void)force_fallback; /* the walk is the only way here */
    return pathgate__contain_open_how(dirfd, rel, open_flags, mode, 0);
}

int pathgate__contain_probe_how(int dirfd, const char *rel, unsigned int how)
{
    if (!rel || dirfd < 0)
        return -EINVAL;
    if (rel[0] == '/')
        return -EXDEV;
    return pathgate__contain_walk_probe(&handles, dirfd, rel,
                                        (how & PATHGATE__CONTAIN_NO_LINKS) != 0);
}

int pathgate__contain_probe(int dirfd, const char *rel, int force_fallback)
{
    (void)force_fallback;
    return pathgate__contain_probe_how(dirfd, rel, 0);
}

int pathgate__contain_real_rel(char *out, size_t cap, int dirfd, const char *rel,
                               int force_fallback)
{
    (void)force_fallback;
    if (!rel || dirfd < 0 || !out || cap == 0)
        return -EINVAL;
    if (rel[0] == '/')
        return -EXDEV;
    return pathgate__contain_walk_real_rel(&handles, out, cap, dirfd, rel);
}
