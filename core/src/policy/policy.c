/*
 * policy.c - the rule sets of a resolver (docs/policy.md): built from the
 * resolver options (version 3) and grown by pathgate_resolver_restrict,
 * published as immutable snapshots, and the verdict for an address by
 * every address that names the same host path. A store knows its resolver
 * only through the pathgate__policy_input it was made with
 * (resolver_policy.c gives it and wraps the store for the resolver).
 *
 * Snapshots: readers load the current one with an acquire load and never
 * lock; restrict builds a new one under the store's mutex and publishes it
 * with a release store. Snapshots and rule sets live until the resolver is
 * freed (restrict is rare; nothing is reclaimed under a reader).
 *
 * Aliases: a base whose directory lies inside another's (a mod inside a
 * root) names the same files by two addresses. Each base keeps the list of
 * the others it lies in or holds, with the relative path between them
 * (from the real paths recorded at construction), and a verdict asks the
 * rule sets of every one of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "os.h"
#include "error.h"
#include "policy_internal.h"
#include "policy_presets.h"

typedef struct alias {
    size_t other;
    int outer;    /* 1: this base lies in `other` at prefix; 0: `other` lies here */
    char *prefix; /* the relative path between them ("" when the same) */
    size_t len;
} alias;

struct pathgate__policy_store {
    pathgate_allocator alloc;
    int refs; /* atomic: its resolver, and each subroot that inherits it */
    pthread_mutex_t mu;
    size_t nbases;
    pathgate__policy_base *bases; /* a copy of the input's array */
    int fallback;
    alias **aliases; /* per base, NULL-free array of naliases[i] */
    size_t *naliases;
    const pathgate__policy *current; /* atomic */
    /* everything ever published, for the end */
    pathgate__policy **snaps;
    size_t nsnaps, snapcap;
    pathgate__ruleset **sets;
    size_t nsets, setcap;
    char **labels; /* sources given to restrict */
    size_t nlabels, labelcap;
    /* a subroot's (pathgate__policy_inherit): the store and snapshot of
     * the resolver it was made from (a reference held), and where its one
     * base lies there (other: the base, prefix: the path in it) */
    struct {
        pathgate__policy_store *store;
        const pathgate__policy *snap;
        alias at;
    } inh;
};

/* ---------------------------------------------------------- the store */

/* 1 (*rest: what follows, host separators and all) when the host path
 * inner is outer or lies beneath it. Both are real paths, spelled alike
 * (pathgate__os_fd_path); on Windows their separator is `\`. */
static int path_within(const char *inner, size_t ilen, const char *outer, size_t olen,
                       const char **rest)
{
    if (olen == 1 && outer[0] == '/') {
        *rest = inner + 1;
        return 1;
    }
    if (ilen < olen || memcmp(inner, outer, olen) != 0 ||
        (ilen > olen && inner[olen] != '/' && inner[olen] != PATHGATE__OS_HOST_SEP))
        return 0;
    *rest = ilen == olen ? inner + ilen : inner + olen + 1;
    return 1;
}

/* The rest of a host path (path_within) as a relative path of the
 * policy's: `/` between names, whatever the host's separator. */
static char *rel_dup(const pathgate_allocator *a, const char *rest, size_t len)
{
    char *p = pathgate__strndup(a, rest, len);
    for (size_t i = 0; p && i < len; i++)
        if (p[i] == PATHGATE__OS_HOST_SEP)
            p[i] = '/';
    return p;
}

static int add_alias(pathgate__policy_store *s, size_t i, size_t other, int outer,
                     const char *prefix)
{
    const pathgate_allocator *a = &s->alloc;
    alias *na = pathgate__realloc(a, s->aliases[i], (s->naliases[i] + 1) * sizeof *na);
    if (!na)
        return PATHGATE_ENOMEM;
    s->aliases[i] = na;
    alias *x = &na[s->naliases[i]];
    x->other = other;
    x->outer = outer;
    x->len = strlen(prefix);
    x->prefix = rel_dup(a, prefix, x->len);
    if (!x->prefix)
        return PATHGATE_ENOMEM;
    s->naliases[i]++;
    return 0;
}

