/*
 * resolver_internal.h - internal: what the session, fs and exec modules use
 * of a resolver beyond its public API. Implemented in resolver.c; the
 * containment primitives it is built on are os.h's.
 */
#ifndef PATHGATE_RESOLVER_INTERNAL_H
#define PATHGATE_RESOLVER_INTERNAL_H

#include <sys/types.h>

#include "audit.h"
#include "os.h"
#include "pathgate/resolver.h"
#include "testing.h"

/* Every configured base, roots first then mods, in configuration order;
 * index i of pathgate__resolver_base_* below. */
size_t pathgate__resolver_base_count(const pathgate_resolver *r);
/* The PATHGATE__OS_O_PATH|O_DIRECTORY fd opened at construction (never closed before
 * the resolver is freed). */
int pathgate__resolver_base_fd(const pathgate_resolver *r, size_t i);
/* The canonical address of the base itself: `root:<key>` or `mod:<Name>`. */
const char *pathgate__resolver_base_address(const pathgate_resolver *r, size_t i);
/* PATHGATE_BASE_* flags of the base: READ_ONLY when it was configured so,
 * named in options.read_only, or lies inside a read-only base. */
unsigned int pathgate__resolver_base_flags(const pathgate_resolver *r, size_t i);

/* 1 when some base is read-only (then the two checks below matter). */
int pathgate__resolver_has_read_only(const pathgate_resolver *r);

/*
 * Where an entry lives: 1 when the directory open as dirfd (any fd of a
 * directory reached beneath base i) is, or lies inside, a read-only base's
 * directory, or base i itself is read-only; 0 when it is writable; -errno
 * when the walk up through `..` (stopping at base i, or at the filesystem
 * root) fails. Compares device and inode, never paths.
 */
int pathgate__resolver_dir_read_only(const pathgate_resolver *r, size_t i, int dirfd);

/* 1 when the directory open as dirfd is, or holds, a read-only base's
 * directory (deleting it would delete read-only files); 0 otherwise;
 * -errno. */
int pathgate__resolver_dir_holds_read_only(const pathgate_resolver *r, int dirfd);
/* The base's real host path recorded at construction (for host_path and
 * for Landlock rules; never for a containment decision, never in a
 * message). */
const char *pathgate__resolver_base_host_path(const pathgate_resolver *r, size_t i);
/* The resolver's allocator. */
const pathgate_allocator *pathgate__resolver_allocator(const pathgate_resolver *r);
/* Something a module above the resolver keeps per resolver: the resolver
 * frees it with itself by the destructor it carries (its first member) and
 * knows nothing else of it. */
typedef struct pathgate__resolver_extra {
    void (*free)(struct pathgate__resolver_extra *self);
} pathgate__resolver_extra;
/* Where contained execution keeps the resolver's prepared views
 * (exec_template.h's cache; NULL until the first command, set with an
 * atomic compare-and-swap, freed with the resolver). */
pathgate__resolver_extra **pathgate__resolver_exec_slot(pathgate_resolver *r);
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
                            size_t len, int open_flags, unsigned int mode);

/* pathgate_resolver_resolve without an audit event (for operations that
 * emit their own). */
int pathgate__resolver_resolve_quiet(pathgate_resolution *out, pathgate_resolver *r,
                                     const char *text, size_t len,
                                     const pathgate_resolve_options *opts, pathgate_error *err);

/* The lexical part of resolve: the base and the canonical address of
 * text (relative text against base_text, when not NULL) into addr (cap
 * bytes; *rel points into it). No system call, no token.
 * PATHGATE_EINVALIDPATH when it names no address. */
int pathgate__resolver_locate(size_t *base, char *addr, size_t cap, const char **rel,
                              const pathgate_resolver *r, const char *text, size_t len,
                              const char *base_text, size_t base_len, pathgate_error *err);

/* The resolver's policy store (policy.c), made with it. */
struct pathgate__policy_store;
struct pathgate__policy_store *pathgate__resolver_policy_store(const pathgate_resolver *r);

/* The audit callback and context (*fn NULL: none); returns the door. */
const char *pathgate__resolver_audit(const pathgate_resolver *r, pathgate_audit_fn *fn, void **ctx);

/* 1 when the resolver has an audit callback. */
int pathgate__audit_enabled(const pathgate_resolver *r);
/* Hands the event to the resolver's callback (audit.c builds it), with
 * the door and, for the operator, the host path of (base, rel). */
void pathgate__audit_emit(const pathgate_resolver *r, const pathgate__audit_rec *rec);

#endif
