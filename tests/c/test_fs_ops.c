/* test_fs_ops.c - ls, read, write, edit, delete, upload and download on a
 * real tree, through openat2 and through the fallback walk: results,
 * every error text, containment (outward symlinks, dangling links, FIFOs),
 * the read-only base, atomic writes under injected faults, and a failing
 * allocation at every point of every operation. */
#include "fs_fixture.h"

#include "alloc.h"

/* What wine cannot show of the fixture's links (docs/windows.md): the
 * cases that need them are skipped there, by name. */
#define WINE_LINKS                                                                                 \
    "wine shows a link to a file as the file, lists no dangling link and cannot read a "           \
    "directory link's target"
#define NO_FIFOS "no FIFOs"

#define UNI                                                                                        \
    "\xC3\xBCn\xC3\xAF"                                                                            \
    "c\xC3\xB6"                                                                                    \
    "d\xC3\xA9.txt"

/* ------------------------------------------------------------------ ls */

static void test_ls_lists_sorted_with_metadata(void **state)
{
    PG_SKIP_ON_WINDOWS(WINE_LINKS);
    fx *f = *state;
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo"), NULL, &err), 0);
    const char *want[] = {
        "root:repo/.dotfile",
        "root:repo/.hidden/",
        "root:repo/a.txt",
        "root:repo/big.txt",
        "root:repo/bin.dat",
        "root:repo/blank.txt",
        "root:repo/crlf.txt",
        "root:repo/dir/",
        "root:repo/empty.txt",
        "root:repo/latin1.txt",
        "root:repo/link_dir/",
        "root:repo/link_in",
        "root:repo/name with space.txt",
        "root:repo/nofinal.txt",
        "root:repo/" UNI,
    };
    size_t n = sizeof want / sizeof want[0];
    for (size_t i = 0; i < l.count && i < n; i++)
        if (strcmp(l.items[i].path, want[i]) != 0)
            fail_msg("entry %zu: %s, expected %s", i, l.items[i].path, want[i]);
    assert_int_equal(l.count, n);
    /* no FIFO, no outward or dangling link */
    for (size_t i = 0; i < l.count; i++) {
        assert_null(strstr(l.items[i].path, "out"));
        assert_null(strstr(l.items[i].path, "fifo"));
        assert_null(strstr(l.items[i].path, "dangling"));
        assert_int_equal(l.items[i].path_len, strlen(l.items[i].path));
    }
    pathgate_fs_info *a = &l.items[2];
    assert_false(a->is_dir);
    assert_int_equal(a->size, 17);
    assert_int_equal(strlen(a->modified_at), 32);
    assert_memory_equal(a->modified_at + 26, "+00:00", 6);
    assert_true(l.items[7].is_dir);
    assert_int_equal(l.items[7].size, 0);
    assert_true(l.items[10].is_dir);        /* link_dir: a directory inside */
    assert_int_equal(l.items[11].size, 17); /* link_in: its target's size */
    pathgate_fs_list_dispose(&l);
    pathgate_fs_list_dispose(&l); /* twice is fine */
    pathgate_fs_list_dispose(NULL);
    /* an address through an inside symlink keeps its own name */
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo/link_dir"), NULL, &err), 0);
    assert_int_equal(l.count, 2);
    assert_string_equal(l.items[1].path, "root:repo/link_dir/x.py");
    pathgate_fs_list_dispose(&l);
}

static void test_ls_subdirectories(void **state)
{
    fx *f = *state;
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    /* a subdirectory, a mod with a space, the empty read-only root */
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo/dir"), NULL, &err), 0);
    assert_int_equal(l.count, 2);
    assert_string_equal(l.items[0].path, "root:repo/dir/sub/");
    assert_string_equal(l.items[1].path, "root:repo/dir/x.py");
    assert_true(l.items[0].is_dir);
    assert_int_equal(l.items[0].size, 0);
    assert_false(l.items[1].is_dir);
    assert_int_equal(l.items[1].size, 16);
    assert_int_equal(strlen(l.items[1].modified_at), 32);
    assert_memory_equal(l.items[1].modified_at + 26, "+00:00", 6);
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("mod:My Mod"), NULL, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "mod:My Mod/common/");
    pathgate_fs_list_dispose(&l);
    /* a host path inside the base is mapped back to addresses */
    char host[1024];
    fx_path(host, sizeof host, f->repo, "dir/sub");
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S(host), NULL, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/dir/sub/deep.txt");
    pathgate_fs_list_dispose(&l);
}

/* PATHGATE_FS_NO_METADATA: the same entries, kinds from the directory
 * entries, no size or time; outward and dangling links still skipped. */
static void test_ls_no_metadata(void **state)
{
    fx *f = *state;
    pathgate_fs_list full = PATHGATE_FS_LIST_INIT, bare = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    pathgate_fs_options o = PATHGATE_FS_OPTIONS_INIT;
    o.flags = PATHGATE_FS_NO_METADATA;
    assert_int_equal(pathgate_fs_ls(&full, f->r, PG_S("root:repo"), NULL, &err), 0);
    assert_int_equal(pathgate_fs_ls(&bare, f->r, PG_S("root:repo"), &o, &err), 0);
    assert_int_equal(bare.count, full.count);
    for (size_t i = 0; i < bare.count; i++) {
        assert_string_equal(bare.items[i].path, full.items[i].path);
        assert_int_equal(bare.items[i].is_dir, full.items[i].is_dir);
        assert_false(bare.items[i].has_metadata);
        assert_true(full.items[i].has_metadata);
        assert_int_equal(bare.items[i].size, 0);
        assert_string_equal(bare.items[i].modified_at, "");
    }
    pathgate_fs_list_dispose(&full);
    pathgate_fs_list_dispose(&bare);
    assert_int_equal(pathgate_fs_ls(&bare, f->r, PG_S("root:repo/link_out_dir"), &o, &err),
                     PATHGATE_EINVALIDPATH);
    assert_string_equal(err.message, "Invalid path / not found");
}

