/*
 * pathgate/policy.h - the policy a host states on top of containment
 * (docs/policy.md): paths no operation may read (deny_read), paths no
 * operation may change (deny_write), named presets of both, and one audit
 * event per decision.
 *
 * Rules are gitignore-style patterns matched against the canonical
 * relative path of every operand at every call (files that exist and files
 * that do not yet), by every spelling that reaches it:
 *
 *   .env           no `/` (a trailing one aside): a name at any depth
 *   /build/x.txt   a leading or inner `/`: from the top of every base
 *   **             any number of directories; `*`, `?`, `[a-z]`, `[!a]`,
 *                  `{a,b}`, `\x` within a name
 *   secrets/       this entry and everything below it
 *   root:repo/x    only in that base, from its top (`root:<key>`,
 *                  `mod:<Name>`; the base alone covers all of it)
 *   !keep.env      an exception: what it matches exactly is allowed again
 *
 * A deny rule that matches a directory covers everything below it. Deny
 * rules fold case (ASCII, and the letters that fold or upcase to ASCII:
 * U+017F, U+212A, U+0130, U+0131) and ignore trailing dots and spaces of a
 * name, and their wildcards match a leading dot; exceptions match exactly
 * as written and their wildcards never match a leading dot. Within one
 * list the last rule that applies decides. A deny_read path resolves to
 * PATHGATE_MSG_INVALID and is left out of every listing (counted in
 * skipped_denied); a deny_write path (and a deny_read one) may not be
 * written, edited, deleted, created, moved or moved over
 * (PATHGATE_EPOLICY). A symlink is judged by what it leads to as well as
 * by its own name.
 *
 * Thread safety: rules are compiled when the resolver is built; restrict
 * publishes a new rule set atomically while other threads resolve.
 */
#ifndef PATHGATE_POLICY_H
#define PATHGATE_POLICY_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pathgate_resolver pathgate_resolver;

/* What the policy forbids at an address (bits of a verdict). */
#define PATHGATE_POLICY_DENY_READ 0x1u  /* hidden: every operation answers "not found" */
#define PATHGATE_POLICY_DENY_WRITE 0x2u /* readable; nothing may change it */

/* ---------------------------------------------------------------- audit */

/*
 * One decision. Strings are NUL-terminated and valid during the callback
 * only. host_path is for the operator's log alone: never show it to an
 * agent. Fields may be added at the end (check version).
 */
typedef struct pathgate_audit_event {
    unsigned int version; /* PATHGATE_AUDIT_EVENT_VERSION */
    int64_t time_sec;     /* CLOCK_REALTIME */
    long time_nsec;
    const char *door;      /* who asked: "c", "python", "lua", "cli", "mcp", ... */
    const char *operation; /* "read", "write", "ls", "grep", "move", "resolve", ... */
    const char *role;      /* "source" / "destination" of a move, else NULL */
    const char *address;   /* canonical address; NULL when the text named none */
    const char *outcome;   /* "allowed", "denied", "invalid" (no such address),
                              "hidden" (entries a listing left out; see count), or
                              (network decisions) "failed" */
    const char *reason;    /* NULL when allowed; "deny_read", "deny_write",
                              "read_only", or the resolution reason ("syntax",
                              "escapes_root", ...) */
    const char *rule;      /* the pattern that decided, as configured, or NULL */
    const char *source;    /* where that rule came from: "deny_read",
                              "deny_write", "preset:<name>", or the source
                              given to restrict; NULL */
    uint64_t count;        /* "hidden": how many entries; else 0 */
    const char *host_path; /* OPERATOR ONLY: the host path of address, or NULL */
    const char *ip;        /* OPERATOR ONLY: for a network decision, the address
                              connected to (or refused); else NULL */
    /* Version 2: commands (operation "execute"). */
    unsigned int protections; /* PATHGATE_EXEC_PROT_* of the command; else 0 */
    int exit_status;          /* the end of a command ("exited"): its exit status
                                 (128 + signal when killed); else -1 */
} pathgate_audit_event;

#define PATHGATE_AUDIT_EVENT_VERSION 2

