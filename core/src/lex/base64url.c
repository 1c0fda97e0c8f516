/* base64url.c - unpadded base64url encoding, canonical check, decoding. */
#include "base64url.h"

static const char alphabet[64] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* The inverse of alphabet plus one: 1..64, 0 for a byte outside it. */
static const unsigned char inverse1[256] = {
    ['A'] = 1,  ['B'] = 2,  ['C'] = 3,  ['D'] = 4,  ['E'] = 5,  ['F'] = 6,  ['G'] = 7,  ['H'] = 8,
    ['I'] = 9,  ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16,
    ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24,
    ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32,
    ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40,
    ['o'] = 41, ['p'] = 42, ['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48,
    ['w'] = 49, ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56,
    ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['-'] = 63, ['_'] = 64,
};

size_t pathgate__b64url_encode(char *dst, const unsigned char *src, size_t n)
{
    char *p = dst;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = (unsigned)src[i] << 16 | (unsigned)src[i + 1] << 8 | src[i + 2];
        *p++ = alphabet[v >> 18];
        *p++ = alphabet[(v >> 12) & 63];
        *p++ = alphabet[(v >> 6) & 63];
        *p++ = alphabet[v & 63];
    }
    if (n - i == 1) {
        unsigned v = (unsigned)src[i] << 16;
        *p++ = alphabet[v >> 18];
        *p++ = alphabet[(v >> 12) & 63];
    } else if (n - i == 2) {
        unsigned v = (unsigned)src[i] << 16 | (unsigned)src[i + 1] << 8;
        *p++ = alphabet[v >> 18];
        *p++ = alphabet[(v >> 12) & 63];
        *p++ = alphabet[(v >> 6) & 63];
    }
    return (size_t)(p - dst);
}

int pathgate__b64url_canonical(const char *s, size_t n)
{
    if (n % 4 == 1)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!inverse1[(unsigned char)s[i]])
            return 0;
    if (n == 0)
        return 1;
    unsigned last = inverse1[(unsigned char)s[n - 1]] - 1u;
    if (n % 4 == 2)
        return (last & 0x0F) == 0; /* 2 chars carry 8 bits: low 4 unused */
    if (n % 4 == 3)
        return (last & 0x03) == 0; /* 3 chars carry 16 bits: low 2 unused */
    return 1;
}

size_t pathgate__b64url_decode(unsigned char *dst, const char *s, size_t n)
{
    unsigned char *p = dst;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        acc = (acc << 6 | (inverse1[(unsigned char)s[i]] - 1u)) & 0xFFFFFF;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            *p++ = (unsigned char)(acc >> bits);
        }
    }
    return (size_t)(p - dst);
}
