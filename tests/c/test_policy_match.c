/*
 * test_policy_match.c - the pattern language of deny_read / deny_write
 * (docs/policy.md "Rules"), matched with no filesystem: anchoring, `**`,
 * directory rules, case folding and the letters that fold to ASCII,
 * trailing dots and spaces, braces, classes, escapes, exceptions (exact,
 * no leading dot), base prefixes, what is refused, and the below-a-
 * directory question a scan asks.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "policy_internal.h"
#include "support.h"

/* Bases of the tests: root:repo (0), root:game (1), mod:My Mod (2). */
static long lookup(void *ctx, int is_mod, const char *name, size_t len)
{
    (void)ctx;
    static const char *const roots[] = {"repo", "game"};
    if (is_mod)
        return len == 6 && memcmp(name, "My Mod", 6) == 0 ? 2 : -1;
    for (long i = 0; i < 2; i++)
        if (strlen(roots[i]) == len && memcmp(roots[i], name, len) == 0)
            return i;
    return -1;
}

static pathgate__ruleset *compile(const char *const *entries, size_t n, int *rc,
                                  pathgate_error *err)
{
    pathgate__rule_src src[16];
    assert_true(n <= 16);
    for (size_t i = 0; i < n; i++)
        src[i] = (pathgate__rule_src){entries[i], strlen(entries[i]), "test", 0};
    pathgate__ruleset *rs = NULL;
    *rc = pathgate__ruleset_compile(&rs, PATHGATE_POLICY_DENY_READ, src, n, lookup, NULL,
                                    pg_test_alloc(), err);
    return rs;
}

static int denied_in(const char *const *entries, size_t n, size_t base, const char *path)
{
    int rc;
    pathgate_error err;
    pathgate__ruleset *rs = compile(entries, n, &rc, &err);
    if (rc != 0)
        fail_msg("compile failed: %s", err.message);
    pathgate__ppath *p = malloc(sizeof *p);
    assert_int_equal(pathgate__ppath_init(p, path, strlen(path)), 0);
    size_t entry = 99;
    int d = pathgate__ruleset_match(rs, base, p, &entry);
    if (d)
        assert_true(entry < n);
    free(p);
    pathgate__ruleset_free(rs);
    return d;
}

typedef struct mcase {
    const char *entries[4];
    const char *path;
    int denied;
} mcase;

#define E(...)                                                                                     \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }

