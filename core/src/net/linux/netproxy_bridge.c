/* netproxy_bridge.c - the bridge inside a command's network namespace:
 * 127.0.0.1:port and [::1]:port joined, byte for byte, to the proxy's
 * Unix socket. One process, one poll loop, fixed buffers, raw system
 * calls only (it may run in a process that shares the host process's
 * memory: no errno, no allocation, no lock, no sanitizer hook). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "exec_raw.h"
#include "netproxy.h"

#define BUF_SIZE 8192
#define BACKLOG 128

PG_NOSAN static void zero(void *p, size_t n)
{
    volatile unsigned char *d = p;
    while (n--)
        *d++ = 0;
}

PG_NOSAN long pathgate__netproxy_bridge_loopback_up(void)
{
    long fd = pg_raw(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fd;
    struct ifreq ifr;
    zero(&ifr, sizeof ifr);
    ifr.ifr_name[0] = 'l';
    ifr.ifr_name[1] = 'o';
    long rc = pg_raw(SYS_ioctl, fd, SIOCGIFFLAGS, &ifr);
    if (rc == 0 && !(ifr.ifr_flags & IFF_UP)) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        rc = pg_raw(SYS_ioctl, fd, SIOCSIFFLAGS, &ifr);
    }
    pg_raw(SYS_close, fd);
    return rc;
}

PG_NOSAN static long listen_on(int family, unsigned short port)
{
    long fd = pg_raw(SYS_socket, family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return fd;
    int one = 1;
    long rc = pg_raw(SYS_setsockopt, fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (rc == 0 && family == AF_INET) {
        struct sockaddr_in sa;
        zero(&sa, sizeof sa);
        sa.sin_family = AF_INET;
        unsigned char *pb = (unsigned char *)&sa.sin_port, *ip = (unsigned char *)&sa.sin_addr;
        pb[0] = (unsigned char)(port >> 8);
        pb[1] = (unsigned char)port;
        ip[0] = 127;
        ip[3] = 1;
        rc = pg_raw(SYS_bind, fd, &sa, sizeof sa);
    } else if (rc == 0) {
        rc = pg_raw(SYS_setsockopt, fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        struct sockaddr_in6 sa;
        zero(&sa, sizeof sa);
        sa.sin6_family = AF_INET6;
        unsigned char *pb = (unsigned char *)&sa.sin6_port;
        pb[0] = (unsigned char)(port >> 8);
        pb[1] = (unsigned char)port;
        sa.sin6_addr.s6_addr[15] = 1; /* ::1 */
        if (rc == 0)
            rc = pg_raw(SYS_bind, fd, &sa, sizeof sa);
    }
    if (rc == 0)
        rc = pg_raw(SYS_listen, fd, BACKLOG);
    if (rc < 0) {
        pg_raw(SYS_close, fd);
        return rc;
    }
    return fd;
}

PG_NOSAN long pathgate__netproxy_bridge_listen(pathgate__netproxy_bridge *b, unsigned short port,
                                               const char *socket_path)
{
    b->listen4 = b->listen6 = -1;
    zero(&b->target, sizeof b->target);
    size_t n = 0;
    while (socket_path[n]) {
        if (n + 1 >= sizeof b->target.path)
            return -ENAMETOOLONG;
        b->target.path[n] = socket_path[n];
        n++;
    }
    if (n == 0)
        return -EINVAL;
    b->target.family = AF_UNIX;
    b->target_len = (unsigned int)(sizeof b->target.family + n + 1);
    long fd = listen_on(AF_INET, port);
    if (fd < 0)
        return fd;
    b->listen4 = (int)fd;
    /* IPv6 is optional: a kernel without it, or without ::1 on lo */
    fd = listen_on(AF_INET6, port);
    if (fd >= 0)
        b->listen6 = (int)fd;
    return 0;
}

/* One joined connection: a (the command's TCP connection) and b (the
 * Unix socket); flow 0 is a -> b, flow 1 is b -> a. */
typedef struct pair {
    int fd[2];
    unsigned int len[2], off[2];
    unsigned char eof[2], shut[2];
    char *buf[2];
} pair;

PG_NOSAN static void pair_close(pair *p)
{
    pg_raw(SYS_close, p->fd[0]);
    pg_raw(SYS_close, p->fd[1]);
    p->fd[0] = p->fd[1] = -1;
}

/* Moves flow d of p: 1 moved, 0 nothing, -1 error. */
PG_NOSAN static int step(pair *p, int d, short rev_from, short rev_to)
{
    int from = p->fd[d], to = p->fd[1 - d], moved = 0;
    if (!p->len[d] && !p->eof[d] && (rev_from & (POLLIN | POLLHUP | POLLERR))) {
        long n = pg_raw(SYS_recvfrom, from, p->buf[d], BUF_SIZE, 0, 0, 0);
        if (n > 0) {
            p->len[d] = (unsigned int)n;
            p->off[d] = 0;
            moved = 1;
        } else if (n == 0) {
            p->eof[d] = 1;
            moved = 1;
        } else if (n != -EAGAIN && n != -EINTR) {
            return -1;
        }
    }
    if (p->len[d] && ((rev_to & (POLLOUT | POLLERR | POLLHUP)) || moved)) {
        long n = pg_raw(SYS_sendto, to, p->buf[d] + p->off[d], p->len[d] - p->off[d], MSG_NOSIGNAL,
                        0, 0);
        if (n > 0) {
            p->off[d] += (unsigned int)n;
            if (p->off[d] == p->len[d])
                p->len[d] = p->off[d] = 0;
            moved = 1;
        } else if (n != -EAGAIN && n != -EINTR) {
            return -1;
        }
    }
    if (p->eof[d] && !p->len[d] && !p->shut[d]) {
        pg_raw(SYS_shutdown, to, SHUT_WR);
        p->shut[d] = 1;
        moved = 1;
    }
    return moved;
}

