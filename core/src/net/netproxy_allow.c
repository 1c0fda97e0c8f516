/* netproxy_allow.c - the allow_domains list: entries, host names and IP
 * literals as requests name them, matching, and the address ranges the
 * proxy refuses unless they are listed. */
#define _GNU_SOURCE
#ifdef _WIN32
#include <winsock2.h> /* inet_pton, inet_ntop (Windows compiles the allowlist only) */
#include <ws2tcpip.h>
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#endif
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "netproxy_internal.h"

enum rule_kind { RULE_NAME, RULE_WILDCARD, RULE_ADDR };

typedef struct rule {
    char *text; /* the entry as configured */
    int kind;
    char *name; /* RULE_NAME: the name; RULE_WILDCARD: the suffix after "*." */
    size_t name_len;
    pathgate__net_addr addr; /* RULE_ADDR */
    unsigned int port;       /* 0 = every port */
} rule;

struct pathgate__netproxy_allow {
    pathgate_allocator alloc;
    rule *rules;
    size_t n;
};

/* ------------------------------------------------------------- literals */

/* An IPv4-mapped IPv6 address becomes its IPv4 address. */
static void addr_normalize(pathgate__net_addr *a)
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (a->family == AF_INET6 && memcmp(a->bytes, mapped, 12) == 0) {
        memmove(a->bytes, a->bytes + 12, 4);
        memset(a->bytes + 4, 0, 12);
        a->family = AF_INET;
    }
}

/* text[0..len) as an IP literal (no brackets): 1 and *a set, or 0. */
static int literal_parse(pathgate__net_addr *a, const char *text, size_t len)
{
    char tmp[64];
    if (len == 0 || len >= sizeof tmp)
        return 0;
    memcpy(tmp, text, len);
    tmp[len] = '\0';
    memset(a, 0, sizeof *a);
    if (inet_pton(AF_INET, tmp, a->bytes) == 1) {
        a->family = AF_INET;
        return 1;
    }
    if (inet_pton(AF_INET6, tmp, a->bytes) == 1) {
        a->family = AF_INET6;
        addr_normalize(a);
        return 1;
    }
    return 0;
}

void pathgate__np_addr_text(char *buf, size_t cap, const pathgate__net_addr *addr)
{
    if (!inet_ntop(addr->family, addr->bytes, buf, (socklen_t)cap) && cap)
        buf[0] = '\0';
}

static int addr_equal(const pathgate__net_addr *a, const pathgate__net_addr *b)
{
    return a->family == b->family && memcmp(a->bytes, b->bytes, a->family == AF_INET ? 4 : 16) == 0;
}

/* ---------------------------------------------------------------- names */

static int label_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

/* Validates and lower-cases a host name into out (NP_HOST_MAX + 1 bytes).
 * A trailing dot is dropped. 0 or -1. */
static int name_parse(char *out, const char *s, size_t len)
{
    if (len && s[len - 1] == '.')
        len--;
    if (len == 0 || len > NP_HOST_MAX)
        return -1;
    size_t label = 0;
    int last_numeric = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '.') {
            if (label == 0)
                return -1;
            label = 0;
            last_numeric = 1;
            out[i] = '.';
            continue;
        }
        if (!label_char(c) || ++label > 63)
            return -1;
        if (c < '0' || c > '9')
            last_numeric = 0;
        out[i] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    }
    /* "127.1", "2130706433", "1.2.3.4.5": getaddrinfo reads some of these
     * as addresses; none is a name. */
    if (label == 0 || last_numeric)
        return -1;
    out[len] = '\0';
    return 0;
}

int pathgate__np_host_parse(char *out, pathgate__net_addr *lit, int *is_literal, const char *host,
                            size_t len)
{
    *is_literal = 0;
    if (literal_parse(lit, host, len)) {
        *is_literal = 1;
        pathgate__np_addr_text(out, NP_HOST_MAX + 1, lit);
        return 0;
    }
    return name_parse(out, host, len);
}

/* --------------------------------------------------------------- entries */

