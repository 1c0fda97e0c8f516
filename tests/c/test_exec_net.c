/* test_exec_net.c - allow_domains end to end (docs/exec.md "Network"):
 * a command reaches a listed name through the proxy (HTTP and SOCKS5h,
 * by the variables pathgate sets), every other name, an unlisted IP and
 * an unlisted host loopback service are refused, a direct connection
 * has no route, and every decision is an audit event of the resolver.
 * Servers on 127.0.0.1 only; `localhost` (the host's /etc/hosts) is the
 * name, as this machine has no DNS. Needs curl (scripts/setup.sh).
 * Under ThreadSanitizer too (two threads run commands at once). */
/* ctest-labels: threads */
#define _GNU_SOURCE
#include "support.h"

#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netproxy_fixture.h"

#define MAX_EVENTS 64

typedef struct audit_log {
    pthread_mutex_t lock;
    size_t n;                  /* network decisions, in ev */
    size_t commands;           /* the commands' own events (start, end) */
    size_t reported;           /* network decisions, all of them (n stops at MAX_EVENTS) */
    size_t suppressed;         /* "suppressed" events (not in ev) */
    uint64_t suppressed_sum;   /* and the sum of their counts */
    int suppressed_last;       /* the last event was a "suppressed" one */
    int suppressed_before_end; /* and the command's end came right after it */
    struct {
        char operation[32], address[300], outcome[16], reason[32], rule[300], ip[64], source[32];
    } ev[MAX_EVENTS];
} audit_log;

static void copy(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s ? s : "");
}

static void on_audit(const pathgate_audit_event *e, void *ctx)
{
    audit_log *l = ctx;
    pthread_mutex_lock(&l->lock);
    if (strcmp(e->operation, "execute") == 0 && strcmp(e->outcome, "exited") == 0)
        l->suppressed_before_end = l->suppressed_last;
    l->suppressed_last = strcmp(e->outcome, "suppressed") == 0;
    if (strcmp(e->operation, "execute") == 0) {
        l->commands++; /* the command's own start and end (docs/policy.md) */
    } else if (strcmp(e->outcome, "suppressed") == 0) {
        assert_string_equal(e->operation, "network");
        assert_null(e->address);
        l->suppressed++;
        l->suppressed_sum += e->count;
    } else if (l->reported++, l->n < MAX_EVENTS) {
        copy(l->ev[l->n].operation, sizeof l->ev[0].operation, e->operation);
        copy(l->ev[l->n].address, sizeof l->ev[0].address, e->address);
        copy(l->ev[l->n].outcome, sizeof l->ev[0].outcome, e->outcome);
        copy(l->ev[l->n].reason, sizeof l->ev[0].reason, e->reason);
        copy(l->ev[l->n].rule, sizeof l->ev[0].rule, e->rule);
        copy(l->ev[l->n].ip, sizeof l->ev[0].ip, e->ip);
        copy(l->ev[l->n].source, sizeof l->ev[0].source, e->source);
        l->n++;
    }
    pthread_mutex_unlock(&l->lock);
}

/* The index of the event with this address, or -1. */
static int find_event(audit_log *l, const char *address)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->ev[i].address, address) == 0)
            return (int)i;
    return -1;
}

typedef struct fixture {
    char *tmp;
    pathgate_resolver *r;
    audit_log log;
    np_server srv, other; /* srv is listed, other is not */
} fixture;

