/*
 * test_fs_patch.c - apply_patch (docs/patch.md): the shared cases of
 * tests/data/apply_patch (Codex's 23 scenarios, the cases of its unit tests,
 * pathgate's own), run through pathgate_fs_apply_patch with both
 * containment paths; the parser and seek_sequence directly; the rollback
 * at every staging and commit step; every allocation failing; misuse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "case_tree.h"
#include "fs_patch_internal.h"

/* ------------------------------------------------------------ the cases */

static int run_case(const char *dir, unsigned int flags)
{
    char path[4096];
    world w;
    world_make(&w, flags);
    snprintf(path, sizeof path, "%s/input", dir);
    copy_tree(path, w.t);
    char casefile[4096];
    snprintf(casefile, sizeof casefile, "%s/case.txt", dir);
    char *mode = case_key(casefile, "mode"), *kind = case_key(casefile, "kind");
    char *cwd = case_key(casefile, "cwd"), *link = case_key(casefile, "link");
    if (link) {
        char *sp = strchr(link, ' ');
        assert_non_null(sp);
        *sp = '\0';
        snprintf(path, sizeof path, "%s/%s", w.t, link);
        assert_int_equal(pg_symlink(sp + 1, path), 0);
    }
    pathgate_error err = PATHGATE_ERROR_INIT;
    if (cwd)
        assert_int_equal(pathgate_session_push(NULL, w.s, cwd, strlen(cwd), &err), 0);
    snprintf(path, sizeof path, "%s/patch.txt", dir);
    size_t plen;
    char *patch = slurp(path, &plen);
    assert_non_null(patch);
    if (strstr(patch, "{")) {
        char uri[1100];
        snprintf(uri, sizeof uri, "%s%s", PG_FILE_URI, w.t);
        substitute(&patch, "file://{ROOT}", uri);
        substitute(&patch, "{ROOT}", w.t);
        substitute(&patch, "{RO}", w.ro);
        substitute(&patch, "{OUT}", w.out);
        plen = strlen(patch);
    }
    pathgate_fs_options opts = PATHGATE_FS_OPTIONS_INIT;
    opts.session = w.s;
    if (mode && !strcmp(mode, "file_by_file"))
        opts.flags |= PATHGATE_FS_PATCH_FILE_BY_FILE;
    pathgate_fs_patch_result res = PATHGATE_FS_PATCH_RESULT_INIT;
    assert_int_equal(pathgate_fs_apply_patch(&res, NULL, patch, plen, &opts, &err), 0);
    int bad = 0;
    const char *want_kind = kind ? kind : "ok";
    if (strcmp(pathgate_errname(res.code), want_kind)) {
        print_message("%s: kind %s, expected %s (%s)\n", dir, pathgate_errname(res.code), want_kind,
                      res.error.ptr ? res.error.ptr : "");
        bad = 1;
    }
    snprintf(path, sizeof path, "%s/message.txt", dir);
    char *message = slurp(path, NULL);
    const char *got = res.code ? res.error.ptr : res.output.ptr;
    if (message && strcmp(message, got ? got : "")) {
        print_message("%s: message\n[%s]\nexpected\n[%s]\n", dir, got ? got : "(null)", message);
        bad = 1;
    }
    if (res.code == 0) {
        /* the summary and the files list say the same */
        size_t lines_out = 0;
        for (const char *q = res.output.ptr; (q = strchr(q, '\n')); q++)
            lines_out++;
        if (lines_out != res.count + 1)
            bad = 1;
    }
    snprintf(path, sizeof path, "%s/expected", dir);
    char *want = snapshot(path), *have = snapshot(w.t);
    if (strcmp(want, have)) {
        print_message("%s: tree\n%s\nexpected\n%s\n", dir, have, want);
        bad = 1;
    }
    char *ro = snapshot(w.ro), *out = snapshot(w.out);
    if (strcmp(ro, "f ro.txt read only\\x0a\n") || strcmp(out, "f secret.txt secret\\x0a\n")) {
        print_message("%s: outside the root changed\n%s%s", dir, ro, out);
        bad = 1;
    }
    free(ro);
    free(out);
    free(want);
    free(have);
    free(message);
    pathgate_fs_patch_result_dispose(&res);
    free(patch);
    free(mode);
    free(kind);
    free(cwd);
    free(link);
    world_free(&w);
    return bad;
}

