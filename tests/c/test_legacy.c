/* test_legacy.c - LegacyAppPathString (docs/spec.md section 3). */
#include "support.h"

#include <stdio.h>

#define POSIX PATHGATE_CONVENTION_POSIX
#define WINDOWS PATHGATE_CONVENTION_WINDOWS
#define INFER PATHGATE_CONVENTION_NONE

/* ------------------------------------------------------------ helpers */

static pathgate_legacy *mk(const char *text, size_t len)
{
    pathgate_legacy *p = NULL;
    assert_int_equal(pathgate_legacy_new(&p, text, len, pg_test_alloc(), NULL), 0);
    assert_non_null(p);
    return p;
}

static pathgate_uri *uri(const char *text)
{
    pathgate_uri *u = NULL;
    pathgate_error err;
    int rc = pathgate_uri_parse(&u, PG_S(text), pg_test_alloc(), &err);
    if (rc != 0)
        fail_msg("parse %s: %s (%s)", text, pathgate_errname(rc), err.message);
    return u;
}

/* to_uri of text: expects the URI string, or (expect NULL) the error code
 * and, when msg != NULL, the exact message. */
static void check_to_uri(const char *text, size_t len, pathgate_convention conv, const char *expect,
                         int code, const char *msg)
{
    pathgate_legacy *p = mk(text, len);
    pathgate_uri *u = (pathgate_uri *)0x1;
    pathgate_error err = {0, ""};
    int rc = pathgate_legacy_to_uri(&u, p, conv, &err);
    if (expect) {
        if (rc != 0)
            fail_msg("to_uri '%s': %s (%s)", text, pathgate_errname(rc), err.message);
        assert_string_equal(pathgate_uri_string(u, NULL), expect);
    } else {
        if (rc != code)
            fail_msg("to_uri '%s': expected %s, got %s", text, pathgate_errname(code),
                     pathgate_errname(rc));
        assert_null(u);
        assert_int_equal(err.code, code);
        if (msg)
            assert_string_equal(err.message, msg);
    }
    pathgate_uri_free(u);
    pathgate_legacy_free(p);
}
#define TO_URI_OK(text, conv, expect) check_to_uri(PG_S(text), conv, expect, 0, NULL)
#define TO_URI_ERR(text, conv, code) check_to_uri(PG_S(text), conv, NULL, code, NULL)

/* resolve_against: text against cwd (and home, NULL for none). */
static void check_resolve(const char *text, const char *cwd_s, const char *home_s,
                          const char *expect, int code)
{
    pathgate_legacy *p = mk(PG_S(text));
    pathgate_uri *cwd = uri(cwd_s);
    pathgate_uri *home = home_s ? uri(home_s) : NULL;
    pathgate_uri *out = (pathgate_uri *)0x1;
    pathgate_error err = {0, ""};
    int rc = pathgate_legacy_resolve_against(&out, p, cwd, home, &err);
    if (expect) {
        if (rc != 0)
            fail_msg("resolve '%s' against %s: %s (%s)", text, cwd_s, pathgate_errname(rc),
                     err.message);
        if (strcmp(pathgate_uri_string(out, NULL), expect) != 0)
            fail_msg("resolve '%s' against %s: expected %s, got %s", text, cwd_s, expect,
                     pathgate_uri_string(out, NULL));
    } else {
        if (rc != code)
            fail_msg("resolve '%s' against %s: expected %s, got %s (%s)", text, cwd_s,
                     pathgate_errname(code), pathgate_errname(rc),
                     rc == 0 ? pathgate_uri_string(out, NULL) : err.message);
        assert_null(out);
        assert_int_equal(err.code, code);
        /* the message names the user's text, never anything else */
        assert_non_null(strstr(err.message, "cannot resolve '"));
    }
    pathgate_uri_free(out);
    pathgate_uri_free(home);
    pathgate_uri_free(cwd);
    pathgate_legacy_free(p);
}
#define RESOLVE_OK(text, cwd, home, expect) check_resolve(text, cwd, home, expect, 0)
#define RESOLVE_ERR(text, cwd, home, code) check_resolve(text, cwd, home, NULL, code)

