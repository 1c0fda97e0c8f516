/* exec_policy.c - the resolver's policy in a command's view, the parent's
 * side (exec_policy.h): what to hide and what to mount read-only, found
 * anew at each call, and the command's audit events. */
#define _GNU_SOURCE
#include "exec_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_view.h"
#include "policy_presets.h"
#include "resolver_policy.h"
#include "resolver_internal.h"

void pathgate__exec_masks_init(pathgate__exec_masks *m, const pathgate_allocator *alloc)
{
    memset(m, 0, sizeof *m);
    m->alloc = alloc;
}

void pathgate__exec_masks_dispose(pathgate__exec_masks *m)
{
    pathgate__free(m->alloc, m->buf);
    pathgate__free(m->alloc, m->v);
    pathgate__free(m->alloc, m->ptr);
    pathgate__exec_masks_init(m, m->alloc);
}

/* Appends s[0..len) and a NUL to m->buf: its offset, or -1 (ENOMEM). */
static long put_str(pathgate__exec_masks *m, const char *s, size_t len)
{
    if (m->len + len + 1 > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + len + 1)
            cap *= 2;
        if (cap > UINT32_MAX)
            return -1;
        char *nb = pathgate__realloc(m->alloc, m->buf, cap);
        if (!nb)
            return -1;
        m->buf = nb;
        m->cap = cap;
    }
    size_t at = m->len;
    memcpy(m->buf + at, s, len);
    m->buf[at + len] = '\0';
    m->len += len + 1;
    return (long)at;
}

typedef struct collect {
    pathgate__exec_masks *m;
    const pathgate_resolver *r;
    size_t base;
    uint32_t dir;       /* the base's view directory in m->buf */
    const char *prefix; /* a sub-scan's directory (rel), or NULL */
    size_t prefix_len;
    int failed; /* a PATHGATE_E* code */
} collect;

static int add(collect *c, const char *rel, size_t len, int kind)
{
    pathgate__exec_masks *m = c->m;
    if (m->n == PATHGATE__EXEC_MASKS_MAX) {
        c->failed = PATHGATE_EPOLICY;
        return -E2BIG;
    }
    if (m->n == m->ncap) {
        size_t ncap = m->ncap ? m->ncap * 2 : 16;
        pathgate__exec_mask *nv = pathgate__realloc(m->alloc, m->v, ncap * sizeof *nv);
        if (!nv) {
            c->failed = PATHGATE_ENOMEM;
            return -ENOMEM;
        }
        m->v = nv;
        m->ncap = ncap;
    }
    long at;
    if (c->prefix) { /* prefix "/" rel */
        char joined[PATHGATE_PATH_MAX + 1];
        if (c->prefix_len + 1 + len > PATHGATE_PATH_MAX)
            return -ENAMETOOLONG;
        memcpy(joined, c->prefix, c->prefix_len);
        joined[c->prefix_len] = '/';
        memcpy(joined + c->prefix_len + 1, rel, len);
        at = put_str(m, joined, c->prefix_len + 1 + len);
    } else {
        at = put_str(m, rel, len);
    }
    if (at < 0) {
        c->failed = PATHGATE_ENOMEM;
        return -ENOMEM;
    }
    m->v[m->n].dir = c->dir;
    m->v[m->n].rel = (uint32_t)at;
    m->v[m->n].kind = (uint8_t)kind;
    m->v[m->n].base = (uint32_t)c->base;
    m->n++;
    if (kind == PATHGATE__MASK_HIDE)
        m->nhide++;
    else if (kind == PATHGATE__MASK_READ_ONLY)
        m->nro++;
    else
        m->npin++;
    return 0;
}

static int by_path(const void *a, const void *b, void *buf)
{
    const pathgate__exec_mask *x = a, *y = b;
    if (x->dir != y->dir)
        return x->dir < y->dir ? -1 : 1;
    return strcmp((const char *)buf + x->rel, (const char *)buf + y->rel);
}

/* The directories on the way to each entry (below the base), once each,
 * a parent before what is below it, put first. */
