/*
 * policy_internal.h - internal: the rule sets of one resolver (policy.c)
 * and what they deny below a directory (policy_scan.c), docs/policy.md.
 *
 * The policy sits below the resolver: it never calls one. What it needs of
 * the resolver it serves (its bases: names, real paths, directory handles;
 * its allocator and containment flags) comes in a pathgate__policy_input
 * when the store is made. The resolver's view of it (a verdict by a
 * resolver and an address, restrict, the public check) is
 * resolve/resolver_policy.h's.
 *
 * The patterns are policy_match.h's, the presets policy_presets.h's.
 */
#ifndef PATHGATE_POLICY_INTERNAL_H
#define PATHGATE_POLICY_INTERNAL_H

#include <errno.h>
#include <stddef.h>

#include "pathgate/policy.h"
#include "pathgate/resolver.h"
#include "os.h"
#include "policy_match.h"

/* ---------------------------------------------------------- the input */

/* One base of the resolver a store serves, index i of its bases (roots
 * first, then mods). */
typedef struct pathgate__policy_base {
    const char *name; /* root key or mod name (NUL-terminated) */
    int is_mod;
    const char *host; /* real host path recorded at construction */
    int fd;           /* the base directory's handle (the resolver's) */
} pathgate__policy_base;

/* What a store needs of its resolver. The strings and handles are the
 * resolver's: they live as long as it. A store that outlives its resolver
 * (a subroot inherits it) only judges by name, never touching them. */
typedef struct pathgate__policy_input {
    const pathgate__policy_base *bases;
    size_t nbases;
    const pathgate_allocator *alloc;
    int fallback; /* never the kernel's beneath-lookup: the O_NOFOLLOW walk (testing.h) */
} pathgate__policy_input;

/* ------------------------------------------------------------ the store */

/* The rule sets in force: an immutable snapshot, published atomically. */
typedef struct pathgate__policy {
    size_t nsets;
    const pathgate__ruleset *const *sets;
    /* per base: 1 when some set applies to it or to a base it aliases */
    const unsigned char *active;
} pathgate__policy;

/* Where a resolver keeps its rule sets and snapshots (one per resolver,
 * made with it): the aliases between its bases, computed from their real
 * paths, and a lock for restrict. */
typedef struct pathgate__policy_store pathgate__policy_store;
int pathgate__policy_store_new(pathgate__policy_store **out, const pathgate__policy_input *in);
void pathgate__policy_store_free(pathgate__policy_store *s);

/* The store's allocator (its resolver's), and the handle of base i. */
const pathgate_allocator *pathgate__policy_store_allocator(const pathgate__policy_store *s);
int pathgate__policy_store_base_fd(const pathgate__policy_store *s, size_t i);
/* Base i of the store's input (NULL past the last): valid while its
 * resolver is (never for a store a subroot inherited). */
const pathgate__policy_base *pathgate__policy_store_base(const pathgate__policy_store *s, size_t i);

/* The snapshot in force (NULL: no store or no policy). */
const pathgate__policy *pathgate__policy_store_current(const pathgate__policy_store *s);

/* 1 when base i's addresses are judged at all (fast path: 0 = allowed). */
static inline int pathgate__policy_active(const pathgate__policy *p, size_t base)
{
    return p && p->active[base];
}

/* Compiles the lists (the rules of the named presets first) and publishes
 * them. read_source and write_source label the rules; they must outlive
 * the store (static, or a label given to pathgate__policy_store_label). */
int pathgate__policy_store_add(pathgate__policy_store *s, const char *const *deny_read,
                               size_t nread, const char *const *deny_write, size_t nwrite,
                               const char *const *presets, size_t npresets, const char *read_source,
                               const char *write_source, pathgate_error *err);
/* A copy of source kept as long as the store (*out points to it). */
int pathgate__policy_store_label(const char **out, pathgate__policy_store *s, const char *source,
                                 pathgate_error *err);

