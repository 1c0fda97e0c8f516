/* test_fs_search.c - grep and glob over a real tree, through openat2 and
 * through the fallback walk: order, line numbers, CRLF, binary skipping,
 * the include glob, max_count and truncation, containment (outward
 * symlinks never listed or searched, FIFOs never opened blocking), the
 * depth limit, errors, and a failing allocation at every point. */
#include "fs_fixture.h"

#ifdef _WIN32
/* wine shows a Unix symlink to a file as that file (docs/windows.md,
 * `wine-file-link`), so the fixture's two links to the outside file
 * (link_out, abs_out) would be searched as that file: a tree Windows could
 * not hold. They are removed on Windows after the fixture is made, so the
 * search answers there are the ones asserted on Linux; their own cases
 * (never searched, refused as a directory) run on Linux. */
static int search_setup(void **state, unsigned int flags)
{
    fx_setup(state, flags);
    fx *f = *state;
    char repo[1024], script[2200];
    assert_non_null(pg_unix_path(f->repo, repo, sizeof repo));
    snprintf(script, sizeof script, "rm -f '%s/link_out' '%s/abs_out'", repo, repo);
    assert_int_equal(pg_host_sh(script, NULL, 0), 0);
    assert_false(fx_exists(f->repo, "link_out"));
    assert_false(fx_exists(f->repo, "abs_out"));
    return 0;
}
static int search_setup_openat2(void **state)
{
    return search_setup(state, 0);
}
static int search_setup_fallback(void **state)
{
    return search_setup(state, PATHGATE_RESOLVER_FORCE_FALLBACK);
}
#undef FX_TESTS
#define FX_TESTS(fn)                                                                               \
    cmocka_unit_test_setup_teardown(fn, search_setup_openat2, fx_teardown),                        \
        cmocka_unit_test_setup_teardown(fn, search_setup_fallback, fx_teardown)
#endif

static void grep_ok(fx *f, pathgate_fs_matches *m, const char *pattern, const char *addr,
                    const char *glob, size_t max)
{
    pathgate_error err;
    int rc = pathgate_fs_grep(m, f->r, PG_S(pattern), addr, addr ? strlen(addr) : 0,
                              PG_SEARCH(NULL, glob, glob ? strlen(glob) : 0, max), &err);
    if (rc != 0)
        fail_msg("grep %s: %s", pattern, err.message);
}

static void match_is(const pathgate_fs_match *m, const char *path, uint64_t line, const char *text)
{
    if (strcmp(m->path, path) != 0 || m->line != line || strcmp(m->text, text) != 0)
        fail_msg("match %s:%llu:%s, expected %s:%llu:%s", m->path, (unsigned long long)m->line,
                 m->text, path, (unsigned long long)line, text);
    assert_int_equal(m->path_len, strlen(path));
    assert_int_equal(m->text_len, strlen(text));
}