/* Called once per decision, on the thread that made the call being judged
 * (for the pull iterators of fs.h: the thread calling next; for the
 * network decisions of a command, a thread of its proxy). A resolver
 * shared between threads calls it from each of them: it must be
 * thread-safe then. It must not call back into the resolver. */
typedef void (*pathgate_audit_fn)(const pathgate_audit_event *event, void *ctx);

/* --------------------------------------------------------------- rules */

/* Rules added to a resolver that exists already (pathgate_resolver_restrict). */
typedef struct pathgate_policy_options {
    unsigned int version; /* PATHGATE_POLICY_OPTIONS_VERSION */
    const char *const *deny_read;
    size_t ndeny_read;
    const char *const *deny_write;
    size_t ndeny_write;
    const char *const *presets; /* preset names (pathgate_policy_preset_name) */
    size_t npresets;
    const char *source; /* label of these rules in audit events; NULL = "restrict" */
} pathgate_policy_options;

#define PATHGATE_POLICY_OPTIONS_VERSION 1
#define PATHGATE_POLICY_OPTIONS_INIT                                                               \
    {                                                                                              \
        PATHGATE_POLICY_OPTIONS_VERSION, NULL, 0, NULL, 0, NULL, 0, NULL                           \
    }
/* Fills opts as PATHGATE_POLICY_OPTIONS_INIT does. 0, or PATHGATE_EINVAL when opts is
 * NULL or version is not PATHGATE_POLICY_OPTIONS_VERSION. */
PATHGATE_EXTERN int pathgate_policy_options_init(pathgate_policy_options *opts,
                                                 unsigned int version);

/*
 * Adds rules to the resolver's policy: only ever tightens. The new rules
 * are a set of their own (deny_read and deny_write lists, presets first),
 * so their exceptions (`!x`) re-allow only what these lists deny, never
 * what the resolver already denied. Every later call, on any thread, is
 * judged by the union. ECONFIG for a bad pattern or an unknown preset or
 * base (the message quotes the entry), nothing added then.
 */
PATHGATE_EXTERN int pathgate_resolver_restrict(pathgate_resolver *resolver,
                                               const pathgate_policy_options *opts,
                                               pathgate_error *err);

/* What the policy says about an address. */
typedef struct pathgate_policy_verdict {
    unsigned int denied; /* PATHGATE_POLICY_DENY_* bits; 0 = allowed */
    const char *rule;    /* the deciding pattern (lives as long as the resolver) */
    const char *source;  /* its source, as in audit events */
} pathgate_policy_verdict;

/*
 * The verdict for text (any form resolve accepts, relative text relative
 * to the first base as in every file operation; require_exists = 0;
 * symlinks on the way are followed, so a link to a denied file is denied).
 * DENY_READ implies DENY_WRITE. PATHGATE_EINVALIDPATH when the text names
 * no address at all. Emits no audit event.
 */
PATHGATE_EXTERN int pathgate_resolver_policy_check(pathgate_policy_verdict *out,
                                                   pathgate_resolver *resolver, const char *text,
                                                   size_t len, pathgate_error *err);

/*
 * The paths git tracks that the policy hides (docs/policy.md "Secrets in
 * git history"): the index of the repository at the top of each base with
 * rules (`.git/index`, versions 2 to 4) is read (at most 256 MiB; one that
 * does not parse, or a `.git` reached through a symlink, counts nothing)
 * and each path denied to read is passed to fn (may be NULL) as its
 * canonical address, with an audit event (operation `git_index`, outcome
 * `tracked`, reason `deny_read`, rule, source). Returns how many, or a
 * negative code (PATHGATE_EINVAL). Their content is in git's history,
 * where the rule does not reach.
 */
PATHGATE_EXTERN long pathgate_resolver_policy_tracked(pathgate_resolver *resolver,
                                                      void (*fn)(void *ctx, const char *address),
                                                      void *ctx, pathgate_error *err);

/* The built-in presets, by index ("vcs", "secrets", "agent-config"), NULL
 * past the end; and the rules of one (index-th, NULL past the end), with
 * whether they deny reading or writing. */
PATHGATE_EXTERN const char *pathgate_policy_preset_name(size_t index);
PATHGATE_EXTERN const char *pathgate_policy_preset_rule(const char *name, size_t index,
                                                        unsigned int *denies);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_POLICY_H */
