/* netproxy.c - the proxy's life: the private directory and its Unix
 * socket, the accepting thread, one thread per connection (at most
 * max_conns), the stop that closes every connection and joins every
 * thread. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "netproxy_internal.h"

#define DIR_TEMPLATE "pathgate-net-XXXXXX"
#define LISTEN_BACKLOG 128
/* A connection thread's stack (resolution through NSS included). */
#define CONN_STACK (256u * 1024u)

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NP_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NP_SANITIZED 1
#endif
#endif

const char *const pathgate__netproxy_env[] = {
    "HTTP_PROXY=http://127.0.0.1:" PATHGATE__NETPROXY_PORT_STR,
    "HTTPS_PROXY=http://127.0.0.1:" PATHGATE__NETPROXY_PORT_STR,
    "ALL_PROXY=socks5h://127.0.0.1:" PATHGATE__NETPROXY_PORT_STR,
    "http_proxy=http://127.0.0.1:" PATHGATE__NETPROXY_PORT_STR,
    "https_proxy=http://127.0.0.1:" PATHGATE__NETPROXY_PORT_STR,
    "all_proxy=socks5h://127.0.0.1:" PATHGATE__NETPROXY_PORT_STR,
    "NO_PROXY=localhost,127.0.0.1,::1",
    "no_proxy=localhost,127.0.0.1,::1",
    NULL,
};

const char *pathgate__netproxy_dir(const pathgate__netproxy *proxy)
{
    return proxy ? proxy->dir : NULL;
}

const char *pathgate__netproxy_socket(const pathgate__netproxy *proxy)
{
    return proxy ? proxy->sock : NULL;
}

/* ------------------------------------------------------------ connections */

static void *conn_main(void *p)
{
    np_conn *c = p;
    c->deadline = pathgate__np_now_ms() + c->px->header_timeout_ms;
    int r = pathgate__np_read_more(c);
    if (r > 0) {
        if (c->buf[0] == 5)
            pathgate__np_socks5(c);
        else if (c->buf[0] == 4)
            pathgate__np_audit(c, NULL, "invalid", "unsupported"); /* SOCKS4 */
        else
            pathgate__np_http(c);
    } else if (r == NP_ETIME) {
        pathgate__np_audit(c, NULL, "invalid", "timeout");
    }
    /* (a connection closed before its first byte asked nothing) */
    if (c->up >= 0)
        close(c->up);
    close(c->fd);
    c->up = c->fd = -1;
    __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void conn_free(pathgate__netproxy *px, np_conn *c)
{
    pathgate__free(&px->alloc, c->buf);
    pathgate__free(&px->alloc, c);
}

/* Joins the finished connection threads (acceptor only). */
static void reap(pathgate__netproxy *px, int all)
{
    for (unsigned int i = 0; i < px->max_conns; i++) {
        np_conn *c = px->slots[i];
        if (!c || (!all && !__atomic_load_n(&c->done, __ATOMIC_ACQUIRE)))
            continue;
        pthread_join(c->thread, NULL);
        pthread_mutex_lock(&px->lock);
        px->slots[i] = NULL;
        px->nrunning--;
        pthread_mutex_unlock(&px->lock);
        conn_free(px, c);
    }
}

/* A refusal before any thread: its event, then the close. */
static void refuse_now(pathgate__netproxy *px, int fd, const char *outcome, const char *reason)
{
    np_conn tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.px = px;
    tmp.fd = fd;
    tmp.up = -1;
    pathgate__np_audit(&tmp, NULL, outcome, reason);
    close(fd);
}

static void serve_one(pathgate__netproxy *px, int fd, const pthread_attr_t *attr)
{
    if (px->peer_uid != (uid_t)-1) {
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || cred.uid != px->peer_uid) {
            refuse_now(px, fd, "denied", "peer");
            return;
        }
    }
    unsigned int slot = px->max_conns;
    for (unsigned int i = 0; i < px->max_conns && slot == px->max_conns; i++)
        if (!px->slots[i])
            slot = i;
    if (slot == px->max_conns) {
        refuse_now(px, fd, "failed", "too_many_connections");
        return;
    }
    np_conn *c = pathgate__calloc(&px->alloc, 1, sizeof *c);
    char *buf = c ? pathgate__malloc(&px->alloc, px->max_header) : NULL;
    if (!buf) {
        pathgate__free(&px->alloc, c);
        close(fd);
        return;
    }
    c->px = px;
    c->slot = slot;
    c->fd = fd;
    c->up = -1;
    c->buf = buf;
    pthread_mutex_lock(&px->lock);
    px->slots[slot] = c;
    px->nrunning++;
    pthread_mutex_unlock(&px->lock);
    if (pthread_create(&c->thread, attr, conn_main, c) != 0) {
        pthread_mutex_lock(&px->lock);
        px->slots[slot] = NULL;
        px->nrunning--;
        pthread_mutex_unlock(&px->lock);
        close(fd);
        conn_free(px, c);
    }
}

