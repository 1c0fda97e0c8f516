/*
 * pathgate/fs.h - file operations for agent backends through canonical
 * addresses (docs/spec.md section 7): ls, read, write, edit, delete, grep,
 * glob, upload, download.
 *
 * Every operation takes text in any form the resolver accepts (canonical
 * address, legacy alias, file:// URI, host path inside a base, and text
 * relative to the session's cwd, or without a session to the first base),
 * re-resolves
 * it to (base, rel), and touches the filesystem only beneath the base's
 * directory fd (openat2 RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS, or the
 * O_NOFOLLOW walk): no host path string is ever joined or opened, so a
 * symlink swapped in after resolution cannot redirect an operation.
 * Results name canonical addresses only; no message names a host path.
 *
 * Rules shared by all operations:
 *  - Only regular files are read or written. Files are opened O_NONBLOCK
 *    and checked with fstat, so FIFOs, sockets and devices are refused
 *    (PATHGATE_ENOTREG) without blocking.
 *  - Writes are atomic: a temp file `.pathgate-<random>.tmp` is created
 *    O_CREAT|O_EXCL in the target's directory (beneath the base), written,
 *    fsync'd, and renamed over the target with renameat; on any failure it
 *    is unlinked and the old content is intact. The permission bits of a
 *    replaced file are kept (not its owner). A symlink at the target name
 *    is replaced by the new file (renameat never follows it); the file it
 *    pointed to is untouched, and a symlink leading out of the base makes
 *    the address invalid. So a dangling symlink can never create a file
 *    outside.
 *  - A base configured PATHGATE_BASE_READ_ONLY refuses write, edit,
 *    delete and upload with PATHGATE_EACCES.
 *  - Hard links are not detected: a hard link inside a base to a file
 *    outside it is read and written like any other file (the kernel's
 *    RESOLVE_BENEATH cannot see them either). Bind mounts likewise.
 *  - Walks (grep, glob) never follow a directory symlink (so there are no
 *    loops); a symlink to a regular file is followed only when it resolves
 *    inside the base; anything else is skipped. Walks hold one directory fd
 *    per level and stop at PATHGATE_FS_MAX_DEPTH levels. A directory
 *    renamed out of the base while a walk is inside it is not noticed (like
 *    a file renamed into the base, this needs write access on both sides).
 *
 * Error codes and agent-visible messages (err->message):
 *   PATHGATE_EINVALIDPATH  "Invalid path / not found" (unresolvable, escapes)
 *   PATHGATE_ECAPACITY     the registry-full message of resolver.h
 *   PATHGATE_ENOTFOUND     "File '<address>' not found" /
 *                          "Directory '<address>' not found"
 *   PATHGATE_EISDIR        "'<address>' is a directory"
 *   PATHGATE_ENOTDIR       "'<address>' is not a directory"
 *   PATHGATE_ENOTREG       "'<address>' is not a regular file"
 *   PATHGATE_EACCES        "Permission denied: '<address>'"
 *   PATHGATE_ERANGE        "Line offset N exceeds file length (M lines)"
 *   PATHGATE_EEDIT         "String not found in file: '<old>'",
 *                          "old_string must not be empty"
 *   PATHGATE_EAMBIGUOUS    "String '<old>' appears N times in file." (a
 *                          front end adds its own advice: deepagents'
 *                          replace_all=True, the CLI's --replace-all)
 *   PATHGATE_EIO           "I/O error on '<address>': <reason>"
 *   PATHGATE_EINVAL        misuse, or a bad pattern
 *   PATHGATE_ENOMEM
 * Messages longer than the error struct holds are cut; a quoted old_string
 * is shortened with "..." so that the rest of the message survives.
 *
 * Thread safety: any number of threads may run operations on one resolver
 * at once; a session serialises its own resolution. Results belong to one
 * thread at a time.
 */
#ifndef PATHGATE_FS_H
#define PATHGATE_FS_H

#include "common.h"
#include "resolver.h"
#include "session.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PATHGATE_FS_READ_LIMIT_DEFAULT 2000
/* What read returns for an empty (or whitespace-only) file. */
#define PATHGATE_FS_EMPTY_REMINDER "System reminder: File exists but has empty contents"
/* max_count of grep: no cap. */
#define PATHGATE_FS_NO_LIMIT ((size_t)-1)
/* Deepest directory level a walk enters below its root. */
#define PATHGATE_FS_MAX_DEPTH 256
/* Room for "YYYY-MM-DDTHH:MM:SS.ffffff+00:00" and a terminator. */
#define PATHGATE_FS_TIME_LEN 40

