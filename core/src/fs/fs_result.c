/* fs_result.c - result structs of the file operations: an arena for their
 * strings (pointers stay valid while the result grows), push, dispose. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "fs_result.h"
#include "fs_text.h"

#define ARENA_BLOCK 65536

typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    char data[];
} arena_block;

char *pathgate__fs_arena_alloc(void **arena, const pathgate_allocator *a, size_t len)
{
    arena_block *b = *arena;
    if (!b || b->cap - b->used < len) {
        size_t cap = len > ARENA_BLOCK / 4 ? len : ARENA_BLOCK;
        if (cap > (size_t)-1 - sizeof *b)
            return NULL;
        arena_block *nb = pathgate__malloc(a, sizeof *nb + cap);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->cap = cap;
        if (b && cap != ARENA_BLOCK) {
            /* a big string gets its own block behind the current one, so
             * the current block keeps filling */
            nb->next = b->next;
            b->next = nb;
            nb->used = len;
            return nb->data;
        }
        nb->next = b;
        *arena = b = nb;
    }
    char *p = b->data + b->used;
    b->used += len;
    return p;
}

char *pathgate__fs_arena_strdup(void **arena, const pathgate_allocator *a, const char *s,
                                size_t len)
{
    if (len == (size_t)-1)
        return NULL;
    char *p = pathgate__fs_arena_alloc(arena, a, len + 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void pathgate__fs_arena_free(void **arena, const pathgate_allocator *a)
{
    arena_block *b = *arena;
    while (b) {
        arena_block *next = b->next;
        pathgate__free(a, b);
        b = next;
    }
    *arena = NULL;
}

void pathgate__fs_arena_adopt(void **dst, void **src)
{
    arena_block *s = *src, *d = *dst;
    *src = NULL;
    if (!s)
        return;
    if (!d) {
        *dst = s;
        return;
    }
    /* behind dst's current block, which keeps filling */
    arena_block *tail = s;
    while (tail->next)
        tail = tail->next;
    tail->next = d->next;
    d->next = s;
}

static char *digits(char *p, unsigned long v, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        p[i] = (char)('0' + v % 10);
        v /= 10;
    }
    return p + width;
}

void pathgate__fs_format_time(char out[PATHGATE_FS_TIME_LEN], int64_t sec, long nsec)
{
    struct tm tm;
    time_t t = (time_t)sec;
    if (nsec < 0 || nsec > 999999999L)
        nsec = 0;
#ifdef _WIN32
    int bad = gmtime_s(&tm, &t) != 0; /* the C runtime's reentrant gmtime */
#else
    int bad = !gmtime_r(&t, &tm);
#endif
    if (bad || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900) {
        /* outside what four digits of year can say */
        memcpy(out, "1970-01-01T00:00:00.000000+00:00", 33);
        return;
    }
    char *p = out;
    p = digits(p, (unsigned long)(tm.tm_year + 1900), 4);
    *p++ = '-';
    p = digits(p, (unsigned long)tm.tm_mon + 1, 2);
    *p++ = '-';
    p = digits(p, (unsigned long)tm.tm_mday, 2);
    *p++ = 'T';
    p = digits(p, (unsigned long)tm.tm_hour, 2);
    *p++ = ':';
    p = digits(p, (unsigned long)tm.tm_min, 2);
    *p++ = ':';
    p = digits(p, (unsigned long)tm.tm_sec, 2);
    *p++ = '.';
    p = digits(p, (unsigned long)(nsec / 1000), 6);
    memcpy(p, "+00:00", 7);
}

int pathgate__fs_list_push(pathgate_fs_list *list, const char *path, size_t len, int is_dir,
                           const pathgate__os_stat *st)
{
    if (list->count == list->cap) {
        pathgate_fs_info *items =
            pathgate__grow(&list->alloc, list->items, &list->cap, sizeof *items, 16);
        if (!items)
            return PATHGATE_ENOMEM;
        list->items = items;
    }
    const char *p = pathgate__fs_arena_strdup(&list->arena, &list->alloc, path, len);
    if (!p)
        return PATHGATE_ENOMEM;
    pathgate_fs_info *e = &list->items[list->count++];
    e->path = p;
    e->path_len = len;
    e->is_dir = is_dir;
    e->has_metadata = st != NULL;
    if (!st) {
        e->size = 0;
        e->mtime_sec = 0;
        e->mtime_nsec = 0;
        e->modified_at[0] = '\0';
        return PATHGATE_OK;
    }
    e->size = is_dir ? 0 : (uint64_t)st->size;
    e->mtime_sec = (int64_t)st->mtime_sec;
    e->mtime_nsec = st->mtime_nsec;
    pathgate__fs_format_time(e->modified_at, e->mtime_sec, e->mtime_nsec);
    return PATHGATE_OK;
}

int pathgate__fs_matches_push(pathgate_fs_matches *m, const char *path, size_t path_len,
                              uint64_t line, const char *text, size_t text_len)
{
    if (m->count == m->cap) {
        pathgate_fs_match *items = pathgate__grow(&m->alloc, m->items, &m->cap, sizeof *items, 16);
        if (!items)
            return PATHGATE_ENOMEM;
        m->items = items;
    }
    /* the path is shared with the previous match of the same file */
    const char *p = NULL;
    if (m->count && m->items[m->count - 1].path_len == path_len &&
        memcmp(m->items[m->count - 1].path, path, path_len) == 0)
        p = m->items[m->count - 1].path;
    else if (!(p = pathgate__fs_arena_strdup(&m->arena, &m->alloc, path, path_len)))
        return PATHGATE_ENOMEM;
    size_t n = pathgate__fs_utf8_repair(NULL, text, text_len);
    char *t = pathgate__fs_arena_alloc(&m->arena, &m->alloc, n + 1);
    if (!t)
        return PATHGATE_ENOMEM;
    if (n == text_len)
        memcpy(t, text, n);
    else
        pathgate__fs_utf8_repair(t, text, text_len);
    t[n] = '\0';
    pathgate_fs_match *e = &m->items[m->count++];
    e->path = p;
    e->path_len = path_len;
    e->line = line;
    e->text = t;
    e->text_len = n;
    return PATHGATE_OK;
}

void pathgate_fs_list_dispose(pathgate_fs_list *list)
{
    if (!list)
        return;
    if (list->alloc.free) {
        pathgate__free(&list->alloc, list->items);
        pathgate__fs_arena_free(&list->arena, &list->alloc);
    }
    memset(list, 0, sizeof *list);
}

void pathgate_fs_matches_dispose(pathgate_fs_matches *m)
{
    if (!m)
        return;
    if (m->alloc.free) {
        pathgate__free(&m->alloc, m->items);
        pathgate__fs_arena_free(&m->arena, &m->alloc);
    }
    memset(m, 0, sizeof *m);
}

void pathgate_fs_read_result_dispose(pathgate_fs_read_result *res)
{
    if (!res)
        return;
    pathgate_buf_dispose(&res->path);
    pathgate_buf_dispose(&res->content);
    memset(res, 0, sizeof *res);
}

void pathgate_fs_blobs_dispose(pathgate_fs_blobs *blobs)
{
    if (!blobs)
        return;
    if (blobs->alloc.free) {
        for (size_t i = 0; i < blobs->count; i++)
            pathgate__free(&blobs->alloc, blobs->items[i].data);
        pathgate__free(&blobs->alloc, blobs->items);
    }
    memset(blobs, 0, sizeof *blobs);
}

const char *pathgate_fs_operation_error(int code)
{
    switch (code) {
    case PATHGATE_OK:
        return NULL;
    case PATHGATE_ENOTFOUND:
        return "file_not_found";
    case PATHGATE_EACCES:
    case PATHGATE_EPOLICY: /* protected by the host's policy */
        return "permission_denied";
    case PATHGATE_EISDIR:
        return "is_directory";
    default:
        return "invalid_path";
    }
}

int pathgate__fs_list_append(pathgate_fs_list *dst, pathgate_fs_list *src)
{
    if (src->count) {
        if (dst->count + src->count > dst->cap) {
            size_t cap = dst->cap ? dst->cap : 16;
            while (cap < dst->count + src->count)
                cap *= 2;
            pathgate_fs_info *items =
                pathgate__realloc(&dst->alloc, dst->items, cap * sizeof *items);
            if (!items)
                return PATHGATE_ENOMEM;
            dst->items = items;
            dst->cap = cap;
        }
        memcpy(dst->items + dst->count, src->items, src->count * sizeof *src->items);
        dst->count += src->count;
        src->count = 0;
    }
    pathgate__fs_arena_adopt(&dst->arena, &src->arena);
    return PATHGATE_OK;
}

int pathgate__fs_matches_append(pathgate_fs_matches *dst, pathgate_fs_matches *src, size_t max)
{
    size_t room = dst->count < max ? max - dst->count : 0;
    size_t take = src->count < room ? src->count : room;
    if (src->count > take || src->truncated)
        dst->truncated = 1;
    if (take) {
        if (dst->count + take > dst->cap) {
            size_t cap = dst->cap ? dst->cap : 16;
            while (cap < dst->count + take)
                cap *= 2;
            pathgate_fs_match *items =
                pathgate__realloc(&dst->alloc, dst->items, cap * sizeof *items);
            if (!items)
                return PATHGATE_ENOMEM;
            dst->items = items;
            dst->cap = cap;
        }
        memcpy(dst->items + dst->count, src->items, take * sizeof *src->items);
        dst->count += take;
    }
    src->count = 0;
    dst->unreadable_files += src->unreadable_files;
    dst->skipped_large += src->skipped_large;
    dst->files_scanned += src->files_scanned;
    pathgate__fs_arena_adopt(&dst->arena, &src->arena);
    return PATHGATE_OK;
}
