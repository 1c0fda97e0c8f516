/*
 * resolver_policy.c - the policy of a resolver (resolver_policy.h): the
 * store a resolver was made with (policy/policy.c), asked by resolver and
 * base index, and the two public calls that take a resolver,
 * pathgate_resolver_restrict and pathgate_resolver_policy_check.
 */
#include "resolver_policy.h"

#include <string.h>

#include "error.h"
#include "resolver_internal.h"

int pathgate__policy_inherit(pathgate_resolver *sub, const pathgate_resolver *parent, size_t base,
                             const char *host, size_t host_len)
{
    return pathgate__policy_store_inherit(pathgate__resolver_policy_store(sub),
                                          pathgate__resolver_policy_store(parent), base, host,
                                          host_len);
}

int pathgate__policy_hooks_refresh(pathgate_resolver *r, pathgate_error *err)
{
    return pathgate__policy_store_hooks_refresh(pathgate__resolver_policy_store(r), err);
}

const pathgate__policy *pathgate__policy_of(const pathgate_resolver *r)
{
    return pathgate__policy_store_current(pathgate__resolver_policy_store(r));
}

unsigned int pathgate__policy_verdict(pathgate_policy_verdict *v, const pathgate_resolver *r,
                                      size_t base, const char *rel, size_t len, unsigned int access)
{
    return pathgate__policy_store_verdict(v, pathgate__resolver_policy_store(r), base, rel, len,
                                          access);
}

int pathgate__policy_may_deny_below(const pathgate_resolver *r, size_t base, const char *rel,
                                    size_t len, unsigned int access)
{
    return pathgate__policy_store_may_deny_below(pathgate__resolver_policy_store(r), base, rel, len,
                                                 access);
}

int pathgate__policy_real_rel(char *out, size_t cap, const pathgate_resolver *r, size_t base,
                              const char *rel)
{
    return pathgate__policy_store_real_rel(out, cap, pathgate__resolver_policy_store(r), base, rel);
}

int pathgate__policy_check_fd(pathgate_policy_verdict *v, const pathgate_resolver *r, size_t base,
                              const char *rel, int fd, int follow_final, const char *tail,
                              size_t tail_len, unsigned int access)
{
    return pathgate__policy_store_check_fd(v, pathgate__resolver_policy_store(r), base, rel, fd,
                                           follow_final, tail, tail_len, access);
}

int pathgate__policy_scan(const pathgate_resolver *r, size_t base, const char *rel, int dirfd,
                          size_t alt_base, const char *alt_rel, unsigned int access,
                          pathgate__scan_fn fn, void *ctx)
{
    return pathgate__policy_store_scan(pathgate__resolver_policy_store(r), base, rel, dirfd,
                                       alt_base, alt_rel, access, fn, ctx);
}

int pathgate__policy_enumerate(const pathgate_resolver *r, size_t base, pathgate__scan_fn fn,
                               void *ctx)
{
    return pathgate__policy_store_enumerate(pathgate__resolver_policy_store(r), base, fn, ctx);
}

/* ------------------------------------------------------------ public */

int pathgate_resolver_restrict(pathgate_resolver *r, const pathgate_policy_options *opts,
                               pathgate_error *err)
{
    if (!r || !opts || opts->version != PATHGATE_POLICY_OPTIONS_VERSION)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate__policy_store *s = pathgate__resolver_policy_store(r);
    /* the label must outlive the call: the store keeps a copy */
    const char *label;
    int rc = pathgate__policy_store_label(&label, s, opts->source ? opts->source : "restrict", err);
    if (rc < 0)
        return rc;
    return pathgate__policy_store_add(s, opts->deny_read, opts->ndeny_read, opts->deny_write,
                                      opts->ndeny_write, opts->presets, opts->npresets, label,
                                      label, err);
}

int pathgate_resolver_policy_check(pathgate_policy_verdict *out, pathgate_resolver *r,
                                   const char *text, size_t len, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    out->denied = 0;
    out->rule = NULL;
    out->source = NULL;
    if (!r || (!text && len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    size_t base;
    const char *rel;
    char addr[2 * PATHGATE_PATH_MAX + 2];
    /* relative text: relative to the first base, as every file operation on
     * a resolver (docs/fs.md "Relative paths") */
    const char *home = pathgate__resolver_base_address(r, 0);
    int rc = pathgate__resolver_locate(&base, addr, sizeof addr, &rel, r, text ? text : "", len,
                                       home, strlen(home), err);
    if (rc < 0)
        return rc;
    pathgate__policy_store_check(out, pathgate__resolver_policy_store(r), base, rel);
    return PATHGATE_OK;
}