static void test_grep_finds_in_path_order(void **state)
{
    fx *f = *state;
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    grep_ok(f, &m, "needle", NULL, NULL, PATHGATE_FS_NO_LIMIT);
    /* hidden files are searched without a glob; link_out, abs_out and
     * link_out_dir lead out and are not; link_in/link_dir are not matches */
    assert_int_equal(m.count, 4);
    match_is(&m.items[0], "root:repo/.dotfile", 1, "dot needle");
    match_is(&m.items[1], "root:repo/.hidden/secret.txt", 1, "hidden needle");
    match_is(&m.items[2], "root:repo/dir/sub/deep.txt", 1, "deep needle");
    match_is(&m.items[3], "root:repo/dir/x.py", 1, "print('needle')");
    assert_false(m.truncated);
    for (size_t i = 0; i < m.count; i++)
        assert_null(strstr(m.items[i].text, "SECRET"));
    pathgate_fs_matches_dispose(&m);
    pathgate_fs_matches_dispose(&m);
    pathgate_fs_matches_dispose(NULL);

    /* line numbers, CRLF stripped, a final line without newline */
    grep_ok(f, &m, "o", "root:repo/crlf.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 2);
    match_is(&m.items[0], "root:repo/crlf.txt", 1, "one");
    match_is(&m.items[1], "root:repo/crlf.txt", 2, "two");
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "y", "root:repo/nofinal.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    match_is(&m.items[0], "root:repo/nofinal.txt", 2, "y");
    pathgate_fs_matches_dispose(&m);

    /* deep into a 10,000-line file; one match per line */
    grep_ok(f, &m, "line 9999", "root:repo", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    match_is(&m.items[0], "root:repo/big.txt", 9999, "line 9999");
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "0", "root:repo/big.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 2620); /* of 1..10000, those holding a '0' */
    match_is(&m.items[0], "root:repo/big.txt", 10, "line 10");
    match_is(&m.items[m.count - 1], "root:repo/big.txt", 10000, "line 10000");
    pathgate_fs_matches_dispose(&m);

    /* binary files are skipped; non-UTF-8 text lines come back repaired */
    grep_ok(f, &m, "\x01", "root:repo", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 0);
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "caf", "root:repo", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    match_is(&m.items[0], "root:repo/latin1.txt", 1, "caf\xEF\xBF\xBD");
    pathgate_fs_matches_dispose(&m);

    /* case-sensitive and literal: regex characters mean themselves */
    grep_ok(f, &m, "NEEDLE", NULL, NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 0);
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "('n", NULL, NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "n.edle", NULL, NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 0);
    pathgate_fs_matches_dispose(&m);

    /* an empty pattern matches every line */
    grep_ok(f, &m, "", "root:repo/a.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 3);
    match_is(&m.items[2], "root:repo/a.txt", 3, "gamma");
    pathgate_fs_matches_dispose(&m);

    /* a mod, names with a space and non-ASCII */
    grep_ok(f, &m, "text", "mod:My Mod", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    match_is(&m.items[0], "mod:My Mod/common/t.txt", 1, "mod text");
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "d", "root:repo", "*.txt", PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 3);
    match_is(&m.items[0], "root:repo/dir/sub/deep.txt", 1, "deep needle");
    match_is(&m.items[1], "root:repo/name with space.txt", 1, "spaced");
    match_is(&m.items[2],
             "root:repo/\xC3\xBCn\xC3\xAF"
             "c\xC3\xB6"
             "d\xC3\xA9.txt",
             1, "unicode");
    pathgate_fs_matches_dispose(&m);
}

static void test_grep_glob_and_max_count(void **state)
{
    fx *f = *state;
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    grep_ok(f, &m, "needle", NULL, "*.py", PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    assert_string_equal(m.items[0].path, "root:repo/dir/x.py");
    pathgate_fs_matches_dispose(&m);
    /* with a glob, leading dots need an explicit dot */
    grep_ok(f, &m, "needle", NULL, "*.txt", PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    assert_string_equal(m.items[0].path, "root:repo/dir/sub/deep.txt");
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "needle", NULL, ".hidden/*", PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    pathgate_fs_matches_dispose(&m);
    /* a glob with '/' is relative to the searched directory */
    grep_ok(f, &m, "needle", "root:repo/dir", "sub/*.txt", PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    assert_string_equal(m.items[0].path, "root:repo/dir/sub/deep.txt");
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "needle", NULL, "{*.py,.dot*}", PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 2);
    pathgate_fs_matches_dispose(&m);

    /* max_count is a total cap; exactly the cap is complete */
    grep_ok(f, &m, "needle", NULL, NULL, 2);
    assert_int_equal(m.count, 2);
    assert_true(m.truncated);
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "needle", NULL, NULL, 4);
    assert_int_equal(m.count, 4);
    assert_false(m.truncated);
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "needle", NULL, NULL, 0);
    assert_int_equal(m.count, 0);
    assert_true(m.truncated);
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "line", "root:repo/big.txt", NULL, 1500);
    assert_int_equal(m.count, 1500);
    assert_true(m.truncated);
    assert_int_equal(m.items[1499].line, 1500);
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "nothing matches this", NULL, NULL, 0);
    assert_false(m.truncated);
    pathgate_fs_matches_dispose(&m);
}