/* The cases Windows cannot run, by name (counted as cases: each group
 * keeps its size); none on Linux. */
#ifdef _WIN32
static const ct_skip windows_skips[] = {
    /* wine shows a Unix symlink to a file as that file: the delete
     * removes the file it leads to (a.txt), which Linux keeps */
    {"delete_symlink_removes_link", "wine-file-link: a link to a file is that file under wine"},
    {NULL, NULL},
};
#define CASE_SKIPS windows_skips
#else
#define CASE_SKIPS NULL
#endif

static size_t run_group(const char *group, unsigned int flags)
{
    const char *src = getenv("PATHGATE_SOURCE_DIR");
    assert_non_null(src);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/data/apply_patch/%s", src, group);
    char **names;
    long n = pg_dir_names(dir, &names);
    assert_true(n > 0);
    size_t cases = 0, failed = 0;
    for (long i = 0; i < n; i++) {
        if (names[i][0] != '.') {
            char sub[2048];
            snprintf(sub, sizeof sub, "%s/%s", dir, names[i]);
            struct stat st;
            if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
                cases++;
                if (!ct_skipped(sub, CASE_SKIPS))
                    failed += (size_t)run_case(sub, flags);
            }
        }
    }
    pg_dir_names_free(names, n);
    if (failed)
        fail_msg("%zu of %zu cases of %s failed", failed, cases, group);
    return cases;
}

static void test_codex_scenarios(void **state)
{
    (void)state;
    assert_int_equal(run_group("codex", 0), 23);
    assert_int_equal(run_group("codex", PATHGATE_RESOLVER_FORCE_FALLBACK), 23);
}

static void test_codex_unit_cases(void **state)
{
    (void)state;
    assert_int_equal(run_group("codex_unit", 0), 52);
    assert_int_equal(run_group("codex_unit", PATHGATE_RESOLVER_FORCE_FALLBACK), 52);
}

static void test_pathgate_cases(void **state)
{
    (void)state;
    assert_int_equal(run_group("pathgate", 0), 19);
    assert_int_equal(run_group("pathgate", PATHGATE_RESOLVER_FORCE_FALLBACK), 19);
}

/* ------------------------------------------------------- the parser itself */

static pathgate__span span_of(const char *s)
{
    return (pathgate__span){s, strlen(s)};
}

static int span_is(pathgate__span s, const char *want)
{
    return s.len == strlen(want) && memcmp(s.p, want, s.len) == 0;
}

