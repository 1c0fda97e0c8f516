/* fs_text.c - pure text work of the file operations: line windows, blank
 * files, UTF-8 repair, base64, the edit replacement, quoting. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "fs_text.h"
#include "text.h"

int pathgate__fs_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!(c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f)))
            return 0;
    }
    return 1;
}

size_t pathgate__fs_count_newlines(const char *s, size_t len)
{
    /* SWAR: eight bytes at a time, per-byte counters flushed before they
     * can overflow */
    const uint64_t ones = 0x0101010101010101ULL;
    const uint64_t nl = ones * '\n', low7 = ones * 0x7f, high = ones * 0x80;
    size_t n = 0, i = 0;
    while (i + 8 <= len) {
        uint64_t acc = 0;
        for (int k = 0; k < 255 && i + 8 <= len; k++, i += 8) {
            uint64_t v;
            memcpy(&v, s + i, 8);
            v ^= nl;                              /* a '\n' byte is now zero */
            uint64_t t = ((v & low7) + low7) | v; /* high bit set: nonzero */
            acc += (~t & high) >> 7;
        }
        /* horizontal sum of the eight byte lanes (each <= 255) */
        const uint64_t m8 = 0x00ff00ff00ff00ffULL;
        uint64_t s16 = (acc & m8) + ((acc >> 8) & m8);
        n += (size_t)((s16 * 0x0001000100010001ULL) >> 48);
    }
    for (; i < len; i++)
        n += s[i] == '\n';
    return n;
}

size_t pathgate__fs_count_lines(const char *s, size_t len)
{
    return pathgate__fs_count_newlines(s, len) + (len && s[len - 1] != '\n');
}

int pathgate__fs_window(pathgate_buf *out, size_t *total, const pathgate_allocator *a,
                        const char *s, size_t len, uint64_t offset, uint64_t limit)
{
    size_t lines = pathgate__fs_count_lines(s, len);
    *total = lines;
    if (offset >= lines)
        return PATHGATE_ERANGE;
    /* start of line `offset` */
    const char *p = s, *end = s + len;
    for (uint64_t i = 0; i < offset; i++)
        p = (const char *)memchr(p, '\n', (size_t)(end - p)) + 1;
    /* end of line offset + limit - 1 (its terminator excluded) */
    const char *q = p;
    uint64_t want = limit < lines - offset ? limit : lines - offset;
    for (uint64_t i = 0; i < want; i++) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        q = nl ? nl + 1 : end;
    }
    char *buf = pathgate__malloc(a, (size_t)(q - p) + 1);
    if (!buf)
        return PATHGATE_ENOMEM;
    size_t n = 0;
    for (uint64_t i = 0; i < want; i++) {
        const char *nl = memchr(p, '\n', (size_t)(q - p));
        const char *le = nl ? nl : q;
        const char *ce = le;
        if (nl && ce > p && ce[-1] == '\r')
            ce--; /* CRLF */
        if (i)
            buf[n++] = '\n';
        memcpy(buf + n, p, (size_t)(ce - p));
        n += (size_t)(ce - p);
        p = nl ? nl + 1 : q;
    }
    buf[n] = '\0';
    pathgate__buf_adopt(out, a, buf, n);
    return PATHGATE_OK;
}

size_t pathgate__fs_utf8_repair(char *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, n = 0;
    while (i < len) {
        long cp;
        size_t k = pathgate__utf8_next(s + i, len - i, &cp);
        if (cp >= 0) {
            if (out)
                memcpy(out + n, s + i, k);
            n += k;
            i += k;
        } else {
            if (out)
                memcpy(out + n, "\xEF\xBF\xBD", 3);
            n += 3;
            i++;
        }
    }
    return n;
}

int pathgate__fs_base64(pathgate_buf *out, const pathgate_allocator *a, const void *data,
                        size_t len)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (len > ((size_t)-1 / 4) * 3 - 3)
        return PATHGATE_ENOMEM;
    size_t n = (len + 2) / 3 * 4;
    char *buf = pathgate__malloc(a, n + 1);
    if (!buf)
        return PATHGATE_ENOMEM;
    const unsigned char *s = data;
    size_t o = 0, i = 0;
    for (; i + 3 <= len; i += 3) {
        unsigned long v = ((unsigned long)s[i] << 16) | ((unsigned long)s[i + 1] << 8) | s[i + 2];
        buf[o++] = alphabet[(v >> 18) & 63];
        buf[o++] = alphabet[(v >> 12) & 63];
        buf[o++] = alphabet[(v >> 6) & 63];
        buf[o++] = alphabet[v & 63];
    }
    if (i < len) {
        unsigned long v = (unsigned long)s[i] << 16;
        if (i + 1 < len)
            v |= (unsigned long)s[i + 1] << 8;
        buf[o++] = alphabet[(v >> 18) & 63];
        buf[o++] = alphabet[(v >> 12) & 63];
        buf[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        buf[o++] = '=';
    }
    buf[o] = '\0';
    pathgate__buf_adopt(out, a, buf, o);
    return PATHGATE_OK;
}

