/*
 * uri_render.c - text for people, never for the file system: the UI form
 * of any bytes (valid UTF-8, control and bidirectional characters
 * escaped), and the fail-open rendering of a URI (pathgate_uri_display,
 * pathgate_legacy_from_uri's fallback): native text even where the
 * fail-closed conversion refuses. Below legacy.c, above uri_native.c.
 */
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "text.h"
#include "uri_internal.h"

/* ------------------------------------------------------- UI rendering */

/* Code points a UI must not show raw: C0, DEL, C1, the bidirectional
 * formatting controls (they reorder what follows: "Trojan Source"), and
 * the line/paragraph separators. */
static int must_escape(long cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E ||
           cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Writes (when out != NULL) the UI form of s[0..len) and returns its
 * length: valid UTF-8 copied, each maximal ill-formed subpart -> U+FFFD,
 * \t \n \r as such, other C0 and DEL as \xNN, other escaped code points
 * as \uNNNN. Backslashes stay literal (Windows paths are full of them).
 * escape 0: only the U+FFFD repair, nothing escaped (uri_internal.h). */
size_t pathgate__text_render(char *out, const char *text, size_t len, int escape)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *s = (const unsigned char *)text;
    size_t o = 0, i = 0;
    while (i < len) {
        long cp;
        size_t n = pathgate__utf8_next(s + i, len - i, &cp);
        char tmp[8];
        size_t tn = 0;
        if (cp < 0) {
            memcpy(tmp, "\xEF\xBF\xBD", 3);
            tn = 3;
        } else if (!escape || !must_escape(cp)) {
            if (out)
                memcpy(out + o, s + i, n);
            o += n;
            i += n;
            continue;
        } else if (cp == '\t' || cp == '\n' || cp == '\r') {
            tmp[0] = '\\';
            tmp[1] = cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r';
            tn = 2;
        } else if (cp < 0x80) {
            tmp[0] = '\\';
            tmp[1] = 'x';
            tmp[2] = hex[(cp >> 4) & 0xF];
            tmp[3] = hex[cp & 0xF];
            tn = 4;
        } else {
            tmp[0] = '\\';
            tmp[1] = 'u';
            tmp[2] = hex[(cp >> 12) & 0xF];
            tmp[3] = hex[(cp >> 8) & 0xF];
            tmp[4] = hex[(cp >> 4) & 0xF];
            tmp[5] = hex[cp & 0xF];
            tn = 6;
        }
        if (out)
            memcpy(out + o, tmp, tn);
        o += tn;
        i += n;
    }
    return o;
}

/* ------------------------------------------------ fail-open rendering */

/* UTF-16LE p[0..n) (n even) to UTF-8, a lone surrogate -> U+FFFD; out
 * holds 3 * n / 2 bytes. Returns the length written. */
static size_t utf16le_to_utf8_lossy(char *out, const unsigned char *p, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        unsigned long cp = (unsigned long)p[i] | (unsigned long)p[i + 1] << 8;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 3 < n) {
            unsigned long lo = (unsigned long)p[i + 2] | (unsigned long)p[i + 3] << 8;
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 2;
            }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF)
            cp = 0xFFFD;
        if (cp < 0x80) {
            out[o++] = (char)cp;
        } else if (cp < 0x800) {
            out[o++] = (char)(0xC0 | cp >> 6);
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[o++] = (char)(0xE0 | cp >> 12);
            out[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | cp >> 18);
            out[o++] = (char)(0x80 | (cp >> 12 & 0x3F));
            out[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    return o;
}

static int is_unit(const unsigned char *p, unsigned char c)
{
    return p[0] == c && p[1] == 0;
}

/* The payload of an opaque URI as native text of conv, into raw (bytes
 * that may not be UTF-8). POSIX wants a payload starting with `/`;
 * Windows wants UTF-16LE starting with `X:` and a separator or with two
 * separators. */
static int opaque_text(pathgate_buf *raw, const pathgate_uri *uri, pathgate_convention conv,
                       pathgate_error *err)
{
    if (conv == PATHGATE_CONVENTION_NONE)
        conv = pathgate_uri_convention(uri);
    unsigned char *p = pathgate__malloc(&uri->alloc, uri->len + 1);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    size_t n = pathgate__uri_opaque_payload(p, uri);
    if (conv == PATHGATE_CONVENTION_POSIX && n >= 1 && p[0] == '/') {
        p[n] = '\0';
        pathgate__buf_adopt(raw, &uri->alloc, (char *)p, n);
        return PATHGATE_OK;
    }
    int windows =
        conv == PATHGATE_CONVENTION_WINDOWS && n >= 4 && n % 2 == 0 &&
        ((n >= 6 && p[1] == 0 && pathgate__is_alpha(p[0]) && is_unit(p + 2, ':') &&
          (is_unit(p + 4, '\\') || is_unit(p + 4, '/'))) ||
         ((is_unit(p, '\\') || is_unit(p, '/')) && (is_unit(p + 2, '\\') || is_unit(p + 2, '/'))));
    if (!windows) {
        pathgate__free(&uri->alloc, p);
        return pathgate__error_set(err, PATHGATE_EOPAQUE, "the opaque URI holds no %s path text",
                                   conv == PATHGATE_CONVENTION_WINDOWS ? "Windows" : "POSIX");
    }
    char *t = pathgate__malloc(&uri->alloc, 3 * n / 2 + 1);
    if (!t) {
        pathgate__free(&uri->alloc, p);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    size_t tn = utf16le_to_utf8_lossy(t, p, n);
    t[tn] = '\0';
    pathgate__free(&uri->alloc, p);
    pathgate__buf_adopt(raw, &uri->alloc, t, tn);
    return PATHGATE_OK;
}

int pathgate__uri_render(pathgate_buf *out, const pathgate_uri *uri, pathgate_convention conv,
                         int for_ui, pathgate_error *err)
{
    pathgate_buf raw = PATHGATE_BUF_INIT;
    pathgate_buf_dispose(out);
    int rc = pathgate_uri_is_opaque(uri) ? opaque_text(&raw, uri, conv, err)
                                         : pathgate__uri_native_raw(&raw, uri, conv, err);
    if (rc)
        return rc;
    size_t n = pathgate__text_render(NULL, raw.ptr, raw.len, for_ui);
    char *s = pathgate__malloc(&uri->alloc, n + 1);
    if (!s) {
        pathgate_buf_dispose(&raw);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    pathgate__text_render(s, raw.ptr, raw.len, for_ui);
    s[n] = '\0';
    pathgate_buf_dispose(&raw);
    pathgate__buf_adopt(out, &uri->alloc, s, n);
    return PATHGATE_OK;
}

/* ------------------------------------------------------------ display */

int pathgate_uri_display(pathgate_buf *out, const pathgate_uri *uri)
{
    if (!out || !uri)
        return PATHGATE_EINVAL;
    int rc = pathgate__uri_render(out, uri, PATHGATE_CONVENTION_NONE, 1, NULL);
    if (rc == PATHGATE_ENOMEM || rc == 0)
        return rc;
    return pathgate__buf_set(out, &uri->alloc, uri->str, uri->len);
}