typedef struct pathgate_fs_options {
    unsigned int version; /* PATHGATE_FS_OPTIONS_VERSION */
    /* Relative input resolves against this session's cwd, and an omitted
     * address (grep, glob) means the cwd. Without a session, both mean the
     * first base (the first root, or the first mod when there is no root),
     * where a new session starts. When set, the resolver argument may be
     * NULL (the session's is used). */
    pathgate_session *session;
    unsigned int flags; /* PATHGATE_FS_* below */
    /* Whole-file answers (read returning base64, download) and read windows
     * refuse files larger than this with PATHGATE_ETOOLARGE; a read window
     * of a larger text file reads only up to the window's end.
     * 0 = PATHGATE_FS_MAX_FILE_DEFAULT. */
    uint64_t max_file_size;
} pathgate_fs_options;

#define PATHGATE_FS_MAX_FILE_DEFAULT ((uint64_t)64 << 20) /* 64 MiB */

/* ls: names and kinds only, from the directory entries: no fstatat per
 * entry, has_metadata 0 (a symlink is still opened beneath the base to
 * check where it leads). For callers that need no size or time. */
#define PATHGATE_FS_NO_METADATA 0x1u
/* read: the window keeps each line's "\r\n" as the file has it (without
 * the flag a "\r" before "\n" is dropped, as read always showed it); the
 * last line's terminator is left out either way. */
#define PATHGATE_FS_KEEP_CRLF 0x2u
/* edit, edits: check and count (and diff) the edits, write nothing. */
#define PATHGATE_FS_DRY_RUN 0x4u

/* Version 3: version 2 had grep_max_file_size and threads here (now in
 * pathgate_fs_search_options) and other flag values. */
#define PATHGATE_FS_OPTIONS_VERSION 3
#define PATHGATE_FS_OPTIONS_INIT                                                                   \
    {                                                                                              \
        PATHGATE_FS_OPTIONS_VERSION, NULL, 0, 0                                                    \
    }
/* Fills opts as PATHGATE_FS_OPTIONS_INIT does. 0, or PATHGATE_EINVAL when opts is
 * NULL or version is not PATHGATE_FS_OPTIONS_VERSION. For callers without C macros. */
PATHGATE_EXTERN int pathgate_fs_options_init(pathgate_fs_options *opts, unsigned int version);

/*
 * The options of the search family (grep, glob, their _each and _iter
 * forms), as git_clone_options holds a git_checkout_options: the options
 * every operation has, and what a search adds.
 */
typedef struct pathgate_fs_search_options {
    unsigned int version;   /* PATHGATE_FS_SEARCH_OPTIONS_VERSION */
    pathgate_fs_options fs; /* the session; fs.max_file_size is not used */
    unsigned int flags;     /* PATHGATE_FS_SEARCH_* below */
    /* grep: only files matching this glob (glob.h rules, relative to the
     * search root); NULL = every file, hidden ones included. */
    const char *glob;
    size_t glob_len;
    /* grep: at most this many matches (PATHGATE_FS_NO_LIMIT: all); the
     * result is truncated when more existed. */
    size_t max_count;
    /* Threads of the walk: 0 = every online core, 1 = the calling thread
     * only. Results are the same, in the same order. */
    unsigned int threads;
    /* grep skips (and counts in skipped_large) files larger than this.
     * 0 = PATHGATE_FS_GREP_MAX_FILE_DEFAULT. */
    uint64_t max_file_size;
} pathgate_fs_search_options;

#define PATHGATE_FS_GREP_MAX_FILE_DEFAULT ((uint64_t)1 << 30) /* 1 GiB */

/* grep: the pattern is a PCRE2 regular expression (UTF mode), not a
 * literal. */
#define PATHGATE_FS_SEARCH_REGEX 0x1u
/* grep: case-insensitive match (literal: ASCII letters; regex: PCRE2
 * caseless, Unicode). */
