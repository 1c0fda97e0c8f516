/*
 * test_policy.c - the policy layer through the C door (docs/policy.md):
 * a deny_read path is hidden by every spelling, from every operation and
 * every listing; a deny_write path (the vcs preset's .git/hooks/ and
 * .git/config) cannot be changed by any operation, through a symlink
 * either, while the rest of .git stays writable; restrict only tightens;
 * nested bases judge a file by every address; and every refusal is an
 * audit event. Run on openat2 and on the fallback walk.
 *
 * The repository is policy_fixture.h's.
 */
#include "policy_fixture.h"

/* ------------------------------------------------------------ resolve */

static void expect_denied(pathgate_resolver *r, const char *text)
{
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_resolve_options o = PATHGATE_RESOLVE_OPTIONS_INIT;
    o.require_exists = 0;
    assert_int_equal(pathgate_resolver_resolve(&res, r, PG_S(text), &o, NULL), 0);
    if (res.ok || res.reason != PATHGATE_REASON_DENIED)
        fail_msg("'%s' resolved (ok %d, reason %s)", text, res.ok,
                 pathgate_reason_name(res.reason));
    assert_string_equal(res.error_message, PATHGATE_MSG_INVALID);
    assert_null(res.ref);
    pathgate_resolution_dispose(&res);
}

static void expect_allowed(pathgate_resolver *r, const char *text)
{
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_resolve_options o = PATHGATE_RESOLVE_OPTIONS_INIT;
    o.require_exists = 0;
    assert_int_equal(pathgate_resolver_resolve(&res, r, PG_S(text), &o, NULL), 0);
    if (!res.ok)
        fail_msg("'%s' refused (reason %s)", text, pathgate_reason_name(res.reason));
    pathgate_resolver_release(r, res.ref);
    pathgate_resolution_dispose(&res);
}

static void test_every_spelling_is_hidden(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    char text[1200];
    const char *canonical[] = {
        "root:repo/.env",        " root:repo/.env ",
        "root:repo/./.env",      "root:repo/app/../.env",
        "root:repo/app\\.env",   "ROOT_REPO:/.env",
        "ROOT_REPO:/app/.env",   "root:repo/.ENV",
        "root:repo/.env.",       "root:repo/app/.eNv",
        "root:repo/innocent",    "root:repo/linkdir/key.txt",
        "root:repo/linkdir/new", "root:repo/linkdir",
        "root:repo/secrets",     "root:repo/secrets/key.txt",
        "root:repo/Secrets/x",   "root:repo/new/.env",
        "mod:M/private.txt",     "root:repo/vendor/mod/inner.txt",
        "mod:M/inner.txt",       "root:repo/vendor/mod/private.txt",
    };
    for (size_t i = 0; i < sizeof canonical / sizeof *canonical; i++)
        expect_denied(r, canonical[i]);
    const char *host[] = {"/.env",    "/app/../.env", "/app/.env",
                          "/secrets", "/innocent",    "//app///.env"};
    for (size_t i = 0; i < sizeof host / sizeof *host; i++) {
        snprintf(text, sizeof text, "%s%s", f->repo, host[i]);
        expect_denied(r, text);
    }
    snprintf(text, sizeof text, "file://%s/.env", f->repo);
    expect_denied(r, text);
    snprintf(text, sizeof text, "file://%s/%%2Eenv", f->repo);
    expect_denied(r, text);
    snprintf(text, sizeof text, "file://localhost%s/app/%%2eENV", f->repo);
    expect_denied(r, text);
    /* relative to a base */
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_resolve_options o = PATHGATE_RESOLVE_OPTIONS_INIT;
    o.base = "root:repo/app";
    o.base_len = strlen(o.base);
    assert_int_equal(pathgate_resolver_resolve(&res, r, PG_S("../.env"), &o, NULL), 0);
    assert_false(res.ok);
    assert_int_equal(res.reason, PATHGATE_REASON_DENIED);
    pathgate_resolution_dispose(&res);

    const char *allowed[] = {"root:repo/app/main.txt",
                             "root:repo/app/.env.example",
                             "root:repo/.environment",
                             "root:repo/notes.txt",
                             "root:repo/.git/config",
                             "root:repo/cfglink",
                             "mod:M",
                             "root:repo/secretsx"};
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
        expect_allowed(r, allowed[i]);
    assert_int_equal(pathgate_resolver_token_count(r), 0);

    /* each refusal is an event, with the rule and the operator's host path */
    const event *e = find(&f->j, "resolve", "root:repo/.env", "denied", "deny_read");
    assert_non_null(e);
    assert_string_equal(e->door, "c");
    assert_string_equal(e->rule, "**/.env");
    assert_string_equal(e->source, "deny_read");
    snprintf(text, sizeof text, "%s/.env", f->repo);
    assert_string_equal(e->host_path, text);
    e = find(&f->j, "resolve", "root:repo/innocent", "denied", "deny_read");
    assert_non_null(e);
    assert_string_equal(e->rule, "**/.env"); /* what the link leads to */
    e = find(&f->j, "resolve", "mod:M/private.txt", "denied", "deny_read");
    assert_non_null(e);
    assert_string_equal(e->rule, "root:repo/vendor/mod/private.txt");
    assert_null(find(&f->j, "resolve", NULL, "allowed", NULL)); /* resolve reports refusals */
    pathgate_resolver_free(r);
}