static const mcase cases[] = {
    /* a name at any depth, and everything below it */
    {E(".env"), ".env", 1},
    {E(".env"), "a/.env", 1},
    {E(".env"), "a/b/c/.env", 1},
    {E(".env"), ".env/inside", 1},
    {E(".env"), ".envx", 0},
    {E(".env"), "x.env", 0},
    {E(".env"), "a/env", 0},
    {E("**/.env"), "a/.env", 1},
    {E("**/.env"), ".env", 1},
    /* case, the letters that fold to ASCII, trailing dots and spaces */
    {E(".env"), ".ENV", 1},
    {E(".ENV"), ".env", 1},
    {E(".env"), "a/.Env/x", 1},
    {E(".env"), ".env.", 1},
    {E(".env"), ".env ", 1},
    {E(".env"), ".env. .", 1},
    {E("id_rsa*"),
     "id_r\xC5\xBF"
     "a",
     1}, /* U+017F long s */
    {E("*.key"),
     "server.\xE2\x84\xAA"
     "ey",
     1},                                         /* U+212A Kelvin */
    {E(".gitmodules"), ".g\xC4\xB1tmodules", 1}, /* U+0131 dotless i */
    {E(".gitmodules"), ".G\xC4\xB0TMODULES", 1}, /* U+0130 dotted I */
    {E(".env"), ".\xC3\xA9nv", 0},               /* other letters do not fold */
    /* wildcards of deny rules match a leading dot */
    {E("*.pem"), "cert.PEM", 1},
    {E("*.pem"), ".pem", 1},
    {E("*.pem"), "a/b/k.pem", 1},
    {E("*.pem"), "pem", 0},
    {E("id_rsa*"), "id_rsa", 1},
    {E("id_rsa*"), "ID_RSA.pub", 1},
    {E("id_rsa*"), "xid_rsa", 0},
    {E("*"), ".hidden", 1},
    /* a leading or inner slash anchors at the top of the base */
    {E("/build/x.txt"), "build/x.txt", 1},
    {E("/build/x.txt"), "a/build/x.txt", 0},
    {E("build/x.txt"), "a/build/x.txt", 0},
    {E("/notes"), "notes", 1},
    {E("/notes"), "a/notes", 0},
    /* directory rules */
    {E(".git/hooks/"), ".git/hooks", 1},
    {E(".git/hooks/"), ".git/hooks/pre-commit", 1},
    {E(".git/hooks/"), "sub/.git/hooks/pre-commit", 0},
    {E("**/.git/hooks/"), "sub/.git/hooks/pre-commit", 1},
    {E("**/.git/hooks/"), ".git/hooksx", 0},
    {E("**/.git/hooks/"), ".git/hook", 0},
    {E("**/.git/hooks/"), ".git", 0},
    {E("vendor/"), "vendor/a/b", 1},
    /* ** in the middle, at the end, alone */
    {E("a/**/b"), "a/b", 1},
    {E("a/**/b"), "a/x/y/b", 1},
    {E("a/**/b"), "a/x/b/c", 1},
    {E("a/**/b"), "x/a/b", 0},
    {E("foo/**"), "foo", 0},
    {E("foo/**"), "foo/x", 1},
    {E("foo/**"), "foo/x/y", 1},
    {E("**"), "x", 1},
    {E("**"), "", 0},
    {E("a/**/**/b"), "a/q/b", 1},
    {E("a**b"), "axyb", 1}, /* not a segment of its own: a star */
    {E("a**b"), "ax/yb", 0},
    /* one name */
    {E("*/secret"), "a/secret", 1},
    {E("*/secret"), "secret", 0},
    {E("*/secret"), "a/b/secret", 0},
    {E("?.txt"), "a.txt", 1},
    {E("?.txt"), "ab.txt", 0},
    {E("?.txt"), "\xC3\xA9.txt", 1}, /* one code point */
    {E("file[0-9].txt"), "file3.txt", 1},
    {E("file[0-9].txt"), "filex.txt", 0},
    {E("[!a]x"), "bx", 1},
    {E("[!a]x"), "ax", 0},
    {E("[^a]x"), "ax", 0},
    {E("[]]x"), "]x", 1},
    {E("\\*.txt"), "*.txt", 1},
    {E("\\*.txt"), "a.txt", 0},
    {E("a*b*c"), "aXbYbZc", 1},
    {E("a*b*c"), "aXbYbZ", 0},
    /* braces */
    {E("*.{pem,key}"), "a.key", 1},
    {E("*.{pem,key}"), "a.pem", 1},
    {E("*.{pem,key}"), "a.crt", 0},
    {E("{a,b{c,d}}.txt"), "bd.txt", 1},
    {E("{a,b{c,d}}.txt"), "b.txt", 0},
    {E("{x/y,z}"), "x/y", 1},
    {E("{x/y,z}"), "q/x/y", 0}, /* that alternative has a slash: anchored */
    {E("{x/y,z}"), "q/z", 1},
    {E("{single}"), "{single}", 1}, /* no comma: literal */
    /* exceptions: the last rule that applies decides */
    {E(".env*", "!.env.example"), ".env.example", 0},
    {E(".env*", "!.env.example"), "a/.env.example", 0},
    {E(".env*", "!.env.example"), ".env", 1},
    {E(".env*", "!.env.example"), ".env.local", 1},
    {E(".env*", "!.env.example"), ".ENV.EXAMPLE", 1}, /* exceptions are exact */
    {E(".env*", "!.env.example"), ".env.example.", 1},
    {E("!a", "a"), "a", 1},
    {E("a", "!a"), "a", 0},
    {E("secrets/", "!secrets/*"), "secrets/a", 0},
    {E("secrets/", "!secrets/*"), "secrets/.hidden", 1}, /* no leading dot */
    {E("secrets/", "!secrets/*"), "secrets", 1},
    {E("secrets/", "!secrets/*"), "secrets/a/b", 1}, /* exact: not below */
    {E("secrets/", "!secrets/public/"), "secrets/public/x", 0},
    {E("secrets/", "!secrets/public/"), "secrets/public", 0},
    {E("secrets/", "!secrets/public/"), "secrets/x", 1},
    {E("secrets/", "!**"), "secrets/.x", 1}, /* ** of an exception skips dot names */
    /* whitespace around an entry is not part of it */
    {E("  .env\t"), ".env", 1},
    /* . segments drop */
    {E("./notes"), "notes", 1},
    {E("./notes"), "a/notes", 0},
};

