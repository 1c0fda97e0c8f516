/*
 * bench_resolve.c - what a resolve costs next to the kernel floor, and
 * whether it stays flat as the registry fills.
 *
 *   (a) resolve(require_exists=1) of an existing file (token released)
 *   (b) resolve(require_exists=0) of a missing file (token released)
 *   (c) the floor: openat2(O_PATH, RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS)
 *       + close of the same path, straight to the kernel
 *   (d) the registry alone: mint + release, and lookup
 *   (e) registry bytes per live token (counting allocator)
 *   (f) (a) with 10 and with 1,000,000 live tokens (max_tokens 1,100,000)
 *   (g) (a) on a resolver with ten deny_read patterns (docs/policy.md), and
 *       (a) again, alternated in short rounds on the thread's CPU clock:
 *       the policy's cost
 *
 * Each figure is the best of several timed runs (ns per operation). It
 * prints ratios measured in one run and asserts nothing about time.
 * Usage: bench_resolve [iterations]   (default 200000)
 *        bench_resolve --profile LIVE [iterations]
 *        bench_resolve --pair REPO GAME MOD REPS ROUNDS ADDRESS...
 *   the C side of bench/bench_python.py's Python-vs-C row: roots repo and
 *   game, mod "Some Mod", and what Resolver.resolve does per call there
 *   (resolve, then free the result; the token stays live), REPS passes
 *   over the addresses per round on a fresh resolver; prints the best
 *   round's ns per resolve.
 *   runs only (a), iterations times, with LIVE tokens held: for
 *   valgrind --tool=callgrind --toggle-collect=case_existing (instructions
 *   per resolve are stable where wall time is not) or perf.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pathgate/pathgate.h"
#include "ref.h"
#include "registry.h"

#define REPEATS 5
#define EXISTING "common/traits/00_traits.txt"
#define MISSING "common/traits/missing.txt"
#define LIVE_MANY 1000000
#define CAP_MANY 1100000

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_resolve: %s\n", what);
    exit(1);
}

/* ------------------------------------------------------------ the cases */

typedef struct bctx {
    pathgate_resolver *r;
    pathgate_resolver *policy; /* the same root, ten deny_read patterns */
    int root_fd;
    pathgate__registry *reg;
    pathgate_ref *probe; /* a live ref of reg, for lookups */
} bctx;

static void resolve_release(bctx *c, const char *text, int require_exists, int expect_exists)
{
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_resolve_options o = PATHGATE_RESOLVE_OPTIONS_INIT;
    o.require_exists = require_exists;
    if (pathgate_resolver_resolve(&res, c->r, text, strlen(text), &o, NULL) != 0 || !res.ok ||
        res.exists != expect_exists)
        die("resolve failed");
    pathgate_resolver_release(c->r, res.ref);
    pathgate_resolution_dispose(&res);
}

__attribute__((noinline)) static void case_existing(bctx *c)
{
    resolve_release(c, "root:repo/" EXISTING, 1, 1);
}

__attribute__((noinline)) static void case_policy(bctx *c)
{
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    if (pathgate_resolver_resolve(&res, c->policy, "root:repo/" EXISTING,
                                  strlen("root:repo/" EXISTING), NULL, NULL) != 0 ||
        !res.ok)
        die("resolve under the policy failed");
    pathgate_resolver_release(c->policy, res.ref);
    pathgate_resolution_dispose(&res);
}

/* Ten patterns of the shapes operators write (docs/policy.md). */
static const char *const ten_patterns[] = {
    "**/.env", ".env.*",   "*.pem",         "*.key",          "id_rsa*",
    ".npmrc",  "secrets/", "/build/cache/", "**/.git/hooks/", "*.{p12,pfx}",
};

static void case_missing(bctx *c)
{
    resolve_release(c, "root:repo/" MISSING, 0, 0);
}

static void case_floor(bctx *c)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    long fd = syscall(SYS_openat2, c->root_fd, EXISTING, &how, sizeof how);
    if (fd < 0)
        die("openat2 failed");
    close((int)fd);
}

static void case_mint_release(bctx *c)
{
    pathgate_ref *ref = NULL;
    if (pathgate__registry_mint(&ref, c->reg, 0, "root:repo/" EXISTING,
                                strlen("root:repo/" EXISTING)) != 0)
        die("mint failed");
    if (pathgate__registry_release(c->reg, ref) != 1)
        die("release failed");
    pathgate_ref_free(ref);
}

