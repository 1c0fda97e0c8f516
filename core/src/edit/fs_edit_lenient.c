/* fs_edit_lenient.c - the edits of @modelcontextprotocol/server-filesystem's
 * edit_file (PATHGATE_FS_EDIT_LENIENT, docs/mcp.md): line endings read as
 * LF, each edit replacing the first exact occurrence of its old text, or
 * else the first run of lines equal to its lines once whitespace at their
 * ends is ignored, re-indented to the file's indentation. */
#define _GNU_SOURCE
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "fs_edit_lenient.h"
#include "fs_text.h"
#include "strbuf.h"
#include "text.h"

/* JavaScript's whitespace (String.prototype.trim, /\s/): WhiteSpace and
 * LineTerminator. */
static int js_space(long cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

/* Length of the whitespace at the start of s (bytes), and its characters. */
static size_t lead(const char *s, size_t len, size_t *chars)
{
    size_t i = 0, n = 0;
    while (i < len) {
        long cp;
        size_t k = pathgate__utf8_next((const unsigned char *)s + i, len - i, &cp);
        if (!js_space(cp))
            break;
        i += k;
        n++;
    }
    if (chars)
        *chars = n;
    return i;
}

/* s without the whitespace at its end. */
static size_t trim_end_len(const char *s, size_t len)
{
    while (len) {
        size_t b = len - 1;
        while (b > 0 && len - b < 4 && ((unsigned char)s[b] & 0xC0) == 0x80)
            b--;
        long cp;
        size_t k = pathgate__utf8_next((const unsigned char *)s + b, len - b, &cp);
        if (k != len - b || !js_space(cp))
            break;
        len = b;
    }
    return len;
}

static int trimmed_eq(const char *a, size_t al, const char *b, size_t bl)
{
    size_t x = lead(a, al, NULL), y = lead(b, bl, NULL);
    size_t xl = trim_end_len(a + x, al - x), yl = trim_end_len(b + y, bl - y);
    return xl == yl && memcmp(a + x, b + y, xl) == 0;
}

typedef struct line {
    const char *p;
    size_t len;
} line;

/* s.split('\n') (allocated). */
static line *split(const pathgate_allocator *a, const char *s, size_t len, size_t *n)
{
    size_t count = pathgate__fs_count_newlines(s, len) + 1;
    line *v = pathgate__malloc(a, count * sizeof *v);
    if (!v)
        return NULL;
    const char *q = s, *end = s + len;
    for (size_t i = 0; i < count; i++) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        v[i].p = q;
        v[i].len = (size_t)((nl ? nl : end) - q);
        q = nl ? nl + 1 : end;
    }
    *n = count;
    return v;
}

char *pathgate__fs_crlf_to_lf(const pathgate_allocator *a, const char *s, size_t len,
                              size_t *out_len)
{
    char *out = pathgate__malloc(a, len + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (!(s[i] == '\r' && i + 1 < len && s[i + 1] == '\n'))
            out[n++] = s[i];
    out[n] = '\0';
    *out_len = n;
    return out;
}

static int not_found(pathgate_error *err, const char *old_text, size_t old_len)
{
    static const char prefix[] = "Could not find exact match for edit:\n";
    char q[PATHGATE_ERROR_TEXT_LENGTH];
    pathgate__fs_quote(q, PATHGATE_ERROR_TEXT_LENGTH - sizeof prefix, old_text, old_len);
    return pathgate__error_set(err, PATHGATE_EEDIT, "%s%s", prefix, q);
}

int pathgate__fs_replace_lenient(char **result, size_t *result_len, const pathgate_allocator *a,
                                 const char *content, size_t len, const char *old_raw,
                                 size_t old_raw_len, const char *new_raw, size_t new_raw_len,
                                 pathgate_error *err)
{
    *result = NULL;
    *result_len = 0;
    size_t ol, nl;
    char *old = pathgate__fs_crlf_to_lf(a, old_raw ? old_raw : "", old_raw_len, &ol);
    char *neu = old ? pathgate__fs_crlf_to_lf(a, new_raw ? new_raw : "", new_raw_len, &nl) : NULL;
    pathgate__sb out = PATHGATE__SB_INIT(a);
    line *cl = NULL, *olines = NULL, *nlines = NULL;
    int rc = PATHGATE_OK;
    if (!neu) {
        rc = PATHGATE_ENOMEM;
        goto done;
    }
    const char *hit = ol == 0 ? content : pathgate__memmem(content, len, old, ol);
    if (hit) { /* the first exact occurrence */
        pathgate__sb_put(&out, content, (size_t)(hit - content));
        pathgate__sb_put(&out, neu, nl);
        pathgate__sb_put(&out, hit + ol, len - (size_t)(hit - content) - ol);
        goto done;
    }
    size_t nc, no, nn;
    cl = split(a, content, len, &nc);
    olines = cl ? split(a, old, ol, &no) : NULL;
    nlines = olines ? split(a, neu, nl, &nn) : NULL;
    if (!nlines) {
        rc = PATHGATE_ENOMEM;
        goto done;
    }
    size_t at = 0;
    int found = 0;
    for (size_t i = 0; !found && no <= nc && i <= nc - no; i++) {
        size_t j = 0;
        while (j < no && trimmed_eq(olines[j].p, olines[j].len, cl[i + j].p, cl[i + j].len))
            j++;
        if (j == no) {
            found = 1;
            at = i;
        }
    }
    if (!found) {
        rc = not_found(err, old_raw ? old_raw : "", old_raw_len);
        goto done;
    }
    /* the lines before, the re-indented new lines, the lines after */
    size_t indent = lead(cl[at].p, cl[at].len, NULL);
    for (size_t i = 0; i < at; i++) {
        pathgate__sb_put(&out, cl[i].p, cl[i].len);
        pathgate__sb_putc(&out, '\n');
    }
    for (size_t j = 0; j < nn; j++) {
        const char *p = nlines[j].p;
        size_t l = nlines[j].len, nchars, ochars = 0;
        size_t nind = lead(p, l, &nchars);
        if (j == 0) {
            pathgate__sb_put(&out, cl[at].p, indent);
            pathgate__sb_put(&out, p + nind, l - nind);
        } else {
            size_t oind = j < no ? lead(olines[j].p, olines[j].len, &ochars) : 0;
            if (oind && nind) {
                pathgate__sb_put(&out, cl[at].p, indent);
                for (size_t k = ochars; k < nchars; k++)
                    pathgate__sb_putc(&out, ' ');
                pathgate__sb_put(&out, p + nind, l - nind);
            } else {
                pathgate__sb_put(&out, p, l);
            }
        }
        if (j + 1 < nn || at + no < nc)
            pathgate__sb_putc(&out, '\n');
    }
    for (size_t i = at + no; i < nc; i++) {
        pathgate__sb_put(&out, cl[i].p, cl[i].len);
        if (i + 1 < nc)
            pathgate__sb_putc(&out, '\n');
    }
done:
    pathgate__free(a, cl);
    pathgate__free(a, olines);
    pathgate__free(a, nlines);
    pathgate__free(a, old);
    pathgate__free(a, neu);
    if (rc == PATHGATE_OK && out.oom)
        rc = PATHGATE_ENOMEM;
    if (rc < 0) {
        pathgate__sb_free(&out);
        return rc == PATHGATE_ENOMEM ? pathgate__error_set(err, rc, NULL) : rc;
    }
    if (!out.p) {
        *result = pathgate__strndup(a, "", 0);
        if (!*result)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        return PATHGATE_OK;
    }
    *result = out.p;
    *result_len = out.len;
    return PATHGATE_OK;
}