static void test_grep_long_lines_and_chunks(void **state)
{
    fx *f = *state;
    /* a 600 KiB line (longer than the read buffer), matches across chunk
     * borders, CRLF at a border */
    size_t n = 600 * 1024;
    char *big = malloc(n + 64);
    memset(big, 'a', n);
    memcpy(big + n - 6, "NEEDLE", 6);
    memcpy(big + n, "\r\nsecond NEEDLE\n", 16);
    fx_put(f->repo, "long.txt", big, n + 16);
    free(big);
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    grep_ok(f, &m, "NEEDLE", "root:repo/long.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 2);
    assert_int_equal(m.items[0].line, 1);
    /* a line longer than the 256 KiB block: its text is the piece that
     * matched (memory stays one block per thread) */
    assert_true(m.items[0].text_len > 6 && m.items[0].text_len <= 256 * 1024);
    assert_memory_equal(m.items[0].text + m.items[0].text_len - 6, "NEEDLE", 6);
    assert_int_equal(m.items[1].line, 2);
    assert_string_equal(m.items[1].text, "second NEEDLE");
    pathgate_fs_matches_dispose(&m);

    /* 200,000 short lines: line numbers stay right across chunks */
    size_t cap = 200000 * 8, k = 0;
    char *many = malloc(cap);
    for (int i = 1; i <= 200000; i++)
        k +=
            (size_t)snprintf(many + k, cap - k, "%c%05d\n", i % 50000 == 0 ? 'X' : 'l', i % 100000);
    fx_put(f->repo, "many.txt", many, k);
    free(many);
    grep_ok(f, &m, "X", "root:repo/many.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 4);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(m.items[i].line, 50000 * (i + 1));
    pathgate_fs_matches_dispose(&m);
}

static void test_grep_literal_finder_edges(void **state)
{
    fx *f = *state;
    /* the finder's rare byte is everywhere here: it falls back to memmem */
    char buf[5000];
    memset(buf, 'Q', sizeof buf);
    memcpy(buf + 4000, "QZ\nQ", 4);
    memcpy(buf + sizeof buf - 3, "\nQZ", 3);
    fx_put(f->repo, "qs.txt", buf, sizeof buf);
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    grep_ok(f, &m, "QZ", "root:repo/qs.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 2);
    assert_int_equal(m.items[0].line, 1);
    assert_int_equal(m.items[0].text_len, 4002);
    assert_int_equal(m.items[1].line, 3);
    assert_string_equal(m.items[1].text, "QZ");
    pathgate_fs_matches_dispose(&m);
    /* at the very start and end of a file, a needle as long as the line,
     * one longer than the file, a near miss at the end */
    FX_PUT(f->repo, "edges.txt", "abc\nxabcx\nab");
    grep_ok(f, &m, "abc", "root:repo/edges.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 2);
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "ab", "root:repo/edges.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 3);
    assert_string_equal(m.items[2].text, "ab");
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "abcx\x7f", "root:repo/edges.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 0);
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m,
            "abc\xC3\xA9"
            "abcabcabcabcabcabc",
            "root:repo/edges.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 0);
    pathgate_fs_matches_dispose(&m);
    /* non-ASCII needles */
    FX_PUT(f->repo, "u.txt", "caf\xC3\xA9 cr\xC3\xA8me\n");
    grep_ok(f, &m, "\xC3\xA8me", "root:repo/u.txt", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    pathgate_fs_matches_dispose(&m);
}

/* Issue 34: a UTF-8 byte-order mark (every CK3 localisation file starts
 * with one) does not stop `^` from matching the first line; no match's
 * text holds it; line numbers are those of the file. */
static void test_grep_skips_a_utf8_bom(void **state)
{
    fx *f = *state;
    fx_mkdir(f->repo, "loc");
    FX_PUT(f->repo, "loc/l_english.yml",
           "\xEF\xBB\xBFl_english:\n key:0 \"x\"\nl_english: again\n");
    FX_PUT(f->repo, "loc/bom_only.yml", "\xEF\xBB\xBF");
    FX_PUT(f->repo, "loc/mid.yml", "a\n\xEF\xBB\xBFl_english:\n");
    pathgate_fs_search_options re = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    re.flags = PATHGATE_FS_SEARCH_REGEX;
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("^l_english:"), PG_S("root:repo/loc"),
                                      PG_SEARCH(&re, NULL, 0, PATHGATE_FS_NO_LIMIT), &err),
                     0);
    /* only a BOM at the very start of a file is skipped */
    assert_int_equal(m.count, 2);
    match_is(&m.items[0], "root:repo/loc/l_english.yml", 1, "l_english:");
    match_is(&m.items[1], "root:repo/loc/l_english.yml", 3, "l_english: again");
    pathgate_fs_matches_dispose(&m);
    /* literal mode: the text holds no BOM */
    grep_ok(f, &m, "l_english:", "root:repo/loc/l_english.yml", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 2);
    match_is(&m.items[0], "root:repo/loc/l_english.yml", 1, "l_english:");
    pathgate_fs_matches_dispose(&m);
    grep_ok(f, &m, "key", "root:repo/loc/l_english.yml", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 1);
    assert_int_equal(m.items[0].line, 2);
    pathgate_fs_matches_dispose(&m);
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("^"), PG_S("root:repo/loc/bom_only.yml"),
                                      PG_SEARCH(&re, NULL, 0, PATHGATE_FS_NO_LIMIT), &err),
                     0);
    assert_int_equal(m.count, 0);
    pathgate_fs_matches_dispose(&m);
}

/* Issue 34: all_bases searches every root and mod (a game and its mods
 * together); without it an omitted path stays the first base. */
static void test_grep_all_bases(void **state)
{
    fx *f = *state;
    pathgate_fs_search_options all = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    all.flags = PATHGATE_FS_SEARCH_ALL_BASES;
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("text"), NULL, 0,
                                      PG_SEARCH(&all, NULL, 0, PATHGATE_FS_NO_LIMIT), &err),
                     0);
    assert_int_equal(m.count, 1);
    match_is(&m.items[0], "mod:My Mod/common/t.txt", 1, "mod text");
    pathgate_fs_matches_dispose(&m);
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("read only"), NULL, 0,
                                      PG_SEARCH(&all, NULL, 0, PATHGATE_FS_NO_LIMIT), &err),
                     0);
    assert_int_equal(m.count, 1);
    assert_string_equal(m.items[0].path, "root:ro/f.txt");
    pathgate_fs_matches_dispose(&m);
    /* without the flag: the first base only */
    grep_ok(f, &m, "text", NULL, NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 0);
    pathgate_fs_matches_dispose(&m);
    /* max_count counts over every base, in base order */
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("e"), NULL, 0,
                                      PG_SEARCH(&all, NULL, 0, PATHGATE_FS_NO_LIMIT), &err),
                     0);
    size_t every = m.count;
    assert_true(every > 3);
    assert_string_equal(m.items[every - 1].path, "mod:My Mod/common/t.txt");
    pathgate_fs_matches_dispose(&m);
    assert_int_equal(
        pathgate_fs_grep(&m, f->r, PG_S("e"), NULL, 0, PG_SEARCH(&all, NULL, 0, 3), &err), 0);
    assert_int_equal(m.count, 3);
    assert_true(m.truncated);
    pathgate_fs_matches_dispose(&m);
    assert_int_equal(
        pathgate_fs_grep(&m, f->r, PG_S("e"), NULL, 0, PG_SEARCH(&all, NULL, 0, every), &err), 0);
    assert_int_equal(m.count, every);
    assert_false(m.truncated);
    pathgate_fs_matches_dispose(&m);
    /* a path with the flag is misuse */
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("e"), PG_S("root:repo"),
                                      PG_SEARCH(&all, NULL, 0, PATHGATE_FS_NO_LIMIT), &err),
                     PATHGATE_EINVAL);
}

