/*
 * bench_uri.c - throughput of the PathUri conversions over a fixed mixed
 * corpus (Windows drive, UNC, POSIX, non-ASCII, spaces and reserved
 * characters).
 *
 *   bench_uri [SECONDS]   measures, for about SECONDS (default 1) each,
 *                         best of 3 rounds:
 *                           native_to_uri    from_native(text, conv) + string + free
 *                           parse_to_native  parse(uri) + to_native + free
 *                         and prints `<name> <ops/s>` lines
 *   bench_uri SECONDS NAME  measures only NAME (for a profiler)
 *   bench_uri --count N NAME  runs NAME exactly N times over the corpus
 *                         (N * corpus size operations) and prints nothing
 *                         else: callgrind's instructions/op are the
 *                         difference of two counts over the difference
 *                         of their operations (bench_uri.py --callgrind)
 *   bench_uri --corpus    prints the corpus, one `conv<TAB>native<TAB>uri`
 *                         line per path, so bench_uri.py runs the same
 *                         work with pathlib
 *
 * It asserts nothing about time; bench_uri.py prints the ratios.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pathgate/pathgate.h"

typedef struct item {
    pathgate_convention conv;
    const char *native;
} item;

#define W PATHGATE_CONVENTION_WINDOWS
#define P PATHGATE_CONVENTION_POSIX

static const item corpus[] = {
    {W, "C:\\Users\\Ada\\Documents\\report.txt"},
    {W, "C:\\Program Files\\Common Files\\system\\ado\\msado15.dll"},
    {W, "D:\\projects\\pathgate\\core\\src\\uri_native.c"},
    {W, "E:\\Music\\Sigur R\xC3\xB3s\\()\\01 Untitled.flac"},
    {W, "C:\\Users\\Jos\xC3\xA9\\M\xC3\xBAsica\\canci\xC3\xB3n #1.mp3"},
    {W, "C:\\Windows\\System32\\drivers\\etc\\hosts"},
    {W,
     "Z:\\\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\\\xE3\x83\x95\xE3\x82\xA1\xE3\x82\xA4\xE3\x83\xAB."
     "txt"},
    {W, "C:\\tmp\\100% done\\a&b=c;d.txt"},
    {W, "\\\\fileserver\\share\\team\\plan.docx"},
    {W, "\\\\nas01\\backup\\2024\\q1\\db dump.sql.gz"},
    {W, "\\\\build-agent\\artifacts\\pathgate\\v0.1.0\\pathgate.zip"},
    {W, "\\\\srv\\\xD0\xBE\xD0\xB1\xD1\x89\xD0\xB8\xD0\xB9\\\xD1\x84\xD0\xB0\xD0\xB9\xD0\xBB.txt"},
    {P, "/usr/share/doc/README"},
    {P, "/home/ada/notes/todo.txt"},
    {P, "/home/ada/My Documents/a b.txt"},
    {P, "/var/lib/postgresql/15/main/base/16384/2619"},
    {P,
     "/home/zo\xC3\xAB/\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E/\xD1\x84\xD0\xB0\xD0\xB9\xD0\xBB.txt"},
    {P, "/tmp/100% done #1?.txt"},
    {P, "/srv/www/htdocs/index.html"},
    {P, "/opt/app/lib/python3.11/site-packages/pkg/__init__.py"},
    {P, "/home/ada/src/pathgate/tests/data/uri_cases.tsv"},
    {P, "/mnt/c/Users/Ada/Desktop/screenshot (1).png"},
    {P, "/home/ada/.config/app/settings.json"},
    {P, "/data/caf\xC3\xA9/cr\xC3\xA8me br\xC3\xBBl\xC3\xA9\x65.md"},
};
#define NCORPUS (sizeof corpus / sizeof corpus[0])

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keeps the compiler from dropping the work. */
static volatile size_t sink;

/* The length of each native path and URI, as a caller holding a string
 * object knows it (pathlib's str has its length too). */
static size_t native_lens[NCORPUS], uri_lens[NCORPUS];

