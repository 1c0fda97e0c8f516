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
#define FZ_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property violated: %s\n  ", __FILE__, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* 1 when s[0..n) is valid UTF-8 (an independent, simple check). */
static inline int pathgate__fz_utf8(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], len, min;
        unsigned long cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2, min = 0x80, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3, min = 0x800, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4, min = 0x10000, cp = c & 0x07;
        } else {
            return 0;
        }
        if (n - i < len)
            return 0;
        for (unsigned k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

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

/* Rendering is fail-open, the conversions for use fail closed: with the
 * inferred convention LegacyAppPathString.from_uri never fails (and is
 * valid UTF-8); to_native and to_host_path never return text for an
 * opaque URI or one whose segment holds an encoded separator; the lexical
 * operations agree (lexical_depth known exactly when neither; ancestors
 * end at the root, each one a prefix that overlaps). */
static inline void fz_check_lexical(const pathgate_uri *u)
{
    const char *s = pathgate_uri_string(u, NULL);
    pathgate_legacy *l = NULL;
    FZ_CHECK(pathgate_legacy_from_uri(&l, u, PATHGATE_CONVENTION_NONE, NULL) == 0,
             "from_uri failed: %s", s);
    pathgate_legacy_free(l);
    size_t depth = 0;
    int known = pathgate_uri_lexical_depth(&depth, u);
    int opaque = pathgate_uri_is_opaque(u);
    pathgate_convention conv = pathgate_uri_convention(u);
    /* an encoded separator of the URI's convention: '/' always, '\' under Windows */
    pathgate_buf seg = PATHGATE_BUF_INIT;
    int encsep = 0;
    size_t ep_len;
    const char *ep = pathgate_uri_encoded_path(u, &ep_len);
    FZ_CHECK(ep && ep_len <= strlen(s) && strcmp(s + strlen(s) - ep_len, ep) == 0,
             "encoded_path is no suffix: %s", s);
    FZ_CHECK(pathgate_uri_decoded_path(&seg, u, NULL) == 0 && seg.len <= ep_len, "decoded_path: %s",
             s);
    pathgate_buf_dispose(&seg);
    int enc_slash = 0, enc_backslash = 0;
    for (const char *p = ep; (p = strchr(p, '%')) != NULL; p++) {
        enc_slash |= p[1] == '2' && (p[2] == 'F' || p[2] == 'f');
        enc_backslash |= p[1] == '5' && (p[2] == 'C' || p[2] == 'c');
    }
    encsep = enc_slash || (conv == PATHGATE_CONVENTION_WINDOWS && enc_backslash);
    FZ_CHECK(known == !(opaque || encsep), "lexical_depth known=%d: %s", known, s);
    for (int c = PATHGATE_CONVENTION_POSIX; c <= PATHGATE_CONVENTION_WINDOWS; c++) {
        pathgate_buf n = PATHGATE_BUF_INIT;
        int rc = pathgate_uri_to_native(&n, u, (pathgate_convention)c, NULL);
        int sep = opaque || enc_slash || (c == PATHGATE_CONVENTION_WINDOWS && enc_backslash);
        FZ_CHECK(!(rc == 0 && sep), "to_native returned text for %s", s);
        pathgate_buf_dispose(&n);
    }
    pathgate_buf h = PATHGATE_BUF_INIT;
    FZ_CHECK(!(pathgate_uri_to_host_path(&h, u, NULL) == 0 && (opaque || encsep)),
             "to_host_path returned text for %s", s);
    pathgate_buf_dispose(&h);
    /* ancestors: itself first, each a parent, the root last (walked by
     * parent; pathgate_uri_ancestor checked at 0, 1 and the root) */
    size_t count = 0;
    pathgate_uri *a = NULL, *last = NULL;
    FZ_CHECK(pathgate_uri_ancestor(&a, u, 0, NULL) == 0 && a && pathgate_uri_equal(a, u),
             "ancestor 0 is not u: %s", s);
    while (a) {
        count++;
        if (known && (count <= 32 || count % 64 == 0)) { /* deep URIs: a sample */
            FZ_CHECK(pathgate_uri_starts_with(u, a) == 1, "an ancestor is no prefix: %s", s);
            FZ_CHECK(pathgate_uri_overlaps(u, a) == 1 && pathgate_uri_overlaps(a, u) == 1,
                     "an ancestor does not overlap: %s", s);
        }
        pathgate_uri *up = NULL;
        FZ_CHECK(pathgate_uri_parent(&up, a, NULL) == 0, "parent failed: %s", s);
        if (count == 1) {
            pathgate_uri *one = NULL;
            FZ_CHECK(pathgate_uri_ancestor(&one, u, 1, NULL) == 0 &&
                         (one ? up && pathgate_uri_equal(one, up) : !up),
                     "ancestor 1 is not the parent: %s", s);
            pathgate_uri_free(one);
        }
        pathgate_uri_free(last);
        last = a;
        a = up;
        FZ_CHECK(count <= 5000, "ancestors do not end: %s", s);
    }
    pathgate_uri *root = NULL, *past = NULL;
    FZ_CHECK(pathgate_uri_ancestor(&root, u, count - 1, NULL) == 0 && root &&
                 pathgate_uri_equal(root, last) &&
                 pathgate_uri_ancestor(&past, u, count, NULL) == 0 && !past,
             "ancestor(count - 1) is not the root: %s", s);
    pathgate_uri_free(root);
    pathgate_uri_free(last);
    if (known) {
        size_t rooted = conv == PATHGATE_CONVENTION_WINDOWS && depth > 0;
        FZ_CHECK(count == depth + 1 - rooted, "%zu ancestors for depth %zu: %s", count, depth, s);
    } else {
        FZ_CHECK(pathgate_uri_overlaps(u, u) == 1, "u does not overlap itself: %s", s);
    }
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
    for (size_t i = 0; i < b.len; i++)
        FZ_CHECK((unsigned char)b.ptr[i] >= 0x20 && b.ptr[i] != 0x7F, "display control byte: %s",
                 s);
    pathgate_buf_dispose(&b);
    fz_check_lexical(u);
    FZ_CHECK(pathgate_uri_starts_with(u, u) == 1 || fz_has_encoded_sep(s),
             "u does not start with itself: %s", s);
    if (!fz_has_encoded_sep(s) && !pathgate_uri_is_opaque(u)) {
        rc = pathgate_uri_relative_to(&b, u, u, NULL);
        FZ_CHECK(
            (rc == 0 && b.ptr && b.len == 0) ||
                (rc == PATHGATE_EUTF8 && pathgate_uri_convention(u) == PATHGATE_CONVENTION_WINDOWS),
            "relative_to(u, u) != \"\": %s (%s)", s, pathgate_errname(rc));
        pathgate_buf_dispose(&b);
    }
}

#endif
