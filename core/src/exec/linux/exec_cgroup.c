/* exec_cgroup.c - a control group per command, from a process-wide pool
 * (exec_cgroup.h). */
#define _GNU_SOURCE
#include "exec_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_spawn.h"

#define MAX_SLOTS 64
/* pathgate's own processes a group holds besides the command's: the
 * keeper, the init, one more while a joiner or an earlier init ends */
#define HELPERS 3
#define PREFIX "pathgate-"

enum { MODE_NONE, MODE_V1, MODE_V2 };

struct pathgate__exec_cgroup {
    int used;
    char *dir[2]; /* v1: memory, pids (either may be NULL); v2: [0] */
    int procs[2];
    unsigned long long memory;
    unsigned int pids;
    int has_keeper;
    pathgate__exec_keeper keeper;
    pathgate__exec_prep *prep; /* the next command's start, made by the keeper */
    int oom_efd, oom_ctl;      /* v1 with a keeper: the OOM notification (eventfd) */
};

static struct {
    pthread_mutex_t mu;
    int looked;
    pid_t owner;
    int mode;
    unsigned int what;
    char *base[2]; /* where groups are made (as dir[]) */
    pathgate__exec_cgroup *slots[MAX_SLOTS];
    int nslots;
    unsigned int seq;
} pool = {PTHREAD_MUTEX_INITIALIZER, 0, 0, MODE_NONE, 0, {NULL, NULL}, {NULL}, 0, 0};

/* ------------------------------------------------------------ lookup */

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (lb == 1 && b[0] == '/')
        lb = 0;
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb);
        s[la + lb] = '\0';
    }
    return s;
}

static int has_token(const char *list, const char *tok)
{
    size_t n = strlen(tok);
    for (const char *p = list; p && *p;) {
        const char *e = p + strcspn(p, ", \n");
        if ((size_t)(e - p) == n && strncmp(p, tok, n) == 0)
            return 1;
        p = *e ? e + 1 : e;
    }
    return 0;
}

/* Mount points of the v1 hierarchies of memory and pids and of cgroup2
 * (mounted at their hierarchy's root, names without escapes). */
static void find_mounts(char *mem, char *pids, char *v2, size_t cap)
{
    mem[0] = pids[0] = v2[0] = '\0';
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char root[1024], point[1024], type[64], super[1024];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", root, point) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", type, super) != 2 || strcmp(root, "/") != 0 ||
            strchr(point, '\\') || strlen(point) >= cap)
            continue;
        if (!strcmp(type, "cgroup2") && !v2[0])
            strcpy(v2, point);
        else if (!strcmp(type, "cgroup") && has_token(super, "memory") && !mem[0])
            strcpy(mem, point);
        else if (!strcmp(type, "cgroup") && has_token(super, "pids") && !pids[0])
            strcpy(pids, point);
    }
    fclose(f);
}

/* This process's group in the hierarchy of `controller` ("" = v2). */
static int own_group(const char *controller, char *out, size_t cap)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[4096];
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        char *path = c2 + 1;
        path[strcspn(path, "\n")] = '\0';
        int match = *controller ? has_token(c1 + 1, controller) : (c1[1] == '\0');
        if (match && path[0] == '/' && strlen(path) < cap && !strstr(path, "(deleted)")) {
            strcpy(out, path);
            found = 0;
        }
    }
    fclose(f);
    return found;
}

/* Removes groups left by processes that no longer exist. */
static void sweep_stale(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, PREFIX, sizeof PREFIX - 1) != 0)
            continue;
        long pid = strtol(e->d_name + sizeof PREFIX - 1, &end, 10);
        if (pid <= 0 || *end != '-' || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
            unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR); /* fails while not empty */
    }
    closedir(d);
}

static int writable_dir(const char *dir)
{
    return dir && access(dir, W_OK) == 0;
}

