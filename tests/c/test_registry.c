/* test_registry.c - the token registry: UUID4 minting, capacity, lookup
 * refusals, release, growth, memory per token, threads, fork, ENOMEM. */
/* ctest-labels: threads */
#define _GNU_SOURCE
#include "support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "registry.h"
#include "ref.h"

/* ------------------------------------------------ a thread-safe counter */
/* cmocka's test_malloc is not thread-safe, so the threaded tests use this
 * allocator instead; it still proves that nothing leaks (live == 0). */
typedef struct counting_alloc {
    pathgate_allocator alloc;
    atomic_size_t live_bytes;
    atomic_size_t live_blocks;
} counting_alloc;

#define HDR 16

static void *c_malloc(size_t size, void *ctx)
{
    counting_alloc *ca = ctx;
    unsigned char *p = malloc(size + HDR);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    atomic_fetch_add(&ca->live_bytes, size);
    atomic_fetch_add(&ca->live_blocks, 1);
    return p + HDR;
}
static void c_free(void *ptr, void *ctx)
{
    counting_alloc *ca = ctx;
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - HDR;
    size_t size;
    memcpy(&size, p, sizeof size);
    atomic_fetch_sub(&ca->live_bytes, size);
    atomic_fetch_sub(&ca->live_blocks, 1);
    free(p);
}
static void *c_realloc(void *ptr, size_t size, void *ctx)
{
    void *n = c_malloc(size, ctx);
    if (!n || !ptr)
        return n;
    size_t old;
    memcpy(&old, (unsigned char *)ptr - HDR, sizeof old);
    memcpy(n, ptr, old < size ? old : size);
    c_free(ptr, ctx);
    return n;
}
static void counting_init(counting_alloc *ca)
{
    ca->alloc.malloc = c_malloc;
    ca->alloc.realloc = c_realloc;
    ca->alloc.free = c_free;
    ca->alloc.ctx = ca;
    atomic_init(&ca->live_bytes, 0);
    atomic_init(&ca->live_blocks, 0);
}
static void counting_assert_empty(counting_alloc *ca)
{
    assert_int_equal(atomic_load(&ca->live_blocks), 0);
    assert_int_equal(atomic_load(&ca->live_bytes), 0);
}

/* ------------------------------------------------------------- helpers */

