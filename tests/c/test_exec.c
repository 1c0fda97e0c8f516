/* test_exec.c - the contained-execution machinery below the resolver:
 * pathgate__exec_run_grants with directories the test opens itself, the
 * Landlock module, the private temporary directory. Each escape attempt
 * checks both that it failed and that the outside file is unchanged. */
#define _GNU_SOURCE
#include "support.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec_run.h"
#include "exec_tmp.h"
#include "exec_landlock.h"

#define SECRET "top secret outside bytes\n"

typedef struct fixture {
    char *base;             /* pg_tmpdir_make() */
    char root[PATH_MAX];    /* base/root: granted read/write */
    char ro[PATH_MAX];      /* base/ro: granted read-only */
    char sibling[PATH_MAX]; /* base/sibling: not granted */
    char secret[PATH_MAX];  /* base/sibling/secret.txt */
    int root_fd, ro_fd;
} fixture;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *path) /* malloc'd or NULL */
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 65536);
    size_t n = fread(buf, 1, 65535, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static void assert_secret_intact(const fixture *fx)
{
    char *s = read_file(fx->secret);
    assert_non_null(s);
    assert_string_equal(s, SECRET);
    free(s);
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    fx->base = pg_tmpdir_make();
    assert_non_null(fx->base);
    snprintf(fx->root, sizeof fx->root, "%s/root", fx->base);
    snprintf(fx->ro, sizeof fx->ro, "%s/ro", fx->base);
    snprintf(fx->sibling, sizeof fx->sibling, "%s/sibling", fx->base);
    snprintf(fx->secret, sizeof fx->secret, "%s/sibling/secret.txt", fx->base);
    assert_int_equal(mkdir(fx->root, 0755), 0);
    assert_int_equal(mkdir(fx->ro, 0755), 0);
    assert_int_equal(mkdir(fx->sibling, 0755), 0);
    write_file(fx->secret, SECRET);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/readme.txt", fx->ro);
    write_file(p, "read only content\n");
    fx->root_fd = open(fx->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    fx->ro_fd = open(fx->ro, O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(fx->root_fd >= 0 && fx->ro_fd >= 0);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    close(fx->root_fd);
    close(fx->ro_fd);
    pg_tmpdir_remove(fx->base);
    free(fx);
    return 0;
}

static int run_opts(pathgate_exec_result *res, const fixture *fx, const char *cmd,
                    const pathgate_exec_options *opts, pathgate_error *err)
{
    pathgate__exec_grant grants[2] = {
        {fx->root_fd, PATHGATE__LL_READ | PATHGATE__LL_EXEC | PATHGATE__LL_WRITE, "root:root"},
        {fx->ro_fd, PATHGATE__LL_READ | PATHGATE__LL_EXEC, "root:ro"},
    };
    return pathgate__exec_run_grants(res, pg_test_alloc(), grants, 2, fx->root_fd,
                                     "/pathgate/root/root", cmd, strlen(cmd), opts, err);
}

/* Runs cmd with a 20 s timeout (a safety net, never reached by a passing
 * test) and asserts the call itself succeeded. */
static void run(pathgate_exec_result *res, const fixture *fx, const char *cmd)
{
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.timeout_ms = 20000;
    pathgate_error err = {0, ""};
    int rc = run_opts(res, fx, cmd, &o, &err);
    if (rc)
        fail_msg("exec failed: %d %s", rc, err.message);
    assert_non_null(res->output.ptr);
    assert_int_equal(res->landlock_abi, pathgate_exec_landlock_abi());
}

static void skip_without_landlock(void)
{
    if (pathgate_exec_landlock_abi() < 1)
        skip();
}

/* ------------------------------------------------------------- inside */

static void test_inside_create_read_delete_and_cwd(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    run(&res, fx,
        "pwd -P; mkdir -p sub/deeper && printf 'hello' > sub/deeper/a.txt && cat sub/deeper/a.txt "
        "&& echo; echo gone > b.txt && rm b.txt && echo removed; mv sub/deeper/a.txt sub/moved.txt "
        "&& echo moved");
    char expected[PATH_MAX + 64];
    /* the view's path, not the host's */
    snprintf(expected, sizeof expected, "%s\nhello\nremoved\nmoved\n", "/pathgate/root/root");
    assert_string_equal(res.output.ptr, expected);
    assert_int_equal(res.exit_code, 0);
    assert_false(res.truncated);
    assert_false(res.timed_out);
    pathgate_exec_result_dispose(&res);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/sub/moved.txt", fx->root);
    char *content = read_file(p);
    assert_non_null(content);
    assert_string_equal(content, "hello");
    free(content);
    snprintf(p, sizeof p, "%s/b.txt", fx->root);
    assert_false(exists(p));
}

static void test_read_only_base(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd,
             "cat /root:ro/readme.txt && echo new > /root:ro/new.txt; echo rc=$?; "
             "touch /root:ro/readme.txt; truncate -s 0 /root:ro/readme.txt; chmod 600 "
             "/root:ro/readme.txt; echo end");
    run(&res, fx, cmd);
    assert_non_null(strstr(res.output.ptr, "read only content\n"));
    assert_non_null(strstr(res.output.ptr, "rc=2")); /* the shell cannot create it */
    assert_non_null(strstr(res.output.ptr, "Read-only file system"));
    pathgate_exec_result_dispose(&res);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/new.txt", fx->ro);
    assert_false(exists(p));
    snprintf(p, sizeof p, "%s/readme.txt", fx->ro);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_int_equal(st.st_size, 18);
}

/* ------------------------------------------------------------ outside */

static void test_read_of_sibling_is_denied(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd,
             "cat '%s'; cat ../sibling/secret.txt; ls ../sibling; ls -a ..; stat -c %%s '%s'; "
             "echo end",
             fx->secret, fx->secret);
    run(&res, fx, cmd);
    assert_null(strstr(res.output.ptr, "top secret"));
    assert_null(strstr(res.output.ptr, "secret.txt\n")); /* no listing either */
    assert_null(strstr(res.output.ptr, "sibling\n"));
    assert_null(strstr(res.output.ptr, "\n25\n")); /* not even its size */
    assert_non_null(strstr(res.output.ptr, "No such file or directory"));
    pathgate_exec_result_dispose(&res);
    assert_secret_intact(fx);
}

static void test_write_to_shared_tmp_is_denied(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    char target[128];
    snprintf(target, sizeof target, "/tmp/pathgate-exec-outside-%ld", (long)getpid());
    unlink(target);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "echo x > %s; echo rc=$?; touch %s.2; mkdir %s.d", target, target,
             target);
    run(&res, fx, cmd);
    /* the command's /tmp is its own tmpfs: the write lands there */
    assert_non_null(strstr(res.output.ptr, "rc=0"));
    pathgate_exec_result_dispose(&res);
    assert_false(exists(target));
    snprintf(cmd, sizeof cmd, "%s.2", target);
    assert_false(exists(cmd));
    snprintf(cmd, sizeof cmd, "%s.d", target);
    assert_false(exists(cmd));
}

