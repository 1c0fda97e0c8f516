/* test_exec_resolver.c - pathgate_exec_run / pathgate_exec_run_session on
 * a real resolver: the working directory comes from a canonical address or
 * the session's cwd, every base is a grant (read-only ones without write),
 * and nothing outside the bases is reachable. */
#define _GNU_SOURCE
#include "support.h"

#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * <tmp>/repo            root "repo" (the first root)
 *        sub/deep/
 *        file.txt
 *        link_out -> ../outside   (escapes)
 * <tmp>/game            root "game"
 * <tmp>/mods/My Mod     mod "My Mod", read-only
 *        readme.txt
 * <tmp>/outside/secret.txt
 */
typedef struct fixture {
    char *tmp;
    char repo[512], game[512], mod[512], outside[512];
    char repo_real[PATH_MAX], game_real[PATH_MAX], mod_real[PATH_MAX];
} fixture;

static void mk(const char *dir, const char *rel)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void put(const char *dir, const char *rel, const char *text)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int exists_in(const char *dir, const char *rel)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    struct stat st;
    return lstat(p, &st) == 0;
}

/* 1 when some account's home (/etc/passwd) lies below dir: dir is then
 * an ancestor of a home, which a toolchain may not be. */
static int holds_a_home(const char *dir)
{
    size_t n = strlen(dir);
    int found = 0;
    struct passwd *pw;
    setpwent();
    while (!found && (pw = getpwent()) != NULL)
        found = pw->pw_dir && !strncmp(pw->pw_dir, dir, n) && pw->pw_dir[n] == '/';
    endpwent();
    return found;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->tmp = pg_tmpdir_make();
    assert_non_null(f->tmp);
    snprintf(f->repo, sizeof f->repo, "%s/repo", f->tmp);
    snprintf(f->game, sizeof f->game, "%s/game", f->tmp);
    snprintf(f->mod, sizeof f->mod, "%s/mods/My Mod", f->tmp);
    snprintf(f->outside, sizeof f->outside, "%s/outside", f->tmp);
    mk(f->tmp, "repo");
    mk(f->tmp, "repo/sub");
    mk(f->tmp, "repo/sub/deep");
    mk(f->tmp, "game");
    mk(f->tmp, "mods");
    mk(f->tmp, "mods/My Mod");
    mk(f->tmp, "outside");
    put(f->repo, "file.txt", "in repo\n");
    put(f->mod, "readme.txt", "mod text\n");
    put(f->outside, "secret.txt", "TOPSECRET-CONTENT\n");
    char p[1024];
    snprintf(p, sizeof p, "%s/link_out", f->repo);
    assert_int_equal(symlink("../outside", p), 0);
    assert_non_null(realpath(f->repo, f->repo_real));
    assert_non_null(realpath(f->game, f->game_real));
    assert_non_null(realpath(f->mod, f->mod_real));
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

static int make_resolver(pathgate_resolver **out, const fixture *f, const pathgate_allocator *a)
{
    pathgate_base_spec roots[2] = {
        {"repo", 4, f->repo, strlen(f->repo), 0},
        {"game", 4, f->game, strlen(f->game), 0},
    };
    pathgate_base_spec mods[1] = {{"My Mod", 6, f->mod, strlen(f->mod), PATHGATE_BASE_READ_ONLY}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 2;
    o.mods = mods;
    o.nmods = 1;
    o.allocator = a;
    return pathgate_resolver_new(out, &o, NULL);
}

static pathgate_resolver *resolver(const fixture *f)
{
    pathgate_resolver *r = NULL;
    assert_int_equal(make_resolver(&r, f, pg_test_alloc()), 0);
    return r;
}

static void skip_without_landlock(void)
{
    if (pathgate_exec_landlock_abi() < 1)
        skip();
}

static void assert_no_host_path(const fixture *f, const char *msg)
{
    assert_null(strstr(msg, f->tmp));
    assert_null(strstr(msg, "/tmp"));
}

static void test_default_cwd_is_the_first_root(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    pathgate_resolver *r = resolver(f);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    assert_int_equal(
        pathgate_exec_run(&res, r, PG_S("pwd -P; cat file.txt; echo made > made.txt"), NULL, &err),
        0);
    char expected[PATH_MAX + 64];
    snprintf(expected, sizeof expected, "%s\nin repo\n",
             "/pathgate/root/repo"); /* the view's path */
    assert_string_equal(res.output.ptr, expected);
    assert_int_equal(res.exit_code, 0);
    assert_int_equal(res.landlock_abi, pathgate_exec_landlock_abi());
    pathgate_exec_result_dispose(&res);
    assert_true(exists_in(f->repo, "made.txt"));
    pathgate_resolver_free(r);
}

static void test_session_cwd_and_every_base(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    pathgate_resolver *r = resolver(f);
    pathgate_session *s = NULL;
    assert_int_equal(pathgate_session_new(&s, r, NULL, 0, NULL), 0);
    pathgate_buf msg = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_session_push(&msg, s, PG_S("sub/deep"), NULL), 0);
    pathgate_buf_dispose(&msg);
    char cmd[4096];
    snprintf(
        cmd, sizeof cmd,
        "pwd -P; echo deep > here.txt; echo g > /root:game/g.txt; cat '/mod:My Mod/readme.txt'; "
        "echo nope > '/mod:My Mod/w.txt'; echo mod_rc=$?; cat '%s/secret.txt'; echo out_rc=$?",
        f->outside);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    assert_int_equal(pathgate_exec_run_session(&res, s, cmd, strlen(cmd), NULL, NULL), 0);
    char expected[PATH_MAX + 64];
    snprintf(expected, sizeof expected, "/pathgate/root/repo/sub/deep\n");
    assert_int_equal(strncmp(res.output.ptr, expected, strlen(expected)), 0);
    assert_non_null(strstr(res.output.ptr, "mod text\n"));
    assert_non_null(strstr(res.output.ptr, "mod_rc=2"));
    assert_non_null(strstr(res.output.ptr, "out_rc=1"));
    assert_null(strstr(res.output.ptr, "TOPSECRET"));
    pathgate_exec_result_dispose(&res);
    assert_true(exists_in(f->repo, "sub/deep/here.txt"));
    assert_true(exists_in(f->game, "g.txt"));
    assert_false(exists_in(f->mod, "w.txt"));

    /* An explicit cwd overrides the session's. */
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.cwd = "mod:My Mod";
    o.cwd_len = strlen(o.cwd);
    assert_int_equal(pathgate_exec_run_session(&res, s, PG_S("pwd -P"), &o, NULL), 0);
    assert_string_equal(res.output.ptr, "/pathgate/mod/My Mod\n");
    pathgate_exec_result_dispose(&res);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

static void test_outward_symlink_inside_a_root(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    pathgate_resolver *r = resolver(f);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    assert_int_equal(pathgate_exec_run(&res, r,
                                       PG_S("cat link_out/secret.txt; echo x > link_out/new.txt; "
                                            "cd link_out && ls; echo end"),
                                       NULL, NULL),
                     0);
    assert_null(strstr(res.output.ptr, "TOPSECRET"));
    assert_non_null(strstr(res.output.ptr, "end\n"));
    pathgate_exec_result_dispose(&res);
    assert_false(exists_in(f->outside, "new.txt"));
    pathgate_resolver_free(r);
}

static void test_bad_cwd_is_refused_before_anything_runs(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    static const struct {
        const char *cwd;
        int code;
    } cases[] = {
        {"root:nope", PATHGATE_EINVALIDPATH},
        {"root:repo/../outside", PATHGATE_EINVALIDPATH},
        {"root:repo/link_out", PATHGATE_EINVALIDPATH}, /* escapes through a symlink */
        {"root:repo/missing", PATHGATE_EINVALIDPATH},
        {"root:repo/file.txt", PATHGATE_ENOTDIR},
        {"/etc", PATHGATE_EINVALIDPATH},
        {"", PATHGATE_EINVALIDPATH},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
        o.cwd = cases[i].cwd;
        o.cwd_len = strlen(cases[i].cwd);
        o.allow_unconfined = 1;
        pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
        pathgate_error err = {0, ""};
        int rc = pathgate_exec_run(&res, r, PG_S("echo ran > ran.txt"), &o, &err);
        if (rc != cases[i].code)
            fail_msg("cwd %s: %d (%s), expected %d", cases[i].cwd, rc, err.message, cases[i].code);
        if (rc == PATHGATE_EINVALIDPATH)
            assert_string_equal(err.message, PATHGATE_MSG_INVALID);
        assert_no_host_path(f, err.message);
        assert_null(res.output.ptr);
        assert_false(exists_in(f->repo, "ran.txt"));
    }
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.cwd = "root:repo\0x";
    o.cwd_len = 11;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("true"), &o, NULL), PATHGATE_ENUL);
    assert_int_equal(pathgate_exec_run(&res, NULL, PG_S("true"), NULL, NULL), PATHGATE_EINVAL);
    assert_int_equal(pathgate_exec_run_session(&res, NULL, PG_S("true"), NULL, NULL),
                     PATHGATE_EINVAL);
    pathgate_resolver_free(r);
}

