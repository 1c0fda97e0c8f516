/*
 * fs_fixture.h - the tree the fs suites run on (header-only, included by
 * test_fs_*.c; not a suite itself). Made through support.h's fixture calls,
 * so the Windows build makes it too (under wine, docs/windows.md).
 *
 * <tmp>/repo                 root "repo"
 *   a.txt                    "alpha\nbeta\ngamma\n"
 *   crlf.txt                 "one\r\ntwo\r\nthree\r\n"
 *   nofinal.txt              "x\ny"
 *   empty.txt, blank.txt     "", "  \n\n"
 *   bin.dat                  "\0\1\377"
 *   latin1.txt               "caf\351\n" (not UTF-8)
 *   big.txt                  "line 1\n" .. "line 10000\n"
 *   name with space.txt      "spaced\n"
 *   ünïcödé.txt              "unicode\n"
 *   dir/sub/deep.txt         "deep needle\n"
 *   dir/x.py                 "print('needle')\n"
 *   .hidden/secret.txt       "hidden needle\n"
 *   .dotfile                 "dot needle\n"
 *   fifo                     a FIFO (not on Windows)
 *   link_in -> a.txt, link_dir -> dir, dangling_in -> missing.txt
 *   link_out -> ../outside/secret.txt, link_out_dir -> ../outside,
 *   dangling_out -> ../outside/newfile, abs_out -> <tmp>/outside/secret.txt
 * <tmp>/ro                   root "ro", PATHGATE_BASE_READ_ONLY: f.txt
 * <tmp>/mods/My Mod          mod "My Mod": common/t.txt
 * <tmp>/outside/secret.txt   "SECRET needle\n"
 */
#ifndef PATHGATE_TEST_FS_FIXTURE_H
#define PATHGATE_TEST_FS_FIXTURE_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#define FX_FN static __attribute__((unused))

typedef struct fx {
    char *tmp;
    char repo[512], ro[512], mod[512], outside[512];
    unsigned int flags; /* resolver flags: 0 or PATHGATE_RESOLVER_FORCE_FALLBACK */
    pathgate_resolver *r;
} fx;

FX_FN void fx_path(char *out, size_t size, const char *dir, const char *rel)
{
    int n = snprintf(out, size, "%s/%s", dir, rel);
    assert_true(n > 0 && (size_t)n < size);
}

FX_FN void fx_mkdir(const char *dir, const char *rel)
{
    char p[1024];
    fx_path(p, sizeof p, dir, rel);
    assert_int_equal(pg_mkdir(p), 0);
}

