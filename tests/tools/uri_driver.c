/*
 * uri_driver.c - test-only command-line driver of the C core's PathUri and
 * LegacyAppPathString functions, so that a test in another language can
 * push thousands of paths through one process.
 *
 * Protocol (one request per line on stdin, one response line per request
 * on stdout, flushed after each line):
 *
 *   request:   OP <TAB> ARG [<TAB> HEX]...
 *   response:  ok <TAB> HEX        a value
 *              none                an absent optional value
 *              err <TAB> NAME      a pathgate error name (pathgate_errname)
 *              err <TAB> bad_request   a malformed request
 *
 * Every text field (HEX) is the text's bytes as lowercase or uppercase
 * hexadecimal, two digits a byte ("" = empty text), so any byte string
 * (NUL, TAB, newline, invalid UTF-8) travels unchanged. ARG is a
 * convention, `posix`, `windows` or `infer`, or `-` where none applies.
 *
 *   parse           - U          -> URI string of parse(U)
 *   from_native     C T          -> URI string of from_native(T, C)
 *   to_native       C U          -> to_native(parse(U), C)
 *   native_roundtrip C T         -> to_native(from_native(T, C), C)
 *   convention      - U          -> posix | windows | none
 *   is_opaque       - U          -> 1 | 0
 *   parent          - U          -> URI string or none
 *   basename        - U          -> decoded basename or none
 *   join            - U T        -> URI string of join(parse(U), T)
 *   join_descendant - U T        -> URI string of join_descendant(parse(U), T)
 *   starts_with     - U B        -> 1 | 0
 *   relative_to     - U B        -> relative text or none
 *   equal           - A B        -> 1 | 0 (and checks hash(A) == hash(B) when 1)
 *   display         - U          -> display(parse(U))
 *   host_path       - U          -> to_host_path(parse(U))
 *   legacy_to_uri   C T          -> LegacyAppPathString(T).to_uri(C)
 *   legacy_from_uri C U          -> LegacyAppPathString.from_uri(parse(U), C)
 *   legacy_ui       - T          -> render_for_ui
 *   legacy_resolve  - T CWD [HOME] -> resolve_against(parse(CWD), parse(HOME) or NULL)
 *
 * In every op, a URI operand that fails to parse answers `err <TAB> NAME`
 * of the parse failure. Exit status 0 at end of input, 2 on I/O failure.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathgate/pathgate.h"

#define MAX_FIELDS 5

typedef struct field {
    char *ptr;
    size_t len;
} field;

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes hex in place; -1 when malformed. */
static int unhex(field *f)
{
    if (f->len % 2)
        return -1;
    for (size_t i = 0; i < f->len / 2; i++) {
        int hi = hexval((unsigned char)f->ptr[2 * i]),
            lo = hexval((unsigned char)f->ptr[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        f->ptr[i] = (char)(hi << 4 | lo);
    }
    f->len /= 2;
    f->ptr[f->len] = '\0';
    return 0;
}

static void put_ok(const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    fputs("ok\t", stdout);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        putchar(hex[c >> 4]);
        putchar(hex[c & 15]);
    }
    putchar('\n');
}

static void put_str(const char *s)
{
    put_ok(s, strlen(s));
}

static void put_err(int rc)
{
    printf("err\t%s\n", pathgate_errname(rc));
}

static void put_buf(pathgate_buf *b)
{
    if (b->ptr)
        put_ok(b->ptr, b->len);
    else
        fputs("none\n", stdout);
    pathgate_buf_dispose(b);
}

static void put_uri(pathgate_uri *u)
{
    if (u) {
        size_t len;
        const char *s = pathgate_uri_string(u, &len);
        put_ok(s, len);
    } else {
        fputs("none\n", stdout);
    }
    pathgate_uri_free(u);
}

/* ARG: a convention or infer. -1 when unknown. */
static int conv_arg(pathgate_convention *out, const field *arg)
{
    if (arg->len == 5 && memcmp(arg->ptr, "infer", 5) == 0) {
        *out = PATHGATE_CONVENTION_NONE;
        return 0;
    }
    return pathgate_convention_parse(out, arg->ptr, arg->len, NULL) == 0 ? 0 : -1;
}

static int parse(pathgate_uri **u, const field *f)
{
    return pathgate_uri_parse(u, f->ptr, f->len, NULL, NULL);
}

/* Handles one request of n fields (f[0] = op, f[1] = arg, texts decoded).
 * Returns 0, or -1 for a malformed request. */
static int handle(field *f, size_t n)
{
    const char *op = f[0].ptr;
    pathgate_convention conv = PATHGATE_CONVENTION_NONE;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_uri *a = NULL, *b = NULL, *c = NULL, *r = NULL;
    int rc = 0;
#define NEED(k)                                                                                    \
    do {                                                                                           \
        if (n != (k))                                                                              \
            return -1;                                                                             \
    } while (0)
#define CONV()                                                                                     \
    do {                                                                                           \
        if (conv_arg(&conv, &f[1]))                                                                \
            return -1;                                                                             \
    } while (0)
#define PARSE(var, idx)                                                                            \
    do {                                                                                           \
        if ((rc = parse(&(var), &f[idx])) < 0)                                                     \
            goto done;                                                                             \
    } while (0)

    if (!strcmp(op, "parse")) {
        NEED(3);
        PARSE(r, 2);
        put_uri(r);
        return 0;
    } else if (!strcmp(op, "from_native")) {
        NEED(3);
        CONV();
        rc = pathgate_uri_from_native(&r, f[2].ptr, f[2].len, conv, NULL, NULL);
        if (rc == 0) {
            put_uri(r);
            return 0;
        }
    } else if (!strcmp(op, "to_native")) {
        NEED(3);
        CONV();
        PARSE(a, 2);
        if ((rc = pathgate_uri_to_native(&buf, a, conv, NULL)) == 0)
            put_buf(&buf);
    } else if (!strcmp(op, "native_roundtrip")) {
        NEED(3);
        CONV();
        rc = pathgate_uri_from_native(&a, f[2].ptr, f[2].len, conv, NULL, NULL);
        if (rc == 0 && (rc = pathgate_uri_to_native(&buf, a, conv, NULL)) == 0)
            put_buf(&buf);
    } else if (!strcmp(op, "convention")) {
        NEED(3);
        PARSE(a, 2);
        const char *name = pathgate_convention_name(pathgate_uri_convention(a));
        put_str(name ? name : "none");
    } else if (!strcmp(op, "is_opaque")) {
        NEED(3);
        PARSE(a, 2);
        put_str(pathgate_uri_is_opaque(a) ? "1" : "0");
    } else if (!strcmp(op, "parent")) {
        NEED(3);
        PARSE(a, 2);
        if ((rc = pathgate_uri_parent(&r, a, NULL)) == 0) {
            put_uri(r);
            r = NULL;
        }
    } else if (!strcmp(op, "basename")) {
        NEED(3);
        PARSE(a, 2);
        if ((rc = pathgate_uri_basename(&buf, a, NULL)) == 0)
            put_buf(&buf);
    } else if (!strcmp(op, "join") || !strcmp(op, "join_descendant")) {
        NEED(4);
        PARSE(a, 2);
        rc = (op[4] ? pathgate_uri_join_descendant : pathgate_uri_join)(&r, a, f[3].ptr, f[3].len,
                                                                        NULL);
        if (rc == 0) {
            put_uri(r);
            r = NULL;
        }
    } else if (!strcmp(op, "starts_with")) {
        NEED(4);
        PARSE(a, 2);
        PARSE(b, 3);
        put_str(pathgate_uri_starts_with(a, b) ? "1" : "0");
    } else if (!strcmp(op, "relative_to")) {
        NEED(4);
        PARSE(a, 2);
        PARSE(b, 3);
        if ((rc = pathgate_uri_relative_to(&buf, a, b, NULL)) == 0)
            put_buf(&buf);
    } else if (!strcmp(op, "equal")) {
        NEED(4);
        PARSE(a, 2);
        PARSE(b, 3);
        int eq = pathgate_uri_equal(a, b);
        if (eq && pathgate_uri_hash(a) != pathgate_uri_hash(b))
            put_str("hash_mismatch");
        else
            put_str(eq ? "1" : "0");
    } else if (!strcmp(op, "display")) {
        NEED(3);
        PARSE(a, 2);
        if ((rc = pathgate_uri_display(&buf, a)) == 0)
            put_buf(&buf);
    } else if (!strcmp(op, "host_path")) {
        NEED(3);
        PARSE(a, 2);
        if ((rc = pathgate_uri_to_host_path(&buf, a, NULL)) == 0)
            put_buf(&buf);
    } else if (!strcmp(op, "legacy_to_uri") || !strcmp(op, "legacy_ui") ||
               !strcmp(op, "legacy_resolve")) {
        pathgate_legacy *p = NULL;
        if (n < 3)
            return -1;
        if (!strcmp(op, "legacy_to_uri")) {
            NEED(3);
            CONV();
        } else if (!strcmp(op, "legacy_ui")) {
            NEED(3);
        } else {
            if (n != 4 && n != 5)
                return -1;
            PARSE(b, 3);
            if (n == 5)
                PARSE(c, 4);
        }
        if ((rc = pathgate_legacy_new(&p, f[2].ptr, f[2].len, NULL, NULL)) < 0)
            goto done;
        if (!strcmp(op, "legacy_to_uri"))
            rc = pathgate_legacy_to_uri(&r, p, conv, NULL);
        else if (!strcmp(op, "legacy_ui"))
            rc = pathgate_legacy_render_for_ui(&buf, p);
        else
            rc = pathgate_legacy_resolve_against(&r, p, b, c, NULL);
        pathgate_legacy_free(p);
        if (rc == 0) {
            if (buf.ptr)
                put_buf(&buf);
            else {
                put_uri(r);
                r = NULL;
            }
        }
    } else if (!strcmp(op, "legacy_from_uri")) {
        NEED(3);
        CONV();
        PARSE(a, 2);
        pathgate_legacy *p = NULL;
        if ((rc = pathgate_legacy_from_uri(&p, a, conv, NULL)) == 0) {
            size_t len;
            const char *s = pathgate_legacy_text(p, &len);
            put_ok(s, len);
            pathgate_legacy_free(p);
        }
    } else {
        return -1;
    }
done:
    if (rc < 0)
        put_err(rc);
    pathgate_buf_dispose(&buf);
    pathgate_uri_free(a);
    pathgate_uri_free(b);
    pathgate_uri_free(c);
    pathgate_uri_free(r);
    return 0;
#undef NEED
#undef CONV
#undef PARSE
}

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, stdin)) >= 0) {
        size_t len = (size_t)got;
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        field f[MAX_FIELDS];
        size_t n = 0;
        char *p = line, *end = line + len;
        int bad = 0;
        for (;;) {
            char *tab = memchr(p, '\t', (size_t)(end - p));
            if (n == MAX_FIELDS) {
                bad = 1;
                break;
            }
            f[n].ptr = p;
            f[n].len = (size_t)((tab ? tab : end) - p);
            f[n].ptr[f[n].len] = '\0';
            n++;
            if (!tab)
                break;
            p = tab + 1;
        }
        for (size_t i = 2; !bad && i < n; i++)
            if (unhex(&f[i]) < 0)
                bad = 1;
        if (bad || n < 2 || handle(f, n) < 0)
            fputs("err\tbad_request\n", stdout);
        if (fflush(stdout) != 0) {
            free(line);
            return 2;
        }
    }
    free(line);
    return ferror(stdin) ? 2 : 0;
}
