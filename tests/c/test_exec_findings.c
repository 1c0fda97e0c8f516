/* test_exec_findings.c - the reproduced escapes of contained commands
 * (permissions, times and xattrs outside; setuid files; keyrings and
 * System V IPC; weak Landlock ABIs; prlimit on other processes; probing
 * outside; host paths shown; no resource limits; a read-only base nested
 * in a writable one), each run as root and, where the uid matters, as an
 * unprivileged user (uid 65534, the test drops to it in a child). Each
 * test checks that the attempt failed and that nothing outside changed. */
#define _GNU_SOURCE
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "exec_run.h"
#include "exec_landlock.h"

#define NOBODY 65534
#define SECRET "top secret outside bytes\n"

typedef struct fixture {
    char *base;
    char root[PATH_MAX];    /* base/root: read/write, mode 0777 */
    char game[PATH_MAX];    /* base/root/vendor/game: a read-only base inside root */
    char sibling[PATH_MAX]; /* base/sibling: outside every base */
    char secret[PATH_MAX];  /* sibling/secret.txt, root's, 0600 */
    char usecret[PATH_MAX]; /* sibling/id_test, nobody's, 0600 */
    int root_fd, game_fd;
} fixture;

static void write_file(const char *path, const char *text, mode_t mode, uid_t uid)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, mode), 0);
    assert_int_equal(chown(path, uid, uid), 0);
}

static int setup(void **state)
{
    if (geteuid() != 0 || pathgate_exec_landlock_abi() < 1)
        return 0; /* every test skips */
    fixture *fx = calloc(1, sizeof *fx);
    fx->base = pg_tmpdir_make();
    assert_non_null(fx->base);
    assert_int_equal(chmod(fx->base, 0755), 0);
    snprintf(fx->root, sizeof fx->root, "%s/root", fx->base);
    snprintf(fx->game, sizeof fx->game, "%s/root/vendor/game", fx->base);
    snprintf(fx->sibling, sizeof fx->sibling, "%s/sibling", fx->base);
    snprintf(fx->secret, sizeof fx->secret, "%s/sibling/secret.txt", fx->base);
    snprintf(fx->usecret, sizeof fx->usecret, "%s/sibling/id_test", fx->base);
    assert_int_equal(mkdir(fx->root, 0777), 0);
    assert_int_equal(chmod(fx->root, 0777), 0);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/vendor", fx->root);
    assert_int_equal(mkdir(p, 0755), 0);
    assert_int_equal(mkdir(fx->game, 0755), 0);
    snprintf(p, sizeof p, "%s/data.txt", fx->game);
    write_file(p, "game data\n", 0666, 0);
    assert_int_equal(mkdir(fx->sibling, 0755), 0);
    write_file(fx->secret, SECRET, 0600, 0);
    write_file(fx->usecret, SECRET, 0600, NOBODY);
    fx->root_fd = open(fx->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    fx->game_fd = open(fx->game, O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(fx->root_fd >= 0 && fx->game_fd >= 0);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    if (!fx)
        return 0;
    close(fx->root_fd);
    close(fx->game_fd);
    pg_tmpdir_remove(fx->base);
    free(fx);
    return 0;
}

#define NEED_FIXTURE(fx)                                                                           \
    fixture *fx = *state;                                                                          \
    if (!fx)                                                                                       \
        skip();

typedef struct outcome {
    int rc;
    int exit_code;
    int timed_out;
    unsigned int protections;
    char out[65536];
} outcome;

static void run_grants(outcome *o, const fixture *fx, const char *cmd, pathgate_exec_options *opts)
{
    pathgate__exec_grant g[2] = {
        {fx->root_fd, PATHGATE__LL_READ | PATHGATE__LL_EXEC | PATHGATE__LL_WRITE, "root:repo"},
        {fx->game_fd, PATHGATE__LL_READ | PATHGATE__LL_EXEC, "mod:Game"},
    };
    pathgate_exec_options d = PATHGATE_EXEC_OPTIONS_INIT;
    if (!opts)
        opts = &d;
    if (!opts->timeout_ms)
        opts->timeout_ms = 20000;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = {0, ""};
    memset(o, 0, sizeof *o);
    o->rc = pathgate__exec_run_grants(&res, NULL, g, 2, fx->root_fd, "/pathgate/root/repo", cmd,
                                      strlen(cmd), opts, &err);
    snprintf(o->out, sizeof o->out, "%s", o->rc ? err.message : res.output.ptr);
    o->exit_code = res.exit_code;
    o->timed_out = res.timed_out;
    o->protections = res.protections;
    pathgate_exec_result_dispose(&res);
}

/* Runs the command as root (in this process) or as uid/gid 65534 (in a
 * child that drops to it and sends the outcome back through a pipe). */
static void run_as(outcome *o, const fixture *fx, const char *cmd, pathgate_exec_options *opts,
                   int unprivileged)
{
    if (!unprivileged) {
        run_grants(o, fx, cmd, opts);
        return;
    }
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        static outcome child;
        /* as a freshly started program of that user would be: dumpable
         * (the uid change cleared it; /proc/self/uid_map needs it) */
        if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
            setresuid(NOBODY, NOBODY, NOBODY) || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
            child.rc = -9999;
        } else {
            run_grants(&child, fx, cmd, opts);
        }
        const char *b = (const char *)&child;
        size_t left = sizeof child;
        while (left) {
            ssize_t n = write(p[1], b, left);
            if (n <= 0)
                _exit(1);
            b += n;
            left -= (size_t)n;
        }
        _exit(0);
    }
    close(p[1]);
    char *b = (char *)o;
    size_t got = 0;
    ssize_t n;
    while (got < sizeof *o && (n = read(p[0], b + got, sizeof *o - got)) > 0)
        got += (size_t)n;
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    assert_int_equal(got, sizeof *o);
    assert_int_not_equal(o->rc, -9999);
}

static void assert_ran(const outcome *o)
{
    if (o->rc != 0)
        fail_msg("exec failed: %d %s", o->rc, o->out);
}

static void stat_of(const char *path, struct stat *st)
{
    assert_int_equal(lstat(path, st), 0);
}

