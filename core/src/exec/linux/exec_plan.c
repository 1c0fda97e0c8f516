
/* exec_plan.c - what a contained run will be (exec_plan.h), and running
 * it. */
#define _GNU_SOURCE
#include "exec_plan.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_child.h"
#include "exec_idmap.h"
#include "exec_landlock.h"

/* The Landlock ABI cap PATHGATE_EXEC_TEST_ABI_CAP put in flags, or -1. */
#define TEST_ABI_CAP_OF(flags) ((int)(((flags) >> 8) & 0x1fu) - 1)

#define SHELL_PATH "/bin/sh"
#define ENV_PATH "PATH=/usr/local/bin:/usr/bin:/bin"
#define ENV_LANG "LANG=C.UTF-8"

int pathgate__exec_options_check(pathgate_exec_options *dst, const pathgate_exec_options *opts,
                                 pathgate_error *err)
{
    static const pathgate_exec_options defaults = PATHGATE_EXEC_OPTIONS_INIT;
    if (opts && (opts->version < 1 || opts->version > PATHGATE_EXEC_OPTIONS_VERSION))
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown exec options version");
    *dst = defaults;
    if (opts && opts->version == 1) /* the prefix before the limits */
        memcpy(dst, opts, offsetof(pathgate_exec_options, max_processes));
    else if (opts && opts->version == 2) /* ... before the home */
        memcpy(dst, opts, offsetof(pathgate_exec_options, home));
    else if (opts && opts->version == 3) /* ... before allow_domains */
        memcpy(dst, opts, offsetof(pathgate_exec_options, allow_domains));
    else if (opts && opts->version == 4) /* ... before toolchains */
        memcpy(dst, opts, offsetof(pathgate_exec_options, toolchains));
    else if (opts && opts->version == 5) /* ... before id_range_* */
        memcpy(dst, opts, offsetof(pathgate_exec_options, id_range_first));
    else if (opts)
        *dst = *opts;
    dst->version = PATHGATE_EXEC_OPTIONS_VERSION;
    if (!dst->home && dst->home_len)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    if (dst->allow_domains && dst->allow_network)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "allow_domains and allow_network exclude each other "
                                   "(allow_network is the host's whole network)");
    if (!dst->max_processes)
        dst->max_processes = PATHGATE_EXEC_MAX_PROCESSES_DEFAULT;
    if (!dst->max_cpu_seconds)
        dst->max_cpu_seconds = PATHGATE_EXEC_MAX_CPU_DEFAULT;
    if (!dst->max_memory)
        dst->max_memory = PATHGATE_EXEC_MAX_MEMORY_DEFAULT;
    if (!dst->max_file_size)
        dst->max_file_size = PATHGATE_EXEC_MAX_FILE_SIZE_DEFAULT;
    if (!dst->tmp_size)
        dst->tmp_size = PATHGATE_EXEC_TMP_SIZE_DEFAULT;
    if (dst->tmp_size < 4096)
        return pathgate__error_set(err, PATHGATE_EINVAL, "tmp_size is too small");
    if (!dst->timeout_ms)
        dst->timeout_ms = PATHGATE_EXEC_TIMEOUT_DEFAULT_MS;
    if (!dst->output_cap)
        dst->output_cap = PATHGATE_EXEC_OUTPUT_CAP_DEFAULT;
    if (dst->output_cap > ((size_t)-1) / 4)
        return pathgate__error_set(err, PATHGATE_EINVAL, "output cap too large");
    /* an explicit range of ids: checked against the host's users now */
    pathgate__exec_idrange ids;
    if (dst->id_range_count > 1 && geteuid() == 0 &&
        pathgate__exec_idmap_range(&ids, "/etc", dst->id_range_first, dst->id_range_count) < 0)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "id_range: the range holds an id below 65536, a user's or "
                                   "group's id or another range, or ends past 4294967294");
    if (dst->id_range_count > 1 && geteuid() != 0 &&
        pathgate__exec_idmap_caller_subids(&ids, dst->id_range_first, dst->id_range_count) < 0)
        return pathgate__error_set(err, PATHGATE_EINVAL, PATHGATE__EXEC_SUBIDS_REFUSED);
    if (dst->env) {
        for (const char *const *e = dst->env; *e; e++) {
            const char *eq = strchr(*e, '=');
            if (!eq || eq == *e)
                return pathgate__error_set(err, PATHGATE_EINVAL,
                                           "environment entries must be KEY=VALUE");
        }
    }
    return PATHGATE_OK;
}

