/*
 * fs_ops.h - the file operations (docs/fs.md) described once for both
 * bindings (bindings/python/fs.c, bindings/lua/fs.c): per operation its
 * arguments (arg_spec.h), the core call over the converted arguments, and
 * the kind of its result. Each binding turns the table into functions with
 * one runner: check the arguments, run the call (Python: without the GIL),
 * convert the result by its kind, release the holders.
 *
 * Wrapping a new core call: one PG_OP line (its arguments, its call, the
 * kind of its result) and its name in PG_FS_OPS (docs/conventions.md,
 * "Wrapping a core call").
 */
#ifndef PATHGATE_BINDINGS_FS_OPS_H
#define PATHGATE_BINDINGS_FS_OPS_H

#include "arg_spec.h"

/* What a call answers; the fields of pg_result it fills. */
typedef enum pg_result_kind {
    PG_R_ADDR,       /* buf: the address */
    PG_R_ADDR_COUNT, /* buf and count (edit) */
    PG_R_ADDR_DIFF,  /* buf and buf2 (the diff of multi_edit) */
    PG_R_BYTES,      /* buf: bytes (head, tail) */
    PG_R_LIST,       /* list, with what the walk left out (ls, glob) */
    PG_R_TREE,       /* list and its truncated flag */
    PG_R_MATCHES,    /* matches (grep) */
    PG_R_READ,       /* read */
    PG_R_STAT,       /* stat */
    PG_R_CODES,      /* upload: the per-item codes, in the argument */
    PG_R_BLOBS,      /* download */
    PG_R_GREP_ITER,  /* iter */
    PG_R_GLOB_ITER   /* iter */
} pg_result_kind;

typedef struct pg_result {
    pathgate_buf buf, buf2;
    size_t count;
    pathgate_fs_list list;
    pathgate_fs_matches matches;
    pathgate_fs_read_result read;
    pathgate_fs_stat_result stat;
    pathgate_fs_blobs blobs;
    pathgate_fs_iter *iter;
} pg_result;

static inline void pg_result_init(pg_result *r)
{
    const pg_result init = {PATHGATE_BUF_INIT,
                            PATHGATE_BUF_INIT,
                            0,
                            PATHGATE_FS_LIST_INIT,
                            PATHGATE_FS_MATCHES_INIT,
                            PATHGATE_FS_READ_RESULT_INIT,
                            PATHGATE_FS_STAT_RESULT_INIT,
                            PATHGATE_FS_BLOBS_INIT,
                            NULL};
    *r = init;
}

/* Frees what the call left in r (a converter that took something, such as
 * the iterator, clears it first). */
static inline void pg_result_dispose(pg_result *r)
{
    pathgate_buf_dispose(&r->buf);
    pathgate_buf_dispose(&r->buf2);
    pathgate_fs_list_dispose(&r->list);
    pathgate_fs_matches_dispose(&r->matches);
    pathgate_fs_read_result_dispose(&r->read);
    pathgate_fs_stat_result_dispose(&r->stat);
    pathgate_fs_blobs_dispose(&r->blobs);
    pathgate_fs_iter_free(r->iter);
    r->iter = NULL;
}

typedef struct pg_fs_op {
    const char *lua_name;
    pg_spec spec;
    int (*call)(pg_argv *a, pg_result *r);
    pg_result_kind result;
} pg_fs_op;

/*
 * PG_OP(name, Lua name, result kind, call, arguments...) describes one
 * operation: pg_op_<name>, with its arguments (after the owner) and its
 * call, one expression over the holder `a` and the result `r`.
 */
#define PG_OP(name, lua, kind, call, ...)                                                          \
    static const pg_arg name##_args[] = {__VA_ARGS__};                                             \
    static int name##_call(pg_argv *a, pg_result *r)                                               \
    {                                                                                              \
        (void)r;                                                                                   \
        return call;                                                                               \
    }                                                                                              \
    static const pg_fs_op pg_op_##name = {#lua, PG_SPEC(name##_args), name##_call, kind};

/* clang-format off */
#define PG_PATH {"path", PG_TEXT, PG_POS | PG_REQ, 0}
/* Python only: the first that many items are converted (the core's list
 * is whole; a server bounding its answer converts no more than it shows) */