size_t pathgate__fs_quote(char *out, size_t room, const char *s, size_t len)
{
    if (len <= room) {
        memcpy(out, s, len);
        out[len] = '\0';
        return len;
    }
    if (room < 3) {
        out[0] = '\0';
        return 0;
    }
    size_t keep = room - 3;
    /* back off to the start of a UTF-8 sequence */
    while (keep && ((unsigned char)s[keep] & 0xC0) == 0x80)
        keep--;
    memcpy(out, s, keep);
    memcpy(out + keep, "...", 3);
    out[keep + 3] = '\0';
    return keep + 3;
}

/* ---------------------------------------------------------------- edit */

/* Non-overlapping occurrences of needle (len > 0), left to right. */
static size_t count_occurrences(const char *hay, size_t hay_len, const char *needle, size_t len)
{
    size_t n = 0;
    const char *p = hay, *end = hay + hay_len;
    while ((size_t)(end - p) >= len) {
        const char *m = pathgate__memmem(p, (size_t)(end - p), needle, len);
        if (!m)
            break;
        n++;
        p = m + len;
    }
    return n;
}

/* s with every "\n" not preceded by "\r" written "\r\n" (allocated). */
static char *to_crlf(const pathgate_allocator *a, const char *s, size_t len, size_t *out_len)
{
    size_t extra = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
            extra++;
    char *buf = pathgate__malloc(a, len + extra + 1);
    if (!buf)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
            buf[n++] = '\r';
        buf[n++] = s[i];
    }
    buf[n] = '\0';
    *out_len = n;
    return buf;
}

/* The edit errors of fs.h: the messages name the problem only; the advice
 * ("Use replace_all=True", "--replace-all") is each front end's. */
static int edit_error(pathgate_error *err, size_t count, const char *old_text, size_t old_len)
{
    char q[PATHGATE_ERROR_TEXT_LENGTH];
    if (count == 0) {
        size_t room = PATHGATE_ERROR_TEXT_LENGTH - 1 - strlen("String not found in file: ''");
        pathgate__fs_quote(q, room, old_text, old_len);
        return pathgate__error_set(err, PATHGATE_EEDIT, "String not found in file: '%s'", q);
    }
    char num[32];
    int nl = snprintf(num, sizeof num, "%zu", count);
    size_t fixed = strlen("String '' appears  times in file.") + (size_t)nl;
    pathgate__fs_quote(q, PATHGATE_ERROR_TEXT_LENGTH - 1 - fixed, old_text, old_len);
    return pathgate__error_set(err, PATHGATE_EAMBIGUOUS, "String '%s' appears %s times in file.", q,
                               num);
}

int pathgate__fs_replace(char **result, size_t *result_len, size_t *count,
                         const pathgate_allocator *a, const char *content, size_t len,
                         const char *old_text, size_t old_len, const char *new_text, size_t new_len,
                         int replace_all, pathgate_error *err)
{
    *result = NULL;
    *result_len = 0;
    *count = 0;
    if (old_len == 0)
        return pathgate__error_set(err, PATHGATE_EEDIT, "old_string must not be empty");
    if (!new_text)
        new_text = "";
    const char *first_nl = memchr(content, '\n', len);
    const int crlf = first_nl && first_nl > content && first_nl[-1] == '\r';
    char *old_crlf = NULL, *new_crlf = NULL;
    const char *o = old_text, *w = new_text;
    size_t olen = old_len, wlen = new_len;
    size_t n = 0;
    if (crlf && memchr(old_text, '\n', old_len)) {
        size_t l1, l2;
        old_crlf = to_crlf(a, old_text, old_len, &l1);
        new_crlf = old_crlf ? to_crlf(a, new_text, new_len, &l2) : NULL;
        if (!new_crlf) {
            pathgate__free(a, old_crlf);
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        }
        n = count_occurrences(content, len, old_crlf, l1);
        if (n) {
            o = old_crlf;
            olen = l1;
            w = new_crlf;
            wlen = l2;
        }
    }
    if (n == 0)
        n = count_occurrences(content, len, old_text, old_len);
    int rc = PATHGATE_OK;
    if (n == 0 || (n > 1 && !replace_all)) {
        rc = edit_error(err, n, old_text, old_len);
        goto done;
    }
    size_t out_len = len - n * olen + n * wlen;
    char *buf = pathgate__malloc(a, out_len + 1);
    if (!buf) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto done;
    }
    size_t k = 0;
    const char *p = content, *end = content + len;
    for (size_t i = 0; i < n; i++) {
        const char *m = pathgate__memmem(p, (size_t)(end - p), o, olen);
        memcpy(buf + k, p, (size_t)(m - p));
        k += (size_t)(m - p);
        if (wlen)
            memcpy(buf + k, w, wlen);
        k += wlen;
        p = m + olen;
    }
    memcpy(buf + k, p, (size_t)(end - p));
    k += (size_t)(end - p);
    buf[k] = '\0';
    *result = buf;
    *result_len = k;
    *count = n;
done:
    pathgate__free(a, old_crlf);
    pathgate__free(a, new_crlf);
    return rc;
}
