/* test_uri_cases.c - runs every case of tests/data/uri_cases.tsv and uri_codex.tsv (format in
 * its header) against pathgate_uri_*, reporting each failing line. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>

#include "alloc.h"
#include "uri_internal.h"

/* A field after unescaping: bytes, or absent (\N). */
typedef struct field {
    char *s;
    size_t n;
    int absent;
} field;

/* The table being read, for messages. */
static const char *g_file = "uri_cases.tsv";

/* An operation's outcome: an error code, absent, or bytes. */
typedef struct outcome {
    int rc;
    int absent;
    char *s; /* malloc'd */
    size_t n;
} outcome;

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Unescapes s[0..n) into f; 0, or -1 for a malformed escape. */
static int unescape(field *f, const char *s, size_t n)
{
    f->absent = n == 2 && s[0] == '\\' && s[1] == 'N';
    f->s = malloc(n + 1);
    f->n = 0;
    if (f->absent)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\') {
            if (++i >= n)
                return -1;
            switch (s[i]) {
            case '\\':
                c = '\\';
                break;
            case 't':
                c = '\t';
                break;
            case 'n':
                c = '\n';
                break;
            case 'r':
                c = '\r';
                break;
            case 'x':
                if (i + 2 >= n || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0)
                    return -1;
                c = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
                i += 2;
                break;
            default:
                return -1;
            }
        }
        f->s[f->n++] = c;
    }
    f->s[f->n] = '\0';
    return 0;
}

static void set_text(outcome *o, const char *s, size_t n)
{
    o->s = malloc(n + 1);
    memcpy(o->s, s, n);
    o->s[n] = '\0';
    o->n = n;
}

static void set_buf(outcome *o, int rc, pathgate_buf *b)
{
    o->rc = rc;
    if (rc == 0 && !b->ptr)
        o->absent = 1;
    else if (rc == 0)
        set_text(o, b->ptr, b->len);
    pathgate_buf_dispose(b);
}

static void set_uri(outcome *o, int rc, pathgate_uri *u)
{
    o->rc = rc;
    if (rc == 0 && !u)
        o->absent = 1;
    else if (rc == 0) {
        size_t n;
        const char *s = pathgate_uri_string(u, &n);
        set_text(o, s, n);
    }
    pathgate_uri_free(u);
}

static void set_bool(outcome *o, int v)
{
    set_text(o, v ? "true" : "false", v ? 4 : 5);
}

static int parse_conv(const field *f, pathgate_convention *c)
{
    if (f->n == 5 && memcmp(f->s, "posix", 5) == 0)
        *c = PATHGATE_CONVENTION_POSIX;
    else if (f->n == 7 && memcmp(f->s, "windows", 7) == 0)
        *c = PATHGATE_CONVENTION_WINDOWS;
    else if (f->n == 5 && memcmp(f->s, "infer", 5) == 0)
        *c = PATHGATE_CONVENTION_NONE;
    else
        return -1;
    return 0;
}

/* Parses a URI operand; on failure prints why and returns NULL. */
static pathgate_uri *operand(const field *f, int line, const char *what)
{
    pathgate_uri *u = NULL;
    pathgate_error err;
    int rc = pathgate_uri_parse(&u, f->s, f->n, pg_test_alloc(), &err);
    if (rc) {
        print_error("%s:%d: %s \"%s\" does not parse: %s (%s)\n", g_file, line, what, f->s,
                    pathgate_errname(rc), err.message);
        return NULL;
    }
    return u;
}

/* The invariant of every built URI: its string parses back to itself. */
static int check_reparse(const pathgate_uri *u, int line)
{
    size_t n;
    const char *s = pathgate_uri_string(u, &n);
    pathgate_uri *again = NULL;
    int rc = pathgate_uri_parse(&again, s, n, pg_test_alloc(), NULL);
    int ok = rc == 0 && strcmp(pathgate_uri_string(again, NULL), s) == 0 &&
             pathgate_uri_equal(u, again) && pathgate_uri_hash(u) == pathgate_uri_hash(again) &&
             pathgate_uri_convention(u) == pathgate_uri_convention(again) &&
             pathgate_uri_is_opaque(u) == pathgate_uri_is_opaque(again);
    if (!ok)
        print_error("%s:%d: \"%s\" does not parse back to itself (%s)\n", g_file, line, s,
                    pathgate_errname(rc));
    pathgate_uri_free(again);
    return ok;
}

