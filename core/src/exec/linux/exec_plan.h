/*
 * exec_plan.h - internal: what a contained run will be, decided before
 * anything runs (docs/exec.md, "Which protections ran").
 *
 * pathgate__exec_plan_make validates the command and the options, decides
 * the protection level (the Landlock ABI, a view or not, which uid, own
 * network namespace, control group, seccomp filter), refuses a weaker one
 * unless allowed, and prepares everything the run needs (the prepared
 * view, the command's own mounts, the ruleset, the environment).
 * pathgate__exec_plan_run carries it out. Nothing of the command has run
 * when make fails.
 */
#ifndef PATHGATE_EXEC_PLAN_H
#define PATHGATE_EXEC_PLAN_H

#include <stddef.h>

#include "exec_cgroup.h"
#include "exec_sandbox.h"
#include "exec_seccomp.h"
#include "exec_spawn.h"
#include "exec_template.h"
#include "exec_tmp.h"
#include "exec_view.h"
#include "pathgate/exec.h"

/* What a command runs against. */
typedef struct pathgate__exec_target {
    const pathgate__exec_grant *grants; /* the bases */
    size_t ngrants;
    int cwd_fd;           /* the working directory */
    const char *cwd_view; /* its path in the view; NULL = no view (as without namespaces) */
    const char *home;     /* HOME: a view path inside a writable base; NULL = a private one */
    pathgate__exec_cache *cache; /* prepared views (NULL: one made for this run) */
    /* where the network allowlist's decisions go (NULL = nowhere) */
    pathgate__net_audit_fn net_audit;
    void *net_audit_ctx;
    /* the policy's masks (exec_policy.h); NULL = none. Needs a view: the
     * call is refused without one. */
    const pathgate__exec_masks *masks;
    /* the toolchains of the host (their grants are among `grants`); NULL = none */
    const pathgate__exec_tools *tools;
} pathgate__exec_target;

typedef struct pathgate__exec_plan {
    pathgate_allocator alloc;
    pathgate_exec_options o;
    int abi;           /* Landlock ABI enforced, 0 = none */
    unsigned int prot; /* PATHGATE_EXEC_PROT_* decided */
    pathgate__exec_cache *cache;
    int own_cache;
    pathgate__exec_template *tpl;    /* the view; NULL = none */
    int netns_fd;                    /* a pooled network namespace, or -1 */
    pathgate__exec_prep **prep_home; /* where the next command's start is kept; NULL: none */
    pathgate__exec_prep *prep;       /* this command's, made ahead (exec_spawn.h) */
    int next_netns;                  /* its network namespace, for the next one; -1 */
    pathgate__exec_cgroup *cg;
    pathgate__exec_view cmd; /* the command's own mounts */
    pathgate__exec_tmp tmp;  /* without a view: the private directory */
    pathgate__exec_seccomp seccomp;
    pathgate__exec_seccomp seccomp_ids; /* spec.ids_filter's */
    int ruleset;
    char *command;
    char *argv[4];
    char **envp;
    char *env_owned[8]; /* [5]: PATH when toolchains put theirs first */
    /* allow_domains: the compiled list, the proxy, the bridge's part */
    pathgate__netproxy_allow *allow;
    pathgate__netproxy *proxy;
    pathgate__exec_net *net;
    pathgate__exec_spec spec;
} pathgate__exec_plan;

/* Contract of pathgate_exec_run for the refusals and errors; *p is to be
 * disposed either way. */
int pathgate__exec_plan_make(pathgate__exec_plan *p, const pathgate_allocator *alloc,
                             const pathgate__exec_target *target, const char *command, size_t len,
                             const pathgate_exec_options *opts, pathgate_error *err);

/* Runs the plan; fills *out (output, status, protections). The network
 * allowlist's proxy has stopped when it returns. */
int pathgate__exec_plan_run(pathgate_exec_result *out, pathgate__exec_plan *p, pathgate_error *err);

void pathgate__exec_plan_dispose(pathgate__exec_plan *p);

/* Validates a caller's options struct (NULL = defaults) into *dst with the
 * defaults applied. 0 or PATHGATE_EINVAL. */
int pathgate__exec_options_check(pathgate_exec_options *dst, const pathgate_exec_options *opts,
                                 pathgate_error *err);

#endif
