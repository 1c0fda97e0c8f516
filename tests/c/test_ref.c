/* test_ref.c - VisibilityRef values: validation, accessors, equality, hash, dup. */
#include "support.h"

#include "ref.h"

#define TOKEN_A "0f8fad5b-d9cb-469f-a165-70867728950e"
#define TOKEN_B "7c9e6679-7425-40de-944b-e07fc1f90ae7"

static pathgate_ref *make(const char *token, const char *address)
{
    pathgate_ref *ref = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_ref_new(&ref, PG_S(token), PG_S(address), pg_test_alloc(), &err), 0);
    assert_non_null(ref);
    return ref;
}

static void test_new_keeps_both_strings(void **state)
{
    (void)state;
    pathgate_ref *ref = make(TOKEN_A, "root:repo/common/traits/00_traits.txt");
    size_t len = 0;
    const char *t = pathgate_ref_token(ref, &len);
    assert_int_equal(len, 36);
    assert_string_equal(t, TOKEN_A);
    const char *a = pathgate_ref_address(ref, &len);
    assert_int_equal(len, strlen("root:repo/common/traits/00_traits.txt"));
    assert_string_equal(a, "root:repo/common/traits/00_traits.txt");
    /* len pointers are optional */
    assert_string_equal(pathgate_ref_token(ref, NULL), TOKEN_A);
    assert_string_equal(pathgate_ref_address(ref, NULL), "root:repo/common/traits/00_traits.txt");
    pathgate_ref_free(ref);

    /* a non-ASCII mod name is a valid address */
    ref = make(TOKEN_B, "mod:Mod \xC3\xA9t\xC3\xA9/x");
    assert_string_equal(pathgate_ref_address(ref, NULL), "mod:Mod \xC3\xA9t\xC3\xA9/x");
    pathgate_ref_free(ref);
}

static void expect_refused(const char *token, size_t token_len, const char *address,
                           size_t address_len, int code)
{
    pathgate_ref *ref = (pathgate_ref *)0x1;
    pathgate_error err = {0, ""};
    assert_int_equal(
        pathgate_ref_new(&ref, token, token_len, address, address_len, pg_test_alloc(), &err),
        code);
    assert_null(ref);
    assert_int_equal(err.code, code);
    assert_true(strlen(err.message) > 0);
    /* err is optional */
    assert_int_equal(
        pathgate_ref_new(&ref, token, token_len, address, address_len, pg_test_alloc(), NULL),
        code);
}

static void test_new_refuses_malformed_tokens(void **state)
{
    (void)state;
    const char *addr = "root:repo";
    size_t alen = strlen(addr);
    expect_refused(PG_S(""), addr, alen, PATHGATE_EINVAL);
    expect_refused(TOKEN_A, 35, addr, alen, PATHGATE_EINVAL);       /* short */
    expect_refused(PG_S(TOKEN_A "0"), addr, alen, PATHGATE_EINVAL); /* long */
    expect_refused(PG_S("0F8FAD5B-D9CB-469F-A165-70867728950E"), addr, alen, PATHGATE_EINVAL);
    expect_refused(PG_S("0f8fad5b-d9cb-469f-a165-70867728950E"), addr, alen, PATHGATE_EINVAL);
    expect_refused(PG_S("0f8fad5bd-9cb-469f-a165-70867728950e"), addr, alen, PATHGATE_EINVAL);
    expect_refused(PG_S("0f8fad5b-d9cb-469f-a165_70867728950e"), addr, alen, PATHGATE_EINVAL);
    expect_refused(PG_S("0f8fad5g-d9cb-469f-a165-70867728950e"), addr, alen, PATHGATE_EINVAL);
    expect_refused(PG_S("{f8fad5b-d9cb-469f-a165-70867728950}"), addr, alen, PATHGATE_EINVAL);
    expect_refused("0f8fad5b-d9cb-469f-a165-70867728950\0", 36, addr, alen, PATHGATE_EINVAL);
    expect_refused(NULL, 36, addr, alen, PATHGATE_EINVAL);
    expect_refused(NULL, 0, addr, alen, PATHGATE_EINVAL);
}

static void test_new_refuses_bad_addresses(void **state)
{
    (void)state;
    expect_refused(PG_S(TOKEN_A), "root:repo/a\0b", 13, PATHGATE_ENUL);
    expect_refused(PG_S(TOKEN_A), "root:repo/\xC3", 11, PATHGATE_EUTF8);
    expect_refused(PG_S(TOKEN_A), "root:repo/\xED\xA0\x80", 13, PATHGATE_EUTF8); /* surrogate */
    expect_refused(PG_S(TOKEN_A), "", 0, PATHGATE_EINVAL);
    expect_refused(PG_S(TOKEN_A), NULL, 4, PATHGATE_EINVAL);
    pathgate_ref *ref = NULL;
    assert_int_equal(pathgate_ref_new(NULL, PG_S(TOKEN_A), PG_S("root:x"), NULL, NULL),
                     PATHGATE_EINVAL);
    assert_null(ref);
}