static void test_ls_errors(void **state)
{
    fx *f = *state;
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo/nope"), NULL, &err),
                     PATHGATE_ENOTFOUND);
    assert_string_equal(err.message, "Directory 'root:repo/nope' not found");
    assert_null(l.items);
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo/a.txt"), NULL, &err),
                     PATHGATE_ENOTDIR);
    assert_string_equal(err.message, "'root:repo/a.txt' is not a directory");
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo/link_out_dir"), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_string_equal(err.message, "Invalid path / not found");
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo/../outside"), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:nokey"), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate_fs_ls(&l, f->r, f->outside, strlen(f->outside), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_null(strstr(err.message, f->tmp));
    assert_int_equal(pathgate_fs_ls(&l, f->r, "root:repo\0x", 11, NULL, &err),
                     PATHGATE_EINVALIDPATH);
    /* without a session, relative text is relative to the first base (the
     * first root), and above it is invalid */
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("dir/sub"), NULL, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/dir/sub/deep.txt");
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("."), NULL, &err), 0);
    assert_true(l.count > 0);
    assert_non_null(strstr(l.items[0].path, "root:repo/"));
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("../ro"), NULL, &err), PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("nope"), NULL, &err), PATHGATE_ENOTFOUND);
    assert_string_equal(err.message, "Directory 'root:repo/nope' not found");
    assert_int_equal(pathgate_fs_ls(&l, NULL, PG_S("root:repo"), NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_fs_ls(NULL, f->r, PG_S("root:repo"), NULL, &err), PATHGATE_EINVAL);
    /* nothing minted, nothing held */
    assert_int_equal(pathgate_resolver_token_count(f->r), 0);
}

static void test_session_relative_input(void **state)
{
    fx *f = *state;
    pathgate_session *s = NULL;
    assert_int_equal(pathgate_session_new(&s, f->r, NULL, 0, NULL), 0);
    pathgate_buf msg = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_session_push(&msg, s, PG_S("dir"), NULL), 0);
    pathgate_buf_dispose(&msg);
    pathgate_fs_options o = PATHGATE_FS_OPTIONS_INIT;
    o.session = s;
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_ls(&l, NULL, PG_S("sub"), &o, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/dir/sub/deep.txt");
    pathgate_fs_list_dispose(&l);
    pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("x.py"), 0, 10, &o, &err), 0);
    pg_assert_buf(&rr.path, "root:repo/dir/x.py");
    pathgate_fs_read_result_dispose(&rr);
    /* `..` within the base is fine, above it is not */
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("../a.txt"), 0, 10, &o, &err), 0);
    pg_assert_buf(&rr.path, "root:repo/a.txt");
    pathgate_fs_read_result_dispose(&rr);
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("../../outside/secret.txt"), 0, 10, &o, &err),
                     PATHGATE_EINVALIDPATH);
    /* the resolver must be the session's */
    pathgate_resolver *other = fx_resolver(f, pg_test_alloc(), NULL);
    assert_int_equal(pathgate_fs_ls(&l, other, PG_S("sub"), &o, &err), PATHGATE_EINVAL);
    pathgate_resolver_free(other);
    /* tokens minted for relative input are released at once */
    assert_int_equal(pathgate_resolver_token_count(f->r), 0);
    pathgate_session_free(s);
}

/* ---------------------------------------------------------------- read */

static void read_ok(fx *f, const char *addr, int64_t off, int64_t lim, pathgate_fs_read_result *rr)
{
    pathgate_error err;
    int rc = pathgate_fs_read(rr, f->r, PG_S(addr), off, lim, NULL, &err);
    if (rc != 0)
        fail_msg("read %s: %s", addr, err.message);
}

static void test_read_windows(void **state)
{
    fx *f = *state;
    pathgate_fs_read_result rr;
    read_ok(f, "root:repo/a.txt", 0, 2000, &rr);
    assert_string_equal(rr.content.ptr, "alpha\nbeta\ngamma");
    assert_int_equal(rr.encoding, PATHGATE_FS_UTF8);
    assert_true(rr.has_window);
    assert_int_equal(rr.total_lines, 3);
    assert_int_equal(rr.start_line, 1);
    assert_int_equal(rr.end_line, 3);
    assert_false(rr.has_next);
    assert_string_equal(rr.path.ptr, "root:repo/a.txt");
    assert_int_equal(strlen(rr.modified_at), 32);
    assert_true(rr.final_newline); /* left out of content */
    pathgate_fs_read_result_dispose(&rr);

    read_ok(f, "root:repo/a.txt", 1, 1, &rr);
    assert_string_equal(rr.content.ptr, "beta");
    assert_int_equal(rr.start_line, 2);
    assert_int_equal(rr.end_line, 2);
    assert_true(rr.has_next);
    assert_int_equal(rr.next_offset, 2);
    assert_true(rr.final_newline);
    pathgate_fs_read_result_dispose(&rr);

    read_ok(f, "root:repo/a.txt", -5, 1, &rr); /* negative offset reads from 0 */
    assert_string_equal(rr.content.ptr, "alpha");
    pathgate_fs_read_result_dispose(&rr);

    read_ok(f, "root:repo/crlf.txt", 0, 2000, &rr);
    assert_string_equal(rr.content.ptr, "one\ntwo\nthree");
    assert_int_equal(rr.total_lines, 3);
    pathgate_fs_read_result_dispose(&rr);
    /* PATHGATE_FS_KEEP_CRLF: the lines' "\r\n" as the file has them (the
     * last one's terminator still left out), as head shows them */
    pathgate_error err;
    pathgate_fs_options keep = PATHGATE_FS_OPTIONS_INIT;
    keep.flags = PATHGATE_FS_KEEP_CRLF;
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/crlf.txt"), 0, 2000, &keep, &err),
                     0);
    assert_string_equal(rr.content.ptr, "one\r\ntwo\r\nthree");
    assert_int_equal(rr.total_lines, 3);
    assert_true(rr.final_newline); /* "\r\n" left out, and said */
    pathgate_fs_read_result_dispose(&rr);
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/crlf.txt"), 1, 1, &keep, &err), 0);
    assert_string_equal(rr.content.ptr, "two");
    pathgate_fs_read_result_dispose(&rr);
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/a.txt"), 0, 2, &keep, &err), 0);
    assert_string_equal(rr.content.ptr, "alpha\nbeta"); /* an LF file is the same */
    pathgate_fs_read_result_dispose(&rr);

    read_ok(f, "root:repo/nofinal.txt", 1, 10, &rr);
    assert_string_equal(rr.content.ptr, "y");
    assert_int_equal(rr.total_lines, 2);
    assert_false(rr.final_newline);
    pathgate_fs_read_result_dispose(&rr);
    read_ok(f, "root:repo/nofinal.txt", 0, 1, &rr);
    assert_string_equal(rr.content.ptr, "x");
    assert_true(rr.final_newline);
    pathgate_fs_read_result_dispose(&rr);
    read_ok(f, "root:repo/crlf.txt", 1, 1, &rr); /* CRLF is one line break */
    assert_string_equal(rr.content.ptr, "two");
    assert_true(rr.final_newline);
    pathgate_fs_read_result_dispose(&rr);

    read_ok(f, "root:repo/big.txt", 0, 2000, &rr);
    assert_int_equal(rr.total_lines, 10000);
    assert_int_equal(rr.end_line, 2000);
    assert_true(rr.has_next);
    assert_int_equal(rr.next_offset, 2000);
    assert_memory_equal(rr.content.ptr, "line 1\nline 2\n", 14);
    assert_string_equal(rr.content.ptr + rr.content.len - 9, "line 2000");
    pathgate_fs_read_result_dispose(&rr);
    read_ok(f, "root:repo/big.txt", 9999, 2000, &rr);
    assert_string_equal(rr.content.ptr, "line 10000");
    assert_false(rr.has_next);
    pathgate_fs_read_result_dispose(&rr);

    read_ok(f, "root:repo/name with space.txt", 0, 10, &rr);
    assert_string_equal(rr.content.ptr, "spaced");
    pathgate_fs_read_result_dispose(&rr);
    read_ok(f, "root:repo/" UNI, 0, 10, &rr);
    assert_string_equal(rr.content.ptr, "unicode");
    pathgate_fs_read_result_dispose(&rr);
    read_ok(f, "mod:My Mod/common/t.txt", 0, 10, &rr);
    assert_string_equal(rr.content.ptr, "mod text");
    pathgate_fs_read_result_dispose(&rr);
    /* through an inside symlink; legacy alias and URI forms */
    read_ok(f, "root:repo/link_in", 0, 1, &rr);
    assert_string_equal(rr.content.ptr, "alpha");
    pg_assert_buf(&rr.path, "root:repo/link_in");
    pathgate_fs_read_result_dispose(&rr);
    read_ok(f, "ROOT_REPO:/dir/x.py", 0, 1, &rr);
    pg_assert_buf(&rr.path, "root:repo/dir/x.py");
    pathgate_fs_read_result_dispose(&rr);
    char uri[1200];
    snprintf(uri, sizeof uri, LINUX_OR_WINDOWS("file://%s/a.txt", "file:///%s/a.txt"), f->repo);
    read_ok(f, uri, 0, 1, &rr);
    pg_assert_buf(&rr.path, "root:repo/a.txt");
    pathgate_fs_read_result_dispose(&rr);
    assert_int_equal(pathgate_resolver_token_count(f->r), 0);
}

