/* test_os_windows_iface.c - the OS interface (core/src/os/os.h) of the
 * Windows backend under wine: handles, the contained walk, stat, listings,
 * changes by handle, links judged by pathgate's rules, locks, copies and
 * random bytes, against the tree tests/windows/make_tree.sh made
 * (PATHGATE_WINDOWS_TREE, a Unix path that wine reaches as Z:). Each test
 * that changes something works in a folder of its own under scratch/. */
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <windows.h>

#include "alloc.h"
#include "os.h"
#include "os_windows.h"

static char g_root[4096];    /* Z:/.../root */
static char g_scratch[4096]; /* Z:/.../scratch */
static char g_tree[4096];
static pathgate_allocator g_alloc;

static int setup(void **state)
{
    (void)state;
    const char *tree = getenv("PATHGATE_WINDOWS_TREE");
    if (!tree)
        return -1;
    pathgate__alloc_init(&g_alloc, NULL);
    snprintf(g_tree, sizeof g_tree, "Z:%s", tree);
    snprintf(g_root, sizeof g_root, "Z:%s/root", tree);
    snprintf(g_scratch, sizeof g_scratch, "Z:%s/scratch", tree);
    return 0;
}

static int root_fd(void)
{
    int fd = pathgate__os_open_root(g_root);
    assert_true(fd >= 0);
    return fd;
}

/* A fresh directory scratch/<name>, as a handle. */
static int scratch_dir(const char *name)
{
    int s = pathgate__os_open_root(g_scratch);
    assert_true(s >= 0);
    assert_int_equal(pathgate__os_mkdirat(s, name, 0755), 0);
    int d = pathgate__os_openat(s, name, O_RDONLY | O_DIRECTORY, 0);
    assert_true(d >= 0);
    close(s);
    return d;
}

static void put(int dir, const char *name, const char *content)
{
    int fd = pathgate__os_openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, content, (unsigned)strlen(content)), (int)strlen(content));
    assert_int_equal(close(fd), 0);
}

