/* exec_idmap.c - the uid map of a root caller's command and the idmapped
 * mounts of its writable bases (parent side; exec_idmap.h). Technique
 * studied from crun and systemd (a user namespace held by a short-lived
 * process, open_tree + mount_setattr(MOUNT_ATTR_IDMAP)); the code is
 * pathgate's own. */
#define _GNU_SOURCE
#include "exec_idmap.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_clone.h"
#include "exec_raw.h"

#define PG_OPEN_TREE_CLONE 1u
#define PG_MOUNT_ATTR_IDMAP 0x00100000ULL

/* Every valid id: 0 .. 2^32 - 2 ((uid_t)-1 is "none"). */
#define ID_COUNT 4294967295ULL

struct pg_idmap_attr {
    uint64_t attr_set, attr_clr, propagation, userns_fd;
};

void pathgate__exec_idmap_swap(char *buf, size_t size, unsigned int a, unsigned int b)
{
    unsigned long long lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo == hi) {
        snprintf(buf, size, "0 0 %llu\n", ID_COUNT);
        return;
    }
    size_t n = 0;
    buf[0] = '\0';
#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (n < size)                                                                              \
            n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__);                                 \
    } while (0)
    if (lo > 0)
        APPEND("0 0 %llu\n", lo);
    APPEND("%llu %llu 1\n", lo, hi);
    if (hi - lo > 1)
        APPEND("%llu %llu %llu\n", lo + 1, lo + 1, hi - lo - 1);
    APPEND("%llu %llu 1\n", hi, lo);
    if (ID_COUNT - hi > 1)
        APPEND("%llu %llu %llu\n", hi + 1, hi + 1, ID_COUNT - hi - 1);
#undef APPEND
}

void pathgate__exec_idmap_range_line(char *buf, size_t size, unsigned int first, unsigned int n)
{
    size_t len = strlen(buf);
    if (n && len < size)
        snprintf(buf + len, size - len, "1 %llu %u\n", (unsigned long long)first + 1, n);
}

/* A decimal id of at most 10 digits ending at *end ('\0', ':' or '\n'). */
static int parse_id(const char *s, unsigned long long *v, const char **end)
{
    unsigned long long x = 0;
    size_t i = 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        if (i == 10)
            return -1;
        x = x * 10 + (unsigned)(s[i] - '0');
    }
    if (i == 0)
        return -1;
    *v = x;
    *end = s + i;
    return 0;
}

/* Field `field` (0-based, ':'-separated) of line, or NULL. */
static const char *field_of(const char *line, int field)
{
    for (int i = 0; i < field; i++) {
        line = strchr(line, ':');
        if (!line)
            return NULL;
        line++;
    }
    return line;
}

/* 1 when the host ids [lo, hi] meet an id of a user of etc/passwd
 * (etc/group: its field 2), or a range of etc/subuid (subgid) other than
 * the line `own` (1-based; 0 = none). An unreadable file meets nothing
 * (a missing subuid is normal); an unreadable passwd meets everything. */
static int meets(const char *etc, const char *file, int is_range, unsigned long long lo,
                 unsigned long long hi, int own)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", etc, file);
    FILE *f = fopen(path, "re");
    if (!f)
        return !is_range;
    char *line = NULL;
    size_t cap = 0;
    int hit = 0, no = 0;
    while (!hit && getline(&line, &cap, f) >= 0) {
        no++;
        unsigned long long a, c = 1;
        const char *v = field_of(line, is_range ? 1 : 2), *end;
        if (!v || parse_id(v, &a, &end) < 0)
            continue;
        if (is_range && (*end != ':' || parse_id(end + 1, &c, &end) < 0 || c == 0))
            continue;
        if (no != own && a <= hi && a + c - 1 >= lo)
            hit = 1;
    }
    free(line);
    fclose(f);
    return hit;
}

/* root's range in etc/<file> (the first line named "root" or "0" with at
 * least 2 ids): its line number (1-based) and *first, *count; 0 = none. */
static int root_entry(const char *etc, const char *file, unsigned long long *first,
                      unsigned long long *count)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", etc, file);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int found = 0, no = 0;
    while (!found && getline(&line, &cap, f) >= 0) {
        no++;
        const char *end;
        if (strncmp(line, "root:", 5) && strncmp(line, "0:", 2))
            continue;
        const char *v = field_of(line, 1);
        if (v && parse_id(v, first, &end) == 0 && *end == ':' &&
            parse_id(end + 1, count, &end) == 0 && *count >= 2 &&
            *first + *count - 1 <= 4294967294ULL)
            found = no;
    }
    free(line);
    fclose(f);
    return found;
}