static int refuse(pathgate_error *err, const char *why)
{
    return pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                               "%s: refusing to run the command with weaker protection "
                               "(allow_unconfined allows it)",
                               why);
}

/* ---------------------------------------------------------- environment */

/* 1 when the caller's environment sets the key of `entry` ("KEY=..."). */
static int env_overrides(const char *const *env, const char *entry)
{
    size_t klen = (size_t)(strchr(entry, '=') - entry);
    for (; env && *env; env++)
        if (strncmp(*env, entry, klen + 1) == 0)
            return 1;
    return 0;
}

static char *concat(const pathgate_allocator *a, const char *x, const char *y)
{
    size_t lx = strlen(x), ly = strlen(y);
    char *s = pathgate__malloc(a, lx + ly + 1);
    if (s) {
        memcpy(s, x, lx);
        memcpy(s + lx, y, ly + 1);
    }
    return s;
}

/* The defaults (HOME, TMPDIR, PWD = NULL: unset; user: USER and LOGNAME,
 * NULL: unset), then the caller's entries. */
static int build_env(pathgate__exec_plan *p, const char *home, const char *tmp, const char *pwd,
                     const char *user, const char *path_first)
{
    const pathgate_allocator *a = &p->alloc;
    const char *const *env = p->o.env;
    size_t n = 0;
    for (const char *const *e = env; e && *e; e++)
        n++;
    char **o = p->env_owned;
    o[0] = concat(a, "HOME=", home);
    o[1] = concat(a, "TMPDIR=", tmp);
    o[2] = pwd ? concat(a, "PWD=", pwd) : NULL;
    o[3] = user ? concat(a, "USER=", user) : NULL;
    o[4] = user ? concat(a, "LOGNAME=", user) : NULL;
    /* the toolchains' bin directories first (exec_tool.h) */
    char *first = path_first ? concat(a, "PATH=", path_first) : NULL;
    o[5] = first ? concat(a, first, &ENV_PATH[5]) : NULL;
    pathgate__free(a, first);
    p->envp = pathgate__calloc(a, n + 8 + 8, sizeof *p->envp);
    if (!o[0] || !o[1] || (pwd && !o[2]) || (user && (!o[3] || !o[4])) || (path_first && !o[5]) ||
        !p->envp)
        return PATHGATE_ENOMEM;
    /* execve does not write to its arguments: the const casts are safe. */
    char *defaults[] = {
        o[5] ? o[5] : (char *)ENV_PATH, o[0], o[1], (char *)ENV_LANG, o[2], o[3], o[4]};
    size_t k = 0;
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (defaults[i] && !env_overrides(env, defaults[i]))
            p->envp[k++] = defaults[i];
    /* the network allowlist's proxy variables (netproxy.h), unless set */
    for (const char *const *e = pathgate__netproxy_env; p->o.allow_domains && *e; e++)
        if (!env_overrides(env, *e))
            p->envp[k++] = (char *)*e;
    /* the network off: no retries (npm waited ~70 s, pip ~8 s, retrying a
     * name that cannot resolve), unless set */
    static const char *const offline_env[] = {"npm_config_fetch_retries=0", "PIP_RETRIES=0"};
    for (size_t i = 0; !p->o.allow_domains && !p->o.allow_network && i < 2; i++)
        if (!env_overrides(env, offline_env[i]))
            p->envp[k++] = (char *)offline_env[i];
    for (const char *const *e = env; e && *e; e++)
        p->envp[k++] = (char *)*e;
    p->envp[k] = NULL;
    return PATHGATE_OK;
}

/* ------------------------------------------------- the network allowlist */

/* allow_domains (docs/exec.md "Network"): the proxy for this command,
 * serving the uid the command runs as, and what the init needs to start
 * the bridge in the command's network namespace. */
