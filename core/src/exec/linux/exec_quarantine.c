/* exec_quarantine.c - protected names a command planted, moved out of
 * the base when it ends (exec_quarantine.h, docs/exec.md "Planted
 * links"). The quarantine is a directory outside every base:
 *
 *   <dir>/<YYYYmmddTHHMMSSZ>-<8 hex>/<k>/address    the canonical address
 *                                        kind       "symlink" / "hard_link"
 *                                        host_path  where it was (operator)
 *                                        target     a symlink's target
 *                                        data       a hard link's bytes
 *
 * (raw bytes, one file per field: a name or a link target may hold any
 * byte). `pathgate quarantine list|restore` reads it. */
#define _GNU_SOURCE
#include "exec_quarantine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "exec_view.h"
#include "fs_file.h"
#include "resolver_policy.h"
#include "resolver_internal.h"
#include "strbuf.h"

enum { PLANT_SYMLINK = 1, PLANT_HARD_LINK = 2 };

typedef struct plant {
    size_t base;
    uint32_t rel; /* offset in the scan's names */
    int kind;
    const char *rule, *source;
} plant;

typedef struct scan {
    pathgate_resolver *r;
    const pathgate__exec_masks *start;
    size_t base;
    char view_dir[4200];
    pathgate__sb names; /* rel\0 of each plant */
    plant *v;
    size_t n, cap;
    size_t walked;
    int failed; /* a PATHGATE_E* code */
} scan;

/* 1 when base's rel was among the start's protected entries. */
static int at_start(const scan *s, const char *rel)
{
    const pathgate__exec_masks *m = s->start;
    for (size_t i = 0; m && i < m->n; i++)
        if (m->v[i].kind != PATHGATE__MASK_PIN && strcmp(m->buf + m->v[i].rel, rel) == 0 &&
            strcmp(m->buf + m->v[i].dir, s->view_dir) == 0)
            return 1;
    return 0;
}

static int add_plant(scan *s, const char *rel, int kind, const pathgate_policy_verdict *v)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        plant *nv = pathgate__realloc(pathgate__resolver_allocator(s->r), s->v, cap * sizeof *nv);
        if (!nv) {
            s->failed = PATHGATE_ENOMEM;
            return -ENOMEM;
        }
        s->v = nv;
        s->cap = cap;
    }
    size_t at = s->names.len;
    pathgate__sb_put(&s->names, rel, strlen(rel) + 1);
    if (s->names.oom) {
        s->failed = PATHGATE_ENOMEM;
        return -ENOMEM;
    }
    s->v[s->n++] = (plant){s->base, (uint32_t)at, kind, v ? v->rule : NULL, v ? v->source : NULL};
    return 0;
}

/* A link's kind, or 0 for anything else. */
static int link_kind(const struct stat *st)
{
    if (S_ISLNK(st->st_mode))
        return PLANT_SYMLINK;
    if (S_ISREG(st->st_mode) && st->st_nlink > 1)
        return PLANT_HARD_LINK;
    return 0;
}

/* The links inside a protected directory that was not there at the
 * start (rel, open as fd): each is planted. */
static int walk_new_dir(scan *s, int fd, char *rel, size_t len, int depth,
                        const pathgate_policy_verdict *v)
{
    if (depth > 32)
        return 0;
    int dfd = dup(fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return 0;
    }
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (++s->walked > PATHGATE__QUARANTINE_WALK_MAX)
            break;
        size_t nl = strlen(e->d_name);
        if (len + 1 + nl > PATHGATE_PATH_MAX)
            continue;
        struct stat st;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        rel[len] = '/';
        memcpy(rel + len + 1, e->d_name, nl + 1);
        int kind = link_kind(&st);
        if (kind) {
            rc = add_plant(s, rel, kind, v);
        } else if (S_ISDIR(st.st_mode)) {
            int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                rc = walk_new_dir(s, sub, rel, len + 1 + nl, depth + 1, v);
                close(sub);
            }
        }
        rel[len] = '\0';
    }
    closedir(d);
    return rc;
}

