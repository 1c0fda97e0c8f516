/* test_windows_fs.c - the resolver and the edit tools on a Windows base
 * under wine (docs/windows.md): one spelling per file, the name as the
 * directory stores it, from resolve and its refs as from every file
 * operation; and edits of an existing file through each edit path (edit,
 * multi_edit, the text editor's str_replace, insert and undo_edit,
 * apply_patch, write, atomic handles), each replacing the file whole by
 * renaming a temp file over it: the old content until the rename, no temp
 * file left, the stored spelling kept. Each test works in a folder of its
 * own under PATHGATE_WINDOWS_TREE (a Unix path wine reaches as Z:), made
 * and read with the C runtime's own calls, not pathgate's. */
#include "support.h"

#include <direct.h>
#include <errno.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include "pathgate/editor.h"
#include "pathgate/fs_patch.h"
#include "pathgate/fs_toolkit.h"

static char g_top[2048]; /* Z:/<tree>/fs-<pid> */

static int setup(void **state)
{
    (void)state;
    const char *tree = getenv("PATHGATE_WINDOWS_TREE");
    if (!tree)
        return -1;
    snprintf(g_top, sizeof g_top, "Z:%s/fs-%lu", tree, (unsigned long)GetCurrentProcessId());
    return _mkdir(g_top);
}

/* Under wine (ntdll exports wine_get_version), where a rename over a file
 * another handle holds is refused (docs/windows.md). */
static int is_wine(void)
{
    HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    return ntdll && GetProcAddress(ntdll, "wine_get_version") != NULL;
}

static void join(char *out, size_t cap, const char *dir, const char *rel)
{
    int n = snprintf(out, cap, "%s/%s", dir, rel);
    assert_true(n > 0 && (size_t)n < cap);
}

/* A fresh folder g_top/name: a test's base. */
static void base_dir(char *out, size_t cap, const char *name)
{
    join(out, cap, g_top, name);
    assert_int_equal(_mkdir(out), 0);
}

static void mk(const char *dir, const char *rel)
{
    char p[2300];
    join(p, sizeof p, dir, rel);
    assert_int_equal(_mkdir(p), 0);
}

static void put(const char *dir, const char *rel, const char *content)
{
    char p[2300];
    join(p, sizeof p, dir, rel);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(content, 1, strlen(content), f), strlen(content));
    assert_int_equal(fclose(f), 0);
}

/* The content of dir/rel, or "<missing>". */
static const char *get(const char *dir, const char *rel)
{
    static char buf[4096];
    char p[2300];
    join(p, sizeof p, dir, rel);
    FILE *f = fopen(p, "rb");
    if (!f)
        return "<missing>";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names dir/rel's listing holds (the spellings its directory stores),
 * sorted, each followed by ','. */
static const char *names(const char *dir, const char *rel)
{
    static char out[4096];
    char pattern[2300], p[2300];
    join(p, sizeof p, dir, rel);
    join(pattern, sizeof pattern, p, "*");
    char store[32][260];
    char *list[32];
    size_t n = 0;
    struct _finddata_t fd;
    intptr_t h = _findfirst(pattern, &fd);
    assert_true(h != -1);
    do {
        if (strcmp(fd.name, ".") && strcmp(fd.name, "..")) {
            assert_true(n < 32);
            snprintf(store[n], sizeof store[n], "%s", fd.name);
            list[n] = store[n];
            n++;
        }
    } while (_findnext(h, &fd) == 0);
    _findclose(h);
    qsort(list, n, sizeof list[0], by_name);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strcat(out, list[i]);
        strcat(out, ",");
    }
    return out;
}

static pathgate_resolver *open_resolver(const char *dir, const char *const *deny, size_t ndeny,
                                        const char *const *presets, size_t npresets)
{
    pathgate_base_spec root = {"repo", 4, dir, strlen(dir), 0};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = &root;
    o.nroots = 1;
    o.allocator = pg_test_alloc();
    o.deny_read = deny;
    o.ndeny_read = ndeny;
    o.presets = presets;
    o.npresets = npresets;
    pathgate_resolver *r = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_resolver_new(&r, &o, &err);
    if (rc != 0)
        fail_msg("resolver: %s", err.message);
    return r;
}

/* The address resolve answers for text (require_exists as given; base:
 * relative text's base), or "" when it refuses it (*reason: why). */