static void assert_same_file(const struct stat *a, const char *path)
{
    struct stat b;
    stat_of(path, &b);
    assert_int_equal(a->st_mode, b.st_mode);
    assert_int_equal(a->st_uid, b.st_uid);
    assert_int_equal(a->st_gid, b.st_gid);
    assert_int_equal(a->st_size, b.st_size);
    assert_int_equal(a->st_mtim.tv_sec, b.st_mtim.tv_sec);
    assert_int_equal(a->st_mtim.tv_nsec, b.st_mtim.tv_nsec);
    char v[64];
    assert_true(lgetxattr(path, "user.pathgate", v, sizeof v) < 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[128] = "";
    size_t r = fread(buf, 1, sizeof buf - 1, f);
    buf[r] = '\0';
    fclose(f);
    assert_string_equal(buf, SECRET);
}

/* ------------------------------------------------------ 1. mode, time */

static void outside_metadata_unchanged(void **state, int unprivileged)
{
    NEED_FIXTURE(fx);
    const char *target = unprivileged ? fx->usecret : fx->secret;
    struct stat before;
    stat_of(target, &before);
    char cmd[PATH_MAX * 8];
    snprintf(cmd, sizeof cmd,
             "chmod 0666 '%s'; chmod 4755 '%s'; touch -d 2000-01-01 '%s'; chown 0 '%s'; "
             "python3 -c 'import os,sys; os.setxattr(sys.argv[1], \"user.pathgate\", b\"x\")' "
             "'%s'; truncate -s 0 '%s'; chmod 0666 ../sibling/secret.txt ../sibling/id_test; "
             "echo end",
             target, target, target, target, target, target);
    outcome o;
    run_as(&o, fx, cmd, NULL, unprivileged);
    assert_ran(&o);
    assert_non_null(strstr(o.out, "end\n"));
    assert_same_file(&before, target);
}

static void test_outside_mode_time_xattr_unchanged_root(void **state)
{
    outside_metadata_unchanged(state, 0);
}

static void test_outside_mode_time_xattr_unchanged_unprivileged(void **state)
{
    outside_metadata_unchanged(state, 1);
}

/* No file or directory with a setuid or setgid bit can be made, by any
 * route: chmod, chmod u+s, install -m, open(O_CREAT, 04755), mkdir -m. */
static void no_setid_file(void **state, int unprivileged)
{
    NEED_FIXTURE(fx);
    outcome o;
    run_as(&o, fx,
           "cp /bin/true t1; chmod 4755 t1; chmod u+s t1; chmod g+s t1; "
           "install -m 4755 /bin/true t2; mkdir -m 2755 d1; mkdir d2; chmod g+s d2; "
           "python3 -c 'import os; os.close(os.open(\"t3\", os.O_CREAT | os.O_WRONLY, 0o6755))'; "
           "python3 -c 'import os; os.mknod(\"t4\", 0o104755)'; echo end",
           NULL, unprivileged);
    assert_ran(&o);
    assert_non_null(strstr(o.out, "end\n"));
    DIR *d = opendir(fx->root);
    assert_non_null(d);
    struct dirent *e;
    int seen = 0;
    while ((e = readdir(d))) {
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            if (st.st_mode & (S_ISUID | S_ISGID))
                fail_msg("%s has mode %o", e->d_name, (unsigned)st.st_mode);
            seen++;
        }
        if (e->d_name[0] != '.' && strcmp(e->d_name, "vendor") != 0) {
            char p[PATH_MAX + 300];
            snprintf(p, sizeof p, "rm -rf '%s/%s'", fx->root, e->d_name);
            assert_int_equal(system(p), 0);
        }
    }
    closedir(d);
    assert_true(seen >= 3);
}

static void test_no_setuid_file_root(void **state)
{
    no_setid_file(state, 0);
}

static void test_no_setuid_file_unprivileged(void **state)
{
    no_setid_file(state, 1);
}

/* A setuid-root file already inside a base does not elevate (nosuid). */
static void test_bases_are_nosuid(void **state)
{
    NEED_FIXTURE(fx);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/suid-id", fx->root);
    char cp[PATH_MAX * 3];
    snprintf(cp, sizeof cp, "cp /usr/bin/id '%s' && chmod 4755 '%s'", p, p);
    assert_int_equal(system(cp), 0);
    outcome o;
    run_as(&o, fx, "./suid-id -u", NULL, 1);
    assert_ran(&o);
    assert_string_equal(o.out, "65534\n");
    unlink(p);
}

/* ------------------------------------------------ 2. keyrings, SysV */

static void test_host_keyring_and_sysv_unreachable(void **state)
{
    NEED_FIXTURE(fx);
    key_t key = (key_t)(0x50470000 | (getpid() & 0xffff));
    int shm = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600);
    assert_true(shm >= 0);
    char *mem = shmat(shm, NULL, 0);
    assert_true(mem != (void *)-1);
    strcpy(mem, "host shm secret");
    int q = msgget(key, IPC_CREAT | IPC_EXCL | 0600);
    assert_true(q >= 0);
    struct {
        long type;
        char text[32];
    } msg = {1, "host queue secret"};
    assert_int_equal(msgsnd(q, &msg, sizeof msg.text, 0), 0);
    long serial = syscall(SYS_add_key, "user", "pathgate-test", "host key secret", 15,
                          -3 /* KEY_SPEC_SESSION_KEYRING */);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "ipcs -m -q; python3 - <<'EOF'\n"
             "import ctypes\n"
             "libc = ctypes.CDLL(None, use_errno=True)\n"
             "print('shmget', libc.shmget(%d, 0, 0), ctypes.get_errno())\n"
             "print('msgget', libc.msgget(%d, 0), ctypes.get_errno())\n"
             "buf = ctypes.create_string_buffer(64)\n"
             "print('keyctl', libc.syscall(250, 11, %ld, buf, 64), ctypes.get_errno(), buf.value)\n"
             "print('session', libc.syscall(250, 0, -3, 0), ctypes.get_errno())\n"
             "EOF\n",
             (int)key, (int)key, serial);
    for (int unpriv = 0; unpriv < 2; unpriv++) {
        outcome o;
        run_as(&o, fx, cmd, NULL, unpriv);
        assert_ran(&o);
        assert_null(strstr(o.out, "secret"));
        char hex[32];
        snprintf(hex, sizeof hex, "0x%08x", (unsigned)key);
        assert_null(strstr(o.out, hex));
        /* ENOENT: another IPC namespace; EPERM: no System V IPC at all
         * (where no memory cgroup would count it) */
        const char *e = (o.protections & PATHGATE_EXEC_PROT_MEMORY_LIMIT) ? "2" : "1";
        char want[64];
        snprintf(want, sizeof want, "shmget -1 %s\n", e);
        assert_non_null(strstr(o.out, want));
        snprintf(want, sizeof want, "msgget -1 %s\n", e);
        assert_non_null(strstr(o.out, want));
        assert_non_null(strstr(o.out, "keyctl -1 1 ")); /* EPERM */
        assert_non_null(strstr(o.out, "session -1 1\n"));
    }
    /* the host's objects are intact */
    assert_string_equal(mem, "host shm secret");
    memset(&msg, 0, sizeof msg);
    assert_true(msgrcv(q, &msg, sizeof msg.text, 0, IPC_NOWAIT) > 0);
    assert_string_equal(msg.text, "host queue secret");
    shmdt(mem);
    shmctl(shm, IPC_RMID, NULL);
    msgctl(q, IPC_RMID, NULL);
    if (serial > 0)
        syscall(SYS_keyctl, 21 /* KEYCTL_INVALIDATE */, serial);
}

