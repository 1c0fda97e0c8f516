/*
 * fs_stat.h - internal: a stat result of an entry (fs_stat.c).
 */
#ifndef PATHGATE_FS_STAT_H
#define PATHGATE_FS_STAT_H

#include "pathgate/fs.h"
#include "os.h"

/* Fills out (path, type, size, mode, times) from a stat of the entry at
 * address; 0 or PATHGATE_ENOMEM. */
int pathgate__fs_stat_fill(pathgate_fs_stat_result *out, const pathgate_allocator *a,
                           const char *address, size_t len, const pathgate__os_stat *sx);

#endif
