/*
 * policy_internal.h - internal: the policy layer (docs/policy.md).
 *
 *   policy_match.c    patterns: parsing, compiling, matching a path (pure)
 *   policy_presets.c  the built-in presets
 *   policy.c          rule sets of a resolver, verdicts by every address,
 *                     restrict and the public check
 *   policy_scan.c     what is denied below a directory (for delete and
 *                     move now; for the command view's masks later)
 *   audit.c           the events
 *   fs_policy.c       how the file operations apply it
 */
#ifndef PATHGATE_POLICY_INTERNAL_H
#define PATHGATE_POLICY_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "pathgate/policy.h"
#include "pathgate/resolver.h"

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

/* ------------------------------------------------------------- presets */

/* The hooks directory `core.hooksPath` names in the configuration of the
 * repository at the top of each base under vcs (with its includes), and
 * the included files inside the base, added as deny_write rules (source
 * preset:vcs) when not denied already (policy_hooks.c). At the resolver's
 * build and before each command's scan. 0 or ENOMEM. */
int pathgate__policy_hooks_refresh(pathgate_resolver *r, pathgate_error *err);

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

/* ------------------------------------------------------ the resolver's */

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
int pathgate__policy_store_new(pathgate__policy_store **out, const pathgate_resolver *r,
                               const pathgate_allocator *a);
void pathgate__policy_store_free(pathgate__policy_store *s);

/* Compiles the policy of the resolver options (version >= 3) into r's
 * store. */
int pathgate__policy_from_options(pathgate_resolver *r, const pathgate_resolver_options *opts,
                                  pathgate_error *err);

/* For a subroot (fs_subroot.c): sub, a new resolver whose one base is the
 * directory at host path `host` inside base `base` of parent, takes the
 * parent's rules as they are now (the snapshot in force; a later restrict
 * of the parent does not reach it): a path of sub is judged as the path
 * of the parent that names the same file, too. Keeps what it needs of the
 * parent alive (the parent may be freed first). PATHGATE_EINVALIDPATH
 * when host is not inside the base's directory, ENOMEM. */
int pathgate__policy_inherit(pathgate_resolver *sub, const pathgate_resolver *parent, size_t base,
                             const char *host, size_t host_len);

/* The snapshot in force (NULL: no policy); valid as long as the resolver. */
const pathgate__policy *pathgate__policy_of(const pathgate_resolver *r);

/* 1 when base i's addresses are judged at all (fast path: 0 = allowed). */
static inline int pathgate__policy_active(const pathgate__policy *p, size_t base)
{
    return p && p->active[base];
}

/* What a verdict is asked for. */
#define PATHGATE__ACCESS_READ 1u  /* deny_read only */
#define PATHGATE__ACCESS_WRITE 2u /* deny_read and deny_write */

/*
 * The verdict for (base, rel) by name: the rule sets of base and of every
 * base the same host path lies in (a mod inside a root ...). Returns the
 * PATHGATE_POLICY_DENY_* bits denied for `access` (DENY_READ wins and is
 * reported alone); v (optional) gets the rule and source. No system call.
 */
unsigned int pathgate__policy_verdict(pathgate_policy_verdict *v, const pathgate_resolver *r,
                                      size_t base, const char *rel, size_t len,
                                      unsigned int access);

/* 1 when something strictly below directory (base, rel) could be denied
 * for access (so a scan of it must look). */
int pathgate__policy_may_deny_below(const pathgate_resolver *r, size_t base, const char *rel,
                                    size_t len, unsigned int access);

/*
 * The real relative path of what rel names beneath base i, every symlink
 * on the way followed (a missing tail kept as written): contain.c's walk.
 * 0 with out (cap bytes) filled, or -errno (-EXDEV: it leads out).
 */
int pathgate__policy_real_rel(char *out, size_t cap, const pathgate_resolver *r, size_t base,
                              const char *rel);

/*
 * The verdict for the object an fd holds, reached at `rel` beneath base
 * through a symlink: its real path is found (pathgate__policy_real_rel),
 * checked to be the very object fd holds (device and inode), and judged,
 * with `tail` (may be "") appended: the rest of the operand below the
 * directory fd holds. follow_final: fd was opened following a final
 * symlink (else it is the link itself). 0 allowed; -ENOKEY denied to read; -EKEYREJECTED
 * denied to write; -EAGAIN when the path changed under us; -errno.
 */
int pathgate__policy_check_fd(pathgate_policy_verdict *v, const pathgate_resolver *r, size_t base,
                              const char *rel, int fd, int follow_final, const char *tail,
                              size_t tail_len, unsigned int access);

/* The errnos by which an open reports a policy refusal (contain.c maps
 * them: ENOKEY -> PATHGATE_EINVALIDPATH, EKEYREJECTED -> PATHGATE_EPOLICY). */
#define PATHGATE__POLICY_ENOREAD ENOKEY
#define PATHGATE__POLICY_ENOWRITE EKEYREJECTED

/* --------------------------------------------------------------- scan */

/* What a scan reports: an entry (relative to the scanned directory) that
 * the policy denies; `is_dir` when it is a directory (not descended). A
 * non-zero return stops the scan with that value. */
typedef int (*pathgate__scan_fn)(void *ctx, const char *sub, size_t sub_len, int is_dir,
                                 unsigned int denied, const pathgate_policy_verdict *v);

/*
 * Walks the tree below the directory dirfd, which is (base, rel), never
 * following a symlink, and calls fn for each entry denied for `access`
 * either where it is or (when alt_rel is not NULL) at alt_base/alt_rel
 * below (where a move would put it). Directories under which nothing can
 * be denied are not entered. Returns 0, fn's non-zero value, or -errno
 * (an unreadable directory fails the scan: what cannot be seen is not
 * known to be allowed).
 */
int pathgate__policy_scan(const pathgate_resolver *r, size_t base, const char *rel, int dirfd,
                          size_t alt_base, const char *alt_rel, unsigned int access,
                          pathgate__scan_fn fn, void *ctx);

/*
 * What a command's view must mask or mount read-only when it starts:
 * every entry of base i that the policy denies (fn's `denied`:
 * DENY_READ = mask it, DENY_WRITE = mount it read-only), a denied
 * directory reported whole and not entered, symlinks reported as the
 * entries they are (never followed). The scan above, over the whole base.
 */
int pathgate__policy_enumerate(const pathgate_resolver *r, size_t base, pathgate__scan_fn fn,
                               void *ctx);

/* -------------------------------------------------------------- audit */

/* One event to emit (what the emitter cannot find itself). */
typedef struct pathgate__audit_rec {
    const char *operation;
    const char *role;
    int has_base; /* base and rel are set: the host path can be given */
    size_t base;
    const char *address; /* NUL-terminated, or NULL */
    const char *rel;     /* into address, when has_base */
    const char *outcome;
    const char *reason;
    const char *rule;
    const char *source;
    uint64_t count;
    const char *ip;           /* a network decision's address (operator only) */
    unsigned int protections; /* a command's (exec_policy.c) */
    int has_status;           /* exit_status is set (a command's end) */
    int exit_status;
} pathgate__audit_rec;

/* 1 when the resolver has an audit callback. */
int pathgate__audit_enabled(const pathgate_resolver *r);
/* Stamps the time and door, finds the host path, calls the callback. */
void pathgate__audit_emit(const pathgate_resolver *r, const pathgate__audit_rec *rec);

#endif