static void test_refuses_unconfined_through_the_resolver(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.flags = PATHGATE_EXEC_TEST_NO_LANDLOCK;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = {0, ""};
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("echo ran > ran2.txt"), &o, &err),
                     PATHGATE_EUNSUPPORTED);
    assert_no_host_path(f, err.message);
    assert_false(exists_in(f->repo, "ran2.txt"));
    o.allow_unconfined = 1;
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("echo ran > ran2.txt"), &o, &err), 0);
    assert_int_equal(res.landlock_abi, 0);
    pathgate_exec_result_dispose(&res);
    assert_true(exists_in(f->repo, "ran2.txt"));
    pathgate_resolver_free(r);
}

typedef struct alloc_ctx {
    fixture *f;
    int session;
} alloc_ctx;

static int run_with_alloc(const pathgate_allocator *alloc, void *p)
{
    alloc_ctx *c = p;
    pathgate_resolver *r = NULL;
    int rc = make_resolver(&r, c->f, alloc);
    if (rc)
        return rc;
    pathgate_session *s = NULL;
    if (c->session && (rc = pathgate_session_new(&s, r, NULL, 0, NULL)) != 0) {
        pathgate_resolver_free(r);
        return rc;
    }
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.allow_unconfined = 1;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    rc = c->session ? pathgate_exec_run_session(&res, s, PG_S("echo hi"), &o, NULL)
                    : pathgate_exec_run(&res, r, PG_S("echo hi"), &o, NULL);
    if (rc == 0)
        assert_string_equal(res.output.ptr, "hi\n");
    else
        assert_null(res.output.ptr);
    pathgate_exec_result_dispose(&res);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
    return rc;
}

