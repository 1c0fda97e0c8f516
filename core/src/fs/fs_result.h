/*
 * fs_result.h - internal: result arenas, lists, matches and time stamps
 * (fs_result.c).
 */
#ifndef PATHGATE_FS_RESULT_H
#define PATHGATE_FS_RESULT_H

#include <stdint.h>
#include <sys/stat.h>

#include "pathgate/fs.h"
#include "os.h"

/* Copies s[0..len) plus a NUL into the arena at *arena; NULL on ENOMEM. */
char *pathgate__fs_arena_strdup(void **arena, const pathgate_allocator *a, const char *s,
                                size_t len);
/* Room for len bytes (not copied); NULL on ENOMEM. */
char *pathgate__fs_arena_alloc(void **arena, const pathgate_allocator *a, size_t len);
void pathgate__fs_arena_free(void **arena, const pathgate_allocator *a);
/* Moves every block of *src into *dst (strings keep their addresses). */
void pathgate__fs_arena_adopt(void **dst, void **src);

/* Moves src's entries (and their strings) to the end of dst; src is left
 * empty. Both have the same allocator. 0 or PATHGATE_ENOMEM. */
int pathgate__fs_list_append(pathgate_fs_list *dst, pathgate_fs_list *src);
/* Moves src's matches to dst while dst holds fewer than max (truncated
 * when some are left, or src was truncated), and adds src's counts. */
int pathgate__fs_matches_append(pathgate_fs_matches *dst, pathgate_fs_matches *src, size_t max);

/* Appends an entry: path is copied (len bytes + NUL); st NULL = no
 * metadata. */
int pathgate__fs_list_push(pathgate_fs_list *list, const char *path, size_t len, int is_dir,
                           const pathgate__os_stat *st);
int pathgate__fs_matches_push(pathgate_fs_matches *m, const char *path, size_t path_len,
                              uint64_t line, const char *text, size_t text_len);

/* ISO 8601 UTC with microseconds and "+00:00". */
void pathgate__fs_format_time(char out[PATHGATE_FS_TIME_LEN], int64_t sec, long nsec);

#endif