static void look(void)
{
    char mem[1024], pids[1024], v2[1024], own[2048];
    find_mounts(mem, pids, v2, sizeof mem);
    pool.mode = MODE_NONE;
    pool.what = 0;
    if (v2[0] && own_group("", own, sizeof own) == 0) {
        /* a sibling of our group, in its parent (a group with processes
         * cannot enable controllers for children) */
        char *slash = strrchr(own, '/');
        if (slash == own)
            own[1] = '\0';
        else if (slash)
            *slash = '\0';
        char *base = join(v2, own);
        char *ctl = base ? join(base, "/cgroup.subtree_control") : NULL;
        FILE *f = ctl ? fopen(ctl, "re") : NULL;
        char buf[512] = "";
        if (f) {
            if (!fgets(buf, sizeof buf, f))
                buf[0] = '\0';
            fclose(f);
        }
        free(ctl);
        if (has_token(buf, "memory") && has_token(buf, "pids") && writable_dir(base)) {
            pool.mode = MODE_V2;
            pool.what = PATHGATE__CGROUP_MEMORY | PATHGATE__CGROUP_PIDS;
            pool.base[0] = base;
            sweep_stale(base);
            return;
        }
        free(base);
    }
    const char *mounts[2] = {mem, pids};
    const char *names[2] = {"memory", "pids"};
    for (int i = 0; i < 2; i++) {
        if (!mounts[i][0] || own_group(names[i], own, sizeof own) < 0)
            continue;
        char *base = join(mounts[i], own);
        if (writable_dir(base)) {
            pool.base[i] = base;
            pool.what |= i == 0 ? PATHGATE__CGROUP_MEMORY : PATHGATE__CGROUP_PIDS;
            sweep_stale(base);
        } else {
            free(base);
        }
    }
    if (pool.what)
        pool.mode = MODE_V1;
}

/* ------------------------------------------------------------- slots */

static int write_text(const char *dir, const char *file, const char *text)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 1 : -1; /* 1: no such knob here */
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n < 0 ? -1 : 0;
}

/* Sets the limits of g (only what changed). 0 or -1. */
static int set_limits(pathgate__exec_cgroup *g, unsigned long long memory, unsigned int pids)
{
    char v[32];
    if (g->dir[0] && g->memory != memory) {
        snprintf(v, sizeof v, "%llu", memory);
        if (pool.mode == MODE_V2) {
            if (write_text(g->dir[0], "memory.max", v) < 0 ||
                write_text(g->dir[0], "memory.swap.max", "0") < 0)
                return -1;
        } else {
            /* memsw (memory + swap, where swap is accounted) >= limit at
             * every step */
            int up = memory > g->memory;
            if ((up && write_text(g->dir[0], "memory.memsw.limit_in_bytes", v) < 0) ||
                write_text(g->dir[0], "memory.limit_in_bytes", v) < 0 ||
                (!up && write_text(g->dir[0], "memory.memsw.limit_in_bytes", v) < 0))
                return -1;
        }
        g->memory = memory;
    }
    const char *pd = pool.mode == MODE_V2 ? g->dir[0] : g->dir[1];
    if (pd && g->pids != pids) {
        snprintf(v, sizeof v, "%llu", (unsigned long long)pids + (g->has_keeper ? HELPERS : 0));
        if (write_text(pd, "pids.max", v) < 0)
            return -1;
        g->pids = pids;
    }
    return 0;
}

/* The kernel's OOM killer off for g's memory group, and its OOM events
 * on an eventfd (cgroup v1's cgroup.event_control): the supervisor picks
 * the victim (pathgate__exec_cgroup_oom_kill). 0 or -1. */
static int oom_to_us(pathgate__exec_cgroup *g)
{
    if (pool.mode != MODE_V1 || !g->dir[0])
        return -1;
    char p[2048], line[64];
    if (write_text(g->dir[0], "memory.oom_control", "1") != 0)
        return -1;
    snprintf(p, sizeof p, "%s/memory.oom_control", g->dir[0]);
    g->oom_ctl = open(p, O_RDONLY | O_CLOEXEC);
    g->oom_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (g->oom_ctl < 0 || g->oom_efd < 0)
        return -1;
    snprintf(line, sizeof line, "%d %d", g->oom_efd, g->oom_ctl);
    return write_text(g->dir[0], "cgroup.event_control", line) == 0 ? 0 : -1;
}

