/* exec_vcs.c - the git pointers of the `vcs` preset in a command
 * (exec_policy.h, docs/policy.md "vcs"): `.git` files, `HEAD`,
 * `commondir` and a linked worktree's `gitdir` stay writable in the view
 * (commit, checkout and `git worktree add` write them), are noted when the
 * command starts and validated by content when it ends. One the command
 * made or changed that does not hold what git itself writes there is put
 * back as it was at the start (removed when it did not exist), and the
 * command's result and an audit event say so. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "address.h"
#include "alloc.h"
#include "os.h"
#include "exec_policy.h"
#include "exec_view.h"
#include "policy_presets.h"
#include "resolver_policy.h"
#include "resolver_internal.h"

/* What a pointer is read into: larger is never a valid pointer. */
#define PTR_DATA_MAX 4096

enum { T_NONE = 0, T_REG, T_DIR, T_LINK, T_OTHER };

typedef struct state {
    int type;
    mode_t mode;
    nlink_t nlink;
    size_t len; /* of data; PTR_DATA_MAX + 1: too large */
    char data[PTR_DATA_MAX + 1];
} state;

/* The entry rel of base now (never following a final symlink). */
static void read_state(state *s, int base_fd, const char *rel)
{
    memset(s, 0, offsetof(state, data));
    struct stat st;
    if (fstatat(base_fd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return;
    s->mode = st.st_mode & 07777;
    s->nlink = st.st_nlink;
    if (S_ISDIR(st.st_mode)) {
        s->type = T_DIR;
    } else if (S_ISLNK(st.st_mode)) {
        s->type = T_LINK;
        ssize_t n = readlinkat(base_fd, rel, s->data, PTR_DATA_MAX);
        s->len = n < 0 ? 0 : (size_t)n;
    } else if (S_ISREG(st.st_mode)) {
        s->type = T_REG;
        if (st.st_size > PTR_DATA_MAX) {
            s->len = PTR_DATA_MAX + 1;
            return;
        }
        int fd = openat(base_fd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
            s->type = T_OTHER;
            return;
        }
        size_t got = 0;
        while (got <= PTR_DATA_MAX) {
            ssize_t n = read(fd, s->data + got, PTR_DATA_MAX + 1 - got);
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        close(fd);
        s->len = got;
    } else {
        s->type = T_OTHER;
    }
}

/* Appends [s, s+len) with a NUL to m->buf: the offset or -1. */
static long put_bytes(pathgate__exec_masks *m, const char *s, size_t len)
{
    if (m->len + len + 1 > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + len + 1)
            cap *= 2;
        if (cap > UINT32_MAX)
            return -1;
        char *nb = pathgate__realloc(m->alloc, m->buf, cap);
        if (!nb)
            return -1;
        m->buf = nb;
        m->cap = cap;
    }
    size_t at = m->len;
    memcpy(m->buf + at, s, len);
    m->buf[at + len] = '\0';
    m->len += len + 1;
    return (long)at;
}

int pathgate__exec_ptr_note(pathgate__exec_masks *m, const pathgate_resolver *r, size_t base,
                            const char *rel, size_t len, int kind)
{
    if (m->nptr == PATHGATE__EXEC_MASKS_MAX)
        return -E2BIG;
    if (m->nptr == m->nptrcap) {
        size_t cap = m->nptrcap ? m->nptrcap * 2 : 8;
        pathgate__exec_ptr *nv = pathgate__realloc(m->alloc, m->ptr, cap * sizeof *nv);
        if (!nv)
            return -ENOMEM;
        m->ptr = nv;
        m->nptrcap = cap;
    }
    state *s = pathgate__malloc(m->alloc, sizeof *s);
    if (!s)
        return -ENOMEM;
    long at = put_bytes(m, rel, len);
    read_state(s, pathgate__resolver_base_fd(r, base), m->buf + (at < 0 ? 0 : at));
    long data = at < 0 ? -1 : put_bytes(m, s->data, s->len > PTR_DATA_MAX ? 0 : s->len);
    pathgate__exec_ptr *p = &m->ptr[m->nptr];
    p->base = base;
    p->kind = (uint8_t)kind;
    p->type = (uint8_t)s->type;
    p->mode = s->mode;
    p->data_len = (uint32_t)s->len;
    pathgate__free(m->alloc, s);
    if (at < 0 || data < 0)
        return -ENOMEM;
    p->rel = (uint32_t)at;
    p->data = (uint32_t)data;
    m->nptr++;
    return 0;
}

/* ------------------------------------------------------- validation */

/* rel's directory part: its length (0: the base). */
static size_t dir_len(const char *rel, size_t len)
{
    while (len && rel[len - 1] != '/')
        len--;
    return len ? len - 1 : 0;
}

/* Joins dir (a rel) and a pointer's text into out, normalised (`.` and
 * `..` applied, never above the base). An absolute text must begin with
 * the base's view directory or host path. 0, or -1 when it leads out of
 * the base or cannot be read. */
static int resolve_target(char *out, size_t cap, const pathgate_resolver *r, size_t base,
                          const char *dir, size_t dlen, const char *t, size_t tlen)
{
    char tmp[2 * PATHGATE_PATH_MAX + 8];
    size_t n = 0;
    if (tlen && t[0] == '/') {
        char view[4200];
        const char *host = pathgate__resolver_base_host_path(r, base);
        size_t vl = 0, hl = host ? strlen(host) : 0;
        if (pathgate__exec_view_base_dir(view, sizeof view,
                                         pathgate__resolver_base_address(r, base)) == 0)
            vl = strlen(view);
        size_t skip = 0;
        if (vl && tlen >= vl && memcmp(t, view, vl) == 0 && (tlen == vl || t[vl] == '/'))
            skip = vl;
        else if (hl && tlen >= hl && memcmp(t, host, hl) == 0 && (tlen == hl || t[hl] == '/'))
            skip = hl;
        else
            return -1;
        t += skip;
        tlen -= skip;
    } else if (dlen) {
        if (dlen + 1 > sizeof tmp)
            return -1;
        memcpy(tmp, dir, dlen);
        tmp[dlen] = '/';
        n = dlen + 1;
    }
    if (n + tlen + 1 > sizeof tmp)
        return -1;
    memcpy(tmp + n, t, tlen);
    n += tlen;
    tmp[n] = '\0';
    return pathgate__rel_normalise(out, cap, tmp, n);
}

/* The pointer's text: the content without one trailing newline (and a
 * `\r` before it); -1 when it holds another line break or a NUL. */
static long one_line(const char *s, size_t len)
{
    if (len && s[len - 1] == '\n')
        len--;
    if (len && s[len - 1] == '\r')
        len--;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\n' || s[i] == '\r' || s[i] == '\0')
            return -1;
    return (long)len;
}

/* The names of path p (a normalised rel), as [off, len) pairs: their
 * count (at most max). */
static size_t split(const char *p, size_t *off, size_t *ln, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; p[i] && k < max;) {
        size_t e = i;
        while (p[e] && p[e] != '/')
            e++;
        off[k] = i;
        ln[k++] = e - i;
        i = p[e] ? e + 1 : e;
    }
    return k;
}

static int name_is(const char *p, size_t off, size_t len, const char *name)
{
    return len == strlen(name) && memcmp(p + off, name, len) == 0;
}

/* 1 when s holds what git writes in a HEAD: `ref: refs/<name>` or an
 * object id (SHA-1 or SHA-256). */
static int valid_head(const char *s, size_t len)
{
    long n = one_line(s, len);
    if (n < 0)
        return 0;
    if (n == 40 || n == 64) {
        for (long i = 0; i < n; i++)
            if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                return 0;
        return 1;
    }
    if (n < 10 || memcmp(s, "ref: refs/", 10) != 0)
        return 0;
    for (long i = 5; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7f || strchr("~^:?*[\\", c))
            return 0;
        if (c == '.' && i + 1 < n && s[i + 1] == '.')
            return 0;
    }
    return 1;
}