static void test_read_special_content(void **state)
{
    fx *f = *state;
    pathgate_fs_read_result rr;
    read_ok(f, "root:repo/empty.txt", 0, 2000, &rr);
    assert_true(rr.empty);
    assert_false(rr.has_window);
    assert_string_equal(rr.content.ptr, "System reminder: File exists but has empty contents");
    pathgate_fs_read_result_dispose(&rr);
    read_ok(f, "root:repo/blank.txt", 5, 10, &rr); /* whitespace-only: the same */
    assert_true(rr.empty);
    pathgate_fs_read_result_dispose(&rr);

    read_ok(f, "root:repo/bin.dat", 0, 2000, &rr);
    assert_int_equal(rr.encoding, PATHGATE_FS_BASE64);
    assert_string_equal(rr.content.ptr, "AAH/");
    assert_false(rr.has_window);
    pathgate_fs_read_result_dispose(&rr);
    read_ok(f, "root:repo/latin1.txt", 0, 2000, &rr);
    assert_int_equal(rr.encoding, PATHGATE_FS_BASE64);
    assert_string_equal(rr.content.ptr, "Y2Fm6Qo=");
    pathgate_fs_read_result_dispose(&rr);

    /* limit <= 0: not inspected, even for a missing file */
    read_ok(f, "root:repo/missing", 0, 0, &rr);
    assert_true(rr.no_lines_requested);
    assert_null(rr.content.ptr);
    assert_false(rr.has_window);
    pathgate_fs_read_result_dispose(&rr);
}

static void test_read_errors(void **state)
{
    fx *f = *state;
    pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/a.txt"), 3, 10, NULL, &err),
                     PATHGATE_ERANGE);
    assert_string_equal(err.message, "Line offset 3 exceeds file length (3 lines)");
    assert_null(rr.content.ptr);
    assert_null(rr.path.ptr);
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/big.txt"), 10000, 1, NULL, &err),
                     PATHGATE_ERANGE);
    assert_string_equal(err.message, "Line offset 10000 exceeds file length (10000 lines)");
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/missing.txt"), 0, 10, NULL, &err),
                     PATHGATE_ENOTFOUND);
    assert_string_equal(err.message, "File 'root:repo/missing.txt' not found");
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/a.txt/x"), 0, 10, NULL, &err),
                     PATHGATE_ENOTFOUND);
    assert_string_equal(err.message, "File 'root:repo/a.txt/x' not found");
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/dir"), 0, 10, NULL, &err),
                     PATHGATE_EISDIR);
    assert_string_equal(err.message, "'root:repo/dir' is a directory");
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo"), 0, 10, NULL, &err),
                     PATHGATE_EISDIR);
    assert_string_equal(err.message, "'root:repo' is a directory");
    assert_int_equal(pathgate_fs_read(&rr, f->r, NULL, 0, 0, 10, NULL, &err), PATHGATE_EINVAL);
}

/* Read, read_bytes, edit and download never follow a link out; a
 * dangling link inside is not found. */
