/* netproxy_http.c - HTTP/1.x requests to the proxy: CONNECT host:port
 * (a tunnel) and absolute-URI requests (`GET http://host/path`, forwarded
 * as one request on a new connection with `Connection: close`). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "alloc.h"
#include "netproxy_internal.h"

/* The hop-by-hop headers a forwarded request loses (RFC 9110 7.6.1), with
 * Host (set from the URI) and the proxy's own. */
static const char *const dropped[] = {"host",
                                      "connection",
                                      "proxy-connection",
                                      "keep-alive",
                                      "proxy-authorization",
                                      "proxy-authenticate",
                                      "te",
                                      "upgrade",
                                      NULL};

static void respond(np_conn *c, int code, const char *phrase, const char *body)
{
    char head[512];
    size_t blen = strlen(body);
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                     code, phrase, blen);
    if (n <= 0 || (size_t)n >= sizeof head)
        return;
    if (pathgate__np_send(c, head, (size_t)n) == 0)
        pathgate__np_send(c, body, blen);
}

/* Refuses a request that was not understood: the response and the event. */
static void invalid(np_conn *c, const np_target *t, int code, const char *phrase,
                    const char *reason, const char *body)
{
    pathgate__np_audit(c, t, "invalid", reason);
    respond(c, code, phrase, body);
}

/* The answer to a verdict other than NP_ALLOWED (its event is emitted). */
static void refused(np_conn *c, const np_target *t, enum np_verdict v)
{
    char body[NP_HOST_MAX + 200];
    switch (v) {
    case NP_NOT_LISTED:
        snprintf(body, sizeof body, "pathgate: %s is not in allow_domains\n", t->address);
        respond(c, 403, "Forbidden", body);
        break;
    case NP_PRIVATE:
        /* which address is the operator's business (the event), not the
         * command's */
        snprintf(body, sizeof body,
                 "pathgate: %s resolves to an internal address that allow_domains does not "
                 "list\n",
                 t->address);
        respond(c, 403, "Forbidden", body);
        break;
    case NP_RESOLVE_FAILED:
        snprintf(body, sizeof body, "pathgate: %s has no address\n", t->address);
        respond(c, 502, "Bad Gateway", body);
        break;
    case NP_TIMEOUT:
        snprintf(body, sizeof body, "pathgate: connecting to %s timed out\n", t->address);
        respond(c, 504, "Gateway Timeout", body);
        break;
    case NP_REFUSED:
    case NP_UNREACHABLE:
        snprintf(body, sizeof body, "pathgate: cannot connect to %s\n", t->address);
        respond(c, 502, "Bad Gateway", body);
        break;
    default:
        break;
    }
}