static const char *resolved(pathgate_resolver *r, const char *text, int require_exists,
                            const char *base, pathgate_reason *reason)
{
    static char out[2][1024];
    static int which;
    char *o = out[which ^= 1];
    pathgate_resolve_options ro = PATHGATE_RESOLVE_OPTIONS_INIT;
    ro.require_exists = require_exists;
    ro.base = base;
    ro.base_len = base ? strlen(base) : 0;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_resolver_resolve(&res, r, PG_S(text), &ro, &err), 0);
    if (reason)
        *reason = res.reason;
    o[0] = '\0';
    if (res.ok) {
        size_t len;
        const char *a = pathgate_ref_address(res.ref, &len);
        snprintf(o, sizeof out[0], "%.*s", (int)len, a);
        /* the relative path is the address's own */
        assert_string_equal(res.relative_path, o + strlen("root:repo/"));
        pathgate_resolver_release(r, res.ref);
    }
    pathgate_resolution_dispose(&res);
    return o;
}

/* ------------------------------------------------------------ resolve */

static void test_resolve_answers_the_stored_spelling(void **state)
{
    (void)state;
    char dir[2300];
    base_dir(dir, sizeof dir, "resolve");
    mk(dir, "common");
    mk(dir, "common/traits");
    put(dir, "common/traits/00_traits.txt", "brave = {}\n");
    pathgate_resolver *r = open_resolver(dir, NULL, 0, NULL, 0);
    const char *want = "root:repo/common/traits/00_traits.txt";
    /* every spelling of one file is one address: the stored one */
    assert_string_equal(resolved(r, "root:repo/COMMON/Traits/00_TRAITS.TXT", 1, NULL, NULL), want);
    assert_string_equal(resolved(r, "root:repo/common/traits/00_traits.txt", 1, NULL, NULL), want);
    assert_string_equal(resolved(r, "root:repo/COMMON\\Traits\\00_TRAITS.TXT", 1, NULL, NULL),
                        want);
    assert_string_equal(resolved(r, "COMMON\\Traits\\00_TRAITS.TXT", 1, "root:repo", NULL), want);
    assert_string_equal(resolved(r, "Traits/00_Traits.Txt", 1, "root:repo/Common", NULL), want);
    char uri[2400]; /* dir is Z:/... */
    snprintf(uri, sizeof uri, "file:///%s/COMMON/Traits/00_TRAITS.TXT", dir);
    assert_string_equal(resolved(r, uri, 1, NULL, NULL), want);
    /* the two refs of two spellings name one address */
    pathgate_resolution a = PATHGATE_RESOLUTION_INIT, b = PATHGATE_RESOLUTION_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(
        pathgate_resolver_resolve(&a, r, PG_S("root:repo/Common/TRAITS/00_traits.txt"), NULL, &err),
        0);
    assert_int_equal(
        pathgate_resolver_resolve(&b, r, PG_S("root:repo/common/traits/00_TRAITS.txt"), NULL, &err),
        0);
    assert_true(a.ok && b.ok && a.exists && b.exists);
    size_t la, lb;
    const char *aa = pathgate_ref_address(a.ref, &la), *ba = pathgate_ref_address(b.ref, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(aa, ba, la);
    assert_memory_equal(aa, want, la);
    /* and the ref leads back to the file: its host path, and a read by it */
    pathgate_buf hp = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_resolver_host_path(&hp, r, a.ref, &err), 0);
    assert_non_null(hp.ptr);
    assert_non_null(strstr(hp.ptr, "common"));
    assert_null(strstr(hp.ptr, "COMMON"));
    pathgate_buf_dispose(&hp);
    pathgate_buf content = PATHGATE_BUF_INIT;
    assert_int_equal(pathgate_fs_read_bytes(&content, r, aa, la, NULL, &err), 0);
    assert_int_equal(content.len, strlen("brave = {}\n"));
    pathgate_buf_dispose(&content);
    pathgate_resolution_dispose(&a);
    pathgate_resolution_dispose(&b);
    /* the directory itself, and the base */
    assert_string_equal(resolved(r, "root:repo/COMMON/TRAITS", 1, NULL, NULL),
                        "root:repo/common/traits");
    pathgate_resolver_free(r);
}

/* A name nothing stores keeps the spelling it was given; the names before
 * it take theirs. */
