/*
 * contain.h - internal: kernel-enforced containment beneath a directory fd.
 *
 * pathgate__contain_open and pathgate__errno_to_code are declared in
 * resolver_internal.h (the contract other modules use); this header adds
 * what only the resolver needs.
 */
#ifndef PATHGATE_CONTAIN_H
#define PATHGATE_CONTAIN_H

#include "resolver_internal.h"

/* Most symlinks followed in one walk (the kernel's own limit). */
#define PATHGATE__CONTAIN_MAX_LINKS 40
/* Most directory levels the fallback walk holds open at once. */
#define PATHGATE__CONTAIN_MAX_DEPTH 256
/* Bounded retries of openat2 answering EAGAIN. */
#define PATHGATE__CONTAIN_EAGAIN_RETRIES 32

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
