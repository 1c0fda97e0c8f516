/* exec_run.c - one contained run: the options, the plan, the run. */
#define _GNU_SOURCE
#include "exec_run.h"

#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "exec_idmap.h"
#include "exec_landlock.h"

void pathgate_exec_result_dispose(pathgate_exec_result *res)
{
    if (!res)
        return;
    pathgate_buf_dispose(&res->output);
    pathgate_buf_dispose(&res->quarantined);
    *res = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
}

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

int pathgate__exec_options_check(pathgate_exec_options *dst, const pathgate_exec_options *opts,
                                 pathgate_error *err)
{
    static const pathgate_exec_options defaults = PATHGATE_EXEC_OPTIONS_INIT;
    if (opts && (opts->version < 1 || opts->version > PATHGATE_EXEC_OPTIONS_VERSION))
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown exec options version");
    *dst = defaults;
    if (opts && opts->version == 1) /* the prefix before the limits */
        memcpy(dst, opts, offsetof(pathgate_exec_options, max_processes));
    else if (opts && opts->version == 2) /* ... before the home */
        memcpy(dst, opts, offsetof(pathgate_exec_options, home));
    else if (opts && opts->version == 3) /* ... before allow_domains */
        memcpy(dst, opts, offsetof(pathgate_exec_options, allow_domains));
    else if (opts && opts->version == 4) /* ... before toolchains */
        memcpy(dst, opts, offsetof(pathgate_exec_options, toolchains));
    else if (opts && opts->version == 5) /* ... before id_range_* */
        memcpy(dst, opts, offsetof(pathgate_exec_options, id_range_first));
    else if (opts)
        *dst = *opts;
    dst->version = PATHGATE_EXEC_OPTIONS_VERSION;
    if (!dst->home && dst->home_len)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    if (dst->allow_domains && dst->allow_network)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "allow_domains and allow_network exclude each other "
                                   "(allow_network is the host's whole network)");
    if (!dst->max_processes)
        dst->max_processes = PATHGATE_EXEC_MAX_PROCESSES_DEFAULT;
    if (!dst->max_cpu_seconds)
        dst->max_cpu_seconds = PATHGATE_EXEC_MAX_CPU_DEFAULT;
    if (!dst->max_memory)
        dst->max_memory = PATHGATE_EXEC_MAX_MEMORY_DEFAULT;
    if (!dst->max_file_size)
        dst->max_file_size = PATHGATE_EXEC_MAX_FILE_SIZE_DEFAULT;
    if (!dst->tmp_size)
        dst->tmp_size = PATHGATE_EXEC_TMP_SIZE_DEFAULT;
    if (dst->tmp_size < 4096)
        return pathgate__error_set(err, PATHGATE_EINVAL, "tmp_size is too small");
    if (!dst->timeout_ms)
        dst->timeout_ms = PATHGATE_EXEC_TIMEOUT_DEFAULT_MS;
    if (!dst->output_cap)
        dst->output_cap = PATHGATE_EXEC_OUTPUT_CAP_DEFAULT;
    if (dst->output_cap > ((size_t)-1) / 4)
        return pathgate__error_set(err, PATHGATE_EINVAL, "output cap too large");
    /* an explicit range of ids: checked against the host's users now */
    pathgate__exec_idrange ids;
    if (dst->id_range_count > 1 && geteuid() == 0 &&
        pathgate__exec_idmap_range(&ids, "/etc", dst->id_range_first, dst->id_range_count) < 0)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "id_range: the range holds an id below 65536, a user's or "
                                   "group's id or another range, or ends past 4294967294");
    if (dst->env) {
        for (const char *const *e = dst->env; *e; e++) {
            const char *eq = strchr(*e, '=');
            if (!eq || eq == *e)
                return pathgate__error_set(err, PATHGATE_EINVAL,
                                           "environment entries must be KEY=VALUE");
        }
    }
    return PATHGATE_OK;
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
