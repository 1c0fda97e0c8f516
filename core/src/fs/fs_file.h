/*
 * fs_file.h - internal: regular-file reads and the atomic write
 * (fs_file.c), with the checks of an operation that changes its operand
 * and the size and thread options.
 */
#ifndef PATHGATE_FS_FILE_H
#define PATHGATE_FS_FILE_H

#include <sys/stat.h>

#include "fs_policy.h"

/* The options with their defaults applied (opts may be NULL). */
uint64_t pathgate__fs_max_file(const pathgate_fs_options *opts);
uint64_t pathgate__fs_grep_max_file(const pathgate_fs_search_options *opts);
unsigned int pathgate__fs_threads(const pathgate_fs_search_options *opts);

/* PATHGATE_ETOOLARGE with "File '<address>' is larger than the N-byte
 * size cap": the message of every size cap. */
int pathgate__fs_fail_large(pathgate_error *err, const pathgate__fs_target *t, uint64_t cap);

/*
 * Opens t's target for reading as a regular file (O_RDONLY|O_NONBLOCK,
 * then fstat): the fd, or a negative pathgate code with the message set.
 * *st gets the fstat.
 */
int pathgate__fs_open_regular(const pathgate__fs_target *t, pathgate__os_stat *st,
                              pathgate_error *err);

/* Reads the whole regular file fd (size hint from st) into *data (allocated
 * with a; NUL-terminated), *len. PATHGATE_ETOOLARGE (nothing allocated)
 * when it holds more than cap bytes, whatever st says; another negative
 * pathgate code on failure. */
int pathgate__fs_slurp(char **data, size_t *len, const pathgate_allocator *a, int fd,
                       const pathgate__os_stat *st, uint64_t cap);

/* Room for a temp file's name ".pathgate-<16 hex>.tmp" and a NUL. */
#define PATHGATE__FS_TEMP_NAME_CAP 64

/* Creates a temp file with a fresh random name (written to tmp) in dirfd,
 * O_CREAT|O_EXCL|O_NOFOLLOW with access (O_WRONLY or O_RDWR), mode 0666
 * less the umask: the fd or -errno. */
int pathgate__fs_create_temp(int dirfd, char tmp[PATHGATE__FS_TEMP_NAME_CAP], int access);

/*
 * The atomic write of fs.h: content to t's target. Creates missing parents
 * when `make_parents`. A negative pathgate code with the message set.
 */
int pathgate__fs_replace_file(const pathgate__fs_target *t, const void *content, size_t len,
                              const pathgate_fs_options *opts, pathgate_error *err);

/* What an edit read: the file open as fd, and its fstat when it was read. */
typedef struct pathgate__fs_guard {
    int fd;
    pathgate__os_stat st;
} pathgate__fs_guard;

/* pathgate__fs_replace_file_if's answer when the guarded file changed
 * before the commit: nothing was written (no message set). */
#define PATHGATE__FS_CHANGED 1

/* pathgate__fs_replace_file, committed only while the file g describes is
 * unchanged and still the one the name leads to, checked just before the
 * rename (g NULL: always). Once the check passes, g->fd is closed (and set
 * to -1) before the rename: nothing of pathgate's holds the file being
 * replaced (Windows refuses to rename over a file open without
 * FILE_SHARE_DELETE, and over any open file without POSIX semantics).
 * 0, PATHGATE__FS_CHANGED (g->fd still open), or a negative code. */
int pathgate__fs_replace_file_if(const pathgate__fs_target *t, const void *content, size_t len,
                                 pathgate__fs_guard *g, const pathgate_fs_options *opts,
                                 pathgate_error *err);

/* PATHGATE_EACCES with the message when t's entry may not be written:
 * its base is read-only, the directory it lives in (its deepest existing
 * parent) lies inside a read-only base, or it is a directory that holds a
 * read-only base; PATHGATE_EPOLICY when the policy protects it (deny_write
 * by name) or, a directory, holds anything the policy hides or protects;
 * else 0. Marks t as written (its opens are judged for writing) and is
 * the operation's audit event. */
int pathgate__fs_check_writable(pathgate__fs_target *t, pathgate_error *err);

/* The same for an entry of the directory open as dirfd beneath t's base
 * (the very directory an operation is about to change). */
int pathgate__fs_check_dir_writable(const pathgate__fs_target *t, int dirfd, pathgate_error *err);

/* pathgate__fs_resolver, pathgate__fs_resolve then
 * pathgate__fs_check_writable: the prologue of every operation that
 * changes its operand. */
int pathgate__fs_target_for_write(pathgate__fs_target *t, const char *op,
                                  pathgate_resolver *resolver, const pathgate_fs_options *opts,
                                  const char *text, size_t len, pathgate_error *err);

/* Writes all of p[0..len) to fd (EINTR retried): 0 or -errno. */
int pathgate__fs_write_all(int fd, const char *p, size_t len);

#endif
