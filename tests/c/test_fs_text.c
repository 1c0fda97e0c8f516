/* test_fs_text.c - the pure text work of the file operations: line
 * windows, blank files, newline counting, UTF-8 repair, base64, the edit
 * replacement and its messages, quoting, time stamps. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "fs_result.h"
#include "fs_text.h"

static pathgate_allocator A;

static int setup(void **state)
{
    (void)state;
    pathgate__alloc_init(&A, pg_test_alloc());
    return 0;
}

static void window_is(const char *text, uint64_t offset, uint64_t limit, const char *want,
                      size_t want_total)
{
    pathgate_buf out = PATHGATE_BUF_INIT;
    size_t total = 0;
    assert_int_equal(pathgate__fs_window(&out, &total, &A, PG_S(text), offset, limit), 0);
    assert_int_equal(total, want_total);
    pg_assert_buf(&out, want);
}

static void test_window(void **state)
{
    (void)state;
    window_is("a\nb\nc\n", 0, 2000, "a\nb\nc", 3);
    window_is("a\nb\nc", 0, 2000, "a\nb\nc", 3); /* no final newline */
    window_is("a\nb\nc\n", 1, 1, "b", 3);
    window_is("a\nb\nc\n", 2, 5, "c", 3);
    window_is("a\r\nb\r\nc\r\n", 0, 2, "a\nb", 3); /* CRLF */
    window_is("a\r\nb", 1, 1, "b", 2);
    window_is("a\rb\n", 0, 1, "a\rb", 1); /* a lone CR is text */
    window_is("x\r", 0, 1, "x\r", 1);     /* no terminator: kept */
    window_is("\n\nz", 0, 3, "\n\nz", 3); /* empty lines */
    window_is("a\n\n", 1, 1, "", 2);
    window_is("one", 0, (uint64_t)-1, "one", 1); /* huge limit */

    pathgate_buf out = PATHGATE_BUF_INIT;
    size_t total = 0;
    assert_int_equal(pathgate__fs_window(&out, &total, &A, PG_S("a\nb\n"), 2, 1), PATHGATE_ERANGE);
    assert_int_equal(total, 2);
    assert_null(out.ptr);

    /* 10,000 lines */
    size_t cap = 10000 * 12;
    char *big = malloc(cap);
    size_t n = 0;
    for (int i = 1; i <= 10000; i++)
        n += (size_t)snprintf(big + n, cap - n, "line %d\n", i);
    assert_int_equal(pathgate__fs_count_lines(big, n), 10000);
    assert_int_equal(pathgate__fs_window(&out, &total, &A, big, n, 9998, 2000), 0);
    assert_int_equal(total, 10000);
    pg_assert_buf(&out, "line 9999\nline 10000");
    assert_int_equal(pathgate__fs_window(&out, &total, &A, big, n, 4999, 1), 0);
    pg_assert_buf(&out, "line 5000");
    free(big);
}

static void test_count_newlines(void **state)
{
    (void)state;
    assert_int_equal(pathgate__fs_count_newlines("", 0), 0);
    assert_int_equal(pathgate__fs_count_newlines(PG_S("\n")), 1);
    assert_int_equal(pathgate__fs_count_lines(PG_S("")), 0);
    assert_int_equal(pathgate__fs_count_lines(PG_S("x")), 1);
    assert_int_equal(pathgate__fs_count_lines(PG_S("x\n")), 1);
    assert_int_equal(pathgate__fs_count_lines(PG_S("x\ny")), 2);
    /* the SWAR path against a plain count, over every alignment and
     * across the 255-word flush */
    size_t len = 8 * 255 * 3 + 13;
    char *s = malloc(len);
    srand(7);
    for (size_t i = 0; i < len; i++)
        s[i] = (char)((rand() % 5 == 0) ? '\n' : (rand() % 3 == 0) ? '\x8a' : 'a' + rand() % 26);
    for (size_t start = 0; start < 9; start++) {
        size_t want = 0;
        for (size_t i = start; i < len; i++)
            want += s[i] == '\n';
        assert_int_equal(pathgate__fs_count_newlines(s + start, len - start), want);
    }
    memset(s, '\n', len);
    assert_int_equal(pathgate__fs_count_newlines(s, len), len);
    free(s);
}