static int on_protected(void *ctx, const char *sub, size_t sub_len, int is_dir, unsigned int denied,
                        const pathgate_policy_verdict *v)
{
    (void)is_dir;
    (void)denied;
    scan *s = ctx;
    char rel[PATHGATE_PATH_MAX + 1];
    if (sub_len > PATHGATE_PATH_MAX)
        return 0;
    memcpy(rel, sub, sub_len);
    rel[sub_len] = '\0';
    if (at_start(s, rel))
        return 0; /* there before the command: not its plant */
    int bfd = pathgate__resolver_base_fd(s->r, s->base);
    struct stat st;
    if (fstatat(bfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0;
    int kind = link_kind(&st);
    if (kind)
        return add_plant(s, rel, kind, v);
    if (!S_ISDIR(st.st_mode))
        return 0;
    int fd = openat(bfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int rc = walk_new_dir(s, fd, rel, sub_len, 0, v);
    close(fd);
    return rc;
}

/* -------------------------------------------------------- the quarantine */

/* mkdir -p of path (mode 0700 for what it makes). 0 or -errno. */
static int make_dirs(char *path)
{
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        int rc = mkdir(path, 0700);
        int e = errno;
        *p = c;
        if (rc < 0 && e != EEXIST)
            return -e;
        if (!c)
            return 0;
    }
}

/* 1 when the directory open as fd is, or lies inside, a base of r. */
static int inside_a_base(const pathgate_resolver *r, int fd)
{
    int cur = dup(fd);
    for (int depth = 0; cur >= 0 && depth < 256; depth++) {
        struct stat st, up;
        if (fstat(cur, &st) < 0)
            break;
        for (size_t i = 0; i < pathgate__resolver_base_count(r); i++) {
            struct stat b;
            if (fstat(pathgate__resolver_base_fd(r, i), &b) == 0 && b.st_dev == st.st_dev &&
                b.st_ino == st.st_ino) {
                close(cur);
                return 1;
            }
        }
        int parent = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        close(cur);
        cur = parent;
        if (cur < 0 || fstat(cur, &up) < 0 || (up.st_dev == st.st_dev && up.st_ino == st.st_ino))
            break; /* the root */
    }
    if (cur >= 0)
        close(cur);
    return 0;
}

/* The quarantine's directory for this call (made at its first plant), as
 * an fd, or -1 when none can be made outside every base. */
static int open_quarantine(const pathgate_resolver *r)
{
    char root[PATH_MAX];
    const char *env = secure_getenv(PATHGATE__QUARANTINE_ENV);
    const char *state = secure_getenv("XDG_STATE_HOME");
    const char *home = secure_getenv("HOME");
    int n;
    if (env && env[0] == '/')
        n = snprintf(root, sizeof root, "%s", env);
    else if (state && state[0] == '/')
        n = snprintf(root, sizeof root, "%s/pathgate/quarantine", state);
    else if (home && home[0] == '/')
        n = snprintf(root, sizeof root, "%s/.local/state/pathgate/quarantine", home);
    else
        return -1;
    if (n <= 0 || (size_t)n >= sizeof root || make_dirs(root) < 0)
        return -1;
    int qfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (qfd < 0)
        return -1;
    if (inside_a_base(r, qfd)) {
        close(qfd);
        return -1; /* never inside a root: the sandbox could reach it */
    }
    char id[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    unsigned int rnd = 0;
    for (int tries = 0; tries < 16; tries++) {
        if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
            rnd = (unsigned int)getpid() * 2654435761u + (unsigned int)tries;
        size_t k = strftime(id, sizeof id, "%Y%m%dT%H%M%SZ", &tm);
        snprintf(id + k, sizeof id - k, "-%08x", rnd);
        if (mkdirat(qfd, id, 0700) == 0) {
            int fd = openat(qfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            close(qfd);
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    close(qfd);
    return -1;
}

static int put_file(int dirfd, const char *name, const char *p, size_t len)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    int rc = pathgate__fs_write_all(fd, p, len);
    close(fd);
    return rc;
}

static int copy_into(int dirfd, const char *name, int src)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    char buf[65536];
    ssize_t got;
    int rc = 0;
    while (!rc && (got = read(src, buf, sizeof buf)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            break;
        }
        rc = pathgate__fs_write_all(fd, buf, (size_t)got);
    }
    close(fd);
    return rc;
}

/* The directory holding base's rel, walked one name at a time without
 * following a symlink; *name points at rel's last name. fd or -errno. */
static int open_parent(int bfd, char *rel, const char **name)
{
    char *slash = strrchr(rel, '/');
    if (!slash) {
        *name = rel;
        return fcntl(bfd, F_DUPFD_CLOEXEC, 3);
    }
    *slash = '\0';
    *name = slash + 1;
    int cur = fcntl(bfd, F_DUPFD_CLOEXEC, 3);
    char *save = NULL;
    for (char *c = strtok_r(rel, "/", &save); c && cur >= 0; c = strtok_r(NULL, "/", &save)) {
        int next = openat(cur, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(cur);
        cur = next;
    }
    return cur >= 0 ? cur : -errno;
}

/* Saves one plant into the quarantine directory qfd (-1: none) as entry
 * k, then removes it from the base. 1 quarantined, 0 removed (no
 * quarantine), -errno. */
static int take(const pathgate_resolver *r, int qfd, unsigned int k, const plant *p,
                const char *rel, const char *address)
{
    char path[PATHGATE_PATH_MAX + 1];
    snprintf(path, sizeof path, "%s", rel);
    const char *name;
    int dfd = open_parent(pathgate__resolver_base_fd(r, p->base), path, &name);
    if (dfd < 0)
        return dfd;
    struct stat st;
    int rc = 0, saved = 0;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || link_kind(&st) != p->kind) {
        close(dfd);
        return -ENOENT; /* changed since: left to the next call's check */
    }
    char kdir[16];
    snprintf(kdir, sizeof kdir, "%u", k);
    int efd = -1;
    if (qfd >= 0 && mkdirat(qfd, kdir, 0700) == 0)
        efd = openat(qfd, kdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (efd >= 0) {
        const char *kind = p->kind == PLANT_SYMLINK ? "symlink" : "hard_link";
        const char *host = pathgate__resolver_base_host_path(r, p->base);
        char hp[2 * PATHGATE_PATH_MAX + 2];
        int hn = snprintf(hp, sizeof hp, "%s/%s", host ? host : "", rel);
        rc = put_file(efd, "address", address, strlen(address));
        if (!rc)
            rc = put_file(efd, "kind", kind, strlen(kind));
        if (!rc && hn > 0 && (size_t)hn < sizeof hp)
            rc = put_file(efd, "host_path", hp, (size_t)hn);
        if (!rc && p->kind == PLANT_SYMLINK) {
            char target[PATHGATE_PATH_MAX + 1];
            ssize_t tl = readlinkat(dfd, name, target, sizeof target);
            rc = tl < 0 ? -errno : put_file(efd, "target", target, (size_t)tl);
        } else if (!rc) {
            int src = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
            rc = src < 0 ? -errno : copy_into(efd, "data", src);
            if (src >= 0)
                close(src);
        }
        close(efd);
        saved = !rc;
    }
    /* Removed either way: a symlink or a second name loses nothing of
     * what the user owns (the target, the other name, stay). */
    if (unlinkat(dfd, name, 0) < 0)
        rc = -errno;
    else
        rc = 0;
    close(dfd);
    return rc < 0 ? rc : saved;
}

int pathgate__exec_quarantine(pathgate_exec_result *out, pathgate_resolver *r,
                              const pathgate__exec_masks *start, pathgate_error *err)
{
    const pathgate__policy *pol = pathgate__policy_of(r);
    const pathgate_allocator *alloc = pathgate__resolver_allocator(r);
    scan s;
    memset(&s, 0, sizeof s);
    s.r = r;
    s.start = start;
    s.names = (pathgate__sb)PATHGATE__SB_INIT(alloc);
    size_t n = pathgate__resolver_base_count(r);
    for (size_t i = 0; pol && i < n; i++) {
        if (!pathgate__policy_active(pol, i) ||
            (pathgate__resolver_base_flags(r, i) & PATHGATE_BASE_READ_ONLY))
            continue;
        if (pathgate__exec_view_base_dir(s.view_dir, sizeof s.view_dir,
                                         pathgate__resolver_base_address(r, i)))
            continue;
        s.base = i;
        s.walked = 0;
        pathgate__policy_enumerate(r, i, on_protected, &s); /* (unreadable: not ours to judge) */
        if (s.failed)
            break;
    }
    int rc = PATHGATE_OK;
    if (s.failed) {
        rc = pathgate__error_set(err, s.failed, NULL);
        goto done;
    }
    pathgate__sb list = PATHGATE__SB_INIT(alloc);
    int qfd = s.n ? open_quarantine(r) : -1;
    for (size_t k = 0; k < s.n; k++) {
        const plant *p = &s.v[k];
        const char *rel = s.names.p + p->rel;
        const char *base = pathgate__resolver_base_address(r, p->base);
        char address[PATHGATE_PATH_MAX + 300];
        snprintf(address, sizeof address, "%s/%s", base, rel);
        int t = take(r, qfd, (unsigned int)k, p, rel, address);
        if (t < 0 && t != -ENOENT && !rc)
            rc = pathgate__error_set(err, PATHGATE_EIO,
                                     "a link the command left at a protected name (%s) cannot "
                                     "be removed: %s",
                                     address, strerrordesc_np(-t));
        if (t < 0)
            continue;
        pathgate__sb_put(&list, address, strlen(address) + 1);
        out->nquarantined++;
        if (pathgate__audit_enabled(r)) {
            size_t bi;
            const char *arel;
            pathgate__audit_rec rec;
            memset(&rec, 0, sizeof rec);
            rec.operation = "execute";
            rec.address = address;
            rec.outcome = t ? "quarantined" : "removed";
            rec.reason = p->kind == PLANT_SYMLINK ? "symlink" : "hard_link";
            rec.rule = p->rule;
            rec.source = p->source;
            rec.exit_status = -1;
            if (pathgate__resolver_split(&bi, &arel, r, address, strlen(address)) == 0) {
                rec.has_base = 1;
                rec.base = bi;
                rec.rel = arel;
            }
            pathgate__audit_emit(r, &rec);
        }
    }
    if (qfd >= 0)
        close(qfd);
    if (list.oom) {
        pathgate__sb_free(&list);
        if (!rc)
            rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    } else if (list.len && pathgate__sb_to_buf(&list, &out->quarantined) != 0 && !rc) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    } else if (!list.len) {
        pathgate__sb_free(&list);
    }
done:
    pathgate__sb_free(&s.names);
    pathgate__free(alloc, s.v);
    return rc;
}