static void test_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const mcase *c = &cases[i];
        size_t n = 0;
        while (n < 4 && c->entries[n])
            n++;
        int d = denied_in(c->entries, n, 0, c->path);
        if (d != c->denied)
            fail_msg("case %zu: [%s%s%s] vs '%s': denied %d, expected %d", i, c->entries[0],
                     n > 1 ? ", " : "", n > 1 ? c->entries[1] : "", c->path, d, c->denied);
    }
}

static void test_base_prefixes(void **state)
{
    (void)state;
    const char *repo_x[] = {"root:repo/x"};
    assert_true(denied_in(repo_x, 1, 0, "x"));
    assert_true(denied_in(repo_x, 1, 0, "x/below"));
    assert_false(denied_in(repo_x, 1, 1, "x"));   /* another base */
    assert_false(denied_in(repo_x, 1, 0, "a/x")); /* from the top of the base */
    const char *mod_env[] = {"mod:My Mod/**/.env"};
    assert_true(denied_in(mod_env, 1, 2, "a/.env"));
    assert_true(denied_in(mod_env, 1, 2, ".env"));
    assert_false(denied_in(mod_env, 1, 0, ".env"));
    const char *whole[] = {"root:game"};
    assert_true(denied_in(whole, 1, 1, ""));
    assert_true(denied_in(whole, 1, 1, "any/thing"));
    assert_false(denied_in(whole, 1, 0, ""));
    const char *except[] = {"**/secret", "!root:game/secret"};
    assert_true(denied_in(except, 2, 0, "secret"));
    assert_false(denied_in(except, 2, 1, "secret"));
    assert_true(denied_in(except, 2, 1, "a/secret"));

    int rc;
    pathgate_error err;
    pathgate__ruleset *rs = compile(repo_x, 1, &rc, &err);
    assert_int_equal(rc, 0);
    assert_true(pathgate__ruleset_applies(rs, 0));
    assert_false(pathgate__ruleset_applies(rs, 1));
    const char *source = NULL;
    assert_string_equal(pathgate__ruleset_entry(rs, 0, &source), "root:repo/x");
    assert_string_equal(source, "test");
    assert_null(pathgate__ruleset_entry(rs, 1, NULL));
    pathgate__ruleset_free(rs);
    const char *glob[] = {"x"};
    rs = compile(glob, 1, &rc, &err);
    assert_true(pathgate__ruleset_applies(rs, 7));
    assert_int_equal(pathgate__ruleset_denies(rs), PATHGATE_POLICY_DENY_READ);
    pathgate__ruleset_free(rs);
}

