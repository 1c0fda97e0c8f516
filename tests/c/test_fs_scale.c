/* test_fs_scale.c - the scale guarantees of the file operations: bounded
 * memory on an 8 GiB sparse file (resident memory measured), bounded
 * descriptors on a 256-level tree under a low RLIMIT_NOFILE with parallel
 * calls, parallel walks equal to the one-thread walk (order, max_count),
 * unreadable directories and unaddressable names counted, regular
 * expressions (PCRE2) with their errors and match limit, case-insensitive
 * search, and the streaming forms stopping early. */
/* ctest-labels: threads */
#include "fs_fixture.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static pathgate_fs_search_options opts_threads(unsigned int threads, unsigned int flags)
{
    pathgate_fs_search_options o = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    o.threads = threads;
    o.flags = flags;
    return o;
}

static int grep_with(fx *f, pathgate_fs_matches *m, const char *pattern, const char *addr,
                     const char *glob, size_t max, const pathgate_fs_search_options *o,
                     pathgate_error *err)
{
    return pathgate_fs_grep(m, f->r, PG_S(pattern), addr, addr ? strlen(addr) : 0,
                            PG_SEARCH(o, glob, glob ? strlen(glob) : 0, max), err);
}

/* Peak and current resident set in KiB (from /proc/self/status). */
static long status_kib(const char *key)
{
    FILE *fp = fopen("/proc/self/status", "r");
    assert_non_null(fp);
    char line[256];
    long v = -1;
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, fp))
        if (strncmp(line, key, klen) == 0 && line[klen] == ':')
            v = strtol(line + klen + 1, NULL, 10);
    fclose(fp);
    return v;
}

/* ------------------------------------------------------- bounded memory */

/* The bound this test states: an operation on the 8 GiB file may raise the
 * resident set by at most this much (the default size cap is 64 MiB; a
 * window read holds one 64 KiB block plus the window). */
#define RSS_BOUND_KIB (48 * 1024)

static void sparse(const char *dir, const char *rel, const char *head, off_t size)
{
    char p[1024];
    fx_path(p, sizeof p, dir, rel);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    if (head)
        assert_int_equal(write(fd, head, strlen(head)), (ssize_t)strlen(head));
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
}

static void test_sparse_8g_bounded(void **state)
{
    fx *f = *state;
    const off_t size = (off_t)8 << 30;
    sparse(f->repo, "huge.bin", NULL, size);
    sparse(f->repo, "huge.txt", "first line\nsecond needle\nthird\n", size);
    long before = status_kib("VmRSS");
    assert_true(before > 0);
    pathgate_error err;

    /* a window of the text head returns at once: only what it needs is read */
    pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/huge.txt"), 1, 2, NULL, &err), 0);
    assert_string_equal(rr.content.ptr, "second needle\nthird");
    assert_true(rr.partial);
    assert_true(rr.has_next);
    assert_int_equal(rr.start_line, 2);
    assert_int_equal(rr.end_line, 3);
    assert_int_equal(rr.encoding, PATHGATE_FS_UTF8);
    pathgate_fs_read_result_dispose(&rr);

    /* whole-file answers refuse past the cap with a clear error */
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/huge.bin"), 0, 10, NULL, &err),
                     PATHGATE_ETOOLARGE);
    assert_string_equal(err.message,
                        "File 'root:repo/huge.bin' is larger than the 67108864-byte size cap");
    assert_null(strstr(err.message, f->tmp));
    /* a window reaching the NUL bytes of the text file: not text, too big */
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/huge.txt"), 0, 10, NULL, &err),
                     PATHGATE_ETOOLARGE);
    pathgate_fs_item items[2] = {{PG_S("root:repo/huge.bin"), NULL, 0},
                                 {PG_S("root:repo/a.txt"), NULL, 0}};
    pathgate_fs_blobs blobs = PATHGATE_FS_BLOBS_INIT;
    assert_int_equal(pathgate_fs_download(&blobs, f->r, items, 2, NULL, &err), 0);
    assert_int_equal(blobs.items[0].code, PATHGATE_ETOOLARGE);
    assert_null(blobs.items[0].data);
    assert_int_equal(blobs.items[1].code, 0);
    pathgate_fs_blobs_dispose(&blobs);
    /* edit reads the whole file too */
    assert_int_equal(pathgate_fs_edit(NULL, NULL, f->r, PG_S("root:repo/huge.txt"),
                                      PG_EDIT(PG_S("first"), PG_S("1st"), 0), NULL, &err),
                     PATHGATE_ETOOLARGE);
    assert_string_equal(err.message,
                        "File 'root:repo/huge.txt' is larger than the 67108864-byte size cap");

    /* a configured cap */
    pathgate_fs_options small = PATHGATE_FS_OPTIONS_INIT;
    small.max_file_size = 12;
    /* a window of a larger text file: read as far as the window goes */
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/a.txt"), 0, 1, &small, &err), 0);
    assert_string_equal(rr.content.ptr, "alpha");
    assert_true(rr.partial);
    assert_true(rr.has_next);
    pathgate_fs_read_result_dispose(&rr);
    /* a window larger than the cap */
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/a.txt"), 0, 3, &small, &err),
                     PATHGATE_ETOOLARGE);
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/bin.dat"), 0, 10, &small, &err),
                     0); /* 3 bytes: under the cap */
    assert_int_equal(rr.encoding, PATHGATE_FS_BASE64);
    pathgate_fs_read_result_dispose(&rr);

    /* grep skips both (over the grep cap), says so, and finds the rest */
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    assert_int_equal(grep_with(f, &m, "needle", NULL, NULL, PATHGATE_FS_NO_LIMIT, NULL, &err), 0);
    assert_int_equal(m.skipped_large, 2);
    assert_true(m.incomplete);
    assert_int_equal(m.count, 4);
    pathgate_fs_matches_dispose(&m);
    /* with the cap raised, the text head is searched and the NULs after it
     * make the file binary: nothing from it, in bounded memory */
    pathgate_fs_search_options big = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    big.max_file_size = (uint64_t)16 << 30;
    big.threads = 1;
    assert_int_equal(
        grep_with(f, &m, "needle", "root:repo/huge.txt", NULL, PATHGATE_FS_NO_LIMIT, &big, &err),
        0);
    assert_int_equal(m.count, 0);
    pathgate_fs_matches_dispose(&m);

    long peak = status_kib("VmHWM");
    if (peak - before > RSS_BOUND_KIB)
        fail_msg("resident memory grew by %ld KiB (bound %d KiB)", peak - before, RSS_BOUND_KIB);
}