static void test_outward_symlink_is_denied(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    char link[PATH_MAX + 32];
    snprintf(link, sizeof link, "%s/link", fx->root);
    assert_int_equal(symlink(fx->secret, link), 0);
    char dirlink[PATH_MAX + 32];
    snprintf(dirlink, sizeof dirlink, "%s/dirlink", fx->root);
    assert_int_equal(symlink("../sibling", dirlink), 0);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    run(&res, fx,
        "cat link; echo overwritten > link; echo appended >> link; cat dirlink/secret.txt; "
        "echo new > dirlink/new.txt; rm dirlink/secret.txt; echo end");
    assert_null(strstr(res.output.ptr, "top secret"));
    assert_non_null(strstr(res.output.ptr, "end\n"));
    pathgate_exec_result_dispose(&res);
    assert_secret_intact(fx);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/new.txt", fx->sibling);
    assert_false(exists(p));
    unlink(link);
    unlink(dirlink);
}

static void test_cd_out_of_the_base_and_write(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    run(&res, fx,
        "cd .. && echo x > escaped.txt; echo rc=$?; cd sibling && echo y > secret.txt; "
        "rm -f secret.txt; mv secret.txt ../root/stolen.txt; pwd");
    assert_non_null(strstr(res.output.ptr, "rc=2"));
    pathgate_exec_result_dispose(&res);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/escaped.txt", fx->base);
    assert_false(exists(p));
    snprintf(p, sizeof p, "%s/stolen.txt", fx->root);
    assert_false(exists(p));
    assert_secret_intact(fx);
}

