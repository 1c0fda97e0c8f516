/* netproxy_socks.c - SOCKS5 (RFC 1928) to the proxy: no authentication,
 * the CONNECT command, destinations by name (what `socks5h://` sends, so
 * the name is resolved here, on the host), IPv4 or IPv6 address. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "netproxy_internal.h"

#define SOCKS_VERSION 5
#define METHOD_NONE 0x00
#define METHOD_REFUSED 0xff
#define CMD_CONNECT 1
#define ATYP_IPV4 1
#define ATYP_DOMAIN 3
#define ATYP_IPV6 4

enum reply {
    REP_OK = 0,
    REP_FAILURE = 1,
    REP_NOT_ALLOWED = 2,
    REP_HOST_UNREACHABLE = 4,
    REP_REFUSED = 5,
    REP_TIMEOUT = 6,
    REP_COMMAND = 7,
    REP_ATYP = 8,
};

/* Reads until c->buf holds n bytes: 1, or the read's answer (<= 0). */
static int need(np_conn *c, size_t n)
{
    while (c->len < n) {
        int r = pathgate__np_read_more(c);
        if (r <= 0)
            return r;
    }
    return 1;
}

/* The reply (bound address 0.0.0.0:0: the host's addresses are not the
 * command's business). */
static int reply(np_conn *c, enum reply rep)
{
    unsigned char r[10] = {SOCKS_VERSION, (unsigned char)rep, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0};
    return pathgate__np_send(c, r, sizeof r);
}

/* A read that ended the handshake early: its event. */
static void cut_short(np_conn *c, const np_target *t, int r)
{
    if (r == NP_ETIME)
        pathgate__np_audit(c, t, "invalid", "timeout");
    else if (r != NP_ESTOP)
        pathgate__np_audit(c, t, "invalid", "bad_request");
}

void pathgate__np_socks5(np_conn *c)
{
    np_target t;
    memset(&t, 0, sizeof t);
    t.operation = "socks5";
    const unsigned char *b = (const unsigned char *)c->buf;
    int r = need(c, 2);
    if (r <= 0) {
        cut_short(c, &t, r);
        return;
    }
    size_t nmethods = b[1];
    if (nmethods == 0) {
        pathgate__np_audit(c, &t, "invalid", "bad_request");
        return;
    }
    if ((r = need(c, 2 + nmethods)) <= 0) {
        cut_short(c, &t, r);
        return;
    }
    if (!memchr(b + 2, METHOD_NONE, nmethods)) {
        static const unsigned char no[2] = {SOCKS_VERSION, METHOD_REFUSED};
        pathgate__np_audit(c, &t, "invalid", "unsupported");
        pathgate__np_send(c, no, sizeof no);
        return;
    }
    static const unsigned char yes[2] = {SOCKS_VERSION, METHOD_NONE};
    if (pathgate__np_send(c, yes, sizeof yes) != 0)
        return;
    size_t o = 2 + nmethods; /* the request */
    if ((r = need(c, o + 5)) <= 0) {
        cut_short(c, &t, r);
        return;
    }
    if (b[o] != SOCKS_VERSION || b[o + 2] != 0) {
        pathgate__np_audit(c, &t, "invalid", "bad_request");
        reply(c, REP_FAILURE);
        return;
    }
    if (b[o + 1] != CMD_CONNECT) { /* BIND, UDP ASSOCIATE */
        pathgate__np_audit(c, &t, "invalid", "unsupported");
        reply(c, REP_COMMAND);
        return;
    }
    char host[NP_HOST_MAX + 1];
    const char *h = host;
    size_t hlen, end;
    switch (b[o + 3]) {
    case ATYP_IPV4:
        end = o + 4 + 4 + 2;
        break;
    case ATYP_IPV6:
        end = o + 4 + 16 + 2;
        break;
    case ATYP_DOMAIN:
        end = o + 5 + b[o + 4] + 2;
        break;
    default:
        pathgate__np_audit(c, &t, "invalid", "unsupported");
        reply(c, REP_ATYP);
        return;
    }
    if ((r = need(c, end)) <= 0) {
        cut_short(c, &t, r);
        return;
    }
    if (b[o + 3] == ATYP_DOMAIN) {
        h = (const char *)b + o + 5;
        hlen = b[o + 4];
    } else {
        inet_ntop(b[o + 3] == ATYP_IPV4 ? AF_INET : AF_INET6, b + o + 4, host, sizeof host);
        hlen = strlen(host);
    }
    unsigned int port = ((unsigned int)b[end - 2] << 8) | b[end - 1];
    if (pathgate__np_target_set(&t, "socks5", h, hlen, port) != 0) {
        pathgate__np_audit(c, &t, "invalid", "bad_host");
        reply(c, REP_FAILURE);
        return;
    }
    enum np_verdict v = pathgate__np_connect(c, &t);
    switch (v) {
    case NP_ALLOWED:
        pathgate__np_audit(c, &t, "allowed", NULL);
        if (reply(c, REP_OK) == 0)
            pathgate__np_relay(c, NULL, 0, c->buf + end, c->len - end);
        return;
    case NP_NOT_LISTED:
    case NP_PRIVATE:
        reply(c, REP_NOT_ALLOWED);
        return;
    case NP_RESOLVE_FAILED:
    case NP_UNREACHABLE:
        reply(c, REP_HOST_UNREACHABLE);
        return;
    case NP_REFUSED:
        reply(c, REP_REFUSED);
        return;
    case NP_TIMEOUT:
        reply(c, REP_TIMEOUT);
        return;
    case NP_STOPPING:
        return;
    }
}
