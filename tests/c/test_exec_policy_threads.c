/*
 * test_exec_policy_threads.c - commands under a policy from several threads
 * at once on one resolver (docs/exec.md "Policy in commands"): each call
 * scans and masks for itself, none sees a hidden file, and a file made
 * between two of a thread's calls is hidden from its next one.
 */
/* ctest-labels: threads */
#define _GNU_SOURCE
#include "support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathgate/exec.h"
#include "pathgate/resolver.h"

#define NTHREADS 4
#define ROUNDS 3

typedef struct worker {
    pathgate_resolver *r;
    const char *repo;
    int index;
    int failures;
    char message[512];
} worker;

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void *work(void *p)
{
    worker *w = p;
    for (int round = 0; round < ROUNDS && !w->failures; round++) {
        char dir[1024], file[1100], cmd[512];
        /* made before this round's call: hidden in it */
        snprintf(dir, sizeof dir, "%s/t%d-%d", w->repo, w->index, round);
        mkdir(dir, 0755);
        snprintf(file, sizeof file, "%s/.env", dir);
        put(file, "LATE=1\n");
        snprintf(cmd, sizeof cmd, "cat .env t%d-%d/.env; echo rc=$?", w->index, round);
        pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
        pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
        o.timeout_ms = 60000;
        pathgate_error err = {0, ""};
        int rc = pathgate_exec_run(&res, w->r, cmd, strlen(cmd), &o, &err);
        if (rc) {
            w->failures++;
            snprintf(w->message, sizeof w->message, "exec: %d %s", rc, err.message);
        } else if (strstr(res.output.ptr, "SECRET") || strstr(res.output.ptr, "LATE") ||
                   !strstr(res.output.ptr, "rc=1")) {
            w->failures++;
            snprintf(w->message, sizeof w->message, "round %d (exit %d): %s", round, res.exit_code,
                     res.output.ptr);
        }
        pathgate_exec_result_dispose(&res);
    }
    return NULL;
}

static void test_concurrent_commands_under_a_policy(void **state)
{
    (void)state;
    char *tmp = pg_tmpdir_make();
    char repo[512], env[600];
    snprintf(repo, sizeof repo, "%s/repo", tmp);
    assert_int_equal(mkdir(repo, 0755), 0);
    snprintf(env, sizeof env, "%s/.env", repo);
    put(env, "SECRET=1\n");
    pathgate_base_spec roots[] = {{"repo", 4, repo, strlen(repo), 0}};
    const char *presets[] = {"secrets"};
    pathgate_resolver_options ro = PATHGATE_RESOLVER_OPTIONS_INIT;
    ro.roots = roots;
    ro.nroots = 1;
    ro.presets = presets;
    ro.npresets = 1;
    pathgate_resolver *r = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_new(&r, &ro, &err), 0);
    /* no view here (no user namespaces): refused, never unmasked */
    pathgate_exec_result probe = PATHGATE_EXEC_RESULT_INIT;
    int rc = pathgate_exec_run(&probe, r, PG_S("true"), NULL, &err);
    pathgate_exec_result_dispose(&probe);
    if (rc) {
        assert_int_equal(rc, PATHGATE_EPOLICY);
        pathgate_resolver_free(r);
        pg_tmpdir_remove(tmp);
        skip();
    }
    pthread_t t[NTHREADS];
    worker w[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        w[i] = (worker){r, repo, i, 0, ""};
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < NTHREADS; i++)
        if (w[i].failures)
            fail_msg("thread %d: %s", i, w[i].message);
    pathgate_resolver_free(r);
    pg_tmpdir_remove(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_commands_under_a_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
