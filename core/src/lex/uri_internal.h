/* uri_internal.h - internal: the pathgate_uri layout and the builder that
 * the constructors (parse, from_native, join) write through.
 *
 * A pathgate_uri is ONE allocation: this header followed by the
 * NUL-terminated URI string. Everything else (segments, decoded forms) is
 * computed on demand from the string and three offsets:
 *
 *   file://HOST/C:/a/b        host_end = 7 + strlen(HOST): the path's '/'
 *          ^   ^  ^           root_end: where the segments after the root
 *          7   |  root_end              (`/`, a drive `C:/`, a share
 *              host_end                 `share/`) begin; == len at a root
 *
 * The canonical string has no empty segments and no dot segments; it may
 * end in ONE '/' after its last segment (the trailing-separator flag:
 * `file:///tmp/`, `file:///C:/`, `file://server/share/`), which the
 * lexical operations ignore and equality, to_native and display keep.
 * root_end is capped at len (`file:///C:` and `file:///C:/` are both
 * roots). `file:///` and `file://server/` have no segment at all. An
 * opaque URI is `file:///%00/bad/path/<b64>` with root_end == len. */
#ifndef PATHGATE_URI_INTERNAL_H
#define PATHGATE_URI_INTERNAL_H

#include <stdint.h>

#include "pathgate/uri.h"

struct pathgate_uri {
    pathgate_allocator alloc;
    uint32_t len;
    uint32_t host_end;
    uint32_t root_end;
    uint8_t convention; /* pathgate_convention */
    uint8_t opaque;
    char str[];
};

#define PATHGATE__URI_PREFIX "file://"
#define PATHGATE__URI_PREFIX_LEN 7
#define PATHGATE__OPAQUE_PREFIX "file:///%00/bad/path/"
#define PATHGATE__OPAQUE_PREFIX_LEN 21

static inline int pathgate__is_alpha(unsigned char c)
{
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
}

static inline unsigned char pathgate__ascii_lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

/* 1 for a drive segment as URIs spell it: `X:` or `X%3A` (any case). */
int pathgate__uri_is_drive_seg(const char *s, size_t n);
/* 1 for `X|`, the legacy drive spelling WHATWG URL parsers (browsers,
 * Node) read as `X:` in a file URL's first segment: parse reads it so too,
 * and a POSIX path whose first segment it is has no honest URI form. */
static inline int pathgate__uri_is_pipe_drive_seg(const char *s, size_t n)
{
    return n == 2 && pathgate__is_alpha((unsigned char)s[0]) && s[1] == '|';
}

/* Allocates a URI able to hold a string of cap bytes; NULL on ENOMEM. */
pathgate_uri *pathgate__uri_alloc(const pathgate_allocator *a, size_t cap);

/*
 * The builder writes `file://HOST/seg/seg...` into a buffer: a caller's
 * stack buffer (parse, from_native: finish then allocates the exact
 * block and copies) or the block itself (join: sized by an upper bound).
 * Segments are separated by '/'; `..` pops, never below `floor` segments
 * (1 once a drive or share is the first segment). Writes cannot exceed
 * cap by construction: callers check the worst case up front and set
 * `overflow` instead (finish then fails with EINVAL, an internal bug).
 */
typedef struct pathgate__uri_builder {
    char *buf;       /* the string being built */
    size_t cap;      /* bytes buf may hold (one more is reserved, see finish) */
    pathgate_uri *u; /* the block when buf lies inside it, else NULL */
    const pathgate_allocator *alloc;
    size_t len;
    size_t host_end;  /* index of the path's leading '/' */
    size_t seg_start; /* host_end + 1 */
    size_t count;     /* segments (drive/share included) */
    size_t floor;     /* segments `..` may not pop */
    int trailing;     /* end with one '/' after the last segment */
    int overflow;
} pathgate__uri_builder;

/* A stack buffer big enough for any string built from at most
 * PATHGATE_PATH_MAX input bytes (every byte may triple), plus the
 * reserved byte. */
#define PATHGATE__URI_STACK (PATHGATE__URI_PREFIX_LEN + 3 * PATHGATE_PATH_MAX + 4)
/* ...which is exactly the public bound on URI strings, so from_native
 * never builds a URI that parse would refuse as too long. */
_Static_assert(PATHGATE__URI_STACK == PATHGATE_URI_MAX, "URI_MAX is the from_native bound");

/* Starts in buf[0..cap] (cap + 1 bytes) with `file://` host `/`. host is
 * URI text written as given, or, with encode_host, raw text percent-encoded
 * so that only RFC 3986 unreserved and sub-delims stay literal. */
void pathgate__ub_init(pathgate__uri_builder *b, const pathgate_allocator *a, char *buf, size_t cap,
                       const char *host, size_t host_len, int encode_host);
/* 1 when uri ends with the trailing-separator flag (a '/' after a segment). */
static inline int pathgate__uri_trailing(const pathgate_uri *u)
{
    return !u->opaque && u->len > u->host_end + 1u && u->str[u->len - 1] == '/';
}

/* Starts from a copy of base (its trailing '/' dropped) inside a new
 * block with room for `extra` more bytes. Returns 0 or PATHGATE_ENOMEM. */
int pathgate__ub_start_from(pathgate__uri_builder *b, const pathgate_uri *base, size_t extra);
/* Appends one segment s[0..n) copied as is (already URI text). */
void pathgate__ub_push_raw(pathgate__uri_builder *b, const char *s, size_t n);

