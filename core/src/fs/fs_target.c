/* fs_target.c - turning an operand into (base, rel, canonical address),
 * opening it beneath the base, and the standard messages. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "fs_target.h"
#include "resolver_policy.h"
#include "resolver_internal.h"
#include "testing.h"
#include "text.h"

pathgate_resolver *pathgate__fs_resolver(pathgate_resolver *resolver,
                                         const pathgate_fs_options *opts, pathgate_error *err)
{
    pathgate_session *s = opts ? opts->session : NULL;
    if (opts && opts->version != PATHGATE_FS_OPTIONS_VERSION &&
        opts->version != PATHGATE__FS_OPTIONS_QUIET_VERSION &&
        !pathgate__fs_test_options_of(opts)) {
        pathgate__error_set(err, PATHGATE_EINVAL, "unsupported options version");
        return NULL;
    }
    if (s) {
        pathgate_resolver *sr = pathgate_session_resolver(s);
        if (resolver && resolver != sr) {
            pathgate__error_set(err, PATHGATE_EINVAL, "the session belongs to another resolver");
            return NULL;
        }
        return sr;
    }
    if (!resolver)
        pathgate__error_set(err, PATHGATE_EINVAL, "no resolver");
    return resolver;
}

int pathgate__fs_search_check(const pathgate_fs_search_options *opts, pathgate_error *err)
{
    if (opts && opts->version != PATHGATE_FS_SEARCH_OPTIONS_VERSION)
        return pathgate__error_set(err, PATHGATE_EINVAL, "unsupported options version");
    return 0;
}

/* t for the canonical address (len bytes). Where names are found in any
 * case (Windows), the names of its relative path that exist take the
 * spelling their directory stores (docs/windows.md, "Case folding"): one
 * address per file, whatever case it was given in; `respelled`: they have
 * already (an address the resolver answered). */
static int fill(pathgate__fs_target *t, pathgate_resolver *r, const char *address, size_t len,
                int respelled, pathgate_error *err)
{
    size_t base;
    const char *rel;
    if (len > sizeof t->address - 1 || pathgate__resolver_split(&base, &rel, r, address, len) != 0)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    memcpy(t->address, address, len);
    t->address[len] = '\0';
    t->address_len = len;
    t->r = r;
    t->alloc = pathgate__resolver_allocator(r);
    t->base = base;
    t->base_fd = pathgate__resolver_base_fd(r, base);
    t->base_flags = pathgate__resolver_base_flags(r, base);
    t->force_fallback = (pathgate__resolver_flags(r) & PATHGATE_RESOLVER_FORCE_FALLBACK) != 0;
    t->policy = pathgate__policy_active(pathgate__policy_of(r), base);
    if (*rel) {
        t->rel = t->address + (rel - address);
        t->rel_len = len - (size_t)(rel - address);
        t->prefix_len = (size_t)(t->rel - t->address) - 1;
        if (!respelled)
            pathgate__os_stored_rel(t->base_fd, (char *)t->rel, t->rel_len);
    } else { /* the base itself */
        t->rel = t->address + len;
        t->rel_len = 0;
        t->prefix_len = len;
    }
    return PATHGATE_OK;
}

/* The event of an operand that names no address (reason: why). */
static void audit_invalid(const pathgate__fs_target *t, pathgate_resolver *r, const char *reason)
{
    if (t->quiet || !pathgate__audit_enabled(r))
        return;
    pathgate__audit_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.operation = t->op;
    rec.role = t->role;
    rec.outcome = "invalid";
    rec.reason = reason;
    pathgate__audit_emit(r, &rec);
}

/* The event of an operand that did not resolve: "denied" with the
 * address it names when the policy hid it, else "invalid". */
static void audit_unresolved(const pathgate__fs_target *t, pathgate_resolver *r,
                             const pathgate_resolution *res, const char *text, size_t len,
                             const char *base, size_t base_len)
{
    if (t->quiet || !pathgate__audit_enabled(r))
        return;
    if (res->reason != PATHGATE_REASON_DENIED) {
        audit_invalid(t, r, pathgate_reason_name(res->reason));
        return;
    }
    pathgate__fs_target *named = pathgate__malloc(pathgate__resolver_allocator(r), sizeof *named);
    if (!named || pathgate__resolver_locate(&named->base, named->address, sizeof named->address,
                                            &named->rel, r, text, len, base, base_len, NULL) < 0) {
        pathgate__free(pathgate__resolver_allocator(r), named);
        audit_invalid(t, r, "denied");
        return;
    }
    named->r = r;
    named->op = t->op;
    named->role = t->role;
    named->quiet = 0;
    pathgate_policy_verdict v;
    pathgate__policy_verdict(&v, r, named->base, named->rel, strlen(named->rel),
                             PATHGATE__ACCESS_READ);
    pathgate__fs_audit(named, "denied", "deny_read", v.rule ? &v : NULL);
    pathgate__free(pathgate__resolver_allocator(r), named);
}