#define PG_LIMIT_ARG {"limit", PG_LIMIT, PG_PY, 0}
/* clang-format on */

/* ------------------------------------------------------------ the table */

PG_OP(ls, ls, PG_R_LIST, pathgate_fs_ls(&r->list, a->resolver, PG_TXT(a, 0), &a->opts, &a->err),
      {"path", PG_TEXT, PG_POS, 0}, {"metadata", PG_NOFLAG, 0, PATHGATE_FS_NO_METADATA},
      {"info", PG_INFO, PG_PY, 0}, PG_LIMIT_ARG)

PG_OP(read, read, PG_R_READ,
      pathgate_fs_read(&r->read, a->resolver, PG_TXT(a, 0), a->v[1].i, a->v[2].i, &a->opts,
                       &a->err),
      PG_PATH, {"offset", PG_INT, PG_POS, 0},
      {"limit", PG_INT, PG_POS, PATHGATE_FS_READ_LIMIT_DEFAULT}, PG_MAX_FILE_SIZE,
      {"keep_crlf", PG_FLAG, 0, PATHGATE_FS_KEEP_CRLF})

PG_OP(read_bytes, read_bytes, PG_R_BYTES,
      pathgate_fs_read_bytes(&r->buf, a->resolver, PG_TXT(a, 0), &a->opts, &a->err), PG_PATH,
      PG_MAX_FILE_SIZE)

PG_OP(write, write, PG_R_ADDR,
      pathgate_fs_write(&r->buf, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1), &a->opts, &a->err),
      PG_PATH, {"content", PG_CONTENT, PG_POS | PG_REQ, 0})

PG_OP(edit, edit, PG_R_ADDR_COUNT,
      pathgate_fs_edit(&r->buf, &r->count, a->resolver, PG_TXT(a, 0), pg_edit(a, 1), &a->opts,
                       &a->err),
      PG_PATH, {"old", PG_TEXT, PG_POS | PG_REQ, 0}, {"new", PG_TEXT, PG_POS | PG_REQ, 0},
      {"replace_all", PG_BOOL, PG_POS, 0}, {"dry_run", PG_FLAG, 0, PATHGATE_FS_DRY_RUN})

PG_OP(delete, delete, PG_R_ADDR,
      pathgate_fs_delete(&r->buf, a->resolver, PG_TXT(a, 0), &a->opts, &a->err), PG_PATH)

/* clang-format off */
#define PG_GREP_ARGS                                                                               \
    {"pattern", PG_TEXT, PG_POS | PG_REQ, 0}, {"path", PG_TEXT, PG_POS, 0},                        \
    {"glob", PG_GLOB, PG_PYPOS, 0}, {"max_count", PG_MAX_COUNT, PG_PYPOS, 0},                      \
    {"regex", PG_SFLAG, 0, PATHGATE_FS_SEARCH_REGEX},                                              \
    {"ignore_case", PG_SFLAG, 0, PATHGATE_FS_SEARCH_IGNORE_CASE},                                  \
    {"threads", PG_THREADS, 0, 0}, PG_MAX_FILE_SIZE,                                               \
    {"all_bases", PG_SFLAG, 0, PATHGATE_FS_SEARCH_ALL_BASES}
#define PG_GLOB_ARGS                                                                               \
    {"pattern", PG_TEXT, PG_POS | PG_REQ, 0}, {"path", PG_TEXT, PG_POS, 0},                        \
    {"metadata", PG_SFLAG, 0, PATHGATE_FS_SEARCH_METADATA}, {"threads", PG_THREADS, 0, 0},         \
    {"basename", PG_SFLAG, 0, PATHGATE_FS_SEARCH_BASENAME}
/* clang-format on */

PG_OP(grep, grep, PG_R_MATCHES,
      pathgate_fs_grep(&r->matches, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1), pg_search(a), &a->err),
      PG_GREP_ARGS, {"info", PG_INFO, PG_PY, 0})

PG_OP(grep_iter, grep_iter, PG_R_GREP_ITER,
      pathgate_fs_grep_iter_new(&r->iter, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1), pg_search(a),
                                &a->err),
      PG_GREP_ARGS)

