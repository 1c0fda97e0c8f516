/* test_netproxy.c - the network allowlist's proxy (core/src/net/netproxy*.c):
 * the allow_domains entries and their matching, the address ranges, and
 * the proxy itself on its Unix socket: an allowed name reached through
 * CONNECT, plain HTTP and SOCKS5; every other name, unlisted IP literals,
 * names resolving to loopback or private addresses and the host's own
 * loopback services refused (and never contacted); malformed requests,
 * oversized heads, slow and silent clients, too many connections, a stop
 * with connections open; one audit event per decision. Servers listen on
 * 127.0.0.1 / ::1 only; names resolve through the test hook. */
#define _GNU_SOURCE
#include "support.h"

#include <sys/stat.h>

#include "netproxy_fixture.h"

/* ------------------------------------------------------------ allowlist */

static pathgate__netproxy_allow *compile(const char *const *entries, size_t n)
{
    pathgate__netproxy_allow *a = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate__netproxy_allow_compile(&a, pg_test_alloc(), entries, n, &err);
    if (rc)
        fail_msg("compile: %s", err.message);
    return a;
}

static void test_allow_entries_valid(void **state)
{
    (void)state;
    const char *ok[] = {"example.com",          "Example.COM.",  "*.example.com", "example.com:443",
                        "*.example.com:8443",   "a-b_c.d9.io",   "192.0.2.7",     "192.0.2.7:80",
                        "2001:db8::1",          "[2001:db8::1]", "[::1]:8080",    "::ffff:10.0.0.1",
                        "xn--bcher-kva.example"};
    size_t n = sizeof ok / sizeof ok[0];
    pathgate__netproxy_allow *a = compile(ok, n);
    assert_non_null(a);
    assert_int_equal(pathgate__netproxy_allow_count(a), n);
    pathgate__netproxy_allow_free(a);
    /* an empty list is valid: it allows nothing */
    a = compile(NULL, 0);
    assert_int_equal(pathgate__netproxy_allow_count(a), 0);
    pathgate__netproxy_allow_free(a);
    pathgate__netproxy_allow_free(NULL);
}

static void test_allow_entries_invalid(void **state)
{
    (void)state;
    const char *bad[] = {"",
                         "*",
                         "*.",
                         "a.*.com",
                         "*example.com",
                         "example.com:",
                         "example.com:0",
                         "example.com:65536",
                         "example.com:80x",
                         "example.com:+80",
                         "http://example.com",
                         "example.com/path",
                         "exa mple.com",
                         "a..b",
                         ".example.com",
                         "127.1",
                         "2130706433",
                         "1.2.3.4.5",
                         "[192.0.2.1]",
                         "[2001:db8::1",
                         "[2001:db8::1]x",
                         "2001:db8::1:80x",
                         "fe80::1%eth0",
                         "user@example.com",
                         "*.192.0.2.1",
                         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pathgate__netproxy_allow *a = NULL;
        pathgate_error err = PATHGATE_ERROR_INIT;
        int rc = pathgate__netproxy_allow_compile(&a, pg_test_alloc(), &bad[i], 1, &err);
        if (rc != PATHGATE_EINVAL)
            fail_msg("entry \"%s\" was accepted", bad[i]);
        assert_null(a);
        char quoted[400];
        snprintf(quoted, sizeof quoted, "\"%s\"", bad[i]);
        if (strlen(bad[i]) <= 80 && !strstr(err.message, quoted))
            fail_msg("message does not quote the entry: %s", err.message);
    }
    /* the second entry is the bad one; not printable: named by index */
    const char *two[] = {"ok.example", "bad\x01name"};
    pathgate__netproxy_allow *a = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate__netproxy_allow_compile(&a, pg_test_alloc(), two, 2, &err),
                     PATHGATE_EINVAL);
    assert_non_null(strstr(err.message, "entry 2"));
    /* a NULL entry */
    const char *null_entry[] = {NULL};
    assert_int_equal(pathgate__netproxy_allow_compile(&a, pg_test_alloc(), null_entry, 1, &err),
                     PATHGATE_EINVAL);
    /* a 64-character label */
    char long_label[80];
    memset(long_label, 'a', 64);
    memcpy(long_label + 64, ".io", 4);
    const char *ll[] = {long_label};
    assert_int_equal(pathgate__netproxy_allow_compile(&a, pg_test_alloc(), ll, 1, &err),
                     PATHGATE_EINVAL);
    memcpy(long_label + 63, ".io", 4); /* 63 is fine */
    pathgate__netproxy_allow_free(compile(ll, 1));
}

static int compile_body(const pathgate_allocator *alloc, void *ctx)
{
    (void)ctx;
    const char *e[] = {"a.example", "*.b.example:443", "192.0.2.1", "[::1]:80"};
    pathgate__netproxy_allow *a = NULL;
    int rc = pathgate__netproxy_allow_compile(&a, alloc, e, 4, NULL);
    pathgate__netproxy_allow_free(a);
    return rc;
}

/* The public check a front end calls for a configuration loaded before
 * its first command: the same verdicts as the compile, nothing kept. */
static void test_public_check_allow_domains(void **state)
{
    (void)state;
    const char *good[] = {"a.example", "*.b.example:443", "192.0.2.1", "[::1]:80"};
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate_exec_check_allow_domains(good, 4, &err), 0);
    assert_int_equal(pathgate_exec_check_allow_domains(NULL, 0, &err), 0);
    const char *two[] = {"ok.example", "user@example.com"};
    assert_int_equal(pathgate_exec_check_allow_domains(two, 2, &err), PATHGATE_EINVAL);
    assert_int_equal(err.code, PATHGATE_EINVAL);
    assert_non_null(strstr(err.message, "\"user@example.com\""));
    const char *null_entry[] = {NULL};
    assert_int_equal(pathgate_exec_check_allow_domains(null_entry, 1, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate_exec_check_allow_domains(NULL, 1, &err), PATHGATE_EINVAL);
}

static void test_allow_compile_out_of_memory(void **state)
{
    (void)state;
    assert_true(pg_for_each_failing_alloc(compile_body, NULL) > 0);
}

static const char *match_name(const pathgate__netproxy_allow *a, const char *host, unsigned port)
{
    char canon[NP_HOST_MAX + 1];
    pathgate__net_addr lit;
    int is_lit = 0;
    if (pathgate__np_host_parse(canon, &lit, &is_lit, host, strlen(host)) != 0)
        return "(malformed)";
    return pathgate__np_allow_match(a, canon, is_lit ? &lit : NULL, port);
}