static void test_read_links_never_reach_outside(void **state)
{
    PG_SKIP_ON_WINDOWS(WINE_LINKS);
    fx *f = *state;
    pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
    pathgate_error err;
    const char *out[] = {"root:repo/link_out", "root:repo/abs_out",
                         "root:repo/link_out_dir/secret.txt", "root:repo/dangling_out"};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S(out[i]), 0, 10, NULL, &err),
                         PATHGATE_EINVALIDPATH);
        assert_string_equal(err.message, "Invalid path / not found");
    }
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/dangling_in"), 0, 10, NULL, &err),
                     PATHGATE_ENOTFOUND);
    pathgate_buf b = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_fs_read_bytes(&b, f->r, PG_S("root:repo/link_out"), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_null(b.ptr);
    size_t n = 0;
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/link_out"),
                                      PG_EDIT(PG_S("S"), PG_S("b"), 0), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    char *c = fx_get(f->outside, "secret.txt", NULL);
    assert_string_equal(c, "SECRET needle\n");
    free(c);
    const pathgate_fs_item down[] = {{PG_S("root:repo/link_out"), NULL, 0}};
    pathgate_fs_blobs blobs = PATHGATE_FS_BLOBS_INIT;
    assert_int_equal(pathgate_fs_download(&blobs, f->r, down, 1, NULL, &err), 0);
    assert_int_equal(blobs.count, 1);
    assert_int_equal(blobs.items[0].code, PATHGATE_EINVALIDPATH);
    assert_null(blobs.items[0].data);
    pathgate_fs_blobs_dispose(&blobs);
}

/* A FIFO is refused at once by every operation (read would hang if it
 * were opened blocking); delete removes it. */
static void test_fifo_refused(void **state)
{
    PG_SKIP_ON_WINDOWS(NO_FIFOS);
    fx *f = *state;
    pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/fifo"), 0, 10, NULL, &err),
                     PATHGATE_ENOTREG);
    assert_string_equal(err.message, "'root:repo/fifo' is not a regular file");
    pathgate_buf b = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_fs_read_bytes(&b, f->r, PG_S("root:repo/fifo"), NULL, &err),
                     PATHGATE_ENOTREG);
    assert_int_equal(pathgate_fs_write(NULL, f->r, PG_S("root:repo/fifo"), PG_S("x"), NULL, &err),
                     PATHGATE_ENOTREG);
    assert_string_equal(err.message, "'root:repo/fifo' is not a regular file");
    size_t n = 0;
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/fifo"),
                                      PG_EDIT(PG_S("a"), PG_S("b"), 0), NULL, &err),
                     PATHGATE_ENOTREG);
    const pathgate_fs_item down[] = {{PG_S("root:repo/fifo"), NULL, 0}};
    pathgate_fs_blobs blobs = PATHGATE_FS_BLOBS_INIT;
    assert_int_equal(pathgate_fs_download(&blobs, f->r, down, 1, NULL, &err), 0);
    assert_int_equal(blobs.count, 1);
    assert_int_equal(blobs.items[0].code, PATHGATE_ENOTREG);
    pathgate_fs_blobs_dispose(&blobs);
    assert_int_equal(pathgate_fs_delete(NULL, f->r, PG_S("root:repo/fifo"), NULL, &err), 0);
    assert_false(fx_exists(f->repo, "fifo"));
}

/* --------------------------------------------------------------- write */

static void test_write_creates_and_replaces(void **state)
{
    fx *f = *state;
    pathgate_buf path = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(
        pathgate_fs_write(&path, f->r, PG_S("root:repo/new.txt"), PG_S("hello\n"), NULL, &err), 0);
    pg_assert_buf(&path, "root:repo/new.txt");
    char *c = fx_get(f->repo, "new.txt", NULL);
    assert_string_equal(c, "hello\n");
    free(c);
    /* replace */
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/a.txt"), PG_S("replaced"), NULL, &err), 0);
    c = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(c, "replaced");
    free(c);
    /* parents created beneath the base; a name with spaces, non-ASCII, a mod */
    assert_int_equal(pathgate_fs_write(&path, f->r, PG_S("root:repo/n1/n2/n\xC3\xA9 w.txt"),
                                       PG_S("deep"), NULL, &err),
                     0);
    pg_assert_buf(&path, "root:repo/n1/n2/n\xC3\xA9 w.txt");
    c = fx_get(f->repo, "n1/n2/n\xC3\xA9 w.txt", NULL);
    assert_string_equal(c, "deep");
    free(c);
    assert_int_equal(pathgate_fs_write(NULL, f->r, PG_S("mod:My Mod/new/x"), PG_S(""), NULL, &err),
                     0);
    size_t len = 99;
    c = fx_get(f->mod, "new/x", &len);
    assert_int_equal(len, 0);
    free(c);
    /* embedded NUL in content is data */
    assert_int_equal(pathgate_fs_write(NULL, f->r, PG_S("root:repo/z"), "a\0b", 3, NULL, &err), 0);
    c = fx_get(f->repo, "z", &len);
    assert_int_equal(len, 3);
    assert_memory_equal(c, "a\0b", 3);
    free(c);
    /* no temp file is left anywhere */
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S(".pathgate-*"), NULL, 0, NULL, &err), 0);
    assert_int_equal(l.count, 0);
    pathgate_fs_list_dispose(&l);
}

/* A replaced file keeps its permission bits. */
static void test_write_keeps_mode_bits(void **state)
{
    PG_SKIP_ON_WINDOWS("a read-only flag, no permission bits");
    fx *f = *state;
    pathgate_error err;
    char p[1024];
    fx_path(p, sizeof p, f->repo, "a.txt");
    assert_int_equal(chmod(p, 0640), 0);
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/a.txt"), PG_S("replaced"), NULL, &err), 0);
    char *c = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(c, "replaced");
    free(c);
    unsigned int mode = 0;
    assert_int_equal(pg_lstat_times(p, &mode, NULL), 0);
    assert_int_equal(mode & 0777, 0640);
}

