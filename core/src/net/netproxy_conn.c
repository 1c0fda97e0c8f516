/* netproxy_conn.c - one connection of the proxy: bounded reads and writes
 * that the stop interrupts, the decision (allowlist, resolution on the
 * host, the address check, the connection to a checked address), the
 * audit event, and the relay. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "netproxy_internal.h"

uint64_t pathgate__np_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Milliseconds until deadline for poll (0 when past; capped). */
static int remaining(uint64_t deadline)
{
    uint64_t now = pathgate__np_now_ms();
    if (now >= deadline)
        return 0;
    uint64_t left = deadline - now;
    return left > 60000 ? 60000 : (int)left;
}

/* Waits until fd is ready for events, the deadline passes or the proxy
 * stops. 0 (ready), NP_ETIME, NP_ESTOP or NP_EIO. */
static int wait_fd(np_conn *c, int fd, short events, uint64_t deadline)
{
    for (;;) {
        struct pollfd p[2] = {{fd, events, 0}, {c->px->stop_r, POLLIN, 0}};
        int ms = remaining(deadline);
        if (ms == 0)
            return NP_ETIME;
        int r = poll(p, 2, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return NP_EIO;
        if (p[1].revents)
            return NP_ESTOP;
        if (p[0].revents)
            return 0;
    }
}

int pathgate__np_read_more(np_conn *c)
{
    size_t cap = c->px->max_header;
    if (c->len >= cap)
        return NP_EFULL;
    for (;;) {
        ssize_t n = recv(c->fd, c->buf + c->len, cap - c->len, 0);
        if (n > 0) {
            c->len += (size_t)n;
            return (int)n;
        }
        if (n == 0)
            return NP_EOF;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return NP_EIO;
        int w = wait_fd(c, c->fd, POLLIN, c->deadline);
        if (w)
            return w;
    }
}

static int send_all(np_conn *c, int fd, const char *data, size_t len, uint64_t deadline)
{
    while (len) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n > 0) {
            data += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return NP_EIO;
        int w = wait_fd(c, fd, POLLOUT, deadline);
        if (w)
            return w;
    }
    return 0;
}

int pathgate__np_send(np_conn *c, const void *data, size_t len)
{
    uint64_t now = pathgate__np_now_ms();
    uint64_t deadline = (c->deadline > now ? c->deadline : now) + c->px->idle_timeout_ms;
    return send_all(c, c->fd, data, len, deadline);
}

int pathgate__np_target_set(np_target *t, const char *operation, const char *host, size_t len,
                            unsigned int port)
{
    memset(t, 0, sizeof *t);
    t->operation = operation;
    t->port = port;
    if (port == 0 || port > 65535 ||
        pathgate__np_host_parse(t->host, &t->lit, &t->literal, host, len) != 0)
        return -1;
    if (t->literal && t->lit.family == AF_INET6)
        snprintf(t->address, sizeof t->address, "[%s]:%u", t->host, port);
    else
        snprintf(t->address, sizeof t->address, "%s:%u", t->host, port);
    return 0;
}

/* ----------------------------------------------------------------- audit */

void pathgate__np_audit(np_conn *c, const np_target *t, const char *outcome, const char *reason)
{
    pathgate__netproxy *px = c->px;
    if (!px->audit)
        return;
    pathgate__net_event ev;
    memset(&ev, 0, sizeof ev);
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) == 0) {
        ev.time_sec = (int64_t)ts.tv_sec;
        ev.time_nsec = ts.tv_nsec;
    }
    ev.door = px->door;
    ev.outcome = outcome;
    ev.reason = reason;
    if (t) {
        ev.operation = t->operation;
        ev.address = t->address[0] ? t->address : NULL;
        ev.ip = t->ip[0] ? t->ip : NULL;
        ev.rule = t->rule;
    }
    px->audit(&ev, px->audit_ctx);
}

/* ------------------------------------------------------------ resolution */

/* "localhost" and names below it are the loopback address 127.0.0.1,
 * whatever the host's files say (RFC 6761, 6.3): the same answer on every
 * machine, also one without /etc/hosts (where glibc would ask DNS). To
 * reach a service on ::1, list [::1]:port and use it. */
static int is_localhost(const char *host)
{
    size_t n = strlen(host);
    if (n && host[n - 1] == '.')
        n--;
    static const char name[] = "localhost";
    const size_t k = sizeof name - 1;
    return n >= k && strncasecmp(host + n - k, name, k) == 0 && (n == k || host[n - k - 1] == '.');
}