/* 1 when [first+1, first+n] holds no id a range may not hold. */
static int range_ok(const char *etc, unsigned long long uf, unsigned long long gf,
                    unsigned long long n, int ul, int gl)
{
    unsigned long long ulo = uf + 1, uhi = uf + n, glo = gf + 1, ghi = gf + n;
    if (n == 0 || uhi > 4294967294ULL || ghi > 4294967294ULL)
        return 0;
    /* never an id of the users' and the system's space (0..65535, named
     * in passwd or not: root, nobody, ids files of packages carry) ... */
    if (ulo <= PATHGATE__EXEC_ID_SPACE_END || glo <= PATHGATE__EXEC_ID_SPACE_END)
        return 0;
    /* ... a user's or group's id, or another range */
    return !meets(etc, "passwd", 0, ulo, uhi, 0) && !meets(etc, "group", 0, glo, ghi, 0) &&
           !meets(etc, "subuid", 1, ulo, uhi, ul) && !meets(etc, "subgid", 1, glo, ghi, gl);
}

/* The range inside 1..n at host uf+1.., gf+1.. (n capped), when range_ok
 * takes it: 0 with *r filled; otherwise 0 for a default (count 0: the
 * single mapping), -1 for an explicit range. */
static int range_take(pathgate__exec_idrange *r, const char *etc, unsigned long long uf,
                      unsigned long long gf, unsigned long long n, int ul, int gl,
                      unsigned int count)
{
    if (n > PATHGATE__EXEC_ID_RANGE_MAX)
        n = PATHGATE__EXEC_ID_RANGE_MAX;
    if (!range_ok(etc, uf, gf, n, ul, gl))
        return count == 0 ? 0 : -1;
    r->uid_first = (unsigned int)uf;
    r->gid_first = (unsigned int)gf;
    r->n = (unsigned int)n;
    return 0;
}

int pathgate__exec_idmap_range(pathgate__exec_idrange *r, const char *etc, unsigned int first,
                               unsigned int count)
{
    r->uid_first = r->gid_first = first;
    r->n = 0;
    if (count == 1)
        return 0;
    unsigned long long uf = first, uc = count, gf = first, gc = count;
    int ul = 0, gl = 0;
    if (count == 0) {
        ul = root_entry(etc, "subuid", &uf, &uc);
        gl = root_entry(etc, "subgid", &gf, &gc);
        if (!ul || !gl) {
            ul = gl = 0;
            uf = gf = PATHGATE__EXEC_ID_RANGE_DEFAULT;
            uc = gc = PATHGATE__EXEC_ID_RANGE_MAX + 1ull;
        }
    }
    return range_take(r, etc, uf, gf, (uc < gc ? uc : gc) - 1, ul, gl, count);
}

/* The caller's entry in etc/<file>: the first line owned by `name` or by
 * the decimal `uid` whose range holds at least one id, none of them 0,
 * and ends below 2^32-1 and, when want_lo <= want_hi, holds
 * [want_lo, want_hi]. Its line number (1-based) and *first, *count; 0 =
 * none. */
