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

static size_t ui_render(char *out, const char *text, size_t len)
{
    return pathgate__text_render(out, text, len, 1);
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
