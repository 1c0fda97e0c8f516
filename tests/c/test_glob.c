/* test_glob.c - the glob matcher of the file operations (pure). */
#include "support.h"

#include "glob.h"

typedef struct gcase {
    const char *pattern;
    const char *path;
    int match;
} gcase;

static const gcase cases[] = {
    /* a pattern without '/' matches a name at any depth */
    {"*.txt", "a.txt", 1},
    {"*.txt", "dir/a.txt", 1},
    {"*.txt", "d1/d2/d3/a.txt", 1},
    {"*.txt", "a.txt.bak", 0},
    {"*.txt", "a.TXT", 0}, /* case-sensitive */
    {"a.txt", "x/y/a.txt", 1},
    {"a.txt", "x/y/b.txt", 0},
    /* with '/', the path from the search root */
    {"dir/*.txt", "dir/a.txt", 1},
    {"dir/*.txt", "x/dir/a.txt", 0},
    {"dir/*.txt", "dir/sub/a.txt", 0},
    {"/dir/*.txt", "dir/a.txt", 1}, /* leading '/' ignored */
    {"dir//a.txt", "dir/a.txt", 1},
    /* `**` crosses directories, including none */
    {"**/*.txt", "a.txt", 1},
    {"**/*.txt", "a/b/c.txt", 1},
    {"src/**/*.js", "src/a.js", 1},
    {"src/**/*.js", "src/x/y/a.js", 1},
    {"src/**/*.js", "lib/a.js", 0},
    {"src/**", "src/a/b", 1},
    {"src/**", "src", 0}, /* a final ** names what is below */
    {"**", "a/b/c", 1},
    {"a/**/b/**/c", "a/b/c", 1},
    {"a/**/b/**/c", "a/x/b/y/z/c", 1},
    {"a/**/b/**/c", "a/x/y/c", 0},
    {"a**b", "axxb", 1}, /* ** inside a segment is * */
    {"a**b", "ax/xb", 0},
    /* leading dots need an explicit dot */
    {"*", ".hidden", 0},
    {"*", "visible", 1},
    {".*", ".hidden", 1},
    {"*.txt", ".a.txt", 0},
    {"?a", ".a", 0},
    {"[.]a", ".a", 0},
    {"**/*.txt", ".git/a.txt", 0},
    {"**/*.txt", "x/.git/a.txt", 0},
    {"*.txt", ".git/a.txt", 0},
    {".git/*.txt", ".git/a.txt", 1},
    {"**/.git/**", "x/.git/config", 1},
    {".github/**/*.yml", ".github/workflows/ci.yml", 1},
    {"\\.x", ".x", 1},
    {"a.*", "a.b", 1}, /* a dot not at the start is ordinary */
    /* ? and classes */
    {"?.txt", "a.txt", 1},
    {"?.txt", "ab.txt", 0},
    {"?.txt", "\xC3\xA9.txt", 1}, /* one code point, two bytes */
    {"??.txt", "\xC3\xA9.txt", 0},
    /* the strict decoder of text.h: an overlong (E0 80 80 would be U+0000),
     * a surrogate (ED A0 80) and F4 90 80 80 (above U+10FFFF) are not one
     * character each but one invalid byte per byte */
    {"?", "\xE0\x80\x80", 0},
    {"???", "\xE0\x80\x80", 1},
    {"?", "\xED\xA0\x80", 0},
    {"???", "\xED\xA0\x80", 1},
    {"?", "\xF4\x90\x80\x80", 0},
    {"????", "\xF4\x90\x80\x80", 1},
    {"[abc].txt", "b.txt", 1},
    {"[abc].txt", "d.txt", 0},
    {"[!abc].txt", "d.txt", 1},
    {"[!abc].txt", "a.txt", 0},
    {"[^abc].txt", "d.txt", 1},
    {"[a-c]x", "bx", 1},
    {"[a-c]x", "dx", 0},
    {"[]]x", "]x", 1},
    {"[!]]x", "]x", 0},
    {"[\xC3\xA9\xC3\xA8]", "\xC3\xA8", 1},
    {"[\xC3\xA0-\xC3\xBF]", "\xC3\xA9", 1},
    {"[*]", "*", 1},
    {"[*]", "x", 0},
    {"[abc", "[abc", 1}, /* unclosed: literal */
    {"a\\*b", "a*b", 1},
    {"a\\*b", "axb", 0},
    {"a[/]b", "a/b", 0},
    /* braces */
    {"*.{py,txt}", "a.py", 1},
    {"*.{py,txt}", "a.txt", 1},
    {"*.{py,txt}", "a.md", 0},
    {"{src,lib}/**/*.c", "lib/x/y.c", 1},
    {"{src,lib}/**/*.c", "test/y.c", 0},
    {"{a/b,c}", "a/b", 1},
    {"{a/b,c}", "x/a/b", 0}, /* the slashed alternative is anchored */
    {"{a/b,c}", "x/c", 1},   /* the other is not */
    {"a{b,{c,d}}e", "ade", 1},
    {"a{b,{c,d}}e", "abe", 1},
    {"a{b,{c,d}}e", "ace", 1},
    {"a{,x}b", "ab", 1},
    {"a{,x}b", "axb", 1},
    {"{a}", "{a}", 1}, /* no comma: literal */
    {"{a}", "a", 0},
    {"{a", "{a", 1},
    {"\\{a,b}", "{a,b}", 1},
    {"[{]a,b}", "{a,b}", 1},
    /* '*' within a name */
    {"*", "abc", 1},
    {"a*", "a", 1},
    {"*c", "abc", 1},
    {"a*b*c", "aXbYc", 1},
    {"a*b*c", "aXbY", 0},
    {"*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0},
    {"n\xC3\xA4me with space.txt", "d/n\xC3\xA4me with space.txt", 1},
    /* a trailing '/' names directories: no file matches */
    {"src/", "src", 0},
    {"/", "a", 0},
};

static void test_glob_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pathgate__glob *g = NULL;
        pathgate_error err;
        int rc = pathgate__glob_compile(&g, PG_S(cases[i].pattern), pg_test_alloc(), &err);
        if (rc != 0)
            fail_msg("compile '%s': %s", cases[i].pattern, err.message);
        int m = pathgate__glob_match_path(g, PG_S(cases[i].path));
        if (m != cases[i].match)
            fail_msg("'%s' vs '%s': expected %d, got %d", cases[i].pattern, cases[i].path,
                     cases[i].match, m);
        pathgate__glob_free(g);
    }
}