static void check_ui(const char *text, size_t len, const char *expect)
{
    pathgate_legacy *p = mk(text, len);
    pathgate_buf buf = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_legacy_render_for_ui(&buf, p), 0);
    pg_assert_buf(&buf, expect);
    pathgate_legacy_free(p);
}
#define UI(text, expect) check_ui(text, sizeof(text) - 1, expect)

/* -------------------------------------------------- new, text, free */

static void test_new_wraps_any_bytes(void **state)
{
    (void)state;
    static const char odd[] = "a\0b\xFF\xC0/..";
    pathgate_legacy *p = mk(odd, sizeof odd - 1);
    size_t len = 0;
    const char *t = pathgate_legacy_text(p, &len);
    assert_int_equal(len, sizeof odd - 1);
    assert_memory_equal(t, odd, sizeof odd); /* with the terminator */
    assert_non_null(pathgate_legacy_text(p, NULL));
    pathgate_legacy_free(p);

    p = mk("", 0);
    assert_string_equal(pathgate_legacy_text(p, &len), "");
    assert_int_equal(len, 0);
    pathgate_legacy_free(p);

    p = mk(NULL, 0);
    assert_string_equal(pathgate_legacy_text(p, &len), "");
    pathgate_legacy_free(p);

    /* longer than any path limit: still only wrapped */
    static char big[3 * PATHGATE_PATH_MAX];
    memset(big, 'x', sizeof big);
    p = mk(big, sizeof big);
    assert_int_equal(strlen(pathgate_legacy_text(p, NULL)), sizeof big);
    pathgate_legacy_free(p);

    pathgate_legacy_free(NULL);
    assert_null(pathgate_legacy_text(NULL, &len));
    assert_int_equal(len, 0);
}

static void test_new_rejects_misuse(void **state)
{
    (void)state;
    pathgate_legacy *p = (pathgate_legacy *)0x1;
    pathgate_error err;
    assert_int_equal(pathgate_legacy_new(&p, NULL, 3, pg_test_alloc(), &err), PATHGATE_EINVAL);
    assert_null(p);
    assert_int_equal(pathgate_legacy_new(NULL, "x", 1, pg_test_alloc(), &err), PATHGATE_EINVAL);
}

/* ------------------------------------------------------ infer_convention */

static void test_infer_convention(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        pathgate_convention conv;
    } rows[] = {
        {"C:\\x", WINDOWS},
        {"c:/x", WINDOWS},
        {"z:\\", WINDOWS},
        {"\\\\srv\\share", WINDOWS},
        {"\\\\?\\C:\\x", WINDOWS},
        {"\\\\", WINDOWS},
        {"/", POSIX},
        {"/usr/bin", POSIX},
        {"//srv/share", POSIX},
        {"C:", INFER},
        {"C:x", INFER},
        {"1:\\x", INFER},
        {"\\x", INFER},
        {"x/y", INFER},
        {"", INFER},
        {"~", INFER},
        {"~/x", INFER},
        {"./x", INFER},
        {" /x", INFER},
        {"\xC3\xA9:\\x", INFER},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pathgate_legacy *p = mk(PG_S(rows[i].text));
        if (pathgate_legacy_infer_convention(p) != rows[i].conv)
            fail_msg("infer '%s': expected %d, got %d", rows[i].text, rows[i].conv,
                     pathgate_legacy_infer_convention(p));
        pathgate_legacy_free(p);
    }
    assert_int_equal(pathgate_legacy_infer_convention(NULL), INFER);
}

/* ---------------------------------------------------------------- to_uri */

static void test_to_uri_converts_absolute_text(void **state)
{
    (void)state;
    TO_URI_OK("/usr/share/doc", INFER, "file:///usr/share/doc");
    TO_URI_OK("/", INFER, "file:///");
    TO_URI_OK("/a b/c#d?e%f", INFER, "file:///a%20b/c%23d%3Fe%25f");
    TO_URI_OK("/caf\xC3\xA9", INFER, "file:///caf%C3%A9");
    TO_URI_OK("C:\\Users\\me\\file.txt", INFER, "file:///C:/Users/me/file.txt");
    TO_URI_OK("c:/x/../y", INFER, "file:///C:/y");
    TO_URI_OK("\\\\server\\share\\dir", INFER, "file://server/share/dir");
    TO_URI_OK("\\\\?\\C:\\x", INFER, "file:///C:/x");
    TO_URI_OK("\\\\?\\UNC\\srv\\sh\\x", INFER, "file://srv/sh/x");
    /* an explicit convention decides, whatever the spelling suggests */
    TO_URI_OK("C:\\x", WINDOWS, "file:///C:/x");
    TO_URI_OK("//srv/share", POSIX, "file:///srv/share");
    TO_URI_OK("/x\\y", POSIX, "file:///x%5Cy");
}