static void test_resolve_keeps_a_missing_tail_as_given(void **state)
{
    (void)state;
    char dir[2300];
    base_dir(dir, sizeof dir, "tail");
    mk(dir, "common");
    mk(dir, "common/traits");
    pathgate_resolver *r = open_resolver(dir, NULL, 0, NULL, 0);
    pathgate_reason why;
    assert_string_equal(resolved(r, "root:repo/COMMON/Traits/New_Trait.TXT", 0, NULL, &why),
                        "root:repo/common/traits/New_Trait.TXT");
    assert_string_equal(resolved(r, "root:repo/COMMON/Missing/Deeper/X.txt", 0, NULL, NULL),
                        "root:repo/common/Missing/Deeper/X.txt");
    /* required to exist: not found, under any spelling */
    assert_string_equal(resolved(r, "root:repo/COMMON/Traits/New_Trait.TXT", 1, NULL, &why), "");
    assert_int_equal(why, PATHGATE_REASON_NOT_FOUND);
    /* a write by the resolved address makes the name as given, in the
     * stored directories; from then on resolve answers that spelling */
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_fs_write(NULL, r, PG_S("root:repo/COMMON/Traits/New_Trait.TXT"),
                                       PG_S("n\n"), NULL, &err),
                     0);
    assert_string_equal(names(dir, "common/traits"), "New_Trait.TXT,");
    assert_string_equal(resolved(r, "root:repo/common/TRAITS/new_trait.txt", 1, NULL, NULL),
                        "root:repo/common/traits/New_Trait.TXT");
    pathgate_resolver_free(r);
}

/* The policy judges the stored spelling, as every file operation does:
 * deny rules fold case (any spelling of .env is denied), an exception is
 * exact and re-allows the file whose stored name it writes, whatever case
 * the address came in. Resolve and read agree. */
static void test_resolve_policy_folds_case(void **state)
{
    (void)state;
    char dir[2300];
    base_dir(dir, sizeof dir, "policy");
    put(dir, ".env", "SECRET=1\n");
    put(dir, "public.key", "pub\n");
    put(dir, "private.key", "priv\n");
    static const char *const presets[] = {"secrets"};
    static const char *const deny[] = {"*.key", "!public.key"};
    pathgate_resolver *r = open_resolver(dir, deny, 2, presets, 1);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf content = PATHGATE_BUF_INIT;
    static const char *const hidden[] = {"root:repo/.env", "root:repo/.ENV", "root:repo/.Env",
                                         "root:repo/private.key", "root:repo/PRIVATE.KEY"};
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
        pathgate_reason why;
        assert_string_equal(resolved(r, hidden[i], 1, NULL, &why), "");
        assert_int_equal(why, PATHGATE_REASON_DENIED);
        assert_int_equal(pathgate_fs_read_bytes(&content, r, PG_S(hidden[i]), NULL, &err),
                         PATHGATE_EINVALIDPATH);
    }
    static const char *const allowed[] = {"root:repo/public.key", "root:repo/PUBLIC.KEY",
                                          "root:repo/Public.Key"};
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
        assert_string_equal(resolved(r, allowed[i], 1, NULL, NULL), "root:repo/public.key");
        assert_int_equal(pathgate_fs_read_bytes(&content, r, PG_S(allowed[i]), NULL, &err), 0);
        assert_int_equal(content.len, 4);
        pathgate_buf_dispose(&content);
    }
    pathgate_resolver_free(r);
}

/* ---------------------------------------------------------------- edits */

/* What the hook sees just before the rename that commits an edit: the
 * file still whole with its old content, and beside it one temp file
 * holding the whole new content. */
typedef struct watch {
    const char *dir, *sub, *target, *old_content, *new_content;
    int calls;
} watch;

static int before_rename(pathgate_fs_hook_point point, void *ctx)
{
    watch *w = ctx;
    if (point != PATHGATE_FS_HOOK_BEFORE_RENAME)
        return 0;
    w->calls++;
    char sub[2300], rel[600];
    join(sub, sizeof sub, w->dir, w->sub);
    join(rel, sizeof rel, w->sub, w->target);
    assert_string_equal(get(w->dir, rel), w->old_content);
    /* the listing: the target (stored spelling) and one temp file */
    char pattern[2400];
    join(pattern, sizeof pattern, sub, "*");
    struct _finddata_t fd;
    intptr_t h = _findfirst(pattern, &fd);
    assert_true(h != -1);
    int temps = 0, targets = 0;
    do {
        if (!strcmp(fd.name, ".") || !strcmp(fd.name, ".."))
            continue;
        if (!strcmp(fd.name, w->target)) {
            targets++;
            continue;
        }
        assert_true(strncmp(fd.name, ".pathgate-", 10) == 0);
        temps++;
        assert_string_equal(get(sub, fd.name), w->new_content);
    } while (_findnext(h, &fd) == 0);
    _findclose(h);
    assert_int_equal(targets, 1);
    assert_int_equal(temps, 1);
    return 0;
}