PG_OP(glob, glob, PG_R_LIST,
      pathgate_fs_glob(&r->list, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1), pg_search(a), &a->err),
      PG_GLOB_ARGS, {"info", PG_INFO, PG_PY, 0})

PG_OP(glob_iter, glob_iter, PG_R_GLOB_ITER,
      pathgate_fs_glob_iter_new(&r->iter, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1), pg_search(a),
                                &a->err),
      PG_GLOB_ARGS)

PG_OP(upload, upload_files, PG_R_CODES,
      pathgate_fs_upload(a->v[0].codes, a->resolver, a->v[0].items, a->v[0].n, &a->opts, &a->err),
      {"files", PG_ITEMS, PG_POS | PG_REQ, 0})

PG_OP(download, download_files, PG_R_BLOBS,
      pathgate_fs_download(&r->blobs, a->resolver, a->v[0].items, a->v[0].n, &a->opts, &a->err),
      {"paths", PG_PATHS, PG_POS | PG_REQ, 0}, PG_MAX_FILE_SIZE)

PG_OP(mkdir, mkdir, PG_R_ADDR,
      pathgate_fs_mkdir(&r->buf, a->resolver, PG_TXT(a, 0), (int)a->v[1].i, &a->opts, &a->err),
      PG_PATH, {"parents", PG_BOOL, PG_POS, 1})

PG_OP(move, move, PG_R_ADDR,
      pathgate_fs_move(&r->buf, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1), &a->opts, &a->err),
      {"source", PG_TEXT, PG_POS | PG_REQ, 0}, {"destination", PG_TEXT, PG_POS | PG_REQ, 0})

PG_OP(stat, stat, PG_R_STAT,
      pathgate_fs_stat(&r->stat, a->resolver, PG_TXT(a, 0), &a->opts, &a->err), PG_PATH)

PG_OP(edits, multi_edit, PG_R_ADDR_DIFF,
      pathgate_fs_edits(&r->buf, &r->buf2, a->resolver, PG_TXT(a, 0), a->v[1].edits, a->v[1].n,
                        &a->opts, &a->err),
      PG_PATH, {"edits", PG_EDITS, PG_POS | PG_REQ, 0},
      {"dry_run", PG_FLAG, PG_POS, PATHGATE_FS_DRY_RUN},
      {"lenient", PG_FLAG, 0, PATHGATE_FS_EDIT_LENIENT}, PG_MAX_FILE_SIZE)

PG_OP(head, head, PG_R_BYTES,
      pathgate_fs_head(&r->buf, a->resolver, PG_TXT(a, 0), a->v[1].n, &a->opts, &a->err), PG_PATH,
      {"lines", PG_COUNT, PG_POS, 0}, PG_MAX_FILE_SIZE)

PG_OP(tail, tail, PG_R_BYTES,
      pathgate_fs_tail(&r->buf, a->resolver, PG_TXT(a, 0), a->v[1].n, &a->opts, &a->err), PG_PATH,
      {"lines", PG_COUNT, PG_POS, 0}, PG_MAX_FILE_SIZE)

PG_OP(tree, tree, PG_R_TREE,
      pathgate_fs_tree(&r->list, a->resolver, PG_TXT(a, 0), a->v[1].texts, a->v[1].lens, a->v[1].n,
                       &a->opts, &a->err),
      PG_PATH, {"excludes", PG_TEXTS, PG_POS, 0}, PG_LIMIT_ARG)

#include "fs_toolkit_ops.h" /* copy, link, symlink, readlink, chmod, remove_tree, lstat */

/* Every operation: X(name) for each language's functions (Python:
 * _fs_<name>; Lua: pg_op_<name>.lua_name). */
/* clang-format off */
#define PG_FS_OPS(X) X(ls) X(read) X(read_bytes) X(write) X(edit) X(delete) X(grep) X(glob) X(grep_iter) \
    X(glob_iter) X(upload) X(download) X(mkdir) X(move) X(stat) X(edits) X(head) X(tail) X(tree) \
    PG_FS_TOOLKIT_OPS(X)
/* clang-format on */

#endif
