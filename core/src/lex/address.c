/* address.c - canonical address grammar, aliases, lexical normalisation
 * and formatting. Pure: no system call, no allocation, no state. */
#include "address.h"

#include <stdint.h>
#include <string.h>

#include "text.h"

#define KEY_MAX 255 /* longest legacy ROOT_<KEY> lowered on the stack */

static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7F;
}

static int is_lower(unsigned char c)
{
    return c >= 'a' && c <= 'z';
}

static int is_alpha(unsigned char c)
{
    return is_lower(c) || (c >= 'A' && c <= 'Z');
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int has_prefix(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

static int has_prefix_nocase(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    if (len < n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        if (c != (unsigned char)prefix[i])
            return 0;
    }
    return 1;
}

/* 1 when every byte of s is printable ASCII (0x20..0x7E): then it holds no
 * NUL, no control character and no ill-formed UTF-8. Eight bytes at a
 * time: the common input takes no per-byte test. */
static int printable_ascii(const char *s, size_t n)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, sizeof w);
        uint64_t del = w ^ (0x7F * ones);
        /* a byte >= 0x80, a byte < 0x20, a byte == 0x7F (exact tests) */
        if ((w & highs) | ((w - 0x20 * ones) & ~w & highs) | ((del - ones) & ~del & highs))
            return 0;
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7F)
            return 0;
    }
    return 1;
}

/* Length of the prefix of s holding neither stop byte a nor b. */
static size_t span_until(const char *s, size_t len, char a, char b)
{
    size_t i = 0;
    while (i < len && s[i] != a && s[i] != b)
        i++;
    return i;
}

int pathgate__address_key_valid(const char *key, size_t len)
{
    if (!key || len == 0 || !is_lower((unsigned char)key[0]))
        return 0;
    for (size_t i = 1; i < len; i++) {
        unsigned char c = (unsigned char)key[i];
        if (!is_lower(c) && !is_digit(c) && c != '_')
            return 0;
    }
    return 1;
}

int pathgate__address_mod_name_valid(const char *name, size_t len)
{
    if (!name || len == 0 || !pathgate__utf8_valid(name, len))
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c == '/' || c == ':' || is_control(c))
            return 0;
    }
    return !pathgate__is_space((unsigned char)name[0]) &&
           !pathgate__is_space((unsigned char)name[len - 1]);
}

/* root:<key>[(/|\)<rel>] */
static pathgate_reason parse_root(pathgate__parsed *out, const char *s, size_t len,
                                  const pathgate__names *names)
{
    size_t k = span_until(s, len, '/', '\\');
    long index = (k && names && names->root) ? names->root(names->ctx, s, k) : -1;
    if (index < 0)
        return PATHGATE_REASON_UNKNOWN_ROOT;
    out->form = PATHGATE__FORM_ADDRESS;
    out->is_mod = 0;
    out->index = index;
    out->text = s + k;
    out->len = len - k;
    return PATHGATE_REASON_OK;
}

/* mod:<Name>[/<rel>], mod:<Name>:/<rel>; a name may hold `\`. */
static pathgate_reason parse_mod(pathgate__parsed *out, const char *s, size_t len,
                                 const pathgate__names *names)
{
    size_t k = span_until(s, len, '/', ':');
    long index = -1;
    size_t name_len = k;
    if (k && names && names->mod)
        index = names->mod(names->ctx, s, k);
    if (index < 0 && names && names->mod) {
        /* `mod:Name\rel`: the longest configured name ending before a `\` */
        for (size_t i = k; i-- > 1;) {
            if (s[i] != '\\')
                continue;
            index = names->mod(names->ctx, s, i);
            if (index >= 0) {
                name_len = i;
                break;
            }
        }
    }
    if (index < 0)
        return PATHGATE_REASON_UNKNOWN_MOD;
    const char *rest = s + name_len;
    size_t rest_len = len - name_len;
    if (name_len == k && rest_len && rest[0] == ':') {
        /* legacy mod:<Name>:/<rel>; any other `:` after a name is nothing */
        if (rest_len < 2 || (rest[1] != '/' && rest[1] != '\\'))
            return PATHGATE_REASON_SYNTAX;
        rest++;
        rest_len--;
    }
    out->form = PATHGATE__FORM_ADDRESS;
    out->is_mod = 1;
    out->index = index;
    out->text = rest;
    out->len = rest_len;
    return PATHGATE_REASON_OK;
}

