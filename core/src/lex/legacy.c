/*
 * legacy.c - LegacyAppPathString: native path text as legacy clients send
 * it, wrapped unvalidated, converted to and from PathUri on demand
 * (docs/spec.md section 3). Built only on the public uri API.
 */
#include "pathgate/legacy.h"

#include <string.h>

#include "alloc.h"
#include "error.h"
#include "text.h"
#include "uri_internal.h"

struct pathgate_legacy {
    pathgate_allocator alloc;
    size_t len;
    char text[]; /* len bytes + terminator */
};

/* Longest piece of user text quoted in an error message (bytes of input). */
#define QUOTE_MAX 96

int pathgate_legacy_new(pathgate_legacy **out, const char *text, size_t len,
                        const pathgate_allocator *alloc, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "out is NULL");
    *out = NULL;
    if (!text && len)
        return pathgate__error_set(err, PATHGATE_EINVAL, "text is NULL");
    if (len > (size_t)-1 - sizeof(pathgate_legacy) - 1)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    pathgate_legacy *p = pathgate__malloc(&a, sizeof *p + len + 1);
    if (!p)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    p->alloc = a;
    p->len = len;
    if (len)
        memcpy(p->text, text, len);
    p->text[len] = '\0';
    *out = p;
    return PATHGATE_OK;
}

void pathgate_legacy_free(pathgate_legacy *path)
{
    if (path)
        pathgate__free(&path->alloc, path);
}

const char *pathgate_legacy_text(const pathgate_legacy *path, size_t *len)
{
    if (!path) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = path->len;
    return path->text;
}

/* ------------------------------------------------------ classification */

static int is_sep(char c, pathgate_convention conv)
{
    return c == '/' || (conv == PATHGATE_CONVENTION_WINDOWS && c == '\\');
}