static void assert_uuid4(const pathgate_ref *ref)
{
    size_t len = 0;
    const char *t = pathgate_ref_token(ref, &len);
    assert_int_equal(len, 36);
    assert_int_equal(strlen(t), 36);
    for (size_t i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23)
            assert_int_equal(t[i], '-');
        else
            assert_true((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f'));
    }
    assert_int_equal(t[14], '4');           /* version nibble */
    assert_non_null(strchr("89ab", t[19])); /* RFC 4122 variant */
    char spelled[37];                       /* the registry's own spelling is libuuid's */
    uuid_unparse_lower(pathgate__ref_id(ref), spelled);
    assert_string_equal(t, spelled);
}

static int cmp_id(const void *a, const void *b)
{
    return memcmp(a, b, 16);
}

/* Sorts n 16-byte ids and fails on a duplicate. */
static void assert_unique(unsigned char (*ids)[16], size_t n)
{
    qsort(ids, n, 16, cmp_id);
    for (size_t i = 1; i < n; i++)
        assert_true(memcmp(ids[i - 1], ids[i], 16) != 0);
}

static pathgate__registry *new_reg(size_t max, const pathgate_allocator *alloc)
{
    pathgate__registry *reg = NULL;
    assert_int_equal(pathgate__registry_new(&reg, max, alloc), 0);
    assert_non_null(reg);
    return reg;
}

static pathgate_ref *mint(pathgate__registry *reg, size_t base, const char *address)
{
    pathgate_ref *ref = NULL;
    assert_int_equal(pathgate__registry_mint(&ref, reg, base, PG_S(address)), 0);
    assert_non_null(ref);
    return ref;
}

/* --------------------------------------------------------------- tests */

static void test_mint_lookup_release(void **state)
{
    (void)state;
    pathgate__registry *reg = new_reg(0, pg_test_alloc());
    assert_int_equal(pathgate__registry_count(reg), 0);
    pathgate_ref *ref = mint(reg, 3, "root:repo/common/a.txt");
    assert_uuid4(ref);
    assert_string_equal(pathgate_ref_address(ref, NULL), "root:repo/common/a.txt");
    assert_int_equal(pathgate__registry_count(reg), 1);

    size_t base = 99;
    assert_int_equal(pathgate__registry_lookup(&base, reg, ref), 1);
    assert_int_equal(base, 3);
    assert_int_equal(pathgate__registry_lookup(NULL, reg, ref), 1);

    /* a deserialised copy of the same (token, address) is the same ref */
    pathgate_ref *copy = NULL;
    assert_int_equal(pathgate_ref_new(&copy, pathgate_ref_token(ref, NULL), 36,
                                      PG_S("root:repo/common/a.txt"), pg_test_alloc(), NULL),
                     0);
    assert_int_equal(pathgate__registry_lookup(&base, reg, copy), 1);

    assert_int_equal(pathgate__registry_release(reg, ref), 1);
    assert_int_equal(pathgate__registry_count(reg), 0);
    base = 77;
    assert_int_equal(pathgate__registry_lookup(&base, reg, ref), 0);
    assert_int_equal(base, 77); /* untouched on a miss */
    assert_int_equal(pathgate__registry_lookup(&base, reg, copy), 0);
    assert_int_equal(pathgate__registry_release(reg, ref), 0); /* twice: nothing */
    assert_int_equal(pathgate__registry_release(reg, copy), 0);

    pathgate_ref_free(copy);
    pathgate_ref_free(ref);
    pathgate__registry_free(reg);
    pathgate__registry_free(NULL);
}

static void test_every_resolve_mints_a_new_token(void **state)
{
    (void)state;
    pathgate__registry *reg = new_reg(0, pg_test_alloc());
    pathgate_ref *a = mint(reg, 0, "root:repo/x");
    pathgate_ref *b = mint(reg, 0, "root:repo/x");
    assert_string_not_equal(pathgate_ref_token(a, NULL), pathgate_ref_token(b, NULL));
    assert_false(pathgate_ref_equal(a, b));
    assert_int_equal(pathgate__registry_count(reg), 2);
    assert_int_equal(pathgate__registry_release(reg, a), 1);
    assert_int_equal(pathgate__registry_lookup(NULL, reg, b), 1); /* b survives */
    pathgate_ref_free(a);
    pathgate_ref_free(b);
    pathgate__registry_free(reg);
}

static void test_lookup_refuses_forged_released_and_foreign(void **state)
{
    (void)state;
    pathgate__registry *reg = new_reg(0, pg_test_alloc());
    pathgate__registry *other = new_reg(0, pg_test_alloc());
    pathgate_ref *ref = mint(reg, 1, "root:repo/secret.txt");
    pathgate_ref *foreign = mint(other, 1, "root:repo/secret.txt");
    const char *token = pathgate_ref_token(ref, NULL);

    /* right token, wrong address (and a prefix / an extension of it) */
    const char *forged_addresses[] = {"root:repo/other.txt", "root:repo/secret.tx",
                                      "root:repo/secret.txt/x", "root:game/secret.txt"};
    for (size_t i = 0; i < sizeof forged_addresses / sizeof *forged_addresses; i++) {
        pathgate_ref *forged = NULL;
        assert_int_equal(
            pathgate_ref_new(&forged, token, 36, PG_S(forged_addresses[i]), pg_test_alloc(), NULL),
            0);
        size_t base = 42;
        assert_int_equal(pathgate__registry_lookup(&base, reg, forged), 0);
        assert_int_equal(base, 42);
        /* a forged ref cannot release the real token either */
        assert_int_equal(pathgate__registry_release(reg, forged), 0);
        pathgate_ref_free(forged);
    }
    assert_int_equal(pathgate__registry_lookup(NULL, reg, ref), 1);

    /* right address, a token never minted here */
    pathgate_ref *guessed = NULL;
    assert_int_equal(pathgate_ref_new(&guessed, PG_S("0f8fad5b-d9cb-469f-a165-70867728950e"),
                                      PG_S("root:repo/secret.txt"), pg_test_alloc(), NULL),
                     0);
    assert_int_equal(pathgate__registry_lookup(NULL, reg, guessed), 0);
    pathgate_ref_free(guessed);

    /* a ref minted by another registry, same address */
    assert_int_equal(pathgate__registry_lookup(NULL, reg, foreign), 0);
    assert_int_equal(pathgate__registry_release(reg, foreign), 0);
    assert_int_equal(pathgate__registry_lookup(NULL, other, ref), 0);

    /* released */
    assert_int_equal(pathgate__registry_release(reg, ref), 1);
    assert_int_equal(pathgate__registry_lookup(NULL, reg, ref), 0);

    /* misuse */
    assert_int_equal(pathgate__registry_lookup(NULL, NULL, ref), 0);
    assert_int_equal(pathgate__registry_lookup(NULL, reg, NULL), 0);
    assert_int_equal(pathgate__registry_release(NULL, ref), 0);
    assert_int_equal(pathgate__registry_release(reg, NULL), 0);
    assert_int_equal(pathgate__registry_count(NULL), 0);

    pathgate_ref_free(ref);
    pathgate_ref_free(foreign);
    pathgate__registry_free(reg);
    pathgate__registry_free(other);
}

static void test_mint_refuses_misuse(void **state)
{
    (void)state;
    pathgate__registry *reg = new_reg(0, pg_test_alloc());
    pathgate_ref *ref = (pathgate_ref *)0x1;
    assert_int_equal(pathgate__registry_mint(NULL, reg, 0, PG_S("root:a")), PATHGATE_EINVAL);
    assert_int_equal(pathgate__registry_mint(&ref, NULL, 0, PG_S("root:a")), PATHGATE_EINVAL);
    assert_null(ref);
    assert_int_equal(pathgate__registry_mint(&ref, reg, 0, NULL, 3), PATHGATE_EINVAL);
    assert_int_equal(pathgate__registry_mint(&ref, reg, (size_t)UINT32_MAX + 1, PG_S("root:a")),
                     PATHGATE_EINVAL);
    assert_int_equal(pathgate__registry_count(reg), 0);
    assert_int_equal(pathgate__registry_new(NULL, 1, NULL), PATHGATE_EINVAL);
    pathgate__registry_free(reg);
}

static void test_capacity_refuses_and_release_frees_a_slot(void **state)
{
    (void)state;
    pathgate__registry *reg = new_reg(3, pg_test_alloc());
    pathgate_ref *refs[3];
    for (int i = 0; i < 3; i++)
        refs[i] = mint(reg, 0, "root:repo/x");
    pathgate_ref *extra = (pathgate_ref *)0x1;
    assert_int_equal(pathgate__registry_mint(&extra, reg, 0, PG_S("root:repo/x")),
                     PATHGATE_ECAPACITY);
    assert_null(extra);
    assert_int_equal(pathgate__registry_count(reg), 3); /* nothing minted */
    /* every earlier token is still live */
    for (int i = 0; i < 3; i++)
        assert_int_equal(pathgate__registry_lookup(NULL, reg, refs[i]), 1);

    assert_int_equal(pathgate__registry_release(reg, refs[1]), 1);
    pathgate_ref *again = mint(reg, 0, "root:repo/y");
    assert_int_equal(pathgate__registry_count(reg), 3);
    assert_int_equal(pathgate__registry_mint(&extra, reg, 0, PG_S("root:repo/x")),
                     PATHGATE_ECAPACITY);
    /* the released token does not come back to life */
    assert_int_equal(pathgate__registry_lookup(NULL, reg, refs[1]), 0);

    for (int i = 0; i < 3; i++)
        pathgate_ref_free(refs[i]);
    pathgate_ref_free(again);
    pathgate__registry_free(reg); /* frees the live records too */
}

static void test_tokens_are_unique_uuid4(void **state)
{
    (void)state;
    enum { N = 3000 }; /* crosses several refills of the random pool */
    pathgate__registry *reg = new_reg(N, pg_test_alloc());
    unsigned char(*ids)[16] = malloc(sizeof *ids * N);
    assert_non_null(ids);
    for (size_t i = 0; i < N; i++) {
        pathgate_ref *ref = mint(reg, 0, "root:repo");
        assert_uuid4(ref);
        memcpy(ids[i], pathgate__ref_id(ref), 16);
        pathgate_ref_free(ref); /* the record stays live */
    }
    assert_int_equal(pathgate__registry_count(reg), N);
    assert_unique(ids, N);
    free(ids);
    pathgate__registry_free(reg);
}

/* ----------------------------------------------------- 4 threads at cap */

typedef struct cap_ctx {
    pathgate__registry *reg;
    size_t cap;
    pathgate_ref **refs; /* [cap + threads] */
    atomic_size_t next;
    atomic_int over_cap; /* set if a thread ever saw count > cap */
    atomic_int bad_code;
} cap_ctx;

static void *cap_worker(void *arg)
{
    cap_ctx *c = arg;
    for (;;) {
        pathgate_ref *ref = NULL;
        int rc = pathgate__registry_mint(&ref, c->reg, 0, PG_S("root:repo/file.txt"));
        if (pathgate__registry_count(c->reg) > c->cap)
            atomic_store(&c->over_cap, 1);
        if (rc == PATHGATE_ECAPACITY) {
            if (ref)
                atomic_store(&c->bad_code, 1);
            break;
        }
        if (rc != 0 || !ref) {
            atomic_store(&c->bad_code, 1);
            break;
        }
        size_t slot = atomic_fetch_add(&c->next, 1);
        c->refs[slot] = ref;
    }
    return NULL;
}

static void test_cap_holds_under_four_threads(void **state)
{
    (void)state;
    enum { THREADS = 4 };
    counting_alloc ca;
    counting_init(&ca);
    cap_ctx c;
    memset(&c, 0, sizeof c);
    c.cap = PATHGATE_MAX_TOKENS_DEFAULT; /* the default */
    c.reg = new_reg(0, &ca.alloc);
    c.refs = calloc(c.cap + THREADS, sizeof *c.refs);
    assert_non_null(c.refs);
    atomic_init(&c.next, 0);
    atomic_init(&c.over_cap, 0);
    atomic_init(&c.bad_code, 0);

    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, cap_worker, &c), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);

    assert_int_equal(atomic_load(&c.bad_code), 0);
    assert_int_equal(atomic_load(&c.over_cap), 0);
    assert_int_equal(atomic_load(&c.next), 10000); /* exactly the cap succeeded */
    assert_int_equal(pathgate__registry_count(c.reg), 10000);

    /* the 10,001st mint fails and mints nothing */
    pathgate_ref *extra = NULL;
    assert_int_equal(pathgate__registry_mint(&extra, c.reg, 0, PG_S("root:repo/x")),
                     PATHGATE_ECAPACITY);
    assert_null(extra);
    assert_int_equal(pathgate__registry_count(c.reg), 10000);

    unsigned char(*ids)[16] = malloc(sizeof *ids * c.cap);
    assert_non_null(ids);
    for (size_t i = 0; i < c.cap; i++) {
        assert_int_equal(pathgate__registry_lookup(NULL, c.reg, c.refs[i]), 1);
        assert_uuid4(c.refs[i]);
        memcpy(ids[i], pathgate__ref_id(c.refs[i]), 16);
    }
    assert_unique(ids, c.cap);
    free(ids);

    for (size_t i = 0; i < c.cap; i++)
        pathgate_ref_free(c.refs[i]);
    free(c.refs);
    pathgate__registry_free(c.reg);
    counting_assert_empty(&ca);
}

