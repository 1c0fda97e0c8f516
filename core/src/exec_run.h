/*
 * exec_run.h - internal: one contained run given the grants directly.
 *
 * The seam between the resolver (which owns the base fds and turns the cwd
 * address into an fd) and the sandbox machinery: exec.c collects the
 * resolver's bases into grants and calls this. Tests call it with
 * directories of their own.
 */
#ifndef PATHGATE_EXEC_RUN_H
#define PATHGATE_EXEC_RUN_H

#include <stddef.h>

#include "exec_sandbox.h"
#include "pathgate/exec.h"

/* Validates the command and options, makes the private temporary
 * directory, builds the Landlock ruleset from `grants` (+ the temporary
 * directory + the system paths), runs the command with cwd_fd as its
 * working directory (cwd_view: its absolute path in the view; NULL = no
 * view, as if namespaces were unavailable), cleans up. opts->cwd is ignored here. Contract of
 * pathgate_exec_run otherwise. */
int pathgate__exec_run_grants(pathgate_exec_result *out, const pathgate_allocator *alloc,
                              const pathgate__exec_grant *grants, size_t ngrants, int cwd_fd,
                              const char *cwd_view, const char *command, size_t len,
                              const pathgate_exec_options *opts, pathgate_error *err);

/* Validates a caller's options struct (NULL = defaults) into *dst with the
 * defaults applied. 0 or PATHGATE_EINVAL. */
int pathgate__exec_options_check(pathgate_exec_options *dst, const pathgate_exec_options *opts,
                                 pathgate_error *err);

#endif
