/* pct.h - internal: percent-encoding and decoding of file: URI text.
 *
 * One byte-class table drives everything. The segment set is docs/uri.md
 * section 2 plus DEL: encode C0 controls, space, `"`, `#`, `%`, `<`, `>`,
 * `?`, backtick, `{`, `}`, `\`, DEL (0x7F) and every byte >= 0x80; leave
 * `*'(),:[]|^!$&+;=@~` (and letters, digits, `-._`) literal. `/` never
 * reaches the segment encoder: it is the separator. */
#ifndef PATHGATE_PCT_H
#define PATHGATE_PCT_H

#include <stddef.h>

enum {
    PATHGATE__PCT_SEG = 1,          /* must be encoded inside a path segment */
    PATHGATE__PCT_HOST_OK = 2,      /* literal in a host (RFC 3986 unreserved / sub-delims) */
    PATHGATE__PCT_BADHOST = 4,      /* never valid in a UNC server name (decoded) */
    PATHGATE__PCT_LENIENT = 8,      /* accepted raw in a parsed path though RFC 3986 refuses it */
    PATHGATE__PCT_LENIENT_ENC = 16, /* of those, the ones parse re-encodes (SEG too) */
    PATHGATE__PCT_SLASH = 32,       /* '/' */
    PATHGATE__PCT_PATH_OK = 64,     /* raw in a parsed path: RFC 3986 pchar and '/' (except
                                   pct-encoded), plus the lenient bytes */
    PATHGATE__PCT_PCHAR = 128,      /* RFC 3986 pchar except pct-encoded: unreserved,
                                   sub-delims, ':', '@' */
    PATHGATE__PCT_NOT_PLAIN = 256,  /* not kept as is by parse: neither pchar nor `[]|^` */
    PATHGATE__PCT_UNRESERVED = 512, /* RFC 3986 unreserved: letters, digits, `-._~` */
    PATHGATE__PCT_PERCENT = 1024,   /* '%' */
    PATHGATE__PCT_HIGH = 2048,      /* a byte >= 0x80 */
};

extern const unsigned short pathgate__pct_class[256];
extern const char pathgate__pct_hex[16]; /* upper-case hex digits */

/* Writes %XX for c at p; returns p + 3. */
static inline char *pathgate__pct_put(char *p, unsigned char c)
{
    p[0] = '%';
    p[1] = pathgate__pct_hex[c >> 4];
    p[2] = pathgate__pct_hex[c & 15];
    return p + 3;
}

static inline int pathgate__pct_is(unsigned char c, unsigned cls)
{
    return (pathgate__pct_class[c] & cls) != 0;
}

/* Value of a hex digit, or -1. */
static inline int pathgate__pct_hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Index of the first byte of s[0..n) whose class meets mask, or n. Eight
 * bytes per step while none does: paths are mostly plain letters. */
static inline size_t pathgate__pct_span(const char *str, size_t n, unsigned mask)
{
    const unsigned char *s = (const unsigned char *)str;
    const unsigned short *t = pathgate__pct_class;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        unsigned any = t[s[i]] | t[s[i + 1]] | t[s[i + 2]] | t[s[i + 3]] | t[s[i + 4]] |
                       t[s[i + 5]] | t[s[i + 6]] | t[s[i + 7]];
        if (any & mask)
            break;
    }
    for (; i < n; i++)
        if (t[s[i]] & mask)
            return i;
    return n;
}

/* Number of bytes of s[0..n) in the class (each grows by 2 when encoded). */
size_t pathgate__pct_count(const char *s, size_t n, int cls);

/* Writes s[0..n) to dst, encoding (as %XX, upper-case hex) every byte in
 * the class, or, when cls is 0, every byte without PATHGATE__PCT_HOST_OK
 * (a host). dst needs n + 2 * (bytes encoded) bytes. Returns the bytes
 * written. */
size_t pathgate__pct_encode(char *dst, const char *s, size_t n, int cls);

/* Decodes s[0..n), which must hold only well-formed %XX escapes, into dst
 * (at most n bytes). Returns the decoded length. */
size_t pathgate__pct_decode(char *dst, const char *s, size_t n);

/* Next decoded byte of the well-formed text s[*i..n); advances *i. */
static inline unsigned char pathgate__pct_next(const char *s, size_t *i)
{
    unsigned char c = (unsigned char)s[*i];
    if (c == '%') {
        c = (unsigned char)(pathgate__pct_hexval((unsigned char)s[*i + 1]) << 4 |
                            pathgate__pct_hexval((unsigned char)s[*i + 2]));
        *i += 3;
    } else {
        *i += 1;
    }
    return c;
}

/* 1 when the well-formed s[0..n) decodes to the byte c somewhere. */
int pathgate__pct_has_decoded(const char *s, size_t n, unsigned char c);

#endif
