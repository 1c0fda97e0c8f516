/*
 * arg_spec.h - the arguments of a wrapped core call, described once for
 * both bindings, as result_fields.h describes the results: each language
 * has one binder (bindings/python/args.c, bindings/lua/args.c) that reads
 * a description, checks and converts every argument by its kind into one
 * holder (pg_argv), and the wrapper passes the holder's values to the core.
 *
 * A description is an array of pg_arg (pg_spec below): the argument's
 * name (Python keyword, Lua option and the name in messages), its kind and
 * where it is given:
 *   PG_POS    positional in both languages (Python: or by keyword)
 *   PG_PYPOS  Python: positional or by keyword; Lua: an options-table field
 *   neither   Python: keyword-only; Lua: a field of the options table, the
 *             one argument after the positional ones
 *   PG_PY     Python only (keyword-only)
 *   PG_REQ    required (required arguments come first)
 * The receiver (a Resolver or a Session) is not described: it is Python's
 * first, positional-only argument and Lua's self. Unknown keywords or
 * options, extra arguments and values of the wrong type raise in both.
 *
 * Values: the text kinds, INT, BOOL and COUNT and the lists go to
 * a->v[i] (i: the argument's index in its description); the option kinds
 * set the core options in the holder (a->opts) directly.
 */
#ifndef PATHGATE_BINDINGS_ARG_SPEC_H
#define PATHGATE_BINDINGS_ARG_SPEC_H

#include <string.h>

#include "pathgate/fs.h"

typedef enum pg_kind {
    PG_TEXT,    /* text: v.s, v.len (absent: NULL) */
    PG_CONTENT, /* bytes to write (Python: str or bytes-like): v.s, v.len */
    PG_BOOL,    /* v.i: 0 or 1 (absent: aux) */
    PG_INT,     /* v.i (absent: aux) */
    PG_COUNT,   /* v.n >= 0 (absent or None/nil: PATHGATE_FS_NO_LIMIT) */
    PG_TEXTS,   /* a list of texts: v.texts, v.lens, v.n */
    PG_PATHS,   /* a list of paths: v.items (no data), v.n */
    PG_ITEMS,   /* a list of (path, content) pairs: v.items, v.codes, v.n */
    PG_EDITS,   /* a list of (old, new[, replace_all]): v.edits, v.n */
    PG_INTS,    /* a list of integers: v.ints, v.n (Lua: the caller's own binding reads it) */
    /* options of the core call */
    PG_FLAG,      /* true: opts.flags |= aux */
    PG_NOFLAG,    /* false: opts.flags |= aux (absent: true) */
    PG_SFLAG,     /* true: search.flags |= aux */
    PG_GLOB,      /* search.glob (absent: NULL) */
    PG_MAX_COUNT, /* search.max_count >= 0 (absent: PATHGATE_FS_NO_LIMIT) */
    PG_THREADS,   /* search.threads, 0..1024 */
    PG_FILE_SIZE, /* opts.max_file_size and search.max_file_size, > 0 */
    PG_INFO,      /* a->want_info: Python answers a walk's info too */
    PG_LIMIT      /* a->limit >= 0: the most items the result converts (absent: all) */
} pg_kind;

#define PG_POS 0x1u
#define PG_PYPOS 0x2u
#define PG_PY 0x4u
#define PG_REQ 0x8u

typedef struct pg_arg {
    const char *name;
    pg_kind kind;
    unsigned int where;
    int64_t aux;
} pg_arg;

#define PG_ARGS_MAX 12

/* The size cap of the files a call reads (docs/fs.md), an option. */
/* clang-format off */
#define PG_MAX_FILE_SIZE {"max_file_size", PG_FILE_SIZE, 0, 0}
/* clang-format on */

/* A description: its arguments and how many (PG_SPEC(array)); a prefix of
 * an array describes a call taking fewer of them. */
typedef struct pg_spec {
    const pg_arg *args;
    size_t n;
} pg_spec;
#define PG_SPEC(array)                                                                             \
    {                                                                                              \
        (array), sizeof(array) / sizeof((array)[0])                                                \
    }

typedef struct pg_val {
    const char *s;
    size_t len;
    int64_t i;
    size_t n;
    const char **texts;
    size_t *lens;
    pathgate_fs_item *items;
    int *codes;
    pathgate_fs_edit_op *edits;
    int64_t *ints;
} pg_val;

