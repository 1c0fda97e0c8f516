/* exec_etc.c - the /etc of a command's view (exec_etc.h). */
#define _GNU_SOURCE
#include "exec_etc.h"

#include <dirent.h>
#include <stdarg.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "strbuf.h"

/* Top-level names of /etc shown (shell patterns). Regular files up to
 * 1 MiB and symlinks are copied, directories copied entry by entry (small
 * ones) or mounted read-only. */
static const char *const etc_shown[] = {
    "alternatives", "bash.bashrc", "debian_version", "ethertypes",  "gai.conf",    "groff",
    "host.conf",    "inputrc",     "java-*",         "ld.so.cache", "ld.so.conf",  "ld.so.conf.d",
    "locale.alias", "localtime",   "lsb-release",    "magic",       "magic.mime",  "maven",
    "mime.types",   "networks",    "os-release",     "papersize",   "perl",        "profile",
    "profile.d",    "protocols",   "python3",        "python3.*",   "resolv.conf", "rpc",
    "services",     "shells",      "terminfo",       "timezone",    "xml",
};

/* Entries of /etc/ssl shown (never ssl/private). */
static const char *const ssl_shown[] = {"certs", "openssl.cnf"};

/* A directory is copied when it holds at most this many entries in all
 * (to this depth); otherwise mounted read-only. */
#define DIR_COPY_MAX_ENTRIES 2048
#define DIR_COPY_MAX_DEPTH 4
#define FILE_COPY_MAX (1024 * 1024)

/* ------------------------------------------------------------ identity */

/* The host's file path (at most 4 MiB), NUL-terminated, malloc'd; NULL. */
static char *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= 4 * 1024 * 1024) {
        size_t size = (size_t)st.st_size;
        buf = malloc(size + 1);
        size_t got = 0;
        ssize_t n;
        while (buf && got < size && (n = read(fd, buf + got, size - got)) > 0)
            got += (size_t)n;
        if (buf) {
            buf[got] = '\0';
            *len = got;
        }
    }
    close(fd);
    return buf;
}

/* Splits a line of `:`-separated fields in place into f[0..max). Returns
 * the number of fields. */
static size_t fields(char *line, char **f, size_t max)
{
    size_t n = 0;
    f[n++] = line;
    for (char *p = line; *p && n < max; p++) {
        if (*p == ':') {
            *p = '\0';
            f[n++] = p + 1;
        }
    }
    return n;
}

/* Calls fn on each line (a copy) of the host's `path` whose field `idf`
 * is the number id. */
static int each_entry(const char *path, unsigned int id, size_t nf, size_t idf,
                      int (*fn)(void *ctx, char **f), void *ctx)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text)
        return 0;
    int rc = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && !rc;
         line = strtok_r(NULL, "\n", &save)) {
        char *f[8];
        if (line[0] == '#' || line[0] == '+' || line[0] == '-')
            continue;
        if (fields(line, f, nf) != nf)
            continue;
        char *end;
        unsigned long v = strtoul(f[idf], &end, 10);
        if (*f[idf] && !*end && v == id)
            rc = fn(ctx, f);
    }
    free(text);
    return rc;
}

static int take_name(void *ctx, char **f)
{
    pathgate__exec_identity *id = ctx;
    size_t n = strlen(f[0]);
    if (n && n < sizeof id->name && !strchr(f[0], '/') && strcmp(f[0], ".") != 0 &&
        strcmp(f[0], "..") != 0) {
        memcpy(id->name, f[0], n + 1);
        if (strncmp(f[6], "/bin/", 5) == 0 || strncmp(f[6], "/usr/bin/", 9) == 0)
            snprintf(id->shell, sizeof id->shell, "%s", f[6]);
        return 1;
    }
    return 0;
}

void pathgate__exec_identity_make(pathgate__exec_identity *id, unsigned int uid, unsigned int gid,
                                  const char *home)
{
    memset(id, 0, sizeof *id);
    id->uid = uid;
    id->gid = gid;
    snprintf(id->shell, sizeof id->shell, "/bin/sh");
    each_entry("/etc/passwd", uid, 7, 2, take_name, id);
    if (home)
        snprintf(id->home, sizeof id->home, "%s", home);
    else
        snprintf(id->home, sizeof id->home, "/home/%s", id->name[0] ? id->name : "user");
}

/* ---------------------------------------------------------- made files */

typedef struct text {
    char *p;
    size_t len, cap;
    int enomem;
} text;

