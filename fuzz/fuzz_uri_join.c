/* fuzz_uri_join.c - join and join_descendant of arbitrary text onto a
 * base. Input: the base (a file: URI, else native text with inferred
 * convention) up to the first newline, then the text (any bytes).
 * Laws: results parse back equal; join_descendant succeeds only with the
 * same URI as join and inside the base; starts_with and relative_to agree;
 * resolve_against (LegacyAppPathString) never crashes and fails cleanly. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    const char *nl = memchr(in, '\n', size);
    if (!nl)
        return 0;
    size_t blen = (size_t)(nl - in);
    const char *text = nl + 1;
    size_t tlen = size - blen - 1;

    pathgate_uri *base = NULL;
    int rc;
    if (blen >= 5 && strncmp(in, "file:", 5) == 0)
        rc = pathgate_uri_parse(&base, in, blen, NULL, NULL);
    else
        rc = pathgate_uri_from_native(&base, in, blen, PATHGATE_CONVENTION_NONE, NULL, NULL);
    if (rc < 0)
        return 0;
    const char *bs = pathgate_uri_string(base, NULL);

    pathgate_uri *j = NULL, *d = NULL;
    int rj = pathgate_uri_join(&j, base, text, tlen, NULL);
    int rd = pathgate_uri_join_descendant(&d, base, text, tlen, NULL);
    if (rj < 0) {
        fz_known_error(rj);
        FZ_CHECK(j == NULL, "out set on failure");
        FZ_CHECK(rd < 0, "join failed (%s) but join_descendant succeeded: %s", pathgate_errname(rj),
                 bs);
    } else {
        fz_check_uri(j);
        if (tlen == 0)
            FZ_CHECK(strcmp(pathgate_uri_string(j, NULL), bs) == 0, "join(\"\") != base: %s", bs);
        int sw = pathgate_uri_starts_with(j, base);
        pathgate_buf rel = PATHGATE_BUF_INIT;
        FZ_CHECK(pathgate_uri_relative_to(&rel, j, base, NULL) == 0, "relative_to failed");
        FZ_CHECK((rel.ptr != NULL) == (sw == 1), "starts_with %d but relative_to %s: %s + %.*s", sw,
                 rel.ptr ? "present" : "absent", bs, (int)tlen, text);
        pathgate_buf_dispose(&rel);
    }
    if (rd == 0) {
        fz_check_uri(d);
        FZ_CHECK(rj == 0 && strcmp(pathgate_uri_string(d, NULL), pathgate_uri_string(j, NULL)) == 0,
                 "join_descendant differs from join: %s", bs);
        FZ_CHECK(pathgate_uri_starts_with(d, base) == 1, "join_descendant left the base: %s -> %s",
                 bs, pathgate_uri_string(d, NULL));
    } else {
        fz_known_error(rd);
        FZ_CHECK(d == NULL, "out set on failure");
    }
    pathgate_uri_free(j);
    pathgate_uri_free(d);

    /* the executor's view of the same text, with the base as cwd and home */
    pathgate_legacy *l = NULL;
    FZ_CHECK(pathgate_legacy_new(&l, text, tlen, NULL, NULL) == 0, "legacy_new failed");
    pathgate_uri *r = NULL;
    pathgate_error err;
    rc = pathgate_legacy_resolve_against(&r, l, base, base, &err);
    if (rc == 0)
        fz_check_uri(r);
    else {
        fz_known_error(rc);
        FZ_CHECK(r == NULL && strncmp(err.message, "cannot resolve '", 16) == 0, "message: %s",
                 err.message);
    }
    pathgate_uri_free(r);
    pathgate_legacy_free(l);
    pathgate_uri_free(base);
    return 0;
}
