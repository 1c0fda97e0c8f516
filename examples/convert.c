/*
 * convert.c - pathgate-convert: native paths <-> file:// URIs.
 *
 *   pathgate-convert               converts a built-in set of Windows drive,
 *                                  UNC, device-alias, POSIX, non-ASCII and
 *                                  space-containing paths to URIs and back,
 *                                  then shows conversions that must fail
 *   pathgate-convert ARG...        converts each argument: a file: URI to
 *                                  its native path, anything else to a URI
 *                                  (convention inferred) and back
 *
 * Exit status 0 when every requested conversion succeeded (the built-in
 * failures are expected and counted as success when they fail as shown),
 * 1 otherwise.
 */
#include <stdio.h>
#include <string.h>

#include <pathgate/pathgate.h>

typedef struct sample {
    const char *what;
    const char *native;
} sample;

static const sample samples[] = {
    {"windows drive", "C:\\Users\\Ada\\Documents\\report.txt"},
    {"windows drive", "d:/projects/pathgate/README.md"},
    {"drive root", "C:\\"},
    {"UNC", "\\\\fileserver\\share\\team\\plan.docx"},
    {"device alias", "\\\\?\\C:\\Windows\\System32"},
    {"device UNC", "\\\\.\\UNC\\nas\\backup\\2024"},
    {"posix", "/usr/share/doc/README"},
    {"dot segments", "/home/ada/notes/../todo.txt"},
    {"posix root", "/"},
    {"non-ASCII",
     "/home/zo\xC3\xAB/\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E/\xD1\x84\xD0\xB0\xD0\xB9\xD0\xBB.txt"},
    {"non-ASCII", "C:\\Users\\Jos\xC3\xA9\\M\xC3\xBAsica\\canci\xC3\xB3n.mp3"},
    {"spaces", "/home/ada/My Documents/a b.txt"},
    {"spaces", "C:\\Program Files\\App Name\\app.exe"},
    {"reserved", "/tmp/100% done #1?.txt"},
};

typedef struct failure {
    const char *what;
    const char *input;
    int is_uri;                 /* input is a URI (else native text) */
    pathgate_convention target; /* for a URI: render for this convention */
    int expect;                 /* the error it must fail with */
} failure;

static const failure failures[] = {
    {"relative text", "docs/readme.txt", 0, PATHGATE_CONVENTION_NONE, PATHGATE_ENOTABS},
    {"UNC under POSIX", "file://fileserver/share/x", 1, PATHGATE_CONVENTION_POSIX,
     PATHGATE_ECONVENTION},
    {"POSIX under Windows", "file:///usr/share", 1, PATHGATE_CONVENTION_WINDOWS,
     PATHGATE_ECONVENTION},
    {"device path (opaque URI)", "\\\\.\\COM1", 0, PATHGATE_CONVENTION_NONE, PATHGATE_EOPAQUE},
    {"port in URI", "file://host:8080/x", 1, PATHGATE_CONVENTION_NONE, PATHGATE_EPORT},
    {"query in URI", "file:///x?y=1", 1, PATHGATE_CONVENTION_NONE, PATHGATE_EQUERY},
    {"other scheme", "https://example.com/x", 1, PATHGATE_CONVENTION_NONE, PATHGATE_ESCHEME},
};

/* Display width on a terminal: one column a code point, two for the wide
 * East Asian ranges (good enough for a table). */
