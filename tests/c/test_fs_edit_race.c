/* test_fs_edit_race.c - an edit never loses a change made while it runs.
 *
 * An edit reads a file, replaces text in memory and renames a new file over
 * it. A change made by anyone in between (an in-place write, a file renamed
 * over the name, another edit) must not be overwritten: the edit starts over
 * on the new content. The fault-injection hook makes the change at the last
 * moment before the edit's commit (deterministic); two threads editing one
 * file show that edits never lose each other's work (the edit lock of the
 * directory). */
/* ctest-labels: threads */
#include "fs_fixture.h"

#include <pthread.h>
#include <sys/file.h>
#include <time.h>

#include "testing.h"

typedef struct change {
    const char *repo;
    int times;   /* changes to make (at the first `times` commits) */
    int renamed; /* replace the file by rename instead of writing in place */
    int calls;
} change;

/* At BEFORE_RENAME: another program appends a line to race.txt. */
static int change_hook(pathgate_fs_hook_point point, void *p)
{
    change *c = p;
    if (point != PATHGATE_FS_HOOK_BEFORE_RENAME || c->calls >= c->times)
        return 0;
    c->calls++;
    char path[1024], line[64];
    fx_path(path, sizeof path, c->repo, "race.txt");
    int n = snprintf(line, sizeof line, "theirs %d\n", c->calls);
    if (c->renamed) {
        size_t len;
        char *old = fx_get(c->repo, "race.txt", &len);
        assert_non_null(old);
        char tmp[1100];
        snprintf(tmp, sizeof tmp, "%s.theirs", path);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, old, len), (ssize_t)len);
        assert_int_equal(write(fd, line, (size_t)n), n);
        close(fd);
        free(old);
        assert_int_equal(rename(tmp, path), 0);
    } else {
        int fd = open(path, O_WRONLY | O_APPEND);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, line, (size_t)n), n);
        close(fd);
    }
    return 0;
}

static void no_temp_files(fx *f)
{
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("**/.pathgate-*"), NULL, 0, NULL, NULL), 0);
    assert_int_equal(l.count, 0);
    pathgate_fs_list_dispose(&l);
}

static void edit_with_change(fx *f, int renamed)
{
    FX_PUT(f->repo, "race.txt", "mine 0\n");
    change c = {f->repo, 1, renamed, 0};
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    t.hook = change_hook;
    t.hook_ctx = &c;
    pathgate_error err;
    size_t n = 0;
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/race.txt"),
                                      PG_EDIT(PG_S("mine 0"), PG_S("mine 1"), 0), &t.options, &err),
                     0);
    assert_int_equal(n, 1);
    /* their line survived, and the edit applied on top of it */
    char *now = fx_get(f->repo, "race.txt", NULL);
    assert_string_equal(now, "mine 1\ntheirs 1\n");
    free(now);
    assert_int_equal(c.calls, 1);
    no_temp_files(f);
}

static void test_change_in_place_is_kept(void **state)
{
    edit_with_change(*state, 0);
}

static void test_file_renamed_over_is_kept(void **state)
{
    edit_with_change(*state, 1);
}

static void test_multi_edit_starts_over_too(void **state)
{
    fx *f = *state;
    FX_PUT(f->repo, "race.txt", "a\nb\n");
    change c = {f->repo, 1, 0, 0};
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    t.hook = change_hook;
    t.hook_ctx = &c;
    pathgate_fs_edit_op ops[] = {{PG_S("a\n"), PG_S("A\n"), 0}, {PG_S("b\n"), PG_S("B\n"), 0}};
    pathgate_buf diff = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(
        pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:repo/race.txt"), ops, 2, &t.options, &err),
        0);
    char *now = fx_get(f->repo, "race.txt", NULL);
    assert_string_equal(now, "A\nB\ntheirs 1\n");
    free(now);
    /* the diff is of the content the edit was finally applied to */
    assert_non_null(strstr(diff.ptr, "-a\n-b\n+A\n+B\n theirs 1\n"));
    pathgate_buf_dispose(&diff);
}