static void test_refused_entries(void **state)
{
    (void)state;
    static const struct {
        const char *entry;
        size_t len;
        const char *in_message;
    } bad[] = {
        {"", 0, "empty pattern"},
        {"   ", 3, "empty pattern"},
        {"!", 1, "empty pattern"},
        {"/", 1, "names nothing"},
        {"//", 2, "names nothing"},
        {"a/../b", 6, "'..'"},
        {"..", 2, "'..'"},
        {"[abc", 4, "not closed"},
        {"x\\", 2, "escape"},
        {"root:nope/x", 11, "names no configured root"},
        {"root:", 5, "names no configured root"},
        {"mod:Other/x", 11, "names no configured mod"},
        {"a\0b", 3, "not valid text"},
        {"\xff", 1, "not valid text"},
        {"{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", 45, "too many brace alternatives"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pathgate__rule_src src = {bad[i].entry, bad[i].len, "test", 0};
        pathgate__ruleset *rs = (pathgate__ruleset *)1;
        pathgate_error err;
        pg_err_junk(&err);
        int rc = pathgate__ruleset_compile(&rs, PATHGATE_POLICY_DENY_WRITE, &src, 1, lookup, NULL,
                                           pg_test_alloc(), &err);
        if (rc != PATHGATE_ECONFIG)
            fail_msg("entry %zu: rc %d", i, rc);
        assert_null(rs);
        assert_int_equal(err.code, PATHGATE_ECONFIG);
        if (!strstr(err.message, bad[i].in_message) || !strstr(err.message, "deny_write entry"))
            fail_msg("entry %zu: message '%s'", i, err.message);
    }
    /* a NULL entry is misuse */
    pathgate__rule_src src = {NULL, 0, "test", 0};
    pathgate__ruleset *rs = NULL;
    pathgate_error err;
    assert_int_equal(pathgate__ruleset_compile(&rs, PATHGATE_POLICY_DENY_READ, &src, 1, lookup,
                                               NULL, pg_test_alloc(), &err),
                     PATHGATE_EINVAL);
}

static int may_below(const char *const *entries, size_t n, const char *dir)
{
    int rc;
    pathgate_error err;
    pathgate__ruleset *rs = compile(entries, n, &rc, &err);
    assert_int_equal(rc, 0);
    pathgate__ppath *p = malloc(sizeof *p);
    assert_int_equal(pathgate__ppath_init(p, dir, strlen(dir)), 0);
    int m = pathgate__ruleset_may_deny_below(rs, 0, p);
    free(p);
    pathgate__ruleset_free(rs);
    return m;
}

static void test_may_deny_below(void **state)
{
    (void)state;
    const char *any[] = {"**/.env"};
    assert_true(may_below(any, 1, ""));
    assert_true(may_below(any, 1, "a/b"));
    const char *anchored[] = {"/build/x"};
    assert_false(may_below(anchored, 1, "src"));
    assert_true(may_below(anchored, 1, "build"));
    assert_true(may_below(anchored, 1, ""));
    const char *deep[] = {"a/b/c"};
    assert_true(may_below(deep, 1, "a"));
    assert_true(may_below(deep, 1, "a/b"));
    assert_false(may_below(deep, 1, "a/x"));
    assert_true(may_below(deep, 1, "a/b/c/d")); /* below a denied directory */
    const char *hooks[] = {".git/hooks/"};
    assert_true(may_below(hooks, 1, ".git"));
    assert_false(may_below(hooks, 1, ".github"));
    const char *only_exceptions[] = {"!x"};
    assert_false(may_below(only_exceptions, 1, ""));
}

static void test_long_paths(void **state)
{
    (void)state;
    /* the longest rel splits; one more byte does not */
    char *p = malloc(PATHGATE_PATH_MAX + 2);
    for (size_t i = 0; i < PATHGATE_PATH_MAX; i++)
        p[i] = (i % 2) ? '/' : 'a';
    p[PATHGATE_PATH_MAX - 1] = 'b';
    p[PATHGATE_PATH_MAX] = '\0';
    pathgate__ppath *pp = malloc(sizeof *pp);
    assert_int_equal(pathgate__ppath_init(pp, p, PATHGATE_PATH_MAX), 0);
    assert_int_equal(pp->nfold, PATHGATE_PATH_MAX / 2);
    assert_int_equal(pathgate__ppath_init(pp, p, PATHGATE_PATH_MAX + 1), -1);
    const char *last[] = {"*b"};
    assert_true(denied_in(last, 1, 0, p));
    free(pp);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),           cmocka_unit_test(test_base_prefixes),
        cmocka_unit_test(test_refused_entries), cmocka_unit_test(test_may_deny_below),
        cmocka_unit_test(test_long_paths),
    };
    return cmocka_run_group_tests_name("policy_match", tests, NULL, NULL);
}