/* 1 when directory d (a rel) of base holds `name`. */
static int holds(int base_fd, const char *d, size_t dl, const char *name)
{
    char p[PATHGATE_PATH_MAX + 64];
    if (dl + 1 + strlen(name) + 1 > sizeof p)
        return 1; /* cannot tell: the stricter answer */
    int k =
        dl ? snprintf(p, sizeof p, "%.*s/%s", (int)dl, d, name) : snprintf(p, sizeof p, "%s", name);
    if (k < 0 || (size_t)k >= sizeof p)
        return 1;
    struct stat st;
    return fstatat(base_fd, p, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Why the regular file rel of base, holding s, is not a valid pointer of
 * kind; NULL when it is. */
static const char *invalid(const pathgate_resolver *r, size_t base, const char *rel, int kind,
                           const char *s, size_t len, int existed)
{
    int fd = pathgate__resolver_base_fd(r, base);
    size_t rl = strlen(rel), dl = dir_len(rel, rl);
    if (len > PTR_DATA_MAX)
        return "too large for a pointer";
    char target[PATHGATE_PATH_MAX + 1];
    size_t off[PATHGATE_PATH_MAX / 2 + 1], ln[PATHGATE_PATH_MAX / 2 + 1];
    switch (kind) {
    case PATHGATE__PTR_HEAD: {
        /* a git directory's HEAD (its directory is `.git`, or holds
         * objects or commondir, as git's own test asks) */
        size_t k = split(rel, off, ln, sizeof off / sizeof *off);
        int in_gitdir = (k >= 2 && name_is(rel, off[k - 2], ln[k - 2], ".git")) ||
                        holds(fd, rel, dl, "objects") || holds(fd, rel, dl, "commondir");
        if (in_gitdir)
            return valid_head(s, len) ? NULL : "a HEAD holds a ref or an object id";
        if (holds(fd, rel, dl, ".git"))
            return existed ? "a HEAD beside .git is not changed by a command"
                           : "a HEAD beside .git makes its directory a git directory";
        return NULL;
    }
    case PATHGATE__PTR_COMMONDIR: {
        long n = one_line(s, len);
        if (n <= 0 || resolve_target(target, sizeof target, r, base, rel, dl, s, (size_t)n) < 0)
            return "commondir leads out of the base";
        /* the git directory that holds it: the last `.git` of its path,
         * or (a submodule's gitdir) its own directory */
        size_t k = split(rel, off, ln, sizeof off / sizeof *off);
        for (size_t i = k; i-- > 0;) {
            if (name_is(rel, off[i], ln[i], ".git")) {
                size_t gl = off[i] + ln[i];
                if (strlen(target) == gl && memcmp(target, rel, gl) == 0)
                    return NULL;
                break;
            }
        }
        if (strlen(target) == dl && memcmp(target, rel, dl) == 0)
            return NULL;
        return "commondir names another directory than this repository's git directory";
    }
    case PATHGATE__PTR_GITDIR: {
        long n = one_line(s, len);
        if (n <= 0 || resolve_target(target, sizeof target, r, base, rel, dl, s, (size_t)n) < 0)
            return "gitdir leads out of the base";
        size_t k = split(target, off, ln, sizeof off / sizeof *off);
        if (k == 0 || !name_is(target, off[k - 1], ln[k - 1], ".git"))
            return "gitdir names no .git file";
        return NULL;
    }
    case PATHGATE__PTR_DOTGIT: {
        long n = one_line(s, len);
        if (n < 8 || memcmp(s, "gitdir: ", 8) != 0 ||
            resolve_target(target, sizeof target, r, base, rel, dl, s + 8, (size_t)n - 8) < 0)
            return "a .git file leads out of the base";
        /* into a repository's worktrees/<name> or modules/...: a git
         * directory whose configuration the preset protects */
        size_t k = split(target, off, ln, sizeof off / sizeof *off);
        for (size_t i = 0; i + 1 < k; i++) {
            if (!name_is(target, off[i], ln[i], ".git"))
                continue;
            if (i + 3 == k && name_is(target, off[i + 1], ln[i + 1], "worktrees")) {
                /* a linked worktree: its commondir must lead back */
                char cd[PATHGATE_PATH_MAX + 16];
                if (snprintf(cd, sizeof cd, "%s/commondir", target) >= (int)sizeof cd)
                    return "a .git file's target is too long";
                const pathgate_allocator *a = pathgate__resolver_allocator(r);
                state *st = pathgate__malloc(a, sizeof *st);
                if (!st)
                    return "out of memory";
                read_state(st, fd, cd);
                const char *why =
                    st->type != T_REG
                        ? "a linked worktree's git directory has no commondir"
                        : invalid(r, base, cd, PATHGATE__PTR_COMMONDIR, st->data, st->len, 1);
                pathgate__free(a, st);
                return why;
            }
            if (i + 2 < k && name_is(target, off[i + 1], ln[i + 1], "modules"))
                return NULL;
        }
        return "a .git file leads elsewhere than this repository's worktrees/ or modules/";
    }
    default:
        return NULL;
    }
}

/* ------------------------------------------------------------ the end */

typedef struct check {
    pathgate__exec_masks *m;
    const pathgate_resolver *r;
    size_t base;
    const char *prefix;
    size_t prefix_len;
    pathgate_exec_result *out;
    size_t fixed;
} check;

static void append(pathgate_exec_result *out, const pathgate_allocator *alloc, const char *line)
{
    pathgate_buf *b = &out->output;
    size_t n = strlen(line);
    const pathgate_allocator *a = b->alloc.malloc ? &b->alloc : alloc;
    char *nb = pathgate__realloc(a, b->ptr, b->len + n + 2);
    if (!nb)
        return;
    if (!b->ptr)
        b->alloc = *a;
    b->ptr = nb;
    memcpy(b->ptr + b->len, line, n);
    b->len += n;
    b->ptr[b->len] = '\0';
}

static void note(check *c, const char *line)
{
    append(c->out, c->m->alloc, line);
}

static const pathgate__exec_ptr *snapshot(const pathgate__exec_masks *m, size_t base,
                                          const char *rel)
{
    for (size_t i = 0; i < m->nptr; i++)
        if (m->ptr[i].base == base && strcmp(m->buf + m->ptr[i].rel, rel) == 0)
            return &m->ptr[i];
    return NULL;
}

/* Puts rel back as snapshot p says (removed when p is NULL or was no
 * file or link). 0 or -errno. */
static int put_back(const pathgate_resolver *r, size_t base, const char *rel,
                    const pathgate__exec_masks *m, const pathgate__exec_ptr *p)
{
    size_t rl = strlen(rel), dl = dir_len(rel, rl);
    char d[PATHGATE_PATH_MAX + 1];
    memcpy(d, rel, dl);
    d[dl] = '\0';
    const char *name = rel + (dl ? dl + 1 : 0);
    int dfd = pathgate__contain_open_how(pathgate__resolver_base_fd(r, base), d,
                                         O_RDONLY | O_DIRECTORY, 0, PATHGATE__CONTAIN_NO_LINKS);
    if (dfd < 0)
        return dfd;
    int rc = 0;
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        rc = unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
    if (rc == 0 && p && p->type == T_REG && p->data_len <= PTR_DATA_MAX) {
        int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        p->mode ? p->mode : 0644);
        if (fd < 0) {
            rc = -errno;
        } else {
            const char *s = m->buf + p->data;
            size_t left = p->data_len;
            while (left && rc == 0) {
                ssize_t w = write(fd, s, left);
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0)
                    rc = w < 0 ? -errno : -EIO;
                else {
                    s += w;
                    left -= (size_t)w;
                }
            }
            close(fd);
        }
    } else if (rc == 0 && p && p->type == T_LINK) {
        rc = symlinkat(m->buf + p->data, dfd, name) < 0 ? -errno : 0;
    }
    close(dfd);
    return rc;
}

