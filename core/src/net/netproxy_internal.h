/*
 * netproxy_internal.h - internal to the proxy's parts (netproxy.c: the
 * lifecycle; netproxy_allow.c: names, literals and the allowlist;
 * netproxy_conn.c: one connection's I/O, decision and relay;
 * netproxy_http.c and netproxy_socks.c: the protocols).
 */
#ifndef PATHGATE_NETPROXY_INTERNAL_H
#define PATHGATE_NETPROXY_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "netproxy.h"

/* Longest host name (RFC 1035: 253 characters without the final dot). */
#define NP_HOST_MAX 253
/* Most addresses of one name the proxy checks and tries. */
#define NP_MAX_ADDRS 16
/* Bytes of each direction's relay buffer. */
#define NP_RELAY_BUF 16384

/* ------------------------------------------------------- names (allow) */

/*
 * Parses a host as a request names it (no brackets, no port): an IP
 * literal (IPv4 dotted quad, IPv6; an IPv4-mapped IPv6 address becomes the
 * IPv4 one) sets *lit and writes its canonical text, a host name is
 * written lower-cased without a trailing dot. 0, or -1 when it is neither
 * (a label other than letters, digits, `-` and `_`, an empty label, more
 * than 63 characters in a label or NP_HOST_MAX in all, an all-numeric last
 * label that is no IPv4 literal). out has room for NP_HOST_MAX + 1 bytes.
 */
int pathgate__np_host_parse(char *out, pathgate__net_addr *lit, int *is_literal, const char *host,
                            size_t len);

/* The entry (as configured) that allows name (when !lit) or the literal
 * address lit at port, or NULL. A name entry never matches a literal. */
const char *pathgate__np_allow_match(const pathgate__netproxy_allow *allow, const char *name,
                                     const pathgate__net_addr *lit, unsigned int port);

/* "1.2.3.4" / "2001:db8::1" into buf (INET6_ADDRSTRLEN bytes). */
void pathgate__np_addr_text(char *buf, size_t cap, const pathgate__net_addr *addr);

/* --------------------------------------------------------------- proxy */

struct pathgate__netproxy {
    pathgate_allocator alloc;
    const pathgate__netproxy_allow *allow;
    pathgate__net_audit_fn audit;
    void *audit_ctx;
    char *door;
    pathgate__net_resolve_fn resolve;
    void *resolve_ctx;
    uid_t peer_uid;
    unsigned int max_conns;
    size_t max_header;
    unsigned int header_timeout_ms, connect_timeout_ms, idle_timeout_ms;

    char *dir;  /* host path of the private directory */
    char *sock; /* and of the socket in it */
    int dir_fd;
    int listen_fd;
    int stop_r, stop_w; /* a pipe: closing stop_w wakes every poll (POLLHUP on stop_r) */
    pthread_t acceptor;
    int acceptor_started;

    pthread_mutex_t lock;   /* guards slots and nrunning */
    struct np_conn **slots; /* max_conns of them; NULL = free */
    unsigned int nrunning;
};

/* One connection (its thread owns it). */
typedef struct np_conn {
    pathgate__netproxy *px;
    unsigned int slot;
    pthread_t thread;
    volatile int done; /* set (atomically) when the thread has finished with it */
    int fd;            /* the client (non-blocking) */
    int up;            /* the upstream (non-blocking), or -1 */
    uint64_t deadline; /* CLOCK_MONOTONIC ms: the end of the request head */
    char *buf;         /* px->max_header bytes: what the client sent so far */
    size_t len;
} np_conn;

/* A request's destination and what the proxy decided about it. */
typedef struct np_target {
    const char *operation;
    char host[NP_HOST_MAX + 1];
    unsigned int port;
    int literal;
    pathgate__net_addr lit;
    char address[NP_HOST_MAX + 10]; /* host:port, [v6]:port */
    const char *rule;
    char ip[48];
} np_target;

/* I/O answers (negative): the peer closed the connection, the deadline
 * passed, the proxy is stopping, the head buffer is full, an error. */
#define NP_EOF (-1)
#define NP_ETIME (-2)
#define NP_ESTOP (-3)
#define NP_EFULL (-4)
#define NP_EIO (-5)

uint64_t pathgate__np_now_ms(void);

/* Reads what is there (waiting until c->deadline) into c->buf after
 * c->len. The count (> 0) or NP_EOF / NP_ETIME / NP_ESTOP / NP_EFULL /
 * NP_EIO. */
int pathgate__np_read_more(np_conn *c);

/* Writes all of data to the client before c->deadline + the idle timeout.
 * 0 or NP_ETIME / NP_ESTOP / NP_EIO. */
int pathgate__np_send(np_conn *c, const void *data, size_t len);

/* Sets t's destination from the request's host text (brackets stripped)
 * and port (1..65535): 0, or -1 when the host is malformed. */
int pathgate__np_target_set(np_target *t, const char *operation, const char *host, size_t len,
                            unsigned int port);

/* What pathgate__np_connect decided. */
enum np_verdict {
    NP_ALLOWED = 0,    /* c->up is connected */
    NP_NOT_LISTED,     /* denied: no entry allows it */
    NP_PRIVATE,        /* denied: an internal or host address that is not listed */
    NP_RESOLVE_FAILED, /* failed: the name has no address */
    NP_REFUSED,        /* failed: every address refused the connection */
    NP_UNREACHABLE,    /* failed: no route, or another error */
    NP_TIMEOUT,        /* failed: connecting took longer than the timeout */
    NP_STOPPING,       /* the proxy is stopping (no event) */
};

/* Checks t against the allowlist, resolves a name (on the host), checks
 * every address, connects to the first that answers. Emits the event for
 * every verdict but NP_ALLOWED and NP_STOPPING (the caller emits "allowed"
 * once its reply is sent: pathgate__np_audit). */
enum np_verdict pathgate__np_connect(np_conn *c, np_target *t);

/* The one event of a request. t NULL = nothing understood. */
void pathgate__np_audit(np_conn *c, const np_target *t, const char *outcome, const char *reason);

/* Relays between client and upstream until both sides are done, an
 * error, the idle timeout or the stop; first sends first[0..n1) (a
 * rewritten head) and then[0..n2) (what the client sent after its head)
 * upstream. */
void pathgate__np_relay(np_conn *c, const char *first, size_t n1, const char *then, size_t n2);

/* The protocols, once the first byte is known: each reads the rest of
 * the request, decides, answers, relays. */
void pathgate__np_http(np_conn *c);
void pathgate__np_socks5(np_conn *c);

#endif