void pathgate__policy_store_free(pathgate__policy_store *s)
{
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    pathgate_allocator a = s->alloc;
    pathgate__free(&a, s->inh.at.prefix);
    pathgate__policy_store_free(s->inh.store);
    for (size_t i = 0; s->aliases && s->naliases && i < s->nbases; i++) {
        for (size_t k = 0; k < s->naliases[i]; k++)
            pathgate__free(&a, s->aliases[i][k].prefix);
        pathgate__free(&a, s->aliases[i]);
    }
    pathgate__free(&a, s->aliases);
    pathgate__free(&a, s->naliases);
    pathgate__free(&a, s->bases);
    for (size_t i = 0; i < s->nsnaps; i++) {
        pathgate__free(&a, (void *)s->snaps[i]->sets);
        pathgate__free(&a, (void *)s->snaps[i]->active);
        pathgate__free(&a, s->snaps[i]);
    }
    pathgate__free(&a, s->snaps);
    for (size_t i = 0; i < s->nsets; i++)
        pathgate__ruleset_free(s->sets[i]);
    pathgate__free(&a, s->sets);
    for (size_t i = 0; i < s->nlabels; i++)
        pathgate__free(&a, s->labels[i]);
    pathgate__free(&a, s->labels);
    pthread_mutex_destroy(&s->mu);
    pathgate__free(&a, s);
}

int pathgate__policy_store_new(pathgate__policy_store **out, const pathgate__policy_input *in)
{
    const pathgate_allocator *a = in->alloc;
    *out = NULL;
    pathgate__policy_store *s = pathgate__calloc(a, 1, sizeof *s);
    if (!s)
        return PATHGATE_ENOMEM;
    s->alloc = *a;
    s->refs = 1;
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        pathgate__free(a, s);
        return PATHGATE_ENOMEM;
    }
    s->nbases = in->nbases;
    s->fallback = in->fallback;
    s->bases = pathgate__calloc(a, s->nbases ? s->nbases : 1, sizeof *s->bases);
    s->aliases = pathgate__calloc(a, s->nbases, sizeof *s->aliases);
    s->naliases = pathgate__calloc(a, s->nbases, sizeof *s->naliases);
    if (!s->bases || !s->aliases || !s->naliases) {
        pathgate__policy_store_free(s);
        return PATHGATE_ENOMEM;
    }
    for (size_t i = 0; i < s->nbases; i++)
        s->bases[i] = in->bases[i];
    for (size_t i = 0; i < s->nbases; i++) {
        const char *hi = s->bases[i].host;
        for (size_t j = 0; j < s->nbases; j++) {
            if (j == i)
                continue;
            const char *hj = s->bases[j].host;
            const char *rest;
            int rc = 0;
            if (path_within(hi, strlen(hi), hj, strlen(hj), &rest))
                rc = add_alias(s, i, j, 1, rest); /* i lies in j at rest */
            else if (path_within(hj, strlen(hj), hi, strlen(hi), &rest))
                rc = add_alias(s, i, j, 0, rest); /* j lies in i at rest */
            if (rc < 0) {
                pathgate__policy_store_free(s);
                return rc;
            }
        }
    }
    *out = s;
    return PATHGATE_OK;
}

const pathgate_allocator *pathgate__policy_store_allocator(const pathgate__policy_store *s)
{
    return &s->alloc;
}

int pathgate__policy_store_base_fd(const pathgate__policy_store *s, size_t i)
{
    return s->bases[i].fd;
}

const pathgate__policy_base *pathgate__policy_store_base(const pathgate__policy_store *s, size_t i)
{
    return i < s->nbases ? &s->bases[i] : NULL;
}

const pathgate__policy *pathgate__policy_store_current(const pathgate__policy_store *s)
{
    return s ? __atomic_load_n(&s->current, __ATOMIC_ACQUIRE) : NULL;
}

/* Publishes the current sets plus `add` (owned by the store from now on,
 * even on failure). Caller holds s->mu. */