/* A long text file read in a window: identical to the whole-file window. */
static void test_read_window_streams(void **state)
{
    fx *f = *state;
    pathgate_error err;
    pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
    /* big.txt has 10000 lines "line N" */
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/big.txt"), 9998, 5, NULL, &err),
                     0);
    assert_string_equal(rr.content.ptr, "line 9999\nline 10000");
    assert_int_equal(rr.total_lines, 10000);
    assert_false(rr.has_next);
    assert_false(rr.partial);
    pathgate_fs_read_result_dispose(&rr);
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/big.txt"), 10000, 5, NULL, &err),
                     PATHGATE_ERANGE);
    assert_string_equal(err.message, "Line offset 10000 exceeds file length (10000 lines)");
    /* CRLF and a final line without terminator */
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/crlf.txt"), 1, 5, NULL, &err), 0);
    assert_string_equal(rr.content.ptr, "two\nthree");
    pathgate_fs_read_result_dispose(&rr);
    /* not text: said so, whole, and the window not applied */
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/latin1.txt"), 1, 1, NULL, &err),
                     0);
    assert_int_equal(rr.encoding, PATHGATE_FS_BASE64);
    assert_int_equal(rr.not_text, PATHGATE_FS_NOT_TEXT_UTF8);
    assert_string_equal(rr.content.ptr, "Y2Fm6Qo=");
    pathgate_fs_read_result_dispose(&rr);
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/bin.dat"), 0, 1, NULL, &err), 0);
    assert_int_equal(rr.not_text, PATHGATE_FS_NOT_TEXT_NUL);
    pathgate_fs_read_result_dispose(&rr);
    /* a 3-byte UTF-8 sequence split across the 64 KiB block border */
    size_t n = 65536 + 8;
    char *s = malloc(n);
    memset(s, 'a', n);
    memcpy(s + 65535, "\xE2\x82\xAC", 3);
    fx_put(f->repo, "euro.txt", s, n);
    free(s);
    assert_int_equal(pathgate_fs_read(&rr, f->r, PG_S("root:repo/euro.txt"), 0, 1, NULL, &err), 0);
    assert_int_equal(rr.encoding, PATHGATE_FS_UTF8);
    assert_int_equal(rr.content.len, n);
    pathgate_fs_read_result_dispose(&rr);
}

/* --------------------------------------------------- bounded descriptors */

#define DEEP 256

typedef struct deep_arg {
    fx *f;
    int rounds;
    int bad;
} deep_arg;