/* The holder of one call's converted arguments. */
typedef struct pg_argv {
    pathgate_resolver *resolver; /* NULL when opts.session is set */
    pathgate_fs_options opts;
    pathgate_fs_search_options search; /* its fs part: see pg_search */
    pathgate_fs_edit_op edit;          /* see pg_edit */
    int want_info;
    size_t limit; /* PG_LIMIT's: the converter leaves out the items after it */
    pg_val v[PG_ARGS_MAX];
    pathgate_error err;
} pg_argv;

/* a->v[i]'s text as the core's (text, len) pair. */
#define PG_TXT(a, i) (a)->v[i].s, (a)->v[i].len

/* The search options, with the options every operation has. */
static inline const pathgate_fs_search_options *pg_search(pg_argv *a)
{
    a->search.fs = a->opts;
    return &a->search;
}

/* The edit of a->v[i] (old), v[i + 1] (new) and v[i + 2] (replace_all). */
static inline const pathgate_fs_edit_op *pg_edit(pg_argv *a, size_t i)
{
    pathgate_fs_edit_op op = {PG_TXT(a, i), PG_TXT(a, i + 1), (int)a->v[i + 2].i};
    a->edit = op;
    return &a->edit;
}

/* Lists the texts of a list kind hold (a bound against hostile input). */
#define PG_LIST_MAX 1000000

static inline int pg_is_option(const pg_arg *arg)
{
    return !(arg->where & PG_POS);
}

static inline int pg_is_list(pg_kind kind)
{
    return kind == PG_TEXTS || kind == PG_PATHS || kind == PG_ITEMS || kind == PG_EDITS ||
           kind == PG_INTS;
}

/* Empties a and gives every argument of spec its default. */
static inline void pg_argv_init(pg_argv *a, pg_spec spec)
{
    pathgate_fs_options init = PATHGATE_FS_OPTIONS_INIT;
    pathgate_fs_search_options search = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    memset(a, 0, sizeof *a);
    a->opts = init;
    a->search = search;
    a->limit = PATHGATE_FS_NO_LIMIT;
    for (size_t i = 0; i < spec.n; i++) {
        a->v[i].i = spec.args[i].aux;
        a->v[i].n = pg_is_list(spec.args[i].kind) ? 0 : PATHGATE_FS_NO_LIMIT;
    }
}

/*
 * Stores the number (the truth for BOOL, FLAG, NOFLAG and INFO) given for
 * spec[i]: NULL, or what is wrong with it ("must be >= 0"), to be shown
 * after the argument's name.
 */
static inline const char *pg_argv_number(pg_argv *a, const pg_arg *spec, size_t i, int64_t v)
{
    const pg_arg *arg = &spec[i];
    switch (arg->kind) {
    case PG_COUNT:
    case PG_MAX_COUNT:
    case PG_LIMIT:
        if (v < 0)
            return "must be >= 0";
        *(arg->kind == PG_COUNT       ? &a->v[i].n
          : arg->kind == PG_MAX_COUNT ? &a->search.max_count
                                      : &a->limit) = (size_t)v;
        return NULL;
    case PG_THREADS:
        if (v < 0 || v > 1024)
            return "must be between 0 (every core) and 1024";
        a->search.threads = (unsigned int)v;
        return NULL;
    case PG_FILE_SIZE:
        if (v <= 0)
            return "must be > 0";
        a->opts.max_file_size = a->search.max_file_size = (uint64_t)v;
        return NULL;
    case PG_FLAG:
    case PG_NOFLAG:
        if ((v != 0) == (arg->kind == PG_FLAG))
            a->opts.flags |= (unsigned int)arg->aux;
        return NULL;
    case PG_SFLAG:
        if (v)
            a->search.flags |= (unsigned int)arg->aux;
        return NULL;
    case PG_INFO:
        a->want_info = v != 0;
        return NULL;
    default: /* BOOL, INT */
        a->v[i].i = arg->kind == PG_BOOL ? v != 0 : v;
        return NULL;
    }
}

/* Stores the text given for spec[i] (TEXT, CONTENT, GLOB). */
static inline void pg_argv_text(pg_argv *a, const pg_arg *spec, size_t i, const char *s, size_t len)
{
    if (spec[i].kind == PG_GLOB) {
        a->search.glob = s;
        a->search.glob_len = len;
    } else {
        a->v[i].s = s;
        a->v[i].len = len;
    }
}

/* The kinds whose value is text, a truth value, or an integer. */
static inline int pg_is_text(pg_kind kind)
{
    return kind == PG_TEXT || kind == PG_CONTENT || kind == PG_GLOB;
}
static inline int pg_is_truth(pg_kind kind)
{
    return kind == PG_BOOL || kind == PG_FLAG || kind == PG_NOFLAG || kind == PG_SFLAG ||
           kind == PG_INFO;
}

#endif
