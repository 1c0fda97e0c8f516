/* test_fs_mcp.c - the operations of the MCP server: mkdir, move, stat,
 * multi-edit with its diff, head/tail and tree, through openat2 and the
 * fallback walk: results, messages, containment (outward symlinks, the
 * read-only base), nothing changed on failure, and a failing allocation at
 * every point. */
#include "fs_fixture.h"

#include <sys/statvfs.h>

#include "alloc.h"
#include "fs_text.h"

static void expect_err(int rc, const pathgate_error *err, int code, const char *msg)
{
    if (rc != code)
        fail_msg("rc %d (%s), expected %d", rc, err->message, code);
    if (msg)
        assert_string_equal(err->message, msg);
}

/* --------------------------------------------------------------- mkdir */

static void test_mkdir(void **state)
{
    fx *f = *state;
    pathgate_buf path = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_mkdir(&path, f->r, PG_S("root:repo/newdir"), 0, NULL, &err), 0);
    assert_string_equal(path.ptr, "root:repo/newdir");
    assert_true(fx_exists(f->repo, "newdir"));
    int rc = pathgate_fs_mkdir(&path, f->r, PG_S("root:repo/newdir"), 0, NULL, &err);
    expect_err(rc, &err, PATHGATE_EEXIST, "'root:repo/newdir' already exists");
    assert_null(path.ptr);
    /* parents: every missing level, and an existing directory is fine */
    assert_int_equal(pathgate_fs_mkdir(&path, f->r, PG_S("root:repo/p/q/r"), 1, NULL, &err), 0);
    assert_true(fx_exists(f->repo, "p/q/r"));
    assert_int_equal(pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo/p/q/r"), 1, NULL, &err), 0);
    assert_int_equal(pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo"), 1, NULL, &err), 0);
    rc = pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo"), 0, NULL, &err);
    expect_err(rc, &err, PATHGATE_EEXIST, "'root:repo' already exists");
    rc = pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo/a.txt"), 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_EEXIST, "'root:repo/a.txt' already exists");
    rc = pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo/a.txt/x"), 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_ENOTDIR,
               "Cannot create 'root:repo/a.txt/x': a parent is not a directory");
    rc = pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo/missing/x"), 0, NULL, &err);
    expect_err(rc, &err, PATHGATE_ENOTFOUND, "Parent directory of 'root:repo/missing/x' not found");
    assert_false(fx_exists(f->repo, "missing"));
    /* containment: nothing is created outside through an outward link */
    rc = pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo/link_out_dir/evil"), 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    rc = pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo/link_out_dir/evil"), 0, NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    rc = pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo/../outside/evil"), 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    assert_false(fx_exists(f->outside, "evil"));
    /* an inside link to a directory is followed */
    assert_int_equal(
        pathgate_fs_mkdir(NULL, f->r, PG_S("root:repo/link_dir/viaLink"), 0, NULL, &err), 0);
    assert_true(fx_exists(f->repo, "dir/viaLink"));
    /* read-only */
    rc = pathgate_fs_mkdir(NULL, f->r, PG_S("root:ro/x"), 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_EACCES, "Permission denied: 'root:ro/x'");
    assert_false(fx_exists(f->ro, "x"));
    pathgate_buf_dispose(&path);
}

/* ---------------------------------------------------------------- move */