/* parser.rs test_parse_patch's structures, checked field by field. */
static void test_parse_structure(void **state)
{
    (void)state;
    const char *text = "*** Begin Patch\n"
                       "*** Add File: path/add.py\n+abc\n+def\n"
                       "*** Delete File: path/delete.py\n"
                       "*** Update File: path/update.py\n*** Move to: path/update2.py\n"
                       "@@ def f():\n-    pass\n+    return 123\n"
                       "*** End Patch";
    pathgate__patch p;
    pathgate__patch_init(&p, pg_test_alloc());
    char *msg;
    size_t msg_len;
    assert_int_equal(pathgate__patch_parse(&p, text, strlen(text), &msg, &msg_len), 0);
    assert_int_equal(p.nhunks, 3);
    assert_int_equal(p.hunks[0].kind, PATHGATE__HUNK_ADD);
    assert_true(span_is(p.hunks[0].path, "path/add.py"));
    assert_int_equal(p.hunks[0].add_len, 8);
    assert_memory_equal(p.adds + p.hunks[0].add_off, "abc\ndef\n", 8);
    assert_int_equal(p.hunks[1].kind, PATHGATE__HUNK_DELETE);
    assert_true(span_is(p.hunks[1].path, "path/delete.py"));
    const pathgate__patch_hunk *u = &p.hunks[2];
    assert_int_equal(u->kind, PATHGATE__HUNK_UPDATE);
    assert_true(u->has_move && span_is(u->move_to, "path/update2.py"));
    assert_int_equal(u->chunk_count, 1);
    const pathgate__patch_chunk *c = &p.chunks[u->chunk_first];
    assert_true(c->has_context && span_is(c->context, "def f():"));
    assert_int_equal(c->old_count, 1);
    assert_true(span_is(p.olds[c->old_first], "    pass"));
    assert_int_equal(c->new_count, 1);
    assert_true(span_is(p.news[c->new_first], "    return 123"));
    assert_false(c->eof);
    pathgate__patch_free(&p);

    /* test_update_file_chunk (5) and (6): context lines recorded as pairs */
    text = "*** Begin Patch\n*** Update File: f\n@@ change_context\n\n context\n-remove\n+add\n "
           "context2\n@@\n+line\n*** End of File\n*** End Patch";
    pathgate__patch_init(&p, pg_test_alloc());
    assert_int_equal(pathgate__patch_parse(&p, text, strlen(text), &msg, &msg_len), 0);
    assert_int_equal(p.nchunks, 2);
    c = &p.chunks[0];
    assert_int_equal(c->old_count, 4);
    assert_int_equal(c->new_count, 4);
    assert_int_equal(c->ctx_count, 3); /* "", "context", "context2" */
    size_t want_ctx[6] = {0, 0, 1, 1, 3, 3};
    assert_memory_equal(&p.ctx[2 * c->ctx_first], want_ctx, sizeof want_ctx);
    assert_true(span_is(p.olds[c->old_first + 2], "remove"));
    assert_true(span_is(p.news[c->new_first + 2], "add"));
    c = &p.chunks[1];
    assert_true(c->eof);
    assert_int_equal(c->old_count, 0);
    assert_int_equal(c->new_count, 1);
    pathgate__patch_free(&p);

    /* streaming-style partial input is refused as a whole patch */
    text = "*** Begin Patch\n*** Delete File: gone.txt";
    pathgate__patch_init(&p, pg_test_alloc());
    assert_int_equal(pathgate__patch_parse(&p, text, strlen(text), &msg, &msg_len),
                     PATHGATE_EPATCH);
    assert_string_equal(msg, "Invalid patch: The last line of the patch must be '*** End Patch'");
    pg_test_alloc()->free(msg, pg_test_alloc()->ctx);
    pathgate__patch_free(&p);

    /* nothing at all: Codex's (None, None) arm is the last-line message */
    pathgate__patch_init(&p, pg_test_alloc());
    assert_int_equal(pathgate__patch_parse(&p, " \n\t", 3, &msg, &msg_len), PATHGATE_EPATCH);
    assert_string_equal(msg, "Invalid patch: The last line of the patch must be '*** End Patch'");
    pg_test_alloc()->free(msg, pg_test_alloc()->ctx);
    pathgate__patch_free(&p);
}

/* seek_sequence.rs's tests, and its eof rule, directly. */
static void test_seek(void **state)
{
    (void)state;
    pathgate__src_line lines[3] = {{"foo", 3, 1}, {"bar", 3, 1}, {"baz", 3, 1}};
    pathgate__span pat[3] = {span_of("bar"), span_of("baz"), span_of("x")};
    size_t at = 99;
    assert_true(pathgate__patch_seek(&at, lines, 3, pat, 2, 0, 0));
    assert_int_equal(at, 1);
    /* pattern longer than the input */
    pathgate__span three[3] = {span_of("too"), span_of("many"), span_of("lines")};
    assert_false(pathgate__patch_seek(&at, lines, 1, three, 3, 0, 0));
    /* an empty pattern is found at start */
    assert_true(pathgate__patch_seek(&at, lines, 3, pat, 0, 2, 0));
    assert_int_equal(at, 2);
    /* rstrip, then trim */
    pathgate__src_line ws[2] = {{"foo   ", 6, 1}, {"bar\t\t", 5, 1}};
    pathgate__span fb[2] = {span_of("foo"), span_of("bar")};
    assert_true(pathgate__patch_seek(&at, ws, 2, fb, 2, 0, 0));
    assert_int_equal(at, 0);
    pathgate__src_line ws2[2] = {{"    foo   ", 10, 1}, {"   bar\t", 7, 1}};
    assert_true(pathgate__patch_seek(&at, ws2, 2, fb, 2, 0, 0));
    /* eof: only the last position is tried */
    pathgate__src_line rep[3] = {{"x", 1, 1}, {"y", 1, 1}, {"x", 1, 1}};
    pathgate__span x = span_of("x");
    assert_true(pathgate__patch_seek(&at, rep, 3, &x, 1, 0, 1));
    assert_int_equal(at, 2);
    pathgate__span y = span_of("y");
    assert_false(pathgate__patch_seek(&at, rep, 3, &y, 1, 0, 1));
    /* Unicode White_Space (U+3000, NBSP) trims; punctuation normalises */
    pathgate__src_line uni[1] = {
        {"\xE3\x80\x80\xE2\x80\x9Chi\xE2\x80\x9D \xE2\x80\x93 ok\xC2\xA0", 20, 1}};
    pathgate__span ascii = span_of("\"hi\" - ok");
    assert_true(pathgate__patch_seek(&at, uni, 1, &ascii, 1, 0, 0));
    /* trim and trim_end of a multibyte space at the end */
    pathgate__span t = pathgate__rs_trim(span_of("\xE2\x80\x83 a \xE3\x80\x80"));
    assert_true(span_is(t, "a"));
}