static void test_hard_link_and_rename_from_outside_are_denied(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "ln '%s' x; echo ln=$?; mv '%s' y; echo mv=$?; cat x y", fx->secret,
             fx->secret);
    run(&res, fx, cmd);
    assert_non_null(strstr(res.output.ptr, "ln=1"));
    assert_non_null(strstr(res.output.ptr, "mv=1"));
    assert_null(strstr(res.output.ptr, "top secret"));
    pathgate_exec_result_dispose(&res);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/x", fx->root);
    assert_false(exists(p));
    snprintf(p, sizeof p, "%s/y", fx->root);
    assert_false(exists(p));
    assert_secret_intact(fx);
    struct stat st;
    assert_int_equal(stat(fx->secret, &st), 0);
    assert_int_equal(st.st_nlink, 1);
}

static void test_inherited_descriptor_is_not_usable(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    /* A descriptor the host process opened without O_CLOEXEC must not
     * reach the command (Landlock does not police open files). */
    int fd = open(fx->secret, O_RDONLY);
    assert_true(fd >= 3);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "cat <&%d; echo rc=$?", fd);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    run(&res, fx, cmd);
    close(fd);
    assert_null(strstr(res.output.ptr, "top secret"));
    assert_non_null(strstr(res.output.ptr, "rc=2"));
    pathgate_exec_result_dispose(&res);
}

/* A root caller's command keeps only the capabilities of ownership
 * changes, over its own ids and its range's (docs/exec.md, "Ownership
 * changes inside"): chown to an id of the range works and lands on the
 * host in the range, never on a user's id; an id past the range, a
 * device node, and every file it does not own stay refused. */
static void test_capabilities_only_ownership(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    if (geteuid() != 0)
        skip(); /* only root has capabilities to lose */
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.timeout_ms = 20000;
    o.id_range_first = 3000000000u; /* an explicit range: a known host id */
    o.id_range_count = 65536;
    pathgate_error err = {0, ""};
    assert_int_equal(run_opts(&res, fx,
                              "touch owned && chown 4242:4343 owned; echo chown=$?;"
                              " touch far && chown 70000 far; echo far=$?;"
                              " mknod dev c 1 3; echo mknod=$?;"
                              " chown 4242 /usr/bin/env; echo usr=$?",
                              &o, &err),
                     0);
    assert_non_null(strstr(res.output.ptr, "chown=0"));
    assert_non_null(strstr(res.output.ptr, "far=1"));
    assert_non_null(strstr(res.output.ptr, "mknod=1"));
    assert_non_null(strstr(res.output.ptr, "usr=1"));
    assert_true(res.protections & PATHGATE_EXEC_PROT_ID_RANGE);
    pathgate_exec_result_dispose(&res);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/owned", fx->root);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_uid, 3000004242u);
    assert_int_equal(st.st_gid, 3000004343u);
    unlink(p);
    snprintf(p, sizeof p, "%s/far", fx->root);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_uid, 0); /* the base owner's, as before */
    unlink(p);
    snprintf(p, sizeof p, "%s/dev", fx->root);
    assert_false(exists(p));
    assert_int_equal(stat("/usr/bin/env", &st), 0);
    assert_int_equal(st.st_uid, 0);
}

/* Without control groups (RLIMIT_NPROC, counted per uid, bounds the
 * processes) the command keeps chown but not setuid: taking the range's
 * uids would escape the limit. */
static void test_no_setuid_without_control_groups(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    if (geteuid() != 0 || access("/usr/bin/python3", X_OK) != 0)
        skip();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.timeout_ms = 20000;
    o.flags = PATHGATE_EXEC_TEST_NO_CGROUP;
    pathgate_error err = {0, ""};
    assert_int_equal(run_opts(&res, fx,
                              "touch owned && chown 4242 owned; echo chown=$?;"
                              " /usr/bin/python3 -c 'import os; os.setuid(4242)' 2>&1 |"
                              " grep -o 'Errno [0-9]*'",
                              &o, &err),
                     0);
    assert_non_null(strstr(res.output.ptr, "chown=0"));
    assert_non_null(strstr(res.output.ptr, "Errno 1\n"));
    assert_false(res.protections & PATHGATE_EXEC_PROT_PID_LIMIT);
    assert_true(res.protections & PATHGATE_EXEC_PROT_ID_RANGE);
    pathgate_exec_result_dispose(&res);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/owned", fx->root);
    unlink(p);
}