static void test_blank(void **state)
{
    (void)state;
    assert_true(pathgate__fs_blank("", 0));
    assert_true(pathgate__fs_blank(PG_S(" \t\r\n\v\f\x1c\x1f")));
    assert_false(pathgate__fs_blank(PG_S("  x ")));
    assert_false(pathgate__fs_blank("\0", 1));
}

static void test_utf8_repair(void **state)
{
    (void)state;
    char out[64];
    const char *ok = "caf\xC3\xA9 \xF0\x9F\x98\x80";
    assert_int_equal(pathgate__fs_utf8_repair(NULL, PG_S(ok)), strlen(ok));
    size_t n = pathgate__fs_utf8_repair(out, PG_S("a\xFF"
                                                  "b\xC3"));
    assert_int_equal(n, 8);
    assert_memory_equal(out,
                        "a\xEF\xBF\xBD"
                        "b\xEF\xBF\xBD",
                        8);
    /* overlong and surrogate forms are invalid, byte by byte */
    n = pathgate__fs_utf8_repair(out, PG_S("\xC0\xAF"));
    assert_int_equal(n, 6);
    n = pathgate__fs_utf8_repair(out, PG_S("\xED\xA0\x80"));
    assert_int_equal(n, 9);
}

static void base64_is(const char *data, size_t len, const char *want)
{
    pathgate_buf out = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate__fs_base64(&out, &A, data, len), 0);
    pg_assert_buf(&out, want);
}

static void test_base64(void **state)
{
    (void)state;
    base64_is("", 0, "");
    base64_is("f", 1, "Zg==");
    base64_is("fo", 2, "Zm8=");
    base64_is("foo", 3, "Zm9v");
    base64_is("foobar", 6, "Zm9vYmFy");
    base64_is("\x00\xff\xfe", 3, "AP/+");
}

static void replace_is(const char *content, const char *old, const char *new_text, int all,
                       const char *want, size_t want_count)
{
    char *res = NULL;
    size_t len = 0, count = 0;
    pathgate_error err;
    int rc = pathgate__fs_replace(&res, &len, &count, &A, PG_S(content), PG_S(old), PG_S(new_text),
                                  all, &err);
    if (rc != 0)
        fail_msg("replace '%s': %s", old, err.message);
    assert_int_equal(count, want_count);
    assert_int_equal(len, strlen(want));
    assert_string_equal(res, want);
    pathgate__free(&A, res);
}

static void replace_fails(const char *content, const char *old, int all, int code,
                          const char *message)
{
    char *res = NULL;
    size_t len = 0, count = 0;
    pathgate_error err;
    assert_int_equal(pathgate__fs_replace(&res, &len, &count, &A, PG_S(content), PG_S(old),
                                          PG_S("x"), all, &err),
                     code);
    assert_null(res);
    assert_int_equal(err.code, code);
    assert_string_equal(err.message, message);
}

static void test_replace(void **state)
{
    (void)state;
    replace_is("hello world", "world", "there", 0, "hello there", 1);
    replace_is("a-a-a", "a", "b", 1, "b-b-b", 3);
    replace_is("aaaa", "aa", "b", 1, "bb", 2); /* non-overlapping, left to right */
    replace_is("abc", "b", "", 0, "ac", 1);
    /* CRLF files: "\n" in old/new reads as "\r\n" */
    replace_is("one\r\ntwo\r\nthree\r\n", "one\ntwo", "1\n2", 0, "1\r\n2\r\nthree\r\n", 1);
    replace_is("one\r\ntwo\r\n", "one\r\ntwo", "x", 0, "x\r\n", 1);
    /* an LF file is byte-exact */
    replace_is("one\ntwo\n", "one\ntwo", "1\n2", 0, "1\n2\n", 1);
    /* a CRLF file with a lone LF line: the literal form is tried second */
    replace_is("a\r\nb\nc", "b\nc", "X", 0, "a\r\nX", 1);

    replace_fails("abc", "zz", 0, PATHGATE_EEDIT, "String not found in file: 'zz'");
    /* the core names the problem; the advice is each front end's */
    replace_fails("a a a", "a", 0, PATHGATE_EAMBIGUOUS, "String 'a' appears 3 times in file.");
    replace_fails("abc", "", 1, PATHGATE_EEDIT, "old_string must not be empty");

    /* a long old string is cut so that the rest of the message survives */
    char old[600];
    memset(old, 'q', sizeof old - 1);
    old[sizeof old - 1] = '\0';
    char content[1300];
    snprintf(content, sizeof content, "%s %s", old, old);
    char *res = NULL;
    size_t len = 0, count = 0;
    pathgate_error err;
    assert_int_equal(
        pathgate__fs_replace(&res, &len, &count, &A, PG_S(content), PG_S(old), PG_S("x"), 0, &err),
        PATHGATE_EAMBIGUOUS);
    assert_true(strlen(err.message) < PATHGATE_ERROR_TEXT_LENGTH);
    assert_true(strlen(err.message) > PATHGATE_ERROR_TEXT_LENGTH - 8);
    assert_non_null(strstr(err.message, "...' appears 2 times in file."));
    assert_null(strstr(err.message, "replace_all"));
}

