/*
 * pathgate/resolver.h - canonical addresses, kernel-enforced containment
 * and the token registry (docs/spec.md sections 4-5).
 *
 * A resolver is built once from a closed set of roots (key -> directory)
 * and mods (name -> directory). Each base directory is opened once
 * (O_PATH|O_DIRECTORY|O_CLOEXEC) at construction; every later existence
 * and containment decision is made by the kernel with
 * openat2(base_fd, rel, RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS) (or an
 * O_NOFOLLOW component walk where openat2 is unavailable).
 *
 * Canonical addresses: `root:<key>`, `root:<key>/<rel>`, `mod:<Name>`,
 * `mod:<Name>/<rel>`; <rel> is normalised POSIX (no empty, `.` or `..`
 * segments, no leading or trailing `/`). One file, one address.
 *
 * Thread safety: a resolver (and its registry) may be used by any number of
 * threads at once; the registry is internally locked.
 */
#ifndef PATHGATE_RESOLVER_H
#define PATHGATE_RESOLVER_H

#include "common.h"
#include "policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The agent-visible messages: exactly these, nothing else, ever. */
#define PATHGATE_MSG_INVALID "Invalid path / not found"
#define PATHGATE_MSG_CAPACITY "Visibility registry capacity exceeded \xE2\x80\x94 restart server"

#define PATHGATE_MAX_TOKENS_DEFAULT 10000

/*
 * Machine-readable reason of a resolution, for host-side logs and metrics
 * (never needed by an agent, who sees only the two messages above).
 * X(NAME, "name")
 */
#define PATHGATE_REASON_MAP(X)                                                                     \
    X(OK, "ok")             /* success */                                                          \
    X(SYNTAX, "syntax")     /* not an address, URI or path form */                                 \
    X(ENCODING, "encoding") /* NUL byte or invalid UTF-8 */                                        \
    X(TOO_LONG, "too_long") /* longer than PATHGATE_PATH_MAX */                                    \
    X(UNKNOWN_ROOT, "unknown_root")                                                                \
    X(UNKNOWN_MOD, "unknown_mod")                                                                  \
    X(OUTSIDE_BASES, "outside_bases") /* host path/URI in no base */                               \
    X(RELATIVE_WITHOUT_BASE, "relative_without_base")                                              \
    X(INVALID_BASE, "invalid_base") /* the base argument is invalid */                             \
    X(ESCAPES_ROOT, "escapes_root") /* `..` or a symlink leaves base */                            \
    X(NOT_FOUND, "not_found")                                                                      \
    X(NOT_A_DIRECTORY, "not_a_directory") /* a file used as a dir */                               \
    X(IO, "io")                           /* unexpected kernel error */                            \
    X(CAPACITY, "capacity")                                                                        \
    X(DENIED, "denied") /* the policy hides it: deny_read (pathgate/policy.h) */

typedef enum pathgate_reason {
#define PATHGATE_X_REASON(name, text) PATHGATE_REASON_##name,
    PATHGATE_REASON_MAP(PATHGATE_X_REASON)
#undef PATHGATE_X_REASON
        PATHGATE__REASON_LAST
} pathgate_reason;

/* "ok", "syntax", ...; "unknown" for an out-of-range value. */
PATHGATE_EXTERN const char *pathgate_reason_name(pathgate_reason reason);

/* ------------------------------------------------------------------ refs */

/*
 * VisibilityRef: token (UUID4, lowercase, 36 chars) + canonical address.
 * Immutable, holds no host path and no pointer to its resolver: it may
 * outlive the resolver and be shared read-only between threads.
 */
typedef struct pathgate_ref pathgate_ref;

/* Builds a ref from its two strings (for deserialisation and tests); no
 * check against any registry is made here. */
PATHGATE_EXTERN int pathgate_ref_new(pathgate_ref **out, const char *token, size_t token_len,
                                     const char *address, size_t address_len,
                                     const pathgate_allocator *alloc, pathgate_error *err);
PATHGATE_EXTERN int pathgate_ref_dup(pathgate_ref **out, const pathgate_ref *ref,
                                     pathgate_error *err);
