/*
 * exec_check.c - pathgate_exec_check_allow_domains: a network allowlist
 * checked as a command's options would be (netproxy_allow.c compiles it),
 * for front ends that load a configuration ahead of its first command.
 */
#include "error.h"
#include "netproxy.h"
#include "pathgate/exec.h"

int pathgate_exec_check_allow_domains(const char *const *entries, size_t n, pathgate_error *err)
{
    if (!entries && n)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate__netproxy_allow *allow = NULL;
    int rc = pathgate__netproxy_allow_compile(&allow, NULL, entries, n, err);
    pathgate__netproxy_allow_free(allow);
    return rc;
}