#define OLD "alpha\nbeta\ngamma\n"

/* A base with Dir/Target.TXT (that spelling stored) holding OLD. */
static pathgate_resolver *edit_base(char *dir, size_t cap, const char *name)
{
    base_dir(dir, cap, name);
    mk(dir, "Dir");
    put(dir, "Dir/Target.TXT", OLD);
    return open_resolver(dir, NULL, 0, NULL, 0);
}

/* After an edit: the new content under the stored name, nothing else in
 * the directory (no temp file, no backup). */
static void assert_replaced(const char *dir, const char *want)
{
    assert_string_equal(get(dir, "Dir/Target.TXT"), want);
    assert_string_equal(names(dir, "Dir"), "Target.TXT,");
}

#define ADDR "root:repo/DIR/target.txt" /* another spelling of Dir/Target.TXT */
#define STORED "root:repo/Dir/Target.TXT"

static void watch_init(watch *w, pathgate__fs_test_options *t, const char *dir, const char *want)
{
    w->dir = dir;
    w->sub = "Dir";
    w->target = "Target.TXT";
    w->old_content = OLD;
    w->new_content = want;
    w->calls = 0;
    t->hook = before_rename;
    t->hook_ctx = w;
}

static void test_edit_and_multi_edit(void **state)
{
    (void)state;
    char dir[2300];
    pathgate_resolver *r = edit_base(dir, sizeof dir, "edit");
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    watch w;
    watch_init(&w, &t, dir, "alpha\nBETA\ngamma\n");
    pathgate_fs_edit_op op = {PG_S("beta"), PG_S("BETA"), 0};
    pathgate_buf path = PATHGATE_BUF_INIT;
    size_t n = 0;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_fs_edit(&path, &n, r, PG_S(ADDR), &op, &t.options, &err);
    if (rc != 0)
        fail_msg("edit: %s", err.message);
    assert_int_equal(n, 1);
    assert_string_equal(path.ptr, STORED);
    assert_int_equal(w.calls, 1);
    assert_replaced(dir, "alpha\nBETA\ngamma\n");

    /* multi_edit: every edit, one replacement */
    watch_init(&w, &t, dir, "ALPHA\nBETA\nGAMMA\n");
    w.old_content = "alpha\nBETA\ngamma\n";
    pathgate_fs_edit_op ops[2] = {{PG_S("alpha"), PG_S("ALPHA"), 0},
                                  {PG_S("gamma"), PG_S("GAMMA"), 0}};
    pathgate_buf diff = PATHGATE_BUF_INIT;
    rc = pathgate_fs_edits(&path, &diff, r, PG_S("root:repo/dir/TARGET.txt"), ops, 2, &t.options,
                           &err);
    if (rc != 0)
        fail_msg("multi_edit: %s", err.message);
    assert_string_equal(path.ptr, STORED);
    assert_non_null(strstr(diff.ptr, "+ALPHA"));
    assert_int_equal(w.calls, 1);
    assert_replaced(dir, "ALPHA\nBETA\nGAMMA\n");
    pathgate_buf_dispose(&diff);
    pathgate_buf_dispose(&path);
    pathgate_resolver_free(r);
}

