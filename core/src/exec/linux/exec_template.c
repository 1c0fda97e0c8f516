/* exec_template.c - the prepared view: its plan, its builder (a
 * short-lived child), the cache of a resolver (exec_template.h). */
#define _GNU_SOURCE
#include "exec_template.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_idmap.h"
#include "exec_landlock.h"
#include "exec_raw.h"
#include "exec_clone.h"
#include "exec_view.h"
#include "resolver_internal.h"

struct pathgate__exec_cache {
    pathgate__resolver_extra extra; /* first: the resolver frees it by this */
    pathgate_allocator alloc;
    pthread_mutex_t mu;
    pathgate__exec_template *list;
    struct pathgate__exec_prep *prep;            /* without a keeper: the next command's start */
    pathgate__exec_prep_release_fn prep_release; /* atomic: how to release it */
};

/* Prepared views' serial numbers (never reused). */
static unsigned long long serials;

/* System directories shown read-only (a symlink, as on merged-/usr
 * systems, is recreated as the same symlink). */
static const char *const system_dirs[] = {"/usr",   "/bin",   "/sbin",  "/lib",
                                          "/lib32", "/lib64", "/libx32"};
/* Device nodes shown (read-write, noexec). */
static const char *const dev_nodes[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                        "/dev/urandom"};
static const unsigned int dev_classes[] = {
    PATHGATE__LL_READ | PATHGATE__LL_WRITE | PATHGATE__LL_DEV,
    PATHGATE__LL_READ | PATHGATE__LL_DEV,
    PATHGATE__LL_READ | PATHGATE__LL_WRITE | PATHGATE__LL_DEV,
    PATHGATE__LL_READ | PATHGATE__LL_DEV,
    PATHGATE__LL_READ | PATHGATE__LL_DEV,
};

/* ------------------------------------------------------------ the plan */

/* Largest /proc file copied (cpuinfo of a large machine: ~1.5 KiB a CPU). */
#define PROC_FILE_MAX (1024 * 1024)

static int add_bases(pathgate__exec_view *v, const pathgate__exec_template_spec *s)
{
    int rc = PATHGATE_OK;
    for (size_t i = 0; !rc && i < s->ngrants; i++)
        if (s->grants[i].view)
            rc = pathgate__exec_view_add_base(v, s->grants[i].fd, s->grants[i].view,
                                              !(s->grants[i].classes & PATHGATE__LL_WRITE));
    /* A read-only base inside a writable one is mounted read-only again
     * over the writable one's mount, where it lies now. */
    for (size_t i = 0; !rc && i < s->ngrants; i++) {
        const pathgate__exec_grant *in = &s->grants[i];
        if ((in->classes & PATHGATE__LL_WRITE) || !in->view)
            continue;
        for (size_t j = 0; !rc && j < s->ngrants; j++) {
            const pathgate__exec_grant *out = &s->grants[j];
            if ((out->classes & PATHGATE__LL_WRITE) && out->view)
                rc = pathgate__exec_view_add_nested(v, in->fd, out->fd, out->view);
        }
    }
    return rc;
}

/* The host's system information (no path in it), copied for the
 * view's /proc: what `free`, `uptime` and Node's os.cpus() read. */
static int add_proc_files(pathgate__exec_view *v)
{
    static const char *const names[] = PATHGATE__VIEW_PROC_FILES;
    int rc = pathgate__exec_view_add_dir(v, "/var/lib");
    if (!rc)
        rc = pathgate__exec_view_add_dir(v, "/var/lib/pathgate");
    if (!rc)
        rc = pathgate__exec_view_add_dir(v, PATHGATE__VIEW_PROC);
    char *buf = rc ? NULL : pathgate__malloc(v->alloc, PROC_FILE_MAX);
    if (!rc && !buf)
        rc = PATHGATE_ENOMEM;
    for (size_t i = 0; !rc && i < sizeof names / sizeof names[0]; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%s", names[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        size_t got = 0;
        ssize_t n;
        while (got < PROC_FILE_MAX && (n = read(fd, buf + got, PROC_FILE_MAX - got)) > 0)
            got += (size_t)n;
        close(fd);
        snprintf(path, sizeof path, PATHGATE__VIEW_PROC "/%s", names[i]);
        rc = pathgate__exec_view_add_data(v, path, buf, got);
    }
    pathgate__free(v->alloc, buf);
    return rc;
}

