/* test_netproxy_threads.c - the proxy under concurrent clients: threads
 * mixing CONNECT, plain HTTP and SOCKS5 to allowed and refused names, each
 * answer checked and exactly one audit event per request; then a stop
 * while clients hold tunnels and half-sent heads, which closes every
 * connection and joins every thread. Run under ThreadSanitizer in CI. */
/* ctest-labels: threads */
#define _GNU_SOURCE
#include "support.h"

#include "netproxy_fixture.h"

#define NTHREADS 6
#define ROUNDS 12

typedef struct shared {
    const char *socket;
    unsigned int port;
} shared;

typedef struct worker {
    const shared *sh;
    int index;
    pthread_t thread;
    int allowed, denied; /* requests made of each kind */
    char failure[256];
} worker;

#define WFAIL(w, ...)                                                                              \
    do {                                                                                           \
        snprintf((w)->failure, sizeof(w)->failure, __VA_ARGS__);                                   \
        return NULL;                                                                               \
    } while (0)

static int socks_connect(int fd, const char *name, unsigned int port)
{
    unsigned char s[300] = {5, 1, 0};
    if (np_send_all(fd, s, 3) != 0 || np_read_n(fd, s, 2) != 2 || s[1] != 0)
        return -1;
    size_t n = strlen(name);
    s[0] = 5;
    s[1] = 1;
    s[2] = 0;
    s[3] = 3;
    s[4] = (unsigned char)n;
    memcpy(s + 5, name, n);
    s[5 + n] = (unsigned char)(port >> 8);
    s[6 + n] = (unsigned char)port;
    if (np_send_all(fd, s, n + 7) != 0 || np_read_n(fd, s, 10) != 10)
        return -1;
    return s[1];
}

static void *work(void *p)
{
    worker *w = p;
    char req[256], buf[4096], want[128];
    for (int round = 0; round < ROUNDS; round++) {
        int kind = (w->index + round) % 3;
        int allow = (w->index + round) % 4 != 0;
        const char *name = allow ? "allowed.test" : "other.test";
        int fd = np_dial(w->sh->socket);
        if (fd < 0)
            WFAIL(w, "dial failed");
        snprintf(want, sizeof want, "GET /t%d/r%d HTTP/1.", w->index, round);
        if (kind == 0) { /* CONNECT */
            snprintf(req, sizeof req, "CONNECT %s:%u HTTP/1.1\r\n\r\n", name, w->sh->port);
            np_send_str(fd, req);
            np_read_head(fd, buf, sizeof buf);
            if (allow) {
                if (strcmp(buf, "HTTP/1.1 200 Connection established\r\n\r\n") != 0)
                    WFAIL(w, "CONNECT: %.200s", buf);
                snprintf(req, sizeof req, "GET /t%d/r%d HTTP/1.0\r\n\r\n", w->index, round);
                np_send_str(fd, req);
                np_read_all(fd, buf, sizeof buf);
                if (!strstr(buf, want))
                    WFAIL(w, "through CONNECT: %.200s", buf);
            } else if (strncmp(buf, "HTTP/1.1 403 ", 13) != 0) {
                WFAIL(w, "CONNECT refused: %.200s", buf);
            }
        } else if (kind == 1) { /* plain HTTP */
            snprintf(req, sizeof req, "GET http://%s:%u/t%d/r%d HTTP/1.1\r\n\r\n", name,
                     w->sh->port, w->index, round);
            np_send_str(fd, req);
            np_read_all(fd, buf, sizeof buf);
            if (allow ? !strstr(buf, want) : strncmp(buf, "HTTP/1.1 403 ", 13) != 0)
                WFAIL(w, "HTTP: %.200s", buf);
        } else { /* SOCKS5, with a mirrored transfer when allowed */
            int rep = socks_connect(fd, name, w->sh->port);
            if (rep != (allow ? 0 : 2))
                WFAIL(w, "SOCKS5 reply %d", rep);
            if (allow) {
                np_send_str(fd, "MIRROR / HTTP/1.0\r\n\r\n");
                np_read_head(fd, buf, sizeof buf);
                if (strcmp(buf, "HTTP/1.0 200 OK\r\n\r\n") != 0)
                    WFAIL(w, "mirror head: %.200s", buf);
                if (np_mirror(fd, 128u << 10) != 0)
                    WFAIL(w, "mirror");
            }
        }
        close(fd);
        if (allow)
            w->allowed++;
        else
            w->denied++;
    }
    return NULL;
}

typedef struct fx {
    np_server web;
    np_names names;
    np_events events;
    pathgate__netproxy_allow *allow;
    pathgate__netproxy *px;
} fx;

