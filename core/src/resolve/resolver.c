/*
 * resolver.c - the resolver: construction from a closed set of roots and
 * mods, the single resolve entry point, host_path / release / token_count
 * and the internal accessors of resolver_internal.h.
 *
 * resolve() is lexical first (address.c decides the base and builds the
 * canonical address in a stack buffer), then asks the kernel once
 * (os.h's contained probe: on Linux one lookup and one close when the
 * target exists; where names are found in any case, Windows, each name
 * first takes its stored spelling, pathgate__os_stored_rel),
 * then mints a token (registry.c). For canonical input the only
 * allocation is the ref the registry mints.
 */
#define _GNU_SOURCE
#include "policy_internal.h"
#include "resolver_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "address.h"
#include "alloc.h"
#include "os.h"
#include "error.h"
#include "pathgate/uri.h"
#include "registry.h"
#include "text.h"
#include "winname.h"

typedef struct base {
    char *name; /* root key or mod name */
    size_t name_len;
    char *address; /* `root:<key>` or `mod:<Name>` */
    size_t address_len;
    char *host; /* real path recorded at construction */
    size_t host_len;
    pathgate_uri *uri_real; /* host as a URI, for mapping host paths back */
    pathgate_uri *uri_conf; /* the directory as configured, when it differs */
    int fd;
    uint64_t dev; /* the directory's identity, for where-a-file-lives checks */
    uint64_t ino;
    unsigned int flags;
    int is_mod;
} base;

/* A declared native prefix (options version 4): its URI, and the base and
 * relative directory it stands for. */
typedef struct native_prefix {
    pathgate_uri *uri;
    size_t uri_len; /* of its string: the longest prefix wins */
    size_t base;
    char *rel;
    size_t rel_len;
} native_prefix;

struct pathgate_resolver {
    pathgate_allocator alloc;
    native_prefix *prefixes;
    size_t nprefixes;
    base *bases; /* roots first, then mods */
    size_t nroots;
    size_t nmods;
    unsigned int flags;
    int has_read_only; /* some base is PATHGATE_BASE_READ_ONLY */
    pathgate__registry *reg;
    pathgate__policy_store *policy; /* rule sets (policy.c) */
    pathgate_audit_fn audit;
    void *audit_ctx;
    char *door;                           /* of audit events */
    pathgate__resolver_extra *exec_cache; /* the prepared views of commands */
};

/* A canonical address: at most PATHGATE_PATH_MAX bytes. */
#define ADDR_CAP (PATHGATE_PATH_MAX + 1)

const char *pathgate_reason_name(pathgate_reason reason)
{
    static const char *const names[] = {
#define PATHGATE_X_REASON_NAME(name, text) text,
        PATHGATE_REASON_MAP(PATHGATE_X_REASON_NAME)
#undef PATHGATE_X_REASON_NAME
    };
    if ((unsigned)reason >= sizeof names / sizeof *names)
        return "unknown";
    return names[reason];
}

/* ------------------------------------------------------------ names */

static long find_name(const pathgate_resolver *r, size_t from, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        const base *b = &r->bases[from + i];
        if (b->name_len == len && memcmp(b->name, s, len) == 0)
            return (long)i;
    }
    return -1;
}

static long lookup_root(void *ctx, const char *s, size_t len)
{
    const pathgate_resolver *r = ctx;
    return find_name(r, 0, r->nroots, s, len);
}

static long lookup_mod(void *ctx, const char *s, size_t len)
{
    const pathgate_resolver *r = ctx;
    return find_name(r, r->nroots, r->nmods, s, len);
}

static pathgate__names names_of(const pathgate_resolver *r)
{
    pathgate__names n = {lookup_root, lookup_mod, (void *)r};
    return n;
}

/* ----------------------------------------------------- construction */

static void base_dispose(const pathgate_allocator *a, base *b)
{
    pathgate__free(a, b->name);
    pathgate__free(a, b->address);
    pathgate__free(a, b->host);
    pathgate_uri_free(b->uri_real);
    pathgate_uri_free(b->uri_conf);
    if (b->fd >= 0)
        pathgate__os_close(b->fd);
    memset(b, 0, sizeof *b);
    b->fd = -1;
}

void pathgate_resolver_free(pathgate_resolver *r)
{
    if (!r)
        return;
    pathgate_allocator a = r->alloc;
    for (size_t i = 0; r->bases && i < r->nroots + r->nmods; i++)
        base_dispose(&a, &r->bases[i]);
    pathgate__free(&a, r->bases);
    pathgate__registry_free(r->reg);
    pathgate__policy_store_free(r->policy);
    pathgate__free(&a, r->door);
    if (r->exec_cache)
        r->exec_cache->free(r->exec_cache);
    for (size_t i = 0; r->prefixes && i < r->nprefixes; i++) {
        pathgate_uri_free(r->prefixes[i].uri);
        pathgate__free(&a, r->prefixes[i].rel);
    }
    pathgate__free(&a, r->prefixes);
    pathgate__free(&a, r);
}

