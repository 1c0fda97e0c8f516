/*
 * test_policy_ops.c - the policy in the operations that came after the
 * first ones (docs/policy.md, "What the operations do"): the handles and
 * the toolkit of fs_toolkit.h, apply_patch and the text editor hold the
 * same rules as read, write and ls. A deny_read path cannot be opened,
 * listed by scandir or walk (counted), copied, linked, symlinked to,
 * readlink'd, lstat'd or found by exists; a deny_write path cannot be
 * opened for writing, chmod'ed, utime'd, removed by remove_tree, or be the
 * destination of copy, link or symlink; a subroot keeps its parent's rules;
 * every path of a patch is judged before anything is written; the editor's
 * commands likewise. Every refusal is an audit event. Run on openat2 and
 * on the fallback walk. The repository is policy_fixture.h's.
 */
#include "policy_fixture.h"

#include "pathgate/editor.h"
#include "pathgate/fs_patch.h"
#include "pathgate/fs_toolkit.h"

/* ------------------------------------------------------------ helpers */

/* 1 on Windows, after a SKIPPED line, when the case `what` goes through one
 * of the fixture's links, which are not made there (policy_fixture.h), or
 * one a test makes; 0 elsewhere. */
#define LINK_CASE(what) link_case(__func__, (what))
static int link_case(const char *test, const char *what)
{
#ifdef _WIN32
    static const char *const links[] = {"innocent", "linkdir",   "hooklink", "gitlink",
                                        "cfglink",  "stashlink", "alias"};
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        if (strstr(what, links[i])) {
            print_message("SKIPPED: %s: %s (Windows: wine shows a link to a file as the file and "
                          "cannot read a directory link's target)\n",
                          test, links[i]);
            return 1;
        }
    }
#else
    (void)test;
    (void)what;
#endif
    return 0;
}

/* The subroot at .git: on Linux through the link gitlink; on Windows (no
 * link there) .git itself, under the link's name. */
#define GIT_ADDR LINUX_OR_WINDOWS("root:repo/gitlink", "root:repo/.git")
#define GIT_NAME LINUX_OR_WINDOWS(NULL, "gitlink")
#define GIT_NAME_LEN LINUX_OR_WINDOWS(0, strlen("gitlink"))

/* rc, checking the one message of a hidden path and of a protected one. */
static int checked(int rc, const pathgate_error *err)
{
    if (rc == PATHGATE_EINVALIDPATH)
        assert_string_equal(err->message, PATHGATE_MSG_INVALID);
    if (rc == PATHGATE_EPOLICY && !strstr(err->message, "Protected by policy"))
        fail_msg("message '%s'", err->message);
    return rc;
}

static int read_(pathgate_resolver *r, const char *a)
{
    pathgate_fs_read_result res = PATHGATE_FS_READ_RESULT_INIT;
    pathgate_error err;
    int rc = pathgate_fs_read(&res, r, PG_S(a), 0, 100, NULL, &err);
    pathgate_fs_read_result_dispose(&res);
    return checked(rc, &err);
}

static int write_(pathgate_resolver *r, const char *a, const char *text)
{
    pathgate_error err;
    return checked(pathgate_fs_write(NULL, r, PG_S(a), PG_S(text), NULL, &err), &err);
}

static int open_(pathgate_resolver *r, const char *a, unsigned int flags)
{
    pathgate_error err;
    int fd = -1;
    int rc = pathgate_fs_open(&fd, NULL, r, PG_S(a), flags, 0, NULL, &err);
    if (rc == 0) {
        assert_true(fd >= 0);
        close(fd);
    } else {
        assert_int_equal(fd, -1);
    }
    return checked(rc, &err);
}

static int atomic_(pathgate_resolver *r, const char *a, const char *text)
{
    pathgate_error err;
    pathgate_fs_atomic *at = NULL;
    int fd = -1;
    int rc = pathgate_fs_atomic_open(
        &at, &fd, NULL, r, PG_S(a),
        PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_CREATE | PATHGATE_FS_OPEN_TRUNCATE, NULL, &err);
    if (rc < 0)
        return checked(rc, &err);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    rc = pathgate_fs_atomic_commit(at, fd, &err);
    close(fd);
    return rc;
}

static int copy_(pathgate_resolver *r, const char *src, const char *dst, unsigned int flags)
{
    pathgate_error err;
    return checked(pathgate_fs_copy(NULL, r, PG_S(src), PG_S(dst), flags, NULL, &err), &err);
}

static int link2_(pathgate_resolver *r, const char *src, const char *dst)
{
    pathgate_error err;
    return checked(pathgate_fs_link(NULL, r, PG_S(src), PG_S(dst), NULL, &err), &err);
}

static int symlink_(pathgate_resolver *r, const char *target, const char *a)
{
    pathgate_error err;
    return checked(pathgate_fs_symlink(NULL, r, PG_S(target), PG_S(a), NULL, &err), &err);
}

static int readlink_(pathgate_resolver *r, const char *a, const char *expected)
{
    pathgate_error err;
    pathgate_buf b = PATHGATE_BUF_INIT;
    int rc = pathgate_fs_readlink(&b, r, PG_S(a), NULL, &err);
    if (rc == 0)
        pg_assert_buf(&b, expected);
    return checked(rc, &err);
}

static int lstat_(pathgate_resolver *r, const char *a)
{
    pathgate_error err;
    pathgate_fs_stat_result st = PATHGATE_FS_STAT_RESULT_INIT;
    int rc = pathgate_fs_lstat(&st, r, PG_S(a), NULL, &err);
    pathgate_fs_stat_result_dispose(&st);
    return checked(rc, &err);
}

static pathgate_fs_type exists_(pathgate_resolver *r, const char *a)
{
    pathgate_error err;
    pathgate_fs_type t = PATHGATE_FS_TYPE_OTHER;
    assert_int_equal(pathgate_fs_exists(&t, r, PG_S(a), NULL, &err), 0);
    return t;
}

static int chmod_(pathgate_resolver *r, const char *a, unsigned int mode)
{
    pathgate_error err;
    return checked(pathgate_fs_chmod(NULL, r, PG_S(a), mode, NULL, &err), &err);
}

