/*
 * editor_internal.h - internal: the parts of the text editor tool
 * (docs/editor.md).
 *
 *   editor.c       the editor (undo history), the commands, the dispatch
 *   editor_text.c  the reference's text rules as Python applies them:
 *                  UTF-8 errors, universal newlines, expandtabs, `cat -n`
 */
#ifndef PATHGATE_EDITOR_INTERNAL_H
#define PATHGATE_EDITOR_INTERNAL_H

#include <stdint.h>

#include "pathgate/editor.h"
#include "strbuf.h"

/* Python's UnicodeDecodeError text for the first ill-formed sequence of s
 * ("'utf-8' codec can't decode byte 0xff in position 0: invalid start
 * byte") appended to out; 0 when s is well-formed, 1 when it was not. */
int pathgate__ed_utf8_error(pathgate__sb *out, const char *s, size_t len);

/* Universal newlines (Python's text mode): "\r\n" and "\r" become "\n".
 * *len is updated; the text is rewritten in place (it only shrinks). */
void pathgate__ed_newlines(char *s, size_t *len);

/* Python's str.expandtabs(8) of s appended to out: columns count
 * characters, "\n" and "\r" restart them. */
void pathgate__ed_expandtabs(pathgate__sb *out, const char *s, size_t len);

/* Characters (code points) of well-formed s. */
size_t pathgate__ed_chars(const char *s, size_t len);

/* The byte length of the first n characters of s (all of it when it has
 * fewer). */
size_t pathgate__ed_prefix(const char *s, size_t len, size_t n);

/* The reference's _make_output: "Here's the result of running `cat -n` on
 * <descriptor>:\n" then the content (cut to max characters with the
 * reference's notice, tabs expanded) numbered from init_line, then "\n". */
void pathgate__ed_cat_n(pathgate__sb *out, const char *content, size_t len, const char *descriptor,
                        int64_t init_line, size_t max_chars);

/* Python's str.count(sub) on well-formed text (an empty sub counts every
 * position: characters + 1). */
size_t pathgate__ed_count(const char *s, size_t len, const char *sub, size_t sub_len);

#endif