/* The hooks directory `core.hooksPath` names in the configuration of the
 * repository at the top of each base under vcs (with its includes), and
 * the included files inside the base, added as deny_write rules (source
 * preset:vcs) when not denied already (policy_hooks.c). At the resolver's
 * build and before each command's scan (pathgate__policy_hooks_refresh in
 * resolver_policy.h). 0 or ENOMEM. */
int pathgate__policy_store_hooks_refresh(pathgate__policy_store *s, pathgate_error *err);

/* s, the store of a subroot whose one base is the directory at host path
 * `host` inside base `base` of parent, takes parent's rules as they are
 * now (see pathgate__policy_inherit in resolver_policy.h). */
int pathgate__policy_store_inherit(pathgate__policy_store *s, pathgate__policy_store *parent,
                                   size_t base, const char *host, size_t host_len);

/* What a verdict is asked for. */
#define PATHGATE__ACCESS_READ 1u  /* deny_read only */
#define PATHGATE__ACCESS_WRITE 2u /* deny_read and deny_write */

/* The verdict of store s for (base, rel) by name: see
 * pathgate__policy_verdict in resolver_policy.h. */
unsigned int pathgate__policy_store_verdict(pathgate_policy_verdict *v,
                                            const pathgate__policy_store *s, size_t base,
                                            const char *rel, size_t len, unsigned int access);
/* 1 when something strictly below directory (base, rel) could be denied
 * for access (so a scan of it must look). */
int pathgate__policy_store_may_deny_below(const pathgate__policy_store *s, size_t base,
                                          const char *rel, size_t len, unsigned int access);

/* The real relative path of rel beneath base (contain.c's walk): see
 * pathgate__policy_real_rel. */
int pathgate__policy_store_real_rel(char *out, size_t cap, const pathgate__policy_store *s,
                                    size_t base, const char *rel);
/* The verdict for the object fd holds: see pathgate__policy_check_fd. */
int pathgate__policy_store_check_fd(pathgate_policy_verdict *v, const pathgate__policy_store *s,
                                    size_t base, const char *rel, int fd, int follow_final,
                                    const char *tail, size_t tail_len, unsigned int access);
/* pathgate_resolver_policy_check once the address is located: (base,
 * rel) judged by name and, through a symlink on the way, by what it leads
 * to. */
void pathgate__policy_store_check(pathgate_policy_verdict *out, const pathgate__policy_store *s,
                                  size_t base, const char *rel);

/* The errors by which an open reports a policy refusal, negated: os.h's
 * own sentinels (pathgate__errno_to_code maps them: PATHGATE__OS_EHIDDEN
 * -> PATHGATE_EINVALIDPATH, PATHGATE__OS_EPROTECTED -> PATHGATE_EPOLICY). */
#define PATHGATE__POLICY_ENOREAD (-PATHGATE__OS_EHIDDEN)
#define PATHGATE__POLICY_ENOWRITE (-PATHGATE__OS_EPROTECTED)

/* --------------------------------------------------------------- scan */

/* What a scan reports: an entry (relative to the scanned directory) that
 * the policy denies; `is_dir` when it is a directory (not descended). A
 * non-zero return stops the scan with that value. */
typedef int (*pathgate__scan_fn)(void *ctx, const char *sub, size_t sub_len, int is_dir,
                                 unsigned int denied, const pathgate_policy_verdict *v);

/* pathgate__policy_scan (resolver_policy.h) on a store. */
int pathgate__policy_store_scan(const pathgate__policy_store *s, size_t base, const char *rel,
                                int dirfd, size_t alt_base, const char *alt_rel,
                                unsigned int access, pathgate__scan_fn fn, void *ctx);
/* pathgate__policy_enumerate (resolver_policy.h) on a store. */
int pathgate__policy_store_enumerate(const pathgate__policy_store *s, size_t base,
                                     pathgate__scan_fn fn, void *ctx);

#endif