/* ------------------------------------------------------- rollback at every step */

static int fail_on_call;
static int hook_calls;

static int failing_hook(pathgate_fs_hook_point point, void *ctx)
{
    (void)point;
    (void)ctx;
    return ++hook_calls == fail_on_call ? PATHGATE_EIO : 0;
}

static const char *const rollback_hunks[5] = {
    "*** Add File: new/deep/n.txt\n+n\n",
    "*** Delete File: gone.txt\n",
    "*** Update File: a.txt\n*** Move to: m/a.txt\n@@\n-a\n+A\n",
    "*** Update File: b.txt\n@@\n-b\n+B\n",
    "*** Add File: c.txt\n+c2\n",
};

/* The patch of the first k hunks (malloc'd). */
static char *rollback_patch(size_t k)
{
    char *p = strdup("*** Begin Patch\n");
    for (size_t i = 0; i < k; i++) {
        char *n = NULL;
        assert_true(asprintf(&n, "%s%s", p, rollback_hunks[i]) > 0);
        free(p);
        p = n;
    }
    char *n = NULL;
    assert_true(asprintf(&n, "%s*** End Patch", p) > 0);
    free(p);
    return n;
}

static void rollback_tree(const char *t)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/gone.txt", t);
    spit(p, PG_S("gone\n"));
    snprintf(p, sizeof p, "%s/a.txt", t);
    spit(p, PG_S("a\n"));
    snprintf(p, sizeof p, "%s/b.txt", t);
    spit(p, PG_S("b\n"));
    snprintf(p, sizeof p, "%s/c.txt", t);
    spit(p, PG_S("c\n"));
    assert_int_equal(chmod(p, 0600), 0);
}

/* The tree after the first k hunks applied (k = 0: as made). */
static char *tree_after(size_t k)
{
    world w;
    world_make(&w, 0);
    rollback_tree(w.t);
    if (k) {
        char *patch = rollback_patch(k);
        pathgate_fs_options opts = PATHGATE_FS_OPTIONS_INIT;
        opts.session = w.s;
        pathgate_fs_patch_result res = PATHGATE_FS_PATCH_RESULT_INIT;
        pathgate_error err = PATHGATE_ERROR_INIT;
        assert_int_equal(pathgate_fs_apply_patch(&res, NULL, patch, strlen(patch), &opts, &err), 0);
        assert_int_equal(res.code, 0);
        pathgate_fs_patch_result_dispose(&res);
        free(patch);
    }
    char *snap = snapshot(w.t);
    world_free(&w);
    return snap;
}

/* A failure at each hook point of staging (temp created) and commit
 * (before each rename) leaves the tree exactly as it was; file by file,
 * as the hunks before the failing one left it. */