static void oom_close(pathgate__exec_cgroup *g)
{
    if (g->oom_efd >= 0)
        close(g->oom_efd);
    if (g->oom_ctl >= 0)
        close(g->oom_ctl);
    g->oom_efd = g->oom_ctl = -1;
}

static void keeper_end(pathgate__exec_cgroup *g, int wait);

/* A keeper for g: for a root caller of cgroup v1, whose OOM events it
 * takes over (a keeper shares the host's memory: the kernel's killer
 * must never pick it). */
static void keeper_for(pathgate__exec_cgroup *g)
{
    g->has_keeper = 0;
    if (geteuid() == 0 && oom_to_us(g) == 0 &&
        pathgate__exec_keeper_start(&g->keeper, g->procs) == 0) {
        g->has_keeper = 1;
    } else {
        oom_close(g);
        if (g->dir[0])
            write_text(g->dir[0], "memory.oom_control", "0");
    }
    g->pids = ~0u; /* pids.max allows for it: written again */
}

static void keeper_end(pathgate__exec_cgroup *g, int wait)
{
    pathgate__exec_prep_release(__atomic_exchange_n(&g->prep, NULL, __ATOMIC_ACQ_REL), wait);
    oom_close(g);
    if (!g->has_keeper)
        return;
    pid_t pid = g->keeper.pid;
    int pidfd = dup(g->keeper.pidfd);
    pathgate__exec_keeper_stop(&g->keeper);
    if (wait && pidfd >= 0) {
        struct pollfd p = {pidfd, POLLIN, 0};
        poll(&p, 1, 200);
        siginfo_t si;
        waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | __WALL);
    }
    if (pidfd >= 0)
        close(pidfd);
    g->has_keeper = 0;
}

static void slot_free(pathgate__exec_cgroup *g, int remove)
{
    keeper_end(g, remove);
    for (int i = 0; i < 2; i++) {
        if (g->procs[i] >= 0)
            close(g->procs[i]);
        if (g->dir[i] && remove)
            rmdir(g->dir[i]);
        free(g->dir[i]);
    }
    free(g);
}

static pathgate__exec_cgroup *slot_new(void)
{
    pathgate__exec_cgroup *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->procs[0] = g->procs[1] = -1;
    g->oom_efd = g->oom_ctl = -1;
    g->memory = ~0ull;
    g->pids = ~0u;
    char name[64];
    snprintf(name, sizeof name, "/" PREFIX "%ld-%u", (long)getpid(), pool.seq++);
    for (int i = 0; i < 2; i++) {
        if (!pool.base[i])
            continue;
        char *dir = join(pool.base[i], name), *procs = dir ? join(dir, "/cgroup.procs") : NULL;
        if (!dir || (mkdir(dir, 0755) < 0 && errno != EEXIST) ||
            (g->procs[i] = open(procs, O_WRONLY | O_CLOEXEC)) < 0) {
            if (dir)
                rmdir(dir);
            free(dir);
            free(procs);
            slot_free(g, 1);
            return NULL;
        }
        g->dir[i] = dir;
        free(procs);
    }
    keeper_for(g);
    return g;
}

__attribute__((destructor)) static void remove_all(void)
{
    pthread_mutex_lock(&pool.mu);
    for (int i = 0; pool.owner == getpid() && i < pool.nslots; i++) {
        if (pool.slots[i]->used)
            continue;
        keeper_end(pool.slots[i], 1);
        for (int k = 0; k < 2; k++)
            if (pool.slots[i]->dir[k])
                rmdir(pool.slots[i]->dir[k]);
    }
    pthread_mutex_unlock(&pool.mu);
}

/* Under the lock: the pool of this process (after a fork, the parent's
 * groups are not ours). */
static void ensure_pool(void)
{
    if (pool.looked && pool.owner == getpid())
        return;
    for (int i = 0; i < pool.nslots; i++)
        slot_free(pool.slots[i], 0);
    pool.nslots = 0;
    for (int i = 0; i < 2; i++) {
        free(pool.base[i]);
        pool.base[i] = NULL;
    }
    pool.owner = getpid();
    pool.looked = 1;
    look();
}