static int plan_net(pathgate__exec_plan *p, const pathgate__exec_target *t, pathgate_error *err)
{
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.allow = p->allow;
    cfg.audit = t->net_audit;
    cfg.audit_ctx = t->net_audit_ctx;
    cfg.alloc = &p->alloc;
    cfg.owner_uid = cfg.peer_uid = p->tpl->unpriv ? PATHGATE__EXEC_RUN_AS_UID : geteuid();
    cfg.owner_gid = p->tpl->unpriv ? PATHGATE__EXEC_RUN_AS_GID : getegid();
    int rc = pathgate__netproxy_start(&p->proxy, &cfg, err);
    if (rc)
        return rc;
    size_t size = PATHGATE__EXEC_STACK + PATHGATE__NETPROXY_BRIDGE_MEM + sizeof *p->net;
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    pathgate__exec_net *n =
        (pathgate__exec_net *)((char *)m + PATHGATE__EXEC_STACK + PATHGATE__NETPROXY_BRIDGE_MEM);
    p->net = n;
    n->stack = (char *)m + PATHGATE__EXEC_STACK;
    n->mem = n->stack;
    n->socket_fd = open(pathgate__netproxy_socket(p->proxy), O_PATH | O_CLOEXEC);
    if (n->socket_fd < 0)
        return pathgate__error_set(err, PATHGATE_EIO, "cannot open the network proxy's socket");
    n->child_fd = n->socket_fd;
    snprintf(n->child_path, sizeof n->child_path, "/proc/self/fd/%d", n->socket_fd);
    p->spec.net = n;
    p->prot |= PATHGATE_EXEC_PROT_NETWORK_ALLOWLIST;
    return PATHGATE_OK;
}

static void net_dispose(pathgate__exec_plan *p)
{
    /* (the bridge has ended: the init reaps every process of its
     * namespace before it says done, and the namespace ends with it) */
    if (p->net) {
        if (p->net->socket_fd >= 0)
            close(p->net->socket_fd);
        munmap((char *)p->net - PATHGATE__EXEC_STACK - PATHGATE__NETPROXY_BRIDGE_MEM,
               PATHGATE__EXEC_STACK + PATHGATE__NETPROXY_BRIDGE_MEM + sizeof *p->net);
    }
    pathgate__netproxy_stop(p->proxy);
    pathgate__netproxy_allow_free(p->allow);
    p->net = NULL;
    p->proxy = NULL;
    p->allow = NULL;
}

/* ------------------------------------------------------------- the view */

/* The prepared view for the target: as an unprivileged uid for a root
 * caller, or (weaker protection allowed) as the caller. *no_userns when
 * user namespaces are unavailable. */
static int get_view(pathgate__exec_plan *p, const pathgate__exec_target *t, int *no_userns,
                    pathgate_error *err)
{
    pathgate__exec_template_spec spec = {
        t->grants, t->ngrants,          geteuid() == 0,     t->home,
        t->tools,  p->o.id_range_first, p->o.id_range_count};
    int rc = PATHGATE_EUNSUPPORTED;
    *no_userns = 0;
    if (!spec.unpriv || !(p->o.flags & PATHGATE_EXEC_TEST_NO_IDMAP))
        rc = pathgate__exec_template_get(&p->tpl, no_userns, p->cache, &spec, err);
    if (rc == PATHGATE_EUNSUPPORTED && spec.unpriv && !*no_userns) {
        if (!p->o.allow_unconfined)
            return refuse(err, "the command cannot run as an unprivileged uid (the bases "
                               "cannot be idmapped)");
        spec.unpriv = 0;
        rc = pathgate__exec_template_get(&p->tpl, no_userns, p->cache, &spec, err);
    }
    return rc;
}

/* The command's own mounts into v: /tmp, /dev/shm and the private home,
 * with their sizes and inode counts. */