static void test_grep_errors(void **state)
{
    fx *f = *state;
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("a\nb"), NULL, 0, NULL, &err),
                     PATHGATE_EINVAL);
    assert_string_equal(err.message, "grep pattern must not contain a line break");
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("x"), PG_S("root:repo/nope"), NULL, &err),
                     PATHGATE_ENOTFOUND);
    assert_string_equal(err.message, "Directory 'root:repo/nope' not found");
    assert_int_equal(
        pathgate_fs_grep(&m, f->r, PG_S("x"), PG_S("root:repo/link_out_dir"), NULL, &err),
        PATHGATE_EINVALIDPATH);
#ifdef _WIN32
    print_message("SKIPPED: %s: link_out, fifo (Windows: no link to a file under wine, no "
                  "FIFOs)\n",
                  __func__);
#else
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("x"), PG_S("root:repo/link_out"), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("x"), PG_S("root:repo/fifo"), NULL, &err),
                     PATHGATE_ENOTREG);
    assert_string_equal(err.message, "'root:repo/fifo' is not a regular file");
#endif
    assert_int_equal(
        pathgate_fs_grep(&m, f->r, PG_S("x"), NULL, 0,
                         PG_SEARCH(NULL, PG_S("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"),
                                   PATHGATE_FS_NO_LIMIT),
                         &err),
        PATHGATE_EINVAL);
    assert_null(m.items);
    /* options of a version this library does not know are refused, not
     * misread: the search options', and the fs options' inside them */
    pathgate_fs_search_options old = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    old.version = PATHGATE_FS_SEARCH_OPTIONS_VERSION + 1;
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("x"), NULL, 0, &old, &err), PATHGATE_EINVAL);
    assert_string_equal(err.message, "unsupported options version");
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("*"), NULL, 0, &old, &err), PATHGATE_EINVAL);
    pathgate_fs_iter *it = NULL;
    assert_int_equal(pathgate_fs_grep_iter_new(&it, f->r, PG_S("x"), NULL, 0, &old, &err),
                     PATHGATE_EINVAL);
    assert_null(it);
    old.version = PATHGATE_FS_SEARCH_OPTIONS_VERSION;
    old.fs.version = 2; /* the layout before grep's options moved out */
    assert_int_equal(pathgate_fs_grep(&m, f->r, PG_S("x"), NULL, 0, &old, &err), PATHGATE_EINVAL);
    assert_string_equal(err.message, "unsupported options version");
}

