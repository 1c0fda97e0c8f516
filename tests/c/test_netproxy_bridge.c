/* test_netproxy_bridge.c - the in-view bridge (netproxy_bridge.c) in a
 * network namespace of its own, as a command would have it: a forked
 * child unshares its network namespace, sets loopback up, listens on
 * 127.0.0.1:3128 and [::1]:3128, and serves the bridge in a CLONE_VM
 * process (as pathgate's init would run it, sharing the child's memory);
 * the child then acts as the command: through the bridge it reaches the
 * allowed name by CONNECT, plain HTTP and SOCKS5, is refused another,
 * carries a few MiB both ways, and finds no route out on its own; curl and
 * Python's urllib, given the command's proxy environment, do the same. The
 * proxy runs in the test process; its audit events are checked there. */
#define _GNU_SOURCE
#include "support.h"

#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "netproxy_fixture.h"

/* What the parent tells the child once its servers and proxy run. */
typedef struct plan {
    char socket[108];
    unsigned int web_port, web6_port;
} plan;

/* The child's verdict: 0, or the number of the failed step (77: the
 * namespace could not be made), and a message. */
static int diag_fd = -1;

#define CHECK(step, cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            char m_[512];                                                                          \
            int n_ = snprintf(m_, sizeof m_, __VA_ARGS__);                                         \
            if (n_ > 0 && write(diag_fd, m_, (size_t)n_) < 0) {                                    \
            }                                                                                      \
            _exit(step);                                                                           \
        }                                                                                          \
    } while (0)

static int bridge_main(void *arg)
{
    /* ends with the child, whatever way the child ends */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    return (int)-pathgate__netproxy_bridge_serve(arg, NULL);
}

static int tcp_dial(int family, const char *ip, unsigned int port, int *err)
{
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        inet_pton(AF_INET, ip, &a->sin_addr);
        sl = sizeof *a;
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons((uint16_t)port);
        inet_pton(AF_INET6, ip, &a->sin6_addr);
        sl = sizeof *a;
    }
    *err = 0;
    if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
        *err = errno;
        close(fd);
        return -1;
    }
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* The command's environment: the proxy's variables and a PATH. */
static char *const *proxy_env(void)
{
    static char *env[16];
    int n = 0;
    for (; pathgate__netproxy_env[n] && n < 14; n++)
        env[n] = (char *)pathgate__netproxy_env[n];
    env[n++] = (char *)"PATH=/usr/bin:/bin";
    env[n] = NULL;
    return env;
}

/* Runs argv with env, its stdout and stderr into out; the exit status
 * (128 + N for signal N, -1 when it could not run). */
