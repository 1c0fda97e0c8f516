/*
 * fs_delete.h - internal: emptying a directory through descriptors
 * (fs_delete.c), shared with remove_tree.
 */
#ifndef PATHGATE_FS_DELETE_H
#define PATHGATE_FS_DELETE_H

#include "pathgate/common.h"

/* Empties the directory dirfd (an O_RDONLY fd the caller owns) through
 * descriptors, never following a symlink; depth counts the levels above.
 * 0 or -errno. */
int pathgate__fs_remove_contents(int dirfd, const pathgate_allocator *a, int depth);

#endif