/* --------------------------------------- 3. weak Landlock ABIs, 4. prlimit */

static pid_t start_victim(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void read_limits(pid_t pid, char *buf, size_t size)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/limits", (int)pid);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static void test_abi_below_minimum_is_refused_without_namespaces(void **state)
{
    NEED_FIXTURE(fx);
    pathgate_exec_options opts = PATHGATE_EXEC_OPTIONS_INIT;
    opts.flags = PATHGATE_EXEC_TEST_ABI_CAP(2) | PATHGATE_EXEC_TEST_NO_NAMESPACES;
    outcome o;
    run_as(&o, fx, "touch ran", &opts, 0);
    assert_int_equal(o.rc, PATHGATE_EUNSUPPORTED);
    assert_null(strchr(o.out, '/'));
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/ran", fx->root);
    assert_int_not_equal(access(p, F_OK), 0); /* nothing ran */
    opts.allow_unconfined = 1;
    run_as(&o, fx, "touch ran", &opts, 0);
    assert_ran(&o);
    assert_true(o.protections & PATHGATE_EXEC_PROT_LANDLOCK);
    assert_false(o.protections &
                 (PATHGATE_EXEC_PROT_LANDLOCK_TRUNCATE | PATHGATE_EXEC_PROT_LANDLOCK_SCOPE |
                  PATHGATE_EXEC_PROT_NAMESPACES));
    assert_int_equal(access(p, F_OK), 0);
    unlink(p);
}

/* With ABI 2 (no truncate control, no signal scoping) the namespaces
 * still cover both: the outside file cannot be named, the other process
 * cannot be signalled or re-limited. */
static void test_abi_2_with_namespaces_truncate_kill_prlimit(void **state)
{
    NEED_FIXTURE(fx);
    pid_t victim = start_victim();
    char before[4096], after[4096];
    read_limits(victim, before, sizeof before);
    struct rlimit self_before, self_after;
    getrlimit(RLIMIT_NOFILE, &self_before);
    struct stat sbefore;
    stat_of(fx->secret, &sbefore);
    char cmd[PATH_MAX * 4];
    snprintf(cmd, sizeof cmd,
             "truncate -s 0 '%s'; kill -9 %d; kill -9 -1; prlimit --pid %d --nofile=3:3; "
             "prlimit --pid %d --cpu=1:1; prlimit --pid 1 --nofile=3:3; echo prl=$?; echo end",
             fx->secret, (int)victim, (int)victim, (int)getpid());
    for (int cap = 2; cap <= 7; cap += 5) {
        for (int unpriv = 0; unpriv < 2; unpriv++) {
            pathgate_exec_options opts = PATHGATE_EXEC_OPTIONS_INIT;
            opts.flags = PATHGATE_EXEC_TEST_ABI_CAP(cap);
            outcome o;
            run_as(&o, fx, cmd, &opts, unpriv);
            assert_ran(&o);
            assert_true(o.protections & PATHGATE_EXEC_PROT_NAMESPACES);
            assert_non_null(strstr(o.out, "prl=1\n"));
            assert_non_null(strstr(o.out, "end\n"));
        }
    }
    assert_int_equal(kill(victim, 0), 0); /* alive */
    read_limits(victim, after, sizeof after);
    assert_string_equal(before, after);
    getrlimit(RLIMIT_NOFILE, &self_after);
    assert_int_equal(self_before.rlim_cur, self_after.rlim_cur);
    assert_same_file(&sbefore, fx->secret);
    kill(victim, SIGKILL);
    waitpid(victim, NULL, 0);
}

/* ------------------------------------------ 6. probing, 7. host paths */

static void test_outside_cannot_be_probed_and_no_host_path_shows(void **state)
{
    NEED_FIXTURE(fx);
    char cmd[PATH_MAX * 4];
    /* (the probes' own error messages would repeat the path they were
     * given: they are silenced, their results printed) */
    snprintf(cmd, sizeof cmd,
             "stat -c '%%s %%U' '%s' 2>/dev/null; echo stat=$?; ls '%s' 2>/dev/null; echo ls=$?; "
             "ls -a / /tmp; "
             "python3 -c 'import ctypes,sys; l=ctypes.CDLL(None,use_errno=True); "
             "fd=l.inotify_init(); print(\"watch\", l.inotify_add_watch(fd, sys.argv[1].encode(), "
             "0xfff), "
             "ctypes.get_errno())' '%s'; pwd; pwd -P; echo \"$PWD|$HOME|$TMPDIR\"; "
             "cd ..; pwd; cat /proc/self/mountinfo; env; echo end",
             fx->secret, fx->sibling, fx->sibling);
    for (int unpriv = 0; unpriv < 2; unpriv++) {
        outcome o;
        run_as(&o, fx, cmd, NULL, unpriv);
        assert_ran(&o);
        assert_null(strstr(o.out, fx->base)); /* no host path of ours */
        assert_null(strstr(o.out, "secret.txt"));
        assert_null(strstr(o.out, "25 root"));
        assert_non_null(strstr(o.out, "stat=1\n"));
        assert_non_null(strstr(o.out, "ls=2\n"));
        assert_non_null(strstr(o.out, "watch -1 2\n")); /* ENOENT */
        /* the view's paths: the working directory, its private home */
        const char *home = unpriv ? "/home/nobody" : "/home/root";
        char want[256];
        snprintf(want, sizeof want,
                 "/pathgate/root/repo\n/pathgate/root/repo\n/pathgate/root/repo|%s|/tmp\n"
                 "/pathgate/root\n",
                 home);
        assert_non_null(strstr(o.out, want));
        assert_non_null(strstr(o.out, "end\n"));
    }
}

/* ------------------------------------------------- 8. resource limits */

static int host_process_with_arg(const char *arg)
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
        buf[n] = '\0';
        for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
            if (strcmp(buf + i, arg) == 0)
                found = 1;
    }
    if (d)
        closedir(d);
    return found;
}