static void test_quote(void **state)
{
    (void)state;
    char out[32];
    assert_int_equal(pathgate__fs_quote(out, 10, PG_S("short")), 5);
    assert_string_equal(out, "short");
    assert_int_equal(pathgate__fs_quote(out, 8, PG_S("abcdefghij")), 8);
    assert_string_equal(out, "abcde...");
    /* never cuts a UTF-8 sequence: room 6 keeps "a" and one whole é */
    assert_int_equal(pathgate__fs_quote(out, 6, PG_S("a\xC3\xA9\xC3\xA9\xC3\xA9")), 6);
    assert_string_equal(out, "a\xC3\xA9...");
    /* room 5 would split the second é: it backs off */
    assert_int_equal(pathgate__fs_quote(out, 5, PG_S("a\xC3\xA9\xC3\xA9\xC3\xA9")), 4);
    assert_string_equal(out, "a...");
}

static void test_format_time(void **state)
{
    (void)state;
    char out[PATHGATE_FS_TIME_LEN];
    pathgate__fs_format_time(out, 0, 0);
    assert_string_equal(out, "1970-01-01T00:00:00.000000+00:00");
    pathgate__fs_format_time(out, 1714566896, 123456789);
    assert_string_equal(out, "2024-05-01T12:34:56.123456+00:00");
    pathgate__fs_format_time(out, 1714566896, -5);
    assert_string_equal(out, "2024-05-01T12:34:56.000000+00:00");
}

static void test_operation_errors(void **state)
{
    (void)state;
    assert_null(pathgate_fs_operation_error(0));
    assert_string_equal(pathgate_fs_operation_error(PATHGATE_ENOTFOUND), "file_not_found");
    assert_string_equal(pathgate_fs_operation_error(PATHGATE_EACCES), "permission_denied");
    assert_string_equal(pathgate_fs_operation_error(PATHGATE_EISDIR), "is_directory");
    assert_string_equal(pathgate_fs_operation_error(PATHGATE_EINVALIDPATH), "invalid_path");
    assert_string_equal(pathgate_fs_operation_error(PATHGATE_ENOTREG), "invalid_path");
}

static int text_body(const pathgate_allocator *alloc, void *ctx)
{
    (void)ctx;
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    pathgate_buf out = PATHGATE_BUF_INIT;
    size_t total;
    int rc = pathgate__fs_window(&out, &total, &a, PG_S("a\r\nb\r\n"), 0, 5);
    if (rc < 0)
        return rc;
    pathgate_buf_dispose(&out);
    if ((rc = pathgate__fs_base64(&out, &a, "xyz", 3)) < 0)
        return rc;
    pathgate_buf_dispose(&out);
    char *res = NULL;
    size_t len, count;
    rc = pathgate__fs_replace(&res, &len, &count, &a, PG_S("a\r\nb\r\n"), PG_S("a\nb"),
                              PG_S("c\nd"), 0, NULL);
    if (rc < 0)
        return rc;
    assert_string_equal(res, "c\r\nd\r\n");
    pathgate__free(&a, res);
    return 0;
}

static void test_text_failing_allocations(void **state)
{
    (void)state;
    assert_true(pg_for_each_failing_alloc(text_body, NULL) >= 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_count_newlines),
        cmocka_unit_test(test_blank),
        cmocka_unit_test(test_utf8_repair),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_replace),
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_format_time),
        cmocka_unit_test(test_operation_errors),
        cmocka_unit_test(test_text_failing_allocations),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
