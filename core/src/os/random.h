/*
 * random.h - internal: a batched source of kernel randomness.
 *
 * One pool per owner (never a global): the OS (pathgate__os_random) fills a page at a
 * time, so taking 16 bytes costs no system call except once per refill.
 * Not locked: the owner serialises access (the registry holds its lock).
 *
 * Fork: the pool page is marked MADV_WIPEONFORK where the kernel allows
 * it, so a forked child finds it empty and refills instead of repeating
 * the parent's bytes (best effort: without it a child repeats at most one
 * page of the parent's bytes).
 */
#ifndef PATHGATE_RANDOM_H
#define PATHGATE_RANDOM_H

#include <stddef.h>

#include "pathgate/common.h"

typedef struct pathgate__random_page pathgate__random_page;

typedef struct pathgate__random {
    void *block;                 /* what the allocator returned */
    pathgate__random_page *page; /* page-aligned inside block */
    size_t capacity;             /* random bytes a full page holds */
    size_t page_size;
    int wipe_on_fork; /* madvise succeeded: undo before free */
} pathgate__random;

/* Allocates the pool (empty: the first take fills it). 0 or ENOMEM. */
int pathgate__random_init(pathgate__random *r, const pathgate_allocator *alloc);
/* Wipes and frees the pool. Safe on a zeroed or disposed struct. */
void pathgate__random_dispose(pathgate__random *r, const pathgate_allocator *alloc);
/* Copies n fresh random bytes (n <= 64) to out and wipes them from the
 * pool. 0, or PATHGATE_EIO when the kernel gives no randomness. */
int pathgate__random_take(pathgate__random *r, void *out, size_t n);
/* Copies the n bytes (n <= 64) the next take will hand out, without
 * taking them: 0, or -1 when the next take refills first (nothing copied).
 * For a prefetch hint only; a fork in between wipes them (see above). */
int pathgate__random_peek(const pathgate__random *r, void *out, size_t n);
/* Fills out with n bytes straight from the OS (pathgate__os_random), for
 * callers that need a few bytes
 * rarely and own no pool (temp file names). 0, or PATHGATE_EIO. */
int pathgate__random_bytes(void *out, size_t n);

#endif
