/* uri_config.c - paths written in configuration files (Codex's
 * config_path rules): resolution against a given base and home only,
 * and the checks that a path used to build a security rule (a denial,
 * a glob) has one lossless native spelling. Everything fails closed. */
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "pct.h"
#include "text.h"
#include "uri_internal.h"
#include "pathgate/legacy.h"

static int is_sep(char c, pathgate_convention conv)
{
    return c == '/' || (conv == PATHGATE_CONVENTION_WINDOWS && c == '\\');
}

static int unsupported(pathgate_error *err, pathgate_convention conv, const char *why)
{
    return pathgate__error_set(err, PATHGATE_ECONFIG, "unsupported %s configuration path: %s",
                               pathgate_convention_name(conv), why);
}

static int has_glob(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strchr("*?[]{}", s[i]) && s[i])
            return 1;
    return 0;
}

/* The text itself: no NUL; under Windows no ':' inside a segment (past a
 * leading drive, after a device alias is read), no `~` suffix mixing
 * separators, no bare drive. */
static int validate_text(const char *s, size_t n, pathgate_convention conv, pathgate_error *err)
{
    if (memchr(s, '\0', n))
        return unsupported(err, conv, "it holds a NUL byte");
    if (conv != PATHGATE_CONVENTION_WINDOWS)
        return PATHGATE_OK;
    const char *t = s;
    size_t tn = n, skip;
    int unc;
    char buf[PATHGATE_PATH_MAX + 2];
    if (n <= PATHGATE_PATH_MAX && pathgate__windows_device_alias(&skip, &unc, s, n)) {
        size_t head = unc ? 2 : 0;
        memcpy(buf, "\\\\", head);
        memcpy(buf + head, s + skip, n - skip);
        t = buf;
        tn = head + n - skip;
    }
    size_t pos = 0, idx = 0, seg_n;
    const char *seg;
    while (pathgate_path_segment_next(&seg, &seg_n, t, tn, conv, &pos)) {
        if (idx++ == 0 && seg_n >= 2 && pathgate__is_alpha((unsigned char)seg[0]) &&
            seg[1] == ':') {
            seg += 2;
            seg_n -= 2;
        }
        if (memchr(seg, ':', seg_n))
            return unsupported(err, conv, "a segment holds ':'");
    }
    const char *suf;
    size_t suf_n;
    if (pathgate_home_relative_suffix(&suf, &suf_n, s, n, conv) && suf_n) {
        size_t i = 0;
        while (i < suf_n && suf[i] == suf[0])
            i++;
        if (i < suf_n && is_sep(suf[i], conv))
            return unsupported(err, conv, "'~' is followed by mixed separators");
    }
    if (tn == 2 && pathgate__is_alpha((unsigned char)t[0]) && t[1] == ':')
        return unsupported(err, conv, "a bare drive is relative to the executor's directory");
    return PATHGATE_OK;
}

/* 1 when a URL parser would rewrite the UNC host (Codex then has no
 * honest URI for it): encoded bytes (non-ASCII and the like), or a last
 * label that reads as an IPv4 number (`0x7f000001`, `127.1`, `10`). */
