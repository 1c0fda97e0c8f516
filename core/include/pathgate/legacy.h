/*
 * pathgate/legacy.h - LegacyAppPathString: the native path strings legacy
 * clients send and expect back (rules: docs/uri.md).
 *
 * Any text is accepted unvalidated (even an embedded NUL or invalid UTF-8:
 * it is only wrapped); conversions to a URI validate and fail closed,
 * rendering for a UI never fails. Immutable; may be shared read-only.
 */
#ifndef PATHGATE_LEGACY_H
#define PATHGATE_LEGACY_H

#include "common.h"
#include "uri.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pathgate_legacy pathgate_legacy;

/* Wraps a copy of the text (any length, any bytes). Fails only with ENOMEM. */
PATHGATE_EXTERN int pathgate_legacy_new(pathgate_legacy **out, const char *text, size_t len,
                                        const pathgate_allocator *alloc, pathgate_error *err);

/* NULL is a no-op. */
PATHGATE_EXTERN void pathgate_legacy_free(pathgate_legacy *path);

/* The wrapped text (NUL-terminated, may contain NUL); *len optional. */
PATHGATE_EXTERN const char *pathgate_legacy_text(const pathgate_legacy *path, size_t *len);

/* Windows for `X:\`, `X:/` or a leading `\\`; POSIX for a leading `/`;
 * NONE otherwise (not absolute). */
PATHGATE_EXTERN pathgate_convention pathgate_legacy_infer_convention(const pathgate_legacy *path);

/* Parses absolute text (convention NONE = infer). Fail-closed: the error
 * message names the text and the convention. */
PATHGATE_EXTERN int pathgate_legacy_to_uri(pathgate_uri **out, const pathgate_legacy *path,
                                           pathgate_convention convention, pathgate_error *err);

/* Renders uri as native text of the convention for the client (NONE = the
 * URI's inferred convention); uses uri's allocator. Fail-open, for display
 * (as Codex): a segment's %2F or %5C decodes into the text, a byte that is
 * no UTF-8 becomes U+FFFD, and an opaque URI renders its payload (POSIX
 * bytes starting with `/`; Windows UTF-16LE starting with `X:` and a
 * separator or two separators, a lone surrogate as U+FFFD). With an
 * explicit convention, a URI that has no text of it fails (ECONVENTION,
 * EOPAQUE); with NONE it renders the URI string instead. Use
 * pathgate_uri_to_native, which refuses all these, for a path to use. */
PATHGATE_EXTERN int pathgate_legacy_from_uri(pathgate_legacy **out, const pathgate_uri *uri,
                                             pathgate_convention convention, pathgate_error *err);

/* Text for a UI; never fails except ENOMEM (invalid UTF-8 is replaced by
 * U+FFFD, control characters are escaped). */
PATHGATE_EXTERN int pathgate_legacy_render_for_ui(pathgate_buf *out, const pathgate_legacy *path);

/* Resolves the text the way an executor would, against cwd (and home,
 * which may be NULL): `~`, `~/x` (and `~\x` under a Windows cwd) use home
 * or fail with ENOHOME; absolute text of cwd's convention parses; under a
 * Windows cwd a leading `\\` or `//` is UNC and POSIX-absolute text is
 * root-relative; another convention's absolute text is ECONVENTION; the
 * rest joins onto cwd. The result uses cwd's allocator. */
PATHGATE_EXTERN int pathgate_legacy_resolve_against(pathgate_uri **out, const pathgate_legacy *path,
                                                    const pathgate_uri *cwd,
                                                    const pathgate_uri *home, pathgate_error *err);

/* pathgate_uri_resolve_config of the wrapped text (convention NONE =
 * base's, else home's); the result uses the allocator of base or home. */
PATHGATE_EXTERN int pathgate_legacy_resolve_config(pathgate_uri **out, const pathgate_legacy *path,
                                                   const pathgate_uri *base,
                                                   const pathgate_uri *home,
                                                   pathgate_convention convention,
                                                   pathgate_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_LEGACY_H */