#define PATHGATE_FS_SEARCH_IGNORE_CASE 0x2u
/* glob: also fill size and modification time of each match (one fstatat
 * per match; ls always fills them). */
#define PATHGATE_FS_SEARCH_METADATA 0x4u
/* glob: deepagents' matching rules. A pattern without `/` matches a file
 * name at any depth, under dot-directories too (`*.yml` finds
 * `.github/workflows/ci.yml`, while `**` never enters a dot-directory),
 * and a leading `/` anchors the pattern to the search root (`/` + `*.py` is
 * `top.py` only). Without the flag, leading `/` are ignored and a pattern
 * without `/` is `**` + `/` + pattern. */
#define PATHGATE_FS_SEARCH_BASENAME 0x8u
/* grep: search every base (the roots, then the mods, in configuration
 * order) rather than one directory; the path must be NULL. max_count counts
 * over all of them. Without it an omitted path is the cwd (or the first
 * base), as everywhere. */
#define PATHGATE_FS_SEARCH_ALL_BASES 0x10u

#define PATHGATE_FS_SEARCH_OPTIONS_VERSION 1
#define PATHGATE_FS_SEARCH_OPTIONS_INIT                                                            \
    {                                                                                              \
        PATHGATE_FS_SEARCH_OPTIONS_VERSION, PATHGATE_FS_OPTIONS_INIT, 0, NULL, 0,                  \
            PATHGATE_FS_NO_LIMIT, 0, 0                                                             \
    }
/* Fills opts as PATHGATE_FS_SEARCH_OPTIONS_INIT does; 0 or PATHGATE_EINVAL
 * (NULL opts, unknown version). For callers without C macros. */
PATHGATE_EXTERN int pathgate_fs_search_options_init(pathgate_fs_search_options *opts,
                                                    unsigned int version);

/* ------------------------------------------------------------- results */

/* FileInfo: one entry of ls or glob. Strings live as long as the list. */
typedef struct pathgate_fs_info {
    const char *path; /* canonical address; a directory's ends in '/' */
    size_t path_len;
    int is_dir;
    int has_metadata; /* size, mtime and modified_at are set (for ls unless
                         PATHGATE_FS_NO_METADATA; for glob with
                         PATHGATE_FS_SEARCH_METADATA) */
    uint64_t size;    /* bytes; 0 for a directory */
    int64_t mtime_sec;
    long mtime_nsec;
    char modified_at[PATHGATE_FS_TIME_LEN]; /* ISO 8601 UTC, e.g.
                                              2024-05-01T12:34:56.123456+00:00 */
} pathgate_fs_info;

typedef struct pathgate_fs_list {
    pathgate_fs_info *items;
    size_t count;
    int truncated; /* some directory was deeper than PATHGATE_FS_MAX_DEPTH */
    /* The answer may be incomplete: incomplete is set when any of the
     * counts below is nonzero or truncated is set. */
    int incomplete;
    size_t unreadable_dirs; /* directories that could not be opened or read */
    size_t skipped_names;   /* entries whose names no address can spell and
                               read back (not UTF-8, holding `\` or a control
                               character, or with whitespace at either end) */
    /* private */
    size_t cap;
    void *arena;
    pathgate_allocator alloc;
    /* entries the host's policy hides (deny_read, pathgate/policy.h); also
     * makes incomplete */
    size_t skipped_denied;
} pathgate_fs_list;

#define PATHGATE_FS_LIST_INIT                                                                      \
    {                                                                                              \
        NULL, 0, 0, 0, 0, 0, 0, NULL, {NULL, NULL, NULL, NULL}, 0                                  \
    }
/* Frees and resets. NULL is a no-op. */
PATHGATE_EXTERN void pathgate_fs_list_dispose(pathgate_fs_list *list);

/* GrepMatch. */
typedef struct pathgate_fs_match {
    const char *path; /* canonical address of the file */
    size_t path_len;
    uint64_t line;    /* 1-based */
    const char *text; /* the line without its terminator (\n or \r\n);
                         invalid UTF-8 replaced by U+FFFD */
    size_t text_len;
} pathgate_fs_match;

