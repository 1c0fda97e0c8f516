/*
 * test_exec_policy.c - the resolver's policy inside commands (docs/exec.md
 * "Policy in commands"): deny_read entries hidden, deny_write entries
 * read-only, found anew at each call; the vcs preset with real git; the
 * command's audit events. Each case runs as root and as uid 65534 (a
 * child drops to it, its tree its own), like test_exec_findings.c.
 *
 * <tmp>/repo: .env  sub/.env  a.txt  locked.txt  sym -> .env  (git init)
 *             .git/hooks/pre-commit  conf/prod.txt
 * resolver: presets secrets + vcs, deny_read "**\/.env" and
 * "conf/prod.txt", deny_write "locked.txt".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec_policy.h"
#include "pathgate/exec.h"
#include "pathgate/policy.h"
#include "pathgate/resolver.h"
#include "support.h"

#define NOBODY 65534
#define OUT_MAX 16384

typedef struct fixture {
    char *tmp;
    char repo[512];
} fixture;

typedef struct journal {
    int starts, ends, refusals;
    unsigned int protections;
    uint64_t masked;
    int last_status;
    char refused_reason[64];
    int leaked; /* the command text or a host path in an agent-facing field */
} journal;

static const char *tmp_of_journal; /* the host path that must not appear */

static void record(const pathgate_audit_event *e, void *ctx)
{
    journal *j = ctx;
    assert_int_equal(e->version, PATHGATE_AUDIT_EVENT_VERSION);
    if (!e->operation || strcmp(e->operation, "execute") != 0)
        return;
    if (e->address && tmp_of_journal && strstr(e->address, tmp_of_journal))
        j->leaked = 1;
    if (strcmp(e->outcome, "allowed") == 0) {
        j->starts++;
        j->protections = e->protections;
        j->masked = e->count;
        assert_string_equal(e->address, "root:repo");
        assert_int_equal(e->exit_status, -1);
    } else if (strcmp(e->outcome, "exited") == 0) {
        j->ends++;
        j->last_status = e->exit_status;
    } else if (strcmp(e->outcome, "denied") == 0) {
        j->refusals++;
        snprintf(j->refused_reason, sizeof j->refused_reason, "%s", e->reason ? e->reason : "");
    }
}

__attribute__((format(printf, 1, 2))) static void sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
    if (geteuid() != 0 || system("git --version >/dev/null 2>&1") != 0) {
        *state = NULL;
        return 0;
    }
    fixture *f = calloc(1, sizeof *f);
    f->tmp = pg_tmpdir_make();
    chmod(f->tmp, 0755);
    snprintf(f->repo, sizeof f->repo, "%s/repo", f->tmp);
    sh("set -e; mkdir -p '%s/sub'; cd '%s'; printf 'SECRET=1\\n' > .env; "
       "printf 'SUBSECRET=1\\n' > sub/.env; printf 'a\\n' > a.txt; printf 'keep\\n' > locked.txt; "
       "ln -s .env sym; mkdir conf; printf 'PROD\\n' > conf/prod.txt; git init -q . ; printf "
       "'#!/bin/sh\\n' > .git/hooks/pre-commit",
       f->repo, f->repo);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f) {
        pg_tmpdir_remove(f->tmp);
        free(f);
    }
    return 0;
}

static pathgate_resolver *make_with(const fixture *f, journal *j, const pathgate_allocator *alloc,
                                    int *rc)
{
    pathgate_base_spec roots[] = {{"repo", 4, f->repo, strlen(f->repo), 0}};
    const char *deny_read[] = {"**/.env", "conf/prod.txt"};
    const char *deny_write[] = {"locked.txt"};
    const char *presets[] = {"secrets", "vcs"};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.deny_read = deny_read;
    o.ndeny_read = 2;
    o.deny_write = deny_write;
    o.ndeny_write = 1;
    o.presets = presets;
    o.npresets = 2;
    if (j) {
        o.audit = record;
        o.audit_ctx = j;
    }
    o.allocator = alloc;
    pathgate_resolver *r = NULL;
    pathgate_error err;
    *rc = pathgate_resolver_new(&r, &o, &err);
    return r;
}

static pathgate_resolver *make(const fixture *f, journal *j)
{
    int rc;
    pathgate_resolver *r = make_with(f, j, NULL, &rc);
    assert_int_equal(rc, 0);
    return r;
}

/* Runs each command in turn on one resolver (as root here, or as uid
 * 65534 in a child on a tree it owns); out gets each output after a
 * "--N--" line, or "ERR <message>". */