static int publish(pathgate__policy_store *s, pathgate__ruleset *const *add, size_t nadd)
{
    const pathgate_allocator *a = &s->alloc;
    for (size_t i = 0; i < nadd; i++) {
        if (s->nsets == s->setcap) {
            pathgate__ruleset **ns = pathgate__grow(a, s->sets, &s->setcap, sizeof *ns, 4);
            if (!ns) {
                for (size_t k = i; k < nadd; k++)
                    pathgate__ruleset_free(add[k]);
                return PATHGATE_ENOMEM;
            }
            s->sets = ns;
        }
        s->sets[s->nsets++] = add[i];
    }
    if (s->nsnaps == s->snapcap) {
        pathgate__policy **ns = pathgate__grow(a, s->snaps, &s->snapcap, sizeof *ns, 2);
        if (!ns)
            return PATHGATE_ENOMEM;
        s->snaps = ns;
    }
    pathgate__policy *p = pathgate__calloc(a, 1, sizeof *p);
    const pathgate__ruleset **sets = pathgate__calloc(a, s->nsets ? s->nsets : 1, sizeof *sets);
    unsigned char *active = pathgate__calloc(a, s->nbases ? s->nbases : 1, 1);
    if (!p || !sets || !active) {
        pathgate__free(a, p);
        pathgate__free(a, (void *)sets);
        pathgate__free(a, active);
        return PATHGATE_ENOMEM;
    }
    for (size_t i = 0; i < s->nsets; i++)
        sets[i] = s->sets[i];
    for (size_t b = 0; b < s->nbases; b++) {
        active[b] = s->inh.store != NULL; /* the inherited rules apply */
        for (size_t i = 0; i < s->nsets && !active[b]; i++) {
            if (pathgate__ruleset_applies(s->sets[i], b))
                active[b] = 1;
            for (size_t k = 0; k < s->naliases[b] && !active[b]; k++)
                if (pathgate__ruleset_applies(s->sets[i], s->aliases[b][k].other))
                    active[b] = 1;
        }
    }
    p->nsets = s->nsets;
    p->sets = sets;
    p->active = active;
    s->snaps[s->nsnaps++] = p;
    __atomic_store_n(&s->current, p, __ATOMIC_RELEASE);
    return PATHGATE_OK;
}

/* -------------------------------------------------------- compiling */

static long lookup_base(void *ctx, int is_mod, const char *name, size_t len)
{
    const pathgate__policy_store *s = ctx;
    for (size_t i = 0; i < s->nbases; i++) {
        const pathgate__policy_base *b = &s->bases[i];
        if (b->is_mod == is_mod && strlen(b->name) == len && memcmp(b->name, name, len) == 0)
            return (long)i;
    }
    return -1;
}

/* A printable quote of a preset name for a message. */
static void quote_name(char *out, size_t cap, const char *s)
{
    size_t o = 0;
    for (; *s && o + 1 < cap; s++)
        out[o++] = (unsigned char)*s < 0x20 || *s == 0x7F ? '?' : *s;
    out[o] = '\0';
}

/*
 * Compiles the two lists (each with the rules of the named presets that
 * deny the same thing first) into at most two rule sets, appended to
 * out[*n].
 */
