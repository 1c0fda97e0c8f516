/* exec_tool.c - the toolchains of the host shown to a command
 * (exec_tool.h). */
#define _GNU_SOURCE
#include "exec_tool.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_etc.h"
#include "os.h"
#include "strbuf.h"

/* The view's own entries: a toolchain at its host path may not be one,
 * hold one or lie in one. */
static const char *const view_entries[] = {
    "/pathgate", "/usr", "/bin", "/sbin", "/lib",     "/lib32", "/lib64",
    "/libx32",   "/etc", "/dev", "/tmp",  "/var/tmp", "/proc",  "/var/lib/pathgate"};

/* 1 when a and b are the same path or one lies beneath the other. */
static int overlap(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t l = la < lb ? la : lb;
    if (strncmp(a, b, l) != 0)
        return 0;
    if (la == lb)
        return 1;
    /* "/" is an ancestor of everything */
    return l == 1 || (la < lb ? b[la] : a[lb]) == '/';
}

/* text as an absolute path without `.`, `..` or empty components (and
 * no trailing `/`) into buf. -1 when it cannot be one. */
static int normalise(char *buf, size_t cap, const char *text)
{
    if (text[0] != '/')
        return -1;
    size_t o = 0;
    for (const char *c = text; *c;) {
        while (*c == '/')
            c++;
        const char *e = strchrnul(c, '/');
        size_t l = (size_t)(e - c);
        if (!l)
            break;
        if ((l == 1 && c[0] == '.') || (l == 2 && c[0] == '.' && c[1] == '.'))
            return -1;
        if (o + 1 + l + 1 > cap)
            return -1;
        buf[o++] = '/';
        memcpy(buf + o, c, l);
        o += l;
        c = e;
    }
    if (!o)
        buf[o++] = '/';
    buf[o] = '\0';
    return 0;
}

static int bad(pathgate_error *err, size_t i, const char *why)
{
    return pathgate__error_set(err, PATHGATE_EINVAL, "toolchains[%zu]: %s", i, why);
}