static void limited(pathgate_exec_options *opts)
{
    *opts = (pathgate_exec_options)PATHGATE_EXEC_OPTIONS_INIT;
    opts->max_processes = 64;
    opts->max_memory = 256ull << 20;
    opts->max_file_size = 1ull << 20;
    opts->tmp_size = 512ull << 10; /* below the file size limit: ENOSPC first */
    opts->timeout_ms = 10000;
}

/* The bomb fills the PID namespace (pid_max) or the user's process limit;
 * the shell cannot fork any more, finishes, and its end (through the
 * namespace's init) ends every process of the bomb. Orphans are reaped
 * by that init meanwhile, so 400 short-lived ones do not exhaust a limit
 * of 64 (or the namespace's 300). */
static void test_fork_bomb_ends_and_leaves_nothing(void **state)
{
    NEED_FIXTURE(fx);
    for (int unpriv = 0; unpriv < 2; unpriv++) {
        pathgate_exec_options opts;
        limited(&opts);
        outcome o;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        /* the sleep's argument names this process (another run of this
         * suite at the same time has its own) */
        char arg[32], cmd[128];
        snprintf(arg, sizeof arg, "100.%ld", (long)getpid());
        snprintf(cmd, sizeof cmd, "sleep %s & b() { b | b & }; b; sleep 1; sleep 1; echo survived",
                 arg);
        run_as(&o, fx, cmd, &opts, unpriv);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        assert_ran(&o);
        assert_false(o.timed_out);
        assert_true(t1.tv_sec - t0.tv_sec < 10);
        if (unpriv || (o.protections & PATHGATE_EXEC_PROT_PID_LIMIT)) {
            assert_non_null(strstr(o.out, "Cannot fork"));
        }
        assert_false(host_process_with_arg(arg));
        /* (a pause every 32: a loaded machine may run the init late; an
         * init that did not reap would still leave 400 > 64) */
        run_as(&o, fx,
               "i=0; while [ $i -lt 400 ]; do (true &); i=$((i+1)); "
               "[ $((i % 32)) -eq 0 ] && sleep 0.05; done; echo alive",
               &opts, unpriv);
        assert_ran(&o);
        assert_string_equal(o.out, "alive\n");
    }
}

static void test_memory_hog_and_endless_writers_end(void **state)
{
    NEED_FIXTURE(fx);
    for (int unpriv = 0; unpriv < 2; unpriv++) {
        pathgate_exec_options opts;
        limited(&opts);
        outcome o;
        run_as(&o, fx,
               "python3 -c 'bytearray(1 << 30)' 2>/dev/null; echo py=$?; "
               "yes > big; echo big=$?; yes > /tmp/big; echo tmp=$?; echo end",
               &opts, unpriv);
        assert_ran(&o);
        /* a memory cgroup kills it (SIGKILL); RLIMIT_AS makes it fail */
        const char *py = (o.protections & PATHGATE_EXEC_PROT_MEMORY_LIMIT) ? "py=137\n" : "py=1\n";
        if (o.timed_out || !strstr(o.out, py))
            fail_msg("%s", o.out);
        assert_non_null(strstr(o.out, "big=153\n")); /* SIGXFSZ */
        assert_non_null(strstr(o.out, "tmp=1\n"));   /* ENOSPC on the private /tmp */
        assert_non_null(strstr(o.out, "end\n"));
        char p[PATH_MAX + 32];
        snprintf(p, sizeof p, "%s/big", fx->root);
        struct stat st;
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_size, 1 << 20);
        unlink(p);
        assert_int_not_equal(access("/tmp/big", F_OK), 0); /* not the host's /tmp */
    }
}

/* ----------------------------------------- 5. nested read-only base */

static void test_nested_read_only_base_stays_unwritten(void **state)
{
    NEED_FIXTURE(fx);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/data.txt", fx->game);
    for (int unpriv = 0; unpriv < 2; unpriv++) {
        outcome o;
        run_as(&o, fx,
               "echo x > vendor/game/data.txt; echo x > vendor/game/new.txt; "
               "rm -f vendor/game/data.txt; echo y > '/mod:Game/data.txt'; "
               "mv vendor/game vendor/moved; cat /root:repo/vendor/game/data.txt; echo end",
               NULL, unpriv);
        assert_ran(&o);
        assert_non_null(strstr(o.out, "Read-only file system"));
        assert_non_null(strstr(o.out, "game data\nend\n"));
        FILE *f = fopen(p, "r");
        assert_non_null(f);
        char buf[64] = "";
        assert_non_null(fgets(buf, sizeof buf, f));
        fclose(f);
        assert_string_equal(buf, "game data\n");
        snprintf(p, sizeof p, "%s/new.txt", fx->game);
        assert_int_not_equal(access(p, F_OK), 0);
        snprintf(p, sizeof p, "%s/data.txt", fx->game);
    }
}

/* ------------------------------- 1b. a root caller's command uid */