static void test_text_editor(void **state)
{
    (void)state;
    char dir[2300];
    pathgate_resolver *r = edit_base(dir, sizeof dir, "editor");
    pathgate_editor *ed = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_editor_new(&ed, pg_test_alloc(), &err), 0);
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    watch w;
    pathgate_editor_result res = PATHGATE_EDITOR_RESULT_INIT;

    /* str_replace */
    watch_init(&w, &t, dir, "alpha\nbeta two\ngamma\n");
    pathgate_editor_args a = PATHGATE_EDITOR_ARGS_INIT;
    a.tool = PATHGATE_EDITOR_20250124; /* the one with undo_edit */
    a.old_str = "beta";
    a.old_str_len = 4;
    a.new_str = "beta two";
    a.new_str_len = 8;
    assert_int_equal(
        pathgate_editor_run(&res, ed, r, PG_S("str_replace"), PG_S(ADDR), &a, &t.options, &err), 0);
    if (res.code != 0)
        fail_msg("str_replace: %s", res.error.ptr);
    assert_int_equal(w.calls, 1);
    assert_replaced(dir, "alpha\nbeta two\ngamma\n");
    pathgate_editor_result_dispose(&res);

    /* insert after line 1 */
    watch_init(&w, &t, dir, "alpha\ninserted\nbeta two\ngamma\n");
    w.old_content = "alpha\nbeta two\ngamma\n";
    pathgate_editor_args b = PATHGATE_EDITOR_ARGS_INIT;
    b.tool = PATHGATE_EDITOR_20250124;
    b.new_str = "inserted";
    b.new_str_len = 8;
    b.has_insert_line = 1;
    b.insert_line = 1;
    assert_int_equal(pathgate_editor_run(&res, ed, r, PG_S("insert"),
                                         PG_S("root:repo/dir/target.TXT"), &b, &t.options, &err),
                     0);
    if (res.code != 0)
        fail_msg("insert: %s", res.error.ptr);
    assert_int_equal(w.calls, 1);
    assert_replaced(dir, "alpha\ninserted\nbeta two\ngamma\n");
    pathgate_editor_result_dispose(&res);

    /* undo_edit: the version before the insert, by the same kind of rename */
    watch_init(&w, &t, dir, "alpha\nbeta two\ngamma\n");
    w.old_content = "alpha\ninserted\nbeta two\ngamma\n";
    pathgate_editor_args c = PATHGATE_EDITOR_ARGS_INIT;
    c.tool = PATHGATE_EDITOR_20250124;
    assert_int_equal(
        pathgate_editor_run(&res, ed, r, PG_S("undo_edit"), PG_S(STORED), &c, &t.options, &err), 0);
    if (res.code != 0)
        fail_msg("undo_edit: %s", res.error.ptr);
    assert_int_equal(w.calls, 1);
    assert_replaced(dir, "alpha\nbeta two\ngamma\n");
    pathgate_editor_result_dispose(&res);
    pathgate_editor_free(ed);
    pathgate_resolver_free(r);
}

static void test_apply_patch_updates(void **state)
{
    (void)state;
    char dir[2300];
    pathgate_resolver *r = edit_base(dir, sizeof dir, "patch");
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    watch w;
    watch_init(&w, &t, dir, "alpha\nbeta patched\ngamma\n");
    static const char patch[] = "*** Begin Patch\n"
                                "*** Update File: " ADDR "\n"
                                "@@\n"
                                " alpha\n"
                                "-beta\n"
                                "+beta patched\n"
                                " gamma\n"
                                "*** End Patch";
    pathgate_fs_patch_result res = PATHGATE_FS_PATCH_RESULT_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_fs_apply_patch(&res, r, PG_S(patch), &t.options, &err), 0);
    if (res.code != 0)
        fail_msg("apply_patch: %s", res.error.ptr);
    assert_int_equal(res.count, 1);
    assert_int_equal(res.files[0].change, PATHGATE_FS_PATCH_MODIFIED);
    assert_string_equal(res.files[0].path, STORED);
    assert_int_equal(w.calls, 1);
    assert_replaced(dir, "alpha\nbeta patched\ngamma\n");
    pathgate_fs_patch_result_dispose(&res);
    pathgate_resolver_free(r);
}

static void test_write_over_a_file(void **state)
{
    (void)state;
    char dir[2300];
    pathgate_resolver *r = edit_base(dir, sizeof dir, "write");
    pathgate__fs_test_options t = PATHGATE__FS_TEST_OPTIONS_INIT;
    watch w;
    watch_init(&w, &t, dir, "whole\n");
    pathgate_buf path = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_fs_write(&path, r, PG_S(ADDR), PG_S("whole\n"), &t.options, &err), 0);
    assert_string_equal(path.ptr, STORED);
    assert_int_equal(w.calls, 1);
    assert_replaced(dir, "whole\n");
    pathgate_buf_dispose(&path);
    pathgate_resolver_free(r);
}

/* An atomic handle (the Lua module's io handles in "w", "a" and "r+"):
 * the old content until the commit, the temp file beside it until then. */
