/*
 * fs_internal.h - internal: what the fs_*.c modules share.
 *
 *   fs_target.c  input text -> (base, rel, canonical address); messages
 *   fs_result.c  result arenas, lists, matches, time stamps, dispose
 *   fs_text.c    line windows, whitespace, UTF-8 repair, base64, edits
 *   fs_file.c    regular-file reads and the atomic write
 *   fs_walk.c    the contained directory walk of grep and glob
 */
#ifndef PATHGATE_FS_INTERNAL_H
#define PATHGATE_FS_INTERNAL_H

#include <sys/stat.h>
#include <sys/types.h>

#include "pathgate/fs.h"

/* ------------------------------------------------------------- target */

/* A resolved operand: canonical address and where it lives. */
typedef struct pathgate__fs_target {
    pathgate_resolver *r;
    const pathgate_allocator *alloc; /* the resolver's */
    size_t base;
    int base_fd;
    unsigned int base_flags; /* PATHGATE_BASE_* */
    int force_fallback;
    size_t prefix_len; /* length of the base's own address in address */
    const char *rel;   /* into address; "" at the base */
    size_t rel_len;
    size_t address_len;
    char address[2 * PATHGATE_PATH_MAX + 2];
} pathgate__fs_target;

/* The resolver of (resolver, opts): resolver, or the session's; NULL (and
 * err filled) for misuse. */
pathgate_resolver *pathgate__fs_resolver(pathgate_resolver *resolver,
                                         const pathgate_fs_options *opts, pathgate_error *err);

/*
 * Resolves text (NULL: the default search root, the session cwd or the
 * first root) into t. Canonical input is split lexically without touching
 * the registry; any other form goes through the resolver (or the session)
 * with require_exists = 0 and the token it mints is released at once.
 * PATHGATE_EINVALIDPATH / PATHGATE_ECAPACITY (agent message), ENOMEM.
 */
int pathgate__fs_resolve(pathgate__fs_target *t, pathgate_resolver *r,
                         const pathgate_fs_options *opts, const char *text, size_t len,
                         pathgate_error *err);

/* pathgate__fs_resolver then pathgate__fs_resolve: the prologue of every
 * operation on one operand. */
int pathgate__fs_target_of(pathgate__fs_target *t, pathgate_resolver *resolver,
                           const pathgate_fs_options *opts, const char *text, size_t len,
                           pathgate_error *err);

/* contain_open of t's rel (or of rel_override when not NULL) with t's
 * containment flags: the fd or -errno. */
int pathgate__fs_open(const pathgate__fs_target *t, const char *rel, int flags, mode_t mode);

/* Nouns of the not-found message. */
typedef enum pathgate__fs_noun { PATHGATE__FS_FILE, PATHGATE__FS_DIRECTORY } pathgate__fs_noun;

/* Fills err with the standard message of code for t (see fs.h) and
 * returns code. */
int pathgate__fs_fail(pathgate_error *err, int code, const pathgate__fs_target *t,
                      pathgate__fs_noun noun);
/* Maps -errno through pathgate__errno_to_code (ENOTDIR on the way reads
 * as not found) and fails with the standard message. */
int pathgate__fs_fail_errno(pathgate_error *err, int neg_errno, const pathgate__fs_target *t,
                            pathgate__fs_noun noun);

/* ------------------------------------------------------------- results */

/* Copies s[0..len) plus a NUL into the arena at *arena; NULL on ENOMEM. */
char *pathgate__fs_arena_strdup(void **arena, const pathgate_allocator *a, const char *s,
                                size_t len);
/* Room for len bytes (not copied); NULL on ENOMEM. */
char *pathgate__fs_arena_alloc(void **arena, const pathgate_allocator *a, size_t len);
void pathgate__fs_arena_free(void **arena, const pathgate_allocator *a);

/* Appends an entry: path is copied (len bytes + NUL); st NULL = no
 * metadata. */
int pathgate__fs_list_push(pathgate_fs_list *list, const char *path, size_t len, int is_dir,
                           const struct stat *st);
int pathgate__fs_matches_push(pathgate_fs_matches *m, const char *path, size_t path_len,
                              uint64_t line, const char *text, size_t text_len);

/* ISO 8601 UTC with microseconds and "+00:00". */
void pathgate__fs_format_time(char out[PATHGATE_FS_TIME_LEN], int64_t sec, long nsec);

/* --------------------------------------------------------------- text */

/* 1 when s is empty or only whitespace (as Python's str.strip() sees the
 * ASCII range: space, \t \n \v \f \r and \x1c-\x1f). */
int pathgate__fs_blank(const char *s, size_t len);

/* Number of '\n' in s[0..len). */
size_t pathgate__fs_count_newlines(const char *s, size_t len);