static void test_allow_match(void **state)
{
    (void)state;
    const char *e[] = {"exact.test",  "*.wild.test",       "port.test:8443", "192.0.2.7:80",
                       "2001:db8::5", "[2001:db8::6]:443", "10.0.0.1"};
    pathgate__netproxy_allow *a = compile(e, sizeof e / sizeof e[0]);
    assert_string_equal(match_name(a, "exact.test", 443), "exact.test");
    assert_string_equal(match_name(a, "EXACT.Test.", 1), "exact.test");
    assert_null(match_name(a, "sub.exact.test", 443));
    assert_null(match_name(a, "exact.test.evil", 443));
    assert_null(match_name(a, "notexact.test", 443));
    assert_string_equal(match_name(a, "a.wild.test", 443), "*.wild.test");
    assert_string_equal(match_name(a, "a.b.wild.test", 80), "*.wild.test");
    assert_null(match_name(a, "wild.test", 443)); /* the wildcard is below the name */
    assert_null(match_name(a, "xwild.test", 443));
    assert_null(match_name(a, "wild.test.evil", 443));
    assert_string_equal(match_name(a, "port.test", 8443), "port.test:8443");
    assert_null(match_name(a, "port.test", 443));
    assert_string_equal(match_name(a, "192.0.2.7", 80), "192.0.2.7:80");
    assert_null(match_name(a, "192.0.2.7", 81));
    assert_null(match_name(a, "192.0.2.8", 80));
    assert_string_equal(match_name(a, "::ffff:192.0.2.7", 80), "192.0.2.7:80"); /* mapped */
    assert_string_equal(match_name(a, "2001:DB8:0::5", 1), "2001:db8::5");
    assert_string_equal(match_name(a, "2001:db8::6", 443), "[2001:db8::6]:443");
    assert_null(match_name(a, "2001:db8::6", 80));
    assert_string_equal(match_name(a, "10.0.0.1", 22), "10.0.0.1");
    /* malformed request hosts */
    assert_string_equal(match_name(a, "127.1", 80), "(malformed)");
    assert_string_equal(match_name(a, "0x7f.0.0.1", 80), "(malformed)");
    assert_string_equal(match_name(a, "exact.test/x", 80), "(malformed)");
    assert_string_equal(match_name(a, "", 80), "(malformed)");
    pathgate__netproxy_allow_free(a);
    /* no list: nothing matches */
    assert_null(match_name(NULL, "exact.test", 80));
}

static int internal(const char *text)
{
    pathgate__net_addr a;
    memset(&a, 0, sizeof a);
    if (inet_pton(AF_INET, text, a.bytes) == 1)
        a.family = AF_INET;
    else if (inet_pton(AF_INET6, text, a.bytes) == 1)
        a.family = AF_INET6;
    else
        fail_msg("bad test address %s", text);
    return pathgate__net_addr_is_internal(&a);
}

static void test_internal_ranges(void **state)
{
    (void)state;
    const char *yes[] = {"0.0.0.0",
                         "0.1.2.3",
                         "10.0.0.1",
                         "10.255.255.255",
                         "100.64.0.1",
                         "100.127.255.254",
                         "127.0.0.1",
                         "127.255.0.9",
                         "169.254.169.254",
                         "172.16.0.1",
                         "172.31.255.255",
                         "192.168.1.1",
                         "192.0.0.8",
                         "192.0.2.1",
                         "198.18.0.1",
                         "198.19.255.255",
                         "198.51.100.1",
                         "203.0.113.9",
                         "224.0.0.1",
                         "239.1.1.1",
                         "240.0.0.1",
                         "255.255.255.255",
                         "::",
                         "::1",
                         "::127.0.0.1",
                         "::ffff:127.0.0.1",
                         "::ffff:10.1.1.1",
                         "64:ff9b::a00:1",
                         "64:ff9b:1::1",
                         "100::1",
                         "2001:db8::1",
                         "2002:7f00:1::1",
                         "2002:c0a8:101::1",
                         "fc00::1",
                         "fd12:3456::1",
                         "fe80::1",
                         "febf::1",
                         "fec0::1",
                         "ff02::1"};
    const char *no[] = {"1.1.1.1",          "8.8.8.8",
                        "93.184.216.34",    "100.63.255.255",
                        "100.128.0.1",      "172.15.255.255",
                        "172.32.0.1",       "192.167.1.1",
                        "169.253.1.1",      "198.17.0.1",
                        "198.20.0.1",       "223.255.255.255",
                        "2606:4700::1111",  "2001:4860:4860::8888",
                        "64:ff9b::808:808", "2002:808:808::1",
                        "::ffff:8.8.8.8"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!internal(yes[i]))
            fail_msg("%s should be internal", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        if (internal(no[i]))
            fail_msg("%s should be public", no[i]);
}

/* ---------------------------------------------------------------- proxy */

typedef struct fx {
    np_server web;  /* the allowed service: 127.0.0.1:web.port (listed) */
    np_server web6; /* the same on [::1]:web6.port (listed) */
    np_server host; /* a host loopback service nobody lists */
    np_names names;
    np_events events;
    pathgate__netproxy_allow *allow;
    pathgate__netproxy *px;
    char listed[64], listed6[64], closed[64];
    unsigned int closed_port;
} fx;

/* A port on 127.0.0.1 nothing listens on (bound and closed). */
static unsigned int closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sl), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    close(fd);
    return ntohs(sa.sin_port);
}

static void fx_start_proxy(fx *f, pathgate__netproxy_config *cfg)
{
    cfg->allow = f->allow;
    cfg->audit = np_events_cb;
    cfg->audit_ctx = &f->events;
    cfg->resolve = np_names_resolve;
    cfg->resolve_ctx = &f->names;
    cfg->alloc = pg_test_alloc();
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate__netproxy_start(&f->px, cfg, &err);
    if (rc)
        fail_msg("start: %s", err.message);
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_int_equal(np_server_start(&f->web, AF_INET), 0);
    assert_int_equal(np_server_start(&f->web6, AF_INET6), 0);
    assert_int_equal(np_server_start(&f->host, AF_INET), 0);
    np_events_init(&f->events);
    f->closed_port = closed_port();
    snprintf(f->listed, sizeof f->listed, "127.0.0.1:%u", f->web.port);
    snprintf(f->listed6, sizeof f->listed6, "[::1]:%u", f->web6.port);
    snprintf(f->closed, sizeof f->closed, "127.0.0.1:%u", f->closed_port);
    np_names_add(&f->names, "allowed.test", "127.0.0.1", NULL);
    np_names_add(&f->names, "a.wild.test", "127.0.0.1", NULL);
    np_names_add(&f->names, "wild.test", "127.0.0.1", NULL);
    np_names_add(&f->names, "allowed6.test", "::1", NULL);
    np_names_add(&f->names, "loop.test", "127.0.0.1", NULL);
    np_names_add(&f->names, "ten.test", "10.1.2.3", NULL);
    np_names_add(&f->names, "cgnat.test", "100.64.1.1", NULL);
    np_names_add(&f->names, "linklocal.test", "169.254.169.254", NULL);
    np_names_add(&f->names, "ula.test", "fd00::1", NULL);
    np_names_add(&f->names, "unspec.test", "0.0.0.0", NULL);
    np_names_add(&f->names, "mapped.test", "::ffff:127.0.0.1", NULL);
    np_names_add(&f->names, "mixed.test", "93.184.216.34", "127.0.0.1");
    np_names_add(&f->names, "other.test", "127.0.0.1", NULL);
    np_names_add(&f->names, "localhost", "127.0.0.1", "::1");
    np_names_add(&f->names, "closed.test", "127.0.0.1", NULL);
    const char *entries[] = {"allowed.test", "*.wild.test", "allowed6.test",  "loop.test",
                             "ten.test",     "cgnat.test",  "linklocal.test", "ula.test",
                             "unspec.test",  "mapped.test", "mixed.test",     "nx.test",
                             "closed.test",  f->listed,     f->listed6,       f->closed};
    f->allow = compile(entries, sizeof entries / sizeof entries[0]);
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.header_timeout_ms = 2000;
    cfg.connect_timeout_ms = 2000;
    fx_start_proxy(f, &cfg);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    pathgate__netproxy_stop(f->px);
    pathgate__netproxy_allow_free(f->allow);
    np_server_stop(&f->web);
    np_server_stop(&f->web6);
    np_server_stop(&f->host);
    np_events_destroy(&f->events);
    free(f);
    return 0;
}

