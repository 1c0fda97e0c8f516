/*
 * netproxy_fixture.h - what the proxy suites share (header-only, included
 * by test_netproxy*.c; not a suite itself):
 *
 *  - np_server: an HTTP server on 127.0.0.1 (or ::1), port 0, in a thread.
 *    It answers each request with its own head as the body (so a test sees
 *    exactly what the proxy forwarded) and counts connections (so a test
 *    sees that a refused request never reached it);
 *  - np_names: the resolution hook: a table of names and addresses, and a
 *    count of calls;
 *  - np_events: the audit callback: copies of every event, thread-safe,
 *    with a wait for the n-th;
 *  - clients: a blocking Unix-socket connection to the proxy with receive
 *    timeouts, send, read until EOF.
 */
#ifndef PATHGATE_TEST_NETPROXY_FIXTURE_H
#define PATHGATE_TEST_NETPROXY_FIXTURE_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "netproxy.h"
#include "netproxy_internal.h"

/* ------------------------------------------------------------- server */

typedef struct np_server {
    int fd;
    int family;
    unsigned int port;
    int stop_pipe[2];
    pthread_t thread;
    int connections; /* atomic */
} np_server;

static inline int np_server_send_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Answers each request with its head as the body; a request whose
 * method is MIRROR gets a bare 200 and then every byte it sends after
 * its head, back, until it shuts down its side. */
static inline void *np_server_main(void *p)
{
    np_server *s = p;
    for (;;) {
        struct pollfd fds[2] = {{s->fd, POLLIN, 0}, {s->stop_pipe[0], POLLIN, 0}};
        if (poll(fds, 2, -1) < 0 && errno != EINTR)
            break;
        if (fds[1].revents)
            break;
        if (!fds[0].revents)
            continue;
        int c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        __atomic_add_fetch(&s->connections, 1, __ATOMIC_SEQ_CST);
        char head[8192];
        size_t len = 0;
        struct timeval tv = {2, 0};
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        while (len < sizeof head - 1) {
            ssize_t n = recv(c, head + len, sizeof head - 1 - len, 0);
            if (n <= 0)
                break;
            len += (size_t)n;
            head[len] = '\0';
            if (strstr(head, "\r\n\r\n"))
                break;
        }
        char *end = strstr(head, "\r\n\r\n");
        if (strncmp(head, "MIRROR ", 7) == 0 && end) {
            /* every byte after the head comes back, until EOF */
            static const char ok[] = "HTTP/1.0 200 OK\r\n\r\n";
            send(c, ok, sizeof ok - 1, MSG_NOSIGNAL);
            size_t extra = len - (size_t)(end + 4 - head);
            if (extra)
                send(c, end + 4, extra, MSG_NOSIGNAL);
            /* longer than a client waits: only the client's EOF ends it */
            struct timeval tv10 = {10, 0};
            setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv10, sizeof tv10);
            char chunk[65536];
            ssize_t got;
            while ((got = recv(c, chunk, sizeof chunk, 0)) > 0)
                if (np_server_send_all(c, chunk, (size_t)got) != 0)
                    break;
            close(c);
            continue;
        }
        char resp[256];
        int n =
            snprintf(resp, sizeof resp,
                     "HTTP/1.0 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", len);
        send(c, resp, (size_t)n, MSG_NOSIGNAL);
        send(c, head, len, MSG_NOSIGNAL);
        close(c);
    }
    return NULL;
}

/* Starts a server on 127.0.0.1 (AF_INET) or ::1 (AF_INET6), or on the
 * address `at` (NULL: loopback); 0 or -1. */
static inline int np_server_start_at(np_server *s, int family, const char *at);

static inline int np_server_start(np_server *s, int family)
{
    return np_server_start_at(s, family, NULL);
}

