/* test_resolver_race.c - directories swapped for outward symlinks by an
 * attacker thread while resolver threads resolve through them in a loop.
 * The marker file exists only outside the root, so any successful
 * existence check or open of it is an escape. Zero escapes, through
 * openat2 and through the fallback walk.
 */
/* ctest-labels: threads */
#define _GNU_SOURCE
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolver_internal.h"

#define RESOLVERS 2
#define RESOLVES_PER_THREAD 50000 /* 100,000 per mode */

typedef struct race {
    char *tmp;
    int base_fd;
    pathgate_resolver *r;
    atomic_int stop;
    atomic_long swaps;
} race;

typedef struct tally {
    race *race;
    long escapes;
    long resolves;
    long reasons[PATHGATE__REASON_LAST];
} tally;

/* cmocka's leak-checking allocator is not thread-safe: serialise it. */
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static void *l_malloc(size_t size, void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&alloc_lock);
    void *p = pg_test_alloc()->malloc(size, NULL);
    pthread_mutex_unlock(&alloc_lock);
    return p;
}
static void *l_realloc(void *ptr, size_t size, void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&alloc_lock);
    void *p = pg_test_alloc()->realloc(ptr, size, NULL);
    pthread_mutex_unlock(&alloc_lock);
    return p;
}
static void l_free(void *ptr, void *ctx)
{
    (void)ctx;
    pthread_mutex_lock(&alloc_lock);
    pg_test_alloc()->free(ptr, NULL);
    pthread_mutex_unlock(&alloc_lock);
}
static const pathgate_allocator locked_alloc = {l_malloc, l_realloc, l_free, NULL};

static void mk(const char *tmp, const char *rel, int dir, const char *content)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", tmp, rel) > 0);
    if (dir) {
        assert_int_equal(mkdir(p, 0700), 0);
    } else {
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs(content, f);
        fclose(f);
    }
    free(p);
}

static void ln(const char *tmp, const char *rel, const char *target)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", tmp, rel) > 0);
    assert_int_equal(symlink(target, p), 0);
    free(p);
}

static void *attacker(void *arg)
{
    race *rc = arg;
    /* each exchange flips a directory with an outward symlink; two in a
     * row restore it, so the directories alternate between the real
     * directory, a relative link out and an absolute link out */
    static const char *const pairs[][2] = {
        {"d", "swap_rel"},     {"d", "swap_rel"},     {"d", "swap_abs"},     {"d", "swap_abs"},
        {"a/d", "a/swap_rel"}, {"a/d", "a/swap_rel"}, {"a/d", "a/swap_abs"}, {"a/d", "a/swap_abs"},
    };
    size_t i = 0;
    while (!atomic_load(&rc->stop)) {
        const char *const *p = pairs[i++ % (sizeof pairs / sizeof *pairs)];
        if (renameat2(rc->base_fd, p[0], rc->base_fd, p[1], RENAME_EXCHANGE) == 0)
            atomic_fetch_add(&rc->swaps, 1);
    }
    return NULL;
}

static void *resolver_loop(void *arg)
{
    tally *t = arg;
    race *rc = t->race;
    static const char *const inputs[] = {"root:r/d/marker", "root:r/a/d/marker",
                                         "root:r/d/x/../marker"};
    pathgate_resolve_options o = PATHGATE_RESOLVE_OPTIONS_INIT;
    for (long i = 0; i < RESOLVES_PER_THREAD; i++) {
        const char *in = inputs[i % 3];
        o.require_exists = (int)(i / 3 % 2);
        pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
        if (pathgate_resolver_resolve(&res, rc->r, in, strlen(in), &o, NULL) != 0) {
            t->escapes = -1000000; /* resolve itself must not fail */
            return NULL;
        }
        t->resolves++;
        t->reasons[res.reason]++;
        if (res.ok) {
            if (res.exists)
                t->escapes++; /* the marker exists only outside */
            pathgate_resolver_release(rc->r, res.ref);
        }
        pathgate_resolution_dispose(&res);
        if (i % 16 == 0) { /* and the file operations' entry point */
            int fd = pathgate__resolver_open(NULL, rc->r, "root:r/d/marker", 15, O_RDONLY, 0);
            if (fd >= 0) {
                t->escapes++;
                close(fd);
            }
        }
    }
    return NULL;
}

