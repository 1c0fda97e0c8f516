/* strbuf.c - the growable string of strbuf.h. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"

int pathgate__sb_reserve(pathgate__sb *b, size_t n)
{
    if (b->oom)
        return -1;
    if (n > SIZE_MAX / 2 - b->len - 1) {
        b->oom = 1;
        return -1;
    }
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *p = pathgate__realloc(b->a, b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void pathgate__sb_put(pathgate__sb *b, const char *s, size_t n)
{
    if (pathgate__sb_reserve(b, n) < 0)
        return;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void pathgate__sb_puts(pathgate__sb *b, const char *s)
{
    pathgate__sb_put(b, s, strlen(s));
}

void pathgate__sb_putc(pathgate__sb *b, char c)
{
    pathgate__sb_put(b, &c, 1);
}

void pathgate__sb_printf(pathgate__sb *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        pathgate__sb_put(b, small, (size_t)n);
        return;
    }
    if (pathgate__sb_reserve(b, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void pathgate__sb_free(pathgate__sb *b)
{
    pathgate__free(b->a, b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}

int pathgate__sb_to_buf(pathgate__sb *b, pathgate_buf *buf)
{
    if (b->oom) {
        pathgate__sb_free(b);
        return PATHGATE_ENOMEM;
    }
    if (!b->p)
        return pathgate__buf_set(buf, b->a, "", 0) < 0 ? PATHGATE_ENOMEM : PATHGATE_OK;
    pathgate__buf_adopt(buf, b->a, b->p, b->len);
    b->p = NULL;
    b->len = b->cap = 0;
    return PATHGATE_OK;
}