/* The native prefixes of the options (version 4), checked and copied. */
static int native_prefixes_init(pathgate_resolver *r, const pathgate_resolver_options *opts,
                                pathgate_error *err)
{
    if (opts->version < 4 || opts->nnative_prefixes == 0)
        return PATHGATE_OK;
    if (!opts->native_prefixes)
        return pathgate__error_set(err, PATHGATE_EINVAL, "native_prefixes array is NULL");
    size_t n = opts->nnative_prefixes;
    r->prefixes = pathgate__calloc(&r->alloc, n, sizeof *r->prefixes);
    if (!r->prefixes)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    r->nprefixes = n;
    for (size_t i = 0; i < n; i++) {
        const pathgate_native_prefix *s = &opts->native_prefixes[i];
        native_prefix *p = &r->prefixes[i];
        if ((!s->prefix && s->prefix_len) || (!s->address && s->address_len))
            return pathgate__error_set(err, PATHGATE_EINVAL, "native prefix #%zu is NULL", i + 1);
        int rc = pathgate_uri_from_native(&p->uri, s->prefix ? s->prefix : "", s->prefix_len,
                                          PATHGATE_CONVENTION_NONE, &r->alloc, NULL);
        if (rc == PATHGATE_ENOMEM)
            return pathgate__error_set(err, rc, NULL);
        if (rc != 0 || pathgate_uri_is_opaque(p->uri))
            return pathgate__error_set(err, PATHGATE_ECONFIG,
                                       "native prefix #%zu is not an absolute native path (C:/..., "
                                       "\\\\server\\share\\... or /...)",
                                       i + 1);
        pathgate_uri_string(p->uri, &p->uri_len);
        const char *rel;
        if (pathgate__resolver_split(&p->base, &rel, r, s->address ? s->address : "",
                                     s->address_len) != 0)
            return pathgate__error_set(err, PATHGATE_ECONFIG,
                                       "native prefix #%zu: the address is not a canonical "
                                       "address of a configured root or mod",
                                       i + 1);
        /* rel points into the address, or is "" at the base itself */
        int inside = s->address && rel >= s->address && rel <= s->address + s->address_len;
        p->rel_len = inside ? s->address_len - (size_t)(rel - s->address) : 0;
        p->rel = pathgate__strndup(&r->alloc, rel, p->rel_len);
        if (!p->rel)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    return PATHGATE_OK;
}

/* How a base is named in messages: the key or name as given when it is
 * printable text, otherwise its position. Never the directory. */
static void describe(char *out, size_t cap, const pathgate_base_spec *spec, int is_mod,
                     size_t index)
{
    const char *kind = is_mod ? "mod" : "root";
    int printable = spec->name && spec->name_len && spec->name_len <= 128 &&
                    pathgate__utf8_valid(spec->name, spec->name_len);
    for (size_t i = 0; printable && i < spec->name_len; i++) {
        unsigned char c = (unsigned char)spec->name[i];
        if (c < 0x20 || c == 0x7F || c == '\'')
            printable = 0;
    }
    if (printable)
        snprintf(out, cap, "%s '%.*s'", kind, (int)spec->name_len, spec->name);
    else
        snprintf(out, cap, "%s #%zu", kind, index + 1);
}

static int check_specs(const pathgate_base_spec *specs, size_t n, int is_mod, pathgate_error *err)
{
    char who[256];
    for (size_t i = 0; i < n; i++) {
        const pathgate_base_spec *s = &specs[i];
        describe(who, sizeof who, s, is_mod, i);
        if (!s->name && s->name_len)
            return pathgate__error_set(err, PATHGATE_EINVAL, "%s: name is NULL", who);
        if (is_mod ? !pathgate__address_mod_name_valid(s->name, s->name_len)
                   : !pathgate__address_key_valid(s->name, s->name_len))
            return pathgate__error_set(
                err, PATHGATE_ECONFIG,
                is_mod ? "%s: a mod name must be non-empty UTF-8 without '/', ':', "
                         "NUL, control characters or surrounding spaces"
                       : "%s: a root key must match [a-z][a-z0-9_]*",
                who);
        if (s->flags & ~PATHGATE_BASE_READ_ONLY)
            return pathgate__error_set(err, PATHGATE_EINVAL, "%s: unknown flags", who);
        if (!s->dir || s->dir_len == 0)
            return pathgate__error_set(err, PATHGATE_ECONFIG, "%s: no directory given", who);
        if (s->dir_len > PATHGATE_PATH_MAX || memchr(s->dir, '\0', s->dir_len))
            return pathgate__error_set(err, PATHGATE_ECONFIG,
                                       "%s: the directory is not a valid path", who);
        for (size_t j = 0; j < i; j++)
            if (specs[j].name_len == s->name_len &&
                memcmp(specs[j].name, s->name, s->name_len) == 0)
                return pathgate__error_set(err, PATHGATE_ECONFIG, "%s is configured twice", who);
    }
    return PATHGATE_OK;
}

/* The real path of the directory open as fd: the handle's own path
 * (pathgate__os_fd_path) first, then realpath(dir); either must name the
 * very inode we hold. */
static int names_inode(const char *path, const pathgate__os_stat *held)
{
    int fd = pathgate__os_open_root(path);
    if (fd < 0)
        return 0;
    pathgate__os_stat seen;
    int same = pathgate__os_statat(fd, "", 0, &seen) == 0 && seen.dev == held->dev &&
               seen.ino == held->ino;
    pathgate__os_close(fd);
    return same;
}

static int real_path_of(char *out, size_t cap, int fd, const char *dir)
{
    pathgate__os_stat held;
    if (pathgate__os_statat(fd, "", 0, &held) != 0)
        return -1;
    if (pathgate__os_fd_path(fd, out, cap) == 0 && pathgate__os_host_absolute(out) &&
        names_inode(out, &held))
        return 0;
    char buf[PATHGATE_PATH_MAX + 1];
    if (pathgate__os_realpath(dir, buf, sizeof buf) != 0 || strlen(buf) >= cap ||
        !names_inode(buf, &held))
        return -1;
    strcpy(out, buf);
    return 0;
}

/* A host path as a POSIX URI for reverse mapping: *out NULL when it has
 * none (too long, ...); only ENOMEM is an error. */
static int host_uri(pathgate_uri **out, const char *path, size_t len, const pathgate_allocator *a)
{
    int rc = pathgate_uri_from_native(out, path, len, PATHGATE__OS_HOST_CONVENTION, a, NULL);
    if (rc == PATHGATE_ENOMEM)
        return rc;
    if (rc != 0)
        *out = NULL;
    return PATHGATE_OK;
}

int pathgate_implicit_root_check(const char *dir, pathgate_error *err)
{
    if (!dir)
        return pathgate__error_set(err, PATHGATE_EINVAL, "no directory");
    pathgate__os_fd fd = pathgate__os_open_root(dir);
    if (fd < 0)
        return pathgate__error_set(err, PATHGATE_EIO, "the directory cannot be opened");
    char real[PATHGATE_PATH_MAX + 1];
    int found = real_path_of(real, sizeof real, fd, dir);
    pathgate__os_close(fd);
    if (found != 0)
        return pathgate__error_set(err, PATHGATE_EIO,
                                   "the directory's real path cannot be determined");
    if (pathgate__os_host_is_fs_root(real))
        return pathgate__error_set(err, PATHGATE_ECONFIG, "the filesystem root");
    switch (pathgate__os_host_holds_home(real)) {
    case 1:
        return pathgate__error_set(err, PATHGATE_ECONFIG, "a home directory");
    case 2:
        return pathgate__error_set(err, PATHGATE_ECONFIG, "an ancestor of a home directory");
    default:
        return PATHGATE_OK;
    }
}

static int base_init(pathgate_resolver *r, base *b, const pathgate_base_spec *s, int is_mod,
                     size_t index, pathgate_error *err)
{
    const pathgate_allocator *a = &r->alloc;
    char who[256];
    describe(who, sizeof who, s, is_mod, index);
    b->is_mod = is_mod;
    b->flags = s->flags;
    b->name = pathgate__strndup(a, s->name, s->name_len);
    b->name_len = s->name_len;
    const char *ns = is_mod ? "mod:" : "root:";
    b->address_len = strlen(ns) + s->name_len;
    b->address = pathgate__malloc(a, b->address_len + 1);
    if (!b->name || !b->address)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(b->address, ns, strlen(ns));
    memcpy(b->address + strlen(ns), s->name, s->name_len);
    b->address[b->address_len] = '\0';

    char dir[PATHGATE_PATH_MAX + 1];
    memcpy(dir, s->dir, s->dir_len);
    dir[s->dir_len] = '\0';
    b->fd = pathgate__os_open_root(dir);
    if (b->fd < 0) {
        int e = -b->fd;
        b->fd = -1;
        return pathgate__error_set(err, PATHGATE_EIO, "%s: the directory %s", who,
                                   e == ENOENT    ? "does not exist"
                                   : e == ENOTDIR ? "is a file, not a directory"
                                   : e == EACCES  ? "is not accessible"
                                                  : "cannot be opened");
    }
    pathgate__os_stat st;
    if (pathgate__os_statat(b->fd, "", 0, &st) != 0)
        return pathgate__error_set(err, PATHGATE_EIO, "%s: the directory cannot be examined", who);
    b->dev = st.dev;
    b->ino = st.ino;
    char real[PATHGATE_PATH_MAX + 1];
    if (real_path_of(real, sizeof real, b->fd, dir) != 0)
        return pathgate__error_set(err, PATHGATE_EIO,
                                   "%s: the directory's real path cannot be determined", who);
    /* The filesystem root as a base would serve the whole host: refused
     * whatever spelling reached it ("/", "/..", a symlink to /). */
    if (pathgate__os_host_is_fs_root(real))
        return pathgate__error_set(err, PATHGATE_ECONFIG,
                                   "%s: the directory is the filesystem root '/', which would "
                                   "serve the whole host; name the directory to serve",
                                   who);
    b->host_len = strlen(real);
    b->host = pathgate__strndup(a, real, b->host_len);
    if (!b->host)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (host_uri(&b->uri_real, real, b->host_len, a) != 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);

    /* the directory as configured, made absolute lexically */
    char conf[2 * PATHGATE_PATH_MAX + 2];
    if (pathgate__os_host_absolute(dir)) {
        strcpy(conf, dir);
    } else {
        if (!getcwd(conf, PATHGATE_PATH_MAX + 1))
            return PATHGATE_OK; /* no cwd: map by the real path only */
        size_t n = strlen(conf);
        conf[n++] = PATHGATE__OS_HOST_SEP;
        memcpy(conf + n, dir, s->dir_len + 1);
    }
    pathgate_uri *u = NULL;
    if (host_uri(&u, conf, strlen(conf), a) != 0)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (u && b->uri_real && pathgate_uri_equal(u, b->uri_real))
        pathgate_uri_free(u);
    else
        b->uri_conf = u;
    return PATHGATE_OK;
}

/* Marks the bases named by opts->read_only (a name, or a base's address). */
static int mark_named_read_only(pathgate_resolver *r, const char *const *names, size_t n,
                                pathgate_error *err)
{
    if (!names && n)
        return pathgate__error_set(err, PATHGATE_EINVAL, "read_only array is NULL");
    for (size_t k = 0; k < n; k++) {
        const char *name = names[k];
        if (!name)
            return pathgate__error_set(err, PATHGATE_EINVAL, "read_only entry #%zu is NULL", k + 1);
        size_t len = strlen(name);
        int found = 0;
        for (size_t i = 0; i < r->nroots + r->nmods; i++) {
            base *b = &r->bases[i];
            if ((b->name_len == len && memcmp(b->name, name, len) == 0) ||
                (b->address_len == len && memcmp(b->address, name, len) == 0)) {
                b->flags |= PATHGATE_BASE_READ_ONLY;
                found = 1;
            }
        }
        if (!found) {
            int printable = len <= 128 && pathgate__utf8_valid(name, len);
            for (size_t i = 0; printable && i < len; i++)
                if ((unsigned char)name[i] < 0x20 || name[i] == 0x7F || name[i] == '\'')
                    printable = 0;
            if (printable)
                return pathgate__error_set(err, PATHGATE_ECONFIG,
                                           "read_only '%s' names no configured root or mod", name);
            return pathgate__error_set(err, PATHGATE_ECONFIG,
                                       "read_only entry #%zu names no configured root or mod",
                                       k + 1);
        }
    }
    return PATHGATE_OK;
}

/* 1 when the real path `inner` is `outer` or lies beneath it. */
static int path_within(const char *inner, size_t inner_len, const char *outer, size_t outer_len)
{
    if (outer_len == 1 && outer[0] == '/')
        return 1;
    return inner_len >= outer_len && memcmp(inner, outer, outer_len) == 0 &&
           (inner_len == outer_len || inner[outer_len] == '/');
}

/* A base inside (or at) a read-only base's directory is read-only: read-only
 * means the files, whichever address reaches them. */
static void derive_read_only(pathgate_resolver *r)
{
    size_t total = r->nroots + r->nmods;
    for (size_t i = 0; i < total; i++) {
        base *b = &r->bases[i];
        for (size_t j = 0; j < total && !(b->flags & PATHGATE_BASE_READ_ONLY); j++) {
            const base *o = &r->bases[j];
            if (j != i && (o->flags & PATHGATE_BASE_READ_ONLY) &&
                ((o->dev == b->dev && o->ino == b->ino) ||
                 path_within(b->host, b->host_len, o->host, o->host_len)))
                b->flags |= PATHGATE_BASE_READ_ONLY;
        }
    }
    for (size_t i = 0; i < total; i++)
        if (r->bases[i].flags & PATHGATE_BASE_READ_ONLY)
            r->has_read_only = 1;
}

/* The policy (version 3) and the audit settings of the options. */
static int policy_and_audit(pathgate_resolver *r, const pathgate_resolver_options *opts,
                            pathgate_error *err)
{
    /* what the policy needs of the bases: it never calls back */
    size_t n = r->nroots + r->nmods;
    pathgate__policy_base *pb = pathgate__calloc(&r->alloc, n ? n : 1, sizeof *pb);
    if (!pb)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    for (size_t i = 0; i < n; i++) {
        pb[i].name = r->bases[i].name;
        pb[i].is_mod = r->bases[i].is_mod;
        pb[i].host = r->bases[i].host;
        pb[i].fd = r->bases[i].fd;
    }
    pathgate__policy_input in = {pb, n, &r->alloc,
                                 (r->flags & PATHGATE_RESOLVER_FORCE_FALLBACK) != 0};
    int rc = pathgate__policy_store_new(&r->policy, &in);
    pathgate__free(&r->alloc, pb);
    if (rc < 0)
        return pathgate__error_set(err, rc, NULL);
    const char *door = opts->version >= 3 && opts->audit_door ? opts->audit_door : "c";
    r->door = pathgate__strndup(&r->alloc, door, strlen(door));
    if (!r->door)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (opts->version >= 3) {
        r->audit = opts->audit;
        r->audit_ctx = opts->audit_ctx;
    }
    if (opts->version < 3)
        return PATHGATE_OK;
    int rc2 = pathgate__policy_store_add(r->policy, opts->deny_read, opts->ndeny_read,
                                         opts->deny_write, opts->ndeny_write, opts->presets,
                                         opts->npresets, "deny_read", "deny_write", err);
    if (rc2 == PATHGATE_OK && opts->npresets)
        rc2 = pathgate__policy_store_hooks_refresh(r->policy, err);
    return rc2;
}

int pathgate_resolver_new(pathgate_resolver **out, const pathgate_resolver_options *opts,
                          pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (!opts || opts->version < 1 || opts->version > PATHGATE_RESOLVER_OPTIONS_VERSION)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "options missing or of an unknown version");
    /* version 1 callers' structs end before read_only: never read it */
    const char *const *read_only = opts->version >= 2 ? opts->read_only : NULL;
    size_t nread_only = opts->version >= 2 ? opts->nread_only : 0;
    if ((!opts->roots && opts->nroots) || (!opts->mods && opts->nmods))
        return pathgate__error_set(err, PATHGATE_EINVAL, "base array is NULL");
    if (opts->flags & ~PATHGATE_RESOLVER_FORCE_FALLBACK)
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown resolver flags");
    if (opts->nroots == 0 && opts->nmods == 0)
        return pathgate__error_set(err, PATHGATE_ECONFIG, "no root or mod configured");
    int rc = check_specs(opts->roots, opts->nroots, 0, err);
    if (rc == 0)
        rc = check_specs(opts->mods, opts->nmods, 1, err);
    if (rc != 0)
        return rc;

    pathgate_allocator a;
    pathgate__alloc_init(&a, opts->allocator);
    pathgate_resolver *r = pathgate__calloc(&a, 1, sizeof *r);
    if (!r)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    r->alloc = a;
    r->flags = opts->flags;
    size_t total = opts->nroots + opts->nmods;
    r->bases = pathgate__calloc(&a, total, sizeof *r->bases);
    if (!r->bases) {
        pathgate__free(&a, r);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    for (size_t i = 0; i < total; i++)
        r->bases[i].fd = -1;
    r->nroots = opts->nroots;
    r->nmods = opts->nmods;
    for (size_t i = 0; i < total && rc == 0; i++) {
        int is_mod = i >= opts->nroots;
        size_t k = is_mod ? i - opts->nroots : i;
        rc = base_init(r, &r->bases[i], is_mod ? &opts->mods[k] : &opts->roots[k], is_mod, k, err);
    }
    if (rc == 0)
        rc = native_prefixes_init(r, opts, err);
    if (rc == 0)
        rc = mark_named_read_only(r, read_only, nread_only, err);
    if (rc == 0)
        derive_read_only(r);
    if (rc == 0)
        rc = policy_and_audit(r, opts, err);
    if (rc == 0) {
        size_t max = opts->max_tokens ? opts->max_tokens : PATHGATE_MAX_TOKENS_DEFAULT;
        rc = pathgate__registry_new(&r->reg, max, &r->alloc);
        if (rc != 0)
            pathgate__error_set(err, rc, NULL);
    }
    if (rc != 0) {
        pathgate_resolver_free(r);
        return rc;
    }
    *out = r;
    return PATHGATE_OK;
}

size_t pathgate_resolver_root_count(const pathgate_resolver *r)
{
    return r ? r->nroots : 0;
}

const char *pathgate_resolver_root_key(const pathgate_resolver *r, size_t index)
{
    return (r && index < r->nroots) ? r->bases[index].name : NULL;
}

size_t pathgate_resolver_mod_count(const pathgate_resolver *r)
{
    return r ? r->nmods : 0;
}

const char *pathgate_resolver_mod_name(const pathgate_resolver *r, size_t index)
{
    return (r && index < r->nmods) ? r->bases[r->nroots + index].name : NULL;
}

/* ------------------------------------------------------------- resolve */

/* The lexical outcome of an input: the base and its canonical address. */
typedef struct located {
    size_t base;
    char addr[ADDR_CAP];
    size_t len;
    size_t rel_off;
} located;

/* The base whose directory holds uri (longest base wins; on a tie the
 * first configured, so a root before a mod) and the decoded relative
 * path. *rel->ptr stays NULL when no base holds it. */
static int map_uri(size_t *bi, pathgate_buf *rel, const pathgate_resolver *r,
                   const pathgate_uri *uri)
{
    const pathgate_uri *best = NULL;
    size_t best_len = 0;
    for (size_t i = 0; i < r->nroots + r->nmods; i++) {
        const base *b = &r->bases[i];
        const pathgate_uri *cands[2] = {b->uri_real, b->uri_conf};
        for (int c = 0; c < 2; c++) {
            if (!cands[c] || !pathgate_uri_starts_with(uri, cands[c]))
                continue;
            size_t n;
            pathgate_uri_string(cands[c], &n);
            if (!best || n > best_len) {
                best = cands[c];
                best_len = n;
                *bi = i;
            }
        }
    }
    if (!best)
        return PATHGATE_OK;
    return pathgate_uri_relative_to(rel, uri, best, NULL);
}

/* A URI or host path -> base + canonical address. */
static int locate_host(pathgate_reason *reason, located *loc, const pathgate_resolver *r,
                       const pathgate__parsed *p)
{
    pathgate_uri *uri = NULL;
    int rc = p->form == PATHGATE__FORM_URI
                 ? pathgate_uri_parse(&uri, p->text, p->len, &r->alloc, NULL)
                 : pathgate_uri_from_native(&uri, p->text, p->len, PATHGATE__OS_HOST_CONVENTION,
                                            &r->alloc, NULL);
    if (rc == PATHGATE_ENOMEM)
        return rc;
    if (rc != 0) {
        *reason = (rc == PATHGATE_EENCODEDNUL || rc == PATHGATE_ENUL || rc == PATHGATE_EUTF8)
                      ? PATHGATE_REASON_ENCODING
                  : rc == PATHGATE_ETOOLONG ? PATHGATE_REASON_TOO_LONG
                                            : PATHGATE_REASON_SYNTAX;
        return PATHGATE_OK;
    }
    pathgate_buf rel = PATHGATE_BUF_INIT;
    size_t bi = 0;
    rc = map_uri(&bi, &rel, r, uri);
    pathgate_uri_free(uri);
    if (rc != 0) {
        pathgate_buf_dispose(&rel);
        return rc == PATHGATE_ENOMEM ? rc : (*reason = PATHGATE_REASON_SYNTAX, PATHGATE_OK);
    }
    if (!rel.ptr) {
        *reason = PATHGATE_REASON_OUTSIDE_BASES;
        return PATHGATE_OK;
    }
    /* decoding may have produced anything: check it like input */
    if (memchr(rel.ptr, '\0', rel.len) || !pathgate__utf8_valid(rel.ptr, rel.len)) {
        *reason = PATHGATE_REASON_ENCODING;
    } else {
        const base *b = &r->bases[bi];
        loc->base = bi;
        *reason = pathgate__address_build(loc->addr, sizeof loc->addr, &loc->len, &loc->rel_off,
                                          b->is_mod, b->name, b->name_len, "", 0, rel.ptr, rel.len);
        for (size_t i = loc->rel_off; *reason == PATHGATE_REASON_OK && i < loc->len; i++)
            if ((unsigned char)loc->addr[i] < 0x20 || loc->addr[i] == 0x7F)
                *reason = PATHGATE_REASON_SYNTAX;
    }
    pathgate_buf_dispose(&rel);
    return PATHGATE_OK;
}

/* Any non-relative input -> base + canonical address. */
static int locate_absolute(pathgate_reason *reason, located *loc, const pathgate_resolver *r,
                           const pathgate__parsed *p)
{
    if (p->form != PATHGATE__FORM_ADDRESS)
        return locate_host(reason, loc, r, p);
    size_t bi = p->is_mod ? r->nroots + (size_t)p->index : (size_t)p->index;
    const base *b = &r->bases[bi];
    loc->base = bi;
    *reason = pathgate__address_build(loc->addr, sizeof loc->addr, &loc->len, &loc->rel_off,
                                      b->is_mod, b->name, b->name_len, "", 0, p->text, p->len);
    return PATHGATE_OK;
}

/* 1 when a name of rel breaks a Windows name rule (lex/winname.h): on a
 * Windows base that name is refused before anything reaches the kernel. */
static int breaks_windows_names(const char *rel, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && rel[j] != '/')
            j++;
        if (j > i && pathgate__winname_check(rel + i, j - i) != PATHGATE__WINNAME_OK)
            return 1;
        i = j + 1;
    }
    return 0;
}