static void run_race(unsigned flags)
{
    race rc;
    memset(&rc, 0, sizeof rc);
    rc.tmp = pg_tmpdir_make();
    assert_non_null(rc.tmp);
    mk(rc.tmp, "base", 1, NULL);
    mk(rc.tmp, "outside", 1, NULL);
    mk(rc.tmp, "outside/marker", 0, "outside");
    mk(rc.tmp, "base/d", 1, NULL);
    mk(rc.tmp, "base/a", 1, NULL);
    mk(rc.tmp, "base/a/d", 1, NULL);
    ln(rc.tmp, "base/swap_rel", "../outside");
    ln(rc.tmp, "base/a/swap_rel", "../../outside");
    char *abs = NULL;
    assert_true(asprintf(&abs, "%s/outside", rc.tmp) > 0);
    ln(rc.tmp, "base/swap_abs", abs);
    ln(rc.tmp, "base/a/swap_abs", abs);
    free(abs);

    char *base = NULL;
    assert_true(asprintf(&base, "%s/base", rc.tmp) > 0);
    rc.base_fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(rc.base_fd >= 0);
    pathgate_base_spec root = {"r", 1, base, strlen(base), 0};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = &root;
    o.nroots = 1;
    o.flags = flags;
    o.max_tokens = 1000000;
    o.allocator = &locked_alloc;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_new(&rc.r, &o, &err), 0);
    free(base);

    pthread_t att, th[RESOLVERS];
    tally tallies[RESOLVERS];
    memset(tallies, 0, sizeof tallies);
    assert_int_equal(pthread_create(&att, NULL, attacker, &rc), 0);
    for (int i = 0; i < RESOLVERS; i++) {
        tallies[i].race = &rc;
        assert_int_equal(pthread_create(&th[i], NULL, resolver_loop, &tallies[i]), 0);
    }
    for (int i = 0; i < RESOLVERS; i++)
        pthread_join(th[i], NULL);
    atomic_store(&rc.stop, 1);
    pthread_join(att, NULL);

    long escapes = 0, resolves = 0, reasons[PATHGATE__REASON_LAST] = {0};
    for (int i = 0; i < RESOLVERS; i++) {
        escapes += tallies[i].escapes;
        resolves += tallies[i].resolves;
        for (int k = 0; k < PATHGATE__REASON_LAST; k++)
            reasons[k] += tallies[i].reasons[k];
    }
    print_message(
        "%s: %ld resolves, %ld swaps, %ld escapes; ok %ld, not_found %ld, escapes_root %ld, "
        "not_a_directory %ld, io %ld\n",
        flags ? "fallback walk" : "openat2", resolves, (long)atomic_load(&rc.swaps), escapes,
        reasons[PATHGATE_REASON_OK], reasons[PATHGATE_REASON_NOT_FOUND],
        reasons[PATHGATE_REASON_ESCAPES_ROOT], reasons[PATHGATE_REASON_NOT_A_DIRECTORY],
        reasons[PATHGATE_REASON_IO]);
    assert_int_equal(resolves, RESOLVERS * RESOLVES_PER_THREAD);
    assert_int_equal(escapes, 0);
    /* the race really happened: both states of the directory were seen */
    assert_true(atomic_load(&rc.swaps) > 0);
    assert_true(reasons[PATHGATE_REASON_ESCAPES_ROOT] > 0);
    assert_true(reasons[PATHGATE_REASON_NOT_FOUND] + reasons[PATHGATE_REASON_OK] > 0);
    assert_int_equal(pathgate_resolver_token_count(rc.r), 0);

    pathgate_resolver_free(rc.r);
    close(rc.base_fd);
    pg_tmpdir_remove(rc.tmp);
}

static void test_swap_race_openat2(void **state)
{
    (void)state;
    run_race(0);
}

static void test_swap_race_fallback(void **state)
{
    (void)state;
    run_race(PATHGATE_RESOLVER_FORCE_FALLBACK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swap_race_openat2),
        cmocka_unit_test(test_swap_race_fallback),
    };
    return cmocka_run_group_tests_name("resolver_race", tests, NULL, NULL);
}