/* The fast and the full path give the same result; frees slow. */
static int check_same(int line, int rc, const pathgate_uri *fast, int slow_rc, pathgate_uri *slow)
{
    int same =
        rc == slow_rc &&
        (rc != 0 || (!strcmp(pathgate_uri_string(fast, NULL), pathgate_uri_string(slow, NULL)) &&
                     pathgate_uri_convention(fast) == pathgate_uri_convention(slow) &&
                     pathgate_uri_equal(fast, slow)));
    if (!same)
        print_error("%s:%d: fast path %s \"%s\", full path %s \"%s\"\n", g_file, line,
                    pathgate_errname(rc), rc ? "" : pathgate_uri_string(fast, NULL),
                    pathgate_errname(slow_rc), slow_rc ? "" : pathgate_uri_string(slow, NULL));
    pathgate_uri_free(slow);
    return same;
}

/* Runs one case; returns 1 when it passes, -1 when it is another host's. */
static int run_case(int line, const char *op, field *in, field *arg, field *exp)
{
    outcome o = {0, 0, NULL, 0};
    pathgate_uri *u = NULL, *v = NULL, *r = NULL;
    pathgate_buf b = PATHGATE_BUF_INIT;
    pathgate_convention conv = PATHGATE_CONVENTION_NONE;
    int ok = 1;
    int needs_conv = !strcmp(op, "from_native") || !strcmp(op, "to_native") ||
                     !strcmp(op, "native_roundtrip") || !strcmp(op, "from_uri") ||
                     !strcmp(op, "legacy_to_uri") || !strcmp(op, "legacy_roundtrip") ||
                     !strcmp(op, "path_segments") || !strcmp(op, "home_suffix") ||
                     !strcmp(op, "validate_config") || !strcmp(op, "validate_glob") ||
                     !strcmp(op, "host_path");
    if (needs_conv && parse_conv(arg, &conv)) {
        print_error("%s:%d: bad convention \"%s\"\n", g_file, line, arg->s);
        return 0;
    }
    /* A host_path row is for one host (its arg); another host's row is
     * not run here. */
    if (!strcmp(op, "host_path") && conv != pathgate_convention_host())
        return -1;
    if (!strcmp(op, "parse")) {
        int rc = pathgate_uri_parse(&r, in->s, in->n, pg_test_alloc(), NULL);
        if (rc == 0)
            ok = check_reparse(r, line);
        /* the full path (no fast path, always uriparser) agrees */
        pathgate_uri *slow = NULL;
        int slow_rc = pathgate__uri_parse_ex(&slow, in->s, in->n, pg_test_alloc(), NULL, 1);
        ok = check_same(line, rc, r, slow_rc, slow) && ok;
        set_uri(&o, rc, r);
    } else if (!strcmp(op, "from_native")) {
        int rc = pathgate_uri_from_native(&r, in->s, in->n, conv, pg_test_alloc(), NULL);
        if (rc == 0)
            ok = check_reparse(r, line);
        pathgate_uri *slow = NULL;
        pathgate_allocator a;
        pathgate__alloc_init(&a, pg_test_alloc());
        int slow_rc = pathgate__uri_from_native_ex(&slow, in->s, in->n, conv, &a, NULL, 1);
        ok = check_same(line, rc, r, slow_rc, slow) && ok;
        set_uri(&o, rc, r);
    } else if (!strcmp(op, "native_roundtrip")) {
        int rc = pathgate_uri_from_native(&r, in->s, in->n, conv, pg_test_alloc(), NULL);
        if (rc == 0)
            rc = pathgate_uri_to_native(&b, r, conv, NULL);
        pathgate_uri_free(r);
        set_buf(&o, rc, &b);
    } else if (!strcmp(op, "path_segments")) {
        /* segments joined by '|' */
        char buf[1024];
        size_t pos = 0, n = 0, sl, count = 0;
        const char *seg;
        while (pathgate_path_segment_next(&seg, &sl, in->s, in->n, conv, &pos)) {
            if (count++)
                buf[n++] = '|';
            memcpy(buf + n, seg, sl);
            n += sl;
        }
        set_text(&o, buf, n);
    } else if (!strcmp(op, "home_suffix")) {
        const char *suf;
        size_t sl;
        if (pathgate_home_relative_suffix(&suf, &sl, in->s, in->n, conv))
            set_text(&o, suf, sl);
        else
            o.absent = 1;
    } else if (!strcmp(op, "device_path")) {
        set_buf(&o, pathgate_normalize_windows_device_path(&b, in->s, in->n, NULL), &b);
    } else if (!strcmp(op, "platform")) {
        const char *name = pathgate_convention_name(pathgate_platform_convention(in->s, in->n));
        if (name)
            set_text(&o, name, strlen(name));
        else
            o.absent = 1;
    } else if (!strcmp(op, "resolve_config") || !strcmp(op, "config_path")) {
        /* arg: `conv base home`, `-` for an absent base or home */
        char cs[16] = "", bs[1024] = "", hs[1024] = "";
        pathgate_convention cc = PATHGATE_CONVENTION_NONE;
        if (sscanf(arg->s, "%15s %1023s %1023s", cs, bs, hs) != 3 ||
            (strcmp(cs, "infer") && pathgate_convention_parse(&cc, cs, strlen(cs), NULL))) {
            print_error("%s:%d: bad resolve_config argument \"%s\"\n", g_file, line, arg->s);
            return 0;
        }
        int rc = 0;
        if (strcmp(bs, "-"))
            rc = pathgate_uri_parse(&u, bs, strlen(bs), pg_test_alloc(), NULL);
        if (rc == 0 && strcmp(hs, "-"))
            rc = pathgate_uri_parse(&v, hs, strlen(hs), pg_test_alloc(), NULL);
        if (rc) {
            print_error("%s:%d: base or home does not parse\n", g_file, line);
            pathgate_uri_free(u);
            return 0;
        }
        rc = pathgate_uri_resolve_config(&r, in->s, in->n, cc, u, v, NULL);
        if (rc == 0)
            ok = check_reparse(r, line);
        if (rc == 0 && !strcmp(op, "config_path")) {
            set_buf(&o, pathgate_uri_to_config_path(&b, r, cc, NULL), &b);
            pathgate_uri_free(r);
        } else {
            set_uri(&o, rc, r);
        }
    } else if (!strcmp(op, "legacy_to_uri") || !strcmp(op, "legacy_roundtrip")) {
        pathgate_legacy *p = NULL, *back = NULL;
        int rc = pathgate_legacy_new(&p, in->s, in->n, pg_test_alloc(), NULL);
        if (rc == 0)
            rc = pathgate_legacy_to_uri(&r, p, conv, NULL);
        if (rc == 0)
            ok = check_reparse(r, line);
        if (rc == 0 && !strcmp(op, "legacy_roundtrip")) {
            rc = pathgate_legacy_from_uri(&back, r, conv, NULL);
            size_t n;
            const char *t = rc ? NULL : pathgate_legacy_text(back, &n);
            o.rc = rc;
            if (t)
                set_text(&o, t, n);
            pathgate_legacy_free(back);
            pathgate_uri_free(r);
        } else {
            set_uri(&o, rc, r);
        }
        pathgate_legacy_free(p);
    } else {
        /* every other op takes a URI input */
        if (!(u = operand(in, line, "input")))
            return 0;
        if (!strcmp(op, "to_native")) {
            set_buf(&o, pathgate_uri_to_native(&b, u, conv, NULL), &b);
        } else if (!strcmp(op, "parent")) {
            int rc = pathgate_uri_parent(&r, u, NULL);
            if (rc == 0 && r) {
                ok = check_reparse(r, line);
                /* a parent is an ancestor (unless an encoded separator
                 * makes starts_with fail closed) */
                if (!strchr(in->s, '%') && !pathgate_uri_starts_with(u, r)) {
                    print_error("%s:%d: the parent is no ancestor\n", g_file, line);
                    ok = 0;
                }
            }
            set_uri(&o, rc, r);
        } else if (!strcmp(op, "basename")) {
            set_buf(&o, pathgate_uri_basename(&b, u, NULL), &b);
        } else if (!strcmp(op, "join") || !strcmp(op, "join_descendant")) {
            int rc = !strcmp(op, "join")
                         ? pathgate_uri_join(&r, u, arg->s, arg->n, NULL)
                         : pathgate_uri_join_descendant(&r, u, arg->s, arg->n, NULL);
            if (rc == 0)
                ok = check_reparse(r, line);
            set_uri(&o, rc, r);
        } else if (!strcmp(op, "starts_with") || !strcmp(op, "relative_to") ||
                   !strcmp(op, "equal")) {
            if (!(v = operand(arg, line, "arg"))) {
                pathgate_uri_free(u);
                return 0;
            }
            if (!strcmp(op, "starts_with")) {
                set_bool(&o, pathgate_uri_starts_with(u, v));
            } else if (!strcmp(op, "relative_to")) {
                set_buf(&o, pathgate_uri_relative_to(&b, u, v, NULL), &b);
            } else {
                int eq = pathgate_uri_equal(u, v);
                if (eq != pathgate_uri_equal(v, u)) {
                    print_error("%s:%d: equal is not symmetric\n", g_file, line);
                    ok = 0;
                }
                if (eq && pathgate_uri_hash(u) != pathgate_uri_hash(v)) {
                    print_error("%s:%d: equal URIs hash differently\n", g_file, line);
                    ok = 0;
                }
                set_bool(&o, eq);
            }
        } else if (!strcmp(op, "convention")) {
            const char *name = pathgate_convention_name(pathgate_uri_convention(u));
            if (name)
                set_text(&o, name, strlen(name));
            else
                o.absent = 1;
        } else if (!strcmp(op, "is_opaque")) {
            set_bool(&o, pathgate_uri_is_opaque(u));
        } else if (!strcmp(op, "display")) {
            set_buf(&o, pathgate_uri_display(&b, u), &b);
        } else if (!strcmp(op, "ancestors")) {
            /* the URIs joined by ' ' */
            char buf[4096];
            size_t n = 0;
            for (size_t k = 0;; k++) {
                pathgate_uri *an = NULL;
                int rc = pathgate_uri_ancestor(&an, u, k, NULL);
                if (rc || !an)
                    break;
                size_t al;
                const char *as = pathgate_uri_string(an, &al);
                if (n)
                    buf[n++] = ' ';
                memcpy(buf + n, as, al);
                n += al;
                pathgate_uri_free(an);
            }
            set_text(&o, buf, n);
        } else if (!strcmp(op, "encoded_path")) {
            size_t n;
            const char *p = pathgate_uri_encoded_path(u, &n);
            set_text(&o, p, n);
        } else if (!strcmp(op, "decoded_path")) {
            set_buf(&o, pathgate_uri_decoded_path(&b, u, NULL), &b);
        } else if (!strcmp(op, "lexical_depth")) {
            size_t d;
            char num[32];
            if (pathgate_uri_lexical_depth(&d, u))
                set_text(&o, num, (size_t)snprintf(num, sizeof num, "%zu", d));
            else
                o.absent = 1;
        } else if (!strcmp(op, "overlaps")) {
            if (!(v = operand(arg, line, "arg"))) {
                pathgate_uri_free(u);
                return 0;
            }
            int ov = pathgate_uri_overlaps(u, v);
            if (ov != pathgate_uri_overlaps(v, u)) {
                print_error("%s:%d: overlaps is not symmetric\n", g_file, line);
                ok = 0;
            }
            if (ov < 0)
                o.absent = 1;
            else
                set_bool(&o, ov);
        } else if (!strcmp(op, "join_bytes")) {
            int rc = pathgate_uri_join_bytes(&r, u, arg->s, arg->n, NULL);
            if (rc == 0)
                ok = check_reparse(r, line);
            set_uri(&o, rc, r);
        } else if (!strcmp(op, "validate_config") || !strcmp(op, "validate_glob")) {
            int rc = !strcmp(op, "validate_config")
                         ? pathgate_uri_validate_config(u, conv, NULL)
                         : pathgate_uri_validate_glob_directory(u, conv, NULL);
            o.rc = rc;
            if (rc == 0)
                set_text(&o, "ok", 2);
        } else if (!strcmp(op, "from_uri")) {
            pathgate_legacy *p = NULL;
            int rc = pathgate_legacy_from_uri(&p, u, conv, NULL);
            o.rc = rc;
            if (rc == 0) {
                size_t n;
                const char *t = pathgate_legacy_text(p, &n);
                set_text(&o, t, n);
            }
            pathgate_legacy_free(p);
        } else if (!strcmp(op, "host_path")) {
            set_buf(&o, pathgate_uri_to_host_path(&b, u, NULL), &b);
        } else {
            print_error("%s:%d: unknown op \"%s\"\n", g_file, line, op);
            ok = 0;
        }
    }
    pathgate_uri_free(u);
    pathgate_uri_free(v);

    /* compare with expected */
    int match;
    char got[600];
    if (o.rc)
        snprintf(got, sizeof got, "!%s", pathgate_errname(o.rc));
    else if (o.absent)
        snprintf(got, sizeof got, "\\N");
    else
        snprintf(got, sizeof got, "\"%.*s\"", (int)(o.n > 500 ? 500 : o.n), o.s);
    if (exp->absent)
        match = o.rc == 0 && o.absent;
    else if (exp->n && exp->s[0] == '!')
        match = o.rc != 0 && strcmp(pathgate_errname(o.rc), exp->s + 1) == 0;
    else
        match = o.rc == 0 && !o.absent && o.n == exp->n && memcmp(o.s, exp->s, o.n) == 0;
    if (!match)
        print_error("%s:%d: %s \"%s\" \"%s\": expected \"%s\", got %s\n", g_file, line, op, in->s,
                    arg->absent ? "\\N" : arg->s, exp->absent ? "\\N" : exp->s, got);
    free(o.s);
    return ok && match;
}

