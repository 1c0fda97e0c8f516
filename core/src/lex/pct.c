/* pct.c - percent-encoding and decoding of file: URI text (see pct.h). */
#include "pct.h"

#define SEG PATHGATE__PCT_SEG
#define HOK PATHGATE__PCT_HOST_OK
#define BAD PATHGATE__PCT_BADHOST
#define LEN PATHGATE__PCT_LENIENT
#define LEN_ENC (PATHGATE__PCT_LENIENT | PATHGATE__PCT_LENIENT_ENC)
#define SLASH PATHGATE__PCT_SLASH
#define POK PATHGATE__PCT_PATH_OK
#define PCH PATHGATE__PCT_PCHAR
#define NP PATHGATE__PCT_NOT_PLAIN
#define UNR PATHGATE__PCT_UNRESERVED
#define PCT PATHGATE__PCT_PERCENT
#define HI PATHGATE__PCT_HIGH

/* GNU range designators keep the table readable; unlisted bytes are 0. */
const unsigned short pathgate__pct_class[256] = {
    [0x00 ... 0x1F] = SEG | BAD | NP,
    [' '] = SEG | LEN_ENC | POK | NP,
    ['!'] = HOK | PCH | POK,
    ['"'] = SEG | BAD | LEN_ENC | POK | NP,
    ['#'] = SEG | NP,
    ['$'] = HOK | PCH | POK,
    ['%'] = SEG | NP | PCT,
    ['&'] = HOK | PCH | POK,
    ['\''] = HOK | PCH | POK,
    ['('] = HOK | PCH | POK,
    [')'] = HOK | PCH | POK,
    ['*'] = HOK | PCH | BAD | POK,
    ['+'] = HOK | PCH | POK,
    [','] = HOK | PCH | POK,
    ['-'] = HOK | PCH | POK | UNR,
    ['.'] = HOK | PCH | POK | UNR,
    ['/'] = BAD | SLASH | POK | NP,
    ['0' ... '9'] = HOK | PCH | POK | UNR,
    [':'] = BAD | POK | PCH,
    [';'] = HOK | PCH | POK,
    ['<'] = SEG | BAD | LEN_ENC | POK | NP,
    ['='] = HOK | PCH | POK,
    ['>'] = SEG | BAD | LEN_ENC | POK | NP,
    ['?'] = SEG | BAD | NP,
    ['@'] = POK | PCH,
    ['A' ... 'Z'] = HOK | PCH | POK | UNR,
    ['['] = LEN | POK,
    ['\\'] = SEG | BAD | NP,
    [']'] = LEN | POK,
    ['^'] = LEN | POK,
    ['_'] = HOK | PCH | POK | UNR,
    ['`'] = SEG | LEN_ENC | POK | NP,
    ['a' ... 'z'] = HOK | PCH | POK | UNR,
    ['{'] = SEG | LEN_ENC | POK | NP,
    ['|'] = BAD | LEN | POK,
    ['}'] = SEG | LEN_ENC | POK | NP,
    ['~'] = HOK | PCH | POK | UNR,
    [0x7F] = SEG | BAD | NP,
    [0x80 ... 0xFF] = SEG | LEN_ENC | POK | NP | HI,
};

const char pathgate__pct_hex[16] = "0123456789ABCDEF";

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
            *p++ = pathgate__pct_hex[c >> 4];
            *p++ = pathgate__pct_hex[c & 15];
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

int pathgate__pct_has_decoded(const char *s, size_t n, unsigned char c)
{
    size_t i = 0;
    while (i < n)
        if (pathgate__pct_next(s, &i) == c)
            return 1;
    return 0;
}
