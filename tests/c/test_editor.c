/*
 * test_editor.c - the text editor tool (docs/editor.md): the shared cases
 * of tests/data/editor (expectations from Anthropic's reference
 * implementation, see tests/tools/gen_editor_cases.py) with both
 * containment paths; the undo history's budget; every allocation failing;
 * misuse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_tree.h"

/* Runs the steps N.cmd of a case directory on one editor. */
static int run_case(const char *dir, unsigned int flags)
{
    world w;
    world_make(&w, flags);
    char path[4096];
    snprintf(path, sizeof path, "%s/input", dir);
    copy_tree(path, w.t);
    pathgate_editor *ed = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_editor_new(&ed, pg_test_alloc(), &err), 0);
    int bad = 0;
    for (int step = 1;; step++) {
        char cmdfile[4096];
        snprintf(cmdfile, sizeof cmdfile, "%s/%d.cmd", dir, step);
        char *command = case_key(cmdfile, "command");
        if (!command)
            break;
        char *target = case_key(cmdfile, "path"), *tool = case_key(cmdfile, "tool");
        char *insert_line = case_key(cmdfile, "insert_line"), *kind = case_key(cmdfile, "kind");
        char *view_range = case_key(cmdfile, "view_range");
        char *max_chars = case_key(cmdfile, "max_characters");
        pathgate_editor_args a = PATHGATE_EDITOR_ARGS_INIT;
        if (tool && !strcmp(tool, "str_replace_editor"))
            a.tool = PATHGATE_EDITOR_20250124;
        char *texts[3];
        const char *const names[3] = {"old_str", "new_str", "file_text"};
        size_t lens[3];
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%d.%s", dir, step, names[i]);
            texts[i] = slurp(path, &lens[i]);
        }
        a.old_str = texts[0];
        a.old_str_len = texts[0] ? lens[0] : 0;
        a.new_str = texts[1];
        a.new_str_len = texts[1] ? lens[1] : 0;
        a.file_text = texts[2];
        a.file_text_len = texts[2] ? lens[2] : 0;
        if (insert_line) {
            a.has_insert_line = 1;
            a.insert_line = strtoll(insert_line, NULL, 10);
        }
        int64_t range[8];
        if (view_range && !strcmp(view_range, "invalid")) {
            a.view_range_invalid = 1;
        } else if (view_range) {
            char *p = view_range;
            while (*p && a.view_range_len < 8)
                range[a.view_range_len++] = strtoll(p, &p, 10);
            a.view_range = range;
        }
        if (max_chars)
            a.max_characters = strtoll(max_chars, NULL, 10);
        pathgate_fs_options opts = PATHGATE_FS_OPTIONS_INIT;
        opts.session = w.s;
        pathgate_editor_result res = PATHGATE_EDITOR_RESULT_INIT;
        assert_int_equal(pathgate_editor_run(&res, ed, NULL, command, strlen(command), target,
                                             strlen(target), &a, &opts, &err),
                         0);
        snprintf(path, sizeof path, "%s/%d.output", dir, step);
        size_t want_len;
        char *want = slurp(path, &want_len);
        const char *got = res.output.ptr;
        if (!want) {
            snprintf(path, sizeof path, "%s/%d.error", dir, step);
            want = slurp(path, &want_len);
            got = res.error.ptr;
        }
        assert_non_null(want);
        if (!got || strcmp(got, want)) {
            print_message("%s step %d:\n[%s]\nexpected\n[%s]\n", dir, step, got ? got : "(null)",
                          want);
            bad = 1;
        }
        if (strcmp(pathgate_errname(res.code), kind ? kind : "ok")) {
            print_message("%s step %d: kind %s, expected %s\n", dir, step,
                          pathgate_errname(res.code), kind ? kind : "ok");
            bad = 1;
        }
        pathgate_editor_result_dispose(&res);
        free(want);
        for (int i = 0; i < 3; i++)
            free(texts[i]);
        free(command);
        free(target);
        free(tool);
        free(insert_line);
        free(kind);
        free(view_range);
        free(max_chars);
    }
    snprintf(path, sizeof path, "%s/expected", dir);
    struct stat st;
    if (stat(path, &st) != 0)
        snprintf(path, sizeof path, "%s/input", dir);
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
    pathgate_editor_free(ed);
    world_free(&w);
    return bad;
}

static size_t run_all(unsigned int flags)
{
    const char *src = getenv("PATHGATE_SOURCE_DIR");
    assert_non_null(src);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/data/editor", src);
    char **names;
    long n = pg_dir_names(dir, &names);
    assert_true(n > 0);
    size_t cases = 0, failed = 0;
    for (long i = 0; i < n; i++) {
        char sub[2048];
        snprintf(sub, sizeof sub, "%s/%s", dir, names[i]);
        struct stat st;
        if (names[i][0] != '.' && stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
            cases++;
            failed += (size_t)run_case(sub, flags);
        }
    }
    pg_dir_names_free(names, n);
    if (failed)
        fail_msg("%zu of %zu editor cases failed", failed, cases);
    return cases;
}