/* ROOT_<KEY>:/<rel> (s points after "ROOT_") */
static pathgate_reason parse_legacy_root(pathgate__parsed *out, const char *s, size_t len,
                                         const pathgate__names *names)
{
    size_t k = 0;
    while (k < len &&
           (is_alpha((unsigned char)s[k]) || is_digit((unsigned char)s[k]) || s[k] == '_'))
        k++;
    if (k == 0 || !is_alpha((unsigned char)s[0]) || k + 1 >= len || s[k] != ':' ||
        (s[k + 1] != '/' && s[k + 1] != '\\'))
        return PATHGATE_REASON_SYNTAX;
    if (k > KEY_MAX)
        return PATHGATE_REASON_UNKNOWN_ROOT;
    char key[KEY_MAX];
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)s[i];
        key[i] = (char)((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
    }
    long index = (names && names->root) ? names->root(names->ctx, key, k) : -1;
    if (index < 0)
        return PATHGATE_REASON_UNKNOWN_ROOT;
    out->form = PATHGATE__FORM_ADDRESS;
    out->is_mod = 0;
    out->index = index;
    out->text = s + k + 1;
    out->len = len - k - 1;
    return PATHGATE_REASON_OK;
}

/* 1 when t begins with a drive, `X:`. */
static int drive_prefix(const char *t, size_t len)
{
    return len >= 2 && is_alpha((unsigned char)t[0]) && t[1] == ':';
}

/* Windows host paths: drive-absolute (`C:\x`, `C:/x`) and UNC or
 * verbatim (`\\server\share`, `\\?\C:\x`), either separator. */
static int windows_host_absolute(const char *t, size_t len)
{
    if (drive_prefix(t, len) && len >= 3 && (t[2] == '\\' || t[2] == '/'))
        return 1;
    return len >= 3 && (t[0] == '\\' || t[0] == '/') && (t[1] == '\\' || t[1] == '/') &&
           t[2] != '\\' && t[2] != '/';
}

