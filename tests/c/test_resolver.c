/* test_resolver.c - resolver construction, every input form of resolve()
 * on a real tree (through openat2 and through the fallback walk), refs,
 * host_path, release, capacity, and allocation failure. */
#define _GNU_SOURCE
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os.h"
#include "registry.h"
#include "resolver_internal.h"

#ifndef O_PATH
#define O_PATH PATHGATE__OS_O_PATH /* Windows: a handle for attributes only */
#endif

/* Asserts buf holds the host path expected, then disposes of it. On
 * Windows a host path may spell its separators either way: they are
 * compared as one. */
static void assert_same_host_path(const char *host, const char *expected)
{
#ifdef _WIN32
    assert_non_null(host);
    char *got = strdup(host), *want = strdup(expected);
    for (char *c = got; *c; c++)
        *c = *c == '\\' ? '/' : *c;
    for (char *c = want; *c; c++)
        *c = *c == '\\' ? '/' : *c;
    assert_string_equal(got, want);
    free(got);
    free(want);
#else
    assert_string_equal(host, expected);
#endif
}

static void assert_host_path(pathgate_buf *buf, const char *expected)
{
#ifdef _WIN32
    assert_non_null(buf->ptr);
    char *got = strdup(buf->ptr), *want = strdup(expected);
    for (char *c = got; *c; c++)
        *c = *c == '\\' ? '/' : *c;
    for (char *c = want; *c; c++)
        *c = *c == '\\' ? '/' : *c;
    assert_string_equal(got, want);
    free(got);
    free(want);
    pathgate_buf_dispose(buf);
#else
    pg_assert_buf(buf, expected);
#endif
}

typedef struct fixture {
    char *tmp;               /* as made */
    char *real;              /* realpath(tmp) */
    pathgate_resolver *r[2]; /* [0] openat2, [1] forced fallback */
} fixture;

static char *cat(const char *a, const char *b)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s%s", a, b) > 0);
    return p;
}

static void mk(const char *tmp, const char *rel, int dir)
{
    char *p = cat(tmp, rel);
    if (dir) {
        assert_int_equal(pg_mkdir(p), 0);
    } else {
        FILE *f = pg_fopen(p, "w");
        assert_non_null(f);
        fputs("x", f);
        fclose(f);
    }
    free(p);
}

static void ln(const char *tmp, const char *rel, const char *target)
{
    char *p = cat(tmp, rel);
    assert_int_equal(pg_symlink(target, p), 0);
    free(p);
}

#define MOD_UNI                                                                                    \
    "\xC3\x9Cn\xC3\xAF"                                                                            \
    "c\xC3\xB8"                                                                                    \
    "d\xC3\xA9"

