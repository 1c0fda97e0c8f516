/*
 * fs_scandir.h - internal: one directory's listing, read whole and sorted
 * (fs_scandir.c), shared by the scandir and walk iterators.
 */
#ifndef PATHGATE_FS_SCANDIR_H
#define PATHGATE_FS_SCANDIR_H

#include <stddef.h>

#include "pathgate/common.h"

/* One entry of a listing: its name (in the listing's buffer) and its kind
 * as the directory says (PATHGATE__OS_T_DIR, PATHGATE__OS_T_REG, PATHGATE__OS_T_LNK, or PATHGATE__OS_T_OTHER; never
 * PATHGATE__OS_T_UNKNOWN: that is resolved with fstatat). */
typedef struct pathgate__fs_name {
    const char *name;
    size_t len;
    unsigned char type;
} pathgate__fs_name;

/* The entries of one directory, `.` and `..` left out, names no address
 * can spell skipped (counted), sorted by name (byte order). */
typedef struct pathgate__fs_listing {
    char *buf;
    size_t cap;
    pathgate__fs_name *names;
    size_t n, ncap;
    size_t skipped; /* names no address can spell */
    int read_error; /* the listing stopped early on a read error */
} pathgate__fs_listing;

/* Reads every entry of the directory fd (O_RDONLY) into L (reusing its
 * buffers). 0 or PATHGATE_ENOMEM; a read error ends the listing early
 * (read_error set). */
int pathgate__fs_listing_read(pathgate__fs_listing *L, int fd, const pathgate_allocator *a);
void pathgate__fs_listing_free(pathgate__fs_listing *L, const pathgate_allocator *a);

#endif