static int utime_(pathgate_resolver *r, const char *a)
{
    pathgate_error err;
    pathgate_fs_time t[2] = {{1000000000, 0}, {1000000000, 0}};
    return checked(pathgate_fs_utime(NULL, r, PG_S(a), t, NULL, &err), &err);
}

static int rmtree_(pathgate_resolver *r, const char *a)
{
    pathgate_error err;
    int removed = -1;
    int rc = pathgate_fs_remove_tree(NULL, &removed, r, PG_S(a), NULL, &err);
    if (rc < 0)
        assert_int_equal(removed, 0);
    return checked(rc, &err);
}

static long long mtime_of(const char *dir, const char *rel)
{
    char p[1024];
    long long t = 0;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    assert_int_equal(pg_lstat_times(p, NULL, &t), 0);
    return t;
}

static unsigned int mode_of(const char *dir, const char *rel)
{
    char p[1024];
    unsigned int mode = 0;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    assert_int_equal(pg_lstat_times(p, &mode, NULL), 0);
    return mode;
}

/* The names scandir lists of a (joined with ' '), its skipped_denied. */
static int scandir_(pathgate_resolver *r, const char *a, char *names, size_t cap, size_t *denied)
{
    pathgate_error err;
    pathgate_fs_scandir *d = NULL;
    int rc = pathgate_fs_scandir_open(&d, r, PG_S(a), NULL, &err);
    if (rc < 0) {
        assert_null(d);
        return checked(rc, &err);
    }
    names[0] = '\0';
    const pathgate_fs_dirent *e;
    while ((rc = pathgate_fs_scandir_next(&e, d, &err)) == 1) {
        if (names[0])
            strncat(names, " ", cap - strlen(names) - 1);
        strncat(names, e->name, cap - strlen(names) - 1);
        /* stat of what is listed works, following links too */
        pathgate_fs_stat_result st = PATHGATE_FS_STAT_RESULT_INIT;
        assert_int_equal(pathgate_fs_scandir_stat(&st, d, 0, &err), 0);
        pathgate_fs_stat_result_dispose(&st);
    }
    assert_int_equal(rc, 0);
    *denied = pathgate_fs_scandir_skipped_denied(d);
    assert_int_equal(pathgate_fs_scandir_skipped_denied(NULL), 0);
    pathgate_fs_scandir_free(d);
    return 0;
}

/* Every address a walk of a lists, one per line, into out. */
static int walk_(pathgate_resolver *r, const char *a, unsigned int flags, char *out, size_t cap,
                 size_t *denied)
{
    pathgate_error err;
    pathgate_fs_walk *w = NULL;
    int rc = pathgate_fs_walk_open(&w, r, PG_S(a), flags, NULL, &err);
    if (rc < 0) {
        assert_null(w);
        return checked(rc, &err);
    }
    out[0] = '\0';
    const pathgate_fs_walk_dir *d;
    while ((rc = pathgate_fs_walk_next(&d, w, &err)) == 1) {
        for (size_t i = 0; i < d->ndirs + d->nfiles; i++) {
            const char *n = i < d->ndirs ? d->dirs[i] : d->files[i - d->ndirs];
            size_t used = strlen(out);
            snprintf(out + used, cap - used, "%s/%s\n", d->path, n);
        }
    }
    assert_int_equal(rc, 0);
    *denied = pathgate_fs_walk_skipped_denied(w);
    assert_int_equal(pathgate_fs_walk_skipped_denied(NULL), 0);
    pathgate_fs_walk_free(w);
    return 0;
}

/* The "denied" event of op on address as the operand `role`, or NULL. */
static const event *find_role(const fixture *f, const char *op, const char *address,
                              const char *role)
{
    for (size_t i = 0; i < f->j.n; i++) {
        const event *x = &f->j.ev[i];
        if (same(x->operation, op) && same(x->address, address) && same(x->outcome, "denied") &&
            same(x->role, role))
            return x;
    }
    return NULL;
}

static void expect_event(const fixture *f, const char *op, const char *address, const char *reason)
{
    const event *e = find(&f->j, op, address, "denied", reason);
    if (!e)
        fail_msg("no denied event of %s on %s (%s)", op, address, reason);
}

/* ------------------------------------------------- deny_read: hidden */

