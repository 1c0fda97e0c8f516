/* exec_run.c - one contained run: the options, the plan, the run. */
#define _GNU_SOURCE
#include "exec_run.h"

#include <stddef.h>
#include <string.h>

#include "error.h"
#include "exec_landlock.h"

int pathgate_exec_landlock_abi(void)
{
    return pathgate__landlock_abi();
}

unsigned int pathgate_exec_capabilities(void)
{
    unsigned int caps = PATHGATE_EXEC_PROT_SECCOMP | PATHGATE_EXEC_PROT_NAMESPACES |
                        PATHGATE_EXEC_PROT_PID_LIMIT | PATHGATE_EXEC_PROT_RLIMITS |
                        PATHGATE_EXEC_PROT_UNPRIVILEGED_UID | PATHGATE_EXEC_PROT_MEMORY_LIMIT |
                        PATHGATE_EXEC_PROT_NETWORK_NAMESPACE |
                        PATHGATE_EXEC_PROT_NETWORK_ALLOWLIST | PATHGATE_EXEC_PROT_ID_RANGE;
    int abi = pathgate__landlock_abi();
    if (abi >= 1)
        caps |= PATHGATE_EXEC_PROT_LANDLOCK;
    if (abi >= 3)
        caps |= PATHGATE_EXEC_PROT_LANDLOCK_TRUNCATE;
    if (abi >= 6)
        caps |= PATHGATE_EXEC_PROT_LANDLOCK_SCOPE;
    return caps;
}

int pathgate__exec_run_target(pathgate_exec_result *out, const pathgate_allocator *alloc,
                              const pathgate__exec_target *target, const char *command, size_t len,
                              const pathgate_exec_options *opts, pathgate_error *err)
{
    if (!out || !target)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
    pathgate__exec_plan plan;
    int rc = pathgate__exec_plan_make(&plan, alloc, target, command, len, opts, err);
    if (!rc)
        rc = pathgate__exec_plan_run(out, &plan, err);
    pathgate__exec_plan_dispose(&plan);
    return rc;
}

int pathgate__exec_run_grants(pathgate_exec_result *out, const pathgate_allocator *alloc,
                              const pathgate__exec_grant *grants, size_t ngrants, int cwd_fd,
                              const char *cwd_view, const char *command, size_t len,
                              const pathgate_exec_options *opts, pathgate_error *err)
{
    pathgate__exec_target t = {grants, ngrants, cwd_fd, cwd_view, NULL,
                               NULL,   NULL,    NULL,   NULL,     NULL};
    return pathgate__exec_run_target(out, alloc, &t, command, len, opts, err);
}
