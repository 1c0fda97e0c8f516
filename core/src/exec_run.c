/* exec_run.c - one contained run: validation, environment, temporary
 * directory, ruleset, spawn, cleanup. */
#define _GNU_SOURCE
#include "exec_run.h"

#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_seccomp.h"
#include "exec_spawn.h"
#include "exec_test.h"
#include "exec_tmp.h"
#include "exec_idmap.h"
#include "exec_landlock.h"
#include "exec_view.h"

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
    if (opts && opts->version != PATHGATE_EXEC_OPTIONS_VERSION && opts->version != 1)
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown exec options version");
    *dst = defaults;
    if (opts && opts->version == 1) /* the prefix before the limits */
        memcpy(dst, opts, offsetof(pathgate_exec_options, max_processes));
    else if (opts)
        *dst = *opts;
    dst->version = PATHGATE_EXEC_OPTIONS_VERSION;
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
    char *home, *tmpdir, *pwd;
    pathgate__exec_tmp tmp;
    pathgate__exec_view view;
    pathgate__exec_seccomp seccomp;
    int ruleset;
} run_state;

static void free_env(run_state *st, const pathgate_allocator *a)
{
    pathgate__free(a, st->envp);
    pathgate__free(a, st->home);
    pathgate__free(a, st->tmpdir);
    pathgate__free(a, st->pwd);
    st->envp = NULL;
    st->home = st->tmpdir = st->pwd = NULL;
}

/* HOME and TMPDIR = tmp_path, PWD = pwd (NULL: unset). */
static int build_env(run_state *st, const pathgate_allocator *a, const char *const *env,
                     const char *tmp_path, const char *pwd)
{
    size_t n = 0;
    for (const char *const *e = env; e && *e; e++)
        n++;
    free_env(st, a);
    st->home = concat(a, "HOME=", tmp_path);
    st->tmpdir = concat(a, "TMPDIR=", tmp_path);
    st->pwd = pwd ? concat(a, "PWD=", pwd) : NULL;
    st->envp = pathgate__calloc(a, n + 6, sizeof *st->envp);
    if (!st->home || !st->tmpdir || !st->envp || (pwd && !st->pwd))
        return PATHGATE_ENOMEM;
    /* execve does not write to its arguments: the const casts are safe. */
    char *defaults[] = {(char *)ENV_PATH, st->home, st->tmpdir, (char *)ENV_LANG, st->pwd};
    size_t k = 0;
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (defaults[i] && !env_overrides(env, defaults[i]))
            st->envp[k++] = defaults[i];
    for (const char *const *e = env; e && *e; e++)
        st->envp[k++] = (char *)*e;
    st->envp[k] = NULL;
    return PATHGATE_OK;
}

/* 1 when host path b lies strictly beneath host path w. */
static const char *beneath(const char *b, const char *w)
{
    size_t n = strlen(w);
    if (n == 1 && w[0] == '/')
        return b[0] == '/' && b[1] ? b + 1 : NULL;
    if (strncmp(b, w, n) != 0 || b[n] != '/' || !b[n + 1])
        return NULL;
    return b + n + 1;
}

static int build_view(pathgate__exec_view *v, const pathgate__exec_grant *grants, size_t n,
                      const char *cwd_view, int cwd_fd, const pathgate_exec_options *o, int abi,
                      int unpriv)
{
    int rc = PATHGATE_OK;
    if (unpriv && (o->flags & PATHGATE__EXEC_TEST_NO_IDMAP))
        return PATHGATE_EUNSUPPORTED;
    if (unpriv)
        pathgate__exec_view_unprivileged(v, PATHGATE__EXEC_RUN_AS_UID, PATHGATE__EXEC_RUN_AS_GID);
    for (size_t i = 0; !rc && i < n; i++)
        if (grants[i].view)
            rc = pathgate__exec_view_add_base(v, grants[i].fd, grants[i].view,
                                              !(grants[i].classes & PATHGATE__LL_WRITE));
    /* A read-only base inside a writable one is mounted read-only again
     * over the writable one's mount. */
    for (size_t i = 0; !rc && i < n; i++) {
        if ((grants[i].classes & PATHGATE__LL_WRITE) || !grants[i].host || !grants[i].view)
            continue;
        for (size_t j = 0; !rc && j < n; j++) {
            if (!(grants[j].classes & PATHGATE__LL_WRITE) || !grants[j].host || !grants[j].view)
                continue;
            const char *rel = beneath(grants[i].host, grants[j].host);
            if (rel)
                rc = pathgate__exec_view_add_nested(v, grants[i].fd, grants[j].view, rel);
        }
    }
    pathgate__exec_view_limits lim = {o->tmp_size, o->tmp_size / 4, o->max_processes};
    if (!rc)
        rc = pathgate__exec_view_finish(v, &lim, cwd_view, cwd_fd, abi);
    return rc;
}

static int refuse(pathgate_error *err, const char *why)
{
    return pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                               "%s: refusing to run the command with weaker protection "
                               "(allow_unconfined allows it)",
                               why);
}