static void *deep_worker(void *p)
{
    deep_arg *a = p;
    for (int i = 0; i < a->rounds; i++) {
        pathgate_fs_search_options o = opts_threads(2, 0);
        pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
        pathgate_error err;
        int rc = pathgate_fs_grep(&m, a->f->r, PG_S("deepneedle"), PG_S("root:repo/deep"),
                                  PG_SEARCH(&o, NULL, 0, PATHGATE_FS_NO_LIMIT), &err);
        /* every match, or the result says what was not read */
        if (rc != 0 || (m.count != 2 && !m.incomplete) || m.truncated)
            a->bad++;
        pathgate_fs_matches_dispose(&m);
    }
    return NULL;
}

static void test_deep_tree_low_fd_limit(void **state)
{
    fx *f = *state;
    char rel[DEEP * 2 + 64] = "deep";
    fx_mkdir(f->repo, "deep");
    FX_PUT(f->repo, "deep/top.txt", "deepneedle top\n");
    for (int i = 0; i < DEEP - 1; i++) {
        strcat(rel, "/d");
        fx_mkdir(f->repo, rel);
    }
    char file[sizeof rel + 16];
    snprintf(file, sizeof file, "%s/bottom.txt", rel);
    FX_PUT(f->repo, file, "deepneedle bottom\n");

    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = 96;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    /* one call alone: both matches, far fewer descriptors than levels */
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    pathgate_error err;
    pathgate_fs_search_options one = opts_threads(1, 0);
    int rc =
        grep_with(f, &m, "deepneedle", "root:repo/deep", NULL, PATHGATE_FS_NO_LIMIT, &one, &err);
    assert_int_equal(rc, 0);
    assert_int_equal(m.count, 2);
    assert_false(m.incomplete);
    assert_string_equal(m.items[0].text, "deepneedle bottom"); /* d/ sorts before top.txt */
    pathgate_fs_matches_dispose(&m);
    /* eight calls at once, two threads each */
    pthread_t th[8];
    deep_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (deep_arg){f, 3, 0};
        assert_int_equal(pthread_create(&th[i], NULL, deep_worker, &args[i]), 0);
    }
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        bad += args[i].bad;
    }
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    assert_int_equal(bad, 0);
    /* the glob of the bottom file, in parallel */
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_fs_search_options par = opts_threads(4, 0);
    assert_int_equal(
        pathgate_fs_glob(&l, f->r, PG_S("**/bottom.txt"), PG_S("root:repo/deep"), &par, &err), 0);
    assert_int_equal(l.count, 1);
    assert_false(l.truncated);
    pathgate_fs_list_dispose(&l);
}

/* Unreadable directories are counted (as an unprivileged user: root reads
 * everything), in a child process. */
static void test_unreadable_dirs_counted(void **state)
{
    fx *f = *state;
    fx_mkdir(f->repo, "locked");
    FX_PUT(f->repo, "locked/x.txt", "needle locked\n");
    char p[1024];
    fx_path(p, sizeof p, f->repo, "locked");
    assert_int_equal(chmod(p, 0), 0);
    if (geteuid() != 0) {
        pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
        pathgate_error err;
        assert_int_equal(grep_with(f, &m, "needle", NULL, NULL, PATHGATE_FS_NO_LIMIT, NULL, &err),
                         0);
        assert_int_equal(m.unreadable_dirs, 1);
        assert_true(m.incomplete);
        pathgate_fs_matches_dispose(&m);
        chmod(p, 0755);
        return;
    }
    /* root: drop to nobody in a child that walks a world-readable copy */
    assert_int_equal(chmod(f->tmp, 0755), 0);
    assert_int_equal(chmod(f->repo, 0755), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(2);
        int code = 0;
        for (unsigned int threads = 1; threads <= 4; threads += 3) {
            pathgate_fs_search_options o = opts_threads(threads, 0);
            pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
            pathgate_error err;
            if (pathgate_fs_grep(&m, f->r, PG_S("needle"), NULL, 0,
                                 PG_SEARCH(&o, NULL, 0, PATHGATE_FS_NO_LIMIT), &err) != 0 ||
                m.unreadable_dirs != 1 || !m.incomplete || m.count != 4)
                code = 3;
            pathgate_fs_matches_dispose(&m);
            pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
            if (pathgate_fs_glob(&l, f->r, PG_S("*.txt"), NULL, 0, &o, &err) != 0 ||
                l.unreadable_dirs != 1 || !l.incomplete)
                code = 4;
            pathgate_fs_list_dispose(&l);
        }
        _exit(code);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    chmod(p, 0755);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_skipped_names_counted(void **state)
{
    fx *f = *state;
    FX_PUT(f->repo, "caf\xE9.txt", "needle latin1 name\n");
    FX_PUT(f->repo, "back\\slash.txt", "needle backslash\n");
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo"), NULL, &err), 0);
    assert_int_equal(l.skipped_names, 2);
    assert_true(l.incomplete);
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("*.txt"), NULL, 0, NULL, &err), 0);
    assert_int_equal(l.skipped_names, 2);
    pathgate_fs_list_dispose(&l);
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    assert_int_equal(grep_with(f, &m, "needle", NULL, NULL, PATHGATE_FS_NO_LIMIT, NULL, &err), 0);
    assert_int_equal(m.skipped_names, 2);
    assert_true(m.incomplete);
    pathgate_fs_matches_dispose(&m);
}