static int plan(pathgate__exec_view *v, const pathgate__exec_template_spec *s,
                const pathgate__exec_identity *id, int private_home)
{
    int rc = PATHGATE_OK;
    for (size_t i = 0; !rc && i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        rc = pathgate__exec_view_add_host(v, system_dirs[i], 0);
    if (!rc)
        rc = pathgate__exec_etc_add(v, id);
    if (!rc)
        rc = pathgate__exec_view_add_dir(v, "/dev");
    for (size_t i = 0; !rc && i < sizeof dev_nodes / sizeof dev_nodes[0]; i++)
        rc = pathgate__exec_view_add_host(v, dev_nodes[i], 1);
    static const char *const dev_links[][2] = {{"/dev/fd", "/proc/self/fd"},
                                               {"/dev/stdin", "/proc/self/fd/0"},
                                               {"/dev/stdout", "/proc/self/fd/1"},
                                               {"/dev/stderr", "/proc/self/fd/2"}};
    for (size_t i = 0; !rc && i < 4; i++)
        rc = pathgate__exec_view_add_link(v, dev_links[i][0], dev_links[i][1]);
    /* mount points of each command's private parts */
    static const char *const dirs[] = {"/dev/shm", "/dev/pts", "/tmp", "/home", "/var", "/proc"};
    for (size_t i = 0; !rc && i < sizeof dirs / sizeof dirs[0]; i++)
        rc = pathgate__exec_view_add_dir(v, dirs[i]);
    if (!rc) /* the terminals' multiplexer of the command's own devpts */
        rc = pathgate__exec_view_add_link(v, "/dev/ptmx", "pts/ptmx");
    if (!rc)
        rc = pathgate__exec_view_add_link(v, "/var/tmp", "../tmp");
    if (!rc)
        rc = add_proc_files(v);
    if (!rc && private_home)
        rc = pathgate__exec_view_add_dir(v, id->home);
    /* A proc of the builder's own (otherwise empty) PID namespace: a
     * command may mount its own proc only where one is visible already.
     * Each command's covers it. */
    if (!rc)
        rc = pathgate__exec_view_add_proc(v, "/proc");
    if (!rc)
        rc = add_bases(v, s);
    /* the toolchains of the host, read-only (exec_tool.h) */
    for (size_t i = 0; !rc && s->tools && i < s->tools->n; i++)
        rc = pathgate__exec_view_add_toolchain(v, s->tools->t[i].fd, s->tools->t[i].dst);
    if (!rc)
        rc = pathgate__exec_etc_add_gitconfig(v);
    return rc;
}

/* ------------------------------------------------------------ builder */

#define BUILDER_KEEP 64

typedef struct builder {
    const pathgate__exec_view *view;
    int unpriv;
    int subids; /* maps written by the parent through the helpers */
    int map_r, map_w, ready_r, ready_w, release_r, release_w;
    /* the descriptors it keeps (its pipes' ends, the view's mounts),
     * ascending; every other one of its copy of the table is closed */
    int keep[BUILDER_KEEP];
    size_t nkeep;
    char uid_map[32], gid_map[32];
    volatile long error;
    const char *volatile step;
} builder;

PG_NOSAN static long write_file(const char *path, const char *text)
{
    long fd = pg_raw(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return fd;
    long rc = pg_raw(SYS_write, fd, text, pg_raw_strlen(text));
    pg_raw(SYS_close, fd);
    return rc < 0 ? rc : 0;
}

PG_NOSAN __attribute__((noreturn)) static void builder_fail(builder *b, const char *step, long rc)
{
    b->error = rc < 0 ? -rc : EIO;
    b->step = step;
    pg_raw(SYS_exit_group, 127);
    __builtin_unreachable();
}

/* In new user, mount and PID namespaces (pid 1 of the latter), sharing
 * the host's memory: raw system calls only. */
PG_NOSAN static int builder_main(void *p)
{
    builder *b = p;
    long rc;
    char c;
    /* Its descriptor table is a copy of the host's, taken while other
     * threads may have their own children's pipes open: only its own
     * descriptors stay (two builders holding each other's pipes would
     * never see EOF). */
    unsigned int next = 0;
    for (size_t i = 0; i < b->nkeep; i++) {
        unsigned int fd = (unsigned int)b->keep[i];
        if (fd > next)
            pg_raw(__NR_close_range, next, fd - 1, 0);
        next = fd + 1;
    }
    pg_raw(__NR_close_range, next, ~0u, 0);
    if (b->unpriv) {
        /* The parent has written the maps (0 = the host's 65534);
         * become them. A uid change clears the dumpable flag of the
         * memory, which is the host process's: it is put back. */
        rc = pg_raw(SYS_read, b->map_r, &c, 1);
        if (rc != 1)
            builder_fail(b, "uid map", rc < 0 ? rc : -EPERM);
        long dumpable = pg_raw(SYS_prctl, PR_GET_DUMPABLE, 0, 0, 0, 0);
        if ((rc = pg_raw(SYS_setresgid, 0, 0, 0)) < 0)
            builder_fail(b, "gid map", rc);
        if ((rc = pg_raw(SYS_setgroups, 0, NULL)) < 0)
            builder_fail(b, "setgroups", rc);
        if ((rc = pg_raw(SYS_setresuid, 0, 0, 0)) < 0)
            builder_fail(b, "uid map", rc);
        if (dumpable == 0 || dumpable == 1)
            pg_raw(SYS_prctl, PR_SET_DUMPABLE, dumpable, 0, 0, 0);
    } else if (b->subids) {
        /* The parent has had the helpers write the maps: inside 0 is
         * already our uid and gid. Supplementary groups are kept, as
         * without them. */
        rc = pg_raw(SYS_read, b->map_r, &c, 1);
        if (rc != 1)
            builder_fail(b, "subordinate ids", rc < 0 ? rc : -EPERM);
    } else {
        /* our own uid and gid only (nothing else may be mapped) */
        if ((rc = write_file("/proc/self/setgroups", "deny")) < 0 && rc != -ENOENT)
            builder_fail(b, "setgroups", rc);
        if ((rc = write_file("/proc/self/uid_map", b->uid_map)) < 0)
            builder_fail(b, "uid map", rc);
        if ((rc = write_file("/proc/self/gid_map", b->gid_map)) < 0)
            builder_fail(b, "gid map", rc);
    }
    const char *step = "";
    if ((rc = pathgate__exec_view_build(b->view, &step)) < 0)
        builder_fail(b, step, rc);
    pg_raw(SYS_write, b->ready_w, "1", 1);
    pg_raw(SYS_read, b->release_r, &c, 1); /* until the parent holds the namespaces */
    pg_raw(SYS_exit_group, 0);
    __builtin_unreachable();
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* errno values of clone(CLONE_NEWUSER|...) and of the first steps in one
 * that mean "no usable user namespaces here". */
static int userns_unavailable(int e)
{
    return e == EPERM || e == EACCES || e == ENOSPC || e == EUSERS || e == EINVAL || e == ENOSYS;
}

#define BUILDER_STACK (64 * 1024)

static int open_in(pid_t pid, const char *what, int flags)
{
    char path[256];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
    return open(path, flags | O_CLOEXEC);
}

/* Runs the builder of v; on success fills t's namespaces and view rules. */
static int run_builder(pathgate__exec_template *t, const pathgate__exec_view *v, int *no_userns,
                       int *moved, int *no_subids, pathgate_error *err)
{
    builder b;
    memset(&b, 0, sizeof b);
    b.view = v;
    b.unpriv = v->unpriv;
    b.subids = t->subids;
    int fds[6] = {-1, -1, -1, -1, -1, -1};
    int rc = PATHGATE_OK;
    void *stack = MAP_FAILED;
    pid_t pid = -1;
    if (pipe2(fds, O_CLOEXEC) < 0 || pipe2(fds + 2, O_CLOEXEC) < 0 ||
        pipe2(fds + 4, O_CLOEXEC) < 0 ||
        (stack = mmap(NULL, BUILDER_STACK, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0)) == MAP_FAILED) {
        rc = pathgate__error_set(err, PATHGATE_EIO, "cannot prepare the view: %s",
                                 strerrordesc_np(errno));
        goto done;
    }
    b.map_r = fds[0];
    b.map_w = fds[1];
    b.ready_r = fds[2];
    b.ready_w = fds[3];
    b.release_r = fds[4];
    b.release_w = fds[5];
    /* what it keeps: its pipes' ends and the view's detached mounts */
    int keep[BUILDER_KEEP];
    size_t nkeep = 0;
    keep[nkeep++] = b.map_r;
    keep[nkeep++] = b.ready_w;
    keep[nkeep++] = b.release_r;
    for (size_t i = 0; i < v->nops; i++) {
        if (v->ops[i].fd < 0)
            continue;
        if (nkeep == BUILDER_KEEP) {
            rc = pathgate__error_set(err, PATHGATE_EUNSUPPORTED, "too many bases to mount");
            goto done;
        }
        keep[nkeep++] = v->ops[i].fd;
    }
    for (size_t i = 1; i < nkeep; i++) /* ascending */
        for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
            int x = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = x;
        }
    memcpy(b.keep, keep, sizeof keep);
    b.nkeep = nkeep;
    snprintf(b.uid_map, sizeof b.uid_map, "%u %u 1\n", (unsigned)t->euid, (unsigned)t->euid);
    snprintf(b.gid_map, sizeof b.gid_map, "%u %u 1\n", (unsigned)t->egid, (unsigned)t->egid);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* No exit signal: only a __WALL wait sees it. */
    int pidfd = -1;
    pid = pathgate__exec_libc_clone()(
        builder_main, (char *)stack + BUILDER_STACK,
        CLONE_VM | CLONE_PIDFD | CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID, &b, &pidfd);
    int e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close_fd(&fds[0]);
    close_fd(&fds[3]);
    close_fd(&fds[4]);
    if (pid < 0) {
        if (userns_unavailable(e))
            *no_userns = 1;
        rc = pathgate__error_set(err, userns_unavailable(e) ? PATHGATE_EUNSUPPORTED : PATHGATE_EIO,
                                 "cannot start the view's builder: %s", strerrordesc_np(e));
        goto done;
    }
    if (b.unpriv) {
        /* 0 is the host's 65534; 1..n the range (exec_idmap.h) */
        char umap[64], gmap[64];
        snprintf(umap, sizeof umap, "0 %u 1\n", v->run_uid);
        snprintf(gmap, sizeof gmap, "0 %u 1\n", v->run_gid);
        pathgate__exec_idmap_range_line(umap, sizeof umap, t->ids.uid_first, t->ids.n);
        pathgate__exec_idmap_range_line(gmap, sizeof gmap, t->ids.gid_first, t->ids.n);
        if (pathgate__exec_idmap_write(pid, umap, gmap) == 0)
            while (write(fds[1], "1", 1) < 0 && errno == EINTR) {
            }
    }
    if (b.subids) {
        /* inside 0 is the caller, 1..n its subordinate ids (exec_idmap.h) */
        if (pathgate__exec_idmap_helpers(pid, (unsigned)t->euid, (unsigned)t->egid, &t->ids) == 0)
            while (write(fds[1], "1", 1) < 0 && errno == EINTR) {
            }
        else
            *no_subids = 1;
    }
    close_fd(&fds[1]); /* EOF for it when the maps could not be written */
    char c = 0;
    ssize_t n = -1;
    /* its 'built' byte, or its end */
    struct pollfd pw[2] = {{fds[2], POLLIN, 0}, {pidfd, POLLIN, 0}};
    while (poll(pw, 2, -1) < 0 && errno == EINTR) {
    }
    if (pw[0].revents & POLLIN)
        n = read(fds[2], &c, 1);
    if (n == 1) {
        t->userns_fd = open_in(pid, "ns/user", O_RDONLY);
        t->mntns_fd = open_in(pid, "ns/mnt", O_RDONLY);
        /* the view's own directories that may be read, and its root,
         * whose directories (not files: /proc's mountinfo names host
         * paths) may be listed, /proc's included: `ls /` works */
        static const char *const listed[] = {"root/etc", ("root" PATHGATE__VIEW_BASES), "root/home",
                                             "root/dev", "root"};
        int etc = -1;
        for (size_t i = 0; i < sizeof listed / sizeof listed[0]; i++) {
            int fd = open_in(pid, listed[i], O_PATH | O_DIRECTORY);
            if (i == 0)
                etc = fd;
            if (fd >= 0) {
                t->rules[t->nrules].fd = fd;
                t->rules[t->nrules++].classes =
                    strcmp(listed[i], "root") ? PATHGATE__LL_READ : PATHGATE__LL_LIST;
            }
        }
        static const char *const proc_files[] = PATHGATE__VIEW_PROC_FILES;
        for (size_t i = 0; i < PATHGATE__VIEW_PROC_NFILES; i++) {
            char what[64];
            snprintf(what, sizeof what, "root" PATHGATE__VIEW_PROC "/%s", proc_files[i]);
            int fd = open_in(pid, what, O_PATH);
            if (fd >= 0) {
                t->rules[t->nrules].fd = fd;
                t->rules[t->nrules++].classes = PATHGATE__LL_READ;
            }
        }
        if (t->userns_fd < 0 || t->mntns_fd < 0 || etc < 0)
            rc = pathgate__error_set(err, PATHGATE_EIO, "cannot hold the view: %s",
                                     strerrordesc_np(errno));
    } else {
        const char *step = b.step ? b.step : "";
        int why = (int)b.error;
        /* a nested base moved between the plan and its placement */
        *moved = why == EXDEV && !strcmp(step, "nested read-only base");
        if ((why == EPERM || why == EACCES) &&
            (!strcmp(step, "setgroups") || !strcmp(step, "uid map") || !strcmp(step, "gid map") ||
             !strcmp(step, "mount propagation")))
            *no_userns = 1;
        if (*no_subids)
            rc = pathgate__error_set(err, PATHGATE_EINVAL,
                                     "id_range: newuidmap or newgidmap refused the caller's "
                                     "subordinate ids");
        else
            rc = pathgate__error_set(err, *no_userns ? PATHGATE_EUNSUPPORTED : PATHGATE_EIO,
                                     "cannot confine the command (namespace view: %s): %s", step,
                                     strerrordesc_np(why ? why : EIO));
    }
    close_fd(&fds[5]); /* EOF: the builder exits */
    while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR) {
    }
    close_fd(&pidfd);
done:
    for (int i = 0; i < 6; i++)
        close_fd(&fds[i]);
    if (stack != MAP_FAILED)
        munmap(stack, BUILDER_STACK);
    return rc;
}

/* ------------------------------------------------------------- template */

static void template_free(const pathgate_allocator *a, pathgate__exec_template *t)
{
    if (!t)
        return;
    close_fd(&t->userns_fd);
    close_fd(&t->mntns_fd);
    for (size_t i = 0; i < t->nrules; i++)
        close(t->rules[i].fd);
    for (size_t i = 0; i < t->nnetns; i++)
        close(t->netns[i]);
    pathgate__free(a, t->home_key);
    pathgate__free(a, t->tools_key);
    pathgate__free(a, t);
}

static void add_system_rules(pathgate__exec_template *t)
{
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++) {
        int fd = open(system_dirs[i], O_PATH | O_CLOEXEC);
        if (fd >= 0) {
            t->rules[t->nrules].fd = fd;
            t->rules[t->nrules++].classes = PATHGATE__LL_READ | PATHGATE__LL_EXEC;
        }
    }
    for (size_t i = 0; i < sizeof dev_nodes / sizeof dev_nodes[0]; i++) {
        int fd = open(dev_nodes[i], O_PATH | O_CLOEXEC);
        if (fd >= 0) {
            t->rules[t->nrules].fd = fd;
            t->rules[t->nrules++].classes = dev_classes[i];
        }
    }
}