static void read_text(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static void assert_owner(const char *path, uid_t uid, gid_t gid)
{
    struct stat st;
    stat_of(path, &st);
    assert_int_equal(st.st_uid, uid);
    assert_int_equal(st.st_gid, gid);
}

/* The command is uid 0 in its namespace and the host's 65534 outside;
 * in a writable base owned by uid 1000 it acts as that owner (what it
 * makes is 1000's), and a root-owned file there, in a read-only base or
 * in the view's system part is not its own: no chmod, chown or write. */
static void test_root_command_runs_as_unprivileged_uid(void **state)
{
    NEED_FIXTURE(fx);
    char rootowned[PATH_MAX + 32], made[PATH_MAX + 32], madedir[PATH_MAX + 32], data[PATH_MAX + 32],
        buf[256];
    snprintf(rootowned, sizeof rootowned, "%s/rootowned.txt", fx->root);
    snprintf(made, sizeof made, "%s/made.txt", fx->root);
    snprintf(madedir, sizeof madedir, "%s/madedir", fx->root);
    snprintf(data, sizeof data, "%s/data.txt", fx->game);
    write_file(rootowned, SECRET, 0644, 0);
    assert_int_equal(chown(fx->root, 1000, 1000), 0);
    outcome o;
    run_grants(&o, fx,
               "id -u; id -g; stat -c %u:%g /usr/bin/env rootowned.txt /mod:Game/data.txt .; "
               "chmod 0666 rootowned.txt || echo chmod-refused; "
               "chown 1000 rootowned.txt || echo chown-refused; "
               "(echo x >> rootowned.txt) 2>/dev/null || echo write-refused; "
               "chmod 0600 /mod:Game/data.txt || echo ro-chmod-refused; "
               "(echo x >> /mod:Game/data.txt) 2>/dev/null || echo ro-write-refused; "
               "chmod 0600 /usr/bin/env /etc/passwd || echo sys-chmod-refused; "
               "echo made > made.txt && mkdir madedir && echo end",
               NULL);
    assert_ran(&o);
    assert_true(o.protections & PATHGATE_EXEC_PROT_UNPRIVILEGED_UID);
    /* itself 0:0; root's files unmapped (65534); the base's owner is it */
    assert_non_null(strstr(o.out, "0\n0\n65534:65534\n65534:65534\n65534:65534\n0:0\n"));
    const char *refused[] = {"chmod-refused",
                             "chown-refused",
                             "write-refused",
                             "ro-chmod-refused",
                             "ro-write-refused",
                             "sys-chmod-refused",
                             "end"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (!strstr(o.out, refused[i]))
            fail_msg("missing %s in: %s", refused[i], o.out);
    struct stat st;
    stat_of(rootowned, &st);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_owner(rootowned, 0, 0);
    read_text(rootowned, buf, sizeof buf);
    assert_string_equal(buf, SECRET);
    stat_of(data, &st);
    assert_int_equal(st.st_mode & 07777, 0666);
    read_text(data, buf, sizeof buf);
    assert_string_equal(buf, "game data\n");
    assert_owner(made, 1000, 1000);
    assert_owner(madedir, 1000, 1000);
    stat_of("/usr/bin/env", &st);
    assert_int_equal(st.st_mode & 0777, 0755);
    unlink(made);
    rmdir(madedir);
    unlink(rootowned);
    assert_int_equal(chown(fx->root, 0, 0), 0);
}

/* A root-owned base: the command writes there as its owner (root's on
 * the host) while being 65534 outside its mounts. */
static void test_root_base_files_stay_roots(void **state)
{
    NEED_FIXTURE(fx);
    char made[PATH_MAX + 32];
    snprintf(made, sizeof made, "%s/made.txt", fx->root);
    outcome o;
    run_grants(&o, fx, "echo made > made.txt && stat -c %u made.txt", NULL);
    assert_ran(&o);
    assert_string_equal(o.out, "0\n");
    assert_owner(made, 0, 0);
    unlink(made);
}

/* On the heap: a failed assertion leaves the test without joining the
 * thread, which must not then write into a later test's stack. */
typedef struct background {
    const fixture *fx;
    char cmd[128];
    outcome o;
} background;

static void *run_in_background(void *p)
{
    background *b = p;
    run_grants(&b->o, b->fx, b->cmd, NULL);
    return NULL;
}

/* "Uid:" and "PPid:" of /proc/<pid>/status; 0 when unreadable. */
static int proc_ids(const char *pid, unsigned int uid[4], long *ppid)
{
    char path[300], buf[4096];
    snprintf(path, sizeof path, "/proc/%s/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *u = strstr(buf, "\nUid:"), *pp = strstr(buf, "\nPPid:");
    if (strstr(buf, "\nState:\tZ")) /* an earlier command's init, reaped later */
        return 0;
    return u && pp && sscanf(u, "\nUid: %u %u %u %u", &uid[0], &uid[1], &uid[2], &uid[3]) == 4 &&
           sscanf(pp, "\nPPid: %ld", ppid) == 1;
}

static int cmdline_has(const char *pid, const char *marker)
{
    char path[300], buf[8192];
    snprintf(path, sizeof path, "/proc/%s/cmdline", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    return n > 0 && memmem(buf, (size_t)n, marker, strlen(marker)) != NULL;
}

/* Seen from the host, every process of the command (pathgate's init,
 * the shell, its children) has uid 65534, none 0. */
static void test_host_sees_no_uid_0_process(void **state)
{
    NEED_FIXTURE(fx);
    char started[PATH_MAX + 32];
    snprintf(started, sizeof started, "%s/started.txt", fx->root);
    unlink(started);
    /* the marker names this process: another run of this suite at the
     * same time has its own */
    char marker[64];
    snprintf(marker, sizeof marker, "pathgate-uid-marker-%ld", (long)getpid());
    background *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->fx = fx;
    snprintf(b->cmd, sizeof b->cmd, "echo started > started.txt; sleep 3 # %s", marker);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, run_in_background, b), 0);
    for (int i = 0; i < 1000 && access(started, F_OK) != 0; i++)
        usleep(10000);
    assert_int_equal(access(started, F_OK), 0);
    /* the shell (found by the marker in its command line) and its
     * parent, pathgate's init (a child of this process, or of its
     * keeper: a host-side helper sharing this process's memory, which
     * runs no command code and keeps its uid) */
    int shells = 0;
    long init = -1;
    DIR *d = opendir("/proc");
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        unsigned int uid[4];
        long ppid;
        if (!proc_ids(e->d_name, uid, &ppid) || !cmdline_has(e->d_name, marker))
            continue;
        shells++;
        for (int k = 0; k < 4; k++)
            assert_int_equal(uid[k], NOBODY);
        if (init < 0 || ppid < init) /* the shell and `sleep` carry the marker */
            init = ppid;
    }
    closedir(d);
    assert_true(shells >= 1);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", init);
    unsigned int uid[4];
    long ppid;
    assert_true(proc_ids(pid, uid, &ppid));
    for (int k = 0; k < 4; k++)
        assert_int_equal(uid[k], NOBODY);
    /* its parent is this process or a keeper that shares its memory */
    assert_true(ppid == (long)getpid() ||
                syscall(SYS_kcmp, getpid(), (pid_t)ppid, 1 /* KCMP_VM */, 0, 0) == 0);
    pthread_join(t, NULL);
    assert_ran(&b->o);
    free(b);
    unlink(started);
}

/* Without idmapped mounts (test knob) a root caller is refused; allowed
 * weaker protection, the command runs as the caller's root (reported). */
static void test_no_idmap_refused_unless_allowed(void **state)
{
    NEED_FIXTURE(fx);
    char made[PATH_MAX + 32];
    snprintf(made, sizeof made, "%s/made.txt", fx->root);
    assert_int_equal(chown(fx->root, 1000, 1000), 0);
    pathgate_exec_options opts = PATHGATE_EXEC_OPTIONS_INIT;
    opts.flags = PATHGATE_EXEC_TEST_NO_IDMAP;
    outcome o;
    run_grants(&o, fx, "echo made > made.txt", &opts);
    assert_int_equal(o.rc, PATHGATE_EUNSUPPORTED);
    assert_non_null(strstr(o.out, "unprivileged uid"));
    assert_int_not_equal(access(made, F_OK), 0);
    opts.allow_unconfined = 1;
    run_grants(&o, fx, "echo made > made.txt", &opts);
    assert_ran(&o);
    assert_true(o.protections & PATHGATE_EXEC_PROT_NAMESPACES);
    assert_false(o.protections & PATHGATE_EXEC_PROT_UNPRIVILEGED_UID);
    assert_owner(made, 0, 0);
    unlink(made);
    assert_int_equal(chown(fx->root, 0, 0), 0);
}

/* Unprivileged callers keep their own uid (nothing else may be mapped):
 * the bit is not reported and the command runs. */
static void test_unprivileged_caller_keeps_its_uid(void **state)
{
    NEED_FIXTURE(fx);
    outcome o;
    run_as(&o, fx, "id -u", NULL, 1);
    assert_ran(&o);
    assert_string_equal(o.out, "65534\n");
    assert_true(o.protections & PATHGATE_EXEC_PROT_NAMESPACES);
    assert_false(o.protections & PATHGATE_EXEC_PROT_UNPRIVILEGED_UID);
}

/* ================================================================
 * Issue 21: the seven findings of the red team, each as root and as an
 * unprivileged caller.
 * ================================================================ */

/* A file in the root (the command runs scripts from there). */
static void root_file(const fixture *fx, const char *name, const char *text)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", fx->root, name);
    write_file(p, text, 0644, 0);
}

