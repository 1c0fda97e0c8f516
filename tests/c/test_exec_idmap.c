/* test_exec_idmap.c - the range of ids a root caller's command maps beside
 * 0 (docs/exec.md "Ownership changes inside"), chosen from an etc
 * directory made here: root's own /etc/subuid and /etc/subgid entries,
 * else the dedicated range; never one that holds an id below 65536, a
 * user's or group's id, or another range; an explicit one refused when
 * it does; and a caller other than root's own subordinate ids. */
#define _GNU_SOURCE
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec_idmap.h"

typedef struct fixture {
    char *tmp;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->tmp = pg_tmpdir_make();
    assert_non_null(f->tmp);
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

/* Writes etc/<name> (NULL text: removes it). */
static void put(const fixture *f, const char *name, const char *text)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", f->tmp, name);
    if (!text) {
        unlink(p);
        return;
    }
    FILE *fp = fopen(p, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static const char *const PASSWD = "root:x:0:0:root:/root:/bin/bash\n"
                                  "daemon:x:1:1::/:/usr/sbin/nologin\n"
                                  "me:x:1000:1000::/home/me:/bin/sh\n"
                                  "nobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n";
static const char *const GROUP = "root:x:0:\nme:x:1000:\nnogroup:x:65534:\n";

static void base(const fixture *f)
{
    put(f, "passwd", PASSWD);
    put(f, "group", GROUP);
    put(f, "subuid", NULL);
    put(f, "subgid", NULL);
}

static void test_default_range_without_subuid(void **state)
{
    fixture *f = *state;
    base(f);
    pathgate__exec_idrange r;
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.uid_first, PATHGATE_EXEC_ID_RANGE_DEFAULT_FIRST);
    assert_int_equal(r.gid_first, PATHGATE_EXEC_ID_RANGE_DEFAULT_FIRST);
    assert_int_equal(r.n, 65533);
    /* the map line: inside 1.. is first+1.. */
    char map[64] = "0 65534 1\n";
    pathgate__exec_idmap_range_line(map, sizeof map, r.uid_first, r.n);
    assert_string_equal(map, "0 65534 1\n1 2130706433 65533\n");
}

static void test_roots_own_entries_come_first(void **state)
{
    fixture *f = *state;
    base(f);
    put(f, "subuid", "me:100000:65536\nroot:165536:65536\n");
    put(f, "subgid", "me:100000:65536\n0:231072:10\n");
    pathgate__exec_idrange r;
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.uid_first, 165536);
    assert_int_equal(r.gid_first, 231072);
    assert_int_equal(r.n, 9); /* the smaller: 10 ids, 0's unused */
    /* only in subuid: the dedicated range for both */
    put(f, "subgid", "me:100000:65536\n");
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.uid_first, PATHGATE_EXEC_ID_RANGE_DEFAULT_FIRST);
    assert_int_equal(r.n, 65533);
    /* malformed entries are not root's */
    put(f, "subuid", "root:abc:65536\nroot:165536\nroot:165536:1\n");
    put(f, "subgid", "root:165536:65536\n");
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.uid_first, PATHGATE_EXEC_ID_RANGE_DEFAULT_FIRST);
}

static void test_a_range_meeting_anything_is_not_used(void **state)
{
    fixture *f = *state;
    pathgate__exec_idrange r;
    /* a user inside the dedicated range: none */
    base(f);
    put(f, "passwd", "root:x:0:0::/root:/bin/sh\nodd:x:2130707000:1000::/:/bin/sh\n");
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.n, 0);
    /* a group there */
    base(f);
    put(f, "group", "root:x:0:\nodd:x:2130706500:\n");
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.n, 0);
    /* another user's subordinate range there */
    base(f);
    put(f, "subuid", "podman:2130700000:100000\n");
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.n, 0);
    /* root's own entry meeting another's */
    put(f, "subuid", "root:100000:65536\nme:150000:65536\n");
    put(f, "subgid", "root:100000:65536\n");
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.n, 0);
    /* root's own entry in the users' space */
    put(f, "subuid", "root:1000:65536\n");
    put(f, "subgid", "root:1000:65536\n");
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.n, 0);
    /* no passwd at all: nothing can be checked, nothing is used */
    base(f);
    put(f, "passwd", NULL);
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 0), 0);
    assert_int_equal(r.n, 0);
}