static int is_ascii_alpha(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* `X:` at the start (a Windows drive prefix, absolute or drive-relative). */
static int has_drive(const char *s, size_t len)
{
    return len >= 2 && is_ascii_alpha(s[0]) && s[1] == ':';
}

static pathgate_convention infer(const char *s, size_t len)
{
    if (has_drive(s, len) && len >= 3 && (s[2] == '\\' || s[2] == '/'))
        return PATHGATE_CONVENTION_WINDOWS;
    if (len >= 2 && s[0] == '\\' && s[1] == '\\')
        return PATHGATE_CONVENTION_WINDOWS;
    if (len >= 1 && s[0] == '/')
        return PATHGATE_CONVENTION_POSIX;
    return PATHGATE_CONVENTION_NONE;
}

pathgate_convention pathgate_legacy_infer_convention(const pathgate_legacy *path)
{
    return path ? infer(path->text, path->len) : PATHGATE_CONVENTION_NONE;
}

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
 * lossy_render: only the U+FFFD repair, nothing escaped. */
static size_t ui_render_ex(char *out, const char *text, size_t len, int escape);

static size_t ui_render(char *out, const char *text, size_t len)
{
    return ui_render_ex(out, text, len, 1);
}

static size_t lossy_render(char *out, const char *text, size_t len)
{
    return ui_render_ex(out, text, len, 0);
}

static size_t ui_render_ex(char *out, const char *text, size_t len, int escape)
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

int pathgate_legacy_render_for_ui(pathgate_buf *out, const pathgate_legacy *path)
{
    if (!out)
        return PATHGATE_EINVAL;
    pathgate_buf_dispose(out);
    if (!path)
        return PATHGATE_EINVAL;
    size_t n = ui_render(NULL, path->text, path->len);
    char *s = pathgate__malloc(&path->alloc, n + 1);
    if (!s)
        return PATHGATE_ENOMEM;
    ui_render(s, path->text, path->len);
    s[n] = '\0';
    pathgate__buf_adopt(out, &path->alloc, s, n);
    return PATHGATE_OK;
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
    size_t n = for_ui ? ui_render(NULL, raw.ptr, raw.len) : lossy_render(NULL, raw.ptr, raw.len);
    char *s = pathgate__malloc(&uri->alloc, n + 1);
    if (!s) {
        pathgate_buf_dispose(&raw);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    if (for_ui)
        ui_render(s, raw.ptr, raw.len);
    else
        lossy_render(s, raw.ptr, raw.len);
    s[n] = '\0';
    pathgate_buf_dispose(&raw);
    pathgate__buf_adopt(out, &uri->alloc, s, n);
    return PATHGATE_OK;
}

/* ------------------------------------------------------------ errors */

/* The UI form of user text for a message, at most QUOTE_MAX input bytes
 * (cut at a character boundary, then "..."). dst holds at least
 * QUOTE_MAX * 6 + 4 bytes. */
#define QUOTE_BUF (QUOTE_MAX * 6 + 4)
static const char *quote(char dst[QUOTE_BUF], const char *text, size_t len)
{
    size_t take = len, o;
    if (take > QUOTE_MAX) {
        take = QUOTE_MAX;
        while (take > 0 && ((unsigned char)text[take] & 0xC0) == 0x80)
            take--;
    }
    o = ui_render(dst, text, take);
    if (take < len) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
    return dst;
}

/* "not_absolute" -> "not absolute". */
static const char *reason(char dst[64], int code)
{
    const char *name = pathgate_errname(code);
    size_t i = 0;
    for (; name[i] && i < 63; i++)
        dst[i] = name[i] == '_' ? ' ' : name[i];
    dst[i] = '\0';
    return dst;
}

static int convert_error(pathgate_error *err, int code, const pathgate_legacy *path,
                         pathgate_convention conv)
{
    char q[QUOTE_BUF], r[64];
    const char *name = pathgate_convention_name(conv);
    if (!name)
        return pathgate__error_set(err, code,
                                   "cannot convert '%s' to a URI: %s (no convention inferred)",
                                   quote(q, path->text, path->len), reason(r, code));
    return pathgate__error_set(err, code, "cannot convert '%s' to a %s URI: %s",
                               quote(q, path->text, path->len), name, reason(r, code));
}

static int resolve_error(pathgate_error *err, int code, const pathgate_legacy *path,
                         pathgate_convention conv)
{
    char q[QUOTE_BUF], r[64];
    const char *name = pathgate_convention_name(conv);
    return pathgate__error_set(err, code, "cannot resolve '%s' against a %s working directory: %s",
                               quote(q, path->text, path->len), name ? name : "conventionless",
                               reason(r, code));
}

/* ------------------------------------------------------- conversions */

int pathgate_legacy_to_uri(pathgate_uri **out, const pathgate_legacy *path,
                           pathgate_convention convention, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "out is NULL");
    *out = NULL;
    if (!path)
        return pathgate__error_set(err, PATHGATE_EINVAL, "path is NULL");
    if (convention != PATHGATE_CONVENTION_NONE && convention != PATHGATE_CONVENTION_POSIX &&
        convention != PATHGATE_CONVENTION_WINDOWS)
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown convention");
    /* from_native decides (and infers the same way); the convention named
     * in a failure is the one given, else the one the text shows. */
    int rc = pathgate_uri_from_native(out, path->text, path->len, convention, &path->alloc, NULL);
    if (rc < 0) {
        *out = NULL;
        pathgate_convention named = convention;
        if (named == PATHGATE_CONVENTION_NONE)
            named = infer(path->text, path->len);
        return convert_error(err, rc, path, named);
    }
    return PATHGATE_OK;
}

int pathgate_legacy_from_uri(pathgate_legacy **out, const pathgate_uri *uri,
                             pathgate_convention convention, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "out is NULL");
    *out = NULL;
    if (!uri)
        return pathgate__error_set(err, PATHGATE_EINVAL, "uri is NULL");
    if ((unsigned)convention > PATHGATE_CONVENTION_WINDOWS)
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown convention");
    pathgate_buf native = PATHGATE_BUF_INIT;
    int fail_open = convention == PATHGATE_CONVENTION_NONE;
    int rc = pathgate__uri_render(&native, uri, convention, 0, fail_open ? NULL : err);
    if (rc < 0 && rc != PATHGATE_ENOMEM && fail_open) {
        /* fail-open: no native text of the inferred convention, the URI */
        size_t n;
        const char *s = pathgate_uri_string(uri, &n);
        rc = pathgate__buf_set(&native, &uri->alloc, s, n);
    }
    if (rc == PATHGATE_ENOMEM && fail_open)
        return pathgate__error_set(err, rc, NULL);
    if (rc < 0)
        return rc;
    /* The buffer was filled with the URI's allocator: the new value uses
     * it too, as documented. */
    pathgate_allocator a = native.alloc;
    rc = pathgate_legacy_new(out, native.ptr, native.len, &a, err);
    pathgate_buf_dispose(&native);
    return rc;
}