static void root_remove(const fixture *fx, const char *name)
{
    char p[PATH_MAX * 2 + 64];
    snprintf(p, sizeof p, "rm -rf '%s/%s'", fx->root, name);
    assert_int_equal(system(p), 0);
}

/* The read-only base's file, by its directory's descriptor (the
 * commands move that directory). */
static void assert_game_data_intact(const fixture *fx)
{
    char buf[64] = "";
    int fd = openat(fx->game_fd, "data.txt", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    assert_true(n >= 0);
    buf[n] = '\0';
    assert_string_equal(buf, "game data\n");
    struct stat st;
    assert_int_equal(fstatat(fx->game_fd, "x.txt", &st, 0), -1);
}

/* 1. A read-only base nested in a writable root stays read-only after
 * its directory moved: a decoy at the old path gets nothing, the base
 * is found where it went; a rename without decoy does not make later
 * commands fail. */
static void nested_base_moved(void **state, int unprivileged)
{
    NEED_FIXTURE(fx);
    outcome o;
    run_as(&o, fx, "mv vendor vendor2 && mkdir -p decoy/game && ln -s decoy vendor && echo moved",
           NULL, unprivileged);
    assert_ran(&o);
    assert_string_equal(o.out, "moved\n");
    run_as(&o, fx,
           "echo X > vendor2/game/data.txt; echo rc=$?; echo Y > vendor/game/x.txt; "
           "cat vendor2/game/data.txt",
           NULL, unprivileged);
    assert_ran(&o);
    assert_non_null(strstr(o.out, "Read-only file system"));
    assert_non_null(strstr(o.out, "rc=2\n"));
    assert_non_null(strstr(o.out, "game data\n"));
    assert_game_data_intact(fx);
    /* no decoy: the next commands run, and the base is read-only there */
    root_remove(fx, "vendor");
    root_remove(fx, "decoy");
    run_as(&o, fx, "echo X > vendor2/game/data.txt; echo rc=$?; echo ok", NULL, unprivileged);
    assert_ran(&o);
    assert_non_null(strstr(o.out, "rc=2\nok\n"));
    assert_game_data_intact(fx);
    run_as(&o, fx, "mv vendor2 vendor && echo back", NULL, unprivileged);
    assert_ran(&o);
    assert_string_equal(o.out, "back\n");
    assert_game_data_intact(fx);
}

static void test_f1_nested_base_moved_root(void **state)
{
    nested_base_moved(state, 0);
}

static void test_f1_nested_base_moved_unprivileged(void **state)
{
    nested_base_moved(state, 1);
}

/* 2. Memory is bounded, shared memory included: a memfd written far
 * beyond max_memory is stopped (a memory cgroup kills it; without one
 * memfd_create is refused), and so is the number of processes. */
static const char memfd_script[] = "import os, sys\n"
                                   "try:\n"
                                   "    fd = os.memfd_create('hog')\n"
                                   "except OSError as e:\n"
                                   "    print('memfd refused', e.errno, flush=True); sys.exit(3)\n"
                                   "chunk = b'x' * (16 << 20)\n"
                                   "for i in range(64):\n"
                                   "    os.write(fd, chunk)\n"
                                   "    print('MB', (i + 1) * 16, flush=True)\n"
                                   "print('held 1024 MB', flush=True)\n";

static void memory_bounded(void **state, int unprivileged)
{
    NEED_FIXTURE(fx);
    root_file(fx, "memfd_hog.py", memfd_script);
    pathgate_exec_options opts = PATHGATE_EXEC_OPTIONS_INIT;
    opts.max_memory = 256ull << 20;
    opts.tmp_size = 16ull << 20;
    opts.max_processes = 32;
    outcome o;
    run_as(&o, fx, "python3 memfd_hog.py; echo rc=$?", &opts, unprivileged);
    assert_ran(&o);
    assert_null(strstr(o.out, "held"));
    /* at most the limit was ever written */
    int last = 0;
    for (const char *p = o.out; (p = strstr(p, "MB ")); p += 3)
        last = atoi(p + 3);
    assert_true(last <= 256);
    /* the group's limit: its OOM kill, or a write the group refuses
     * (ENOMEM: in a system call, not a page fault, the charge may fail
     * before the supervisor has killed) */
    if (o.protections & PATHGATE_EXEC_PROT_MEMORY_LIMIT)
        assert_true(strstr(o.out, "rc=137\n") ||
                    (strstr(o.out, "Cannot allocate memory") && strstr(o.out, "rc=1\n")));
    else
        assert_non_null(strstr(o.out, "memfd refused"));
    /* processes: 40 sleepers with a limit of 32 */
    run_as(&o, fx,
           "i=0; while [ $i -lt 40 ]; do sleep 5 & i=$((i+1)); done 2>&1 | tail -n 1; echo end",
           &opts, unprivileged);
    assert_ran(&o);
    assert_non_null(strstr(o.out, "Cannot fork"));
    if (!unprivileged) /* root here can make control groups */
        assert_true(o.protections & PATHGATE_EXEC_PROT_MEMORY_LIMIT &&
                    o.protections & PATHGATE_EXEC_PROT_PID_LIMIT);
    root_remove(fx, "memfd_hog.py");
}

static void test_f2_memory_bounded_root(void **state)
{
    memory_bounded(state, 0);
}

static void test_f2_memory_bounded_unprivileged(void **state)
{
    memory_bounded(state, 1);
}

/* 3. /tmp, /dev/shm and the home have an inode limit: 20,000 empty
 * files cannot be made with tmp_size 1 MiB. */
static const char inode_script[] =
    "import os, sys\n"
    "for d in ('/tmp', '/dev/shm', os.environ['HOME']):\n"
    "    n = 0\n"
    "    try:\n"
    "        while n < 20000:\n"
    "            open(os.path.join(d, 'f%d' % n), 'w').close(); n += 1\n"
    "    except OSError:\n"
    "        pass\n"
    "    print(d == '/tmp' and 'tmp' or d == '/dev/shm' and 'shm' or 'home', n, flush=True)\n";

static void inodes_bounded(void **state, int unprivileged)
{
    NEED_FIXTURE(fx);
    root_file(fx, "inodes.py", inode_script);
    pathgate_exec_options opts = PATHGATE_EXEC_OPTIONS_INIT;
    opts.tmp_size = 1ull << 20;
    outcome o;
    run_as(&o, fx, "python3 inodes.py", &opts, unprivileged);
    assert_ran(&o);
    const char *names[] = {"tmp ", "shm ", "home "};
    for (int i = 0; i < 3; i++) {
        const char *p = strstr(o.out, names[i]);
        if (!p)
            fail_msg("%s", o.out);
        int n = atoi(p + strlen(names[i]));
        if (n < 100 || n > 300) /* 256 inodes (a few held by the tmpfs itself) */
            fail_msg("%s %d", names[i], n);
    }
    root_remove(fx, "inodes.py");
}

static void test_f3_tmpfs_inodes_bounded_root(void **state)
{
    inodes_bounded(state, 0);
}

static void test_f3_tmpfs_inodes_bounded_unprivileged(void **state)
{
    inodes_bounded(state, 1);
}

/* 4. Every command has its own network namespace (loopback up): an
 * abstract Unix name it binds is not the host's, a host abstract socket
 * cannot be reached (also with a Landlock ABI below 6), a host TCP port
 * on 127.0.0.1 is not reached, a server on 127.0.0.1 works inside;
 * allow_network is the exception. */
static const char net_script[] =
    "import ctypes, os, socket, struct, sys\n"
    "name = sys.argv[1].encode()\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
    "unspec = struct.pack('H14x', 0)\n"
    "libc.connect(a.fileno(), unspec, len(unspec))\n"
    "addr = struct.pack('H', socket.AF_UNIX) + b'\\0' + name\n"
    "rc = libc.bind(a.fileno(), addr, len(addr))\n"
    "print('bind', rc, ctypes.get_errno(), flush=True)\n"
    "open('bound.txt', 'w').close()\n"
    "a.settimeout(3)\n"
    "try:\n"
    "    print('got', a.recv(100), flush=True)\n"
    "except OSError:\n"
    "    print('nothing', flush=True)\n"
    "peer = struct.pack('H', socket.AF_UNIX) + b'\\0' + sys.argv[2].encode()\n"
    "n = libc.sendto(b.fileno(), b'from-command', 12, 0, peer, len(peer))\n"
    "print('sendto', n, flush=True)\n"
    "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
    "c = socket.create_connection(s.getsockname()); print('lo ok', flush=True)\n"
    "h = socket.socket(); h.settimeout(2)\n"
    "try:\n"
    "    h.connect(('127.0.0.1', int(sys.argv[3]))); print('host port reached', flush=True)\n"
    "except OSError as e:\n"
    "    print('host port', e.errno, flush=True)\n";

typedef struct net_run {
    const fixture *fx;
    const char *cmd;
    pathgate_exec_options opts;
    int unprivileged;
    outcome o;
} net_run;

static void *net_thread(void *p)
{
    net_run *n = p;
    run_as(&n->o, n->fx, n->cmd, &n->opts, n->unprivileged);
    return NULL;
}

static int abstract_socket(const char *name, int do_bind)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | (do_bind ? SOCK_NONBLOCK : 0), 0);
    assert_true(fd >= 0);
    if (!do_bind)
        return fd;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t len = strlen(name);
    memcpy(a.sun_path + 1, name, len);
    if (bind(fd, (struct sockaddr *)&a,
             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) < 0) {
        close(fd);
        return -errno;
    }
    return fd;
}