/* Resolution proper (see pathgate__fs_resolve), without the policy. */
static int resolve_text(pathgate__fs_target *t, pathgate_resolver *r,
                        const pathgate_fs_options *opts, const char *text, size_t len,
                        pathgate_error *err)
{
    pathgate_session *s = opts ? opts->session : NULL;
    int rc;
    if (!text) {
        /* the default search root */
        if (s) {
            pathgate_buf cwd = PATHGATE_BUF_INIT;
            if ((rc = pathgate_session_pwd(&cwd, s, err)) < 0)
                return rc;
            rc = fill(t, r, cwd.ptr, cwd.len, 0, err);
            pathgate_buf_dispose(&cwd);
            return rc;
        }
        const char *a = pathgate__resolver_base_address(r, 0);
        return fill(t, r, a, strlen(a), 0, err);
    }
    if (pathgate__text_check(text, len, PATHGATE_PATH_MAX, NULL) != 0) {
        audit_invalid(t, r, "encoding");
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    }
    size_t base;
    const char *rel;
    if (pathgate__resolver_split(&base, &rel, r, text, len) == 0)
        return fill(t, r, text, len, 0, err);

    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_resolve_options ro = PATHGATE_RESOLVE_OPTIONS_INIT;
    ro.require_exists = 0;
    pathgate_buf cwd = PATHGATE_BUF_INIT;
    if (s) { /* relative to the session's cwd */
        if ((rc = pathgate_session_pwd(&cwd, s, err)) < 0)
            return rc;
        ro.base = cwd.ptr;
        ro.base_len = cwd.len;
    } else {
        /* without a session, as a session at its start: relative text is
         * relative to the first base (docs/fs.md, "Relative paths") */
        ro.base = pathgate__resolver_base_address(r, 0);
        ro.base_len = strlen(ro.base);
    }
    rc = pathgate__resolver_resolve_quiet(&res, r, text, len, &ro, err);
    if (rc >= 0 && !res.ok)
        audit_unresolved(t, r, &res, text, len, ro.base, ro.base_len);
    pathgate_buf_dispose(&cwd);
    if (rc < 0)
        return rc;
    if (!res.ok) {
        rc = res.reason == PATHGATE_REASON_CAPACITY
                 ? pathgate__error_set(err, PATHGATE_ECAPACITY, PATHGATE_MSG_CAPACITY)
                 : pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
        pathgate_resolution_dispose(&res);
        return rc;
    }
    size_t alen;
    const char *addr = pathgate_ref_address(res.ref, &alen);
    rc = fill(t, r, addr, alen, 1, err);
    pathgate_resolver_release(r, res.ref);
    pathgate_resolution_dispose(&res);
    return rc;
}

int pathgate__fs_resolve_role(pathgate__fs_target *t, const char *op, const char *role,
                              pathgate_resolver *r, const pathgate_fs_options *opts,
                              const char *text, size_t len, pathgate_error *err)
{
    t->op = op;
    t->role = role;
    t->access = PATHGATE__ACCESS_READ;
    t->quiet = opts && opts->version == PATHGATE__FS_OPTIONS_QUIET_VERSION;
    t->policy = 0;
    int rc = resolve_text(t, r, opts, text, len, err);
    if (rc < 0) {
        if (rc == PATHGATE_EINVALIDPATH && !text)
            audit_invalid(t, r, "syntax");
        return rc;
    }
    if (!t->policy)
        return PATHGATE_OK;
    pathgate_policy_verdict v;
    if (pathgate__policy_verdict(&v, r, t->base, t->rel, t->rel_len, PATHGATE__ACCESS_READ)) {
        pathgate__fs_audit(t, "denied", "deny_read", &v);
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    }
    return PATHGATE_OK;
}