static int caller_entry(const char *etc, const char *file, const char *name, unsigned int uid,
                        unsigned long long want_lo, unsigned long long want_hi,
                        unsigned long long *first, unsigned long long *count)
{
    char path[256], num[16];
    snprintf(path, sizeof path, "%s/%s", etc, file);
    snprintf(num, sizeof num, "%u", uid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int found = 0, no = 0;
    size_t nlen = name ? strlen(name) : 0, ulen = strlen(num);
    while (!found && getline(&line, &cap, f) >= 0) {
        no++;
        const char *colon = strchr(line, ':'), *end;
        if (!colon)
            continue;
        size_t olen = (size_t)(colon - line);
        if (!((nlen && olen == nlen && !memcmp(line, name, nlen)) ||
              (olen == ulen && !memcmp(line, num, ulen))))
            continue;
        unsigned long long a, c;
        if (parse_id(colon + 1, &a, &end) < 0 || *end != ':' || parse_id(end + 1, &c, &end) < 0 ||
            c == 0 || a == 0 || a + c - 1 > 4294967294ULL)
            continue;
        if (want_lo <= want_hi && (want_lo < a || want_hi > a + c - 1))
            continue;
        *first = a;
        *count = c;
        found = no;
    }
    free(line);
    fclose(f);
    return found;
}

int pathgate__exec_idmap_subids(pathgate__exec_idrange *r, const char *etc, const char *name,
                                unsigned int uid, unsigned int first, unsigned int count)
{
    r->uid_first = r->gid_first = first;
    r->n = 0;
    if (count == 1)
        return 0;
    unsigned long long ua, uc, ga, gc, n;
    int ul, gl;
    if (count == 0) {
        /* inside 1 is the entry's first id */
        ul = caller_entry(etc, "subuid", name, uid, 1, 0, &ua, &uc);
        gl = caller_entry(etc, "subgid", name, uid, 1, 0, &ga, &gc);
        if (!ul || !gl)
            return 0;
        n = uc < gc ? uc : gc;
        ua--;
        ga--;
    } else {
        n = (unsigned long long)count - 1;
        if (n > PATHGATE__EXEC_ID_RANGE_MAX)
            n = PATHGATE__EXEC_ID_RANGE_MAX;
        unsigned long long lo = (unsigned long long)first + 1, hi = (unsigned long long)first + n;
        ul = caller_entry(etc, "subuid", name, uid, lo, hi, &ua, &uc);
        gl = caller_entry(etc, "subgid", name, uid, lo, hi, &ga, &gc);
        if (!ul || !gl)
            return -1;
        ua = ga = first;
    }
    return range_take(r, etc, ua, ga, n, ul, gl, count);
}

int pathgate__exec_idmap_caller_subids(pathgate__exec_idrange *r, unsigned int first,
                                       unsigned int count)
{
    r->uid_first = r->gid_first = first;
    r->n = 0;
    if (count == 1)
        return 0;
    uid_t ruid, euid, suid;
    gid_t rgid, egid, sgid;
    struct passwd pw, *pwp = NULL;
    char buf[4096];
    int ok = getresuid(&ruid, &euid, &suid) == 0 && getresgid(&rgid, &egid, &sgid) == 0 &&
             euid != 0 && ruid == euid && rgid == egid &&
             getpwuid_r(ruid, &pw, buf, sizeof buf, &pwp) == 0 && pwp && pw.pw_gid == rgid &&
             access(PATHGATE__EXEC_NEWUIDMAP, X_OK) == 0 &&
             access(PATHGATE__EXEC_NEWGIDMAP, X_OK) == 0;
    if (!ok)
        return count == 0 ? 0 : -1;
    return pathgate__exec_idmap_subids(r, "/etc", pw.pw_name, (unsigned int)ruid, first, count);
}

/* Runs one helper: path pid 0 <own> 1 1 <first+1> <n>, and waits for it.
 * -1 when it could not be started or exited other than 0; 0 when it exited
 * 0 or its status was lost (ECHILD: a host that ignores SIGCHLD has it
 * reaped by the kernel, another thread may reap every child; the maps
 * are read back anyway). */
static int run_helper(const char *path, pid_t pid, unsigned int own, unsigned int first,
                      unsigned int n)
{
    char spid[16], sown[16], sfirst[16], sn[16];
    snprintf(spid, sizeof spid, "%d", (int)pid);
    snprintf(sown, sizeof sown, "%u", own);
    snprintf(sfirst, sizeof sfirst, "%llu", (unsigned long long)first + 1);
    snprintf(sn, sizeof sn, "%u", n);
    char *const argv[] = {(char *)path, spid, "0", sown, "1", "1", sfirst, sn, NULL};
    char *const envp[] = {NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    if (posix_spawnattr_init(&at) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return -1;
    }
    /* its standard streams /dev/null, nothing else of ours open; every
     * signal unblocked and at its default */
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) ||
             posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) ||
             posix_spawn_file_actions_adddup2(&fa, 1, 2) ||
             posix_spawn_file_actions_addclosefrom_np(&fa, 3) ||
             posix_spawnattr_setsigmask(&at, &none) || posix_spawnattr_setsigdefault(&at, &all) ||
             posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t child = -1;
    if (!rc)
        rc = posix_spawn(&child, path, &fa, &at, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc)
        return -1;
    int status = 0;
    pid_t w;
    while ((w = waitpid(child, &status, 0)) < 0 && errno == EINTR) {
    }
    if (w < 0)
        return errno == ECHILD ? 0 : -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* 1 when /proc/<pid>/<file> is exactly "0 own 1" and "1 first+1 n". */
static int map_is(pid_t pid, const char *file, unsigned int own, unsigned int first, unsigned int n)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0)
        return 0;
    buf[len] = '\0';
    unsigned long long a[6];
    int used = 0;
    if (sscanf(buf, "%llu %llu %llu %llu %llu %llu %n", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5],
               &used) != 6 ||
        buf[used] != '\0')
        return 0;
    return a[0] == 0 && a[1] == own && a[2] == 1 && a[3] == 1 &&
           a[4] == (unsigned long long)first + 1 && a[5] == n;
}

