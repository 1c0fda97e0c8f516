/* test_fs_race.c - file operations under attack: while one thread reads,
 * writes, edits, uploads, greps and globs through addresses in a loop,
 * another keeps swapping the parent directory (and the file itself) with
 * symlinks that lead out of the base (atomic RENAME_EXCHANGE, so there is
 * never a gap). Nothing outside the base may ever be read, listed or
 * written: outside files keep their content and no new file appears. */
/* ctest-labels: threads */
#include "fs_fixture.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>

#define ROUNDS 600

typedef struct race {
    fx *f;
    atomic_int stop;
    long swaps;
} race;

static void *attacker(void *p)
{
    race *r = p;
    char d[1024], evil[1024], file[1024], evil_file[1024];
    fx_path(d, sizeof d, r->f->repo, "d");
    fx_path(evil, sizeof evil, r->f->repo, "evil");
    fx_path(file, sizeof file, r->f->repo, "d2/f.txt");
    fx_path(evil_file, sizeof evil_file, r->f->repo, "d2/evil_f");
    while (!atomic_load(&r->stop)) {
        /* d <-> evil (a symlink to the outside directory), and back */
        if (renameat2(AT_FDCWD, d, AT_FDCWD, evil, RENAME_EXCHANGE) == 0)
            r->swaps++;
        /* d2/f.txt <-> d2/evil_f (a symlink to the outside file) */
        if (renameat2(AT_FDCWD, file, AT_FDCWD, evil_file, RENAME_EXCHANGE) == 0)
            r->swaps++;
    }
    return NULL;
}

static int outside_entries(const fx *f)
{
    DIR *dir = opendir(f->outside);
    assert_non_null(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(dir);
    return n;
}

static void check_not_outside(const char *text, size_t len)
{
    if (text && memmem(text, len, "OUTSIDE", 7))
        fail_msg("read something from outside the base");
}

static void test_swapped_parents_never_lead_out(void **state)
{
    fx *f = *state;
    /* outside: f.txt and evil_f's target, with known content */
    FX_PUT(f->outside, "f.txt", "OUTSIDE f\n");
    FX_PUT(f->outside, "x.txt", "OUTSIDE x\n");
    const int before = outside_entries(f);
    fx_mkdir(f->repo, "d");
    FX_PUT(f->repo, "d/f.txt", "inside\n");
    fx_link(f->repo, "evil", f->outside); /* absolute */
    fx_mkdir(f->repo, "d2");
    FX_PUT(f->repo, "d2/f.txt", "inside 2\n");
    char target[1024];
    fx_path(target, sizeof target, f->outside, "x.txt");
    fx_link(f->repo, "d2/evil_f", target);

    race r = {f, 0, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, attacker, &r), 0);
    pathgate_error err;
    long ok_reads = 0;
    for (int i = 0; i < ROUNDS; i++) {
        pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
        const char *reads[] = {"root:repo/d/f.txt", "root:repo/d2/f.txt", "root:repo/evil/f.txt"};
        for (int k = 0; k < 3; k++) {
            if (pathgate_fs_read(&rr, f->r, PG_S(reads[k]), 0, 100, NULL, &err) == 0) {
                check_not_outside(rr.content.ptr, rr.content.len);
                ok_reads++;
            }
            pathgate_fs_read_result_dispose(&rr);
        }
        char content[64];
        int n = snprintf(content, sizeof content, "inside %d\n", i);
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/d/f.txt"), content, (size_t)n, NULL, &err);
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/d/new.txt"), content, (size_t)n, NULL, &err);
        pathgate_fs_write(NULL, f->r, PG_S("root:repo/d2/f.txt"), content, (size_t)n, NULL, &err);
        pathgate_fs_edit(NULL, NULL, f->r, PG_S("root:repo/d/f.txt"),
                         PG_EDIT(PG_S("inside"), PG_S("inside"), 0), NULL, &err);
        const pathgate_fs_item up[] = {{PG_S("root:repo/d/up.txt"), "up", 2}};
        int code;
        pathgate_fs_upload(&code, f->r, up, 1, NULL, &err);
        pathgate_fs_blobs b = PATHGATE_FS_BLOBS_INIT;
        const pathgate_fs_item down[] = {{PG_S("root:repo/d/f.txt"), NULL, 0},
                                         {PG_S("root:repo/d2/f.txt"), NULL, 0}};
        if (pathgate_fs_download(&b, f->r, down, 2, NULL, &err) == 0)
            for (size_t k = 0; k < b.count; k++)
                check_not_outside((const char *)b.items[k].data, b.items[k].size);
        pathgate_fs_blobs_dispose(&b);
        if (i % 5 == 0) {
            pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
            if (pathgate_fs_grep(&m, f->r, PG_S("OUTSIDE"), NULL, 0, NULL, &err) == 0)
                assert_int_equal(m.count, 0);
            pathgate_fs_matches_dispose(&m);
            pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
            if (pathgate_fs_glob(&l, f->r, PG_S("**/x.txt"), NULL, 0, NULL, &err) == 0)
                assert_int_equal(l.count, 0);
            pathgate_fs_list_dispose(&l);
            if (pathgate_fs_ls(&l, f->r, PG_S("root:repo/d"), NULL, &err) == 0)
                for (size_t k = 0; k < l.count; k++)
                    assert_null(strstr(l.items[k].path, "x.txt"));
            pathgate_fs_list_dispose(&l);
        }
    }
    atomic_store(&r.stop, 1);
    pthread_join(t, NULL);

    /* the outside is exactly as it was */
    char *c = fx_get(f->outside, "f.txt", NULL);
    assert_string_equal(c, "OUTSIDE f\n");
    free(c);
    c = fx_get(f->outside, "x.txt", NULL);
    assert_string_equal(c, "OUTSIDE x\n");
    free(c);
    c = fx_get(f->outside, "secret.txt", NULL);
    assert_string_equal(c, "SECRET needle\n");
    free(c);
    assert_int_equal(outside_entries(f), before);
    /* the attack really ran, and the operations really ran too */
    assert_true(r.swaps > 10);
    assert_true(ok_reads > 0);
    print_message("%ld swaps, %ld successful reads\n", r.swaps, ok_reads);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TESTS(test_swapped_parents_never_lead_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