static void network_isolated(void **state, int unprivileged, int abi_cap)
{
    NEED_FIXTURE(fx);
    root_file(fx, "net.py", net_script);
    char own[64], host[64], cmd[256], marker[PATH_MAX + 32];
    snprintf(own, sizeof own, "pathgate-f4-own-%d-%d", (int)getpid(), unprivileged);
    snprintf(host, sizeof host, "pathgate-f4-host-%d-%d", (int)getpid(), unprivileged);
    snprintf(marker, sizeof marker, "%s/bound.txt", fx->root);
    unlink(marker);
    /* a host service: an abstract datagram name, and a TCP port */
    int hostsock = abstract_socket(host, 1);
    assert_true(hostsock >= 0);
    int tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in in = {0};
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t inlen = sizeof in;
    assert_int_equal(bind(tcp, (struct sockaddr *)&in, sizeof in), 0);
    assert_int_equal(listen(tcp, 4), 0);
    assert_int_equal(getsockname(tcp, (struct sockaddr *)&in, &inlen), 0);
    snprintf(cmd, sizeof cmd, "python3 net.py %s %s %d", own, host, (int)ntohs(in.sin_port));
    net_run n = {fx, cmd, PATHGATE_EXEC_OPTIONS_INIT, unprivileged, {0}};
    n.opts.timeout_ms = 30000;
    if (abi_cap)
        n.opts.flags = PATHGATE_EXEC_TEST_ABI_CAP(abi_cap);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, net_thread, &n), 0);
    for (int i = 0; i < 2000 && access(marker, F_OK) != 0; i++)
        usleep(10000);
    /* the name the command bound is its own namespace's: the host's
     * service can take it, and what is sent to it there stays there */
    int mine = abstract_socket(own, 1);
    assert_true(mine >= 0);
    int sender = abstract_socket(own, 0);
    struct sockaddr_un a = {0};
    a.sun_family = AF_UNIX;
    memcpy(a.sun_path + 1, own, strlen(own));
    socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(own));
    assert_int_equal(sendto(sender, "host-secret", 11, 0, (struct sockaddr *)&a, alen), 11);
    pthread_join(t, NULL);
    assert_ran(&n.o);
    assert_non_null(strstr(n.o.out, "bind 0 0\n"));
    assert_non_null(strstr(n.o.out, "nothing\n"));
    assert_null(strstr(n.o.out, "host-secret"));
    assert_non_null(strstr(n.o.out, "lo ok\n"));
    assert_null(strstr(n.o.out, "host port reached"));
    assert_true(n.o.protections & PATHGATE_EXEC_PROT_NETWORK_NAMESPACE);
    char buf[64];
    assert_true(recv(mine, buf, sizeof buf, MSG_DONTWAIT) == 11);   /* the host's own */
    assert_true(recv(hostsock, buf, sizeof buf, MSG_DONTWAIT) < 0); /* nothing came in */
    close(mine);
    close(sender);
    close(hostsock);
    /* allow_network: the documented exception, the host's network */
    net_run m = {fx, cmd, PATHGATE_EXEC_OPTIONS_INIT, unprivileged, {0}};
    m.opts.allow_network = 1;
    m.opts.timeout_ms = 30000;
    unlink(marker);
    run_as(&m.o, fx, cmd, &m.opts, unprivileged);
    assert_ran(&m.o);
    assert_non_null(strstr(m.o.out, "host port reached\n"));
    assert_false(m.o.protections & PATHGATE_EXEC_PROT_NETWORK_NAMESPACE);
    close(tcp);
    unlink(marker);
    root_remove(fx, "net.py");
}