static int etc_mtime(struct timespec *ts)
{
    struct stat st;
    if (stat("/etc", &st) < 0)
        return -1;
    *ts = st.st_mtim;
    return 0;
}

static int build(pathgate__exec_template **out, const pathgate_allocator *a,
                 const pathgate__exec_template_spec *s, int *no_userns, pathgate_error *err)
{
    pathgate__exec_template *t = pathgate__calloc(a, 1, sizeof *t);
    if (!t)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    t->userns_fd = t->mntns_fd = -1;
    t->unpriv = s->unpriv;
    t->id_first = s->id_first;
    t->id_count = s->id_count;
    if (s->unpriv && pathgate__exec_idmap_range(&t->ids, "/etc", s->id_first, s->id_count) < 0) {
        template_free(a, t);
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "id_range: the range holds an id below 65536, a user's or "
                                   "group's id or another range, or ends past 4294967294");
    }
    t->euid = geteuid();
    t->egid = getegid();
    /* A caller other than root: its own subordinate ids where it has
     * them (an explicit range was checked by the options already; here
     * again, /etc may have changed since). */
    if (!s->unpriv && t->euid != 0 &&
        pathgate__exec_idmap_caller_subids(&t->ids, s->id_first, s->id_count) < 0) {
        template_free(a, t);
        return pathgate__error_set(err, PATHGATE_EINVAL, PATHGATE__EXEC_SUBIDS_REFUSED);
    }
    t->subids = !s->unpriv && t->ids.n > 0;
    t->built = time(NULL);
    t->serial = __atomic_add_fetch(&serials, 1, __ATOMIC_RELAXED);
    etc_mtime(&t->etc_mtime);
    const char *tkey = s->tools && s->tools->n ? s->tools->key : NULL;
    if ((s->home && !(t->home_key = pathgate__strndup(a, s->home, strlen(s->home)))) ||
        (tkey && !(t->tools_key = pathgate__strndup(a, tkey, strlen(tkey))))) {
        template_free(a, t);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    t->private_home = s->home == NULL;
    /* A root caller's command is uid 0 inside, and so is one of a caller
     * with subordinate ids (as in a rootless container); otherwise the
     * caller's ids. */
    int zero = s->unpriv || t->subids;
    pathgate__exec_identity_make(&t->id, zero ? 0 : (unsigned)t->euid, zero ? 0 : (unsigned)t->egid,
                                 s->home);
    add_system_rules(t);
    int rc = PATHGATE_OK, moved = 1, no_subids = 0;
    /* A base moved by a running command between the plan (which reads
     * where each base is now) and its placement: planned again. */
    for (int attempt = 0; moved && attempt < 4; attempt++) {
        moved = 0;
        pathgate__exec_view v;
        pathgate__exec_view_init(&v, a);
        if (s->unpriv)
            pathgate__exec_view_unprivileged(&v, PATHGATE__EXEC_RUN_AS_UID,
                                             PATHGATE__EXEC_RUN_AS_GID);
        rc = plan(&v, s, &t->id, t->private_home);
        if (rc)
            rc = pathgate__error_set(err, rc,
                                     rc == PATHGATE_ENOMEM         ? NULL
                                     : rc == PATHGATE_EUNSUPPORTED ? "the bases cannot be idmapped"
                                                                   : "cannot plan the view");
        else
            rc = run_builder(t, &v, no_userns, &moved, &no_subids, err);
        pathgate__exec_view_dispose(&v);
        if (rc && no_subids && t->subids && s->id_count == 0) {
            /* The helpers refused the caller's own ids, not asked for
             * explicitly: its own uid only, as without them. */
            t->subids = 0;
            t->ids.n = 0;
            pathgate__exec_identity_make(&t->id, (unsigned)t->euid, (unsigned)t->egid, s->home);
            pathgate__error_clear(err);
            no_subids = 0;
            moved = 1;
        }
    }
    if (rc) {
        template_free(a, t);
        return rc;
    }
    *out = t;
    return PATHGATE_OK;
}