/* Restarts the proxy with cfg's limits (the fixture's list and hooks). */
static void fx_restart(fx *f, pathgate__netproxy_config *cfg)
{
    pathgate__netproxy_stop(f->px);
    f->px = NULL;
    fx_start_proxy(f, cfg);
}

static int dial(fx *f)
{
    int fd = np_dial(pathgate__netproxy_socket(f->px));
    assert_true(fd >= 0);
    return fd;
}

/* The event number i (waiting for it), checked. NULL expectations are
 * "absent". */
static const np_event_copy *expect_event(fx *f, size_t i, const char *operation,
                                         const char *address, const char *outcome,
                                         const char *reason)
{
    if (np_events_wait(&f->events, i + 1) < i + 1)
        fail_msg("no event %zu (want %s %s)", i, outcome, reason ? reason : "");
    const np_event_copy *e = &f->events.ev[i];
    assert_string_equal(e->door, "c");
    assert_true(e->time_sec > 1600000000);
    if (operation)
        assert_string_equal(e->operation, operation);
    else
        assert_false(e->has_operation);
    if (address)
        assert_string_equal(e->address, address);
    assert_string_equal(e->outcome, outcome);
    if (reason)
        assert_string_equal(e->reason, reason);
    else
        assert_false(e->has_reason);
    return e;
}

/* What the echo server saw, from an HTTP response read to EOF. */
static const char *body_of(const char *resp)
{
    const char *b = strstr(resp, "\r\n\r\n");
    return b ? b + 4 : "";
}

static void test_connect_allowed_name(void **state)
{
    fx *f = *state;
    int fd = dial(f);
    char req[256], buf[4096];
    snprintf(req, sizeof req, "CONNECT allowed.test:%u HTTP/1.1\r\nHost: allowed.test:%u\r\n\r\n",
             f->web.port, f->web.port);
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_head(fd, buf, sizeof buf);
    assert_string_equal(buf, "HTTP/1.1 200 Connection established\r\n\r\n");
    /* a request through the tunnel reaches the server as sent */
    assert_int_equal(np_send_str(fd, "GET /tunnelled HTTP/1.0\r\nX-T: 1\r\n\r\n"), 0);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    assert_non_null(strstr(buf, "HTTP/1.0 200 OK"));
    assert_string_equal(body_of(buf), "GET /tunnelled HTTP/1.0\r\nX-T: 1\r\n\r\n");
    char addr[64];
    snprintf(addr, sizeof addr, "allowed.test:%u", f->web.port);
    const np_event_copy *e = expect_event(f, 0, "connect", addr, "allowed", NULL);
    assert_string_equal(e->ip, "127.0.0.1");
    assert_string_equal(e->rule, "allowed.test");
    assert_int_equal(np_server_connections(&f->web), 1);
    /* exactly one resolution: the connection went to the checked address */
    assert_int_equal(__atomic_load_n(&f->names.calls, __ATOMIC_SEQ_CST), 1);
    assert_int_equal(np_events_count(&f->events), 1);
}

/* With the host's own resolver (no test hook), "localhost" and names
 * below it are loopback without asking the host's files (RFC 6761): a
 * new machine may have no /etc/hosts. Reached only because both the
 * name and the loopback address are listed. */
static void test_localhost_is_loopback_without_the_hosts_file(void **state)
{
    fx *f = *state;
    char name[64], ip[64], req[256], buf[4096];
    snprintf(name, sizeof name, "sub.localhost:%u", f->web.port);
    snprintf(ip, sizeof ip, "127.0.0.1:%u", f->web.port);
    const char *entries[] = {name, ip};
    pathgate__netproxy_allow *allow = compile(entries, 2);
    np_events ev;
    np_events_init(&ev);
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.allow = allow;
    cfg.audit = np_events_cb;
    cfg.audit_ctx = &ev;
    cfg.alloc = pg_test_alloc();
    pathgate__netproxy *px = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate__netproxy_start(&px, &cfg, &err), 0);
    int fd = np_dial(pathgate__netproxy_socket(px));
    assert_true(fd >= 0);
    snprintf(req, sizeof req, "CONNECT SUB.LocalHost:%u HTTP/1.1\r\n\r\n", f->web.port);
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_head(fd, buf, sizeof buf);
    close(fd);
    assert_string_equal(buf, "HTTP/1.1 200 Connection established\r\n\r\n");
    assert_true(np_events_wait(&ev, 1) >= 1);
    assert_string_equal(ev.ev[0].outcome, "allowed");
    assert_string_equal(ev.ev[0].ip, "127.0.0.1");
    pathgate__netproxy_stop(px);
    pathgate__netproxy_allow_free(allow);
    np_events_destroy(&ev);
}

static void test_connect_pipelined_bytes_and_case(void **state)
{
    fx *f = *state;
    int fd = dial(f);
    char req[256], buf[4096];
    /* upper case and a trailing dot; the tunnelled bytes come in the same
     * write as the head */
    snprintf(req, sizeof req,
             "CONNECT ALLOWED.Test.:%u HTTP/1.1\r\n\r\nGET /early HTTP/1.0\r\n\r\n", f->web.port);
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    assert_non_null(strstr(buf, "HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.0 200 OK"));
    assert_non_null(strstr(buf, "GET /early HTTP/1.0"));
    char addr[64];
    snprintf(addr, sizeof addr, "allowed.test:%u", f->web.port);
    expect_event(f, 0, "connect", addr, "allowed", NULL);
}