static int resolve_libc(pathgate__net_addr *out, size_t max, const char *host)
{
    if (is_localhost(host)) {
        if (max == 0)
            return 0;
        memset(out, 0, sizeof *out);
        out->family = AF_INET;
        out->bytes[0] = 127;
        out->bytes[3] = 1;
        return 1;
    }
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc == EAI_NONAME || rc == EAI_NODATA || rc == EAI_ADDRFAMILY)
        return 0;
    if (rc != 0)
        return -1;
    size_t n = 0;
    for (const struct addrinfo *ai = res; ai && n < max; ai = ai->ai_next) {
        pathgate__net_addr a;
        memset(&a, 0, sizeof a);
        if (ai->ai_family == AF_INET && ai->ai_addrlen >= sizeof(struct sockaddr_in)) {
            a.family = AF_INET;
            memcpy(a.bytes, &((const struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
        } else if (ai->ai_family == AF_INET6 && ai->ai_addrlen >= sizeof(struct sockaddr_in6)) {
            a.family = AF_INET6;
            memcpy(a.bytes, &((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
        } else {
            continue;
        }
        out[n++] = a;
    }
    freeaddrinfo(res);
    return (int)n;
}

/* An IPv4-mapped answer is the IPv4 address; duplicates are dropped. */
static size_t addrs_clean(pathgate__net_addr *a, size_t n)
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i].family == AF_INET6 && memcmp(a[i].bytes, mapped, 12) == 0) {
            memmove(a[i].bytes, a[i].bytes + 12, 4);
            memset(a[i].bytes + 4, 0, 12);
            a[i].family = AF_INET;
        }
        if (a[i].family != AF_INET && a[i].family != AF_INET6)
            continue;
        int dup = 0;
        for (size_t j = 0; j < k && !dup; j++)
            dup = a[j].family == a[i].family && memcmp(a[j].bytes, a[i].bytes, 16) == 0;
        if (!dup)
            a[k++] = a[i];
    }
    return k;
}

/* 1 when a is assigned to one of this host's interfaces (list: getifaddrs). */
static int host_address(const struct ifaddrs *list, const pathgate__net_addr *a)
{
    for (const struct ifaddrs *i = list; i; i = i->ifa_next) {
        const struct sockaddr *sa = i->ifa_addr;
        if (!sa || sa->sa_family != a->family)
            continue;
        const void *b = a->family == AF_INET
                            ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                            : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (memcmp(b, a->bytes, a->family == AF_INET ? 4 : 16) == 0)
            return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ connecting */

/* One non-blocking connect to a, bounded by deadline. 0 (c->up set),
 * or a negative errno / NP_ETIME / NP_ESTOP. */
static int connect_one(np_conn *c, const pathgate__net_addr *a, unsigned int port,
                       uint64_t deadline)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    if (a->family == AF_INET) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        memcpy(&s4->sin_addr, a->bytes, 4);
        sl = sizeof *s4;
    } else {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        memcpy(&s6->sin6_addr, a->bytes, 16);
        sl = sizeof *s6;
    }
    int fd = socket(a->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int rc = connect(fd, (struct sockaddr *)&ss, sl);
    if (rc < 0 && errno != EINPROGRESS && errno != EINTR) {
        rc = -errno;
        close(fd);
        return rc;
    }
    if (rc < 0) {
        int w = wait_fd(c, fd, POLLOUT, deadline);
        if (w) {
            close(fd);
            return w;
        }
        int soerr = 0;
        socklen_t len = sizeof soerr;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
            soerr = errno;
        if (soerr) {
            close(fd);
            return -soerr;
        }
    }
    c->up = fd;
    return 0;
}

enum np_verdict pathgate__np_connect(np_conn *c, np_target *t)
{
    pathgate__netproxy *px = c->px;
    pathgate__net_addr addrs[NP_MAX_ADDRS];
    size_t n = 0;
    t->rule = pathgate__np_allow_match(px->allow, t->host, t->literal ? &t->lit : NULL, t->port);
    if (!t->rule) {
        pathgate__np_audit(c, t, "denied", "not_listed");
        return NP_NOT_LISTED;
    }
    if (t->literal) {
        /* listed as it is: connect to it, whatever its range */
        addrs[n++] = t->lit;
    } else {
        int r = px->resolve ? px->resolve(addrs, NP_MAX_ADDRS, t->host, px->resolve_ctx)
                            : resolve_libc(addrs, NP_MAX_ADDRS, t->host);
        if (r > NP_MAX_ADDRS)
            r = NP_MAX_ADDRS;
        n = r > 0 ? addrs_clean(addrs, (size_t)r) : 0;
        if (n == 0) {
            pathgate__np_audit(c, t, "failed", "resolve_failed");
            return NP_RESOLVE_FAILED;
        }
        /* Every address the name has now must be one the command may
         * reach: an internal one, or one of this host's own (a service
         * bound to 0.0.0.0 answers there as on loopback), that is not
         * listed refuses the name. */
        struct ifaddrs *ifa = NULL;
        if (getifaddrs(&ifa) != 0)
            ifa = NULL;
        const char *why = NULL;
        for (size_t i = 0; i < n && !why; i++) {
            if (pathgate__np_allow_match(px->allow, NULL, &addrs[i], t->port))
                continue;
            if (pathgate__net_addr_is_internal(&addrs[i]))
                why = "private_address";
            else if (host_address(ifa, &addrs[i]))
                why = "host_address";
            if (why)
                pathgate__np_addr_text(t->ip, sizeof t->ip, &addrs[i]);
        }
        if (ifa)
            freeifaddrs(ifa);
        if (why) {
            pathgate__np_audit(c, t, "denied", why);
            return NP_PRIVATE;
        }
    }
    /* Only the addresses just checked are tried: no second resolution. */
    uint64_t deadline = pathgate__np_now_ms() + px->connect_timeout_ms;
    int last = -ECONNREFUSED;
    for (size_t i = 0; i < n; i++) {
        int rc = connect_one(c, &addrs[i], t->port, deadline);
        if (rc == 0) {
            pathgate__np_addr_text(t->ip, sizeof t->ip, &addrs[i]);
            return NP_ALLOWED;
        }
        if (rc == NP_ESTOP)
            return NP_STOPPING;
        last = rc;
        if (rc == NP_ETIME)
            break;
    }
    if (last == NP_ETIME) {
        pathgate__np_audit(c, t, "failed", "connect_timeout");
        return NP_TIMEOUT;
    }
    pathgate__np_audit(c, t, "failed", "connect_failed");
    return last == -ECONNREFUSED ? NP_REFUSED : NP_UNREACHABLE;
}

/* ------------------------------------------------------------------ relay */

typedef struct flow {
    int from, to;
    char *buf;
    size_t len, off;
    int eof;  /* from has no more */
    int shut; /* to was shut down for writing */
} flow;

/* Moves what it can along one flow: 1 when something moved or changed,
 * 0 when nothing did, -1 on an error. */
static int flow_step(flow *f, short rev_from, short rev_to)
{
    int moved = 0;
    if (f->len == 0 && !f->eof && (rev_from & (POLLIN | POLLHUP | POLLERR))) {
        ssize_t n = recv(f->from, f->buf, NP_RELAY_BUF, 0);
        if (n > 0) {
            f->len = (size_t)n;
            f->off = 0;
            moved = 1;
        } else if (n == 0) {
            f->eof = moved = 1;
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return -1;
        }
    }
    if (f->len && ((rev_to & (POLLOUT | POLLERR | POLLHUP)) || moved)) {
        ssize_t n = send(f->to, f->buf + f->off, f->len - f->off, MSG_NOSIGNAL);
        if (n > 0) {
            f->off += (size_t)n;
            if (f->off == f->len)
                f->len = f->off = 0;
            moved = 1;
        } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return -1;
        }
    }
    if (f->eof && f->len == 0 && !f->shut) {
        shutdown(f->to, SHUT_WR);
        f->shut = moved = 1;
    }
    return moved;
}

void pathgate__np_relay(np_conn *c, const char *first, size_t n1, const char *then, size_t n2)
{
    pathgate__netproxy *px = c->px;
    uint64_t idle_deadline = pathgate__np_now_ms() + px->idle_timeout_ms;
    if (n1 && send_all(c, c->up, first, n1, idle_deadline) != 0)
        return;
    if (n2 && send_all(c, c->up, then, n2, idle_deadline) != 0)
        return;
    char *bufs = pathgate__malloc(&px->alloc, 2 * NP_RELAY_BUF);
    if (!bufs)
        return;
    flow f[2] = {{c->fd, c->up, bufs, 0, 0, 0, 0}, {c->up, c->fd, bufs + NP_RELAY_BUF, 0, 0, 0, 0}};
    while (!(f[0].shut && f[1].shut)) {
        struct pollfd p[3];
        p[0].events = (short)((!f[0].eof && !f[0].len ? POLLIN : 0) | (f[1].len ? POLLOUT : 0));
        p[1].events = (short)((!f[1].eof && !f[1].len ? POLLIN : 0) | (f[0].len ? POLLOUT : 0));
        /* A side nothing is asked of now is left out: its POLLHUP (both
         * directions shut, unread data perhaps still queued) would wake
         * the loop for nothing while the other side is not writable. */
        p[0].fd = p[0].events ? c->fd : -1;
        p[1].fd = p[1].events ? c->up : -1;
        p[2].fd = px->stop_r;
        p[2].events = POLLIN;
        p[0].revents = p[1].revents = p[2].revents = 0;
        int ms = remaining(idle_deadline);
        if (ms == 0)
            break; /* idle */
        int r = poll(p, 3, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || p[2].revents)
            break;
        if (r == 0)
            continue;
        int a = flow_step(&f[0], p[0].revents, p[1].revents);
        int b = a < 0 ? -1 : flow_step(&f[1], p[1].revents, p[0].revents);
        if (a < 0 || b < 0)
            break;
        if (!a && !b) {
            /* POLLHUP / POLLERR that moves nothing: a side is gone */
            if ((p[0].revents | p[1].revents) & (POLLHUP | POLLERR | POLLNVAL))
                break;
            continue;
        }
        idle_deadline = pathgate__np_now_ms() + px->idle_timeout_ms;
    }
    pathgate__free(&px->alloc, bufs);
}