static void test_write_symlinks_never_reach_outside(void **state)
{
    PG_SKIP_ON_WINDOWS(WINE_LINKS);
    fx *f = *state;
    pathgate_error err;
    /* a dangling link to outside: invalid, and nothing appears outside */
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/dangling_out"), PG_S("x"), NULL, &err),
        PATHGATE_EINVALIDPATH);
    assert_string_equal(err.message, "Invalid path / not found");
    assert_false(fx_exists(f->outside, "newfile"));
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/link_out"), PG_S("x"), NULL, &err),
        PATHGATE_EINVALIDPATH);
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/abs_out"), PG_S("x"), NULL, &err),
        PATHGATE_EINVALIDPATH);
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/link_out_dir/new"), PG_S("x"), NULL, &err),
        PATHGATE_EINVALIDPATH);
    char *c = fx_get(f->outside, "secret.txt", NULL);
    assert_string_equal(c, "SECRET needle\n");
    free(c);
    assert_false(fx_exists(f->outside, "new"));
    /* an inside link is replaced by the file; its target is untouched */
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/link_in"), PG_S("new"), NULL, &err), 0);
    char p[1024];
    fx_path(p, sizeof p, f->repo, "link_in");
    assert_int_equal(pg_lkind(p), PG_KIND_FILE);
    c = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(c, "alpha\nbeta\ngamma\n");
    free(c);
    /* a dangling inside link is replaced too: no file appears at its target */
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/dangling_in"), PG_S("d"), NULL, &err), 0);
    assert_false(fx_exists(f->repo, "missing.txt"));
    c = fx_get(f->repo, "dangling_in", NULL);
    assert_string_equal(c, "d");
    free(c);
    /* a link to a directory inside is the directory */
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/link_dir"), PG_S("x"), NULL, &err),
        PATHGATE_EISDIR);
    /* an upload through a dangling link out is refused the same way */
    const pathgate_fs_item up[] = {{PG_S("root:repo/dangling_out"), "x", 1}};
    int code = 0;
    assert_int_equal(pathgate_fs_upload(&code, f->r, up, 1, NULL, &err), 0);
    assert_int_equal(code, PATHGATE_EINVALIDPATH);
    assert_string_equal(pathgate_fs_operation_error(code), "invalid_path");
    assert_false(fx_exists(f->outside, "newfile"));
}

static void test_write_errors(void **state)
{
    fx *f = *state;
    pathgate_error err;
    pathgate_buf path = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_fs_write(&path, f->r, PG_S("root:repo/dir"), PG_S("x"), NULL, &err),
                     PATHGATE_EISDIR);
    assert_string_equal(err.message, "'root:repo/dir' is a directory");
    assert_null(path.ptr);
    assert_int_equal(pathgate_fs_write(NULL, f->r, PG_S("root:repo"), PG_S("x"), NULL, &err),
                     PATHGATE_EISDIR);
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/a.txt/x"), PG_S("x"), NULL, &err),
        PATHGATE_ENOTDIR);
    assert_string_equal(err.message,
                        "Cannot write 'root:repo/a.txt/x': a parent is not a directory");
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/a.txt/x/y"), PG_S("x"), NULL, &err),
        PATHGATE_ENOTDIR);
    assert_int_equal(pathgate_fs_write(NULL, f->r, PG_S("root:ro/f.txt"), PG_S("x"), NULL, &err),
                     PATHGATE_EACCES);
    assert_string_equal(err.message, "Permission denied: 'root:ro/f.txt'");
    assert_int_equal(pathgate_fs_write(NULL, f->r, PG_S("root:ro/new"), PG_S("x"), NULL, &err),
                     PATHGATE_EACCES);
    assert_false(fx_exists(f->ro, "new"));
    char *c = fx_get(f->ro, "f.txt", NULL);
    assert_string_equal(c, "read only\n");
    free(c);
    assert_int_equal(pathgate_fs_write(NULL, f->r, PG_S("root:repo/../x"), PG_S("x"), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_false(fx_exists(f->tmp, "x"));
}

/* A directory without write permission (skipped as root, who may write
 * anyway). */
static void test_write_refused_by_directory_mode(void **state)
{
    PG_SKIP_ON_WINDOWS("a read-only flag, no permission bits");
    fx *f = *state;
    pathgate_error err;
    if (!pg_privileged()) {
        char p[1024];
        fx_path(p, sizeof p, f->repo, "dir/sub");
        assert_int_equal(chmod(p, 0555), 0);
        assert_int_equal(pathgate_fs_write(NULL, f->r, PG_S("root:repo/dir/sub/deep.txt"),
                                           PG_S("x"), NULL, &err),
                         PATHGATE_EACCES);
        assert_string_equal(err.message, "Permission denied: 'root:repo/dir/sub/deep.txt'");
        assert_int_equal(chmod(p, 0755), 0);
        char *c = fx_get(f->repo, "dir/sub/deep.txt", NULL);
        assert_string_equal(c, "deep needle\n");
        free(c);
    }
}

/* The fault test: a write stopped at each hook point (and a rename that
 * fails because the target became a directory) leaves the old content
 * byte-identical and no temp file. */
typedef struct hook_ctx {
    pathgate_fs_hook_point fail_at;
    int calls;
    const char *dir_to_swap; /* BEFORE_RENAME: replace the target by a directory */
} hook_ctx;

static int test_hook(pathgate_fs_hook_point point, void *p)
{
    hook_ctx *h = p;
    h->calls++;
    if (h->dir_to_swap && point == PATHGATE_FS_HOOK_BEFORE_RENAME) {
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s.moved", h->dir_to_swap);
        assert_int_equal(rename(h->dir_to_swap, tmp), 0);
        assert_int_equal(pg_mkdir(h->dir_to_swap), 0);
        char inner[1200];
        snprintf(inner, sizeof inner, "%s/keep", h->dir_to_swap);
        FILE *fp = pg_fopen(inner, "wb");
        assert_non_null(fp);
        fclose(fp);
        return 0;
    }
    return point == h->fail_at ? PATHGATE_EIO : 0;
}

static void no_temp_files(fx *f)
{
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("**/.pathgate-*"), NULL, 0, NULL, NULL), 0);
    assert_int_equal(l.count, 0);
    pathgate_fs_list_dispose(&l);
}