/* id_range_count 1: only 0 is mapped, every capability dropped. */
static void test_no_id_range_drops_every_capability(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    if (geteuid() != 0)
        skip();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.timeout_ms = 20000;
    o.id_range_count = 1;
    pathgate_error err = {0, ""};
    assert_int_equal(run_opts(&res, fx,
                              "touch owned && chown 4242 owned; echo chown=$?;"
                              " mknod dev c 1 3;"
                              " echo mknod=$?",
                              &o, &err),
                     0);
    assert_non_null(strstr(res.output.ptr, "chown=1"));
    /* EPERM as on the host without CAP_CHOWN, not EINVAL (unmapped id) */
    assert_non_null(strstr(res.output.ptr, "Operation not permitted"));
    assert_null(strstr(res.output.ptr, "Invalid argument"));
    assert_non_null(strstr(res.output.ptr, "mknod=1"));
    assert_false(res.protections & PATHGATE_EXEC_PROT_ID_RANGE);
    pathgate_exec_result_dispose(&res);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/owned", fx->root);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_uid, 0);
    unlink(p);
}

/* A range that holds a user's id (root's 0, nobody's 65534) is refused. */
static void test_id_range_meeting_a_user_is_refused(void **state)
{
    fixture *fx = *state;
    if (geteuid() != 0)
        skip();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.id_range_first = 0;
    o.id_range_count = 65536;
    pathgate_error err = {0, ""};
    assert_int_equal(run_opts(&res, fx, "true", &o, &err), PATHGATE_EINVAL);
    assert_non_null(strstr(err.message, "id_range"));
    o.id_range_first = 4294967000u; /* past the last id */
    assert_int_equal(run_opts(&res, fx, "true", &o, &err), PATHGATE_EINVAL);
}

/* A loopback listener; returns the fd and the port. */
static int listener(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    assert_true(s >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s, 8), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &len), 0);
    *port = ntohs(a.sin_port);
    return s;
}

static void test_tcp_connect_denied_unless_allowed(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    if (access("/bin/bash", X_OK) != 0)
        skip();
    int port;
    int s = listener(&port);
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && echo connected >&3 && echo ok'; "
             "echo rc=$?",
             port);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    run(&res, fx, cmd);
    assert_null(strstr(res.output.ptr, "ok\n"));
    assert_non_null(strstr(res.output.ptr, "rc=1"));
    pathgate_exec_result_dispose(&res);
    int c = accept(s, NULL, NULL);
    assert_int_equal(c, -1); /* nobody connected */
    assert_true(errno == EAGAIN || errno == EWOULDBLOCK);

    /* The same command with the network allowed reaches the listener. */
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.allow_network = 1;
    o.timeout_ms = 20000;
    assert_int_equal(run_opts(&res, fx, cmd, &o, NULL), 0);
    assert_non_null(strstr(res.output.ptr, "ok\n"));
    pathgate_exec_result_dispose(&res);
    c = accept(s, NULL, NULL);
    assert_true(c >= 0);
    char buf[32] = {0};
    assert_int_equal(read(c, buf, sizeof buf - 1), 10);
    assert_string_equal(buf, "connected\n");
    close(c);
    close(s);
}

/* The Landlock layer alone (no seccomp): a forked child restricted with a
 * deny_tcp ruleset cannot connect; with TCP unhandled it can. */
