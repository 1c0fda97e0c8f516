/*
 * fs_internal.h - internal: what the fs_*.c modules share.
 *
 *   fs_target.c  input text -> (base, rel, canonical address); messages
 *   fs_result.c  result arenas, lists, matches, time stamps, dispose
 *   fs_text.c    line windows, whitespace, UTF-8 repair, base64, edits
 *   fs_file.c    regular-file reads and the atomic write
 *   fs_walk.c    the contained directory walk of ls, grep and glob (one thread)
 *   fs_walk_plan.c  the walk split into tasks run on threads, in order
 *   fs_grep.c    grep (literal and PCRE2); fs_glob.c, fs_list.c, fs_read.c
 *   fs_iter.c    pull iterators over the streaming grep and glob
 *   fs_policy.c  how the operations apply the policy (policy_internal.h)
 */
#ifndef PATHGATE_FS_INTERNAL_H
#define PATHGATE_FS_INTERNAL_H

#include <sys/stat.h>
#include <sys/types.h>

#include "pathgate/fs.h"
#include "os.h"

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
    /* the policy (fs_policy.c) */
    const char *op;      /* the operation, as audit events name it */
    const char *role;    /* "source" / "destination" of a move, else NULL */
    unsigned int access; /* PATHGATE__ACCESS_READ, or _WRITE once checked writable */
    int policy;          /* rules may apply in this base: opens look for links */
    int quiet;           /* emit no audit event (an internal call) */
    char address[2 * PATHGATE_PATH_MAX + 2];
} pathgate__fs_target;

/* Options version marking an internal call whose events are someone
 * else's (the pull iterators' walk thread, a move's own delete). */
#define PATHGATE__FS_OPTIONS_QUIET_VERSION (0x40000000u | PATHGATE_FS_OPTIONS_VERSION)

/* The resolver of (resolver, opts): resolver, or the session's; NULL (and
 * err filled) for misuse. */
pathgate_resolver *pathgate__fs_resolver(pathgate_resolver *resolver,
                                         const pathgate_fs_options *opts, pathgate_error *err);

/*
 * Resolves text (NULL: the default search root, the session cwd or the
 * first root) into t, for the operation `op` (its name in audit events).
 * Canonical input is split lexically without touching the registry; any
 * other form goes through the resolver (with the session's cwd as base)
 * with require_exists = 0 and the token it mints is released at once. An
 * address the policy hides (deny_read, by name) fails like one that does
 * not resolve. PATHGATE_EINVALIDPATH / PATHGATE_ECAPACITY (agent message),
 * ENOMEM. A failure is an audit event.
 */
int pathgate__fs_resolve(pathgate__fs_target *t, const char *op, pathgate_resolver *r,
                         const pathgate_fs_options *opts, const char *text, size_t len,
                         pathgate_error *err);
/* The same for one operand of a move (role "source" / "destination"). */
int pathgate__fs_resolve_role(pathgate__fs_target *t, const char *op, const char *role,
                              pathgate_resolver *r, const pathgate_fs_options *opts,
                              const char *text, size_t len, pathgate_error *err);

/* pathgate__fs_resolve_role then pathgate__fs_policy_change: the prologue
 * of a toolkit operation (fs_toolkit.h) that changes its operand, whose
 * read-only checks are its own (fs_entry.h). r is the resolver. */
int pathgate__fs_target_for_change(pathgate__fs_target *t, const char *op, const char *role,
                                   pathgate_resolver *r, const pathgate_fs_options *opts,
                                   const char *text, size_t len, pathgate_error *err);

/* pathgate__fs_resolver then pathgate__fs_resolve, and the operation's
 * "allowed" event: the prologue of every operation that reads its one
 * operand. */
int pathgate__fs_target_of(pathgate__fs_target *t, const char *op, pathgate_resolver *resolver,
                           const pathgate_fs_options *opts, const char *text, size_t len,
                           pathgate_error *err);

/* pathgate__fs_resolver, pathgate__fs_resolve then
 * pathgate__fs_check_writable: the prologue of every operation that
 * changes its operand. */