pathgate_reason pathgate__address_parse(pathgate__parsed *out, const char *text, size_t len,
                                        const pathgate__names *names, pathgate_convention host)
{
    if (len > PATHGATE_PATH_MAX)
        return PATHGATE_REASON_TOO_LONG;
    if (!text && len)
        return PATHGATE_REASON_SYNTAX;
    int plain = printable_ascii(text, len); /* checks below that cannot fail */
    if (len && !plain && (memchr(text, '\0', len) || !pathgate__utf8_valid(text, len)))
        return PATHGATE_REASON_ENCODING;
    while (len && pathgate__is_space((unsigned char)text[0])) {
        text++;
        len--;
    }
    while (len && pathgate__is_space((unsigned char)text[len - 1]))
        len--;
    if (len == 0)
        return PATHGATE_REASON_SYNTAX;
    for (size_t i = 0; !plain && i < len; i++)
        if (is_control((unsigned char)text[i]))
            return PATHGATE_REASON_SYNTAX;

    /* The view spelling (docs/spec.md, "Addresses"): a `/` before
     * `root:` or `mod:` is how a contained command's view and
     * deepagents' virtual paths show a canonical address. No host path
     * of a configured base begins with such a segment in practice; the
     * address reading wins, documented. */
    if (has_prefix(text, len, "/root:") || has_prefix(text, len, "/mod:")) {
        text++;
        len--;
    }
    /* ... and the bases' directories in a command's view (docs/exec.md):
     * `/pathgate/root/<key>/...`, `/pathgate/mod/<Name>/...` */
    if (has_prefix(text, len, "/pathgate/root/"))
        return parse_root(out, text + 15, len - 15, names);
    if (has_prefix(text, len, "/pathgate/mod/"))
        return parse_mod(out, text + 14, len - 14, names);
    if (has_prefix(text, len, "root:"))
        return parse_root(out, text + 5, len - 5, names);
    if (has_prefix(text, len, "mod:"))
        return parse_mod(out, text + 4, len - 4, names);
    if (has_prefix(text, len, "ROOT_"))
        return parse_legacy_root(out, text + 5, len - 5, names);

    out->is_mod = 0;
    out->index = -1;
    out->text = text;
    out->len = len;
    if (has_prefix_nocase(text, len, "file:")) {
        out->form = PATHGATE__FORM_URI;
        return PATHGATE_REASON_OK;
    }
    if (host == PATHGATE_CONVENTION_WINDOWS) {
        /* A Windows host: its absolute paths are host paths; drive-relative
         * (`C:x`) and rootless (`\x`, `/x`) ones depend on a current drive
         * and directory, so no base lies there */
        if (windows_host_absolute(text, len)) {
            out->form = PATHGATE__FORM_HOST;
            return PATHGATE_REASON_OK;
        }
        if (text[0] == '/' || text[0] == '\\' || drive_prefix(text, len))
            return PATHGATE_REASON_OUTSIDE_BASES;
    } else {
        if (text[0] == '/') {
            out->form = PATHGATE__FORM_HOST;
            return PATHGATE_REASON_OK;
        }
        /* Windows-absolute (`\x`, `\\server\share`, `C:\x`, `C:x`): no
         * base of this host lies there */
        if (text[0] == '\\' || drive_prefix(text, len))
            return PATHGATE_REASON_OUTSIDE_BASES;
    }
    size_t first = span_until(text, len, '/', '\\');
    if (memchr(text, ':', first))
        return PATHGATE_REASON_SYNTAX;
    out->form = PATHGATE__FORM_RELATIVE;
    return PATHGATE_REASON_OK;
}

/* 1 when s is a normalised <rel> already: non-empty segments split by
 * single `/`, none `.` or `..`, no `\`, no `/` at either end. */
static int normalised_rel(const char *s, size_t n)
{
    if (n == 0 || memchr(s, '\\', n))
        return 0;
    const char *p = s, *end = s + n;
    for (;;) {
        const char *q = memchr(p, '/', (size_t)(end - p));
        size_t seg = (size_t)((q ? q : end) - p);
        if (seg == 0 || (p[0] == '.' && (seg == 1 || (seg == 2 && p[1] == '.'))))
            return 0;
        if (!q)
            return 1;
        p = q + 1;
    }
}

/* Appends the segments of s (`\` = `/`) to buf at *len, never removing
 * below floor. */
static pathgate_reason append_segments(char *buf, size_t cap, size_t *len, size_t floor,
                                       const char *s, size_t n)
{
    /* the common case, normalised text after one `/`: copied whole */
    size_t lead = n && s[0] == '/';
    if (normalised_rel(s + lead, n - lead)) {
        size_t add = n - lead;
        if (cap - *len <= add + 1) /* room for `/`, the text and a NUL */
            return PATHGATE_REASON_TOO_LONG;
        buf[(*len)++] = '/';
        memcpy(buf + *len, s + lead, add);
        *len += add;
        return PATHGATE_REASON_OK;
    }
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == '/' || s[i] == '\\'))
            i++;
        size_t b = i;
        while (i < n && s[i] != '/' && s[i] != '\\')
            i++;
        size_t seg = i - b;
        if (seg == 0 || (seg == 1 && s[b] == '.'))
            continue;
        if (seg == 2 && s[b] == '.' && s[b + 1] == '.') {
            if (*len == floor)
                return PATHGATE_REASON_ESCAPES_ROOT;
            size_t j = *len;
            while (buf[j - 1] != '/')
                j--;
            *len = j - 1; /* drop `/<segment>` */
            continue;
        }
        if (cap - *len <= seg + 1) /* room for `/`, the segment and a NUL */
            return PATHGATE_REASON_TOO_LONG;
        buf[(*len)++] = '/';
        memcpy(buf + *len, s + b, seg);
        *len += seg;
    }
    return PATHGATE_REASON_OK;
}