static int plan_private(const pathgate__exec_plan *p, pathgate__exec_view *v)
{
    uint64_t rights = pathgate__landlock_rights(
        p->abi, PATHGATE__LL_READ | PATHGATE__LL_WRITE | PATHGATE__LL_EXEC, 1);
    unsigned long long tmp = p->o.tmp_size, shm = p->o.tmp_size / 4;
    /* one inode per 4 KiB of size (a file of one byte takes a page
     * anyway), at least 256: a size limit is then a kernel memory limit */
    unsigned long long tmp_inodes = tmp / 4096 > 256 ? tmp / 4096 : 256;
    unsigned long long shm_inodes = shm / 4096 > 256 ? shm / 4096 : 256;
    char opts[128];
    snprintf(opts, sizeof opts, "mode=1777,size=%llu,nr_inodes=%llu", tmp, tmp_inodes);
    int rc = pathgate__exec_view_add_tmpfs(v, "/tmp", opts, rights);
    snprintf(opts, sizeof opts, "mode=1777,size=%llu,nr_inodes=%llu", shm, shm_inodes);
    if (!rc)
        rc = pathgate__exec_view_add_tmpfs(v, "/dev/shm", opts, rights);
    if (!rc && p->tpl->private_home) {
        snprintf(opts, sizeof opts, "mode=0700,size=%llu,nr_inodes=%llu,uid=%u,gid=%u", tmp,
                 tmp_inodes, p->tpl->id.uid, p->tpl->id.gid);
        rc = pathgate__exec_view_add_tmpfs(v, p->tpl->id.home, opts, rights);
    }
    /* terminals: os.openpty(), script, pexpect */
    if (!rc)
        rc = pathgate__exec_view_add_devpts(
            v, "/dev/pts",
            pathgate__landlock_rights(p->abi, PATHGATE__LL_READ | PATHGATE__LL_DEV, 1) |
                (pathgate__landlock_rights(p->abi, PATHGATE__LL_WRITE, 0)));
    return rc;
}

static int prepare_view(pathgate__exec_plan *p, const pathgate__exec_target *t, pathgate_error *err)
{
    pathgate__exec_spec *s = &p->spec;
    struct stat st;
    if (fstat(t->cwd_fd, &st) < 0)
        return pathgate__error_set(err, PATHGATE_EIO, "cannot read the working directory");
    s->tpl = p->tpl;
    s->cmd = &p->cmd;
    s->masks = t->masks;
    s->cwd_view = t->cwd_view;
    s->cwd_dev = st.st_dev;
    s->cwd_ino = st.st_ino;
    p->prot |= PATHGATE_EXEC_PROT_NAMESPACES;
    if (p->tpl->unpriv)
        p->prot |= PATHGATE_EXEC_PROT_UNPRIVILEGED_UID;
    if (p->tpl->ids.n) { /* a root caller's range, or the caller's subordinate ids */
        /* CAP_SETUID / CAP_SETGID for a root caller's command only: a
         * caller other than root cannot change ids on the host either, and
         * with CAP_SETGID its command could drop the caller's supplementary
         * groups (newgidmap leaves setgroups allowed) and read a file
         * whose group may less than others do */
        s->keep_caps = PATHGATE__KEEP_CAPS_OWNER | (geteuid() == 0 ? PATHGATE__KEEP_CAPS_SETID : 0);
        p->prot |= PATHGATE_EXEC_PROT_ID_RANGE;
    }
    if (p->o.allow_network)
        s->netns_fd = PATHGATE__NETNS_HOST;
    else
        p->prot |= PATHGATE_EXEC_PROT_NETWORK_NAMESPACE; /* which one: plan_start */
    int rc = plan_private(p, &p->cmd);
    if (!rc)
        rc = build_env(p, p->tpl->id.home, "/tmp", t->cwd_view,
                       p->tpl->id.name[0] ? p->tpl->id.name : NULL,
                       t->tools ? t->tools->path : NULL);
    return rc ? pathgate__error_set(err, rc, NULL) : PATHGATE_OK;
}

/* ------------------------------------------------------------ the start */

/* 1 when prep was made for this command's view, private mounts and
 * parent. */
static int prep_fits(const pathgate__exec_plan *p, const pathgate__exec_prep *prep)
{
    const pathgate__exec_keeper *k = p->spec.keeper;
    return prep->serial == p->tpl->serial && prep->unpriv == p->tpl->unpriv && prep->keeper == k &&
           (!k || prep->keeper_pid == k->pid) && prep->has_filter == (p->spec.filter != NULL) &&
           (!prep->has_filter || prep->filter_flags == p->spec.filter_flags) &&
           pathgate__exec_view_same(&prep->cmd, &p->cmd);
}

/* How the command's namespaces are made: by its start made ahead when
 * one fits, else now (a pooled network namespace, or a new one). Only
 * for a resolver's prepared views (those outlive the call), without the
 * host's network. */