static void test_rollback_every_step(void **state)
{
    (void)state;
    char *patch = rollback_patch(5);
    for (int by_file = 0; by_file < 2; by_file++) {
        int calls_clean = 0;
        for (fail_on_call = 0;; fail_on_call++) {
            world w;
            world_make(&w, 0);
            rollback_tree(w.t);
            pathgate__fs_test_options x = PATHGATE__FS_TEST_OPTIONS_INIT;
            x.options.session = w.s;
            x.hook = failing_hook;
            if (by_file)
                x.options.flags |= PATHGATE_FS_PATCH_FILE_BY_FILE;
            hook_calls = 0;
            pathgate_fs_patch_result res = PATHGATE_FS_PATCH_RESULT_INIT;
            pathgate_error err = PATHGATE_ERROR_INIT;
            assert_int_equal(
                pathgate_fs_apply_patch(&res, NULL, patch, strlen(patch), &x.options, &err), 0);
            char *after = snapshot(w.t);
            if (fail_on_call == 0) {
                assert_int_equal(res.code, 0);
                calls_clean = hook_calls;
                assert_string_equal(res.output.ptr,
                                    "Success. Updated the following files:\n"
                                    "A root:t/new/deep/n.txt\nA root:t/c.txt\n"
                                    "M root:t/m/a.txt\nM root:t/b.txt\nD root:t/gone.txt\n");
                char *want = tree_after(5);
                assert_string_equal(after, want);
                free(want);
                assert_non_null(strstr(after, "f new/deep/n.txt n\\x0a\n"));
                assert_non_null(strstr(after, "f m/a.txt A\\x0a\n"));
                /* the mode of a replaced file is kept (Windows keeps a
                 * read-only flag only: c.txt stays writable) */
                char p[2048];
                struct stat st;
                snprintf(p, sizeof p, "%s/c.txt", w.t);
                assert_int_equal(stat(p, &st), 0);
                assert_int_equal(st.st_mode & 0777, LINUX_OR_WINDOWS(0600, 0666));
            } else {
                assert_int_equal(res.code, PATHGATE_EIO);
                assert_non_null(res.error.ptr);
                assert_string_equal(res.output.ptr, "");
                if (!by_file)
                    assert_int_equal(res.count, 0);
                char *want = tree_after(res.count);
                assert_string_equal(after, want);
                free(want);
            }
            /* never a temp file or a backup left behind */
            assert_null(strstr(after, ".pathgate-"));
            free(after);
            pathgate_fs_patch_result_dispose(&res);
            world_free(&w);
            if (fail_on_call > 0 && fail_on_call >= calls_clean)
                break;
        }
        assert_true(calls_clean >= 9); /* 4 temps + 5 renames, at least */
    }
    free(patch);
}

/* ------------------------------------------------------- allocation failures */

typedef struct alloc_ctx {
    world *w;
} alloc_ctx;