static void *acceptor_main(void *p)
{
    pathgate__netproxy *px = p;
    pthread_attr_t attr;
    pthread_attr_t *pattr = NULL;
    if (pthread_attr_init(&attr) == 0) {
        pattr = &attr;
#ifndef NP_SANITIZED
        pthread_attr_setstacksize(&attr, CONN_STACK);
#endif
    }
    int backoff = 0;
    for (;;) {
        struct pollfd fds[2] = {{px->listen_fd, POLLIN, 0}, {px->stop_r, POLLIN, 0}};
        int r = poll(fds, 2, backoff ? 50 : 1000);
        if (r < 0 && errno != EINTR)
            break;
        if (fds[1].revents)
            break;
        reap(px, 0);
        backoff = 0;
        if (r <= 0 || !fds[0].revents)
            continue;
        int fd = accept4(px->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            /* out of descriptors or memory: wait a little, never spin */
            backoff =
                errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED;
            continue;
        }
        serve_one(px, fd, pattr);
    }
    reap(px, 1); /* every connection sees the stop and ends */
    if (pattr)
        pthread_attr_destroy(pattr);
    return NULL;
}

/* ----------------------------------------------------------------- life */

static void teardown(pathgate__netproxy *px)
{
    if (px->stop_w >= 0) {
        close(px->stop_w);
        px->stop_w = -1;
    }
    if (px->acceptor_started)
        pthread_join(px->acceptor, NULL);
    if (px->listen_fd >= 0)
        close(px->listen_fd);
    if (px->stop_r >= 0)
        close(px->stop_r);
    if (px->dir_fd >= 0) {
        unlinkat(px->dir_fd, PATHGATE__NETPROXY_SOCKET_NAME, 0);
        close(px->dir_fd);
    }
    if (px->dir)
        rmdir(px->dir);
    pthread_mutex_destroy(&px->lock);
    pathgate__free(&px->alloc, px->slots);
    pathgate__free(&px->alloc, px->sock);
    pathgate__free(&px->alloc, px->dir);
    pathgate__free(&px->alloc, px->door);
    pathgate_allocator a = px->alloc;
    pathgate__free(&a, px);
}

void pathgate__netproxy_stop(pathgate__netproxy *proxy)
{
    if (proxy)
        teardown(proxy);
}

static char *join_path(const pathgate_allocator *a, const char *dir, const char *name)
{
    size_t dl = strlen(dir), nl = strlen(name);
    char *s = pathgate__malloc(a, dl + nl + 2);
    if (s) {
        memcpy(s, dir, dl);
        s[dl] = '/';
        memcpy(s + dl + 1, name, nl + 1);
    }
    return s;
}

