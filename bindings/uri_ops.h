/*
 * uri_ops.h - PathUri and the path-text functions (docs/uri.md) described
 * once for both bindings (bindings/python/uri.c, bindings/lua/uri.c), as
 * fs_ops.h describes the file operations: per call its name, where it
 * lives, what it takes after its receiver, the core call over the
 * converted arguments, the kind of its answer, and its Python docstring.
 * Each binding turns the table into functions with one runner: read the
 * arguments by their kind, run the call, convert the answer by its kind.
 * So both front ends have the same calls, taking the same arguments and
 * answering alike (nothing where the core answers nothing, a failure as
 * each language reports one: Python raises PathError, Lua returns nil,
 * message, code).
 *
 * Wrapping a new call: one PG_URI_OP line and its name in PG_URI_OPS.
 */
#ifndef PATHGATE_BINDINGS_URI_OPS_H
#define PATHGATE_BINDINGS_URI_OPS_H

#include <stddef.h>

#include "pathgate/uri.h"

/* Where a call lives. */
typedef enum pg_uri_form {
    PG_UF_METHOD, /* uri:name(...) / uri.name(...) */
    PG_UF_GETTER, /* Python: a property; Lua: a method without arguments */
    PG_UF_CLASS,  /* PathUri.name(...): makes a PathUri */
    PG_UF_MODULE  /* pathgate.name(...) */
} pg_uri_form;

/* What a call takes after its receiver. A convention is "posix",
 * "windows", or (where it is optional) None / nil for none. */
typedef enum pg_uri_in_kind {
    PG_UI_NONE,          /* nothing */
    PG_UI_TEXT,          /* text (Python: str; Lua: a string) */
    PG_UI_TEXT_OR_BYTES, /* text; Python also takes bytes, raw native bytes (in.is_bytes) */
    PG_UI_BYTES,         /* raw native bytes (Python: bytes; Lua: a string) */
    PG_UI_OPT_TEXT,      /* text or None / nil (in.text NULL) */
    PG_UI_URI,           /* another PathUri (in.other), named by the op's arg */
    PG_UI_CONV,          /* an optional convention */
    PG_UI_TEXT_CONV,     /* text, then an optional convention */
    PG_UI_TEXT_CONV_REQ  /* text, then a convention that must be given */
} pg_uri_in_kind;

/* What a call answers; "nothing" is Python's None and Lua's nil. */
typedef enum pg_uri_out_kind {
    PG_UO_URI,       /* out.uri, a new PathUri; nothing when NULL */
    PG_UO_TEXT,      /* *out.buf, native text; nothing when its ptr is NULL */
    PG_UO_HOST_PATH, /* *out.buf, a host path (Python: pathlib.Path; Lua: a string) */
    PG_UO_BYTES,     /* *out.buf, bytes (Lua: a string) */
    PG_UO_BOOL,      /* out.flag */
    PG_UO_TRI,       /* out.flag, or nothing when the call returns 0 (unknown) */
    PG_UO_SIZE,      /* out.n, or nothing when the call returns 0 */
    PG_UO_CONV,      /* out.conv, a convention's name, or nothing for none */
    PG_UO_OK,        /* Python: None; Lua: true */
    PG_UO_VIEW,      /* out.view (text of the receiver or the argument), or nothing (0) */
    PG_UO_URIS,      /* a list: the receiver, then each call's out.uri (in.self the one
                        before) until NULL */
    PG_UO_TEXTS      /* a list: out.view for each call returning 1 (out.pos carried), until 0 */
} pg_uri_out_kind;

typedef struct pg_uri_in {
    const pathgate_uri *self; /* the receiver (METHOD, GETTER) */
    const char *text;         /* the TEXT kinds, BYTES */
    size_t len;
    int is_bytes; /* TEXT_OR_BYTES given raw bytes (Python only) */
    const pathgate_uri *other;
    pathgate_convention conv; /* NONE when absent */
} pg_uri_in;

