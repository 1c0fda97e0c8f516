/* test_address.c - the address grammar, aliases, normalisation and
 * formatting, table-driven against a fixed set of configured names. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>

#include "address.h"

static const char *const roots[] = {"repo", "game", "ck3raven_data"};
static const char *const mods[] = {"SomeMod",
                                   "Mod With Spaces",
                                   "\xC3\x9Cn\xC3\xAF"
                                   "c\xC3\xB8"
                                   "d\xC3\xA9 Mod",
                                   "A",
                                   "A\\B",
                                   "Dots.."};

static long find(const char *const *set, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(set[i]) == len && memcmp(set[i], s, len) == 0)
            return (long)i;
    return -1;
}
static long find_root(void *ctx, const char *s, size_t len)
{
    (void)ctx;
    return find(roots, sizeof roots / sizeof *roots, s, len);
}
static long find_mod(void *ctx, const char *s, size_t len)
{
    (void)ctx;
    return find(mods, sizeof mods / sizeof *mods, s, len);
}
static const pathgate__names names = {find_root, find_mod, NULL};

/* the reason names from the table itself (this suite links no resolver) */
static const char *reason(pathgate_reason r)
{
    static const char *const table[] = {
#define X(name, text) text,
        PATHGATE_REASON_MAP(X)
#undef X
    };
    return (size_t)r < sizeof table / sizeof *table ? table[r] : "?";
}

/* Parses and builds: the canonical address, or "<form>" for a non-address
 * form, or "!<reason>" for a failure. */
/* The host whose paths the parser reads (the grammar table: POSIX). */
static pathgate_convention g_host = PATHGATE_CONVENTION_POSIX;

static const char *canon(char *out, size_t cap, const char *text, size_t len)
{
    pathgate__parsed p;
    pathgate_reason r = pathgate__address_parse(&p, text, len, &names, g_host);
    if (r != PATHGATE_REASON_OK) {
        snprintf(out, cap, "!%s", reason(r));
        return out;
    }
    switch (p.form) {
    case PATHGATE__FORM_URI:
        snprintf(out, cap, "<uri>%.*s", (int)p.len, p.text);
        return out;
    case PATHGATE__FORM_HOST:
        snprintf(out, cap, "<host>%.*s", (int)p.len, p.text);
        return out;
    case PATHGATE__FORM_RELATIVE:
        snprintf(out, cap, "<rel>%.*s", (int)p.len, p.text);
        return out;
    case PATHGATE__FORM_ADDRESS:
        break;
    }
    const char *name = p.is_mod ? mods[p.index] : roots[p.index];
    char buf[PATHGATE_PATH_MAX + 1];
    size_t n, off;
    r = pathgate__address_build(buf, sizeof buf, &n, &off, p.is_mod, name, strlen(name), "", 0,
                                p.text, p.len);
    if (r != PATHGATE_REASON_OK) {
        snprintf(out, cap, "!%s", reason(r));
        return out;
    }
    assert_int_equal(strlen(buf), n);
    assert_true(off <= n);
    snprintf(out, cap, "%s", buf);
    return out;
}

typedef struct row {
    const char *in;
    const char *out;
} row;