static void case_lookup(bctx *c)
{
    if (pathgate__registry_lookup(NULL, c->reg, c->probe) != 1)
        die("lookup failed");
}

static double time_case(void (*fn)(bctx *), bctx *c, long iters)
{
    double best = 1e300;
    for (long i = 0; i < iters / 10; i++) /* warm up */
        fn(c);
    for (int rep = 0; rep < REPEATS; rep++) {
        double t0 = now_ns();
        for (long i = 0; i < iters; i++)
            fn(c);
        double ns = (now_ns() - t0) / (double)iters;
        if (ns < best)
            best = ns;
    }
    return best;
}

/* One timed run of fn on the thread's CPU clock: ns per operation. */
static double time_cpu(void (*fn)(bctx *), bctx *c, long iters)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    for (long i = 0; i < iters; i++)
        fn(c);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)iters;
}

/* --------------------------------------------------- counting allocator */

typedef struct counting {
    pathgate_allocator alloc;
    atomic_size_t live;
} counting;

static void *c_malloc(size_t n, void *ctx)
{
    size_t *p = malloc(n + 16);
    if (!p)
        return NULL;
    *p = n;
    atomic_fetch_add(&((counting *)ctx)->live, n);
    return (char *)p + 16;
}
static void c_free(void *ptr, void *ctx)
{
    if (!ptr)
        return;
    size_t *p = (size_t *)((char *)ptr - 16);
    atomic_fetch_sub(&((counting *)ctx)->live, *p);
    free(p);
}
static void *c_realloc(void *ptr, size_t n, void *ctx)
{
    void *q = c_malloc(n, ctx);
    if (q && ptr) {
        size_t old = *(size_t *)((char *)ptr - 16);
        memcpy(q, ptr, old < n ? old : n);
        c_free(ptr, ctx);
    }
    return q;
}

static double bytes_per_token(size_t n, const char *address)
{
    counting ca = {{c_malloc, c_realloc, c_free, NULL}, 0};
    ca.alloc.ctx = &ca;
    pathgate__registry *reg = NULL;
    if (pathgate__registry_new(&reg, CAP_MANY, &ca.alloc) != 0)
        die("registry_new failed");
    size_t empty = atomic_load(&ca.live);
    for (size_t i = 0; i < n; i++) {
        pathgate_ref *ref = NULL;
        if (pathgate__registry_mint(&ref, reg, 0, address, strlen(address)) != 0)
            die("mint failed");
        pathgate_ref_free(ref); /* the caller's copy is not the registry's cost */
    }
    double per = (double)(atomic_load(&ca.live) - empty) / (double)n;
    pathgate__registry_free(reg);
    return per;
}

/* ------------------------------------------------------------------ tree */

static void mkdir_p(const char *base, const char *rel)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s/%s", base, rel) >= (int)sizeof p || mkdir(p, 0755) != 0)
        die("mkdir failed");
}

static void rm_tree(const char *tmp)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s/repo/" EXISTING, tmp) < (int)sizeof p)
        unlink(p);
    const char *dirs[] = {"repo/common/traits", "repo/common", "repo", ""};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        if (snprintf(p, sizeof p, "%s/%s", tmp, dirs[i]) < (int)sizeof p)
            rmdir(p);
    }
}

/* --pair: see the header. */
static int pair(char **argv, int argc)
{
    if (argc < 7)
        die("--pair REPO GAME MOD REPS ROUNDS ADDRESS...");
    long reps = atol(argv[4]), rounds = atol(argv[5]);
    char **addrs = argv + 6;
    size_t n = (size_t)(argc - 6);
    if (reps < 1 || rounds < 1)
        die("--pair: REPS and ROUNDS must be positive");
    pathgate_base_spec roots[2] = {{"repo", 4, argv[1], strlen(argv[1]), 0},
                                   {"game", 4, argv[2], strlen(argv[2]), 0}};
    pathgate_base_spec mods[1] = {{"Some Mod", 8, argv[3], strlen(argv[3]), 0}};
    double best = 1e300;
    for (long round = 0; round < rounds; round++) {
        pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
        o.roots = roots;
        o.nroots = 2;
        o.mods = mods;
        o.nmods = 1;
        o.max_tokens = (size_t)(10 * reps) * n;
        pathgate_resolver *r = NULL;
        pathgate_error err;
        if (pathgate_resolver_new(&r, &o, &err) != 0)
            die(err.message);
        double t0 = now_ns();
        for (long k = 0; k < reps; k++)
            for (size_t i = 0; i < n; i++) {
                pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
                if (pathgate_resolver_resolve(&res, r, addrs[i], strlen(addrs[i]), NULL, NULL) !=
                        0 ||
                    !res.ok)
                    die("--pair: resolve failed");
                pathgate_resolution_dispose(&res);
            }
        double ns = (now_ns() - t0) / (double)(reps * (long)n);
        if (ns < best)
            best = ns;
        pathgate_resolver_free(r);
    }
    printf("%.1f\n", best);
    return 0;
}

