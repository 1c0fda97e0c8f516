/* text.h - internal: validation of the (pointer, length) text inputs, and
 * the one UTF-8 decoder and whitespace test every module uses. */
#ifndef PATHGATE_TEXT_H
#define PATHGATE_TEXT_H

#include "pathgate/common.h"

/* memmem and memrchr (GNU, not in every C library): the C library's where
 * it has them, else a plain loop. */
const void *pathgate__memmem(const void *hay, size_t n, const void *needle, size_t m);
const void *pathgate__memrchr(const void *s, int c, size_t n);

/*
 * The UTF-8 decoder (strict: no overlongs, no surrogates, nothing above
 * U+10FFFF). Decodes the sequence at s[0..len) (len >= 1): returns its
 * length and sets *cp to the code point, or returns the length of the
 * maximal ill-formed subpart (Unicode's "substitution of maximal subparts",
 * as CPython's errors="replace"; at least 1) and sets *cp to -1. Inline:
 * validation, repair, glob matching and UI rendering all run it per
 * character.
 */
static inline size_t pathgate__utf8_next(const unsigned char *s, size_t len, long *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    long v;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 1;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 2;
        v = c & 0x0F;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        else if (c == 0xED)
            hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 3;
        v = c & 0x07;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        else if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else {
        *cp = -1;
        return 1;
    }
    size_t i = 1;
    for (; i <= n; i++) {
        if (i >= len) {
            *cp = -1;
            return i;
        }
        unsigned char b = s[i];
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) {
            *cp = -1;
            return i;
        }
        v = (v << 6) | (b & 0x3F);
    }
    *cp = v;
    return i;
}

/* ASCII whitespace as the addresses and sessions strip it: space, \t \n
 * \v \f \r. */
static inline int pathgate__is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* 1 when s[0..len) is well-formed UTF-8 (no overlongs, no surrogates,
 * nothing above U+10FFFF), 0 otherwise. NUL bytes are well-formed here. */
int pathgate__utf8_valid(const char *s, size_t len);

/* The standard gate for text naming a path: 0, or PATHGATE_EINVAL (s NULL
 * with len > 0), PATHGATE_ETOOLONG (len > max), PATHGATE_ENUL (an embedded
 * NUL), PATHGATE_EUTF8 (ill-formed UTF-8), with err filled. The message
 * names the problem, never the text. */
int pathgate__text_check(const char *s, size_t len, size_t max, pathgate_error *err);

#endif
