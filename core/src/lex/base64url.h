/* base64url.h - internal: unpadded base64url (RFC 4648 section 5), the
 * payload of the opaque file:///%00/bad/path/<payload> URI form. */
#ifndef PATHGATE_BASE64URL_H
#define PATHGATE_BASE64URL_H

#include <stddef.h>

/* Length of the unpadded encoding of n bytes. */
static inline size_t pathgate__b64url_encoded_len(size_t n)
{
    return n / 3 * 4 + (n % 3 ? n % 3 + 1 : 0);
}

/* Encodes src[0..n) into dst (pathgate__b64url_encoded_len(n) bytes, no
 * terminator, no padding). Returns the length written. */
size_t pathgate__b64url_encode(char *dst, const unsigned char *src, size_t n);

/* 1 when s[0..n) is canonical unpadded base64url: only [A-Za-z0-9_-], a
 * length that is not 1 mod 4, and zero in the unused low bits of the last
 * character (so that exactly one text encodes each byte string). The
 * empty text is canonical (it encodes nothing). */
int pathgate__b64url_canonical(const char *s, size_t n);

/* Decodes the canonical s[0..n) into dst (n * 3 / 4 bytes at most).
 * Returns the decoded length. */
size_t pathgate__b64url_decode(unsigned char *dst, const char *s, size_t n);

#endif
