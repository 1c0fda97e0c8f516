/* exec.c - contained command execution against a resolver or a session:
 * the bases become Landlock grants, the cwd address becomes an fd. */
#define _GNU_SOURCE
#include "pathgate/exec.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_run.h"
#include "exec_landlock.h"
#include "text.h"
#include "policy_internal.h"
#include "resolver_internal.h"

/* The working directory's path in the view: "/" + its canonical address
 * (the spelling the address parser reads back). NULL on ENOMEM. */
static char *view_path(const pathgate_allocator *alloc, pathgate_resolver *resolver,
                       const char *cwd, size_t cwd_len)
{
    size_t bi;
    const char *rel;
    const char *addr = cwd;
    size_t alen = cwd_len;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    char *out = NULL;
    if (pathgate__resolver_split(&bi, &rel, resolver, cwd, cwd_len) == 0) {
        const char *base = pathgate__resolver_base_address(resolver, bi);
        size_t blen = strlen(base), rlen = 0;
        if (rel >= cwd && rel <= cwd + cwd_len) /* "" at the base may be a literal */
            rlen = (size_t)(cwd + cwd_len - rel);
        out = pathgate__malloc(alloc, blen + rlen + 3);
        if (out) {
            out[0] = '/';
            memcpy(out + 1, base, blen);
            size_t k = blen + 1;
            if (rlen) {
                out[k++] = '/';
                memcpy(out + k, rel, rlen);
                k += rlen;
            }
            out[k] = '\0';
        }
        return out;
    }
    /* another spelling the resolver accepts: its canonical address */
    if (pathgate_resolver_resolve(&res, resolver, cwd, cwd_len, NULL, NULL) == 0 && res.ok) {
        addr = pathgate_ref_address(res.ref, &alen);
    }
    out = pathgate__malloc(alloc, alen + 2);
    if (out) {
        out[0] = '/';
        memcpy(out + 1, addr, alen);
        out[alen + 1] = '\0';
    }
    if (res.ref)
        pathgate_resolver_release(resolver, res.ref);
    pathgate_resolution_dispose(&res);
    return out;
}

int pathgate_exec_run(pathgate_exec_result *out, pathgate_resolver *resolver, const char *command,
                      size_t len, const pathgate_exec_options *opts, pathgate_error *err)
{
    if (!out || !resolver)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
    pathgate_exec_options o;
    int rc = pathgate__exec_options_check(&o, opts, err);
    if (rc)
        return rc;
    if (!o.cwd && o.cwd_len)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    /* Commands do not apply deny_read / deny_write yet (docs/policy.md):
     * refuse, rather than run what could read or change what the file
     * operations protect. */
    if (pathgate__policy_of(resolver))
        return pathgate__error_set(err, PATHGATE_EPOLICY,
                                   "commands cannot apply this resolver's deny_read/deny_write "
                                   "rules yet (see docs/policy.md)");

    const pathgate_allocator *alloc = pathgate__resolver_allocator(resolver);
    size_t n = pathgate__resolver_base_count(resolver);
    const char *cwd = o.cwd;
    size_t cwd_len = o.cwd_len;
    if (!cwd) {
        cwd = pathgate__resolver_base_address(resolver, 0); /* the first root */
        cwd_len = strlen(cwd);
    } else if ((rc = pathgate__text_check(cwd, cwd_len, PATHGATE_PATH_MAX, err)) != 0) {
        return rc;
    }
    /* O_PATH is enough for fchdir and needs no read permission. */
    int cwd_fd = pathgate__resolver_open(NULL, resolver, cwd, cwd_len, O_PATH | O_DIRECTORY, 0);
    if (cwd_fd < 0) {
        if (cwd_fd == PATHGATE_ENOTDIR)
            return pathgate__error_set(err, cwd_fd, "not a directory: %.*s", (int)cwd_len, cwd);
        if (cwd_fd == PATHGATE_ENOMEM)
            return pathgate__error_set(err, cwd_fd, NULL);
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    }
    pathgate__exec_grant *grants = pathgate__calloc(alloc, n ? n : 1, sizeof *grants);
    if (!grants) {
        close(cwd_fd);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    char *cwd_view = view_path(alloc, resolver, cwd, cwd_len);
    if (!cwd_view) {
        pathgate__free(alloc, grants);
        close(cwd_fd);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        grants[i].fd = pathgate__resolver_base_fd(resolver, i);
        grants[i].view = pathgate__resolver_base_address(resolver, i);
        grants[i].host = pathgate__resolver_base_host_path(resolver, i);
        grants[i].classes = PATHGATE__LL_READ | PATHGATE__LL_EXEC;
        if (!(pathgate__resolver_base_flags(resolver, i) & PATHGATE_BASE_READ_ONLY))
            grants[i].classes |= PATHGATE__LL_WRITE;
    }
    rc = pathgate__exec_run_grants(out, alloc, grants, n, cwd_fd, cwd_view, command, len, &o, err);
    pathgate__free(alloc, cwd_view);
    pathgate__free(alloc, grants);
    close(cwd_fd);
    return rc;
}

int pathgate_exec_run_session(pathgate_exec_result *out, pathgate_session *session,
                              const char *command, size_t len, const pathgate_exec_options *opts,
                              pathgate_error *err)
{
    if (!out || !session)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
    pathgate_exec_options o;
    int rc = pathgate__exec_options_check(&o, opts, err);
    if (rc)
        return rc;
    pathgate_buf cwd = PATHGATE_BUF_INIT;
    if (!o.cwd) {
        if ((rc = pathgate_session_pwd(&cwd, session, err)) != 0)
            return rc;
        o.cwd = cwd.ptr;
        o.cwd_len = cwd.len;
    }
    rc = pathgate_exec_run(out, pathgate_session_resolver(session), command, len, &o, err);
    pathgate_buf_dispose(&cwd);
    return rc;
}
