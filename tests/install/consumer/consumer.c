/* A program built against an installed pathgate (pkg-config or CMake's
 * find_package): resolves the base itself and refuses an escape. */
#include <pathgate/pathgate.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    pathgate_base_spec roots[] = {{"repo", 4, ".", 1, 0}};
    pathgate_resolver_options opts = PATHGATE_RESOLVER_OPTIONS_INIT;
    opts.roots = roots;
    opts.nroots = 1;
    pathgate_resolver *resolver = NULL;
    pathgate_error err;
    if (pathgate_resolver_new(&resolver, &opts, &err) != 0) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    int status = 0;
    const char *inputs[] = {"ROOT_REPO:/", "root:repo/../../etc/passwd"};
    for (int i = 0; i < 2; i++) {
        pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
        if (pathgate_resolver_resolve(&res, resolver, inputs[i], strlen(inputs[i]), NULL, &err) !=
            0) {
            status = 1;
            continue;
        }
        const char *answer = res.ok ? pathgate_ref_address(res.ref, NULL) : res.error_message;
        printf("%s -> %s\n", inputs[i], answer);
        if (res.ok != (i == 0))
            status = 1;
        pathgate_resolution_dispose(&res);
    }
    pathgate_resolver_free(resolver);
    return status;
}
