/* test_session.c - home root, cd, the working-directory stack and relative
 * resolution, on a real temporary tree with the real resolver. */
/* ctest-labels: threads */
#define _GNU_SOURCE
#include "support.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"

/*
 * <tmp>/repo            root "repo" (the first root: the default home)
 *        sub/deep/
 *        file.txt
 *        link_in -> sub           (stays inside)
 *        link_out -> ../outside   (escapes)
 * <tmp>/game            root "game"
 *        data/
 * <tmp>/mods/SomeMod    mod "SomeMod"
 *        common/
 * <tmp>/outside/
 */
typedef struct fixture {
    char *tmp;
    char repo[512], game[512], mod[512], outside[512];
} fixture;

static void mk(const char *dir, const char *rel)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    assert_int_equal(mkdir(p, 0755), 0);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->tmp = pg_tmpdir_make();
    assert_non_null(f->tmp);
    snprintf(f->repo, sizeof f->repo, "%s/repo", f->tmp);
    snprintf(f->game, sizeof f->game, "%s/game", f->tmp);
    snprintf(f->mod, sizeof f->mod, "%s/mods/SomeMod", f->tmp);
    snprintf(f->outside, sizeof f->outside, "%s/outside", f->tmp);
    mk(f->tmp, "repo");
    mk(f->tmp, "repo/sub");
    mk(f->tmp, "repo/sub/deep");
    mk(f->tmp, "game");
    mk(f->tmp, "game/data");
    mk(f->tmp, "mods");
    mk(f->tmp, "mods/SomeMod");
    mk(f->tmp, "mods/SomeMod/common");
    mk(f->tmp, "outside");
    char p[1024];
    snprintf(p, sizeof p, "%s/file.txt", f->repo);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    close(fd);
    snprintf(p, sizeof p, "%s/link_in", f->repo);
    assert_int_equal(symlink("sub", p), 0);
    snprintf(p, sizeof p, "%s/link_out", f->repo);
    assert_int_equal(symlink("../outside", p), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pg_tmpdir_remove(f->tmp);
    free(f);
    return 0;
}

static int make_resolver(pathgate_resolver **out, const fixture *f, const pathgate_allocator *a,
                         size_t max_tokens)
{
    pathgate_base_spec roots[2] = {
        {"repo", 4, f->repo, strlen(f->repo), 0},
        {"game", 4, f->game, strlen(f->game), 0},
    };
    pathgate_base_spec mods[1] = {{"SomeMod", 7, f->mod, strlen(f->mod), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 2;
    o.mods = mods;
    o.nmods = 1;
    o.max_tokens = max_tokens;
    o.allocator = a;
    return pathgate_resolver_new(out, &o, NULL);
}

static pathgate_resolver *resolver(const fixture *f)
{
    pathgate_resolver *r = NULL;
    assert_int_equal(make_resolver(&r, f, pg_test_alloc(), 0), 0);
    return r;
}

static pathgate_session *session(pathgate_resolver *r, const char *home)
{
    pathgate_session *s = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_session_new(&s, r, home, home ? strlen(home) : 0, &err), 0);
    return s;
}

/* No message may name a host path. */
static void assert_no_host_path(const fixture *f, const char *msg)
{
    assert_null(strstr(msg, f->tmp));
    assert_null(strstr(msg, "/tmp"));
}

/* home, cwd and depth, exactly. */
#define assert_state(s, home, cwd, depth) assert_state_((s), (home), (cwd), (depth), __LINE__)
static void assert_state_(pathgate_session *s, const char *home, const char *cwd, size_t depth,
                          int line)
{
    pathgate_buf h = PATHGATE_BUF_INIT, c = PATHGATE_BUF_INIT;
    size_t d = 999;
    assert_int_equal(pathgate_session_get(&h, &c, &d, s, NULL), 0);
    if (strcmp(h.ptr, home) || strcmp(c.ptr, cwd) || d != depth)
        fail_msg("line %d: state (%s, %s, %zu), expected (%s, %s, %zu)", line, h.ptr, c.ptr, d,
                 home, cwd, depth);
    pathgate_buf_dispose(&h);
    pathgate_buf_dispose(&c);
    pathgate_buf p = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_session_pwd(&p, s, NULL), 0);
    pg_assert_buf(&p, cwd);
}