static void run_cmds(const fixture *f, int unprivileged, const char *const *cmds, size_t n,
                     char *out, journal *j)
{
    int p[2];
    pid_t pid = -1;
    if (unprivileged) {
        sh("chown -R 65534:65534 '%s'", f->repo);
        assert_int_equal(pipe(p), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid > 0) {
            close(p[1]);
            size_t got = 0;
            ssize_t r;
            while (got < OUT_MAX - 1 && (r = read(p[0], out + got, OUT_MAX - 1 - got)) > 0)
                got += (size_t)r;
            out[got] = '\0';
            close(p[0]);
            int st;
            waitpid(pid, &st, 0);
            sh("chown -R 0:0 '%s'", f->repo);
            assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
            return;
        }
        close(p[0]);
        if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
            setresuid(NOBODY, NOBODY, NOBODY) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
            _exit(3);
        j = NULL;
    }
    pathgate_resolver *r = make(f, j);
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
        pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
        o.timeout_ms = 60000;
        pathgate_error err = {0, ""};
        int rc = pathgate_exec_run(&res, r, cmds[i], strlen(cmds[i]), &o, &err);
        used += (size_t)snprintf(out + used, OUT_MAX - used, "--%zu--\n%s%s\n", i, rc ? "ERR " : "",
                                 rc ? err.message : res.output.ptr);
        pathgate_exec_result_dispose(&res);
        if (used >= OUT_MAX)
            used = OUT_MAX - 1;
    }
    pathgate_resolver_free(r);
    if (unprivileged) {
        size_t len = strlen(out);
        ssize_t w = write(p[1], out, len);
        _exit(w == (ssize_t)len ? 0 : 4);
    }
}

#define NEED(f)                                                                                    \
    fixture *f = *state;                                                                           \
    if (!f)                                                                                        \
        skip();

