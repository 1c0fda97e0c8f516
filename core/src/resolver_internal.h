/*
 * resolver_internal.h - internal: what the session, fs and exec modules use
 * of a resolver beyond its public API. Implemented in resolver.c; the
 * containment primitives it is built on are contain.h's.
 */
#ifndef PATHGATE_RESOLVER_INTERNAL_H
#define PATHGATE_RESOLVER_INTERNAL_H

#include <sys/types.h>

#include "contain.h"
#include "pathgate/resolver.h"
#include "testing.h"

/* Every configured base, roots first then mods, in configuration order;
 * index i of pathgate__resolver_base_* below. */
size_t pathgate__resolver_base_count(const pathgate_resolver *r);
/* The O_PATH|O_DIRECTORY fd opened at construction (never closed before
 * the resolver is freed). */
int pathgate__resolver_base_fd(const pathgate_resolver *r, size_t i);
/* The canonical address of the base itself: `root:<key>` or `mod:<Name>`. */
const char *pathgate__resolver_base_address(const pathgate_resolver *r, size_t i);
/* PATHGATE_BASE_* flags of the base. */
unsigned int pathgate__resolver_base_flags(const pathgate_resolver *r, size_t i);
/* The base's real host path recorded at construction (for host_path and
 * for Landlock rules; never for a containment decision, never in a
 * message). */
const char *pathgate__resolver_base_host_path(const pathgate_resolver *r, size_t i);
/* The resolver's allocator. */
const pathgate_allocator *pathgate__resolver_allocator(const pathgate_resolver *r);
/* PATHGATE_RESOLVER_* flags (FORCE_FALLBACK). */
unsigned int pathgate__resolver_flags(const pathgate_resolver *r);

/*
 * Re-resolves a canonical address (as carried by a ref: `root:k/rel` or
 * `mod:N/rel`, exactly the canonical form; nothing else is accepted here)
 * into its base index and its normalised rel (pointing into address; ""
 * at the base). Lexical only, no system call. PATHGATE_EINVALIDPATH when
 * it is not a canonical address of a configured base.
 */
int pathgate__resolver_split(size_t *base_index, const char **rel, const pathgate_resolver *r,
                             const char *address, size_t len);

/*
 * Opens the target of a canonical address beneath its base (split +
 * contain_open with the resolver's flags). Returns the fd or a negative
 * pathgate code: PATHGATE_EINVALIDPATH (not canonical, unknown base, or an
 * escape), PATHGATE_ENOTFOUND, PATHGATE_ENOTDIR, PATHGATE_EISDIR,
 * PATHGATE_EACCES, PATHGATE_EIO. *base_index (optional) receives the base.
 */
int pathgate__resolver_open(size_t *base_index, pathgate_resolver *r, const char *address,
                            size_t len, int open_flags, mode_t mode);

#endif
