/* test_containment.c - pathgate__contain_open / pathgate__contain_probe on a
 * real tree: every case runs through openat2 and through the O_NOFOLLOW
 * fallback walk, and both must give the same answer. */
#define _GNU_SOURCE
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef _WIN32
#include <io.h>
#include <windows.h>
#else
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#endif

#include "os.h"

typedef struct tree {
    char *tmp;  /* T */
    char *base; /* T/base */
    int fd;     /* a path-only handle of T/base */
} tree;

static char *join(const char *a, const char *b)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", a, b) > 0);
    return p;
}

static void mkfile(const char *dir, const char *rel, const char *content)
{
    char *p = join(dir, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
    free(p);
}

static void mkdirs(const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    assert_int_equal(pg_mkdir(p), 0);
    free(p);
}

static void mklink(const char *dir, const char *rel, const char *target)
{
    char *p = join(dir, rel);
    assert_int_equal(pg_symlink(target, p), 0);
    free(p);
}

static int setup(void **state)
{
    tree *t = calloc(1, sizeof *t);
    t->tmp = pg_tmpdir_make();
    assert_non_null(t->tmp);
    t->base = join(t->tmp, "base");
    mkdirs(t->tmp, "base");
    mkdirs(t->tmp, "outside");
    mkfile(t->tmp, "outside/secret", "outside");

    const char *b = t->base;
    mkfile(b, "file", "inside");
    mkdirs(b, "dir");
    mkdirs(b, "dir/sub");
    mkfile(b, "dir/sub/deep.txt", "deep");
    mklink(b, "in_link", "dir/sub");
    mklink(b, "in_file_link", "file");
    mklink(b, "out_rel", "../outside");
    char *abs_out = join(t->tmp, "outside");
    mklink(b, "out_abs", abs_out);
    char *abs_secret = join(t->tmp, "outside/secret");
    mklink(b, "out_file_abs", abs_secret);
    free(abs_out);
    free(abs_secret);
    mklink(b, "up", "dir/sub/../../..");
    mklink(b, "chain1", "chain2");
    mklink(b, "chain2", "chain3");
    mklink(b, "chain3", "dir/sub");
    mklink(b, "chain_out1", "chain_out2");
    mklink(b, "chain_out2", "dir/../out_rel");
    mklink(b, "loop_a", "loop_b");
    mklink(b, "loop_b", "loop_a");
    mklink(b, "self", "self");
    mklink(b, "dangling_in", "nothere");
    mklink(b, "dangling_out", "../nothere");
    mklink(b, "dangling_out_abs", "/nonexistent-pathgate-target");
    mklink(b, "dangling_via_missing", "missing/../../outside");
    mklink(b, "missing_then_back", "missing/../file");
    mklink(b, "proc_root", "/proc/self/root");
    mklink(b, "dir/up_ok", "../file");
    mklink(b, "dir/up_out", "../../outside/secret");
    mklink(b, "to_base", ".");
    mklink(b, "back_in", "../base/file");
    mklink(b, "slash_dir", "dir/");
    mklink(b, "slash_file", "file/");
    mklink(b, "empty_name_dir", "dir//sub/./");
#ifdef _WIN32
    t->fd = pathgate__os_open_root(t->base);
#else
    t->fd = open(t->base, PATHGATE__OS_O_PATH | O_DIRECTORY | O_CLOEXEC);
#endif
    assert_true(t->fd >= 0);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    tree *t = *state;
    close(t->fd);
    free(t->base);
    pg_tmpdir_remove(t->tmp);
    free(t);
    return 0;
}

/* The fd names the same inode as base/expect (stat follows links). */
#ifdef _WIN32
static void assert_fd_is(int fd, const tree *t, const char *expect, int nofollow)
{
    /* the volume and file index of the handle and of the path opened by
     * Win32 (which follows links unless told not to) */
    BY_HANDLE_FILE_INFORMATION a, b;
    assert_true(GetFileInformationByHandle((HANDLE)_get_osfhandle(fd), &a));
    char *p = join(t->base, expect);
    HANDLE h = CreateFileA(
        p, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | (nofollow ? FILE_FLAG_OPEN_REPARSE_POINT : 0),
        NULL);
    free(p);
    assert_true(h != INVALID_HANDLE_VALUE);
    assert_true(GetFileInformationByHandle(h, &b));
    CloseHandle(h);
    assert_int_equal(a.dwVolumeSerialNumber, b.dwVolumeSerialNumber);
    assert_int_equal(a.nFileIndexHigh, b.nFileIndexHigh);
    assert_int_equal(a.nFileIndexLow, b.nFileIndexLow);
}
#else
static void assert_fd_is(int fd, const tree *t, const char *expect, int nofollow)
{
    struct stat a, b;
    assert_int_equal(fstat(fd, &a), 0);
    char *p = join(t->base, expect);
    assert_int_equal(nofollow ? lstat(p, &b) : stat(p, &b), 0);
    free(p);
    assert_int_equal(a.st_dev, b.st_dev);
    assert_int_equal(a.st_ino, b.st_ino);
}
#endif

/* Where Windows (under wine, where the suites run) answers otherwise: the
 * answer there, a refusal (-errno) or PG_WIN_SKIP (wine cannot show what
 * Windows does), and why (docs/windows.md). A refusal stays a refusal:
 * never an fd where Linux refuses. */
#define PG_WIN_SKIP 1
/* wine cannot read link targets: a link to a directory is refused */
#define WINE_DIR_LINK "wine-link-unread"
/* wine shows a Unix symlink to a file as that file */
#define WINE_FILE_LINK "wine-file-link"
/* wine shows no dangling or looping link: no name there */
#define WINE_UNLISTED "wine-link-unlisted"

typedef struct ocase {
    const char *rel;
    int flags;
    int expect;          /* 0 = an fd; otherwise -errno */
    const char *same_as; /* for an fd: the file it must be ("" = base) */
} ocase;

/* The answer on Linux, or under wine (the Windows build's suites). */
#ifdef _WIN32
#define PG_LINUX_OR_WINE(linux, wine) (wine)
#else
#define PG_LINUX_OR_WINE(linux, wine) (linux)
#endif

typedef struct wcase {
    const char *rel; /* the case (with its flags: -1 for a probe) */
    int flags;
    int win; /* the answer on Windows */
    const char *why;
} wcase;
#ifdef _WIN32
/* The cases of open_cases (flags as there) and probe_cases (flags -1) whose
 * answer under wine differs from Linux's. The refusals differ in their
 * code only (a link to a directory, whose target wine cannot read, is
 * taken to lead out: -EXDEV, where Linux follows an inward one; a dangling
 * or looping link: no name, -ENOENT), except the probes of a dangling link leading out,
 * which wine shows as a miss (-ENOENT) where Linux says it escapes: an
 * open or create through it is still refused. The skipped cases are links
 * to files, which wine opens as the files they lead to. */
static const wcase windows_cases[] = {
    {"in_link", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"in_link/deep.txt", O_RDONLY, -EXDEV, WINE_DIR_LINK},
    {"chain1", PATHGATE__OS_O_PATH | O_DIRECTORY, -EXDEV, WINE_DIR_LINK},
    {"chain1/deep.txt", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"to_base/file", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"to_base", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"slash_dir", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"empty_name_dir", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"out_rel", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"out_rel/secret", O_RDONLY, -EXDEV, WINE_DIR_LINK},
    {"out_abs", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"out_abs/secret", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"up", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"chain_out1", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"chain_out1/secret", O_RDONLY, -EXDEV, WINE_DIR_LINK},
    {"proc_root", PATHGATE__OS_O_PATH, -EXDEV, WINE_DIR_LINK},
    {"proc_root/etc/passwd", O_RDONLY, -EXDEV, WINE_DIR_LINK},
    {"dangling_out", PATHGATE__OS_O_PATH, -ENOENT, WINE_UNLISTED},
    {"dangling_out_abs", PATHGATE__OS_O_PATH, -ENOENT, WINE_UNLISTED},
    {"loop_a", PATHGATE__OS_O_PATH, -ENOENT, WINE_UNLISTED},
    {"self", PATHGATE__OS_O_PATH, -ENOENT, WINE_UNLISTED},
    {"self/x", PATHGATE__OS_O_PATH, -ENOENT, WINE_UNLISTED},
    {"slash_file", PATHGATE__OS_O_PATH, -ENOENT, WINE_UNLISTED},
    {"out_file_abs", O_RDONLY, PG_WIN_SKIP, WINE_FILE_LINK},
    {"dir/up_out", O_RDONLY, PG_WIN_SKIP, WINE_FILE_LINK},
    {"back_in", PATHGATE__OS_O_PATH, PG_WIN_SKIP, WINE_FILE_LINK},
    {"in_file_link", O_RDONLY | O_NOFOLLOW, PG_WIN_SKIP, WINE_FILE_LINK},
    {"in_link/deep.txt", -1, -EXDEV, WINE_DIR_LINK},
    {"chain1", -1, -EXDEV, WINE_DIR_LINK},
    {"in_link/new", -1, -EXDEV, WINE_DIR_LINK},
    {"out_rel/nothere", -1, -EXDEV, WINE_DIR_LINK},
    {"out_abs/secret", -1, -EXDEV, WINE_DIR_LINK},
    {"proc_root/x", -1, -EXDEV, WINE_DIR_LINK},
    {"chain_out1/nothere", -1, -EXDEV, WINE_DIR_LINK},
    {"dangling_out", -1, -ENOENT, WINE_UNLISTED},
    {"dangling_out/x", -1, -ENOENT, WINE_UNLISTED},
    {"dangling_out_abs", -1, -ENOENT, WINE_UNLISTED},
    {"dangling_via_missing", -1, -ENOENT, WINE_UNLISTED},
    {"dangling_via_missing/x", -1, -ENOENT, WINE_UNLISTED},
    {"loop_a", -1, -ENOENT, WINE_UNLISTED},
    {"loop_a/x", -1, -ENOENT, WINE_UNLISTED},
};
#endif

/* The answer expected here for the case (rel, flags; flags -1: a probe);
 * PG_WIN_SKIP when it is skipped. */
static int expected(const char *rel, int flags, int expect)
{
#ifdef _WIN32
    for (size_t i = 0; i < sizeof windows_cases / sizeof *windows_cases; i++) {
        const wcase *w = &windows_cases[i];
        if (strcmp(w->rel, rel) != 0 || w->flags != flags)
            continue;
        if (w->win == PG_WIN_SKIP)
            print_message("SKIPPED: %s%s (Windows: %s)\n", flags == -1 ? "probe " : "", rel,
                          w->why);
        return w->win;
    }
#else
    (void)rel;
    (void)flags;
#endif
    return expect;
}

static const ocase open_cases[] = {
    {"", PATHGATE__OS_O_PATH, 0, "."},
    {"file", PATHGATE__OS_O_PATH, 0, "file"},
    {"file", O_RDONLY, 0, "file"},
    {"dir/sub/deep.txt", O_RDONLY, 0, "dir/sub/deep.txt"},
    {"in_link", PATHGATE__OS_O_PATH, 0, "dir/sub"},
    {"in_link/deep.txt", O_RDONLY, 0, "dir/sub/deep.txt"},
    {"in_file_link", PATHGATE__OS_O_PATH, 0, "file"},
    {"in_file_link", O_RDONLY, 0, "file"},
    {"chain1", PATHGATE__OS_O_PATH | O_DIRECTORY, 0, "dir/sub"},
    {"chain1/deep.txt", PATHGATE__OS_O_PATH, 0, "dir/sub/deep.txt"},
    {"dir/up_ok", O_RDONLY, 0, "file"},
    {"to_base/file", PATHGATE__OS_O_PATH, 0, "file"},
    {"to_base", PATHGATE__OS_O_PATH, 0, "."},
    {"slash_dir", PATHGATE__OS_O_PATH, 0, "dir"},
    {"empty_name_dir", PATHGATE__OS_O_PATH, 0, "dir/sub"},
    {"dir", O_RDONLY | O_DIRECTORY, 0, "dir"},
    /* escapes */
    {"out_rel", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"out_rel/secret", O_RDONLY, -EXDEV, NULL},
    {"out_abs", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"out_abs/secret", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"out_file_abs", O_RDONLY, -EXDEV, NULL},
    {"up", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"chain_out1", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"chain_out1/secret", O_RDONLY, -EXDEV, NULL},
    {"dangling_out", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"dangling_out_abs", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"proc_root", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"proc_root/etc/passwd", O_RDONLY, -EXDEV, NULL},
    {"dir/up_out", O_RDONLY, -EXDEV, NULL},
    {"back_in", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"/etc", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"../outside/secret", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    {"dir/../../outside", PATHGATE__OS_O_PATH, -EXDEV, NULL},
    /* loops, misses, files used as directories */
    {"loop_a", PATHGATE__OS_O_PATH, -ELOOP, NULL},
    {"self", PATHGATE__OS_O_PATH, -ELOOP, NULL},
    {"self/x", PATHGATE__OS_O_PATH, -ELOOP, NULL},
    {"dangling_in", PATHGATE__OS_O_PATH, -ENOENT, NULL},
    {"dangling_via_missing", PATHGATE__OS_O_PATH, -ENOENT, NULL},
    {"missing_then_back", PATHGATE__OS_O_PATH, -ENOENT, NULL},
    {"nothere", PATHGATE__OS_O_PATH, -ENOENT, NULL},
    {"nothere/a/b", PATHGATE__OS_O_PATH, -ENOENT, NULL},
    {"file/x", PATHGATE__OS_O_PATH, -ENOTDIR, NULL},
    {"in_file_link/x", PATHGATE__OS_O_PATH, -ENOTDIR, NULL},
    {"file", PATHGATE__OS_O_PATH | O_DIRECTORY, -ENOTDIR, NULL},
    {"slash_file", PATHGATE__OS_O_PATH, -ENOTDIR, NULL},
    /* O_NOFOLLOW: the final symlink is not followed */
    {"in_file_link", O_RDONLY | O_NOFOLLOW, -ELOOP, NULL},
    {"dir/.", PATHGATE__OS_O_PATH, 0, "dir"},
};

static void test_open_cases_both_modes(void **state)
{
    tree *t = *state;
    int bad = 0;
    for (int force = 0; force <= 1; force++) {
        for (size_t i = 0; i < sizeof open_cases / sizeof *open_cases; i++) {
            const ocase *c = &open_cases[i];
            int want = expected(c->rel, c->flags, c->expect);
            if (want == PG_WIN_SKIP)
                continue;
            int fd = pathgate__contain_open(t->fd, c->rel, c->flags, 0, force);
            if (want == 0) {
                if (fd < 0) {
                    print_error("%s (force=%d): expected an fd, got %s (%d)\n", c->rel, force,
                                strerror(-fd), fd);
                    bad++;
                    continue;
                }
                assert_fd_is(fd, t, c->same_as, 0);
                close(fd);
            } else if (fd != want) {
                if (fd >= 0)
                    close(fd);
                print_error("%s (force=%d): expected %s, got %s (%d)\n", c->rel, force,
                            strerror(-want), fd >= 0 ? "an fd" : strerror(-fd), fd);
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
}

static void test_nofollow_opath_opens_the_link_itself(void **state)
{
    PG_SKIP_ON_POSIX("no handle on a symlink itself");
    PG_SKIP_ON_WINDOWS("no handle on a symlink itself (a link is never opened)");
    tree *t = *state;
    for (int force = 0; force <= 1; force++) {
        int fd = pathgate__contain_open(t->fd, "in_file_link", PATHGATE__OS_O_PATH | O_NOFOLLOW, 0,
                                        force);
        assert_true(fd >= 0);
        assert_fd_is(fd, t, "in_file_link", 1);
        close(fd);
        fd = pathgate__contain_open(t->fd, "out_abs", PATHGATE__OS_O_PATH | O_NOFOLLOW, 0, force);
        assert_true(fd >= 0); /* the link inode itself lies inside */
        assert_fd_is(fd, t, "out_abs", 1);
        close(fd);
        /* but a link on the way is still checked */
        assert_int_equal(pathgate__contain_open(t->fd, "out_abs/secret",
                                                PATHGATE__OS_O_PATH | O_NOFOLLOW, 0, force),
                         -EXDEV);
    }
}

static void test_read_through_inside_link(void **state)
{
    tree *t = *state;
    for (int force = 0; force <= 1; force++) {
        int fd = pathgate__contain_open(t->fd, "dir/up_ok", O_RDONLY, 0, force);
        assert_true(fd >= 0);
        char buf[16] = {0};
        assert_int_equal(read(fd, buf, sizeof buf - 1), 6);
        assert_string_equal(buf, "inside");
        close(fd);
    }
}

static int exists_at(const tree *t, const char *rel_to_tmp)
{
    char *p = join(t->tmp, rel_to_tmp);
    int r = pg_lkind(p) > PG_KIND_NONE;
    free(p);
    return r;
}

static void test_create_never_goes_through_outward_link(void **state)
{
    tree *t = *state;
    for (int force = 0; force <= 1; force++) {
        /* under wine: a dangling link is no name wine shows, so nothing is
         * created through it (-ELOOP); a link to a directory leads out */
        int fd = pathgate__contain_open(t->fd, "dangling_out", O_WRONLY | O_CREAT, 0600, force);
        assert_int_equal(fd, PG_LINUX_OR_WINE(-EXDEV, -ELOOP));
        assert_false(exists_at(t, "nothere"));
        fd = pathgate__contain_open(t->fd, "out_rel/created", O_WRONLY | O_CREAT, 0600, force);
        assert_int_equal(fd, -EXDEV);
        assert_false(exists_at(t, "outside/created"));
        char *p;
#ifndef _WIN32
        /* a dangling link that stays inside is created through, like the kernel does */
        fd = pathgate__contain_open(t->fd, "dangling_in", O_WRONLY | O_CREAT, 0600, force);
        assert_true(fd >= 0);
        close(fd);
        assert_true(exists_at(t, "base/nothere"));
        p = join(t->base, "nothere");
        unlink(p);
        free(p);
#else
        assert_int_equal(
            pathgate__contain_open(t->fd, "dangling_in", O_WRONLY | O_CREAT, 0600, force), -ELOOP);
        assert_false(exists_at(t, "base/nothere"));
#endif
        /* O_EXCL never follows the final link */
        assert_int_equal(
            pathgate__contain_open(t->fd, "dangling_in", O_WRONLY | O_CREAT | O_EXCL, 0600, force),
            -EEXIST);
        assert_false(exists_at(t, "base/nothere"));
        fd = pathgate__contain_open(t->fd, "dir/new.txt", O_WRONLY | O_CREAT | O_EXCL, 0600, force);
        assert_true(fd >= 0);
        close(fd);
        assert_true(exists_at(t, "base/dir/new.txt"));
        p = join(t->base, "dir/new.txt");
        unlink(p);
        free(p);
    }
}

typedef struct pcase {
    const char *rel;
    int expect;
} pcase;

static const pcase probe_cases[] = {
    {"", 0},
    {"file", 0},
    {"in_link/deep.txt", 0},
    {"chain1", 0},
    {"dir/up_ok", 0},
    {"nothere", -ENOENT},
    {"nothere/a/b", -ENOENT},
    {"dangling_in", -ENOENT},
    {"dangling_in/x/y", -ENOENT},
    {"dir/sub/new/file", -ENOENT},
    {"in_link/new", -ENOENT},
    /* the existing part escapes: invalid whatever exists beyond */
    {"dangling_out", -EXDEV},
    {"dangling_out/x", -EXDEV},
    {"dangling_out_abs", -EXDEV},
    {"dangling_via_missing", -EXDEV},
    {"dangling_via_missing/x", -EXDEV},
    {"out_rel/nothere", -EXDEV},
    {"out_abs/secret", -EXDEV},
    {"proc_root/x", -EXDEV},
    {"chain_out1/nothere", -EXDEV},
    /* a missing directory then `..` back to an existing file is a miss */
    {"missing_then_back", -ENOENT},
    {"file/x", -ENOTDIR},
    {"loop_a", -ELOOP},
    {"loop_a/x", -ELOOP},
};

static void test_probe_explains_misses_both_modes(void **state)
{
    tree *t = *state;
    int bad = 0;
    for (int force = 0; force <= 1; force++) {
        for (size_t i = 0; i < sizeof probe_cases / sizeof *probe_cases; i++) {
            const pcase *c = &probe_cases[i];
            int want = expected(c->rel, -1, c->expect);
            if (want == PG_WIN_SKIP)
                continue;
            int rc = pathgate__contain_probe(t->fd, c->rel, force);
            if (rc != want) {
                print_error("probe %s (force=%d): expected %d (%s), got %d (%s)\n", c->rel, force,
                            want, strerror(-want), rc, strerror(-rc));
                bad++;
            }
        }
    }
    assert_int_equal(bad, 0);
}

static void test_link_limit_is_forty(void **state)
{
    tree *t = *state;
    /* n0 -> n1 -> ... -> n40 -> file: 41 links, one more than allowed;
     * m0 -> ... -> m39 -> file: 40 links, allowed */
    char name[32], target[32];
    for (int i = 0; i <= 40; i++) {
        snprintf(name, sizeof name, "n%d", i);
        if (i == 40)
            snprintf(target, sizeof target, "file");
        else
            snprintf(target, sizeof target, "n%d", i + 1);
        mklink(t->base, name, target);
    }
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "m%d", i);
        if (i == 39)
            snprintf(target, sizeof target, "file");
        else
            snprintf(target, sizeof target, "m%d", i + 1);
        mklink(t->base, name, target);
    }
    /* under wine the chain is Linux's to follow (a link to a file is that
     * file to wine): 41 links are a dangling link to wine, which it does
     * not show (-ENOENT); 40 are the file */
    for (int force = 0; force <= 1; force++) {
        assert_int_equal(pathgate__contain_open(t->fd, "n0", PATHGATE__OS_O_PATH, 0, force),
                         PG_LINUX_OR_WINE(-ELOOP, -ENOENT));
        assert_int_equal(pathgate__contain_probe(t->fd, "n0", force),
                         PG_LINUX_OR_WINE(-ELOOP, -ENOENT));
        int fd = pathgate__contain_open(t->fd, "m0", PATHGATE__OS_O_PATH, 0, force);
        assert_true(fd >= 0);
        assert_fd_is(fd, t, "file", 0);
        close(fd);
    }
}

static void test_misuse(void **state)
{
    tree *t = *state;
    assert_int_equal(pathgate__contain_open(-1, "x", PATHGATE__OS_O_PATH, 0, 0), -EINVAL);
    assert_int_equal(pathgate__contain_open(t->fd, NULL, PATHGATE__OS_O_PATH, 0, 1), -EINVAL);
    assert_int_equal(pathgate__contain_probe(t->fd, NULL, 0), -EINVAL);
    char *longrel = malloc(PATHGATE_PATH_MAX + 2);
    memset(longrel, 'a', PATHGATE_PATH_MAX + 1);
    longrel[PATHGATE_PATH_MAX + 1] = '\0';
    for (int force = 0; force <= 1; force++)
        assert_int_equal(pathgate__contain_open(t->fd, longrel, PATHGATE__OS_O_PATH, 0, force),
                         -ENAMETOOLONG);
    free(longrel);
    char seg[PATHGATE__OS_NAME_MAX + 2];
    memset(seg, 'b', sizeof seg - 1);
    seg[sizeof seg - 1] = '\0';
    for (int force = 0; force <= 1; force++)
        assert_int_equal(pathgate__contain_open(t->fd, seg, PATHGATE__OS_O_PATH, 0, force),
                         -ENAMETOOLONG);
}

/* In a child whose seccomp filter makes openat2 answer `err`, the
 * non-forced path must fall back by itself and give every answer of the
 * table (fd identity included). Returns the number of mismatches. */
#ifndef _WIN32
static int run_table_without_openat2(const tree *t, int err)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof filter / sizeof *filter, filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        return 100;
    struct open_how how = {.flags = O_PATH, .resolve = RESOLVE_BENEATH};
    if (syscall(SYS_openat2, t->fd, "file", &how, sizeof how) != -1 || errno != err)
        return 101; /* the filter is not in force */
    int bad = 0;
    for (size_t i = 0; i < sizeof open_cases / sizeof *open_cases; i++) {
        const ocase *c = &open_cases[i];
        int fd = pathgate__contain_open(t->fd, c->rel, c->flags, 0, 0);
        if (c->expect == 0) {
            struct stat a, b;
            char *p = join(t->base, c->same_as);
            if (fd < 0 || fstat(fd, &a) != 0 || stat(p, &b) != 0 || a.st_ino != b.st_ino) {
                fprintf(stderr, "without openat2 (%s): %s: wrong answer\n", strerror(err), c->rel);
                bad++;
            }
            free(p);
        } else if (fd != c->expect) {
            fprintf(stderr, "without openat2 (%s): %s: expected %s, got %d\n", strerror(err),
                    c->rel, strerror(-c->expect), fd);
            bad++;
        }
        if (fd >= 0)
            close(fd);
    }
    for (size_t i = 0; i < sizeof probe_cases / sizeof *probe_cases; i++) {
        int rc = pathgate__contain_probe(t->fd, probe_cases[i].rel, 0);
        if (rc != probe_cases[i].expect) {
            fprintf(stderr, "without openat2 (%s): probe %s: got %d\n", strerror(err),
                    probe_cases[i].rel, rc);
            bad++;
        }
    }
    return bad;
}

#endif

static void test_falls_back_when_openat2_is_refused(void **state)
{
    PG_SKIP_ON_POSIX("no kernel beneath-lookup to fall back from");
    PG_SKIP_ON_WINDOWS("no kernel beneath-lookup to fall back from: the NT walk is the only one");
#ifndef _WIN32
    tree *t = *state;
    const int errs[] = {ENOSYS, EPERM};
    for (size_t i = 0; i < 2; i++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            _exit(run_table_without_openat2(t, errs[i]));
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        if (WEXITSTATUS(status) != 0)
            fail_msg("without openat2 (%s): %d mismatches (100+: no seccomp)", strerror(errs[i]),
                     WEXITSTATUS(status));
    }
#else
    (void)state;
#endif
}

static void test_errno_to_code(void **state)
{
    (void)state;
    assert_int_equal(pathgate__errno_to_code(0), PATHGATE_OK);
    assert_int_equal(pathgate__errno_to_code(-EXDEV), PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate__errno_to_code(-ELOOP), PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate__errno_to_code(-ENAMETOOLONG), PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate__errno_to_code(-ENOENT), PATHGATE_ENOTFOUND);
    assert_int_equal(pathgate__errno_to_code(-ENOTDIR), PATHGATE_ENOTDIR);
    assert_int_equal(pathgate__errno_to_code(-EISDIR), PATHGATE_EISDIR);
    assert_int_equal(pathgate__errno_to_code(-EACCES), PATHGATE_EACCES);
    assert_int_equal(pathgate__errno_to_code(-EPERM), PATHGATE_EACCES);
    assert_int_equal(pathgate__errno_to_code(-EEXIST), PATHGATE_EEXIST);
    assert_int_equal(pathgate__errno_to_code(-ENOMEM), PATHGATE_ENOMEM);
    assert_int_equal(pathgate__errno_to_code(-EIO), PATHGATE_EIO);
    assert_int_equal(pathgate__errno_to_code(-EAGAIN), PATHGATE_EIO);
    assert_int_equal(pathgate__errno_to_code(-ENOSPC), PATHGATE_EIO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_cases_both_modes),
        cmocka_unit_test(test_nofollow_opath_opens_the_link_itself),
        cmocka_unit_test(test_read_through_inside_link),
        cmocka_unit_test(test_create_never_goes_through_outward_link),
        cmocka_unit_test(test_probe_explains_misses_both_modes),
        cmocka_unit_test(test_link_limit_is_forty),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_falls_back_when_openat2_is_refused),
        cmocka_unit_test(test_errno_to_code),
    };
    return cmocka_run_group_tests_name("containment", tests, setup, teardown);
}
