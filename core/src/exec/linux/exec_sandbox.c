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
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "exec_landlock.h"

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

/* Read-only /etc entries, opened by name (a missing one costs a failed
 * lookup of ~1 us; listing /etc instead costs far more on ext4). */
static const char *const etc_entries[] = {
    "gai.conf",    "gitconfig", "group",         "host.conf",       "hosts",
    "ld.so.cache", "localtime", "nsswitch.conf", "passwd",          "protocols",
    "resolv.conf", "services",  "ssl/certs",     "ssl/openssl.cnf", "timezone",
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

static void allow_etc(int ruleset, int abi)
{
    int etc = open("/etc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (etc < 0)
        return;
    for (size_t i = 0; i < sizeof etc_entries / sizeof etc_entries[0]; i++)
        allow_path(ruleset, abi, etc, etc_entries[i], PATHGATE__LL_READ);
    close(etc);
}

int pathgate__exec_sandbox_build(int *out, int abi, int deny_tcp,
                                 const pathgate__exec_grant *grants, size_t ngrants,
                                 const pathgate__exec_grant *system, size_t nsystem,
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
    if (system) {
        for (size_t i = 0; i < nsystem; i++)
            (void)pathgate__landlock_allow(rs, abi, system[i].fd, system[i].classes);
    } else {
        for (size_t i = 0; i < sizeof system_paths / sizeof system_paths[0]; i++)
            allow_path(rs, abi, AT_FDCWD, system_paths[i].path, system_paths[i].classes);
        allow_etc(rs, abi);
    }
    *out = rs;
    return PATHGATE_OK;
}