static int compile_lists(pathgate__ruleset **out, size_t *n, pathgate__policy_store *s,
                         const char *const *deny_read, size_t nread, const char *const *deny_write,
                         size_t nwrite, const char *const *presets, size_t npresets,
                         const char *read_source, const char *write_source, pathgate_error *err)
{
    const pathgate_allocator *a = &s->alloc;
    if ((!deny_read && nread) || (!deny_write && nwrite) || (!presets && npresets))
        return pathgate__error_set(err, PATHGATE_EINVAL, "policy list is NULL");
    /* presets first, checked before anything is compiled */
    size_t preset_rules = 0;
    for (size_t i = 0; i < npresets; i++) {
        const char *const *rules;
        const unsigned char *of;
        size_t k;
        const char *src;
        if (!presets[i])
            return pathgate__error_set(err, PATHGATE_EINVAL, "preset #%zu is NULL", i + 1);
        if (!pathgate__preset_find(presets[i], strlen(presets[i]), &rules, &of, &k, &src)) {
            char q[64];
            quote_name(q, sizeof q, presets[i]);
            return pathgate__error_set(
                err, PATHGATE_ECONFIG,
                "unknown preset '%s' (known: vcs, secrets, agent-config, vcs-history)", q);
        }
        preset_rules += k;
    }
    for (int pass = 0; pass < 2; pass++) {
        unsigned int denies = pass == 0 ? PATHGATE_POLICY_DENY_READ : PATHGATE_POLICY_DENY_WRITE;
        const char *const *list = pass == 0 ? deny_read : deny_write;
        size_t nlist = pass == 0 ? nread : nwrite;
        size_t cap = nlist + preset_rules;
        if (cap == 0)
            continue;
        pathgate__rule_src *src = pathgate__calloc(a, cap, sizeof *src);
        if (!src)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        size_t m = 0;
        for (size_t i = 0; i < npresets; i++) {
            const char *const *rules;
            const unsigned char *of;
            size_t k;
            const char *label;
            pathgate__preset_find(presets[i], strlen(presets[i]), &rules, &of, &k, &label);
            for (size_t j = 0; j < k; j++)
                if ((of[j] & ~PATHGATE__PRESET_SELF) == denies)
                    src[m++] = (pathgate__rule_src){rules[j], strlen(rules[j]), label,
                                                    (of[j] & PATHGATE__PRESET_SELF) != 0};
        }
        for (size_t i = 0; i < nlist; i++) {
            if (!list[i]) {
                pathgate__free(a, src);
                return pathgate__error_set(err, PATHGATE_EINVAL, "%s entry #%zu is NULL",
                                           pass == 0 ? "deny_read" : "deny_write", i + 1);
            }
            src[m++] = (pathgate__rule_src){list[i], strlen(list[i]),
                                            pass == 0 ? read_source : write_source, 0};
        }
        int rc = 0;
        if (m) {
            rc = pathgate__ruleset_compile(&out[*n], denies, src, m, lookup_base, s, a, err);
            if (rc == 0)
                (*n)++;
        }
        pathgate__free(a, src);
        if (rc < 0)
            return rc;
    }
    return PATHGATE_OK;
}

int pathgate__policy_store_add(pathgate__policy_store *s, const char *const *deny_read,
                               size_t nread, const char *const *deny_write, size_t nwrite,
                               const char *const *presets, size_t npresets, const char *read_source,
                               const char *write_source, pathgate_error *err)
{
    pathgate__ruleset *sets[2] = {NULL, NULL};
    size_t n = 0;
    int rc = compile_lists(sets, &n, s, deny_read, nread, deny_write, nwrite, presets, npresets,
                           read_source, write_source, err);
    if (rc < 0) {
        for (size_t i = 0; i < n; i++)
            pathgate__ruleset_free(sets[i]);
        return rc;
    }
    if (n == 0)
        return PATHGATE_OK;
    pthread_mutex_lock(&s->mu);
    rc = publish(s, sets, n);
    pthread_mutex_unlock(&s->mu);
    return rc < 0 ? pathgate__error_set(err, rc, NULL) : PATHGATE_OK;
}

