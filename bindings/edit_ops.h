/*
 * edit_ops.h - the arguments of the edit tools models are trained on
 * (apply_patch, docs/patch.md; the text editor, docs/editor.md), described
 * once for both bindings (bindings/python/edit_tools.c,
 * bindings/lua/edit_tools.c) in the terms of arg_spec.h. Their results are
 * records of their own (pathgate_fs_patch_result, pathgate_editor_result),
 * so each binding converts them itself.
 */
#ifndef PATHGATE_BINDINGS_EDIT_OPS_H
#define PATHGATE_BINDINGS_EDIT_OPS_H

#include <string.h>

#include "arg_spec.h"
#include "pathgate/editor.h"
#include "pathgate/fs_patch.h"

/* apply_patch(patch, atomic=true, max_file_size=): atomic false is Codex's
 * file by file; max_file_size: the size cap of the files it reads. */
static const pg_arg pg_patch_args[] = {
    {"patch", PG_TEXT, PG_POS | PG_REQ, 0},
    {"atomic", PG_NOFLAG, 0, PATHGATE_FS_PATCH_FILE_BY_FILE},
    PG_MAX_FILE_SIZE,
};

/* Indices into pg_editor_args. */
enum {
    PG_ED_COMMAND,
    PG_ED_PATH,
    PG_ED_TOOL,
    PG_ED_FILE_TEXT,
    PG_ED_OLD_STR,
    PG_ED_NEW_STR,
    PG_ED_INSERT_LINE,
    PG_ED_MAX_CHARACTERS,
    PG_ED_VIEW_RANGE,
    PG_ED_VIEW_RANGE_INVALID,
    PG_ED_MAX_FILE_SIZE
};

/* An insert_line not given. */
#define PG_ED_ABSENT INT64_MIN

/* text_editor(command, path, {tool=, file_text=, old_str=, new_str=,
 * insert_line=, max_characters=, view_range=, max_file_size=}): the Lua binding reads
 * view_range itself (a list is not an option there); Python also takes
 * view_range_invalid (the value given was not a list of integers, which
 * the tool answers with the reference's message). */
static const pg_arg pg_editor_args[] = {
    {"command", PG_TEXT, PG_POS | PG_REQ, 0},
    {"path", PG_TEXT, PG_POS | PG_REQ, 0},
    {"tool", PG_TEXT, 0, 0},
    {"file_text", PG_TEXT, 0, 0},
    {"old_str", PG_TEXT, 0, 0},
    {"new_str", PG_TEXT, 0, 0},
    {"insert_line", PG_INT, 0, PG_ED_ABSENT},
    {"max_characters", PG_INT, 0, 0},
    {"view_range", PG_INTS, PG_PY, 0},
    {"view_range_invalid", PG_BOOL, PG_PY, 0},
    PG_MAX_FILE_SIZE,
};

/* The tool named by the `tool` argument: 0 and *out, or -1 (unknown). */
static inline int pg_editor_tool(const pg_argv *a, pathgate_editor_tool *out)
{
    const pg_val *t = &a->v[PG_ED_TOOL];
    if (!t->s || (t->len == 27 && !memcmp(t->s, "str_replace_based_edit_tool", 27)) ||
        (t->len == 20 && !memcmp(t->s, "text_editor_20250728", 20))) {
        *out = PATHGATE_EDITOR_20250728;
        return 0;
    }
    if ((t->len == 18 && !memcmp(t->s, "str_replace_editor", 18)) ||
        (t->len == 20 && !memcmp(t->s, "text_editor_20250124", 20))) {
        *out = PATHGATE_EDITOR_20250124;
        return 0;
    }
    return -1;
}

/* The core's arguments of a text editor call from the holder. */
static inline void pg_editor_core_args(const pg_argv *a, pathgate_editor_tool tool,
                                       pathgate_editor_args *e)
{
    const pathgate_editor_args init = PATHGATE_EDITOR_ARGS_INIT;
    *e = init;
    e->tool = tool;
    e->file_text = a->v[PG_ED_FILE_TEXT].s;
    e->file_text_len = a->v[PG_ED_FILE_TEXT].len;
    e->old_str = a->v[PG_ED_OLD_STR].s;
    e->old_str_len = a->v[PG_ED_OLD_STR].len;
    e->new_str = a->v[PG_ED_NEW_STR].s;
    e->new_str_len = a->v[PG_ED_NEW_STR].len;
    e->has_insert_line = a->v[PG_ED_INSERT_LINE].i != PG_ED_ABSENT;
    e->insert_line = e->has_insert_line ? a->v[PG_ED_INSERT_LINE].i : 0;
    e->max_characters = a->v[PG_ED_MAX_CHARACTERS].i;
    e->view_range = a->v[PG_ED_VIEW_RANGE].ints;
    e->view_range_len = a->v[PG_ED_VIEW_RANGE].n;
    e->view_range_invalid = (int)a->v[PG_ED_VIEW_RANGE_INVALID].i;
}

#endif
