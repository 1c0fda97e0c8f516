/* strbuf.h - internal: a growable string built with a handle's allocator.
 * A failed allocation sets `oom` and makes every later append a no-op, so
 * a caller appends freely and checks once at the end. */
#ifndef PATHGATE_STRBUF_H
#define PATHGATE_STRBUF_H

#include <stddef.h>

#include "error.h" /* PATHGATE__PRINTF_FORMAT */
#include "pathgate/common.h"

typedef struct pathgate__sb {
    char *p; /* NUL-terminated once anything was appended; NULL before */
    size_t len, cap;
    const pathgate_allocator *a;
    int oom;
} pathgate__sb;

#define PATHGATE__SB_INIT(alloc)                                                                   \
    {                                                                                              \
        NULL, 0, 0, (alloc), 0                                                                     \
    }

/* Room for n more bytes (and a terminator); 0 or -1 (oom set). */
int pathgate__sb_reserve(pathgate__sb *b, size_t n);
void pathgate__sb_put(pathgate__sb *b, const char *s, size_t n);
void pathgate__sb_puts(pathgate__sb *b, const char *s);
void pathgate__sb_putc(pathgate__sb *b, char c);
void pathgate__sb_printf(pathgate__sb *b, const char *fmt, ...)
    __attribute__((format(PATHGATE__PRINTF_FORMAT, 2, 3)));
/* Frees the contents and resets to empty (keeps the allocator). */
void pathgate__sb_free(pathgate__sb *b);
/* Hands the string to buf ("" when nothing was appended): 0, or
 * PATHGATE_ENOMEM (the builder is freed either way). */
int pathgate__sb_to_buf(pathgate__sb *b, pathgate_buf *buf);

#endif
