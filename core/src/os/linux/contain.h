/*
 * contain.h - internal: kernel-enforced containment beneath a directory fd
 * (contain.c). Knows nothing of resolvers: the resolver and the file
 * operations build on it.
 */
#ifndef PATHGATE_CONTAIN_H
#define PATHGATE_CONTAIN_H

#include <sys/types.h>

#include "pathgate/common.h"

/* Most symlinks followed in one walk (the kernel's own limit). */
#define PATHGATE__CONTAIN_MAX_LINKS 40
/* Most directory levels the fallback walk holds open at once. */
#define PATHGATE__CONTAIN_MAX_DEPTH 256
/* Bounded retries of openat2 answering EAGAIN. */
#define PATHGATE__CONTAIN_EAGAIN_RETRIES 32

/*
 * Opens `rel` (normalised, relative, "" = the directory itself) beneath
 * dirfd with the kernel enforcing containment: openat2 with
 * RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS (EAGAIN retried a bounded number
 * of times), or the O_NOFOLLOW component walk when openat2 answers
 * ENOSYS/EPERM or `force_fallback` is set. open_flags are open(2) flags;
 * O_CLOEXEC is always added. Returns the fd (>= 0) or -errno: -EXDEV for
 * an escape (`..` above dirfd, absolute or outward symlink, magic link),
 * -ENOENT, -ENOTDIR, -ELOOP, -EISDIR, ... exactly as the kernel says.
 * Never follows a symlink for a final component when O_NOFOLLOW is given.
 */
int pathgate__contain_open(int dirfd, const char *rel, int open_flags, mode_t mode,
                           int force_fallback);

/* How contain_open_how and contain_probe_how look up. */
#define PATHGATE__CONTAIN_FALLBACK 0x1u /* the component walk, never openat2 */
#define PATHGATE__CONTAIN_NO_LINKS                                                                 \
    0x2u /* a symlink anywhere on the way: -ELOOP
                                           (a final one too, unless O_PATH|O_NOFOLLOW) */

/* contain_open with `how` (PATHGATE__CONTAIN_*). */
int pathgate__contain_open_how(int dirfd, const char *rel, int open_flags, mode_t mode,
                               unsigned int how);

/* contain_probe with `how`. With NO_LINKS: 0 exists, -ENOENT missing (no
 * link before the miss), -ELOOP a link on the way, or -errno. */
int pathgate__contain_probe_how(int dirfd, const char *rel, unsigned int how);

/*
 * The real relative path of `rel` beneath dirfd: the names the component
 * walk goes through, every symlink on the way followed (a final one too),
 * `..` dropping a name, a missing tail kept as written. 0 with out filled,
 * or -errno (-EXDEV when it leads out, -ELOOP, -ENAMETOOLONG). One system
 * call per component: for the rare path holding a symlink.
 */
int pathgate__contain_real_rel(char *out, size_t cap, int dirfd, const char *rel,
                               int force_fallback);

/* Maps a negative errno from pathgate__contain_open to a pathgate code
 * (and the two policy refusals of policy_internal.h: ENOKEY to
 * PATHGATE_EINVALIDPATH, EKEYREJECTED to PATHGATE_EPOLICY). */
int pathgate__errno_to_code(int neg_errno);

/*
 * Existence and containment of `rel` (normalised, relative, "" = dirfd
 * itself) beneath dirfd, symlinks followed while they stay inside.
 * Returns 0 when the target exists, -ENOENT when it (or a directory on the
 * way) is missing and nothing that exists on the way leads out, -EXDEV
 * when the existing part escapes, or another -errno (-ENOTDIR, -ELOOP,
 * -EACCES, -ENAMETOOLONG, ...).
 *
 * The difference from contain_open: a missing component does not end the
 * answer. What follows it (the rest of a symlink target) is read
 * lexically, so a symlink whose target leaves dirfd through a missing
 * directory (`l -> missing/../../out`) is an escape, not a miss.
 *
 * Cost in the common case (target exists): one openat2(O_PATH) and one
 * close. A miss costs a component walk.
 */
int pathgate__contain_probe(int dirfd, const char *rel, int force_fallback);

#endif
