/* test_uri.c - PathUri unit tests beyond the case table: argument checks,
 * limits, error detail, the encoding set byte by byte, randomised
 * round trips, equality/hash laws, and allocation failure for every
 * public function (tests/c/test_uri_cases.c runs tests/data/uri_cases.tsv). */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "uri_internal.h"

static pathgate_uri *parse_ok(const char *text)
{
    pathgate_uri *u = NULL;
    pathgate_error err;
    int rc = pathgate_uri_parse(&u, text, strlen(text), pg_test_alloc(), &err);
    if (rc)
        fail_msg("parse \"%s\": %s (%s)", text, pathgate_errname(rc), err.message);
    return u;
}

static pathgate_uri *native_ok(const char *text, size_t len, pathgate_convention c)
{
    pathgate_uri *u = NULL;
    pathgate_error err;
    int rc = pathgate_uri_from_native(&u, text, len, c, pg_test_alloc(), &err);
    if (rc)
        fail_msg("from_native: %s (%s)", pathgate_errname(rc), err.message);
    return u;
}

/* ------------------------------------------------------- arguments, limits */

static void test_null_arguments(void **state)
{
    (void)state;
    pathgate_uri *u = parse_ok("file:///a");
    pathgate_uri *out = (pathgate_uri *)1;
    pathgate_buf b = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_uri_parse(NULL, PG_S("file:///"), NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_parse(&out, NULL, 3, NULL, &err), PATHGATE_EINVAL);
    assert_null(out);
    assert_int_equal(pathgate_uri_parse(&out, NULL, 0, NULL, &err), PATHGATE_ENOTABS);
    assert_int_equal(pathgate_uri_from_native(NULL, PG_S("/"), 0, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_from_native(&out, NULL, 2, 0, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_from_native(&out, PG_S("/"), (pathgate_convention)7, NULL, &err),
                     PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_from_native(&out, NULL, 0, 0, NULL, &err), PATHGATE_ENOTABS);
    assert_int_equal(pathgate_uri_dup(&out, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_parent(&out, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_basename(&b, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_relative_to(&b, u, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_join(&out, NULL, PG_S("x"), &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_join(&out, u, NULL, 1, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_join_descendant(&out, NULL, PG_S("x"), &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_to_native(&b, NULL, 0, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_to_native(&b, u, (pathgate_convention)3, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_to_host_path(NULL, u, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_display(&b, NULL), PATHGATE_EINVAL);
    assert_int_equal(pathgate_uri_starts_with(u, NULL), 0);
    assert_int_equal(pathgate_uri_starts_with(NULL, u), 0);
    assert_int_equal(pathgate_uri_equal(u, NULL), 0);
    assert_int_equal(pathgate_uri_equal(NULL, NULL), 1);
    assert_null(pathgate_uri_string(NULL, NULL));
    size_t len = 99;
    assert_null(pathgate_uri_string(NULL, &len));
    assert_int_equal(len, 0);
    assert_int_equal(pathgate_uri_convention(NULL), PATHGATE_CONVENTION_NONE);
    assert_int_equal(pathgate_uri_is_opaque(NULL), 0);
    /* join with empty text and a NULL pointer is the base */
    assert_int_equal(pathgate_uri_join(&out, u, NULL, 0, &err), 0);
    assert_true(pathgate_uri_equal(out, u));
    pathgate_uri_free(out);
    pathgate_uri_free(NULL);
    pathgate_uri_free(u);
}

static void test_length_limits(void **state)
{
    (void)state;
    size_t max = PATHGATE_PATH_MAX;
    char *text = malloc(PATHGATE_URI_MAX + 2);
    /* parse: exactly URI_MAX bytes is fine, one more is ETOOLONG */
    memcpy(text, "file:///", 8);
    memset(text + 8, 'a', PATHGATE_URI_MAX + 1 - 8);
    pathgate_uri *u = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_uri_parse(&u, text, PATHGATE_URI_MAX, pg_test_alloc(), &err), 0);
    assert_int_equal(strlen(pathgate_uri_string(u, NULL)), PATHGATE_URI_MAX);
    pathgate_uri_free(u);
    assert_int_equal(pathgate_uri_parse(&u, text, PATHGATE_URI_MAX + 1, pg_test_alloc(), &err),
                     PATHGATE_ETOOLONG);
    assert_int_equal(err.code, PATHGATE_ETOOLONG);
    assert_null(u);
    /* from_native */
    text[0] = '/';
    memset(text + 1, 'a', max);
    assert_int_equal(pathgate_uri_from_native(&u, text, max, 0, pg_test_alloc(), &err), 0);
    pathgate_uri_free(u);
    assert_int_equal(pathgate_uri_from_native(&u, text, max + 1, 0, pg_test_alloc(), &err),
                     PATHGATE_ETOOLONG);
    /* join */
    pathgate_uri *base = parse_ok("file:///b");
    assert_int_equal(pathgate_uri_join(&u, base, text + 1, max, &err), 0);
    pathgate_uri_free(u);
    assert_int_equal(pathgate_uri_join(&u, base, text + 1, max + 1, &err), PATHGATE_ETOOLONG);
    pathgate_uri_free(base);
    /* a maximal native path of bytes that all need encoding: the URI is
     * three times longer and still renders back byte for byte */
    text[0] = '/';
    memset(text + 1, 0xFF, max - 1);
    u = native_ok(text, max, PATHGATE_CONVENTION_POSIX);
    size_t n;
    pathgate_uri_string(u, &n);
    assert_int_equal(n, 8 + 3 * (max - 1));
    pathgate_buf b = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_uri_to_native(&b, u, 0, &err), 0);
    assert_int_equal(b.len, max);
    assert_memory_equal(b.ptr, text, max);
    pathgate_buf_dispose(&b);
    /* ...and its string parses back to the same URI (regression: it was
     * longer than PATH_MAX and parse refused it; found by fuzz_uri_native) */
    pathgate_uri *again = NULL;
    assert_int_equal(
        pathgate_uri_parse(&again, pathgate_uri_string(u, NULL), n, pg_test_alloc(), &err), 0);
    assert_string_equal(pathgate_uri_string(again, NULL), pathgate_uri_string(u, NULL));
    pathgate_uri_free(again);
    /* a join that would outgrow URI_MAX is ETOOLONG, never a URI that
     * parse refuses (regression: found by fuzz_uri_join) */
    memset(text, 0xFF, max);
    assert_int_equal(pathgate_uri_join(&again, u, text, max, &err), PATHGATE_ETOOLONG);
    assert_null(again);
    assert_int_equal(pathgate_uri_join(&again, u, text, 10, &err), PATHGATE_ETOOLONG);
    pathgate_uri_free(u);
    /* the longest Windows opaque form (UTF-16LE of PATH_MAX bytes) fits */
    memcpy(text, "\\\\.\\", 4);
    memset(text + 4, 'a', max - 4);
    u = native_ok(text, max, PATHGATE_CONVENTION_WINDOWS);
    assert_true(pathgate_uri_is_opaque(u));
    assert_int_equal(pathgate_uri_parse(&again, pathgate_uri_string(u, NULL),
                                        strlen(pathgate_uri_string(u, NULL)), pg_test_alloc(),
                                        &err),
                     0);
    pathgate_uri_free(again);
    pathgate_uri_free(u);
    /* parse whose lenient re-encoding would outgrow URI_MAX: ETOOLONG */
    memcpy(text, "file:///", 8);
    for (size_t i = 8; i + 1 < PATHGATE_URI_MAX; i += 2)
        memcpy(text + i, "\xC3\xA9", 2);
    assert_int_equal(pathgate_uri_parse(&u, text, PATHGATE_URI_MAX - 1, pg_test_alloc(), &err),
                     PATHGATE_ETOOLONG);
    assert_null(u);
    /* a POSIX join turning opaque (`/C:` first) from a long base still works */
    pathgate_uri *root = parse_ok("file:///");
    text[0] = 'C';
    text[1] = ':';
    text[2] = '/';
    memset(text + 3, 'a', max - 3);
    pathgate_uri *long_base = NULL;
    assert_int_equal(pathgate_uri_join(&long_base, root, text + 3, max - 3, &err), 0);
    assert_int_equal(pathgate_uri_join(&u, long_base, "../../C:/x", 10, &err), 0);
    assert_true(pathgate_uri_is_opaque(u));
    pathgate_uri_free(u);
    pathgate_uri_free(long_base);
    pathgate_uri_free(root);
    free(text);
}

static void test_error_detail(void **state)
{
    (void)state;
    pathgate_uri *u = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_uri_parse(&u, PG_S("gopher://x/y"), NULL, &err), PATHGATE_ESCHEME);
    assert_int_equal(err.code, PATHGATE_ESCHEME);
    assert_non_null(strstr(err.message, "gopher"));
    assert_int_equal(pathgate_uri_parse(&u, PG_S("file:///a%zz"), NULL, &err), PATHGATE_ESYNTAX);
    assert_int_equal(err.code, PATHGATE_ESYNTAX);
    assert_true(strlen(err.message) > 0);
    /* a long scheme is cut short in the message */
    char big[300];
    memset(big, 'q', sizeof big);
    memcpy(big + sizeof big - 4, "://x", 4);
    assert_int_equal(pathgate_uri_parse(&u, big, sizeof big, NULL, &err), PATHGATE_ESCHEME);
    assert_true(strlen(err.message) < 80);
    assert_int_equal(pathgate_uri_from_native(&u, PG_S("rel"), 0, NULL, &err), PATHGATE_ENOTABS);
    assert_int_equal(err.code, PATHGATE_ENOTABS);
    /* err is optional */
    assert_int_equal(pathgate_uri_parse(&u, PG_S("file:///x?q"), NULL, NULL), PATHGATE_EQUERY);
}

/* -------------------------------------------------------- encoding set */

/* docs/spec.md section 2, written out independently of pct.c: the bytes a
 * segment encodes (plus DEL, our documented addition). */
static int design_encodes(unsigned c)
{
    return c < 0x20 || c == ' ' || c == '"' || c == '#' || c == '%' || c == '<' || c == '>' ||
           c == '?' || c == '`' || c == '{' || c == '}' || c == '\\' || c == 0x7F || c >= 0x80;
}

static void test_every_byte_encodes_as_designed(void **state)
{
    (void)state;
    for (unsigned c = 1; c < 256; c++) {
        if (c == '/' || c == '.')
            continue;
        char text[3] = {'/', (char)c, 'x'};
        pathgate_uri *u = native_ok(text, 3, PATHGATE_CONVENTION_POSIX);
        const char *s = pathgate_uri_string(u, NULL);
        char expect[16];
        if (design_encodes(c))
            snprintf(expect, sizeof expect, "file:///%%%02Xx", c);
        else
            snprintf(expect, sizeof expect, "file:///%cx", (char)c);
        if (strcmp(s, expect) != 0)
            fail_msg("byte 0x%02X: expected %s, got %s", c, expect, s);
        /* the string parses back (our literal set includes `[]|^`, which
         * RFC 3986 refuses) and renders the byte again */
        pathgate_uri *again = parse_ok(s);
        assert_string_equal(pathgate_uri_string(again, NULL), s);
        pathgate_buf b = PATHGATE_BUF_INIT;
        assert_int_equal(pathgate_uri_to_native(&b, again, 0, NULL), 0);
        assert_int_equal(b.len, 3);
        assert_memory_equal(b.ptr, text, 3);
        pathgate_buf_dispose(&b);
        pathgate_uri_free(again);
        pathgate_uri_free(u);
    }
}

/* The opaque payload is the original POSIX bytes, exactly. */
static void test_opaque_payload_is_the_original_bytes(void **state)
{
    (void)state;
    const char text[] = "/a/\0/../C:";
    pathgate_uri *u = native_ok(text, sizeof text - 1, PATHGATE_CONVENTION_POSIX);
    assert_true(pathgate_uri_is_opaque(u));
    assert_string_equal(pathgate_uri_string(u, NULL), "file:///%00/bad/path/L2EvAC8uLi9DOg");
    assert_int_equal(pathgate_uri_convention(u), PATHGATE_CONVENTION_POSIX);
    pathgate_uri *p = (pathgate_uri *)1;
    assert_int_equal(pathgate_uri_parent(&p, u, NULL), 0);
    assert_null(p);
    pathgate_uri *j = (pathgate_uri *)1;
    assert_int_equal(pathgate_uri_join(&j, u, PG_S("x"), NULL), PATHGATE_EOPAQUE);
    assert_null(j);
    assert_true(pathgate_uri_starts_with(u, u));
    pathgate_uri_free(u);
}

/* ------------------------------------------------- randomised round trips */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Lexical normalisation of a POSIX path, the oracle: split on '/', drop
 * empty and '.', '..' pops (clamped at '/'); one trailing '/' stays when
 * the text ends with one and a segment is left. */
static size_t posix_normalise(char *out, const char *in, size_t n)
{
    size_t len = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && in[i] == '/')
            i++;
        size_t j = i;
        while (j < n && in[j] != '/')
            j++;
        size_t sl = j - i;
        if (sl == 0 || (sl == 1 && in[i] == '.')) {
        } else if (sl == 2 && in[i] == '.' && in[i + 1] == '.') {
            while (len > 0 && out[len - 1] != '/')
                len--;
            if (len > 0)
                len--;
        } else {
            out[len++] = '/';
            memcpy(out + len, in + i, sl);
            len += sl;
        }
        i = j;
    }
    if (len == 0)
        out[len++] = '/';
    else if (n && in[n - 1] == '/')
        out[len++] = '/';
    return len;
}

static void test_random_posix_round_trips(void **state)
{
    (void)state;
    static const char *pieces[] = {"/",   "/", "/",  "a", "B",  ".",   "..", "%",    "%2F",
                                   "%41", " ", "#",  "?", "\\", "C:",  "é",  "\xff", "~",
                                   "[",   "|", "\t", ":", "@",  "...", "d|"};
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    char text[256], norm[256];
    for (int iter = 0; iter < 3000; iter++) {
        size_t n = 0;
        text[n++] = '/';
        int count = (int)(rng_next(&seed) % 12);
        for (int k = 0; k < count; k++) {
            const char *p = pieces[rng_next(&seed) % (sizeof pieces / sizeof *pieces)];
            size_t pl = strlen(p);
            memcpy(text + n, p, pl);
            n += pl;
        }
        size_t nn = posix_normalise(norm, text, n);
        pathgate_uri *u = native_ok(text, n, PATHGATE_CONVENTION_POSIX);
        size_t ul;
        const char *s = pathgate_uri_string(u, &ul);
        pathgate_uri *again = parse_ok(s);
        assert_string_equal(pathgate_uri_string(again, NULL), s);
        assert_true(pathgate_uri_equal(u, again));
        assert_true(pathgate_uri_hash(u) == pathgate_uri_hash(again));
        int drive_like = nn >= 3 && (norm[2] == ':' || norm[2] == '|') &&
                         (nn == 3 || norm[3] == '/') &&
                         ((norm[1] | 0x20) >= 'a' && (norm[1] | 0x20) <= 'z');
        pathgate_buf b = PATHGATE_BUF_INIT;
        int rc = pathgate_uri_to_native(&b, again, PATHGATE_CONVENTION_POSIX, NULL);
        if (drive_like) {
            assert_true(pathgate_uri_is_opaque(u));
            assert_int_equal(rc, PATHGATE_EOPAQUE);
        } else {
            assert_int_equal(rc, 0);
            if (b.len != nn || memcmp(b.ptr, norm, nn) != 0)
                fail_msg("\"%.*s\": expected \"%.*s\", got \"%s\" via %s", (int)n, text, (int)nn,
                         norm, b.ptr, s);
            /* every ancestor is a prefix, and the rest is relative_to */
            pathgate_uri *p = NULL;
            assert_int_equal(pathgate_uri_parent(&p, again, NULL), 0);
            if (p) {
                assert_true(pathgate_uri_starts_with(again, p));
                pathgate_buf rel = PATHGATE_BUF_INIT, base = PATHGATE_BUF_INIT;
                assert_int_equal(pathgate_uri_relative_to(&rel, again, p, NULL), 0);
                assert_int_equal(pathgate_uri_basename(&base, again, NULL), 0);
                assert_non_null(rel.ptr);
                assert_int_equal(rel.len, base.len);
                assert_memory_equal(rel.ptr, base.ptr, rel.len);
                /* join(parent, basename) is the URI again, less its
                 * trailing separator (a relative join drops it) */
                pathgate_uri *j = NULL;
                assert_int_equal(pathgate_uri_join(&j, p, base.ptr, base.len, NULL), 0);
                if (!strchr(base.ptr, '/') && strcmp(base.ptr, "..") && strcmp(base.ptr, ".") &&
                    !pathgate_uri_is_opaque(j)) {
                    size_t jl, al;
                    const char *js = pathgate_uri_string(j, &jl),
                               *as = pathgate_uri_string(again, &al);
                    assert_false(js[jl - 1] == '/');
                    if (as[al - 1] == '/')
                        al--;
                    assert_int_equal(jl, al);
                    assert_memory_equal(js, as, jl);
                }
                pathgate_uri_free(j);
                pathgate_buf_dispose(&rel);
                pathgate_buf_dispose(&base);
                pathgate_uri_free(p);
            }
        }
        pathgate_buf_dispose(&b);
        pathgate_uri_free(again);
        pathgate_uri_free(u);
    }
}

static void test_random_windows_round_trips(void **state)
{
    (void)state;
    static const char *pieces[] = {"\\", "/", "\\", "a",  "B", ".", "..", "%",   " ",
                                   "#",  "?", "é",  "日", "~", "[", "$",  "x:y", "..."};
    static const char *roots[] = {"c:\\",       "D:/",         "\\\\srv\\share\\",
                                  "//Srv/s h/", "\\\\?\\e:\\", "\\\\.\\UNC\\h\\sh\\"};
    static const char *native_roots[] = {"C:",           "D:", "\\\\srv\\share",
                                         "\\\\Srv\\s h", "E:", "\\\\h\\sh"};
    uint64_t seed = 0xD1B54A32D192ED03ULL;
    char text[256], expect[256];
    for (int iter = 0; iter < 3000; iter++) {
        size_t r = rng_next(&seed) % 6;
        size_t n = strlen(roots[r]);
        memcpy(text, roots[r], n);
        int count = (int)(rng_next(&seed) % 10);
        for (int k = 0; k < count; k++) {
            const char *p = pieces[rng_next(&seed) % (sizeof pieces / sizeof *pieces)];
            memcpy(text + n, p, strlen(p));
            n += strlen(p);
        }
        /* oracle: the native root, then POSIX-normalised segments with
         * '\' as separator, clamped at the root */
        char tail[256], norm[256];
        size_t rl = strlen(roots[r]), tl = 0;
        for (size_t i = rl; i < n; i++)
            tail[tl++] = text[i] == '\\' ? '/' : text[i];
        size_t nn = posix_normalise(norm, tail, tl);
        size_t el = strlen(native_roots[r]);
        memcpy(expect, native_roots[r], el);
        int trailing = text[n - 1] == '/' || text[n - 1] == '\\';
        int drive = expect[1] == ':';
        if (nn == 1 && (drive || trailing)) /* a root: `C:\`, `\\s\sh\` */
            expect[el++] = '\\';
        else if (nn > 1 && !trailing && norm[nn - 1] == '/')
            nn--; /* the tail's own trailing '/' is not the text's */
        for (size_t i = 0; nn > 1 && i < nn; i++)
            expect[el++] = norm[i] == '/' ? '\\' : norm[i];
        if (nn > 1 && trailing && norm[nn - 1] != '/')
            expect[el++] = '\\';
        pathgate_uri *u = native_ok(text, n, PATHGATE_CONVENTION_WINDOWS);
        assert_int_equal(pathgate_uri_convention(u), PATHGATE_CONVENTION_WINDOWS);
        const char *s = pathgate_uri_string(u, NULL);
        pathgate_uri *again = parse_ok(s);
        assert_string_equal(pathgate_uri_string(again, NULL), s);
        assert_true(pathgate_uri_equal(u, again));
        pathgate_buf b = PATHGATE_BUF_INIT;
        assert_int_equal(pathgate_uri_to_native(&b, again, 0, NULL), 0);
        if (b.len != el || memcmp(b.ptr, expect, el) != 0)
            fail_msg("\"%.*s\": expected \"%.*s\", got \"%s\" via %s", (int)n, text, (int)el,
                     expect, b.ptr, s);
        /* case-insensitive: the upper-cased spelling is equal, same hash */
        for (size_t i = 0; i < n; i++)
            if (text[i] >= 'a' && text[i] <= 'z')
                text[i] = (char)(text[i] - 32);
        pathgate_uri *upper = native_ok(text, n, PATHGATE_CONVENTION_WINDOWS);
        assert_true(pathgate_uri_equal(u, upper));
        assert_true(pathgate_uri_hash(u) == pathgate_uri_hash(upper));
        pathgate_uri_free(upper);
        pathgate_buf_dispose(&b);
        pathgate_uri_free(again);
        pathgate_uri_free(u);
    }
}

/* The fast paths (plain text) and the full paths must agree everywhere. */
static void assert_same(int rc, pathgate_uri *fast, int slow_rc, pathgate_uri *slow,
                        const char *text, size_t n)
{
    if (rc != slow_rc ||
        (rc == 0 && strcmp(pathgate_uri_string(fast, NULL), pathgate_uri_string(slow, NULL)) != 0))
        fail_msg("\"%.*s\": fast %s \"%s\", full %s \"%s\"", (int)n, text, pathgate_errname(rc),
                 rc ? "" : pathgate_uri_string(fast, NULL), pathgate_errname(slow_rc),
                 slow_rc ? "" : pathgate_uri_string(slow, NULL));
    if (rc == 0) {
        assert_int_equal(pathgate_uri_convention(fast), pathgate_uri_convention(slow));
        assert_true(pathgate_uri_equal(fast, slow));
        /* same offsets: the same parent and basename */
        pathgate_buf b1 = PATHGATE_BUF_INIT, b2 = PATHGATE_BUF_INIT;
        assert_int_equal(pathgate_uri_basename(&b1, fast, NULL),
                         pathgate_uri_basename(&b2, slow, NULL));
        assert_true((b1.ptr == NULL) == (b2.ptr == NULL));
        if (b1.ptr)
            assert_string_equal(b1.ptr, b2.ptr);
        pathgate_buf_dispose(&b1);
        pathgate_buf_dispose(&b2);
        pathgate_uri *p1 = NULL, *p2 = NULL;
        assert_int_equal(pathgate_uri_parent(&p1, fast, NULL), 0);
        assert_int_equal(pathgate_uri_parent(&p2, slow, NULL), 0);
        assert_true((p1 == NULL) == (p2 == NULL));
        if (p1)
            assert_string_equal(pathgate_uri_string(p1, NULL), pathgate_uri_string(p2, NULL));
        pathgate_uri_free(p1);
        pathgate_uri_free(p2);
    }
    pathgate_uri_free(fast);
    pathgate_uri_free(slow);
}

static void test_fast_paths_agree_with_full_paths(void **state)
{
    (void)state;
    static const char *uri_pieces[] = {"/",  "/",        "/",         "//",   "a",   "Bc",  ".",
                                       "..", "%2e",      "%2E.",      "%2F",  "%00", "%41", "%zz",
                                       "%",  "%4",       "C:",        "c%3a", "z:",  "?",   "#",
                                       " ",  "\xc3\xa9", "[",         "|",    "^",   "\\",  ":",
                                       "@",  "~",        "localhost", "\x01", "'",   "*"};
    static const char *heads[] = {"file:",    "file:/", "file://",           "file:///",
                                  "FILE:///", "File:/", "file://localhost/", "file://h/",
                                  "http:///", ""};
    static const char *native_pieces[] = {"/",    "\\", "a", "Bc", ".",    "..",       "%",
                                          " ",    "#",  "?", "C:", "c:",   "\xc3\xa9", "\xff",
                                          "\x00", "~",  ":", "[",  "\x7f", "\\\\",     "//"};
    pathgate_allocator a;
    pathgate__alloc_init(&a, pg_test_alloc());
    uint64_t seed = 0x2545F4914F6CDD1DULL;
    char text[256];
    for (int iter = 0; iter < 6000; iter++) {
        const char *h = heads[rng_next(&seed) % (sizeof heads / sizeof *heads)];
        size_t n = strlen(h);
        memcpy(text, h, n);
        int count = (int)(rng_next(&seed) % 9);
        for (int k = 0; k < count; k++) {
            const char *p = uri_pieces[rng_next(&seed) % (sizeof uri_pieces / sizeof *uri_pieces)];
            memcpy(text + n, p, strlen(p));
            n += strlen(p);
        }
        pathgate_uri *fast = NULL, *slow = NULL;
        int rc = pathgate_uri_parse(&fast, text, n, pg_test_alloc(), NULL);
        int slow_rc = pathgate__uri_parse_ex(&slow, text, n, pg_test_alloc(), NULL, 1);
        assert_same(rc, fast, slow_rc, slow, text, n);
    }
    for (int iter = 0; iter < 6000; iter++) {
        size_t n = 0;
        int count = (int)(rng_next(&seed) % 10);
        for (int k = 0; k < count; k++) {
            const char *p =
                native_pieces[rng_next(&seed) % (sizeof native_pieces / sizeof *native_pieces)];
            size_t pl = strlen(p) ? strlen(p) : 1; /* "\x00" is one NUL byte */
            memcpy(text + n, p, pl);
            n += pl;
        }
        for (int c = 0; c <= 2; c++) {
            pathgate_uri *fast = NULL, *slow = NULL;
            int rc =
                pathgate__uri_from_native_ex(&fast, text, n, (pathgate_convention)c, &a, NULL, 0);
            int slow_rc =
                pathgate__uri_from_native_ex(&slow, text, n, (pathgate_convention)c, &a, NULL, 1);
            assert_same(rc, fast, slow_rc, slow, text, n);
        }
    }
}

/* The fast path also takes `file://host/...` whose host is a plain
 * reg-name: it must agree with the full path (uriparser) on every host,
 * plain or not (escapes, dots, localhost spellings, userinfo, ports, IP
 * literals, empty hosts, missing shares, forbidden bytes). */
static void test_fast_parse_agrees_on_hosts(void **state)
{
    (void)state;
    static const char *host_pieces[] = {
        "a",         "B",         "srv",         "0",
        "9",         "-",         ".",           "..",
        "_",         "~",         "%41",         "%2e",
        "%2E",       "%00",       "%2F",         "%5C",
        "%3A",       "%40",       "%7C",         "%2A",
        "%20",       "%C3%A9",    "%C3",         "%FF",
        "%zz",       "%4",        "%",           "localhost",
        "LocalHost", "LOCALHOST", "loc%61lhost", "%6C%6F%63%61%6C%68%6F%73%74",
        "@",         "user@",     "u:p@",        ":",
        ":80",       ":x",        "[",           "]",
        "[::1]",     "[v1.x]",    "127.0.0.1",   "!",
        "$",         "'",         "(",           "*",
        "+",         ",",         ";",           "=",
        "\xc3\xa9",  " ",         "?",           "#",
        "\\",        "|",         "^",           "\x01"};
    static const char *path_pieces[] = {
        "/",   "/",   "/",   "/", "//", "share",    "s", "C:", "c|", "a", ".", "..", "%2e", "%2F",
        "%00", "%41", "%zz", "%", " ",  "\xc3\xa9", "[", "|",  "^",  ":", "@", "?",  "#"};
    static const char *heads[] = {"file://", "FILE://", "File://", "file:///", "file:"};
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    char text[512];
    for (int iter = 0; iter < 20000; iter++) {
        const char *h = heads[rng_next(&seed) % (sizeof heads / sizeof *heads)];
        size_t n = strlen(h);
        memcpy(text, h, n);
        int count = (int)(rng_next(&seed) % 5);
        for (int k = 0; k < count; k++) {
            const char *p =
                host_pieces[rng_next(&seed) % (sizeof host_pieces / sizeof *host_pieces)];
            memcpy(text + n, p, strlen(p));
            n += strlen(p);
        }
        /* mostly a share and more; sometimes no path or a bare '/' */
        switch (rng_next(&seed) % 4) {
        case 0:
            break;
        case 1:
            text[n++] = '/';
            break;
        default:
            memcpy(text + n, "/share", 6);
            n += 6;
        }
        count = (int)(rng_next(&seed) % 7);
        for (int k = 0; k < count; k++) {
            const char *p =
                path_pieces[rng_next(&seed) % (sizeof path_pieces / sizeof *path_pieces)];
            memcpy(text + n, p, strlen(p));
            n += strlen(p);
        }
        pathgate_uri *fast = NULL, *slow = NULL;
        int rc = pathgate_uri_parse(&fast, text, n, pg_test_alloc(), NULL);
        int slow_rc = pathgate__uri_parse_ex(&slow, text, n, pg_test_alloc(), NULL, 1);
        assert_same(rc, fast, slow_rc, slow, text, n);
    }
    /* at the length bound, with a host and with localhost */
    static const char *bound_heads[] = {"file://h/", "file://h/s/", "file://localhost/",
                                        "file://localhost/C:/", "file://%41/s/"};
    char *big = malloc(PATHGATE_URI_MAX + 2);
    assert_non_null(big);
    for (size_t k = 0; k < sizeof bound_heads / sizeof *bound_heads; k++) {
        size_t hn = strlen(bound_heads[k]);
        for (size_t n = PATHGATE_URI_MAX - 4; n <= PATHGATE_URI_MAX + 1; n++) {
            memcpy(big, bound_heads[k], hn);
            memset(big + hn, 'a', n - hn);
            pathgate_uri *fast = NULL, *slow = NULL;
            int rc = pathgate_uri_parse(&fast, big, n, pg_test_alloc(), NULL);
            int slow_rc = pathgate__uri_parse_ex(&slow, big, n, pg_test_alloc(), NULL, 1);
            assert_same(rc, fast, slow_rc, slow, big, n > 80 ? 80 : n);
        }
    }
    free(big);
}

/* The fast parse scans the path 16 and 64 bytes at a time and to_native
 * decodes 8 at a time: every byte value, and escapes, separators and dot
 * segments, at every offset around those block edges must give what the
 * full parse gives; each text sits in a heap buffer of exactly its size
 * (ASan sees a read past it), and to_native agrees with decoded_path. */
static void check_block_edges(const char *head, const char *body, size_t body_n)
{
    size_t hn = strlen(head), n = hn + body_n;
    char *text = malloc(n ? n : 1);
    assert_non_null(text);
    memcpy(text, head, hn);
    memcpy(text + hn, body, body_n);
    pathgate_uri *fast = NULL, *slow = NULL;
    int rc = pathgate_uri_parse(&fast, text, n, pg_test_alloc(), NULL);
    int slow_rc = pathgate__uri_parse_ex(&slow, text, n, pg_test_alloc(), NULL, 1);
    if (rc == 0 && !pathgate_uri_is_opaque(fast)) {
        pathgate_convention conv = pathgate_uri_convention(fast);
        pathgate_buf native = PATHGATE_BUF_INIT, dec = PATHGATE_BUF_INIT;
        int nrc = pathgate_uri_to_native(&native, fast, conv, NULL);
        assert_int_equal(pathgate_uri_decoded_path(&dec, fast, NULL), 0);
        size_t host_n = 0;
        const char *enc = pathgate_uri_encoded_path(fast, NULL);
        host_n = (size_t)(enc - pathgate_uri_string(fast, NULL)) - 7;
        if (nrc == 0 && conv == PATHGATE_CONVENTION_POSIX) {
            assert_int_equal(native.len, dec.len);
            assert_memory_equal(native.ptr, dec.ptr, dec.len);
        } else if (nrc == 0 && host_n == 0) { /* `/C:/a` -> `C:\a` */
            assert_true(native.len == dec.len - 1 || native.len == dec.len);
            for (size_t k = 1; k < dec.len; k++)
                assert_int_equal(native.ptr[k - 1], dec.ptr[k] == '/' ? '\\' : dec.ptr[k]);
        } else if (nrc == 0) { /* `\\host` + the path */
            assert_int_equal(native.len, 2 + host_n + dec.len);
            for (size_t k = 0; k < dec.len; k++)
                assert_int_equal(native.ptr[2 + host_n + k], dec.ptr[k] == '/' ? '\\' : dec.ptr[k]);
        } else {
            assert_true(nrc == PATHGATE_ESYNTAX || nrc == PATHGATE_EUTF8);
        }
        pathgate_buf_dispose(&native);
        pathgate_buf_dispose(&dec);
    }
    assert_same(rc, fast, slow_rc, slow, text, n); /* frees both */
    free(text);
}

/* The same for from_native: the fast path's scan and encoder against the
 * builder, in an exact heap buffer. */
static void check_native_block_edges(pathgate_convention conv, const char *head, const char *body,
                                     size_t body_n)
{
    size_t hn = strlen(head), n = hn + body_n;
    char *text = malloc(n ? n : 1);
    assert_non_null(text);
    memcpy(text, head, hn);
    memcpy(text + hn, body, body_n);
    pathgate_allocator a;
    pathgate__alloc_init(&a, pg_test_alloc());
    pathgate_uri *fast = NULL, *slow = NULL;
    int rc = pathgate__uri_from_native_ex(&fast, text, n, conv, &a, NULL, 0);
    int slow_rc = pathgate__uri_from_native_ex(&slow, text, n, conv, &a, NULL, 1);
    assert_same(rc, fast, slow_rc, slow, text, n); /* frees both */
    free(text);
}

static void test_fast_paths_at_block_edges(void **state)
{
    (void)state;
    static const char *heads[] = {"file:///", "file:///C:/", "file://srv/share/"};
    static const char *pieces[] = {"%41", "%2F", "%2f", "%5C",      "%00", "%C3%A9", "%E6%97%A5",
                                   "%FF", "%zz", "%4",  "%",        "/",   "//",     ".",
                                   "..",  "%2E", "a",   "\xc3\xa9", " ",   "|",      "C:"};
    static const size_t lens[] = {1,  2,  6,  7,  8,  9,  14, 15, 16, 17, 18,  31,  32,  33,
                                  47, 48, 49, 62, 63, 64, 65, 66, 79, 80, 127, 128, 129, 140};
    char body[160];
    for (size_t h = 0; h < sizeof heads / sizeof *heads; h++) {
        size_t hn = strlen(heads[h]) - 8; /* the path's bytes before the body */
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            size_t len = lens[li];
            /* every byte value at every offset near a block edge */
            for (size_t at = 0; at < len; at++) {
                size_t pos = hn + 1 + at; /* its offset in the path */
                if (at > 2 && at + 3 < len && (pos % 16) > 1 && (pos % 16) < 14 && pos % 8 != 7 &&
                    pos % 8 != 0)
                    continue;
                for (int c = 0; c < 256; c++) {
                    memset(body, 'a', len);
                    for (size_t k = 5; k < len; k += 6)
                        body[k] = '/'; /* segments of five */
                    body[at] = (char)c;
                    check_block_edges(heads[h], body, len);
                    if (h == 0)
                        check_native_block_edges(PATHGATE_CONVENTION_POSIX, "/", body, len);
                    if (h == 1) {
                        body[at] = c == '/' ? '\\' : (char)c; /* Windows' own separator too */
                        check_native_block_edges(PATHGATE_CONVENTION_WINDOWS, "C:\\", body, len);
                    }
                }
            }
            /* each piece at every offset */
            for (size_t at = 0; at < len; at++)
                for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
                    size_t pn = strlen(pieces[p]);
                    memset(body, 'b', len);
                    memcpy(body + at, pieces[p], pn);
                    check_block_edges(heads[h], body, at + pn > len ? at + pn : len);
                }
        }
    }
}

/* Every short text over the bytes that steer the root parsers, each in a
 * heap buffer of exactly its size (so that ASan sees any read past it). */
static void test_short_inputs_in_exact_buffers(void **state)
{
    (void)state;
    static const char alphabet[] = "\\/.?C:U%f";
    const size_t k = sizeof alphabet - 1;
    pathgate_uri *bases[3] = {parse_ok("file:///a"), parse_ok("file:///C:/a"),
                              parse_ok("file://s/sh/a")};
    for (size_t len = 0; len <= 5; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++)
            total *= k;
        for (size_t code = 0; code < total; code++) {
            char *text = malloc(len ? len : 1);
            size_t c = code;
            for (size_t i = 0; i < len; i++, c /= k)
                text[i] = alphabet[c % k];
            pathgate_uri *u = NULL;
            if (pathgate_uri_parse(&u, text, len, pg_test_alloc(), NULL) == 0)
                pathgate_uri_free(u);
            for (int conv = 0; conv <= 2; conv++)
                if (pathgate_uri_from_native(&u, text, len, (pathgate_convention)conv,
                                             pg_test_alloc(), NULL) == 0)
                    pathgate_uri_free(u);
            for (int b = 0; b < 3; b++) {
                if (pathgate_uri_join(&u, bases[b], text, len, NULL) == 0)
                    pathgate_uri_free(u);
                if (pathgate_uri_join_descendant(&u, bases[b], text, len, NULL) == 0)
                    pathgate_uri_free(u);
            }
            free(text);
        }
    }
    for (int b = 0; b < 3; b++)
        pathgate_uri_free(bases[b]);
}

/* ---------------------------------------------------------- equality laws */

static void test_equal_and_hash_laws(void **state)
{
    (void)state;
    static const char *uris[] = {
        "file:///a",
        "file:///A",
        "file:///a%41",
        "file:///aA",
        "file:///a/b",
        "file:///a%2Fb",
        "file:///a%2fb",
        "file:///C:/a",
        "file:///c:/A",
        "file:///c%3a/a",
        "file:///C%3A/a%41",
        "file:///C:/",
        "file:///D:/",
        "file://s/sh/x",
        "file://S/SH/X",
        "file://s%41/sh",
        "file://sa/sh",
        "file:///%C3%A9",
        "file:///%c3%a9",
        "file:///C:/%C3%89",
        "file:///C:/%C3%A9",
        "file:///",
        "file:///%00/bad/path/L3g",
        "file:///x",
        "file:///%00/bad/path/QUJD",
    };
    size_t n = sizeof uris / sizeof *uris;
    pathgate_uri *u[32];
    for (size_t i = 0; i < n; i++)
        u[i] = parse_ok(uris[i]);
    for (size_t i = 0; i < n; i++) {
        assert_true(pathgate_uri_equal(u[i], u[i]));
        pathgate_uri *d = NULL;
        assert_int_equal(pathgate_uri_dup(&d, u[i], NULL), 0);
        assert_true(pathgate_uri_equal(u[i], d));
        assert_string_equal(pathgate_uri_string(d, NULL), pathgate_uri_string(u[i], NULL));
        pathgate_uri_free(d);
        for (size_t j = 0; j < n; j++) {
            int eq = pathgate_uri_equal(u[i], u[j]);
            assert_int_equal(eq, pathgate_uri_equal(u[j], u[i]));
            if (eq)
                assert_true(pathgate_uri_hash(u[i]) == pathgate_uri_hash(u[j]));
            /* equal URIs relate identically to every third one */
            for (size_t k = 0; eq && k < n; k++)
                assert_int_equal(pathgate_uri_equal(u[i], u[k]), pathgate_uri_equal(u[j], u[k]));
        }
    }
    /* a few that must differ, so the hash is not constant */
    assert_false(pathgate_uri_hash(u[0]) == pathgate_uri_hash(u[1]));
    assert_false(pathgate_uri_hash(u[4]) == pathgate_uri_hash(u[5]));
    for (size_t i = 0; i < n; i++)
        pathgate_uri_free(u[i]);
}

static void test_derived_uris_use_the_base_allocator(void **state)
{
    (void)state;
    pathgate_uri *base = parse_ok("file:///a/b");
    pathgate_uri *p = NULL, *j = NULL, *d = NULL;
    assert_int_equal(pathgate_uri_parent(&p, base, NULL), 0);
    assert_int_equal(pathgate_uri_join(&j, base, PG_S("c"), NULL), 0);
    assert_int_equal(pathgate_uri_dup(&d, base, NULL), 0);
    pathgate_uri_free(base); /* cmocka would report any cross-allocator free */
    assert_string_equal(pathgate_uri_string(p, NULL), "file:///a");
    assert_string_equal(pathgate_uri_string(j, NULL), "file:///a/b/c");
    pathgate_uri_free(p);
    pathgate_uri_free(j);
    pathgate_uri_free(d);
}

/* ------------------------------------------------------ allocation failure */

/* Each body builds its inputs with the failing allocator too, so a failure
 * anywhere (setup included) must come back as ENOMEM without a leak. */

typedef struct chaos {
    const char *a;
    const char *b;
} chaos;

/* URIs every derived-operation body runs on: POSIX, drive, UNC. */
static const chaos chaos_pairs[] = {
    {"file:///a/b/c%20d", "file:///a"},
    {"file:///C:/x/y", "file:///c:/"},
    {"file://s/sh/x", "file://S/SH"},
};

typedef int (*uri_op)(pathgate_uri *u, pathgate_uri *base);

/* Parses both URIs of every pair with alloc and runs op on them. */
static int run_on_pairs(const pathgate_allocator *alloc, uri_op op)
{
    for (size_t i = 0; i < sizeof chaos_pairs / sizeof *chaos_pairs; i++) {
        pathgate_uri *u = NULL, *base = NULL;
        int rc = pathgate_uri_parse(&u, chaos_pairs[i].a, strlen(chaos_pairs[i].a), alloc, NULL);
        if (rc == 0)
            rc = pathgate_uri_parse(&base, chaos_pairs[i].b, strlen(chaos_pairs[i].b), alloc, NULL);
        if (rc == 0)
            rc = op(u, base);
        pathgate_uri_free(base);
        pathgate_uri_free(u);
        if (rc)
            return rc;
    }
    return 0;
}

static int body_parse(const pathgate_allocator *alloc, void *ctx)
{
    const chaos *c = ctx;
    pathgate_uri *u = NULL;
    int rc = pathgate_uri_parse(&u, c->a, strlen(c->a), alloc, NULL);
    if (rc == 0)
        assert_string_equal(pathgate_uri_string(u, NULL), c->b);
    else
        assert_null(u);
    pathgate_uri_free(u);
    return rc;
}

static void test_alloc_parse(void **state)
{
    (void)state;
    /* the fast path and the full path: one block, nothing else */
    chaos p0 = {"file:///home/user/x.txt", "file:///home/user/x.txt"};
    assert_int_equal(pg_for_each_failing_alloc(body_parse, &p0), 1);
    chaos p1 = {"file://LOCALHOST/a b/%41/../c:", "file:///a%20b/c:"};
    assert_int_equal(pg_for_each_failing_alloc(body_parse, &p1), 1);
    /* uriparser's nodes leave its stack arena (a host sends every parse
     * through uriparser) */
    char longuri[1200] = "file://s/h/";
    char longexp[1200] = "file://s/h/";
    for (int i = 0; i < 200; i++) {
        strcat(longuri, "s/");
        strcat(longexp, "s/");
    }
    chaos p2 = {longuri, longexp};
    assert_true(pg_for_each_failing_alloc(body_parse, &p2) > 1);
    chaos p3 = {"file:///%00/bad/path/L3g", "file:///%00/bad/path/L3g"};
    assert_int_equal(pg_for_each_failing_alloc(body_parse, &p3), 1);
}

static int body_from_native(const pathgate_allocator *alloc, void *ctx)
{
    const chaos *c = ctx;
    pathgate_uri *u = NULL;
    int rc =
        pathgate_uri_from_native(&u, c->a, strlen(c->a), PATHGATE_CONVENTION_NONE, alloc, NULL);
    if (rc == 0)
        assert_string_equal(pathgate_uri_string(u, NULL), c->b);
    pathgate_uri_free(u);
    return rc;
}

static void test_alloc_from_native(void **state)
{
    (void)state;
    /* POSIX, Windows drive and UNC, both opaque forms: ONE allocation each */
    static const chaos natives[] = {
        {"/a/b c", "file:///a/b%20c"},
        {"/a/./b", "file:///a/b"},
        {"C:\\x\\..\\y", "file:///C:/y"},
        {"C:\\x y", "file:///C:/x%20y"},
        {"\\\\s\\sh\\x", "file://s/sh/x"},
        {"/C:/x", "file:///%00/bad/path/L0M6L3g"},
        {"\\\\.\\COM1", "file:///%00/bad/path/XABcAC4AXABDAE8ATQAxAA"},
        {"\\\\?\\UNC\\s\\sh", "file://s/sh"},
    };
    for (size_t i = 0; i < sizeof natives / sizeof *natives; i++)
        assert_int_equal(pg_for_each_failing_alloc(body_from_native, (void *)&natives[i]), 1);
}

static int op_dup(pathgate_uri *u, pathgate_uri *base)
{
    (void)base;
    pathgate_uri *d = NULL;
    int rc = pathgate_uri_dup(&d, u, NULL);
    if (rc == 0)
        assert_true(pathgate_uri_equal(d, u));
    pathgate_uri_free(d);
    return rc;
}

static int op_parent(pathgate_uri *u, pathgate_uri *base)
{
    (void)base;
    pathgate_uri *p = NULL;
    int rc = pathgate_uri_parent(&p, u, NULL);
    if (rc == 0)
        assert_non_null(p);
    pathgate_uri_free(p);
    return rc;
}

static int op_basename(pathgate_uri *u, pathgate_uri *base)
{
    (void)base;
    pathgate_buf b = PATHGATE_BUF_INIT;
    int rc = pathgate_uri_basename(&b, u, NULL);
    if (rc == 0)
        assert_non_null(b.ptr);
    pathgate_buf_dispose(&b);
    return rc;
}

static int op_relative_to(pathgate_uri *u, pathgate_uri *base)
{
    pathgate_buf b = PATHGATE_BUF_INIT;
    int rc = pathgate_uri_relative_to(&b, u, base, NULL);
    if (rc == 0)
        assert_non_null(b.ptr);
    pathgate_buf_dispose(&b);
    return rc;
}

static int op_join(pathgate_uri *u, pathgate_uri *base)
{
    (void)u;
    static const char *texts[] = {"x/../y z",    "/abs/x", "\\\\srv\\sh\\x",
                                  "\\\\.\\COM1", "C:q",    "\\r"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        pathgate_uri *j = NULL;
        int rc = pathgate_uri_join(&j, base, texts[i], strlen(texts[i]), NULL);
        pathgate_uri_free(j);
        if (rc == PATHGATE_ENOMEM)
            return rc;
    }
    return 0;
}

static int op_join_descendant(pathgate_uri *u, pathgate_uri *base)
{
    (void)u;
    pathgate_uri *j = NULL;
    int rc = pathgate_uri_join_descendant(&j, base, PG_S("d/./e/../f g"), NULL);
    if (rc == 0)
        assert_true(pathgate_uri_starts_with(j, base));
    pathgate_uri_free(j);
    return rc;
}

static int op_to_native(pathgate_uri *u, pathgate_uri *base)
{
    (void)base;
    pathgate_buf b = PATHGATE_BUF_INIT;
    int rc = pathgate_uri_to_native(&b, u, 0, NULL);
    pathgate_buf_dispose(&b);
    return rc;
}

static int op_to_host_path(pathgate_uri *u, pathgate_uri *base)
{
    (void)base;
    pathgate_buf b = PATHGATE_BUF_INIT;
    int rc = pathgate_uri_to_host_path(&b, u, NULL);
    pathgate_buf_dispose(&b);
    return rc == PATHGATE_ECONVENTION ? 0 : rc; /* Windows URIs fail closed */
}

static int op_display(pathgate_uri *u, pathgate_uri *base)
{
    (void)base;
    pathgate_buf b = PATHGATE_BUF_INIT;
    int rc = pathgate_uri_display(&b, u);
    pathgate_buf_dispose(&b);
    return rc;
}

#define CHAOS_BODY(name)                                                                           \
    static int body_##name(const pathgate_allocator *alloc, void *ctx)                             \
    {                                                                                              \
        (void)ctx;                                                                                 \
        return run_on_pairs(alloc, op_##name);                                                     \
    }                                                                                              \
    static void test_alloc_##name(void **state)                                                    \
    {                                                                                              \
        (void)state;                                                                               \
        pg_for_each_failing_alloc(body_##name, NULL);                                              \
    }
CHAOS_BODY(dup)
CHAOS_BODY(parent)
CHAOS_BODY(basename)
CHAOS_BODY(relative_to)
CHAOS_BODY(join)
CHAOS_BODY(join_descendant)
CHAOS_BODY(to_native)
CHAOS_BODY(to_host_path)
CHAOS_BODY(display)

static int body_opaque_ops(const pathgate_allocator *alloc, void *ctx)
{
    (void)ctx;
    pathgate_uri *u = NULL, *out = NULL;
    pathgate_buf b = PATHGATE_BUF_INIT;
    int rc = pathgate_uri_from_native(&u, PG_S("/C:/x"), PATHGATE_CONVENTION_POSIX, alloc, NULL);
    if (rc)
        return rc;
    /* display decodes the payload (allocations); the rest fail
     * without allocating */
    if ((rc = pathgate_uri_display(&b, u)) == 0) {
        assert_string_equal(b.ptr, "/C:/x");
        assert_int_equal(pathgate_uri_to_native(&b, u, 0, NULL), PATHGATE_EOPAQUE);
        assert_int_equal(pathgate_uri_parent(&out, u, NULL), 0);
        assert_null(out);
        /* a POSIX join whose result looks like a drive becomes opaque */
        pathgate_uri *root = NULL;
        rc = pathgate_uri_from_native(&root, PG_S("/"), PATHGATE_CONVENTION_POSIX, alloc, NULL);
        if (rc == 0)
            rc = pathgate_uri_join(&out, root, PG_S("C:"), NULL);
        if (rc == 0)
            assert_true(pathgate_uri_is_opaque(out));
        pathgate_uri_free(root);
    }
    pathgate_uri_free(out);
    pathgate_buf_dispose(&b);
    pathgate_uri_free(u);
    return rc;
}

static void test_alloc_opaque(void **state)
{
    (void)state;
    pg_for_each_failing_alloc(body_opaque_ops, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_length_limits),
        cmocka_unit_test(test_error_detail),
        cmocka_unit_test(test_every_byte_encodes_as_designed),
        cmocka_unit_test(test_opaque_payload_is_the_original_bytes),
        cmocka_unit_test(test_random_posix_round_trips),
        cmocka_unit_test(test_random_windows_round_trips),
        cmocka_unit_test(test_fast_paths_agree_with_full_paths),
        cmocka_unit_test(test_fast_parse_agrees_on_hosts),
        cmocka_unit_test(test_fast_paths_at_block_edges),
        cmocka_unit_test(test_short_inputs_in_exact_buffers),
        cmocka_unit_test(test_equal_and_hash_laws),
        cmocka_unit_test(test_derived_uris_use_the_base_allocator),
        cmocka_unit_test(test_alloc_parse),
        cmocka_unit_test(test_alloc_from_native),
        cmocka_unit_test(test_alloc_dup),
        cmocka_unit_test(test_alloc_parent),
        cmocka_unit_test(test_alloc_basename),
        cmocka_unit_test(test_alloc_relative_to),
        cmocka_unit_test(test_alloc_join),
        cmocka_unit_test(test_alloc_join_descendant),
        cmocka_unit_test(test_alloc_to_native),
        cmocka_unit_test(test_alloc_to_host_path),
        cmocka_unit_test(test_alloc_display),
        cmocka_unit_test(test_alloc_opaque),
    };
    return cmocka_run_group_tests_name("uri", tests, NULL, NULL);
}