static void test_every_allocation_failure_is_clean(void **state)
{
    alloc_ctx c = {*state, 0};
    assert_true(pg_for_each_failing_alloc(run_with_alloc, &c) > 0);
    c.session = 1;
    assert_true(pg_for_each_failing_alloc(run_with_alloc, &c) > 0);
}

/* The bases' directories in a command's view are read back as their
 * canonical addresses; an unknown key is invalid. */
static void test_view_paths_are_read_back(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = resolver(f);
    static const struct {
        const char *text, *address;
    } cases[] = {
        {"/pathgate/root/repo", "root:repo"},
        {"/pathgate/root/repo/sub/deep", "root:repo/sub/deep"},
        {"/pathgate/root/game/", "root:game"},
        {"/pathgate/mod/My Mod/readme.txt", "mod:My Mod/readme.txt"},
        {"/root:repo/file.txt", "root:repo/file.txt"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
        assert_int_equal(
            pathgate_resolver_resolve(&res, r, cases[i].text, strlen(cases[i].text), NULL, NULL),
            0);
        if (!res.ok)
            fail_msg("%s: %s", cases[i].text, res.error_message);
        size_t len;
        const char *a = pathgate_ref_address(res.ref, &len);
        assert_string_equal(a, cases[i].address);
        pathgate_resolver_release(r, res.ref);
        pathgate_resolution_dispose(&res);
    }
    const char *bad[] = {"/pathgate/root/nope/x", "/pathgate/mod/Other/x",
                         "/pathgate/root/repo/../../etc/passwd"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
        assert_int_equal(pathgate_resolver_resolve(&res, r, bad[i], strlen(bad[i]), NULL, NULL), 0);
        assert_false(res.ok);
        pathgate_resolution_dispose(&res);
    }
    pathgate_resolver_free(r);
}

/* A writable base's directory as the home: HOME is its view path, what a
 * command leaves there is there for the next; a read-only base's cannot
 * be the home. */
static void test_a_base_as_home(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    pathgate_resolver *r = resolver(f);
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.home = "root:game";
    o.home_len = strlen(o.home);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_exec_run(&res, r,
                                       PG_S("echo \"$HOME\"; mkdir -p ~/.cache && echo kept > "
                                            "~/.cache/x; getent passwd $(id -u) | cut -d: -f6"),
                                       &o, &err),
                     0);
    assert_string_equal(res.output.ptr, "/pathgate/root/game\n/pathgate/root/game\n");
    pathgate_exec_result_dispose(&res);
    assert_true(exists_in(f->game, ".cache/x"));
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("cat ~/.cache/x"), &o, NULL), 0);
    assert_string_equal(res.output.ptr, "kept\n");
    pathgate_exec_result_dispose(&res);
    o.home = "mod:My Mod";
    o.home_len = strlen(o.home);
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("true"), &o, &err), PATHGATE_EINVAL);
    assert_null(strchr(err.message, '/'));
    o.home = "root:nope";
    o.home_len = strlen(o.home);
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("true"), &o, NULL), PATHGATE_EINVALIDPATH);
    pathgate_resolver_free(r);
}

