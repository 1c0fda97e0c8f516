/*
 * policy_hooks.c - the hooks directory a repository's own configuration
 * names (`core.hooksPath`, with its includes), protected by the vcs preset
 * (docs/policy.md "vcs"): read when the resolver is built and again before
 * each command's scan. For the repository at the top of each base under
 * the preset, `.git/config` is read (never through a symlink, at most
 * 1 MiB a file) with every `[include]` and `[includeIf]` path (whatever the
 * condition: the stricter reading), at most 16 files; a hooks directory,
 * and an included file, that lie inside the base become deny_write rules
 * of source `preset:vcs` (pathgate__policy_store_add, as pathgate_resolver_restrict).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "address.h"
#include "alloc.h"
#include "os.h"
#include "error.h"
#include "policy_internal.h"

#define CONFIG_MAX (1u << 20)
#define FILES_MAX 16

typedef struct found {
    char hooks[PATHGATE_PATH_MAX + 1];            /* rel of the hooks directory, or "" */
    char files[FILES_MAX][PATHGATE_PATH_MAX + 1]; /* rels of included files */
    size_t nfiles;
    char pats[FILES_MAX + 1][PATHGATE_PATH_MAX + 80]; /* the rules made of them */
} found;

/* Normalises dir (a rel, dlen bytes) joined with t into out
 * (PATHGATE_PATH_MAX + 1 bytes): 0 with out set, -1 when it leaves the
 * base. Absolute t must lie below host. */
static int join_rel(char *out, const char *host, const char *dir, size_t dlen, const char *t,
                    size_t tlen)
{
    char tmp[2 * PATHGATE_PATH_MAX + 2];
    size_t n = 0;
    if (tlen && t[0] == '/') {
        size_t hl = strlen(host);
        if (tlen < hl || memcmp(t, host, hl) != 0 || (tlen > hl && t[hl] != '/'))
            return -1;
        t += hl;
        tlen -= hl;
    } else if (dlen) {
        memcpy(tmp, dir, dlen);
        tmp[dlen] = '/';
        n = dlen + 1;
    }
    if (n + tlen >= sizeof tmp)
        return -1;
    memcpy(tmp + n, t, tlen);
    n += tlen;
    return pathgate__rel_normalise(out, PATHGATE_PATH_MAX + 1, tmp, n);
}

/* A value: trimmed, quotes removed, `\x` kept as x, an unquoted `#` or
 * `;` ends it. Into out (cap bytes). */
static void value_of(char *out, size_t cap, const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    size_t o = 0;
    int q = 0;
    for (; s < end && o + 1 < cap; s++) {
        if (*s == '"') {
            q = !q;
            continue;
        }
        if (!q && (*s == '#' || *s == ';'))
            break;
        if (*s == '\\' && s + 1 < end) {
            s++;
            out[o++] = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
            continue;
        }
        out[o++] = *s;
    }
    while (o && (out[o - 1] == ' ' || out[o - 1] == '\t' || out[o - 1] == '\r'))
        o--;
    out[o] = '\0';
}

