/* exec_landlock.c - Landlock ABI detection and ruleset construction. */
#define _GNU_SOURCE
#include "exec_landlock.h"

#include <errno.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The Landlock UAPI, defined here because the distribution header is older
 * than the kernels this runs on (Debian 12 ships ABI 2 definitions). The
 * system call numbers are the same on every architecture (>= 424). */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset PATHGATE__SYS_LANDLOCK_CREATE_RULESET
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule PATHGATE__SYS_LANDLOCK_ADD_RULE
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_RULE_PATH_BENEATH
#define LANDLOCK_RULE_PATH_BENEATH 1
#endif

/* Filesystem rights: ABI 1 ... */
#define PG_LL_FS_EXECUTE (1ULL << 0)
#define PG_LL_FS_WRITE_FILE (1ULL << 1)
#define PG_LL_FS_READ_FILE (1ULL << 2)
#define PG_LL_FS_READ_DIR (1ULL << 3)
#define PG_LL_FS_REMOVE_DIR (1ULL << 4)
#define PG_LL_FS_REMOVE_FILE (1ULL << 5)
#define PG_LL_FS_MAKE_CHAR (1ULL << 6)
#define PG_LL_FS_MAKE_DIR (1ULL << 7)
#define PG_LL_FS_MAKE_REG (1ULL << 8)
#define PG_LL_FS_MAKE_SOCK (1ULL << 9)
#define PG_LL_FS_MAKE_FIFO (1ULL << 10)
#define PG_LL_FS_MAKE_BLOCK (1ULL << 11)
#define PG_LL_FS_MAKE_SYM (1ULL << 12)
/* ... ABI 2 */
#define PG_LL_FS_REFER (1ULL << 13)
/* ... ABI 3 */
#define PG_LL_FS_TRUNCATE (1ULL << 14)
/* ... ABI 5 */
#define PG_LL_FS_IOCTL_DEV (1ULL << 15)
/* Network rights (ABI 4) */
#define PG_LL_NET_BIND_TCP (1ULL << 0)
#define PG_LL_NET_CONNECT_TCP (1ULL << 1)
/* Scopes (ABI 6) */
#define PG_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define PG_LL_SCOPE_SIGNAL (1ULL << 1)
/* ABI 7 adds only logging flags of landlock_restrict_self (left at their
 * defaults: denials are logged for the sandboxed program). */

#define PG_LL_FS_ABI1 ((1ULL << 13) - 1)
#define PG_LL_FS_FILE_RIGHTS                                                                       \
    (PG_LL_FS_EXECUTE | PG_LL_FS_WRITE_FILE | PG_LL_FS_READ_FILE | PG_LL_FS_TRUNCATE |             \
     PG_LL_FS_IOCTL_DEV)

/* struct landlock_ruleset_attr as of ABI 6 (ABI 1 had only the first
 * member, ABI 4 the first two); the size passed tells the kernel which. */
struct pg_ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct pg_ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

int pathgate__landlock_abi(void)
{
    long v = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (v <= 0)
        return 0; /* ENOSYS: not built in; EOPNOTSUPP: disabled at boot */
    return v > PATHGATE__LANDLOCK_ABI_MAX ? PATHGATE__LANDLOCK_ABI_MAX : (int)v;
}

uint64_t pathgate__landlock_handled_fs(int abi)
{
    if (abi < 1)
        return 0;
    uint64_t fs = PG_LL_FS_ABI1;
    if (abi >= 2)
        fs |= PG_LL_FS_REFER;
    if (abi >= 3)
        fs |= PG_LL_FS_TRUNCATE;
    if (abi >= 5)
        fs |= PG_LL_FS_IOCTL_DEV;
    return fs;
}

uint64_t pathgate__landlock_rights(int abi, unsigned int classes, int is_dir)
{
    uint64_t r = 0;
    if (classes & PATHGATE__LL_READ)
        r |= PG_LL_FS_READ_FILE | PG_LL_FS_READ_DIR;
    if (classes & PATHGATE__LL_LIST)
        r |= PG_LL_FS_READ_DIR;
    if (classes & PATHGATE__LL_EXEC)
        r |= PG_LL_FS_EXECUTE;
    if (classes & PATHGATE__LL_WRITE)
        r |= PG_LL_FS_WRITE_FILE | PG_LL_FS_TRUNCATE | PG_LL_FS_REMOVE_DIR | PG_LL_FS_REMOVE_FILE |
             PG_LL_FS_MAKE_DIR | PG_LL_FS_MAKE_REG | PG_LL_FS_MAKE_SOCK | PG_LL_FS_MAKE_FIFO |
             PG_LL_FS_MAKE_SYM | PG_LL_FS_REFER;
    if (classes & PATHGATE__LL_DEV)
        r |= PG_LL_FS_IOCTL_DEV;
    if (!is_dir)
        r &= PG_LL_FS_FILE_RIGHTS;
    return r & pathgate__landlock_handled_fs(abi);
}

int pathgate__landlock_ruleset(int abi, int deny_tcp)
{
    if (abi < 1)
        return -EOPNOTSUPP;
    struct pg_ll_ruleset_attr attr = {pathgate__landlock_handled_fs(abi), 0, 0};
    size_t size = offsetof(struct pg_ll_ruleset_attr, handled_access_net);
    if (abi >= 4) {
        if (deny_tcp)
            attr.handled_access_net = PG_LL_NET_BIND_TCP | PG_LL_NET_CONNECT_TCP;
        size = offsetof(struct pg_ll_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = PG_LL_SCOPE_ABSTRACT_UNIX_SOCKET | PG_LL_SCOPE_SIGNAL;
        size = sizeof attr;
    }
    long fd = syscall(__NR_landlock_create_ruleset, &attr, size, 0);
    return fd < 0 ? -errno : (int)fd;
}

static int add_rule(int ruleset, int fd, uint64_t rights)
{
    struct pg_ll_path_beneath_attr pb = {rights, fd};
    return syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0 ? -errno
                                                                                            : 0;
}

int pathgate__landlock_allow(int ruleset, int abi, int fd, unsigned int classes)
{
    uint64_t dir = pathgate__landlock_rights(abi, classes, 1);
    if (!dir)
        return 0;
    /* Directories take the full set; a file answers EINVAL to directory
     * rights, so retry with the file subset instead of paying an fstat for
     * every rule. */
    int rc = add_rule(ruleset, fd, dir);
    if (rc == -EINVAL) {
        uint64_t file = pathgate__landlock_rights(abi, classes, 0);
        rc = file ? add_rule(ruleset, fd, file) : 0;
    }
    return rc;
}