static void test_f4_network_namespace_root(void **state)
{
    network_isolated(state, 0, 0);
}

static void test_f4_network_namespace_unprivileged(void **state)
{
    network_isolated(state, 1, 0);
}

static void test_f4_network_namespace_landlock_abi_5(void **state)
{
    network_isolated(state, 0, 5);
    network_isolated(state, 1, 5);
}

/* 6. No core file: RLIMIT_CORE is 0 and cannot be raised. */
static void no_core(void **state, int unprivileged)
{
    NEED_FIXTURE(fx);
    outcome o;
    run_as(&o, fx,
           "ulimit -c; ulimit -H -c; ulimit -c unlimited 2>/dev/null && echo raised; "
           "sh -c 'kill -SEGV $$'; ls core* 2>/dev/null; echo end",
           NULL, unprivileged);
    assert_ran(&o);
    assert_int_equal(strncmp(o.out, "0\n0\n", 4), 0); /* soft and hard */
    assert_null(strstr(o.out, "raised"));
    assert_null(strstr(o.out, "core"));
    assert_non_null(strstr(o.out, "end\n"));
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/core", fx->root);
    assert_int_not_equal(access(p, F_OK), 0);
}

static void test_f6_no_core_root(void **state)
{
    no_core(state, 0);
}

static void test_f6_no_core_unprivileged(void **state)
{
    no_core(state, 1);
}

/* 7. No kernel setting is written (pid_max stays the kernel's in the
 * command's PID namespace, and the host's is untouched); processes are
 * counted by the pids cgroup where one can be had. */
static void no_kernel_setting(void **state, int unprivileged)
{
    NEED_FIXTURE(fx);
    char before[64], after[64];
    read_text("/proc/sys/kernel/pid_max", before, sizeof before);
    pathgate_exec_options opts = PATHGATE_EXEC_OPTIONS_INIT;
    /* /proc is not granted by Landlock: this test reads it without */
    opts.flags = PATHGATE_EXEC_TEST_NO_LANDLOCK;
    opts.allow_unconfined = 1;
    opts.max_processes = 20;
    outcome o;
    run_as(&o, fx, "cat /proc/sys/kernel/pid_max", &opts, unprivileged);
    assert_ran(&o);
    read_text("/proc/sys/kernel/pid_max", after, sizeof after);
    assert_string_equal(before, after);
    assert_true(o.protections & PATHGATE_EXEC_PROT_NAMESPACES);
    /* the command's own pid_max: the value a new PID namespace gets */
    assert_int_not_equal(atoi(o.out), 320);
    if (!unprivileged)
        assert_true(o.protections & PATHGATE_EXEC_PROT_PID_LIMIT);
    else
        assert_false(o.protections & PATHGATE_EXEC_PROT_PID_LIMIT);
}

static void test_f7_no_kernel_setting_root(void **state)
{
    no_kernel_setting(state, 0);
}

static void test_f7_no_kernel_setting_unprivileged(void **state)
{
    no_kernel_setting(state, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outside_mode_time_xattr_unchanged_root),
        cmocka_unit_test(test_outside_mode_time_xattr_unchanged_unprivileged),
        cmocka_unit_test(test_no_setuid_file_root),
        cmocka_unit_test(test_no_setuid_file_unprivileged),
        cmocka_unit_test(test_bases_are_nosuid),
        cmocka_unit_test(test_host_keyring_and_sysv_unreachable),
        cmocka_unit_test(test_abi_below_minimum_is_refused_without_namespaces),
        cmocka_unit_test(test_abi_2_with_namespaces_truncate_kill_prlimit),
        cmocka_unit_test(test_outside_cannot_be_probed_and_no_host_path_shows),
        cmocka_unit_test(test_fork_bomb_ends_and_leaves_nothing),
        cmocka_unit_test(test_memory_hog_and_endless_writers_end),
        cmocka_unit_test(test_nested_read_only_base_stays_unwritten),
        cmocka_unit_test(test_root_command_runs_as_unprivileged_uid),
        cmocka_unit_test(test_root_base_files_stay_roots),
        cmocka_unit_test(test_host_sees_no_uid_0_process),
        cmocka_unit_test(test_no_idmap_refused_unless_allowed),
        cmocka_unit_test(test_unprivileged_caller_keeps_its_uid),
        cmocka_unit_test(test_f1_nested_base_moved_root),
        cmocka_unit_test(test_f1_nested_base_moved_unprivileged),
        cmocka_unit_test(test_f2_memory_bounded_root),
        cmocka_unit_test(test_f2_memory_bounded_unprivileged),
        cmocka_unit_test(test_f3_tmpfs_inodes_bounded_root),
        cmocka_unit_test(test_f3_tmpfs_inodes_bounded_unprivileged),
        cmocka_unit_test(test_f4_network_namespace_root),
        cmocka_unit_test(test_f4_network_namespace_unprivileged),
        cmocka_unit_test(test_f4_network_namespace_landlock_abi_5),
        cmocka_unit_test(test_f6_no_core_root),
        cmocka_unit_test(test_f6_no_core_unprivileged),
        cmocka_unit_test(test_f7_no_kernel_setting_root),
        cmocka_unit_test(test_f7_no_kernel_setting_unprivileged),
    };
    return cmocka_run_group_tests_name("exec_findings", tests, setup, teardown);
}