static int on_end(void *ctx, const char *sub, size_t sub_len, int is_dir, unsigned int denied,
                  const pathgate_policy_verdict *v)
{
    check *c = ctx;
    int kind = pathgate__preset_pointer(v);
    if (!kind || (denied & PATHGATE_POLICY_DENY_READ))
        return 0;
    char rel[PATHGATE_PATH_MAX + 1];
    size_t n = c->prefix_len + (c->prefix_len ? 1 : 0) + sub_len;
    if (n > PATHGATE_PATH_MAX)
        return -ENAMETOOLONG;
    if (c->prefix_len) {
        memcpy(rel, c->prefix, c->prefix_len);
        rel[c->prefix_len] = '/';
    }
    memcpy(rel + n - sub_len, sub, sub_len);
    rel[n] = '\0';
    int base_fd = pathgate__resolver_base_fd(c->r, c->base);
    if (is_dir) {
        if (kind != PATHGATE__PTR_DOTGIT)
            return 0;
        int fd = openat(base_fd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return 0;
        check sc = *c;
        sc.prefix = rel;
        sc.prefix_len = n;
        int rc = pathgate__policy_scan(c->r, c->base, rel, fd, 0, NULL, PATHGATE__ACCESS_WRITE,
                                       on_end, &sc);
        close(fd);
        c->fixed = sc.fixed;
        return rc;
    }
    const pathgate_allocator *a = c->m->alloc;
    state *s = pathgate__malloc(a, sizeof *s);
    if (!s)
        return -ENOMEM;
    read_state(s, base_fd, rel);
    const pathgate__exec_ptr *p = snapshot(c->m, c->base, rel);
    const char *why = NULL;
    if (p && p->type == s->type && p->data_len == s->len && s->len <= PTR_DATA_MAX &&
        memcmp(c->m->buf + p->data, s->data, s->len) == 0)
        why = NULL; /* as it was at the start */
    else if (s->type == T_LINK)
        why = "a symlink at a name git follows";
    else if (s->type == T_REG && s->nlink > 1)
        why = "a hard link at a name git follows (its other name stays writable)";
    else if (s->type == T_REG)
        why = invalid(c->r, c->base, rel, kind, s->data, s->len, p != NULL);
    else if (s->type == T_OTHER)
        why = "not a regular file";
    pathgate__free(a, s);
    if (!why)
        return 0;
    int restore = p && (p->type == T_REG || p->type == T_LINK);
    int rc = put_back(c->r, c->base, rel, c->m, restore ? p : NULL);
    char line[PATHGATE_PATH_MAX + 512];
    char addr[PATHGATE_PATH_MAX + 64];
    int k =
        snprintf(addr, sizeof addr, "%s/%s", pathgate__resolver_base_address(c->r, c->base), rel);
    if (k < 0 || (size_t)k >= sizeof addr)
        return 0;
    k = snprintf(line, sizeof line, "\npathgate: '%s' %s by the preset 'vcs': %s\n", addr,
                 rc < 0    ? "could not be put back"
                 : restore ? "was restored"
                           : "was removed",
                 why);
    if (k > 0)
        note(c, line);
    c->fixed++;
    if (pathgate__audit_enabled(c->r)) {
        pathgate__audit_rec rec;
        memset(&rec, 0, sizeof rec);
        rec.operation = "execute";
        rec.has_base = 1;
        rec.base = c->base;
        rec.address = addr;
        rec.rel = addr + strlen(addr) - n;
        rec.outcome = restore ? "restored" : "removed";
        rec.reason = "invalid_pointer";
        rec.rule = v->rule;
        rec.source = v->source;
        pathgate__audit_emit(c->r, &rec);
    }
    return 0;
}

size_t pathgate__exec_ptr_check(pathgate__exec_masks *m, const pathgate_resolver *r,
                                pathgate_exec_result *out)
{
    const pathgate__policy *pol = pathgate__policy_of(r);
    size_t n = pathgate__resolver_base_count(r), fixed = 0;
    for (size_t i = 0; pol && i < n; i++) {
        if (!pathgate__policy_active(pol, i) ||
            (pathgate__resolver_base_flags(r, i) & PATHGATE_BASE_READ_ONLY))
            continue;
        check c = {m, r, i, NULL, 0, out, 0};
        (void)pathgate__policy_enumerate(r, i, on_end, &c);
        fixed += c.fixed;
    }
    return fixed;
}

/* ---------------------------------------------------- what refused */

static int output_has(const pathgate_buf *b, const char *s)
{
    return b->ptr && memmem(b->ptr, b->len, s, strlen(s)) != NULL;
}

void pathgate__exec_explain(const pathgate__exec_masks *m, const pathgate_resolver *r,
                            pathgate_exec_result *out)
{
    const pathgate_buf *b = &out->output;
    if (!m || out->exit_code == 0 ||
        !(output_has(b, "Device or resource busy") || output_has(b, "Read-only file system") ||
          output_has(b, "Permission denied")))
        return;
    int said = 0;
    for (size_t i = 0; i < m->n && said < 8; i++) {
        const pathgate__exec_mask *e = &m->v[i];
        if (e->kind == PATHGATE__MASK_PIN)
            continue;
        const char *rel = m->buf + e->rel;
        if (!output_has(b, rel))
            continue;
        pathgate_policy_verdict v;
        if (!pathgate__policy_verdict(&v, r, e->base, rel, strlen(rel), PATHGATE__ACCESS_WRITE) ||
            !v.rule || !v.source)
            continue;
        char by[256];
        int k = strncmp(v.source, "preset:", 7) == 0
                    ? snprintf(by, sizeof by, "the preset '%s' (rule '%s')", v.source + 7, v.rule)
                    : snprintf(by, sizeof by, "the rule '%s' of %s", v.rule, v.source);
        if (k < 0 || (size_t)k >= sizeof by)
            continue;
        char line[PATHGATE_PATH_MAX + 600];
        if (e->kind == PATHGATE__MASK_READ_ONLY)
            k = snprintf(line, sizeof line,
                         "\npathgate: '%s' is read-only in commands under %s: the host's operator "
                         "changes it (docs/policy.md)\n",
                         rel, by);
        else
            k = snprintf(line, sizeof line,
                         "\npathgate: '%s' is hidden in commands by %s: a command sees an empty "
                         "unreadable file; git cannot read it, so name the paths to commit "
                         "(docs/policy.md)\n",
                         rel, by);
        if (k < 0)
            continue;
        append(out, m->alloc, line);
        said++;
    }
}
