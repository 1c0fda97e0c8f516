/*
 * glob.h - internal: the glob pattern matcher of the file operations
 * (docs/spec.md section 7). Pure: no system call, no global state.
 *
 * Syntax: `*` (any run within one name), `?` (one character), `[abc]`,
 * `[a-z]`, `[!abc]` / `[^abc]`, `\x` (a literal x), `{a,b}` (alternatives,
 * nested, may hold `/`; a group without a top-level comma is literal), and
 * `**` as a whole segment (zero or more directories). Characters are UTF-8
 * code points; matching is case-sensitive.
 *
 * A pattern (alternative) without `/` matches a name at any depth: it is
 * read as `**` + `/` + pattern. With `/` it matches the path relative to
 * the search root; leading `/` are ignored; a trailing `/` names
 * directories only, so it matches no file. A name starting with `.` is
 * matched only by a pattern segment that starts with a literal `.`: `*`,
 * `?`, classes and `**` never match a leading dot.
 *
 * The compiled pattern is a small NFA over path segments, stepped one name
 * at a time, so a directory walk keeps one state per level and can prune a
 * directory under which nothing can match.
 */
#ifndef PATHGATE_GLOB_H
#define PATHGATE_GLOB_H

#include "pathgate/common.h"

typedef struct pathgate__glob pathgate__glob;

/* Most alternatives a brace expansion may produce. */
#define PATHGATE__GLOB_MAX_ALTERNATIVES 256

/* Compiles pattern[0..len). PATHGATE_EINVAL (empty pattern, too many brace
 * alternatives), PATHGATE_ENUL, PATHGATE_EUTF8, PATHGATE_ETOOLONG,
 * PATHGATE_ENOMEM. */
int pathgate__glob_compile(pathgate__glob **out, const char *pattern, size_t len,
                           const pathgate_allocator *alloc, pathgate_error *err);
/* Flags of pathgate__glob_compile_flags. BASENAME: a pattern (alternative)
 * without `/` matches a file name at any depth, dot-directories included
 * (`*.yml` finds `.github/workflows/ci.yml`; `**` still never enters
 * them), and a leading `/` anchors the pattern to the search root (`/` + `*.py`
 * matches `top.py` only). */
#define PATHGATE__GLOB_BASENAME 0x1u
int pathgate__glob_compile_flags(pathgate__glob **out, const char *pattern, size_t len,
                                 unsigned flags, const pathgate_allocator *alloc,
                                 pathgate_error *err);
void pathgate__glob_free(pathgate__glob *g);

/* Bytes of one state (a bitset over the NFA positions). */
size_t pathgate__glob_state_size(const pathgate__glob *g);
/* The state at the search root, before any name. */
void pathgate__glob_start(const pathgate__glob *g, unsigned char *state);
/* Consumes one name: writes the next state and returns 1 when a longer
 * path could still match (a directory worth descending into). */
int pathgate__glob_step(const pathgate__glob *g, unsigned char *next, const unsigned char *cur,
                        const char *name, size_t len);
/* 1 when the path consumed so far matches. */
int pathgate__glob_accepts(const pathgate__glob *g, const unsigned char *state);

/* Whole-path convenience: `a/b/c` relative to the search root. */
int pathgate__glob_match_path(const pathgate__glob *g, const char *path, size_t len);

/* One name against one pattern segment (no `/`, no braces), with the
 * leading-dot rule. Exposed for the tests. */
int pathgate__glob_match_segment(const char *pat, size_t plen, const char *name, size_t nlen);

#endif
