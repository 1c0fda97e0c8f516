/*
 * case_tree.h - what the suites running the shared case directories of
 * tests/data (apply_patch, editor) share (header-only, included by
 * test_fs_patch.c and test_editor.c; not a suite itself): reading and
 * writing files, copying a tree, a tree as comparable text, the world a
 * case runs in (root t, the read-only root ro holding ro.txt, and a
 * directory outside every root), and case.txt's "key: value" lines.
 */
#ifndef PATHGATE_TEST_CASE_TREE_H
#define PATHGATE_TEST_CASE_TREE_H

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "support.h"

#define CT_FN static __attribute__((unused))

CT_FN char *slurp(const char *path, size_t *len)
{
    size_t n = 0;
    char *buf = pg_read_file_nofollow(path, &n);
    if (len)
        *len = buf ? n : 0;
    return buf;
}

CT_FN void spit(const char *path, const char *data, size_t len)
{
    assert_int_equal(pg_write_file(path, data, len), 0);
}

CT_FN void copy_tree(const char *from, const char *to)
{
    char **names;
    long n = pg_dir_names(from, &names);
    for (long i = 0; i < n; i++) {
        char a[2048], b[2048];
        snprintf(a, sizeof a, "%s/%s", from, names[i]);
        snprintf(b, sizeof b, "%s/%s", to, names[i]);
        int kind = pg_lkind(a);
        assert_true(kind > PG_KIND_NONE);
        if (kind == PG_KIND_DIR) {
            assert_int_equal(pg_mkdir(b), 0);
            copy_tree(a, b);
        } else {
            size_t len;
            char *data = slurp(a, &len);
            assert_non_null(data);
            spit(b, data, len);
            free(data);
        }
    }
    if (n > 0)
        pg_dir_names_free(names, n);
}

/* A tree as sorted lines "d <rel>", "l <rel> -> <target>", "f <rel> <bytes>"
 * (bytes escaped), joined. */
typedef struct strlist {
    char **v;
    size_t n, cap;
} strlist;

CT_FN void strlist_add(strlist *l, char *s)
{
    if (l->n == l->cap)
        l->v = realloc(l->v, (l->cap = l->cap ? 2 * l->cap : 16) * sizeof *l->v);
    l->v[l->n++] = s;
}

CT_FN int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

CT_FN void snapshot_into(strlist *l, const char *root, const char *rel)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    char **names;
    long count = pg_dir_names(dir, &names);
    for (long e = 0; e < count; e++) {
        char sub[2048], path[4096];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", names[e]);
        snprintf(path, sizeof path, "%s/%s", root, sub);
        int kind = pg_lkind(path);
        assert_true(kind > PG_KIND_NONE);
        char *line = NULL;
        if (kind == PG_KIND_DIR) {
            assert_true(asprintf(&line, "d %s", sub) > 0);
            strlist_add(l, line);
            snapshot_into(l, root, sub);
        } else if (kind == PG_KIND_LINK) {
            char target[1024];
            assert_true(pg_readlink(path, target, sizeof target) >= 0);
            assert_true(asprintf(&line, "l %s -> %s", sub, target) > 0);
            strlist_add(l, line);
        } else {
            size_t n;
            char *data = slurp(path, &n);
            assert_non_null(data);
            size_t cap = 4 * n + strlen(sub) + 8, k = 0;
            line = malloc(cap);
            k += (size_t)snprintf(line, cap, "f %s ", sub);
            for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)data[i];
                if (c >= 0x20 && c < 0x7f && c != '\\')
                    line[k++] = (char)c;
                else
                    k += (size_t)snprintf(line + k, cap - k, "\\x%02x", c);
            }
            line[k] = '\0';
            free(data);
            strlist_add(l, line);
        }
    }
    if (count > 0)
        pg_dir_names_free(names, count);
}

