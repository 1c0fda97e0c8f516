/*
 * testing.h - internal: the knobs only the test suites turn. Not installed,
 * not part of the API; tests/c/support.h includes it.
 *
 * - PATHGATE_RESOLVER_FORCE_FALLBACK in pathgate_resolver_options.flags:
 *   never use the kernel's beneath-lookup, always take the O_NOFOLLOW
 *   component walk, so that
 *   both containment paths run the same tests.
 * - pathgate__fs_test_options: pathgate_fs_options with a fault-injection
 *   hook, passed as &x.options with x.options.version set to
 *   PATHGATE__FS_OPTIONS_TEST_VERSION (PATHGATE__FS_TEST_OPTIONS_INIT does).
 */
#ifndef PATHGATE_TESTING_H
#define PATHGATE_TESTING_H

#include "pathgate/fs.h"
#include "pathgate/resolver.h"

#define PATHGATE_RESOLVER_FORCE_FALLBACK 0x1u

/* Points of a write where the hook is called. */
typedef enum pathgate_fs_hook_point {
    PATHGATE_FS_HOOK_TEMP_CREATED = 1, /* temp file created, nothing written */
    PATHGATE_FS_HOOK_BEFORE_RENAME = 2 /* temp written and fsync'd */
} pathgate_fs_hook_point;

typedef struct pathgate__fs_test_options {
    pathgate_fs_options options; /* first: &x.options is what the core gets */
    /* Called at each pathgate_fs_hook_point of a write; a negative pathgate
     * code returned aborts the write there (temp file removed, target
     * untouched) with that code. NULL = none. */
    int (*hook)(pathgate_fs_hook_point point, void *ctx);
    void *hook_ctx;
} pathgate__fs_test_options;

/* The version that marks options as the first member of a
 * pathgate__fs_test_options (no public version has the top bit). */
#define PATHGATE__FS_OPTIONS_TEST_VERSION (0x80000000u | PATHGATE_FS_OPTIONS_VERSION)
#define PATHGATE__FS_TEST_OPTIONS_INIT                                                             \
    {                                                                                              \
        {PATHGATE__FS_OPTIONS_TEST_VERSION, NULL, 0, 0}, NULL, NULL                                \
    }

/* The test options around opts, or NULL when opts are plain options. */
static inline const pathgate__fs_test_options *pathgate__fs_test_options_of(
    const pathgate_fs_options *opts)
{
    return opts && opts->version == PATHGATE__FS_OPTIONS_TEST_VERSION
               ? (const pathgate__fs_test_options *)opts
               : NULL;
}

#endif