static void test_equality_needs_token_and_address(void **state)
{
    (void)state;
    pathgate_ref *a1 = make(TOKEN_A, "root:repo/x");
    pathgate_ref *a2 = make(TOKEN_A, "root:repo/x");
    pathgate_ref *other_token = make(TOKEN_B, "root:repo/x");
    pathgate_ref *other_addr = make(TOKEN_A, "root:repo/y");
    pathgate_ref *prefix = make(TOKEN_A, "root:repo/xx");

    assert_true(pathgate_ref_equal(a1, a2));
    assert_true(pathgate_ref_equal(a2, a1));
    assert_true(pathgate_ref_equal(a1, a1));
    assert_false(pathgate_ref_equal(a1, other_token));
    assert_false(pathgate_ref_equal(a1, other_addr));
    assert_false(pathgate_ref_equal(a1, prefix));
    assert_false(pathgate_ref_equal(prefix, a1));
    assert_false(pathgate_ref_equal(a1, NULL));
    assert_false(pathgate_ref_equal(NULL, a1));
    assert_true(pathgate_ref_equal(NULL, NULL));

    /* equal refs hash equally; these unequal ones do not collide */
    assert_true(pathgate_ref_hash(a1) == pathgate_ref_hash(a2));
    assert_true(pathgate_ref_hash(a1) != pathgate_ref_hash(other_token));
    assert_true(pathgate_ref_hash(a1) != pathgate_ref_hash(other_addr));
    assert_true(pathgate_ref_hash(a1) != pathgate_ref_hash(prefix));
    /* the hash is a pure function of the value: the same in every process */
    assert_true(pathgate_ref_hash(a1) == pathgate_ref_hash(a1));

    pathgate_ref_free(a1);
    pathgate_ref_free(a2);
    pathgate_ref_free(other_token);
    pathgate_ref_free(other_addr);
    pathgate_ref_free(prefix);
}

static void test_dup_is_an_equal_independent_copy(void **state)
{
    (void)state;
    pathgate_ref *orig = make(TOKEN_B, "mod:Some Mod/common/a.txt");
    pathgate_ref *copy = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_ref_dup(&copy, orig, &err), 0);
    assert_non_null(copy);
    assert_ptr_not_equal(copy, orig);
    assert_true(pathgate_ref_equal(copy, orig));
    assert_true(pathgate_ref_hash(copy) == pathgate_ref_hash(orig));
    pathgate_ref_free(orig); /* the copy outlives it */
    assert_string_equal(pathgate_ref_token(copy, NULL), TOKEN_B);
    assert_string_equal(pathgate_ref_address(copy, NULL), "mod:Some Mod/common/a.txt");
    pathgate_ref_free(copy);

    assert_int_equal(pathgate_ref_dup(&copy, NULL, &err), PATHGATE_EINVAL);
    assert_null(copy);
    assert_int_equal(pathgate_ref_dup(NULL, orig, NULL), PATHGATE_EINVAL);
}

static void test_free_null_and_accessors_on_null(void **state)
{
    (void)state;
    pathgate_ref_free(NULL);
    size_t len = 99;
    assert_null(pathgate_ref_token(NULL, &len));
    assert_int_equal(len, 0);
    len = 99;
    assert_null(pathgate_ref_address(NULL, &len));
    assert_int_equal(len, 0);
    assert_true(pathgate_ref_hash(NULL) == 0);
}

static void test_make_spells_the_bytes_lowercase(void **state)
{
    (void)state;
    const unsigned char id[16] = {0x0f, 0x8f, 0xad, 0x5b, 0xd9, 0xcb, 0x46, 0x9f,
                                  0xa1, 0x65, 0x70, 0x86, 0x77, 0x28, 0x95, 0x0e};
    pathgate_ref *ref = NULL;
    assert_int_equal(pathgate__ref_make(&ref, pg_test_alloc(), id, PG_S("root:repo")), 0);
    assert_string_equal(pathgate_ref_token(ref, NULL), TOKEN_A);
    assert_memory_equal(pathgate__ref_id(ref), id, 16);
    pathgate_ref *parsed = make(TOKEN_A, "root:repo");
    assert_memory_equal(pathgate__ref_id(parsed), id, 16);
    assert_true(pathgate_ref_equal(ref, parsed));
    pathgate_ref_free(ref);
    pathgate_ref_free(parsed);
}

static int ref_body(const pathgate_allocator *alloc, void *ctx)
{
    (void)ctx;
    pathgate_ref *ref = NULL, *copy = NULL;
    pathgate_error err;
    int rc = pathgate_ref_new(&ref, PG_S(TOKEN_A), PG_S("root:repo/a/b"), alloc, &err);
    if (rc) {
        assert_null(ref);
        assert_int_equal(err.code, rc);
        return rc;
    }
    rc = pathgate_ref_dup(&copy, ref, &err); /* dup uses the ref's allocator */
    if (rc == 0) {
        assert_true(pathgate_ref_equal(ref, copy));
        pathgate_ref_free(copy);
    } else {
        assert_null(copy);
    }
    pathgate_ref_free(ref);
    return rc;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    long calls = pg_for_each_failing_alloc(ref_body, NULL);
    assert_int_equal(calls, 2); /* one allocation per ref */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_keeps_both_strings),
        cmocka_unit_test(test_new_refuses_malformed_tokens),
        cmocka_unit_test(test_new_refuses_bad_addresses),
        cmocka_unit_test(test_equality_needs_token_and_address),
        cmocka_unit_test(test_dup_is_an_equal_independent_copy),
        cmocka_unit_test(test_free_null_and_accessors_on_null),
        cmocka_unit_test(test_make_spells_the_bytes_lowercase),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests_name("ref", tests, NULL, NULL);
}
