/* test_os_windows.c - contained opens on NT handles (core/src/os/os.h, the
 * Windows backend) under wine: roots from Windows paths and the
 * containment attacks wine can express, against the tree
 * tests/windows/make_tree.sh made (PATHGATE_WINDOWS_TREE, a Unix path that
 * wine reaches as Z:). The rest of the interface: test_os_windows_iface.c. */
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "os.h"
#include "os_windows.h"

static char g_root[4096]; /* Z:/.../root */

static int setup(void **state)
{
    (void)state;
    const char *tree = getenv("PATHGATE_WINDOWS_TREE");
    if (!tree)
        return -1;
    snprintf(g_root, sizeof g_root, "Z:%s/root", tree);
    return 0;
}

/* Opens rel (len bytes) beneath the root; returns the error (0) and, on
 * success, checks the content when want is not NULL. */
static int try_open(const char *rel, size_t len, int flags, const char *want)
{
    char buf[512];
    if (len >= sizeof buf)
        return -ENAMETOOLONG;
    memcpy(buf, rel, len);
    buf[len] = '\0';
    if (strlen(buf) != len)
        return -EINVAL; /* a NUL inside: refused before any call, as the resolver does */
    int root = pathgate__os_open_root(g_root);
    assert_true(root >= 0);
    int fd = pathgate__contain_open(root, buf, flags, 0, 0);
    if (fd >= 0 && want) {
        char got[64];
        int n = read(fd, got, sizeof got);
        assert_int_equal(n, (int)strlen(want));
        assert_memory_equal(got, want, (size_t)n);
    }
    if (fd >= 0)
        close(fd);
    close(root);
    return fd >= 0 ? 0 : fd;
}

#define FILE_ O_RDONLY
#define DIR_ (O_RDONLY | O_DIRECTORY)
#define ANY_ PATHGATE__OS_O_PATH
#define OPEN(rel, flags, want) try_open((rel), strlen(rel), (flags), (want))

static void test_opens_inside(void **state)
{
    (void)state;
    assert_int_equal(OPEN("top.txt", FILE_, "top\n"), 0);
    assert_int_equal(OPEN("a/b/file.txt", FILE_, "hello\n"), 0);
    assert_int_equal(OPEN("a", DIR_, NULL), 0);
    assert_int_equal(OPEN("a/b", ANY_, NULL), 0);
    /* NTFS (and wine) look names up without case */
    assert_int_equal(OPEN("A/B/FILE.TXT", FILE_, "hello\n"), 0);
}

static void test_plain_errors(void **state)
{
    (void)state;
    assert_int_equal(OPEN("missing", FILE_, NULL), -ENOENT);
    assert_int_equal(OPEN("a/missing/x", FILE_, NULL), -ENOENT);
    assert_int_equal(OPEN("a", O_WRONLY, NULL), -EISDIR);
    assert_int_equal(OPEN("a", O_RDWR | O_TRUNC, NULL), -EISDIR);
    assert_int_equal(OPEN("a", FILE_, NULL), 0); /* read-only: a directory opens, as on POSIX */
    assert_int_equal(OPEN("top.txt", DIR_, NULL), -ENOTDIR);
    assert_int_equal(OPEN("top.txt/x", FILE_, NULL), -ENOTDIR);
    char longname[300];
    memset(longname, 'x', 256);
    longname[256] = '\0';
    assert_int_equal(OPEN(longname, FILE_, NULL), -ENAMETOOLONG);
}

/* Every rel here is refused by a name rule before the kernel sees it
 * (-EINVAL), or contained by the walk: `..` is applied lexically and never
 * rises above the base (-EXDEV); `.` and empty components name the
 * directory they are in, as on POSIX. */
static void test_name_rules_before_the_kernel(void **state)
{
    (void)state;
    static const struct {
        const char *rel;
        size_t len; /* 0: strlen */
        int rc;
    } cases[] = {
        {"..", 0, -EXDEV},
        {"../outside/secret.txt", 0, -EXDEV},
        {"a/../../outside/secret.txt", 0, -EXDEV},
        {"a/b/../../..", 0, -EXDEV},
        {"/top.txt", 0, -EXDEV},
        {"a/./b/file.txt", 0, 0},
        {"a/b/..", 0, 0},
        {"a//b", 0, 0},
        {"a/", 0, 0},
        {"a\\..\\..\\outside\\secret.txt", 0, -EINVAL},
        {"..\\outside", 0, -EINVAL},
        {"\\\\server\\share\\x", 0, -EINVAL},
        {"C:x", 0, -EINVAL},
        {"C:", 0, -EINVAL},
        {"C:/Windows", 0, -EINVAL},
        {"top.txt::$DATA", 0, -EINVAL},
        {"top.txt:hidden", 0, -EINVAL},
        {"a/b/file.txt:x:$DATA", 0, -EINVAL},
        {"CON", 0, -EINVAL},
        {"a/nul.txt", 0, -EINVAL},
        {"COM1.ext", 0, -EINVAL},
        {"a/LPT\xC2\xB9", 0, -EINVAL},
        {"top.txt.", 0, -EINVAL},
        {"top.txt ", 0, -EINVAL},
        {"a./b/file.txt", 0, -EINVAL},
        {"TOP~1.TXT", 0, -EINVAL},
        {"a/b/FILE~1.TXT", 0, -EINVAL},
        {"a*", 0, -EINVAL},
        {"a?", 0, -EINVAL},
        {"top.txt\0.exe", 12, -EINVAL},
        {"\xFF", 0, -EINVAL},
        {"a/\xED\xA0\x80", 0, -EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].rel);
        int rc = try_open(cases[i].rel, len, ANY_, NULL);
        if (rc != cases[i].rc)
            fail_msg("case %zu \"%s\": rc %d, expected %d", i, cases[i].rel, rc, cases[i].rc);
    }
}