static void test_toolkit_hides(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    const char *hidden[] = {"root:repo/.env",
                            "root:repo/app/.env",
                            "root:repo/innocent",
                            "root:repo/linkdir/key.txt",
                            "root:repo/secrets/key.txt",
                            "mod:M/private.txt"};
    for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++) {
        const char *a = hidden[i];
        if (LINK_CASE(a))
            continue;
        assert_int_equal(open_(r, a, PATHGATE_FS_OPEN_READ), PATHGATE_EINVALIDPATH);
        assert_int_equal(open_(r, a, PATHGATE_FS_OPEN_WRITE), PATHGATE_EINVALIDPATH);
        assert_int_equal(atomic_(r, a, "x"), PATHGATE_EINVALIDPATH);
        assert_int_equal(exists_(r, a), 0);
        assert_int_equal(lstat_(r, a), PATHGATE_EINVALIDPATH);
        assert_int_equal(readlink_(r, a, NULL), PATHGATE_EINVALIDPATH);
        assert_int_equal(chmod_(r, a, 0600), PATHGATE_EINVALIDPATH);
        assert_int_equal(utime_(r, a), PATHGATE_EINVALIDPATH);
        if (rmtree_(r, a) != PATHGATE_EINVALIDPATH)
            fail_msg("remove_tree %s", a);
        /* not copied, linked or symlinked elsewhere, nor made by them */
        assert_int_equal(copy_(r, a, "root:repo/stolen.txt", 0), PATHGATE_EINVALIDPATH);
        assert_int_equal(link2_(r, a, "root:repo/stolen.txt"), PATHGATE_EINVALIDPATH);
        assert_int_equal(copy_(r, "root:repo/notes.txt", a, PATHGATE_FS_COPY_REPLACE),
                         PATHGATE_EINVALIDPATH);
        assert_int_equal(symlink_(r, "notes.txt", a), PATHGATE_EINVALIDPATH);
        assert_false(exists(f->repo, "stolen.txt"));
    }
    pathgate_resolver *sub = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_fs_subroot(&sub, r, PG_S("root:repo/secrets"), NULL, 0, NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_null(sub);
    /* new names where a rule hides them */
    assert_int_equal(
        open_(r, "root:repo/new/.env", PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_CREATE),
        PATHGATE_EINVALIDPATH);
    assert_int_equal(atomic_(r, "root:repo/app/.env", "x"), PATHGATE_EINVALIDPATH);
    assert_int_equal(copy_(r, "root:repo/notes.txt", "root:repo/secrets/n.txt", 0),
                     PATHGATE_EINVALIDPATH);
    if (!LINK_CASE("root:repo/linkdir/n.txt"))
        assert_int_equal(link2_(r, "root:repo/notes.txt", "root:repo/linkdir/n.txt"),
                         PATHGATE_EINVALIDPATH);
    assert_false(exists(f->repo, "new"));
    assert_false(exists(f->repo, "secrets/n.txt"));
    /* no symlink to what is hidden, by any way of writing its target */
    const char *targets[] = {".env",    "app/.env",        "./app/../.env", "secrets/key.txt",
                             "secrets", "linkdir/key.txt", "innocent",      ".ENV"};
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        if (LINK_CASE(targets[i]))
            continue;
        assert_int_equal(symlink_(r, targets[i], "root:repo/peek"), PATHGATE_EINVALIDPATH);
        assert_false(exists(f->repo, "peek"));
    }
    assert_int_equal(symlink_(r, "../.env", "root:repo/app/peek"), PATHGATE_EINVALIDPATH);
    assert_int_equal(symlink_(r, "private.txt", "mod:M/peek"), PATHGATE_EINVALIDPATH);
    assert_false(exists(f->repo, "app/peek"));
    assert_false(exists(f->repo, "vendor/mod/peek"));
    /* a directory holding a hidden file is not removed */
    assert_int_equal(rmtree_(r, "root:repo/app"), PATHGATE_EPOLICY);
    assert_int_equal(rmtree_(r, "root:repo/vendor"), PATHGATE_EPOLICY);
    assert_true(exists(f->repo, "app/.env"));
    assert_true(exists(f->repo, "vendor/mod/inner.txt"));
    /* the secrets are as they were */
    assert_string_equal(slurp(f->repo, ".env"), "SECRET=1\n");
    assert_string_equal(slurp(f->repo, "secrets/key.txt"), "KEY=1\n");
    assert_int_equal(mode_of(f->repo, ".env") & 0777, mode_of(f->repo, "notes.txt") & 0777);

    /* what is not hidden works as always */
    assert_int_equal(open_(r, "root:repo/app/main.txt", PATHGATE_FS_OPEN_READ), 0);
    assert_int_equal(open_(r, "root:repo/app/.env.example", PATHGATE_FS_OPEN_READ), 0);
    assert_int_equal(exists_(r, "root:repo/app/main.txt"), PATHGATE_FS_TYPE_FILE);
    assert_int_equal(copy_(r, "root:repo/app/main.txt", "root:repo/copy.txt", 0), 0);
    assert_int_equal(link2_(r, "root:repo/notes.txt", "root:repo/notes2.txt"), 0);
#ifdef _WIN32 /* pathgate makes no links on Windows */
    assert_int_equal(symlink_(r, "notes.txt", "root:repo/ok"), PATHGATE_EUNSUPPORTED);
    assert_false(exists(f->repo, "ok"));
#else
    assert_int_equal(symlink_(r, "notes.txt", "root:repo/ok"), 0);
    assert_int_equal(symlink_(r, ".env.example", "root:repo/app/ok"), 0);
    assert_int_equal(readlink_(r, "root:repo/ok", "notes.txt"), 0);
    assert_int_equal(readlink_(r, "root:repo/hooklink", ".git/hooks"), 0); /* only protected */
    assert_int_equal(lstat_(r, "root:repo/ok"), 0);
#endif
    assert_int_equal(rmtree_(r, "root:repo/app/sub"), 0);
    assert_false(exists(f->repo, "app/sub"));

    /* every refusal is an event, naming the rule */
    const char *ops[] = {"open",     "atomic_open", "exists", "lstat",
                         "readlink", "chmod",       "utime",  "remove_tree"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        expect_event(f, ops[i], "root:repo/.env", "deny_read");
    const event *e = find_role(f, "copy", "root:repo/.env", "source");
    assert_non_null(e);
    assert_string_equal(e->reason, "deny_read");
    assert_string_equal(e->rule, "**/.env");
    assert_non_null(find_role(f, "copy", "root:repo/secrets/n.txt", "destination"));
    assert_non_null(find_role(f, "copy", "root:repo/.env", "destination"));
    assert_non_null(find_role(f, "link", "root:repo/.env", "source"));
    if (!LINK_CASE("root:repo/linkdir/n.txt"))
        assert_non_null(find_role(f, "link", "root:repo/linkdir/n.txt", "destination"));
    e = find_role(f, "symlink", "root:repo/.env", "target");
    assert_non_null(e);
    assert_string_equal(e->reason, "deny_read");
    assert_string_equal(e->rule, "**/.env");
    e = find_role(f, "symlink", "root:repo/secrets/key.txt", "target");
    assert_non_null(e);
    assert_string_equal(e->rule, "secrets/");
    assert_non_null(find_role(f, "symlink", "mod:M/private.txt", "target"));
    expect_event(f, "subroot", "root:repo/secrets", "deny_read");
    expect_event(f, "remove_tree", "root:repo/app", "deny_read");
    assert_non_null(find(&f->j, "copy", "root:repo/copy.txt", "allowed", NULL));
    pathgate_resolver_free(r);
}

