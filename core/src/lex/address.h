/*
 * address.h - internal: the grammar of canonical addresses (docs/spec.md
 * section 4), the legacy aliases, lexical normalisation and canonical
 * formatting. A pure module: no system call, no allocation. The set of
 * configured names comes in through lookup callbacks.
 *
 * Emitted: `root:<key>`, `root:<key>/<rel>`, `mod:<Name>`, `mod:<Name>/<rel>`.
 * <rel> is normalised POSIX: no empty, `.` or `..` segments, no leading or
 * trailing `/`, never a `\`.
 */
#ifndef PATHGATE_ADDRESS_H
#define PATHGATE_ADDRESS_H

#include <stddef.h>

#include "pathgate/resolver.h"
#include "../util/text.h"

/* The configured names: each callback returns the index of the name
 * (exact, byte-wise match) or -1. */
typedef struct pathgate__names {
    long (*root)(void *ctx, const char *key, size_t len);
    long (*mod)(void *ctx, const char *name, size_t len);
    void *ctx;
} pathgate__names;

/* What the text is. */
typedef enum pathgate__form {
    PATHGATE__FORM_ADDRESS, /* canonical or legacy alias, base found */
    PATHGATE__FORM_URI,     /* file: URI (scheme any case) */
    PATHGATE__FORM_HOST,    /* POSIX-absolute host path */
    PATHGATE__FORM_RELATIVE /* relative text, needs a base */
} pathgate__form;

typedef struct pathgate__parsed {
    pathgate__form form;
    int is_mod; /* ADDRESS: 1 for mod:, 0 for root: */
    long index; /* ADDRESS: index given by the lookup callback */
    /* ADDRESS: the raw <rel> (`\` not yet read as `/`, not normalised);
     * otherwise the whole text with surrounding whitespace stripped. */
    const char *text;
    size_t len;
} pathgate__parsed;

/*
 * Classifies resolver input. Checks, in this order: longer than
 * PATHGATE_PATH_MAX (TOO_LONG), a NUL byte or ill-formed UTF-8 (ENCODING);
 * then strips surrounding whitespace and refuses empty text or any C0
 * control character or DEL left inside (SYNTAX). Then:
 *   root:<key>[/<rel>]        key up to the first `/` or `\`
 *   mod:<Name>[/<rel>]        Name up to the first `/` or `:`; when that
 *                             is not configured, the longest configured
 *                             name ending just before a `\` of it
 *   mod:<Name>:/<rel>         legacy, only where `:/` (or `:\`) directly
 *                             follows the name
 *   ROOT_<KEY>:/<rel>         legacy, KEY [A-Za-z][A-Za-z0-9_]* read in
 *                             lower case (`ROOT_REPO:/x` -> root:repo/x)
 *   /root:..., /mod:...       the address above with a leading `/` (how
 *                             deepagents shows it); read as the address
 *   /pathgate/root/<key>[/<rel>], /pathgate/mod/<Name>[/<rel>]
 *                             the bases' directories in a command's view
 *                             (docs/exec.md); read as the address
 *   file:...                  URI
 * then, for a POSIX host (`host`, the host's convention):
 *   /...                      host path
 *   `\...`, `X:...` (a drive) Windows-absolute: OUTSIDE_BASES
 * for a Windows host:
 *   `X:\...`, `X:/...`, `\\server\share...`, `\\?\...` (either
 *                             separator) host path
 *   `X:...`, `\...`, `/...`    drive-relative or rootless: OUTSIDE_BASES
 * and for both:
 *   a first segment with `:`  SYNTAX (an unknown namespace or scheme)
 *   anything else             relative
 * Unknown key or name: UNKNOWN_ROOT / UNKNOWN_MOD (also bare `root:`).
 * Returns PATHGATE_REASON_OK with *out filled, or the reason.
 */
pathgate_reason pathgate__address_parse(pathgate__parsed *out, const char *text, size_t len,
                                        const pathgate__names *names, pathgate_convention host);

/*
 * Builds a canonical address into buf[0..cap): `root:<name>` or
 * `mod:<name>`, then `/<segment>` for each segment of base_rel followed by
 * the segments of rel. Both are read with `\` as `/`; empty and `.`
 * segments drop; `..` removes the previous segment. NUL-terminated.
 * *len gets the length, *rel_off the offset of <rel> in buf (== *len when
 * <rel> is empty). Returns OK, ESCAPES_ROOT (a `..` with nothing left to
 * remove) or TOO_LONG (the address would not fit in cap - 1 bytes).
 */
pathgate_reason pathgate__address_build(char *buf, size_t cap, size_t *len, size_t *rel_off,
                                        int is_mod, const char *name, size_t name_len,
                                        const char *base_rel, size_t base_rel_len, const char *rel,
                                        size_t rel_len);

/*
 * Splits an exactly canonical address (as a ref carries it): no
 * whitespace, no alias, no `\`, <rel> already normalised. On success
 * returns 0 with *is_mod, *index and *rel (pointing into text; "" at the
 * base, *rel_len its length); -1 otherwise.
 */
int pathgate__address_split(int *is_mod, long *index, const char **rel, size_t *rel_len,
                            const char *text, size_t len, const pathgate__names *names);

/* A valid root key: [a-z][a-z0-9_]*. */
int pathgate__address_key_valid(const char *key, size_t len);

/* A valid mod name: non-empty, well-formed UTF-8, no `/`, `:`, NUL, C0
 * control or DEL, and no whitespace at either end (which resolve would
 * strip, so that its canonical address would not round-trip). */
int pathgate__address_mod_name_valid(const char *name, size_t len);

/* 1 when a file or directory name (len > 0) can stand in a canonical
 * address that reads back as itself: well-formed UTF-8, no `\` (read as
 * `/`), no C0 control character or DEL (refused), and no whitespace at
 * either end (resolve strips it: `x ` would read back as `x`). The walks
 * of ls, glob and grep list only such names and count the others
 * (`skipped_names`). Inline: the walks call it for every entry. */
static inline int pathgate__address_name_listable(const char *name, size_t len)
{
    if (pathgate__is_space((unsigned char)name[0]) ||
        pathgate__is_space((unsigned char)name[len - 1]))
        return 0;
    int ascii = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x20 || c == 0x7F || c == '\\')
            return 0;
        ascii &= c < 0x80;
    }
    return ascii || pathgate__utf8_valid(name, len);
}

/* s[0..n) (relative, '/'-separated, as a symlink or a config file says
 * it) normalised into out (cap bytes): empty and `.` segments dropped,
 * `..` applied, never above the start. 0, or -1 when a `..` would rise
 * above it or the result does not fit. */
int pathgate__rel_normalise(char *out, size_t cap, const char *s, size_t n);

#endif
