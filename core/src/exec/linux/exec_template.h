/*
 * exec_template.h - internal: the prepared view (docs/exec.md, "One
 * prepared view per resolver").
 *
 * Building a view costs milliseconds (tens of mount operations, and the
 * host's tree must be detached, which waits for an RCU grace period), so
 * it is built once and reused: a short-lived builder in new user, mount
 * and PID namespaces carries out the plan (exec_view.h) and exits; its
 * user and mount namespaces stay, held by descriptors. A command's first
 * process joins them and copies the mount namespace (a few dozen mounts,
 * no host tree), then adds its private parts.
 *
 * A resolver keeps its prepared views in a cache (one per caller identity
 * and home setting); a view older than PATHGATE__TEMPLATE_MAX_AGE_S
 * seconds, or older than the host's /etc, is built again for the next
 * command. Each also keeps network namespaces for reuse: a command's
 * network namespace is returned after it when nothing is left in it (no
 * socket of any kind, no TIME_WAIT), and given to one command at a time.
 */
#ifndef PATHGATE_EXEC_TEMPLATE_H
#define PATHGATE_EXEC_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "exec_etc.h"
#include "exec_idmap.h"
#include "exec_sandbox.h"
#include "exec_tool.h"
#include "pathgate/common.h"

#define PATHGATE__TEMPLATE_MAX_AGE_S 30
/* Network namespaces kept per prepared view. */
#define PATHGATE__TEMPLATE_NETNS_MAX 16

typedef struct pathgate__exec_cache pathgate__exec_cache;

/* What a prepared view is made of. */
typedef struct pathgate__exec_template_spec {
    const pathgate__exec_grant *grants; /* the bases (grants without a view name are left out) */
    size_t ngrants;
    int unpriv;       /* a root caller: uid 0 inside is the host's 65534, bases idmapped */
    const char *home; /* HOME: a view path inside a writable base; NULL = a private one */
    const pathgate__exec_tools *tools; /* the toolchains shown; NULL = none */
    /* unpriv: the range asked for (pathgate_exec_options.id_range_*) */
    unsigned int id_first, id_count;
} pathgate__exec_template_spec;

typedef struct pathgate__exec_template {
    struct pathgate__exec_template *next;
    int refs, stale;
    /* the key */
    int unpriv;
    /* the ids mapped beside 0 (exec_idmap.h); ids.n = 0: none. A root
     * caller's (unpriv), or a caller's own subordinate ids (subids) */
    pathgate__exec_idrange ids;
    /* a caller other than root whose uid and gid are 0 inside, beside its
     * subordinate ids, maps written by newuidmap and newgidmap */
    int subids;
    unsigned int id_first, id_count; /* as asked */
    uid_t euid;
    gid_t egid;
    char *home_key;
    char *tools_key; /* the toolchains' (exec_tool.h), NULL = none */
    /* what was built */
    unsigned long long serial; /* this build's, unique in the process */
    time_t built;
    struct timespec etc_mtime;
    int userns_fd, mntns_fd;
    pathgate__exec_identity id;
    int private_home; /* the home is a tmpfs of each command */
    /* Landlock rule targets: descriptors of the files the view shows
     * (host inodes for what is mounted, the view's own for /etc). */
    pathgate__exec_grant rules[32];
    size_t nrules;
    /* network namespaces ready for a command */
    int netns[PATHGATE__TEMPLATE_NETNS_MAX];
    size_t nnetns;
} pathgate__exec_template;

/* A cache is what contained execution keeps per resolver
 * (pathgate__resolver_exec_slot): the resolver frees it through its
 * pathgate__resolver_extra, knowing nothing else of it. */
int pathgate__exec_cache_new(pathgate__exec_cache **out, const pathgate_allocator *alloc);
struct pathgate__resolver_extra;
struct pathgate__resolver_extra *pathgate__exec_cache_extra(pathgate__exec_cache *c);
/* The cache behind x (NULL for NULL). */
pathgate__exec_cache *pathgate__exec_cache_of(struct pathgate__resolver_extra *x);
/* Frees the cache and every prepared view in it. NULL is a no-op. */
void pathgate__exec_cache_free(pathgate__exec_cache *c);

/* A prepared view for spec from the cache, built when there is none yet
 * (or it has gone stale). Holds a reference until put. 0, or
 * PATHGATE_ENOMEM / EUNSUPPORTED (a base cannot be idmapped; user
 * namespaces unavailable: *no_userns set) / EIO with err set. */
int pathgate__exec_template_get(pathgate__exec_template **out, int *no_userns,
                                pathgate__exec_cache *c, const pathgate__exec_template_spec *spec,
                                pathgate_error *err);
void pathgate__exec_template_put(pathgate__exec_cache *c, pathgate__exec_template *t);

/* A network namespace of t for one command (-1: none left, the command
 * makes its own), and its return: kept when clean, else closed. */
int pathgate__exec_template_netns_take(pathgate__exec_cache *c, pathgate__exec_template *t);
void pathgate__exec_template_netns_give(pathgate__exec_cache *c, pathgate__exec_template *t, int fd,
                                        int clean);

/* Where, without a keeper, the next command's start is kept
 * (exec_spawn.h; taken and put with atomic exchanges). The cache
 * releases what is left there when it is freed, with `release` (the
 * cache is below exec_spawn.c and does not call it by name). */
struct pathgate__exec_prep;
typedef void (*pathgate__exec_prep_release_fn)(struct pathgate__exec_prep *prep, int wait);
struct pathgate__exec_prep **pathgate__exec_cache_prep(pathgate__exec_cache *c,
                                                       pathgate__exec_prep_release_fn release);

#endif
