/* fuzz_uri_config.c - the entry points Codex's parity added: configuration
 * paths, join with raw bytes and the native-text helpers. Input: one
 * selector byte (bit 0: Windows, bit 1: give a home), the base (a file:
 * URI, else native text) up to the first newline, then the text.
 * Laws: a resolved configuration path passes validate_config, carries no
 * trailing separator, renders (to_config_path) and resolves to itself
 * from that rendering; join_bytes builds URIs that parse back and keeps
 * non-UTF-8 bytes off Windows; path_segments rebuild the text; the
 * device-alias and home-suffix helpers agree with what they name. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_segments(const char *text, size_t len, pathgate_convention conv)
{
    size_t pos = 0, n, total = 0, count = 0;
    const char *seg;
    while (pathgate_path_segment_next(&seg, &n, text, len, conv, &pos)) {
        FZ_CHECK(seg >= text && seg + n <= text + len + (len == 0), "segment outside the text");
        for (size_t i = 0; i < n; i++)
            FZ_CHECK(seg[i] != '/' && !(conv == PATHGATE_CONVENTION_WINDOWS && seg[i] == '\\'),
                     "a segment holds a separator");
        total += n;
        count++;
        FZ_CHECK(count <= len + 1, "too many segments");
    }
    FZ_CHECK(total + count - 1 == len, "segments and separators do not rebuild the text");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    pathgate_convention conv =
        (data[0] & 1) ? PATHGATE_CONVENTION_WINDOWS : PATHGATE_CONVENTION_POSIX;
    int give_home = (data[0] & 2) != 0;
    const char *in = (const char *)data + 1;
    size_t rest = size - 1;
    const char *nl = memchr(in, '\n', rest);
    if (!nl)
        return 0;
    size_t blen = (size_t)(nl - in);
    const char *text = nl + 1;
    size_t tlen = rest - blen - 1;

    check_segments(text, tlen, conv);
    const char *suf;
    size_t suf_n;
    if (pathgate_home_relative_suffix(&suf, &suf_n, text, tlen, conv))
        FZ_CHECK(text[0] == '~' && suf == text + 1 && suf_n == tlen - 1, "home suffix");
    pathgate_buf plain = PATHGATE_BUF_INIT;
    FZ_CHECK(pathgate_normalize_windows_device_path(&plain, text, tlen, NULL) == 0, "alias");
    if (plain.ptr) {
        /* the alias and its plain form name the same URI */
        pathgate_uri *a = NULL, *b = NULL;
        int ra = pathgate_uri_from_native(&a, text, tlen, PATHGATE_CONVENTION_WINDOWS, NULL, NULL);
        int rb = pathgate_uri_from_native(&b, plain.ptr, plain.len, PATHGATE_CONVENTION_WINDOWS,
                                          NULL, NULL);
        FZ_CHECK(plain.len < tlen, "alias did not shrink");
        if (ra == 0 && rb == 0 && !pathgate_uri_is_opaque(a))
            FZ_CHECK(pathgate_uri_equal(a, b), "alias %s != plain %s", pathgate_uri_string(a, NULL),
                     pathgate_uri_string(b, NULL));
        pathgate_uri_free(a);
        pathgate_uri_free(b);
    }
    pathgate_buf_dispose(&plain);

    pathgate_uri *base = NULL;
    int rc;
    if (blen >= 5 && strncmp(in, "file:", 5) == 0)
        rc = pathgate_uri_parse(&base, in, blen, NULL, NULL);
    else
        rc = pathgate_uri_from_native(&base, in, blen, PATHGATE_CONVENTION_NONE, NULL, NULL);
    if (rc < 0)
        base = NULL;

    /* join_bytes */
    if (base) {
        pathgate_uri *j = NULL;
        rc = pathgate_uri_join_bytes(&j, base, text, tlen, NULL);
        if (rc == 0)
            fz_check_uri(j);
        else
            fz_known_error(rc);
        pathgate_uri_free(j);
    }

    /* resolve_config */
    pathgate_uri *r = NULL;
    rc = pathgate_uri_resolve_config(&r, text, tlen, conv, base, give_home ? base : NULL, NULL);
    if (rc < 0) {
        fz_known_error(rc);
        FZ_CHECK(r == NULL, "out set on failure");
    } else {
        fz_check_uri(r);
        const char *s = pathgate_uri_string(r, NULL);
        FZ_CHECK(pathgate_uri_validate_config(r, conv, NULL) == 0, "result fails validation: %s",
                 s);
        size_t n = strlen(s);
        FZ_CHECK(n == 8 || s[n - 1] != '/', "trailing separator kept: %s", s); /* but file:/// */
        pathgate_buf cp = PATHGATE_BUF_INIT;
        FZ_CHECK(pathgate_uri_to_config_path(&cp, r, conv, NULL) == 0, "to_config_path: %s", s);
        pathgate_uri *again = NULL;
        rc = pathgate_uri_resolve_config(&again, cp.ptr, cp.len, conv, NULL, NULL, NULL);
        FZ_CHECK(rc == 0 && pathgate_uri_equal(again, r), "%s renders %s, which resolves to %s", s,
                 cp.ptr, rc == 0 ? pathgate_uri_string(again, NULL) : pathgate_errname(rc));
        pathgate_uri_free(again);
        pathgate_buf_dispose(&cp);
        if (pathgate_uri_validate_glob_directory(r, conv, NULL) == 0)
            for (size_t i = 0; s[i]; i++)
                FZ_CHECK(!strchr("*?{}", s[i]), "a glob directory holds a glob character: %s", s);
    }
    pathgate_uri_free(r);
    pathgate_uri_free(base);
    return 0;
}