static int connect_in_restricted_child(int port, int deny_tcp)
{
    pid_t pid = fork();
    if (pid == 0) {
        int abi = pathgate__landlock_abi();
        int rs = pathgate__landlock_ruleset(abi, deny_tcp);
        if (rs < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
            syscall(PATHGATE__SYS_LANDLOCK_RESTRICT_SELF, rs, 0) < 0)
            _exit(3);
        int c = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons((uint16_t)port);
        if (connect(c, (struct sockaddr *)&a, sizeof a) == 0)
            _exit(0);
        _exit(errno == EACCES ? 1 : 2);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_landlock_net_rule_alone(void **state)
{
    (void)state;
    if (pathgate_exec_landlock_abi() < 4)
        skip();
    int port;
    int s = listener(&port);
    assert_int_equal(connect_in_restricted_child(port, 1), 1);
    assert_int_equal(connect_in_restricted_child(port, 0), 0);
    close(s);
}

static void test_landlock_rights_by_abi(void **state)
{
    (void)state;
    assert_int_equal(pathgate__landlock_handled_fs(0), 0);
    assert_int_equal(pathgate__landlock_handled_fs(1), (1u << 13) - 1);
    assert_int_equal(pathgate__landlock_handled_fs(2), (1u << 14) - 1);
    assert_int_equal(pathgate__landlock_handled_fs(4), (1u << 15) - 1);
    assert_int_equal(pathgate__landlock_handled_fs(7), (1u << 16) - 1);
    /* write never includes device creation; files keep only file rights */
    uint64_t w = pathgate__landlock_rights(7, PATHGATE__LL_WRITE, 1);
    assert_int_equal(w & ((1u << 6) | (1u << 11)), 0);
    assert_true(w & (1u << 13)); /* refer */
    assert_true(w & (1u << 14)); /* truncate */
    assert_int_equal(pathgate__landlock_rights(1, PATHGATE__LL_WRITE, 1) & (1u << 13), 0);
    uint64_t f = pathgate__landlock_rights(7, PATHGATE__LL_READ | PATHGATE__LL_WRITE, 0);
    assert_int_equal(f, (1u << 1) | (1u << 2) | (1u << 14));
    int abi = pathgate_exec_landlock_abi();
    assert_true(abi >= 0 && abi <= PATHGATE__LANDLOCK_ABI_MAX);
    if (abi) {
        int rs = pathgate__landlock_ruleset(abi, 1);
        assert_true(rs >= 0);
        int file = open("/dev/null", O_PATH | O_CLOEXEC);
        assert_int_equal(
            pathgate__landlock_allow(rs, abi, file, PATHGATE__LL_READ | PATHGATE__LL_WRITE), 0);
        close(file);
        close(rs);
    }
}

/* -------------------------------------------------- process lifetime */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* 1 when some process of the host has `arg` as an argument. */
static int process_with_arg(const char *arg)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int found = 0;
    while (!found && d && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char p[300], buf[4096];
        snprintf(p, sizeof p, "/proc/%.255s/cmdline", e->d_name);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
            buf[n] = '\0';
            if (strcmp(buf + i, arg) == 0)
                found = 1;
        }
    }
    if (d)
        closedir(d);
    return found;
}

/* Waits (up to 10 s) until no host process has `arg`. */
static int processes_end(const char *arg)
{
    for (int i = 0; i < 1000 && process_with_arg(arg); i++)
        sleep_ms(10);
    return !process_with_arg(arg);
}

static void test_timeout_kills_the_whole_group(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.timeout_ms = 300;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    assert_int_equal(run_opts(&res, fx,
                              "(sleep 0.6; echo late > marker) & sleep 100.0417 & echo $!; "
                              "echo started; wait",
                              &o, NULL),
                     0);
    assert_true(res.timed_out);
    assert_int_equal(res.exit_code, PATHGATE_EXEC_EXIT_TIMEOUT);
    long sleeper = strtol(res.output.ptr, NULL, 10);
    assert_true(sleeper > 1); /* a pid of the command's PID namespace */
    assert_non_null(strstr(res.output.ptr, "started\n"));
    pathgate_exec_result_dispose(&res);
    sleep_ms(900); /* past the moment the marker would have been written */
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/marker", fx->root);
    assert_false(exists(p));
    assert_true(processes_end("100.0417"));
}

static void test_background_job_holding_the_pipe_does_not_hang(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    /* The call would take 100 s if it waited for the pipe's EOF. */
    run(&res, fx,
        "sleep 100.0418 & echo $!; (sleep 0.6; echo late > marker2) >/dev/null 2>&1 & exit 5");
    assert_int_equal(res.exit_code, 5);
    assert_false(res.timed_out);
    pathgate_exec_result_dispose(&res);
    assert_true(processes_end("100.0418"));
    sleep_ms(900);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/marker2", fx->root);
    assert_false(exists(p)); /* background jobs do not outlive the call */
}

static void test_setsid_cannot_outlive_the_command(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    /* With its own PID namespace a command may make sessions and groups
     * (`timeout` does): the namespace's end ends them. Without one
     * (weaker protection allowed) setsid and setpgid are refused, since
     * the process group is what is killed. */
    for (int ns = 1; ns >= 0; ns--) {
        pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
        pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
        o.timeout_ms = 20000;
        if (!ns) {
            o.flags = PATHGATE_EXEC_TEST_NO_NAMESPACES;
            o.allow_unconfined = 1;
        }
        assert_int_equal(run_opts(&res, fx,
                                  "setsid sh -c 'sleep 0.5; echo escaped > marker3' >/dev/null "
                                  "2>&1 & setsid true; echo setsid=$?",
                                  &o, NULL),
                         0);
        assert_non_null(strstr(res.output.ptr, ns ? "setsid=0" : "setsid=1"));
        pathgate_exec_result_dispose(&res);
        sleep_ms(800);
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/marker3", fx->root);
        assert_false(exists(p));
    }
}