static int locate_lexical(pathgate_reason *reason, located *loc, const pathgate_resolver *r,
                          const char *text, size_t len, const char *base_text, size_t base_len)
{
    pathgate__names names = names_of(r);
    pathgate__parsed p;
    *reason = pathgate__address_parse(&p, text, len, &names, PATHGATE__OS_HOST_CONVENTION);
    if (*reason != PATHGATE_REASON_OK)
        return PATHGATE_OK;
    if (p.form != PATHGATE__FORM_RELATIVE)
        return locate_absolute(reason, loc, r, &p);
    if (!base_text) {
        *reason = PATHGATE_REASON_RELATIVE_WITHOUT_BASE;
        return PATHGATE_OK;
    }
    /* the base, resolved lexically on its own first */
    pathgate__parsed bp;
    pathgate_reason br =
        pathgate__address_parse(&bp, base_text, base_len, &names, PATHGATE__OS_HOST_CONVENTION);
    if (br == PATHGATE_REASON_OK && bp.form == PATHGATE__FORM_RELATIVE)
        br = PATHGATE_REASON_INVALID_BASE;
    if (br == PATHGATE_REASON_OK) {
        int rc = locate_absolute(&br, loc, r, &bp);
        if (rc != 0)
            return rc;
    }
    if (br != PATHGATE_REASON_OK) {
        *reason = PATHGATE_REASON_INVALID_BASE;
        return PATHGATE_OK;
    }
    char base_rel[ADDR_CAP];
    size_t base_rel_len = loc->len - loc->rel_off;
    memcpy(base_rel, loc->addr + loc->rel_off, base_rel_len);
    const base *b = &r->bases[loc->base];
    *reason =
        pathgate__address_build(loc->addr, sizeof loc->addr, &loc->len, &loc->rel_off, b->is_mod,
                                b->name, b->name_len, base_rel, base_rel_len, p.text, p.len);
    return PATHGATE_OK;
}