static void test_explicit_ranges(void **state)
{
    fixture *f = *state;
    base(f);
    put(f, "subuid", "me:100000:65536\n");
    pathgate__exec_idrange r;
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 3000000000u, 65536), 0);
    assert_int_equal(r.uid_first, 3000000000u);
    assert_int_equal(r.n, 65533);
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 3000000000u, 100), 0);
    assert_int_equal(r.n, 99);
    /* count 1: none, never an error */
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 1), 0);
    assert_int_equal(r.n, 0);
    /* refused: the users' space, a user's subordinate range, past the end */
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 0, 65536), -1);
    assert_int_equal(r.n, 0);
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 65000, 65536), -1);
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 90000, 65536), -1);
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 4294967000u, 65536), -1);
    assert_int_equal(pathgate__exec_idmap_range(&r, f->tmp, 4294967000u, 294), 0);
    assert_int_equal(r.n, 293); /* its last id 4294967293 */
}

/* A caller other than root ("me", uid 1000): its own subordinate ids,
 * inside 1 the entry's first id (as rootless containers map them). */
static void test_callers_own_subordinate_ids(void **state)
{
    fixture *f = *state;
    base(f);
    put(f, "subuid", "other:100000:65536\nme:165536:65536\nme:400000:10\n");
    put(f, "subgid", "other:100000:65536\n1000:231072:65536\n");
    pathgate__exec_idrange r;
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 0), 0);
    assert_int_equal(r.uid_first, 165535);
    assert_int_equal(r.gid_first, 231071);
    assert_int_equal(r.n, 65533); /* inside 65534 stays unmapped */
    /* inside 1000 is the entry's first + 999 */
    char map[64] = "0 1000 1\n";
    pathgate__exec_idmap_range_line(map, sizeof map, r.uid_first, r.n);
    assert_string_equal(map, "0 1000 1\n1 165536 65533\n");
    /* the smaller entry bounds both */
    put(f, "subgid", "me:231072:100\n");
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 0), 0);
    assert_int_equal(r.n, 100);
    /* none without both entries, or for another caller */
    put(f, "subgid", "other:231072:65536\n");
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 0), 0);
    assert_int_equal(r.n, 0);
    put(f, "subgid", "me:231072:65536\n");
    put(f, "subuid", "mel:165536:65536\n1:165536:65536\n10000:165536:65536\n");
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 0), 0);
    assert_int_equal(r.n, 0);
    put(f, "subuid", NULL);
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 0), 0);
    assert_int_equal(r.n, 0);
    /* count 1: none even with entries */
    put(f, "subuid", "me:165536:65536\n");
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 1), 0);
    assert_int_equal(r.n, 0);
}

static void test_callers_entries_meeting_anything_are_not_used(void **state)
{
    fixture *f = *state;
    pathgate__exec_idrange r;
    base(f);
    /* in the users' space (an admin's slip): a user's files would be the
     * command's */
    put(f, "subuid", "me:1:65536\n");
    put(f, "subgid", "me:1:65536\n");
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 0), 0);
    assert_int_equal(r.n, 0);
    /* meeting another user's range */
    put(f, "subuid", "me:165536:65536\nother:200000:65536\n");
    put(f, "subgid", "me:165536:65536\n");
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 0), 0);
    assert_int_equal(r.n, 0);
    /* holding a user's id */
    put(f, "subuid", "me:165536:65536\n");
    put(f, "passwd", "me:x:1000:1000::/home/me:/bin/sh\nodd:x:170000:1000::/:/bin/sh\n");
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 0), 0);
    assert_int_equal(r.n, 0);
    /* malformed or past the end: not an entry */
    base(f);
    put(f, "subuid", "me:abc:65536\nme:165536\nme:0:65536\nme:4294967000:65536\n");
    put(f, "subgid", "me:165536:65536\n");
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 0, 0), 0);
    assert_int_equal(r.n, 0);
}

static void test_callers_explicit_ranges(void **state)
{
    fixture *f = *state;
    base(f);
    put(f, "subuid", "me:165536:65536\nme:265536:200000\n");
    put(f, "subgid", "me:300000:1000\n");
    pathgate__exec_idrange r;
    /* inside k is first + k: inside an entry of each (the uid's second) */
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 299999, 1001), 0);
    assert_int_equal(r.uid_first, 299999);
    assert_int_equal(r.gid_first, 299999);
    assert_int_equal(r.n, 1000);
    /* one past the gid entry, or below it: refused */
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 299999, 1002), -1);
    assert_int_equal(r.n, 0);
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 299998, 10), -1);
    /* ids of no entry of the caller's, or another caller's */
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 3000000000u, 100), -1);
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "you", 1001, 299999, 100), -1);
    /* count 1: none, never an error */
    assert_int_equal(pathgate__exec_idmap_subids(&r, f->tmp, "me", 1000, 5, 1), 0);
    assert_int_equal(r.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_default_range_without_subuid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_roots_own_entries_come_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_range_meeting_anything_is_not_used, setup, teardown),
        cmocka_unit_test_setup_teardown(test_explicit_ranges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_callers_own_subordinate_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_callers_entries_meeting_anything_are_not_used, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_callers_explicit_ranges, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