static int add_pins(pathgate__exec_masks *m, const pathgate_resolver *r, pathgate_error *err)
{
    size_t n = m->n;
    for (size_t k = 0; k < n; k++) {
        collect c = {m, r, 0, m->v[k].dir, NULL, 0, 0};
        for (size_t i = 0;; i++) {
            const char *rel = m->buf + m->v[k].rel; /* (buf may move in add) */
            if (!rel[i])
                break;
            if (rel[i] != '/' || i == 0)
                continue;
            char anc[PATHGATE_PATH_MAX + 1];
            memcpy(anc, rel, i);
            if (add(&c, anc, i, PATHGATE__MASK_PIN) < 0)
                return pathgate__error_set(err, c.failed ? c.failed : PATHGATE_ENOMEM,
                                           c.failed == PATHGATE_EPOLICY
                                               ? "too many protected entries to mount in the "
                                                 "command's view"
                                               : NULL);
        }
    }
    if (m->npin == 0)
        return PATHGATE_OK;
    /* pins to the front, sorted, duplicates dropped */
    pathgate__exec_mask *pins = m->v + n;
    qsort_r(pins, m->npin, sizeof *pins, by_path, m->buf);
    size_t u = 0;
    for (size_t i = 0; i < m->npin; i++)
        if (u == 0 || by_path(&pins[u - 1], &pins[i], m->buf) != 0)
            pins[u++] = pins[i];
    pathgate__exec_mask *tmp = pathgate__malloc(m->alloc, (n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(tmp, m->v, n * sizeof *tmp);
    memmove(m->v, pins, u * sizeof *pins);
    memcpy(m->v + u, tmp, n * sizeof *tmp);
    pathgate__free(m->alloc, tmp);
    m->npin = u;
    m->n = n + u;
    return PATHGATE_OK;
}

static int on_hidden(void *ctx, const char *sub, size_t sub_len, int is_dir, unsigned int denied,
                     const pathgate_policy_verdict *v)
{
    (void)is_dir;
    (void)denied;
    (void)v;
    return add(ctx, sub, sub_len, PATHGATE__MASK_HIDE);
}

static int on_denied(void *ctx, const char *sub, size_t sub_len, int is_dir, unsigned int denied,
                     const pathgate_policy_verdict *v)
{
    collect *c = ctx;
    /* the entry's path in the base */
    char rel[PATHGATE_PATH_MAX + 1];
    size_t len = c->prefix_len + (c->prefix ? 1 : 0) + sub_len;
    if (len > PATHGATE_PATH_MAX)
        return -ENAMETOOLONG;
    if (c->prefix) {
        memcpy(rel, c->prefix, c->prefix_len);
        rel[c->prefix_len] = '/';
    }
    memcpy(rel + len - sub_len, sub, sub_len);
    rel[len] = '\0';
    int kind = pathgate__preset_pointer(v);
    if (kind && !(denied & PATHGATE_POLICY_DENY_READ)) {
        /* a git pointer: noted, validated at the end (exec_vcs.c); a
         * .git directory is entered for what it holds */
        int rc = pathgate__exec_ptr_note(c->m, c->r, c->base, rel, len, kind);
        if (rc < 0) {
            c->failed = rc == -ENOMEM ? PATHGATE_ENOMEM : PATHGATE_EPOLICY;
            return rc;
        }
        if (!is_dir)
            return 0;
        int fd = openat(pathgate__resolver_base_fd(c->r, c->base), rel,
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return errno == ENOENT ? 0 : -errno;
        collect sc = *c;
        sc.prefix = rel;
        sc.prefix_len = len;
        rc = pathgate__policy_scan(c->r, c->base, rel, fd, 0, NULL, PATHGATE__ACCESS_WRITE,
                                   on_denied, &sc);
        close(fd);
        c->failed = sc.failed;
        return rc;
    }
    if (denied & PATHGATE_POLICY_DENY_READ)
        return add(c, sub, sub_len, PATHGATE__MASK_HIDE);
    int rc = add(c, sub, sub_len, PATHGATE__MASK_READ_ONLY);
    if (rc || !is_dir)
        return rc;
    /* A read-only directory is not entered by the scan: what it holds
     * that must be hidden is looked for here. */
    if (!pathgate__policy_may_deny_below(c->r, c->base, rel, len, PATHGATE__ACCESS_READ))
        return 0;
    int fd = openat(pathgate__resolver_base_fd(c->r, c->base), rel,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -errno;
    collect sc = *c;
    sc.prefix = rel;
    sc.prefix_len = len;
    rc = pathgate__policy_scan(c->r, c->base, rel, fd, 0, NULL, PATHGATE__ACCESS_READ, on_hidden,
                               &sc);
    close(fd);
    c->failed = sc.failed;
    return rc;
}

int pathgate__exec_masks_collect(pathgate__exec_masks *m, const pathgate_resolver *r,
                                 pathgate_error *err)
{
    const pathgate__policy *p = pathgate__policy_of(r);
    size_t n = pathgate__resolver_base_count(r);
    for (size_t i = 0; p && i < n; i++) {
        if (!pathgate__policy_active(p, i))
            continue;
        char dir[4200];
        if (pathgate__exec_view_base_dir(dir, sizeof dir, pathgate__resolver_base_address(r, i)))
            return pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                                       "a mod named '.' or '..' cannot be shown to a command");
        long at = put_str(m, dir, strlen(dir));
        if (at < 0)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        collect c = {m, r, i, (uint32_t)at, NULL, 0, 0};
        int rc = pathgate__policy_enumerate(r, i, on_denied, &c);
        if (rc == 0)
            continue;
        if (c.failed == PATHGATE_ENOMEM || rc == -ENOMEM)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        if (c.failed == PATHGATE_EPOLICY)
            return pathgate__error_set(err, PATHGATE_EPOLICY,
                                       "more than %d protected entries to mount in the command's "
                                       "view",
                                       PATHGATE__EXEC_MASKS_MAX);
        return pathgate__error_set(err, PATHGATE_EPOLICY,
                                   "the command's view cannot apply the policy: a directory of "
                                   "%s cannot be scanned (%s)",
                                   pathgate__resolver_base_address(r, i), strerrordesc_np(-rc));
    }
    /* read-only entries first (a hidden one below a read-only directory
     * is mounted on that directory's read-only copy), each kind in scan
     * order (a parent before what is below it) */
    size_t w = 0;
    for (size_t k = 0; k < m->n; k++) {
        if (m->v[k].kind != PATHGATE__MASK_READ_ONLY)
            continue;
        pathgate__exec_mask t = m->v[k];
        memmove(m->v + w + 1, m->v + w, (k - w) * sizeof *m->v);
        m->v[w++] = t;
    }
    return add_pins(m, r, err);
}

/* -------------------------------------------------------------- audit */

static void emit(const pathgate_resolver *r, const char *cwd, size_t cwd_len,
                 pathgate__audit_rec *rec)
{
    char addr[PATHGATE_PATH_MAX + 64];
    if (cwd && cwd_len < sizeof addr) {
        memcpy(addr, cwd, cwd_len);
        addr[cwd_len] = '\0';
        rec->address = addr;
    }
    rec->operation = "execute";
    pathgate__audit_emit(r, rec);
}

void pathgate__exec_audit_start(const pathgate_resolver *r, const char *cwd, size_t cwd_len,
                                unsigned int protections, uint64_t masked)
{
    if (!pathgate__audit_enabled(r))
        return;
    pathgate__audit_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.outcome = "allowed";
    rec.protections = protections;
    rec.count = masked;
    emit(r, cwd, cwd_len, &rec);
}

void pathgate__exec_audit_end(const pathgate_resolver *r, const char *cwd, size_t cwd_len,
                              const pathgate_exec_result *res)
{
    if (!pathgate__audit_enabled(r))
        return;
    pathgate__audit_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.outcome = res->timed_out ? "timed_out" : "exited";
    rec.protections = res->protections;
    rec.has_status = 1;
    rec.exit_status = res->exit_code;
    emit(r, cwd, cwd_len, &rec);
}

void pathgate__exec_audit_refused(const pathgate_resolver *r, const char *cwd, size_t cwd_len,
                                  int code)
{
    if (!pathgate__audit_enabled(r))
        return;
    pathgate__audit_rec rec;
    memset(&rec, 0, sizeof rec);
    /* a refusal (policy, protection unavailable, bad address) or a
     * failure (memory, I/O) */
    rec.outcome = code == PATHGATE_EPOLICY || code == PATHGATE_EUNSUPPORTED ||
                          code == PATHGATE_EINVALIDPATH || code == PATHGATE_EINVAL ||
                          code == PATHGATE_ENOTDIR
                      ? "denied"
                      : "failed";
    rec.reason = pathgate_errname(code);
    emit(r, cwd, cwd_len, &rec);
}