CT_FN char *snapshot(const char *root)
{
    strlist l = {NULL, 0, 0};
    snapshot_into(&l, root, "");
    if (l.n)
        qsort(l.v, l.n, sizeof *l.v, cmp_str);
    size_t total = 1;
    for (size_t i = 0; i < l.n; i++)
        total += strlen(l.v[i]) + 1;
    char *out = malloc(total), *p = out;
    *p = '\0';
    for (size_t i = 0; i < l.n; i++) {
        p += sprintf(p, "%s\n", l.v[i]);
        free(l.v[i]);
    }
    free(l.v);
    return out;
}

/* Replaces every `from` in *s by `to`. */
CT_FN void substitute(char **s, const char *from, const char *to)
{
    char *at;
    while ((at = strstr(*s, from))) {
        char *n = NULL;
        assert_true(asprintf(&n, "%.*s%s%s", (int)(at - *s), *s, to, at + strlen(from)) > 0);
        free(*s);
        *s = n;
    }
}

typedef struct world {
    char *tmp;
    char t[1024], ro[1024], out[1024];
    pathgate_resolver *r;
    pathgate_session *s;
} world;

CT_FN void world_make(world *w, unsigned int flags)
{
    w->tmp = pg_tmpdir_make();
    assert_non_null(w->tmp);
    snprintf(w->t, sizeof w->t, "%s/t", w->tmp);
    snprintf(w->ro, sizeof w->ro, "%s/ro", w->tmp);
    snprintf(w->out, sizeof w->out, "%s/outside", w->tmp);
    assert_int_equal(pg_mkdir(w->t), 0);
    assert_int_equal(pg_mkdir(w->ro), 0);
    assert_int_equal(pg_mkdir(w->out), 0);
    char p[2048];
    snprintf(p, sizeof p, "%s/ro.txt", w->ro);
    spit(p, PG_S("read only\n"));
    snprintf(p, sizeof p, "%s/secret.txt", w->out);
    spit(p, PG_S("secret\n"));
    pathgate_base_spec roots[2] = {
        {PG_S("t"), w->t, strlen(w->t), 0},
        {PG_S("ro"), w->ro, strlen(w->ro), PATHGATE_BASE_READ_ONLY},
    };
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 2;
    o.flags = flags;
    o.allocator = pg_test_alloc();
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_resolver_new(&w->r, &o, &err), 0);
    assert_int_equal(pathgate_session_new(&w->s, w->r, PG_S("t"), &err), 0);
}

CT_FN void world_free(world *w)
{
    pathgate_session_free(w->s);
    pathgate_resolver_free(w->r);
    pg_tmpdir_remove(w->tmp);
}

/* The value of `key: value` in case.txt (malloc'd), or NULL. */
CT_FN char *case_key(const char *casefile, const char *key)
{
    char *text = slurp(casefile, NULL);
    if (!text)
        return NULL;
    char *found = NULL;
    size_t kl = strlen(key);
    for (char *line = strtok(text, "\n"); line && !found; line = strtok(NULL, "\n"))
        if (!strncmp(line, key, kl) && line[kl] == ':')
            found = strdup(line + kl + 1 + (line[kl + 1] == ' '));
    free(text);
    return found;
}

/* A case of the shared directories that Windows (wine, where its suites
 * run) cannot run: its directory's name and why (docs/windows.md). */
typedef struct ct_skip {
    const char *name;
    const char *why;
} ct_skip;

/* 1, after its SKIPPED line, when the case at dir (.../<group>/<name>) is
 * one of skips (ended by a NULL name; NULL: none); 0 otherwise. */
CT_FN int ct_skipped(const char *dir, const ct_skip *skips)
{
    const char *name = strrchr(dir, '/');
    name = name ? name + 1 : dir;
    for (; skips && skips->name; skips++)
        if (!strcmp(skips->name, name)) {
            print_message("SKIPPED: %s (Windows: %s)\n", name, skips->why);
            return 1;
        }
    return 0;
}

#endif