/* An address, URI or host path -> base + canonical address, lexically;
 * on a Windows base every name of it is judged by the Windows name rules
 * (docs/windows.md, "Name rules"): a name they refuse is a syntax error,
 * for every operation, before anything reaches the kernel. */
static int locate(pathgate_reason *reason, located *loc, const pathgate_resolver *r,
                  const char *text, size_t len, const char *base_text, size_t base_len)
{
    int rc = locate_lexical(reason, loc, r, text, len, base_text, base_len);
    if (rc == 0 && *reason == PATHGATE_REASON_OK && PATHGATE__OS_WINDOWS_NAMES &&
        breaks_windows_names(loc->addr + loc->rel_off, loc->len - loc->rel_off))
        *reason = PATHGATE_REASON_SYNTAX;
    return rc;
}

/* The kernel's answer (rc of a probe) about an address whose lexical form
 * is valid. */
static pathgate_reason exists_reason(int *exists, int rc, int require_exists)
{
    *exists = rc == 0;
    switch (-rc) {
    case 0:
        return PATHGATE_REASON_OK;
    case ENOENT:
        return require_exists ? PATHGATE_REASON_NOT_FOUND : PATHGATE_REASON_OK;
    case EXDEV:
        return PATHGATE_REASON_ESCAPES_ROOT;
    case ENOTDIR:
        return PATHGATE_REASON_NOT_A_DIRECTORY;
    case ELOOP: /* a link loop (or more than 40 links): nothing to find,
                   but no escape either: the name itself may be acted on */
        return require_exists ? PATHGATE_REASON_NOT_FOUND : PATHGATE_REASON_OK;
    case ENAMETOOLONG:
        return PATHGATE_REASON_TOO_LONG;
    default:
        return PATHGATE_REASON_IO;
    }
}