static void test_policy_check(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    pathgate_policy_verdict v;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S("root:repo/app/.env"), &err), 0);
    assert_int_equal(v.denied, PATHGATE_POLICY_DENY_READ | PATHGATE_POLICY_DENY_WRITE);
    assert_string_equal(v.rule, "**/.env");
    assert_string_equal(v.source, "deny_read");
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S("root:repo/.git/hooks/x"), &err),
                     0);
    assert_int_equal(v.denied, PATHGATE_POLICY_DENY_WRITE);
    assert_string_equal(v.rule, "**/.git/hooks/");
    assert_string_equal(v.source, "preset:vcs");
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S("root:repo/hooklink/x"), &err), 0);
    assert_int_equal(v.denied, PATHGATE_POLICY_DENY_WRITE); /* by where the link leads */
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S("root:repo/innocent"), &err), 0);
    assert_true(v.denied & PATHGATE_POLICY_DENY_READ);
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S("root:repo/.git/index"), &err), 0);
    assert_int_equal(v.denied, 0);
    assert_null(v.rule);
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S("root:nope/x"), &err),
                     PATHGATE_EINVALIDPATH);
    assert_string_equal(err.message, PATHGATE_MSG_INVALID);
    assert_int_equal(pathgate_resolver_policy_check(NULL, r, PG_S("x"), &err), PATHGATE_EINVAL);
    /* issue 34: relative text is relative to the first base, as elsewhere */
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S("app/.env"), &err), 0);
    assert_int_equal(v.denied, PATHGATE_POLICY_DENY_READ | PATHGATE_POLICY_DENY_WRITE);
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S(".git/hooks/x"), &err), 0);
    assert_int_equal(v.denied, PATHGATE_POLICY_DENY_WRITE);
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S("../x"), &err),
                     PATHGATE_EINVALIDPATH);
    size_t before = f->j.n;
    assert_int_equal(pathgate_resolver_policy_check(&v, r, PG_S("root:repo/.env"), &err), 0);
    assert_int_equal(f->j.n, before); /* a question, not a decision */
    pathgate_resolver_free(r);
}

/* --------------------------------------------------- file operations */

static int read_(pathgate_resolver *r, const char *a)
{
    pathgate_fs_read_result res = PATHGATE_FS_READ_RESULT_INIT;
    pathgate_error err;
    int rc = pathgate_fs_read(&res, r, PG_S(a), 0, 100, NULL, &err);
    if (rc == PATHGATE_EINVALIDPATH)
        assert_string_equal(err.message, PATHGATE_MSG_INVALID);
    pathgate_fs_read_result_dispose(&res);
    return rc;
}

static int write_(pathgate_resolver *r, const char *a, const char *text)
{
    pathgate_error err;
    int rc = pathgate_fs_write(NULL, r, PG_S(a), PG_S(text), NULL, &err);
    if (rc == PATHGATE_EPOLICY && !strstr(err.message, "Protected by policy"))
        fail_msg("message '%s'", err.message);
    if (rc == PATHGATE_EINVALIDPATH)
        assert_string_equal(err.message, PATHGATE_MSG_INVALID);
    return rc;
}

static int delete_(pathgate_resolver *r, const char *a)
{
    pathgate_error err;
    return pathgate_fs_delete(NULL, r, PG_S(a), NULL, &err);
}

static int move_(pathgate_resolver *r, const char *a, const char *b)
{
    pathgate_error err;
    return pathgate_fs_move(NULL, r, PG_S(a), PG_S(b), NULL, &err);
}

static int mkdir_(pathgate_resolver *r, const char *a)
{
    pathgate_error err;
    return pathgate_fs_mkdir(NULL, r, PG_S(a), 1, NULL, &err);
}

static int edit_(pathgate_resolver *r, const char *a, const char *old, const char *new_)
{
    pathgate_error err;
    return pathgate_fs_edit(NULL, NULL, r, PG_S(a), PG_EDIT(PG_S(old), PG_S(new_), 0), NULL, &err);
}

static int listed(const pathgate_fs_list *l, const char *needle)
{
    for (size_t i = 0; i < l->count; i++)
        if (strstr(l->items[i].path, needle))
            return 1;
    return 0;
}

