/*
 * pathgate/common.h - conventions shared by every pathgate module:
 * the export macro, the error table, the caller-owned error struct,
 * the optional allocator, the string buffer and the path conventions.
 */
#ifndef PATHGATE_COMMON_H
#define PATHGATE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PATHGATE_EXTERN marks the public API. The core is compiled once, with
 * PATHGATE_BUILDING_SHARED and -fvisibility=hidden, so only these symbols
 * are exported from the shared library; the Python and Lua modules link
 * the static one with -Wl,--exclude-libs,ALL so that the core never leaks
 * out of a module. */
#if defined(PATHGATE_BUILDING_SHARED) && defined(_WIN32)
/* Windows: an explicit export table, so libpathgate.dll exports the API
 * and nothing else (docs/windows.md). A consumer needs no dllimport. */
#define PATHGATE_EXTERN __declspec(dllexport)
#elif defined(PATHGATE_BUILDING_SHARED)
#define PATHGATE_EXTERN __attribute__((visibility("default")))
#else
#define PATHGATE_EXTERN
#endif

/* The version, and its only spelling in the project: CMakeLists.txt,
 * setup.py and the Lua rock's release step read these three lines. */
#define PATHGATE_VERSION_MAJOR 0
#define PATHGATE_VERSION_MINOR 1
#define PATHGATE_VERSION_PATCH 0
#define PATHGATE__STR2(x) #x
#define PATHGATE__STR(x) PATHGATE__STR2(x)
#define PATHGATE_VERSION_STRING                                                                    \
    PATHGATE__STR(PATHGATE_VERSION_MAJOR)                                                          \
    "." PATHGATE__STR(PATHGATE_VERSION_MINOR) "." PATHGATE__STR(PATHGATE_VERSION_PATCH)

/* Longest input accepted anywhere (bytes, excluding a terminator). */
#define PATHGATE_PATH_MAX 4096

/*
 * The error table: X(NAME, value, "name", "description").
 * Every pathgate function that can fail returns int: 0 (PATHGATE_OK) on
 * success or one of these negative codes. "name" is the machine-readable
 * kind shown by the bindings (Python PathError.kind, the Lua code string).
 */
#define PATHGATE_ERROR_MAP(X)                                                                      \
    X(EINVAL, -1, "invalid_argument", "invalid argument")                                          \
    X(ENOMEM, -2, "out_of_memory", "out of memory")                                                \
    X(ENUL, -3, "nul_byte", "text contains a NUL byte")                                            \
    X(EUTF8, -4, "invalid_utf8", "text is not valid UTF-8")                                        \
    X(ETOOLONG, -5, "too_long", "text is longer than PATHGATE_PATH_MAX")                           \
    X(ESYNTAX, -6, "syntax", "malformed URI")                                                      \
    X(ESCHEME, -7, "unsupported_scheme", "only file: URIs are supported")                          \
    X(ECREDENTIALS, -8, "credentials_not_allowed", "URI credentials are not allowed")              \
    X(EPORT, -9, "port_not_allowed", "URI port is not allowed")                                    \
    X(EQUERY, -10, "query_not_allowed", "URI query is not allowed")                                \
    X(EFRAGMENT, -11, "fragment_not_allowed", "URI fragment is not allowed")                       \
    X(EENCODEDNUL, -12, "encoded_nul", "URI contains an encoded NUL")                              \
    X(ENOTABS, -13, "not_absolute", "path is not absolute")                                        \
    X(ECONVENTION, -14, "incompatible_convention", "incompatible path convention")                 \
    X(EOPAQUE, -15, "opaque", "opaque URI has no native form")                                     \
    X(ENOTDESC, -16, "not_descendant", "path is not a descendant of the base")                     \
    X(EDRIVE, -17, "drive_mismatch", "drive-relative path names another drive")                    \
    X(ENOHOME, -18, "no_home", "home directory is not known")                                      \
    X(ECONFIG, -19, "invalid_config", "invalid resolver configuration")                            \
    X(EIO, -20, "io_error", "input/output error")                                                  \
    X(ENOTFOUND, -21, "not_found", "not found")                                                    \
    X(EINVALIDPATH, -22, "invalid_path", "Invalid path / not found")                               \
    X(ECAPACITY, -23, "capacity",                                                                  \
      "Visibility registry capacity exceeded \xE2\x80\x94 restart server")                         \
    X(EUNKNOWNROOT, -24, "unknown_root", "unknown root")                                           \
    X(ESUBDIRHOME, -25, "subdirectory_home", "Subdirectory homing not allowed")                    \
    X(EOVERFLOW, -26, "stack_overflow", "directory stack overflow (max 100)")                      \
    X(ENOTDIR, -27, "not_a_directory", "not a directory")                                          \
    X(EISDIR, -28, "is_directory", "is a directory")                                               \
    X(EACCES, -29, "permission_denied", "permission denied")                                       \
    X(ENOTREG, -30, "not_regular_file", "not a regular file")                                      \
    X(EEXIST, -31, "already_exists", "already exists")                                             \
    X(EEDIT, -32, "edit_failed", "edit failed")                                                    \
    X(ERANGE, -33, "out_of_range", "out of range")                                                 \
    X(EUNSUPPORTED, -34, "unsupported", "not supported on this system")                            \
    X(ETIMEOUT, -35, "timeout", "timed out")                                                       \
    X(ETOOLARGE, -36, "too_large", "larger than the configured size cap")                          \
    X(ELIMIT, -37, "match_limit", "regular expression match limit exceeded")                       \
    X(EAMBIGUOUS, -38, "edit_ambiguous", "the text to replace occurs more than once")              \
    X(EPATCH, -39, "invalid_patch", "invalid patch")                                               \
    X(ECONFLICT, -40, "patch_conflict", "patch does not apply")                                    \
    X(ENOTLINK, -41, "not_a_symlink", "not a symbolic link")                                       \
    X(EPOLICY, -42, "policy_denied", "protected by the host's policy")

