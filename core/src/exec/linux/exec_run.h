/*
 * exec_run.h - internal: one contained run given the bases directly.
 *
 * The seam between the resolver (which owns the base fds, turns the cwd
 * address into an fd and keeps the prepared views) and the sandbox
 * machinery: exec.c collects the resolver's bases into a target and calls
 * pathgate__exec_run_target. Tests call pathgate__exec_run_grants with
 * directories of their own.
 */
#ifndef PATHGATE_EXEC_RUN_H
#define PATHGATE_EXEC_RUN_H

#include <stddef.h>

#include "exec_plan.h"
#include "exec_sandbox.h"
#include "pathgate/exec.h"

/* Plans and runs the command against the target (exec_plan.h). opts->cwd
 * and opts->home are ignored here (the target has them). Contract of
 * pathgate_exec_run otherwise. */
int pathgate__exec_run_target(pathgate_exec_result *out, const pathgate_allocator *alloc,
                              const pathgate__exec_target *target, const char *command, size_t len,
                              const pathgate_exec_options *opts, pathgate_error *err);

/* The same with the grants as bases, cwd_fd as the working directory
 * (cwd_view: its absolute path in the view; NULL = no view, as if
 * namespaces were unavailable), a private home and a prepared view made
 * for this run only. */
int pathgate__exec_run_grants(pathgate_exec_result *out, const pathgate_allocator *alloc,
                              const pathgate__exec_grant *grants, size_t ngrants, int cwd_fd,
                              const char *cwd_view, const char *command, size_t len,
                              const pathgate_exec_options *opts, pathgate_error *err);

#endif
