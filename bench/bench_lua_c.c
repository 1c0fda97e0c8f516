/*
 * bench_lua_c.c - the C side of the Lua binding benchmark (bench/bench_lua.lua
 * runs it and the same work through `require "pathgate"`, then prints the
 * ratio). Not a test: it measures and prints, it asserts nothing about time.
 *
 * Usage: bench_lua_c ROOT_DIR ITERATIONS ROUNDS [OPERATION]
 * Prints one line per operation (or only OPERATION): `<name> <best ns per
 * op over ROUNDS>`, process CPU time (the clock Lua's os.clock reads).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pathgate/pathgate.h"

#define ADDRESS "root:repo/common/traits/00_traits.txt"
#define NATIVE "/home/user/projects/mod/common/traits/00_traits.txt"
#define URI "file:///home/user/projects/mod/common/traits/00_traits.txt"

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what, int rc)
{
    fprintf(stderr, "bench_lua_c: %s failed: %s\n", what, pathgate_errname(rc));
    exit(1);
}

/* Each op does exactly what the Lua loop body does through the binding. */
static void op_resolve(pathgate_resolver *r, const pathgate_uri *u)
{
    (void)u;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    int rc = pathgate_resolver_resolve(&res, r, ADDRESS, strlen(ADDRESS), NULL, NULL);
    if (rc != 0 || !res.ok)
        die("resolve", rc);
    pathgate_resolver_release(r, res.ref);
    pathgate_resolution_dispose(&res);
}

static void op_from_native(pathgate_resolver *r, const pathgate_uri *u)
{
    (void)r;
    (void)u;
    pathgate_uri *out = NULL;
    int rc = pathgate_uri_from_native(&out, NATIVE, strlen(NATIVE), PATHGATE_CONVENTION_NONE, NULL,
                                      NULL);
    if (rc != 0)
        die("from_native", rc);
    pathgate_uri_free(out);
}

static void op_parse(pathgate_resolver *r, const pathgate_uri *u)
{
    (void)r;
    (void)u;
    pathgate_uri *out = NULL;
    int rc = pathgate_uri_parse(&out, URI, strlen(URI), NULL, NULL);
    if (rc != 0)
        die("parse", rc);
    pathgate_uri_free(out);
}

static void op_to_native(pathgate_resolver *r, const pathgate_uri *u)
{
    (void)r;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    int rc = pathgate_uri_to_native(&buf, u, PATHGATE_CONVENTION_NONE, NULL);
    if (rc != 0)
        die("to_native", rc);
    pathgate_buf_dispose(&buf);
}

static const struct {
    const char *name;
    void (*fn)(pathgate_resolver *, const pathgate_uri *);
} OPS[] = {
    {"resolve", op_resolve},
    {"from_native", op_from_native},
    {"parse", op_parse},
    {"to_native", op_to_native},
};

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s ROOT_DIR ITERATIONS ROUNDS [OPERATION]\n", argv[0]);
        return 2;
    }
    long iterations = atol(argv[2]), rounds = atol(argv[3]);
    pathgate_base_spec root = {"repo", 4, argv[1], strlen(argv[1]), 0};
    pathgate_resolver_options opts = PATHGATE_RESOLVER_OPTIONS_INIT;
    opts.roots = &root;
    opts.nroots = 1;
    pathgate_resolver *r = NULL;
    pathgate_error err;
    int rc = pathgate_resolver_new(&r, &opts, &err);
    if (rc != 0) {
        fprintf(stderr, "bench_lua_c: resolver: %s\n", err.message);
        return 1;
    }
    pathgate_uri *u = NULL;
    if ((rc = pathgate_uri_parse(&u, URI, strlen(URI), NULL, NULL)) != 0)
        die("parse", rc);

    for (size_t k = 0; k < sizeof OPS / sizeof OPS[0]; k++) {
        if (argc == 5 && strcmp(argv[4], OPS[k].name) != 0)
            continue;
        double best = 0;
        for (long round = 0; round < rounds; round++) {
            double t0 = cpu_ns();
            for (long i = 0; i < iterations; i++)
                OPS[k].fn(r, u);
            double per = (cpu_ns() - t0) / (double)iterations;
            if (round == 0 || per < best)
                best = per;
        }
        printf("%s %.1f\n", OPS[k].name, best);
    }
    pathgate_uri_free(u);
    pathgate_resolver_free(r);
    return 0;
}
