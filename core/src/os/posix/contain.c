/*
 * contain.c (POSIX) - opening a path beneath a directory fd with the
 * component walk of contain_walk.c: no path-only handles, so directories
 * are entered O_SEARCH where the system has it (else O_RDONLY), and a
 * probe looks at its final component with fstatat instead of opening it.
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

static const pathgate__contain_handles handles = {DIR_ENTER, 0};

/* ------------------------------------------------------------- API */

int pathgate__contain_open_how(int dirfd, const char *rel, int open_flags, unsigned int mode,
                               unsigned int how)
{
    if (!rel || dirfd < 0)
        return -EINVAL;
    if (rel[0] == '/')
        return -EXDEV;
    int no_links = (how & PATHGATE__CONTAIN_NO_LINKS) != 0;
    return pathgate__contain_walk(dirfd, rel, open_flags, mode, 0, no_links, NULL, &handles);
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
    int rc = pathgate__contain_walk(dirfd, rel, 0, 0, 1, (how & PATHGATE__CONTAIN_NO_LINKS) != 0,
                                    NULL, &handles);
    return rc > 0 ? 0 : rc;
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
    pathgate__contain_names nm;
    pathgate__contain_names_init(&nm);
    int rc = pathgate__contain_walk(dirfd, rel, 0, 0, 1, 0, &nm, &handles);
    if (rc < 0 && rc != -ENOENT)
        return rc;
    if (nm.overflow || nm.len >= cap)
        return -ENAMETOOLONG;
    memcpy(out, nm.buf, nm.len + 1);
    return 0;
}