static void plan_start(pathgate__exec_plan *p)
{
    pathgate__exec_spec *s = &p->spec;
    if (p->o.allow_network)
        return;
    if (!p->own_cache)
        p->prep_home = s->keeper ? pathgate__exec_cgroup_prep(p->cg)
                                 : pathgate__exec_cache_prep(p->cache, pathgate__exec_prep_release);
    pathgate__exec_prep *prep =
        p->prep_home ? __atomic_exchange_n(p->prep_home, NULL, __ATOMIC_ACQ_REL) : NULL;
    if (prep && prep->owner != getpid())
        prep = NULL; /* a fork's copy of the parent's: its processes share the parent's memory,
                      * never ours (left alone; the copy is this process's only) */
    if (prep && prep_fits(p, prep) && pathgate__exec_prep_ready(prep, 2000)) {
        p->prep = s->prep = prep;
        s->netns_fd = PATHGATE__NETNS_NEW; /* (made: the prep's) */
        return;
    }
    /* (in the group, its processes count: gone before this one starts) */
    pathgate__exec_prep_release(prep, 1);
    p->netns_fd = pathgate__exec_template_netns_take(p->cache, p->tpl);
    s->netns_fd = p->netns_fd >= 0 ? p->netns_fd : PATHGATE__NETNS_NEW;
}

/* After a command: the next one's start, made while the caller goes on. */
static void plan_next(pathgate__exec_plan *p)
{
    if (!p->prep_home)
        return;
    pathgate__exec_prep *prep = calloc(1, sizeof *prep);
    if (!prep)
        return;
    pathgate__alloc_init(&prep->alloc, NULL);
    pathgate__exec_view_init(&prep->cmd, &prep->alloc);
    prep->serial = p->tpl->serial;
    prep->unpriv = p->tpl->unpriv;
    prep->keeper = p->spec.keeper;
    prep->keeper_pid = prep->keeper ? prep->keeper->pid : 0;
    prep->owner = getpid();
    prep->userns_fd = fcntl(p->tpl->userns_fd, F_DUPFD_CLOEXEC, 3);
    prep->mntns_fd = fcntl(p->tpl->mntns_fd, F_DUPFD_CLOEXEC, 3);
    /* the last command's network namespace (looked at by the preparer),
     * or a pooled one, or a new one */
    prep->netns_fd = p->next_netns;
    prep->check_net = p->next_netns >= 0;
    p->next_netns = -1;
    if (prep->netns_fd < 0)
        prep->netns_fd = pathgate__exec_template_netns_take(p->cache, p->tpl);
    if (prep->netns_fd < 0)
        prep->netns_fd = PATHGATE__NETNS_NEW;
    prep->has_filter = p->spec.filter != NULL;
    prep->filter_flags = p->spec.filter_flags;
    if (prep->has_filter && !pathgate__exec_seccomp_build(&prep->seccomp, prep->filter_flags))
        prep->has_filter = 0;
    if (prep->userns_fd < 0 || prep->mntns_fd < 0 || plan_private(p, &prep->cmd) != 0 ||
        pathgate__exec_prep_start(prep) != 0) {
        pathgate__exec_prep_release(prep, 0);
        return;
    }
    pathgate__exec_prep_release(__atomic_exchange_n(p->prep_home, prep, __ATOMIC_ACQ_REL), 0);
}

/* ------------------------------------------------------------ limits */

static void add_rlimit(pathgate__exec_spec *s, int resource, unsigned long long value)
{
    s->rlimits[s->nrlimits].resource = resource;
    s->rlimits[s->nrlimits].value = value;
    /* CPU: SIGXCPU at the limit (status 152, the limit named in the
     * result), SIGKILL one second later for a process that ignores it */
    s->rlimits[s->nrlimits++].grace = resource == RLIMIT_CPU ? 1 : 0;
}

static void oom_kill(void *ctx, pid_t init)
{
    pathgate__exec_cgroup_oom_kill(ctx, init);
}

/* A control group where one can be had; rlimits (and the seccomp
 * filter: no memfd, no System V IPC) close what it would have bounded
 * where none can. */
