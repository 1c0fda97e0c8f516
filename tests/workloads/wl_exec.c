/*
 * wl_exec - the workload suite's driver of the C API (tests/workloads).
 *
 *   wl_exec KEY DIR OUTPUT_CAP TIMEOUT_MS [-e KEY=VALUE]... -- COMMAND
 *
 * Builds a resolver with one root (KEY -> DIR), runs COMMAND with
 * pathgate_exec_run() in that root (the default working directory: the
 * first root), the given output cap, timeout and environment entries, and
 * writes the command's output, byte for byte, to stdout and one status
 * line to stderr:
 *
 *   exit=<exit_code> truncated=<0|1> timed_out=<0|1> protections=<bits>
 *
 * Exits 0 when the command ran (whatever its status), 2 when pathgate
 * refused or failed (the error's name and message on stderr), 64 on a
 * usage error.
 */
#include <pathgate/pathgate.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fputs("usage: wl_exec KEY DIR OUTPUT_CAP TIMEOUT_MS [-e KEY=VALUE]... -- COMMAND\n", stderr);
    return 64;
}

static int fail(const char *what, const pathgate_error *err, int code)
{
    fprintf(stderr, "wl_exec: %s: %s: %s\n", what, pathgate_errname(code),
            err->code == code ? err->message : pathgate_strerror(code));
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 7)
        return usage();
    const char *key = argv[1];
    const char *dir = argv[2];
    char *end = NULL;
    unsigned long long cap = strtoull(argv[3], &end, 10);
    if (*argv[3] == '\0' || *end != '\0')
        return usage();
    unsigned long timeout_ms = strtoul(argv[4], &end, 10);
    if (*argv[4] == '\0' || *end != '\0')
        return usage();

    /* -e entries, then "--", then exactly one command */
    const char **env = calloc((size_t)argc, sizeof *env);
    if (env == NULL)
        return 2;
    size_t nenv = 0;
    int i = 5;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "-e") != 0 || i + 1 >= argc) {
            free(env);
            return usage();
        }
        env[nenv++] = argv[++i];
    }
    if (i + 2 != argc) {
        free(env);
        return usage();
    }
    const char *command = argv[i + 1];

    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_base_spec root = {key, strlen(key), dir, strlen(dir), 0};
    pathgate_resolver_options ropts = PATHGATE_RESOLVER_OPTIONS_INIT;
    ropts.roots = &root;
    ropts.nroots = 1;
    pathgate_resolver *resolver = NULL;
    int rc = pathgate_resolver_new(&resolver, &ropts, &err);
    if (rc != 0) {
        free(env);
        return fail("resolver", &err, rc);
    }

    pathgate_exec_options opts = PATHGATE_EXEC_OPTIONS_INIT;
    opts.output_cap = (size_t)cap;
    opts.timeout_ms = (unsigned int)timeout_ms;
    opts.env = nenv > 0 ? env : NULL;
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    rc = pathgate_exec_run(&res, resolver, command, strlen(command), &opts, &err);
    int status = 0;
    if (rc != 0) {
        status = fail("exec", &err, rc);
    } else {
        if (res.output.len > 0 &&
            fwrite(res.output.ptr, 1, res.output.len, stdout) != res.output.len)
            status = 2;
        if (fflush(stdout) != 0)
            status = 2;
        fprintf(stderr, "exit=%d truncated=%d timed_out=%d protections=%u\n", res.exit_code,
                res.truncated, res.timed_out, res.protections);
    }
    pathgate_exec_result_dispose(&res);
    pathgate_resolver_free(resolver);
    free(env);
    return status;
}
