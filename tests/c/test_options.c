/* test_options.c - the *_options_init functions give exactly what the
 * *_OPTIONS_INIT macros give, and refuse a NULL struct or another version. */
#include "support.h"

/* Starts from 0xA5 everywhere, so a field the function forgot shows. */
#define CHECK_INIT(type, fn, macro, version, ...)                                                  \
    do {                                                                                           \
        type got_, want_ = macro;                                                                  \
        memset(&got_, 0xA5, sizeof got_);                                                          \
        assert_int_equal(fn(&got_, version), 0);                                                   \
        __VA_ARGS__                                                                                \
        assert_int_equal(fn(NULL, version), PATHGATE_EINVAL);                                      \
        assert_int_equal(fn(&got_, (version) + 1), PATHGATE_EINVAL);                               \
        assert_int_equal(fn(&got_, 0), PATHGATE_EINVAL);                                           \
    } while (0)
#define SAME(field) assert_true(got_.field == want_.field);

static void test_resolver_options_init(void **state)
{
    (void)state;
    CHECK_INIT(pathgate_resolver_options, pathgate_resolver_options_init,
               PATHGATE_RESOLVER_OPTIONS_INIT, PATHGATE_RESOLVER_OPTIONS_VERSION,
               SAME(version) SAME(roots) SAME(nroots) SAME(mods) SAME(nmods) SAME(max_tokens)
                   SAME(flags) SAME(allocator));
}

static void test_resolve_options_init(void **state)
{
    (void)state;
    CHECK_INIT(pathgate_resolve_options, pathgate_resolve_options_init,
               PATHGATE_RESOLVE_OPTIONS_INIT, PATHGATE_RESOLVE_OPTIONS_VERSION,
               SAME(version) SAME(require_exists) SAME(base) SAME(base_len));
    pathgate_resolve_options o;
    assert_int_equal(pathgate_resolve_options_init(&o, PATHGATE_RESOLVE_OPTIONS_VERSION), 0);
    assert_int_equal(o.require_exists, 1); /* the one default that is not 0 */
}

static void test_fs_options_init(void **state)
{
    (void)state;
    CHECK_INIT(pathgate_fs_options, pathgate_fs_options_init, PATHGATE_FS_OPTIONS_INIT,
               PATHGATE_FS_OPTIONS_VERSION,
               SAME(version) SAME(session) SAME(flags) SAME(max_file_size));
}

static void test_fs_search_options_init(void **state)
{
    (void)state;
    CHECK_INIT(pathgate_fs_search_options, pathgate_fs_search_options_init,
               PATHGATE_FS_SEARCH_OPTIONS_INIT, PATHGATE_FS_SEARCH_OPTIONS_VERSION,
               SAME(version) SAME(fs.version) SAME(fs.session) SAME(fs.flags) SAME(fs.max_file_size)
                   SAME(flags) SAME(glob) SAME(glob_len) SAME(max_count) SAME(threads)
                       SAME(max_file_size));
    pathgate_fs_search_options o;
    assert_int_equal(pathgate_fs_search_options_init(&o, PATHGATE_FS_SEARCH_OPTIONS_VERSION), 0);
    assert_true(o.max_count == PATHGATE_FS_NO_LIMIT); /* every match */
    assert_int_equal(o.fs.version, PATHGATE_FS_OPTIONS_VERSION);
}

static void test_exec_options_init(void **state)
{
    (void)state;
    CHECK_INIT(pathgate_exec_options, pathgate_exec_options_init, PATHGATE_EXEC_OPTIONS_INIT,
               PATHGATE_EXEC_OPTIONS_VERSION,
               SAME(version) SAME(cwd) SAME(cwd_len) SAME(timeout_ms) SAME(output_cap)
                   SAME(allow_network) SAME(allow_unconfined) SAME(env) SAME(flags));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolver_options_init), cmocka_unit_test(test_resolve_options_init),
        cmocka_unit_test(test_fs_options_init),       cmocka_unit_test(test_fs_search_options_init),
        cmocka_unit_test(test_exec_options_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
