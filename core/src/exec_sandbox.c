/*
 * exec_sandbox.c - the Landlock policy of a contained command.
 *
 * Granted besides the caller's grants (everything else is denied):
 *  - read + execute: /usr, /bin, /sbin, /lib, /lib32, /lib64, /libx32 (on
 *    merged-/usr systems the last ones are symlinks into /usr; the rule then
 *    lands on the same directory);
 *  - read: the /etc entries a shell and common tools read (loader cache,
 *    name service, time zone, certificates, alternatives, ...), one rule per
 *    entry; not /etc itself, so /etc/shadow, /etc/ssh and /etc/ssl/private
 *    stay unreadable even for a command run by root;
 *  - /dev/null and /dev/full read + write, /dev/zero, /dev/random and
 *    /dev/urandom read (ioctl allowed on those nodes only).
 * Deliberately absent: /proc and /sys (other processes' command lines and
 * the parent's details; tools such as ps fail), /dev/shm (shared with every
 * process of the host), /dev/tty (the command has no controlling terminal),
 * /tmp (the command gets a private temporary directory instead), /run,
 * /var, /home, /opt.
 */
#define _GNU_SOURCE
#include "exec_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "error.h"
#include "landlock.h"

typedef struct system_path {
    const char *path;
    unsigned int classes;
} system_path;

static const system_path system_paths[] = {
    {"/usr", PATHGATE__LL_READ | PATHGATE__LL_EXEC},
    {"/bin", PATHGATE__LL_READ | PATHGATE__LL_EXEC},
    {"/sbin", PATHGATE__LL_READ | PATHGATE__LL_EXEC},
    {"/lib", PATHGATE__LL_READ | PATHGATE__LL_EXEC},
    {"/lib32", PATHGATE__LL_READ | PATHGATE__LL_EXEC},
    {"/lib64", PATHGATE__LL_READ | PATHGATE__LL_EXEC},
    {"/libx32", PATHGATE__LL_READ | PATHGATE__LL_EXEC},
    {"/dev/null", PATHGATE__LL_READ | PATHGATE__LL_WRITE | PATHGATE__LL_DEV},
    {"/dev/full", PATHGATE__LL_READ | PATHGATE__LL_WRITE | PATHGATE__LL_DEV},
    {"/dev/zero", PATHGATE__LL_READ | PATHGATE__LL_DEV},
    {"/dev/random", PATHGATE__LL_READ | PATHGATE__LL_DEV},
    {"/dev/urandom", PATHGATE__LL_READ | PATHGATE__LL_DEV},
};

/* Read-only /etc entries, relative to /etc. A trailing `*` matches a
 * prefix (python3.11, ...). An entry with `/` is opened when /etc holds
 * its first component. */
static const char *const etc_entries[] = {
    "alternatives", "bash.bashrc", "ca-certificates", "ca-certificates.conf", "debian_version",
    "gai.conf", "gitconfig", "group", "host.conf", "hostname", "hosts", "inputrc",
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ld.so.preload", "locale.alias", "locale.conf",
    "localtime", "magic", "magic.mime", "mime.types", "nsswitch.conf", "os-release", "passwd",
    "perl", "pki/tls/certs", "profile", "protocols", "python3", "python3.*", "resolv.conf",
    "rpc", "services", "shells", "ssl/certs", "ssl/openssl.cnf", "terminfo", "timezone",
    "vim", "xattr.conf", "zsh",
};

/* The raw record getdents64 fills (no libc allocation, unlike opendir). */
struct pg_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static void allow_path(int ruleset, int abi, int dirfd, const char *path, unsigned int classes)
{
    /* Following symlinks on purpose: /etc/resolv.conf or /etc/localtime
     * may point elsewhere, and the rule must land on what the command
     * will open. Failures only mean less access. */
    int fd = openat(dirfd, path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return;
    (void)pathgate__landlock_allow(ruleset, abi, fd, classes);
    close(fd);
}

/* 1 when the /etc entry `name` (a directory entry) selects table entry e. */
static int etc_match(const char *name, const char *e)
{
    size_t n = strlen(name);
    size_t elen = strlen(e);
    if (elen && e[elen - 1] == '*')
        return n >= elen - 1 && memcmp(name, e, elen - 1) == 0;
    return strncmp(e, name, n) == 0 && (e[n] == '\0' || e[n] == '/');
}

static void allow_etc(int ruleset, int abi)
{
    int etc = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (etc < 0)
        return;
    _Alignas(struct pg_dirent64) char buf[8192];
    for (;;) {
        long n = syscall(SYS_getdents64, etc, buf, sizeof buf);
        if (n <= 0)
            break;
        for (long off = 0; off < n;) {
            const struct pg_dirent64 *d = (const struct pg_dirent64 *)(buf + off);
            off += d->d_reclen;
            if (d->d_name[0] == '.')
                continue;
            for (size_t i = 0; i < sizeof etc_entries / sizeof etc_entries[0]; i++) {
                if (!etc_match(d->d_name, etc_entries[i]))
                    continue;
                const char *e = etc_entries[i];
                allow_path(ruleset, abi, etc, e[strlen(e) - 1] == '*' ? d->d_name : e,
                           PATHGATE__LL_READ);
            }
        }
    }
    close(etc);
}

int pathgate__exec_sandbox_build(int *out, int abi, int deny_tcp,
                                 const pathgate__exec_grant *grants, size_t ngrants,
                                 pathgate_error *err)
{
    *out = -1;
    int rs = pathgate__landlock_ruleset(abi, deny_tcp);
    if (rs < 0)
        return pathgate__error_set(err, PATHGATE_EIO, "cannot create the Landlock ruleset: %s",
                                   strerrordesc_np(-rs));
    for (size_t i = 0; i < ngrants; i++) {
        int rc = pathgate__landlock_allow(rs, abi, grants[i].fd, grants[i].classes);
        if (rc < 0) {
            close(rs);
            return pathgate__error_set(err, PATHGATE_EIO, "cannot add a Landlock rule: %s",
                                       strerrordesc_np(-rc));
        }
    }
    for (size_t i = 0; i < sizeof system_paths / sizeof system_paths[0]; i++)
        allow_path(rs, abi, AT_FDCWD, system_paths[i].path, system_paths[i].classes);
    allow_etc(rs, abi);
    *out = rs;
    return PATHGATE_OK;
}