/* Joins a freshly accepted connection to a new connection to the socket:
 * 1 when joined, 0 when it was closed. */
PG_NOSAN static int join(const pathgate__netproxy_bridge *b, pair *pairs, char *mem, long conn)
{
    long u = pg_raw(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    long rc = u < 0 ? u : pg_raw(SYS_connect, u, &b->target, b->target_len);
    if (rc == 0)
        rc = pg_raw(SYS_fcntl, u, F_SETFL, O_NONBLOCK);
    if (rc < 0) {
        if (u >= 0)
            pg_raw(SYS_close, u);
        pg_raw(SYS_close, conn);
        return 0;
    }
    for (int i = 0; i < PATHGATE__NETPROXY_BRIDGE_MAX; i++) {
        pair *p = &pairs[i];
        if (p->fd[0] >= 0)
            continue;
        p->fd[0] = (int)conn;
        p->fd[1] = (int)u;
        p->len[0] = p->len[1] = p->off[0] = p->off[1] = 0;
        p->eof[0] = p->eof[1] = p->shut[0] = p->shut[1] = 0;
        p->buf[0] = mem + (size_t)i * 2 * BUF_SIZE;
        p->buf[1] = p->buf[0] + BUF_SIZE;
        return 1;
    }
    pg_raw(SYS_close, u); /* not reached: the caller counts free pairs */
    pg_raw(SYS_close, conn);
    return 0;
}

PG_NOSAN long pathgate__netproxy_bridge_serve(const pathgate__netproxy_bridge *b, void *mem)
{
    if (!mem) {
        long m = pg_raw(SYS_mmap, 0, PATHGATE__NETPROXY_BRIDGE_MEM, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m < 0 && m > -4096)
            return m;
        mem = (void *)m;
    }
    pair pairs[PATHGATE__NETPROXY_BRIDGE_MAX];
    for (int i = 0; i < PATHGATE__NETPROXY_BRIDGE_MAX; i++)
        pairs[i].fd[0] = pairs[i].fd[1] = -1;
    int listeners[2] = {b->listen4, b->listen6};
    int paused = 0;
    struct pollfd fds[2 + 2 * PATHGATE__NETPROXY_BRIDGE_MAX];
    int owner[2 + 2 * PATHGATE__NETPROXY_BRIDGE_MAX];
    for (;;) {
        int n = 0, active = 0;
        for (int i = 0; i < PATHGATE__NETPROXY_BRIDGE_MAX; i++) {
            pair *p = &pairs[i];
            if (p->fd[0] < 0)
                continue;
            active++;
            for (int s = 0; s < 2; s++) {
                fds[n].events = (short)((!p->eof[s] && !p->len[s] ? POLLIN : 0) |
                                        (p->len[1 - s] ? POLLOUT : 0));
                /* nothing asked of it now: left out (a POLLHUP would
                 * wake the loop for nothing; queued data stays) */
                fds[n].fd = fds[n].events ? p->fd[s] : -1;
                fds[n].revents = 0;
                owner[n++] = i;
            }
        }
        int first_listener = n;
        if (active < PATHGATE__NETPROXY_BRIDGE_MAX && !paused) {
            for (int l = 0; l < 2; l++) {
                if (listeners[l] < 0)
                    continue;
                fds[n].fd = listeners[l];
                fds[n].events = POLLIN;
                fds[n].revents = 0;
                owner[n++] = -1;
            }
        }
        /* after a failed accept (out of descriptors): 50 ms without
         * accepting, so a listener that stays readable is no busy loop */
        struct timespec pause_ts = {0, 50 * 1000 * 1000};
        long r = pg_raw(SYS_ppoll, fds, n, paused ? &pause_ts : 0, 0, 0);
        paused = 0;
        if (r == -EINTR)
            continue;
        if (r < 0)
            return r;
        for (int k = 0; k < first_listener; k += 2) {
            pair *p = &pairs[owner[k]];
            int a = step(p, 0, fds[k].revents, fds[k + 1].revents);
            int c = a < 0 ? -1 : step(p, 1, fds[k + 1].revents, fds[k].revents);
            int gone = a < 0 || c < 0 || (p->shut[0] && p->shut[1]) ||
                       (!a && !c &&
                        ((fds[k].revents | fds[k + 1].revents) & (POLLHUP | POLLERR | POLLNVAL)));
            if (gone) {
                pair_close(p);
                active--;
            }
        }
        for (int k = first_listener; k < n && active < PATHGATE__NETPROXY_BRIDGE_MAX; k++) {
            if (!fds[k].revents)
                continue;
            long conn = pg_raw(SYS_accept4, fds[k].fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (conn >= 0)
                active += join(b, pairs, mem, conn);
            else if (conn != -EAGAIN && conn != -EINTR && conn != -ECONNABORTED)
                paused = 1;
        }
    }
}
