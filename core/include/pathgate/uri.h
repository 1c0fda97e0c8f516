/*
 * pathgate/uri.h - PathUri: an immutable absolute location as a file: URI.
 *
 * A URI never records an OS; its path convention is inferred from its
 * spelling (Windows when it has a host or its first segment is a drive,
 * POSIX otherwise). Every function here is pure text: none touches the
 * filesystem. docs/uri.md has every rule, and where pathgate answers
 * differently from Codex.
 *
 * Text inputs are (pointer, length): an embedded NUL is PATHGATE_ENUL
 * (never a truncation), invalid UTF-8 is PATHGATE_EUTF8 and more than
 * PATHGATE_PATH_MAX bytes is PATHGATE_ETOOLONG; a URI string given to
 * parse may be up to PATHGATE_URI_MAX bytes.
 *
 * Every URI string this module builds is at most PATHGATE_URI_MAX bytes
 * (from_native never exceeds it; a longer result of parse or join fails
 * with PATHGATE_ETOOLONG), so every URI parses back to itself.
 *
 * A pathgate_uri is immutable once built and may be shared read-only
 * between threads. Derived URIs (parent, join) use their source's allocator.
 */
#ifndef PATHGATE_URI_H
#define PATHGATE_URI_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pathgate_uri pathgate_uri;

/* The longest URI string: `file://` plus a PATHGATE_PATH_MAX-byte native
 * path whose every byte is percent-encoded, plus separators. */
#define PATHGATE_URI_MAX (3 * PATHGATE_PATH_MAX + 11)

/* Parses a file: URI. Scheme file only (any case, emitted lowercase);
 * rejects credentials (ECREDENTIALS), port (EPORT), query (EQUERY),
 * fragment (EFRAGMENT), encoded NUL (EENCODEDNUL, except in the opaque
 * form), other schemes (ESCHEME), a relative reference (ENOTABS) and bad
 * syntax (ESYNTAX). `file:/x` reads as `file:///x`; host localhost is
 * dropped; a host-less drive letter is uppercased (and the WHATWG legacy
 * first segment `C|` read as `C:`); %XX spellings are kept
 * as written; dot segments are resolved (a `..` above the root is
 * ESYNTAX); empty segments drop, but one trailing '/' after a segment is
 * kept (`file:///tmp//` is `file:///tmp/`; `file:///C:` and
 * `file:///C:/` are both kept); `file://server/` (a host, no share) is
 * accepted. Raw space, `"<>`{}` and non-ASCII UTF-8
 * in the path are accepted and percent-encoded. */
PATHGATE_EXTERN int pathgate_uri_parse(pathgate_uri **out, const char *text, size_t len,
                                       const pathgate_allocator *alloc, pathgate_error *err);

/* Converts native path text to a URI. One trailing separator is kept
 * when the text ends with any (`/tmp///` -> `file:///tmp/`, `C:\` ->
 * `file:///C:/`; `C:\x\..` -> `file:///C:`). convention NONE infers it from the
 * text (Windows for `X:\`, `X:/`, leading `\\`; POSIX for leading `/`;
 * anything else is ENOTABS). Paths with no honest URI form become the
 * opaque file:///%00/bad/path/<base64url> form. */
PATHGATE_EXTERN int pathgate_uri_from_native(pathgate_uri **out, const char *text, size_t len,
                                             pathgate_convention convention,
                                             const pathgate_allocator *alloc, pathgate_error *err);

/* NULL is a no-op. */
PATHGATE_EXTERN void pathgate_uri_free(pathgate_uri *uri);

/* Copies the URI (same allocator). */
PATHGATE_EXTERN int pathgate_uri_dup(pathgate_uri **out, const pathgate_uri *uri,
                                     pathgate_error *err);

/* The URI string, NUL-terminated, owned by the URI; *len (optional) gets
 * its length. */
PATHGATE_EXTERN const char *pathgate_uri_string(const pathgate_uri *uri, size_t *len);

/* The inferred convention; NONE only for an opaque URI whose payload names
 * neither. */
PATHGATE_EXTERN pathgate_convention pathgate_uri_convention(const pathgate_uri *uri);

/* 1 for the opaque fallback form, 0 otherwise. */
PATHGATE_EXTERN int pathgate_uri_is_opaque(const pathgate_uri *uri);

/* Parent URI, without a trailing '/' (`file:///C:/Users/` -> `file:///C:`);
 * *out = NULL (and 0 returned) at a root (`/`, a drive, a UNC share, with
 * or without its '/', `file://server/`) and for an opaque URI. */
PATHGATE_EXTERN int pathgate_uri_parent(pathgate_uri **out, const pathgate_uri *uri,
                                        pathgate_error *err);

/* Decoded last segment, a drive or share included (`file:///C:/` -> `C:`,
 * `file://server/share` -> `share`); out->ptr = NULL for `file:///`,
 * `file://server/` and an opaque URI. */
PATHGATE_EXTERN int pathgate_uri_basename(pathgate_buf *out, const pathgate_uri *uri,
                                          pathgate_error *err);