/* PATHGATE__GLOB_BASENAME: deepagents' rules (bare = a name at any depth,
 * dot-directories included; a leading '/' anchors). */
static const gcase basename_cases[] = {
    {"*.yml", ".github/workflows/ci.yml", 1},
    {"*.yml", "a/.b/.c/x.yml", 1},
    {"*.yml", "x.yml", 1},
    {"*.yml", ".x.yml", 0}, /* the name itself still needs an explicit dot */
    {"*", ".env", 0},
    {".env", "d/.env", 1},
    {"**/*.yml", ".github/ci.yml", 0}, /* `**` still never enters a dot-dir */
    {"/*.py", "top.py", 1},            /* a leading '/' anchors */
    {"/*.py", "src/app/main.py", 0},
    {"/src/*.py", "src/a.py", 1},
    {"src/*.py", "src/a.py", 1},
    {"src/*.py", "x/src/a.py", 0},
    {"{/a.txt,*.md}", "a.txt", 1},
    {"{/a.txt,*.md}", "d/a.txt", 0},
    {"{/a.txt,*.md}", ".d/r.md", 1},
};

static void test_glob_basename_flag(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof basename_cases / sizeof basename_cases[0]; i++) {
        const gcase *c = &basename_cases[i];
        pathgate__glob *g = NULL;
        pathgate_error err;
        int rc = pathgate__glob_compile_flags(&g, PG_S(c->pattern), PATHGATE__GLOB_BASENAME,
                                              pg_test_alloc(), &err);
        if (rc != 0)
            fail_msg("compile '%s': %s", c->pattern, err.message);
        int m = pathgate__glob_match_path(g, PG_S(c->path));
        if (m != c->match)
            fail_msg("basename '%s' vs '%s': expected %d, got %d", c->pattern, c->path, c->match,
                     m);
        pathgate__glob_free(g);
    }
}