int pathgate__exec_tools_open(pathgate__exec_tools *out, const pathgate_allocator *alloc,
                              const char *const *list, int at_host_path, int base_home,
                              pathgate_error *err)
{
    /* the private home a toolchain at its host path must not meet: that
     * of the command's user (uid 0 for a root caller) */
    pathgate__exec_identity id;
    const char *view_home = NULL;
    if (at_host_path && !base_home) {
        pathgate__exec_identity_make(&id, geteuid() == 0 ? 0 : (unsigned)geteuid(),
                                     (unsigned)getegid(), NULL);
        view_home = id.home;
    }
    memset(out, 0, sizeof *out);
    pathgate__alloc_init(&out->alloc, alloc);
    alloc = &out->alloc;
    out->at_host_path = at_host_path;
    for (size_t i = 0; i < PATHGATE_EXEC_TOOLCHAINS_MAX; i++)
        out->t[i].fd = -1;
    size_t n = 0;
    while (list && list[n])
        n++;
    if (!n)
        return PATHGATE_OK;
    if (n > PATHGATE_EXEC_TOOLCHAINS_MAX)
        return pathgate__error_set(err, PATHGATE_EINVAL, "toolchains: more than %d entries",
                                   PATHGATE_EXEC_TOOLCHAINS_MAX);
    pathgate__sb path = PATHGATE__SB_INIT(alloc), key = PATHGATE__SB_INIT(alloc);
    int rc = PATHGATE_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        char norm[PATHGATE_PATH_MAX], real[PATHGATE_PATH_MAX], link[32],
            dst[PATHGATE_PATH_MAX + 32];
        if (strlen(list[i]) >= sizeof norm) {
            rc = pathgate__error_set(err, PATHGATE_ETOOLONG, "toolchains[%zu]: too long", i);
            break;
        }
        if (normalise(norm, sizeof norm, list[i]) != 0) {
            rc = bad(err, i, "not an absolute path without '.' or '..' components");
            break;
        }
        if (!strcmp(norm, "/")) {
            rc = bad(err, i, "the filesystem root cannot be a toolchain");
            break;
        }
        int fd = open(norm, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            rc = bad(err, i, "not an existing directory");
            break;
        }
        out->t[out->n++].fd = fd;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t rl = readlink(link, real, sizeof real - 1);
        if (rl <= 0 || (size_t)rl >= sizeof real - 1 || real[0] != '/') {
            rc = bad(err, i, "not an existing directory");
            break;
        }
        real[rl] = '\0';
        if (!strcmp(real, "/")) {
            rc = bad(err, i, "the filesystem root cannot be a toolchain");
            break;
        }
        if (pathgate__os_host_holds_home(real)) {
            rc = bad(err, i, "a home directory, or an ancestor of one, cannot be a toolchain");
            break;
        }
        if (at_host_path) {
            snprintf(dst, sizeof dst, "%s", norm);
            /* (no `/root:<key>` spelling, nor a PATH entry, can hold ':') */
            if (strchr(norm, ':')) {
                rc = bad(err, i, "a toolchain at its host path cannot have ':' in its path");
                break;
            }
            for (size_t k = 0; !rc && k < sizeof view_entries / sizeof view_entries[0]; k++)
                if (overlap(norm, view_entries[k]))
                    rc = bad(err, i,
                             "at its host path it would meet the view's own entries (its "
                             "system directories, /etc, /dev, /proc, the temporary "
                             "directories, /pathgate): use the default place");
            if (!rc && view_home && overlap(norm, view_home))
                rc = bad(err, i,
                         "at its host path it would meet the command's private home directory "
                         "(which would hide it): set the home option to a directory of a "
                         "writable base, or use the default place");
        } else {
            const char *name = strrchr(norm, '/') + 1;
            if (strchr(name, ':')) {
                rc = bad(err, i, "a toolchain's last path component cannot have ':'");
                break;
            }
            snprintf(dst, sizeof dst, PATHGATE__VIEW_TOOLS "/%s", name);
        }
        for (size_t k = 0; !rc && k + 1 < out->n; k++)
            if (overlap(out->t[k].dst, dst))
                rc = bad(err, i,
                         at_host_path ? "it is, holds or lies in another toolchain"
                                      : "another toolchain has the same last path component");
        if (rc)
            break;
        if (!(out->t[out->n - 1].dst = pathgate__strndup(alloc, dst, strlen(dst)))) {
            rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
            break;
        }
        struct stat st;
        if (fstat(fd, &st) < 0) {
            rc = bad(err, i, "not an existing directory");
            break;
        }
        pathgate__sb_printf(&key, "%s\n%llu:%llu\n", dst, (unsigned long long)st.st_dev,
                            (unsigned long long)st.st_ino);
        /* its bin first in PATH (not followed: a link could name the host) */
        if (fstatat(fd, "bin", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            pathgate__sb_printf(&path, "%s/bin:", dst);
    }
    if (!rc && (path.oom || key.oom))
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (!rc) { /* (owned now: freed with the allocator) */
        out->path = path.p;
        out->key = key.p;
        path.p = key.p = NULL;
    }
    pathgate__sb_free(&path);
    pathgate__sb_free(&key);
    return rc;
}

int pathgate_exec_check_toolchains(const char *const *list, int at_host_path, int base_home,
                                   pathgate_error *err)
{
    pathgate__exec_tools t;
    int rc = pathgate__exec_tools_open(&t, NULL, list, at_host_path, base_home, err);
    pathgate__exec_tools_dispose(&t);
    return rc;
}

void pathgate__exec_tools_dispose(pathgate__exec_tools *t)
{
    if (!t->alloc.free) /* (disposed already) */
        return;
    for (size_t i = 0; i < t->n; i++) {
        if (t->t[i].fd >= 0)
            close(t->t[i].fd);
        pathgate__free(&t->alloc, t->t[i].dst);
    }
    pathgate__free(&t->alloc, t->path);
    pathgate__free(&t->alloc, t->key);
    memset(t, 0, sizeof *t);
}
