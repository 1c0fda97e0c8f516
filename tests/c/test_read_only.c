/*
 * test_read_only.c - read-only means the files (issue 16, finding 5), the
 * read_only option of pathgate_resolver_options, and writes that never
 * carry setuid/setgid bits over.
 *
 * <tmp>/repo                 root "repo", writable
 * <tmp>/repo/notes.txt
 * <tmp>/repo/vendor/game     mod "Game", read-only (nested in root:repo)
 * <tmp>/repo/vendor/game/g.txt
 * <tmp>/repo/vendor/game/sub/s.txt
 * <tmp>/repo/vendor/game/mods/inner   mod "Inner", writable as configured
 * <tmp>/repo/to-game -> vendor/game   a symlink into the read-only base
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolver_internal.h"
#include "support.h"

typedef struct fixture {
    char *tmp;
    char repo[512], game[512], inner[512];
    pathgate_resolver *r;
} fixture;

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *slurp(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static pathgate_resolver *make(fixture *f, const char *const *read_only, size_t n, int *rc,
                               pathgate_error *err)
{
    pathgate_base_spec roots[] = {{PG_S("repo"), f->repo, strlen(f->repo), 0}};
    pathgate_base_spec mods[] = {{PG_S("Game"), f->game, strlen(f->game), 0},
                                 {PG_S("Inner"), f->inner, strlen(f->inner), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.mods = mods;
    o.nmods = 2;
    o.read_only = read_only;
    o.nread_only = n;
    o.allocator = pg_test_alloc();
    pathgate_resolver *r = NULL;
    *rc = pathgate_resolver_new(&r, &o, err);
    return r;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->tmp = pg_tmpdir_make();
    snprintf(f->repo, sizeof f->repo, "%s/repo", f->tmp);
    snprintf(f->game, sizeof f->game, "%s/repo/vendor/game", f->tmp);
    snprintf(f->inner, sizeof f->inner, "%s/repo/vendor/game/mods/inner", f->tmp);
    char p[600];
    mkdir(f->repo, 0755);
    snprintf(p, sizeof p, "%s/vendor", f->repo);
    mkdir(p, 0755);
    mkdir(f->game, 0755);
    snprintf(p, sizeof p, "%s/sub", f->game);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/mods", f->game);
    mkdir(p, 0755);
    mkdir(f->inner, 0755);
    snprintf(p, sizeof p, "%s/notes.txt", f->repo);
    put(p, "notes\n");
    snprintf(p, sizeof p, "%s/g.txt", f->game);
    put(p, "vanilla\n");
    snprintf(p, sizeof p, "%s/sub/s.txt", f->game);
    put(p, "deep\n");
    snprintf(p, sizeof p, "%s/to-game", f->repo);
    assert_int_equal(symlink("vendor/game", p), 0);
    const char *ro[] = {"Game"};
    int rc;
    pathgate_error err;
    f->r = make(f, ro, 1, &rc, &err);
    assert_int_equal(rc, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    pathgate_resolver_free(f->r);
    pg_tmpdir_remove(f->tmp);
    free(f);
    return 0;
}

static int write_(pathgate_resolver *r, const char *address, const char *text)
{
    pathgate_error err;
    return pathgate_fs_write(NULL, r, PG_S(address), PG_S(text), NULL, &err);
}

static int delete_(pathgate_resolver *r, const char *address)
{
    pathgate_error err;
    return pathgate_fs_delete(NULL, r, PG_S(address), NULL, &err);
}

static void test_nested_read_only_base_is_unwritable_by_every_address(void **state)
{
    fixture *f = *state;
    char p[600];
    const char *routes[] = {"mod:Game/g.txt", "root:repo/vendor/game/g.txt",
                            "root:repo/to-game/g.txt", "root:repo/vendor/game/sub/s.txt",
                            "root:repo/to-game/sub/s.txt"};
    for (size_t i = 0; i < sizeof routes / sizeof *routes; i++) {
        assert_int_equal(write_(f->r, routes[i], "pwned\n"), PATHGATE_EACCES);
        pathgate_error err;
        size_t n = 0;
        assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S(routes[i]),
                                          PG_EDIT(PG_S("e"), PG_S("E"), 1), NULL, &err),
                         PATHGATE_EACCES);
        assert_non_null(strstr(err.message, "Permission denied"));
        assert_null(strstr(err.message, f->tmp));
        assert_int_equal(delete_(f->r, routes[i]), PATHGATE_EACCES);
    }
    /* new files and directories, at any depth */
    assert_int_equal(write_(f->r, "root:repo/vendor/game/new.txt", "x"), PATHGATE_EACCES);
    assert_int_equal(write_(f->r, "root:repo/vendor/game/a/b/new.txt", "x"), PATHGATE_EACCES);
    assert_int_equal(write_(f->r, "root:repo/to-game/a/new.txt", "x"), PATHGATE_EACCES);
    snprintf(p, sizeof p, "%s/a", f->game);
    assert_int_equal(access(p, F_OK), -1);
    /* deleting a directory that is or holds the read-only base */
    assert_int_equal(delete_(f->r, "root:repo/vendor/game"), PATHGATE_EACCES);
    assert_int_equal(delete_(f->r, "root:repo/vendor"), PATHGATE_EACCES);
    assert_int_equal(delete_(f->r, "root:repo/vendor/game/sub"), PATHGATE_EACCES);
    /* upload goes the same way */
    pathgate_fs_item items[] = {{PG_S("root:repo/vendor/game/g.txt"), "x", 1},
                                {PG_S("root:repo/up.txt"), "up", 2}};
    int codes[2];
    pathgate_error err;
    assert_int_equal(pathgate_fs_upload(codes, f->r, items, 2, NULL, &err), 0);
    assert_int_equal(codes[0], PATHGATE_EACCES);
    assert_int_equal(codes[1], 0);

    snprintf(p, sizeof p, "%s/g.txt", f->game);
    assert_string_equal(slurp(p), "vanilla\n");
    snprintf(p, sizeof p, "%s/sub/s.txt", f->game);
    assert_string_equal(slurp(p), "deep\n");
    /* the rest of the root stays writable, the symlink itself deletable */
    assert_int_equal(write_(f->r, "root:repo/notes.txt", "changed\n"), 0);
    assert_int_equal(write_(f->r, "root:repo/vendor/other.txt", "ok\n"), 0);
    assert_int_equal(delete_(f->r, "root:repo/vendor/other.txt"), 0);
    assert_int_equal(delete_(f->r, "root:repo/to-game"), 0);
    snprintf(p, sizeof p, "%s/g.txt", f->game);
    assert_string_equal(slurp(p), "vanilla\n");
}