static void test_http_forward_allowed_name(void **state)
{
    fx *f = *state;
    int fd = dial(f);
    char req[512], buf[4096];
    snprintf(req, sizeof req,
             "GET http://allowed.test:%u/path/x?q=1 HTTP/1.1\r\n"
             "Host: elsewhere.test\r\n"
             "Proxy-Connection: keep-alive\r\n"
             "Proxy-Authorization: Basic c2VjcmV0\r\n"
             "Connection: keep-alive, X-Drop\r\n"
             "X-Drop: gone\r\n"
             "X-Keep:  kept \r\n"
             "\r\n",
             f->web.port);
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    assert_non_null(strstr(buf, "HTTP/1.0 200 OK"));
    char want[512];
    snprintf(want, sizeof want,
             "GET /path/x?q=1 HTTP/1.1\r\nHost: allowed.test:%u\r\nX-Keep:  kept \r\n"
             "Connection: close\r\n\r\n",
             f->web.port);
    assert_string_equal(body_of(buf), want);
    char addr[64];
    snprintf(addr, sizeof addr, "allowed.test:%u", f->web.port);
    const np_event_copy *e = expect_event(f, 0, "http", addr, "allowed", NULL);
    assert_string_equal(e->ip, "127.0.0.1");
}

static void test_http_forward_with_body_and_no_path(void **state)
{
    fx *f = *state;
    int fd = dial(f);
    char req[512], buf[4096];
    /* no path: "/"; a query straight after the authority: "/?a" */
    snprintf(req, sizeof req, "HEAD HTTP://allowed.test:%u HTTP/1.0\r\n\r\n", f->web.port);
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    assert_non_null(strstr(body_of(buf), "HEAD / HTTP/1.0\r\n"));
    fd = dial(f);
    snprintf(req, sizeof req,
             "POST http://allowed.test:%u?a HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody",
             f->web.port);
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    assert_non_null(strstr(body_of(buf), "POST /?a HTTP/1.1\r\n"));
    assert_non_null(strstr(body_of(buf), "Content-Length: 4\r\n"));
    expect_event(f, 1, "http", NULL, "allowed", NULL);
}

/* A SOCKS5 exchange: greeting with the methods, request; returns the
 * reply code, or -1 when the connection closed early. */
static int socks5(int fd, const unsigned char *req, size_t len)
{
    static const unsigned char hello[3] = {5, 1, 0};
    unsigned char r[10];
    if (np_send_all(fd, hello, 3) != 0 || np_read_n(fd, r, 2) != 2 || r[0] != 5 || r[1] != 0)
        return -1;
    if (np_send_all(fd, req, len) != 0 || np_read_n(fd, r, 10) != 10 || r[0] != 5)
        return -1;
    return r[1];
}

static size_t socks_domain(unsigned char *req, const char *name, unsigned int port)
{
    size_t n = strlen(name);
    req[0] = 5;
    req[1] = 1;
    req[2] = 0;
    req[3] = 3;
    req[4] = (unsigned char)n;
    memcpy(req + 5, name, n);
    req[5 + n] = (unsigned char)(port >> 8);
    req[6 + n] = (unsigned char)port;
    return n + 7;
}

static size_t socks_ip(unsigned char *req, const char *ip, unsigned int port)
{
    req[0] = 5;
    req[1] = 1;
    req[2] = 0;
    size_t n;
    if (inet_pton(AF_INET, ip, req + 4) == 1) {
        req[3] = 1;
        n = 4;
    } else {
        assert_int_equal(inet_pton(AF_INET6, ip, req + 4), 1);
        req[3] = 4;
        n = 16;
    }
    req[4 + n] = (unsigned char)(port >> 8);
    req[5 + n] = (unsigned char)port;
    return n + 6;
}

/* Through an open tunnel: one HTTP request, the response's body. */
static void tunnel_get(int fd, char *buf, size_t cap)
{
    assert_int_equal(np_send_str(fd, "GET /socks HTTP/1.0\r\n\r\n"), 0);
    np_read_all(fd, buf, cap);
    assert_non_null(strstr(buf, "HTTP/1.0 200 OK"));
    assert_string_equal(body_of(buf), "GET /socks HTTP/1.0\r\n\r\n");
}

static void test_socks5_domain_allowed(void **state)
{
    fx *f = *state;
    unsigned char req[300];
    char buf[4096], addr[64];
    int fd = dial(f);
    assert_int_equal(socks5(fd, req, socks_domain(req, "allowed.test", f->web.port)), 0);
    tunnel_get(fd, buf, sizeof buf);
    close(fd);
    snprintf(addr, sizeof addr, "allowed.test:%u", f->web.port);
    const np_event_copy *e = expect_event(f, 0, "socks5", addr, "allowed", NULL);
    assert_string_equal(e->ip, "127.0.0.1");
    assert_string_equal(e->rule, "allowed.test");
    /* a wildcard name, and an IPv6 name */
    fd = dial(f);
    assert_int_equal(socks5(fd, req, socks_domain(req, "a.wild.test", f->web.port)), 0);
    tunnel_get(fd, buf, sizeof buf);
    close(fd);
    e = expect_event(f, 1, "socks5", NULL, "allowed", NULL);
    assert_string_equal(e->rule, "*.wild.test");
    fd = dial(f);
    assert_int_equal(socks5(fd, req, socks_domain(req, "allowed6.test", f->web6.port)), 0);
    tunnel_get(fd, buf, sizeof buf);
    close(fd);
    e = expect_event(f, 2, "socks5", NULL, "allowed", NULL);
    assert_string_equal(e->ip, "::1");
}

static void test_socks5_ip_literals_listed(void **state)
{
    fx *f = *state;
    unsigned char req[300];
    char buf[4096], addr[64];
    int fd = dial(f);
    assert_int_equal(socks5(fd, req, socks_ip(req, "127.0.0.1", f->web.port)), 0);
    tunnel_get(fd, buf, sizeof buf);
    close(fd);
    snprintf(addr, sizeof addr, "127.0.0.1:%u", f->web.port);
    const np_event_copy *e = expect_event(f, 0, "socks5", addr, "allowed", NULL);
    assert_string_equal(e->rule, f->listed);
    fd = dial(f);
    assert_int_equal(socks5(fd, req, socks_ip(req, "::1", f->web6.port)), 0);
    tunnel_get(fd, buf, sizeof buf);
    close(fd);
    snprintf(addr, sizeof addr, "[::1]:%u", f->web6.port);
    e = expect_event(f, 1, "socks5", addr, "allowed", NULL);
    assert_string_equal(e->rule, f->listed6);
    /* an IP literal sent as a domain name is the literal */
    fd = dial(f);
    assert_int_equal(socks5(fd, req, socks_domain(req, "127.0.0.1", f->web.port)), 0);
    tunnel_get(fd, buf, sizeof buf);
    close(fd);
    expect_event(f, 2, "socks5", NULL, "allowed", NULL);
    /* no name was resolved for any of them */
    assert_int_equal(__atomic_load_n(&f->names.calls, __ATOMIC_SEQ_CST), 0);
}