typedef struct pathgate_fs_matches {
    pathgate_fs_match *items;
    size_t count;
    int truncated; /* max_count reached with more matches left */
    /* Parts not searched: incomplete is set when any count is nonzero
     * (or a directory deeper than PATHGATE_FS_MAX_DEPTH was not entered). */
    int incomplete;
    size_t unreadable_dirs;  /* directories that could not be opened or read */
    size_t unreadable_files; /* files that could not be opened or read */
    size_t skipped_names;    /* names no address can spell (see fs_list) */
    size_t skipped_large;    /* files over the search max_file_size */
    size_t files_scanned;    /* files searched (binary ones included) */
    /* private */
    size_t cap;
    void *arena;
    pathgate_allocator alloc;
    /* entries the host's policy hides (deny_read, pathgate/policy.h); also
     * makes incomplete */
    size_t skipped_denied;
} pathgate_fs_matches;

#define PATHGATE_FS_MATCHES_INIT                                                                   \
    {                                                                                              \
        NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, {NULL, NULL, NULL, NULL}, 0                         \
    }
PATHGATE_EXTERN void pathgate_fs_matches_dispose(pathgate_fs_matches *matches);

typedef enum pathgate_fs_encoding {
    PATHGATE_FS_UTF8 = 0,  /* "utf-8" */
    PATHGATE_FS_BASE64 = 1 /* "base64" */
} pathgate_fs_encoding;

/*
 * ReadResult. Lines end at "\n"; a "\r" before it is part of the
 * terminator (CRLF), so line N here is line N of grep. The window is
 * joined with "\n" and has no final terminator.
 */
typedef struct pathgate_fs_read_result {
    pathgate_buf path;    /* canonical address */
    pathgate_buf content; /* the window, the base64 text, or the reminder */
    pathgate_fs_encoding encoding;
    int empty;              /* empty or whitespace-only file: content is
                               PATHGATE_FS_EMPTY_REMINDER, no window */
    int no_lines_requested; /* limit <= 0: the file was not inspected */
    int has_window;         /* total_lines, start_line, end_line are set */
    uint64_t total_lines;
    uint64_t start_line;  /* 1-based first line of the window */
    uint64_t end_line;    /* 1-based last line of the window */
    int has_next;         /* lines remain after the window */
    uint64_t next_offset; /* == end_line: the offset that reads on */
    char modified_at[PATHGATE_FS_TIME_LEN];
    /* Why content is base64 (PATHGATE_FS_NOT_TEXT_*; 0 for text): the whole
     * file is returned and offset/limit were not applied. */
    int not_text;
    /* The file is larger than max_file_size: only the bytes up to the end of
     * the window were read, so total_lines counts the lines read so far and
     * the rest of the file was not checked for text. */
    int partial;
    /* The window's last line ended with a line break, which content leaves
     * out (always when lines follow it; at the end, when the file ends with
     * one). */
    int final_newline;
} pathgate_fs_read_result;

#define PATHGATE_FS_NOT_TEXT_NUL 1  /* the file holds a NUL byte */
#define PATHGATE_FS_NOT_TEXT_UTF8 2 /* the file is not valid UTF-8 */

#define PATHGATE_FS_READ_RESULT_INIT                                                               \
    {                                                                                              \
        PATHGATE_BUF_INIT, PATHGATE_BUF_INIT, PATHGATE_FS_UTF8, 0, 0, 0, 0, 0, 0, 0, 0, {0}, 0, 0, \
            0                                                                                      \
    }
PATHGATE_EXTERN void pathgate_fs_read_result_dispose(pathgate_fs_read_result *res);

/* One file of an upload, or (data NULL, size 0) one path of a download. */
typedef struct pathgate_fs_item {
    const char *path;
    size_t path_len;
    const void *data;
    size_t size;
} pathgate_fs_item;

/* One answer of a download: code 0 and the bytes, or a negative code. */
typedef struct pathgate_fs_blob {
    int code;
    unsigned char *data; /* NULL on failure; allocated, freed by dispose */
    size_t size;
} pathgate_fs_blob;

typedef struct pathgate_fs_blobs {
    pathgate_fs_blob *items;
    size_t count;
    pathgate_allocator alloc;
} pathgate_fs_blobs;

#define PATHGATE_FS_BLOBS_INIT                                                                     \
    {                                                                                              \
        NULL, 0,                                                                                   \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }
PATHGATE_EXTERN void pathgate_fs_blobs_dispose(pathgate_fs_blobs *blobs);