static void test_listings_hide(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    char names[4096];
    size_t denied = 99;
    /* scandir: names, and links to what is hidden, left out and counted */
    assert_int_equal(scandir_(r, "root:repo", names, sizeof names, &denied), 0);
    /* (on Windows the fixture has no links: .env and secrets are denied) */
    assert_string_equal(
        names, LINUX_OR_WINDOWS(".git .gitmodules app cfglink gitlink hooklink notes.txt vendor",
                                ".git .gitmodules app notes.txt vendor"));
    assert_int_equal(denied, LINUX_OR_WINDOWS(4, 2)); /* .env, innocent, linkdir, secrets */
    assert_int_equal(scandir_(r, "root:repo/app", names, sizeof names, &denied), 0);
    assert_string_equal(names, ".env.example main.txt sub");
    assert_int_equal(denied, 1);
    assert_int_equal(scandir_(r, "root:repo/vendor/mod", names, sizeof names, &denied), 0);
    assert_string_equal(names, "");
    assert_int_equal(denied, 2); /* by the root's rule and by the mod's */
    assert_int_equal(scandir_(r, "mod:M", names, sizeof names, &denied), 0);
    assert_string_equal(names, "");
    assert_int_equal(denied, 2);
    assert_int_equal(scandir_(r, "root:repo/secrets", names, sizeof names, &denied),
                     PATHGATE_EINVALIDPATH);
    if (!LINK_CASE("root:repo/linkdir"))
        assert_int_equal(scandir_(r, "root:repo/linkdir", names, sizeof names, &denied),
                         PATHGATE_EINVALIDPATH);
    /* a directory reached through a link: judged where it really is */
    pathgate_resolver *r2 = NULL;
    if (!LINK_CASE("root:repo/stashlink")) {
        put(f->repo, "stash/key.pem", "k\n");
        put(f->repo, "stash/ok.txt", "ok\n");
        link_(f->repo, "stashlink", "stash");
        static const char *const dr[] = {"root:repo/stash/key.pem"};
        r2 = make_with(f, dr, 1, NULL, 0, NULL, 0);
        assert_int_equal(scandir_(r2, "root:repo/stashlink", names, sizeof names, &denied), 0);
        assert_string_equal(names, "ok.txt");
        assert_int_equal(denied, 1);
    }

    /* walk: the same, top down and bottom up; a hidden directory is not
     * entered */
    char out[8192];
    for (unsigned flags = 0; flags <= PATHGATE_FS_WALK_BOTTOM_UP; flags++) {
        assert_int_equal(walk_(r, "root:repo", flags, out, sizeof out, &denied), 0);
        assert_null(strstr(out, ".env\n"));
        assert_null(strstr(out, "secrets"));
        assert_null(strstr(out, "innocent"));
        assert_null(strstr(out, "linkdir"));
        assert_null(strstr(out, "private.txt"));
        assert_null(strstr(out, "inner.txt"));
        assert_non_null(strstr(out, "root:repo/app/.env.example\n"));
        assert_non_null(strstr(out, "root:repo/app/sub/deep.txt\n"));
        assert_non_null(strstr(out, "root:repo/.git/hooks/pre-commit\n")); /* only protected */
        /* .env innocent linkdir secrets app/.env private inner */
        assert_int_equal(denied, LINUX_OR_WINDOWS(7, 5));
    }
    if (r2) {
        assert_int_equal(walk_(r2, "root:repo/stashlink", 0, out, sizeof out, &denied), 0);
        assert_string_equal(out, "root:repo/stashlink/ok.txt\n");
        assert_int_equal(denied, 1);
    }
    assert_int_equal(walk_(r, "root:repo/secrets", 0, out, sizeof out, &denied),
                     PATHGATE_EINVALIDPATH);

    /* one "hidden" event per listing, with the count */
    const event *e = find(&f->j, "scandir", "root:repo", "hidden", "deny_read");
    assert_non_null(e);
    assert_int_equal(e->count, LINUX_OR_WINDOWS(4, 2));
    e = find(&f->j, "walk", "root:repo", "hidden", "deny_read");
    assert_non_null(e);
    assert_int_equal(e->count, LINUX_OR_WINDOWS(7, 5));
    expect_event(f, "scandir", "root:repo/secrets", "deny_read");
    expect_event(f, "walk", "root:repo/secrets", "deny_read");
    assert_non_null(find(&f->j, "walk", "root:repo", "allowed", NULL));
    pathgate_resolver_free(r2);
    pathgate_resolver_free(r);
}

/* --------------------------------------------- deny_write: protected */

