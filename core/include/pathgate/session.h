/*
 * pathgate/session.h - a home root and a working-directory stack of
 * canonical addresses, belonging to one resolver (docs/spec.md section 6).
 *
 * Relative input resolves against the top of the stack, or the home root
 * when the stack is empty. The process working directory is never changed.
 * A session is guarded by its own lock; its resolver must outlive it.
 *
 * Refusals return a negative code with the message in err:
 *   unknown key           PATHGATE_EUNKNOWNROOT
 *   `cd` to a subdirectory PATHGATE_ESUBDIRHOME  "Subdirectory homing not allowed"
 *   push beyond 100        PATHGATE_EOVERFLOW    "directory stack overflow (max 100)"
 *   push of a non-directory PATHGATE_ENOTDIR
 *   an invalid address     PATHGATE_EINVALIDPATH "Invalid path / not found"
 * and leave the session unchanged. Messages name canonical addresses only.
 */
#ifndef PATHGATE_SESSION_H
#define PATHGATE_SESSION_H

#include "common.h"
#include "resolver.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PATHGATE_SESSION_MAX_DEPTH 100

typedef struct pathgate_session pathgate_session;

/* home: `root:<key>` or a bare key, NULL for the resolver's first root.
 * Uses the resolver's allocator. */
PATHGATE_EXTERN int pathgate_session_new(pathgate_session **out, pathgate_resolver *resolver,
                                         const char *home, size_t home_len, pathgate_error *err);
/* NULL is a no-op. */
PATHGATE_EXTERN void pathgate_session_free(pathgate_session *session);

/* Home address (`root:<key>`), cwd address (top of stack or home) and stack
 * depth, as one consistent snapshot. Any out-parameter may be NULL. */
PATHGATE_EXTERN int pathgate_session_get(pathgate_buf *home, pathgate_buf *cwd, size_t *depth,
                                         pathgate_session *session, pathgate_error *err);

/* The cwd address. */
PATHGATE_EXTERN int pathgate_session_pwd(pathgate_buf *cwd, pathgate_session *session,
                                         pathgate_error *err);

/* `cd root:<key>` or `cd <key>`: sets the home root and clears the stack;
 * message gets the new home address. */
PATHGATE_EXTERN int pathgate_session_cd(pathgate_buf *message, pathgate_session *session,
                                        const char *text, size_t len, pathgate_error *err);

/* Pushes an existing directory (any accepted input form; relative input is
 * relative to the cwd). message gets the new cwd address, or
 * `already in <address>` (nothing pushed) when it is the current one. */
PATHGATE_EXTERN int pathgate_session_push(pathgate_buf *message, pathgate_session *session,
                                          const char *text, size_t len, pathgate_error *err);

/* Restores the previous cwd exactly; message gets the restored cwd address,
 * or `Stack is empty, already at initial directory: <address>` (not an
 * error) when the stack is empty. */
PATHGATE_EXTERN int pathgate_session_pop(pathgate_buf *message, pathgate_session *session,
                                         pathgate_error *err);

/* resolve() with the session's cwd as base. */
PATHGATE_EXTERN int pathgate_session_resolve(pathgate_resolution *out, pathgate_session *session,
                                             const char *text, size_t len, int require_exists,
                                             pathgate_error *err);

/* The session's resolver. */
PATHGATE_EXTERN pathgate_resolver *pathgate_session_resolver(pathgate_session *session);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_SESSION_H */
