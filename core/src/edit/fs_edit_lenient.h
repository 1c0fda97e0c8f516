/*
 * fs_edit_lenient.h - internal: the lenient match of
 * PATHGATE_FS_EDIT_LENIENT (fs_edit_lenient.c).
 */
#ifndef PATHGATE_FS_EDIT_LENIENT_H
#define PATHGATE_FS_EDIT_LENIENT_H

#include <stddef.h>

#include "pathgate/common.h"

/* The edit of PATHGATE_FS_EDIT_LENIENT (fs_edit_lenient.c): old and new
 * (CRLF read as LF) against content (LF line breaks): the first exact
 * occurrence, else the first run of lines equal once trimmed, re-indented.
 * PATHGATE_EEDIT ("Could not find exact match for edit:\n<old>"),
 * ENOMEM. */
int pathgate__fs_replace_lenient(char **result, size_t *result_len, const pathgate_allocator *a,
                                 const char *content, size_t len, const char *old_text,
                                 size_t old_len, const char *new_text, size_t new_len,
                                 pathgate_error *err);
/* s with every "\r\n" written "\n" (allocated with a); NULL on ENOMEM. */
char *pathgate__fs_crlf_to_lf(const pathgate_allocator *a, const char *s, size_t len,
                              size_t *out_len);

#endif