static inline int np_server_start_at(np_server *s, int family, const char *at)
{
    memset(s, 0, sizeof *s);
    s->family = family;
    s->fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s->fd < 0)
        return -1;
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (at && inet_pton(AF_INET, at, &a->sin_addr) != 1)
            return -1;
        sl = sizeof *a;
    } else {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_loopback;
        if (at && inet_pton(AF_INET6, at, &a->sin6_addr) != 1)
            return -1;
        sl = sizeof *a;
    }
    if (bind(s->fd, (struct sockaddr *)&ss, sl) < 0 || listen(s->fd, 64) < 0 ||
        getsockname(s->fd, (struct sockaddr *)&ss, &sl) < 0 || pipe2(s->stop_pipe, O_CLOEXEC) < 0) {
        close(s->fd);
        return -1;
    }
    s->port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                      : ((struct sockaddr_in6 *)&ss)->sin6_port);
    if (pthread_create(&s->thread, NULL, np_server_main, s) != 0) {
        close(s->fd);
        return -1;
    }
    return 0;
}

static inline void np_server_stop(np_server *s)
{
    close(s->stop_pipe[1]);
    pthread_join(s->thread, NULL);
    close(s->stop_pipe[0]);
    close(s->fd);
}

static inline int np_server_connections(np_server *s)
{
    return __atomic_load_n(&s->connections, __ATOMIC_SEQ_CST);
}

/* -------------------------------------------------------------- names */

#define NP_NAMES_MAX 16

typedef struct np_names {
    struct {
        const char *name;
        const char *addrs[4];
    } entry[NP_NAMES_MAX];
    size_t n;
    int calls; /* atomic */
} np_names;

static inline void np_names_add(np_names *t, const char *name, const char *a0, const char *a1)
{
    t->entry[t->n].name = name;
    t->entry[t->n].addrs[0] = a0;
    t->entry[t->n].addrs[1] = a1;
    t->n++;
}

static inline int np_names_resolve(pathgate__net_addr *out, size_t max, const char *host, void *ctx)
{
    np_names *t = ctx;
    __atomic_add_fetch(&t->calls, 1, __ATOMIC_SEQ_CST);
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->entry[i].name, host) != 0)
            continue;
        size_t k = 0;
        for (size_t j = 0; j < 4 && t->entry[i].addrs[j] && k < max; j++) {
            memset(&out[k], 0, sizeof out[k]);
            if (inet_pton(AF_INET, t->entry[i].addrs[j], out[k].bytes) == 1)
                out[k++].family = AF_INET;
            else if (inet_pton(AF_INET6, t->entry[i].addrs[j], out[k].bytes) == 1)
                out[k++].family = AF_INET6;
        }
        return (int)k;
    }
    return 0;
}

/* ------------------------------------------------------------- events */

#define NP_EVENTS_MAX 512

typedef struct np_event_copy {
    char door[16], operation[16], address[300], ip[64], outcome[16], reason[32], rule[320];
    int has_address, has_ip, has_reason, has_rule, has_operation;
    int64_t time_sec;
} np_event_copy;

typedef struct np_events {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    np_event_copy ev[NP_EVENTS_MAX];
    size_t n;
} np_events;

static inline void np_events_init(np_events *e)
{
    memset(e, 0, sizeof *e);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->cond, NULL);
}

static inline void np_events_destroy(np_events *e)
{
    pthread_mutex_destroy(&e->lock);
    pthread_cond_destroy(&e->cond);
}

#define NP_COPY(dst, src, flag)                                                                    \
    do {                                                                                           \
        if (src) {                                                                                 \
            snprintf(dst, sizeof dst, "%s", src);                                                  \
            flag = 1;                                                                              \
        }                                                                                          \
    } while (0)

static inline void np_events_cb(const pathgate__net_event *ev, void *ctx)
{
    np_events *e = ctx;
    pthread_mutex_lock(&e->lock);
    if (e->n < NP_EVENTS_MAX) {
        np_event_copy *c = &e->ev[e->n];
        memset(c, 0, sizeof *c);
        int ignored = 0;
        NP_COPY(c->door, ev->door, ignored);
        NP_COPY(c->operation, ev->operation, c->has_operation);
        NP_COPY(c->address, ev->address, c->has_address);
        NP_COPY(c->ip, ev->ip, c->has_ip);
        NP_COPY(c->outcome, ev->outcome, ignored);
        NP_COPY(c->reason, ev->reason, c->has_reason);
        NP_COPY(c->rule, ev->rule, c->has_rule);
        (void)ignored;
        c->time_sec = ev->time_sec;
        e->n++;
    }
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
}