static int host_rewritten(const char *h, size_t n)
{
    if (memchr(h, '%', n))
        return 1;
    size_t start = n;
    while (start > 0 && h[start - 1] != '.')
        start--;
    if (start == n && n > 0 && start > 0) { /* a trailing dot: the label before it */
        n--;
        start = n;
        while (start > 0 && h[start - 1] != '.')
            start--;
    }
    const char *l = h + start;
    size_t ln = n - start;
    if (ln == 0)
        return 0;
    size_t i = 0;
    int hex = ln >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X');
    if (hex)
        i = 2;
    for (; i < ln; i++) {
        char c = l[i];
        int ok =
            (c >= '0' && c <= '9') || (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
        if (!ok)
            return 0;
    }
    return 1;
}

int pathgate_uri_validate_config(const pathgate_uri *uri, pathgate_convention convention,
                                 pathgate_error *err)
{
    if (!uri ||
        (convention != PATHGATE_CONVENTION_POSIX && convention != PATHGATE_CONVENTION_WINDOWS))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    if (pathgate_uri_convention(uri) != convention)
        return pathgate__error_set(err, PATHGATE_ECONVENTION, "the URI is not a %s path",
                                   pathgate_convention_name(convention));
    if (uri->opaque)
        return pathgate__error_set(err, PATHGATE_EOPAQUE, NULL);
    if (!pathgate_uri_lexical_depth(NULL, uri))
        return pathgate__error_set(err, PATHGATE_ESYNTAX, "URI segment holds an encoded separator");
    size_t host_n = uri->host_end - PATHGATE__URI_PREFIX_LEN;
    if (host_n && host_rewritten(uri->str + PATHGATE__URI_PREFIX_LEN, host_n))
        return unsupported(err, convention, "the UNC server name is no plain host name");
    pathgate_buf native = PATHGATE_BUF_INIT;
    int rc = pathgate_uri_to_native(&native, uri, convention, err);
    if (rc)
        return rc;
    if (!pathgate__utf8_valid(native.ptr, native.len))
        rc = pathgate__error_set(err, PATHGATE_EUTF8, "the path is not valid UTF-8");
    else
        rc = validate_text(native.ptr, native.len, convention, err);
    pathgate_buf_dispose(&native);
    return rc;
}

int pathgate_uri_validate_glob_directory(const pathgate_uri *uri, pathgate_convention convention,
                                         pathgate_error *err)
{
    int rc = pathgate_uri_validate_config(uri, convention, err);
    if (rc)
        return rc;
    pathgate_buf native = PATHGATE_BUF_INIT;
    rc = pathgate_uri_to_native(&native, uri, convention, err);
    if (rc)
        return rc;
    if (has_glob(native.ptr, native.len) ||
        (convention == PATHGATE_CONVENTION_POSIX && memchr(native.ptr, '\\', native.len)))
        rc = unsupported(err, convention, "a directory put into a glob holds a glob character");
    pathgate_buf_dispose(&native);
    return rc;
}

/* A base or home the resolution uses: valid, and glob-safe when the text
 * holds a glob character. */
static int check_fact(const pathgate_uri *fact, pathgate_convention conv, int glob,
                      pathgate_error *err)
{
    return glob ? pathgate_uri_validate_glob_directory(fact, conv, err)
                : pathgate_uri_validate_config(fact, conv, err);
}

/* The URI with its UNC host's ASCII letters lower-cased (as URL parsers
 * spell hosts); %XX escapes are left as they are. */
static void lower_host(pathgate_uri *u)
{
    for (size_t i = PATHGATE__URI_PREFIX_LEN; i < u->host_end; i++) {
        if (u->str[i] == '%')
            i += 2;
        else
            u->str[i] = (char)pathgate__ascii_lower((unsigned char)u->str[i]);
    }
}

int pathgate_uri_resolve_config(pathgate_uri **out, const char *text, size_t len,
                                pathgate_convention convention, const pathgate_uri *base,
                                const pathgate_uri *home, pathgate_error *err)
{
    if (!out || (!text && len) || (unsigned)convention > PATHGATE_CONVENTION_WINDOWS)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (convention == PATHGATE_CONVENTION_NONE)
        convention = base ? pathgate_uri_convention(base) : pathgate_uri_convention(home);
    if (convention == PATHGATE_CONVENTION_NONE)
        return pathgate__error_set(err, PATHGATE_EINVAL, "no convention given or known");
    if (!text)
        text = "";
    if (len > PATHGATE_PATH_MAX)
        return pathgate__error_set(err, PATHGATE_ETOOLONG, "text is longer than %d bytes",
                                   PATHGATE_PATH_MAX);
    int rc = validate_text(text, len, convention, err);
    if (rc)
        return rc;
    int glob = has_glob(text, len);
    pathgate_allocator a;
    pathgate__alloc_init(&a, NULL);
    if (base || home)
        a = base ? base->alloc : home->alloc;
    pathgate_legacy *path = NULL;
    rc = pathgate_legacy_new(&path, text, len, &a, err);
    if (rc)
        return rc;
    pathgate_uri *r = NULL;
    if (pathgate_home_relative_suffix(NULL, NULL, text, len, convention)) {
        if (!home)
            rc = pathgate__error_set(err, PATHGATE_ENOHOME,
                                     "a home-relative configuration path needs a home");
        else if (!(rc = check_fact(home, convention, glob, err)))
            rc = pathgate_legacy_resolve_against(&r, path, home, home, err);
    } else {
        rc = pathgate_uri_from_native(&r, text, len, convention, &a, err);
        if (rc && rc != PATHGATE_ENOMEM && base) {
            if (!(rc = check_fact(base, convention, glob, err)))
                rc = pathgate_legacy_resolve_against(&r, path, base, NULL, err);
        }
    }
    pathgate_legacy_free(path);
    if (rc == 0)
        rc = pathgate_uri_validate_config(r, convention, err);
    if (rc == 0) {
        /* configuration paths carry no trailing separator */
        pathgate_uri *plain = NULL;
        rc = pathgate_uri_join(&plain, r, ".", 1, err);
        pathgate_uri_free(r);
        r = plain;
    }
    if (rc) {
        pathgate_uri_free(r);
        return rc;
    }
    lower_host(r);
    *out = r;
    return PATHGATE_OK;
}

int pathgate_uri_to_config_path(pathgate_buf *out, const pathgate_uri *uri,
                                pathgate_convention convention, pathgate_error *err)
{
    int rc = pathgate_uri_to_native(out, uri, convention, err);
    if (rc)
        return rc;
    int hosted = uri->host_end > PATHGATE__URI_PREFIX_LEN;
    if (hosted && uri->root_end >= uri->len && out->len && out->ptr[out->len - 1] != '\\') {
        char *p = pathgate__realloc(&uri->alloc, out->ptr, out->len + 2);
        if (!p) {
            pathgate_buf_dispose(out);
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        }
        size_t n = out->len + 1;
        p[n - 1] = '\\';
        p[n] = '\0';
        out->ptr = NULL; /* moved into p */
        pathgate__buf_adopt(out, &uri->alloc, p, n);
    }
    return PATHGATE_OK;
}

int pathgate_legacy_resolve_config(pathgate_uri **out, const pathgate_legacy *path,
                                   const pathgate_uri *base, const pathgate_uri *home,
                                   pathgate_convention convention, pathgate_error *err)
{
    if (!out || !path)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    size_t n;
    const char *s = pathgate_legacy_text(path, &n);
    return pathgate_uri_resolve_config(out, s, n, convention, base, home, err);
}
