/* test_error.c - the error table, the error struct, buffers, conventions. */
#include "support.h"

#include "alloc.h"
#include "error.h"

static void test_errname_and_strerror_cover_the_table(void **state)
{
    (void)state;
    assert_string_equal(pathgate_errname(0), "ok");
    assert_string_equal(pathgate_errname(PATHGATE_ESCHEME), "unsupported_scheme");
    assert_string_equal(pathgate_errname(PATHGATE_EQUERY), "query_not_allowed");
    assert_string_equal(pathgate_errname(PATHGATE_ENOTABS), "not_absolute");
    assert_string_equal(pathgate_errname(PATHGATE_ECONVENTION), "incompatible_convention");
    assert_string_equal(pathgate_errname(PATHGATE_EOPAQUE), "opaque");
    assert_string_equal(pathgate_errname(PATHGATE_ENOTDESC), "not_descendant");
    assert_string_equal(pathgate_errname(1), "unknown_error");
    assert_string_equal(pathgate_errname(-9999), "unknown_error");
    assert_string_equal(pathgate_strerror(PATHGATE_EINVALIDPATH), "Invalid path / not found");
    assert_string_equal(pathgate_strerror(PATHGATE_ECAPACITY),
                        "Visibility registry capacity exceeded \xE2\x80\x94 restart server");
    assert_string_equal(pathgate_strerror(PATHGATE_EOVERFLOW),
                        "directory stack overflow (max 100)");
    assert_string_equal(pathgate_strerror(PATHGATE_ESUBDIRHOME), "Subdirectory homing not allowed");
    /* every code has a distinct name and a text */
    for (int a = PATHGATE__ERRNO_LAST - 1; a < 0; a++) {
        assert_string_not_equal(pathgate_errname(a), "unknown_error");
        assert_true(strlen(pathgate_strerror(a)) > 0);
        for (int b = a + 1; b < 0; b++)
            assert_string_not_equal(pathgate_errname(a), pathgate_errname(b));
    }
}

static void test_error_set_formats_and_truncates(void **state)
{
    (void)state;
    pathgate_error err;
    assert_int_equal(pathgate__error_set(&err, PATHGATE_EINVAL, "bad %s %d", "thing", 7),
                     PATHGATE_EINVAL);
    assert_int_equal(err.code, PATHGATE_EINVAL);
    assert_string_equal(err.message, "bad thing 7");
    assert_int_equal(pathgate__error_set(&err, PATHGATE_ENOMEM, NULL), PATHGATE_ENOMEM);
    assert_string_equal(err.message, "out of memory");
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    pathgate__error_set(&err, PATHGATE_EINVAL, "%s", big);
    assert_int_equal(strlen(err.message), PATHGATE_ERROR_TEXT_LENGTH - 1);
    assert_int_equal(pathgate__error_set(NULL, PATHGATE_EIO, "ignored"), PATHGATE_EIO);
    pathgate__error_clear(&err);
    assert_int_equal(err.code, 0);
    assert_string_equal(err.message, "");
}

static void test_buf_set_dispose_and_absent(void **state)
{
    (void)state;
    pathgate_allocator a;
    pathgate__alloc_init(&a, pg_test_alloc());
    pathgate_buf buf = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate__buf_set(&buf, &a, "a\0b", 3), 0);
    assert_int_equal(buf.len, 3);
    assert_memory_equal(buf.ptr, "a\0b", 4);
    assert_int_equal(pathgate__buf_set(&buf, &a, "", 0), 0); /* replaces, no leak */
    pg_assert_buf(&buf, "");
    assert_int_equal(pathgate__buf_set(&buf, &a, NULL, 0), 0);
    pg_assert_buf(&buf, NULL);
    pathgate_buf_dispose(NULL);
    pathgate_buf_dispose(&buf); /* twice is fine */
}

static void test_buf_set_reports_enomem(void **state)
{
    (void)state;
    pg_failing_alloc fa;
    pg_failing_alloc_init(&fa, 1, 1);
    pathgate_allocator a;
    pathgate__alloc_init(&a, &fa.alloc);
    pathgate_buf buf = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate__buf_set(&buf, &a, "abc", 3), PATHGATE_ENOMEM);
    assert_null(buf.ptr);
    assert_null(pathgate__calloc(&a, (size_t)-1, 16));
}

static void test_conventions(void **state)
{
    (void)state;
    pathgate_convention c = PATHGATE_CONVENTION_NONE;
    pathgate_error err;
    assert_int_equal(pathgate_convention_parse(&c, PG_S("windows"), &err), 0);
    assert_int_equal(c, PATHGATE_CONVENTION_WINDOWS);
    assert_int_equal(pathgate_convention_parse(&c, PG_S("posix"), &err), 0);
    assert_int_equal(c, PATHGATE_CONVENTION_POSIX);
    assert_int_equal(pathgate_convention_parse(&c, PG_S("Windows"), &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_convention_parse(&c, "posix\0x", 7, &err), PATHGATE_EINVAL);
    assert_string_equal(pathgate_convention_name(PATHGATE_CONVENTION_WINDOWS), "windows");
    assert_string_equal(pathgate_convention_name(PATHGATE_CONVENTION_POSIX), "posix");
    assert_null(pathgate_convention_name(PATHGATE_CONVENTION_NONE));
#ifdef _WIN32
    assert_int_equal(pathgate_convention_host(), PATHGATE_CONVENTION_WINDOWS);
#else
    assert_int_equal(pathgate_convention_host(), PATHGATE_CONVENTION_POSIX);
#endif
    assert_string_equal(pathgate_version(), PATHGATE_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errname_and_strerror_cover_the_table),
        cmocka_unit_test(test_error_set_formats_and_truncates),
        cmocka_unit_test(test_buf_set_dispose_and_absent),
        cmocka_unit_test(test_buf_set_reports_enomem),
        cmocka_unit_test(test_conventions),
    };
    return cmocka_run_group_tests_name("error", tests, NULL, NULL);
}