/* The view's /etc: what tools read (the command's own passwd entry, a
 * hosts file, certificates, the loader cache), readable; the secrets
 * absent; no other home, no /root. */
static void test_etc_shows_what_tools_read_and_no_secret(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    pathgate_resolver *r = resolver(f);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    assert_int_equal(
        pathgate_exec_run(
            &res, r,
            PG_S("id -un; whoami; getent hosts localhost >/dev/null && echo hosts; "
                 "test -r /etc/ld.so.cache && echo cache; ls /etc/ssl/certs | grep -c . >/dev/null "
                 "&& echo certs; cat /etc/hostname; "
                 "for f in shadow gshadow sudoers ssh ssl/private pip.conf npmrc environment; do "
                 "test -e /etc/$f && echo has-$f; done; ls /root 2>/dev/null && echo has-root; "
                 "ls -A /home; echo end"),
            NULL, NULL),
        0);
    struct passwd *pw = getpwuid(geteuid());
    char want[256];
    snprintf(want, sizeof want, "%s\n%s\nhosts\ncache\ncerts\npathgate\n%s\nend\n", pw->pw_name,
             pw->pw_name, pw->pw_name);
    assert_string_equal(res.output.ptr, want);
    pathgate_exec_result_dispose(&res);
    pathgate_resolver_free(r);
}

/* docs/exec.md "What a result says": a limit that killed the command, a
 * command not in the view, the network off are named by a last line of
 * the output (issue 34); a command that succeeded gets none. */