/* ---------------------------------------- 8 threads minting and releasing */

enum { CHURN_THREADS = 8, CHURN_ROUNDS = 4000, CHURN_WINDOW = 16 };

typedef struct churn_ctx {
    pathgate__registry *reg;
    unsigned char (*ids)[16]; /* [THREADS * ROUNDS] every token minted */
    atomic_int failures;
} churn_ctx;

typedef struct churn_arg {
    churn_ctx *c;
    int index;
} churn_arg;

static void *churn_worker(void *p)
{
    churn_arg *arg = p;
    churn_ctx *c = arg->c;
    pathgate_ref *window[CHURN_WINDOW] = {0};
    size_t base = (size_t)arg->index;
    char address[64];
    snprintf(address, sizeof address, "root:t%d/file", arg->index);
    unsigned seed = (unsigned)arg->index * 2654435761u + 1;
    for (int r = 0; r < CHURN_ROUNDS; r++) {
        int slot = (int)((seed = seed * 1103515245u + 12345u) >> 16) % CHURN_WINDOW;
        if (window[slot]) {
            size_t got = 999;
            /* still live, still ours, then released exactly once */
            if (pathgate__registry_lookup(&got, c->reg, window[slot]) != 1 || got != base ||
                pathgate__registry_release(c->reg, window[slot]) != 1 ||
                pathgate__registry_release(c->reg, window[slot]) != 0 ||
                pathgate__registry_lookup(NULL, c->reg, window[slot]) != 0)
                atomic_fetch_add(&c->failures, 1);
            pathgate_ref_free(window[slot]);
            window[slot] = NULL;
        }
        pathgate_ref *ref = NULL;
        if (pathgate__registry_mint(&ref, c->reg, base, address, strlen(address)) != 0) {
            atomic_fetch_add(&c->failures, 1);
            continue;
        }
        memcpy(c->ids[(size_t)arg->index * CHURN_ROUNDS + (size_t)r], pathgate__ref_id(ref), 16);
        window[slot] = ref;
    }
    for (int i = 0; i < CHURN_WINDOW; i++) {
        if (window[i] && pathgate__registry_release(c->reg, window[i]) != 1)
            atomic_fetch_add(&c->failures, 1);
        pathgate_ref_free(window[i]);
    }
    return NULL;
}