static void build_tree(const char *t)
{
    static const char *const dirs[] = {"/repo",
                                       "/repo/common",
                                       "/repo/common/traits",
                                       "/repo/dir",
                                       "/repo/nested_mod",
                                       "/repo-evil",
                                       "/game",
                                       "/game2",
                                       "/outside",
                                       "/mods",
                                       "/mods/Some Mod",
                                       "/mods/" MOD_UNI,
                                       "/mods/" MOD_UNI "/sub dir"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        mk(t, dirs[i], 1);
    static const char *const files[] = {"/repo/common/traits/00_traits.txt",
                                        "/repo/file.txt",
                                        "/repo/nested_mod/n.txt",
                                        "/repo-evil/secret.txt",
                                        "/game/g.txt",
                                        "/game2/g2.txt",
                                        "/outside/secret",
                                        "/mods/Some Mod/x.txt",
                                        "/mods/" MOD_UNI "/\xC3\x9F.txt",
                                        "/repo/100%.txt"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        mk(t, files[i], 0);
    ln(t, "/repo/link_in", "common");
    ln(t, "/repo/link_out", "../outside");
    char *abs = cat(t, "/outside/secret");
    ln(t, "/repo/link_abs", abs);
    free(abs);
    ln(t, "/repo/dangling_in", "nothere");
    ln(t, "/repo/dangling_out", "../nothere");
    ln(t, "/repo/dangling_via_missing", "missing/../../outside");
    ln(t, "/repo/proc_root", "/proc/self/root");
    ln(t, "/repo/loop", "loop");
    ln(t, "/alias_link", "game2");
}

static pathgate_resolver *make(const fixture *f, const char *tmp, const pathgate_allocator *alloc,
                               unsigned flags, size_t max_tokens, int *rc_out)
{
    char *d_repo = cat(tmp, "/repo"), *d_game = cat(tmp, "/game"),
         *d_alias = cat(tmp, "/alias_link"), *d_some = cat(tmp, "/mods/Some Mod"),
         *d_uni = cat(tmp, "/mods/" MOD_UNI), *d_nested = cat(tmp, "/repo/nested_mod");
    (void)f;
    pathgate_base_spec roots[] = {
        {PG_S("repo"), d_repo, strlen(d_repo), 0},
        {PG_S("game"), d_game, strlen(d_game), PATHGATE_BASE_READ_ONLY},
        {PG_S("alias"), d_alias, strlen(d_alias), 0},
    };
    pathgate_base_spec mods[] = {
        {PG_S("Some Mod"), d_some, strlen(d_some), 0},
        {PG_S(MOD_UNI), d_uni, strlen(d_uni), 0},
        {PG_S("Nested"), d_nested, strlen(d_nested), 0},
        {PG_S("GameMod"), d_game, strlen(d_game), 0},
    };
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 3;
    o.mods = mods;
    o.nmods = 4;
    o.flags = flags;
    o.max_tokens = max_tokens;
    o.allocator = alloc;
    pathgate_resolver *r = NULL;
    pathgate_error err;
    int rc = pathgate_resolver_new(&r, &o, &err);
    if (rc_out)
        *rc_out = rc;
    else if (rc != 0)
        fail_msg("resolver_new: %s", err.message);
    free(d_repo);
    free(d_game);
    free(d_alias);
    free(d_some);
    free(d_uni);
    free(d_nested);
    return r;
}

static fixture *the_fixture; /* the tree, built once per run */

static int group_setup(void **state)
{
    (void)state;
    fixture *f = calloc(1, sizeof *f);
    f->tmp = pg_tmpdir_make();
#ifdef _WIN32
    f->real = strdup(f->tmp); /* Z:/tmp/...: no link on the way */
#else
    f->real = realpath(f->tmp, NULL);
#endif
    build_tree(f->tmp);
    the_fixture = f;
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    fixture *f = the_fixture;
    free(f->real);
    pg_tmpdir_remove(f->tmp);
    free(f);
    return 0;
}

/* Fresh resolvers inside every test (cmocka checks leaks around the test
 * body, so what a resolver allocates must be freed within it). */
static fixture *begin(void)
{
    fixture *f = the_fixture;
    f->r[0] = make(f, f->tmp, pg_test_alloc(), 0, 0, NULL);
    f->r[1] = make(f, f->tmp, pg_test_alloc(), PATHGATE_RESOLVER_FORCE_FALLBACK, 0, NULL);
    return f;
}

static void end(fixture *f)
{
    pathgate_resolver_free(f->r[0]);
    pathgate_resolver_free(f->r[1]);
    f->r[0] = f->r[1] = NULL;
}

/* No text the library produced may contain the temp directory. */
static void assert_no_host_path(const fixture *f, const char *text)
{
    if (!text)
        return;
    if (strstr(text, f->tmp) || strstr(text, f->real) || strstr(text, "pathgate-test-"))
        fail_msg("host path leaked into \"%s\"", text);
}

typedef struct expectation {
    int ok;
    const char *address;  /* ok: the canonical address */
    const char *category; /* ok: root key or NULL */
    const char *rel;      /* ok: relative_path */
    int exists;           /* ok */
    pathgate_reason reason;
} expectation;

static void check(const fixture *f, pathgate_resolver *r, const char *text, size_t len,
                  int require_exists, const char *base, const expectation *e, const char *file,
                  int line)
{
    pathgate_resolve_options o = PATHGATE_RESOLVE_OPTIONS_INIT;
    o.require_exists = require_exists;
    o.base = base;
    o.base_len = base ? strlen(base) : 0;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_error err;
    size_t before = pathgate_resolver_token_count(r);
    int rc = pathgate_resolver_resolve(&res, r, text, len, &o, &err);
    if (rc != 0)
        fail_msg("%s:%d: resolve returned %s", file, line, pathgate_errname(rc));
    assert_no_host_path(f, res.error_message);
    if (res.ok != e->ok) {
        print_error("%s:%d: \"%.*s\" (require_exists=%d): expected %s, got %s (%s)\n", file, line,
                    (int)len, text, require_exists, e->ok ? "ok" : pathgate_reason_name(e->reason),
                    res.ok ? "ok" : "failure", pathgate_reason_name(res.reason));
        pathgate_resolution_dispose(&res);
        _fail(file, line);
    }
    if (!e->ok) {
        if (res.reason != e->reason) {
            print_error("%s:%d: \"%.*s\": expected reason %s, got %s\n", file, line, (int)len, text,
                        pathgate_reason_name(e->reason), pathgate_reason_name(res.reason));
            _fail(file, line);
        }
        assert_null(res.ref);
        assert_null(res.relative_path);
        assert_null(res.root_category);
        assert_null(res.mod_name);
        assert_string_equal(res.error_message, e->reason == PATHGATE_REASON_CAPACITY
                                                   ? PATHGATE_MSG_CAPACITY
                                                   : PATHGATE_MSG_INVALID);
        /* a failed resolve mints nothing */
        assert_int_equal(pathgate_resolver_token_count(r), before);
        return;
    }
    assert_int_equal(res.reason, PATHGATE_REASON_OK);
    assert_null(res.error_message);
    assert_non_null(res.ref);
    size_t alen, tlen;
    const char *addr = pathgate_ref_address(res.ref, &alen);
    const char *tok = pathgate_ref_token(res.ref, &tlen);
    if (strcmp(addr, e->address) != 0) {
        print_error("%s:%d: \"%.*s\": expected %s, got %s\n", file, line, (int)len, text,
                    e->address, addr);
        pathgate_resolution_dispose(&res);
        _fail(file, line);
    }
    assert_int_equal(alen, strlen(e->address));
    assert_int_equal(tlen, 36);
    assert_int_equal(strlen(tok), 36);
    if (e->category)
        assert_string_equal(res.root_category, e->category);
    else
        assert_null(res.root_category);
    if (strncmp(e->address, "mod:", 4) == 0) { /* a mod: address names its mod */
        size_t n = strcspn(e->address + 4, "/");
        assert_non_null(res.mod_name);
        assert_int_equal(strlen(res.mod_name), n);
        assert_memory_equal(res.mod_name, e->address + 4, n);
    } else {
        assert_null(res.mod_name);
    }
    assert_string_equal(res.relative_path, e->rel);
    if (res.exists != e->exists) {
        print_error("%s:%d: \"%.*s\": expected exists=%d\n", file, line, (int)len, text, e->exists);
        _fail(file, line);
    }
    assert_int_equal(pathgate_resolver_token_count(r), before + 1);
    assert_int_equal(pathgate_resolver_release(r, res.ref), 1);
    assert_int_equal(pathgate_resolver_token_count(r), before);
    pathgate_resolution_dispose(&res);
    assert_null(res.ref);
}

#define OK_(addr, cat_, rel, ex) (&(expectation){1, addr, cat_, rel, ex, PATHGATE_REASON_OK})
#define BAD(reason) (&(expectation){0, NULL, NULL, NULL, 0, PATHGATE_REASON_##reason})

/* both modes, given require_exists */
#define CHECK_RE(f, text, re, base, e)                                                             \
    do {                                                                                           \
        for (int m_ = 0; m_ < 2; m_++)                                                             \
            check((f), (f)->r[m_], (text), strlen(text), (re), (base), (e), __FILE__, __LINE__);   \
    } while (0)
/* both modes, both require_exists */
#define CHECK(f, text, base, e)                                                                    \
    do {                                                                                           \
        CHECK_RE(f, text, 1, base, e);                                                             \
        CHECK_RE(f, text, 0, base, e);                                                             \
    } while (0)

static void test_canonical_and_alias_forms(void **state)
{
    (void)state;
    fixture *f = begin();
    CHECK(f, "root:repo/common/traits/00_traits.txt", NULL,
          OK_("root:repo/common/traits/00_traits.txt", "repo", "common/traits/00_traits.txt", 1));
    CHECK(f, "root:repo", NULL, OK_("root:repo", "repo", "", 1));
    CHECK(f, "  root:repo/  ", NULL, OK_("root:repo", "repo", "", 1));
    CHECK(f, "root:repo\\common\\traits", NULL,
          OK_("root:repo/common/traits", "repo", "common/traits", 1));
    CHECK(f, "root:repo//common/./traits/../traits/", NULL,
          OK_("root:repo/common/traits", "repo", "common/traits", 1));
    CHECK(f, "ROOT_REPO:/common", NULL, OK_("root:repo/common", "repo", "common", 1));
    CHECK(f, "ROOT_GAME:\\g.txt", NULL, OK_("root:game/g.txt", "game", "g.txt", 1));
    CHECK(f, "mod:Some Mod/x.txt", NULL, OK_("mod:Some Mod/x.txt", NULL, "x.txt", 1));
    CHECK(f, "mod:Some Mod:/x.txt", NULL, OK_("mod:Some Mod/x.txt", NULL, "x.txt", 1));
    CHECK(f, "mod:Some Mod", NULL, OK_("mod:Some Mod", NULL, "", 1));
    CHECK(f, "mod:" MOD_UNI "/\xC3\x9F.txt", NULL,
          OK_("mod:" MOD_UNI "/\xC3\x9F.txt", NULL, "\xC3\x9F.txt", 1));
    CHECK(f, "mod:" MOD_UNI ":/sub dir", NULL, OK_("mod:" MOD_UNI "/sub dir", NULL, "sub dir", 1));
    CHECK(f, "root:repo/100%.txt", NULL, OK_("root:repo/100%.txt", "repo", "100%.txt", 1));
    /* `:/` after the name only: here `a:` is a directory name */
    /* (on Windows `:` is no character of a name: a stream) */
    CHECK_RE(f, "mod:Some Mod/a:/b", 0, NULL,
             LINUX_OR_WINDOWS(OK_("mod:Some Mod/a:/b", NULL, "a:/b", 0), BAD(SYNTAX)));
    CHECK_RE(f, "mod:Some Mod/a:/b", 1, NULL, LINUX_OR_WINDOWS(BAD(NOT_FOUND), BAD(SYNTAX)));
    /* the fast paths (normalised printable ASCII copied whole) agree with
     * the segment walk at every edge */
    CHECK(f, "root:repo/common/", NULL, OK_("root:repo/common", "repo", "common", 1));
    CHECK(f, "root:repo/common/..", NULL, OK_("root:repo", "repo", "", 1));
    CHECK(f, "root:repo/common/traits/.", NULL,
          OK_("root:repo/common/traits", "repo", "common/traits", 1));
    CHECK(f, "root:repo/./common", NULL, OK_("root:repo/common", "repo", "common", 1));
    CHECK(f, "root:repo/common//traits", NULL,
          OK_("root:repo/common/traits", "repo", "common/traits", 1));
    CHECK(f, "root:repo/common\\traits", NULL,
          OK_("root:repo/common/traits", "repo", "common/traits", 1));
    /* (a name ending in a dot is no Windows name) */
    CHECK_RE(f, "root:repo/.hidden/..x/...", 0, NULL,
             LINUX_OR_WINDOWS(OK_("root:repo/.hidden/..x/...", "repo", ".hidden/..x/...", 0),
                              BAD(SYNTAX)));
    CHECK_RE(f, "root:repo/common/.x", 0, NULL, OK_("root:repo/common/.x", "repo", "common/.x", 0));
    end(f);
}

static void test_unknown_and_malformed(void **state)
{
    (void)state;
    fixture *f = begin();
    CHECK(f, "root:", NULL, BAD(UNKNOWN_ROOT));
    CHECK(f, "root:nope/x", NULL, BAD(UNKNOWN_ROOT));
    CHECK(f, "root:repo-evil/secret.txt", NULL, BAD(UNKNOWN_ROOT));
    CHECK(f, "ROOT_NOPE:/x", NULL, BAD(UNKNOWN_ROOT));
    CHECK(f, "mod:", NULL, BAD(UNKNOWN_MOD));
    CHECK(f, "mod:Nope/x", NULL, BAD(UNKNOWN_MOD));
    CHECK(f, "mod:some mod/x.txt", NULL, BAD(UNKNOWN_MOD));
    CHECK(f, "mod:Some Mod:x", NULL, BAD(SYNTAX));
    CHECK(f, "http://example.com/x", NULL, BAD(SYNTAX));
    CHECK(f, "", NULL, BAD(SYNTAX));
    CHECK(f, " \t\n", NULL, BAD(SYNTAX));
    CHECK(f, "root:repo/a\tb", NULL, BAD(SYNTAX));
    CHECK(f, "root:repo/\x1b[31m", NULL, BAD(SYNTAX));
    CHECK(f, "root:repo/\xff", NULL, BAD(ENCODING));
    /* a bad byte anywhere in an 8-byte word or in the tail */
    CHECK(f, "root:re\x7fpo/x", NULL, BAD(SYNTAX));
    CHECK(f,
          "root:repo/ab\x7f"
          "cdefgh/x",
          NULL, BAD(SYNTAX));
    CHECK(f, "root:repo/abcdefgh\x1f", NULL, BAD(SYNTAX));
    CHECK(f, "root:repo/abcdefghijklmno\x01p", NULL, BAD(SYNTAX));
    CHECK(f,
          "root:repo/abc\x80"
          "defgh",
          NULL, BAD(ENCODING));
    CHECK(f, "root:repo/abcdefgh\xc3", NULL, BAD(ENCODING));
    CHECK(f, "C:\\Windows\\x", NULL, BAD(OUTSIDE_BASES));
    CHECK(f, "\\\\server\\share\\x", NULL, BAD(OUTSIDE_BASES));
    CHECK(f, "common/traits", NULL, BAD(RELATIVE_WITHOUT_BASE));
    for (int m = 0; m < 2; m++) {
        check(f, f->r[m], "root:repo/a\0b", 13, 0, NULL, BAD(ENCODING), __FILE__, __LINE__);
        check(f, f->r[m], "\0", 1, 0, NULL, BAD(ENCODING), __FILE__, __LINE__);
    }
    char *big = malloc(PATHGATE_PATH_MAX + 2);
    memcpy(big, "root:repo/", 10);
    for (size_t i = 10; i <= PATHGATE_PATH_MAX; i++)
        big[i] = (i % 200 == 0) ? '/' : 'a';
    big[PATHGATE_PATH_MAX + 1] = '\0';
    for (int m = 0; m < 2; m++) {
        check(f, f->r[m], big, PATHGATE_PATH_MAX + 1, 0, NULL, BAD(TOO_LONG), __FILE__, __LINE__);
        /* exactly the limit: structurally valid, simply not there */
        check(f, f->r[m], big, PATHGATE_PATH_MAX, 1, NULL, BAD(NOT_FOUND), __FILE__, __LINE__);
    }
    /* one segment longer than NAME_MAX: the kernel says too long */
    memset(big + 10, 'b', 300);
    big[310] = '\0';
    CHECK(f, big, NULL, BAD(TOO_LONG));
    free(big);
    end(f);
}

/* A path through a link leading out: escapes_root, on Windows too, where
 * a link whose target cannot be read (wine's) is taken to lead out. */
#define CHECK_LINK_OUT(f, text) CHECK(f, text, NULL, BAD(ESCAPES_ROOT))
/* A dangling link leading out: wine lists no dangling link, so there the
 * path is a miss (not found when it must exist, exists 0 when it need
 * not); an open or create through it is still refused. That acceptance is
 * skipped by name (docs/windows.md, "What wine cannot show"). */
#ifdef _WIN32
#define CHECK_DANGLING_OUT(f, text)                                                                \
    do {                                                                                           \
        CHECK_RE(f, text, 1, NULL, BAD(NOT_FOUND));                                                \
        print_message("SKIPPED: %s with require_exists 0 (Windows: wine-unlisted: accepted as "    \
                      "a miss)\n",                                                                 \
                      text);                                                                       \
    } while (0)
#else
#define CHECK_DANGLING_OUT(f, text) CHECK(f, text, NULL, BAD(ESCAPES_ROOT))
#endif

static void test_existence_and_containment(void **state)
{
    (void)state;
    fixture *f = begin();
    CHECK_RE(f, "root:repo/nothere", 1, NULL, BAD(NOT_FOUND));
    CHECK_RE(f, "root:repo/nothere", 0, NULL, OK_("root:repo/nothere", "repo", "nothere", 0));
    CHECK_RE(f, "root:repo/nothere/deeper/x", 0, NULL,
             OK_("root:repo/nothere/deeper/x", "repo", "nothere/deeper/x", 0));
    CHECK(f, "root:repo/file.txt/x", NULL, BAD(NOT_A_DIRECTORY));
    CHECK(f, "root:repo/..", NULL, BAD(ESCAPES_ROOT));
    CHECK(f, "root:repo/common/../../outside/secret", NULL, BAD(ESCAPES_ROOT));
    CHECK_LINK_OUT(f, "root:repo/link_out");
    CHECK_LINK_OUT(f, "root:repo/link_out/secret");
    CHECK_LINK_OUT(f, "root:repo/link_out/nothere");
#ifndef _WIN32 /* a link to a file: wine shows it as the file */
    CHECK(f, "root:repo/link_abs", NULL, BAD(ESCAPES_ROOT));
#else
    print_message("SKIPPED: root:repo/link_abs (Windows: wine-file-link: wine shows a Unix "
                  "symlink to a file as that file)\n");
#endif
    CHECK_LINK_OUT(f, "root:repo/proc_root");
    CHECK_LINK_OUT(f, "root:repo/proc_root/etc/passwd");
    CHECK_DANGLING_OUT(f, "root:repo/dangling_out");
    CHECK_DANGLING_OUT(f, "root:repo/dangling_via_missing");
    /* a link loop: nothing to find, but no escape: the name itself can
     * be acted on (removed, renamed, read as a link) */
    CHECK_RE(f, "root:repo/loop", 1, NULL, BAD(NOT_FOUND));
    CHECK_RE(f, "root:repo/loop", 0, NULL, OK_("root:repo/loop", "repo", "loop", 0));
    /* a dangling link that stays inside: missing, not invalid */
    CHECK_RE(f, "root:repo/dangling_in", 1, NULL, BAD(NOT_FOUND));
    CHECK_RE(f, "root:repo/dangling_in", 0, NULL,
             OK_("root:repo/dangling_in", "repo", "dangling_in", 0));
    /* a symlink that stays inside is followed; the address keeps its name
     * (under wine the link's target cannot be read: taken to lead out) */
    CHECK(f, "root:repo/link_in/traits/00_traits.txt", NULL,
          LINUX_OR_WINDOWS(OK_("root:repo/link_in/traits/00_traits.txt", "repo",
                               "link_in/traits/00_traits.txt", 1),
                           BAD(ESCAPES_ROOT)));
    /* `..` after a symlink is lexical: it never follows the link */
    CHECK(f, "root:repo/link_out/../file.txt", NULL,
          OK_("root:repo/file.txt", "repo", "file.txt", 1));
    CHECK(f, "root:repo/link_in/..", NULL, OK_("root:repo", "repo", "", 1));
    end(f);
}

static void test_file_uris_and_host_paths(void **state)
{
    (void)state;
    PG_SKIP_ON_WINDOWS("its host paths and file URIs are POSIX paths");
    fixture *f = begin();
    const char *const prefixes[] = {f->real, f->tmp};
    char buf[PATH_MAX + 64];
    for (int p = 0; p < 2; p++) {
        const char *t = prefixes[p];
        snprintf(buf, sizeof buf, "%s/repo/common/traits/00_traits.txt", t);
        CHECK(
            f, buf, NULL,
            OK_("root:repo/common/traits/00_traits.txt", "repo", "common/traits/00_traits.txt", 1));
        snprintf(buf, sizeof buf, "  %s/repo/  ", t);
        CHECK(f, buf, NULL, OK_("root:repo", "repo", "", 1));
        snprintf(buf, sizeof buf, "%s/repo", t);
        CHECK(f, buf, NULL, OK_("root:repo", "repo", "", 1));
        snprintf(buf, sizeof buf, "%s/repo/./common//x/../traits", t);
        CHECK(f, buf, NULL, OK_("root:repo/common/traits", "repo", "common/traits", 1));
        /* the sibling with a common prefix is not inside /repo */
        snprintf(buf, sizeof buf, "%s/repo-evil/secret.txt", t);
        CHECK(f, buf, NULL, BAD(OUTSIDE_BASES));
        snprintf(buf, sizeof buf, "%s/repo/../outside/secret", t);
        CHECK(f, buf, NULL, BAD(OUTSIDE_BASES));
        snprintf(buf, sizeof buf, "%s/repo/link_out/secret", t);
        CHECK(f, buf, NULL, BAD(ESCAPES_ROOT));
        /* the longest base wins: the mod nested inside root:repo */
        snprintf(buf, sizeof buf, "%s/repo/nested_mod/n.txt", t);
        CHECK(f, buf, NULL, OK_("mod:Nested/n.txt", NULL, "n.txt", 1));
        /* a tie (root:game and mod:GameMod): the root */
        snprintf(buf, sizeof buf, "%s/game/g.txt", t);
        CHECK(f, buf, NULL, OK_("root:game/g.txt", "game", "g.txt", 1));
        /* the path as configured (through a symlink) and the real path */
        snprintf(buf, sizeof buf, "%s/alias_link/g2.txt", t);
        CHECK(f, buf, NULL, OK_("root:alias/g2.txt", "alias", "g2.txt", 1));
        snprintf(buf, sizeof buf, "%s/game2/g2.txt", t);
        CHECK(f, buf, NULL, OK_("root:alias/g2.txt", "alias", "g2.txt", 1));
        snprintf(buf, sizeof buf, "%s/mods/Some Mod/x.txt", t);
        CHECK(f, buf, NULL, OK_("mod:Some Mod/x.txt", NULL, "x.txt", 1));
        snprintf(buf, sizeof buf, "%s/repo/100%%.txt", t);
        CHECK(f, buf, NULL, OK_("root:repo/100%.txt", "repo", "100%.txt", 1));

        snprintf(buf, sizeof buf, "file://%s/repo/common", t);
        CHECK(f, buf, NULL, OK_("root:repo/common", "repo", "common", 1));
        snprintf(buf, sizeof buf, "FILE://localhost%s/repo/file.txt", t);
        CHECK(f, buf, NULL, OK_("root:repo/file.txt", "repo", "file.txt", 1));
        snprintf(buf, sizeof buf, "file://%s/mods/Some%%20Mod/x.txt", t);
        CHECK(f, buf, NULL, OK_("mod:Some Mod/x.txt", NULL, "x.txt", 1));
        snprintf(buf, sizeof buf, "file://%s/mods/%%C3%%9Cn%%C3%%AFc%%C3%%B8d%%C3%%A9/%%C3%%9F.txt",
                 t);
        CHECK(f, buf, NULL, OK_("mod:" MOD_UNI "/\xC3\x9F.txt", NULL, "\xC3\x9F.txt", 1));
        snprintf(buf, sizeof buf, "file://%s/repo/100%%25.txt", t);
        CHECK(f, buf, NULL, OK_("root:repo/100%.txt", "repo", "100%.txt", 1));
        snprintf(buf, sizeof buf, "file://%s/repo-evil/secret.txt", t);
        CHECK(f, buf, NULL, BAD(OUTSIDE_BASES));
        /* %2E%2E is a dot segment of the URI: resolved before mapping */
        snprintf(buf, sizeof buf, "file://%s/repo/%%2E%%2E/outside/secret", t);
        CHECK(f, buf, NULL, BAD(OUTSIDE_BASES));
        snprintf(buf, sizeof buf, "file://%s/repo/%%2E%%2E/repo/file.txt", t);
        CHECK(f, buf, NULL, OK_("root:repo/file.txt", "repo", "file.txt", 1));
        snprintf(buf, sizeof buf, "file://%s/repo/a%%2Fb", t);
        CHECK(f, buf, NULL, BAD(OUTSIDE_BASES));
        snprintf(buf, sizeof buf, "file://%s/repo/a%%00b", t);
        CHECK(f, buf, NULL, BAD(ENCODING));
        snprintf(buf, sizeof buf, "file://%s/repo/%%FF", t);
        CHECK(f, buf, NULL, BAD(ENCODING));
        snprintf(buf, sizeof buf, "file://%s/repo/a%%0Ab", t);
        CHECK(f, buf, NULL, BAD(SYNTAX));
        snprintf(buf, sizeof buf, "file://%s/repo/x?q=1", t);
        CHECK(f, buf, NULL, BAD(SYNTAX));
        snprintf(buf, sizeof buf, "file://server%s/repo/file.txt", t);
        CHECK(f, buf, NULL, BAD(OUTSIDE_BASES));
    }
    CHECK(f, "/etc/passwd", NULL, BAD(OUTSIDE_BASES));
    CHECK(f, "/", NULL, BAD(OUTSIDE_BASES));
    CHECK(f, "file:///etc/passwd", NULL, BAD(OUTSIDE_BASES));
    CHECK(f, "file:///C:/x", NULL, BAD(OUTSIDE_BASES));
    CHECK(f, "file:", NULL, BAD(SYNTAX));
    end(f);
}

static void test_relative_against_a_base(void **state)
{
    (void)state;
    fixture *f = begin();
    CHECK(f, "common/traits", "root:repo",
          OK_("root:repo/common/traits", "repo", "common/traits", 1));
    CHECK(f, "traits/00_traits.txt", "root:repo/common",
          OK_("root:repo/common/traits/00_traits.txt", "repo", "common/traits/00_traits.txt", 1));
    CHECK(f, "../file.txt", "root:repo/common", OK_("root:repo/file.txt", "repo", "file.txt", 1));
    CHECK(f, ".", "root:repo/common", OK_("root:repo/common", "repo", "common", 1));
    CHECK(f, "..\\file.txt", "root:repo\\common", OK_("root:repo/file.txt", "repo", "file.txt", 1));
    CHECK(f, "x.txt", "mod:Some Mod", OK_("mod:Some Mod/x.txt", NULL, "x.txt", 1));
    CHECK_RE(f, "x.txt", 1, "ROOT_GAME:/", BAD(NOT_FOUND));
    CHECK(f, "g.txt", "ROOT_GAME:/", OK_("root:game/g.txt", "game", "g.txt", 1));
    CHECK(f, "../../x", "root:repo/common", BAD(ESCAPES_ROOT));
    CHECK(f, "..", "root:repo", BAD(ESCAPES_ROOT));
    CHECK(f, "common", "bogus", BAD(INVALID_BASE));
    CHECK(f, "common", "root:nope", BAD(INVALID_BASE));
    CHECK(f, "common", "root:repo/..", BAD(INVALID_BASE));
    CHECK(f, "common", "http://x", BAD(INVALID_BASE));
    CHECK(f, "common", "", BAD(INVALID_BASE));
    /* absolute input ignores the base */
    CHECK(f, "root:game/g.txt", "root:repo", OK_("root:game/g.txt", "game", "g.txt", 1));
    char buf[PATH_MAX + 64];
    snprintf(buf, sizeof buf, PG_FILE_URI "%s/repo/common", f->real);
    CHECK(f, "traits", buf, OK_("root:repo/common/traits", "repo", "common/traits", 1));
    snprintf(buf, sizeof buf, "%s/repo", f->real);
    CHECK(f, "file.txt", buf, OK_("root:repo/file.txt", "repo", "file.txt", 1));
    snprintf(buf, sizeof buf, "%s/outside", f->real);
    CHECK(f, "secret", buf, BAD(INVALID_BASE));
    /* base + relative longer than PATHGATE_PATH_MAX */
    char *base = malloc(PATHGATE_PATH_MAX + 1), *rel = malloc(PATHGATE_PATH_MAX + 1);
    memcpy(base, "root:repo/", 10);
    memset(base + 10, 'a', PATHGATE_PATH_MAX - 10);
    for (size_t i = 10; i < PATHGATE_PATH_MAX; i += 100)
        base[i] = '/';
    base[PATHGATE_PATH_MAX] = '\0';
    memset(rel, 'b', PATHGATE_PATH_MAX);
    for (size_t i = 0; i < PATHGATE_PATH_MAX; i += 100)
        rel[i] = '/';
    rel[0] = 'b';
    rel[PATHGATE_PATH_MAX] = '\0';
    CHECK_RE(f, rel, 0, base, BAD(TOO_LONG));
    free(base);
    free(rel);
    end(f);
}

/* Issue 34: one call to a host path, no token held, whatever the count. */
static void test_host_path_of_holds_no_token(void **state)
{
    (void)state;
    fixture *f = begin();
    pathgate_resolver *r = f->r[0];
    size_t before = pathgate_resolver_token_count(r);
    pathgate_buf host = PATHGATE_BUF_INIT;
    char *expect = cat(f->real, "/repo/common");
    pathgate_reason why = PATHGATE_REASON_IO;
    for (int i = 0; i < 3 * PATHGATE_MAX_TOKENS_DEFAULT; i++)
        assert_int_equal(
            pathgate_resolver_host_path_of(&host, &why, r, PG_S("root:repo/common"), NULL, NULL),
            0);
    assert_host_path(&host, expect);
    assert_int_equal(why, PATHGATE_REASON_OK);
    assert_int_equal(pathgate_resolver_token_count(r), before);
    /* relative to a base, as resolve */
    pathgate_resolve_options o = PATHGATE_RESOLVE_OPTIONS_INIT;
    o.base = "root:repo";
    o.base_len = strlen(o.base);
    assert_int_equal(pathgate_resolver_host_path_of(&host, NULL, r, PG_S("common"), &o, NULL), 0);
    assert_host_path(&host, expect);
    free(expect);
    /* refused as resolve refuses: the one message, the reason for logs */
    pathgate_error err;
    assert_int_equal(
        pathgate_resolver_host_path_of(&host, &why, r, PG_S("root:repo/../../etc"), NULL, &err),
        PATHGATE_EINVALIDPATH);
    assert_string_equal(err.message, "Invalid path / not found");
    assert_int_equal(why, PATHGATE_REASON_ESCAPES_ROOT);
    pg_assert_buf(&host, NULL);
    assert_int_equal(
        pathgate_resolver_host_path_of(&host, &why, r, PG_S("root:repo/missing"), NULL, &err),
        PATHGATE_EINVALIDPATH);
    assert_int_equal(why, PATHGATE_REASON_NOT_FOUND);
    assert_int_equal(pathgate_resolver_host_path_of(NULL, NULL, r, PG_S("x"), NULL, &err),
                     PATHGATE_EINVAL);
    assert_int_equal(pathgate_resolver_token_count(r), before);
    end(f);
}

/* Issue 34: a native path (a .mod descriptor's path="C:/...") becomes an
 * address, through a declared prefix or a base's host directory. */
static void address_is(pathgate_resolver *r, const char *native, const char *want)
{
    pathgate_buf out = PATHGATE_BUF_INIT;
    pathgate_error err;
    int rc = pathgate_resolver_address_of(&out, r, native, strlen(native), &err);
    if (want) {
        if (rc != 0)
            fail_msg("address_of(%s): %s", native, err.message);
        if (strcmp(out.ptr, want) != 0)
            fail_msg("address_of(%s) = %s, expected %s", native, out.ptr, want);
    } else {
        if (rc != PATHGATE_EINVALIDPATH)
            fail_msg("address_of(%s) = %d (%s), expected invalid_path", native, rc,
                     out.ptr ? out.ptr : "");
        assert_string_equal(err.message, "Invalid path / not found");
        assert_null(out.ptr);
    }
    pathgate_buf_dispose(&out);
}

static void test_address_of(void **state)
{
    (void)state;
    fixture *f = the_fixture;
    char *d_repo = cat(f->tmp, "/repo"), *d_some = cat(f->tmp, "/mods/Some Mod");
    pathgate_base_spec roots[] = {{PG_S("user"), d_repo, strlen(d_repo), 0}};
    pathgate_base_spec mods[] = {{PG_S("Some Mod"), d_some, strlen(d_some), 0}};
    pathgate_native_prefix prefixes[] = {
        {PG_S("C:/Users/me/Documents/Paradox Interactive/Crusader Kings III/mod"),
         PG_S("root:user")},
        {PG_S("C:\\Users\\me\\Documents\\Paradox Interactive\\Crusader Kings III\\mod\\deep"),
         PG_S("root:user/common")},
        {PG_S("/home/me/.local/share/Paradox Interactive/Crusader Kings III/mod"),
         PG_S("mod:Some Mod")},
    };
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.mods = mods;
    o.nmods = 1;
    o.native_prefixes = prefixes;
    o.nnative_prefixes = 3;
    o.allocator = pg_test_alloc();
    pathgate_resolver *r = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), 0);
    size_t before = pathgate_resolver_token_count(r);
    const char *mod = "C:/Users/me/Documents/Paradox Interactive/Crusader Kings III/mod";
    char buf[512];
    snprintf(buf, sizeof buf, "%s/x/descriptor.mod", mod);
    address_is(r, buf, "root:user/x/descriptor.mod");
    address_is(r, mod, "root:user");
    /* Windows prefixes: case-insensitive, either separator */
    address_is(r, "c:\\users\\ME\\Documents\\paradox interactive\\Crusader Kings III\\MOD\\x",
               "root:user/x");
    /* the longest prefix wins, with its directory */
    snprintf(buf, sizeof buf, "%s/deep/traits/a.txt", mod);
    address_is(r, buf, "root:user/common/traits/a.txt");
    /* a POSIX prefix is exact */
    address_is(r, "/home/me/.local/share/Paradox Interactive/Crusader Kings III/mod/a b/c",
               "mod:Some Mod/a b/c");
    address_is(r, "/home/me/.local/share/paradox interactive/Crusader Kings III/mod/a", NULL);
    /* a host path under a base, and a file: URI */
    snprintf(buf, sizeof buf, "%s/repo/common/x.txt", f->real);
    address_is(r, buf, "root:user/common/x.txt");
    snprintf(buf, sizeof buf, PG_FILE_URI "%s/mods/Some%%20Mod/readme.txt", f->real);
    address_is(r, buf, "mod:Some Mod/readme.txt");
    /* outside, climbing out, relative, another drive, NUL */
    snprintf(buf, sizeof buf, "%s/../secret", mod);
    address_is(r, buf, NULL);
    address_is(r, "D:/Users/me/Documents/Paradox Interactive/Crusader Kings III/mod/x", NULL);
    address_is(r, "/etc/passwd", NULL);
    address_is(r, "relative/x", NULL);
    address_is(r, "", NULL);
    pathgate_buf out = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_resolver_address_of(&out, r, "C:/a\0b", 6, &err),
                     PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate_resolver_address_of(NULL, r, "x", 1, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_resolver_token_count(r), before); /* no token */
    pathgate_resolver_free(r);
    /* configuration errors */
    pathgate_native_prefix bad[][1] = {
        {{PG_S("relative/mod"), PG_S("root:user")}},
        {{PG_S("C:/mod"), PG_S("root:nope")}},
        {{PG_S("C:/mod"), PG_S("user")}},
    };
    for (size_t i = 0; i < 3; i++) {
        o.native_prefixes = bad[i];
        o.nnative_prefixes = 1;
        assert_int_equal(pathgate_resolver_new(&r, &o, &err), PATHGATE_ECONFIG);
        assert_non_null(strstr(err.message, "native prefix #1"));
    }
    /* version 3 callers never have native_prefixes read */
    o.version = 3;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), 0);
    pathgate_resolver_free(r);
    free(d_repo);
    free(d_some);
}