static int alloc_body(const pathgate_allocator *alloc, void *vctx)
{
    alloc_ctx *c = vctx;
    world *w = c->w;
    /* a fresh tree, a resolver and a session on the failing allocator */
    assert_int_equal(pg_clear_dir(w->t), 0);
    rollback_tree(w->t);
    pathgate_base_spec roots[1] = {{PG_S("t"), w->t, strlen(w->t), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.allocator = alloc;
    pathgate_resolver *r = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_resolver_new(&r, &o, &err);
    if (rc < 0)
        return rc;
    char *before = snapshot(w->t);
    pathgate_fs_options opts = PATHGATE_FS_OPTIONS_INIT;
    pathgate_fs_patch_result res = PATHGATE_FS_PATCH_RESULT_INIT;
    const char *patch = "*** Begin Patch\n*** Add File: root:t/new/deep/n.txt\n+n\n"
                        "*** Delete File: root:t/gone.txt\n*** Update File: root:t/a.txt\n"
                        "*** Move to: root:t/m/a.txt\n@@\n-a\n+A\n*** End Patch";
    rc = pathgate_fs_apply_patch(&res, r, patch, strlen(patch), &opts, &err);
    char *after = snapshot(w->t);
    if (rc == 0 && res.code == 0)
        assert_null(strstr(after, "f a.txt"));
    else
        assert_string_equal(after, before); /* out of memory: nothing changed */
    if (rc == 0 && res.code == PATHGATE_ENOMEM)
        rc = PATHGATE_ENOMEM;
    free(before);
    free(after);
    pathgate_fs_patch_result_dispose(&res);
    pathgate_resolver_free(r);
    return rc;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    world w;
    world_make(&w, 0);
    alloc_ctx c = {&w};
    assert_true(pg_for_each_failing_alloc(alloc_body, &c) > 10);
    world_free(&w);
}

/* ----------------------------------------------- 200 files, failing last hunk */

/* The patch of the test below: 10 hunks in each of 200 files (the last
 * hunk's removed line missing from the file when broken). */
static char *large_patch(int broken, size_t *len)
{
    size_t cap = 1 << 22, n = 0;
    char *patch = malloc(cap);
    n += (size_t)snprintf(patch + n, cap - n, "*** Begin Patch\n");
    for (int f = 0; f < 200; f++) {
        n += (size_t)snprintf(patch + n, cap - n, "*** Update File: d%02d/f%03d.txt\n", f % 20, f);
        for (int h = 0; h < 10; h++) {
            int l = h * 10 + 5;
            int gone = broken && f == 199 && h == 9;
            n +=
                (size_t)snprintf(patch + n, cap - n, "@@\n line %d\n-line %d\n+LINE %d\n line %d\n",
                                 l - 1, gone ? 1000 : l, l, l + 1);
        }
    }
    n += (size_t)snprintf(patch + n, cap - n, "*** End Patch\n");
    *len = n;
    return patch;
}

static void test_large_patch_failing_last_hunk(void **state)
{
    (void)state;
    world w;
    world_make(&w, 0);
    char p[2048];
    for (int f = 0; f < 200; f++) {
        snprintf(p, sizeof p, "%s/d%02d", w.t, f % 20);
        pg_mkdir(p);
        snprintf(p, sizeof p, "%s/d%02d/f%03d.txt", w.t, f % 20, f);
        char body[4096];
        size_t k = 0;
        for (int l = 0; l < 100; l++)
            k += (size_t)snprintf(body + k, sizeof body - k, "line %d\n", l);
        spit(p, body, k);
    }
    size_t n;
    char *patch = large_patch(1, &n);
    char *before = snapshot(w.t);
    pathgate_fs_options opts = PATHGATE_FS_OPTIONS_INIT;
    opts.session = w.s;
    pathgate_fs_patch_result res = PATHGATE_FS_PATCH_RESULT_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_fs_apply_patch(&res, NULL, patch, n, &opts, &err), 0);
    assert_int_equal(res.code, PATHGATE_ECONFLICT);
    assert_string_equal(res.error.ptr,
                        "Failed to find expected lines in root:t/d19/f199.txt:\nline 94\nline "
                        "1000\nline 96");
    char *after = snapshot(w.t);
    assert_string_equal(after, before);
    free(after);
    free(patch);
    pathgate_fs_patch_result_dispose(&res);
    /* repaired, every hunk applies */
    patch = large_patch(0, &n);
    assert_int_equal(pathgate_fs_apply_patch(&res, NULL, patch, n, &opts, &err), 0);
    assert_int_equal(res.code, 0);
    assert_int_equal(res.count, 200);
    after = snapshot(w.t);
    assert_string_not_equal(after, before);
    free(after);
    snprintf(p, sizeof p, "%s/d19/f199.txt", w.t);
    char *last = slurp(p, NULL);
    assert_non_null(strstr(last, "line 94\nLINE 95\nline 96\n"));
    free(last);
    pathgate_fs_patch_result_dispose(&res);
    free(before);
    free(patch);
    world_free(&w);
}

/* ------------------------------------------------ edits, lenient matching */

/* PATHGATE_FS_EDIT_LENIENT (MCP edit_file's matching): exact first, else
 * lines equal once trimmed, re-indented; a CRLF file keeps CRLF; without
 * the flag the edit is exact. */
static void test_edits_lenient(void **state)
{
    (void)state;
    world w;
    world_make(&w, 0);
    char p[2048];
    snprintf(p, sizeof p, "%s/p.py", w.t);
    const char *text = "def f():\r\n    if x:\r\n        return 1\r\n";
    spit(p, text, strlen(text));
    pathgate_fs_edit_op op = {PG_S("if x:\n    return 1"), PG_S("if y:\n    return 2"), 0};
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf addr = PATHGATE_BUF_INIT, diff = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_fs_edits(&addr, &diff, w.r, PG_S("root:t/p.py"), &op, 1, NULL, &err),
                     PATHGATE_EEDIT);
    pathgate_fs_options opts = PATHGATE_FS_OPTIONS_INIT;
    opts.flags = PATHGATE_FS_EDIT_LENIENT;
    assert_int_equal(pathgate_fs_edits(&addr, &diff, w.r, PG_S("root:t/p.py"), &op, 1, &opts, &err),
                     0);
    assert_string_equal(addr.ptr, "root:t/p.py");
    assert_non_null(strstr(diff.ptr, "\n+    if y:\n+    return 2\n"));
    char *got = slurp(p, NULL);
    assert_string_equal(got, "def f():\r\n    if y:\r\n    return 2\r\n");
    free(got);
    /* not found: the reference's message */
    pathgate_fs_edit_op miss = {PG_S("zzz"), PG_S("y"), 0};
    assert_int_equal(
        pathgate_fs_edits(&addr, &diff, w.r, PG_S("root:t/p.py"), &miss, 1, &opts, &err),
        PATHGATE_EEDIT);
    assert_string_equal(err.message, "Could not find exact match for edit:\nzzz");
    pathgate_buf_dispose(&addr);
    pathgate_buf_dispose(&diff);
    world_free(&w);
}