static int tchar(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

/* The end of the head in buf[0..len) (the index after the blank line), or 0. */
static size_t head_end(const char *buf, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (buf[i + 1] == '\n')
            return i + 2;
        if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

/* Splits "host:port" / "[v6]:port" (port required unless def_port) and
 * sets t. 0 or -1. */
static int authority(np_target *t, const char *op, const char *s, size_t len, unsigned int def_port)
{
    const char *host = s;
    size_t hlen = len;
    const char *port = NULL;
    size_t plen = 0;
    if (len && s[0] == '[') {
        const char *close = memchr(s, ']', len);
        if (!close || !memchr(s, ':', (size_t)(close - s)))
            return -1;
        host = s + 1;
        hlen = (size_t)(close - host);
        size_t rest = len - (size_t)(close + 1 - s);
        if (rest) {
            if (close[1] != ':')
                return -1;
            port = close + 2;
            plen = rest - 1;
        }
    } else {
        const char *colon = memchr(s, ':', len);
        if (colon) {
            hlen = (size_t)(colon - s);
            port = colon + 1;
            plen = len - hlen - 1;
        }
    }
    unsigned int p = def_port;
    if (port) {
        if (plen == 0 || plen > 5)
            return -1;
        p = 0;
        for (size_t i = 0; i < plen; i++) {
            if (port[i] < '0' || port[i] > '9')
                return -1;
            p = p * 10 + (unsigned int)(port[i] - '0');
        }
    }
    if (p == 0)
        return -1;
    return pathgate__np_target_set(t, op, host, hlen, p);
}

/* 1 when the header name[0..len) is one a forwarded request drops: the
 * fixed list, or one the request's Connection header names. */
static int hop_by_hop(const char *name, size_t len, const char *conn, size_t conn_len)
{
    for (size_t i = 0; dropped[i]; i++)
        if (strlen(dropped[i]) == len && strncasecmp(name, dropped[i], len) == 0)
            return 1;
    size_t i = 0;
    while (i < conn_len) {
        while (i < conn_len && (conn[i] == ' ' || conn[i] == '\t' || conn[i] == ','))
            i++;
        size_t start = i;
        while (i < conn_len && conn[i] != ',' && conn[i] != ' ' && conn[i] != '\t')
            i++;
        if (i - start == len && strncasecmp(conn + start, name, len) == 0)
            return 1;
    }
    return 0;
}

typedef struct header_line {
    const char *name, *value; /* value trimmed */
    size_t name_len, value_len;
    const char *line; /* the whole line without its end */
    size_t line_len;
} header_line;

/* The next header line of head[*pos..end); 1 and *h set, 0 at the blank
 * line, -1 when malformed. */
static int next_header(header_line *h, const char *head, size_t *pos, size_t end)
{
    size_t i = *pos;
    const char *nl = memchr(head + i, '\n', end - i);
    if (!nl)
        return -1;
    size_t e = (size_t)(nl - head);
    size_t le = e > i && head[e - 1] == '\r' ? e - 1 : e;
    *pos = e + 1;
    if (le == i)
        return 0;
    const char *line = head + i;
    size_t ll = le - i;
    if (line[0] == ' ' || line[0] == '\t')
        return -1; /* obsolete line folding */
    const char *colon = memchr(line, ':', ll);
    if (!colon || colon == line)
        return -1;
    for (const char *p = line; p < colon; p++)
        if (!tchar((unsigned char)*p))
            return -1;
    for (size_t k = 0; k < ll; k++) {
        unsigned char ch = (unsigned char)line[k];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
            return -1;
    }
    h->line = line;
    h->line_len = ll;
    h->name = line;
    h->name_len = (size_t)(colon - line);
    const char *v = colon + 1, *ve = line + ll;
    while (v < ve && (*v == ' ' || *v == '\t'))
        v++;
    while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
        ve--;
    h->value = v;
    h->value_len = (size_t)(ve - v);
    return 1;
}

/* A forwarded request: the request line in origin form, Host from the URI,
 * the client's headers but the hop-by-hop ones, Connection: close. */
static void forward(np_conn *c, const char *method, size_t mlen, const char *target, size_t tlen,
                    const char *version, size_t head_len, size_t first_header)
{
    np_target t;
    memset(&t, 0, sizeof t);
    t.operation = "http";
    if (tlen < 7 || strncasecmp(target, "http://", 7) != 0) {
        int https = tlen >= 8 && strncasecmp(target, "https://", 8) == 0;
        invalid(c, &t, 400, "Bad Request", "unsupported",
                https ? "pathgate: https:// URLs go through CONNECT, not a plain request\n"
                      : "pathgate: a request to the proxy names an absolute http:// URL or "
                        "uses CONNECT\n");
        return;
    }
    const char *auth = target + 7, *end = target + tlen;
    const char *path = auth;
    while (path < end && *path != '/' && *path != '?' && *path != '#')
        path++;
    if (path == auth || memchr(auth, '@', (size_t)(path - auth)) || memchr(target, '#', tlen)) {
        invalid(c, &t, 400, "Bad Request", "bad_request", "pathgate: malformed URL\n");
        return;
    }
    if (authority(&t, "http", auth, (size_t)(path - auth), 80) != 0) {
        invalid(c, &t, 400, "Bad Request", "bad_host", "pathgate: malformed host\n");
        return;
    }
    /* The Connection header first: the headers it names are dropped. */
    const char *conn = NULL;
    size_t conn_len = 0, pos = first_header;
    header_line h;
    int r;
    while ((r = next_header(&h, c->buf, &pos, head_len)) == 1) {
        if (h.name_len == 10 && strncasecmp(h.name, "connection", 10) == 0) {
            conn = h.value; /* (several Connection headers: the last) */
            conn_len = h.value_len;
        }
    }
    if (r < 0) {
        invalid(c, &t, 400, "Bad Request", "bad_request", "pathgate: malformed header\n");
        return;
    }
    size_t plen = (size_t)(end - path);
    size_t alen = (size_t)(path - auth);
    size_t cap = head_len + mlen + plen + alen + 64;
    char *out = pathgate__malloc(&c->px->alloc, cap);
    if (!out)
        return;
    size_t n = 0;
#define PUT(p, l)                                                                                  \
    do {                                                                                           \
        memcpy(out + n, (p), (l));                                                                 \
        n += (l);                                                                                  \
    } while (0)
    PUT(method, mlen);
    PUT(" ", 1);
    if (plen == 0 || path[0] == '?')
        PUT("/", 1);
    PUT(path, plen);
    PUT(" ", 1);
    PUT(version, 8);
    PUT("\r\nHost: ", 8);
    PUT(auth, alen);
    PUT("\r\n", 2);
    pos = first_header;
    while (next_header(&h, c->buf, &pos, head_len) == 1) {
        if (hop_by_hop(h.name, h.name_len, conn, conn_len))
            continue;
        PUT(h.line, h.line_len);
        PUT("\r\n", 2);
    }
    PUT("Connection: close\r\n\r\n", 21);
#undef PUT
    enum np_verdict v = pathgate__np_connect(c, &t);
    if (v == NP_ALLOWED) {
        pathgate__np_audit(c, &t, "allowed", NULL);
        /* the rebuilt head, then what followed the client's head */
        pathgate__np_relay(c, out, n, c->buf + head_len, c->len - head_len);
    } else if (v != NP_STOPPING) {
        refused(c, &t, v);
    }
    pathgate__free(&c->px->alloc, out);
}

void pathgate__np_http(np_conn *c)
{
    size_t head_len;
    while ((head_len = head_end(c->buf, c->len)) == 0) {
        int r = pathgate__np_read_more(c);
        if (r > 0)
            continue;
        if (r == NP_EFULL)
            invalid(c, NULL, 431, "Request Header Fields Too Large", "header_too_large",
                    "pathgate: the request head is too large\n");
        else if (r == NP_ETIME)
            invalid(c, NULL, 408, "Request Timeout", "timeout",
                    "pathgate: the request did not arrive in time\n");
        else if (r == NP_EOF || r == NP_EIO)
            pathgate__np_audit(c, NULL, "invalid", "bad_request");
        return;
    }
    /* The request line: METHOD SP target SP HTTP/1.x */
    const char *line = c->buf;
    const char *nl = memchr(line, '\n', head_len);
    size_t ll = (size_t)(nl - line);
    if (ll && line[ll - 1] == '\r')
        ll--;
    const char *sp1 = memchr(line, ' ', ll);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', ll - (size_t)(sp1 + 1 - line)) : NULL;
    int ok = sp1 && sp2 && sp1 > line && sp2 > sp1 + 1 && (size_t)(line + ll - (sp2 + 1)) == 8 &&
             (memcmp(sp2 + 1, "HTTP/1.1", 8) == 0 || memcmp(sp2 + 1, "HTTP/1.0", 8) == 0);
    for (const char *p = line; ok && p < sp1; p++)
        ok = tchar((unsigned char)*p);
    for (const char *p = sp1 + 1; ok && p < sp2; p++)
        ok = (unsigned char)*p > 0x20 && (unsigned char)*p < 0x7f;
    if (!ok) {
        invalid(c, NULL, 400, "Bad Request", "bad_request", "pathgate: malformed request\n");
        return;
    }
    size_t mlen = (size_t)(sp1 - line);
    const char *target = sp1 + 1;
    size_t tlen = (size_t)(sp2 - target);
    if (mlen == 7 && memcmp(line, "CONNECT", 7) == 0) {
        np_target t;
        memset(&t, 0, sizeof t);
        t.operation = "connect";
        /* the headers are not used, but must be well-formed */
        size_t pos = (size_t)(nl + 1 - c->buf);
        header_line h;
        int r;
        while ((r = next_header(&h, c->buf, &pos, head_len)) == 1) {
        }
        if (r < 0) {
            invalid(c, &t, 400, "Bad Request", "bad_request", "pathgate: malformed header\n");
            return;
        }
        if (authority(&t, "connect", target, tlen, 0) != 0) {
            invalid(c, &t, 400, "Bad Request", "bad_host", "pathgate: CONNECT needs host:port\n");
            return;
        }
        enum np_verdict v = pathgate__np_connect(c, &t);
        if (v == NP_ALLOWED) {
            static const char ok200[] = "HTTP/1.1 200 Connection established\r\n\r\n";
            pathgate__np_audit(c, &t, "allowed", NULL);
            if (pathgate__np_send(c, ok200, sizeof ok200 - 1) == 0)
                pathgate__np_relay(c, NULL, 0, c->buf + head_len, c->len - head_len);
        } else if (v != NP_STOPPING) {
            refused(c, &t, v);
        }
        return;
    }
    forward(c, line, mlen, target, tlen, sp2 + 1, head_len, (size_t)(nl + 1 - c->buf));
}