/* NULL is a no-op. */
PATHGATE_EXTERN void pathgate_ref_free(pathgate_ref *ref);
PATHGATE_EXTERN const char *pathgate_ref_token(const pathgate_ref *ref, size_t *len);
PATHGATE_EXTERN const char *pathgate_ref_address(const pathgate_ref *ref, size_t *len);
/* Equal when token and address are. */
PATHGATE_EXTERN int pathgate_ref_equal(const pathgate_ref *a, const pathgate_ref *b);
PATHGATE_EXTERN uint64_t pathgate_ref_hash(const pathgate_ref *ref);

/* ------------------------------------------------------------- resolver */

typedef struct pathgate_resolver pathgate_resolver;

/* One configured base: a root key or a mod name, and its host directory. */
typedef struct pathgate_base_spec {
    const char *name;
    size_t name_len;
    const char *dir;
    size_t dir_len;
    unsigned int flags; /* PATHGATE_BASE_* */
} pathgate_base_spec;

/*
 * The base may be read but not written by file operations and commands.
 * Read-only means the files: a file inside a read-only base is read-only by
 * every address that reaches it. A base whose directory lies inside (or is)
 * a read-only base's directory is read-only itself; a write, edit, upload
 * or delete through a writable base refuses (PATHGATE_EACCES) an entry whose
 * directory lies inside a read-only base's directory, and a delete refuses
 * a directory holding one. The check is made on the directory the entry
 * really lives in (device and inode, walking up through `..`), so a
 * symlink inside the writable base leads to no other answer.
 */
#define PATHGATE_BASE_READ_ONLY 0x1u

/* A native prefix and the canonical address it stands for (version 4 of
 * the options; (pointer, length) text, UTF-8). */
typedef struct pathgate_native_prefix {
    const char *prefix;
    size_t prefix_len;
    const char *address;
    size_t address_len;
} pathgate_native_prefix;

typedef struct pathgate_resolver_options {
    unsigned int version; /* PATHGATE_RESOLVER_OPTIONS_VERSION */
    const pathgate_base_spec *roots;
    size_t nroots;
    const pathgate_base_spec *mods;
    size_t nmods;
    size_t max_tokens;                   /* 0 = PATHGATE_MAX_TOKENS_DEFAULT */
    unsigned int flags;                  /* reserved: 0 (one bit is for the test suites) */
    const pathgate_allocator *allocator; /* NULL = libc */
    /* Version 2: bases marked read-only by name, in addition to
     * PATHGATE_BASE_READ_ONLY in their spec. Each entry (NUL-terminated) is
     * a root key or a mod name (every base of that name), or a base's own
     * address, `root:<key>` or `mod:<Name>` (that one). A name that matches
     * no configured base is ECONFIG. */
    const char *const *read_only;
    size_t nread_only;
    /* Version 3: the policy (pathgate/policy.h, docs/policy.md). Patterns
     * no operation may read, patterns no operation may change, and presets
     * by name ("vcs", "secrets", "agent-config"); each list is one rule set
     * with the named presets' rules first, so an exception (`!x`) in
     * deny_read may re-allow what a preset denies. A bad pattern, an unknown
     * preset or a base prefix naming no base is ECONFIG. */
    const char *const *deny_read;
    size_t ndeny_read;
    const char *const *deny_write;
    size_t ndeny_write;
    const char *const *presets;
    size_t npresets;
    /* Called once per decision (see pathgate_audit_fn); NULL = none. */
    pathgate_audit_fn audit;
    void *audit_ctx;
    /* The `door` of this resolver's audit events; NULL = "c". Copied. */
    const char *audit_door;
    /* Version 4: native prefixes for pathgate_resolver_address_of, e.g.
     * {"C:/Users/me/Documents/Paradox Interactive/Crusader Kings III/mod",
     * "root:user"}: a native path in another convention (a Windows path
     * read from a file on Linux) under `prefix` maps to `address` (a
     * canonical address of a configured base or a directory inside one)
     * plus the rest. A prefix that is not an absolute native path, or an
     * address naming no base, is ECONFIG. */
    const pathgate_native_prefix *native_prefixes;
    size_t nnative_prefixes;
} pathgate_resolver_options;

/* Versions 1 (without read_only), 2 (without the policy) and 3 (without
 * native_prefixes) are still accepted. */