static void test_tunnels_carry_bytes_both_ways(void **state)
{
    fx *f = *state;
    char req[256], buf[4096];
    /* CONNECT: 4 MiB each way, the client's EOF passed on, the server's
     * EOF passed back */
    int fd = dial(f);
    snprintf(req, sizeof req, "CONNECT allowed.test:%u HTTP/1.1\r\n\r\n", f->web.port);
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_head(fd, buf, sizeof buf);
    assert_string_equal(buf, "HTTP/1.1 200 Connection established\r\n\r\n");
    assert_int_equal(np_send_str(fd, "MIRROR / HTTP/1.0\r\n\r\n"), 0);
    np_read_head(fd, buf, sizeof buf);
    assert_string_equal(buf, "HTTP/1.0 200 OK\r\n\r\n");
    if (np_mirror(fd, 4u << 20) != 0)
        fail_msg("CONNECT mirror: %s", np_mirror_why);
    close(fd);
    /* SOCKS5 */
    unsigned char sreq[300];
    fd = dial(f);
    assert_int_equal(socks5(fd, sreq, socks_domain(sreq, "allowed.test", f->web.port)), 0);
    assert_int_equal(np_send_str(fd, "MIRROR / HTTP/1.0\r\n\r\n"), 0);
    np_read_head(fd, buf, sizeof buf);
    assert_string_equal(buf, "HTTP/1.0 200 OK\r\n\r\n");
    if (np_mirror(fd, 1u << 20) != 0)
        fail_msg("SOCKS5 mirror: %s", np_mirror_why);
    close(fd);
    expect_event(f, 1, "socks5", NULL, "allowed", NULL);
}

/* Expects a 403 for an HTTP request and the denial event; the response
 * names the address asked for and never what it resolved to. */
static void http_denied(fx *f, const char *req, size_t event, const char *op, const char *address,
                        const char *reason)
{
    int fd = dial(f);
    char buf[4096];
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    if (strncmp(buf, "HTTP/1.1 403 Forbidden\r\n", 24) != 0)
        fail_msg("%s: got %s", req, buf);
    assert_non_null(strstr(buf, address));
    const np_event_copy *e = expect_event(f, event, op, address, "denied", reason);
    if (e->has_ip && !strstr(address, e->ip) && strstr(buf, e->ip))
        fail_msg("the response tells the command the refused address: %s", buf);
}

static void test_denied_other_names(void **state)
{
    fx *f = *state;
    char req[256], addr[64];
    size_t ev = 0;
    const char *names[] = {"other.test", "example.com", "wild.test", "allowed.test.evil",
                           "xallowed.test"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(addr, sizeof addr, "%s:%u", names[i], f->web.port);
        snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\n\r\n", addr);
        http_denied(f, req, ev++, "connect", addr, "not_listed");
        snprintf(req, sizeof req, "GET http://%s/ HTTP/1.1\r\n\r\n", addr);
        http_denied(f, req, ev++, "http", addr, "not_listed");
        unsigned char sreq[300];
        int fd = dial(f);
        assert_int_equal(socks5(fd, sreq, socks_domain(sreq, names[i], f->web.port)), 2);
        close(fd);
        expect_event(f, ev++, "socks5", addr, "denied", "not_listed");
    }
    /* refused before any resolution, and nothing was contacted */
    assert_int_equal(__atomic_load_n(&f->names.calls, __ATOMIC_SEQ_CST), 0);
    assert_int_equal(np_server_connections(&f->web), 0);
    assert_int_equal(np_events_count(&f->events), ev);
}

static void test_denied_unlisted_ip_literals(void **state)
{
    fx *f = *state;
    char req[256], addr[64];
    /* the listed address at another port: the host's loopback service */
    snprintf(addr, sizeof addr, "127.0.0.1:%u", f->host.port);
    snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\n\r\n", addr);
    http_denied(f, req, 0, "connect", addr, "not_listed");
    snprintf(req, sizeof req, "GET http://%s/ HTTP/1.1\r\n\r\n", addr);
    http_denied(f, req, 1, "http", addr, "not_listed");
    http_denied(f, "CONNECT 8.8.8.8:443 HTTP/1.1\r\n\r\n", 2, "connect", "8.8.8.8:443",
                "not_listed");
    http_denied(f, "CONNECT [2606:4700::1111]:443 HTTP/1.1\r\n\r\n", 3, "connect",
                "[2606:4700::1111]:443", "not_listed");
    /* a mapped spelling of an unlisted address */
    snprintf(addr, sizeof addr, "127.0.0.1:%u", f->host.port);
    snprintf(req, sizeof req, "CONNECT [::ffff:127.0.0.1]:%u HTTP/1.1\r\n\r\n", f->host.port);
    http_denied(f, req, 4, "connect", addr, "not_listed");
    unsigned char sreq[300];
    int fd = dial(f);
    assert_int_equal(socks5(fd, sreq, socks_ip(sreq, "127.0.0.1", f->host.port)), 2);
    close(fd);
    expect_event(f, 5, "socks5", addr, "denied", "not_listed");
    fd = dial(f);
    assert_int_equal(socks5(fd, sreq, socks_ip(sreq, "::1", f->host.port)), 2);
    close(fd);
    assert_int_equal(np_server_connections(&f->host), 0);
}

static void test_denied_names_resolving_to_internal_addresses(void **state)
{
    fx *f = *state;
    struct {
        const char *name, *ip;
    } cases[] = {{"loop.test", "127.0.0.1"},   {"ten.test", "10.1.2.3"},
                 {"cgnat.test", "100.64.1.1"}, {"linklocal.test", "169.254.169.254"},
                 {"ula.test", "fd00::1"},      {"unspec.test", "0.0.0.0"},
                 {"mapped.test", "127.0.0.1"}, {"mixed.test", "127.0.0.1"}};
    char req[256], addr[64];
    size_t ev = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(addr, sizeof addr, "%s:%u", cases[i].name, f->host.port);
        snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\n\r\n", addr);
        http_denied(f, req, ev, "connect", addr, "private_address");
        const np_event_copy *e = &f->events.ev[ev++];
        assert_string_equal(e->ip, cases[i].ip);
        assert_string_equal(e->rule, cases[i].name); /* listed, but its address is not */
        unsigned char sreq[300];
        int fd = dial(f);
        assert_int_equal(socks5(fd, sreq, socks_domain(sreq, cases[i].name, f->host.port)), 2);
        close(fd);
        expect_event(f, ev++, "socks5", addr, "denied", "private_address");
    }
    assert_int_equal(np_server_connections(&f->host), 0);
}

