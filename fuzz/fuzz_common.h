/* fuzz_common.h - shared checks of the libFuzzer targets. */
#ifndef PATHGATE_FUZZ_COMMON_H
#define PATHGATE_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathgate/pathgate.h"

/* A property violation: print what and where, then abort so libFuzzer
 * saves the input. */
#define FZ_CHECK(cond, ...)                                                   \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: property violated: %s\n  ", __FILE__,     \
                    __LINE__, #cond);                                         \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* Every failure must be a code of the error table. */
static inline void fz_known_error(int rc)
{
    FZ_CHECK(rc < 0 && strcmp(pathgate_errname(rc), "unknown_error") != 0, "rc=%d", rc);
}

/* True when the URI string holds an encoded separator (%2F, or %5C), with
 * which starts_with is defined to be false. */
static inline int fz_has_encoded_sep(const char *s)
{
    for (; (s = strchr(s, '%')) != NULL; s++)
        if ((s[1] == '2' && (s[2] == 'F' || s[2] == 'f')) ||
            (s[1] == '5' && (s[2] == 'C' || s[2] == 'c')))
            return 1;
    return 0;
}

/* The laws every successfully built URI obeys: its string parses back to
 * an equal URI with the same string and hash; parsing is stable; display
 * never fails; a URI starts with itself and is "" relative to itself. */
static inline void fz_check_uri(const pathgate_uri *u)
{
    size_t len = 0;
    const char *s = pathgate_uri_string(u, &len);
    FZ_CHECK(s && strlen(s) == len, "string/len mismatch");
    FZ_CHECK(strncmp(s, "file://", 7) == 0, "not a file URI: %s", s);
    pathgate_uri *v = NULL;
    int rc = pathgate_uri_parse(&v, s, len, NULL, NULL);
    FZ_CHECK(rc == 0, "own string does not parse: %s -> %s", s, pathgate_errname(rc));
    size_t vlen = 0;
    const char *t = pathgate_uri_string(v, &vlen);
    FZ_CHECK(vlen == len && memcmp(s, t, len) == 0, "parse(str(u)) changed: %s -> %s", s, t);
    FZ_CHECK(pathgate_uri_equal(u, v), "parse(str(u)) != u: %s", s);
    FZ_CHECK(pathgate_uri_hash(u) == pathgate_uri_hash(v), "hash differs: %s", s);
    FZ_CHECK(pathgate_uri_convention(u) == pathgate_uri_convention(v), "convention: %s", s);
    FZ_CHECK(pathgate_uri_is_opaque(u) == pathgate_uri_is_opaque(v), "opaque: %s", s);
    pathgate_uri_free(v);

    pathgate_buf b = PATHGATE_BUF_INIT;
    FZ_CHECK(pathgate_uri_display(&b, u) == 0 && b.ptr, "display failed: %s", s);
    pathgate_buf_dispose(&b);
    FZ_CHECK(pathgate_uri_starts_with(u, u) == 1 || fz_has_encoded_sep(s),
             "u does not start with itself: %s", s);
    if (!fz_has_encoded_sep(s) && !pathgate_uri_is_opaque(u)) {
        rc = pathgate_uri_relative_to(&b, u, u, NULL);
        FZ_CHECK((rc == 0 && b.ptr && b.len == 0) ||
                     (rc == PATHGATE_EUTF8 && pathgate_uri_convention(u) == PATHGATE_CONVENTION_WINDOWS),
                 "relative_to(u, u) != \"\": %s (%s)", s, pathgate_errname(rc));
        pathgate_buf_dispose(&b);
    }
}

#endif
