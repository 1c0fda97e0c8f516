/*
 * policy_fixture.h - what the policy suites share (test_policy.c,
 * test_policy_ops.c): an audit journal, and a repository with secrets, a
 * git directory, symlinks to both and a mod nested in it, under a
 * resolver with deny_read rules and the vcs preset:
 *
 * <tmp>/repo                       root "repo"
 *   .env  app/.env  app/.env.example  app/main.txt  app/sub/deep.txt
 *   notes.txt  secrets/key.txt  .gitmodules
 *   innocent -> .env               a link to a hidden file
 *   linkdir -> secrets             a link to a hidden directory
 *   hooklink -> .git/hooks         a link to a protected directory
 *   gitlink -> .git                a link to the repository
 *   cfglink -> .git/config         a link to a protected file
 *                                  (these five links are not made on Windows:
 *                                  wine shows a link to a file as the file and
 *                                  cannot read a directory link's target)
 *   .git/{HEAD,config,index,hooks/pre-commit,objects/ab/cd,worktrees/wt/HEAD}
 *   vendor/mod                     mod "M" (nested in root:repo)
 *   vendor/mod/private.txt  vendor/mod/inner.txt
 */
#ifndef PATHGATE_TEST_POLICY_FIXTURE_H
#define PATHGATE_TEST_POLICY_FIXTURE_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy_internal.h"
#include "resolver_policy.h"
#include "support.h"

/* ------------------------------------------------------------ events */

#define MAX_EVENTS 512

typedef struct event {
    char *door, *operation, *role, *address, *outcome, *reason, *rule, *source, *host_path;
    uint64_t count;
} event;

typedef struct journal {
    event ev[MAX_EVENTS];
    size_t n;
} journal;

static inline char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static inline void record(const pathgate_audit_event *e, void *ctx)
{
    journal *j = ctx;
    assert_int_equal(e->version, PATHGATE_AUDIT_EVENT_VERSION);
    assert_true(e->time_sec > 1600000000);
    if (j->n == MAX_EVENTS)
        return;
    event *x = &j->ev[j->n++];
    x->door = dup_or_null(e->door);
    x->operation = dup_or_null(e->operation);
    x->role = dup_or_null(e->role);
    x->address = dup_or_null(e->address);
    x->outcome = dup_or_null(e->outcome);
    x->reason = dup_or_null(e->reason);
    x->rule = dup_or_null(e->rule);
    x->source = dup_or_null(e->source);
    x->host_path = dup_or_null(e->host_path);
    x->count = e->count;
}

static inline void journal_clear(journal *j)
{
    for (size_t i = 0; i < j->n; i++) {
        event *x = &j->ev[i];
        free(x->door);
        free(x->operation);
        free(x->role);
        free(x->address);
        free(x->outcome);
        free(x->reason);
        free(x->rule);
        free(x->source);
        free(x->host_path);
    }
    j->n = 0;
}

static inline int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The event op/address/outcome/reason (NULL: any) recorded, or NULL. */
static inline const event *find(const journal *j, const char *op, const char *address,
                                const char *outcome, const char *reason)
{
    for (size_t i = 0; i < j->n; i++) {
        const event *x = &j->ev[i];
        if (same(x->operation, op) && (!address || same(x->address, address)) &&
            same(x->outcome, outcome) && (!reason || same(x->reason, reason)))
            return x;
    }
    return NULL;
}

/* ----------------------------------------------------------- fixture */

typedef struct fixture {
    char *tmp;
    char repo[512], mod[512];
    journal j;
    int fallback;
} fixture;

static inline void put(const char *dir, const char *rel, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    /* parents */
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        pg_mkdir(p);
        *s = '/';
    }
    if (text) {
        FILE *f = pg_fopen(p, "wb");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
    } else {
        pg_mkdir(p);
    }
}

static inline void link_(const char *dir, const char *rel, const char *target)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    assert_int_equal(pg_symlink(target, p), 0);
}

