/* test_fs_mcp_threads.c - the MCP server's operations from many threads
 * on one resolver (as `pathgate mcp` runs them on its pool): each thread
 * makes, edits, moves, stats, reads and walks its own directory while the
 * others walk the whole base; every answer is right and nothing leaks.
 * Run under ThreadSanitizer by scripts/test.sh. */
/* ctest-labels: threads */
#include "fs_fixture.h"

#include <pthread.h>

#define THREADS 8
#define ROUNDS 20

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

typedef struct job {
    fx *f;
    int id;
    int failures;
} job;

static void *worker(void *p)
{
    job *j = p;
    pathgate_resolver *r = j->f->r;
    pathgate_error err;
    pathgate_buf b = PATHGATE_BUF_INIT, d = PATHGATE_BUF_INIT;
    char dir[64], a[96], m[96], addr[96];
    snprintf(dir, sizeof dir, "root:repo/t%d/x/y", j->id);
    for (int round = 0; round < ROUNDS; round++) {
        snprintf(a, sizeof a, "root:repo/t%d/x/y/f.txt", j->id);
        snprintf(m, sizeof m, "root:repo/t%d/m%d.txt", j->id, round);
        int ok = pathgate_fs_mkdir(&b, r, PG_S(dir), 1, NULL, &err) == 0 &&
                 pathgate_fs_write(NULL, r, PG_S(a), PG_S("one\ntwo\n"), NULL, &err) == 0;
        pathgate_fs_edit_op op = {PG_S("two"), PG_S("2"), 0};
        ok = ok && pathgate_fs_edits(&b, &d, r, PG_S(a), &op, 1, NULL, &err) == 0;
        ok = ok && pathgate_fs_move(&b, r, PG_S(a), PG_S(m), NULL, &err) == 0 &&
             strcmp(b.ptr, m) == 0;
        pathgate_fs_stat_result st = PATHGATE_FS_STAT_RESULT_INIT;
        ok = ok && pathgate_fs_stat(&st, r, PG_S(m), NULL, &err) == 0 && st.size == 6;
        pathgate_fs_stat_result_dispose(&st);
        ok = ok && pathgate_fs_tail(&b, r, PG_S(m), 1, NULL, &err) == 0 && b.len == 2 &&
             memcmp(b.ptr, "2\n", 2) == 0;
        pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
        snprintf(addr, sizeof addr, "root:repo/t%d", j->id);
        ok = ok && pathgate_fs_tree(&l, r, PG_S(addr), NULL, NULL, 0, NULL, &err) == 0 &&
             l.count == (size_t)(round + 3); /* x/, x/y/, m0..m<round> */
        pathgate_fs_list_dispose(&l);
        /* the whole base, while the others change it */
        ok = ok && pathgate_fs_tree(&l, r, PG_S("root:repo"), NULL, NULL, 0, NULL, &err) == 0;
        pathgate_fs_list_dispose(&l);
        if (!ok)
            j->failures++;
    }
    pathgate_buf_dispose(&b);
    pathgate_buf_dispose(&d);
    return NULL;
}

static void test_concurrent_operations(void **state)
{
    fx *f = *state;
    /* the fixture's resolver allocates with cmocka's allocator: use one
     * whose allocator is serialised */
    pathgate_resolver_free(f->r);
    int rc;
    f->r = fx_resolver(f, &locked_alloc, &rc);
    assert_int_equal(rc, 0);
    pthread_t t[THREADS];
    job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (job){f, i, 0};
        assert_int_equal(pthread_create(&t[i], NULL, worker, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(jobs[i].failures, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TESTS(test_concurrent_operations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
