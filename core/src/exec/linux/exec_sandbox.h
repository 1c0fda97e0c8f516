/*
 * exec_sandbox.h - internal: the Landlock policy of a contained command.
 *
 * The caller's grants (a directory fd and access classes each: the roots,
 * the mods, the private temporary directory) plus the fixed system policy
 * (exec_sandbox.c documents it) become one ruleset.
 */
#ifndef PATHGATE_EXEC_SANDBOX_H
#define PATHGATE_EXEC_SANDBOX_H

#include <stddef.h>

#include "pathgate/common.h"

typedef struct pathgate__exec_grant {
    int fd;               /* O_PATH directory (or file) fd, owned by the caller */
    unsigned int classes; /* PATHGATE__LL_* */
    const char *view;     /* its name in the view (`root:<key>`); NULL = not shown */
} pathgate__exec_grant;

/*
 * Creates the ruleset (O_CLOEXEC fd in *out) for `abi` (>= 1): every grant,
 * then the system rules: `system` (a prepared view's: its /etc and the
 * host entries it shows), or when NULL the host's system paths (without
 * a view). deny_tcp denies TCP bind/connect (ABI >= 4). A grant that
 * cannot be added fails the whole call (PATHGATE_EIO: fail closed); a
 * system path that is missing is skipped.
 */
int pathgate__exec_sandbox_build(int *out, int abi, int deny_tcp,
                                 const pathgate__exec_grant *grants, size_t ngrants,
                                 const pathgate__exec_grant *system, size_t nsystem,
                                 pathgate_error *err);

#endif
