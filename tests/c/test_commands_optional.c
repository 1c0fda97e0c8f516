/*
 * test_commands_optional.c - commands are optional: a build without a
 * contained sandbox (-DPATHGATE_OS=posix) answers every command call with
 * PATHGATE_EUNSUPPORTED and one message, and runs nothing even with
 * allow_unconfined; pathgate_exec_capabilities() says what a build's
 * commands get. Runs in every build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

typedef struct fixture {
    char *tmp;
    char *repo;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->tmp = pg_tmpdir_make();
    size_t n = strlen(f->tmp) + 8;
    f->repo = malloc(n);
    snprintf(f->repo, n, "%s/repo", f->tmp);
    assert_int_equal(mkdir(f->repo, 0755), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pg_tmpdir_remove(f->tmp);
    free(f->repo);
    free(f);
    return 0;
}

static pathgate_resolver *make(fixture *f)
{
    pathgate_base_spec roots[] = {{PG_S("repo"), f->repo, strlen(f->repo), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.allocator = pg_test_alloc();
    pathgate_resolver *r = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), 0);
    return r;
}

static void test_capabilities_match_the_build(void **state)
{
    (void)state;
    unsigned int caps = pathgate_exec_capabilities();
    int abi = pathgate_exec_landlock_abi();
    if (pg_backend_is("linux")) {
        assert_true(caps & PATHGATE_EXEC_PROT_SECCOMP);
        assert_true(caps & PATHGATE_EXEC_PROT_NAMESPACES);
        assert_int_equal((caps & PATHGATE_EXEC_PROT_LANDLOCK) != 0, abi >= 1);
        assert_int_equal((caps & PATHGATE_EXEC_PROT_LANDLOCK_TRUNCATE) != 0, abi >= 3);
        assert_int_equal((caps & PATHGATE_EXEC_PROT_LANDLOCK_SCOPE) != 0, abi >= 6);
    } else {
        assert_int_equal(caps, 0);
        assert_int_equal(abi, 0);
    }
}

/* Without commands: refused with the one message, nothing runs, even
 * with allow_unconfined, through a resolver and through a session. */
static void test_no_commands_runs_nothing(void **state)
{
    if (pathgate_exec_capabilities() != 0) {
        print_message("SKIPPED: this build has commands (test_exec*.c cover them)\n");
        skip();
    }
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.allow_unconfined = 1;
    pathgate_exec_result out = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_exec_run(&out, r, PG_S("touch marker"), &o, &err),
                     PATHGATE_EUNSUPPORTED);
    assert_string_equal(err.message, PATHGATE_EXEC_UNSUPPORTED_MESSAGE);
    assert_int_equal(out.output.len, 0);
    pathgate_session *s = NULL;
    assert_int_equal(pathgate_session_new(&s, r, NULL, 0, &err), 0);
    assert_int_equal(pathgate_exec_run_session(&out, s, PG_S("touch marker"), NULL, &err),
                     PATHGATE_EUNSUPPORTED);
    assert_string_equal(err.message, PATHGATE_EXEC_UNSUPPORTED_MESSAGE);
    pathgate_exec_result_dispose(&out);
    size_t n = strlen(f->repo) + 16;
    char *marker = malloc(n);
    snprintf(marker, n, "%s/marker", f->repo);
    assert_int_equal(access(marker, F_OK), -1); /* nothing ran */
    free(marker);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capabilities_match_the_build),
        cmocka_unit_test(test_no_commands_runs_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