int pathgate__fs_target_for_write(pathgate__fs_target *t, const char *op,
                                  pathgate_resolver *resolver, const pathgate_fs_options *opts,
                                  const char *text, size_t len, pathgate_error *err);

/* contain_open of t's rel (or of rel_override when not NULL) with t's
 * containment flags: the fd or -errno. Under a policy, an open that meets
 * a symlink judges what it reached (and the rest of t's rel below it):
 * PATHGATE__OS_EHIDDEN when that is hidden, PATHGATE__OS_EPROTECTED when t changes it and it is
 * protected (pathgate__fs_fail_errno reports both). */
int pathgate__fs_open(const pathgate__fs_target *t, const char *rel, int flags, unsigned int mode);

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

/* --------------------------------------------------------------- text */

/* 1 when s is empty or only whitespace (as Python's str.strip() sees the
 * ASCII range: space, \t \n \v \f \r and \x1c-\x1f). */
int pathgate__fs_blank(const char *s, size_t len);

/* Number of '\n' in s[0..len). */
size_t pathgate__fs_count_newlines(const char *s, size_t len);
/* Writes all of p[0..len) to fd (EINTR retried): 0 or -errno. */
int pathgate__fs_write_all(int fd, const char *p, size_t len);

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
 * PATHGATE_EEDIT or PATHGATE_EAMBIGUOUS with the messages of fs.h, ENOMEM.
 */
int pathgate__fs_replace(char **result, size_t *result_len, size_t *count,
                         const pathgate_allocator *a, const char *content, size_t len,
                         const char *old_text, size_t old_len, const char *new_text, size_t new_len,
                         int replace_all, pathgate_error *err);

/* The edit of PATHGATE_FS_EDIT_LENIENT (fs_edit_lenient.c): old and new
 * (CRLF read as LF) against content (LF line breaks): the first exact
 * occurrence, else the first run of lines equal once trimmed, re-indented.
 * PATHGATE_EEDIT ("Could not find exact match for edit:\n<old>"),
 * ENOMEM. */
int pathgate__fs_replace_lenient(char **result, size_t *result_len, const pathgate_allocator *a,
                                 const char *content, size_t len, const char *old_text,
                                 size_t old_len, const char *new_text, size_t new_len,
                                 pathgate_error *err);
/* s with every "\r\n" written "\n" (allocated with a); NULL on ENOMEM. */
char *pathgate__fs_crlf_to_lf(const pathgate_allocator *a, const char *s, size_t len,
                              size_t *out_len);

/* Shortest quote of user text that fits in `room` bytes: copies at most
 * room bytes (cut on a UTF-8 boundary, ending "...") into out (room + 1
 * bytes). Returns its length. */
size_t pathgate__fs_quote(char *out, size_t room, const char *s, size_t len);

/* --------------------------------------------------------------- files */

/* The options with their defaults applied (opts may be NULL). */
uint64_t pathgate__fs_max_file(const pathgate_fs_options *opts);
uint64_t pathgate__fs_grep_max_file(const pathgate_fs_search_options *opts);
unsigned int pathgate__fs_threads(const pathgate_fs_search_options *opts);
/* 0, or PATHGATE_EINVAL with the message when opts (may be NULL) has a
 * version this library does not know. */
int pathgate__fs_search_check(const pathgate_fs_search_options *opts, pathgate_error *err);
/* The options every operation has, of search options (may be NULL). */
#define PATHGATE__FS_OF(search) ((search) ? &(search)->fs : NULL)

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
 * rename (g NULL: always). 0, PATHGATE__FS_CHANGED, or a negative code. */
int pathgate__fs_replace_file_if(const pathgate__fs_target *t, const void *content, size_t len,
                                 const pathgate__fs_guard *g, const pathgate_fs_options *opts,
                                 pathgate_error *err);

/*
 * The one edit of a file (pathgate_fs_edit is one op, pathgate_fs_edits
 * many): the ops applied in order, each to the result of the one before,
 * all or nothing. Unless PATHGATE_FS_DRY_RUN is in opts->flags, the edit
 * holds the edit lock of the
 * file's directory (every edit takes it, so edits in one directory, by any
 * thread or process, run one after another), and the file is replaced
 * atomically only when it is still what was read; when anyone changed it
 * meanwhile, the edit starts over on the new content. diff and occurrences
 * are optional.
 */