static void test_write_fault_leaves_original(void **state)
{
    fx *f = *state;
    pathgate_error err;
    const pathgate_fs_hook_point points[] = {PATHGATE_FS_HOOK_TEMP_CREATED,
                                             PATHGATE_FS_HOOK_BEFORE_RENAME};
    for (size_t i = 0; i < 2; i++) {
        hook_ctx h = {points[i], 0, NULL};
        pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
        t.hook = test_hook;
        t.hook_ctx = &h;
        const pathgate_fs_options *o = &t.options;
        assert_int_equal(
            pathgate_fs_write(NULL, f->r, PG_S("root:repo/crlf.txt"), PG_S("NEW"), o, &err),
            PATHGATE_EIO);
        assert_string_equal(err.message, "I/O error on 'root:repo/crlf.txt'");
        size_t len;
        char *c = fx_get(f->repo, "crlf.txt", &len);
        assert_int_equal(len, 17);
        assert_memory_equal(c, "one\r\ntwo\r\nthree\r\n", 17);
        free(c);
        assert_int_equal(pathgate_fs_edit(NULL, NULL, f->r, PG_S("root:repo/crlf.txt"),
                                          PG_EDIT(PG_S("two"), PG_S("2"), 0), o, &err),
                         PATHGATE_EIO);
        c = fx_get(f->repo, "crlf.txt", &len);
        assert_memory_equal(c, "one\r\ntwo\r\nthree\r\n", 17);
        free(c);
        /* a new file is not created either */
        assert_int_equal(
            pathgate_fs_write(NULL, f->r, PG_S("root:repo/brand_new"), PG_S("x"), o, &err),
            PATHGATE_EIO);
        assert_false(fx_exists(f->repo, "brand_new"));
        no_temp_files(f);
    }
    /* the rename itself fails: the target became a non-empty directory */
    char target[1024];
    fx_path(target, sizeof target, f->repo, "nofinal.txt");
    hook_ctx h = {0, 0, target};
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    t.hook = test_hook;
    t.hook_ctx = &h;
    const pathgate_fs_options *o = &t.options;
    assert_int_equal(
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/nofinal.txt"), PG_S("NEW"), o, &err),
        PATHGATE_EISDIR);
    char *c = fx_get(f->repo, "nofinal.txt.moved", NULL);
    assert_string_equal(c, "x\ny");
    free(c);
    assert_true(fx_exists(f->repo, "nofinal.txt/keep"));
    no_temp_files(f);
}

/* ---------------------------------------------------------------- edit */

static void test_edit(void **state)
{
    fx *f = *state;
    pathgate_error err;
    pathgate_buf path = PATHGATE_BUF_INIT;
    size_t n = 0;
    assert_int_equal(pathgate_fs_edit(&path, &n, f->r, PG_S("root:repo/a.txt"),
                                      PG_EDIT(PG_S("beta"), PG_S("BETA"), 0), NULL, &err),
                     0);
    pg_assert_buf(&path, "root:repo/a.txt");
    assert_int_equal(n, 1);
    char *c = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(c, "alpha\nBETA\ngamma\n");
    free(c);
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/a.txt"),
                                      PG_EDIT(PG_S("a"), PG_S("4"), 0), NULL, &err),
                     PATHGATE_EAMBIGUOUS);
    assert_string_equal(err.message, "String 'a' appears 4 times in file.");
    assert_string_equal(pathgate_errname(PATHGATE_EAMBIGUOUS), "edit_ambiguous");
    assert_int_equal(n, 0);
    /* a dry run counts and checks, and writes nothing (not even on a
     * read-only base) */
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/a.txt"),
                                      PG_EDIT(PG_S("a"), PG_S("4"), 1), PG_DRY_RUN, &err),
                     0);
    assert_int_equal(n, 4);
    c = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(c, "alpha\nBETA\ngamma\n");
    free(c);
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:ro/f.txt"),
                                      PG_EDIT(PG_S("read"), PG_S("b"), 0), PG_DRY_RUN, &err),
                     0);
    assert_int_equal(n, 1);
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/a.txt"), NULL, NULL, &err),
                     PATHGATE_EINVAL);
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/a.txt"),
                                      PG_EDIT(PG_S("a"), PG_S("4"), 1), NULL, &err),
                     0);
    assert_int_equal(n, 4);
    c = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(c, "4lph4\nBETA\ng4mm4\n");
    free(c);
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/a.txt"),
                                      PG_EDIT(PG_S("zeta"), PG_S("x"), 0), NULL, &err),
                     PATHGATE_EEDIT);
    assert_string_equal(err.message, "String not found in file: 'zeta'");
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/a.txt"),
                                      PG_EDIT("", 0, PG_S("x"), 0), NULL, &err),
                     PATHGATE_EEDIT);
    assert_string_equal(err.message, "old_string must not be empty");
    /* CRLF: what read showed ("\n") edits and keeps CRLF */
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/crlf.txt"),
                                      PG_EDIT(PG_S("one\ntwo"), PG_S("1\n2\n2b"), 0), NULL, &err),
                     0);
    c = fx_get(f->repo, "crlf.txt", NULL);
    assert_string_equal(c, "1\r\n2\r\n2b\r\nthree\r\n");
    free(c);
    /* errors of the operand */
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/missing"),
                                      PG_EDIT(PG_S("a"), PG_S("b"), 0), NULL, &err),
                     PATHGATE_ENOTFOUND);
    assert_string_equal(err.message, "File 'root:repo/missing' not found");
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/dir"),
                                      PG_EDIT(PG_S("a"), PG_S("b"), 0), NULL, &err),
                     PATHGATE_EISDIR);
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:ro/f.txt"),
                                      PG_EDIT(PG_S("read"), PG_S("b"), 0), NULL, &err),
                     PATHGATE_EACCES);
    c = fx_get(f->outside, "secret.txt", NULL);
    assert_string_equal(c, "SECRET needle\n");
    free(c);
    c = fx_get(f->ro, "f.txt", NULL);
    assert_string_equal(c, "read only\n");
    free(c);
}

/* -------------------------------------------------------------- delete */

static void test_delete(void **state)
{
    fx *f = *state;
    pathgate_error err;
    pathgate_buf path = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_fs_delete(&path, f->r, PG_S("root:repo/a.txt"), NULL, &err), 0);
    pg_assert_buf(&path, "root:repo/a.txt");
    assert_false(fx_exists(f->repo, "a.txt"));
    assert_int_equal(pathgate_fs_delete(NULL, f->r, PG_S("root:repo/a.txt"), NULL, &err),
                     PATHGATE_ENOTFOUND);
    assert_string_equal(err.message, "File 'root:repo/a.txt' not found");
    /* a directory tree */
    assert_int_equal(pathgate_fs_delete(NULL, f->r, PG_S("root:repo/dir"), NULL, &err), 0);
    assert_false(fx_exists(f->repo, "dir"));
    /* never the base, never read-only */
    assert_int_equal(pathgate_fs_delete(NULL, f->r, PG_S("root:repo"), NULL, &err),
                     PATHGATE_EACCES);
    assert_string_equal(err.message, "Permission denied: 'root:repo'");
    assert_int_equal(pathgate_fs_delete(NULL, f->r, PG_S("root:ro/f.txt"), NULL, &err),
                     PATHGATE_EACCES);
    assert_true(fx_exists(f->ro, "f.txt"));
    assert_int_equal(
        pathgate_fs_delete(NULL, f->r, PG_S("root:repo/../outside/secret.txt"), NULL, &err),
        PATHGATE_EINVALIDPATH);
    assert_true(fx_exists(f->outside, "secret.txt"));
}