static int port_parse(unsigned int *port, const char *s, size_t len)
{
    if (len == 0 || len > 5)
        return -1;
    unsigned int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned int)(s[i] - '0');
    }
    if (v == 0 || v > 65535)
        return -1;
    *port = v;
    return 0;
}

/* Parses one entry into r (r->text set by the caller). 0 or -1. */
static int entry_parse(rule *r, const pathgate_allocator *a, const char *e, size_t len)
{
    const char *host = e;
    size_t hlen = len;
    r->port = 0;
    if (len && e[0] == '[') {
        const char *close = memchr(e, ']', len);
        if (!close)
            return -1;
        host = e + 1;
        hlen = (size_t)(close - host);
        size_t rest = len - (size_t)(close + 1 - e);
        if (rest && (close[1] != ':' || port_parse(&r->port, close + 2, rest - 1) != 0))
            return -1;
        if (!literal_parse(&r->addr, host, hlen) || memchr(host, ':', hlen) == NULL)
            return -1; /* brackets hold an IPv6 literal only */
        r->kind = RULE_ADDR;
        return 0;
    }
    const char *colon = memchr(e, ':', len);
    if (colon && memchr(colon + 1, ':', len - (size_t)(colon + 1 - e))) {
        /* two colons or more: a bare IPv6 literal, no port */
        if (!literal_parse(&r->addr, e, len))
            return -1;
        r->kind = RULE_ADDR;
        return 0;
    }
    if (colon) {
        hlen = (size_t)(colon - e);
        if (port_parse(&r->port, colon + 1, len - hlen - 1) != 0)
            return -1;
    }
    if (literal_parse(&r->addr, host, hlen)) {
        r->kind = RULE_ADDR;
        return 0;
    }
    r->kind = RULE_NAME;
    if (hlen >= 2 && host[0] == '*' && host[1] == '.') {
        r->kind = RULE_WILDCARD;
        host += 2;
        hlen -= 2;
    }
    char name[NP_HOST_MAX + 1];
    if (name_parse(name, host, hlen) != 0)
        return -1;
    r->name_len = strlen(name);
    r->name = pathgate__strndup(a, name, r->name_len);
    return r->name ? 0 : PATHGATE_ENOMEM;
}

static int printable(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return 0;
    return 1;
}

void pathgate__netproxy_allow_free(pathgate__netproxy_allow *allow)
{
    if (!allow)
        return;
    for (size_t i = 0; i < allow->n; i++) {
        pathgate__free(&allow->alloc, allow->rules[i].text);
        pathgate__free(&allow->alloc, allow->rules[i].name);
    }
    pathgate__free(&allow->alloc, allow->rules);
    pathgate__free(&allow->alloc, allow);
}

size_t pathgate__netproxy_allow_count(const pathgate__netproxy_allow *allow)
{
    return allow ? allow->n : 0;
}

