/* test_fs_headtail.c - head and tail in bounded memory: a window larger
 * than the size cap is refused with the cap's message as soon as the bytes
 * read show it, a window within it is answered, exactly at the cap too;
 * on an 8 GiB sparse file (no newline, or lines only at both ends) the
 * core allocates at most the cap plus two 64 KiB blocks (counted by the
 * allocator) and the resident set grows by no more than that (measured,
 * the peak reset through /proc/self/clear_refs). */
#include "fs_fixture.h"

#include <stdio.h>

#define KIB 1024
#define CHUNK (64 * KIB)

/* --------------------------------------------- an allocator that counts */

/* Every block carries its size in front, so that the live total and its
 * peak are known; the blocks come from cmocka (leaks are still caught). */
typedef struct counting {
    pathgate_allocator alloc;
    size_t live, peak;
} counting;

#define HDR 16

static void *c_malloc(size_t n, void *ctx)
{
    counting *c = ctx;
    unsigned char *p = test_malloc(n + HDR);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    c->live += n;
    if (c->live > c->peak)
        c->peak = c->live;
    return p + HDR;
}

static void c_free(void *ptr, void *ctx)
{
    counting *c = ctx;
    if (!ptr)
        return;
    unsigned char *p = (unsigned char *)ptr - HDR;
    size_t n;
    memcpy(&n, p, sizeof n);
    c->live -= n;
    test_free(p);
}

static void *c_realloc(void *ptr, size_t n, void *ctx)
{
    counting *c = ctx;
    if (!ptr)
        return c_malloc(n, ctx);
    unsigned char *p = (unsigned char *)ptr - HDR;
    size_t old;
    memcpy(&old, p, sizeof old);
    unsigned char *q = test_realloc(p, n + HDR);
    if (!q)
        return NULL;
    memcpy(q, &n, sizeof n);
    c->live = c->live - old + n;
    if (c->live > c->peak)
        c->peak = c->live;
    return q + HDR;
}

static void counting_init(counting *c)
{
    memset(c, 0, sizeof *c);
    c->alloc.malloc = c_malloc;
    c->alloc.realloc = c_realloc;
    c->alloc.free = c_free;
    c->alloc.ctx = c;
}

/* ------------------------------------------------------------- helpers */

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

/* Resets the peak resident set (VmHWM) to the current one: 1 when the
 * kernel allows it (Linux >= 4.0). */
static int reset_peak(void)
{
    FILE *fp = fopen("/proc/self/clear_refs", "w");
    if (!fp)
        return 0;
    int ok = fputs("5", fp) >= 0;
    return fclose(fp) == 0 && ok;
}

/* A sparse file: head at the start, tail at the end, size bytes in all. */
static void sparse(const char *dir, const char *rel, const char *head, const char *tail, off_t size)
{
    char p[1024];
    fx_path(p, sizeof p, dir, rel);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    if (head)
        assert_int_equal(write(fd, head, strlen(head)), (ssize_t)strlen(head));
    if (tail)
        assert_int_equal(pwrite(fd, tail, strlen(tail), size - (off_t)strlen(tail)),
                         (ssize_t)strlen(tail));
    assert_int_equal(ftruncate(fd, size), 0);
    close(fd);
}

static pathgate_fs_options cap_opts(uint64_t cap)
{
    pathgate_fs_options o = PATHGATE_FS_OPTIONS_INIT;
    o.max_file_size = cap;
    return o;
}

/* head (tail = 0) or tail of addr under opts: 0 and the bytes in *out, or
 * the code with err filled. */
static int ht(pathgate_resolver *r, int tail, const char *addr, size_t lines,
              const pathgate_fs_options *o, pathgate_buf *out, pathgate_error *err)
{
    return tail ? pathgate_fs_tail(out, r, PG_S(addr), lines, o, err)
                : pathgate_fs_head(out, r, PG_S(addr), lines, o, err);
}

static void expect(fx *f, int tail, const char *addr, size_t lines, uint64_t cap, const char *want)
{
    pathgate_fs_options o = cap_opts(cap);
    pathgate_buf b = PATHGATE_BUF_INIT;
    pathgate_error err;
    int rc = ht(f->r, tail, addr, lines, &o, &b, &err);
    if (rc != 0)
        fail_msg("%s %s %zu (cap %llu): %s", tail ? "tail" : "head", addr, lines,
                 (unsigned long long)cap, err.message);
    pg_assert_buf(&b, want);
}