__attribute__((format(printf, 2, 3))) static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || t->enomem)
        return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        while (cap < t->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->enomem = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

typedef struct line_ctx {
    text *t;
    const pathgate__exec_identity *id; /* the command's own line: its home, shell */
} line_ctx;

static int passwd_line(void *ctx, char **f)
{
    line_ctx *c = ctx;
    if (c->id)
        put(c->t, "%s:x:%u:%u:%s:%s:%s\n", f[0], c->id->uid, c->id->gid, f[4], c->id->home,
            c->id->shell);
    else
        put(c->t, "%s:x:%s:%s:%s:%s:%s\n", f[0], f[2], f[3], f[4], f[5], f[6]);
    return 1;
}

static int group_line(void *ctx, char **f)
{
    line_ctx *c = ctx;
    put(c->t, "%s:x:%s:\n", f[0], f[2]); /* members left out */
    return 1;
}

#define NOBODY 65534u

static int add_text(pathgate__exec_view *v, const char *dst, text *t)
{
    if (t->enomem) {
        free(t->p);
        return PATHGATE_ENOMEM;
    }
    int rc = pathgate__exec_view_add_data(v, dst, t->p ? t->p : "", t->len);
    free(t->p);
    memset(t, 0, sizeof *t);
    return rc;
}

static int add_made(pathgate__exec_view *v, const pathgate__exec_identity *id)
{
    text t = {0};
    line_ctx own = {&t, id}, other = {&t, NULL};
    if (id->name[0])
        each_entry("/etc/passwd", id->uid, 7, 2, passwd_line, &own);
    if (id->uid != NOBODY)
        each_entry("/etc/passwd", NOBODY, 7, 2, passwd_line, &other);
    int rc = add_text(v, "/etc/passwd", &t);
    if (rc)
        return rc;
    each_entry("/etc/group", id->gid, 4, 2, group_line, &other);
    if (id->gid != NOBODY)
        each_entry("/etc/group", NOBODY, 4, 2, group_line, &other);
    if ((rc = add_text(v, "/etc/group", &t)) != 0)
        return rc;
    static const char nsswitch[] = "# made by pathgate for a contained command\n"
                                   "passwd:         files\n"
                                   "group:          files\n"
                                   "shadow:         files\n"
                                   "gshadow:        files\n"
                                   "hosts:          files dns\n"
                                   "networks:       files\n"
                                   "protocols:      files\n"
                                   "services:       files\n"
                                   "ethers:         files\n"
                                   "rpc:            files\n";
    if ((rc = pathgate__exec_view_add_data(v, "/etc/nsswitch.conf", nsswitch,
                                           sizeof nsswitch - 1)) != 0)
        return rc;
    if ((rc = pathgate__exec_view_add_data(v, "/etc/hostname", "pathgate\n", 9)) != 0)
        return rc;
    size_t len = 0;
    char *hosts = slurp("/etc/hosts", &len);
    if (hosts)
        put(&t, "%s%s", hosts, len && hosts[len - 1] != '\n' ? "\n" : "");
    else
        put(&t, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
    put(&t, "127.0.1.1\tpathgate\n");
    free(hosts);
    return add_text(v, "/etc/hosts", &t);
}

/* ---------------------------------------------------------- shown files */

static int is_shown(const char *name)
{
    for (size_t i = 0; i < sizeof etc_shown / sizeof etc_shown[0]; i++)
        if (fnmatch(etc_shown[i], name, FNM_PERIOD) == 0)
            return 1;
    return 0;
}

/* Entries beneath dir, to depth; -1 when over the budget. */
static long count_entries(int dir, int depth, long budget)
{
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    long n = 0;
    struct dirent *e;
    while (n >= 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (++n > budget) {
            n = -1;
            break;
        }
        if (e->d_type == DT_DIR) {
            if (depth <= 0) {
                n = -1;
                break;
            }
            int sub = openat(dirfd(d), e->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            long k = sub < 0 ? -1 : count_entries(sub, depth - 1, budget - n);
            if (sub >= 0)
                close(sub);
            n = k < 0 ? -1 : n + k;
        }
    }
    closedir(d);
    return n;
}

static int copy_tree(pathgate__exec_view *v, int dir, const char *dst);

/* One entry `name` of dir at view path dst: a symlink recreated, a
 * regular file copied, a directory copied; others left out. */
static int copy_entry(pathgate__exec_view *v, int dir, const char *name, const char *dst)
{
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return PATHGATE_OK;
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlinkat(dir, name, target, sizeof target - 1);
        if (n <= 0)
            return PATHGATE_OK;
        target[n] = '\0';
        return pathgate__exec_view_add_link(v, dst, target);
    }
    if (S_ISREG(st.st_mode)) {
        if (st.st_size > FILE_COPY_MAX)
            return PATHGATE_OK;
        int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return PATHGATE_OK; /* unreadable: not for everyone */
        size_t size = (size_t)st.st_size, got = 0;
        char *data = malloc(size + 1);
        ssize_t n;
        while (data && got < size && (n = read(fd, data + got, size - got)) > 0)
            got += (size_t)n;
        close(fd);
        if (!data)
            return PATHGATE_ENOMEM;
        int rc = pathgate__exec_view_add_data(v, dst, data, got);
        free(data);
        return rc;
    }
    if (S_ISDIR(st.st_mode)) {
        int fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return PATHGATE_OK;
        int rc = copy_tree(v, fd, dst);
        close(fd);
        return rc;
    }
    return PATHGATE_OK;
}

static int copy_tree(pathgate__exec_view *v, int dir, const char *dst)
{
    int rc = pathgate__exec_view_add_dir(v, dst);
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rc || fd < 0)
        return rc;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return PATHGATE_OK;
    }
    struct dirent *e;
    char path[4096];
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dst, e->d_name) >= sizeof path)
            continue;
        rc = copy_entry(v, dirfd(d), e->d_name, path);
    }
    closedir(d);
    return rc;
}