/* Lines of s: '\n' ends a line; a final line without it counts. */
size_t pathgate__fs_count_lines(const char *s, size_t len);

/*
 * The window [offset, offset + limit) of the lines of s, each without its
 * terminator ("\n", or "\r\n"), joined with "\n", into out. *total gets
 * the line count. PATHGATE_ERANGE when offset >= total.
 */
int pathgate__fs_window(pathgate_buf *out, size_t *total, const pathgate_allocator *a,
                        const char *s, size_t len, uint64_t offset, uint64_t limit);

/* Length of s[0..len) with every invalid UTF-8 sequence replaced by U+FFFD;
 * writes it to out when out is not NULL (out must hold that many bytes). */
size_t pathgate__fs_utf8_repair(char *out, const char *s, size_t len);

/* Standard base64 (with padding) of data into out (allocated with a). */
int pathgate__fs_base64(pathgate_buf *out, const pathgate_allocator *a, const void *data,
                        size_t len);

/*
 * The edit of content: replaces old by new (every occurrence when
 * replace_all, else old must occur once), with the CRLF reading of fs.h.
 * *result gets the new content (allocated with a), *count the occurrences.
 * PATHGATE_EEDIT with the deepagents message, ENOMEM.
 */
int pathgate__fs_replace(char **result, size_t *result_len, size_t *count,
                         const pathgate_allocator *a, const char *content, size_t len,
                         const char *old_text, size_t old_len, const char *new_text,
                         size_t new_len, int replace_all, pathgate_error *err);

/* Shortest quote of user text that fits in `room` bytes: copies at most
 * room bytes (cut on a UTF-8 boundary, ending "...") into out (room + 1
 * bytes). Returns its length. */
size_t pathgate__fs_quote(char *out, size_t room, const char *s, size_t len);

/* --------------------------------------------------------------- files */

/*
 * Opens t's target for reading as a regular file (O_RDONLY|O_NONBLOCK,
 * then fstat): the fd, or a negative pathgate code with the message set.
 * *st gets the fstat.
 */
int pathgate__fs_open_regular(const pathgate__fs_target *t, struct stat *st, pathgate_error *err);

/* Reads the whole regular file fd (size hint from st) into *data (allocated
 * with a; NUL-terminated), *len. A negative pathgate code on failure. */
int pathgate__fs_slurp(char **data, size_t *len, const pathgate_allocator *a, int fd,
                       const struct stat *st);

/*
 * The atomic write of fs.h: content to t's target. Creates missing parents
 * when `make_parents`. A negative pathgate code with the message set.
 */
int pathgate__fs_replace_file(const pathgate__fs_target *t, const void *content, size_t len,
                              const pathgate_fs_options *opts, pathgate_error *err);

/* PATHGATE_EACCES with the message when t's entry may not be written:
 * its base is read-only, the directory it lives in (its deepest existing
 * parent) lies inside a read-only base, or it is a directory that holds a
 * read-only base; else 0. */
int pathgate__fs_check_writable(const pathgate__fs_target *t, pathgate_error *err);

/* The same for an entry of the directory open as dirfd beneath t's base
 * (the very directory an operation is about to change). */
int pathgate__fs_check_dir_writable(const pathgate__fs_target *t, int dirfd, pathgate_error *err);

/* ---------------------------------------------------------------- walk */

/* What the walk shows its visitor for each regular file (and, shallow,
 * each directory). */
typedef struct pathgate__walk_file {
    int dirfd;        /* the directory holding the entry (for openat) */
    const char *name; /* the entry's name */
    size_t name_len;
    const char *path; /* canonical address "<base>/<rel>" */
    size_t path_len;
    const char *rel; /* path from the base: "a/b/name" (a suffix of path) */
    size_t rel_len;
    const char *sub; /* path from the walk's root (a suffix of rel) */
    size_t sub_len;
    int is_dir;     /* shallow walks only: a directory */
    int is_link;    /* a symlink resolving inside the base to a regular
                       file (or, shallow, a directory) ... */
    struct stat st; /* ... and its target's fstat (only then) */
} pathgate__walk_file;

typedef struct pathgate__walk {
    const pathgate__fs_target *t; /* root of the walk: a directory */
    const struct pathgate__glob *glob; /* NULL: every file */
    int shallow; /* visit the root's direct entries (directories too), no deeper */
    /* Called per regular file in path order; a negative return stops the
     * walk with that code, 1 stops it with success. */
    int (*visit)(void *ctx, const pathgate__walk_file *f);
    void *ctx;
    int truncated; /* out: a level deeper than PATHGATE_FS_MAX_DEPTH */
} pathgate__walk;

/* Runs the walk. 0, a visitor's negative code, or a negative pathgate code
 * with the message set (the root cannot be opened). */
int pathgate__fs_walk(pathgate__walk *w, pathgate_error *err);

#endif