static pathgate_reason check_exists(int *exists, const pathgate_resolver *r, const located *loc,
                                    int require_exists)
{
    const char *rel = loc->addr + loc->rel_off;
    int rc = pathgate__contain_probe(r->bases[loc->base].fd, rel,
                                     r->flags & PATHGATE_RESOLVER_FORCE_FALLBACK);
    return exists_reason(exists, rc, require_exists);
}

/* check_exists under a policy: by name first, then, when a symlink is on
 * the way (the probe refuses links, so that costs nothing otherwise), by
 * the real path it leads to. *v gets the deciding rule of a denial. */
static pathgate_reason check_policy_exists(int *exists, const pathgate_resolver *r,
                                           const located *loc, int require_exists,
                                           pathgate_policy_verdict *v)
{
    const char *rel = loc->addr + loc->rel_off;
    size_t len = loc->len - loc->rel_off;
    if (pathgate__policy_store_verdict(v, r->policy, loc->base, rel, len, PATHGATE__ACCESS_READ))
        return PATHGATE_REASON_DENIED;
    unsigned int how = PATHGATE__CONTAIN_NO_LINKS;
    if (r->flags & PATHGATE_RESOLVER_FORCE_FALLBACK)
        how |= PATHGATE__CONTAIN_FALLBACK;
    int rc = pathgate__contain_probe_how(r->bases[loc->base].fd, rel, how);
    if (rc != -ELOOP)
        return exists_reason(exists, rc, require_exists);
    char real[PATHGATE_PATH_MAX + 1];
    if (pathgate__policy_store_real_rel(real, sizeof real, r->policy, loc->base, rel) == 0 &&
        pathgate__policy_store_verdict(v, r->policy, loc->base, real, strlen(real),
                                       PATHGATE__ACCESS_READ))
        return PATHGATE_REASON_DENIED;
    return check_exists(exists, r, loc, require_exists);
}