static void test_eight_threads_mint_and_release(void **state)
{
    (void)state;
    counting_alloc ca;
    counting_init(&ca);
    churn_ctx c;
    c.reg = new_reg(CHURN_THREADS * CHURN_WINDOW, &ca.alloc); /* exactly enough */
    c.ids = calloc((size_t)CHURN_THREADS * CHURN_ROUNDS, 16);
    assert_non_null(c.ids);
    atomic_init(&c.failures, 0);
    pthread_t t[CHURN_THREADS];
    churn_arg args[CHURN_THREADS];
    for (int i = 0; i < CHURN_THREADS; i++) {
        args[i].c = &c;
        args[i].index = i;
        assert_int_equal(pthread_create(&t[i], NULL, churn_worker, &args[i]), 0);
    }
    for (int i = 0; i < CHURN_THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&c.failures), 0);
    assert_int_equal(pathgate__registry_count(c.reg), 0);
    assert_unique(c.ids, (size_t)CHURN_THREADS * CHURN_ROUNDS);
    free(c.ids);
    pathgate__registry_free(c.reg);
    counting_assert_empty(&ca);
}

/* --------------------------------------------- growth and memory per token */

static void test_growth_to_a_large_cap(void **state)
{
    (void)state;
    enum { N = 200000 };
    counting_alloc ca;
    counting_init(&ca);
    pathgate__registry *reg = new_reg(1000000, &ca.alloc);
    pathgate_ref **refs = malloc(sizeof *refs * N);
    assert_non_null(refs);
    char address[64];
    for (size_t i = 0; i < N; i++) {
        int n = snprintf(address, sizeof address, "root:repo/dir/%zu.txt", i);
        assert_int_equal(pathgate__registry_mint(&refs[i], reg, i % 7, address, (size_t)n), 0);
    }
    assert_int_equal(pathgate__registry_count(reg), N);
    /* every record is found with its base after many doublings */
    for (size_t i = 0; i < N; i++) {
        size_t base = 99;
        assert_int_equal(pathgate__registry_lookup(&base, reg, refs[i]), 1);
        assert_int_equal(base, i % 7);
    }
    /* release every other one: backward-shift deletion keeps the rest reachable */
    for (size_t i = 0; i < N; i += 2)
        assert_int_equal(pathgate__registry_release(reg, refs[i]), 1);
    assert_int_equal(pathgate__registry_count(reg), N / 2);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(pathgate__registry_lookup(NULL, reg, refs[i]), (int)(i % 2));
    /* and the freed room is usable again */
    for (size_t i = 0; i < N; i += 2) {
        pathgate_ref_free(refs[i]);
        int n = snprintf(address, sizeof address, "root:repo/again/%zu", i);
        assert_int_equal(pathgate__registry_mint(&refs[i], reg, 1, address, (size_t)n), 0);
    }
    assert_int_equal(pathgate__registry_count(reg), N);
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(pathgate__registry_lookup(NULL, reg, refs[i]), 1);
        pathgate_ref_free(refs[i]);
    }
    free(refs);
    pathgate__registry_free(reg);
    counting_assert_empty(&ca);
}

