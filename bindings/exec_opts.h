/*
 * exec_opts.h - the options of a contained command (pathgate_exec_options,
 * docs/exec.md) described once for both bindings (bindings/lua/exec.c,
 * bindings/python/exec.c): per option its name (Lua's table key, Python's
 * keyword), the kind of value it takes and, for a limit its maximum, for a
 * test-only flag its bit. Each binding reads a value by its kind, in its
 * own types and with its own messages, and stores it with
 * pg_exec_opt_set_text, _set_seconds, _set_num or _set_list; the env
 * array, which needs holders, each binding builds and sets itself.
 *
 * A new option: one X line here (and its field in pg_exec_opt_set_*).
 */
#ifndef PATHGATE_BINDINGS_EXEC_OPTS_H
#define PATHGATE_BINDINGS_EXEC_OPTS_H

#include <math.h>
#include <stddef.h>

#include "pathgate/exec.h"

typedef enum pg_exec_opt_kind {
    PG_XO_TEXT,    /* a string (cwd, home: canonical addresses) */
    PG_XO_SECONDS, /* a number of seconds > 0, at most PG_XO_SECONDS_MAX */
    PG_XO_CAP,     /* an integer > 0 (output_cap) */
    PG_XO_BOOL,    /* a boolean */
    PG_XO_FLAG,    /* a boolean that sets a test-only bit of flags */
    PG_XO_LIMIT,   /* an integer > 0, at most the entry's max */
    PG_XO_ABI_CAP, /* an integer 0..the entry's max (_test_abi_cap) */
    PG_XO_ENV,     /* names to strings */
    PG_XO_LIST,    /* a sequence of strings (allow_domains, toolchains) */
    PG_XO_ID_RANGE /* "none", or a pair (first, count) with count >= 2 (id_range) */
} pg_exec_opt_kind;

/* The longest timeout, in seconds. */
#define PG_XO_SECONDS_MAX 4.0e6

/* X(name, kind, arg): in the order of Python's _execute keywords. */
#define PG_EXEC_OPTIONS(X)                                                                         \
    X(cwd, TEXT, 0)                                                                                \
    X(timeout, SECONDS, 0)                                                                         \
    X(output_cap, CAP, 0)                                                                          \
    X(allow_network, BOOL, 0)                                                                      \
    X(allow_unconfined, BOOL, 0)                                                                   \
    X(env, ENV, 0)                                                                                 \
    X(_test_no_landlock, FLAG, PATHGATE_EXEC_TEST_NO_LANDLOCK)                                     \
    X(max_processes, LIMIT, 0xFFFFFFFFull)                                                         \
    X(max_memory, LIMIT, ~0ull)                                                                    \
    X(max_cpu_seconds, LIMIT, 0xFFFFFFFFull)                                                       \
    X(max_file_size, LIMIT, ~0ull)                                                                 \
    X(tmp_size, LIMIT, ~0ull)                                                                      \
    X(_test_no_namespaces, FLAG, PATHGATE_EXEC_TEST_NO_NAMESPACES)                                 \
    X(_test_abi_cap, ABI_CAP, 15)                                                                  \
    X(_test_no_idmap, FLAG, PATHGATE_EXEC_TEST_NO_IDMAP)                                           \
    X(home, TEXT, 0)                                                                               \
    X(allow_domains, LIST, 0)                                                                      \
    X(toolchains, LIST, 0)                                                                         \
    X(toolchains_at_host_path, BOOL, 0)                                                            \
    X(id_range, ID_RANGE, 0)

typedef enum pg_exec_opt_id {
#define PG__XO_ID(name, kind, arg) PG_XO_##name,
    PG_EXEC_OPTIONS(PG__XO_ID)
#undef PG__XO_ID
        PG_XO_COUNT
} pg_exec_opt_id;

typedef struct pg_exec_opt {
    const char *name;
    pg_exec_opt_kind kind;
    unsigned long long arg; /* LIMIT, ABI_CAP: the maximum; FLAG: the bit */
} pg_exec_opt;

#define PG__XO_ENTRY(name, kind, arg) {#name, PG_XO_##kind, arg},
static const pg_exec_opt pg_exec_opts[PG_XO_COUNT] = {PG_EXEC_OPTIONS(PG__XO_ENTRY)};
#undef PG__XO_ENTRY

/* The option called name (len bytes), or -1. */
static inline int pg_exec_opt_find(const char *name, size_t len)
{
    for (int i = 0; i < PG_XO_COUNT; i++) {
        const char *n = pg_exec_opts[i].name;
        size_t k = 0;
        while (k < len && n[k] && n[k] == name[k])
            k++;
        if (k == len && n[k] == '\0')
            return i;
    }
    return -1;
}

/* Stores text (alive for the call) as option id (a TEXT option). */
static inline void pg_exec_opt_set_text(pathgate_exec_options *o, pg_exec_opt_id id, const char *s,
                                        size_t len)
{
    if (id == PG_XO_cwd) {
        o->cwd = s;
        o->cwd_len = len;
    } else if (id == PG_XO_home) {
        o->home = s;
        o->home_len = len;
    }
}

/* Stores a checked timeout (seconds, a SECONDS option) as whole
 * milliseconds, rounded up. */
static inline void pg_exec_opt_set_seconds(pathgate_exec_options *o, double seconds)
{
    o->timeout_ms = (unsigned int)ceil(seconds * 1000.0);
}

/* Stores a checked value as option id: 0 or 1 for BOOL and FLAG, the
 * integer for CAP, LIMIT and ABI_CAP. */
static inline void pg_exec_opt_set_num(pathgate_exec_options *o, pg_exec_opt_id id,
                                       unsigned long long n)
{
    switch (id) {
    case PG_XO_output_cap:
        o->output_cap = (size_t)n;
        break;
    case PG_XO_allow_network:
        o->allow_network = n != 0;
        break;
    case PG_XO_allow_unconfined:
        o->allow_unconfined = n != 0;
        break;
    case PG_XO_max_processes:
        o->max_processes = (unsigned int)n;
        break;
    case PG_XO_max_memory:
        o->max_memory = n;
        break;
    case PG_XO_max_cpu_seconds:
        o->max_cpu_seconds = (unsigned int)n;
        break;
    case PG_XO_max_file_size:
        o->max_file_size = n;
        break;
    case PG_XO_tmp_size:
        o->tmp_size = n;
        break;
    case PG_XO_toolchains_at_host_path:
        o->toolchains_at_host_path = n != 0;
        break;
    case PG_XO__test_abi_cap:
        o->flags |= PATHGATE_EXEC_TEST_ABI_CAP(n);
        break;
    default:
        if (pg_exec_opts[id].kind == PG_XO_FLAG && n)
            o->flags |= (unsigned int)pg_exec_opts[id].arg;
        break;
    }
}

/* Stores a NULL-ended list of strings (alive for the call) as option id
 * (a LIST option). */
static inline void pg_exec_opt_set_list(pathgate_exec_options *o, pg_exec_opt_id id,
                                        const char **list)
{
    if (id == PG_XO_allow_domains)
        o->allow_domains = list;
    else if (id == PG_XO_toolchains)
        o->toolchains = list;
}

#endif