int pathgate__fs_resolve(pathgate__fs_target *t, const char *op, pathgate_resolver *r,
                         const pathgate_fs_options *opts, const char *text, size_t len,
                         pathgate_error *err)
{
    return pathgate__fs_resolve_role(t, op, NULL, r, opts, text, len, err);
}

int pathgate__fs_fail(pathgate_error *err, int code, const pathgate__fs_target *t,
                      pathgate__fs_noun noun)
{
    const char *a = t ? t->address : "";
    switch (code) {
    case PATHGATE_EINVALIDPATH:
        return pathgate__error_set(err, code, PATHGATE_MSG_INVALID);
    case PATHGATE_ENOTFOUND:
        return pathgate__error_set(err, code, "%s '%s' not found",
                                   noun == PATHGATE__FS_DIRECTORY ? "Directory" : "File", a);
    case PATHGATE_EISDIR:
        return pathgate__error_set(err, code, "'%s' is a directory", a);
    case PATHGATE_ENOTDIR:
        return pathgate__error_set(err, code, "'%s' is not a directory", a);
    case PATHGATE_ENOTREG:
        return pathgate__error_set(err, code, "'%s' is not a regular file", a);
    case PATHGATE_EACCES:
        return pathgate__error_set(err, code, "Permission denied: '%s'", a);
    case PATHGATE_EPOLICY:
        return pathgate__error_set(err, code, "Protected by policy: '%s'", a);
    case PATHGATE_ENOMEM:
        return pathgate__error_set(err, code, NULL);
    default:
        return pathgate__error_set(err, code, "I/O error on '%s'", a);
    }
}

int pathgate__fs_fail_errno(pathgate_error *err, int neg_errno, const pathgate__fs_target *t,
                            pathgate__fs_noun noun)
{
    int code = neg_errno == -ENOTDIR ? PATHGATE_ENOTFOUND : pathgate__errno_to_code(neg_errno);
    if (t && (neg_errno == -PATHGATE__POLICY_ENOREAD || neg_errno == -PATHGATE__POLICY_ENOWRITE) &&
        !t->quiet && pathgate__audit_enabled(t->r)) {
        /* what a symlink led to (pathgate__fs_open): the rule, again */
        pathgate_policy_verdict v = {0, NULL, NULL};
        char real[PATHGATE_PATH_MAX + 1];
        if (pathgate__policy_real_rel(real, sizeof real, t->r, t->base, t->rel) == 0)
            pathgate__policy_verdict(&v, t->r, t->base, real, strlen(real), t->access);
        pathgate__fs_audit(t, "denied",
                           neg_errno == -PATHGATE__POLICY_ENOREAD ? "deny_read" : "deny_write", &v);
    }
    if (code == PATHGATE_EIO) {
        const char *a = t ? t->address : "";
        const char *why = pathgate__os_strerror(-neg_errno);
        return pathgate__error_set(err, code, "I/O error on '%s': %s", a, why ? why : "unknown");
    }
    return pathgate__fs_fail(err, code, t, noun);
}

int pathgate__fs_target_of(pathgate__fs_target *t, const char *op, pathgate_resolver *resolver,
                           const pathgate_fs_options *opts, const char *text, size_t len,
                           pathgate_error *err)
{
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    int rc = pathgate__fs_resolve(t, op, r, opts, text, len, err);
    if (rc == 0)
        pathgate__fs_audit(t, "allowed", NULL, NULL);
    return rc;
}

void pathgate__fs_audit(const pathgate__fs_target *t, const char *outcome, const char *reason,
                        const pathgate_policy_verdict *v)
{
    if (t->quiet || !pathgate__audit_enabled(t->r))
        return;
    pathgate__audit_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.operation = t->op;
    rec.role = t->role;
    rec.has_base = 1;
    rec.base = t->base;
    rec.address = t->address;
    rec.rel = t->rel;
    rec.outcome = outcome;
    rec.reason = reason;
    if (v) {
        rec.rule = v->rule;
        rec.source = v->source;
    }
    pathgate__audit_emit(t->r, &rec);
}

void pathgate__fs_audit_hidden(const pathgate__fs_target *t, size_t count)
{
    if (!count || t->quiet || !pathgate__audit_enabled(t->r))
        return;
    pathgate__audit_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.operation = t->op;
    rec.has_base = 1;
    rec.base = t->base;
    rec.address = t->address;
    rec.rel = t->rel;
    rec.outcome = "hidden";
    rec.reason = "deny_read";
    rec.count = count;
    pathgate__audit_emit(t->r, &rec);
}