#define push_ok(f, s, text, expected) op_ok((f), (s), 'u', (text), (expected), __LINE__)
#define pop_ok(f, s, expected) op_ok((f), (s), 'o', NULL, (expected), __LINE__)
#define cd_ok(f, s, text, expected) op_ok((f), (s), 'c', (text), (expected), __LINE__)
static void op_ok(const fixture *f, pathgate_session *s, char op, const char *text,
                  const char *expected, int line)
{
    pathgate_buf msg = PATHGATE_BUF_INIT;
    pathgate_error err = {0, ""};
    int rc = op == 'u'   ? pathgate_session_push(&msg, s, text, strlen(text), &err)
             : op == 'o' ? pathgate_session_pop(&msg, s, &err)
                         : pathgate_session_cd(&msg, s, text, strlen(text), &err);
    if (rc != 0)
        fail_msg("line %d: %s -> %s (%s)", line, text ? text : "pop", pathgate_errname(rc),
                 err.message);
    assert_no_host_path(f, msg.ptr);
    if (strcmp(msg.ptr, expected) != 0)
        fail_msg("line %d: message \"%s\", expected \"%s\"", line, msg.ptr, expected);
    pathgate_buf_dispose(&msg);
}

#define push_refused(f, s, text, code, message)                                                    \
    refused((f), (s), 'u', (text), (code), (message), __LINE__)
#define cd_refused(f, s, text, code, message)                                                      \
    refused((f), (s), 'c', (text), (code), (message), __LINE__)
static void refused(const fixture *f, pathgate_session *s, char op, const char *text, int code,
                    const char *message, int line)
{
    pathgate_buf before_home = PATHGATE_BUF_INIT, before_cwd = PATHGATE_BUF_INIT;
    size_t before_depth;
    assert_int_equal(pathgate_session_get(&before_home, &before_cwd, &before_depth, s, NULL), 0);
    pathgate_buf msg = PATHGATE_BUF_INIT;
    pathgate_allocator a;
    pathgate__alloc_init(&a, pg_test_alloc());
    assert_int_equal(pathgate__buf_set(&msg, &a, PG_S("untouched")), 0);
    pathgate_error err = {0, ""};
    int rc = op == 'u' ? pathgate_session_push(&msg, s, text, strlen(text), &err)
                       : pathgate_session_cd(&msg, s, text, strlen(text), &err);
    if (rc != code)
        fail_msg("line %d: %s -> %s, expected %s (%s)", line, text, pathgate_errname(rc),
                 pathgate_errname(code), err.message);
    assert_int_equal(err.code, code);
    assert_no_host_path(f, err.message);
    if (message && strcmp(err.message, message) != 0)
        fail_msg("line %d: message \"%s\", expected \"%s\"", line, err.message, message);
    /* the caller's buffer is untouched and the session unchanged */
    pg_assert_buf(&msg, "untouched");
    assert_state_(s, before_home.ptr, before_cwd.ptr, before_depth, line);
    pathgate_buf_dispose(&before_home);
    pathgate_buf_dispose(&before_cwd);
}

/* --------------------------------------------------------------- tests */

