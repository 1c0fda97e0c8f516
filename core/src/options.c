/* options.c - the *_options_init functions beside the *_OPTIONS_INIT
 * macros, for callers that cannot use C macros (bindings to other
 * languages, FFI). Each writes exactly what its macro gives. */
#include "pathgate/exec.h"
#include "pathgate/fs.h"
#include "pathgate/resolver.h"

#define OPTIONS_INIT(type, macro, want)                                                            \
    do {                                                                                           \
        if (!opts || version != (want))                                                            \
            return PATHGATE_EINVAL;                                                                \
        const type init_ = macro;                                                                  \
        *opts = init_;                                                                             \
        return PATHGATE_OK;                                                                        \
    } while (0)

int pathgate_resolver_options_init(pathgate_resolver_options *opts, unsigned int version)
{
    OPTIONS_INIT(pathgate_resolver_options, PATHGATE_RESOLVER_OPTIONS_INIT,
                 PATHGATE_RESOLVER_OPTIONS_VERSION);
}

int pathgate_resolve_options_init(pathgate_resolve_options *opts, unsigned int version)
{
    OPTIONS_INIT(pathgate_resolve_options, PATHGATE_RESOLVE_OPTIONS_INIT,
                 PATHGATE_RESOLVE_OPTIONS_VERSION);
}

int pathgate_fs_options_init(pathgate_fs_options *opts, unsigned int version)
{
    OPTIONS_INIT(pathgate_fs_options, PATHGATE_FS_OPTIONS_INIT, PATHGATE_FS_OPTIONS_VERSION);
}

int pathgate_fs_search_options_init(pathgate_fs_search_options *opts, unsigned int version)
{
    OPTIONS_INIT(pathgate_fs_search_options, PATHGATE_FS_SEARCH_OPTIONS_INIT,
                 PATHGATE_FS_SEARCH_OPTIONS_VERSION);
}

int pathgate_exec_options_init(pathgate_exec_options *opts, unsigned int version)
{
    OPTIONS_INIT(pathgate_exec_options, PATHGATE_EXEC_OPTIONS_INIT, PATHGATE_EXEC_OPTIONS_VERSION);
}

int pathgate_policy_options_init(pathgate_policy_options *opts, unsigned int version)
{
    OPTIONS_INIT(pathgate_policy_options, PATHGATE_POLICY_OPTIONS_INIT,
                 PATHGATE_POLICY_OPTIONS_VERSION);
}
