/* exec.c - contained command execution against a resolver or a session:
 * the bases become the target's grants, the cwd and home addresses view
 * paths, and the resolver keeps the prepared views. */
#define _GNU_SOURCE
#include "pathgate/exec.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_landlock.h"
#include "exec_policy.h"
#include "exec_run.h"
#include "exec_template.h"
#include "exec_view.h"
#include "resolver_policy.h"
#include "resolver_internal.h"
#include "text.h"

/* The view path of a directory named by an address the resolver accepts:
 * its base's view directory ("/pathgate/root/<key>") + "/" + its <rel>.
 * NULL on ENOMEM (or a base that has no view directory). */
static char *view_path(const pathgate_allocator *alloc, pathgate_resolver *resolver,
                       const char *text, size_t text_len)
{
    size_t bi;
    const char *rel;
    const char *addr = text;
    size_t alen = text_len;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    char *out = NULL;
    /* another spelling the resolver accepts: its canonical address */
    if (pathgate__resolver_split(&bi, &rel, resolver, text, text_len) != 0 &&
        pathgate_resolver_resolve(&res, resolver, text, text_len, NULL, NULL) == 0 && res.ok)
        addr = pathgate_ref_address(res.ref, &alen);
    char dir[4200];
    if (pathgate__resolver_split(&bi, &rel, resolver, addr, alen) == 0 &&
        pathgate__exec_view_base_dir(dir, sizeof dir,
                                     pathgate__resolver_base_address(resolver, bi)) == 0) {
        size_t dlen = strlen(dir), rlen = 0;
        if (rel >= addr && rel <= addr + alen) /* "" at the base may be a literal */
            rlen = (size_t)(addr + alen - rel);
        out = pathgate__malloc(alloc, dlen + rlen + 2);
        if (out) {
            memcpy(out, dir, dlen);
            if (rlen) {
                out[dlen] = '/';
                memcpy(out + dlen + 1, rel, rlen);
            }
            out[dlen + (rlen ? rlen + 1 : 0)] = '\0';
        }
    }
    if (res.ref)
        pathgate_resolver_release(resolver, res.ref);
    pathgate_resolution_dispose(&res);
    return out;
}

/* The canonical address of what text names (for the audit events: the
 * caller's spelling may be a host path), or NULL. Allocated. */
static char *canonical(const pathgate_allocator *alloc, pathgate_resolver *resolver,
                       const char *text, size_t len)
{
    size_t bi, alen = 0;
    const char *rel, *addr = NULL;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    if (pathgate__resolver_split(&bi, &rel, resolver, text, len) == 0) {
        addr = text;
        alen = len;
    } else if (pathgate_resolver_resolve(&res, resolver, text, len, NULL, NULL) == 0 && res.ok) {
        addr = pathgate_ref_address(res.ref, &alen);
    }
    char *out = addr ? pathgate__malloc(alloc, alen + 1) : NULL;
    if (out) {
        memcpy(out, addr, alen);
        out[alen] = '\0';
    }
    if (res.ref)
        pathgate_resolver_release(resolver, res.ref);
    pathgate_resolution_dispose(&res);
    return out;
}