/* 1 when uri lies at or under base (segment-wise, same host and
 * convention; Windows compares ASCII case-insensitively after decoding; a
 * segment holding an encoded separator makes it 0), else 0. An opaque URI
 * starts only with itself. */
PATHGATE_EXTERN int pathgate_uri_starts_with(const pathgate_uri *uri, const pathgate_uri *base);

/* Decoded path of uri relative to base, joined with the convention's
 * separator ("" when equal); out->ptr = NULL when not contained. */
PATHGATE_EXTERN int pathgate_uri_relative_to(pathgate_buf *out, const pathgate_uri *uri,
                                             const pathgate_uri *base, pathgate_error *err);

/* Joins model-supplied text (relative or absolute, any OS) onto base using
 * base's convention; see docs/uri.md for every rule. */
PATHGATE_EXTERN int pathgate_uri_join(pathgate_uri **out, const pathgate_uri *base,
                                      const char *text, size_t len, pathgate_error *err);

/* join, then require the result to stay under base (ENOTDESC otherwise);
 * rejects absolute text and, under Windows, any segment containing `:`. */
PATHGATE_EXTERN int pathgate_uri_join_descendant(pathgate_uri **out, const pathgate_uri *base,
                                                 const char *text, size_t len, pathgate_error *err);

/* Equality and hash: Windows decoded ASCII case-insensitive, POSIX exact;
 * the trailing '/' counts (`file:///tmp` != `file:///tmp/`).
 * Equal URIs have equal hashes. */
PATHGATE_EXTERN int pathgate_uri_equal(const pathgate_uri *a, const pathgate_uri *b);
PATHGATE_EXTERN uint64_t pathgate_uri_hash(const pathgate_uri *uri);

/* Native text for a convention (NONE = the inferred one). Errors:
 * ECONVENTION (UNC under POSIX, host-less non-drive under Windows),
 * EOPAQUE (opaque URI), ESYNTAX (a segment holds an encoded separator:
 * %2F, or %5C under Windows), EUTF8 (Windows text that is not UTF-8).
 * A Windows drive root renders `C:\` (`file:///C:` too); a trailing '/'
 * renders as a trailing separator; `file://server/` is ECONVENTION. */
PATHGATE_EXTERN int pathgate_uri_to_native(pathgate_buf *out, const pathgate_uri *uri,
                                           pathgate_convention convention, pathgate_error *err);

/* A path usable on this machine: succeeds only when the inferred
 * convention is the host's (fail-closed). */
PATHGATE_EXTERN int pathgate_uri_to_host_path(pathgate_buf *out, const pathgate_uri *uri,
                                              pathgate_error *err);

/* UI text: the inferred native rendering of pathgate_legacy_from_uri
 * (lossy: %2F decodes, bad UTF-8 becomes U+FFFD, an opaque payload is
 * decoded) with control characters and NUL escaped, or the URI string
 * when there is none (fail-open). Fails only with ENOMEM. */
PATHGATE_EXTERN int pathgate_uri_display(pathgate_buf *out, const pathgate_uri *uri);

/* ------------------------------------------- Codex's further operations */

/* The n-th ancestor: 0 is a copy of uri, 1 its parent, and so on up to
 * the root (the ancestors end at `file:///`, `file:///C:` or
 * `file://server/share`); *out = NULL (and 0 returned) past the root. */
PATHGATE_EXTERN int pathgate_uri_ancestor(pathgate_uri **out, const pathgate_uri *uri, size_t n,
                                          pathgate_error *err);

/* The percent-encoded path as stored, without the authority
 * (`file://server/share/x` -> `/share/x`); owned by uri. */
PATHGATE_EXTERN const char *pathgate_uri_encoded_path(const pathgate_uri *uri, size_t *len);

/* The path decoded once, as bytes (no UTF-8 check; `%2F` becomes '/'). */
PATHGATE_EXTERN int pathgate_uri_decoded_path(pathgate_buf *out, const pathgate_uri *uri,
                                              pathgate_error *err);

/* The number of segments below the root, the drive or share included
 * (`file:///` 0, `file:///C:/x` 2, `file://h/s/x` 2). Returns 1 and sets
 * *depth, or 0 when the URI has no unambiguous segments (opaque, or a
 * segment decodes to '/', or to '\' under Windows). */
PATHGATE_EXTERN int pathgate_uri_lexical_depth(size_t *depth, const pathgate_uri *uri);

/* 1 when the lexical subtrees of a and b overlap (either starts with the
 * other; Windows case-insensitive), 0 when they do not, -1 when that is
 * unknown (either has no lexical depth). Equal URIs overlap, even opaque
 * ones. Symmetric. */
PATHGATE_EXTERN int pathgate_uri_overlaps(const pathgate_uri *a, const pathgate_uri *b);