static void expect_large(fx *f, int tail, const char *addr, size_t lines, uint64_t cap)
{
    pathgate_fs_options o = cap_opts(cap);
    pathgate_buf b = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(ht(f->r, tail, addr, lines, &o, &b, &err), PATHGATE_ETOOLARGE);
    char want[256];
    snprintf(want, sizeof want, "File '%s' is larger than the %llu-byte size cap", addr,
             (unsigned long long)cap);
    assert_string_equal(err.message, want);
    assert_null(b.ptr);
    assert_null(strstr(err.message, f->tmp));
}

/* --------------------------------------------------------------- tests */

/* big.txt: "line 1\n" .. "line 10000\n"; a.txt: "alpha\nbeta\ngamma\n" (17 bytes) */
static void test_windows_against_the_cap(void **state)
{
    fx *f = *state;
    /* whole files: under, at and over the cap */
    expect(f, 0, "root:repo/a.txt", PATHGATE_FS_NO_LIMIT, 17, "alpha\nbeta\ngamma\n");
    expect(f, 1, "root:repo/a.txt", PATHGATE_FS_NO_LIMIT, 17, "alpha\nbeta\ngamma\n");
    expect_large(f, 0, "root:repo/a.txt", PATHGATE_FS_NO_LIMIT, 16);
    expect_large(f, 1, "root:repo/a.txt", PATHGATE_FS_NO_LIMIT, 16);
    /* a window of a file larger than the cap: answered while it fits */
    expect(f, 0, "root:repo/big.txt", 2, 14, "line 1\nline 2\n");
    expect_large(f, 0, "root:repo/big.txt", 2, 13);
    expect_large(f, 0, "root:repo/big.txt", 3, 20);
    expect(f, 1, "root:repo/big.txt", 2, 21, "line 9999\nline 10000\n");
    expect_large(f, 1, "root:repo/big.txt", 2, 20);
    expect(f, 1, "root:repo/big.txt", 1, 11, "line 10000\n");
    expect_large(f, 0, "root:repo/big.txt", PATHGATE_FS_NO_LIMIT, 1 << 16);
    /* a window past the 64 KiB blocks, within a larger cap */
    pathgate_fs_options o = cap_opts(1 << 20);
    pathgate_buf b = PATHGATE_BUF_INIT;
    pathgate_error err;
    assert_int_equal(ht(f->r, 1, "root:repo/big.txt", 9000, &o, &b, &err), 0);
    assert_int_equal(strncmp(b.ptr, "line 1001\n", 10), 0);
    pathgate_buf_dispose(&b);
    assert_int_equal(ht(f->r, 0, "root:repo/big.txt", 9000, &o, &b, &err), 0);
    assert_int_equal(strncmp(b.ptr + b.len - 10, "line 9000\n", 10), 0);
    pathgate_buf_dispose(&b);
    /* zero lines and an empty file fit any cap */
    expect(f, 0, "root:repo/big.txt", 0, 1, "");
    expect(f, 1, "root:repo/big.txt", 0, 1, "");
    expect(f, 0, "root:repo/empty.txt", PATHGATE_FS_NO_LIMIT, 1, "");
    expect(f, 1, "root:repo/empty.txt", 3, 1, "");
    /* a final line without "\n" counts, within the cap */
    expect(f, 1, "root:repo/nofinal.txt", 1, 1, "y");
    expect(f, 0, "root:repo/nofinal.txt", 5, 3, "x\ny");
}

/* What one call costs on the 8 GiB files, counted and measured. */
typedef struct cost {
    size_t peak_alloc;
    long rss_growth_kib; /* -1 when the peak could not be reset */
} cost;

