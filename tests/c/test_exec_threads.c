/* test_exec_threads.c - contained commands from several threads at once:
 * each one gets its own output, its own private temporary directory and
 * its own confinement, and a thread that is not running a command keeps
 * its signal handling (the spawner blocks signals only around the clone).
 */
/* ctest-labels: threads */
#define _GNU_SOURCE
#include "support.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec_run.h"
#include "exec_landlock.h"

#define NTHREADS 4
#define ROUNDS 3

typedef struct shared {
    int root_fd;
    char secret[PATH_MAX];
} shared;

typedef struct worker {
    const shared *sh;
    int index;
    int failures;
    char message[512];
} worker;

static void *work(void *p)
{
    worker *w = p;
    for (int round = 0; round < ROUNDS; round++) {
        char cmd[PATH_MAX + 256];
        snprintf(cmd, sizeof cmd,
                 "ls -A \"$HOME\" | wc -l > home_%d_%d; touch \"$HOME/mine\"; printf 't%d r%d'; "
                 "cat '%s' 2>/dev/null; "
                 "echo x 2>/dev/null > /tmp/pathgate-thread-escape-%d; exit %d",
                 w->index, round, w->index, round, w->sh->secret, w->index, 10 + w->index);
        pathgate__exec_grant g = {w->sh->root_fd,
                                  PATHGATE__LL_READ | PATHGATE__LL_EXEC | PATHGATE__LL_WRITE,
                                  "root:repo"};
        pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
        pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
        o.timeout_ms = 30000;
        pathgate_error err;
        int rc = pathgate__exec_run_grants(&res, NULL, &g, 1, w->sh->root_fd, "/pathgate/root/repo",
                                           cmd, strlen(cmd), &o, &err);
        char expected[64];
        snprintf(expected, sizeof expected, "t%d r%d", w->index, round);
        if (rc != 0 || res.exit_code != 10 + w->index || strcmp(res.output.ptr, expected) != 0 ||
            res.landlock_abi < 1) {
            snprintf(w->message, sizeof w->message, "thread %d round %d: rc=%d exit=%d out=%s",
                     w->index, round, rc, res.exit_code,
                     res.output.ptr ? res.output.ptr
                     : rc           ? err.message
                                    : "(null)");
            w->failures++;
        }
        pathgate_exec_result_dispose(&res);
    }
    return NULL;
}

static void test_concurrent_commands_are_each_contained(void **state)
{
    (void)state;
    if (pathgate_exec_landlock_abi() < 1)
        skip();
    char *base = pg_tmpdir_make();
    assert_non_null(base);
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s/root", base);
    assert_int_equal(mkdir(root, 0755), 0);
    shared sh;
    snprintf(sh.secret, sizeof sh.secret, "%s/secret", base);
    FILE *f = fopen(sh.secret, "w");
    fputs("secret", f);
    fclose(f);
    sh.root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(sh.root_fd >= 0);

    pthread_t t[NTHREADS];
    worker w[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        w[i] = (worker){&sh, i, 0, ""};
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < NTHREADS; i++)
        if (w[i].failures)
            fail_msg("failures=%d: %s", w[i].failures, w[i].message);

    /* every command found its HOME (a private tmpfs) empty; no escape was
     * written */
    for (int i = 0; i < NTHREADS; i++) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "/tmp/pathgate-thread-escape-%d", i);
        assert_int_not_equal(access(p, F_OK), 0);
        for (int r = 0; r < ROUNDS; r++) {
            snprintf(p, sizeof p, "%s/home_%d_%d", root, i, r);
            FILE *h = fopen(p, "r");
            assert_non_null(h);
            int entries = -1;
            assert_int_equal(fscanf(h, "%d", &entries), 1);
            fclose(h);
            assert_int_equal(entries, 0);
        }
    }
    close(sh.root_fd);
    pg_tmpdir_remove(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_commands_are_each_contained),
    };
    return cmocka_run_group_tests_name("exec_threads", tests, NULL, NULL);
}
