/* test_exec_planted.c - protected names cannot be planted (issue 33,
 * finding 4; docs/exec.md "Planted links"): a command that leaves a link
 * at a name the policy protects (`ln -s public.txt .env`, `ln notes.txt
 * .env.local`, `ln -s run.sh .envrc`, `ln -s pub .vscode`, a link inside
 * a new `.vscode/`) finds it gone when the call returns: moved into the
 * quarantine (outside every base), listed in the result and audited;
 * what it pointed at is untouched; links that were there before the
 * command, and ordinary files it writes, stay. */
#define _GNU_SOURCE
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fixture {
    char *tmp;
    char repo[600], quarantine[600];
    pathgate_resolver *r;
    pthread_mutex_t lock;
    int events;
    char outcomes[16][64];
} fixture;

static void on_audit(const pathgate_audit_event *e, void *ctx)
{
    fixture *f = ctx;
    pthread_mutex_lock(&f->lock);
    if (strcmp(e->outcome, "quarantined") == 0 && f->events < 16) {
        assert_string_equal(e->operation, "execute");
        assert_non_null(e->host_path);
        snprintf(f->outcomes[f->events++], 64, "%s %s", e->address, e->reason);
    }
    pthread_mutex_unlock(&f->lock);
}

static void put(const char *dir, const char *name, const char *text)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *fp = fopen(p, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    pthread_mutex_init(&f->lock, NULL);
    f->tmp = pg_tmpdir_make();
    assert_non_null(f->tmp);
    snprintf(f->repo, sizeof f->repo, "%s/repo", f->tmp);
    snprintf(f->quarantine, sizeof f->quarantine, "%s/state/q", f->tmp);
    assert_int_equal(mkdir(f->repo, 0777), 0);
    assert_int_equal(chmod(f->repo, 0777), 0);
    put(f->repo, "public.txt", "public\n");
    put(f->repo, "notes.txt", "notes\n");
    put(f->repo, "run.sh", "echo hi\n");
    char pub[700];
    snprintf(pub, sizeof pub, "%s/pub", f->repo);
    assert_int_equal(mkdir(pub, 0777), 0);
    assert_int_equal(chmod(pub, 0777), 0);
    assert_int_equal(setenv("PATHGATE_QUARANTINE_DIR", f->quarantine, 1), 0);
    pathgate_base_spec roots[1] = {{"repo", 4, f->repo, strlen(f->repo), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    const char *presets[] = {"secrets", "agent-config"};
    o.roots = roots;
    o.nroots = 1;
    o.presets = presets;
    o.npresets = 2;
    o.audit = on_audit;
    o.audit_ctx = f;
    assert_int_equal(pathgate_resolver_new(&f->r, &o, NULL), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pathgate_resolver_free(f->r);
    pg_tmpdir_remove(f->tmp);
    pthread_mutex_destroy(&f->lock);
    unsetenv("PATHGATE_QUARANTINE_DIR");
    free(f);
    return 0;
}

static int can_run(void)
{
    return pathgate_exec_landlock_abi() >= 1;
}

static int exists(const fixture *f, const char *name)
{
    char p[1200];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", f->repo, name);
    return lstat(p, &st) == 0;
}

static int run(fixture *f, const char *cmd, pathgate_exec_result *res)
{
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.timeout_ms = 30000;
    pathgate_error err;
    int rc = pathgate_exec_run(res, f->r, cmd, strlen(cmd), &o, &err);
    if (rc)
        print_error("exec: %s\n", err.message);
    return rc;
}

/* 1 when addr is among res's quarantined addresses. */
static int listed(const pathgate_exec_result *res, const char *addr)
{
    const char *p = res->quarantined.ptr;
    for (size_t i = 0; p && i < res->nquarantined; i++, p += strlen(p) + 1)
        if (strcmp(p, addr) == 0)
            return 1;
    return 0;
}

/* The reproduction of the issue. */
static void test_links_at_protected_names_do_not_outlive_the_call(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    assert_int_equal(run(f,
                         "ln -s public.txt .env && ln notes.txt .env.local && "
                         "ln -s run.sh .envrc && ln -s pub .vscode && "
                         "mkdir .idea && ln -s ../run.sh .idea/workspace.xml && "
                         "cat .env && echo planted",
                         &res),
                     0);
    assert_int_equal(res.exit_code, 0);
    assert_string_equal(res.output.ptr, "public\nplanted\n"); /* during the call: its own */
    assert_false(exists(f, ".env"));
    assert_false(exists(f, ".env.local"));
    assert_false(exists(f, ".envrc"));
    assert_false(exists(f, ".vscode"));
    assert_false(exists(f, ".idea/workspace.xml"));
    assert_true(exists(f, ".idea")); /* an ordinary new directory stays */
    /* what they pointed at is untouched */
    assert_true(exists(f, "public.txt"));
    assert_true(exists(f, "notes.txt"));
    assert_true(exists(f, "run.sh"));
    assert_true(exists(f, "pub"));
    char p[1200];
    struct stat st;
    snprintf(p, sizeof p, "%s/notes.txt", f->repo);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_nlink, 1);
    /* in the result and the audit */
    assert_int_equal(res.nquarantined, 5);
    assert_true(listed(&res, "root:repo/.env"));
    assert_true(listed(&res, "root:repo/.env.local"));
    assert_true(listed(&res, "root:repo/.envrc"));
    assert_true(listed(&res, "root:repo/.vscode"));
    assert_true(listed(&res, "root:repo/.idea/workspace.xml"));
    assert_int_equal(f->events, 5);
    int hard = 0;
    for (int i = 0; i < f->events; i++)
        hard += strcmp(f->outcomes[i], "root:repo/.env.local hard_link") == 0;
    assert_int_equal(hard, 1);
    pathgate_exec_result_dispose(&res);
    /* in the quarantine, outside the base: one directory for the call */
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "cd '%s'/* && for k in *; do printf '%%s %%s %%s|' \"$(cat $k/address)\" "
             "\"$(cat $k/kind)\" \"$(cat $k/target 2>/dev/null || cat $k/data)\"; done",
             f->quarantine);
    FILE *fp = popen(cmd, "r");
    char line[2000] = "";
    assert_non_null(fgets(line, sizeof line, fp));
    pclose(fp);
    assert_non_null(strstr(line, "root:repo/.env symlink public.txt|"));
    assert_non_null(strstr(line, "root:repo/.env.local hard_link notes|"));
    assert_non_null(strstr(line, "root:repo/.envrc symlink run.sh|"));
    assert_non_null(strstr(line, "root:repo/.vscode symlink pub|"));
    assert_non_null(strstr(line, "root:repo/.idea/workspace.xml symlink ../run.sh|"));
}

/* What was there before the command stays (the user's own links), and so
 * do ordinary files a command writes under a protected name (they are
 * protected from the next call on, docs/exec.md). */
static void test_what_was_there_and_plain_files_stay(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    char p[1200];
    snprintf(p, sizeof p, "%s/.env", f->repo);
    assert_int_equal(symlink("public.txt", p), 0); /* the user's own */
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    assert_int_equal(run(f, "echo A=1 > .env.local && ln -s notes.txt innocent", &res), 0);
    assert_int_equal(res.exit_code, 0);
    assert_int_equal(res.nquarantined, 0);
    assert_null(res.quarantined.ptr);
    pathgate_exec_result_dispose(&res);
    assert_true(exists(f, ".env"));
    assert_true(exists(f, ".env.local"));
    assert_true(exists(f, "innocent"));
    assert_int_equal(f->events, 0);
    struct stat st;
    assert_int_equal(stat(f->quarantine, &st) == 0 && S_ISDIR(st.st_mode) ? 1 : 0, 0);
}

/* A quarantine inside a base is never used: the plant is removed (a
 * link loses nothing of the user's), and audited as removed. */
static void test_quarantine_inside_a_base_is_not_used(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    char inside[700];
    snprintf(inside, sizeof inside, "%s/pub/q", f->repo);
    assert_int_equal(setenv("PATHGATE_QUARANTINE_DIR", inside, 1), 0);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    assert_int_equal(run(f, "ln -s public.txt .env", &res), 0);
    assert_int_equal(res.nquarantined, 1);
    pathgate_exec_result_dispose(&res);
    assert_false(exists(f, ".env"));
    char p[1200];
    snprintf(p, sizeof p, "%s/pub/q", f->repo);
    DIR *d = opendir(p);
    int entries = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        entries += e->d_name[0] != '.';
    if (d)
        closedir(d);
    assert_int_equal(entries, 0);
    assert_int_equal(f->events, 0); /* (outcome "removed", not "quarantined") */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_links_at_protected_names_do_not_outlive_the_call,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_what_was_there_and_plain_files_stay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quarantine_inside_a_base_is_not_used, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