static void test_memory_per_live_token_is_small(void **state)
{
    (void)state;
    enum { N = 10000 };
    const char *address = "root:repo/common/traits/00_traits.txt"; /* 37 bytes */
    counting_alloc ca;
    counting_init(&ca);
    pathgate__registry *reg = new_reg(N, &ca.alloc);
    size_t empty = atomic_load(&ca.live_bytes);
    for (size_t i = 0; i < N; i++) {
        pathgate_ref *ref = mint(reg, 0, address);
        pathgate_ref_free(ref); /* the caller's copy is not the registry's cost */
    }
    size_t per_token = (atomic_load(&ca.live_bytes) - empty) / N;
    print_message("registry: %zu bytes per live token (address of %zu bytes, %zu blocks)\n",
                  per_token, strlen(address), atomic_load(&ca.live_blocks));
    /* record (16 key + 8 + the address) plus its slot at load 3/8..3/4 */
    assert_true(per_token <= 24 + strlen(address) + 22);
    /* one allocation per token (plus the registry, its table and its pool) */
    assert_int_equal(atomic_load(&ca.live_blocks), N + 3);
    pathgate__registry_free(reg);
    counting_assert_empty(&ca);
}

/* ------------------------------------------------------------------ fork */

static void test_forked_child_does_not_repeat_tokens(void **state)
{
    (void)state;
    counting_alloc ca;
    counting_init(&ca);
    pathgate__registry *reg = new_reg(0, &ca.alloc);
    pathgate_ref *first = mint(reg, 0, "root:repo"); /* fills the pool */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        pathgate_ref *ref = NULL;
        int rc = pathgate__registry_mint(&ref, reg, 0, PG_S("root:repo"));
        unsigned char id[16] = {0};
        if (rc == 0)
            memcpy(id, pathgate__ref_id(ref), 16);
        ssize_t w = write(fds[1], id, 16);
        _exit(rc == 0 && w == 16 ? 0 : 1);
    }
    close(fds[1]);
    unsigned char child_id[16];
    assert_int_equal(read(fds[0], child_id, 16), 16);
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    pathgate_ref *next = mint(reg, 0, "root:repo"); /* the parent's next bytes */
    assert_true(memcmp(child_id, pathgate__ref_id(next), 16) != 0);
    assert_true(memcmp(child_id, pathgate__ref_id(first), 16) != 0);
    pathgate_ref_free(first);
    pathgate_ref_free(next);
    pathgate__registry_free(reg);
    counting_assert_empty(&ca);
}