int pathgate__policy_store_label(const char **out, pathgate__policy_store *s, const char *source,
                                 pathgate_error *err)
{
    const pathgate_allocator *a = &s->alloc;
    char *label = pathgate__strndup(a, source, strlen(source));
    if (!label)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    pthread_mutex_lock(&s->mu);
    char **nl = s->nlabels == s->labelcap
                    ? pathgate__grow(a, s->labels, &s->labelcap, sizeof *nl, 2)
                    : s->labels;
    if (nl) {
        s->labels = nl;
        s->labels[s->nlabels++] = label;
    }
    pthread_mutex_unlock(&s->mu);
    if (!nl) {
        pathgate__free(a, label);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    *out = label;
    return PATHGATE_OK;
}

/* ----------------------------------------------------------- verdicts */

/* The sets of p that deny `what` for base, on the split path pp. */
static int judge(const pathgate__policy *p, size_t base, pathgate__ppath *pp, unsigned int what,
                 pathgate_policy_verdict *v)
{
    for (size_t i = 0; i < p->nsets; i++) {
        const pathgate__ruleset *rs = p->sets[i];
        if (pathgate__ruleset_denies(rs) != what || !pathgate__ruleset_applies(rs, base))
            continue;
        size_t entry;
        if (pathgate__ruleset_match(rs, base, pp, &entry)) {
            if (v) {
                v->denied = what;
                v->rule = pathgate__ruleset_entry(rs, entry, &v->source);
            }
            return 1;
        }
    }
    return 0;
}

/* rel as base `x.other` names it: into buf; its length, or -1 when x does
 * not hold it (or it would be too long). */
static long alias_rel(char *buf, size_t cap, const alias *x, const char *rel, size_t len)
{
    if (x->outer) { /* prefix / rel */
        size_t n = x->len + (x->len && len ? 1 : 0) + len;
        if (n >= cap)
            return -1;
        memcpy(buf, x->prefix, x->len);
        size_t o = x->len;
        if (x->len && len)
            buf[o++] = '/';
        memcpy(buf + o, rel, len);
        buf[n] = '\0';
        return (long)n;
    }
    /* the other base is at prefix inside this one */
    if (x->len == 0) {
        memcpy(buf, rel, len);
        buf[len] = '\0';
        return (long)len;
    }
    if (len < x->len || memcmp(rel, x->prefix, x->len) != 0 || (len > x->len && rel[x->len] != '/'))
        return -1;
    size_t skip = len == x->len ? len : x->len + 1;
    memcpy(buf, rel + skip, len - skip);
    buf[len - skip] = '\0';
    return (long)(len - skip);
}

/* 1 when a rule of snapshot p of store s (or of what s inherits) denies
 * `what` for (base, rel), v filled; 0 when none does. */
static int judge_at(const pathgate__policy_store *s, const pathgate__policy *p, size_t base,
                    const char *rel, size_t len, unsigned int what, pathgate_policy_verdict *v)
{
    if (!pathgate__policy_active(p, base))
        return 0;
    pathgate__ppath pp;
    char buf[PATHGATE_PATH_MAX + 1];
    if (pathgate__ppath_init(&pp, rel, len) < 0)
        return 1; /* too long to judge: denied */
    if (judge(p, base, &pp, what, v))
        return 1;
    for (size_t i = 0; i < s->naliases[base]; i++) {
        const alias *x = &s->aliases[base][i];
        long n = alias_rel(buf, sizeof buf, x, rel, len);
        if (n < 0 || pathgate__ppath_init(&pp, buf, (size_t)n) < 0)
            continue;
        if (judge(p, x->other, &pp, what, v))
            return 1;
    }
    if (s->inh.store) { /* a subroot: where it lies in the resolver it came from */
        long n = alias_rel(buf, sizeof buf, &s->inh.at, rel, len);
        if (n < 0)
            return 1;
        return judge_at(s->inh.store, s->inh.snap, s->inh.at.other, buf, (size_t)n, what, v);
    }
    return 0;
}

unsigned int pathgate__policy_store_verdict(pathgate_policy_verdict *v,
                                            const pathgate__policy_store *s, size_t base,
                                            const char *rel, size_t len, unsigned int access)
{
    if (v) {
        v->denied = 0;
        v->rule = NULL;
        v->source = NULL;
    }
    const pathgate__policy *p = pathgate__policy_store_current(s);
    if (!pathgate__policy_active(p, base))
        return 0;
    static const unsigned int order[2] = {PATHGATE_POLICY_DENY_READ, PATHGATE_POLICY_DENY_WRITE};
    for (int k = 0; k < 2; k++) {
        unsigned int what = order[k];
        if (what == PATHGATE_POLICY_DENY_WRITE && !(access & PATHGATE__ACCESS_WRITE))
            break;
        if (judge_at(s, p, base, rel, len, what, v))
            return what;
    }
    return 0;
}

/* pathgate__policy_store_may_deny_below on snapshot p of store s. */
static int below_at(const pathgate__policy_store *s, const pathgate__policy *p, size_t base,
                    const char *rel, size_t len, unsigned int access)
{
    if (!pathgate__policy_active(p, base))
        return 0;
    pathgate__ppath pp;
    char buf[PATHGATE_PATH_MAX + 1];
    for (size_t i = 0; i < p->nsets; i++) {
        const pathgate__ruleset *rs = p->sets[i];
        unsigned int what = pathgate__ruleset_denies(rs);
        if (what == PATHGATE_POLICY_DENY_WRITE && !(access & PATHGATE__ACCESS_WRITE))
            continue;
        if (pathgate__ruleset_applies(rs, base)) {
            if (pathgate__ppath_init(&pp, rel, len) < 0 ||
                pathgate__ruleset_may_deny_below(rs, base, &pp))
                return 1;
        }
        for (size_t k = 0; k < s->naliases[base]; k++) {
            const alias *x = &s->aliases[base][k];
            if (!pathgate__ruleset_applies(rs, x->other))
                continue;
            long n = alias_rel(buf, sizeof buf, x, rel, len);
            if (n < 0) {
                /* the other base lies below this directory: anything may */
                if (!x->outer && x->len > len &&
                    (len == 0 || (memcmp(x->prefix, rel, len) == 0 && x->prefix[len] == '/')))
                    return 1;
                continue;
            }
            if (pathgate__ppath_init(&pp, buf, (size_t)n) < 0 ||
                pathgate__ruleset_may_deny_below(rs, x->other, &pp))
                return 1;
        }
    }
    if (s->inh.store) {
        long n = alias_rel(buf, sizeof buf, &s->inh.at, rel, len);
        return n < 0 ||
               below_at(s->inh.store, s->inh.snap, s->inh.at.other, buf, (size_t)n, access);
    }
    return 0;
}

int pathgate__policy_store_may_deny_below(const pathgate__policy_store *s, size_t base,
                                          const char *rel, size_t len, unsigned int access)
{
    return below_at(s, pathgate__policy_store_current(s), base, rel, len, access);
}

int pathgate__policy_store_inherit(pathgate__policy_store *s, pathgate__policy_store *ps,
                                   size_t base, const char *host, size_t host_len)
{
    const pathgate__policy *snap = pathgate__policy_store_current(ps);
    if (!pathgate__policy_active(snap, base))
        return PATHGATE_OK; /* no rule can apply there */
    const char *bh = ps->bases[base].host;
    const char *rest;
    if (!path_within(host, host_len, bh, strlen(bh), &rest))
        return PATHGATE_EINVALIDPATH; /* not where the base is: the rules cannot follow */
    size_t plen = host_len - (size_t)(rest - host);
    char *prefix = rel_dup(&s->alloc, rest, plen);
    if (!prefix)
        return PATHGATE_ENOMEM;
    pthread_mutex_lock(&s->mu);
    __atomic_add_fetch(&ps->refs, 1, __ATOMIC_RELAXED);
    s->inh.store = ps;
    s->inh.snap = snap;
    s->inh.at.other = base;
    s->inh.at.outer = 1;
    s->inh.at.prefix = prefix;
    s->inh.at.len = plen;
    int rc = publish(s, NULL, 0);
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* ----------------------------------------------- the object behind a link */

int pathgate__policy_store_real_rel(char *out, size_t cap, const pathgate__policy_store *s,
                                    size_t base, const char *rel)
{
    return pathgate__contain_real_rel(out, cap, s->bases[base].fd, rel, s->fallback);
}

int pathgate__policy_store_check_fd(pathgate_policy_verdict *v, const pathgate__policy_store *s,
                                    size_t base, const char *rel, int fd, int follow_final,
                                    const char *tail, size_t tail_len, unsigned int access)
{
    char real[PATHGATE_PATH_MAX + 1];
    char parent[PATHGATE_PATH_MAX + 1];
    size_t rlen = strlen(rel);
    if (rlen >= sizeof parent)
        return -ENAMETOOLONG;
    int rc;
    if (follow_final) {
        rc = pathgate__policy_store_real_rel(real, sizeof real, s, base, rel);
    } else {
        /* the last name itself, in the real directory that holds it */
        const char *slash = strrchr(rel, '/');
        const char *name = slash ? slash + 1 : rel;
        size_t plen = slash ? (size_t)(slash - rel) : 0;
        memcpy(parent, rel, plen);
        parent[plen] = '\0';
        rc = pathgate__policy_store_real_rel(real, sizeof real, s, base, parent);
        size_t n = strlen(real), nl = strlen(name);
        if (rc == 0 && n + 1 + nl >= sizeof real)
            rc = -ENAMETOOLONG;
        if (rc == 0 && nl) {
            if (n)
                real[n++] = '/';
            memcpy(real + n, name, nl + 1);
        }
    }
    if (rc < 0)
        return rc;
    /* the very object fd holds? (a link swapped since would differ) */
    int check = pathgate__contain_open_how(
        s->bases[base].fd, real, PATHGATE__OS_O_PATH | O_NOFOLLOW, 0,
        PATHGATE__CONTAIN_NO_LINKS | (s->fallback ? PATHGATE__CONTAIN_FALLBACK : 0));
    if (check < 0)
        return check == -ENOENT || check == -ELOOP ? -EAGAIN : check;
    pathgate__os_stat a, b;
    int same = pathgate__os_statat(check, "", 0, &a) == 0 &&
               pathgate__os_statat(fd, "", 0, &b) == 0 && a.dev == b.dev && a.ino == b.ino;
    pathgate__os_close(check);
    if (!same)
        return -EAGAIN;
    size_t n = strlen(real);
    if (tail_len) {
        if (n + 1 + tail_len >= sizeof real)
            return -ENAMETOOLONG;
        if (n)
            real[n++] = '/';
        memcpy(real + n, tail, tail_len);
        n += tail_len;
        real[n] = '\0';
    }
    unsigned int denied = pathgate__policy_store_verdict(v, s, base, real, n, access);
    if (denied & PATHGATE_POLICY_DENY_READ)
        return -PATHGATE__POLICY_ENOREAD;
    if (denied & PATHGATE_POLICY_DENY_WRITE)
        return -PATHGATE__POLICY_ENOWRITE;
    return 0;
}

/* ------------------------------------------------------- the check */

void pathgate__policy_store_check(pathgate_policy_verdict *out, const pathgate__policy_store *s,
                                  size_t base, const char *rel)
{
    size_t rlen = strlen(rel);
    unsigned int d =
        pathgate__policy_store_verdict(out, s, base, rel, rlen, PATHGATE__ACCESS_WRITE);
    if (!(d & PATHGATE_POLICY_DENY_READ) &&
        pathgate__policy_active(pathgate__policy_store_current(s), base)) {
        /* by what it leads to, when a link is on the way */
        char real[PATHGATE_PATH_MAX + 1];
        int fd = pathgate__contain_probe_how(s->bases[base].fd, rel,
                                             PATHGATE__CONTAIN_NO_LINKS |
                                                 (s->fallback ? PATHGATE__CONTAIN_FALLBACK : 0));
        if (fd == -ELOOP && pathgate__policy_store_real_rel(real, sizeof real, s, base, rel) == 0) {
            pathgate_policy_verdict v2;
            unsigned int d2 = pathgate__policy_store_verdict(&v2, s, base, real, strlen(real),
                                                             PATHGATE__ACCESS_WRITE);
            if (d2 > d) {
                *out = v2;
                d = d2;
            }
        }
    }
    if (d & PATHGATE_POLICY_DENY_READ)
        out->denied = PATHGATE_POLICY_DENY_READ | PATHGATE_POLICY_DENY_WRITE;
}