static void test_refs_host_path_release(void **state)
{
    (void)state;
    fixture *f = begin();
    pathgate_resolver *r = f->r[0];
    pathgate_resolution a = PATHGATE_RESOLUTION_INIT, b = PATHGATE_RESOLUTION_INIT;
    size_t before = pathgate_resolver_token_count(r);
    assert_int_equal(pathgate_resolver_resolve(&a, r, PG_S("root:repo/common"), NULL, NULL), 0);
    assert_int_equal(pathgate_resolver_resolve(&b, r, PG_S("root:repo/common"), NULL, NULL), 0);
    assert_true(a.ok && b.ok);
    assert_int_equal(pathgate_resolver_token_count(r), before + 2);
    /* a new token per resolve */
    assert_string_not_equal(pathgate_ref_token(a.ref, NULL), pathgate_ref_token(b.ref, NULL));
    assert_false(pathgate_ref_equal(a.ref, b.ref));

    pathgate_buf host = PATHGATE_BUF_INIT;
    char *expect = cat(f->real, "/repo/common");
    assert_int_equal(pathgate_resolver_host_path(&host, r, a.ref, NULL), 0);
    assert_host_path(&host, expect);
    free(expect);

    /* the base itself */
    pathgate_resolution c = PATHGATE_RESOLUTION_INIT;
    assert_int_equal(pathgate_resolver_resolve(&c, r, PG_S("mod:Some Mod"), NULL, NULL), 0);
    expect = cat(f->real, "/mods/Some Mod");
    assert_int_equal(pathgate_resolver_host_path(&host, r, c.ref, NULL), 0);
    assert_host_path(&host, expect);
    free(expect);
    assert_int_equal(pathgate_resolver_release(r, c.ref), 1);
    pathgate_resolution_dispose(&c);

    /* a ref the other resolver minted is foreign here */
    assert_int_equal(pathgate_resolver_host_path(&host, f->r[1], a.ref, NULL), 0);
    pg_assert_buf(&host, NULL);

    /* a forged ref: right token, other address; made-up token */
    size_t tlen;
    const char *tok = pathgate_ref_token(a.ref, &tlen);
    pathgate_ref *forged = NULL;
    assert_int_equal(
        pathgate_ref_new(&forged, tok, tlen, PG_S("root:repo/file.txt"), pg_test_alloc(), NULL), 0);
    assert_int_equal(pathgate_resolver_host_path(&host, r, forged, NULL), 0);
    pg_assert_buf(&host, NULL);
    assert_int_equal(pathgate_resolver_release(r, forged), 0);
    pathgate_ref_free(forged);
    assert_int_equal(pathgate_ref_new(&forged, PG_S("12345678-1234-4234-8234-123456789abc"),
                                      PG_S("root:repo/common"), pg_test_alloc(), NULL),
                     0);
    assert_int_equal(pathgate_resolver_host_path(&host, r, forged, NULL), 0);
    pg_assert_buf(&host, NULL);
    pathgate_ref_free(forged);

    /* a copy is as good as the original */
    pathgate_ref *copy = NULL;
    assert_int_equal(pathgate_ref_dup(&copy, a.ref, NULL), 0);
    assert_true(pathgate_ref_equal(copy, a.ref));
    assert_int_equal(pathgate_resolver_release(r, copy), 1);
    pathgate_ref_free(copy);
    /* released: gone, and a second release is a no-op */
    assert_int_equal(pathgate_resolver_host_path(&host, r, a.ref, NULL), 0);
    pg_assert_buf(&host, NULL);
    assert_int_equal(pathgate_resolver_release(r, a.ref), 0);
    assert_int_equal(pathgate_resolver_token_count(r), before + 1);

    /* taking the ref out of a resolution */
    pathgate_ref *taken = b.ref;
    b.ref = NULL;
    pathgate_resolution_dispose(&b);
    assert_int_equal(pathgate_resolver_release(r, taken), 1);
    pathgate_ref_free(taken);
    pathgate_resolution_dispose(&a);
    assert_int_equal(pathgate_resolver_token_count(r), before);

    assert_int_equal(pathgate_resolver_release(NULL, NULL), 0);
    assert_int_equal(pathgate_resolver_release(r, NULL), 0);
    assert_int_equal(pathgate_resolver_token_count(NULL), 0);
    pathgate_resolution_dispose(NULL);
    end(f);
}