static void plan_limits(pathgate__exec_plan *p)
{
    pathgate__exec_spec *s = &p->spec;
    unsigned int what = 0;
    if (!(p->o.flags & PATHGATE_EXEC_TEST_NO_CGROUP))
        p->cg = pathgate__exec_cgroup_acquire(p->o.max_memory, p->o.max_processes, &what);
    pathgate__exec_cgroup_procs(p->cg, s->cgroup_procs);
    if ((s->keeper = pathgate__exec_cgroup_keeper(p->cg)) != NULL) {
        /* a keeper starts the command's first process; the group's OOM
         * events are then ours to act on */
        s->oom_fd = pathgate__exec_cgroup_oom_fd(p->cg);
        s->oom_kill = oom_kill;
        s->oom_ctx = p->cg;
    }
    if (what & PATHGATE__CGROUP_MEMORY)
        p->prot |= PATHGATE_EXEC_PROT_MEMORY_LIMIT;
    if (what & PATHGATE__CGROUP_PIDS)
        p->prot |= PATHGATE_EXEC_PROT_PID_LIMIT;
    /* RLIMIT_NPROC counts per user and user namespace (so across the
     * commands of one prepared view): only where no pids group counts
     * this command's. RLIMIT_AS does not count shared memory and breaks
     * programs that reserve address space: only without a memory group. */
    if (!(what & PATHGATE__CGROUP_PIDS))
        add_rlimit(s, RLIMIT_NPROC, p->o.max_processes);
    if (!(what & PATHGATE__CGROUP_MEMORY)) {
        add_rlimit(s, RLIMIT_AS, p->o.max_memory);
        add_rlimit(s, RLIMIT_MSGQUEUE, 819200); /* POSIX queues: the usual default */
    }
    add_rlimit(s, RLIMIT_CPU, p->o.max_cpu_seconds);
    add_rlimit(s, RLIMIT_FSIZE, p->o.max_file_size);
    /* no core file: none in the tree, no core_pattern helper started */
    add_rlimit(s, RLIMIT_CORE, 0);
    p->prot |= PATHGATE_EXEC_PROT_RLIMITS;
}

/* ------------------------------------------------------------- make */