unsigned int pathgate__exec_cgroup_available(void)
{
    pthread_mutex_lock(&pool.mu);
    ensure_pool();
    unsigned int what = pool.what;
    pthread_mutex_unlock(&pool.mu);
    return what;
}

pathgate__exec_cgroup *pathgate__exec_cgroup_acquire(unsigned long long memory, unsigned int pids,
                                                     unsigned int *what)
{
    *what = 0;
    pthread_mutex_lock(&pool.mu);
    ensure_pool();
    pathgate__exec_cgroup *g = NULL;
    /* a free group with these limits, else any free group, else a new one */
    for (int pass = 0; pass < 2 && !g; pass++)
        for (int i = 0; i < pool.nslots && !g; i++) {
            pathgate__exec_cgroup *s = pool.slots[i];
            if (!s->used && (pass == 1 || (s->memory == memory && s->pids == pids)) &&
                set_limits(s, memory, pids) == 0)
                g = s;
        }
    if (!g && pool.mode != MODE_NONE && pool.nslots < MAX_SLOTS && (g = slot_new()) != NULL) {
        if (set_limits(g, memory, pids) < 0) {
            slot_free(g, 1);
            g = NULL;
        } else {
            pool.slots[pool.nslots++] = g;
        }
    }
    if (g) {
        g->used = 1;
        *what = pool.what;
        if (g->has_keeper && !pathgate__exec_keeper_alive(&g->keeper)) {
            /* its thread ended (or it was killed): another one */
            keeper_end(g, 0);
            keeper_for(g);
            if (set_limits(g, memory, pids) < 0)
                keeper_end(g, 0);
        }
    }
    pthread_mutex_unlock(&pool.mu);
    return g;
}

void pathgate__exec_cgroup_release(pathgate__exec_cgroup *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&pool.mu);
    g->used = 0;
    pthread_mutex_unlock(&pool.mu);
}

pathgate__exec_keeper *pathgate__exec_cgroup_keeper(pathgate__exec_cgroup *g)
{
    return g && g->has_keeper ? &g->keeper : NULL;
}

pathgate__exec_prep **pathgate__exec_cgroup_prep(pathgate__exec_cgroup *g)
{
    return g && g->has_keeper ? &g->prep : NULL;
}

int pathgate__exec_cgroup_oom_fd(const pathgate__exec_cgroup *g)
{
    return g && g->has_keeper ? g->oom_efd : -1;
}

#ifndef KCMP_VM
#define KCMP_VM 1
#endif

void pathgate__exec_cgroup_oom_kill(pathgate__exec_cgroup *g, pid_t init)
{
    uint64_t n;
    while (read(g->oom_efd, &n, sizeof n) > 0) {
    }
    char p[2048];
    snprintf(p, sizeof p, "%s/cgroup.procs", g->dir[0]);
    FILE *f = fopen(p, "re");
    if (!f)
        return;
    long best = -1, best_rss = -1, pid;
    pid_t self = getpid();
    while (fscanf(f, "%ld", &pid) == 1) {
        /* not pathgate's own (the keeper, the init, a child before its
         * execve: they share this process's memory) */
        if (pid == g->keeper.pid || syscall(SYS_kcmp, self, (pid_t)pid, KCMP_VM, 0, 0) == 0)
            continue;
        char sp[64];
        long size, rss;
        snprintf(sp, sizeof sp, "/proc/%ld/statm", pid);
        FILE *s = fopen(sp, "re");
        if (s && fscanf(s, "%ld %ld", &size, &rss) == 2 && rss > best_rss) {
            best = pid;
            best_rss = rss;
        }
        if (s)
            fclose(s);
    }
    fclose(f);
    /* the largest, as the kernel's killer would; none: the whole command */
    kill(best > 0 ? (pid_t)best : init, SIGKILL);
}

void pathgate__exec_cgroup_procs(const pathgate__exec_cgroup *g, int fds[2])
{
    fds[0] = g ? g->procs[0] : -1;
    fds[1] = g ? g->procs[1] : -1;
}