static void test_exit_codes_pass_through(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    static const struct {
        const char *cmd;
        int code;
    } cases[] = {
        {"true", 0},
        {"false", 1},
        {"exit 42", 42},
        {"kill -TERM $$", 128 + SIGTERM},
        {"kill -KILL $$", 128 + SIGKILL},
        {"sh -c 'kill -TERM $$'", 128 + SIGTERM},
        {"exec 1>&- 2>&-; sleep 0.2; exit 7", 7},
        {"", 0},
        {"no-such-command-here", 127},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
        run(&res, fx, cases[i].cmd);
        if (res.exit_code != cases[i].code)
            fail_msg("%s: exit %d, expected %d", cases[i].cmd, res.exit_code, cases[i].code);
        assert_false(res.timed_out);
        pathgate_exec_result_dispose(&res);
    }
}

static void test_output_cap_and_merge_order(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.output_cap = 1000;
    o.timeout_ms = 20000;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    /* 300 KB (more than a pipe holds): the child must not block on it. */
    assert_int_equal(
        run_opts(&res, fx, "head -c 300000 /dev/zero | tr '\\0' a; echo done >&2", &o, NULL), 0);
    assert_int_equal(res.output.len, 1000);
    assert_int_equal(strlen(res.output.ptr), 1000);
    assert_true(res.truncated);
    assert_int_equal(res.exit_code, 0);
    for (size_t i = 0; i < 1000; i++)
        assert_int_equal(res.output.ptr[i], 'a');
    pathgate_exec_result_dispose(&res);

    run(&res, fx, "echo a; echo b >&2; echo c; echo d >&2");
    assert_string_equal(res.output.ptr, "a\nb\nc\nd\n");
    assert_false(res.truncated);
    pathgate_exec_result_dispose(&res);

    o.output_cap = 5; /* exactly the output: not truncated */
    assert_int_equal(run_opts(&res, fx, "printf 12345", &o, NULL), 0);
    assert_string_equal(res.output.ptr, "12345");
    assert_false(res.truncated);
    pathgate_exec_result_dispose(&res);
}

static void test_parent_ignoring_sigpipe_is_not_inherited(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &old);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    run(&res, fx, "yes | head -n 1");
    sigaction(SIGPIPE, &old, NULL);
    /* with SIGPIPE ignored, yes would report "Broken pipe" */
    assert_string_equal(res.output.ptr, "y\n");
    pathgate_exec_result_dispose(&res);
}

/* -------------------------------------------------------- environment */

static void test_environment_is_minimal_and_private_tmp(void **state)
{
    fixture *fx = *state;
    skip_without_landlock();
    setenv("PATHGATE_TEST_HOST_SECRET", "leaked", 1);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    run(&res, fx,
        "echo \"$HOME|$TMPDIR|$USER|$LOGNAME\"; echo \"$PATH\"; echo \"$LANG\"; "
        "echo data > \"$TMPDIR/f\" && cat \"$TMPDIR/f\"; mkdir -p \"$HOME/a/b\" && echo home; "
        "stat -c %a \"$HOME\"; env | grep -c PATHGATE_TEST_HOST_SECRET");
    unsetenv("PATHGATE_TEST_HOST_SECRET");
    /* a private home, writable and the command's only; the view's own
     * tmpfs as TMPDIR; the user's name (root: uid 0 in the view) */
    struct passwd *pw = getpwuid(geteuid());
    char expected[PATH_MAX + 128];
    snprintf(expected, sizeof expected,
             "/home/%s|/tmp|%s|%s\n/usr/local/bin:/usr/bin:/bin\nC.UTF-8\ndata\nhome\n700\n0\n",
             pw->pw_name, pw->pw_name, pw->pw_name);
    assert_string_equal(res.output.ptr, expected);
    pathgate_exec_result_dispose(&res);

    static const char *const env[] = {"FOO=bar baz", "PATH=/bin", NULL};
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.env = env;
    assert_int_equal(run_opts(&res, fx, "echo \"$FOO|$PATH|$LANG\"", &o, NULL), 0);
    assert_string_equal(res.output.ptr, "bar baz|/bin|C.UTF-8\n");
    pathgate_exec_result_dispose(&res);
}