static void test_toolkit_protects(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    unsigned int w = PATHGATE_FS_OPEN_WRITE, rw = PATHGATE_FS_OPEN_READ | PATHGATE_FS_OPEN_WRITE;
    /* readable, never changed: by name, through a link to the directory,
     * through a link to the file (followed where it really is) */
    const char *guarded[] = {
        "root:repo/.git/hooks/pre-commit", "root:repo/.git/config", "root:repo/hooklink/pre-commit",
        "root:repo/gitlink/config",        "root:repo/cfglink",     "root:repo/.gitmodules"};
    long long before = mtime_of(f->repo, ".git/hooks/pre-commit");
    for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++) {
        const char *a = guarded[i];
        if (LINK_CASE(a))
            continue;
        assert_int_equal(open_(r, a, PATHGATE_FS_OPEN_READ), 0);
        assert_int_equal(exists_(r, a), PATHGATE_FS_TYPE_FILE);
        assert_int_equal(open_(r, a, w), PATHGATE_EPOLICY);
        assert_int_equal(open_(r, a, rw | PATHGATE_FS_OPEN_TRUNCATE), PATHGATE_EPOLICY);
        assert_int_equal(open_(r, a, PATHGATE_FS_OPEN_APPEND), PATHGATE_EPOLICY);
        assert_int_equal(atomic_(r, a, "evil"), PATHGATE_EPOLICY);
        assert_int_equal(chmod_(r, a, 0777), PATHGATE_EPOLICY);
        assert_int_equal(utime_(r, a), PATHGATE_EPOLICY);
        assert_int_equal(copy_(r, "root:repo/notes.txt", a, PATHGATE_FS_COPY_REPLACE),
                         PATHGATE_EPOLICY);
    }
    /* new names below a protected directory, by any operation */
    const char *fresh[] = {"root:repo/.git/hooks/post-merge", "root:repo/hooklink/post-merge",
                           "root:repo/sub/.git/config"};
    for (size_t i = 0; i < sizeof fresh / sizeof *fresh; i++) {
        const char *a = fresh[i];
        if (LINK_CASE(a))
            continue;
        assert_int_equal(open_(r, a, w | PATHGATE_FS_OPEN_CREATE), PATHGATE_EPOLICY);
        assert_int_equal(open_(r, a, w | PATHGATE_FS_OPEN_CREATE | PATHGATE_FS_OPEN_EXCL),
                         PATHGATE_EPOLICY);
        assert_int_equal(atomic_(r, a, "evil"), PATHGATE_EPOLICY);
        assert_int_equal(copy_(r, "root:repo/notes.txt", a, 0), PATHGATE_EPOLICY);
        assert_int_equal(link2_(r, "root:repo/notes.txt", a), PATHGATE_EPOLICY);
        assert_int_equal(symlink_(r, "../../notes.txt", a), PATHGATE_EPOLICY);
    }
    assert_false(exists(f->repo, ".git/hooks/post-merge"));
    assert_false(exists(f->repo, "sub"));
    /* a second name for a protected file would be a way to change it */
    assert_int_equal(link2_(r, "root:repo/.git/hooks/pre-commit", "root:repo/hardhook"),
                     PATHGATE_EPOLICY);
    if (!LINK_CASE("root:repo/hooklink/pre-commit"))
        assert_int_equal(link2_(r, "root:repo/hooklink/pre-commit", "root:repo/hardhook"),
                         PATHGATE_EPOLICY);
    assert_false(exists(f->repo, "hardhook"));
    /* not removed, nor what holds it */
    assert_int_equal(rmtree_(r, "root:repo/.git/hooks/pre-commit"), PATHGATE_EPOLICY);
    assert_int_equal(rmtree_(r, "root:repo/.git/hooks"), PATHGATE_EPOLICY);
    assert_int_equal(rmtree_(r, "root:repo/.git"), PATHGATE_EPOLICY);
    if (!LINK_CASE("root:repo/hooklink/pre-commit"))
        assert_int_equal(rmtree_(r, "root:repo/hooklink/pre-commit"), PATHGATE_EPOLICY);
    assert_string_equal(slurp(f->repo, ".git/hooks/pre-commit"), "#!/bin/sh\n");
    assert_string_equal(slurp(f->repo, ".git/config"), "[core]\n");
    assert_int_equal(mtime_of(f->repo, ".git/hooks/pre-commit"), before);
    assert_int_equal(mode_of(f->repo, ".git/config") & 0777, mode_of(f->repo, "notes.txt") & 0777);
    /* reading a protected file is fine: a copy of it is a new file */
    assert_int_equal(copy_(r, "root:repo/.git/hooks/pre-commit", "root:repo/hook-copy", 0), 0);
    assert_string_equal(slurp(f->repo, "hook-copy"), "#!/bin/sh\n");
    /* a link to a protected file may be made; writing through it may not */
#ifdef _WIN32 /* pathgate makes no links on Windows */
    assert_int_equal(symlink_(r, ".git/hooks/pre-commit", "root:repo/h3"), PATHGATE_EUNSUPPORTED);
    assert_false(exists(f->repo, "h3"));
#else
    assert_int_equal(symlink_(r, ".git/hooks/pre-commit", "root:repo/h3"), 0);
    assert_int_equal(open_(r, "root:repo/h3", w), PATHGATE_EPOLICY);
    assert_int_equal(chmod_(r, "root:repo/h3", 0777), PATHGATE_EPOLICY);
    assert_int_equal(rmtree_(r, "root:repo/h3"), 0); /* the link itself goes */
#endif
    assert_true(exists(f->repo, ".git/hooks/pre-commit"));
    /* the rest of .git changes as usual */
    assert_int_equal(open_(r, "root:repo/.git/index", w | PATHGATE_FS_OPEN_TRUNCATE), 0);
    if (!LINK_CASE("root:repo/gitlink/objects/ab/ef"))
        assert_int_equal(atomic_(r, "root:repo/gitlink/objects/ab/ef", "blob"), 0);
    assert_int_equal(chmod_(r, "root:repo/.git/index", 0600), 0);
    assert_int_equal(utime_(r, "root:repo/.git/HEAD"), PATHGATE_EPOLICY); /* a pointer */
    assert_int_equal(utime_(r, "root:repo/.git/index"), 0);
    assert_int_equal(copy_(r, "root:repo/notes.txt", "root:repo/.git/description", 0), 0);
    assert_int_equal(rmtree_(r, "root:repo/.git/objects"), 0);

    const char *ops[] = {"open", "atomic_open", "chmod", "utime", "remove_tree"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        expect_event(f, ops[i], "root:repo/.git/hooks/pre-commit", "deny_write");
    if (!LINK_CASE("root:repo/cfglink"))
        expect_event(f, "open", "root:repo/cfglink", "deny_write"); /* by where it leads */
    const event *e = find_role(f, "copy", "root:repo/.git/config", "destination");
    assert_non_null(e);
    assert_string_equal(e->reason, "deny_write");
    assert_string_equal(e->source, "preset:vcs");
    e = find_role(f, "link", "root:repo/.git/hooks/pre-commit", "source");
    assert_non_null(e);
    assert_string_equal(e->reason, "deny_write");
    assert_non_null(find_role(f, "link", "root:repo/.git/hooks/post-merge", "destination"));
    expect_event(f, "symlink", "root:repo/.git/hooks/post-merge", "deny_write");
    expect_event(f, "remove_tree", "root:repo/.git", "deny_write");
    assert_non_null(find(&f->j, "chmod", "root:repo/.git/index", "allowed", NULL));
    pathgate_resolver_free(r);
}

/* ------------------------------------------------------------ subroot */