int pathgate__exec_plan_make(pathgate__exec_plan *p, const pathgate_allocator *alloc,
                             const pathgate__exec_target *t, const char *command, size_t len,
                             const pathgate_exec_options *opts, pathgate_error *err)
{
    memset(p, 0, sizeof *p);
    pathgate__alloc_init(&p->alloc, alloc); /* NULL = libc */
    p->ruleset = -1;
    p->netns_fd = p->next_netns = -1;
    p->tmp.fd = -1;
    pathgate__exec_view_init(&p->cmd, &p->alloc);
    pathgate__exec_spec *s = &p->spec;
    s->cgroup_procs[0] = s->cgroup_procs[1] = -1;
    s->oom_fd = -1;
    s->ruleset_fd = -1;
    if ((!command && len) || (!t->grants && t->ngrants) || t->cwd_fd < 0)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    if (len && memchr(command, '\0', len))
        return pathgate__error_set(err, PATHGATE_ENUL, "command contains a NUL byte");
    if (len > PATHGATE_EXEC_COMMAND_MAX)
        return pathgate__error_set(err, PATHGATE_ETOOLONG, "command is too long");
    int rc = pathgate__exec_options_check(&p->o, opts, err);
    if (rc)
        return rc;
    const pathgate_exec_options *o = &p->o;
    if (o->allow_domains) {
        size_t nd = 0;
        while (o->allow_domains[nd])
            nd++;
        if ((rc = pathgate__netproxy_allow_compile(&p->allow, &p->alloc, o->allow_domains, nd,
                                                   err)) != 0)
            return rc;
    }

    /* What the kernel offers, and what may be refused. */
    int abi = (o->flags & PATHGATE_EXEC_TEST_NO_LANDLOCK) ? 0 : pathgate__landlock_abi();
    int cap = TEST_ABI_CAP_OF(o->flags);
    p->abi = cap >= 0 && abi > cap ? cap : abi;
    int want_view = !(o->flags & PATHGATE_EXEC_TEST_NO_NAMESPACES) && t->cwd_view &&
                    pathgate__exec_spawn_can_view();
    if (!p->abi && !o->allow_unconfined)
        return refuse(err, "Landlock is not available on this system");
    if (!want_view && !o->allow_unconfined)
        return refuse(err, "user namespaces are not available");
    if (!pathgate__exec_seccomp_build(&p->seccomp, 0) && !o->allow_unconfined)
        return refuse(err, "no seccomp filter for this architecture");

    if (want_view) {
        p->cache = t->cache;
        if (!p->cache) {
            if (pathgate__exec_cache_new(&p->cache, &p->alloc))
                return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
            p->own_cache = 1;
        }
        int no_userns = 0;
        rc = get_view(p, t, &no_userns, err);
        if (rc && no_userns) {
            if (!o->allow_unconfined)
                return refuse(err, "user namespaces are not available");
            want_view = 0; /* weaker: in the host's namespaces */
        } else if (rc) {
            return rc;
        }
    }
    if (o->allow_domains && !want_view)
        return pathgate__error_set(err, PATHGATE_EUNSUPPORTED,
                                   "allow_domains needs a network namespace of the command's "
                                   "own, which this system cannot give: refusing rather than "
                                   "running with the host's network");
    if (want_view) {
        if ((rc = prepare_view(p, t, err)) != 0)
            return rc;
        if (o->allow_domains && (rc = plan_net(p, t, err)) != 0)
            return rc;
    } else if (t->masks) {
        return pathgate__error_set(err, PATHGATE_EPOLICY,
                                   "the resolver's policy needs the command's own view (user "
                                   "namespaces), which is not available");
    } else {
        /* a private directory in the host's /tmp, granted by Landlock */
        if ((rc = pathgate__exec_tmp_make(&p->tmp, &p->alloc, err)) != 0)
            return rc;
        /* (no view: a toolchain is only where it is on the host) */
        const char *first = t->tools && t->tools->at_host_path ? t->tools->path : NULL;
        if ((rc = build_env(p, p->tmp.path, p->tmp.path, NULL, NULL, first)) != 0)
            return pathgate__error_set(err, rc, NULL);
        s->cwd_fd = t->cwd_fd;
    }
    plan_limits(p);
    /* Without a pids group RLIMIT_NPROC bounds the processes, without a
     * memory group RLIMIT_MSGQUEUE the POSIX queues, both per uid: a
     * command that could take other uids would escape them (each uid of
     * the range counts apart). Then no CAP_SETUID / CAP_SETGID. */
    unsigned int groups = PATHGATE_EXEC_PROT_PID_LIMIT | PATHGATE_EXEC_PROT_MEMORY_LIMIT;
    if (s->keep_caps && (p->prot & groups) != groups)
        s->keep_caps = PATHGATE__KEEP_CAPS_OWNER;

    /* seccomp: sockets where the network namespace (or the host's,
     * allowed) is the wall; process groups and sessions where the PID
     * namespace is; System V IPC in its own IPC namespace where a memory
     * group counts what it holds, and memfd_create only there. */
    unsigned int sflags = 0;
    if (o->allow_network || want_view)
        sflags |= PATHGATE__SECCOMP_NETWORK;
    if (want_view)
        sflags |= PATHGATE__SECCOMP_OWN_PIDNS;
    if (want_view && (p->prot & PATHGATE_EXEC_PROT_MEMORY_LIMIT))
        sflags |= PATHGATE__SECCOMP_OWN_IPC;
    if (!(p->prot & PATHGATE_EXEC_PROT_MEMORY_LIMIT))
        sflags |= PATHGATE__SECCOMP_NO_MEMFD;
    /* (a keeper holds all of it but setns for the commands it starts:
     * the shell adds setns alone) */
    if (s->keeper && sflags == s->keeper->seccomp_flags)
        sflags = PATHGATE__SECCOMP_ONLY_SETNS;
    s->filter = pathgate__exec_seccomp_build(&p->seccomp, sflags);
    s->filter_flags = sflags;
    if (want_view && !s->keep_caps && s->filter)
        s->ids_filter = pathgate__exec_seccomp_ids(&p->seccomp_ids, p->tpl->id.uid, p->tpl->id.gid);
    if (s->filter)
        p->prot |= PATHGATE_EXEC_PROT_SECCOMP;

    /* Landlock: TCP is handled only where the command shares the host's
     * network and it was not allowed (without a view). */
    if (p->abi) {
        int deny_tcp = !o->allow_network && !want_view;
        const pathgate__exec_grant *sys = p->tpl ? p->tpl->rules : NULL;
        size_t nsys = p->tpl ? p->tpl->nrules : 0;
        if ((rc = pathgate__exec_sandbox_build(&p->ruleset, p->abi, deny_tcp, t->grants, t->ngrants,
                                               sys, nsys, err)) != 0)
            return rc;
        if (!want_view && (rc = pathgate__landlock_allow(p->ruleset, p->abi, p->tmp.fd,
                                                         PATHGATE__LL_READ | PATHGATE__LL_EXEC |
                                                             PATHGATE__LL_WRITE)) != 0)
            return pathgate__error_set(err, PATHGATE_EIO, "cannot add a Landlock rule: %s",
                                       strerrordesc_np(-rc));
        p->prot |= PATHGATE_EXEC_PROT_LANDLOCK;
        if (p->abi >= 3)
            p->prot |= PATHGATE_EXEC_PROT_LANDLOCK_TRUNCATE;
        if (p->abi >= 6)
            p->prot |= PATHGATE_EXEC_PROT_LANDLOCK_SCOPE;
    }

    if (!(p->command = pathgate__strndup(&p->alloc, command ? command : "", len)))
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    p->argv[0] = (char *)SHELL_PATH;
    p->argv[1] = (char *)"-c";
    p->argv[2] = p->command;
    p->argv[3] = NULL;
    s->argv = p->argv;
    s->envp = p->envp;
    s->ruleset_fd = p->ruleset;
    s->timeout_ms = o->timeout_ms;
    s->output_cap = o->output_cap;
    s->alloc = &p->alloc;
    if (want_view)
        plan_start(p);
    return PATHGATE_OK;
}

