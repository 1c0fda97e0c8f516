/* exec_run.c - one contained run: validation, environment, temporary
 * directory, ruleset, spawn, cleanup. */
#define _GNU_SOURCE
#include "exec_run.h"

#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_seccomp.h"
#include "exec_spawn.h"
#include "exec_tmp.h"
#include "exec_landlock.h"

#define SHELL_PATH "/bin/sh"
#define ENV_PATH "PATH=/usr/local/bin:/usr/bin:/bin"
#define ENV_LANG "LANG=C.UTF-8"

void pathgate_exec_result_dispose(pathgate_exec_result *res)
{
    if (!res)
        return;
    pathgate_buf_dispose(&res->output);
    *res = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
}

int pathgate_exec_landlock_abi(void)
{
    return pathgate__landlock_abi();
}

int pathgate__exec_options_check(pathgate_exec_options *dst, const pathgate_exec_options *opts,
                                 pathgate_error *err)
{
    static const pathgate_exec_options defaults = PATHGATE_EXEC_OPTIONS_INIT;
    if (opts && opts->version != PATHGATE_EXEC_OPTIONS_VERSION)
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown exec options version");
    *dst = opts ? *opts : defaults;
    if (!dst->timeout_ms)
        dst->timeout_ms = PATHGATE_EXEC_TIMEOUT_DEFAULT_MS;
    if (!dst->output_cap)
        dst->output_cap = PATHGATE_EXEC_OUTPUT_CAP_DEFAULT;
    if (dst->output_cap > ((size_t)-1) / 4)
        return pathgate__error_set(err, PATHGATE_EINVAL, "output cap too large");
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

/* 1 when the caller's environment sets the key of `entry` ("KEY=..."). */
static int env_overrides(const char *const *env, const char *entry)
{
    size_t klen = (size_t)(strchr(entry, '=') - entry);
    for (; env && *env; env++)
        if (strncmp(*env, entry, klen + 1) == 0)
            return 1;
    return 0;
}

static char *concat(const pathgate_allocator *a, const char *x, const char *y)
{
    size_t lx = strlen(x), ly = strlen(y);
    char *s = pathgate__malloc(a, lx + ly + 1);
    if (s) {
        memcpy(s, x, lx);
        memcpy(s + lx, y, ly + 1);
    }
    return s;
}

typedef struct run_state {
    char *command;
    char *argv[4];
    char **envp;
    char *home, *tmpdir;
    pathgate__exec_tmp tmp;
    int ruleset;
} run_state;

static int build_env(run_state *st, const pathgate_allocator *a, const char *const *env)
{
    size_t n = 0;
    for (const char *const *e = env; e && *e; e++)
        n++;
    st->home = concat(a, "HOME=", st->tmp.path);
    st->tmpdir = concat(a, "TMPDIR=", st->tmp.path);
    st->envp = pathgate__calloc(a, n + 5, sizeof *st->envp);
    if (!st->home || !st->tmpdir || !st->envp)
        return PATHGATE_ENOMEM;
    /* execve does not write to its arguments: the const casts are safe. */
    char *defaults[] = {(char *)ENV_PATH, st->home, st->tmpdir, (char *)ENV_LANG};
    size_t k = 0;
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (!env_overrides(env, defaults[i]))
            st->envp[k++] = defaults[i];
    for (const char *const *e = env; e && *e; e++)
        st->envp[k++] = (char *)*e;
    st->envp[k] = NULL;
    return PATHGATE_OK;
}

int pathgate__exec_run_grants(pathgate_exec_result *out, const pathgate_allocator *alloc,
                              const pathgate__exec_grant *grants, size_t ngrants, int cwd_fd,
                              const char *command, size_t len,
                              const pathgate_exec_options *opts, pathgate_error *err)
{
    if (!out || (!command && len) || (!grants && ngrants) || cwd_fd < 0)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
    if (len && memchr(command, '\0', len))
        return pathgate__error_set(err, PATHGATE_ENUL, "command contains a NUL byte");
    if (len > PATHGATE_EXEC_COMMAND_MAX)
        return pathgate__error_set(err, PATHGATE_ETOOLONG, "command is too long");
    pathgate_exec_options o;
    int rc = pathgate__exec_options_check(&o, opts, err);
    if (rc)
        return rc;

    int abi = (o.flags & PATHGATE_EXEC_TEST_NO_LANDLOCK) ? 0 : pathgate__landlock_abi();
    if (!abi && !o.allow_unconfined)
        return pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                                   "Landlock is not available on this system: refusing to run "
                                   "the command unconfined");
    if (!o.allow_network && abi < 4 && !pathgate__exec_seccomp_filter(0) && !o.allow_unconfined)
        return pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                                   "network access cannot be denied on this system");

    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc); /* NULL = libc */
    alloc = &a;
    run_state st;
    memset(&st, 0, sizeof st);
    st.tmp.fd = -1;
    st.ruleset = -1;
    st.command = pathgate__strndup(alloc, command ? command : "", len);
    if (!st.command) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto done;
    }
    st.argv[0] = (char *)SHELL_PATH;
    st.argv[1] = (char *)"-c";
    st.argv[2] = st.command;
    st.argv[3] = NULL;
    if ((rc = pathgate__exec_tmp_make(&st.tmp, alloc, err)) != 0)
        goto done;
    if ((rc = build_env(&st, alloc, o.env)) != 0) {
        pathgate__error_set(err, rc, NULL);
        goto done;
    }
    if (abi) {
        pathgate__exec_grant *all = pathgate__calloc(alloc, ngrants + 1, sizeof *all);
        if (!all) {
            rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
            goto done;
        }
        if (ngrants)
            memcpy(all, grants, ngrants * sizeof *all);
        all[ngrants].fd = st.tmp.fd;
        all[ngrants].classes = PATHGATE__LL_READ | PATHGATE__LL_EXEC | PATHGATE__LL_WRITE;
        rc = pathgate__exec_sandbox_build(&st.ruleset, abi, !o.allow_network, all, ngrants + 1, err);
        pathgate__free(alloc, all);
        if (rc)
            goto done;
    }
    pathgate__exec_spec spec = {st.argv, st.envp, cwd_fd, st.ruleset, o.allow_network,
                                o.timeout_ms, o.output_cap, alloc};
    rc = pathgate__exec_spawn(out, &spec, err);
    if (!rc)
        out->landlock_abi = abi;

done:
    if (st.ruleset >= 0)
        close(st.ruleset);
    pathgate__exec_tmp_remove(&st.tmp, alloc);
    pathgate__free(alloc, st.envp);
    pathgate__free(alloc, st.home);
    pathgate__free(alloc, st.tmpdir);
    pathgate__free(alloc, st.command);
    return rc;
}