int pathgate__fs_edit_file(pathgate_buf *path, pathgate_buf *diff, size_t *occurrences,
                           pathgate_resolver *resolver, const char *address, size_t len,
                           const pathgate_fs_edit_op *ops, size_t count,
                           const pathgate_fs_options *opts, pathgate_error *err);

/* The pieces of that edit for the other read-modify-write of a file (the
 * text editor's str_replace and insert, editor.c): the edit lock of t's
 * directory (the fd to close, -1 when there is none to take, or
 * PATHGATE_ETIMEOUT with err filled after 10 s), how many times an edit
 * starts over, and the failure once it gives up (PATHGATE_ETIMEOUT). */
int pathgate__fs_edit_lock(const pathgate__fs_target *t, pathgate_error *err);
#define PATHGATE__FS_EDIT_ATTEMPTS 16
int pathgate__fs_edit_gave_up(const pathgate__fs_target *t, pathgate_error *err);

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

/* Empties the directory dirfd (an O_RDONLY fd the caller owns) through
 * descriptors, never following a symlink; depth counts the levels above.
 * 0 or -errno. */
int pathgate__fs_remove_contents(int dirfd, const pathgate_allocator *a, int depth);

/* Fills out (path, type, size, mode, times) from a stat of the entry at
 * address; 0 or PATHGATE_ENOMEM. */
int pathgate__fs_stat_fill(pathgate_fs_stat_result *out, const pathgate_allocator *a,
                           const char *address, size_t len, const pathgate__os_stat *sx);

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
    int is_dir;           /* shallow walks only: a directory */
    int is_link;          /* a symlink resolving inside the base to a regular
                       file (or, shallow, a directory) ... */
    pathgate__os_stat st; /* ... and its target's fstat (only then) */
} pathgate__walk_file;

/* What a walk could not see (summed over the tasks emitted). */
typedef struct pathgate__walk_stats {
    int truncated;          /* a level deeper than PATHGATE_FS_MAX_DEPTH */
    size_t unreadable_dirs; /* directories that could not be opened/read */
    size_t skipped_names;   /* names no address can spell */
    size_t skipped_denied;  /* entries the policy hides (deny_read) */
} pathgate__walk_stats;

/*
 * The walk splits the tree into tasks (slices of directory listings, each
 * with everything below its directories), runs them on up to `threads`
 * threads, and hands each task's output ("sink") to `emit` on the calling
 * thread in path order, so the result does not depend on the threads.
 * threads == 1 walks on the calling thread alone, as one task.
 */
typedef struct pathgate__walk {
    const pathgate__fs_target *t;      /* root of the walk: a directory */
    const struct pathgate__glob *glob; /* NULL: every file */
    int shallow; /* visit the root's direct entries (directories too), no deeper */
    unsigned int threads;
    void *ctx;
    /* Per-thread scratch (optional): made once per thread. */
    int (*scratch_new)(void *ctx, void **scratch);
    void (*scratch_free)(void *ctx, void *scratch);
    /* Per-task output: made before the task runs, freed after emit. */
    int (*sink_new)(void *ctx, void **sink);
    void (*sink_free)(void *ctx, void *sink);
    /* Called per regular file in path order within a task: a negative
     * return fails the walk, 1 ends the task (its sink is full), 2 asks
     * for the sink to be emitted now (honoured in a one-thread walk). */
    int (*visit)(void *ctx, void *scratch, void *sink, const pathgate__walk_file *f);
    /* Called on the calling thread with each task's sink, in order: a
     * negative return fails the walk, 1 ends it with success. */
    int (*emit)(void *ctx, void *sink);
    pathgate__walk_stats stats; /* out */
    /* set by pathgate__fs_walk: what the policy hides (NULL: nothing) */
    const struct pathgate__walk_policy *policy;
} pathgate__walk;

/* Runs the walk. 0, a negative code of a callback, or a negative pathgate
 * code with the message set (the root cannot be opened). Entries the
 * policy hides are left out (counted in skipped_denied), by name and, for
 * a walk whose root was reached through a symlink, by where they are. */
int pathgate__fs_walk(pathgate__walk *w, pathgate_error *err);