typedef struct pg_uri_out {
    pathgate_uri *uri; /* URI, URIS: the binding owns it after the call */
    pathgate_buf *buf; /* TEXT, HOST_PATH, BYTES: the binding's (empty) buffer */
    int flag;          /* BOOL, TRI */
    size_t n;          /* SIZE */
    pathgate_convention conv;
    const char *view; /* VIEW, TEXTS */
    size_t view_len;
    size_t pos;         /* TEXTS: where the next item starts (0 before the first) */
    pathgate_error err; /* what a failure says */
} pg_uri_out;

typedef struct pg_uri_op {
    const char *name;
    pg_uri_form form;
    pg_uri_in_kind in;
    pg_uri_out_kind out;
    const char *arg; /* the argument's name in messages (Python's keyword for a convention) */
    /* < 0: a PATHGATE_* failure (out.err says why); else 0 or 1 as the
     * answer's kind says */
    int (*call)(const pg_uri_in *in, pg_uri_out *r);
    const char *doc; /* Python's docstring (its first line the signature) */
} pg_uri_op;

/* The convention given, or (none given) the URI's own. */
static inline pathgate_convention pg_uri_conv_or_own(const pg_uri_in *in)
{
    return in->conv == PATHGATE_CONVENTION_NONE ? pathgate_uri_convention(in->self) : in->conv;
}

/* PG_URI_OP(name, form, in, out, arg, call, doc): pg_uri_op_<name>, its
 * call one expression over the arguments `in` and the answer `r`. */
#define PG_URI_OP(name, form, in_kind, out_kind, arg, call, doc)                                   \
    static int pg_uri__##name(const pg_uri_in *in, pg_uri_out *r)                                  \
    {                                                                                              \
        (void)in;                                                                                  \
        (void)r;                                                                                   \
        return call;                                                                               \
    }                                                                                              \
    static const pg_uri_op pg_uri_op_##name = {                                                    \
        #name, PG_UF_##form, PG_UI_##in_kind, PG_UO_##out_kind, arg, pg_uri__##name, doc};

/* ------------------------------------------------------------ creators */

PG_URI_OP(parse, CLASS, TEXT, URI, "text",
          pathgate_uri_parse(&r->uri, in->text, in->len, NULL, &r->err),
          "parse($type, text, /)\n--\n\n"
          "Parse a file: URI (scheme file only; no credentials, port, query or\n"
          "fragment). Raises PathError.")

PG_URI_OP(from_native, CLASS, TEXT_CONV, URI, "text",
          pathgate_uri_from_native(&r->uri, in->text, in->len, in->conv, NULL, &r->err),
          "from_native($type, text, /, convention=None)\n--\n\n"
          "Convert an absolute native path ('posix', 'windows', or None to infer\n"
          "it from the text) to a PathUri. Paths with no honest URI form become\n"
          "the opaque form. Raises PathError.")

/* ---------------------------------------------------------- properties */

PG_URI_OP(convention, GETTER, NONE, CONV, NULL, (r->conv = pathgate_uri_convention(in->self), 0),
          "'posix' or 'windows', inferred from the spelling; None only for an\n"
          "opaque URI whose payload names neither.")

PG_URI_OP(is_opaque, GETTER, NONE, BOOL, NULL, (r->flag = pathgate_uri_is_opaque(in->self) == 1, 0),
          "True for the file:///%00/bad/path/<base64url> fallback form.")

PG_URI_OP(parent, GETTER, NONE, URI, NULL, pathgate_uri_parent(&r->uri, in->self, &r->err),
          "The parent PathUri (no trailing '/'); None at a root (/, a drive, a\n"
          "UNC share) and for an opaque URI.")

PG_URI_OP(basename, GETTER, NONE, TEXT, NULL, pathgate_uri_basename(r->buf, in->self, &r->err),
          "The decoded last segment, a drive or share included ('C:' for\n"
          "file:///C:/); None for file:///, file://server/ and an opaque URI.")

PG_URI_OP(lexical_depth, GETTER, NONE, SIZE, NULL, pathgate_uri_lexical_depth(&r->n, in->self) != 0,
          "The number of segments below the root (the drive or share counts);\n"
          "None for an opaque URI or when a segment holds an encoded separator.")

