/* editor_text.c - the text rules of the reference editor as Python
 * applies them: UTF-8 decoding errors, universal newlines, expandtabs,
 * truncation and `cat -n` (docs/editor.md). */
#define _GNU_SOURCE
#include <string.h>

#include "editor_internal.h"
#include "text.h"

/* The reference's TRUNCATED_MESSAGE (computer_use_demo/tools/run.py). */
#define TRUNCATED_MESSAGE                                                                          \
    "<response clipped><NOTE>To save on context only part of this file has been shown to you. "    \
    "You should retry this tool after you have searched inside the file with `grep -n` in order "  \
    "to find the line numbers of what you are looking for.</NOTE>"

int pathgate__ed_utf8_error(pathgate__sb *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < len;) {
        long cp;
        size_t k = pathgate__utf8_next(s + i, len - i, &cp);
        if (cp >= 0) {
            i += k;
            continue;
        }
        unsigned char c = s[i];
        int lead = (c >= 0xC2 && c <= 0xF4);
        const char *why = !lead          ? "invalid start byte"
                          : i + k >= len ? "unexpected end of data"
                                         : "invalid continuation byte";
        if (k == 1)
            pathgate__sb_printf(out, "'utf-8' codec can't decode byte 0x%02x in position %zu: %s",
                                c, i, why);
        else
            pathgate__sb_printf(out, "'utf-8' codec can't decode bytes in position %zu-%zu: %s", i,
                                i + k - 1, why);
        return 1;
    }
    return 0;
}

void pathgate__ed_newlines(char *s, size_t *len)
{
    size_t n = *len, o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r') {
            s[o++] = '\n';
            if (i + 1 < n && s[i + 1] == '\n')
                i++;
        } else {
            s[o++] = s[i];
        }
    }
    *len = o;
}

void pathgate__ed_expandtabs(pathgate__sb *out, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t col = 0, run = 0; /* run: bytes copied as they are, not yet put */
    pathgate__sb_reserve(out, len + len / 4);
    for (size_t i = 0; i < len;) {
        unsigned char c = s[i];
        if (c == '\t') {
            pathgate__sb_put(out, str + i - run, run);
            run = 0;
            static const char spaces[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
            size_t k = 8 - col % 8;
            pathgate__sb_put(out, spaces, k);
            col += k;
            i++;
        } else if (c == '\n' || c == '\r') {
            col = 0;
            run++;
            i++;
        } else {
            size_t k = 1;
            if (c >= 0x80) {
                long cp;
                k = pathgate__utf8_next(s + i, len - i, &cp);
            }
            col++;
            run += k;
            i += k;
        }
    }
    pathgate__sb_put(out, str + len - run, run);
}

size_t pathgate__ed_chars(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

size_t pathgate__ed_prefix(const char *s, size_t len, size_t n)
{
    size_t i = 0;
    for (; i < len; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && n-- == 0)
            break;
    return i;
}

size_t pathgate__ed_count(const char *s, size_t len, const char *sub, size_t sub_len)
{
    if (sub_len == 0)
        return pathgate__ed_chars(s, len) + 1;
    size_t n = 0;
    for (const char *p = s, *end = s + len; (size_t)(end - p) >= sub_len; n++) {
        const char *m = pathgate__memmem(p, (size_t)(end - p), sub, sub_len);
        if (!m)
            break;
        p = m + sub_len;
    }
    return n;
}

void pathgate__ed_cat_n(pathgate__sb *out, const char *content, size_t len, const char *descriptor,
                        int64_t init_line, size_t max_chars)
{
    pathgate__sb cut = PATHGATE__SB_INIT(out->a);
    const char *text = content;
    size_t text_len = len;
    if (max_chars && pathgate__ed_chars(content, len) > max_chars) {
        pathgate__sb_put(&cut, content, pathgate__ed_prefix(content, len, max_chars));
        pathgate__sb_puts(&cut, TRUNCATED_MESSAGE);
        text = cut.p;
        text_len = cut.len;
    }
    pathgate__sb expanded = PATHGATE__SB_INIT(out->a);
    pathgate__ed_expandtabs(&expanded, text ? text : "", text ? text_len : 0);
    if (cut.oom || expanded.oom)
        out->oom = 1;
    pathgate__sb_printf(out, "Here's the result of running `cat -n` on %s:\n", descriptor);
    const char *p = expanded.p ? expanded.p : "", *end = p + expanded.len;
    int64_t line = init_line;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        pathgate__sb_printf(out, "%6lld\t", (long long)line++);
        pathgate__sb_put(out, p, (size_t)(e - p));
        pathgate__sb_putc(out, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    pathgate__sb_free(&cut);
    pathgate__sb_free(&expanded);
}