/* A name with whitespace at either end has no address that reads back
 * (resolve strips it: `x ` would be `x`), so the walks skip and count it:
 * every address ls, glob and grep show resolves back to the same entry. */
static void test_space_edged_names_skipped(void **state)
{
    fx *f = *state;
    fx_mkdir(f->repo, "ws");
    FX_PUT(f->repo, "ws/x", "needle plain\n");
    FX_PUT(f->repo, "ws/x ", "needle trailing\n");
    FX_PUT(f->repo, "ws/ y.txt", "needle leading\n");
    fx_mkdir(f->repo, "ws/d ");
    FX_PUT(f->repo, "ws/d /z.txt", "needle below\n");
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_ls(&l, f->r, PG_S("root:repo/ws"), NULL, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/ws/x");
    assert_int_equal(l.skipped_names, 3); /* `x `, ` y.txt`, `d ` (not entered) */
    assert_true(l.incomplete);
    /* what is shown reads back as itself, not as another entry */
    pathgate_fs_read_result rr = PATHGATE_FS_READ_RESULT_INIT;
    assert_int_equal(
        pathgate_fs_read(&rr, f->r, l.items[0].path, l.items[0].path_len, 0, 10, NULL, &err), 0);
    assert_string_equal(rr.path.ptr, "root:repo/ws/x");
    assert_non_null(strstr(rr.content.ptr, "needle plain"));
    pathgate_fs_read_result_dispose(&rr);
    pathgate_fs_list_dispose(&l);
    assert_int_equal(pathgate_fs_glob(&l, f->r, PG_S("**"), PG_S("root:repo/ws"), NULL, &err), 0);
    assert_int_equal(l.count, 1);
    assert_string_equal(l.items[0].path, "root:repo/ws/x");
    assert_int_equal(l.skipped_names, 3);
    assert_true(l.incomplete);
    pathgate_fs_list_dispose(&l);
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    assert_int_equal(
        grep_with(f, &m, "needle", "root:repo/ws", NULL, PATHGATE_FS_NO_LIMIT, NULL, &err), 0);
    assert_int_equal(m.count, 1);
    assert_string_equal(m.items[0].path, "root:repo/ws/x");
    assert_int_equal(m.skipped_names, 3);
    assert_true(m.incomplete);
    pathgate_fs_matches_dispose(&m);
}

/* ------------------------------------------------------ parallel walks */

static unsigned int rnd(unsigned int *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

/* A generated tree: nested and dot directories, files with and without
 * matches, symlinks in and out. */
static void make_tree(fx *f, unsigned int seed)
{
    char rel[256];
    fx_mkdir(f->repo, "gen");
    int ndirs = 0;
    char dirs[64][128];
    strcpy(dirs[ndirs++], "gen");
    for (int i = 0; i < 40; i++) {
        const char *parent = dirs[rnd(&seed) % (unsigned)ndirs];
        snprintf(rel, sizeof rel, "%s/%sd%d", parent, rnd(&seed) % 5 == 0 ? "." : "", i);
        if (strlen(rel) >= 120)
            continue;
        fx_mkdir(f->repo, rel);
        strcpy(dirs[ndirs++], rel);
    }
    for (int i = 0; i < 400; i++) {
        const char *d = dirs[rnd(&seed) % (unsigned)ndirs];
        snprintf(rel, sizeof rel, "%s/f%d.%s", d, i, rnd(&seed) % 3 ? "txt" : "py");
        char body[256];
        int k = 0;
        int lines = (int)(rnd(&seed) % 6);
        for (int j = 0; j < lines; j++)
            k += snprintf(body + k, sizeof body - (size_t)k, "%s %d\n",
                          rnd(&seed) % 3 == 0 ? "hit Needle" : "plain", j);
        fx_put(f->repo, rel, body, (size_t)k);
    }
    fx_link(f->repo, "gen/in_link.txt", "d0/../../a.txt");
    fx_link(f->repo, "gen/out_link.txt", "../../outside/secret.txt");
    fx_link(f->repo, "gen/out_dir", "../../outside");
}

static void same_matches(const pathgate_fs_matches *a, const pathgate_fs_matches *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->truncated, b->truncated);
    assert_int_equal(a->incomplete, b->incomplete);
    for (size_t i = 0; i < a->count; i++) {
        assert_string_equal(a->items[i].path, b->items[i].path);
        assert_int_equal(a->items[i].line, b->items[i].line);
        assert_string_equal(a->items[i].text, b->items[i].text);
    }
}

static void test_parallel_equals_sequential(void **state)
{
    fx *f = *state;
    make_tree(f, 7);
    pathgate_error err;
    pathgate_fs_search_options one = opts_threads(1, 0);
    static const unsigned int thread_counts[] = {2, 3, 8};
    static const size_t caps[] = {0, 1, 2, 7, 50, PATHGATE_FS_NO_LIMIT};
    pathgate_fs_matches all = PATHGATE_FS_MATCHES_INIT;
    assert_int_equal(
        grep_with(f, &all, "Needle", "root:repo/gen", NULL, PATHGATE_FS_NO_LIMIT, &one, &err), 0);
    assert_true(all.count > 60);
    for (size_t i = 0; i < all.count; i++)
        assert_null(strstr(all.items[i].text, "SECRET"));
    for (size_t t = 0; t < 3; t++) {
        pathgate_fs_search_options par = opts_threads(thread_counts[t], 0);
        for (size_t c = 0; c < 6; c++) {
            pathgate_fs_matches a = PATHGATE_FS_MATCHES_INIT, b = PATHGATE_FS_MATCHES_INIT;
            assert_int_equal(grep_with(f, &a, "Needle", "root:repo/gen", NULL, caps[c], &one, &err),
                             0);
            assert_int_equal(grep_with(f, &b, "Needle", "root:repo/gen", NULL, caps[c], &par, &err),
                             0);
            same_matches(&a, &b);
            /* max_count exact */
            size_t want = caps[c] < all.count ? caps[c] : all.count;
            assert_int_equal(b.count, want);
            assert_int_equal(b.truncated, caps[c] < all.count);
            pathgate_fs_matches_dispose(&a);
            pathgate_fs_matches_dispose(&b);
        }
        /* with a glob, and a regex */
        pathgate_fs_matches a = PATHGATE_FS_MATCHES_INIT, b = PATHGATE_FS_MATCHES_INIT;
        pathgate_fs_search_options rone = opts_threads(1, PATHGATE_FS_SEARCH_REGEX);
        pathgate_fs_search_options rpar = opts_threads(thread_counts[t], PATHGATE_FS_SEARCH_REGEX);
        assert_int_equal(grep_with(f, &a, "^hit N[a-z]+ [0-3]$", "root:repo/gen", "*.py",
                                   PATHGATE_FS_NO_LIMIT, &rone, &err),
                         0);
        assert_int_equal(grep_with(f, &b, "^hit N[a-z]+ [0-3]$", "root:repo/gen", "*.py",
                                   PATHGATE_FS_NO_LIMIT, &rpar, &err),
                         0);
        assert_true(a.count > 5);
        same_matches(&a, &b);
        pathgate_fs_matches_dispose(&a);
        pathgate_fs_matches_dispose(&b);
        /* glob */
        static const char *const globs[] = {"*.txt", "**/.d*/*", "d1*/**/*.py", "*"};
        for (size_t g = 0; g < 4; g++) {
            pathgate_fs_list la = PATHGATE_FS_LIST_INIT, lb = PATHGATE_FS_LIST_INIT;
            assert_int_equal(
                pathgate_fs_glob(&la, f->r, PG_S(globs[g]), PG_S("root:repo/gen"), &one, &err), 0);
            assert_int_equal(
                pathgate_fs_glob(&lb, f->r, PG_S(globs[g]), PG_S("root:repo/gen"), &par, &err), 0);
            assert_int_equal(la.count, lb.count);
            for (size_t i = 0; i < la.count; i++) {
                assert_string_equal(la.items[i].path, lb.items[i].path);
                assert_null(strstr(la.items[i].path, "out_"));
            }
            pathgate_fs_list_dispose(&la);
            pathgate_fs_list_dispose(&lb);
        }
    }
    pathgate_fs_matches_dispose(&all);
}

/* A directory swapped for an outward symlink while parallel walks run:
 * nothing outside is ever read. */
typedef struct swap_arg {
    fx *f;
    volatile int stop;
} swap_arg;

static void *swapper(void *p)
{
    swap_arg *a = p;
    char dir[1024], aside[1024], tmp[1024];
    fx_path(dir, sizeof dir, a->f->repo, "swap");
    fx_path(aside, sizeof aside, a->f->repo, "swap.real");
    fx_path(tmp, sizeof tmp, a->f->repo, "swap.link");
    while (!__atomic_load_n(&a->stop, __ATOMIC_RELAXED)) {
        /* swap <-> outward symlink, atomically */
        renameat2(AT_FDCWD, dir, AT_FDCWD, tmp, RENAME_EXCHANGE);
        renameat2(AT_FDCWD, dir, AT_FDCWD, tmp, RENAME_EXCHANGE);
    }
    (void)aside;
    return NULL;
}

static void test_swap_to_outward_symlink(void **state)
{
    fx *f = *state;
    fx_mkdir(f->repo, "swap");
    for (int i = 0; i < 30; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "swap/s%02d", i);
        fx_mkdir(f->repo, rel);
        snprintf(rel, sizeof rel, "swap/s%02d/f.txt", i);
        FX_PUT(f->repo, rel, "needle inside\n");
    }
    fx_mkdir(f->outside, "deep");
    FX_PUT(f->outside, "deep/leak.txt", "needle OUTSIDE\n");
    for (int i = 0; i < 30; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "s%02d", i);
        fx_link(f->outside, rel, "deep");
    }
    char target[1024];
    fx_path(target, sizeof target, f->tmp, "outside");
    fx_link(f->repo, "swap.link", target);
    swap_arg sa = {f, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, swapper, &sa), 0);
    int leaks = 0, walks = 0;
    for (int i = 0; i < 150; i++) {
        pathgate_fs_search_options o = opts_threads(i % 2 ? 4 : 1, 0);
        pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
        pathgate_error err;
        if (pathgate_fs_grep(&m, f->r, PG_S("needle"), NULL, 0,
                             PG_SEARCH(&o, NULL, 0, PATHGATE_FS_NO_LIMIT), &err) == 0) {
            walks++;
            for (size_t k = 0; k < m.count; k++)
                leaks += strstr(m.items[k].text, "OUTSIDE") != NULL;
        }
        pathgate_fs_matches_dispose(&m);
        pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
        if (pathgate_fs_glob(&l, f->r, PG_S("**/leak.txt"), NULL, 0, &o, &err) == 0)
            leaks += (int)l.count;
        pathgate_fs_list_dispose(&l);
    }
    __atomic_store_n(&sa.stop, 1, __ATOMIC_RELAXED);
    pthread_join(th, NULL);
    assert_int_equal(leaks, 0);
    assert_true(walks > 0);
}