/* ------------------------------------------------------------- policy */

/* What a walk needs to leave hidden entries out: the operand, and the real
 * path of the walk's root when a symlink led to it (else NULL). */
struct pathgate__walk_policy {
    const pathgate__fs_target *t;
    const char *real_root;
    size_t real_len;
};
typedef struct pathgate__walk_policy pathgate__walk_policy;

/* 1 when the entry `name` of the directory dir_rel (rel from the base) is
 * hidden from listings. */
int pathgate__fs_policy_hidden(const pathgate__walk_policy *wp, const char *dir_rel,
                               size_t dir_rel_len, const char *name, size_t name_len);

/* The real path of t's (a directory) rel when a symlink is on the way to
 * it, checked to be the directory rootfd holds: into buf (cap bytes),
 * returns 1; 0 when no link is on the way; -errno. */
int pathgate__fs_policy_real_root(const pathgate__fs_target *t, int rootfd, char *buf, size_t cap);

/* The audit event of t's decision (nothing when quiet or no callback). */
void pathgate__fs_audit(const pathgate__fs_target *t, const char *outcome, const char *reason,
                        const pathgate_policy_verdict *v);
/* The "hidden" event of a listing that left count entries out (none for 0). */
void pathgate__fs_audit_hidden(const pathgate__fs_target *t, size_t count);

/* The policy parts of pathgate__fs_check_writable: deny_write by name
 * (before the read-only checks), what a directory holds (after). */
int pathgate__fs_policy_writable(const pathgate__fs_target *t, pathgate_error *err);
int pathgate__fs_policy_tree(const pathgate__fs_target *t, pathgate_error *err);

/* The policy part of a toolkit change (pathgate__fs_target_for_change):
 * marks t as written (its opens are judged for writing), deny_write by
 * name (PATHGATE_EPOLICY, with its event); else the "allowed" event. */
int pathgate__fs_policy_change(pathgate__fs_target *t, pathgate_error *err);

/* For an entry a toolkit operation reached by following symlinks
 * (fs_entry.c): the directory dir (dlen bytes of rel text, symlinks and
 * `..` in it, "" for the base) held as dirfd, and the name in it ("." for
 * dirfd itself). Judges where that really is for t->access: 0,
 * PATHGATE__OS_EHIDDEN hidden, PATHGATE__OS_EPROTECTED protected, -EAGAIN when dir no longer leads to
 * dirfd, -errno. 0 at once without a policy. */
int pathgate__fs_policy_entry(const pathgate__fs_target *t, const char *dir, size_t dlen, int dirfd,
                              const char *name);

/* For a symlink t names (delete, move, readlink, lstat): PATHGATE_EINVALIDPATH (the
 * message and event of a hidden operand) when what it leads to is hidden;
 * else 0. */
int pathgate__fs_policy_link_hidden(const pathgate__fs_target *t, pathgate_error *err);

/* For the symlink t is about to become, with the target text `target`
 * (relative to t's directory): PATHGATE_EINVALIDPATH (message and event,
 * role "target") when the target, where it really leads, is hidden; else
 * 0. */
int pathgate__fs_policy_link_target(const pathgate__fs_target *t, const char *target, size_t len,
                                    pathgate_error *err);

/* t's entry judged where it really is when a symlink is on the way to
 * the directory it lives in (a final symlink is not followed: it is the
 * entry), for t->access: PATHGATE_EINVALIDPATH / PATHGATE_EPOLICY with the
 * message and event; else 0. For an operation that judges all its paths
 * before it opens any (apply_patch, the editor). */
int pathgate__fs_policy_where(const pathgate__fs_target *t, pathgate_error *err);

/* pathgate__fs_open when t->policy is set. */
int pathgate__fs_policy_open(const pathgate__fs_target *t, const char *rel, int flags,
                             unsigned int mode);

/* For a move of the directory src to dst: PATHGATE_EPOLICY (event and
 * message) when something below src is hidden or protected where it is
 * or would be protected under dst; else 0. */
int pathgate__fs_policy_move_tree(const pathgate__fs_target *src, const pathgate__fs_target *dst,
                                  pathgate_error *err);

#endif
