/*
 * exec_common.c - the calls of pathgate/exec.h that run nothing, the same
 * in every build whichever backend runs commands: a result's dispose, and
 * pathgate_exec_check_allow_domains, a network allowlist checked as a
 * command's options would be (netproxy_allow.c compiles it) for front ends
 * that load a configuration ahead of its first command.
 */
#include "error.h"
#include "netproxy.h"
#include "pathgate/exec.h"

void pathgate_exec_result_dispose(pathgate_exec_result *res)
{
    if (!res)
        return;
    pathgate_buf_dispose(&res->output);
    pathgate_buf_dispose(&res->quarantined);
    *res = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
}

int pathgate_exec_check_allow_domains(const char *const *entries, size_t n, pathgate_error *err)
{
    if (!entries && n)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate__netproxy_allow *allow = NULL;
    int rc = pathgate__netproxy_allow_compile(&allow, NULL, entries, n, err);
    pathgate__netproxy_allow_free(allow);
    return rc;
}