/* ---------------------------------------------------------------- regex */

static void test_regex(void **state)
{
    fx *f = *state;
    pathgate_error err;
    pathgate_fs_search_options re = opts_threads(0, PATHGATE_FS_SEARCH_REGEX);
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    assert_int_equal(grep_with(f, &m, "^line 99[0-9]$", "root:repo/big.txt", NULL,
                               PATHGATE_FS_NO_LIMIT, &re, &err),
                     0);
    assert_int_equal(m.count, 10);
    assert_int_equal(m.items[0].line, 990);
    assert_string_equal(m.items[9].text, "line 999");
    pathgate_fs_matches_dispose(&m);
    /* $ at a CRLF line's end */
    assert_int_equal(
        grep_with(f, &m, "^t\\w+o$", "root:repo/crlf.txt", NULL, PATHGATE_FS_NO_LIMIT, &re, &err),
        0);
    assert_int_equal(m.count, 1);
    assert_string_equal(m.items[0].text, "two");
    pathgate_fs_matches_dispose(&m);
    /* invalid: the problem named, not the path */
    assert_int_equal(grep_with(f, &m, "a(b", NULL, NULL, PATHGATE_FS_NO_LIMIT, &re, &err),
                     PATHGATE_EINVAL);
    assert_string_equal(err.message,
                        "invalid regular expression at offset 3: missing closing parenthesis");
    assert_int_equal(grep_with(f, &m, "[z-a]", NULL, NULL, PATHGATE_FS_NO_LIMIT, &re, &err),
                     PATHGATE_EINVAL);
    assert_non_null(strstr(err.message, "range out of order"));
    /* catastrophic backtracking ends with the match-limit error */
    size_t n = 5000;
    char *s = malloc(n + 2);
    memset(s, 'a', n);
    s[n] = '!';
    s[n + 1] = '\n';
    fx_put(f->repo, "redos.txt", s, n + 2);
    free(s);
    assert_int_equal(
        grep_with(f, &m, "(a+)+$", "root:repo/redos.txt", NULL, PATHGATE_FS_NO_LIMIT, &re, &err),
        PATHGATE_ELIMIT);
    assert_string_equal(err.message, "regular expression match limit exceeded on line 1 of "
                                     "'root:repo/redos.txt' (simplify the pattern)");
    assert_int_equal(m.count, 0);
    /* case-insensitive, literal and regex */
    pathgate_fs_search_options ci = opts_threads(0, PATHGATE_FS_SEARCH_IGNORE_CASE);
    assert_int_equal(
        grep_with(f, &m, "NEEDLE", "root:repo/dir", NULL, PATHGATE_FS_NO_LIMIT, &ci, &err), 0);
    assert_int_equal(m.count, 2);
    pathgate_fs_matches_dispose(&m);
    assert_int_equal(
        grep_with(f, &m, "a.c", "root:repo/dir", NULL, PATHGATE_FS_NO_LIMIT, &ci, &err), 0);
    assert_int_equal(m.count, 0); /* a literal: '.' is a dot */
    pathgate_fs_matches_dispose(&m);
    pathgate_fs_search_options reci =
        opts_threads(0, PATHGATE_FS_SEARCH_REGEX | PATHGATE_FS_SEARCH_IGNORE_CASE);
    assert_int_equal(
        grep_with(f, &m, "^D\\w+ N", "root:repo/dir", NULL, PATHGATE_FS_NO_LIMIT, &reci, &err), 0);
    assert_int_equal(m.count, 1);
    assert_string_equal(m.items[0].text, "deep needle");
    pathgate_fs_matches_dispose(&m);
    /* invalid UTF-8 in a file does not stop a UTF-8 pattern */
    assert_int_equal(
        grep_with(f, &m, "^caf", "root:repo/latin1.txt", NULL, PATHGATE_FS_NO_LIMIT, &re, &err), 0);
    assert_int_equal(m.count, 1);
    pathgate_fs_matches_dispose(&m);
}