static inline char *slurp(const char *dir, const char *rel)
{
    static char buf[256];
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = pg_fopen(p, "rb");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static inline int exists(const char *dir, const char *rel)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return pg_lkind(p) > PG_KIND_NONE;
}

static inline int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->tmp = pg_tmpdir_make();
    snprintf(f->repo, sizeof f->repo, "%s/repo", f->tmp);
    snprintf(f->mod, sizeof f->mod, "%s/repo/vendor/mod", f->tmp);
    pg_mkdir(f->repo);
    put(f->repo, ".env", "SECRET=1\n");
    put(f->repo, "app/.env", "APP_SECRET=1\n");
    put(f->repo, "app/.env.example", "EXAMPLE=1\n");
    put(f->repo, "app/main.txt", "hello\nAPP_SECRET is read from .env\n");
    put(f->repo, "app/sub/deep.txt", "deep\n");
    put(f->repo, "notes.txt", "notes\n");
    put(f->repo, "secrets/key.txt", "KEY=1\n");
    put(f->repo, ".gitmodules", "[submodule]\n");
    put(f->repo, ".git/HEAD", "ref: refs/heads/main\n");
    put(f->repo, ".git/config", "[core]\n");
    put(f->repo, ".git/index", "index\n");
    put(f->repo, ".git/hooks/pre-commit", "#!/bin/sh\n");
    put(f->repo, ".git/objects/ab/cd", "blob\n");
    put(f->repo, ".git/worktrees/wt/HEAD", "ref: refs/heads/wt\n");
    put(f->repo, "vendor/mod/private.txt", "private\n");
    put(f->repo, "vendor/mod/inner.txt", "inner\n");
#ifndef _WIN32 /* wine cannot show them: the cases through them are skipped there, by name */
    link_(f->repo, "innocent", ".env");
    link_(f->repo, "linkdir", "secrets");
    link_(f->repo, "hooklink", ".git/hooks");
    link_(f->repo, "gitlink", ".git");
    link_(f->repo, "cfglink", ".git/config");
#endif
    *state = f;
    return 0;
}

static inline int setup_fallback(void **state)
{
    setup(state);
    ((fixture *)*state)->fallback = 1;
    return 0;
}

static inline int teardown(void **state)
{
    fixture *f = *state;
    journal_clear(&f->j);
    pg_tmpdir_remove(f->tmp);
    free(f);
    return 0;
}

static const char *const deny_read[] = {"**/.env", "secrets/", "root:repo/vendor/mod/private.txt",
                                        "mod:M/inner.txt"};
static const char *const presets_vcs[] = {"vcs"};

static inline pathgate_resolver *make_with(fixture *f, const char *const *dr, size_t ndr,
                                           const char *const *dw, size_t ndw,
                                           const char *const *presets, size_t np)
{
    pathgate_base_spec roots[] = {{PG_S("repo"), f->repo, strlen(f->repo), 0}};
    pathgate_base_spec mods[] = {{PG_S("M"), f->mod, strlen(f->mod), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.mods = mods;
    o.nmods = 1;
    o.allocator = pg_test_alloc();
    o.flags = f->fallback ? PATHGATE_RESOLVER_FORCE_FALLBACK : 0;
    o.deny_read = dr;
    o.ndeny_read = ndr;
    o.deny_write = dw;
    o.ndeny_write = ndw;
    o.presets = presets;
    o.npresets = np;
    o.audit = record;
    o.audit_ctx = &f->j;
    pathgate_resolver *r = NULL;
    pathgate_error err;
    if (pathgate_resolver_new(&r, &o, &err) != 0)
        fail_msg("resolver_new: %s", err.message);
    return r;
}

static inline pathgate_resolver *make(fixture *f)
{
    return make_with(f, deny_read, 4, NULL, 0, presets_vcs, 1);
}

#endif