static int have_curl(void)
{
    return access("/usr/bin/curl", X_OK) == 0;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    pthread_mutex_init(&f->log.lock, NULL);
    f->tmp = pg_tmpdir_make();
    assert_non_null(f->tmp);
    char repo[600];
    snprintf(repo, sizeof repo, "%s/repo", f->tmp);
    assert_int_equal(mkdir(repo, 0755), 0);
    pathgate_base_spec roots[1] = {{"repo", 4, repo, strlen(repo), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    o.audit = on_audit;
    o.audit_ctx = &f->log;
    /* (libc's allocator: the proxy's threads allocate, and cmocka's
     * allocator is not thread-safe) */
    assert_int_equal(pathgate_resolver_new(&f->r, &o, NULL), 0);
    assert_int_equal(np_server_start(&f->srv, AF_INET), 0);
    assert_int_equal(np_server_start(&f->other, AF_INET), 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    np_server_stop(&f->srv);
    np_server_stop(&f->other);
    pathgate_resolver_free(f->r);
    pg_tmpdir_remove(f->tmp);
    pthread_mutex_destroy(&f->log.lock);
    free(f);
    return 0;
}

static int can_run(void)
{
    return pathgate_exec_landlock_abi() >= 1 && have_curl();
}

/* Runs cmd with allow_domains = list; returns the exit code, output in
 * out (NUL-terminated). */
static int run(fixture *f, const char *const *list, const char *cmd, char *out, size_t cap,
               unsigned int *prot)
{
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.allow_domains = list;
    o.timeout_ms = 30000;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    int rc = pathgate_exec_run(&res, f->r, cmd, strlen(cmd), &o, &err);
    if (rc)
        print_error("exec: %s\n", err.message);
    assert_int_equal(rc, 0);
    snprintf(out, cap, "%.*s", (int)res.output.len, res.output.ptr ? res.output.ptr : "");
    if (prot)
        *prot = res.protections;
    int code = res.exit_code;
    pathgate_exec_result_dispose(&res);
    return code;
}

static int threads_now(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    if (d)
        closedir(d);
    return n;
}

/* A listed name is reached through HTTP_PROXY (plain HTTP) and through
 * ALL_PROXY (socks5h), both seen by the server, both audited with the
 * rule and the address connected to. */
static void test_listed_name_is_reached(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    char e1[64], e2[64], cmd[1024], out[8192];
    snprintf(e1, sizeof e1, "localhost:%u", f->srv.port);
    snprintf(e2, sizeof e2, "127.0.0.1:%u", f->srv.port);
    const char *list[] = {e1, e2, NULL};
    int threads = threads_now();
    /* --noproxy '': NO_PROXY keeps localhost for the command's own
     * loopback services; here the name is the host's, through the proxy */
    snprintf(cmd, sizeof cmd,
             "echo \"$HTTP_PROXY $HTTPS_PROXY $ALL_PROXY $NO_PROXY $http_proxy\"; "
             "curl -sS --noproxy '' http://localhost:%u/via-http && "
             "curl -sS --noproxy '' -x \"$ALL_PROXY\" http://localhost:%u/via-socks",
             f->srv.port, f->srv.port);
    unsigned int prot = 0;
    int code = run(f, list, cmd, out, sizeof out, &prot);
    assert_int_equal(code, 0);
    assert_non_null(strstr(out, "http://127.0.0.1:3128 http://127.0.0.1:3128 "
                                "socks5h://127.0.0.1:3128 localhost,127.0.0.1,::1 "
                                "http://127.0.0.1:3128\n"));
    assert_non_null(strstr(out, "GET /via-http HTTP/1.1"));
    assert_non_null(strstr(out, "GET /via-socks HTTP/1.1"));
    assert_int_equal(np_server_connections(&f->srv), 2);
    assert_true(prot & PATHGATE_EXEC_PROT_NETWORK_ALLOWLIST);
    assert_true(prot & PATHGATE_EXEC_PROT_NETWORK_NAMESPACE);
    assert_int_equal(f->log.n, 2);
    assert_int_equal(f->log.commands, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(f->log.ev[i].address, e1);
        assert_string_equal(f->log.ev[i].outcome, "allowed");
        assert_string_equal(f->log.ev[i].rule, e1);
        assert_string_equal(f->log.ev[i].source, "allow_domains");
        assert_string_equal(f->log.ev[i].ip, "127.0.0.1");
    }
    assert_true(strcmp(f->log.ev[0].operation, "http") == 0 ||
                strcmp(f->log.ev[1].operation, "http") == 0);
    assert_true(strcmp(f->log.ev[0].operation, "socks5") == 0 ||
                strcmp(f->log.ev[1].operation, "socks5") == 0);
    /* the proxy is gone with the call: no thread left */
    assert_int_equal(threads_now(), threads);
}

/* Every other name, an unlisted IP literal and an unlisted host loopback
 * service are refused by the proxy (403, an event each), and nothing
 * reaches the unlisted server. */
static void test_everything_else_is_refused(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    char e2[64], cmd[2048], out[8192], a[64];
    snprintf(e2, sizeof e2, "127.0.0.1:%u", f->srv.port);
    const char *list[] = {"localhost", e2, NULL};
    snprintf(cmd, sizeof cmd,
             "for u in http://other.example/ http://10.1.2.3:%u/ http://localhost:%u/ "
             "http://127.0.0.1:%u/; do "
             "curl -s --noproxy '' -o /dev/null -w '%%{http_code} ' \"$u\"; done; "
             "curl -s --noproxy '' -x \"$ALL_PROXY\" http://localhost:%u/ >/dev/null; "
             "echo socks=$?",
             f->other.port, f->other.port, f->other.port, f->other.port);
    int code = run(f, list, cmd, out, sizeof out, NULL);
    assert_int_equal(code, 0);
    assert_non_null(strstr(out, "403 403 403 403 socks=97"));
    assert_int_equal(np_server_connections(&f->other), 0);
    int i = find_event(&f->log, "other.example:80");
    assert_true(i >= 0);
    assert_string_equal(f->log.ev[i].outcome, "denied");
    assert_string_equal(f->log.ev[i].reason, "not_listed");
    snprintf(a, sizeof a, "10.1.2.3:%u", f->other.port);
    assert_true((i = find_event(&f->log, a)) >= 0);
    assert_string_equal(f->log.ev[i].reason, "not_listed");
    /* the name is listed, the loopback address it resolves to is not for
     * this port: the host's service stays out of reach */
    snprintf(a, sizeof a, "localhost:%u", f->other.port);
    assert_true((i = find_event(&f->log, a)) >= 0);
    assert_string_equal(f->log.ev[i].outcome, "denied");
    assert_string_equal(f->log.ev[i].reason, "private_address");
    assert_string_equal(f->log.ev[i].ip, "127.0.0.1");
    snprintf(a, sizeof a, "127.0.0.1:%u", f->other.port);
    assert_true((i = find_event(&f->log, a)) >= 0);
    assert_string_equal(f->log.ev[i].reason, "not_listed");
    assert_int_equal(f->log.n, 5);
}

/* Around the proxy there is no way out: no route to another address, the
 * host's loopback services are not in the command's namespace. */
static void test_direct_connection_has_no_route(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    char e1[64], cmd[1024], out[8192];
    snprintf(e1, sizeof e1, "127.0.0.1:%u", f->srv.port);
    const char *list[] = {e1, NULL};
    snprintf(cmd, sizeof cmd,
             "curl -s --noproxy '*' --connect-timeout 5 http://127.0.0.1:%u/; echo loop=$?; "
             "curl -s --noproxy '*' --connect-timeout 5 http://192.0.2.1/; echo out=$?",
             f->srv.port);
    int code = run(f, list, cmd, out, sizeof out, NULL);
    assert_int_equal(code, 0);
    /* 7: could not connect (refused on its own loopback; unreachable) */
    assert_non_null(strstr(out, "loop=7\n"));
    assert_non_null(strstr(out, "out=7\n"));
    assert_int_equal(np_server_connections(&f->srv), 0);
    assert_int_equal(f->log.n, 0); /* nothing asked the proxy */
}

/* The options: allow_network with allow_domains, a malformed entry;
 * version 3 (without the field) still runs; the caller's env wins. */
static void test_options(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    const char *list[] = {"example.com", NULL};
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    o.allow_domains = list;
    o.allow_network = 1;
    assert_int_equal(pathgate_exec_run(&res, f->r, PG_S("true"), &o, &err), PATHGATE_EINVAL);
    assert_non_null(strstr(err.message, "allow_network"));
    const char *bad[] = {"ok.example", "*", NULL};
    o.allow_network = 0;
    o.allow_domains = bad;
    assert_int_equal(pathgate_exec_run(&res, f->r, PG_S("true"), &o, &err), PATHGATE_EINVAL);
    assert_non_null(strstr(err.message, "\"*\""));
    /* version 3: allow_domains is not read (garbage there is ignored) */
    o.version = 3;
    o.allow_domains = (const char *const *)(uintptr_t)1;
    assert_int_equal(pathgate_exec_run(&res, f->r, PG_S("echo [$HTTP_PROXY]"), &o, &err), 0);
    assert_non_null(strstr(res.output.ptr, "[]"));
    assert_false(res.protections & PATHGATE_EXEC_PROT_NETWORK_ALLOWLIST);
    pathgate_exec_result_dispose(&res);
    /* the caller's own variables replace pathgate's */
    o = (pathgate_exec_options)PATHGATE_EXEC_OPTIONS_INIT;
    const char *env[] = {"NO_PROXY=*", NULL};
    o.allow_domains = list;
    o.env = env;
    assert_int_equal(pathgate_exec_run(&res, f->r, PG_S("echo \"$NO_PROXY|$no_proxy\""), &o, &err),
                     0);
    assert_non_null(strstr(res.output.ptr, "*|localhost,127.0.0.1,::1"));
    pathgate_exec_result_dispose(&res);
    pathgate_exec_options init;
    assert_int_equal(pathgate_exec_options_init(&init, PATHGATE_EXEC_OPTIONS_VERSION), 0);
    assert_null(init.allow_domains);
}

/* Without a network namespace of its own (as without namespaces), the
 * allowlist is refused even with allow_unconfined: never widened to the
 * host's network. */
static void test_refused_without_namespace(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    const char *list[] = {"example.com", NULL};
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    o.allow_domains = list;
    o.allow_unconfined = 1;
    o.flags = PATHGATE_EXEC_TEST_NO_NAMESPACES;
    assert_int_equal(pathgate_exec_run(&res, f->r, PG_S("true"), &o, &err), PATHGATE_EUNSUPPORTED);
    assert_non_null(strstr(err.message, "allow_domains"));
}

/* Commands with and without the allowlist alternate on one resolver
 * (the start made ahead is kept for the plain ones). */
static void test_alternating(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    char e1[64], e2[64], cmd[512], out[4096];
    snprintf(e1, sizeof e1, "localhost:%u", f->srv.port);
    snprintf(e2, sizeof e2, "127.0.0.1:%u", f->srv.port);
    const char *list[] = {e1, e2, NULL};
    snprintf(cmd, sizeof cmd, "curl -s --noproxy '' -o /dev/null -w '%%{http_code}' http://%s/",
             e1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(run(f, list, cmd, out, sizeof out, NULL), 0);
        assert_string_equal(out, "200");
        assert_int_equal(run(f, NULL, "echo \"[$HTTP_PROXY]\"", out, sizeof out, NULL), 0);
        assert_string_equal(out, "[]\n");
        assert_int_equal(run(f, NULL, cmd, out, sizeof out, NULL), 7);
    }
    assert_int_equal(np_server_connections(&f->srv), 3);
}

/* The proxy's socket is nowhere in the view (passed to the bridge by
 * descriptor); a command killed by its timeout ends with its bridge and
 * proxy, and the next one works. */
static void test_socket_not_in_view_and_timeout(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    char e1[64], e2[64], cmd[512], out[4096];
    snprintf(e1, sizeof e1, "localhost:%u", f->srv.port);
    snprintf(e2, sizeof e2, "127.0.0.1:%u", f->srv.port);
    const char *list[] = {e1, e2, NULL};
    assert_int_equal(run(f, list,
                         "find / -name 'proxy.sock' 2>/dev/null | wc -l; "
                         "find / -name 'pathgate-net-*' 2>/dev/null | wc -l; ls /run 2>&1 | wc -l",
                         out, sizeof out, NULL),
                     0);
    assert_string_equal(out, "0\n0\n1\n"); /* (no /run at all: ls's one error line) */
    int threads = threads_now();
    pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
    o.allow_domains = list;
    o.timeout_ms = 3000; /* (curl through the proxy first: a loaded TSan run took > 500 ms) */
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err;
    snprintf(cmd, sizeof cmd,
             "curl -s --noproxy '' -o /dev/null http://%s/ && echo reached; sleep 30", e1);
    assert_int_equal(pathgate_exec_run(&res, f->r, cmd, strlen(cmd), &o, &err), 0);
    assert_true(res.timed_out);
    assert_non_null(strstr(res.output.ptr, "reached"));
    pathgate_exec_result_dispose(&res);
    assert_int_equal(threads_now(), threads);
    snprintf(cmd, sizeof cmd, "curl -s --noproxy '' -o /dev/null -w '%%{http_code}' http://%s/",
             e1);
    assert_int_equal(run(f, list, cmd, out, sizeof out, NULL), 0);
    assert_string_equal(out, "200");
}

/* Two threads run commands with allow_domains on one resolver at once:
 * each has its own proxy and bridge (the same port in two namespaces),
 * every request is served and audited, nothing is left. */
typedef struct worker {
    fixture *f;
    int ok;
} worker;

static void *worker_main(void *p)
{
    worker *w = p;
    char e1[64], e2[64], cmd[512];
    snprintf(e1, sizeof e1, "localhost:%u", w->f->srv.port);
    snprintf(e2, sizeof e2, "127.0.0.1:%u", w->f->srv.port);
    const char *list[] = {e1, e2, NULL};
    snprintf(cmd, sizeof cmd,
             "for i in 1 2 3; do curl -s --noproxy '' -o /dev/null -w '%%{http_code}' "
             "http://%s/; done",
             e1);
    for (int i = 0; i < 4; i++) {
        pathgate_exec_options o = PATHGATE_EXEC_OPTIONS_INIT;
        o.allow_domains = list;
        o.timeout_ms = 30000;
        pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
        pathgate_error err;
        if (pathgate_exec_run(&res, w->f->r, cmd, strlen(cmd), &o, &err) == 0 &&
            res.exit_code == 0 && res.output.len == 9 &&
            memcmp(res.output.ptr, "200200200", 9) == 0)
            w->ok++;
        pathgate_exec_result_dispose(&res);
    }
    return NULL;
}

static void test_concurrent_commands(void **state)
{
    fixture *f = *state;
    if (!can_run())
        skip();
    int threads = threads_now();
    worker w[2] = {{f, 0}, {f, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(w[0].ok, 4);
    assert_int_equal(w[1].ok, 4);
    assert_int_equal(np_server_connections(&f->srv), 24);
    /* each call: its first request reported, the two repeats counted */
    assert_int_equal(f->log.n, 8);
    for (size_t i = 0; i < f->log.n; i++)
        assert_string_equal(f->log.ev[i].outcome, "allowed");
    assert_int_equal(f->log.suppressed, 8);
    assert_int_equal(f->log.suppressed_sum, 16);
    assert_int_equal(threads_now(), threads);
}

/* Finding 6 of issue 33 (an audit flood): one command that opens many
 * connections to the proxy makes at most the budget's events plus one
 * "suppressed" event that counts every decision not reported. Repeats of
 * a decision already reported in the call (the same host, the same
 * answer) are counted, not reported, also below the budget. */
#define NET_AUDIT_BUDGET 64 /* docs/policy.md, "Network allowlist", "Audit" */

static const char flood[] =
    "/usr/bin/python3 -c \"$(cat <<'EOF'\n"
    "import socket, sys\n"
    "def ask(host):\n"
    "    s = socket.create_connection(('127.0.0.1', 3128))\n"
    "    s.sendall(b'GET http://%s/ HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n' % (host, host))\n"
    "    ans = s.recv(100); s.close(); return ans.split(b' ')[1]\n"
    "codes = set()\n"
    "for i in range(int(sys.argv[1])): codes.add(ask(b'h%d.example' % i))\n"
    "for i in range(int(sys.argv[2])): codes.add(ask(b'h0.example'))\n"
    "print(sorted(codes))\n"
    "EOF\n"
    ")\"";

static void run_flood(fixture *f, int distinct, int repeats)
{
    char e1[64], cmd[1024], out[4096];
    snprintf(e1, sizeof e1, "localhost:%u", f->srv.port);
    const char *list[] = {e1, NULL};
    snprintf(cmd, sizeof cmd, "%s %d %d", flood, distinct, repeats);
    assert_int_equal(run(f, list, cmd, out, sizeof out, NULL), 0);
    /* the command's own line, then the result's note of the refusals
     * (docs/exec.md "What a result says") */
    assert_memory_equal(out, "[b'403']\n", 9);
    assert_non_null(strstr(out + 9, "pathgate: the network allowlist refused: h0.example:80"));
}

static void test_audit_flood_is_bounded(void **state)
{
    fixture *f = *state;
    if (!can_run() || access("/usr/bin/python3", X_OK) != 0)
        skip();
    /* 150 hosts, then 100 more requests for the first: 250 decisions */
    run_flood(f, 150, 100);
    assert_int_equal(f->log.reported, NET_AUDIT_BUDGET);
    assert_int_equal(f->log.suppressed, 1);
    assert_int_equal(f->log.suppressed_sum, 250 - NET_AUDIT_BUDGET);
    assert_int_equal(f->log.commands, 2);      /* its start and its end */
    assert_true(f->log.suppressed_before_end); /* the last before the command's end */
    for (size_t i = 0; i < f->log.n; i++) {
        char want[64];
        snprintf(want, sizeof want, "h%zu.example:80", i);
        assert_string_equal(f->log.ev[i].address, want);
        assert_string_equal(f->log.ev[i].reason, "not_listed");
    }
    /* the next call has a budget of its own; below it, repeats only are
     * counted */
    memset(&f->log.n, 0, sizeof f->log - offsetof(audit_log, n));
    run_flood(f, 3, 10);
    assert_int_equal(f->log.reported, 3);
    assert_int_equal(f->log.suppressed, 1);
    assert_int_equal(f->log.suppressed_sum, 10);
    /* and a call with nothing to suppress makes no such event */
    memset(&f->log.n, 0, sizeof f->log - offsetof(audit_log, n));
    run_flood(f, 5, 0);
    assert_int_equal(f->log.reported, 5);
    assert_int_equal(f->log.suppressed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_listed_name_is_reached, setup, teardown),
        cmocka_unit_test_setup_teardown(test_everything_else_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_direct_connection_has_no_route, setup, teardown),
        cmocka_unit_test_setup_teardown(test_options, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_without_namespace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_alternating, setup, teardown),
        cmocka_unit_test_setup_teardown(test_audit_flood_is_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_commands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_socket_not_in_view_and_timeout, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