/* Runs every case of tests/data/<name>; min is the least number of cases. */
static void run_table(const char *name, int min)
{
    const char *src = getenv("PATHGATE_SOURCE_DIR");
    assert_non_null(src);
    char path[4096];
    g_file = name;
    snprintf(path, sizeof path, "%s/tests/data/%s", src, name);
    size_t size;
    char *text = pg_read_file(path, &size);
    assert_non_null(text);
    int lineno = 0, cases = 0, failed = 0, other_host = 0;
    for (char *line = text, *end; line < text + size; line = end + 1) {
        lineno++;
        end = memchr(line, '\n', (size_t)(text + size - line));
        if (!end)
            end = text + size;
        size_t n = (size_t)(end - line);
        *end = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        /* split into exactly four fields */
        const char *f[4];
        size_t fl[4];
        size_t start = 0;
        int k = 0;
        for (size_t i = 0; i <= n && k < 5; i++) {
            if (i == n || line[i] == '\t') {
                if (k < 4) {
                    f[k] = line + start;
                    fl[k] = i - start;
                }
                k++;
                start = i + 1;
            }
        }
        cases++;
        if (k != 4) {
            print_error("%s:%d: expected 4 fields, got %d\n", g_file, lineno, k);
            failed++;
            continue;
        }
        char op[32];
        snprintf(op, sizeof op, "%.*s", (int)fl[0], f[0]);
        field in, arg, exp;
        int bad =
            unescape(&in, f[1], fl[1]) | unescape(&arg, f[2], fl[2]) | unescape(&exp, f[3], fl[3]);
        if (bad) {
            print_error("%s:%d: malformed escape\n", g_file, lineno);
            failed++;
        } else {
            int r = run_case(lineno, op, &in, &arg, &exp);
            failed += r == 0;
            other_host += r < 0;
        }
        free(in.s);
        free(arg.s);
        free(exp.s);
    }
    free(text);
    print_message("%s: %d cases, %d failed, %d for another host\n", name, cases, failed,
                  other_host);
    assert_true(cases - other_host >= min);
    assert_int_equal(failed, 0);
}

static void test_table(void **state)
{
    (void)state;
    run_table("uri_cases.tsv", 300);
}

static void test_codex_table(void **state)
{
    (void)state;
    run_table("uri_codex.tsv", 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_codex_table),
    };
    return cmocka_run_group_tests_name("uri_cases", tests, NULL, NULL);
}