static const row table[] = {
    /* canonical root forms */
    {"root:repo", "root:repo"},
    {"root:repo/", "root:repo"},
    {"root:repo/common/traits/00_traits.txt", "root:repo/common/traits/00_traits.txt"},
    {"root:ck3raven_data/x", "root:ck3raven_data/x"},
    {"  root:repo/a  \n", "root:repo/a"},
    {"\t\r\n root:repo \v\f", "root:repo"},
    {"root:repo/ a b ", "root:repo/ a b"},
    {"root:repo\\common\\x.txt", "root:repo/common/x.txt"},
    {"root:repo//a///b/", "root:repo/a/b"},
    {"root:repo/./a/.", "root:repo/a"},
    {"root:repo/a/../b", "root:repo/b"},
    {"root:repo/a/..", "root:repo"},
    {"root:repo/a/b/../../c/./d/", "root:repo/c/d"},
    {"root:repo/...", "root:repo/..."},
    {"root:repo/.x/..y", "root:repo/.x/..y"},
    {"root:repo/a:/b", "root:repo/a:/b"},
    {"root:repo/~/x", "root:repo/~/x"},
    {"root:repo/..", "!escapes_root"},
    {"root:repo/a/../../b", "!escapes_root"},
    {"root:repo/../repo/x", "!escapes_root"},
    {"root:repo\\..\\x", "!escapes_root"},
    {"root:", "!unknown_root"},
    {"root:/x", "!unknown_root"},
    {"root:nope/x", "!unknown_root"},
    {"root:Repo/x", "!unknown_root"},
    {"root:repo-evil/x", "!unknown_root"},
    {"root:repox", "!unknown_root"},
    {"root:repo:/x", "!unknown_root"},
    {"root: repo/x", "!unknown_root"},
    /* legacy ROOT_<KEY>:/ */
    {"ROOT_REPO:/x", "root:repo/x"},
    {"ROOT_REPO:/common/traits/00_traits.txt", "root:repo/common/traits/00_traits.txt"},
    {"ROOT_REPO:\\x\\y", "root:repo/x/y"},
    {"ROOT_CK3RAVEN_DATA:/a", "root:ck3raven_data/a"},
    {"ROOT_Repo:/a", "root:repo/a"},
    {"ROOT_REPO:/", "root:repo"},
    {"  ROOT_GAME:/x/../y  ", "root:game/y"},
    {"ROOT_REPO:", "!syntax"},
    {"ROOT_REPO:x", "!syntax"},
    {"ROOT_REPO/x", "!syntax"},
    {"ROOT_:/x", "!syntax"},
    {"ROOT_1:/x", "!syntax"},
    {"ROOT_RE-PO:/x", "!syntax"},
    {"ROOT_NOPE:/x", "!unknown_root"},
    {"ROOT_REPO:/../x", "!escapes_root"},
    /* mod forms */
    {"mod:SomeMod/common/x", "mod:SomeMod/common/x"},
    {"mod:SomeMod", "mod:SomeMod"},
    {"mod:SomeMod/", "mod:SomeMod"},
    {"mod:SomeMod:/common/x", "mod:SomeMod/common/x"},
    {"mod:SomeMod:\\common", "mod:SomeMod/common"},
    {"mod:SomeMod:/", "mod:SomeMod"},
    {"mod:SomeMod/a:/b", "mod:SomeMod/a:/b"},
    {"mod:SomeMod/a/b:/c", "mod:SomeMod/a/b:/c"},
    {"mod:SomeMod\\x\\y", "mod:SomeMod/x/y"},
    {"mod:Mod With Spaces/x y/z", "mod:Mod With Spaces/x y/z"},
    {"  mod:Mod With Spaces  ", "mod:Mod With Spaces"},
    {"mod:\xC3\x9Cn\xC3\xAF"
     "c\xC3\xB8"
     "d\xC3\xA9 Mod/\xC3\x9F.txt",
     "mod:\xC3\x9Cn\xC3\xAF"
     "c\xC3\xB8"
     "d\xC3\xA9 Mod/\xC3\x9F.txt"},
    {"mod:A\\B", "mod:A\\B"},
    {"mod:A\\B\\x", "mod:A\\B/x"},
    {"mod:A\\x", "mod:A/x"},
    {"mod:A/B", "mod:A/B"},
    {"mod:A\\B:/x", "mod:A\\B/x"},
    {"mod:A\\C:/x", "mod:A/C:/x"},
    {"mod:Dots../x", "mod:Dots../x"},
    {"mod:SomeMod:", "!syntax"},
    {"mod:SomeMod:x", "!syntax"},
    {"mod:SomeMod::/x", "!syntax"},
    {"mod:somemod/x", "!unknown_mod"},
    {"mod:", "!unknown_mod"},
    {"mod:/x", "!unknown_mod"},
    {"mod::/x", "!unknown_mod"},
    {"mod:Nope/x", "!unknown_mod"},
    {"mod:SomeMod2/x", "!unknown_mod"},
    {"mod:Some/x", "!unknown_mod"},
    {"mod: SomeMod/x", "!unknown_mod"},
    {"mod:SomeMod/../x", "!escapes_root"},
    {"mod:SomeMod:/x/../..", "!escapes_root"},
    /* the view spelling: a leading `/` before root: or mod: */
    {"/root:repo", "root:repo"},
    {"/root:repo/", "root:repo"},
    {"/root:repo/common/x.txt", "root:repo/common/x.txt"},
    {"  /root:repo/a/../b ", "root:repo/b"},
    {"/mod:Mod With Spaces/x y", "mod:Mod With Spaces/x y"},
    {"/mod:SomeMod:/x", "mod:SomeMod/x"},
    {"/root:repo/..", "!escapes_root"},
    {"/root:nope/x", "!unknown_root"},
    {"/mod:Nope/x", "!unknown_mod"},
    {"//root:repo/x", "<host>//root:repo/x"},
    {"/ROOT_REPO:/x", "<host>/ROOT_REPO:/x"},
    {"/x/root:repo", "<host>/x/root:repo"},
    /* other forms */
    {"file:///x/y", "<uri>file:///x/y"},
    {"FILE:///x", "<uri>FILE:///x"},
    {" file://localhost/x ", "<uri>file://localhost/x"},
    {"/abs/x", "<host>/abs/x"},
    {"  /abs/x\n", "<host>/abs/x"},
    {"//server/share", "<host>//server/share"},
    {"relative/x", "<rel>relative/x"},
    {"a/b:c", "<rel>a/b:c"},
    {"./x", "<rel>./x"},
    {"../x", "<rel>../x"},
    {"~/x", "<rel>~/x"},
    {"x\\y", "<rel>x\\y"},
    {"repo", "<rel>repo"},
    {"C:\\x", "!outside_bases"},
    {"c:/x", "!outside_bases"},
    {"C:x", "!outside_bases"},
    {"\\\\server\\share\\x", "!outside_bases"},
    {"\\x", "!outside_bases"},
    {"http://x", "!syntax"},
    {"foo:bar", "!syntax"},
    {"a:b/c", "!outside_bases"}, /* drive-relative */
    {"ab:c/d", "!syntax"},
    {"root2:x", "!syntax"},
    {"Root:repo", "!syntax"},
    {"MOD:SomeMod/x", "!syntax"},
    {"root_repo:/x", "!syntax"},
    /* whitespace and control characters */
    {"", "!syntax"},
    {"   ", "!syntax"},
    {"\n\t", "!syntax"},
    {"root:repo/a\tb", "!syntax"},
    {"root:repo/a\x7f", "!syntax"},
    {"root:repo/\x01", "!syntax"},
    {"root:repo/a\nb", "!syntax"},
    {"mod:Some\x1bMod/x", "!syntax"},
    /* encoding */
    {"root:repo/\xff", "!encoding"},
    {"root:repo/\xC3", "!encoding"},
    {"root:repo/\xED\xA0\x80", "!encoding"},
    {"root:repo/\xC0\xAF", "!encoding"},
};