/* --------------------------------------------------------------- cache */

static void cache_free_extra(pathgate__resolver_extra *x)
{
    pathgate__exec_cache_free((pathgate__exec_cache *)x);
}

pathgate__exec_cache *pathgate__exec_cache_of(pathgate__resolver_extra *x)
{
    return (pathgate__exec_cache *)x;
}

pathgate__resolver_extra *pathgate__exec_cache_extra(pathgate__exec_cache *c)
{
    return &c->extra;
}

int pathgate__exec_cache_new(pathgate__exec_cache **out, const pathgate_allocator *alloc)
{
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    pathgate__exec_cache *c = pathgate__calloc(&a, 1, sizeof *c);
    if (!c)
        return PATHGATE_ENOMEM;
    c->extra.free = cache_free_extra;
    c->alloc = a;
    pthread_mutex_init(&c->mu, NULL);
    *out = c;
    return PATHGATE_OK;
}

void pathgate__exec_cache_free(pathgate__exec_cache *c)
{
    if (!c)
        return;
    pathgate_allocator a = c->alloc;
    pathgate__exec_prep_release_fn release = __atomic_load_n(&c->prep_release, __ATOMIC_ACQUIRE);
    if (c->prep && release)
        release(c->prep, 0);
    while (c->list) {
        pathgate__exec_template *t = c->list;
        c->list = t->next;
        template_free(&a, t);
    }
    pthread_mutex_destroy(&c->mu);
    pathgate__free(&a, c);
}

