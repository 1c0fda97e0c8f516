/* pct.c - percent-encoding and decoding of file: URI text (see pct.h). */
#include "pct.h"

#define SEG PATHGATE__PCT_SEG
#define HOK PATHGATE__PCT_HOST_OK
#define BAD PATHGATE__PCT_BADHOST
#define LEN PATHGATE__PCT_LENIENT
#define LEN_ENC (PATHGATE__PCT_LENIENT | PATHGATE__PCT_LENIENT_ENC)

/* GNU range designators keep the table readable; unlisted bytes are 0. */
const unsigned char pathgate__pct_class[256] = {
    [0x00 ... 0x1F] = SEG | BAD,
    [' '] = SEG | LEN_ENC,
    ['!'] = HOK,
    ['"'] = SEG | BAD | LEN_ENC,
    ['#'] = SEG,
    ['$'] = HOK,
    ['%'] = SEG,
    ['&'] = HOK,
    ['\''] = HOK,
    ['('] = HOK,
    [')'] = HOK,
    ['*'] = HOK | BAD,
    ['+'] = HOK,
    [','] = HOK,
    ['-'] = HOK,
    ['.'] = HOK,
    ['/'] = BAD,
    ['0' ... '9'] = HOK,
    [':'] = BAD,
    [';'] = HOK,
    ['<'] = SEG | BAD | LEN_ENC,
    ['='] = HOK,
    ['>'] = SEG | BAD | LEN_ENC,
    ['?'] = SEG | BAD,
    ['@'] = 0,
    ['A' ... 'Z'] = HOK,
    ['['] = LEN,
    ['\\'] = SEG | BAD,
    [']'] = LEN,
    ['^'] = LEN,
    ['_'] = HOK,
    ['`'] = SEG | LEN_ENC,
    ['a' ... 'z'] = HOK,
    ['{'] = SEG | LEN_ENC,
    ['|'] = BAD | LEN,
    ['}'] = SEG | LEN_ENC,
    ['~'] = HOK,
    [0x7F] = SEG | BAD,
    [0x80 ... 0xFF] = SEG | LEN_ENC,
};

static const char hex_upper[16] = "0123456789ABCDEF";

size_t pathgate__pct_count(const char *s, size_t n, int cls)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += (pathgate__pct_class[(unsigned char)s[i]] & cls) != 0;
    return count;
}

size_t pathgate__pct_encode(char *dst, const char *s, size_t n, int cls)
{
    char *p = dst;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int encode = cls ? (pathgate__pct_class[c] & cls) != 0
                         : (pathgate__pct_class[c] & PATHGATE__PCT_HOST_OK) == 0;
        if (encode) {
            *p++ = '%';
            *p++ = hex_upper[c >> 4];
            *p++ = hex_upper[c & 15];
        } else {
            *p++ = (char)c;
        }
    }
    return (size_t)(p - dst);
}

size_t pathgate__pct_decode(char *dst, const char *s, size_t n)
{
    size_t i = 0, out = 0;
    while (i < n)
        dst[out++] = (char)pathgate__pct_next(s, &i);
    return out;
}

int pathgate__pct_valid(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%')
            continue;
        if (n - i < 3 || pathgate__pct_hexval((unsigned char)s[i + 1]) < 0 ||
            pathgate__pct_hexval((unsigned char)s[i + 2]) < 0)
            return 0;
        i += 2;
    }
    return 1;
}

int pathgate__pct_has_decoded(const char *s, size_t n, unsigned char c)
{
    size_t i = 0;
    while (i < n)
        if (pathgate__pct_next(s, &i) == c)
            return 1;
    return 0;
}