static void test_grammar_table(void **state)
{
    (void)state;
    char got[PATHGATE_PATH_MAX + 64];
    int failures = 0;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        canon(got, sizeof got, table[i].in, strlen(table[i].in));
        if (strcmp(got, table[i].out) != 0) {
            print_error("input \"%s\": expected \"%s\", got \"%s\"\n", table[i].in, table[i].out,
                        got);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* On a Windows host its absolute paths are host paths, in either
 * separator; drive-relative and rootless paths, which depend on a current
 * drive or directory, lie in no base; addresses read as on POSIX. */
static const struct {
    const char *in, *out;
} windows_table[] = {
    {"C:\\x", "<host>C:\\x"},
    {"c:/x/y.txt", "<host>c:/x/y.txt"},
    {"  D:\\Mods\\x \n", "<host>D:\\Mods\\x"},
    {"\\\\server\\share\\x", "<host>\\\\server\\share\\x"},
    {"//server/share/x", "<host>//server/share/x"},
    {"\\\\?\\C:\\x", "<host>\\\\?\\C:\\x"},
    {"C:x", "!outside_bases"},
    {"C:", "!outside_bases"},
    {"\\x", "!outside_bases"},
    {"/abs/x", "!outside_bases"},
    {"\\\\\\x", "!outside_bases"},
    {"a:b/c", "!outside_bases"},
    {"file:///C:/x", "<uri>file:///C:/x"},
    {"root:repo/a\\b", "root:repo/a/b"},
    {"/root:repo/x", "root:repo/x"},
    {"/pathgate/root/repo/x", "root:repo/x"},
    {"relative\\x", "<rel>relative\\x"},
    {"foo:bar", "!syntax"},
    {"C:\\x\xff", "!encoding"},
};

static void test_windows_host_table(void **state)
{
    (void)state;
    char got[PATHGATE_PATH_MAX + 64];
    int failures = 0;
    g_host = PATHGATE_CONVENTION_WINDOWS;
    for (size_t i = 0; i < sizeof windows_table / sizeof *windows_table; i++) {
        canon(got, sizeof got, windows_table[i].in, strlen(windows_table[i].in));
        if (strcmp(got, windows_table[i].out) != 0) {
            print_error("Windows host, input \"%s\": expected \"%s\", got \"%s\"\n",
                        windows_table[i].in, windows_table[i].out, got);
            failures++;
        }
    }
    g_host = PATHGATE_CONVENTION_POSIX;
    assert_int_equal(failures, 0);
}

static void test_canonical_output_is_a_fixed_point(void **state)
{
    (void)state;
    char got[PATHGATE_PATH_MAX + 64], again[PATHGATE_PATH_MAX + 64];
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        const char *out = table[i].out;
        if (out[0] == '!' || out[0] == '<')
            continue;
        canon(got, sizeof got, out, strlen(out));
        assert_string_equal(got, out);
        /* and split accepts exactly it */
        int is_mod;
        long index;
        const char *rel;
        size_t rel_len;
        assert_int_equal(
            pathgate__address_split(&is_mod, &index, &rel, &rel_len, out, strlen(out), &names), 0);
        canon(again, sizeof again, out, strlen(out));
        assert_string_equal(again, out);
    }
}

static void test_nul_and_length(void **state)
{
    (void)state;
    char got[64];
    assert_string_equal(canon(got, sizeof got, "root:repo/a\0b", 13), "!encoding");
    assert_string_equal(canon(got, sizeof got, "\0", 1), "!encoding");
    assert_string_equal(canon(got, sizeof got, "root:repo\0", 10), "!encoding");
    assert_string_equal(canon(got, sizeof got, NULL, 0), "!syntax");

    char *big = malloc(PATHGATE_PATH_MAX + 2);
    memcpy(big, "root:repo/", 10);
    for (size_t i = 10; i < PATHGATE_PATH_MAX + 1; i++)
        big[i] = (i % 100 == 0) ? '/' : 'a';
    big[PATHGATE_PATH_MAX + 1] = '\0';
    char *out = malloc(PATHGATE_PATH_MAX + 64);
    /* exactly PATHGATE_PATH_MAX bytes: accepted, and it is already canonical */
    canon(out, PATHGATE_PATH_MAX + 64, big, PATHGATE_PATH_MAX);
    assert_int_equal(strlen(out), PATHGATE_PATH_MAX);
    assert_memory_equal(out, big, PATHGATE_PATH_MAX);
    /* one more byte: too long, even if whitespace would be stripped */
    assert_string_equal(canon(out, 64, big, PATHGATE_PATH_MAX + 1), "!too_long");
    memset(big, ' ', PATHGATE_PATH_MAX + 1);
    memcpy(big + 100, "root:repo", 9);
    assert_string_equal(canon(out, 64, big, PATHGATE_PATH_MAX + 1), "!too_long");
    free(out);
    free(big);
}

static void test_build_joins_base_and_rel(void **state)
{
    (void)state;
    char buf[64];
    size_t n, off;
    assert_int_equal(pathgate__address_build(buf, sizeof buf, &n, &off, 0, PG_S("repo"),
                                             PG_S("a/b"), PG_S("../c")),
                     PATHGATE_REASON_OK);
    assert_string_equal(buf, "root:repo/a/c");
    assert_int_equal(n, 13);
    assert_string_equal(buf + off, "a/c");
    assert_int_equal(pathgate__address_build(buf, sizeof buf, &n, &off, 1, PG_S("Mod With Spaces"),
                                             PG_S(""), PG_S("")),
                     PATHGATE_REASON_OK);
    assert_string_equal(buf, "mod:Mod With Spaces");
    assert_int_equal(off, n);
    assert_string_equal(buf + off, "");
    assert_int_equal(
        pathgate__address_build(buf, sizeof buf, &n, &off, 0, PG_S("repo"), PG_S("a"), PG_S("..")),
        PATHGATE_REASON_OK);
    assert_string_equal(buf, "root:repo");
    assert_int_equal(pathgate__address_build(buf, sizeof buf, &n, &off, 0, PG_S("repo"), PG_S("a"),
                                             PG_S("../..")),
                     PATHGATE_REASON_ESCAPES_ROOT);
    assert_int_equal(pathgate__address_build(buf, sizeof buf, &n, &off, 0, PG_S("repo"),
                                             PG_S("x\\y"), PG_S(".\\z\\")),
                     PATHGATE_REASON_OK);
    assert_string_equal(buf, "root:repo/x/y/z");
    /* too long: exactly cap - 1 fits, one more does not */
    char small[16];
    assert_int_equal(pathgate__address_build(small, sizeof small, &n, &off, 0, PG_S("repo"),
                                             PG_S(""), PG_S("abcde")),
                     PATHGATE_REASON_OK); /* "root:repo/abcde" = 15 */
    assert_string_equal(small, "root:repo/abcde");
    assert_int_equal(pathgate__address_build(small, sizeof small, &n, &off, 0, PG_S("repo"),
                                             PG_S(""), PG_S("abcdef")),
                     PATHGATE_REASON_TOO_LONG);
    assert_int_equal(pathgate__address_build(small, sizeof small, &n, &off, 1,
                                             PG_S("AVeryLongModName"), PG_S(""), PG_S("")),
                     PATHGATE_REASON_TOO_LONG);
    /* a long detour that comes back still has to fit on the way */
    assert_int_equal(pathgate__address_build(small, sizeof small, &n, &off, 0, PG_S("repo"),
                                             PG_S(""), PG_S("a/../b")),
                     PATHGATE_REASON_OK);
    assert_string_equal(small, "root:repo/b");
}

static void test_split_accepts_only_exact_canonical(void **state)
{
    (void)state;
    int is_mod;
    long index;
    const char *rel;
    size_t rel_len;
    assert_int_equal(
        pathgate__address_split(&is_mod, &index, &rel, &rel_len, PG_S("root:repo"), &names), 0);
    assert_int_equal(is_mod, 0);
    assert_int_equal(index, 0);
    assert_string_equal(rel, "");
    assert_int_equal(rel_len, 0);
    assert_int_equal(
        pathgate__address_split(&is_mod, &index, &rel, &rel_len, PG_S("root:game/a/b c"), &names),
        0);
    assert_int_equal(index, 1);
    assert_int_equal(rel_len, 5);
    assert_memory_equal(rel, "a/b c", 5);
    assert_int_equal(
        pathgate__address_split(&is_mod, &index, &rel, &rel_len, PG_S("mod:A\\B/x"), &names), 0);
    assert_int_equal(is_mod, 1);
    assert_int_equal(index, 4);
    assert_memory_equal(rel, "x", 1);
    assert_int_equal(pathgate__address_split(&is_mod, &index, &rel, &rel_len,
                                             PG_S("mod:Mod With Spaces"), &names),
                     0);
    assert_int_equal(index, 1);

    static const char *const bad[] = {
        "root:repo/",
        "root:repo//a",
        "root:repo/./a",
        "root:repo/a/..",
        "root:repo/a/.",
        "root:repo/a\\b",
        " root:repo",
        "root:repo ",
        "ROOT_REPO:/x",
        "mod:SomeMod:/x",
        "root:nope",
        "root:",
        "mod:",
        "x",
        "",
        "root:repo-evil",
        "root:Repo",
        "mod:A\\B\\x",
        "root:repo/a\tb",
        "file:///x",
        "/abs",
        "root:repo/\xff",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (pathgate__address_split(&is_mod, &index, &rel, &rel_len, bad[i], strlen(bad[i]),
                                    &names) != -1)
            fail_msg("split accepted \"%s\"", bad[i]);
    assert_int_equal(
        pathgate__address_split(&is_mod, &index, &rel, &rel_len, "root:repo/a\0b", 13, &names), -1);
    assert_int_equal(
        pathgate__address_split(&is_mod, &index, &rel, &rel_len, "root:repo\0", 10, &names), -1);
}

static void test_key_and_name_validation(void **state)
{
    (void)state;
    static const char *const good_keys[] = {"repo", "ck3raven_data",   "a1",
                                            "a",    "local_user_docs", "x_"};
    static const char *const bad_keys[] = {"",    "Repo",     "1a", "_a", "a-b",
                                           "a b", "\xC3\xA4", "a:", "a/b"};
    for (size_t i = 0; i < sizeof good_keys / sizeof *good_keys; i++)
        assert_true(pathgate__address_key_valid(good_keys[i], strlen(good_keys[i])));
    for (size_t i = 0; i < sizeof bad_keys / sizeof *bad_keys; i++)
        if (pathgate__address_key_valid(bad_keys[i], strlen(bad_keys[i])))
            fail_msg("key \"%s\" accepted", bad_keys[i]);
    assert_false(pathgate__address_key_valid("repo\0", 5));
    assert_false(pathgate__address_key_valid(NULL, 0));

    static const char *const good_names[] = {
        "SomeMod", "Mod With Spaces", "\xC3\x9Cn\xC3\xAF", "A\\B", "..", "a.b-c_d (1) [x]"};
    static const char *const bad_names[] = {"",       "a/b",     "a:b",     "\xff", " lead",
                                            "trail ", "tab\tin", "del\x7f", "\xC3"};
    for (size_t i = 0; i < sizeof good_names / sizeof *good_names; i++)
        assert_true(pathgate__address_mod_name_valid(good_names[i], strlen(good_names[i])));
    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++)
        if (pathgate__address_mod_name_valid(bad_names[i], strlen(bad_names[i])))
            fail_msg("mod name \"%s\" accepted", bad_names[i]);
    assert_false(pathgate__address_mod_name_valid("a\0b", 3));
}

/* The one normaliser of relative text that symlinks and config files
 * give (the vcs pointers of exec_vcs.c, the hooks of policy_hooks.c). */
static void test_rel_normalise(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out; /* out NULL: -1 */
    } cases[] = {
        {"a/./b//c/../d", "a/b/d"},
        {"a/..", ""},
        {"", ""},
        {"./", ""},
        {"a/b/../../c/", "c"},
        {"..", NULL},
        {"a/../..", NULL},
        {"a/../../b", NULL},
        {"...", "..."},
        {"a/.b/..c", "a/.b/..c"},
    };
    char out[16];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = pathgate__rel_normalise(out, sizeof out, cases[i].in, strlen(cases[i].in));
        if (!cases[i].out) {
            assert_int_equal(rc, -1);
            continue;
        }
        assert_int_equal(rc, 0);
        assert_string_equal(out, cases[i].out);
    }
    /* too long for out: -1, never a cut result */
    assert_int_equal(pathgate__rel_normalise(out, sizeof out, "abcdefgh/ijklmnop", 17), -1);
    assert_int_equal(pathgate__rel_normalise(out, sizeof out, "abcdefgh/ijklmn", 15), 0);
    assert_string_equal(out, "abcdefgh/ijklmn");
    /* only the first n bytes count */
    assert_int_equal(pathgate__rel_normalise(out, sizeof out, "a/b/../c", 3), 0);
    assert_string_equal(out, "a/b");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar_table),
        cmocka_unit_test(test_windows_host_table),
        cmocka_unit_test(test_canonical_output_is_a_fixed_point),
        cmocka_unit_test(test_nul_and_length),
        cmocka_unit_test(test_build_joins_base_and_rel),
        cmocka_unit_test(test_split_accepts_only_exact_canonical),
        cmocka_unit_test(test_key_and_name_validation),
        cmocka_unit_test(test_rel_normalise),
    };
    return cmocka_run_group_tests_name("address", tests, NULL, NULL);
}
