/*
 * test_policy_threads.c - restrict publishes a new rule set while other
 * threads resolve, read and list under the old one (docs/policy.md): no
 * thread ever sees a half-built set, every answer is the old verdict or
 * the new one, and after restrict returns every thread sees the new one.
 * Audit events come from every thread at once. Subroots made from a shared
 * resolver keep its rules while threads use them and the parent is freed.
 */
/* ctest-labels: threads */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "pathgate/fs_toolkit.h"
#include "support.h"

#define THREADS 4
#define ROUNDS 300

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

typedef struct shared {
    pathgate_resolver *r;
    atomic_int restricted; /* set once restrict has returned */
    atomic_int bad;
    atomic_long events;
} shared;

static void count(const pathgate_audit_event *e, void *ctx)
{
    (void)e;
    atomic_fetch_add(&((shared *)ctx)->events, 1);
}

static void *worker(void *p)
{
    shared *s = p;
    for (int i = 0; i < ROUNDS; i++) {
        int after = atomic_load(&s->restricted);
        pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
        if (pathgate_resolver_resolve(&res, s->r, PG_S("root:repo/.env"), NULL, NULL) != 0 ||
            res.ok) /* hidden from the start */
            atomic_store(&s->bad, 1);
        pathgate_resolution_dispose(&res);
        if (pathgate_resolver_resolve(&res, s->r, PG_S("root:repo/b/x.txt"), NULL, NULL) != 0 ||
            (after && res.ok)) /* hidden once restrict returned */
            atomic_store(&s->bad, 2);
        if (res.ok)
            pathgate_resolver_release(s->r, res.ref);
        pathgate_resolution_dispose(&res);
        pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
        pathgate_error err;
        if (pathgate_fs_ls(&l, s->r, PG_S("root:repo"), NULL, &err) != 0)
            atomic_store(&s->bad, 3);
        for (size_t k = 0; k < l.count; k++)
            if (strstr(l.items[k].path, ".env") || (after && strstr(l.items[k].path, "/b/")))
                atomic_store(&s->bad, 4);
        pathgate_fs_list_dispose(&l);
    }
    return NULL;
}

static void test_restrict_while_others_resolve(void **state)
{
    (void)state;
    char *tmp = pg_tmpdir_make();
    char repo[600], p[700];
    snprintf(repo, sizeof repo, "%s/repo", tmp);
    mkdir(repo, 0755);
    snprintf(p, sizeof p, "%s/b", repo);
    mkdir(p, 0755);
    const char *files[] = {".env", "a.txt", "b/x.txt"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", repo, files[i]);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs("x\n", f);
        fclose(f);
    }
    shared s;
    memset(&s, 0, sizeof s);
    pathgate_base_spec roots[] = {{PG_S("repo"), repo, strlen(repo), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.allocator = &locked_alloc;
    static const char *const env[] = {".env"};
    o.deny_read = env;
    o.ndeny_read = 1;
    o.audit = count;
    o.audit_ctx = &s;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_new(&s.r, &o, &err), 0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker, &s), 0);
    for (int i = 0; i < 20; i++) { /* several sets published while they run */
        pathgate_policy_options po = PATHGATE_POLICY_OPTIONS_INIT;
        static const char *const more[] = {"nothing-here-*"};
        po.deny_write = more;
        po.ndeny_write = 1;
        assert_int_equal(pathgate_resolver_restrict(s.r, &po, &err), 0);
    }
    pathgate_policy_options po = PATHGATE_POLICY_OPTIONS_INIT;
    static const char *const b[] = {"b/"};
    po.deny_read = b;
    po.ndeny_read = 1;
    assert_int_equal(pathgate_resolver_restrict(s.r, &po, &err), 0);
    atomic_store(&s.restricted, 1);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&s.bad), 0);
    assert_true(atomic_load(&s.events) >= THREADS * ROUNDS); /* every .env refusal */
    pathgate_resolver_free(s.r);
    pg_tmpdir_remove(tmp);
}

typedef struct sub_shared {
    pathgate_resolver *parent;
    atomic_int made, bad;
    atomic_long events;
} sub_shared;

static void count_sub(const pathgate_audit_event *e, void *ctx)
{
    (void)e;
    atomic_fetch_add(&((sub_shared *)ctx)->events, 1);
}

static void *sub_worker(void *p)
{
    sub_shared *s = p;
    pathgate_error err;
    pathgate_resolver *keep = NULL;
    if (pathgate_fs_subroot(&keep, s->parent, PG_S("root:repo/c"), NULL, 0, NULL, &err) != 0)
        atomic_store(&s->bad, 1);
    atomic_fetch_add(&s->made, 1); /* after this the parent may go */
    for (int i = 0; keep && i < ROUNDS; i++) {
        pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
        if (pathgate_resolver_resolve(&res, keep, PG_S("root:c/.env"), NULL, NULL) != 0 || res.ok)
            atomic_store(&s->bad, 2);
        pathgate_resolution_dispose(&res);
        pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
        if (pathgate_fs_ls(&l, keep, PG_S("root:c"), NULL, &err) != 0 || l.count != 1 ||
            l.skipped_denied != 1)
            atomic_store(&s->bad, 3);
        pathgate_fs_list_dispose(&l);
        if (pathgate_fs_write(NULL, keep, PG_S("root:c/hooks/x"), PG_S("x"), NULL, &err) !=
            PATHGATE_EPOLICY)
            atomic_store(&s->bad, 4);
    }
    pathgate_resolver_free(keep);
    return NULL;
}

static void test_subroots_outlive_their_parent(void **state)
{
    (void)state;
    char *tmp = pg_tmpdir_make();
    char repo[600], p[700];
    snprintf(repo, sizeof repo, "%s/repo", tmp);
    mkdir(repo, 0755);
    snprintf(p, sizeof p, "%s/c", repo);
    mkdir(p, 0755);
    const char *files[] = {"c/.env", "c/ok.txt"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", repo, files[i]);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs("x\n", f);
        fclose(f);
    }
    sub_shared s;
    memset(&s, 0, sizeof s);
    pathgate_base_spec roots[] = {{PG_S("repo"), repo, strlen(repo), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.allocator = &locked_alloc;
    static const char *const env[] = {".env"};
    static const char *const hooks[] = {"c/hooks/"};
    o.deny_read = env;
    o.ndeny_read = 1;
    o.deny_write = hooks;
    o.ndeny_write = 1;
    o.audit = count_sub;
    o.audit_ctx = &s;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_new(&s.parent, &o, &err), 0);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, sub_worker, &s), 0);
    for (int i = 0; i < 10; i++) { /* the parent changes meanwhile */
        pathgate_policy_options po = PATHGATE_POLICY_OPTIONS_INIT;
        static const char *const more[] = {"nothing-here-*"};
        po.deny_write = more;
        po.ndeny_write = 1;
        assert_int_equal(pathgate_resolver_restrict(s.parent, &po, &err), 0);
    }
    while (atomic_load(&s.made) < THREADS)
        sched_yield();
    pathgate_resolver_free(s.parent); /* while the subroots are in use */
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&s.bad), 0);
    assert_true(atomic_load(&s.events) >= 2 * THREADS * ROUNDS);
    pg_tmpdir_remove(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restrict_while_others_resolve),
        cmocka_unit_test(test_subroots_outlive_their_parent),
    };
    return cmocka_run_group_tests_name("policy_threads", tests, NULL, NULL);
}