static void test_hidden_from_every_operation(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    pathgate_error err;
    const char *hidden[] = {"root:repo/.env",
                            "root:repo/app/.env",
                            "root:repo/innocent",
                            "root:repo/linkdir/key.txt",
                            "root:repo/secrets/key.txt",
                            "mod:M/private.txt"};
    for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++) {
        const char *a = hidden[i];
        assert_int_equal(read_(r, a), PATHGATE_EINVALIDPATH);
        pathgate_buf b = PATHGATE_BUF_INIT;
        assert_int_equal(pathgate_fs_head(&b, r, PG_S(a), 5, NULL, &err), PATHGATE_EINVALIDPATH);
        assert_int_equal(pathgate_fs_tail(&b, r, PG_S(a), 5, NULL, &err), PATHGATE_EINVALIDPATH);
        pathgate_fs_stat_result st = PATHGATE_FS_STAT_RESULT_INIT;
        assert_int_equal(pathgate_fs_stat(&st, r, PG_S(a), NULL, &err), PATHGATE_EINVALIDPATH);
        pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
        assert_int_equal(
            pathgate_fs_grep(&m, r, PG_S("SECRET"), PG_S(a), PG_SEARCH(NULL, NULL, 0, 10), &err),
            PATHGATE_EINVALIDPATH);
        pathgate_fs_item item = {a, strlen(a), NULL, 0};
        pathgate_fs_blobs blobs = PATHGATE_FS_BLOBS_INIT;
        assert_int_equal(pathgate_fs_download(&blobs, r, &item, 1, NULL, &err), 0);
        assert_int_equal(blobs.items[0].code, PATHGATE_EINVALIDPATH);
        assert_null(blobs.items[0].data);
        pathgate_fs_blobs_dispose(&blobs);
        /* nor written, edited, deleted, moved, copied away */
        assert_int_equal(write_(r, a, "x"), PATHGATE_EINVALIDPATH);
        assert_int_equal(edit_(r, a, "1", "2"), PATHGATE_EINVALIDPATH);
        assert_int_equal(delete_(r, a), PATHGATE_EINVALIDPATH);
        assert_int_equal(move_(r, a, "root:repo/stolen.txt"), PATHGATE_EINVALIDPATH);
        assert_false(exists(f->repo, "stolen.txt"));
    }
    assert_string_equal(slurp(f->repo, ".env"), "SECRET=1\n");
    assert_string_equal(slurp(f->repo, "app/.env"), "APP_SECRET=1\n");
    assert_true(exists(f->repo, "innocent"));
    /* nor created where a rule would hide it, nor moved onto such a name */
    assert_int_equal(write_(r, "root:repo/new/.env", "x"), PATHGATE_EINVALIDPATH);
    assert_false(exists(f->repo, "new"));
    assert_int_equal(mkdir_(r, "root:repo/x/.env/y"), PATHGATE_EINVALIDPATH);
    assert_false(exists(f->repo, "x"));
    assert_int_equal(write_(r, "root:repo/linkdir/new.txt", "x"), PATHGATE_EINVALIDPATH);
    assert_false(exists(f->repo, "secrets/new.txt"));
    assert_int_equal(move_(r, "root:repo/notes.txt", "root:repo/app/.env.local/.env"),
                     PATHGATE_EINVALIDPATH);
    assert_int_equal(move_(r, "root:repo/notes.txt", "root:repo/secrets/n.txt"),
                     PATHGATE_EINVALIDPATH);
    assert_true(exists(f->repo, "notes.txt"));
    /* a directory holding a hidden file goes nowhere, and is not deleted */
    assert_int_equal(delete_(r, "root:repo/app"), PATHGATE_EPOLICY);
    assert_int_equal(move_(r, "root:repo/app", "root:repo/app2"), PATHGATE_EPOLICY);
    assert_true(exists(f->repo, "app/.env"));
    assert_false(exists(f->repo, "app2"));
    assert_int_equal(delete_(r, "root:repo/vendor"), PATHGATE_EPOLICY); /* mod:M/inner.txt */
    /* a file next to it is as usual */
    assert_int_equal(read_(r, "root:repo/app/main.txt"), 0);
    assert_int_equal(write_(r, "root:repo/app/new.txt", "ok"), 0);
    assert_int_equal(move_(r, "root:repo/app/new.txt", "root:repo/app/sub/new.txt"), 0);
    assert_int_equal(delete_(r, "root:repo/app/sub"), 0);
    assert_false(exists(f->repo, "app/sub"));

    /* the events: every refusal, by operation */
    const char *ops[] = {"read",     "head",  "tail", "stat",   "grep",
                         "download", "write", "edit", "delete", "move"};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        const event *e = find(&f->j, ops[i], "root:repo/.env", "denied", "deny_read");
        if (!e)
            fail_msg("no denied event for %s", ops[i]);
        assert_string_equal(e->rule, "**/.env");
    }
    assert_non_null(find(&f->j, "move", "root:repo/app", "denied", "deny_read"));
    const event *e = find(&f->j, "move", "root:repo/app", "denied", NULL);
    assert_string_equal(e->role, "source");
    assert_non_null(find(&f->j, "delete", "root:repo/app", "denied", "deny_read"));
    assert_non_null(find(&f->j, "read", "root:repo/innocent", "denied", "deny_read"));
    assert_non_null(find(&f->j, "write", "root:repo/new/.env", "denied", "deny_read"));
    assert_non_null(find(&f->j, "read", "root:repo/app/main.txt", "allowed", NULL));
    assert_non_null(find(&f->j, "write", "root:repo/app/new.txt", "allowed", NULL));
    pathgate_resolver_free(r);
}