static void fx_start(fx *f)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(np_server_start(&f->web, AF_INET), 0);
    np_names_add(&f->names, "allowed.test", "127.0.0.1", NULL);
    np_names_add(&f->names, "other.test", "127.0.0.1", NULL);
    np_events_init(&f->events);
    char listed[64];
    snprintf(listed, sizeof listed, "127.0.0.1:%u", f->web.port);
    const char *entries[] = {"allowed.test", listed};
    assert_int_equal(pathgate__netproxy_allow_compile(&f->allow, NULL, entries, 2, NULL), 0);
    pathgate__netproxy_config cfg = PATHGATE__NETPROXY_CONFIG_INIT;
    cfg.allow = f->allow;
    cfg.audit = np_events_cb;
    cfg.audit_ctx = &f->events;
    cfg.resolve = np_names_resolve;
    cfg.resolve_ctx = &f->names;
    cfg.header_timeout_ms = 10000;
    assert_int_equal(pathgate__netproxy_start(&f->px, &cfg, NULL), 0);
}

static void fx_stop(fx *f)
{
    pathgate__netproxy_stop(f->px);
    pathgate__netproxy_allow_free(f->allow);
    np_server_stop(&f->web);
    np_events_destroy(&f->events);
}

static void test_concurrent_clients(void **state)
{
    (void)state;
    fx *f = calloc(1, sizeof *f);
    fx_start(f);
    shared sh = {pathgate__netproxy_socket(f->px), f->web.port};
    worker w[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].sh = &sh;
        w[i].index = i;
        assert_int_equal(pthread_create(&w[i].thread, NULL, work, &w[i]), 0);
    }
    int allowed = 0, denied = 0;
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(w[i].thread, NULL);
        if (w[i].failure[0])
            fail_msg("thread %d: %s", i, w[i].failure);
        allowed += w[i].allowed;
        denied += w[i].denied;
    }
    size_t total = (size_t)(allowed + denied);
    assert_int_equal(np_events_wait(&f->events, total), total);
    usleep(100000);
    assert_int_equal(np_events_count(&f->events), total);
    int ev_allowed = 0, ev_denied = 0;
    for (size_t i = 0; i < total; i++) {
        if (!strcmp(f->events.ev[i].outcome, "allowed"))
            ev_allowed++;
        else if (!strcmp(f->events.ev[i].outcome, "denied") &&
                 !strcmp(f->events.ev[i].reason, "not_listed"))
            ev_denied++;
    }
    assert_int_equal(ev_allowed, allowed);
    assert_int_equal(ev_denied, denied);
    fx_stop(f);
    free(f);
}

typedef struct holder {
    const char *socket;
    unsigned int port;
    int mode; /* 0: an open tunnel; 1: half a head; 2: silent */
    int fd;
    int ready; /* atomic */
    pthread_t thread;
    size_t after; /* bytes read after the stop (want 0: EOF) */
    int ok;
} holder;

static void *hold(void *p)
{
    holder *h = p;
    char buf[512];
    h->fd = np_dial(h->socket);
    if (h->fd < 0)
        return NULL;
    if (h->mode == 0) {
        snprintf(buf, sizeof buf, "CONNECT allowed.test:%u HTTP/1.1\r\n\r\n", h->port);
        np_send_str(h->fd, buf);
        np_read_head(h->fd, buf, sizeof buf);
        if (strcmp(buf, "HTTP/1.1 200 Connection established\r\n\r\n") != 0)
            return NULL;
    } else if (h->mode == 1) {
        np_send_str(h->fd, "GET http://allowed.test/ HTTP/1.1\r\nX-Half: ");
    }
    __atomic_store_n(&h->ready, 1, __ATOMIC_SEQ_CST);
    /* blocks until the proxy closes the connection (5 s receive timeout) */
    h->after = np_read_all(h->fd, buf, sizeof buf);
    h->ok = 1;
    close(h->fd);
    return NULL;
}

static void test_stop_with_clients_in_flight(void **state)
{
    (void)state;
    fx *f = calloc(1, sizeof *f);
    fx_start(f);
    holder h[9];
    for (int i = 0; i < 9; i++) {
        memset(&h[i], 0, sizeof h[i]);
        h[i].socket = pathgate__netproxy_socket(f->px);
        h[i].port = f->web.port;
        h[i].mode = i % 3;
        assert_int_equal(pthread_create(&h[i].thread, NULL, hold, &h[i]), 0);
    }
    for (int i = 0; i < 9; i++)
        while (!__atomic_load_n(&h[i].ready, __ATOMIC_SEQ_CST))
            usleep(1000);
    usleep(100000); /* the heads are read as far as they go */
    uint64_t t0 = pathgate__np_now_ms();
    pathgate__netproxy_stop(f->px);
    f->px = NULL;
    uint64_t took = pathgate__np_now_ms() - t0;
    for (int i = 0; i < 9; i++) {
        pthread_join(h[i].thread, NULL);
        assert_true(h[i].ok);
        assert_int_equal(h[i].after, 0);
    }
    assert_true(took < 3000); /* not the 10 s header timeout */
    fx_stop(f);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_clients),
        cmocka_unit_test(test_stop_with_clients_in_flight),
    };
    return cmocka_run_group_tests_name("netproxy_threads", tests, NULL, NULL);
}
