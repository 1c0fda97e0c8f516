/*
 * support.h - shared helpers of the cmocka suites.
 *
 * pg_test_alloc() routes the core's allocator to cmocka's leak-checking
 * test_malloc/test_free, so every test is also a leak test. The failing
 * allocator fails the Nth allocation (and every later one when sticky)
 * for the allocation-chaos tests.
 */
#ifndef PATHGATE_TEST_SUPPORT_H
#define PATHGATE_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pathgate/pathgate.h"

/* The allocator routed to cmocka's test_malloc / test_realloc / test_free. */
const pathgate_allocator *pg_test_alloc(void);

/* Fails allocation number `fail_at` (1-based) and, when sticky, every
 * allocation after it; counts every call. Built on pg_test_alloc so leaks
 * are still caught. */
typedef struct pg_failing_alloc {
    pathgate_allocator alloc; /* pass &x.alloc to the core */
    long fail_at;
    long calls;
    int sticky;
    int failed; /* set once an allocation was refused */
} pg_failing_alloc;

void pg_failing_alloc_init(pg_failing_alloc *fa, long fail_at, int sticky);

/* Runs `body(alloc, ctx)` with the Nth allocation failing, for N = 1, 2,
 * ... until a run makes no failing allocation; body must return 0 on
 * success or a negative pathgate code and must free everything it made.
 * Asserts that every run either succeeds or fails with PATHGATE_ENOMEM.
 * Returns the number of allocations of the clean run. */
long pg_for_each_failing_alloc(int (*body)(const pathgate_allocator *alloc, void *ctx), void *ctx);

/* Shorthand for (text, strlen(text)). */
#define PG_S(text) (text), strlen(text)

/* Asserts the pathgate_buf holds exactly the C string expected (NULL =
 * absent) and disposes of it. */
#define pg_assert_buf(buf, expected) pg__assert_buf((buf), (expected), __FILE__, __LINE__)
void pg__assert_buf(pathgate_buf *buf, const char *expected, const char *file, int line);

/* Makes a fresh empty temporary directory; returns a malloc'd path that
 * pg_tmpdir_remove() deletes recursively and frees. */
char *pg_tmpdir_make(void);
void pg_tmpdir_remove(char *dir);

#endif