/* join of raw native bytes. UTF-8 text is pathgate_uri_join. Other bytes
 * need a POSIX, non-opaque base (ECONVENTION, EOPAQUE) and no NUL (ENUL):
 * they split on '/', `.` and empty pieces drop, `..` pops (clamped at
 * the root), and every other piece is a segment whose bytes are all
 * percent-encoded but A-Z a-z 0-9 - . _ ~ (`%2e` stays literal text:
 * `%252e`). Absolute bytes replace the base's path. A result that would
 * read as a drive becomes the opaque form. */
PATHGATE_EXTERN int pathgate_uri_join_bytes(pathgate_uri **out, const pathgate_uri *base,
                                            const char *bytes, size_t len, pathgate_error *err);

/* ------------------------------------------------ configuration paths */

/* Resolves a path written in a configuration file, using only what is
 * given: `~` and `~/x` (`~\x` under Windows) against home (ENOHOME when
 * NULL), absolute text as itself, anything else against base (its error
 * when NULL). A base or home actually used must pass
 * pathgate_uri_validate_config (and, when the text holds a glob
 * character `*?[]{}`, pathgate_uri_validate_glob_directory); unused ones
 * are never checked. The text is refused (ECONFIG) when it holds NUL, a
 * Windows segment holding ':' (past a leading drive), a `~` suffix that
 * mixes separators, or is a bare drive `C:`. The result has no trailing
 * separator (`d:\p\x.env\` -> `file:///D:/p/x.env`), a drive letter
 * upper-cased, a UNC host lower-cased, glob characters kept literally,
 * and must itself pass pathgate_uri_validate_config. */
PATHGATE_EXTERN int pathgate_uri_resolve_config(pathgate_uri **out, const char *text, size_t len,
                                                pathgate_convention convention,
                                                const pathgate_uri *base, const pathgate_uri *home,
                                                pathgate_error *err);

/* 0 when uri has a lossless native spelling of convention: ECONVENTION
 * for a URI of the other convention (or an opaque one naming none, or
 * `file://server/`), EOPAQUE for an opaque URI, ESYNTAX when a segment
 * holds an encoded separator, EUTF8 for a non-UTF-8 byte, ECONFIG for a
 * UNC host a URL parser would rewrite (encoded or non-ASCII, or a last
 * label that reads as an IPv4 number) or a rendering that is no
 * acceptable configuration text (see resolve_config). */
PATHGATE_EXTERN int pathgate_uri_validate_config(const pathgate_uri *uri,
                                                 pathgate_convention convention,
                                                 pathgate_error *err);

/* validate_config, and the rendering holds no glob character `*?[]{}`
 * (nor `\` under POSIX, which escapes): a directory that can be put into
 * a glob pattern unchanged. ECONFIG otherwise. */
PATHGATE_EXTERN int pathgate_uri_validate_glob_directory(const pathgate_uri *uri,
                                                         pathgate_convention convention,
                                                         pathgate_error *err);

/* The native text of a resolved configuration path (NONE = inferred), a
 * UNC share root with its trailing `\` (`\\server\share\`). Fail-closed
 * (to_native's errors). */
PATHGATE_EXTERN int pathgate_uri_to_config_path(pathgate_buf *out, const pathgate_uri *uri,
                                                pathgate_convention convention,
                                                pathgate_error *err);

/* ------------------------------------------------- native path text */

/* Splits native text the way convention does, keeping empty segments
 * (POSIX on '/' only: `/a/b` gives "", "a", "b"; Windows on '/' and '\',
 * the drive a segment of its own: `C:\a` gives "C:", "a"; "" gives "").
 * Start with *pos = 0; each call returns 1 with the next segment, then 0.
 * convention NONE returns 0. */
PATHGATE_EXTERN int pathgate_path_segment_next(const char **seg, size_t *seg_len, const char *text,
                                               size_t len, pathgate_convention convention,
                                               size_t *pos);

/* 1 when text is home-relative under convention: `~` alone or followed by
 * '/' (or '\' under Windows); *suffix (optional) = text + 1, *suffix_len
 * its length (`~/a` -> `/a`, `~` -> ""). 0 otherwise (`~user/x`). */
PATHGATE_EXTERN int pathgate_home_relative_suffix(const char **suffix, size_t *suffix_len,
                                                  const char *text, size_t len,
                                                  pathgate_convention convention);

/* The plain form of a Windows device-namespace alias, as Codex reads them:
 * `\\?\UNC\s\sh\x` and `\\.\UNC\s\sh\x` -> `\\s\sh\x`, `\\?\D:\x` and
 * `\\.\D:\x` (a drive and a separator after it) -> `D:\x`. Only these
 * backslash spellings, `UNC` in upper case. out->ptr = NULL (0 returned)
 * for any other text. */
PATHGATE_EXTERN int pathgate_normalize_windows_device_path(pathgate_buf *out, const char *text,
                                                           size_t len, pathgate_error *err);

/* The path convention of an operating system name as executors report
 * it: exactly `linux` or `macos` -> POSIX, `windows` -> WINDOWS, anything
 * else (NULL too) -> NONE. */
PATHGATE_EXTERN pathgate_convention pathgate_platform_convention(const char *os_name, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_URI_H */