/* ------------------------------------------------------------ streaming */

typedef struct collect {
    size_t calls, items, stop_after;
    char first[256];
} collect;

static int on_matches(const pathgate_fs_match *items, size_t count, void *ctx)
{
    collect *c = ctx;
    if (!c->items && count)
        snprintf(c->first, sizeof c->first, "%s:%llu", items[0].path,
                 (unsigned long long)items[0].line);
    c->calls++;
    c->items += count;
    return c->stop_after && c->items >= c->stop_after;
}

static int on_infos(const pathgate_fs_info *items, size_t count, void *ctx)
{
    collect *c = ctx;
    if (!c->items && count)
        snprintf(c->first, sizeof c->first, "%s", items[0].path);
    c->calls++;
    c->items += count;
    return c->stop_after && c->items >= c->stop_after;
}

static void test_streaming(void **state)
{
    fx *f = *state;
    pathgate_error err;
    /* 60 files of 20 matching lines: 1200 matches */
    fx_mkdir(f->repo, "stream");
    for (int i = 0; i < 60; i++) {
        char rel[64], body[20 * 16];
        int k = 0;
        for (int j = 0; j < 20; j++)
            k += snprintf(body + k, sizeof body - (size_t)k, "item %d\n", j);
        snprintf(rel, sizeof rel, "stream/f%02d.txt", i);
        fx_put(f->repo, rel, body, (size_t)k);
    }
    for (unsigned int threads = 1; threads <= 4; threads += 3) {
        pathgate_fs_search_options o = opts_threads(threads, 0);
        collect c = {0, 0, 0, ""};
        pathgate_fs_matches sum = PATHGATE_FS_MATCHES_INIT;
        assert_int_equal(pathgate_fs_grep_each(&sum, f->r, PG_S("item"), PG_S("root:repo/stream"),
                                               on_matches, &c,
                                               PG_SEARCH(&o, NULL, 0, PATHGATE_FS_NO_LIMIT), &err),
                         0);
        assert_int_equal(c.items, 1200);
        assert_true(c.calls > 1); /* in batches, as found */
        assert_string_equal(c.first, "root:repo/stream/f00.txt:1");
        assert_int_equal(sum.count, 0);
        assert_int_equal(sum.files_scanned, 60);
        pathgate_fs_matches_dispose(&sum);
        /* the consumer stops early: the walk ends there */
        collect s = {0, 0, 300, ""};
        assert_int_equal(pathgate_fs_grep_each(&sum, f->r, PG_S("item"), PG_S("root:repo/stream"),
                                               on_matches, &s,
                                               PG_SEARCH(&o, NULL, 0, PATHGATE_FS_NO_LIMIT), &err),
                         0);
        assert_true(s.items >= 300 && s.items < 1200);
        assert_true(sum.files_scanned < 60);
        pathgate_fs_matches_dispose(&sum);
        /* max_count through the stream */
        collect mc = {0, 0, 0, ""};
        assert_int_equal(pathgate_fs_grep_each(&sum, f->r, PG_S("item"), PG_S("root:repo/stream"),
                                               on_matches, &mc, PG_SEARCH(&o, NULL, 0, 777), &err),
                         0);
        assert_int_equal(mc.items, 777);
        assert_true(sum.truncated);
        pathgate_fs_matches_dispose(&sum);
        /* glob */
        collect g = {0, 0, 0, ""};
        pathgate_fs_list ls = PATHGATE_FS_LIST_INIT;
        assert_int_equal(
            pathgate_fs_glob_each(&ls, f->r, PG_S("**/*.txt"), NULL, 0, on_infos, &g, &o, &err), 0);
        assert_true(g.items > 60);
        assert_string_equal(g.first, "root:repo/a.txt");
        assert_int_equal(ls.count, 0);
        pathgate_fs_list_dispose(&ls);
        collect gs = {0, 0, 1, ""};
        assert_int_equal(
            pathgate_fs_glob_each(&ls, f->r, PG_S("**/*.txt"), NULL, 0, on_infos, &gs, &o, &err),
            0);
        assert_int_equal(gs.calls, 1); /* never called again after it said stop */
        pathgate_fs_list_dispose(&ls);
    }
}

