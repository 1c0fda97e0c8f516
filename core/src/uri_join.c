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

/* Appends the segments of s[0..n). In descendant mode a `..` below the
 * base (depth segments) or a Windows segment holding ':' is ENOTDESC;
 * otherwise `..` clamps at the root. */
static int append(pathgate__uri_builder *b, const char *s, size_t n, int win, int descendant,
                  size_t depth, pathgate_error *err)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && !is_sep(s[j], win))
            j++;
        const char *seg = s + i;
        size_t len = j - i;
        i = j + 1;
        if (len == 0 || (len == 1 && seg[0] == '.'))
            continue;
        if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            if (descendant && b->count <= depth)
                return pathgate__error_set(err, PATHGATE_ENOTDESC, "'..' leaves the base");
            (void)pathgate__ub_pop(b); /* clamps at the root */
            continue;
        }
        if (descendant && win && memchr(seg, ':', len))
            return pathgate__error_set(err, PATHGATE_ENOTDESC,
                                       "a Windows segment holding ':' is not a plain name");
        pathgate__ub_push_encoded(b, seg, len, PATHGATE__PCT_SEG);
    }
    return PATHGATE_OK;
}

static int join(pathgate_uri **out, const pathgate_uri *base, const char *text, size_t len,
                int descendant, pathgate_error *err)
{
    if (!out || !base || (!text && len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
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

    pathgate__uri_builder b;
    size_t extra = 1 + len + 2 * pathgate__pct_count(text, len, PATHGATE__PCT_SEG);
    if (pathgate__ub_start_from(&b, base, extra))
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    if (kind == JOIN_DRIVE_RELATIVE) {
        size_t first_n;
        const char *first = pathgate__ub_first(&b, &first_n);
        int hosted = base->host_end > PATHGATE__URI_PREFIX_LEN;
        if (hosted || !first ||
            pathgate__ascii_lower((unsigned char)first[0]) != pathgate__ascii_lower((unsigned char)text[0])) {
            pathgate__ub_abandon(&b);
            return pathgate__error_set(err, PATHGATE_EDRIVE, "'%.2s' names another drive", text);
        }
        text += 2;
        len -= 2;
    } else if (kind == JOIN_ROOT_RELATIVE) {
        pathgate__ub_to_root(&b);
    }
    int rc = append(&b, text, len, win, descendant, b.count, err);
    if (rc) {
        pathgate__ub_abandon(&b);
        return rc;
    }
    size_t first_n;
    const char *first = pathgate__ub_first(&b, &first_n);
    if (!win && first && pathgate__uri_is_drive_seg(first, first_n)) {
        /* A POSIX result `/C:/..` would read back as a Windows drive: as in
         * from_native it becomes the opaque form of its native bytes,
         * decoded in place (decoding only shrinks). */
        char *path = b.u->str + b.seg_start - 1;
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
