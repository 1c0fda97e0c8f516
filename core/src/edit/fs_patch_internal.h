/*
 * fs_patch_internal.h - internal: the parts of apply_patch (docs/patch.md).
 *
 *   fs_patch_parse.c  patch text -> hunks and chunks (Codex's parser.rs)
 *   fs_patch_seek.c   finding a chunk's lines (seek_sequence.rs) and an
 *                     updated file's new content (lib.rs, text_file.rs)
 *   fs_patch_apply.c  resolution, the in-memory plan, staging, commit and
 *                     rollback, and the result
 *
 * Nothing here copies the patch: spans point into the caller's text.
 */
#ifndef PATHGATE_FS_PATCH_INTERNAL_H
#define PATHGATE_FS_PATCH_INTERNAL_H

#include <stddef.h>

#include "pathgate/fs_patch.h"

typedef struct pathgate__span {
    const char *p;
    size_t len;
} pathgate__span;

/* One `@@` chunk of an Update File hunk. Lines are indices into the
 * patch's olds/news arrays; ctx lists the context lines (those on both
 * sides) as (index in old_lines, index in new_lines) pairs. */
typedef struct pathgate__patch_chunk {
    int has_context;
    pathgate__span context; /* the text after "@@ " */
    size_t old_first, old_count;
    size_t new_first, new_count;
    size_t ctx_first, ctx_count;
    int eof; /* "*** End of File" ended it */
} pathgate__patch_chunk;

typedef enum pathgate__hunk_kind {
    PATHGATE__HUNK_ADD = 1,
    PATHGATE__HUNK_DELETE = 2,
    PATHGATE__HUNK_UPDATE = 3
} pathgate__hunk_kind;

typedef struct pathgate__patch_hunk {
    pathgate__hunk_kind kind;
    pathgate__span path;
    int has_move;
    pathgate__span move_to;
    size_t add_off, add_len; /* Add File: its content in the patch's adds */
    size_t chunk_first, chunk_count;
} pathgate__patch_hunk;

typedef struct pathgate__patch {
    const pathgate_allocator *a;
    pathgate__patch_hunk *hunks;
    size_t nhunks, hcap;
    pathgate__patch_chunk *chunks;
    size_t nchunks, ccap;
    pathgate__span *olds;
    size_t nolds, ocap;
    pathgate__span *news;
    size_t nnews, ncap;
    size_t *ctx; /* pairs */
    size_t nctx, xcap;
    char *adds;
    size_t nadds, acap;
} pathgate__patch;

void pathgate__patch_init(pathgate__patch *p, const pathgate_allocator *a);
void pathgate__patch_free(pathgate__patch *p);

/*
 * Parses text as Codex's lenient parser does. 0; PATHGATE_EPATCH with
 * *msg (allocated with p->a, *msg_len bytes) set to what Codex's command
 * prints ("Invalid patch: ..." or "Invalid patch hunk on line N: ...");
 * or PATHGATE_ENOMEM. An empty patch parses (to no hunks).
 */
int pathgate__patch_parse(pathgate__patch *p, const char *text, size_t len, char **msg,
                          size_t *msg_len);

/* ---------------------------------------------------------- whitespace */

/* Unicode White_Space, as Rust's char::is_whitespace (and so str::trim). */
int pathgate__rs_space(long cp);
/* s without the White_Space at its start / end / both. */
pathgate__span pathgate__rs_trim_start(pathgate__span s);
pathgate__span pathgate__rs_trim_end(pathgate__span s);
pathgate__span pathgate__rs_trim(pathgate__span s);

/* ------------------------------------------------------------- seeking */

/* A line of a file: its text without the terminator, and the terminator
 * (0: none, the last line; 1: "\n"; 2: "\r\n"). */
typedef struct pathgate__src_line {
    const char *p;
    size_t len;
    unsigned char ending;
} pathgate__src_line;

/*
 * seek_sequence: the first index >= start (with eof: only the last
 * possible one) where pat[0..m) lines up with lines, trying exact
 * equality, then equality without trailing White_Space, then without
 * White_Space at either end, then with typographic punctuation read as
 * ASCII. 1 and *at when found, 0 otherwise (an empty pattern is found at
 * start).
 */
int pathgate__patch_seek(size_t *at, const pathgate__src_line *lines, size_t n,
                         const pathgate__span *pat, size_t m, size_t start, int eof);

/*
 * The content of the file `content` (len bytes, valid UTF-8) after the
 * chunks of Update File hunk h: *out (allocated with a) and *out_len.
 * PATHGATE_ECONFLICT with *msg set to Codex's "Failed to find ..." message
 * naming `address`; PATHGATE_ENOMEM.
 */
int pathgate__patch_update(char **out, size_t *out_len, char **msg, size_t *msg_len,
                           const pathgate__patch *p, const pathgate__patch_hunk *h,
                           const char *address, const char *content, size_t len,
                           const pathgate_allocator *a);

#endif