static void test_capacity(void **state)
{
    (void)state;
    fixture *f = begin();
    for (unsigned flags = 0; flags <= PATHGATE_RESOLVER_FORCE_FALLBACK; flags++) {
        pathgate_resolver *r = make(f, f->tmp, pg_test_alloc(), flags, 3, NULL);
        pathgate_resolution res[3];
        for (int i = 0; i < 3; i++) {
            pathgate_resolution init = PATHGATE_RESOLUTION_INIT;
            res[i] = init;
            assert_int_equal(pathgate_resolver_resolve(&res[i], r, PG_S("root:repo"), NULL, NULL),
                             0);
            assert_true(res[i].ok);
        }
        assert_int_equal(pathgate_resolver_token_count(r), 3);
        pathgate_resolution full = PATHGATE_RESOLUTION_INIT;
        assert_int_equal(
            pathgate_resolver_resolve(&full, r, PG_S("root:repo/file.txt"), NULL, NULL), 0);
        assert_false(full.ok);
        assert_int_equal(full.reason, PATHGATE_REASON_CAPACITY);
        assert_string_equal(full.error_message, PATHGATE_MSG_CAPACITY);
        assert_string_equal(full.error_message,
                            "Visibility registry capacity exceeded \xE2\x80\x94 restart server");
        assert_null(full.ref);
        /* an invalid input is still reported as invalid, not as capacity */
        assert_int_equal(pathgate_resolver_resolve(&full, r, PG_S("root:nope"), NULL, NULL), 0);
        assert_int_equal(full.reason, PATHGATE_REASON_UNKNOWN_ROOT);
        assert_string_equal(full.error_message, "Invalid path / not found");
        assert_int_equal(pathgate_resolver_token_count(r), 3);
        /* release one: room for exactly one more */
        assert_int_equal(pathgate_resolver_release(r, res[1].ref), 1);
        assert_int_equal(
            pathgate_resolver_resolve(&full, r, PG_S("root:repo/file.txt"), NULL, NULL), 0);
        assert_true(full.ok);
        pathgate_resolution_dispose(&full);
        for (int i = 0; i < 3; i++)
            pathgate_resolution_dispose(&res[i]);
        pathgate_resolver_free(r);
    }
    end(f);
}