int pathgate__netproxy_allow_compile(pathgate__netproxy_allow **out,
                                     const pathgate_allocator *alloc, const char *const *entries,
                                     size_t n, pathgate_error *err)
{
    if (!out || (!entries && n))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (n > PATHGATE__NETPROXY_ENTRIES_MAX)
        return pathgate__error_set(err, PATHGATE_EINVAL, "allow_domains: more than %d entries",
                                   PATHGATE__NETPROXY_ENTRIES_MAX);
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    pathgate__netproxy_allow *al = pathgate__calloc(&a, 1, sizeof *al);
    if (!al)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    al->alloc = a;
    if (n && !(al->rules = pathgate__calloc(&a, n, sizeof *al->rules))) {
        pathgate__free(&a, al);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    for (size_t i = 0; i < n; i++) {
        const char *e = entries[i];
        size_t len = e ? strlen(e) : 0;
        rule *r = &al->rules[i];
        int rc = -1;
        if (e && len <= PATHGATE__NETPROXY_ENTRY_MAX) {
            if (!(r->text = pathgate__strndup(&a, e, len)))
                rc = PATHGATE_ENOMEM;
            else
                rc = entry_parse(r, &a, e, len);
        }
        al->n = i + 1; /* what is set is freed */
        if (rc == PATHGATE_ENOMEM) {
            pathgate__netproxy_allow_free(al);
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        }
        if (rc) {
            pathgate__netproxy_allow_free(al);
            if (e && len <= 80 && printable(e, len))
                return pathgate__error_set(
                    err, PATHGATE_EINVAL,
                    "allow_domains: \"%s\" is not a host name, *.<domain> or IP address "
                    "(with an optional :port)",
                    e);
            return pathgate__error_set(err, PATHGATE_EINVAL,
                                       "allow_domains: entry %zu is not a host name, "
                                       "*.<domain> or IP address (with an optional :port)",
                                       i + 1);
        }
    }
    *out = al;
    return PATHGATE_OK;
}

/* --------------------------------------------------------------- match */

const char *pathgate__np_allow_match(const pathgate__netproxy_allow *allow, const char *name,
                                     const pathgate__net_addr *lit, unsigned int port)
{
    if (!allow)
        return NULL;
    size_t nlen = lit ? 0 : strlen(name);
    for (size_t i = 0; i < allow->n; i++) {
        const rule *r = &allow->rules[i];
        if (r->port && r->port != port)
            continue;
        switch (r->kind) {
        case RULE_ADDR:
            if (lit && addr_equal(&r->addr, lit))
                return r->text;
            break;
        case RULE_NAME:
            if (!lit && nlen == r->name_len && memcmp(name, r->name, nlen) == 0)
                return r->text;
            break;
        case RULE_WILDCARD:
            if (!lit && nlen > r->name_len + 1 && name[nlen - r->name_len - 1] == '.' &&
                memcmp(name + nlen - r->name_len, r->name, r->name_len) == 0)
                return r->text;
            break;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------- ranges */

static int v4_internal(const unsigned char *b)
{
    unsigned int a0 = b[0], a1 = b[1], a2 = b[2];
    if (a0 == 0 || a0 == 10 || a0 == 127) /* this network, private, loopback */
        return 1;
    if (a0 == 100 && (a1 & 0xc0) == 64) /* 100.64/10 CGNAT */
        return 1;
    if (a0 == 169 && a1 == 254) /* link-local */
        return 1;
    if (a0 == 172 && (a1 & 0xf0) == 16) /* 172.16/12 */
        return 1;
    if (a0 == 192 && a1 == 168) /* 192.168/16 */
        return 1;
    if (a0 == 192 && a1 == 0 && (a2 == 0 || a2 == 2)) /* IETF assignments, TEST-NET-1 */
        return 1;
    if (a0 == 198 && (a1 & 0xfe) == 18) /* 198.18/15 benchmarking */
        return 1;
    if (a0 == 198 && a1 == 51 && a2 == 100) /* TEST-NET-2 */
        return 1;
    if (a0 == 203 && a1 == 0 && a2 == 113) /* TEST-NET-3 */
        return 1;
    if (a0 >= 224) /* multicast, reserved, broadcast */
        return 1;
    return 0;
}

int pathgate__net_addr_is_internal(const pathgate__net_addr *addr)
{
    const unsigned char *b = addr->bytes;
    if (addr->family == AF_INET)
        return v4_internal(b);
    if (addr->family != AF_INET6)
        return 1;
    static const unsigned char zero[16];
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    if (memcmp(b, zero, 12) == 0) /* ::, ::1, IPv4-compatible ::a.b.c.d */
        return 1;
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0)
        return v4_internal(b + 12);
    if (b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1)
        return 1; /* 64:ff9b:1::/48 local-use NAT64 */
    if (b[0] == 0x01 && b[1] == 0 && memcmp(b + 2, zero, 6) == 0)
        return 1; /* 100::/64 discard */
    if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8)
        return 1; /* 2001:db8::/32 documentation */
    if (b[0] == 0x20 && b[1] == 0x02)
        return v4_internal(b + 2); /* 6to4: 2002:a.b.c.d::/48 */
    if ((b[0] & 0xfe) == 0xfc)     /* fc00::/7 unique-local */
        return 1;
    if (b[0] == 0xfe && (b[1] & 0x80) == 0x80) /* fe80::/10 link-local, fec0::/10 site-local */
        return 1;
    if (b[0] == 0xff) /* multicast */
        return 1;
    return 0;
}