static void test_denied_host_loopback_services(void **state)
{
    fx *f = *state;
    char req[256], addr[64];
    /* localhost is not listed; an allowed name at the host service's port
     * resolves to 127.0.0.1, which is listed for another port only */
    snprintf(addr, sizeof addr, "localhost:%u", f->host.port);
    snprintf(req, sizeof req, "GET http://%s/ HTTP/1.1\r\n\r\n", addr);
    http_denied(f, req, 0, "http", addr, "not_listed");
    snprintf(addr, sizeof addr, "allowed.test:%u", f->host.port);
    snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\n\r\n", addr);
    http_denied(f, req, 1, "connect", addr, "private_address");
    snprintf(req, sizeof req, "GET http://%s/ HTTP/1.1\r\n\r\n", addr);
    http_denied(f, req, 2, "http", addr, "private_address");
    /* the unspecified address (which reaches the host's loopback) */
    http_denied(f, "CONNECT 0.0.0.0:80 HTTP/1.1\r\n\r\n", 3, "connect", "0.0.0.0:80", "not_listed");
    assert_int_equal(np_server_connections(&f->host), 0);
    assert_int_equal(np_server_connections(&f->web), 0);
}

static void test_failures_resolve_and_connect(void **state)
{
    fx *f = *state;
    char req[256], buf[4096], addr[64];
    int fd = dial(f);
    assert_int_equal(np_send_str(fd, "CONNECT nx.test:443 HTTP/1.1\r\n\r\n"), 0);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    assert_int_equal(strncmp(buf, "HTTP/1.1 502 Bad Gateway\r\n", 26), 0);
    expect_event(f, 0, "connect", "nx.test:443", "failed", "resolve_failed");
    /* listed, resolved, checked, but nothing listens there */
    snprintf(addr, sizeof addr, "closed.test:%u", f->closed_port);
    snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\n\r\n", addr);
    fd = dial(f);
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    assert_int_equal(strncmp(buf, "HTTP/1.1 502 Bad Gateway\r\n", 26), 0);
    expect_event(f, 1, "connect", addr, "failed", "connect_failed");
    unsigned char sreq[300];
    fd = dial(f);
    assert_int_equal(socks5(fd, sreq, socks_domain(sreq, "nx.test", 443)), 4);
    close(fd);
    fd = dial(f);
    assert_int_equal(socks5(fd, sreq, socks_ip(sreq, "127.0.0.1", f->closed_port)), 5);
    close(fd);
    expect_event(f, 3, "socks5", NULL, "failed", "connect_failed");
}

/* One malformed HTTP request: the status line and the event. */
typedef struct bad_http {
    const char *request;
    const char *status;
    const char *reason;
} bad_http;