/* The directory, the socket in it, ownership. 0 or a set error. */
static int make_socket(pathgate__netproxy *px, const pathgate__netproxy_config *cfg,
                       pathgate_error *err)
{
    const char *parent = cfg->dir_parent ? cfg->dir_parent : "/tmp";
    if (!(px->dir = join_path(&px->alloc, parent, DIR_TEMPLATE)))
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (!mkdtemp(px->dir)) {
        int e = errno;
        pathgate__free(&px->alloc, px->dir);
        px->dir = NULL;
        return pathgate__error_set(err, PATHGATE_EIO,
                                   "cannot create the proxy's private directory: %s",
                                   strerrordesc_np(e));
    }
    px->dir_fd = open(px->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (px->dir_fd < 0)
        return pathgate__error_set(err, PATHGATE_EIO,
                                   "cannot open the proxy's private directory: %s",
                                   strerrordesc_np(errno));
    if (!(px->sock = join_path(&px->alloc, px->dir, PATHGATE__NETPROXY_SOCKET_NAME)))
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(px->sock) >= sizeof sa.sun_path)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "the proxy's directory is too deep for a socket");
    memcpy(sa.sun_path, px->sock, strlen(px->sock) + 1);
    px->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (px->listen_fd < 0 || bind(px->listen_fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(px->listen_fd, LISTEN_BACKLOG) < 0)
        return pathgate__error_set(err, PATHGATE_EIO, "cannot listen on the proxy's socket: %s",
                                   strerrordesc_np(errno));
    /* Only the owner reaches the socket: 0700 directory, 0600 socket. */
    if (fchmodat(px->dir_fd, PATHGATE__NETPROXY_SOCKET_NAME, 0600, 0) < 0)
        return pathgate__error_set(err, PATHGATE_EIO, "cannot set the socket's mode: %s",
                                   strerrordesc_np(errno));
    if (cfg->owner_uid != (uid_t)-1 || cfg->owner_gid != (gid_t)-1) {
        if (fchownat(px->dir_fd, PATHGATE__NETPROXY_SOCKET_NAME, cfg->owner_uid, cfg->owner_gid,
                     AT_SYMLINK_NOFOLLOW) < 0 ||
            fchown(px->dir_fd, cfg->owner_uid, cfg->owner_gid) < 0)
            return pathgate__error_set(err, PATHGATE_EIO,
                                       "cannot give the proxy's socket to the command's user: %s",
                                       strerrordesc_np(errno));
    }
    return PATHGATE_OK;
}

int pathgate__netproxy_start(pathgate__netproxy **out, const pathgate__netproxy_config *cfg,
                             pathgate_error *err)
{
    if (!out || !cfg)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    pathgate_allocator a;
    pathgate__alloc_init(&a, cfg->alloc);
    pathgate__netproxy *px = pathgate__calloc(&a, 1, sizeof *px);
    if (!px)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    px->alloc = a;
    px->allow = cfg->allow;
    px->audit = cfg->audit;
    px->audit_ctx = cfg->audit_ctx;
    px->resolve = cfg->resolve;
    px->resolve_ctx = cfg->resolve_ctx;
    px->peer_uid = cfg->peer_uid;
    px->max_conns = cfg->max_conns ? cfg->max_conns : PATHGATE__NETPROXY_MAX_CONNS_DEFAULT;
    px->max_header = cfg->max_header ? cfg->max_header : PATHGATE__NETPROXY_MAX_HEADER_DEFAULT;
    if (px->max_header < 1024) /* a SOCKS5 request is up to 262 + 257 bytes */
        px->max_header = 1024;
    px->header_timeout_ms = cfg->header_timeout_ms ? cfg->header_timeout_ms
                                                   : PATHGATE__NETPROXY_HEADER_TIMEOUT_DEFAULT_MS;
    px->connect_timeout_ms = cfg->connect_timeout_ms
                                 ? cfg->connect_timeout_ms
                                 : PATHGATE__NETPROXY_CONNECT_TIMEOUT_DEFAULT_MS;
    px->idle_timeout_ms =
        cfg->idle_timeout_ms ? cfg->idle_timeout_ms : PATHGATE__NETPROXY_IDLE_TIMEOUT_DEFAULT_MS;
    px->dir_fd = px->listen_fd = px->stop_r = px->stop_w = -1;
    pthread_mutex_init(&px->lock, NULL);
    int rc = PATHGATE_OK;
    const char *door = cfg->door ? cfg->door : "c";
    int fds[2];
    if (!(px->door = pathgate__strndup(&a, door, strlen(door))) ||
        !(px->slots = pathgate__calloc(&a, px->max_conns, sizeof *px->slots))) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    } else if (pipe2(fds, O_CLOEXEC) < 0) {
        rc = pathgate__error_set(err, PATHGATE_EIO, "cannot create the proxy's stop pipe: %s",
                                 strerrordesc_np(errno));
    } else {
        px->stop_r = fds[0];
        px->stop_w = fds[1];
        rc = make_socket(px, cfg, err);
    }
    if (!rc) {
        int e = pthread_create(&px->acceptor, NULL, acceptor_main, px);
        if (e)
            rc = pathgate__error_set(err, PATHGATE_EIO, "cannot start the proxy's thread: %s",
                                     strerrordesc_np(e));
        else
            px->acceptor_started = 1;
    }
    if (rc) {
        teardown(px);
        return rc;
    }
    *out = px;
    return PATHGATE_OK;
}