static void test_subroot_keeps_the_rules(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    pathgate_error err;
    pathgate_resolver *app = NULL, *git = NULL, *vendor = NULL, *hooks = NULL;
    assert_int_equal(pathgate_fs_subroot(&app, r, PG_S("root:repo/app"), NULL, 0, NULL, &err), 0);
    assert_int_equal(pathgate_fs_subroot(&git, r, PG_S(GIT_ADDR), PG_S("git"), NULL, &err), 0);
    assert_int_equal(pathgate_fs_subroot(&vendor, r, PG_S("root:repo/vendor"), NULL, 0, NULL, &err),
                     0);
    assert_int_equal(pathgate_fs_subroot(&hooks, app, PG_S("root:app/sub"), NULL, 0, NULL, &err),
                     0);
    /* the parent may go first: the rules (and the audit callback) stay */
    pathgate_resolver_free(r);
    size_t before = f->j.n; /* events keep coming to the parent's journal */

    assert_int_equal(read_(app, "root:app/.env"), PATHGATE_EINVALIDPATH);
    assert_int_equal(open_(app, "root:app/.env", PATHGATE_FS_OPEN_READ), PATHGATE_EINVALIDPATH);
    assert_int_equal(write_(app, "root:app/.env", "x"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(app, "root:app/main.txt"), 0);
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    assert_int_equal(pathgate_fs_ls(&l, app, PG_S("root:app"), NULL, &err), 0);
    assert_int_equal(l.skipped_denied, 1);
    pathgate_fs_list_dispose(&l);
    /* rules anchored in the parent's base, and the mod's, by where the
     * subroot lies there */
    assert_int_equal(read_(vendor, "root:vendor/mod/private.txt"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(vendor, "root:vendor/mod/inner.txt"), PATHGATE_EINVALIDPATH);
    assert_int_equal(symlink_(vendor, "mod/private.txt", "root:vendor/peek"),
                     PATHGATE_EINVALIDPATH);
    /* the vcs preset: hooks/ of a subroot at .git is .git/hooks/ */
    assert_int_equal(write_(git, "root:git/hooks/pre-commit", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(open_(git, "root:git/config", PATHGATE_FS_OPEN_WRITE), PATHGATE_EPOLICY);
    assert_int_equal(chmod_(git, "root:git/hooks/pre-commit", 0777), PATHGATE_EPOLICY);
    assert_int_equal(write_(git, "root:git/index", "idx"), 0);
    assert_int_equal(write_(hooks, "root:sub/.env", "x"), PATHGATE_EINVALIDPATH); /* nested */
    assert_string_equal(slurp(f->repo, ".git/hooks/pre-commit"), "#!/bin/sh\n");
    pathgate_policy_verdict v;
    assert_int_equal(pathgate_resolver_policy_check(&v, git, PG_S("root:git/hooks/x"), &err), 0);
    assert_int_equal(v.denied, PATHGATE_POLICY_DENY_WRITE);
    assert_string_equal(v.rule, "**/.git/hooks/");
    assert_string_equal(v.source, "preset:vcs");
    /* commands apply it, as under the parent */
    assert_non_null(pathgate__policy_of(git));
    /* its own restrict adds to what it inherited */
    pathgate_policy_options po = PATHGATE_POLICY_OPTIONS_INIT;
    const char *more[] = {"main.txt"};
    po.deny_read = more;
    po.ndeny_read = 1;
    assert_int_equal(pathgate_resolver_restrict(app, &po, &err), 0);
    assert_int_equal(read_(app, "root:app/main.txt"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(app, "root:app/.env"), PATHGATE_EINVALIDPATH);

    /* its events go to the parent's callback, with its own addresses */
    const event *e = find(&f->j, "write", "root:git/hooks/pre-commit", "denied", "deny_write");
    assert_non_null(e);
    assert_string_equal(e->door, "c");
    char host[1100];
    snprintf(host, sizeof host, "%s/.git/hooks/pre-commit", f->repo);
    /* in the host's spelling: `\` throughout on Windows */
    for (char *c = host; LINUX_OR_WINDOWS(0, 1) && *c; c++)
        if (*c == '/')
            *c = '\\';
    assert_string_equal(e->host_path, host);
    assert_non_null(find(&f->j, "read", "root:vendor/mod/inner.txt", "denied", "deny_read"));
    assert_true(f->j.n > before);
    pathgate_resolver_free(hooks);
    pathgate_resolver_free(app);
    pathgate_resolver_free(vendor);
    pathgate_resolver_free(git);

    /* a resolver without a policy makes subroots without one */
    pathgate_resolver *plain = make_with(f, NULL, 0, NULL, 0, NULL, 0);
    assert_int_equal(pathgate_fs_subroot(&app, plain, PG_S("root:repo/app"), NULL, 0, NULL, &err),
                     0);
    assert_null(pathgate__policy_of(app));
    assert_int_equal(read_(app, "root:app/.env"), 0);
    pathgate_resolver_free(app);
    pathgate_resolver_free(plain);
}

/* --------------------------------------------------------- apply_patch */

static int patch_(pathgate_resolver *r, const char *patch, char *error, size_t cap)
{
    pathgate_fs_patch_result res = PATHGATE_FS_PATCH_RESULT_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_fs_apply_patch(&res, r, PG_S(patch), NULL, &err), 0);
    int code = res.code;
    snprintf(error, cap, "%s", res.error.ptr ? res.error.ptr : "");
    if (code == 0)
        assert_null(res.error.ptr);
    pathgate_fs_patch_result_dispose(&res);
    return code;
}

static void test_patch_judges_every_path_first(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    char error[1024];
    /* a hidden path anywhere in it: the whole patch fails as not found,
     * and nothing is written, not even the hunks before it */
    const char *hidden[] = {
        "*** Begin Patch\n*** Add File: root:repo/new.txt\n+new\n"
        "*** Update File: root:repo/.env\n@@\n-SECRET=1\n+SECRET=2\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: root:repo/new.txt\n+new\n"
        "*** Add File: root:repo/app/.env\n+X=1\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: root:repo/notes.txt\n"
        "*** Move to: root:repo/secrets/notes.txt\n@@\n-notes\n+notes2\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: root:repo/linkdir/key.txt\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: root:repo/innocent\n@@\n-SECRET=1\n+S\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: mod:M/private.txt\n+x\n*** End Patch\n",
    };
    for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++) {
        if (LINK_CASE(hidden[i]))
            continue;
        assert_int_equal(patch_(r, hidden[i], error, sizeof error), PATHGATE_EINVALIDPATH);
        assert_string_equal(error, PATHGATE_MSG_INVALID);
        assert_false(exists(f->repo, "new.txt"));
    }
    /* a protected one: the policy's error, nothing written */
    const char *guarded[] = {
        "*** Begin Patch\n*** Add File: root:repo/new.txt\n+new\n"
        "*** Update File: root:repo/.git/hooks/pre-commit\n@@\n-#!/bin/sh\n+evil\n"
        "*** End Patch\n",
        "*** Begin Patch\n*** Delete File: root:repo/.git/config\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: root:repo/hooklink/post-merge\n+evil\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: root:repo/notes.txt\n"
        "*** Move to: root:repo/.git/hooks/pre-push\n@@\n-notes\n+evil\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: root:repo/cfglink\n@@\n-[core]\n+[evil]\n"
        "*** End Patch\n",
    };
    for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++) {
        if (LINK_CASE(guarded[i]))
            continue;
        assert_int_equal(patch_(r, guarded[i], error, sizeof error), PATHGATE_EPOLICY);
        if (!strstr(error, "Protected by policy"))
            fail_msg("patch %zu: '%s'", i, error);
        assert_false(exists(f->repo, "new.txt"));
    }
    assert_string_equal(slurp(f->repo, ".git/hooks/pre-commit"), "#!/bin/sh\n");
    assert_string_equal(slurp(f->repo, ".git/config"), "[core]\n");
    assert_string_equal(slurp(f->repo, ".env"), "SECRET=1\n");
    assert_string_equal(slurp(f->repo, "notes.txt"), "notes\n");
    assert_false(exists(f->repo, ".git/hooks/post-merge"));
    assert_false(exists(f->repo, ".git/hooks/pre-push"));
    /* a patch of allowed paths applies, .git's other files included */
    assert_int_equal(patch_(r,
                            "*** Begin Patch\n*** Update File: root:repo/notes.txt\n@@\n-notes\n"
                            "+notes2\n*** Add File: root:repo/.git/description\n+d\n"
                            "*** End Patch\n",
                            error, sizeof error),
                     0);
    assert_string_equal(slurp(f->repo, "notes.txt"), "notes2\n");

    expect_event(f, "apply_patch", "root:repo/.env", "deny_read");
    expect_event(f, "apply_patch", "root:repo/secrets/notes.txt", "deny_read");
    expect_event(f, "apply_patch", "root:repo/.git/hooks/pre-commit", "deny_write");
    expect_event(f, "apply_patch", "root:repo/.git/config", "deny_write");
    if (!LINK_CASE("root:repo/cfglink"))
        expect_event(f, "apply_patch", "root:repo/cfglink", "deny_write"); /* where it leads */
    assert_non_null(find(&f->j, "apply_patch", "root:repo/notes.txt", "allowed", NULL));
    pathgate_resolver_free(r);
}

/* ---------------------------------------------------------- the editor */

static int editor_(pathgate_editor *ed, pathgate_resolver *r, const char *command, const char *path,
                   const pathgate_editor_args *args, char *text, size_t cap)
{
    pathgate_editor_result res = PATHGATE_EDITOR_RESULT_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_editor_run(&res, ed, r, PG_S(command), PG_S(path), args, NULL, &err),
                     0);
    int code = res.code;
    const pathgate_buf *b = code ? &res.error : &res.output;
    snprintf(text, cap, "%s", b->ptr ? b->ptr : "");
    pathgate_editor_result_dispose(&res);
    return code;
}

static void test_editor_commands(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    pathgate_editor *ed = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_editor_new(&ed, pg_test_alloc(), &err), 0);
    char text[8192];
    pathgate_editor_args a = PATHGATE_EDITOR_ARGS_INIT;
    a.tool = PATHGATE_EDITOR_20250124; /* with undo_edit */
    pathgate_editor_args create = a;
    create.file_text = "x\n";
    create.file_text_len = 2;
    pathgate_editor_args replace = a;
    replace.old_str = "#!/bin/sh";
    replace.old_str_len = strlen(replace.old_str);
    replace.new_str = "evil";
    replace.new_str_len = 4;
    pathgate_editor_args insert = a;
    insert.new_str = "evil";
    insert.new_str_len = 4;
    insert.has_insert_line = 1;
    insert.insert_line = 0;

    /* hidden: every command answers not found */
    const char *hidden[] = {"root:repo/.env", "root:repo/innocent", "root:repo/secrets",
                            "root:repo/linkdir/key.txt"};
    for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++) {
        const char *p = hidden[i];
        if (LINK_CASE(p))
            continue;
        assert_int_equal(editor_(ed, r, "view", p, &a, text, sizeof text), PATHGATE_EINVALIDPATH);
        assert_string_equal(text, PATHGATE_MSG_INVALID);
        assert_int_equal(editor_(ed, r, "str_replace", p, &replace, text, sizeof text),
                         PATHGATE_EINVALIDPATH);
        assert_int_equal(editor_(ed, r, "insert", p, &insert, text, sizeof text),
                         PATHGATE_EINVALIDPATH);
        assert_int_equal(editor_(ed, r, "undo_edit", p, &a, text, sizeof text),
                         PATHGATE_EINVALIDPATH);
    }
    assert_int_equal(editor_(ed, r, "create", "root:repo/app/new/.env", &create, text, sizeof text),
                     PATHGATE_EINVALIDPATH);
    assert_false(exists(f->repo, "app/new"));
    /* a directory's view leaves out what is hidden */
    put(f->repo, "app/secrets/x.txt", "x\n");
    put(f->repo, "app/peek.txt", "p\n");
    int alias = !LINK_CASE("root:repo/app/alias");
    if (alias)
        link_(f->repo, "app/alias", "../.env");
    assert_int_equal(editor_(ed, r, "view", "root:repo/app", &a, text, sizeof text), 0);
    assert_non_null(strstr(text, "root:repo/app/main.txt\n"));
    assert_non_null(strstr(text, "root:repo/app/peek.txt\n"));
    assert_null(strstr(text, "secrets"));
    assert_null(strstr(text, "alias"));
    const event *e = find(&f->j, "editor_view", "root:repo/app", "hidden", "deny_read");
    assert_non_null(e);
    assert_int_equal(e->count, alias ? 2 : 1);

    /* protected: readable, every change refused before anything is read */
    assert_int_equal(
        editor_(ed, r, "view", "root:repo/.git/hooks/pre-commit", &a, text, sizeof text), 0);
    const char *guarded[] = {"root:repo/.git/hooks/pre-commit", "root:repo/hooklink/pre-commit",
                             "root:repo/cfglink"};
    for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++) {
        const char *p = guarded[i];
        if (LINK_CASE(p))
            continue;
        assert_int_equal(editor_(ed, r, "str_replace", p, &replace, text, sizeof text),
                         PATHGATE_EPOLICY);
        assert_non_null(strstr(text, "Protected by policy"));
        assert_int_equal(editor_(ed, r, "insert", p, &insert, text, sizeof text), PATHGATE_EPOLICY);
    }
    assert_int_equal(
        editor_(ed, r, "create", "root:repo/.git/hooks/post-merge", &create, text, sizeof text),
        PATHGATE_EPOLICY);
    assert_false(exists(f->repo, ".git/hooks/post-merge"));
    assert_string_equal(slurp(f->repo, ".git/hooks/pre-commit"), "#!/bin/sh\n");
    assert_string_equal(slurp(f->repo, ".git/config"), "[core]\n");
    /* undo of an edit to a file protected since */
    pathgate_editor_args r2 = a;
    r2.old_str = "notes";
    r2.old_str_len = 5;
    r2.new_str = "NOTES";
    r2.new_str_len = 5;
    assert_int_equal(editor_(ed, r, "str_replace", "root:repo/notes.txt", &r2, text, sizeof text),
                     0);
    pathgate_policy_options po = PATHGATE_POLICY_OPTIONS_INIT;
    const char *dw[] = {"notes.txt"};
    po.deny_write = dw;
    po.ndeny_write = 1;
    assert_int_equal(pathgate_resolver_restrict(r, &po, &err), 0);
    assert_int_equal(editor_(ed, r, "undo_edit", "root:repo/notes.txt", &a, text, sizeof text),
                     PATHGATE_EPOLICY);
    assert_string_equal(slurp(f->repo, "notes.txt"), "NOTES\n");

    expect_event(f, "editor_view", "root:repo/.env", "deny_read");
    expect_event(f, "editor_str_replace", "root:repo/.env", "deny_read");
    expect_event(f, "editor_create", "root:repo/app/new/.env", "deny_read");
    expect_event(f, "editor_str_replace", "root:repo/.git/hooks/pre-commit", "deny_write");
    if (!LINK_CASE("root:repo/cfglink"))
        expect_event(f, "editor_insert", "root:repo/cfglink", "deny_write");
    expect_event(f, "editor_create", "root:repo/.git/hooks/post-merge", "deny_write");
    expect_event(f, "editor_undo_edit", "root:repo/notes.txt", "deny_write");
    assert_non_null(find(&f->j, "editor_str_replace", "root:repo/notes.txt", "allowed", NULL));
    pathgate_editor_free(ed);
    pathgate_resolver_free(r);
}

