/* support.c - cmocka allocator routing, failing allocator, temp dirs. */
#define _GNU_SOURCE
#include "support.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *t_malloc(size_t size, void *ctx)
{
    (void)ctx;
    return _test_malloc(size, __FILE__, __LINE__);
}
static void *t_realloc(void *ptr, size_t size, void *ctx)
{
    (void)ctx;
    return _test_realloc(ptr, size, __FILE__, __LINE__);
}
static void t_free(void *ptr, void *ctx)
{
    (void)ctx;
    _test_free(ptr, __FILE__, __LINE__);
}

static const pathgate_allocator test_alloc = {t_malloc, t_realloc, t_free, NULL};

const pathgate_allocator *pg_test_alloc(void)
{
    return &test_alloc;
}

static int should_fail(pg_failing_alloc *fa)
{
    fa->calls++;
    if (fa->fail_at > 0 && (fa->calls == fa->fail_at || (fa->sticky && fa->calls > fa->fail_at))) {
        fa->failed = 1;
        return 1;
    }
    return 0;
}
static void *f_malloc(size_t size, void *ctx)
{
    return should_fail(ctx) ? NULL : t_malloc(size, NULL);
}
static void *f_realloc(void *ptr, size_t size, void *ctx)
{
    return should_fail(ctx) ? NULL : t_realloc(ptr, size, NULL);
}

void pg_failing_alloc_init(pg_failing_alloc *fa, long fail_at, int sticky)
{
    memset(fa, 0, sizeof *fa);
    fa->alloc.malloc = f_malloc;
    fa->alloc.realloc = f_realloc;
    fa->alloc.free = t_free;
    fa->alloc.ctx = fa;
    fa->fail_at = fail_at;
    fa->sticky = sticky;
}

long pg_for_each_failing_alloc(int (*body)(const pathgate_allocator *alloc, void *ctx), void *ctx)
{
    for (long n = 1; n < 100000; n++) {
        pg_failing_alloc fa;
        pg_failing_alloc_init(&fa, n, 0);
        int rc = body(&fa.alloc, ctx);
        if (!fa.failed) {
            assert_int_equal(rc, 0);
            return fa.calls;
        }
        if (rc != 0 && rc != PATHGATE_ENOMEM)
            fail_msg("allocation %ld failed: expected 0 or ENOMEM, got %d (%s)", n, rc,
                     pathgate_errname(rc));
    }
    fail_msg("more than 100000 allocations");
    return -1;
}

void pg_err_junk(pathgate_error *err)
{
    err->code = PG_ERR_JUNK_CODE;
    memset(err->message, 0xA5, sizeof err->message);
}

void pg__assert_err_filled(int rc, const pathgate_error *err, const char *func, const char *file,
                           int line)
{
    if (rc >= 0)
        return;
    const char *what = NULL;
    if (err->code != rc)
        what = "err->code";
    else if (!memchr(err->message, '\0', sizeof err->message))
        what = "err->message unterminated";
    else if ((unsigned char)err->message[0] == 0xA5)
        what = "err->message";
    if (what) {
        print_error("ERROR: %s failed with %d (%s) but did not fill %s (code %d)\n", func, rc,
                    pathgate_errname(rc), what, err->code);
        _fail(file, line);
    }
}

void pg__assert_buf(pathgate_buf *buf, const char *expected, const char *file, int line)
{
    if (!expected) {
        if (buf->ptr)
            _fail(file, line);
        pathgate_buf_dispose(buf);
        return;
    }
    if (!buf->ptr) {
        print_error("expected \"%s\", got absent\n", expected);
        _fail(file, line);
    }
    if (buf->len != strlen(buf->ptr) || strcmp(buf->ptr, expected) != 0) {
        print_error("expected \"%s\", got \"%s\" (len %zu)\n", expected, buf->ptr, buf->len);
        pathgate_buf_dispose(buf);
        _fail(file, line);
    }
    pathgate_buf_dispose(buf);
}

char *pg_tmpdir_make(void)
{
    const char *base = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/pathgate-test-XXXXXX", base && *base ? base : "/tmp") < 0)
        return NULL;
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void pg_tmpdir_remove(char *dir)
{
    if (!dir)
        return;
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}