static void test_listings_leave_hidden_out(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    pathgate_error err;
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    assert_int_equal(pathgate_fs_ls(&l, r, PG_S("root:repo"), NULL, &err), 0);
    assert_false(listed(&l, ".env"));
    assert_false(listed(&l, "secrets"));
    assert_false(listed(&l, "innocent"));
    assert_false(listed(&l, "linkdir"));
    assert_true(listed(&l, "notes.txt"));
    assert_true(listed(&l, "hooklink")); /* protected, not hidden */
    assert_int_equal(l.skipped_denied, 4);
    assert_true(l.incomplete);
    pathgate_fs_list_dispose(&l);
    assert_non_null(find(&f->j, "ls", "root:repo", "allowed", NULL));
    const event *e = find(&f->j, "ls", "root:repo", "hidden", "deny_read");
    assert_non_null(e);
    assert_int_equal(e->count, 4);

    pathgate_fs_search_options one = PATHGATE_FS_SEARCH_OPTIONS_INIT;
    for (unsigned threads = 1; threads <= 4; threads += 3) {
        one.threads = threads;
        assert_int_equal(pathgate_fs_glob(&l, r, PG_S("**/*"), PG_S("root:repo"), &one, &err), 0);
        assert_false(listed(&l, ".env"));
        assert_false(listed(&l, "key.txt"));
        assert_false(listed(&l, "innocent"));
        assert_true(listed(&l, "app/main.txt"));
        assert_true(l.skipped_denied >= 1);
        pathgate_fs_list_dispose(&l);
        assert_int_equal(pathgate_fs_glob(&l, r, PG_S(".env"), PG_S("root:repo"), &one, &err), 0);
        assert_int_equal(l.count, 0);
        assert_int_equal(l.skipped_denied, 3); /* .env, app/.env, and secrets/ to look in */
        pathgate_fs_list_dispose(&l);
        pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
        assert_int_equal(pathgate_fs_grep(&m, r, PG_S("SECRET"), PG_S("root:repo"),
                                          PG_SEARCH(&one, NULL, 0, 100), &err),
                         0);
        for (size_t i = 0; i < m.count; i++)
            assert_string_equal(m.items[i].path, "root:repo/app/main.txt");
        assert_int_equal(m.count, 1);
        assert_true(m.skipped_denied >= 3);
        assert_true(m.incomplete);
        pathgate_fs_matches_dispose(&m);
        assert_int_equal(pathgate_fs_grep(&m, r, PG_S("KEY=1"), PG_S("mod:M"),
                                          PG_SEARCH(&one, NULL, 0, 100), &err),
                         0);
        assert_int_equal(m.count, 0);
        pathgate_fs_matches_dispose(&m);
    }
    assert_int_equal(pathgate_fs_ls(&l, r, PG_S("mod:M"), NULL, &err), 0);
    assert_false(listed(&l, "private.txt"));
    assert_false(listed(&l, "inner.txt"));
    assert_int_equal(l.skipped_denied, 2);
    pathgate_fs_list_dispose(&l);
    /* a walk whose root was reached through a link judges where it is */
    assert_int_equal(pathgate_fs_ls(&l, r, PG_S("root:repo/linkdir"), NULL, &err),
                     PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate_fs_tree(&l, r, PG_S("root:repo"), NULL, NULL, 0, NULL, &err), 0);
    for (size_t i = 0; i < l.count; i++)
        assert_true(strcmp(l.items[i].path, "root:repo/.env") &&
                    strcmp(l.items[i].path, "root:repo/app/.env"));
    assert_true(listed(&l, "app/.env.example"));
    assert_false(listed(&l, "secrets"));
    assert_true(listed(&l, "app/sub/deep.txt"));
    assert_true(l.skipped_denied >= 5);
    pathgate_fs_list_dispose(&l);
    assert_non_null(find(&f->j, "tree", "root:repo", "hidden", "deny_read"));

    /* the pull iterator: the same, and its events on this thread */
    size_t before = f->j.n;
    pathgate_fs_iter *it = NULL;
    assert_int_equal(pathgate_fs_grep_iter_new(&it, r, PG_S("="), PG_S("root:repo"),
                                               PG_SEARCH(NULL, NULL, 0, 100), &err),
                     0);
    const pathgate_fs_match *mm;
    int rc;
    while ((rc = pathgate_fs_iter_next_match(&mm, it, &err)) == 1)
        assert_true(strstr(mm->path, ".env") == NULL || strstr(mm->path, ".env.example"));
    assert_int_equal(rc, 0);
    assert_true(pathgate_fs_iter_grep_summary(it)->skipped_denied >= 3);
    pathgate_fs_iter_free(it);
    size_t grep_allowed = 0, grep_hidden = 0;
    for (size_t i = before; i < f->j.n; i++) {
        grep_allowed += strcmp(f->j.ev[i].outcome, "allowed") == 0;
        grep_hidden += strcmp(f->j.ev[i].outcome, "hidden") == 0;
    }
    assert_int_equal(grep_allowed, 1);
    assert_int_equal(grep_hidden, 1);
    it = NULL;
    assert_int_equal(
        pathgate_fs_glob_iter_new(&it, r, PG_S("*"), PG_S("root:repo/secrets"), NULL, &err), 0);
    const pathgate_fs_info *fi;
    assert_int_equal(pathgate_fs_iter_next_info(&fi, it, &err), PATHGATE_EINVALIDPATH);
    pathgate_fs_iter_free(it);
    assert_non_null(find(&f->j, "glob", "root:repo/secrets", "denied", "deny_read"));
    pathgate_resolver_free(r);
}