static void test_a_file_that_keeps_changing_is_left_alone(void **state)
{
    fx *f = *state;
    FX_PUT(f->repo, "race.txt", "mine 0\n");
    change c = {f->repo, 1000, 0, 0};
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    t.hook = change_hook;
    t.hook_ctx = &c;
    pathgate_error err;
    size_t n = 7;
    assert_int_equal(pathgate_fs_edit(NULL, &n, f->r, PG_S("root:repo/race.txt"),
                                      PG_EDIT(PG_S("mine 0"), PG_S("mine 1"), 0), &t.options, &err),
                     PATHGATE_ETIMEOUT);
    assert_string_equal(err.message, "'root:repo/race.txt' kept changing while it was being "
                                     "edited; nothing was changed");
    assert_int_equal(n, 0);
    assert_int_equal(c.calls, 16);
    size_t len;
    char *now = fx_get(f->repo, "race.txt", &len);
    assert_memory_equal(now, "mine 0\ntheirs 1\n", 16); /* theirs only, all 16 lines */
    assert_non_null(strstr(now, "theirs 16\n"));
    assert_null(strstr(now, "mine 1"));
    free(now);
    no_temp_files(f);
}

/* The reference MCP server's matching (PATHGATE_FS_EDIT_LENIENT) is an
 * option of the same edit: it starts over too. */
static void test_lenient_edit_starts_over_too(void **state)
{
    fx *f = *state;
    FX_PUT(f->repo, "race.txt", "    mine 0\n");
    change c = {f->repo, 1, 0, 0};
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    t.hook = change_hook;
    t.hook_ctx = &c;
    t.options.flags |= PATHGATE_FS_EDIT_LENIENT;
    pathgate_fs_edit_op op = {PG_S("  mine 0  "), PG_S("mine 1"), 0};
    pathgate_buf diff = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(
        pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:repo/race.txt"), &op, 1, &t.options, &err),
        0);
    char *now = fx_get(f->repo, "race.txt", NULL);
    assert_string_equal(now, "    mine 1\ntheirs 1\n");
    free(now);
    assert_int_equal(c.calls, 1);
    pathgate_buf_dispose(&diff);
    no_temp_files(f);
}

/* The text editor's str_replace and insert are edits too: the same lock,
 * the same check, the same start over (core/src/edit/editor.c). */
static void test_text_editor_starts_over_too(void **state)
{
    fx *f = *state;
    FX_PUT(f->repo, "race.txt", "mine 0\n");
    change c = {f->repo, 1, 0, 0};
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    t.hook = change_hook;
    t.hook_ctx = &c;
    pathgate_editor *ed = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_editor_new(&ed, NULL, &err), 0);
    pathgate_editor_args a = PATHGATE_EDITOR_ARGS_INIT;
    a.old_str = "mine 0";
    a.old_str_len = 6;
    a.new_str = "mine 1";
    a.new_str_len = 6;
    pathgate_editor_result res = PATHGATE_EDITOR_RESULT_INIT;
    assert_int_equal(pathgate_editor_run(&res, ed, f->r, PG_S("str_replace"),
                                         PG_S("root:repo/race.txt"), &a, &t.options, &err),
                     0);
    assert_int_equal(res.code, 0);
    char *now = fx_get(f->repo, "race.txt", NULL);
    assert_string_equal(now, "mine 1\ntheirs 1\n");
    free(now);
    assert_int_equal(c.calls, 1);
    /* a file that keeps changing is left alone */
    c.times = 1000;
    a.has_insert_line = 1;
    a.insert_line = 0;
    assert_int_equal(pathgate_editor_run(&res, ed, f->r, PG_S("insert"), PG_S("root:repo/race.txt"),
                                         &a, &t.options, &err),
                     0);
    assert_int_equal(res.code, PATHGATE_ETIMEOUT);
    assert_string_equal(res.error.ptr,
                        "Ran into 'root:repo/race.txt' kept changing while it was being edited; "
                        "nothing was changed while trying to write to root:repo/race.txt");
    assert_int_equal(c.calls, 17);
    now = fx_get(f->repo, "race.txt", NULL);
    assert_null(strstr(now, "mine 1\nmine 1"));
    free(now);
    pathgate_editor_result_dispose(&res);
    pathgate_editor_free(ed);
    no_temp_files(f);
}