static void test_glob(void **state)
{
    fx *f = *state;
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("*.txt"), NULL, 0, NULL, &err), 0);
    const char *want[] = {"root:repo/a.txt",
                          "root:repo/big.txt",
                          "root:repo/blank.txt",
                          "root:repo/crlf.txt",
                          "root:repo/dir/sub/deep.txt",
                          "root:repo/empty.txt",
                          "root:repo/latin1.txt",
                          "root:repo/name with space.txt",
                          "root:repo/nofinal.txt",
                          "root:repo/\xC3\xBCn\xC3\xAF"
                          "c\xC3\xB6"
                          "d\xC3\xA9.txt"};
    for (size_t i = 0; i < l.count && i < 10; i++)
        if (strcmp(l.items[i].path, want[i]) != 0)
            fail_msg("glob %zu: %s, expected %s", i, l.items[i].path, want[i]);
    assert_int_equal(l.count, 10);
    assert_false(l.items[0].is_dir);
    assert_false(l.items[0].has_metadata); /* paths only by default */
    assert_int_equal(l.items[0].size, 0);
    assert_string_equal(l.items[0].modified_at, "");
    pathgate_fs_list_dispose(&l);
    pathgate_fs_search_options meta = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    meta.flags = PATHGATE_FS_SEARCH_METADATA;
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("*.txt"), NULL, 0, &meta, &err), 0);
    assert_int_equal(l.count, 10);
    assert_true(l.items[0].has_metadata);
    assert_int_equal(l.items[0].size, 17);
    assert_int_equal(strlen(l.items[0].modified_at), 32);
    assert_int_equal(l.items[1].size, 98894); /* big.txt */
    pathgate_fs_list_dispose(&l);

    /* ** crosses directories; regular files only; inside file links count */
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("**/*"), NULL, 0, NULL, &err), 0);
    for (size_t i = 0; i < l.count; i++) {
        const char *p = l.items[i].path;
        assert_null(strstr(p, "fifo"));
        assert_null(strstr(p, "out"));
        assert_null(strstr(p, "dangling"));
        assert_null(strstr(p, "link_dir")); /* directory links are not entered */
        assert_null(strstr(p, "/."));
        if (i)
            assert_true(strcmp(l.items[i - 1].path, p) < 0);
    }
    int has_link_in = 0;
    for (size_t i = 0; i < l.count; i++)
        has_link_in |= !strcmp(l.items[i].path, "root:repo/link_in");
    assert_true(has_link_in);
    assert_int_equal(l.count, 13);
    pathgate_fs_list_dispose(&l);

    /* dot-directories need an explicit dot */
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S(".hidden/*"), NULL, 0, NULL, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/.hidden/secret.txt");
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S(".*"), NULL, 0, NULL, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/.dotfile");
    pathgate_fs_list_dispose(&l);
    /* PATHGATE_FS_SEARCH_BASENAME (deepagents' rules): a bare pattern also
     * finds files under dot-directories; a leading '/' anchors */
    pathgate_fs_search_options base_opts = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    base_opts.flags = PATHGATE_FS_SEARCH_BASENAME;
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("secret.txt"), NULL, 0, NULL, &err), 0);
    assert_int_equal(l.count, 0); /* without the flag: ** never enters .hidden */
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("secret.txt"), NULL, 0, &base_opts, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/.hidden/secret.txt");
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("**/secret.txt"), NULL, 0, &base_opts, &err),
                     0);
    assert_int_equal(l.count, 0); /* ** still never enters a dot-directory */
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("/*.py"), NULL, 0, &base_opts, &err), 0);
    assert_int_equal(l.count, 0); /* x.py is in dir/, not at the top */
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("/*.py"), NULL, 0, NULL, &err), 0);
    assert_int_equal(l.count, 1); /* without the flag the '/' is ignored */
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("/a.txt"), NULL, 0, &base_opts, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/a.txt");
    pathgate_fs_list_dispose(&l);
    /* anchored patterns, braces, classes, a sub-root */
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("dir/*"), NULL, 0, NULL, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/dir/x.py");
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("{a,[bc]*}.{txt,dat}"), NULL, 0, NULL, &err),
                     0);
    assert_int_equal(l.count, 5); /* a.txt big.txt bin.dat blank.txt crlf.txt */
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("[!a-m]*.txt"), NULL, 0, NULL, &err), 0);
    assert_int_equal(l.count, 3); /* name with space, nofinal, \xC3\xBC... */
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("*"), PG_S("root:repo/dir"), NULL, &err), 0);
    assert_int_equal(l.count, 2);
    assert_string_equal(l.items[0].path, "root:repo/dir/sub/deep.txt");
    pathgate_fs_list_dispose(&l);
    assert_int_equal(
        pathgate_fs_glob(&l, f->r, PG_S("sub/?eep.txt"), PG_S("root:repo/dir"), NULL, &err), 0);
    assert_int_equal(l.count, 1);
    pathgate_fs_list_dispose(&l);
    /* no match is an empty list */
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("*.nothing"), NULL, 0, NULL, &err), 0);
    assert_int_equal(l.count, 0);
    pathgate_fs_list_dispose(&l);

    /* errors */
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("*"), PG_S("root:repo/a.txt"), NULL, &err),
                     PATHGATE_ENOTDIR);
    assert_string_equal(err.message, "'root:repo/a.txt' is not a directory");
    assert_int_equal(
        pathgate_fs_glob(&l, f->r, PG_S("*"), PG_S("root:repo/link_out_dir"), NULL, &err),
        PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("*"), PG_S("root:repo/nope"), NULL, &err),
                     PATHGATE_ENOTFOUND);
    assert_int_equal(pathgate_fs_glob(&l, f->r, "", 0, NULL, 0, NULL, &err), PATHGATE_EINVAL);
    assert_string_equal(err.message, "glob pattern is empty");
    assert_int_equal(pathgate_fs_glob(&l, f->r, NULL, 0, NULL, 0, NULL, &err), PATHGATE_EINVAL);
}

