/*
 * policy_presets.h - internal: the built-in presets (vcs, secrets,
 * agent-config; docs/policy.md). Implemented in policy_presets.c.
 */
#ifndef PATHGATE_POLICY_PRESETS_H
#define PATHGATE_POLICY_PRESETS_H

#include <stddef.h>

/* ------------------------------------------------------------- presets */

/* The rules of the preset `name` (len bytes): 1 found, *rules and *n set
 * (each with what it denies in *denies_of, parallel arrays). 0 unknown. */
int pathgate__preset_find(const char *name, size_t len, const char *const **rules,
                          const unsigned char **denies_of, size_t *n, const char **source);

#endif