/* The resolver's cache of prepared views, made at its first command. */
static pathgate__exec_cache *cache_of(pathgate_resolver *resolver)
{
    pathgate__resolver_extra **slot = pathgate__resolver_exec_slot(resolver);
    pathgate__resolver_extra *x = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (x)
        return pathgate__exec_cache_of(x);
    pathgate__exec_cache *c;
    if (pathgate__exec_cache_new(&c, pathgate__resolver_allocator(resolver)))
        return NULL;
    pathgate__resolver_extra *expected = NULL;
    if (!__atomic_compare_exchange_n(slot, &expected, pathgate__exec_cache_extra(c), 0,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        pathgate__exec_cache_free(c); /* another thread's won */
        c = pathgate__exec_cache_of(expected);
    }
    return c;
}

/* The network allowlist's decisions (made on the proxy's threads) as the
 * resolver's audit events, one at a time: a front end's callback (a Lua
 * function) is then never entered by two threads at once. */
typedef struct net_audit_ctx {
    pathgate_resolver *resolver;
    pthread_mutex_t lock;
} net_audit_ctx;

static void net_audit(const pathgate__net_event *ev, void *p)
{
    net_audit_ctx *c = p;
    pathgate__audit_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.operation = ev->operation ? ev->operation : "network";
    rec.address = ev->address;
    rec.outcome = ev->outcome;
    rec.reason = ev->reason;
    rec.rule = ev->rule;
    rec.source = ev->rule ? "allow_domains" : NULL;
    rec.ip = ev->ip;
    pthread_mutex_lock(&c->lock);
    pathgate__audit_emit(c->resolver, &rec);
    pthread_mutex_unlock(&c->lock);
}

/* Opens a directory named by an address as the working directory or the
 * home: 0 with *fd, or the error set. */
static int open_dir(int *fd, size_t *base, pathgate_resolver *resolver, const char *text,
                    size_t len, pathgate_error *err)
{
    int rc = pathgate__text_check(text, len, PATHGATE_PATH_MAX, err);
    if (rc)
        return rc;
    /* O_PATH is enough for fchdir and needs no read permission. */
    *fd = pathgate__resolver_open(base, resolver, text, len, O_PATH | O_DIRECTORY, 0);
    if (*fd >= 0)
        return PATHGATE_OK;
    if (*fd == PATHGATE_ENOTDIR)
        return pathgate__error_set(err, *fd, "not a directory: %.*s", (int)len, text);
    if (*fd == PATHGATE_ENOMEM)
        return pathgate__error_set(err, *fd, NULL);
    return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
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
    const pathgate_allocator *alloc = pathgate__resolver_allocator(resolver);
    size_t n = pathgate__resolver_base_count(resolver);
    const char *cwd = o.cwd;
    size_t cwd_len = o.cwd_len;
    if (!cwd) {
        cwd = pathgate__resolver_base_address(resolver, 0); /* the first root */
        cwd_len = strlen(cwd);
    }
    int cwd_fd = -1, home_fd = -1;
    char *cwd_view = NULL, *home_view = NULL, *cwd_addr = NULL;
    pathgate__exec_grant *grants = NULL;
    const int policy = pathgate__policy_of(resolver) != NULL;
    pathgate__exec_masks masks;
    pathgate__exec_masks_init(&masks, alloc);
    if ((rc = open_dir(&cwd_fd, NULL, resolver, cwd, cwd_len, err)) != 0) {
        pathgate__exec_audit_refused(resolver, NULL, 0, rc);
        return rc;
    }
    if (o.home) {
        size_t bi;
        if ((rc = open_dir(&home_fd, &bi, resolver, o.home, o.home_len, err)) != 0)
            goto done;
        if ((pathgate__resolver_base_flags(resolver, bi) & PATHGATE_BASE_READ_ONLY) ||
            pathgate__resolver_dir_read_only(resolver, bi, home_fd) != 0) {
            rc = pathgate__error_set(err, PATHGATE_EINVAL,
                                     "the home must be a directory of a writable base");
            goto done;
        }
        if (!(home_view = view_path(alloc, resolver, o.home, o.home_len))) {
            rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
            goto done;
        }
    }
    grants = pathgate__calloc(alloc, n ? n : 1, sizeof *grants);
    cwd_view = view_path(alloc, resolver, cwd, cwd_len);
    if (!grants || !cwd_view) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        grants[i].fd = pathgate__resolver_base_fd(resolver, i);
        grants[i].view = pathgate__resolver_base_address(resolver, i);
        grants[i].classes = PATHGATE__LL_READ | PATHGATE__LL_EXEC;
        if (!(pathgate__resolver_base_flags(resolver, i) & PATHGATE_BASE_READ_ONLY))
            grants[i].classes |= PATHGATE__LL_WRITE;
        char dir[4200];
        if (pathgate__exec_view_base_dir(dir, sizeof dir, grants[i].view) != 0) {
            rc = pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                                     "a mod named '.' or '..' cannot be shown to a command");
            goto done;
        }
    }
    pathgate__exec_cache *cache = cache_of(resolver);
    if (!cache) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto done;
    }
    /* The policy: what matches now is hidden or read-only in this
     * command's view (exec_policy.h), found anew at each call. */
    if (policy && (rc = pathgate__exec_masks_collect(&masks, resolver, err)) != 0)
        goto done;
    if (pathgate__audit_enabled(resolver))
        cwd_addr = canonical(alloc, resolver, cwd, cwd_len);
    size_t cwd_addr_len = cwd_addr ? strlen(cwd_addr) : 0;
    pathgate__exec_target t = {
        grants, n, cwd_fd, cwd_view, home_view, cache, NULL, NULL, policy ? &masks : NULL};
    net_audit_ctx nac = {resolver, PTHREAD_MUTEX_INITIALIZER};
    if (o.allow_domains && pathgate__audit_enabled(resolver)) {
        t.net_audit = net_audit;
        t.net_audit_ctx = &nac;
    }
    pathgate__exec_plan plan;
    rc = pathgate__exec_plan_make(&plan, alloc, &t, command, len, &o, err);
    if (!rc) {
        pathgate__exec_audit_start(resolver, cwd_addr, cwd_addr_len, plan.prot, masks.n);
        rc = pathgate__exec_plan_run(out, &plan, err);
        if (!rc)
            pathgate__exec_audit_end(resolver, cwd_addr, cwd_addr_len, out);
    }
    pathgate__exec_plan_dispose(&plan);
done:
    if (rc)
        pathgate__exec_audit_refused(resolver, cwd_addr, cwd_addr ? strlen(cwd_addr) : 0, rc);
    pathgate__free(alloc, cwd_addr);
    pathgate__exec_masks_dispose(&masks);
    pathgate__free(alloc, cwd_view);
    pathgate__free(alloc, home_view);
    pathgate__free(alloc, grants);
    if (home_fd >= 0)
        close(home_fd);
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