static void test_the_result_says_why_pathgate_made_it_fail(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    pathgate_resolver *r = resolver(f);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.max_file_size = 4096;
    assert_int_equal(
        pathgate_exec_run(&res, r, PG_S("head -c 10000 /dev/zero > /tmp/big"), &o, NULL), 0);
    assert_int_equal(res.exit_code, 153);
    assert_non_null(strstr(res.output.ptr, "\npathgate: killed by SIGXFSZ (exit 153): a file "
                                           "reached the file-size limit, max_file_size = 4096 "
                                           "bytes; raise it with the max_file_size option\n"));
    pathgate_exec_result_dispose(&res);
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("nosuchtool --version"), NULL, NULL), 0);
    assert_int_equal(res.exit_code, 127);
    assert_non_null(strstr(res.output.ptr, "pathgate: a command was not found."));
    pathgate_exec_result_dispose(&res);
    assert_int_equal(pathgate_exec_run(&res, r,
                                       PG_S("getent hosts example.com || echo "
                                            "'Could not resolve host: example.com'"),
                                       NULL, NULL),
                     0);
    assert_non_null(strstr(res.output.ptr, "pathgate: the network is off for commands"));
    pathgate_exec_result_dispose(&res);
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("ls / >/dev/null && echo listed"), NULL, NULL),
                     0);
    assert_string_equal(res.output.ptr, "listed\n");
    pathgate_exec_result_dispose(&res);
    pathgate_resolver_free(r);
}

/* One prepared view per resolver: later commands reuse it (a command's
 * private parts are still its own: /tmp and the home start empty). */
static void test_the_prepared_view_is_reused_and_private_parts_are_not(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    pathgate_resolver *r = resolver(f);
    for (int i = 0; i < 3; i++) {
        pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
        assert_int_equal(pathgate_exec_run(&res, r,
                                           PG_S("ls -A /tmp \"$HOME\" /dev/shm | grep -c . ; "
                                                "touch /tmp/a \"$HOME/b\" /dev/shm/c; "
                                                "stat -c %i /etc"),
                                           NULL, NULL),
                         0);
        /* the three directory headers only, then the view's own /etc */
        assert_int_equal(strncmp(res.output.ptr, "3\n", 2), 0);
        pathgate_exec_result_dispose(&res);
    }
    pathgate_resolver_free(r);
}

/* ------------------------------------------------------------ toolchains */

/* dir/name/bin/hello: a toolchain of the host (a shell script that says
 * which one it is). */
static void make_tool(const char *dir, const char *name)
{
    char p[PATH_MAX + 256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/%s/bin", dir, name);
    assert_int_equal(mkdir(p, 0755), 0);
    const char *last = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    snprintf(p, sizeof p, "%s/%s/bin/hello-%s", dir, name, last);
    FILE *fp = fopen(p, "w");
    assert_non_null(fp);
    fprintf(fp, "#!/bin/sh\necho hello from %s\n", last);
    fclose(fp);
    assert_int_equal(chmod(p, 0755), 0);
}

static int run_tools(pathgate_exec_result *res, pathgate_resolver *r, const char *cmd,
                     const char *const *tools, int at_host, pathgate_error *err)
{
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.timeout_ms = 20000;
    o.toolchains = tools;
    o.toolchains_at_host_path = at_host;
    return pathgate_exec_run(res, r, cmd, strlen(cmd), &o, err);
}

/* Shown read-only at /pathgate/tool/<name>, its bin first in PATH: a
 * command runs it, cannot write into it and cannot learn its host path. */
static void test_toolchain_at_its_default_place(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    make_tool(f->tmp, "venv");
    char tool[600];
    snprintf(tool, sizeof tool, "%s/venv", f->tmp);
    const char *tools[] = {tool, NULL};
    pathgate_resolver *r = resolver(f);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = {0, ""};
    int rc = run_tools(&res, r,
                       "hello-venv; command -v hello-venv; cd /pathgate/tool/venv && pwd -P; "
                       "readlink -f bin/hello-venv; echo x > new.txt; echo write=$?; "
                       "touch bin/hello-venv; echo touch=$?; echo \"$PATH\"",
                       tools, 0, &err);
    if (rc)
        fail_msg("exec failed: %d %s", rc, err.message);
    assert_non_null(strstr(res.output.ptr, "hello from venv\n/pathgate/tool/venv/bin/hello-venv\n"
                                           "/pathgate/tool/venv\n"
                                           "/pathgate/tool/venv/bin/hello-venv\n"));
    assert_null(strstr(res.output.ptr, "write=0"));
    assert_null(strstr(res.output.ptr, "touch=0"));
    assert_non_null(strstr(res.output.ptr, "/pathgate/tool/venv/bin:/usr/local/bin:/usr/bin:/bin"));
    assert_no_host_path(f, res.output.ptr);
    assert_false(exists_in(tool, "new.txt"));
    pathgate_exec_result_dispose(&res);
    /* an env PATH replaces it; the toolchain stays where it is */
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    const char *env[] = {"PATH=/usr/bin:/bin", NULL};
    o.toolchains = tools;
    o.env = env;
    assert_int_equal(pathgate_exec_run(
                         &res, r, PG_S("echo $PATH; /pathgate/tool/venv/bin/hello-venv"), &o, NULL),
                     0);
    assert_string_equal(res.output.ptr, "/usr/bin:/bin\nhello from venv\n");
    pathgate_exec_result_dispose(&res);
    /* a command not found: the result names the toolchain's view path */
    assert_int_equal(run_tools(&res, r, "nosuchtool", tools, 0, NULL), 0);
    assert_int_equal(res.exit_code, 127);
    assert_non_null(strstr(res.output.ptr, "the toolchain(s) /pathgate/tool/venv, a private"));
    assert_non_null(strstr(res.output.ptr, "with the toolchains option (CLI --toolchain DIR)"));
    assert_null(strstr(res.output.ptr, f->tmp)); /* (the note names the view's own /tmp) */
    pathgate_exec_result_dispose(&res);
    /* without the option, nothing of it is there */
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("ls /pathgate/tool; echo rc=$?"), NULL, NULL),
                     0);
    assert_non_null(strstr(res.output.ptr, "rc=2"));
    pathgate_exec_result_dispose(&res);
    pathgate_resolver_free(r);
}

