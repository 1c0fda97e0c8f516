/* exec_unsupported.c - commands in a build without a contained sandbox
 * (the POSIX backend; Windows): every call answers PATHGATE_EUNSUPPORTED
 * with one message and runs nothing, whatever the options say
 * (allow_unconfined included). docs/exec.md. A result's dispose and the
 * allowlist's check are every build's (exec_common.c). */
#include "pathgate/exec.h"

#include <stddef.h>

#include "error.h"

int pathgate_exec_landlock_abi(void)
{
    return 0;
}

unsigned int pathgate_exec_capabilities(void)
{
    return 0;
}

static int unsupported(pathgate_exec_result *out, pathgate_error *err)
{
    if (out)
        *out = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
    return pathgate__error_set(err, PATHGATE_EUNSUPPORTED, "%s", PATHGATE_EXEC_UNSUPPORTED_MESSAGE);
}

int pathgate_exec_run(pathgate_exec_result *out, pathgate_resolver *resolver, const char *command,
                      size_t len, const pathgate_exec_options *opts, pathgate_error *err)
{
    (void)resolver;
    (void)command;
    (void)len;
    (void)opts;
    return unsupported(out, err);
}

int pathgate_exec_run_session(pathgate_exec_result *out, pathgate_session *session,
                              const char *command, size_t len, const pathgate_exec_options *opts,
                              pathgate_error *err)
{
    (void)session;
    (void)command;
    (void)len;
    (void)opts;
    return unsupported(out, err);
}

int pathgate_exec_check_toolchains(const char *const *list, int at_host_path, int base_home,
                                   pathgate_error *err)
{
    (void)list;
    (void)at_host_path;
    (void)base_home;
    return unsupported(NULL, err);
}