static void read_config(found *f, const pathgate__policy_store *store, size_t base, const char *rel,
                        int depth)
{
    if (depth > 8 || f->nfiles >= FILES_MAX)
        return;
    int fd = pathgate__contain_open_how(pathgate__policy_store_base_fd(store, base), rel,
                                        O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0,
                                        PATHGATE__CONTAIN_NO_LINKS);
    if (fd < 0)
        return;
    pathgate__os_stat st;
    const pathgate_allocator *a = pathgate__policy_store_allocator(store);
    char *buf = NULL;
    size_t len = 0;
    if (pathgate__os_statat(fd, "", 0, &st) == 0 && st.type == PATHGATE__OS_T_REG &&
        st.size <= CONFIG_MAX && (buf = pathgate__malloc(a, (size_t)st.size + 1)) != NULL) {
        int64_t n;
        while (len < (size_t)st.size &&
               (n = pathgate__os_read(fd, buf + len, (size_t)st.size - len)) > 0)
            len += (size_t)n;
        buf[len] = '\0';
    }
    pathgate__os_close(fd);
    if (!buf)
        return;
    const char *host = pathgate__policy_store_base(store, base)->host;
    size_t rl = strlen(rel), dl = rl;
    while (dl && rel[dl - 1] != '/')
        dl--;
    dl = dl ? dl - 1 : 0;
    char section[64] = "";
    char val[PATHGATE_PATH_MAX + 1];
    for (const char *line = buf; line < buf + len;) {
        const char *end = memchr(line, '\n', (size_t)(buf + len - line));
        if (!end)
            end = buf + len;
        const char *s = line;
        line = end + 1;
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        if (s < end && *s == '[') {
            size_t k = 0;
            for (s++; s < end && *s != ']' && *s != ' ' && *s != '"' && *s != '.' &&
                      k + 1 < sizeof section;
                 s++)
                section[k++] = *s;
            section[k] = '\0';
            /* `[core] hooksPath = x` on one line */
            while (s < end && *s != ']')
                s++;
            if (s < end)
                s++;
            while (s < end && (*s == ' ' || *s == '\t'))
                s++;
            if (s >= end)
                continue;
        }
        const char *k = s;
        while (s < end && (isalnum((unsigned char)*s) || *s == '-'))
            s++;
        size_t klen = (size_t)(s - k);
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        if (s >= end || *s != '=')
            continue;
        value_of(val, sizeof val, s + 1, end);
        if (!val[0] || val[0] == '~')
            continue;
        char target[PATHGATE_PATH_MAX + 1];
        if (strcasecmp(section, "core") == 0 && klen == 9 && strncasecmp(k, "hooksPath", 9) == 0) {
            /* relative: to the top of the work tree (the base's top) */
            if (join_rel(target, host, "", 0, val, strlen(val)) == 0)
                memcpy(f->hooks, target, strlen(target) + 1);
            else
                f->hooks[0] = '\0';
        } else if ((strcasecmp(section, "include") == 0 || strcasecmp(section, "includeIf") == 0) &&
                   klen == 4 && strncasecmp(k, "path", 4) == 0) {
            if (join_rel(target, host, rel, dl, val, strlen(val)) == 0 && target[0] &&
                f->nfiles < FILES_MAX) {
                memcpy(f->files[f->nfiles++], target, strlen(target) + 1);
                read_config(f, store, base, target, depth + 1);
            }
        }
    }
    pathgate__free(a, buf);
}

/* `root:<key>/<rel>` with the pattern characters of rel escaped. */
static int pattern_of(char *out, size_t cap, const pathgate__policy_store *s, size_t base,
                      const char *rel, int dir)
{
    const pathgate__policy_base *b = pathgate__policy_store_base(s, base);
    int k = snprintf(out, cap, "%s:%s/", b->is_mod ? "mod" : "root", b->name);
    if (k < 0 || (size_t)k >= cap)
        return -1;
    size_t o = (size_t)k;
    for (const char *p = rel; *p; p++) {
        if (o + 3 >= cap)
            return -1;
        if (strchr("*?[]{}\\!", *p))
            out[o++] = '\\';
        out[o++] = *p;
    }
    if (dir)
        out[o++] = '/';
    out[o] = '\0';
    return 0;
}

int pathgate__policy_store_hooks_refresh(pathgate__policy_store *s, pathgate_error *err)
{
    const pathgate__policy *p = pathgate__policy_store_current(s);
    const pathgate_allocator *a = pathgate__policy_store_allocator(s);
    size_t nb = 0;
    while (pathgate__policy_store_base(s, nb))
        nb++;
    for (size_t i = 0; p && i < nb; i++) {
        /* only where vcs applies: its rule decides .git/config */
        pathgate_policy_verdict v;
        if (!pathgate__policy_store_verdict(&v, s, i, ".git/config", 11, PATHGATE__ACCESS_WRITE) ||
            !v.source || strcmp(v.source, "preset:vcs") != 0)
            continue;
        found *f = pathgate__calloc(a, 1, sizeof *f);
        if (!f)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        read_config(f, s, i, ".git/config", 0);
        char(*pats)[PATHGATE_PATH_MAX + 80] = f->pats;
        const char *list[FILES_MAX + 1];
        size_t n = 0;
        if (f->hooks[0] &&
            !pathgate__policy_store_verdict(NULL, s, i, f->hooks, strlen(f->hooks),
                                            PATHGATE__ACCESS_WRITE) &&
            pattern_of(pats[n], sizeof pats[n], s, i, f->hooks, 1) == 0)
            list[n] = pats[n], n++;
        for (size_t k = 0; k < f->nfiles; k++)
            if (!pathgate__policy_store_verdict(NULL, s, i, f->files[k], strlen(f->files[k]),
                                                PATHGATE__ACCESS_WRITE) &&
                pattern_of(pats[n], sizeof pats[n], s, i, f->files[k], 0) == 0)
                list[n] = pats[n], n++;
        int rc = PATHGATE_OK;
        if (n) {
            /* as pathgate_resolver_restrict adds a list (the label static) */
            rc = pathgate__policy_store_add(s, NULL, 0, list, n, NULL, 0, "preset:vcs",
                                            "preset:vcs", err);
        }
        pathgate__free(a, f);
        if (rc < 0)
            return rc;
    }
    return PATHGATE_OK;
}