/* A Unix symlink to a directory is a reparse point to wine. Wine cannot
 * read a link's target, so every link on the way is taken to lead out
 * there (-EXDEV); where
 * targets can be read (Windows) an inward relative link is followed and an
 * outward or absolute one is -EXDEV. Never does a link lead out. A symlink
 * to a file is a plain file to wine 8 (no reparse attribute, in a listing
 * or on a handle): not testable here (docs/windows.md, "What wine cannot
 * show"). */
static void test_links(void **state)
{
    (void)state;
    int root = pathgate__os_open_root(g_root);
    assert_true(root >= 0);
    char target[64];
    int readable = pathgate__os_readlinkat(root, "inlink", target, sizeof target) >= 0;
    close(root);
    int out = -EXDEV;
    assert_int_equal(OPEN("dirlink/secret.txt", FILE_, NULL), out);
    assert_int_equal(OPEN("DIRLINK/secret.txt", FILE_, NULL), out);
    assert_int_equal(OPEN("abslink/passwd", FILE_, NULL), out);
    assert_int_equal(OPEN("a/../dirlink/secret.txt", FILE_, NULL), out);
    assert_int_equal(OPEN("dirlink", ANY_ | O_NOFOLLOW, NULL), -ELOOP);
    assert_int_equal(OPEN("inlink/b/file.txt", FILE_, readable ? "hello\n" : NULL),
                     readable ? 0 : -EXDEV);
}

/* A chain of 30 directories (330 characters) is opened component by
 * component, and the same chain works as a root (a \\?\ path). */
static void test_long_paths(void **state)
{
    (void)state;
    char rel[512] = "";
    for (int i = 0; i < 30; i++)
        strcat(rel, "d123456789/");
    strcat(rel, "deep.txt");
    assert_true(strlen(rel) > 260);
    assert_int_equal(OPEN(rel, FILE_, "deep\n"), 0);

    char deep_root[4096];
    snprintf(deep_root, sizeof deep_root, "%s/%.*s", g_root, (int)(strlen(rel) - 9), rel);
    assert_true(strlen(deep_root) > 260);
    int root = pathgate__os_open_root(deep_root);
    assert_true(root >= 0);
    int fd = pathgate__contain_open(root, "deep.txt", O_RDONLY, 0, 0);
    assert_true(fd >= 0);
    close(fd);
    close(root);
    /* and spelled as a \\?\ path with backslashes */
    char verbatim[4200];
    snprintf(verbatim, sizeof verbatim, "\\\\?\\%s", deep_root);
    for (char *p = verbatim + 4; *p; p++)
        if (*p == '/')
            *p = '\\';
    root = pathgate__os_open_root(verbatim);
    assert_true(root >= 0);
    close(root);
}

static void test_roots(void **state)
{
    (void)state;
    static const char *const refused[] = {
        "relative\\dir", "C:relative", "\\rooted\\no\\drive", "\\\\.\\C:", "\\\\?", "", "a"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        assert_int_equal(pathgate__os_open_root(refused[i]), -EINVAL);
    pathgate__os_win_handle h = NULL;
    assert_int_equal(pathgate__os_win_open_root("C:\\x\0y", 6, &h), -EINVAL); /* NUL */
    assert_null(h);
    char path[4200];
    snprintf(path, sizeof path, "%s/top.txt", g_root);
    assert_int_equal(pathgate__os_open_root(path), -ENOTDIR);
    snprintf(path, sizeof path, "%s/no-such-dir", g_root);
    assert_int_equal(pathgate__os_open_root(path), -ENOENT);
    /* backslashes and a drive letter in lower case */
    snprintf(path, sizeof path, "z%s", g_root + 1);
    for (char *p = path; *p; p++)
        if (*p == '/')
            *p = '\\';
    int root = pathgate__os_open_root(path);
    assert_true(root >= 0);
    close(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opens_inside),
        cmocka_unit_test(test_plain_errors),
        cmocka_unit_test(test_name_rules_before_the_kernel),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_long_paths),
        cmocka_unit_test(test_roots),
    };
    return cmocka_run_group_tests_name("os_windows", tests, setup, NULL);
}