static void test_move(void **state)
{
    fx *f = *state;
    pathgate_buf path = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_move(&path, f->r, PG_S("root:repo/a.txt"),
                                      PG_S("root:repo/dir/b.txt"), NULL, &err),
                     0);
    assert_string_equal(path.ptr, "root:repo/dir/b.txt");
    assert_false(fx_exists(f->repo, "a.txt"));
    char *s = fx_get(f->repo, "dir/b.txt", NULL);
    assert_string_equal(s, "alpha\nbeta\ngamma\n");
    free(s);
    /* never overwrites: both stay as they were */
    int rc = pathgate_fs_move(&path, f->r, PG_S("root:repo/nofinal.txt"),
                              PG_S("root:repo/dir/b.txt"), NULL, &err);
    expect_err(rc, &err, PATHGATE_EEXIST, "'root:repo/dir/b.txt' already exists");
    assert_null(path.ptr);
    s = fx_get(f->repo, "dir/b.txt", NULL);
    assert_string_equal(s, "alpha\nbeta\ngamma\n");
    free(s);
    assert_true(fx_exists(f->repo, "nofinal.txt"));
    /* a directory, to another base (the mod) */
    assert_int_equal(
        pathgate_fs_move(&path, f->r, PG_S("root:repo/dir"), PG_S("mod:My Mod/moved"), NULL, &err),
        0);
    assert_string_equal(path.ptr, "mod:My Mod/moved");
    assert_true(fx_exists(f->mod, "moved/sub/deep.txt"));
    assert_false(fx_exists(f->repo, "dir"));
    /* into itself */
    rc = pathgate_fs_move(NULL, f->r, PG_S("mod:My Mod/moved"), PG_S("mod:My Mod/moved/sub/x"),
                          NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVAL, "Cannot move 'mod:My Mod/moved' into itself");
    rc = pathgate_fs_move(NULL, f->r, PG_S("root:repo/nofinal.txt"), PG_S("root:repo/nope/x"), NULL,
                          &err);
    expect_err(rc, &err, PATHGATE_ENOTFOUND, "Parent directory of 'root:repo/nope/x' not found");
    rc = pathgate_fs_move(NULL, f->r, PG_S("root:repo/missing"), PG_S("root:repo/x"), NULL, &err);
    expect_err(rc, &err, PATHGATE_ENOTFOUND, "File 'root:repo/missing' not found");
    /* containment: out through links, out with .., the base itself, read-only */
    rc = pathgate_fs_move(NULL, f->r, PG_S("root:repo/nofinal.txt"),
                          PG_S("root:repo/link_out_dir/stolen"), NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    rc = pathgate_fs_move(NULL, f->r, PG_S("root:repo/link_out_dir/secret.txt"),
                          PG_S("root:repo/got"), NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    rc =
        pathgate_fs_move(NULL, f->r, PG_S("root:repo/link_out"), PG_S("root:repo/got"), NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    rc = pathgate_fs_move(NULL, f->r, PG_S("root:repo/nofinal.txt"), PG_S("root:repo/../outside/x"),
                          NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    assert_false(fx_exists(f->outside, "stolen"));
    assert_false(fx_exists(f->outside, "x"));
    assert_false(fx_exists(f->repo, "got"));
    assert_true(fx_exists(f->outside, "secret.txt"));
    rc = pathgate_fs_move(NULL, f->r, PG_S("root:repo"), PG_S("mod:My Mod/repo"), NULL, &err);
    expect_err(rc, &err, PATHGATE_EACCES, "Permission denied: 'root:repo'");
    rc = pathgate_fs_move(NULL, f->r, PG_S("root:ro/f.txt"), PG_S("root:repo/f.txt"), NULL, &err);
    expect_err(rc, &err, PATHGATE_EACCES, "Permission denied: 'root:ro/f.txt'");
    rc = pathgate_fs_move(NULL, f->r, PG_S("root:repo/nofinal.txt"), PG_S("root:ro/n.txt"), NULL,
                          &err);
    expect_err(rc, &err, PATHGATE_EACCES, "Permission denied: 'root:ro/n.txt'");
    /* an inside symlink moves as a link */
    assert_int_equal(pathgate_fs_move(NULL, f->r, PG_S("root:repo/link_in"),
                                      PG_S("root:repo/link_in2"), NULL, &err),
                     0);
    char t[64];
    char p[1024];
    fx_path(p, sizeof p, f->repo, "link_in2");
    ssize_t n = readlink(p, t, sizeof t - 1);
    assert_int_equal(n, 5);
    pathgate_buf_dispose(&path);
}

/* Across filesystems (the tree in /tmp, a root in /dev/shm when that is
 * another filesystem): the contained copy, then delete. */
static void test_move_across_filesystems(void **state)
{
    fx *f = *state;
    struct stat a, b;
    if (stat("/dev/shm", &b) != 0 || stat(f->tmp, &a) != 0 || a.st_dev == b.st_dev ||
        access("/dev/shm", W_OK) != 0)
        skip();
    char shm[] = "/dev/shm/pathgate-mv-XXXXXX";
    assert_non_null(mkdtemp(shm));
    pathgate_base_spec roots[2] = {
        {PG_S("repo"), f->repo, strlen(f->repo), 0},
        {PG_S("shm"), shm, strlen(shm), 0},
    };
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 2;
    o.flags = f->flags;
    o.allocator = pg_test_alloc();
    pathgate_resolver *r = NULL;
    assert_int_equal(pathgate_resolver_new(&r, &o, NULL), 0);
    pathgate_error err;
    pathgate_buf path = PATHGATE_BUF_INIT;
    assert_int_equal(
        pathgate_fs_move(&path, r, PG_S("root:repo/dir"), PG_S("root:shm/dir"), NULL, &err), 0);
    assert_string_equal(path.ptr, "root:shm/dir");
    assert_false(fx_exists(f->repo, "dir"));
    char *s = fx_get(shm, "dir/sub/deep.txt", NULL);
    assert_string_equal(s, "deep needle\n");
    free(s);
    assert_int_equal(
        pathgate_fs_move(NULL, r, PG_S("root:repo/a.txt"), PG_S("root:shm/a.txt"), NULL, &err), 0);
    assert_false(fx_exists(f->repo, "a.txt"));
    /* no overwrite across filesystems either */
    int rc = pathgate_fs_move(NULL, r, PG_S("root:repo/nofinal.txt"), PG_S("root:shm/a.txt"), NULL,
                              &err);
    expect_err(rc, &err, PATHGATE_EEXIST, "'root:shm/a.txt' already exists");
    assert_true(fx_exists(f->repo, "nofinal.txt"));
    s = fx_get(shm, "a.txt", NULL);
    assert_string_equal(s, "alpha\nbeta\ngamma\n");
    free(s);
    /* a FIFO cannot be copied: the copy is removed, the source stays */
    rc = pathgate_fs_move(NULL, r, PG_S("root:repo/fifo"), PG_S("root:shm/fifo"), NULL, &err);
    assert_int_equal(rc, PATHGATE_EIO);
    assert_true(fx_exists(f->repo, "fifo"));
    assert_false(fx_exists(shm, "fifo"));
    pathgate_buf_dispose(&path);
    pathgate_resolver_free(r);
    pg_tmpdir_remove(strdup(shm));
}

/* ---------------------------------------------------------------- stat */

static void test_stat(void **state)
{
    fx *f = *state;
    pathgate_fs_stat_result st = PATHGATE_FS_STAT_RESULT_INIT;
    pathgate_error err;
    char p[1024];
    fx_path(p, sizeof p, f->repo, "a.txt");
    assert_int_equal(chmod(p, 0640), 0);
    assert_int_equal(pathgate_fs_stat(&st, f->r, PG_S("root:repo/a.txt"), NULL, &err), 0);
    assert_string_equal(st.path.ptr, "root:repo/a.txt");
    assert_int_equal(st.type, PATHGATE_FS_TYPE_FILE);
    assert_int_equal(st.size, 17);
    assert_int_equal(st.mode, 0640);
    assert_int_equal(strlen(st.modified_at), 32);
    assert_int_equal(strlen(st.accessed_at), 32);
    assert_int_equal(strlen(st.changed_at), 32);
    assert_true(st.mtime_sec > 0);
    pathgate_fs_stat_result_dispose(&st);
    assert_int_equal(pathgate_fs_stat(&st, f->r, PG_S("root:repo/dir"), NULL, &err), 0);
    assert_int_equal(st.type, PATHGATE_FS_TYPE_DIRECTORY);
    assert_int_equal(st.size, 0);
    pathgate_fs_stat_result_dispose(&st);
    assert_int_equal(pathgate_fs_stat(&st, f->r, PG_S("root:repo/link_in"), NULL, &err), 0);
    assert_int_equal(st.size, 17); /* the target's */
    pathgate_fs_stat_result_dispose(&st);
    assert_int_equal(pathgate_fs_stat(&st, f->r, PG_S("root:repo/fifo"), NULL, &err), 0);
    assert_int_equal(st.type, PATHGATE_FS_TYPE_OTHER);
    pathgate_fs_stat_result_dispose(&st);
    int rc = pathgate_fs_stat(&st, f->r, PG_S("root:repo/link_out"), NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    rc = pathgate_fs_stat(&st, f->r, PG_S("root:repo/abs_out"), NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    rc = pathgate_fs_stat(&st, f->r, PG_S("root:repo/nope"), NULL, &err);
    expect_err(rc, &err, PATHGATE_ENOTFOUND, "File 'root:repo/nope' not found");
    fx_path(p, sizeof p, f->outside, "secret.txt");
    rc = pathgate_fs_stat(&st, f->r, PG_S(p), NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    assert_null(st.path.ptr);
}

/* --------------------------------------------------------------- edits */

static void test_edits(void **state)
{
    fx *f = *state;
    pathgate_buf path = PATHGATE_BUF_INIT, diff = PATHGATE_BUF_INIT;
    pathgate_error err;
    pathgate_fs_edit_op ops[2] = {
        {PG_S("alpha"), PG_S("ALPHA"), 0},
        {PG_S("gamma\n"), PG_S("gamma\ndelta"), 0},
    };
    /* dry run: the diff, the file unchanged */
    assert_int_equal(
        pathgate_fs_edits(&path, &diff, f->r, PG_S("root:repo/a.txt"), ops, 2, PG_DRY_RUN, &err),
        0);
    assert_string_equal(path.ptr, "root:repo/a.txt");
    assert_string_equal(diff.ptr, "--- root:repo/a.txt\n+++ root:repo/a.txt\n@@ -1,3 +1,4 @@\n"
                                  "-alpha\n+ALPHA\n beta\n gamma\n+delta\n"
                                  "\\ No newline at end of file\n");
    char *s = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(s, "alpha\nbeta\ngamma\n");
    free(s);
    /* for real */
    assert_int_equal(
        pathgate_fs_edits(&path, &diff, f->r, PG_S("root:repo/a.txt"), ops, 2, NULL, &err), 0);
    s = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(s, "ALPHA\nbeta\ngamma\ndelta");
    free(s);
    /* context: three lines around a change in the middle of big.txt */
    pathgate_fs_edit_op mid = {PG_S("line 500\n"), PG_S("five hundred\n"), 0};
    assert_int_equal(
        pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:repo/big.txt"), &mid, 1, PG_DRY_RUN, &err),
        0);
    assert_string_equal(diff.ptr,
                        "--- root:repo/big.txt\n+++ root:repo/big.txt\n@@ -497,7 +497,7 @@\n"
                        " line 497\n line 498\n line 499\n-line 500\n+five hundred\n"
                        " line 501\n line 502\n line 503\n");
    /* two changes far apart: two hunks; close ones: one */
    pathgate_fs_edit_op two[2] = {{PG_S("line 20\n"), PG_S("twenty\n"), 0},
                                  {PG_S("line 40\n"), PG_S(""), 0}};
    assert_int_equal(
        pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:repo/big.txt"), two, 2, PG_DRY_RUN, &err),
        0);
    assert_string_equal(diff.ptr,
                        "--- root:repo/big.txt\n+++ root:repo/big.txt\n"
                        "@@ -17,7 +17,7 @@\n line 17\n line 18\n line 19\n-line 20\n+twenty\n"
                        " line 21\n line 22\n line 23\n"
                        "@@ -37,7 +37,6 @@\n line 37\n line 38\n line 39\n-line 40\n"
                        " line 41\n line 42\n line 43\n");
    pathgate_fs_edit_op near[2] = {{PG_S("line 20\n"), PG_S("twenty\n"), 0},
                                   {PG_S("line 26\n"), PG_S("l26\nextra\n"), 0}};
    assert_int_equal(
        pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:repo/big.txt"), near, 2, PG_DRY_RUN, &err),
        0);
    assert_string_equal(diff.ptr,
                        "--- root:repo/big.txt\n+++ root:repo/big.txt\n"
                        "@@ -17,13 +17,14 @@\n line 17\n line 18\n line 19\n-line 20\n+twenty\n"
                        " line 21\n line 22\n line 23\n line 24\n line 25\n-line 26\n+l26\n+extra\n"
                        " line 27\n line 28\n line 29\n");
    /* all or nothing: the second edit fails, nothing is written */
    pathgate_fs_edit_op bad[2] = {{PG_S("beta"), PG_S("BETA"), 0}, {PG_S("zzz"), PG_S("y"), 0}};
    int rc = pathgate_fs_edits(&path, &diff, f->r, PG_S("root:repo/a.txt"), bad, 2, NULL, &err);
    expect_err(rc, &err, PATHGATE_EEDIT, "String not found in file: 'zzz'");
    assert_null(diff.ptr);
    assert_null(path.ptr);
    s = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(s, "ALPHA\nbeta\ngamma\ndelta");
    free(s);
    /* edits see the result of the ones before */
    pathgate_fs_edit_op chain[2] = {{PG_S("beta"), PG_S("b2"), 0}, {PG_S("b2"), PG_S("b3"), 0}};
    assert_int_equal(
        pathgate_fs_edits(NULL, NULL, f->r, PG_S("root:repo/a.txt"), chain, 2, NULL, &err), 0);
    s = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(s, "ALPHA\nb3\ngamma\ndelta");
    free(s);
    /* no edits: an empty diff */
    assert_int_equal(
        pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:repo/a.txt"), NULL, 0, PG_DRY_RUN, &err),
        0);
    assert_int_equal(diff.len, 0);
    /* read-only refuses the write, not the dry run */
    pathgate_fs_edit_op ro = {PG_S("read"), PG_S("write"), 0};
    assert_int_equal(
        pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:ro/f.txt"), &ro, 1, PG_DRY_RUN, &err), 0);
    rc = pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:ro/f.txt"), &ro, 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_EACCES, "Permission denied: 'root:ro/f.txt'");
    rc = pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:repo/link_out"), &ro, 1, PG_DRY_RUN, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    pathgate_buf_dispose(&path);
    pathgate_buf_dispose(&diff);
}

/* ----------------------------------------------------------- head/tail */

static void expect_lines(fx *f, int tail, const char *addr, size_t n, const char *want)
{
    pathgate_buf b = PATHGATE_BUF_INIT;
    pathgate_error err;
    int rc = tail ? pathgate_fs_tail(&b, f->r, PG_S(addr), n, NULL, &err)
                  : pathgate_fs_head(&b, f->r, PG_S(addr), n, NULL, &err);
    if (rc != 0)
        fail_msg("%s %s %zu: %s", tail ? "tail" : "head", addr, n, err.message);
    assert_int_equal(b.len, strlen(want));
    assert_memory_equal(b.ptr, want, b.len);
    pathgate_buf_dispose(&b);
}

static void test_head_tail(void **state)
{
    fx *f = *state;
    expect_lines(f, 0, "root:repo/big.txt", 3, "line 1\nline 2\nline 3\n");
    expect_lines(f, 1, "root:repo/big.txt", 2, "line 9999\nline 10000\n");
    expect_lines(f, 0, "root:repo/big.txt", 0, "");
    expect_lines(f, 1, "root:repo/big.txt", 0, "");
    expect_lines(f, 0, "root:repo/nofinal.txt", 1, "x\n");
    expect_lines(f, 1, "root:repo/nofinal.txt", 1, "y");
    expect_lines(f, 1, "root:repo/nofinal.txt", 5, "x\ny");
    expect_lines(f, 0, "root:repo/a.txt", PATHGATE_FS_NO_LIMIT, "alpha\nbeta\ngamma\n");
    expect_lines(f, 1, "root:repo/a.txt", PATHGATE_FS_NO_LIMIT, "alpha\nbeta\ngamma\n");
    expect_lines(f, 1, "root:repo/crlf.txt", 1, "three\r\n");
    expect_lines(f, 1, "root:repo/empty.txt", 3, "");
    /* a tail crossing the 64 KiB read-back chunk */
    pathgate_buf b = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_tail(&b, f->r, PG_S("root:repo/big.txt"), 9000, NULL, &err), 0);
    assert_memory_equal(b.ptr, "line 1001\n", 10);
    assert_int_equal(pathgate__fs_count_lines(b.ptr, b.len), 9000);
    pathgate_buf_dispose(&b);
    int rc = pathgate_fs_head(&b, f->r, PG_S("root:repo/dir"), 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_EISDIR, "'root:repo/dir' is a directory");
    rc = pathgate_fs_tail(&b, f->r, PG_S("root:repo/fifo"), 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_ENOTREG, "'root:repo/fifo' is not a regular file");
    rc = pathgate_fs_tail(&b, f->r, PG_S("root:repo/link_out"), 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    rc = pathgate_fs_head(&b, f->r, PG_S("root:repo/nope"), 1, NULL, &err);
    expect_err(rc, &err, PATHGATE_ENOTFOUND, "File 'root:repo/nope' not found");
    assert_null(b.ptr);
}

/* ---------------------------------------------------------------- tree */

static void expect_tree(fx *f, const char *addr, const char *const *ex, size_t nex,
                        const char *const *want, size_t n)
{
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    size_t lens[8] = {0};
    assert_true(nex <= 8);
    for (size_t i = 0; i < nex; i++)
        lens[i] = strlen(ex[i]);
    int rc = pathgate_fs_tree(&l, f->r, PG_S(addr), ex, lens, nex, NULL, &err);
    if (rc != 0)
        fail_msg("tree %s: %s", addr, err.message);
    for (size_t i = 0; i < l.count && i < n; i++)
        if (strcmp(l.items[i].path, want[i]) != 0)
            fail_msg("entry %zu: %s, expected %s", i, l.items[i].path, want[i]);
    assert_int_equal(l.count, n);
    for (size_t i = 0; i < l.count; i++) {
        assert_true(l.items[i].has_metadata);
        assert_int_equal(l.items[i].is_dir, l.items[i].path[l.items[i].path_len - 1] == '/');
    }
    pathgate_fs_list_dispose(&l);
}

static void test_tree(void **state)
{
    fx *f = *state;
    const char *dir[] = {"root:repo/dir/sub/", "root:repo/dir/sub/deep.txt", "root:repo/dir/x.py"};
    expect_tree(f, "root:repo/dir", NULL, 0, dir, 3);
    /* the whole base minus some names: link_dir listed, not entered; no
     * FIFO, no outward or dangling link */
    const char *ex[] = {"*.txt", ".hidden", "bin.dat"};
    const char *all[] = {
        "root:repo/.dotfile", "root:repo/dir/",      "root:repo/dir/sub/",
        "root:repo/dir/x.py", "root:repo/link_dir/", "root:repo/link_in",
    };
    expect_tree(f, "root:repo", ex, 3, all, 6);
    const char *ex2[] = {"dir/sub"};
    const char *pruned[] = {"root:repo/dir/x.py"};
    expect_tree(f, "root:repo/dir", ex2 + 0, 0, dir, 3);
    const char *ex3[] = {"sub"};
    expect_tree(f, "root:repo/dir", ex3, 1, pruned, 1);
    const char *mod[] = {"mod:My Mod/common/", "mod:My Mod/common/t.txt"};
    expect_tree(f, "mod:My Mod", NULL, 0, mod, 2);
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    int rc = pathgate_fs_tree(&l, f->r, PG_S("root:repo/link_out_dir"), NULL, NULL, 0, NULL, &err);
    expect_err(rc, &err, PATHGATE_EINVALIDPATH, "Invalid path / not found");
    rc = pathgate_fs_tree(&l, f->r, PG_S("root:repo/a.txt"), NULL, NULL, 0, NULL, &err);
    expect_err(rc, &err, PATHGATE_ENOTDIR, "'root:repo/a.txt' is not a directory");
    const char *badex[] = {"", "a\0b"};
    size_t badlen[] = {0, 3};
    rc = pathgate_fs_tree(&l, f->r, PG_S("root:repo"), badex, badlen, 1, NULL, &err);
    assert_int_equal(rc, PATHGATE_EINVAL);
    assert_int_equal(l.count, 0);
    rc = pathgate_fs_tree(&l, f->r, PG_S("root:repo"), badex + 1, badlen + 1, 1, NULL, &err);
    assert_int_equal(rc, PATHGATE_ENUL);
    rc = pathgate_fs_tree(&l, f->r, PG_S("root:repo"), badex, NULL, 1, NULL, &err);
    assert_int_equal(rc, PATHGATE_EINVAL);
}

/* ------------------------------------------------ failing allocations */

static int op_body(const pathgate_allocator *alloc, void *arg)
{
    fx *f = arg;
    int rc;
    char p[1024];
    /* a round that failed after its rename left m/o behind */
    fx_path(p, sizeof p, f->repo, "m/o");
    rmdir(p);
    pathgate_resolver *r = fx_resolver(f, alloc, &rc);
    if (!r)
        return rc;
    pathgate_error err;
    pathgate_buf b = PATHGATE_BUF_INIT;
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_fs_stat_result st = PATHGATE_FS_STAT_RESULT_INIT;
    pathgate_fs_edit_op op = {PG_S("beta"), PG_S("BETA"), 0};
    const char *ex[] = {"*.py"};
    size_t exl[] = {4};
    rc = pathgate_fs_tree(&l, r, PG_S("root:repo"), ex, exl, 1, NULL, &err);
    pathgate_fs_list_dispose(&l);
    if (rc == 0)
        rc = pathgate_fs_stat(&st, r, PG_S("root:repo/a.txt"), NULL, &err);
    pathgate_fs_stat_result_dispose(&st);
    if (rc == 0)
        rc = pathgate_fs_edits(&b, &b, r, PG_S("root:repo/a.txt"), &op, 1, PG_DRY_RUN, &err);
    if (rc == 0)
        rc = pathgate_fs_head(&b, r, PG_S("root:repo/big.txt"), 2, NULL, &err);
    if (rc == 0)
        rc = pathgate_fs_tail(&b, r, PG_S("root:repo/big.txt"), 2, NULL, &err);
    if (rc == 0)
        rc = pathgate_fs_mkdir(&b, r, PG_S("root:repo/m/n"), 1, NULL, &err);
    if (rc == 0)
        rc = pathgate_fs_move(&b, r, PG_S("root:repo/m/n"), PG_S("root:repo/m/o"), NULL, &err);
    if (rc == 0) /* put it back for the next round */
        rc = pathgate_fs_move(NULL, r, PG_S("root:repo/m/o"), PG_S("root:repo/m/n"), NULL, &err);
    pathgate_buf_dispose(&b);
    pathgate_resolver_free(r);
    return rc;
}

static void test_failing_allocations(void **state)
{
    fx *f = *state;
    pg_for_each_failing_alloc(op_body, f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TESTS(test_mkdir),
        FX_TESTS(test_move),
        FX_TESTS(test_move_across_filesystems),
        FX_TESTS(test_stat),
        FX_TESTS(test_edits),
        FX_TESTS(test_head_tail),
        FX_TESTS(test_tree),
        FX_TESTS(test_failing_allocations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