static void test_glob_step_prunes_directories(void **state)
{
    (void)state;
    pathgate__glob *g = NULL;
    assert_int_equal(pathgate__glob_compile(&g, PG_S("src/**/*.js"), pg_test_alloc(), NULL), 0);
    size_t n = pathgate__glob_state_size(g);
    unsigned char s0[64], s1[64], s2[64];
    assert_true(n <= sizeof s0);
    pathgate__glob_start(g, s0);
    assert_int_equal(pathgate__glob_step(g, s1, s0, PG_S("lib")), 0); /* nothing below lib */
    assert_int_equal(pathgate__glob_step(g, s1, s0, PG_S("src")), 1);
    assert_int_equal(pathgate__glob_step(g, s2, s1, PG_S(".hidden")), 0);
    assert_int_equal(pathgate__glob_step(g, s2, s1, PG_S("x")), 1);
    pathgate__glob_step(g, s2, s1, PG_S("a.js"));
    assert_true(pathgate__glob_accepts(g, s2));
    pathgate__glob_free(g);

    /* a name-only pattern descends everywhere but into dot-directories */
    assert_int_equal(pathgate__glob_compile(&g, PG_S("*.txt"), pg_test_alloc(), NULL), 0);
    pathgate__glob_start(g, s0);
    assert_int_equal(pathgate__glob_step(g, s1, s0, PG_S("any")), 1);
    assert_int_equal(pathgate__glob_step(g, s1, s0, PG_S(".git")), 0);
    pathgate__glob_free(g);
}

static void test_glob_segment_matcher(void **state)
{
    (void)state;
    assert_true(pathgate__glob_match_segment(PG_S("*"), PG_S("")));
    assert_true(pathgate__glob_match_segment(PG_S(""), PG_S("")));
    assert_false(pathgate__glob_match_segment(PG_S(""), PG_S("a")));
    assert_false(pathgate__glob_match_segment(PG_S("?"), PG_S("")));
    /* an invalid byte in a name is one character */
    assert_true(pathgate__glob_match_segment(PG_S("?x"), PG_S("\xFFx")));
    assert_true(pathgate__glob_match_segment(PG_S("*x"), PG_S("\xFF\xFEx")));
    /* a dangling escape is a literal backslash */
    assert_true(pathgate__glob_match_segment(PG_S("a\\"), PG_S("a\\")));
}

static void test_glob_errors(void **state)
{
    (void)state;
    pathgate__glob *g = NULL;
    pathgate_error err;
    assert_int_equal(pathgate__glob_compile(&g, "", 0, pg_test_alloc(), &err), PATHGATE_EINVAL);
    assert_string_equal(err.message, "glob pattern is empty");
    assert_int_equal(pathgate__glob_compile(&g, "a\0b", 3, pg_test_alloc(), &err), PATHGATE_ENUL);
    assert_int_equal(pathgate__glob_compile(&g, "\xFF", 1, pg_test_alloc(), &err), PATHGATE_EUTF8);
    /* 2^9 alternatives */
    const char *many = "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
    assert_int_equal(pathgate__glob_compile(&g, PG_S(many), pg_test_alloc(), &err),
                     PATHGATE_EINVAL);
    assert_string_equal(err.message, "glob pattern has more than 256 alternatives");
    assert_null(g);
    /* 2^8 is fine */
    const char *ok = "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}";
    assert_int_equal(pathgate__glob_compile(&g, PG_S(ok), pg_test_alloc(), &err), 0);
    assert_true(pathgate__glob_match_path(g, PG_S("x/abababab")));
    pathgate__glob_free(g);
    pathgate__glob_free(NULL);
}

static int compile_body(const pathgate_allocator *alloc, void *ctx)
{
    (void)ctx;
    pathgate__glob *g = NULL;
    int rc = pathgate__glob_compile(&g, PG_S("{src,lib}/**/*.{c,h}"), alloc, NULL);
    if (rc < 0)
        return rc;
    int m = pathgate__glob_match_path(g, PG_S("lib/x/y.h"));
    pathgate__glob_free(g);
    assert_true(m);
    return 0;
}

static void test_glob_failing_allocations(void **state)
{
    (void)state;
    assert_true(pg_for_each_failing_alloc(compile_body, NULL) > 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glob_cases),
        cmocka_unit_test(test_glob_basename_flag),
        cmocka_unit_test(test_glob_step_prunes_directories),
        cmocka_unit_test(test_glob_segment_matcher),
        cmocka_unit_test(test_glob_errors),
        cmocka_unit_test(test_glob_failing_allocations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