/* Waits (up to 5 s) until there are at least n events; returns how many. */
static inline size_t np_events_wait(np_events *e, size_t n)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 5;
    pthread_mutex_lock(&e->lock);
    while (e->n < n && pthread_cond_timedwait(&e->cond, &e->lock, &until) == 0) {
    }
    size_t got = e->n;
    pthread_mutex_unlock(&e->lock);
    return got;
}

static inline size_t np_events_count(np_events *e)
{
    pthread_mutex_lock(&e->lock);
    size_t n = e->n;
    pthread_mutex_unlock(&e->lock);
    return n;
}

/* ------------------------------------------------------------ clients */

/* A connection to the proxy's socket with a 5 s receive timeout, or -1. */
static inline int np_dial(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static inline int np_send_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static inline int np_send_str(int fd, const char *s)
{
    return np_send_all(fd, s, strlen(s));
}

/* Reads until EOF, an error or the receive timeout; NUL-terminates. */
static inline size_t np_read_all(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t n = recv(fd, buf + len, cap - 1 - len, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    return len;
}

/* Reads exactly n bytes (or fewer at EOF / timeout); returns the count. */
static inline size_t np_read_n(int fd, void *buf, size_t n)
{
    size_t len = 0;
    while (len < n) {
        ssize_t r = recv(fd, (char *)buf + len, n - len, 0);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    return len;
}

/* Reads an HTTP response head (up to the blank line) into buf. */
static inline size_t np_read_head(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t n = recv(fd, buf + len, 1, 0);
        if (n <= 0)
            break;
        len++;
        buf[len] = '\0';
        if (len >= 4 && memcmp(buf + len - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    buf[len] = '\0';
    return len;
}

/* Sends size bytes of a pattern through fd while reading them back
 * (fd must already be past any response head); shuts down the write side
 * at the end and reads to EOF. 0 when every byte came back in order,
 * else -1 with why[] saying what happened. */
static char np_mirror_why[128];

static inline int np_mirror_fail(const char *what, size_t sent, size_t got)
{
    snprintf(np_mirror_why, sizeof np_mirror_why, "%s (sent %zu, got %zu, errno %d)", what, sent,
             got, errno);
    return -1;
}

static inline int np_mirror(int fd, size_t size)
{
    size_t sent = 0, got = 0;
    char out[8192], in[8192];
    int shut = 0;
    while (got < size) {
        struct pollfd p = {fd, (short)(POLLIN | (sent < size ? POLLOUT : 0)), 0};
        int pr = poll(&p, 1, 5000);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            return np_mirror_fail("poll timed out", sent, got);
        if ((p.revents & POLLOUT) && sent < size) {
            size_t n = size - sent < sizeof out ? size - sent : sizeof out;
            for (size_t i = 0; i < n; i++)
                out[i] = (char)((sent + i) * 7 + ((sent + i) >> 13));
            ssize_t w = send(fd, out, n, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w < 0 && errno != EAGAIN && errno != EINTR)
                return np_mirror_fail("send", sent, got);
            if (w > 0)
                sent += (size_t)w;
        }
        if (sent == size && !shut) {
            shutdown(fd, SHUT_WR);
            shut = 1;
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t r = recv(fd, in, sizeof in, MSG_DONTWAIT);
            if (r == 0)
                return np_mirror_fail("early EOF", sent, got);
            if (r < 0 && errno != EAGAIN && errno != EINTR)
                return np_mirror_fail("recv", sent, got);
            for (ssize_t i = 0; i < r; i++)
                if (in[i] != (char)((got + (size_t)i) * 7 + ((got + (size_t)i) >> 13)))
                    return np_mirror_fail("wrong byte", sent, got + (size_t)i);
            if (r > 0)
                got += (size_t)r;
        }
    }
    if (!shut)
        shutdown(fd, SHUT_WR);
    char tail[16];
    ssize_t r = recv(fd, tail, sizeof tail, 0);
    return r == 0 ? 0 : np_mirror_fail("no EOF at the end", sent, got);
}

#endif
