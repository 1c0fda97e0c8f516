/*
 * os_common.h - internal to the backends built on POSIX calls (os/posix/,
 * and os/linux/, which compiles os_common.c too): the helpers both make
 * the same way.
 */
#ifndef PATHGATE_OS_COMMON_H
#define PATHGATE_OS_COMMON_H

#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "os.h"

/* PATHGATE__OS_T_* of a st_mode. */
unsigned int pathgate__os_type_of(unsigned int st_mode);

/* out from a struct stat (no birth time: POSIX has none). */
void pathgate__os_stat_of(pathgate__os_stat *out, const struct stat *st);

/* ts for futimens/utimensat from os.h's times (NULL: both now). */
void pathgate__os_utime_specs(struct timespec ts[2], const int64_t times[4]);

/* Copies in from offset off to its end onto out with pread and write
 * (a is for the buffer): 0 or a negative error. */
int pathgate__os_copy_rw(int out, int in, off_t off, const pathgate_allocator *a);

/* n bytes of /dev/urandom into buf: 0 or a negative error. */
int pathgate__os_urandom(unsigned char *buf, size_t n);

#endif