/* A top-level entry: small directories copied, large ones mounted. */
static int show(pathgate__exec_view *v, int etc, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "/etc/%s", name);
    struct stat st;
    if (fstatat(etc, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return PATHGATE_OK;
    if (S_ISDIR(st.st_mode)) {
        int fd = openat(etc, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return PATHGATE_OK;
        long n = count_entries(fd, DIR_COPY_MAX_DEPTH, DIR_COPY_MAX_ENTRIES);
        int rc = n >= 0 ? copy_tree(v, fd, path) : pathgate__exec_view_add_host(v, path, 0);
        close(fd);
        return rc;
    }
    return copy_entry(v, etc, name, path);
}

int pathgate__exec_etc_add(pathgate__exec_view *v, const pathgate__exec_identity *id)
{
    int rc = pathgate__exec_view_add_dir(v, "/etc");
    if (!rc)
        rc = add_made(v, id);
    int etc = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rc || etc < 0)
        return rc;
    int dup = fcntl(etc, F_DUPFD_CLOEXEC, 0);
    DIR *d = dup < 0 ? NULL : fdopendir(dup);
    if (!d && dup >= 0)
        close(dup);
    struct dirent *e;
    while (!rc && d && (e = readdir(d)))
        if (is_shown(e->d_name))
            rc = show(v, etc, e->d_name);
    if (d)
        closedir(d);
    int ssl = openat(etc, "ssl", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (!rc && ssl >= 0) {
        rc = pathgate__exec_view_add_dir(v, "/etc/ssl");
        for (size_t i = 0; !rc && i < sizeof ssl_shown / sizeof ssl_shown[0]; i++) {
            char name[64];
            snprintf(name, sizeof name, "ssl/%s", ssl_shown[i]);
            rc = show(v, etc, name);
        }
    }
    if (ssl >= 0)
        close(ssl);
    close(etc);
    return rc;
}

/* /etc/gitconfig: the host's (when present and small), then
 * `safe.directory = *` (docs/exec.md "git in the view": git's ownership
 * check guards a user against code named by another user's repository;
 * in the view that code runs as the command, confined as it is, and the
 * command may lift the check itself, while git before 2.46 cannot name
 * "beneath a base"). */
int pathgate__exec_etc_add_gitconfig(pathgate__exec_view *v)
{
    pathgate__sb sb = PATHGATE__SB_INIT(v->alloc);
    struct stat st;
    int fd = open("/etc/gitconfig", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= FILE_COPY_MAX) {
        char buf[4096];
        ssize_t got;
        while ((got = read(fd, buf, sizeof buf)) > 0)
            pathgate__sb_put(&sb, buf, (size_t)got);
        if (sb.len && sb.p[sb.len - 1] != '\n')
            pathgate__sb_putc(&sb, '\n');
    }
    if (fd >= 0)
        close(fd);
    pathgate__sb_puts(&sb, "# made by pathgate: a repository of a base is readable with git\n"
                           "# whoever owns its files on the host (docs/exec.md, git in the view)\n"
                           "[safe]\n\tdirectory = *\n");
    int rc =
        sb.oom ? PATHGATE_ENOMEM : pathgate__exec_view_add_data(v, "/etc/gitconfig", sb.p, sb.len);
    pathgate__sb_free(&sb);
    return rc;
}