int pathgate__exec_idmap_helpers(pid_t pid, unsigned int uid, unsigned int gid,
                                 const pathgate__exec_idrange *r)
{
    if (!r->n)
        return -1;
    if (run_helper(PATHGATE__EXEC_NEWUIDMAP, pid, uid, r->uid_first, r->n) < 0 ||
        run_helper(PATHGATE__EXEC_NEWGIDMAP, pid, gid, r->gid_first, r->n) < 0)
        return -1;
    /* what was written, read back: exactly what was asked for */
    return map_is(pid, "uid_map", uid, r->uid_first, r->n) &&
                   map_is(pid, "gid_map", gid, r->gid_first, r->n)
               ? 0
               : -1;
}

static int write_map(pid_t pid, const char *file, const char *map)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = strlen(map);
    ssize_t n = write(fd, map, len); /* one write: the kernel takes no second */
    int e = n < 0 ? errno : (size_t)n == len ? 0 : EIO;
    close(fd);
    return -e;
}

int pathgate__exec_idmap_write(pid_t pid, const char *uid_map, const char *gid_map)
{
    int rc = write_map(pid, "uid_map", uid_map);
    return rc ? rc : write_map(pid, "gid_map", gid_map);
}

/* The holder of the idmapping namespace: shares the caller's memory
 * (CLONE_VM: no page-table copy, no copy-on-write faults in a large
 * host), runs with every signal blocked and makes system calls that
 * cannot fail here (so errno, the calling thread's, is never written):
 * closes every descriptor but its pipe's read end, waits for EOF on it,
 * then exits. */
typedef struct holder {
    int r, w;
} holder;

__attribute__((noreturn, no_sanitize("address", "undefined", "thread"))) static int holder_main(
    void *p)
{
    const holder *h = p;
    char c;
    /* Its descriptor table is a copy of the caller's, taken while other
     * threads may be making their own holders' pipes: keep only its read
     * end, or two holders could each hold the other's write end open and
     * neither would ever see EOF (and a test runner's output pipe would
     * stay open with them). */
    int r = h->r;
    if (r > 0)
        syscall(SYS_close_range, 0u, (unsigned int)r - 1u, 0u);
    syscall(SYS_close_range, (unsigned int)r + 1u, ~0u, 0u);
    syscall(SYS_read, r, &c, 1);
    syscall(SYS_exit_group, 0);
    __builtin_unreachable();
}

int pathgate__exec_idmap_userns(uid_t owner, gid_t group, uid_t run_uid, gid_t run_gid)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -errno;
    holder h = {p[0], p[1]};
    /* its stack: this frame outlives it (it is reaped below) */
    static const size_t stack_size = 16384;
    _Alignas(64) char stack[16384];
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    /* no exit signal: only the __WALL wait below sees it */
    pid_t pid =
        pathgate__exec_libc_clone()(holder_main, stack + stack_size, CLONE_VM | CLONE_NEWUSER, &h);
    int rc = pid < 0 ? -errno : 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(p[0]);
    if (rc) {
        close(p[1]);
        return rc;
    }
    char umap[160], gmap[160];
    pathgate__exec_idmap_swap(umap, sizeof umap, owner, run_uid);
    pathgate__exec_idmap_swap(gmap, sizeof gmap, group, run_gid);
    rc = pathgate__exec_idmap_write(pid, umap, gmap);
    int fd = -1;
    if (!rc) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            rc = -errno;
    }
    close(p[1]);
    while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR) {
    }
    return rc ? rc : fd;
}

int pathgate__exec_idmap_tree(int fd, unsigned long long attr, int userns_fd)
{
    int tree = (int)syscall(__NR_open_tree, fd, "", PG_OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH);
    if (tree < 0)
        return -errno;
    struct pg_idmap_attr ma = {attr, 0, 0, 0};
    if (userns_fd >= 0) {
        ma.attr_set |= PG_MOUNT_ATTR_IDMAP;
        ma.userns_fd = (uint64_t)userns_fd;
    }
    if (syscall(__NR_mount_setattr, tree, "", AT_EMPTY_PATH, &ma, sizeof ma) < 0) {
        int e = errno;
        close(tree);
        return -e;
    }
    return tree;
}