static void fail(pathgate_resolution *out, pathgate_reason reason)
{
    out->ok = 0;
    out->exists = 0;
    out->reason = reason;
    out->error_message =
        reason == PATHGATE_REASON_CAPACITY ? PATHGATE_MSG_CAPACITY : PATHGATE_MSG_INVALID;
}

/* The lexical and kernel checks of a resolution, without its token: *reason
 * OK with loc and *exists set, or why the input is refused. */
static int resolve_located(pathgate_reason *reason_out, located *loc_out, int *exists_out,
                           pathgate_resolver *r, const char *text, size_t len,
                           const pathgate_resolve_options *opts, int quiet, pathgate_error *err)
{
    if (!r || (!text && len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    int require_exists = 1;
    const char *base_text = NULL;
    size_t base_len = 0;
    if (opts) {
        if (opts->version != PATHGATE_RESOLVE_OPTIONS_VERSION || (!opts->base && opts->base_len))
            return pathgate__error_set(err, PATHGATE_EINVAL, "invalid resolve options");
        require_exists = opts->require_exists != 0;
        base_text = opts->base;
        base_len = opts->base_len;
    }

    /* located in place: the struct holds a whole address, and a copy of it
     * would cost more than the rest of a resolve */
    located *loc = loc_out;
    pathgate_reason reason;
    int rc = locate(&reason, loc, r, text ? text : "", len, base_text, base_len);
    if (rc != 0)
        return pathgate__error_set(err, rc, NULL);
    int exists = 0;
    *reason_out = PATHGATE_REASON_OK;
    pathgate_policy_verdict v = {0, NULL, NULL};
    /* one address per file: where names are found in any case (Windows),
     * each existing name as its directory stores it, before the policy
     * judges it (docs/windows.md, "Case folding"); nothing where names are
     * exact */
    if (reason == PATHGATE_REASON_OK)
        pathgate__os_stored_rel(r->bases[loc->base].fd, loc->addr + loc->rel_off,
                                loc->len - loc->rel_off);
    if (reason == PATHGATE_REASON_OK)
        reason = pathgate__policy_active(pathgate__policy_store_current(r->policy), loc->base)
                     ? check_policy_exists(&exists, r, loc, require_exists, &v)
                     : check_exists(&exists, r, loc, require_exists);
    if (reason != PATHGATE_REASON_OK) {
        if (reason == PATHGATE_REASON_DENIED && !quiet && r->audit) {
            pathgate__audit_rec rec;
            memset(&rec, 0, sizeof rec);
            rec.operation = "resolve";
            rec.has_base = 1;
            rec.base = loc->base;
            rec.address = loc->addr;
            rec.rel = loc->addr + loc->rel_off;
            rec.outcome = "denied";
            rec.reason = "deny_read";
            rec.rule = v.rule;
            rec.source = v.source;
            pathgate__audit_emit(r, &rec);
        }
        *reason_out = reason;
        return PATHGATE_OK;
    }
    *exists_out = exists;
    return PATHGATE_OK;
}

static int resolve(pathgate_resolution *out, pathgate_resolver *r, const char *text, size_t len,
                   const pathgate_resolve_options *opts, int quiet, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_resolution init = PATHGATE_RESOLUTION_INIT;
    *out = init;
    located loc;
    pathgate_reason reason;
    int exists = 0;
    int rc = resolve_located(&reason, &loc, &exists, r, text, len, opts, quiet, err);
    if (rc != 0)
        return rc;
    if (reason != PATHGATE_REASON_OK) {
        fail(out, reason);
        return PATHGATE_OK;
    }

    pathgate_ref *ref = NULL;
    rc = pathgate__registry_mint(&ref, r->reg, loc.base, loc.addr, loc.len);
    if (rc == PATHGATE_ENOMEM)
        return pathgate__error_set(err, rc, NULL);
    if (rc != 0) {
        fail(out, rc == PATHGATE_ECAPACITY ? PATHGATE_REASON_CAPACITY : PATHGATE_REASON_IO);
        return PATHGATE_OK;
    }
    const base *b = &r->bases[loc.base];
    size_t alen;
    const char *addr = pathgate_ref_address(ref, &alen);
    out->ok = 1;
    out->exists = exists;
    out->reason = PATHGATE_REASON_OK;
    out->ref = ref;
    out->root_category = b->is_mod ? NULL : b->name;
    out->mod_name = b->is_mod ? b->name : NULL;
    out->relative_path = addr + loc.rel_off; /* inside the ref: "" at the base */
    return PATHGATE_OK;
}

int pathgate_resolver_resolve(pathgate_resolution *out, pathgate_resolver *r, const char *text,
                              size_t len, const pathgate_resolve_options *opts, pathgate_error *err)
{
    return resolve(out, r, text, len, opts, 0, err);
}

int pathgate__resolver_resolve_quiet(pathgate_resolution *out, pathgate_resolver *r,
                                     const char *text, size_t len,
                                     const pathgate_resolve_options *opts, pathgate_error *err)
{
    return resolve(out, r, text, len, opts, 1, err);
}

int pathgate__resolver_locate(size_t *base_index, char *addr, size_t cap, const char **rel,
                              const pathgate_resolver *r, const char *text, size_t len,
                              const char *base_text, size_t base_len, pathgate_error *err)
{
    located loc;
    pathgate_reason reason;
    int rc = locate(&reason, &loc, r, text, len, base_text, base_len);
    if (rc != 0)
        return pathgate__error_set(err, rc, NULL);
    if (reason != PATHGATE_REASON_OK || loc.len >= cap)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    memcpy(addr, loc.addr, loc.len);
    addr[loc.len] = '\0';
    *base_index = loc.base;
    *rel = addr + loc.rel_off;
    return PATHGATE_OK;
}

void pathgate_resolution_dispose(pathgate_resolution *res)
{
    if (!res)
        return;
    pathgate_ref_free(res->ref);
    pathgate_resolution init = PATHGATE_RESOLUTION_INIT;
    *res = init;
}

/* ---------------------------------------------------- the registry side */

int pathgate__resolver_split(size_t *base_index, const char **rel, const pathgate_resolver *r,
                             const char *address, size_t len)
{
    if (!r || (!address && len))
        return PATHGATE_EINVAL;
    pathgate__names names = names_of(r);
    int is_mod;
    long index;
    const char *s;
    size_t n;
    if (pathgate__address_split(&is_mod, &index, &s, &n, address ? address : "", len, &names) != 0)
        return PATHGATE_EINVALIDPATH;
    if (PATHGATE__OS_WINDOWS_NAMES && breaks_windows_names(s, n))
        return PATHGATE_EINVALIDPATH; /* as locate says */
    if (base_index)
        *base_index = is_mod ? r->nroots + (size_t)index : (size_t)index;
    if (rel)
        *rel = s;
    return PATHGATE_OK;
}

static int host_path_build(pathgate_buf *out, pathgate_resolver *r, size_t bi, const char *rel,
                           size_t rel_len, pathgate_error *err);

int pathgate_resolver_host_path(pathgate_buf *out, pathgate_resolver *r, const pathgate_ref *ref,
                                pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    if (!r || !ref)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    size_t bi;
    if (!pathgate__registry_lookup(&bi, r->reg, ref))
        return PATHGATE_OK;
    size_t alen;
    const char *addr = pathgate_ref_address(ref, &alen);
    size_t split_bi;
    const char *rel;
    if (pathgate__resolver_split(&split_bi, &rel, r, addr, alen) != 0 || split_bi != bi)
        return PATHGATE_OK;
    return host_path_build(out, r, bi, rel, alen - (size_t)(rel - addr), err);
}

int pathgate_resolver_host_path_of(pathgate_buf *out, pathgate_reason *reason, pathgate_resolver *r,
                                   const char *text, size_t len,
                                   const pathgate_resolve_options *opts, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    pathgate_reason why = PATHGATE_REASON_OK;
    located loc;
    int exists = 0;
    int rc = resolve_located(&why, &loc, &exists, r, text, len, opts, 0, err);
    if (reason)
        *reason = rc == 0 ? why : PATHGATE_REASON_OK;
    if (rc != 0)
        return rc;
    if (why != PATHGATE_REASON_OK)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    return host_path_build(out, r, loc.base, loc.addr + loc.rel_off, loc.len - loc.rel_off, err);
}

/* The host path of rel[0..rel_len) in base bi, into out. */
static int host_path_build(pathgate_buf *out, pathgate_resolver *r, size_t bi, const char *rel,
                           size_t rel_len, pathgate_error *err)
{
    const base *b = &r->bases[bi];
    if (*rel == '\0')
        rel_len = 0;
    char *p = pathgate__malloc(&r->alloc, b->host_len + 1 + rel_len + 1);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    size_t n = pathgate__os_host_join(p, b->host, b->host_len, rel, rel_len);
    pathgate__buf_adopt(out, &r->alloc, p, n);
    return PATHGATE_OK;
}

int pathgate_resolver_address_of(pathgate_buf *out, pathgate_resolver *r, const char *native,
                                 size_t len, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_buf_dispose(out);
    if (!r || (!native && len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    if (!native)
        native = "";
    pathgate_uri *u = NULL;
    int is_uri = len >= 5 && strncasecmp(native, "file:", 5) == 0;
    int rc = is_uri ? pathgate_uri_parse(&u, native, len, &r->alloc, NULL)
                    : pathgate_uri_from_native(&u, native, len, PATHGATE_CONVENTION_NONE, &r->alloc,
                                               NULL);
    if (rc == PATHGATE_ENOMEM)
        return pathgate__error_set(err, rc, NULL);
    if (rc != 0)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    /* the longest declared prefix holding it, else the longest base */
    const native_prefix *best = NULL;
    for (size_t i = 0; i < r->nprefixes; i++) {
        const native_prefix *p = &r->prefixes[i];
        if (pathgate_uri_starts_with(u, p->uri) && (!best || p->uri_len > best->uri_len))
            best = p;
    }
    pathgate_buf rel = PATHGATE_BUF_INIT;
    size_t bi = 0;
    const char *base_rel = "";
    size_t base_rel_len = 0;
    if (best) {
        rc = pathgate_uri_relative_to(&rel, u, best->uri, NULL);
        bi = best->base;
        base_rel = best->rel;
        base_rel_len = best->rel_len;
        if (rc == 0 && rel.ptr && pathgate_uri_convention(u) == PATHGATE_CONVENTION_WINDOWS)
            for (size_t i = 0; i < rel.len; i++)
                if (rel.ptr[i] == '\\')
                    rel.ptr[i] = '/';
    } else {
        rc = map_uri(&bi, &rel, r, u);
    }
    pathgate_uri_free(u);
    if (rc == PATHGATE_ENOMEM) {
        pathgate_buf_dispose(&rel);
        return pathgate__error_set(err, rc, NULL);
    }
    char addr[ADDR_CAP];
    size_t alen = 0, rel_off = 0;
    pathgate_reason why = PATHGATE_REASON_OUTSIDE_BASES;
    if (rc == 0 && rel.ptr && !memchr(rel.ptr, '\0', rel.len) &&
        pathgate__utf8_valid(rel.ptr, rel.len)) {
        const base *b = &r->bases[bi];
        why = pathgate__address_build(addr, sizeof addr, &alen, &rel_off, b->is_mod, b->name,
                                      b->name_len, base_rel, base_rel_len, rel.ptr, rel.len);
        for (size_t i = rel_off; why == PATHGATE_REASON_OK && i < alen; i++)
            if ((unsigned char)addr[i] < 0x20 || addr[i] == 0x7F)
                why = PATHGATE_REASON_SYNTAX;
    }
    pathgate_buf_dispose(&rel);
    if (why != PATHGATE_REASON_OK)
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, PATHGATE_MSG_INVALID);
    char *copy = pathgate__strndup(&r->alloc, addr, alen);
    if (!copy)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    pathgate__buf_adopt(out, &r->alloc, copy, alen);
    return PATHGATE_OK;
}

int pathgate_resolver_release(pathgate_resolver *r, const pathgate_ref *ref)
{
    if (!r || !ref)
        return 0;
    return pathgate__registry_release(r->reg, ref);
}

size_t pathgate_resolver_token_count(pathgate_resolver *r)
{
    return r ? pathgate__registry_count(r->reg) : 0;
}

/* --------------------------------------------------------- internals */

size_t pathgate__resolver_base_count(const pathgate_resolver *r)
{
    return r->nroots + r->nmods;
}

int pathgate__resolver_base_fd(const pathgate_resolver *r, size_t i)
{
    return i < r->nroots + r->nmods ? r->bases[i].fd : -1;
}

const char *pathgate__resolver_base_address(const pathgate_resolver *r, size_t i)
{
    return i < r->nroots + r->nmods ? r->bases[i].address : NULL;
}

unsigned int pathgate__resolver_base_flags(const pathgate_resolver *r, size_t i)
{
    return i < r->nroots + r->nmods ? r->bases[i].flags : 0;
}

const char *pathgate__resolver_base_host_path(const pathgate_resolver *r, size_t i)
{
    return i < r->nroots + r->nmods ? r->bases[i].host : NULL;
}

int pathgate__resolver_has_read_only(const pathgate_resolver *r)
{
    return r->has_read_only;
}

/* Bounds the walks up through `..` (deeper than any path can be). */
#define WALK_MAX (PATHGATE_PATH_MAX / 2 + 2)

static int is_read_only_dir(const pathgate_resolver *r, const pathgate__os_stat *st)
{
    for (size_t i = 0; i < r->nroots + r->nmods; i++) {
        const base *b = &r->bases[i];
        if ((b->flags & PATHGATE_BASE_READ_ONLY) && b->dev == st->dev && b->ino == st->ino)
            return 1;
    }
    return 0;
}

/* walk_up where `..` of a handle cannot be opened (NT has no relative
 * `..`: -EXDEV): the same walk over the handle's own host path
 * (pathgate__os_fd_path), each ancestor opened by its path. */
static int walk_up_by_path(int dirfd, int (*stop)(const void *ctx, const pathgate__os_stat *st),
                           const void *ctx)
{
    char path[PATHGATE_PATH_MAX + 1];
    int rc = pathgate__os_fd_path(dirfd, path, sizeof path);
    if (rc < 0)
        return rc;
    for (int depth = 0; depth <= WALK_MAX; depth++) {
        int fd = pathgate__os_open_root(path);
        if (fd < 0)
            return fd;
        pathgate__os_stat st;
        rc = pathgate__os_statat(fd, "", 0, &st);
        pathgate__os_close(fd);
        if (rc < 0 || (rc = stop(ctx, &st)) != 0)
            return rc;
        if (pathgate__os_host_is_fs_root(path))
            return 0;
        char *cut = NULL; /* the last separator */
        for (char *s = path; *s; s++)
            if (*s == '/' || *s == PATHGATE__OS_HOST_SEP)
                cut = s;
        if (!cut)
            return 0;
        cut[1] = '\0'; /* the parent, its separator kept when it is a root */
        if (!pathgate__os_host_is_fs_root(path))
            cut[0] = '\0';
    }
    return -ELOOP;
}

/* Walks up from dirfd through `..`, calling stop(ctx, st) on each
 * directory (dirfd's first): a non-zero answer ends the walk with it. 0
 * when the filesystem root is passed without an answer; -errno. */
static int walk_up(int dirfd, int (*stop)(const void *ctx, const pathgate__os_stat *st),
                   const void *ctx)
{
    pathgate__os_stat st;
    int rc = pathgate__os_statat(dirfd, "", 0, &st);
    if (rc < 0)
        return rc;
    int cur = -1;
    for (int depth = 0;; depth++) {
        if ((rc = stop(ctx, &st)) != 0)
            break;
        if (depth >= WALK_MAX) {
            rc = -ELOOP;
            break;
        }
        int up = pathgate__os_openat(cur >= 0 ? cur : dirfd, "..",
                                     PATHGATE__OS_O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
        if (up == -EXDEV && depth == 0)
            return walk_up_by_path(dirfd, stop, ctx);
        if (up < 0) {
            rc = up;
            break;
        }
        if (cur >= 0)
            pathgate__os_close(cur);
        cur = up;
        pathgate__os_stat ps;
        if ((rc = pathgate__os_statat(cur, "", 0, &ps)) < 0)
            break;
        if (ps.dev == st.dev && ps.ino == st.ino)
            break; /* `..` of the root is itself */
        st = ps;
    }
    if (cur >= 0)
        pathgate__os_close(cur);
    return rc;
}

typedef struct lives_ctx {
    const pathgate_resolver *r;
    const base *home;
} lives_ctx;

static int stop_lives(const void *ctx, const pathgate__os_stat *st)
{
    const lives_ctx *c = ctx;
    if (is_read_only_dir(c->r, st))
        return 1;
    if (st->dev == c->home->dev && st->ino == c->home->ino)
        return 2; /* the base's own directory: nothing read-only above counts */
    return 0;
}

int pathgate__resolver_dir_read_only(const pathgate_resolver *r, size_t i, int dirfd)
{
    if (i >= r->nroots + r->nmods)
        return -EINVAL;
    if (r->bases[i].flags & PATHGATE_BASE_READ_ONLY)
        return 1;
    if (!r->has_read_only)
        return 0;
    lives_ctx c = {r, &r->bases[i]};
    int rc = walk_up(dirfd, stop_lives, &c);
    return rc == 1 ? 1 : rc < 0 ? rc : 0;
}

static int stop_at(const void *ctx, const pathgate__os_stat *st)
{
    const pathgate__os_stat *target = ctx;
    return st->dev == target->dev && st->ino == target->ino;
}

int pathgate__resolver_dir_holds_read_only(const pathgate_resolver *r, int dirfd)
{
    if (!r->has_read_only)
        return 0;
    pathgate__os_stat target;
    int se = pathgate__os_statat(dirfd, "", 0, &target);
    if (se < 0)
        return se;
    for (size_t i = 0; i < r->nroots + r->nmods; i++) {
        const base *b = &r->bases[i];
        if (!(b->flags & PATHGATE_BASE_READ_ONLY))
            continue;
        int rc = walk_up(b->fd, stop_at, &target);
        if (rc != 0)
            return rc;
    }
    return 0;
}

const pathgate_allocator *pathgate__resolver_allocator(const pathgate_resolver *r)
{
    return &r->alloc;
}

pathgate__resolver_extra **pathgate__resolver_exec_slot(pathgate_resolver *r)
{
    return &r->exec_cache;
}

unsigned int pathgate__resolver_flags(const pathgate_resolver *r)
{
    return r->flags;
}

pathgate__policy_store *pathgate__resolver_policy_store(const pathgate_resolver *r)
{
    return r->policy;
}

int pathgate__audit_enabled(const pathgate_resolver *r)
{
    return r->audit != NULL;
}

const char *pathgate__resolver_audit(const pathgate_resolver *r, pathgate_audit_fn *fn, void **ctx)
{
    *fn = r->audit;
    *ctx = r->audit_ctx;
    return r->door;
}

void pathgate__audit_emit(const pathgate_resolver *r, const pathgate__audit_rec *rec)
{
    if (!r->audit)
        return;
    const char *host =
        rec->has_base && rec->base < r->nroots + r->nmods ? r->bases[rec->base].host : NULL;
    pathgate__audit_send(r->audit, r->audit_ctx, r->door, host, rec);
}

int pathgate__resolver_open(size_t *base_index, pathgate_resolver *r, const char *address,
                            size_t len, int open_flags, unsigned int mode)
{
    size_t bi;
    const char *rel;
    if (!r || pathgate__resolver_split(&bi, &rel, r, address, len) != 0)
        return PATHGATE_EINVALIDPATH;
    size_t rel_len = *rel ? len - (size_t)(rel - address) : 0;
    char buf[ADDR_CAP];
    if (rel_len >= sizeof buf)
        return PATHGATE_EINVALIDPATH;
    memcpy(buf, rel, rel_len);
    buf[rel_len] = '\0';
    if (base_index)
        *base_index = bi;
    int fd = pathgate__contain_open(r->bases[bi].fd, buf, open_flags, mode,
                                    r->flags & PATHGATE_RESOLVER_FORCE_FALLBACK);
    return fd >= 0 ? fd : pathgate__errno_to_code(fd);
}
