/* alloc.c - the per-handle allocator (NULL = libc) and pathgate_buf. */
#include "alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *libc_malloc(size_t size, void *ctx)
{
    (void)ctx;
    return malloc(size);
}
static void *libc_realloc(void *ptr, size_t size, void *ctx)
{
    (void)ctx;
    return realloc(ptr, size);
}
static void libc_free(void *ptr, void *ctx)
{
    (void)ctx;
    free(ptr);
}

static const pathgate_allocator libc_allocator = {libc_malloc, libc_realloc, libc_free, NULL};

void pathgate__alloc_init(pathgate_allocator *dst, const pathgate_allocator *alloc)
{
    *dst = (alloc && alloc->malloc && alloc->realloc && alloc->free) ? *alloc : libc_allocator;
}

void *pathgate__malloc(const pathgate_allocator *a, size_t size)
{
    return a->malloc(size ? size : 1, a->ctx);
}

void *pathgate__calloc(const pathgate_allocator *a, size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size)
        return NULL;
    size_t total = n * size;
    void *p = pathgate__malloc(a, total);
    if (p && total)
        memset(p, 0, total);
    return p;
}

void *pathgate__realloc(const pathgate_allocator *a, void *ptr, size_t size)
{
    return a->realloc(ptr, size ? size : 1, a->ctx);
}

void pathgate__free(const pathgate_allocator *a, void *ptr)
{
    if (ptr)
        a->free(ptr, a->ctx);
}

void *pathgate__grow(const pathgate_allocator *a, void *items, size_t *cap, size_t size,
                     size_t first)
{
    size_t n = first;
    if (*cap) {
        if (*cap > SIZE_MAX / 2)
            return NULL;
        n = *cap * 2;
    }
    if (!size || n > SIZE_MAX / size)
        return NULL;
    void *p = pathgate__realloc(a, items, n * size);
    if (p)
        *cap = n;
    return p;
}

char *pathgate__strndup(const pathgate_allocator *a, const char *s, size_t len)
{
    if (len == (size_t)-1)
        return NULL;
    char *p = pathgate__malloc(a, len + 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void pathgate_buf_dispose(pathgate_buf *buf)
{
    if (!buf)
        return;
    if (buf->ptr && buf->alloc.free)
        buf->alloc.free(buf->ptr, buf->alloc.ctx);
    buf->ptr = NULL;
    buf->len = 0;
    memset(&buf->alloc, 0, sizeof buf->alloc);
}

int pathgate__buf_set(pathgate_buf *buf, const pathgate_allocator *a, const char *s, size_t len)
{
    pathgate_buf_dispose(buf);
    if (!s)
        return PATHGATE_OK;
    char *copy = pathgate__strndup(a, s, len);
    if (!copy)
        return PATHGATE_ENOMEM;
    pathgate__buf_adopt(buf, a, copy, len);
    return PATHGATE_OK;
}

void pathgate__buf_adopt(pathgate_buf *buf, const pathgate_allocator *a, char *s, size_t len)
{
    pathgate_buf_dispose(buf);
    buf->ptr = s;
    buf->len = len;
    buf->alloc = *a;
}