/* -------------------------------------------------------------- run */

int pathgate__exec_plan_run(pathgate_exec_result *out, pathgate__exec_plan *p, pathgate_error *err)
{
    pathgate__exec_spawned left;
    *out = (pathgate_exec_result)PATHGATE_EXEC_RESULT_INIT;
    int rc = pathgate__exec_spawn(out, &left, &p->spec, err);
    /* the command and its bridge have ended: the proxy stops now, so that
     * its last decision is reported before the command's end */
    pathgate__netproxy_stop(p->proxy);
    p->proxy = NULL;
    if (p->prep) {
        /* the prepared network namespace goes back (unused when its init
         * was gone: the command then made its own, left) */
        pathgate__exec_prep *prep = p->prep;
        int *fd = prep->made_netns >= 0 ? (int *)&prep->made_netns : &prep->netns_fd;
        if (prep->used) {
            /* to the next one's preparer, which looks whether it is clean */
            p->next_netns = *fd;
        } else {
            pathgate__exec_template_netns_give(p->cache, p->tpl, *fd, 1);
            pathgate__exec_template_netns_give(p->cache, p->tpl, left.netns_fd,
                                               !rc && left.net_clean);
        }
        *fd = -1;
        pathgate__exec_prep_release(prep, 0);
        p->prep = p->spec.prep = NULL;
    } else if (p->tpl) {
        /* the network namespace goes back for later commands when nothing
         * is left in it */
        int fd = p->netns_fd >= 0 ? p->netns_fd : left.netns_fd;
        if (fd >= 0 && p->netns_fd >= 0 && left.netns_fd >= 0)
            close(left.netns_fd);
        pathgate__exec_template_netns_give(p->cache, p->tpl, fd, !rc && left.net_clean);
        p->netns_fd = -1;
    } else if (left.netns_fd >= 0) {
        close(left.netns_fd);
    }
    if (p->tpl)
        plan_next(p);
    if (!rc) {
        out->landlock_abi = p->abi;
        out->protections = p->prot;
    }
    return rc;
}

void pathgate__exec_plan_dispose(pathgate__exec_plan *p)
{
    const pathgate_allocator *a = &p->alloc;
    net_dispose(p);
    if (p->netns_fd >= 0)
        close(p->netns_fd);
    if (p->next_netns >= 0)
        close(p->next_netns);
    pathgate__exec_prep_release(p->prep, 0);
    if (p->ruleset >= 0)
        close(p->ruleset);
    pathgate__exec_cgroup_release(p->cg);
    if (p->tpl)
        pathgate__exec_template_put(p->cache, p->tpl);
    if (p->own_cache)
        pathgate__exec_cache_free(p->cache);
    pathgate__exec_view_dispose(&p->cmd);
    pathgate__exec_tmp_remove(&p->tmp, a);
    for (size_t i = 0; i < sizeof p->env_owned / sizeof p->env_owned[0]; i++)
        pathgate__free(a, p->env_owned[i]);
    pathgate__free(a, p->envp);
    pathgate__free(a, p->command);
    memset(p, 0, sizeof *p);
    p->ruleset = p->netns_fd = p->next_netns = -1;
}
