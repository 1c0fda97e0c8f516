/*
 * policy_match.h - internal: patterns of the policy (docs/policy.md):
 * parsing, compiling and matching a path against one list of rules, pure
 * (no resolver, no system call). Implemented in policy_match.c.
 */
#ifndef PATHGATE_POLICY_MATCH_H
#define PATHGATE_POLICY_MATCH_H

#include <stdint.h>

#include "pathgate/policy.h"

/* ------------------------------------------------------------ patterns */

/* One compiled list of rules (a deny_read or deny_write list with its
 * presets, or one list given to restrict): immutable once built. */
typedef struct pathgate__ruleset pathgate__ruleset;

/* How a list's entries name bases: root:<key> / mod:<Name> prefixes are
 * looked up here (-1: no such base). */
typedef long (*pathgate__base_lookup)(void *ctx, int is_mod, const char *name, size_t len);

/* One entry of a list to compile, with the label of where it came from. */
typedef struct pathgate__rule_src {
    const char *text;
    size_t len;
    const char *source; /* static or outliving the compile */
    /* a deny entry that covers the name itself only, not what lies below
     * it (built-in presets only: vcs's `.git` and `HEAD`) */
    int self_only;
} pathgate__rule_src;

/*
 * Compiles entries into a ruleset that denies `denies` (PATHGATE_POLICY_*).
 * ECONFIG with a message quoting the entry (never a host path) for a bad
 * pattern or a base prefix that names no base; ENOMEM.
 */
int pathgate__ruleset_compile(pathgate__ruleset **out, unsigned int denies,
                              const pathgate__rule_src *entries, size_t n,
                              pathgate__base_lookup lookup, void *lookup_ctx,
                              const pathgate_allocator *a, pathgate_error *err);
void pathgate__ruleset_free(pathgate__ruleset *rs);
unsigned int pathgate__ruleset_denies(const pathgate__ruleset *rs);
/* 1 when some rule of rs can apply in base `base`. */
int pathgate__ruleset_applies(const pathgate__ruleset *rs, size_t base);

/* A relative path split for matching (on the stack; no allocation). */
#define PATHGATE__PPATH_MAX_SEGS (PATHGATE_PATH_MAX / 2 + 1)
typedef struct pathgate__ppath {
    /* the folded form deny rules see */
    uint16_t nfold;
    uint64_t first_bits, last_bits; /* of the first and last byte of each name */
    uint16_t fold_off[PATHGATE__PPATH_MAX_SEGS];
    uint16_t fold_len[PATHGATE__PPATH_MAX_SEGS];
    char fold[PATHGATE_PATH_MAX + 1];
    /* the form as written that exceptions see (split on demand) */
    const char *raw;
    size_t raw_len;
    int raw_split;
    uint16_t nraw;
    uint16_t raw_off[PATHGATE__PPATH_MAX_SEGS];
    uint16_t raw_len_[PATHGATE__PPATH_MAX_SEGS];
} pathgate__ppath;

/* Splits rel ("" = the base itself; normalised, at most
 * PATHGATE_PATH_MAX bytes) into p. 0, or -1 when it cannot be split
 * (too long: treat as denied). */
int pathgate__ppath_init(pathgate__ppath *p, const char *rel, size_t len);

/*
 * The decision of rs for path p in base `base`: 1 denied (*entry gets the
 * index of the deciding entry), 0 not (no rule applies, or an exception
 * decided).
 */
int pathgate__ruleset_match(const pathgate__ruleset *rs, size_t base, pathgate__ppath *p,
                            size_t *entry);
/* The entry text and source label of entry i. */
const char *pathgate__ruleset_entry(const pathgate__ruleset *rs, size_t i, const char **source);
/* 1 when some path strictly below directory p could be denied by rs in
 * base (a scan must go on below it); conservative. */
int pathgate__ruleset_may_deny_below(const pathgate__ruleset *rs, size_t base, pathgate__ppath *p);

#endif