static void test_private_tmp_removal_survives_hostile_trees(void **state)
{
    (void)state;
    pathgate__exec_tmp tmp;
    assert_int_equal(pathgate__exec_tmp_make(&tmp, pg_test_alloc(), NULL), 0);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", tmp.path);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    /* deep nesting, an unreadable directory, symlinks out, a FIFO */
    int dfd = open(path, O_RDONLY | O_DIRECTORY);
    for (int i = 0; i < 300; i++) {
        assert_int_equal(mkdirat(dfd, "d", 0700), 0);
        int next = openat(dfd, "d", O_RDONLY | O_DIRECTORY);
        if (i % 50 == 0) {
            int f = openat(dfd, "file", O_CREAT | O_WRONLY, 0600);
            close(f);
            assert_int_equal(symlinkat("/etc", dfd, "out"), 0);
            assert_int_equal(mkfifoat(dfd, "fifo", 0600), 0);
        }
        close(dfd);
        dfd = next;
    }
    assert_int_equal(mkdirat(dfd, "locked", 0700), 0);
    int f = openat(dfd, "locked/inner", O_CREAT | O_WRONLY, 0600);
    close(f);
    assert_int_equal(fchmodat(dfd, "locked", 0, 0), 0);
    /* a symlink to an outside directory that is locked (mode 0): neither
     * chmodded nor emptied */
    char outside[PATH_MAX + 16];
    snprintf(outside, sizeof outside, "%s.outside", path);
    assert_int_equal(mkdir(outside, 0700), 0);
    char keep[PATH_MAX + 32];
    snprintf(keep, sizeof keep, "%s/keep", outside);
    int k = open(keep, O_CREAT | O_WRONLY, 0600);
    close(k);
    assert_int_equal(chmod(outside, 0), 0);
    assert_int_equal(symlinkat(outside, dfd, "locked_link"), 0);
    close(dfd);
    pathgate__exec_tmp_remove(&tmp, pg_test_alloc());
    assert_null(tmp.path);
    assert_false(exists(path));
    assert_true(exists("/etc/passwd")); /* the symlink was not followed */
    struct stat ost;
    assert_int_equal(stat(outside, &ost), 0);
    assert_int_equal(ost.st_mode & 07777, 0);
    assert_int_equal(chmod(outside, 0700), 0);
    assert_true(exists(keep));
    unlink(keep);
    rmdir(outside);
}

/* ------------------------------------------------ refusal and errors */

static void test_unconfined_is_refused_unless_allowed(void **state)
{
    fixture *fx = *state;
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.flags = PATHGATE_EXEC_TEST_NO_LANDLOCK | PATHGATE_EXEC_TEST_NO_NAMESPACES;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = {0, ""};
    char marker[PATH_MAX + 32];
    snprintf(marker, sizeof marker, "%s/ran", fx->root);
    assert_int_equal(run_opts(&res, fx, "touch ran", &o, &err), PATHGATE_EUNSUPPORTED);
    assert_int_equal(err.code, PATHGATE_EUNSUPPORTED);
    assert_null(res.output.ptr);
    assert_false(exists(marker)); /* nothing ran */
    assert_null(strstr(err.message, "/"));

    o.allow_unconfined = 1;
    o.timeout_ms = 20000;
    char cmd[PATH_MAX * 3];
    snprintf(cmd, sizeof cmd, "touch ran; cat '%s'", fx->secret);
    assert_int_equal(run_opts(&res, fx, cmd, &o, &err), 0);
    assert_int_equal(res.landlock_abi, 0);
    assert_int_equal(res.exit_code, 0);
    assert_string_equal(res.output.ptr, SECRET); /* unconfined indeed */
    assert_int_equal(
        res.protections & (PATHGATE_EXEC_PROT_LANDLOCK | PATHGATE_EXEC_PROT_NAMESPACES), 0);
    pathgate_exec_result_dispose(&res);
    assert_true(exists(marker));
    unlink(marker);
}