static void test_construction_errors(void **state)
{
    (void)state;
    fixture *f = begin();
    char *d = cat(f->tmp, "/repo"), *missing = cat(f->tmp, "/nothere"),
         *file = cat(f->tmp, "/repo/file.txt");
    pathgate_resolver *r = (pathgate_resolver *)1;
    pathgate_error err;
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;

    assert_int_equal(pathgate_resolver_new(&r, NULL, &err), PATHGATE_EINVAL);
    assert_null(r);
    assert_int_equal(pathgate_resolver_new(NULL, &o, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), PATHGATE_ECONFIG); /* no root */
    o.version = 99;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), PATHGATE_EINVAL);
    o.version = PATHGATE_RESOLVER_OPTIONS_VERSION;

    struct {
        pathgate_base_spec roots[2];
        size_t nroots;
        pathgate_base_spec mods[2];
        size_t nmods;
        int code;
        const char *in_message; /* must appear in the message */
    } cases[] = {
        {{{PG_S("Repo"), d, strlen(d), 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "'Repo'"},
        {{{PG_S("1repo"), d, strlen(d), 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "root '1repo'"},
        {{{PG_S(""), d, strlen(d), 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "root #1"},
        {{{PG_S("re-po"), d, strlen(d), 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "root 're-po'"},
        {{{PG_S("it's"), d, strlen(d), 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "root #1"},
        {{{"re\0po", 5, d, strlen(d), 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "root #1"},
        {{{PG_S("repo"), d, strlen(d), 0}, {PG_S("repo"), d, strlen(d), 0}},
         2,
         {{0}},
         0,
         PATHGATE_ECONFIG,
         "'repo' is configured twice"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S("a/b"), d, strlen(d), 0}},
         1,
         PATHGATE_ECONFIG,
         "mod 'a/b'"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S("a:b"), d, strlen(d), 0}},
         1,
         PATHGATE_ECONFIG,
         "mod 'a:b'"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S(" Lead"), d, strlen(d), 0}},
         1,
         PATHGATE_ECONFIG,
         "mod ' Lead'"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S("T\tab"), d, strlen(d), 0}},
         1,
         PATHGATE_ECONFIG,
         "mod #1"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S(""), d, strlen(d), 0}},
         1,
         PATHGATE_ECONFIG,
         "mod #1"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{"a\0b", 3, d, strlen(d), 0}},
         1,
         PATHGATE_ECONFIG,
         "mod #1"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S("\xff"), d, strlen(d), 0}},
         1,
         PATHGATE_ECONFIG,
         "mod #1"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S("M"), d, strlen(d), 0}, {PG_S("M"), d, strlen(d), 0}},
         2,
         PATHGATE_ECONFIG,
         "'M' is configured twice"},
        {{{PG_S("repo"), missing, strlen(missing), 0}},
         1,
         {{0}},
         0,
         PATHGATE_EIO,
         "root 'repo': the directory does not exist"},
        {{{PG_S("repo"), file, strlen(file), 0}},
         1,
         {{0}},
         0,
         PATHGATE_EIO,
         "root 'repo': the directory is a file, not a directory"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S("Gone Mod"), missing, strlen(missing), 0}},
         1,
         PATHGATE_EIO,
         "'Gone Mod'"},
    /* the filesystem root, whatever spelling reaches it, and as a mod too */