static int run_tool(char *const argv[], char *const env[], char *out, size_t cap)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        execve(argv[0], argv, env);
        _exit(127);
    }
    close(pfd[1]);
    size_t len = 0;
    ssize_t n;
    while (len + 1 < cap && (n = read(pfd[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(pfd[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The command's side, in the new network namespace. Never returns. */
static void child(int plan_fd)
{
    alarm(60); /* a hang fails the test instead of blocking it */
    plan p;
    CHECK(1, read(plan_fd, &p, sizeof p) == (ssize_t)sizeof p, "no plan");
    int rc = unshare(CLONE_NEWNET);
    if (rc < 0 && geteuid() != 0)
        rc = unshare(CLONE_NEWUSER | CLONE_NEWNET);
    CHECK(77, rc == 0, "unshare: %s", strerror(errno));
    CHECK(2, pathgate__netproxy_bridge_loopback_up() == 0, "loopback up");
    pathgate__netproxy_bridge b;
    long lr = pathgate__netproxy_bridge_listen(&b, PATHGATE__NETPROXY_PORT, p.socket);
    CHECK(3, lr == 0 && b.listen4 >= 0 && b.listen6 >= 0, "listen: %ld", lr);
    /* a second bridge whose socket does not exist: connections are closed */
    pathgate__netproxy_bridge nowhere;
    CHECK(4, pathgate__netproxy_bridge_listen(&nowhere, 3129, "/nonexistent/proxy.sock") == 0,
          "listen 3129");
    size_t stack_size = 256 * 1024;
    char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    CHECK(5, stack != MAP_FAILED, "mmap");
    pid_t bridge = clone(bridge_main, stack + stack_size, CLONE_VM | SIGCHLD, &b);
    CHECK(6, bridge > 0, "clone: %s", strerror(errno));
    pid_t bridge2 = clone(bridge_main, stack + stack_size / 2, CLONE_VM | SIGCHLD, &nowhere);
    CHECK(6, bridge2 > 0, "clone: %s", strerror(errno));

    char req[512], buf[8192];
    int err;
    /* 1. CONNECT to the allowed name, a request through the tunnel,
     * the write side shut down: the response still comes, then EOF */
    int fd = tcp_dial(AF_INET, "127.0.0.1", PATHGATE__NETPROXY_PORT, &err);
    CHECK(10, fd >= 0, "dial 127.0.0.1:3128: %s", strerror(err));
    snprintf(req, sizeof req, "CONNECT allowed.test:%u HTTP/1.1\r\n\r\n", p.web_port);
    CHECK(11, np_send_str(fd, req) == 0, "send");
    np_read_head(fd, buf, sizeof buf);
    CHECK(12, strcmp(buf, "HTTP/1.1 200 Connection established\r\n\r\n") == 0, "got %s", buf);
    CHECK(13, np_send_str(fd, "GET /through-bridge HTTP/1.0\r\n\r\n") == 0, "send");
    shutdown(fd, SHUT_WR);
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    CHECK(14, strstr(buf, "\r\n\r\nGET /through-bridge HTTP/1.0\r\n\r\n") != NULL, "got %s", buf);

    /* 2. plain HTTP */
    fd = tcp_dial(AF_INET, "127.0.0.1", PATHGATE__NETPROXY_PORT, &err);
    CHECK(20, fd >= 0, "dial: %s", strerror(err));
    snprintf(req, sizeof req, "GET http://allowed.test:%u/plain HTTP/1.1\r\n\r\n", p.web_port);
    CHECK(21, np_send_str(fd, req) == 0, "send");
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    CHECK(22, strstr(buf, "\r\n\r\nGET /plain HTTP/1.1\r\n") != NULL, "got %s", buf);

    /* 3. SOCKS5 by name, over [::1]:3128, to the IPv6 server */
    fd = tcp_dial(AF_INET6, "::1", PATHGATE__NETPROXY_PORT, &err);
    CHECK(30, fd >= 0, "dial [::1]:3128: %s", strerror(err));
    unsigned char s[64] = {5, 1, 0};
    CHECK(31, np_send_all(fd, s, 3) == 0 && np_read_n(fd, s, 2) == 2 && s[1] == 0, "greeting");
    const char *name = "allowed6.test";
    size_t nl = strlen(name);
    s[0] = 5;
    s[1] = 1;
    s[2] = 0;
    s[3] = 3;
    s[4] = (unsigned char)nl;
    memcpy(s + 5, name, nl);
    s[5 + nl] = (unsigned char)(p.web6_port >> 8);
    s[6 + nl] = (unsigned char)p.web6_port;
    CHECK(32, np_send_all(fd, s, nl + 7) == 0 && np_read_n(fd, s, 10) == 10 && s[1] == 0,
          "connect reply %d", s[1]);
    CHECK(33, np_send_str(fd, "GET /socks HTTP/1.0\r\n\r\n") == 0, "send");
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    CHECK(34, strstr(buf, "\r\n\r\nGET /socks HTTP/1.0\r\n\r\n") != NULL, "got %s", buf);

    /* 4. another name: refused by the proxy */
    fd = tcp_dial(AF_INET, "127.0.0.1", PATHGATE__NETPROXY_PORT, &err);
    CHECK(40, fd >= 0, "dial: %s", strerror(err));
    snprintf(req, sizeof req, "CONNECT other.test:%u HTTP/1.1\r\n\r\n", p.web_port);
    CHECK(41, np_send_str(fd, req) == 0, "send");
    np_read_all(fd, buf, sizeof buf);
    close(fd);
    CHECK(42, strncmp(buf, "HTTP/1.1 403 Forbidden", 22) == 0, "got %s", buf);

    /* 5. a few MiB each way through bridge and proxy, byte for byte */
    fd = tcp_dial(AF_INET, "127.0.0.1", PATHGATE__NETPROXY_PORT, &err);
    CHECK(50, fd >= 0, "dial: %s", strerror(err));
    snprintf(req, sizeof req, "CONNECT allowed.test:%u HTTP/1.1\r\n\r\nMIRROR / HTTP/1.0\r\n\r\n",
             p.web_port);
    CHECK(51, np_send_str(fd, req) == 0, "send");
    np_read_head(fd, buf, sizeof buf);
    CHECK(52, strcmp(buf, "HTTP/1.1 200 Connection established\r\n\r\n") == 0, "got %s", buf);
    np_read_head(fd, buf, sizeof buf);
    CHECK(53, strcmp(buf, "HTTP/1.0 200 OK\r\n\r\n") == 0, "got %s", buf);
    CHECK(54, np_mirror(fd, 3u << 20) == 0, "mirror: %s", np_mirror_why);
    close(fd);

    /* 6. several connections at once */
    int many[8];
    for (int i = 0; i < 8; i++) {
        many[i] = tcp_dial(AF_INET, "127.0.0.1", PATHGATE__NETPROXY_PORT, &err);
        CHECK(60, many[i] >= 0, "dial %d: %s", i, strerror(err));
        snprintf(req, sizeof req, "GET http://allowed.test:%u/many/%d HTTP/1.1\r\n\r\n", p.web_port,
                 i);
        CHECK(61, np_send_str(many[i], req) == 0, "send");
    }
    for (int i = 0; i < 8; i++) {
        np_read_all(many[i], buf, sizeof buf);
        close(many[i]);
        snprintf(req, sizeof req, "GET /many/%d HTTP/1.1\r\n", i);
        CHECK(62, strstr(buf, req) != NULL, "connection %d got %s", i, buf);
    }

    /* 7. no route of its own: the host's loopback server is not in this
     * namespace, and nothing else is reachable */
    fd = tcp_dial(AF_INET, "127.0.0.1", p.web_port, &err);
    CHECK(70, fd < 0 && err == ECONNREFUSED, "direct to the host's server: %s", strerror(err));
    fd = tcp_dial(AF_INET, "93.184.216.34", 80, &err);
    CHECK(71, fd < 0 && err == ENETUNREACH, "out: %s", strerror(err));
    fd = tcp_dial(AF_INET6, "2606:4700::1111", 443, &err);
    CHECK(72, fd < 0 && err == ENETUNREACH, "out6: %s", strerror(err));

    /* 8. the bridge without a proxy closes what it accepts */
    fd = tcp_dial(AF_INET, "127.0.0.1", 3129, &err);
    CHECK(80, fd >= 0, "dial 3129: %s", strerror(err));
    CHECK(81, np_read_all(fd, buf, sizeof buf) == 0, "got %s", buf);
    close(fd);

    /* 9. real clients, told where the proxy is by the command's
     * environment (pathgate__netproxy_env) or given it explicitly */
    char url[128], body[128], out[8192];
    char *const *env = proxy_env();
    struct {
        const char *tool, *path, *opt1, *opt2;
        int allowed;
    } runs[] = {
        {"curl", "/env", NULL, NULL, 1},                            /* http_proxy */
        {"curl", "/tunnel", "-p", "-xhttp://127.0.0.1:3128", 1},    /* CONNECT */
        {"curl", "/socks4", "-xsocks5h://127.0.0.1:3128", NULL, 1}, /* SOCKS5 by name */
        {"curl", "/socks6", "-xsocks5h://[::1]:3128", NULL, 1},     /* ... over [::1] */
        {"python", "/py", NULL, NULL, 1},                           /* urllib, http_proxy */
        {"curl", "/no", NULL, NULL, 0},                             /* refused: plain */
        {"curl", "/no", "-p", "-xhttp://127.0.0.1:3128", 0},        /* CONNECT */
        {"curl", "/no", "-xsocks5h://127.0.0.1:3128", NULL, 0},     /* SOCKS5 */
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        snprintf(url, sizeof url, "http://%s:%u%s", runs[i].allowed ? "allowed.test" : "other.test",
                 p.web_port, runs[i].path);
        char *argv[12];
        int k = 0;
        char code[256];
        if (!strcmp(runs[i].tool, "curl")) {
            argv[k++] = (char *)"/usr/bin/curl";
            argv[k++] = (char *)"-sSf";
            argv[k++] = (char *)"--max-time";
            argv[k++] = (char *)"20";
            if (runs[i].opt1)
                argv[k++] = (char *)runs[i].opt1;
            if (runs[i].opt2)
                argv[k++] = (char *)runs[i].opt2;
            argv[k++] = url;
        } else {
            snprintf(code, sizeof code,
                     "import sys, urllib.request; "
                     "sys.stdout.write(urllib.request.urlopen('%s', timeout=20).read().decode())",
                     url);
            argv[k++] = (char *)"/usr/bin/python3";
            argv[k++] = (char *)"-c";
            argv[k++] = code;
        }
        argv[k] = NULL;
        int status = run_tool(argv, env, out, sizeof out);
        snprintf(body, sizeof body, "GET %s HTTP/1.1\r\n", runs[i].path);
        if (runs[i].allowed)
            CHECK(100 + (int)i, status == 0 && strstr(out, body), "%s %s: status %d, %s",
                  runs[i].tool, runs[i].path, status, out);
        else
            CHECK(100 + (int)i, status != 0 && !strstr(out, "GET /no"), "%s refused: status %d, %s",
                  runs[i].tool, status, out);
    }

    kill(bridge, SIGKILL);
    kill(bridge2, SIGKILL);
    int st;
    waitpid(bridge, &st, 0);
    CHECK(90, WIFSIGNALED(st), "the bridge ended on its own: %d", st);
    waitpid(bridge2, &st, 0);
    _exit(0);
}

static void test_bridge_in_own_network_namespace(void **state)
{
    (void)state;
    int plan_pipe[2], diag[2];
    assert_int_equal(pipe2(plan_pipe, O_CLOEXEC), 0);
    assert_int_equal(pipe2(diag, O_CLOEXEC), 0);
    /* fork before any thread of the test starts */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(plan_pipe[1]);
        close(diag[0]);
        diag_fd = diag[1];
        child(plan_pipe[0]);
    }
    close(plan_pipe[0]);
    close(diag[1]);

    np_server web, web6;
    assert_int_equal(np_server_start(&web, AF_INET), 0);
    assert_int_equal(np_server_start(&web6, AF_INET6), 0);
    np_names names;
    memset(&names, 0, sizeof names);
    np_names_add(&names, "allowed.test", "127.0.0.1", NULL);
    np_names_add(&names, "allowed6.test", "::1", NULL);
    np_names_add(&names, "other.test", "127.0.0.1", NULL);
    char listed[64], listed6[64];
    snprintf(listed, sizeof listed, "127.0.0.1:%u", web.port);
    snprintf(listed6, sizeof listed6, "[::1]:%u", web6.port);
    const char *entries[] = {"allowed.test", "allowed6.test", listed, listed6};
    pathgate__netproxy_allow *allow = NULL;
    assert_int_equal(pathgate__netproxy_allow_compile(&allow, pg_test_alloc(), entries, 4, NULL),
                     0);
    np_events events;
    np_events_init(&events);
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.allow = allow;
    cfg.audit = np_events_cb;
    cfg.audit_ctx = &events;
    cfg.resolve = np_names_resolve;
    cfg.resolve_ctx = &names;
    cfg.alloc = pg_test_alloc();
    pathgate__netproxy *px = NULL;
    assert_int_equal(pathgate__netproxy_start(&px, &cfg, NULL), 0);

    plan p;
    memset(&p, 0, sizeof p);
    snprintf(p.socket, sizeof p.socket, "%s", pathgate__netproxy_socket(px));
    p.web_port = web.port;
    p.web6_port = web6.port;
    assert_int_equal(write(plan_pipe[1], &p, sizeof p), (ssize_t)sizeof p);
    close(plan_pipe[1]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    char msg[512] = "";
    ssize_t n = read(diag[0], msg, sizeof msg - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(diag[0]);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        pathgate__netproxy_stop(px);
        pathgate__netproxy_allow_free(allow);
        np_server_stop(&web);
        np_server_stop(&web6);
        np_events_destroy(&events);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
            print_message("skipped: %s\n", msg);
            skip();
        }
        fail_msg("child failed at step %d (status %#x): %s", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                 st, msg);
    }
    /* the proxy saw: CONNECT, plain HTTP, SOCKS5, the refusal, the mirror
     * tunnel, eight plain requests, five tool runs allowed and three
     * refused; nothing else (the direct attempts never reached it) */
    size_t want = 1 + 1 + 1 + 1 + 1 + 8 + 5 + 3;
    assert_int_equal(np_events_wait(&events, want), want);
    usleep(100000);
    assert_int_equal(np_events_count(&events), want);
    size_t allowed = 0, denied = 0;
    for (size_t i = 0; i < want; i++) {
        if (!strcmp(events.ev[i].outcome, "allowed"))
            allowed++;
        else if (!strcmp(events.ev[i].outcome, "denied") &&
                 !strcmp(events.ev[i].reason, "not_listed") &&
                 strstr(events.ev[i].address, "other.test:"))
            denied++;
    }
    assert_int_equal(allowed, want - 4);
    assert_int_equal(denied, 4);
    pathgate__netproxy_stop(px);
    pathgate__netproxy_allow_free(allow);
    np_server_stop(&web);
    np_server_stop(&web6);
    np_events_destroy(&events);
}

/* In a network namespace of its own (so that it may give itself an
 * address that is not internal): a listed name resolving to an address of
 * one of this host's interfaces is refused like loopback, since a service
 * bound to 0.0.0.0 answers there; listed as an address, it is reached. */
static void host_address_child(void)
{
    alarm(60);
    int rc = unshare(CLONE_NEWNET);
    if (rc < 0 && geteuid() != 0)
        rc = unshare(CLONE_NEWUSER | CLONE_NEWNET);
    CHECK(77, rc == 0, "unshare: %s", strerror(errno));
    CHECK(2, pathgate__netproxy_bridge_loopback_up() == 0, "loopback up");
    /* 1.2.3.4 on lo:1, in this namespace only */
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo:1");
    struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
    sin->sin_family = AF_INET;
    inet_pton(AF_INET, "1.2.3.4", &sin->sin_addr);
    CHECK(77, ioctl(s, SIOCSIFADDR, &ifr) == 0, "SIOCSIFADDR: %s", strerror(errno));
    close(s);
    np_server web;
    CHECK(3, np_server_start_at(&web, AF_INET, "1.2.3.4") == 0, "server on 1.2.3.4");
    np_names names;
    memset(&names, 0, sizeof names);
    np_names_add(&names, "hostaddr.test", "1.2.3.4", NULL);
    np_events events;
    np_events_init(&events);
    char listed[64], req[256], buf[4096];
    snprintf(listed, sizeof listed, "1.2.3.4:%u", web.port);
    snprintf(req, sizeof req, "CONNECT hostaddr.test:%u HTTP/1.1\r\n\r\n", web.port);
    for (int round = 0; round < 2; round++) {
        const char *entries[] = {"hostaddr.test", listed};
        pathgate__netproxy_allow *allow = NULL;
        CHECK(4, pathgate__netproxy_allow_compile(&allow, NULL, entries, round ? 2 : 1, NULL) == 0,
              "compile");
        pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
        cfg.allow = allow;
        cfg.audit = np_events_cb;
        cfg.audit_ctx = &events;
        cfg.resolve = np_names_resolve;
        cfg.resolve_ctx = &names;
        pathgate__netproxy *px = NULL;
        CHECK(5, pathgate__netproxy_start(&px, &cfg, NULL) == 0, "start");
        int fd = np_dial(pathgate__netproxy_socket(px));
        CHECK(6, fd >= 0 && np_send_str(fd, req) == 0, "dial");
        np_read_head(fd, buf, sizeof buf);
        close(fd);
        CHECK(7, np_events_wait(&events, (size_t)round + 1) == (size_t)round + 1, "no event");
        const np_event_copy *e = &events.ev[round];
        if (round == 0) {
            CHECK(10, strncmp(buf, "HTTP/1.1 403 ", 13) == 0, "got %s", buf);
            CHECK(11,
                  !strcmp(e->outcome, "denied") && !strcmp(e->reason, "host_address") &&
                      !strcmp(e->ip, "1.2.3.4"),
                  "event %s %s %s", e->outcome, e->reason, e->ip);
            CHECK(12, np_server_connections(&web) == 0, "the host service was reached");
        } else {
            CHECK(20, strncmp(buf, "HTTP/1.1 200 ", 13) == 0, "got %s", buf);
            CHECK(21, !strcmp(e->outcome, "allowed") && !strcmp(e->rule, "hostaddr.test"),
                  "event %s %s", e->outcome, e->rule);
        }
        pathgate__netproxy_stop(px);
        pathgate__netproxy_allow_free(allow);
    }
    np_server_stop(&web);
    _exit(0);
}

static void test_host_addresses_refused(void **state)
{
    (void)state;
    int diag[2];
    assert_int_equal(pipe2(diag, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(diag[0]);
        diag_fd = diag[1];
        host_address_child();
    }
    close(diag[1]);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    char msg[512] = "";
    ssize_t n = read(diag[0], msg, sizeof msg - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(diag[0]);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        print_message("skipped: %s\n", msg);
        skip();
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("child failed at step %d (status %#x): %s", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
                 st, msg);
}

static void test_bridge_listen_arguments(void **state)
{
    (void)state;
    pathgate__netproxy_bridge b;
    char longp[200];
    memset(longp, 'x', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    assert_int_equal(pathgate__netproxy_bridge_listen(&b, 3128, longp), -ENAMETOOLONG);
    assert_int_equal(b.listen4, -1);
    assert_int_equal(b.listen6, -1);
    assert_int_equal(pathgate__netproxy_bridge_listen(&b, 3128, ""), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bridge_listen_arguments),
        cmocka_unit_test(test_bridge_in_own_network_namespace),
        cmocka_unit_test(test_host_addresses_refused),
    };
    return cmocka_run_group_tests_name("netproxy_bridge", tests, NULL, NULL);
}