static void test_default_home_is_the_first_root(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    pathgate_session *s = session(r, NULL);
    assert_ptr_equal(pathgate_session_resolver(s), r);
    assert_state(s, "root:repo", "root:repo", 0);
    pathgate_session_free(s);

    s = session(r, "game");
    assert_state(s, "root:game", "root:game", 0);
    pathgate_session_free(s);
    s = session(r, "root:game");
    assert_state(s, "root:game", "root:game", 0);
    pathgate_session_free(s);
    s = session(r, "  root:repo\n");
    assert_state(s, "root:repo", "root:repo", 0);
    pathgate_session_free(s);
    s = session(r, "mod:SomeMod"); /* a mod can be the home */
    assert_state(s, "mod:SomeMod", "mod:SomeMod", 0);
    pathgate_session_free(s);

    pathgate_error err;
    s = (pathgate_session *)0x1;
    assert_int_equal(pathgate_session_new(&s, r, PG_S("nope"), &err), PATHGATE_EUNKNOWNROOT);
    assert_null(s);
    assert_int_equal(pathgate_session_new(&s, r, PG_S("root:repo/sub"), &err),
                     PATHGATE_ESUBDIRHOME);
    assert_string_equal(err.message, "Subdirectory homing not allowed");
    assert_int_equal(pathgate_session_new(&s, r, PG_S("mod:SomeMod/common"), &err),
                     PATHGATE_ESUBDIRHOME);
    assert_int_equal(pathgate_session_new(&s, r, PG_S("mod:Nope"), &err), PATHGATE_EUNKNOWNROOT);
    assert_int_equal(pathgate_session_new(&s, r, "re\0po", 5, &err), PATHGATE_ENUL);
    assert_int_equal(pathgate_session_new(&s, NULL, NULL, 0, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_session_new(NULL, r, NULL, 0, &err), PATHGATE_EINVAL);
    pathgate_session_free(NULL);
    pathgate_resolver_free(r);
}

static void test_push_and_pop_restore_exactly(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    pathgate_session *s = session(r, NULL);

    push_ok(f, s, "sub", "root:repo/sub"); /* relative to the cwd */
    assert_state(s, "root:repo", "root:repo/sub", 1);
    push_ok(f, s, "deep", "root:repo/sub/deep");
    assert_state(s, "root:repo", "root:repo/sub/deep", 2);
    push_ok(f, s, "../..", "root:repo");
    assert_state(s, "root:repo", "root:repo", 3);
    push_ok(f, s, "mod:SomeMod/common", "mod:SomeMod/common");
    push_ok(f, s, "root:game/data/", "root:game/data");
    /* a host path inside a root is accepted and named canonically */
    char host[1024];
    snprintf(host, sizeof host, "%s/sub", f->repo);
    push_ok(f, s, host, "root:repo/sub");
    assert_state(s, "root:repo", "root:repo/sub", 6);

    pop_ok(f, s, "root:game/data");
    pop_ok(f, s, "mod:SomeMod/common");
    pop_ok(f, s, "root:repo");
    pop_ok(f, s, "root:repo/sub/deep");
    pop_ok(f, s, "root:repo/sub");
    pop_ok(f, s, "root:repo");
    assert_state(s, "root:repo", "root:repo", 0);
    /* an empty pop is a success with its own message, and changes nothing */
    pop_ok(f, s, "Stack is empty, already at initial directory: root:repo");
    pop_ok(f, s, "Stack is empty, already at initial directory: root:repo");
    assert_state(s, "root:repo", "root:repo", 0);

    /* the message buffer is optional */
    assert_int_equal(pathgate_session_push(NULL, s, PG_S("sub"), NULL), 0);
    assert_int_equal(pathgate_session_pop(NULL, s, NULL), 0);
    assert_int_equal(pathgate_session_pop(NULL, s, NULL), 0);

    /* navigation keeps no token */
    assert_int_equal(pathgate_resolver_token_count(r), 0);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

static void test_push_of_the_current_directory(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    pathgate_session *s = session(r, NULL);
    push_ok(f, s, ".", "already in root:repo");
    push_ok(f, s, "root:repo", "already in root:repo");
    assert_state(s, "root:repo", "root:repo", 0);
    push_ok(f, s, "sub", "root:repo/sub");
    push_ok(f, s, ".", "already in root:repo/sub");
    push_ok(f, s, "root:repo/sub", "already in root:repo/sub");
    push_ok(f, s, "deep/..", "already in root:repo/sub");
    /* the same directory through a symlink that stays inside */
    push_ok(f, s, "root:repo/link_in", "already in root:repo/sub");
    assert_state(s, "root:repo", "root:repo/sub", 1);
    assert_int_equal(pathgate_resolver_token_count(r), 0);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

static void test_push_refusals_leave_the_stack_unchanged(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    pathgate_session *s = session(r, NULL);
    push_ok(f, s, "sub", "root:repo/sub");

    push_refused(f, s, "../file.txt", PATHGATE_ENOTDIR, "not a directory: root:repo/file.txt");
    push_refused(f, s, "root:repo/file.txt", PATHGATE_ENOTDIR,
                 "not a directory: root:repo/file.txt");
    push_refused(f, s, "missing", PATHGATE_EINVALIDPATH, "Invalid path / not found");
    push_refused(f, s, "../../..", PATHGATE_EINVALIDPATH, "Invalid path / not found");
    push_refused(f, s, "root:repo/link_out", PATHGATE_EINVALIDPATH, "Invalid path / not found");
    push_refused(f, s, f->outside, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    push_refused(f, s, "/etc", PATHGATE_EINVALIDPATH, "Invalid path / not found");
    push_refused(f, s, "root:nope/x", PATHGATE_EINVALIDPATH, "Invalid path / not found");
    push_refused(f, s, "../file.txt/x", PATHGATE_EINVALIDPATH, "Invalid path / not found");
    push_refused(f, s, "", PATHGATE_EINVALIDPATH, "Invalid path / not found");
    /* a NUL byte is refused, never truncated to an existing directory */
    pathgate_error err;
    assert_int_equal(pathgate_session_push(NULL, s, "deep\0/x", 7, &err), PATHGATE_EINVALIDPATH);
    assert_state(s, "root:repo", "root:repo/sub", 1);
    assert_int_equal(pathgate_resolver_token_count(r), 0);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

static void test_depth_100_then_overflow(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    pathgate_session *s = session(r, NULL);
    for (int i = 0; i < 100; i++) {
        if (i % 2 == 0)
            push_ok(f, s, "sub", "root:repo/sub");
        else
            push_ok(f, s, "..", "root:repo");
    }
    assert_state(s, "root:repo", "root:repo", 100);
    push_refused(f, s, "sub", PATHGATE_EOVERFLOW, "directory stack overflow (max 100)");
    push_refused(f, s, "root:game", PATHGATE_EOVERFLOW, "directory stack overflow (max 100)");
    /* a full stack still answers "already in" for the current directory */
    push_ok(f, s, ".", "already in root:repo");
    /* and still refuses what is invalid as invalid */
    push_refused(f, s, "missing", PATHGATE_EINVALIDPATH, "Invalid path / not found");
    assert_state(s, "root:repo", "root:repo", 100);
    pop_ok(f, s, "root:repo/sub");
    push_ok(f, s, "deep", "root:repo/sub/deep"); /* room again */
    assert_state(s, "root:repo", "root:repo/sub/deep", 100);
    for (int i = 0; i < 100; i++)
        assert_int_equal(pathgate_session_pop(NULL, s, NULL), 0);
    assert_state(s, "root:repo", "root:repo", 0);
    assert_int_equal(pathgate_resolver_token_count(r), 0);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

static void test_cd_sets_home_and_clears_the_stack(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    pathgate_session *s = session(r, NULL);
    push_ok(f, s, "sub", "root:repo/sub");
    push_ok(f, s, "deep", "root:repo/sub/deep");

    cd_ok(f, s, "game", "root:game"); /* bare key */
    assert_state(s, "root:game", "root:game", 0);
    pop_ok(f, s, "Stack is empty, already at initial directory: root:game");
    push_ok(f, s, "data", "root:game/data"); /* relative to the new home */
    pop_ok(f, s, "root:game");

    cd_ok(f, s, "root:repo", "root:repo");
    assert_state(s, "root:repo", "root:repo", 0);
    cd_ok(f, s, " root:game/ ", "root:game");
    cd_ok(f, s, "ROOT_REPO:/", "root:repo"); /* the legacy alias of a root */
    char host[1024];
    snprintf(host, sizeof host, "%s", f->game); /* a root directory by host path */
    cd_ok(f, s, host, "root:game");
    cd_ok(f, s, "repo", "root:repo");

    push_ok(f, s, "sub", "root:repo/sub");
    cd_refused(f, s, "root:repo/sub", PATHGATE_ESUBDIRHOME, "Subdirectory homing not allowed");
    cd_refused(f, s, "repo/sub", PATHGATE_ESUBDIRHOME, "Subdirectory homing not allowed");
    cd_refused(f, s, "root:game/data", PATHGATE_ESUBDIRHOME, "Subdirectory homing not allowed");
    cd_refused(f, s, "root:game/missing", PATHGATE_ESUBDIRHOME, "Subdirectory homing not allowed");
    cd_refused(f, s, "ROOT_GAME:/data", PATHGATE_ESUBDIRHOME, "Subdirectory homing not allowed");
    snprintf(host, sizeof host, "%s/data", f->game);
    cd_refused(f, s, host, PATHGATE_ESUBDIRHOME, "Subdirectory homing not allowed");
    cd_refused(f, s, "nope", PATHGATE_EUNKNOWNROOT, "unknown root: nope");
    cd_refused(f, s, "root:nope", PATHGATE_EUNKNOWNROOT, "unknown root: nope");
    cd_refused(f, s, "root:Repo", PATHGATE_EUNKNOWNROOT, "unknown root: Repo");
    cd_refused(f, s, "mod:SomeMod/common", PATHGATE_ESUBDIRHOME, "Subdirectory homing not allowed");
    cd_refused(f, s, "mod:Nope", PATHGATE_EUNKNOWNROOT, "unknown root");
    cd_refused(f, s, "", PATHGATE_EUNKNOWNROOT, "unknown root");
    cd_refused(f, s, f->outside, PATHGATE_EUNKNOWNROOT, "unknown root");
    assert_state(s, "root:repo", "root:repo/sub", 1);
    cd_ok(f, s, "mod:SomeMod", "mod:SomeMod"); /* a mod as home */
    assert_state(s, "mod:SomeMod", "mod:SomeMod", 0);
    push_ok(f, s, "common", "mod:SomeMod/common");
    cd_ok(f, s, "/mod:SomeMod", "mod:SomeMod"); /* the view spelling */
    assert_state(s, "mod:SomeMod", "mod:SomeMod", 0);
    assert_int_equal(pathgate_resolver_token_count(r), 0);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

/* A configuration of mods only: the first mod is the default home. */
static void test_mods_only_home_is_the_first_mod(void **state)
{
    fixture *f = *state;
    pathgate_base_spec mods[] = {{PG_S("SomeMod"), f->mod, strlen(f->mod), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.mods = mods;
    o.nmods = 1;
    pathgate_resolver *r = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), 0);
    pathgate_session *s = session(r, NULL);
    assert_state(s, "mod:SomeMod", "mod:SomeMod", 0);
    push_ok(f, s, "common", "mod:SomeMod/common");
    cd_refused(f, s, "repo", PATHGATE_EUNKNOWNROOT, "unknown root: repo");
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

static void test_resolve_is_relative_to_the_cwd(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    pathgate_session *s = session(r, NULL);
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;

    assert_int_equal(pathgate_session_resolve(&res, s, PG_S("file.txt"), 1, NULL), 0);
    assert_true(res.ok);
    assert_string_equal(pathgate_ref_address(res.ref, NULL), "root:repo/file.txt");
    pathgate_resolution_dispose(&res);

    push_ok(f, s, "sub", "root:repo/sub");
    assert_int_equal(pathgate_session_resolve(&res, s, PG_S("deep/new.txt"), 0, NULL), 0);
    assert_true(res.ok);
    assert_false(res.exists);
    assert_string_equal(pathgate_ref_address(res.ref, NULL), "root:repo/sub/deep/new.txt");
    assert_string_equal(res.relative_path, "sub/deep/new.txt");
    assert_string_equal(res.root_category, "repo");
    pathgate_resolution_dispose(&res);

    assert_int_equal(pathgate_session_resolve(&res, s, PG_S("../file.txt"), 1, NULL), 0);
    assert_true(res.ok);
    assert_true(res.exists);
    assert_string_equal(pathgate_ref_address(res.ref, NULL), "root:repo/file.txt");
    pathgate_resolution_dispose(&res);

    /* missing with require_exists, escaping whatever require_exists says */
    assert_int_equal(pathgate_session_resolve(&res, s, PG_S("nothing"), 1, NULL), 0);
    assert_false(res.ok);
    assert_string_equal(res.error_message, "Invalid path / not found");
    pathgate_resolution_dispose(&res);
    assert_int_equal(pathgate_session_resolve(&res, s, PG_S("../../x"), 0, NULL), 0);
    assert_false(res.ok);
    pathgate_resolution_dispose(&res);

    /* canonical input ignores the cwd */
    assert_int_equal(pathgate_session_resolve(&res, s, PG_S("root:game/data"), 1, NULL), 0);
    assert_true(res.ok);
    assert_string_equal(pathgate_ref_address(res.ref, NULL), "root:game/data");
    pathgate_resolution_dispose(&res);

    /* after cd the home is the base */
    cd_ok(f, s, "game", "root:game");
    assert_int_equal(pathgate_session_resolve(&res, s, PG_S("file.txt"), 1, NULL), 0);
    assert_false(res.ok);
    pathgate_resolution_dispose(&res);
    assert_int_equal(pathgate_session_resolve(&res, s, PG_S("data"), 1, NULL), 0);
    assert_true(res.ok);
    assert_string_equal(pathgate_ref_address(res.ref, NULL), "root:game/data");
    pathgate_resolution_dispose(&res);

    assert_int_equal(pathgate_session_resolve(NULL, s, PG_S("x"), 1, NULL), PATHGATE_EINVAL);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

static void test_full_registry_refuses_push_and_keeps_cd(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = NULL;
    assert_int_equal(make_resolver(&r, f, pg_test_alloc(), 1), 0);
    pathgate_session *s = session(r, NULL);
    push_ok(f, s, "sub", "root:repo/sub"); /* its token is released at once */
    pathgate_resolution held = PATHGATE_RESOLUTION_INIT;
    assert_int_equal(pathgate_session_resolve(&held, s, PG_S("deep"), 1, NULL), 0);
    assert_true(held.ok);
    push_refused(f, s, "deep", PATHGATE_ECAPACITY,
                 "Visibility registry capacity exceeded \xE2\x80\x94 restart server");
    cd_ok(f, s, "game", "root:game"); /* cd of a key needs no token */
    pop_ok(f, s, "Stack is empty, already at initial directory: root:game");
    pathgate_resolution_dispose(&held);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

/* ------------------------------------------------------ allocation chaos */

static int session_body(const pathgate_allocator *alloc, void *ctx)
{
    const fixture *f = ctx;
    pathgate_resolver *r = NULL;
    int rc = make_resolver(&r, f, alloc, 0);
    if (rc)
        return rc;
    pathgate_session *s = NULL;
    pathgate_buf msg = PATHGATE_BUF_INIT;
    size_t depth = 0;
    rc = pathgate_session_new(&s, r, PG_S("root:repo"), NULL);
    const char *pushes[] = {"sub", "deep", "deep/..", "root:game/data"};
    for (size_t i = 0; rc == 0 && i < 4; i++) {
        size_t before = 0, after = 0;
        assert_int_equal(pathgate_session_get(NULL, NULL, &before, s, NULL), 0);
        rc = pathgate_session_push(&msg, s, PG_S(pushes[i]), NULL);
        assert_int_equal(pathgate_session_get(NULL, NULL, &after, s, NULL), 0);
        if (rc)
            assert_int_equal(after, before); /* a failed push changes nothing */
    }
    if (rc == 0)
        rc = pathgate_session_pop(&msg, s, NULL);
    if (rc == 0) {
        pathgate_buf h = PATHGATE_BUF_INIT, c = PATHGATE_BUF_INIT;
        rc = pathgate_session_get(&h, &c, &depth, s, NULL);
        if (rc == 0) {
            assert_string_equal(c.ptr, "root:repo/sub/deep");
            assert_int_equal(depth, 2);
        }
        pathgate_buf_dispose(&h);
        pathgate_buf_dispose(&c);
    }
    if (rc == 0) {
        rc = pathgate_session_cd(&msg, s, PG_S("game"), NULL);
        size_t d = 99;
        assert_int_equal(pathgate_session_get(NULL, NULL, &d, s, NULL), 0);
        assert_int_equal(d, rc == 0 ? 0 : 2);
    }
    if (rc == 0) {
        pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
        rc = pathgate_session_resolve(&res, s, PG_S("data"), 1, NULL);
        if (rc == 0 && !res.ok)
            fail_msg("resolve of data failed: %s", pathgate_reason_name(res.reason));
        if (rc == 0)
            assert_int_equal(pathgate_resolver_release(r, res.ref), 1); /* its own token */
        pathgate_resolution_dispose(&res);
    }
    if (rc == 0)
        rc = pathgate_session_pop(&msg, s, NULL); /* empty */
    if (s)
        assert_int_equal(pathgate_resolver_token_count(r), 0);
    pathgate_buf_dispose(&msg);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
    return rc;
}

static void test_allocation_failures(void **state)
{
    pg_for_each_failing_alloc(session_body, *state);
}

/* ---------------------------------------------------- one session, threads */

enum { SESSION_THREADS = 4, SESSION_ROUNDS = 300 };

typedef struct shared {
    pathgate_session *s;
    atomic_long pushed, popped;
    atomic_int failures;
} shared;

static void *session_worker(void *p)
{
    shared *sh = p;
    const char *targets[] = {"root:repo/sub", "root:repo", "root:game/data", "mod:SomeMod"};
    for (int i = 0; i < SESSION_ROUNDS; i++) {
        pathgate_buf msg = PATHGATE_BUF_INIT;
        const char *t = targets[i % 4];
        int rc = pathgate_session_push(&msg, sh->s, t, strlen(t), NULL);
        if (rc == 0 && strncmp(msg.ptr, "already in ", 11) != 0)
            atomic_fetch_add(&sh->pushed, 1);
        else if (rc != 0 && rc != PATHGATE_EOVERFLOW)
            atomic_fetch_add(&sh->failures, 1);
        pathgate_buf_dispose(&msg);
        if (i % 3 == 0) {
            rc = pathgate_session_pop(&msg, sh->s, NULL);
            if (rc != 0)
                atomic_fetch_add(&sh->failures, 1);
            else if (strncmp(msg.ptr, "Stack is empty", 14) != 0)
                atomic_fetch_add(&sh->popped, 1);
            pathgate_buf_dispose(&msg);
        }
        size_t depth;
        if (pathgate_session_get(NULL, NULL, &depth, sh->s, NULL) != 0 || depth > 100)
            atomic_fetch_add(&sh->failures, 1);
    }
    return NULL;
}

static void test_one_session_many_threads(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = NULL;
    assert_int_equal(make_resolver(&r, f, NULL, 0), 0); /* libc: thread-safe */
    pathgate_session *s = NULL;
    assert_int_equal(pathgate_session_new(&s, r, NULL, 0, NULL), 0);
    shared sh;
    sh.s = s;
    atomic_init(&sh.pushed, 0);
    atomic_init(&sh.popped, 0);
    atomic_init(&sh.failures, 0);
    pthread_t t[SESSION_THREADS];
    for (int i = 0; i < SESSION_THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, session_worker, &sh), 0);
    for (int i = 0; i < SESSION_THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&sh.failures), 0);
    size_t depth = 0;
    assert_int_equal(pathgate_session_get(NULL, NULL, &depth, s, NULL), 0);
    /* every push is accounted for: popped or still on the stack */
    assert_int_equal((long)depth, atomic_load(&sh.pushed) - atomic_load(&sh.popped));
    assert_int_equal(pathgate_resolver_token_count(r), 0);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_home_is_the_first_root),
        cmocka_unit_test(test_push_and_pop_restore_exactly),
        cmocka_unit_test(test_push_of_the_current_directory),
        cmocka_unit_test(test_push_refusals_leave_the_stack_unchanged),
        cmocka_unit_test(test_depth_100_then_overflow),
        cmocka_unit_test(test_cd_sets_home_and_clears_the_stack),
        cmocka_unit_test(test_mods_only_home_is_the_first_mod),
        cmocka_unit_test(test_resolve_is_relative_to_the_cwd),
        cmocka_unit_test(test_full_registry_refuses_push_and_keeps_cd),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_one_session_many_threads),
    };
    return cmocka_run_group_tests_name("session", tests, setup, teardown);
}