static void test_malformed_http(void **state)
{
    fx *f = *state;
    const bad_http cases[] = {
        {"garbage\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"GET http://allowed.test/ HTTP/2.0\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"GET  http://allowed.test/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"G(T http://allowed.test/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"GET /relative HTTP/1.1\r\nHost: allowed.test\r\n\r\n", "HTTP/1.1 400 ", "unsupported"},
        {"GET https://allowed.test/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "unsupported"},
        {"GET ftp://allowed.test/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "unsupported"},
        {"GET http://user@allowed.test/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"GET http:///x HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"GET http://allowed.test/#frag HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"GET http://allowed.test:0/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_host"},
        {"GET http://allowed.test:99999/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_host"},
        {"GET http://bad_host!/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_host"},
        {"GET http://2130706433/ HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_host"},
        {"GET http://allowed.test/ HTTP/1.1\r\n folded: x\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"GET http://allowed.test/ HTTP/1.1\r\nNo-Colon\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"GET http://allowed.test/ HTTP/1.1\r\nBad Name: x\r\n\r\n", "HTTP/1.1 400 ",
         "bad_request"},
        {"GET http://allowed.test/ HTTP/1.1\r\nX: a\x01z\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
        {"CONNECT allowed.test HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_host"},
        {"CONNECT allowed.test: HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_host"},
        {"CONNECT [::1 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_host"},
        {"CONNECT [127.0.0.1]:80 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_host"},
        {"CONNECT a..b:80 HTTP/1.1\r\n\r\n", "HTTP/1.1 400 ", "bad_host"},
        {"CONNECT allowed.test:80 HTTP/1.1\r\nX\r\n\r\n", "HTTP/1.1 400 ", "bad_request"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int fd = dial(f);
        char buf[4096];
        assert_int_equal(np_send_str(fd, cases[i].request), 0);
        np_read_all(fd, buf, sizeof buf);
        close(fd);
        if (strncmp(buf, cases[i].status, strlen(cases[i].status)) != 0)
            fail_msg("case %zu (%s): got \"%s\"", i, cases[i].request, buf);
        if (np_events_wait(&f->events, i + 1) < i + 1)
            fail_msg("case %zu: no event", i);
        const np_event_copy *e = &f->events.ev[i];
        assert_string_equal(e->outcome, "invalid");
        if (strcmp(e->reason, cases[i].reason) != 0)
            fail_msg("case %zu (%s): reason %s", i, cases[i].request, e->reason);
    }
    /* a NUL byte in the head */
    int fd = dial(f);
    char buf[4096];
    static const char nul[] = "GET http://allowed.test/ HTTP/1.1\r\nX: a\0b\r\n\r\n";
    assert_int_equal(np_send_all(fd, nul, sizeof nul - 1), 0);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    assert_int_equal(strncmp(buf, "HTTP/1.1 400 ", 13), 0);
    /* a client that sends half a request and closes: an event, no answer */
    size_t n = sizeof cases / sizeof cases[0] + 1;
    fd = dial(f);
    assert_int_equal(np_send_str(fd, "GET http://allowed.te"), 0);
    shutdown(fd, SHUT_WR);
    assert_int_equal(np_read_all(fd, buf, sizeof buf), 0);
    close(fd);
    expect_event(f, n, NULL, NULL, "invalid", "bad_request");
    /* one that connects and closes: asked nothing, no event */
    fd = dial(f);
    close(fd);
    usleep(100000);
    assert_int_equal(np_events_count(&f->events), n + 1);
    /* nothing reached a server */
    assert_int_equal(np_server_connections(&f->web), 0);
}

static void test_malformed_socks(void **state)
{
    fx *f = *state;
    unsigned char r[16];
    /* no acceptable method (username/password only) */
    int fd = dial(f);
    static const unsigned char userpass[3] = {5, 1, 2};
    assert_int_equal(np_send_all(fd, userpass, 3), 0);
    assert_int_equal(np_read_n(fd, r, 3), 2);
    assert_int_equal(r[1], 0xff);
    close(fd);
    expect_event(f, 0, "socks5", NULL, "invalid", "unsupported");
    /* BIND and UDP ASSOCIATE */
    for (unsigned char cmd = 2; cmd <= 3; cmd++) {
        unsigned char req[300];
        size_t n = socks_domain(req, "allowed.test", f->web.port);
        req[1] = cmd;
        fd = dial(f);
        assert_int_equal(socks5(fd, req, n), 7);
        close(fd);
        expect_event(f, cmd - 1, "socks5", NULL, "invalid", "unsupported");
    }
    /* an unknown address type */
    unsigned char req[10] = {5, 1, 0, 9, 1, 2, 3, 4, 0, 80};
    fd = dial(f);
    assert_int_equal(socks5(fd, req, sizeof req), 8);
    close(fd);
    expect_event(f, 3, "socks5", NULL, "invalid", "unsupported");
    /* a request with another version */
    unsigned char v4[10] = {4, 1, 0, 1, 127, 0, 0, 1, 0, 80};
    fd = dial(f);
    assert_int_equal(socks5(fd, v4, sizeof v4), 1);
    close(fd);
    expect_event(f, 4, "socks5", NULL, "invalid", "bad_request");
    /* a malformed name */
    unsigned char bad[300];
    fd = dial(f);
    assert_int_equal(socks5(fd, bad, socks_domain(bad, "bad name", 80)), 1);
    close(fd);
    expect_event(f, 5, "socks5", NULL, "invalid", "bad_host");
    /* port 0 */
    fd = dial(f);
    assert_int_equal(socks5(fd, bad, socks_domain(bad, "allowed.test", 0)), 1);
    close(fd);
    expect_event(f, 6, "socks5", NULL, "invalid", "bad_host");
    /* zero methods */
    static const unsigned char none[2] = {5, 0};
    fd = dial(f);
    assert_int_equal(np_send_all(fd, none, 2), 0);
    assert_int_equal(np_read_n(fd, r, 2), 0);
    close(fd);
    expect_event(f, 7, "socks5", NULL, "invalid", "bad_request");
    /* SOCKS4 */
    static const unsigned char socks4[9] = {4, 1, 0, 80, 127, 0, 0, 1, 0};
    fd = dial(f);
    assert_int_equal(np_send_all(fd, socks4, sizeof socks4), 0);
    assert_int_equal(np_read_n(fd, r, 8), 0);
    close(fd);
    expect_event(f, 8, NULL, NULL, "invalid", "unsupported");
    assert_int_equal(np_server_connections(&f->web), 0);
}

static void test_header_too_large(void **state)
{
    fx *f = *state;
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.max_header = 2048;
    fx_restart(f, &cfg);
    int fd = dial(f);
    char line[200], buf[4096];
    assert_int_equal(np_send_str(fd, "GET http://allowed.test/ HTTP/1.1\r\n"), 0);
    /* header lines until the proxy gives up (it answers and closes) */
    int sent = 0;
    for (int i = 0; i < 100; i++) {
        snprintf(line, sizeof line, "X-Filler-%d: %0120d\r\n", i, 0);
        if (np_send_str(fd, line) != 0)
            break;
        sent += (int)strlen(line);
    }
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    assert_true(sent >= 2048 - 64);
    assert_int_equal(strncmp(buf, "HTTP/1.1 431 ", 13), 0);
    expect_event(f, 0, NULL, NULL, "invalid", "header_too_large");
    assert_int_equal(np_server_connections(&f->web), 0);
}

static void test_slow_and_silent_clients(void **state)
{
    fx *f = *state;
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.header_timeout_ms = 400;
    fx_restart(f, &cfg);
    /* slowloris: a byte every 50 ms never completes the head in time */
    int fd = dial(f);
    char req[256];
    snprintf(req, sizeof req, "GET http://allowed.test/ HTTP/1.1\r\nX-Slow: %0150d", 0);
    uint64_t t0 = pathgate__np_now_ms();
    for (const char *p = req; *p; p++) {
        if (send(fd, p, 1, MSG_NOSIGNAL) != 1)
            break;
        usleep(50000);
    }
    char buf[4096];
    np_read_all(fd, buf, sizeof buf);
    uint64_t elapsed = pathgate__np_now_ms() - t0;
    close(fd);
    assert_int_equal(strncmp(buf, "HTTP/1.1 408 ", 13), 0);
    /* the deadline is for the whole head, not per byte (dribbling all of
     * it would take 10 s) */
    assert_true(elapsed < 3000);
    expect_event(f, 0, NULL, NULL, "invalid", "timeout");
    /* a client that says nothing */
    fd = dial(f);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    expect_event(f, 1, NULL, NULL, "invalid", "timeout");
    /* a slow SOCKS5 handshake */
    fd = dial(f);
    static const unsigned char hello[3] = {5, 1, 0};
    assert_int_equal(np_send_all(fd, hello, 3), 0);
    np_read_all(fd, buf, sizeof buf); /* the method reply, then the close */
    close(fd);
    expect_event(f, 2, "socks5", NULL, "invalid", "timeout");
}

static void test_too_many_connections(void **state)
{
    fx *f = *state;
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.max_conns = 2;
    cfg.header_timeout_ms = 5000;
    fx_restart(f, &cfg);
    int a = dial(f), b = dial(f);
    usleep(200000); /* both taken */
    int c = dial(f);
    char buf[64];
    assert_int_equal(np_read_all(c, buf, sizeof buf), 0); /* closed at once */
    close(c);
    expect_event(f, 0, NULL, NULL, "failed", "too_many_connections");
    /* once one ends, a new connection is served again */
    close(a);
    usleep(200000);
    c = dial(f);
    char req[256];
    snprintf(req, sizeof req, "GET http://allowed.test:%u/again HTTP/1.1\r\n\r\n", f->web.port);
    assert_int_equal(np_send_str(c, req), 0);
    char resp[4096];
    np_read_all(c, resp, sizeof resp);
    close(c);
    assert_non_null(strstr(resp, "GET /again HTTP/1.1"));
    close(b);
}

static void test_stop_closes_everything(void **state)
{
    fx *f = *state;
    char dir[256], sock[256];
    snprintf(dir, sizeof dir, "%s", pathgate__netproxy_dir(f->px));
    snprintf(sock, sizeof sock, "%s", pathgate__netproxy_socket(f->px));
    struct stat st;
    assert_int_equal(lstat(dir, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_int_equal(lstat(sock, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0600);
    /* an open tunnel, a client in the middle of its head, a silent one */
    int tunnel = dial(f), slow = dial(f), silent = dial(f);
    char req[256], buf[4096];
    snprintf(req, sizeof req, "CONNECT allowed.test:%u HTTP/1.1\r\n\r\n", f->web.port);
    assert_int_equal(np_send_str(tunnel, req), 0);
    np_read_head(tunnel, buf, sizeof buf);
    assert_string_equal(buf, "HTTP/1.1 200 Connection established\r\n\r\n");
    assert_int_equal(np_send_str(slow, "GET http://allowed.test/ HTTP/1.1\r\n"), 0);
    usleep(100000);
    uint64_t t0 = pathgate__np_now_ms();
    pathgate__netproxy_stop(f->px);
    f->px = NULL;
    assert_true(pathgate__np_now_ms() - t0 < 1500); /* not the 2 s header timeout */
    /* every connection was closed (EOF for the clients) */
    assert_int_equal(np_read_all(tunnel, buf, sizeof buf), 0);
    assert_int_equal(np_read_all(slow, buf, sizeof buf), 0);
    assert_int_equal(np_read_all(silent, buf, sizeof buf), 0);
    close(tunnel);
    close(slow);
    close(silent);
    /* and the socket and its directory are gone */
    assert_int_equal(lstat(sock, &st), -1);
    assert_int_equal(lstat(dir, &st), -1);
    /* a new one can start (teardown stops it) */
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    fx_start_proxy(f, &cfg);
}

static void test_peer_uid(void **state)
{
    fx *f = *state;
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.peer_uid = getuid() + 1;
    fx_restart(f, &cfg);
    int fd = dial(f);
    char buf[64];
    char req[256];
    snprintf(req, sizeof req, "CONNECT allowed.test:%u HTTP/1.1\r\n\r\n", f->web.port);
    np_send_str(fd, req);
    assert_int_equal(np_read_all(fd, buf, sizeof buf), 0);
    close(fd);
    expect_event(f, 0, NULL, NULL, "denied", "peer");
    cfg.peer_uid = getuid();
    fx_restart(f, &cfg);
    fd = dial(f);
    assert_int_equal(np_send_str(fd, req), 0);
    np_read_head(fd, buf, sizeof buf);
    close(fd);
    assert_int_equal(strncmp(buf, "HTTP/1.1 200 ", 13), 0);
}

static void test_owner_and_start_errors(void **state)
{
    fx *f = *state;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate__netproxy *px = NULL;
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.alloc = pg_test_alloc();
    cfg.allow = f->allow;
    /* a parent that does not exist: EIO, the message names no path */
    cfg.dir_parent = "/nonexistent-pathgate-parent";
    assert_int_equal(pathgate__netproxy_start(&px, &cfg, &err), PATHGATE_EIO);
    assert_null(px);
    assert_null(strstr(err.message, "nonexistent"));
    /* too deep for sun_path */
    char deep[200];
    memset(deep, 'd', sizeof deep - 1);
    deep[0] = '/';
    deep[sizeof deep - 1] = '\0';
    char *base = pg_tmpdir_make();
    char parent[400];
    snprintf(parent, sizeof parent, "%s%s", base, deep);
    assert_int_equal(mkdir(parent, 0700), 0);
    cfg.dir_parent = parent;
    assert_int_equal(pathgate__netproxy_start(&px, &cfg, &err), PATHGATE_EINVAL);
    assert_null(strstr(err.message, base));
    /* the half-made directory was removed */
    assert_int_equal(rmdir(parent), 0);
    /* given to another user (the uid a root caller's command runs as) */
    if (geteuid() == 0) {
        cfg.dir_parent = base;
        cfg.owner_uid = 65534;
        cfg.owner_gid = 65534;
        assert_int_equal(pathgate__netproxy_start(&px, &cfg, &err), 0);
        struct stat st;
        assert_int_equal(stat(pathgate__netproxy_dir(px), &st), 0);
        assert_int_equal(st.st_uid, 65534);
        assert_int_equal(st.st_mode & 07777, 0700);
        assert_int_equal(stat(pathgate__netproxy_socket(px), &st), 0);
        assert_int_equal(st.st_uid, 65534);
        assert_int_equal(st.st_gid, 65534);
        pathgate__netproxy_stop(px);
    }
    pg_tmpdir_remove(base);
    assert_int_equal(pathgate__netproxy_start(NULL, &cfg, &err), PATHGATE_EINVAL);
    assert_int_equal(pathgate__netproxy_start(&px, NULL, &err), PATHGATE_EINVAL);
    pathgate__netproxy_stop(NULL);
    assert_null(pathgate__netproxy_dir(NULL));
}

static void test_environment(void **state)
{
    (void)state;
    const char *want[] = {
        "HTTP_PROXY=http://127.0.0.1:3128",   "HTTPS_PROXY=http://127.0.0.1:3128",
        "ALL_PROXY=socks5h://127.0.0.1:3128", "http_proxy=http://127.0.0.1:3128",
        "https_proxy=http://127.0.0.1:3128",  "all_proxy=socks5h://127.0.0.1:3128",
        "NO_PROXY=localhost,127.0.0.1,::1",   "no_proxy=localhost,127.0.0.1,::1"};
    size_t n = 0;
    for (; pathgate__netproxy_env[n]; n++)
        assert_string_equal(pathgate__netproxy_env[n], want[n]);
    assert_int_equal(n, sizeof want / sizeof want[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allow_entries_valid),
        cmocka_unit_test(test_allow_entries_invalid),
        cmocka_unit_test(test_public_check_allow_domains),
        cmocka_unit_test(test_allow_compile_out_of_memory),
        cmocka_unit_test(test_allow_match),
        cmocka_unit_test(test_internal_ranges),
        cmocka_unit_test(test_environment),
        cmocka_unit_test_setup_teardown(test_connect_allowed_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_localhost_is_loopback_without_the_hosts_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_connect_pipelined_bytes_and_case, setup, teardown),
        cmocka_unit_test_setup_teardown(test_http_forward_allowed_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_http_forward_with_body_and_no_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_socks5_domain_allowed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_socks5_ip_literals_listed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tunnels_carry_bytes_both_ways, setup, teardown),
        cmocka_unit_test_setup_teardown(test_denied_other_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_denied_unlisted_ip_literals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_denied_names_resolving_to_internal_addresses, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_denied_host_loopback_services, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures_resolve_and_connect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_http, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_socks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_too_large, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slow_and_silent_clients, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_many_connections, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_closes_everything, setup, teardown),
        cmocka_unit_test_setup_teardown(test_peer_uid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_owner_and_start_errors, setup, teardown),
    };
    return cmocka_run_group_tests_name("netproxy", tests, NULL, NULL);
}