#ifndef _WIN32
        {{{PG_S("repo"), PG_S("/"), 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "filesystem root"},
        {{{PG_S("repo"), PG_S("/tmp/../"), 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "root 'repo'"},
        {{{PG_S("repo"), PG_S("//"), PATHGATE_BASE_READ_ONLY}},
         1,
         {{0}},
         0,
         PATHGATE_ECONFIG,
         "whole host"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S("Host"), PG_S("/"), 0}},
         1,
         PATHGATE_ECONFIG,
         "mod 'Host': the directory is the filesystem root"},
#else /* a volume's root (docs/windows.md) */
        {{{PG_S("repo"), PG_S("Z:\\"), 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "root 'repo'"},
        /* (`..` is no name NT opens: refused as a directory that cannot be opened) */
        {{{PG_S("repo"), PG_S("Z:/tmp/../"), 0}}, 1, {{0}}, 0, PATHGATE_EIO, "root 'repo'"},
        {{{PG_S("repo"), d, strlen(d), 0}},
         1,
         {{PG_S("Host"), PG_S("Z:/"), 0}},
         1,
         PATHGATE_ECONFIG,
         "mod 'Host'"},
#endif
        {{{PG_S("repo"), NULL, 0, 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "'repo'"},
        {{{PG_S("repo"), "a\0b", 3, 0}}, 1, {{0}}, 0, PATHGATE_ECONFIG, "'repo'"},
        {{{PG_S("repo"), d, strlen(d), 0x80}}, 1, {{0}}, 0, PATHGATE_EINVAL, "'repo'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        o.roots = cases[i].roots;
        o.nroots = cases[i].nroots;
        o.mods = cases[i].mods;
        o.nmods = cases[i].nmods;
        o.allocator = pg_test_alloc();
        r = (pathgate_resolver *)1;
        int rc = pathgate_resolver_new(&r, &o, &err);
        if (rc != cases[i].code)
            fail_msg("case %zu: expected %s, got %s (%s)", i, pathgate_errname(cases[i].code),
                     pathgate_errname(rc), err.message);
        assert_null(r);
        assert_int_equal(err.code, cases[i].code);
        if (!strstr(err.message, cases[i].in_message))
            fail_msg("case %zu: \"%s\" does not name \"%s\"", i, err.message, cases[i].in_message);
        assert_no_host_path(f, err.message);
    }
    /* the same name for a root and a mod is fine: different namespaces */
    pathgate_base_spec root = {PG_S("repo"), d, strlen(d), 0};
    pathgate_base_spec mod = {PG_S("repo"), d, strlen(d), 0};
    o.roots = &root;
    o.nroots = 1;
    o.mods = &mod;
    o.nmods = 1;
    o.flags = 0x100;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), PATHGATE_EINVAL);
    o.flags = 0;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), 0);
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    assert_int_equal(pathgate_resolver_resolve(&res, r, PG_S("mod:repo/file.txt"), NULL, NULL), 0);
    assert_true(res.ok);
    pathgate_resolution_dispose(&res);
    pathgate_resolver_free(r);
    /* a relative directory is relative to the working directory */
    char cwd[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->tmp), 0);
    pathgate_base_spec rel_root = {PG_S("repo"), PG_S("repo"), 0};
    o.roots = &rel_root;
    o.mods = NULL;
    o.nmods = 0;
    int rc = pathgate_resolver_new(&r, &o, &err);
    assert_int_equal(chdir(cwd), 0);
#ifdef _WIN32
    /* (Windows takes drive, UNC and \\?\ paths only: refused) */
    assert_int_equal(rc, PATHGATE_EIO);
    assert_null(r);
#else
    assert_int_equal(rc, 0);
    char *expect = cat(f->real, "/repo");
    assert_string_equal(pathgate__resolver_base_host_path(r, 0), expect);
    free(expect);
    pathgate_resolver_free(r);
#endif
    pathgate_resolver_free(NULL);
    free(d);
    free(missing);
    free(file);
    end(f);
}