#define PATHGATE_RESOLVER_OPTIONS_VERSION 4
#define PATHGATE_RESOLVER_OPTIONS_INIT                                                             \
    {                                                                                              \
        PATHGATE_RESOLVER_OPTIONS_VERSION, NULL, 0, NULL, 0, 0, 0, NULL, NULL, 0, NULL, 0, NULL,   \
            0, NULL, 0, NULL, NULL, NULL, NULL, 0                                                  \
    }
/* Fills opts as PATHGATE_RESOLVER_OPTIONS_INIT does. 0, or PATHGATE_EINVAL when opts is
 * NULL or version is not PATHGATE_RESOLVER_OPTIONS_VERSION. For callers without C macros. */
PATHGATE_EXTERN int pathgate_resolver_options_init(pathgate_resolver_options *opts,
                                                   unsigned int version);

/* Builds a resolver. Misconfiguration fails here with ECONFIG (a key not
 * matching [a-z][a-z0-9_]*, a mod name that is empty or holds `/`, `:`,
 * NUL or invalid UTF-8, a duplicate, no base at all, a read_only name that
 * is no base, a directory that is the filesystem root `/` under any
 * spelling, read-only or not: it would serve the whole host) or EIO (a
 * directory that cannot be opened); messages name the key, never the
 * directory. */
PATHGATE_EXTERN int pathgate_resolver_new(pathgate_resolver **out,
                                          const pathgate_resolver_options *opts,
                                          pathgate_error *err);
/* Whether dir may be a front end's implicit root: the directory served
 * when nothing is configured (the CLI's current directory, docs/cli.md
 * "Where the bases come from"). 0, or PATHGATE_ECONFIG when dir, resolved,
 * is the filesystem root, a home directory or an ancestor of one: err's
 * message is then exactly "the filesystem root", "a home directory" or
 * "an ancestor of a home directory"; PATHGATE_EIO when dir cannot be opened
 * or resolved. The homes are $HOME, the caller's account and every account
 * of /etc/passwd (Windows: %USERPROFILE%), the same check that refuses a
 * command's toolchain (docs/exec.md "Toolchains of the host"). */
PATHGATE_EXTERN int pathgate_implicit_root_check(const char *dir, pathgate_error *err);

/* Frees the resolver and its registry. NULL is a no-op. Refs it minted stay
 * valid as values. */
PATHGATE_EXTERN void pathgate_resolver_free(pathgate_resolver *resolver);

/* Configured bases, in configuration order. */
PATHGATE_EXTERN size_t pathgate_resolver_root_count(const pathgate_resolver *resolver);
PATHGATE_EXTERN const char *pathgate_resolver_root_key(const pathgate_resolver *resolver,
                                                       size_t index);
PATHGATE_EXTERN size_t pathgate_resolver_mod_count(const pathgate_resolver *resolver);
PATHGATE_EXTERN const char *pathgate_resolver_mod_name(const pathgate_resolver *resolver,
                                                       size_t index);

typedef struct pathgate_resolve_options {
    unsigned int version; /* PATHGATE_RESOLVE_OPTIONS_VERSION */
    int require_exists;   /* default 1 */
    const char *base;     /* canonical address for relative input, or NULL */
    size_t base_len;
} pathgate_resolve_options;

#define PATHGATE_RESOLVE_OPTIONS_VERSION 1
#define PATHGATE_RESOLVE_OPTIONS_INIT                                                              \
    {                                                                                              \
        PATHGATE_RESOLVE_OPTIONS_VERSION, 1, NULL, 0                                               \
    }
/* Fills opts as PATHGATE_RESOLVE_OPTIONS_INIT does. 0, or PATHGATE_EINVAL when opts is
 * NULL or version is not PATHGATE_RESOLVE_OPTIONS_VERSION. For callers without C macros. */
PATHGATE_EXTERN int pathgate_resolve_options_init(pathgate_resolve_options *opts,
                                                  unsigned int version);

