/*
 * fs_edits.h - internal: the one edit of a file (fs_edits.c).
 */
#ifndef PATHGATE_FS_EDITS_H
#define PATHGATE_FS_EDITS_H

#include "fs_target.h"

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

#endif