enum {
    PATHGATE__UB_WIN = 1,       /* '\' separates too */
    PATHGATE__UB_DESCENDANT = 2 /* `..` below `depth` segments, or (with WIN) a
                                   segment holding ':', is ENOTDESC */
};
/* Appends native path text s[0..n), split on '/' (and '\' with WIN):
 * empty and `.` segments drop, `..` pops (clamped at the root, or ENOTDESC
 * in descendant mode), every other segment is percent-encoded with the
 * segment set. Sets the trailing flag when the last separated piece is
 * empty (`a/`, `a//`), clears it otherwise. Returns 0 or
 * PATHGATE_ENOTDESC (err filled). */
int pathgate__ub_push_native(pathgate__uri_builder *b, const char *s, size_t n, int flags,
                             size_t depth, pathgate_error *err);
/* Removes the last segment: 0, or -1 (nothing done) at the floor. */
int pathgate__ub_pop(pathgate__uri_builder *b);
/* Truncates to the root: the first `floor` segments. */
void pathgate__ub_to_root(pathgate__uri_builder *b);
/* The first segment (NULL when none). */
const char *pathgate__ub_first(const pathgate__uri_builder *b, size_t *n);
/* Completes the URI: adds the trailing '/' when the flag is set and there
 * is a segment (the reserved byte), upper-cases a drive letter, computes root_end and
 * the convention, and hands over the block (allocating it when building
 * in a caller's buffer). Returns 0, ENOMEM or EINVAL (overflow); the
 * builder is released either way. */
int pathgate__ub_finish(pathgate__uri_builder *b, pathgate_uri **out, pathgate_error *err);
/* Releases an unfinished builder. */
void pathgate__ub_abandon(pathgate__uri_builder *b);

/* Builds the opaque URI of payload[0..n) with convention inferred from
 * the payload. Returns 0 or PATHGATE_ENOMEM. */
int pathgate__uri_make_opaque(pathgate_uri **out, const pathgate_allocator *a,
                              const unsigned char *payload, size_t n, pathgate_error *err);
/* Builds the opaque URI whose payload text b64[0..n) is already canonical. */
int pathgate__uri_make_opaque_b64(pathgate_uri **out, const pathgate_allocator *a, const char *b64,
                                  size_t n, pathgate_convention convention, pathgate_error *err);
/* The convention an opaque payload names (its first bytes suffice). */
pathgate_convention pathgate__opaque_convention(const unsigned char *payload, size_t n);

/* pathgate_uri_parse; slow skips the fast paths (the plain-text one and
 * leaving uriparser out for a host-less URI whose path is plainly valid),
 * so that the tests can compare both. */
int pathgate__uri_parse_ex(pathgate_uri **out, const char *text, size_t len,
                           const pathgate_allocator *alloc, pathgate_error *err, int slow);

/* from_native with text already validated as the caller requires; join
 * uses it for absolute text (the NUL check differs). */
int pathgate__uri_from_native(pathgate_uri **out, const char *text, size_t len,
                              pathgate_convention convention, const pathgate_allocator *a,
                              pathgate_error *err);
/* The same; slow skips the fast paths for plain text (the tests compare). */
int pathgate__uri_from_native_ex(pathgate_uri **out, const char *text, size_t len,
                                 pathgate_convention convention, const pathgate_allocator *a,
                                 pathgate_error *err, int slow);

/* to_native without its fail-closed checks, for display: a segment's
 * encoded separator decodes into the text, Windows bytes need not be
 * UTF-8. Errors: EOPAQUE, ECONVENTION, ENOMEM. */
int pathgate__uri_native_raw(pathgate_buf *out, const pathgate_uri *uri,
                             pathgate_convention convention, pathgate_error *err);

/* The opaque payload of u decoded into dst (room for u->len bytes);
 * returns its length. */
size_t pathgate__uri_opaque_payload(unsigned char *dst, const pathgate_uri *u);

/* The UI form of text[0..len) into out (when not NULL; room for 6 bytes
 * per input byte), its length returned: valid UTF-8 copied, each maximal
 * ill-formed subpart -> U+FFFD; with escape, \t \n \r as such, other C0
 * and DEL as \xNN and the other code points a UI must not show raw as
 * \uNNNN (uri_render.c). */
size_t pathgate__text_render(char *out, const char *text, size_t len, int escape);

/* Fail-open rendering (uri_render.c): native text of the convention (NONE =
 * inferred) as valid UTF-8, lossy (a byte that is no UTF-8 and a lone
 * UTF-16 surrogate become U+FFFD, `%2F` and `%5C` decode into the text);
 * an opaque URI renders its payload when it is text of that convention.
 * for_ui also escapes control characters (and NUL). Errors: EOPAQUE,
 * ECONVENTION, ENOMEM. */
int pathgate__uri_render(pathgate_buf *out, const pathgate_uri *uri, pathgate_convention convention,
                         int for_ui, pathgate_error *err);

/* A Windows device alias Codex normalises (uri_text.c): 1 with *skip =
 * the prefix length and *unc set for `\\?\UNC\`, `\\.\UNC\` (the plain
 * form is `\\` + the rest) and clear for `\\?\X:\`, `\\.\X:\` (the
 * rest); 0 otherwise. */
int pathgate__windows_device_alias(size_t *skip, int *unc, const char *s, size_t n);

#endif