static char *slurp(const fixture *f, const char *rel)
{
    static char buf[4096];
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", f->repo, rel);
    FILE *fp = fopen(p, "r");
    if (!fp)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

/* A deny_read file cannot be read by any name a command has; listings
 * show it as an empty entry no one may read; grep finds nothing in it. */
static void hidden(void **state, int unprivileged)
{
    NEED(f);
    const char *cmds[] = {
        "cat .env; echo rc=$?",
        "cat sub/.env; echo rc=$?; cat sym; echo rc=$?; cat /root:repo/.env; echo rc=$?",
        "grep -r SECRET . ; echo rc=$?",
        "ls -ln .env | cut -c1-10; stat -c %s .env",
        "cp .env /tmp/x; echo rc=$?; ln .env hl; echo rc=$?",
    };
    static char out[OUT_MAX];
    run_cmds(f, unprivileged, cmds, 5, out, NULL);
    assert_null(strstr(out, "SECRET=1"));
    assert_null(strstr(out, "SUBSECRET"));
    assert_null(strstr(out, "ERR "));
    assert_non_null(strstr(out, "--0--\ncat: .env: Permission denied\nrc=1\n"));
    assert_non_null(strstr(out, "cat: sym: Permission denied"));
    assert_non_null(strstr(out, "----------\n0\n"));
    /* no copy and no hard link of it was made (links do not cross mounts) */
    assert_non_null(strstr(out, "Invalid cross-device link"));
    assert_null(slurp(f, "hl"));
    /* the host's files are untouched */
    assert_string_equal(slurp(f, ".env"), "SECRET=1\n");
}

static void test_hidden_root(void **state)
{
    hidden(state, 0);
}

static void test_hidden_unprivileged(void **state)
{
    hidden(state, 1);
}

/* deny_write entries (a file, the hooks directory) cannot be changed,
 * removed or renamed; what vcs leaves writable lets git commit, branch
 * and add a worktree. */
static void read_only(void **state, int unprivileged)
{
    NEED(f);
    const char *cmds[] = {
        "echo x >> locked.txt; rm -f locked.txt; mv locked.txt moved; chmod 600 locked.txt; "
        "echo evil > .git/hooks/pre-commit; echo evil > .git/hooks/post-checkout; "
        "mv .git/hooks .git/h2; git config user.name evil; echo end",
        "git add a.txt && git -c user.name=t -c user.email=t@e commit -qm one && "
        "git branch b2 && git worktree add -q wt b2 && git -C wt log --oneline | wc -l && "
        "echo git-ok",
    };
    static char out[OUT_MAX];
    run_cmds(f, unprivileged, cmds, 2, out, NULL);
    assert_null(strstr(out, "ERR "));
    assert_non_null(strstr(out, "end\n"));
    assert_non_null(strstr(out, "1\ngit-ok\n"));
    assert_string_equal(slurp(f, "locked.txt"), "keep\n");
    assert_string_equal(slurp(f, ".git/hooks/pre-commit"), "#!/bin/sh\n");
    assert_null(slurp(f, ".git/hooks/post-checkout"));
    assert_null(slurp(f, "moved"));
    assert_null(strstr(slurp(f, ".git/config"), "evil"));
    assert_non_null(slurp(f, "wt/a.txt"));
    sh("cd '%s' && git worktree remove --force wt && git branch -D b2 >/dev/null", f->repo);
}

static void test_read_only_root(void **state)
{
    read_only(state, 0);
}

static void test_read_only_unprivileged(void **state)
{
    read_only(state, 1);
}

/* What matches is found at each call: a file a command creates under a
 * hidden name is hidden from the next command (and one the host makes
 * between two calls too). */
static void later(void **state, int unprivileged)
{
    NEED(f);
    const char *cmds[] = {
        "mkdir -p late && echo LATE1 > late/.env && cat late/.env",
        "cat late/.env; echo rc=$?",
    };
    static char out[OUT_MAX];
    run_cmds(f, unprivileged, cmds, 2, out, NULL);
    /* the creating command itself still reads what it wrote (documented) */
    assert_non_null(strstr(out, "--0--\nLATE1\n"));
    assert_non_null(strstr(out, "--1--\ncat: late/.env: Permission denied\nrc=1\n"));
    sh("rm -rf '%s/late'", f->repo);
}

static void test_later_root(void **state)
{
    later(state, 0);
}

static void test_later_unprivileged(void **state)
{
    later(state, 1);
}

/* A directory on the way to a protected entry cannot be renamed or
 * removed: a command cannot move the entry out of its pattern's reach
 * (.git -> .git2 would free the hooks for the next command, conf -> c2
 * would free conf/prod.txt). */
static void pinned(void **state, int unprivileged)
{
    NEED(f);
    const char *cmds[] = {
        "mv .git .git2; mv conf c2; mv sub sub2; rm -rf conf; echo end",
        "cat c2/prod.txt conf/prod.txt; echo evil > .git2/hooks/pre-commit; echo end",
    };
    static char out[OUT_MAX];
    run_cmds(f, unprivileged, cmds, 2, out, NULL);
    assert_null(strstr(out, "ERR "));
    assert_null(strstr(out, "PROD"));
    assert_non_null(strstr(out, "Device or resource busy"));
    assert_string_equal(slurp(f, ".git/hooks/pre-commit"), "#!/bin/sh\n");
    assert_string_equal(slurp(f, "conf/prod.txt"), "PROD\n");
    assert_non_null(slurp(f, "sub/.env"));
}

static void test_pinned_root(void **state)
{
    pinned(state, 0);
}

static void test_pinned_unprivileged(void **state)
{
    pinned(state, 1);
}

/* A root caller's command maps only the base owner: a directory of
 * another uid with mode 0700 cannot be searched in the view by the
 * command, nor by pathgate's process that places the masks. A hidden
 * entry in it is skipped (unreachable), not a failure of the call. */
static void test_unreachable_root(void **state)
{
    NEED(f);
    sh("set -e; cd '%s'; mkdir priv; printf 'P=1\\n' > priv/.env; chown -R 1000:1000 priv; "
       "chmod 700 priv",
       f->repo);
    const char *cmds[] = {"cat priv/.env; ls priv; cat .env; echo end"};
    static char out[OUT_MAX];
    run_cmds(f, 0, cmds, 1, out, NULL);
    assert_null(strstr(out, "ERR "));
    assert_null(strstr(out, "P=1"));
    assert_null(strstr(out, "SECRET"));
    assert_non_null(strstr(out, "end\n"));
}

/* The audit callback sees each command's start (address, protections,
 * entries masked), its end (exit status) and refusals, never the command
 * text nor a host path in the address. */
static void test_audit(void **state)
{
    NEED(f);
    journal j;
    memset(&j, 0, sizeof j);
    tmp_of_journal = f->tmp;
    pathgate_resolver *r = make(f, &j);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("exit 3"), NULL, &err), 0);
    assert_int_equal(res.exit_code, 3);
    pathgate_exec_result_dispose(&res);
    assert_int_equal(j.starts, 1);
    assert_int_equal(j.ends, 1);
    assert_int_equal(j.last_status, 3);
    assert_true(j.protections & PATHGATE_EXEC_PROT_NAMESPACES);
    assert_true(j.masked >= 5); /* .env sub/.env locked.txt hooks config */
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.cwd = "root:repo/missing";
    o.cwd_len = strlen(o.cwd);
    assert_int_equal(pathgate_exec_run(&res, r, PG_S("true"), &o, &err), PATHGATE_EINVALIDPATH);
    assert_int_equal(j.refusals, 1);
    assert_string_equal(j.refused_reason, "invalid_path");
    assert_false(j.leaked);
    pathgate_resolver_free(r);
}

