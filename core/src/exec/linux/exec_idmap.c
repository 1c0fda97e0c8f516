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