static void test_accessors_and_internals(void **state)
{
    (void)state;
    fixture *f = begin();
    pathgate_resolver *r = f->r[0];
    assert_int_equal(pathgate_resolver_root_count(r), 3);
    assert_int_equal(pathgate_resolver_mod_count(r), 4);
    assert_string_equal(pathgate_resolver_root_key(r, 0), "repo");
    assert_string_equal(pathgate_resolver_root_key(r, 2), "alias");
    assert_null(pathgate_resolver_root_key(r, 3));
    assert_string_equal(pathgate_resolver_mod_name(r, 0), "Some Mod");
    assert_string_equal(pathgate_resolver_mod_name(r, 1), MOD_UNI);
    assert_null(pathgate_resolver_mod_name(r, 4));
    assert_int_equal(pathgate_resolver_root_count(NULL), 0);
    assert_int_equal(pathgate__resolver_base_count(r), 7);
    assert_string_equal(pathgate__resolver_base_address(r, 0), "root:repo");
    assert_string_equal(pathgate__resolver_base_address(r, 3), "mod:Some Mod");
    assert_int_equal(pathgate__resolver_base_flags(r, 1), PATHGATE_BASE_READ_ONLY);
    assert_int_equal(pathgate__resolver_base_flags(r, 0), 0);
    char *g2 = cat(f->real, "/game2");
    assert_same_host_path(pathgate__resolver_base_host_path(r, 2),
                          g2); /* the real path, not the link */
    free(g2);
    assert_true(pathgate__resolver_base_fd(r, 0) >= 0);
    assert_int_equal(pathgate__resolver_flags(r), 0);
    assert_int_equal(pathgate__resolver_flags(f->r[1]), PATHGATE_RESOLVER_FORCE_FALLBACK);
    assert_non_null(pathgate__resolver_allocator(r));
    assert_string_equal(pathgate_reason_name(PATHGATE_REASON_ESCAPES_ROOT), "escapes_root");
    assert_string_equal(pathgate_reason_name(PATHGATE_REASON_CAPACITY), "capacity");
    assert_string_equal(pathgate_reason_name((pathgate_reason)999), "unknown");

    size_t bi = 99;
    const char *rel = NULL;
    assert_int_equal(pathgate__resolver_split(&bi, &rel, r, PG_S("mod:Some Mod/x.txt")), 0);
    assert_int_equal(bi, 3);
    assert_string_equal(rel, "x.txt");
    assert_int_equal(pathgate__resolver_split(&bi, &rel, r, PG_S("root:game")), 0);
    assert_int_equal(bi, 1);
    assert_string_equal(rel, "");
    assert_int_equal(pathgate__resolver_split(&bi, &rel, r, PG_S("ROOT_GAME:/x")),
                     PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate__resolver_split(&bi, &rel, r, PG_S("root:game/../x")),
                     PATHGATE_EINVALIDPATH);

    for (int m = 0; m < 2; m++) {
        int fd = pathgate__resolver_open(
            &bi, f->r[m], PG_S("root:repo/link_in/traits/00_traits.txt"), O_RDONLY, 0);
#ifdef _WIN32
        /* under wine the inward link's target cannot be read: refused */
        assert_int_equal(fd, PATHGATE_EINVALIDPATH);
        fd = pathgate__resolver_open(&bi, f->r[m], PG_S("root:repo/common/traits/00_traits.txt"),
                                     O_RDONLY, 0);
#endif
        assert_true(fd >= 0);
        assert_int_equal(bi, 0);
        char c = 0;
        assert_int_equal(read(fd, &c, 1), 1);
        assert_int_equal(c, 'x');
        close(fd);
        /* not NUL-terminated at len: only len bytes count */
        fd = pathgate__resolver_open(NULL, f->r[m], "root:repo/file.txtGARBAGE", 18, O_RDONLY, 0);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(
            pathgate__resolver_open(NULL, f->r[m], PG_S("root:repo/link_out/secret"), O_RDONLY, 0),
            PATHGATE_EINVALIDPATH);
        assert_int_equal(
            pathgate__resolver_open(NULL, f->r[m], PG_S("root:repo/nothere"), O_RDONLY, 0),
            PATHGATE_ENOTFOUND);
        assert_int_equal(
            pathgate__resolver_open(NULL, f->r[m], PG_S("root:repo/file.txt/x"), O_RDONLY, 0),
            PATHGATE_ENOTDIR);
        assert_int_equal(
            pathgate__resolver_open(NULL, f->r[m], PG_S("root:repo/common"), O_WRONLY, 0),
            PATHGATE_EISDIR);
        assert_int_equal(pathgate__resolver_open(NULL, f->r[m], PG_S("root:nope/x"), O_RDONLY, 0),
                         PATHGATE_EINVALIDPATH);
        fd = pathgate__resolver_open(NULL, f->r[m], PG_S("root:game"), O_PATH | O_DIRECTORY, 0);
        assert_true(fd >= 0);
        close(fd);
    }
    end(f);
}

static void test_misuse(void **state)
{
    (void)state;
    fixture *f = begin();
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_resolve(NULL, f->r[0], PG_S("root:repo"), NULL, &err),
                     PATHGATE_EINVAL);
    assert_int_equal(pathgate_resolver_resolve(&res, NULL, PG_S("root:repo"), NULL, &err),
                     PATHGATE_EINVAL);
    assert_false(res.ok);
    assert_int_equal(pathgate_resolver_resolve(&res, f->r[0], NULL, 3, NULL, &err),
                     PATHGATE_EINVAL);
    pathgate_resolve_options o = PATHGATE_RESOLVE_OPTIONS_INIT;
    o.version = 7;
    assert_int_equal(pathgate_resolver_resolve(&res, f->r[0], PG_S("root:repo"), &o, &err),
                     PATHGATE_EINVAL);
    o.version = PATHGATE_RESOLVE_OPTIONS_VERSION;
    o.base_len = 4;
    assert_int_equal(pathgate_resolver_resolve(&res, f->r[0], PG_S("root:repo"), &o, &err),
                     PATHGATE_EINVAL);
    /* NULL, 0 is empty text: a result, not an error */
    assert_int_equal(pathgate_resolver_resolve(&res, f->r[0], NULL, 0, NULL, &err), 0);
    assert_int_equal(res.reason, PATHGATE_REASON_SYNTAX);
    pathgate_buf buf = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_resolver_host_path(NULL, f->r[0], NULL, NULL), PATHGATE_EINVAL);
    assert_int_equal(pathgate_resolver_host_path(&buf, f->r[0], NULL, NULL), PATHGATE_EINVAL);
    assert_null(buf.ptr);
    end(f);
}

/* ---------------------------------------------------- allocation failure */

typedef struct chaos_ctx {
    fixture *f;
    unsigned flags;
} chaos_ctx;