int pathgate__exec_run_grants(pathgate_exec_result *out, const pathgate_allocator *alloc,
                              const pathgate__exec_grant *grants, size_t ngrants, int cwd_fd,
                              const char *cwd_view, const char *command, size_t len,
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
    int cap = PATHGATE__EXEC_TEST_ABI_CAP_OF(o.flags);
    if (cap >= 0 && abi > cap)
        abi = cap;
    int want_ns = !(o.flags & PATHGATE__EXEC_TEST_NO_NAMESPACES) && cwd_view;
    if (!abi && !o.allow_unconfined)
        return refuse(err, "Landlock is not available on this system");
    if (!want_ns && !o.allow_unconfined)
        return refuse(err, "user namespaces are not available");

    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc); /* NULL = libc */
    alloc = &a;
    run_state st;
    memset(&st, 0, sizeof st);
    st.tmp.fd = -1;
    st.ruleset = -1;
    pathgate__exec_view_init(&st.view, alloc);
    unsigned int sflags = o.allow_network ? PATHGATE__SECCOMP_NETWORK : 0;
    const struct sock_fprog *filter = pathgate__exec_seccomp_build(
        &st.seccomp, sflags | (want_ns ? PATHGATE__SECCOMP_OWN_IPC : 0));
    if (!filter && !o.allow_unconfined)
        return refuse(err, "no seccomp filter for this architecture");

    st.command = pathgate__strndup(alloc, command ? command : "", len);
    if (!st.command) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto done;
    }
    st.argv[0] = (char *)SHELL_PATH;
    st.argv[1] = (char *)"-c";
    st.argv[2] = st.command;
    st.argv[3] = NULL;
    if (abi && (rc = pathgate__exec_sandbox_build(&st.ruleset, abi, !o.allow_network, grants,
                                                  ngrants, err)) != 0)
        goto done;
    pathgate__exec_spec spec = {
        st.argv,      NULL,
        cwd_fd,       st.ruleset,
        filter,       NULL,
        o.timeout_ms, o.output_cap,
        alloc,        {o.max_processes, o.max_memory, o.max_cpu_seconds, o.max_file_size}};
    unsigned int prot = 0;
    if (want_ns) {
        /* A root caller's command runs as an unprivileged host uid, or
         * (weaker protection allowed) as the caller's root. */
        int unpriv = geteuid() == 0;
        rc = build_view(&st.view, grants, ngrants, cwd_view, cwd_fd, &o, abi,
                        unpriv && pathgate__exec_spawn_can_map());
        if (unpriv && (rc == PATHGATE_EUNSUPPORTED || !pathgate__exec_spawn_can_map())) {
            if (!o.allow_unconfined) {
                rc = refuse(err, "the command cannot run as an unprivileged uid (the bases "
                                 "cannot be idmapped)");
                goto done;
            }
            pathgate__exec_view_dispose(&st.view);
            rc = build_view(&st.view, grants, ngrants, cwd_view, cwd_fd, &o, abi, 0);
        }
        if (!rc)
            rc = build_env(&st, alloc, o.env, "/tmp", cwd_view);
        if (rc) {
            rc = pathgate__error_set(err, rc, rc == PATHGATE_ENOMEM ? NULL : "invalid argument");
            goto done;
        }
        spec.envp = st.envp;
        spec.view = &st.view;
        rc = pathgate__exec_spawn(out, &spec, &prot, err);
        if (rc != PATHGATE__EXEC_NO_USERNS)
            goto finish;
        if (!o.allow_unconfined) {
            rc = refuse(err, "user namespaces are not available");
            goto done;
        }
        /* Weaker: no view, no own IPC namespace. */
        filter = pathgate__exec_seccomp_build(&st.seccomp, sflags);
        spec.filter = filter;
        spec.view = NULL;
    }
    /* Without namespaces: a private directory in the host's /tmp, and
     * Landlock grants it. */
    if ((rc = pathgate__exec_tmp_make(&st.tmp, alloc, err)) != 0)
        goto done;
    if ((rc = build_env(&st, alloc, o.env, st.tmp.path, NULL)) != 0) {
        pathgate__error_set(err, rc, NULL);
        goto done;
    }
    if (st.ruleset >= 0) {
        rc = pathgate__landlock_allow(st.ruleset, abi, st.tmp.fd,
                                      PATHGATE__LL_READ | PATHGATE__LL_EXEC | PATHGATE__LL_WRITE);
        if (rc) {
            rc = pathgate__error_set(err, PATHGATE_EIO, "cannot add a Landlock rule: %s",
                                     strerrordesc_np(-rc));
            goto done;
        }
    }
    spec.envp = st.envp;
    rc = pathgate__exec_spawn(out, &spec, &prot, err);
    if (rc == PATHGATE__EXEC_NO_USERNS) /* not asked for: cannot happen */
        rc = pathgate__error_set(err, PATHGATE_EIO, "cannot start the command");

finish:
    if (!rc) {
        out->landlock_abi = abi;
        if (abi)
            prot |= PATHGATE_EXEC_PROT_LANDLOCK;
        if (abi >= 3)
            prot |= PATHGATE_EXEC_PROT_LANDLOCK_TRUNCATE;
        if (abi >= 6)
            prot |= PATHGATE_EXEC_PROT_LANDLOCK_SCOPE;
        if (spec.filter)
            prot |= PATHGATE_EXEC_PROT_SECCOMP;
        out->protections = prot;
    }
done:
    if (st.ruleset >= 0)
        close(st.ruleset);
    pathgate__exec_view_dispose(&st.view);
    pathgate__exec_tmp_remove(&st.tmp, alloc);
    free_env(&st, alloc);
    pathgate__free(alloc, st.command);
    return rc;
}