FX_FN void fx_put(const char *dir, const char *rel, const char *data, size_t len)
{
    char p[1024];
    fx_path(p, sizeof p, dir, rel);
    FILE *fp = pg_fopen(p, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

#define FX_PUT(dir, rel, lit) fx_put((dir), (rel), (lit), sizeof(lit) - 1)

FX_FN void fx_link(const char *dir, const char *rel, const char *target)
{
    char p[1024];
    fx_path(p, sizeof p, dir, rel);
    assert_int_equal(pg_symlink(target, p), 0);
}

/* The content of dir/rel (malloc'd, NUL-terminated) or NULL when absent. */
FX_FN char *fx_get(const char *dir, const char *rel, size_t *len)
{
    char p[1024];
    fx_path(p, sizeof p, dir, rel);
    if (pg_lkind(p) == PG_KIND_LINK)
        return NULL; /* never through a link */
    size_t n = 0;
    char *buf = pg_read_file(p, &n);
    if (buf && len)
        *len = n;
    return buf;
}

FX_FN int fx_exists(const char *dir, const char *rel)
{
    char p[1024];
    fx_path(p, sizeof p, dir, rel);
    return pg_lkind(p) > PG_KIND_NONE;
}

FX_FN void fx_build(fx *f)
{
    f->tmp = pg_tmpdir_make();
    assert_non_null(f->tmp);
    snprintf(f->repo, sizeof f->repo, "%s/repo", f->tmp);
    snprintf(f->ro, sizeof f->ro, "%s/ro", f->tmp);
    snprintf(f->mod, sizeof f->mod, "%s/mods/My Mod", f->tmp);
    snprintf(f->outside, sizeof f->outside, "%s/outside", f->tmp);
    fx_mkdir(f->tmp, "repo");
    fx_mkdir(f->tmp, "ro");
    fx_mkdir(f->tmp, "mods");
    fx_mkdir(f->tmp, "mods/My Mod");
    fx_mkdir(f->tmp, "mods/My Mod/common");
    fx_mkdir(f->tmp, "outside");
    FX_PUT(f->outside, "secret.txt", "SECRET needle\n");
    FX_PUT(f->ro, "f.txt", "read only\n");
    FX_PUT(f->mod, "common/t.txt", "mod text\n");

    const char *b = f->repo;
    FX_PUT(b, "a.txt", "alpha\nbeta\ngamma\n");
    FX_PUT(b, "crlf.txt", "one\r\ntwo\r\nthree\r\n");
    FX_PUT(b, "nofinal.txt", "x\ny");
    FX_PUT(b, "empty.txt", "");
    FX_PUT(b, "blank.txt", "  \n\n");
    FX_PUT(b, "bin.dat", "\0\1\377");
    FX_PUT(b, "latin1.txt", "caf\351\n");
    FX_PUT(b, "name with space.txt", "spaced\n");
    FX_PUT(b,
           "\xC3\xBCn\xC3\xAF"
           "c\xC3\xB6"
           "d\xC3\xA9.txt",
           "unicode\n");
    {
        size_t cap = 10000 * 12, n = 0;
        char *big = malloc(cap);
        for (int i = 1; i <= 10000; i++)
            n += (size_t)snprintf(big + n, cap - n, "line %d\n", i);
        fx_put(b, "big.txt", big, n);
        free(big);
    }
    fx_mkdir(b, "dir");
    fx_mkdir(b, "dir/sub");
    FX_PUT(b, "dir/sub/deep.txt", "deep needle\n");
    FX_PUT(b, "dir/x.py", "print('needle')\n");
    fx_mkdir(b, ".hidden");
    FX_PUT(b, ".hidden/secret.txt", "hidden needle\n");
    FX_PUT(b, ".dotfile", "dot needle\n");
#ifndef _WIN32 /* no FIFOs on Windows: the cases naming "fifo" find nothing there */
    char p[1024];
    fx_path(p, sizeof p, b, "fifo");
    assert_int_equal(mkfifo(p, 0644), 0);
#endif
    fx_link(b, "link_in", "a.txt");
    fx_link(b, "link_dir", "dir");
    fx_link(b, "dangling_in", "missing.txt");
    fx_link(b, "link_out", "../outside/secret.txt");
    fx_link(b, "link_out_dir", "../outside");
    fx_link(b, "dangling_out", "../outside/newfile");
    char abs[1024];
    fx_path(abs, sizeof abs, f->outside, "secret.txt");
    fx_link(b, "abs_out", abs);
}

FX_FN pathgate_resolver *fx_resolver(fx *f, const pathgate_allocator *alloc, int *rc_out)
{
    pathgate_base_spec roots[2] = {
        {PG_S("repo"), f->repo, strlen(f->repo), 0},
        {PG_S("ro"), f->ro, strlen(f->ro), PATHGATE_BASE_READ_ONLY},
    };
    pathgate_base_spec mods[1] = {{PG_S("My Mod"), f->mod, strlen(f->mod), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 2;
    o.mods = mods;
    o.nmods = 1;
    o.flags = f->flags;
    o.allocator = alloc;
    pathgate_resolver *r = NULL;
    int rc = pathgate_resolver_new(&r, &o, NULL);
    if (rc_out)
        *rc_out = rc;
    return r;
}

FX_FN int fx_setup(void **state, unsigned int flags)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->flags = flags;
    fx_build(f);
    int rc;
    f->r = fx_resolver(f, pg_test_alloc(), &rc);
    assert_int_equal(rc, 0);
    *state = f;
    return 0;
}

FX_FN int fx_setup_openat2(void **state)
{
    return fx_setup(state, 0);
}

FX_FN int fx_setup_fallback(void **state)
{
    return fx_setup(state, PATHGATE_RESOLVER_FORCE_FALLBACK);
}

FX_FN int fx_teardown(void **state)
{
    fx *f = *state;
    pathgate_resolver_free(f->r);
    pg_tmpdir_remove(f->tmp);
    free(f);
    return 0;
}

/* Both containment paths for one test function. */
#define FX_TESTS(fn)                                                                               \
    cmocka_unit_test_setup_teardown(fn, fx_setup_openat2, fx_teardown),                            \
        cmocka_unit_test_setup_teardown(fn, fx_setup_fallback, fx_teardown)

#endif