typedef enum pathgate_errno {
    PATHGATE_OK = 0,
#define PATHGATE_X_ENUM(name, value, kind, text) PATHGATE_##name = value,
    PATHGATE_ERROR_MAP(PATHGATE_X_ENUM)
#undef PATHGATE_X_ENUM
        PATHGATE__ERRNO_LAST
} pathgate_errno;

/* "invalid_argument", ... for a code of the table; "ok" for 0;
 * "unknown_error" otherwise. Never NULL; static storage. */
PATHGATE_EXTERN const char *pathgate_errname(int code);
/* Human description of a code; static storage, never NULL. */
PATHGATE_EXTERN const char *pathgate_strerror(int code);

#define PATHGATE_ERROR_TEXT_LENGTH 256

/* Caller-owned error detail (optional: pass NULL to ignore). On failure a
 * function fills code and a NUL-terminated message that names no host path. */
typedef struct pathgate_error {
    int code;
    char message[PATHGATE_ERROR_TEXT_LENGTH];
} pathgate_error;
/* Start every pathgate_error from this, so that nothing can ever read stack
 * bytes from one: `pathgate_error err = PATHGATE_ERROR_INIT;`. */
#define PATHGATE_ERROR_INIT                                                                        \
    {                                                                                              \
        0,                                                                                         \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }

/*
 * Optional allocator. Every constructor takes a `const pathgate_allocator *`;
 * NULL means libc. The object copies the struct and uses it for its whole
 * life, including for everything derived from it (a joined URI uses its
 * base's allocator). All three functions must be set.
 */
typedef struct pathgate_allocator {
    void *(*malloc)(size_t size, void *ctx);
    void *(*realloc)(void *ptr, size_t size, void *ctx);
    void (*free)(void *ptr, void *ctx);
    void *ctx;
} pathgate_allocator;

/*
 * A caller-owned byte string returned by pathgate (NUL-terminated; len
 * excludes the terminator). Initialise with PATHGATE_BUF_INIT. A function
 * that writes a buffer first disposes of what it held. An optional result
 * that is absent leaves ptr == NULL; a present empty string is "".
 */
typedef struct pathgate_buf {
    char *ptr;
    size_t len;
    pathgate_allocator alloc; /* set by the function that filled it */
} pathgate_buf;

#define PATHGATE_BUF_INIT                                                                          \
    {                                                                                              \
        NULL, 0,                                                                                   \
        {                                                                                          \
            NULL, NULL, NULL, NULL                                                                 \
        }                                                                                          \
    }

/* Frees the contents and resets to PATHGATE_BUF_INIT. NULL is a no-op. */
PATHGATE_EXTERN void pathgate_buf_dispose(pathgate_buf *buf);

/* The two path conventions. NONE means "infer" where accepted as input and
 * "no convention" where returned (an opaque URI whose payload says neither). */
typedef enum pathgate_convention {
    PATHGATE_CONVENTION_NONE = 0,
    PATHGATE_CONVENTION_POSIX = 1,
    PATHGATE_CONVENTION_WINDOWS = 2
} pathgate_convention;

/* "posix", "windows", or NULL for NONE. */
PATHGATE_EXTERN const char *pathgate_convention_name(pathgate_convention convention);
/* Parses "posix" / "windows" (exact, lowercase). PATHGATE_EINVAL otherwise. */
PATHGATE_EXTERN int pathgate_convention_parse(pathgate_convention *out, const char *text,
                                              size_t len, pathgate_error *err);
/* The convention of the machine the library runs on (POSIX here). */
PATHGATE_EXTERN pathgate_convention pathgate_convention_host(void);

/* Library version as "MAJOR.MINOR.PATCH". */
PATHGATE_EXTERN const char *pathgate_version(void);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_COMMON_H */