/* ------------------------------------------------------------ misuse */

static void test_misuse(void **state)
{
    (void)state;
    world w;
    world_make(&w, 0);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_fs_patch_result res = PATHGATE_FS_PATCH_RESULT_INIT;
    assert_int_equal(pathgate_fs_apply_patch(NULL, w.r, PG_S("x"), NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_fs_apply_patch(&res, w.r, NULL, 3, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_fs_apply_patch(&res, NULL, PG_S("x"), NULL, &err), PATHGATE_EINVAL);
    pathgate_fs_options bad = PATHGATE_FS_OPTIONS_INIT;
    bad.version = 99;
    assert_int_equal(pathgate_fs_apply_patch(&res, w.r, PG_S("x"), &bad, &err), PATHGATE_EINVAL);
    /* not UTF-8: refused, nothing touched */
    const char latin[] = "*** Begin Patch\n*** Add File: root:t/x\n+caf\xe9\n*** End Patch";
    assert_int_equal(pathgate_fs_apply_patch(&res, w.r, latin, sizeof latin - 1, NULL, &err), 0);
    assert_int_equal(res.code, PATHGATE_EUTF8);
    char p[2048];
    snprintf(p, sizeof p, "%s/x", w.t);
    assert_int_equal(access(p, F_OK), -1);
    /* NUL bytes are content */
    const char nul[] = "*** Begin Patch\n*** Add File: root:t/x\n+a\0b\n*** End Patch";
    assert_int_equal(pathgate_fs_apply_patch(&res, w.r, nul, sizeof nul - 1, NULL, &err), 0);
    assert_int_equal(res.code, 0);
    size_t len;
    char *data = slurp(p, &len);
    assert_int_equal(len, 4);
    assert_memory_equal(data, "a\0b\n", 4);
    free(data);
    /* a relative path without a session: the first base (docs/fs.md, "Relative paths") */
    assert_int_equal(pathgate_fs_apply_patch(&res, w.r,
                                             PG_S("*** Begin Patch\n*** Add File: "
                                                  "y\n+y\n*** End Patch"),
                                             NULL, &err),
                     0);
    assert_int_equal(res.code, 0);
    assert_string_equal(res.output.ptr, "Success. Updated the following files:\nA root:t/y\n");
    snprintf(p, sizeof p, "%s/y", w.t);
    data = slurp(p, &len);
    assert_int_equal(len, 2);
    assert_memory_equal(data, "y\n", 2);
    free(data);
    pathgate_fs_patch_result_dispose(&res);
    pathgate_fs_patch_result_dispose(NULL);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codex_scenarios),
        cmocka_unit_test(test_codex_unit_cases),
        cmocka_unit_test(test_pathgate_cases),
        cmocka_unit_test(test_parse_structure),
        cmocka_unit_test(test_seek),
        cmocka_unit_test(test_rollback_every_step),
        cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_edits_lenient),
        cmocka_unit_test(test_large_patch_failing_last_hunk),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