/* A link goes, its target stays; an outward link is refused; a link in a
 * tree is removed, not followed. */
static void test_delete_links(void **state)
{
    PG_SKIP_ON_WINDOWS(WINE_LINKS);
    fx *f = *state;
    pathgate_error err;
    assert_int_equal(pathgate_fs_delete(NULL, f->r, PG_S("root:repo/link_dir"), NULL, &err), 0);
    assert_false(fx_exists(f->repo, "link_dir"));
    assert_true(fx_exists(f->repo, "dir/x.py"));
    assert_int_equal(pathgate_fs_delete(NULL, f->r, PG_S("root:repo/link_out_dir"), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_true(fx_exists(f->repo, "link_out_dir"));
    assert_int_equal(pathgate_fs_delete(NULL, f->r, PG_S("root:repo/dangling_in"), NULL, &err), 0);
    assert_false(fx_exists(f->repo, "dangling_in"));
    fx_link(f->repo, "dir/sub/out", "../../../outside");
    assert_int_equal(pathgate_fs_delete(NULL, f->r, PG_S("root:repo/dir"), NULL, &err), 0);
    assert_false(fx_exists(f->repo, "dir"));
    assert_true(fx_exists(f->outside, "secret.txt"));
}

/* ------------------------------------------------------ upload/download */

static void test_upload_download(void **state)
{
    fx *f = *state;
    pathgate_error err;
    const pathgate_fs_item up[] = {
        {PG_S("root:repo/up/one.bin"), "\0\1\2", 3},
        {PG_S("root:ro/nope"), "x", 1},
        {PG_S("root:repo/dir"), "x", 1},
        {PG_S("root:repo/../outside/newfile"), "x", 1},
        {PG_S("root:repo/a.txt"), "new a", 5},
        {NULL, 0, "x", 1},
    };
    int codes[6];
    assert_int_equal(pathgate_fs_upload(codes, f->r, up, 6, NULL, &err), 0);
    assert_int_equal(codes[0], 0);
    assert_int_equal(codes[1], PATHGATE_EACCES);
    assert_int_equal(codes[2], PATHGATE_EISDIR);
    assert_int_equal(codes[3], PATHGATE_EINVALIDPATH);
    assert_int_equal(codes[4], 0);
    assert_int_equal(codes[5], PATHGATE_EINVALIDPATH);
    assert_string_equal(pathgate_fs_operation_error(codes[1]), "permission_denied");
    assert_string_equal(pathgate_fs_operation_error(codes[2]), "is_directory");
    assert_string_equal(pathgate_fs_operation_error(codes[3]), "invalid_path");
    assert_false(fx_exists(f->outside, "newfile"));

    const pathgate_fs_item down[] = {
        {PG_S("root:repo/up/one.bin"), NULL, 0}, {PG_S("root:repo/missing"), NULL, 0},
        {PG_S("root:repo/dir"), NULL, 0},        {PG_S("root:repo/../outside/secret.txt"), NULL, 0},
        {PG_S("root:repo/a.txt"), NULL, 0},
    };
    pathgate_fs_blobs b = PATHGATE_FS_BLOBS_INIT;
    assert_int_equal(pathgate_fs_download(&b, f->r, down, 5, NULL, &err), 0);
    assert_int_equal(b.count, 5);
    assert_int_equal(b.items[0].code, 0);
    assert_int_equal(b.items[0].size, 3);
    assert_memory_equal(b.items[0].data, "\0\1\2", 3);
    assert_int_equal(b.items[1].code, PATHGATE_ENOTFOUND);
    assert_string_equal(pathgate_fs_operation_error(b.items[1].code), "file_not_found");
    assert_null(b.items[1].data);
    assert_int_equal(b.items[2].code, PATHGATE_EISDIR);
    assert_int_equal(b.items[3].code, PATHGATE_EINVALIDPATH);
    assert_null(b.items[3].data);
    assert_int_equal(b.items[4].code, 0);
    assert_memory_equal(b.items[4].data, "new a", 5);
    pathgate_fs_blobs_dispose(&b);
    pathgate_fs_blobs_dispose(NULL);
    assert_int_equal(pathgate_fs_download(&b, f->r, NULL, 0, NULL, &err), 0);
    assert_int_equal(b.count, 0);
    pathgate_fs_blobs_dispose(&b);
}

/* read_bytes: a whole file as it is, refused as read refuses */
static void test_read_bytes(void **state)
{
    fx *f = *state;
    pathgate_error err;
    pathgate_buf b = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_fs_read_bytes(&b, f->r, PG_S("root:repo/bin.dat"), NULL, &err), 0);
    assert_int_equal(b.len, 3); /* not UTF-8 and holding NUL: the bytes, no base64 */
    assert_memory_equal(b.ptr, "\0\1\xff", 3);
    assert_int_equal(pathgate_fs_read_bytes(&b, f->r, PG_S("root:repo/crlf.txt"), NULL, &err), 0);
    assert_string_equal(b.ptr, "one\r\ntwo\r\nthree\r\n"); /* terminators kept */
    pathgate_fs_options small = PATHGATE_FS_OPTIONS_INIT;
    small.max_file_size = 4;
    assert_int_equal(pathgate_fs_read_bytes(&b, f->r, PG_S("root:repo/a.txt"), &small, &err),
                     PATHGATE_ETOOLARGE);
    assert_null(b.ptr);
    assert_int_equal(pathgate_fs_read_bytes(&b, f->r, PG_S("root:repo/missing"), NULL, &err),
                     PATHGATE_ENOTFOUND);
    assert_string_equal(err.message, "File 'root:repo/missing' not found");
    assert_int_equal(pathgate_fs_read_bytes(&b, f->r, PG_S("root:repo/dir"), NULL, &err),
                     PATHGATE_EISDIR);
    assert_int_equal(pathgate_fs_read_bytes(NULL, f->r, PG_S("root:repo/a.txt"), NULL, &err),
                     PATHGATE_EINVAL);
    pathgate_buf_dispose(&b);
}

/* ---------------------------------------------- failing allocations */

typedef struct alloc_case {
    fx *f;
    int op;
    size_t ls_count; /* what ls of the root lists with no failure */
} alloc_case;

static int any_enomem(const int *codes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (codes[i] == PATHGATE_ENOMEM)
            return 1;
    return 0;
}

static int op_body(const pathgate_allocator *alloc, void *arg)
{
    alloc_case *c = arg;
    int rc;
    pathgate_resolver *r = fx_resolver(c->f, alloc, &rc);
    if (!r)
        return rc;
    pathgate_error err;
    pathgate_buf path = PATHGATE_BUF_INIT;
    switch (c->op) {
    case 0: {
        pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
        rc = pathgate_fs_ls(&l, r, PG_S("root:repo"), NULL, &err);
        if (rc == 0)
            assert_int_equal(l.count, c->ls_count);
        pathgate_fs_list_dispose(&l);
        break;
    }
    case 1: {
        pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
        rc = pathgate_fs_read(&rr, r, PG_S("root:repo/big.txt"), 10, 20, NULL, &err);
        pathgate_fs_read_result_dispose(&rr);
        if (rc == 0)
            rc = pathgate_fs_read(&rr, r, PG_S("root:repo/bin.dat"), 0, 20, NULL, &err);
        pathgate_fs_read_result_dispose(&rr);
        if (rc == 0) {
            /* a non-canonical form goes through the resolver and its registry */
            pathgate_session *s = NULL;
            if ((rc = pathgate_session_new(&s, r, NULL, 0, NULL)) == 0) {
                pathgate_fs_options o = PATHGATE_FS_OPTIONS_INIT;
                o.session = s;
                rc = pathgate_fs_read(&rr, NULL, PG_S("dir/x.py"), 0, 20, &o, &err);
                pathgate_fs_read_result_dispose(&rr);
            }
            pathgate_session_free(s);
        }
        break;
    }
    case 2:
        rc = pathgate_fs_write(&path, r, PG_S("root:repo/w/x/y.txt"), PG_S("data"), NULL, &err);
        break;
    case 3:
        FX_PUT(c->f->repo, "crlf.txt", "one\r\ntwo\r\nthree\r\n"); /* fresh each run */
        rc = pathgate_fs_edit(&path, NULL, r, PG_S("root:repo/crlf.txt"),
                              PG_EDIT(PG_S("one\ntwo"), PG_S("1\n2"), 0), NULL, &err);
        break;
    case 4: {
        /* a tree to delete, made fresh each run */
        char p[1024];
        fx_path(p, sizeof p, c->f->repo, "gone");
        pg_mkdir(p);
        fx_path(p, sizeof p, c->f->repo, "gone/sub");
        pg_mkdir(p);
        FX_PUT(c->f->repo, "gone/sub/f", "x");
        rc = pathgate_fs_delete(&path, r, PG_S("root:repo/gone"), NULL, &err);
        break;
    }
    case 5: {
        const pathgate_fs_item up[] = {{PG_S("root:repo/u1"), "a", 1},
                                       {PG_S("root:repo/u/2"), "b", 1}};
        int codes[2];
        rc = pathgate_fs_upload(codes, r, up, 2, NULL, &err);
        /* the core says ENOMEM itself: no item's code ever carries it */
        assert_int_equal(rc == PATHGATE_ENOMEM, any_enomem(codes, 2));
        if (rc == 0)
            assert_true(codes[0] == 0 && codes[1] == 0);
        break;
    }
    default: {
        const pathgate_fs_item down[] = {{PG_S("root:repo/a.txt"), NULL, 0},
                                         {PG_S("root:repo/missing"), NULL, 0}};
        pathgate_fs_blobs b = PATHGATE_FS_BLOBS_INIT;
        rc = pathgate_fs_download(&b, r, down, 2, NULL, &err);
        if (rc == 0) {
            /* the core says ENOMEM itself: no item's code ever carries it */
            int codes[2] = {b.items[0].code, b.items[1].code};
            assert_false(any_enomem(codes, 2));
            assert_true(codes[0] == 0 && codes[1] == PATHGATE_ENOTFOUND);
        } else {
            assert_null(b.items); /* a failed call keeps nothing */
        }
        pathgate_fs_blobs_dispose(&b);
        break;
    }
    }
    pathgate_buf_dispose(&path);
    pathgate_resolver_free(r);
    return rc;
}

static void test_failing_allocations(void **state)
{
    fx *f = *state;
    /* the full listing (on Linux the 15 entries test_ls_lists_sorted_with_metadata
     * checks; under wine what it shows of the links) */
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo"), NULL, NULL), 0);
    size_t ls_count = l.count;
    pathgate_fs_list_dispose(&l);
#ifndef _WIN32
    assert_int_equal(ls_count, 15);
#endif
    for (int op = 0; op <= 6; op++) {
        alloc_case c = {f, op, ls_count};
        pg_for_each_failing_alloc(op_body, &c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TESTS(test_ls_lists_sorted_with_metadata),
        FX_TESTS(test_ls_subdirectories),
        FX_TESTS(test_ls_no_metadata),
        FX_TESTS(test_ls_errors),
        FX_TESTS(test_session_relative_input),
        FX_TESTS(test_read_windows),
        FX_TESTS(test_read_special_content),
        FX_TESTS(test_read_errors),
        FX_TESTS(test_read_links_never_reach_outside),
        FX_TESTS(test_fifo_refused),
        FX_TESTS(test_write_creates_and_replaces),
        FX_TESTS(test_write_keeps_mode_bits),
        FX_TESTS(test_write_symlinks_never_reach_outside),
        FX_TESTS(test_write_errors),
        FX_TESTS(test_write_refused_by_directory_mode),
        FX_TESTS(test_write_fault_leaves_original),
        FX_TESTS(test_edit),
        FX_TESTS(test_delete),
        FX_TESTS(test_delete_links),
        FX_TESTS(test_upload_download),
        FX_TESTS(test_read_bytes),
        FX_TESTS(test_failing_allocations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