static int native_to_uri(size_t i, char **uris)
{
    (void)uris;
    pathgate_uri *u = NULL;
    int rc =
        pathgate_uri_from_native(&u, corpus[i].native, native_lens[i], corpus[i].conv, NULL, NULL);
    if (rc)
        return rc;
    size_t len;
    sink += (size_t)pathgate_uri_string(u, &len)[0] + len;
    pathgate_uri_free(u);
    return 0;
}

static int parse_to_native(size_t i, char **uris)
{
    pathgate_uri *u = NULL;
    int rc = pathgate_uri_parse(&u, uris[i], uri_lens[i], NULL, NULL);
    if (rc)
        return rc;
    pathgate_buf b = PATHGATE_BUF_INIT;
    rc = pathgate_uri_to_native(&b, u, corpus[i].conv, NULL);
    if (rc == 0)
        sink += b.len;
    pathgate_buf_dispose(&b);
    pathgate_uri_free(u);
    return rc;
}

/* ops/s of fn over the corpus: best of 3 rounds of about `seconds`. */
static double measure(int (*fn)(size_t, char **), char **uris, double seconds)
{
    double best = 0;
    for (int round = 0; round < 3; round++) {
        long ops = 0;
        double t0 = now(), t;
        do {
            for (int rep = 0; rep < 64; rep++)
                for (size_t i = 0; i < NCORPUS; i++) {
                    if (fn(i, uris) != 0) {
                        fprintf(stderr, "bench_uri: conversion of corpus item %zu failed\n", i);
                        exit(1);
                    }
                    ops++;
                }
            t = now() - t0;
        } while (t < seconds);
        double rate = (double)ops / t;
        if (rate > best)
            best = rate;
    }
    return best;
}

int main(int argc, char **argv)
{
    char *uris[NCORPUS];
    for (size_t i = 0; i < NCORPUS; i++) {
        pathgate_uri *u = NULL;
        pathgate_error err;
        native_lens[i] = strlen(corpus[i].native);
        if (pathgate_uri_from_native(&u, corpus[i].native, strlen(corpus[i].native), corpus[i].conv,
                                     NULL, &err) != 0) {
            fprintf(stderr, "bench_uri: corpus item %zu: %s\n", i, err.message);
            return 1;
        }
        uris[i] = strdup(pathgate_uri_string(u, &uri_lens[i]));
        pathgate_uri_free(u);
        if (!uris[i])
            return 1;
    }
    int status = 0;
    if (argc > 3 && strcmp(argv[1], "--count") == 0) {
        long n = atol(argv[2]);
        int (*fn)(size_t, char **) = strcmp(argv[3], "native_to_uri") == 0     ? native_to_uri
                                     : strcmp(argv[3], "parse_to_native") == 0 ? parse_to_native
                                                                               : NULL;
        if (!fn || n < 0) {
            fprintf(stderr, "usage: bench_uri --count N native_to_uri|parse_to_native\n");
            status = 2;
        }
        for (long r = 0; fn && r < n; r++)
            for (size_t i = 0; i < NCORPUS; i++)
                if (fn(i, uris) != 0) {
                    fprintf(stderr, "bench_uri: conversion of corpus item %zu failed\n", i);
                    status = 1;
                }
    } else if (argc > 1 && strcmp(argv[1], "--corpus") == 0) {
        for (size_t i = 0; i < NCORPUS; i++)
            printf("%s\t%s\t%s\n", pathgate_convention_name(corpus[i].conv), corpus[i].native,
                   uris[i]);
    } else {
        double seconds = argc > 1 ? atof(argv[1]) : 1.0;
        if (!(seconds > 0)) {
            fprintf(stderr, "usage: bench_uri [SECONDS] | --corpus\n");
            status = 2;
        } else {
            const char *only = argc > 2 ? argv[2] : NULL;
            printf("corpus %zu\n", NCORPUS);
            if (!only || strcmp(only, "native_to_uri") == 0)
                printf("native_to_uri %.0f\n", measure(native_to_uri, uris, seconds));
            if (!only || strcmp(only, "parse_to_native") == 0)
                printf("parse_to_native %.0f\n", measure(parse_to_native, uris, seconds));
        }
    }
    for (size_t i = 0; i < NCORPUS; i++)
        free(uris[i]);
    return status;
}