/* Checked as a root is; a refusal names the entry's index, never a path,
 * and nothing runs. */
static void test_toolchain_refusals(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    make_tool(f->tmp, "a");
    mk(f->tmp, "other");
    make_tool(f->tmp, "other/a");
    char a[600], a2[600], dots[600], missing[600], file[600];
    snprintf(a, sizeof a, "%s/a", f->tmp);
    snprintf(a2, sizeof a2, "%s/other/a", f->tmp);
    snprintf(dots, sizeof dots, "%s/other/../a", f->tmp);
    snprintf(missing, sizeof missing, "%s/none", f->tmp);
    snprintf(file, sizeof file, "%s/a/bin/hello-a", f->tmp);
    const char *home = getenv("HOME");
    struct passwd *pw = getpwuid(geteuid());
    if (!home || home[0] != '/')
        home = pw ? pw->pw_dir : "/root";
    struct {
        const char *list[3];
        int at_host;
        const char *why;
    } cases[] = {
        {{"/", NULL}, 0, "filesystem root"},          {{"//", NULL}, 1, "filesystem root"},
        {{home, NULL}, 0, "home directory"},          {{"/home", NULL}, 0, "home directory"},
        {{"relative/dir", NULL}, 0, "absolute path"}, {{dots, NULL}, 0, "absolute path"},
        {{missing, NULL}, 0, "existing directory"},   {{file, NULL}, 0, "existing directory"},
        {{a, a2}, 0, "same last path component"},     {{"/usr/lib", NULL}, 1, "view's own entries"},
        {{"/etc", NULL}, 1, "view's own entries"},
    };
    pathgate_resolver *r = resolver(f);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* /home is refused as the ancestor of a home: only where it is one
         * (a machine with no account under /home has none) */
        if (!strcmp(cases[i].list[0], "/home") && !holds_a_home("/home"))
            continue;
        pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
        pathgate_error err = {0, ""};
        int rc = run_tools(&res, r, "echo ran > ran.txt", cases[i].list, cases[i].at_host, &err);
        if (rc != PATHGATE_EINVAL || !strstr(err.message, cases[i].why))
            fail_msg("case %zu: %d %s", i, rc, rc ? err.message : "(the command ran)");
        assert_non_null(strstr(err.message, "toolchains["));
        assert_no_host_path(f, err.message);
        assert_null(strstr(err.message, home));
        assert_null(res.output.ptr);
        assert_false(exists_in(f->repo, "ran.txt"));
    }
    /* at its host path, the host's /tmp is the view's own */
    const char *tmp_tool[] = {a, NULL};
    pathgate_error err = {0, ""};
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    if (!strncmp(a, "/tmp/", 5))
        assert_int_equal(run_tools(&res, r, "true", tmp_tool, 1, &err), PATHGATE_EINVAL);
    /* too many */
    const char *many[PATHGATE_EXEC_TOOLCHAINS_MAX + 2];
    for (size_t i = 0; i <= PATHGATE_EXEC_TOOLCHAINS_MAX; i++)
        many[i] = a;
    many[PATHGATE_EXEC_TOOLCHAINS_MAX + 1] = NULL;
    assert_int_equal(run_tools(&res, r, "true", many, 0, &err), PATHGATE_EINVAL);
    pathgate_resolver_free(r);
}

