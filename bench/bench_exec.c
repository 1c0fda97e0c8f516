/* bench_exec.c - per-call cost of a contained command against plain
 * process starts of the same `/bin/sh -c true`, measured in one run
 * (ratios, not assertions): through a resolver (its prepared view, each
 * command's start made ahead: docs/exec.md), a view built for the call
 * alone, and without confinement. Also the parts of the sandbox setup.
 *
 *   bench_exec [iterations]   (default 300)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pathgate/exec.h"
#include "pathgate/resolver.h"

#include "alloc.h"
#include "exec_run.h"
#include "exec_sandbox.h"
#include "exec_tmp.h"
#include "exec_landlock.h"

extern char **environ;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static char *const sh_argv[] = {"/bin/sh", "-c", "true", NULL};

static void run_fork_exec(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        execve("/bin/sh", sh_argv, environ);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
}

static void run_posix_spawn(void)
{
    pid_t pid;
    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, sh_argv, environ) == 0) {
        int st;
        waitpid(pid, &st, 0);
    }
}

static int root_fd;
static pathgate_resolver *resolver;

static void run_pathgate(void)
{
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    if (pathgate_exec_run(&res, resolver, "true", 4, NULL, &err) != 0 || res.exit_code != 0) {
        fprintf(stderr, "exec failed: %s\n", err.message);
        exit(1);
    }
    pathgate_exec_result_dispose(&res);
}

static void run_pathgate_fresh_view(void)
{
    pathgate__exec_grant g = {root_fd, PATHGATE__LL_READ | PATHGATE__LL_WRITE | PATHGATE__LL_EXEC,
                              "root:bench"};
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    if (pathgate__exec_run_grants(&res, NULL, &g, 1, root_fd, "/pathgate/root/bench", "true", 4,
                                  NULL, &err) != 0 ||
        res.exit_code != 0) {
        fprintf(stderr, "exec failed: %s\n", err.message);
        exit(1);
    }
    pathgate_exec_result_dispose(&res);
}

static void run_ruleset_only(void)
{
    pathgate__exec_grant g = {root_fd, PATHGATE__LL_READ | PATHGATE__LL_WRITE | PATHGATE__LL_EXEC,
                              "root:bench"};
    int rs;
    if (pathgate__exec_sandbox_build(&rs, pathgate__landlock_abi(), 1, &g, 1, NULL, 0, NULL) == 0)
        close(rs);
}

static void run_tmp_only(void)
{
    pathgate__exec_tmp tmp;
    pathgate_allocator a;
    pathgate__alloc_init(&a, NULL);
    if (pathgate__exec_tmp_make(&tmp, &a, NULL) == 0)
        pathgate__exec_tmp_remove(&tmp, &a);
}

static void run_pathgate_unconfined(void)
{
    pathgate__exec_grant g = {root_fd, PATHGATE__LL_READ | PATHGATE__LL_WRITE | PATHGATE__LL_EXEC,
                              "root:bench"};
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.flags = PATHGATE_EXEC_TEST_NO_LANDLOCK | PATHGATE_EXEC_TEST_NO_NAMESPACES;
    o.allow_unconfined = 1;
    if (pathgate__exec_run_grants(&res, NULL, &g, 1, root_fd, NULL, "true", 4, &o, NULL) != 0)
        exit(1);
    pathgate_exec_result_dispose(&res);
}

typedef struct variant {
    const char *name;
    void (*fn)(void);
    double *samples;
} variant;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300;
    if (n < 10)
        n = 10;
    int abi = pathgate__landlock_abi();
    if (abi < 1) {
        fprintf(stderr, "no Landlock on this kernel\n");
        return 1;
    }
    root_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return 1;
    pathgate_base_spec roots[1] = {{"bench", 5, cwd, strlen(cwd), 0}};
    pathgate_resolver_options ro = PATHGATE_RESOLVER_OPTIONS_INIT;
    ro.roots = roots;
    ro.nroots = 1;
    pathgate_error err;
    if (pathgate_resolver_new(&resolver, &ro, &err) != 0) {
        fprintf(stderr, "resolver: %s\n", err.message);
        return 1;
    }
    variant v[] = {
        {"posix_spawn `/bin/sh -c true` + waitpid", run_posix_spawn, NULL},
        {"fork + execve `/bin/sh -c true` + waitpid", run_fork_exec, NULL},
        {"pathgate_exec_run `true` (a resolver: the view prepared, the start made ahead)",
         run_pathgate, NULL},
        {"pathgate exec `true`, a view built for the call alone", run_pathgate_fresh_view, NULL},
        {"pathgate exec `true`, no namespaces, no Landlock (test flags)", run_pathgate_unconfined,
         NULL},
        {"  part: ruleset (grants + system paths)", run_ruleset_only, NULL},
        {"  part: private tmp dir make + remove", run_tmp_only, NULL},
    };
    size_t nv = sizeof v / sizeof v[0];
    for (size_t k = 0; k < nv; k++) {
        v[k].samples = calloc((size_t)n, sizeof(double));
        v[k].fn(); /* warm up */
    }
    /* Round-robin so that every variant sees the same machine load; the
     * median of the per-call times resists the outliers of a shared box. */
    for (int i = 0; i < n; i++) {
        for (size_t k = 0; k < nv; k++) {
            double t0 = now_us();
            v[k].fn();
            v[k].samples[i] = now_us() - t0;
        }
    }
    double med[16];
    for (size_t k = 0; k < nv; k++) {
        qsort(v[k].samples, (size_t)n, sizeof(double), cmp_double);
        med[k] = v[k].samples[n / 2];
    }
    printf("| %d calls each, interleaved, Landlock ABI %d | median us | vs posix_spawn |\n", n,
           abi);
    printf("|---|---:|---:|\n");
    for (size_t k = 0; k < nv; k++)
        printf("| %s | %.1f | %.2fx |\n", v[k].name, med[k], med[k] / med[0]);
    printf("\nthrough a resolver, confinement adds %.1f us = %.0f%% of a posix_spawn start\n",
           med[2] - med[0], 100.0 * (med[2] - med[0]) / med[0]);
    for (size_t k = 0; k < nv; k++)
        free(v[k].samples);
    pathgate_resolver_free(resolver);
    close(root_fd);
    return 0;
}