static int run_counted(fx *f, int tail, const char *addr, size_t lines, uint64_t cap,
                       pathgate_buf *out, pathgate_error *err, cost *c)
{
    pathgate_fs_options o = cap_opts(cap);
    /* counted: the core's allocations, through cmocka */
    counting cnt;
    counting_init(&cnt);
    pathgate_resolver *r = fx_resolver(f, &cnt.alloc, NULL);
    assert_non_null(r);
    cnt.peak = cnt.live;
    size_t base = cnt.live;
    int rc = ht(r, tail, addr, lines, &o, out, err);
    c->peak_alloc = cnt.peak - base;
    char *copy = out->ptr ? strdup(out->ptr) : NULL;
    pathgate_buf_dispose(out);
    pathgate_resolver_free(r);
    assert_int_equal(cnt.live, 0);
    /* measured: the same call with the C library's allocator (whose
     * realloc moves large blocks without copying, unlike cmocka's) */
    r = fx_resolver(f, NULL, NULL);
    assert_non_null(r);
    pathgate_buf b = PATHGATE_BUF_INIT;
    pathgate_error err2;
    int reset = reset_peak();
    long before = status_kib("VmRSS");
    assert_int_equal(ht(r, tail, addr, lines, &o, &b, &err2), rc);
    long peak = status_kib("VmHWM");
    c->rss_growth_kib = reset ? peak - before : -1;
    pathgate_buf_dispose(&b);
    pathgate_resolver_free(r);
    out->ptr = copy;
    return rc;
}

static void assert_bounded(const cost *c, uint64_t cap, const char *what)
{
    size_t bound = (size_t)cap + 2 * CHUNK + 4 * KIB;
    if (c->peak_alloc > bound)
        fail_msg("%s: allocated %zu bytes at once (bound %zu)", what, c->peak_alloc, bound);
    /* the resident set: the allocation plus 8 MiB of slack (page tables,
     * the kernel's accounting of the stack and of what malloc keeps) */
    long rss_bound = (long)(bound / KIB) + 8 * KIB;
#if defined(__SANITIZE_ADDRESS__)
    rss_bound += (long)(bound / KIB / 8) + 16 * KIB; /* the shadow of what is touched */
#endif
    if (getenv("PG_TEST_VERBOSE"))
        print_message("%s: peak alloc %zu, rss +%ld KiB\n", what, c->peak_alloc, c->rss_growth_kib);
    if (c->rss_growth_kib > rss_bound)
        fail_msg("%s: resident memory grew by %ld KiB (bound %ld KiB)", what, c->rss_growth_kib,
                 rss_bound);
}

static void test_sparse_8g_bounded(void **state)
{
    fx *f = *state;
    const off_t size = (off_t)8 << 30;
    sparse(f->repo, "huge.bin", NULL, NULL, size);
    sparse(f->repo, "huge.txt", "first line\nsecond\n", "\nlast line\n", size);
    static const uint64_t caps[] = {1 << 20, 8 << 20, PATHGATE_FS_MAX_FILE_DEFAULT};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        uint64_t cap = caps[i];
        for (int tail = 0; tail <= 1; tail++) {
            pathgate_buf b = PATHGATE_BUF_INIT;
            pathgate_error err;
            cost c;
            /* no newline at all: one line of 8 GiB */
            assert_int_equal(run_counted(f, tail, "root:repo/huge.bin", 1, cap, &b, &err, &c),
                             PATHGATE_ETOOLARGE);
            assert_null(strstr(err.message, f->tmp));
            assert_bounded(&c, cap, tail ? "tail 1 huge.bin" : "head 1 huge.bin");
            /* the whole file: refused from its size, nothing read */
            assert_int_equal(
                run_counted(f, tail, "root:repo/huge.bin", PATHGATE_FS_NO_LIMIT, cap, &b, &err, &c),
                PATHGATE_ETOOLARGE);
            assert_true(c.peak_alloc <= 2 * CHUNK);
            /* the lines at either end: answered */
            assert_int_equal(
                run_counted(f, tail, "root:repo/huge.txt", tail ? 1 : 2, cap, &b, &err, &c), 0);
            assert_string_equal(b.ptr, tail ? "last line\n" : "first line\nsecond\n");
            free(b.ptr);
            b.ptr = NULL;
            assert_bounded(&c, cap, "the ends of huge.txt");
            /* one line more reaches the 8 GiB of NUL bytes in between */
            assert_int_equal(
                run_counted(f, tail, "root:repo/huge.txt", tail ? 2 : 3, cap, &b, &err, &c),
                PATHGATE_ETOOLARGE);
            assert_bounded(&c, cap, "into the middle of huge.txt");
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FX_TESTS(test_windows_against_the_cap),
        cmocka_unit_test_setup_teardown(test_sparse_8g_bounded, fx_setup_openat2, fx_teardown),
    };
    if (getenv("PG_TEST_FILTER"))
        cmocka_set_test_filter(getenv("PG_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
