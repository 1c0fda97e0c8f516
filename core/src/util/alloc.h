/* alloc.h - internal: the per-handle allocator and pathgate_buf helpers. */
#ifndef PATHGATE_ALLOC_H
#define PATHGATE_ALLOC_H

#include "pathgate/common.h"

/* Copies *alloc into *dst, or the libc allocator when alloc is NULL. */
void pathgate__alloc_init(pathgate_allocator *dst, const pathgate_allocator *alloc);

void *pathgate__malloc(const pathgate_allocator *a, size_t size);
void *pathgate__calloc(const pathgate_allocator *a, size_t n, size_t size);
void *pathgate__realloc(const pathgate_allocator *a, void *ptr, size_t size);
void pathgate__free(const pathgate_allocator *a, void *ptr);
/* The growth of an array that is full: reallocates items (of *cap elements
 * of `size` bytes) to twice *cap, or to `first` elements when *cap is 0.
 * Returns the new array and updates *cap, or NULL (out of memory, or the
 * size would overflow) with items and *cap untouched. */
void *pathgate__grow(const pathgate_allocator *a, void *items, size_t *cap, size_t size,
                     size_t first);
/* Copy of s[0..len) plus a terminator; NULL on allocation failure. */
char *pathgate__strndup(const pathgate_allocator *a, const char *s, size_t len);

/* Replaces buf's contents by a copy of s[0..len) made with a. Returns 0 or
 * PATHGATE_ENOMEM (buf then left INIT). s == NULL sets the absent value. */
int pathgate__buf_set(pathgate_buf *buf, const pathgate_allocator *a, const char *s, size_t len);
/* Hands over an already allocated string (allocated with a). */
void pathgate__buf_adopt(pathgate_buf *buf, const pathgate_allocator *a, char *s, size_t len);

#endif
