/*
 * bench_patch.c - the native process bench/bench_patch.py times beside
 * GNU patch: applies one patch file to one root with
 * pathgate_fs_apply_patch, relative paths against the root, and prints
 * Codex's summary (or the error, exit status 1), as `patch` would.
 *
 *   bench_patch ROOT_DIR PATCH_FILE [--file-by-file] [--sync]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathgate/pathgate.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_patch ROOT_DIR PATCH_FILE [--file-by-file] [--sync]\n");
        return 2;
    }
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
        perror("bench_patch: the patch");
        return 2;
    }
    size_t cap = 1 << 20, n = 0, r;
    char *patch = malloc(cap);
    while (patch && (r = fread(patch + n, 1, cap - n, f)) > 0)
        if ((n += r) == cap)
            patch = realloc(patch, cap *= 2);
    fclose(f);
    if (!patch)
        return 2;
    pathgate_base_spec roots[1] = {{"t", 1, argv[1], strlen(argv[1]), 0}};
    pathgate_resolver_options o = PATHGATE_RESOLVER_OPTIONS_INIT;
    o.roots = roots;
    o.nroots = 1;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_resolver *res = NULL;
    pathgate_session *s = NULL;
    if (pathgate_resolver_new(&res, &o, &err) < 0 ||
        pathgate_session_new(&s, res, "t", 1, &err) < 0) {
        fprintf(stderr, "bench_patch: %s\n", err.message);
        return 2;
    }
    pathgate_fs_options opts = PATHGATE_FS_OPTIONS_INIT;
    opts.session = s;
    for (int i = 3; i < argc; i++)
        opts.flags |= !strcmp(argv[i], "--file-by-file") ? PATHGATE_FS_PATCH_FILE_BY_FILE
                      : !strcmp(argv[i], "--sync")       ? PATHGATE_FS_PATCH_SYNC
                                                         : 0;
    pathgate_fs_patch_result out = PATHGATE_FS_PATCH_RESULT_INIT;
    int rc = pathgate_fs_apply_patch(&out, NULL, patch, n, &opts, &err);
    int status = 0;
    if (rc < 0) {
        fprintf(stderr, "bench_patch: %s\n", err.message);
        status = 2;
    } else if (out.code) {
        fprintf(stderr, "%s\n", out.error.ptr);
        status = 1;
    } else {
        fputs(out.output.ptr, stdout);
    }
    pathgate_fs_patch_result_dispose(&out);
    pathgate_session_free(s);
    pathgate_resolver_free(res);
    free(patch);
    return status;
}
