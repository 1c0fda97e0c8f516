/*
 * policy_presets.h - internal: the built-in presets (vcs, secrets,
 * agent-config; docs/policy.md). Implemented in policy_presets.c.
 */
#ifndef PATHGATE_POLICY_PRESETS_H
#define PATHGATE_POLICY_PRESETS_H

#include <stddef.h>

#include "pathgate/policy.h"

/* ------------------------------------------------------------- presets */

/* The rules of the preset `name` (len bytes): 1 found, *rules and *n set
 * (each with what it denies in *denies_of, parallel arrays). 0 unknown. */
int pathgate__preset_find(const char *name, size_t len, const char *const **rules,
                          const unsigned char **denies_of, size_t *n, const char **source);
/* In a preset's denies_of: the rule covers the name itself only. */
#define PATHGATE__PRESET_SELF 0x80u

/* What a git pointer a vcs rule names must hold (validated by content in
 * commands, refused to file operations; docs/policy.md "vcs"). */
enum {
    PATHGATE__PTR_NONE = 0,
    PATHGATE__PTR_DOTGIT,    /* `.git`: a directory, or a file `gitdir: <a gitdir of this base>` */
    PATHGATE__PTR_HEAD,      /* `HEAD`: in a git directory a ref or an object id; beside `.git`
                                never made or changed by a command */
    PATHGATE__PTR_COMMONDIR, /* `commondir`: the repository's own git directory */
    PATHGATE__PTR_GITDIR,    /* a linked worktree's `gitdir`: a `.git` file of this base */
};
/* The pointer kind of the rule that decided verdict v (PATHGATE__PTR_NONE
 * for any other rule). */
int pathgate__preset_pointer(const pathgate_policy_verdict *v);

#endif