/*
 * The deepagents FileOperationError of a per-item code: "file_not_found"
 * (ENOTFOUND), "permission_denied" (EACCES, EPOLICY), "is_directory" (EISDIR),
 * "invalid_path" (everything else); NULL for 0.
 */
PATHGATE_EXTERN const char *pathgate_fs_operation_error(int code);

/* ---------------------------------------------------------- operations */
/* `resolver` may be NULL when opts->session is set; results are allocated
 * with the resolver's allocator. */

/* Direct children of a directory, sorted by path: regular files and
 * directories only (a symlink is listed, under its own name, when it
 * resolves inside the base to one of those; otherwise skipped). Each entry
 * has its size and modification time unless opts->flags has
 * PATHGATE_FS_NO_METADATA. */
PATHGATE_EXTERN int pathgate_fs_ls(pathgate_fs_list *out, pathgate_resolver *resolver,
                                   const char *address, size_t len, const pathgate_fs_options *opts,
                                   pathgate_error *err);

/*
 * A line window of a text file: offset is the 0-based first line (negative
 * reads from 0), limit the line count (<= 0: nothing is read,
 * no_lines_requested). offset at or past the end: PATHGATE_ERANGE. A file
 * that is not valid UTF-8 or holds a NUL byte comes back whole as base64
 * (encoding BASE64, no window).
 */
PATHGATE_EXTERN int pathgate_fs_read(pathgate_fs_read_result *out, pathgate_resolver *resolver,
                                     const char *address, size_t len, int64_t offset, int64_t limit,
                                     const pathgate_fs_options *opts, pathgate_error *err);

/* The bytes of a whole regular file as they are: no text check, no line
 * window, no conversion (read answers a file that is not UTF-8 as base64).
 * Larger than max_file_size: PATHGATE_ETOOLARGE. content gets the bytes. */
PATHGATE_EXTERN int pathgate_fs_read_bytes(pathgate_buf *content, pathgate_resolver *resolver,
                                           const char *address, size_t len,
                                           const pathgate_fs_options *opts, pathgate_error *err);

/* Creates or replaces a file with content (any bytes), creating missing
 * parent directories beneath the base. path (optional) gets the address. */
PATHGATE_EXTERN int pathgate_fs_write(pathgate_buf *path, pathgate_resolver *resolver,
                                      const char *address, size_t len, const char *content,
                                      size_t content_len, const pathgate_fs_options *opts,
                                      pathgate_error *err);

/* One replacement of pathgate_fs_edit and pathgate_fs_edits. */
typedef struct pathgate_fs_edit_op {
    const char *old_text;
    size_t old_len;
    const char *new_text;
    size_t new_len;
    int replace_all; /* else old_text must occur exactly once */
} pathgate_fs_edit_op;

/*
 * Exact byte-string replacement in an existing file, atomically. Without
 * edit->replace_all, old_text must occur exactly once (else
 * PATHGATE_EAMBIGUOUS). In a file whose first line ends in CRLF, a "\n" of
 * old and new not preceded by "\r" is read as "\r\n" (what read showed),
 * so edits keep the file's line endings. *occurrences (optional) gets the
 * number replaced. With PATHGATE_FS_DRY_RUN in opts->flags nothing is
 * written.
 */
PATHGATE_EXTERN int pathgate_fs_edit(pathgate_buf *path, size_t *occurrences,
                                     pathgate_resolver *resolver, const char *address, size_t len,
                                     const pathgate_fs_edit_op *edit,
                                     const pathgate_fs_options *opts, pathgate_error *err);

/* Deletes a file, a symlink (the link itself) or a directory with
 * everything below it (never following a symlink). The base itself cannot
 * be deleted (PATHGATE_EACCES). */
PATHGATE_EXTERN int pathgate_fs_delete(pathgate_buf *path, pathgate_resolver *resolver,
                                       const char *address, size_t len,
                                       const pathgate_fs_options *opts, pathgate_error *err);

/*
 * Line-based search (literal and case-sensitive unless opts->flags says
 * otherwise) of every regular file below address (NULL: the session cwd
 * or the first root; a file: that file only), in path order, then line
 * order. opts->glob filters the files, opts->max_count caps the matches
 * (truncated when more existed). Files holding a NUL byte are skipped as
 * binary. A pattern holding a line break is PATHGATE_EINVAL; an empty
 * pattern matches every line. opts NULL = PATHGATE_FS_SEARCH_OPTIONS_INIT.
 */