/* --profile: LIVE tokens held, then (a) iters times, untimed. */
static int profile(bctx *c, const char *tmp, size_t live, long iters)
{
    pathgate_resolution *held = calloc(live ? live : 1, sizeof *held);
    if (!held)
        die("out of memory");
    pathgate_resolve_options ro = PATHGATE_RESOLVE_OPTIONS_INIT;
    ro.require_exists = 0;
    const char *fill = "root:repo/" MISSING;
    for (size_t i = 0; i < live; i++) {
        held[i] = (pathgate_resolution)PATHGATE_RESOLUTION_INIT;
        if (pathgate_resolver_resolve(&held[i], c->r, fill, strlen(fill), &ro, NULL) != 0 ||
            !held[i].ok)
            die("fill failed");
    }
    for (long i = 0; i < iters; i++)
        case_existing(c);
    printf("bench_resolve --profile: %ld resolves with %zu live tokens\n", iters,
           pathgate_resolver_token_count(c->r) + 0);
    for (size_t i = 0; i < live; i++)
        pathgate_resolution_dispose(&held[i]);
    free(held);
    pathgate_ref_free(c->probe);
    pathgate__registry_free(c->reg);
    close(c->root_fd);
    pathgate_resolver_free(c->r);
    pathgate_resolver_free(c->policy);
    rm_tree(tmp);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--pair") == 0)
        return pair(argv + 1, argc - 1);
    long profile_live = -1;
    if (argc > 2 && strcmp(argv[1], "--profile") == 0) {
        profile_live = atol(argv[2]);
        argv += 2;
        argc -= 2;
        if (profile_live < 0 || profile_live > LIVE_MANY)
            die("--profile LIVE: 0 to 1000000");
    }
    long iters = argc > 1 ? atol(argv[1]) : 200000;
    if (iters < 100)
        iters = 100;

    const char *tbase = getenv("TMPDIR");
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s/pathgate-bench-XXXXXX", tbase && *tbase ? tbase : "/tmp") >=
            (int)sizeof tmp ||
        !mkdtemp(tmp))
        die("mkdtemp failed");
    mkdir_p(tmp, "repo");
    mkdir_p(tmp, "repo/common");
    mkdir_p(tmp, "repo/common/traits");
    char repo[2048], file[4096];
    snprintf(repo, sizeof repo, "%s/repo", tmp);
    snprintf(file, sizeof file, "%s/" EXISTING, repo);
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        die("create failed");
    close(fd);

    bctx c;
    memset(&c, 0, sizeof c);
    pathgate_base_spec roots[1] = {{"repo", 4, repo, strlen(repo), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.max_tokens = CAP_MANY;
    pathgate_error err;
    if (pathgate_resolver_new(&c.r, &o, &err) != 0)
        die(err.message);
    o.deny_read = ten_patterns;
    o.ndeny_read = sizeof ten_patterns / sizeof *ten_patterns;
    if (pathgate_resolver_new(&c.policy, &o, &err) != 0)
        die(err.message);
    o.deny_read = NULL;
    o.ndeny_read = 0;
    c.root_fd = open(repo, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (c.root_fd < 0)
        die("open root failed");
    if (pathgate__registry_new(&c.reg, CAP_MANY, NULL) != 0)
        die("registry_new failed");
    if (pathgate__registry_mint(&c.probe, c.reg, 0, "root:repo/" EXISTING,
                                strlen("root:repo/" EXISTING)) != 0)
        die("mint failed");

    if (profile_live >= 0)
        return profile(&c, tmp, (size_t)profile_live, iters);

    double floor_ns = time_case(case_floor, &c, iters);
    double a_ns = time_case(case_existing, &c, iters);
    double b_ns = time_case(case_missing, &c, iters);
    double mint_ns = time_case(case_mint_release, &c, iters * 5);
    /* (g): alternated in short rounds, so that both see the same machine,
     * timed on the thread's CPU clock (user + system: the kernel's part
     * counts, time spent descheduled does not); the best of each */
    double plain_ns = 1e300, policy_ns = 1e300;
    for (int round = 0; round < 40; round++) {
        double p0 = time_cpu(case_existing, &c, iters / 20);
        double p1 = time_cpu(case_policy, &c, iters / 20);
        if (p0 < plain_ns)
            plain_ns = p0;
        if (p1 < policy_ns)
            policy_ns = p1;
    }
    double lookup_ns = time_case(case_lookup, &c, iters * 5);

    /* (f): the same resolve with 10, then 1,000,000 live tokens */
    pathgate_resolution *held = calloc(LIVE_MANY, sizeof *held);
    if (!held)
        die("out of memory");
    size_t live = 0;
    pathgate_resolve_options ro = PATHGATE_RESOLVE_OPTIONS_INIT;
    ro.require_exists = 0;
    const char *fill = "root:repo/" MISSING;
    while (live < 10) {
        held[live] = (pathgate_resolution)PATHGATE_RESOLUTION_INIT;
        if (pathgate_resolver_resolve(&held[live], c.r, fill, strlen(fill), &ro, NULL) != 0 ||
            !held[live].ok)
            die("fill failed");
        live++;
    }
    double f10_ns = time_case(case_existing, &c, iters);
    size_t count10 = pathgate_resolver_token_count(c.r);
    double t0 = now_ns();
    while (live < LIVE_MANY) {
        held[live] = (pathgate_resolution)PATHGATE_RESOLUTION_INIT;
        if (pathgate_resolver_resolve(&held[live], c.r, fill, strlen(fill), &ro, NULL) != 0 ||
            !held[live].ok)
            die("fill failed");
        live++;
    }
    double fill_s = (now_ns() - t0) / 1e9;
    double f1m_ns = time_case(case_existing, &c, iters);
    double floor1m_ns = time_case(case_floor, &c, iters); /* the kernel's part, same moment */
    size_t count1m = pathgate_resolver_token_count(c.r);

    const char *address = "root:repo/" EXISTING;
    double bpt = bytes_per_token(100000, address);

    printf("pathgate bench_resolve: %ld iterations per case, best of %d runs\n\n", iters, REPEATS);
    printf("%-58s %10s %10s\n", "case", "ns/op", "vs (c)");
    printf("%-58s %10.0f %10.2f\n", "(c) floor: openat2(O_PATH, BENEATH) + close", floor_ns, 1.0);
    printf("%-58s %10.0f %10.2f\n", "(a) resolve, require_exists=1, existing file", a_ns,
           a_ns / floor_ns);
    printf("%-58s %10.0f %10.2f\n", "(b) resolve, require_exists=0, missing file", b_ns,
           b_ns / floor_ns);
    printf("%-58s %10.0f %10s\n", "(g) (a), CPU time, alternated with the line below", plain_ns,
           "-");
    printf("%-58s %10.0f %10s\n", "(g) (a) under ten deny_read patterns, CPU time", policy_ns, "-");
    printf("%-58s %10.0f %10s\n", "(d) registry mint + release (+ ref free)", mint_ns, "-");
    printf("%-58s %10.0f %10s\n", "(d) registry lookup", lookup_ns, "-");
    char label[128];
    snprintf(label, sizeof label, "(f) resolve (a) with %zu live tokens", count10);
    printf("%-58s %10.0f %10.2f\n", label, f10_ns, f10_ns / floor_ns);
    snprintf(label, sizeof label, "(f) resolve (a) with %zu live tokens", count1m);
    printf("%-58s %10.0f %10.2f\n", label, f1m_ns, f1m_ns / floor_ns);
    printf("%-58s %10.0f %10.2f\n", "(c) floor again, after (f)", floor1m_ns,
           floor1m_ns / floor_ns);
    printf("\n(a)/(c) = %.2f   (f) 1M/10 = %.2f   filling 1M tokens took %.1f s\n", a_ns / floor_ns,
           f1m_ns / f10_ns, fill_s);
    printf("(e) registry bytes per live token: %.1f (address of %zu bytes, 100000 tokens)\n", bpt,
           strlen(address));
    printf("(g) policy / plain = %.3f (ten patterns; the budget is 1.10)\n", policy_ns / plain_ns);

    for (size_t i = 0; i < live; i++)
        pathgate_resolution_dispose(&held[i]);
    free(held);
    pathgate_ref_free(c.probe);
    pathgate__registry_free(c.reg);
    close(c.root_fd);
    pathgate_resolver_free(c.r);
    pathgate_resolver_free(c.policy);
    rm_tree(tmp);
    return 0;
}
