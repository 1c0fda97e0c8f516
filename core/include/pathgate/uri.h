/*
 * pathgate/uri.h - PathUri: an immutable absolute location as a file: URI.
 *
 * A URI never records an OS; its path convention is inferred from its
 * spelling (Windows when it has a host or its first segment is a drive,
 * POSIX otherwise). Every function here is pure text: none touches the
 * filesystem. See DESIGN.md section 2 for the full contract.
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
                                             const pathgate_allocator *alloc,
                                             pathgate_error *err);

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
 * base's convention; see DESIGN.md section 2 for every rule. */
PATHGATE_EXTERN int pathgate_uri_join(pathgate_uri **out, const pathgate_uri *base,
                                      const char *text, size_t len, pathgate_error *err);

/* join, then require the result to stay under base (ENOTDESC otherwise);
 * rejects absolute text and, under Windows, any segment containing `:`. */
PATHGATE_EXTERN int pathgate_uri_join_descendant(pathgate_uri **out, const pathgate_uri *base,
                                                 const char *text, size_t len,
                                                 pathgate_error *err);

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

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_URI_H */