static int same_key(const pathgate__exec_template *t, const pathgate__exec_template_spec *s)
{
    if (t->unpriv != s->unpriv || t->id_first != s->id_first || t->id_count != s->id_count ||
        t->euid != geteuid() || t->egid != getegid())
        return 0;
    const char *tkey = s->tools && s->tools->n ? s->tools->key : NULL;
    if ((!t->tools_key || !tkey) ? (t->tools_key || tkey) : strcmp(t->tools_key, tkey) != 0)
        return 0;
    if (!t->home_key || !s->home)
        return !t->home_key && !s->home;
    return strcmp(t->home_key, s->home) == 0;
}

static int fresh(const pathgate__exec_template *t)
{
    struct timespec ts;
    time_t now = time(NULL);
    if (now < t->built || now - t->built > PATHGATE__TEMPLATE_MAX_AGE_S)
        return 0;
    return etc_mtime(&ts) == 0 && ts.tv_sec == t->etc_mtime.tv_sec &&
           ts.tv_nsec == t->etc_mtime.tv_nsec;
}

/* Drops stale, unused templates. Under the lock. */
static void sweep(pathgate__exec_cache *c)
{
    for (pathgate__exec_template **p = &c->list; *p;) {
        pathgate__exec_template *t = *p;
        if (t->stale && t->refs == 0) {
            *p = t->next;
            template_free(&c->alloc, t);
        } else {
            p = &t->next;
        }
    }
}