/* ------------------------------------------------------------ failures */

/* The toolkit under the policy with every allocation failing in turn:
 * ENOMEM or the usual answer, nothing leaked. */
typedef struct chaos {
    fixture *f;
} chaos;

static int chaos_body(const pathgate_allocator *alloc, void *ctx)
{
    fixture *f = ((chaos *)ctx)->f;
    pathgate_base_spec roots[] = {{PG_S("repo"), f->repo, strlen(f->repo), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.allocator = alloc;
    o.deny_read = deny_read;
    o.ndeny_read = 2;
    o.presets = presets_vcs;
    o.npresets = 1;
    pathgate_resolver *r = NULL, *sub = NULL;
    pathgate_error err;
    int rc = pathgate_resolver_new(&r, &o, &err);
    if (rc < 0)
        return rc;
    pathgate_fs_scandir *d = NULL;
    pathgate_fs_walk *w = NULL;
    if ((rc = pathgate_fs_scandir_open(&d, r, PG_S("root:repo"), NULL, &err)) == 0)
        pathgate_fs_scandir_free(d);
    if (rc == 0 && (rc = pathgate_fs_walk_open(&w, r, PG_S("root:repo"), 0, NULL, &err)) == 0) {
        const pathgate_fs_walk_dir *dir;
        while ((rc = pathgate_fs_walk_next(&dir, w, &err)) == 1)
            ;
        pathgate_fs_walk_free(w);
    }
    if (rc == 0) {
        rc = pathgate_fs_copy(NULL, r, PG_S("root:repo/notes.txt"), PG_S("root:repo/.git/config"),
                              PATHGATE_FS_COPY_REPLACE, NULL, &err);
        rc = rc == PATHGATE_EPOLICY ? 0 : rc == 0 ? PATHGATE_EINVAL : rc;
    }
    if (rc == 0) {
        rc = pathgate_fs_symlink(NULL, r, PG_S(".env"), PG_S("root:repo/peek"), NULL, &err);
        rc = rc == PATHGATE_EINVALIDPATH ? 0 : rc == 0 ? PATHGATE_EINVAL : rc;
    }
    if (rc == 0 && (rc = pathgate_fs_subroot(&sub, r, PG_S(GIT_ADDR), GIT_NAME, GIT_NAME_LEN, NULL,
                                             &err)) == 0) {
        rc = pathgate_fs_write(NULL, sub, PG_S("root:gitlink/hooks/x"), PG_S("x"), NULL, &err);
        rc = rc == PATHGATE_EPOLICY ? 0 : rc == 0 ? PATHGATE_EINVAL : rc;
        pathgate_resolver_free(sub);
    }
    pathgate_resolver_free(r);
    return rc;
}

static void test_allocation_failures(void **state)
{
    chaos c = {*state};
    assert_true(pg_for_each_failing_alloc(chaos_body, &c) > 10);
}

int main(void)
{
#define BOTH(t)                                                                                    \
    cmocka_unit_test_setup_teardown(t, setup, teardown),                                           \
        cmocka_unit_test_setup_teardown(t, setup_fallback, teardown)
    const struct CMUnitTest tests[] = {
        BOTH(test_toolkit_hides),
        BOTH(test_listings_hide),
        BOTH(test_toolkit_protects),
        BOTH(test_subroot_keeps_the_rules),
        BOTH(test_patch_judges_every_path_first),
        BOTH(test_editor_commands),
        cmocka_unit_test_setup_teardown(test_allocation_failures, setup, teardown),
    };
    return cmocka_run_group_tests_name("policy_ops", tests, NULL, NULL);
}