PATHGATE_EXTERN int pathgate_fs_grep(pathgate_fs_matches *out, pathgate_resolver *resolver,
                                     const char *pattern, size_t pattern_len, const char *address,
                                     size_t address_len, const pathgate_fs_search_options *opts,
                                     pathgate_error *err);

/* Regular files below address (NULL as for grep) matching pattern (see
 * glob.h: `*`, `?`, `[abc]`, `[!abc]`, `{a,b}`, `**`, names at any depth
 * when the pattern has no `/`, leading dots only explicitly), sorted. Only
 * paths unless opts->flags has PATHGATE_FS_SEARCH_METADATA. */
PATHGATE_EXTERN int pathgate_fs_glob(pathgate_fs_list *out, pathgate_resolver *resolver,
                                     const char *pattern, size_t pattern_len, const char *address,
                                     size_t address_len, const pathgate_fs_search_options *opts,
                                     pathgate_error *err);

/*
 * Streaming forms of grep and glob: the same walk, but the results are
 * handed to cb in order, in batches, on the calling thread, as they are
 * found (the batch is valid during the call only). cb returning nonzero
 * stops the walk at once (success). *summary gets the flags and counts of
 * the result (truncated, incomplete, ...), and no items.
 */
typedef int (*pathgate_fs_match_cb)(const pathgate_fs_match *items, size_t count, void *ctx);
typedef int (*pathgate_fs_info_cb)(const pathgate_fs_info *items, size_t count, void *ctx);

PATHGATE_EXTERN int pathgate_fs_grep_each(pathgate_fs_matches *summary, pathgate_resolver *resolver,
                                          const char *pattern, size_t pattern_len,
                                          const char *address, size_t address_len,
                                          pathgate_fs_match_cb cb, void *cb_ctx,
                                          const pathgate_fs_search_options *opts,
                                          pathgate_error *err);
PATHGATE_EXTERN int pathgate_fs_glob_each(pathgate_fs_list *summary, pathgate_resolver *resolver,
                                          const char *pattern, size_t pattern_len,
                                          const char *address, size_t address_len,
                                          pathgate_fs_info_cb cb, void *cb_ctx,
                                          const pathgate_fs_search_options *opts,
                                          pathgate_error *err);

/*
 * Pull iterators over the streaming forms, for generators and for-loops:
 * the walk runs on a thread of its own, at most a few batches ahead of the
 * consumer (bounded memory). next gives 1 and the next result (valid until
 * the next call or free), 0 at the end, or a negative code (err set).
 * After next returned 0 the summary (flags and counts, no items) is
 * final. Freeing the iterator before the end stops the walk.
 */
typedef struct pathgate_fs_iter pathgate_fs_iter;
PATHGATE_EXTERN int pathgate_fs_grep_iter_new(pathgate_fs_iter **out, pathgate_resolver *resolver,
                                              const char *pattern, size_t pattern_len,
                                              const char *address, size_t address_len,
                                              const pathgate_fs_search_options *opts,
                                              pathgate_error *err);
PATHGATE_EXTERN int pathgate_fs_glob_iter_new(pathgate_fs_iter **out, pathgate_resolver *resolver,
                                              const char *pattern, size_t pattern_len,
                                              const char *address, size_t address_len,
                                              const pathgate_fs_search_options *opts,
                                              pathgate_error *err);
PATHGATE_EXTERN int pathgate_fs_iter_next_match(const pathgate_fs_match **out, pathgate_fs_iter *it,
                                                pathgate_error *err);
PATHGATE_EXTERN int pathgate_fs_iter_next_info(const pathgate_fs_info **out, pathgate_fs_iter *it,
                                               pathgate_error *err);
PATHGATE_EXTERN const pathgate_fs_matches *pathgate_fs_iter_grep_summary(
    const pathgate_fs_iter *it);
PATHGATE_EXTERN const pathgate_fs_list *pathgate_fs_iter_glob_summary(const pathgate_fs_iter *it);
/* Progress while iterating (any thread): files grep has searched so far,
 * as of the last batch handed over. */