PG_URI_OP(encoded_path, GETTER, NONE, VIEW, NULL,
          ((r->view = pathgate_uri_encoded_path(in->self, &r->view_len)), 1),
          "The percent-encoded path without the authority ('/share/x' for\n"
          "file://server/share/x).")

PG_URI_OP(decoded_path_bytes, GETTER, NONE, BYTES, NULL,
          pathgate_uri_decoded_path(r->buf, in->self, &r->err),
          "The path decoded once, as bytes (no UTF-8 check).")

/* ------------------------------------------------------------- methods */

PG_URI_OP(starts_with, METHOD, URI, BOOL, "base",
          (r->flag = pathgate_uri_starts_with(in->self, in->other) == 1, 0),
          "starts_with($self, base, /)\n--\n\n"
          "True when this URI lies at or under base (segment-wise).")

PG_URI_OP(relative_to, METHOD, URI, TEXT, "base",
          pathgate_uri_relative_to(r->buf, in->self, in->other, &r->err),
          "relative_to($self, base, /)\n--\n\n"
          "The decoded path below base joined with the native separator ('' when\n"
          "equal), or None when not contained.")

PG_URI_OP(join, METHOD, TEXT_OR_BYTES, URI, "text",
          in->is_bytes ? pathgate_uri_join_bytes(&r->uri, in->self, in->text, in->len, &r->err)
                       : pathgate_uri_join(&r->uri, in->self, in->text, in->len, &r->err),
          "join($self, text, /)\n--\n\n"
          "Join model-supplied text (relative or absolute, any OS) using this\n"
          "URI's convention; bytes are raw native bytes (a POSIX base only when\n"
          "they are not UTF-8). Raises PathError.")

PG_URI_OP(join_bytes, METHOD, BYTES, URI, "text",
          pathgate_uri_join_bytes(&r->uri, in->self, in->text, in->len, &r->err),
          "join_bytes($self, text, /)\n--\n\n"
          "join with raw native bytes (a POSIX base only when they are not\n"
          "UTF-8). Raises PathError.")

PG_URI_OP(join_descendant, METHOD, TEXT, URI, "text",
          pathgate_uri_join_descendant(&r->uri, in->self, in->text, in->len, &r->err),
          "join_descendant($self, text, /)\n--\n\n"
          "Join, then require the result to stay under this URI (PathError\n"
          "kind 'not_descendant' otherwise).")

PG_URI_OP(ancestors, METHOD, NONE, URIS, NULL, pathgate_uri_parent(&r->uri, in->self, &r->err),
          "ancestors($self, /)\n--\n\n"
          "This URI and each parent up to the root (Python: an iterator; Lua:\n"
          "a sequence).")

PG_URI_OP(overlaps, METHOD, URI, TRI, "other",
          (r->flag = pathgate_uri_overlaps(in->self, in->other), r->flag >= 0),
          "overlaps($self, other, /)\n--\n\n"
          "True when either URI starts with the other, False when neither does,\n"
          "None when unknown (either has no lexical_depth). Symmetric.")

PG_URI_OP(validate_config, METHOD, CONV, OK, "convention",
          pathgate_uri_validate_config(in->self, pg_uri_conv_or_own(in), &r->err),
          "validate_config($self, /, convention=None)\n--\n\n"
          "None when this URI has a lossless native spelling usable in a\n"
          "configuration of the convention (None = its own); PathError otherwise.")

PG_URI_OP(validate_glob_directory, METHOD, CONV, OK, "convention",
          pathgate_uri_validate_glob_directory(in->self, pg_uri_conv_or_own(in), &r->err),
          "validate_glob_directory($self, /, convention=None)\n--\n\n"
          "validate_config, and no glob character (nor '\\' under POSIX) in its\n"
          "native text; PathError otherwise.")