static void test_vcs_preset(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    /* hooks, config, .gitmodules: read, never changed */
    assert_int_equal(read_(r, "root:repo/.git/hooks/pre-commit"), 0);
    assert_int_equal(read_(r, "root:repo/.git/config"), 0);
    assert_int_equal(write_(r, "root:repo/.git/hooks/pre-commit", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/hooks/post-checkout", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.GIT/HOOKS/pre-push", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/config", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(edit_(r, "root:repo/.git/config", "[core]", "[evil]"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/worktrees/wt/config.worktree", "x"),
                     PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/modules/sub/hooks/x", "x"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.gitmodules", "x"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/a/b/.gitmodules", "x"), PATHGATE_EPOLICY);
    assert_int_equal(delete_(r, "root:repo/.git/hooks/pre-commit"), PATHGATE_EPOLICY);
    assert_int_equal(delete_(r, "root:repo/.git/hooks"), PATHGATE_EPOLICY);
    assert_int_equal(delete_(r, "root:repo/.git"), PATHGATE_EPOLICY);
    assert_int_equal(mkdir_(r, "root:repo/.git/hooks/d"), PATHGATE_EPOLICY);
    assert_int_equal(move_(r, "root:repo/.git/hooks", "root:repo/h2"), PATHGATE_EPOLICY);
    assert_int_equal(move_(r, "root:repo/.git/hooks/pre-commit", "root:repo/h"), PATHGATE_EPOLICY);
    assert_int_equal(move_(r, "root:repo/notes.txt", "root:repo/.git/hooks/pre-push"),
                     PATHGATE_EPOLICY);
    assert_int_equal(move_(r, "root:repo/.git", "root:repo/.git2"), PATHGATE_EPOLICY);
    /* a directory that would become .git/hooks, moved there whole */
    put(f->repo, "fake/pre-commit", "evil\n");
    assert_int_equal(move_(r, "root:repo/fake", "root:repo/.git/modules/x/hooks"),
                     PATHGATE_EPOLICY);
    put(f->repo, "fake2/hooks/pre-commit", "evil\n");
    assert_int_equal(move_(r, "root:repo/fake2", "root:repo/sub/.git"), PATHGATE_EPOLICY);
    pathgate_fs_item up = {PG_S("root:repo/.git/hooks/pre-rebase"), "x", 1};
    int code = 0;
    pathgate_error err;
    assert_int_equal(pathgate_fs_upload(&code, r, &up, 1, NULL, &err), 0);
    assert_int_equal(code, PATHGATE_EPOLICY);
    assert_string_equal(pathgate_fs_operation_error(code), "permission_denied");
    /* through a symlink too */
    assert_int_equal(write_(r, "root:repo/hooklink/pre-commit", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/hooklink/new-hook", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/gitlink/config", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/cfglink", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(delete_(r, "root:repo/hooklink/pre-commit"), PATHGATE_EPOLICY);
    assert_string_equal(slurp(f->repo, ".git/hooks/pre-commit"), "#!/bin/sh\n");
    assert_string_equal(slurp(f->repo, ".git/config"), "[core]\n");
    assert_false(exists(f->repo, ".git/hooks/post-checkout"));
    assert_false(exists(f->repo, ".git/hooks/new-hook"));
    assert_false(exists(f->repo, ".git/hooks/pre-rebase"));
    assert_false(exists(f->repo, ".git/hooks/d"));
    assert_true(exists(f->repo, "notes.txt"));
    /* what commit, branch and worktree add write stays writable */
    assert_int_equal(write_(r, "root:repo/.git/index", "index2"), 0);
    assert_int_equal(write_(r, "root:repo/.git/objects/ab/ef", "blob2"), 0);
    assert_int_equal(write_(r, "root:repo/.git/refs/heads/topic", "0123"), 0);
    assert_int_equal(write_(r, "root:repo/.git/worktrees/wt/index", "wt"), 0);
    /* the pointers git follows are git's to write (in commands, where
     * they are validated by content), never a file operation's */
    assert_int_equal(write_(r, "root:repo/.git/HEAD", "ref: refs/heads/topic\n"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/worktrees/wt2/HEAD", "wt2"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/HEAD", "ref: refs/heads/x\n"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/commondir", "../shadow"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/worktrees/wt/commondir", "../.."), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/worktrees/wt/gitdir", "/x/.git"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/sub/.git", "gitdir: ../shadow"), PATHGATE_EPOLICY);
    assert_int_equal(mkdir_(r, "root:repo/sub2/.git"), PATHGATE_EPOLICY);
    /* what git reads as configuration or runs, in every repository */
    assert_int_equal(write_(r, "root:repo/.git/info/attributes", "* filter=x"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/objects/info/alternates", "/x"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/worktrees/wt/config", "[core]"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.husky/pre-commit", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.githooks/pre-commit", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.pre-commit-config.yaml", "x"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/lefthook.yml", "x"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.simple-git-hooks.json", "x"), PATHGATE_EPOLICY);
    /* a project's own config/ folder (Rails) stays writable; so do the
     * reflog's logs/HEAD-like names below .git only through git */
    assert_int_equal(write_(r, "root:repo/config/database.yml", "x"), 0);
    assert_int_equal(write_(r, "root:repo/objects/x", "x"), 0);
    assert_int_equal(write_(r, "root:repo/gitlink/index", "index3"), 0);
    assert_int_equal(delete_(r, "root:repo/.git/objects/ab"), 0);
    assert_string_equal(slurp(f->repo, ".git/index"), "index3");

    const event *e = find(&f->j, "write", "root:repo/.git/hooks/pre-commit", "denied", NULL);
    assert_non_null(e);
    assert_string_equal(e->reason, "deny_write");
    assert_string_equal(e->rule, "**/.git/hooks/");
    assert_string_equal(e->source, "preset:vcs");
    assert_non_null(find(&f->j, "write", "root:repo/hooklink/pre-commit", "denied", "deny_write"));
    assert_non_null(find(&f->j, "upload", "root:repo/.git/hooks/pre-rebase", "denied", NULL));
    assert_non_null(find(&f->j, "delete", "root:repo/.git", "denied", "deny_write"));
    assert_non_null(find(&f->j, "write", "root:repo/.git/index", "allowed", NULL));
    pathgate_resolver_free(r);
}

static void test_secrets_preset_and_exceptions(void **state)
{
    fixture *f = *state;
    put(f->repo, "keys/server.PEM", "pem\n");
    put(f->repo, "keys/id_ed25519", "k\n");
    put(f->repo, "keys/id_ed25519.pub", "k\n");
    put(f->repo, ".npmrc", "token\n");
    put(f->repo, "app/.env.local", "L=1\n");
    static const char *const presets[] = {"secrets", "agent-config"};
    static const char *const keep[] = {"!.env.example"};
    pathgate_resolver *r = make_with(f, keep, 1, NULL, 0, presets, 2);
    assert_int_equal(read_(r, "root:repo/keys/server.PEM"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(r, "root:repo/keys/id_ed25519"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(r, "root:repo/keys/id_ed25519.pub"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(r, "root:repo/.npmrc"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(r, "root:repo/app/.env.local"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(r, "root:repo/app/.env"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(r, "root:repo/app/.env.example"), 0); /* the operator's exception */
    assert_int_equal(read_(r, "root:repo/notes.txt"), 0);
    /* agent-config: read, never written */
    assert_int_equal(write_(r, "root:repo/.vscode/tasks.json", "{}"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.mcp.json", "{}"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.claude/settings.json", "{}"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/home/.bashrc", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.config/fish/config.fish", "evil"), PATHGATE_EPOLICY);
    assert_int_equal(write_(r, "root:repo/.git/hooks/x", "x"), 0); /* vcs is not on */
    const event *e = find(&f->j, "read", "root:repo/keys/server.PEM", "denied", "deny_read");
    assert_non_null(e);
    assert_string_equal(e->rule, "*.pem");
    assert_string_equal(e->source, "preset:secrets");
    pathgate_resolver_free(r);
}

static void test_restrict_only_tightens(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    pathgate_policy_options p = PATHGATE_POLICY_OPTIONS_INIT;
    static const char *const dw[] = {"notes.txt"};
    static const char *const dr[] = {"!**/.env", "!secrets/", "app/sub/"};
    p.deny_write = dw;
    p.ndeny_write = 1;
    p.deny_read = dr;
    p.ndeny_read = 3;
    p.source = "deepagents";
    pathgate_error err;
    assert_int_equal(write_(r, "root:repo/notes.txt", "n"), 0);
    assert_int_equal(pathgate_resolver_restrict(r, &p, &err), 0);
    assert_int_equal(write_(r, "root:repo/notes.txt", "n2"), PATHGATE_EPOLICY);
    assert_int_equal(read_(r, "root:repo/app/sub/deep.txt"), PATHGATE_EINVALIDPATH);
    assert_int_equal(read_(r, "root:repo/.env"), PATHGATE_EINVALIDPATH); /* still hidden */
    assert_int_equal(read_(r, "root:repo/secrets/key.txt"), PATHGATE_EINVALIDPATH);
    const event *e = find(&f->j, "write", "root:repo/notes.txt", "denied", "deny_write");
    assert_non_null(e);
    assert_string_equal(e->source, "deepagents");
    assert_string_equal(e->rule, "notes.txt");
    /* a bad list adds nothing */
    static const char *const bad[] = {"ok.txt", "root:nope/x"};
    pathgate_policy_options q = PATHGATE_POLICY_OPTIONS_INIT;
    q.deny_write = bad;
    q.ndeny_write = 2;
    assert_int_equal(pathgate_resolver_restrict(r, &q, &err), PATHGATE_ECONFIG);
    assert_non_null(strstr(err.message, "root:nope/x"));
    assert_int_equal(write_(r, "root:repo/ok.txt", "fine"), 0);
    static const char *const unknown[] = {"vsc"};
    q.deny_write = NULL;
    q.ndeny_write = 0;
    q.presets = unknown;
    q.npresets = 1;
    assert_int_equal(pathgate_resolver_restrict(r, &q, &err), PATHGATE_ECONFIG);
    assert_non_null(strstr(err.message, "unknown preset 'vsc'"));
    q.version = 7;
    assert_int_equal(pathgate_resolver_restrict(r, &q, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_resolver_restrict(NULL, &p, &err), PATHGATE_EINVAL);
    pathgate_policy_options init;
    assert_int_equal(pathgate_policy_options_init(&init, PATHGATE_POLICY_OPTIONS_VERSION), 0);
    assert_int_equal(init.version, PATHGATE_POLICY_OPTIONS_VERSION);
    assert_null(init.deny_read);
    assert_int_equal(pathgate_policy_options_init(&init, 9), PATHGATE_EINVAL);
    pathgate_resolver_free(r);

    /* a resolver with no policy gets one */
    journal_clear(&f->j);
    r = make_with(f, NULL, 0, NULL, 0, NULL, 0);
    assert_int_equal(read_(r, "root:repo/.env"), 0);
    static const char *const env[] = {".env"};
    pathgate_policy_options e2 = PATHGATE_POLICY_OPTIONS_INIT;
    e2.deny_read = env;
    e2.ndeny_read = 1;
    assert_int_equal(pathgate_resolver_restrict(r, &e2, &err), 0);
    assert_int_equal(read_(r, "root:repo/.env"), PATHGATE_EINVALIDPATH);
    e = find(&f->j, "read", "root:repo/.env", "denied", NULL);
    assert_string_equal(e->source, "restrict");
    pathgate_resolver_free(r);
}

static void test_sessions_and_relative_text(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    pathgate_session *s = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_session_new(&s, r, NULL, 0, &err), 0);
    assert_int_equal(pathgate_session_push(NULL, s, PG_S("root:repo/app"), &err), 0);
    pathgate_fs_options o = PATHGATE_FS_OPTIONS_INIT;
    o.session = s;
    pathgate_fs_read_result res = PATHGATE_FS_READ_RESULT_INIT;
    assert_int_equal(pathgate_fs_read(&res, NULL, PG_S(".env"), 0, 10, &o, &err),
                     PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate_fs_read(&res, NULL, PG_S("./sub/../.ENV"), 0, 10, &o, &err),
                     PATHGATE_EINVALIDPATH);
    assert_int_equal(pathgate_fs_read(&res, NULL, PG_S("main.txt"), 0, 10, &o, &err), 0);
    pathgate_fs_read_result_dispose(&res);
    const event *e = find(&f->j, "read", "root:repo/app/.env", "denied", "deny_read");
    assert_non_null(e);
    assert_string_equal(e->rule, "**/.env");
    /* push into a hidden directory: refused like a missing one */
    assert_int_equal(pathgate_session_push(NULL, s, PG_S("root:repo/secrets"), &err),
                     PATHGATE_EINVALIDPATH);
    pathgate_session_free(s);
    pathgate_resolver_free(r);
}

/* Commands apply it (test_exec_policy.c has the cases): .env cannot be
 * read inside one. */
static void test_commands_apply_it(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    pathgate_exec_result out = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    int rc = pathgate_exec_run(&out, r, PG_S("cat .env app/.env; echo rc=$?"), NULL, &err);
    if (rc == PATHGATE_EUNSUPPORTED) { /* no user namespaces here: refused, never unmasked */
        pathgate_resolver_free(r);
        skip();
    }
    assert_int_equal(rc, 0);
    assert_null(strstr(out.output.ptr, "SECRET"));
    assert_non_null(strstr(out.output.ptr, "rc=1"));
    pathgate_exec_result_dispose(&out);
    pathgate_resolver_free(r);
}

static void test_older_options_and_doors(void **state)
{
    fixture *f = *state;
    pathgate_base_spec roots[] = {{PG_S("repo"), f->repo, strlen(f->repo), 0}};
    /* a version-2 caller's struct ends before the policy: never read */
    struct {
        pathgate_resolver_options o;
        unsigned char poison[64];
    } v2;
    memset(&v2, 0xA5, sizeof v2);
    v2.o.version = 2;
    v2.o.roots = roots;
    v2.o.nroots = 1;
    v2.o.mods = NULL;
    v2.o.nmods = 0;
    v2.o.max_tokens = 0;
    v2.o.flags = 0;
    v2.o.allocator = pg_test_alloc();
    v2.o.read_only = NULL;
    v2.o.nread_only = 0;
    pathgate_resolver *r = NULL;
    pathgate_error err;
    assert_int_equal(pathgate_resolver_new(&r, &v2.o, &err), 0);
    assert_int_equal(read_(r, "root:repo/.env"), 0);
    pathgate_resolver_free(r);
    /* the door of the events */
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.allocator = pg_test_alloc();
    static const char *const env[] = {".env"};
    o.deny_read = env;
    o.ndeny_read = 1;
    o.audit = record;
    o.audit_ctx = &f->j;
    o.audit_door = "lua";
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), 0);
    assert_int_equal(read_(r, "root:repo/.env"), PATHGATE_EINVALIDPATH);
    const event *e = find(&f->j, "read", "root:repo/.env", "denied", NULL);
    assert_string_equal(e->door, "lua");
    pathgate_resolver_free(r);
    /* misconfiguration names the entry, never the directory */
    static const char *const bad[] = {"root:nope/.env"};
    o.deny_read = bad;
    r = NULL;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), PATHGATE_ECONFIG);
    assert_null(r);
    assert_non_null(strstr(err.message, "deny_read entry 'root:nope/.env'"));
    assert_null(strstr(err.message, f->tmp));
    static const char *const nope[] = {"nope"};
    o.deny_read = NULL;
    o.ndeny_read = 0;
    o.presets = nope;
    o.npresets = 1;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), PATHGATE_ECONFIG);
    assert_non_null(strstr(err.message, "unknown preset 'nope'"));
    o.presets = NULL;
    assert_int_equal(pathgate_resolver_new(&r, &o, &err), PATHGATE_EINVAL);
    /* the preset tables */
    assert_string_equal(pathgate_policy_preset_name(0), "vcs");
    assert_string_equal(pathgate_policy_preset_name(1), "secrets");
    assert_string_equal(pathgate_policy_preset_name(2), "agent-config");
    assert_string_equal(pathgate_policy_preset_name(3), "vcs-history");
    assert_null(pathgate_policy_preset_name(4));
    unsigned int d = 0;
    assert_string_equal(pathgate_policy_preset_rule("vcs", 0, &d), ".git");
    assert_int_equal(d, PATHGATE_POLICY_DENY_WRITE);
    assert_string_equal(pathgate_policy_preset_rule("vcs-history", 0, &d), "**/.git/objects/");
    assert_int_equal(d, PATHGATE_POLICY_DENY_READ);
    assert_string_equal(pathgate_policy_preset_rule("secrets", 0, &d), ".env");
    assert_int_equal(d, PATHGATE_POLICY_DENY_READ);
    assert_string_equal(pathgate_policy_preset_rule("vcs", 0, &d), ".git");
    assert_int_equal(d, PATHGATE_POLICY_DENY_WRITE);
    assert_null(pathgate_policy_preset_rule("vcs", 1000, &d));
    assert_null(pathgate_policy_preset_rule("nope", 0, &d));
    assert_null(pathgate_policy_preset_rule(NULL, 0, &d));
}

/* The enumeration the command view will mask and mount from. */
typedef struct found {
    char list[2048];
} found;

static int collect(void *ctx, const char *sub, size_t sub_len, int is_dir, unsigned int denied,
                   const pathgate_policy_verdict *v)
{
    found *fd = ctx;
    char line[600];
    snprintf(line, sizeof line, "%s%.*s%s %s|", denied & PATHGATE_POLICY_DENY_READ ? "R " : "W ",
             (int)sub_len, sub, is_dir ? "/" : "", v->rule);
    strncat(fd->list, line, sizeof fd->list - strlen(fd->list) - 1);
    return 0;
}

static void test_enumerate_for_the_command_view(void **state)
{
    fixture *f = *state;
    pathgate_resolver *r = make(f);
    found fd;
    fd.list[0] = '\0';
    assert_int_equal(pathgate__policy_enumerate(r, 0, collect, &fd), 0);
    /* hidden: masked; protected: mounted read-only; nothing below either */
    const char *expect[] = {"R .env **/.env|", "R app/.env **/.env|",
                            /* a pointer (the vcs preset's `.git`, this name
                             * only): the command view enters it itself */
                            "W .git/ .git|", "W .gitmodules .gitmodules|", "R secrets/ secrets/|",
                            "R vendor/mod/private.txt root:repo/vendor/mod/private.txt|",
                            "R vendor/mod/inner.txt mod:M/inner.txt|"};
    for (size_t i = 0; i < sizeof expect / sizeof *expect; i++)
        if (!strstr(fd.list, expect[i]))
            fail_msg("missing '%s' in '%s'", expect[i], fd.list);
    assert_null(strstr(fd.list, "pre-commit")); /* inside a reported directory */
    assert_null(strstr(fd.list, "innocent"));   /* a link is its name, not its target */
    assert_null(strstr(fd.list, "main.txt"));
    fd.list[0] = '\0';
    assert_int_equal(pathgate__policy_enumerate(r, 1, collect, &fd), 0); /* mod:M */
    assert_non_null(strstr(fd.list, "R private.txt"));
    assert_non_null(strstr(fd.list, "R inner.txt"));
    pathgate_resolver_free(r);
}

/* Allocation failures anywhere in building a policy, restricting it and
 * judging under it leave nothing behind and fail with ENOMEM only. */
typedef struct chaos {
    fixture *f;
} chaos;

static int chaos_body(const pathgate_allocator *alloc, void *ctx)
{
    fixture *f = ((chaos *)ctx)->f;
    pathgate_base_spec roots[] = {{PG_S("repo"), f->repo, strlen(f->repo), 0}};
    pathgate_base_spec mods[] = {{PG_S("M"), f->mod, strlen(f->mod), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.mods = mods;
    o.nmods = 1;
    o.allocator = alloc;
    o.deny_read = deny_read;
    o.ndeny_read = 4;
    o.presets = presets_vcs;
    o.npresets = 1;
    pathgate_resolver *r = NULL;
    pathgate_error err;
    int rc = pathgate_resolver_new(&r, &o, &err);
    if (rc < 0)
        return rc;
    pathgate_policy_options p = PATHGATE_POLICY_OPTIONS_INIT;
    static const char *const dw[] = {"*.{a,b,c}"};
    p.deny_write = dw;
    p.ndeny_write = 1;
    p.source = "chaos";
    rc = pathgate_resolver_restrict(r, &p, &err);
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    if (rc == 0)
        rc = pathgate_fs_ls(&l, r, PG_S("root:repo"), NULL, &err);
    pathgate_fs_list_dispose(&l);
    if (rc == 0) {
        rc = pathgate_fs_delete(NULL, r, PG_S("root:repo/app"), NULL, &err);
        rc = rc == PATHGATE_EPOLICY ? 0 : rc == 0 ? PATHGATE_EINVAL : rc;
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
        BOTH(test_every_spelling_is_hidden),
        BOTH(test_policy_check),
        BOTH(test_hidden_from_every_operation),
        BOTH(test_listings_leave_hidden_out),
        BOTH(test_vcs_preset),
        cmocka_unit_test_setup_teardown(test_secrets_preset_and_exceptions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restrict_only_tightens, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sessions_and_relative_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commands_apply_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_older_options_and_doors, setup, teardown),
        BOTH(test_enumerate_for_the_command_view),
        cmocka_unit_test_setup_teardown(test_allocation_failures, setup, teardown),
    };
    return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