static void test_shared_cases(void **state)
{
    (void)state;
    assert_int_equal(run_all(0), 62);
    assert_int_equal(run_all(PATHGATE_RESOLVER_FORCE_FALLBACK), 62);
}

/* --------------------------------------------------------------- helpers */

static int run(pathgate_editor_result *res, pathgate_editor *ed, world *w, const char *command,
               const char *path, const pathgate_editor_args *a)
{
    pathgate_fs_options opts = PATHGATE_FS_OPTIONS_INIT;
    opts.session = w->s;
    pathgate_error err = PATHGATE_ERROR_INIT;
    return pathgate_editor_run(res, ed, NULL, command, strlen(command), path, strlen(path), a,
                               &opts, &err);
}

/* Tabs in old_str's match cut by the match: the reference's expanded text
 * is written (the one case pathgate cannot keep the file's tabs). */
static void test_match_inside_a_tab(void **state)
{
    (void)state;
    world w;
    world_make(&w, 0);
    char p[2048];
    snprintf(p, sizeof p, "%s/t.txt", w.t);
    spit(p, PG_S("a\tb\n\tkeep\n"));
    pathgate_editor_args a = PATHGATE_EDITOR_ARGS_INIT;
    a.old_str = "  b"; /* the last spaces of the tab's expansion, and b */
    a.old_str_len = 3;
    a.new_str = "  B";
    a.new_str_len = 3;
    pathgate_editor_result res = PATHGATE_EDITOR_RESULT_INIT;
    assert_int_equal(run(&res, NULL, &w, "str_replace", "t.txt", &a), 0);
    assert_int_equal(res.code, 0);
    char *data = slurp(p, NULL);
    assert_string_equal(data, "a       B\n        keep\n");
    free(data);
    pathgate_editor_result_dispose(&res);
    world_free(&w);
}

/* The history forgets the oldest versions beyond its budget, per editor;
 * without an editor nothing is remembered. */
static void test_history(void **state)
{
    (void)state;
    world w;
    world_make(&w, 0);
    char p[2048];
    snprintf(p, sizeof p, "%s/h.txt", w.t);
    spit(p, PG_S("v0\n"));
    pathgate_editor *ed = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_editor_new(&ed, pg_test_alloc(), &err), 0);
    pathgate_editor_args a = PATHGATE_EDITOR_ARGS_INIT;
    a.tool = PATHGATE_EDITOR_20250124;
    pathgate_editor_result res = PATHGATE_EDITOR_RESULT_INIT;
    for (int i = 0; i < 5; i++) {
        char old[8], neu[8];
        snprintf(old, sizeof old, "v%d", i);
        snprintf(neu, sizeof neu, "v%d", i + 1);
        a.old_str = old;
        a.old_str_len = strlen(old);
        a.new_str = neu;
        a.new_str_len = strlen(neu);
        assert_int_equal(run(&res, ed, &w, "str_replace", "h.txt", &a), 0);
        assert_int_equal(res.code, 0);
    }
    /* another editor (another session) has no history of this file */
    pathgate_editor *other = NULL;
    assert_int_equal(pathgate_editor_new(&other, NULL, &err), 0);
    assert_int_equal(run(&res, other, &w, "undo_edit", "h.txt", &a), 0);
    assert_int_equal(res.code, PATHGATE_EEDIT);
    assert_string_equal(res.error.ptr, "No edit history found for root:t/h.txt.");
    pathgate_editor_free(other);
    assert_int_equal(run(&res, NULL, &w, "undo_edit", "h.txt", &a), 0);
    assert_int_equal(res.code, PATHGATE_EEDIT);
    /* five undos walk back to v0, the same file under another spelling */
    for (int i = 4; i >= 0; i--) {
        assert_int_equal(run(&res, ed, &w, "undo_edit", i % 2 ? "root:t/h.txt" : "h.txt", &a), 0);
        assert_int_equal(res.code, 0);
        char *data = slurp(p, NULL);
        char want[8];
        snprintf(want, sizeof want, "v%d\n", i);
        assert_string_equal(data, want);
        free(data);
    }
    pathgate_editor_result_dispose(&res);
    pathgate_editor_free(ed);
    world_free(&w);
}

typedef struct alloc_ctx {
    world *w;
    const char *command;
    const pathgate_editor_args *a;
    const char *path;
} alloc_ctx;