/* At its own host path (the operator's choice): a venv's absolute paths
 * work there, still read-only. Needs a directory outside the view's own
 * entries (/tmp is one): made in the working directory of the test. */
static void test_toolchain_at_its_host_path(void **state)
{
    fixture *f = *state;
    skip_without_landlock();
    char cwd[PATH_MAX], dir[PATH_MAX + 64];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(dir, sizeof dir, "%s/pathgate-tool-XXXXXX", cwd);
    if (!strncmp(cwd, "/tmp", 4) || !mkdtemp(dir)) {
        printf("SKIPPED: the working directory is not writable or lies in /tmp\n");
        skip();
    }
    make_tool(dir, "venv");
    char tool[PATH_MAX + 128], cmd[3 * PATH_MAX];
    snprintf(tool, sizeof tool, "%s/venv", dir);
    const char *tools[] = {tool, NULL};
    snprintf(cmd, sizeof cmd,
             "hello-venv; cd '%s' && pwd -P; echo x > new.txt; echo write=$?; ls /pathgate", tool);
    pathgate_resolver *r = resolver(f);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = {0, ""};
    int rc = run_tools(&res, r, cmd, tools, 1, &err);
    char expected[PATH_MAX + 256];
    snprintf(expected, sizeof expected, "hello from venv\n%s\n", tool);
    if (rc || strncmp(res.output.ptr, expected, strlen(expected)) != 0)
        fail_msg("%d %s / %s", rc, err.message, res.output.ptr ? res.output.ptr : "");
    assert_null(strstr(res.output.ptr, "write=0"));
    assert_null(strstr(res.output.ptr, "tool\n")); /* not at the default place too */
    assert_false(exists_in(tool, "new.txt"));
    pathgate_exec_result_dispose(&res);
    pathgate_resolver_free(r);
    pg_tmpdir_remove(strdup(dir));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_cwd_is_the_first_root),
        cmocka_unit_test(test_session_cwd_and_every_base),
        cmocka_unit_test(test_outward_symlink_inside_a_root),
        cmocka_unit_test(test_bad_cwd_is_refused_before_anything_runs),
        cmocka_unit_test(test_refuses_unconfined_through_the_resolver),
        cmocka_unit_test(test_every_allocation_failure_is_clean),
        cmocka_unit_test(test_view_paths_are_read_back),
        cmocka_unit_test(test_a_base_as_home),
        cmocka_unit_test(test_etc_shows_what_tools_read_and_no_secret),
        cmocka_unit_test(test_the_prepared_view_is_reused_and_private_parts_are_not),
        cmocka_unit_test(test_the_result_says_why_pathgate_made_it_fail),
        cmocka_unit_test(test_toolchain_at_its_default_place),
        cmocka_unit_test(test_toolchain_refusals),
        cmocka_unit_test(test_toolchain_at_its_host_path),
    };
    return cmocka_run_group_tests_name("exec_resolver", tests, setup, teardown);
}