PATHGATE_EXTERN uint64_t pathgate_fs_iter_files_scanned(const pathgate_fs_iter *it);
PATHGATE_EXTERN void pathgate_fs_iter_free(pathgate_fs_iter *it);

/* Writes each item's bytes like pathgate_fs_write; codes[i] gets 0 or the
 * item's negative code (map it with pathgate_fs_operation_error). Returns
 * 0, or a negative code for misuse or ENOMEM: an item that ran out of
 * memory fails the whole call (every item is still tried; codes says
 * which were written). */
PATHGATE_EXTERN int pathgate_fs_upload(int *codes, pathgate_resolver *resolver,
                                       const pathgate_fs_item *items, size_t count,
                                       const pathgate_fs_options *opts, pathgate_error *err);

/* Reads each item's whole file (regular files only); one blob per item, in
 * order. Returns 0, or a negative code for misuse or ENOMEM: an item that
 * ran out of memory fails the whole call (out is then empty). */
PATHGATE_EXTERN int pathgate_fs_download(pathgate_fs_blobs *out, pathgate_resolver *resolver,
                                         const pathgate_fs_item *items, size_t count,
                                         const pathgate_fs_options *opts, pathgate_error *err);

/* ------------------------------------------------ mkdir, move, stat, ...
 * The operations of the MCP server (docs/mcp.md), contained like the rest:
 * every name is reached beneath its base's directory fd. Added codes and
 * messages:
 *   PATHGATE_EEXIST        "'<address>' already exists"
 *   PATHGATE_ENOTFOUND     "Parent directory of '<address>' not found"
 *   PATHGATE_EINVAL        "Cannot move '<address>' into itself"
 */

/*
 * Creates the directory at address. With `parents`, missing ancestors are
 * created too (each with mkdirat on the contained fd of its parent) and an
 * existing directory is success; without, the parent must exist and an
 * existing entry is PATHGATE_EEXIST. path (optional) gets the address.
 */
PATHGATE_EXTERN int pathgate_fs_mkdir(pathgate_buf *path, pathgate_resolver *resolver,
                                      const char *address, size_t len, int parents,
                                      const pathgate_fs_options *opts, pathgate_error *err);

/*
 * Moves (renames) a file, directory or symlink (the link itself) to
 * destination, within a base or across bases: renameat2 with
 * RENAME_NOREPLACE between the contained fds of the two parents, so an
 * existing destination is never replaced (PATHGATE_EEXIST). Across
 * filesystems (EXDEV) the tree is copied beneath the destination's base
 * (files O_CREAT|O_EXCL, symlinks as links) and then the source is
 * deleted; a failed copy is removed and the source stays. The destination's
 * parent must exist. Neither side may be a base itself or read-only
 * (PATHGATE_EACCES). path (optional) gets the destination address.
 */
PATHGATE_EXTERN int pathgate_fs_move(pathgate_buf *path, pathgate_resolver *resolver,
                                     const char *source, size_t source_len, const char *destination,
                                     size_t destination_len, const pathgate_fs_options *opts,
                                     pathgate_error *err);

typedef enum pathgate_fs_type {
    PATHGATE_FS_TYPE_FILE = 1,
    PATHGATE_FS_TYPE_DIRECTORY = 2,
    PATHGATE_FS_TYPE_OTHER = 3,  /* FIFO, socket, device */
    PATHGATE_FS_TYPE_SYMLINK = 4 /* the entry itself (lstat, scandir) */
} pathgate_fs_type;

/* What stat answers. Times are ISO 8601 UTC like modified_at. */
typedef struct pathgate_fs_stat_result {
    pathgate_buf path; /* canonical address */
    pathgate_fs_type type;
    uint64_t size;
    unsigned int mode; /* permission bits (07777) */
    int has_created;   /* the filesystem reports a birth time */
    int64_t mtime_sec;
    long mtime_nsec;
    char modified_at[PATHGATE_FS_TIME_LEN];
    char accessed_at[PATHGATE_FS_TIME_LEN];
    char changed_at[PATHGATE_FS_TIME_LEN]; /* inode change (ctime) */
    char created_at[PATHGATE_FS_TIME_LEN]; /* "" without has_created */
} pathgate_fs_stat_result;

#define PATHGATE_FS_STAT_RESULT_INIT                                                               \
    {                                                                                              \
        PATHGATE_BUF_INIT, 0, 0, 0, 0, 0, 0, {0}, {0}, {0},                                        \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }
