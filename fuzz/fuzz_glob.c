/* fuzz_glob.c - the glob matcher (core/src/lex/glob.c) on arbitrary
 * bytes: the input is `pattern \n path`. Every pattern compiles or fails
 * with a code of the table; for a compiled one:
 *  - match_path equals stepping the names one at a time;
 *  - pruning is sound: when a path matches, no directory on the way was
 *    reported as "nothing below can match";
 *  - for simple patterns (ASCII letters, `.`, `*`, `?`, no `/`) on simple
 *    paths (no directory starting with `.`) the answer is fnmatch's on the
 *    last name with FNM_PERIOD: the reference the any-depth rule reduces
 *    to. */
#include <fnmatch.h>

#include "fuzz_common.h"
/* core/src is not on the fuzzers' include path */
#include "../core/src/lex/glob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int simple_pattern(const char *p, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!((c >= 'a' && c <= 'z') || c == '.' || c == '*' || c == '?'))
            return 0;
    }
    /* `**` is a whole-segment directory wildcard, not fnmatch's */
    return !(n == 2 && p[0] == '*' && p[1] == '*');
}

/* Non-empty names of [a-z.], none "." or "..", no directory starting with
 * '.', no leading, trailing or doubled '/'. */
static int simple_path(const char *p, size_t n, size_t *last)
{
    if (n == 0 || p[0] == '/' || p[n - 1] == '/')
        return 0;
    size_t i = 0;
    while (i < n) {
        size_t e = i;
        while (e < n && p[e] != '/') {
            if (!((p[e] >= 'a' && p[e] <= 'z') || p[e] == '.'))
                return 0;
            e++;
        }
        size_t len = e - i;
        if (len == 0 || (len == 1 && p[i] == '.') || (len == 2 && p[i] == '.' && p[i + 1] == '.'))
            return 0;
        if (e < n && p[i] == '.')
            return 0; /* a dot directory: the any-depth rule does not enter it */
        *last = i;
        i = e + 1;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    const char *nl = memchr(in, '\n', size);
    size_t plen = nl ? (size_t)(nl - in) : size;
    const char *path = nl ? nl + 1 : "";
    size_t len = nl ? size - plen - 1 : 0;

    pathgate__glob *g = NULL;
    pathgate_error err;
    int rc = pathgate__glob_compile(&g, in, plen, NULL, &err);
    if (rc < 0) {
        fz_known_error(rc);
        FZ_CHECK(g == NULL, "out set on failure");
        FZ_CHECK(err.code == rc, "err.code %d != rc %d", err.code, rc);
        return 0;
    }
    size_t ss = pathgate__glob_state_size(g);
    unsigned char *cur = malloc(ss), *next = malloc(ss);
    FZ_CHECK(cur && next, "malloc");
    pathgate__glob_start(g, cur);
    int pruned = 0;
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && path[e] != '/')
            e++;
        if (e > i) {
            int more = pathgate__glob_step(g, next, cur, path + i, e - i);
            unsigned char *t = cur;
            cur = next;
            next = t;
            /* a name followed by more of the path is a directory */
            size_t rest = e;
            while (rest < len && path[rest] == '/')
                rest++;
            if (rest < len && !more)
                pruned = 1;
        }
        i = e + 1;
    }
    int stepped = pathgate__glob_accepts(g, cur);
    int m = pathgate__glob_match_path(g, path, len);
    FZ_CHECK(m == stepped, "match_path %d, stepping %d: '%.*s' vs '%.*s'", m, stepped, (int)plen,
             in, (int)len, path);
    FZ_CHECK(!(m && pruned), "a directory on the way to a match was pruned: '%.*s' vs '%.*s'",
             (int)plen, in, (int)len, path);

    size_t last = 0;
    if (simple_pattern(in, plen) && simple_path(path, len, &last) && plen < 256 && len < 4096) {
        char pat[256], name[4096];
        memcpy(pat, in, plen);
        pat[plen] = '\0';
        memcpy(name, path + last, len - last);
        name[len - last] = '\0';
        int want = fnmatch(pat, name, FNM_PERIOD) == 0;
        FZ_CHECK(m == want, "glob %d, fnmatch %d: '%s' vs '%.*s'", m, want, pat, (int)len, path);
    }
    free(cur);
    free(next);
    pathgate__glob_free(g);
    return 0;
}