/* ----------------------------------------------------- resolve_against */

/* `~`, `~/...` (and `~\...` under Windows): 1 and *rest = what follows
 * the separators after the tilde. */
static int tilde_form(const char *s, size_t len, pathgate_convention conv, size_t *rest)
{
    if (len == 0 || s[0] != '~')
        return 0;
    if (len == 1) {
        *rest = 1;
        return 1;
    }
    if (!is_sep(s[1], conv))
        return 0;
    size_t i = 1;
    while (i < len && is_sep(s[i], conv))
        i++;
    *rest = i;
    return 1;
}

/* Appends s[0..len) to base as relative text only: prefixed by "./" so
 * that nothing in it (a drive, a separator) reads as absolute. */
static int join_relative(pathgate_uri **out, const pathgate_uri *base, const char *s, size_t len,
                         pathgate_error *err)
{
    if (len == 0)
        return pathgate_uri_dup(out, base, err);
    char buf[PATHGATE_PATH_MAX + 3];
    if (len > PATHGATE_PATH_MAX)
        return pathgate__error_set(err, PATHGATE_ETOOLONG, NULL);
    buf[0] = '.';
    buf[1] = '/';
    memcpy(buf + 2, s, len);
    return pathgate_uri_join(out, base, buf, len + 2, err);
}

int pathgate_legacy_resolve_against(pathgate_uri **out, const pathgate_legacy *path,
                                    const pathgate_uri *cwd, const pathgate_uri *home,
                                    pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "out is NULL");
    *out = NULL;
    if (!path || !cwd)
        return pathgate__error_set(err, PATHGATE_EINVAL, "path or cwd is NULL");
    const char *s = path->text;
    size_t len = path->len;
    pathgate_convention conv = pathgate_uri_convention(cwd);
    int rc;
    /* join validates the text (NUL, UTF-8 where the convention needs it);
     * only the length is checked here, for the stack copies below. */
    if (len > PATHGATE_PATH_MAX)
        return resolve_error(err, PATHGATE_ETOOLONG, path, conv);
    if (conv == PATHGATE_CONVENTION_NONE)
        return resolve_error(err, PATHGATE_EOPAQUE, path, conv);

    size_t rest;
    if (tilde_form(s, len, conv, &rest)) {
        if (!home)
            return resolve_error(err, PATHGATE_ENOHOME, path, conv);
        if (pathgate_uri_convention(home) != conv)
            return resolve_error(err, PATHGATE_ECONVENTION, path, conv);
        rc = join_relative(out, home, s + rest, len - rest, NULL);
    } else if (conv == PATHGATE_CONVENTION_WINDOWS && len >= 2 && is_sep(s[0], conv) &&
               is_sep(s[1], conv)) {
        /* UNC or a device alias, however its two leading separators are
         * spelled: respelled `\\` so that it reads as UNC. */
        char buf[PATHGATE_PATH_MAX + 1];
        memcpy(buf, s, len);
        buf[0] = buf[1] = '\\';
        rc = pathgate_uri_join(out, cwd, buf, len, NULL);
    } else if (conv == PATHGATE_CONVENTION_POSIX && infer(s, len) == PATHGATE_CONVENTION_WINDOWS) {
        return resolve_error(err, PATHGATE_ECONVENTION, path, conv);
    } else {
        /* Absolute text of cwd's convention replaces cwd; under Windows
         * root-relative text (`\x`, POSIX-absolute `/x`) keeps cwd's drive
         * or share and `C:x` needs cwd's drive; the rest appends. join
         * implements exactly these rules, with cwd's allocator. */
        rc = pathgate_uri_join(out, cwd, s, len, NULL);
    }
    if (rc < 0) {
        *out = NULL;
        return resolve_error(err, rc, path, conv);
    }
    return PATHGATE_OK;
}