PATHGATE_EXTERN void pathgate_fs_stat_result_dispose(pathgate_fs_stat_result *res);

/* Size, type, times and permissions of what address names (a symlink inside
 * the base is followed, one leading out is PATHGATE_EINVALIDPATH). */
PATHGATE_EXTERN int pathgate_fs_stat(pathgate_fs_stat_result *out, pathgate_resolver *resolver,
                                     const char *address, size_t len,
                                     const pathgate_fs_options *opts, pathgate_error *err);

/*
 * Applies edits in order, each to the result of the one before (with the
 * rules and messages of pathgate_fs_edit), all or nothing: the file is
 * replaced atomically once, after every edit applied, and not at all with
 * PATHGATE_FS_DRY_RUN. diff (optional) gets a unified diff
 * ("--- <address>", "+++ <address>", one hunk with up to 3 lines of context
 * around the changed span; "\ No newline at end of file" as diff(1) writes
 * it; empty when nothing changed). path (optional) gets the address.
 */
PATHGATE_EXTERN int pathgate_fs_edits(pathgate_buf *path, pathgate_buf *diff,
                                      pathgate_resolver *resolver, const char *address, size_t len,
                                      const pathgate_fs_edit_op *edits, size_t count,
                                      const pathgate_fs_options *opts, pathgate_error *err);
/* opts->flags of pathgate_fs_edits (and pathgate_fs_edit, the same edit):
 * the matching of the reference MCP filesystem server's edit_file
 * (docs/mcp.md): the file's line breaks and each edit's text read as LF
 * (an empty old_text is the file's start); each edit replaces the first exact
 * occurrence of old_text, or else the first run of lines equal to its lines
 * once whitespace at both ends is ignored, newText re-indented to the
 * file's indentation; replace_all is not used. PATHGATE_EEDIT "Could not
 * find exact match for edit:\n<old_text>". A file whose first line ends in
 * CRLF is written with CRLF line breaks. */
#define PATHGATE_FS_EDIT_LENIENT 0x2000u

/*
 * The first (head) or last (tail) `lines` lines of a regular file, bytes as
 * they are (terminators kept; a final line without "\n" counts). head reads
 * from the start only as far as needed; tail reads backwards from the end.
 * PATHGATE_FS_NO_LIMIT: the whole file. content gets the bytes.
 * Memory is bounded by the size cap (opts->max_file_size, default
 * PATHGATE_FS_MAX_FILE_DEFAULT): an answer that would hold more than the
 * cap (the whole of a larger file, or a window of more bytes) is
 * PATHGATE_ETOOLARGE with the size cap's message, given as soon as the
 * bytes read show it (at most the cap plus 64 KiB is read or held).
 */
PATHGATE_EXTERN int pathgate_fs_head(pathgate_buf *content, pathgate_resolver *resolver,
                                     const char *address, size_t len, size_t lines,
                                     const pathgate_fs_options *opts, pathgate_error *err);
PATHGATE_EXTERN int pathgate_fs_tail(pathgate_buf *content, pathgate_resolver *resolver,
                                     const char *address, size_t len, size_t lines,
                                     const pathgate_fs_options *opts, pathgate_error *err);

/*
 * Every directory and regular file below the directory address, depth
 * first: each directory's entries sorted by name, a directory followed by
 * its own entries. Directories end in '/'. A symlink resolving inside the
 * base is listed (as its target's kind) but never entered, so there are no
 * loops. An entry whose path relative to address matches one of the
 * `excludes` globs (excludes[i] of exclude_lens[i] bytes; glob.h rules: a
 * pattern without '/' matches a name at any depth) is left out, with
 * everything below it. A bad pattern is PATHGATE_EINVAL (or ENUL, EUTF8).
 * Metadata is set.
 * truncated: a level deeper than PATHGATE_FS_MAX_DEPTH was not entered.
 */
PATHGATE_EXTERN int pathgate_fs_tree(pathgate_fs_list *out, pathgate_resolver *resolver,
                                     const char *address, size_t len, const char *const *excludes,
                                     const size_t *exclude_lens, size_t nexcludes,
                                     const pathgate_fs_options *opts, pathgate_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_FS_H */