static void test_base_inside_a_read_only_base_is_read_only(void **state)
{
    fixture *f = *state;
    /* Inner was configured writable but lies inside Game */
    assert_int_equal(pathgate__resolver_base_flags(f->r, 2), PATHGATE_BASE_READ_ONLY);
    assert_int_equal(pathgate__resolver_base_flags(f->r, 0), 0);
    assert_int_equal(write_(f->r, "mod:Inner/x.txt", "x"), PATHGATE_EACCES);
    /* reading is untouched */
    pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
    pathgate_error err;
    assert_int_equal(
        pathgate_fs_read(&rr, f->r, PG_S("root:repo/vendor/game/g.txt"), 0, 10, NULL, &err), 0);
    pathgate_fs_read_result_dispose(&rr);
}

static void test_read_only_option_names(void **state)
{
    fixture *f = *state;
    pathgate_error err;
    int rc;
    /* by address, and a plain name marks every base of that name */
    const char *by_address[] = {"mod:Game"};
    pathgate_resolver *r = make(f, by_address, 1, &rc, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(write_(r, "root:repo/vendor/game/g.txt", "x"), PATHGATE_EACCES);
    pathgate_resolver_free(r);
    const char *root[] = {"root:repo"};
    r = make(f, root, 1, &rc, &err);
    assert_int_equal(rc, 0);
    for (size_t i = 0; i < 3; i++) /* everything lies inside the root */
        assert_int_equal(pathgate__resolver_base_flags(r, i), PATHGATE_BASE_READ_ONLY);
    pathgate_resolver_free(r);
    /* a name that is no base, or the wrong namespace, is refused */
    const char *bad[][1] = {{"gmae"}, {"root:Game"}, {"mod:repo"}, {"Game/"}};
    for (size_t i = 0; i < 4; i++) {
        r = make(f, bad[i], 1, &rc, &err);
        assert_int_equal(rc, PATHGATE_ECONFIG);
        assert_null(r);
        assert_non_null(strstr(err.message, "names no configured root or mod"));
        assert_null(strstr(err.message, f->tmp));
    }
    const char *null_entry[] = {NULL};
    assert_null(make(f, null_entry, 1, &rc, &err));
    assert_int_equal(rc, PATHGATE_EINVAL);
    assert_null(make(f, NULL, 1, &rc, &err));
    assert_int_equal(rc, PATHGATE_EINVAL);
    /* nothing read-only: nothing refused */
    r = make(f, NULL, 0, &rc, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(pathgate__resolver_has_read_only(r), 0);
    assert_int_equal(write_(r, "root:repo/vendor/game/g.txt", "x"), 0);
    pathgate_resolver_free(r);
}

static void test_version_1_options_are_accepted(void **state)
{
    fixture *f = *state;
    /* a version-1 caller's struct ends before read_only: never read */
    struct v1 {
        unsigned int version;
        const pathgate_base_spec *roots;
        size_t nroots;
        const pathgate_base_spec *mods;
        size_t nmods;
        size_t max_tokens;
        unsigned int flags;
        const pathgate_allocator *allocator;
    } *o = test_malloc(sizeof *o);
    pathgate_base_spec roots[] = {
        {PG_S("repo"), f->repo, strlen(f->repo), PATHGATE_BASE_READ_ONLY}};
    memset(o, 0, sizeof *o);
    o->version = 1;
    o->roots = roots;
    o->nroots = 1;
    o->allocator = pg_test_alloc();
    pathgate_resolver *r = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_new(&r, (const pathgate_resolver_options *)(void *)o, &err),
                     0);
    assert_int_equal(write_(r, "root:repo/notes.txt", "x"), PATHGATE_EACCES);
    pathgate_resolver_free(r);
    test_free(o);
}

static void test_write_never_carries_setuid_bits(void **state)
{
    fixture *f = *state;
    char p[600];
    snprintf(p, sizeof p, "%s/tool", f->repo);
    put(p, "#!/bin/sh\n");
    assert_int_equal(chmod(p, 06755), 0);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    if ((st.st_mode & 06000) != 06000)
        skip(); /* the filesystem would not even keep them */
    assert_int_equal(write_(f->r, "root:repo/tool", "#!/bin/sh\necho new\n"), 0);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
    assert_int_equal(chmod(p, 06755), 0);
    pathgate_error err;
    size_t n = 0;
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/tool"),
                                      PG_EDIT(PG_S("new"), PG_S("old"), 0), NULL, &err),
                     0);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nested_read_only_base_is_unwritable_by_every_address,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_base_inside_a_read_only_base_is_read_only, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_read_only_option_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version_1_options_are_accepted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_never_carries_setuid_bits, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
