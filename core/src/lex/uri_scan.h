/* uri_scan.h - internal: the byte classes of URI and native path text as
 * bit masks, 16 bytes per step (SSE2 compares where the target has them,
 * the pct.h class table otherwise; both give the same masks).
 *
 * Bit k of a mask stands for byte base + k; no bit stands for a byte past
 * the text's end. The classes:
 *   bad    neither RFC 3986 pchar nor our literal `[]|^`, other than '/'
 *          and '%': controls, space, `"#<>?\``{}`, '\', DEL, >= 0x80
 *          (with '%' exactly the bytes from_native encodes in a segment,
 *          PATHGATE__PCT_SEG; with '/' too, PATHGATE__PCT_NOT_PLAIN)
 *   slash  '/'      pct  '%'      bslash  '\'      nul  NUL
 *   high   >= 0x80  hex  a hex digit      zero  '0' */
#ifndef PATHGATE_URI_SCAN_H
#define PATHGATE_URI_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pct.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct pathgate__scan {
    uint64_t bad, slash, pct, bslash, nul, high, hex, zero;
} pathgate__scan;

/* The masks of the 16 bytes at p (bits 0-15). */
static inline void pathgate__scan16(pathgate__scan *m, const unsigned char *p)
{
#if defined(__SSE2__)
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
#define PG_EQ(c) _mm_cmpeq_epi8(v, _mm_set1_epi8((char)(c)))
    /* signed: below '!' is a control byte, space or >= 0x80 */
    __m128i b = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x21)), PG_EQ(0x7F));
    __m128i bs = PG_EQ('\\');
    b = _mm_or_si128(b, _mm_or_si128(PG_EQ('"'), PG_EQ('#')));
    b = _mm_or_si128(b, _mm_or_si128(PG_EQ('<'), PG_EQ('>')));
    b = _mm_or_si128(b, _mm_or_si128(PG_EQ('?'), bs));
    b = _mm_or_si128(b, _mm_or_si128(PG_EQ('`'), PG_EQ('{')));
    b = _mm_or_si128(b, PG_EQ('}'));
    m->bad = (unsigned)_mm_movemask_epi8(b);
    m->slash = (unsigned)_mm_movemask_epi8(PG_EQ('/'));
    m->pct = (unsigned)_mm_movemask_epi8(PG_EQ('%'));
    m->bslash = (unsigned)_mm_movemask_epi8(bs);
    m->nul = (unsigned)_mm_movemask_epi8(PG_EQ(0));
    m->high = (unsigned)_mm_movemask_epi8(v);
    /* signed ranges: bytes >= 0x80 are negative, in neither */
    __m128i l = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i dig = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
    __m128i af = _mm_and_si128(_mm_cmpgt_epi8(l, _mm_set1_epi8('a' - 1)),
                               _mm_cmplt_epi8(l, _mm_set1_epi8('f' + 1)));
    m->hex = (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, af));
    m->zero = (unsigned)_mm_movemask_epi8(PG_EQ('0'));
#undef PG_EQ
#else
    pathgate__scan z = {0, 0, 0, 0, 0, 0, 0, 0};
    *m = z;
    for (unsigned k = 0; k < 16; k++) {
        unsigned char c = p[k];
        uint64_t bit = (uint64_t)1 << k;
        if (c == '/')
            m->slash |= bit;
        else if (c == '%')
            m->pct |= bit;
        else if (pathgate__pct_class[c] & PATHGATE__PCT_NOT_PLAIN)
            m->bad |= bit;
        if (c == '\\')
            m->bslash |= bit;
        if (c == 0)
            m->nul |= bit;
        if (c >= 0x80)
            m->high |= bit;
        if (pathgate__pct_hexval(c) >= 0)
            m->hex |= bit;
        if (c == '0')
            m->zero |= bit;
    }
#endif
}

/* The masks of s[base..base + 64) within s[0..n) (base < n): whole
 * 16-byte loads inside the text only (the last one overlaps the one
 * before it, or a short text is copied into a padded block). */
static inline pathgate__scan pathgate__scan64(const char *str, size_t n, size_t base)
{
    pathgate__scan m = {0, 0, 0, 0, 0, 0, 0, 0};
    const unsigned char *s = (const unsigned char *)str;
    for (unsigned c = 0; c < 64 && base + c < n; c += 16) {
        size_t off = base + c, rest = n - off;
        pathgate__scan b;
        unsigned shift = 0;
        if (rest >= 16) {
            pathgate__scan16(&b, s + off);
        } else if (n >= 16) { /* the last 16 bytes, shifted down */
            pathgate__scan16(&b, s + n - 16);
            shift = (unsigned)(16 - rest);
        } else { /* a short text, padded with a plain byte that is no hex
                    digit (and no bit of the padding is kept) */
            unsigned char pad[16];
            memset(pad, 'x', sizeof pad);
            memcpy(pad, s + off, rest);
            pathgate__scan16(&b, pad);
            b.hex &= ((uint64_t)1 << rest) - 1;
        }
        m.bad |= b.bad >> shift << c;
        m.slash |= b.slash >> shift << c;
        m.pct |= b.pct >> shift << c;
        m.bslash |= b.bslash >> shift << c;
        m.nul |= b.nul >> shift << c;
        m.high |= b.high >> shift << c;
        m.hex |= b.hex >> shift << c;
        m.zero |= b.zero >> shift << c;
    }
    return m;
}

#endif