int pathgate__exec_template_get(pathgate__exec_template **out, int *no_userns,
                                pathgate__exec_cache *c, const pathgate__exec_template_spec *spec,
                                pathgate_error *err)
{
    *no_userns = 0;
    pthread_mutex_lock(&c->mu);
    pathgate__exec_template *t = NULL;
    for (pathgate__exec_template *it = c->list; it && !t; it = it->next) {
        if (it->stale || !same_key(it, spec))
            continue;
        if (fresh(it))
            t = it;
        else
            it->stale = 1;
    }
    int rc = PATHGATE_OK;
    if (!t && (rc = build(&t, &c->alloc, spec, no_userns, err)) == 0) {
        t->next = c->list;
        c->list = t;
    }
    if (!rc)
        t->refs++;
    sweep(c);
    pthread_mutex_unlock(&c->mu);
    *out = rc ? NULL : t;
    return rc;
}

void pathgate__exec_template_put(pathgate__exec_cache *c, pathgate__exec_template *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&c->mu);
    t->refs--;
    sweep(c);
    pthread_mutex_unlock(&c->mu);
}

int pathgate__exec_template_netns_take(pathgate__exec_cache *c, pathgate__exec_template *t)
{
    int fd = -1;
    pthread_mutex_lock(&c->mu);
    if (t->nnetns)
        fd = t->netns[--t->nnetns];
    pthread_mutex_unlock(&c->mu);
    return fd;
}

void pathgate__exec_template_netns_give(pathgate__exec_cache *c, pathgate__exec_template *t, int fd,
                                        int clean)
{
    if (fd < 0)
        return;
    pthread_mutex_lock(&c->mu);
    if (clean && !t->stale && t->nnetns < PATHGATE__TEMPLATE_NETNS_MAX) {
        t->netns[t->nnetns++] = fd;
        fd = -1;
    }
    pthread_mutex_unlock(&c->mu);
    if (fd >= 0)
        close(fd); /* its teardown is the kernel's, later */
}

struct pathgate__exec_prep **pathgate__exec_cache_prep(pathgate__exec_cache *c,
                                                       pathgate__exec_prep_release_fn release)
{
    __atomic_store_n(&c->prep_release, release, __ATOMIC_RELEASE);
    return &c->prep;
}