static void test_atomic_handle_over_a_file(void **state)
{
    (void)state;
    char dir[2300];
    pathgate_resolver *r = edit_base(dir, sizeof dir, "handle");
    static const struct {
        unsigned int flags;
        const char *add, *want;
    } cases[] = {
        {PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_TRUNCATE, "new\n", "new\n"},
        {PATHGATE_FS_OPEN_APPEND, "tail\n", "new\ntail\n"},
        {PATHGATE_FS_OPEN_READ | PATHGATE_FS_OPEN_WRITE, "NEW", "NEW\ntail\n"},
    };
    const char *before = OLD;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pathgate_fs_atomic *a = NULL;
        int fd = -1;
        pathgate_buf path = PATHGATE_BUF_INIT;
        pathgate_error err = PATHGATE_ERROR_INIT;
        int rc = pathgate_fs_atomic_open(&a, &fd, &path, r, PG_S(ADDR), cases[i].flags, NULL, &err);
        if (rc != 0)
            fail_msg("atomic_open #%zu: %s", i, err.message);
        assert_string_equal(path.ptr, STORED);
        assert_int_equal(_write(fd, cases[i].add, (unsigned)strlen(cases[i].add)),
                         (int)strlen(cases[i].add));
        /* until the commit: the old content, and the temp file beside it */
        assert_string_equal(get(dir, "Dir/Target.TXT"), before);
        const char *now = names(dir, "Dir");
        assert_int_equal(strlen(now), strlen(".pathgate-0123456789abcdef.tmp,Target.TXT,"));
        assert_memory_equal(now, ".pathgate-", 10);
        assert_string_equal(now + 26, ".tmp,Target.TXT,");
        rc = pathgate_fs_atomic_commit(a, fd, &err);
        _close(fd);
        if (rc != 0)
            fail_msg("atomic_commit #%zu: %s", i, err.message);
        assert_replaced(dir, cases[i].want);
        before = cases[i].want;
        pathgate_buf_dispose(&path);
    }
    pathgate_resolver_free(r);
}

/* What stays true while another program holds the file (the game reading
 * it): with the POSIX rename of Windows 10 on NTFS the edit replaces it
 * and the reader keeps the old content; where only the classic rename
 * exists (wine 8, FAT, exFAT, network shares) the edit fails with
 * "permission denied" and changes nothing. Either way no temp file is
 * left and no partial content is ever seen. */
static void test_edit_while_another_handle_reads(void **state)
{
    (void)state;
    char dir[2300];
    pathgate_resolver *r = edit_base(dir, sizeof dir, "held");
    char p[2400];
    join(p, sizeof p, dir, "Dir/Target.TXT");
    HANDLE reader =
        CreateFileA(p, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                    OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    assert_true(reader != INVALID_HANDLE_VALUE);
    pathgate_fs_edit_op op = {PG_S("beta"), PG_S("BETA"), 0};
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_fs_edit(NULL, NULL, r, PG_S(ADDR), &op, NULL, &err);
    char buf[64] = {0};
    DWORD got = 0;
    assert_true(ReadFile(reader, buf, sizeof buf - 1, &got, NULL));
    assert_string_equal(buf, OLD); /* the reader's file is the old one, whole */
    if (is_wine()) {
        assert_int_equal(rc, PATHGATE_EACCES);
        assert_replaced(dir, OLD);
    } else {
        assert_int_equal(rc, 0);
        assert_replaced(dir, "alpha\nBETA\ngamma\n");
    }
    CloseHandle(reader);
    /* once it is let go, the edit goes through */
    if (rc != 0) {
        assert_int_equal(pathgate_fs_edit(NULL, NULL, r, PG_S(ADDR), &op, NULL, &err), 0);
        assert_replaced(dir, "alpha\nBETA\ngamma\n");
    }
    pathgate_resolver_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resolve_answers_the_stored_spelling),
        cmocka_unit_test(test_resolve_keeps_a_missing_tail_as_given),
        cmocka_unit_test(test_resolve_policy_folds_case),
        cmocka_unit_test(test_edit_and_multi_edit),
        cmocka_unit_test(test_text_editor),
        cmocka_unit_test(test_apply_patch_updates),
        cmocka_unit_test(test_write_over_a_file),
        cmocka_unit_test(test_atomic_handle_over_a_file),
        cmocka_unit_test(test_edit_while_another_handle_reads),
    };
    return cmocka_run_group_tests_name("windows_fs", tests, setup, NULL);
}