static void test_to_uri_fails_closed_naming_text_and_convention(void **state)
{
    (void)state;
    check_to_uri(PG_S("foo"), INFER, NULL, PATHGATE_ENOTABS,
                 "cannot convert 'foo' to a URI: not absolute (no convention inferred)");
    check_to_uri(PG_S("foo"), POSIX, NULL, PATHGATE_ENOTABS,
                 "cannot convert 'foo' to a posix URI: not absolute");
    check_to_uri(PG_S("foo\\bar"), WINDOWS, NULL, PATHGATE_ENOTABS,
                 "cannot convert 'foo\\bar' to a windows URI: not absolute");
    TO_URI_ERR("", INFER, PATHGATE_ENOTABS);
    TO_URI_ERR("C:x", INFER, PATHGATE_ENOTABS);
    TO_URI_ERR("C:\\x", POSIX, PATHGATE_ENOTABS); /* a relative POSIX name */
    TO_URI_ERR("~/x", INFER, PATHGATE_ENOTABS);   /* never expanded */
    /* NUL and bad UTF-8: shown escaped in the message */
    check_to_uri("a\0b", 3, POSIX, NULL, PATHGATE_ENOTABS,
                 "cannot convert 'a\\x00b' to a posix URI: not absolute");
    /* an absolute POSIX path holding NUL has only the opaque form */
    check_to_uri("/a\0b", 4, INFER, "file:///%00/bad/path/L2EAYg", 0, NULL);
    check_to_uri("C:\\a\xFF", 5, INFER, NULL, PATHGATE_EUTF8,
                 "cannot convert 'C:\\a\xEF\xBF\xBD' to a windows URI: invalid utf8");
    /* POSIX names are bytes: no UTF-8 needed */
    check_to_uri("/a\xFF", 3, INFER, "file:///a%FF", 0, NULL);
    check_to_uri("x\n\x1b[2J", 6, INFER, NULL, PATHGATE_ENOTABS,
                 "cannot convert 'x\\n\\x1B[2J' to a URI: not absolute (no convention inferred)");

    /* too long: the quoted text is cut, the message stays bounded */
    static char big[PATHGATE_PATH_MAX + 2];
    memset(big, 'a', sizeof big);
    big[0] = '/';
    pathgate_legacy *p = mk(big, sizeof big);
    pathgate_uri *u = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_legacy_to_uri(&u, p, INFER, &err), PATHGATE_ETOOLONG);
    assert_null(u);
    assert_non_null(strstr(err.message, "aaa...' to a posix URI: too long"));
    assert_int_equal(pathgate_legacy_to_uri(&u, p, (pathgate_convention)7, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_legacy_to_uri(&u, NULL, INFER, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_legacy_to_uri(NULL, p, INFER, &err), PATHGATE_EINVAL);
    pathgate_legacy_free(p);

    /* a multibyte character is never cut in half in the message */
    char mb[300];
    size_t n = 0;
    mb[n++] = '/';
    while (n + 2 <= 299) {
        mb[n++] = '\xC3';
        mb[n++] = '\xA9';
    }
    p = mk(mb, n);
    assert_int_equal(pathgate_legacy_to_uri(&u, p, WINDOWS, &err), PATHGATE_ENOTABS);
    assert_true(strlen(err.message) < sizeof err.message - 1);
    const char *dots = strstr(err.message, "...'");
    assert_non_null(dots);
    assert_int_equal((unsigned char)dots[-1], 0xA9);
    pathgate_legacy_free(p);
}

/* -------------------------------------------------------------- from_uri */

static void check_from_uri(const char *u_s, pathgate_convention conv, const char *expect, int code)
{
    pathgate_uri *u = uri(u_s);
    pathgate_legacy *p = (pathgate_legacy *)0x1;
    pathgate_error err = {0, ""};
    int rc = pathgate_legacy_from_uri(&p, u, conv, &err);
    if (expect) {
        if (rc != 0)
            fail_msg("from_uri %s: %s (%s)", u_s, pathgate_errname(rc), err.message);
        assert_string_equal(pathgate_legacy_text(p, NULL), expect);
    } else {
        if (rc != code)
            fail_msg("from_uri %s: expected %s, got %s", u_s, pathgate_errname(code),
                     pathgate_errname(rc));
        assert_null(p);
        assert_int_equal(err.code, code);
    }
    pathgate_legacy_free(p);
    pathgate_uri_free(u);
}

static void test_from_uri_renders_for_the_client(void **state)
{
    (void)state;
    check_from_uri("file:///usr/a%20b", INFER, "/usr/a b", 0);
    check_from_uri("file:///C:/Users/me", INFER, "C:\\Users\\me", 0);
    check_from_uri("file:///c:/", INFER, "C:\\", 0);
    check_from_uri("file://srv/share/x", INFER, "\\\\srv\\share\\x", 0);
    check_from_uri("file:///C:/x", POSIX, "/C:/x", 0);
    check_from_uri("file:///caf%C3%A9", POSIX, "/caf\xC3\xA9", 0);
    /* fail-closed where there is no native form */
    check_from_uri("file://srv/share/x", POSIX, NULL, PATHGATE_ECONVENTION);
    check_from_uri("file:///usr/x", WINDOWS, NULL, PATHGATE_ECONVENTION);
    /* an opaque URI of the other convention has no text of it */
    check_from_uri("file:///%00/bad/path/L3gAeQ", WINDOWS, NULL, PATHGATE_EOPAQUE);
    check_from_uri("file:///%00/bad/path/XABcAC4AXABDAE8ATQAxAA", POSIX, NULL, PATHGATE_EOPAQUE);
    check_from_uri("file://server/", WINDOWS, NULL, PATHGATE_ECONVENTION);

    /* fail-open where Codex is: opaque payloads decode, encoded separators
     * and non-UTF-8 bytes render lossily, no share renders the URI */
    check_from_uri("file:///%00/bad/path/L0M6L3NlY3JldA", INFER, "/C:/secret", 0);
    check_from_uri("file:///%00/bad/path/XABcAC4AXABDAE8ATQAxAA", INFER, "\\\\.\\COM1", 0);
    check_from_uri("file:///tmp/a%2Fb", INFER, "/tmp/a/b", 0);
    check_from_uri("file:///C:/a%5Cb", INFER, "C:\\a\\b", 0);
    check_from_uri("file:///tmp/non-utf8-%FF", POSIX, "/tmp/non-utf8-\xEF\xBF\xBD", 0);
    check_from_uri("file:///C:/x%FF", WINDOWS, "C:\\x\xEF\xBF\xBD", 0);
    check_from_uri("file://server/", INFER, "file://server/", 0);
    check_from_uri("file:///tmp/", INFER, "/tmp/", 0);
    check_from_uri("file:///C:/tmp/", INFER, "C:\\tmp\\", 0);
    check_from_uri("file:///C:", INFER, "C:\\", 0);
    /* a lone UTF-16 surrogate in a Windows payload (C:\a then 0xD800) */
    check_from_uri("file:///%00/bad/path/QwA6AFwAYQAA2A", INFER, "C:\\a\xEF\xBF\xBD", 0);

    pathgate_legacy *p = (pathgate_legacy *)0x1;
    assert_int_equal(pathgate_legacy_from_uri(&p, NULL, INFER, NULL), PATHGATE_EINVAL);
    assert_null(p);
}

static void test_round_trip_text_uri_text(void **state)
{
    (void)state;
    static const char *texts[] = {
        "/usr/share/a b",
        "/tmp/100%/#x?y",
        "/\xE6\x97\xA5\xE6\x9C\xAC/\xC3\xA9",
        "C:\\Program Files\\App",
        "D:\\",
        "\\\\srv\\share\\dir\\f.txt",
        "/",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        pathgate_legacy *p = mk(PG_S(texts[i])), *back = NULL;
        pathgate_uri *u = NULL;
        assert_int_equal(pathgate_legacy_to_uri(&u, p, INFER, NULL), 0);
        assert_int_equal(
            pathgate_legacy_from_uri(&back, u, pathgate_legacy_infer_convention(p), NULL), 0);
        assert_string_equal(pathgate_legacy_text(back, NULL), texts[i]);
        pathgate_legacy_free(back);
        pathgate_uri_free(u);
        pathgate_legacy_free(p);
    }
}

/* --------------------------------------------------------- render_for_ui */

static void test_render_for_ui_never_fails(void **state)
{
    (void)state;
    UI("C:\\Users\\me\\a b.txt", "C:\\Users\\me\\a b.txt"); /* backslashes stay */
    UI("/caf\xC3\xA9/\xF0\x9F\x98\x80", "/caf\xC3\xA9/\xF0\x9F\x98\x80");
    UI("", "");
    UI("relative/../x", "relative/../x");
    /* controls are escaped */
    UI("a\tb\nc\rd", "a\\tb\\nc\\rd");
    UI("a\0b", "a\\x00b");
    UI("\x1b[31m\x7f", "\\x1B[31m\\x7F");
    UI("x\xC2\x85y\xC2\x9Bz", "x\\u0085y\\u009Bz");      /* C1 */
    UI("evil\xE2\x80\xAEtxt.exe", "evil\\u202Etxt.exe"); /* RLO */
    UI("\xE2\x81\xA6\xE2\x80\x8F\xD8\x9C\xE2\x80\xA8", "\\u2066\\u200F\\u061C\\u2028");
    UI("keep\xE2\x80\x8B\xC2\xA0", "keep\xE2\x80\x8B\xC2\xA0"); /* not controls */
    /* invalid UTF-8: one U+FFFD per maximal ill-formed subpart */
    UI("a\xFF"
       "b",
       "a\xEF\xBF\xBD"
       "b");
    UI("\xE2\x82", "\xEF\xBF\xBD"); /* truncated 3-byte */
    UI("\xE2\x82x", "\xEF\xBF\xBDx");
    UI("\xF0\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); /* overlong lead */
    UI("\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); /* surrogate */
    UI("\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD");
    UI("\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    UI("\xF0\x9F\x98", "\xEF\xBF\xBD");
    UI("\x80", "\xEF\xBF\xBD");

    /* every single byte value renders as valid UTF-8 without controls */
    for (int b = 0; b < 256; b++) {
        char c = (char)b;
        pathgate_legacy *p = mk(&c, 1);
        pathgate_buf buf = PATHGATE_BUF_INIT;
        assert_int_equal(pathgate_legacy_render_for_ui(&buf, p), 0);
        assert_int_equal(strlen(buf.ptr), buf.len);
        for (size_t i = 0; i < buf.len; i++)
            assert_true((unsigned char)buf.ptr[i] >= 0x20 && buf.ptr[i] != 0x7F);
        pathgate_buf_dispose(&buf);
        pathgate_legacy_free(p);
    }

    pathgate_buf buf = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_legacy_render_for_ui(&buf, NULL), PATHGATE_EINVAL);
    assert_null(buf.ptr);
    assert_int_equal(pathgate_legacy_render_for_ui(NULL, NULL), PATHGATE_EINVAL);
}

/* ------------------------------------------------------- resolve_against */

#define PCWD "file:///home/u/work"
#define PHOME "file:///home/me"
#define WCWD "file:///C:/Users/u/work"
#define WHOME "file:///C:/Users/me"

static void test_resolve_home(void **state)
{
    (void)state;
    RESOLVE_OK("~", PCWD, PHOME, PHOME);
    RESOLVE_OK("~/", PCWD, PHOME, PHOME);
    RESOLVE_OK("~/notes/a.txt", PCWD, PHOME, PHOME "/notes/a.txt");
    RESOLVE_OK("~//etc", PCWD, PHOME, PHOME "/etc"); /* never absolute */
    RESOLVE_OK("~/../other", PCWD, PHOME, "file:///home/other");
    RESOLVE_OK("~/../../../..", PCWD, PHOME, "file:///");
    RESOLVE_ERR("~", PCWD, NULL, PATHGATE_ENOHOME);
    RESOLVE_ERR("~/x", PCWD, NULL, PATHGATE_ENOHOME);
    /* only ~ and ~/ are expansions under POSIX */
    RESOLVE_OK("~user/x", PCWD, PHOME, PCWD "/~user/x");
    RESOLVE_OK("~\\x", PCWD, PHOME, PCWD "/~%5Cx");
    RESOLVE_OK("~user", PCWD, NULL, PCWD "/~user");
    RESOLVE_OK("a/~", PCWD, NULL, PCWD "/a/~");

    RESOLVE_OK("~", WCWD, WHOME, WHOME);
    RESOLVE_OK("~\\docs\\a.txt", WCWD, WHOME, WHOME "/docs/a.txt");
    RESOLVE_OK("~/docs", WCWD, WHOME, WHOME "/docs");
    RESOLVE_OK("~\\\\srv\\share", WCWD, WHOME, WHOME "/srv/share"); /* not UNC */
    RESOLVE_OK("~\\C:\\x", WCWD, WHOME, WHOME "/C:/x");             /* not a drive */
    RESOLVE_OK("~\\..", WCWD, WHOME, "file:///C:/Users");
    RESOLVE_ERR("~\\x", WCWD, NULL, PATHGATE_ENOHOME);
    /* a home of the other convention cannot serve */
    RESOLVE_ERR("~", WCWD, PHOME, PATHGATE_ECONVENTION);
    RESOLVE_ERR("~/x", PCWD, WHOME, PATHGATE_ECONVENTION);
}

static void test_resolve_posix_cwd(void **state)
{
    (void)state;
    RESOLVE_OK("", PCWD, NULL, PCWD);
    RESOLVE_OK(".", PCWD, NULL, PCWD);
    RESOLVE_OK("src/main.c", PCWD, NULL, PCWD "/src/main.c");
    RESOLVE_OK("./a//b/./c", PCWD, NULL, PCWD "/a/b/c");
    RESOLVE_OK("../x", PCWD, NULL, "file:///home/u/x");
    RESOLVE_OK("../../../../..", PCWD, NULL, "file:///");
    RESOLVE_OK("/etc/passwd", PCWD, NULL, "file:///etc/passwd");
    RESOLVE_OK("//srv/share", PCWD, NULL, "file:///srv/share"); /* not UNC */
    RESOLVE_OK("a b/%41#?", PCWD, NULL, PCWD "/a%20b/%2541%23%3F");
    RESOLVE_OK("C:x", PCWD, NULL, PCWD "/C:x"); /* a plain name here */
    RESOLVE_OK("\\x", PCWD, NULL, PCWD "/%5Cx");
    /* another convention's absolute text */
    RESOLVE_ERR("C:\\x", PCWD, NULL, PATHGATE_ECONVENTION);
    RESOLVE_ERR("c:/x", PCWD, NULL, PATHGATE_ECONVENTION);
    RESOLVE_ERR("\\\\srv\\share\\x", PCWD, NULL, PATHGATE_ECONVENTION);
    RESOLVE_ERR("\\\\?\\C:\\x", PCWD, NULL, PATHGATE_ECONVENTION);
    /* text the resolver refuses */
    RESOLVE_OK("a\xFF", PCWD, NULL, PCWD "/a%FF"); /* POSIX names are bytes */
    RESOLVE_ERR("a\xFF", WCWD, NULL, PATHGATE_EUTF8);
    static char big[PATHGATE_PATH_MAX + 2];
    memset(big, 'a', sizeof big - 1);
    RESOLVE_ERR(big, PCWD, NULL, PATHGATE_ETOOLONG);
    RESOLVE_ERR(big, WCWD, NULL, PATHGATE_ETOOLONG);
    big[0] = big[1] = '/';
    RESOLVE_ERR(big, WCWD, NULL, PATHGATE_ETOOLONG);

    pathgate_legacy *p = mk("a\0b", 3);
    pathgate_uri *cwd = uri(PCWD), *out = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_legacy_resolve_against(&out, p, cwd, NULL, &err), PATHGATE_ENUL);
    assert_string_equal(err.message,
                        "cannot resolve 'a\\x00b' against a posix working directory: nul byte");
    pathgate_legacy_free(p);
    p = mk(PG_S("C:\\x"));
    assert_int_equal(pathgate_legacy_resolve_against(&out, p, cwd, NULL, &err),
                     PATHGATE_ECONVENTION);
    assert_string_equal(err.message, "cannot resolve 'C:\\x' against a posix working directory: "
                                     "incompatible convention");
    /* misuse */
    assert_int_equal(pathgate_legacy_resolve_against(&out, NULL, cwd, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_legacy_resolve_against(&out, p, NULL, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_legacy_resolve_against(NULL, p, cwd, NULL, &err), PATHGATE_EINVAL);
    pathgate_legacy_free(p);
    pathgate_uri_free(cwd);
}

static void test_resolve_windows_cwd(void **state)
{
    (void)state;
    RESOLVE_OK("", WCWD, NULL, WCWD);
    RESOLVE_OK("src\\main.c", WCWD, NULL, WCWD "/src/main.c");
    RESOLVE_OK("src/sub\\x", WCWD, NULL, WCWD "/src/sub/x");
    RESOLVE_OK("..\\..\\x", WCWD, NULL, "file:///C:/Users/x");
    RESOLVE_OK("..\\..\\..\\..\\..", WCWD, NULL, "file:///C:");
    /* absolute text of the cwd's convention */
    RESOLVE_OK("D:\\data\\a b", WCWD, NULL, "file:///D:/data/a%20b");
    RESOLVE_OK("d:/data", WCWD, NULL, "file:///D:/data");
    RESOLVE_OK("\\\\?\\E:\\x", WCWD, NULL, "file:///E:/x");
    /* a leading \\ or // is UNC */
    RESOLVE_OK("\\\\srv\\share\\x", WCWD, NULL, "file://srv/share/x");
    RESOLVE_OK("//srv/share/x", WCWD, NULL, "file://srv/share/x");
    RESOLVE_OK("\\/srv/share", WCWD, NULL, "file://srv/share");
    RESOLVE_OK("\\\\?\\UNC\\srv\\share\\y", WCWD, NULL, "file://srv/share/y");
    /* POSIX-absolute (and \x) text is root-relative: keeps the drive */
    RESOLVE_OK("/etc/hosts", WCWD, NULL, "file:///C:/etc/hosts");
    RESOLVE_OK("\\Windows", WCWD, NULL, "file:///C:/Windows");
    /* drive-relative */
    RESOLVE_OK("C:rel\\x", WCWD, NULL, WCWD "/rel/x");
    RESOLVE_OK("c:rel", WCWD, NULL, WCWD "/rel");
    RESOLVE_ERR("D:rel", WCWD, NULL, PATHGATE_EDRIVE);

    /* a UNC cwd: root-relative text stays on the share */
    RESOLVE_OK("/x", "file://srv/share/d/e", NULL, "file://srv/share/x");
    RESOLVE_OK("..\\..\\..\\..", "file://srv/share/d/e", NULL, "file://srv/share");
    RESOLVE_OK("f", "file://srv/share/d/e", NULL, "file://srv/share/d/e/f");
    RESOLVE_OK("C:\\x", "file://srv/share/d", NULL, "file:///C:/x");
}

static void test_resolve_opaque_cwd(void **state)
{
    (void)state;
    /* payload "abc": names no convention, so nothing can resolve here */
    RESOLVE_ERR("x", "file:///%00/bad/path/YWJj", NULL, PATHGATE_EOPAQUE);
    RESOLVE_ERR("/x", "file:///%00/bad/path/YWJj", NULL, PATHGATE_EOPAQUE);
}

/* ------------------------------------------------ allocation failures */

static int body_new_render(const pathgate_allocator *a, void *ctx)
{
    (void)ctx;
    pathgate_legacy *p = NULL;
    int rc = pathgate_legacy_new(&p, PG_S("a\tb\xFF"), a, NULL);
    if (rc)
        return rc;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    rc = pathgate_legacy_render_for_ui(&buf, p);
    if (rc == 0) {
        assert_string_equal(buf.ptr, "a\\tb\xEF\xBF\xBD");
        pathgate_buf_dispose(&buf);
    }
    pathgate_legacy_free(p);
    return rc;
}

static int body_to_uri(const pathgate_allocator *a, void *ctx)
{
    const char *text = ctx;
    pathgate_legacy *p = NULL;
    int rc = pathgate_legacy_new(&p, PG_S(text), a, NULL);
    if (rc)
        return rc;
    pathgate_uri *u = NULL;
    pathgate_error err;
    rc = pathgate_legacy_to_uri(&u, p, INFER, &err);
    if (rc == PATHGATE_ENOMEM)
        assert_non_null(strstr(err.message, "out of memory"));
    pathgate_uri_free(u);
    pathgate_legacy_free(p);
    return rc;
}

static int body_from_uri(const pathgate_allocator *a, void *ctx)
{
    const char *text = ctx;
    pathgate_uri *u = NULL;
    int rc = pathgate_uri_parse(&u, PG_S(text), a, NULL);
    if (rc)
        return rc;
    pathgate_legacy *p = NULL;
    rc = pathgate_legacy_from_uri(&p, u, INFER, NULL);
    pathgate_legacy_free(p);
    pathgate_uri_free(u);
    return rc;
}

struct resolve_case {
    const char *text, *cwd, *home;
};

static int body_resolve(const pathgate_allocator *a, void *ctx)
{
    const struct resolve_case *c = ctx;
    pathgate_legacy *p = NULL;
    pathgate_uri *cwd = NULL, *home = NULL, *out = NULL;
    int rc = pathgate_legacy_new(&p, PG_S(c->text), a, NULL);
    if (!rc)
        rc = pathgate_uri_parse(&cwd, PG_S(c->cwd), a, NULL);
    if (!rc && c->home)
        rc = pathgate_uri_parse(&home, PG_S(c->home), a, NULL);
    if (!rc)
        rc = pathgate_legacy_resolve_against(&out, p, cwd, home, NULL);
    if (!rc)
        assert_non_null(out);
    pathgate_uri_free(out);
    pathgate_uri_free(home);
    pathgate_uri_free(cwd);
    pathgate_legacy_free(p);
    return rc;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    assert_true(pg_for_each_failing_alloc(body_new_render, NULL) >= 2);
    static const char *to[] = {"/a b/c", "C:\\x\\y", "\\\\srv\\sh\\x", "\\\\?\\C:\\x"};
    for (size_t i = 0; i < sizeof to / sizeof to[0]; i++)
        pg_for_each_failing_alloc(body_to_uri, (void *)to[i]);
    static const char *from[] = {"file:///a%20b", "file:///C:/x", "file://srv/sh/x"};
    for (size_t i = 0; i < sizeof from / sizeof from[0]; i++)
        pg_for_each_failing_alloc(body_from_uri, (void *)from[i]);
    static const struct resolve_case rs[] = {
        {"~/a", PCWD, PHOME},    {"~", PCWD, PHOME},    {"x/../y", PCWD, NULL},
        {"/etc", PCWD, NULL},    {"~\\a", WCWD, WHOME}, {"\\\\s\\h\\x", WCWD, NULL},
        {"//s/h/x", WCWD, NULL}, {"/x", WCWD, NULL},    {"C:y", WCWD, NULL},
        {"D:\\z", WCWD, NULL},
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
        pg_for_each_failing_alloc(body_resolve, (void *)&rs[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_wraps_any_bytes),
        cmocka_unit_test(test_new_rejects_misuse),
        cmocka_unit_test(test_infer_convention),
        cmocka_unit_test(test_to_uri_converts_absolute_text),
        cmocka_unit_test(test_to_uri_fails_closed_naming_text_and_convention),
        cmocka_unit_test(test_from_uri_renders_for_the_client),
        cmocka_unit_test(test_round_trip_text_uri_text),
        cmocka_unit_test(test_render_for_ui_never_fails),
        cmocka_unit_test(test_resolve_home),
        cmocka_unit_test(test_resolve_posix_cwd),
        cmocka_unit_test(test_resolve_windows_cwd),
        cmocka_unit_test(test_resolve_opaque_cwd),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests_name("legacy", tests, NULL, NULL);
}
