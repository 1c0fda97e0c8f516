/* exec.c - contained command execution against a resolver or a session:
 * the bases become the target's grants, the cwd and home addresses view
 * paths, and the resolver keeps the prepared views. */
#define _GNU_SOURCE
#include "pathgate/exec.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_landlock.h"
#include "exec_policy.h"
#include "exec_quarantine.h"
#include "exec_run.h"
#include "exec_template.h"
#include "exec_tool.h"
#include "exec_view.h"
#include "resolver_policy.h"
#include "resolver_internal.h"
#include "strbuf.h"
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
 * function) is then never entered by two threads at once. A call's
 * events are bounded (docs/policy.md "Audit" of the network allowlist):
 * a decision that repeats one already reported in this call (the same
 * operation, address, outcome and reason) is counted, not reported, and
 * so is every decision after PATHGATE__NET_AUDIT_BUDGET reported ones;
 * the count is one "suppressed" event at the call's end. The refusals
 * are also kept (distinct "host:port (reason)", up to `refused`'s room)
 * for the call's result (docs/exec.md "What a result says"). */
#define PATHGATE__NET_AUDIT_BUDGET 64

typedef struct net_audit_ctx {
    pathgate_resolver *resolver;
    pthread_mutex_t lock;
    int audit; /* the resolver audits */
    char refused[600];
    size_t refused_len;
    unsigned int more; /* refusals left out for room */
    size_t reported;
    uint64_t suppressed;
    uint64_t seen[PATHGATE__NET_AUDIT_BUDGET]; /* the reported decisions' keys */
} net_audit_ctx;

static void keep_refusal(net_audit_ctx *c, const pathgate__net_event *ev)
{
    if (!ev->outcome || !strcmp(ev->outcome, "allowed"))
        return;
    char one[300];
    int n = snprintf(one, sizeof one, "%s (%s)", ev->address ? ev->address : "?",
                     ev->reason ? ev->reason : ev->outcome);
    if (n < 0 || (size_t)n >= sizeof one)
        return;
    /* distinct entries, separated by ", " */
    for (const char *at = c->refused; (at = strstr(at, one)) != NULL; at++)
        if ((at == c->refused || at[-1] == ' ') && (at[n] == ',' || at[n] == '\0'))
            return;
    size_t need = (size_t)n + (c->refused_len ? 2 : 0);
    if (c->refused_len + need >= sizeof c->refused) {
        c->more++;
        return;
    }
    if (c->refused_len) {
        memcpy(c->refused + c->refused_len, ", ", 2);
        c->refused_len += 2;
    }
    memcpy(c->refused + c->refused_len, one, (size_t)n + 1);
    c->refused_len += (size_t)n;
}

static uint64_t key_add(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
        h = (h ^ *p) * 1099511628211u; /* FNV-1a */
    return (h ^ (s ? 0x1f : 0x1e)) * 1099511628211u;
}

static void net_audit(const pathgate__net_event *ev, void *p)
{
    net_audit_ctx *c = p;
    pthread_mutex_lock(&c->lock);
    keep_refusal(c, ev);
    if (!c->audit) {
        pthread_mutex_unlock(&c->lock);
        return;
    }
    pthread_mutex_unlock(&c->lock);
    pathgate__audit_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.operation = ev->operation ? ev->operation : "network";
    rec.address = ev->address;
    rec.outcome = ev->outcome;
    rec.reason = ev->reason;
    rec.rule = ev->rule;
    rec.source = ev->rule ? "allow_domains" : NULL;
    rec.ip = ev->ip;
    uint64_t key = 14695981039346656037u;
    key = key_add(key, rec.operation);
    key = key_add(key, rec.address);
    key = key_add(key, rec.outcome);
    key = key_add(key, rec.reason);
    pthread_mutex_lock(&c->lock);
    int report = c->reported < PATHGATE__NET_AUDIT_BUDGET;
    for (size_t i = 0; i < c->reported && report; i++)
        report = c->seen[i] != key;
    if (report) {
        c->seen[c->reported++] = key;
        pathgate__audit_emit(c->resolver, &rec);
    } else {
        c->suppressed++;
    }
    pthread_mutex_unlock(&c->lock);
}

/* The one event for what net_audit did not report (its proxy stopped). */
static void net_audit_end(net_audit_ctx *c)
{
    if (!c->suppressed)
        return;
    pathgate__audit_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.operation = "network";
    rec.outcome = "suppressed";
    rec.source = "allow_domains";
    rec.count = c->suppressed;
    pathgate__audit_emit(c->resolver, &rec);
    c->suppressed = 0;
}

/* ------------------------------------------------------------- notes */

/* A size for a message: "1 GiB", "512 MiB", else bytes. */
static void size_text(char *buf, size_t cap, unsigned long long n)
{
    if (n && !(n & ((1ull << 30) - 1)))
        snprintf(buf, cap, "%llu GiB", n >> 30);
    else if (n && !(n & ((1ull << 20) - 1)))
        snprintf(buf, cap, "%llu MiB", n >> 20);
    else
        snprintf(buf, cap, "%llu bytes", n);
}

static int output_has(const pathgate_exec_result *r, const char *what)
{
    return r->output.ptr && memmem(r->output.ptr, r->output.len, what, strlen(what)) != NULL;
}

/* What a command's own network failure looks like (resolvers, curl, git,
 * pip, npm, Node, Python). */
static const char *const net_failures[] = {
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Name or service not known",
    "getaddrinfo",
    "EAI_AGAIN",
    "ENOTFOUND",
    "Network is unreachable",
    "ENETUNREACH",
    "NewConnectionError",
    "Failed to connect",
    "unable to resolve host",
};

/* Lines appended to the output that say why a command failed where the
 * reason is pathgate's (docs/exec.md "What a result says"): a limit that
 * killed it, a command not in the view, the network being off, the
 * allowlist's refusals. Each begins with "pathgate: ". 0 or ENOMEM. */
static int add_notes(pathgate_exec_result *out, const pathgate_allocator *alloc,
                     const pathgate_exec_options *o, const net_audit_ctx *net,
                     const pathgate__exec_tools *tools)
{
    pathgate__sb sb = PATHGATE__SB_INIT(alloc);
    char size[64];
    /* (a timeout is the result's timed_out, which every door reports) */
    if (out->timed_out)
        ;
    else if (out->exit_code == 128 + SIGXFSZ) {
        size_text(size, sizeof size, o->max_file_size);
        pathgate__sb_printf(&sb,
                            "pathgate: killed by SIGXFSZ (exit 153): a file reached the "
                            "file-size limit, max_file_size = %s; raise it with the "
                            "max_file_size option\n",
                            size);
    } else if (out->exit_code == 128 + SIGXCPU)
        pathgate__sb_printf(&sb,
                            "pathgate: killed by SIGXCPU (exit 152): the command used its "
                            "CPU-time limit, max_cpu_seconds = %u; raise it with the "
                            "max_cpu_seconds option\n",
                            o->max_cpu_seconds);
    if (out->exit_code == 127 &&
        (output_has(out, "not found") || output_has(out, "No such file"))) {
        pathgate__sb_puts(&sb, "pathgate: a command was not found. The view holds the host's "
                               "/usr, /bin, /sbin and /lib, the bases at /pathgate/root/<key> and "
                               "/pathgate/mod/<Name>, ");
        /* the toolchains by their view paths (at their host paths, the
         * operator chose to show those) */
        for (size_t i = 0; i < tools->n; i++)
            pathgate__sb_printf(&sb, "%s%s%s", i ? ", " : "the toolchain(s) ", tools->t[i].dst,
                                i + 1 == tools->n ? ", " : "");
        pathgate__sb_puts(&sb, "a private /tmp and home, and nothing else of the host: no other "
                               "host venv, pyenv, nvm or conda. Make a venv inside a root "
                               "(python3 -m venv .venv), or have the operator show the "
                               "toolchain's directory read-only with the toolchains option "
                               "(CLI --toolchain DIR): at /pathgate/tool/<name>, its bin first "
                               "in PATH\n");
    }
    /* procps's own message is unambiguous, even where a pipeline's last
     * command hides ps's or top's exit status (`top -bn1 | head`) */
    if (output_has(out, "mount -t proc proc /proc") ||
        (out->exit_code != 0 && output_has(out, "/proc/") && output_has(out, "Permission denied")))
        pathgate__sb_puts(&sb,
                          "pathgate: a command's /proc holds only cpuinfo, meminfo, stat, "
                          "loadavg and uptime to read (and its directories to list): the "
                          "processes' files (ps, top, /proc/self/status, /dev/fd) are refused, "
                          "since mountinfo would name host paths\n");
    if (net) {
        if (net->refused_len || net->more)
            pathgate__sb_printf(&sb,
                                "pathgate: the network allowlist refused: %s%s; only the "
                                "hosts of allow_domains are reachable\n",
                                net->refused, net->more ? ", ..." : "");
    } else if (!o->allow_network) {
        int failed = 0;
        for (size_t i = 0; !failed && i < sizeof net_failures / sizeof net_failures[0]; i++)
            failed = output_has(out, net_failures[i]);
        if (failed)
            pathgate__sb_puts(&sb, "pathgate: the network is off for commands (their own "
                                   "network namespace: loopback only); allow_domains=[...] "
                                   "lets a command reach the hosts listed, through a proxy\n");
    }
    if (sb.oom) {
        pathgate__sb_free(&sb);
        return PATHGATE_ENOMEM;
    }
    if (!sb.len)
        return PATHGATE_OK;
    pathgate__sb all = PATHGATE__SB_INIT(alloc);
    if (out->output.len) {
        pathgate__sb_put(&all, out->output.ptr, out->output.len);
        if (out->output.ptr[out->output.len - 1] != '\n')
            pathgate__sb_putc(&all, '\n');
    }
    pathgate__sb_put(&all, sb.p, sb.len);
    pathgate__sb_free(&sb);
    if (all.oom) {
        pathgate__sb_free(&all);
        return PATHGATE_ENOMEM;
    }
    pathgate_buf_dispose(&out->output);
    return pathgate__sb_to_buf(&all, &out->output);
}

/* Opens a directory named by an address as the working directory or the
 * home: 0 with *fd, or the error set. */
static int open_dir(int *fd, size_t *base, pathgate_resolver *resolver, const char *text,
                    size_t len, pathgate_error *err)
{
    int rc = pathgate__text_check(text, len, PATHGATE_PATH_MAX, err);
    if (rc)
        return rc;
    /* PATHGATE__OS_O_PATH is enough for fchdir and needs no read permission. */
    *fd = pathgate__resolver_open(base, resolver, text, len, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
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
    pathgate__exec_tools tools;
    if ((rc = open_dir(&cwd_fd, NULL, resolver, cwd, cwd_len, err)) != 0) {
        pathgate__exec_audit_refused(resolver, NULL, 0, rc);
        return rc;
    }
    if ((rc = pathgate__exec_tools_open(&tools, alloc, o.toolchains, o.toolchains_at_host_path,
                                        o.home != NULL, err)) != 0)
        goto done;
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
    grants = pathgate__calloc(alloc, n + tools.n + 1, sizeof *grants);
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
    /* the toolchains: read and execute, never write; not shown as bases */
    for (size_t i = 0; i < tools.n; i++) {
        grants[n + i].fd = tools.t[i].fd;
        grants[n + i].view = NULL;
        grants[n + i].classes = PATHGATE__LL_READ | PATHGATE__LL_EXEC;
    }
    pathgate__exec_cache *cache = cache_of(resolver);
    if (!cache) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto done;
    }
    /* The policy: what matches now is hidden or read-only in this
     * command's view (exec_policy.h), found anew at each call. */
    if (policy && ((rc = pathgate__policy_hooks_refresh(resolver, err)) != 0 ||
                   (rc = pathgate__exec_masks_collect(&masks, resolver, err)) != 0))
        goto done;
    if (pathgate__audit_enabled(resolver))
        cwd_addr = canonical(alloc, resolver, cwd, cwd_len);
    size_t cwd_addr_len = cwd_addr ? strlen(cwd_addr) : 0;
    pathgate__exec_target t = {
        grants, n + tools.n, cwd_fd, cwd_view, home_view, cache, NULL, NULL, policy ? &masks : NULL,
        &tools};
    net_audit_ctx nac = {resolver, PTHREAD_MUTEX_INITIALIZER, 0, "", 0, 0, 0, 0, {0}};
    if (o.allow_domains) {
        nac.audit = pathgate__audit_enabled(resolver);
        t.net_audit = net_audit;
        t.net_audit_ctx = &nac;
    }
    pathgate__exec_plan plan;
    rc = pathgate__exec_plan_make(&plan, alloc, &t, command, len, &o, err);
    if (!rc) {
        pathgate__exec_audit_start(resolver, cwd_addr, cwd_addr_len, plan.prot, masks.n);
        rc = pathgate__exec_plan_run(out, &plan, err);
        net_audit_end(&nac); /* (the proxy has stopped: no decision comes later) */
        /* the vcs preset's pointers: what the command left is validated */
        if (!rc && policy) {
            pathgate__exec_explain(&masks, resolver, out);
            pathgate__exec_ptr_check(&masks, resolver, out);
        }
        /* what it left at protected names goes, before the call returns */
        if (!rc && policy && (rc = pathgate__exec_quarantine(out, resolver, &masks, err)) != 0)
            pathgate_exec_result_dispose(out);
        if (!rc)
            pathgate__exec_audit_end(resolver, cwd_addr, cwd_addr_len, out);
    }
    pathgate__exec_plan_dispose(&plan); /* (the proxy stopped: its refusals are all in) */
    if (!rc && (rc = add_notes(out, alloc, &o, o.allow_domains ? &nac : NULL, &tools)) != 0) {
        pathgate_exec_result_dispose(out);
        rc = pathgate__error_set(err, rc, NULL);
    }
done:
    if (rc)
        pathgate__exec_audit_refused(resolver, cwd_addr, cwd_addr ? strlen(cwd_addr) : 0, rc);
    pathgate__free(alloc, cwd_addr);
    pathgate__exec_masks_dispose(&masks);
    pathgate__exec_tools_dispose(&tools);
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
