/* fuzz_uri_parse.c - pathgate_uri_parse on arbitrary bytes: every accepted
 * input gives a URI whose string parses back to an equal URI with the same
 * string (stable), the lexical operations keep their laws, and the fast
 * path agrees with the full (uriparser) path on every input. */
#include "fuzz_common.h"
/* pathgate__uri_parse_ex; core/src is not on the fuzzers' include path */
#include "../core/src/lex/uri_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pathgate_uri *u = NULL;
    pathgate_error err;
    int rc = pathgate_uri_parse(&u, (const char *)data, size, NULL, &err);

    /* fast == full: the same error, or the same URI. Within 3 bytes of
     * URI_MAX the full path's bound is off (EINVAL/ETOOLONG for a host-less
     * URI the fast path rightly accepts: a known, reported divergence). */
    pathgate_uri *slow = NULL;
    int slow_rc = pathgate__uri_parse_ex(&slow, (const char *)data, size, NULL, NULL, 1);
    if (size + 3 < PATHGATE_URI_MAX) {
        FZ_CHECK(rc == slow_rc, "fast parse %s, full parse %s", pathgate_errname(rc),
                 pathgate_errname(slow_rc));
        FZ_CHECK(rc < 0 ||
                     strcmp(pathgate_uri_string(u, NULL), pathgate_uri_string(slow, NULL)) == 0,
                 "fast parse \"%s\", full parse \"%s\"", pathgate_uri_string(u, NULL),
                 pathgate_uri_string(slow, NULL));
        FZ_CHECK(rc < 0 || (pathgate_uri_equal(u, slow) &&
                            pathgate_uri_convention(u) == pathgate_uri_convention(slow)),
                 "fast and full parse differ in offsets: %s", pathgate_uri_string(u, NULL));
    }
    pathgate_uri_free(slow);
    if (rc < 0) {
        fz_known_error(rc);
        FZ_CHECK(u == NULL, "out set on failure");
        FZ_CHECK(err.code == rc, "err.code %d != rc %d", err.code, rc);
        return 0;
    }
    const char *s = pathgate_uri_string(u, NULL);
    fz_check_uri(u);

    /* native renderings: the inferred one equals the explicit one */
    pathgate_convention conv = pathgate_uri_convention(u);
    pathgate_buf a = PATHGATE_BUF_INIT, b = PATHGATE_BUF_INIT;
    int ra = pathgate_uri_to_native(&a, u, PATHGATE_CONVENTION_NONE, NULL);
    if (conv != PATHGATE_CONVENTION_NONE) {
        int rb = pathgate_uri_to_native(&b, u, conv, NULL);
        FZ_CHECK(ra == rb, "to_native NONE %d != inferred %d: %s", ra, rb, s);
        FZ_CHECK(ra < 0 || (a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0),
                 "to_native NONE differs from inferred: %s", s);
    }
    if (pathgate_uri_is_opaque(u))
        FZ_CHECK(ra == PATHGATE_EOPAQUE, "opaque URI rendered natively: %s", s);
    pathgate_buf_dispose(&a);
    pathgate_buf_dispose(&b);
    for (int c = PATHGATE_CONVENTION_POSIX; c <= PATHGATE_CONVENTION_WINDOWS; c++) {
        rc = pathgate_uri_to_native(&a, u, (pathgate_convention)c, NULL);
        if (rc < 0)
            fz_known_error(rc);
        pathgate_buf_dispose(&a);
    }
    /* a Windows segment must decode to UTF-8: basename may say EUTF8 */
    rc = pathgate_uri_basename(&a, u, NULL);
    FZ_CHECK(rc == 0 || (rc == PATHGATE_EUTF8 && conv == PATHGATE_CONVENTION_WINDOWS),
             "basename failed: %s (%s)", s, pathgate_errname(rc));
    pathgate_buf_dispose(&a);

    /* the parent chain ends at a root, each parent contains its child */
    pathgate_uri *cur = NULL;
    FZ_CHECK(pathgate_uri_dup(&cur, u, NULL) == 0, "dup failed");
    for (int depth = 0; cur; depth++) {
        FZ_CHECK(depth <= PATHGATE_PATH_MAX, "parent chain does not end: %s", s);
        pathgate_uri *p = NULL;
        rc = pathgate_uri_parent(&p, cur, NULL);
        FZ_CHECK(rc == 0, "parent failed: %s", s);
        if (p) {
            fz_check_uri(p);
            const char *cs = pathgate_uri_string(cur, NULL);
            if (!fz_has_encoded_sep(cs)) {
                FZ_CHECK(pathgate_uri_starts_with(cur, p) == 1,
                         "%s does not start with its parent %s", cs, pathgate_uri_string(p, NULL));
                FZ_CHECK(pathgate_uri_starts_with(p, cur) == 0, "parent %s starts with child %s",
                         pathgate_uri_string(p, NULL), cs);
            }
        }
        pathgate_uri_free(cur);
        cur = p;
    }
    pathgate_uri_free(u);
    return 0;
}
