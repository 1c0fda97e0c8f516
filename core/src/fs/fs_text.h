/*
 * fs_text.h - internal: line windows, whitespace, UTF-8 repair, base64,
 * quotes and the exact edit of a text (fs_text.c).
 */
#ifndef PATHGATE_FS_TEXT_H
#define PATHGATE_FS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "pathgate/fs.h"

/* 1 when s is empty or only whitespace (as Python's str.strip() sees the
 * ASCII range: space, \t \n \v \f \r and \x1c-\x1f). */
int pathgate__fs_blank(const char *s, size_t len);

/* Number of '\n' in s[0..len). */
size_t pathgate__fs_count_newlines(const char *s, size_t len);

/* Lines of s: '\n' ends a line; a final line without it counts. */
size_t pathgate__fs_count_lines(const char *s, size_t len);

/*
 * The window [offset, offset + limit) of the lines of s, each without its
 * terminator ("\n", or "\r\n"), joined with "\n", into out. *total gets
 * the line count. PATHGATE_ERANGE when offset >= total.
 */
int pathgate__fs_window(pathgate_buf *out, size_t *total, const pathgate_allocator *a,
                        const char *s, size_t len, uint64_t offset, uint64_t limit);

/* Length of s[0..len) with every invalid UTF-8 sequence replaced by U+FFFD;
 * writes it to out when out is not NULL (out must hold that many bytes). */
size_t pathgate__fs_utf8_repair(char *out, const char *s, size_t len);

/* Standard base64 (with padding) of data into out (allocated with a). */
int pathgate__fs_base64(pathgate_buf *out, const pathgate_allocator *a, const void *data,
                        size_t len);

/*
 * The edit of content: replaces old by new (every occurrence when
 * replace_all, else old must occur once), with the CRLF reading of fs.h.
 * *result gets the new content (allocated with a), *count the occurrences.
 * PATHGATE_EEDIT or PATHGATE_EAMBIGUOUS with the messages of fs.h, ENOMEM.
 */
int pathgate__fs_replace(char **result, size_t *result_len, size_t *count,
                         const pathgate_allocator *a, const char *content, size_t len,
                         const char *old_text, size_t old_len, const char *new_text, size_t new_len,
                         int replace_all, pathgate_error *err);

/* Shortest quote of user text that fits in `room` bytes: copies at most
 * room bytes (cut on a UTF-8 boundary, ending "...") into out (room + 1
 * bytes). Returns its length. */
size_t pathgate__fs_quote(char *out, size_t room, const char *s, size_t len);

#endif