static int chaos_body(const pathgate_allocator *alloc, void *ctx)
{
    chaos_ctx *c = ctx;
    fixture *f = c->f;
    int rc = 0;
    pathgate_resolver *r = make(f, f->tmp, alloc, c->flags, 0, &rc);
    if (rc != 0)
        return rc;
    char uri[PATH_MAX + 64], host[PATH_MAX + 64];
    snprintf(uri, sizeof uri, PG_FILE_URI "%s/mods/Some%%20Mod/x.txt", f->real);
    snprintf(host, sizeof host, "%s/repo/nested_mod/n.txt", f->tmp);
    const char *inputs[] = {
        "root:repo/common/traits", "mod:Some Mod:/x.txt", uri, host, "../file.txt", "root:nope",
        "root:repo/link_out/x"};
    const char *expect[] = {"root:repo/common/traits",
                            "mod:Some Mod/x.txt",
                            "mod:Some Mod/x.txt",
                            "mod:Nested/n.txt",
                            "root:repo/file.txt",
                            NULL,
                            NULL};
    pathgate_resolve_options o = PATHGATE_RESOLVE_OPTIONS_INIT;
    o.base = "root:repo/common";
    o.base_len = strlen(o.base);
    size_t n = sizeof inputs / sizeof *inputs;
    for (size_t i = 0; i < n && rc == 0; i++) {
        pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
        pathgate_error err;
        rc = pathgate_resolver_resolve(&res, r, inputs[i], strlen(inputs[i]), &o, &err);
        if (rc != 0) {
            assert_int_equal(rc, PATHGATE_ENOMEM);
            assert_int_equal(err.code, PATHGATE_ENOMEM);
            assert_null(res.ref);
            break;
        }
        if (expect[i]) {
            assert_true(res.ok);
            assert_string_equal(pathgate_ref_address(res.ref, NULL), expect[i]);
            pathgate_buf hp = PATHGATE_BUF_INIT;
            rc = pathgate_resolver_host_path(&hp, r, res.ref, NULL);
            if (rc == 0)
                assert_non_null(hp.ptr);
            pathgate_buf_dispose(&hp);
        } else {
            assert_false(res.ok);
        }
        pathgate_resolution_dispose(&res);
    }
    pathgate_resolver_free(r);
    return rc;
}

static void test_allocation_failure(void **state)
{
    (void)state;
    chaos_ctx c = {the_fixture, 0};
    long n = pg_for_each_failing_alloc(chaos_body, &c);
    assert_true(n > 10);
    c.flags = PATHGATE_RESOLVER_FORCE_FALLBACK;
    pg_for_each_failing_alloc(chaos_body, &c);
}

/* A canonical resolve allocates what minting its ref costs and nothing
 * else; a failed resolve allocates nothing. */
static void test_resolve_is_allocation_light(void **state)
{
    (void)state;
    fixture *f = the_fixture;
    pg_failing_alloc fa;
    pg_failing_alloc_init(&fa, 0, 0);
    pathgate_resolver *r = make(f, f->tmp, &fa.alloc, 0, 0, NULL);
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    /* warm up whatever the registry grows on first use */
    assert_int_equal(pathgate_resolver_resolve(&res, r, PG_S("root:repo/file.txt"), NULL, NULL), 0);
    pathgate_resolution_dispose(&res);
    long before = fa.calls;
    assert_int_equal(pathgate_resolver_resolve(
                         &res, r, PG_S("root:repo/common/traits/00_traits.txt"), NULL, NULL),
                     0);
    long per_resolve = fa.calls - before;
    pathgate_resolution_dispose(&res);
    before = fa.calls;
    assert_int_equal(pathgate_resolver_resolve(&res, r, PG_S("root:nope"), NULL, NULL), 0);
    assert_int_equal(pathgate_resolver_resolve(&res, r, PG_S("root:repo/link_out/x"), NULL, NULL),
                     0);
    assert_int_equal(pathgate_resolver_resolve(&res, r, PG_S("root:repo/nothere"), NULL, NULL), 0);
    assert_int_equal(fa.calls - before, 0); /* failures allocate nothing */
    pathgate_resolution_dispose(&res);

    /* the same mint straight into a registry of its own */
    pathgate__registry *reg = NULL;
    assert_int_equal(pathgate__registry_new(&reg, 100, &fa.alloc), 0);
    pathgate_ref *ref = NULL;
    assert_int_equal(pathgate__registry_mint(&ref, reg, 0, PG_S("root:repo/file.txt")), 0);
    pathgate_ref_free(ref);
    before = fa.calls;
    assert_int_equal(
        pathgate__registry_mint(&ref, reg, 0, PG_S("root:repo/common/traits/00_traits.txt")), 0);
    long per_mint = fa.calls - before;
    pathgate_ref_free(ref);
    pathgate__registry_free(reg);
    print_message("allocations: per canonical resolve %ld, per registry mint %ld\n", per_resolve,
                  per_mint);
    assert_int_equal(per_resolve, per_mint);
    pathgate_resolver_free(r);
}

/* The home variable the core reads: $HOME, or %USERPROFILE% on Windows
 * (its value "" or NULL: unset). */
static void set_home(const char *value)
{
#ifdef _WIN32
    assert_int_equal(_putenv_s("USERPROFILE", value ? value : ""), 0);
#else
    assert_int_equal(value ? setenv("HOME", value, 1) : unsetenv("HOME"), 0);
#endif
}

/* pathgate_implicit_root_check: the filesystem root, a home directory
 * (as the home variable names it, or through a link) and an ancestor of
 * one are refused with their words and no path; a directory inside a
 * home, or beside it, is served; a missing one is an I/O error. */
static void test_implicit_root_check(void **state)
{
    (void)state;
    fixture *f = the_fixture;
#ifdef _WIN32
    const char *var = "USERPROFILE";
#else
    const char *var = "HOME";
#endif
    char *saved = getenv(var) ? strdup(getenv(var)) : NULL;
    mk(f->tmp, "/ir", 1);
    mk(f->tmp, "/ir/home", 1);
    mk(f->tmp, "/ir/home/me", 1);
    mk(f->tmp, "/ir/home/me/project", 1);
    mk(f->tmp, "/ir/beside", 1);
    char *me = cat(f->tmp, "/ir/home/me");
    set_home(me);
    static const struct {
        const char *rel; /* under the tree; NULL: the filesystem root */
        int rc;
        const char *message;
    } cases[] = {
        {NULL, PATHGATE_ECONFIG, "the filesystem root"},
        {"/ir/home/me", PATHGATE_ECONFIG, "a home directory"},
        {"/ir/home/me/", PATHGATE_ECONFIG, "a home directory"},
        /* (Windows opens no root path with `..` in it: docs/windows.md) */
        {"/ir/home/me/project/..", LINUX_OR_WINDOWS(PATHGATE_ECONFIG, PATHGATE_EIO),
         LINUX_OR_WINDOWS("a home directory", "the directory cannot be opened")},
        {"/ir/home", PATHGATE_ECONFIG, "an ancestor of a home directory"},
        {"/ir", PATHGATE_ECONFIG, "an ancestor of a home directory"},
        {"/ir/home/me/project", PATHGATE_OK, NULL},
        {"/ir/beside", PATHGATE_OK, NULL},
        {"/ir/missing", PATHGATE_EIO, "the directory cannot be opened"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *dir =
            cases[i].rel ? cat(f->tmp, cases[i].rel) : strdup(LINUX_OR_WINDOWS("/", "Z:\\"));
        pathgate_error err = PATHGATE_ERROR_INIT;
        int rc = pathgate_implicit_root_check(dir, &err);
        if (rc != cases[i].rc)
            fail_msg("%s: %d, expected %d (%s)", dir, rc, cases[i].rc, err.message);
        if (cases[i].message)
            assert_string_equal(err.message, cases[i].message);
        free(dir);
    }
#ifndef _WIN32
    /* a home named through a link is the same home */
    ln(f->tmp, "/ir/link-to-home", me);
    char *link = cat(f->tmp, "/ir/link-to-home");
    set_home(link);
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_implicit_root_check(me, &err), PATHGATE_ECONFIG);
    assert_string_equal(err.message, "a home directory");
    free(link);
#endif
    pathgate_error err2 = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_implicit_root_check(NULL, &err2), PATHGATE_EINVAL);
    set_home(saved);
    free(saved);
    free(me);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical_and_alias_forms),
        cmocka_unit_test(test_unknown_and_malformed),
        cmocka_unit_test(test_existence_and_containment),
        cmocka_unit_test(test_file_uris_and_host_paths),
        cmocka_unit_test(test_relative_against_a_base),
        cmocka_unit_test(test_refs_host_path_release),
        cmocka_unit_test(test_host_path_of_holds_no_token),
        cmocka_unit_test(test_address_of),
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_construction_errors),
        cmocka_unit_test(test_accessors_and_internals),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_allocation_failure),
        cmocka_unit_test(test_resolve_is_allocation_light),
        cmocka_unit_test(test_implicit_root_check),
    };
    return cmocka_run_group_tests_name("resolver", tests, group_setup, group_teardown);
}