/* The content of name in dir ("" when it cannot be opened). */
static const char *get(int dir, const char *name)
{
    static char buf[256];
    buf[0] = '\0';
    int fd = pathgate__contain_open(dir, name, O_RDONLY, 0, 0);
    if (fd < 0)
        return buf;
    int n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

/* The names of a listing, sorted by nothing: "name:type," each. */
static int listing_has(int dir, const char *name, unsigned int type)
{
    char *buf = NULL;
    size_t cap = 0, used = 0;
    assert_int_equal(pathgate__os_dir_read_all(dir, &g_alloc, &buf, &cap, &used, 256), 0);
    size_t off = 0;
    pathgate__os_dirent e;
    int found = 0;
    while (pathgate__os_dir_next(buf, used, &off, &e)) {
        assert_int_equal(strlen(e.name), e.len);
        assert_false(strcmp(e.name, ".") == 0 || strcmp(e.name, "..") == 0);
        if (strcmp(e.name, name) == 0 && (type == PATHGATE__OS_T_UNKNOWN || e.type == type))
            found = 1;
    }
    free(buf);
    return found;
}

static int count_entries(int dir)
{
    char *buf = NULL;
    size_t cap = 0, used = 0, off = 0;
    assert_int_equal(pathgate__os_dir_read_all(dir, &g_alloc, &buf, &cap, &used, 64), 0);
    pathgate__os_dirent e;
    int n = 0;
    while (pathgate__os_dir_next(buf, used, &off, &e))
        n++;
    free(buf);
    return n;
}

/* Under wine (ntdll exports wine_get_version), where some NT calls are
 * missing (docs/windows.md lists them). */
static int is_wine(void)
{
    HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    return ntdll && GetProcAddress(ntdll, "wine_get_version") != NULL;
}

/* ------------------------------------------------------------ the walk */

static void test_contained_open_and_read(void **state)
{
    (void)state;
    int r = root_fd();
    assert_string_equal(get(r, "top.txt"), "top\n");
    assert_string_equal(get(r, "a/b/file.txt"), "hello\n");
    assert_string_equal(get(r, "a/../top.txt"), "top\n"); /* `..` applied lexically */
    assert_string_equal(get(r, "a/b/../../top.txt"), "top\n");
    assert_int_equal(pathgate__contain_open(r, "../outside/secret.txt", O_RDONLY, 0, 0), -EXDEV);
    assert_int_equal(pathgate__contain_open(r, "a/../../outside", O_RDONLY, 0, 0), -EXDEV);
    assert_int_equal(pathgate__contain_open(r, "/top.txt", O_RDONLY, 0, 0), -EXDEV);
    assert_int_equal(pathgate__contain_open(r, "missing", O_RDONLY, 0, 0), -ENOENT);
    assert_int_equal(pathgate__contain_open(r, "top.txt/x", O_RDONLY, 0, 0), -ENOTDIR);
    assert_int_equal(pathgate__contain_probe(r, "a/b/file.txt", 0), 0);
    /* what follows a missing directory is read lexically, and stays missing */
    assert_int_equal(pathgate__contain_probe(r, "a/missing/../b", 0), -ENOENT);
    assert_int_equal(pathgate__contain_probe(r, "missing/x", 0), -ENOENT);
    assert_int_equal(pathgate__contain_probe(r, "../x", 0), -EXDEV);
    /* a directory as a handle, then a walk beneath it */
    int a = pathgate__contain_open(r, "a", O_RDONLY | O_DIRECTORY, 0, 0);
    assert_true(a >= 0);
    assert_string_equal(get(a, "b/file.txt"), "hello\n");
    assert_int_equal(pathgate__contain_open(a, "../top.txt", O_RDONLY, 0, 0), -EXDEV);
    close(a);
    /* 30 levels, 330 characters: past MAX_PATH */
    char rel[512] = "";
    for (int i = 0; i < 30; i++)
        strcat(rel, "d123456789/");
    strcat(rel, "deep.txt");
    assert_string_equal(get(r, rel), "deep\n");
    close(r);
}

/* Every bad name is refused before the kernel, and changes nothing. */
static void test_bad_names_change_nothing(void **state)
{
    (void)state;
    int d = scratch_dir("names");
    static const char *const bad[] = {"CON",    "nul.txt",  "COM1.ext",     "LPT\xC2\xB9",
                                      "aux .c", "a:b",      "x::$DATA",     "trailing.",
                                      "space ", "PROGRA~1", "a\\b",         "a*",
                                      "q?",     "\xFF",     "\xED\xA0\x80", "conin$"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = pathgate__os_openat(d, bad[i], O_WRONLY | O_CREAT, 0644);
        if (rc != -EINVAL)
            fail_msg("openat \"%s\": %d", bad[i], rc);
        assert_int_equal(pathgate__contain_open(d, bad[i], O_WRONLY | O_CREAT, 0644, 0), -EINVAL);
        assert_int_equal(pathgate__os_mkdirat(d, bad[i], 0755), -EINVAL);
        pathgate__os_stat st;
        assert_int_equal(pathgate__os_statat(d, bad[i], 0, &st), -EINVAL);
        assert_int_equal(pathgate__os_unlinkat(d, bad[i], 0), -EINVAL);
    }
    put(d, "ok.txt", "x");
    assert_int_equal(pathgate__os_renameat(d, "ok.txt", d, "NUL", 0), -EINVAL);
    assert_int_equal(pathgate__os_renameat(d, "ok.txt", d, "ok.txt:s", 0), -EINVAL);
    assert_int_equal(pathgate__os_linkat(d, "ok.txt", d, "com1"), -EINVAL);
    assert_int_equal(count_entries(d), 1);
    assert_string_equal(get(d, "ok.txt"), "x");
    close(d);
}

/* ------------------------------------------------------------- links */

/* Unix symlinks to directories are reparse points to wine. Wine 8 cannot
 * read their targets (no FSCTL_GET_REPARSE_POINT): a link whose target
 * cannot be read is never followed and is taken to lead out, -EXDEV,
 * inward or outward alike (docs/windows.md). An outward or absolute link
 * never leads out. */
static void test_links(void **state)
{
    (void)state;
    int r = root_fd();
    char buf[256];
    long n = pathgate__os_readlinkat(r, "inlink", buf, sizeof buf);
    int readable = n >= 0;
    if (readable) {
        assert_int_equal(n, 1);
        assert_memory_equal(buf, "a", 1);
        assert_string_equal(get(r, "inlink/b/file.txt"), "hello\n");
        assert_int_equal(pathgate__contain_open(r, "dirlink/secret.txt", O_RDONLY, 0, 0), -EXDEV);
        assert_int_equal(pathgate__contain_open(r, "abslink/passwd", O_RDONLY, 0, 0), -EXDEV);
    } else {
        assert_int_equal(n, -EXDEV);
        assert_int_equal(pathgate__contain_open(r, "inlink/b/file.txt", O_RDONLY, 0, 0), -EXDEV);
        assert_int_equal(pathgate__contain_open(r, "dirlink/secret.txt", O_RDONLY, 0, 0), -EXDEV);
        assert_int_equal(pathgate__contain_open(r, "abslink/passwd", O_RDONLY, 0, 0), -EXDEV);
    }
    /* never opened through, whatever the flags */
    assert_int_equal(pathgate__os_openat(r, "dirlink", O_RDONLY, 0), -ELOOP);
    assert_int_equal(pathgate__os_openat(r, "DIRLINK", O_RDONLY | O_DIRECTORY, 0), -ELOOP);
    assert_int_equal(pathgate__os_openat(r, "dirlink", PATHGATE__OS_O_PATH | O_NOFOLLOW, 0),
                     -ELOOP);
    assert_int_equal(pathgate__contain_open(r, "dirlink", O_RDONLY | O_NOFOLLOW, 0, 0), -ELOOP);
    assert_int_equal(
        pathgate__contain_open_how(r, "inlink/b/file.txt", O_RDONLY, 0, PATHGATE__CONTAIN_NO_LINKS),
        -ELOOP);
    assert_int_equal(pathgate__contain_probe_how(r, "dirlink", PATHGATE__CONTAIN_NO_LINKS), -ELOOP);
    /* a loop never opens (wine 8 leaves dangling links out of listings:
     * -ENOENT; Windows lists a reparse point: -ELOOP) */
    int rc = pathgate__contain_open(r, "loop1/x", O_RDONLY, 0, 0);
    assert_true(rc == -ELOOP || rc == -ENOENT);
    /* a dangling link outward: creating through it creates nothing */
    pathgate__os_stat st;
    int t = pathgate__os_open_root(g_tree);
    assert_true(t >= 0);
    static const int creates[] = {O_WRONLY | O_CREAT, O_WRONLY | O_CREAT | O_TRUNC,
                                  O_RDWR | O_CREAT | O_APPEND, O_WRONLY | O_CREAT | O_EXCL};
    for (size_t i = 0; i < sizeof creates / sizeof creates[0]; i++) {
        rc = pathgate__contain_open(r, "dangle", creates[i], 0644, 0);
        assert_true(rc < 0);
        assert_true(rc == -ELOOP || rc == -EEXIST);
        rc = pathgate__os_openat(r, "dangle", creates[i], 0644);
        assert_true(rc == -ELOOP || rc == -EEXIST);
        int o = pathgate__os_openat(t, "outside", O_RDONLY | O_DIRECTORY, 0);
        assert_int_equal(pathgate__os_statat(o, "created.txt", 0, &st), -ENOENT);
        close(o);
    }
    assert_int_equal(pathgate__os_mkdirat(r, "dangle", 0755), -EEXIST);
    close(t);
    /* not a link: -EINVAL */
    assert_int_equal(pathgate__os_readlinkat(r, "a", buf, sizeof buf), -EINVAL);
    assert_int_equal(pathgate__os_readlinkat(r, "top.txt", buf, sizeof buf), -EINVAL);
    /* lstat sees the link */
    assert_int_equal(pathgate__os_statat(r, "dirlink", PATHGATE__OS_STAT_NOFOLLOW, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_LNK);
    assert_true(listing_has(r, "dirlink", PATHGATE__OS_T_LNK));
    /* making links: not on Windows */
    assert_int_equal(pathgate__os_symlinkat("a", r, "newlink"), -ENOSYS);
    assert_int_equal(pathgate__os_statat(r, "newlink", PATHGATE__OS_STAT_NOFOLLOW, &st), -ENOENT);
    close(r);
}

/* A REPARSE_DATA_BUFFER of a symlink (flags: 1 relative) or, with
 * flags < 0, a junction; the substitute name `sub`, a print name "p". */
static size_t reparse(unsigned char *out, unsigned long tag, long flags, const wchar_t *sub)
{
    size_t n = wcslen(sub) * 2, at = 0;
    memset(out, 0, 1024);
    memcpy(out, &tag, 4);
    uint16_t sub_off = 0, sub_len = (uint16_t)n, print_off = (uint16_t)(n + 2), print_len = 2;
    memcpy(out + 8, &sub_off, 2);
    memcpy(out + 10, &sub_len, 2);
    memcpy(out + 12, &print_off, 2);
    memcpy(out + 14, &print_len, 2);
    at = 16;
    if (flags >= 0) {
        uint32_t f = (uint32_t)flags;
        memcpy(out + at, &f, 4);
        at += 4;
    }
    memcpy(out + at, sub, n);
    out[at + n + 2] = 'p';
    at += n + 4;
    uint16_t data_len = (uint16_t)(at - 8);
    memcpy(out + 4, &data_len, 2);
    return at;
}

/* The targets of links as readlink gives them (the parsing of
 * FSCTL_GET_REPARSE_POINT, which wine 8 cannot answer, on buffers made
 * here): relative with '/', absolute behind a '/' so that the walk refuses
 * it as absolute, anything malformed refused. */
static void test_reparse_targets(void **state)
{
    (void)state;
    unsigned char b[1024];
    char out[256];
    const unsigned long sym = 0xA000000Cul, mnt = 0xA0000003ul;
    size_t n = reparse(b, sym, 1, L"..\\sibling\\x");
    assert_int_equal(pathgate__os_win_reparse_target(b, n, out, sizeof out), 12);
    assert_string_equal(out, "../sibling/x");
    n = reparse(b, sym, 1, L"a");
    assert_int_equal(pathgate__os_win_reparse_target(b, n, out, sizeof out), 1);
    assert_string_equal(out, "a");
    n = reparse(b, sym, 0, L"\\??\\C:\\Windows");
    assert_true(pathgate__os_win_reparse_target(b, n, out, sizeof out) > 0);
    assert_string_equal(out, "/C:/Windows");
    n = reparse(b, sym, 0, L"\\??\\UNC\\server\\share\\x");
    assert_true(pathgate__os_win_reparse_target(b, n, out, sizeof out) > 0);
    assert_string_equal(out, "//server/share/x");
    n = reparse(b, mnt, -1, L"\\??\\C:\\root\\inside");
    assert_true(pathgate__os_win_reparse_target(b, n, out, sizeof out) > 0);
    assert_string_equal(out, "/C:/root/inside"); /* a junction: always absolute */
    n = reparse(b, mnt, -1, L"\\??\\Volume{0123}\\");
    assert_true(pathgate__os_win_reparse_target(b, n, out, sizeof out) > 0);
    assert_int_equal(out[0], '/');
    /* a relative target that is not valid UTF-16 (a lone surrogate) */
    const wchar_t lone[] = {L'a', 0xD800, L'b', 0};
    n = reparse(b, sym, 1, lone);
    assert_int_equal(pathgate__os_win_reparse_target(b, n, out, sizeof out), -EINVAL);
    /* too long for the caller's buffer */
    n = reparse(b, sym, 1, L"abcdefgh");
    assert_int_equal(pathgate__os_win_reparse_target(b, n, out, 8), -ENAMETOOLONG);
    /* other reparse points (OneDrive, dedup, WSL) are not links pathgate reads */
    n = reparse(b, 0x9000001Aul, 1, L"x");
    assert_int_equal(pathgate__os_win_reparse_target(b, n, out, sizeof out), -ELOOP);
    /* offsets past the buffer, odd offsets, a truncated header */
    n = reparse(b, sym, 1, L"abc");
    uint16_t big = 2000, odd = 1;
    memcpy(b + 10, &big, 2);
    assert_int_equal(pathgate__os_win_reparse_target(b, n, out, sizeof out), -EIO);
    n = reparse(b, sym, 1, L"abc");
    memcpy(b + 8, &odd, 2);
    assert_int_equal(pathgate__os_win_reparse_target(b, n, out, sizeof out), -EIO);
    assert_int_equal(pathgate__os_win_reparse_target(b, 10, out, sizeof out), -EIO);
}

/* Deleting a link deletes the link, never what it leads to. */
static void test_unlink_of_a_link_keeps_the_target(void **state)
{
    (void)state;
    int t = pathgate__os_open_root(g_tree);
    assert_true(t >= 0);
    int s = pathgate__os_openat(t, "scratch", O_RDONLY | O_DIRECTORY, 0);
    assert_true(s >= 0);
    assert_int_equal(pathgate__os_unlinkat(s, "outlink", PATHGATE__OS_REMOVE_DIR), -ENOTDIR);
    int rc = pathgate__os_unlinkat(s, "outlink", 0);
    pathgate__os_stat st;
    /* whatever wine did with the link, the directory and file it led to stay */
    assert_int_equal(pathgate__os_statat(t, "outside", 0, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_DIR);
    int o = pathgate__os_openat(t, "outside", O_RDONLY | O_DIRECTORY, 0);
    assert_true(o >= 0);
    assert_string_equal(get(o, "secret.txt"), "secret\n");
    close(o);
    /* Windows deletes the link; wine 8 can only open the target, and that
     * open is refused (-ELOOP), the link kept */
    if (rc == 0)
        assert_int_equal(pathgate__os_statat(s, "outlink", PATHGATE__OS_STAT_NOFOLLOW, &st),
                         -ENOENT);
    else
        assert_int_equal(rc, -ELOOP);
    /* a link to an empty directory outside (what wine would delete through
     * the link): the directory stays, and a rename moves no target either */
    int rc2 = pathgate__os_unlinkat(s, "emptylink", 0);
    assert_int_equal(rc2, rc);
    assert_int_equal(pathgate__os_statat(t, "emptydir", 0, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_DIR);
    if (rc) {
        assert_int_equal(pathgate__os_renameat(s, "emptylink", s, "renamed", 0), -ELOOP);
        assert_int_equal(pathgate__os_statat(t, "emptydir", 0, &st), 0);
    }
    close(s);
    close(t);
}

/* ------------------------------------------------------------- stat */

static void test_stat(void **state)
{
    (void)state;
    int r = root_fd();
    pathgate__os_stat st, st2;
    assert_int_equal(pathgate__os_statat(r, "top.txt", 0, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_REG);
    assert_int_equal(st.size, 4);
    assert_int_equal(st.nlink, 1);
    assert_true(st.mtime_sec > 1500000000);
    assert_true(st.has_btime);
    assert_int_equal(st.mode & 0222, 0222);
    /* the same file by a handle: the same identity */
    int fd = pathgate__contain_open(r, "top.txt", PATHGATE__OS_O_PATH, 0, 0);
    assert_true(fd >= 0);
    assert_int_equal(pathgate__os_statat(fd, "", 0, &st2), 0);
    assert_int_equal(st2.ino, st.ino);
    assert_int_equal(st2.dev, st.dev);
    assert_int_equal(st2.size, 4);
    close(fd);
    assert_int_equal(pathgate__os_statat(r, "a", PATHGATE__OS_STAT_NOFOLLOW, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_DIR);
    assert_int_equal(pathgate__os_statat(r, "", 0, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_DIR);
    assert_int_equal(pathgate__os_statat(r, ".", 0, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_DIR);
    assert_int_equal(pathgate__os_statat(r, "missing", 0, &st), -ENOENT);
    assert_int_equal(pathgate__os_statat(r, "..", 0, &st), -EXDEV);
    assert_int_equal(pathgate__os_statat(-1, "x", 0, &st), -EBADF);
    /* case: NTFS and wine find a name in any case; one spelling is kept,
     * the directory's own */
    assert_int_equal(pathgate__os_statat(r, "TOP.TXT", 0, &st), 0);
    assert_int_equal(st.size, 4);
    char name[64], real[256];
    assert_int_equal(pathgate__os_stored_name(r, "Top.TXT", name, sizeof name), 0);
    assert_string_equal(name, "top.txt");
    assert_int_equal(pathgate__os_stored_name(r, "Top.TXT", name, 7), -ENAMETOOLONG);
    assert_int_equal(pathgate__os_stored_name(r, "nope", name, sizeof name), -ENOENT);
    assert_int_equal(pathgate__os_stored_name(r, "nul", name, sizeof name), -EINVAL);
    assert_int_equal(pathgate__contain_real_rel(real, sizeof real, r, "A/B/FILE.TXT", 0), 0);
    assert_string_equal(real, "a/b/file.txt");
    assert_int_equal(pathgate__contain_real_rel(real, sizeof real, r, "A/Missing/X", 0), 0);
    assert_string_equal(real, "a/Missing/X"); /* what does not exist stays as written */
    assert_int_equal(pathgate__contain_real_rel(real, sizeof real, r, "A/../TOP.txt", 0), 0);
    assert_string_equal(real, "top.txt");
    close(r);
}

static void test_listing(void **state)
{
    (void)state;
    int r = root_fd();
    assert_true(listing_has(r, "top.txt", PATHGATE__OS_T_REG));
    assert_true(listing_has(r, "a", PATHGATE__OS_T_DIR));
    assert_true(listing_has(r, "inlink", PATHGATE__OS_T_LNK));
    /* read twice: each read is the whole listing (a rewind is free) */
    int n = count_entries(r);
    assert_int_equal(pathgate__os_dir_rewind(r), 0);
    assert_int_equal(count_entries(r), n);
    assert_true(n >= 7); /* wine 8 leaves the dangling loop1 and loop2 out */
    /* a directory of many entries spans several NT reads */
    int d = scratch_dir("many");
    char name[32];
    for (int i = 0; i < 700; i++) {
        snprintf(name, sizeof name, "entry-with-a-longish-name-%04d", i);
        int fd = pathgate__os_openat(d, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
        assert_true(fd >= 0);
        close(fd);
    }
    assert_int_equal(count_entries(d), 700);
    assert_true(listing_has(d, "entry-with-a-longish-name-0699", PATHGATE__OS_T_REG));
    close(d);
    close(r);
}

/* ------------------------------------------------------------- changes */

static void test_create_truncate_append(void **state)
{
    (void)state;
    int d = scratch_dir("create");
    put(d, "f", "hello");
    assert_int_equal(pathgate__os_openat(d, "f", O_WRONLY | O_CREAT | O_EXCL, 0644), -EEXIST);
    int fd = pathgate__os_openat(d, "f", O_WRONLY | O_APPEND, 0);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "!", 1), 1);
    close(fd);
    assert_string_equal(get(d, "f"), "hello!");
    fd = pathgate__os_openat(d, "f", O_WRONLY | O_TRUNC, 0);
    assert_true(fd >= 0);
    close(fd);
    assert_string_equal(get(d, "f"), "");
    /* O_RDWR reads what it wrote */
    fd = pathgate__os_openat(d, "g", O_RDWR | O_CREAT, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "abc", 3), 3);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    char b[4] = {0};
    assert_int_equal(read(fd, b, 3), 3);
    assert_string_equal(b, "abc");
    close(fd);
    /* a directory is not opened for writing */
    assert_int_equal(pathgate__os_mkdirat(d, "sub", 0755), 0);
    assert_int_equal(pathgate__os_mkdirat(d, "sub", 0755), -EEXIST);
    assert_int_equal(pathgate__os_mkdirat(d, "f", 0755), -EEXIST);
    assert_int_equal(pathgate__os_openat(d, "sub", O_WRONLY, 0), -EISDIR);
    assert_int_equal(pathgate__os_openat(d, "sub", O_RDONLY | O_CREAT, 0644), -EISDIR);
    assert_int_equal(pathgate__os_openat(d, "f", O_RDONLY | O_DIRECTORY, 0), -ENOTDIR);
    assert_int_equal(pathgate__os_mkdirat(d, "missing/x", 0755), -EINVAL);
    close(d);
}

static void test_unlink_rmdir(void **state)
{
    (void)state;
    int d = scratch_dir("unlink");
    put(d, "f", "x");
    assert_int_equal(pathgate__os_mkdirat(d, "sub", 0755), 0);
    int sub = pathgate__os_openat(d, "sub", O_RDONLY | O_DIRECTORY, 0);
    put(sub, "inner", "y");
    assert_int_equal(pathgate__os_unlinkat(d, "sub", 0), -EISDIR);
    assert_int_equal(pathgate__os_unlinkat(d, "f", PATHGATE__OS_REMOVE_DIR), -ENOTDIR);
    /* a directory held by a handle cannot be removed (no FILE_SHARE_DELETE) */
    assert_int_equal(pathgate__os_unlinkat(sub, "inner", 0), 0);
    assert_int_equal(pathgate__os_unlinkat(d, "sub", PATHGATE__OS_REMOVE_DIR), -EBUSY);
    close(sub);
    put(d, "g", "z");
    assert_int_equal(pathgate__os_mkdirat(d, "full", 0755), 0);
    sub = pathgate__os_openat(d, "full", O_RDONLY | O_DIRECTORY, 0);
    put(sub, "inner", "y");
    close(sub);
    assert_int_equal(pathgate__os_unlinkat(d, "full", PATHGATE__OS_REMOVE_DIR), -ENOTEMPTY);
    assert_int_equal(pathgate__os_unlinkat(d, "sub", PATHGATE__OS_REMOVE_DIR), 0);
    /* a file open elsewhere can still be deleted (shared for deletion) */
    int held = pathgate__os_openat(d, "f", O_RDONLY, 0);
    assert_true(held >= 0);
    assert_int_equal(pathgate__os_unlinkat(d, "f", 0), 0);
    close(held);
    pathgate__os_stat st;
    assert_int_equal(pathgate__os_statat(d, "f", 0, &st), -ENOENT);
    assert_int_equal(pathgate__os_statat(d, "sub", 0, &st), -ENOENT);
    assert_int_equal(pathgate__os_unlinkat(d, "f", 0), -ENOENT);
    assert_int_equal(count_entries(d), 2); /* g, full */
    close(d);
}

static void test_rename(void **state)
{
    (void)state;
    int d = scratch_dir("rename");
    int d2 = scratch_dir("rename2");
    put(d, "a", "A");
    put(d, "b", "B");
    /* no-replace: refused, both intact */
    assert_int_equal(pathgate__os_renameat(d, "a", d, "b", PATHGATE__OS_RENAME_NOREPLACE), -EEXIST);
    assert_string_equal(get(d, "a"), "A");
    assert_string_equal(get(d, "b"), "B");
    /* replace */
    assert_int_equal(pathgate__os_renameat(d, "a", d, "b", 0), 0);
    assert_string_equal(get(d, "b"), "A");
    pathgate__os_stat st;
    assert_int_equal(pathgate__os_statat(d, "a", 0, &st), -ENOENT);
    /* into another directory, relative to its handle */
    assert_int_equal(pathgate__os_renameat(d, "b", d2, "moved", PATHGATE__OS_RENAME_NOREPLACE), 0);
    assert_string_equal(get(d2, "moved"), "A");
    assert_int_equal(pathgate__os_statat(d, "b", 0, &st), -ENOENT);
    /* a directory, and the exchange Windows has not */
    assert_int_equal(pathgate__os_mkdirat(d, "dir", 0755), 0);
    assert_int_equal(pathgate__os_renameat(d, "dir", d, "dir2", PATHGATE__OS_RENAME_NOREPLACE), 0);
    assert_int_equal(pathgate__os_statat(d, "dir2", 0, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_DIR);
    assert_int_equal(pathgate__os_renameat(d, "dir2", d2, "moved", PATHGATE__OS_RENAME_EXCHANGE),
                     -ENOSYS);
    /* a directory held by a handle (a walk in it) cannot be moved away */
    int held = pathgate__os_openat(d, "dir2", O_RDONLY | O_DIRECTORY, 0);
    assert_true(held >= 0);
    assert_int_equal(pathgate__os_renameat(d, "dir2", d, "dir3", 0), -EBUSY);
    assert_int_equal(pathgate__os_statat(d, "dir2", 0, &st), 0);
    close(held);
    assert_int_equal(pathgate__os_renameat(d, "dir2", d, "dir3", 0), 0);
    assert_int_equal(pathgate__os_renameat(d, "missing", d, "x", 0), -ENOENT);
    /* a file and a directory never replace each other (POSIX's errors),
     * and a directory does not replace another: nothing changes */
    put(d, "file", "F");
    assert_int_equal(pathgate__os_mkdirat(d, "empty", 0755), 0);
    assert_int_equal(pathgate__os_renameat(d, "file", d, "empty", 0), -EISDIR);
    assert_int_equal(pathgate__os_renameat(d, "empty", d, "file", 0), -ENOTDIR);
    assert_int_equal(pathgate__os_renameat(d, "dir3", d, "empty", 0), -EEXIST);
    assert_string_equal(get(d, "file"), "F");
    assert_int_equal(pathgate__os_statat(d, "empty", 0, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_DIR);
    assert_int_equal(pathgate__os_statat(d, "dir3", 0, &st), 0);
    /* onto itself: nothing to do */
    assert_int_equal(pathgate__os_renameat(d, "dir3", d, "dir3", 0), 0);
    assert_int_equal(pathgate__os_renameat(d, "file", d, "file", 0), 0);
    assert_string_equal(get(d, "file"), "F");
    close(d);
    close(d2);
}

/* The edit tools' pattern: a temporary file with a random name, made
 * O_CREAT|O_EXCL|O_NOFOLLOW, written, then renamed over the file it
 * replaces while a reader still holds that file open (POSIX semantics
 * where the volume has them; files are always shared for deletion). */
static void test_temp_then_replace(void **state)
{
    (void)state;
    int d = scratch_dir("atomic");
    put(d, "target.txt", "old");
    int reader = pathgate__os_openat(d, "target.txt", O_RDONLY, 0);
    assert_true(reader >= 0);
    unsigned char r[8];
    assert_int_equal(pathgate__os_random(r, sizeof r), 0);
    char tmp[64];
    snprintf(tmp, sizeof tmp, ".tmp-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4],
             r[5], r[6], r[7]);
    int fd = pathgate__os_openat(d, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
    assert_true(fd >= 0);
    assert_int_equal(pathgate__os_openat(d, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600),
                     -EEXIST);
    assert_int_equal(write(fd, "new", 3), 3);
    assert_int_equal(close(fd), 0);
    int rc = pathgate__os_renameat(d, tmp, d, "target.txt", 0);
    char b[4] = {0};
    if (is_wine()) {
        /* wine 8 has only the classic rename: a file another handle holds
         * is not replaced, and nothing changes */
        assert_int_equal(rc, -EACCES);
        assert_string_equal(get(d, "target.txt"), "old");
        assert_string_equal(get(d, tmp), "new");
        close(reader);
        assert_int_equal(pathgate__os_renameat(d, tmp, d, "target.txt", 0), 0);
    } else {
        assert_int_equal(rc, 0);
        assert_int_equal(read(reader, b, 3), 3); /* the reader keeps the old content */
        assert_string_equal(b, "old");
        close(reader);
    }
    assert_string_equal(get(d, "target.txt"), "new");
    assert_int_equal(count_entries(d), 1);
    close(d);
}

static void test_link(void **state)
{
    (void)state;
    int d = scratch_dir("link");
    put(d, "f", "F");
    assert_int_equal(pathgate__os_linkat(d, "f", d, "g"), 0);
    pathgate__os_stat a, b;
    assert_int_equal(pathgate__os_statat(d, "f", 0, &a), 0);
    assert_int_equal(pathgate__os_statat(d, "g", 0, &b), 0);
    assert_int_equal(a.nlink, 2);
    assert_int_equal(a.ino, b.ino);
    assert_int_equal(pathgate__os_linkat(d, "f", d, "g"), -EEXIST);
    assert_int_equal(pathgate__os_mkdirat(d, "sub", 0755), 0);
    assert_int_equal(pathgate__os_linkat(d, "sub", d, "sub2"), -EPERM);
    close(d);
}

static void test_times_and_mode(void **state)
{
    (void)state;
    int d = scratch_dir("attrs");
    put(d, "f", "F");
    int fd = pathgate__os_openat(d, "f", PATHGATE__OS_O_PATH, 0);
    assert_true(fd >= 0);
    const int64_t t[4] = {1000000000, 500000000, 1200000000, 0};
    assert_int_equal(pathgate__os_futimes(fd, t), 0);
    pathgate__os_stat st;
    assert_int_equal(pathgate__os_statat(fd, "", 0, &st), 0);
    assert_int_equal(st.mtime_sec, 1200000000);
    assert_int_equal(st.atime_sec, 1000000000);
    assert_int_equal(st.atime_nsec, 500000000);
    const int64_t omit[4] = {0, PATHGATE__OS_UTIME_OMIT, 0, PATHGATE__OS_UTIME_OMIT};
    assert_int_equal(pathgate__os_futimes(fd, omit), 0);
    assert_int_equal(pathgate__os_statat(fd, "", 0, &st), 0);
    assert_int_equal(st.mtime_sec, 1200000000);
    const int64_t bad[4] = {0, 1000000000, 0, 0};
    assert_int_equal(pathgate__os_futimes(fd, bad), -EINVAL);
    assert_int_equal(pathgate__os_fchmod(fd, 0444), 0);
    assert_int_equal(pathgate__os_statat(d, "f", 0, &st), 0);
    assert_int_equal(st.mode, 0444);
    assert_int_equal(pathgate__os_fchmod(fd, 0644), 0);
    assert_int_equal(pathgate__os_statat(d, "f", 0, &st), 0);
    assert_int_equal(st.mode, 0666);
    close(fd);
    /* read-only files are deleted and replaced as on POSIX */
    put(d, "ro", "R");
    put(d, "ro2", "R2");
    put(d, "src", "S");
    for (int i = 0; i < 2; i++) {
        fd = pathgate__os_openat(d, i ? "ro2" : "ro", PATHGATE__OS_O_PATH, 0);
        assert_int_equal(pathgate__os_fchmod(fd, 0444), 0);
        close(fd);
    }
    assert_int_equal(pathgate__os_unlinkat(d, "ro", 0), 0);
    assert_int_equal(pathgate__os_statat(d, "ro", 0, &st), -ENOENT);
    assert_int_equal(pathgate__os_renameat(d, "src", d, "ro2", 0), 0);
    assert_string_equal(get(d, "ro2"), "S");
    /* a directory's attributes survive a chmod */
    assert_int_equal(pathgate__os_mkdirat(d, "sub", 0755), 0);
    fd = pathgate__os_openat(d, "sub", PATHGATE__OS_O_PATH, 0);
    assert_int_equal(pathgate__os_fchmod(fd, 0555), 0);
    assert_int_equal(pathgate__os_statat(fd, "", 0, &st), 0);
    assert_int_equal(st.type, PATHGATE__OS_T_DIR);
    assert_int_equal(pathgate__os_fchmod(fd, 0755), 0);
    close(fd);
    close(d);
}

/* ------------------------------------------------------ files and bytes */

static void test_copy_lock_path_random(void **state)
{
    (void)state;
    int d = scratch_dir("bytes");
    put(d, "src", "some content to copy\n");
    int in = pathgate__os_openat(d, "src", O_RDONLY, 0);
    int out = pathgate__os_openat(d, "dst", O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(in >= 0 && out >= 0);
    assert_int_equal(pathgate__os_copy_fd(out, in, &g_alloc), 0);
    assert_int_equal(pathgate__os_sync_fs(out), 0);
    close(in);
    close(out);
    assert_string_equal(get(d, "dst"), "some content to copy\n");

    /* locks: one holder at a time, released by close; readers and writers
     * are not blocked (the locked byte is past any content) */
    int l1 = pathgate__os_openat(d, "src", O_RDONLY, 0);
    int l2 = pathgate__os_openat(d, "src", O_RDONLY, 0);
    assert_int_equal(pathgate__os_lock_try(l1), 0);
    assert_int_equal(pathgate__os_lock_try(l2), -EAGAIN);
    char b[8];
    assert_int_equal(read(l2, b, 4), 4);
    put(d, "src", "rewritten");
    close(l1);
    assert_int_equal(pathgate__os_lock_try(l2), 0);
    close(l2);
    assert_int_equal(pathgate__os_lock_try(d), -ENOSYS); /* a directory */

    /* the host path of a handle (never shown to an agent) */
    char path[4096];
    assert_int_equal(pathgate__os_fd_path(d, path, sizeof path), 0);
    size_t n = strlen(path);
    assert_true(n > 13);
    assert_string_equal(path + n - 13, "scratch\\bytes");
    assert_int_equal(pathgate__os_fd_path(d, path, 5), -ENAMETOOLONG);

    unsigned char r1[32], r2[32], zero[32] = {0};
    assert_int_equal(pathgate__os_random(r1, sizeof r1), 0);
    assert_int_equal(pathgate__os_random(r2, sizeof r2), 0);
    assert_memory_not_equal(r1, r2, sizeof r1);
    assert_memory_not_equal(r1, zero, sizeof r1);
    close(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contained_open_and_read),
        cmocka_unit_test(test_bad_names_change_nothing),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_reparse_targets),
        cmocka_unit_test(test_unlink_of_a_link_keeps_the_target),
        cmocka_unit_test(test_stat),
        cmocka_unit_test(test_listing),
        cmocka_unit_test(test_create_truncate_append),
        cmocka_unit_test(test_unlink_rmdir),
        cmocka_unit_test(test_rename),
        cmocka_unit_test(test_temp_then_replace),
        cmocka_unit_test(test_link),
        cmocka_unit_test(test_times_and_mode),
        cmocka_unit_test(test_copy_lock_path_random),
    };
    return cmocka_run_group_tests_name("os_windows_iface", tests, setup, NULL);
}
