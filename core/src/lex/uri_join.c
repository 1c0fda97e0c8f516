/* uri_join.c - join and join_descendant: model-supplied path text (any
 * OS, relative or absolute) read with the base's convention. */
#include <string.h>

#include "error.h"
#include "pct.h"
#include "text.h"
#include "uri_internal.h"

static int is_sep(char c, int win)
{
    return c == '/' || (win && c == '\\');
}

enum join_kind {
    JOIN_RELATIVE,      /* a/b */
    JOIN_ABSOLUTE,      /* /x (POSIX); C:\x, \\server\share (Windows) */
    JOIN_ROOT_RELATIVE, /* \x or /x under Windows */
    JOIN_DRIVE_RELATIVE /* C:x or C: under Windows */
};

static enum join_kind classify(const char *s, size_t n, int win)
{
    if (!win)
        return s[0] == '/' ? JOIN_ABSOLUTE : JOIN_RELATIVE;
    if (n >= 2 && pathgate__is_alpha((unsigned char)s[0]) && s[1] == ':')
        return (n >= 3 && is_sep(s[2], 1)) ? JOIN_ABSOLUTE : JOIN_DRIVE_RELATIVE;
    if (is_sep(s[0], 1))
        return (n >= 2 && is_sep(s[1], 1)) ? JOIN_ABSOLUTE : JOIN_ROOT_RELATIVE;
    return JOIN_RELATIVE;
}

static int join(pathgate_uri **out, const pathgate_uri *base, const char *text, size_t len,
                int descendant, pathgate_error *err)
{
    if (!out || !base || (!text && len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (len == 0 && !descendant)
        return pathgate_uri_dup(out, base, err); /* even an opaque base (as Codex) */
    if (base->opaque)
        return pathgate__error_set(err, PATHGATE_EOPAQUE, "an opaque URI has no join");
    if (len > PATHGATE_PATH_MAX)
        return pathgate__error_set(err, PATHGATE_ETOOLONG, "text is longer than %d bytes",
                                   PATHGATE_PATH_MAX);
    if (len && memchr(text, '\0', len))
        return pathgate__error_set(err, PATHGATE_ENUL, "text contains a NUL byte");
    int win = base->convention == PATHGATE_CONVENTION_WINDOWS;
    if (win && !pathgate__utf8_valid(text, len))
        return pathgate__error_set(err, PATHGATE_EUTF8, "Windows path text is not valid UTF-8");
    if (len == 0)
        return pathgate_uri_dup(out, base, err);

    enum join_kind kind = classify(text, len, win);
    if (descendant && kind != JOIN_RELATIVE)
        return pathgate__error_set(err, PATHGATE_ENOTDESC, "absolute text is not a descendant");
    if (kind == JOIN_ABSOLUTE)
        return pathgate__uri_from_native(out, text, len, (pathgate_convention)base->convention,
                                         &base->alloc, err);

    /* the result is built inside its block, sized for the worst case */
    pathgate__uri_builder b;
    if (pathgate__ub_start_from(&b, base, 1 + 3 * len))
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (kind == JOIN_DRIVE_RELATIVE) {
        size_t first_n;
        const char *first = pathgate__ub_first(&b, &first_n);
        int hosted = base->host_end > PATHGATE__URI_PREFIX_LEN;
        if (hosted || !first ||
            pathgate__ascii_lower((unsigned char)first[0]) !=
                pathgate__ascii_lower((unsigned char)text[0])) {
            pathgate__ub_abandon(&b);
            return pathgate__error_set(err, PATHGATE_EDRIVE, "'%.2s' names another drive", text);
        }
        text += 2;
        len -= 2;
    } else if (kind == JOIN_ROOT_RELATIVE) {
        pathgate__ub_to_root(&b);
    }
    int flags = (win ? PATHGATE__UB_WIN : 0) | (descendant ? PATHGATE__UB_DESCENDANT : 0);
    int rc = pathgate__ub_push_native(&b, text, len, flags, b.count, err);
    if (rc) {
        pathgate__ub_abandon(&b);
        return rc;
    }
    b.trailing = 0; /* a relative join never keeps a trailing separator (as Codex) */
    size_t first_n;
    const char *first = pathgate__ub_first(&b, &first_n);
    if (!win && first &&
        (pathgate__uri_is_drive_seg(first, first_n) ||
         pathgate__uri_is_pipe_drive_seg(first, first_n))) {
        /* A POSIX result `/C:/..` (or `/C|/..`) would read back as a Windows drive: as in
         * from_native it becomes the opaque form of its native bytes,
         * decoded in place (decoding only shrinks). */
        char *path = b.buf + b.seg_start - 1;
        size_t n = pathgate__pct_decode(path, path, b.len - b.seg_start + 1);
        rc = pathgate__uri_make_opaque(out, &base->alloc, (const unsigned char *)path, n, err);
        pathgate__ub_abandon(&b);
        return rc;
    }
    return pathgate__ub_finish(&b, out, err);
}

int pathgate_uri_join(pathgate_uri **out, const pathgate_uri *base, const char *text, size_t len,
                      pathgate_error *err)
{
    return join(out, base, text, len, 0, err);
}

int pathgate_uri_join_descendant(pathgate_uri **out, const pathgate_uri *base, const char *text,
                                 size_t len, pathgate_error *err)
{
    int rc = join(out, base, text, len, 1, err);
    if (rc == 0 && !pathgate_uri_starts_with(*out, base)) {
        pathgate_uri_free(*out);
        *out = NULL;
        return pathgate__error_set(err, PATHGATE_ENOTDESC, "path is not a descendant of the base");
    }
    return rc;
}

int pathgate_uri_join_bytes(pathgate_uri **out, const pathgate_uri *base, const char *bytes,
                            size_t len, pathgate_error *err)
{
    if (!out || !base || (!bytes && len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    /* UTF-8 is text; POSIX join already takes raw bytes (segments are
     * percent-encoded byte by byte, `..` clamps, absolute bytes replace) */
    if (len <= PATHGATE_PATH_MAX && !pathgate__utf8_valid(bytes ? bytes : "", len)) {
        if (base->opaque)
            return pathgate__error_set(err, PATHGATE_EOPAQUE, "an opaque URI has no join");
        if (base->convention != PATHGATE_CONVENTION_POSIX)
            return pathgate__error_set(
                err, PATHGATE_ECONVENTION,
                "native bytes that are not UTF-8 join only onto a POSIX URI");
    }
    return join(out, base, bytes, len, 0, err);
}