pathgate_reason pathgate__address_build(char *buf, size_t cap, size_t *len, size_t *rel_off,
                                        int is_mod, const char *name, size_t name_len,
                                        const char *base_rel, size_t base_rel_len, const char *rel,
                                        size_t rel_len)
{
    const char *ns = is_mod ? "mod:" : "root:";
    size_t ns_len = strlen(ns);
    if (cap == 0 || cap - 1 < ns_len || cap - 1 - ns_len < name_len)
        return PATHGATE_REASON_TOO_LONG;
    memcpy(buf, ns, ns_len);
    memcpy(buf + ns_len, name, name_len);
    size_t n = ns_len + name_len;
    const size_t floor = n;
    pathgate_reason r = append_segments(buf, cap, &n, floor, base_rel, base_rel_len);
    if (r == PATHGATE_REASON_OK)
        r = append_segments(buf, cap, &n, floor, rel, rel_len);
    if (r != PATHGATE_REASON_OK)
        return r;
    buf[n] = '\0';
    *len = n;
    *rel_off = n > floor ? floor + 1 : n;
    return PATHGATE_REASON_OK;
}

int pathgate__address_split(int *is_mod, long *index, const char **rel, size_t *rel_len,
                            const char *text, size_t len, const pathgate__names *names)
{
    if (!text || !names || !pathgate__utf8_valid(text, len))
        return -1;
    int mod;
    size_t skip;
    if (has_prefix(text, len, "root:")) {
        mod = 0;
        skip = 5;
    } else if (has_prefix(text, len, "mod:")) {
        mod = 1;
        skip = 4;
    } else {
        return -1;
    }
    const char *s = text + skip;
    size_t n = len - skip;
    size_t k = span_until(s, n, '/', '/');
    long (*lookup)(void *, const char *, size_t) = mod ? names->mod : names->root;
    if (k == 0 || !lookup)
        return -1;
    long ix = lookup(names->ctx, s, k);
    if (ix < 0)
        return -1;
    const char *r = s + k;
    size_t rn = n - k;
    if (rn) {
        r++; /* the `/` */
        rn--;
        /* exactly normalised: segments non-empty, not `.`/`..`, no `\`,
         * no NUL or control character */
        if (rn == 0)
            return -1;
        size_t b = 0;
        for (size_t i = 0; i <= rn; i++) {
            if (i < rn && r[i] != '/') {
                unsigned char c = (unsigned char)r[i];
                if (c == '\\' || is_control(c))
                    return -1;
                continue;
            }
            size_t seg = i - b;
            if (seg == 0 || (seg == 1 && r[b] == '.') ||
                (seg == 2 && r[b] == '.' && r[b + 1] == '.'))
                return -1;
            b = i + 1;
        }
    }
    *is_mod = mod;
    *index = ix;
    *rel = rn ? r : "";
    *rel_len = rn;
    return 0;
}

int pathgate__rel_normalise(char *out, size_t cap, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '/')
            e++;
        size_t sl = e - i;
        if (sl == 2 && s[i] == '.' && s[i + 1] == '.') {
            if (o == 0)
                return -1; /* above the start */
            while (o && out[o - 1] != '/')
                o--;
            if (o)
                o--;
        } else if (sl && !(sl == 1 && s[i] == '.')) {
            if (o + 1 + sl + 1 > cap)
                return -1;
            if (o)
                out[o++] = '/';
            memcpy(out + o, s + i, sl);
            o += sl;
        }
        i = e + 1;
    }
    if (cap == 0)
        return -1;
    out[o] = '\0';
    return 0;
}
