/*
 * pathgate/fs_patch.h - apply_patch: Codex's `*** Begin Patch` format,
 * applied through canonical addresses (docs/patch.md).
 *
 * The grammar and its leniency are those of Codex's codex-rs/apply-patch
 * (parser.rs): Add File / Delete File / Update File hunks, `*** Move to:`,
 * `@@` chunks with an optional context line, `*** End of File`, markers
 * padded with whitespace, and the `<<'EOF'` heredoc wrapper models emit.
 * Chunks are located as Codex's seek_sequence.rs does: exactly, then
 * ignoring trailing whitespace, then surrounding whitespace, then with
 * typographic dashes, quotes and spaces read as their ASCII forms. An
 * updated file keeps each line's ending (LF or CRLF); new lines take the
 * ending of the file's first line, and an updated file always ends with a
 * line break (Codex's text_file.rs).
 *
 * Every path of a patch is resolved like any other operand (canonical
 * address, legacy alias, file:// URI, host path inside a base, or, with a
 * session, text relative to its cwd). Every path is resolved, and every
 * target checked writable, before anything is read or written: one that
 * escapes fails the whole patch with "Invalid path / not found", one in a
 * read-only base with "Permission denied: '<address>'".
 *
 * All or nothing (the default): every file's new content is computed in
 * memory, then every file is staged (a temp file beside it, missing parent
 * directories created), then committed by rename, keeping a hard link to
 * each file it replaces or deletes; any failure renames those back,
 * removes the temp files, the new files and the directories it created,
 * so the tree is as it was (a guard against failures while it runs, not
 * against a crash: see PATHGATE_FS_PATCH_SYNC for durability). With
 * PATHGATE_FS_PATCH_FILE_BY_FILE the hunks
 * are applied one at a time (each one atomically), as Codex does: a
 * failing hunk leaves the ones before it applied.
 */
#ifndef PATHGATE_FS_PATCH_H
#define PATHGATE_FS_PATCH_H

#include "common.h"
#include "fs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* opts->flags: apply hunk by hunk, as Codex does (its scenario 015). */
#define PATHGATE_FS_PATCH_FILE_BY_FILE 0x1000u
/* opts->flags: flush the staged files to disk (one syncfs per filesystem)
 * before the first rename. Without it apply_patch, like Codex and GNU
 * patch, leaves flushing to the kernel. */
#define PATHGATE_FS_PATCH_SYNC 0x4000u

/* What a hunk did, as Codex's summary letters it. */
typedef enum pathgate_fs_patch_change {
    PATHGATE_FS_PATCH_ADDED = 'A',
    PATHGATE_FS_PATCH_MODIFIED = 'M',
    PATHGATE_FS_PATCH_DELETED = 'D'
} pathgate_fs_patch_change;

/* One line of the summary. Strings live as long as the result. */
typedef struct pathgate_fs_patch_file {
    pathgate_fs_patch_change change;
    const char *path; /* canonical address (a move's destination) */
    size_t path_len;
    const char *from; /* a move's source address; NULL otherwise */
    size_t from_len;
} pathgate_fs_patch_file;

/*
 * The answer of pathgate_fs_apply_patch. code is 0 when the patch applied,
 * else the failure's code (PATHGATE_EPATCH for a patch that does not
 * parse or changes nothing, PATHGATE_ECONFLICT for a chunk not found,
 * PATHGATE_ENOTFOUND, PATHGATE_EISDIR, PATHGATE_EACCES,
 * PATHGATE_EINVALIDPATH, ...) with error holding Codex's message, paths
 * written as addresses. output is Codex's summary ("Success. Updated the
 * following files:\n" then "A <address>\n", "M ...", "D ..." lines: adds,
 * then updates, then deletes, each in patch order), "" on failure. files
 * lists the same changes; after a failure with
 * PATHGATE_FS_PATCH_FILE_BY_FILE, the ones applied before it.
 */
typedef struct pathgate_fs_patch_result {
    int code;
    pathgate_buf error;  /* NULL ptr on success */
    pathgate_buf output; /* the summary ("" on failure) */
    pathgate_fs_patch_file *files;
    size_t count;
    /* private */
    size_t cap;
    void *arena;
    pathgate_allocator alloc;
} pathgate_fs_patch_result;

#define PATHGATE_FS_PATCH_RESULT_INIT                                                              \
    {                                                                                              \
        0, PATHGATE_BUF_INIT, PATHGATE_BUF_INIT, NULL, 0, 0, NULL,                                 \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }
/* Frees and resets. NULL is a no-op. */
PATHGATE_EXTERN void pathgate_fs_patch_result_dispose(pathgate_fs_patch_result *res);

/*
 * Applies the patch text (patch_len bytes, UTF-8; NUL bytes are content).
 * Returns 0 when the patch was tried, whatever the outcome (see
 * out->code); a negative code only for misuse (PATHGATE_EINVAL) or
 * PATHGATE_ENOMEM, with err filled and out empty.
 */
PATHGATE_EXTERN int pathgate_fs_apply_patch(pathgate_fs_patch_result *out,
                                            pathgate_resolver *resolver, const char *patch,
                                            size_t patch_len, const pathgate_fs_options *opts,
                                            pathgate_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_FS_PATCH_H */
