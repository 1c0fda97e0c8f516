/* exec_idmap.c - the uid map of a root caller's command and the idmapped
 * mounts of its writable bases (parent side; exec_idmap.h). Technique
 * studied from crun and systemd (a user namespace held by a short-lived
 * process, open_tree + mount_setattr(MOUNT_ATTR_IDMAP)); the code is
 * pathgate's own. */
#define _GNU_SOURCE
#include "exec_idmap.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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
    unsigned long long n = (uc < gc ? uc : gc) - 1;
    if (n > PATHGATE__EXEC_ID_RANGE_MAX)
        n = PATHGATE__EXEC_ID_RANGE_MAX;
    if (!range_ok(etc, uf, gf, n, ul, gl))
        return count == 0 ? 0 : -1;
    r->uid_first = (unsigned int)uf;
    r->gid_first = (unsigned int)gf;
    r->n = (unsigned int)n;
    return 0;
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
