/*
 * os_common.c - the parts of os.h that the POSIX backend and the Linux
 * backend make with the same POSIX 2008 calls (openat, the changes of one
 * name, a stat from struct stat, read/write copies, /dev/urandom, the
 * processor count, realpath, the home directories), written once. Compiled in both builds with
 * -std=c11 -D_POSIX_C_SOURCE=200809L.
 */
#define _XOPEN_SOURCE 700 /* realpath: the X/Open System Interfaces of POSIX 2008 */
#include "os_common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"

pathgate__os_fd pathgate__os_openat(pathgate__os_fd dirfd, const char *name, int open_flags,
                                    unsigned int mode)
{
    int fd = openat(dirfd, name, open_flags | O_CLOEXEC, (mode_t)mode);
    return fd >= 0 ? fd : -errno;
}

/* ------------------------------------------------------------------ stat */

unsigned int pathgate__os_type_of(unsigned int m)
{
    return S_ISREG(m)   ? PATHGATE__OS_T_REG
           : S_ISDIR(m) ? PATHGATE__OS_T_DIR
           : S_ISLNK(m) ? PATHGATE__OS_T_LNK
                        : PATHGATE__OS_T_OTHER;
}

void pathgate__os_stat_of(pathgate__os_stat *out, const struct stat *st)
{
    memset(out, 0, sizeof *out);
    out->type = pathgate__os_type_of((unsigned int)st->st_mode);
    out->mode = st->st_mode & 07777;
    out->size = (uint64_t)st->st_size;
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->nlink = (uint64_t)st->st_nlink;
    out->atime_sec = st->st_atim.tv_sec;
    out->atime_nsec = st->st_atim.tv_nsec;
    out->mtime_sec = st->st_mtim.tv_sec;
    out->mtime_nsec = st->st_mtim.tv_nsec;
    out->ctime_sec = st->st_ctim.tv_sec;
    out->ctime_nsec = st->st_ctim.tv_nsec;
    out->has_btime = 0; /* not in POSIX (macOS's st_birthtimespec: docs/porting) */
}

/* ------------------------------------------------------------ directories */

int pathgate__os_dir_rewind(pathgate__os_fd fd)
{
    return lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0;
}

/* ------------------------------------------------------------- changes */

int pathgate__os_mkdirat(pathgate__os_fd dirfd, const char *name, unsigned int mode)
{
    return mkdirat(dirfd, name, (mode_t)mode) < 0 ? -errno : 0;
}

int pathgate__os_unlinkat(pathgate__os_fd dirfd, const char *name, unsigned int flags)
{
    return unlinkat(dirfd, name, (flags & PATHGATE__OS_REMOVE_DIR) ? AT_REMOVEDIR : 0) < 0 ? -errno
                                                                                           : 0;
}

int pathgate__os_linkat(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                        const char *newname)
{
    return linkat(olddir, oldname, newdir, newname, 0) < 0 ? -errno : 0;
}

int pathgate__os_symlinkat(const char *target, pathgate__os_fd dirfd, const char *name)
{
    return symlinkat(target, dirfd, name) < 0 ? -errno : 0;
}

void pathgate__os_utime_specs(struct timespec ts[2], const int64_t times[4])
{
    for (int i = 0; i < 2; i++) {
        long ns = times ? (long)times[2 * i + 1] : PATHGATE__OS_UTIME_NOW;
        ts[i].tv_sec = times ? (time_t)times[2 * i] : 0;
        ts[i].tv_nsec = ns == PATHGATE__OS_UTIME_OMIT  ? UTIME_OMIT
                        : ns == PATHGATE__OS_UTIME_NOW ? UTIME_NOW
                                                       : ns;
    }
}

/* ------------------------------------------------------ files and bytes */

#define COPY_BUF 65536

int pathgate__os_copy_rw(int out, int in, off_t off, const pathgate_allocator *a)
{
    char *buf = pathgate__malloc(a, COPY_BUF);
    if (!buf)
        return -ENOMEM;
    int rc = 0;
    for (;;) {
        ssize_t r = pread(in, buf, COPY_BUF, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rc = r < 0 ? -errno : 0;
            break;
        }
        off += r;
        for (ssize_t done = 0; done < r;) {
            ssize_t w = write(out, buf + done, (size_t)(r - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                rc = -errno;
                break;
            }
            done += w;
        }
        if (rc)
            break;
    }
    pathgate__free(a, buf);
    return rc;
}

int pathgate__os_urandom(unsigned char *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    return got == n ? 0 : -EIO;
}

unsigned int pathgate__os_ncpu(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN); /* not POSIX, but on every POSIX system */
    return n < 1 ? 1u : (unsigned int)n;
}

int pathgate__os_realpath(const char *path, char *out, size_t cap)
{
    char buf[PATH_MAX];
    if (!realpath(path, buf))
        return -errno;
    if (strlen(buf) >= cap)
        return -ENAMETOOLONG;
    strcpy(out, buf);
    return 0;
}

/* ------------------------------------------------------ home directories */

/* 1 when dir is home, 2 when it is an ancestor of home, else 0 (both
 * absolute; a home at `/` is no home). */
static int home_rel(const char *dir, const char *home)
{
    size_t ld = strlen(dir), lh = strlen(home);
    while (lh > 1 && home[lh - 1] == '/')
        lh--;
    if (home[0] != '/' || lh == 1 || ld > lh || strncmp(dir, home, ld) != 0)
        return 0;
    if (ld == lh)
        return 1;
    return ld == 1 || home[ld] == '/' ? 2 : 0;
}

/* home_rel of home as given, else as resolved. */
static int home_rel_real(const char *dir, const char *home)
{
    int rel = home_rel(dir, home);
    char buf[PATH_MAX];
    if (!rel && home[0] == '/' && realpath(home, buf))
        rel = home_rel(dir, buf);
    return rel;
}

int pathgate__os_host_holds_home(const char *real)
{
    const char *env = getenv("HOME");
    int rel = env ? home_rel_real(real, env) : 0;
    char buf[4096];
    struct passwd pw, *me = NULL;
    if (!rel && getpwuid_r(getuid(), &pw, buf, sizeof buf, &me) == 0 && me && me->pw_dir)
        rel = home_rel_real(real, me->pw_dir);
    FILE *f = rel ? NULL : fopen("/etc/passwd", "r");
    if (!f)
        return rel;
    /* name:password:uid:gid:gecos:home:shell, a line each */
    char *line = NULL;
    size_t cap = 0;
    while (!rel && getline(&line, &cap, f) > 0) {
        char *home = line;
        for (int field = 0; field < 5 && home; field++)
            if ((home = strchr(home, ':')))
                home++;
        if (!home)
            continue;
        home[strcspn(home, ":\n")] = '\0';
        rel = home_rel_real(real, home);
    }
    free(line);
    fclose(f);
    return rel;
}
