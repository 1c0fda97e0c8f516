/*
 * pathgate/editor.h - the text editor tool Anthropic's models are trained
 * on (`str_replace_based_edit_tool`, 2025-07-28, and `str_replace_editor`,
 * 2025-01-24, which adds undo_edit), over canonical addresses
 * (docs/editor.md).
 *
 * Commands, output and messages are those of Anthropic's reference
 * implementation (anthropic-quickstarts, computer_use_demo/tools/edit.py):
 * `cat -n` numbering (6-wide line numbers, a tab, tabs expanded to 8
 * columns), a snippet of 4 lines around an edit, the same error texts,
 * with the file's canonical address where the reference prints a path. A
 * path that names nothing inside a base reads "Invalid path / not found".
 *
 * Files are read as the reference reads them (UTF-8, universal newlines)
 * and written atomically, like every pathgate write. Unlike the reference,
 * an edit keeps the file's tabs outside the replaced text and its line
 * endings (CRLF stays CRLF), and creating a file creates missing parent
 * directories.
 *
 * An editor keeps the undo history of str_replace, insert and create, per
 * address (at most PATHGATE_EDITOR_HISTORY_BYTES bytes in all; the oldest
 * versions are forgotten first). It is internally locked: any number of
 * threads may run commands on one editor.
 */
#ifndef PATHGATE_EDITOR_H
#define PATHGATE_EDITOR_H

#include <stdint.h>

#include "common.h"
#include "fs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pathgate_editor pathgate_editor;

/* Which tool is answering: the commands it has and its "Unrecognized
 * command" message. */
typedef enum pathgate_editor_tool {
    PATHGATE_EDITOR_20250728 = 0, /* str_replace_based_edit_tool: view, create,
                                     str_replace, insert */
    PATHGATE_EDITOR_20250124 = 1  /* str_replace_editor: the same and undo_edit */
} pathgate_editor_tool;

/* What the reference shows at most (MAX_RESPONSE_LEN, in characters). */
#define PATHGATE_EDITOR_MAX_RESPONSE 16000
/* The undo history's budget (bytes of kept versions, per editor). */
#define PATHGATE_EDITOR_HISTORY_BYTES ((size_t)64 << 20)

/* The arguments of a command. A text left NULL was not given. */
typedef struct pathgate_editor_args {
    unsigned int version; /* PATHGATE_EDITOR_ARGS_VERSION */
    pathgate_editor_tool tool;
    const char *file_text; /* create */
    size_t file_text_len;
    const char *old_str; /* str_replace */
    size_t old_str_len;
    const char *new_str; /* str_replace, insert */
    size_t new_str_len;
    int has_insert_line; /* insert */
    int64_t insert_line;
    /* view: view_range_len integers (0: not given); view_range_invalid: the
     * caller was given something that is not a list of integers */
    const int64_t *view_range;
    size_t view_range_len;
    int view_range_invalid;
    /* view: characters shown at most (0: PATHGATE_EDITOR_MAX_RESPONSE) */
    int64_t max_characters;
} pathgate_editor_args;

#define PATHGATE_EDITOR_ARGS_VERSION 1
#define PATHGATE_EDITOR_ARGS_INIT                                                                  \
    {                                                                                              \
        PATHGATE_EDITOR_ARGS_VERSION, PATHGATE_EDITOR_20250728, NULL, 0, NULL, 0, NULL, 0, 0, 0,   \
            NULL, 0, 0, 0                                                                          \
    }

/* The answer: code 0 and output (the tool's text), or the failure's code
 * and error (the tool's error text). */
typedef struct pathgate_editor_result {
    int code;
    pathgate_buf output;
    pathgate_buf error;
} pathgate_editor_result;

#define PATHGATE_EDITOR_RESULT_INIT                                                                \
    {                                                                                              \
        0, PATHGATE_BUF_INIT, PATHGATE_BUF_INIT                                                    \
    }
PATHGATE_EXTERN void pathgate_editor_result_dispose(pathgate_editor_result *res);

/* A new editor (empty history). alloc NULL = libc. */
PATHGATE_EXTERN int pathgate_editor_new(pathgate_editor **out, const pathgate_allocator *alloc,
                                        pathgate_error *err);
/* NULL is a no-op. */
PATHGATE_EXTERN void pathgate_editor_free(pathgate_editor *editor);

/*
 * Runs command ("view", "create", "str_replace", "insert", "undo_edit") on
 * path (any form the resolver accepts; relative to opts->session's cwd).
 * editor may be NULL: nothing is remembered and undo_edit finds no
 * history. Returns 0 when the command ran, whatever its outcome (see
 * out->code); a negative code only for misuse (PATHGATE_EINVAL) or
 * PATHGATE_ENOMEM, with err filled and out empty.
 */
PATHGATE_EXTERN int pathgate_editor_run(pathgate_editor_result *out, pathgate_editor *editor,
                                        pathgate_resolver *resolver, const char *command,
                                        size_t command_len, const char *path, size_t path_len,
                                        const pathgate_editor_args *args,
                                        const pathgate_fs_options *opts, pathgate_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_EDITOR_H */