/* The scan that makes the list: every allocation failure answers
 * ENOMEM and leaks nothing (cmocka's allocator). */
static int collect_body(const pathgate_allocator *alloc, void *ctx)
{
    const fixture *f = ctx;
    int rc;
    pathgate_resolver *r = make_with(f, NULL, alloc, &rc);
    if (rc)
        return rc;
    pathgate__exec_masks m;
    pathgate__exec_masks_init(&m, alloc);
    pathgate_error err;
    rc = pathgate__exec_masks_collect(&m, r, &err);
    if (!rc) {
        /* .env sub/.env conf/prod.txt hidden (sym, a link, by its own name:
         * not); locked.txt, hooks, config, info/exclude read-only; sub,
         * conf, .git, .git/info pinned; .git and .git/HEAD noted as
         * pointers */
        assert_int_equal(m.nhide, 3);
        assert_int_equal(m.nro, 4);
        assert_int_equal(m.nptr, 2);
        assert_int_equal(m.npin, 4);
        for (size_t i = 0; i < m.n; i++) /* pins first, then read-only, then hidden */
            assert_true(i < m.npin           ? m.v[i].kind == PATHGATE__MASK_PIN
                        : i < m.npin + m.nro ? m.v[i].kind == PATHGATE__MASK_READ_ONLY
                                             : m.v[i].kind == PATHGATE__MASK_HIDE);
    }
    pathgate__exec_masks_dispose(&m);
    pathgate_resolver_free(r);
    return rc;
}

static void test_collect_allocation_failures(void **state)
{
    NEED(f);
    assert_true(pg_for_each_failing_alloc(collect_body, f) > 3);
}

/* The vcs preset's pointers (docs/policy.md "vcs"): a command that leaves
 * an invalid HEAD, a commondir, a .git file leading elsewhere or a HEAD
 * beside .git gets them put back, a line in its output each; git's own
 * writes are left alone. With cmocka's allocator: nothing leaks. */
static int pointers_body(const pathgate_allocator *alloc, void *ctx)
{
    const fixture *f = ctx;
    int rc;
    pathgate_resolver *r = make_with(f, NULL, alloc, &rc);
    if (rc)
        return rc;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    rc =
        pathgate_exec_run(&res, r,
                          PG_S("printf garbage > .git/HEAD; printf ../x > .git/commondir; mkdir -p "
                               "s; printf 'gitdir: ../x' > s/.git; printf 'ref: refs/heads/m' "
                               "> HEAD; mkdir -p w s2; printf ../.. > w/cd; ln w/cd s2/.git; true"),
                          NULL, &err);
    if (rc == 0) {
        const char *o = res.output.ptr ? res.output.ptr : "";
        if (!strstr(o, "'root:repo/.git/HEAD' was restored") ||
            !strstr(o, "'root:repo/.git/commondir' was removed") ||
            !strstr(o, "'root:repo/s2/.git' was removed by the preset 'vcs': a hard link") ||
            !strstr(o, "'root:repo/s/.git' was removed") ||
            !strstr(o, "'root:repo/HEAD' was removed") || strstr(o, f->repo))
            rc = PATHGATE_EIO;
    }
    pathgate_exec_result_dispose(&res);
    pathgate_resolver_free(r);
    return rc;
}

static void test_pointers_put_back(void **state)
{
    NEED(f);
    assert_non_null(slurp(f, ".git/HEAD"));
    char *head = strdup(slurp(f, ".git/HEAD"));
    assert_non_null(head);
    int rc = pointers_body(pg_test_alloc(), f);
    assert_int_equal(rc, 0);
    assert_string_equal(slurp(f, ".git/HEAD"), head);
    assert_null(slurp(f, ".git/commondir"));
    assert_null(slurp(f, "s/.git"));
    assert_null(slurp(f, "HEAD"));
    /* git's own change of HEAD stays */
    pathgate_resolver *r = make(f, NULL);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    assert_int_equal(
        pathgate_exec_run(&res, r, PG_S("git symbolic-ref HEAD refs/heads/topic"), NULL, &err), 0);
    assert_null(res.output.ptr ? strstr(res.output.ptr, "pathgate:") : NULL);
    pathgate_exec_result_dispose(&res);
    pathgate_resolver_free(r);
    assert_string_equal(slurp(f, ".git/HEAD"), "ref: refs/heads/topic\n");
    free(head);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hidden_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hidden_unprivileged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_only_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_only_unprivileged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_later_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_later_unprivileged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pinned_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pinned_unprivileged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unreachable_root, setup, teardown),
        cmocka_unit_test_setup_teardown(test_audit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_collect_allocation_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pointers_put_back, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
