/*
 * resolver_policy.h - internal: the policy of a resolver (docs/policy.md)
 * as the session, fs, walk, edit and exec modules ask for it: by resolver
 * and base index. Implemented in resolver_policy.c on the resolver's
 * store (policy/policy_internal.h), which knows nothing of resolvers.
 */
#ifndef PATHGATE_RESOLVER_POLICY_H
#define PATHGATE_RESOLVER_POLICY_H

#include "pathgate/resolver.h"
#include "policy_internal.h"

/* For a subroot (fs_subroot.c): sub, a new resolver whose one base is the
 * directory at host path `host` inside base `base` of parent, takes the
 * parent's rules as they are now (the snapshot in force; a later restrict
 * of the parent does not reach it): a path of sub is judged as the path
 * of the parent that names the same file, too. Keeps what it needs of the
 * parent alive (the parent may be freed first). PATHGATE_EINVALIDPATH
 * when host is not inside the base's directory, ENOMEM. */
int pathgate__policy_inherit(pathgate_resolver *sub, const pathgate_resolver *parent, size_t base,
                             const char *host, size_t host_len);

/* The vcs preset's hooks rules brought up to date (the repositories'
 * configuration read again): pathgate__policy_store_hooks_refresh on the
 * resolver's store. Before each command's scan (exec.c). 0 or ENOMEM. */
int pathgate__policy_hooks_refresh(pathgate_resolver *r, pathgate_error *err);

/* The snapshot in force (NULL: no policy); valid as long as the resolver. */
const pathgate__policy *pathgate__policy_of(const pathgate_resolver *r);

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
 * symlink (else it is the link itself). 0 allowed; PATHGATE__OS_EHIDDEN denied to read;
 * PATHGATE__OS_EPROTECTED denied to write; -EAGAIN when the path changed under us; -errno.
 */
int pathgate__policy_check_fd(pathgate_policy_verdict *v, const pathgate_resolver *r, size_t base,
                              const char *rel, int fd, int follow_final, const char *tail,
                              size_t tail_len, unsigned int access);

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

#endif