static void test_iterators(void **state)
{
    fx *f = *state;
    pathgate_error err;
    /* every match of big.txt, one at a time, in order */
    pathgate_fs_iter *it = NULL;
    assert_int_equal(
        pathgate_fs_grep_iter_new(&it, f->r, PG_S("line"), PG_S("root:repo/big.txt"), NULL, &err),
        0);
    const pathgate_fs_match *m;
    uint64_t n = 0;
    int rc;
    while ((rc = pathgate_fs_iter_next_match(&m, it, &err)) == 1) {
        n++;
        assert_int_equal(m->line, n);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(n, 10000);
    assert_false(pathgate_fs_iter_grep_summary(it)->truncated);
    pathgate_fs_iter_free(it);
    /* stopped after three: the walk ends, nothing leaks */
    assert_int_equal(pathgate_fs_grep_iter_new(&it, f->r, PG_S("e"), NULL, 0, NULL, &err), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(pathgate_fs_iter_next_match(&m, it, &err), 1);
    pathgate_fs_iter_free(it);
    /* an invalid pattern: the error comes with the first next */
    pathgate_fs_search_options re = opts_threads(0, PATHGATE_FS_SEARCH_REGEX);
    assert_int_equal(pathgate_fs_grep_iter_new(&it, f->r, PG_S("("), NULL, 0,
                                               PG_SEARCH(&re, NULL, 0, PATHGATE_FS_NO_LIMIT), &err),
                     0);
    assert_int_equal(pathgate_fs_iter_next_match(&m, it, &err), PATHGATE_EINVAL);
    assert_non_null(strstr(err.message, "invalid regular expression"));
    pathgate_fs_iter_free(it);
    /* glob, with metadata */
    pathgate_fs_search_options meta = opts_threads(2, PATHGATE_FS_SEARCH_METADATA);
    assert_int_equal(
        pathgate_fs_glob_iter_new(&it, f->r, PG_S("*.txt"), PG_S("root:repo/dir"), &meta, &err), 0);
    const pathgate_fs_info *info;
    assert_int_equal(pathgate_fs_iter_next_info(&info, it, &err), 1);
    assert_string_equal(info->path, "root:repo/dir/sub/deep.txt");
    assert_true(info->has_metadata);
    assert_int_equal(info->size, 12);
    assert_int_equal(pathgate_fs_iter_next_info(&info, it, &err), 0);
    assert_int_equal(pathgate_fs_iter_next_match(&m, it, &err), PATHGATE_EINVAL);
    pathgate_fs_iter_free(it);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_sparse_8g_bounded, fx_setup_openat2, fx_teardown),
        FX_TESTS(test_read_window_streams),
        cmocka_unit_test_setup_teardown(test_deep_tree_low_fd_limit, fx_setup_openat2, fx_teardown),
        cmocka_unit_test_setup_teardown(test_unreadable_dirs_counted, fx_setup_openat2,
                                        fx_teardown),
        FX_TESTS(test_skipped_names_counted),
        FX_TESTS(test_space_edged_names_skipped),
        FX_TESTS(test_parallel_equals_sequential),
        cmocka_unit_test_setup_teardown(test_swap_to_outward_symlink, fx_setup_openat2,
                                        fx_teardown),
        FX_TESTS(test_regex),
        FX_TESTS(test_streaming),
        FX_TESTS(test_iterators),
    };
    if (getenv("PG_TEST_FILTER"))
        cmocka_set_test_filter(getenv("PG_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
