/* test_winname.c - the Windows name rules (core/src/lex/winname.c): every row of
 * tests/data/windows_names.tsv, and cap-std's device table (windows_open_special:
 * each device name with 13 suffixes). Lexical, so it runs on every host. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>

#include "winname.h"

static const char *const verdicts[] = {
    [PATHGATE__WINNAME_OK] = "ok",
    [PATHGATE__WINNAME_EMPTY] = "empty",
    [PATHGATE__WINNAME_DOTS] = "dots",
    [PATHGATE__WINNAME_UTF8] = "utf8",
    [PATHGATE__WINNAME_CHAR] = "char",
    [PATHGATE__WINNAME_STREAM] = "stream",
    [PATHGATE__WINNAME_TRAILING] = "trailing",
    [PATHGATE__WINNAME_DEVICE] = "device",
    [PATHGATE__WINNAME_SHORT] = "short",
};

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

/* Unescapes s into out (room for strlen(s) bytes); the length, or -1. */
static long unescape(char *out, const char *s)
{
    if (!strcmp(s, "\\N"))
        return 0;
    long n = 0;
    for (size_t i = 0; s[i]; i++) {
        char c = s[i];
        if (c == '\\') {
            c = s[++i];
            if (c == 't')
                c = '\t';
            else if (c == 'x' && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
                c = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
                i += 2;
            } else if (c != '\\')
                return -1;
        }
        out[n++] = c;
    }
    return n;
}

static void test_table(void **state)
{
    (void)state;
    const char *src = getenv("PATHGATE_SOURCE_DIR");
    assert_non_null(src);
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/windows_names.tsv", src);
    size_t size;
    char *text = pg_read_file(path, &size);
    assert_non_null(text);
    int lineno = 0, rows = 0, failed = 0, seen[PATHGATE__WINNAME_SHORT + 1] = {0};
    for (char *line = text, *end; line < text + size; line = end + 1) {
        lineno++;
        end = memchr(line, '\n', (size_t)(text + size - line));
        if (!end)
            end = text + size;
        *end = '\0';
        if (!*line || *line == '#')
            continue;
        rows++;
        char *tab = strchr(line, '\t');
        char name[256];
        long n =
            tab && (size_t)(tab - line) < sizeof name ? (*tab = '\0', unescape(name, line)) : -1;
        if (n < 0) {
            print_error("windows_names.tsv:%d: malformed row\n", lineno);
            failed++;
            continue;
        }
        pathgate__winname got = pathgate__winname_check(name, (size_t)n);
        if (strcmp(verdicts[got], tab + 1) != 0) {
            print_error("windows_names.tsv:%d: \"%s\": expected %s, got %s\n", lineno, line,
                        tab + 1, verdicts[got]);
            failed++;
        }
        seen[got]++;
    }
    free(text);
    print_message("windows_names.tsv: %d rows, %d failed\n", rows, failed);
    assert_int_equal(failed, 0);
    assert_true(rows >= 90);
    for (int v = 0; v <= PATHGATE__WINNAME_SHORT; v++)
        assert_true(seen[v] > 0); /* every verdict has rows */
}

/* cap-std's tests/windows-open.rs windows_open_special: opening any of these
 * must fail. */
static void test_devices_with_every_suffix(void **state)
{
    (void)state;
    static const char *const devices[] = {
        "CON",  "PRN",  "AUX",  "NUL",  "COM0",        "COM1", "COM2", "COM3", "COM4",
        "COM5", "COM6", "COM7", "COM8", "COM9",        "COM¹", "COM²", "COM³", "LPT0",
        "LPT1", "LPT2", "LPT3", "LPT4", "LPT5",        "LPT6", "LPT7", "LPT8", "LPT9",
        "LPT¹", "LPT²", "LPT³", "con",  "lpt\xC2\xB2", "Aux",
    };
    static const char *const suffixes[] = {
        "",          ".",          ". ",         ".ext",        ".ext.",       ".ext. ", ".ext ",
        ".ext.more", ".ext.more.", ".ext.more ", ".ext.more. ", ".ext.more .", " ",
    };
    int count = 0;
    for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++) {
        for (size_t s = 0; s < sizeof suffixes / sizeof suffixes[0]; s++) {
            char name[64];
            snprintf(name, sizeof name, "%s%s", devices[d], suffixes[s]);
            pathgate__winname got = pathgate__winname_check(name, strlen(name));
            if (got != PATHGATE__WINNAME_DEVICE)
                fail_msg("\"%s\": expected device, got %s", name, verdicts[got]);
            pathgate_error err = PATHGATE_ERROR_INIT;
            assert_int_equal(pathgate__winname_error(&err, got), PATHGATE_EINVALIDPATH);
            assert_non_null(strstr(err.message, "device name"));
            count++;
        }
    }
    assert_int_equal(count, 33 * 13);
    pathgate_error err = PATHGATE_ERROR_INIT;
    assert_int_equal(pathgate__winname_error(&err, PATHGATE__WINNAME_OK), PATHGATE_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_devices_with_every_suffix),
    };
    return cmocka_run_group_tests_name("winname", tests, NULL, NULL);
}
