/* text.h - internal: validation of the (pointer, length) text inputs. */
#ifndef PATHGATE_TEXT_H
#define PATHGATE_TEXT_H

#include "pathgate/common.h"

/* 1 when s[0..len) is well-formed UTF-8 (no overlongs, no surrogates,
 * nothing above U+10FFFF), 0 otherwise. NUL bytes are well-formed here. */
int pathgate__utf8_valid(const char *s, size_t len);

/* The standard gate for text naming a path: 0, or PATHGATE_EINVAL (s NULL
 * with len > 0), PATHGATE_ETOOLONG (len > max), PATHGATE_ENUL (an embedded
 * NUL), PATHGATE_EUTF8 (ill-formed UTF-8), with err filled. The message
 * names the problem, never the text. */
int pathgate__text_check(const char *s, size_t len, size_t max, pathgate_error *err);

#endif
