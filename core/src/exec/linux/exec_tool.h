/*
 * exec_tool.h - internal: the toolchains of the host shown to a command
 * (the `toolchains` option; docs/exec.md "Toolchains of the host").
 *
 * Each entry is opened and checked as a root is (an existing directory,
 * not `/`, not a home directory nor an ancestor of one), given its place
 * in the view (/pathgate/tool/<last component>, or its own host path when
 * the operator asked for it: then it must not be, hold or lie in one of
 * the view's own entries) and granted read and execute by Landlock, never
 * write. Messages name the entry's index, never its path.
 */
#ifndef PATHGATE_EXEC_TOOL_H
#define PATHGATE_EXEC_TOOL_H

#include <stddef.h>

#include "pathgate/common.h"
#include "pathgate/exec.h"

/* Where the toolchains are, in the view (default place). */
#define PATHGATE__VIEW_TOOLS "/pathgate/tool"

typedef struct pathgate__exec_toolchain {
    int fd;    /* O_PATH directory */
    char *dst; /* its path in the view */
} pathgate__exec_toolchain;

typedef struct pathgate__exec_tools {
    pathgate_allocator alloc;
    pathgate__exec_toolchain t[PATHGATE_EXEC_TOOLCHAINS_MAX];
    size_t n;
    int at_host_path;
    /* "<dst>/bin:" for each one that has a bin directory, in order; NULL
     * when none has */
    char *path;
    /* what the prepared view is keyed by: each dst, device and inode */
    char *key;
} pathgate__exec_tools;

/* Opens and checks list (NULL-terminated; NULL = none) into *out.
 * base_home: the home is a directory of a base (the `home` option), so a
 * toolchain at its host path need not keep out of the private one
 * ("/home/<name>", which would cover it). alloc NULL = libc. 0, or
 * PATHGATE_EINVAL / ETOOLONG / ENOMEM with err set; *out is to be
 * disposed either way. */
int pathgate__exec_tools_open(pathgate__exec_tools *out, const pathgate_allocator *alloc,
                              const char *const *list, int at_host_path, int base_home,
                              pathgate_error *err);

void pathgate__exec_tools_dispose(pathgate__exec_tools *t);

#endif
