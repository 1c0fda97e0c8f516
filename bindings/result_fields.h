/*
 * result_fields.h - the fields of the file-operation results, described
 * once for both bindings (bindings/python/fs.c, bindings/lua/fs.c), which
 * turn each field into a dict item or a table field by its kind.
 *
 * X(name, KIND, value, aux, present) per field, over a result pointer `e`:
 *   name     the field's name in Python and Lua (stringified with #name)
 *   KIND     STR (value: const char *, aux: its length; decoded as UTF-8
 *            with replacement in Python), CSTR (a NUL-terminated string),
 *            BOOL (value: int), INT (value: int), UINT (value: uint64_t)
 *   present  when 0 the field is absent: Lua leaves it nil; Python leaves a
 *            FileInfo key out and sets a read result's key to None
 * Order is the order of the dict keys (Python's exec result: of the tuple)
 * and of a new table's fields.
 */
#ifndef PATHGATE_BINDINGS_RESULT_FIELDS_H
#define PATHGATE_BINDINGS_RESULT_FIELDS_H

#include "pathgate/exec.h"
#include "pathgate/fs.h"

/* FileInfo: an entry of ls or glob (pathgate_fs_info). */
#define PG_FILEINFO_FIELDS(X, e)                                                                   \
    X(path, STR, (e)->path, (e)->path_len, 1)                                                      \
    X(is_dir, BOOL, (e)->is_dir, 0, 1)                                                             \
    X(size, UINT, (e)->size, 0, (e)->has_metadata)                                                 \
    X(modified_at, CSTR, (e)->modified_at, 0, (e)->has_metadata)

/* GrepMatch: one line of grep (pathgate_fs_match). */
#define PG_GREPMATCH_FIELDS(X, e)                                                                  \
    X(path, STR, (e)->path, (e)->path_len, 1)                                                      \
    X(line, UINT, (e)->line, 0, 1)                                                                 \
    X(text, STR, (e)->text, (e)->text_len, 1)

/* The read result (pathgate_fs_read_result). */
#define PG_READ_FIELDS(X, e)                                                                       \
    X(path, STR, (e)->path.ptr, (e)->path.len, 1)                                                  \
    X(content, STR, (e)->content.ptr ? (e)->content.ptr : "", (e)->content.len, 1)                 \
    X(encoding, CSTR, (e)->encoding == PATHGATE_FS_BASE64 ? "base64" : "utf-8", 0, 1)              \
    X(empty, BOOL, (e)->empty, 0, 1)                                                               \
    X(no_lines_requested, BOOL, (e)->no_lines_requested, 0, 1)                                     \
    X(total_lines, UINT, (e)->total_lines, 0, (e)->has_window)                                     \
    X(start_line, UINT, (e)->start_line, 0, (e)->has_window)                                       \
    X(end_line, UINT, (e)->end_line, 0, (e)->has_window)                                           \
    X(next_offset, UINT, (e)->next_offset, 0, (e)->has_next)                                       \
    X(modified_at, CSTR, (e)->modified_at, 0, !(e)->no_lines_requested)                            \
    X(not_text, CSTR, (e)->not_text == PATHGATE_FS_NOT_TEXT_NUL ? "nul_byte" : "invalid_utf8", 0,  \
      (e)->not_text)                                                                               \
    X(partial, BOOL, (e)->partial, 0, 1)                                                           \
    X(final_newline, BOOL, (e)->final_newline, 0, 1)

/* The stat result (pathgate_fs_stat_result). */
#define PG_FS_TYPE_NAME(t)                                                                         \
    ((t) == PATHGATE_FS_TYPE_FILE        ? "file"                                                  \
     : (t) == PATHGATE_FS_TYPE_DIRECTORY ? "directory"                                             \
     : (t) == PATHGATE_FS_TYPE_SYMLINK   ? "symlink"                                               \
                                         : "other")
#define PG_STAT_FIELDS(X, e)                                                                       \
    X(path, STR, (e)->path.ptr, (e)->path.len, 1)                                                  \
    X(type, CSTR, PG_FS_TYPE_NAME((e)->type), 0, 1)                                                \
    X(size, UINT, (e)->size, 0, 1)                                                                 \
    X(mode, UINT, (e)->mode, 0, 1)                                                                 \
    X(modified_at, CSTR, (e)->modified_at, 0, 1)                                                   \
    X(accessed_at, CSTR, (e)->accessed_at, 0, 1)                                                   \
    X(changed_at, CSTR, (e)->changed_at, 0, 1)                                                     \
    X(created_at, CSTR, (e)->created_at, 0, (e)->has_created)

/* The result of a contained command (pathgate_exec_result). */
#define PG_EXEC_FIELDS(X, e)                                                                       \
    X(output, STR, (e)->output.ptr, (e)->output.len, 1)                                            \
    X(exit_code, INT, (e)->exit_code, 0, 1)                                                        \
    X(truncated, BOOL, (e)->truncated, 0, 1)                                                       \
    X(timed_out, BOOL, (e)->timed_out, 0, 1)                                                       \
    X(landlock_abi, INT, (e)->landlock_abi, 0, 1)                                                  \
    X(protections, UINT, (e)->protections, 0, 1)

/* The protections a command's result reports (PATHGATE_EXEC_PROT_*,
 * docs/exec.md "Which protections ran"), by the name both front ends use:
 * Lua's protections={name=true} and pathgate.exec_protections, Python's
 * sandbox.PROTECTIONS (from _core._protections). X(bit, name). */
#define PG_EXEC_PROTECTIONS(X)                                                                     \
    X(PATHGATE_EXEC_PROT_LANDLOCK, "landlock")                                                     \
    X(PATHGATE_EXEC_PROT_LANDLOCK_TRUNCATE, "landlock_truncate")                                   \
    X(PATHGATE_EXEC_PROT_LANDLOCK_SCOPE, "landlock_scope")                                         \
    X(PATHGATE_EXEC_PROT_SECCOMP, "seccomp")                                                       \
    X(PATHGATE_EXEC_PROT_NAMESPACES, "namespaces")                                                 \
    X(PATHGATE_EXEC_PROT_PID_LIMIT, "pid_limit")                                                   \
    X(PATHGATE_EXEC_PROT_RLIMITS, "rlimits")                                                       \
    X(PATHGATE_EXEC_PROT_UNPRIVILEGED_UID, "unprivileged_uid")                                     \
    X(PATHGATE_EXEC_PROT_MEMORY_LIMIT, "memory_limit")                                             \
    X(PATHGATE_EXEC_PROT_NETWORK_NAMESPACE, "network_namespace")                                   \
    X(PATHGATE_EXEC_PROT_NETWORK_ALLOWLIST, "network_allowlist")                                   \
    X(PATHGATE_EXEC_PROT_ID_RANGE, "id_range")

typedef struct pg_protection {
    unsigned int bit;
    const char *name;
} pg_protection;
#define PG__PROTECTION_ENTRY(bit, name) {bit, name},
static const pg_protection pg_protections[] = {PG_EXEC_PROTECTIONS(PG__PROTECTION_ENTRY)};
#define PG_PROTECTION_COUNT (sizeof pg_protections / sizeof pg_protections[0])

/* How many fields a description has: PG_FIELD_COUNT(PG_READ_FIELDS). */
#define PG__FIELD_ONE(name, kind, value, aux, present) +1
#define PG_FIELD_COUNT(FIELDS) (0 FIELDS(PG__FIELD_ONE, (void *)0))

#endif