/* ------------------------------------------------------------ threads */

#define EDITS 150

typedef struct editor {
    fx *f;
    char name; /* the line "<name>=<count>" is this editor's */
    int failures;
} editor;

static void *edit_loop(void *p)
{
    editor *e = p;
    for (int i = 0; i < EDITS; i++) {
        char old[32], new[32];
        snprintf(old, sizeof old, "%c=%d\n", e->name, i);
        snprintf(new, sizeof new, "%c=%d\n", e->name, i + 1);
        pathgate_error err;
        if (pathgate_fs_edit(NULL, NULL, e->f->r, PG_S("root:repo/count.txt"),
                             PG_EDIT(PG_S(old), PG_S(new), 0), NULL, &err) != 0)
            e->failures++;
    }
    return NULL;
}

static void test_concurrent_edits_keep_every_change(void **state)
{
    fx *f = *state;
    FX_PUT(f->repo, "count.txt", "a=0\nb=0\n");
    editor a = {f, 'a', 0}, b = {f, 'b', 0};
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, edit_loop, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, edit_loop, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    assert_int_equal(a.failures, 0);
    assert_int_equal(b.failures, 0);
    char *now = fx_get(f->repo, "count.txt", NULL);
    assert_string_equal(now, "a=150\nb=150\n");
    free(now);
    no_temp_files(f);
}

/* ---------------------------------------------------------- the lock */

typedef struct holder {
    int fd;
    int release_ms;
} holder;

static void *release_later(void *p)
{
    holder *h = p;
    struct timespec d = {0, (long)h->release_ms * 1000000L};
    nanosleep(&d, NULL);
    flock(h->fd, LOCK_UN);
    return NULL;
}

static void test_an_edit_waits_for_the_lock(void **state)
{
    fx *f = *state;
    /* another program holds the lock of the directory */
    holder h = {open(f->repo, O_RDONLY | O_DIRECTORY), 100};
    assert_true(h.fd >= 0);
    assert_int_equal(flock(h.fd, LOCK_EX), 0);
    /* a dry run changes nothing and does not wait */
    pathgate_fs_edit_op op = {PG_S("beta"), PG_S("BETA"), 0};
    pathgate_buf diff = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(
        pathgate_fs_edits(NULL, &diff, f->r, PG_S("root:repo/a.txt"), &op, 1, PG_DRY_RUN, &err), 0);
    pathgate_buf_dispose(&diff);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, release_later, &h), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(pathgate_fs_edit(NULL, NULL, f->r, PG_S("root:repo/a.txt"),
                                      PG_EDIT(PG_S("beta"), PG_S("BETA"), 0), NULL, &err),
                     0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    pthread_join(t, NULL);
    close(h.fd);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    assert_true(ms >= 90); /* it waited for the holder */
    char *now = fx_get(f->repo, "a.txt", NULL);
    assert_string_equal(now, "alpha\nBETA\ngamma\n");
    free(now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TESTS(test_change_in_place_is_kept),
        FX_TESTS(test_file_renamed_over_is_kept),
        FX_TESTS(test_multi_edit_starts_over_too),
        FX_TESTS(test_a_file_that_keeps_changing_is_left_alone),
        FX_TESTS(test_lenient_edit_starts_over_too),
        FX_TESTS(test_text_editor_starts_over_too),
        FX_TESTS(test_concurrent_edits_keep_every_change),
        FX_TESTS(test_an_edit_waits_for_the_lock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