static void test_unaddressable_names_are_not_reported(void **state)
{
    fx *f = *state;
    PG_SKIP_ON_WINDOWS("Windows names are UTF-16 and hold neither `\\` nor control characters: "
                       "none of these names can be made there");
    /* names no canonical address can spell: not UTF-8, a backslash, a
     * control character */
    FX_PUT(f->repo, "dir/bad\xFF.txt", "needle\n");
    FX_PUT(f->repo, "dir/back\\slash.txt", "needle\n");
    FX_PUT(f->repo, "dir/tab\there.txt", "needle\n");
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("*.txt"), PG_S("root:repo/dir"), NULL, &err),
                     0);
    assert_int_equal(l.count, 1);
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo/dir"), NULL, &err), 0);
    assert_int_equal(l.count, 2);
    pathgate_fs_list_dispose(&l);
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    grep_ok(f, &m, "needle", "root:repo/dir", NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 2);
    pathgate_fs_matches_dispose(&m);
}

static void test_session_default_root(void **state)
{
    fx *f = *state;
    pathgate_session *s = NULL;
    assert_int_equal(pathgate_session_new(&s, f->r, NULL, 0, NULL), 0);
    pathgate_buf msg = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_session_push(&msg, s, PG_S("dir"), NULL), 0);
    pathgate_buf_dispose(&msg);
    pathgate_fs_search_options o = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    o.fs.session = s;
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_grep(&m, NULL, PG_S("needle"), NULL, 0, &o, &err), 0);
    assert_int_equal(m.count, 2); /* only below the cwd */
    pathgate_fs_matches_dispose(&m);
    assert_int_equal(pathgate_fs_grep(&m, NULL, PG_S("needle"), PG_S("sub"), &o, &err), 0);
    assert_int_equal(m.count, 1);
    pathgate_fs_matches_dispose(&m);
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    assert_int_equal(pathgate_fs_glob(&l, NULL, PG_S("*.py"), NULL, 0, &o, &err), 0);
    assert_int_equal(l.count, 1);
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_resolver_token_count(f->r), 0);
    pathgate_session_free(s);
}

