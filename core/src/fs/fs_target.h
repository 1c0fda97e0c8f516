/*
 * fs_target.h - internal: the operand of a file operation (fs_target.c):
 * input text -> (base, rel, canonical address), the options every
 * operation checks, the standard failure messages and audit events.
 * The bottom of fs/ (docs/conventions.md, "Layers").
 */
#ifndef PATHGATE_FS_TARGET_H
#define PATHGATE_FS_TARGET_H

#include <sys/types.h>

#include "pathgate/fs.h"
#include "pathgate/policy.h"
#include "os.h"

/* A resolved operand: canonical address and where it lives. */
typedef struct pathgate__fs_target {
    pathgate_resolver *r;
    const pathgate_allocator *alloc; /* the resolver's */
    size_t base;
    int base_fd;
    unsigned int base_flags; /* PATHGATE_BASE_* */
    int force_fallback;
    size_t prefix_len; /* length of the base's own address in address */
    const char *rel;   /* into address; "" at the base */
    size_t rel_len;
    size_t address_len;
    /* the policy (fs_policy.c) */
    const char *op;      /* the operation, as audit events name it */
    const char *role;    /* "source" / "destination" of a move, else NULL */
    unsigned int access; /* PATHGATE__ACCESS_READ, or _WRITE once checked writable */
    int policy;          /* rules may apply in this base: opens look for links */
    int quiet;           /* emit no audit event (an internal call) */
    char address[2 * PATHGATE_PATH_MAX + 2];
} pathgate__fs_target;

/* Options version marking an internal call whose events are someone
 * else's (the pull iterators' walk thread, a move's own delete). */
#define PATHGATE__FS_OPTIONS_QUIET_VERSION (0x40000000u | PATHGATE_FS_OPTIONS_VERSION)

/* The resolver of (resolver, opts): resolver, or the session's; NULL (and
 * err filled) for misuse. */
pathgate_resolver *pathgate__fs_resolver(pathgate_resolver *resolver,
                                         const pathgate_fs_options *opts, pathgate_error *err);

/*
 * Resolves text (NULL: the default search root, the session cwd or the
 * first root) into t, for the operation `op` (its name in audit events).
 * Canonical input is split lexically without touching the registry; any
 * other form goes through the resolver (with the session's cwd as base)
 * with require_exists = 0 and the token it mints is released at once. An
 * address the policy hides (deny_read, by name) fails like one that does
 * not resolve. PATHGATE_EINVALIDPATH / PATHGATE_ECAPACITY (agent message),
 * ENOMEM. A failure is an audit event.
 */
int pathgate__fs_resolve(pathgate__fs_target *t, const char *op, pathgate_resolver *r,
                         const pathgate_fs_options *opts, const char *text, size_t len,
                         pathgate_error *err);
/* The same for one operand of a move (role "source" / "destination"). */
int pathgate__fs_resolve_role(pathgate__fs_target *t, const char *op, const char *role,
                              pathgate_resolver *r, const pathgate_fs_options *opts,
                              const char *text, size_t len, pathgate_error *err);

/* pathgate__fs_resolver then pathgate__fs_resolve, and the operation's
 * "allowed" event: the prologue of every operation that reads its one
 * operand. */
int pathgate__fs_target_of(pathgate__fs_target *t, const char *op, pathgate_resolver *resolver,
                           const pathgate_fs_options *opts, const char *text, size_t len,
                           pathgate_error *err);

/* Nouns of the not-found message. */
typedef enum pathgate__fs_noun { PATHGATE__FS_FILE, PATHGATE__FS_DIRECTORY } pathgate__fs_noun;

/* Fills err with the standard message of code for t (see fs.h) and
 * returns code. */
int pathgate__fs_fail(pathgate_error *err, int code, const pathgate__fs_target *t,
                      pathgate__fs_noun noun);
/* Maps -errno through pathgate__errno_to_code (ENOTDIR on the way reads
 * as not found) and fails with the standard message. */
int pathgate__fs_fail_errno(pathgate_error *err, int neg_errno, const pathgate__fs_target *t,
                            pathgate__fs_noun noun);

/* 0, or PATHGATE_EINVAL with the message when opts (may be NULL) has a
 * version this library does not know. */
int pathgate__fs_search_check(const pathgate_fs_search_options *opts, pathgate_error *err);
/* The options every operation has, of search options (may be NULL). */
#define PATHGATE__FS_OF(search) ((search) ? &(search)->fs : NULL)

/* The audit event of t's decision (nothing when quiet or no callback). */
void pathgate__fs_audit(const pathgate__fs_target *t, const char *outcome, const char *reason,
                        const pathgate_policy_verdict *v);
/* The "hidden" event of a listing that left count entries out (none for 0). */
void pathgate__fs_audit_hidden(const pathgate__fs_target *t, size_t count);

#endif