static void test_invalid_input(void **state)
{
    fixture *fx = *state;
    pathgate__exec_grant g = {fx->root_fd, PATHGATE__LL_READ, "root:root"};
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = {0, ""};
    assert_int_equal(pathgate__exec_run_grants(&res, pg_test_alloc(), &g, 1, fx->root_fd,
                                               "/pathgate/root/root", "echo a\0b", 8, NULL, &err),
                     PATHGATE_ENUL);
    size_t big = PATHGATE_EXEC_COMMAND_MAX + 1;
    char *cmd = malloc(big);
    memset(cmd, 'x', big);
    assert_int_equal(pathgate__exec_run_grants(&res, pg_test_alloc(), &g, 1, fx->root_fd,
                                               "/pathgate/root/root", cmd, big, NULL, &err),
                     PATHGATE_ETOOLONG);
    free(cmd);
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.version = 99;
    assert_int_equal(pathgate__exec_run_grants(&res, pg_test_alloc(), &g, 1, fx->root_fd,
                                               "/pathgate/root/root", PG_S("true"), &o, &err),
                     PATHGATE_EINVAL);
    static const char *const bad_env[] = {"NOEQUALS", NULL};
    static const char *const bad_env2[] = {"=value", NULL};
    o = (pathgate_exec_options)PATHGATE_EXEC_OPTIONS_INIT;
    o.env = bad_env;
    assert_int_equal(pathgate__exec_run_grants(&res, pg_test_alloc(), &g, 1, fx->root_fd,
                                               "/pathgate/root/root", PG_S("true"), &o, &err),
                     PATHGATE_EINVAL);
    o.env = bad_env2;
    assert_int_equal(pathgate__exec_run_grants(&res, pg_test_alloc(), &g, 1, fx->root_fd,
                                               "/pathgate/root/root", PG_S("true"), &o, &err),
                     PATHGATE_EINVAL);
    assert_int_equal(pathgate__exec_run_grants(NULL, pg_test_alloc(), &g, 1, fx->root_fd,
                                               "/pathgate/root/root", PG_S("true"), NULL, &err),
                     PATHGATE_EINVAL);
    assert_int_equal(pathgate__exec_run_grants(&res, pg_test_alloc(), &g, 1, -1,
                                               "/pathgate/root/root", PG_S("true"), NULL, &err),
                     PATHGATE_EINVAL);
    assert_null(res.output.ptr);
    pathgate_exec_result_dispose(&res);
    pathgate_exec_result_dispose(NULL);
}

typedef struct alloc_ctx {
    fixture *fx;
} alloc_ctx;

static int run_with_alloc(const pathgate_allocator *alloc, void *p)
{
    alloc_ctx *c = p;
    pathgate__exec_grant g = {c->fx->root_fd, PATHGATE__LL_READ | PATHGATE__LL_WRITE, "root:root"};
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.allow_unconfined = 1;
    o.timeout_ms = 20000;
    int rc = pathgate__exec_run_grants(&res, alloc, &g, 1, c->fx->root_fd, "/pathgate/root/root",
                                       PG_S("echo hello; echo world >&2"), &o, NULL);
    if (rc == 0) {
        assert_string_equal(res.output.ptr, "hello\nworld\n");
        assert_int_equal(res.exit_code, 0);
    } else {
        assert_null(res.output.ptr);
    }
    pathgate_exec_result_dispose(&res);
    return rc;
}

static void test_every_allocation_failure_is_clean(void **state)
{
    alloc_ctx c = {*state};
    long n = pg_for_each_failing_alloc(run_with_alloc, &c);
    assert_true(n >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inside_create_read_delete_and_cwd),
        cmocka_unit_test(test_read_only_base),
        cmocka_unit_test(test_read_of_sibling_is_denied),
        cmocka_unit_test(test_write_to_shared_tmp_is_denied),
        cmocka_unit_test(test_outward_symlink_is_denied),
        cmocka_unit_test(test_cd_out_of_the_base_and_write),
        cmocka_unit_test(test_hard_link_and_rename_from_outside_are_denied),
        cmocka_unit_test(test_inherited_descriptor_is_not_usable),
        cmocka_unit_test(test_capabilities_only_ownership),
        cmocka_unit_test(test_no_id_range_drops_every_capability),
        cmocka_unit_test(test_no_setuid_without_control_groups),
        cmocka_unit_test(test_id_range_meeting_a_user_is_refused),
        cmocka_unit_test(test_tcp_connect_denied_unless_allowed),
        cmocka_unit_test(test_landlock_net_rule_alone),
        cmocka_unit_test(test_landlock_rights_by_abi),
        cmocka_unit_test(test_timeout_kills_the_whole_group),
        cmocka_unit_test(test_background_job_holding_the_pipe_does_not_hang),
        cmocka_unit_test(test_setsid_cannot_outlive_the_command),
        cmocka_unit_test(test_exit_codes_pass_through),
        cmocka_unit_test(test_output_cap_and_merge_order),
        cmocka_unit_test(test_parent_ignoring_sigpipe_is_not_inherited),
        cmocka_unit_test(test_environment_is_minimal_and_private_tmp),
        cmocka_unit_test(test_private_tmp_removal_survives_hostile_trees),
        cmocka_unit_test(test_unconfined_is_refused_unless_allowed),
        cmocka_unit_test(test_invalid_input),
        cmocka_unit_test(test_every_allocation_failure_is_clean),
    };
    return cmocka_run_group_tests_name("exec", tests, setup, teardown);
}