static size_t width(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t w = 0;
    while (*s) {
        unsigned long cp = *s;
        int n = cp < 0x80 ? 0 : cp < 0xE0 ? 1 : cp < 0xF0 ? 2 : 3;
        if (n)
            cp &= 0x3Fu >> n;
        s++;
        for (int k = 0; k < n && (*s & 0xC0) == 0x80; k++, s++)
            cp = (cp << 6) | (*s & 0x3F);
        int wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                   (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                   (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                   (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
                   (cp >= 0x20000 && cp <= 0x3FFFD);
        w += wide ? 2 : 1;
    }
    return w;
}

static void cell(const char *s, size_t w)
{
    fputs(s, stdout);
    for (size_t n = width(s); n < w; n++)
        putchar(' ');
}

static const char *conv_name(pathgate_convention c)
{
    const char *n = pathgate_convention_name(c);
    return n ? n : "none";
}

/* native -> URI -> native (the URI's convention). Fills uri_s/back (or the
 * error) and returns 0 or the pathgate code. */
typedef struct row {
    char uri[PATHGATE_PATH_MAX * 3 + 64];
    char back[PATHGATE_PATH_MAX + 1];
    pathgate_convention conv;
    pathgate_error err;
} row;

static int convert(row *r, const char *native)
{
    pathgate_uri *u = NULL;
    pathgate_buf back = PATHGATE_BUF_INIT;
    r->uri[0] = r->back[0] = '\0';
    r->conv = PATHGATE_CONVENTION_NONE;
    int rc = pathgate_uri_from_native(&u, native, strlen(native), PATHGATE_CONVENTION_NONE, NULL,
                                      &r->err);
    if (rc < 0)
        return rc;
    snprintf(r->uri, sizeof r->uri, "%s", pathgate_uri_string(u, NULL));
    r->conv = pathgate_uri_convention(u);
    rc = pathgate_uri_to_native(&back, u, PATHGATE_CONVENTION_NONE, &r->err);
    if (rc == 0)
        snprintf(r->back, sizeof r->back, "%s", back.ptr);
    pathgate_buf_dispose(&back);
    pathgate_uri_free(u);
    return rc;
}

static int run_builtin(void)
{
    enum { N = sizeof samples / sizeof samples[0] };
    static row rows[N];
    size_t w_what = strlen("kind"), w_native = strlen("native"), w_uri = strlen("URI");
    int status = 0;
    for (size_t i = 0; i < N; i++) {
        if (convert(&rows[i], samples[i].native) < 0)
            status = 1;
        size_t w;
        if ((w = width(samples[i].what)) > w_what)
            w_what = w;
        if ((w = width(samples[i].native)) > w_native)
            w_native = w;
        if ((w = width(rows[i].uri)) > w_uri)
            w_uri = w;
    }
    printf("pathgate %s: native path -> file:// URI -> native path\n\n", pathgate_version());
    cell("kind", w_what + 2);
    cell("native", w_native + 4);
    cell("URI", w_uri + 4);
    puts("native (convention)");
    for (size_t i = 0; i < N; i++) {
        const row *r = &rows[i];
        cell(samples[i].what, w_what + 2);
        cell(samples[i].native, w_native);
        fputs(" -> ", stdout);
        if (!r->uri[0]) {
            printf("error %s: %s\n", pathgate_errname(r->err.code), r->err.message);
            continue;
        }
        cell(r->uri, w_uri);
        fputs(" -> ", stdout);
        if (r->back[0])
            printf("%s (%s)\n", r->back, conv_name(r->conv));
        else
            printf("error %s: %s\n", pathgate_errname(r->err.code), r->err.message);
    }

    printf("\nconversions that must fail (fail-closed):\n\n");
    size_t w_in = 0, w_fw = 0;
    for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++) {
        if (width(failures[i].input) > w_in)
            w_in = width(failures[i].input);
        if (width(failures[i].what) > w_fw)
            w_fw = width(failures[i].what);
    }
    for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++) {
        const failure *f = &failures[i];
        pathgate_uri *u = NULL;
        pathgate_buf out = PATHGATE_BUF_INIT;
        pathgate_error err = {0, ""};
        int rc;
        if (f->is_uri)
            rc = pathgate_uri_parse(&u, f->input, strlen(f->input), NULL, &err);
        else
            rc = pathgate_uri_from_native(&u, f->input, strlen(f->input), PATHGATE_CONVENTION_NONE,
                                          NULL, &err);
        const char *via = NULL;
        if (rc == 0) {
            via = pathgate_uri_string(u, NULL);
            rc = pathgate_uri_to_native(&out, u, f->target, &err);
        }
        cell(f->what, w_fw + 2);
        cell(f->input, w_in);
        if (via && !f->is_uri)
            printf(" -> %s", via);
        if (f->target != PATHGATE_CONVENTION_NONE)
            printf(" -> as %s", conv_name(f->target));
        if (rc == 0) {
            printf(" -> %s (UNEXPECTED SUCCESS)\n", out.ptr);
            status = 1;
        } else {
            printf(" -> %s: %s\n", pathgate_errname(rc), err.message);
            if (rc != f->expect)
                status = 1;
        }
        pathgate_buf_dispose(&out);
        pathgate_uri_free(u);
    }
    return status;
}

static int run_args(int argc, char **argv)
{
    int status = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        pathgate_error err = {0, ""};
        if (strncmp(a, "file:", 5) == 0 || strncmp(a, "FILE:", 5) == 0) {
            pathgate_uri *u = NULL;
            pathgate_buf out = PATHGATE_BUF_INIT;
            int rc = pathgate_uri_parse(&u, a, strlen(a), NULL, &err);
            if (rc == 0)
                rc = pathgate_uri_to_native(&out, u, PATHGATE_CONVENTION_NONE, &err);
            if (rc == 0)
                printf("%s -> %s (%s)\n", pathgate_uri_string(u, NULL), out.ptr,
                       conv_name(pathgate_uri_convention(u)));
            else {
                printf("%s -> error %s: %s\n", a, pathgate_errname(rc), err.message);
                status = 1;
            }
            pathgate_buf_dispose(&out);
            pathgate_uri_free(u);
            continue;
        }
        static row r;
        int rc = convert(&r, a);
        if (rc == 0)
            printf("%s -> %s -> %s (%s)\n", a, r.uri, r.back, conv_name(r.conv));
        else {
            printf("%s -> %s%serror %s: %s\n", a, r.uri, r.uri[0] ? " -> " : "",
                   pathgate_errname(rc), r.err.message);
            status = 1;
        }
    }
    return status;
}

int main(int argc, char **argv)
{
    return argc > 1 ? run_args(argc, argv) : run_builtin();
}