/*
 * VisibilityResolution, caller-owned. On success ok = 1, ref is set and
 * owned by the resolution (take it by setting the field to NULL), exists
 * tells whether the target existed at resolve time, root_category is the
 * root key (NULL for mod:), mod_name the mod's name (NULL for root:),
 * relative_path the normalised <rel> ("" at the base). On failure ok = 0, error_message is PATHGATE_MSG_INVALID or
 * PATHGATE_MSG_CAPACITY and reason says why. Strings are NUL-terminated and
 * live as long as the resolution (root_category and mod_name as long as the
 * resolver).
 * relative_path points into the ref's address (no copy is made): after
 * taking the ref out, it lives as long as that ref.
 */
typedef struct pathgate_resolution {
    int ok;
    int exists;
    pathgate_reason reason;
    pathgate_ref *ref;
    const char *root_category;
    const char *relative_path;
    const char *error_message;
    const char *mod_name;
} pathgate_resolution;

#define PATHGATE_RESOLUTION_INIT                                                                   \
    {                                                                                              \
        0, 0, PATHGATE_REASON_OK, NULL, NULL, NULL, NULL, NULL                                     \
    }

/* Frees what the resolution owns and resets it. NULL is a no-op. */
PATHGATE_EXTERN void pathgate_resolution_dispose(pathgate_resolution *res);

/*
 * The single entry point. Accepts canonical addresses (whitespace around is
 * stripped, `\` in <rel> reads as `/`), the legacy aliases `mod:<Name>:/rel`
 * and `ROOT_<KEY>:/rel`, file:// URIs and host-absolute paths inside a base
 * (mapped back: longest base wins, a root before a mod on a tie), and
 * relative text when opts->base is given. opts NULL = defaults.
 *
 * Returns 0 when `out` holds a resolution (successful or not); a negative
 * code only for misuse (EINVAL) or ENOMEM, in which case out is left INIT.
 * A failed resolution mints nothing.
 */
PATHGATE_EXTERN int pathgate_resolver_resolve(pathgate_resolution *out, pathgate_resolver *resolver,
                                              const char *text, size_t len,
                                              const pathgate_resolve_options *opts,
                                              pathgate_error *err);

/* The host path of a ref this registry minted whose address matches the
 * record; out->ptr = NULL otherwise (forged, released or foreign ref). */
PATHGATE_EXTERN int pathgate_resolver_host_path(pathgate_buf *out, pathgate_resolver *resolver,
                                                const pathgate_ref *ref, pathgate_error *err);

/* The host path of text, resolved as pathgate_resolver_resolve does (the
 * same options, containment and policy), without minting a token: nothing
 * is held afterwards, so a loop over any number of files never fills the
 * registry. 0 and the path in out; PATHGATE_EINVALIDPATH ("Invalid path /
 * not found") when resolve would fail, *reason (optional) saying why, for
 * host-side logs. The host path is the operator's: never show it to an
 * agent. */
PATHGATE_EXTERN int pathgate_resolver_host_path_of(pathgate_buf *out, pathgate_reason *reason,
                                                   pathgate_resolver *resolver, const char *text,
                                                   size_t len, const pathgate_resolve_options *opts,
                                                   pathgate_error *err);

/* The canonical address of a native path, without touching the
 * filesystem and holding no token: a path in the convention of a declared
 * native prefix (pathgate_resolver_options.native_prefixes; Windows
 * prefixes compare ASCII case-insensitively, as docs/uri.md says) maps
 * through the longest such prefix; otherwise a host path (POSIX, or a
 * file:// URI) under a configured base maps as resolve maps it (longest
 * base wins). `..` is applied lexically first and may not climb above the
 * prefix or base. 0 and the address in out; PATHGATE_EINVALIDPATH
 * ("Invalid path / not found") when no prefix or base holds it. The
 * address is not checked for existence: resolve it to use it. */
PATHGATE_EXTERN int pathgate_resolver_address_of(pathgate_buf *out, pathgate_resolver *resolver,
                                                 const char *native, size_t len,
                                                 pathgate_error *err);

/* Frees the ref's token: 1 when it was live here, 0 otherwise. */
PATHGATE_EXTERN int pathgate_resolver_release(pathgate_resolver *resolver, const pathgate_ref *ref);

/* Number of live tokens. */
PATHGATE_EXTERN size_t pathgate_resolver_token_count(pathgate_resolver *resolver);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_RESOLVER_H */