/* ------------------------------------------------------ allocation chaos */

static int mint_body(const pathgate_allocator *alloc, void *ctx)
{
    (void)ctx;
    enum { N = 100 }; /* grows the table past its first size */
    pathgate__registry *reg = NULL;
    int rc = pathgate__registry_new(&reg, 1000, alloc);
    if (rc) {
        assert_null(reg);
        return rc;
    }
    pathgate_ref *refs[N] = {0};
    size_t minted = 0;
    for (size_t i = 0; i < N && rc == 0; i++) {
        rc = pathgate__registry_mint(&refs[i], reg, i, PG_S("root:repo/a"));
        if (rc == 0)
            minted++;
        else
            assert_null(refs[i]);
        /* a failed mint leaves no token behind */
        assert_int_equal(pathgate__registry_count(reg), minted);
    }
    for (size_t i = 0; i < minted; i++) {
        size_t base = 0;
        assert_int_equal(pathgate__registry_lookup(&base, reg, refs[i]), 1);
        assert_int_equal(base, i);
    }
    for (size_t i = 0; i < minted; i += 2)
        assert_int_equal(pathgate__registry_release(reg, refs[i]), 1);
    for (size_t i = 0; i < minted; i++)
        pathgate_ref_free(refs[i]);
    pathgate__registry_free(reg);
    return rc;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    long calls = pg_for_each_failing_alloc(mint_body, NULL);
    assert_true(calls > 200); /* 2 per mint, plus growth */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mint_lookup_release),
        cmocka_unit_test(test_every_resolve_mints_a_new_token),
        cmocka_unit_test(test_lookup_refuses_forged_released_and_foreign),
        cmocka_unit_test(test_mint_refuses_misuse),
        cmocka_unit_test(test_capacity_refuses_and_release_frees_a_slot),
        cmocka_unit_test(test_tokens_are_unique_uuid4),
        cmocka_unit_test(test_cap_holds_under_four_threads),
        cmocka_unit_test(test_eight_threads_mint_and_release),
        cmocka_unit_test(test_growth_to_a_large_cap),
        cmocka_unit_test(test_memory_per_live_token_is_small),
        cmocka_unit_test(test_forked_child_does_not_repeat_tokens),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests_name("registry", tests, NULL, NULL);
}