static int alloc_body(const pathgate_allocator *alloc, void *vctx)
{
    alloc_ctx *c = vctx;
    char p[2048];
    snprintf(p, sizeof p, "%s/f.txt", c->w->t);
    spit(p, PG_S("one\n\ttwo\r\nthree\n"));
    pathgate_base_spec roots[1] = {{PG_S("t"), c->w->t, strlen(c->w->t), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.allocator = alloc;
    pathgate_resolver *r = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_resolver_new(&r, &o, &err);
    if (rc < 0)
        return rc;
    pathgate_editor *ed = NULL;
    rc = pathgate_editor_new(&ed, alloc, &err);
    if (rc == 0) {
        pathgate_editor_result res = PATHGATE_EDITOR_RESULT_INIT;
        rc = pathgate_editor_run(&res, ed, r, c->command, strlen(c->command), c->path,
                                 strlen(c->path), c->a, NULL, &err);
        if (rc == 0)
            assert_int_equal(res.code, 0);
        pathgate_editor_result_dispose(&res);
        pathgate_editor_free(ed);
    }
    pathgate_resolver_free(r);
    return rc;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    world w;
    world_make(&w, 0);
    pathgate_editor_args a = PATHGATE_EDITOR_ARGS_INIT;
    a.old_str = "two";
    a.old_str_len = 3;
    a.new_str = "2";
    a.new_str_len = 1;
    alloc_ctx c = {&w, "str_replace", &a, "root:t/f.txt"};
    assert_true(pg_for_each_failing_alloc(alloc_body, &c) > 5);
    pathgate_editor_args v = PATHGATE_EDITOR_ARGS_INIT;
    c.command = "view";
    c.a = &v;
    c.path = "root:t";
    assert_true(pg_for_each_failing_alloc(alloc_body, &c) > 3);
    pathgate_editor_args ins = PATHGATE_EDITOR_ARGS_INIT;
    ins.has_insert_line = 1;
    ins.insert_line = 1;
    ins.new_str = "x";
    ins.new_str_len = 1;
    c.command = "insert";
    c.a = &ins;
    c.path = "root:t/f.txt";
    assert_true(pg_for_each_failing_alloc(alloc_body, &c) > 3);
    world_free(&w);
}

static void test_misuse(void **state)
{
    (void)state;
    world w;
    world_make(&w, 0);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_editor_result res = PATHGATE_EDITOR_RESULT_INIT;
    assert_int_equal(pathgate_editor_new(NULL, NULL, &err), PATHGATE_EINVAL);
    assert_int_equal(
        pathgate_editor_run(NULL, NULL, w.r, PG_S("view"), PG_S("root:t"), NULL, NULL, &err),
        PATHGATE_EINVAL);
    assert_int_equal(
        pathgate_editor_run(&res, NULL, NULL, PG_S("view"), PG_S("root:t"), NULL, NULL, &err),
        PATHGATE_EINVAL);
    pathgate_editor_args a = PATHGATE_EDITOR_ARGS_INIT;
    a.version = 7;
    assert_int_equal(
        pathgate_editor_run(&res, NULL, w.r, PG_S("view"), PG_S("root:t"), &a, NULL, &err),
        PATHGATE_EINVAL);
    a.version = PATHGATE_EDITOR_ARGS_VERSION;
    a.tool = (pathgate_editor_tool)9;
    assert_int_equal(
        pathgate_editor_run(&res, NULL, w.r, PG_S("view"), PG_S("root:t"), &a, NULL, &err),
        PATHGATE_EINVAL);
    assert_int_equal(
        pathgate_editor_run(&res, NULL, w.r, "vi\0ew", 5, PG_S("root:t"), NULL, NULL, &err),
        PATHGATE_ENUL);
    /* a path with a NUL byte names nothing */
    assert_int_equal(
        pathgate_editor_run(&res, NULL, w.r, PG_S("view"), "root:t/a\0b", 10, NULL, NULL, &err), 0);
    assert_int_equal(res.code, PATHGATE_EINVALIDPATH);
    assert_string_equal(res.error.ptr, "Invalid path / not found");
    /* relative without a session: the first base (docs/fs.md, "Relative paths") */
    assert_int_equal(
        pathgate_editor_run(&res, NULL, w.r, PG_S("view"), PG_S("x.txt"), NULL, NULL, &err), 0);
    assert_int_equal(res.code, PATHGATE_ENOTFOUND);
    assert_string_equal(res.error.ptr,
                        "The path root:t/x.txt does not exist. Please provide a valid path.");
    pathgate_editor_result_dispose(&res);
    pathgate_editor_result_dispose(NULL);
    pathgate_editor_free(NULL);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_cases), cmocka_unit_test(test_match_inside_a_tab),
        cmocka_unit_test(test_history),      cmocka_unit_test(test_allocation_failures),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