static void test_walk_depth_limit(void **state)
{
    fx *f = *state;
    /* PATHGATE_FS_MAX_DEPTH + 4 nested one-letter directories */
    char rel[2048] = "deepest";
    fx_mkdir(f->repo, rel);
    size_t n = strlen(rel);
    for (int i = 0; i < PATHGATE_FS_MAX_DEPTH + 4; i++) {
        memcpy(rel + n, "/d", 3);
        n += 2;
        fx_mkdir(f->repo, rel);
    }
    memcpy(rel + n, "/bottom.txt", 12);
    FX_PUT(f->repo, rel, "needle at the bottom\n");
    FX_PUT(f->repo, "deepest/d/top.txt", "needle at the top\n");
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    assert_int_equal(
        pathgate_fs_glob(&l, f->r, PG_S("*.txt"), PG_S("root:repo/deepest"), NULL, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/deepest/d/top.txt");
    assert_true(l.truncated);
    pathgate_fs_list_dispose(&l);
}

static void test_walk_skips_unreadable_directories(void **state)
{
    fx *f = *state;
    PG_SKIP_ON_WINDOWS("no mode bits make a directory unreadable (chmod 000)");
    if (pg_privileged())
        skip(); /* root reads everything */
    char p[1024];
    fx_path(p, sizeof p, f->repo, "dir/sub");
    assert_int_equal(chmod(p, 0), 0);
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    grep_ok(f, &m, "needle", NULL, NULL, PATHGATE_FS_NO_LIMIT);
    assert_int_equal(m.count, 3);
    pathgate_fs_matches_dispose(&m);
    assert_int_equal(chmod(p, 0755), 0);
}

typedef struct search_case {
    fx *f;
    int op;
} search_case;

static int search_body(const pathgate_allocator *alloc, void *arg)
{
    search_case *c = arg;
    int rc;
    pathgate_resolver *r = fx_resolver(c->f, alloc, &rc);
    if (!r)
        return rc;
    if (c->op == 0) {
        pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
        rc = pathgate_fs_grep(&m, r, PG_S("e"), NULL, 0,
                              PG_SEARCH(NULL, PG_S("**/*.{txt,py}"), PATHGATE_FS_NO_LIMIT), NULL);
        if (rc == 0)
            assert_true(m.count > 10);
        pathgate_fs_matches_dispose(&m);
    } else {
        pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
        rc = pathgate_fs_glob(&l, r, PG_S("**/*.{txt,py}"), NULL, 0, NULL, NULL);
        if (rc == 0)
            assert_int_equal(l.count, 11);
        pathgate_fs_list_dispose(&l);
    }
    pathgate_resolver_free(r);
    return rc;
}

static void test_search_failing_allocations(void **state)
{
    fx *f = *state;
    for (int op = 0; op < 2; op++) {
        search_case c = {f, op};
        pg_for_each_failing_alloc(search_body, &c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TESTS(test_grep_finds_in_path_order),
        FX_TESTS(test_grep_glob_and_max_count),
        FX_TESTS(test_grep_long_lines_and_chunks),
        FX_TESTS(test_grep_literal_finder_edges),
        FX_TESTS(test_grep_skips_a_utf8_bom),
        FX_TESTS(test_grep_all_bases),
        FX_TESTS(test_grep_errors),
        FX_TESTS(test_glob),
        FX_TESTS(test_unaddressable_names_are_not_reported),
        FX_TESTS(test_session_default_root),
        FX_TESTS(test_walk_depth_limit),
        FX_TESTS(test_walk_skips_unreadable_directories),
        FX_TESTS(test_search_failing_allocations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