PG_URI_OP(to_config_path, METHOD, CONV, TEXT, "convention",
          pathgate_uri_to_config_path(r->buf, in->self, in->conv, &r->err),
          "to_config_path($self, /, convention=None)\n--\n\n"
          "Native text of a resolved configuration path (a UNC share root keeps\n"
          "its trailing '\\'). Raises PathError.")

PG_URI_OP(to_native, METHOD, CONV, TEXT, "convention",
          pathgate_uri_to_native(r->buf, in->self, in->conv, &r->err),
          "to_native($self, /, convention=None)\n--\n\n"
          "Native text for a convention (None = the inferred one). Raises\n"
          "PathError ('incompatible_convention', 'opaque').")

PG_URI_OP(to_host_path, METHOD, NONE, HOST_PATH, NULL,
          pathgate_uri_to_host_path(r->buf, in->self, &r->err),
          "to_host_path($self, /)\n--\n\n"
          "A pathlib.Path usable on this machine; PathError unless the URI's\n"
          "convention is the host's (fail-closed).")

PG_URI_OP(display, METHOD, NONE, TEXT, NULL, pathgate_uri_display(r->buf, in->self),
          "display($self, /)\n--\n\n"
          "Text for a UI (never fails): the native rendering, lossy (%2F decodes,\n"
          "bad UTF-8 is U+FFFD, an opaque payload is decoded), control characters\n"
          "escaped; the URI when there is none.")

/* ---------------------------------------------------- module functions */

PG_URI_OP(path_segments, MODULE, TEXT_CONV_REQ, TEXTS, "text",
          pathgate_path_segment_next(&r->view, &r->view_len, in->text, in->len, in->conv, &r->pos),
          "path_segments(text, /, convention)\n--\n\n"
          "Native path text split the way the convention does, empty segments\n"
          "kept: 'posix' on '/' only ('/a' gives ['', 'a']), 'windows' on '/'\n"
          "and '\\' (the drive a segment of its own).")

PG_URI_OP(home_relative_suffix, MODULE, TEXT_CONV_REQ, VIEW, "text",
          pathgate_home_relative_suffix(&r->view, &r->view_len, in->text, in->len, in->conv),
          "home_relative_suffix(text, /, convention)\n--\n\n"
          "What follows '~' in '~', '~/x' (and '~\\x' under 'windows'): '' or\n"
          "'/x'; None for any other text ('~user/x').")

PG_URI_OP(normalize_windows_device_path, MODULE, TEXT, TEXT, "text",
          pathgate_normalize_windows_device_path(r->buf, in->text, in->len, &r->err),
          "normalize_windows_device_path(text, /)\n--\n\n"
          "The plain form of a Windows device alias: '\\\\?\\D:\\x' -> 'D:\\x',\n"
          "'\\\\?\\UNC\\s\\sh\\x' -> '\\\\s\\sh\\x' (also '\\\\.\\'); None for other text.")

PG_URI_OP(platform_convention, MODULE, OPT_TEXT, CONV, "os_name",
          (r->conv = pathgate_platform_convention(in->text, in->len), 0),
          "platform_convention(os_name, /)\n--\n\n"
          "'posix' for 'linux' and 'macos', 'windows' for 'windows', None for\n"
          "anything else.")

/* Every call: X(name) for each language's functions. */
/* clang-format off */
#define PG_URI_OPS(X)                                                                              \
    X(parse) X(from_native) X(convention) X(is_opaque) X(parent) X(basename) X(lexical_depth)      \
    X(encoded_path) X(decoded_path_bytes) X(starts_with) X(relative_to) X(join) X(join_bytes)      \
    X(join_descendant) X(ancestors) X(overlaps) X(validate_config) X(validate_glob_directory)       \
    X(to_config_path) X(to_native) X(to_host_path) X(display) X(path_segments)                     \
    X(home_relative_suffix) X(normalize_windows_device_path) X(platform_convention)
/* clang-format on */

#define PG__URI_COUNT_ONE(name) +1
#define PG_URI_OP_COUNT (0 PG_URI_OPS(PG__URI_COUNT_ONE))

#endif
